// SPDX-License-Identifier: MIT
// napkin/training/microbatch.hpp — one micro-batch on the slowest stage, part
// by part: its FLOPs, element-wise passes, tensor-, pipeline-, expert- and
// context-parallel communication; MicrobatchTime, the stage's forward and
// backward, and the schedule's bubble. Part of napkin/training.hpp.
#pragma once

#include <napkin/training/options.hpp>

namespace napkin {

// ---------------------------------------------------------------------------
// The parts, one micro-batch at a time

/// Forward + backward (3 × forward) of one micro-batch on one GPU of the
/// slowest stage: its L/p layers and, on the last stage, the logits (the first
/// stage's embedding look-up costs no multiplications). The GPU's share is
/// 1/(t·c) of the work.
[[nodiscard]] constexpr Flops stage_flops_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                        bool causal = false, bool logits = true) {
    const double layers = count(m.layers / par.pp);
    const Flops forward = layers * layer_forward_flops(m, par.sequence, causal) +
                          (logits ? logits_forward_flops(m, par.sequence) : Flops{});
    return 3.0 * count(par.micro_batch) * forward / count(par.tp * par.cp);
}

/// What recomputation adds on the same GPU for one micro-batch.
[[nodiscard]] constexpr Flops stage_recompute_flops_per_microbatch(const TransformerShape& m,
                                                                  const Parallelism& par, bool causal = false) {
    return count(par.micro_batch) * recompute_flops_per_sequence(m, par, causal) / count(par.pp * par.tp * par.cp);
}

/// The element-wise work of one micro-batch on one GPU of the stage, at the
/// memory bandwidth (compute.hpp, EfficiencyModel::memory_passes): per layer and
/// per pass over it, k times the activation bytes Korthikanti et al. 2022
/// count for the layout without recomputation (tensor and sequence parallel
/// splits, the s × s scores unless flash attention fuses them). Forward and
/// backward make three passes; full recomputation replays a fourth, selective
/// recomputation the scores' part of one. (The logits' softmax, s·b·V values a
/// micro-batch, is left out: under 1/6 of one GPT-3 layer's bytes.)
struct ElementwiseTime {
    Seconds compute, recompute;
};

/// The element-wise work of one micro-batch on one GPU of the stage (ElementwiseTime above), in seconds.
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

/// Bytes of one micro-batch's hidden states on one GPU: b · (s/c) · h values
/// in the weights' 16-bit format.
[[nodiscard]] constexpr Bytes hidden_states_bytes(const TransformerShape& m, const Parallelism& par) {
    return bytes(count(par.micro_batch) * count(par.sequence / par.cp) * count(m.hidden) * bytes_of(par.weights));
}

/// Megatron-LM's tensor parallelism (Shoeybi et al. 2019, Sec. 3; shared
/// reference tensor-parallel-mlp.txt): the f and g operators put one
/// all-reduce of b·s·h values forward and one backward around each of the
/// attention and MLP blocks: 4 per layer per micro-batch, 2 more when full
/// recomputation replays the forward pass. With sequence parallelism each
/// becomes a reduce-scatter plus an all-gather of the same volume
/// (Korthikanti et al. 2022, Sec. 4.2.2); without it the same pair when
/// TrainingOptions::tp_communication asks for it.
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

/// Pipeline sends (Narayanan et al. Sec. 4.1): per micro-batch each of the v
/// chunks receives the activations forward and the gradients backward,
/// b·s·h values per boundary (÷ t with scatter/gather), on NVLink when the
/// neighbouring stage shares the node.
[[nodiscard]] constexpr Seconds pp_time_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                      const Cluster& c, const TrainingOptions& o) {
    if (par.pp == 1) return Seconds{};
    const Link link = link_for(pipeline_group(par, c), c);
    const Bytes message = hidden_states_bytes(m, par) / (o.pipeline_scatter_gather ? count(par.tp) : 1.0);
    return 2.0 * count(par.virtual_stages) * point_to_point(message, link, o.collective_base_latency).total();
}

