// The serving model's cost: one evaluation (memory, largest concurrency, a
// decode step, a prefill, continuous batching) and a 64-point concurrency
// sweep, each next to a raw-double twin doing the same arithmetic and checks.
// Each twin must agree with the library (to 1e-9) before either is timed. The
// twin is the roofline's arithmetic, so the pairs run under roofline_serving;
// BM_serving_evaluation_measured times the default (the kernel layer's
// measured rates and the fitted engine overheads) on its own.
//
//   ./build/release/bench/bench_serving --benchmark_enable_random_interleaving=true --benchmark_repetitions=10
// Goals (issue 16): one evaluation under 1 µs, a 64-point sweep under 50 µs; (issue 23) 300 ns and 20 µs.
// The sweep works out what no concurrency changes once (the checks, the most sequences that fit, one
// prompt's prefill), and so does its twin.
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/engine.hpp>

#include <benchmark/benchmark.h>

#include "raw_twin.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using namespace napkin;

// --- the raw-double twin (dense model, continuous batching, no chunks, no offload) ---
// It computes every output the library's estimate holds (memory at N, the
// largest N, TTFT, TPOT, e2e, requests/s, tokens/s in all, per GPU and per
// user) as serving.hpp does under roofline_serving, step by step: every check
// of the GPU, the fabric, the setup and the workload, each range as the library
// states it; the groups' placement on the fabric (tensor, pipeline, expert);
// the collectives with their own checks; the engine's overheads; the cache in
// paged blocks, the weights in whole bytes. The model and the layout are
// integers only, no quantity: their checks, weight counts and placements are
// the library's, shared (as bench_formulas shares them). It does not keep the
// parts apart, and it takes a model without latent attention or sliding windows
// (the library's branches for them are not mirrored).
using RawGpu = raw_twin::Gpu;
using RawLink = raw_twin::Link;
struct RawSetup {  // ServingSetup's numbers (16-bit weights and cache, the roofline profile)
    double bytes_per_activation;
    long long all_reduces_per_layer, kv_block_tokens;
    double working_tokens, working_allowance;
    long long prefill_chunk, pipeline_micro_batches;
    double offload_capacity, offload_bandwidth, pass_overhead, layer_overhead, gemm_share, expert_skew;
};
struct RawOut {
    double ttft, tpot, e2e, tokens_per_s, per_gpu, per_user, requests_per_s, memory;
    long long most;
};
constexpr double raw_base = 6.6e-6;  // NCCL ring LL base latency, as the library's default collective
constexpr double bytes_per_value = 2.0;  // bf16 weights and cache
using raw_twin::huge, raw_twin::tiny, raw_twin::within, raw_twin::zero_or_within;
constexpr auto raw_check = raw_twin::check;
constexpr auto raw_ceil = raw_twin::ceil_whole;
constexpr auto raw_floor = raw_twin::floor_whole;
bool usual_link(const RawLink& l) { return raw_twin::usual(l); }
struct RawServing {
    TransformerShape m;  // integers only: shared
    RawGpu g;
    RawLink intra, inter;
    long long gpus_per_node;
    ServingLayout l;  // integers only: shared
    long long input, output, concurrency;
    double arrival;
    RawSetup s;
};
// collectives.hpp's check_collective, then the ring and the point-to-point.
void raw_check_collective(double message, long long n, const RawLink& l, double base) {
    raw_check(n >= 1 && n <= limits::gpus && usual_link(l) && zero_or_within(base, tiny, huge));
    raw_check(zero_or_within(message, tiny, limits::message_bytes));
}
double raw_allreduce(double message, long long n, const RawLink& l) {
    raw_check_collective(message, n, l, raw_base);
    if (n == 1) return 0;
    const double steps = 2.0 * static_cast<double>(n - 1);
    return raw_base + steps * l.step + steps / static_cast<double>(n) * (message / l.bandwidth);
}
double raw_p2p(double message, const RawLink& l) {
    raw_check_collective(message, 2, l, raw_base);
    return raw_base + l.step + message / l.bandwidth;
}
const RawLink& raw_link_for(const GroupPlacement& g, const RawServing& s) { return g.crosses_nodes() ? s.inter : s.intra; }
// One pass's communication over n tokens of each group (serving.hpp's pass_communication).
double raw_pass_communication(const RawServing& s, double n) {
    const TransformerShape& m = s.m;
    const ServingLayout& l = s.l;
    const double message = static_cast<double>(m.hidden) * s.s.bytes_per_activation * n;
    const double tp = l.tp == 1 ? 0.0
                                : static_cast<double>(s.s.all_reduces_per_layer * m.layers) *
                                      raw_allreduce(message, l.tp, raw_link_for(place_group(l.tp, 1, s.gpus_per_node), s));
    const long long between = place_group(l.pp, l.tp * l.ep, s.gpus_per_node).nodes - 1;
    const double pp = static_cast<double>(l.pp - 1 - between) * raw_p2p(message, s.intra) +
                      static_cast<double>(between) * raw_p2p(message, s.inter);
    (void)raw_link_for(place_group(l.ep, l.tp, s.gpus_per_node), s);  // the expert group's link (ep = 1: no all-to-all)
    return tp + pp;
}
double raw_overhead(const RawServing& s) {
    return static_cast<double>(s.l.pp) * s.s.pass_overhead + static_cast<double>(s.m.layers) * s.s.layer_overhead;
}
// The cache: bytes per token (2 · layers · kv_heads · head_dim values, formed without wrapping) over the
// GPUs sharing a sequence's (pp · min(tp, kv_heads)).
double raw_cache_per_token(const TransformerShape& m) {
    long long a = 0, b = 0;
    raw_check(!__builtin_mul_overflow(2 * m.layers, m.kv_heads, &a) && !__builtin_mul_overflow(a, head_dim(m), &b));
    return static_cast<double>(b) * bytes_per_value;
}
double raw_share(const RawServing& s) {
    return static_cast<double>(s.l.pp) * static_cast<double>(std::min(s.l.tp, s.m.kv_heads));
}
long long raw_micro_batches(const RawServing& s, long long sequences) {
    const long long asked = s.s.pipeline_micro_batches == 0 ? s.l.pp : s.s.pipeline_micro_batches;
    return std::max(1LL, std::min({asked, s.l.pp, sequences}));
}
struct RawShared {
    detail::CountedModel counts;
    double weights, working, usable;  // one GPU's memory without cache
    long long most;
    double prefill;  // one prompt's
};
double raw_weights(const RawShared& sh, const ServingLayout& l) {
    return raw_ceil(static_cast<double>(sh.counts.parameters) * bytes_per_value / static_cast<double>(l.tp * l.pp));
}
RawShared raw_shared(const RawServing& s) {
    RawShared sh{detail::counted(s.m), 0, 0, 0, 0, 0};  // the model's checks and weight counts, shared
    const TransformerShape& m = s.m;
    const RawGpu& g = s.g;
    // hardware.hpp's usual_gpu; the fabric's links and GPUs per node.
    raw_check(raw_twin::usual(g));
    raw_check(usual_link(s.intra) && usual_link(s.inter) && s.gpus_per_node >= 1 && s.gpus_per_node <= limits::gpus);
    (void)validated(s.l, m);  // the layout against the model: integers, shared
    // serving.hpp's check_serving_setup, field by field.
    const RawSetup& st = s.s;
    raw_check(within(st.bytes_per_activation, tiny, huge) && st.all_reduces_per_layer >= 0 && st.kv_block_tokens >= 1 &&
              zero_or_within(st.working_tokens, tiny, huge) && zero_or_within(st.working_allowance, tiny, huge) &&
              st.prefill_chunk >= 0 && st.pipeline_micro_batches >= 0 &&
              within(st.offload_capacity, -huge, huge) && within(st.offload_capacity, 0.0, 0x1p50) &&
              (!(st.offload_capacity > 0) || st.offload_bandwidth > 0) && zero_or_within(st.pass_overhead, tiny, huge) &&
              zero_or_within(st.layer_overhead, tiny, huge) && st.gemm_share > 0.0 && st.gemm_share <= 1.0 &&
              within(st.expert_skew, -huge, huge) && within(st.expert_skew, 0.0, 10.0));
    // The workload; 16-bit weights need nothing of the GPU.
    raw_check(s.input >= 1 && s.output >= 1 && s.concurrency >= 1 && zero_or_within(s.arrival, tiny, huge));
    raw_check(m.max_position_embeddings == 0 || s.input + s.output <= m.max_position_embeddings);
    const ServingLayout& l = s.l;
    sh.weights = raw_weights(sh, l);
    sh.working = static_cast<double>(3 * m.ffn + 4 * m.hidden) * st.bytes_per_activation * st.working_tokens +
                 st.working_allowance;
    sh.usable = raw_floor(g.memory * g.usable);
    // The most sequences whose cache, reserved whole in blocks, fits beside the weights and working memory.
    const long long length = s.input + s.output;
    const double paged = static_cast<double>((length + st.kv_block_tokens - 1) / st.kv_block_tokens * st.kv_block_tokens);
    const double per_token = raw_cache_per_token(m), share = raw_share(s);
    const auto total_of = [&](long long k) {
        return sh.weights + raw_ceil(per_token * (paged * static_cast<double>(k)) / share) + sh.working;
    };
    const double empty = total_of(0);
    if (empty >= sh.usable) {
        sh.most = 0;
    } else {
        const double one = raw_ceil(per_token * paged / share);  // one sequence's cache
        long long k = std::max(0LL, static_cast<long long>((sh.usable - empty + st.offload_capacity) / one) - 1);
        while (total_of(k + 1) <= sh.usable) ++k;
        while (k > 0 && total_of(k) > sh.usable) --k;
        sh.most = k * l.ep;
    }
    // One prompt's prefill in one pass: the weights and the prompt's cache read, 2 FLOPs per active
    // weight per token and causal attention, at the data sheet's rates; its communication and overhead.
    const double b = static_cast<double>((1 + raw_micro_batches(s, 1) - 1) / raw_micro_batches(s, 1));
    const double c = static_cast<double>(s.input), gpus = static_cast<double>(l.tp * l.pp);
    const double cache = per_token * (c * b) / share;
    const double gemms = 2.0 * static_cast<double>(sh.counts.active) * (b * c);
    const double attention = 4.0 * static_cast<double>(m.layers) * static_cast<double>(m.heads * head_dim(m)) *
                             (b * (c * 0.0 + c * (c + 1.0) / 2.0));
    const double pass = std::max((sh.weights + cache) / g.bandwidth, (gemms + attention) / gpus / g.flops);
    sh.prefill = static_cast<double>(l.pp) * pass + raw_pass_communication(s, b * c) + raw_overhead(s);
    return sh;
}
// One concurrency n from the shared parts.
RawOut raw_serve_at(const RawServing& s, const RawShared& sh, long long n) {
    const TransformerShape& m = s.m;
    const ServingLayout& l = s.l;
    raw_check(n >= 1);
    RawOut out{};
    const long long length = s.input + s.output;
    const long long group = (n + l.ep - 1) / l.ep;
    const double paged = static_cast<double>((length + s.s.kv_block_tokens - 1) / s.s.kv_block_tokens * s.s.kv_block_tokens);
    const double per_token = raw_cache_per_token(m), share = raw_share(s);
    out.memory = sh.weights + raw_ceil(per_token * (paged * static_cast<double>(group)) / share) + sh.working;
    out.most = sh.most;
    // The decode step at the mean context: the weights and every sequence's cache read (decode attention
    // at its share of the bandwidth: 1 under the roofline, for a positive context), compute at the peak.
    const long long micro = raw_micro_batches(s, group);
    const double b = static_cast<double>((group + micro - 1) / micro), stages = static_cast<double>(l.pp);
    const double context = static_cast<double>(s.input) + static_cast<double>(s.output) / 2.0;
    const double cached = b * context;
    raw_check(within(cached, tiny, huge));
    const double weights_read = stages * (raw_weights(sh, l) / s.g.bandwidth);
    const double kv_read = stages * 1.0 * ((per_token * (context * b) / share - 0.0) / s.g.bandwidth);
    const double gemms = 2.0 * static_cast<double>(sh.counts.active) * b;
    const double attention = 4.0 * static_cast<double>(m.layers) * static_cast<double>(m.heads * head_dim(m)) * (b * context);
    const double compute = stages * ((gemms + attention) / static_cast<double>(l.tp * l.pp) / s.g.flops);
    const double step = std::max(weights_read + kv_read + 0.0, compute) + raw_pass_communication(s, b) + raw_overhead(s);
    const double o = static_cast<double>(s.output);
    out.tpot = step + b / o * sh.prefill;
    const double service = step + sh.prefill + (o - 1.0) * out.tpot;
    out.requests_per_s = static_cast<double>(n) / service;
    double queue = 0.0;
    if (s.arrival > 0) {  // M/D/1 (serving.hpp's md1_wait)
        raw_check(within(out.requests_per_s, tiny, huge));
        const double rho = s.arrival / out.requests_per_s;
        raw_check(rho < 1.0);
        queue = rho / (2.0 * (1.0 - rho)) / out.requests_per_s;
    }
    out.ttft = queue + step + sh.prefill;
    out.e2e = queue + service;
    out.tokens_per_s = o * out.requests_per_s;
    out.per_gpu = out.tokens_per_s / static_cast<double>(l.tp * l.pp * l.ep);
    out.per_user = 1.0 / out.tpot;
    return out;
}
RawOut raw_serve(const RawServing& s, long long n) { return raw_serve_at(s, raw_shared(s), n); }

