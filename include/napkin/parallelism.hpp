// SPDX-License-Identifier: MIT
// napkin/parallelism.hpp — how a training run is laid out over a cluster.
//
// A `Parallelism` says how the model and the batch are cut: tensor (tp),
// pipeline (pp, with `virtual_stages` chunks per rank), data (dp), expert (ep)
// and context (cp) parallel sizes, the micro-batch and global batch, the
// sequence length, sequence parallelism, activation recomputation, ZeRO
// sharding or Megatron's distributed optimizer, and the number format of each
// training state. A `Cluster` is nodes × GPUs per node with a link inside the
// node and a network between nodes.
//
// Ranks are placed in Megatron-LM's order (megatron/core/parallel_state.py,
// order "tp-cp-ep-dp-pp"): tensor-parallel ranks are neighbours, then context,
// then data (the expert-parallel groups are cut out of the data-parallel
// ones), pipeline stages outermost. From the placement the library knows
// which group stays inside a node and which crosses the network.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/names.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace napkin {

// ---------------------------------------------------------------------------
// Number formats of the training states

/// The number format a training state is kept in (none: the state is not kept).
enum class DType { none, fp8, bf16, fp16, fp32 };

/// Bytes of one value (none: the state is not kept, e.g. no separate master copy).
[[nodiscard]] constexpr double bytes_of(DType d) {
    switch (d) {
        case DType::none: return 0.0;
        case DType::fp8: return 1.0;
        case DType::bf16:
        case DType::fp16: return 2.0;
        case DType::fp32: return 4.0;
    }
    return 0.0;
}

/// Each format's name, for printing and parsing ("none", "fp8", "bf16", "fp16", "fp32").
inline constexpr std::array dtype_names{Named{DType::none, "none"}, Named{DType::fp8, "fp8"},
                                       Named{DType::bf16, "bf16"}, Named{DType::fp16, "fp16"},
                                       Named{DType::fp32, "fp32"}};
/// The format's name, e.g. "bf16".
[[nodiscard]] constexpr std::string_view to_string(DType d) { return name_of(d, dtype_names); }
/// The format `text` names, if any.
[[nodiscard]] constexpr std::optional<DType> parse_dtype(std::string_view text) { return value_of(text, dtype_names); }

// ---------------------------------------------------------------------------
// Choices

/// Activation recomputation (Korthikanti et al. 2022, arXiv 2205.05198): keep
/// every activation, recompute only the attention core (selective), or keep
/// only each layer's input and replay the whole forward pass (full).
enum class Recompute { none, selective, full };

/// Each recomputation choice's name: "none", "selective" or "full".
inline constexpr std::array recompute_names{Named{Recompute::none, "none"}, Named{Recompute::selective, "selective"},
                                           Named{Recompute::full, "full"}};
/// The recomputation choice's name.
[[nodiscard]] constexpr std::string_view to_string(Recompute r) { return name_of(r, recompute_names); }
/// The recomputation choice `text` names, if any.
[[nodiscard]] constexpr std::optional<Recompute> parse_recompute(std::string_view text) {
    return value_of(text, recompute_names);
}

/// How the model states are shared over the data-parallel ranks: ZeRO stages
/// 0–3 (Rajbhandari et al., SC'20, Sec. 5) or Megatron-LM's distributed
/// optimizer (master weights and moments sharded, like ZeRO-1, gradients
/// reduce-scattered and weights all-gathered).
enum class Sharding { none, zero1, zero2, zero3, distributed };

/// Each sharding's name: the ZeRO stage "0" to "3", or "distributed".
inline constexpr std::array sharding_names{Named{Sharding::none, "0"}, Named{Sharding::zero1, "1"},
                                          Named{Sharding::zero2, "2"}, Named{Sharding::zero3, "3"},
                                          Named{Sharding::distributed, "distributed"}};
/// The sharding's name: the ZeRO stage ("0" to "3") or "distributed".
[[nodiscard]] constexpr std::string_view to_string(Sharding s) { return name_of(s, sharding_names); }
/// The sharding `text` names, if any.
[[nodiscard]] constexpr std::optional<Sharding> parse_sharding(std::string_view text) {
    return value_of(text, sharding_names);
}

