// SPDX-License-Identifier: MIT
// napkin/catalog/clusters.hpp — real servers as cluster building blocks, each with its source.
//   const Cluster selene_like = cluster_of(catalog::dgx_a100, 128);   // 1,024 A100s
#pragma once

#include <napkin/catalog/hardware.hpp>
#include <napkin/hardware.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace napkin::catalog {

/// NVIDIA DGX A100 System data sheet (80 GB version): 8 × A100 80 GB SXM on
/// NVSwitch (NVLink 3, 600 GB/s per GPU counting both directions, 300 each
/// way), and 8 single-port ConnectX-6 HDR InfiniBand cards (200 Gb/s), one per GPU,
/// for the compute fabric. Narayanan et al. 2021 and Korthikanti et al. 2022
/// measured on Selene, built from these nodes.
inline constexpr Node dgx_a100 = validated(Node{
    .name = "dgx-a100",
    .gpu = a100_80gb_sxm,
    .gpus = 8,
    .intra = nvlink3,
    .inter = ib_hdr,
    .nic = Nic::per_gpu,
});

/// NVIDIA DGX H100 data sheet: 8 × H100 SXM on NVLink 4 (900 GB/s per GPU both
/// directions), 8 × ConnectX-7 NDR InfiniBand (400 Gb/s), one per GPU.
inline constexpr Node dgx_h100 = validated(Node{
    .name = "dgx-h100",
    .gpu = h100_sxm,
    .gpus = 8,
    .intra = nvlink4,
    .inter = ib_ndr,
    .nic = Nic::per_gpu,
});

// --- GH200 quad nodes (CSCS Alps, HPE Cray EX254n) ------------------------------
/// Four GH200 superchips, every GPU pair NVLink-connected (150 GB/s each way per
/// pair), one Slingshot-11 NIC of 200 Gb/s per GPU (CSCS Alps documentation).
/// The ring collectives use one pair's link per step; an all-to-all inside the
/// node could use all three of a GPU's pairs at once.
inline constexpr Node gh200_quad = validated(Node{
    .name = "gh200-quad",
    .gpu = gh200,
    .gpus = 4,
    .intra = nvlink4_gh200_pair,
    .inter = slingshot11,
    .nic = Nic::per_gpu,
});

/// NVIDIA DGX B200 data sheet: 8 × B200 on NVLink 5 (1.8 TB/s per GPU both
/// directions, 14.4 TB/s in all), 8 single-port ConnectX-7 VPI cards (up to
/// 400 Gb/s InfiniBand), one per GPU.
inline constexpr Node dgx_b200 = validated(Node{
    .name = "dgx-b200",
    .gpu = b200,
    .gpus = 8,
    .intra = nvlink5,
    .inter = ib_ndr,
    .nic = Nic::per_gpu,
});

/// NVIDIA GB200 NVL72 data sheet: one NVLink 5 domain of 72 Blackwell GPUs (36
/// GB200 superchips), 1.8 TB/s per GPU both directions (130 TB/s in all); a
/// 400 Gb/s ConnectX-7 port per GPU to the rest of the cluster.
inline constexpr Node gb200_nvl72 = validated(Node{
    .name = "gb200-nvl72",
    .gpu = gb200,
    .gpus = 72,
    .intra = nvlink5,
    .inter = ib_ndr,
    .nic = Nic::per_gpu,
});

/// AMD Instinct MI300X platform (HGX-style OAM board) data sheet: 8 × MI300X on
/// AMD Infinity Fabric (7 links of 64 GB/s per GPU per direction, all-to-all),
/// one 400 Gb/s Ethernet NIC per GPU.
inline constexpr Node hgx_mi300x = validated(Node{
    .name = "hgx-mi300x",
    .gpu = mi300x,
    .gpus = 8,
    .intra = infinity_fabric_mi300x,
    .inter = roce_400g,
    .nic = Nic::per_gpu,
});

/// Every server above, in the order find_node searches them.
inline constexpr std::array nodes{&dgx_a100, &dgx_h100, &dgx_b200, &gb200_nvl72, &hgx_mi300x, &gh200_quad};

