// SPDX-License-Identifier: MIT
// napkin/training/ops.hpp — the step's ops and collectives, one by one (what
// `napkin train --json` lists as `ops` and `collectives`), from the functions
// evaluate_training uses. Part of napkin/training.hpp.
#pragma once

#include <napkin/training/stages.hpp>

namespace napkin {

// ---------------------------------------------------------------------------
// Per-op times and the step's collectives (what `napkin train --json` lists
// as `ops` and `collectives`), from the same functions evaluate_training
// uses.

/// One op of one layer for one micro-batch on one GPU: its forward and
/// backward time, and the bytes it moves: a collective the bytes it sends over
/// a link, a compute op the bytes its forward pass reads and writes in memory
/// (gemm.hpp's PassTimes::moved; the element-wise work k activation passes).
struct TrainingOp {
    std::string_view op;
    Seconds forward, backward;
    Bytes sent;
};

/// At most 9 ops a layer.
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

/// The ops of one layer of the model (a dense layer of a model with experts:
/// pass dense = true), in the order they run forward: attention (its
/// projections and core), for MoE the router, the dispatch all-to-all, the
/// routed experts' grouped GEMMs, the shared experts, the combine all-to-all;
/// for a dense layer the MLP; then the element-wise work (norms, activation
/// functions, permutes, at the memory bandwidth) and the tensor-parallel
/// collectives. Under the GEMM model each GEMM is priced from its shape; under
/// the flat one (TrainingOptions::compute_model = flat, or a GPU without GEMM
/// facts) every GEMM at the flat share of peak (achievable_efficiency), the
/// element-wise work at the flat model's passes. Either way the ops of the
/// stage's layers sum to its matrix work without recomputation and logits.
[[nodiscard]] constexpr LayerOps layer_ops(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                                           const TrainingOptions& o, bool dense = false) {
    const Gpu& gpu = c.node.gpu;
    const TransformerShape layer = one_layer_shape(m, par, dense);
    LayerOps out;
    const bool flat = resolved_compute_model(gpu, o) == ComputeModel::flat;
    const GemmSettings settings =
        flat ? GemmSettings{.peak = gpu.peak_flops, .share = achievable_efficiency(o.efficiency, matmul_width(m, par)),
                            .flat = true}
             : gemm_settings(gpu, o);
    const LayerGemmParts g = layer_gemm_parts(layer, par, gpu, settings, o.causal);
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
    // The passes over memory each model counts (flat_matrix_work, gemm_matrix_work); FP8 casts and the
    // framework's own time are the GEMM model's.
    const EfficiencyModel memory = flat ? o.efficiency : EfficiencyModel{.memory_passes = o.profile.memory_passes};
    const ElementwiseTime e = elementwise_time_per_microbatch(layer, none, gpu, memory);
    const Seconds casts = !flat && o.compute_dtype == DType::fp8 ? fp8_cast_time(layer, par, gpu) : Seconds{};
    // Forward: k passes over the layer's activation bytes (elementwise_time_per_microbatch), and
    // the fp8 casts' forward third at the memory bandwidth.
    const Bytes passes = memory.memory_passes * activation_bytes_per_layer(layer, none);
    out.add("element-wise", (e.compute + casts) / 3.0, 2.0 * (e.compute + casts) / 3.0,
            passes + (casts / 3.0) * gpu.memory_bandwidth);
    if (!flat && o.eager_framework && o.profile.eager_layer_overhead_ms > 0.0)
        out.add("framework overhead", framework_layer_overhead(o) / 3.0, 2.0 * framework_layer_overhead(o) / 3.0);
    if (par.tp > 1) {
        const Seconds tp = tp_time_per_microbatch(layer, none, c, o);
        out.add("tensor-parallel collectives", tp / 2.0, tp / 2.0, 4.0 * hidden_states_bytes(layer, par));
    }
    return out;
}

/// One collective of the step: what it moves, over which group and link, by
/// which algorithm, how often per step and how long one call takes.
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

/// The step's collectives, at most 8, in the order they were added.
struct StepCollectives {
    std::array<StepCollective, 8> list{};
    std::size_t size = 0;
    constexpr void add(const StepCollective& x) { list[size++] = x; }
};

/// The collectives of one GPU's step, for the layout's largest stage
/// (`params`): TP per layer, the pipeline send, the expert all-to-all, and the
/// gradient synchronisation of the dense weights over all d·c data-parallel
/// copies and of the expert weights over the d·c/ep that hold the same
/// experts (expert data parallelism), each over the links its group crosses.
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

/// Expert data parallelism: the GPUs that hold the same experts and
/// synchronise their gradients, d·c/ep (napkin splits the experts t ways like
/// the dense weights, Megatron's expert tensor parallel = tp; with
/// expert tensor parallel 1 it would be d·c·t/ep).
[[nodiscard]] constexpr long long expert_data_parallel(const Parallelism& par) { return par.dp * par.cp / par.ep; }

}  // namespace napkin
