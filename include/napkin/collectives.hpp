// SPDX-License-Identifier: MIT
// napkin/collectives.hpp — collective communication in the alpha-beta model.
//
// Conventions: n ranks, message M, link bandwidth B (what one rank sends per
// second in ONE direction, at the same time as it receives at B: data sheets
// that add both directions, like NVLink's 600/900 GB/s, count twice that),
// step latency α paid by every step of the algorithm, and a base latency paid
// once per call (NCCL's launch and synchronisation cost). Every result keeps
// its latency and bandwidth terms apart, so a caller can see which one
// dominates. Every collective costs nothing on one rank.
//
// The formulas (Thakur, Rabenseifner & Gropp, "Optimization of Collective
// Communication Operations in MPICH", IJHPCA 2005; Patarasuk & Yuan 2009; the
// communication lab in the shared reference, lab-communication-at-scale.py):
//   ring all-reduce      base + 2(n−1)·α + 2(n−1)/n · M/B
//   tree all-reduce      base + 2⌈log₂ n⌉·(α + M/B)     (binary tree, reduce then
//                                                         broadcast, not pipelined)
//   reduce-scatter       base + (n−1)·α + (n−1)/n · M/B  (M: the full buffer)
//   all-gather           base + (n−1)·α + (n−1)/n · M/B  (M: the full buffer)
//   all-to-all           base + (n−1)·α + (n−1)/n · M/B  (M: one rank's buffer)
//   broadcast            base + (n−1)·α + M/B            (pipelined chain)
//   point-to-point       base + α + M/B
//   hierarchical         reduce-scatter inside the node + ring all-reduce of M/g
//                        across nodes + all-gather inside the node
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/names.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <limits>
#include <optional>
#include <string_view>

