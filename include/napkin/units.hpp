// SPDX-License-Identifier: MIT
// napkin/units.hpp — the unit layer: the only header that names boost::units.
//
// Dimensions that must never be mixed up: bytes, seconds, FLOPs (a count of
// floating-point operations), tokens and energy (joules), plus the rates built
// from them (a watt is a joule per second). Every
// quantity holds a double. Numbers enter through named constructors
// (`gibibytes(80)`, `microseconds(6.6)`) or literals, and leave through
// `in(x, unit)`; nothing converts implicitly from or to a raw double.
#pragma once

#include <boost/units/base_dimension.hpp>
#include <boost/units/base_unit.hpp>
#include <boost/units/base_units/information/byte.hpp>
#include <boost/units/base_units/si/second.hpp>
#include <boost/units/derived_dimension.hpp>
#include <boost/units/make_system.hpp>
#include <boost/units/physical_dimensions/information.hpp>
#include <boost/units/physical_dimensions/time.hpp>
#include <boost/units/quantity.hpp>
#include <boost/units/unit.hpp>

#include <napkin/error.hpp>

#include <concepts>
#include <limits>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

namespace napkin {

namespace dimensions {
// Ordinals only need to be unique among base dimensions; Boost's own use small
// negative numbers, so these large positive ones cannot collide.
struct flop_base_dimension : boost::units::base_dimension<flop_base_dimension, 7101> {};      ///< FLOP counts.
struct token_base_dimension : boost::units::base_dimension<token_base_dimension, 7102> {};    ///< Token counts.
struct energy_base_dimension : boost::units::base_dimension<energy_base_dimension, 7103> {};  ///< Energy.
using flop = flop_base_dimension::dimension_type;                                             ///< FLOP counts.
using token = token_base_dimension::dimension_type;                                           ///< Token counts.
using energy = energy_base_dimension::dimension_type;                                         ///< Energy.
}  // namespace dimensions

namespace base_units {
/// The FLOP base unit: one floating-point operation, symbol "FLOP".
struct flop : boost::units::base_unit<flop, dimensions::flop, 7111> {
    static constexpr const char* name() { return "floating-point operation"; }
    static constexpr const char* symbol() { return "FLOP"; }
};
/// The token base unit: one token, symbol "token".
struct token : boost::units::base_unit<token, dimensions::token, 7112> {
    static constexpr const char* name() { return "token"; }
    static constexpr const char* symbol() { return "token"; }
};
/// Energy as its own base: napkin never needs the joule as kg·m²/s², only that
/// a watt for a second is a joule (SI Brochure, 9th ed., Table 4).
struct joule : boost::units::base_unit<joule, dimensions::energy, 7113> {
    static constexpr const char* name() { return "joule"; }
    static constexpr const char* symbol() { return "J"; }
};
}  // namespace base_units

/// One coherent system: second, byte, FLOP, token, joule.
using system = boost::units::make_system<boost::units::si::second_base_unit,
                                         boost::units::information::byte_base_unit,
                                         base_units::flop, base_units::token, base_units::joule>::type;

namespace unit_types {
using second = boost::units::unit<boost::units::time_dimension, system>;             ///< The second.
using byte = boost::units::unit<boost::units::information_dimension, system>;        ///< The byte.
using flop = boost::units::unit<dimensions::flop, system>;                           ///< One floating-point operation.
using token = boost::units::unit<dimensions::token, system>;                         ///< One token.
using joule = boost::units::unit<dimensions::energy, system>;                        ///< The joule.
using dimensionless = boost::units::unit<boost::units::dimensionless_type, system>;  ///< A plain number.
}  // namespace unit_types

/// A quantity in napkin's system of the given unit, held as a double.
template <class Unit>
using Quantity = boost::units::quantity<Unit, double>;

using Seconds = Quantity<unit_types::second>;  ///< A time in seconds.
using Bytes = Quantity<unit_types::byte>;      ///< A size in bytes.
using Flops = Quantity<unit_types::flop>;      ///< A count of operations, not a rate.
using Tokens = Quantity<unit_types::token>;    ///< A count of tokens.
using Joules = Quantity<unit_types::joule>;    ///< An energy in joules.

/// Rates and ratios are whatever the arithmetic gives, so `Bytes / Seconds` is
/// exactly `BytesPerSecond` and no conversion is ever needed.
template <class A, class B>
using Quotient = decltype(std::declval<A>() / std::declval<B>());
using BytesPerSecond = Quotient<Bytes, Seconds>;    ///< Bytes per second: memory and link bandwidth.
using FlopsPerSecond = Quotient<Flops, Seconds>;    ///< FLOPs per second: a compute rate.
using TokensPerSecond = Quotient<Tokens, Seconds>;  ///< Tokens per second: a throughput.
using BytesPerToken = Quotient<Bytes, Tokens>;      ///< Bytes per token.
using FlopsPerToken = Quotient<Flops, Tokens>;      ///< FLOPs per token.
using Watts = Quotient<Joules, Seconds>;            ///< Power: a joule per second.
using JoulesPerToken = Quotient<Joules, Tokens>;    ///< Energy per token, in joules.

/// Any quantity: a type with a `unit_type` and a `value()` that converts to double.
template <class Q>
concept QuantityType = requires(const Q& q) {
    typename Q::unit_type;
    { q.value() } -> std::convertible_to<double>;
};

/// A unit to read a quantity in: how many base units it holds and its symbol.
template <class Q>
struct Unit {
    double factor;
    const char* symbol;
};

namespace units {
// Sizes: binary prefixes (IEC 80000-13) are powers of 1,024, decimal ones of 1,000.
inline constexpr Unit<Bytes> B{1.0, "B"};                                    ///< Byte.
inline constexpr Unit<Bytes> KiB{1024.0, "KiB"};                             ///< Kibibyte, 1,024 B.
inline constexpr Unit<Bytes> MiB{1024.0 * 1024.0, "MiB"};                    ///< Mebibyte, 1,024² B.
inline constexpr Unit<Bytes> GiB{1024.0 * 1024.0 * 1024.0, "GiB"};           ///< Gibibyte, 1,024³ B.
inline constexpr Unit<Bytes> TiB{1024.0 * 1024.0 * 1024.0 * 1024.0, "TiB"};  ///< Tebibyte, 1,024⁴ B.
inline constexpr Unit<Bytes> KB{1e3, "KB"};                                  ///< Kilobyte, 10^3 B.
inline constexpr Unit<Bytes> MB{1e6, "MB"};                                  ///< Megabyte, 10^6 B.
inline constexpr Unit<Bytes> GB{1e9, "GB"};                                  ///< Gigabyte, 10^9 B.
inline constexpr Unit<Bytes> TB{1e12, "TB"};                                 ///< Terabyte, 10^12 B.
// Times.
inline constexpr Unit<Seconds> s{1.0, "s"};           ///< Second.
inline constexpr Unit<Seconds> ms{1e-3, "ms"};        ///< Millisecond.
inline constexpr Unit<Seconds> us{1e-6, "\u00b5s"};   ///< Microsecond, printed "µs".
inline constexpr Unit<Seconds> ns{1e-9, "ns"};        ///< Nanosecond.
inline constexpr Unit<Seconds> minutes{60.0, "min"};  ///< Minute, 60 s.
inline constexpr Unit<Seconds> hours{3600.0, "h"};    ///< Hour, 3,600 s.
// Rates: link and memory figures are quoted in decimal units on data sheets.
inline constexpr Unit<BytesPerSecond> Bps{1.0, "B/s"};          ///< Byte per second.
inline constexpr Unit<BytesPerSecond> GBps{1e9, "GB/s"};        ///< Gigabyte per second, 10^9 B/s.
inline constexpr Unit<BytesPerSecond> TBps{1e12, "TB/s"};       ///< Terabyte per second, 10^12 B/s.
inline constexpr Unit<BytesPerSecond> Gbps{1e9 / 8.0, "Gb/s"};  ///< Gigabit per second; bits: a byte is 8 bits.
// Work.
inline constexpr Unit<Flops> FLOP{1.0, "FLOP"};                        ///< One floating-point operation.
inline constexpr Unit<Flops> TFLOP{1e12, "TFLOP"};                     ///< 10^12 FLOP.
inline constexpr Unit<Flops> PFLOP{1e15, "PFLOP"};                     ///< 10^15 FLOP.
inline constexpr Unit<FlopsPerSecond> FLOPps{1.0, "FLOP/s"};           ///< One FLOP per second.
inline constexpr Unit<FlopsPerSecond> TFLOPps{1e12, "TFLOP/s"};        ///< 10^12 FLOP/s.
inline constexpr Unit<FlopsPerSecond> PFLOPps{1e15, "PFLOP/s"};        ///< 10^15 FLOP/s.
inline constexpr Unit<Tokens> token{1.0, "tokens"};                    ///< One token.
inline constexpr Unit<TokensPerSecond> tokens_per_s{1.0, "tokens/s"};  ///< One token per second.
inline constexpr Unit<BytesPerToken> bytes_per_token{1.0, "B/token"};  ///< One byte per token.
// Energy and power: a kilowatt-hour is 3.6e6 J (1,000 W for 3,600 s).
inline constexpr Unit<Joules> J{1.0, "J"};                               ///< Joule.
inline constexpr Unit<Joules> kWh{3.6e6, "kWh"};                         ///< Kilowatt-hour, 3.6e6 J.
inline constexpr Unit<Joules> MWh{3.6e9, "MWh"};                         ///< Megawatt-hour, 3.6e9 J.
inline constexpr Unit<Watts> W{1.0, "W"};                                ///< Watt, a joule per second.
inline constexpr Unit<Watts> kW{1e3, "kW"};                              ///< Kilowatt, 10^3 W.
inline constexpr Unit<Watts> MW{1e6, "MW"};                              ///< Megawatt, 10^6 W.
inline constexpr Unit<JoulesPerToken> joules_per_token{1.0, "J/token"};  ///< One joule per token.
}  // namespace units

/// The one way a number leaves the type system: `in(t, units::ms)` is t in milliseconds.
template <class Q>
[[nodiscard]] constexpr double in(const Q& q, Unit<Q> unit) {
    return q.value() / unit.factor;
}

/// The one way a number enters it: `quantity(80, units::GiB)` is 80 GiB.
template <class Q>
[[nodiscard]] constexpr Q quantity(double value, Unit<Q> unit) {
    return Q::from_value(value * unit.factor);
}

// Named constructors.
/// `v` bytes.
[[nodiscard]] constexpr Bytes bytes(double v) { return quantity(v, units::B); }
/// `v` KiB.
[[nodiscard]] constexpr Bytes kibibytes(double v) { return quantity(v, units::KiB); }
/// `v` MiB.
[[nodiscard]] constexpr Bytes mebibytes(double v) { return quantity(v, units::MiB); }
/// `v` GiB: `gibibytes(80)` is 80 × 2^30 bytes.
[[nodiscard]] constexpr Bytes gibibytes(double v) { return quantity(v, units::GiB); }
/// `v` TiB.
[[nodiscard]] constexpr Bytes tebibytes(double v) { return quantity(v, units::TiB); }
/// `v` KB (10^3 bytes each).
[[nodiscard]] constexpr Bytes kilobytes(double v) { return quantity(v, units::KB); }
/// `v` MB (10^6 bytes each).
[[nodiscard]] constexpr Bytes megabytes(double v) { return quantity(v, units::MB); }
/// `v` GB (10^9 bytes each).
[[nodiscard]] constexpr Bytes gigabytes(double v) { return quantity(v, units::GB); }
/// `v` TB (10^12 bytes each).
[[nodiscard]] constexpr Bytes terabytes(double v) { return quantity(v, units::TB); }
/// `v` seconds.
[[nodiscard]] constexpr Seconds seconds(double v) { return quantity(v, units::s); }
/// `v` milliseconds.
[[nodiscard]] constexpr Seconds milliseconds(double v) { return quantity(v, units::ms); }
/// `v` microseconds.
[[nodiscard]] constexpr Seconds microseconds(double v) { return quantity(v, units::us); }
/// `v` nanoseconds.
[[nodiscard]] constexpr Seconds nanoseconds(double v) { return quantity(v, units::ns); }
/// A bandwidth of `v` bytes per second.
[[nodiscard]] constexpr BytesPerSecond bytes_per_second(double v) { return quantity(v, units::Bps); }
/// A bandwidth of `v` GB/s.
[[nodiscard]] constexpr BytesPerSecond gigabytes_per_second(double v) { return quantity(v, units::GBps); }
/// A bandwidth of `v` TB/s.
[[nodiscard]] constexpr BytesPerSecond terabytes_per_second(double v) { return quantity(v, units::TBps); }
/// A bandwidth of `v` Gb/s (`v` / 8 GB/s).
[[nodiscard]] constexpr BytesPerSecond gigabits_per_second(double v) { return quantity(v, units::Gbps); }
/// `v` floating-point operations (a count, not a rate).
[[nodiscard]] constexpr Flops flops(double v) { return quantity(v, units::FLOP); }
/// A compute rate of `v` FLOP/s.
[[nodiscard]] constexpr FlopsPerSecond flops_per_second(double v) { return quantity(v, units::FLOPps); }
/// A compute rate of `v` TFLOP/s.
[[nodiscard]] constexpr FlopsPerSecond teraflops_per_second(double v) { return quantity(v, units::TFLOPps); }
/// A compute rate of `v` PFLOP/s.
[[nodiscard]] constexpr FlopsPerSecond petaflops_per_second(double v) { return quantity(v, units::PFLOPps); }
/// `v` tokens.
[[nodiscard]] constexpr Tokens tokens(double v) { return quantity(v, units::token); }
/// A throughput of `v` tokens per second.
[[nodiscard]] constexpr TokensPerSecond tokens_per_second(double v) { return quantity(v, units::tokens_per_s); }
/// `v` bytes per token.
[[nodiscard]] constexpr BytesPerToken bytes_per_token(double v) { return quantity(v, units::bytes_per_token); }
/// `v` joules.
[[nodiscard]] constexpr Joules joules(double v) { return quantity(v, units::J); }
/// `v` kilowatt-hours (3.6e6 J each).
[[nodiscard]] constexpr Joules kilowatt_hours(double v) { return quantity(v, units::kWh); }
/// `v` megawatt-hours (3.6e9 J each).
[[nodiscard]] constexpr Joules megawatt_hours(double v) { return quantity(v, units::MWh); }
/// `v` watts.
[[nodiscard]] constexpr Watts watts(double v) { return quantity(v, units::W); }
/// `v` kilowatts.
[[nodiscard]] constexpr Watts kilowatts(double v) { return quantity(v, units::kW); }
/// `v` megawatts.
[[nodiscard]] constexpr Watts megawatts(double v) { return quantity(v, units::MW); }

/// Integer counts (GPUs, layers, steps) enter arithmetic through this helper, so a
/// narrowing or an integer division is always visible at the call site.
template <class Int>
[[nodiscard]] constexpr double count(Int n) {
    return static_cast<double>(n);
}

/// A dimensionless ratio of two quantities of the same kind, as a plain double.
template <class Q>
[[nodiscard]] constexpr double ratio(const Q& a, const Q& b) {
    return a.value() / b.value();
}

// Whole units: the smallest whole number of base units at or above x (bytes
// are whole; the lesson rounds every share of a tensor up to a whole byte).
// A double at or beyond 2^52 in magnitude is already whole, so it is returned
// as it is instead of cast to an integer that cannot hold it; nan and ±inf have
// no whole value and are rejected.
namespace detail {
constexpr void check_whole(double v) {
    require(v == v && v <= std::numeric_limits<double>::max() && v >= -std::numeric_limits<double>::max(),
            "quantity (base units)", v, "must be finite to round to a whole number");
}
inline constexpr double two_to_52 = 4503599627370496.0;
}  // namespace detail
/// The smallest whole number of base units at or above x (e.g. a share of a tensor in whole bytes);
/// values at or beyond 2^52 in magnitude are returned as they are, and nan or ±inf are rejected.
template <class Q>
[[nodiscard]] constexpr Q ceil_whole(const Q& x) {
    const double v = x.value();
    detail::check_whole(v);
    if (v >= detail::two_to_52 || v <= -detail::two_to_52) return x;
    const auto truncated = static_cast<double>(static_cast<long long>(v));
    return Q::from_value(truncated < v ? truncated + 1.0 : truncated);
}
/// The largest whole number of base units at or below x, with the same handling of large values,
/// nan and ±inf as ceil_whole.
template <class Q>
[[nodiscard]] constexpr Q floor_whole(const Q& x) {
    const double v = x.value();
    detail::check_whole(v);
    if (v >= detail::two_to_52 || v <= -detail::two_to_52) return x;
    const auto truncated = static_cast<double>(static_cast<long long>(v));
    return Q::from_value(truncated > v ? truncated - 1.0 : truncated);
}

// Literals: `using namespace napkin::literals;` then 80_GiB, 6.6_us, 600_GBps.
namespace literals {
#define NAPKIN_DEFINE_LITERAL(suffix, function)                                           \
    [[nodiscard]] constexpr auto operator""_##suffix(long double v) {                      \
        return function(static_cast<double>(v));                                           \
    }                                                                                      \
    [[nodiscard]] constexpr auto operator""_##suffix(unsigned long long v) {               \
        return function(static_cast<double>(v));                                           \
    }
