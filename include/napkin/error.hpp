// SPDX-License-Identifier: MIT
// napkin/error.hpp — how napkin rejects bad input.
//
// Every check names the argument and its value. A check is a constexpr call:
// evaluated at compile time (a constexpr Gpu, a static_assert) a failing check
// is a compile error that points at the call to `reject`; at run time it
// throws napkin::invalid_argument, which carries the error as data —
//   field()       "Gpu.usable_fraction"   (the library's name, never a CLI flag)
//   value()       "1.5"                   (as written in the message)
//   requirement() "must be in (0, 1]"
//   related()     other fields the requirement names ("micro_batch", "dp")
// — and the one-line message "Gpu.usable_fraction = 1.5: must be in (0, 1]".
// Each front end maps field() and related() to its own spelling (CLI flags,
// Python keywords, web form fields) from one table beside its declarations.
#pragma once

#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin {

/// What a failed check throws at run time: the rejected field, its value and the requirement, as data,
/// and the one-line message "field = value: requirement".
class invalid_argument : public std::invalid_argument {
public:
    // A check's failure: "field = value: requirement", or "field: requirement"
    // with no value (a file that is not JSON). `value` is written as it reads in
    // the message (a number, or a string in quotes).
    invalid_argument(std::string field, std::string value, std::string requirement,
                     std::vector<std::string> related = {})
        : std::invalid_argument(field + (value.empty() ? "" : " = " + value) + ": " + requirement),
          field_(std::move(field)),
          value_(std::move(value)),
          requirement_(std::move(requirement)),
          related_(std::move(related)) {}
    // A message a front end wrote in its own spelling (a flag, a file's row):
    // field(), value() and requirement() are empty.
    explicit invalid_argument(const std::string& message) : std::invalid_argument(message) {}

    // The library's name of what was rejected: "Parallelism.tp", "Gpu.memory",
    // "tp × cp × pp × dp" (a product of fields), or a file a reader was given.
    [[nodiscard]] const std::string& field() const noexcept { return field_; }
    [[nodiscard]] const std::string& value() const noexcept { return value_; }
    [[nodiscard]] const std::string& requirement() const noexcept { return requirement_; }
    // The other fields whose values the requirement states ("must be a multiple of micro_batch × dp = 8").
    [[nodiscard]] const std::vector<std::string>& related() const noexcept { return related_; }

private:
    std::string field_, value_, requirement_;
    std::vector<std::string> related_;
};

namespace detail {

inline std::string number_text(double value) {
    // Six decimals show everything from 10^-6 to 10^18 exactly enough; beyond
    // (a denormal, 1e308, inf, nan) a general format says what was given.
    const double magnitude = value < 0 ? -value : value;
    if (!(magnitude == 0.0 || (magnitude >= 1e-6 && magnitude < 1e18))) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.6g", value);
        return buffer;
    }
    std::string text = std::to_string(value);
    if (text.find('.') != std::string::npos) {
        while (text.back() == '0') text.pop_back();
        if (text.back() == '.') text.pop_back();
    }
    return text;
}

}  // namespace detail

/// The public check vocabulary: every model, reader and front end validates
/// with these, so every message has one shape, "argument = value: requirement".
///
/// Not constexpr on purpose: reaching it during constant evaluation is the
/// compile error, and the compiler's note shows the argument and its value.
[[noreturn, gnu::cold, gnu::noinline]] inline void reject(std::string_view argument, double value,
                                                          std::string_view requirement,
                                                          std::vector<std::string> related = {}) {
    throw invalid_argument(std::string(argument), detail::number_text(value), std::string(requirement),
                           std::move(related));
}
/// As above, for a string value, which the message shows in quotes.
[[noreturn, gnu::cold, gnu::noinline]] inline void reject(std::string_view argument, std::string_view value,
                                                          std::string_view requirement,
                                                          std::vector<std::string> related = {}) {
    std::string quoted(1, '"');  // appended piece by piece: GCC 12's -Wrestrict misreads "\"" + std::string(value)
    quoted.append(value).push_back('"');
    throw invalid_argument(std::string(argument), std::move(quoted), std::string(requirement), std::move(related));
}