namespace napkin {

/// A collective's time with its latency and bandwidth terms apart, so a caller can see which
/// dominates.
struct CollectiveTime {
    Seconds latency;    // base + steps × α
    Seconds bandwidth;  // bytes on the wire ÷ B
    [[nodiscard]] constexpr Seconds total() const { return latency + bandwidth; }
    // The bandwidth term's share of the total (0 when the total is zero).
    [[nodiscard]] constexpr double bandwidth_share() const {
        return total().value() == 0.0 ? 0.0 : ratio(bandwidth, total());
    }
};

/// Phases of one algorithm add up; k identical calls cost k times one call.
[[nodiscard]] constexpr CollectiveTime operator+(const CollectiveTime& a, const CollectiveTime& b) {
    return {a.latency + b.latency, a.bandwidth + b.bandwidth};
}
/// k identical calls: k times the latency and k times the bandwidth term.
[[nodiscard]] constexpr CollectiveTime operator*(double k, const CollectiveTime& t) {
    return {k * t.latency, k * t.bandwidth};
}

namespace detail {
[[gnu::cold, gnu::noinline]] constexpr void name_collective_fault(Bytes message, long long ranks, const Link& link,
                                                                   Seconds base_latency) {
    require_non_negative("message (bytes)", message.value());
    require(message.value() <= limits::message_bytes, "message (bytes)", message.value(), "must be at most 1e18 bytes");
    require_count("ranks", ranks, limits::gpus);
    (void)validated(link);
    require_non_negative("base_latency (s)", base_latency.value());
}
/// A message of 0 or [DBL_MIN, 1e18] bytes: what the checks above pass.
[[nodiscard]] constexpr bool usual_message(double bytes) {
    return bytes == 0.0 || within(bytes, std::numeric_limits<double>::min(), limits::message_bytes);
}
/// Every check above in one branch for the usual call (zero or a normal size
/// and latency, ranks in range, a valid link); the naming checks run only on a fault.
constexpr void check_collective(Bytes message, long long ranks, const Link& link, Seconds base_latency) {
    const double m = message.value(), base = base_latency.value();
    // One test per argument, so a loop over messages tests the link, ranks and base once.
    if (!(ranks >= 1 && ranks <= limits::gpus && usual_link(link) &&
          usual_non_negative(base))) [[unlikely]]
        name_collective_fault(message, ranks, link, base_latency);
    if (!usual_message(m)) [[unlikely]]
        name_collective_fault(message, ranks, link, base_latency);
}

/// ⌈log₂ n⌉ for n ≥ 1: the depth of a binary tree over n ranks.
[[nodiscard]] constexpr long long ceil_log2(long long n) {
    // The bit width of n − 1: no loop, no doubling that could overflow.
    return n <= 1 ? 0 : 64 - __builtin_clzll(static_cast<unsigned long long>(n - 1));
}

/// The shared shape of the one-pass collectives: base + steps·α + share · M/B.
[[nodiscard]] constexpr CollectiveTime alpha_beta(double steps, double share, Bytes message, const Link& link,
                                                  Seconds base_latency) {
    return {base_latency + steps * link.step_latency, share * (message / link.bandwidth)};
}

/// The ring all-reduce's formula for inputs already checked (a caller that validated its topology once).
[[nodiscard]] constexpr CollectiveTime ring_all_reduce_of(Bytes message, long long ranks, const Link& link,
                                                          Seconds base_latency) {
    if (ranks == 1) return {};
    const double steps = 2.0 * count(ranks - 1);
    return {base_latency + steps * link.step_latency, steps / count(ranks) * (message / link.bandwidth)};
}
}  // namespace detail

/// Ring all-reduce (Patarasuk & Yuan 2009; NCCL tests doc/PERFORMANCE.md):
/// 2(n−1) steps, each rank sends 2(n−1)/n · M. Zero on one rank.
///   T = base + 2(n−1)·α + 2(n−1)/n · M/B
[[nodiscard]] constexpr CollectiveTime ring_all_reduce(Bytes message, long long ranks, const Link& link,
                                                      Seconds base_latency = Seconds{}) {
    detail::check_collective(message, ranks, link, base_latency);
    return detail::ring_all_reduce_of(message, ranks, link, base_latency);
}

/// Tree all-reduce as the communication lab defines it: reduce up a binary tree,
/// then broadcast down it, each of the 2⌈log₂ n⌉ levels sending the whole
/// message (no pipelining).
///   T = base + 2⌈log₂ n⌉ · (α + M/B)
[[nodiscard]] constexpr CollectiveTime tree_all_reduce(Bytes message, long long ranks, const Link& link,
                                                      Seconds base_latency = Seconds{}) {
    detail::check_collective(message, ranks, link, base_latency);
    if (ranks == 1) return {};
    const double levels = 2.0 * count(detail::ceil_log2(ranks));
    return detail::alpha_beta(levels, levels, message, link, base_latency);
}

namespace detail {
/// n − 1 ring steps that each move 1/n of the buffer: the shape reduce-scatter,
/// all-gather and all-to-all share. T = base + (n−1)·α + (n−1)/n · M/B.
[[nodiscard]] constexpr CollectiveTime ring_pass_of(Bytes buffer, long long ranks, const Link& link,
                                                    Seconds base_latency) {
    if (ranks == 1) return {};
    const double steps = count(ranks - 1);
    return alpha_beta(steps, steps / count(ranks), buffer, link, base_latency);
}
/// The same with its inputs checked.
[[nodiscard]] constexpr CollectiveTime ring_pass(Bytes buffer, long long ranks, const Link& link,
                                                 Seconds base_latency) {
    check_collective(buffer, ranks, link, base_latency);
    return ring_pass_of(buffer, ranks, link, base_latency);
}
}  // namespace detail

/// Ring reduce-scatter of a buffer of M bytes (each rank ends with M/n of the
/// sum): n−1 steps of M/n each (Thakur et al. 2005, Sec. 4.5).
///   T = base + (n−1)·α + (n−1)/n · M/B
[[nodiscard]] constexpr CollectiveTime reduce_scatter(Bytes full_buffer, long long ranks, const Link& link,
                                                      Seconds base_latency = Seconds{}) {
    return detail::ring_pass(full_buffer, ranks, link, base_latency);
}

/// Ring all-gather into a buffer of M bytes (each rank starts with M/n): the
/// reduce-scatter run backwards, same cost (Thakur et al. 2005, Sec. 4.1).
///   T = base + (n−1)·α + (n−1)/n · M/B
[[nodiscard]] constexpr CollectiveTime all_gather(Bytes full_buffer, long long ranks, const Link& link,
                                                  Seconds base_latency = Seconds{}) {
    return detail::ring_pass(full_buffer, ranks, link, base_latency);
}

/// All-to-all of M bytes per rank: each rank keeps 1/n and sends (n−1)/n of its
/// buffer, in n−1 pairwise-exchange steps (Thakur et al. 2005, Sec. 4.6;
/// nccl-tests PERFORMANCE.md gives it the bus factor (n−1)/n).
///   T = base + (n−1)·α + (n−1)/n · M/B
[[nodiscard]] constexpr CollectiveTime all_to_all(Bytes per_rank_buffer, long long ranks, const Link& link,
                                                  Seconds base_latency = Seconds{}) {
    return detail::ring_pass(per_rank_buffer, ranks, link, base_latency);
}

/// Broadcast of M bytes as NCCL runs it: a pipelined chain of n−1 hops, so the
/// latency grows with the hops and every rank receives M once at B (the bus
/// factor 1 of nccl-tests PERFORMANCE.md). Pipelining chunks is neglected.
///   T = base + (n−1)·α + M/B
[[nodiscard]] constexpr CollectiveTime broadcast(Bytes message, long long ranks, const Link& link,
                                                 Seconds base_latency = Seconds{}) {
    detail::check_collective(message, ranks, link, base_latency);
    if (ranks == 1) return {};
    return detail::alpha_beta(count(ranks - 1), 1.0, message, link, base_latency);
}

/// One message from one rank to another: T = base + α + M/B.
[[nodiscard]] constexpr CollectiveTime point_to_point(Bytes message, const Link& link,
                                                      Seconds base_latency = Seconds{}) {
    detail::check_collective(message, 2, link, base_latency);
    return {base_latency + link.step_latency, message / link.bandwidth};
}

// ---------------------------------------------------------------------------
// Ring or tree: the crossover message size.
//
// Both costs are linear in M (the base latency is paid by both and cancels):
//   ring(M) = 2(n−1)·α + 2(n−1)/n · M/B,   tree(M) = 2L·α + 2L · M/B,  L = ⌈log₂ n⌉.
// They are equal at
//   M* = α·B · (n−1−L) / (L − (n−1)/n).
// L ≥ 1 > (n−1)/n for n ≥ 2, so the tree always pays more per byte; it wins
// below M* when it has fewer latency steps (n−1 > L, n ≥ 4) and α > 0. There is
// no crossover (the ring always wins, or they tie on one rank) otherwise.
// (The large-n approximation M* ≈ n·α·B / log₂ n is not used.)
/// The message size M* below which the tree all-reduce beats the ring (the formula above); none
/// when the ring always wins or they tie.
[[nodiscard]] constexpr std::optional<Bytes> ring_tree_crossover(long long ranks, const Link& link,
                                                                 Seconds base_latency = Seconds{}) {
    detail::check_collective(Bytes{}, ranks, link, base_latency);
    const double levels = count(detail::ceil_log2(ranks));
    const double extra_ring_steps = count(ranks - 1) - levels;
    if (ranks < 2 || extra_ring_steps <= 0.0 || link.step_latency.value() <= 0.0) return std::nullopt;
    return link.step_latency * link.bandwidth * (extra_ring_steps / (levels - count(ranks - 1) / count(ranks)));
}

// ---------------------------------------------------------------------------
// Hierarchical all-reduce over nodes × g GPUs.
//
// How a node reaches the network (`Nic`, hardware.hpp): one NIC per GPU, or one
// shared by its g GPUs (each gets 1/g of it). An oversubscribed fabric (r:1)
// divides it by r.

/// N nodes of g GPUs: the link inside a node, the NIC link between nodes, how a node's NICs are
/// shared and the fabric's r:1 oversubscription.
struct HierarchicalTopology {
    long long nodes = 1;
    long long gpus_per_node = 1;
    Link intra;                     // GPU to GPU inside a node (NVLink)
    Link inter;                     // node to node (InfiniBand), per NIC
    Nic nic = Nic::per_gpu;
    double oversubscription = 1.0;  // r in r:1; 1 is full bisection bandwidth
};

namespace detail {
/// validated(HierarchicalTopology)'s checks one by one, naming the first field that fails.
[[gnu::cold, gnu::noinline]] constexpr void name_topology_fault(const HierarchicalTopology& t) {
    require_count("HierarchicalTopology.nodes", t.nodes, limits::gpus);
    require_count("HierarchicalTopology.gpus_per_node", t.gpus_per_node, limits::gpus);
    require(checked_mul(t.nodes, t.gpus_per_node, "HierarchicalTopology GPUs (nodes × gpus_per_node)") <=
                limits::gpus,
            "HierarchicalTopology GPUs (nodes × gpus_per_node)", count(t.nodes) * count(t.gpus_per_node),
            "must be at most 2^40");
    require_positive("HierarchicalTopology.intra.bandwidth (bytes/s)", t.intra.bandwidth.value());
    require_non_negative("HierarchicalTopology.intra.step_latency (s)", t.intra.step_latency.value());
    require_positive("HierarchicalTopology.inter.bandwidth (bytes/s)", t.inter.bandwidth.value());
    require_non_negative("HierarchicalTopology.inter.step_latency (s)", t.inter.step_latency.value());
    (void)validated(t.intra);  // the physical ranges of a link
    (void)validated(t.inter);
    require(t.oversubscription >= 1.0, "HierarchicalTopology.oversubscription", t.oversubscription,
                    "must be at least 1 (r in r:1)");
    require(t.oversubscription <= 1e6, "HierarchicalTopology.oversubscription", t.oversubscription,
            "must be at most 1e6");
}
}  // namespace detail

/// The topology unchanged when its counts (at most 2^40 GPUs), both links and its oversubscription
/// (in [1, 1e6]) are in range; otherwise rejects it, naming the field. The usual topology passes in one
/// branch (its GPU count formed without wrapping); the checks that name what is wrong run only on a fault.
[[nodiscard]] constexpr const HierarchicalTopology& validated(const HierarchicalTopology& t) {
    long long gpus = 0;
    if (!(t.nodes >= 1 && t.gpus_per_node >= 1 && !__builtin_mul_overflow(t.nodes, t.gpus_per_node, &gpus) &&
          gpus <= limits::gpus && detail::usual_link(t.intra) && detail::usual_link(t.inter) &&
          within(t.oversubscription, 1.0, 1e6))) [[unlikely]]
        detail::name_topology_fault(t);
    return t;
}

/// The topology's ranks: nodes × GPUs per node.
[[nodiscard]] constexpr long long ranks(const HierarchicalTopology& t) { return t.nodes * t.gpus_per_node; }

/// The link one GPU's inter-node ring runs on: the NIC bandwidth, shared by the
/// g GPUs of a node when they share one NIC, divided by the oversubscription.
[[nodiscard]] constexpr Link inter_node_link(const HierarchicalTopology& t) {
    const double sharers = t.nic == Nic::per_node ? count(t.gpus_per_node) : 1.0;
    return {t.inter.name, t.inter.bandwidth / (sharers * t.oversubscription), t.inter.step_latency};
}

namespace detail {
/// check_message's checks one by one, naming the fault (out of line: a usual message never runs them).
[[gnu::cold, gnu::noinline]] constexpr void name_message_fault(Bytes message) {
    require_non_negative("message (bytes)", message.value());
    require(message.value() <= limits::message_bytes, "message (bytes)", message.value(), "must be at most 1e18 bytes");
}
/// A message of 0 or [DBL_MIN, 1e18] bytes, in one branch.
constexpr void check_message(Bytes message) {
    if (!usual_message(message.value())) [[unlikely]]
        name_message_fault(message);
}
/// The hierarchical collectives below for a topology and base latency already checked (a caller that
/// built the topology from a checked cluster prices many messages on it); the message is checked here,
/// once, and the phases are priced without checking again.
[[nodiscard]] constexpr CollectiveTime hierarchical_all_reduce_of(Bytes message, const HierarchicalTopology& topology,
                                                                  Seconds base_latency) {
    check_message(message);
    const long long g = topology.gpus_per_node;
    if (ranks(topology) == 1) return {};
    return CollectiveTime{base_latency, {}} + ring_pass_of(message, g, topology.intra, {}) +
           ring_all_reduce_of(message / count(g), topology.nodes, inter_node_link(topology), {}) +
           ring_pass_of(message, g, topology.intra, {});
}
[[nodiscard]] constexpr CollectiveTime hierarchical_reduce_scatter_of(Bytes full_buffer,
                                                                      const HierarchicalTopology& topology,
                                                                      Seconds base_latency) {
    check_message(full_buffer);
    if (ranks(topology) == 1) return {};
    return CollectiveTime{base_latency, {}} + ring_pass_of(full_buffer, topology.gpus_per_node, topology.intra, {}) +
           ring_pass_of(full_buffer / count(topology.gpus_per_node), topology.nodes, inter_node_link(topology), {});
}
[[nodiscard]] constexpr CollectiveTime hierarchical_all_gather_of(Bytes full_buffer,
                                                                  const HierarchicalTopology& topology,
                                                                  Seconds base_latency) {
    check_message(full_buffer);
    if (ranks(topology) == 1) return {};
    return CollectiveTime{base_latency, {}} +
           ring_pass_of(full_buffer / count(topology.gpus_per_node), topology.nodes, inter_node_link(topology), {}) +
           ring_pass_of(full_buffer, topology.gpus_per_node, topology.intra, {});
}
}  // namespace detail

/// The textbook hierarchical all-reduce (NCCL's tree and "2D" algorithms;
/// Jia et al., "Highly Scalable Deep Learning Training System with Mixed-Precision",
/// 2018, Sec. 4.3): reduce-scatter M inside each node, ring all-reduce of the
/// M/g shards across the nodes (g rings at once, one per GPU position),
/// all-gather M inside each node. The base latency is paid once.
///   T = base + 2(g−1)·α_i + 2(g−1)/g · M/B_i + 2(N−1)·α_e + 2(N−1)/N · (M/g)/B_e'
/// with B_e' = B_e / r per GPU NIC, B_e / (g·r) with one NIC per node.
/// On one node it is the ring inside the node; with g = 1 it is the ring across nodes.
[[nodiscard]] constexpr CollectiveTime hierarchical_all_reduce(Bytes message, const HierarchicalTopology& topology,
                                                              Seconds base_latency = Seconds{}) {
    (void)validated(topology);
    detail::check_message(message);
    require_non_negative("base_latency (s)", base_latency.value());
    return detail::hierarchical_all_reduce_of(message, topology, base_latency);
}

/// The communication lab's hierarchical formula (shared reference
/// lab-communication-at-scale.py, Part C, as the reference notes describe it):
/// a full ring all-reduce of M inside the node, then a ring all-reduce of M/g
/// across the nodes at the NIC bandwidth divided by the oversubscription.
///   T_lab = 2(g−1)·α_i + 2(g−1)/g · M/B_i + 2(N−1)·α_e + 2(N−1)/N · (M/g)/(B_e/r)
/// How it differs from the textbook algorithm above:
///  - In the alpha-beta model a reduce-scatter plus an all-gather cost exactly one
///    ring all-reduce, so with one NIC per GPU the two agree to the last term
///    (difference zero); the lab's order is the one that does not compute the
///    result, though: after a full all-reduce inside and an all-reduce of only
///    1/g across, each GPU holds the global sum of its own shard, and it still
///    needs an all-gather inside, (g−1)·α_i + (g−1)/g · M/B_i more (for 140 GB,
///    8 GPUs at 900 GB/s: 0.136 s on top of the lab's 0.885 s).
///  - The lab never shares a NIC: with one NIC per node its inter-node term is g
///    times too small.
[[nodiscard]] constexpr CollectiveTime all_reduce_inside_then_shard_across(Bytes message,
                                                                           const HierarchicalTopology& topology) {
    (void)validated(topology);
    require_non_negative("message (bytes)", message.value());
    require(message.value() <= limits::message_bytes, "message (bytes)", message.value(), "must be at most 1e18 bytes");
    const Link inter{topology.inter.name, topology.inter.bandwidth / topology.oversubscription,
                     topology.inter.step_latency};
    return ring_all_reduce(message, topology.gpus_per_node, topology.intra) +
           ring_all_reduce(message / count(topology.gpus_per_node), topology.nodes, inter);
}

/// The communication lab's name for all_reduce_inside_then_shard_across; it keeps working.
[[nodiscard]] constexpr CollectiveTime lab_hierarchical_all_reduce(Bytes message, const HierarchicalTopology& topology) {
    return all_reduce_inside_then_shard_across(message, topology);
}

/// Hierarchical reduce-scatter and all-gather (the halves of the algorithm above,
/// each with a second, inter-node phase over the M/g shards).
[[nodiscard]] constexpr CollectiveTime hierarchical_reduce_scatter(Bytes full_buffer,
                                                                   const HierarchicalTopology& topology,
                                                                   Seconds base_latency = Seconds{}) {
    (void)validated(topology);
    require_non_negative("base_latency (s)", base_latency.value());
    return detail::hierarchical_reduce_scatter_of(full_buffer, topology, base_latency);
}
/// The hierarchical all-gather: across the nodes over the M/g shards, then inside each node.
[[nodiscard]] constexpr CollectiveTime hierarchical_all_gather(Bytes full_buffer, const HierarchicalTopology& topology,
                                                               Seconds base_latency = Seconds{}) {
    (void)validated(topology);
    require_non_negative("base_latency (s)", base_latency.value());
    return detail::hierarchical_all_gather_of(full_buffer, topology, base_latency);
}

// ---------------------------------------------------------------------------
// Collectives by name, with nccl-tests' bus-bandwidth factors.

/// The collectives the ring model prices by name.
enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, broadcast };

