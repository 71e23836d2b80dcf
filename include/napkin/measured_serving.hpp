// SPDX-License-Identifier: MIT
// napkin/measured_serving.hpp — a serving benchmark someone measured, one
// measured number at a time (the model, GPU, layout, formats, the batch and
// what was measured), napkin's prediction of that number, and the fit of the
// engine's per-pass overheads (ServingProfile) to such numbers, with each
// source left out.
//
//   const double e = serving_error(run, profile);  // predicted / measured − 1
//
// What each kind compares with, as the engines measure it:
//  - a static batch's throughput (TensorRT-LLM's gptSessionBenchmark, LMDeploy's
//    profile_generation): B·O generated tokens over the whole run, its prefill
//    included — evaluate_serving's output_tokens_per_s under Batching::static_batch;
//  - first-token latency at batch B: the batch's prefill (ttft);
//  - per-token latency: a decode step at the batch's mean context (tpot; the
//    median, p50, of a static batch's steps, which differ little).
// A batch its benchmark ran as a closed loop of B clients on an engine that
// batches in flight (LMDeploy's profile_generation on TurboMind) is replayed
// request by request instead (serving/engine.hpp): the prompts arrive as the
// clients start, the KV cache holds what the memory leaves, and a batch it
// cannot hold runs as the engine runs it — the newest sequences wait or are
// preempted — so its throughput, mean first-token latency and median gap
// between tokens are the replay's.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/names.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/engine.hpp>
#include <napkin/serving/simulator.hpp>
#include <napkin/serving/workload.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

/// What a measured serving run reports: output tokens/s (in all or per GPU), TTFT or TPOT.
enum class ServingMeasure {
    output_tokens_per_s,          // all GPUs together
    output_tokens_per_s_per_gpu,  // over the layout's GPUs
    ttft,                         // first-token latency of the batch, s
    tpot,                         // per-token latency, s
};

/// The measures' names, as to_string writes them.
inline constexpr std::array serving_measure_names{
    Named{ServingMeasure::output_tokens_per_s, "output tokens/s"},
    Named{ServingMeasure::output_tokens_per_s_per_gpu, "output tokens/s per GPU"},
    Named{ServingMeasure::ttft, "first-token latency"},
    Named{ServingMeasure::tpot, "per-token latency"},
};
/// The measure's name: "output tokens/s", "first-token latency"…
[[nodiscard]] constexpr std::string_view to_string(ServingMeasure m) { return name_of(m, serving_measure_names); }

/// A rate (higher is faster) or a time.
[[nodiscard]] constexpr bool is_rate(ServingMeasure m) {
    return m == ServingMeasure::output_tokens_per_s || m == ServingMeasure::output_tokens_per_s_per_gpu;
}

/// One measured number of a serving benchmark, with the model, GPU, link, layout, formats and batch it was measured at.
struct MeasuredServingRun {
    std::string id;      // the row's id
    std::string source;  // the benchmark it comes from: what cross-validation leaves out
    std::string model;   // as the source names it
    TransformerShape shape{};
    Gpu gpu{};
    Link link{};  // among the layout's GPUs
    ServingLayout layout;
    ServingSetup setup;  // the weight and KV formats; the profile is the fit's
    ServingWorkload workload;
    ServingMeasure measure = ServingMeasure::output_tokens_per_s;
    double measured = 0.0;  // tokens/s or seconds
    // How the benchmark ran the batch: a static batch (false: TensorRT-LLM's gptSessionBenchmark),
    // or a closed loop of its workload.concurrency clients on an engine that batches in flight
    // (true: LMDeploy's profile_generation), replayed as closed_loop_run does.
    bool closed_loop = false;
    // Whether the row says which decode attention kernel ran (setup.grouped_decode_attention); when it
    // does not, the fit searches it, one choice for each source's model (search_decode_attention).
    bool decode_attention_known = true;
};

