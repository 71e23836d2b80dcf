// SPDX-License-Identifier: MIT
// napkin/catalog/hardware.hpp — real GPUs and links, each figure with its source.
#pragma once

#include <napkin/hardware.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace napkin::catalog {

/// The share of a card a server claims by default in the split lesson (its
/// "lesson 18" setting); a setting, not a property of the card.
inline constexpr double default_usable_fraction = 0.92;

/// NVIDIA A100 Tensor Core GPU data sheet (June 2021), A100 80 GB SXM column:
/// 2,039 GB/s HBM2e, 312 TFLOP/s dense BF16/FP16. The lesson counts its 80 GB as 80 GiB.
inline constexpr Gpu a100_80gb_sxm = validated(Gpu{
    .name = "a100-80gb-sxm",
    .memory = gibibytes(80),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(2039),
    .peak_flops = teraflops_per_second(312),
    .sm_count = 108,  // A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs
    .architecture = Architecture::ampere,
    .board_power = watts(400),  // A100 data sheet: max TDP 400 W (SXM)
    .int8_ops = teraflops_per_second(624),  // data sheet: INT8 624 TOPS (1,248 with sparsity)
    .source = "NVIDIA A100 Tensor Core GPU data sheet (June 2021), 80 GB SXM column",
});

/// NVIDIA A100 data sheet (June 2021), A100 40 GB SXM column: 1,555 GB/s, 312 TFLOP/s.
inline constexpr Gpu a100_40gb_sxm = validated(Gpu{
    .name = "a100-40gb-sxm",
    .memory = gibibytes(40),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(1555),
    .peak_flops = teraflops_per_second(312),
    .sm_count = 108,
    .architecture = Architecture::ampere,
    .board_power = watts(400),  // A100 data sheet: max TDP 400 W (SXM)
    .int8_ops = teraflops_per_second(624),
    .source = "NVIDIA A100 Tensor Core GPU data sheet (June 2021), 40 GB SXM column",
});

/// NVIDIA H100 Tensor Core GPU data sheet, H100 SXM column: 80 GB HBM3,
/// 3.35 TB/s, 989 TFLOP/s dense BF16 (1,979 with sparsity).
inline constexpr Gpu h100_sxm = validated(Gpu{
    .name = "h100-sxm",
    .memory = gibibytes(80),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(3.35),
    .peak_flops = teraflops_per_second(989),
    .sm_count = 132,                           // NVIDIA Hopper architecture whitepaper: 132 SMs (SXM5)
    .fp8_flops = teraflops_per_second(1978.9),  // data sheet: 3,958 TFLOP/s FP8 with sparsity
    .architecture = Architecture::hopper,
    .board_power = watts(700),  // H100 data sheet: max TDP up to 700 W (configurable)
    .int8_ops = teraflops_per_second(1978.9),  // data sheet: INT8 3,958 TOPS with sparsity
    .source = "NVIDIA H100 Tensor Core GPU data sheet, H100 SXM column",
});

/// NVIDIA H200 Tensor Core GPU data sheet, H200 SXM column: 141 GB HBM3e,
/// 4.8 TB/s, 989 TFLOP/s dense BF16.
inline constexpr Gpu h200_sxm = validated(Gpu{
    .name = "h200-sxm",
    .memory = gigabytes(141),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(4.8),
    .peak_flops = teraflops_per_second(989),
    .sm_count = 132,
    .fp8_flops = teraflops_per_second(1978.9),  // H200 data sheet: 3,958 with sparsity
    .architecture = Architecture::hopper,
    .board_power = watts(700),  // H200 data sheet: max TDP up to 700 W (configurable)
    .int8_ops = teraflops_per_second(1978.9),  // H200 data sheet: INT8 3,958 TOPS with sparsity
    .source = "NVIDIA H200 Tensor Core GPU data sheet, H200 SXM column",
});

