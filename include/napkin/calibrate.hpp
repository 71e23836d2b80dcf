// SPDX-License-Identifier: MIT
// napkin/calibrate.hpp — α and B (and the base latency) from measured times,
// by weighted linear least squares (Eigen).
//
// The ring algorithms' time is linear in the unknowns:
//   t = base + steps(op, n)·α + share(op, n)·M · (1/B)
// with steps = 2(n−1) and share = 2(n−1)/n for an all-reduce, n−1 and (n−1)/n
// for reduce-scatter, all-gather and all-to-all (napkin/collectives.hpp). Each
// sample's equation is divided by its measured time, so the fit minimises the
// sum of squared RELATIVE errors: a 10 µs and a 10 s measurement count alike.
//
// The base latency and α can only be told apart when the samples cover more
// than one rank count (on one n, base + steps·α is one number); the fit says so.
//
// This header needs Eigen (target napkin::calibrate); the core napkin target does not.
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/kernels/gemm_ceiling.hpp>
#include <napkin/measured_run.hpp>
#include <napkin/units.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

/// Options for fit_alpha_beta: whether to fit the base latency, and the one to assume when it is not fitted.
struct CalibrationOptions {
    bool fit_base_latency = false;  // also fit a latency paid once per call (needs ≥ 2 rank counts)
    Seconds base_latency{};         // the base latency to assume when it is not fitted
};

/// What fit_alpha_beta returns: α, B and the base latency, with each sample's relative residual.
struct CalibrationFit {
    Seconds step_latency;       // α
    BytesPerSecond bandwidth;   // B, the bus bandwidth per rank and direction
    Seconds base_latency;       // fitted, or the assumed one
    bool base_latency_fitted = false;
    // The unconstrained fit gave a negative latency (not physical): it was
    // held at 0 and the others refitted.
    bool step_latency_held_at_zero = false;
    bool base_latency_held_at_zero = false;
    std::vector<double> relative_residuals;  // (model − measured) / measured, one per sample
    double rms_relative_residual = 0.0;
    double max_relative_residual = 0.0;      // largest |residual|

    // The fitted link, for the collectives and the composite models.
    [[nodiscard]] Link link(std::string_view name = "calibrated") const {
        return {name, bandwidth, step_latency};
    }
};

namespace detail {
inline void check_samples(std::span<const CollectiveSample> samples, std::size_t unknowns) {
    require(samples.size() >= unknowns, "samples (count)", static_cast<double>(samples.size()),
            unknowns == 3 ? "need at least 3 to fit base latency, step latency and bandwidth"
                          : "need at least 2 to fit step latency and bandwidth");
    for (const CollectiveSample& s : samples) {
        require(s.ranks >= 2, "sample.ranks", count(s.ranks), "must be at least 2 (one rank does not communicate)");
        require_non_negative("sample.message (bytes)", s.message.value());
        require_positive("sample.time (s)", s.time.value());
    }
}
}  // namespace detail