/// Expert parallelism (Lepikhin et al. 2020, GShard, Sec. 2.2; shared reference
/// moe-training-step-1024-gpus.json): dispatch and combine all-to-alls around
/// each MoE layer forward and again backward (2 more with full recomputation),
/// each rank sending its tokens' k routed copies of h values.
[[nodiscard]] constexpr Seconds ep_time_per_microbatch(const TransformerShape& m, const Parallelism& par,
                                                      const Cluster& c, const TrainingOptions& o) {
    if (par.ep == 1 || m.experts == 0) return Seconds{};
    const Link link = link_for(expert_group(par, c), c);
    const Bytes per_rank = hidden_states_bytes(m, par) * count(m.experts_per_token);
    const double per_layer = collectives_per_layer(par);
    return count(m.layers / par.pp) * per_layer * all_to_all(per_rank, par.ep, link, o.collective_base_latency).total();
}

/// Context parallelism (Liu et al. 2023, "Ring Attention with Blockwise
/// Transformers", Sec. 3; Megatron-Core's context parallelism passes K and V
/// between the cp ranks the same way): each rank keeps s/c of the sequence, and
/// every attention layer passes its K and V blocks around the ring of cp ranks
/// in cp − 1 steps, b·(s/c)·2·(kv heads · head dim)/t values each, while it
/// computes the attention of the block it holds; the backward passes K and V
/// again with their gradients (twice the bytes) beside twice the attention
/// work. Only what a step's sends take beyond that attention work shows
/// (`core`: the forward attention core of one layer on this rank, its s/c
/// queries against all s keys). Full recomputation replays the forward exchange.
struct ContextExchange {
    Seconds forward, backward;
    [[nodiscard]] constexpr Seconds total() const { return forward + backward; }
};

/// The CP ring's K/V exchange for one micro-batch: the send time beyond the attention work it hides under
/// (ContextExchange above).
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

/// One micro-batch through the slowest stage, part by part.
struct MicrobatchTime {
    Seconds compute;    // forward + backward matrix work
    Seconds recompute;  // the forward work recomputation replays
    Seconds tp, pp, ep;
    ContextExchange cp;
    [[nodiscard]] constexpr Seconds total() const { return compute + recompute + tp + pp + ep + cp.total(); }
};

/// The same micro-batch as napkin/pipeline.hpp's StageTimes: forward F, full
/// backward B and its weight-gradient part W. The matrix work is 1/3 forward,
/// 2/3 backward; a linear layer's backward is two multiplications of the
/// forward's size, one for the input gradient and one for the weight gradient
/// (Qi et al. 2023, "Zero Bubble Pipeline Parallelism", Sec. 2), so W = the
/// forward's compute. (The attention core's two products have no weights, so
/// this W is s/(6h) of a layer too large: 2.8 % for GPT-3.) The replayed
/// forward runs inside the backward, before B. Of the collectives per layer, 2
/// are in the forward and the rest (2, or 4 with full recomputation) in the
/// backward; pipeline sends are half activations forward, half gradients backward;
/// the context-parallel exchange is split as cp_time_per_microbatch splits it.
[[nodiscard]] constexpr StageTimes stage_times(const MicrobatchTime& t, const Parallelism& par) {
    const Seconds forward_compute = t.compute / 3.0;
    const double forward_collectives = 2.0 / collectives_per_layer(par);
    const Seconds forward = forward_compute + forward_collectives * (t.tp + t.ep) + 0.5 * t.pp + t.cp.forward;
    return StageTimes{.forward = forward, .backward = t.total() - forward, .weight_grad = forward_compute};
}

/// The bubble of the layout's schedule, napkin/pipeline.hpp's bubble_time:
/// 1F1B and GPipe (p − 1)(F + B), interleaved (p − 1)(F + B)/v, ZB-H1
/// (p − 1)(F + B − 2W), ZB-H2 (p − 1)(F + B − 3W), DualPipe (p/2 − 1)(F + 2B − 3W),
/// DualPipeV (p − 1)(F + 2B − 3W)/2 (F&B taken as F + B: no overlap assumed).
[[nodiscard]] constexpr Seconds pipeline_bubble(const Parallelism& par, const StageTimes& stage) {
    const PipelineShape shape = pipeline_shape(par);
    return with_schedule(par, [&](const auto& schedule) { return bubble_time(schedule, shape, stage); });
}

}  // namespace napkin
