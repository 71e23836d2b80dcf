// napkin calibrate-training RUNS.json|RUNS.csv — fit the training model's
// efficiency parameters (napkin/gemm.hpp, EfficiencyProfile) to your own
// measured runs by least squares (napkin/calibrate.hpp, fit_efficiency_profile),
// print each run's residual and the fit's RMS, and write the profile that
// `napkin train --profile FILE` and `napkin plan --profile FILE` read.
//
// A run (a JSON object in "runs", or a CSV row under a header of the same names):
//   label, model (catalog name), gpu (catalog name), gpus_per_node (8),
//   intra_link (nvlink3), inter_link (ib-hdr), tp, pp, dp, cp, ep, micro_batch,
//   global_batch, sequence, recompute (none|selective|full), zero (0|1|2|3|distributed),
//   sequence_parallel, flash_attention, causal, overlap_tp, overlap_dp,
//   overlap_param_gather, fsdp_prefetch, recompute_early_stop, eager_framework (true|false),
//   compute_dtype (bf16|fp16|fp8), grad_dtype (bf16|fp32), grad_reduce_dtype
//   (bf16|fp16|fp32; grad_dtype's by default), weight (1: the run's weight in the least squares),
//   source (the row's label: what --cross-validate leaves out together),
//   and one measurement: step_s or tokens_per_s_per_gpu.
//
// --cross-validate refits with each source left out and predicts it
// (napkin/calibrate.hpp, cross_validate_profile); --defaults takes napkin's
// own fitting rows (validation/measured_runs.hpp, fitting_runs) instead of RUNS.
#include "command.hpp"
#include "common.hpp"
#include "training_profile.hpp"

#include <napkin/calibrate.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/measured_run.hpp>
#include <napkin/validation/measured_runs.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace napkin::cli {
namespace {

using Row = std::map<std::string, std::string>;

const std::vector<std::string>& known_fields() {
    static const std::vector<std::string> fields{
        "label", "model", "gpu", "gpus_per_node", "intra_link", "inter_link", "tp", "pp", "dp", "cp", "ep",
        "micro_batch", "global_batch", "sequence", "recompute", "zero", "sequence_parallel", "flash_attention",
        "causal", "overlap_tp", "overlap_dp", "overlap_param_gather", "fsdp_prefetch", "recompute_early_stop", "eager_framework",
        "compute_dtype", "grad_dtype", "grad_reduce_dtype", "weight", "source", "step_s", "tokens_per_s_per_gpu"};
    return fields;
}

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    std::string cell;
    while (std::getline(in, cell, ',')) cells.push_back(trimmed(cell));
    return cells;
}

std::vector<Row> read_rows(const std::string& path) {
    std::istringstream in(io::read_text_file("RUNS", path));
    std::vector<Row> rows;
    if (path.ends_with(".csv")) {
        std::string line;
        std::getline(in, line);
        const std::vector<std::string> header = split_csv(line);
        while (std::getline(in, line)) {
            if (trimmed(line).empty()) continue;
            const std::vector<std::string> cells = split_csv(line);
            if (cells.size() != header.size())
                throw napkin::invalid_argument("row " + std::to_string(rows.size() + 1) + ": " +
                                               std::to_string(cells.size()) + " cells for " +
                                               std::to_string(header.size()) + " columns");
            Row row;
            for (std::size_t i = 0; i < cells.size(); ++i)
                if (!cells[i].empty()) row[header[i]] = cells[i];
            rows.push_back(row);
        }
        return rows;
    }
    io::require_json_depth("RUNS", path, in.str());
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception&) {
        throw napkin::invalid_argument("RUNS \"" + path + "\": not valid JSON");
    }
    if (!j.is_object() || !j.contains("runs") || !j["runs"].is_array())
        throw napkin::invalid_argument("RUNS \"" + path + "\": must be an object with a \"runs\" array");
    for (const auto& run : j["runs"]) {
        if (!run.is_object())
            throw napkin::invalid_argument("row " + std::to_string(rows.size() + 1) + ": must be an object");
        Row row;
        for (const auto& [key, value] : run.items())
            row[key] = value.is_string() ? value.get<std::string>() : value.dump();
        rows.push_back(row);
    }
    return rows;
}

