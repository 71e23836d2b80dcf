// SPDX-License-Identifier: MIT
// napkin/kernels/gemm_ceiling.hpp — the share of the data sheet's dense
// tensor peak the best-shaped GEMM reaches on a GPU generation, per
// precision: the maximum achievable matmul FLOP/s (stas00/ml-engineering,
// compute/accelerator/README.md @ 744d01e, "Maximum Achievable Matmul FLOPS
// comparison table": mamf-finder's brute-force search over M, N, K, mean of
// 100 iterations after 50 warm-up) over the same table's "Theory" peak (Ada,
// which the table lacks: a square-GEMM sweep's best, zzc-l40s-bf16). What
// a GEMM of a given shape loses below that (tiles, waves, memory) is
// napkin/kernels/gemm.hpp's. The row ids are those of
// tests/data/measured-kernels.json; tests/unit/kernels.cpp re-derives each
// share from them.
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/kernels/profile.hpp>
#include <napkin/parallelism.hpp>

namespace napkin {

namespace kernel_ceilings {
/// mle-mamf-bf16-a100-sxm: 271.2 of 312 TFLOP/s (A100 SXM, BF16).
inline constexpr double ampere_16bit = 271.2 / 312.0;
/// mle-mamf-bf16-h100-sxm: 794.5 of 989 (H100 SXM, BF16).
inline constexpr double hopper_16bit = 794.5 / 989.0;
/// mle-mamf-fp8-h100-sxm: 1,402.6 of 1,979 (H100 SXM, FP8 e4m3fn).
inline constexpr double hopper_fp8 = 1402.6 / 1979.0;
/// mle-mamf-bf16-b200-sxm: 1,745 of 2,250 (B200 SXM, BF16).
inline constexpr double blackwell_16bit = 1745.0 / 2250.0;
/// mle-mamf-fp8-b200-sxm: 3,432.5 of 4,500 (B200 SXM, FP8 e4m3fn).
inline constexpr double blackwell_fp8 = 3432.5 / 4500.0;
/// mle-mamf-v1-bf16-mi250x-1gcd: 147 of 191.5 per GCD (MI250X, BF16; the table's older v1).
inline constexpr double cdna2_16bit = 147.0 / 191.5;
/// mle-mamf-bf16-mi300x: 668.4 of 1,300 (MI300X, BF16).
inline constexpr double cdna3_16bit = 668.4 / 1300.0;
/// amd-maf-mi300x-fp8 (ROCm blogs, "Measuring max-achievable FLOPs, part 2", Table 1: hipBLASLt's best
/// shape): 1,273 of the MI300X data sheet's 2,614.9 (FP8; the MAMF table has no FP8 row of CDNA 3).
inline constexpr double cdna3_fp8 = 1273.0 / 2614.9;
/// mle-mamf-bf16-mi355x: 1,565 of the data sheet's 2,516.6 (MI355X, BF16; the table's "Theory" column
/// says 2,300, the MI350X's, so its 68.0 % would price a catalog MI355X 9 % above what was measured).
inline constexpr double cdna4_16bit = 1565.0 / 2516.6;
/// zzc-l40s-bf16 (zzc0721/torch-performance-test-data, database.md @ 9d82827: the best square torch.mm
/// from 1,024 to 10,240): 269.15 of the L40S data sheet's 362.05 dense (Ada; no MAMF row).
inline constexpr double ada_16bit = 269.15 / 362.05;
}  // namespace kernel_ceilings

/// The share of the precision's data-sheet peak the best GEMM reaches: 1 under
/// the roofline profile and for a GPU of unknown generation; an FP8 GEMM on a
/// generation without an FP8 row (CDNA 2 and 4, Ada) takes its 16-bit share.
[[nodiscard]] constexpr double gemm_ceiling(Architecture a, DType precision, KernelProfile p) {
    require(precision == DType::bf16 || precision == DType::fp16 || precision == DType::fp8, "GEMM precision",
            static_cast<double>(precision), "must be bf16, fp16 or fp8");
    if (p == KernelProfile::roofline) return 1.0;
    const bool fp8 = precision == DType::fp8;
    switch (a) {
        case Architecture::ampere:
            return kernel_ceilings::ampere_16bit;
        case Architecture::hopper:
            return fp8 ? kernel_ceilings::hopper_fp8 : kernel_ceilings::hopper_16bit;
        case Architecture::blackwell:
        case Architecture::rtx_blackwell:  // no row of its own: the same fifth-generation tensor cores as B200's
            return fp8 ? kernel_ceilings::blackwell_fp8 : kernel_ceilings::blackwell_16bit;
        case Architecture::cdna2:
            return kernel_ceilings::cdna2_16bit;
        case Architecture::cdna3:
            return fp8 ? kernel_ceilings::cdna3_fp8 : kernel_ceilings::cdna3_16bit;
        case Architecture::cdna4:
            return kernel_ceilings::cdna4_16bit;
        case Architecture::ada:  // no FP8 row: FP8 takes the 16-bit share, as on CDNA
            return kernel_ceilings::ada_16bit;
        case Architecture::volta:  // no GEMM row of these generations: the data sheet's peak
        case Architecture::unknown:
            return 1.0;
    }
    return 1.0;
}

/// The data-sheet tensor peak of a precision: the 16-bit peak for bf16 and
/// fp16, the FP8 peak for fp8 (rejected on a GPU without FP8 tensor cores).
[[nodiscard]] constexpr FlopsPerSecond tensor_peak(const Gpu& gpu, DType precision) {
    require(precision == DType::bf16 || precision == DType::fp16 || precision == DType::fp8, "GEMM precision",
            static_cast<double>(precision), "must be bf16, fp16 or fp8");
    if (precision != DType::fp8) return gpu.peak_flops;
    if (gpu.fp8_flops.value() <= 0.0) reject("GEMM precision", "fp8", "the GPU has no FP8 tensor cores");
    return gpu.fp8_flops;
}

}  // namespace napkin