RawSetup raw_of(const ServingSetup& s) {
    return {s.bytes_per_activation, s.all_reduces_per_layer, s.kv_block_tokens, s.working_tokens.value(),
            s.working_allowance.value(), s.prefill_chunk, s.pipeline_micro_batches, s.kv_offload.capacity.value(),
            s.kv_offload.bandwidth.value(), s.profile.pass_overhead.value(), s.profile.layer_overhead.value(),
            s.profile.gemm_share, s.expert_skew};
}
constexpr ServingLayout layout_70b{.tp = 8};
constexpr ServingWorkload chat{.input_tokens = 2048, .output_tokens = 512, .concurrency = 128};
constexpr ServingSetup roofline{.profile = roofline_serving};
const RawLink raw_nvlink4{catalog::nvlink4.bandwidth.value(), catalog::nvlink4.step_latency.value()};
// A single link is a fabric of one node holding every GPU (serving.hpp's ServingFabric).
const RawServing raw_70b{catalog::llama3_1_70b, raw_twin::of(catalog::h100_sxm), raw_nvlink4, raw_nvlink4, limits::gpus,
                         layout_70b, chat.input_tokens, chat.output_tokens, chat.concurrency, 0.0, raw_of(roofline)};

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

void check_agreement(const ServingEstimate& e, const RawOut& r) {
    if (!close(e.ttft.value(), r.ttft) || !close(e.tpot.value(), r.tpot) || !close(e.e2e.value(), r.e2e) ||
        !close(e.output_tokens_per_s.value(), r.tokens_per_s) || e.max_concurrency != r.most ||
        !close(e.output_tokens_per_s_per_gpu.value(), r.per_gpu) ||
        !close(e.output_tokens_per_s_per_user.value(), r.per_user) ||
        !close(e.requests_per_s.value(), r.requests_per_s) || !close(e.memory.total().value(), r.memory)) {
        std::fprintf(stderr, "raw twin disagrees: ttft %.17g vs %.17g, tpot %.17g vs %.17g, most %lld vs %lld\n",
                     e.ttft.value(), r.ttft, e.tpot.value(), r.tpot, e.max_concurrency, r.most);
        std::abort();
    }
}

