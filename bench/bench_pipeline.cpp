// Pipeline models' cost: the closed-form bubbles (nanoseconds) and the
// event-level simulator at several sizes up to p = 64, m = 512, v = 4
// (262,144 passes), each next to a raw-double twin doing the same work, and
// at scale on a cold call (8,388,608 passes; goal: at most 30 ns a pass), and
// `napkin schedule --json`'s passes written from a 524,288-pass timeline
// beside that timeline's cold simulation (goal: at most 2× it).
// The simulator's benchmarks report their complexity fit: it must be linear
// in the number of passes. DualPipe (p = 64, m = 256 … 2,048: up to 265,184
// passes, with overlapped pairs and zero-bubble W's) likewise. Before it is
// timed, each twin must reproduce the library's result on the same inputs
// (relative 1e-12), or its benchmark fails with an error.
//
//   ./build-pipeline/bench/bench_pipeline --benchmark_enable_random_interleaving=true --benchmark_repetitions=5
#include <napkin/io/timeline_json.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>

#include <benchmark/benchmark.h>

#include "raw_twin.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using namespace napkin;

// --- the closed forms ------------------------------------------------------
// Each twin runs the library's checks (pipeline.hpp's check_step) on plain
// numbers: p, m and v in range with their products formed without wrapping,
// each stage time 0 or normal and at most limits::stage_seconds, W within B,
// then the schedule's own. Every input is laundered, in both, each iteration.
constexpr auto raw_check = raw_twin::check;
bool same(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

struct RawPipeline {
    long long p, m, v;
    double f, b, w;
};
bool raw_usual_seconds(double x) {
    return x == 0.0 || (x >= std::numeric_limits<double>::min() && x <= limits::stage_seconds);
}
void raw_check_step(const RawPipeline& in) {
    long long mv = 0, pv = 0;
    raw_check(in.p >= 1 && in.p <= limits::gpus && in.m >= 1 && in.m <= limits::batch && in.v >= 1 &&
              in.v <= limits::layers && !__builtin_mul_overflow(in.m, in.v, &mv) && mv <= limits::tokens &&
              !__builtin_mul_overflow(in.p, in.v, &pv) && pv <= limits::passes);
    raw_check(raw_usual_seconds(in.f) && raw_usual_seconds(in.b) && raw_usual_seconds(in.w) && in.w <= in.b);
}
RawPipeline raw_of(const PipelineShape& s, const StageTimes& t) {
    return {s.stages, s.microbatches, s.chunks, t.forward.value(), t.backward.value(), t.weight_grad.value()};
}

const PipelineShape interleaved_shape{8, 64, 4}, one_chunk_shape{8, 64};
const StageTimes stage_times{milliseconds(1.5), milliseconds(3), milliseconds(1)};

void BM_bubble_interleaved(benchmark::State& state) {
    PipelineShape shape = interleaved_shape;
    StageTimes t = stage_times;
    Interleaved schedule{};
    for (auto _ : state) {
        benchmark::DoNotOptimize(shape);
        benchmark::DoNotOptimize(t);
        benchmark::DoNotOptimize(schedule);
        benchmark::DoNotOptimize(bubble_share_of_step(schedule, shape, t));
    }
}
double raw_bubble_share_interleaved(const RawPipeline& in, long long extra_warmup) {
    raw_check_step(in);
    // Interleaved's own: extra_warmup in [0, m·v], m a multiple of p when v > 1; then F + B > 0.
    raw_check(extra_warmup >= 0 && extra_warmup <= in.m * in.v);
    raw_check(in.v == 1 || in.m % in.p == 0);
    raw_check(in.f + in.b > 0);
    const double bubble = static_cast<double>(in.p - 1) * (in.f + in.b) / static_cast<double>(in.v);
    return bubble / (static_cast<double>(in.m) * (in.f + in.b) + bubble);
}
void BM_bubble_interleaved_raw(benchmark::State& state) {
    RawPipeline in = raw_of(interleaved_shape, stage_times);
    long long extra_warmup = 0;
    if (!same(raw_bubble_share_interleaved(in, extra_warmup),
              bubble_share_of_step(Interleaved{}, interleaved_shape, stage_times))) {
        state.SkipWithError("the raw-double twin does not reproduce bubble_share_of_step(Interleaved)");
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(in);
        benchmark::DoNotOptimize(extra_warmup);
        benchmark::DoNotOptimize(raw_bubble_share_interleaved(in, extra_warmup));
    }
}
BENCHMARK(BM_bubble_interleaved);
BENCHMARK(BM_bubble_interleaved_raw);

void BM_bubble_zb_h1(benchmark::State& state) {
    PipelineShape shape = one_chunk_shape;
    StageTimes t = stage_times;
    for (auto _ : state) {
        benchmark::DoNotOptimize(shape);
        benchmark::DoNotOptimize(t);
        benchmark::DoNotOptimize(step_time(ZeroBubbleH1{}, shape, t));
    }
}
double raw_step_zb_h1(const RawPipeline& in) {
    raw_check_step(in);
    raw_check(in.v == 1);
    const double bubble = std::max(0.0, static_cast<double>(in.p - 1) * (in.f + in.b - 2 * in.w));
    return static_cast<double>(in.m) * (in.f + in.b) + bubble;
}
void BM_bubble_zb_h1_raw(benchmark::State& state) {
    RawPipeline in = raw_of(one_chunk_shape, stage_times);
    if (!same(raw_step_zb_h1(in), step_time(ZeroBubbleH1{}, one_chunk_shape, stage_times).value())) {
        state.SkipWithError("the raw-double twin does not reproduce step_time(ZeroBubbleH1)");
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(in);
        benchmark::DoNotOptimize(raw_step_zb_h1(in));
    }
}
BENCHMARK(BM_bubble_zb_h1);
BENCHMARK(BM_bubble_zb_h1_raw);

void BM_bubble_dualpipe(benchmark::State& state) {
    PipelineShape shape = one_chunk_shape;
    StageTimes t = stage_times;
    DualPipe schedule{milliseconds(4)};
    for (auto _ : state) {
        benchmark::DoNotOptimize(shape);
        benchmark::DoNotOptimize(t);
        benchmark::DoNotOptimize(schedule);
        benchmark::DoNotOptimize(bubble_share_of_step(schedule, shape, t));
    }
}
// DualPipe's F&B is optional: set (the flag) and its value, as std::optional holds them.
double raw_bubble_share_dualpipe(const RawPipeline& in, bool has_fb, double fb) {
    raw_check_step(in);
    raw_check(in.v == 1 && in.p % 2 == 0 && (!has_fb || fb >= 0));
    raw_check(in.f + in.b > 0);
    const double paired = has_fb ? fb : in.f + in.b;
    const double bubble = std::max(0.0, (static_cast<double>(in.p) / 2 - 1) * (paired + in.b - 3 * in.w));
    return bubble / (static_cast<double>(in.m) * (in.f + in.b) + bubble);
}
void BM_bubble_dualpipe_raw(benchmark::State& state) {
    RawPipeline in = raw_of(one_chunk_shape, stage_times);
    bool has_fb = true;
    double fb = 4e-3;
    if (!same(raw_bubble_share_dualpipe(in, has_fb, fb),
              bubble_share_of_step(DualPipe{milliseconds(4)}, one_chunk_shape, stage_times))) {
        state.SkipWithError("the raw-double twin does not reproduce bubble_share_of_step(DualPipe)");
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(in);
        benchmark::DoNotOptimize(has_fb);
        benchmark::DoNotOptimize(fb);
        benchmark::DoNotOptimize(raw_bubble_share_dualpipe(in, has_fb, fb));
    }
}
BENCHMARK(BM_bubble_dualpipe);
BENCHMARK(BM_bubble_dualpipe_raw);

// --- the simulator -----------------------------------------------------------
// p = 64, v = 4, m = 64 … 512: 32,768 … 262,144 passes.
void BM_simulate_interleaved(benchmark::State& state) {
    const PipelineShape shape{64, state.range(0), 4};
    const StageTimes t{milliseconds(4), milliseconds(8)};
    std::size_t passes = 0;
    for (auto _ : state) {
        const Timeline timeline = simulate(Interleaved{}, shape, t, microseconds(50));
        passes = timeline.pass_count();
        benchmark::DoNotOptimize(timeline.step_time());
    }
    state.SetComplexityN(static_cast<std::int64_t>(passes));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(passes));
}
BENCHMARK(BM_simulate_interleaved)->RangeMultiplier(2)->Range(64, 512)->Unit(benchmark::kMillisecond)->Complexity(
    benchmark::oN);

