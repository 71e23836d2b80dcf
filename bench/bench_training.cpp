// One full training evaluation (validation, memory, step breakdown, MFU) of
// GPT-3 175B, t8 p16 d8 on 128 DGX A100 nodes (1,024 GPUs), next to a
// raw-double twin that does the same work step by step: the same checks in the
// same order, the same integer divisions, the placement of every group on the
// nodes, the hierarchical all-reduce of the data-parallel gradients, the
// expert-parallel and ZeRO branches the layout takes, and pipeline.hpp's 1F1B
// bubble from the stage's F, B and W. Before timing, both must give the
// same step, memory and MFU (to 1e-12), or the benchmark reports an error.
// What the twin leaves out (the ratio counts it with the types): the model's
// and the cluster's checks beyond the sign of each field, the context-parallel
// exchange (zero at cp = 1), the memory allowances, optimizers other than Adam
// and the FP8 utilisation.
// The twin is of the flat compute model (TrainingOptions::compute_model =
// flat, compute.hpp's EfficiencyModel); the GEMM model, the default, is timed
// on its own (evaluate_with_units) and has no twin.
//
//   build-*/bench/bench_training --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/layer_map.hpp>
#include <napkin/training.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace napkin;

namespace {

const Parallelism layout{.tp = 8, .pp = 16, .dp = 8, .global_batch = 1536, .sequence = 2048,
                         .recompute = Recompute::full, .gradients = DType::fp32};

void evaluate_with_units(benchmark::State& state) {
    const TransformerShape model = catalog::gpt3_175b;
    const Cluster cluster = cluster_of(catalog::dgx_a100, 128);
    Parallelism par = layout;
    for (auto _ : state) {
        benchmark::DoNotOptimize(par);
        const TrainingEstimate e = evaluate_training(model, cluster, par);
        benchmark::DoNotOptimize(e);
    }
}
BENCHMARK(evaluate_with_units);

constexpr TrainingOptions flat_options{.compute_model = ComputeModel::flat};

void evaluate_with_units_flat(benchmark::State& state) {
    const TransformerShape model = catalog::gpt3_175b;
    const Cluster cluster = cluster_of(catalog::dgx_a100, 128);
    Parallelism par = layout;
    for (auto _ : state) {
        benchmark::DoNotOptimize(par);
        const TrainingEstimate e = evaluate_training(model, cluster, par, flat_options);
        benchmark::DoNotOptimize(e);
    }
}
BENCHMARK(evaluate_with_units_flat);

// ---------------------------------------------------------------------------
// The twin: the same inputs as plain numbers. Its functions are `inline`, as
// the library's constexpr functions are, so the compiler inlines both alike.

struct RawModel {
    long long layers, hidden, ffn, heads, kv_heads, vocabulary, head_dim, learned_positions;
    long long experts, experts_per_token, expert_ffn;
    bool tied, gated, biases;
};
struct RawLink {
    double bandwidth, latency;  // bytes/s, s
};
struct RawCluster {
    double memory, usable_fraction, memory_bandwidth, peak;  // the GPU
    long long gpus_per_node;
    RawLink intra, inter;
    bool nic_per_gpu;
    long long nodes;
};
struct RawLayout {
    long long tp, pp, dp, ep, cp, v, b, B, s;
    int schedule;  // 0 automatic, 1 gpipe, 2 1f1b, 3 interleaved, 4 zb-h1, 5 zb-h2, 6 dualpipe, 7 dualpipev
    bool sp;
    int recompute;  // 0 none, 1 selective, 2 full
    int sharding;   // 0 none, 1–3 ZeRO, 4 distributed
    bool flash;
    double w, g, master, moments;  // bytes per value
};
struct RawOptions {
    double peak_share, half_width, memory_passes, base;
    bool causal, scatter_gather, overlap_dp;
};
struct RawEstimate {
    double weights, gradients, optimizer, activations;
    bool fits;
    double compute, recompute, tp, pp, bubble, dp, ep, opt, step, tokens_per_s, mfu, hfu, model_flops, hardware_flops;
};

[[noreturn, gnu::cold, gnu::noinline]] void fail(const char* what) { throw std::invalid_argument(what); }
inline void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

struct Time {
    double latency, bandwidth;
    double total() const { return latency + bandwidth; }
};
inline Time operator+(Time a, Time b) { return {a.latency + b.latency, a.bandwidth + b.bandwidth}; }

inline void check_collective(double message, long long ranks, const RawLink& l, double base) {
    check(message >= 0, "message");
    check(ranks >= 1, "ranks");
    check(l.bandwidth > 0, "Link.bandwidth");
    check(l.latency >= 0, "Link.step_latency");
    check(base >= 0, "base_latency");
}
inline Time ring(double M, long long n, const RawLink& l, double base) {
    check_collective(M, n, l, base);
    if (n == 1) return {0, 0};
    const double steps = 2.0 * double(n - 1);
    return {base + steps * l.latency, steps / double(n) * (M / l.bandwidth)};
}
inline Time one_pass(double M, long long n, const RawLink& l, double base) {  // reduce-scatter, all-gather, all-to-all
    check_collective(M, n, l, base);
    if (n == 1) return {0, 0};
    const double steps = double(n - 1);
    return {base + steps * l.latency, steps / double(n) * (M / l.bandwidth)};
}
inline Time p2p(double M, const RawLink& l, double base) {
    check_collective(M, 2, l, base);
    return {base + l.latency, M / l.bandwidth};
}

struct Group {
    long long size, ranks_per_node, nodes;
};
inline Group place(long long size, long long stride, long long gpn) {
    check(size >= 1, "group size");
    check(stride >= 1, "group stride");
    check(gpn >= 1, "gpus_per_node");
    if (size == 1) return {1, 1, 1};
    const long long per_node = stride >= gpn ? 1 : std::min(size, gpn / stride);
    return {size, per_node, (size + per_node - 1) / per_node};
}
inline RawLink network(const RawCluster& c) {
    return c.nic_per_gpu ? c.inter : RawLink{c.inter.bandwidth / double(c.gpus_per_node), c.inter.latency};
}
inline RawLink link_for(const Group& g, const RawCluster& c) { return g.nodes > 1 ? network(c) : c.intra; }

inline Time hierarchical(double M, const Group& g, const RawCluster& c, double base, int kind) {  // 0 AR, 1 RS, 2 AG
    const RawLink inter = network(c);
    check(g.nodes >= 1, "nodes");
    check(g.ranks_per_node >= 1, "gpus_per_node");
    check(c.intra.bandwidth > 0, "intra.bandwidth");
    check(c.intra.latency >= 0, "intra.step_latency");
    check(inter.bandwidth > 0, "inter.bandwidth");
    check(inter.latency >= 0, "inter.step_latency");
    check(1.0 >= 1.0, "oversubscription");
    if (kind == 0) check(M >= 0, "message");
    check(base >= 0, "base_latency");
    const long long n = g.ranks_per_node;
    if (g.nodes * n == 1) return {0, 0};
    const RawLink across{inter.bandwidth / (1.0 * 1.0), inter.latency};  // one NIC per GPU, no oversubscription
    const Time start{base, 0};
    if (kind == 0) return start + one_pass(M, n, c.intra, 0) + ring(M / double(n), g.nodes, across, 0) +
                          one_pass(M, n, c.intra, 0);
    if (kind == 1) return start + one_pass(M, n, c.intra, 0) + one_pass(M / double(n), g.nodes, across, 0);
    return start + one_pass(M / double(n), g.nodes, across, 0) + one_pass(M, n, c.intra, 0);
}

inline double layer_forward(const RawModel& m, long long sequence, bool causal) {
    const double s = double(sequence), h = double(m.hidden);
    const long long hd = m.head_dim != 0 ? m.head_dim : m.hidden / m.heads;
    const double q = double(m.heads * hd), kv = double(m.kv_heads * hd);
    const double attention = 2.0 * h * q + 2.0 * h * kv;
    const double per_ffn = m.gated ? 3.0 : 2.0;
    const double ffn = m.experts == 0 ? per_ffn * h * double(m.ffn)
                                      : double(m.experts_per_token) * per_ffn * h * double(m.expert_ffn) +
                                            h * double(m.experts);
    return 2.0 * s * (attention + ffn) + 4.0 * s * s * q * (causal ? 0.5 : 1.0);
}
inline double recompute_per_sequence(const RawModel& m, const RawLayout& p, bool causal) {
    const long long hd = m.head_dim != 0 ? m.head_dim : m.hidden / m.heads;
    switch (p.recompute) {
        case 1: return double(m.layers) * 4.0 * double(p.s) * double(p.s) * double(m.heads * hd) * (causal ? 0.5 : 1.0);
        case 2: return double(m.layers) * layer_forward(m, p.s, causal);
        default: return 0.0;
    }
}
inline long long feed_forward_weights(const RawModel& m, long long width) {
    if (m.gated) return 3 * m.hidden * width + (m.biases ? 2 * width + m.hidden : 0);
    return 2 * m.hidden * width + (m.biases ? width + m.hidden : 0);
}

inline double sync(double params, const Group& g, const RawLayout& p, const RawCluster& c, double base) {
    if (g.size == 1 || params == 0.0) return 0.0;
    const double grads = params * p.g, weights = params * p.w;
    const bool across = g.nodes > 1;
    const auto all_reduce = [&](double M) { return across ? hierarchical(M, g, c, base, 0) : ring(M, g.size, c.intra, base); };
    const auto scatter = [&](double M) { return across ? hierarchical(M, g, c, base, 1) : one_pass(M, g.size, c.intra, base); };
    const auto gather = [&](double M) { return across ? hierarchical(M, g, c, base, 2) : one_pass(M, g.size, c.intra, base); };
    switch (p.sharding) {
        case 0: return all_reduce(grads).total();
        case 3: return scatter(grads).total() + 2.0 * double(p.B / (p.b * p.dp)) * gather(weights).total();
        default: return scatter(grads).total() + gather(weights).total();
    }
}

inline void validate(const RawModel& m, const RawCluster& c, const RawLayout& p) {
    check(p.tp >= 1, "tp");
    check(p.pp >= 1, "pp");
    check(p.dp >= 1, "dp");
    check(p.ep >= 1, "ep");
    check(p.cp >= 1, "cp");
    check(p.v >= 1, "virtual_stages");
    check(p.b >= 1, "micro_batch");
    check(p.B >= 1, "global_batch");
    check(p.s >= 1, "sequence");
    check(p.B % (p.b * p.dp) == 0, "global_batch");
    check((p.dp * p.cp) % p.ep == 0, "ep");
    check(p.s % p.cp == 0, "sequence");
    check(!(p.v > 1 && p.pp == 1), "virtual_stages");
    const int k = p.schedule != 0 ? p.schedule : (p.v > 1 ? 3 : 2);
    const long long mb = p.B / (p.b * p.dp);
    check(k == 3 || p.v == 1, "virtual_stages");
    check(!(k == 3 && p.v > 1 && mb % p.pp != 0), "micro-batches");
    check(!((k == 4 || k == 5) && mb < p.pp), "micro-batches");
    check(!(k == 6 && p.pp % 2 != 0), "pp");
    check(!(k == 6 && mb % 2 != 0), "micro-batches");
    check(p.w != 0.0, "weights");
    check(p.g != 0.0, "gradients");
    check(m.layers >= 1, "layers");
    check(m.hidden >= 1, "hidden");
    check(m.ffn >= 1, "ffn");
    check(m.heads >= 1, "heads");
    check(m.kv_heads >= 1, "kv_heads");
    check(m.vocabulary >= 1, "vocabulary");
    check(double(m.head_dim) >= 0, "head_dim");
    check(m.heads % m.kv_heads == 0, "kv_heads");
    check(m.head_dim != 0 || m.hidden % m.heads == 0, "hidden");
    check(double(m.experts) >= 0, "experts");
    check(m.experts == 0 || (m.experts_per_token >= 1 && m.experts_per_token <= m.experts), "experts_per_token");
    check(m.experts == 0 || m.expert_ffn >= 1, "expert_ffn");
    check(m.heads % p.tp == 0, "tp");
    check(m.layers % (p.pp * p.v) == 0, "pp × virtual_stages");
    check(!(p.ep > 1 && m.experts == 0), "ep");
    check(!(m.experts > 0 && m.experts % p.ep != 0), "ep");
    check(!(k == 7 && m.layers % (2 * p.pp) != 0), "pp");
    check(c.memory > 0, "Gpu.memory");
    check(c.usable_fraction > 0 && c.usable_fraction <= 1, "Gpu.usable_fraction");
    check(c.memory_bandwidth > 0, "Gpu.memory_bandwidth");
    check(c.peak > 0, "Gpu.peak_flops");
    check(c.gpus_per_node >= 1, "Node.gpus");
    check(c.intra.bandwidth > 0, "Link.bandwidth");
    check(c.intra.latency >= 0, "Link.step_latency");
    check(c.inter.bandwidth > 0, "Link.bandwidth");
    check(c.inter.latency >= 0, "Link.step_latency");
    check(c.nodes >= 1, "Cluster.nodes");
    check(p.tp * p.cp * p.pp * p.dp == c.nodes * c.gpus_per_node, "tp × cp × pp × dp");
}

// Korthikanti et al. 2022 Table 2, by what each part holds (memory.hpp).
inline double layer_activation_bytes(const RawModel& m, const RawLayout& p, int recompute, bool flash) {
    const double t = double(p.tp);
    const double s = double(p.s / p.cp), sbh = s * double(p.b) * double(m.hidden);
    if (recompute == 2) return 2.0 * sbh / (p.sp ? t : 1.0);
    const long long hd = m.head_dim != 0 ? m.head_dim : m.hidden / m.heads;
    const double q_width = double(m.heads * hd), kv_width = double(m.kv_heads * hd);
    const double attention_split = 2.0 * s * double(p.b) * (2.0 * q_width + 2.0 * kv_width);
    const double scores = (recompute == 0 && !flash) ? 5.0 * double(m.heads) * s * double(p.s / p.cp) * double(p.b) : 0.0;
    const bool moe = m.experts > 0;
    const double mlp = (m.gated ? 6.0 : 4.0) * s * double(p.b) * double(moe ? m.expert_ffn : m.ffn) *
                       (moe ? double(m.experts_per_token) : 1.0);
    const double replicated = 10.0 * sbh;
    const double split = (attention_split + scores + mlp) / t;
    return p.sp ? (replicated / t + split) : (replicated + split);
}

inline RawEstimate evaluate_raw(const RawModel& m, const RawCluster& c, const RawLayout& p, const RawOptions& o) {
    validate(m, c, p);
    const long long mb_count = p.B / (p.b * p.dp);
    const double mb = double(mb_count);
    // Achievable efficiency (Hockney) at the width h/t.
    const double width = double(m.hidden) / double(p.tp);
    check(o.peak_share > 0 && o.peak_share <= 1, "peak_share");
    check(o.half_width >= 0, "half_width");
    check(o.memory_passes >= 0, "memory_passes");
    check(width > 0, "width");
    const double eff = o.peak_share * width / (width + o.half_width);
    // One micro-batch on the slowest stage.
    const double layer_fwd = layer_forward(m, p.s, o.causal);
    const double logits = 2.0 * double(p.s) * double(m.hidden) * double(m.vocabulary);
    const double stage_flops = 3.0 * double(p.b) * (double(m.layers / p.pp) * layer_fwd + logits) / double(p.tp * p.cp);
    check(eff > 0 && eff <= 1, "efficiency");
    const double compute_matrix = stage_flops / (c.peak * eff);
    const double replay_flops = double(p.b) * recompute_per_sequence(m, p, o.causal) / double(p.pp * p.tp * p.cp);
    check(eff > 0 && eff <= 1, "efficiency");
    const double replay_matrix = replay_flops / (c.peak * eff);
    // Element-wise work at the memory bandwidth: 3 passes, and what recomputation replays.
    const double pass_bytes = layer_activation_bytes(m, p, 0, p.flash);
    const double scores_bytes = pass_bytes - layer_activation_bytes(m, p, 0, true);
    const double stage_layers = double(m.layers / p.pp);
    const double pass = o.memory_passes * stage_layers * (pass_bytes / c.memory_bandwidth);
    const double replayed = p.recompute == 2   ? pass
                            : p.recompute == 1 ? o.memory_passes * stage_layers * (scores_bytes / c.memory_bandwidth)
                                               : 0.0;
    const double compute = compute_matrix + 3.0 * pass;
    const double replay = replay_matrix + replayed;
    const double hidden_bytes = double(p.b) * double(p.s / p.cp) * double(m.hidden) * p.w;
    const double per_layer = p.recompute == 2 ? 6.0 : 4.0;
    double tp = 0;
    if (p.tp != 1) {
        const RawLink l = link_for(place(p.tp, 1, c.gpus_per_node), c);
        const Time one = p.sp ? one_pass(hidden_bytes, p.tp, l, o.base) + one_pass(hidden_bytes, p.tp, l, o.base)
                              : ring(hidden_bytes, p.tp, l, o.base);
        tp = double(m.layers / p.pp) * per_layer * one.total();
    }
    double pp = 0;
    if (p.pp != 1) {
        const RawLink l = link_for(place(p.pp, p.tp * p.cp * p.dp, c.gpus_per_node), c);
        const double message = hidden_bytes / (o.scatter_gather ? double(p.tp) : 1.0);
        pp = 2.0 * double(p.v) * p2p(message, l, o.base).total();
    }
    double ep = 0;
    if (!(p.ep == 1 || m.experts == 0)) {
        const RawLink l = link_for(place(p.ep, p.tp * p.cp, c.gpus_per_node), c);
        ep = double(m.layers / p.pp) * per_layer *
             one_pass(hidden_bytes * double(m.experts_per_token), p.ep, l, o.base).total();
    }
    // Parameters on the most loaded GPU.
    const int k = p.schedule != 0 ? p.schedule : (p.v > 1 ? 3 : 2);
    const double t = double(p.tp);
    const double layers = double(m.layers / p.pp);
    const double expert = m.experts == 0 ? 0.0 : double(m.experts * feed_forward_weights(m, m.expert_ffn));
    const long long hd = m.head_dim != 0 ? m.head_dim : m.hidden / m.heads;
    const long long q_width = m.heads * hd, kv_width = m.kv_heads * hd;
    const long long attention = 2 * m.hidden * q_width + 2 * m.hidden * kv_width +
                                (m.biases ? q_width + 2 * kv_width + m.hidden : 0);
    const long long norms = (m.biases ? 2 : 1) * m.hidden;
    const long long ffn_weights = m.experts == 0 ? feed_forward_weights(m, m.ffn)
                                                 : m.experts * feed_forward_weights(m, m.expert_ffn) + m.hidden * m.experts;
    const double dense_layer = double(attention + ffn_weights + 2 * norms) - expert;
    const double table = double(m.vocabulary * m.hidden) / t;
    const double positions = double(m.learned_positions * m.hidden);
    const double output = (!m.tied || p.pp > 1) ? table : 0.0;
    const double body = layers * dense_layer / t;
    const double first = body + table + positions + (p.pp == 1 ? output + double(norms) : 0.0);
    const double last = body + output + double(norms);
    const double copies = k == 6 ? 2.0 : 1.0;
    const double dense_params = copies * std::max(first, last);
    const double expert_params = copies * layers * expert / (t * double(p.ep));
    // Gradient synchronisation.
    const double dp_full = sync(dense_params, place(p.dp * p.cp, p.tp, c.gpus_per_node), p, c, o.base) +
                           sync(expert_params, place(p.dp * p.cp / p.ep, p.tp * p.cp * p.ep, c.gpus_per_node), p, c,
                                o.base);
    const double backward = (2.0 / 3.0) * compute + replay;
    const double dp = o.overlap_dp ? std::max(0.0, dp_full - backward) : dp_full;
    // Memory: model states (ZeRO) and activations in flight.
    RawEstimate e{};
    const double opt_bytes = p.master + 2.0 * p.moments;
    const auto states = [&](double psi, long long shards, double& w, double& g, double& opt) {
        check(psi >= 0, "parameters");
        check(shards >= 1, "shards");
        const double n = double(shards);
        w += p.w * psi / (p.sharding == 3 ? n : 1.0);
        g += p.g * psi / (p.sharding == 2 || p.sharding == 3 ? n : 1.0);
        opt += opt_bytes * psi / (p.sharding != 0 ? n : 1.0);
    };
    states(dense_params, p.dp * p.cp, e.weights, e.gradients, e.optimizer);
    states(expert_params, p.dp * p.cp / p.ep, e.weights, e.gradients, e.optimizer);
    double in_flight = 0;
    switch (k) {
        case 1: in_flight = mb; break;
        case 3: {
            const long long warmup = p.v == 1    ? std::min(p.pp - 1, mb_count)
                                     : mb_count == p.pp ? mb_count * p.v
                                                        : std::min(2 * (p.pp - 1) + (p.v - 1) * p.pp, mb_count * p.v);
            in_flight = double(std::min(warmup + 1, mb_count * p.v)) / double(p.v);
            break;
        }
        case 5: in_flight = double(std::min(2 * p.pp - 1, mb_count)); break;
        case 6: in_flight = double(std::min(p.pp + 1, mb_count)); break;
        case 7: in_flight = double(std::min(2 * p.pp + 1, 2 * mb_count)) / 2.0; break;
        default: in_flight = double(std::min(p.pp, mb_count)); break;  // 1F1B, ZB-H1
    }
    const double per_layer_bytes = layer_activation_bytes(m, p, p.recompute, p.flash);
    e.activations = in_flight * double(m.layers / p.pp) * per_layer_bytes;
    const double usable = c.memory * c.usable_fraction;
    const double truncated = double(static_cast<long long>(usable));
    e.fits = e.weights + e.gradients + e.optimizer + e.activations <= (truncated > usable ? truncated - 1.0 : truncated);
    // The bubble: pipeline.hpp's 1F1B (p − 1)(F + B), its checks first.
    const double forward_compute = compute / 3.0;
    const double forward = forward_compute + (p.recompute == 2 ? 2.0 / 6.0 : 2.0 / 4.0) * (tp + ep) + 0.5 * pp;
    const double backward_pass = (compute + replay + tp + pp + ep) - forward;
    check(p.pp >= 1, "stages");
    check(mb_count >= 1, "microbatches");
    check(p.v >= 1, "chunks");
    check(p.v == 1, "chunks");
    check(forward >= 0, "forward");
    check(backward_pass >= 0, "backward");
    check(forward_compute >= 0, "weight_grad");
    check(forward_compute <= backward_pass, "weight_grad");
    e.bubble = double(p.pp - 1) * (forward + backward_pass);
    // The optimizer: Adam's memory-bound update.
    const bool sharded = p.sharding != 0;
    const double opt_params = dense_params / (sharded ? double(p.dp * p.cp) : 1.0) +
                              expert_params / (sharded ? double(p.dp * p.cp / p.ep) : 1.0);
    e.opt = opt_params * (p.g + 2.0 * opt_bytes + p.w) / c.memory_bandwidth;
    e.compute = mb * compute;
    e.recompute = mb * replay;
    e.tp = mb * tp;
    e.pp = mb * pp;
    e.dp = dp;
    e.ep = mb * ep;
    e.step = e.compute + e.recompute + e.tp + e.pp + e.bubble + e.dp + e.ep + e.opt;
    e.tokens_per_s = double(p.B * p.s) / e.step;
    e.model_flops = 3.0 * double(p.B) * (double(m.layers) * layer_fwd + logits);
    e.hardware_flops = e.model_flops + double(p.B) * recompute_per_sequence(m, p, o.causal);
    const long long gpus = p.tp * p.cp * p.pp * p.dp;
    check(e.step > 0, "step");
    check(gpus >= 1, "gpus");
    e.mfu = e.model_flops / e.step / (double(gpus) * c.peak);
    check(e.step > 0, "step");
    check(gpus >= 1, "gpus");
    e.hfu = e.hardware_flops / e.step / (double(gpus) * c.peak);
    return e;
}

// The library's inputs as plain numbers (read once, outside the timed loop).
RawModel raw(const TransformerShape& m) {
    return {m.layers,   m.hidden,       m.ffn,      m.heads, m.kv_heads, m.vocabulary,
            m.head_dim, m.learned_positions, m.experts, m.experts_per_token, m.expert_ffn,
            m.tied_embeddings, m.feed_forward == FeedForward::gated, m.biases};
}
RawCluster raw(const Cluster& c) {
    const Node& n = c.node;
    return {n.gpu.memory.value(), n.gpu.usable_fraction, n.gpu.memory_bandwidth.value(), n.gpu.peak_flops.value(),
            n.gpus, {n.intra.bandwidth.value(), n.intra.step_latency.value()},
            {n.inter.bandwidth.value(), n.inter.step_latency.value()}, n.nic == Nic::per_gpu, c.nodes};
}
RawLayout raw(const Parallelism& p) {
    return {p.tp, p.pp, p.dp, p.ep, p.cp, p.virtual_stages, p.micro_batch, p.global_batch, p.sequence,
            static_cast<int>(p.schedule), p.sequence_parallel, static_cast<int>(p.recompute),
            static_cast<int>(p.sharding), p.flash_attention, bytes_of(p.weights), bytes_of(p.gradients),
            bytes_of(p.master), bytes_of(p.moments)};
}
RawOptions raw(const TrainingOptions& o) {
    return {o.efficiency.peak_share, o.efficiency.half_width, o.efficiency.memory_passes,
            o.collective_base_latency.value(), o.causal,
            o.pipeline_scatter_gather, o.overlap_dp};
}

bool same(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

// The twin computes what the library computes.
bool twin_agrees() {
    const TransformerShape model = catalog::gpt3_175b;
    const Cluster cluster = cluster_of(catalog::dgx_a100, 128);
    const TrainingEstimate u = evaluate_training(model, cluster, layout, flat_options);
    const RawEstimate r = evaluate_raw(raw(model), raw(cluster), raw(layout), raw(flat_options));
    const StepBreakdown& b = u.breakdown;
    return same(r.step, b.total().value()) && same(r.compute, b.compute.value()) &&
           same(r.recompute, b.recompute.value()) && same(r.tp, b.tp.value()) && same(r.pp, b.pp.value()) &&
           same(r.bubble, b.bubble.value()) && same(r.dp, b.dp.value()) && same(r.ep, b.ep.value()) &&
           same(r.opt, b.optimizer.value()) && same(r.weights, u.memory.weights.value()) &&
           same(r.gradients, u.memory.gradients.value()) && same(r.optimizer, u.memory.optimizer.value()) &&
           same(r.activations, u.memory.activations.value()) && r.fits == u.fits && same(r.mfu, u.mfu) &&
           same(r.hfu, u.hfu) && same(r.tokens_per_s, u.tokens_per_second.value());
}

void evaluate_with_doubles(benchmark::State& state) {
    if (!twin_agrees()) {
        state.SkipWithError("the raw-double twin does not reproduce evaluate_training");
        return;
    }
    RawModel model = raw(catalog::gpt3_175b);
    RawCluster cluster = raw(cluster_of(catalog::dgx_a100, 128));
    RawLayout par = raw(layout);
    const RawOptions options = raw(flat_options);
    benchmark::DoNotOptimize(model);
    benchmark::DoNotOptimize(cluster);
    for (auto _ : state) {
        benchmark::DoNotOptimize(par);
        const RawEstimate e = evaluate_raw(model, cluster, par, options);
        benchmark::DoNotOptimize(e);
    }
}
BENCHMARK(evaluate_with_doubles);

// Issue 15's MoE layout (tests/data/moe-training-step-1024-gpus.json): 45
// layers on 4 stages × 2 chunks from an uneven layer map, EP 4 on GH200 quad
// nodes, DP 256, Muon, the GEMM model. Goal: under 1 µs per evaluation.
void evaluate_moe_layout(benchmark::State& state) {
    constexpr TransformerShape moe{.name = "reference-moe", .layers = 45, .hidden = 2048, .ffn = 768, .heads = 16,
                                   .kv_heads = 16, .vocabulary = 131072, .experts = 128, .experts_per_token = 7,
                                   .expert_ffn = 768, .shared_experts = 1, .shared_expert_ffn = 768};
    const Parallelism par{.tp = 1, .pp = 4, .dp = 256, .ep = 4, .virtual_stages = 2, .micro_batch = 2,
                          .global_batch = 4096, .sequence = 4096, .sharding = Sharding::distributed,
                          .flash_attention = true, .gradients = DType::fp32};
    const Cluster cluster = cluster_of(catalog::gh200_quad, 256);
    const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
    TrainingOptions options;
    options.optimizer = Optimizer::muon;
    options.layer_map = &map;
    for (auto _ : state) {
        benchmark::DoNotOptimize(options);
        const TrainingEstimate e = evaluate_training(moe, cluster, par, options);
        benchmark::DoNotOptimize(e);
    }
}
BENCHMARK(evaluate_moe_layout);

}  // namespace
