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
// bandwidth a decode-shaped GEMM streams its operands at (gemm_stream_share;
// the STREAM triad's where no GEMM was measured, memory_pass.hpp) and the
// launch cost (launch.hpp). A skinny GEMM — m the few tokens of a decode step —
// is its weight read, k·n elements, at that bandwidth. Under
// KernelProfile::roofline every share is 1 and no launch is paid: exactly
// napkin/gemm.hpp's gemm_time at share 1.
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

namespace kernel_gemm_stream {
// vLLM PR 49363 (benchmarks/kernels/bench_fp8_gemm.py, H100): N = 12,288, K = 5,376 at M = 1, 16
// and 64 tokens — operands and result over the time 2·M·N·K / TFLOP/s. The card is not named;
// 2.9 TB/s is beyond the PCIe card's 2.0, so the SXM's 3,350 GB/s.
/// vllm49363-h100-torch-bf16-N12288K5376-M{1,16,64} (torch.mm): 2,871.1, 2,921.3 and 2,901.8 GB/s.
inline constexpr double hopper_16bit = (2871.1 + 2921.3 + 2901.8) / 3.0 / 3350.0;
/// vllm49363-h100-fp8-tensor-w-tensor-a-noquant-N12288K5376-M{1,16,64} (CUTLASS FP8, BF16 out):
/// 2,582.6, 2,614.2 and 2,559.8 GB/s.
inline constexpr double hopper_fp8 = (2582.6 + 2614.2 + 2559.8) / 3.0 / 3350.0;
// vLLM PR 20071 (the same benchmark, SM100): N = 28,672, K = 4,096 at M = 1, 16 and 64. The card
// is not named; every SM100 part (B200, GB200) has HBM3e at 8,000 GB/s.
/// vllm20071-sm100-torch-bf16-N28672K4096-M{1,16,64}: 5,809.3, 5,266.5 and 5,206.8 GB/s.
inline constexpr double blackwell_16bit = (5809.3 + 5266.5 + 5206.8) / 3.0 / 8000.0;
/// vllm20071-sm100-fp8-tensor-w-tensor-a-noquant-N28672K4096-M{1,16,64}: 5,313.7, 5,322.3 and 5,239.7 GB/s.
inline constexpr double blackwell_fp8 = (5313.7 + 5322.3 + 5239.7) / 3.0 / 8000.0;
}  // namespace kernel_gemm_stream

/// The share of the data sheet's HBM bandwidth a decode-shaped GEMM (a few rows, the weights
/// streamed once) reaches: the measured GEMMs' on Hopper and data-center Blackwell, per precision
/// (FP8's kernels stream 11 % and 2.5 % slower than BF16's); the STREAM triad's (hbm_share) on a
/// generation without such a row; 1 under the roofline.
[[nodiscard]] constexpr double gemm_stream_share(Architecture a, DType precision, KernelProfile p) {
    if (p == KernelProfile::roofline) return 1.0;
    const bool fp8 = precision == DType::fp8;
    if (a == Architecture::hopper) return fp8 ? kernel_gemm_stream::hopper_fp8 : kernel_gemm_stream::hopper_16bit;
    if (a == Architecture::blackwell)
        return fp8 ? kernel_gemm_stream::blackwell_fp8 : kernel_gemm_stream::blackwell_16bit;
    return hbm_share(a, p);
}

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

/// The memory time of the GEMM: its operands and result at the bandwidth a GEMM streams them.
[[nodiscard]] constexpr Seconds kernel_gemm_memory_time(const GemmShape& g, DType precision, const Gpu& gpu,
                                                        KernelProfile p) {
    const GemmSettings s{.peak = tensor_peak(gpu, precision), .element_bytes = gemm_element_bytes(precision)};
    return gemm_bytes(g, s) / (gpu.memory_bandwidth * gemm_stream_share(gpu.architecture, precision, p));
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
