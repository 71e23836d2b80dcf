// Every public formula next to its raw-double twin, so "units cost nothing" is
// a measured ratio (the goal: the unit-typed version within 5 % of the twin).
// Each twin does the same arithmetic and the same input checks on plain
// doubles; integer-only helpers that touch no quantity (parameter_count,
// head_dim, parameters_per_gpu) are shared. Inputs pass through
// benchmark::DoNotOptimize every iteration so nothing folds to a constant.
// Before it is timed, each twin must reproduce the library's result on the
// same inputs (relative 1e-12), or its benchmark fails with an error.
//
//   ./build/bench/bench_formulas --benchmark_enable_random_interleaving=true --benchmark_repetitions=10
//       --benchmark_report_aggregates_only=true   (one line)
//
// Formulas timed elsewhere with their twins: token_time and best_gpu_count
// (bench_split), evaluate_training with every part of the step (bench_training:
// its twin repeats the element-wise, TP, PP, EP and DP terms; the context-parallel
// exchange is zero at its cp = 1), the pipeline bubbles and the schedule simulator
// (bench_pipeline), the NCCL-style choices (bench_collectives, no twin).
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/collectives.hpp>
#include <napkin/compute.hpp>
#include <napkin/inference.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/memory.hpp>
#include <napkin/training.hpp>

#include <benchmark/benchmark.h>

#include "raw_twin.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace {

using namespace napkin;

constexpr auto raw_check = raw_twin::check;
double raw_ceil(double v) {
    const auto t = static_cast<double>(static_cast<long long>(v));
    return t < v ? t + 1 : t;
}

// Inputs, laundered each iteration.
struct Inputs {
    double message = 64.0 * 1024 * 1024;  // 64 MiB
    long long ranks = 8;
    double bandwidth = 300e9, step = 0.6e-6, base = 6.6e-6;
    double gpu_bandwidth = 2.039e12, gpu_flops = 312e12;
    double parameters = 175e9;
    long long shards = 64;
};
Inputs inputs;

Link link_of(const Inputs& in) {
    return Link{.name = "bench", .bandwidth = bytes_per_second(in.bandwidth), .step_latency = seconds(in.step)};
}

bool same(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }
// The twin benchmark's first lines: time the twin only if it reproduces the library.
#define NAPKIN_TWIN_MUST_AGREE(agrees, function)                                          \
    if (!(agrees)) {                                                                   \
        state.SkipWithError("the raw-double twin does not reproduce " function);       \
        return;                                                                        \
    }

// --- hardware: read_time --------------------------------------------------------
void read_time_units(benchmark::State& state) {
    Gpu gpu = catalog::a100_80gb_sxm;
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        gpu.memory_bandwidth = bytes_per_second(inputs.gpu_bandwidth);
        benchmark::DoNotOptimize(read_time(bytes(inputs.message), gpu));
    }
}
double raw_read_time(const Inputs& in) { return in.message / in.gpu_bandwidth; }
bool read_time_twin_agrees() {
    Gpu gpu = catalog::a100_80gb_sxm;
    gpu.memory_bandwidth = bytes_per_second(inputs.gpu_bandwidth);
    return same(raw_read_time(inputs), read_time(bytes(inputs.message), gpu).value());
}
void read_time_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(read_time_twin_agrees(), "read_time")
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(raw_read_time(inputs));
    }
}
BENCHMARK(read_time_units);
BENCHMARK(read_time_raw);

