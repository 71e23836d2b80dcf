// The cluster-scale collective (napkin/nccl_cluster.hpp) behind `napkin
// collective` and `napkin allreduce`: the fabric from a catalog GPU or node, or
// inline links, NICs per node and their rate; one size or an nccl-tests sweep.
#pragma once

#include "common.hpp"

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/nccl_cluster.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace napkin::cli {

struct ClusterOptions {
    std::optional<std::string> gpu, node, intra_link, inter_link, nic_bandwidth, sweep;
    std::optional<long long> nics_per_node, top_k, node_limit;
    bool sharp = false;

    // Any of these asks for the cluster model.
    [[nodiscard]] bool given() const {
        return gpu || node || intra_link || inter_link || nic_bandwidth || sweep || nics_per_node || sharp ||
               node_limit || top_k;
    }
};

inline void add_cluster_options(CLI::App* sub, ClusterOptions& o) {
    sub->add_option("--gpu", o.gpu, "catalog GPU: its vendor server's links (h100-sxm: NVLink 4, 8 × 400 Gb/s)");
    sub->add_option("--node", o.node, "catalog node: dgx-h100, gb200-nvl72 (the NVLink domain is the node), ...");
    sub->add_option("--intra-link", o.intra_link, "catalog link inside a node: nvlink4, nvlink5, pcie5, ...");
    sub->add_option("--inter-link", o.inter_link, "catalog link of one NIC: ib-ndr, efa-p5, roce-400g, ...");
    sub->add_option("--nics-per-node", o.nics_per_node, "NICs a node has, one NCCL channel each (default: one a GPU)");
    sub->add_option("--nic-bandwidth", o.nic_bandwidth, "one NIC's rate with its unit: 400Gb/s, 50GB/s");
    sub->add_option("--sweep", o.sweep, "sizes FROM:TO doubling, an nccl-tests table: 8B:16GiB");
    sub->add_flag("--sharp", o.sharp, "IB SHARP in the switches (NCCL's CollNet)");
    sub->add_option("--node-limit", o.node_limit, "all-to-all as MoE dispatch: a token reaches at most M nodes");
    sub->add_option("--top-k", o.top_k, "with --node-limit: experts a token (8); --bytes is what a rank sends");
}

// The intra-node transport of a link, for NCCL's hop latencies.
inline Transport transport_of(const Link& link) {
    return std::string_view(link.name).starts_with("pcie") ? Transport::pcie : Transport::nvlink;
}

// The fabric: a catalog node, a catalog GPU's server, or inline links; then the
// flags that override (GPUs per node, NICs, NIC rate, r:1, SHARP).
inline NcclFabric resolve_fabric(const ClusterOptions& c, long long gpus, std::optional<long long> gpus_per_node,
                                 std::optional<double> intra_gbps, std::optional<double> inter_gbps,
                                 double oversubscription, const std::optional<std::string>& transport) {
    require_at_least_one("--gpus", gpus);
    if (c.gpu && c.node) reject("--gpu", *c.gpu, "give --gpu or --node, not both");
    Architecture arch = Architecture::unknown;
    std::optional<Link> intra, inter;
    long long domain = 8, nics_default = 0;
    if (c.node) {
        const auto node = catalog::find_node(*c.node);
        if (!node) not_in_catalog("--node", *c.node, names_of(catalog::nodes));
        arch = node->gpu.architecture;
        intra = node->intra;
        inter = node->inter;
        domain = node->gpus;
        nics_default = node->nic == Nic::per_gpu ? node->gpus : 1;
    } else if (c.gpu) {
        const auto gpu = catalog::find_gpu(*c.gpu);
        if (!gpu) not_in_catalog("--gpu", *c.gpu, names_of(catalog::gpus));
        arch = gpu->architecture;
        const catalog::DefaultLinks links = catalog::default_links(gpu->name);
        intra = *links.intra;
        inter = *links.inter;
        domain = links.nvlink_domain;  // 72 on GB200 and GB300 NVL72 racks
    }
    if (c.intra_link) intra = resolve_catalog_link("--intra-link", *c.intra_link);
    if (c.inter_link) inter = resolve_catalog_link("--inter-link", *c.inter_link);
    if (intra_gbps) {
        require_positive("--intra-bandwidth-gbps", *intra_gbps);
        intra = Link{"intra", gigabytes_per_second(*intra_gbps), Seconds{}};
    }
    if (!intra)
        throw napkin::invalid_argument(
            "the link inside a node is needed: --gpu, --node, --intra-link or --intra-bandwidth");
    if (gpus_per_node) {
        require_at_least_one("--gpus-per-node", *gpus_per_node);
        domain = *gpus_per_node;
    }
    domain = std::min(domain, gpus);
    if (gpus % domain != 0)
        throw napkin::invalid_argument("--gpus-per-node = " + std::to_string(domain) +
                                       ": must divide --gpus = " + std::to_string(gpus));
    BytesPerSecond nic = inter ? inter->bandwidth : BytesPerSecond{};
    if (inter_gbps) {
        require_positive("--inter-bandwidth-gbps", *inter_gbps);
        nic = gigabytes_per_second(*inter_gbps);
    }
    if (c.nic_bandwidth)
        nic = gigabytes_per_second(*rate_in_gbps(std::nullopt, c.nic_bandwidth, "--nic-bandwidth", ""));
    if (gpus > domain && !(nic.value() > 0))
        throw napkin::invalid_argument(
            "--gpus = " + std::to_string(gpus) +
            " spans nodes: a NIC rate is needed (--nic-bandwidth, --inter-link, --gpu or --node)");
    long long nics = c.nics_per_node ? *c.nics_per_node : nics_default > 0 ? std::min(nics_default, domain) : domain;
    if (c.nics_per_node) require_at_least_one("--nics-per-node", nics);
    require(oversubscription >= 1.0, "--oversubscription", oversubscription, "must be at least 1");
    Transport t = transport_of(*intra);
    if (transport) {
        if (*transport == "pcie")
            t = Transport::pcie;
        else if (*transport == "nvlink")
            t = Transport::nvlink;
        else
            throw napkin::invalid_argument("--transport \"" + *transport + "\": must be nvlink or pcie inside a node");
    }
    const bool nvswitch = t == Transport::nvlink && domain > 1;
    return validated(
        NcclFabric{.gpus = gpus,
                   .domain_gpus = domain,
                   .intra = {intra->name, intra->bandwidth, intra->step_latency},
                   .intra_transport = t,
                   .intra_ceiling = t == Transport::nvlink ? cluster::nvlink_ring_ceiling(arch) : BytesPerSecond{},
                   .nics = nics,
                   .nic_bandwidth = nic,
                   .oversubscription = oversubscription,
                   .nvls_efficiency = nvswitch ? cluster::nvls_efficiency(arch) : 0.0,
                   .sharp = c.sharp});
}

inline std::optional<ClusterAlgorithm> resolve_cluster_algorithm(const std::string& text) {
    if (text == "auto" || text == "nccl") return std::nullopt;
    const auto a = parse_cluster_algorithm(text);
    if (!a)
        throw napkin::invalid_argument("--algorithm \"" + text +
                                       "\": must be auto, ring, tree, nvls, nvls-tree, collnet or p2p");
    return a;
}

inline std::vector<Bytes> sweep_sizes(const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos) reject("--sweep", text, "must be FROM:TO, e.g. 8B:16GiB");
    const Bytes from = parse_size("--sweep", text.substr(0, colon)), to = parse_size("--sweep", text.substr(colon + 1));
    if (!(from.value() >= 1.0)) reject("--sweep", text, "must start at 1 byte or more");
    if (to < from) reject("--sweep", text, "must end at or after its start");
    std::vector<Bytes> sizes;
    for (Bytes b = from; b <= to && sizes.size() < 200; b = 2.0 * b) sizes.push_back(b);
    return sizes;
}

