// SPDX-License-Identifier: MIT
// napkin/training/evaluate.hpp — evaluate_training, the entry point: memory,
// step time, throughput and utilisation of one layout. Part of
// napkin/training.hpp.
#pragma once

#include <napkin/training/stages.hpp>

namespace napkin {

namespace detail {
struct StepParts {
    TrainingMemory memory;
    MicrobatchTime microbatch;  // one micro-batch on the slowest stage
    Seconds dp, optimizer;
};
[[nodiscard]] constexpr StepParts uniform_step_parts(const TransformerShape& m, const Cluster& c,
                                                     const Parallelism& par, const TrainingOptions& o);
[[nodiscard]] constexpr StepParts mapped_step_parts(const TransformerShape& m, const Cluster& c,
                                                    const Parallelism& par, const TrainingOptions& o,
                                                    const LayerMap& map);
[[nodiscard]] inline StepParts even_map_step_parts(const TransformerShape& m, const Cluster& c,
                                                   const Parallelism& par, const TrainingOptions& o);
[[nodiscard]] constexpr TrainingEstimate estimate_of(const StepParts& parts, const TransformerShape& m,
                                                     const Cluster& c, const Parallelism& par,
                                                     const TrainingOptions& o);
}  // namespace detail

/// The layer map's shape against the layout: p stages of v chunks.
inline void check_layer_map(const LayerMap& map, const Parallelism& par, const TransformerShape& m);

/// Memory, step time, throughput and utilisation of one layout. Rejects a
/// layout that does not match the model or the cluster.
///
/// Without a layer map every stage holds L/p layers. A model with dense layers
/// beside its MoE ones (DeepSeek's first_k_dense_replace, Llama 4 Maverick's
/// MoE on every other layer) is priced through the even map (layer_map.hpp's
/// even_layer_map, p·v equal chunks in Megatron's order): each stage holds
/// the dense and MoE layers its chunks contain, each at its own cost. (When
/// p·v does not divide the layers, the dense layers are priced as MoE ones:
/// an upper bound for the stage.)
[[nodiscard]] constexpr TrainingEstimate evaluate_training(const TransformerShape& m, const Cluster& c,
                                                           const Parallelism& par,
                                                           const TrainingOptions& o = default_training_options) {
    (void)validated(par, m, c, o.layer_map != nullptr);
    if (o.layer_map != nullptr) check_layer_map(*o.layer_map, par, m);
    if (par.sequence_parallel && o.tp_communication == TpCommunication::all_reduce)
        reject("TrainingOptions.tp_communication", to_string(o.tp_communication),
               "sequence parallelism needs reduce-scatter + all-gather (rs-ag or auto)");
    const bool dense_and_moe = m.experts > 0 && moe_layers(m) < m.layers && m.layers % (par.pp * par.virtual_stages) == 0;
    const detail::StepParts parts = o.layer_map != nullptr ? detail::mapped_step_parts(m, c, par, o, *o.layer_map)
                                    : dense_and_moe        ? detail::even_map_step_parts(m, c, par, o)
                                                           : detail::uniform_step_parts(m, c, par, o);
    return detail::estimate_of(parts, m, c, par, o);
}

/// (Declared above.) The map's stages and chunks must be the layout's p and v, and its ranges must place the
/// model's layers.
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

namespace detail {

/// Every stage holds L/p layers: one micro-batch on any of them; with TP
/// overlap only the part of the collectives beyond the linear layers' GEMMs
/// shows. The once-per-step parts follow from the stage's weights.
constexpr StepParts uniform_step_parts(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                                       const TrainingOptions& o) {
    const MatrixWork work = matrix_work(m, par, c.node.gpu, o);
    const Seconds tp_full = tp_time_per_microbatch(m, par, c, o);
    const MicrobatchTime one{.compute = work.compute,
                             .recompute = work.recompute,
                             .tp = o.overlap_tp ? std::max(Seconds{}, tp_full - work.linear) : tp_full,
                             .pp = pp_time_per_microbatch(m, par, c, o),
                             .ep = ep_time_per_microbatch(m, par, c, o),
                             .cp = cp_time_per_microbatch(m, par, c, o, work.attention_forward)};
    const StageParameters params = parameters_per_gpu(m, par);
    TrainingMemory memory = training_memory(m, par, params, o.memory_allowances);
    memory.optimizer = memory.optimizer * optimizer_memory_scale(m, par, o.optimizer);
    return {.memory = memory,
            .microbatch = one,
            .dp = stage_gradient_sync(one, params, count(m.layers / par.pp), par, c, o),
            .optimizer = optimizer_step_time(m, params, par, c.node.gpu, o)};
}

/// A layer map: the slowest stage sets the pace (its micro-batches, and the
/// bubble of the schedule's closed form with its forward and backward); the
/// step ends when the stage with the longest synchronisation and optimizer
/// step is done; memory is the fullest stage's.
constexpr StepParts mapped_step_parts(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                                      const TrainingOptions& o, const LayerMap& map) {
    StepParts slowest{};
    for_each_stage(m, c, par, o, map, [&](long long, const StageEstimate& e) {
        if (e.microbatch.total() > slowest.microbatch.total()) slowest.microbatch = e.microbatch;
        if (e.memory.total() > slowest.memory.total()) slowest.memory = e.memory;
        slowest.dp = std::max(slowest.dp, e.dp);
        slowest.optimizer = std::max(slowest.optimizer, e.optimizer);
    });
    return slowest;
}

/// The even map, built here: not constexpr, since a LayerMap holds a
/// std::vector, which not every standard library can build at compile time
/// (libc++ 14 under emscripten cannot).
inline StepParts even_map_step_parts(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                                     const TrainingOptions& o) {
    return mapped_step_parts(m, c, par, o, even_layer_map(m.layers, par.pp, par.virtual_stages));
}

/// The step from its parts: m micro-batches of the slowest stage, the bubble,
/// the once-per-step parts; tokens per second, MFU and HFU.
constexpr TrainingEstimate estimate_of(const StepParts& parts, const TransformerShape& m, const Cluster& c,
                                       const Parallelism& par, const TrainingOptions& o) {
    const Gpu& gpu = c.node.gpu;
    const double mb = count(microbatches(par));
    const MicrobatchTime& one = parts.microbatch;
    const StepBreakdown breakdown{.compute = mb * one.compute,
                                  .recompute = mb * one.recompute,
                                  .tp = mb * one.tp,
                                  .pp = mb * one.pp,
                                  .bubble = pipeline_bubble(par, stage_times(one, par)),
                                  .dp = parts.dp,
                                  .ep = mb * one.ep,
                                  .cp = mb * one.cp.total(),
                                  .optimizer = parts.optimizer};
    const Seconds step = breakdown.total();
    require_finite("training step (s)", step.value());  // finite inputs in range keep it finite; asserted
    const Flops model_flops = model_flops_per_iteration(m, par, o.causal);
    const Flops hardware_flops = hardware_flops_per_iteration(model_flops, m, par, o.causal) -
                                 count(par.global_batch) * skipped_recompute_flops_per_sequence(m, par, o);
    return TrainingEstimate{.memory = parts.memory,
                            .fits = fits(parts.memory, gpu),
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
}

}  // namespace detail

}  // namespace napkin
