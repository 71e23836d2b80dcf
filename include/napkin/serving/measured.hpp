// SPDX-License-Identifier: MIT
// napkin/serving/measured.hpp — an engine benchmark measured with requests in
// flight (an offered request rate, or all requests at once for the offline
// maximum), napkin's request-level prediction of each number it printed, and
// the search of what such a row leaves unstated: the engine's batch limit.
//
// Each row is replayed as its benchmark ran it: its number of requests of
// fixed lengths, Poisson arrivals at the offered rate (or all at 0), through
// in-flight batching (serving/simulator.hpp) on the row's GPU and layout;
// the measures are the benchmark's own: mean TTFT and inter-token latency,
// output and total tokens/s and requests/s over the run.
#pragma once

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
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin {

/// What an in-flight benchmark prints: mean TTFT and inter-token latency, tokens/s (output or total), requests/s.
enum class InflightMeasure { ttft_mean, itl_mean, output_tokens_per_s, total_tokens_per_s, requests_per_s };

/// The measures' names, as to_string writes them.
inline constexpr std::array inflight_measure_names{
    Named{InflightMeasure::ttft_mean, "mean TTFT"},
    Named{InflightMeasure::itl_mean, "mean ITL"},
    Named{InflightMeasure::output_tokens_per_s, "output tokens/s"},
    Named{InflightMeasure::total_tokens_per_s, "total tokens/s"},
    Named{InflightMeasure::requests_per_s, "requests/s"},
};
/// The measure's name: "mean TTFT", "output tokens/s"…
[[nodiscard]] constexpr std::string_view to_string(InflightMeasure m) { return name_of(m, inflight_measure_names); }

/// One row of an in-flight benchmark: its setup, the requests' fixed lengths and number, the offered
/// rate, and each number it measured.
struct MeasuredInflightRun {
    MeasuredServingRun header;  // id, source, model, GPU, link, layout and formats (its workload unused)
    long long input_tokens = 1, output_tokens = 1;
    long long requests = 1000;
    double request_rate = 0.0;                                 // offered requests/s; 0: all at once (offline)
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
    }
    return 0.0;
}

/// The row replayed with at most `max_num_seqs` sequences running.
[[nodiscard]] inline SimulationSummary replay(const MeasuredInflightRun& run, long long max_num_seqs,
                                              const ServingProfile& profile = default_serving_profile) {
    TrafficSpec traffic;
    traffic.requests = run.request_rate > 0.0 ? run.requests : std::min(run.requests, replayed_requests);
    traffic.arrivals = {run.request_rate > 0.0 ? Arrivals::Kind::poisson : Arrivals::Kind::at_once,
                        run.request_rate > 0.0 ? run.request_rate : 1.0, 1.0};
    traffic.input = fixed_length(run.input_tokens);
    traffic.output = fixed_length(run.output_tokens);
    ServingSetup setup = run.header.setup;
    setup.profile = profile;
    EngineLimits limits;
    limits.scheduler = Scheduler::inflight;
    limits.max_num_seqs = max_num_seqs;
    const MeasuredServingRun& h = run.header;
    return summarize(simulate_serving(h.shape, h.gpu, h.link, h.layout, generate_requests(traffic), limits, setup));
}

/// Predicted over measured, minus one, per measurement of the row.
[[nodiscard]] inline std::vector<double> inflight_errors(const MeasuredInflightRun& run, long long max_num_seqs,
                                                         const ServingProfile& profile = default_serving_profile) {
    const SimulationSummary s = replay(run, max_num_seqs, profile);
    std::vector<double> errors;
    for (const auto& [measure, value] : run.measured) errors.push_back(measure_of(s, measure) / value - 1.0);
    return errors;
}

/// The batch limits a search tries: powers of two, 64 to 4,096 (TensorRT-LLM's
/// max_batch_size is a build setting; its benchmarks do not print it).
inline constexpr std::array<long long, 7> batch_limits{64, 128, 256, 512, 1024, 2048, 4096};

/// One source's searched batch limit, its rows, and each row's errors under that limit.
struct InflightSourceFit {
    std::string source;
    long long max_num_seqs = 0;  // the searched limit: the least Σ error² over the source's rows
    std::vector<std::size_t> rows;
    std::vector<std::vector<double>> errors;  // per row, per measurement
};

/// One batch limit per source (one engine build per table), the one that
/// predicts the source's rows best.
[[nodiscard]] inline std::vector<InflightSourceFit> fit_batch_limits(
    std::span<const MeasuredInflightRun> runs, const ServingProfile& profile = default_serving_profile) {
    std::vector<InflightSourceFit> fits;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        auto f = std::find_if(fits.begin(), fits.end(),
                              [&](const InflightSourceFit& g) { return g.source == runs[i].header.source; });
        if (f == fits.end()) f = fits.insert(fits.end(), {runs[i].header.source, 0, {}, {}});
        f->rows.push_back(i);
    }
    for (InflightSourceFit& f : fits) {
        double best = std::numeric_limits<double>::infinity();
        for (long long limit : batch_limits) {
            std::vector<std::vector<double>> errors;
            double squares = 0.0;
            for (std::size_t i : f.rows) {
                errors.push_back(inflight_errors(runs[i], limit, profile));
                for (double e : errors.back()) squares += e * e;
            }
            if (squares < best) best = squares, f.max_num_seqs = limit, f.errors = std::move(errors);
        }
    }
    return fits;
}

}  // namespace napkin
