// SPDX-License-Identifier: MIT
// napkin/error.hpp — how napkin rejects bad input.
//
// Every check names the argument and its value. A check is a constexpr call:
// evaluated at compile time (a constexpr Gpu, a static_assert) a failing check
// is a compile error that points at the call to `reject`; at run time it
// throws napkin::invalid_argument with a message such as
//   "Gpu.usable_fraction = 1.5: must be in (0, 1]".
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace napkin {

class invalid_argument : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

namespace detail {

inline std::string number_text(double value) {
    std::string text = std::to_string(value);
    if (text.find('.') != std::string::npos) {
        while (text.back() == '0') text.pop_back();
        if (text.back() == '.') text.pop_back();
    }
    return text;
}

}  // namespace detail

// The public check vocabulary: every model, reader and front end validates
// with these, so every message has one shape, "argument = value: requirement".
//
// Not constexpr on purpose: reaching it during constant evaluation is the
// compile error, and the compiler's note shows the argument and its value.
[[noreturn]] inline void reject(std::string_view argument, double value, std::string_view requirement) {
    throw invalid_argument(std::string(argument) + " = " + detail::number_text(value) + ": " + std::string(requirement));
}
[[noreturn]] inline void reject(std::string_view argument, std::string_view value, std::string_view requirement) {
    throw invalid_argument(std::string(argument) + " = \"" + std::string(value) + "\": " + std::string(requirement));
}

// Rejects `value` unless `ok`.
constexpr void require(bool ok, std::string_view argument, double value, std::string_view requirement) {
    if (!ok) reject(argument, value, requirement);
}

constexpr void require_positive(std::string_view argument, double value) {
    require(value > 0.0, argument, value, "must be positive");
}
constexpr void require_non_negative(std::string_view argument, double value) {
    require(value >= 0.0, argument, value, "must not be negative");
}
constexpr void require_at_least_one(std::string_view argument, long long value) {
    require(value >= 1, argument, static_cast<double>(value), "must be at least 1");
}

}  // namespace napkin
