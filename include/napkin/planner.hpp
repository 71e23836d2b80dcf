// SPDX-License-Identifier: MIT
// napkin/planner.hpp — every way to train a model on a cluster, ranked.
//
//   TrainingPlanQuery q{.model = catalog::gpt3_175b, .cluster = cluster_of(catalog::dgx_a100, 128),
//                       .global_batch = 1536, .sequence = 2048};
//   const TrainingPlan plan = plan_training(q);   // plan.top[0]: the fastest layout that fits
//
// Every point is one call of evaluate_training (napkin/training.hpp): the
// planner has no formula of its own. The search space (at least Calculon's
// llm-optimal-execution, Isaev et al. SC'23, in every dimension napkin's
// training model prices; Calculon's offloading and fused-kernel choices have
// no counterpart in it):
//   tp   every divisor of the attention heads that also divides the hidden size (≤ max_tp)
//   pp   every divisor of the layers
//   cp   every divisor of the sequence up to max_cp (default 1: no context parallelism)
//        dp = GPUs / (tp·pp·cp), which must be whole
//   ep   for a mixture of experts, every divisor of the experts that divides dp·cp (≤ max_ep)
//   v    every interleaving with pp·v dividing the layers (v > 1 needs pp > 1)
//   b    every micro-batch size dividing the per-replica batch B / dp
//   recomputation none (with or without flash attention) / selective / full
//   sequence parallelism off / on, and the TP collectives: all-reduce or
//        reduce-scatter + all-gather without it, reduce-scatter + all-gather
//        with it (tp > 1)
//   ZeRO 0 / 1 / 2 / 3 (Megatron's distributed optimizer is the ZeRO-1 point)
//   gradients in each allowed format (bf16, fp32)
//   pipeline sends with or without Megatron's scatter/gather (pp > 1, tp > 1)
//   gradient synchronisation overlapped with the backward pass or not (dp·cp > 1)
//   schedule (Parallelism::schedule) with pp > 1: interleaved 1F1B when v > 1;
//        1F1B, GPipe, ZB-H1, ZB-H2, DualPipe (pp even), DualPipeV (2·pp dividing
//        the layers) when v = 1. With pp = 1 there is no pipeline and no schedule
//        to choose: one point, run as 1F1B.
// A choice that changes nothing in the price of a layout is not a dimension
// (overlap at dp·cp = 1, scatter/gather at tp = 1, a schedule at pp = 1), nor
// is flash attention with recomputation (where it exists it only removes the
// scores' traffic: used): no point is counted twice. GPT-3 175B on
// 1,024 A100s, B = 1,536: 1,160,320 points (Calculon: 1,136,960).
//
// The result: the top k by throughput (all points share B·s, so the shortest
// step wins), the Pareto front of memory per GPU vs step time, and how many
// points were evaluated, pruned and rejected, by reason.
//
// Exhaustive and exact: a point is left unevaluated only where a proof shows
// it cannot change the answer — a dominated variant whose canonical twin is
// never slower and never larger (GPipe vs 1F1B, fp32 vs bf16 gradients, no
// flash attention without recomputation, reduce-scatter + all-gather without
// sequence parallelism, sends without scatter/gather, no overlap), or a memory
// bound (the model states alone do not fit; activations never shrink as the
// micro-batch grows). The proofs, term by term, are in tests/unit/planner.cpp,
// which evaluates every pruned point and compares it with its twin.
//
// The rows (tp, pp, cp, ep, v, sharding) are shared among std::threads; results do not
// depend on the thread count (ties are broken by a fixed order of the choices).
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/layer_map.hpp>
#include <napkin/memory.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/training.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <vector>

