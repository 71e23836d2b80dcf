// SPDX-License-Identifier: MIT
// napkin/training.hpp — one training iteration of a TP × PP × DP (× EP)
// layout: memory per GPU, the step time and where it goes, tokens per second
// and MFU, from one call:
//
//   const TrainingEstimate e = evaluate_training(catalog::gpt3_175b,
//       cluster_of(catalog::dgx_a100, 128),
//       Parallelism{.tp = 8, .pp = 16, .dp = 8, .global_batch = 1536, .recompute = Recompute::full});
//
// The step is Megatron-LM's (Narayanan et al. 2021, SC'21, Sec. 2–3): each
// of the m = B / (b·d) micro-batches runs forward and backward through the
// slowest stage's L/p layers, with tensor-parallel collectives inside every
// layer, activations handed between stages, the pipeline bubble, then the
// data-parallel gradient synchronisation and the optimizer step (with context
// parallelism, also ring attention's K/V exchange). The bubble is
// the one of the layout's pipeline schedule (Parallelism::schedule: 1F1B,
// interleaved, zero-bubble ZB-H1/H2, DualPipe/V), from napkin/pipeline.hpp.
// The parts are kept apart and add up to the total. No allocation, constexpr
// throughout.
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/compute.hpp>
#include <napkin/error.hpp>
#include <napkin/gemm.hpp>
#include <napkin/hardware.hpp>
#include <napkin/kernels/gemm_ceiling.hpp>
#include <napkin/layer_map.hpp>
#include <napkin/memory.hpp>
#include <napkin/model.hpp>
#include <napkin/names.hpp>
#include <napkin/optimizer.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace napkin {

// How the tensor-parallel f and g operators communicate (Korthikanti et al.
// 2022, Sec. 4.2.2): one all-reduce, or a reduce-scatter then an all-gather of
// the same buffer. Both move 2(n − 1)/n of it over 2(n − 1) ring steps; the
// second is two NCCL calls, so it pays the base latency twice. Sequence
// parallelism needs the second (the sequence-split region sits between the
// two halves); `automatic` picks it with sequence parallelism and the
// all-reduce without.
enum class TpCommunication { automatic, all_reduce, reduce_scatter_all_gather };

inline constexpr std::array tp_communication_names{Named{TpCommunication::automatic, "auto"},
                                                  Named{TpCommunication::all_reduce, "all-reduce"},
                                                  Named{TpCommunication::reduce_scatter_all_gather, "rs-ag"}};
[[nodiscard]] constexpr std::string_view to_string(TpCommunication c) { return name_of(c, tp_communication_names); }
[[nodiscard]] constexpr std::optional<TpCommunication> parse_tp_communication(std::string_view text) {
    return value_of(text, tp_communication_names);
}

// How the matrix work is priced: the GEMM model (napkin/gemm.hpp: every
// GEMM from its shape, quantization, roofline, a share per GPU generation),
// or the flat model (compute.hpp: one share of peak for every GEMM, the
// EfficiencyModel of --peak-share, --half-width, --memory-passes). A GPU
// without the GEMM model's facts (SM count, architecture) runs the flat model.
enum class ComputeModel { gemm, flat };

[[nodiscard]] constexpr std::string_view to_string(ComputeModel c) { return c == ComputeModel::gemm ? "gemm" : "flat"; }

struct TrainingOptions {
    EfficiencyModel efficiency = default_efficiency;  // the flat model's parameters
    ComputeModel compute_model = ComputeModel::gemm;
    EfficiencyProfile profile = default_profile;      // the GEMM model's fitted parameters
    // The GEMMs' precision: bf16/fp16 at the 16-bit tensor peak, fp8 at the FP8
    // peak (Transformer Engine; its casts to FP8 counted as element-wise traffic).
    DType compute_dtype = DType::bf16;
    // Megatron-Core's --tp-comm-overlap (Transformer Engine userbuffers): the
    // tensor-parallel collectives run in chunks under the neighbouring GEMMs;
    // only what exceeds the layer's linear-layer GEMM time shows.
    bool overlap_tp = false;
    // Megatron's --overlap-param-gather with the distributed optimizer: the
    // parameter all-gather runs under the first micro-batch's forward.
    bool overlap_param_gather = false;
    // FSDP / ZeRO-3 prefetch (PyTorch FSDP's backward_prefetch and the
    // all-gathers issued ahead on their own stream): each layer's weight
    // all-gather and gradient reduce-scatter run under the neighbouring
    // layer's compute; only what exceeds it shows.
    bool fsdp_prefetch = true;
    // PyTorch's non-reentrant activation checkpointing (torch.utils.checkpoint
    // with use_reentrant=False; FSDP's apply_activation_checkpointing) stops
    // the replay as soon as every tensor the backward needs is recomputed
    // (set_checkpoint_early_stop, on by default since PyTorch 2.1). The last
    // saved tensor of a dense layer is the input of its MLP down projection,
    // saved before that GEMM runs: under full recomputation the down
    // projection is not replayed. (MoE layers replay in full: the combine
    // after the experts keeps their outputs.) Megatron's own recomputation
    // replays the whole layer (false).
    bool recompute_early_stop = false;
    // NCCL's per-call base latency (src/graph/tuning.cc, ring LL: 6.6 µs).
    Seconds collective_base_latency = nccl::ring_ll_base_latency;
    // Count FLOPs of the attention core for a causal kernel that skips masked
    // blocks (false: the full square, as Narayanan et al. count them).
    bool causal = false;
    // Megatron's scatter/gather optimisation (Narayanan et al. Sec. 4.1): a
    // stage sends b·s·h/t per boundary instead of b·s·h.
    bool pipeline_scatter_gather = true;
    // Overlap the data-parallel gradient synchronisation with the last
    // micro-batch's backward pass (Megatron's --overlap-grad-reduce).
    bool overlap_dp = false;
    TpCommunication tp_communication = TpCommunication::automatic;
    // The format the gradients travel in through the data-parallel
    // collectives; none: the gradients' own (Parallelism::gradients).
    // Megatron-LM with --fp16 and without --accumulate-allreduce-grads-in-fp32
    // all-reduces the 16-bit gradients (megatron/arguments.py).
    DType gradient_reduce_dtype = DType::none;
    // What a real run holds besides model states and activations (memory.hpp).
    MemoryAllowances memory_allowances = default_memory_allowances;
    // The optimizer (napkin/optimizer.hpp): Adam's two moments, or Muon's one
    // momentum buffer on the weight matrices and its Newton–Schulz iterations.
    Optimizer optimizer = Optimizer::adam;
    // An uneven pipeline (napkin/layer_map.hpp): the layers each stage and
    // chunk holds; null: L/(p·v) layers in every chunk. Not owned: it must
    // outlive the call.
    const LayerMap* layer_map = nullptr;
    // An eager PyTorch framework (FSDP under Composer): each layer's forward
    // and backward pay EfficiencyProfile::eager_layer_overhead_ms per
    // micro-batch on top of their kernels (compiled Megatron-LM, NeMo: false).
    bool eager_framework = false;
};

inline constexpr TrainingOptions default_training_options{};

// The collectives the layout's TP really uses: `automatic` resolves to the
// pair with sequence parallelism and to the all-reduce without.
// Full recomputation replays every layer's forward pass inside the backward
// (Korthikanti et al. 2022, Sec. 5), so its collectives run once more too.
[[nodiscard]] constexpr bool full_recompute_replays(const Parallelism& par) { return par.recompute == Recompute::full; }
// A layer's forward passes per micro-batch: 2 with full recomputation, else 1.
[[nodiscard]] constexpr double forward_passes(const Parallelism& par) { return full_recompute_replays(par) ? 2.0 : 1.0; }
// Tensor- (or expert-) parallel collectives per layer per micro-batch: two in
// each forward pass and two in the backward (Megatron's f and g): 4, or 6.
[[nodiscard]] constexpr double collectives_per_layer(const Parallelism& par) { return 2.0 * forward_passes(par) + 2.0; }

