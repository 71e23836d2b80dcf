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

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace napkin {

/// What a partial row's source leaves out, searched over what its notes allow:
/// published runs were tuned, so the setting that fits the measurement best is
/// the one taken (each candidate a layout the schedule accepts, whose memory
/// fits the GPU). Empty: every setting printed.
struct RunSearch {
    bool micro_batch = false;     // 1, 2 or 4 sequences a micro-batch
    bool recompute = false;       // none, selective or full recomputation
    bool virtual_stages = false;  // 1 to 8 model chunks per pipeline rank (pp > 1: interleaved 1F1B)
    Link inter_alternative{};     // a second candidate for the node's NICs (bandwidth 0: none)
    [[nodiscard]] constexpr bool any() const {
        return micro_batch || recompute || virtual_stages || inter_alternative.bandwidth.value() > 0.0;
    }
};

/// One published training run: the model, cluster, layout and framework settings it ran with, its measured
/// step time, and the citation.
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
    RunSearch search = {};       // what is searched for, when the source does not print it
};

/// Calls f(candidate) for every setting of the run's search (the run itself when none).
template <class F>
constexpr void for_each_setting(const MeasuredRun& run, F&& f) {
    if (!run.search.any()) {
        f(run);
        return;
    }
    constexpr std::array<long long, 3> micro_batches{1, 2, 4};
    constexpr std::array<Recompute, 3> recomputes{Recompute::none, Recompute::selective, Recompute::full};
    const std::size_t n_mb = run.search.micro_batch ? micro_batches.size() : 1;
    const std::size_t n_rc = run.search.recompute ? recomputes.size() : 1;
    const long long n_vp = run.search.virtual_stages && run.layout.pp > 1 ? 8 : 1;
    const int n_link = run.search.inter_alternative.bandwidth.value() > 0.0 ? 2 : 1;
    for (std::size_t i = 0; i < n_mb; ++i)
        for (std::size_t j = 0; j < n_rc; ++j)
            for (long long v = 1; v <= n_vp; ++v)
                for (int l = 0; l < n_link; ++l) {
                    MeasuredRun c = run;
                    if (run.search.micro_batch) c.layout.micro_batch = micro_batches[i];
                    if (run.search.recompute) c.layout.recompute = recomputes[j];
                    if (n_vp > 1) c.layout.virtual_stages = v;
                    if (l == 1) c.cluster.node.inter = run.search.inter_alternative;
                    const Parallelism& p = c.layout;
                    if (p.global_batch % (p.micro_batch * p.dp) != 0) continue;
                    if (c.model.layers % (p.pp * p.virtual_stages) != 0) continue;
                    if (detail::schedule_problem(p) != detail::ScheduleProblem::none) continue;
                    if (!evaluate_training(c.model, c.cluster, c.layout, c.options).fits) continue;
                    f(c);
                }
}

/// The step time napkin gives the run exactly as written, with `profile` in place of its options' profile.
[[nodiscard]] constexpr Seconds evaluated_step(const MeasuredRun& run, const EfficiencyProfile& profile) {
    TrainingOptions o = run.options;
    o.profile = profile;
    return evaluate_training(run.model, run.cluster, run.layout, o).step;
}

/// The run as napkin prices it: a partial row at the searched setting that
/// predicts its measured step best (the row itself when nothing is searched, or
/// when no candidate is valid).
[[nodiscard]] constexpr MeasuredRun best_setting(const MeasuredRun& run, const EfficiencyProfile& profile) {
    MeasuredRun best = run;
    double closest = -1.0;
    for_each_setting(run, [&](const MeasuredRun& c) {
        const double error = ratio(run.measured_step, evaluated_step(c, profile)) - 1.0;
        const double miss = error < 0.0 ? -error : error;
        if (closest < 0.0 || miss < closest) {
            closest = miss;
            best = c;
        }
    });
    return best;
}

/// The step time napkin predicts for the run: evaluated at its best searched setting (best_setting).
[[nodiscard]] constexpr Seconds predicted_step(const MeasuredRun& run, const EfficiencyProfile& profile) {
    return evaluated_step(best_setting(run, profile), profile);
}

/// Predicted over measured throughput, minus one (+5 %: napkin 5 % too fast).
[[nodiscard]] constexpr double throughput_error(const MeasuredRun& run,
                                               const EfficiencyProfile& profile = default_profile) {
    require_positive("MeasuredRun.measured_step (s)", run.measured_step.value());
    return ratio(run.measured_step, predicted_step(run, profile)) - 1.0;
}

/// The step time a published throughput means: B·s tokens over tokens per
/// second per GPU times the GPUs.
[[nodiscard]] constexpr Seconds step_from_tokens_per_gpu(const Parallelism& par, double tokens_per_second_per_gpu) {
    require_positive("tokens per second per GPU", tokens_per_second_per_gpu);
    return seconds(count(par.global_batch * par.sequence) / (tokens_per_second_per_gpu * count(gpus(par))));
}

/// The step time a published TFLOP/s per GPU means, for the FLOPs the source counts per iteration.
[[nodiscard]] constexpr Seconds step_from_flops_per_gpu(Flops counted, double tflops_per_gpu, long long gpu_count) {
    require_positive("TFLOP/s per GPU", tflops_per_gpu);
    return counted / (teraflops_per_second(tflops_per_gpu) * count(gpu_count));
}

/// A source as a table names it: the repository without its commit and the
/// place in it ("NVIDIA/Megatron-LM @ f2e5…, README weak-scaling table" →
/// "NVIDIA/Megatron-LM, README weak-scaling table"); a paper's citation as is.
[[nodiscard]] inline std::string source_title(std::string_view source) {
    const auto at = source.find(" @ ");
    if (at == std::string_view::npos) return std::string(source);
    const auto rest = source.find(", ", at);
    return std::string(source.substr(0, at)) + (rest == std::string_view::npos ? "" : std::string(source.substr(rest)));
}

}  // namespace napkin