/// NVIDIA DGX B200 data sheet: 1,440 GB of HBM3e over 8 GPUs (180 GB each),
/// 64 TB/s over 8 GPUs (8 TB/s each), 2.25 PFLOP/s dense BF16 per GPU.
inline constexpr Gpu b200 = validated(Gpu{
    .name = "b200",
    .memory = gigabytes(180),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(8),
    .peak_flops = teraflops_per_second(2250),
    .sm_count = 148,                          // not printed by NVIDIA: 2 dies × 74 SMs (public microbenchmarks)
    .fp8_flops = teraflops_per_second(4500),  // DGX B200 data sheet: 72 PFLOP/s FP8 dense / 8 (FP4: 9,000)
    .architecture = Architecture::blackwell,
    .board_power = watts(1000),  // HGX B200 spec sheet: up to 1,000 W per GPU (DGX B200: ~14.3 kW per system)
    .fp6_flops = teraflops_per_second(4500),  // HGX B200 spec: FP6 at the FP8 rate
    .fp4_flops = teraflops_per_second(9000),  // DGX B200: 144 PFLOP/s FP4 with sparsity / 8 / 2
    .int8_ops = teraflops_per_second(4500),   // HGX B200 spec: INT8 72 POPS with sparsity / 8 / 2
    .source = "NVIDIA DGX B200 data sheet, per GPU",
});

/// NVIDIA GH200 Grace Hopper Superchip data sheet, the H100 part: 96 GB HBM3,
/// 4 TB/s, 989 TFLOP/s dense BF16.
inline constexpr Gpu gh200 = validated(Gpu{
    .name = "gh200",
    .memory = gigabytes(96),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(4),
    .peak_flops = teraflops_per_second(989),
    .sm_count = 132,
    .fp8_flops = teraflops_per_second(1978.9),
    .architecture = Architecture::hopper,
    .board_power = watts(1000),  // GH200 data sheet: module power 450-1,000 W, Grace CPU + H100 + memory
    .int8_ops = teraflops_per_second(1978.9),  // GH200 data sheet: INT8 3,958 TOPS with sparsity
    .source = "NVIDIA GH200 Grace Hopper Superchip data sheet, the H100 part",
});

/// NVIDIA A100 data sheet (June 2021), A100 80 GB PCIe column: 1,935 GB/s
/// HBM2e, 312 TFLOP/s dense BF16; the same GA100 with 108 SMs.
inline constexpr Gpu a100_80gb_pcie = validated(Gpu{
    .name = "a100-80gb-pcie",
    .memory = gibibytes(80),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(1935),
    .peak_flops = teraflops_per_second(312),
    .sm_count = 108,
    .architecture = Architecture::ampere,
    .board_power = watts(300),  // A100 data sheet: max TDP 300 W (80 GB PCIe)
    .int8_ops = teraflops_per_second(624),
    .source = "NVIDIA A100 Tensor Core GPU data sheet (June 2021), 80 GB PCIe column",
});

/// NVIDIA A100 data sheet (June 2021), A100 40 GB PCIe column: 1,555 GB/s, 312 TFLOP/s.
inline constexpr Gpu a100_40gb_pcie = validated(Gpu{
    .name = "a100-40gb-pcie",
    .memory = gibibytes(40),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(1555),
    .peak_flops = teraflops_per_second(312),
    .sm_count = 108,
    .architecture = Architecture::ampere,
    .board_power = watts(250),  // A100 data sheet: max TDP 250 W (40 GB PCIe)
    .int8_ops = teraflops_per_second(624),
    .source = "NVIDIA A100 Tensor Core GPU data sheet (June 2021), 40 GB PCIe column",
});

/// NVIDIA H100 data sheet, H100 PCIe column: 80 GB HBM2e, 2.0 TB/s, 756 TFLOP/s
/// dense BF16, 1,513 dense FP8 (the sheet prints twice each, with sparsity); 114 SMs.
inline constexpr Gpu h100_pcie = validated(Gpu{
    .name = "h100-pcie",
    .memory = gibibytes(80),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(2.0),
    .peak_flops = teraflops_per_second(756),
    .sm_count = 114,
    .fp8_flops = teraflops_per_second(1513),
    .architecture = Architecture::hopper,
    .board_power = watts(350),  // H100 data sheet: max TDP 300-350 W (configurable), PCIe
    .int8_ops = teraflops_per_second(1513),  // data sheet: INT8 3,026 TOPS with sparsity
    .source = "NVIDIA H100 Tensor Core GPU data sheet, H100 PCIe column",
});

