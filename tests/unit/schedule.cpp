// napkin/schedule.hpp: the simulator on cases timed by hand, against every
// closed form of pipeline.hpp, and against the reference schedule
// moe-training-step-1024-gpus.json (Megatron interleaved 1F1B, p = 4, v = 2, m = 8).
#include <napkin/io/reference_schedule.hpp>
#include <napkin/schedule.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace napkin;

namespace {
doctest::Approx near(double x) { return doctest::Approx(x).epsilon(1e-9).scale(1.0); }
double s(Seconds t) { return in(t, units::s); }

struct Pattern {
    Pass pass;
    long long microbatch, chunk;
    bool operator==(const Pattern&) const = default;
};
std::vector<Pattern> pattern(std::span<const Operation> ops) {
    std::vector<Pattern> out;
    for (const Operation& op : ops) out.push_back({op.pass, op.microbatch, op.chunk});
    return out;
}

const std::string reference_path = std::string(NAPKIN_REFERENCE_DIR) + "/moe-training-step-1024-gpus.json";
}  // namespace

TEST_SUITE("schedule") {
    TEST_CASE("1F1B, p = 2, m = 2, F = 1 s, B = 2 s by hand: step 9 s = (m + p − 1)(F + B), idle 6/18") {
        // stage 0: F0 [0,1] F1 [1,2]            B0 [4,6]        B1 [7,9]
        // stage 1:        F0 [1,2] B0 [2,4] F1 [4,5] B1 [5,7]
        const Timeline t = simulate(OneFOneB{}, {2, 2}, StageTimes{seconds(1), seconds(2)});
        CHECK(pattern(t.stage(0)) == std::vector<Pattern>{{Pass::forward, 0, 0},
                                                          {Pass::forward, 1, 0},
                                                          {Pass::backward, 0, 0},
                                                          {Pass::backward, 1, 0}});
        CHECK(pattern(t.stage(1)) == std::vector<Pattern>{{Pass::forward, 0, 0},
                                                          {Pass::backward, 0, 0},
                                                          {Pass::forward, 1, 0},
                                                          {Pass::backward, 1, 0}});
        const std::vector<double> starts0{0, 1, 4, 7}, starts1{1, 2, 4, 5};
        for (std::size_t i = 0; i < 4; ++i) {
            CHECK(s(t.stage(0)[i].start) == starts0[i]);
            CHECK(s(t.stage(1)[i].start) == starts1[i]);
        }
        CHECK(s(t.step_time()) == 9.0);
        CHECK(s(t.idle_time(0)) == 3.0);
        CHECK(s(t.idle_time(1)) == 3.0);
        CHECK(t.idle_fraction() == near(6.0 / 18.0));
    }

    TEST_CASE("1F1B, p = 2, m = 2 with 0.5 s sends: every hand-off between ranks costs 0.5 s, step 10 s") {
        // stage 1: F0 [1.5,2.5] B0 [2.5,4.5] F1 [4.5,5.5] B1 [5.5,7.5]; stage 0: B0 [5,7], B1 [8,10].
        const Timeline t = simulate(OneFOneB{}, {2, 2}, StageTimes{seconds(1), seconds(2)}, seconds(0.5));
        CHECK(s(t.stage(1)[0].start) == 1.5);
        CHECK(s(t.stage(0)[2].start) == 5.0);
        CHECK(s(t.stage(1)[2].start) == 4.5);
        CHECK(s(t.stage(0)[3].start) == 8.0);
        CHECK(s(t.step_time()) == 10.0);
    }

    TEST_CASE("uneven stages and micro-batches: GPipe p = 2 with stage 1 twice as slow, step 15 s by hand") {
        // stage 0 (F 1, B 2): F0 [0,1] F1 [1,2] B0 [9,11] B1 [13,15]
        // stage 1 (F 2, B 4): F0 [1,3] F1 [3,5] B0 [5,9] B1 [9,13]
        const std::vector<StageTimes> stages{{seconds(1), seconds(2)}, {seconds(2), seconds(4)}};
        const Timeline t = simulate(GPipe{}, {2, 2}, ScheduleTimes::per_stage({2, 2}, stages));
        CHECK(s(t.step_time()) == 15.0);
        CHECK(s(t.stage(0)[2].start) == 9.0);
        CHECK(s(t.idle_time(0)) == 9.0);   // 15 − 6
        CHECK(s(t.idle_time(1)) == 3.0);   // 15 − 12
        // One stage, micro-batch 1 twice as long: (1 + 2 + 1) × 3 s.
        ScheduleTimes scaled = ScheduleTimes::uniform({1, 3}, {seconds(1), seconds(2)});
        scaled.microbatch_factor = {1.0, 2.0, 1.0};
        CHECK(s(simulate(OneFOneB{}, {1, 3}, scaled).step_time()) == 12.0);
    }

    TEST_CASE("uniform stages, zero sends: the simulator reproduces every closed form over many p, m, v") {
        const StageTimes cases[] = {{seconds(1), seconds(2), seconds(1)},
                                    {seconds(1), seconds(2), seconds(0.5)},
                                    {seconds(3), seconds(4), seconds(1)},
                                    {seconds(2), seconds(1)}};
        int checked = 0;
        for (const StageTimes& t : cases)
            for (long long p = 1; p <= 8; ++p)
                for (long long m = 1; m <= 3 * p + 2; ++m) {
                    const PipelineShape one{p, m};
                    CAPTURE(p);
                    CAPTURE(m);
                    CAPTURE(s(t.forward));
                    const auto check_step = [&](const auto& schedule) {
                        const Timeline sim = simulate(schedule, one, t);
                        CHECK(s(sim.step_time()) == near(s(step_time(schedule, one, t))));
                        CHECK(sim.idle_fraction() == near(bubble_share_of_step(schedule, one, t)));
                        ++checked;
                    };
                    check_step(GPipe{});
                    check_step(OneFOneB{});
                    for (long long v = 1; v <= 4 && m % p == 0; ++v) {
                        const PipelineShape shape{p, m, v};
                        CAPTURE(v);
                        for (long long extra = 0; extra <= 1; ++extra) {
                            const Timeline sim = simulate(Interleaved{extra}, shape, t);
                            CHECK(s(sim.step_time()) == near(s(step_time(Interleaved{}, shape, t))));
                            CHECK(sim.idle_fraction() == near(bubble_share_of_step(Interleaved{}, shape, t)));
                            ++checked;
                        }
                    }
                    // Zero bubble: the paper's hand-made schedules assume W ≤ F and W ≤ B − W, and m ≥ p
                    // (ZB-H1) or m ≥ 2p − 1 (ZB-H2), which all these cases meet.
                    if (m >= p) {
                        const Timeline h1 = simulate(ZeroBubbleH1{}, one, t);
                        CHECK(s(h1.step_time()) == near(s(step_time(ZeroBubbleH1{}, one, t))));
                        CHECK(s(h1.largest_idle_within_span()) == near(s(bubble_time(ZeroBubbleH1{}, one, t))));
                        ++checked;
                    }
                    if (m >= 2 * p - 1) {
                        // ZB-H2's bubble is each stage's idle time within its own span; the step
                        // itself is longer by the parallelogram's lean: the last stage cannot start
                        // before (p − 1)·F, so step = m(F + B) + (p − 1)·max(F, F + B − 3W).
                        const Timeline h2 = simulate(ZeroBubbleH2{}, one, t);
                        CHECK(s(h2.largest_idle_within_span()) == near(s(bubble_time(ZeroBubbleH2{}, one, t))));
                        const Seconds lean = count(p - 1) * std::max(t.forward, t.forward + t.backward -
                                                                                    3.0 * t.weight_grad);
                        CHECK(s(h2.step_time()) == near(s(ideal_step_time(one, t) + lean)));
                        ++checked;
                    }
                }
        CHECK(checked > 1000);
    }

    TEST_CASE("orders: 1F1B warms up p − r − 1 forwards, interleaved 2(p − r − 1) + (v − 1)p, ZB-H2 2(p − r − 1)") {
        const auto leading_forwards = [](std::span<const Operation> ops) {
            return std::find_if(ops.begin(), ops.end(), [](const Operation& op) { return op.pass != Pass::forward; }) -
                   ops.begin();
        };
        const Timeline a = schedule_order_of(OneFOneB{}, {4, 8});
        // Warm-up plus the first steady-state forward precede the first backward.
        CHECK(leading_forwards(a.stage(0)) == 3 + 1);
        CHECK(leading_forwards(a.stage(3)) == 0 + 1);
        const Timeline b = schedule_order_of(Interleaved{}, {4, 8, 2});
        CHECK(leading_forwards(b.stage(0)) == 10 + 1);
        CHECK(leading_forwards(b.stage(2)) == 6 + 1);
        // Virtual micro-batches in groups of p: rank 0 runs 1-4 on chunk 0, then 1-4 on chunk 1, then 5-8 on chunk 0.
        CHECK(pattern(b.stage(0).subspan(0, 9)) == std::vector<Pattern>{{Pass::forward, 0, 0},
                                                                         {Pass::forward, 1, 0},
                                                                         {Pass::forward, 2, 0},
                                                                         {Pass::forward, 3, 0},
                                                                         {Pass::forward, 0, 1},
                                                                         {Pass::forward, 1, 1},
                                                                         {Pass::forward, 2, 1},
                                                                         {Pass::forward, 3, 1},
                                                                         {Pass::forward, 4, 0}});
        // The first backward is micro-batch 0 on the last chunk.
        CHECK(pattern(b.stage(0).subspan(11, 1)) == std::vector<Pattern>{{Pass::backward, 0, 1}});
        const Timeline c = schedule_order_of(ZeroBubbleH2{}, {4, 8});
        CHECK(leading_forwards(c.stage(0)) == 6 + 1);
        CHECK(leading_forwards(c.stage(1)) == 4 + 1);
        CHECK(c.stage(0).size() == 3 * 8);  // F, B and W of every micro-batch
    }

    TEST_CASE("reference: Megatron's interleaved order with the extra warm-up forward of MoE overlap, all 4 stages") {
        const io::ReferenceSchedule ref = io::read_reference_schedule(reference_path);
        REQUIRE(ref.shape.stages == 4);
        REQUIRE(ref.shape.microbatches == 8);
        REQUIRE(ref.shape.chunks == 2);
        const Timeline order = schedule_order_of(Interleaved{.extra_warmup = 1}, ref.shape);
        const Timeline plain = schedule_order_of(Interleaved{}, ref.shape);
        for (long long r = 0; r < 4; ++r) {
            CAPTURE(r);
            // A paired block is its forward, then its backward: the file lists them in that order.
            std::vector<Pattern> expected;
            for (const auto& block : ref.stages[static_cast<std::size_t>(r)])
                expected.push_back({block.pass, block.microbatch, block.chunk});
            CHECK(pattern(order.stage(r)) == expected);
            // Megatron's plain warm-up is one forward shorter, so its order differs.
            CHECK(pattern(plain.stage(r)) != expected);
        }
    }

    TEST_CASE("reference: with its forward time per chunk and 1.535 ms sends, the warm-up forwards start on time") {
        const io::ReferenceSchedule ref = io::read_reference_schedule(reference_path);
        ScheduleTimes times = ScheduleTimes::uniform(ref.shape, {milliseconds(30), milliseconds(60)});
        // Each chunk's forward as the reference times it (uneven: stage 1 chunk 2 holds 5 layers,
        // stage 4 chunk 2 holds 4 layers and the LM head); backward times do not matter before the first one.
        for (long long r = 0; r < 4; ++r)
            for (const auto& block : ref.stages[static_cast<std::size_t>(r)])
                if (block.pass == Pass::forward && !block.paired)
                    times.at(r, block.chunk).forward = block.end - block.start;
        // The reference's pipeline sends: stage 1 → 2, 1.535 ms each.
        times.send = ref.sends.front().end - ref.sends.front().start;
        CHECK(in(times.send, units::ms) == doctest::Approx(1.535).epsilon(1e-9));
        const Timeline sim = simulate(Interleaved{.extra_warmup = 1}, ref.shape, times);
        // The reference starts stage 1 at 13.866 ms; everything else follows from the schedule.
        const Seconds offset = ref.stages[0].front().start;
        int compared = 0;
        for (long long r = 0; r < 4; ++r) {
            const auto& blocks = ref.stages[static_cast<std::size_t>(r)];
            for (std::size_t i = 0; i < blocks.size() && !blocks[i].paired; ++i) {
                CAPTURE(r);
                CAPTURE(i);
                // Reference times are rounded to 1 µs.
                CHECK(std::abs(in(sim.stage(r)[i].start + offset - blocks[i].start, units::us)) < 2.0);
                ++compared;
            }
        }
        CHECK(compared == 11 + 9 + 7 + 5);  // Megatron's warm-up + 1 on each stage, 1 µs precision
    }

    TEST_CASE("p = 64, m = 512, v = 4: 262,144 passes, the step still m(F + B) + (p − 1)(F + B)/v") {
        const PipelineShape big{64, 512, 4};
        const StageTimes t{milliseconds(4), milliseconds(8)};
        const Timeline sim = simulate(Interleaved{}, big, t);
        CHECK(sim.operations().size() == 262'144);  // 2 · m · v · p
        CHECK(in(sim.step_time(), units::ms) == doctest::Approx(in(step_time(Interleaved{}, big, t), units::ms)).epsilon(1e-9));
    }

    TEST_CASE("bad simulator input names the argument") {
        ScheduleTimes t = ScheduleTimes::uniform({2, 2}, {seconds(1), seconds(2)});
        t.send = seconds(-1);
        CHECK_THROWS_WITH_AS((void)simulate(OneFOneB{}, {2, 2}, t), "ScheduleTimes.send (s) = -1: must not be negative",
                             napkin::invalid_argument);
        t.send = Seconds{};
        t.per_chunk.pop_back();
        CHECK_THROWS_WITH_AS((void)simulate(OneFOneB{}, {2, 2}, t),
                             "ScheduleTimes.per_chunk.size() = 1: must be PipelineShape.stages × PipelineShape.chunks",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)simulate(OneFOneB{}, {2, 2}, StageTimes{seconds(1), seconds(-2)}),
                             "StageTimes.backward (s) = -2: must not be negative", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)simulate(Interleaved{}, {4, 6, 2}, StageTimes{seconds(1), seconds(2)}),
                             "PipelineShape.microbatches = 6: must be a multiple of PipelineShape.stages = 4 in "
                             "Megatron's interleaved schedule",
                             napkin::invalid_argument);
    }
}

