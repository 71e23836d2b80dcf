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
#include <napkin/hardware.hpp>
#include <napkin/memory.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <optional>
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

[[nodiscard]] constexpr std::string_view to_string(TpCommunication c) {
    switch (c) {
        case TpCommunication::automatic: return "auto";
        case TpCommunication::all_reduce: return "all-reduce";
        case TpCommunication::reduce_scatter_all_gather: return "rs-ag";
    }
    return "?";
}

[[nodiscard]] constexpr std::optional<TpCommunication> parse_tp_communication(std::string_view text) {
    for (TpCommunication c :
         {TpCommunication::automatic, TpCommunication::all_reduce, TpCommunication::reduce_scatter_all_gather})
        if (to_string(c) == text) return c;
    return std::nullopt;
}

struct TrainingOptions {
    EfficiencyModel efficiency = default_efficiency;
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
};

inline constexpr TrainingOptions default_training_options{};

// The collectives the layout's TP really uses: `automatic` resolves to the
// pair with sequence parallelism and to the all-reduce without.
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
    double mfu = 0.0;
    double hfu = 0.0;
    Flops model_flops;     // per iteration, all GPUs
    Flops hardware_flops;  // the same with recomputation
};

// ---------------------------------------------------------------------------
// The parts, one micro-batch at a time

// Forward + backward (3 × forward) of one micro-batch on one GPU of the
// slowest stage: its L/p layers and, on the last stage, the logits (the first
// stage's embedding look-up costs no multiplications). The GPU's share is
// 1/(t·c) of the work.
[[nodiscard]] constexpr Flops stage_flops_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                        bool causal = false) {
    const double layers = count(m.layers / par.pp);
    const Flops forward = layers * layer_forward_flops(m, par.sequence, causal) +
                          logits_forward_flops(m, par.sequence);
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
    const Seconds replayed = par.recompute == Recompute::full        ? pass
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
                                   : ring_allreduce(message, par.tp, link, o.collective_base_latency);
    const double per_layer = par.recompute == Recompute::full ? 6.0 : 4.0;
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
    const double per_layer = par.recompute == Recompute::full ? 6.0 : 4.0;
    return count(m.layers / par.pp) * per_layer * all_to_all(per_rank, par.ep, link, o.collective_base_latency).total();
}

// Context parallelism (Liu et al. 2023, "Ring Attention with Blockwise
// Transformers", Sec. 3; Megatron-Core's context parallelism passes K and V
// between the cp ranks the same way): each rank keeps s/c of the sequence, and
// every attention layer passes its K and V blocks around the ring of cp ranks
// in cp − 1 steps, b·(s/c)·2·(kv heads · head dim)/t values each, while it
// computes the attention of the block it holds; the backward passes K and V
// again with their gradients (twice the bytes) beside twice the attention
// work. Only what a step's sends take beyond that attention work shows.
// Full recomputation replays the forward exchange.
struct ContextExchange {
    Seconds forward, backward;
    [[nodiscard]] constexpr Seconds total() const { return forward + backward; }
};