/// Each collective's name, for printing and parsing (e.g. "all-reduce").
inline constexpr std::array collective_names{Named{Collective::all_reduce, "all-reduce"},
                                            Named{Collective::reduce_scatter, "reduce-scatter"},
                                            Named{Collective::all_gather, "all-gather"},
                                            Named{Collective::all_to_all, "all-to-all"},
                                            Named{Collective::broadcast, "broadcast"}};
/// The collective's name, e.g. "reduce-scatter".
[[nodiscard]] constexpr std::string_view to_string(Collective op) { return name_of(op, collective_names); }
/// The collective `text` names, if any.
[[nodiscard]] constexpr std::optional<Collective> parse_collective(std::string_view text) {
    return value_of(text, collective_names);
}

/// The ring algorithm for `op`: the time as above.
[[nodiscard]] constexpr CollectiveTime collective_time(Collective op, Bytes message, long long ranks,
                                                       const Link& link, Seconds base_latency = Seconds{}) {
    switch (op) {
        case Collective::all_reduce: return ring_all_reduce(message, ranks, link, base_latency);
        case Collective::reduce_scatter: return reduce_scatter(message, ranks, link, base_latency);
        case Collective::all_gather: return all_gather(message, ranks, link, base_latency);
        case Collective::all_to_all: return all_to_all(message, ranks, link, base_latency);
        case Collective::broadcast: return broadcast(message, ranks, link, base_latency);
    }
    return {};
}