// Bytes per gradient in the data-parallel collectives.
[[nodiscard]] constexpr double gradient_reduce_bytes(const Parallelism& par, const TrainingOptions& o) {
    const DType d = o.gradient_reduce_dtype;
    if (d != DType::none && d != DType::bf16 && d != DType::fp16 && d != DType::fp32)
        reject("TrainingOptions.gradient_reduce_dtype", to_string(d), "must be bf16, fp16 or fp32");
    return bytes_of(d == DType::none ? par.gradients : d);
}

// Whether full recomputation skips the layer's MLP down projection
// (TrainingOptions::recompute_early_stop): dense layers only.
[[nodiscard]] constexpr bool skips_down_projection(const TransformerShape& layer, const Parallelism& par,
                                                   const TrainingOptions& o) {
    return o.recompute_early_stop && full_recompute_replays(par) && layer.experts == 0;
}

// The FLOPs that early stop leaves out of one sequence's replay: the down
// projection's forward, 2·s·h·f, in every dense layer.
[[nodiscard]] constexpr Flops skipped_recompute_flops_per_sequence(const TransformerShape& m, const Parallelism& par,
                                                                   const TrainingOptions& o) {
    if (!o.recompute_early_stop || !full_recompute_replays(par)) return Flops{};
    const long long dense = m.experts == 0 ? m.layers : m.dense_layers;
    return flops(2.0 * count(dense) * count(par.sequence) * count(m.hidden) * count(m.ffn));
}

[[nodiscard]] constexpr TpCommunication resolved_tp_communication(const Parallelism& par, const TrainingOptions& o) {
    if (o.tp_communication != TpCommunication::automatic) return o.tp_communication;
    return par.sequence_parallel ? TpCommunication::reduce_scatter_all_gather : TpCommunication::all_reduce;
}

// Where one iteration's time goes, on the slowest pipeline stage.
struct StepBreakdown {
    Seconds compute;    // forward and backward of every micro-batch (matrix and element-wise work)
    Seconds recompute;  // the forward work recomputation replays
    Seconds tp;         // tensor-parallel all-reduces (or reduce-scatter + all-gather)
    Seconds pp;         // activations and gradients sent between stages
    Seconds bubble;     // pipeline fill and drain
    Seconds dp;         // gradient synchronisation not hidden behind compute
    Seconds ep;         // expert-parallel all-to-alls
    Seconds cp;         // context-parallel K/V exchange not hidden behind attention
    Seconds optimizer;  // the Adam update
    [[nodiscard]] constexpr Seconds total() const {
        return compute + recompute + tp + pp + bubble + dp + ep + cp + optimizer;
    }
};

struct TrainingEstimate {
    TrainingMemory memory;
    bool fits = false;
    StepBreakdown breakdown;
    Seconds step;
    TokensPerSecond tokens_per_second;
    double mfu = 0.0;  // against the 16-bit (BF16) tensor peak, whatever the GEMMs' precision
    double hfu = 0.0;
    // MFU stated against both peaks: the BF16 one (= mfu) and, on a GPU with
    // FP8 tensor cores, the FP8 one (half of it on NVIDIA's dense data sheets;
    // 0 without FP8). An FP8 run's MFU is quoted against either in the
    // literature (NeMo's FP8 recipes against the BF16 peak), so both are labelled.
    double mfu_bf16_peak = 0.0;
    double mfu_fp8_peak = 0.0;
    Flops model_flops;     // per iteration, all GPUs
    Flops hardware_flops;  // the same with recomputation
    ComputeModel compute_model = ComputeModel::gemm;  // the model that priced the matrix work
};

// ---------------------------------------------------------------------------
// The parts, one micro-batch at a time

// Forward + backward (3 × forward) of one micro-batch on one GPU of the
// slowest stage: its L/p layers and, on the last stage, the logits (the first
// stage's embedding look-up costs no multiplications). The GPU's share is
// 1/(t·c) of the work.
[[nodiscard]] constexpr Flops stage_flops_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                        bool causal = false, bool logits = true) {
    const double layers = count(m.layers / par.pp);
    const Flops forward = layers * layer_forward_flops(m, par.sequence, causal) +
                          (logits ? logits_forward_flops(m, par.sequence) : Flops{});
    return 3.0 * count(par.micro_batch) * forward / count(par.tp * par.cp);
}

// What recomputation adds on the same GPU for one micro-batch.
[[nodiscard]] constexpr Flops stage_recompute_flops_per_microbatch(const TransformerShape& m,
                                                                  const Parallelism& par, bool causal = false) {
    return count(par.micro_batch) * recompute_flops_per_sequence(m, par, causal) / count(par.pp * par.tp * par.cp);
}

// The element-wise work of one micro-batch on one GPU of the stage, at the
// memory bandwidth (compute.hpp, EfficiencyModel::memory_passes): per layer and
// per pass over it, k times the activation bytes Korthikanti et al. 2022
// count for the layout without recomputation (tensor and sequence parallel
// splits, the s × s scores unless flash attention fuses them). Forward and
// backward make three passes; full recomputation replays a fourth, selective
// recomputation the scores' part of one. (The logits' softmax, s·b·V values a
// micro-batch, is left out: under 1/6 of one GPT-3 layer's bytes.)
struct ElementwiseTime {
    Seconds compute, recompute;
};

[[nodiscard]] constexpr ElementwiseTime elementwise_time_per_microbatch(const TransformerShape& m,
                                                                       const Parallelism& par, const Gpu& gpu,
                                                                       const EfficiencyModel& e) {
    require_non_negative("EfficiencyModel.memory_passes", e.memory_passes);
    Parallelism stored = par;
    stored.recompute = Recompute::none;
    const Bytes per_pass = activation_bytes_per_layer(m, stored);
    stored.flash_attention = true;
    const Bytes scores = per_pass - activation_bytes_per_layer(m, stored);
    const double layers = count(m.layers / par.pp);
    const Seconds pass = e.memory_passes * layers * read_time(per_pass, gpu);
    const Seconds replayed = full_recompute_replays(par)             ? pass
                             : par.recompute == Recompute::selective ? e.memory_passes * layers * read_time(scores, gpu)
                                                                     : Seconds{};
    return {3.0 * pass, replayed};
}

// Bytes of one micro-batch's hidden states on one GPU: b · (s/c) · h values
// in the weights' 16-bit format.
[[nodiscard]] constexpr Bytes hidden_states_bytes(const TransformerShape& m, const Parallelism& par) {
    return bytes(count(par.micro_batch) * count(par.sequence / par.cp) * count(m.hidden) * bytes_of(par.weights));
}

// Megatron-LM's tensor parallelism (Shoeybi et al. 2019, Sec. 3; shared
// reference tensor-parallel-mlp.txt): the f and g operators put one
// all-reduce of b·s·h values forward and one backward around each of the
// attention and MLP blocks: 4 per layer per micro-batch, 2 more when full
// recomputation replays the forward pass. With sequence parallelism each
// becomes a reduce-scatter plus an all-gather of the same volume
// (Korthikanti et al. 2022, Sec. 4.2.2); without it the same pair when
// TrainingOptions::tp_communication asks for it.
[[nodiscard]] constexpr Seconds tp_time_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                      const Cluster& c, const TrainingOptions& o) {
    if (par.tp == 1) return Seconds{};
    const Link link = link_for(tensor_group(par, c), c);
    const Bytes message = hidden_states_bytes(m, par);
    const bool split = resolved_tp_communication(par, o) == TpCommunication::reduce_scatter_all_gather;
    const CollectiveTime one = split
                                   ? reduce_scatter(message, par.tp, link, o.collective_base_latency) +
                                         all_gather(message, par.tp, link, o.collective_base_latency)
                                   : ring_all_reduce(message, par.tp, link, o.collective_base_latency);
    const double per_layer = collectives_per_layer(par);
    return count(m.layers / par.pp) * per_layer * one.total();
}