// --- collectives ---------------------------------------------------------------
struct RawCollective {
    double latency, bandwidth;
};
// collectives.hpp's check_collective on plain numbers: ranks in [1, limits::gpus], the link's rate in
// [1 B/s, 1e18 B/s] and its α 0 or in [DBL_MIN, an hour], the base 0 or normal, the message 0 or in
// [DBL_MIN, 1e18 B].
bool raw_zero_or_within(double x, double high) { return raw_twin::zero_or_within(x, raw_twin::tiny, high); }
void raw_check_collective(double message, long long ranks, double bandwidth, double step, double base) {
    raw_check(ranks >= 1 && ranks <= limits::gpus && bandwidth >= limits::slowest_rate &&
              bandwidth <= limits::bandwidth_bytes_per_s && raw_zero_or_within(step, limits::latency_s) &&
              raw_zero_or_within(base, std::numeric_limits<double>::max()));
    raw_check(raw_zero_or_within(message, limits::message_bytes));
}
RawCollective raw_ring(double m, long long n, double bw, double step, double base) {
    raw_check_collective(m, n, bw, step, base);
    if (n == 1) return {0, 0};
    const double steps = 2.0 * static_cast<double>(n - 1);
    return {base + steps * step, steps / static_cast<double>(n) * (m / bw)};
}
RawCollective raw_one_pass(double m, long long n, double bw, double step, double base) {  // rs, ag, a2a
    raw_check_collective(m, n, bw, step, base);
    if (n == 1) return {0, 0};
    const double steps = static_cast<double>(n - 1);
    return {base + steps * step, steps / static_cast<double>(n) * (m / bw)};
}
RawCollective raw_tree(double m, long long n, double bw, double step, double base) {
    raw_check_collective(m, n, bw, step, base);
    if (n == 1) return {0, 0};
    long long depth = 0;
    for (long long reach = 1; reach < n; reach *= 2) ++depth;
    const double levels = 2.0 * static_cast<double>(depth);
    return {base + levels * step, levels * (m / bw)};
}
RawCollective raw_p2p(double m, double bw, double step, double base) {
    raw_check_collective(m, 2, bw, step, base);
    return {base + step, m / bw};
}

