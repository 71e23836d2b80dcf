// SPDX-License-Identifier: MIT
// napkin/gemm.hpp — the time of each matrix multiplication of a transformer
// layer from its shape (m, n, k) on a given GPU, and of the attention core:
//
//   const Seconds t = gemm_time(GemmShape{.m = 2048, .n = 4608, .k = 12288}, gpu, settings);
//
// Three mechanisms, each from a source (NVIDIA, "Matrix Multiplication
// Background User's Guide", DL performance documentation, 2023):
//  - tile quantization: cuBLAS splits the m × n output into tiles (256 × 128
//    is the largest and most efficient tile the guide names); a dimension that
//    is not a multiple of the tile still pays for whole tiles;
//  - wave quantization: the tiles run in waves of one tile per SM; a last,
//    partly filled wave takes as long as a full one;
//  - the roofline (Williams, Waterman & Patterson, CACM 2009): a GEMM moves at
//    least its two inputs and its output, (m·k + k·n + m·n) elements, through
//    memory; below the GPU's ridge point (peak / bandwidth FLOPs per byte) it
//    is bound by the bandwidth, not by the tensor cores.
// What is left — the share of the tensor-core peak a GEMM that fills every
// tile of every wave reaches (clock under load, prologue and epilogue, the
// kernel's own overheads) — is one number per GPU generation, fitted to
// measured training runs (EfficiencyProfile below; tests/unit/training.cpp
// recomputes the fit). Attention with flash attention is one kernel (Dao
// 2023, FlashAttention-2): its FLOPs over the same tensor-core model, its
// bytes the Q, K, V and O tensors only.
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/units.hpp>

#include <algorithm>

