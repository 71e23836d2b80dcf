// The raw-double twins' shared vocabulary: plain numbers checked range for range
// as the library checks its quantities (hardware.hpp's usual_gpu and usual_link,
// units.hpp's ceil_whole and floor_whole), so that a twin differs from the
// library only in its types.
#pragma once

#include <napkin/hardware.hpp>

#include <limits>
#include <stdexcept>

namespace raw_twin {

inline constexpr double tiny = std::numeric_limits<double>::min();
inline constexpr double huge = std::numeric_limits<double>::max();

[[noreturn, gnu::cold, gnu::noinline]] inline void fail() { throw std::invalid_argument("bad input"); }
/// Throws unless `ok`, the failure out of line as the library's `reject` is.
inline void check(bool ok) {
    if (!ok) [[unlikely]]
        fail();
}
inline bool within(double x, double low, double high) { return x >= low && x <= high; }
inline bool zero_or_within(double x, double low, double high) { return x == 0.0 || within(x, low, high); }

/// A GPU as plain numbers: every field usual_gpu checks.
struct Gpu {
    double memory, usable, bandwidth, flops, fp8, fp6, fp4, int8, board_power;
    long long sm_count;
};
inline Gpu of(const napkin::Gpu& g) {
    return {g.memory.value(),    g.usable_fraction,   g.memory_bandwidth.value(), g.peak_flops.value(),
            g.fp8_flops.value(), g.fp6_flops.value(), g.fp4_flops.value(),        g.int8_ops.value(),
            g.board_power.value(), g.sm_count};
}
/// hardware.hpp's usual_gpu: memory and rates in range, the low-precision rates 0 or in range.
inline bool usual(const Gpu& g) {
    namespace limits = napkin::limits;
    return within(g.memory, 1.0, limits::memory_bytes) && within(g.usable, tiny, 1.0) &&
           within(g.bandwidth, limits::slowest_rate, limits::bandwidth_bytes_per_s) &&
           within(g.flops, limits::slowest_rate, limits::peak_flops_per_s) && g.sm_count >= 0 &&
           g.sm_count <= (1LL << 24) && zero_or_within(g.fp8, limits::slowest_rate, limits::peak_flops_per_s) &&
           zero_or_within(g.fp6, limits::slowest_rate, limits::peak_flops_per_s) &&
           zero_or_within(g.fp4, limits::slowest_rate, limits::peak_flops_per_s) &&
           zero_or_within(g.int8, limits::slowest_rate, limits::peak_flops_per_s) &&
           zero_or_within(g.board_power, 1.0, limits::board_power_w);
}

/// A link as plain numbers: bytes/s and seconds a step.
struct Link {
    double bandwidth, step;
};
/// hardware.hpp's usual_link: a rate in [1 B/s, 1e18 B/s], α 0 or in [DBL_MIN, an hour].
inline bool usual(const Link& l) {
    return within(l.bandwidth, napkin::limits::slowest_rate, napkin::limits::bandwidth_bytes_per_s) &&
           zero_or_within(l.step, tiny, napkin::limits::latency_s);
}

/// units.hpp's ceil_whole and floor_whole: finite, and left as they are from 2^52 on.
inline double ceil_whole(double v) {
    check(v == v && v <= huge && v >= -huge);
    if (v >= 4503599627370496.0 || v <= -4503599627370496.0) return v;
    const auto t = static_cast<double>(static_cast<long long>(v));
    return t < v ? t + 1 : t;
}
inline double floor_whole(double v) {
    check(v == v && v <= huge && v >= -huge);
    if (v >= 4503599627370496.0 || v <= -4503599627370496.0) return v;
    const auto t = static_cast<double>(static_cast<long long>(v));
    return t > v ? t - 1 : t;
}

}  // namespace raw_twin
