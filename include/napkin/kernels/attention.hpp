// SPDX-License-Identifier: MIT
// napkin/kernels/attention.hpp — the attention kernels:
//  - flash attention (training and prefill; Dao 2023, FlashAttention-2): per
//    head, q queries against `attended` keys each, head dimension d: forward
//    2 products, 4·q·attended·d FLOPs; backward 2.5 × the forward (the scores
//    recomputed, Algorithm 2). At the 16-bit tensor peak (Transformer
//    Engine's FP8 recipes keep attention in BF16 unless FP8 attention is
//    asked for: NVTE_FP8_DPA) times a rate that grows with the sequence, in
//    Hockney's form, fitted to FlashAttention-2's own forward + backward
//    benchmark (Dao-AILab/flash-attention @ 0251105, README "Performance",
//    assets/flash2_{a100,h100}_fwd_bwd_benchmark.png, panel d: causal, head
//    dimension 128, sequence 512 to 16k); on data-center Blackwell, where
//    FlashAttention-2 does not use the new tensor cores, FlashAttention-4's
//    forward (Dao-AILab/flash-attention PR 2605, "FWD" table: causal, head
//    dimension 128, sequence 1k to 4k; no backward published). Never faster
//    than its Q, K, V, O bytes at the data sheet's bandwidth;
//  - paged decode attention (serving; one query token per sequence against its
//    KV cache): bound by reading the cache, at the share of the data sheet's
//    bandwidth FlashInfer's split-KV decode kernel reaches for that KV
//    length (flashinfer-ai.github.io @ 8e7a2f6, 2024-01-03 blog post, Figure
//    5: single-request decode, 32 heads of 128, KV 8k to 64k; utilisation =
//    bytes read / latency / data-sheet bandwidth), in the same form.
// Each pass is one kernel: one launch (napkin/kernels/launch.hpp). The
// constants cite the rows of tests/data/measured-kernels.json they are fitted
// to; tests/unit/kernels.cpp refits them (hockney_fit).
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/kernels/hockney.hpp>
#include <napkin/kernels/launch.hpp>
#include <napkin/kernels/profile.hpp>
#include <napkin/units.hpp>

#include <algorithm>

namespace napkin {

namespace kernel_attention {
/// fa-fig-a100-flash2_a100_fwd_bwd_benchmark-flashattention-2-d-s{512..16384}: 99 to 189 TFLOP/s of 312.
inline constexpr Hockney ampere_flash{.r_infinity = 0.62078, .n_half = 486.51};
/// fa-fig-h100-flash2_h100_fwd_bwd_benchmark-flashattention-2-d-s{512..16384}: 163 to 328 TFLOP/s of 989.
inline constexpr Hockney hopper_flash{.r_infinity = 0.33743, .n_half = 533.82};
/// fa-pr2605-b200-fa4-fwd-hd128-causal-s{1024..4096}: 659 to 1,061 TFLOP/s of B200's 2,250.
inline constexpr Hockney blackwell_flash{.r_infinity = 0.59409, .n_half = 1051.43};
/// flashinfer-fig5-a100-flashinfer-split-s{8192..65536}: 66.5 to 87.1 % of the A100's bandwidth.
inline constexpr Hockney ampere_decode{.r_infinity = 0.91424, .n_half = 3055.8};
/// flashinfer-fig5-h100-flashinfer-split-s{8192..65536}: 61.4 to 89.0 % of the H100's bandwidth.
inline constexpr Hockney hopper_decode{.r_infinity = 0.94842, .n_half = 4482.8};
}  // namespace kernel_attention

/// The share of the 16-bit peak flash attention reaches at `sequence` keys:
/// 1 under the roofline profile and on a generation without rows.
[[nodiscard]] constexpr double flash_attention_share(Architecture a, double sequence, KernelProfile p) {
    require_positive("attention sequence", sequence);
    if (p == KernelProfile::roofline) return 1.0;
    switch (a) {
        case Architecture::ampere:
            return hockney_rate(kernel_attention::ampere_flash, sequence);
        case Architecture::hopper:
            return hockney_rate(kernel_attention::hopper_flash, sequence);
        case Architecture::blackwell:
            return hockney_rate(kernel_attention::blackwell_flash, sequence);
        default:
            return 1.0;
    }
}

/// The share of the data-sheet bandwidth decode attention reaches over `kv_length` cached tokens.
[[nodiscard]] constexpr double decode_attention_share(Architecture a, double kv_length, KernelProfile p) {
    require_positive("KV length", kv_length);
    if (p == KernelProfile::roofline) return 1.0;
    switch (a) {
        case Architecture::ampere:
            return hockney_rate(kernel_attention::ampere_decode, kv_length);
        case Architecture::hopper:
            return hockney_rate(kernel_attention::hopper_decode, kv_length);
        default:
            return 1.0;
    }
}

/// One flash-attention kernel's work: `heads` (batch × heads on this GPU),
/// `queries` per head, `attended` keys per query (the full sequence, half of it
/// causal), head dimension, the sequence (what the rate depends on), and the
/// K/V heads' share of the heads (GQA: kv_heads / heads).
struct FlashAttentionShape {
    double heads = 1, queries = 1, attended = 1, head_dim = 128, sequence = 1;
    double kv_share = 1.0;
    double element_bytes = 2.0;
};

/// The forward and backward times of one flash-attention kernel.
struct AttentionPasses {
    Seconds forward, backward;
};

/// The forward FLOPs of the kernel: two products (QKᵀ, PV), 4 · heads · queries · attended · head_dim.
[[nodiscard]] constexpr Flops flash_attention_forward_flops(const FlashAttentionShape& s) {
    return flops(4.0 * s.heads * s.queries * s.attended * s.head_dim);
}

/// Forward and backward: the FLOPs at the reached share of the 16-bit peak,
/// never under the Q, K, V, O bytes (twice that backward, with the gradients) at
/// the data sheet's bandwidth, plus a launch each.
[[nodiscard]] constexpr AttentionPasses flash_attention_times(const FlashAttentionShape& s, const Gpu& gpu,
                                                              KernelProfile p) {
    require(s.heads > 0.0 && s.queries > 0.0 && s.attended > 0.0 && s.head_dim > 0.0, "FlashAttentionShape",
            s.heads * s.queries * s.attended * s.head_dim, "every dimension must be positive");
    const FlopsPerSecond rate = gpu.peak_flops * flash_attention_share(gpu.architecture, s.sequence, p);
    const Seconds math = flash_attention_forward_flops(s) / rate;
    const Seconds memory =
        read_time(bytes(s.heads * s.queries * s.head_dim * (2.0 + 2.0 * s.kv_share) * s.element_bytes), gpu);
    const Seconds launch = launch_cost(gpu.architecture, p);
    return {std::max(math, memory) + launch, std::max(2.5 * math, 2.0 * memory) + launch};
}

/// Paged decode attention of one step: reading `kv_cache` bytes (every
/// sequence's cached K and V of this GPU's layers' heads) for `kv_length`
/// cached tokens per sequence, at the reached share of the data-sheet bandwidth.
[[nodiscard]] constexpr Seconds decode_attention_time(Bytes kv_cache, double kv_length, const Gpu& gpu,
                                                      KernelProfile p) {
    require_non_negative("KV cache (bytes)", kv_cache.value());
    return kv_cache / (gpu.memory_bandwidth * decode_attention_share(gpu.architecture, kv_length, p)) +
           launch_cost(gpu.architecture, p);
}

}  // namespace napkin
