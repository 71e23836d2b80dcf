// SPDX-License-Identifier: MIT
// napkin/kernels/memory_pass.hpp — an element-wise or normalisation pass
// (LayerNorm/RMSNorm, activation functions, residual adds, casts, the
// optimizer's update): bound by the bytes it reads and writes, at the
// bandwidth a streaming kernel achieves, plus one launch.
//
// The achieved share of the data sheet's HBM bandwidth is a STREAM triad
// (a[i] = b[i] + s·c[i]; McCalpin 1995) over the catalog's data-sheet figure:
// Azure AI-benchmarking-guide, Azure_Results/ND_*_results.md @ 8fd0c6e,
// "Microbenchmarks / HBM Bandwidth"; generations Azure did not run from
// te42kyfo/gpu-benches' gpu-stream (its best over the occupancy sweep).
// Blackwell has no row: the data sheet's bandwidth (the roofline's).
// tests/unit/kernels.cpp re-derives each share.
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/kernels/launch.hpp>
#include <napkin/kernels/profile.hpp>
#include <napkin/units.hpp>

namespace napkin {

namespace kernel_bandwidth {
/// azure-hbm-a100-sxm4-80gb-triad: 1,700 GB/s of the A100 80 GB SXM's 2,039.
inline constexpr double ampere = 1700.0 / 2039.0;
/// azure-hbm-h100-80gb-hbm3-(sxm)-triad: 2,970 GB/s of the H100 SXM's 3,350.
inline constexpr double hopper = 2970.0 / 3350.0;
/// azure-hbm-mi300x-triad: 4,090 GB/s of the MI300X's 5,300.
inline constexpr double cdna3 = 4090.0 / 5300.0;
/// gpubenches-stream-l40-triad: 803 GB/s of the L40's 864 (GDDR6; L40S and L4 are the same AD10x).
inline constexpr double ada = 803.0 / 864.0;
/// gpubenches-stream-v100-triad: 814 GB/s of the V100's 900.
inline constexpr double volta = 814.0 / 900.0;
/// gpubenches-stream-mi210-triad: 1,305 GB/s of the MI210's 1,638.4 (one CDNA 2 die; an MI250X is two).
inline constexpr double cdna2 = 1305.0 / 1638.4;
}  // namespace kernel_bandwidth

/// The share of the data sheet's HBM bandwidth a streaming kernel achieves: the STREAM triad's under
/// `measured` (1 where the generation has no row), 1 under `roofline`.
[[nodiscard]] constexpr double hbm_share(Architecture a, KernelProfile p) {
    if (p == KernelProfile::roofline) return 1.0;
    switch (a) {
        case Architecture::ampere:
            return kernel_bandwidth::ampere;
        case Architecture::hopper:
            return kernel_bandwidth::hopper;
        case Architecture::cdna3:
            return kernel_bandwidth::cdna3;
        case Architecture::ada:
            return kernel_bandwidth::ada;
        case Architecture::volta:
            return kernel_bandwidth::volta;
        case Architecture::cdna2:
            return kernel_bandwidth::cdna2;
        case Architecture::blackwell:
        case Architecture::rtx_blackwell:
        case Architecture::cdna4:
        case Architecture::unknown:
            return 1.0;  // no STREAM row of the generation: the data sheet's bandwidth
    }
    return 1.0;
}

/// The bandwidth a streaming kernel achieves on `gpu`, in bytes per second.
[[nodiscard]] constexpr BytesPerSecond achieved_bandwidth(const Gpu& gpu, KernelProfile p) {
    return gpu.memory_bandwidth * hbm_share(gpu.architecture, p);
}

/// One pass moving `moved` bytes (read and written): moved / achieved bandwidth + a launch.
[[nodiscard]] constexpr Seconds memory_pass_time(Bytes moved, const Gpu& gpu, KernelProfile p) {
    require_non_negative("memory pass (bytes)", moved.value());
    return moved / achieved_bandwidth(gpu, p) + launch_cost(gpu.architecture, p);
}

}  // namespace napkin