// Pipeline sends (Narayanan et al. Sec. 4.1): per micro-batch each of the v
// chunks receives the activations forward and the gradients backward,
// b·s·h values per boundary (÷ t with scatter/gather), on NVLink when the
// neighbouring stage shares the node.
[[nodiscard]] constexpr Seconds pp_time_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                      const Cluster& c, const TrainingOptions& o) {
    if (par.pp == 1) return Seconds{};
    const Link link = link_for(pipeline_group(par, c), c);
    const Bytes message = hidden_states_bytes(m, par) / (o.pipeline_scatter_gather ? count(par.tp) : 1.0);
    return 2.0 * count(par.virtual_stages) * point_to_point(message, link, o.collective_base_latency).total();
}

// Expert parallelism (Lepikhin et al. 2020, GShard, Sec. 2.2; shared reference
// moe-training-step-1024-gpus.json): dispatch and combine all-to-alls around
// each MoE layer forward and again backward (2 more with full recomputation),
// each rank sending its tokens' k routed copies of h values.
[[nodiscard]] constexpr Seconds ep_time_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                      const Cluster& c, const TrainingOptions& o) {
    if (par.ep == 1 || m.experts == 0) return Seconds{};
    const Link link = link_for(expert_group(par, c), c);
    const Bytes per_rank = hidden_states_bytes(m, par) * count(m.experts_per_token);
    const double per_layer = collectives_per_layer(par);
    return count(m.layers / par.pp) * per_layer * all_to_all(per_rank, par.ep, link, o.collective_base_latency).total();
}

// Context parallelism (Liu et al. 2023, "Ring Attention with Blockwise
// Transformers", Sec. 3; Megatron-Core's context parallelism passes K and V
// between the cp ranks the same way): each rank keeps s/c of the sequence, and
// every attention layer passes its K and V blocks around the ring of cp ranks
// in cp − 1 steps, b·(s/c)·2·(kv heads · head dim)/t values each, while it
// computes the attention of the block it holds; the backward passes K and V
// again with their gradients (twice the bytes) beside twice the attention
// work. Only what a step's sends take beyond that attention work shows
// (`core`: the forward attention core of one layer on this rank, its s/c
// queries against all s keys). Full recomputation replays the forward exchange.
struct ContextExchange {
    Seconds forward, backward;
    [[nodiscard]] constexpr Seconds total() const { return forward + backward; }
};

[[nodiscard]] constexpr ContextExchange cp_time_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                              const Cluster& c, const TrainingOptions& o,
                                                              Seconds core) {
    if (par.cp == 1) return {};
    const Link link = link_for(context_group(par, c), c);
    const Bytes kv_block = bytes(count(par.micro_batch) * count(par.sequence / par.cp) * 2.0 *
                                 count(m.kv_heads * head_dim(m)) / count(par.tp) * bytes_of(par.weights));
    const double steps = count(par.cp - 1);
    const Seconds send_forward = point_to_point(kv_block, link, o.collective_base_latency).total();
    const Seconds send_backward = point_to_point(2.0 * kv_block, link, o.collective_base_latency).total();
    const Seconds forward = std::max(Seconds{}, steps * send_forward - core);
    const Seconds backward = std::max(Seconds{}, steps * send_backward - 2.0 * core);
    const double layers = count(m.layers / par.pp);
    const double forwards = forward_passes(par);
    return {layers * forward, layers * (backward + (forwards - 1.0) * forward)};
}

// One micro-batch through the slowest stage, part by part.
struct MicrobatchTime {
    Seconds compute;    // forward + backward matrix work
    Seconds recompute;  // the forward work recomputation replays
    Seconds tp, pp, ep;
    ContextExchange cp;
    [[nodiscard]] constexpr Seconds total() const { return compute + recompute + tp + pp + ep + cp.total(); }
};

// The same micro-batch as napkin/pipeline.hpp's StageTimes: forward F, full
// backward B and its weight-gradient part W. The matrix work is 1/3 forward,
// 2/3 backward; a linear layer's backward is two multiplications of the
// forward's size, one for the input gradient and one for the weight gradient
// (Qi et al. 2023, "Zero Bubble Pipeline Parallelism", Sec. 2), so W = the
// forward's compute. (The attention core's two products have no weights, so
// this W is s/(6h) of a layer too large: 2.8 % for GPT-3.) The replayed
// forward runs inside the backward, before B. Of the collectives per layer, 2
// are in the forward and the rest (2, or 4 with full recomputation) in the
// backward; pipeline sends are half activations forward, half gradients backward;
// the context-parallel exchange is split as cp_time_per_microbatch splits it.
[[nodiscard]] constexpr StageTimes stage_times(const MicrobatchTime& t, const Parallelism& par) {
    const Seconds forward_compute = t.compute / 3.0;
    const double forward_collectives = 2.0 / collectives_per_layer(par);
    const Seconds forward = forward_compute + forward_collectives * (t.tp + t.ep) + 0.5 * t.pp + t.cp.forward;
    return StageTimes{.forward = forward, .backward = t.total() - forward, .weight_grad = forward_compute};
}

// The bubble of the layout's schedule, napkin/pipeline.hpp's bubble_time:
// 1F1B and GPipe (p − 1)(F + B), interleaved (p − 1)(F + B)/v, ZB-H1
// (p − 1)(F + B − 2W), ZB-H2 (p − 1)(F + B − 3W), DualPipe (p/2 − 1)(F + 2B − 3W),
// DualPipeV (p − 1)(F + 2B − 3W)/2 (F&B taken as F + B: no overlap assumed).
[[nodiscard]] constexpr Seconds pipeline_bubble(const Parallelism& par, const StageTimes& stage) {
    const PipelineShape shape = pipeline_shape(par);
    return with_schedule(par, [&](const auto& schedule) { return bubble_time(schedule, shape, stage); });
}

// Data-parallel synchronisation of one group's gradients (`parameters` per
// GPU over `group`): an all-reduce (Li et al. 2020, PyTorch DDP); with ZeRO-1/2 or
// the distributed optimizer a reduce-scatter of the gradients and an
// all-gather of the updated weights, the same volume; ZeRO-3 gathers the
// weights again for the forward and the backward of every micro-batch, 1.5×
// the volume at m = 1 (Rajbhandari et al. Sec. 7.2.2). Across nodes it runs
// hierarchically: inside the node, then one ring per GPU position.
// The same in parts: `reduce` (the all-reduce, or the gradients'
// reduce-scatter), `gather` (the updated weights' all-gather after the
// optimizer step) and, for ZeRO-3, `layer_gather`: one all-gather of the
// weights, which ZeRO-3 repeats for the forward and the backward of every
// micro-batch.
struct GradientSync {
    Seconds reduce, gather, layer_gather;
};

[[nodiscard]] constexpr GradientSync gradient_sync_parts(double parameters, const GroupPlacement& group,
                                                        const Parallelism& par, const Cluster& c,
                                                        const TrainingOptions& o) {
    if (group.size == 1 || parameters == 0.0) return {};
    const Bytes gradients = bytes(parameters * gradient_reduce_bytes(par, o));
    const Bytes weights = bytes(parameters * bytes_of(par.weights));
    const Seconds base = o.collective_base_latency;
    const HierarchicalTopology topology = topology_of(group, c);
    const bool across = group.crosses_nodes();
    const Link link = c.node.intra;
    const auto all_reduce = [&](Bytes b) {
        return across ? hierarchical_all_reduce(b, topology, base) : ring_all_reduce(b, group.size, link, base);
    };
    const auto scatter = [&](Bytes b) {
        return across ? hierarchical_reduce_scatter(b, topology, base) : reduce_scatter(b, group.size, link, base);
    };
    const auto gather = [&](Bytes b) {
        return across ? hierarchical_all_gather(b, topology, base) : all_gather(b, group.size, link, base);
    };
    switch (par.sharding) {
        case Sharding::none: return {all_reduce(gradients).total(), Seconds{}, Seconds{}};
        case Sharding::zero1:
        case Sharding::zero2:
        case Sharding::distributed: return {scatter(gradients).total(), gather(weights).total(), Seconds{}};
        case Sharding::zero3: return {scatter(gradients).total(), Seconds{}, gather(weights).total()};
    }
    return {};
}

