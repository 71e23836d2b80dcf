// SPDX-License-Identifier: MIT
// napkin/catalog/clusters.hpp — real servers as cluster building blocks, each with its source.
//   const Cluster selene_like = cluster_of(catalog::dgx_a100, 128);   // 1,024 A100s
#pragma once

#include <napkin/catalog/hardware.hpp>
#include <napkin/parallelism.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace napkin::catalog {

// NVIDIA DGX A100 System data sheet (80 GB version): 8 × A100 80 GB SXM on
// NVSwitch (NVLink 3, 600 GB/s per GPU counting both directions, 300 each
// way), and 8 single-port ConnectX-6 HDR InfiniBand cards (200 Gb/s), one per GPU,
// for the compute fabric. Narayanan et al. 2021 and Korthikanti et al. 2022
// measured on Selene, built from these nodes.
inline constexpr Node dgx_a100 = validated(Node{
    .name = "dgx-a100",
    .gpu = a100_80gb_sxm,
    .gpus = 8,
    .intra = nvlink3,
    .inter = ib_hdr,
    .nic = Nic::per_gpu,
});

// NVIDIA DGX H100 data sheet: 8 × H100 SXM on NVLink 4 (900 GB/s per GPU both
// directions), 8 × ConnectX-7 NDR InfiniBand (400 Gb/s), one per GPU.
inline constexpr Node dgx_h100 = validated(Node{
    .name = "dgx-h100",
    .gpu = h100_sxm,
    .gpus = 8,
    .intra = nvlink4,
    .inter = ib_ndr,
    .nic = Nic::per_gpu,
});

// --- GH200 quad nodes (CSCS Alps, HPE Cray EX254n) ------------------------------
// Four GH200 superchips, every GPU pair NVLink-connected (150 GB/s each way per
// pair), one Slingshot-11 NIC of 200 Gb/s per GPU (CSCS Alps documentation).
// The ring collectives use one pair's link per step; an all-to-all inside the
// node could use all three of a GPU's pairs at once.
inline constexpr Node gh200_quad = validated(Node{
    .name = "gh200-quad",
    .gpu = gh200,
    .gpus = 4,
    .intra = nvlink4_gh200_pair,
    .inter = slingshot11,
    .nic = Nic::per_gpu,
});

inline constexpr std::array nodes{&dgx_a100, &dgx_h100, &gh200_quad};

[[nodiscard]] constexpr std::optional<Node> find_node(std::string_view name) {
    for (const Node* node : nodes)
        if (node->name == name) return *node;
    return std::nullopt;
}

}  // namespace napkin::catalog
