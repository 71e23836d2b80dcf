// SPDX-License-Identifier: MIT
// napkin/catalog/measured_runs.hpp — published measured training runs beyond
// Narayanan et al. 2021 (catalog/megatron_runs.hpp), as napkin::MeasuredRun
// rows: MosaicML llm-foundry's MPT benchmarks (FSDP under Composer, A100
// 40/80 GB and H100) and the Megatron-LM README's H100 weak-scaling table.
// The figures are those of tests/data/measured-training-runs.json (each row's
// citation); `complete` rows state every setting, the others say in `note`
// what napkin assumes for what the source does not print.
#pragma once

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/megatron_runs.hpp>
#include <napkin/compute.hpp>
#include <napkin/measured_run.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/training.hpp>

#include <array>
#include <string_view>

namespace napkin::catalog {

// MPT (llm-foundry scripts/train/yamls/pretrain/mpt-*.yaml): 4h GELU MLP, no
// biases, ALiBi (no position table), tied embeddings, vocabulary 50,368.
[[nodiscard]] constexpr TransformerShape mpt_shape(std::string_view name, long long layers, long long hidden,
                                                   long long heads) {
    return TransformerShape{.name = name, .layers = layers, .hidden = hidden, .ffn = 4 * hidden, .heads = heads,
                            .kv_heads = heads, .vocabulary = 50368, .tied_embeddings = true,
                            .feed_forward = FeedForward::plain, .biases = false};
}

// llm-foundry's benchmark layout: FSDP FULL_SHARD (ZeRO-3) over every GPU,
// flash attention, BF16 with fp32 master weights.
[[nodiscard]] constexpr Parallelism fsdp_layout(long long dp, long long micro_batch, long long global_batch,
                                                long long sequence, Recompute recompute) {
    return Parallelism{.dp = dp, .micro_batch = micro_batch, .global_batch = global_batch, .sequence = sequence,
                       .recompute = recompute, .sharding = Sharding::zero3, .flash_attention = true};
}

// Composer's FSDP prefetches the weight all-gathers and overlaps the
// reduce-scatters; its flash attention is causal and skips masked blocks;
// llm-foundry's FSDP configurations checkpoint activations non-reentrantly
// (activation_checkpointing_reentrant: false), which stops the replay early
// (assumed: the PyTorch version, 2.1 or later, is not printed).
inline constexpr TrainingOptions fsdp_options{.fsdp_prefetch = true, .recompute_early_stop = true, .causal = true};

// The Megatron-LM README's GPT models: 4h GELU MLP with biases, untied
// embeddings (from the printed parameter counts), vocabulary 131,072.
[[nodiscard]] constexpr TransformerShape megatron_readme_shape(std::string_view name, long long layers,
                                                               long long hidden, long long heads) {
    return TransformerShape{.name = name, .layers = layers, .hidden = hidden, .ffn = 4 * hidden, .heads = heads,
                            .kv_heads = heads, .vocabulary = 131072, .tied_embeddings = false,
                            .feed_forward = FeedForward::plain, .biases = true};
}

// Its layout: sequence 4,096, the printed t, p, d and global batch; assumed
// (not printed): micro-batch 1, no recomputation, the distributed optimizer,
// Transformer Engine flash attention.
[[nodiscard]] constexpr Parallelism megatron_readme_layout(long long tp, long long pp, long long dp,
                                                           long long global_batch, bool sequence_parallel) {
    return Parallelism{.tp = tp, .pp = pp, .dp = dp, .micro_batch = 1, .global_batch = global_batch,
                       .sequence = 4096, .sequence_parallel = sequence_parallel, .recompute = Recompute::none,
                       .sharding = Sharding::distributed, .flash_attention = true};
}

// The README's flags: --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap.
inline constexpr TrainingOptions megatron_core_options{
    .overlap_tp = true, .overlap_param_gather = true, .causal = true, .overlap_dp = true};

// The nodes: DGX A100 (80 GB; llm-foundry's A100 80 GB table: 1,600 Gb/s RoCE
// per node = 200 Gb/s per GPU, as ib-hdr), the same with A100 40 GB, DGX H100.
inline constexpr Node dgx_a100_run_node = dgx_a100;
inline constexpr Node dgx_a100_40gb_run_node = validated(Node{
    .name = "dgx-a100-40gb", .gpu = a100_40gb_sxm, .gpus = 8, .intra = nvlink3, .inter = ib_hdr});
inline constexpr Node dgx_h100_run_node = dgx_h100;

inline constexpr std::array<MeasuredRun, 23> published_runs{{
    {"GPT 1.7B, 48 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 1.7b", 24, 2048, 16),
     cluster_of(dgx_h100_run_node, 6), megatron_readme_layout(1, 1, 48, 192, false), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 1.7b", 24, 2048, 16), megatron_readme_layout(1, 1, 48, 192, false)), 408.8, 48), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"GPT 7.1B, 96 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 7.1b", 30, 4096, 32),
     cluster_of(dgx_h100_run_node, 12), megatron_readme_layout(2, 1, 48, 192, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 7.1b", 30, 4096, 32), megatron_readme_layout(2, 1, 48, 192, true)), 465.9, 96), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"GPT 16B, 192 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 16b", 32, 6144, 48),
     cluster_of(dgx_h100_run_node, 24), megatron_readme_layout(4, 1, 48, 192, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 16b", 32, 6144, 48), megatron_readme_layout(4, 1, 48, 192, true)), 489.1, 192), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"GPT 32B, 384 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 32b", 48, 7168, 56),
     cluster_of(dgx_h100_run_node, 48), megatron_readme_layout(8, 1, 48, 192, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 32b", 48, 7168, 56), megatron_readme_layout(8, 1, 48, 192, true)), 459.6, 384), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"GPT 70B, 768 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 70b", 84, 8192, 64),
     cluster_of(dgx_h100_run_node, 96), megatron_readme_layout(8, 2, 48, 384, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 70b", 84, 8192, 64), megatron_readme_layout(8, 2, 48, 384, true)), 419.7, 768), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"GPT 119B, 1,536 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 119b", 92, 10240, 80),
     cluster_of(dgx_h100_run_node, 192), megatron_readme_layout(8, 4, 48, 768, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 119b", 92, 10240, 80), megatron_readme_layout(8, 4, 48, 768, true)), 420.5, 1536), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"GPT 177B, 2,304 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 177b", 96, 12288, 96),
     cluster_of(dgx_h100_run_node, 288), megatron_readme_layout(8, 6, 48, 1152, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 177b", 96, 12288, 96), megatron_readme_layout(8, 6, 48, 1152, true)), 432.8, 2304), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"GPT 314B, 3,072 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 314b", 96, 16384, 128),
     cluster_of(dgx_h100_run_node, 384), megatron_readme_layout(8, 8, 48, 1536, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 314b", 96, 16384, 128), megatron_readme_layout(8, 8, 48, 1536, true)), 474.4, 3072), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"GPT 462B, 6,144 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 462b", 112, 18432, 144),
     cluster_of(dgx_h100_run_node, 768), megatron_readme_layout(8, 16, 48, 3072, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 462b", 112, 18432, 144), megatron_readme_layout(8, 16, 48, 3072, true)), 459.9, 6144), false, "micro-batch 1, no recomputation, BF16, distributed optimizer assumed (not printed)"},
    {"MPT-1B, 8 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 80GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-1b", 24, 2048, 16),
     cluster_of(dgx_a100_run_node, 1), fsdp_layout(8, 14, 448, 2048, Recompute::none), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(8, 14, 448, 2048, Recompute::none), 20513), true, ""},
    {"MPT-7B, 8 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 80GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-7b", 32, 4096, 32),
     cluster_of(dgx_a100_run_node, 1), fsdp_layout(8, 6, 96, 2048, Recompute::none), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(8, 6, 96, 2048, Recompute::none), 4641), true, ""},
    {"MPT-7B s8192, 8 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 80GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-7b", 32, 4096, 32),
     cluster_of(dgx_a100_run_node, 1), fsdp_layout(8, 8, 128, 8192, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(8, 8, 128, 8192, Recompute::full), 3206), true, ""},
    {"MPT-13B, 8 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 80GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-13b", 40, 5120, 40),
     cluster_of(dgx_a100_run_node, 1), fsdp_layout(8, 2, 48, 2048, Recompute::none), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(8, 2, 48, 2048, Recompute::none), 2262), true, ""},
    {"MPT-30B, 8 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 80GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-30b", 48, 7168, 56),
     cluster_of(dgx_a100_run_node, 1), fsdp_layout(8, 3, 504, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(8, 3, 504, 2048, Recompute::full), 916), true, ""},
    {"MPT-70B, 64 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 80GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-70b", 80, 8192, 64),
     cluster_of(dgx_a100_run_node, 8), fsdp_layout(64, 8, 2048, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(64, 8, 2048, 2048, Recompute::full), 410), true, ""},
    {"MPT-7B, 128 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 40GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-7b", 32, 4096, 32),
     cluster_of(dgx_a100_40gb_run_node, 16), fsdp_layout(128, 18, 2304, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(128, 18, 2304, 2048, Recompute::full), 3623), true, ""},
    {"MPT-13B, 128 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 40GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-13b", 40, 5120, 40),
     cluster_of(dgx_a100_40gb_run_node, 16), fsdp_layout(128, 16, 2048, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(128, 16, 2048, 2048, Recompute::full), 1972), true, ""},
    {"MPT-70B, 128 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'A100 40GB with 1600 Gbps node-node interconnect (RoCE)'", "llm-foundry (FSDP)",
     mpt_shape("MPT-70b", 80, 8192, 64),
     cluster_of(dgx_a100_40gb_run_node, 16), fsdp_layout(128, 4, 512, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(128, 4, 512, 2048, Recompute::full), 376), true, ""},
    {"MPT-1B, 64 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-1b", 24, 2048, 16),
     cluster_of(dgx_h100_run_node, 8), fsdp_layout(64, 20, 1280, 2048, Recompute::none), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(64, 20, 1280, 2048, Recompute::none), 44402), false, "interconnect not printed: NDR InfiniBand, one port per GPU, assumed"},
    {"MPT-7B, 8 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-7b", 32, 4096, 32),
     cluster_of(dgx_h100_run_node, 1), fsdp_layout(8, 6, 48, 2048, Recompute::none), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(8, 6, 48, 2048, Recompute::none), 10643), true, ""},
    {"MPT-13B, 64 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-13b", 40, 5120, 40),
     cluster_of(dgx_h100_run_node, 8), fsdp_layout(64, 2, 128, 2048, Recompute::none), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(64, 2, 128, 2048, Recompute::none), 4800), false, "interconnect not printed: NDR InfiniBand, one port per GPU, assumed"},
    {"MPT-30B, 32 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-30b", 48, 7168, 56),
     cluster_of(dgx_h100_run_node, 4), fsdp_layout(32, 14, 1344, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(32, 14, 1344, 2048, Recompute::full), 2308), false, "interconnect not printed: NDR InfiniBand, one port per GPU, assumed"},
    {"MPT-70B, 64 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-70b", 80, 8192, 64),
     cluster_of(dgx_h100_run_node, 8), fsdp_layout(64, 8, 2048, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(64, 8, 2048, 2048, Recompute::full), 1039), false, "interconnect not printed: NDR InfiniBand, one port per GPU, assumed"},
}};

}  // namespace napkin::catalog