namespace napkin {

/// One GEMM: an (m × k) by (k × n) product, `batch` of them in one kernel
/// (the heads of the attention core, the local experts of an MoE layer).
struct GemmShape {
    double m = 1, n = 1, k = 1;
    double batch = 1;
};

/// A GEMM's FLOPs: 2·m·n·k per product, `batch` products.
[[nodiscard]] constexpr Flops gemm_flops(const GemmShape& g) { return flops(2.0 * g.m * g.n * g.k * g.batch); }

/// The output tile (Matrix Multiplication Background guide, "Tile
/// quantization": 256 × 128 and 128 × 256 are cuBLAS's most efficient tiles).
/// Flash attention processes blocks of 128 query rows (Dao 2023, Sec. 3.1, the
/// block sizes {64, 128} × {64, 128} of its implementation).
struct Tile {
    double rows = 256, cols = 128;
};
inline constexpr Tile cublas_tile{};                                   ///< cuBLAS's 256 × 128 tile.
inline constexpr Tile flash_attention_tile{.rows = 128, .cols = 128};  ///< Flash attention's 128 × 128 blocks.

/// ⌈x / t⌉ for positive x and t, exact for the integers GEMM shapes are.
[[nodiscard]] constexpr double ceil_ratio(double x, double t) {
    const double q = static_cast<double>(static_cast<long long>(x / t));
    return q * t < x ? q + 1.0 : q;
}

/// The share of the SMs' tile slots that does useful work: the output's
/// m·n over the waves × SMs × tile area it occupies (tile and wave
/// quantization together).
[[nodiscard]] constexpr double quantization_efficiency(const GemmShape& g, long long sm_count,
                                                       const Tile& tile = cublas_tile) {
    require_at_least_one("Gpu.sm_count", sm_count);
    require(g.m > 0.0 && g.n > 0.0 && g.k > 0.0 && g.batch > 0.0, "GemmShape (m·n·k·batch)", g.m * g.n * g.k * g.batch,
            "every dimension must be positive");
    const double tiles = g.batch * ceil_ratio(g.m, tile.rows) * ceil_ratio(g.n, tile.cols);
    const double sms = count(sm_count);
    const double waves = ceil_ratio(tiles, sms);
    return g.batch * g.m * g.n / (waves * sms * tile.rows * tile.cols);
}

/// How one GEMM runs: the tensor-core peak of the precision, the share of it a
/// fully quantized GEMM reaches, and the bytes per element it moves. `flat`:
/// compute.hpp's flat model, every GEMM at `share` of the peak whatever its
/// shape (no tile, wave or memory bound), for the lessons that price a layer so.
struct GemmSettings {
    FlopsPerSecond peak;
    double share = 1.0;
    double element_bytes = 2.0;
    bool flat = false;
};

/// The bytes one GEMM reads and writes: its operands and result, m·k + k·n + m·n elements.
[[nodiscard]] constexpr Bytes gemm_bytes(const GemmShape& g, const GemmSettings& s) {
    return bytes(g.batch * (g.m * g.k + g.k * g.n + g.m * g.n) * s.element_bytes);
}

/// The roofline of one GEMM: the slower of its tensor-core time (at the
/// achievable share, after quantization) and its memory time.
[[nodiscard]] constexpr Seconds gemm_time(const GemmShape& g, const Gpu& gpu, const GemmSettings& s,
                                          const Tile& tile = cublas_tile) {
    if (s.flat) return gemm_flops(g) / (s.peak * s.share);
    const Seconds math = gemm_flops(g) / (s.peak * (s.share * quantization_efficiency(g, gpu.sm_count, tile)));
    return std::max(math, read_time(gemm_bytes(g, s), gpu));
}

/// Forward and backward of a linear layer Y[m × n] = X[m × k] · W[k × n]: the
/// backward is the input gradient dX = dY · Wᵀ, an (m, k, n) GEMM, and the
/// weight gradient dW = Xᵀ · dY, a (k, n, m) GEMM (Qi et al. 2023, Sec. 2).
/// `moved`: the bytes the forward pass reads and writes, each GEMM's operands
/// and result (m·k + k·n + m·n elements), flash attention's Q, K, V and O.
struct PassTimes {
    Seconds forward, backward;
    Bytes moved{};
};

/// The forward and backward times of a linear layer of shape `g`, and the bytes its forward GEMM moves.
[[nodiscard]] constexpr PassTimes linear_times(const GemmShape& g, const Gpu& gpu, const GemmSettings& s) {
    const GemmShape input_gradient{.m = g.m, .n = g.k, .k = g.n, .batch = g.batch};
    const GemmShape weight_gradient{.m = g.k, .n = g.n, .k = g.m, .batch = g.batch};
    return {gemm_time(g, gpu, s), gemm_time(input_gradient, gpu, s) + gemm_time(weight_gradient, gpu, s),
            gemm_bytes(g, s)};
}

/// The attention core of one layer on one GPU: b·(heads/t) heads, s/c queries
/// against s keys, head dimension d.
///  - Flash attention: one kernel; forward 2 products (QKᵀ, PV), backward 5
///    (FlashAttention-2, Algorithm 2: the scores are recomputed), 2.5 × the
///    forward's FLOPs; it moves only Q, K, V and O (and their gradients). A
///    causal kernel skips the masked half of the blocks, a sliding-window
///    layer the blocks outside its band.
///  - Without it: QKᵀ an (s/c, s, d) and PV an (s/c, d, s) batched GEMM
///    forward; backward dP = dO·Vᵀ (s/c, s, d), dV = Pᵀ·dO, dQ = dS·K,
///    dK = dSᵀ·Q (three of the (s/c, d, s) size).
[[nodiscard]] constexpr PassTimes attention_core_times(const TransformerShape& m, const Parallelism& par,
                                                       const Gpu& gpu, const GemmSettings& s, bool causal) {
    const double heads = count(par.micro_batch) * count(m.heads) / count(par.tp);
    const double q = count(par.sequence / par.cp);
    const double keys = count(par.sequence);
    // Latent attention: Q·K over nope + rope dimensions, scores·V over
    // v_head_dim (DeepSeek-V2 Sec. 2.1.3); the kernel as one of their mean width.
    const double d = latent_attention(m) ? count(m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) / 2.0
                                         : count(head_dim(m));
    // Keys per query, averaged over the layers: s (½·s causal), fewer in the
    // band of a sliding window (model.hpp's attention_score_flops_per_sequence).
    const double attended =
        attention_score_flops_per_sequence(m, keys, causal) / (keys * attention_score_flops_per_token(m, 1.0));
    if (par.flash_attention) {
        // As an (s/c × d) output per head with 2 products of depth s (×½ causal).
        const GemmShape kernel{.m = q, .n = d, .k = attended, .batch = heads};
        const double kv_share = count(m.kv_heads) / count(m.heads);
        const Bytes moved = bytes(heads * q * d * (2.0 + 2.0 * kv_share) * s.element_bytes);
        // The flat model: the two products at the share, backward twice the forward (compute.hpp's 3 × forward).
        if (s.flat) {
            const Seconds forward = 2.0 * gemm_flops(kernel) / (s.peak * s.share);
            return {forward, 2.0 * forward, moved};
        }
        const Seconds math =
            2.0 * gemm_flops(kernel) / (s.peak * (s.share * quantization_efficiency(kernel, gpu.sm_count,
                                                                                     flash_attention_tile)));
        const Seconds forward = std::max(math, read_time(moved, gpu));
        return {forward, std::max(2.5 * math, read_time(2.0 * moved, gpu)), moved};
    }
    const GemmShape scores{.m = q, .n = attended, .k = d, .batch = heads};
    const GemmShape values{.m = q, .n = d, .k = attended, .batch = heads};
    return {gemm_time(scores, gpu, s) + gemm_time(values, gpu, s),
            gemm_time(scores, gpu, s) + 3.0 * gemm_time(values, gpu, s), gemm_bytes(scores, s) + gemm_bytes(values, s)};
}

/// Every GEMM of one layer on one GPU for one micro-batch, from the layout:
/// T = b·s/c tokens (sequence parallelism gathers them back before each block),
/// the weight matrices split h/t-wise (Shoeybi et al. 2019: QKV and the first
/// MLP matrix by columns, the output projection and the second by rows).
///   QKV (T, (a + 2·a_kv)·d/t, h), output (T, h, a·d/t),
///   MLP up (T, f/t, h) — gated: (T, 2f/t, h), the gate and up matrices in one — down (T, h, f/t);
///   latent attention (DeepSeek-V2 Sec. 2.1; Megatron-Core's MLA keeps the
///   down projections whole on every TP rank and splits the up ones by
///   heads): Q down (T, q_lora, h), Q up (T, a·(nope + rope)/t, q_lora) —
///   (T, a·(nope + rope)/t, h) without a query latent —, KV down
///   (T, kv_lora + rope, h), KV up (T, a·(nope + v)/t, kv_lora), output (T, h, a·v/t);
///   MoE: the router (T, E, h), then E/ep local experts, each receiving
///   T·ep·k/E tokens (a balanced router), as one grouped GEMM of that many
///   rows per expert (Megatron's GroupedMLP), and the shared experts, every
///   token through each (T, 2·f_s·n_s/t, h) and (T, h, f_s·n_s/t).
/// A layer with experts = 0 has the dense MLP (a model's dense layers:
/// compute.hpp's dense_layer_shape).
struct LayerGemmParts {
    PassTimes projections{};  // the attention's linear layers
    PassTimes core{};         // the attention core
    PassTimes router{};       // MoE: the router GEMM
    PassTimes routed{};       // MoE: the routed experts' grouped GEMMs
    PassTimes shared{};       // MoE: the shared experts
    PassTimes mlp{};          // dense layers: the feed-forward block
};

/// One layer's GEMM times in two parts: the linear layers and the attention core.
struct LayerGemmTimes {
    PassTimes weights;    // the linear layers
    PassTimes attention;  // the attention core
    [[nodiscard]] constexpr Seconds forward() const { return weights.forward + attention.forward; }
    [[nodiscard]] constexpr Seconds backward() const { return weights.backward + attention.backward; }
};

/// The sum of two pass times: forward, backward and bytes moved.
[[nodiscard]] constexpr PassTimes operator+(const PassTimes& a, const PassTimes& b) {
    return {a.forward + b.forward, a.backward + b.backward, a.moved + b.moved};
}

/// The attention's linear layers of one layer on one GPU for one micro-batch: the QKV and output projections,
/// or latent attention's down and up projections and output (LayerGemmParts below).
[[nodiscard]] constexpr PassTimes attention_projection_times(const TransformerShape& m, const Parallelism& par,
                                                             const Gpu& gpu, const GemmSettings& s) {
    const double tokens = count(par.micro_batch) * count(par.sequence / par.cp);
    const double t = count(par.tp);
    const double h = count(m.hidden);
    const double a = count(m.heads);
    if (latent_attention(m)) {
        const double qk = count(m.qk_nope_head_dim + m.qk_rope_head_dim);
        const double q_lora = count(m.q_lora_rank);
        const double kv_lora = count(m.kv_lora_rank);
        const PassTimes query = m.q_lora_rank > 0
                                    ? linear_times({.m = tokens, .n = q_lora, .k = h}, gpu, s) +
                                          linear_times({.m = tokens, .n = a * qk / t, .k = q_lora}, gpu, s)
                                    : linear_times({.m = tokens, .n = a * qk / t, .k = h}, gpu, s);
        return query + linear_times({.m = tokens, .n = kv_lora + count(m.qk_rope_head_dim), .k = h}, gpu, s) +
               linear_times({.m = tokens, .n = a * count(m.qk_nope_head_dim + m.v_head_dim) / t, .k = kv_lora}, gpu,
                            s) +
               linear_times({.m = tokens, .n = h, .k = a * count(m.v_head_dim) / t}, gpu, s);
    }
    const double d = count(head_dim(m));
    const double qkv = count(m.heads + 2 * m.kv_heads) * d / t;
    return linear_times({.m = tokens, .n = qkv, .k = h}, gpu, s) +
           linear_times({.m = tokens, .n = h, .k = a * d / t}, gpu, s);
}

/// A dense layer's MLP down projection (T, h, f/t): its last GEMM.
[[nodiscard]] constexpr PassTimes down_projection_times(const TransformerShape& m, const Parallelism& par,
                                                        const Gpu& gpu, const GemmSettings& s) {
    const double tokens = count(par.micro_batch) * count(par.sequence / par.cp);
    return linear_times({.m = tokens, .n = count(m.hidden), .k = count(m.ffn) / count(par.tp)}, gpu, s);
}

/// Every GEMM of one layer on one GPU for one micro-batch, by part (LayerGemmParts above).
[[nodiscard]] constexpr LayerGemmParts layer_gemm_parts(const TransformerShape& m, const Parallelism& par,
                                                        const Gpu& gpu, const GemmSettings& s, bool causal) {
    const double tokens = count(par.micro_batch) * count(par.sequence / par.cp);
    const double t = count(par.tp);
    const double h = count(m.hidden);
    const double up = m.feed_forward == FeedForward::gated ? 2.0 : 1.0;
    LayerGemmParts parts{.projections = attention_projection_times(m, par, gpu, s),
                         .core = attention_core_times(m, par, gpu, s, causal)};
    if (m.experts == 0) {
        const double f = count(m.ffn) / t;
        parts.mlp = linear_times({.m = tokens, .n = up * f, .k = h}, gpu, s) + down_projection_times(m, par, gpu, s);
        return parts;
    }
    const double local = count(m.experts) / count(par.ep);
    const double rows = tokens * count(par.ep) * count(m.experts_per_token) / count(m.experts);
    const double f = count(m.expert_ffn) / t;
    parts.router = linear_times({.m = tokens, .n = count(m.experts), .k = h}, gpu, s);
    parts.routed = linear_times({.m = rows, .n = up * f, .k = h, .batch = local}, gpu, s) +
                   linear_times({.m = rows, .n = h, .k = f, .batch = local}, gpu, s);
    if (m.shared_experts > 0) {
        const double fs = count(m.shared_experts * m.shared_expert_ffn) / t;
        parts.shared = linear_times({.m = tokens, .n = up * fs, .k = h}, gpu, s) +
                       linear_times({.m = tokens, .n = h, .k = fs}, gpu, s);
    }
    return parts;
}

/// The same, summed into the linear layers and the attention core.
[[nodiscard]] constexpr LayerGemmTimes layer_gemm_times(const TransformerShape& m, const Parallelism& par,
                                                        const Gpu& gpu, const GemmSettings& s, bool causal) {
    const LayerGemmParts p = layer_gemm_parts(m, par, gpu, s, causal);
    return {.weights = p.projections + p.router + p.routed + p.shared + p.mlp, .attention = p.core};
}

/// The output layer: logits (T, V/t, h) (vocabulary-parallel, Shoeybi et al. 2019, Sec. 3).
[[nodiscard]] constexpr PassTimes logits_gemm_times(const TransformerShape& m, const Parallelism& par,
                                                    const Gpu& gpu, const GemmSettings& s) {
    const double tokens = count(par.micro_batch) * count(par.sequence / par.cp);
    return linear_times({.m = tokens, .n = count(m.vocabulary) / count(par.tp), .k = count(m.hidden)}, gpu, s);
}

// ---------------------------------------------------------------------------
// The fitted parameters

/// The achievable share of the tensor-core peak for a GEMM that fills every
/// tile of every wave, per GPU generation, and the element-wise traffic per
/// forward pass in activation bytes (compute.hpp, EfficiencyModel::memory_passes;
/// training.hpp prices it at the memory bandwidth).
///
/// Defaults: the relative least-squares fit (Levenberg–Marquardt on
/// predicted / measured throughput − 1) of the whole training step to every
/// fitting row, 44 in all (catalog::fitting_runs): Narayanan et al. 2021
/// (SC'21) Tables 1 and 2 (Megatron-LM, A100 80 GB) and every row of
/// tests/data/measured-training-runs.json (llm-foundry FSDP on A100 and H100,
/// the Megatron-LM README H100 table, NVIDIA DGX Cloud and NeMo recipes), a
/// partial row at its best searched setting; from the kernel layer's values
/// (calibrate.hpp, kernel_layer_profile), each parameter on 5 rows or more.
/// The A100 rows fit `ampere`, the H100 rows `hopper`; Blackwell and AMD CDNA
/// have no fitting rows yet and take the Hopper share (a calibration file,
/// napkin calibrate-training, replaces it). The test "the defaults are the
/// every-row fit" in tests/unit/cross_validation.cpp recomputes it, and the
/// README's validation table gives it per source, fitted and left out.
///
/// A framework overhead on top (TrainingOptions::eager_framework): what an
/// eager PyTorch framework — FSDP under Composer, the llm-foundry rows — spends
/// per layer and micro-batch beyond its kernels (Python dispatch, FSDP's
/// per-layer hooks and stream synchronisation; the kernels' own launches are
/// napkin/kernels/launch.hpp's), in milliseconds for the layer's forward and
/// backward together, fitted on the 14 llm-foundry rows.
struct EfficiencyProfile {
    double ampere_share = 0.0;
    double hopper_share = 0.0;
    double memory_passes = 0.0;
    double eager_layer_overhead_ms = 0.0;
};

/// The defaults: the every-row fit described above.
inline constexpr EfficiencyProfile default_profile{
    .ampere_share = 0.6839, .hopper_share = 0.5785, .memory_passes = 1.3664, .eager_layer_overhead_ms = 5.097};

/// The profile's tensor-core share for an architecture: the Ampere share on Ampere, the Hopper share on every other.
[[nodiscard]] constexpr double tensor_share(const EfficiencyProfile& p, Architecture a) {
    const double share = a == Architecture::ampere ? p.ampere_share : p.hopper_share;
    require(share > 0.0 && share <= 1.0,
            a == Architecture::ampere ? "EfficiencyProfile.ampere_share" : "EfficiencyProfile.hopper_share", share,
            "must be in (0, 1]");
    return share;
}

}  // namespace napkin