MeasuredRun measured_run_of(const Row& row, std::size_t index, std::deque<std::string>& names,
                            std::deque<std::string>& sources, double& weight) {
    const std::string where = "row " + std::to_string(index);
    for (const auto& [key, value] : row)
        if (std::find(known_fields().begin(), known_fields().end(), key) == known_fields().end())
            throw napkin::invalid_argument(where + ": unknown field \"" + key + "\"");
    const auto text = [&](const std::string& key, const std::string& fallback) {
        const auto it = row.find(key);
        if (it != row.end()) return it->second;
        if (fallback.empty()) throw napkin::invalid_argument(where + ": field \"" + key + "\" is required");
        return fallback;
    };
    const auto number = [&](const std::string& key, const std::string& fallback) {
        const std::string value = text(key, fallback);
        try {
            std::size_t used = 0;
            const double x = std::stod(value, &used);
            if (used == value.size()) return x;
        } catch (const std::exception&) {
        }
        throw napkin::invalid_argument(where + ": field \"" + key + "\" = \"" + value + "\": not a number");
    };
    const auto whole = [&](const std::string& key, const std::string& fallback) {
        const double x = number(key, fallback);
        if (x < 1 || x != static_cast<double>(static_cast<long long>(x)))
            throw napkin::invalid_argument(where + ": field \"" + key + "\" = " + text(key, fallback) +
                                           ": must be a whole number of at least 1");
        return static_cast<long long>(x);
    };
    const auto flag = [&](const std::string& key, bool fallback) {
        const std::string value = text(key, fallback ? "true" : "false");
        if (value != "true" && value != "false")
            throw napkin::invalid_argument(where + ": field \"" + key + "\" = \"" + value + "\": must be true or false");
        return value == "true";
    };
    // The gradients' format in the collectives: none (grad_dtype's), bf16, fp16 or fp32.
    const auto parse_reduce_dtype = [](const std::string& value) -> std::optional<DType> {
        const std::optional<DType> d = parse_dtype(value);
        if (d && (*d == DType::none || *d == DType::bf16 || *d == DType::fp16 || *d == DType::fp32)) return d;
        return std::nullopt;
    };
    const auto choice = [&]<class T>(const std::string& key, const std::string& fallback, auto parse) {
        const std::string value = text(key, fallback);
        const std::optional<T> parsed = parse(value);
        if (!parsed) throw napkin::invalid_argument(where + ": field \"" + key + "\" = \"" + value + "\": unknown");
        return *parsed;
    };
    names.push_back(text("label", where));
    sources.push_back(text("source", names.back()));
    const std::string model_name = text("model", "");
    const auto model = catalog::find_model(model_name);
    if (!model) throw napkin::invalid_argument(where + ": field \"model\" = \"" + model_name + "\": not in the catalog");
    const std::string gpu_name = text("gpu", "");
    const auto gpu = catalog::find_gpu(gpu_name);
    if (!gpu) throw napkin::invalid_argument(where + ": field \"gpu\" = \"" + gpu_name + "\": not in the catalog");
    const auto link = [&](const std::string& key, const std::string& fallback) {
        const std::string name = text(key, fallback);
        const auto found = catalog::find_link(name);
        if (!found) throw napkin::invalid_argument(where + ": field \"" + key + "\" = \"" + name + "\": not in the catalog");
        return *found;
    };
    Parallelism par{.tp = whole("tp", "1"), .pp = whole("pp", "1"), .dp = whole("dp", "1"), .ep = whole("ep", "1"),
                    .cp = whole("cp", "1"), .micro_batch = whole("micro_batch", "1"),
                    .global_batch = whole("global_batch", ""), .sequence = whole("sequence", "2048"),
                    .sequence_parallel = flag("sequence_parallel", false)};
    par.recompute = choice.operator()<Recompute>("recompute", "none", parse_recompute);
    par.sharding = choice.operator()<Sharding>("zero", "0", parse_sharding);
    par.flash_attention = flag("flash_attention", false);
    par.gradients = choice.operator()<DType>("grad_dtype", "bf16", parse_dtype);
    TrainingOptions options{.compute_dtype = choice.operator()<DType>("compute_dtype", "bf16", parse_dtype),
                            .overlap_tp = flag("overlap_tp", false),
                            .overlap_param_gather = flag("overlap_param_gather", false),
                            .fsdp_prefetch = flag("fsdp_prefetch", true),
                            .recompute_early_stop = flag("recompute_early_stop", false),
                            .causal = flag("causal", false),
                            .overlap_dp = flag("overlap_dp", false),
                            .gradient_reduce_dtype = choice.operator()<DType>("grad_reduce_dtype", "none", parse_reduce_dtype)};
    options.eager_framework = flag("eager_framework", false);
    const long long per_node = std::min(gpus(par), whole("gpus_per_node", "8"));
    if (gpus(par) % per_node != 0)
        throw napkin::invalid_argument(where + ": tp · pp · dp · cp = " + std::to_string(gpus(par)) +
                                       " GPUs must fill whole nodes of gpus_per_node");
    const Node node{.name = "node", .gpu = *gpu, .gpus = per_node, .intra = link("intra_link", "nvlink3"),
                    .inter = link("inter_link", "ib-hdr")};
    const bool has_step = row.contains("step_s"), has_tokens = row.contains("tokens_per_s_per_gpu");
    if (has_step == has_tokens)
        throw napkin::invalid_argument(where + ": give exactly one of \"step_s\" and \"tokens_per_s_per_gpu\"");
    weight = number("weight", "1");
    if (!(weight > 0.0))
        throw napkin::invalid_argument(where + ": field \"weight\" = " + text("weight", "1") + ": must be positive");
    const std::string measured_key = has_step ? "step_s" : "tokens_per_s_per_gpu";
    const double measured = number(measured_key, "");
    if (!(measured > 0.0))
        throw napkin::invalid_argument(where + ": field \"" + measured_key + "\" = " + text(measured_key, "") +
                                       ": must be positive");
    return MeasuredRun{.label = names.back(), .source = sources.back(), .framework = "", .model = *model,
                       .cluster = cluster_of(node, gpus(par) / per_node), .layout = par, .options = options,
                       .measured_step = has_step ? seconds(measured) : step_from_tokens_per_gpu(par, measured)};
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        std::string runs, out;
        bool json = false;
        bool cross_validate = false;
        bool defaults = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("calibrate-training",
                                   "fit the training model's efficiency (tensor-core share per GPU generation, "
                                   "element-wise passes) to measured runs");
    sub->add_option("RUNS", o->runs, "measured runs: a JSON file with \"runs\" or a CSV file");
    sub->add_option("--out", o->out, "write the fitted profile (JSON) here, for --profile");
    add_json_flag(sub, o->json);
    sub->add_flag("--cross-validate", o->cross_validate,
                  "also refit with each source left out and predict it (a row's source: its \"source\" field, "
                  "else its label)");
    sub->add_flag("--defaults", o->defaults, "fit napkin's own fitting rows (the catalog's published runs) instead of RUNS");
    sub->callback([o] {
        if (o->defaults == !o->runs.empty())
            throw napkin::invalid_argument(o->defaults ? "RUNS \"" + o->runs + "\": give RUNS or --defaults, not both"
                                                       : std::string("RUNS: required (or --defaults)"));
        std::deque<std::string> names, sources;
        std::vector<MeasuredRun> runs;
        std::vector<double> weights;
        if (o->defaults) {
            runs = catalog::fitting_runs();
            weights.assign(runs.size(), 1.0);
        } else {
            const std::vector<Row> rows = read_rows(o->runs);
            weights.assign(rows.size(), 1.0);
            for (std::size_t i = 0; i < rows.size(); ++i)
                runs.push_back(measured_run_of(rows[i], i + 1, names, sources, weights[i]));
        }
        std::size_t free = 1;  // memory_passes
        bool ampere = false, other = false, eager = false;
        for (const MeasuredRun& run : runs) {
            (run.cluster.node.gpu.architecture == Architecture::ampere ? ampere : other) = true;
            eager = eager || run.options.eager_framework;
        }
        free += (ampere ? 1 : 0) + (other ? 1 : 0) + (eager ? 1 : 0);
        if (runs.size() < free)
            throw napkin::invalid_argument("RUNS \"" + o->runs + "\": " + std::to_string(runs.size()) +
                                           " rows for " + std::to_string(free) +
                                           " free parameters: give at least as many rows as parameters");
        // napkin's own rows: from the kernel layer's shares, each parameter on 5 rows or more.
        const EfficiencyProfile start = o->defaults ? kernel_layer_profile() : default_profile;
        const std::size_t min_rows = o->defaults ? fitted_rows_per_parameter : 1;
        const TrainingFit fit = fit_efficiency_profile(runs, weights, start, min_rows);
        std::optional<CrossValidation> cv;
        if (o->cross_validate) cv = cross_validate_profile(runs, weights, start, min_rows);
        if (!o->out.empty()) {
            io::write_text_file("--out", o->out, efficiency_profile_json(fit.profile).dump(2) + "\n");
        }
        if (o->json) {
            nlohmann::json residuals = nlohmann::json::array();
            for (std::size_t i = 0; i < runs.size(); ++i) {
                nlohmann::json r{{"label", runs[i].label}, {"residual", fit.relative_residuals[i]}};
                if (cv) r["left_out_residual"] = cv->left_out_residuals[i];
                residuals.push_back(r);
            }
            nlohmann::json j{{"profile", efficiency_profile_json(fit.profile)},
                             {"fitted", {{"ampere_share", fit.fitted[0]}, {"hopper_share", fit.fitted[1]},
                                         {"memory_passes", fit.fitted[2]},
                                         {"eager_layer_overhead_ms", fit.fitted[3]}}},
                             {"residuals", residuals},
                             {"rms", fit.rms_relative_residual},
                             {"mean_abs", fit.mean_abs_residual},
                             {"max_abs", fit.max_abs_residual}};
            if (cv) {
                nlohmann::json per_source = nlohmann::json::array();
                for (const SourceValidation& v : cv->sources)
                    per_source.push_back({{"source", v.source}, {"rows", v.rows}, {"fitted_mean", v.fitted_mean},
                                          {"fitted_max", v.fitted_max}, {"left_out_mean", v.left_out_mean},
                                          {"left_out_max", v.left_out_max}});
                j["cross_validation"] = {{"sources", per_source},
                                         {"left_out_mean", cv->left_out_mean},
                                         {"left_out_max", cv->left_out_max}};
            }
            print_json(j);
            return;
        }
        std::printf("%-32s %10s %10s %8s%s\n", "run", "measured", "napkin", "error", cv ? "  left out" : "");
        for (std::size_t i = 0; i < runs.size(); ++i) {
            std::printf("%-32.32s %9.3fs %9.3fs %+7.1f%%", std::string(runs[i].label).c_str(),
                        in(runs[i].measured_step, units::s), in(predicted_step(runs[i], fit.profile), units::s),
                        100.0 * fit.relative_residuals[i]);
            if (cv) std::printf(" %+8.1f%%", 100.0 * cv->left_out_residuals[i]);
            std::printf("\n");
        }
        printf_wrapped("ampere share %.4f%s, hopper share %.4f%s, memory passes %.3f\n", fit.profile.ampere_share,
                    fit.fitted[0] ? "" : " (not fitted: no Ampere run)", fit.profile.hopper_share,
                    fit.fitted[1] ? "" : " (not fitted: no run on a later GPU)", fit.profile.memory_passes);
        if (fit.fitted[3])
            std::printf("eager framework overhead %.3f ms per layer and micro-batch\n", fit.profile.eager_layer_overhead_ms);
        std::printf("RMS %.2f %%, mean |error| %.2f %%, max %.2f %% over %zu runs\n",
                    100.0 * fit.rms_relative_residual, 100.0 * fit.mean_abs_residual, 100.0 * fit.max_abs_residual,
                    runs.size());
        if (cv) {
            std::printf("\ncross-validation: each source left out of the fit and predicted\n");
            std::printf("%-44s %5s %13s %13s\n", "source", "rows", "fitted mean", "left out mean");
            for (const SourceValidation& v : cv->sources)
                std::printf("%-44.44s %5zu %6.1f%% (%4.1f) %6.1f%% (%4.1f)\n", v.source.c_str(), v.rows,
                            100.0 * v.fitted_mean, 100.0 * v.fitted_max, 100.0 * v.left_out_mean,
                            100.0 * v.left_out_max);
            std::printf("left out: mean |error| %.2f %%, max %.2f %% (in brackets: max)\n", 100.0 * cv->left_out_mean,
                        100.0 * cv->left_out_max);
        }
        if (!o->out.empty()) std::printf("profile written to %s\n", o->out.c_str());
    });
}

}  // namespace napkin::cli
