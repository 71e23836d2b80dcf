// The split model's cost: one time-per-token evaluation and one best-count
// search, each next to a raw-double twin doing the same arithmetic (and the
// same input checks), so "units cost nothing" is a measured ratio. Before it
// is timed, each twin must reproduce the library's result on the same inputs
// (relative 1e-12; the GPU count exactly), or its benchmark fails with an error.
//
//   ./build/release/bench/bench_split --benchmark_enable_random_interleaving=true --benchmark_repetitions=10
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>

#include <benchmark/benchmark.h>

#include "raw_twin.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace {

using namespace napkin;

// --- the raw-double twin: the same formulas and checks on plain numbers ------
// It mirrors the library step by step: every check of the GPU, the link and the
// setup (hardware.hpp's and inference.hpp's, each range as the library states
// it), the counts' ranges, the ring with its own checks, the weight share
// rounded up to a whole byte. The model is integers only, no quantity: its
// checks and weight counts are the library's, shared (detail::counted), as
// bench_formulas shares them. The only difference left is the unit types.
using RawGpu = raw_twin::Gpu;
using RawLink = raw_twin::Link;
struct RawSetup {
    double bytes_per_weight, bytes_per_cache_value, bytes_per_activation, context, working_tokens, allowance;
    long long all_reduces_per_layer;
};
const RawSetup raw_lesson{2, 2, 2, 8192, 2048, 1073741824.0, 2};
constexpr double raw_base = 6.6e-6;
using raw_twin::huge, raw_twin::tiny, raw_twin::within, raw_twin::zero_or_within;
constexpr auto raw_check = raw_twin::check;
constexpr auto raw_ceil = raw_twin::ceil_whole;
void raw_check_all(const RawGpu& g, const RawLink& l, const RawSetup& s, long long n, long long w) {
    // hardware.hpp's usual_gpu and usual link, inference.hpp's check_setup, the counts' ranges.
    raw_check(raw_twin::usual(g) && raw_twin::usual(l));
    raw_check(within(s.bytes_per_weight, tiny, huge) && within(s.bytes_per_cache_value, tiny, huge) &&
              within(s.bytes_per_activation, tiny, huge) && zero_or_within(s.context, tiny, huge) &&
              zero_or_within(s.working_tokens, tiny, huge) && zero_or_within(s.allowance, tiny, huge) &&
              s.all_reduces_per_layer >= 0 && s.all_reduces_per_layer <= 1024);
    raw_check(n >= 1 && n <= limits::gpus && w >= 1 && w <= limits::tokens);
}
double raw_ring(double message, long long n, const RawLink& l) {
    // collectives.hpp's check_collective.
    raw_check(n >= 1 && n <= limits::gpus && raw_twin::usual(l) && zero_or_within(raw_base, tiny, huge));
    raw_check(zero_or_within(message, tiny, limits::message_bytes));
    if (n == 1) return 0;
    const double steps = 2.0 * static_cast<double>(n - 1);
    return raw_base + steps * l.step + steps / static_cast<double>(n) * (message / l.bandwidth);
}
struct RawTime {
    double read, transfer;
};
RawTime raw_token_time_of(const detail::CountedModel& counts, const RawGpu& g, const RawLink& l, const RawSetup& s,
                          long long n, long long w) {
    const TransformerShape& m = counts.shape;
    const double gpus = static_cast<double>(n);
    const double read = raw_ceil(static_cast<double>(counts.parameters) * s.bytes_per_weight / gpus) / g.bandwidth;
    const double compute = 2.0 * static_cast<double>(counts.active) * static_cast<double>(w) / gpus / g.flops;
    const double busy = std::max(read, compute);
    const double message = static_cast<double>(m.hidden) * s.bytes_per_activation * static_cast<double>(w);
    return {busy, static_cast<double>(s.all_reduces_per_layer * m.layers) * raw_ring(message, n, l)};
}
RawTime raw_token_time(const TransformerShape& m, const RawGpu& g, const RawLink& l, long long n, long long w) {
    const detail::CountedModel counts = detail::counted(m);
    raw_check_all(g, l, raw_lesson, n, w);
    return raw_token_time_of(counts, g, l, raw_lesson, n, w);
}
long long raw_best(const TransformerShape& m, const RawGpu& g, const RawLink& l) {
    const RawSetup& s = raw_lesson;
    raw_check(64 <= limits::gpu_scan);
    const detail::CountedModel counts = detail::counted(m);
    raw_check_all(g, l, s, 1, 1);
    const auto usable = static_cast<double>(static_cast<long long>(g.memory * g.usable));
    const double working = static_cast<double>(3 * m.ffn + 4 * m.hidden) * s.bytes_per_activation * s.working_tokens +
                           s.allowance;
    long long best = 0;
    double best_time = 0;
    for (long long n = 1; n <= 64; ++n) {
        const double weights = raw_ceil(static_cast<double>(counts.parameters) * s.bytes_per_weight / static_cast<double>(n));
        const double cache = raw_ceil(static_cast<double>(2 * m.layers * m.kv_heads * head_dim(m)) *
                                      s.bytes_per_cache_value * s.context / static_cast<double>(std::min(n, m.kv_heads)));
        if (weights + cache + working > usable) continue;
        const RawTime t = raw_token_time_of(counts, g, l, s, n, 1);
        if (best == 0 || t.read + t.transfer < best_time) best = n, best_time = t.read + t.transfer;
    }
    return best;
}

