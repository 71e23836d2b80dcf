// SPDX-License-Identifier: MIT
// napkin/run_cost.hpp — a run, not a step: wall time, dollars, energy and the
// goodput a cluster keeps when GPUs fail and the job restarts from a checkpoint.
//
// The failure model is the one of Young (1974) and Daly (2006): failures arrive
// independently at a constant rate, each GPU with the same mean time between
// failures, so the job fails N times as often as one GPU. Every failure costs
// the restart and the work since the last checkpoint (half an interval on
// average); every checkpoint costs the time it blocks training. Energy counts
// each GPU at the power given (by default its board power, the most it draws)
// for the whole wall time, times the facility's PUE.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/units.hpp>

#include <cmath>
#include <string>

namespace napkin {

/// A second is 1/3,600 of the hour a GPU-hour price is quoted in.
inline constexpr double seconds_per_hour = 3600.0;

namespace run_limits {
inline constexpr double usd_per_gpu_hour = 1e6;  ///< USD: a million dollars a GPU-hour, far beyond any price
/// PUE = facility energy / IT energy, at least 1 by definition (The Green Grid,
/// White Paper #49, 2007); 3 is beyond the worst data centre surveyed.
inline constexpr double max_pue = 3.0;
inline constexpr double longest_s = 1e12;  ///< seconds, about 31,700 years: any time beyond is no run
}  // namespace run_limits

// ---------------------------------------------------------------------------
// Failures and checkpoints.

/// The job's mean time between failures: independent exponential failures add
/// their rates, N / MTBF per GPU (Dubey et al. 2024, Sec. 3.3.4: 419
/// interruptions of 16,384 GPUs in 54 days is one every 3.1 hours).
[[nodiscard]] constexpr Seconds job_mtbf(Seconds gpu_mtbf, long long gpus) { return gpu_mtbf / count(gpus); }

/// Young (1974), "A first order approximation to the optimum checkpoint
/// interval": compute time between checkpoints τ = √(2 δ M), δ the time a
/// checkpoint costs, M the job's MTBF.
[[nodiscard]] inline Seconds young_interval(Seconds checkpoint, Seconds mtbf) {
    return seconds(std::sqrt(2.0 * checkpoint.value() * mtbf.value()));
}

/// Daly (2006), "A higher order estimate of the optimum checkpoint interval for
/// restart dumps", eq. (37): τ = √(2δM) [1 + ⅓ √(δ/2M) + ⅑ (δ/2M)] − δ for
/// δ < 2M, and τ = M beyond.
[[nodiscard]] inline Seconds daly_interval(Seconds checkpoint, Seconds mtbf) {
    const double x = checkpoint.value() / (2.0 * mtbf.value());
    if (x >= 1.0) return mtbf;
    return young_interval(checkpoint, mtbf) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - checkpoint;
}

/// Work lost to one failure (Daly 2006, Sec. 3, to first order): on average half
/// an interval since the last checkpoint, plus the restart; an asynchronous
/// checkpoint is not yet durable while it is written, so its write time is lost
/// too.
[[nodiscard]] constexpr Seconds work_lost_per_failure(Seconds interval, Seconds restart, Seconds in_flight) {
    return interval / 2.0 + restart + in_flight;
}

/// Wall time for `useful` seconds of training: each interval τ pays `blocking`
/// seconds of checkpoint, and the job loses `lost` seconds per failure at one
/// failure per M of wall time: W = U (1 + b/τ) + (W/M)·lost, so
/// W = U (1 + b/τ) / (1 − lost/M). Finite only while lost < M.
[[nodiscard]] constexpr Seconds wall_time(Seconds useful, Seconds blocking, Seconds interval, Seconds lost,
                                          Seconds mtbf) {
    return useful * (1.0 + blocking / interval) / (1.0 - lost / mtbf);
}

/// Goodput: the share of wall time that trains (Dubey et al. 2024, Sec. 3.3.4,
/// "effective training time").
[[nodiscard]] constexpr double goodput(Seconds useful, Seconds wall) { return ratio(useful, wall); }

// ---------------------------------------------------------------------------
// Dollars and energy.

/// GPUs × hours × price per GPU-hour.
[[nodiscard]] constexpr double cost_usd(long long gpus, Seconds wall, double usd_per_gpu_hour) {
    return count(gpus) * in(wall, units::hours) * usd_per_gpu_hour;
}

/// The facility's power: GPUs × power per GPU × PUE (The Green Grid WP#49).
[[nodiscard]] constexpr Watts facility_power(long long gpus, const Watts& per_gpu, double pue) {
    return per_gpu * count(gpus) * pue;
}

/// Energy: the facility's power for the wall time, GPUs × W × s × PUE.
[[nodiscard]] constexpr Joules run_energy(long long gpus, const Watts& per_gpu, double pue, Seconds wall) {
    return facility_power(gpus, per_gpu, pue) * wall;
}

/// The bytes a checkpoint writes: every parameter's weight, master copy and two
/// Adam moments (the model states of Rajbhandari et al. 2020, Sec. 3.1, less the
/// gradients, which a restart does not need): 2 + 4 + 4 + 4 = 14 bytes per
/// parameter in mixed precision.
[[nodiscard]] constexpr Bytes checkpoint_bytes(const TransformerShape& m, const Parallelism& p) {
    const double per_parameter = bytes_of(p.weights) + bytes_of(p.master) + 2.0 * bytes_of(p.moments);
    return bytes(count(parameter_count(m)) * per_parameter);
}

// ---------------------------------------------------------------------------
// A run.

/// How the run checkpoints: the write, the restart after a failure, whether writes are asynchronous, and the
/// interval, in seconds.
struct Checkpointing {
    Seconds write{};            // the time one checkpoint takes to write
    Seconds restart{};          // from a failure to training again (detection, reschedule, reload)
    bool asynchronous = false;  // the write overlaps training; only the snapshot blocks
    Seconds snapshot{};         // asynchronous: the time training stops to copy the states
    Seconds interval{};         // compute between checkpoints; 0: Daly's optimum
};

/// A run to price: the GPUs, the failure-free time, the per-GPU MTBF and checkpointing, the GPU-hour price,
/// the power per GPU and the PUE.
struct RunQuery {
    long long gpus = 0;
    Seconds useful{};               // steps × step time: the run without failures
    Seconds gpu_mtbf{};             // per GPU; 0: no failures modelled
    Checkpointing checkpoint{};     // with gpu_mtbf only
    double usd_per_gpu_hour = 0.0;  // 0: not priced
    Watts power_per_gpu{};          // 0: no energy
    double pue = 1.0;
};

/// What a run costs: its useful and wall time, the failure model's intervals and losses, the goodput,
/// dollars and energy.
struct RunCost {
    Seconds useful{}, wall{};
    bool failures_modelled = false;
    Seconds job_mtbf{};                   // the job's, N / MTBF
    Seconds interval{}, young{}, daly{};  // the interval used, and both optima
    Seconds lost_per_failure{};
    double failures = 0.0;  // expected over the run: wall / job MTBF
    double goodput = 1.0;
    double cost_usd = 0.0;
    Joules energy{};
    Watts facility_power{};
};

namespace detail {
constexpr void check_time(std::string_view what, Seconds t, bool positive) {
    if (positive)
        require_positive(what, t.value());
    else
        require_non_negative(what, t.value());
    require(t.value() <= run_limits::longest_s, what, t.value(), "must be at most 1e12 s");
}
inline void check(const RunQuery& q) {
    require_count("RunQuery.gpus", q.gpus, limits::gpus);
    check_time("RunQuery.useful (s)", q.useful, true);
    check_time("RunQuery.gpu_mtbf (s)", q.gpu_mtbf, false);
    require_in_range("RunQuery.usd_per_gpu_hour", q.usd_per_gpu_hour, 0.0, run_limits::usd_per_gpu_hour,
                     "must be in [0, 1e6] (0: not priced)");
    require_in_range("RunQuery.power_per_gpu (W)", q.power_per_gpu.value(), 0.0, 1e6,
                     "must be in [0, 1e6] W (0: no energy)");
    require_in_range("RunQuery.pue", q.pue, 1.0, run_limits::max_pue, "must be in [1, 3] (facility / IT energy)");
    if (q.gpu_mtbf.value() == 0.0) return;
    const Checkpointing& c = q.checkpoint;
    check_time("Checkpointing.write (s)", c.write, true);
    check_time("Checkpointing.restart (s)", c.restart, false);
    check_time("Checkpointing.snapshot (s)", c.snapshot, false);
    check_time("Checkpointing.interval (s)", c.interval, false);
    if (c.asynchronous) require_positive("Checkpointing.snapshot (s)", c.snapshot.value());
}
}  // namespace detail

/// The time a checkpoint stops training: the whole write, or the snapshot alone.
[[nodiscard]] constexpr Seconds blocking_time(const Checkpointing& c) { return c.asynchronous ? c.snapshot : c.write; }

/// The interval: the one given, else Daly's optimum for the blocking time; an
/// asynchronous checkpoint cannot start before the last one is written.
[[nodiscard]] inline Seconds checkpoint_interval(const Checkpointing& c, Seconds mtbf) {
    Seconds t = c.interval.value() > 0.0 ? c.interval : daly_interval(blocking_time(c), mtbf);
    if (c.asynchronous && t < c.write) t = c.write;
    return t;
}

/// Prices a run: wall time with failures and checkpoints (Young 1974, Daly 2006), goodput, dollars and energy.
[[nodiscard]] inline RunCost run_cost(const RunQuery& q) {
    detail::check(q);
    RunCost r{.useful = q.useful, .wall = q.useful};
    if (q.gpu_mtbf.value() > 0.0) {
        const Checkpointing& c = q.checkpoint;
        r.failures_modelled = true;
        r.job_mtbf = job_mtbf(q.gpu_mtbf, q.gpus);
        r.young = young_interval(blocking_time(c), r.job_mtbf);
        r.daly = daly_interval(blocking_time(c), r.job_mtbf);
        r.interval = checkpoint_interval(c, r.job_mtbf);
        r.lost_per_failure = work_lost_per_failure(r.interval, c.restart, c.asynchronous ? c.write : Seconds{});
        if (!(r.lost_per_failure < r.job_mtbf))
            reject("RunQuery.gpu_mtbf (s)", q.gpu_mtbf.value(),
                   "is too short: the job fails every " + to_string(r.job_mtbf) + ", before it regains the " +
                       to_string(r.lost_per_failure) + " a failure loses, so the run never finishes");
        r.wall = wall_time(q.useful, blocking_time(c), r.interval, r.lost_per_failure, r.job_mtbf);
        require(r.wall.value() <= run_limits::longest_s, "the run's wall time (s)", r.wall.value(),
                "must be at most 1e12 s");
        r.failures = ratio(r.wall, r.job_mtbf);
        r.goodput = goodput(q.useful, r.wall);
    }
    r.cost_usd = cost_usd(q.gpus, r.wall, q.usd_per_gpu_hour);
    r.facility_power = facility_power(q.gpus, q.power_per_gpu, q.pue);
    r.energy = run_energy(q.gpus, q.power_per_gpu, q.pue, r.wall);
    return r;
}

// ---------------------------------------------------------------------------
// Serving: what a token costs while the GPUs run at a throughput.

/// USD per million tokens: GPUs × price / 3,600 / tokens/s × 10⁶.
[[nodiscard]] constexpr double usd_per_million_tokens(long long gpus, double usd_per_gpu_hour, TokensPerSecond rate) {
    return count(gpus) * usd_per_gpu_hour / seconds_per_hour / in(rate, units::tokens_per_s) * 1e6;
}

/// Joules per token: GPUs × power / tokens per second.
[[nodiscard]] constexpr JoulesPerToken joules_per_token(long long gpus, const Watts& per_gpu, TokensPerSecond rate) {
    return per_gpu * count(gpus) / rate;
}

}  // namespace napkin