/// The gap between a closed loop's clients starting, seconds: a microsecond, far below any step.
inline constexpr double closed_loop_start_gap = 1e-6;

/// A closed-loop batch replayed as its benchmark ran it: B clients started one after another
/// (profile_generation starts a thread per client in turn, so the first prompt reaches an idle
/// engine alone and the others join the steps after it), one request each, through prefill-first
/// batching — a step of the waiting prompts whole, then decode steps of every running sequence,
/// the scheduler the request-level replay's search picks for LMDeploy's rows — with the batch's
/// own limits (B sequences, B prompts a step) and the KV cache the memory leaves
/// (kv_cache_blocks): blocks taken as tokens arrive, the newest sequence preempted and recomputed
/// when none is free. Its summary: output tokens/s, mean TTFT and the gaps' median.
[[nodiscard]] inline SimulationSummary closed_loop_run(const MeasuredServingRun& run, const ServingProfile& profile) {
    const ServingWorkload& w = run.workload;
    TrafficSpec traffic;
    traffic.requests = w.concurrency;
    traffic.arrivals = {Arrivals::Kind::at_once, 1.0, 1.0};  // the clients' starts set the arrivals
    traffic.input = fixed_length(w.input_tokens);
    traffic.output = fixed_length(w.output_tokens);
    ServingSetup setup = run.setup;
    setup.profile = profile;
    EngineLimits limits;
    limits.scheduler = Scheduler::prefill_first;
    limits.max_num_seqs = w.concurrency;
    limits.max_num_batched_tokens = checked_mul(w.concurrency, w.input_tokens, "batch × input tokens");
    limits.clients = w.concurrency;
    limits.client_start_gap = closed_loop_start_gap;
    return summarize(
        simulate_serving(run.shape, run.gpu, run.link, run.layout, generate_requests(traffic), limits, setup));
}

/// The summary's value of the run's measure: the replay's output tokens/s (per GPU: over the
/// layout's GPUs), mean TTFT, or median gap between tokens.
[[nodiscard]] inline double replayed_measure(const MeasuredServingRun& run, const SimulationSummary& s) {
    switch (run.measure) {
        case ServingMeasure::output_tokens_per_s:
            return s.output_tokens_per_s;
        case ServingMeasure::output_tokens_per_s_per_gpu:
            return s.output_tokens_per_s / count(run.layout.gpus());
        case ServingMeasure::ttft:
            return s.ttft.mean;
        case ServingMeasure::tpot:
            return s.itl.p50;
    }
    return 0.0;
}

/// napkin's value of the run's measure under `profile`.
[[nodiscard]] inline double predicted(const MeasuredServingRun& run, const ServingProfile& profile) {
    if (run.closed_loop) return replayed_measure(run, closed_loop_run(run, profile));
    ServingSetup setup = run.setup;
    setup.profile = profile;
    const ServingEstimate e = evaluate_serving(run.shape, run.gpu, run.link, run.layout, run.workload, setup);
    switch (run.measure) {
        case ServingMeasure::output_tokens_per_s:
            return e.output_tokens_per_s.value();
        case ServingMeasure::output_tokens_per_s_per_gpu:
            return e.output_tokens_per_s_per_gpu.value();
        case ServingMeasure::ttft:
            return e.ttft.value();
        case ServingMeasure::tpot:
            return e.tpot.value();
    }
    return 0.0;
}

/// Predicted over measured, minus one (+10 %: napkin says 10 % more tokens/s, or a 10 % longer latency).
[[nodiscard]] inline double serving_error(const MeasuredServingRun& run,
                                          const ServingProfile& profile = default_serving_profile) {
    require_positive("MeasuredServingRun.measured", run.measured);
    return predicted(run, profile) / run.measured - 1.0;
}

