// libFuzzer target: the napkin command through napkin::cli::run. The input is
// split into argument tokens at newlines (and NULs), at most 24 of them; each
// run must end in exit status 0 (answered) or 2 (invalid input or usage, one
// line) with some output. Exit status 1 (internal error), an empty output, an
// escaping exception, a crash, a hang or a sanitizer report is a finding.
//
// Speed: building a subcommand's CLI11 options costs more under the
// sanitizers than most commands take to answer, and the app with every
// subcommand cost ~20 ms an input (46 inputs/s). A run builds only the
// subcommand it names (as the command does), and here each subcommand is
// built once and reused, its options put back as its setup left them before
// each parse (RunOptions::reuse_built_commands): ~3,000 inputs/s on one core.
// NAPKIN_FUZZ_CLI_COMPARE=1 checks each input against a fresh app with every
// subcommand, the way the command itself would have answered.
//
// The command reads and writes files named on the command line (--config,
// --times, --out, --svg, --write-times); the fuzzer runs in a scratch directory
// and replaces '/' in every token, so those files stay inside it.
#include "run.hpp"

#include <sanitizer/common_interface_defs.h>

#include <unistd.h>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // Files the inputs write (--out, --csv paths) land in a fresh directory
    // under the system's temporary one (mkdtemp replaces the X's), not in the working directory.
    std::string scratch = (std::filesystem::temp_directory_path() / "napkin-fuzz-cli-XXXXXX").string();
    if (::mkdtemp(scratch.data()) == nullptr || ::chdir(scratch.c_str()) != 0) {
        std::fprintf(stderr, "fuzz_cli: cannot make and enter a scratch directory %s: %s\n", scratch.c_str(),
                     std::strerror(errno));
        std::abort();
    }
    // run() sends stderr to its capture file while the command runs: a sanitizer
    // report goes to the real stderr instead.
    __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<std::intptr_t>(::dup(STDERR_FILENO))));
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args(size > 0 ? 1 : 0);
    for (std::size_t i = 0; i < size; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\n' || c == '\0') {
            if (args.size() == 24) break;
            args.emplace_back();
        } else {
            args.back() += c == '/' ? '_' : c;
        }
    }
    if (!args.empty() && args.back().empty() && size > 0 && (data[size - 1] == '\n' || data[size - 1] == '\0'))
        args.pop_back();  // a trailing newline ends the last token
    // NAPKIN_FUZZ_CLI_ECHO=1: print each run (to read what inputs give);
    // NAPKIN_FUZZ_CLI_DIRECT=1: run without capturing (to see a hang's or a crash's report).
    // NAPKIN_FUZZ_CLI_COMPARE=1: also run each input as the command does (a
    // fresh app with every subcommand) and stop at any difference.
    static const bool direct = std::getenv("NAPKIN_FUZZ_CLI_DIRECT") != nullptr;
    if (direct) return napkin::cli::execute(args), 0;
    const napkin::cli::RunResult result = napkin::cli::run(args, {.reuse_built_commands = true});
    static const bool compare = std::getenv("NAPKIN_FUZZ_CLI_COMPARE") != nullptr;
    if (compare) {
        const napkin::cli::RunResult fresh = napkin::cli::run(args, {.build_every_command = true});
        if (fresh.exit_code != result.exit_code || fresh.output != result.output) {
            std::fprintf(stderr, "a reused subcommand answers differently for:");
            for (const auto& a : args) std::fprintf(stderr, " '%s'", a.c_str());
            std::fprintf(stderr, "\n[%d] %s\nfresh, every subcommand: [%d] %s\n", result.exit_code,
                         result.output.c_str(), fresh.exit_code, fresh.output.c_str());
            std::abort();
        }
    }
    static const bool echo = std::getenv("NAPKIN_FUZZ_CLI_ECHO") != nullptr;
    if (echo) {
        std::fprintf(stderr, "[%d]", result.exit_code);
        for (const auto& a : args) std::fprintf(stderr, " '%s'", a.c_str());
        std::fprintf(stderr, "\n%s", result.output.c_str());
        return 0;
    }
    if (result.exit_code != napkin::cli::exit_answered && result.exit_code != napkin::cli::exit_invalid_input) {
        std::fprintf(stderr, "exit status %d for:", result.exit_code);
        for (const auto& a : args) std::fprintf(stderr, " '%s'", a.c_str());
        std::fprintf(stderr, "\n%s\n", result.output.c_str());
        std::abort();
    }
    if (result.output.empty()) {
        std::fprintf(stderr, "no output for:");
        for (const auto& a : args) std::fprintf(stderr, " '%s'", a.c_str());
        std::fprintf(stderr, "\n");
        std::abort();
    }
    if (result.exit_code == napkin::cli::exit_invalid_input) {
        // One line, starting "napkin: error: ".
        if (!result.output.starts_with("napkin: error: ") || result.output.find('\n') + 1 != result.output.size()) {
            std::fprintf(stderr, "not one error line for:");
            for (const auto& a : args) std::fprintf(stderr, " '%s'", a.c_str());
            std::fprintf(stderr, "\n%s\n", result.output.c_str());
            std::abort();
        }
    }
    return 0;
}