/// The steps (α terms) of the ring algorithm for `op` on n ranks.
[[nodiscard]] constexpr double latency_steps(Collective op, long long ranks) {
    require_at_least_one("ranks", ranks);
    return (op == Collective::all_reduce ? 2.0 : 1.0) * count(ranks - 1);
}

/// nccl-tests doc/PERFORMANCE.md: busbw = algbw × factor, with algbw = S / t and
/// factor 2(n−1)/n for all-reduce, (n−1)/n for reduce-scatter, all-gather and
/// all-to-all, 1 for broadcast. It is also the share of S each rank sends, the
/// factor in front of M/B above.
[[nodiscard]] constexpr double bus_bandwidth_factor(Collective op, long long ranks) {
    require_at_least_one("ranks", ranks);
    const double n = count(ranks);
    switch (op) {
        case Collective::all_reduce: return 2.0 * (n - 1.0) / n;
        case Collective::broadcast: return 1.0;
        default: return (n - 1.0) / n;
    }
}

/// nccl-tests' algorithm bandwidth: algbw = S / t, in bytes/s (t must be positive).
[[nodiscard]] constexpr BytesPerSecond algorithm_bandwidth(Bytes size, Seconds time) {
    require_positive("time (s)", time.value());
    return size / time;
}
/// nccl-tests' bus bandwidth: busbw = algbw × the op's factor on n ranks.
[[nodiscard]] constexpr BytesPerSecond bus_bandwidth(Collective op, long long ranks, Bytes size, Seconds time) {
    return bus_bandwidth_factor(op, ranks) * algorithm_bandwidth(size, time);
}