/// NVIDIA H100 NVL data sheet (per GPU): 94 GB HBM3, 3.9 TB/s, 835 TFLOP/s
/// dense BF16, 1,671 dense FP8; 132 SMs.
inline constexpr Gpu h100_nvl = validated(Gpu{
    .name = "h100-nvl",
    .memory = gigabytes(94),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(3.9),
    .peak_flops = teraflops_per_second(835),
    .sm_count = 132,
    .fp8_flops = teraflops_per_second(1671),
    .architecture = Architecture::hopper,
    .board_power = watts(400),  // H100 NVL data sheet: max TDP 350-400 W (configurable)
    .int8_ops = teraflops_per_second(1671),  // data sheet: INT8 3,341 TOPS with sparsity
    .source = "NVIDIA H100 NVL data sheet, per GPU",
});

/// NVIDIA GH200 Grace Hopper Superchip data sheet, the 144 GB HBM3e part:
/// 4.9 TB/s, 989 TFLOP/s dense BF16, 1,979 dense FP8.
inline constexpr Gpu gh200_144gb = validated(Gpu{
    .name = "gh200-144gb",
    .memory = gigabytes(144),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(4.9),
    .peak_flops = teraflops_per_second(989),
    .sm_count = 132,
    .fp8_flops = teraflops_per_second(1978.9),
    .architecture = Architecture::hopper,
    .board_power = watts(1000),  // GH200 (HBM3e) data sheet: module 450-1,000 W, CPU + GPU + memory
    .int8_ops = teraflops_per_second(1978.9),
    .source = "NVIDIA GH200 Grace Hopper Superchip data sheet, the 144 GB HBM3e part",
});

/// NVIDIA GB200 NVL72 data sheet, per GPU (the rack's figures over 72 GPUs):
/// 186 GB HBM3e, 8 TB/s, 2,500 TFLOP/s dense BF16, 5,000 dense FP8 (FP4 10,000);
/// the B200's 148 SMs.
inline constexpr Gpu gb200 = validated(Gpu{
    .name = "gb200",
    .memory = gigabytes(186),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(8),
    .peak_flops = teraflops_per_second(2500),
    .sm_count = 148,
    .fp8_flops = teraflops_per_second(5000),
    .architecture = Architecture::blackwell,
    .board_power = watts(1200),  // GB200 NVL72 spec: up to 1,200 W per Blackwell GPU (Grace apart)
    .fp6_flops = teraflops_per_second(5000),  // GB200 NVL72 data sheet: FP8/FP6 720 PFLOP/s sparse / 72 / 2
    .fp4_flops = teraflops_per_second(10000),
    .int8_ops = teraflops_per_second(5000),  // GB200 NVL72 data sheet: INT8 720 POPS sparse / 72 / 2
    .source = "NVIDIA GB200 NVL72 data sheet, per GPU (the rack over 72)",
});

/// AMD Instinct MI250X data sheet (the two-die package as one device): 220
/// compute units, 128 GB HBM2e, 3.2768 TB/s, 383 TFLOP/s dense BF16, no FP8.
inline constexpr Gpu mi250x = validated(Gpu{
    .name = "mi250x",
    .memory = gigabytes(128),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(3276.8),
    .peak_flops = teraflops_per_second(383),
    .sm_count = 220,
    .architecture = Architecture::cdna2,
    .board_power = watts(560),  // AMD Instinct MI250X data sheet: 560 W peak board power (OAM)
    .int8_ops = teraflops_per_second(383),  // MI250X data sheet: INT8 383 TOPS
    .source = "AMD Instinct MI250X data sheet",
});

/// AMD Instinct MI300X data sheet: 304 compute units, 192 GB HBM3, 5.3 TB/s,
/// 1,307.4 TFLOP/s dense BF16, 2,614.9 dense FP8.
inline constexpr Gpu mi300x = validated(Gpu{
    .name = "mi300x",
    .memory = gigabytes(192),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(5.3),
    .peak_flops = teraflops_per_second(1307.4),
    .sm_count = 304,
    .fp8_flops = teraflops_per_second(2614.9),
    .architecture = Architecture::cdna3,
    .board_power = watts(750),  // AMD Instinct MI300X data sheet: 750 W peak board power (OAM)
    .int8_ops = teraflops_per_second(2614.9),  // MI300X data sheet: INT8 2,614.9 TOPS dense
    .source = "AMD Instinct MI300X data sheet",
});

