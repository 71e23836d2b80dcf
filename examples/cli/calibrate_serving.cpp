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
#include "command.hpp"
#include "common.hpp"
#include "serving_profile.hpp"

#include <napkin/io/serving_runs.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/measured_serving.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace napkin::cli {

NAPKIN_COMMAND(app) {
    struct Options {
        std::string runs, out;
        bool json = false;
        bool cross_validate = false;
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
    sub->callback([o] {
        const io::ServingRunFile file = io::read_serving_runs("RUNS", o->runs);
        // In-flight rows and what only a closed loop's replay compares are the request-level simulator's
        // (serving/measured.hpp): not compared here.
        std::size_t not_compared = file.skipped + file.replay_only;
        for (const MeasuredInflightRun& r : file.inflight)
            if (r.clients == 0) not_compared += r.measured.size();
        if (file.runs.size() < 2)
            throw napkin::invalid_argument("RUNS \"" + o->runs + "\": " + std::to_string(file.runs.size()) +
                                           " measurements napkin compares: give at least 2 for 2 overheads");
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
                                   {"predicted", predicted(r, fit.profile)},
                                   {"error", fit.errors[i]}};
                if (cv) row["left_out_error"] = cv->left_out_errors[i];
                rows.push_back(row);
            }
            nlohmann::json j{{"profile", serving_profile_json(fit.profile)},
                             {"rows", rows},
                             {"skipped", not_compared},
                             {"mean_abs", fit.mean_abs},
                             {"max_abs", fit.max_abs},
                             {"bias", fit.bias}};
            if (cv) j["left_out_mean"] = cv->left_out_mean;
            print_json(j);
            return;
        }
        std::printf("%-44s %-24s %10s %10s %8s%s\n", "row", "measured", "value", "napkin", "error",
                    cv ? "  left out" : "");
        for (std::size_t i = 0; i < file.runs.size(); ++i) {
            const MeasuredServingRun& r = file.runs[i];
            std::printf("%-44.44s %-24s %10.4g %10.4g %+7.1f%%", r.id.c_str(),
                        std::string(to_string(r.measure)).c_str(), r.measured, predicted(r, fit.profile),
                        100.0 * fit.errors[i]);
            if (cv) std::printf(" %+8.1f%%", 100.0 * cv->left_out_errors[i]);
            std::printf("\n");
        }
        std::printf("pass overhead %.2f us a forward pass and stage\n", fit.profile.pass_overhead.value() * 1e6);
        std::printf("layer overhead %.2f us a layer and pass\n", fit.profile.layer_overhead.value() * 1e6);
        std::printf("GEMM share %.4f of the best GEMM's rate\n", fit.profile.gemm_share);
        std::printf("mean |error| %.1f %%, max %.1f %%, bias %+.1f %% over %zu measurements (%zu not compared)\n",
                    100.0 * fit.mean_abs, 100.0 * fit.max_abs, 100.0 * fit.bias, file.runs.size(), not_compared);
        if (cv) std::printf("left out (each source): mean |error| %.1f %%\n", 100.0 * cv->left_out_mean);
        if (!o->out.empty()) std::printf("profile written to %s\n", o->out.c_str());
    });
}

}  // namespace napkin::cli
