// SPDX-License-Identifier: MIT
// napkin/io/json_number.hpp — a double as the shortest decimal text that
// reads back to it, in nlohmann's dump() layout, fast for the times a
// streamed timeline writes by the million.
//
// The digits are the shortest that round-trip, the nearest of them to the
// value: what Ryu (Adams 2018) and std::to_chars give. nlohmann's Grisu2
// (Loitsch 2010) gives the shortest for all but a few values in a thousand,
// and its text then is this one. The layout is dump()'s: fixed notation from
// 1e-4 to below 1e15 with ".0" after a whole number, "1.5e-05" and "1e+15"
// beyond (nlohmann's format_buffer: min_exp = -4, max_exp = 15). From 1e-4
// to 1e15 the digits come from exact 128-bit integer arithmetic
// (shortest_digits); elsewhere from std::to_chars.
#pragma once

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace napkin::io {

namespace detail {
__extension__ using uint128 = unsigned __int128;  // GCC and Clang; exact products up to 2^128

template <std::size_t N>
[[nodiscard]] char* copy_literal(char* to, const char (&text)[N]) {
    std::memcpy(to, text, N - 1);
    return to + N - 1;
}

/// 10^k exactly for k = 0 … 21, and the doubles nearest 10^k for k = −4 … 21
/// (exact for k ≥ 0: 10^k = 2^k · 5^k and 5^21 < 2^53).
inline constexpr auto powers_of_ten = [] {
    struct Table {
        uint128 exact[22];   // 10^0 … 10^21 (digit_count reads up to 10^19)
        double nearest[26];  // [k + 4]
    } t{};
    uint128 p = 1;
    for (int k = 0; k < 22; ++k, p *= 10) {
        t.exact[k] = p;
        t.nearest[k + 4] = static_cast<double>(p);
    }
    for (int k = 1; k <= 4; ++k) t.nearest[4 - k] = 1.0 / t.nearest[4 + k];  // one rounding of an exact quotient
    return t;
}();

/// "00" … "99".
inline constexpr auto two_digits = [] {
    struct Table {
        char pairs[200];
    } t{};
    for (std::size_t i = 0; i < 100; ++i) {
        t.pairs[2 * i] = static_cast<char>('0' + i / 10);
        t.pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
    return t;
}();

/// The decimal digits of d, 1 ≤ d < 10^19: bit_width · log10 2 (1233 / 4096)
/// is the count less one, or two; a comparison settles which.
[[nodiscard]] inline int digit_count(std::uint64_t d) {
    const int t = (static_cast<int>(std::bit_width(d)) * 1233) >> 12;
    return t + 1 - (d < static_cast<std::uint64_t>(powers_of_ten.exact[t]) ? 1 : 0);
}

/// x's `count` digits (x < 10^count, count ≤ 8) ending at `end`, two at a time from the table.
[[gnu::always_inline]] inline void write_block(char* end, std::uint32_t x, int count) {
    for (; count >= 2; count -= 2, x /= 100) {
        end -= 2;
        std::memcpy(end, two_digits.pairs + std::size_t{2} * (x % 100), 2);
    }
    if (count == 1) end[-1] = static_cast<char>('0' + x);
}
/// The n digits of d (d < 10^n, n ≤ 19) at `to`, in eight-digit blocks of 32-bit arithmetic.
[[gnu::always_inline]] inline void write_digits(char* to, std::uint64_t d, int n) {
    for (; n > 8; n -= 8, d /= 100'000'000) write_block(to + n, static_cast<std::uint32_t>(d % 100'000'000), 8);
    write_block(to + n, static_cast<std::uint32_t>(d), n);
}

/// The shortest digits of a double x from 1e-4 to 1e15 that is not a whole
/// number (nor a power of two), and the places after the point they end at.
///
/// With x = m · 2^−s and 10^q scaling x to 17 significant digits (which always
/// read back, IEEE 754-2019 Sec. 5.12.2), everything is an exact integer at
/// the scale 2^(s+2): x is A = 4m · 10^q and the values that read back to x lie
/// within half an ulp, 2 · 10^q, of it (ends included when m is even: a tie
/// reads back to the even neighbour). vm, vr and vp are the floors over
/// 2^(s+2) of the highest value below the interval, of x and of the interval's
/// highest value; floors compose (floor(floor(a / b) / 10) = floor(a / 10b)), so
/// dividing all three by 10 removes a digit exactly, and a multiple of 10^k
/// reads back while vp / 10^k > vm / 10^k (Ryu's loop, Adams 2018 Sec. 3). The
/// fewest digits are the last such k; of their candidates vm + 1 … vp the one
/// nearest x (ties to even) is written, as Ryu and std::to_chars write it.
/// 4m · 10^21 < 2^125: no product overflows.
struct ShortestDigits {
    std::uint64_t d;
    int q;  // places after the point
};
[[nodiscard]] inline bool shortest_digits(std::uint64_t bits, double x, ShortestDigits& out) {
    const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
    const int biased = static_cast<int>(bits >> 52 & 0x7FFU);
    // A power of two's lower neighbour is half as near: its interval is lopsided, left to to_chars.
    if (fraction == 0) return false;
    const std::uint64_t m = fraction | std::uint64_t{1} << 52;
    const int shift = 1075 - biased + 2;  // s + 2
    // floor(log10 x): floor(binary exponent · log10 2) (78913 / 2^18) is it or one less, and one
    // comparison settles which (one too high for a value within an ulp below a negative power of ten:
    // then no 16-digit value may read back, and the caller falls back).
    int decimal = ((biased - 1023) * 78913) >> 18;
    if (x >= powers_of_ten.nearest[decimal + 1 + 4]) ++decimal;
    int q = 16 - decimal;
    const uint128 scale = powers_of_ten.exact[q];
    const uint128 a = uint128{m} * 4 * scale, half_ulp = 2 * scale;
    const bool ends_read_back = (m & 1U) == 0;
    std::uint64_t vr = static_cast<std::uint64_t>(a >> shift);
    std::uint64_t vm = static_cast<std::uint64_t>((ends_read_back ? a - half_ulp - 1 : a - half_ulp) >> shift);
    std::uint64_t vp = static_cast<std::uint64_t>((ends_read_back ? a + half_ulp : a + half_ulp - 1) >> shift);
    if (vp <= vm) return false;
    // What x has beyond vr (its fraction at this scale) against one half, and whether it is zero.
    const uint128 below = a & ((uint128{1} << shift) - 1), one_half = uint128{1} << (shift - 1);
    int against_half = below > one_half ? 1 : below == one_half ? 0 : -1;
    bool fraction_zero = below == 0;
    while (vp / 10 > vm / 10) {
        const auto digit = static_cast<unsigned>(vr % 10);
        against_half = digit > 5 ? 1 : digit < 5 ? -1 : fraction_zero ? 0 : 1;
        fraction_zero = fraction_zero && digit == 0;
        vr /= 10;
        vp /= 10;
        vm /= 10;
        --q;
    }
    const bool up = against_half > 0 || (against_half == 0 && (vr & 1U) != 0);
    if (q <= 0) return false;  // a whole number: never for a value that is not one
    out = {std::clamp(vr + (up ? 1 : 0), vm + 1, vp), q};
    return true;
}

}  // namespace detail

/// The most write_json_number writes: a sign and 24 characters (to_chars's
/// longest scientific double), rounded up to a whole 16-byte copy.
inline constexpr std::size_t json_number_room = 32;

/// x as the shortest text that reads back to it, in dump()'s layout (see the
/// top of this file), at `to`, which has json_number_room bytes; returns the
/// end. Infinities and nan, which JSON cannot hold, are written as null.
[[nodiscard]] inline char* write_json_number(char* to, double x) {
    const auto bits = std::bit_cast<std::uint64_t>(x);
    if ((bits >> 52 & 0x7FFU) == 0x7FFU) return detail::copy_literal(to, "null");
    if (bits >> 63 != 0) {
        *to++ = '-';
        x = -x;
    }
    const std::uint64_t magnitude = bits & ~(std::uint64_t{1} << 63);
    if (x < 1e15 && x == std::trunc(x)) {  // a whole number (0 too): its digits and ".0"
        const auto whole = static_cast<std::uint64_t>(x);
        return detail::copy_literal(std::to_chars(to, to + 20, whole).ptr, ".0");
    }
    detail::ShortestDigits shortest{};
    if (x >= 1e-4 && x < 1e15 && detail::shortest_digits(magnitude, x, shortest)) {
        // The digits one place on, then those before the point moved back (one byte at a time, each
        // read from the store that wrote it) and the point put in: "0." and zeros first below 1.
        const int n = detail::digit_count(shortest.d), whole = n - shortest.q;  // digits before the point
        if (whole <= 0) {
            to = detail::copy_literal(to, "0.000") - 3 - whole;  // "0." and −whole zeros
            detail::write_digits(to, shortest.d, n);
            return to + n;
        }
        detail::write_digits(to + 1, shortest.d, n);
        for (int i = 0; i < whole; ++i) to[i] = to[i + 1];
        to[whole] = '.';
        return to + n + 1;
    }
    // Elsewhere std::to_chars's shortest digits, scientific, as dump() writes them beyond its fixed range.
    char* const end = std::to_chars(to, to + 32, x, std::chars_format::scientific).ptr;
    char* const e = std::find(to, end, 'e');
    int exponent = 0;
    std::from_chars(e + 1 + (e[1] == '+' ? 1 : 0), end, exponent);
    if (exponent < -4 || exponent > 14) return end;
    // A power of two between 1e-4 and 1e15: fixed, from the same digits.
    char digits[20];
    std::size_t n = 0;
    for (const char* c = to; c != e; ++c)
        if (*c != '.') digits[n++] = *c;
    if (exponent < 0) {
        char* w = detail::copy_literal(to, "0.");
        w = std::fill_n(w, -exponent - 1, '0');
        return std::copy_n(digits, n, w);
    }
    const auto point = static_cast<std::size_t>(exponent) + 1;  // digits before the point
    if (n <= point) return detail::copy_literal(std::fill_n(std::copy_n(digits, n, to), point - n, '0'), ".0");
    char* w = std::copy_n(digits, point, to);
    *w++ = '.';
    return std::copy_n(digits + point, n - point, w);
}

}  // namespace napkin::io