/// AMD Instinct MI325X data sheet: the MI300X's 304 compute units and peaks,
/// 256 GB HBM3e at 6 TB/s.
inline constexpr Gpu mi325x = validated(Gpu{
    .name = "mi325x",
    .memory = gigabytes(256),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(6),
    .peak_flops = teraflops_per_second(1307.4),
    .sm_count = 304,
    .fp8_flops = teraflops_per_second(2614.9),
    .architecture = Architecture::cdna3,
    .board_power = watts(1000),  // AMD Instinct MI325X data sheet: 1,000 W peak board power (OAM)
    .int8_ops = teraflops_per_second(2614.9),  // MI325X data sheet: INT8 2,614.9 TOPS dense
    .source = "AMD Instinct MI325X data sheet",
});

// --- The 2026 catalog: serving cards, Blackwell Ultra, CDNA 4, and the V100 still in clusters.
// NVIDIA's sheets print tensor rates with sparsity; the dense rate, used here, is half.

/// NVIDIA H20 (HGX H20 product specification, 2024): the GH100 cut to 78 SMs,
/// 96 GB HBM3 at 4.0 TB/s, 148 TFLOP/s dense BF16, 296 FP8 and INT8, 400 W,
/// NVLink 900 GB/s.
inline constexpr Gpu h20 = validated(Gpu{
    .name = "h20",
    .memory = gigabytes(96),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(4.0),
    .peak_flops = teraflops_per_second(148),
    .sm_count = 78,
    .fp8_flops = teraflops_per_second(296),
    .architecture = Architecture::hopper,
    .board_power = watts(400),
    .int8_ops = teraflops_per_second(296),
    .source = "NVIDIA HGX H20 product specification (2024), per GPU",
});

/// NVIDIA L40S data sheet: Ada Lovelace AD102 with 142 SMs, 48 GB GDDR6 at
/// 864 GB/s, 362.05 TFLOP/s dense BF16/FP16 (733 with sparsity), 733 dense FP8
/// and INT8 (1,466 with sparsity), 350 W; PCIe Gen4 x16, no NVLink.
inline constexpr Gpu l40s = validated(Gpu{
    .name = "l40s",
    .memory = gigabytes(48),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(864),
    .peak_flops = teraflops_per_second(362.05),
    .sm_count = 142,
    .fp8_flops = teraflops_per_second(733),
    .architecture = Architecture::ada,
    .board_power = watts(350),
    .int8_ops = teraflops_per_second(733),
    .source = "NVIDIA L40S data sheet",
});

/// NVIDIA L4 data sheet: Ada Lovelace AD104 with 58 SMs, 24 GB GDDR6 at
/// 300 GB/s, 121 TFLOP/s dense BF16/FP16 (242 with sparsity), 242.5 dense FP8
/// and INT8 (485 with sparsity), 72 W; PCIe Gen4 x16.
inline constexpr Gpu l4 = validated(Gpu{
    .name = "l4",
    .memory = gigabytes(24),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(300),
    .peak_flops = teraflops_per_second(121),
    .sm_count = 58,
    .fp8_flops = teraflops_per_second(242.5),
    .architecture = Architecture::ada,
    .board_power = watts(72),
    .int8_ops = teraflops_per_second(242.5),
    .source = "NVIDIA L4 Tensor Core GPU data sheet",
});

/// NVIDIA RTX PRO 6000 Blackwell Server Edition data sheet: GB202 with 188 SMs,
/// 96 GB GDDR7 at 1,792 GB/s, 4,000 AI TOPS (FP4 with sparsity), 600 W; PCIe
/// Gen5 x16, no NVLink. Its fifth-generation tensor cores halve the rate with
/// each doubling of the width, as B200's do (9,000 / 4,500 / 2,250): FP4 2,000
/// dense, FP8 and FP6 1,000, BF16 500.
inline constexpr Gpu rtx_pro_6000 = validated(Gpu{
    .name = "rtx-pro-6000",
    .memory = gigabytes(96),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(1792),
    .peak_flops = teraflops_per_second(500),
    .sm_count = 188,
    .fp8_flops = teraflops_per_second(1000),
    .architecture = Architecture::rtx_blackwell,
    .board_power = watts(600),
    .fp6_flops = teraflops_per_second(1000),
    .fp4_flops = teraflops_per_second(2000),
    .source = "NVIDIA RTX PRO 6000 Blackwell Server Edition data sheet",
});

