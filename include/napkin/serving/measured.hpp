// SPDX-License-Identifier: MIT
// napkin/serving/measured.hpp — an engine benchmark measured with requests in
// flight (an offered request rate, or all requests at once for the offline
// maximum), napkin's request-level prediction of each number it printed, and
// the search of what such a row leaves unstated: the engine's batch limit and
// the time a request spends in the server in front of the engine.
//
// Each row is replayed as its benchmark ran it: its number of requests of
// fixed lengths, Poisson arrivals at the offered rate (or all at 0), through
// in-flight batching (serving/simulator.hpp) on the row's GPU and layout;
// the measures are the benchmark's own: mean TTFT and inter-token latency,
// output and total tokens/s and requests/s over the run.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/measured_serving.hpp>
#include <napkin/names.hpp>
#include <napkin/serving/engine.hpp>
#include <napkin/serving/simulator.hpp>
#include <napkin/serving/workload.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin {

/// What a request-level benchmark prints: mean TTFT and inter-token latency, tokens/s (output or total),
/// requests/s; LMDeploy's profile_generation also the least and greatest TTFT and the inter-token
/// latency's 50th, 75th, 95th and 99th percentiles.
enum class InflightMeasure {
    ttft_mean,
    itl_mean,
    output_tokens_per_s,
    total_tokens_per_s,
    requests_per_s,
    ttft_min,
    ttft_max,
    itl_p50,
    itl_p75,
    itl_p95,
    itl_p99
};

/// The measures' names, as to_string writes them.
inline constexpr std::array inflight_measure_names{
    Named{InflightMeasure::ttft_mean, "mean TTFT"},
    Named{InflightMeasure::itl_mean, "mean ITL"},
    Named{InflightMeasure::output_tokens_per_s, "output tokens/s"},
    Named{InflightMeasure::total_tokens_per_s, "total tokens/s"},
    Named{InflightMeasure::requests_per_s, "requests/s"},
    Named{InflightMeasure::ttft_min, "least TTFT"},
    Named{InflightMeasure::ttft_max, "greatest TTFT"},
    Named{InflightMeasure::itl_p50, "p50 ITL"},
    Named{InflightMeasure::itl_p75, "p75 ITL"},
    Named{InflightMeasure::itl_p95, "p95 ITL"},
    Named{InflightMeasure::itl_p99, "p99 ITL"},
};
/// The measure's name: "mean TTFT", "output tokens/s"…
[[nodiscard]] constexpr std::string_view to_string(InflightMeasure m) { return name_of(m, inflight_measure_names); }

/// One row of an in-flight benchmark: its setup, the requests' fixed lengths and number, the offered
/// rate or the clients of a closed loop, and each number it measured.
struct MeasuredInflightRun {
    MeasuredServingRun header;  // id, source, model, GPU, link, layout and formats (its workload unused)
    long long input_tokens = 1, output_tokens = 1;
    long long requests = 1000;
    double request_rate = 0.0;  // offered requests/s; 0: all at once (offline) or a closed loop
    long long clients = 0;      // a closed loop of this many clients (EngineLimits::clients); 0: none
    // How the engine batches: TensorRT-LLM's in-flight batching where the row says "in-flight";
    // none where it does not say (a search tries each scheduler that batches in flight).
    std::optional<Scheduler> scheduler = Scheduler::inflight;
    std::vector<std::pair<InflightMeasure, double>> measured;  // seconds, tokens/s, requests/s
};

/// The offline rows replay at most this many requests: past a few thousand the
/// throughput of fixed lengths is the steady state (30,000 requests of the
/// 128/128 rows would add nothing but time).
inline constexpr long long replayed_requests = 3000;

/// A summary's value of the measure: seconds, tokens/s or requests/s.
[[nodiscard]] inline double measure_of(const SimulationSummary& s, InflightMeasure m) {
    switch (m) {
        case InflightMeasure::ttft_mean:
            return s.ttft.mean;
        case InflightMeasure::itl_mean:
            return s.itl.mean;
        case InflightMeasure::output_tokens_per_s:
            return s.output_tokens_per_s;
        case InflightMeasure::total_tokens_per_s:
            return s.total_tokens_per_s;
        case InflightMeasure::requests_per_s:
            return s.requests_per_s;
        case InflightMeasure::ttft_min:
            return s.ttft.min;
        case InflightMeasure::ttft_max:
            return s.ttft.max;
        case InflightMeasure::itl_p50:
            return s.itl.p50;
        case InflightMeasure::itl_p75:
            return s.itl.p75;
        case InflightMeasure::itl_p95:
            return s.itl.p95;
        case InflightMeasure::itl_p99:
            return s.itl.p99;
    }
    return 0.0;
}

/// What a replay takes that a row does not print: the engine's batch limit, its scheduler (where the
/// row does not say it), a closed loop's requests a client, and the front end before the engine.
struct ReplaySettings {
    long long max_num_seqs = 256;
    Scheduler scheduler = Scheduler::inflight;  // for rows without their own
    long long rounds = 1;                       // a closed loop's requests a client, one after another
    double front_end_latency = 0.0;             // seconds (with_front_end_latency)
};