[[nodiscard]] constexpr Seconds gradient_sync_time(double parameters, const GroupPlacement& group,
                                                  const Parallelism& par, const Cluster& c,
                                                  const TrainingOptions& o) {
    const GradientSync g = gradient_sync_parts(parameters, group, par, c, o);
    const double mb = count(microbatches(par));
    // ZeRO-3 reduce-scatters each micro-batch's gradients (exposed_sync_time below).
    const double reduces = par.sharding == Sharding::zero3 ? mb : 1.0;
    return reduces * g.reduce + g.gather + 2.0 * mb * g.layer_gather;
}

// What of the synchronisation shows, given one micro-batch's forward and
// backward time on the stage:
//  - overlap_dp: the reduction runs bucket by bucket under the last
//    micro-batch's backward (Li et al. 2020, PyTorch DDP, Sec. 3.2.3;
//    Megatron's --overlap-grad-reduce); only what exceeds it shows;
//  - overlap_param_gather: the all-gather under the first micro-batch's forward;
//  - ZeRO-3 with fsdp_prefetch: each layer's gather runs under the previous
//    layer's compute (PyTorch FSDP, Zhao et al. 2023, Sec. 3.3.2), so per
//    micro-batch only what exceeds the forward shows, plus the first layer's
//    gather, which nothing precedes. Without prefetch every gather shows.
//  - ZeRO-3 keeps only its shard of the gradients (memory.hpp's P_os+g+p), so
//    every micro-batch's backward reduce-scatters them (FSDP outside no_sync,
//    Zhao et al. 2023, Sec. 3.3; ZeRO Sec. 7.2.2: 1.5× the data-parallel
//    volume for every forward and backward); in that backward the reduce-
//    scatter and the all-gathers share the GPU's links, so the two hide
//    together: what their sum exceeds the backward by shows.
[[nodiscard]] constexpr Seconds exposed_sync_time(const GradientSync& g, const Parallelism& par, double layers,
                                                 Seconds forward, Seconds backward, const TrainingOptions& o) {
    const auto beyond = [](Seconds work, Seconds cover) { return std::max(Seconds{}, work - cover); };
    const double mb = count(microbatches(par));
    const Seconds gather = o.overlap_param_gather ? beyond(g.gather, forward) : g.gather;
    if (par.sharding == Sharding::zero3) {
        if (o.fsdp_prefetch)
            return gather + mb * (beyond(g.layer_gather, forward) + g.layer_gather / layers +
                                  beyond(g.layer_gather + g.reduce, backward));
        const Seconds reduce = o.overlap_dp ? beyond(g.reduce, backward) : g.reduce;
        return gather + mb * (2.0 * g.layer_gather + reduce);
    }
    const Seconds reduce = o.overlap_dp ? beyond(g.reduce, backward) : g.reduce;
    return reduce + gather;
}

// Adam's update is element-wise and memory-bound (Kingma & Ba 2015, Alg. 1):
// per parameter it reads the gradient, the master weight and both moments,
// writes them back and writes the 16-bit weight, at the GPU's memory
// bandwidth, over the shard this GPU owns. `moments`: the moments kept per
// parameter (2 for Adam; fewer for Muon, optimizer_moments below).
[[nodiscard]] constexpr Seconds optimizer_time(const StageParameters& params, const Parallelism& par,
                                              const Gpu& gpu, double moments = 2.0) {
    const bool sharded = par.sharding != Sharding::none;
    const double dense = params.dense / (sharded ? count(par.dp * par.cp) : 1.0);
    const double expert = params.expert / (sharded ? count(par.dp * par.cp / par.ep) : 1.0);
    const double per_parameter =
        bytes_of(par.gradients) + 2.0 * (bytes_of(par.master) + moments * bytes_of(par.moments)) +
        bytes_of(par.weights);
    return read_time(bytes((dense + expert) * per_parameter), gpu);
}

// Moments kept per parameter, on average over the model: Adam's 2; Muon's 1
// momentum on its matrices and AdamW's 2 on the rest (Liu et al. 2025, the
// Moonlight paper, Sec. 2; napkin/optimizer.hpp's muon_parameter_count).
[[nodiscard]] constexpr double optimizer_moments(const TransformerShape& m, Optimizer opt) {
    if (opt == Optimizer::adam) return 2.0;
    return 2.0 - count(muon_parameter_count(m)) / count(parameter_count(m));
}

// The share of the tensor-core peak the optimizer's Newton–Schulz GEMMs run at:
// the GEMM model's fitted share of the generation, or the flat model's r.
[[nodiscard]] constexpr double matrix_share(const Gpu& gpu, const TrainingOptions& o) {
    return o.compute_model == ComputeModel::gemm && has_gemm_facts(gpu) ? tensor_share(o.profile, gpu.architecture)
                                                                        : o.efficiency.peak_share;
}

// The optimizer step on one GPU: the element-wise update and, for Muon, the
// Newton–Schulz iterations of every weight matrix (napkin/optimizer.hpp's
// muon_step_flops) spread evenly over all GPUs (Megatron's distributed Muon
// hands each rank whole matrices; balanced, that is 1/N of the FLOPs).
[[nodiscard]] constexpr Seconds newton_schulz_time(const TransformerShape& m, const Parallelism& par, const Gpu& gpu,
                                                  const TrainingOptions& o) {
    if (o.optimizer == Optimizer::adam) return Seconds{};
    return muon_step_time(m, count(gpus(par)), gpu.peak_flops * matrix_share(gpu, o));
}

[[nodiscard]] constexpr Seconds optimizer_step_time(const TransformerShape& m, const StageParameters& params,
                                                   const Parallelism& par, const Gpu& gpu, const TrainingOptions& o) {
    return optimizer_time(params, par, gpu, optimizer_moments(m, o.optimizer)) + newton_schulz_time(m, par, gpu, o);
}

// ---------------------------------------------------------------------------
// The matrix work of one micro-batch on the slowest stage

// A GPU without FP8 tensor cores cannot run FP8 GEMMs.
[[noreturn]] inline void reject_fp8(const Gpu& gpu) {
    reject("TrainingOptions.compute_dtype", "fp8",
           std::string(gpu.name) + " has no FP8 tensor cores (use bf16 or fp16)");
}

// The fitted shares are 16-bit GEMMs'. An FP8 GEMM reaches a smaller share of
// its (twice as high) peak: the kernel layer's best FP8 GEMM over its best
// 16-bit one on the generation (napkin/kernels/gemm_ceiling.hpp; H100 SXM:
// 70.9 % / 80.3 %, B200 76.3 % / 77.6 %, the MAMF tables); 1 for 16 bits.
[[nodiscard]] constexpr double fp8_ceiling_ratio(const Gpu& gpu, DType compute) {
    if (compute != DType::fp8) return 1.0;
    return gemm_ceiling(gpu.architecture, DType::fp8, KernelProfile::measured) /
           gemm_ceiling(gpu.architecture, DType::bf16, KernelProfile::measured);
}

// The framework's own time per layer and micro-batch, forward and backward
// (TrainingOptions::eager_framework).
[[nodiscard]] constexpr Seconds framework_layer_overhead(const TrainingOptions& o) {
    require_non_negative("EfficiencyProfile.eager_layer_overhead_ms", o.profile.eager_layer_overhead_ms);
    return o.eager_framework ? seconds(o.profile.eager_layer_overhead_ms * 1e-3) : Seconds{};
}

