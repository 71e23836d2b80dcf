// SPDX-License-Identifier: MIT
// napkin/io/quantity_parse.hpp — a size, a rate or a time typed with its unit:
// "80GiB", "280 GB", "50GB/s", "400Gb/s" (bits: 50 GB/s), "5us", "1.5ms".
//
// One parser for every front end. Bytes are B, decimal KB/MB/GB/TB/PB (k or K)
// or binary KiB/MiB/GiB/TiB; bits are b, Kb/Mb/Gb/Tb (8 bits to the byte).
// A rate is a size per second ("/s" or "ps": 50GB/s, 400Gbps). A time is ns,
// us (or µs), ms, s, min, h or d (a day, 86,400 s). A power is W, kW or MW
// (700W, 1.2kW). A count takes k, M, B (or G) and T for 1e3, 1e6, 1e9 and 1e12
// (15.6T tokens). A compute rate is FLOP/s with G, T or P
// (989TFLOP/s, 989 TFLOPS, 1.98PFLOP/s). A bare number is bytes for a size; a
// rate and a time need their unit, so "400" cannot be read 8× off.
#pragma once

#include <napkin/error.hpp>
#include <napkin/units.hpp>

#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace napkin::io {

namespace detail {

struct NumberAndUnit {
    double value;
    std::string_view unit;
};

/// A finite, non-negative decimal number, then optional spaces, then the rest.
[[nodiscard]] inline std::optional<NumberAndUnit> split_number(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end == text.data() || !std::isfinite(value) || value < 0) return std::nullopt;
    std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
    return NumberAndUnit{value, unit};
}

/// Bytes in one unit of data: "GB" → 1e9, "GiB" → 2^30, "Gb" → 1e9 / 8.
[[nodiscard]] inline std::optional<double> bytes_in(std::string_view unit) {
    if (unit == "B") return 1.0;
    if (unit == "b") return 1.0 / 8;  // a bit
    if (unit.size() < 2) return std::nullopt;
    double scale = 0;
    const bool binary = unit.size() == 3 && unit[1] == 'i';
    switch (unit.front()) {
        case 'k':
        case 'K':
            scale = binary ? 1024.0 : 1e3;
            break;
        case 'M':
            scale = binary ? 1024.0 * 1024 : 1e6;
            break;
        case 'G':
            scale = binary ? 1024.0 * 1024 * 1024 : 1e9;
            break;
        case 'T':
            scale = binary ? 1024.0 * 1024 * 1024 * 1024 : 1e12;
            break;
        case 'P':
            scale = binary ? 1024.0 * 1024 * 1024 * 1024 * 1024 : 1e15;
            break;
        default:
            return std::nullopt;
    }
    if (unit.size() != (binary ? 3U : 2U)) return std::nullopt;
    if (unit.back() == 'B') return scale;
    if (unit.back() == 'b' && !binary) return scale / 8;  // bits: 400 Gb = 50 GB
    return std::nullopt;
}

}  // namespace detail

/// The largest value any parser accepts, in base units: 10^30 B, B/s or s is
/// beyond every machine and every sensible time, and far from overflow.
inline constexpr double largest_parsed_value = 1e30;

/// A size in bytes: "80GiB", "280 GB", "400Gb" (bits), or a bare number of bytes; nullopt if not one.
[[nodiscard]] inline std::optional<Bytes> parse_bytes(std::string_view text) {
    const auto parsed = detail::split_number(text);
    if (!parsed) return std::nullopt;
    const auto scale = parsed->unit.empty() ? std::optional<double>{1.0} : detail::bytes_in(parsed->unit);
    if (!scale || parsed->value * *scale > largest_parsed_value) return std::nullopt;
    return bytes(parsed->value * *scale);
}

/// A rate in bytes per second: a size unit with "/s" or "ps" ("50GB/s", "400Gbps"); nullopt if not one.
[[nodiscard]] inline std::optional<BytesPerSecond> parse_rate(std::string_view text) {
    const auto parsed = detail::split_number(text);
    if (!parsed) return std::nullopt;
    std::string_view unit = parsed->unit;
    if (!unit.ends_with("/s") && !unit.ends_with("ps")) return std::nullopt;  // per second
    unit.remove_suffix(2);
    const auto scale = detail::bytes_in(unit);
    if (!scale || parsed->value * *scale > largest_parsed_value) return std::nullopt;
    return bytes_per_second(parsed->value * *scale);
}

/// A time in seconds: a number with ns, us (or µs), ms, s, min, h or d; nullopt if not one.
[[nodiscard]] inline std::optional<Seconds> parse_time(std::string_view text) {
    const auto parsed = detail::split_number(text);
    if (!parsed) return std::nullopt;
    const std::string_view u = parsed->unit;
    double scale = 0;
    if (u == "s")
        scale = 1;
    else if (u == "ms")
        scale = 1e-3;
    else if (u == "us" || u == "\u00b5s" || u == "\u03bcs")
        scale = 1e-6;  // micro sign or Greek mu
    else if (u == "ns")
        scale = 1e-9;
    else if (u == "min")
        scale = 60;
    else if (u == "h")
        scale = 3600;
    else if (u == "d")
        scale = 86400;  // a day of 24 hours
    else
        return std::nullopt;
    if (parsed->value * scale > largest_parsed_value) return std::nullopt;
    return seconds(parsed->value * scale);
}