NAPKIN_DEFINE_LITERAL(B, bytes)
NAPKIN_DEFINE_LITERAL(KiB, kibibytes)
NAPKIN_DEFINE_LITERAL(MiB, mebibytes)
NAPKIN_DEFINE_LITERAL(GiB, gibibytes)
NAPKIN_DEFINE_LITERAL(TiB, tebibytes)
NAPKIN_DEFINE_LITERAL(KB, kilobytes)
NAPKIN_DEFINE_LITERAL(MB, megabytes)
NAPKIN_DEFINE_LITERAL(GB, gigabytes)
NAPKIN_DEFINE_LITERAL(TB, terabytes)
NAPKIN_DEFINE_LITERAL(s, seconds)
NAPKIN_DEFINE_LITERAL(ms, milliseconds)
NAPKIN_DEFINE_LITERAL(us, microseconds)
NAPKIN_DEFINE_LITERAL(ns, nanoseconds)
NAPKIN_DEFINE_LITERAL(GBps, gigabytes_per_second)
NAPKIN_DEFINE_LITERAL(TBps, terabytes_per_second)
NAPKIN_DEFINE_LITERAL(Gbps, gigabits_per_second)
NAPKIN_DEFINE_LITERAL(TFLOPps, teraflops_per_second)
NAPKIN_DEFINE_LITERAL(tokens, tokens)
NAPKIN_DEFINE_LITERAL(J, joules)
NAPKIN_DEFINE_LITERAL(kWh, kilowatt_hours)
NAPKIN_DEFINE_LITERAL(W, watts)
NAPKIN_DEFINE_LITERAL(kW, kilowatts)
#undef NAPKIN_DEFINE_LITERAL
}  // namespace literals

