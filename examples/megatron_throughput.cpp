// How close napkin's training model comes to measured runs: the validation
// page. Every fitting row — Narayanan et al. 2021 (SC'21) Tables 1 and 2
// (Megatron-LM on DGX A100) and the complete rows of the published runs in
// catalog/measured_runs.hpp (MosaicML llm-foundry, FSDP, A100 40/80 GB and
// H100) — with its measured iteration time, napkin's, and the throughput
// error (napkin / measured − 1: + is napkin too fast), grouped by GPU and
// framework; then the rows whose source leaves settings out, with what napkin
// assumes; then the summary; then where one iteration's time goes.
#include <napkin/io/lesson_args.hpp>

#include <napkin/catalog/measured_runs.hpp>
#include <napkin/catalog/megatron_runs.hpp>
#include <napkin/measured_run.hpp>
#include <napkin/training.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace napkin;

namespace {

struct Tally {
    int rows = 0;
    double sum = 0.0, worst = 0.0;
    void add(double error) {
        ++rows;
        sum += std::abs(error);
        worst = std::max(worst, std::abs(error));
    }
};

void print_group(const std::vector<MeasuredRun>& runs, std::string_view gpu, std::string_view framework,
                 Tally& tally) {
    bool header = false;
    for (const MeasuredRun& run : runs) {
        if (run.cluster.node.gpu.name != gpu || run.framework != framework) continue;
        if (!header) {
            std::printf("\n%s, %s\n", std::string(gpu).c_str(), std::string(framework).c_str());
            std::printf("  %-28s %2s %3s %5s %10s %10s %7s\n", "run", "t", "p", "d", "measured", "napkin", "error");
            header = true;
        }
        const double error = throughput_error(run);
        tally.add(error);
        std::printf("  %-28.28s %2lld %3lld %5lld %9.2fs %9.2fs %+6.1f%%\n", std::string(run.label).c_str(),
                    run.layout.tp, run.layout.pp, run.layout.dp, in(run.measured_step, units::s),
                    in(predicted_step(run, default_profile), units::s), 100.0 * error);
    }
}

}  // namespace

int main(int argc, char** argv) {
    napkin::examples::lesson_args(argc, argv, "megatron_throughput",
                                  "measured training runs against napkin's step time: the validation page", false);
    std::vector<MeasuredRun> fitting, partial;
    for (const catalog::MegatronRun& run : catalog::megatron_runs)
        if (run.role != catalog::RunRole::estimate) fitting.push_back(catalog::measured_run_of(run));
    for (const MeasuredRun& run : catalog::published_runs) (run.complete ? fitting : partial).push_back(run);

    std::printf("Measured training runs against napkin's GEMM model: one iteration, measured\n"
                "vs predicted; error = predicted / measured throughput - 1.\n");
    std::printf("Defaults fitted to these rows (calibrate-training): tensor-core share A100 %.4f,\n"
                "H100 %.4f; element-wise work %.3f passes over the activations.\n",
                default_profile.ampere_share, default_profile.hopper_share, default_profile.memory_passes);
    Tally fit_tally;
    print_group(fitting, "a100-80gb-sxm", "Megatron-LM (2021)", fit_tally);
    print_group(fitting, "a100-80gb-sxm", "llm-foundry (FSDP)", fit_tally);
    print_group(fitting, "a100-40gb-sxm", "llm-foundry (FSDP)", fit_tally);
    print_group(fitting, "h100-sxm", "llm-foundry (FSDP)", fit_tally);
    std::printf("  settings: Megatron-LM (2021) all-reduces fp16 gradients (--fp16 without\n"
                "  --accumulate-allreduce-grads-in-fp32); llm-foundry's non-reentrant\n"
                "  checkpointing skips each layer's down projection when it recomputes\n"
                "  (PyTorch 2.1 and later assumed: the version is not printed).\n");
    std::printf("\nfitting rows: %d, mean |error| %.1f %%, max %.1f %% (goal: mean 5 %%, max 10 %%)\n",
                fit_tally.rows, 100.0 * fit_tally.sum / fit_tally.rows, 100.0 * fit_tally.worst);

    std::printf("\nRows whose source leaves settings out (not fitted; each at its best searched setting):\n");
    Tally partial_tally;
    print_group(partial, "h100-sxm", "Megatron-LM (Megatron-Core)", partial_tally);
    std::printf("  assumed: %s\n", std::string(partial.front().note).c_str());
    print_group(partial, "h100-sxm", "llm-foundry (FSDP)", partial_tally);
    std::printf("  assumed: %s\n", std::string(partial.back().note).c_str());
    std::printf("\npartial rows: %d, mean |error| %.1f %%, max %.1f %%\n", partial_tally.rows,
                100.0 * partial_tally.sum / partial_tally.rows, 100.0 * partial_tally.worst);

    std::printf("\nNeMo (Megatron-Core) rows, not in the defaults' fit:\n");
    const std::vector<MeasuredRun> nemo(catalog::nemo_runs.begin(), catalog::nemo_runs.end());
    Tally nemo_tally;
    print_group(nemo, "h100-sxm", "NeMo (Megatron-Core)", nemo_tally);
    std::printf("  assumed: %s (GPT-3 FP8)\n", std::string(nemo.back().note).c_str());
    std::printf("\nNeMo rows: %d, mean |error| %.1f %%, max %.1f %%\n", nemo_tally.rows,
                100.0 * nemo_tally.sum / nemo_tally.rows, 100.0 * nemo_tally.worst);

    // Where the time goes: 1T on 3,072 GPUs (t8 p64 d6, m = 512).
    const catalog::MegatronRun& one_t = *std::find_if(
        catalog::megatron_runs.begin(), catalog::megatron_runs.end(),
        [](const catalog::MegatronRun& run) { return run.label.starts_with("1T"); });
    const MeasuredRun row = catalog::measured_run_of(one_t);
    const TrainingEstimate e = evaluate_training(row.model, row.cluster, row.layout, row.options);
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
