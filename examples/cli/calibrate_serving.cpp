// napkin calibrate-serving RUNS.json — fit the serving model's engine
// overheads (napkin/serving.hpp, ServingProfile: a cost per forward pass and
// stage, a cost per layer and pass, on top of the kernel layer's measured
// rates) to your own serving measurements (napkin/measured_serving.hpp,
// fit_serving_profile), print each measurement's error and the fit's, and
// write the profile that `napkin serve --profile FILE` reads.
//
// RUNS is the row format of napkin's own fitting set (napkin/io/serving_runs.hpp):
// one row per benchmark configuration with its measurements (throughput,
// first-token latency, per-token latency of a static batch).
// --cross-validate refits with each row's source left out and predicts it.
// --replay also replays the in-flight rows and closed loops through the
// request-level simulator (serving/measured.hpp, fit_batch_limits): per
// source the searched batch limit, scheduler and front end, each measure's error.
#include "command.hpp"
#include "common.hpp"
#include "serving_profile.hpp"

#include <napkin/io/serving_runs.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/measured_serving.hpp>
#include <napkin/serving/measured.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace napkin::cli {

namespace {

// Whether the source's rows leave the scheduler unstated (so the replay searched it), and whether they are
// closed loops (so the replay ran rounds of requests a client).
bool scheduler_searched(const InflightSourceFit& f, const std::vector<MeasuredInflightRun>& runs) {
    return !runs[f.rows.front()].scheduler.has_value();
}
bool closed_loop(const InflightSourceFit& f, const std::vector<MeasuredInflightRun>& runs) {
    return runs[f.rows.front()].clients > 0;
}

// Each replayed source: its searched settings and, per row and measure, the measurement, napkin's value and the
// error.
nlohmann::json replay_json(const std::vector<InflightSourceFit>& fits, const std::vector<MeasuredInflightRun>& runs) {
    nlohmann::json out = nlohmann::json::array();
    for (const InflightSourceFit& f : fits) {
        nlohmann::json rows = nlohmann::json::array();
        for (std::size_t k = 0; k < f.rows.size(); ++k) {
            const MeasuredInflightRun& r = runs[f.rows[k]];
            for (std::size_t j = 0; j < r.measured.size(); ++j)
                rows.push_back({{"id", r.header.id},
                                {"measure", std::string(to_string(r.measured[j].first))},
                                {"measured", r.measured[j].second},
                                {"predicted", r.measured[j].second * (1.0 + f.errors[k][j])},
                                {"error", f.errors[k][j]}});
        }
        out.push_back({{"source", f.source},
                       {"scheduler", std::string(to_string(f.settings.scheduler))},
                       {"scheduler_searched", scheduler_searched(f, runs)},
                       {"max_num_seqs", f.settings.max_num_seqs},
                       {"rounds", closed_loop(f, runs) ? nlohmann::json(f.settings.rounds) : nlohmann::json(nullptr)},
                       {"front_end_latency_s", f.settings.front_end_latency},
                       {"rows", rows}});
    }
    return out;
}

// The replay as a table: a head line per source, then each row's id and a line per measure, and each
// measure's mean |error| over the source.
void report_replay(const std::vector<InflightSourceFit>& fits, const std::vector<MeasuredInflightRun>& runs,
                   bool json) {
    if (json) {
        print_json({{"replayed", replay_json(fits, runs)}});
        return;
    }
    for (const InflightSourceFit& f : fits) {
        const bool searched = scheduler_searched(f, runs);
        const std::string rounds =
            closed_loop(f, runs) ? ", " + std::to_string(f.settings.rounds) + " requests a client" : std::string();
        printf_wrapped("\nreplayed request by request: %s — %s%s, at most %lld sequences%s, front end %s\n",
                       f.source.c_str(), std::string(to_string(f.settings.scheduler)).c_str(),
                       searched ? " (searched)" : "", f.settings.max_num_seqs, rounds.c_str(),
                       to_string(seconds(f.settings.front_end_latency)).c_str());
        std::printf("%-24s %12s %12s %8s\n", "row, then each measure", "measured", "napkin", "error");
        std::array<double, inflight_measure_names.size()> sum{}, n{};
        for (std::size_t k = 0; k < f.rows.size(); ++k) {
            const MeasuredInflightRun& r = runs[f.rows[k]];
            std::printf("%s\n", r.header.id.c_str());
            for (std::size_t j = 0; j < r.measured.size(); ++j) {
                const auto [measure, value] = r.measured[j];
                const double e = f.errors[k][j];
                std::printf("  %-22s %12.4g %12.4g %+7.1f%%\n", std::string(to_string(measure)).c_str(), value,
                            value * (1.0 + e), 100.0 * e);
                sum[static_cast<std::size_t>(measure)] += std::abs(e), n[static_cast<std::size_t>(measure)] += 1.0;
            }
        }
        for (const auto& named : inflight_measure_names) {
            const auto m = static_cast<std::size_t>(named.value);
            if (n[m] > 0.0)
                std::printf("  %-16s mean |error| %5.1f %% over %.0f rows\n", std::string(named.name).c_str(),
                            100.0 * sum[m] / n[m], n[m]);
        }
    }
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        std::string runs, out;
        bool json = false;
        bool cross_validate = false;
        bool replay = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("calibrate-serving",
                                   "fit the serving model's engine overheads (per pass and per layer) and GEMM share "
                                   "to measured serving benchmarks");
    sub->add_option("RUNS", o->runs, "measured serving runs: a JSON file with \"runs\"")->required();
    sub->add_option("--out", o->out, "write the fitted profile (JSON) here, for serve --profile");
    add_json_flag(sub, o->json);
    sub->add_flag("--cross-validate", o->cross_validate,
                  "also refit with each source left out and predict it (a row's \"source\" field)");
    sub->add_flag("--replay", o->replay,
                  "also replay the in-flight rows and closed loops request by request, searching each source's "
                  "batch limit, front end and (where unstated) scheduler");
    sub->callback([o] {
        const io::ServingRunFile file = io::read_serving_runs("RUNS", o->runs);
        // In-flight rows and what only a closed loop's replay compares are the request-level simulator's
        // (serving/measured.hpp, --replay): not in this fit.
        std::size_t request_level = file.replay_only;
        for (const MeasuredInflightRun& r : file.inflight)
            if (r.clients == 0) request_level += r.measured.size();
        const std::size_t not_compared = file.skipped + request_level;
        if (o->replay && file.inflight.empty())
            throw napkin::invalid_argument("--replay: RUNS \"" + o->runs +
                                           "\" has no in-flight or closed-loop rows to replay");
        if (file.runs.size() < 2 && !(o->replay && file.runs.empty()))
            throw napkin::invalid_argument(
                "RUNS \"" + o->runs + "\": " + std::to_string(file.runs.size()) +
                " fixed-batch measurements: give at least 2 for 2 overheads" +
                (file.inflight.empty() ? std::string() : ", or --replay for its request-level rows alone"));
        if (o->replay && file.runs.empty()) {  // request-level rows alone: replayed with the default profile
            report_replay(fit_batch_limits(file.inflight), file.inflight, o->json);
            return;
        }
        const ServingFit fit = fit_serving_profile(file.runs);
        std::optional<ServingCrossValidation> cv;
        if (o->cross_validate) cv = cross_validate_serving(file.runs);
        if (!o->out.empty()) io::write_text_file("--out", o->out, serving_profile_json(fit.profile).dump(2) + "\n");
        if (o->json) {
            nlohmann::json rows = nlohmann::json::array();
            for (std::size_t i = 0; i < file.runs.size(); ++i) {
                const MeasuredServingRun& r = file.runs[i];
                nlohmann::json row{{"id", r.id},
                                   {"measure", std::string(to_string(r.measure))},
                                   {"measured", r.measured},
                                   {"predicted", fit.predicted[i]},
                                   {"error", fit.errors[i]}};
                if (cv) row["left_out_error"] = cv->left_out_errors[i];
                rows.push_back(row);
            }
            nlohmann::json searched = nlohmann::json::array();
            for (const DecodeAttentionChoice& c : fit.decode_attention)
                searched.push_back({{"source", c.source},
                                    {"model", c.model},
                                    {"decode_attention", c.grouped ? "grouped" : "per_query_head"}});
            nlohmann::json j{{"profile", serving_profile_json(fit.profile)},
                             {"rows", rows},
                             {"decode_attention_searched", searched},
                             {"skipped", not_compared},
                             {"mean_abs", fit.mean_abs},
                             {"max_abs", fit.max_abs},
                             {"bias", fit.bias}};
            if (cv) j["left_out_mean"] = cv->left_out_mean;
            if (o->replay) j["replayed"] = replay_json(fit_batch_limits(file.inflight, fit.profile), file.inflight);
            print_json(j);
            return;
        }
        std::printf("%-44s %-24s %10s %10s %8s%s\n", "row", "measured", "value", "napkin", "error",
                    cv ? "  left out" : "");
        for (std::size_t i = 0; i < file.runs.size(); ++i) {
            const MeasuredServingRun& r = file.runs[i];
            std::printf("%-44.44s %-24s %10.4g %10.4g %+7.1f%%", r.id.c_str(),
                        std::string(to_string(r.measure)).c_str(), r.measured, fit.predicted[i], 100.0 * fit.errors[i]);
            if (cv) std::printf(" %+8.1f%%", 100.0 * cv->left_out_errors[i]);
            std::printf("\n");
        }
        std::printf("pass overhead %.2f us a forward pass and stage\n", fit.profile.pass_overhead.value() * 1e6);
        std::printf("layer overhead %.2f us a layer and pass\n", fit.profile.layer_overhead.value() * 1e6);
        std::printf("GEMM share %.4f of the best GEMM's rate\n", fit.profile.gemm_share);
        for (const DecodeAttentionChoice& c : fit.decode_attention)
            std::printf("decode attention of %s (%s), searched: %s\n", c.model.c_str(), c.source.c_str(),
                        c.grouped ? "grouped" : "per query head");
        std::printf("mean |error| %.1f %%, max %.1f %%, bias %+.1f %% over %zu measurements (%zu not compared)\n",
                    100.0 * fit.mean_abs, 100.0 * fit.max_abs, 100.0 * fit.bias, file.runs.size(), not_compared);
        if (request_level > 0 && !o->replay)
            std::printf("%zu of them request-level: --replay replays them\n", request_level);
        if (cv) std::printf("left out (each source): mean |error| %.1f %%\n", 100.0 * cv->left_out_mean);
        if (!o->out.empty()) std::printf("profile written to %s\n", o->out.c_str());
        if (o->replay) report_replay(fit_batch_limits(file.inflight, fit.profile), file.inflight, false);
    });
}

}  // namespace napkin::cli