// ---------------------------------------------------------------------------
// Formatting. Boost's own prefix printing shows bytes as bits (80 GiB prints as
// "687.195 Gb"), so napkin writes its own: "34.93 GiB", "18.94 ms", "600 GB/s".

/// A plain number with exactly `decimals` decimals: format_fixed(8.6666, 1) == "8.7".
inline std::string format_fixed(double v, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
    return buffer;
}
/// Up to `decimals` decimals, trailing zeros dropped: 600 -> "600", 2.039 -> "2.04".
inline std::string format_trimmed(double v, int decimals) {
    std::string text = format_fixed(v, decimals);
    if (text.find('.') != std::string::npos) {
        while (text.back() == '0') text.pop_back();
        if (text.back() == '.') text.pop_back();
    }
    return text;
}

namespace detail {
inline std::string fixed(double v, int decimals) { return format_fixed(v, decimals); }
inline std::string trimmed(double v, int decimals) { return format_trimmed(v, decimals); }
template <class Q, std::size_t N>
std::string with_best_unit(const Q& q, const Unit<Q> (&ladder)[N], int decimals, bool trim) {
    const double magnitude = q.value() < 0 ? -q.value() : q.value();
    const Unit<Q>* chosen = &ladder[0];
    for (const auto& unit : ladder)
        if (magnitude >= unit.factor * 0.9999999) chosen = &unit;
    const double v = in(q, *chosen);
    return (trim ? trimmed(v, decimals) : fixed(v, decimals)) + " " + chosen->symbol;
}
}  // namespace detail