/// The time a measurement stands for: a latency itself; a throughput the
/// batch's whole run, B·O tokens over the rate.
[[nodiscard]] inline double measured_time(const MeasuredServingRun& run, double value) {
    if (!is_rate(run.measure)) return value;
    const double gpus = run.measure == ServingMeasure::output_tokens_per_s_per_gpu ? count(run.layout.gpus()) : 1.0;
    return count(run.workload.concurrency) * count(run.workload.output_tokens) / (value * gpus);
}

/// napkin's value of each run's measure under `profile`, as predicted() gives it, a closed-loop
/// batch replayed once for all the measures read from it (the runs one row gives, one after another).
[[nodiscard]] inline std::vector<double> predictions(std::span<const MeasuredServingRun> runs,
                                                     const ServingProfile& profile) {
    std::vector<double> values;
    values.reserve(runs.size());
    SimulationSummary replayed;
    const MeasuredServingRun* replayed_run = nullptr;
    const auto same_batch = [](const MeasuredServingRun& a, const MeasuredServingRun& b) {
        return a.id == b.id && a.workload.input_tokens == b.workload.input_tokens &&
               a.workload.output_tokens == b.workload.output_tokens &&
               a.workload.concurrency == b.workload.concurrency && a.gpu.name == b.gpu.name &&
               a.layout.tp == b.layout.tp && a.layout.pp == b.layout.pp && a.layout.ep == b.layout.ep &&
               a.setup.weights == b.setup.weights && a.setup.kv == b.setup.kv &&
               a.setup.grouped_decode_attention == b.setup.grouped_decode_attention;
    };
    for (const MeasuredServingRun& run : runs) {
        if (!run.closed_loop) {
            values.push_back(predicted(run, profile));
            continue;
        }
        if (replayed_run == nullptr || !same_batch(*replayed_run, run)) {
            replayed = closed_loop_run(run, profile);
            replayed_run = &run;
        }
        values.push_back(replayed_measure(run, replayed));
    }
    return values;
}

/// A source's model whose rows do not say which decode attention kernel ran, and the one the search
/// chose: grouped (the cache read once per KV head) or per query head.
struct DecodeAttentionChoice {
    std::string source, model;
    bool grouped = true;
};

namespace detail {
/// Σ (predicted time / measured time − 1)² over the runs, from their predictions.
inline double time_squares(std::span<const MeasuredServingRun> runs, const std::vector<double>& values) {
    double sum = 0.0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const double e = measured_time(runs[i], values[i]) / measured_time(runs[i], runs[i].measured) - 1.0;
        sum += e * e;
    }
    return sum;
}
}  // namespace detail

/// Each source's model whose rows do not say which decode attention kernel ran
/// (decode_attention_known false) set to the kernel, grouped or per query head, under which `profile`
/// gives its rows' times the smaller Σ (predicted / measured time − 1)²: a setting the row leaves
/// unstated, searched on the rows themselves (an engine build is one model's, so one choice a model).
[[nodiscard]] inline std::vector<DecodeAttentionChoice> search_decode_attention(std::vector<MeasuredServingRun>& runs,
                                                                                const ServingProfile& profile) {
    std::vector<DecodeAttentionChoice> choices;
    for (const MeasuredServingRun& r : runs)
        if (!r.decode_attention_known && std::none_of(choices.begin(), choices.end(), [&](const auto& c) {
                return c.source == r.source && c.model == r.model;
            }))
            choices.push_back({r.source, r.model, true});
    for (DecodeAttentionChoice& c : choices) {
        std::vector<MeasuredServingRun> rows;
        for (const MeasuredServingRun& r : runs)
            if (!r.decode_attention_known && r.source == c.source && r.model == c.model) rows.push_back(r);
        double best = std::numeric_limits<double>::infinity();
        for (const bool grouped : {true, false}) {
            for (MeasuredServingRun& r : rows) r.setup.grouped_decode_attention = grouped;
            const double squares = detail::time_squares(rows, predictions(rows, profile));
            if (squares < best) best = squares, c.grouped = grouped;
        }
        for (MeasuredServingRun& r : runs)
            if (!r.decode_attention_known && r.source == c.source && r.model == c.model)
                r.setup.grouped_decode_attention = c.grouped;
    }
    return choices;
}

