// Options shared by the napkin command's subcommands: a model by catalog name
// or config.json path, a GPU and a link by catalog name or given inline, and
// the lesson's inference setup.
#pragma once

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/training.hpp>
#include <napkin/io/hf_config.hpp>
#include <napkin/io/json.hpp>
#include <napkin/io/quantity_parse.hpp>
#include <napkin/io/text_file.hpp>

#include "command.hpp"
#include "suggest.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdarg>
#include <cstdio>
#include <sstream>
#include <cmath>
#include <deque>
#include <iostream>
#include <limits>
#include <optional>
#include <string>

namespace napkin::cli {

// The most worker threads a --threads flag takes: far beyond any core count a
// machine has (2026: 384 hardware threads on two sockets), well below what a
// process may create; a system that gives fewer runs with those it gives.
inline constexpr unsigned max_threads = 1024;
inline unsigned checked_threads(unsigned threads) {
    if (threads > max_threads) reject("--threads", threads, "at most 1024 threads");
    return threads;
}

// --- values with units (io/quantity_parse.hpp) ---------------------------------------
// A new flag takes the value with its unit (--bandwidth 400Gb/s, --latency 5us);
// the old one beside it a bare number in a fixed unit (--bandwidth-gbps 50 in
// GB/s, --latency-us 5). These give the old flag's number, whichever was typed,
// and name the flag the user typed when the value is wrong.
inline std::optional<double> rate_in_gbps(const std::optional<double>& gbps, const std::optional<std::string>& text,
                                          const std::string& new_flag, const std::string& old_flag) {
    if (!text) return gbps;
    if (gbps) reject(new_flag, *text, "give " + new_flag + " or " + old_flag + ", not both");
    const BytesPerSecond rate = io::parse_rate(new_flag, *text);
    if (!(rate.value() > 0)) reject(new_flag, *text, "must be positive");
    return in(rate, units::GBps);
}

inline std::optional<double> time_in_us(const std::optional<double>& us, const std::optional<std::string>& text,
                                        const std::string& new_flag, const std::string& old_flag) {
    if (!text) return us;
    if (us) reject(new_flag, *text, "give " + new_flag + " or " + old_flag + ", not both");
    return in(io::parse_time(new_flag, *text), units::us);
}

// Each such pair is registered by one call, the twin right after its flag:
// add_rate_flag (--bandwidth 400Gb/s beside --bandwidth-gbps 50, read by
// rate_in_gbps), add_microseconds_flag (--latency 5us beside --latency-us 5,
// time_in_us) and add_time_flag below (--forward 1.5ms beside --forward-ms 1.5,
// time_in_ms). A test runs every pair of every subcommand: both given, or the
// flag without its unit, is one error naming the flag as typed.
inline void add_rate_flag(CLI::App* sub, const std::string& flag, std::optional<std::string>& with_unit,
                          std::optional<double>& in_gbps, const std::string& help) {
    sub->add_option(flag, with_unit, help);
    sub->add_option(flag + "-gbps", in_gbps, flag + " in GB/s (gigabytes, not gigabits)");
}
inline void add_microseconds_flag(CLI::App* sub, const std::string& flag, std::optional<std::string>& with_unit,
                                  std::optional<double>& in_us, const std::string& help) {
    sub->add_option(flag, with_unit, help);
    sub->add_option(flag + "-us", in_us, flag + " in microseconds");
}

// A value given by a flag with its unit or by its legacy twin must be
// positive: rejected naming the flag the user typed, with the value as typed.
inline void require_positive_as_typed(const std::optional<std::string>& text, const std::string& new_flag,
                                      const std::string& old_flag, double value) {
    if (text && !(value >= std::numeric_limits<double>::min() && value <= std::numeric_limits<double>::max()))
        reject(new_flag, *text, "must be positive");
    require_positive(old_flag, value);
}
inline void require_non_negative_as_typed(const std::optional<std::string>& text, const std::string& new_flag,
                                          const std::string& old_flag, double value) {
    if (text && !(value == 0.0 || (value >= std::numeric_limits<double>::min() &&
                                   value <= std::numeric_limits<double>::max())))
        reject(new_flag, *text, "must not be negative");
    require_non_negative(old_flag, value);
}

// The same for the times in milliseconds (--forward 1.5ms beside --forward-ms 1.5).
// A time flag with its unit (--forward 1.5ms) and its twin in milliseconds (--forward-ms 1.5), the older
// spelling that keeps working; time_in_ms resolves the pair.
inline void add_time_flag(CLI::App* sub, const std::string& flag, std::optional<std::string>& with_unit,
                          std::optional<double>& in_ms, const std::string& help) {
    sub->add_option(flag, with_unit, help);
    sub->add_option(flag + "-ms", in_ms, "the same in ms");
}

inline std::optional<double> time_in_ms(const std::optional<double>& ms, const std::optional<std::string>& text,
                                        const std::string& new_flag, const std::string& old_flag) {
    if (!text) return ms;
    if (ms) reject(new_flag, *text, "give " + new_flag + " or " + old_flag + ", not both");
    return in(io::parse_time(new_flag, *text), units::ms);
}

// --ttft and --tpot, the latency targets of serve and plan-inference, each beside its older -ms twin.
// resolve_latency_targets leaves the targets in ttft_ms and tpot_ms, each checked positive under
// the flag as typed (--tpot 0ms: "--tpot = \"0ms\": must be positive"; --tpot-ms 0 names --tpot-ms).
struct LatencyTargets {
    std::optional<std::string> ttft, tpot;  // with their units: 2s, 50ms
    std::optional<double> ttft_ms, tpot_ms;
    [[nodiscard]] bool any() const { return ttft_ms || tpot_ms; }
};

inline void add_latency_targets(CLI::App* sub, LatencyTargets& t, const std::string& ttft_help,
                                const std::string& tpot_help) {
    add_time_flag(sub, "--ttft", t.ttft, t.ttft_ms, ttft_help);
    add_time_flag(sub, "--tpot", t.tpot, t.tpot_ms, tpot_help);
}

inline void resolve_latency_targets(LatencyTargets& t) {
    const auto resolve = [](std::optional<std::string>& text, std::optional<double>& ms, const std::string& flag) {
        ms = time_in_ms(ms, text, flag, flag + "-ms");
        if (ms && !(*ms > 0.0)) {
            if (text) reject(flag, *text, "must be positive");
            require_positive(flag + "-ms", *ms);
        }
        text.reset();
    };
    resolve(t.ttft, t.ttft_ms, "--ttft");
    resolve(t.tpot, t.tpot_ms, "--tpot");
}

// --- catalog names ----------------------------------------------------------------
template <class Entries>
std::vector<std::string> names_of(const Entries& entries) {
    std::vector<std::string> names;
    for (const auto* e : entries) names.emplace_back(e->name);
    return names;
}

// "--gpu \"a100\": not in the catalog; did you mean … (napkin list)".
[[noreturn]] inline void not_in_catalog(const std::string& flag, const std::string& name,
                                        const std::vector<std::string>& names) {
    throw napkin::invalid_argument(flag + " \"" + name + "\": not in the catalog" + did_you_mean(name, names) +
                                   " (napkin list)");
}

// --- the model ---------------------------------------------------------------
struct ModelOptions {
    std::string spec;  // catalog name or path to a config.json
};

inline void add_model_options(CLI::App* sub, ModelOptions& o) {
    sub->add_option("--model", o.spec, "catalog name (napkin list) or path to a Hugging Face config.json")
        ->required();
}

inline TransformerShape resolve_model(const ModelOptions& o) {
    if (auto found = catalog::find_model(o.spec)) return *found;
    if (o.spec.find('/') != std::string::npos || o.spec.ends_with(".json")) {
        static std::deque<io::LoadedModel> loaded;  // owns the names the shapes point at
        loaded.push_back(io::read_hf_config(o.spec));
        return loaded.back().shape;
    }
    throw napkin::invalid_argument("--model \"" + o.spec + "\": not a catalog model nor a path to a config.json" +
                                   did_you_mean(o.spec, names_of(catalog::models)) + " (napkin list)");
}

// --seq-len's default in train and plan: the context training runs use now, the model's
// max_position_embeddings up to 8,192 tokens (Llama 3's pretraining length, Dubey et al. 2024,
// Sec. 3.4.1); 2,048 for a model that states none (the GPT-3 family's n_ctx, Brown et al. 2020,
// Table 2.1).
inline constexpr long long longest_default_sequence = 8192;
inline constexpr long long unstated_context = 2048;
inline long long default_sequence(const TransformerShape& m) {
    return m.max_position_embeddings > 0 ? std::min(m.max_position_embeddings, longest_default_sequence)
                                         : unstated_context;
}

// --- the GPU -------------------------------------------------------------------
struct GpuOptions {
    std::string name;
    std::optional<double> memory_gib, usable, bandwidth_gbps, tflops;
    std::optional<std::string> memory, bandwidth, peak;  // with their units: 80GiB, 2039GB/s, 989TFLOP/s
    // What the GEMM model, the narrow formats and the energy figures need (Gpu's fields of the same meaning).
    std::optional<long long> sms;
    std::optional<std::string> architecture, fp8_peak, fp6_peak, fp4_peak, power;
};

// The flags that state the GPU beyond --gpu, each once: what gpu_assumed_from looks for.
inline constexpr std::array gpu_figure_flags{"--gpu-memory", "--gpu-memory-gib", "--gpu-bandwidth",
                                             "--gpu-bandwidth-gbps", "--gpu-peak", "--gpu-tflops", "--gpu-usable",
                                             "--gpu-sms", "--gpu-architecture", "--gpu-fp8-peak", "--gpu-fp6-peak",
                                             "--gpu-fp4-peak", "--gpu-power"};

// "ampere, hopper, ..." : the architectures a GPU may name (unknown left out: it is the default).
inline std::string architecture_choices() {
    std::string names;
    for (const Architecture a : architectures)
        if (a != Architecture::unknown) names += (names.empty() ? "" : ", ") + std::string(to_string(a));
    return names;
}

inline void add_gpu_options(CLI::App* sub, GpuOptions& o) {
    sub->add_option("--gpu", o.name, "catalog GPU (napkin list); or give all of --gpu-memory-gib, "
                                     "--gpu-bandwidth-gbps and --gpu-tflops");
    sub->add_option("--gpu-memory", o.memory, "memory per GPU with its unit, 80GiB (overrides the catalog)");
    sub->add_option("--gpu-memory-gib", o.memory_gib, "--gpu-memory in GiB");
    add_rate_flag(sub, "--gpu-bandwidth", o.bandwidth, o.bandwidth_gbps,
                  "memory bandwidth with its unit, 2039GB/s or 3.35TB/s");
    sub->add_option("--gpu-usable", o.usable, "usable share of the memory, in (0, 1] (default 0.92)");
    sub->add_option("--gpu-peak", o.peak, "peak dense 16-bit compute with its unit, 989TFLOP/s");
    sub->add_option("--gpu-tflops", o.tflops, "--gpu-peak in TFLOP/s");
    sub->add_option("--gpu-sms", o.sms, "streaming multiprocessors (AMD: compute units) a GEMM's tiles spread over");
    sub->add_option("--gpu-architecture", o.architecture,
                    "the generation whose kernel measurements apply: " + architecture_choices());
    sub->add_option("--gpu-fp8-peak", o.fp8_peak, "dense FP8 tensor peak with its unit, 1979TFLOP/s (0: none)");
    sub->add_option("--gpu-fp6-peak", o.fp6_peak, "dense FP6 tensor peak with its unit, 4.5PFLOP/s (0: none)");
    sub->add_option("--gpu-fp4-peak", o.fp4_peak, "dense FP4 tensor peak with its unit, 9PFLOP/s (0: none)");
    sub->add_option("--gpu-power", o.power, "board power with its unit, 700W (energy per token)");
}

// The figures beyond memory, bandwidth and peak that the flags state, each checked and named by its flag.
inline void apply_gpu_facts(const GpuOptions& o, Gpu& gpu) {
    if (o.sms) {
        require(*o.sms >= 1 && *o.sms <= (1LL << 24), "--gpu-sms", static_cast<double>(*o.sms),
                "must be a whole number from 1 to 2^24");
        gpu.sm_count = *o.sms;
    }
    if (o.architecture) {
        const std::optional<Architecture> a = parse_architecture(*o.architecture);
        if (!a) reject("--gpu-architecture", *o.architecture, "must be one of " + architecture_choices());
        gpu.architecture = *a;
    }
    const auto rate_or_none = [](const char* flag, const std::string& text) {
        if (text == "0") return FlopsPerSecond{};
        const FlopsPerSecond r = io::parse_flop_rate(flag, text);
        if (r.value() == 0.0) return FlopsPerSecond{};  // 0TFLOP/s: none, as 0
        require(r.value() >= limits::slowest_rate && r.value() <= limits::peak_flops_per_s, flag, r.value(),
                "must be from 1 FLOP/s to 1e21 FLOP/s, or 0 for none");
        return r;
    };
    if (o.fp8_peak) gpu.fp8_flops = rate_or_none("--gpu-fp8-peak", *o.fp8_peak);
    if (o.fp6_peak) gpu.fp6_flops = rate_or_none("--gpu-fp6-peak", *o.fp6_peak);
    if (o.fp4_peak) gpu.fp4_flops = rate_or_none("--gpu-fp4-peak", *o.fp4_peak);
    if (o.power) {
        const Watts w = io::parse_power("--gpu-power", *o.power);
        require(w.value() >= 1.0 && w.value() <= limits::board_power_w, "--gpu-power", w.value(),
                "must be from 1 W to 1e6 W");
        gpu.board_power = w;
    }
}

inline Gpu resolve_gpu(GpuOptions o) {
    if (o.memory) {
        if (o.memory_gib) reject("--gpu-memory", *o.memory, "give --gpu-memory or --gpu-memory-gib, not both");
        o.memory_gib = in(io::parse_bytes("--gpu-memory", *o.memory), units::GiB);
    }
    o.bandwidth_gbps = rate_in_gbps(o.bandwidth_gbps, o.bandwidth, "--gpu-bandwidth", "--gpu-bandwidth-gbps");
    if (o.peak) {
        if (o.tflops) reject("--gpu-peak", *o.peak, "give --gpu-peak or --gpu-tflops, not both");
        o.tflops = in(io::parse_flop_rate("--gpu-peak", *o.peak), units::TFLOPps);
    }
    Gpu gpu{.name = "inline", .memory = {}, .usable_fraction = catalog::default_usable_fraction,
            .memory_bandwidth = {}, .peak_flops = {}};
    if (!o.name.empty()) {
        auto found = catalog::find_gpu(o.name);
        if (!found) not_in_catalog("--gpu", o.name, names_of(catalog::gpus));
        gpu = *found;
    } else {
        for (auto [flag, value] : {std::pair{"--gpu-memory-gib", o.memory_gib}, {"--gpu-bandwidth-gbps", o.bandwidth_gbps},
                                   {"--gpu-tflops", o.tflops}})
            if (!value) throw napkin::invalid_argument(std::string("--gpu is not given, so ") + flag + " is required");
    }
    if (o.memory_gib) gpu.memory = gibibytes(*o.memory_gib);
    if (o.usable) gpu.usable_fraction = *o.usable;
    if (o.bandwidth_gbps) gpu.memory_bandwidth = gigabytes_per_second(*o.bandwidth_gbps);
    if (o.tflops) gpu.peak_flops = teraflops_per_second(*o.tflops);
    require_positive_as_typed(o.memory, "--gpu-memory", "--gpu-memory-gib", in(gpu.memory, units::GiB));
    require(gpu.usable_fraction > 0 && gpu.usable_fraction <= 1, "--gpu-usable", gpu.usable_fraction,
                    "must be in (0, 1]");
    require_positive_as_typed(o.bandwidth, "--gpu-bandwidth", "--gpu-bandwidth-gbps",
                              in(gpu.memory_bandwidth, units::GBps));
    require_positive_as_typed(o.peak, "--gpu-peak", "--gpu-tflops", in(gpu.peak_flops, units::TFLOPps));
    apply_gpu_facts(o, gpu);
    return gpu;
}

// train and plan model an A100 80 GB when --gpu is not typed. Flags that set
// the memory, bandwidth, peak or usable share (the inline GPU's) then change
// those figures of it and keep the rest: its SM count and architecture (the
// GEMM model's fit), its FP8 rate, board power and server links. The catalog
// GPU the rest comes from, when that is so (the command says it in one line
// and its JSON as "gpu_assumed_from"); none when --gpu was typed or no figure.
inline std::optional<std::string> gpu_assumed_from(const CLI::App& sub, const GpuOptions& o) {
    if (sub.count("--gpu") > 0 || o.name.empty()) return std::nullopt;
    for (const char* flag : gpu_figure_flags)
        if (sub.count(flag) > 0) return o.name;
    return std::nullopt;
}

// "assumed from a100-80gb-sxm (no --gpu): 108 SMs, ampere, no FP8, 400 W, its links" (≤ 80 columns):
// the figures the flags in `o` did not state.
inline std::string gpu_assumed_line(const std::string& from, const Gpu& gpu, const GpuOptions& o) {
    std::string facts;
    if (!o.sms) facts += std::to_string(gpu.sm_count) + " SMs, ";
    if (!o.architecture) facts += std::string(to_string(gpu.architecture)) + ", ";
    if (!o.fp8_peak) facts += gpu.fp8_flops.value() > 0.0 ? "FP8 " + to_string(gpu.fp8_flops) + ", " : "no FP8, ";
    if (!o.power) facts += format_fixed(in(gpu.board_power, units::W), 0) + " W, ";
    return "assumed from " + from + " (no --gpu): " + facts + "its links";
}

// --- a calibration (napkin calibrate --json) ----------------------------------------
// The link `napkin calibrate` fitted to nccl-tests output, read back from the
// JSON it writes: bandwidth B, step latency α and base latency (0 unless it
// fitted one), so the measured link prices train, plan, serve and the rest.
struct Calibration {
    Link link;
    Seconds base_latency;
};

inline Calibration read_calibration(const std::string& flag, const std::string& path) {
    const std::string text = io::read_json_file(flag, path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
        reject(flag, io::printable(path), "is not JSON: give the output of napkin calibrate --json");
    }
    if (!j.is_object() || !j.contains("schema") || j["schema"] != io::json::schema("calibrate"))
        reject(flag, io::printable(path), "is not the output of napkin calibrate --json (its \"schema\" is \"" +
                                              io::json::schema("calibrate") + "\")");
    const auto number = [&](const char* key, double low, double high) {
        if (!j.contains(key) || !j[key].is_number() || !(j[key].get<double>() >= low && j[key].get<double>() <= high))
            reject(flag, io::printable(path),
                   std::string("needs \"") + key + "\" in [" + detail::number_text(low) + ", " +
                       detail::number_text(high) + "]");
        return j[key].get<double>();
    };
    const double bandwidth = number("bandwidth_bytes_per_s", 1.0, 1e15);
    const double step = number("step_latency_s", 0.0, 1.0);
    const double base = number("base_latency_s", 0.0, 1.0);
    static std::deque<std::string> names;  // owns the calibrated links' names
    names.push_back("calibrated (" + io::printable(path, 60) + ")");
    return {Link{names.back(), bytes_per_second(bandwidth), seconds(step)}, seconds(base)};
}

// --- the link ------------------------------------------------------------------
struct LinkOptions {
    std::string name;
    std::optional<double> bandwidth_gbps, step_us;
    std::optional<std::string> bandwidth, step, base_latency;  // with their units
    std::optional<double> base_latency_us;                     // none: NCCL's ring LL base latency
    std::optional<std::string> calibration;                    // napkin calibrate --json's file
    // Whether any link flag was given (else serve and plan-inference take the GPU's NVLink).
    [[nodiscard]] bool given() const {
        return !name.empty() || bandwidth || bandwidth_gbps || step || step_us || calibration;
    }
    [[nodiscard]] double base_us() const { return base_latency_us.value_or(in(nccl::ring_ll_base_latency, units::us)); }
};

inline void add_link_options(CLI::App* sub, LinkOptions& o) {
    sub->add_option("--link", o.name, "catalog link (napkin list); or give --link-bandwidth and --link-step");
    add_rate_flag(sub, "--link-bandwidth", o.bandwidth, o.bandwidth_gbps,
                  "inline link: bandwidth per direction, 300GB/s or 400Gb/s");
    add_microseconds_flag(sub, "--link-step", o.step, o.step_us, "inline link: latency of one collective step, 0.6us");
    add_microseconds_flag(sub, "--base-latency", o.base_latency, o.base_latency_us,
                          "latency paid once per collective call (default: NCCL ring LL, 6.6us)");
    sub->add_option("--calibration", o.calibration,
                    "the link napkin calibrate --json fitted (its file): bandwidth, step and base latency");
}

inline Link resolve_link(LinkOptions o) {
    o.bandwidth_gbps = rate_in_gbps(o.bandwidth_gbps, o.bandwidth, "--link-bandwidth", "--link-bandwidth-gbps");
    o.step_us = time_in_us(o.step_us, o.step, "--link-step", "--link-step-us");
    Link link{.name = "inline", .bandwidth = {}, .step_latency = {}};
    if (o.calibration) {
        if (!o.name.empty() || o.bandwidth_gbps || o.step_us)
            reject("--calibration", io::printable(*o.calibration),
                   "give --calibration or the link (--link, --link-bandwidth, --link-step), not both");
        return read_calibration("--calibration", *o.calibration).link;
    }
    if (!o.name.empty()) {
        auto found = catalog::find_link(o.name);
        if (!found) not_in_catalog("--link", o.name, names_of(catalog::links));
        link = *found;
    } else {
        if (!o.bandwidth_gbps)
            throw napkin::invalid_argument("--link is not given, so --link-bandwidth-gbps is required (or --link-bandwidth with its unit)");
        if (!o.step_us) throw napkin::invalid_argument("--link is not given, so --link-step-us is required (or --link-step with its unit)");
    }
    if (o.bandwidth_gbps) link.bandwidth = gigabytes_per_second(*o.bandwidth_gbps);
    if (o.step_us) link.step_latency = microseconds(*o.step_us);
    require_positive_as_typed(o.bandwidth, "--link-bandwidth", "--link-bandwidth-gbps", in(link.bandwidth, units::GBps));
    require_non_negative_as_typed(o.step, "--link-step", "--link-step-us", in(link.step_latency, units::us));
    (void)time_in_us(o.base_latency_us, o.base_latency, "--base-latency", "--base-latency-us");
    if (!o.base_latency) require_non_negative("--base-latency-us", o.base_us());
    return link;
}

inline Ring resolve_ring(const LinkOptions& o) {
    if (o.base_latency) return Ring{io::parse_time("--base-latency", *o.base_latency)};
    if (o.calibration && !o.base_latency_us) return Ring{read_calibration("--calibration", *o.calibration).base_latency};
    return Ring{microseconds(o.base_us())};
}

// --- the nodes of a training cluster (train, plan) ----------------------------------
// The links inside and between nodes: catalog names, or inline with units; by
// default the GPU's usual pair (catalog::default_links: A100 → nvlink3 + ib-hdr,
// H100/H200/GH200 → nvlink4 + ib-ndr, B200/GB200 → nvlink5 + ib-ndr: the DGX
// B200 and GB200 NVL72 data sheets list ConnectX-7 at 400 Gb/s).
struct NodeOptions {
    long long gpus_per_node = 8;
    std::string intra, inter;  // catalog names; empty: the GPU's default
    std::optional<std::string> intra_bandwidth, intra_latency, inter_bandwidth, inter_latency;
    // The same, spelled --intra-link-bandwidth … (issue 15's names).
    std::optional<std::string> intra_link_bandwidth, intra_link_latency, inter_link_bandwidth, inter_link_latency;
    // napkin calibrate --json's files for either level.
    std::optional<std::string> intra_calibration, inter_calibration;
};

inline void add_node_options(CLI::App* sub, NodeOptions& o, const std::string& inter_help) {
    sub->add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node (8)");
    sub->add_option("--intra-link", o.intra, "catalog link inside a node (default: the GPU's usual one, printed)");
    sub->add_option("--inter-link", o.inter, inter_help);
    sub->add_option("--intra-bandwidth", o.intra_bandwidth,
                    "inline link inside a node: bandwidth per direction per GPU, 900GB/s (with --intra-latency)");
    sub->add_option("--intra-latency", o.intra_latency, "inline link inside a node: latency of one step, 0.6us");
    sub->add_option("--inter-bandwidth", o.inter_bandwidth,
                    "inline link between nodes: bandwidth per GPU's NIC, 400Gb/s (with --inter-latency)");
    sub->add_option("--inter-latency", o.inter_latency, "inline link between nodes: latency of one step, 2.7us");
    sub->add_option("--intra-link-bandwidth", o.intra_link_bandwidth, "--intra-bandwidth, spelled as --intra-link");
    sub->add_option("--intra-link-latency", o.intra_link_latency, "--intra-latency, spelled as --intra-link");
    sub->add_option("--inter-link-bandwidth", o.inter_link_bandwidth, "--inter-bandwidth, spelled as --inter-link");
    sub->add_option("--inter-link-latency", o.inter_link_latency, "--inter-latency, spelled as --inter-link");
    sub->add_option("--intra-calibration", o.intra_calibration,
                    "the link inside a node as napkin calibrate --json fitted it (its file)");
    sub->add_option("--inter-calibration", o.inter_calibration,
                    "the link between nodes as napkin calibrate --json fitted it (its file)");
}

// A value given under either of two spellings, with the flag the user typed.
struct Spelled {
    std::optional<std::string> value;
    std::string flag;
};

inline Spelled either_spelling(const std::string& flag, const std::optional<std::string>& value,
                               const std::string& alias, const std::optional<std::string>& alias_value) {
    if (value && alias_value) reject(alias, *alias_value, "give " + flag + " or " + alias + ", not both");
    return alias_value ? Spelled{alias_value, alias} : Spelled{value, flag};
}

inline Link resolve_catalog_link(const std::string& flag, const std::string& name) {
    auto link = catalog::find_link(name);
    if (!link) not_in_catalog(flag, name, names_of(catalog::links));
    return *link;
}

// One level's link: inline (both flags), from the catalog, or the default.
// The bandwidth and latency come under either spelling (--intra-bandwidth or
// --intra-link-bandwidth); errors name the one typed.
inline Link resolve_level(const std::string& level, const std::string& name, const std::optional<std::string>& bw_short,
                          const std::optional<std::string>& lat_short, const std::optional<std::string>& bw_long,
                          const std::optional<std::string>& lat_long, const std::optional<std::string>& calibration,
                          const Link& fallback) {
    const std::string link_flag = "--" + level + "-link";
    if (calibration) {
        const std::string flag = "--" + level + "-calibration";
        if (!name.empty() || bw_short || lat_short || bw_long || lat_long)
            reject(flag, io::printable(*calibration), "give " + flag + " or " + link_flag + " (or its bandwidth and "
                                                      "latency), not both");
        return read_calibration(flag, *calibration).link;
    }
    const Spelled bw_given = either_spelling("--" + level + "-bandwidth", bw_short, link_flag + "-bandwidth", bw_long);
    const Spelled lat_given = either_spelling("--" + level + "-latency", lat_short, link_flag + "-latency", lat_long);
    const std::optional<std::string>&bw = bw_given.value, &lat = lat_given.value;
    // A missing one is named in the spelling of the one given.
    const bool long_spelling = bw_long || lat_long;
    const std::string bw_flag = bw ? bw_given.flag : long_spelling ? link_flag + "-bandwidth" : bw_given.flag;
    const std::string lat_flag = lat ? lat_given.flag : long_spelling ? link_flag + "-latency" : lat_given.flag;
    if (bw || lat) {
        if (!name.empty()) reject(link_flag, name, "give " + link_flag + " or " + bw_flag + " and " + lat_flag + ", not both");
        if (!bw) throw napkin::invalid_argument(lat_flag + " needs " + bw_flag);
        if (!lat) throw napkin::invalid_argument(bw_flag + " needs " + lat_flag);
        const BytesPerSecond rate = io::parse_rate(bw_flag, *bw);
        if (!(rate.value() > 0)) reject(bw_flag, *bw, "must be positive");
        static std::deque<std::string> names;  // owns the inline links' names
        names.push_back("inline " + to_string(rate) + ", " + to_string(io::parse_time(lat_flag, *lat)));
        return Link{names.back(), rate, io::parse_time(lat_flag, *lat)};
    }
    if (!name.empty()) return resolve_catalog_link(link_flag, name);
    return fallback;
}

// The usual server of the chosen GPU (an inline GPU: the catalog's fallback).
inline catalog::DefaultLinks default_links_of(const GpuOptions& gpu) {
    return catalog::default_links(gpu.name.empty() ? "inline" : gpu.name);
}

// A node of `gpus` GPUs of the chosen kind with its links inside and between nodes.
inline Node resolve_node(const GpuOptions& gpu, const NodeOptions& o, long long gpus, Nic nic) {
    const Gpu g = resolve_gpu(gpu);
    const auto defaults = default_links_of(gpu);
    return Node{.name = "node", .gpu = g, .gpus = gpus,
                .intra = resolve_level("intra", o.intra, o.intra_bandwidth, o.intra_latency, o.intra_link_bandwidth,
                                       o.intra_link_latency, o.intra_calibration, *defaults.intra),
                .inter = resolve_level("inter", o.inter, o.inter_bandwidth, o.inter_latency, o.inter_link_bandwidth,
                                       o.inter_link_latency, o.inter_calibration, *defaults.inter),
                .nic = nic};
}

// "links: nvlink4 inside a node, ib-ndr between (the DGX H100/H200 defaults for h100-sxm)".
inline std::string links_line(const GpuOptions& gpu, const NodeOptions& o, const Node& node) {
    const bool defaulted = o.intra.empty() && !o.intra_bandwidth && !o.intra_link_bandwidth && o.inter.empty() &&
                           !o.inter_bandwidth && !o.inter_link_bandwidth && !o.intra_calibration &&
                           !o.inter_calibration;
    std::string line = "links: " + std::string(node.intra.name) + " inside a node, " + std::string(node.inter.name) +
                       " between";
    if (defaulted) {
        const auto defaults = default_links_of(gpu);
        line += " (the " + std::string(defaults.server) + " default" +
                (defaults.why.empty() ? "" : ": " + std::string(defaults.why)) + ")";
    }
    return line;
}

// GPUs in each node for `total` GPUs: --gpus-per-node, or all of them when fewer
// (part of one node). The error names `what` when they do not fill whole nodes.
inline long long gpus_in_each_node(const std::string& what, long long total, const NodeOptions& o) {
    const long long per_node = std::min(total, o.gpus_per_node);
    if (total % per_node != 0)
        reject(what, count(total),
                       "must fill whole nodes of --gpus-per-node = " + std::to_string(o.gpus_per_node));
    return per_node;
}

// --- the lesson's inference setup -------------------------------------------------
struct SetupOptions {
    InferenceSetup setup = lesson_setup;
    double context_tokens = in(lesson_setup.context, units::token);
    double working_tokens = in(lesson_setup.working_tokens, units::token);
    double overhead_gib = in(lesson_setup.working_allowance, units::GiB);
    std::optional<std::string> overhead;  // with its unit: 1GiB
};

inline void add_setup_options(CLI::App* sub, SetupOptions& o) {
    sub->add_option("--context-tokens", o.context_tokens, "tokens of the chat whose KV cache must fit (8192)");
    sub->add_option("--working-tokens", o.working_tokens, "tokens of working memory (2048)");
    sub->add_option("--overhead", o.overhead, "fixed working-memory allowance with its unit (1GiB)");
    sub->add_option("--overhead-gib", o.overhead_gib, "--overhead in GiB (1)");
}

inline InferenceSetup resolve_setup(SetupOptions o) {
    if (o.overhead) o.overhead_gib = in(io::parse_bytes("--overhead", *o.overhead), units::GiB);
    require_non_negative("--context-tokens", o.context_tokens);
    require_non_negative("--working-tokens", o.working_tokens);
    // The bounds of checked.hpp's limits: a sequence, and the tokens of a step.
    require_in_range("--context-tokens", o.context_tokens, 0.0, static_cast<double>(limits::sequence),
                     "must be at most 2^40 = " + std::to_string(limits::sequence) + " tokens");
    require_in_range("--working-tokens", o.working_tokens, 0.0, static_cast<double>(limits::tokens),
                     "must be at most 2^53 = " + std::to_string(limits::tokens) + " tokens");
    require_non_negative("--overhead-gib", o.overhead_gib);
    InferenceSetup setup = o.setup;
    setup.context = tokens(o.context_tokens);
    setup.working_tokens = tokens(o.working_tokens);
    setup.working_allowance = gibibytes(o.overhead_gib);
    return setup;
}

// A whole number a flag holds as text (beside a word it also takes, as
// --concurrency max): the errors of a whole-number flag, one line each.
inline long long whole_number(const std::string& flag, const std::string& text) {
    long long value = 0;
    const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(first, last, value);
    const bool digits = first != last && std::all_of(text.front() == '-' || text.front() == '+' ? text.begin() + 1
                                                                                               : text.begin(),
                                                     text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ec == std::errc::result_out_of_range && digits)
        reject(flag, text, text.front() == '-' ? "too small a whole number" : "too large a whole number");
    if (ec != std::errc{} || end != last || !digits) reject(flag, text, "not a whole number");
    return value;
}

// --- sizes -----------------------------------------------------------------------
// A size with an optional unit: 4096, 1KB, 1.5 MiB, 280GB (decimal KB/MB/GB/TB,
// binary KiB/MiB/GiB/TiB, B, bits Gb). The error names the flag and the text.
inline Bytes parse_size(const std::string& flag, const std::string& text) { return io::parse_bytes(flag, text); }

// --- everything the inference split needs, as one bundle ---------------------------
struct InferenceOptions {
    ModelOptions model;
    GpuOptions gpu;
    LinkOptions link;
    SetupOptions setup;
};

inline void add_inference_options(CLI::App* sub, InferenceOptions& o) {
    add_model_options(sub, o.model);
    add_gpu_options(sub, o.gpu);
    add_link_options(sub, o.link);
    add_setup_options(sub, o.setup);
}

struct InferenceInputs {
    TransformerShape model;
    Gpu gpu;
    Link link;
    Ring ring;
    InferenceSetup setup;
};

inline InferenceInputs resolve_inference(const InferenceOptions& o) {
    return {resolve_model(o.model), resolve_gpu(o.gpu), resolve_link(o.link), resolve_ring(o.link),
            resolve_setup(o.setup)};
}

// --- output ------------------------------------------------------------------------
// JSON through the one serializer (io/json.hpp): keys and number types as the
// lesson pages' bindings write them.
// Every document carries "schema": "napkin.<command>/1" (io/json.hpp).
// --json, as every command spells it: the output as one JSON document, quantities in SI base units.
inline void add_json_flag(CLI::App* sub, bool& json) {
    sub->add_flag("--json", json, "machine-readable output: one JSON document, bytes in B and times in s");
}

inline void print_json(nlohmann::json j) {
    if (j.is_object() && !j.contains("schema") && !current_command().empty())
        j["schema"] = io::json::schema(current_command());
    std::cout << j.dump(2) << "\n";
}

// Whole byte counts print as integers (37508222976, not 37508222976.0).
inline nlohmann::json json_bytes(Bytes b) { return io::json::exact_bytes(b); }

inline nlohmann::json training_memory_json(const TrainingEstimate& e, const Gpu& gpu) {
    return io::json::training_memory(e, gpu);
}
// The same under "memory_bytes": the key names the unit.
inline nlohmann::json training_memory_bytes_json(const TrainingEstimate& e, const Gpu& gpu) {
    return io::json::training_memory(e, gpu);
}

inline nlohmann::json step_breakdown_json(const StepBreakdown& b) { return io::json::step_breakdown(b); }

inline nlohmann::json layout_json(const Parallelism& par) { return io::json::layout(par); }

// A link with the convention of its bandwidth (catalog::bandwidth_convention).
inline nlohmann::json link_json(const Link& l) {
    nlohmann::json j = io::json::link(l);
    j["bandwidth_convention"] = catalog::bandwidth_convention(l.name);
    return j;
}

// Human output: thousands separators on counts ("1,024"), and lines of at
// most 80 columns (wrap_line breaks after a comma or space, indenting by 4).
inline std::string grouped(long long n) {
    std::string digits = std::to_string(n < 0 ? -n : n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}
inline std::string grouped(double n) { return grouped(static_cast<long long>(std::llround(n))); }

inline std::size_t display_columns(std::string_view s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

inline std::string wrap_line(const std::string& line, std::size_t columns = 80) {
    const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
    std::string out, rest = line;
    while (display_columns(rest) > columns) {
        // Break after the last ", " that fits past the middle, else at the last space.
        std::size_t comma = std::string::npos, space = std::string::npos, seen = 0;
        for (std::size_t i = 0; i < rest.size(); ++i) {
            if ((static_cast<unsigned char>(rest[i]) & 0xC0U) != 0x80U) ++seen;
            if (seen > columns) break;
            // Never between a number and its unit ("59.25 GiB").
            if (rest[i] == ' ' && i > lead + 2 && !std::isdigit(static_cast<unsigned char>(rest[i - 1]))) {
                space = i;
                if (rest[i - 1] == ',') comma = i;
            }
        }
        const std::size_t cut = comma != std::string::npos && comma > columns / 2 ? comma : space;
        if (cut == std::string::npos) break;
        out += rest.substr(0, cut) + "\n";
        rest = std::string(lead + 2, ' ') + rest.substr(rest.find_first_not_of(' ', cut));
    }
    return out + rest;
}

// printf, each line wrapped to 80 columns (wrap_line).
__attribute__((format(printf, 1, 2))) inline void printf_wrapped(const char* format, ...) {
    std::va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    const int size = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string text(static_cast<std::size_t>(std::max(size, 0)) + 1, '\0');
    std::vsnprintf(text.data(), text.size(), format, again);
    va_end(again);
    text.resize(static_cast<std::size_t>(std::max(size, 0)));
    std::istringstream lines(text);
    std::string out;
    for (std::string line; std::getline(lines, line);) out += wrap_line(line) + "\n";
    if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
    std::fputs(out.c_str(), stdout);
}

}  // namespace napkin::cli