const TransformerShape raw_70b = catalog::llama3_1_70b;  // integers only: the twin's model as it is
const RawGpu raw_a100 = raw_twin::of(catalog::a100_80gb_sxm);
const RawLink raw_nvlink{catalog::nvlink_a100.bandwidth.value(), catalog::nvlink_a100.step_latency.value()};

// --- the twins agree with the library -----------------------------------------------
bool same(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }
bool same(const RawTime& raw, const TokenTime& t) {
    return same(raw.read, t.read.value()) && same(raw.transfer, t.transfer.value());
}
bool token_time_twin_agrees() {
    return same(raw_token_time(raw_70b, raw_a100, raw_nvlink, 4, 1),
                token_time(catalog::llama3_1_70b, catalog::a100_80gb_sxm, catalog::nvlink_a100, {4}));
}
bool best_count_twin_agrees() {
    const auto best = best_gpu_count(catalog::llama3_1_70b, catalog::a100_80gb_sxm, catalog::nvlink_a100);
    return best.has_value() && raw_best(raw_70b, raw_a100, raw_nvlink) == best->gpus;
}

// --- benchmarks ------------------------------------------------------------------
void token_time_units(benchmark::State& state) {
    TransformerShape model = catalog::llama3_1_70b;
    Gpu gpu = catalog::a100_80gb_sxm;
    Link link = catalog::nvlink_a100;
    long long n = 4;
    for (auto _ : state) {
        benchmark::DoNotOptimize(model);
        benchmark::DoNotOptimize(gpu);
        benchmark::DoNotOptimize(link);
        benchmark::DoNotOptimize(n);
        const TokenTime t = token_time(model, gpu, link, {n});
        benchmark::DoNotOptimize(t);
    }
}
BENCHMARK(token_time_units);

void token_time_raw_double(benchmark::State& state) {
    if (!token_time_twin_agrees()) {
        state.SkipWithError("the raw-double twin does not reproduce token_time");
        return;
    }
    TransformerShape model = raw_70b;
    RawGpu gpu = raw_a100;
    RawLink link = raw_nvlink;
    long long n = 4;
    for (auto _ : state) {
        benchmark::DoNotOptimize(model);
        benchmark::DoNotOptimize(gpu);
        benchmark::DoNotOptimize(link);
        benchmark::DoNotOptimize(n);
        const RawTime t = raw_token_time(model, gpu, link, n, 1);
        benchmark::DoNotOptimize(t);
    }
}
BENCHMARK(token_time_raw_double);

void best_count_units(benchmark::State& state) {
    TransformerShape model = catalog::llama3_1_70b;
    Gpu gpu = catalog::a100_80gb_sxm;
    Link link = catalog::nvlink_a100;
    for (auto _ : state) {
        benchmark::DoNotOptimize(model);
        benchmark::DoNotOptimize(gpu);
        benchmark::DoNotOptimize(link);
        auto best = best_gpu_count(model, gpu, link);
        benchmark::DoNotOptimize(best);
    }
}
BENCHMARK(best_count_units);

void best_count_raw_double(benchmark::State& state) {
    if (!best_count_twin_agrees()) {
        state.SkipWithError("the raw-double twin does not reproduce best_gpu_count");
        return;
    }
    TransformerShape model = raw_70b;
    RawGpu gpu = raw_a100;
    RawLink link = raw_nvlink;
    for (auto _ : state) {
        benchmark::DoNotOptimize(model);
        benchmark::DoNotOptimize(gpu);
        benchmark::DoNotOptimize(link);
        long long best = raw_best(model, gpu, link);
        benchmark::DoNotOptimize(best);
    }
}
BENCHMARK(best_count_raw_double);

}  // namespace
