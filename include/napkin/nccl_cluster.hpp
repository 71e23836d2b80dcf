// SPDX-License-Identifier: MIT
// napkin/nccl_cluster.hpp — collectives as NCCL runs them on a cluster.
//
// A cluster is N NVLink domains of g GPUs (a server, or an NVL72 rack: the
// domain, not the 4-GPU tray, is the "node" for NVLink), each domain with k
// NICs on a rail-optimised fabric (every NIC index on its own switch, so NCCL
// runs one ring or tree channel per NIC), and an r:1 spine.
//
// Every algorithm is priced as nccl-tests reports it: a latency (NCCL's tuning
// tables, src/graph/tuning.cc) plus the bus-bandwidth factor of the op times
// M over the algorithm's bus bandwidth (nccl-tests doc/PERFORMANCE.md):
//   t = latency + f_op(n) · M / busbw,   busbw = min over the phases it pipelines.
// The phases of one algorithm run at once on their own links (NCCL pipelines
// the intra-domain and the network steps chunk by chunk), so the slowest sets
// the bus bandwidth; the latencies of the phases add.
//
// The per-phase ceilings, in bus-bandwidth units (what busbw would be if that
// phase alone limited it), with B the NVLink bandwidth per GPU and direction,
// K = k·B_nic/r the domain's network bandwidth, η_net the share of line rate the
// network delivers, n = N·g ranks:
//   ring inside a domain   min(B, NCCL's channel ceiling)           (topo.h: links × per-channel bandwidth)
//   ring across domains    η_net · K                                 (one channel per NIC; each crosses once)
//   tree across domains    η_net · K · N/(N−1) · (n−1)/n             (the domain's M/g shard per GPU, up and down)
//   SHARP (CollNet)        2 · η_net · K · (n−1)/n                   (the switch reduces: each shard crosses once)
//   NVLS inside a domain   η_nvls · e_arch · 2(g−1)/(g+1) · B        (NVLink SHARP: each GPU sends M + M/g and
//                                                                     receives as much)
//   NVLS tree across       the NVLS ceiling and the tree's, the network reached through min(g, H) head GPUs
//                          of the domain, each with its k/g NICs
// e_arch is NCCL's NVLS efficiency (tuning.cc: Hopper 0.85, Blackwell 0.74).
// Latencies are NCCL's times λ, the measured over the modelled (launch and
// synchronisation NCCL's tables leave out). η_nvls, η_net, H and λ are fitted
// to published nccl-tests tables (the test tests/unit/nccl_cluster.cpp re-runs
// the fit and checks the constants below). NCCL's tuner does not see the head
// limit: it picks the algorithm as if every GPU of the domain were a head, and
// the run gets H (the GB200 NVL72 tables: NVLS tree at 2 and 20 racks at about
// 10 NICs' worth of bandwidth a 72-GPU rack).
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/names.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <string_view>

