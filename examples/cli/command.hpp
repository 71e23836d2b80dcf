// The napkin command's subcommands register themselves: each cli/*.cpp file
// defines one (or a few) with NAPKIN_COMMAND, and main.cpp runs the one named.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
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

// A subcommand's options live in an object its setup makes with
// make_options<T>() (the flags write into it, the callback reads it). Each one
// registers here how to take a snapshot of it once the setup is done; the
// snapshot's restore puts the object back as the setup left it, so a built
// subcommand can run again (run.cpp reuses them under the fuzzer).
using OptionsSnapshot = std::function<std::function<void()>()>;

inline std::vector<OptionsSnapshot>& options_snapshots() {
    static std::vector<OptionsSnapshot> all;
    return all;
}

template <class T>
std::shared_ptr<T> make_options() {
    auto o = std::make_shared<T>();
    options_snapshots().push_back([weak = std::weak_ptr<T>(o)]() -> std::function<void()> {
        const std::shared_ptr<T> object = weak.lock();
        if (object == nullptr) return [] {};
        return [weak, saved = *object] {
            if (const std::shared_ptr<T> now = weak.lock()) *now = saved;
        };
    });
    return o;
}

inline bool register_command(CommandSetup setup) {
    commands().push_back(std::move(setup));
    return true;
}

}  // namespace napkin::cli

#define NAPKIN_CLI_CONCAT_(a, b) a##b
#define NAPKIN_CLI_CONCAT(a, b) NAPKIN_CLI_CONCAT_(a, b)
// NAPKIN_COMMAND(app) { auto* sub = app.add_subcommand(...); ... }
#define NAPKIN_COMMAND(app)                                                              \
    static void NAPKIN_CLI_CONCAT(napkin_command_, __LINE__)(CLI::App & app);            \
    [[maybe_unused]] static const bool NAPKIN_CLI_CONCAT(napkin_registered_, __LINE__) = \
        ::napkin::cli::register_command(&NAPKIN_CLI_CONCAT(napkin_command_, __LINE__));  \
    static void NAPKIN_CLI_CONCAT(napkin_command_, __LINE__)(CLI::App & app)
