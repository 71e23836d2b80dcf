// SPDX-License-Identifier: MIT
// napkin/inference_planner.hpp — how to serve a model on GPUs of one kind over
// one link: the fewest GPUs, and the tensor × pipeline split and the tokens in
// flight that give the lowest time per token, or the most tokens per second
// under a latency bound.
//
// The combined split (extends the split lesson, shared reference
// lesson-split-one-model-over-gpus.txt, and napkin/inference.hpp): tp·pp GPUs
// in pp pipeline groups of L/pp consecutive layers, each group a tensor split
// of tp GPUs. With k tokens in flight and a share S = weights / (tp·pp) per GPU:
//
//   busy     = max(S / memory bandwidth, 2·N_active·k / (tp·pp) / peak)
//              (a mixture of experts reads of S only the experts the k tokens
//              hit: inference.hpp, weights_read_in_step)
//   read     = pp · busy                      (the groups work in turn)
//   transfer = a·L · AllReduce(k·h·b, tp)     (a all-reduces per layer, every
//                                              layer once, each among tp GPUs)
//            + (pp − 1) · PointToPoint(k·h·b) (one hand-off per boundary)
//
// pp = 1 gives the tensor split of token_time term by term (read = busy,
// transfer = a·L all-reduces among tp, no hand-off) and tp = 1 gives the
// pipeline split (read = pp·busy, no all-reduce on one GPU, pp − 1 hand-offs),
// so both existing results are corners of this one. After the all-reduce every
// GPU of a group holds the whole hidden vector, and one of them hands it on.
//
// Memory per GPU: the weights as in the lesson (an even share of tp·pp); each
// of the k chats in flight keeps its own KV cache of `setup.context` tokens,
// split by layer over the pp groups and by KV head over min(tp, kv_heads)
// GPUs; the working memory is not split. For k = 1 this is the lesson's count
// when pp = 1, and when tp = 1 and pp ≤ kv_heads (the lesson shares a pipeline
// split's cache by head too, so for pp > kv_heads it counts more than a group
// really keeps).
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/inference.hpp>
#include <napkin/model.hpp>
#include <napkin/serving.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

