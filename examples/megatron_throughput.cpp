// How close napkin's training step model comes to measured Megatron-LM runs
// (Narayanan et al. 2021, SC'21) on DGX A100 clusters: every run of
// catalog::megatron_runs with its layout, the TFLOP/s per GPU it achieved,
// napkin's prediction and the error. Rows marked "fit" informed the
// efficiency defaults; "check" rows did not, and the goal is 5 % on them.
// Then where one iteration's time goes for the largest held-out run.
#include "lesson_args.hpp"

#include <napkin/catalog/megatron_runs.hpp>
#include <napkin/training.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

using namespace napkin;

int main(int argc, char** argv) {
    napkin::examples::lesson_args(argc, argv, "megatron_throughput",
                                  "Megatron-LM's measured TFLOP/s per GPU against napkin's step time", false);
    std::printf("Megatron-LM on DGX A100 (t = tensor, p = pipeline, d = data parallel; micro-batch 1,\n"
                "full recomputation, 1F1B): achieved TFLOP/s per GPU, measured vs napkin\n\n");
    std::printf("%-25s %-9s %3s %3s %4s %6s %5s %9s %8s %7s %20s\n", "run", "role", "t", "p", "d", "batch", "m",
                "measured", "napkin", "error", "iteration (s)");
    double worst_check = 0.0, fit_squares = 0.0;
    int fitted = 0;
    for (const catalog::MegatronRun& run : catalog::megatron_runs) {
        const Parallelism par = catalog::layout_of(run);
        const double predicted = catalog::predicted_tflops_per_gpu(run);
        const double error = predicted / run.tflops_per_gpu - 1.0;
        // The iteration time behind a TFLOP/s figure: the paper's FLOP count over it and the GPUs.
        const double counted = in(narayanan_flops_with_recomputation(run.global_batch, 2048, run.layers, run.hidden,
                                                                     51200), units::TFLOP);
        const auto iteration = [&](double tflops) { return counted / (tflops * count(run.gpus)); };
        std::printf("%-25s %-9s %3lld %3lld %4lld %6lld %5lld %9.0f %8.1f %+6.1f%% %9.2f vs %6.2f\n",
                    std::string(run.label).c_str(), std::string(to_string(run.role)).c_str(), par.tp, par.pp, par.dp,
                    par.global_batch, microbatches(par), run.tflops_per_gpu, predicted, 100.0 * error,
                    iteration(run.tflops_per_gpu), iteration(predicted));
        if (run.role == catalog::RunRole::check) worst_check = std::max(worst_check, std::abs(error));
        if (run.role == catalog::RunRole::fit) fit_squares += error * error, ++fitted;
    }
    std::printf("\nfit rows: %.1f %% RMS (matrix products at %.3f of peak, element-wise work %.2f passes over the "
                "activations)\n",
                100.0 * std::sqrt(fit_squares / fitted), default_efficiency.peak_share, default_efficiency.memory_passes);
    std::printf("held-out measured rows: worst %.1f %% (goal 5 %%)\n", 100.0 * worst_check);
    std::printf("the GPT-3 estimate row is a published figure for a training-time estimate, not a measured run\n");

    // Where the time goes: 1T on 3,072 GPUs (t8 p64 d6, m = 512).
    const catalog::MegatronRun& one_t = *std::find_if(
        catalog::megatron_runs.begin(), catalog::megatron_runs.end(),
        [](const catalog::MegatronRun& run) { return run.label.starts_with("1T"); });
    const TrainingEstimate e = evaluate_training(catalog::shape_of(one_t), catalog::cluster_of(one_t),
                                                 catalog::layout_of(one_t));
    const StepBreakdown& b = e.breakdown;
    const auto share = [&](Seconds part) { return 100.0 * ratio(part, e.step); };
    std::printf("\n%s: one iteration %s\n", std::string(one_t.label).c_str(), to_string(e.step).c_str());
    std::printf("  compute   %10s  %5.1f %%\n", to_string(b.compute).c_str(), share(b.compute));
    std::printf("  recompute %10s  %5.1f %%\n", to_string(b.recompute).c_str(), share(b.recompute));
    std::printf("  TP        %10s  %5.1f %%\n", to_string(b.tp).c_str(), share(b.tp));
    std::printf("  PP        %10s  %5.1f %%\n", to_string(b.pp).c_str(), share(b.pp));
    std::printf("  bubble    %10s  %5.1f %%\n", to_string(b.bubble).c_str(), share(b.bubble));
    std::printf("  DP        %10s  %5.1f %%\n", to_string(b.dp).c_str(), share(b.dp));
    std::printf("  optimizer %10s  %5.1f %%\n", to_string(b.optimizer).c_str(), share(b.optimizer));
    std::printf("  MFU %.1f %%, HFU %.1f %%\n", 100.0 * e.mfu, 100.0 * e.hfu);
}
