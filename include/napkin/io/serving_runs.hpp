// SPDX-License-Identifier: MIT
// napkin/io/serving_runs.hpp — reading measured serving benchmarks, in the
// row format of tests/data/measured-serving-runs.json, into one
// MeasuredServingRun per measured number (napkin/measured_serving.hpp).
//
//   {"runs": [{"id": "...", "source": "...", "model": "Llama-2-7B",
//              "model_shape": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 32,
//                              "head_dim": 128, "ffn": 11008, "vocab": 32000,
//                              "experts": null, "experts_per_token": null, "activation": "gelu"},
//              "gpu": "h100-sxm", "tp": 1, "pp": 1, "ep": null,
//              "weight_dtype": "fp16", "kv_dtype": "fp16",
//              "input_tokens": 128, "output_tokens": 128, "batching": "static ...", "batch_size": 64,
//              "measurements": [{"kind": "output_tokens_per_s_per_gpu", "value": 25860, "unit": "tok/s/GPU"}]}]}
//
// `gpu` is a catalog name, or a name as a benchmark prints it: "A100 ..." is
// the A100 80 GB SXM ("A100 40GB ..." the 40 GB one), "H100 ..." the H100
// SXM, "H200 ..." the H200 SXM. `activation` "gelu" (or "relu") is a plain
// two-matrix feed-forward block, anything else (or none) a gated one; a
// mixture's `ffn` is each expert's width. A KV format not given is 16-bit.
// The kinds read: output_tokens_per_s_total, output_tokens_per_s_per_gpu,
// ttft_ms_batch1, first_token_latency_s_avg, per_token_latency_s_p50; other
// kinds are counted in `skipped`. Rows batched "in-flight ..." become
// MeasuredInflightRun (the request-level simulator's): their num_requests and
// request_rate_qps (a number, or "inf" or null: every request at once), and
// the kinds ttft_ms_mean, itl_ms_mean, output_tokens_per_s_total,
// total_tokens_per_s and request_throughput. A static row that prints what
// only requests arriving one by one give (first_token_latency_s_min or _max,
// per_token_latency_s_p75, _p95 or _p99: LMDeploy's profile_generation) is
// also a closed loop of batch_size clients (closed_loop_rounds requests each when replayed),
// with those kinds and output_tokens_per_s_total, first_token_latency_s_avg
// and per_token_latency_s_p50.
#pragma once

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/error.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/measured_serving.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/measured.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace napkin::io {

/// A serving-runs file as read: one run per measured number, the in-flight rows, and the count of kinds skipped.
struct ServingRunFile {
    std::vector<MeasuredServingRun> runs;
    std::vector<MeasuredInflightRun> inflight;  // rows batched in flight, and closed loops (serving/measured.hpp)
    std::size_t skipped = 0;                    // measurements of kinds napkin does not compare
    std::size_t replay_only = 0;                // a closed loop's measurements only its replay compares
};

namespace detail {
inline std::string serving_row_name(const nlohmann::json& row, std::size_t i) {
    return row.contains("id") && row["id"].is_string() ? row["id"].get<std::string>()
                                                       : "runs[" + std::to_string(i) + "]";
}

inline long long whole_field(const nlohmann::json& object, const std::string& key, const std::string& where,
                             long long fallback, bool required) {
    if (!object.contains(key) || object[key].is_null()) {
        if (required) reject(where + "." + key, "missing", "is required");
        return fallback;
    }
    const nlohmann::json& v = object[key];
    if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > (1LL << 40))
        reject(where + "." + key, v.dump(), "must be a whole number from 1 to 2^40");
    return v.get<long long>();
}

inline std::string text_field(const nlohmann::json& object, const std::string& key, const std::string& where,
                              const std::string& fallback = "") {
    if (!object.contains(key) || object[key].is_null()) return fallback;
    if (!object[key].is_string()) reject(where + "." + key, object[key].dump(), "must be a string");
    return object[key].get<std::string>();
}

/// The row's decode attention kernel: GQA-aware (grouped) or per query head, and whether the row
/// says which ran.
struct DecodeAttention {
    bool grouped = true;
    bool known = true;
};
/// The row's "decode_attention" ("grouped" or "per_query_head") when it says ("searched": it does
/// not know, the fit searches it); else grouped, but for
/// TensorRT-LLM 0.9.0, whose performance doc builds its engines with TRTLLM_ENABLE_XQA=1 for
/// Llama-70B and Falcon only (the rows' notes): its other models decode through the masked
/// multi-head attention kernel, which reads the cache per query head, and for those two XQA runs
/// only if its kernels take the model's shape, which the doc does not say — unknown, so searched
/// with the fit (measured_serving.hpp, search_decode_attention), grouped until then.
inline DecodeAttention decode_attention_of(const nlohmann::json& row, const std::string& where,
                                           const std::string& model) {
    const std::string stated = text_field(row, "decode_attention", where);
    if (stated == "grouped") return {true, true};
    if (stated == "per_query_head") return {false, true};
    if (stated == "searched") return {true, false};
    if (!stated.empty()) reject(where + ".decode_attention", stated, "must be grouped, per_query_head or searched");
    const bool trt_0_9 = text_field(row, "engine", where).rfind("TensorRT-LLM", 0) == 0 &&
                         text_field(row, "engine_version", where) == "0.9.0";
    if (!trt_0_9) return {true, true};
    const bool xqa_build = model.find("70B") != std::string::npos || model.find("Falcon") != std::string::npos;
    return xqa_build ? DecodeAttention{true, false} : DecodeAttention{false, true};
}

inline Gpu serving_gpu(const std::string& name, const std::string& where) {
    if (const auto gpu = catalog::find_gpu(name)) return *gpu;
    const auto starts = [&](std::string_view prefix) { return name.rfind(prefix, 0) == 0; };
    if (starts("A100")) return name.find("40GB") != std::string::npos ? catalog::a100_40gb_sxm : catalog::a100_80gb_sxm;
    if (starts("H100")) return catalog::h100_sxm;
    if (starts("H200")) return catalog::h200_sxm;
    reject(where + ".gpu", name, "is not a catalog GPU (napkin list gpus) nor an A100, H100 or H200 as printed");
}

struct MeasureKind {
    std::string_view kind;
    ServingMeasure measure;
    double to_base;  // into tokens/s or seconds
};
struct InflightMeasureKind {
    std::string_view kind;
    InflightMeasure measure;
    double to_base;  // into seconds, tokens/s or requests/s
};
inline constexpr std::array<InflightMeasureKind, 5> inflight_kinds{{
    {"ttft_ms_mean", InflightMeasure::ttft_mean, 1e-3},
    {"itl_ms_mean", InflightMeasure::itl_mean, 1e-3},
    {"output_tokens_per_s_total", InflightMeasure::output_tokens_per_s, 1.0},
    {"total_tokens_per_s", InflightMeasure::total_tokens_per_s, 1.0},
    {"request_throughput", InflightMeasure::requests_per_s, 1.0},
}};
/// The kinds of a closed-loop benchmark (LMDeploy's profile_generation: `batch_size` client threads,
/// each sending its next request when its last one ends): its first-token latencies, per-token
/// (inter-token) latency percentiles and generated tokens over the whole time.
inline constexpr std::array<InflightMeasureKind, 8> closed_loop_kinds{{
    {"output_tokens_per_s_total", InflightMeasure::output_tokens_per_s, 1.0},
    {"first_token_latency_s_avg", InflightMeasure::ttft_mean, 1.0},
    {"first_token_latency_s_min", InflightMeasure::ttft_min, 1.0},
    {"first_token_latency_s_max", InflightMeasure::ttft_max, 1.0},
    {"per_token_latency_s_p50", InflightMeasure::itl_p50, 1.0},
    {"per_token_latency_s_p75", InflightMeasure::itl_p75, 1.0},
    {"per_token_latency_s_p95", InflightMeasure::itl_p95, 1.0},
    {"per_token_latency_s_p99", InflightMeasure::itl_p99, 1.0},
}};

inline constexpr std::array<MeasureKind, 5> measure_kinds{{
    {"output_tokens_per_s_total", ServingMeasure::output_tokens_per_s, 1.0},
    {"output_tokens_per_s_per_gpu", ServingMeasure::output_tokens_per_s_per_gpu, 1.0},
    {"ttft_ms_batch1", ServingMeasure::ttft, 1e-3},
    {"first_token_latency_s_avg", ServingMeasure::ttft, 1.0},
    {"per_token_latency_s_p50", ServingMeasure::tpot, 1.0},
}};
/// What every row states: the model, GPU, layout and number formats.
inline MeasuredServingRun parse_run_header(const nlohmann::json& row, const std::string& where,
                                           const std::string& path) {
    if (!row.contains("model_shape") || !row["model_shape"].is_object())
        reject(where + ".model_shape", "missing", "is required (an object)");
    const nlohmann::json& shape = row["model_shape"];
    const std::string at = where + ".model_shape";
    MeasuredServingRun run{};
    run.id = where;
    run.source = detail::text_field(row, "source", where, path);
    run.model = detail::text_field(row, "model", where, "model");
    TransformerShape& m = run.shape;
    m.layers = detail::whole_field(shape, "layers", at, 0, true);
    m.hidden = detail::whole_field(shape, "hidden", at, 0, true);
    m.heads = detail::whole_field(shape, "heads", at, 0, true);
    m.kv_heads = detail::whole_field(shape, "kv_heads", at, m.heads, false);
    m.head_dim = detail::whole_field(shape, "head_dim", at, m.hidden / m.heads, false);
    m.ffn = detail::whole_field(shape, "ffn", at, 0, true);
    m.vocabulary = detail::whole_field(shape, "vocab", at, 0, true);
    const std::string activation = detail::text_field(shape, "activation", at);
    m.feed_forward = activation == "gelu" || activation == "relu" ? FeedForward::plain : FeedForward::gated;
    m.experts = detail::whole_field(shape, "experts", at, 0, false);
    if (m.experts > 0) {
        m.experts_per_token = detail::whole_field(shape, "experts_per_token", at, 0, true);
        m.expert_ffn = m.ffn;
    }
    (void)validated(m);
    run.gpu = detail::serving_gpu(detail::text_field(row, "gpu", where), where);
    run.link = *catalog::default_links(run.gpu.name).intra;
    run.layout = {.tp = detail::whole_field(row, "tp", where, 1, false),
                  .pp = detail::whole_field(row, "pp", where, 1, false),
                  .ep = detail::whole_field(row, "ep", where, 1, false)};
    (void)validated(run.layout, m);
    const std::string weights = detail::text_field(row, "weight_dtype", where, "bf16");
    const auto w = parse_weight_dtype(weights);
    if (!w) reject(where + ".weight_dtype", weights, "must be " + names_of(weight_dtype_names));
    run.setup.weights = *w;
    const std::string kv = detail::text_field(row, "kv_dtype", where, "bf16");
    const auto k = kv == "fp16" ? std::optional{KvDType::bf16} : parse_kv_dtype(kv);  // a 16-bit cache either way
    if (!k) reject(where + ".kv_dtype", kv, "must be fp16 or " + names_of(kv_dtype_names));
    run.setup.kv = *k;
    const detail::DecodeAttention attention = detail::decode_attention_of(row, where, run.model);
    run.setup.grouped_decode_attention = attention.grouped;
    run.decode_attention_known = attention.known;
    require_computable(run.gpu, run.setup.weights);
    return run;
}

template <std::size_t N>
inline InflightMeasureKind const* inflight_kind(std::string_view kind,
                                                const std::array<InflightMeasureKind, N>& kinds) {
    const auto k =
        std::find_if(kinds.begin(), kinds.end(), [&](const InflightMeasureKind& m) { return m.kind == kind; });
    return k == kinds.end() ? nullptr : &*k;
}

/// The row's measurements of the kinds given, converted (the others counted in `skipped`).
template <std::size_t N>
inline std::vector<std::pair<InflightMeasure, double>> inflight_measurements(
    const nlohmann::json& measurements, const std::string& where, const std::array<InflightMeasureKind, N>& kinds,
    std::size_t& skipped) {
    std::vector<std::pair<InflightMeasure, double>> out;
    std::size_t j = 0;
    for (const nlohmann::json& measurement : measurements) {
        const std::string mwhere = where + ".measurements[" + std::to_string(j++) + "]";
        const InflightMeasureKind* known = inflight_kind(text_field(measurement, "kind", mwhere), kinds);
        if (known == nullptr) {
            ++skipped;
            continue;
        }
        if (!measurement.contains("value") || !measurement["value"].is_number())
            reject(mwhere + ".value", measurement.value("value", nlohmann::json()).dump(), "must be a number");
        const double value = measurement["value"].get<double>() * known->to_base;
        require_positive(mwhere + ".value", value);
        out.push_back({known->measure, value});
    }
    return out;
}

/// Whether a fixed-batch reading compares the kind (measure_kinds).
inline bool fixed_batch_kind(std::string_view kind) {
    return std::any_of(measure_kinds.begin(), measure_kinds.end(),
                       [&](const MeasureKind& k) { return k.kind == kind; });
}

/// How many of a fixed-batch row's measurements only requests arriving one by one give — a closed
/// loop's kinds that no static batch has (the least or greatest first-token latency, a per-token
/// percentile above the median), as LMDeploy's profile_generation prints; 0 for a plain static batch.
inline std::size_t closed_loop_only(const nlohmann::json& measurements, const std::string& where) {
    std::size_t n = 0, j = 0;
    for (const nlohmann::json& measurement : measurements) {
        const std::string kind = text_field(measurement, "kind", where + ".measurements[" + std::to_string(j++) + "]");
        n += inflight_kind(kind, closed_loop_kinds) != nullptr && !fixed_batch_kind(kind) ? 1 : 0;
    }
    return n;
}

/// An in-flight row: the header, its lengths, the offered rate ("inf" or none:
/// all at once) and request count, and the kinds napkin compares.
inline MeasuredInflightRun parse_inflight_row(const nlohmann::json& row, const std::string& where,
                                              const std::string& path, const nlohmann::json& measurements,
                                              std::size_t& skipped) {
    MeasuredInflightRun run;
    run.header = parse_run_header(row, where, path);
    run.input_tokens = whole_field(row, "input_tokens", where, 0, true);
    run.output_tokens = whole_field(row, "output_tokens", where, 0, true);
    run.requests = whole_field(row, "num_requests", where, 1000, false);
    const nlohmann::json rate = row.value("request_rate_qps", nlohmann::json());
    if (rate.is_number()) {
        run.request_rate = rate.get<double>();
        require(std::isfinite(run.request_rate) && run.request_rate > 0.0, where + ".request_rate_qps",
                run.request_rate, "must be positive, \"inf\" or null");
    } else if (!rate.is_null() && !(rate.is_string() && rate.get<std::string>() == "inf")) {
        reject(where + ".request_rate_qps", printable(rate.dump()), "must be a number, \"inf\" or null");
    }
    run.measured = inflight_measurements(measurements, where, inflight_kinds, skipped);
    return run;
}

/// A closed-loop row replayed as its benchmark ran it: `batch_size` clients, each sending its
/// requests one after another (how many, the replay's rounds), and the closed loop's kinds.
inline MeasuredInflightRun parse_closed_loop_row(const nlohmann::json& row, const std::string& where,
                                                 const std::string& path, const nlohmann::json& measurements) {
    MeasuredInflightRun run;
    run.header = parse_run_header(row, where, path);
    run.input_tokens = whole_field(row, "input_tokens", where, 0, true);
    run.output_tokens = whole_field(row, "output_tokens", where, 0, true);
    run.clients = whole_field(row, "batch_size", where, 1, false);
    require(run.clients <= (1LL << 16), where + ".batch_size", count(run.clients),
            "must be at most 65,536 clients for a closed loop's replay");
    run.requests = run.clients;    // a round; the replay's rounds multiply it
    run.scheduler = std::nullopt;  // the doc does not say how the engine batches: searched
    std::size_t ignored = 0;       // the fixed-batch reading counts what neither compares
    run.measured = inflight_measurements(measurements, where, closed_loop_kinds, ignored);
    return run;
}
}  // namespace detail

