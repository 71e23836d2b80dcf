// SPDX-License-Identifier: MIT
// napkin/io/timeline_json.hpp — a simulated step as JSON, streamed: the
// summary is an nlohmann document, each stage's passes are written straight
// from the timeline in the same layout (nlohmann's dump(2): keys in order, two
// spaces a level, its shortest round-trip numbers), so a step of millions of
// passes never becomes a document in memory.
#pragma once

#include <napkin/schedule.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>

namespace napkin::io {

namespace detail {
inline void append_number(std::string& out, double x) {
    char buffer[64];
    char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, x);  // what dump() writes
    out.append(buffer, end);
}
inline void append_number(std::string& out, long long x) {
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
    out.append(buffer, result.ptr);
}
// One stage's passes as the value of its "operations" key, objects at 8 spaces.
inline void append_operations(std::string& out, std::span<const Operation> ops) {
    if (ops.empty()) {
        out += "[]";
        return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const Operation& op = ops[i];
        out += "        {\n          \"chunk\": ";
        append_number(out, op.chunk + 1);
        out += ",\n          \"end_s\": ";
        append_number(out, op.end.value());
        out += ",\n          \"microbatch\": ";
        append_number(out, op.microbatch + 1);
        if (op.overlapped) out += ",\n          \"overlapped\": true";
        out += ",\n          \"pass\": \"";
        out += to_string(op.pass);
        out += "\",\n          \"start_s\": ";
        append_number(out, op.start.value());
        out += i + 1 < ops.size() ? "\n        },\n" : "\n        }\n";
    }
    out += "      ]";
}
inline std::string operations_marker(long long rank) { return "@@napkin operations of stage " + std::to_string(rank) + "@@"; }
}  // namespace detail

// Writes `summary` (whose "stages" array holds one object per rank) with each
// stage's "operations" taken from the timeline, to `out`.
inline void write_timeline_json(std::FILE* out, nlohmann::json summary, const Timeline& t) {
    auto& stages = summary.at("stages");
    for (long long r = 0; r < static_cast<long long>(stages.size()); ++r)
        stages[static_cast<std::size_t>(r)]["operations"] = detail::operations_marker(r);
    const std::string text = summary.dump(2);
    std::size_t at = 0;
    std::string buffer;
    for (long long r = 0; r < static_cast<long long>(stages.size()); ++r) {
        const std::string marker = "\"" + detail::operations_marker(r) + "\"";
        const std::size_t found = text.find(marker, at);
        if (found == std::string::npos) break;
        std::fwrite(text.data() + at, 1, found - at, out);
        buffer.clear();
        detail::append_operations(buffer, t.stage(r));
        std::fwrite(buffer.data(), 1, buffer.size(), out);
        at = found + marker.size();
    }
    std::fwrite(text.data() + at, 1, text.size() - at, out);
    std::fputc('\n', out);
}

}  // namespace napkin::io
