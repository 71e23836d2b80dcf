// SPDX-License-Identifier: MIT
// napkin/kernels/gemm.hpp — one GEMM's time from its shape, precision and GPU:
//
//   const Seconds t = kernel_gemm_time({.m = 4096, .n = 4096, .k = 4096}, DType::bf16, gpu, KernelProfile::measured);
//
//   math   = 2·m·n·k·batch / (peak(precision) · ceiling · quantization)
//   memory = (m·k + k·n + m·n)·batch · element bytes / achieved bandwidth
//   time   = max(math, memory) + one launch
// with the tiles and waves of napkin/gemm.hpp (quantization_efficiency: the
// output split into cuBLAS's 256 × 128 tiles, one per SM a wave), the best
// GEMM's share of the data-sheet peak (napkin/kernels/gemm_ceiling.hpp), the
// streaming bandwidth and launch cost (memory_pass.hpp, launch.hpp). A skinny
// GEMM — m the few tokens of a decode step — is its weight read, k·n elements,
// at the achieved bandwidth. Under KernelProfile::roofline every share is 1
// and no launch is paid: exactly napkin/gemm.hpp's gemm_time at share 1.
#pragma once

#include <napkin/error.hpp>
#include <napkin/gemm.hpp>
#include <napkin/hardware.hpp>
#include <napkin/kernels/gemm_ceiling.hpp>
#include <napkin/kernels/launch.hpp>
#include <napkin/kernels/memory_pass.hpp>
#include <napkin/kernels/profile.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/units.hpp>

#include <algorithm>

namespace napkin {

/// Bytes per element of a GEMM's operands in a precision.
[[nodiscard]] constexpr double gemm_element_bytes(DType precision) { return precision == DType::fp8 ? 1.0 : 2.0; }

/// The output tile a measured GEMM runs with: the guide's tiles come in 256,
/// 128 and 64 rows (Matrix Multiplication Background guide, "Tile
/// quantization": 256 × 128 down to 64 × 64), and a GEMM of few rows (a decode
/// step's tokens) takes the smallest that holds them. The roofline profile
/// keeps napkin/gemm.hpp's 256 × 128.
[[nodiscard]] constexpr Tile kernel_tile(const GemmShape& g, KernelProfile p) {
    if (p == KernelProfile::roofline || g.m > 128.0) return cublas_tile;
    return Tile{.rows = g.m > 64.0 ? 128.0 : 64.0, .cols = 128.0};
}

/// The tensor-core time of the GEMM (after quantization, at the ceiling).
[[nodiscard]] constexpr Seconds kernel_gemm_math_time(const GemmShape& g, DType precision, const Gpu& gpu,
                                                      KernelProfile p) {
    const double share = gemm_ceiling(gpu.architecture, precision, p);
    return gemm_flops(g) /
           (tensor_peak(gpu, precision) * (share * quantization_efficiency(g, gpu.sm_count, kernel_tile(g, p))));
}

/// The memory time of the GEMM: its operands and result at the achieved bandwidth.
[[nodiscard]] constexpr Seconds kernel_gemm_memory_time(const GemmShape& g, DType precision, const Gpu& gpu,
                                                        KernelProfile p) {
    const GemmSettings s{.peak = tensor_peak(gpu, precision), .element_bytes = gemm_element_bytes(precision)};
    return gemm_bytes(g, s) / achieved_bandwidth(gpu, p);
}

/// The time of one GEMM kernel: the slower of its tensor-core and memory times, plus a launch.
[[nodiscard]] constexpr Seconds kernel_gemm_time(const GemmShape& g, DType precision, const Gpu& gpu, KernelProfile p) {
    return std::max(kernel_gemm_math_time(g, precision, gpu, p), kernel_gemm_memory_time(g, precision, gpu, p)) +
           launch_cost(gpu.architecture, p);
}

/// The achieved TFLOP/s of the GEMM (what a GEMM benchmark prints).
[[nodiscard]] constexpr FlopsPerSecond kernel_gemm_rate(const GemmShape& g, DType precision, const Gpu& gpu,
                                                        KernelProfile p) {
    return gemm_flops(g) / kernel_gemm_time(g, precision, gpu, p);
}

}  // namespace napkin