/// NVIDIA HGX B300 specification, per GPU (the 8-GPU board's figures over 8):
/// Blackwell Ultra, 288 GB HBM3e at 8 TB/s, FP4 108 PFLOP/s dense / 8 = 13,500,
/// FP8 and FP6 72 with sparsity / 8 / 2 = 4,500, BF16 2,250, 1,100 W; 160 SMs
/// (NVIDIA technical blog "Inside NVIDIA Blackwell Ultra", 2025: 2 dies × 80).
/// Blackwell Ultra trades INT8 for FP4: the sheet's INT8 is not carried here.
inline constexpr Gpu b300 = validated(Gpu{
    .name = "b300",
    .memory = gigabytes(288),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(8),
    .peak_flops = teraflops_per_second(2250),
    .sm_count = 160,
    .fp8_flops = teraflops_per_second(4500),
    .architecture = Architecture::blackwell,
    .board_power = watts(1100),
    .fp6_flops = teraflops_per_second(4500),
    .fp4_flops = teraflops_per_second(13500),
    .source = "NVIDIA HGX B300 specification, per GPU",
});

/// NVIDIA GB300 NVL72 data sheet, per GPU (the rack over 72): 288 GB HBM3e at
/// 8 TB/s, FP4 1,080 PFLOP/s dense / 72 = 15,000, FP8/FP6 720 with sparsity / 72
/// / 2 = 5,000, BF16 2,500; up to 1,400 W per Blackwell Ultra GPU.
inline constexpr Gpu gb300 = validated(Gpu{
    .name = "gb300",
    .memory = gigabytes(288),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(8),
    .peak_flops = teraflops_per_second(2500),
    .sm_count = 160,
    .fp8_flops = teraflops_per_second(5000),
    .architecture = Architecture::blackwell,
    .board_power = watts(1400),
    .fp6_flops = teraflops_per_second(5000),
    .fp4_flops = teraflops_per_second(15000),
    .source = "NVIDIA GB300 NVL72 data sheet, per GPU (the rack over 72)",
});

/// AMD Instinct MI355X data sheet: CDNA 4, 256 compute units, 288 GB HBM3E at
/// 8 TB/s, 2,516.6 TFLOP/s dense FP16/BF16, 5,033.2 FP8 and INT8, 10,066.4
/// MXFP6 and MXFP4 (no NVFP4), 1,400 W peak board power (liquid cooled).
inline constexpr Gpu mi355x = validated(Gpu{
    .name = "mi355x",
    .memory = gigabytes(288),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = terabytes_per_second(8),
    .peak_flops = teraflops_per_second(2516.6),
    .sm_count = 256,
    .fp8_flops = teraflops_per_second(5033.2),
    .architecture = Architecture::cdna4,
    .board_power = watts(1400),
    .fp6_flops = teraflops_per_second(10066.4),
    .fp4_flops = teraflops_per_second(10066.4),
    .int8_ops = teraflops_per_second(5033.2),
    .source = "AMD Instinct MI355X data sheet",
});

/// NVIDIA V100 Tensor Core GPU data sheet (January 2020), V100 SXM2 column:
/// 32 GB HBM2 at 900 GB/s, 125 TFLOP/s FP16 tensor (no BF16, FP8 or INT8 tensor
/// rate; Volta has no sparsity), 300 W; 80 SMs (Volta architecture whitepaper).
inline constexpr Gpu v100_32gb_sxm = validated(Gpu{
    .name = "v100-32gb-sxm",
    .memory = gibibytes(32),
    .usable_fraction = default_usable_fraction,
    .memory_bandwidth = gigabytes_per_second(900),
    .peak_flops = teraflops_per_second(125),
    .sm_count = 80,
    .architecture = Architecture::volta,
    .board_power = watts(300),
    .source = "NVIDIA V100 Tensor Core GPU data sheet (January 2020), SXM2 column",
});

/// Every GPU above, in the order find_gpu searches them.
inline constexpr std::array gpus{&a100_80gb_sxm, &a100_40gb_sxm, &h100_sxm, &h200_sxm, &b200, &gh200,
                                 &a100_80gb_pcie, &a100_40gb_pcie, &h100_pcie, &h100_nvl, &gh200_144gb,
                                 &gb200, &mi250x, &mi300x, &mi325x, &h20, &l40s, &l4, &rtx_pro_6000,
                                 &b300, &gb300, &mi355x, &v100_32gb_sxm};

