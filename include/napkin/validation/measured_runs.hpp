// SPDX-License-Identifier: MIT
// napkin/validation/measured_runs.hpp — published measured training runs beyond
// Narayanan et al. 2021 (validation/megatron_runs.hpp), as napkin::MeasuredRun
// rows: MosaicML llm-foundry's MPT benchmarks (FSDP under Composer, A100
// 40/80 GB and H100) and the Megatron-LM README's H100 weak-scaling table.
// The figures are those of tests/data/measured-training-runs.json (each row's
// citation); `complete` rows state every setting, the others say in `note`
// what napkin assumes for what the source does not print.
#pragma once

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/compute.hpp>
#include <napkin/measured_run.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/training.hpp>
#include <napkin/validation/megatron_runs.hpp>

#include <array>
#include <string_view>
#include <vector>

namespace napkin::catalog {

/// MPT (llm-foundry scripts/train/yamls/pretrain/mpt-*.yaml): 4h GELU MLP, no
/// biases, ALiBi (no position table), tied embeddings, vocabulary 50,368.
[[nodiscard]] constexpr TransformerShape mpt_shape(std::string_view name, long long layers, long long hidden,
                                                   long long heads) {
    return TransformerShape{.name = name, .layers = layers, .hidden = hidden, .ffn = 4 * hidden, .heads = heads,
                            .kv_heads = heads, .vocabulary = 50368, .tied_embeddings = true,
                            .feed_forward = FeedForward::plain, .biases = false};
}

/// llm-foundry's benchmark layout: FSDP FULL_SHARD (ZeRO-3) over every GPU,
/// flash attention, BF16 with fp32 master weights.
[[nodiscard]] constexpr Parallelism fsdp_layout(long long dp, long long micro_batch, long long global_batch,
                                                long long sequence, Recompute recompute) {
    return Parallelism{.dp = dp, .micro_batch = micro_batch, .global_batch = global_batch, .sequence = sequence,
                       .recompute = recompute, .sharding = Sharding::zero3, .flash_attention = true};
}

/// Composer's FSDP prefetches the weight all-gathers and overlaps the
/// reduce-scatters; its flash attention is causal and skips masked blocks;
/// llm-foundry's FSDP configurations checkpoint activations non-reentrantly
/// (activation_checkpointing_reentrant: false), which stops the replay early
/// (assumed: the PyTorch version, 2.1 or later, is not printed).
inline constexpr TrainingOptions fsdp_options{.fsdp_prefetch = true, .recompute_early_stop = true, .causal = true,
                                              .eager_framework = true};

/// The Megatron-LM README's GPT models: 4h GELU MLP with biases, untied
/// embeddings (from the printed parameter counts), vocabulary 131,072.
[[nodiscard]] constexpr TransformerShape megatron_readme_shape(std::string_view name, long long layers,
                                                               long long hidden, long long heads) {
    return TransformerShape{.name = name, .layers = layers, .hidden = hidden, .ffn = 4 * hidden, .heads = heads,
                            .kv_heads = heads, .vocabulary = 131072, .tied_embeddings = false,
                            .feed_forward = FeedForward::plain, .biases = true};
}

/// Its layout: sequence 4,096, the printed t, p, d and global batch; assumed
/// (not printed): micro-batch 1, no recomputation, the distributed optimizer,
/// Transformer Engine flash attention.
[[nodiscard]] constexpr Parallelism megatron_readme_layout(long long tp, long long pp, long long dp,
                                                           long long global_batch, bool sequence_parallel) {
    return Parallelism{.tp = tp, .pp = pp, .dp = dp, .micro_batch = 1, .global_batch = global_batch,
                       .sequence = 4096, .sequence_parallel = sequence_parallel, .recompute = Recompute::none,
                       .sharding = Sharding::distributed, .flash_attention = true};
}

/// The README's flags: --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap.
inline constexpr TrainingOptions megatron_core_options{
    .overlap_tp = true, .overlap_param_gather = true, .causal = true, .overlap_dp = true};

/// The nodes: DGX A100 (80 GB; llm-foundry's A100 80 GB table: 1,600 Gb/s RoCE
/// per node = 200 Gb/s per GPU, as ib-hdr), the same with A100 40 GB, DGX H100.
inline constexpr Node dgx_a100_run_node = dgx_a100;
/// The same node with A100 40 GB GPUs.
inline constexpr Node dgx_a100_40gb_run_node = validated(Node{
    .name = "dgx-a100-40gb", .gpu = a100_40gb_sxm, .gpus = 8, .intra = nvlink3, .inter = ib_hdr});
/// DGX H100.
inline constexpr Node dgx_h100_run_node = dgx_h100;

/// What the partial rows' sources leave out, searched (napkin/measured_run.hpp, RunSearch).
inline constexpr RunSearch megatron_readme_search{.micro_batch = true, .recompute = true, .virtual_stages = true};
/// llm-foundry's H100 rows: the interconnect is not printed, so ib-hdr is searched beside the node's own NICs.
inline constexpr RunSearch llm_foundry_h100_search{.inter_alternative = ib_hdr};

/// NVIDIA DGX Cloud Benchmarking v25.01 (llama3.1/llama3.1_{8b,70b}.yaml, NeMo):
/// the distributed optimizer with overlapped gradient reduce-scatter and
/// parameter all-gather, gradients reduced in BF16, Transformer Engine (flash
/// attention, causal), userbuffers TP overlap where t > 1.
inline constexpr TrainingOptions dgx_cloud_options{.overlap_tp = true, .overlap_param_gather = true, .causal = true,
                                                   .overlap_dp = true, .gradient_reduce_dtype = DType::bf16};
/// DGX Cloud's Llama 3.1 layout: the given t, p, d, v and global batch; cp = 2, sequence 8,192, micro-batch 1,
/// sequence parallelism where t > 1, no recomputation, the distributed optimizer, flash attention.
[[nodiscard]] constexpr Parallelism dgx_cloud_layout(long long tp, long long pp, long long dp, long long vp,
                                                     long long global_batch) {
    return Parallelism{.tp = tp, .pp = pp, .dp = dp, .cp = 2, .virtual_stages = vp, .micro_batch = 1,
                       .global_batch = global_batch, .sequence = 8192, .sequence_parallel = tp > 1,
                       .recompute = Recompute::none, .sharding = Sharding::distributed, .flash_attention = true};
}

/// NeMo 24.07's FP8 GPT-3 175B on 128 H100s (t4 p8 d4, 6 chunks, batch 256):
/// sequence parallelism, flash attention and TP overlap as the recipe's
/// defaults; recomputation searched.
[[nodiscard]] constexpr Parallelism nemo_gpt3_layout() {
    return Parallelism{.tp = 4, .pp = 8, .dp = 4, .virtual_stages = 6, .micro_batch = 1, .global_batch = 256,
                       .sequence = 2048, .sequence_parallel = true, .recompute = Recompute::none,
                       .sharding = Sharding::distributed, .flash_attention = true};
}
/// NeMo's FP8 options: FP8 GEMMs, TP overlap, overlapped parameter all-gather and gradient reduce, causal attention.
inline constexpr TrainingOptions nemo_fp8_options{.compute_dtype = DType::fp8, .overlap_tp = true,
                                                  .overlap_param_gather = true, .causal = true, .overlap_dp = true};

/// The Megatron-LM README's H100 weak-scaling rows and llm-foundry's MPT rows (A100 40/80 GB, H100), as
/// tests/data/measured-training-runs.json gives them.
inline constexpr std::array<MeasuredRun, 23> published_runs{{
    {"GPT 1.7B, 48 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 1.7b", 24, 2048, 16),
     cluster_of(dgx_h100_run_node, 6), megatron_readme_layout(1, 1, 48, 192, false), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 1.7b", 24, 2048, 16), megatron_readme_layout(1, 1, 48, 192, false)), 408.8, 48), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
    {"GPT 7.1B, 96 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 7.1b", 30, 4096, 32),
     cluster_of(dgx_h100_run_node, 12), megatron_readme_layout(2, 1, 48, 192, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 7.1b", 30, 4096, 32), megatron_readme_layout(2, 1, 48, 192, true)), 465.9, 96), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
    {"GPT 16B, 192 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 16b", 32, 6144, 48),
     cluster_of(dgx_h100_run_node, 24), megatron_readme_layout(4, 1, 48, 192, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 16b", 32, 6144, 48), megatron_readme_layout(4, 1, 48, 192, true)), 489.1, 192), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
    {"GPT 32B, 384 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 32b", 48, 7168, 56),
     cluster_of(dgx_h100_run_node, 48), megatron_readme_layout(8, 1, 48, 192, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 32b", 48, 7168, 56), megatron_readme_layout(8, 1, 48, 192, true)), 459.6, 384), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
    {"GPT 70B, 768 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 70b", 84, 8192, 64),
     cluster_of(dgx_h100_run_node, 96), megatron_readme_layout(8, 2, 48, 384, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 70b", 84, 8192, 64), megatron_readme_layout(8, 2, 48, 384, true)), 419.7, 768), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
    {"GPT 119B, 1,536 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 119b", 92, 10240, 80),
     cluster_of(dgx_h100_run_node, 192), megatron_readme_layout(8, 4, 48, 768, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 119b", 92, 10240, 80), megatron_readme_layout(8, 4, 48, 768, true)), 420.5, 1536), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
    {"GPT 177B, 2,304 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 177b", 96, 12288, 96),
     cluster_of(dgx_h100_run_node, 288), megatron_readme_layout(8, 6, 48, 1152, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 177b", 96, 12288, 96), megatron_readme_layout(8, 6, 48, 1152, true)), 432.8, 2304), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
    {"GPT 314B, 3,072 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 314b", 96, 16384, 128),
     cluster_of(dgx_h100_run_node, 384), megatron_readme_layout(8, 8, 48, 1536, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 314b", 96, 16384, 128), megatron_readme_layout(8, 8, 48, 1536, true)), 474.4, 3072), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
    {"GPT 462B, 6,144 GPUs", "NVIDIA/Megatron-LM @ f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4, README weak-scaling table", "Megatron-LM (Megatron-Core)",
     megatron_readme_shape("GPT 462b", 112, 18432, 144),
     cluster_of(dgx_h100_run_node, 768), megatron_readme_layout(8, 16, 48, 3072, true), megatron_core_options,
     step_from_flops_per_gpu(model_flops_per_iteration(megatron_readme_shape("GPT 462b", 112, 18432, 144), megatron_readme_layout(8, 16, 48, 3072, true)), 459.9, 6144), false, "micro-batch, recomputation and interleaving not printed: searched (1, 2, 4; none, selective, full; 1 to 8 chunks); BF16, distributed optimizer assumed", megatron_readme_search},
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
     step_from_tokens_per_gpu(fsdp_layout(64, 20, 1280, 2048, Recompute::none), 44402), false, "interconnect not printed: searched (NDR InfiniBand, 400 Gb/s per GPU, or 200 Gb/s per GPU as the A100 tables' RoCE)", llm_foundry_h100_search},
    {"MPT-7B, 8 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-7b", 32, 4096, 32),
     cluster_of(dgx_h100_run_node, 1), fsdp_layout(8, 6, 48, 2048, Recompute::none), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(8, 6, 48, 2048, Recompute::none), 10643), true, ""},
    {"MPT-13B, 64 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-13b", 40, 5120, 40),
     cluster_of(dgx_h100_run_node, 8), fsdp_layout(64, 2, 128, 2048, Recompute::none), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(64, 2, 128, 2048, Recompute::none), 4800), false, "interconnect not printed: searched (NDR InfiniBand, 400 Gb/s per GPU, or 200 Gb/s per GPU as the A100 tables' RoCE)", llm_foundry_h100_search},
    {"MPT-30B, 32 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-30b", 48, 7168, 56),
     cluster_of(dgx_h100_run_node, 4), fsdp_layout(32, 14, 1344, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(32, 14, 1344, 2048, Recompute::full), 2308), false, "interconnect not printed: searched (NDR InfiniBand, 400 Gb/s per GPU, or 200 Gb/s per GPU as the A100 tables' RoCE)", llm_foundry_h100_search},
    {"MPT-70B, 64 GPUs", "mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, 'H100 80GB BF16'", "llm-foundry (FSDP)",
     mpt_shape("MPT-70b", 80, 8192, 64),
     cluster_of(dgx_h100_run_node, 8), fsdp_layout(64, 8, 2048, 2048, Recompute::full), fsdp_options,
     step_from_tokens_per_gpu(fsdp_layout(64, 8, 2048, 2048, Recompute::full), 1039), false, "interconnect not printed: searched (NDR InfiniBand, 400 Gb/s per GPU, or 200 Gb/s per GPU as the A100 tables' RoCE)", llm_foundry_h100_search},
}};

/// The NeMo (Megatron-Core) rows of tests/data/measured-training-runs.json:
/// measured, in the every-row fit (fitting_runs below), not in the defaults'.
inline constexpr std::array<MeasuredRun, 5> nemo_runs{{
    {"Llama 3.1 8B, 8 GPUs", "NVIDIA/dgxc-benchmarking @ 143b90dd91f9be958fed4773ae95d941a3356a82 (v25.01), llama3.1/README_8b.md, BF16 'Training step time'", "NeMo (Megatron-Core)",
     llama3_1_8b, cluster_of(dgx_h100_run_node, 1), dgx_cloud_layout(1, 1, 4, 1, 128), dgx_cloud_options,
     seconds(12.91), true, ""},
    {"Llama 3.1 8B, 128 GPUs", "NVIDIA/dgxc-benchmarking @ 143b90dd91f9be958fed4773ae95d941a3356a82 (v25.01), llama3.1/README_8b.md, BF16 'Training step time'", "NeMo (Megatron-Core)",
     llama3_1_8b, cluster_of(dgx_h100_run_node, 16), dgx_cloud_layout(1, 1, 64, 1, 2048), dgx_cloud_options,
     seconds(13.1), true, ""},
    {"Llama 3.1 70B, 64 GPUs", "NVIDIA/dgxc-benchmarking @ 143b90dd91f9be958fed4773ae95d941a3356a82 (v25.01), llama3.1/README_70b.md, BF16 'Training step time'", "NeMo (Megatron-Core)",
     llama3_1_70b, cluster_of(dgx_h100_run_node, 8), dgx_cloud_layout(4, 4, 2, 5, 128), dgx_cloud_options,
     seconds(14.72), true, ""},
    {"Llama 3.1 70B, 2,048 GPUs", "NVIDIA/dgxc-benchmarking @ 143b90dd91f9be958fed4773ae95d941a3356a82 (v25.01), llama3.1/README_70b.md, BF16 'Training step time'", "NeMo (Megatron-Core)",
     llama3_1_70b, cluster_of(dgx_h100_run_node, 256), dgx_cloud_layout(4, 4, 64, 5, 4096), dgx_cloud_options,
     seconds(14.98), true, ""},
    {"GPT-3 175B FP8, 128 GPUs", "NVIDIA/NeMo @ 070a0bb168d405d653b9734c0017cf5078e77c0d, docs/source/performance/performance_summary.md (24.07, DGX-H100, FP8)", "NeMo (Megatron-Core)",
     gpt3_175b, cluster_of(dgx_h100_run_node, 16), nemo_gpt3_layout(), nemo_fp8_options,
     step_from_tokens_per_gpu(nemo_gpt3_layout(), 726), false, "recomputation not printed: searched (none, selective, full); sequence parallelism, flash attention, TP overlap from the recipe's defaults", RunSearch{.recompute = true}},
}};

/// Every measured row, what napkin's fits take (napkin calibrate-training
/// --defaults; tests/unit/cross_validation.cpp): Narayanan et al. 2021 Tables 1
/// and 2 (validation/megatron_runs.hpp, its estimate aside), then every row of
/// tests/data/measured-training-runs.json (published_runs, nemo_runs), the
/// partial ones priced at their best searched setting (napkin/measured_run.hpp).
[[nodiscard]] inline std::vector<MeasuredRun> fitting_runs() {
    std::vector<MeasuredRun> runs;
    for (const MegatronRun& run : megatron_runs)
        if (run.role != RunRole::estimate) runs.push_back(measured_run_of(run));
    runs.insert(runs.end(), published_runs.begin(), published_runs.end());
    runs.insert(runs.end(), nemo_runs.begin(), nemo_runs.end());
    return runs;
}

}  // namespace napkin::catalog