namespace napkin {

/// The algorithms NCCL can run (src/include/device.h: NCCL_ALGO_*).
/// p2p: the grouped sends NCCL runs all-to-all and send/recv as.
enum class ClusterAlgorithm { ring, tree, nvls, nvls_tree, collnet, p2p };

/// Each algorithm's name, for printing and parsing ("ring", "tree", "nvls", "nvls-tree", "collnet", "p2p").
inline constexpr std::array cluster_algorithm_names{
    Named{ClusterAlgorithm::ring, "ring"},       Named{ClusterAlgorithm::tree, "tree"},
    Named{ClusterAlgorithm::nvls, "nvls"},       Named{ClusterAlgorithm::nvls_tree, "nvls-tree"},
    Named{ClusterAlgorithm::collnet, "collnet"}, Named{ClusterAlgorithm::p2p, "p2p"}};
/// The algorithm's name, e.g. "nvls-tree".
[[nodiscard]] constexpr std::string_view to_string(ClusterAlgorithm a) { return name_of(a, cluster_algorithm_names); }
/// The algorithm `text` names, if any.
[[nodiscard]] constexpr std::optional<ClusterAlgorithm> parse_cluster_algorithm(std::string_view text) {
    return value_of(text, cluster_algorithm_names);
}

/// The ops nccl-tests measures (all_reduce_perf, …, sendrecv_perf).
enum class ClusterOp { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv };

/// Each op's name, for printing and parsing (e.g. "all-reduce", "send-recv").
inline constexpr std::array cluster_op_names{
    Named{ClusterOp::all_reduce, "all-reduce"},         Named{ClusterOp::all_gather, "all-gather"},
    Named{ClusterOp::reduce_scatter, "reduce-scatter"}, Named{ClusterOp::all_to_all, "all-to-all"},
    Named{ClusterOp::broadcast, "broadcast"},           Named{ClusterOp::send_recv, "send-recv"}};
/// The op's name, e.g. "all-reduce".
[[nodiscard]] constexpr std::string_view to_string(ClusterOp op) { return name_of(op, cluster_op_names); }
/// The op `text` names, if any ("p2p" and "sendrecv" also name send-recv).
[[nodiscard]] constexpr std::optional<ClusterOp> parse_cluster_op(std::string_view text) {
    if (text == "p2p" || text == "sendrecv") return ClusterOp::send_recv;
    return value_of(text, cluster_op_names);
}

/// nccl-tests doc/PERFORMANCE.md: busbw = algbw · factor; all-reduce 2(n−1)/n,
/// all-gather, reduce-scatter, all-to-all (n−1)/n, broadcast and send/recv 1.
[[nodiscard]] constexpr double bus_factor(ClusterOp op, long long ranks) {
    require_at_least_one("ranks", ranks);
    const double n = count(ranks);
    switch (op) {
        case ClusterOp::all_reduce:
            return 2.0 * (n - 1.0) / n;
        case ClusterOp::broadcast:
        case ClusterOp::send_recv:
            return 1.0;
        default:
            return (n - 1.0) / n;
    }
}

/// The fitted shares (see the header comment). Fitted by fit_nccl_shares on
/// tests/data/measured-collectives.json's fitting tables; the test re-runs it.
struct NcclShares {
    double nvls = 0.7691;     // η_nvls: achieved share of the NVLS ceiling
    double network = 0.7920;  // η_net: achieved share of the NICs' line rate
    double heads = 9.0;       // H: GPUs of a domain an NVLS tree reaches the network through
    double latency = 3.426;   // λ: measured latency over NCCL's modelled one (launch, synchronisation)
};

/// The shares unchanged when each is in its physical range (the shares in (0, 2], at least one head,
/// λ in (0, 1000]); otherwise rejects them, naming the share.
[[nodiscard]] constexpr const NcclShares& validated(const NcclShares& s) {
    require(s.nvls > 0.0 && s.nvls <= 2.0, "NcclShares.nvls", s.nvls, "must be in (0, 2]");
    require(s.network > 0.0 && s.network <= 2.0, "NcclShares.network", s.network, "must be in (0, 2]");
    require(s.heads >= 1.0 && s.heads <= count(limits::gpus), "NcclShares.heads", s.heads,
            "must be at least 1 GPU (and at most 2^40)");
    require(s.latency > 0.0 && s.latency <= 1000.0, "NcclShares.latency", s.latency, "must be in (0, 1000]");
    return s;
}

/// A cluster as NCCL sees it (see the header comment): n GPUs in NVLink domains of g, each domain
/// with k NICs on a rail-optimised fabric, and an r:1 spine.
struct NcclFabric {
    long long gpus = 1;         // ranks n
    long long domain_gpus = 1;  // g: GPUs on one NVLink (NVSwitch, xGMI or PCIe) domain
    Link intra{};               // per GPU and direction inside the domain
    Transport intra_transport = Transport::nvlink;
    BytesPerSecond intra_ceiling{};  // NCCL's channel ceiling inside the domain (0: the link's bandwidth)
    long long nics = 1;              // k: NICs per domain, one channel each
    BytesPerSecond nic_bandwidth{};  // one NIC's line rate per direction (0: no network)
    double oversubscription = 1.0;   // r of an r:1 spine
    double nvls_efficiency = 0.0;    // e_arch; 0: no NVLink SHARP (no NVSwitch, or before Hopper)
    bool sharp = false;              // IB SHARP in the switches (CollNet)
};

/// The number of NVLink domains, N = n / g.
[[nodiscard]] constexpr long long domains(const NcclFabric& f) { return f.gpus / f.domain_gpus; }

/// The fabric unchanged when its counts, links and shares are in range, the GPUs fill whole domains
/// and a NIC bandwidth is given for more than one domain; otherwise rejects it, naming the field.
[[nodiscard]] constexpr const NcclFabric& validated(const NcclFabric& f) {
    require_count("gpus", f.gpus, limits::gpus);
    require_count("gpus per domain", f.domain_gpus, limits::gpus);
    require(f.domain_gpus <= f.gpus || f.gpus == 1, "gpus per domain", count(f.domain_gpus),
            "must be at most the GPU count");
    require(f.gpus % std::min(f.domain_gpus, f.gpus) == 0, "gpus", count(f.gpus),
            "must be a whole number of domains (GPUs per node)");
    (void)validated(f.intra);
    require_non_negative("intra ceiling (bytes/s)", f.intra_ceiling.value());
    require_count("nics per node", f.nics, 1LL << 20);
    require_non_negative("nic bandwidth (bytes/s)", f.nic_bandwidth.value());
    require(f.nic_bandwidth.value() <= limits::bandwidth_bytes_per_s, "nic bandwidth (bytes/s)",
            f.nic_bandwidth.value(), "must be at most 1e18 bytes/s");
    require(f.oversubscription >= 1.0 && f.oversubscription <= 1e6, "oversubscription", f.oversubscription,
            "must be in [1, 1e6] (r of r:1)");
    require(f.nvls_efficiency >= 0.0 && f.nvls_efficiency <= 1.0, "nvls efficiency", f.nvls_efficiency,
            "must be in [0, 1]");
    if (f.gpus > f.domain_gpus)
        require(f.nic_bandwidth.value() >= limits::slowest_rate, "nic bandwidth (bytes/s)", f.nic_bandwidth.value(),
                "must be given (at least 1 B/s) when the GPUs span more than one node");
    return f;
}

namespace cluster {
/// NVLS efficiency by architecture (tuning.cc, nvlsEfficiency: SM90 0.85, SM100 0.74).
[[nodiscard]] constexpr double nvls_efficiency(Architecture a) {
    return a == Architecture::hopper ? 0.85 : a == Architecture::blackwell ? 0.74 : 0.0;
}
/// NCCL's per-channel NVLink bandwidth times the GPU's NVLink count (topo.h,
/// SM80_NVLINK_BW 20, SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1 GB/s; A100 12
/// links, H100 and B200 18): the most a ring inside the domain gets. 0: not NVLink.
[[nodiscard]] constexpr BytesPerSecond nvlink_ring_ceiling(Architecture a) {
    switch (a) {
        case Architecture::ampere:
            return gigabytes_per_second(12 * 20.0);
        case Architecture::hopper:
            return gigabytes_per_second(18 * 20.6);
        case Architecture::blackwell:
            return gigabytes_per_second(18 * 40.1);
        default:
            return BytesPerSecond{};
    }
}
}  // namespace cluster

/// An algorithm and protocol for one collective: its time (latency and bandwidth terms) and its bus
/// bandwidth.
struct ClusterChoice {
    ClusterAlgorithm algorithm = ClusterAlgorithm::ring;
    NcclProtocol protocol = NcclProtocol::simple;
    CollectiveTime time;
    BytesPerSecond bus_bandwidth;  // the algorithm's bus bandwidth under the protocol
};

namespace detail {
[[nodiscard]] constexpr BytesPerSecond ring_intra(const NcclFabric& f) {
    return f.intra_ceiling.value() > 0.0 ? std::min(f.intra.bandwidth, f.intra_ceiling) : f.intra.bandwidth;
}
/// K·η_net through at most `channels` NICs.
[[nodiscard]] constexpr BytesPerSecond network(const NcclFabric& f, const NcclShares& s, double channels) {
    return s.network * std::min(count(f.nics), channels) * f.nic_bandwidth / f.oversubscription;
}
/// The NICs an NVLS tree reaches the network through: min(g, H) head GPUs, k/g NICs each.
[[nodiscard]] constexpr double head_nics(const NcclFabric& f, const NcclShares& s) {
    const double g = count(std::min(f.domain_gpus, f.gpus));
    return std::min(g, s.heads) * count(f.nics) / g;
}
[[nodiscard]] constexpr double tree_gain(const NcclFabric& f) {
    const double big_n = count(domains(f)), n = count(f.gpus);
    return big_n / (big_n - 1.0) * (n - 1.0) / n;
}
[[nodiscard]] constexpr BytesPerSecond nvls_intra(const NcclFabric& f, const NcclShares& s) {
    const double g = count(std::min(f.domain_gpus, f.gpus));
    return s.nvls * f.nvls_efficiency * (2.0 * (g - 1.0) / (g + 1.0)) * f.intra.bandwidth;
}
}  // namespace detail

/// Whether NCCL can run `a` for `op` on this fabric (NVLS needs NVLink SHARP,
/// CollNet IB SHARP; tree, NVLS tree and CollNet need more than one domain for
/// the network part, NVLS inside one; only the all-reduce has them all).
[[nodiscard]] constexpr bool available(ClusterAlgorithm a, ClusterOp op, const NcclFabric& f) {
    const bool many = domains(f) > 1;
    const bool sends = op == ClusterOp::all_to_all || op == ClusterOp::send_recv;
    if (a == ClusterAlgorithm::p2p || sends) return a == ClusterAlgorithm::p2p && sends;
    if (a == ClusterAlgorithm::ring) return true;
    if (op != ClusterOp::all_reduce) return false;
    switch (a) {
        case ClusterAlgorithm::tree:
            return many;
        case ClusterAlgorithm::nvls:
            return !many && f.nvls_efficiency > 0.0 && f.gpus > 1;
        case ClusterAlgorithm::nvls_tree:
            return many && f.nvls_efficiency > 0.0 && f.domain_gpus > 1;
        case ClusterAlgorithm::collnet:
            return many && f.sharp;
        default:
            return false;
    }
}

/// The bus bandwidth of algorithm `a` (Simple protocol), the slowest of its phases.
[[nodiscard]] constexpr BytesPerSecond cluster_bus_bandwidth(ClusterAlgorithm a, ClusterOp op, const NcclFabric& f,
                                                             const NcclShares& s = {}) {
    (void)validated(f);
    const bool many = domains(f) > 1;
    const BytesPerSecond intra = detail::ring_intra(f);
    const double all = count(f.nics);
    if (op == ClusterOp::send_recv)  // each GPU sends to the next rank: across domains on its share of the NICs
        return many ? std::min(intra, detail::network(f, s, all) / count(f.domain_gpus)) : intra;
    if (op == ClusterOp::all_to_all) {
        // A share (g−1)/(n−1) of what a rank sends stays on NVLink, the rest
        // leaves on its share of the NICs; both at once.
        if (!many) return intra;
        const double n = count(f.gpus), g = count(f.domain_gpus);
        const Seconds per_byte_intra = ((g - 1.0) / (n - 1.0)) * (bytes(1.0) / intra);
        const Seconds per_byte_net = ((n - g) / (n - 1.0)) * (bytes(1.0) / (detail::network(f, s, all) / g));
        return bytes(1.0) / std::max(per_byte_intra, per_byte_net);
    }
    switch (a) {
        case ClusterAlgorithm::ring:
            return many ? std::min(intra, detail::network(f, s, all)) : intra;
        case ClusterAlgorithm::tree:
            return std::min(intra, detail::tree_gain(f) * detail::network(f, s, all));
        case ClusterAlgorithm::nvls:
            return detail::nvls_intra(f, s);
        case ClusterAlgorithm::nvls_tree:
            return std::min(detail::nvls_intra(f, s),
                            detail::tree_gain(f) * detail::network(f, s, detail::head_nics(f, s)));
        case ClusterAlgorithm::collnet:
            return std::min(intra, 2.0 * (count(f.gpus - 1) / count(f.gpus)) * detail::network(f, s, all));
        case ClusterAlgorithm::p2p:
            break;
    }
    return intra;
}

/// The latency of algorithm `a` under protocol `p` (tuning.cc baseLat and hwLat):
///   ring:  base + (s − s_net)·λ_intra + s_net·λ_net, s = 2(n−1) (all-reduce) or n−1, s_net = 2(N−1) or N−1
///   tree:  base + 2·[(g−1)·λ_intra + ⌈log₂ N⌉·λ_net]
///   NVLS:  base + 2·λ_intra (up to the switch and back); NVLS tree and CollNet
///          add the tree's network hops (2⌈log₂ N⌉, CollNet 2: one switch level).
/// NVLS and CollNet use the tree's base and hop latencies (tuning.cc prices them
/// from the same tables; their own entries are not in the reference tables).
[[nodiscard]] constexpr Seconds cluster_latency(ClusterAlgorithm a, ClusterOp op, const NcclFabric& f, NcclProtocol p) {
    const long long big_n = domains(f), g = std::min(f.domain_gpus, f.gpus);
    const bool ring_table = a == ClusterAlgorithm::ring || a == ClusterAlgorithm::p2p;
    const NcclAlgorithm table = ring_table ? NcclAlgorithm::ring : NcclAlgorithm::tree;
    const Seconds base = nccl::base_latency(table, p);
    const Seconds intra = nccl::hop_latency(f.intra_transport, table, p);
    const Seconds net = nccl::hop_latency(Transport::network, table, p);
    const double levels = count(detail::ceil_log2(big_n));
    if (op == ClusterOp::send_recv || op == ClusterOp::all_to_all) return base + (big_n > 1 ? net : intra);
    switch (a) {
        case ClusterAlgorithm::ring: {
            const double twice = op == ClusterOp::all_reduce ? 2.0 : 1.0;
            const double steps = twice * count(f.gpus - 1), net_steps = twice * count(big_n - 1);
            return base + (steps - net_steps) * intra + net_steps * net;
        }
        case ClusterAlgorithm::tree:
            return base + 2.0 * (count(g - 1) * intra + levels * net);
        case ClusterAlgorithm::nvls:
            return base + 2.0 * intra;
        case ClusterAlgorithm::nvls_tree:
            return base + 2.0 * intra + 2.0 * levels * net;
        case ClusterAlgorithm::collnet:
            return base + 2.0 * intra + 2.0 * net;
        case ClusterAlgorithm::p2p:
            break;
    }
    return base;
}

/// One algorithm and protocol: latency + f_op · M / (e_p · busbw), e_p the
/// protocol's share (tuning.cc: LL 0.5, LL128 0.92, Simple 1).
[[nodiscard]] constexpr ClusterChoice cluster_collective(ClusterOp op, Bytes message, const NcclFabric& f,
                                                         ClusterAlgorithm a, NcclProtocol p, const NcclShares& s = {}) {
    (void)validated(f);
    (void)validated(s);
    require_non_negative("bytes", message.value());
    require(message.value() <= limits::message_bytes, "bytes", message.value(), "must be at most 1e18 bytes");
    if (!available(a, op, f)) reject("algorithm", to_string(a), "is not one NCCL runs for this op on this fabric");
    if (f.gpus == 1) return {a, p, {}, detail::ring_intra(f)};
    const BytesPerSecond bus = nccl::protocol_efficiency(p) * cluster_bus_bandwidth(a, op, f, s);
    return {a, p, {s.latency * cluster_latency(a, op, f, p), bus_factor(op, f.gpus) * (message / bus)}, bus};
}

/// NCCL's choice (tuning.cc, ncclTopoGetAlgoTime: the fastest algorithm and
/// protocol by the model; ties to the first in ring, tree, NVLS, NVLS tree,
/// CollNet × LL, LL128, Simple order), or the fastest protocol of one algorithm.
/// The choice is made with every GPU of a domain an NVLS tree head (the tuner
/// does not see the head limit), and priced with the fitted H.
[[nodiscard]] constexpr ClusterChoice choose_cluster_collective(ClusterOp op, Bytes message, const NcclFabric& f,
                                                                std::optional<ClusterAlgorithm> only = std::nullopt,
                                                                const NcclShares& s = {}) {
    std::optional<ClusterChoice> best;
    NcclShares tuner = s;  // the tuner ranks the NVLS tree with every NIC of the domain reachable
    tuner.heads = count(f.domain_gpus);
    for (const auto& named : cluster_algorithm_names) {
        if ((only && *only != named.value) || !available(named.value, op, f)) continue;
        for (NcclProtocol p : nccl::protocols) {
            const ClusterChoice c = cluster_collective(op, message, f, named.value, p, tuner);
            if (!best || c.time.total() < best->time.total()) best = c;
        }
    }
    if (!best) reject("algorithm", to_string(*only), "is not one NCCL runs for this op on this fabric");
    return cluster_collective(op, message, f, best->algorithm, best->protocol, s);
}

/// Node-limited MoE dispatch (DeepSeek-V3 technical report, Sec. 3.2.2: each
/// token goes to experts on at most M nodes, once over the network to each
/// node, then on over NVLink to its experts there). A rank sends S = T·k·h (T
/// tokens of h bytes, k experts each). Over the network each token crosses once
/// per target node other than its own: M·(N−1)/N on average (M nodes drawn
/// uniformly), never more than the unlimited all-to-all's k·(n−g)/(n−1); over
/// NVLink every copy but the one landing on the receiving GPU, (g−1)/g · S.
/// Both at once: t = λ·(base + λ_net) + max(net bytes / (K/g), NVLink bytes / B).
struct NodeLimitedDispatch {
    long long top_k = 8;       // k experts a token
    long long node_limit = 4;  // M nodes a token at most
};

/// The node-limited dispatch above of `per_rank` bytes from each rank; when the limit does not bite
/// (one domain, or M ≥ N), NCCL's choice for the plain all-to-all.
[[nodiscard]] constexpr ClusterChoice moe_dispatch(Bytes per_rank, const NcclFabric& f, NodeLimitedDispatch d,
                                                   const NcclShares& s = {}) {
    (void)validated(f);
    (void)validated(s);
    require_non_negative("bytes", per_rank.value());
    require(per_rank.value() <= limits::message_bytes, "bytes", per_rank.value(), "must be at most 1e18 bytes");
    require_at_least_one("top-k", d.top_k);
    require_at_least_one("node limit", d.node_limit);
    const long long big_n = domains(f);
    if (big_n == 1 || d.node_limit >= big_n)  // no limit that bites: the all-to-all
        return choose_cluster_collective(ClusterOp::all_to_all, per_rank, f, std::nullopt, s);
    const double n = count(f.gpus), g = count(f.domain_gpus), k = count(d.top_k);
    const double crossings =
        std::min(count(d.node_limit) * (count(big_n) - 1.0) / count(big_n), k * (n - g) / (n - 1.0));
    const Bytes net = (crossings / k) * per_rank, nvlink = ((g - 1.0) / g) * per_rank;
    const Seconds wire = std::max(net / (detail::network(f, s, count(f.nics)) / g), nvlink / detail::ring_intra(f));
    const Seconds latency =
        s.latency * cluster_latency(ClusterAlgorithm::p2p, ClusterOp::all_to_all, f, NcclProtocol::simple);
    return {ClusterAlgorithm::p2p,
            NcclProtocol::simple,
            {latency, wire},
            wire.value() > 0 ? bus_factor(ClusterOp::all_to_all, f.gpus) * (per_rank / wire) : BytesPerSecond{}};
}

/// nccl-tests' numbers for a time t of S bytes: algbw = S/t, busbw = algbw · f_op(n).
[[nodiscard]] constexpr BytesPerSecond cluster_algbw(Bytes size, Seconds time) { return size / time; }
/// busbw = algbw · f_op(n) for S bytes in t seconds, as nccl-tests reports it.
[[nodiscard]] constexpr BytesPerSecond cluster_busbw(ClusterOp op, long long ranks, Bytes size, Seconds time) {
    return bus_factor(op, ranks) * (size / time);
}

// ---------------------------------------------------------------------------
// Fitting η_nvls, η_net and H to measured tables.

/// One measured time: a fabric, an op, a size, and the algorithm the run forced
/// (NCCL_ALGO, NCCL_NVLS_ENABLE=0), if any.
struct ClusterSample {
    std::string_view source;  // who published it (left out together)
    NcclFabric fabric;
    ClusterOp op = ClusterOp::all_reduce;
    Bytes message;
    Seconds time;
    std::optional<ClusterAlgorithm> algorithm;
};

/// The model's relative error on one sample: modelled time ÷ measured time − 1 (NCCL's choice, or the
/// algorithm the run forced).
[[nodiscard]] constexpr double cluster_error(const ClusterSample& s, const NcclShares& shares) {
    return choose_cluster_collective(s.op, s.message, s.fabric, s.algorithm, shares).time.total() / s.time - 1.0;
}

namespace detail {
/// Mean |relative error| on time over every sample not from `skip`.
[[nodiscard]] inline double cluster_loss(std::span<const ClusterSample> samples, const NcclShares& shares,
                                         std::string_view skip) {
    double sum = 0.0;
    long long n = 0;
    for (const ClusterSample& s : samples)
        if (skip.empty() || s.source != skip) {
            sum += std::abs(cluster_error(s, shares));
            ++n;
        }
    return n == 0 ? 0.0 : sum / count(n);
}
/// Golden-section search of one share in [lo, hi], the others held.
template <class Set>
[[nodiscard]] inline NcclShares golden(std::span<const ClusterSample> samples, NcclShares at, double lo, double hi,
                                       Set set, std::string_view skip) {
    constexpr double phi = 0.6180339887498949;  // (√5 − 1)/2
    const auto loss = [&](double x) {
        NcclShares t = at;
        set(t, x);
        return cluster_loss(samples, t, skip);
    };
    double a = lo, b = hi, c = b - phi * (b - a), d = a + phi * (b - a);
    double fc = loss(c), fd = loss(d);
    for (int i = 0; i < 60; ++i) {
        if (fc < fd) {
            b = d, d = c, fd = fc, c = b - phi * (b - a), fc = loss(c);
        } else {
            a = c, c = d, fc = fd, d = a + phi * (b - a), fd = loss(d);
        }
    }
    set(at, 0.5 * (a + b));
    return at;
}
/// The whole number of heads in [1, 72] (an NVL72 domain's GPUs) with the least loss, the others held.
[[nodiscard]] inline NcclShares best_heads(std::span<const ClusterSample> samples, NcclShares at,
                                           std::string_view skip) {
    NcclShares best = at, t = at;
    double least = -1.0;
    for (int h = 1; h <= 72; ++h) {
        t.heads = h;
        const double loss = cluster_loss(samples, t, skip);
        if (least < 0.0 || loss < least) least = loss, best = t;
    }
    return best;
}
}  // namespace detail

/// The shares that minimise the mean |relative error| on time over every sample
/// (but those of `skip`): coordinate descent, each share by golden section in a
/// physical range (η in [0.3, 1.2], H a whole number of GPUs in [1, 72], λ in [0.5, 20]).
[[nodiscard]] inline NcclShares fit_nccl_shares(std::span<const ClusterSample> samples, std::string_view skip = {}) {
    NcclShares s{1.0, 1.0, 8.0, 1.0};
    for (int round = 0; round < 6; ++round) {
        s = detail::golden(
            samples, s, 0.5, 20.0, [](NcclShares& t, double x) { t.latency = x; }, skip);
        s = detail::golden(
            samples, s, 0.3, 1.2, [](NcclShares& t, double x) { t.nvls = x; }, skip);
        s = detail::golden(
            samples, s, 0.3, 1.2, [](NcclShares& t, double x) { t.network = x; }, skip);
        s = detail::best_heads(samples, s, skip);
    }
    return s;
}

}  // namespace napkin
