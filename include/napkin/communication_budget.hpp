// SPDX-License-Identifier: MIT
// napkin/communication_budget.hpp — the gradient all-reduce of data-parallel
// training inside one step: how many bytes, in how many calls, how much of it
// hides behind the backward pass, what compression buys once the extra steps
// it costs are paid, and which stack of optimizations brings communication
// under a target share of the step (the communication lab's parts D and E,
// shared reference lab-communication-at-scale.py, modelled term by term
// instead of multiplied by fixed factors).
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

// ---------------------------------------------------------------------------
// Gradient bytes: one value per parameter in the gradients' number format, so
// "FP16 gradients" halves the bytes every collective below sees.
/// The gradients' size: one value per parameter in the `gradients` format (none is rejected).
[[nodiscard]] constexpr Bytes gradient_bytes(long long parameters, DType gradients) {
    require_at_least_one("parameters", parameters);
    require(gradients != DType::none, "gradients (dtype)", 0.0, "must be a number format, not none");
    return bytes(count(parameters) * bytes_of(gradients));
}

// ---------------------------------------------------------------------------
// Bucket fusion (PyTorch DDP, Li et al., "PyTorch Distributed", VLDB 2020,
// Sec. 3.2.3): gradients are packed into buckets of at most `bucket` bytes and
// each bucket is one collective call, so the per-call latency is paid once per
// bucket instead of once per tensor. With T tensors of equal size s = G/T, a
// bucket holds max(1, ⌊bucket/s⌋) tensors (a tensor larger than the bucket
// travels alone), so there are ⌈T / that⌉ calls, never more than T.
/// Collective calls for `tensors` equal tensors totalling `gradients` bytes, fused into buckets of at
/// most `bucket` bytes: ⌈T / max(1, ⌊bucket/s⌋)⌉.
[[nodiscard]] constexpr long long fused_calls(Bytes gradients, long long tensors, Bytes bucket) {
    require_positive("gradients (bytes)", gradients.value());
    require_at_least_one("tensors", tensors);
    require_positive("bucket (bytes)", bucket.value());
    const double tensor_size = gradients.value() / count(tensors);
    const auto per_bucket = std::max(1LL, static_cast<long long>(bucket.value() / tensor_size));
    return (tensors + per_bucket - 1) / per_bucket;
}

/// `calls` all-reduces of G/calls bytes each: the bandwidth term is that of one
/// all-reduce of G, the latency term is paid `calls` times.
template <CollectivePolicy Policy>
[[nodiscard]] constexpr CollectiveTime split_all_reduce(Bytes gradients, long long calls, long long ranks,
                                                       const Link& link, const Policy& policy) {
    require_at_least_one("calls", calls);
    return count(calls) * policy.all_reduce(gradients / count(calls), ranks, link);
}

// ---------------------------------------------------------------------------
// Overlap with the backward pass: the all-reduce of a bucket starts as soon as
// its gradients are ready (Li et al. 2020, Sec. 3.2.3), so a share η of the
// communication can run during the backward compute, but never more than the
// backward compute itself lasts. What does not hide is exposed.
/// The communication that hides under the backward pass: min(η · communication, backward), in seconds.
[[nodiscard]] constexpr Seconds hidden_communication(Seconds communication, Seconds backward, double efficiency) {
    require_non_negative("communication (s)", communication.value());
    require_non_negative("backward (s)", backward.value());
    require(efficiency >= 0.0 && efficiency <= 1.0, "overlap efficiency", efficiency, "must be in [0, 1]");
    return std::min(efficiency * communication, backward);
}

/// One data-parallel step: its compute, its gradient communication and the part of that hidden.
struct StepTime {
    Seconds compute;        // forward + backward + optimizer
    Seconds communication;  // the whole gradient synchronisation
    Seconds hidden;         // the part of it running under the backward pass
    [[nodiscard]] constexpr Seconds exposed() const { return communication - hidden; }
    [[nodiscard]] constexpr Seconds total() const { return compute + exposed(); }
    // The lab's "communication share of the step": exposed communication ÷ step.
    [[nodiscard]] constexpr double communication_share() const {
        return total().value() == 0.0 ? 0.0 : ratio(exposed(), total());
    }
};

/// The step `compute` plus `communication`, a share `overlap_efficiency` of which hides under
/// `backward` (part of the compute, never longer than it).
[[nodiscard]] constexpr StepTime step_time(Seconds compute, Seconds communication, Seconds backward = Seconds{},
                                           double overlap_efficiency = 0.0) {
    require_non_negative("compute (s)", compute.value());
    require(backward <= compute, "backward (s)", backward.value(), "must not exceed the compute time");
    return {compute, communication, hidden_communication(communication, backward, overlap_efficiency)};
}