#define NAPKIN_COLLECTIVE_PAIR(name, units_call, raw_call)                             \
    void name##_units(benchmark::State& state) {                                       \
        for (auto _ : state) {                                                         \
            benchmark::DoNotOptimize(inputs);                                          \
            const Link link = link_of(inputs);                                         \
            const Bytes message = bytes(inputs.message);                               \
            const Seconds base = seconds(inputs.base);                                 \
            benchmark::DoNotOptimize((units_call).total());                            \
        }                                                                              \
    }                                                                                  \
    bool name##_twin_agrees() {                                                        \
        const Link link = link_of(inputs);                                             \
        const Bytes message = bytes(inputs.message);                                   \
        const Seconds base = seconds(inputs.base);                                     \
        const CollectiveTime u = units_call;                                           \
        const RawCollective t = raw_call;                                              \
        return same(t.latency, u.latency.value()) && same(t.bandwidth, u.bandwidth.value()); \
    }                                                                                  \
    void name##_raw(benchmark::State& state) {                                         \
        NAPKIN_TWIN_MUST_AGREE(name##_twin_agrees(), #name)                            \
        for (auto _ : state) {                                                         \
            benchmark::DoNotOptimize(inputs);                                          \
            const RawCollective t = raw_call;                                          \
            benchmark::DoNotOptimize(t.latency + t.bandwidth);                         \
        }                                                                              \
    }                                                                                  \
    BENCHMARK(name##_units);                                                           \
    BENCHMARK(name##_raw);

NAPKIN_COLLECTIVE_PAIR(ring_all_reduce, ring_all_reduce(message, inputs.ranks, link, base),
                       raw_ring(inputs.message, inputs.ranks, inputs.bandwidth, inputs.step, inputs.base))
NAPKIN_COLLECTIVE_PAIR(tree_all_reduce, tree_all_reduce(message, inputs.ranks, link, base),
                       raw_tree(inputs.message, inputs.ranks, inputs.bandwidth, inputs.step, inputs.base))
NAPKIN_COLLECTIVE_PAIR(reduce_scatter, reduce_scatter(message, inputs.ranks, link, base),
                       raw_one_pass(inputs.message, inputs.ranks, inputs.bandwidth, inputs.step, inputs.base))
NAPKIN_COLLECTIVE_PAIR(all_gather, all_gather(message, inputs.ranks, link, base),
                       raw_one_pass(inputs.message, inputs.ranks, inputs.bandwidth, inputs.step, inputs.base))
NAPKIN_COLLECTIVE_PAIR(all_to_all, all_to_all(message, inputs.ranks, link, base),
                       raw_one_pass(inputs.message, inputs.ranks, inputs.bandwidth, inputs.step, inputs.base))
NAPKIN_COLLECTIVE_PAIR(point_to_point, point_to_point(message, link, base),
                       raw_p2p(inputs.message, inputs.bandwidth, inputs.step, inputs.base))
#undef NAPKIN_COLLECTIVE_PAIR

// --- inference: memory per GPU, the combined tensor × pipeline split -------------
TransformerShape model_70b = catalog::llama3_1_70b;

// Both read the GPU's bandwidth and peak from the laundered inputs (a catalog
// constant would let the compiler fold the unit version's GPU checks away).
void combined_token_time_units(benchmark::State& state) {
    Gpu gpu = catalog::a100_80gb_sxm;
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(model_70b);
        gpu.memory_bandwidth = bytes_per_second(inputs.gpu_bandwidth);
        gpu.peak_flops = flops_per_second(inputs.gpu_flops);
        const TensorPipelineSplit split{inputs.ranks / 2, 2, 16};
        benchmark::DoNotOptimize(combined_token_time(model_70b, gpu, link_of(inputs), split).total());
    }
}
Gpu gpu_of(const Inputs& in) {
    Gpu gpu = catalog::a100_80gb_sxm;
    gpu.memory_bandwidth = bytes_per_second(in.gpu_bandwidth);
    gpu.peak_flops = flops_per_second(in.gpu_flops);
    return gpu;
}
double raw_combined_token_time(const Inputs& in, const TransformerShape& m) {
    const double usable_fraction = catalog::default_usable_fraction;
    const long long tp = in.ranks / 2, pp = 2, k = 16;
    // The same checks: model, GPU, link, setup, split.
    (void)validated(m);  // integer-only checks, shared
    // hardware.hpp's usual_gpu over every field of the catalog's A100 with the two the inputs set, the link's.
    raw_twin::Gpu a100 = raw_twin::of(catalog::a100_80gb_sxm);
    a100.usable = usable_fraction;
    a100.bandwidth = in.gpu_bandwidth;
    a100.flops = in.gpu_flops;
    raw_check(raw_twin::usual(a100) && raw_twin::usual(raw_twin::Link{in.bandwidth, in.step}));
    // The setup's checks (bytes per weight, cache value, activation positive; context, working tokens,
    // allowance 0 or normal; all-reduces per layer in [0, 1024]), then the split's, then the share's and
    // the compute time's own checks of the GPU count and the tokens.
    constexpr double weight_bytes = 2.0, cache_bytes = 2.0, activation_bytes = 2.0, huge = std::numeric_limits<double>::max();
    constexpr double tiny = std::numeric_limits<double>::min();
    raw_check(raw_twin::within(weight_bytes, tiny, huge) && raw_twin::within(cache_bytes, tiny, huge) &&
              raw_twin::within(activation_bytes, tiny, huge) && raw_zero_or_within(8192.0, huge) &&
              raw_zero_or_within(2048.0, huge) && raw_zero_or_within(1073741824.0, huge) && 2 >= 0 && 2 <= 1024);
    raw_check(tp >= 1 && pp >= 1 && k >= 1);
    const long long gpus = tp * pp;
    raw_check(gpus >= 1);
    raw_check(gpus >= 1 && k >= 1);
    const double share = raw_ceil(static_cast<double>(parameter_count(m)) * 2.0 / static_cast<double>(gpus));
    const double read = share / in.gpu_bandwidth;
    const double compute = 2.0 * static_cast<double>(active_parameter_count(m)) * static_cast<double>(k) /
                           static_cast<double>(gpus) / in.gpu_flops;
    const double busy = std::max(read, compute);
    const double message = static_cast<double>(m.hidden) * 2.0 * static_cast<double>(k);
    const RawCollective ar = raw_ring(message, tp, in.bandwidth, in.step, 6.6e-6);
    const RawCollective p2p = raw_p2p(message, in.bandwidth, in.step, 6.6e-6);
    const double all_reduces = tp == 1 ? 0.0 : static_cast<double>(2 * m.layers) * (ar.latency + ar.bandwidth);
    const double hand_offs = static_cast<double>(pp - 1) * (p2p.latency + p2p.bandwidth);
    return static_cast<double>(pp) * busy + all_reduces + hand_offs;
}
bool combined_token_time_twin_agrees() {
    const TensorPipelineSplit split{inputs.ranks / 2, 2, 16};
    const TokenTime t = combined_token_time(model_70b, gpu_of(inputs), link_of(inputs), split);
    return same(raw_combined_token_time(inputs, model_70b), t.total().value());
}
void combined_token_time_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(combined_token_time_twin_agrees(), "combined_token_time")
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(model_70b);
        benchmark::DoNotOptimize(raw_combined_token_time(inputs, model_70b));
    }
}
BENCHMARK(combined_token_time_units);
BENCHMARK(combined_token_time_raw);

