// SPDX-License-Identifier: MIT
// napkin/kernels/launch.hpp — what each kernel costs besides its work: the
// per-kernel startup overhead of back-to-back small kernels queued in one
// stream without a graph (te42kyfo/gpu-benches @ 1c36d50,
// gpu-small-kernels/repeated-stream.svg: 10,000 queued SCALE kernels, the fit
// T = V/(a + V/b), its `a`). Row ids of tests/data/measured-kernels.json;
// tests/unit/kernels.cpp re-reads them. Blackwell and CDNA 3 have no row of
// this benchmark: no launch cost (the roofline's).
#pragma once

#include <napkin/hardware.hpp>
#include <napkin/kernels/profile.hpp>
#include <napkin/units.hpp>

namespace napkin {

namespace kernel_launch {
inline constexpr double ampere_us = 2.555;  ///< Ampere, µs per kernel (gpubenches-smallkernel-fit-a100-80gb)
inline constexpr double hopper_us = 2.433;  ///< Hopper, µs per kernel (gpubenches-smallkernel-fit-h200)
inline constexpr double cdna2_us = 1.956;   ///< CDNA 2, µs per kernel (gpubenches-smallkernel-fit-mi210)
inline constexpr double ada_us = 1.6;       ///< Ada, µs per kernel (gpubenches-smallkernel-fit-l40)
}  // namespace kernel_launch

/// The startup overhead of one kernel, in seconds: the fitted per-kernel cost under `measured`, none under
/// `roofline` or on a generation with no row of the benchmark.
[[nodiscard]] constexpr Seconds launch_cost(Architecture a, KernelProfile p) {
    if (p == KernelProfile::roofline) return Seconds{};
    switch (a) {
        case Architecture::ampere:
            return seconds(kernel_launch::ampere_us * 1e-6);
        case Architecture::hopper:
            return seconds(kernel_launch::hopper_us * 1e-6);
        case Architecture::cdna2:
            return seconds(kernel_launch::cdna2_us * 1e-6);
        case Architecture::ada:
            return seconds(kernel_launch::ada_us * 1e-6);
        case Architecture::blackwell:
        case Architecture::cdna3:
        case Architecture::volta:
        case Architecture::rtx_blackwell:
        case Architecture::cdna4:
        case Architecture::unknown:
            return Seconds{};
    }
    return Seconds{};
}

}  // namespace napkin