/// One measured time of a collective (from nccl-tests or a profiler): what the
/// calibration in napkin/calibrate.hpp fits α and B to.
struct CollectiveSample {
    Collective op = Collective::all_reduce;
    long long ranks = 2;
    Bytes message;
    Seconds time;
};

// ---------------------------------------------------------------------------
// Policies: the composite models (the inference split, the training step) are
// templates over the collective algorithm, so a lesson can swap the ring for
// another algorithm in one word.
/// A collective algorithm the composite models can take: an all-reduce and a point-to-point, each
/// giving a CollectiveTime.
template <class P>
concept CollectivePolicy = requires(const P& policy, Bytes message, long long ranks, const Link& link) {
    { policy.all_reduce(message, ranks, link) } -> std::same_as<CollectiveTime>;
    { policy.point_to_point(message, link) } -> std::same_as<CollectiveTime>;
};

/// A policy that also shards: reduce-scatter and all-gather of a full buffer
/// (ZeRO and FSDP models need them). Every policy below is one.
template <class P>
concept ShardingCollectivePolicy =
    CollectivePolicy<P> && requires(const P& policy, Bytes buffer, long long ranks, const Link& link) {
        { policy.reduce_scatter(buffer, ranks, link) } -> std::same_as<CollectiveTime>;
        { policy.all_gather(buffer, ranks, link) } -> std::same_as<CollectiveTime>;
    };

/// The ring with an NCCL-style base latency per call.
struct Ring {
    Seconds base_latency{};
    [[nodiscard]] constexpr CollectiveTime all_reduce(Bytes message, long long ranks, const Link& link) const {
        return ring_all_reduce(message, ranks, link, base_latency);
    }
    [[nodiscard]] constexpr CollectiveTime reduce_scatter(Bytes buffer, long long ranks, const Link& link) const {
        return napkin::reduce_scatter(buffer, ranks, link, base_latency);
    }
    [[nodiscard]] constexpr CollectiveTime all_gather(Bytes buffer, long long ranks, const Link& link) const {
        return napkin::all_gather(buffer, ranks, link, base_latency);
    }
    [[nodiscard]] constexpr CollectiveTime point_to_point(Bytes message, const Link& link) const {
        return napkin::point_to_point(message, link, base_latency);
    }
};
static_assert(ShardingCollectivePolicy<Ring>);

/// The lab's binary tree for the all-reduce. There is no tree reduce-scatter or
/// all-gather (NCCL runs those as rings), so those, and the point-to-point, are
/// the ring's.
struct Tree : Ring {
    [[nodiscard]] constexpr CollectiveTime all_reduce(Bytes message, long long ranks, const Link& link) const {
        return tree_all_reduce(message, ranks, link, base_latency);
    }
};
static_assert(ShardingCollectivePolicy<Tree>);

/// The hierarchical algorithm as a policy. The link a model passes in is the
/// link inside a node; the inter-node link, the NIC arrangement and the
/// oversubscription are the policy's. Up to g ranks fit in one node (a ring on
/// the intra-node link); more must be a whole number of nodes.
struct Hierarchical {
    long long gpus_per_node = 8;
    Link inter{};
    Nic nic = Nic::per_gpu;
    double oversubscription = 1.0;
    Seconds base_latency{};