void combined_memory_per_gpu_units(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(model_70b);
        benchmark::DoNotOptimize(combined_memory_per_gpu(model_70b, {inputs.ranks / 2, 2, 16}).total());
    }
}
double raw_combined_memory_per_gpu(const Inputs& in, const TransformerShape& m) {
    const long long tp = in.ranks / 2, pp = 2, k = 16;
    (void)validated(m);
    raw_check(tp >= 1 && pp >= 1 && k >= 1);
    const double weights = raw_ceil(static_cast<double>(parameter_count(m)) * 2.0 / static_cast<double>(tp * pp));
    const double kv_per_token = static_cast<double>(2 * m.layers * m.kv_heads * head_dim(m)) * 2.0;
    const double kv = raw_ceil(kv_per_token * 8192.0 * static_cast<double>(k) /
                               (static_cast<double>(pp) * static_cast<double>(std::min(tp, m.kv_heads))));
    const double working = static_cast<double>(3 * m.ffn + 4 * m.hidden) * 2.0 * 2048.0 + 1073741824.0;
    return weights + kv + working;
}
bool combined_memory_per_gpu_twin_agrees() {
    return same(raw_combined_memory_per_gpu(inputs, model_70b),
                combined_memory_per_gpu(model_70b, {inputs.ranks / 2, 2, 16}).total().value());
}
void combined_memory_per_gpu_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(combined_memory_per_gpu_twin_agrees(), "combined_memory_per_gpu")
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(model_70b);
        benchmark::DoNotOptimize(raw_combined_memory_per_gpu(inputs, model_70b));
    }
}
BENCHMARK(combined_memory_per_gpu_units);
BENCHMARK(combined_memory_per_gpu_raw);

// --- training memory ---------------------------------------------------------------
TransformerShape gpt3 = catalog::gpt3_175b;
Parallelism megatron{.tp = 8, .pp = 16, .dp = 8, .micro_batch = 1, .global_batch = 1536, .sequence = 2048,
                     .sequence_parallel = true, .recompute = Recompute::selective, .sharding = Sharding::distributed};