// The GEMM settings of the layout on the GPU: the peak of the compute
// precision, the generation's fitted share, the bytes per element.
[[nodiscard]] constexpr GemmSettings gemm_settings(const Gpu& gpu, const TrainingOptions& o) {
    const bool fp8 = o.compute_dtype == DType::fp8;
    if (fp8 && gpu.fp8_flops.value() <= 0.0) reject_fp8(gpu);
    require(o.compute_dtype == DType::bf16 || o.compute_dtype == DType::fp16 || fp8, "TrainingOptions.compute_dtype",
            static_cast<double>(o.compute_dtype), "must be bf16, fp16 or fp8");
    return {.peak = fp8 ? gpu.fp8_flops : gpu.peak_flops,
            .share = tensor_share(o.profile, gpu.architecture) * fp8_ceiling_ratio(gpu, o.compute_dtype),
            .element_bytes = fp8 ? 1.0 : 2.0};
}

// Where a micro-batch's time on the stage goes before communication: the
// matrix work forward + backward (`compute`), what recomputation replays
// (`recompute`), the linear layers' GEMMs alone (what TP overlap hides
// under), and one layer's forward attention core (what the CP ring hides under).
struct MatrixWork {
    Seconds compute, recompute, linear, attention_forward;
};

// The flat model (compute.hpp): every GEMM at one share of peak.
[[nodiscard]] constexpr MatrixWork flat_matrix_work(const TransformerShape& m, const Parallelism& par,
                                                    const Gpu& gpu, const TrainingOptions& o, bool logits = true) {
    const double efficiency = achievable_efficiency(o.efficiency, matmul_width(m, par));
    const ElementwiseTime elementwise = elementwise_time_per_microbatch(m, par, gpu, o.efficiency);
    const Seconds matrix =
        achievable_compute_time(stage_flops_per_microbatch(m, par, o.causal, logits), gpu, efficiency);
    const Seconds core = achievable_compute_time(
        count(par.micro_batch) * attention_core_flops(m, par.sequence, o.causal) / count(par.tp * par.cp), gpu,
        efficiency);
    const Flops replayed = stage_recompute_flops_per_microbatch(m, par, o.causal) -
                           count(par.micro_batch) * skipped_recompute_flops_per_sequence(m, par, o) /
                               count(par.pp * par.tp * par.cp);
    return {matrix + elementwise.compute, achievable_compute_time(replayed, gpu, efficiency) + elementwise.recompute,
            matrix, core};
}

// Transformer Engine's FP8 casts (Micikevicius et al. 2022, "FP8 Formats for
// Deep Learning", Sec. 3; TE casts each GEMM input, scaling it by its amax):
// every linear layer's input forward and its output gradient backward is read
// in 16 bits and written in 8, 3 bytes per element, at the memory bandwidth.
[[nodiscard]] constexpr Seconds fp8_cast_time(const TransformerShape& m, const Parallelism& par, const Gpu& gpu) {
    const double tokens = count(par.micro_batch) * count(par.sequence / par.cp);
    const double t = count(par.tp);
    const double h = count(m.hidden);
    const double q = count(m.heads * head_dim(m)) / t;
    const double qkv = count((m.heads + 2 * m.kv_heads) * head_dim(m)) / t;
    const double up = m.feed_forward == FeedForward::gated ? 2.0 : 1.0;
    const double f = (m.experts == 0 ? count(m.ffn)
                                     : count(m.experts_per_token * m.expert_ffn + m.shared_experts * m.shared_expert_ffn)) /
                     t;
    const double forward_inputs = h + q + h + f;
    const double backward_outputs = qkv + h + up * f + h;
    return read_time(bytes(3.0 * tokens * (forward_inputs + backward_outputs)), gpu);
}

// The GEMM model (napkin/gemm.hpp): every GEMM of the stage's L/p layers and
// the logits from its shape, plus the element-wise work at the memory
// bandwidth (elementwise_time_per_microbatch with the profile's passes) and,
// for FP8, the casts. The logits stay in 16 bits (Transformer Engine keeps
// the output layer out of FP8).
[[nodiscard]] constexpr MatrixWork gemm_matrix_work(const TransformerShape& m, const Parallelism& par,
                                                    const Gpu& gpu, const TrainingOptions& o, bool with_logits = true) {
    const GemmSettings settings = gemm_settings(gpu, o);
    GemmSettings sixteen = settings;
    sixteen.peak = gpu.peak_flops;
    sixteen.element_bytes = 2.0;
    const LayerGemmTimes layer = layer_gemm_times(m, par, gpu, settings, o.causal);
    const PassTimes logits = with_logits ? logits_gemm_times(m, par, gpu, sixteen) : PassTimes{};
    const double layers = count(m.layers / par.pp);
    const ElementwiseTime elementwise =
        elementwise_time_per_microbatch(m, par, gpu, EfficiencyModel{.memory_passes = o.profile.memory_passes});
    const Seconds casts = o.compute_dtype == DType::fp8 ? layers * fp8_cast_time(m, par, gpu) : Seconds{};
    const Seconds skipped = skips_down_projection(m, par, o) ? down_projection_times(m, par, gpu, settings).forward
                                                             : Seconds{};
    const Seconds replayed = full_recompute_replays(par)             ? layers * (layer.forward() - skipped)
                             : par.recompute == Recompute::selective ? layers * layer.attention.forward
                                                                     : Seconds{};
    return {layers * (layer.forward() + layer.backward() + framework_layer_overhead(o)) + logits.forward +
                logits.backward + elementwise.compute + casts,
            replayed + elementwise.recompute,
            layers * (layer.weights.forward + layer.weights.backward), layer.attention.forward};
}

// The model the options ask for, the flat one when the GPU lacks the GEMM facts.
[[nodiscard]] constexpr ComputeModel resolved_compute_model(const Gpu& gpu, const TrainingOptions& o) {
    return o.compute_model == ComputeModel::gemm && has_gemm_facts(gpu) ? ComputeModel::gemm : ComputeModel::flat;
}

[[nodiscard]] constexpr MatrixWork matrix_work(const TransformerShape& m, const Parallelism& par, const Gpu& gpu,
                                               const TrainingOptions& o, bool logits = true) {
    return resolved_compute_model(gpu, o) == ComputeModel::gemm ? gemm_matrix_work(m, par, gpu, o, logits)
                                                                 : flat_matrix_work(m, par, gpu, o, logits);
}

// ---------------------------------------------------------------------------
// Uneven pipelines: a layer map (napkin/layer_map.hpp)
//
// Each stage's micro-batch is the sum of its layers' — a model's dense layers
// (DeepSeek's first_k_dense_replace) at their own cost, the MoE layers at
// theirs —, the logits on the last stage, the pipeline sends on every one.
// The embedding look-up has no multiplications; its table is memory of the
// first stage.

[[nodiscard]] constexpr MicrobatchTime operator+(const MicrobatchTime& a, const MicrobatchTime& b) {
    return {a.compute + b.compute, a.recompute + b.recompute, a.tp + b.tp, a.pp + b.pp, a.ep + b.ep,
            {a.cp.forward + b.cp.forward, a.cp.backward + b.cp.backward}};
}
[[nodiscard]] constexpr MicrobatchTime operator*(double n, const MicrobatchTime& t) {
    return {n * t.compute, n * t.recompute, n * t.tp, n * t.pp, n * t.ep, {n * t.cp.forward, n * t.cp.backward}};
}

// The shape seen as one layer per stage (m.layers / par.pp = 1), so the
// per-stage functions above price one layer: a dense one or an MoE one.
[[nodiscard]] constexpr TransformerShape one_layer_shape(const TransformerShape& m, const Parallelism& par,
                                                         bool dense) {
    TransformerShape one = dense && m.experts > 0 ? dense_layer_shape(m) : m;
    one.layers = par.pp;
    one.dense_layers = 0;
    return one;
}

