// napkin/schedule.hpp: the simulator on cases timed by hand, against every
// closed form of pipeline.hpp, and against the reference schedule
// moe-training-step-1024-gpus.json (Megatron interleaved 1F1B, p = 4, v = 2, m = 8).
#include <napkin/io/reference_schedule.hpp>
#include <napkin/io/schedule_times.hpp>
#include <napkin/schedule.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
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

const std::string reference_path = std::string(NAPKIN_TEST_DATA_DIR) + "/moe-training-step-1024-gpus.json";
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
                        CHECK(s(sim.overlapped_step_time()) == near(s(sim.step_time())));  // rank 0 spans the step
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
                        // The closed form's step is the longest rank span: the time per step when steps
                        // overlap (post-validation, Qi et al. 2023 Sec. 4).
                        CHECK(s(h2.overlapped_step_time()) == near(s(step_time(ZeroBubbleH2{}, one, t))));
                        const Seconds lean = count(p - 1) * std::max(t.forward, t.forward + t.backward -
                                                                                    3.0 * t.weight_grad);
                        CHECK(s(h2.step_time()) == near(s(ideal_step_time(one, t) + lean)));
                        ++checked;
                    }
                }
        CHECK(checked > 1000);
    }

    // DualPipe and DualPipeV against the README's (PP/2 − 1)(F&B + B − 3W) and
    // (p − 1)(F&B + B − 3W)/2 (pipeline.hpp). Derivation of the range in which the
    // order really produces them: the README's Fig. draws F, the input-gradient
    // part B − W and W as blocks of one width, and F&B between B and F + B. Under
    // B − W = F and W ≤ F, every wait in the order is one of those blocks and the
    // ranks' waits add up to the closed form; the F&B pair takes the place of an F
    // and a B, so a shorter pair shortens the middle ranks' busy time (they run the
    // most pairs: DualPipe m − p − 1, DualPipeV 2(m − p) − 1, counted in the order
    // below) and leaves their idle time unchanged. Outside that range the published
    // form is not what the order produces; see the next test case.
    TEST_CASE("DualPipe and DualPipeV, B − W = F, W ≤ F, B ≤ F&B ≤ F + B: the idle time is the README's closed form") {
        // (F, B, W): the input-gradient part B − W equals F in each.
        const StageTimes cases[] = {{seconds(1), seconds(2), seconds(1)},
                                    {seconds(2), seconds(3), seconds(1)},
                                    {seconds(3), seconds(4), seconds(1)},
                                    {seconds(2), seconds(2.5), seconds(0.5)},
                                    {seconds(1), seconds(1)}};
        int checked = 0;
        for (const StageTimes& t : cases) {
            const Seconds none = t.forward + t.backward;
            const Seconds overlaps[] = {none, t.backward, (t.backward + none) / 2.0};
            for (const Seconds& fb : overlaps)
                for (long long p = 1; p <= 10; ++p)
                    for (long long m = 2 * p; m <= 2 * p + 9; ++m) {
                        CAPTURE(p);
                        CAPTURE(m);
                        CAPTURE(s(t.forward));
                        CAPTURE(s(t.backward));
                        CAPTURE(s(fb));
                        const auto check = [&](const auto& schedule, long long middle, long long pairs, double pair_share) {
                            const PipelineShape shape{p, m};
                            const Timeline sim = simulate(schedule, shape, t);
                            const Seconds bubble = bubble_time(schedule, shape, t);
                            Seconds most_idle{};
                            for (long long r = 0; r < p; ++r) most_idle = std::max(most_idle, sim.idle_time(r));
                            CHECK(s(most_idle) == near(s(bubble)));
                            CHECK(s(sim.idle_time(middle)) == near(s(bubble)));
                            // step = the middle rank's busy time + its idle time.
                            const Seconds saved = count(pairs) * pair_share * (none - fb);
                            CHECK(s(sim.step_time()) == near(s(ideal_step_time(shape, t) - saved + bubble)));
                            if (fb == none) {  // no overlap: exactly the closed-form step and share
                                CHECK(s(sim.step_time()) == near(s(step_time(schedule, shape, t))));
                                CHECK(sim.idle_fraction() == near(bubble_share_of_step(schedule, shape, t)));
                            }
                            ++checked;
                        };
                        if (p % 2 == 0 && m % 2 == 0) check(DualPipe{fb}, p / 2, m - p - 1, 1.0);
                        // DualPipeV's pairs are of half-size chunks: each saves (F + B − F&B)/2.
                        check(DualPipeV{fb}, p - 1, 2 * (m - p) - 1, 0.5);
                    }
        }
        CHECK(checked > 1000);
    }

    TEST_CASE("DualPipe outside the README's range: p = 4, m = 8, F = B = 2 s, W = 1 s idles 4 s, not 3 s") {
        // Closed form (4/2 − 1)(F&B + B − 3W) = 4 + 2 − 3 = 3 s with F&B = F + B = 4 s;
        // here B − W = 1 s ≠ F. Rank r holds stage r of the pipeline fed at rank 0
        // (micro-batches 0-3) and stage 3 − r of the one fed at rank 3 (4-7).
        // By hand, following dualpipe.py's steps (Bi: input-gradient part, 1 s):
        //   forwards: r0 F0 F1 F2 [0,6], r3 F4 F5 F6 [0,6]; r1 F0 [2,4] F4 [4,6] F1 [6,8]
        //   F5 [8,10] F2 [10,12]; r2 F4 [2,4] F0 [4,6] F5 [6,8] F1 [8,10] F6 [10,12];
        //   r0 F4 [6,8] Bi4 [8,9] W4 [9,10] F5 [10,12]; r3 F0 [6,8] Bi0 [8,9] W0 [9,10] F1 [10,12].
        //   r1 B4 and r2 B0 wait for their ranks: [12,14]. Pairs: r0 F3+B5 [12,16],
        //   r3 F7+B1 [12,16]; r1 F6+B0 and r2 F2+B4 need those B's: [14,18].
        //   r0 F6+B0 needs r1's pair: [18,22] — 2 s idle; B6 [22,24]; r1 F3+B5 [18,22],
        //   r2 F7+B1 [18,22], r1 F7+B1 [22,26], so r0 F7+B1 [26,30] — 2 s more.
        //   Cool-down: r0 B7 [30,32] Bi2 [32,33] W2 [33,34] Bi3 [34,35] W3 [35,36].
        // Step 36 s = 8 × 4 s of work + 4 s idle on every rank (r0: two 2 s waits, each
        // set by a full 2 s backward on the ranks before it), where the README's count
        // gives F&B + B − 3W = 3 s.
        const StageTimes t{seconds(2), seconds(2), seconds(1)};
        const Timeline sim = simulate(DualPipe{}, {4, 8}, t);
        CHECK(s(bubble_time(DualPipe{}, {4, 8}, t)) == 3.0);
        CHECK(s(sim.step_time()) == 36.0);
        for (long long r = 0; r < 4; ++r) CHECK(s(sim.idle_time(r)) == 4.0);
        const auto r0 = sim.stage(0);
        CHECK(pattern(r0.subspan(7, 4)) == std::vector<Pattern>{{Pass::forward, 3, 0},
                                                                 {Pass::backward, 5, 1},
                                                                 {Pass::forward, 6, 1},
                                                                 {Pass::backward, 0, 0}});
        CHECK(s(r0[7].start) == 12.0);
        CHECK(s(r0[7].end) == 16.0);
        CHECK(s(r0[9].start) == 18.0);
        CHECK(s(r0[12].start) == 26.0);
    }

    TEST_CASE("DualPipe's order, p = 4, m = 8, rank 0: dualpipe.py's eight steps by hand") {
        // n = 2 ranks per half, k = 0, 4 micro-batches each way (0-3 from rank 0, 4-7 from rank 3).
        // 1: 2(n − k − 1) = 2 F0; 2: k + 1 = 1 × (F0, F1); 3: 1 × (B1 zero-bubble, W, F1);
        // 4: M − 2n + k + 1 = 1 × (F0&B1, F1&B0); 5: 1 × (B1, F1&B0); 6: B1, B0 (its second
        // half zero-bubble); 7: W, B0 zero-bubble; 8: W.
        const Timeline order = schedule_order_of(DualPipe{}, {4, 8});
        const std::vector<Pattern> expected{
            {Pass::forward, 0, 0},     {Pass::forward, 1, 0},     {Pass::forward, 2, 0},  {Pass::forward, 4, 1},
            {Pass::backward, 4, 1},    {Pass::weight_grad, 4, 1}, {Pass::forward, 5, 1},  {Pass::forward, 3, 0},
            {Pass::backward, 5, 1},    {Pass::forward, 6, 1},     {Pass::backward, 0, 0}, {Pass::backward, 6, 1},
            {Pass::forward, 7, 1},     {Pass::backward, 1, 0},    {Pass::backward, 7, 1}, {Pass::backward, 2, 0},
            {Pass::weight_grad, 2, 0}, {Pass::backward, 3, 0},    {Pass::weight_grad, 3, 0}};
        CHECK(pattern(order.stage(0)) == expected);
        const auto r0 = order.stage(0);
        // Overlapped pairs: F3&B5, F6&B0, F7&B1; zero-bubble backwards: B4, B2, B3.
        for (std::size_t i : {7u, 8u, 9u, 10u, 12u, 13u}) CHECK(r0[i].overlapped);
        for (std::size_t i : {4u, 15u, 17u}) CHECK(r0[i].weight_grad_apart);
        CHECK_FALSE(r0[11].weight_grad_apart);  // B6: a full backward
        CHECK_FALSE(r0[14].weight_grad_apart);  // B7: the first half of step 6
        // Rank 3 mirrors rank 0: it starts with the micro-batches fed at its end.
        CHECK(pattern(order.stage(3).subspan(0, 4)) == std::vector<Pattern>{{Pass::forward, 4, 1},
                                                                             {Pass::forward, 5, 1},
                                                                             {Pass::forward, 6, 1},
                                                                             {Pass::forward, 0, 0}});
        // Middle rank 1 (k = n − 1) runs its first F0 and B1 of step 4 apart: m − p − 1 = 3 pairs.
        const auto r1 = order.stage(1);
        CHECK(std::count_if(r1.begin(), r1.end(), [](const Operation& op) {
                  return op.overlapped && op.pass == Pass::forward;
              }) == 3);
        CHECK(r0.size() == 2 * 8 + 3);  // F and B of 8 micro-batches, W of the p − k − 1 = 3 zero-bubble ones
    }

    TEST_CASE("DualPipeV's order, p = 2, m = 4, last rank: dualpipev.py by hand") {
        // r = 1: no step 1; 2: 2 × (F0, F1); 4: m − 2p + r + 1 = 2: first F0 and B1 apart
        // (the last rank), then F1&B0; F0&B1, F1&B0; 6: B1 B0, then (r odd) B1 B0 zero-bubble; 8: W W.
        const Timeline order = schedule_order_of(DualPipeV{}, {2, 4});
        const std::vector<Pattern> expected{
            {Pass::forward, 0, 0},  {Pass::forward, 0, 1},     {Pass::forward, 1, 0},    {Pass::forward, 1, 1},
            {Pass::forward, 2, 0},  {Pass::backward, 0, 1},    {Pass::forward, 2, 1},    {Pass::backward, 0, 0},
            {Pass::forward, 3, 0},  {Pass::backward, 1, 1},    {Pass::forward, 3, 1},    {Pass::backward, 1, 0},
            {Pass::backward, 2, 1}, {Pass::backward, 2, 0},    {Pass::backward, 3, 1},   {Pass::backward, 3, 0},
            {Pass::weight_grad, 3, 1}, {Pass::weight_grad, 3, 0}};
        CHECK(pattern(order.stage(1)) == expected);
        CHECK_FALSE(order.stage(1)[4].overlapped);
        CHECK(order.stage(1)[6].overlapped);
        // DualPipeV p = 2, m = 4, F = 1, B = 2, W = 1 s (chunks half of it), no overlap:
        // idle (p − 1)(F + B + B − 3W)/2 = 1 s on the last rank; step 4 × 3 + 1 = 13 s.
        const Timeline sim = simulate(DualPipeV{}, {2, 4}, StageTimes{seconds(1), seconds(2), seconds(1)});
        CHECK(s(sim.step_time()) == 13.0);
        CHECK(s(sim.idle_time(1)) == 1.0);
    }

    TEST_CASE("DualPipe with sends and uneven stages: a hand-off costs its send, stage s times both its ranks") {
        // p = 2, m = 4, F = 1, B = 2, W = 1 s: rank 0 F0 [0,1] F2 [1,2]... with a 0.5 s send every
        // cross-rank input arrives 0.5 s later; the step can only grow.
        const StageTimes t{seconds(1), seconds(2), seconds(1)};
        const Timeline plain = simulate(DualPipe{}, {2, 4}, t);
        const Timeline sent = simulate(DualPipe{}, {2, 4}, t, seconds(0.5));
        CHECK(s(plain.step_time()) == 12.0);  // (2/2 − 1)(…) = 0: 4 × 3 s
        CHECK(s(sent.step_time()) > 12.0);
        // Rank 1's first forward is micro-batch 2 (fed at its end), no input: it starts at 0 either way.
        CHECK(s(sent.stage(1)[0].start) == 0.0);
        // Rank 1's forward of micro-batch 0 waits for rank 0's (ends 1 s) plus the send.
        const auto r1 = sent.stage(1);
        const auto f0 = std::find_if(r1.begin(), r1.end(), [](const Operation& op) {
            return op.pass == Pass::forward && op.microbatch == 0;
        });
        REQUIRE(f0 != r1.end());
        CHECK(s(f0->start) == 1.5);
        // Stage 1 twice as slow: rank 0 runs it for micro-batches fed at rank 1 (chunk 1).
        ScheduleTimes uneven = ScheduleTimes::per_stage({2, 4}, std::vector<StageTimes>{t, {seconds(2), seconds(4), seconds(2)}});
        const Timeline u = simulate(DualPipe{}, {2, 4}, uneven);
        for (const Operation& op : u.stage(0))
            if (op.pass == Pass::forward && !op.overlapped) CHECK(s(op.end - op.start) == (op.chunk == 0 ? 1.0 : 2.0));
    }

    TEST_CASE("DualPipe and DualPipeV inputs the simulator cannot run name the argument") {
        const StageTimes t{seconds(1), seconds(2), seconds(1)};
        CHECK_THROWS_WITH_AS((void)simulate(DualPipe{}, {4, 6}, t),
                             "PipelineShape.microbatches = 6: must be even and at least 2 × PipelineShape.stages = 8 "
                             "to simulate DualPipe (half enter at each end)",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)simulate(DualPipe{}, {4, 9}, t),
                             "PipelineShape.microbatches = 9: must be even and at least 2 × PipelineShape.stages = 8 "
                             "to simulate DualPipe (half enter at each end)",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)simulate(DualPipe{}, {3, 6}, t), "PipelineShape.stages = 3: must be even for DualPipe",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)simulate(DualPipeV{}, {4, 7}, t),
                             "PipelineShape.microbatches = 7: must be at least 2 × PipelineShape.stages = 8 to "
                             "simulate DualPipeV",
                             napkin::invalid_argument);
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

    TEST_CASE("paired interleaved, p = 2, v = 1, m = 2, F = 1, B = 2, all-to-all F 0.5, B 0.5, half hidden: by hand") {
        // Interleaved{.extra_warmup = 1, .paired = true} with v = 1 is 1F1B with one more warm-up forward:
        // rank 0 warm-up min(p − r − 1 + 1, m) = 2 forwards, then its two backwards unpaired;
        // rank 1 warm-up 1: F0, then the pair (F1, B0), then B1.
        // A pair takes F + B − 0.5 × (0.5 + 0.5) = 2.5 s.
        // rank 0: F0 [0,1] F1 [1,2]                              B0 [4.5,6.5] B1 [8.5,10.5]
        // rank 1:          F0 [1,2] (F1 | B0) [2,4.5] B1 [4.5,6.5]... B1 needs its forward F1: in the pair, done at 4.5
        ScheduleTimes t = ScheduleTimes::uniform({2, 2}, {seconds(1), seconds(2)});
        t.all_to_all.assign(2, {seconds(0.5), seconds(0.5)});
        t.pair_hidden = 0.5;
        const Timeline sim = simulate(Interleaved{.extra_warmup = 1, .paired = true}, {2, 2}, t);
        REQUIRE(sim.stage(1).size() == 4);
        CHECK(sim.stage(1)[1].overlapped);
        CHECK(sim.stage(1)[2].overlapped);
        CHECK_FALSE(sim.stage(1)[0].overlapped);
        CHECK(s(sim.stage(1)[1].start) == near(2.0));
        CHECK(s(sim.stage(1)[1].end) == near(4.5));
        CHECK(s(sim.stage(1)[2].end) == near(4.5));
        CHECK(s(sim.stage(1)[3].end) == near(6.5));
        CHECK(s(sim.stage(0)[2].start) == near(4.5));  // B0 arrives from the pair
        CHECK(s(sim.stage(0)[3].start) == near(6.5));  // B1 after rank 1's B1
        CHECK(s(sim.step_time()) == near(8.5));
        // Busy: rank 0 2 F + 2 B = 6 s, rank 1 F + pair + B = 1 + 2.5 + 2 = 5.5 s; idle (2.5 + 3) / (2 × 8.5).
        CHECK(sim.idle_fraction() == near(5.5 / 17.0));
        // Losses: micro-batch 0's forward on the last stage ends at 2 s, micro-batch 1's in the pair at 4.5 s.
        REQUIRE(sim.loss_times().size() == 2);
        CHECK(s(sim.loss_times()[0]) == near(2.0));
        CHECK(s(sim.loss_times()[1]) == near(4.5));
        // Without the all-to-all, a pair takes F + B.
        t.pair_hidden = 0.0;
        CHECK(s(simulate(Interleaved{.extra_warmup = 1, .paired = true}, {2, 2}, t).stage(1)[1].end) == near(5.0));
    }

    TEST_CASE("head and tail by hand: all-gather from 0, reduce-scatters after each chunk's last backward, optimizer") {
        // 1F1B p = 2, m = 1, F = 1, B = 2: rank 0 F [0.5, 1.5] (first pass after 0.5 s), rank 1 F [1.5, 2.5]
        // B [2.5, 4.5], rank 0 B [4.5, 6.5]. Reduce-scatters of 1 s: rank 1 [4.5, 5.5], rank 0 [6.5, 7.5].
        // Optimizer after the last of them + 0.25 s: [7.75, 8.75]; the step 8.75 s.
        ScheduleTimes t = ScheduleTimes::uniform({2, 1}, {seconds(1), seconds(2)});
        t.ends.param_all_gather = {seconds(2), seconds(2)};
        t.ends.first_pass_after = {seconds(0.5), Seconds{}};
        t.ends.grad_reduce_scatter = {seconds(1), seconds(1)};
        t.ends.before_optimizer = seconds(0.25);
        t.ends.optimizer = seconds(1);
        const Timeline sim = simulate(OneFOneB{}, {2, 1}, t);
        CHECK(s(sim.stage(0)[0].start) == near(0.5));
        CHECK(s(sim.step_time()) == near(8.75));
        // Busy is compute only: rank 0 3 s, rank 1 3 s; idle (5.75 + 5.75) / (2 × 8.75).
        CHECK(sim.idle_fraction() == near(11.5 / 17.5));
        int reduce_scatters = 0;
        for (const SyncSpan& span : sim.syncs()) {
            if (span.kind != SyncKind::grad_reduce_scatter) continue;
            ++reduce_scatters;
            CHECK(s(span.start) == near(span.rank == 0 ? 6.5 : 4.5));
            CHECK(s(span.end) == near(span.rank == 0 ? 7.5 : 5.5));
        }
        CHECK(reduce_scatters == 2);
        // Two chunks' reduce-scatters on one rank run one at a time: p = 1, v = 2, m = 1, F = B = 1 (0.5 per chunk):
        // chunk 1's last backward ends at 1.5 s, chunk 0's at 2 s; 1-s reduce-scatters [1.5, 2.5] then [2.5, 3.5].
        ScheduleTimes one = ScheduleTimes::uniform({1, 1, 2}, {seconds(1), seconds(1)});
        one.ends.grad_reduce_scatter = {seconds(1), seconds(1)};
        const Timeline solo = simulate(Interleaved{}, {1, 1, 2}, one);
        CHECK(s(solo.step_time()) == near(3.5));
    }

    TEST_CASE("the simulator in two parts: its order is schedule_order_of's, for every schedule") {
        const PipelineShape shape{4, 8, 2};
        const ScheduleTimes t = ScheduleTimes::uniform(shape, {milliseconds(2), milliseconds(4), milliseconds(2)});
        CHECK(pattern(simulate(Interleaved{.extra_warmup = 1, .paired = true}, shape, t).operations()) ==
              pattern(schedule_order_of(Interleaved{.extra_warmup = 1, .paired = true}, shape).operations()));
        const PipelineShape flat{4, 8};
        const ScheduleTimes u = ScheduleTimes::uniform(flat, {milliseconds(2), milliseconds(4), milliseconds(2)});
        CHECK(pattern(simulate(ZeroBubbleH2{}, flat, u).operations()) ==
              pattern(schedule_order_of(ZeroBubbleH2{}, flat).operations()));
        CHECK(pattern(simulate(DualPipe{}, flat, u).operations()) ==
              pattern(schedule_order_of(DualPipe{}, flat).operations()));
    }

    TEST_CASE("reference: from its own op and send times the step, idle fraction, every pass and loss time agree") {
        const io::ReferenceSchedule ref = io::read_reference_schedule(reference_path);
        const ScheduleTimes times = io::reference_schedule_times(ref);
        // The least-squares fit finds the share of a pair's all-to-all hidden: 0.38 to the file's 1-µs rounding.
        CHECK(times.pair_hidden == doctest::Approx(0.38).epsilon(1e-4));
        CHECK(in(times.send, units::ms) == doctest::Approx(1.535).epsilon(1e-9));
        const Timeline sim = simulate(io::reference_schedule_kind(ref), ref.shape, times);
        CHECK(s(sim.step_time()) == doctest::Approx(1.797498).epsilon(1e-4));
        CHECK(sim.idle_fraction() == doctest::Approx(0.265493).epsilon(1e-4));
        CHECK(s(ref.step) == 1.797498);
        CHECK(ref.idle_fraction == 0.265493);
        for (long long r = 0; r < 4; ++r) {
            const auto ops = sim.stage(r);
            const auto& blocks = ref.stages[static_cast<std::size_t>(r)];
            REQUIRE(ops.size() == blocks.size());
            for (std::size_t i = 0; i < ops.size(); ++i) {
                CAPTURE(r);
                CAPTURE(i);
                CHECK(ops[i].pass == blocks[i].pass);
                CHECK(ops[i].microbatch == blocks[i].microbatch);
                CHECK(ops[i].chunk == blocks[i].chunk);
                CHECK(ops[i].overlapped == blocks[i].paired);
                CHECK(std::abs(in(ops[i].start - blocks[i].start, units::us)) <= 1.0);
                CHECK(std::abs(in(ops[i].end - blocks[i].end, units::us)) <= 1.0);
            }
        }
        REQUIRE(ref.loss_times.size() == 8);
        REQUIRE(sim.loss_times().size() == 8);
        for (std::size_t j = 0; j < 8; ++j) CHECK(std::abs(in(sim.loss_times()[j] - ref.loss_times[j], units::us)) <= 1.0);
        // The head and tail: each stage's all-gather, reduce-scatters and optimizer step as the file places them.
        int compared = 0;
        for (const SyncSpan& span : sim.syncs())
            for (const io::ReferenceSync& r : ref.syncs[static_cast<std::size_t>(span.rank)])
                if (r.kind == span.kind && r.chunk == span.chunk) {
                    CAPTURE(span.rank);
                    CHECK(std::abs(in(span.start - r.start, units::us)) <= 1.0);
                    CHECK(std::abs(in(span.end - r.end, units::us)) <= 1.0);
                    ++compared;
                }
        CHECK(compared == 4 * (1 + 2 + 1));
    }

    TEST_CASE("reference: the same step from napkin's own --times format, written and read back") {
        const io::ReferenceSchedule ref = io::read_reference_schedule(reference_path);
        const ScheduleTimes times = io::reference_schedule_times(ref);
        const nlohmann::json j = io::schedule_times_json(times, {"interleaved", 1, true});
        io::TimesSchedule named;
        const ScheduleTimes back = io::parse_schedule_times(nlohmann::json::parse(j.dump()), &named);
        CHECK(named.name == std::optional<std::string>("interleaved"));
        CHECK(named.extra_warmup == 1);
        CHECK(named.paired);
        const Timeline a = simulate(io::reference_schedule_kind(ref), ref.shape, times);
        const Timeline b = simulate(Interleaved{.extra_warmup = named.extra_warmup, .paired = named.paired},
                                    back.shape, back);
        CHECK(s(b.step_time()) == near(s(a.step_time())));
        CHECK(b.idle_fraction() == near(a.idle_fraction()));
    }

    TEST_CASE("--times format: a missing or repeated chunk and a bad number are named") {
        const auto parse = [](const char* text) { return io::parse_schedule_times(nlohmann::json::parse(text)); };
        CHECK_THROWS_WITH_AS((void)parse(R"({"stages": 2, "microbatches": 2, "chunk_times": [
            {"stage": 1, "forward_s": 1, "backward_s": 2}]})"),
                             "chunk_times: stage 2 chunk = 1: is missing", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse(R"({"stages": 1, "microbatches": 2, "chunk_times": [
            {"stage": 1, "forward_s": 1, "backward_s": 2}, {"stage": 1, "forward_s": 1, "backward_s": 2}]})"),
                             "chunk_times entry for stage 1 chunk = 1: appears twice", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse(R"({"stages": 1, "microbatches": 2, "chunk_times": [
            {"stage": 1, "forward_s": -1, "backward_s": 2}]})"),
                             "forward_s = -1: must be finite and not negative", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse(R"({"stages": 1, "microbatches": 2, "chunk_times": [
            {"stage": 3, "forward_s": 1, "backward_s": 2}]})"),
                             "chunk_times.stage = 3: must lie in 1 … stages", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse(R"({"stages": 1, "microbatches": 2, "send_s": 1})"),
                             "chunk_times = \"missing\": must list every stage's chunks in a schedule-times file",
                             napkin::invalid_argument);
    }

    TEST_CASE("p = 64, m = 512, v = 4: 262,144 passes, the step still m(F + B) + (p − 1)(F + B)/v") {
        const PipelineShape big{64, 512, 4};
        const StageTimes t{milliseconds(4), milliseconds(8)};
        const Timeline sim = simulate(Interleaved{}, big, t);
        CHECK(sim.operations().size() == 262'144);  // 2 · m · v · p
        CHECK(in(sim.step_time(), units::ms) == doctest::Approx(in(step_time(Interleaved{}, big, t), units::ms)).epsilon(1e-9));
    }

    // simulate() keeps each pass's end only and works a start out again, when
    // read, by the events' rule. The events add each block's end − start to its
    // rank's busy time as it runs, in rank order; a Timeline built from the
    // passes read back adds the read-back spans in the same order. The two
    // agree to the last bit, rank by rank, only if every start read back is the
    // one the events used: checked for every schedule, with sends, uneven
    // micro-batches, a head (first passes held back) and pairs.
    TEST_CASE("the compact timeline read back: each start the events' (busy times equal bit for bit), every schedule") {
        // Consecutive ranges of a rank's passes (1, 2, 3 or 7 at a time) visit each pass once, in order: a
        // pair cut by a range's end is visited whole by it, its second pass skipped by the next range.
        const auto check_ranges = [](const Timeline& t, long long r, std::span<const Operation> ops) {
            for (const std::size_t step : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}}) {
                std::vector<Operation> ranged;
                for (std::size_t first = 0; first < ops.size(); first += step)
                    t.for_each_pass(r, first, first + step, [&](const Operation& op) { ranged.push_back(op); });
                REQUIRE(ranged.size() == ops.size());
                for (std::size_t i = 0; i < ops.size(); ++i) {
                    CHECK(pattern({&ranged[i], 1}) == pattern({&ops[i], 1}));
                    CHECK(ranged[i].start == ops[i].start);
                    CHECK(ranged[i].end == ops[i].end);
                }
            }
        };
        const auto check_read_back = [&check_ranges](const Timeline& sim) {
            const PipelineShape& shape = sim.shape();
            CHECK(sim.pass_count() == sim.operations().size());
            std::vector<std::size_t> offsets{0};
            for (long long r = 0; r < shape.stages; ++r) {
                const auto ops = sim.stage(r);
                REQUIRE(sim.pass_count(r) == ops.size());
                offsets.push_back(offsets.back() + ops.size());
                std::vector<Operation> visited;
                sim.for_each_pass(r, [&](const Operation& op) { visited.push_back(op); });
                REQUIRE(visited.size() == ops.size());
                for (std::size_t i = 0; i < ops.size(); ++i) {
                    CHECK(pattern({&visited[i], 1}) == pattern({&ops[i], 1}));
                    CHECK(visited[i].start == ops[i].start);
                    CHECK(visited[i].end == ops[i].end);
                    CHECK(visited[i].overlapped == ops[i].overlapped);
                    CHECK(visited[i].weight_grad_apart == ops[i].weight_grad_apart);
                }
                check_ranges(sim, r, ops);
            }
            const std::span<const Operation> all = sim.operations();
            const Timeline rebuilt(shape, std::vector<Operation>(all.begin(), all.end()), offsets);
            CHECK(rebuilt.step_time() == sim.step_time());
            for (long long r = 0; r < shape.stages; ++r) {
                check_ranges(rebuilt, r, sim.stage(r));
                CHECK(rebuilt.busy_time(r) == sim.busy_time(r));
                CHECK(rebuilt.idle_within_span(r) == sim.idle_within_span(r));
            }
        };
        const auto times = [](const PipelineShape& shape, bool split_w) {
            ScheduleTimes t = ScheduleTimes::uniform(
                shape, {milliseconds(1.3), milliseconds(2.9), split_w ? milliseconds(1.1) : Seconds{}},
                milliseconds(0.17));
            for (long long j = 0; j < shape.microbatches; ++j) t.microbatch_factor.push_back(0.7 + 0.1 * count(j % 5));
            for (long long r = 0; r < shape.stages; ++r) t.ends.first_pass_after.push_back(milliseconds(0.3 * count(r)));
            return t;
        };
        const PipelineShape looped{4, 8, 2}, flat{4, 8, 1};
        check_read_back(simulate(GPipe{}, flat, times(flat, false)));
        check_read_back(simulate(OneFOneB{}, flat, times(flat, false)));
        check_read_back(simulate(Interleaved{}, looped, times(looped, false)));
        check_read_back(simulate(ZeroBubbleH1{}, flat, times(flat, true)));
        check_read_back(simulate(ZeroBubbleH2{}, flat, times(flat, true)));
        check_read_back(simulate(DualPipe{milliseconds(3.7)}, flat, times(flat, true)));
        check_read_back(simulate(DualPipeV{milliseconds(3.7)}, flat, times(flat, true)));
        check_read_back(simulate(DualPipe{}, flat, times(flat, true)));
        ScheduleTimes paired = times(looped, false);
        for (const StageTimes& c : paired.per_chunk) paired.all_to_all.push_back({c.forward * 0.3, c.backward * 0.2});
        paired.pair_hidden = 0.6;
        check_read_back(simulate(Interleaved{.extra_warmup = 1, .paired = true}, looped, paired));
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