/// The pipeline schedule as a small value a search can copy and switch on.
/// `automatic` is Megatron-LM's default: 1F1B, or interleaved 1F1B when a rank
/// holds v > 1 chunks (Narayanan et al. 2021, Sec. 2.2). The kind is a choice of
/// the layout, so it lives here; the schedules' formulas and the registry that
/// maps each kind to its type are napkin/pipeline.hpp's (DESIGN.md: a shape
/// includes no primitive).
enum class ScheduleKind { automatic, gpipe, one_f_one_b, interleaved, zero_bubble_h1, zero_bubble_h2, dualpipe, dualpipev };

/// Each schedule kind's name, for printing and parsing; napkin/pipeline.hpp checks at compile time
/// that each name is its schedule type's `name`.
inline constexpr std::array schedule_kind_names{
    Named{ScheduleKind::automatic, "auto"},       Named{ScheduleKind::gpipe, "gpipe"},
    Named{ScheduleKind::one_f_one_b, "1f1b"},     Named{ScheduleKind::interleaved, "interleaved"},
    Named{ScheduleKind::zero_bubble_h1, "zb-h1"}, Named{ScheduleKind::zero_bubble_h2, "zb-h2"},
    Named{ScheduleKind::dualpipe, "dualpipe"},    Named{ScheduleKind::dualpipev, "dualpipev"}};
/// The schedule kind's name, e.g. "1f1b" (automatic: "auto").
[[nodiscard]] constexpr std::string_view to_string(ScheduleKind kind) { return name_of(kind, schedule_kind_names); }
/// The schedule kind `text` names, if any.
[[nodiscard]] constexpr std::optional<ScheduleKind> parse_schedule_kind(std::string_view text) {
    return value_of(text, schedule_kind_names);
}

// ---------------------------------------------------------------------------
// The layout

/// How a training run is cut over the cluster: the parallel sizes, the batch and sequence, the memory
/// choices (recomputation, sharding, fused attention) and each training state's number format.
struct Parallelism {
    long long tp = 1;              // tensor-parallel size t
    long long pp = 1;              // pipeline stages p
    long long dp = 1;              // data-parallel copies d
    long long ep = 1;              // expert-parallel size (divides dp·cp)
    long long cp = 1;              // context-parallel size (splits the sequence)
    long long virtual_stages = 1;  // model chunks per pipeline rank v (interleaved 1F1B when > 1)
    ScheduleKind schedule = ScheduleKind::automatic;  // the pipeline schedule
    long long micro_batch = 1;     // sequences per micro-batch b
    long long global_batch = 1;    // sequences per optimizer step B
    long long sequence = 2048;     // tokens per sequence s
    bool sequence_parallel = false;
    Recompute recompute = Recompute::none;
    Sharding sharding = Sharding::none;
    // Fused attention (Dao et al. 2022, FlashAttention) keeps no s × s score
    // matrices: a kernel choice, kept here because memory depends on it.
    bool flash_attention = false;
    // Mixed-precision Adam as in ZeRO (Sec. 3.1): 16-bit weights and
    // gradients, fp32 master weights and two fp32 moments: 2 + 2 + 12 bytes.
    DType weights = DType::bf16;
    DType gradients = DType::bf16;
    DType master = DType::fp32;
    DType moments = DType::fp32;  // each of Adam's two moments
};

/// GPUs the layout occupies: t · c · p · d (experts reuse the data-parallel ranks).
/// Checked: a product beyond 64 bits is rejected, never wrapped.
[[nodiscard]] constexpr long long gpus(const Parallelism& par) {
    constexpr std::string_view what = "tp × cp × pp × dp";
    return checked_mul(checked_mul(checked_mul(par.tp, par.cp, what), par.pp, what), par.dp, what);
}

/// Gradient accumulation: m = B / (b · d) micro-batches per optimizer step.
[[nodiscard]] constexpr long long microbatches(const Parallelism& par) {
    return par.global_batch / checked_mul(par.micro_batch, par.dp, "micro_batch × dp");
}

// ---------------------------------------------------------------------------
// The pipeline schedule of a layout

/// The schedule that runs: `automatic` resolved by the number of chunks.
[[nodiscard]] constexpr ScheduleKind resolved_schedule(const Parallelism& par) {
    if (par.schedule != ScheduleKind::automatic) return par.schedule;
    return par.virtual_stages > 1 ? ScheduleKind::interleaved : ScheduleKind::one_f_one_b;
}