// One layer through one micro-batch: matrix and element-wise work, TP, EP and
// CP collectives (no logits, no pipeline send).
[[nodiscard]] constexpr MicrobatchTime layer_microbatch_time(const TransformerShape& layer, const Parallelism& par,
                                                             const Cluster& c, const TrainingOptions& o) {
    const MatrixWork work = matrix_work(layer, par, c.node.gpu, o, false);
    const Seconds tp_full = tp_time_per_microbatch(layer, par, c, o);
    return {.compute = work.compute,
            .recompute = work.recompute,
            .tp = o.overlap_tp ? std::max(Seconds{}, tp_full - work.linear) : tp_full,
            .pp = Seconds{},
            .ep = ep_time_per_microbatch(layer, par, c, o),
            .cp = cp_time_per_microbatch(layer, par, c, o, work.attention_forward)};
}

// The logits' forward and backward for one micro-batch on the last stage
// (16-bit in the GEMM model, as gemm_matrix_work prices them).
[[nodiscard]] constexpr Seconds logits_time_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                           const Gpu& gpu, const TrainingOptions& o) {
    if (resolved_compute_model(gpu, o) == ComputeModel::gemm) {
        GemmSettings sixteen = gemm_settings(gpu, o);
        sixteen.peak = gpu.peak_flops;
        sixteen.element_bytes = 2.0;
        const PassTimes logits = logits_gemm_times(m, par, gpu, sixteen);
        return logits.forward + logits.backward;
    }
    return achievable_compute_time(3.0 * count(par.micro_batch) * logits_forward_flops(m, par.sequence) /
                                       count(par.tp * par.cp),
                                   gpu, achievable_efficiency(o.efficiency, matmul_width(m, par)));
}

// A stage's layers by kind.
struct StageLayers {
    long long dense = 0, moe = 0;
    [[nodiscard]] constexpr long long total() const { return dense + moe; }
};

[[nodiscard]] inline StageLayers stage_layers(const TransformerShape& m, const LayerMap& map, long long stage) {
    StageLayers n;
    for (long long chunk = 0; chunk < map.chunks; ++chunk) {
        const LayerRange& r = map.at(stage, chunk);
        const long long dense =
            m.experts == 0 ? r.size() : std::max(0LL, std::min(r.last, m.dense_layers) - r.first + 1);
        n.dense += dense;
        n.moe += r.size() - dense;
    }
    return n;
}

// Weights one GPU of a stage keeps (parameters_per_gpu's split, per stage):
// its layers cut t ways, experts over t·ep, the vocabulary-parallel table on
// the first stage, the output layer and final norm on the last (a tied table
// kept as a second copy there when p > 1).
[[nodiscard]] constexpr StageParameters stage_parameters_per_gpu(const TransformerShape& m, const Parallelism& par,
                                                                 const StageLayers& n, bool first, bool last) {
    const double t = count(par.tp);
    const double expert = detail::layer_expert_weights(m);
    const double moe_dense = m.experts == 0 ? 0.0 : count(layer_weights(m)) - expert;
    const double dense_layer = count(dense_layer_weights(m));
    const double table = count(m.vocabulary * m.hidden) / t;
    const double output = (!m.tied_embeddings || par.pp > 1) ? table : 0.0;
    const double body = (count(n.dense) * dense_layer + count(n.moe) * moe_dense) / t;
    return {body + (first ? table + count(m.learned_positions * m.hidden) : 0.0) +
                (last ? output + count(norm_weights(m)) : 0.0),
            count(n.moe) * expert / (t * count(par.ep))};
}

// What evaluate_training reports per stage of a layer map.
struct StageEstimate {
    StageLayers layers;
    MicrobatchTime microbatch;  // one micro-batch through the stage
    StageParameters parameters;
    TrainingMemory memory;
    Seconds dp, optimizer;
};

// The stages of a layer map, each with its micro-batch time, weights,
// memory, exposed gradient synchronisation and optimizer step. The
// activation peak of each stage is counted with the first stage's schedule
// multiplier (napkin/pipeline.hpp's peak_activations) over the stage's own
// layers: an upper bound for the later stages, which hold fewer micro-batches.
template <class F>
constexpr void for_each_stage(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                              const TrainingOptions& o, const LayerMap& map, F&& f) {
    const Gpu& gpu = c.node.gpu;
    const bool has_dense = m.experts == 0 || m.dense_layers > 0;
    const MicrobatchTime moe = layer_microbatch_time(one_layer_shape(m, par, false), par, c, o);
    const MicrobatchTime dense =
        m.experts == 0 ? moe : has_dense ? layer_microbatch_time(one_layer_shape(m, par, true), par, c, o)
                                         : MicrobatchTime{};
    const Seconds logits = logits_time_per_microbatch(m, par, gpu, o);
    const Seconds send = pp_time_per_microbatch(m, par, c, o);
    const double multiplier =
        with_schedule(par, [&](const auto& s) { return s.peak_activations(pipeline_shape(par)); });
    const Bytes dense_activations = activation_bytes_per_layer(one_layer_shape(m, par, true), par);
    const Bytes moe_activations = activation_bytes_per_layer(one_layer_shape(m, par, false), par);
    const double moments = optimizer_moments(m, o.optimizer);
    const Seconds newton_schulz = newton_schulz_time(m, par, gpu, o);
    const double kept = optimizer_bytes_per_parameter(par);
    for (long long s = 0; s < map.stages; ++s) {
        StageEstimate e;
        e.layers = stage_layers(m, map, s);
        const bool first = s == 0, last = s == map.stages - 1;
        e.microbatch = count(e.layers.dense) * dense + count(e.layers.moe) * moe;
        if (last) e.microbatch.compute += logits;
        e.microbatch.pp = send;
        e.parameters = stage_parameters_per_gpu(m, par, e.layers, first, last);
        const ModelStates d = model_states(e.parameters.dense, par.dp * par.cp, par);
        const ModelStates x = model_states(e.parameters.expert, par.dp * par.cp / par.ep, par);
        const double scale = kept > 0.0 ? (bytes_of(par.master) + moments * bytes_of(par.moments)) / kept : 1.0;
        e.memory = with_allowances(
            {d.weights + x.weights, d.gradients + x.gradients, scale * (d.optimizer + x.optimizer),
             multiplier * (count(e.layers.dense) * dense_activations + count(e.layers.moe) * moe_activations)},
            m, par, o.memory_allowances);
        const Seconds forward = e.microbatch.compute / 3.0;
        const Seconds backward = (2.0 / 3.0) * e.microbatch.compute + e.microbatch.recompute;
        const double layers = count(std::max(1LL, e.layers.total()));
        e.dp = exposed_sync_time(gradient_sync_parts(e.parameters.dense, data_group(par, c), par, c, o), par, layers,
                                 forward, backward, o) +
               exposed_sync_time(gradient_sync_parts(e.parameters.expert, expert_data_group(par, c), par, c, o), par,
                                 layers, forward, backward, o);
        e.optimizer = optimizer_time(e.parameters, par, gpu, moments) + newton_schulz;
        f(s, e);
    }
}

// ---------------------------------------------------------------------------
// The iteration

// The layer map's shape against the layout: p stages of v chunks.
inline void check_layer_map(const LayerMap& map, const Parallelism& par, const TransformerShape& m) {
    if (map.stages != par.pp)
        reject("LayerMap.stages", count(map.stages), "must equal pp = " + std::to_string(par.pp), {"pp"});
    if (map.chunks != par.virtual_stages)
        reject("LayerMap.chunks", count(map.chunks),
               "must equal virtual_stages = " + std::to_string(par.virtual_stages), {"virtual_stages"});
    long long layers = 0;
    for (const LayerRange& r : map.ranges) layers += r.size();
    if (layers != m.layers)
        reject("LayerMap layers", count(layers), "places this many layers; the model has " + std::to_string(m.layers));
}


[[nodiscard]] constexpr TrainingEstimate evaluate_training(const TransformerShape& m, const Cluster& c,
                                                           const Parallelism& par, const TrainingOptions& o);

