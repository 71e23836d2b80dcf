// SPDX-License-Identifier: MIT
// napkin/io/serving_trace.hpp — requests to replay, read from a trace: CSV
// with a header line, or JSON Lines (one object a line), each request its
// arrival in seconds and its input and output tokens (and, optionally, the
// leading prompt tokens a prefix cache holds):
//
//   arrival_s,input_tokens,output_tokens          {"arrival_s": 0.0, "input_tokens": 512, "output_tokens": 128}
//   0.0,512,128                                   {"arrival_s": 0.25, "input_tokens": 64, "output_tokens": 300}
//   0.25,64,300
//
// Columns may come in any order; others are ignored. Requests are replayed in
// arrival order (a stable sort). Every error names the argument, the file and
// the line, in one line.
#pragma once

#include <napkin/error.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/serving/workload.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::io {

namespace detail {
inline constexpr std::size_t most_trace_requests = std::size_t{1} << 24;

[[noreturn]] inline void trace_error(const std::string& argument, const std::string& path, std::size_t line,
                                     const std::string& what) {
    reject(argument, path, "line " + std::to_string(line) + ": " + what);
}

inline std::vector<std::string_view> split(std::string_view text, char sep) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == sep) {
            parts.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    return parts;
}

inline std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

inline std::optional<double> number_of(std::string_view s) {
    const std::string text(trimmed(s));
    if (text.empty() || text.size() > 64) return std::nullopt;
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (used != text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

inline long long whole_tokens(double v, bool may_be_zero, const std::string& argument, const std::string& path,
                              std::size_t line, const std::string& column) {
    const double least = may_be_zero ? 0.0 : 1.0;
    if (!(v >= least && v <= 1099511627776.0 && v == std::floor(v))) {
        char shown[40];
        std::snprintf(shown, sizeof shown, "%.10g", v);
        trace_error(argument, path, line,
                    column + " = " + shown + " must be a whole number from " + (may_be_zero ? "0" : "1") + " to 2^40");
    }
    return static_cast<long long>(v);
}

inline Request checked_request(double arrival, double input, double output, double prefix, const std::string& argument,
                               const std::string& path, std::size_t line) {
    if (!(arrival >= 0.0 && arrival <= 1e12))
        trace_error(argument, path, line, "arrival_s must be from 0 to 10^12 seconds");
    Request r;
    r.arrival = arrival;
    r.input = whole_tokens(input, false, argument, path, line, "input_tokens");
    r.output = whole_tokens(output, false, argument, path, line, "output_tokens");
    r.prefix = whole_tokens(prefix, true, argument, path, line, "prefix_tokens");
    if (r.prefix >= r.input) trace_error(argument, path, line, "prefix_tokens must be below input_tokens");
    return r;
}

inline std::vector<Request> csv_trace(const std::vector<std::string_view>& lines, const std::string& argument,
                                      const std::string& path) {
    const std::vector<std::string_view> header = split(lines.front(), ',');
    const std::array<std::string_view, 4> names{"arrival_s", "input_tokens", "output_tokens", "prefix_tokens"};
    std::array<std::optional<std::size_t>, 4> column{};
    for (std::size_t c = 0; c < header.size(); ++c)
        for (std::size_t k = 0; k < names.size(); ++k)
            if (trimmed(header[c]) == names[k]) column[k] = c;
    if (!column[0] || !column[1] || !column[2])
        trace_error(argument, path, 1,
                    "the header must name the columns arrival_s, input_tokens and output_tokens (a CSV), or the "
                    "file be JSON Lines");
    std::vector<Request> requests;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (trimmed(lines[i]).empty()) continue;
        const std::vector<std::string_view> cells = split(lines[i], ',');
        std::array<double, 4> v{0, 0, 0, 0};
        for (std::size_t k = 0; k < names.size(); ++k) {
            if (!column[k]) continue;
            const auto value = *column[k] < cells.size() ? number_of(cells[*column[k]]) : std::nullopt;
            if (!value) trace_error(argument, path, i + 1, std::string(names[k]) + " is not a number");
            v[k] = *value;
        }
        requests.push_back(checked_request(v[0], v[1], v[2], v[3], argument, path, i + 1));
    }
    return requests;
}

inline std::vector<Request> jsonl_trace(const std::vector<std::string_view>& lines, const std::string& argument,
                                        const std::string& path) {
    std::vector<Request> requests;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (trimmed(lines[i]).empty()) continue;
        if (json_depth(lines[i]) > max_json_depth)
            trace_error(argument, path, i + 1, "is nested deeper than 64 levels");
        const nlohmann::json row = nlohmann::json::parse(lines[i], nullptr, false);
        if (!row.is_object()) trace_error(argument, path, i + 1, "is not a JSON object");
        const auto field = [&](const char* key, bool required) {
            if (!row.contains(key)) {
                if (required) trace_error(argument, path, i + 1, std::string(key) + " is missing");
                return 0.0;
            }
            if (!row[key].is_number()) trace_error(argument, path, i + 1, std::string(key) + " must be a number");
            return row[key].get<double>();
        };
        // One field after another, so the first one missing is the one named.
        const double arrival = field("arrival_s", true), input = field("input_tokens", true);
        const double output = field("output_tokens", true), prefix = field("prefix_tokens", false);
        requests.push_back(checked_request(arrival, input, output, prefix, argument, path, i + 1));
    }
    return requests;
}
}  // namespace detail

/// The requests of a trace's text, in arrival order; `argument` and `path` name it in errors.
[[nodiscard]] inline std::vector<Request> parse_serving_trace(std::string_view text, const std::string& argument,
                                                              const std::string& path) {
    std::vector<std::string_view> lines = detail::split(text, '\n');
    while (!lines.empty() && detail::trimmed(lines.back()).empty()) lines.pop_back();
    while (!lines.empty() && detail::trimmed(lines.front()).empty()) lines.erase(lines.begin());
    if (lines.empty()) reject(argument, path, "holds no requests");
    if (lines.size() > detail::most_trace_requests + 1) reject(argument, path, "holds more than 2^24 = 16777216 lines");
    std::vector<Request> requests = detail::trimmed(lines.front()).front() == '{'
                                        ? detail::jsonl_trace(lines, argument, path)
                                        : detail::csv_trace(lines, argument, path);
    if (requests.empty()) reject(argument, path, "holds no requests");
    std::stable_sort(requests.begin(), requests.end(),
                     [](const Request& a, const Request& b) { return a.arrival < b.arrival; });
    return requests;
}

/// The requests of the trace file at `path` (CSV or JSON Lines), in arrival order; `argument` names it in errors.
[[nodiscard]] inline std::vector<Request> read_serving_trace(const std::string& argument, const std::string& path) {
    return parse_serving_trace(read_text_file(argument, path), argument, path);
}

}  // namespace napkin::io