    [[nodiscard]] constexpr HierarchicalTopology topology(long long ranks, const Link& intra) const {
        require_at_least_one("ranks", ranks);
        require_at_least_one("Hierarchical.gpus_per_node", gpus_per_node);
        if (ranks <= gpus_per_node) return {1, ranks, intra, inter, nic, oversubscription};
        require(ranks % gpus_per_node == 0, "ranks", count(ranks),
                        "must be a multiple of Hierarchical.gpus_per_node beyond one node");
        return {ranks / gpus_per_node, gpus_per_node, intra, inter, nic, oversubscription};
    }
    [[nodiscard]] constexpr CollectiveTime all_reduce(Bytes message, long long ranks, const Link& intra) const {
        return hierarchical_all_reduce(message, topology(ranks, intra), base_latency);
    }
    [[nodiscard]] constexpr CollectiveTime reduce_scatter(Bytes buffer, long long ranks, const Link& intra) const {
        return hierarchical_reduce_scatter(buffer, topology(ranks, intra), base_latency);
    }
    [[nodiscard]] constexpr CollectiveTime all_gather(Bytes buffer, long long ranks, const Link& intra) const {
        return hierarchical_all_gather(buffer, topology(ranks, intra), base_latency);
    }
    [[nodiscard]] constexpr CollectiveTime point_to_point(Bytes message, const Link& intra) const {
        return napkin::point_to_point(message, intra, base_latency);
    }
};
static_assert(ShardingCollectivePolicy<Hierarchical>);

// ---------------------------------------------------------------------------
// An NCCL-style model: NCCL picks, per call, the algorithm and protocol its
// tuning model predicts to be fastest (NVIDIA/nccl src/graph/tuning.cc,
// ncclTopoTuneModel and ncclTopoGetAlgoTime, v2.2x). Time = latency + bytes ÷
// algorithm bandwidth, with
//   ring:  latency = baseLat + 2(n−1)·hwLat,     bandwidth term = 2(n−1)/n · M / (e_p·B)
//   tree:  latency = baseLat + 2⌈log₂ n⌉·hwLat,  bandwidth term = M / (0.5 · 0.85 · e_p·B)
// B is the link's bus bandwidth, e_p the protocol's share of it (LL sends 8-byte
// lines half of which are flags: 0.5; LL128 0.92; Simple 1), 0.85 the tree
// pattern's efficiency, 0.5 the tree's algorithm-to-bus-bandwidth ratio. The
// per-hop latency is the table's for the link's transport; the link's own
// step latency is not used. On one link every hop is alike; across nodes
// (the HierarchicalTopology overloads below) NCCL charges the intra- and
// inter-node hops at their own transports' latencies.
/// The algorithms of the NCCL-style model: ring and tree.
enum class NcclAlgorithm { ring, tree };
/// NCCL's protocols: LL, LL128 and Simple.
enum class NcclProtocol { ll, ll128, simple };
/// The transport a hop crosses, which sets its latency in NCCL's tables: NVLink, PCIe or the network.
enum class Transport { nvlink, pcie, network };

/// Each algorithm's name ("ring", "tree").
inline constexpr std::array nccl_algorithm_names{Named{NcclAlgorithm::ring, "ring"}, Named{NcclAlgorithm::tree, "tree"}};
/// Each protocol's name ("LL", "LL128", "Simple").
inline constexpr std::array nccl_protocol_names{Named{NcclProtocol::ll, "LL"}, Named{NcclProtocol::ll128, "LL128"},
                                               Named{NcclProtocol::simple, "Simple"}};
/// Each transport's name, for printing and parsing ("nvlink", "pcie", "network").
inline constexpr std::array transport_names{Named{Transport::nvlink, "nvlink"}, Named{Transport::pcie, "pcie"},
                                           Named{Transport::network, "network"}};
/// The algorithm's name.
[[nodiscard]] constexpr std::string_view to_string(NcclAlgorithm a) { return name_of(a, nccl_algorithm_names); }
/// The protocol's name.
[[nodiscard]] constexpr std::string_view to_string(NcclProtocol p) { return name_of(p, nccl_protocol_names); }
/// The transport's name.
[[nodiscard]] constexpr std::string_view to_string(Transport t) { return name_of(t, transport_names); }
/// The transport `text` names, if any.
[[nodiscard]] constexpr std::optional<Transport> parse_transport(std::string_view text) {
    return value_of(text, transport_names);
}

namespace nccl {
/// Every protocol, in the order ties are broken in (LL, LL128, Simple).
inline constexpr std::array protocols{NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple};
/// Every algorithm, in the order ties are broken in (ring, tree).
inline constexpr std::array algorithms{NcclAlgorithm::ring, NcclAlgorithm::tree};

/// tuning.cc baseLat[algorithm][protocol], µs.
[[nodiscard]] constexpr Seconds base_latency(NcclAlgorithm a, NcclProtocol p) {
    constexpr double us[2][3] = {{6.6, 14.0, 8.4},   // ring: LL, LL128, Simple
                                 {6.8, 14.0, 8.4}};  // tree
    return microseconds(us[static_cast<int>(a)][static_cast<int>(p)]);
}
/// tuning.cc hwLat[transport][algorithm][protocol], µs per hop.
[[nodiscard]] constexpr Seconds hop_latency(Transport t, NcclAlgorithm a, NcclProtocol p) {
    constexpr double us[3][2][3] = {
        {{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}},   // NVLink: ring, tree
        {{1.0, 2.5, 5.7}, {1.0, 1.9, 4.0}},    // PCIe
        {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}},  // network
    };
    return microseconds(us[static_cast<int>(t)][static_cast<int>(a)][static_cast<int>(p)]);
}
/// The share of the bus bandwidth a protocol delivers (tuning.cc: LL 0.5·busBw,
/// LL128 0.92·busBw, Simple busBw).
[[nodiscard]] constexpr double protocol_efficiency(NcclProtocol p) {
    return p == NcclProtocol::ll ? 0.5 : p == NcclProtocol::ll128 ? 0.92 : 1.0;
}
inline constexpr double tree_pattern_efficiency = 0.85;  ///< tuning.cc: tree all-reduce ×0.85
inline constexpr double tree_algorithm_ratio = 0.5;      ///< tuning.cc: algBw = 0.5·busBw for the tree
/// The base latency a ring all-reduce with the low-latency (LL) protocol pays
/// once per call (tuning.cc baseLat); the lesson's and the training step's default.
inline constexpr Seconds ring_ll_base_latency = base_latency(NcclAlgorithm::ring, NcclProtocol::ll);
}  // namespace nccl

