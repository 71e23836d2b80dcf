// Tests of the inference planner (napkin/inference_planner.hpp) and the
// training planner (napkin/planner.hpp).
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/planner.hpp>

#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

// Why pruning is exact (planner.hpp prunes by these proofs; the tests below
// evaluate every pruned point and check each claim).
//
// Exhaustive and exact: a point is left unevaluated only when a proof shows
// it cannot change the answer. Two kinds:
//
// Dominated variants. Some choices are never better than an alternative that
// differs from them in that choice alone, whatever the other choices: the
// variant's step time is never shorter and its memory never larger than the
// twin's. Each proof follows evaluate_training term by term; "F, B grow" means
// the stage times of pipeline.hpp grow while W (the forward's compute) stays,
// which never shortens any schedule's bubble ((p − 1)(F + B), its 1/v,
// (p − 1)(F + B − 2W), (p − 1)(F + B − 3W), (p/2 − 1)(F + 2B − 3W),
// (p − 1)(F + 2B − 3W)/2, each at least 0):
//  - GPipe vs 1F1B: the same bubble (p − 1)(F + B) from the same stage times
//    and the same parameters (pipeline.hpp), m micro-batches of activations
//    against min(m, p); both run every v = 1 layout.
//  - wider gradients (fp32 vs bf16): more gradient bytes in memory, in the
//    data-parallel collectives (whose time grows with the bytes) and in the
//    optimizer's memory traffic; nothing else reads the format.
//  - no flash attention, without recomputation: the s × s scores kept in
//    memory and moved by the element-wise work (training.hpp), so the
//    compute time and F, B grow too.
//  - TP as reduce-scatter + all-gather without sequence parallelism vs the
//    all-reduce: the same 2(n − 1)/n·M over 2(n − 1) ring steps plus one more
//    base latency per collective, so the TP time and F, B grow; same memory.
//  - pipeline sends without scatter/gather: t times the bytes per send, so
//    the PP time and F, B grow; same memory.
//  - gradient synchronisation not overlapped vs overlapped: dp_full against
//    max(0, dp_full − backward); nothing else uses the choice.
// Changing one dominated choice at a time to its better value never raises
// time or memory, so every point of a family (the points that differ only in
// dominated choices) is dominated by its canonical point (every such choice at
// its better value), which is evaluated; a dominated point is never ranked
// (its twin is as fast or faster with no more memory) and counts as pruned.
// Where the twin is outside the space (1F1B not among the allowed schedules,
// flash attention not allowed) the variant is evaluated like any point. The
// tests evaluate every dominated point of a space and compare it with its twin.
//
// Memory bounds (with must_fit), from napkin/memory.hpp. Memory depends on the
// schedule: activations in flight (1F1B and ZB-H1 min(m, p), ZB-H2
// min(m, 2p − 1), DualPipe min(m, p + 1), DualPipeV min(2m, 2p + 1)/2,
// interleaved min(m·v, 2(p − 1) + (v − 1)·p + 1)/v) and DualPipe's two
// copies of the parameters, so the bounds run per schedule:
//  1. model states: weights, gradients and optimizer states per GPU depend on
//     (tp, pp, cp, ep, v, sharding, schedule) alone and activations are never
//     negative, so when the states alone exceed the usable memory every point
//     of that row and schedule is rejected;
//  2. micro-batch size: the first stage's activations are per-layer bytes
//     (linear in b) × the schedule's micro-batches in flight, each of the
//     forms above min(c·m, c') with m = B/(b·d), so b·min(c·B/(b·d), c') =
//     min(c·B/d, c'·b) never falls as b grows: once a b does not fit, no
//     larger b fits for the same (schedule, recomputation, sequence
//     parallelism). A dominated variant has at least its canonical point's
//     memory, so when that does not fit, neither does the variant.
// A point a bound settles counts as rejected for memory and as pruned; the
// tests compare a pruned search with an unpruned one (`prune = false`
// evaluates every point, dominated ones included, and checks nothing by bound).
//

using namespace napkin;

