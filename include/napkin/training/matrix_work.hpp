// SPDX-License-Identifier: MIT
// napkin/training/matrix_work.hpp — the matrix work of one micro-batch: the
// GEMM model (napkin/gemm.hpp, the kernel layer) or a flat share of peak,
// FP8 and its casts. Part of napkin/training.hpp.
#pragma once

#include <napkin/training/step.hpp>

namespace napkin {

// ---------------------------------------------------------------------------
// The matrix work of one micro-batch on the slowest stage

/// A GPU without FP8 tensor cores cannot run FP8 GEMMs.
[[noreturn]] inline void reject_fp8(const Gpu& gpu) {
    reject("TrainingOptions.compute_dtype", "fp8",
           std::string(gpu.name) + " has no FP8 tensor cores (use bf16 or fp16)");
}

/// The fitted shares are 16-bit GEMMs'. An FP8 GEMM reaches a smaller share of
/// its (twice as high) peak: the kernel layer's best FP8 GEMM over its best
/// 16-bit one on the generation (napkin/kernels/gemm_ceiling.hpp; H100 SXM:
/// 70.9 % / 80.3 %, B200 76.3 % / 77.6 %, the MAMF tables); 1 for 16 bits.
[[nodiscard]] constexpr double fp8_ceiling_ratio(const Gpu& gpu, DType compute) {
    if (compute != DType::fp8) return 1.0;
    return gemm_ceiling(gpu.architecture, DType::fp8, KernelProfile::measured) /
           gemm_ceiling(gpu.architecture, DType::bf16, KernelProfile::measured);
}

/// The framework's own time per layer and micro-batch, forward and backward
/// (TrainingOptions::eager_framework).
[[nodiscard]] constexpr Seconds framework_layer_overhead(const TrainingOptions& o) {
    require_non_negative("EfficiencyProfile.eager_layer_overhead_ms", o.profile.eager_layer_overhead_ms);
    return o.eager_framework ? seconds(o.profile.eager_layer_overhead_ms * 1e-3) : Seconds{};
}

/// The GEMM settings of the layout on the GPU: the peak of the compute
/// precision, the generation's fitted share, the bytes per element.
[[nodiscard]] constexpr GemmSettings gemm_settings(const Gpu& gpu, const TrainingOptions& o) {
    const bool fp8 = o.compute_dtype == DType::fp8;
    if (fp8 && gpu.fp8_flops.value() <= 0.0) reject_fp8(gpu);
    require(o.compute_dtype == DType::bf16 || o.compute_dtype == DType::fp16 || fp8, "TrainingOptions.compute_dtype",
            static_cast<double>(o.compute_dtype), "must be bf16, fp16 or fp8");
    return {.peak = fp8 ? gpu.fp8_flops : gpu.peak_flops,
            .share = tensor_share(o.profile, gpu.architecture) * fp8_ceiling_ratio(gpu, o.compute_dtype),
            .element_bytes = fp8 ? 1.0 : 2.0};
}

/// Where a micro-batch's time on the stage goes before communication: the
/// matrix work forward + backward (`compute`), what recomputation replays
/// (`recompute`), the linear layers' GEMMs alone (what TP overlap hides
/// under), and one layer's forward attention core (what the CP ring hides under).
struct MatrixWork {
    Seconds compute, recompute, linear, attention_forward;
};

/// The flat model (compute.hpp): every GEMM at one share of peak.
[[nodiscard]] constexpr MatrixWork flat_matrix_work(const TransformerShape& m, const Parallelism& par,
                                                    const Gpu& gpu, const TrainingOptions& o, bool logits = true) {
    const double efficiency = achievable_efficiency(o.efficiency, matmul_width(m, par));
    const ElementwiseTime elementwise = elementwise_time_per_microbatch(m, par, gpu, o.efficiency);
    const Seconds matrix =
        achievable_compute_time(stage_flops_per_microbatch(m, par, o.causal, logits), gpu, efficiency);
    const Seconds core = achievable_compute_time(
        count(par.micro_batch) * attention_core_flops(m, par.sequence, o.causal) / count(par.tp * par.cp), gpu,
        efficiency);
    const Flops replayed = stage_recompute_flops_per_microbatch(m, par, o.causal) -
                           count(par.micro_batch) * skipped_recompute_flops_per_sequence(m, par, o) /
                               count(par.pp * par.tp * par.cp);
    return {matrix + elementwise.compute, achievable_compute_time(replayed, gpu, efficiency) + elementwise.recompute,
            matrix, core};
}

/// Transformer Engine's FP8 casts (Micikevicius et al. 2022, "FP8 Formats for
/// Deep Learning", Sec. 3; TE casts each GEMM input, scaling it by its amax):
/// every linear layer's input forward and its output gradient backward is read
/// in 16 bits and written in 8, 3 bytes per element, at the memory bandwidth.
[[nodiscard]] constexpr Seconds fp8_cast_time(const TransformerShape& m, const Parallelism& par, const Gpu& gpu) {
    const double tokens = count(par.micro_batch) * count(par.sequence / par.cp);
    const double t = count(par.tp);
    const double h = count(m.hidden);
    const double q = count(m.heads * head_dim(m)) / t;
    const double qkv = count((m.heads + 2 * m.kv_heads) * head_dim(m)) / t;
    const double up = m.feed_forward == FeedForward::gated ? 2.0 : 1.0;
    const double f = (m.experts == 0 ? count(m.ffn)
                                     : count(m.experts_per_token * m.expert_ffn + m.shared_experts * m.shared_expert_ffn)) /
                     t;
    const double forward_inputs = h + q + h + f;
    const double backward_outputs = qkv + h + up * f + h;
    return read_time(bytes(3.0 * tokens * (forward_inputs + backward_outputs)), gpu);
}

/// The GEMM model (napkin/gemm.hpp): every GEMM of the stage's L/p layers and
/// the logits from its shape, plus the element-wise work at the memory
/// bandwidth (elementwise_time_per_microbatch with the profile's passes) and,
/// for FP8, the casts. The logits stay in 16 bits (Transformer Engine keeps
/// the output layer out of FP8).
[[nodiscard]] constexpr MatrixWork gemm_matrix_work(const TransformerShape& m, const Parallelism& par,
                                                    const Gpu& gpu, const TrainingOptions& o, bool with_logits = true) {
    const GemmSettings settings = gemm_settings(gpu, o);
    GemmSettings sixteen = settings;
    sixteen.peak = gpu.peak_flops;
    sixteen.element_bytes = 2.0;
    const LayerGemmTimes layer = layer_gemm_times(m, par, gpu, settings, o.causal);
    const PassTimes logits = with_logits ? logits_gemm_times(m, par, gpu, sixteen) : PassTimes{};
    const double layers = count(m.layers / par.pp);
    const ElementwiseTime elementwise =
        elementwise_time_per_microbatch(m, par, gpu, EfficiencyModel{.memory_passes = o.profile.memory_passes});
    const Seconds casts = o.compute_dtype == DType::fp8 ? layers * fp8_cast_time(m, par, gpu) : Seconds{};
    const Seconds skipped = skips_down_projection(m, par, o) ? down_projection_times(m, par, gpu, settings).forward
                                                             : Seconds{};
    const Seconds replayed = full_recompute_replays(par)             ? layers * (layer.forward() - skipped)
                             : par.recompute == Recompute::selective ? layers * layer.attention.forward
                                                                     : Seconds{};
    return {layers * (layer.forward() + layer.backward() + framework_layer_overhead(o)) + logits.forward +
                logits.backward + elementwise.compute + casts,
            replayed + elementwise.recompute,
            layers * (layer.weights.forward + layer.weights.backward), layer.attention.forward};
}

/// The model the options ask for, the flat one when the GPU lacks the GEMM facts.
[[nodiscard]] constexpr ComputeModel resolved_compute_model(const Gpu& gpu, const TrainingOptions& o) {
    return o.compute_model == ComputeModel::gemm && has_gemm_facts(gpu) ? ComputeModel::gemm : ComputeModel::flat;
}

/// The micro-batch's matrix work under the compute model the options resolve to (GEMM or flat).
[[nodiscard]] constexpr MatrixWork matrix_work(const TransformerShape& m, const Parallelism& par, const Gpu& gpu,
                                               const TrainingOptions& o, bool logits = true) {
    return resolved_compute_model(gpu, o) == ComputeModel::gemm ? gemm_matrix_work(m, par, gpu, o, logits)
                                                                 : flat_matrix_work(m, par, gpu, o, logits);
}

}  // namespace napkin
