// napkin/planner.hpp — every way to train a model on a cluster, ranked.
//
//   TrainingPlanQuery q{.model = catalog::gpt3_175b, .cluster = cluster_of(catalog::dgx_a100, 128),
//                       .global_batch = 1536, .sequence = 2048};
//   const TrainingPlan plan = plan_training(q);   // plan.top[0]: the fastest layout that fits
//
// The search space (a superset of Calculon's llm-optimal-execution, Isaev et
// al. SC'23, for the choices napkin's training model distinguishes):
//   tp   every divisor of the attention heads that also divides the hidden size (≤ max_tp)
//   pp   every divisor of the layers;  dp = GPUs / (tp·pp), which must be whole
//   v    every interleaving with pp·v dividing the layers (v > 1 needs pp > 1)
//   b    every micro-batch size dividing the per-replica batch B / dp
//   recomputation none / selective / full;  sequence parallelism off / on (tp > 1)
//   ZeRO 0 / 1 / 2 / 3 / Megatron's distributed optimizer
//   gradient synchronisation overlapped with the backward pass or not
//   schedule 1F1B (v = 1), interleaved 1F1B (v > 1), zero-bubble ZB-H1 (v = 1, pp > 1)
// Tensor-parallel communication is all-reduce without sequence parallelism and
// reduce-scatter + all-gather with it (Korthikanti et al. 2022, Sec. 4.2.2), so
// the sequence-parallel choice is also the choice of TP collective. The two
// choices not enumerated are dominated, so leaving them out loses no winner:
// reduce-scatter + all-gather without sequence parallelism moves the same
// 2(n−1)/n·M over the same 2(n−1) steps as the ring all-reduce but pays the
// base latency twice (same memory, never faster); and pipeline sends without
// Megatron's scatter/gather (Narayanan et al. 2021, Sec. 4.1) carry t times
// the bytes (same memory, never faster). Calculon's remaining dimensions
// (offloading, fused activations, TP overlap variants) have no counterpart in
// napkin's training model, so the GPT-3 case has 120,900 points here against
// Calculon's 1,136,960.
//
// Every point is evaluated with evaluate_training (napkin/training.hpp); ZB-H1
// takes the 1F1B estimate and replaces its bubble (see zero_bubble_h1 below).
// The result: the top k by throughput (all points share B·s, so the shortest
// step wins), the Pareto front of memory per GPU vs step time, and how many
// points were evaluated and rejected, by reason.
//
// Exhaustive and exact: a point is skipped only when a bound proves it would
// be rejected for memory (with must_fit), never to save time on one that
// could win. Two bounds, both from napkin/memory.hpp:
//  1. model states: weights, gradients and optimizer states per GPU depend on
//     (tp, pp, v, sharding) alone and activations are never negative, so when
//     the states alone exceed the usable memory the whole row is rejected;
//  2. micro-batch size: the first stage's activations are per-layer bytes
//     (linear in b) × layers in flight (min(m, p)·L/p, or min(chunks, m·v)·L/(p·v)
//     interleaved, with m = B/(b·d)): b·min(B/(b·d), p) = min(B/d, b·p) never
//     falls as b grows, so once a b does not fit, no larger b fits for the
//     same (recomputation, sequence parallelism).
// Memory does not depend on the overlap or the schedule (ZB-H1 keeps 1F1B's
// p micro-batches in flight, Qi et al. 2023 Sec. 3.1), so one memory check
// settles all of them. The tests compare a pruned search with an unpruned one.
//
// The rows (tp, pp, v, sharding) are shared among std::threads; results do not
// depend on the thread count (ties are broken by a fixed order of the choices).
#pragma once

#include <napkin/error.hpp>
#include <napkin/memory.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/training.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

