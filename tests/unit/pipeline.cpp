// napkin/pipeline.hpp: every closed form on small cases worked out by hand.
#include <napkin/pipeline.hpp>

#include <doctest/doctest.h>

using namespace napkin;

namespace {
constexpr PipelineShape p4m8{.stages = 4, .microbatches = 8};
// F = 1 ms, B = 2 ms (backward ≈ 2× forward), W = 1 ms (Qi et al.'s T_B = T_W split).
constexpr StageTimes fbw{milliseconds(1), milliseconds(2), milliseconds(1)};

double ms(Seconds t) { return in(t, units::ms); }
doctest::Approx exactly(double x) { return doctest::Approx(x).epsilon(1e-12).scale(0); }
}  // namespace

TEST_SUITE("pipeline") {
    TEST_CASE("GPipe and 1F1B, p = 4, m = 8: bubble (p − 1)(F + B) = 3 × 3 ms = 9 ms, step 11 × 3 ms = 33 ms") {
        for (const AnySchedule& any : {AnySchedule{GPipe{}}, AnySchedule{OneFOneB{}}}) {
            std::visit(
                [](const auto& s) {
                    CHECK(ms(bubble_time(s, p4m8, fbw)) == exactly(9.0));
                    CHECK(ms(step_time(s, p4m8, fbw)) == exactly(33.0));
                    CHECK(bubble_share_of_step(s, p4m8, fbw) == exactly(3.0 / 11.0));  // (p − 1)/(m + p − 1)
                    CHECK(bubble_ratio_to_ideal(s, p4m8, fbw) == exactly(3.0 / 8.0));  // (p − 1)/m
                },
                any);
        }
    }

    TEST_CASE("interleaved, p = 4, m = 8: v = 2 gives 9/2 = 4.5 ms, share 3/19, ratio 3/16 — v = 4 share 3/35") {
        const PipelineShape v2{4, 8, 2}, v4{4, 8, 4};
        CHECK(ms(bubble_time(Interleaved{}, v2, fbw)) == exactly(4.5));
        CHECK(ms(step_time(Interleaved{}, v2, fbw)) == exactly(28.5));
        CHECK(bubble_share_of_step(Interleaved{}, v2, fbw) == exactly(3.0 / 19.0));  // (p − 1)/(v·m + p − 1)
        CHECK(bubble_ratio_to_ideal(Interleaved{}, v2, fbw) == exactly(3.0 / 16.0));  // (p − 1)/(v·m)
        CHECK(ms(bubble_time(Interleaved{}, v4, fbw)) == exactly(2.25));
        CHECK(bubble_share_of_step(Interleaved{}, v4, fbw) == exactly(3.0 / 35.0));
        // v = 1 is 1F1B.
        CHECK(bubble_time(Interleaved{}, p4m8, fbw) == bubble_time(OneFOneB{}, p4m8, fbw));
    }

    TEST_CASE("zero bubble, p = 4: ZB-H1 3·(1 + 2 − 2) = 3 ms, ZB-H2 3·(1 + 2 − 3) = 0, and with F = 2, B = 3, W = 1") {
        CHECK(ms(bubble_time(ZeroBubbleH1{}, p4m8, fbw)) == exactly(3.0));
        CHECK(ms(step_time(ZeroBubbleH1{}, p4m8, fbw)) == exactly(27.0));
        CHECK(bubble_share_of_step(ZeroBubbleH1{}, p4m8, fbw) == exactly(3.0 / 27.0));
        CHECK(ms(bubble_time(ZeroBubbleH2{}, p4m8, fbw)) == doctest::Approx(0.0));
        const StageTimes t{milliseconds(2), milliseconds(3), milliseconds(1)};
        CHECK(ms(bubble_time(ZeroBubbleH1{}, p4m8, t)) == exactly(9.0));  // 3 × (2 + 3 − 2)
        CHECK(ms(bubble_time(ZeroBubbleH2{}, p4m8, t)) == exactly(6.0));  // 3 × (2 + 3 − 3)
        // Without a separate W they are 1F1B: 3 × (2 + 3).
        const StageTimes no_w{milliseconds(2), milliseconds(3)};
        CHECK(ms(bubble_time(ZeroBubbleH1{}, p4m8, no_w)) == exactly(15.0));
        // A negative paper bubble (W larger than the formula allows) means none.
        CHECK(ms(bubble_time(ZeroBubbleH2{}, p4m8, {milliseconds(1), milliseconds(3), milliseconds(2)})) ==
              doctest::Approx(0.0));
    }

    TEST_CASE("DualPipe, p = 8: (8/2 − 1)(F&B + B − 3W) = 3 × (3 + 2 − 3) = 6 ms — F&B = 2.5 ms gives 4.5 ms") {
        const PipelineShape p8{8, 16};
        CHECK(ms(bubble_time(DualPipe{}, p8, fbw)) == exactly(6.0));
        CHECK(ms(bubble_time(DualPipe{milliseconds(2.5)}, p8, fbw)) == exactly(4.5));
        CHECK(ms(step_time(DualPipe{}, p8, fbw)) == exactly(16 * 3.0 + 6.0));
        // DualPipeV on 4 ranks is an 8-stage DualPipe with half the per-rank times: 3 × (1.5 + 1 − 1.5) = 3 ms.
        CHECK(ms(bubble_time(DualPipeV{}, {4, 8}, fbw)) == exactly(3.0));
    }

    TEST_CASE("micro-batches in flight: GPipe m — 1F1B p − r — interleaved Megatron's warm-up + 1") {
        CHECK(microbatches_in_flight(GPipe{}, p4m8, 2) == 8);
        CHECK(microbatches_in_flight(OneFOneB{}, p4m8, 0) == 4);
        CHECK(microbatches_in_flight(OneFOneB{}, p4m8, 3) == 1);
        CHECK(microbatches_in_flight(OneFOneB{}, {4, 2}, 0) == 2);  // never more than m
        // p = 4, v = 2, m = 8: rank 0 warms up 2·3 + 1·4 = 10, rank 3 0 + 4 = 4 (chunk passes).
        const PipelineShape v2{4, 8, 2};
        CHECK(microbatches_in_flight(Interleaved{}, v2, 0) == 11);
        CHECK(microbatches_in_flight(Interleaved{}, v2, 3) == 5);
        CHECK(microbatches_in_flight(Interleaved{.extra_warmup = 1}, v2, 0) == 12);
        // m == p: Megatron runs all m·v = 8 forwards first.
        CHECK(microbatches_in_flight(Interleaved{}, {4, 4, 2}, 3) == 8);
        CHECK(microbatches_in_flight(ZeroBubbleH1{}, p4m8, 3) == 4);
        CHECK(microbatches_in_flight(ZeroBubbleH2{}, p4m8, 0) == 7);  // 2p − 1
        CHECK(microbatches_in_flight(ZeroBubbleH2{}, {4, 5}, 0) == 5);
    }

    TEST_CASE("memory multipliers: 1F1B p, interleaved p + (p − 1)/v, ZB-H2 2p − 1, DualPipe p + 1 and 2× weights") {
        CHECK(activation_memory_multiplier(OneFOneB{}, p4m8) == exactly(4.0));
        CHECK(activation_memory_multiplier(GPipe{}, p4m8) == exactly(8.0));
        // Korthikanti et al. 2022: p·(1 + (p − 1)/(p·v)) = 4 × (1 + 3/8) = 5.5.
        CHECK(activation_memory_multiplier(Interleaved{}, {4, 8, 2}) == exactly(5.5));
        CHECK(activation_memory_multiplier(ZeroBubbleH1{}, p4m8) == exactly(4.0));
        CHECK(activation_memory_multiplier(ZeroBubbleH2{}, p4m8) == exactly(7.0));
        CHECK(activation_memory_multiplier(DualPipe{}, {8, 16}) == exactly(9.0));
        CHECK(activation_memory_multiplier(DualPipeV{}, {4, 16}) == exactly(4.5));  // (2·4 + 1) stages / 2
        CHECK(parameter_memory_multiplier(DualPipe{}) == exactly(2.0));
        CHECK(parameter_memory_multiplier(DualPipeV{}) == exactly(1.0));
        CHECK(parameter_memory_multiplier(OneFOneB{}) == exactly(1.0));
    }

    TEST_CASE("schedules by name") {
        CHECK(std::holds_alternative<ZeroBubbleH1>(schedule_from_name("zb-h1")));
        CHECK(std::holds_alternative<Interleaved>(schedule_from_name("interleaved")));
        CHECK(std::holds_alternative<DualPipeV>(schedule_from_name("dualpipev")));
        CHECK_THROWS_WITH_AS((void)schedule_from_name("pipedream"),
                             "schedule = \"pipedream\": must be gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipe or "
                             "dualpipev",
                             napkin::invalid_argument);
    }

    TEST_CASE("the schedule registry: row i is AnySchedule's alternative i, and every name parses, prints and "
              "dispatches to its own type") {
        CHECK(schedule_registry.size() == std::variant_size_v<AnySchedule>);
        for (const ScheduleTraits& row : schedule_registry) {
            CAPTURE(row.name);
            CHECK(parse_schedule_kind(row.name) == row.kind);
            CHECK(to_string(row.kind) == row.name);
            CHECK(visit_schedule(row.kind, [](auto s) { return decltype(s)::name; }) == row.name);
            CHECK(std::visit([](auto s) { return decltype(s)::name; }, schedule_from_name(row.name)) == row.name);
            if (row.dominated_by) CHECK(!traits_of(*row.dominated_by).dominated_by);  // a twin is canonical
        }
        CHECK(parse_schedule_kind("auto") == ScheduleKind::automatic);
        CHECK(to_string(ScheduleKind::automatic) == "auto");
        CHECK(schedule_names() == "gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipe or dualpipev");
    }

    TEST_CASE("impossible inputs name the argument and its value") {
        CHECK_THROWS_WITH_AS((void)bubble_time(OneFOneB{}, {4, 0}, fbw),
                             "PipelineShape.microbatches = 0: must be at least 1", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_time(OneFOneB{}, {0, 8}, fbw), "PipelineShape.stages = 0: must be at least 1",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_time(Interleaved{}, {4, 8, 0}, fbw),
                             "PipelineShape.chunks = 0: must be at least 1", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_time(Interleaved{}, {4, 6, 2}, fbw),
                             "PipelineShape.microbatches = 6: must be a multiple of PipelineShape.stages = 4 in "
                             "Megatron's interleaved schedule",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_time(OneFOneB{}, {4, 8, 2}, fbw),
                             "PipelineShape.chunks = 2: must be 1 for this schedule (interleaved chunks are the "
                             "Interleaved schedule)",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_time(OneFOneB{}, p4m8, {milliseconds(-1), milliseconds(2)}),
                             "StageTimes.forward (s) = -0.001: must not be negative", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_time(OneFOneB{}, p4m8, {milliseconds(1), milliseconds(-2)}),
                             "StageTimes.backward (s) = -0.002: must not be negative", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_time(ZeroBubbleH1{}, p4m8, {milliseconds(1), milliseconds(1), milliseconds(2)}),
                             "StageTimes.weight_grad (s) = 0.002: must not exceed StageTimes.backward, of which it is "
                             "a part",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_time(DualPipe{}, {5, 10}, fbw),
                             "PipelineShape.stages = 5: must be even for DualPipe", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)microbatches_in_flight(OneFOneB{}, p4m8, 4),
                             "rank = 4: must be in [0, PipelineShape.stages)", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)bubble_share_of_step(OneFOneB{}, p4m8, {Seconds{}, Seconds{}}),
                             "StageTimes.forward + StageTimes.backward (s) = 0: must be positive",
                             napkin::invalid_argument);
    }
}