[[nodiscard]] constexpr ContextExchange cp_time_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                              const Cluster& c, const TrainingOptions& o,
                                                              double efficiency) {
    if (par.cp == 1) return {};
    const Link link = link_for(context_group(par, c), c);
    const Bytes kv_block = bytes(count(par.micro_batch) * count(par.sequence / par.cp) * 2.0 *
                                 count(m.kv_heads * head_dim(m)) / count(par.tp) * bytes_of(par.weights));
    const double steps = count(par.cp - 1);
    // The attention core of one layer on this rank: its s/c queries against all s keys, its heads.
    const Seconds core = achievable_compute_time(
        count(par.micro_batch) * attention_core_flops(m, par.sequence, o.causal) / count(par.tp * par.cp),
        c.node.gpu, efficiency);
    const Seconds send_forward = point_to_point(kv_block, link, o.collective_base_latency).total();
    const Seconds send_backward = point_to_point(2.0 * kv_block, link, o.collective_base_latency).total();
    const Seconds forward = std::max(Seconds{}, steps * send_forward - core);
    const Seconds backward = std::max(Seconds{}, steps * send_backward - 2.0 * core);
    const double layers = count(m.layers / par.pp);
    const double forwards = par.recompute == Recompute::full ? 2.0 : 1.0;
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
    const double forward_collectives = par.recompute == Recompute::full ? 2.0 / 6.0 : 2.0 / 4.0;
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
[[nodiscard]] constexpr Seconds gradient_sync_time(double parameters, const GroupPlacement& group,
                                                  const Parallelism& par, const Cluster& c,
                                                  const TrainingOptions& o) {
    if (group.size == 1 || parameters == 0.0) return Seconds{};
    const Bytes gradients = bytes(parameters * bytes_of(par.gradients));
    const Bytes weights = bytes(parameters * bytes_of(par.weights));
    const Seconds base = o.collective_base_latency;
    const HierarchicalTopology topology = topology_of(group, c);
    const bool across = group.crosses_nodes();
    const Link link = c.node.intra;
    const auto all_reduce = [&](Bytes b) {
        return across ? hierarchical_allreduce(b, topology, base) : ring_allreduce(b, group.size, link, base);
    };
    const auto scatter = [&](Bytes b) {
        return across ? hierarchical_reduce_scatter(b, topology, base) : reduce_scatter(b, group.size, link, base);
    };
    const auto gather = [&](Bytes b) {
        return across ? hierarchical_all_gather(b, topology, base) : all_gather(b, group.size, link, base);
    };
    switch (par.sharding) {
        case Sharding::none: return all_reduce(gradients).total();
        case Sharding::zero1:
        case Sharding::zero2:
        case Sharding::distributed: return scatter(gradients).total() + gather(weights).total();
        case Sharding::zero3:
            return scatter(gradients).total() + 2.0 * count(microbatches(par)) * gather(weights).total();
    }
    return Seconds{};
}

// Adam's update is element-wise and memory-bound (Kingma & Ba 2015, Alg. 1):
// per parameter it reads the gradient, the master weight and both moments,
// writes them back and writes the 16-bit weight, at the GPU's memory
// bandwidth, over the shard this GPU owns.
[[nodiscard]] constexpr Seconds optimizer_time(const StageParameters& params, const Parallelism& par,
                                              const Gpu& gpu) {
    const bool sharded = par.sharding != Sharding::none;
    const double dense = params.dense / (sharded ? count(par.dp * par.cp) : 1.0);
    const double expert = params.expert / (sharded ? count(par.dp * par.cp / par.ep) : 1.0);
    const double per_parameter =
        bytes_of(par.gradients) + 2.0 * optimizer_bytes_per_parameter(par) + bytes_of(par.weights);
    return read_time(bytes((dense + expert) * per_parameter), gpu);
}

// ---------------------------------------------------------------------------
// The iteration

// Memory, step time, throughput and utilisation of one layout. Rejects a
// layout that does not match the model or the cluster.
[[nodiscard]] constexpr TrainingEstimate evaluate_training(const TransformerShape& m, const Cluster& c,
                                                           const Parallelism& par,
                                                           const TrainingOptions& o = default_training_options) {
    (void)validated(par, m, c);
    if (par.sequence_parallel && o.tp_communication == TpCommunication::all_reduce)
        reject("TrainingOptions.tp_communication", to_string(o.tp_communication),
                       "sequence parallelism needs reduce-scatter + all-gather (rs-ag or auto)");
    const Gpu& gpu = c.node.gpu;
    const double mb = count(microbatches(par));
    const double efficiency = achievable_efficiency(o.efficiency, matmul_width(m, par));

    // One micro-batch on the slowest stage: matrix work, then element-wise work.
    const ElementwiseTime elementwise = elementwise_time_per_microbatch(m, par, gpu, o.efficiency);
    const MicrobatchTime one{
        .compute = achievable_compute_time(stage_flops_per_microbatch(m, par, o.causal), gpu, efficiency) +
                   elementwise.compute,
        .recompute = achievable_compute_time(stage_recompute_flops_per_microbatch(m, par, o.causal), gpu,
                                             efficiency) +
                     elementwise.recompute,
        .tp = tp_time_per_microbatch(m, par, c, o),
        .pp = pp_time_per_microbatch(m, par, c, o),
        .ep = ep_time_per_microbatch(m, par, c, o),
        .cp = cp_time_per_microbatch(m, par, c, o, efficiency)};

    // Once per iteration.
    const StageParameters params = parameters_per_gpu(m, par);
    const Seconds dp_full = gradient_sync_time(params.dense, data_group(par, c), par, c, o) +
                            gradient_sync_time(params.expert, expert_data_group(par, c), par, c, o);
    const Seconds backward = (2.0 / 3.0) * one.compute + one.recompute;
    const Seconds dp = o.overlap_dp ? std::max(Seconds{}, dp_full - backward) : dp_full;

    const TrainingMemory memory = training_memory(m, par, params);
    const StepBreakdown breakdown{.compute = mb * one.compute,
                                  .recompute = mb * one.recompute,
                                  .tp = mb * one.tp,
                                  .pp = mb * one.pp,
                                  .bubble = pipeline_bubble(par, stage_times(one, par)),
                                  .dp = dp,
                                  .ep = mb * one.ep,
                                  .cp = mb * one.cp.total(),
                                  .optimizer = optimizer_time(params, par, gpu)};
    const Seconds step = breakdown.total();
    require_finite("training step (s)", step.value());  // finite inputs in range keep it finite; asserted
    const Flops model_flops = model_flops_per_iteration(m, par, o.causal);
    const Flops hardware_flops = hardware_flops_per_iteration(model_flops, m, par, o.causal);
    return TrainingEstimate{.memory = memory,
                            .fits = fits(memory, gpu),
                            .breakdown = breakdown,
                            .step = step,
                            .tokens_per_second = tokens(count(par.global_batch * par.sequence)) / step,
                            .mfu = model_flops_utilisation(model_flops, step, gpus(par), gpu),
                            .hfu = hardware_flops_utilisation(hardware_flops, step, gpus(par), gpu),
                            .model_flops = model_flops,
                            .hardware_flops = hardware_flops};
}

}  // namespace napkin