// NCCL's per-step latencies below are its tuning constants (NVIDIA/nccl
// src/graph/tuning.cc, hwLat): 0.6 µs per step on NVLink, 1.0 µs on PCIe; the
// per-call base latency is napkin/collectives.hpp's nccl::ring_ll_base_latency.

/// The lesson's fast link: NVLink on the A100 data sheet, 600 GB/s as written
/// (the sheet's figure adds both directions), with NCCL's NVLink ring LL step.
inline constexpr Link nvlink_a100 = validated(Link{
    .name = "nvlink-a100",
    .bandwidth = gigabytes_per_second(600),
    .step_latency = microseconds(0.6),
});

/// The lesson's slow link: PCIe Gen4 at 64 GB/s (A100 data sheet), with NCCL's
/// PCIe ring LL step.
inline constexpr Link pcie_gen4 = validated(Link{
    .name = "pcie-gen4",
    .bandwidth = gigabytes_per_second(64),
    .step_latency = microseconds(1.0),
});

/// A100 NVLink per direction: the data sheet's 600 GB/s counts both directions
/// (Krashinsky et al., "NVIDIA Ampere Architecture In-Depth", 2020: 12 links of
/// 25 GB/s each way), so one direction carries 300 GB/s.
inline constexpr Link nvlink3 = validated(Link{
    .name = "nvlink3",
    .bandwidth = gigabytes_per_second(300),
    .step_latency = microseconds(0.6),
});

/// H100 NVLink 4: 900 GB/s both directions (H100 data sheet), 450 GB/s each way.
inline constexpr Link nvlink4 = validated(Link{
    .name = "nvlink4",
    .bandwidth = gigabytes_per_second(450),
    .step_latency = microseconds(0.6),
});

/// InfiniBand HDR, one 200 Gb/s port per GPU (NVIDIA ConnectX-6 data sheet), with
/// NCCL's network ring LL hop latency of 2.7 µs (tuning.cc hwLat, NET row).
inline constexpr Link ib_hdr = validated(Link{
    .name = "ib-hdr",
    .bandwidth = gigabits_per_second(200),
    .step_latency = microseconds(2.7),
});

/// InfiniBand NDR, one 400 Gb/s port per GPU (NVIDIA ConnectX-7 data sheet), same
/// NCCL network hop latency.
inline constexpr Link ib_ndr = validated(Link{
    .name = "ib-ndr",
    .bandwidth = gigabits_per_second(400),
    .step_latency = microseconds(2.7),
});

// --- GH200 quad nodes (CSCS Alps, HPE Cray EX254n) ------------------------------
/// NVLink 4 between two GH200s of a quad node: each GPU's 18 links are split six
/// to each of the three others (CSCS user documentation, "Alps: GH200 nodes";
/// NVIDIA GH200 data sheet: 900 GB/s over 18 links both ways), so one pair
/// carries 6 × 25 = 150 GB/s each way; NCCL's NVLink ring LL step.
inline constexpr Link nvlink4_gh200_pair = validated(Link{
    .name = "nvlink4-gh200-pair",
    .bandwidth = gigabytes_per_second(150),
    .step_latency = microseconds(0.6),
});

/// HPE Slingshot-11: one Cassini NIC of 200 Gb/s per GPU (HPE Slingshot data
/// sheet; CSCS Alps documentation), driven by NCCL through its libfabric plugin
/// (aws-ofi-nccl) as a NET transport: NCCL's network ring LL hop of 2.7 µs
/// (tuning.cc hwLat, NET row).
inline constexpr Link slingshot11 = validated(Link{
    .name = "slingshot-11",
    .bandwidth = gigabits_per_second(200),
    .step_latency = microseconds(2.7),
});


// Every link below is per direction per GPU: what one GPU can send while it
// receives as much (the alpha-beta model's B). Only nvlink-a100 and pcie-gen4
// keep the lesson's figures as their data sheets write them (both directions added).

/// B200 NVLink 5: 1.8 TB/s per GPU counting both directions (NVIDIA DGX B200 and
/// GB200 NVL72 data sheets: 18 links of 100 GB/s), 900 GB/s each way; NCCL's
/// NVLink ring LL step (tuning.cc hwLat, NVLINK row).
inline constexpr Link nvlink5 = validated(Link{
    .name = "nvlink5",
    .bandwidth = gigabytes_per_second(900),
    .step_latency = microseconds(0.6),
});