// ---------------------------------------------------------------------------
// The fit minimises Σ (predicted time / measured time − 1)² over the rows.
// At a given GEMM share, every time napkin predicts is its kernels' time plus
// a whole number of pass overheads and layer overheads (evaluate_serving adds
// them per pass; a replay's steps do not depend on how long each takes: its
// clients start together and each sends one request), t₀ + a·pass + b·layer,
// linear in the two, and the counts of passes and layers do not depend on the
// GEMM share: they are found once, and at each share a two-unknown linear
// least squares is solved exactly, each overhead kept ≥ 0 (the better
// one-parameter solution when the joint one goes negative). The GEMM share is
// searched on (0, 1]: a grid of 0.02, then golden-section within its best cell.

/// The fitted profile and its sum of squares, with each run's serving_error under it: their mean and
/// largest magnitude, and their mean (the bias).
struct ServingFit {
    ServingProfile profile;
    double sum_of_squares = 0.0;    // of the relative time residuals
    std::vector<double> predicted;  // per run, under the profile and the searched decode attention
    std::vector<double> errors;     // serving_error per run, in the measure's own terms
    double mean_abs = 0.0, max_abs = 0.0, bias = 0.0;
    std::vector<DecodeAttentionChoice> decode_attention;  // searched, where rows leave it unstated
};

namespace detail {
/// Each run's time (measured_time) added by a second of pass overhead and of layer overhead, and its measured time.
struct OverheadSlopes {
    std::vector<double> per_pass, per_layer, measured;  // seconds per second; seconds
};
inline OverheadSlopes overhead_slopes(std::span<const MeasuredServingRun> runs, KernelProfile kernels) {
    const Seconds unit = seconds(1e-3);
    const std::vector<double> base = predictions(runs, {kernels, {}, {}, 1.0});
    const std::vector<double> pass = predictions(runs, {kernels, unit, {}, 1.0});
    const std::vector<double> layer = predictions(runs, {kernels, {}, unit, 1.0});
    OverheadSlopes slopes;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const double t = measured_time(runs[i], base[i]);
        slopes.per_pass.push_back((measured_time(runs[i], pass[i]) - t) / unit.value());
        slopes.per_layer.push_back((measured_time(runs[i], layer[i]) - t) / unit.value());
        slopes.measured.push_back(measured_time(runs[i], runs[i].measured));
    }
    return slopes;
}

/// The overheads' least squares at one GEMM share: the profile and its Σr².
struct OverheadFit {
    ServingProfile profile;
    double sum_of_squares = 0.0;
};
inline OverheadFit fit_overheads(std::span<const MeasuredServingRun> runs, const OverheadSlopes& slopes,
                                 KernelProfile kernels, double gemm_share) {
    // Rows scaled by the measured time: minimise Σ (x·p + y·l − r)², r = 1 − t₀/t.
    const std::vector<double> values = predictions(runs, {kernels, {}, {}, gemm_share});
    std::vector<double> base(runs.size());
    double pp = 0, pl = 0, ll = 0, pr = 0, lr = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        base[i] = measured_time(runs[i], values[i]);
        const double t = slopes.measured[i];
        const double p = slopes.per_pass[i] / t, l = slopes.per_layer[i] / t, r = 1.0 - base[i] / t;
        pp += p * p, pl += p * l, ll += l * l, pr += p * r, lr += l * r;
    }
    const auto squares = [&](double x, double y) {
        double s = 0;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const double e = (base[i] + x * slopes.per_pass[i] + y * slopes.per_layer[i]) / slopes.measured[i] - 1.0;
            s += e * e;
        }
        return s;
    };
    // Candidates: the joint solution, each overhead alone, none; the best with both ≥ 0.
    std::vector<std::array<double, 2>> candidates{{0.0, 0.0}};
    const double det = pp * ll - pl * pl;
    if (det > 0.0) candidates.push_back({(pr * ll - lr * pl) / det, (lr * pp - pr * pl) / det});
    if (pp > 0.0) candidates.push_back({pr / pp, 0.0});
    if (ll > 0.0) candidates.push_back({0.0, lr / ll});
    std::array<double, 2> best{0.0, 0.0};
    for (const auto& c : candidates)
        if (c[0] >= 0.0 && c[1] >= 0.0 && squares(c[0], c[1]) < squares(best[0], best[1])) best = c;
    return {{kernels, seconds(best[0]), seconds(best[1]), gemm_share}, squares(best[0], best[1])};
}