namespace detail {
// evaluate_training through the even layer map (layer_map.hpp): not constexpr,
// since a LayerMap holds a std::vector, which not every standard library can
// build at compile time (libc++ 14 under emscripten cannot).
// One level deep: with a map, evaluate_training never comes back here.
[[nodiscard]] inline TrainingEstimate evaluate_on_even_map(  // NOLINT(misc-no-recursion): one level, see above
    const TransformerShape& m, const Cluster& c, const Parallelism& par, const TrainingOptions& o) {
    const LayerMap even = even_layer_map(m.layers, par.pp, par.virtual_stages);
    TrainingOptions mapped = o;
    mapped.layer_map = &even;
    return evaluate_training(m, c, par, mapped);
}
}  // namespace detail

// Memory, step time, throughput and utilisation of one layout. Rejects a
// layout that does not match the model or the cluster.
// NOLINTNEXTLINE(misc-no-recursion): a model with dense layers and no map goes once through the even map
[[nodiscard]] constexpr TrainingEstimate evaluate_training(const TransformerShape& m, const Cluster& c,
                                                           const Parallelism& par,
                                                           const TrainingOptions& o = default_training_options) {
    (void)validated(par, m, c, o.layer_map != nullptr);
    if (o.layer_map != nullptr) check_layer_map(*o.layer_map, par, m);
    if (par.sequence_parallel && o.tp_communication == TpCommunication::all_reduce)
        reject("TrainingOptions.tp_communication", to_string(o.tp_communication),
                       "sequence parallelism needs reduce-scatter + all-gather (rs-ag or auto)");
    const Gpu& gpu = c.node.gpu;
    const double mb = count(microbatches(par));
    const Flops model_flops = model_flops_per_iteration(m, par, o.causal);
    const Flops hardware_flops = hardware_flops_per_iteration(model_flops, m, par, o.causal) -
                                 count(par.global_batch) * skipped_recompute_flops_per_sequence(m, par, o);
    const auto estimate = [&](const TrainingMemory& memory, const MicrobatchTime& one, Seconds dp, Seconds optimizer) {
        const StepBreakdown breakdown{.compute = mb * one.compute,
                                      .recompute = mb * one.recompute,
                                      .tp = mb * one.tp,
                                      .pp = mb * one.pp,
                                      .bubble = pipeline_bubble(par, stage_times(one, par)),
                                      .dp = dp,
                                      .ep = mb * one.ep,
                                      .cp = mb * one.cp.total(),
                                      .optimizer = optimizer};
        const Seconds step = breakdown.total();
        require_finite("training step (s)", step.value());  // finite inputs in range keep it finite; asserted
        return TrainingEstimate{.memory = memory,
                                .fits = fits(memory, gpu),
                                .breakdown = breakdown,
                                .step = step,
                                .tokens_per_second = tokens(count(par.global_batch * par.sequence)) / step,
                                .mfu = model_flops_utilisation(model_flops, step, gpus(par), gpu),
                                .hfu = hardware_flops_utilisation(hardware_flops, step, gpus(par), gpu),
                                .mfu_bf16_peak = model_flops_utilisation(model_flops, step, gpus(par), gpu),
                                .mfu_fp8_peak = fp8_model_flops_utilisation(model_flops, step, gpus(par), gpu),
                                .model_flops = model_flops,
                                .hardware_flops = hardware_flops,
                                .compute_model = resolved_compute_model(gpu, o)};
    };
    if (o.layer_map != nullptr) {
        // The slowest stage sets the pace: its micro-batches, and the bubble
        // of the schedule's closed form (napkin/pipeline.hpp's bubble_time)
        // with its forward and backward; the step ends when the stage with
        // the longest synchronisation and optimizer step is done; memory is
        // the fullest stage's.
        MicrobatchTime slowest{};
        TrainingMemory memory{};
        Seconds dp{}, optimizer{};
        for_each_stage(m, c, par, o, *o.layer_map, [&](long long, const StageEstimate& e) {
            if (e.microbatch.total() > slowest.total()) slowest = e.microbatch;
            if (e.memory.total() > memory.total()) memory = e.memory;
            dp = std::max(dp, e.dp);
            optimizer = std::max(optimizer, e.optimizer);
        });
        return estimate(memory, slowest, dp, optimizer);
    }
    // Without a map every stage holds L/p layers. A model with dense layers
    // before its MoE ones (DeepSeek's first_k_dense_replace) is priced through
    // the even map (layer_map.hpp's even_layer_map, p·v equal chunks in
    // Megatron's order): the first stage's first layers are the dense ones,
    // each stage at its own cost. (When p·v does not divide the layers, the
    // dense layers are priced as MoE ones: an upper bound for the stage.)
    if (m.experts > 0 && m.dense_layers > 0 && m.layers % (par.pp * par.virtual_stages) == 0) {
        return detail::evaluate_on_even_map(m, c, par, o);
    }
    const MatrixWork work = matrix_work(m, par, gpu, o);

    // One micro-batch on the slowest stage; with TP overlap only the part of
    // the collectives beyond the linear layers' GEMMs shows.
    const Seconds tp_full = tp_time_per_microbatch(m, par, c, o);
    const MicrobatchTime one{
        .compute = work.compute,
        .recompute = work.recompute,
        .tp = o.overlap_tp ? std::max(Seconds{}, tp_full - work.linear) : tp_full,
        .pp = pp_time_per_microbatch(m, par, c, o),
        .ep = ep_time_per_microbatch(m, par, c, o),
        .cp = cp_time_per_microbatch(m, par, c, o, work.attention_forward)};

    // Once per iteration.
    const StageParameters params = parameters_per_gpu(m, par);
    const Seconds forward = one.compute / 3.0;
    const Seconds backward = (2.0 / 3.0) * one.compute + one.recompute;
    const double layers = count(m.layers / par.pp);
    const Seconds dp =
        exposed_sync_time(gradient_sync_parts(params.dense, data_group(par, c), par, c, o), par, layers, forward,
                          backward, o) +
        exposed_sync_time(gradient_sync_parts(params.expert, expert_data_group(par, c), par, c, o), par, layers,
                          forward, backward, o);

    TrainingMemory memory = training_memory(m, par, params, o.memory_allowances);
    const double kept = optimizer_bytes_per_parameter(par);
    if (o.optimizer != Optimizer::adam && kept > 0.0)
        memory.optimizer = memory.optimizer * ((bytes_of(par.master) + optimizer_moments(m, o.optimizer) *
                                                                          bytes_of(par.moments)) / kept);
    return estimate(memory, one, dp, optimizer_step_time(m, params, par, gpu, o));
}

// ---------------------------------------------------------------------------
// Per-op times and the step's collectives (what `napkin train --json` lists
// as `ops` and `collectives`), from the same functions evaluate_training
// uses.

// One op of one layer for one micro-batch on one GPU: its forward and
// backward time, and the bytes it moves: a collective the bytes it sends over
// a link, a compute op the bytes its forward pass reads and writes in memory
// (gemm.hpp's PassTimes::moved; the element-wise work k activation passes).
struct TrainingOp {
    std::string_view op;
    Seconds forward, backward;
    Bytes sent;
};

// At most 9 ops a layer.
struct LayerOps {
    std::array<TrainingOp, 9> ops{};
    std::size_t size = 0;
    constexpr void add(std::string_view name, Seconds f, Seconds b, Bytes sent = Bytes{}) {
        ops[size++] = TrainingOp{name, f, b, sent};
    }
    [[nodiscard]] constexpr Seconds forward() const {
        Seconds t{};
        for (std::size_t i = 0; i < size; ++i) t += ops[i].forward;
        return t;
    }
    [[nodiscard]] constexpr Seconds backward() const {
        Seconds t{};
        for (std::size_t i = 0; i < size; ++i) t += ops[i].backward;
        return t;
    }
};