// ---------------------------------------------------------------------------
// Rank placement

/// A rank's coordinates in the layout.
struct RankCoordinates {
    long long tp = 0, cp = 0, dp = 0, pp = 0;
};

/// Megatron order: rank = tp + t·(cp + c·(dp + d·pp)).
[[nodiscard]] constexpr long long rank_of(const RankCoordinates& r, const Parallelism& par) {
    return r.tp + par.tp * (r.cp + par.cp * (r.dp + par.dp * r.pp));
}

/// The inverse of rank_of: a rank's tensor, context, data and pipeline coordinates (rank must be in
/// [0, tp·cp·pp·dp)).
[[nodiscard]] constexpr RankCoordinates coordinates_of(long long rank, const Parallelism& par) {
    require(rank >= 0 && rank < gpus(par), "rank", count(rank), "must be in [0, tp·cp·pp·dp)");
    RankCoordinates r;
    r.tp = rank % par.tp;
    rank /= par.tp;
    r.cp = rank % par.cp;
    rank /= par.cp;
    r.dp = rank % par.dp;
    r.pp = rank / par.dp;
    return r;
}

/// One communication group as it lands on the cluster: `size` ranks `stride`
/// apart. Its members share a node when the whole span fits in one.
struct GroupPlacement {
    long long size = 1;
    long long stride = 1;
    long long ranks_per_node = 1;  // members of one group inside one node
    long long nodes = 1;           // nodes one group touches
    [[nodiscard]] constexpr bool crosses_nodes() const { return nodes > 1; }
};

/// Where a group of `size` ranks `stride` apart lands on nodes of `gpus_per_node` consecutive ranks.
[[nodiscard]] constexpr GroupPlacement place_group(long long size, long long stride, long long gpus_per_node) {
    require_at_least_one("group size", size);
    require_at_least_one("group stride", stride);
    require_at_least_one("gpus_per_node", gpus_per_node);
    if (size == 1) return {1, stride, 1, 1};
    // Members are `stride` ranks apart; a node holds gpus_per_node consecutive ranks.
    const long long per_node = stride >= gpus_per_node ? 1 : std::min(size, gpus_per_node / stride);
    const long long span_nodes = (size + per_node - 1) / per_node;
    return {size, stride, per_node, span_nodes};
}

/// The groups of the Megatron order.
[[nodiscard]] constexpr GroupPlacement tensor_group(const Parallelism& par, const Cluster& c) {
    return place_group(par.tp, 1, c.node.gpus);
}
/// Context-parallel ranks are t ranks apart, just outside the tensor-parallel ones.
[[nodiscard]] constexpr GroupPlacement context_group(const Parallelism& par, const Cluster& c) {
    return place_group(par.cp, par.tp, c.node.gpus);
}
/// Gradients of the dense weights are reduced over data × context ranks
/// (Megatron reduces over the combined dp-cp group).
[[nodiscard]] constexpr GroupPlacement data_group(const Parallelism& par, const Cluster& c) {
    return place_group(checked_mul(par.dp, par.cp, "dp × cp"), par.tp, c.node.gpus);
}
/// Expert-parallel ranks are the innermost `ep` of the data-parallel ranks.
[[nodiscard]] constexpr GroupPlacement expert_group(const Parallelism& par, const Cluster& c) {
    return place_group(par.ep, checked_mul(par.tp, par.cp, "tp × cp"), c.node.gpus);
}
/// Expert weights are replicated over the remaining dp·cp / ep ranks.
[[nodiscard]] constexpr GroupPlacement expert_data_group(const Parallelism& par, const Cluster& c) {
    return place_group(checked_mul(par.dp, par.cp, "dp × cp") / par.ep,
                       checked_mul(checked_mul(par.tp, par.cp, "tp × cp × ep"), par.ep, "tp × cp × ep"), c.node.gpus);
}
/// Neighbouring pipeline stages are t·c·d ranks apart.
[[nodiscard]] constexpr GroupPlacement pipeline_group(const Parallelism& par, const Cluster& c) {
    return place_group(par.pp, checked_mul(checked_mul(par.tp, par.cp, "tp × cp × dp"), par.dp, "tp × cp × dp"),
                       c.node.gpus);
}

