// How close napkin's training model comes to measured runs: the validation
// page. Every fitting row (catalog::fitting_runs: Narayanan et al. 2021
// (SC'21) Tables 1 and 2, Megatron-LM on DGX A100, then every published run
// of validation/measured_runs.hpp: llm-foundry FSDP on A100 and H100, the
// Megatron-LM README H100 table, NVIDIA's DGX Cloud and NeMo recipes) with
// its measured iteration time, napkin's, and the throughput error (napkin /
// measured − 1: + is napkin too fast), source by source; a row whose source
// leaves settings out is priced at its best searched setting, and what was
// searched is said. Then the summary, then where one iteration's time goes.
#include <napkin/io/lesson_args.hpp>

#include <napkin/measured_run.hpp>
#include <napkin/training.hpp>
#include <napkin/validation/measured_runs.hpp>
#include <napkin/validation/megatron_runs.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
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

// `lead` then `text`, word-wrapped to 80 columns, continued under the text.
void print_wrapped(const std::string& lead, std::string_view text) {
    std::string line = lead;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find(' ', start), text.size());
        const std::string_view word = text.substr(start, end - start);
        if (line.size() > lead.size() && line.size() + 1 + word.size() > 80) {
            std::printf("%s\n", line.c_str());
            line = std::string(lead.size(), ' ');
        }
        if (line.size() > lead.size()) line.push_back(' ');
        line.append(word);
        start = end + 1;
    }
    std::printf("%s\n", line.c_str());
}

void print_row(const MeasuredRun& run, Tally& tally) {
    const double error = throughput_error(run);
    tally.add(error);
    std::printf("  %-28.28s %2lld %3lld %5lld %9.2fs %9.2fs %+6.1f%%\n", std::string(run.label).c_str(),
                run.layout.tp, run.layout.pp, run.layout.dp, in(run.measured_step, units::s),
                in(predicted_step(run, default_profile), units::s), 100.0 * error);
}

}  // namespace

int main(int argc, char** argv) {
    napkin::examples::lesson_args(argc, argv, "megatron_throughput",
                                  "measured training runs against napkin's step time: the validation page", false);
    const std::vector<MeasuredRun> runs = catalog::fitting_runs();
    std::printf("Measured training runs against napkin's GEMM model: one iteration, measured\n"
                "vs predicted; error = predicted / measured throughput - 1. Defaults fitted\n"
                "to every row below (calibrate-training --defaults): tensor-core share A100\n"
                "%.4f, H100 %.4f; element-wise work %.4f passes over the activations;\n"
                "eager PyTorch (the llm-foundry rows) %.3f ms a layer and micro-batch.\n",
                default_profile.ampere_share, default_profile.hopper_share, default_profile.memory_passes,
                default_profile.eager_layer_overhead_ms);
    Tally tally;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const MeasuredRun& run = runs[i];
        if (i == 0 || runs[i - 1].source != run.source) {
            std::printf("\n%s\n  %s on %s\n", source_title(run.source).c_str(), std::string(run.framework).c_str(),
                        std::string(run.cluster.node.gpu.name).c_str());
            std::printf("  %-28s %2s %3s %5s %10s %10s %7s\n", "run", "t", "p", "d", "measured", "napkin", "error");
        }
        print_row(run, tally);
        const bool last_of_source = i + 1 == runs.size() || runs[i + 1].source != run.source;
        if (last_of_source && !run.note.empty()) print_wrapped("  searched: ", run.note);
    }
    std::printf("\nfitting rows: %d, mean |error| %.1f %%, max %.1f %% (goal: mean 5 %%, max 12 %%)\n",
                tally.rows, 100.0 * tally.sum / tally.rows, 100.0 * tally.worst);

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
