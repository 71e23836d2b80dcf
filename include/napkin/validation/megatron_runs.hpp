// SPDX-License-Identifier: MIT
// napkin/validation/megatron_runs.hpp — published Megatron-LM training runs on
// DGX A100 clusters with the throughput they achieved: with
// validation/measured_runs.hpp, the rows the efficiency defaults are fitted to
// (napkin/gemm.hpp, EfficiencyProfile).
//
//   for (const MegatronRun& run : catalog::megatron_runs)
//       std::printf("%s: %+.1f %%\n", run.label.data(), 100 * throughput_error(measured_run_of(run)));
#pragma once

#include <napkin/catalog/clusters.hpp>
#include <napkin/compute.hpp>
#include <napkin/measured_run.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/training.hpp>

#include <array>
#include <string_view>

namespace napkin::catalog {

/// What a run is used for here.
enum class RunRole {
    fit,       // informed the efficiency defaults (compute.hpp)
    check,     // measured, held out: the step model is checked against it
    estimate,  // a published per-GPU figure for a layout, not a measured row
};

/// The role's name: "fit", "check" or "estimate".
[[nodiscard]] constexpr std::string_view to_string(RunRole r) {
    switch (r) {
        case RunRole::fit: return "fit";
        case RunRole::check: return "check";
        case RunRole::estimate: return "estimate";
    }
    return "?";
}

/// One run: a GPT model of Narayanan et al. 2021 (SC'21), Sec. 5 — 4h GELU
/// MLP, learned positions, vocabulary 51,200, sequence 2,048 — on `gpus` A100
/// 80 GB in DGX A100 nodes, t × p model parallel, the rest data parallel. The
/// achieved TFLOP/s per GPU is counted as the paper counts it:
/// 96·B·s·l·h²(1 + s/6h + V/16lh) per iteration over the iteration time and
/// the GPUs (full recomputation included).
struct MegatronRun {
    std::string_view label;
    std::string_view source;
    long long heads, hidden, layers;
    double parameters_billion;  // as printed in the source: checks the shape
    long long tp, pp, gpus, global_batch;
    double tflops_per_gpu;
    RunRole role;
};

/// Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU
/// Clusters Using Megatron-LM" (SC'21): Table 1 (weak scaling, every row),
/// Table 2 (PTD-P rows of the comparison with ZeRO-3, micro-batch 1), and the
/// GPT-3 figure of Sec. 5.1's training-time estimate (1,024 GPUs, batch 1,536;
/// the paper takes X = 140 TFLOP/s there, about 138 — 44 % of peak — is the
/// figure quoted for it with t8 p16).
inline constexpr std::array<MegatronRun, 17> megatron_runs{{
    {"1.7B, 32 GPUs", "Narayanan 2021, Table 1", 24, 2304, 24, 1.7, 1, 1, 32, 512, 137.0, RunRole::fit},
    {"3.6B, 64 GPUs", "Narayanan 2021, Table 1", 32, 3072, 30, 3.6, 2, 1, 64, 512, 138.0, RunRole::fit},
    {"7.5B, 128 GPUs", "Narayanan 2021, Table 1", 32, 4096, 36, 7.5, 4, 1, 128, 512, 142.0, RunRole::fit},
    {"18.4B, 256 GPUs", "Narayanan 2021, Table 1", 48, 6144, 40, 18.4, 8, 1, 256, 1024, 135.0, RunRole::fit},
    {"39.1B, 512 GPUs", "Narayanan 2021, Table 1", 64, 8192, 48, 39.1, 8, 2, 512, 1536, 138.0, RunRole::fit},
    {"76.1B, 1,024 GPUs", "Narayanan 2021, Table 1", 80, 10240, 60, 76.1, 8, 4, 1024, 1792, 140.0, RunRole::fit},
    {"145.6B, 1,536 GPUs", "Narayanan 2021, Table 1", 96, 12288, 80, 145.6, 8, 8, 1536, 2304, 148.0, RunRole::fit},
    {"310.1B, 1,920 GPUs", "Narayanan 2021, Table 1", 128, 16384, 96, 310.1, 8, 16, 1920, 2160, 155.0, RunRole::fit},
    {"529.6B, 2,520 GPUs", "Narayanan 2021, Table 1", 128, 20480, 105, 529.6, 8, 35, 2520, 2520, 163.0, RunRole::fit},
    {"1T (1008.0B), 3,072 GPUs", "Narayanan 2021, Table 1", 160, 25600, 128, 1008.0, 8, 64, 3072, 3072, 163.0,
     RunRole::fit},
    {"174.6B, 384 GPUs", "Narayanan 2021, Table 2", 96, 12288, 96, 174.6, 8, 12, 384, 1536, 153.0, RunRole::fit},
    {"174.6B, 768 GPUs", "Narayanan 2021, Table 2", 96, 12288, 96, 174.6, 8, 12, 768, 1536, 149.0, RunRole::fit},
    {"174.6B, 1,536 GPUs", "Narayanan 2021, Table 2", 96, 12288, 96, 174.6, 8, 12, 1536, 1536, 141.0, RunRole::fit},
    {"529.6B, 560 GPUs", "Narayanan 2021, Table 2", 128, 20480, 105, 529.6, 8, 35, 560, 2240, 171.0, RunRole::fit},
    {"529.6B, 1,120 GPUs", "Narayanan 2021, Table 2", 128, 20480, 105, 529.6, 8, 35, 1120, 2240, 167.0,
     RunRole::fit},
    {"529.6B, 2,240 GPUs", "Narayanan 2021, Table 2", 128, 20480, 105, 529.6, 8, 35, 2240, 2240, 159.0,
     RunRole::fit},
    {"GPT-3 175B, 1,024 GPUs", "Narayanan 2021, Sec. 5.1", 96, 12288, 96, 174.6, 8, 16, 1024, 1536, 138.0,
     RunRole::estimate},
}};

/// The run's model.
[[nodiscard]] constexpr TransformerShape shape_of(const MegatronRun& run) {
    return validated(TransformerShape{.name = run.label, .layers = run.layers, .hidden = run.hidden,
                                      .ffn = 4 * run.hidden, .heads = run.heads, .kv_heads = run.heads,
                                      .vocabulary = 51200, .tied_embeddings = true,
                                      .feed_forward = FeedForward::plain, .biases = true,
                                      .learned_positions = 2048});
}

/// The run's layout as the paper ran it: micro-batch 1 (Table 2 gives it;
/// Table 1 does not), full recomputation (its FLOP count includes it), fp32
/// gradients (Megatron's 18 bytes per parameter), 1F1B, no interleaving.
[[nodiscard]] constexpr Parallelism layout_of(const MegatronRun& run) {
    require(run.gpus % (run.tp * run.pp) == 0, "MegatronRun.gpus", count(run.gpus),
                    "must be a multiple of tp · pp");
    return Parallelism{.tp = run.tp, .pp = run.pp, .dp = run.gpus / (run.tp * run.pp), .micro_batch = 1,
                       .global_batch = run.global_batch, .sequence = 2048, .recompute = Recompute::full,
                       .gradients = DType::fp32};
}

/// The run's cluster: DGX A100 nodes (Selene).
[[nodiscard]] constexpr Cluster cluster_of(const MegatronRun& run) {
    require(run.gpus % dgx_a100.gpus == 0, "MegatronRun.gpus", count(run.gpus),
                    "must fill whole DGX A100 nodes (8 GPUs each)");
    return napkin::cluster_of(dgx_a100, run.gpus / dgx_a100.gpus);
}

/// The training options of the 2021 runs. Narayanan et al. 2021 ran Megatron-LM before flash attention: the attention
/// core is two batched GEMMs over the full square of scores. Mixed precision
/// in fp16 (the repository's GPT scripts of the time pass --fp16; the paper
/// says "mixed precision"): Megatron-LM all-reduces the 16-bit gradients
/// unless --accumulate-allreduce-grads-in-fp32 (megatron/arguments.py).
inline constexpr TrainingOptions megatron_2021_options{.gradient_reduce_dtype = DType::fp16};

/// The run as a MeasuredRun (napkin/measured_run.hpp): the iteration time its TFLOP/s per GPU means under the
/// paper's FLOP count, 96·B·s·l·h²(1 + s/6h + V/16lh), run with megatron_2021_options.
[[nodiscard]] constexpr MeasuredRun measured_run_of(const MegatronRun& run) {
    const Flops counted = narayanan_flops_with_recomputation(run.global_batch, 2048, run.layers, run.hidden, 51200);
    return MeasuredRun{.label = run.label,
                       .source = run.source,
                       .framework = "Megatron-LM (2021)",
                       .model = shape_of(run),
                       .cluster = cluster_of(run),
                       .layout = layout_of(run),
                       .options = megatron_2021_options,
                       .measured_step = step_from_flops_per_gpu(counted, run.tflops_per_gpu, run.gpus),
                       .complete = true};
}

}  // namespace napkin::catalog