/// The link a group's collectives run on: NVLink inside a node, the network
/// (the GPU's share of it) once the group spans nodes.
[[nodiscard]] constexpr Link link_for(const GroupPlacement& g, const Cluster& c) {
    return g.crosses_nodes() ? network_link_per_gpu(c.node) : c.node.intra;
}


// ---------------------------------------------------------------------------
// Validation

namespace detail {
inline std::string whole(long long n) { return std::to_string(n); }

/// What a schedule needs of the layout that the layout may lack; none: it runs.
enum class ScheduleProblem { none, chunks, interleaved_groups, zero_bubble_microbatches, dualpipe_stages,
                             dualpipe_microbatches };

/// The rules of check_schedule without the message: a search asks this for
/// every point, so it must not throw.
[[nodiscard]] constexpr ScheduleProblem schedule_problem(const Parallelism& par) {
    const ScheduleKind k = resolved_schedule(par);
    const long long m = microbatches(par);
    if (k != ScheduleKind::interleaved && par.virtual_stages != 1) return ScheduleProblem::chunks;
    // Megatron-LM's interleaved schedule runs micro-batches in groups of p
    // (megatron/core/pipeline_parallel/schedules.py).
    if (k == ScheduleKind::interleaved && par.virtual_stages > 1 && !divides(par.pp, m))
        return ScheduleProblem::interleaved_groups;
    // Qi et al. 2023 (Sec. 3.1) give the zero-bubble schedules for m ≥ p.
    if ((k == ScheduleKind::zero_bubble_h1 || k == ScheduleKind::zero_bubble_h2) && m < par.pp)
        return ScheduleProblem::zero_bubble_microbatches;
    // DeepSeek-V3 (Sec. 3.2.1): DualPipe needs the stages and the micro-batches divisible by 2.
    if (k == ScheduleKind::dualpipe && par.pp % 2 != 0) return ScheduleProblem::dualpipe_stages;
    if (k == ScheduleKind::dualpipe && m % 2 != 0) return ScheduleProblem::dualpipe_microbatches;
    return ScheduleProblem::none;
}

/// What each schedule needs of the layout, named in the layout's terms (the
/// checks of napkin/pipeline.hpp then never fire).
constexpr void check_schedule(const Parallelism& par) {
    const std::string_view name = to_string(resolved_schedule(par));
    const long long m = microbatches(par);
    switch (schedule_problem(par)) {
        case ScheduleProblem::none: return;
        case ScheduleProblem::chunks:
            reject("Parallelism.virtual_stages", count(par.virtual_stages),
                   "must be 1 for the " + std::string(name) +
                       " schedule (chunks per rank are the interleaved schedule's)");
        case ScheduleProblem::interleaved_groups:
            reject("micro-batches per step (global_batch / (micro_batch × dp))", count(m),
                   "must be a multiple of pp = " + whole(par.pp) + " for the interleaved schedule", {"pp"});
        case ScheduleProblem::zero_bubble_microbatches:
            reject("micro-batches per step (global_batch / (micro_batch × dp))", count(m),
                   "must be at least pp = " + whole(par.pp) + " for the " + std::string(name) + " schedule", {"pp"});
        case ScheduleProblem::dualpipe_stages:
            reject("Parallelism.pp", count(par.pp), "must be even for the dualpipe schedule");
        case ScheduleProblem::dualpipe_microbatches:
            reject("micro-batches per step (global_batch / (micro_batch × dp))", count(m),
                   "must be even for the dualpipe schedule");
    }
}
}  // namespace detail