TEST_SUITE("io/timeline_svg") {
    TEST_CASE("the reference step: paired blocks in half rows, the head and tail in strips under the rows") {
        const io::ReferenceSchedule ref = io::read_reference_schedule(reference_path);
        const Timeline t = simulate(io::reference_schedule_kind(ref), ref.shape, io::reference_schedule_times(ref));
        const std::string svg = io::timeline_svg(t, {.title = "MoE step"}).str();
        CHECK(svg.find("F&amp;B overlapped") != std::string::npos);
        CHECK(svg.find(">parameter all-gather<") != std::string::npos);
        CHECK(svg.find(">gradient reduce-scatter<") != std::string::npos);
        CHECK(svg.find(">optimizer step<") != std::string::npos);
        // Each of the 4 stages: one all-gather, two reduce-scatters, the optimizer: 16 strips and 3 legend keys.
        std::size_t strips = 0;
        for (const char* colour : {"#7A9CC6", "#C69A7A", "#555555"})
            for (std::size_t at = svg.find(std::string("fill=\"") + colour); at != std::string::npos;
                 at = svg.find(std::string("fill=\"") + colour, at + 1))
                ++strips;
        CHECK(strips == 16 + 3);
    }
}

#include <napkin/io/json_number.hpp>

#include <nlohmann/json.hpp>