TEST_SUITE("inference_planner") {
    constexpr const TransformerShape& llama8b = catalog::llama3_1_8b;
    constexpr const TransformerShape& llama70b = catalog::llama3_1_70b;
    constexpr const TransformerShape& llama405b = catalog::llama3_1_405b;
    constexpr const Gpu& a100 = catalog::a100_80gb_sxm;

    TEST_CASE("pp = 1 is the tensor split of token_time, term by term") {
        for (const Link* link : {&catalog::nvlink_a100, &catalog::pcie_gen4})
            for (long long n : {1, 2, 4, 8, 16})
                for (long long k : {1, 16, 64}) {
                    const TokenTime lesson = token_time(llama70b, a100, *link, {n, Split::tensor, k});
                    const TokenTime combined = combined_token_time(llama70b, a100, *link, {n, 1, k});
                    CHECK(combined.read == lesson.read);
                    CHECK(combined.transfer == lesson.transfer);
                }
    }

    TEST_CASE("tp = 1 is the pipeline split of token_time, term by term") {
        for (const Link* link : {&catalog::nvlink_a100, &catalog::pcie_gen4})
            for (long long n : {1, 2, 4, 8, 16})
                for (long long k : {1, 16, 64}) {
                    const TokenTime lesson = token_time(llama70b, a100, *link, {n, Split::pipeline, k});
                    const TokenTime combined = combined_token_time(llama70b, a100, *link, {1, n, k});
                    CHECK(combined.read == lesson.read);
                    CHECK(combined.transfer == lesson.transfer);
                }
    }

    TEST_CASE("70B as t2 x p2 on NVLink (600 GB/s), one token, by hand") {
        // Share: 2 · 70,553,706,496 B / 4 = 35,276,853,248 B, read at 2,039 GB/s
        // (compute, 2 · 70.55e9 / 4 / 312e12 = 0.11 ms, is shorter); two groups in turn.
        const double read = 2.0 * 35'276'853'248.0 / 2.039e12;
        // 160 all-reduces of one 8,192 × 2 B hidden vector among 2 GPUs:
        // 6.6 µs + 2 · 0.6 µs + (2·1/2) · 16,384 B / 600 GB/s; one hand-off: 6.6 + 0.6 µs + 16,384 B / 600 GB/s.
        const double all_reduce = 6.6e-6 + 2 * 0.6e-6 + 16384.0 / 600e9;
        const double hand_off = 6.6e-6 + 0.6e-6 + 16384.0 / 600e9;
        const TokenTime t = combined_token_time(llama70b, a100, catalog::nvlink_a100, {2, 2, 1});
        CHECK(in(t.read, units::s) == doctest::Approx(read).epsilon(1e-12).scale(0));
        CHECK(in(t.transfer, units::s) == doctest::Approx(160 * all_reduce + hand_off).epsilon(1e-12).scale(0));
        CHECK(in(t.total(), units::ms) == doctest::Approx(35.862).epsilon(1e-4).scale(0));
    }

    TEST_CASE("memory of a combined split: 70B on t2 x p2, by hand") {
        // Weights 35,276,853,248 B; KV 2·80·8·128·2 B · 8,192 tokens = 2,684,354,560 B over
        // 2 groups × 2 heads-shares = 671,088,640 B; working 2,048 · (3·28,672 + 4·8,192) · 2 B + 1 GiB.
        const InferenceMemory m = combined_memory_per_gpu(llama70b, {2, 2, 1});
        CHECK(m.weights == bytes(35'276'853'248.0));
        CHECK(m.kv_cache == bytes(671'088'640.0));
        CHECK(m.working == bytes(1'560'281'088.0));
        // Three chats in flight keep three caches.
        CHECK(combined_memory_per_gpu(llama70b, {2, 2, 3}).kv_cache == bytes(3 * 671'088'640.0));
        // With pp = 1 the KV share is the lesson's (by head, never more than 8 ways).
        for (long long n : {1, 2, 4, 8, 16})
            CHECK(combined_memory_per_gpu(llama70b, {n, 1, 1}).total() == memory_per_gpu(llama70b, n).total());
    }

    TEST_CASE("one user, counts dividing the heads: 8, 16 and 32 GPUs are fastest (the split lesson)") {
        // The lesson: "Among the counts that do divide them, the fastest are 8 for
        // the 8B model, 16 for the 70B and 32 for the 405B, on both links". A
        // pipeline group only adds hand-offs for one user, so pp = 1 wins.
        const InferencePlanQuery one_user{.max_gpus = 64, .max_tokens_in_flight = 1};
        for (const Link* link : {&catalog::nvlink_a100, &catalog::pcie_gen4}) {
            const auto p8 = plan_inference(llama8b, a100, *link, one_user);
            const auto p70 = plan_inference(llama70b, a100, *link, one_user);
            const auto p405 = plan_inference(llama405b, a100, *link, one_user);
            REQUIRE(p8.best);
            REQUIRE(p70.best);
            REQUIRE(p405.best);
            CHECK(p8.best->split.tp == 8);
            CHECK(p70.best->split.tp == 16);
            CHECK(p405.best->split.tp == 32);
            CHECK(p8.best->split.pp == 1);
            CHECK(p70.best->split.pp == 1);
            CHECK(p405.best->split.pp == 1);
        }
    }

    TEST_CASE("fewest GPUs: 70B on 2 (the lesson) — 405B on 12, since 11 is no t x p split") {
        // The lesson's 405B fits on 11 GPUs, but 11 is prime, divides neither the
        // 128 heads nor the 126 layers; at 12 = t4·p3 or t2·p6 it fits (share of
        // 2·405,853,388,800 B / 12 = 63.0 GiB + KV + 1.93 GiB working < 73.6 GiB usable).
        const auto p70 = plan_inference(llama70b, a100, catalog::nvlink_a100);
        REQUIRE(p70.fewest);
        CHECK(p70.fewest->split.gpus() == 2);
        CHECK(p70.fewest->split.tp == 2);  // t2 beats p2 on time
        const auto p405 = plan_inference(llama405b, a100, catalog::nvlink_a100);
        REQUIRE(p405.fewest);
        CHECK(p405.fewest->split.gpus() == 12);
        CHECK(fewest_gpus(llama405b, a100) == 11);
    }

    TEST_CASE("8B on one GPU: the lowest latency serves as many chats as memory holds") {
        // On one GPU the step is max(read, compute): compute stays shorter while
        // 2·N·k / 312e12 ≤ 2·N / 2.039e12, i.e. k ≤ 153. Memory ends it first: usable
        // floor(0.92 · 80 GiB) = 79,027,398,246 B − weights 16,060,522,496 B − working
        // 2,048·(3·14,336 + 4·4,096)·2 B + 1 GiB = 1,317,011,456 B leaves 61,649,864,294 B,
        // and each chat's cache is 2·32·8·128·2 B · 8,192 = 1 GiB: 57 chats.
        const auto p = plan_inference(llama8b, a100, catalog::nvlink_a100, {.max_gpus = 1});
        REQUIRE(p.best);
        CHECK(p.best->split.gpus() == 1);
        CHECK(p.best->split.tokens_in_flight == 57);
        CHECK(p.best->time.total() == weight_read_time(llama8b, a100, 1));
        CHECK(p.rejected_memory == 1);
        CHECK(p.pruned == 1024 - 58);
    }

    TEST_CASE("the pruned search finds what a brute-force search over the same space finds") {
        const Seconds bound = milliseconds(30);
        for (auto objective : {InferenceObjective::latency, InferenceObjective::throughput}) {
            const InferencePlanQuery q{.max_gpus = 16, .max_tokens_in_flight = 96, .latency_bound = bound,
                                       .objective = objective};
            const InferencePlan plan = plan_inference(llama70b, a100, catalog::pcie_gen4, q);
            std::optional<InferenceCandidate> brute;
            long long points = 0;
            for (long long tp = 1; tp <= 16; ++tp)
                for (long long pp = 1; tp * pp <= 16; ++pp)
                    for (long long k = 1; k <= 96; ++k) {
                        if (llama70b.heads % tp != 0 || llama70b.layers % pp != 0) continue;
                        ++points;
                        const InferenceCandidate c{{tp, pp, k}, combined_memory_per_gpu(llama70b, {tp, pp, k}),
                                                   combined_token_time(llama70b, a100, catalog::pcie_gen4, {tp, pp, k})};
                        if (c.memory.total() > usable_memory(a100) || c.time.total() > bound) continue;
                        if (!brute || detail::better(c, *brute, objective)) brute = c;
                    }
            REQUIRE(plan.best);
            REQUIRE(brute);
            CHECK(plan.best->split.tp == brute->split.tp);
            CHECK(plan.best->split.pp == brute->split.pp);
            CHECK(plan.best->split.tokens_in_flight == brute->split.tokens_in_flight);
            CHECK(plan.points_evaluated + plan.pruned == points);
            CHECK(plan.rejected_memory > 0);
            CHECK(plan.rejected_latency > 0);
            CHECK(plan.best->time.total() <= bound);
        }
    }

    TEST_CASE("bad input names the argument and its value") {
        CHECK_THROWS_WITH_AS((void)plan_inference(llama8b, a100, catalog::nvlink_a100, {.max_gpus = 0}),
                             "max_gpus = 0: must be at least 1", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)combined_token_time(llama8b, a100, catalog::nvlink_a100, {2, 0, 1}),
                             "TensorPipelineSplit.pp = 0: must be at least 1", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)plan_inference(llama8b, a100, catalog::nvlink_a100,
                                                  {.latency_bound = milliseconds(-1)}),
                             "latency_bound (s) = -0.001: must be positive", napkin::invalid_argument);
    }
}

TEST_SUITE("planner") {
    // GPT-2 small (12 layers, 12 heads, hidden 768) on one DGX A100 (8 GPUs),
    // 16 sequences of 1,024 tokens: small enough to count by hand.
    const TrainingPlanQuery small{.model = catalog::gpt2_small, .cluster = cluster_of(catalog::dgx_a100, 1),
                                  .global_batch = 16, .sequence = 1024};

    bool same_point(const TrainingCandidate& a, const TrainingCandidate& b) {
        return detail::choice_key(a.point) == detail::choice_key(b.point) && a.estimate.step == b.estimate.step &&
               a.estimate.memory.total() == b.estimate.memory.total();
    }
    void check_same(const std::vector<TrainingCandidate>& a, const std::vector<TrainingCandidate>& b) {
        REQUIRE(a.size() == b.size());
        for (std::size_t i = 0; i < a.size(); ++i) CHECK(same_point(a[i], b[i]));
    }

    // Every dominated point of q's space against the point with every dominated
    // choice at its better value (1F1B for GPipe, bf16 gradients, flash attention
    // without recomputation, the all-reduce without sequence parallelism,
    // scatter/gather and overlap on where the query has it): never faster, never smaller.
    void check_dominated_twins(const TrainingPlanQuery& query) {
        TrainingPlanQuery q = query;
        q.prune = false;
        q.must_fit = false;
        std::vector<TrainingCandidate> canonical, dominated;
        for_each_training_point(q, [&](const TrainingCandidate& c) { (c.dominated ? dominated : canonical).push_back(c); });
        const auto twin_of = [&query](TrainingPoint p) {
            Parallelism& a = p.parallelism;
            if (const auto better = traits_of(a.schedule).dominated_by) a.schedule = *better;  // GPipe -> 1F1B
            a.gradients = DType::bf16;
            a.flash_attention = true;  // the query allows it: used with recomputation, the better choice without
            if (a.tp > 1 && !a.sequence_parallel) p.options.tp_communication = TpCommunication::all_reduce;
            p.options.pipeline_scatter_gather = true;
            p.options.overlap_dp = query.overlap_dp;  // on where the framework has it
            return detail::choice_key(p);
        };
        REQUIRE(!dominated.empty());
        long long checked = 0, gpipe = 0, slower = 0, larger = 0;
        for (const TrainingCandidate& d : dominated) {
            const auto key = twin_of(d.point);
            const auto twin = std::find_if(canonical.begin(), canonical.end(),
                                           [&](const TrainingCandidate& c) { return detail::choice_key(c.point) == key; });
            REQUIRE(twin != canonical.end());
            CHECK(twin->estimate.step <= d.estimate.step);
            CHECK(twin->estimate.memory.total() <= d.estimate.memory.total());
            ++checked;
            slower += twin->estimate.step < d.estimate.step;
            larger += twin->estimate.memory.total() < d.estimate.memory.total();
            // GPipe's bubble is 1F1B's: with the same overlap the step is the same.
            const Parallelism& a = d.point.parallelism;
            const TrainingOptions& o = d.point.options;
            if (a.schedule == ScheduleKind::gpipe && a.gradients == DType::bf16 && o.overlap_dp == query.overlap_dp &&
                o.pipeline_scatter_gather && o.tp_communication != TpCommunication::reduce_scatter_all_gather &&
                (a.flash_attention || a.recompute != Recompute::none)) {
                ++gpipe;
                CHECK(twin->estimate.step == d.estimate.step);
            }
        }
        CHECK(checked == static_cast<long long>(dominated.size()));
        CHECK(gpipe > 0);
        // The variants do cost something: most are slower or larger, not ties.
        CHECK(slower > checked / 2);
        CHECK(larger > 0);
    }

    // The pruning proofs on q's space: every dominated point against its twin, and the
    // pruned search ranks exactly what the unpruned one ranks.
    void check_pruning_is_exact(const TrainingPlanQuery& q) {
        check_dominated_twins(q);
        TrainingPlanQuery unpruned = q;
        unpruned.prune = false;
        const TrainingPlan pruned = plan_training(q), full = plan_training(unpruned);
        check_same(pruned.top, full.top);
        check_same(pruned.pareto, full.pareto);
    }

    TEST_CASE("the space of GPT-2 small on 8 GPUs, counted by hand") {
        // tp | 12 and 768: 1 2 3 4 6 12; pp | 12: 1 2 3 4 6 12; of the 36 pairs, 8 have
        // tp·pp dividing 8 (28 rejected). Per (tp, pp, dp) and micro-batch size (d(16/dp) of
        // them): 4 shardings × 2 gradient formats × 4 recomputations (none with and without
        // flash attention, selective, full) = 32, × TP choices (tp > 1: all-reduce, reduce-
        // scatter + all-gather, sequence parallel: 3) × scatter/gather (2 when tp > 1 and pp > 1)
        // × overlap (2 when dp > 1) × schedules (pp = 1: one; v = 1: 1F1B, GPipe, ZB-H1, ZB-H2,
        // DualPipe, + DualPipeV when 2·pp | 12; v > 1 with pp·v | 12: interleaved):
        //   t1 p1 d8: 2·32·1·1·2·1                      = 128
        //   t1 p2 d4: 3·32·1·1·2·(6 + 3) (v = 2, 3, 6)  = 1,728
        //   t1 p4 d2: 4·32·1·1·2·(5 + 1) (v = 3)        = 1,536
        //   t2 p1 d4: 3·32·3·1·2·1                      = 576
        //   t2 p2 d2: 4·32·3·2·2·9                      = 13,824
        //   t2 p4 d1: 5·32·3·2·1·6                      = 5,760
        //   t4 p1 d2: 4·32·3·1·2·1                      = 768
        //   t4 p2 d1: 5·32·3·2·1·9                      = 8,640        total 32,960
        const TrainingPlan plan = plan_training(small);
        CHECK(plan.points == 32960);
        CHECK(plan.rejected.gpus == 28);
        CHECK(plan.rejected.batch == 0);
        CHECK(plan.points_evaluated + plan.points_pruned() + plan.rejected.schedule == plan.points);
        CHECK(plan.rejected.memory == plan.points_pruned_memory + (plan.points_evaluated - plan.points_fitting));
        CHECK(plan.points_pruned_dominated > 0);
        CHECK(plan.top.size() == 10);
        CHECK(plan_rows(small).size() == 4 * (1 + 4 + 2 + 1 + 4 + 2 + 1 + 4));
    }

    TEST_CASE("every schedule of the training model is searched — GPipe only as 1F1B's dominated twin") {
        TrainingPlanQuery q = small;
        q.prune = false;
        unsigned seen = 0, seen_canonical = 0;
        for_each_training_point(q, [&](const TrainingCandidate& c) {
            seen |= schedule_bit(c.point.parallelism.schedule);
            if (!c.dominated) seen_canonical |= schedule_bit(c.point.parallelism.schedule);
        });
        CHECK(seen == schedules_all);
        CHECK(seen_canonical == (schedules_all & ~schedule_bit(ScheduleKind::gpipe)));
        // Without 1F1B, GPipe has no twin and is searched like any schedule.
        q.schedules = schedule_bit(ScheduleKind::gpipe);
        unsigned gpipe = 0;
        for_each_training_point(q, [&](const TrainingCandidate& c) {
            if (c.point.parallelism.pp > 1 && !c.dominated) gpipe |= schedule_bit(c.point.parallelism.schedule);
        });
        CHECK(gpipe == schedule_bit(ScheduleKind::gpipe));
    }

    TEST_CASE("dominated variants: never faster and never smaller than their canonical twin") {
        // The proofs of planner.hpp, checked on every point of the GPT-2 space.
        check_dominated_twins(small);
    }

    TEST_CASE("context parallelism on request: the GPT-2 space with cp = 2, counted by hand") {
        // cp = 2 divides s = 1,024; tp·pp·2 must divide 8: (t, p) = (1, 1), (1, 2), (1, 4), (2, 1),
        // (2, 2), (4, 1), the other 30 pairs rejected. dp = 8 / (tp·pp·2); the gradients are
        // reduced over dp·cp = 2 or more, so the overlap choice is always there. With the factors
        // of the count above (32, TP choices, scatter/gather, overlap, schedules):
        //   t1 p1 d4 c2: 3·32·1·1·2·1 = 192       t1 p2 d2 c2: 4·32·1·1·2·9 = 2,304
        //   t1 p4 d1 c2: 5·32·1·1·2·6 = 1,920     t2 p1 d2 c2: 4·32·3·1·2·1 = 768
        //   t2 p2 d1 c2: 5·32·3·2·2·9 = 17,280    t4 p1 d1 c2: 5·32·3·1·2·1 = 960
        // 23,424 more points than the 32,960 without; rows 4 × (1 + 4 + 2 + 1 + 4 + 1) = 52 more.
        TrainingPlanQuery q = small;
        q.max_cp = 2;
        const TrainingPlan plan = plan_training(q);
        CHECK(plan.points == 32960 + 23424);
        CHECK(plan.rejected.gpus == 28 + 30);
        CHECK(plan_rows(q).size() == plan_rows(small).size() + 52);
        CHECK(plan.points_evaluated + plan.points_pruned() + plan.rejected.schedule == plan.points);
        // cp = 3 does not divide the sequence: no such layout, nothing rejected for it.
        q.max_cp = 3;
        CHECK(plan_training(q).points == plan.points);
        CHECK(plan_training(q).rejected.gpus == plan.rejected.gpus);
        // The proofs hold with context parallelism: every dominated point against its twin
        // (1F1B-family schedules and bf16/fp32 gradients keep the space small), and the pruned
        // search ranks what the unpruned one ranks.
        q.max_cp = 2;
        q.schedules = schedule_bit(ScheduleKind::one_f_one_b) | schedule_bit(ScheduleKind::gpipe);
        check_pruning_is_exact(q);
        CHECK(test::error_of([&] {
                  TrainingPlanQuery bad = small;
                  bad.max_cp = 0;
                  return plan_training(bad).points;
              }) == "max_cp = 0: must be at least 1");
    }

    TEST_CASE("expert parallelism for a mixture of experts: every ep dividing the experts and dp, counted by hand") {
        // GPT-2 small with 4 experts, 2 active (a test shape), on the same 8 GPUs: the (tp, pp, dp)
        // layouts and their points are the dense count's; each repeats for every ep dividing 4
        // and dp: d8 and d4 take ep 1, 2, 4; d2 takes 1, 2; d1 takes 1:
        //   128·3 + 1,728·3 + 1,536·2 + 576·3 + 13,824·2 + 5,760·1 + 768·2 + 8,640·1 = 53,952
        // rows 4 × (1·3 + 4·3 + 2·2 + 1·3 + 4·2 + 2·1 + 1·2 + 4·1) = 152.
        TransformerShape moe = catalog::gpt2_small;
        moe.experts = 4;
        moe.experts_per_token = 2;
        moe.expert_ffn = 3072;
        TrainingPlanQuery q = small;
        q.model = moe;
        const TrainingPlan plan = plan_training(q);
        CHECK(plan.points == 53952);
        CHECK(plan_rows(q).size() == 152);
        CHECK(plan.points_evaluated + plan.points_pruned() + plan.rejected.schedule == plan.points);
        // max_ep = 1: the dense space; max_ep = 2 drops ep = 4 (d8 and d4: 128 + 1,728 + 576).
        q.max_ep = 1;
        CHECK(plan_training(q).points == 32960);
        q.max_ep = 2;
        CHECK(plan_training(q).points == 53952 - 128 - 1728 - 576);
        // The proofs hold with expert parallelism (1F1B and GPipe only, to keep it small).
        q.max_ep = 0;
        q.schedules = schedule_bit(ScheduleKind::one_f_one_b) | schedule_bit(ScheduleKind::gpipe);
        check_pruning_is_exact(q);
        q.prune = false;
        const TrainingPlan full = plan_training(q);
        bool expert_parallel_ranked = false;
        for (const TrainingCandidate& c : full.top) expert_parallel_ranked |= c.point.parallelism.ep > 1;
        for (const TrainingCandidate& c : full.pareto) expert_parallel_ranked |= c.point.parallelism.ep > 1;
        CHECK(expert_parallel_ranked);
    }

    TEST_CASE("the ranking: fastest first, each point what evaluate_training says") {
        const TrainingPlan plan = plan_training(small);
        REQUIRE(!plan.top.empty());
        for (std::size_t i = 1; i < plan.top.size(); ++i) CHECK(plan.top[i - 1].estimate.step <= plan.top[i].estimate.step);
        for (const TrainingCandidate& c : plan.top) {
            CHECK(c.estimate.fits);
            CHECK_FALSE(c.dominated);
            const TrainingEstimate e =
                evaluate_training(small.model, small.cluster, c.point.parallelism, c.point.options);
            CHECK(e.step == c.estimate.step);
            CHECK(e.memory.total() == c.estimate.memory.total());
            // All points share B·s, so tokens/s ranks like the step time.
            CHECK(in(c.estimate.tokens_per_second, units::tokens_per_s) ==
                  doctest::Approx(16.0 * 1024.0 / in(c.estimate.step, units::s)).epsilon(1e-12).scale(0));
        }
        // The Pareto front: memory rises, time falls, and the fastest point ends it.
        REQUIRE(!plan.pareto.empty());
        for (std::size_t i = 1; i < plan.pareto.size(); ++i) {
            CHECK(plan.pareto[i - 1].estimate.memory.total() < plan.pareto[i].estimate.memory.total());
            CHECK(plan.pareto[i - 1].estimate.step > plan.pareto[i].estimate.step);
        }
        CHECK(same_point(plan.pareto.back(), plan.top.front()));
    }

    TEST_CASE("the Pareto front holds exactly the points nothing beats on both memory and time") {
        std::vector<TrainingCandidate> all;
        for_each_training_point(small, [&](const TrainingCandidate& c) {
            if (c.estimate.fits && !c.dominated) all.push_back(c);
        });
        const TrainingPlan plan = plan_training(small);
        CHECK(static_cast<long long>(all.size()) == plan.points_fitting);
        std::size_t on_front = 0;
        for (const TrainingCandidate& c : all) {
            const bool dominated = std::any_of(all.begin(), all.end(), [&](const TrainingCandidate& o) {
                const Bytes mo = o.estimate.memory.total(), mc = c.estimate.memory.total();
                return mo <= mc && o.estimate.step <= c.estimate.step && (mo < mc || o.estimate.step < c.estimate.step);
            });
            if (dominated) continue;
            // Not dominated: on the front, or an exact tie with a point that is.
            ++on_front;
            CHECK(std::any_of(plan.pareto.begin(), plan.pareto.end(), [&](const TrainingCandidate& f) {
                return f.estimate.step == c.estimate.step && f.estimate.memory.total() == c.estimate.memory.total();
            }));
        }
        CHECK(on_front >= plan.pareto.size());
    }

    TEST_CASE("the memory bounds skip only points that would not fit: pruned and unpruned searches agree") {
        // GPT-3 175B on 128 A100s (16 nodes): most layouts do not fit, so both bounds fire.
        TrainingPlanQuery q{.model = catalog::gpt3_175b, .cluster = cluster_of(catalog::dgx_a100, 16),
                            .global_batch = 64, .sequence = 2048, .top_k = 20};
        const TrainingPlan pruned = plan_training(q);
        q.prune = false;
        const TrainingPlan full = plan_training(q);
        CHECK(pruned.points == full.points);
        CHECK(pruned.points_pruned_memory > 0);
        CHECK(pruned.points_pruned_dominated > 0);
        CHECK(full.points_pruned() == 0);
        CHECK(full.points_evaluated + full.rejected.schedule == full.points);
        CHECK(pruned.points_evaluated + pruned.points_pruned() + pruned.rejected.schedule == pruned.points);
        CHECK(pruned.rejected.schedule == full.rejected.schedule);
        CHECK(pruned.points_evaluated < full.points_evaluated);
        // The canonical points that fit are the same; the dominated ones the
        // pruned search never evaluates may fit or not.
        long long canonical_fitting = 0;
        for_each_training_point(q, [&](const TrainingCandidate& c) {
            if (c.estimate.fits && !c.dominated) ++canonical_fitting;
        });
        CHECK(pruned.points_fitting == canonical_fitting);
        CHECK(pruned.rejected.memory <= full.rejected.memory);
        CHECK(full.rejected.memory <= pruned.rejected.memory + pruned.points_pruned_dominated);
        check_same(pruned.top, full.top);
        check_same(pruned.pareto, full.pareto);
    }

    TEST_CASE("the result does not depend on the number of threads") {
        TrainingPlanQuery q = small;
        q.threads = 1;
        const TrainingPlan one = plan_training(q);
        q.threads = 3;
        const TrainingPlan three = plan_training(q);
        check_same(one.top, three.top);
        check_same(one.pareto, three.pareto);
        CHECK(one.points_evaluated == three.points_evaluated);
        CHECK(one.rejected.memory == three.rejected.memory);
    }

    TEST_CASE("constraints: maximum tp, schedules, must fit") {
        TrainingPlanQuery q = small;
        q.max_tp = 2;
        q.schedules = schedule_bit(ScheduleKind::one_f_one_b);
        const TrainingPlan plan = plan_training(q);
        // Of the 8 (tp, pp) pairs, t4 p1 and t4 p2 exceed max_tp; 1F1B only: v = 1 rows, one schedule:
        // with the 32 of the count above: t1 p1 2·32·2 = 128, t1 p2 3·32·2 = 192, t1 p4 4·32·2 = 256,
        // t2 p1 3·32·3·2 = 576, t2 p2 4·32·3·2·2 = 1,536, t2 p4 5·32·3·2·1 = 960 (dp = 1: no overlap
        // choice): 3,648.
        CHECK(plan.rejected.max_tp == 2);
        CHECK(plan.points == 3648);
        for (const auto& c : plan.top) {
            CHECK(c.point.parallelism.tp <= 2);
            CHECK(c.point.parallelism.schedule == ScheduleKind::one_f_one_b);
        }
        // Without must_fit every point is evaluated and ranked, fitting or not.
        TrainingPlanQuery loose{.model = catalog::gpt3_175b, .cluster = cluster_of(catalog::dgx_a100, 2),
                                .global_batch = 16, .sequence = 2048, .must_fit = false};
        const TrainingPlan any = plan_training(loose);
        CHECK(any.points_pruned_memory == 0);
        CHECK(any.points_fitting < any.points_evaluated);
        REQUIRE(!any.top.empty());
        CHECK_FALSE(any.top.front().estimate.fits);  // 175B on 16 GPUs fits no layout
        loose.must_fit = true;
        const TrainingPlan none = plan_training(loose);
        CHECK(none.top.empty());
        CHECK(none.points_fitting == 0);
    }

    TEST_CASE(
        "a framework's own choices: full recomputation, ZeRO-1, no sequence parallelism, no overlapped "
        "gradient sync — the GPT-2 space counted by hand") {
        TrainingPlanQuery q = small;
        q.recomputes = recompute_bit(Recompute::full);
        q.shardings = sharding_bit(Sharding::zero1);
        q.sequence_parallel = false;
        // The count of "the space of GPT-2 small on 8 GPUs" with 1 sharding × 2 gradient formats × 1
        // recomputation (full: flash attention on) = 2 in place of 32, and 2 TP choices (all-reduce,
        // reduce-scatter + all-gather) in place of 3 when tp > 1: each tp = 1 row × 2/32, each tp > 1 row × 4/96:
        //   t1 p1 128 → 8, t1 p2 1,728 → 108, t1 p4 1,536 → 96, t2 p1 576 → 24, t2 p2 13,824 → 576,
        //   t2 p4 5,760 → 240, t4 p1 768 → 32, t4 p2 8,640 → 360: 1,444.
        const TrainingPlan plan = plan_training(q);
        CHECK(plan.points == 1444);
        CHECK(plan_rows(q).size() == 1 + 4 + 2 + 1 + 4 + 2 + 1 + 4);
        REQUIRE(!plan.top.empty());
        for (const auto& c : plan.top) {
            CHECK(c.point.parallelism.recompute == Recompute::full);
            CHECK(c.point.parallelism.sharding == Sharding::zero1);
            CHECK_FALSE(c.point.parallelism.sequence_parallel);
        }
        // The three recomputations apart add up to all of them; so do the four ZeRO stages.
        long long by_recompute = 0, by_stage = 0;
        for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
            TrainingPlanQuery one = small;
            one.recomputes = recompute_bit(r);
            by_recompute += plan_training(one).points;
        }
        for (Sharding z : {Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3}) {
            TrainingPlanQuery one = small;
            one.shardings = sharding_bit(z);
            by_stage += plan_training(one).points;
        }
        CHECK(by_recompute == 32960);
        CHECK(by_stage == 32960);
        check_pruning_is_exact(q);
        // Gradients reduced after the backward only: the overlap choice (2 where dp > 1) is gone, halving every
        // row but t2 p4 and t4 p2 (dp = 1): 4 + 54 + 48 + 12 + 288 + 240 + 16 + 360 = 1,022.
        q.overlap_dp = false;
        const TrainingPlan after = plan_training(q);
        CHECK(after.points == 1022);
        for (const auto& c : after.top) CHECK_FALSE(c.point.options.overlap_dp);
        check_pruning_is_exact(q);
    }

    TEST_CASE("GPT-3 175B on 1,024 A100s: a search in well under a minute finds layouts that fit") {
        const TrainingPlanQuery q{.model = catalog::gpt3_175b, .cluster = cluster_of(catalog::dgx_a100, 128),
                                  .global_batch = 1536, .sequence = 2048};
        const TrainingPlan plan = plan_training(q);
        // 1,024 = 2^10 GPUs: tp ∈ {1, 2, 4, 8, 16, 32} (divisors of 96 that are powers of 2),
        // pp likewise; dp = 1,024 / (tp·pp) must divide 1,536 = 2^9 · 3, so tp·pp ≥ 2:
        // only t1 p1 (dp 1,024) fails the batch.
        CHECK(plan.rejected.batch == 1);
        // Σ over the 185 valid (tp, pp, v) of d(1,536/dp) micro-batch sizes × 32 (as above) × TP
        // choices (3 with tp > 1) × scatter/gather (2 with tp, pp > 1) × overlap (2 with dp > 1) ×
        // schedules (1, or 4 + DualPipe with pp even + DualPipeV with 2·pp | 96 at v = 1, pp > 1),
        // recounted outside napkin: 1,160,320, more than Calculon's 1,136,960 for this case.
        CHECK(plan.points == 1160320);
        CHECK(plan_rows(q).size() == 4 * 185);
        REQUIRE(!plan.top.empty());
        CHECK(plan.top.front().estimate.fits);
        CHECK(plan.points > 1136960);
        CHECK(plan.points_evaluated + plan.points_pruned() + plan.rejected.schedule == plan.points);
    }

    TEST_CASE("rank_of_step: the plan's k-th layout ranks k among the points the plan ranks") {
        // The plan's top list is the fastest non-dominated fitting points in order,
        // so the step of its k-th entry has k − 1 points strictly before it (less
        // where steps tie), and the count of ranked points is the fitting canonical ones.
        TrainingPlanQuery q = small;
        q.top_k = 5;
        const TrainingPlan plan = plan_training(q);
        REQUIRE(plan.top.size() == 5);
        long long canonical_fitting = 0;
        TrainingPlanQuery every = q;
        every.prune = false;
        std::vector<Seconds> steps;  // of every ranked point, from the unpruned search
        for_each_training_point(every, [&](const TrainingCandidate& c) {
            if (!c.dominated && c.estimate.fits) ++canonical_fitting, steps.push_back(c.estimate.step);
        });
        // rank_of_step prunes; its counts are the unpruned search's at any step.
        std::sort(steps.begin(), steps.end());
        for (const std::size_t at : {std::size_t{0}, steps.size() / 3, steps.size() / 2, steps.size() - 1}) {
            const auto faster = std::lower_bound(steps.begin(), steps.end(), steps[at]) - steps.begin();
            CHECK(rank_of_step(q, steps[at]).faster == faster);
        }
        for (std::size_t k = 0; k < plan.top.size(); ++k) {
            const StepRank r = rank_of_step(q, plan.top[k].estimate.step);
            CHECK(r.ranked == canonical_fitting);
            CHECK(r.rank() <= static_cast<long long>(k) + 1);
            if (k == 0 || plan.top[k - 1].estimate.step < plan.top[k].estimate.step)
                CHECK(r.rank() == static_cast<long long>(k) + 1);
        }
        // Slower than every point: it ranks after all of them.
        const StepRank last = rank_of_step(q, seconds(1e9));
        CHECK(last.rank() == last.ranked + 1);
        CHECK(rank_of_step(q, Seconds{}).rank() == 1);
        CHECK(rank_of_step(q, Seconds{}).share() == doctest::Approx(1.0 / static_cast<double>(canonical_fitting)));
    }

    TEST_CASE("bad input names the argument and its value") {
        TrainingPlanQuery q = small;
        q.global_batch = 0;
        CHECK_THROWS_WITH_AS((void)plan_training(q), "global_batch = 0: must be at least 1", napkin::invalid_argument);
        q = small;
        q.schedules = 0;
        CHECK_THROWS_WITH_AS((void)plan_training(q), "schedules = 0: must be a non-empty set of schedule_bit(ScheduleKind) bits, automatic excluded",
                             napkin::invalid_argument);
        q = small;
        q.recomputes = 0;
        CHECK_THROWS_WITH_AS((void)plan_training(q),
                             "recomputes = 0: must be a non-empty set of recompute_bit(Recompute) bits",
                             napkin::invalid_argument);
        q = small;
        q.shardings = sharding_bit(Sharding::distributed);  // searched as its ZeRO-1 twin, not a choice of its own
        CHECK_THROWS_WITH_AS((void)plan_training(q),
                             "shardings = 16: must be a non-empty set of sharding_bit(Sharding) bits, ZeRO 0 to 3",
                             napkin::invalid_argument);
    }
}
