// The napkin command's subcommands register themselves: each cli/*.cpp file
// defines one (or a few) with NAPKIN_COMMAND, and main.cpp runs the one named.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace napkin::cli {

using CommandSetup = std::function<void(CLI::App& app)>;

inline std::vector<CommandSetup>& commands() {
    static std::vector<CommandSetup> all;
    return all;
}

// The subcommand being run (set by run.cpp before its callback): its JSON
// output carries "schema": "napkin.<command>/1".
inline std::string& current_command() {
    static std::string name;
    return name;
}

inline bool register_command(CommandSetup setup) {
    commands().push_back(std::move(setup));
    return true;
}

}  // namespace napkin::cli

#define NAPKIN_CLI_CONCAT_(a, b) a##b
#define NAPKIN_CLI_CONCAT(a, b) NAPKIN_CLI_CONCAT_(a, b)
// NAPKIN_COMMAND(app) { auto* sub = app.add_subcommand(...); ... }
#define NAPKIN_COMMAND(app)                                                                      \
    static void NAPKIN_CLI_CONCAT(napkin_command_, __LINE__)(CLI::App & app);                    \
    [[maybe_unused]] static const bool NAPKIN_CLI_CONCAT(napkin_registered_, __LINE__) =          \
        ::napkin::cli::register_command(&NAPKIN_CLI_CONCAT(napkin_command_, __LINE__));          \
    static void NAPKIN_CLI_CONCAT(napkin_command_, __LINE__)(CLI::App & app)
