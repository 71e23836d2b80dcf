// SPDX-License-Identifier: MIT
// napkin/measured_run.hpp — a training run someone measured, as napkin sees
// it (model, cluster, layout, framework options, the measured step time), and
// napkin's prediction for it: what the validation page prints, what the
// efficiency fit (napkin/calibrate.hpp, fit_efficiency_profile) minimises.
//
//   const double error = throughput_error(run);  // predicted / measured throughput − 1
#pragma once

#include <napkin/error.hpp>
#include <napkin/gemm.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/training.hpp>
#include <napkin/units.hpp>

#include <string_view>

namespace napkin {

struct MeasuredRun {
    std::string_view label;
    std::string_view source;     // the citation
    std::string_view framework;  // "Megatron-LM", "llm-foundry (FSDP)", ...
    TransformerShape model;
    Cluster cluster;
    Parallelism layout;
    TrainingOptions options;     // the framework's settings (overlap, precision, causal kernel)
    Seconds measured_step;       // one iteration, as measured (or derived from the published throughput)
    bool complete = true;        // every setting printed by the source (false: some assumed, see the row's note)
    std::string_view note = {};  // what was assumed
};

[[nodiscard]] constexpr Seconds predicted_step(const MeasuredRun& run, const EfficiencyProfile& profile) {
    TrainingOptions o = run.options;
    o.profile = profile;
    return evaluate_training(run.model, run.cluster, run.layout, o).step;
}

// Predicted over measured throughput, minus one (+5 %: napkin 5 % too fast).
[[nodiscard]] constexpr double throughput_error(const MeasuredRun& run,
                                               const EfficiencyProfile& profile = default_profile) {
    require_positive("MeasuredRun.measured_step (s)", run.measured_step.value());
    return ratio(run.measured_step, predicted_step(run, profile)) - 1.0;
}

// The step time a published throughput means: B·s tokens over tokens per
// second per GPU times the GPUs.
[[nodiscard]] constexpr Seconds step_from_tokens_per_gpu(const Parallelism& par, double tokens_per_second_per_gpu) {
    require_positive("tokens per second per GPU", tokens_per_second_per_gpu);
    return seconds(count(par.global_batch * par.sequence) / (tokens_per_second_per_gpu * count(gpus(par))));
}

// The step time a published TFLOP/s per GPU means, for the FLOPs the source counts per iteration.
[[nodiscard]] constexpr Seconds step_from_flops_per_gpu(Flops counted, double tflops_per_gpu, long long gpu_count) {
    require_positive("TFLOP/s per GPU", tflops_per_gpu);
    return counted / (teraflops_per_second(tflops_per_gpu) * count(gpu_count));
}

}  // namespace napkin