/// PCIe 4.0 x16: 16 GT/s × 16 lanes with 128b/130b coding ≈ 31.5 GB/s each way
/// (PCI-SIG PCIe 4.0 base specification); the A100 sheet's "64 GB/s" (pcie-gen4)
/// adds both directions and rounds. NCCL's PCIe ring LL step (tuning.cc hwLat, PCI row).
inline constexpr Link pcie4 = validated(Link{
    .name = "pcie4",
    .bandwidth = gigabytes_per_second(16.0 * 16 * 128 / 130 / 8),
    .step_latency = microseconds(1.0),
});

/// PCIe 5.0 x16: 32 GT/s × 16 lanes, 128b/130b ≈ 63.0 GB/s each way (PCI-SIG PCIe
/// 5.0 base specification; the H100 PCIe sheet's "128 GB/s" adds both directions).
inline constexpr Link pcie5 = validated(Link{
    .name = "pcie5",
    .bandwidth = gigabytes_per_second(32.0 * 16 * 128 / 130 / 8),
    .step_latency = microseconds(1.0),
});

/// InfiniBand XDR, one 800 Gb/s port per GPU (NVIDIA ConnectX-8 SuperNIC data
/// sheet); NCCL's network ring LL hop latency as for HDR and NDR.
inline constexpr Link ib_xdr = validated(Link{
    .name = "ib-xdr",
    .bandwidth = gigabits_per_second(800),
    .step_latency = microseconds(2.7),
});

/// RoCE v2 over 400 Gb/s Ethernet, one port per GPU (NVIDIA ConnectX-7 400GbE /
/// Spectrum-X data sheets); NCCL prices every network transport with the same
/// NET hop latency (tuning.cc hwLat), so it is InfiniBand NDR's.
inline constexpr Link roce_400g = validated(Link{
    .name = "roce-400g",
    .bandwidth = gigabits_per_second(400),
    .step_latency = microseconds(2.7),
});

/// AWS Elastic Fabric Adapter on p5.48xlarge: 3,200 Gb/s of EFA per instance of
/// 8 H100s (AWS EC2 P5 instance page), 400 Gb/s per GPU; on p4d.24xlarge 400 Gb/s
/// per instance of 8 A100s (EC2 P4d page), 50 Gb/s per GPU. NCCL reaches EFA through
/// the aws-ofi-nccl net plugin, priced with NCCL's NET hop latency.
inline constexpr Link efa_p5 = validated(Link{
    .name = "efa-p5",
    .bandwidth = gigabits_per_second(3200.0 / 8),
    .step_latency = microseconds(2.7),
});
/// AWS EFA on p4d.24xlarge: 400 Gb/s per instance of 8 A100s (EC2 P4d page), 50 Gb/s per GPU.
inline constexpr Link efa_p4d = validated(Link{
    .name = "efa-p4d",
    .bandwidth = gigabits_per_second(400.0 / 8),
    .step_latency = microseconds(2.7),
});

/// AMD Infinity Fabric between MI300X GPUs on an 8-GPU platform: 7 links per GPU,
/// 128 GB/s each counting both directions (AMD Instinct MI300X data sheet; the
/// platform's 896 GB/s aggregate), 7 × 64 = 448 GB/s each way when a collective
/// uses every peer link (RCCL's rings over the full mesh). RCCL publishes no hop
/// latency; NCCL's NVLink step (0.6 µs) stands in for a direct GPU-to-GPU link.
inline constexpr Link infinity_fabric_mi300x = validated(Link{
    .name = "infinity-fabric-mi300x",
    .bandwidth = gigabytes_per_second(7 * 64),
    .step_latency = microseconds(0.6),
});

/// V100 SXM2 NVLink 2: 300 GB/s both directions over 6 links (V100 data sheet),
/// 150 GB/s each way; NCCL's NVLink ring LL step.
inline constexpr Link nvlink2 = validated(Link{
    .name = "nvlink2",
    .bandwidth = gigabytes_per_second(150),
    .step_latency = microseconds(0.6),
});

