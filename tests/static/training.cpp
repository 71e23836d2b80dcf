// Compile-time facts of parallelism.hpp, memory.hpp, compute.hpp and training.hpp.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/training.hpp>
#include <napkin/validation/megatron_runs.hpp>

namespace {
using namespace napkin;

// The GPT-2 small shape has the published 124,439,808 weights.
static_assert(parameter_count(catalog::gpt2_small) == 124'439'808);
// Narayanan et al. 2021, Table 1: 529.6B and 1,008.0B.
static_assert(parameter_count(catalog::turing_nlg_530b) / 100'000'000 == 5296);
static_assert(parameter_count(catalog::megatron_1t) / 100'000'000 == 10080);

constexpr Parallelism gpt3_layout{.tp = 8, .pp = 16, .dp = 8, .global_batch = 1536};
static_assert(gpus(gpt3_layout) == 1024);
static_assert(microbatches(gpt3_layout) == 192);
static_assert(rank_of(coordinates_of(777, gpt3_layout), gpt3_layout) == 777);

// ZeRO-3 on 64 ranks: 16 bytes × 7.5e9 / 64 = 1.875e9 bytes.
static_assert(model_states(7.5e9, 64, Parallelism{.sharding = Sharding::zero3}).total().value() == 1.875e9);

// One full evaluation runs at compile time.
constexpr TrainingEstimate gpt3 =
    evaluate_training(catalog::gpt3_175b, cluster_of(catalog::dgx_a100, 128), gpt3_layout);
static_assert(gpt3.step.value() > 0.0);
static_assert(gpt3.mfu > 0.0 && gpt3.mfu < 1.0);
static_assert(gpt3.breakdown.tp.value() > 0.0 && gpt3.breakdown.bubble.value() > 0.0);

// The 5 % goal on the measured Megatron-LM runs the flat model's defaults did not see (Narayanan et
// al. 2021, Table 1's 1T row and Table 2's six PTD-P rows). The GEMM model, fitted to them with the
// other fitting rows, keeps them within 7 % (the 1T row −6.4 %; tests/unit/training.cpp gives the values).
constexpr bool held_out_runs_within(double flat_bound, double gemm_bound) {
    for (const catalog::MegatronRun& run : catalog::megatron_runs) {
        const bool table_1_fit = run.source == "Narayanan 2021, Table 1" && !run.label.starts_with("1T");
        if (run.role == catalog::RunRole::estimate || table_1_fit) continue;
        MeasuredRun flat = catalog::measured_run_of(run);
        flat.options = TrainingOptions{.compute_model = ComputeModel::flat};
        const double flat_error = throughput_error(flat);
        const double gemm_error = throughput_error(catalog::measured_run_of(run));
        if (flat_error <= -flat_bound || flat_error >= flat_bound) return false;
        if (gemm_error <= -gemm_bound || gemm_error >= gemm_bound) return false;
    }
    return true;
}
static_assert(held_out_runs_within(0.05, 0.07));
}  // namespace