/// Fit α, B (and the base latency if asked) to measured samples.
[[nodiscard]] inline CalibrationFit fit_alpha_beta(std::span<const CollectiveSample> samples,
                                                   const CalibrationOptions& options = {}) {
    const std::size_t unknowns = options.fit_base_latency ? 3 : 2;
    detail::check_samples(samples, unknowns);
    require_non_negative("CalibrationOptions.base_latency (s)", options.base_latency.value());

    const auto rows = static_cast<Eigen::Index>(samples.size());
    Eigen::MatrixXd a(rows, static_cast<Eigen::Index>(unknowns));
    Eigen::VectorXd b(rows);
    for (Eigen::Index i = 0; i < rows; ++i) {
        const CollectiveSample& s = samples[static_cast<std::size_t>(i)];
        const double t = s.time.value();
        // Columns: α [s], 1/B [s/byte], base [s]; each row ÷ t (relative error).
        a(i, 0) = latency_steps(s.op, s.ranks) / t;
        a(i, 1) = bus_bandwidth_factor(s.op, s.ranks) * s.message.value() / t;
        if (options.fit_base_latency) a(i, 2) = 1.0 / t;
        b(i) = (t - (options.fit_base_latency ? 0.0 : options.base_latency.value())) / t;
    }
    // Scale the columns to unit norm so seconds and seconds-per-byte share one
    // numerical range, then solve by column-pivoting QR.
    Eigen::VectorXd scale = a.colwise().norm().transpose();
    for (Eigen::Index j = 0; j < scale.size(); ++j) {
        require(scale(j) > 0.0, "samples", static_cast<double>(samples.size()),
                        j == 1 ? "all messages are empty: the bandwidth cannot be fitted"
                               : "carry no latency steps: the latency cannot be fitted");
        a.col(j) /= scale(j);
    }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
    qr.setThreshold(1e-10);
    require(qr.rank() == static_cast<Eigen::Index>(unknowns), "samples (distinct shapes)",
                    static_cast<double>(qr.rank()),
                    options.fit_base_latency
                        ? "base and step latency cannot be told apart: give samples at 2 or more rank counts, "
                          "and at 2 or more message sizes"
                        : "give samples at 2 or more message sizes");
    Eigen::VectorXd x = qr.solve(b).cwiseQuotient(scale);

    // A latency below zero is no physical link: the least-squares fit is then
    // redone with the latencies constrained to be ≥ 0 (an active set over at
    // most two of them: each negative one is held at 0 in turn, and the
    // feasible fit with the smallest residual is kept; Lawson & Hanson 1974,
    // Ch. 23, for two or three unknowns). The fit says which it held.
    bool step_clamped = false, base_clamped = false;
    const auto latencies_negative = [&](const Eigen::VectorXd& v) {
        return v(0) < 0.0 || (options.fit_base_latency && v(2) < 0.0);
    };
    if (latencies_negative(x)) {
        double best_norm = std::numeric_limits<double>::infinity();
        Eigen::VectorXd best;
        for (int mask = 1; mask < (options.fit_base_latency ? 4 : 2); ++mask) {
            const bool hold_step = (mask & 1) != 0, hold_base = (mask & 2) != 0;
            std::vector<Eigen::Index> free_columns;
            for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(unknowns); ++j)
                if (!(j == 0 && hold_step) && !(j == 2 && hold_base)) free_columns.push_back(j);
            Eigen::MatrixXd reduced(rows, static_cast<Eigen::Index>(free_columns.size()));
            for (std::size_t c = 0; c < free_columns.size(); ++c)
                reduced.col(static_cast<Eigen::Index>(c)) = a.col(free_columns[c]);
            const Eigen::VectorXd y = reduced.colPivHouseholderQr().solve(b);
            Eigen::VectorXd candidate = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(unknowns));
            for (std::size_t c = 0; c < free_columns.size(); ++c)
                candidate(free_columns[c]) = y(static_cast<Eigen::Index>(c)) / scale(free_columns[c]);
            if (latencies_negative(candidate) || !(candidate(1) > 0.0)) continue;
            const double norm = (reduced * y - b).norm();
            if (norm < best_norm) {
                best_norm = norm;
                best = candidate;
                step_clamped = hold_step;
                base_clamped = hold_base;
            }
        }
        require(best.size() > 0, "fitted latency (s)", std::min(x(0), options.fit_base_latency ? x(2) : x(0)),
                "is negative, and no fit with latencies ≥ 0 has a positive bandwidth: the samples are not "
                "a latency plus a size over a bandwidth");
        x = best;
    }
    require(x(1) > 0.0, "fitted 1/bandwidth (s/byte)", x(1),
                    "must be positive: the times do not grow with the message size");

    CalibrationFit fit;
    fit.step_latency = seconds(x(0));
    fit.bandwidth = bytes_per_second(1.0 / x(1));
    fit.base_latency = options.fit_base_latency ? seconds(x(2)) : options.base_latency;
    fit.base_latency_fitted = options.fit_base_latency;
    fit.step_latency_held_at_zero = step_clamped;
    fit.base_latency_held_at_zero = base_clamped;
    double sum_of_squares = 0.0;
    for (const CollectiveSample& s : samples) {
        const Seconds model = fit.base_latency + latency_steps(s.op, s.ranks) * fit.step_latency +
                              bus_bandwidth_factor(s.op, s.ranks) * (s.message / fit.bandwidth);
        const double r = ratio(model - s.time, s.time);
        fit.relative_residuals.push_back(r);
        sum_of_squares += r * r;
        fit.max_relative_residual = std::max(fit.max_relative_residual, std::abs(r));
    }
    fit.rms_relative_residual = std::sqrt(sum_of_squares / static_cast<double>(samples.size()));
    return fit;
}

