// napkin — the command-line front end to the library's models.
//   napkin list | split | fewest | best | ...   (napkin --help lists them all)
// Every subcommand takes --json for machine-readable output in bytes and seconds.
// Bad input prints one line naming what is wrong and exits with status 2.
#include "command.hpp"

#include <napkin/error.hpp>

#include <iostream>

int main(int argc, char** argv) {
    CLI::App app{"napkin: analytical performance models for distributed GPU training and inference"};
    app.require_subcommand(1);
    for (const auto& setup : napkin::cli::commands()) setup(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        std::cerr << "napkin: error: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
