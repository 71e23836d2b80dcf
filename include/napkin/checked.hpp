// SPDX-License-Identifier: MIT
// napkin/checked.hpp — integer arithmetic on user-given counts that cannot
// wrap, and the largest count each input accepts.
//
// Every product of counts a user chooses (GPUs = tp·cp·pp·dp, tokens =
// batch·sequence, weights = layers·hidden·ffn, ...) goes through
// checked_mul/checked_add: a result beyond 64 bits is rejected with the
// argument's name and the exact operands, never wrapped to a negative or a
// zero that a later `%` divides by. At compile time an overflow is a compile
// error, like every napkin check.
#pragma once

#include <napkin/error.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace napkin {

// The documented bounds of the shapes' counts. Each `validated()` rejects a
// count beyond its bound by name. They are far beyond any machine or model
// built so far (2026: ~10^5 GPUs, ~10^12 weights, ~10^7-token contexts), and
// small enough that every product the models form stays exact in 64 bits and
// every count converted to double stays exact (≤ 2^53).
namespace limits {
inline constexpr long long gpus = 1LL << 40;        ///< GPUs in a cluster or a layout (≈ 1.1·10^12)
inline constexpr long long layers = 1LL << 24;      ///< transformer layers (≈ 1.7·10^7)
inline constexpr long long width = 1LL << 30;       ///< hidden, ffn, expert_ffn, head_dim, heads·head_dim
inline constexpr long long heads = 1LL << 24;       ///< attention heads
inline constexpr long long vocabulary = 1LL << 34;  ///< vocabulary rows, learned positions
inline constexpr long long experts = 1LL << 24;     ///< experts per MoE layer
inline constexpr long long parameters = 1LL << 53;  ///< weights of a model (≈ 9·10^15, exact in a double)
inline constexpr long long sequence = 1LL << 40;    ///< tokens per sequence (≈ 1.1·10^12)
inline constexpr long long batch = 1LL << 40;       ///< sequences per step or micro-batch
inline constexpr long long tokens = 1LL << 53;      ///< tokens per step, batch × sequence
inline constexpr long long passes = 1LL << 40;      ///< stages × chunks of a layout
inline constexpr double stage_seconds = 1e9;        ///< one micro-batch through one pipeline stage (31 years)
/// Chats one inference split serves at once (searched one by one).
inline constexpr long long tokens_in_flight = 1LL << 20;
inline constexpr long long gpu_scan = 1LL << 20;          ///< GPU counts a best-count search tries one by one
inline constexpr long long simulated_passes = 1LL << 26;  ///< passes the simulator keeps in memory (≈ 6.7·10^7)
}  // namespace limits

namespace detail {
inline std::string product_text(long long a, long long b, std::string_view op) {
    return std::to_string(a) + std::string(op) + std::to_string(b);
}
/// The error of an overflowing a·b or a + b, cold and out of line (GCC's attributes), so
/// that checked_mul and checked_add inline to the operation and one branch.
[[noreturn, gnu::cold, gnu::noinline]] inline void reject_overflow(std::string_view argument, long long a, long long b,
                                                                   std::string_view op, std::string_view what) {
    reject_exact(argument, product_text(a, b, op), what);
}
/// A count above its bound, cold and out of line as above.
[[noreturn, gnu::cold, gnu::noinline]] inline void reject_above_bound(std::string_view argument, long long value,
                                                                      long long bound) {
    reject_exact(argument, std::to_string(value), "must be at most " + std::to_string(bound));
}
}  // namespace detail

/// a·b, rejected by `argument` when it does not fit in 64 bits.
[[nodiscard]] constexpr long long checked_mul(long long a, long long b, std::string_view argument) {
    long long result = 0;
    if (__builtin_mul_overflow(a, b, &result))
        detail::reject_overflow(argument, a, b, " × ", "the product overflows a 64-bit count");
    return result;
}

/// a + b, rejected by `argument` when it does not fit in 64 bits.
[[nodiscard]] constexpr long long checked_add(long long a, long long b, std::string_view argument) {
    long long result = 0;
    if (__builtin_add_overflow(a, b, &result))
        detail::reject_overflow(argument, a, b, " + ", "the sum overflows a 64-bit count");
    return result;
}

/// Whether d ≥ 1 divides n: a layout's sizes are mostly 1 or powers of two,
/// which need no integer division (tens of cycles each on x86-64).
[[nodiscard]] constexpr bool divides(long long d, long long n) {
    if (d == 1) return true;
    if (d > 0 && (d & (d - 1)) == 0) return (n & (d - 1)) == 0;
    return n % d == 0;
}

/// A count in [1, bound], rejected by name.
constexpr void require_count(std::string_view argument, long long value, long long bound) {
    if (value >= 1 && value <= bound) [[likely]]
        return;
    require_at_least_one(argument, value);
    detail::reject_above_bound(argument, value, bound);
}

/// The divisors of n ≥ 1, ascending: O(√n) trial divisions (2^20 for the
/// largest count, 2^40), so a search over "every size dividing n" never loops
/// n times.
[[nodiscard]] inline std::vector<long long> divisors(long long n) {
    require_at_least_one("n (to divide)", n);
    std::vector<long long> low, high;
    for (long long d = 1; d <= n / d; ++d) {
        if (n % d != 0) continue;
        low.push_back(d);
        if (d != n / d) high.push_back(n / d);
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}

}  // namespace napkin
