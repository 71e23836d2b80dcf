// SPDX-License-Identifier: MIT
// napkin/run_plan.hpp — the planner's layouts as whole runs: ranked by the
// objective asked for (time, cost, energy or goodput), kept under a deadline,
// and the Pareto front of time against cost.
//
// On one GPU count every layout shares the failure rate, the checkpoint and
// the price, so time, cost and energy all rank as the step does; the
// objectives part ways over GPU counts: more GPUs finish sooner, fail more
// often and pay for more GPU-hours.
#pragma once

#include <napkin/names.hpp>
#include <napkin/planner.hpp>
#include <napkin/run_cost.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace napkin {

/// What runs are ranked by: the least wall time, cost or energy, or the most goodput.
enum class RunObjective { time, cost, energy, goodput };

/// Each objective's name, as to_string writes it and parse_run_objective reads it.
inline constexpr std::array run_objective_names{Named{RunObjective::time, "time"}, Named{RunObjective::cost, "cost"},
                                                Named{RunObjective::energy, "energy"},
                                                Named{RunObjective::goodput, "goodput"}};
/// The objective's name: "time", "cost", "energy" or "goodput".
[[nodiscard]] constexpr std::string_view to_string(RunObjective o) { return name_of(o, run_objective_names); }
/// The objective named `text`, or nothing if no objective has that name.
[[nodiscard]] constexpr std::optional<RunObjective> parse_run_objective(std::string_view text) {
    return value_of(text, run_objective_names);
}

/// One layout of the plan on `gpus` GPUs, and its run.
struct RunCandidate {
    long long gpus = 0;
    TrainingCandidate layout;
    RunCost run;
};

/// Whether `a` ranks before `b`: the least wall time, cost or energy, or the
/// most goodput; ties go to the shorter run, then to the faster step.
[[nodiscard]] inline bool ranks_before(const RunCandidate& a, const RunCandidate& b, RunObjective o) {
    const auto key = [o](const RunCandidate& c) {
        switch (o) {
            case RunObjective::time:
                return c.run.wall.value();
            case RunObjective::cost:
                return c.run.cost_usd;
            case RunObjective::energy:
                return c.run.energy.value();
            case RunObjective::goodput:
                return -c.run.goodput;
        }
        return 0.0;
    };
    if (key(a) != key(b)) return key(a) < key(b);
    if (a.run.wall != b.run.wall) return a.run.wall < b.run.wall;
    return a.layout.estimate.step < b.layout.estimate.step;
}

/// Ranked by the objective; a stable sort, so equal runs keep the planner's order.
inline void rank_runs(std::vector<RunCandidate>& runs, RunObjective o) {
    std::stable_sort(runs.begin(), runs.end(),
                     [o](const RunCandidate& a, const RunCandidate& b) { return ranks_before(a, b, o); });
}

/// The runs that end by the deadline (0: no deadline).
[[nodiscard]] inline std::vector<RunCandidate> within_deadline(std::vector<RunCandidate> runs, Seconds deadline) {
    if (deadline.value() <= 0.0) return runs;
    std::erase_if(runs, [deadline](const RunCandidate& c) { return c.run.wall > deadline; });
    return runs;
}

/// The Pareto front of wall time against cost: no other run is both as fast and
/// as cheap and better in one. Fastest first, so the cost falls along it.
[[nodiscard]] inline std::vector<RunCandidate> time_cost_front(std::vector<RunCandidate> runs) {
    std::stable_sort(runs.begin(), runs.end(), [](const RunCandidate& a, const RunCandidate& b) {
        if (a.run.wall != b.run.wall) return a.run.wall < b.run.wall;
        return a.run.cost_usd < b.run.cost_usd;
    });
    std::vector<RunCandidate> front;
    for (const RunCandidate& c : runs)
        if (front.empty() || c.run.cost_usd < front.back().run.cost_usd) front.push_back(c);
    return front;
}

}  // namespace napkin
