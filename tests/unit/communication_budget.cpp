// napkin/communication_budget.hpp: the communication lab's parts D and E, by hand.
#include <napkin/communication_budget.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <string>

using namespace napkin;

namespace {
// The lab's network (shared reference lab-communication-at-scale.py).
constexpr Link ib_ndr{"ib-ndr", gigabytes_per_second(50), microseconds(5)};
constexpr Link nvlink{"nvlink", gigabytes_per_second(900), microseconds(0.5)};

// The lab's part E: 70B FP32 gradients on 8 nodes × 8 GPUs, 19 s of compute per
// step; the backward pass is 2/3 of it (twice the forward FLOPs).
CommunicationPlan lab_plan(Nic nic, double overlap_efficiency) {
    return CommunicationPlan{.parameters = 70'000'000'000LL,
                             .gradients = DType::fp32,
                             .reduced_gradients = DType::fp16,
                             .tensors = 1,
                             .bucket = megabytes(25),
                             .topology = {8, 8, nvlink, ib_ndr, nic, 1.0},
                             .compute = seconds(19),
                             .backward = seconds(19.0 * 2.0 / 3.0),
                             .overlap_efficiency = overlap_efficiency,
                             .base_latency = {}};
}

using napkin::test::error_of;
}  // namespace

TEST_SUITE("communication_budget") {
    TEST_CASE("gradient bytes follow the number format: 70B is 280 GB in FP32, 140 GB in BF16, 70 GB in FP8") {
        CHECK(gradient_bytes(70'000'000'000LL, DType::fp32) == gigabytes(280));
        CHECK(gradient_bytes(70'000'000'000LL, DType::bf16) == gigabytes(140));
        CHECK(gradient_bytes(70'000'000'000LL, DType::fp16) == gigabytes(140));
        CHECK(gradient_bytes(70'000'000'000LL, DType::fp8) == gigabytes(70));
        // FP16 gradients halve the all-reduce's bandwidth term through the bytes: 11.025 s → 5.5125 s.
        CHECK(in(ring_all_reduce(gradient_bytes(70'000'000'000LL, DType::fp16), 64, ib_ndr).bandwidth, units::s) ==
              doctest::Approx(5.5125).epsilon(1e-12));
    }

    TEST_CASE("bucket fusion: 1,000 tensors of 1 MB in 25 MB buckets are 40 calls") {
        CHECK(fused_calls(gigabytes(1), 1000, megabytes(25)) == 40);
        CHECK(fused_calls(gigabytes(1), 1000, megabytes(2.5)) == 500);  // 2 tensors a bucket
        CHECK(fused_calls(gigabytes(1), 1000, megabytes(1000)) == 1);
        // Tensors larger than a bucket travel alone: 723 tensors of 387 MB stay 723 calls.
        CHECK(fused_calls(gigabytes(280), 723, megabytes(25)) == 723);
        // 40 calls of 25 MB over 64 GPUs: latency 40 × 126 × 5 µs = 25.2 ms, bandwidth that of one
        // 1 GB all-reduce, 1.96875 × 20 ms = 39.375 ms.
        const CollectiveTime fused = split_all_reduce(gigabytes(1), 40, 64, ib_ndr, Ring{});
        CHECK(in(fused.latency, units::ms) == doctest::Approx(25.2).epsilon(1e-12));
        CHECK(in(fused.bandwidth, units::ms) == doctest::Approx(39.375).epsilon(1e-12));
        // Unfused, the same gradients pay 1,000 × 0.63 ms = 630 ms of latency; the gain is 604.8 ms.
        const CollectiveTime unfused = split_all_reduce(gigabytes(1), 1000, 64, ib_ndr, Ring{});
        CHECK(in(unfused.total() - fused.total(), units::ms) == doctest::Approx(604.8).epsilon(1e-9));
    }

    TEST_CASE("overlap hides eta of the communication, never more than the backward pass") {
        // 10 s of communication, 12 s backward, η = 0.85: 8.5 s hidden, 1.5 s exposed.
        CHECK(in(hidden_communication(seconds(10), seconds(12), 0.85), units::s) == doctest::Approx(8.5));
        // 20 s of communication: 17 s could hide, only the 12 s of backward do.
        CHECK(in(hidden_communication(seconds(20), seconds(12), 0.85), units::s) == doctest::Approx(12.0));
        const StepTime step = step_time(seconds(18), seconds(20), seconds(12), 0.85);
        CHECK(in(step.exposed(), units::s) == doctest::Approx(8.0));
        CHECK(in(step.total(), units::s) == doctest::Approx(26.0));
        CHECK(step.communication_share() == doctest::Approx(8.0 / 26.0));
    }

    TEST_CASE("lab part D: INT8 compression at 50 GB/s shortens training by 30 %") {
        // 70B FP16 = 140 GB on 64 GPUs, 5 s compute. Before: 5.5125 s + 0.63 ms of all-reduce;
        // after (1/4 of the bytes): 1.378125 s + 0.63 ms, the latency unchanged. Ratio
        // 1.15 × 6.378755 / 10.51313 = 0.69775 (the lab, without latency: −30 %).
        const double r = compression_time_ratio(gigabytes(140), compression_examples::int8, 64, ib_ndr, Ring{}, seconds(5));
        CHECK(r == doctest::Approx(1.15 * 6.378755 / 10.51313).epsilon(1e-9));
        // No compression changes nothing.
        CHECK(compression_time_ratio(gigabytes(140), compression_examples::none, 64, ib_ndr, Ring{}, seconds(5)) ==
              doctest::Approx(1.0));
        // On a link 100x faster the communication is small and the 15 % more steps dominate:
        // 1.15 × (5 + 0.0138 + 0.0006) / (5 + 0.0551 + 0.0006) > 1.
        const Link fast{"fast", gigabytes_per_second(5000), microseconds(5)};
        CHECK(compression_time_ratio(gigabytes(140), compression_examples::int8, 64, fast, Ring{}, seconds(5)) > 1.0);
    }

    TEST_CASE("the 20 % target: communication may be 4.75 s next to 19 s of compute") {
        // c / (19 + c) = 0.2 ⇔ c = 0.2 × 19 / 0.8 = 4.75 s.
        CHECK(in(communication_for_share(seconds(19), 0.2), units::s) == doctest::Approx(4.75));
    }

    TEST_CASE("lab part E: the raw step spends 36.7 % on communication") {
        // 11.02563 s of ring all-reduce next to 19 s compute: 11.02563 / 30.02563 = 0.36720.
        const StepTime raw = plan_step(lab_plan(Nic::per_gpu, 0.85), 0);
        CHECK(in(raw.communication, units::s) == doctest::Approx(11.02563).epsilon(1e-12));
        CHECK(raw.communication_share() == doctest::Approx(11.02563 / 30.02563).epsilon(1e-12));
    }

    TEST_CASE("lab part E: with a NIC per GPU one optimization is enough") {
        const CommunicationPlan plan = lab_plan(Nic::per_gpu, 0.85);
        // Hierarchical alone: 2 × 7/8 × 280/900 s + 2·7/8 × 35/50 s + 77 µs = 0.544444 + 1.225 + 0.000077
        // = 1.769521 s; share 1.769521 / 20.769521 = 8.52 %.
        const StepTime h = plan_step(plan, optimization::hierarchical);
        CHECK(in(h.communication, units::s) == doctest::Approx(0.5444444 + 1.225 + 0.000077).epsilon(1e-7));
        CHECK(h.communication_share() == doctest::Approx(1.769521 / 20.769521).epsilon(1e-6));
        // Overlap alone: 0.85 × 11.02563 = 9.371786 s hides (under 12.67 s of backward), 1.653845 s
        // stays: 1.653845 / 20.653845 = 8.01 %, the best single optimization.
        const StepTime o = plan_step(plan, optimization::overlap);
        CHECK(o.communication_share() == doctest::Approx(1.653845 / 20.653845).epsilon(1e-6));
        const auto best = smallest_stack_under(plan, 0.2);
        REQUIRE(best.has_value());
        CHECK(best->optimizations == optimization::overlap);
        CHECK(best->size() == 1);
    }

    TEST_CASE("lab part E: with one shared NIC per node and no overlap, nothing reaches 20 %") {
        const CommunicationPlan plan = lab_plan(Nic::per_node, 0.0);
        // Hierarchical + FP16: 2 × 7/8 × 140/900 + 2·7/8 × 17.5/(50/8) s + 77 µs = 0.272222 + 4.9 + 0.000077
        // = 5.172299 s; 5.172299 / 24.172299 = 21.4 %, the best stack there is.
        const StepTime both = plan_step(plan, optimization::hierarchical | optimization::half_precision);
        CHECK(both.communication_share() == doctest::Approx(5.172299 / 24.172299).epsilon(1e-6));
        // FP16 alone on the flat ring: 5.5125 s + 0.63 ms → 5.51313 / 24.51313 = 22.5 %.
        CHECK(plan_step(plan, optimization::half_precision).communication_share() ==
              doctest::Approx(5.51313 / 24.51313).epsilon(1e-6));
        CHECK_FALSE(smallest_stack_under(plan, 0.2).has_value());
        // A 22 % target is met by two: hierarchical + half precision.
        const auto two = smallest_stack_under(plan, 0.22);
        REQUIRE(two.has_value());
        CHECK(two->optimizations == (optimization::hierarchical | optimization::half_precision));
    }

    TEST_CASE("stacks: 16 of them, fewest first, and more optimizations never cost more here") {
        const CommunicationPlan plan = lab_plan(Nic::per_node, 0.85);
        const auto stacks = optimization_stacks(plan);
        CHECK(stacks.size() == 16);
        CHECK(stacks.front().optimizations == 0);
        CHECK(stacks.back().optimizations == optimization::all);
        for (unsigned a = 0; a <= optimization::all; ++a)
            for (unsigned extra = 1; extra <= optimization::all; extra <<= 1)
                CHECK(plan_step(plan, a | extra).total() <= plan_step(plan, a).total());
        CHECK(describe_optimizations(optimization::hierarchical | optimization::overlap) == "hierarchical + overlap");
        CHECK(describe_optimizations(0) == "none");
    }

    TEST_CASE("bad input is rejected with the argument and its value") {
        CHECK(error_of([] { return gradient_bytes(0, DType::fp32); }) == "parameters = 0: must be at least 1");
        CHECK(error_of([] { return fused_calls(gigabytes(1), 10, bytes(0)); }) == "bucket (bytes) = 0: must be positive");
        CHECK(error_of([] { return hidden_communication(seconds(1), seconds(1), 1.5); }) ==
              "overlap efficiency = 1.5: must be in [0, 1]");
        CHECK(error_of([] { return validated(Compression{"x", 0.0, 1.0}); }) ==
              "Compression.ratio = 0: must be in (0, 1]");
        CHECK(error_of([] { return validated(Compression{"x", 0.5, 0.9}); }) ==
              "Compression.convergence_penalty = 0.9: must be at least 1 (more steps, never fewer)");
        CHECK(error_of([] { return communication_for_share(seconds(1), 1.0); }) == "share = 1: must be in [0, 1)");
        CHECK(error_of([] { return plan_step(lab_plan(Nic::per_gpu, 0.5), 16); }) ==
              "optimizations = 16: must be a combination of the four Optimization flags");
    }
}