/// The communication time that makes it exactly `share` of the step:
///   c / (compute + c) = share  ⇔  c = share · compute / (1 − share).
[[nodiscard]] constexpr Seconds communication_for_share(Seconds compute, double share) {
    require(share >= 0.0 && share < 1.0, "share", share, "must be in [0, 1)");
    return share * compute / (1.0 - share);
}

// ---------------------------------------------------------------------------
// Gradient compression: fewer bytes per step, more steps to converge. The net
// change in total training time is (steps × step time) after ÷ before:
//   ratio = penalty · step_after / step_before  (< 1: compression pays).
/// A gradient compression: the share of the bytes it keeps and the extra steps it needs to converge.
struct Compression {
    std::string_view name;
    double ratio;                // compressed bytes ÷ uncompressed bytes, in (0, 1]
    double convergence_penalty;  // steps to the same loss, ÷ steps without it, ≥ 1
};

/// The compression unchanged when its ratio is in (0, 1] and its convergence penalty at least 1;
/// otherwise rejects it.
[[nodiscard]] constexpr const Compression& validated(const Compression& c) {
    require(c.ratio > 0.0 && c.ratio <= 1.0, "Compression.ratio", c.ratio, "must be in (0, 1]");
    require(c.convergence_penalty >= 1.0, "Compression.convergence_penalty", c.convergence_penalty,
                    "must be at least 1 (more steps, never fewer)");
    return c;
}

/// Example gradient compressions: the communication lab's set (lab-communication-at-scale.py, Part D), its
/// ratios and its assumed convergence penalties. Illustrative figures, not measurements.
namespace compression_examples {
inline constexpr Compression none{"none", 1.0, 1.0};                  ///< uncompressed: every byte, no extra steps
inline constexpr Compression fp16{"FP16 (2x)", 0.5, 1.05};            ///< half the bytes, 5% more steps
inline constexpr Compression int8{"INT8 (4x)", 0.25, 1.15};           ///< a quarter of the bytes, 15% more steps
inline constexpr Compression top_k_1_percent{"Top-K 1%", 0.01, 1.3};  ///< 1% of the bytes, 30% more steps
inline constexpr Compression one_bit{"1-bit", 0.03125, 1.5};          ///< 1/32 of the bytes, 50% more steps
inline constexpr std::array all{&none, &fp16, &int8, &top_k_1_percent, &one_bit};  ///< the five examples above
}  // namespace compression_examples

/// The lab's name for compression_examples; it keeps working.
namespace lab_compression = compression_examples;

/// Total training time after ÷ before: penalty · step_after / step_before (< 1: compression pays).
[[nodiscard]] constexpr double training_time_ratio(const StepTime& before, const StepTime& after,
                                                   double convergence_penalty) {
    require(convergence_penalty >= 1.0, "convergence_penalty", convergence_penalty, "must be at least 1");
    require_positive("step time before (s)", before.total().value());
    return convergence_penalty * ratio(after.total(), before.total());
}

/// The whole comparison for one all-reduce of `gradients` bytes per step: the
/// compressed bytes go through the same collective (so its latency terms do
/// not shrink), the step pays the rest, and the run pays the extra steps.
template <CollectivePolicy Policy>
[[nodiscard]] constexpr double compression_time_ratio(Bytes gradients, const Compression& compression,
                                                      long long ranks, const Link& link, const Policy& policy,
                                                      Seconds compute) {
    (void)validated(compression);
    const StepTime before = step_time(compute, policy.all_reduce(gradients, ranks, link).total());
    const StepTime after = step_time(compute, policy.all_reduce(compression.ratio * gradients, ranks, link).total());
    return training_time_ratio(before, after, compression.convergence_penalty);
}

// ---------------------------------------------------------------------------
// The communication budget of one data-parallel step (the lab's Part E): start
// from a flat ring over every GPU, one all-reduce call per gradient tensor,
// and stack optimizations.
namespace optimization {
inline constexpr unsigned hierarchical = 1u;    ///< the hierarchical all-reduce instead of the flat ring
inline constexpr unsigned half_precision = 2u;  ///< gradients in `reduced_gradients` instead of `gradients`
inline constexpr unsigned bucket_fusion = 4u;   ///< one call per bucket instead of one per tensor
inline constexpr unsigned overlap = 8u;         ///< a share of the communication hides under the backward pass
inline constexpr unsigned all = 15u;            ///< all four flags
}  // namespace optimization