// The ops of one layer of the model (a dense layer of a model with experts:
// pass dense = true), in the order they run forward: attention (its
// projections and core), for MoE the router, the dispatch all-to-all, the
// routed experts' grouped GEMMs, the shared experts, the combine all-to-all;
// for a dense layer the MLP; then the element-wise work (norms, activation
// functions, permutes, at the memory bandwidth) and the tensor-parallel
// collectives. The GEMM model only (the flat model has no per-op shapes):
// the ops then sum to layer_microbatch_time's compute + tp + ep without
// recomputation.
[[nodiscard]] constexpr LayerOps layer_ops(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                                           const TrainingOptions& o, bool dense = false) {
    const Gpu& gpu = c.node.gpu;
    const TransformerShape layer = one_layer_shape(m, par, dense);
    LayerOps out;
    if (resolved_compute_model(gpu, o) != ComputeModel::gemm) return out;
    const LayerGemmParts g = layer_gemm_parts(layer, par, gpu, gemm_settings(gpu, o), o.causal);
    out.add("attention", g.projections.forward + g.core.forward, g.projections.backward + g.core.backward,
            g.projections.moved + g.core.moved);
    if (layer.experts > 0) {
        const Link link = link_for(expert_group(par, c), c);
        const Bytes per_rank = hidden_states_bytes(layer, par) * count(layer.experts_per_token);
        const Seconds a2a = par.ep == 1 ? Seconds{} : all_to_all(per_rank, par.ep, link, o.collective_base_latency).total();
        const Bytes sent = par.ep == 1 ? Bytes{} : per_rank * (count(par.ep - 1) / count(par.ep));
        out.add("router", g.router.forward, g.router.backward, g.router.moved);
        out.add("dispatch all-to-all", a2a, a2a, sent);
        out.add("routed experts", g.routed.forward, g.routed.backward, g.routed.moved);
        out.add("shared experts", g.shared.forward, g.shared.backward, g.shared.moved);
        out.add("combine all-to-all", a2a, a2a, sent);
    } else {
        out.add("mlp", g.mlp.forward, g.mlp.backward, g.mlp.moved);
    }
    Parallelism none = par;
    none.recompute = Recompute::none;
    const ElementwiseTime e =
        elementwise_time_per_microbatch(layer, none, gpu, EfficiencyModel{.memory_passes = o.profile.memory_passes});
    const Seconds casts = o.compute_dtype == DType::fp8 ? fp8_cast_time(layer, par, gpu) : Seconds{};
    // Forward: k passes over the layer's activation bytes (elementwise_time_per_microbatch), and
    // the fp8 casts' forward third at the memory bandwidth.
    const Bytes passes = o.profile.memory_passes * activation_bytes_per_layer(layer, none);
    out.add("element-wise", (e.compute + casts) / 3.0, 2.0 * (e.compute + casts) / 3.0,
            passes + (casts / 3.0) * gpu.memory_bandwidth);
    if (o.eager_framework && o.profile.eager_layer_overhead_ms > 0.0)
        out.add("framework overhead", framework_layer_overhead(o) / 3.0, 2.0 * framework_layer_overhead(o) / 3.0);
    if (par.tp > 1) {
        const Seconds tp = tp_time_per_microbatch(layer, none, c, o);
        out.add("tensor-parallel collectives", tp / 2.0, tp / 2.0, 4.0 * hidden_states_bytes(layer, par));
    }
    return out;
}

// One collective of the step: what it moves, over which group and link, by
// which algorithm, how often per step and how long one call takes.
struct StepCollective {
    std::string_view name;
    std::string_view algorithm;
    Bytes bytes;        // the buffer of one call
    long long group = 1;
    long long nodes = 1;  // nodes the group spans (1: inside one node)
    std::string_view link;
    double calls = 0.0;  // per step on one GPU
    Seconds time;        // one call
};

struct StepCollectives {
    std::array<StepCollective, 8> list{};
    std::size_t size = 0;
    constexpr void add(const StepCollective& x) { list[size++] = x; }
};

// The collectives of one GPU's step, for the layout's largest stage
// (`params`): TP per layer, the pipeline send, the expert all-to-all, and the
// gradient synchronisation of the dense weights over all d·c data-parallel
// copies and of the expert weights over the d·c/ep that hold the same
// experts (expert data parallelism), each over the links its group crosses.
[[nodiscard]] constexpr StepCollectives step_collectives(const TransformerShape& m, const Cluster& c,
                                                         const Parallelism& par, const TrainingOptions& o,
                                                         const StageParameters& params, double stage_layers,
                                                         double moe_stage_layers) {
    StepCollectives out;
    const double mb = count(microbatches(par));
    const Seconds base = o.collective_base_latency;
    const auto link_name = [&](const GroupPlacement& g) {
        return g.crosses_nodes() ? c.node.inter.name : c.node.intra.name;
    };
    const double passes = collectives_per_layer(par);
    if (par.tp > 1) {
        const GroupPlacement g = tensor_group(par, c);
        const bool split = resolved_tp_communication(par, o) == TpCommunication::reduce_scatter_all_gather;
        const Bytes message = hidden_states_bytes(m, par);
        const Link link = link_for(g, c);
        const Seconds t = split ? reduce_scatter(message, par.tp, link, base).total() +
                                      all_gather(message, par.tp, link, base).total()
                                : ring_all_reduce(message, par.tp, link, base).total();
        out.add({"tensor-parallel", split ? "reduce-scatter + all-gather" : "ring all-reduce", message, par.tp,
                 g.nodes, link_name(g), mb * passes * stage_layers, t});
    }
    if (par.pp > 1) {
        const GroupPlacement g = pipeline_group(par, c);
        const Bytes message = hidden_states_bytes(m, par) / (o.pipeline_scatter_gather ? count(par.tp) : 1.0);
        out.add({"pipeline send", "point-to-point", message, 2, g.crosses_nodes() ? 2 : 1, link_name(g),
                 mb * 2.0 * count(par.virtual_stages), point_to_point(message, link_for(g, c), base).total()});
    }
    if (par.ep > 1 && m.experts > 0) {
        const GroupPlacement g = expert_group(par, c);
        const Bytes per_rank = hidden_states_bytes(m, par) * count(m.experts_per_token);
        out.add({"expert all-to-all", "all-to-all", per_rank, par.ep, g.nodes, link_name(g),
                 mb * passes * moe_stage_layers, all_to_all(per_rank, par.ep, link_for(g, c), base).total()});
    }
    const auto sync = [&](std::string_view reduce_name, std::string_view gather_name, double parameters,
                          const GroupPlacement& g) {
        if (g.size == 1 || parameters == 0.0) return;
        const GradientSync parts = gradient_sync_parts(parameters, g, par, c, o);
        const bool across = g.crosses_nodes();
        const bool all_reduce = par.sharding == Sharding::none;
        out.add({reduce_name,
                 all_reduce ? (across ? "hierarchical all-reduce" : "ring all-reduce")
                            : (across ? "hierarchical reduce-scatter" : "ring reduce-scatter"),
                 bytes(parameters * gradient_reduce_bytes(par, o)), g.size, g.nodes, link_name(g), 1.0, parts.reduce});
        if (!all_reduce)
            out.add({gather_name, across ? "hierarchical all-gather" : "ring all-gather",
                     bytes(parameters * bytes_of(par.weights)), g.size, g.nodes, link_name(g),
                     par.sharding == Sharding::zero3 ? 2.0 * mb : 1.0,
                     par.sharding == Sharding::zero3 ? parts.layer_gather : parts.gather});
    };
    sync("dense gradient sync", "dense parameter all-gather", params.dense, data_group(par, c));
    sync("expert gradient sync", "expert parameter all-gather", params.expert, expert_data_group(par, c));
    return out;
}

// Expert data parallelism: the GPUs that hold the same experts and
// synchronise their gradients, d·c/ep (napkin splits the experts t ways like
// the dense weights, Megatron's expert tensor parallel = tp; with
// expert tensor parallel 1 it would be d·c·t/ep).
[[nodiscard]] constexpr long long expert_data_parallel(const Parallelism& par) { return par.dp * par.cp / par.ep; }

}  // namespace napkin