#include <bit>
#include <charconv>
#include <cstdint>
#include <random>

namespace {
std::string json_number(double x) {
    char text[io::json_number_room];
    return {text, io::write_json_number(text, x)};
}
// The significant digits of a number's text: no sign, point, leading or trailing zeros, exponent.
std::string significant_digits(std::string_view text) {
    std::string digits;
    for (const char c : text.substr(0, text.find('e')))
        if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits += c;
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    return digits;
}
}  // namespace

TEST_SUITE("io/json_number") {
    // nlohmann's dump(): fixed from 1e-4 to below 1e15 (format_buffer's min_exp = -4, max_exp = 15),
    // ".0" after a whole number, scientific with a signed two-digit exponent beyond; the digits the
    // shortest that read back (0.1 + 0.2 is not 0.3: the double 0.30000000000000004 is the sum).
    TEST_CASE("dump()'s layout by hand: whole numbers, fixed from 1e-4 to 1e15, scientific beyond") {
        CHECK(json_number(0.0) == "0.0");
        CHECK(json_number(-0.0) == "-0.0");
        CHECK(json_number(1.0) == "1.0");
        CHECK(json_number(12.5) == "12.5");
        CHECK(json_number(-2.25) == "-2.25");
        CHECK(json_number(0.0005) == "0.0005");
        CHECK(json_number(0.0001) == "0.0001");
        CHECK(json_number(5e-05) == "5e-05");
        CHECK(json_number(0.1 + 0.2) == "0.30000000000000004");
        CHECK(json_number(1.0 / 3) == "0.3333333333333333");
        CHECK(json_number(0.0001220703125) == "0.0001220703125");  // 2^-13: a power of two, fixed
        CHECK(json_number(0.5) == "0.5");                          // 2^-1
        CHECK(json_number(9.5367431640625e-07) == "9.5367431640625e-07");  // 2^-20
        CHECK(json_number(1e14) == "100000000000000.0");
        CHECK(json_number(999999999999999.9) == "999999999999999.9");
        CHECK(json_number(1e15) == "1e+15");
        CHECK(json_number(1.5e300) == "1.5e+300");
        CHECK(json_number(std::numeric_limits<double>::infinity()) == "null");
        CHECK(json_number(std::nan("")) == "null");
    }

    // Deterministic values: log-uniform from 1e-6 to 1e17, random bit patterns, and times summed as the
    // simulator sums them. Each text reads back to the same bits (std::from_chars), has the digits of
    // std::to_chars's shortest (Ryu), and is nlohmann's dump() text wherever Grisu2's digits are the
    // shortest too (all but a few in a thousand).
    TEST_CASE("300,000 doubles: each reads back, has the shortest digits, and is dump()'s text where dump() is shortest") {
        std::mt19937_64 random(20261202);
        std::uniform_real_distribution<double> exponent(-6.0, 17.0);
        std::vector<double> values;
        values.reserve(300'000);
        for (int i = 0; i < 100'000; ++i) values.push_back(std::pow(10.0, exponent(random)));
        while (values.size() < 200'000) {
            const double x = std::bit_cast<double>(random());
            if (std::isfinite(x)) values.push_back(x);
        }
        double t = 0;
        for (int i = 0; i < 100'000; ++i) values.push_back(t += (i % 3 != 0 ? 0.004 : 0.008) + (i % 5 != 0 ? 0 : 5e-05));
        std::size_t read_back = 0, shortest = 0, as_dump = 0, dump_shortest = 0;
        for (const double x : values) {
            const std::string text = json_number(x);
            double back = 0;
            const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), back);
            read_back += error == std::errc() && end == text.data() + text.size() &&
                         std::bit_cast<std::uint64_t>(back) == std::bit_cast<std::uint64_t>(x);
            char ryu[32];
            const std::string_view ryu_text(ryu, static_cast<std::size_t>(
                                                     std::to_chars(ryu, ryu + 32, x, std::chars_format::scientific).ptr - ryu));
            shortest += significant_digits(text) == significant_digits(ryu_text);
            const std::string dump = nlohmann::json(x).dump();
            if (significant_digits(dump) == significant_digits(ryu_text)) {
                ++dump_shortest;
                as_dump += dump == text;
            }
        }
        CHECK(read_back == values.size());
        CHECK(shortest == values.size());
        CHECK(as_dump == dump_shortest);
        CHECK(dump_shortest > values.size() * 99 / 100);
    }
}

#include <napkin/io/timeline_json.hpp>

namespace {
// The text write_timeline_json writes for `t` with `threads`, through a temporary file.
std::string timeline_json_text(const Timeline& t, unsigned threads) {
    nlohmann::json summary{{"stages", nlohmann::json::array()}};
    for (long long r = 0; r < t.shape().stages; ++r) summary["stages"].push_back({{"stage", r + 1}});
    std::FILE* file = std::tmpfile();
    REQUIRE(file != nullptr);
    io::write_timeline_json(file, summary, t, threads);
    std::string text(static_cast<std::size_t>(std::ftell(file)), '\0');
    std::rewind(file);
    REQUIRE(std::fread(text.data(), 1, text.size(), file) == text.size());
    std::fclose(file);
    return text;
}
}  // namespace

TEST_SUITE("io/timeline_json") {
    // 1F1B, p = 2, m = 1, F = 1 s, B = 2 s by hand: stage 1 F [0, 1], B [4, 6]; stage 2 F [1, 2], B [2, 4].
    // The summary as dump(2) writes it, each stage's operations one pass a line.
    TEST_CASE("1F1B p = 2, m = 1 by hand: the summary's layout, one pass a line, counts from 1") {
        const std::string expected = R"({
  "stages": [
    {
      "operations": [
        {"pass": "forward", "microbatch": 1, "chunk": 1, "start_s": 0.0, "end_s": 1.0},
        {"pass": "backward", "microbatch": 1, "chunk": 1, "start_s": 4.0, "end_s": 6.0}
      ],
      "stage": 1
    },
    {
      "operations": [
        {"pass": "forward", "microbatch": 1, "chunk": 1, "start_s": 1.0, "end_s": 2.0},
        {"pass": "backward", "microbatch": 1, "chunk": 1, "start_s": 2.0, "end_s": 4.0}
      ],
      "stage": 2
    }
  ]
}
)";
        CHECK(timeline_json_text(simulate(OneFOneB{}, {2, 1}, StageTimes{seconds(1), seconds(2)}), 1) == expected);
    }

    TEST_CASE("a rank that ran nothing has an empty array") {
        const std::vector<Operation> ops{{Pass::forward, 0, 0, seconds(0), seconds(1.5), false, false}};
        const Timeline t({2, 1}, ops, {0, 0, 1});
        const nlohmann::json j = nlohmann::json::parse(timeline_json_text(t, 1));
        CHECK(j["stages"][0]["operations"] == nlohmann::json::array());
        CHECK(j["stages"][1]["operations"][0]["end_s"] == 1.5);
    }

    // Steps of 12,000 to 49,000 passes a rank, so that ranks span several blocks of 8,192 passes and
    // DualPipeV's overlapped pairs are cut at block ends: whatever the threads, the text is the same, and
    // read back it is every pass of the timeline, each time the simulated double exactly.
    TEST_CASE("streamed on 1, 2 or 3 threads: the same text, every pass's fields and exact times") {
        ScheduleTimes interleaved = ScheduleTimes::uniform({4, 4096, 3}, {milliseconds(1.3), milliseconds(2.9)},
                                                           milliseconds(0.17));
        for (long long j = 0; j < 4096; ++j) interleaved.microbatch_factor.push_back(0.7 + 0.1 * count(j % 5));
        const Timeline timelines[] = {
            simulate(Interleaved{}, {4, 4096, 3}, interleaved),
            simulate(DualPipeV{milliseconds(3.7)}, {2, 4096}, StageTimes{milliseconds(1.1), milliseconds(2.3), milliseconds(0.9)}),
            simulate(ZeroBubbleH1{}, {3, 4096}, StageTimes{milliseconds(1), milliseconds(1.5), milliseconds(0.8)}),
        };
        // DualPipeV's first rank: its 8,192nd pass opens an overlapped pair, which the first block's end cuts.
        const Operation& cut = timelines[1].stage(0)[io::detail::passes_per_block - 1];
        CHECK((cut.overlapped && cut.pass == Pass::forward));
        for (const Timeline& t : timelines) {
            const std::string text = timeline_json_text(t, 1);
            CHECK(timeline_json_text(t, 2) == text);
            CHECK(timeline_json_text(t, 3) == text);
            const nlohmann::json j = nlohmann::json::parse(text);
            for (long long r = 0; r < t.shape().stages; ++r) {
                const auto ops = t.stage(r);
                const nlohmann::json& read = j["stages"][static_cast<std::size_t>(r)]["operations"];
                REQUIRE(read.size() == ops.size());
                CHECK(ops.size() > io::detail::passes_per_block);
                for (std::size_t i = 0; i < ops.size(); ++i) {
                    const nlohmann::json& p = read[i];
                    CHECK(p["pass"] == to_string(ops[i].pass));
                    CHECK(p["microbatch"] == ops[i].microbatch + 1);
                    CHECK(p["chunk"] == ops[i].chunk + 1);
                    CHECK(p["start_s"].get<double>() == ops[i].start.value());
                    CHECK(p["end_s"].get<double>() == ops[i].end.value());
                    CHECK(p.contains("overlapped") == ops[i].overlapped);
                }
            }
        }
    }

    TEST_CASE("a failed write is an error, not a short file") {
        std::FILE* full = std::fopen("/dev/full", "w");  // Linux: every write fails with ENOSPC
        if (full == nullptr) return;
        CHECK_THROWS_AS(io::write_timeline_json(full, {{"stages", {{{"stage", 1}}, {{"stage", 2}}}}},
                                                simulate(OneFOneB{}, {2, 1}, StageTimes{seconds(1), seconds(2)}), 1),
                        std::system_error);
        std::fclose(full);
    }
}
