// SPDX-License-Identifier: MIT
// napkin/training/stages.hpp — a layer map's stages (napkin/layer_map.hpp),
// each priced from its own layers: dense and MoE layers, the logits, weights,
// memory, gradient synchronisation and optimizer step. Part of
// napkin/training.hpp.
#pragma once

#include <napkin/training/matrix_work.hpp>

namespace napkin {

// ---------------------------------------------------------------------------
// Uneven pipelines: a layer map (napkin/layer_map.hpp)
//
// Each stage's micro-batch is the sum of its layers' — a model's dense layers
// (DeepSeek's first_k_dense_replace) at their own cost, the MoE layers at
// theirs —, the logits on the last stage, the pipeline sends on every one.
// The embedding look-up has no multiplications; its table is memory of the
// first stage.

/// The part-by-part sum of two micro-batch times.
[[nodiscard]] constexpr MicrobatchTime operator+(const MicrobatchTime& a, const MicrobatchTime& b) {
    return {a.compute + b.compute, a.recompute + b.recompute, a.tp + b.tp, a.pp + b.pp, a.ep + b.ep,
            {a.cp.forward + b.cp.forward, a.cp.backward + b.cp.backward}};
}
/// Every part of a micro-batch time scaled by `n`.
[[nodiscard]] constexpr MicrobatchTime operator*(double n, const MicrobatchTime& t) {
    return {n * t.compute, n * t.recompute, n * t.tp, n * t.pp, n * t.ep, {n * t.cp.forward, n * t.cp.backward}};
}

/// The shape seen as one layer per stage (m.layers / par.pp = 1), so the
/// per-stage functions above price one layer: a dense one or an MoE one.
[[nodiscard]] constexpr TransformerShape one_layer_shape(const TransformerShape& m, const Parallelism& par,
                                                         bool dense) {
    TransformerShape one = dense && m.experts > 0 ? dense_layer_shape(m) : m;
    one.layers = par.pp;
    one.dense_layers = 0;
    one.moe_every = 1;
    return one;
}

/// One layer through one micro-batch: matrix and element-wise work, TP, EP and
/// CP collectives (no logits, no pipeline send).
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

/// The logits' forward and backward for one micro-batch on the last stage
/// (16-bit in the GEMM model, as gemm_matrix_work prices them).
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

/// A stage's layers by kind.
struct StageLayers {
    long long dense = 0, moe = 0;
    [[nodiscard]] constexpr long long total() const { return dense + moe; }
};

/// The dense and MoE layers the map places on `stage`, over all its chunks.
[[nodiscard]] inline StageLayers stage_layers(const TransformerShape& m, const LayerMap& map, long long stage) {
    StageLayers n;
    for (long long chunk = 0; chunk < map.chunks; ++chunk) {
        const LayerRange& r = map.at(stage, chunk);
        const long long moe = moe_layers_between(m, r.first, r.last);
        n.dense += r.size() - moe;
        n.moe += moe;
    }
    return n;
}

/// The weights behind stage_parameters_per_gpu that do not depend on the stage: per GPU, one dense
/// layer, one MoE layer's dense part and its experts, and what the first and the last stage add.
struct StageWeightParts {
    double dense_layer = 0, moe_dense = 0, experts = 0, first = 0, last = 0;
};
/// The parts above for a model and layout: layers cut t ways, experts t·ep ways, the first stage's
/// vocabulary-parallel table and positions, the last stage's output layer and final norm.
[[nodiscard]] constexpr StageWeightParts stage_weight_parts(const TransformerShape& m, const Parallelism& par) {
    const double t = count(par.tp);
    const double expert = detail::layer_expert_weights(m);
    const double table = count(m.vocabulary * m.hidden) / t;
    const double output = (!m.tied_embeddings || par.pp > 1) ? table : 0.0;
    return {count(dense_layer_weights(m)) / t, (m.experts == 0 ? 0.0 : count(layer_weights(m)) - expert) / t,
            expert / (t * count(par.ep)), table + count(m.learned_positions * m.hidden),
            output + count(norm_weights(m))};
}

/// Weights one GPU of a stage with `n` layers keeps, from the parts above.
[[nodiscard]] constexpr StageParameters stage_parameters_of(const StageWeightParts& w, const StageLayers& n, bool first,
                                                            bool last) {
    return {
        count(n.dense) * w.dense_layer + count(n.moe) * w.moe_dense + (first ? w.first : 0.0) + (last ? w.last : 0.0),
        count(n.moe) * w.experts};
}

/// Weights one GPU of a stage keeps (parameters_per_gpu's split, per stage):
/// its layers cut t ways, experts over t·ep, the vocabulary-parallel table on
/// the first stage, the output layer and final norm on the last (a tied table
/// kept as a second copy there when p > 1).
[[nodiscard]] constexpr StageParameters stage_parameters_per_gpu(const TransformerShape& m, const Parallelism& par,
                                                                 const StageLayers& n, bool first, bool last) {
    return stage_parameters_of(stage_weight_parts(m, par), n, first, last);
}

/// What evaluate_training reports per stage of a layer map.
struct StageEstimate {
    StageLayers layers;
    MicrobatchTime microbatch;  // one micro-batch through the stage
    StageParameters parameters;
    TrainingMemory memory;
    Seconds dp, optimizer;
};

/// The stages of a layer map, each with its micro-batch time, weights,
/// memory, exposed gradient synchronisation and optimizer step. The
/// activation peak of each stage is counted with the first stage's schedule
/// multiplier (napkin/pipeline.hpp's peak_activations) over the stage's own
/// layers: an upper bound for the later stages, which hold fewer micro-batches.
template <class F>
constexpr void for_each_stage(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                              const TrainingOptions& o, const LayerMap& map, F&& f) {
    const Gpu& gpu = c.node.gpu;
    const bool has_dense = moe_layers(m) < m.layers;
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
    const double scale = optimizer_memory_scale(m, par, o.optimizer);
    // What is the same on every stage: the optimizer's model-wide parts (optimizer_step_time), the
    // weights per layer (stage_parameters_per_gpu) and the groups' synchronisation rates.
    const double moments = optimizer_moments(m, o.optimizer);
    const StageWeightParts weights = stage_weight_parts(m, par);
    const GradientSyncRate dense_sync = gradient_sync_rate(data_group(par, c), par, c, o);
    const GradientSyncRate expert_sync =
        m.experts == 0 ? GradientSyncRate{} : gradient_sync_rate(expert_data_group(par, c), par, c, o);
    const Seconds newton_schulz = newton_schulz_time(m, par, gpu, o);
    for (long long s = 0; s < map.stages; ++s) {
        StageEstimate e;
        e.layers = stage_layers(m, map, s);
        const bool first = s == 0, last = s == map.stages - 1;
        e.microbatch = count(e.layers.dense) * dense + count(e.layers.moe) * moe;
        if (last) e.microbatch.compute += logits;
        e.microbatch.pp = send;
        e.parameters = stage_parameters_of(weights, e.layers, first, last);
        const ModelStates d = model_states(e.parameters.dense, par.dp * par.cp, par);
        const ModelStates x = model_states(e.parameters.expert, par.dp * par.cp / par.ep, par);
        e.memory = with_allowances(
            {d.weights + x.weights, d.gradients + x.gradients, scale * (d.optimizer + x.optimizer),
             multiplier * (count(e.layers.dense) * dense_activations + count(e.layers.moe) * moe_activations)},
            m, par, o.memory_allowances);
        e.dp = stage_gradient_sync(e.microbatch, e.parameters, count(std::max(1LL, e.layers.total())), par, c, o,
                                   dense_sync, expert_sync);
        e.optimizer = optimizer_time(e.parameters, par, gpu, moments) + newton_schulz;
        f(s, e);
    }
}

}  // namespace napkin