std::vector<long long> sweep_points() {
    std::vector<long long> ns;
    for (long long k = 1; k <= 64; ++k) ns.push_back(k * 8);  // 8 … 512, within the 570 that fit
    return ns;
}

// Inputs are local copies hidden from the optimizer each iteration (DoNotOptimize),
// so neither side is folded at compile time.
void time_evaluations(benchmark::State& state, const ServingSetup& setup) {
    TransformerShape model = catalog::llama3_1_70b;
    Gpu gpu = catalog::h100_sxm;
    Link link = catalog::nvlink4;
    ServingLayout layout = layout_70b;
    ServingWorkload workload = chat;
    for (auto _ : state) {
        benchmark::DoNotOptimize(model);
        benchmark::DoNotOptimize(gpu);
        benchmark::DoNotOptimize(link);
        benchmark::DoNotOptimize(layout);
        benchmark::DoNotOptimize(workload);
        const ServingEstimate e = evaluate_serving(model, gpu, link, layout, workload, setup);
        benchmark::DoNotOptimize(e);
    }
}

void BM_serving_evaluation(benchmark::State& state) {
    check_agreement(evaluate_serving(catalog::llama3_1_70b, catalog::h100_sxm, catalog::nvlink4, layout_70b, chat, roofline),
                    raw_serve(raw_70b, chat.concurrency));
    time_evaluations(state, roofline);
}
BENCHMARK(BM_serving_evaluation);

