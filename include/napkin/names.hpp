// SPDX-License-Identifier: MIT
// napkin/names.hpp — one way between an enum and its text form.
//
// Every enum with a text form keeps one table of {value, name} rows; printing,
// parsing and the "must be a, b or c" of an error message all read it:
//   inline constexpr std::array split_names{Named{Split::tensor, "tensor"}, Named{Split::pipeline, "pipeline"}};
//   name_of(Split::tensor, split_names) == "tensor"; value_of("pipeline", split_names) == Split::pipeline.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace napkin {

/// One row of an enum's name table: a value and its text form.
template <class E>
struct Named {
    E value;
    std::string_view name;
};
/// Spelled out for compilers without class template argument deduction for
/// aggregates (P1816; clang before 17), which the fuzz build uses.
template <class E>
Named(E, std::string_view) -> Named<E>;

/// The name of `value` in `table` ("?" for a value the table does not list).
template <class E, std::size_t N>
[[nodiscard]] constexpr std::string_view name_of(E value, const std::array<Named<E>, N>& table) {
    for (const Named<E>& row : table)
        if (row.value == value) return row.name;
    return "?";
}

/// The value `name` stands for in `table`, if any.
template <class E, std::size_t N>
[[nodiscard]] constexpr std::optional<E> value_of(std::string_view name, const std::array<Named<E>, N>& table) {
    for (const Named<E>& row : table)
        if (row.name == name) return row.value;
    return std::nullopt;
}

/// "a, b or c": the table's names for a help text or an error message.
template <class E, std::size_t N>
[[nodiscard]] inline std::string names_of(const std::array<Named<E>, N>& table) {
    std::string text;
    for (std::size_t i = 0; i < N; ++i) {
        if (i > 0) text += i + 1 == N ? " or " : ", ";
        text += table[i].name;
    }
    return text;
}

}  // namespace napkin
