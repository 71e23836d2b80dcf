// What a frontier pre-training run costs: Llama 3 405B on 16,384 H100s for
// 15.6 trillion tokens — days, dollars, megawatt-hours, failures and goodput.
//
//   run_cost_llama3
//
// The step comes from the paper's own throughput (Dubey et al. 2024, "The
// Llama 3 Herd of Models", Table 4: 16,384 GPUs, TP 8, PP 16, DP 128, 16M
// tokens per batch, 400 TFLOP/s per GPU), so the lesson is about the run, not
// the step model. The failures are the paper's (Sec. 3.3.4, Table 5: 419
// unexpected interruptions in a 54-day snapshot of pre-training).
#include <napkin/io/lesson_args.hpp>

#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/model.hpp>
#include <napkin/run_cost.hpp>

#include <cmath>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
    using namespace napkin;
    (void)examples::lesson_args(argc, argv, "run_cost_llama3",
                                "Llama 3 405B on 16,384 H100s for 15.6T tokens: days, dollars, MWh, goodput", false);
    const TransformerShape& model = catalog::llama3_1_405b;
    const Gpu& gpu = catalog::h100_sxm;
    constexpr long long gpus = 16384;
    constexpr double train_tokens = 15.6e12;                    // Dubey et al. 2024, Sec. 3.1: 15.6T tokens
    const Tokens per_step = tokens(2048.0 * 8192.0);            // Table 4: 16M tokens per batch, 8,192 per sequence
    const FlopsPerSecond achieved = teraflops_per_second(400);  // Table 4: 400 TFLOP/s per GPU (41 % MFU)
    constexpr double usd_per_gpu_hour = 2.0;                    // an assumed rental price, not a published one

    // The step: 6 FLOPs per parameter per token (Kaplan et al. 2020, Sec. 2.1) at
    // the paper's throughput on every GPU.
    const Flops per_step_work = flops(6.0 * count(parameter_count(model)) * per_step.value());
    const Seconds step = per_step_work / (achieved * count(gpus));
    const double steps = std::ceil(train_tokens / per_step.value());

    // The failures: one GPU's MTBF is 16,384 GPUs × 54 days × 24 h / 419.
    const Seconds gpu_mtbf = quantity(count(gpus) * 54.0 * 24.0 / 419.0, units::hours);
    const RunQuery query{.gpus = gpus,
                         .useful = step * steps,
                         .gpu_mtbf = gpu_mtbf,
                         .checkpoint = {.write = seconds(60), .restart = quantity(10.0, units::minutes)},
                         .usd_per_gpu_hour = usd_per_gpu_hour,
                         .power_per_gpu = gpu.board_power};
    const RunCost run = run_cost(query);
    RunQuery no_failures = query;
    no_failures.gpu_mtbf = Seconds{};
    const RunCost ideal = run_cost(no_failures);

    std::printf("# %s on %s x %s, %.1fT tokens\n\n", std::string(model.name).c_str(), "16,384",
                std::string(gpu.name).c_str(), train_tokens / 1e12);
    std::printf("step: 6 x %.1fB parameters x %.0f tokens at 400 TFLOP/s per GPU = %.2f s\n",
                count(parameter_count(model)) / 1e9, per_step.value(), step.value());
    std::printf("steps: %.0f; without failures %.1f days, $%.1fM at $%.2f per GPU-hour\n", steps,
                in(ideal.wall, units::hours) / 24.0, ideal.cost_usd / 1e6, usd_per_gpu_hour);
    std::printf("power: %lld x %.0f W = %.2f MW (PUE 1.0); energy %.0f MWh\n\n", gpus, gpu.board_power.value(),
                in(ideal.facility_power, units::MW), in(ideal.energy, units::MWh));

    std::printf("## Failures (419 interruptions in 54 days)\n");
    std::printf("one GPU fails every %.0f h; the job every %.2f h\n", in(gpu_mtbf, units::hours),
                in(run.job_mtbf, units::hours));
    std::printf("checkpoint: 60 s to write, 10 min to restart; every %.1f min (Young %.1f min, Daly %.1f min)\n",
                in(run.interval, units::minutes), in(run.young, units::minutes), in(run.daly, units::minutes));
    std::printf("a failure loses %.1f min; %.0f failures over the run\n", in(run.lost_per_failure, units::minutes),
                run.failures);
    std::printf("goodput %.1f%% (the paper: over 90%% effective training time)\n", 100.0 * run.goodput);
    std::printf("with failures: %.1f days, $%.1fM, %.0f MWh\n", in(run.wall, units::hours) / 24.0, run.cost_usd / 1e6,
                in(run.energy, units::MWh));
}