/// Each run's serving_error from its prediction.
inline std::vector<double> errors_of(std::span<const MeasuredServingRun> runs, const std::vector<double>& values) {
    std::vector<double> errors;
    for (std::size_t i = 0; i < runs.size(); ++i) errors.push_back(values[i] / runs[i].measured - 1.0);
    return errors;
}
}  // namespace detail

namespace detail {
/// The profile that best fits the runs' times at their decode attention, as above.
inline ServingFit fit_profile(std::span<const MeasuredServingRun> runs, KernelProfile kernels) {
    const OverheadSlopes slopes = overhead_slopes(runs, kernels);
    const auto at = [&](double share) { return fit_overheads(runs, slopes, kernels, share); };
    OverheadFit best = at(1.0);
    for (int i = 1; i < 50; ++i) {
        const OverheadFit f = at(0.02 * i);
        if (f.sum_of_squares < best.sum_of_squares) best = f;
    }
    // Golden-section search within a cell either side of the grid's best, one new share a step.
    constexpr double golden = 0.6180339887498949;
    double lo = std::max(0.005, best.profile.gemm_share - 0.02), hi = std::min(1.0, best.profile.gemm_share + 0.02);
    double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
    OverheadFit fa = at(a), fb = at(b);
    for (int i = 0; i < 30; ++i) {
        if (fa.sum_of_squares < best.sum_of_squares) best = fa;
        if (fb.sum_of_squares < best.sum_of_squares) best = fb;
        if (fa.sum_of_squares < fb.sum_of_squares) {
            hi = b, b = a, fb = fa;
            a = hi - golden * (hi - lo), fa = at(a);
        } else {
            lo = a, a = b, fa = fb;
            b = lo + golden * (hi - lo), fb = at(b);
        }
    }
    if (fa.sum_of_squares < best.sum_of_squares) best = fa;
    if (fb.sum_of_squares < best.sum_of_squares) best = fb;
    ServingFit fit;
    fit.profile = best.profile;
    fit.sum_of_squares = best.sum_of_squares;
    return fit;
}
}  // namespace detail

/// The profile (overheads and GEMM share) that best fits the runs' times, as above, with the decode
/// attention the runs leave unstated searched in turn (search_decode_attention under the fitted
/// profile, then the profile refitted, until the choices stay); at least 3 runs.
[[nodiscard]] inline ServingFit fit_serving_profile(std::span<const MeasuredServingRun> runs,
                                                    KernelProfile kernels = KernelProfile::measured) {
    require(runs.size() >= 3, "serving runs (count)", static_cast<double>(runs.size()),
            "need at least 3 to fit 3 parameters");
    for (const MeasuredServingRun& run : runs) require_positive("MeasuredServingRun.measured", run.measured);
    std::vector<MeasuredServingRun> rows(runs.begin(), runs.end());
    const auto settings = [&] {
        std::vector<bool> grouped(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) grouped[i] = rows[i].setup.grouped_decode_attention;
        return grouped;
    };
    ServingFit fit = detail::fit_profile(rows, kernels);
    for (int round = 0; round < 4; ++round) {  // a choice settles in a round or two
        const std::vector<bool> before = settings();
        std::vector<DecodeAttentionChoice> choices = search_decode_attention(rows, fit.profile);
        if (settings() != before) fit = detail::fit_profile(rows, kernels);
        fit.decode_attention = std::move(choices);
        if (settings() == before) break;
    }
    fit.predicted = predictions(rows, fit.profile);
    fit.errors = detail::errors_of(rows, fit.predicted);
    double sum = 0.0;
    for (const double e : fit.errors) {
        fit.mean_abs += std::abs(e);
        fit.max_abs = std::max(fit.max_abs, std::abs(e));
        sum += e;
    }
    fit.mean_abs /= static_cast<double>(rows.size());
    fit.bias = sum / static_cast<double>(rows.size());
    return fit;
}

