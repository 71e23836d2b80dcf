// The collectives' cost: each formula next to a raw-double twin doing the same
// arithmetic and the same input checks, the hierarchical all-reduce, the
// NCCL-style choice over six algorithm × protocol pairs, the exact crossover,
// and the lab's 200-point ring/tree sweep. Before it is timed, each twin must
// reproduce the library's result on the benchmark's inputs (relative 1e-12),
// or its benchmark fails with an error.
//
//   ./build/release/bench/bench_collectives --benchmark_enable_random_interleaving=true --benchmark_repetitions=10
#include <napkin/collectives.hpp>

#include <benchmark/benchmark.h>

#include "raw_twin.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace {

using namespace napkin;

// --- the raw-double twins ----------------------------------------------------------
using RawLink = raw_twin::Link;
struct RawTime {
    double latency, bandwidth;
};
void raw_check(bool ok) { raw_twin::check(ok); }
// collectives.hpp's check_collective: ranks in [1, limits::gpus], the link's rate in [1 B/s, 1e18 B/s]
// and its α 0 or in [DBL_MIN, an hour], the base 0 or normal, the message 0 or in [DBL_MIN, 1e18 B].
bool zero_or_within(double x, double high) { return raw_twin::zero_or_within(x, raw_twin::tiny, high); }
void raw_check(double m, long long n, const RawLink& l, double base) {
    raw_check(n >= 1 && n <= limits::gpus && raw_twin::usual(l) && zero_or_within(base, std::numeric_limits<double>::max()));
    raw_check(zero_or_within(m, limits::message_bytes));
}
// ⌈log₂ n⌉ as the library forms it: the bit width of n − 1.
long long raw_ceil_log2(long long n) { return n <= 1 ? 0 : 64 - __builtin_clzll(static_cast<unsigned long long>(n - 1)); }
RawTime raw_ring(double m, long long n, const RawLink& l, double base) {
    raw_check(m, n, l, base);
    if (n == 1) return {0, 0};
    const double steps = 2.0 * static_cast<double>(n - 1);
    return {base + steps * l.step, steps / static_cast<double>(n) * (m / l.bandwidth)};
}
RawTime raw_tree(double m, long long n, const RawLink& l, double base) {
    raw_check(m, n, l, base);
    if (n == 1) return {0, 0};
    const double levels = 2.0 * static_cast<double>(raw_ceil_log2(n));
    return {base + levels * l.step, levels * (m / l.bandwidth)};
}
RawTime raw_one_pass(double m, long long n, const RawLink& l, double base) {  // reduce-scatter, all-gather
    raw_check(m, n, l, base);
    if (n == 1) return {0, 0};
    const double steps = static_cast<double>(n - 1);
    return {base + steps * l.step, steps / static_cast<double>(n) * (m / l.bandwidth)};
}
// The phases' formulas without their checks: the hierarchical all-reduce checks its topology and message once.
RawTime raw_ring_of(double m, long long n, const RawLink& l) {
    if (n == 1) return {0, 0};
    const double steps = 2.0 * static_cast<double>(n - 1);
    return {steps * l.step, steps / static_cast<double>(n) * (m / l.bandwidth)};
}
RawTime raw_one_pass_of(double m, long long n, const RawLink& l) {
    if (n == 1) return {0, 0};
    const double steps = static_cast<double>(n - 1);
    return {steps * l.step, steps / static_cast<double>(n) * (m / l.bandwidth)};
}
RawTime raw_hierarchical(double m, long long nodes, long long g, const RawLink& intra, const RawLink& inter,
                         double r, double base) {
    // collectives.hpp's validated(HierarchicalTopology), the message's and the base's checks.
    long long gpus = 0;
    raw_check(nodes >= 1 && g >= 1 && !__builtin_mul_overflow(nodes, g, &gpus) && gpus <= limits::gpus &&
              raw_twin::usual(intra) && raw_twin::usual(inter) && r >= 1.0 && r <= 1e6);
    raw_check(zero_or_within(m, limits::message_bytes));
    raw_check(zero_or_within(base, std::numeric_limits<double>::max()));
    if (nodes * g == 1) return {0, 0};
    const RawTime rs = raw_one_pass_of(m, g, intra);
    const RawTime across = raw_ring_of(m / static_cast<double>(g), nodes, {inter.bandwidth / r, inter.step});
    const RawTime ag = raw_one_pass_of(m, g, intra);
    return {base + rs.latency + across.latency + ag.latency, rs.bandwidth + across.bandwidth + ag.bandwidth};
}
double raw_crossover(long long n, const RawLink& l) {
    raw_check(0, n, l, 0);
    const double levels = static_cast<double>(raw_ceil_log2(n));
    const double extra = static_cast<double>(n - 1) - levels;
    if (n < 2 || extra <= 0 || l.step <= 0) return -1;
    return l.step * l.bandwidth * (extra / (levels - static_cast<double>(n - 1) / static_cast<double>(n)));
}