double raw_bytes_of(DType d) {
    switch (d) {
        case DType::none: return 0.0;
        case DType::fp8: return 1.0;
        case DType::bf16:
        case DType::fp16: return 2.0;
        case DType::fp32: return 4.0;
    }
    return 0.0;
}
struct RawStates {
    double weights, gradients, optimizer;
};
RawStates raw_model_states(double psi, long long shards, const Parallelism& par) {
    // memory.hpp's checks: the parameters 0 or finite and normal, at least one shard.
    raw_check(raw_zero_or_within(psi, std::numeric_limits<double>::max()) && shards >= 1);
    const double n = static_cast<double>(shards);
    const bool opt = par.sharding != Sharding::none;
    const bool grads = par.sharding == Sharding::zero2 || par.sharding == Sharding::zero3;
    const bool weights = par.sharding == Sharding::zero3;
    const double k = raw_bytes_of(par.master) + 2.0 * raw_bytes_of(par.moments);
    return {raw_bytes_of(par.weights) * psi / (weights ? n : 1.0),
            raw_bytes_of(par.gradients) * psi / (grads ? n : 1.0), k * psi / (opt ? n : 1.0)};
}
double raw_activation_per_layer(const TransformerShape& m, const Parallelism& par) {
    const double t = static_cast<double>(par.tp);
    const double s = static_cast<double>(par.sequence / par.cp);
    const double b = static_cast<double>(par.micro_batch);
    const double h = static_cast<double>(m.hidden);
    const double sbh = s * b * h;
    if (par.recompute == Recompute::full) return 2.0 * sbh / (par.sequence_parallel ? t : 1.0);
    const double q = static_cast<double>(m.heads * head_dim(m));
    const double kv = static_cast<double>(m.kv_heads * head_dim(m));
    const double attention = 2.0 * s * b * (2.0 * q + 2.0 * kv);
    const bool keep = par.recompute == Recompute::none && !par.flash_attention;
    const double scores = keep ? 5.0 * static_cast<double>(m.heads) * s * static_cast<double>(par.sequence / par.cp) * b : 0.0;
    const bool moe = m.experts > 0;
    const double f = static_cast<double>(moe ? m.expert_ffn : m.ffn);
    const double routed = moe ? static_cast<double>(m.experts_per_token) : 1.0;
    const double mlp = (m.feed_forward == FeedForward::gated ? 6.0 : 4.0) * s * b * f * routed;
    const double split = (attention + scores + mlp) / t;
    return par.sequence_parallel ? (10.0 * sbh / t + split) : (10.0 * sbh + split);
}
double raw_layers_in_flight(const TransformerShape& m, const Parallelism& par) {
    const long long mb = par.global_batch / (par.micro_batch * par.dp);
    const double per_chunk = static_cast<double>(m.layers) / static_cast<double>(par.pp * par.virtual_stages);
    if (par.virtual_stages == 1) return static_cast<double>(std::min(mb, par.pp)) * per_chunk;
    const long long chunks = 2 * (par.pp - 1) + (par.virtual_stages - 1) * par.pp + 1;
    return static_cast<double>(std::min(chunks, mb * par.virtual_stages)) * per_chunk;
}

void model_states_units(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(model_states(inputs.parameters, inputs.shards, megatron).total());
    }
}
bool model_states_twin_agrees() {
    const RawStates r = raw_model_states(inputs.parameters, inputs.shards, megatron);
    const ModelStates u = model_states(inputs.parameters, inputs.shards, megatron);
    return same(r.weights, u.weights.value()) && same(r.gradients, u.gradients.value()) &&
           same(r.optimizer, u.optimizer.value());
}
void model_states_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(model_states_twin_agrees(), "model_states")
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        const RawStates s = raw_model_states(inputs.parameters, inputs.shards, megatron);
        benchmark::DoNotOptimize(s.weights + s.gradients + s.optimizer);
    }
}
BENCHMARK(model_states_units);
BENCHMARK(model_states_raw);

void activation_bytes_per_layer_units(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(gpt3);
        benchmark::DoNotOptimize(megatron);
        benchmark::DoNotOptimize(activation_bytes_per_layer(gpt3, megatron));
    }
}
void activation_bytes_per_layer_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(
        same(raw_activation_per_layer(gpt3, megatron), activation_bytes_per_layer(gpt3, megatron).value()),
        "activation_bytes_per_layer")
    for (auto _ : state) {
        benchmark::DoNotOptimize(gpt3);
        benchmark::DoNotOptimize(megatron);
        benchmark::DoNotOptimize(raw_activation_per_layer(gpt3, megatron));
    }
}
BENCHMARK(activation_bytes_per_layer_units);
BENCHMARK(activation_bytes_per_layer_raw);