// The 0.1 spelling, kept for its callers: catalog::nccl_ring_ll_base_latency
// was napkin/catalog/hardware.hpp's, which as data includes no collective
// (DESIGN.md, rule 2). New code names nccl::ring_ll_base_latency.
namespace catalog {
/// The 0.1 spelling of nccl::ring_ll_base_latency, kept for its callers.
inline constexpr Seconds nccl_ring_ll_base_latency = nccl::ring_ll_base_latency;
}  // namespace catalog

/// The algorithm and protocol the NCCL-style model picks, and the time they give.
struct NcclChoice {
    NcclAlgorithm algorithm;
    NcclProtocol protocol;
    CollectiveTime time;
};

/// The all-reduce time of one algorithm and protocol in the NCCL-style model.
[[nodiscard]] constexpr CollectiveTime nccl_all_reduce(Bytes message, long long ranks, const Link& link,
                                                      Transport transport, NcclAlgorithm algorithm,
                                                      NcclProtocol protocol) {
    detail::check_collective(message, ranks, link, Seconds{});
    if (ranks == 1) return {};
    const Seconds base = nccl::base_latency(algorithm, protocol);
    const Seconds hop = nccl::hop_latency(transport, algorithm, protocol);
    const BytesPerSecond bus = nccl::protocol_efficiency(protocol) * link.bandwidth;
    if (algorithm == NcclAlgorithm::ring) {
        const double steps = 2.0 * count(ranks - 1);
        return {base + steps * hop, steps / count(ranks) * (message / bus)};
    }
    const double levels = 2.0 * count(detail::ceil_log2(ranks));
    return {base + levels * hop,
            message / (nccl::tree_algorithm_ratio * nccl::tree_pattern_efficiency * bus)};
}

/// Across N nodes of g GPUs (tuning.cc, ncclTopoTuneModel): a hop costs the
/// latency of the transport it crosses,
///   ring:  latency = baseLat + (nsteps − nInter)·hwLat_intra + nInter·hwLat_net,
///          nsteps = 2(n − 1), nInter = 2(N − 1)
///   tree:  latency = baseLat + 2·[(g − 1)·hwLat_intra + ⌈log₂ N⌉·hwLat_net]
/// and the bus bandwidth B is the slower of the node's link and one GPU's share
/// of the network (inter_node_link: its NIC, shared and oversubscribed as the
/// topology says), with the same protocol shares and tree factors as above.
/// With one GPU a node it is the single-link model on the network. On one
/// node the ring is the single-link ring; the tree is NCCL's chain through the
/// node's g GPUs (2(g − 1) hops), not the single-link model's binary tree.
[[nodiscard]] constexpr CollectiveTime nccl_all_reduce(Bytes message, const HierarchicalTopology& topology,
                                                      Transport intra_transport, NcclAlgorithm algorithm,
                                                      NcclProtocol protocol) {
    (void)validated(topology);
    require_non_negative("message (bytes)", message.value());
    require(message.value() <= limits::message_bytes, "message (bytes)", message.value(), "must be at most 1e18 bytes");
    const long long n = ranks(topology), g = topology.gpus_per_node, nodes = topology.nodes;
    if (n == 1) return {};
    const Seconds base = nccl::base_latency(algorithm, protocol);
    const Seconds intra_hop = nccl::hop_latency(intra_transport, algorithm, protocol);
    const Seconds network_hop = nccl::hop_latency(Transport::network, algorithm, protocol);
    const BytesPerSecond slowest = nodes == 1 ? topology.intra.bandwidth
                                   : g == 1   ? inter_node_link(topology).bandwidth
                                              : std::min(topology.intra.bandwidth, inter_node_link(topology).bandwidth);
    const BytesPerSecond bus = nccl::protocol_efficiency(protocol) * slowest;
    if (algorithm == NcclAlgorithm::ring) {
        const double steps = 2.0 * count(n - 1), inter_steps = 2.0 * count(nodes - 1);
        return {base + (steps - inter_steps) * intra_hop + inter_steps * network_hop,
                steps / count(n) * (message / bus)};
    }
    return {base + 2.0 * (count(g - 1) * intra_hop + count(detail::ceil_log2(nodes)) * network_hop),
            message / (nccl::tree_algorithm_ratio * nccl::tree_pattern_efficiency * bus)};
}

/// One ring pass of `steps` hops moving `share`·M (reduce-scatter, all-gather),
/// or a single hop (point-to-point), under protocol p.
[[nodiscard]] constexpr CollectiveTime nccl_ring_pass(double steps, double share, Bytes message, const Link& link,
                                                      Transport transport, NcclProtocol protocol) {
    return {nccl::base_latency(NcclAlgorithm::ring, protocol) +
                steps * nccl::hop_latency(transport, NcclAlgorithm::ring, protocol),
            share * (message / (nccl::protocol_efficiency(protocol) * link.bandwidth))};
}

/// The NCCL-style model as a policy: each call takes the fastest algorithm and protocol, its hops
/// priced at `transport`'s latencies.
struct NcclModel {
    Transport transport = Transport::nvlink;

