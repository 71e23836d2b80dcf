// libFuzzer target: the napkin command through napkin::cli::run. The input is
// split into argument tokens at newlines (and NULs), at most 24 of them; each
// run must end in exit status 0 (answered) or 2 (invalid input or usage, one
// line) with some output. Exit status 1 (internal error), an empty output, an
// escaping exception, a crash, a hang or a sanitizer report is a finding.
//
// The command reads and writes files named on the command line (--config,
// --times, --out, --svg, --write-times); the fuzzer runs in a scratch directory
// and replaces '/' in every token, so those files stay inside it.
#include "run.hpp"

#include <sanitizer/common_interface_defs.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    char scratch[] = "/tmp/napkin-fuzz-cli-XXXXXX";
    if (::mkdtemp(scratch) == nullptr || ::chdir(scratch) != 0) std::abort();
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
    static const bool direct = std::getenv("NAPKIN_FUZZ_CLI_DIRECT") != nullptr;
    if (direct) return napkin::cli::execute(args), 0;
    const napkin::cli::RunResult result = napkin::cli::run(args);
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