void BM_serving_evaluation_measured(benchmark::State& state) { time_evaluations(state, default_serving_setup); }
BENCHMARK(BM_serving_evaluation_measured);

void BM_serving_evaluation_raw(benchmark::State& state) {
    check_agreement(evaluate_serving(catalog::llama3_1_70b, catalog::h100_sxm, catalog::nvlink4, layout_70b, chat, roofline),
                    raw_serve(raw_70b, chat.concurrency));
    RawServing serving = raw_70b;
    long long n = chat.concurrency;
    for (auto _ : state) {
        benchmark::DoNotOptimize(serving);
        benchmark::DoNotOptimize(n);
        const RawOut out = raw_serve(serving, n);
        benchmark::DoNotOptimize(out);
    }
}
BENCHMARK(BM_serving_evaluation_raw);

// The 64 concurrencies of sweep_points in one serving_sweep, inputs hidden as in time_evaluations.
void time_sweeps(benchmark::State& state, const ServingSetup& setup) {
    const std::vector<long long> ns = sweep_points();
    TransformerShape model = catalog::llama3_1_70b;
    Gpu gpu = catalog::h100_sxm;
    Link link = catalog::nvlink4;
    ServingLayout layout = layout_70b;
    ServingWorkload workload = chat;
    for (auto _ : state) {
        benchmark::DoNotOptimize(model);
        benchmark::DoNotOptimize(gpu);
        benchmark::DoNotOptimize(link);
        benchmark::DoNotOptimize(layout);
        benchmark::DoNotOptimize(workload);
        const auto out = serving_sweep(model, gpu, link, layout, workload, ns, setup);
        benchmark::DoNotOptimize(out.data());
    }
}