// At scale, cold: p = 64, v = 4, m = 16,384 is 2·p·m·v = 8,388,608 passes
// (Interleaved) and p = 64, m = 32,768 is 2·p·m + 3p²/4 − p/2 = 4,197,440
// (DualPipe, with its overlapped pairs and zero-bubble W's). Each call runs on
// a thread of its own, so nothing the simulator keeps per thread survives from
// one call to the next: every buffer is fresh, as in a `napkin schedule`
// process (page faults included). Process CPU time, so the thread's work
// counts; the counter `per_pass` is CPU seconds per pass (goal: 30n).
// The _operations twin also asks for the Operation list (48 bytes a pass, built
// on the first operations() call), which a caller wanting every pass's fields
// at once pays for; for_each_pass and the totals do not.
template <class S>
void simulate_cold(benchmark::State& state, const S& schedule, const PipelineShape& shape, const StageTimes& t,
                   bool operations = false) {
    std::size_t passes = 0;
    double step_ms = 0;
    for (auto _ : state) {
        std::thread call([&] {
            const Timeline timeline = simulate(schedule, shape, t, microseconds(50));
            passes = operations ? timeline.operations().size() : timeline.pass_count();
            step_ms = in(timeline.step_time(), units::ms);
        });
        call.join();
        benchmark::DoNotOptimize(step_ms);
    }
    state.counters["passes"] = static_cast<double>(passes);
    state.counters["step_ms"] = step_ms;
    state.counters["per_pass"] = benchmark::Counter(static_cast<double>(passes),
                                                    benchmark::Counter::kIsIterationInvariantRate |
                                                        benchmark::Counter::kInvert);
}
void BM_simulate_interleaved_cold(benchmark::State& state) {
    simulate_cold(state, Interleaved{}, {64, 16'384, 4}, {milliseconds(4), milliseconds(8)});
}
BENCHMARK(BM_simulate_interleaved_cold)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
void BM_simulate_interleaved_cold_operations(benchmark::State& state) {
    simulate_cold(state, Interleaved{}, {64, 16'384, 4}, {milliseconds(4), milliseconds(8)}, true);
}
BENCHMARK(BM_simulate_interleaved_cold_operations)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
void BM_simulate_dualpipe_cold(benchmark::State& state) {
    simulate_cold(state, DualPipe{milliseconds(10)}, {64, 32'768},
                  {milliseconds(4), milliseconds(8), milliseconds(4)});
}
BENCHMARK(BM_simulate_dualpipe_cold)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

// `napkin schedule --json`'s two parts at p = 64, m = 1,024, v = 4 (524,288
// passes, the README's case): the simulation on a cold call, and the passes
// written as JSON (about 60 MB, to /dev/null) from its timeline by 1 and 2
// threads (goal: the JSON at most 2× the simulation). Wall-clock time, with
// the process's CPU time beside it; `per_pass` is wall seconds per pass.
void BM_simulate_interleaved_cold_524k(benchmark::State& state) {
    simulate_cold(state, Interleaved{}, {64, 1'024, 4}, {milliseconds(4), milliseconds(8)});
}
BENCHMARK(BM_simulate_interleaved_cold_524k)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
void BM_timeline_json(benchmark::State& state) {
    const PipelineShape shape{64, 1'024, 4};
    const Timeline timeline = simulate(Interleaved{}, shape, {milliseconds(4), milliseconds(8)}, microseconds(50));
    nlohmann::json summary{{"stages", nlohmann::json::array()}};
    for (long long r = 0; r < shape.stages; ++r) summary["stages"].push_back({{"stage", r + 1}});
    std::FILE* devnull = std::fopen("/dev/null", "w");
    if (devnull == nullptr) return state.SkipWithError("/dev/null cannot be opened");
    for (auto _ : state) io::write_timeline_json(devnull, summary, timeline, static_cast<unsigned>(state.range(0)));
    std::fclose(devnull);
    state.counters["passes"] = static_cast<double>(timeline.pass_count());
    state.counters["per_pass"] =
        benchmark::Counter(static_cast<double>(timeline.pass_count()),
                           benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_timeline_json)->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

// The twin: the same order generation and event loop with plain doubles and ints.
struct RawOp {
    std::uint8_t pass;  // 0 forward, 1 backward
    long long microbatch, chunk;
    double start, end;
};
double raw_simulate_interleaved(long long p, long long m, long long v, double f, double b, double send) {
    raw_check(p >= 1 && m >= 1 && v >= 2 && m % p == 0 && f >= 0 && b >= 0 && send >= 0);
    const long long total = m * v, stages = p * v;
    std::vector<RawOp> ops;
    ops.reserve(static_cast<std::size_t>(2 * total * p));
    std::vector<std::size_t> offsets{0};
    const auto pass = [p, v](std::uint8_t kind, long long k) {
        const long long chunk = (k % (p * v)) / p;
        return RawOp{kind, (k / (p * v)) * p + k % p, kind == 0 ? chunk : v - 1 - chunk, 0, 0};
    };
    for (long long r = 0; r < p; ++r) {
        const long long warmup = m == p ? total : std::min(2 * (p - r - 1) + (v - 1) * p, total);
        for (long long k = 0; k < warmup; ++k) ops.push_back(pass(0, k));
        for (long long k = 0; k < total - warmup; ++k) ops.push_back(pass(0, warmup + k)), ops.push_back(pass(1, k));
        for (long long k = total - warmup; k < total; ++k) ops.push_back(pass(1, k));
        offsets.push_back(ops.size());
    }
    const auto key = [m, stages](long long kind, long long j, long long vs) {
        return static_cast<std::size_t>((kind * m + j) * stages + vs);
    };
    std::vector<double> finished(static_cast<std::size_t>(2 * m * stages), -1.0);
    std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
    std::vector<double> free_at(static_cast<std::size_t>(p), 0.0);
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::vector<std::size_t> waiting(static_cast<std::size_t>(p), none);
    std::vector<long long> ready;
    for (long long r = p - 1; r >= 0; --r) ready.push_back(r);
    const auto wake = [&](long long rank, std::size_t k) {
        if (waiting[static_cast<std::size_t>(rank)] == k) waiting[static_cast<std::size_t>(rank)] = none, ready.push_back(rank);
    };
    double step = 0;
    while (!ready.empty()) {
        const long long r = ready.back();
        ready.pop_back();
        const auto ur = static_cast<std::size_t>(r);
        for (; next[ur] < offsets[ur + 1]; ++next[ur]) {
            RawOp& op = ops[next[ur]];
            const long long vs = op.chunk * p + r;
            std::size_t input = none;
            long long input_rank = r;
            if (op.pass == 0 && vs > 0) input = key(0, op.microbatch, vs - 1), input_rank = (vs - 1) % p;
            else if (op.pass == 1 && vs == stages - 1) input = key(0, op.microbatch, vs);
            else if (op.pass == 1) input = key(1, op.microbatch, vs + 1), input_rank = (vs + 1) % p;
            double start = free_at[ur];
            if (input != none) {
                if (finished[input] < 0) {
                    waiting[ur] = input;
                    break;
                }
                start = std::max(start, finished[input] + (input_rank == r ? 0.0 : send));
            }
            const double end = start + (op.pass == 0 ? f : b) / static_cast<double>(v);
            op.start = start, op.end = end;
            free_at[ur] = end;
            step = std::max(step, end);
            const std::size_t done = key(op.pass, op.microbatch, vs);
            finished[done] = end;
            if (op.pass == 0 && vs + 1 < stages) wake((vs + 1) % p, done);
            if (op.pass == 1 && vs > 0) wake((vs - 1) % p, done);
        }
    }
    return step;
}
void BM_simulate_interleaved_raw(benchmark::State& state) {
    const long long m = state.range(0);
    const Timeline library = simulate(Interleaved{}, {64, m, 4}, {milliseconds(4), milliseconds(8)}, microseconds(50));
    if (!same(raw_simulate_interleaved(64, m, 4, 4e-3, 8e-3, 50e-6), library.step_time().value())) {
        state.SkipWithError("the raw-double twin does not reproduce simulate(Interleaved)");
        return;
    }
    for (auto _ : state) benchmark::DoNotOptimize(raw_simulate_interleaved(64, m, 4, 4e-3, 8e-3, 50e-6));
    const auto passes = std::int64_t{2} * 64 * m * 4;
    state.SetComplexityN(static_cast<std::int64_t>(passes));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * passes);
}
BENCHMARK(BM_simulate_interleaved_raw)->RangeMultiplier(2)->Range(64, 512)->Unit(benchmark::kMillisecond)->Complexity(
    benchmark::oN);

// The per-op simulator on the reference MoE step's layout (goal: under 10 µs):
// p = 4, v = 2, m = 8, uneven chunks (6, 5 / 6, 6 / 6, 6 / 6, 4 layers at
// 5.272 ms forward and 9.414 ms backward each, the LM head on the last),
// Megatron's paired F&B with 38 % of a pair's all-to-all hidden, the head
// (all-gather) and the tail (per-chunk reduce-scatters, optimizer). 128 passes.
void BM_simulate_moe_step(benchmark::State& state) {
    const PipelineShape shape{4, 8, 2};
    const std::vector<long long> layers{6, 5, 6, 6, 6, 6, 6, 4};
    ScheduleTimes t = ScheduleTimes::per_layer(shape, layers, {milliseconds(5.272), milliseconds(9.414)}, {},
                                               {milliseconds(8.144), milliseconds(16.288)}, milliseconds(1.535));
    for (std::size_t i = 0; i < t.per_chunk.size(); ++i)
        t.all_to_all.push_back({t.per_chunk[i].forward * 0.270663, t.per_chunk[i].backward * 0.151579});
    t.pair_hidden = 0.38;
    t.ends.param_all_gather.assign(4, milliseconds(150));
    t.ends.first_pass_after.assign(4, milliseconds(13.866));
    t.ends.grad_reduce_scatter.assign(8, milliseconds(150));
    t.ends.optimizer = milliseconds(12);
    const Interleaved schedule{.extra_warmup = 1, .paired = true};
    double step_ms = 0;
    for (auto _ : state) {
        const Timeline timeline = simulate(schedule, shape, t);
        step_ms = in(timeline.step_time(), units::ms);
        benchmark::DoNotOptimize(step_ms);
    }
    state.counters["step_ms"] = step_ms;
}
BENCHMARK(BM_simulate_moe_step)->Unit(benchmark::kMicrosecond);

// DualPipe, p = 64, m = 256 … 2,048, F&B = 10 ms: 2m passes per rank and a W for
// each of its p − k − 1 zero-bubble backwards (35,808 … 265,184 in all). Both
// report the simulated step, which must agree.
void BM_simulate_dualpipe(benchmark::State& state) {
    const PipelineShape shape{64, state.range(0)};
    const StageTimes t{milliseconds(4), milliseconds(8), milliseconds(4)};
    std::size_t passes = 0;
    double step_ms = 0;
    for (auto _ : state) {
        const Timeline timeline = simulate(DualPipe{milliseconds(10)}, shape, t, microseconds(50));
        passes = timeline.pass_count();
        step_ms = in(timeline.step_time(), units::ms);
        benchmark::DoNotOptimize(step_ms);
    }
    state.counters["step_ms"] = step_ms;
    state.SetComplexityN(static_cast<std::int64_t>(passes));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(passes));
}
BENCHMARK(BM_simulate_dualpipe)->RangeMultiplier(2)->Range(256, 2048)->Unit(benchmark::kMillisecond)->Complexity(
    benchmark::oN);

// The twin: dualpipe.py's eight steps and the same event loop, plain doubles and ints.
struct RawDualOp {
    std::uint8_t pass;  // 0 forward, 1 backward, 2 weight
    bool overlapped, apart;
    long long microbatch, chunk;
    double start, end;
};
void raw_dual_order(std::vector<RawDualOp>& out, long long n, long long k, long long M, long long first) {
    long long fw[2] = {0, 0}, bw[2] = {0, 0};
    const long long base[2] = {0, M};
    std::size_t w_source = out.size();
    const auto chunk = [first](long long phase) { return phase == 0 ? first : 1 - first; };
    const auto f = [&](long long phase, bool ov) {
        const long long c = chunk(phase);
        out.push_back({0, ov, false, base[c] + fw[c]++, c, 0, 0});
    };
    const auto b = [&](long long phase, bool zb, bool ov) {
        const long long c = chunk(phase);
        out.push_back({1, ov, zb, base[c] + bw[c]++, c, 0, 0});
    };
    const auto w = [&] {
        while (!(out[w_source].pass == 1 && out[w_source].apart)) ++w_source;
        const RawDualOp& src = out[w_source++];
        out.push_back({2, false, false, src.microbatch, src.chunk, 0, 0});
    };
    for (long long i = 0; i < 2 * (n - k - 1); ++i) f(0, false);
    for (long long i = 0; i < k + 1; ++i) f(0, false), f(1, false);
    for (long long i = 0; i < n - k - 1; ++i) b(1, true, false), w(), f(1, false);
    for (long long i = 0; i < M - 2 * n + k + 1; ++i) {
        if (i == 0 && k == n - 1) f(0, false), b(1, false, false);
        else f(0, true), b(1, false, true);
        f(1, true), b(0, false, true);
    }
    for (long long i = 0; i < n - k - 1; ++i) b(1, false, false), f(1, true), b(0, false, true);
    bool zb = false;
    for (long long i = 0; i < k + 1; ++i) {
        if (i == (k + 1) / 2 && k % 2 == 1) zb = true;
        b(1, zb, false);
        if (i == (k + 1) / 2 && k % 2 == 0) zb = true;
        b(0, zb, false);
    }
    for (long long i = 0; i < n - k - 1; ++i) w(), b(0, true, false);
    for (long long i = 0; i < k + 1; ++i) w();
}
double raw_simulate_dualpipe(long long p, long long m, double f, double b, double w, double fb, double send) {
    raw_check(p >= 2 && p % 2 == 0 && m % 2 == 0 && m >= 2 * p && f >= 0 && b >= 0 && w >= 0 && w <= b &&
              fb >= 0 && send >= 0);
    std::vector<RawDualOp> ops;
    ops.reserve(static_cast<std::size_t>(3 * p * m));
    std::vector<std::size_t> offsets{0};
    for (long long r = 0; r < p; ++r) {
        raw_dual_order(ops, p / 2, std::min(r, p - 1 - r), m / 2, r >= p / 2 ? 1 : 0);
        offsets.push_back(ops.size());
    }
    const auto position = [p](long long r, long long c) { return c == 0 ? r : p - 1 - r; };
    const auto key = [m, p](long long kind, long long j, long long vs) {
        return static_cast<std::size_t>((kind * m + j) * p + vs);
    };
    std::vector<double> finished(static_cast<std::size_t>(3 * m * p), -1.0);
    std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
    std::vector<double> free_at(static_cast<std::size_t>(p), 0.0);
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::vector<std::size_t> waiting(static_cast<std::size_t>(p), none);
    std::vector<long long> ready;
    for (long long r = p - 1; r >= 0; --r) ready.push_back(r);
    const auto wake = [&](long long rank, std::size_t k) {
        if (waiting[static_cast<std::size_t>(rank)] == k) waiting[static_cast<std::size_t>(rank)] = none, ready.push_back(rank);
    };
    const auto length = [&](const RawDualOp& op) {
        return op.pass == 0 ? f : op.pass == 2 ? w : op.apart ? b - w : b;
    };
    double step = 0;
    while (!ready.empty()) {
        const long long r = ready.back();
        ready.pop_back();
        const auto ur = static_cast<std::size_t>(r);
        while (next[ur] < offsets[ur + 1]) {
            const std::size_t n_ops = ops[next[ur]].overlapped && ops[next[ur]].pass == 0 ? 2 : 1;
            double start = free_at[ur];
            std::size_t missing = none;
            for (std::size_t i = 0; i < n_ops && missing == none; ++i) {
                const RawDualOp& o = ops[next[ur] + i];
                const long long vs = position(r, o.chunk);
                std::size_t input = none;
                long long from = r;
                if (o.pass == 0 && vs > 0) input = key(0, o.microbatch, vs - 1), from = o.chunk == 0 ? vs - 1 : p - vs;
                else if (o.pass == 2) input = key(1, o.microbatch, vs);
                else if (o.pass == 1 && vs == p - 1) input = key(0, o.microbatch, vs);
                else if (o.pass == 1) input = key(1, o.microbatch, vs + 1), from = o.chunk == 0 ? vs + 1 : p - 2 - vs;
                if (input == none) continue;
                if (finished[input] < 0) missing = input;
                else start = std::max(start, finished[input] + (from == r ? 0.0 : send));
            }
            if (missing != none) {
                waiting[ur] = missing;
                break;
            }
            const double end = start + (n_ops == 2 ? fb : length(ops[next[ur]]));
            free_at[ur] = end;
            step = std::max(step, end);
            for (std::size_t i = 0; i < n_ops; ++i) {
                RawDualOp& op = ops[next[ur]++];
                op.start = start, op.end = end;
                const long long vs = position(r, op.chunk);
                const std::size_t done = key(op.pass, op.microbatch, vs);
                finished[done] = end;
                if (op.pass == 0 && vs + 1 < p) wake(op.chunk == 0 ? vs + 1 : p - 2 - vs, done);
                if (op.pass == 1 && vs > 0) wake(op.chunk == 0 ? vs - 1 : p - vs, done);
            }
        }
    }
    return step;
}
void BM_simulate_dualpipe_raw(benchmark::State& state) {
    const long long m = state.range(0);
    const Timeline library = simulate(DualPipe{milliseconds(10)}, {64, m},
                                      {milliseconds(4), milliseconds(8), milliseconds(4)}, microseconds(50));
    if (!same(raw_simulate_dualpipe(64, m, 4e-3, 8e-3, 4e-3, 10e-3, 50e-6), library.step_time().value())) {
        state.SkipWithError("the raw-double twin does not reproduce simulate(DualPipe)");
        return;
    }
    double step = 0;
    for (auto _ : state) {
        step = raw_simulate_dualpipe(64, m, 4e-3, 8e-3, 4e-3, 10e-3, 50e-6);
        benchmark::DoNotOptimize(step);
    }
    // 2m passes per rank and Σ_r (p − k_r − 1) = 3p²/4 − p/2 weight passes.
    const auto passes = std::int64_t{2} * 64 * m + 3 * 64 * 64 / 4 - 32;
    state.SetComplexityN(passes);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * passes);
    state.counters["step_ms"] = step * 1e3;
}
BENCHMARK(BM_simulate_dualpipe_raw)->RangeMultiplier(2)->Range(256, 2048)->Unit(benchmark::kMillisecond)->Complexity(
    benchmark::oN);

}  // namespace