/// The flags set in `optimizations`, named and joined by " + "; "none" for no flag.
[[nodiscard]] inline std::string describe_optimizations(unsigned optimizations) {
    if (optimizations == 0) return "none";
    std::string text;
    const auto add = [&](unsigned bit, const char* name) {
        if (optimizations & bit) text += (text.empty() ? "" : " + ") + std::string(name);
    };
    add(optimization::hierarchical, "hierarchical");
    add(optimization::half_precision, "half-precision gradients");
    add(optimization::bucket_fusion, "bucket fusion");
    add(optimization::overlap, "overlap");
    return text;
}

/// One data-parallel step's gradient synchronisation: the gradients, their bucketing, the topology
/// and the compute the communication may hide under.
struct CommunicationPlan {
    long long parameters = 1;
    DType gradients = DType::fp32;
    DType reduced_gradients = DType::bf16;
    long long tensors = 1;                  // gradient tensors (weights and norms)
    Bytes bucket = megabytes(25);           // PyTorch DDP's default bucket_cap_mb = 25
    HierarchicalTopology topology{};        // nodes × g GPUs; the flat ring runs over topology.inter
    Seconds compute{};                      // one step's compute
    Seconds backward{};                     // the part of it the communication can hide under
    double overlap_efficiency = 0.0;        // η
    Seconds base_latency{};                 // paid once per call
};

/// One step under a stack of optimizations. The flat ring runs over all N·g
/// GPUs on the inter-node link at full NIC bandwidth: a ring laid out node by
/// node crosses each node boundary with one flow, so neither a shared NIC nor
/// an r:1 fabric with r ≤ g (which still gives a node g/r ≥ 1 NICs' worth) slows it.
[[nodiscard]] constexpr StepTime plan_step(const CommunicationPlan& plan, unsigned optimizations) {
    require(optimizations <= optimization::all, "optimizations", count(optimizations),
                    "must be a combination of the four Optimization flags");
    (void)validated(plan.topology);
    const Bytes gradients =
        gradient_bytes(plan.parameters,
                       optimizations & optimization::half_precision ? plan.reduced_gradients : plan.gradients);
    const long long calls =
        optimizations & optimization::bucket_fusion ? fused_calls(gradients, plan.tensors, plan.bucket) : plan.tensors;
    const CollectiveTime communication =
        optimizations & optimization::hierarchical
            ? split_all_reduce(gradients, calls, ranks(plan.topology), plan.topology.intra,
                              Hierarchical{plan.topology.gpus_per_node, plan.topology.inter, plan.topology.nic,
                                           plan.topology.oversubscription, plan.base_latency})
            : split_all_reduce(gradients, calls, ranks(plan.topology), plan.topology.inter, Ring{plan.base_latency});
    return step_time(plan.compute, communication.total(), plan.backward,
                     optimizations & optimization::overlap ? plan.overlap_efficiency : 0.0);
}

/// A stack of optimizations (a set of `optimization` flags) and the step it gives.
struct OptimizationStack {
    unsigned optimizations;
    StepTime step;
    [[nodiscard]] int size() const { return std::popcount(optimizations); }
};

/// All 16 stacks, fewest optimizations first, then the lowest share.
[[nodiscard]] inline std::vector<OptimizationStack> optimization_stacks(const CommunicationPlan& plan) {
    std::vector<OptimizationStack> stacks;
    for (unsigned o = 0; o <= optimization::all; ++o) stacks.push_back({o, plan_step(plan, o)});
    std::stable_sort(stacks.begin(), stacks.end(), [](const OptimizationStack& a, const OptimizationStack& b) {
        if (a.size() != b.size()) return a.size() < b.size();
        return a.step.communication_share() < b.step.communication_share();
    });
    return stacks;
}

/// The smallest stack bringing the communication share under `target` (the lab's
/// 0.2); the one with the lowest share among equally small ones. None if even all
/// four do not.
[[nodiscard]] inline std::optional<OptimizationStack> smallest_stack_under(const CommunicationPlan& plan,
                                                                           double target) {
    require(target > 0.0 && target < 1.0, "target share", target, "must be in (0, 1)");
    for (const OptimizationStack& s : optimization_stacks(plan))
        if (s.step.communication_share() < target) return s;
    return std::nullopt;
}

/// deprecated-aliases:begin — the 0.1 spelling, kept for one version (CHANGELOG 0.2.0).
template <CollectivePolicy Policy>
[[deprecated("use split_all_reduce")]] [[nodiscard]] constexpr CollectiveTime split_allreduce(
    Bytes gradients, long long calls, long long ranks, const Link& link, const Policy& policy) {
    return split_all_reduce(gradients, calls, ranks, link, policy);
}
// deprecated-aliases:end

}  // namespace napkin
