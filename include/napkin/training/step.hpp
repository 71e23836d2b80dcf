// SPDX-License-Identifier: MIT
// napkin/training/step.hpp — the parts paid once per step: the data-parallel
// gradient synchronisation (DDP, ZeRO, FSDP; its exposed share) and the
// optimizer step (Adam, Muon's Newton–Schulz). Part of napkin/training.hpp.
#pragma once

#include <napkin/training/microbatch.hpp>

namespace napkin {

/// A group that spans nodes as the hierarchical collectives see it (the
/// gradient sync's topology; napkin/parallelism.hpp places the group): its
/// members per node on NVLink, one ring per GPU position across the nodes, each
/// GPU with its share of the network (all groups of a node talk at once, so a
/// shared NIC is split over all the node's GPUs).
[[nodiscard]] constexpr HierarchicalTopology topology_of(const GroupPlacement& g, const Cluster& c) {
    return HierarchicalTopology{.nodes = g.nodes, .gpus_per_node = g.ranks_per_node, .intra = c.node.intra,
                                .inter = network_link_per_gpu(c.node), .nic = Nic::per_gpu,
                                .oversubscription = 1.0};
}

/// Data-parallel synchronisation of one group's gradients (`parameters` per
/// GPU over `group`): an all-reduce (Li et al. 2020, PyTorch DDP); with ZeRO-1/2 or
/// the distributed optimizer a reduce-scatter of the gradients and an
/// all-gather of the updated weights, the same volume; ZeRO-3 gathers the
/// weights again for the forward and the backward of every micro-batch, 1.5×
/// the volume at m = 1 (Rajbhandari et al. Sec. 7.2.2). Across nodes it runs
/// hierarchically: inside the node, then one ring per GPU position.
/// The same in parts: `reduce` (the all-reduce, or the gradients'
/// reduce-scatter), `gather` (the updated weights' all-gather after the
/// optimizer step) and, for ZeRO-3, `layer_gather`: one all-gather of the
/// weights, which ZeRO-3 repeats for the forward and the backward of every
/// micro-batch.
struct GradientSync {
    Seconds reduce, gather, layer_gather;
};

/// A group's gradient synchronisation as a latency and a time per parameter, part by part: every
/// collective below is a latency plus bytes over a bandwidth, so each part is affine in the parameters
/// it syncs, and the stages of a layer map price their own parameter counts from one rate.
struct GradientSyncRate {
    GradientSync latency, per_parameter;
};

/// The rate of one group's synchronisation (gradient_sync_parts below, per parameter).
[[nodiscard]] constexpr GradientSyncRate gradient_sync_rate(const GroupPlacement& group, const Parallelism& par,
                                                            const Cluster& c, const TrainingOptions& o) {
    if (group.size == 1) return {};
    const Bytes gradients = bytes(gradient_reduce_bytes(par, o));  // of one parameter
    const Bytes weights = bytes(bytes_of(par.weights));
    const Seconds base = o.collective_base_latency;
    const HierarchicalTopology topology = topology_of(group, c);
    const bool across = group.crosses_nodes();
    const Link link = c.node.intra;
    const auto all_reduce = [&](Bytes b) {
        return across ? detail::hierarchical_all_reduce_of(b, topology, base)
                      : ring_all_reduce(b, group.size, link, base);
    };
    const auto scatter = [&](Bytes b) {
        return across ? detail::hierarchical_reduce_scatter_of(b, topology, base)
                      : reduce_scatter(b, group.size, link, base);
    };
    const auto gather = [&](Bytes b) {
        return across ? detail::hierarchical_all_gather_of(b, topology, base) : all_gather(b, group.size, link, base);
    };
    const auto parts = [](CollectiveTime reduce, CollectiveTime gather_once, CollectiveTime layer_gather) {
        return GradientSyncRate{{reduce.latency, gather_once.latency, layer_gather.latency},
                                {reduce.bandwidth, gather_once.bandwidth, layer_gather.bandwidth}};
    };
    switch (par.sharding) {
        case Sharding::none:
            return parts(all_reduce(gradients), {}, {});
        case Sharding::zero1:
        case Sharding::zero2:
        case Sharding::distributed:
            return parts(scatter(gradients), gather(weights), {});
        case Sharding::zero3:
            return parts(scatter(gradients), {}, gather(weights));
    }
    return {};
}

/// The synchronisation of `parameters` at a group's rate: each part's latency plus the parameters
/// times its time per parameter (none for no parameters; a negative or nan count is refused).
[[nodiscard]] constexpr GradientSync gradient_sync_at(const GradientSyncRate& r, double parameters) {
    require_non_negative("parameters", parameters);
    if (parameters == 0.0) return {};
    return {r.latency.reduce + parameters * r.per_parameter.reduce,
            r.latency.gather + parameters * r.per_parameter.gather,
            r.latency.layer_gather + parameters * r.per_parameter.layer_gather};
}

/// One group's gradient synchronisation by part (GradientSync above): the reduce, the weights' gather, and
/// ZeRO-3's per-pass weight gather, each for one call, in seconds.
[[nodiscard]] constexpr GradientSync gradient_sync_parts(double parameters, const GroupPlacement& group,
                                                         const Parallelism& par, const Cluster& c,
                                                         const TrainingOptions& o) {
    return gradient_sync_at(gradient_sync_rate(group, par, c, o), parameters);
}

/// The whole synchronisation of one step: the reduce once (ZeRO-3: once per micro-batch), the gather once, and
/// ZeRO-3's weight gather twice per micro-batch.
[[nodiscard]] constexpr Seconds gradient_sync_time(double parameters, const GroupPlacement& group,
                                                  const Parallelism& par, const Cluster& c,
                                                  const TrainingOptions& o) {
    const GradientSync g = gradient_sync_parts(parameters, group, par, c, o);
    const double mb = count(microbatches(par));
    // ZeRO-3 reduce-scatters each micro-batch's gradients (exposed_sync_time below).
    const double reduces = par.sharding == Sharding::zero3 ? mb : 1.0;
    return reduces * g.reduce + g.gather + 2.0 * mb * g.layer_gather;
}

/// The share of the GPU's SMs a collective holds while it runs under compute:
/// TrainingOptions::communication_sms of Gpu::sm_count (0 for a GPU without an
/// SM count). The compute it overlaps runs on the other SMs, so hiding X of
/// communication costs share·X of compute time.
[[nodiscard]] constexpr double communication_sm_share(const Gpu& gpu, const TrainingOptions& o) {
    require(o.communication_sms >= 0 && (gpu.sm_count == 0 || o.communication_sms < gpu.sm_count),
            "TrainingOptions.communication_sms", static_cast<double>(o.communication_sms),
            "must be at least 0 and below the GPU's SM count");
    return gpu.sm_count > 0 ? count(o.communication_sms) / count(gpu.sm_count) : 0.0;
}

/// What of the synchronisation shows, given one micro-batch's forward and
/// backward time on the stage (each hidden part also costs `sm_share` of
/// itself, communication_sm_share above):
///  - overlap_dp: the reduction runs bucket by bucket under the last
///    micro-batch's backward (Li et al. 2020, PyTorch DDP, Sec. 3.2.3;
///    Megatron's --overlap-grad-reduce); only what exceeds it shows;
///  - overlap_param_gather: the all-gather under the first micro-batch's forward;
///  - ZeRO-3 with fsdp_prefetch: each layer's gather runs under the previous
///    layer's compute (PyTorch FSDP, Zhao et al. 2023, Sec. 3.3.2), so per
///    micro-batch only what exceeds the forward shows, plus the first layer's
///    gather, which nothing precedes. Without prefetch every gather shows.
///  - ZeRO-3 keeps only its shard of the gradients (memory.hpp's P_os+g+p), so
///    every micro-batch's backward reduce-scatters them (FSDP outside no_sync,
///    Zhao et al. 2023, Sec. 3.3; ZeRO Sec. 7.2.2: 1.5× the data-parallel
///    volume for every forward and backward); in that backward the reduce-
///    scatter and the all-gathers share the GPU's links, so the two hide
///    together: what their sum exceeds the backward by shows.
[[nodiscard]] constexpr Seconds exposed_sync_time(const GradientSync& g, const Parallelism& par, double layers,
                                                 Seconds forward, Seconds backward, const TrainingOptions& o,
                                                 double sm_share = 0.0) {
    const auto beyond = [sm_share](Seconds work, Seconds cover) {
        return std::max(Seconds{}, work - cover) + sm_share * std::min(work, cover);
    };
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

/// Adam's update is element-wise and memory-bound (Kingma & Ba 2015, Alg. 1):
/// per parameter it reads the gradient, the master weight and both moments,
/// writes them back and writes the 16-bit weight, at the GPU's memory
/// bandwidth, over the shard this GPU owns. `moments`: the moments kept per
/// parameter (2 for Adam; fewer for Muon, optimizer_moments below).
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

/// Moments kept per parameter, on average over the model: Adam's 2; Muon's 1
/// momentum on its matrices and AdamW's 2 on the rest (Liu et al. 2025, the
/// Moonlight paper, Sec. 2; napkin/optimizer.hpp's muon_parameter_count).
[[nodiscard]] constexpr double optimizer_moments(const TransformerShape& m, Optimizer opt) {
    if (opt == Optimizer::adam) return 2.0;
    return 2.0 - count(muon_parameter_count(m)) / count(parameter_count(m));
}

/// The share of the tensor-core peak the optimizer's Newton–Schulz GEMMs run at:
/// the GEMM model's fitted share of the generation, or the flat model's r.
[[nodiscard]] constexpr double matrix_share(const Gpu& gpu, const TrainingOptions& o) {
    return o.compute_model == ComputeModel::gemm && has_gemm_facts(gpu) ? tensor_share(o.profile, gpu.architecture)
                                                                        : o.efficiency.peak_share;
}

/// The optimizer step on one GPU: the element-wise update and, for Muon, the
/// Newton–Schulz iterations of every weight matrix (napkin/optimizer.hpp's
/// muon_step_flops) spread evenly over all GPUs (Megatron's distributed Muon
/// hands each rank whole matrices; balanced, that is 1/N of the FLOPs).
[[nodiscard]] constexpr Seconds newton_schulz_time(const TransformerShape& m, const Parallelism& par, const Gpu& gpu,
                                                  const TrainingOptions& o) {
    if (o.optimizer == Optimizer::adam) return Seconds{};
    return muon_step_time(m, count(gpus(par)), gpu.peak_flops * matrix_share(gpu, o));
}

/// The optimizer step on one GPU, in seconds: the element-wise update of its stage's parameters plus Muon's
/// Newton–Schulz iterations (none for Adam).
[[nodiscard]] constexpr Seconds optimizer_step_time(const TransformerShape& m, const StageParameters& params,
                                                   const Parallelism& par, const Gpu& gpu, const TrainingOptions& o) {
    return optimizer_time(params, par, gpu, optimizer_moments(m, o.optimizer)) + newton_schulz_time(m, par, gpu, o);
}

/// The exposed gradient synchronisation of a stage that runs `one` per
/// micro-batch over `layers` layers and keeps `params`: the dense weights over
/// the data-parallel group, the experts over the expert data-parallel group
/// (forward = compute/3, backward = 2·compute/3 + recompute, as stage_times),
/// each at its group's rate (`dense`, `expert`: gradient_sync_rate).
[[nodiscard]] constexpr Seconds stage_gradient_sync(const MicrobatchTime& one, const StageParameters& params,
                                                    double layers, const Parallelism& par, const Cluster& c,
                                                    const TrainingOptions& o, const GradientSyncRate& dense,
                                                    const GradientSyncRate& expert) {
    const Seconds forward = one.compute / 3.0;
    const Seconds backward = (2.0 / 3.0) * one.compute + one.recompute;
    const double share = communication_sm_share(c.node.gpu, o);
    return exposed_sync_time(gradient_sync_at(dense, params.dense), par, layers, forward, backward, o, share) +
           exposed_sync_time(gradient_sync_at(expert, params.expert), par, layers, forward, backward, o, share);
}

/// The same with the groups' rates worked out here (the experts' only when the stage has experts).
[[nodiscard]] constexpr Seconds stage_gradient_sync(const MicrobatchTime& one, const StageParameters& params,
                                                    double layers, const Parallelism& par, const Cluster& c,
                                                    const TrainingOptions& o) {
    const GradientSyncRate expert =
        params.expert == 0.0 ? GradientSyncRate{} : gradient_sync_rate(expert_data_group(par, c), par, c, o);
    return stage_gradient_sync(one, params, layers, par, c, o, gradient_sync_rate(data_group(par, c), par, c, o),
                               expert);
}

/// The optimizer's memory against Adam's, which memory.hpp counts: master
/// weights and the optimizer's moments per parameter over master and two.
[[nodiscard]] constexpr double optimizer_memory_scale(const TransformerShape& m, const Parallelism& par,
                                                      Optimizer opt) {
    const double adam = optimizer_bytes_per_parameter(par);
    return adam > 0.0 ? (bytes_of(par.master) + optimizer_moments(m, opt) * bytes_of(par.moments)) / adam : 1.0;
}

}  // namespace napkin