/// Each source left out: the fit to the other sources predicts its rows.
struct ServingSourceValidation {
    std::string source;
    ServingMeasure measure{};
    std::size_t rows = 0;
    double fitted_mean = 0.0, fitted_max = 0.0, fitted_bias = 0.0;
    double left_out_mean = 0.0, left_out_max = 0.0;
};

/// The fit to every run, and each run's error under the fit that leaves its source out, in all and per source.
struct ServingCrossValidation {
    ServingFit fit;
    std::vector<double> left_out_errors;          // one per run
    std::vector<ServingSourceValidation> groups;  // per source and measure, in the order they first appear
    double left_out_mean = 0.0;
};

/// The fit to all runs, and each source's rows predicted by the fit to the other sources;
/// at least 2 sources.
[[nodiscard]] inline ServingCrossValidation cross_validate_serving(std::span<const MeasuredServingRun> runs,
                                                                   KernelProfile kernels = KernelProfile::measured) {
    ServingCrossValidation cv;
    cv.fit = fit_serving_profile(runs, kernels);
    std::vector<std::string> sources;
    for (const MeasuredServingRun& r : runs)
        if (std::find(sources.begin(), sources.end(), r.source) == sources.end()) sources.push_back(r.source);
    require(sources.size() >= 2, "serving runs (sources)", static_cast<double>(sources.size()),
            "need at least 2 sources to leave one out");
    cv.left_out_errors.assign(runs.size(), 0.0);
    for (const std::string& source : sources) {
        std::vector<MeasuredServingRun> kept;
        for (const MeasuredServingRun& r : runs)
            if (r.source != source) kept.push_back(r);
        const ServingProfile without = fit_serving_profile(kept, kernels).profile;
        std::vector<MeasuredServingRun> left_out;
        for (const MeasuredServingRun& r : runs)
            if (r.source == source) left_out.push_back(r);
        (void)search_decode_attention(left_out, without);  // the rows' own unstated setting, on themselves
        const std::vector<double> errors = detail::errors_of(left_out, predictions(left_out, without));
        for (std::size_t i = 0, k = 0; i < runs.size(); ++i)
            if (runs[i].source == source) cv.left_out_errors[i] = errors[k++];
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        auto g = std::find_if(cv.groups.begin(), cv.groups.end(), [&](const ServingSourceValidation& v) {
            return v.source == runs[i].source && v.measure == runs[i].measure;
        });
        if (g == cv.groups.end()) g = cv.groups.insert(cv.groups.end(), {runs[i].source, runs[i].measure});
        const double fitted = cv.fit.errors[i], left = cv.left_out_errors[i];
        ++g->rows;
        g->fitted_mean += std::abs(fitted);
        g->fitted_bias += fitted;
        g->fitted_max = std::max(g->fitted_max, std::abs(fitted));
        g->left_out_mean += std::abs(left);
        g->left_out_max = std::max(g->left_out_max, std::abs(left));
        cv.left_out_mean += std::abs(left);
    }
    for (ServingSourceValidation& g : cv.groups) {
        const auto n = static_cast<double>(g.rows);
        g.fitted_mean /= n, g.fitted_bias /= n, g.left_out_mean /= n;
    }
    cv.left_out_mean /= static_cast<double>(runs.size());
    return cv;
}

}  // namespace napkin