void training_memory_units(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(gpt3);
        benchmark::DoNotOptimize(megatron);
        benchmark::DoNotOptimize(training_memory(gpt3, megatron).total());
    }
}
struct RawMemory {
    double weights, gradients, optimizer, activations;
};
RawMemory raw_training_memory(const TransformerShape& m, const Parallelism& par) {
    const StageParameters p = parameters_per_gpu(m, par);  // plain doubles, shared
    const RawStates dense = raw_model_states(p.dense, par.dp * par.cp, par);
    const RawStates expert = raw_model_states(p.expert, par.dp * par.cp / par.ep, par);
    return {dense.weights + expert.weights, dense.gradients + expert.gradients, dense.optimizer + expert.optimizer,
            raw_layers_in_flight(m, par) * raw_activation_per_layer(m, par)};
}
bool training_memory_twin_agrees() {
    const RawMemory r = raw_training_memory(gpt3, megatron);
    const TrainingMemory u = training_memory(gpt3, megatron);
    return same(r.weights, u.weights.value()) && same(r.gradients, u.gradients.value()) &&
           same(r.optimizer, u.optimizer.value()) && same(r.activations, u.activations.value());
}
void training_memory_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(training_memory_twin_agrees(), "training_memory")
    for (auto _ : state) {
        benchmark::DoNotOptimize(gpt3);
        benchmark::DoNotOptimize(megatron);
        const RawMemory r = raw_training_memory(gpt3, megatron);
        benchmark::DoNotOptimize(r.weights + r.gradients + r.optimizer + r.activations);
    }
}
BENCHMARK(training_memory_units);
BENCHMARK(training_memory_raw);

// --- compute: FLOPs, achievable time, MFU ---------------------------------------------
void layer_forward_flops_units(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(gpt3);
        benchmark::DoNotOptimize(megatron);
        benchmark::DoNotOptimize(layer_forward_flops(gpt3, megatron.sequence));
    }
}
// compute.hpp's arithmetic: GQA or latent projections (the integer weight count is shared), dense or
// routed + shared experts + router, the attention core over the whole sequence or a sliding window's band
// on the local layers (model.hpp's attention_score_flops_per_sequence), not causal.
double raw_layer_forward_flops(const TransformerShape& m, long long sequence) {
    const double s = static_cast<double>(sequence);
    const double h = static_cast<double>(m.hidden);
    const bool latent = m.kv_lora_rank > 0;
    const double q = static_cast<double>(m.heads * head_dim(m));
    const double kv = static_cast<double>(m.kv_heads * head_dim(m));
    const double attention = latent ? static_cast<double>(latent_attention_weights(m)) : 2.0 * h * q + 2.0 * h * kv;
    const double per_ffn = m.feed_forward == FeedForward::gated ? 3.0 : 2.0;
    const double ffn = m.experts == 0 ? per_ffn * h * static_cast<double>(m.ffn)
                                      : static_cast<double>(m.experts_per_token) * per_ffn * h *
                                                static_cast<double>(m.expert_ffn) +
                                            static_cast<double>(m.shared_experts) * per_ffn * h *
                                                static_cast<double>(m.shared_expert_ffn) +
                                            h * static_cast<double>(m.experts);
    const double qk_width = latent ? static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim)
                                   : static_cast<double>(head_dim(m));
    const double v_width = latent ? static_cast<double>(m.v_head_dim) : static_cast<double>(head_dim(m));
    const double per_position = 2.0 * static_cast<double>(m.heads) * (qk_width + v_width);
    const double full = s * per_position * s;
    const double w = static_cast<double>(m.sliding_window);
    const double core = m.sliding_window == 0 || s <= w
                            ? full
                            : (static_cast<double>(global_attention_layers(m)) * full +
                               static_cast<double>(local_attention_layers(m)) * per_position * (s * s - (s - w) * (s - w))) /
                                  static_cast<double>(m.layers);
    return 2.0 * s * (attention + ffn) + core;
}
void layer_forward_flops_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(
        same(raw_layer_forward_flops(gpt3, megatron.sequence), layer_forward_flops(gpt3, megatron.sequence).value()),
        "layer_forward_flops")
    for (auto _ : state) {
        benchmark::DoNotOptimize(gpt3);
        benchmark::DoNotOptimize(megatron);
        benchmark::DoNotOptimize(raw_layer_forward_flops(gpt3, megatron.sequence));
    }
}
BENCHMARK(layer_forward_flops_units);
BENCHMARK(layer_forward_flops_raw);