    // The fastest algorithm and protocol for this all-reduce (ties: the first
    // in ring, tree × LL, LL128, Simple order).
    [[nodiscard]] constexpr NcclChoice choose(Bytes message, long long ranks, const Link& link) const {
        return fastest([&](NcclAlgorithm a, NcclProtocol p) {
            return nccl_all_reduce(message, ranks, link, transport, a, p);
        });
    }
    // The same across nodes, `transport` being the one inside a node.
    [[nodiscard]] constexpr NcclChoice choose(Bytes message, const HierarchicalTopology& topology) const {
        return fastest([&](NcclAlgorithm a, NcclProtocol p) {
            return nccl_all_reduce(message, topology, transport, a, p);
        });
    }
    [[nodiscard]] constexpr CollectiveTime all_reduce(Bytes message, long long ranks, const Link& link) const {
        return choose(message, ranks, link).time;
    }
    [[nodiscard]] constexpr CollectiveTime reduce_scatter(Bytes buffer, long long ranks, const Link& link) const {
        return fastest_ring_pass(count(ranks - 1), buffer, ranks, link);
    }
    [[nodiscard]] constexpr CollectiveTime all_gather(Bytes buffer, long long ranks, const Link& link) const {
        return fastest_ring_pass(count(ranks - 1), buffer, ranks, link);
    }
    // One hop, no collective set-up: the fastest protocol's hop latency and bandwidth.
    [[nodiscard]] constexpr CollectiveTime point_to_point(Bytes message, const Link& link) const {
        detail::check_collective(message, 2, link, Seconds{});
        CollectiveTime best{};
        for (NcclProtocol p : nccl::protocols) {
            const CollectiveTime t{nccl::hop_latency(transport, NcclAlgorithm::ring, p),
                                   message / (nccl::protocol_efficiency(p) * link.bandwidth)};
            if (p == NcclProtocol::ll || t.total() < best.total()) best = t;
        }
        return best;
    }

private:
    template <class TimeOf>
    [[nodiscard]] static constexpr NcclChoice fastest(TimeOf time_of) {
        NcclChoice best{NcclAlgorithm::ring, NcclProtocol::ll, time_of(NcclAlgorithm::ring, NcclProtocol::ll)};
        for (NcclAlgorithm a : nccl::algorithms)
            for (NcclProtocol p : nccl::protocols) {
                const CollectiveTime t = time_of(a, p);
                if (t.total() < best.time.total()) best = {a, p, t};
            }
        return best;
    }
    [[nodiscard]] constexpr CollectiveTime fastest_ring_pass(double steps, Bytes buffer, long long ranks,
                                                             const Link& link) const {
        detail::check_collective(buffer, ranks, link, Seconds{});
        if (ranks == 1) return {};
        CollectiveTime best{};
        for (NcclProtocol p : nccl::protocols) {
            const CollectiveTime t = nccl_ring_pass(steps, steps / count(ranks), buffer, link, transport, p);
            if (p == NcclProtocol::ll || t.total() < best.total()) best = t;
        }
        return best;
    }
};
static_assert(ShardingCollectivePolicy<NcclModel>);

// ---------------------------------------------------------------------------
// deprecated-aliases:begin — the 0.1 spellings, kept for one version (CHANGELOG
// 0.2.0): the API spells all_reduce as it spells all_gather and reduce_scatter.
/// Deprecated: the 0.1 spelling of ring_all_reduce.
[[deprecated("use ring_all_reduce")]] [[nodiscard]] constexpr CollectiveTime ring_allreduce(
    Bytes message, long long ranks, const Link& link, Seconds base_latency = Seconds{}) {
    return ring_all_reduce(message, ranks, link, base_latency);
}
/// Deprecated: the 0.1 spelling of tree_all_reduce.
[[deprecated("use tree_all_reduce")]] [[nodiscard]] constexpr CollectiveTime tree_allreduce(
    Bytes message, long long ranks, const Link& link, Seconds base_latency = Seconds{}) {
    return tree_all_reduce(message, ranks, link, base_latency);
}
/// Deprecated: the 0.1 spelling of hierarchical_all_reduce.
[[deprecated("use hierarchical_all_reduce")]] [[nodiscard]] constexpr CollectiveTime hierarchical_allreduce(
    Bytes message, const HierarchicalTopology& topology, Seconds base_latency = Seconds{}) {
    return hierarchical_all_reduce(message, topology, base_latency);
}
/// Deprecated: the 0.1 spelling of all_reduce_inside_then_shard_across.
[[deprecated("use all_reduce_inside_then_shard_across")]] [[nodiscard]] constexpr CollectiveTime lab_hierarchical_allreduce(
    Bytes message, const HierarchicalTopology& topology) {
    return all_reduce_inside_then_shard_across(message, topology);
}
/// Deprecated: the 0.1 spelling of nccl_all_reduce on one link.
[[deprecated("use nccl_all_reduce")]] [[nodiscard]] constexpr CollectiveTime nccl_allreduce(
    Bytes message, long long ranks, const Link& link, Transport transport, NcclAlgorithm algorithm,
    NcclProtocol protocol) {
    return nccl_all_reduce(message, ranks, link, transport, algorithm, protocol);
}
/// Deprecated: the 0.1 spelling of nccl_all_reduce across nodes.
[[deprecated("use nccl_all_reduce")]] [[nodiscard]] constexpr CollectiveTime nccl_allreduce(
    Bytes message, const HierarchicalTopology& topology, Transport intra_transport, NcclAlgorithm algorithm,
    NcclProtocol protocol) {
    return nccl_all_reduce(message, topology, intra_transport, algorithm, protocol);
}
// deprecated-aliases:end

}  // namespace napkin
