// SPDX-License-Identifier: MIT
// napkin/compute.hpp — the arithmetic of training: FLOPs per layer and per
// iteration, the share of a GPU's peak the matrix multiplications reach, and
// model / hardware FLOPs utilisation (MFU, HFU).
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/units.hpp>

namespace napkin {

// ---------------------------------------------------------------------------
// FLOPs

// A matrix multiplication of an (m × k) by a (k × n) matrix costs 2·m·k·n
// FLOPs (a multiply and an add per term); the backward pass costs twice the
// forward (input and weight gradients), so training is 3 × forward
// (Narayanan et al. 2021, SC'21, Sec. 5.1; Kaplan et al. 2020, Sec. 2.1).

/// Forward FLOPs of one layer for one sequence of s tokens: the weight
/// matrices (Q, K, V, O with GQA's narrower K and V; two GELU or three SwiGLU
/// matrices, the k active experts, the shared experts and the router for MoE),
/// plus the attention core QKᵀ and scores·V, 2·2·s²·(a·d); causal masking
/// skips half of the scores when the kernel exploits it (Narayanan et al.
/// count the full square); within a sliding window only a band of them
/// (model.hpp's attention_score_flops_per_sequence). Latent attention (DeepSeek-V2 Sec. 2.1): its
/// projections at 2 FLOPs per weight (model.hpp's latent_attention_weights),
/// its core with Q·K over nope + rope dimensions and V over v_head_dim
/// (model.hpp's attention_score_flops_per_token).
[[nodiscard]] constexpr Flops layer_forward_flops(const TransformerShape& m, long long sequence,
                                                 bool causal = false) {
    const double s = count(sequence);
    const double h = count(m.hidden);
    const double q_width = count(m.heads * head_dim(m));
    const double kv_width = count(m.kv_heads * head_dim(m));
    const double attention_matrices =
        latent_attention(m) ? count(latent_attention_weights(m)) : 2.0 * h * q_width + 2.0 * h * kv_width;
    const double matrices_per_ffn = m.feed_forward == FeedForward::gated ? 3.0 : 2.0;
    const double ffn_matrices = m.experts == 0 ? matrices_per_ffn * h * count(m.ffn)
                                               : count(m.experts_per_token) * matrices_per_ffn * h *
                                                         count(m.expert_ffn) +
                                                     count(m.shared_experts) * matrices_per_ffn * h *
                                                         count(m.shared_expert_ffn) +
                                                     h * count(m.experts);
    const double core = attention_score_flops_per_sequence(m, s, causal);
    return flops(2.0 * s * (attention_matrices + ffn_matrices) + core);
}

/// A model's dense layers (DeepSeek's first_k_dense_replace) as a shape of its
/// own: the same attention, a feed-forward block of width ffn, no experts.
[[nodiscard]] constexpr TransformerShape dense_layer_shape(const TransformerShape& m) {
    TransformerShape dense = m;
    dense.experts = dense.experts_per_token = dense.expert_ffn = 0;
    dense.shared_experts = dense.shared_expert_ffn = 0;
    dense.dense_layers = 0;
    dense.moe_every = 1;
    return dense;
}

/// Forward FLOPs of every layer for one sequence: the dense layers at their
/// own FLOPs, the MoE layers at theirs.
[[nodiscard]] constexpr Flops layers_forward_flops(const TransformerShape& m, long long sequence,
                                                  bool causal = false) {
    const double moe = count(moe_layers(m));
    const double dense = count(m.layers) - moe;
    // Each kind of layer is priced only where the model has one.
    return (moe == 0.0 ? Flops{} : moe * layer_forward_flops(m, sequence, causal)) +
           (dense == 0.0 ? Flops{}
                         : dense * layer_forward_flops(m.experts == 0 ? m : dense_layer_shape(m), sequence, causal));
}

/// The attention core alone (what selective recomputation replays).
[[nodiscard]] constexpr Flops attention_core_flops(const TransformerShape& m, long long sequence,
                                                  bool causal = false) {
    return flops(attention_score_flops_per_sequence(m, count(sequence), causal));
}

/// The output layer (logits) for one sequence: 2·s·h·V.
[[nodiscard]] constexpr Flops logits_forward_flops(const TransformerShape& m, long long sequence) {
    return flops(2.0 * count(sequence) * count(m.hidden) * count(m.vocabulary));
}

/// Model FLOPs of one iteration (no recomputation counted): 3 × forward over
/// every layer and the logits, for all B sequences of the global batch.
[[nodiscard]] constexpr Flops model_flops_per_iteration(const TransformerShape& m, const Parallelism& par,
                                                       bool causal = false) {
    const Flops forward = layers_forward_flops(m, par.sequence, causal) + logits_forward_flops(m, par.sequence);
    return 3.0 * count(par.global_batch) * forward;
}

/// The forward work recomputation adds per sequence: the whole forward pass of
/// every layer (full) or only the attention cores (selective, Korthikanti et
/// al. 2022, Sec. 5); the logits are never recomputed.
[[nodiscard]] constexpr Flops recompute_flops_per_sequence(const TransformerShape& m, const Parallelism& par,
                                                          bool causal = false) {
    switch (par.recompute) {
        case Recompute::none: return Flops{};
        case Recompute::selective: return count(m.layers) * attention_core_flops(m, par.sequence, causal);
        case Recompute::full: return layers_forward_flops(m, par.sequence, causal);
    }
    return Flops{};
}

/// Hardware FLOPs of one iteration: the model FLOPs plus what recomputation
/// replays (the first form for a caller that has the model FLOPs already).
[[nodiscard]] constexpr Flops hardware_flops_per_iteration(Flops model_flops, const TransformerShape& m,
                                                          const Parallelism& par, bool causal = false) {
    return model_flops + count(par.global_batch) * recompute_flops_per_sequence(m, par, causal);
}
/// The same, computing the model FLOPs from the shape.
[[nodiscard]] constexpr Flops hardware_flops_per_iteration(const TransformerShape& m, const Parallelism& par,
                                                          bool causal = false) {
    return hardware_flops_per_iteration(model_flops_per_iteration(m, par, causal), m, par, causal);
}

/// Narayanan et al. 2021 (SC'21), Sec. 5.1, for a GPT model with full recomputation:
///   F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h))
[[nodiscard]] constexpr Flops narayanan_flops_with_recomputation(long long batch, long long sequence,
                                                                 long long layers, long long hidden,
                                                                 long long vocabulary) {
    const double B = count(batch), s = count(sequence), l = count(layers), h = count(hidden),
                 V = count(vocabulary);
    return flops(96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h)));
}

