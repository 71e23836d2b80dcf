// SPDX-License-Identifier: MIT
// The framework settings `napkin train` and `napkin plan` share — the GEMMs'
// precision, the overlaps, PyTorch's early-stopping recomputation, the
// gradients' format on the wire and a calibrated profile — declared once and
// turned into TrainingOptions once.
#pragma once

#include "common.hpp"
#include "training_profile.hpp"

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/training.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace napkin::cli {

// --grad-reduce-dtype: empty (the gradients' own format) or bf16, fp16, fp32.
inline DType parse_gradient_reduce_dtype(const std::string& text) {
    if (text.empty()) return DType::none;
    const std::optional<DType> d = parse_dtype(text);
    if (!d || (*d != DType::bf16 && *d != DType::fp16 && *d != DType::fp32))
        throw napkin::invalid_argument("--grad-reduce-dtype \"" + text + "\": must be bf16, fp16 or fp32");
    return *d;
}

struct FrameworkFlags {
    std::string compute_dtype = "bf16", grad_reduce_dtype, profile;
    bool overlap_tp = false, overlap_param_gather = false, fsdp_prefetch = true, recompute_early_stop = false;
    long long communication_sms = default_training_options.communication_sms;
};

inline void add_framework_flags(CLI::App* sub, FrameworkFlags& f) {
    sub->add_option("--compute-dtype", f.compute_dtype, "precision of the GEMMs: bf16, fp16 or fp8 (bf16)");
    sub->add_flag("--overlap-tp", f.overlap_tp, "tensor-parallel collectives under the GEMMs (--tp-comm-overlap)");
    sub->add_flag("--overlap-param-gather", f.overlap_param_gather,
                  "distributed optimizer: parameter all-gather under the first forward");
    sub->add_flag("--fsdp-prefetch,!--no-fsdp-prefetch", f.fsdp_prefetch,
                  "ZeRO-3: prefetch each layer's weights under the previous layer (on by default)");
    sub->add_flag("--recompute-early-stop", f.recompute_early_stop,
                  "full recomputation stops before each layer's MLP down projection (PyTorch's non-reentrant "
                  "checkpoint, 2.1 and later)");
    sub->add_option("--grad-reduce-dtype", f.grad_reduce_dtype,
                    "format of the gradients in the data-parallel collectives: bf16, fp16 or fp32 (that of "
                    "--grad-dtype)");
    sub->add_option("--comm-sms", f.communication_sms,
                    "SMs the collectives hold while they overlap compute; the overlapped compute runs on the rest "
                    "(20, DeepSeek-V3 Sec. 3.2.2; 0: overlap is free)");
    sub->add_option("--profile", f.profile, "efficiency profile JSON (napkin calibrate-training)");
}

// The flags onto `o`; fp8 needs FP8 tensor cores on `gpu`.
inline void apply_framework_flags(const FrameworkFlags& f, const Gpu& gpu, TrainingOptions& o) {
    const DType compute = parse_dtype(f.compute_dtype).value_or(DType::none);
    if (compute != DType::bf16 && compute != DType::fp16 && compute != DType::fp8)
        throw napkin::invalid_argument("--compute-dtype \"" + f.compute_dtype + "\": must be bf16, fp16 or fp8");
    if (compute == DType::fp8 && gpu.fp8_flops.value() <= 0.0)
        throw napkin::invalid_argument("--compute-dtype \"fp8\": " + std::string(gpu.name) +
                                       " has no FP8 tensor cores (use bf16 or fp16)");
    o.compute_dtype = compute;
    o.overlap_tp = f.overlap_tp;
    o.overlap_param_gather = f.overlap_param_gather;
    o.fsdp_prefetch = f.fsdp_prefetch;
    o.recompute_early_stop = f.recompute_early_stop;
    if (f.communication_sms < 0 || (gpu.sm_count > 0 && f.communication_sms >= gpu.sm_count))
        throw napkin::invalid_argument("--comm-sms " + std::to_string(f.communication_sms) +
                                       ": must be at least 0 and below " + std::string(gpu.name) + "'s " +
                                       std::to_string(gpu.sm_count) + " SMs (--gpu-sms)");
    o.communication_sms = f.communication_sms;
    o.gradient_reduce_dtype = parse_gradient_reduce_dtype(f.grad_reduce_dtype);
    if (!f.profile.empty()) o.profile = read_efficiency_profile(f.profile);
}

}  // namespace napkin::cli