/// Checks the layout on its own: sizes at least 1 and within their bounds
/// (napkin/checked.hpp limits: up to 2^40 GPUs in all, 2^40 sequences, 2^40
/// tokens per sequence, 2^53 tokens per step), the batch split evenly.
[[nodiscard]] constexpr const Parallelism& validated(const Parallelism& par) {
    require_count("Parallelism.tp", par.tp, limits::gpus);
    require_count("Parallelism.pp", par.pp, limits::gpus);
    require_count("Parallelism.dp", par.dp, limits::gpus);
    require_count("Parallelism.ep", par.ep, limits::gpus);
    require_count("Parallelism.cp", par.cp, limits::gpus);
    require_count("Parallelism.virtual_stages", par.virtual_stages, limits::layers);
    require_count("Parallelism.micro_batch", par.micro_batch, limits::batch);
    require_count("Parallelism.global_batch", par.global_batch, limits::batch);
    require_count("Parallelism.sequence", par.sequence, limits::sequence);
    if (gpus(par) > limits::gpus)
        reject_exact("tp × cp × pp × dp", std::to_string(gpus(par)), "must be at most 2^40 = 1099511627776 GPUs");
    if (checked_mul(par.global_batch, par.sequence, "global_batch × sequence") > limits::tokens)
        reject_exact("global_batch × sequence", std::to_string(par.global_batch * par.sequence),
                     "must be at most 2^53 tokens per step");
    if (checked_mul(par.pp, par.virtual_stages, "pp × virtual_stages") > limits::passes)
        reject_exact("pp × virtual_stages", std::to_string(par.pp * par.virtual_stages), "must be at most 2^40");
    if (!divides(checked_mul(par.micro_batch, par.dp, "micro_batch × dp"), par.global_batch))
        reject("Parallelism.global_batch", count(par.global_batch),
                       "must be a multiple of micro_batch × dp = " + detail::whole(par.micro_batch * par.dp),
               {"micro_batch", "dp"});
    if (!divides(par.ep, checked_mul(par.dp, par.cp, "dp × cp")))
        reject("Parallelism.ep", count(par.ep),
                       "must divide dp × cp = " + detail::whole(par.dp * par.cp), {"dp", "cp"});
    if (!divides(par.cp, par.sequence))
        reject("Parallelism.sequence", count(par.sequence),
                       "must be a multiple of cp = " + detail::whole(par.cp), {"cp"});
    if (par.virtual_stages > 1 && par.pp == 1)
        reject("Parallelism.virtual_stages", count(par.virtual_stages), "needs pp > 1");
    detail::check_schedule(par);
    if (par.weights == DType::none) reject("Parallelism.weights", "none", "weights need a number format");
    if (par.gradients == DType::none)
        reject("Parallelism.gradients", "none", "gradients need a number format");
    return par;
}

/// Checks the layout against a model: heads split by tp, layers by pp × v
/// (unless `layer_map`: an uneven layer map, napkin/layer_map.hpp, places
/// them), experts by ep.
[[nodiscard]] constexpr const Parallelism& validated(const Parallelism& par, const TransformerShape& model,
                                                     bool layer_map = false) {
    (void)validated(par);
    (void)validated(model);
    if (!divides(par.tp, model.heads))
        reject("Parallelism.tp", count(par.tp),
                       "must divide the model's attention heads (" + detail::whole(model.heads) + ")");
    if (!layer_map && !divides(checked_mul(par.pp, par.virtual_stages, "pp × virtual_stages"), model.layers))
        reject("Parallelism.pp × virtual_stages", count(par.pp * par.virtual_stages),
                       "must divide the model's layers (" + detail::whole(model.layers) +
                           ") unless a layer map places them (a layer_map, or first_stage_layers and "
                           "last_stage_layers)");
    // DualPipeV cuts the model into 2p stages, two per rank (DualPipe repository).
    if (!layer_map && resolved_schedule(par) == ScheduleKind::dualpipev &&
        model.layers % checked_mul(2, par.pp, "2 × pp") != 0)
        reject("Parallelism.pp", count(par.pp),
                       "times 2 must divide the model's layers (" + detail::whole(model.layers) +
                           ") for the dualpipev schedule");
    if (par.ep > 1 && model.experts == 0)
        reject("Parallelism.ep", count(par.ep), "needs a mixture-of-experts model");
    if (model.experts > 0 && !divides(par.ep, model.experts))
        reject("Parallelism.ep", count(par.ep),
                       "must divide the model's experts (" + detail::whole(model.experts) + ")");
    return par;
}

/// Checks the layout against a model and a cluster: t·c·p·d = the cluster's GPUs.
[[nodiscard]] constexpr const Parallelism& validated(const Parallelism& par, const TransformerShape& model,
                                                     const Cluster& cluster, bool layer_map = false) {
    (void)validated(par, model, layer_map);
    (void)validated(cluster);
    if (gpus(par) != gpus(cluster))
        reject("tp × cp × pp × dp", count(gpus(par)),
                       "must equal the cluster's GPUs (" + detail::whole(cluster.nodes) + " nodes × " +
                           detail::whole(cluster.node.gpus) + " = " + detail::whole(gpus(cluster)) + ")");
    return par;
}

}  // namespace napkin