/// Sizes in binary units with two decimals: "34.93 GiB", "16.00 KiB", "512 B".
inline std::string to_string(Bytes b) {
    if (b.value() < 1024.0 && b.value() > -1024.0) return detail::trimmed(b.value(), 2) + " B";
    static constexpr Unit<Bytes> ladder[] = {units::B, units::KiB, units::MiB, units::GiB, units::TiB};
    return detail::with_best_unit(b, ladder, 2, false);
}
/// Times with two decimals in the largest unit under 1,000: "18.94 ms", "10.24 µs".
inline std::string to_string(Seconds t) {
    if (t.value() == 0.0) return "0 s";
    static constexpr Unit<Seconds> ladder[] = {units::ns, units::us, units::ms, units::s};
    return detail::with_best_unit(t, ladder, 2, false);
}
/// Rates in decimal units, trailing zeros dropped: "600 GB/s", "2.04 TB/s".
inline std::string to_string(BytesPerSecond r) {
    static constexpr Unit<BytesPerSecond> ladder[] = {units::Bps, units::GBps, units::TBps};
    return detail::with_best_unit(r, ladder, 2, true);
}
/// FLOP counts in FLOP, TFLOP or PFLOP, trailing zeros dropped: "3.2 PFLOP".
inline std::string to_string(Flops f) {
    static constexpr Unit<Flops> ladder[] = {units::FLOP, units::TFLOP, units::PFLOP};
    return detail::with_best_unit(f, ladder, 2, true);
}
/// Compute rates in FLOP/s, TFLOP/s or PFLOP/s, trailing zeros dropped: "989.5 TFLOP/s".
inline std::string to_string(FlopsPerSecond r) {
    static constexpr Unit<FlopsPerSecond> ladder[] = {units::FLOPps, units::TFLOPps, units::PFLOPps};
    return detail::with_best_unit(r, ladder, 2, true);
}
/// Token counts with up to two decimals, trailing zeros dropped: "4096 tokens".
inline std::string to_string(Tokens t) { return detail::trimmed(t.value(), 2) + " tokens"; }
/// Token rates with up to two decimals, trailing zeros dropped: "1234.5 tokens/s".
inline std::string to_string(TokensPerSecond r) { return detail::trimmed(r.value(), 2) + " tokens/s"; }
/// Power in decimal units, trailing zeros dropped: "700 W", "11.47 MW".
inline std::string to_string(const Watts& p) {
    static constexpr Unit<Watts> ladder[] = {units::W, units::kW, units::MW};
    return detail::with_best_unit(p, ladder, 2, true);
}
/// Energy: joules below a kilowatt-hour, then kWh and MWh: "3.6 kWh", "27.48 MWh".
inline std::string to_string(const Joules& e) {
    static constexpr Unit<Joules> ladder[] = {units::J, units::kWh, units::MWh};
    return detail::with_best_unit(e, ladder, 2, true);
}

/// Fixed formatting in a unit the caller picks: format(t, units::ms, 2) == "18.94 ms".
template <class Q>
std::string format(const Q& q, Unit<Q> unit, int decimals = 2) {
    return detail::fixed(in(q, unit), decimals) + " " + unit.symbol;
}

}  // namespace napkin
