// SPDX-License-Identifier: MIT
// napkin/kernels/profile.hpp — which ceilings the kernel layer prices with:
//  - `roofline`: the lesson's closed forms, exact — every GEMM and attention
//    kernel at the data sheet's tensor peak, every memory pass at the data
//    sheet's bandwidth, no launch cost (every seed number reproduces);
//  - `measured`: the ceilings of published kernel measurements
//    (tests/data/measured-kernels.json, each constant citing its rows): the
//    best achievable GEMM, STREAM-like bandwidth, flash attention's and paged
//    decode attention's measured rates, the per-kernel launch cost.
#pragma once

#include <napkin/names.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace napkin {

/// Which ceilings the kernel layer prices with: the data sheet's (`roofline`) or published measurements' (`measured`).
enum class KernelProfile { roofline, measured };

/// Each profile's name, as to_string writes it and parse_kernel_profile reads it.
inline constexpr std::array kernel_profile_names{Named{KernelProfile::roofline, "roofline"},
                                                 Named{KernelProfile::measured, "measured"}};

/// The profile's name: "roofline" or "measured".
[[nodiscard]] constexpr std::string_view to_string(KernelProfile p) { return name_of(p, kernel_profile_names); }
/// The profile named `text`, or nothing if no profile has that name.
[[nodiscard]] constexpr std::optional<KernelProfile> parse_kernel_profile(std::string_view text) {
    return value_of(text, kernel_profile_names);
}

}  // namespace napkin
