// Tests of the inference planner (napkin/inference_planner.hpp) and the
// training planner (napkin/planner.hpp).
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference_planner.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

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

    TEST_CASE("fewest GPUs: 70B on 2 (the lesson); 405B on 12, since 11 is no t x p split") {
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