/// The links a GPU usually comes with, from its vendor's 8-GPU server (the
/// defaults of napkin train and plan): A100 → DGX A100 (nvlink3, ib-hdr);
/// H100, H200, GH200 → DGX H100 / DGX H200 (nvlink4, ib-ndr: the DGX H200 data
/// sheet has the same NVLink 4 and ConnectX-7 400 Gb/s); B200, GB200 → DGX B200
/// and GB200 NVL72 (nvlink5, ib-ndr: both data sheets list ConnectX-7 at
/// 400 Gb/s; ib-xdr is ConnectX-8's 800 Gb/s); MI300X, MI325X → Infinity Fabric
/// and a 400 Gb/s Ethernet NIC per GPU (AMD Instinct MI300X platform); H20 →
/// HGX H20 (nvlink4, ib-ndr); B300, GB300 → HGX B300 and GB300 NVL72 (nvlink5,
/// ib-xdr: both list ConnectX-8 at 800 Gb/s); MI355X → its Infinity Fabric and
/// a 400 Gb/s NIC per GPU (AMD Instinct MI355X platform); L40S, L4 and RTX PRO
/// 6000 → PCIe servers (pcie4 or pcie5 between GPUs, ib-ndr); V100 → DGX-2 era
/// HGX V100 (nvlink2, ib-hdr). Any other GPU (or one given inline) gets the A100
/// server's links.
struct DefaultLinks {
    const Link* intra;
    const Link* inter;
    std::string_view server;    // where the pair comes from
    std::string_view why = "";  // why, where the pair is not the obvious one
    // GPUs on one NVLink (NVSwitch, xGMI or PCIe) domain of that server: 8 in an
    // HGX/DGX or MI300X/MI355X platform; 72 in GB200 and GB300 NVL72 racks
    // (their data sheets: one NVLink domain of 72 GPUs over 18 compute trays).
    long long nvlink_domain = 8;
};

/// The default intra- and inter-node links for a GPU, matched by name prefix (see DefaultLinks above).
[[nodiscard]] constexpr DefaultLinks default_links(std::string_view gpu_name) {
    const auto starts = [&](std::string_view prefix) { return gpu_name.substr(0, prefix.size()) == prefix; };
    if (starts("h100") || starts("h200") || starts("gh200")) return {&nvlink4, &ib_ndr, "DGX H100/H200"};
    if (starts("gb200"))
        return {&nvlink5, &ib_ndr, "GB200 NVL72", "its data sheet lists ConnectX-7 at 400 Gb/s, not ConnectX-8's XDR",
                72};
    if (starts("b200"))
        return {&nvlink5, &ib_ndr, "DGX B200", "its data sheet lists ConnectX-7 at 400 Gb/s, not ConnectX-8's XDR"};
    if (starts("mi300x") || starts("mi325x")) return {&infinity_fabric_mi300x, &roce_400g, "AMD MI300X platform"};
    if (starts("h20")) return {&nvlink4, &ib_ndr, "HGX H20"};
    if (starts("gb300")) return {&nvlink5, &ib_xdr, "GB300 NVL72", "", 72};
    if (starts("b300")) return {&nvlink5, &ib_xdr, "HGX B300"};
    if (starts("mi355x")) return {&infinity_fabric_mi355x, &roce_400g, "AMD MI355X platform"};
    if (starts("l40s") || starts("l4"))
        return {&pcie4, &ib_ndr, "a PCIe Gen4 server", "L40S and L4 have no NVLink: GPUs talk over PCIe"};
    if (starts("rtx-pro-6000"))
        return {&pcie5, &ib_ndr, "a PCIe Gen5 server", "the RTX PRO 6000 has no NVLink: GPUs talk over PCIe"};
    if (starts("v100")) return {&nvlink2, &ib_hdr, "HGX V100"};
    if (starts("a100")) return {&nvlink3, &ib_hdr, "DGX A100"};
    return {&nvlink3, &ib_hdr, "DGX A100, for a GPU the catalog does not place"};
}

/// The link between a GPU and its host's memory, one direction (what KV-cache
/// offload streams over): NVLink-C2C on the Grace superchips, 450 GB/s each way
/// (GH200 and GB200 data sheets: 900 GB/s both ways); otherwise the GPU's PCIe
/// x16 slot: Gen 3 on V100, Gen 4 on A100, MI250X, L40S and L4, Gen 5 on Hopper,
/// Blackwell, MI300X and later (their data sheets; catalog pcie4, pcie5).
struct HostLink {
    BytesPerSecond bandwidth;
    std::string_view name;
};

/// The GPU-to-host link for a GPU, one direction, chosen by name (Grace superchips) or architecture.
[[nodiscard]] constexpr HostLink host_link(const Gpu& gpu) {
    const auto starts = [&](std::string_view prefix) { return gpu.name.substr(0, prefix.size()) == prefix; };
    if (starts("gh200") || starts("gb200") || starts("gb300")) return {gigabytes_per_second(450), "nvlink-c2c"};
    switch (gpu.architecture) {
        // PCIe 3.0 x16: 8 GT/s × 16 lanes, 128b/130b ≈ 15.8 GB/s each way (PCI-SIG PCIe 3.0 base specification).
        case Architecture::volta:
            return {gigabytes_per_second(8.0 * 16 * 128 / 130 / 8), "pcie3"};
        case Architecture::ampere:
        case Architecture::ada:
        case Architecture::cdna2:
            return {pcie4.bandwidth, pcie4.name};
        default:
            return {pcie5.bandwidth, pcie5.name};
    }
}

/// The catalog server with this exact name ("dgx-h100", ...), or nullopt.
[[nodiscard]] constexpr std::optional<Node> find_node(std::string_view name) {
    for (const Node* node : nodes)
        if (node->name == name) return *node;
    return std::nullopt;
}

}  // namespace napkin::catalog