/// The same without recomputation (the model FLOPs): 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)).
[[nodiscard]] constexpr Flops narayanan_model_flops(long long batch, long long sequence, long long layers,
                                                    long long hidden, long long vocabulary) {
    const double B = count(batch), s = count(sequence), l = count(layers), h = count(hidden),
                 V = count(vocabulary);
    return flops(72.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * l * h)));
}

/// The rough check (Kaplan et al. 2020, Sec. 2.1): 6 FLOPs per parameter per token.
[[nodiscard]] constexpr Flops six_n_d(long long parameters, Tokens trained) {
    return flops(6.0 * count(parameters) * in(trained, units::token));
}

// ---------------------------------------------------------------------------
// Achievable efficiency: the flat model

/// The flat model (TrainingOptions::compute_model = flat; the default is the
/// GEMM model of napkin/gemm.hpp, which prices each GEMM from its shape).
/// How fast a GPU runs a layer's work, in two parts (the roofline view,
/// Williams, Waterman & Patterson, CACM 2009): the matrix multiplications at a
/// share r of the peak FLOP/s, and the element-wise work (LayerNorm, GELU,
/// softmax, dropout, residual adds) bound by the memory bandwidth, which moves
/// `memory_passes` times the bytes Korthikanti et al. 2022 (Sec. 4.1) count as
/// the layer's activations per forward pass (training.hpp: forward, backward
/// twice, and what recomputation replays). The element-wise part is what makes
/// narrow tensor-parallel shards slow: without sequence parallelism 10·sbh of
/// those bytes are not split by t, against matrix work that is.
///
/// r may also depend on the width of one GPU's share of the matrices, h/t, in
/// Hockney's (r∞, n½) form (Hockney & Jesshope, "Parallel Computers 2", 1988):
/// r(n) = r∞ · n / (n + n½); n½ = 0 is a constant share.
///
/// Defaults: r = 0.677, n½ = 0, 2.18 memory passes, the relative least-squares
/// fit (minimising Σ (predicted / measured − 1)²) of the whole step model to
/// the rows of Narayanan et al. 2021 (SC'21), Table 1, but the 1T one
/// (validation/megatron_runs.hpp), from 1.7B to 529.6B (t = 1 to 8, p = 1 to 35,
/// 32 to 2,520 A100s, 135–163 TFLOP/s per GPU), run as the paper ran them (DGX
/// A100 nodes on ib-hdr, micro-batch 1, full recomputation, fp32 gradients,
/// 1F1B) and counted with its 96·B·s·l·h²(1 + s/6h + V/16lh). Rows at several
/// t are needed: at one t the width and the element-wise forms cannot be told
/// apart (a fit to the t = 8 rows alone predicted the 1.7B row at t = 1 36 % too
/// fast). A Hockney n½ > 0 does not lower the fit's error, so it is 0. The test
/// "the flat model's defaults are the least-squares fit to Table 1 (the 1T row
/// aside)" in tests/unit/training.cpp recomputes the fit; the measured runs it
/// did not see (Table 1's 1T row, the six PTD-P rows of Table 2) are its check
/// (tests/unit/training.cpp and tests/static/training.cpp).
struct EfficiencyModel {
    double peak_share = 0.677;   // r (r∞ with n½ > 0): the matrix multiplications' share of peak
    double half_width = 0.0;     // n½ on the width h/t (0: no dependence on the width)
    double memory_passes = 2.18; // element-wise traffic per forward pass, in activation bytes
};