namespace napkin {

// ---------------------------------------------------------------------------
// Sets of choices as bits: schedules (ScheduleKind) and gradient formats (DType)

/// The bit of schedule `k` in a set of schedules (TrainingPlanQuery::schedules).
[[nodiscard]] constexpr unsigned schedule_bit(ScheduleKind k) { return 1u << static_cast<unsigned>(k); }
/// The bit of format `d` in a set of gradient formats (TrainingPlanQuery::gradient_dtypes).
[[nodiscard]] constexpr unsigned dtype_bit(DType d) { return 1u << static_cast<unsigned>(d); }

/// The bit of recomputation `r` in a set of them (TrainingPlanQuery::recomputes).
[[nodiscard]] constexpr unsigned recompute_bit(Recompute r) { return 1u << static_cast<unsigned>(r); }
/// The bit of sharding `s` in a set of them (TrainingPlanQuery::shardings; the distributed optimizer is
/// searched as its ZeRO-1 twin, so its bit is not one of them).
[[nodiscard]] constexpr unsigned sharding_bit(Sharding s) { return 1u << static_cast<unsigned>(s); }
/// Recomputation none, selective and full.
inline constexpr unsigned recomputes_all =
    recompute_bit(Recompute::none) | recompute_bit(Recompute::selective) | recompute_bit(Recompute::full);
/// ZeRO stages 0 to 3.
inline constexpr unsigned shardings_all = sharding_bit(Sharding::none) | sharding_bit(Sharding::zero1) |
                                          sharding_bit(Sharding::zero2) | sharding_bit(Sharding::zero3);

/// Every schedule of the registry (pipeline.hpp).
inline constexpr unsigned schedules_all = [] {
    unsigned bits = 0;
    for (const ScheduleTraits& row : schedule_registry) bits |= schedule_bit(row.kind);
    return bits;
}();

// ---------------------------------------------------------------------------
// Query and result

/// What to plan: the model, the cluster whose GPUs to use, the batch and sequence, the limits on each
/// parallel dimension, the choices to search, and how many candidates to keep.
struct TrainingPlanQuery {
    TransformerShape model;
    Cluster cluster;            // its GPUs are the GPUs to use
    long long global_batch = 1;  // sequences per optimizer step B
    long long sequence = 2048;   // tokens per sequence s
    long long max_tp = 0;        // 0: no limit
    long long max_cp = 1;        // context-parallel sizes to search: those dividing s up to it (1: none)
    long long max_ep = 0;        // expert-parallel sizes (mixture of experts only); 0: no limit
    long long max_pp = 0;        // pipeline stages; 0: no limit
    // An uneven pipeline (napkin/layer_map.hpp): when given, pp is the map's
    // stages and v its chunks, every point priced with it. The caller keeps
    // it alive while the plan's candidates (their options point at it) are read.
    const LayerMap* layer_map = nullptr;
    bool must_fit = true;        // false: rank layouts that do not fit as well
    unsigned schedules = schedules_all;  // ScheduleKind bits (automatic excluded)
    unsigned gradient_dtypes = dtype_bit(DType::bf16) | dtype_bit(DType::fp32);  // DType bits to search
    bool flash_attention = true;  // fused attention kernels exist: search with and without them
    // What the framework can run (a published run's, to rank it among its own choices): the
    // recomputations and ZeRO stages to search, and whether sequence parallelism exists.
    unsigned recomputes = recomputes_all;  // recompute_bit(Recompute) bits
    unsigned shardings = shardings_all;    // sharding_bit(Sharding) bits, ZeRO 0–3
    bool sequence_parallel = true;         // false: tensor parallelism without it only
    bool overlap_dp = true;                // false: gradients reduced after the backward only
    Parallelism base{};          // weights, master and moment formats; the rest is searched
    TrainingOptions options{};   // efficiency, base latency, causal counting; the rest is searched
    long long top_k = 10;
    unsigned threads = 0;        // 0: every core
    bool prune = true;           // skip what the bounds and dominance settle (off: evaluate every point)
};

/// One point: the layout and the options evaluate_training takes.
struct TrainingPoint {
    Parallelism parallelism;
    TrainingOptions options;
};

/// One evaluated point: its layout and options, its estimate, and whether a twin dominates it.
struct TrainingCandidate {
    TrainingPoint point;
    TrainingEstimate estimate;
    bool dominated = false;  // a variant whose canonical twin is never slower nor larger (see above)
};

/// Why points were turned down. `gpus`, `batch` and `max_tp` count (tp, pp, cp)
/// layouts that yield no point at all; `memory` and `schedule` count points.
struct Rejections {
    long long gpus = 0;      // tp·pp·cp does not divide the GPU count
    long long batch = 0;     // dp does not divide the global batch
    long long max_tp = 0;    // tp above the constraint
    long long memory = 0;    // does not fit (evaluated, or settled by a bound)
    long long schedule = 0;  // the schedule cannot run it (interleaved: m not a multiple of p;
                             // zero bubble: m < p; DualPipe: m odd)
    [[nodiscard]] constexpr long long total() const { return gpus + batch + max_tp + memory + schedule; }
};

/// points = evaluated + pruned (memory + dominated) + rejected.schedule.
struct TrainingPlan {
    std::vector<TrainingCandidate> top;     // fastest first
    std::vector<TrainingCandidate> pareto;  // memory vs step time, least memory first
    long long points = 0;                   // points in the space
    long long points_evaluated = 0;         // points whose step time was computed
    long long points_pruned_memory = 0;     // rejected for memory by a bound, never evaluated
    long long points_pruned_dominated = 0;  // dominated variants of an evaluated point, never evaluated
    long long points_fitting = 0;           // evaluated points that fit
    Rejections rejected;
    [[nodiscard]] constexpr long long points_pruned() const { return points_pruned_memory + points_pruned_dominated; }
};

// ---------------------------------------------------------------------------
// The search

namespace detail {

inline constexpr std::array<Recompute, 3> recompute_choices{Recompute::none, Recompute::selective, Recompute::full};
/// Megatron's distributed optimizer shards like ZeRO-1 and napkin prices the two
/// alike (memory.hpp's model_states, training.hpp's gradient_sync_time): its
/// points are the zero1 ones (with fp32 gradients its 6 + 12/d bytes).
inline constexpr std::array<Sharding, 4> sharding_choices{Sharding::none, Sharding::zero1, Sharding::zero2,
                                                          Sharding::zero3};

/// A fixed order of the choices, to break ties the same way on any thread count.
constexpr auto choice_key(const TrainingPoint& p) {
    const Parallelism& a = p.parallelism;
    const TrainingOptions& o = p.options;
    return std::make_tuple(a.tp, a.pp, a.cp, a.ep, a.virtual_stages, a.micro_batch, static_cast<int>(a.recompute),
                           !a.flash_attention, a.sequence_parallel, static_cast<int>(o.tp_communication),
                           static_cast<int>(a.sharding), bytes_of(a.gradients), static_cast<int>(a.schedule),
                           !o.pipeline_scatter_gather, !o.overlap_dp);
}

/// Faster first; on a tie less memory, then the fixed order.
constexpr bool ranks_before(const TrainingCandidate& a, const TrainingCandidate& b) {
    if (a.estimate.step != b.estimate.step) return a.estimate.step < b.estimate.step;
    if (a.estimate.memory.total() != b.estimate.memory.total())
        return a.estimate.memory.total() < b.estimate.memory.total();
    return choice_key(a.point) < choice_key(b.point);
}

/// Less memory first; on a tie faster, then the fixed order.
constexpr bool memory_before(const TrainingCandidate& a, const TrainingCandidate& b) {
    if (a.estimate.memory.total() != b.estimate.memory.total())
        return a.estimate.memory.total() < b.estimate.memory.total();
    if (a.estimate.step != b.estimate.step) return a.estimate.step < b.estimate.step;
    return choice_key(a.point) < choice_key(b.point);
}

/// The best k seen so far, kept sorted.
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

/// The points no other point beats on both memory and time, kept sorted by
/// memory (so their times fall strictly).
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

/// One row of the space: a (tp, pp, v, sharding) choice; the rest is searched inside it.
struct PlanRow {
    long long tp, pp, dp, v;
    Sharding sharding;
    long long cp = 1, ep = 1;
};

struct RowResult {
    long long points = 0, evaluated = 0, pruned_memory = 0, pruned_dominated = 0, fitting = 0, memory = 0,
              schedule = 0;
};

/// The micro-batch sizes of a row, ascending: the divisors of B / dp.
/// O(√(B/dp)); consecutive rows mostly share dp, so the last answer is kept.
inline std::vector<long long> micro_batch_sizes(long long per_replica) {
    thread_local long long last = 0;
    thread_local std::vector<long long> sizes;
    if (per_replica != last) {
        sizes = divisors(per_replica);
        last = per_replica;
    }
    return sizes;
}

/// Up to N values of one choice, the better one first.
template <class T, std::size_t N>
struct Choices {
    std::array<T, N> items{};
    std::size_t size = 0;
    constexpr void add(T x) { items[size++] = x; }
};

constexpr bool allowed(const TrainingPlanQuery& q, ScheduleKind k) { return (q.schedules & schedule_bit(k)) != 0; }

/// Whether a registry schedule can run a row: the chunks it takes and the
/// stage and layer multiples of its row.
constexpr bool runs_row(const TrainingPlanQuery& q, const PlanRow& row, const ScheduleTraits& t) {
    return t.interleaved == (row.v > 1) && row.pp % t.stages_multiple == 0 &&
           (q.layer_map != nullptr || q.model.layers % (t.layers_multiple * row.pp) == 0);
}

/// The canonical schedules of a row: every allowed registry schedule that can
/// run it, except a dominated one whose twin is allowed (the twin's family holds
/// it); with pp = 1, 1F1B whatever is allowed (there is no pipeline).
inline Choices<ScheduleKind, schedule_registry.size()> row_schedules(const TrainingPlanQuery& q, const PlanRow& row) {
    Choices<ScheduleKind, schedule_registry.size()> s;
    if (row.pp == 1) {
        s.add(ScheduleKind::one_f_one_b);
        return s;
    }
    for (const ScheduleTraits& t : schedule_registry) {
        if (!allowed(q, t.kind) || !runs_row(q, row, t)) continue;
        if (t.dominated_by && allowed(q, *t.dominated_by)) continue;
        s.add(t.kind);
    }
    return s;
}

/// The points that differ from a canonical point only in dominated choices,
/// each list better value first (the first of each is the canonical point).
struct Family {
    Choices<ScheduleKind, schedule_registry.size()> schedules;
    Choices<DType, 4> gradients;
    Choices<bool, 2> flash_attention;
    Choices<TpCommunication, 2> tp_communication;
    Choices<bool, 2> scatter_gather;
    Choices<bool, 2> overlap;
    [[nodiscard]] constexpr long long size() const {
        long long points = 1;
        for (const std::size_t n : {schedules.size, gradients.size, flash_attention.size, tp_communication.size,
                                    scatter_gather.size, overlap.size})
            points *= static_cast<long long>(n);
        return points;
    }
};

/// The gradient formats to search, fewest bytes first.
inline Choices<DType, 4> gradient_choices(const TrainingPlanQuery& q) {
    Choices<DType, 4> g;
    for (DType d : {DType::fp8, DType::bf16, DType::fp16, DType::fp32})
        if ((q.gradient_dtypes & dtype_bit(d)) != 0) g.add(d);
    return g;
}

/// The family of the canonical point with this schedule, recomputation and
/// sequence parallelism in this row.
inline Family family_of(const TrainingPlanQuery& q, const PlanRow& row, ScheduleKind schedule, Recompute recompute,
                        bool sequence_parallel) {
    Family f;
    f.schedules.add(schedule);
    if (row.pp > 1)  // the registry's dominated variants of this schedule that run the row
        for (const ScheduleTraits& t : schedule_registry)
            if (t.dominated_by == schedule && allowed(q, t.kind) && runs_row(q, row, t)) f.schedules.add(t.kind);
    f.gradients = gradient_choices(q);
    // Without recomputation flash attention is a choice (the variant without it
    // keeps the scores); with it, the scores are not kept either way and the
    // fused kernel only removes their traffic, so it is used whenever it exists.
    if (q.flash_attention) f.flash_attention.add(true);
    if (recompute == Recompute::none || !q.flash_attention) f.flash_attention.add(false);
    if (row.tp == 1) {
        f.tp_communication.add(TpCommunication::automatic);  // no tensor-parallel collectives
    } else if (sequence_parallel) {
        f.tp_communication.add(TpCommunication::reduce_scatter_all_gather);
    } else {
        f.tp_communication.add(TpCommunication::all_reduce);
        f.tp_communication.add(TpCommunication::reduce_scatter_all_gather);
    }
    f.scatter_gather.add(true);
    if (row.pp > 1 && row.tp > 1) f.scatter_gather.add(false);  // sends exist and a t-way split of them
    // Nothing to overlap with one copy of the gradients (they are reduced over dp·cp); a framework that
    // reduces them after the backward has no overlap to offer.
    if (q.overlap_dp) f.overlap.add(true);
    if (!q.overlap_dp || row.dp * row.cp > 1) f.overlap.add(false);
    return f;
}

/// Sets the family's choices of `p` to its canonical point's.
constexpr void set_canonical(const Family& family, TrainingPoint& p) {
    p.parallelism.schedule = family.schedules.items[0];
    p.parallelism.gradients = family.gradients.items[0];
    p.parallelism.flash_attention = family.flash_attention.items[0];
    p.options.tp_communication = family.tp_communication.items[0];
    p.options.pipeline_scatter_gather = family.scatter_gather.items[0];
    p.options.overlap_dp = family.overlap.items[0];
}

/// Calls f(point, dominated) for each member of the family of `canonical`.
template <class F>
void for_each_member(const Family& family, const TrainingPoint& canonical, F&& f) {
    TrainingPoint p = canonical;
    for (std::size_t s = 0; s < family.schedules.size; ++s) {
        p.parallelism.schedule = family.schedules.items[s];
        for (std::size_t g = 0; g < family.gradients.size; ++g) {
            p.parallelism.gradients = family.gradients.items[g];
            for (std::size_t a = 0; a < family.flash_attention.size; ++a) {
                p.parallelism.flash_attention = family.flash_attention.items[a];
                for (std::size_t t = 0; t < family.tp_communication.size; ++t) {
                    p.options.tp_communication = family.tp_communication.items[t];
                    for (std::size_t x = 0; x < family.scatter_gather.size; ++x) {
                        p.options.pipeline_scatter_gather = family.scatter_gather.items[x];
                        for (std::size_t o = 0; o < family.overlap.size; ++o) {
                            p.options.overlap_dp = family.overlap.items[o];
                            f(p, s + g + a + t + x + o > 0);
                        }
                    }
                }
            }
        }
    }
}

/// Points of a row: for each canonical schedule, recomputation, sequence
/// parallelism and micro-batch size, its family.
/// Without and (where there is tensor parallelism and the framework has it) with sequence parallelism.
constexpr long long sequence_parallel_choices(const TrainingPlanQuery& q, const PlanRow& row) {
    return row.tp > 1 && q.sequence_parallel ? 2 : 1;
}

inline long long row_points(const TrainingPlanQuery& q, const PlanRow& row) {
    const auto schedules = row_schedules(q, row);
    const long long sizes = static_cast<long long>(micro_batch_sizes(q.global_batch / row.dp).size());
    long long points = 0;
    for (std::size_t s = 0; s < schedules.size; ++s)
        for (Recompute recompute : recompute_choices) {
            if ((q.recomputes & recompute_bit(recompute)) == 0) continue;
            for (long long sp = 0; sp < sequence_parallel_choices(q, row); ++sp)
                points += family_of(q, row, schedules.items[s], recompute, sp == 1).size() * sizes;
        }
    return points;
}

template <class Sink>
void search_row(const TrainingPlanQuery& q, const PlanRow& row, RowResult& out, Sink&& sink) {
    const Bytes usable = usable_memory(q.cluster.node.gpu);
    const auto schedules = row_schedules(q, row);
    const std::vector<long long> sizes = micro_batch_sizes(q.global_batch / row.dp);
    const long long sp_choices = sequence_parallel_choices(q, row);
    // The memory bounds price even stages (training_memory); a layer map's
    // fullest stage is priced only by evaluation.
    const bool bound_memory = q.must_fit && q.prune && q.layer_map == nullptr;

    TrainingPoint canonical{q.base, q.options};
    if (q.layer_map != nullptr) canonical.options.layer_map = q.layer_map;
    Parallelism& par = canonical.parallelism;
    par.tp = row.tp;
    par.pp = row.pp;
    par.dp = row.dp;
    par.ep = row.ep;
    par.cp = row.cp;
    par.virtual_stages = row.v;
    par.global_batch = q.global_batch;
    par.sequence = q.sequence;
    par.sharding = row.sharding;

    for (std::size_t s = 0; s < schedules.size; ++s) {
        par.schedule = schedules.items[s];
        // Micro-batch sizes[from..] settled without evaluation, `members` points
        // each: rejected for the schedule where it cannot run them, for memory
        // by a bound elsewhere.
        const auto settle = [&](std::size_t from, long long members) {
            for (std::size_t j = from; j < sizes.size(); ++j) {
                par.micro_batch = sizes[j];
                if (detail::schedule_problem(par) != ScheduleProblem::none) {
                    out.schedule += members;
                } else {
                    out.memory += members;
                    out.pruned_memory += members;
                }
            }
        };
        // Bound 1: the model states alone do not fit (the states of the
        // canonical gradient format; the others only add).
        par.gradients = gradient_choices(q).items[0];
        const bool states_too_large = bound_memory && training_memory(q.model, par).states() > usable;
        for (Recompute recompute : recompute_choices) {
            if ((q.recomputes & recompute_bit(recompute)) == 0) continue;
            par.recompute = recompute;
            for (long long sp = 0; sp < sp_choices; ++sp) {
                par.sequence_parallel = sp == 1;
                const Family family = family_of(q, row, par.schedule, recompute, par.sequence_parallel);
                const long long members = family.size();
                out.points += members * static_cast<long long>(sizes.size());
                set_canonical(family, canonical);
                if (states_too_large) {
                    settle(0, members);
                    continue;
                }
                for (std::size_t i = 0; i < sizes.size(); ++i) {
                    par.micro_batch = sizes[i];
                    if (detail::schedule_problem(par) != ScheduleProblem::none) {
                        out.schedule += members;
                        // Bound 2 needs to know whether this b fits even where the schedule cannot run it.
                        if (bound_memory && training_memory(q.model, par).total() > usable) {
                            settle(i + 1, members);
                            break;
                        }
                        continue;
                    }
                    if (!q.prune) {  // every member evaluated
                        for_each_member(family, canonical, [&](const TrainingPoint& p, bool dominated) {
                            const TrainingEstimate e =
                                evaluate_training(q.model, q.cluster, p.parallelism, p.options);
                            ++out.evaluated;
                            if (e.fits) ++out.fitting;
                            else if (q.must_fit) ++out.memory;
                            sink(TrainingCandidate{p, e, dominated});
                        });
                        continue;
                    }
                    const TrainingEstimate e = evaluate_training(q.model, q.cluster, par, canonical.options);
                    ++out.evaluated;
                    if (e.fits) ++out.fitting;
                    else if (q.must_fit) ++out.memory;
                    sink(TrainingCandidate{canonical, e, false});
                    // Bound 2: this micro-batch does not fit, so neither do its
                    // dominated variants nor any larger micro-batch.
                    if (bound_memory && !e.fits) {
                        out.memory += members - 1;
                        out.pruned_memory += members - 1;
                        settle(i + 1, members);
                        break;
                    }
                    out.pruned_dominated += members - 1;
                }
            }
        }
    }
}

}  // namespace detail

/// The planner's order: faster first; on a tie less memory, then a fixed order.
using detail::ranks_before;

/// The rows of the space, and the layouts rejected before any point exists.
[[nodiscard]] inline std::vector<detail::PlanRow> plan_rows(const TrainingPlanQuery& q, Rejections* rejected = nullptr) {
    std::vector<detail::PlanRow> rows;
    const long long n = gpus(q.cluster);
    const TransformerShape& m = q.model;
    // Only divisors can be sizes: tp of the heads (and the width), pp of the
    // layers, cp of the sequence, ep of the experts, v of the layers per stage.
    // Enumerated in O(√n), ascending, so the order and the counts are those of
    // a scan over every integer.
    const std::vector<long long> cps = divisors(q.sequence);
    for (long long tp : divisors(m.heads)) {
        if (m.hidden % tp != 0) continue;
        // With a layer map: its stages only (they need not divide the layers).
        const std::vector<long long> pps =
            q.layer_map != nullptr ? std::vector<long long>{q.layer_map->stages} : divisors(m.layers);
        for (long long pp : pps) {
            if (q.max_pp > 0 && pp > q.max_pp) continue;
            for (long long cp : cps) {
                if (cp > q.max_cp) break;
                if (n % tp != 0 || (n / tp) % pp != 0 || (n / tp / pp) % cp != 0) {
                    if (rejected) ++rejected->gpus;
                    continue;
                }
                if (q.max_tp > 0 && tp > q.max_tp) {
                    if (rejected) ++rejected->max_tp;
                    continue;
                }
                const long long dp = n / tp / pp / cp;
                if (q.global_batch % dp != 0) {
                    if (rejected) ++rejected->batch;
                    continue;
                }
                // Expert-parallel sizes: divisors of the experts that divide dp·cp.
                const long long ep_limit = m.experts == 0 ? 1 : q.max_ep > 0 ? q.max_ep : m.experts;
                for (long long ep : divisors(m.experts == 0 ? 1 : m.experts)) {
                    if (ep > ep_limit) break;
                    if ((dp * cp) % ep != 0) continue;
                    const std::vector<long long> vs =
                        q.layer_map != nullptr ? std::vector<long long>{q.layer_map->chunks} : divisors(m.layers / pp);
                    for (long long v : vs) {
                        if (v > 1 && pp == 1) continue;
                        for (Sharding sharding : detail::sharding_choices)
                            if ((q.shardings & sharding_bit(sharding)) != 0)
                                rows.push_back({tp, pp, dp, v, sharding, cp, ep});
                    }
                }
            }
        }
    }
    return rows;
}

namespace detail {
inline void check_query(const TrainingPlanQuery& q) {
    (void)validated(q.model);
    (void)validated(q.cluster);
    require_count("global_batch", q.global_batch, limits::batch);
    require_count("sequence", q.sequence, limits::sequence);
    if (checked_mul(q.global_batch, q.sequence, "global_batch × sequence") > limits::tokens)
        reject_exact("global_batch × sequence", std::to_string(q.global_batch * q.sequence),
                     "must be at most 2^53 tokens per step");
    require_non_negative("max_tp", count(q.max_tp));
    require_at_least_one("max_cp", q.max_cp);
    require_non_negative("max_ep", count(q.max_ep));
    require_non_negative("max_pp", count(q.max_pp));
    if (q.layer_map != nullptr) {
        const LayerMap& map = *q.layer_map;
        if (q.max_pp > 0 && map.stages > q.max_pp)
            reject("LayerMap.stages", count(map.stages), "must be at most max_pp = " + std::to_string(q.max_pp),
                   {"max_pp"});
        if (gpus(q.cluster) % map.stages != 0)
            reject("LayerMap.stages", count(map.stages),
                   "has this many stages, which do not divide the " + std::to_string(gpus(q.cluster)) + " GPUs");
        long long layers = 0;
        for (const LayerRange& r : map.ranges) layers += r.size();
        if (layers != q.model.layers)
            reject("LayerMap layers", count(layers),
                   "places this many layers; the model has " + std::to_string(q.model.layers));
    }
    require_non_negative("top_k", count(q.top_k));
    // The best top_k are kept in memory: a million is more than any report reads.
    require(q.top_k <= 1'000'000, "top_k", count(q.top_k), "must be at most 1000000");
    require(q.schedules != 0 && (q.schedules & ~schedules_all) == 0, "schedules", count(q.schedules),
            "must be a non-empty set of schedule_bit(ScheduleKind) bits, automatic excluded");
    require(q.recomputes != 0 && (q.recomputes & ~recomputes_all) == 0, "recomputes", count(q.recomputes),
            "must be a non-empty set of recompute_bit(Recompute) bits");
    require(q.shardings != 0 && (q.shardings & ~shardings_all) == 0, "shardings", count(q.shardings),
            "must be a non-empty set of sharding_bit(Sharding) bits, ZeRO 0 to 3");
    constexpr unsigned formats =
        dtype_bit(DType::fp8) | dtype_bit(DType::bf16) | dtype_bit(DType::fp16) | dtype_bit(DType::fp32);
    require(q.gradient_dtypes != 0 && (q.gradient_dtypes & ~formats) == 0, "gradient_dtypes",
            count(q.gradient_dtypes), "must be a non-empty set of dtype_bit(DType) bits, none excluded");
    // Two formats of the same width are priced alike: one point, not two.
    require((q.gradient_dtypes & dtype_bit(DType::bf16)) == 0 || (q.gradient_dtypes & dtype_bit(DType::fp16)) == 0,
            "gradient_dtypes", count(q.gradient_dtypes), "must not hold both bf16 and fp16 (same width, same price)");
}
}  // namespace detail

/// Checks a query, naming the field (plan_training does so first).
[[nodiscard]] inline const TrainingPlanQuery& validated(const TrainingPlanQuery& q) {
    detail::check_query(q);
    return q;
}

/// Search the whole space. `progress(done_points, total_points)` is called as
/// rows finish, from the worker threads (it must be thread-safe).
template <class Progress>
[[nodiscard]] TrainingPlan plan_training(const TrainingPlanQuery& q, Progress&& progress) {
    detail::check_query(q);
    TrainingPlan plan;
    const std::vector<detail::PlanRow> rows = plan_rows(q, &plan.rejected);
    long long total = 0;  // counted up front for the progress report, which shows 0 of 0 meanwhile
    for (const auto& row : rows) {
        total += detail::row_points(q, row);
        progress(0LL, 0LL);
    }

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
    // The first exception a worker meets (an invalid point, a progress
    // callback that throws, bad_alloc) stops the others and is rethrown here,
    // on the caller's thread; none escapes a worker (that would abort).
    std::mutex failure_mutex;
    std::exception_ptr failure;
    const auto work = [&](Worker& w) {
        try {
            for (std::size_t i = next++; i < rows.size(); i = next++) {
                const long long before = w.counts.points;
                detail::search_row(q, rows[i], w.counts, [&](const TrainingCandidate& c) {
                    if (c.dominated || (q.must_fit && !c.estimate.fits)) return;
                    w.top.offer(c);
                    w.front.offer(c);
                });
                progress(done += w.counts.points - before, total);
            }
        } catch (...) {
            next = rows.size();
            const std::lock_guard lock(failure_mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    if (threads == 1) {
        work(workers[0]);
    } else {
        std::vector<std::thread> pool;
        pool.reserve(threads);
        // The system may give fewer threads than asked (a process limit): the started ones share the rows.
        try {
            for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, std::ref(workers[t]));
        } catch (const std::system_error&) {
            if (pool.empty()) work(workers[0]);
        }
        for (auto& thread : pool) thread.join();
    }
    if (failure) std::rethrow_exception(failure);

    detail::TopK top{static_cast<std::size_t>(q.top_k), {}};
    detail::ParetoFront front;
    for (const Worker& w : workers) {
        for (const auto& c : w.top.items) top.offer(c);
        for (const auto& c : w.front.items) front.offer(c);
        plan.points += w.counts.points;
        plan.points_evaluated += w.counts.evaluated;
        plan.points_pruned_memory += w.counts.pruned_memory;
        plan.points_pruned_dominated += w.counts.pruned_dominated;
        plan.points_fitting += w.counts.fitting;
        plan.rejected.memory += w.counts.memory;
        plan.rejected.schedule += w.counts.schedule;
    }
    plan.top = std::move(top.items);
    plan.pareto = std::move(front.items);
    return plan;
}

/// The same, without a progress report.
[[nodiscard]] inline TrainingPlan plan_training(const TrainingPlanQuery& q) {
    return plan_training(q, [](long long, long long) {});
}

/// Every point of the space on the calling thread, in the fixed order, with the
/// query's bounds: `sink(candidate)` sees each evaluated point (fitting or not;
/// with prune = false every point a schedule can run, dominated ones flagged).
/// For questions the ranking does not answer ("where does this layout rank?").
template <class Sink>
void for_each_training_point(const TrainingPlanQuery& q, Sink&& sink) {
    detail::check_query(q);
    detail::RowResult counts;
    for (const auto& row : plan_rows(q)) detail::search_row(q, row, counts, sink);
}

/// Where a step time ranks in a query's space: the points plan_training ranks
/// (dominated variants aside; with must_fit, only those that fit) that are
/// strictly faster, and how many it ranks, on the calling thread.
struct StepRank {
    long long faster = 0;  // points strictly faster
    long long ranked = 0;  // points in the ranking
    [[nodiscard]] constexpr long long rank() const { return faster + 1; }
    // The rank as a share of the ranking (1/ranked for the fastest).
    [[nodiscard]] constexpr double share() const {
        return ranked == 0 ? 1.0 : static_cast<double>(rank()) / static_cast<double>(ranked);
    }
};

/// Where `step` (seconds) ranks among the query's points, on the calling thread. The search prunes: what
/// it skips is a dominated variant or, with must_fit, a point that does not fit, and neither is ranked,
/// so the count is the unpruned one (a test compares them) at a small share of the work.
[[nodiscard]] inline StepRank rank_of_step(TrainingPlanQuery q, Seconds step) {
    q.prune = true;
    StepRank r;
    for_each_training_point(q, [&](const TrainingCandidate& c) {
        if (c.dominated || (q.must_fit && !c.estimate.fits)) return;
        ++r.ranked;
        if (c.estimate.step < step) ++r.faster;
    });
    return r;
}

}  // namespace napkin