void BM_serving_sweep_64(benchmark::State& state) {
    const std::vector<long long> ns = sweep_points();
    const auto rows = serving_sweep(catalog::llama3_1_70b, catalog::h100_sxm, catalog::nvlink4, layout_70b, chat, ns,
                                  roofline);
    for (std::size_t i = 0; i < ns.size(); ++i) check_agreement(rows[i], raw_serve(raw_70b, ns[i]));
    time_sweeps(state, roofline);
}
BENCHMARK(BM_serving_sweep_64);

// The same sweep at the measured default (kernel rates, tile quantization): issue 23's goal of
// 20 µs for 64 points is set for the model users get, not only the roofline.
void BM_serving_sweep_64_measured(benchmark::State& state) { time_sweeps(state, default_serving_setup); }
BENCHMARK(BM_serving_sweep_64_measured);

void BM_serving_sweep_64_raw(benchmark::State& state) {
    const std::vector<long long> ns = sweep_points();
    const auto rows = serving_sweep(catalog::llama3_1_70b, catalog::h100_sxm, catalog::nvlink4, layout_70b, chat, ns,
                                  roofline);
    for (std::size_t i = 0; i < ns.size(); ++i) check_agreement(rows[i], raw_serve(raw_70b, ns[i]));
    RawServing serving = raw_70b;
    for (auto _ : state) {
        benchmark::DoNotOptimize(serving);
        std::vector<RawOut> out;
        out.reserve(ns.size());
        const RawShared shared = raw_shared(serving);
        for (long long n : ns) out.push_back(raw_serve_at(serving, shared, n));
        benchmark::DoNotOptimize(out.data());
    }
}
BENCHMARK(BM_serving_sweep_64_raw);

// The request-level simulator (serving/engine.hpp): 100,000 requests of 2,048
// + 256 tokens, Poisson at 40 requests/s (near Llama 3.1 8B's capacity on an
// H100, so the batch stays full), through continuous batching with chunked
// prefill; the traffic generated outside the timing. Goal (issue 24): ≤ 1 s.
void BM_simulate_continuous_100k(benchmark::State& state) {
    TrafficSpec traffic;
    traffic.requests = 100'000;
    traffic.arrivals = {Arrivals::Kind::poisson, 40.0, 1.0};
    traffic.input = fixed_length(2048);
    traffic.output = fixed_length(256);
    const std::vector<Request> requests = generate_requests(traffic);
    long long steps = 0;
    for (auto _ : state) {
        const SimulationResult r =
            simulate_serving(catalog::llama3_1_8b, catalog::h100_sxm, catalog::nvlink4, {}, requests, EngineLimits{});
        steps = static_cast<long long>(r.steps.size());
        benchmark::DoNotOptimize(r.requests.back().finish);
    }
    state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_simulate_continuous_100k)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
