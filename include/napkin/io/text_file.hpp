// SPDX-License-Identifier: MIT
// napkin/io/text_file.hpp — the one way napkin reads an input file and writes
// an output file.
//
// A read is checked before anything is allocated: the path must name a regular
// file (not a directory, a device or a FIFO that never ends) no larger than
// `limit` bytes; a JSON input is also bounded in nesting before it is parsed.
// A write is checked after the last byte: a full disk or a closed pipe
// (`--svg /dev/full`) is an error naming the argument, never a silent exit 0.
// Both throw napkin::invalid_argument, "ARGUMENT = "PATH": why".
#pragma once

#include <napkin/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>

namespace napkin::io {

/// At most `limit` printable ASCII characters of `text` (others as '?'), "..."
/// when cut: what an error message may echo of a file, so it stays one line.
[[nodiscard]] inline std::string printable(std::string_view text, std::size_t limit = 80) {
    std::string out;
    for (const char c : text) {
        if (out.size() == limit) return out + "...";
        out += c >= 0x20 && c < 0x7f ? c : '?';
    }
    return out;
}

/// The largest input file napkin reads: 64 MiB, a thousand times the largest
/// published table it reads (the 500 KB kernel measurements).
inline constexpr std::uintmax_t max_input_bytes = 64ULL << 20;

/// The text of `path`, given by `argument` (the flag or field that named it).
[[nodiscard]] inline std::string read_text_file(std::string_view argument, const std::string& path,
                                                std::uintmax_t limit = max_input_bytes) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) reject(argument, path, "cannot be opened");
    if (std::filesystem::is_directory(status)) reject(argument, path, "is a directory, not a file");
    if (!std::filesystem::is_regular_file(status)) reject(argument, path, "is not a regular file");
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) reject(argument, path, "cannot be read");
    if (size > limit)
        reject(argument, path,
               "is " + std::to_string(size) + " bytes; napkin reads at most " + std::to_string(limit) + " bytes");
    std::ifstream in(path, std::ios::binary);
    if (!in) reject(argument, path, "cannot be read (permission denied?)");
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (in.bad()) reject(argument, path, "cannot be read");
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

/// JSON inputs nest a few levels (a config.json two or three, napkin's own
/// files four). One nested deeper than this is rejected before it is parsed:
/// nothing napkin reads is that deep, and a 60 MB file of "[[[[…" took
/// nlohmann 2.2 GB and 5 s to refuse.
inline constexpr int max_json_depth = 64;

/// The deepest [ or { nesting of a JSON text, strings skipped.
[[nodiscard]] inline int json_depth(std::string_view text) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{')
            deepest = std::max(deepest, ++depth);
        else if ((c == ']' || c == '}') && depth > 0)
            --depth;
    }
    return deepest;
}

/// Rejects a JSON text nested deeper than max_json_depth, naming the argument and the path.
inline void require_json_depth(std::string_view argument, const std::string& path, std::string_view text) {
    if (json_depth(text) > max_json_depth)
        reject(argument, path,
               "is nested deeper than " + std::to_string(max_json_depth) + " levels (no JSON napkin reads is)");
}

/// The text of a JSON input: read_text_file, its nesting bounded (require_json_depth).
[[nodiscard]] inline std::string read_json_file(std::string_view argument, const std::string& path) {
    std::string text = read_text_file(argument, path);
    require_json_depth(argument, path, text);
    return text;
}

/// Writes `text` to `path` (given by `argument`), checked through the close.
inline void write_text_file(std::string_view argument, const std::string& path, std::string_view text) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) reject(argument, path, "cannot be written");
    const bool wrote = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    const bool flushed = std::fflush(file) == 0;
    const bool closed = std::fclose(file) == 0;
    if (!(wrote && flushed && closed)) reject(argument, path, "cannot be written (disk full or closed?)");
}

}  // namespace napkin::io
