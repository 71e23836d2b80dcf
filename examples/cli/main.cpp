// SPDX-License-Identifier: MIT
// napkin — the command-line front end to the library's models.
//   napkin list | split | fewest | best | ...   (napkin help lists them all)
// Every subcommand takes --json for machine-readable output in bytes and seconds.
// Exit status: 0 answered, 2 invalid input or usage (one line naming the flag
// and its value), 1 internal error (run.hpp).
#include "run.hpp"

#include <string>
#include <vector>

int main(int argc, char** argv) {
    return napkin::cli::execute(std::vector<std::string>(argv + 1, argv + argc));
}