/// Parses the text of a serving-runs file; a file-level error names `argument`
/// (the flag or parameter that gave it) and `path`, a row's error the row's id.
[[nodiscard]] inline ServingRunFile parse_serving_runs(const std::string& text, const std::string& argument,
                                                       const std::string& path) {
    require_json_depth(argument, path, text);
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        reject(argument, path, std::string("is not JSON: ") + e.what());
    }
    if (!doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array())
        reject(argument, path, "must be an object with a \"runs\" array");
    ServingRunFile file;
    std::size_t i = 0;
    for (const nlohmann::json& row : doc["runs"]) {
        const std::string where = detail::serving_row_name(row, i++);
        if (!row.is_object()) reject(where, row.dump().substr(0, 40), "must be an object");
        const std::string batching = detail::text_field(row, "batching", where, "static");
        const nlohmann::json measurements = row.value("measurements", nlohmann::json::array());
        if (!measurements.is_array())
            reject(where + ".measurements", measurements.dump().substr(0, 40), "must be an array");
        if (batching.rfind("in-flight", 0) == 0) {
            file.inflight.push_back(detail::parse_inflight_row(row, where, path, measurements, file.skipped));
            continue;
        }
        if (batching.rfind("static", 0) != 0) {
            file.skipped += measurements.size();
            continue;
        }
        const std::size_t replay_only = detail::closed_loop_only(measurements, where);
        if (replay_only > 0) file.inflight.push_back(detail::parse_closed_loop_row(row, where, path, measurements));
        file.replay_only += replay_only;
        MeasuredServingRun run = detail::parse_run_header(row, where, path);
        run.workload = {.input_tokens = detail::whole_field(row, "input_tokens", where, 0, true),
                        .output_tokens = detail::whole_field(row, "output_tokens", where, 0, true),
                        .concurrency = detail::whole_field(row, "batch_size", where, 1, false),
                        .batching = Batching::static_batch};
        run.closed_loop = replay_only > 0;  // a closed loop's kinds: its batch is replayed as the loop ran
        std::size_t j = 0;
        for (const nlohmann::json& measurement : measurements) {
            const std::string mwhere = where + ".measurements[" + std::to_string(j++) + "]";
            const std::string kind = detail::text_field(measurement, "kind", mwhere);
            const auto known = std::find_if(detail::measure_kinds.begin(), detail::measure_kinds.end(),
                                            [&](const detail::MeasureKind& k) { return k.kind == kind; });
            if (known == detail::measure_kinds.end()) {
                if (!(replay_only > 0 && detail::inflight_kind(kind, detail::closed_loop_kinds))) ++file.skipped;
                continue;
            }
            if (!measurement.contains("value") || !measurement["value"].is_number())
                reject(mwhere + ".value", measurement.value("value", nlohmann::json()).dump(), "must be a number");
            const double value = measurement["value"].get<double>() * known->to_base;
            require_positive(mwhere + ".value", value);
            MeasuredServingRun one = run;
            one.measure = known->measure;
            one.measured = value;
            file.runs.push_back(std::move(one));
        }
    }
    return file;
}

/// Reads the serving-runs file at `path` (given by `argument`) and parses it as parse_serving_runs does.
[[nodiscard]] inline ServingRunFile read_serving_runs(const std::string& argument, const std::string& path) {
    return parse_serving_runs(read_json_file(argument, path), argument, path);
}

}  // namespace napkin::io