namespace napkin {

// ---------------------------------------------------------------------------
// Pipeline schedules the planner chooses among

enum class TrainingSchedule { one_f_one_b, interleaved, zero_bubble_h1 };

[[nodiscard]] constexpr std::string_view to_string(TrainingSchedule s) {
    switch (s) {
        case TrainingSchedule::one_f_one_b: return "1f1b";
        case TrainingSchedule::interleaved: return "interleaved";
        case TrainingSchedule::zero_bubble_h1: return "zb-h1";
    }
    return "?";
}

// A set of schedules as bits: schedules_all, or (1u << int(TrainingSchedule::...)).
[[nodiscard]] constexpr unsigned schedule_bit(TrainingSchedule s) { return 1u << static_cast<unsigned>(s); }
inline constexpr unsigned schedules_all = schedule_bit(TrainingSchedule::one_f_one_b) |
                                          schedule_bit(TrainingSchedule::interleaved) |
                                          schedule_bit(TrainingSchedule::zero_bubble_h1);

// Zero Bubble ZB-H1 (Qi et al. 2023, "Zero Bubble Pipeline Parallelism",
// Sec. 3.1): splitting the backward into the input gradient B and the weight
// gradient W turns 1F1B's bubble (p − 1)(T_F + T_B + T_W) into
// (p − 1)(T_F + T_B − T_W), i.e. 2(p − 1)·T_W shorter, for the same activation
// memory. T_W is one micro-batch's weight-gradient GEMMs, as many FLOPs as its
// forward pass: a third of the stage's forward + backward compute. Takes a
// 1F1B (v = 1) estimate and gives the ZB-H1 one; the paper's schedule needs
// m ≥ p micro-batches.
[[nodiscard]] constexpr TrainingEstimate zero_bubble_h1(const TrainingEstimate& one_f_one_b, const Parallelism& par) {
    detail::require(par.virtual_stages == 1, "Parallelism.virtual_stages", count(par.virtual_stages),
                    "must be 1 for ZB-H1");
    detail::require(microbatches(par) >= par.pp, "micro-batches per step", count(microbatches(par)),
                    "must be at least pp for ZB-H1");
    TrainingEstimate e = one_f_one_b;
    const Seconds weight_gradient = one_f_one_b.breakdown.compute / (3.0 * count(microbatches(par)));
    e.breakdown.bubble = std::max(Seconds{}, e.breakdown.bubble - 2.0 * count(par.pp - 1) * weight_gradient);
    e.step = e.breakdown.total();
    e.tokens_per_second = tokens(count(par.global_batch * par.sequence)) / e.step;
    e.mfu = one_f_one_b.mfu * ratio(one_f_one_b.step, e.step);
    e.hfu = one_f_one_b.hfu * ratio(one_f_one_b.step, e.step);
    return e;
}

// ---------------------------------------------------------------------------
// Query and result

struct TrainingPlanQuery {
    TransformerShape model;
    Cluster cluster;            // its GPUs are the GPUs to use
    long long global_batch = 1;  // sequences per optimizer step B
    long long sequence = 2048;   // tokens per sequence s
    long long max_tp = 0;        // 0: no limit
    bool must_fit = true;        // false: rank layouts that do not fit as well
    unsigned schedules = schedules_all;
    Parallelism base{};          // number formats and flash attention; the sizes are searched
    TrainingOptions options{};
    long long top_k = 10;
    unsigned threads = 0;        // 0: every core
    bool prune = true;           // skip points the memory bounds reject (off: evaluate them all)
};

struct TrainingPoint {
    Parallelism parallelism;
    TrainingSchedule schedule = TrainingSchedule::one_f_one_b;
    bool overlap_dp = false;
};

struct TrainingCandidate {
    TrainingPoint point;
    TrainingEstimate estimate;
};

// Why points were turned down. `gpus`, `batch` and `max_tp` count (tp, pp)
// layouts that yield no point at all; `memory` and `schedule` count points.
struct Rejections {
    long long gpus = 0;      // tp·pp does not divide the GPU count
    long long batch = 0;     // dp does not divide the global batch
    long long max_tp = 0;    // tp above the constraint
    long long memory = 0;    // does not fit (evaluated or settled by a bound)
    long long schedule = 0;  // the schedule cannot run it (interleaved: m not a multiple of p; ZB-H1: m < p)
    [[nodiscard]] constexpr long long total() const { return gpus + batch + max_tp + memory + schedule; }
};

struct TrainingPlan {
    std::vector<TrainingCandidate> top;     // fastest first
    std::vector<TrainingCandidate> pareto;  // memory vs step time, least memory first
    long long points = 0;                   // points in the space (b, recomputation, ... for every valid row)
    long long points_evaluated = 0;         // points whose step time was computed
    long long points_pruned = 0;            // points rejected for memory without computing their step time
    long long points_fitting = 0;           // evaluated points that fit
    Rejections rejected;
};

// ---------------------------------------------------------------------------
// The search

namespace detail {

inline constexpr std::array<Recompute, 3> recompute_choices{Recompute::none, Recompute::selective, Recompute::full};
inline constexpr std::array<Sharding, 5> sharding_choices{Sharding::none, Sharding::zero1, Sharding::zero2,
                                                          Sharding::zero3, Sharding::distributed};

// A fixed order of the choices, to break ties the same way on any thread count.
constexpr auto choice_key(const TrainingPoint& p) {
    const Parallelism& a = p.parallelism;
    return std::make_tuple(a.tp, a.pp, a.virtual_stages, a.micro_batch, static_cast<int>(a.recompute),
                           a.sequence_parallel, static_cast<int>(a.sharding), p.overlap_dp,
                           static_cast<int>(p.schedule));
}

// Faster first; on a tie less memory, then the fixed order.
constexpr bool ranks_before(const TrainingCandidate& a, const TrainingCandidate& b) {
    if (a.estimate.step != b.estimate.step) return a.estimate.step < b.estimate.step;
    if (a.estimate.memory.total() != b.estimate.memory.total())
        return a.estimate.memory.total() < b.estimate.memory.total();
    return choice_key(a.point) < choice_key(b.point);
}

// Less memory first; on a tie faster, then the fixed order.
constexpr bool memory_before(const TrainingCandidate& a, const TrainingCandidate& b) {
    if (a.estimate.memory.total() != b.estimate.memory.total())
        return a.estimate.memory.total() < b.estimate.memory.total();
    if (a.estimate.step != b.estimate.step) return a.estimate.step < b.estimate.step;
    return choice_key(a.point) < choice_key(b.point);
}

// The best k seen so far, kept sorted.
struct TopK {
    std::size_t k;
    std::vector<TrainingCandidate> items;
    void offer(const TrainingCandidate& c) {
        if (k == 0) return;
        if (items.size() == k && !ranks_before(c, items.back())) return;
        items.insert(std::upper_bound(items.begin(), items.end(), c, ranks_before), c);
        if (items.size() > k) items.pop_back();
    }
};

// The points no other point beats on both memory and time, kept sorted by
// memory (so their times fall strictly).
struct ParetoFront {
    std::vector<TrainingCandidate> items;
    void offer(const TrainingCandidate& c) {
        auto at = std::upper_bound(items.begin(), items.end(), c, memory_before);
        if (at != items.begin() && !(c.estimate.step < std::prev(at)->estimate.step)) return;  // dominated
        auto last = at;
        while (last != items.end() && !(last->estimate.step < c.estimate.step)) ++last;  // now dominated by c
        at = items.erase(at, last);
        items.insert(at, c);
    }
};

// One row of the space: a (tp, pp, v, sharding) choice; the rest is searched inside it.
struct PlanRow {
    long long tp, pp, dp, v;
    Sharding sharding;
};

struct RowResult {
    long long points = 0, evaluated = 0, pruned = 0, fitting = 0, memory = 0, schedule = 0;
};


// The micro-batch sizes of a row, ascending: the divisors of B / dp.
inline std::vector<long long> micro_batch_sizes(long long per_replica) {
    std::vector<long long> sizes;
    for (long long b = 1; b <= per_replica; ++b)
        if (per_replica % b == 0) sizes.push_back(b);
    return sizes;
}

// The schedules a row runs: interleaved when v > 1; 1F1B, and ZB-H1 with pp > 1, when v = 1.
struct RowSchedules {
    std::array<TrainingSchedule, 2> items{};
    std::size_t size = 0;
};
constexpr RowSchedules row_schedules(const TrainingPlanQuery& q, const PlanRow& row) {
    RowSchedules s;
    const auto allowed = [&](TrainingSchedule x) { return (q.schedules & schedule_bit(x)) != 0; };
    if (row.v > 1) {
        if (allowed(TrainingSchedule::interleaved)) s.items[s.size++] = TrainingSchedule::interleaved;
    } else {
        if (allowed(TrainingSchedule::one_f_one_b)) s.items[s.size++] = TrainingSchedule::one_f_one_b;
        if (row.pp > 1 && allowed(TrainingSchedule::zero_bubble_h1)) s.items[s.size++] = TrainingSchedule::zero_bubble_h1;
    }
    return s;
}

// Points of a row: micro-batch sizes × 3 recomputations × sequence parallelism
// (2 when tp > 1) × schedules × 2 overlap choices.
inline long long row_points(const TrainingPlanQuery& q, const PlanRow& row) {
    return static_cast<long long>(micro_batch_sizes(q.global_batch / row.dp).size()) * 3 * (row.tp > 1 ? 2 : 1) *
           static_cast<long long>(row_schedules(q, row).size) * 2;
}

// Megatron's interleaved order takes micro-batches in groups of p
// (megatron/core/pipeline_parallel/schedules.py); ZB-H1's schedule needs m ≥ p (Qi et al. 2023, Sec. 3.1).
constexpr bool schedule_runs(TrainingSchedule schedule, long long microbatches, long long pp) {
    if (schedule == TrainingSchedule::interleaved) return microbatches % pp == 0;
    if (schedule == TrainingSchedule::zero_bubble_h1) return microbatches >= pp;
    return true;
}

template <class Sink>
void search_row(const TrainingPlanQuery& q, const PlanRow& row, RowResult& out, Sink&& sink) {
    const Bytes usable = usable_memory(q.cluster.node.gpu);
    const RowSchedules schedules = row_schedules(q, row);
    const std::vector<long long> sizes = micro_batch_sizes(q.global_batch / row.dp);
    const long long sp_choices = row.tp > 1 ? 2 : 1;
    const long long all = static_cast<long long>(sizes.size()) * 3 * sp_choices * 2 * static_cast<long long>(schedules.size);
    out.points += all;
    if (all == 0) return;

    Parallelism par = q.base;
    par.tp = row.tp;
    par.pp = row.pp;
    par.dp = row.dp;
    par.ep = 1;
    par.cp = 1;
    par.virtual_stages = row.v;
    par.global_batch = q.global_batch;
    par.sequence = q.sequence;
    par.sharding = row.sharding;

    const bool prune = q.must_fit && q.prune;
    // Bound 1: the model states alone do not fit.
    // Points of micro-batch sizes[from..] that a bound settles, `combos` times
    // over: those the schedule cannot run count as such, the rest as memory.
    const auto settle = [&](std::size_t from, long long combos) {
        for (std::size_t j = from; j < sizes.size(); ++j)
            for (std::size_t s = 0; s < schedules.size; ++s) {
                const bool runs = schedule_runs(schedules.items[s], q.global_batch / (sizes[j] * row.dp), row.pp);
                (runs ? out.memory : out.schedule) += 2 * combos;
                if (runs) out.pruned += 2 * combos;
            }
    };
    if (prune && training_memory(q.model, par).states() > usable) {
        settle(0, 3 * sp_choices);
        return;
    }
    for (Recompute recompute : recompute_choices) {
        par.recompute = recompute;
        for (long long sp = 0; sp < sp_choices; ++sp) {
            par.sequence_parallel = sp == 1;
            for (std::size_t i = 0; i < sizes.size(); ++i) {
                par.micro_batch = sizes[i];
                // Bound 2: this micro-batch does not fit, so no larger one does.
                if (prune && training_memory(q.model, par).total() > usable) {
                    settle(i, 1);
                    break;
                }
                const long long m = microbatches(par);
                for (std::size_t s = 0; s < schedules.size; ++s) {
                    const TrainingSchedule schedule = schedules.items[s];
                    if (!schedule_runs(schedule, m, row.pp)) {
                        out.schedule += 2;
                        continue;
                    }
                    for (bool overlap : {false, true}) {
                        TrainingOptions options = q.options;
                        options.overlap_dp = overlap;
                        TrainingEstimate e = evaluate_training(q.model, q.cluster, par, options);
                        if (schedule == TrainingSchedule::zero_bubble_h1) e = zero_bubble_h1(e, par);
                        ++out.evaluated;
                        if (e.fits) ++out.fitting;
                        else if (q.must_fit) ++out.memory;
                        sink(TrainingCandidate{{par, schedule, overlap}, e});
                    }
                }
            }
        }
    }
}

}  // namespace detail

// The rows of the space, and the layouts rejected before any point exists.
[[nodiscard]] inline std::vector<detail::PlanRow> plan_rows(const TrainingPlanQuery& q, Rejections* rejected = nullptr) {
    std::vector<detail::PlanRow> rows;
    const long long n = gpus(q.cluster);
    const TransformerShape& m = q.model;
    for (long long tp = 1; tp <= m.heads; ++tp) {
        if (m.heads % tp != 0 || m.hidden % tp != 0) continue;
        for (long long pp = 1; pp <= m.layers; ++pp) {
            if (m.layers % pp != 0) continue;
            if (n % (tp * pp) != 0) {
                if (rejected) ++rejected->gpus;
                continue;
            }
            if (q.max_tp > 0 && tp > q.max_tp) {
                if (rejected) ++rejected->max_tp;
                continue;
            }
            const long long dp = n / (tp * pp);
            if (q.global_batch % dp != 0) {
                if (rejected) ++rejected->batch;
                continue;
            }
            for (long long v = 1; v <= m.layers / pp; ++v) {
                if ((m.layers / pp) % v != 0 || (v > 1 && pp == 1)) continue;
                for (Sharding sharding : detail::sharding_choices) rows.push_back({tp, pp, dp, v, sharding});
            }
        }
    }
    return rows;
}

// Search the whole space. `progress(done_points, total_points)` is called as
// rows finish, from the worker threads (it must be thread-safe).
// Search the whole space. `progress(done_points, total_points)` is called as
// rows finish, from the worker threads (it must be thread-safe).
template <class Progress>
[[nodiscard]] TrainingPlan plan_training(const TrainingPlanQuery& q, Progress&& progress) {
    (void)validated(q.model);
    (void)validated(q.cluster);
    detail::require_at_least_one("global_batch", q.global_batch);
    detail::require_at_least_one("sequence", q.sequence);
    detail::require_non_negative("max_tp", count(q.max_tp));
    detail::require_non_negative("top_k", count(q.top_k));
    detail::require(q.schedules != 0 && (q.schedules & ~schedules_all) == 0, "schedules", count(q.schedules),
                    "must be a non-empty set of TrainingSchedule bits");

    TrainingPlan plan;
    const std::vector<detail::PlanRow> rows = plan_rows(q, &plan.rejected);
    long long total = 0;  // counted up front for the progress report
    for (const auto& row : rows) total += detail::row_points(q, row);

    unsigned threads = q.threads != 0 ? q.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(rows.size(), 1)));
    struct Worker {
        detail::TopK top;
        detail::ParetoFront front;
        detail::RowResult counts;
    };
    std::vector<Worker> workers(threads, Worker{detail::TopK{static_cast<std::size_t>(q.top_k), {}}, {}, {}});
    std::atomic<std::size_t> next{0};
    std::atomic<long long> done{0};
    const auto work = [&](Worker& w) {
        for (std::size_t i = next++; i < rows.size(); i = next++) {
            const long long before = w.counts.points;
            detail::search_row(q, rows[i], w.counts, [&](const TrainingCandidate& c) {
                if (q.must_fit && !c.estimate.fits) return;
                w.top.offer(c);
                w.front.offer(c);
            });
            progress(done += w.counts.points - before, total);
        }
    };
    if (threads == 1) {
        work(workers[0]);
    } else {
        std::vector<std::thread> pool;
        pool.reserve(threads);
        for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, std::ref(workers[t]));
        for (auto& thread : pool) thread.join();
    }

    detail::TopK top{static_cast<std::size_t>(q.top_k), {}};
    detail::ParetoFront front;
    for (const Worker& w : workers) {
        for (const auto& c : w.top.items) top.offer(c);
        for (const auto& c : w.front.items) front.offer(c);
        plan.points += w.counts.points;
        plan.points_evaluated += w.counts.evaluated;
        plan.points_pruned += w.counts.pruned;
        plan.points_fitting += w.counts.fitting;
        plan.rejected.memory += w.counts.memory;
        plan.rejected.schedule += w.counts.schedule;
    }
    plan.top = std::move(top.items);
    plan.pareto = std::move(front.items);
    return plan;
}

[[nodiscard]] inline TrainingPlan plan_training(const TrainingPlanQuery& q) {
    return plan_training(q, [](long long, long long) {});
}

// Every point of the space on the calling thread, in the fixed order, with the
// same bounds: `sink(candidate)` sees each evaluated point (fitting or not).
// For questions the ranking does not answer ("where does this layout rank?").
template <class Sink>
void for_each_training_point(const TrainingPlanQuery& q, Sink&& sink) {
    (void)validated(q.model);
    (void)validated(q.cluster);
    detail::RowResult counts;
    for (const auto& row : plan_rows(q)) detail::search_row(q, row, counts, sink);
}

}  // namespace napkin