/// AMD Infinity Fabric between MI355X GPUs on an 8-GPU platform: 7 links per GPU,
/// 153.6 GB/s each counting both directions (AMD Instinct MI355X data sheet: 1,075.2
/// GB/s aggregate), 7 × 76.8 = 537.6 GB/s each way over the full mesh; the step
/// stands in as for MI300X's.
inline constexpr Link infinity_fabric_mi355x = validated(Link{
    .name = "infinity-fabric-mi355x",
    .bandwidth = gigabytes_per_second(7 * 76.8),
    .step_latency = microseconds(0.6),
});

// The 2026 scale-out NICs, one per GPU, each priced with NCCL's NET hop latency
// (tuning.cc hwLat: every network transport alike, plugins included).

/// NVIDIA Spectrum-X800 Ethernet with a ConnectX-8 SuperNIC of 800 Gb/s per GPU
/// (NVIDIA Spectrum-X800 and ConnectX-8 SuperNIC data sheets), RoCE v2.
inline constexpr Link spectrum_x_800g = validated(Link{
    .name = "spectrum-x-800g",
    .bandwidth = gigabits_per_second(800),
    .step_latency = microseconds(2.7),
});

/// AMD Pensando Pollara 400 AI NIC: 400 Gb/s Ethernet (AMD Pollara 400 product
/// brief), one per MI300X/MI355X GPU, RCCL's network transport.
inline constexpr Link pollara_400 = validated(Link{
    .name = "pollara-400",
    .bandwidth = gigabits_per_second(400),
    .step_latency = microseconds(2.7),
});

/// AWS EFA v3 on p5en.48xlarge (3,200 Gb/s per instance of 8 H200s, AWS EC2 P5en
/// page) and EFA v4 on p6-b200.48xlarge (3,200 Gb/s per instance of 8 B200s, EC2
/// P6 page): 400 Gb/s per GPU, through aws-ofi-nccl.
inline constexpr Link efa_v3 = validated(Link{
    .name = "efa-v3",
    .bandwidth = gigabits_per_second(3200.0 / 8),
    .step_latency = microseconds(2.7),
});
/// AWS EFA v4 on p6-b200.48xlarge: 3,200 Gb/s per instance of 8 B200s (EC2 P6 page), 400 Gb/s per GPU.
inline constexpr Link efa_v4 = validated(Link{
    .name = "efa-v4",
    .bandwidth = gigabits_per_second(3200.0 / 8),
    .step_latency = microseconds(2.7),
});

/// Google Cloud A3 Mega: GPUDirect-TCPXO, 1,600 Gb/s per VM of 8 H100s (Google
/// Cloud "GPU machine types", A3 Mega), 200 Gb/s per GPU, through NCCL's FasTrak
/// (TCPXO) net plugin.
inline constexpr Link gpudirect_tcpxo = validated(Link{
    .name = "gpudirect-tcpxo",
    .bandwidth = gigabits_per_second(1600.0 / 8),
    .step_latency = microseconds(2.7),
});

/// Every link above, in the order find_link searches them.
inline constexpr std::array links{&nvlink_a100, &pcie_gen4, &nvlink3, &nvlink4, &ib_hdr, &ib_ndr,
                                  &nvlink5, &pcie4, &pcie5, &ib_xdr, &roce_400g, &efa_p5, &efa_p4d,
                                  &infinity_fabric_mi300x, &nvlink4_gh200_pair, &slingshot11,
                                  &nvlink2, &infinity_fabric_mi355x, &spectrum_x_800g, &pollara_400,
                                  &efa_v3, &efa_v4, &gpudirect_tcpxo};

/// The convention of each link's bandwidth, for list and show.
[[nodiscard]] constexpr std::string_view bandwidth_convention(std::string_view link_name) {
    if (link_name == "nvlink-a100" || link_name == "pcie-gen4")
        return "the lesson's figure as the data sheet writes it (both directions added)";
    return "per direction per GPU";
}

/// Look-ups by catalog name (the names the `napkin` command accepts).
[[nodiscard]] constexpr std::optional<Gpu> find_gpu(std::string_view name) {
    for (const Gpu* gpu : gpus)
        if (gpu->name == name) return *gpu;
    return std::nullopt;
}
/// The catalog link with this name, or nullopt.
[[nodiscard]] constexpr std::optional<Link> find_link(std::string_view name) {
    for (const Link* link : links)
        if (link->name == name) return *link;
    return std::nullopt;
}

}  // namespace napkin::catalog