namespace napkin {

/// A combined split: pp pipeline groups of tp GPUs each, with k tokens in flight (see the top of the file).
struct TensorPipelineSplit {
    long long tp = 1;                // GPUs in each tensor-split group
    long long pp = 1;                // pipeline groups
    long long tokens_in_flight = 1;  // chats served together, one token each per step
    [[nodiscard]] constexpr long long gpus() const { return tp * pp; }
};

namespace detail {
constexpr void check_split(const TensorPipelineSplit& s) {
    require_at_least_one("TensorPipelineSplit.tp", s.tp);
    require_at_least_one("TensorPipelineSplit.pp", s.pp);
    require_at_least_one("TensorPipelineSplit.tokens_in_flight", s.tokens_in_flight);
}
}  // namespace detail

/// The KV cache of k chats of `context` tokens: by layer over pp groups, by KV
/// head over min(tp, kv_heads) GPUs (past kv_heads each GPU keeps a copy of one head).
[[nodiscard]] constexpr Bytes combined_kv_cache_per_gpu(const TransformerShape& model, TensorPipelineSplit split,
                                                        const InferenceSetup& setup = default_inference_setup) {
    detail::check_split(split);
    const Bytes whole = kv_cache_bytes(model, setup.bytes_per_cache_value, setup.context) *
                        count(split.tokens_in_flight);
    return ceil_whole(whole / (count(split.pp) * count(std::min(split.tp, model.kv_heads))));
}

/// The memory one GPU of the split needs: an even share of the weights over tp·pp, its share of the
/// k chats' KV cache (combined_kv_cache_per_gpu), and the working memory, not split.
[[nodiscard]] constexpr InferenceMemory combined_memory_per_gpu(const TransformerShape& model,
                                                                TensorPipelineSplit split,
                                                                const InferenceSetup& setup = default_inference_setup) {
    (void)validated(model);
    detail::check_setup(setup);
    return {weights_per_gpu(model, split.gpus(), setup), combined_kv_cache_per_gpu(model, split, setup),
            working_memory(model, setup)};
}

/// The time of one step that gives each of the k chats its next token (see the
/// derivation at the top of this file).
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr TokenTime combined_token_time(const TransformerShape& model, const Gpu& gpu,
                                                      const Link& link, TensorPipelineSplit split,
                                                      const InferenceSetup& setup = default_inference_setup,
                                                      const Collective& collective = default_ring_collective) {
    detail::check_inference_inputs(model, gpu, link, setup);
    detail::check_split(split);
    // Named, not std::max(weight_read_time(...), token_compute_time(...)): with
    // the two calls as temporaries in one expression GCC 12 -O3 made this
    // function 17 % slower than its raw-double twin (bench_formulas,
    // combined_token_time); the checks and the arithmetic are the same.
    const long long gpus = split.gpus();
    const Seconds read = read_time(weights_read_in_step(model, gpus, split.tokens_in_flight, setup), gpu);
    const Seconds compute = token_compute_time(model, gpu, gpus, split.tokens_in_flight);
    const Seconds busy = std::max(read, compute);
    const Bytes message = hidden_vector(model, setup.bytes_per_activation) * tokens(count(split.tokens_in_flight));
    const Seconds all_reduces =
        split.tp == 1 ? Seconds{}
                      : count(setup.all_reduces_per_layer * model.layers) *
                            collective.all_reduce(message, split.tp, link).total();
    const Seconds hand_offs = count(split.pp - 1) * collective.point_to_point(message, link).total();
    return {count(split.pp) * busy, all_reduces + hand_offs};
}

// ---------------------------------------------------------------------------
// The planner

/// What plan_inference optimises: each user's time per token, or the tokens per second in all.
enum class InferenceObjective {
    latency,    // the lowest time per token for each user (ties: fewer GPUs, then more chats)
    throughput  // the most tokens per second in all (ties: fewer GPUs, then the lower latency)
};

/// What plan_inference searches: GPUs and tokens in flight up to their caps, a latency bound, an objective.
struct InferencePlanQuery {
    long long max_gpus = 64;
    long long max_tokens_in_flight = 1024;
    // The longest a user may wait for a token (no bound by default).
    Seconds latency_bound = seconds(std::numeric_limits<double>::infinity());
    InferenceObjective objective = InferenceObjective::latency;
};

/// One point of the search: the split, its memory per GPU and its time per token.
struct InferenceCandidate {
    TensorPipelineSplit split;
    InferenceMemory memory;
    TokenTime time;
    [[nodiscard]] constexpr TokensPerSecond tokens_per_second() const {
        return tokens(count(split.tokens_in_flight)) / time.total();
    }
};

/// plan_inference's answer: the fewest GPUs, the objective's winner, and counts of the points it tried.
struct InferencePlan {
    std::optional<InferenceCandidate> fewest;  // the fewest GPUs that hold the model (one chat); the faster on a tie
    std::optional<InferenceCandidate> best;    // the objective's winner
    long long points_evaluated = 0;            // (tp, pp, k) points whose memory and time were computed
    long long rejected_memory = 0;             // evaluated, did not fit
    long long rejected_latency = 0;            // evaluated, fit, slower than the bound
    long long pruned = 0;                      // never evaluated: a bound proves they fail (see plan_inference)
};

namespace detail {
/// Is `a` a better answer than `b` for the objective?
constexpr bool better(const InferenceCandidate& a, const InferenceCandidate& b, InferenceObjective objective) {
    const Seconds ta = a.time.total(), tb = b.time.total();
    if (objective == InferenceObjective::latency) {
        if (ta != tb) return ta < tb;
        if (a.split.gpus() != b.split.gpus()) return a.split.gpus() < b.split.gpus();
        return a.split.tokens_in_flight > b.split.tokens_in_flight;
    }
    const TokensPerSecond ra = a.tokens_per_second(), rb = b.tokens_per_second();
    if (ra != rb) return ra > rb;
    if (a.split.gpus() != b.split.gpus()) return a.split.gpus() < b.split.gpus();
    return ta < tb;
}
}  // namespace detail

/// Every split with tp dividing the attention heads (slices are cut by head),
/// pp dividing the layers (equal groups), tp·pp ≤ max_gpus, and every k from 1
/// to max_tokens_in_flight. Exhaustive; two proven cut-offs skip the rest of a
/// (tp, pp) row once k is too large:
///  - memory per GPU never falls as k grows (only the KV cache depends on k, and
///    it grows with it), so once k does not fit no larger k fits;
///  - the step time never falls as k grows (busy is a max of a constant and a
///    term growing in k; the messages grow with k and a collective's time in the
///    alpha-beta model grows with its message), so once k misses the latency
///    bound every larger k misses it.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr InferencePlan plan_inference(const TransformerShape& model, const Gpu& gpu,
                                                     const Link& link, const InferencePlanQuery& query = {},
                                                     const InferenceSetup& setup = default_inference_setup,
                                                     const Collective& collective = default_ring_collective) {
    detail::check_inference_inputs(model, gpu, link, setup);
    require_count("max_gpus", query.max_gpus, limits::gpus);
    // k runs up to this bound in every (tp, pp) row that fits: a cap, not a scan of any size.
    require_count("max_tokens_in_flight", query.max_tokens_in_flight, limits::tokens_in_flight);
    // +inf is the default, "no bound"; nan and 0 are not bounds.
    require(query.latency_bound.value() > 0.0, "latency_bound (s)", query.latency_bound.value(),
            "must be positive");  // +inf: no bound
    const Bytes usable = usable_memory(gpu);
    InferencePlan plan;
    // Only divisors are splits: O(√n) to list, ascending as a scan would meet them.
    const std::vector<long long> pps = divisors(model.layers);
    for (long long tp : divisors(model.heads)) {
        if (tp > query.max_gpus) break;
        for (long long pp : pps) {
            if (pp > query.max_gpus / tp) break;
            for (long long k = 1; k <= query.max_tokens_in_flight; ++k) {
                const TensorPipelineSplit split{tp, pp, k};
                const InferenceMemory memory = combined_memory_per_gpu(model, split, setup);
                ++plan.points_evaluated;
                if (memory.total() > usable) {
                    ++plan.rejected_memory;
                    plan.pruned += query.max_tokens_in_flight - k;
                    break;
                }
                const InferenceCandidate candidate{split, memory,
                                                   combined_token_time(model, gpu, link, split, setup, collective)};
                if (k == 1 && (!plan.fewest || split.gpus() < plan.fewest->split.gpus() ||
                               (split.gpus() == plan.fewest->split.gpus() &&
                                candidate.time.total() < plan.fewest->time.total())))
                    plan.fewest = candidate;
                if (candidate.time.total() > query.latency_bound) {
                    ++plan.rejected_latency;
                    plan.pruned += query.max_tokens_in_flight - k;
                    break;
                }
                if (!plan.best || detail::better(candidate, *plan.best, query.objective)) plan.best = candidate;
            }
        }
    }
    return plan;
}

