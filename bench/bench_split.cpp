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

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace {

using namespace napkin;

// --- the raw-double twin: the same formulas and checks on plain numbers ------
// It mirrors the library step by step (the general weight count with its
// branches, every input check, the ring with its own checks), so the only
// difference left is the unit types.
struct RawModel {
    long long layers, hidden, ffn, heads, kv_heads, head_dim, vocabulary;
    bool tied, gated, biases;
    long long positions, experts, experts_per_token, expert_ffn;
};
struct RawGpu {
    double memory, usable, bandwidth, flops;
};
struct RawLink {
    double bandwidth, step;
};
struct RawSetup {
    double bytes_per_weight, bytes_per_cache_value, bytes_per_activation, context, working_tokens, allowance;
    long long all_reduces_per_layer;
};
const RawSetup raw_lesson{2, 2, 2, 8192, 2048, 1073741824.0, 2};
constexpr double raw_base = 6.6e-6;

void raw_check(bool ok) {
    if (!ok) throw std::invalid_argument("bad input");
}
double raw_ceil(double v) {
    const auto t = static_cast<double>(static_cast<long long>(v));
    return t < v ? t + 1 : t;
}
long long raw_head_dim(const RawModel& m) { return m.head_dim != 0 ? m.head_dim : m.hidden / m.heads; }
void raw_check_model(const RawModel& m) {
    raw_check(m.layers >= 1 && m.hidden >= 1 && m.ffn >= 1 && m.heads >= 1 && m.kv_heads >= 1 && m.vocabulary >= 1);
    raw_check(m.head_dim >= 0 && m.heads % m.kv_heads == 0 && (m.head_dim != 0 || m.hidden % m.heads == 0));
    raw_check(m.experts >= 0 && (m.experts == 0 || (m.experts_per_token >= 1 && m.experts_per_token <= m.experts)));
    raw_check(m.experts == 0 || m.expert_ffn >= 1);
}
long long raw_ffn_weights(const RawModel& m, long long width) {
    if (m.gated) return 3 * m.hidden * width + (m.biases ? 2 * width + m.hidden : 0);
    return 2 * m.hidden * width + (m.biases ? width + m.hidden : 0);
}
long long raw_norm(const RawModel& m) { return (m.biases ? 2 : 1) * m.hidden; }
long long raw_parameters(const RawModel& m) {
    const long long q = m.heads * raw_head_dim(m), kv = m.kv_heads * raw_head_dim(m);
    const long long attention = 2 * m.hidden * q + 2 * m.hidden * kv + (m.biases ? q + 2 * kv + m.hidden : 0);
    const long long ffn = m.experts == 0 ? raw_ffn_weights(m, m.ffn)
                                         : m.experts * raw_ffn_weights(m, m.expert_ffn) + m.hidden * m.experts;
    const long long layer = attention + ffn + 2 * raw_norm(m);
    return m.layers * layer + m.vocabulary * m.hidden * (m.tied ? 1 : 2) + m.positions * m.hidden + raw_norm(m);
}
long long raw_active(const RawModel& m) {
    if (m.experts == 0) return raw_parameters(m);
    return raw_parameters(m) - m.layers * (m.experts - m.experts_per_token) * raw_ffn_weights(m, m.expert_ffn);
}
void raw_check_all(const RawModel& m, const RawGpu& g, const RawLink& l, const RawSetup& s, long long n,
                   long long w) {
    raw_check_model(m);
    raw_check(g.memory > 0 && g.usable > 0 && g.usable <= 1 && g.bandwidth > 0 && g.flops > 0);
    raw_check(l.bandwidth > 0 && l.step >= 0);
    raw_check(s.bytes_per_weight > 0 && s.bytes_per_cache_value > 0 && s.bytes_per_activation > 0);
    raw_check(s.context >= 0 && s.working_tokens >= 0 && s.allowance >= 0 && s.all_reduces_per_layer >= 0);
    raw_check(n >= 1 && w >= 1);
}
double raw_ring(double message, long long n, const RawLink& l) {
    raw_check(message >= 0 && n >= 1 && l.bandwidth > 0 && l.step >= 0);
    if (n == 1) return 0;
    const double steps = 2.0 * static_cast<double>(n - 1);
    return raw_base + steps * l.step + steps / static_cast<double>(n) * (message / l.bandwidth);
}
struct RawTime {
    double read, transfer;
};
RawTime raw_token_time_of(const RawModel& m, const RawGpu& g, const RawLink& l, const RawSetup& s, long long n,
                          long long w) {
    const double gpus = static_cast<double>(n);
    const double read = raw_ceil(static_cast<double>(raw_parameters(m)) * s.bytes_per_weight / gpus) / g.bandwidth;
    const double compute = 2.0 * static_cast<double>(raw_active(m)) * static_cast<double>(w) / gpus / g.flops;
    const double busy = std::max(read, compute);
    const double message = static_cast<double>(m.hidden) * s.bytes_per_activation * static_cast<double>(w);
    return {busy, static_cast<double>(s.all_reduces_per_layer * m.layers) * raw_ring(message, n, l)};
}
RawTime raw_token_time(const RawModel& m, const RawGpu& g, const RawLink& l, long long n, long long w) {
    raw_check_all(m, g, l, raw_lesson, n, w);
    return raw_token_time_of(m, g, l, raw_lesson, n, w);
}
long long raw_best(const RawModel& m, const RawGpu& g, const RawLink& l) {
    const RawSetup& s = raw_lesson;
    raw_check_all(m, g, l, s, 1, 1);
    const auto usable = static_cast<double>(static_cast<long long>(g.memory * g.usable));
    const double working = static_cast<double>(3 * m.ffn + 4 * m.hidden) * s.bytes_per_activation * s.working_tokens +
                           s.allowance;
    long long best = 0;
    double best_time = 0;
    for (long long n = 1; n <= 64; ++n) {
        const double weights = raw_ceil(static_cast<double>(raw_parameters(m)) * s.bytes_per_weight / static_cast<double>(n));
        const double cache = raw_ceil(static_cast<double>(2 * m.layers * m.kv_heads * raw_head_dim(m)) *
                                      s.bytes_per_cache_value * s.context / static_cast<double>(std::min(n, m.kv_heads)));
        if (weights + cache + working > usable) continue;
        const RawTime t = raw_token_time_of(m, g, l, s, n, 1);
        if (best == 0 || t.read + t.transfer < best_time) best = n, best_time = t.read + t.transfer;
    }
    return best;
}

const RawModel raw_70b{80, 8192, 28672, 64, 8, 128, 128256, false, true, false, 0, 0, 0, 0};
const RawGpu raw_a100{85899345920.0, 0.92, 2039e9, 312e12};
const RawLink raw_nvlink{600e9, 0.6e-6};

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
    RawModel model = raw_70b;
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
    RawModel model = raw_70b;
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