/// As above, with the value already written out (an exact integer, a product
/// of operands): "tp × cp × pp × dp = 4294967296 × 4294967296: ...".
[[noreturn, gnu::cold, gnu::noinline]] inline void reject_exact(std::string_view argument, std::string_view value_text,
                                      std::string_view requirement, std::vector<std::string> related = {}) {
    throw invalid_argument(std::string(argument), std::string(value_text), std::string(requirement),
                           std::move(related));
}

/// value ∈ [low, high] (nan is not): the one-branch test a validation passes a
/// usual value with before the checks that name what is wrong run, out of line.
[[nodiscard]] constexpr bool within(double value, double low, double high) { return value >= low && value <= high; }

/// Rejects `value` unless `ok`.
constexpr void require(bool ok, std::string_view argument, double value, std::string_view requirement) {
    if (!ok) reject(argument, value, requirement);
}

namespace detail {
// The checks that name what is wrong, in the order the messages promise; out of
// line and cold, so the inline test before each call is all a usual value costs.
[[gnu::cold, gnu::noinline]] constexpr void name_infinite(std::string_view argument, double value) {
    require(value == value, argument, value, "must be a number");
    require(value >= -std::numeric_limits<double>::max() && value <= std::numeric_limits<double>::max(), argument,
            value, "must be finite");
}
[[gnu::cold, gnu::noinline]] constexpr void name_not_positive(std::string_view argument, double value) {
    name_infinite(argument, value);
    require(value > 0.0, argument, value, "must be positive");
    require(value >= std::numeric_limits<double>::min(), argument, value,
            "must be at least 2.2e-308 (a denormal is no physical value)");
}
[[gnu::cold, gnu::noinline]] constexpr void name_negative(std::string_view argument, double value) {
    name_infinite(argument, value);
    require(value >= 0.0, argument, value, "must not be negative");
    require(value == 0.0 || value >= std::numeric_limits<double>::min(), argument, value,
            "must be 0 or at least 2.2e-308 (a denormal is no physical value)");
}
}  // namespace detail

/// Floating inputs are finite numbers: nan and ±inf are rejected, and so are
/// denormals (magnitudes below 2.2e-308, DBL_MIN): no physical quantity napkin
/// models is that small, and dividing by one gives inf.
/// Each check passes the usual value in one test (nan fails every comparison).
constexpr void require_finite(std::string_view argument, double value) {
    if (!within(value, -std::numeric_limits<double>::max(), std::numeric_limits<double>::max())) [[unlikely]]
        detail::name_infinite(argument, value);
}
/// Rejects `value` unless it is a finite number of at least 2.2e-308 (positive, not a denormal).
constexpr void require_positive(std::string_view argument, double value) {
    if (!within(value, std::numeric_limits<double>::min(), std::numeric_limits<double>::max())) [[unlikely]]
        detail::name_not_positive(argument, value);
}
/// 0 or a finite number of at least 2.2e-308 (not negative, not a denormal): what require_non_negative passes.
[[nodiscard]] constexpr bool usual_non_negative(double value) {
    return value == 0.0 || within(value, std::numeric_limits<double>::min(), std::numeric_limits<double>::max());
}
/// Rejects `value` unless it is 0 or a finite number of at least 2.2e-308 (not negative, not a denormal).
constexpr void require_non_negative(std::string_view argument, double value) {
    if (!usual_non_negative(value)) [[unlikely]]
        detail::name_negative(argument, value);
}
/// A finite value in [low, high].
constexpr void require_in_range(std::string_view argument, double value, double low, double high,
                                std::string_view requirement) {
    require_finite(argument, value);
    require(value >= low && value <= high, argument, value, requirement);
}
/// Rejects a count below 1 ("must be at least 1").
constexpr void require_at_least_one(std::string_view argument, long long value) {
    require(value >= 1, argument, static_cast<double>(value), "must be at least 1");
}

}  // namespace napkin
