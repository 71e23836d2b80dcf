// SPDX-License-Identifier: MIT
// The flags of a whole run that `napkin train` and `napkin plan` share: how
// long (--train-tokens or --steps), the price, the power and PUE, and the
// failures, checkpoints and restarts (napkin/run_cost.hpp) — declared once,
// read once, written to JSON and to one line of text once.
#pragma once

#include "common.hpp"

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/io/quantity_parse.hpp>
#include <napkin/run_cost.hpp>
#include <napkin/serving.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>

namespace napkin::cli {

struct RunFlags {
    std::optional<std::string> train_tokens, power, mtbf, checkpoint_write, checkpoint_bandwidth, restart, snapshot,
        interval;
    std::optional<long long> steps;
    std::optional<double> price;
    double pue = 1.0;
    bool async = false;
};

inline void add_run_flags(CLI::App* sub, RunFlags& f) {
    sub->add_option("--train-tokens", f.train_tokens,
                    "the run: tokens to train on (15.6T, 300B); gives the run's time");
    sub->add_option("--steps", f.steps, "the run: optimizer steps (instead of --train-tokens)");
    sub->add_option("--gpu-hour-price", f.price, "USD per GPU-hour (2.5); gives the run's cost");
    sub->add_option("--power", f.power, "power per GPU with its unit, 700W (the catalog's board power)");
    sub->add_option("--pue", f.pue, "the facility's power usage effectiveness, in [1, 3] (1.0)");
    sub->add_option("--mtbf", f.mtbf, "mean time between failures of one GPU, 50700h; models failures");
    sub->add_option("--checkpoint-write", f.checkpoint_write, "time one checkpoint takes to write, 60s");
    sub->add_option("--checkpoint-bandwidth", f.checkpoint_bandwidth,
                    "storage write bandwidth in all, 100GB/s: the checkpoint (14 bytes per parameter) over it");
    sub->add_option("--restart", f.restart, "time from a failure to training again, 10min (0)");
    sub->add_flag("--async-checkpoint", f.async, "the write overlaps training; only --checkpoint-snapshot blocks");
    sub->add_option("--checkpoint-snapshot", f.snapshot, "with --async-checkpoint: the time training stops, 2s");
    sub->add_option("--checkpoint-interval", f.interval, "compute between checkpoints, 30min (Daly's optimum)");
}

// Whether a run was asked for; the other flags need one.
inline bool run_requested(const RunFlags& f) { return f.train_tokens.has_value() || f.steps.has_value(); }

// A time flag, positive or at least zero, as typed.
inline Seconds time_flag(const std::string& flag, const std::optional<std::string>& text, bool positive) {
    if (!text) return Seconds{};
    const Seconds t = io::parse_time(flag, *text);
    if (positive && !(t.value() > 0)) reject(flag, *text, "must be positive");
    if (t.value() > run_limits::longest_s) reject(flag, *text, "must be at most 1e12 s");
    return t;
}

// --gpu-hour-price, checked where it is read: USD per GPU-hour in [0, 1e6].
inline std::optional<double> price_flag(const std::optional<double>& price) {
    if (price)
        require_in_range("--gpu-hour-price", *price, 0.0, run_limits::usd_per_gpu_hour,
                         "must be in [0, 1e6] USD per GPU-hour");
    return price;
}

// --power with its unit (700W), checked; without it the GPU's board power.
inline Watts power_flag(const std::optional<std::string>& power, const Gpu& gpu) {
    if (!power) return gpu.board_power;
    const Watts w = io::parse_power("--power", *power);
    if (!(w.value() >= 1.0 && w.value() <= 1e6)) reject("--power", *power, "must be in [1 W, 1 MW]");
    return w;
}

// What the flags say, for a run of `gpus` GPUs of `gpu` (the useful time apart).
inline RunQuery run_query_from_flags(const RunFlags& f, const Gpu& gpu, long long gpus, Bytes checkpoint) {
    if (!run_requested(f)) {
        if (f.price || f.power || f.mtbf || f.checkpoint_write || f.checkpoint_bandwidth || f.restart || f.snapshot ||
            f.interval || f.async || f.pue != 1.0)
            throw napkin::invalid_argument(
                "--gpu-hour-price, --power, --pue, --mtbf and the checkpoint flags price a run: give --train-tokens "
                "or --steps");
    }
    RunQuery q{.gpus = gpus};
    q.usd_per_gpu_hour = price_flag(f.price).value_or(0.0);
    require_in_range("--pue", f.pue, 1.0, run_limits::max_pue, "must be in [1, 3] (facility / IT energy)");
    q.pue = f.pue;
    q.power_per_gpu = power_flag(f.power, gpu);
    const bool checkpoint_flags =
        f.checkpoint_write || f.checkpoint_bandwidth || f.restart || f.snapshot || f.interval || f.async;
    if (!f.mtbf) {
        if (checkpoint_flags) throw napkin::invalid_argument("the checkpoint flags model failures: give --mtbf too");
        return q;
    }
    q.gpu_mtbf = time_flag("--mtbf", f.mtbf, true);
    if (f.checkpoint_write && f.checkpoint_bandwidth)
        reject("--checkpoint-write", *f.checkpoint_write, "give it or --checkpoint-bandwidth, not both");
    if (f.checkpoint_write) {
        q.checkpoint.write = time_flag("--checkpoint-write", f.checkpoint_write, true);
    } else if (f.checkpoint_bandwidth) {
        const BytesPerSecond b = io::parse_rate("--checkpoint-bandwidth", *f.checkpoint_bandwidth);
        if (!(b.value() >= 1.0)) reject("--checkpoint-bandwidth", *f.checkpoint_bandwidth, "must be at least 1 B/s");
        q.checkpoint.write = checkpoint / b;
    } else {
        reject("--mtbf", *f.mtbf, "needs --checkpoint-write or --checkpoint-bandwidth");
    }
    q.checkpoint.restart = time_flag("--restart", f.restart, false);
    q.checkpoint.interval = time_flag("--checkpoint-interval", f.interval, true);
    q.checkpoint.asynchronous = f.async;
    if (f.snapshot && !f.async) reject("--checkpoint-snapshot", *f.snapshot, "goes with --async-checkpoint");
    if (f.async) {
        if (!f.snapshot) throw napkin::invalid_argument("--async-checkpoint needs --checkpoint-snapshot");
        q.checkpoint.snapshot = time_flag("--checkpoint-snapshot", f.snapshot, true);
    }
    return q;
}

// The optimizer steps of the run: --steps, or --train-tokens over the tokens of
// one step, rounded up to a whole step.
inline double run_steps(const RunFlags& f, Tokens per_step) {
    if (f.steps) {
        require_at_least_one("--steps", *f.steps);
        return count(*f.steps);
    }
    const double tokens = io::parse_count("--train-tokens", *f.train_tokens);
    if (!(tokens >= 1.0)) reject("--train-tokens", *f.train_tokens, "must be at least 1 token");
    return std::ceil(tokens / per_step.value());
}

// The run of `steps` steps of `step` each; the library's MTBF check names --mtbf as typed.
inline RunCost run_of(const RunFlags& f, RunQuery q, double steps, Seconds step) {
    q.useful = step * steps;
    if (q.useful.value() > run_limits::longest_s)
        throw napkin::invalid_argument("--train-tokens/--steps: the run would take " +
                                       format_fixed(q.useful.value(), 0) + " s, beyond 1e12 s");
    try {
        return run_cost(q);
    } catch (const napkin::invalid_argument& e) {
        const std::string message = e.what(), field = "RunQuery.gpu_mtbf (s) = ";
        if (!f.mtbf || !message.starts_with(field)) throw;
        throw napkin::invalid_argument("--mtbf = \"" + *f.mtbf + "\"" + message.substr(message.find(':')));
    }
}

// A duration as people plan in: "61.3 days", "5.2 h", "12.0 min", "40.0 s".
inline std::string duration_words(Seconds t) {
    const double s = t.value();
    if (s >= 2 * 86400.0) return format_fixed(s / 86400.0, 1) + " days";
    if (s >= 2 * 3600.0) return format_fixed(s / 3600.0, 1) + " h";
    if (s >= 120.0) return format_fixed(s / 60.0, 1) + " min";
    return format_fixed(s, 1) + " s";
}

// Dollars with a prefix: "$61.21M", "$25,600", "$3.33".
inline std::string dollars(double usd) {
    if (usd >= 1e9) return "$" + format_fixed(usd / 1e9, 2) + "B";
    if (usd >= 1e6) return "$" + format_fixed(usd / 1e6, 2) + "M";
    if (usd >= 1e4) return "$" + grouped(usd);
    return "$" + format_fixed(usd, 2);
}

// One line: "run: 61.3 days, $60.21M, 18,894 MWh (12.85 MW), 475 failures, goodput 85.0%".
inline std::string run_line(const RunCost& r, const RunQuery& q) {
    std::string line = "run: " + duration_words(r.wall);
    if (q.usd_per_gpu_hour > 0) line += ", " + dollars(r.cost_usd);
    if (q.power_per_gpu.value() > 0)
        line += ", " + grouped(in(r.energy, units::MWh)) + " MWh (" + to_string(r.facility_power) + ")";
    if (r.failures_modelled) {
        char tail[96];
        std::snprintf(tail, sizeof tail, ", %s failures, goodput %.1f%%", grouped(r.failures).c_str(),
                      100.0 * r.goodput);
        line += tail;
    }
    return line;
}

// The failures line: the job's MTBF, the interval and what a failure costs.
inline std::string checkpoint_line(const RunCost& r) {
    return "  checkpoint every " + duration_words(r.interval) + " (Young " + duration_words(r.young) + ", Daly " +
           duration_words(r.daly) + "); a failure every " + duration_words(r.job_mtbf) + " loses " +
           duration_words(r.lost_per_failure);
}

// What a token costs at the estimate's throughput: each kind of token carries
// the whole GPU cost (the output price of an API, or the input one), and the
// joules the GPUs draw at `power` each for it.
struct TokenCost {
    std::optional<double> usd_per_million_output, usd_per_million_input;
    std::optional<double> joules_per_output;
};

inline TokenCost token_cost(long long gpus, TokensPerSecond output, TokensPerSecond input, std::optional<double> price,
                            const Watts& power) {
    TokenCost c;
    if (price && output.value() > 0) {
        c.usd_per_million_output = usd_per_million_tokens(gpus, *price, output);
        c.usd_per_million_input = usd_per_million_tokens(gpus, *price, input);
    }
    if (power.value() > 0 && output.value() > 0)
        c.joules_per_output = in(joules_per_token(gpus, power, output), units::joules_per_token);
    return c;
}

// One replica at its throughput.
inline TokenCost token_cost(const ServingEstimate& e, std::optional<double> price, const Watts& power) {
    const TokensPerSecond input = tokens_per_second(e.requests_per_s.value() * count(e.workload.input_tokens));
    return token_cost(e.layout.gpus(), e.output_tokens_per_s, input, price, power);
}

inline void add_token_cost_json(nlohmann::json& j, const TokenCost& c) {
    j["usd_per_million_output_tokens"] = nullptr;
    j["usd_per_million_input_tokens"] = nullptr;
    j["joules_per_output_token"] = nullptr;
    if (c.usd_per_million_output) j["usd_per_million_output_tokens"] = *c.usd_per_million_output;
    if (c.usd_per_million_input) j["usd_per_million_input_tokens"] = *c.usd_per_million_input;
    if (c.joules_per_output) j["joules_per_output_token"] = *c.joules_per_output;
}

}  // namespace napkin::cli
