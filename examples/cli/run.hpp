// SPDX-License-Identifier: MIT
// The napkin command as a function: `run({"split", "--model", "llama3.1-70b"})`
// parses the arguments, runs the subcommand and returns its exit status and
// everything it printed, so tests (and a fuzzer) drive the command in-process.
//
// Exit status: 0 answered (an answer may be "does not fit"), 2 invalid input
// or usage (one line: "napkin: error: <flag as typed> …: <what is wrong>"),
// 1 internal error.
#pragma once

#include <string>
#include <vector>

namespace napkin::cli {

inline constexpr int exit_answered = 0;
inline constexpr int exit_internal_error = 1;
inline constexpr int exit_invalid_input = 2;

struct RunResult {
    int exit_code = exit_answered;
    std::string output;  // stdout and stderr, in the order written
};

// Runs the command with `args` (without the program name), writing to the
// process's stdout and stderr; returns the exit status.
int execute(const std::vector<std::string>& args);

// Runs it with stdout and stderr captured.
RunResult run(const std::vector<std::string>& args);

struct RunOptions {
    // A run builds only the subcommand it names; with this set it builds every
    // one, as the overview does (the fuzzer checks that both answer the same).
    bool build_every_command = false;
    // Keeps each subcommand built for the next run in this process, its
    // options put back as its setup left them before each parse (building a
    // subcommand's options costs more than most commands take to answer:
    // the fuzzer's runs).
    bool reuse_built_commands = false;
};
RunResult run(const std::vector<std::string>& args, const RunOptions& options);

// The help text wrapped to `columns` (80 by default): continuation lines are
// indented to the column where the description began.
std::string wrap_help(const std::string& text, std::size_t columns = 80);

}  // namespace napkin::cli