/// A compute rate in FLOP/s: FLOP/s, FLOPS or FLOPs/s with an optional G, T, P or E ("989TFLOP/s"); else nullopt.
[[nodiscard]] inline std::optional<FlopsPerSecond> parse_flop_rate(std::string_view text) {
    const auto parsed = detail::split_number(text);
    if (!parsed) return std::nullopt;
    std::string_view u = parsed->unit;
    double scale = 1;
    switch (u.empty() ? ' ' : u.front()) {
        case 'G':
            scale = 1e9;
            break;
        case 'T':
            scale = 1e12;
            break;
        case 'P':
            scale = 1e15;
            break;
        case 'E':
            scale = 1e18;
            break;
        default:
            break;
    }
    if (scale != 1) u.remove_prefix(1);
    if (u != "FLOP/s" && u != "FLOPS" && u != "FLOPs/s") return std::nullopt;
    if (parsed->value * scale > largest_parsed_value) return std::nullopt;
    return flops_per_second(parsed->value * scale);
}

/// A power in watts: a number with W, kW or MW ("700W", "1.2kW"); nullopt if not one.
[[nodiscard]] inline std::optional<Watts> parse_power(std::string_view text) {
    const auto parsed = detail::split_number(text);
    if (!parsed) return std::nullopt;
    const std::string_view u = parsed->unit;
    double scale = 0;
    if (u == "W")
        scale = 1;
    else if (u == "kW")
        scale = 1e3;
    else if (u == "MW")
        scale = 1e6;
    else
        return std::nullopt;
    if (parsed->value * scale > largest_parsed_value) return std::nullopt;
    return watts(parsed->value * scale);
}

/// A count with an optional decimal suffix: "15.6T" → 1.56e13, "300B" → 3e11.
[[nodiscard]] inline std::optional<double> parse_count(std::string_view text) {
    const auto parsed = detail::split_number(text);
    if (!parsed) return std::nullopt;
    const std::string_view u = parsed->unit;
    double scale = 0;
    if (u.empty())
        scale = 1;
    else if (u == "k" || u == "K")
        scale = 1e3;
    else if (u == "M")
        scale = 1e6;
    else if (u == "B" || u == "G")
        scale = 1e9;
    else if (u == "T")
        scale = 1e12;
    else
        return std::nullopt;
    if (parsed->value * scale > largest_parsed_value) return std::nullopt;
    return parsed->value * scale;
}

/// The same, throwing napkin::invalid_argument naming `name` (the flag as typed)
/// and the text, with what would have been understood.
[[nodiscard]] inline Bytes parse_bytes(const std::string& name, std::string_view text) {
    if (auto v = parse_bytes(text)) return *v;
    reject(name, text,
           "not a size (a number, optionally with B, KB, MB, GB, TB, KiB, MiB, GiB, "
           "TiB or bits Gb: 4096, 1MiB, 280GB)");
}

/// parse_rate, throwing napkin::invalid_argument naming `name` when `text` is not a rate.
[[nodiscard]] inline BytesPerSecond parse_rate(const std::string& name, std::string_view text) {
    if (auto v = parse_rate(text)) return *v;
    reject(name, text,
           "not a rate (a number with its unit: 50GB/s, 400Gb/s in bits, 3.35TB/s, "
           "900GBps)");
}

/// parse_time, throwing napkin::invalid_argument naming `name` when `text` is not a time.
[[nodiscard]] inline Seconds parse_time(const std::string& name, std::string_view text) {
    if (auto v = parse_time(text)) return *v;
    reject(name, text, "not a time (a number with its unit: 5us, 1.5ms, 2s, 100ns, 10min, 90d)");
}

/// parse_power, throwing napkin::invalid_argument naming `name` when `text` is not a power.
[[nodiscard]] inline Watts parse_power(const std::string& name, std::string_view text) {
    if (auto v = parse_power(text)) return *v;
    reject(name, text, "not a power (a number with its unit: 700W, 1.2kW, 20MW)");
}

/// parse_count, throwing napkin::invalid_argument naming `name` when `text` is not a count.
[[nodiscard]] inline double parse_count(const std::string& name, std::string_view text) {
    if (auto v = parse_count(text)) return *v;
    reject(name, text, "not a count (a number, optionally with k, M, B or T: 15.6T, 300B)");
}

/// parse_flop_rate, throwing napkin::invalid_argument naming `name` when `text` is not a compute rate.
[[nodiscard]] inline FlopsPerSecond parse_flop_rate(const std::string& name, std::string_view text) {
    if (auto v = parse_flop_rate(text)) return *v;
    reject(name, text,
           "not a compute rate (a number with its unit: 989TFLOP/s, 1.98PFLOP/s, "
           "312 TFLOPS)");
}

}  // namespace napkin::io
