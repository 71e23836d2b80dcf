// SPDX-License-Identifier: MIT
// napkin/io/lesson_args.hpp — the examples' command line: --help, and --out DIR for the ones that write
// files (figures, CSV). The default folder is not the source tree but
// <temp>/napkin/<example>, and the example says where it wrote.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace napkin::examples {

/// Reads argv: -h/--help prints `about` and the usage, exit 0; --out DIR (or,
/// as in 0.1, a bare folder) names the folder; anything else is an error, exit
/// 2. Returns the folder, created ("" for an example that writes nothing).
inline std::string lesson_args(int argc, char** argv, std::string_view name, std::string_view about,
                               bool writes_files) {
    std::string out;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::printf("%.*s: %.*s\n\nusage: %.*s%s\n", static_cast<int>(name.size()), name.data(),
                        static_cast<int>(about.size()), about.data(), static_cast<int>(name.size()), name.data(),
                        writes_files ? " [--out DIR]   (default: <temp>/napkin/<example>)" : "");
            std::exit(0);
        }
        if (writes_files && arg == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (writes_files && arg.starts_with("--out="))
            out = arg.substr(6);
        else if (writes_files && !arg.starts_with("-") && out.empty())
            out = arg;
        else {
            std::fprintf(stderr, "%.*s: error: unexpected argument \"%s\" (--help)\n", static_cast<int>(name.size()),
                         name.data(), arg.c_str());
            std::exit(2);
        }
    }
    if (!writes_files) return out;
    if (out.empty()) out = (std::filesystem::temp_directory_path() / "napkin" / std::string(name)).string();
    std::error_code error;
    std::filesystem::create_directories(out, error);
    if (error) {
        std::fprintf(stderr, "%.*s: error: --out = \"%s\": cannot be created (%s)\n", static_cast<int>(name.size()),
                     name.data(), out.c_str(), error.message().c_str());
        std::exit(2);
    }
    return out;
}

}  // namespace napkin::examples