Seconds library_achievable_compute_time(const Inputs& in, Gpu& gpu) {
    gpu.peak_flops = flops_per_second(in.gpu_flops);
    const double efficiency = achievable_efficiency(default_efficiency, 12288.0 / static_cast<double>(in.ranks));
    return achievable_compute_time(flops(in.parameters * 6.0), gpu, efficiency);
}
void achievable_compute_time_units(benchmark::State& state) {
    Gpu gpu = catalog::a100_80gb_sxm;
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(library_achievable_compute_time(inputs, gpu));
    }
}
double raw_achievable_compute_time(const Inputs& in) {
    const double r = default_efficiency.peak_share, half = default_efficiency.half_width;
    const double width = 12288.0 / static_cast<double>(in.ranks);
    raw_check(r > 0 && r <= 1 && half >= 0 && width > 0);
    const double efficiency = r * width / (width + half);
    raw_check(efficiency > 0 && efficiency <= 1);
    return in.parameters * 6.0 / (in.gpu_flops * efficiency);
}
bool achievable_compute_time_twin_agrees() {
    Gpu gpu = catalog::a100_80gb_sxm;
    return same(raw_achievable_compute_time(inputs), library_achievable_compute_time(inputs, gpu).value());
}
void achievable_compute_time_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(achievable_compute_time_twin_agrees(), "achievable_compute_time")
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(raw_achievable_compute_time(inputs));
    }
}
BENCHMARK(achievable_compute_time_units);
BENCHMARK(achievable_compute_time_raw);

double library_model_flops_utilisation(const Inputs& in, Gpu& gpu) {
    gpu.peak_flops = flops_per_second(in.gpu_flops);
    return model_flops_utilisation(flops(in.parameters * 6.0 * 3e6), seconds(20.0), 1024, gpu);
}
void model_flops_utilisation_units(benchmark::State& state) {
    Gpu gpu = catalog::a100_80gb_sxm;
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(library_model_flops_utilisation(inputs, gpu));
    }
}
double raw_model_flops_utilisation(const Inputs& in) {
    const double step = 20.0;
    const long long gpus = 1024;
    raw_check(step > 0 && gpus >= 1);
    return in.parameters * 6.0 * 3e6 / step / (static_cast<double>(gpus) * in.gpu_flops);
}
bool model_flops_utilisation_twin_agrees() {
    Gpu gpu = catalog::a100_80gb_sxm;
    return same(raw_model_flops_utilisation(inputs), library_model_flops_utilisation(inputs, gpu));
}
void model_flops_utilisation_raw(benchmark::State& state) {
    NAPKIN_TWIN_MUST_AGREE(model_flops_utilisation_twin_agrees(), "model_flops_utilisation")
    for (auto _ : state) {
        benchmark::DoNotOptimize(inputs);
        benchmark::DoNotOptimize(raw_model_flops_utilisation(inputs));
    }
}
BENCHMARK(model_flops_utilisation_units);
BENCHMARK(model_flops_utilisation_raw);

#undef NAPKIN_TWIN_MUST_AGREE

}  // namespace