// ---------------------------------------------------------------------------
// The serving planner: the serving model (serving.hpp) as the engine.

/// What plan_serving searches: layouts up to max_gpus, concurrencies up to max_concurrency, for
/// requests of input_tokens and output_tokens, within TPOT and TTFT bounds.
struct ServingPlanQuery {
    long long max_gpus = 64;
    long long max_concurrency = 1024;
    long long input_tokens = 1024;
    long long output_tokens = 256;
    // The longest time per output token and time to first token allowed (no bound by default).
    Seconds tpot_bound = seconds(std::numeric_limits<double>::infinity());
    Seconds ttft_bound = seconds(std::numeric_limits<double>::infinity());
};

/// plan_serving's answer: the most output tokens/s per GPU within the bounds, and counts of the points it tried.
struct ServingPlan {
    std::optional<ServingEstimate> best;  // the most output tokens/s per GPU within the bounds
    long long points_evaluated = 0;       // (layout, N) points estimated
    long long rejected_memory = 0;        // layouts where not one sequence fits
    long long rejected_latency = 0;       // points over a bound
    long long pruned = 0;                 // never estimated: a bound proves they fail
};

namespace detail {
/// More output tokens/s per GPU; on a tie fewer GPUs, then the lower TPOT.
constexpr bool better_serving(const ServingEstimate& a, const ServingEstimate& b) {
    if (a.output_tokens_per_s_per_gpu != b.output_tokens_per_s_per_gpu)
        return a.output_tokens_per_s_per_gpu > b.output_tokens_per_s_per_gpu;
    if (a.layout.gpus() != b.layout.gpus()) return a.layout.gpus() < b.layout.gpus();
    return a.tpot < b.tpot;
}
}  // namespace detail