constexpr Link ib_ndr{"ib-ndr", gigabytes_per_second(50), microseconds(5)};
constexpr Link nvlink{"nvlink", gigabytes_per_second(900), microseconds(0.5)};
const RawLink raw_ib{50e9, 5e-6};
const RawLink raw_nvlink{900e9, 0.5e-6};

bool same(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }
bool same(const RawTime& raw, const CollectiveTime& t) {
    return same(raw.latency, t.latency.value()) && same(raw.bandwidth, t.bandwidth.value());
}

// --- one formula each, with units and raw ----------------------------------------------
template <class F>
void units_case(benchmark::State& state, F formula) {
    Bytes m = gigabytes(280);
    long long n = 64;
    Link link = ib_ndr;
    Seconds base = microseconds(6.6);
    for (auto _ : state) {
        benchmark::DoNotOptimize(m);
        benchmark::DoNotOptimize(n);
        benchmark::DoNotOptimize(link);
        benchmark::DoNotOptimize(base);
        const CollectiveTime t = formula(m, n, link, base);
        benchmark::DoNotOptimize(t);
    }
}
// The twin is timed only once it reproduces the library's formula on the same inputs.
template <class F, class L>
void raw_case(benchmark::State& state, F formula, L library, const char* disagreement) {
    double m = 280e9;
    long long n = 64;
    RawLink link = raw_ib;
    double base = 6.6e-6;
    if (!same(formula(m, n, link, base), library(gigabytes(280), n, ib_ndr, microseconds(6.6)))) {
        state.SkipWithError(disagreement);
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(m);
        benchmark::DoNotOptimize(n);
        benchmark::DoNotOptimize(link);
        benchmark::DoNotOptimize(base);
        const RawTime t = formula(m, n, link, base);
        benchmark::DoNotOptimize(t);
    }
}

const auto ring = [](Bytes m, long long n, const Link& l, Seconds b) { return ring_all_reduce(m, n, l, b); };
const auto tree = [](Bytes m, long long n, const Link& l, Seconds b) { return tree_all_reduce(m, n, l, b); };
const auto rs = [](Bytes m, long long n, const Link& l, Seconds b) { return reduce_scatter(m, n, l, b); };
void ring_units(benchmark::State& s) { units_case(s, ring); }
void ring_raw_double(benchmark::State& s) {
    raw_case(s, raw_ring, ring, "the raw-double twin does not reproduce ring_all_reduce");
}
void tree_units(benchmark::State& s) { units_case(s, tree); }
void tree_raw_double(benchmark::State& s) {
    raw_case(s, raw_tree, tree, "the raw-double twin does not reproduce tree_all_reduce");
}
void reduce_scatter_units(benchmark::State& s) { units_case(s, rs); }
void reduce_scatter_raw_double(benchmark::State& s) {
    raw_case(s, raw_one_pass, rs, "the raw-double twin does not reproduce reduce_scatter");
}
BENCHMARK(ring_units);
BENCHMARK(ring_raw_double);
BENCHMARK(tree_units);
BENCHMARK(tree_raw_double);
BENCHMARK(reduce_scatter_units);
BENCHMARK(reduce_scatter_raw_double);

void hierarchical_units(benchmark::State& state) {
    Bytes m = gigabytes(140);
    HierarchicalTopology t{8, 8, nvlink, ib_ndr, Nic::per_gpu, 2.0};
    for (auto _ : state) {
        benchmark::DoNotOptimize(m);
        benchmark::DoNotOptimize(t);
        const CollectiveTime r = hierarchical_all_reduce(m, t);
        benchmark::DoNotOptimize(r);
    }
}
void hierarchical_raw_double(benchmark::State& state) {
    double m = 140e9;
    long long nodes = 8, g = 8;
    RawLink intra = raw_nvlink, inter = raw_ib;
    double r = 2.0;
    const HierarchicalTopology topology{8, 8, nvlink, ib_ndr, Nic::per_gpu, 2.0};  // hierarchical_units' inputs
    if (!same(raw_hierarchical(m, nodes, g, intra, inter, r, 0), hierarchical_all_reduce(gigabytes(140), topology))) {
        state.SkipWithError("the raw-double twin does not reproduce hierarchical_all_reduce");
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(m);
        benchmark::DoNotOptimize(nodes);
        benchmark::DoNotOptimize(g);
        benchmark::DoNotOptimize(intra);
        benchmark::DoNotOptimize(inter);
        benchmark::DoNotOptimize(r);
        const RawTime t = raw_hierarchical(m, nodes, g, intra, inter, r, 0);
        benchmark::DoNotOptimize(t);
    }
}
BENCHMARK(hierarchical_units);
BENCHMARK(hierarchical_raw_double);