#include <napkin/io/timeline_svg.hpp>

TEST_SUITE("io/timeline_svg") {
    TEST_CASE("one row per stage, a block per pass, idle hatched, the step in the title") {
        // GPipe p = 2, m = 2, F = 1 s, B = 2 s: 8 passes, step (m + p − 1)(F + B) = 9 s, idle 6/18.
        const Timeline t = simulate(GPipe{}, {2, 2}, StageTimes{seconds(1), seconds(2)});
        const std::string svg = io::timeline_svg(t, {.title = "GPipe"}).str();
        CHECK(svg.find("GPipe — step 9.00 s, idle 33.3%") != std::string::npos);
        CHECK(svg.find(">stage 1<") != std::string::npos);
        CHECK(svg.find(">stage 2<") != std::string::npos);
        CHECK(svg.find(">stage 3<") == std::string::npos);
        CHECK(svg.find("url(#hatch") != std::string::npos);
        // Blocks are outlined in white (weight-gradient ones in ink): one per pass.
        std::size_t blocks = 0;
        for (std::size_t at = svg.find("stroke=\"white\" stroke-width=\"0.5\""); at != std::string::npos;
             at = svg.find("stroke=\"white\" stroke-width=\"0.5\"", at + 1))
            ++blocks;
        CHECK(blocks == 8);
    }
}
