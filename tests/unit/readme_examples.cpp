// README.md's code examples, compiled and checked: what a reader copies must
// build and print the numbers the README quotes next to it.
#include <napkin/catalog/clusters.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/io/timeline_svg.hpp>
#include <napkin/napkin.hpp>
#include <napkin/planner.hpp>
#include <napkin/schedule.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

using namespace napkin;

TEST_SUITE("README") {
    TEST_CASE("a first example: 34.93 GiB per GPU, 18.94 ms per token, 8.7 % waiting") {
        constexpr auto memory = memory_per_gpu(catalog::llama3_1_70b, 4);
        static_assert(memory.total() == bytes(37'508'222'976));
        const TokenTime t = token_time(catalog::llama3_1_70b, catalog::a100_80gb_sxm, catalog::nvlink_a100,
                                       {.gpus = 4, .split = Split::tensor});
        CHECK(to_string(memory.total()) == "34.93 GiB");
        CHECK(to_string(t.total()) == "18.94 ms");
        CHECK(std::round(1000 * t.waiting_share()) / 10 == 8.7);
    }

    TEST_CASE("collectives: 11.03 s, the 8,816,509-byte crossover, 0.885 s hierarchical") {
        constexpr Link ib_ndr{"ib-ndr", gigabytes_per_second(50), microseconds(5)};
        constexpr Link nvlink{"nvlink", gigabytes_per_second(900), microseconds(0.5)};
        constexpr auto flat = ring_all_reduce(gigabytes(280), 64, ib_ndr);
        constexpr auto cross = ring_tree_crossover(256, ib_ndr);
        constexpr auto hier = hierarchical_all_reduce(gigabytes(140), {8, 8, nvlink, ib_ndr});
        CHECK(std::round(in(flat.total(), units::s) * 100) / 100 == 11.03);
        CHECK(std::round(cross->value()) == 8'816'509);  // printed as "8816509 B"
        CHECK(std::round(in(hier.total(), units::ms)) == 885);
    }

    TEST_CASE("pipeline: interleaved v = 2, p = 4, m = 8 wastes 3/19 of the step, 3/16 of the ideal") {
        const PipelineShape shape{.stages = 4, .microbatches = 8, .chunks = 2};
        const StageTimes t{milliseconds(1), milliseconds(2)};
        CHECK(bubble_share_of_step(Interleaved{}, shape, t) == doctest::Approx(3.0 / 19).epsilon(1e-12));
        CHECK(bubble_ratio_to_ideal(Interleaved{}, shape, t) == doctest::Approx(3.0 / 16).epsilon(1e-12));
        const Timeline tl = simulate(Interleaved{}, shape, t, milliseconds(0.1));
        const auto path = std::filesystem::temp_directory_path() / "napkin-readme-interleaved.svg";
        io::write_timeline_svg(tl, path.string(), {.title = "interleaved v=2"});
        CHECK(std::filesystem::file_size(path) > 0);
        std::filesystem::remove(path);
    }

    TEST_CASE("training: GPT-3 175B with ZB-H1 on 128 DGX A100 nodes evaluates and fits") {
        const Parallelism par{.tp = 8, .pp = 16, .dp = 8, .schedule = ScheduleKind::zero_bubble_h1,
                              .global_batch = 1536, .sequence = 2048, .recompute = Recompute::full,
                              .gradients = DType::fp32};
        const TrainingEstimate e = evaluate_training(catalog::gpt3_175b, cluster_of(catalog::dgx_a100, 128), par);
        CHECK(e.fits);
        CHECK(e.breakdown.bubble < e.step);
        CHECK(e.mfu > 0.3);
        CHECK(e.mfu < 0.6);
    }

    TEST_CASE("planner: the GPT-3 plan and a 70B serving plan come back non-empty") {
        const TrainingPlan plan = plan_training({.model = catalog::gpt3_175b,
                                                 .cluster = cluster_of(catalog::dgx_a100, 128),
                                                 .global_batch = 1536, .sequence = 2048});
        REQUIRE_FALSE(plan.top.empty());
        CHECK(plan.points == 1'160'320);
        const TrainingCandidate& best = plan.top.front();
        CHECK(best.estimate.fits);
        const InferencePlan serve =
            plan_inference(catalog::llama3_1_70b, catalog::a100_80gb_sxm, catalog::nvlink_a100,
                           {.latency_bound = milliseconds(20), .objective = InferenceObjective::throughput});
        CHECK(serve.best.has_value());
    }
}