/// The row replayed under `settings`, the engine's own times (no front end: with_front_end_latency adds it).
[[nodiscard]] inline SimulationResult replay_run(const MeasuredInflightRun& run, const ReplaySettings& settings,
                                                 const ServingProfile& profile = default_serving_profile) {
    require(settings.rounds >= 1 && settings.rounds <= 1000, "rounds", count(settings.rounds),
            "must be from 1 to 1,000 requests a client");
    TrafficSpec traffic;
    traffic.requests = run.clients > 0        ? checked_mul(run.clients, settings.rounds, "clients × rounds")
                       : run.request_rate > 0 ? run.requests
                                              : std::min(run.requests, replayed_requests);
    traffic.arrivals = {run.request_rate > 0.0 ? Arrivals::Kind::poisson : Arrivals::Kind::at_once,
                        run.request_rate > 0.0 ? run.request_rate : 1.0, 1.0};
    traffic.input = fixed_length(run.input_tokens);
    traffic.output = fixed_length(run.output_tokens);
    ServingSetup setup = run.header.setup;
    setup.profile = profile;
    EngineLimits limits;
    limits.scheduler = run.scheduler.value_or(settings.scheduler);
    limits.max_num_seqs = settings.max_num_seqs;
    limits.clients = run.clients;
    const MeasuredServingRun& h = run.header;
    // A closed loop's clients start one after another (profile_generation starts a thread per
    // client in turn), so the first request reaches an idle engine alone and the others join
    // the steps after it; any gap far below a step gives the same run.
    limits.client_start_gap = closed_loop_start_gap;
    return simulate_serving(h.shape, h.gpu, h.link, h.layout, generate_requests(traffic), limits, setup);
}

/// The row replayed under `settings`, behind its front end, summarised as its benchmark prints it.
[[nodiscard]] inline SimulationSummary replay(const MeasuredInflightRun& run, const ReplaySettings& settings,
                                              const ServingProfile& profile = default_serving_profile) {
    return summarize(with_front_end_latency(replay_run(run, settings, profile), settings.front_end_latency));
}

/// Predicted over measured, minus one, per measurement of the row, from its summary.
[[nodiscard]] inline std::vector<double> inflight_errors(const MeasuredInflightRun& run, const SimulationSummary& s) {
    std::vector<double> errors;
    for (const auto& [measure, value] : run.measured) errors.push_back(measure_of(s, measure) / value - 1.0);
    return errors;
}

/// Predicted over measured, minus one, per measurement of the row replayed under `settings`.
[[nodiscard]] inline std::vector<double> inflight_errors(const MeasuredInflightRun& run, const ReplaySettings& settings,
                                                         const ServingProfile& profile = default_serving_profile) {
    return inflight_errors(run, replay(run, settings, profile));
}

/// The batch limits a search tries: powers of two, 64 to 4,096 (TensorRT-LLM's
/// max_batch_size is a build setting; its benchmarks do not print it).
inline constexpr std::array<long long, 7> batch_limits{64, 128, 256, 512, 1024, 2048, 4096};

/// The requests a closed loop's client sends, one after another: LMDeploy's doc does not print
/// profile_generation's rounds (its test_round). Searched over 1, 3 and 10 the fit picks 10 and
/// gains 0.7 point of mean TTFT, but each model predicted from the other's search loses 2 (24.5 →
/// 26.5 %) and its least TTFT 5 (20.4 → 25.5 %): a setting the rows do not pin down, so it stays
/// fixed, at 3 (1 gives 27.2 % mean TTFT, 10 gives 23.3 %).
inline constexpr long long closed_loop_rounds = 3;

/// The schedulers a search tries for rows that do not say how their engine batches: the three that
/// batch in flight (serving/simulator.hpp).
inline constexpr std::array<Scheduler, 3> searched_schedulers{Scheduler::continuous, Scheduler::prefill_first,
                                                              Scheduler::inflight};

/// The batch limits worth trying for a source's rows: batch_limits, or for closed loops alone the
/// powers of two from 8 to the most clients (a larger limit holds every client too, so runs the same).
[[nodiscard]] inline std::vector<long long> limits_to_search(std::span<const MeasuredInflightRun> runs,
                                                             std::span<const std::size_t> rows) {
    long long most = 0;
    for (std::size_t i : rows) {
        if (runs[i].clients == 0) return {batch_limits.begin(), batch_limits.end()};
        most = std::max(most, runs[i].clients);
    }
    std::vector<long long> limits;
    for (long long limit = 8; limit < most; limit *= 2) limits.push_back(limit);
    limits.push_back(most);
    return limits;
}