/// Every layout with tp dividing the heads, pp dividing the layers, ep = 1 or
/// (a mixture) dividing the experts, tp·pp·ep ≤ max_gpus, and every continuous
/// concurrency N from 1 to max_concurrency. Two proven cut-offs skip the rest of
/// a layout's N: memory grows with N, so none past max_concurrency(...) fits;
/// TPOT (a step of ⌈N/ep⌉ sequences plus ⌈N/ep⌉/O prefills) and TTFT (a step
/// plus a prefill) never fall as N grows, so once N misses a bound every
/// larger N misses it.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr ServingPlan plan_serving(const TransformerShape& model, const Gpu& gpu, const ServingFabric& fabric,
                                                 const ServingPlanQuery& query,
                                                 const ServingSetup& setup = default_serving_setup,
                                                 const Collective& collective = default_ring_collective) {
    (void)validated(model);
    require_at_least_one("max_gpus", query.max_gpus);
    require_at_least_one("max_concurrency", query.max_concurrency);
    // +inf, the default, is no bound; any other value must be a finite positive time.
    if (query.tpot_bound.value() != std::numeric_limits<double>::infinity())
        require_positive("tpot bound (s)", query.tpot_bound.value());
    if (query.ttft_bound.value() != std::numeric_limits<double>::infinity())
        require_positive("ttft bound (s)", query.ttft_bound.value());
    require_at_least_one("input tokens", query.input_tokens);
    require_at_least_one("output tokens", query.output_tokens);
    require_within_context(model, query.input_tokens + query.output_tokens);
    require_computable(gpu, setup.weights);
    ServingPlan plan;
    const long long length = query.input_tokens + query.output_tokens;
    for (long long tp = 1; tp <= std::min(query.max_gpus, model.heads); ++tp) {
        if (model.heads % tp != 0) continue;
        for (long long pp = 1; tp * pp <= query.max_gpus && pp <= model.layers; ++pp) {
            if (model.layers % pp != 0) continue;
            for (long long ep = 1; tp * pp * ep <= query.max_gpus; ++ep) {
                if (ep > 1 && (model.experts == 0 || model.experts % ep != 0)) continue;
                if (ep > 1 && ep > model.experts) break;
                const ServingLayout layout{tp, pp, ep};
                const long long most = std::min(max_concurrency(model, gpu, layout, length, setup), query.max_concurrency);
                if (most == 0) {
                    ++plan.rejected_memory;
                    plan.pruned += query.max_concurrency;
                    continue;
                }
                plan.pruned += query.max_concurrency - most;
                for (long long n = 1; n <= most; ++n) {
                    const ServingEstimate e = evaluate_serving(
                        model, gpu, fabric, layout,
                        {.input_tokens = query.input_tokens, .output_tokens = query.output_tokens, .concurrency = n},
                        setup, collective);
                    ++plan.points_evaluated;
                    if (e.tpot > query.tpot_bound || e.ttft > query.ttft_bound) {
                        ++plan.rejected_latency;
                        plan.pruned += most - n;
                        break;
                    }
                    if (!plan.best || detail::better_serving(e, *plan.best)) plan.best = e;
                }
                if (model.experts == 0) break;
            }
        }
    }
    return plan;
}


// ---------------------------------------------------------------------------
// A fleet for a traffic level: the fewest GPUs (so the least cost at one price
// per GPU-hour) that serve λ requests/s within the bounds.
//
// r replicas of one layout at concurrency N share Poisson arrivals, λ/r each
// (a random split of a Poisson stream is Poisson). A replica serves
// μ = requests_per_s(N); below that load its TPOT is at most TPOT(N) (the step
// never shrinks as N grows), and its TTFT is the unloaded t₀ plus the M/D/1
// wait of its load ρ = λ/(rμ) (evaluate_serving's queue term). The wait stays
// within the TTFT bound T while ρ ≤ md1_admissible_load(1/μ, 1/μ + T − t₀), so
// r = ⌈λ / (μ·ρ_max)⌉ (and ρ < 1: a queue at full load never drains).

/// A fleet: `replicas` copies of one replica's layout and concurrency, each at load λ/(r·μ) (see above).
struct ServingFleet {
    ServingEstimate replica;  // one replica at its share λ/r of the traffic (its queue included)
    long long replicas = 0;
    double load = 0.0;  // λ / (r·μ): the share of each replica's capacity in use
    [[nodiscard]] constexpr long long gpus() const { return replicas * replica.layout.gpus(); }
};

/// plan_serving_fleet's answer: the fleet of the fewest GPUs, and counts of the points it tried.
struct ServingFleetPlan {
    std::optional<ServingFleet> best;  // the fewest GPUs; ties: the lower TTFT, then the lower TPOT
    long long points_evaluated = 0;    // (layout, N) points estimated
    long long rejected_memory = 0;     // layouts where not one sequence fits
    long long rejected_latency = 0;    // points over a bound even unloaded
};

namespace detail {
/// The replicas of capacity μ that carry λ at a load of at most ρ_max and below 1;
/// 0 when none can (ρ_max = 0: the unloaded TTFT is already over the bound).
[[nodiscard]] constexpr long long replicas_for(const PerSecond& traffic, const PerSecond& capacity,
                                               double admissible_load) {
    if (!(admissible_load > 0.0)) return 0;
    const double needed = traffic / capacity / admissible_load;
    require(needed <= count(limits::gpus), "requests/s", traffic.value(),
            "needs more than 2^40 replicas of the layout");
    auto r = static_cast<long long>(needed);  // ⌈needed⌉, at least 1
    if (count(r) < needed || r < 1) ++r;
    if (!(traffic / capacity / count(r) < 1.0)) ++r;  // ρ = 1 exactly: the queue never drains
    return r;
}

constexpr bool better_fleet(const ServingFleet& a, const ServingFleet& b) {
    if (a.gpus() != b.gpus()) return a.gpus() < b.gpus();
    if (a.replica.ttft != b.replica.ttft) return a.replica.ttft < b.replica.ttft;
    return a.replica.tpot < b.replica.tpot;
}
}  // namespace detail