// ---------------------------------------------------------------------------
// Training calibration: the GEMM model's free parameters (napkin/gemm.hpp,
// EfficiencyProfile: the Ampere and Hopper tensor-core shares, the
// element-wise passes) from measured runs.
//
// The step time is not linear in them, so the fit is Gauss–Newton with
// Levenberg–Marquardt damping: each iteration linearises every run's
// weighted relative residual (predicted / measured throughput − 1) around
// the current parameters by central differences and solves the damped
// normal equations (Eigen, LDLT), until a step moves no parameter by 1e-10. A
// parameter that fewer than `min_rows` runs depend on (no Hopper run: the
// Hopper share; no eager-framework run: its overhead) keeps its starting
// value and is reported as not fitted. napkin's own fits ask for 5 rows
// (fitted_rows_per_parameter); a calibration file's for 1.

/// The runs napkin's own fits ask for before they fit a profile parameter (a calibration file asks for 1).
inline constexpr std::size_t fitted_rows_per_parameter = 5;

/// What fit_efficiency_profile returns: the fitted profile, which of its four parameters were fitted
/// (the rest keep their starting value), and each run's relative throughput residual.
struct TrainingFit {
    EfficiencyProfile profile;
    std::array<bool, 4> fitted{};              // ampere_share, hopper_share, memory_passes, eager_layer_overhead_ms
    std::vector<double> relative_residuals;    // predicted / measured throughput − 1, one per run
    double rms_relative_residual = 0.0;
    double mean_abs_residual = 0.0;
    double max_abs_residual = 0.0;
    int iterations = 0;
};

namespace detail {
inline double& profile_parameter(EfficiencyProfile& p, std::size_t i) {
    return i == 0 ? p.ampere_share : i == 1 ? p.hopper_share : i == 2 ? p.memory_passes : p.eager_layer_overhead_ms;
}
}  // namespace detail