/// The front-end latency c ≥ 0 that minimises Σ |predicted + c − measured| / measured over
/// {predicted, measured} TTFT pairs: a weighted median of measured − predicted, weights
/// 1 / measured (the least sum of relative absolute errors); 0 without pairs.
[[nodiscard]] inline double front_end_fit(const std::vector<std::pair<double, double>>& ttft) {
    std::vector<std::pair<double, double>> gaps;  // {measured − predicted, weight}
    double total = 0.0;
    for (const auto& [predicted, measured] : ttft) {
        require(std::isfinite(predicted) && measured > 0.0 && std::isfinite(measured), "measured TTFT (s)", measured,
                "must be positive and finite, its prediction finite");
        gaps.emplace_back(measured - predicted, 1.0 / measured);
    }
    for (const auto& g : gaps) total += g.second;
    std::sort(gaps.begin(), gaps.end());
    double below = 0.0;
    for (const auto& [gap, weight] : gaps) {
        below += weight;
        if (below >= total / 2.0) return std::max(0.0, gap);
    }
    return 0.0;
}

/// One source's searched settings (the batch limit; the scheduler where its rows say none; the front
/// end, fitted with them: 0 for a source without TTFT), its rows, and each row's errors under them.
struct InflightSourceFit {
    std::string source;
    ReplaySettings settings;
    std::vector<std::size_t> rows;
    std::vector<std::vector<double>> errors;  // per row, per measurement
};

/// The sum over measures of the mean |error| of each (what the README's table reports).
[[nodiscard]] inline double sum_of_mean_errors(std::span<const MeasuredInflightRun> runs,
                                               std::span<const std::size_t> rows,
                                               const std::vector<std::vector<double>>& errors) {
    std::array<double, inflight_measure_names.size()> sum{}, n{};
    for (std::size_t k = 0; k < rows.size(); ++k)
        for (std::size_t j = 0; j < errors[k].size(); ++j) {
            const auto m = static_cast<std::size_t>(runs[rows[k]].measured[j].first);
            sum[m] += std::abs(errors[k][j]), n[m] += 1.0;
        }
    double total = 0.0;
    for (std::size_t m = 0; m < sum.size(); ++m)
        if (n[m] > 0.0) total += sum[m] / n[m];
    return total;
}

/// A source replayed: its settings (the front end fitted), each row's errors, and their score.
struct SourceReplay {
    ReplaySettings settings;
    std::vector<std::vector<double>> errors;
    double score = std::numeric_limits<double>::infinity();
};
/// The source's rows replayed under `settings` with the front end that fits their TTFTs best
/// (front_end_fit); the score is the sum over the measures of the mean |error| (sum_of_mean_errors).
[[nodiscard]] inline SourceReplay replay_source(std::span<const MeasuredInflightRun> runs,
                                                std::span<const std::size_t> rows, ReplaySettings settings,
                                                const ServingProfile& profile) {
    std::vector<SimulationResult> replays;
    std::vector<std::pair<double, double>> ttft;
    for (std::size_t i : rows) {
        replays.push_back(replay_run(runs[i], settings, profile));
        const double predicted = summarize(replays.back()).ttft.mean;
        for (const auto& [measure, value] : runs[i].measured)
            if (measure == InflightMeasure::ttft_mean) ttft.emplace_back(predicted, value);
    }
    settings.front_end_latency = front_end_fit(ttft);
    std::vector<std::vector<double>> errors;
    for (std::size_t k = 0; k < rows.size(); ++k)
        errors.push_back(
            inflight_errors(runs[rows[k]], summarize(with_front_end_latency(replays[k], settings.front_end_latency))));
    const double score = sum_of_mean_errors(runs, rows, errors);
    return {settings, std::move(errors), score};
}

/// One set of replay settings per source (one engine build and one server per table): each batch
/// limit and, where the rows do not say it, each scheduler (closed loops at closed_loop_rounds),
/// with the front end that fits the TTFTs best; the one with the least sum of mean |error| over the
/// measures.
[[nodiscard]] inline std::vector<InflightSourceFit> fit_batch_limits(
    std::span<const MeasuredInflightRun> runs, const ServingProfile& profile = default_serving_profile) {
    std::vector<InflightSourceFit> fits;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        auto f = std::find_if(fits.begin(), fits.end(),
                              [&](const InflightSourceFit& g) { return g.source == runs[i].header.source; });
        if (f == fits.end()) f = fits.insert(fits.end(), {runs[i].header.source, {}, {}, {}});
        f->rows.push_back(i);
    }
    for (InflightSourceFit& f : fits) {
        // The rows' own scheduler where the first says it (a table is one engine), else each in turn.
        const std::optional<Scheduler> stated = runs[f.rows.front()].scheduler;
        const std::vector<Scheduler> schedulers =
            stated ? std::vector{*stated}
                   : std::vector<Scheduler>(searched_schedulers.begin(), searched_schedulers.end());
        const bool closed_loops =
            std::any_of(f.rows.begin(), f.rows.end(), [&](std::size_t i) { return runs[i].clients > 0; });
        SourceReplay best;
        for (const Scheduler scheduler : schedulers)
            for (long long limit : limits_to_search(runs, f.rows)) {
                SourceReplay r = replay_source(
                    runs, f.rows,
                    {.max_num_seqs = limit, .scheduler = scheduler, .rounds = closed_loops ? closed_loop_rounds : 1},
                    profile);
                if (r.score < best.score) best = std::move(r);
            }
        f.settings = best.settings;
        f.errors = std::move(best.errors);
    }
    return fits;
}

}  // namespace napkin
