// SPDX-License-Identifier: MIT
// "Did you mean …?": the names closest to a mistyped one, for subcommands,
// flags and catalog names.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::cli {

// Optimal string alignment distance (Levenshtein with adjacent transpositions):
// the fewest insertions, deletions, substitutions or swaps turning a into b.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Three rows of the table: the one being filled, the one above, the one above that.
    std::vector<std::size_t> before(b.size() + 1), above(b.size() + 1), row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) above[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            row[j] = std::min({above[j] + 1, row[j - 1] + 1, above[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                row[j] = std::min(row[j], before[j - 2] + 1);
        }
        std::swap(before, above);
        std::swap(above, row);
    }
    return above[b.size()];
}

// The candidates worth suggesting for `typed`: those that contain it (`a100`
// → `a100-80gb-sxm`, `a100-40gb-sxm`), shortest first; failing that, those
// within a third of its length in edits (at least 2), nearest first. At most three.
inline std::vector<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates) {
    const std::size_t limit = std::max<std::size_t>(2, typed.size() / 3);
    std::vector<std::pair<std::size_t, std::string>> near;
    if (typed.size() >= 3)  // a prefix of a name, or part of one: `a100`, `mixtral-8x7`
        for (const auto& c : candidates)
            if (c != typed && c.find(typed) != std::string::npos) near.emplace_back(c.size() - typed.size(), c);
    if (near.empty())
        for (const auto& c : candidates) {
            // The distance is at least the difference in length: skip those too far.
            if ((c.size() > typed.size() ? c.size() - typed.size() : typed.size() - c.size()) > limit) continue;
            if (const std::size_t d = edit_distance(typed, c); d <= limit && d > 0) near.emplace_back(d, c);
        }
    std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (const auto& [d, c] : near) {
        if (out.size() == 3) break;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    return out;
}

// "; did you mean \"split\"?" (or "… \"a\" or \"b\"?"), or nothing.
inline std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
    const auto near = closest(typed, candidates);
    if (near.empty()) return "";
    std::string text = "; did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i) {
        if (i > 0) text += i + 1 == near.size() ? " or " : ", ";
        text += "\"" + near[i] + "\"";
    }
    return text + "?";
}

}  // namespace napkin::cli