/// The smallest fleet for `traffic` requests/s over plan_serving's search space
/// (every layout of at most query.max_gpus GPUs a replica, every N up to
/// query.max_concurrency), each replica within query.tpot_bound and, with its
/// queue, query.ttft_bound.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr ServingFleetPlan plan_serving_fleet(const TransformerShape& model, const Gpu& gpu,
                                                            const ServingFabric& fabric, const ServingPlanQuery& query,
                                                            const PerSecond& traffic,
                                                            const ServingSetup& setup = default_serving_setup,
                                                            const Collective& collective = default_ring_collective) {
    (void)validated(model);
    require_positive("requests/s", traffic.value());
    require(traffic.value() <= 1e12, "requests/s", traffic.value(), "must be at most 1e12");
    require_at_least_one("max_gpus", query.max_gpus);
    require_at_least_one("max_concurrency", query.max_concurrency);
    if (query.tpot_bound.value() != std::numeric_limits<double>::infinity())
        require_positive("tpot bound (s)", query.tpot_bound.value());
    if (query.ttft_bound.value() != std::numeric_limits<double>::infinity())
        require_positive("ttft bound (s)", query.ttft_bound.value());
    require_at_least_one("input tokens", query.input_tokens);
    require_at_least_one("output tokens", query.output_tokens);
    require_within_context(model, query.input_tokens + query.output_tokens);
    require_computable(gpu, setup.weights);
    ServingFleetPlan plan;
    const long long length = query.input_tokens + query.output_tokens;
    const bool ttft_bounded = query.ttft_bound.value() != std::numeric_limits<double>::infinity();
    for (long long tp = 1; tp <= std::min(query.max_gpus, model.heads); ++tp) {
        if (model.heads % tp != 0) continue;
        for (long long pp = 1; tp * pp <= query.max_gpus && pp <= model.layers; ++pp) {
            if (model.layers % pp != 0) continue;
            for (long long ep = 1; tp * pp * ep <= query.max_gpus; ++ep) {
                if (ep > 1 && (model.experts == 0 || model.experts % ep != 0)) continue;
                if (ep > 1 && ep > model.experts) break;
                const ServingLayout layout{tp, pp, ep};
                const long long most = std::min(max_concurrency(model, gpu, layout, length, setup), query.max_concurrency);
                if (most == 0) ++plan.rejected_memory;
                for (long long n = 1; n <= most; ++n) {
                    ServingWorkload w{.input_tokens = query.input_tokens, .output_tokens = query.output_tokens,
                                      .concurrency = n};
                    const ServingEstimate unloaded = evaluate_serving(model, gpu, fabric, layout, w, setup, collective);
                    ++plan.points_evaluated;
                    if (unloaded.tpot > query.tpot_bound || unloaded.ttft > query.ttft_bound) {
                        ++plan.rejected_latency;
                        break;  // neither grows back under the bound as N grows (plan_serving)
                    }
                    const PerSecond mu = unloaded.requests_per_s;
                    const Seconds service = seconds(1.0 / mu.value());
                    const double admissible =
                        ttft_bounded ? md1_admissible_load(service, service + query.ttft_bound - unloaded.ttft) : 1.0;
                    long long r = detail::replicas_for(traffic, mu, admissible);
                    if (r == 0) continue;
                    // The load r replicas carry, priced exactly; rounding may leave the wait a hair over.
                    w.arrival_rate = traffic / count(r);
                    ServingEstimate loaded = evaluate_serving(model, gpu, fabric, layout, w, setup, collective);
                    if (loaded.ttft > query.ttft_bound) {
                        ++r;
                        w.arrival_rate = traffic / count(r);
                        loaded = evaluate_serving(model, gpu, fabric, layout, w, setup, collective);
                    }
                    const ServingFleet fleet{.replica = loaded, .replicas = r, .load = traffic / mu / count(r)};
                    if (!plan.best || detail::better_fleet(fleet, *plan.best)) plan.best = fleet;
                }
                if (model.experts == 0) break;
            }
        }
    }
    return plan;
}

}  // namespace napkin
