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
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/names.hpp>
#include <napkin/serving.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <cmath>
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
};

/// napkin's value of the run's measure under `profile`.
[[nodiscard]] inline double predicted(const MeasuredServingRun& run, const ServingProfile& profile) {
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

// ---------------------------------------------------------------------------
// The fit minimises Σ (predicted time / measured time − 1)² over the rows.
// At a given GEMM share, every time napkin predicts is its kernels' time plus
// a whole number of pass overheads and layer overheads (evaluate_serving adds
// them per pass), t₀ + a·pass + b·layer, linear in the two: a two-unknown
// linear least squares, solved exactly, each overhead kept ≥ 0 (the better
// one-parameter solution when the joint one goes negative). The GEMM share is
// searched on (0, 1]: a grid of 0.01, then golden-section within its best cell.

/// The fitted profile and its sum of squares, with each run's serving_error under it: their mean and
/// largest magnitude, and their mean (the bias).
struct ServingFit {
    ServingProfile profile;
    double sum_of_squares = 0.0;  // of the relative time residuals
    std::vector<double> errors;   // serving_error per run, in the measure's own terms
    double mean_abs = 0.0, max_abs = 0.0, bias = 0.0;
};

namespace detail {
struct LinearTime {
    double base = 0.0, per_pass = 0.0, per_layer = 0.0, measured = 0.0;  // seconds
};
inline LinearTime linear_time(const MeasuredServingRun& run, KernelProfile kernels, double gemm_share) {
    const auto time_with = [&](Seconds pass, Seconds layer) {
        return measured_time(run, predicted(run, {kernels, pass, layer, gemm_share}));
    };
    const Seconds unit = seconds(1e-3);
    const double base = time_with({}, {});
    return {base, (time_with(unit, {}) - base) / unit.value(), (time_with({}, unit) - base) / unit.value(),
            measured_time(run, run.measured)};
}

/// The overheads' least squares at one GEMM share: the profile and its Σr².
struct OverheadFit {
    ServingProfile profile;
    double sum_of_squares = 0.0;
};
inline OverheadFit fit_overheads(std::span<const MeasuredServingRun> runs, KernelProfile kernels, double gemm_share) {
    // Rows scaled by the measured time: minimise Σ (x·p + y·l − r)², r = 1 − t₀/t.
    double pp = 0, pl = 0, ll = 0, pr = 0, lr = 0;
    std::vector<LinearTime> rows;
    for (const MeasuredServingRun& run : runs) {
        const LinearTime t = linear_time(run, kernels, gemm_share);
        rows.push_back(t);
        const double p = t.per_pass / t.measured, l = t.per_layer / t.measured, r = 1.0 - t.base / t.measured;
        pp += p * p, pl += p * l, ll += l * l, pr += p * r, lr += l * r;
    }
    const auto squares = [&](double x, double y) {
        double s = 0;
        for (const LinearTime& t : rows) {
            const double e = (t.base + x * t.per_pass + y * t.per_layer) / t.measured - 1.0;
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
}  // namespace detail

/// The profile (overheads and GEMM share) that best fits the runs' times, as above; at least 3 runs.
[[nodiscard]] inline ServingFit fit_serving_profile(std::span<const MeasuredServingRun> runs,
                                                    KernelProfile kernels = KernelProfile::measured) {
    require(runs.size() >= 3, "serving runs (count)", static_cast<double>(runs.size()),
            "need at least 3 to fit 3 parameters");
    for (const MeasuredServingRun& run : runs) require_positive("MeasuredServingRun.measured", run.measured);
    detail::OverheadFit best = detail::fit_overheads(runs, kernels, 1.0);
    for (int i = 1; i < 100; ++i) {
        const detail::OverheadFit f = detail::fit_overheads(runs, kernels, 0.01 * i);
        if (f.sum_of_squares < best.sum_of_squares) best = f;
    }
    // Golden-section search within a cell either side of the grid's best.
    double lo = std::max(0.005, best.profile.gemm_share - 0.01), hi = std::min(1.0, best.profile.gemm_share + 0.01);
    constexpr double golden = 0.6180339887498949;
    for (int i = 0; i < 30; ++i) {
        const double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
        const detail::OverheadFit fa = detail::fit_overheads(runs, kernels, a);
        const detail::OverheadFit fb = detail::fit_overheads(runs, kernels, b);
        if (fa.sum_of_squares < best.sum_of_squares) best = fa;
        if (fb.sum_of_squares < best.sum_of_squares) best = fb;
        (fa.sum_of_squares < fb.sum_of_squares ? hi : lo) = fa.sum_of_squares < fb.sum_of_squares ? b : a;
    }
    ServingFit fit;
    fit.profile = best.profile;
    fit.sum_of_squares = best.sum_of_squares;
    double sum = 0.0;
    for (const MeasuredServingRun& run : runs) {
        const double e = serving_error(run, fit.profile);
        fit.errors.push_back(e);
        fit.mean_abs += std::abs(e);
        fit.max_abs = std::max(fit.max_abs, std::abs(e));
        sum += e;
    }
    fit.mean_abs /= static_cast<double>(runs.size());
    fit.bias = sum / static_cast<double>(runs.size());
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
        for (std::size_t i = 0; i < runs.size(); ++i)
            if (runs[i].source == source) cv.left_out_errors[i] = serving_error(runs[i], without);
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