/// Fit the profile to `runs` (each weighted by `weights`, 1 when empty),
/// starting from `start`.
[[nodiscard]] inline TrainingFit fit_efficiency_profile(std::span<const MeasuredRun> runs,
                                                       std::span<const double> weights = {},
                                                       const EfficiencyProfile& start = default_profile,
                                                       std::size_t min_rows = 1) {
    require(weights.empty() || weights.size() == runs.size(), "weights (count)", static_cast<double>(weights.size()),
            "must be empty or one per run");
    for (double w : weights) require_positive("weight", w);
    const auto weight = [&](std::size_t i) { return weights.empty() ? 1.0 : weights[i]; };
    const auto residuals = [&](const EfficiencyProfile& p) {
        Eigen::VectorXd r(static_cast<Eigen::Index>(runs.size()));
        for (std::size_t i = 0; i < runs.size(); ++i)
            r(static_cast<Eigen::Index>(i)) = std::sqrt(weight(i)) * throughput_error(runs[i], p);
        return r;
    };
    TrainingFit fit;
    fit.profile = start;
    // Which parameters the runs depend on, and on how many rows each rests.
    std::array<std::size_t, 4> rows{};
    for (const MeasuredRun& run : runs) {
        const Architecture a = run.cluster.node.gpu.architecture;
        ++rows[a == Architecture::ampere ? 0 : 1];
        ++rows[2];
        if (run.options.eager_framework) ++rows[3];
    }
    std::vector<std::size_t> free;
    for (std::size_t j = 0; j < 4; ++j) {
        fit.fitted[j] = rows[j] >= std::max<std::size_t>(min_rows, 1);
        if (fit.fitted[j]) free.push_back(j);
    }
    require(runs.size() >= free.size(), "runs (count)", static_cast<double>(runs.size()),
            "need at least as many runs as free parameters");
    const auto n = static_cast<Eigen::Index>(free.size());
    const auto clamp = [&](EfficiencyProfile p) {
        for (std::size_t k : free) {
            double& x = detail::profile_parameter(p, k);
            x = k >= 2 ? std::max(0.0, x) : std::clamp(x, 0.05, 1.0);
        }
        return p;
    };
    // Levenberg–Marquardt damping (Marquardt 1963): (JᵀJ + λ·diag JᵀJ) δ = −Jᵀr, λ lowered after a
    // step that lowers Σr², raised after one that does not.
    double lambda = 1e-3;
    Eigen::VectorXd r = residuals(fit.profile);
    for (fit.iterations = 1; fit.iterations <= 100; ++fit.iterations) {
        Eigen::MatrixXd jacobian(r.size(), n);
        for (Eigen::Index j = 0; j < n; ++j) {
            const std::size_t k = free[static_cast<std::size_t>(j)];
            EfficiencyProfile up = fit.profile, down = fit.profile;
            const double h = 1e-5 * std::max(1.0, detail::profile_parameter(fit.profile, k));
            // Central differences, one-sided at a bound (a share at 1, the passes at 0).
            double& x_up = detail::profile_parameter(up, k);
            double& x_down = detail::profile_parameter(down, k);
            x_up = k >= 2 ? x_up + h : std::min(1.0, x_up + h);
            x_down = std::max(k >= 2 ? 0.0 : 0.05, x_down - h);
            jacobian.col(j) = (residuals(up) - residuals(down)) / (x_up - x_down);
        }
        const Eigen::MatrixXd normal = jacobian.transpose() * jacobian;
        const Eigen::VectorXd gradient = jacobian.transpose() * r;
        bool improved = false;
        double moved = 0.0;
        for (int attempt = 0; attempt < 30 && !improved; ++attempt) {
            Eigen::MatrixXd damped = normal;
            for (Eigen::Index j = 0; j < n; ++j) damped(j, j) += lambda * std::max(normal(j, j), 1e-12);
            const Eigen::VectorXd step = damped.ldlt().solve(-gradient);
            EfficiencyProfile trial = fit.profile;
            for (Eigen::Index j = 0; j < n; ++j)
                detail::profile_parameter(trial, free[static_cast<std::size_t>(j)]) += step(j);
            trial = clamp(trial);
            const Eigen::VectorXd trial_r = residuals(trial);
            if (trial_r.squaredNorm() <= r.squaredNorm()) {
                moved = 0.0;
                for (std::size_t k : free)
                    moved = std::max(moved, std::abs(detail::profile_parameter(trial, k) -
                                                     detail::profile_parameter(fit.profile, k)));
                fit.profile = trial;
                r = trial_r;
                lambda = std::max(lambda / 10.0, 1e-12);
                improved = true;
            } else {
                lambda *= 10.0;
            }
        }
        if (!improved || moved < 1e-10) break;
    }
    double squares = 0.0, absolute = 0.0;
    for (const MeasuredRun& run : runs) {
        const double e = throughput_error(run, fit.profile);
        fit.relative_residuals.push_back(e);
        squares += e * e;
        absolute += std::abs(e);
        fit.max_abs_residual = std::max(fit.max_abs_residual, std::abs(e));
    }
    fit.rms_relative_residual = std::sqrt(squares / static_cast<double>(runs.size()));
    fit.mean_abs_residual = absolute / static_cast<double>(runs.size());
    return fit;
}

// ---------------------------------------------------------------------------
// Cross-validation: each source left out of the fit and predicted by the rest.
//
// Rows are grouped by MeasuredRun::source (a paper's table, a benchmark
// page); for each source the profile is refitted on every other row and the
// source's rows are predicted with it. A parameter the remaining rows do not
// depend on (a generation no other source ran on) keeps the kernel layer's
// value, not the full fit's (which saw the left-out rows): the best GEMM's
// share of the peak (napkin/kernels/gemm_ceiling.hpp, the MAMF tables). The
// left-out error is what the fit promises for a run it has not seen.

