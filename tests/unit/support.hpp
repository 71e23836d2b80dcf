// Helpers shared by the test suites.
#pragma once

#include <napkin/error.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace napkin::test {

// The message a call rejects its input with, or "(no error)".
inline std::string error_of(auto&& call) {
    try {
        (void)call();
    } catch (const napkin::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}

// The rejection itself, its fields as data (field(), value(), requirement(),
// related()); nullopt when the call accepts its input.
inline std::optional<napkin::invalid_argument> rejection_of(auto&& call) {
    try {
        (void)call();
    } catch (const napkin::invalid_argument& e) {
        return e;
    }
    return std::nullopt;
}
// "field | value | requirement | related,…": a rejection's data on one line, for one CHECK.
inline std::string fields_of(auto&& call) {
    const auto e = rejection_of(call);
    if (!e) return "(no error)";
    std::string related;
    for (const auto& r : e->related()) related += (related.empty() ? "" : ",") + r;
    return e->field() + " | " + e->value() + " | " + e->requirement() + " | " + related;
}

// A share as the validation tables print it: 0.0312 → "3.1 %"; signed: "+3.1 %".
inline std::string percent(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * x);
    return buf;
}
inline std::string signed_percent(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * x);
    return buf;
}

// The README's text between "<!-- NAME:begin -->" and "<!-- NAME:end -->", or
// nullopt-like "" with `found` false when a marker is missing. With
// NAPKIN_WRITE_README set, a block that differs from `generated` is rewritten
// (and reported as equal); the caller CHECKs the two are the same.
struct ReadmeBlock {
    bool found = false;
    std::string current;
};
inline ReadmeBlock readme_block(const std::string& name, const std::string& generated) {
    const std::string path = NAPKIN_TEST_DATA_DIR "/../../README.md";
    std::ifstream in(path);
    if (!in.good()) return {};
    std::stringstream buf;
    buf << in.rdbuf();
    std::string readme = buf.str();
    const std::string begin = "<!-- " + name + ":begin -->\n";
    const std::string end = "<!-- " + name + ":end -->";
    const auto b = readme.find(begin);
    const auto e = readme.find(end);
    if (b == std::string::npos || e == std::string::npos || e < b) return {};
    const std::string current = readme.substr(b + begin.size(), e - b - begin.size());
    if (std::getenv("NAPKIN_WRITE_README") != nullptr && current != generated) {
        readme.replace(b + begin.size(), e - b - begin.size(), generated);
        std::ofstream(path) << readme;
        return {true, generated};
    }
    return {true, current};
}

}  // namespace napkin::test