/// The flat model's defaults: r = 0.677, n½ = 0, 2.18 memory passes.
inline constexpr EfficiencyModel default_efficiency{};

/// The matrix multiplications' share of the peak FLOP/s at a per-GPU width `width` (h/t): r∞ · n / (n + n½).
[[nodiscard]] constexpr double achievable_efficiency(const EfficiencyModel& e, double width) {
    require(e.peak_share > 0.0 && e.peak_share <= 1.0, "EfficiencyModel.peak_share", e.peak_share,
                    "must be in (0, 1]");
    require_non_negative("EfficiencyModel.half_width", e.half_width);
    require_non_negative("EfficiencyModel.memory_passes", e.memory_passes);
    require_positive("width", width);
    return e.peak_share * width / (width + e.half_width);
}

/// The width of one GPU's share of a layer's matrices under tensor parallelism.
[[nodiscard]] constexpr double matmul_width(const TransformerShape& m, const Parallelism& par) {
    return count(m.hidden) / count(par.tp);
}

/// Time to run `work` on one GPU at the achievable share of its peak.
[[nodiscard]] constexpr Seconds achievable_compute_time(Flops work, const Gpu& gpu, double efficiency) {
    require(efficiency > 0.0 && efficiency <= 1.0, "efficiency", efficiency, "must be in (0, 1]");
    return work / (gpu.peak_flops * efficiency);
}

// ---------------------------------------------------------------------------
// Utilisation (Chowdhery et al. 2022, PaLM, Appendix B)

/// MFU: model FLOPs per second over the peak of all GPUs.
[[nodiscard]] constexpr double model_flops_utilisation(Flops model_flops, Seconds step, long long gpus,
                                                       const Gpu& gpu) {
    require_positive("step (s)", step.value());
    require_at_least_one("gpus", gpus);
    return ratio(model_flops / step, count(gpus) * gpu.peak_flops);
}

/// MFU against the FP8 tensor peak (0 on a GPU without FP8 tensor cores).
[[nodiscard]] constexpr double fp8_model_flops_utilisation(Flops model_flops, Seconds step, long long gpus,
                                                           const Gpu& gpu) {
    if (gpu.fp8_flops.value() <= 0.0) return 0.0;
    Gpu fp8 = gpu;
    fp8.peak_flops = gpu.fp8_flops;
    return model_flops_utilisation(model_flops, step, gpus, fp8);
}

/// HFU: the same with the FLOPs the hardware really ran (recomputation included).
[[nodiscard]] constexpr double hardware_flops_utilisation(Flops hardware_flops, Seconds step, long long gpus,
                                                          const Gpu& gpu) {
    return model_flops_utilisation(hardware_flops, step, gpus, gpu);
}

}  // namespace napkin