/// One source's rows in a cross-validation: their mean and largest |error| under the fit to every row
/// and under the fit without the source.
struct SourceValidation {
    std::string source;
    std::size_t rows = 0;
    double fitted_mean = 0.0, fitted_max = 0.0;      // |error| under the fit to every row
    double left_out_mean = 0.0, left_out_max = 0.0;  // |error| under the fit without this source
};

/// What cross_validate_profile returns: the fit to every row, each source's left-out errors, and each
/// run's residual when predicted by the fit without its source.
struct CrossValidation {
    TrainingFit fit;                         // every row
    std::vector<SourceValidation> sources;   // in the order they first appear
    std::vector<double> left_out_residuals;  // one per run: predicted by the fit without its source
    double left_out_mean = 0.0, left_out_max = 0.0;
};

/// The kernel layer's values of the profile: the best 16-bit GEMM's share of
/// the peak on each generation, the element-wise traffic counted once
/// (training.hpp's passes at the achieved bandwidth), no framework overhead.
/// Nothing in it is fitted: it is where napkin's own fits start.
[[nodiscard]] inline EfficiencyProfile kernel_layer_profile() {
    return {.ampere_share = gemm_ceiling(Architecture::ampere, DType::bf16, KernelProfile::measured),
            .hopper_share = gemm_ceiling(Architecture::hopper, DType::bf16, KernelProfile::measured),
            .memory_passes = 1.0,
            .eager_layer_overhead_ms = 0.0};
}

/// Leave each source out in turn: refit the profile on the other rows (starting from kernel_layer_profile())
/// and predict the left-out rows with it. Needs runs from at least 2 sources.
[[nodiscard]] inline CrossValidation cross_validate_profile(std::span<const MeasuredRun> runs,
                                                           std::span<const double> weights = {},
                                                           const EfficiencyProfile& start = default_profile,
                                                           std::size_t min_rows = 1) {
    require(weights.empty() || weights.size() == runs.size(), "weights (count)", static_cast<double>(weights.size()),
            "must be empty or one per run");
    CrossValidation cv;
    cv.fit = fit_efficiency_profile(runs, weights, start, min_rows);
    std::vector<std::string> names;
    for (const MeasuredRun& run : runs)
        if (std::find(names.begin(), names.end(), std::string(run.source)) == names.end())
            names.emplace_back(run.source);
    require(names.size() >= 2, "runs (sources)", static_cast<double>(names.size()),
            "need at least 2 sources to leave one out");
    cv.left_out_residuals.assign(runs.size(), 0.0);
    for (const std::string& name : names) {
        std::vector<MeasuredRun> kept;
        std::vector<double> kept_weights;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            if (runs[i].source == name) continue;
            kept.push_back(runs[i]);
            if (!weights.empty()) kept_weights.push_back(weights[i]);
        }
        const TrainingFit without = fit_efficiency_profile(kept, kept_weights, kernel_layer_profile(), min_rows);
        SourceValidation v{.source = name};
        for (std::size_t i = 0; i < runs.size(); ++i) {
            if (runs[i].source != name) continue;
            const double fitted = std::abs(cv.fit.relative_residuals[i]);
            const double left_out = throughput_error(runs[i], without.profile);
            cv.left_out_residuals[i] = left_out;
            ++v.rows;
            v.fitted_mean += fitted;
            v.fitted_max = std::max(v.fitted_max, fitted);
            v.left_out_mean += std::abs(left_out);
            v.left_out_max = std::max(v.left_out_max, std::abs(left_out));
        }
        v.fitted_mean /= static_cast<double>(v.rows);
        v.left_out_mean /= static_cast<double>(v.rows);
        cv.sources.push_back(v);
    }
    for (double r : cv.left_out_residuals) {
        cv.left_out_mean += std::abs(r);
        cv.left_out_max = std::max(cv.left_out_max, std::abs(r));
    }
    cv.left_out_mean /= static_cast<double>(runs.size());
    return cv;
}

}  // namespace napkin