void crossover_units(benchmark::State& state) {
    long long n = 256;
    Link link = ib_ndr;
    for (auto _ : state) {
        benchmark::DoNotOptimize(n);
        benchmark::DoNotOptimize(link);
        auto m = ring_tree_crossover(n, link);
        benchmark::DoNotOptimize(m);
    }
}
void crossover_raw_double(benchmark::State& state) {
    long long n = 256;
    RawLink link = raw_ib;
    const auto library = ring_tree_crossover(n, ib_ndr);  // the twin's −1 is the library's "no crossover"
    if (!(library ? same(raw_crossover(n, link), library->value()) : raw_crossover(n, link) == -1)) {
        state.SkipWithError("the raw-double twin does not reproduce ring_tree_crossover");
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(n);
        benchmark::DoNotOptimize(link);
        double m = raw_crossover(n, link);
        benchmark::DoNotOptimize(m);
    }
}
BENCHMARK(crossover_units);
BENCHMARK(crossover_raw_double);

// The NCCL-style choice: six algorithm × protocol evaluations and a minimum (no twin: a
// table lookup of the same size; compare it with six ring evaluations above).
void nccl_choice_units(benchmark::State& state) {
    Bytes m = megabytes(1);
    long long n = 64;
    Link link = ib_ndr;
    const NcclModel model{Transport::network};
    for (auto _ : state) {
        benchmark::DoNotOptimize(m);
        benchmark::DoNotOptimize(n);
        benchmark::DoNotOptimize(link);
        const NcclChoice c = model.choose(m, n, link);
        benchmark::DoNotOptimize(c);
    }
}
BENCHMARK(nccl_choice_units);

// The same across 16 nodes of 8 GPUs: each hop at its transport's latency.
void nccl_choice_across_nodes_units(benchmark::State& state) {
    Bytes m = megabytes(1);
    HierarchicalTopology topology{.nodes = 16, .gpus_per_node = 8, .intra = nvlink, .inter = ib_ndr};
    const NcclModel model{Transport::nvlink};
    for (auto _ : state) {
        benchmark::DoNotOptimize(m);
        benchmark::DoNotOptimize(topology);
        const NcclChoice c = model.choose(m, topology);
        benchmark::DoNotOptimize(c);
    }
}
BENCHMARK(nccl_choice_across_nodes_units);

// The lab's sweep: ring and tree at 200 log-spaced sizes from 1 KB to 10 GB on 256 GPUs.
// The sizes are computed once; both versions sum the totals so nothing is dropped.
double sweep_size(int i) { return std::pow(10.0, 3.0 + 7.0 * i / 199.0); }
void sweep_units(benchmark::State& state) {
    Bytes sizes[200];
    for (int i = 0; i < 200; ++i) sizes[i] = bytes(sweep_size(i));
    Link link = ib_ndr;
    long long n = 256;
    for (auto _ : state) {
        benchmark::DoNotOptimize(link);
        benchmark::DoNotOptimize(n);
        Seconds sum{};
        for (const Bytes& m : sizes)
            sum += ring_all_reduce(m, n, link).total() + tree_all_reduce(m, n, link).total();
        // The number, as the twin passes its double: a class object handed to DoNotOptimize has its address
        // taken (GCC's "+m"), which would keep the sum in memory through the loop.
        benchmark::DoNotOptimize(sum.value());
    }
    state.SetItemsProcessed(state.iterations() * 200);
}
void sweep_raw_double(benchmark::State& state) {
    double sizes[200];
    for (int i = 0; i < 200; ++i) sizes[i] = sweep_size(i);
    RawLink link = raw_ib;
    long long n = 256;
    for (const double m : sizes) {  // every point of the sweep, both formulas
        if (!same(raw_ring(m, n, link, 0), ring_all_reduce(bytes(m), n, ib_ndr)) ||
            !same(raw_tree(m, n, link, 0), tree_all_reduce(bytes(m), n, ib_ndr))) {
            state.SkipWithError("the raw-double twin does not reproduce the ring/tree sweep");
            return;
        }
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(link);
        benchmark::DoNotOptimize(n);
        double sum = 0;
        for (double m : sizes) {
            const RawTime r = raw_ring(m, n, link, 0), t = raw_tree(m, n, link, 0);
            sum += r.latency + r.bandwidth + t.latency + t.bandwidth;
        }
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * 200);
}
BENCHMARK(sweep_units);
BENCHMARK(sweep_raw_double);

}  // namespace
