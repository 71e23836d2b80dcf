// SPDX-License-Identifier: MIT
// napkin/hardware.hpp — what a GPU and a link between GPUs are, as numbers.
//
// Plain constexpr aggregates, built with designated initializers:
//   constexpr Gpu gpu = validated(Gpu{.name = "mine", .memory = gibibytes(80), ...});
// `validated` rejects impossible values with a message naming the field; at
// compile time that is a compile error.
#pragma once

#include <napkin/error.hpp>
#include <napkin/units.hpp>

#include <string_view>

namespace napkin {

struct Gpu {
    std::string_view name;
    Bytes memory;                    // memory on the card
    double usable_fraction;          // share a serving or training process may claim, in (0, 1]
    BytesPerSecond memory_bandwidth; // reading its own memory
    FlopsPerSecond peak_flops;       // dense 16-bit tensor throughput
};

// A link between two GPUs as the alpha-beta model sees it: the bandwidth one
// GPU sends at, and the latency every step of a collective pays on it.
struct Link {
    std::string_view name;
    BytesPerSecond bandwidth;
    Seconds step_latency;
};

[[nodiscard]] constexpr const Gpu& validated(const Gpu& gpu) {
    detail::require_positive("Gpu.memory (bytes)", gpu.memory.value());
    detail::require(gpu.usable_fraction > 0.0 && gpu.usable_fraction <= 1.0, "Gpu.usable_fraction",
                    gpu.usable_fraction, "must be in (0, 1]");
    detail::require_positive("Gpu.memory_bandwidth (bytes/s)", gpu.memory_bandwidth.value());
    detail::require_positive("Gpu.peak_flops (FLOP/s)", gpu.peak_flops.value());
    return gpu;
}

[[nodiscard]] constexpr const Link& validated(const Link& link) {
    detail::require_positive("Link.bandwidth (bytes/s)", link.bandwidth.value());
    detail::require_non_negative("Link.step_latency (s)", link.step_latency.value());
    return link;
}

// The memory a process may use: the usable share of the card, in whole bytes
// (rounded down, as a byte count is).
[[nodiscard]] constexpr Bytes usable_memory(const Gpu& gpu) {
    return floor_whole(gpu.memory * gpu.usable_fraction);
}

// Time to read `size` from the GPU's own memory once.
[[nodiscard]] constexpr Seconds read_time(Bytes size, const Gpu& gpu) {
    return size / gpu.memory_bandwidth;
}

// Time to run `work` at the GPU's peak rate.
[[nodiscard]] constexpr Seconds compute_time(Flops work, const Gpu& gpu) {
    return work / gpu.peak_flops;
}

}  // namespace napkin