inline nlohmann::json cluster_json(ClusterOp op, Bytes size, const NcclFabric& f, const ClusterChoice& c) {
    const Seconds t = c.time.total();
    const bool timed = t.value() > 0.0;
    return {{"op", to_string(op)},
            {"operation", to_string(op)},
            {"bytes", json_bytes(size)},
            {"gpus", f.gpus},
            {"nodes", domains(f)},
            {"gpus_per_node", f.domain_gpus},
            {"nics_per_node", f.nics},
            {"nic_bandwidth_bytes_per_s", f.nic_bandwidth.value()},
            {"algorithm", to_string(c.algorithm)},
            {"protocol", to_string(c.protocol)},
            {"time_s", t.value()},
            {"latency_s", c.time.latency.value()},
            {"bandwidth_s", c.time.bandwidth.value()},
            {"algbw_bytes_per_s", timed ? nlohmann::json(cluster_algbw(size, t).value()) : nlohmann::json(nullptr)},
            {"busbw_bytes_per_s",
             timed ? nlohmann::json(cluster_busbw(op, f.gpus, size, t).value()) : nlohmann::json(nullptr)}};
}

// One size, or a sweep printed as nccl-tests prints its table.
inline void report_cluster(ClusterOp op, const std::string& bytes_text, const ClusterOptions& o, const NcclFabric& f,
                           std::optional<ClusterAlgorithm> only, bool json) {
    const std::optional<std::string>& sweep = o.sweep;
    std::optional<NodeLimitedDispatch> dispatch;
    if (o.top_k && !o.node_limit) reject("--top-k", static_cast<double>(*o.top_k), "needs --node-limit");
    if (o.node_limit) {
        if (op != ClusterOp::all_to_all)
            reject("--node-limit", static_cast<double>(*o.node_limit), "needs --op all-to-all");
        require_at_least_one("--node-limit", *o.node_limit);
        if (o.top_k) require_at_least_one("--top-k", *o.top_k);
        dispatch = NodeLimitedDispatch{.top_k = o.top_k.value_or(8), .node_limit = *o.node_limit};
    }
    const auto choose = [&](Bytes b) {
        return dispatch ? moe_dispatch(b, f, *dispatch) : choose_cluster_collective(op, b, f, only);
    };
    if (!sweep) {
        if (bytes_text.empty()) throw napkin::invalid_argument("--bytes (or --sweep) is required");
        const Bytes size = parse_size("--bytes", bytes_text);
        const ClusterChoice c = choose(size);
        if (json) return print_json(cluster_json(op, size, f, c));
        const Seconds t = c.time.total();
        printf_wrapped("%s of %s on %lld GPUs (%lld × %lld, %lld NICs a node): %s, %s: %s (latency %s, bandwidth %s)\n",
                       std::string(to_string(op)).c_str(), to_string(size).c_str(), f.gpus, domains(f), f.domain_gpus,
                       f.nics, std::string(to_string(c.algorithm)).c_str(), std::string(to_string(c.protocol)).c_str(),
                       to_string(t).c_str(), to_string(c.time.latency).c_str(), to_string(c.time.bandwidth).c_str());
        if (t.value() > 0)
            std::printf("algbw %.2f GB/s, busbw %.2f GB/s (nccl-tests definitions)\n",
                        in(cluster_algbw(size, t), units::GBps), in(cluster_busbw(op, f.gpus, size, t), units::GBps));
        return;
    }
    const std::vector<Bytes> sizes = sweep_sizes(*sweep);
    if (json) {
        nlohmann::json rows = nlohmann::json::array();
        for (Bytes b : sizes) rows.push_back(cluster_json(op, b, f, choose(b)));
        return print_json({{"op", to_string(op)}, {"gpus", f.gpus}, {"rows", rows}});
    }
    std::printf("# %s on %lld GPUs (%lld × %lld, %lld NICs a node)\n", std::string(to_string(op)).c_str(), f.gpus,
                domains(f), f.domain_gpus, f.nics);
    std::printf("#%15s  %-10s %-7s %12s %10s %10s\n", "size (B)", "algorithm", "proto", "time (us)", "algbw", "busbw");
    for (Bytes b : sizes) {
        const ClusterChoice c = choose(b);
        const Seconds t = c.time.total();
        std::printf("%16.0f  %-10s %-7s %12.2f %10.2f %10.2f\n", b.value(), std::string(to_string(c.algorithm)).c_str(),
                    std::string(to_string(c.protocol)).c_str(), in(t, units::us),
                    t.value() > 0 ? in(cluster_algbw(b, t), units::GBps) : 0.0,
                    t.value() > 0 ? in(cluster_busbw(op, f.gpus, b, t), units::GBps) : 0.0);
    }
}

}  // namespace napkin::cli
