// SPDX-License-Identifier: MIT
// The napkin command's progress bar (examples/cli/progress.hpp): it counts what
// it is told, draws only when enabled and past its delay, and its ticker draws
// while no work reports.
#include "progress.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

using napkin::cli::ProgressBar;

TEST_SUITE("progress") {
    TEST_CASE("the bar counts what it is told and draws only when enabled and past its delay") {
        ProgressBar quiet("test", 100, std::chrono::milliseconds(0), false);
        quiet.advance(30);
        quiet.report(70, 100);
        quiet.report(50, 100);  // a late report from another thread never moves the count back
        CHECK(quiet.done() == 70);
        CHECK_FALSE(quiet.drawn_once());
        ProgressBar patient("test", 100, std::chrono::hours(1), true);
        patient.advance(10);
        CHECK_FALSE(patient.drawn_once());
        ProgressBar eager("test", 100, std::chrono::milliseconds(0), true);
        eager.advance(10);
        CHECK(eager.drawn_once());
        eager.finish();
    }

    TEST_CASE("the bar's ticker draws with no report at all (a search still counting its space)") {
        ProgressBar bar("test", 0, std::chrono::milliseconds(0), true);
        for (int i = 0; i < 50 && !bar.drawn_once(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK(bar.drawn_once());
        bar.finish();
    }
}
