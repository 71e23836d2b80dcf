// Options shared by the napkin command's subcommands: a model by catalog name
// or config.json path, a GPU and a link by catalog name or given inline, and
// the lesson's inference setup.
#pragma once

#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/training.hpp>
#include <napkin/io/hf_config.hpp>
#include <napkin/io/quantity_parse.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <iostream>
#include <optional>
#include <string>

namespace napkin::cli {

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
    throw napkin::invalid_argument("--model \"" + o.spec +
                                   "\": not a catalog model (napkin list) nor a path to a config.json");
}

// --- the GPU -------------------------------------------------------------------
struct GpuOptions {
    std::string name;
    std::optional<double> memory_gib, usable, bandwidth_gbps, tflops;
};

inline void add_gpu_options(CLI::App* sub, GpuOptions& o) {
    sub->add_option("--gpu", o.name, "catalog GPU (napkin list); or give all of --gpu-memory-gib, "
                                     "--gpu-bandwidth-gbps and --gpu-tflops");
    sub->add_option("--gpu-memory-gib", o.memory_gib, "memory per GPU in GiB (overrides the catalog)");
    sub->add_option("--gpu-usable", o.usable, "usable share of the memory, in (0, 1] (default 0.92)");
    sub->add_option("--gpu-bandwidth-gbps", o.bandwidth_gbps, "memory bandwidth in GB/s");
    sub->add_option("--gpu-tflops", o.tflops, "peak dense 16-bit TFLOP/s");
}

inline Gpu resolve_gpu(const GpuOptions& o) {
    Gpu gpu{.name = "inline", .memory = {}, .usable_fraction = catalog::default_usable_fraction,
            .memory_bandwidth = {}, .peak_flops = {}};
    if (!o.name.empty()) {
        auto found = catalog::find_gpu(o.name);
        if (!found) throw napkin::invalid_argument("--gpu \"" + o.name + "\": not in the catalog (napkin list)");
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
    require_positive("--gpu-memory-gib", in(gpu.memory, units::GiB));
    require(gpu.usable_fraction > 0 && gpu.usable_fraction <= 1, "--gpu-usable", gpu.usable_fraction,
                    "must be in (0, 1]");
    require_positive("--gpu-bandwidth-gbps", in(gpu.memory_bandwidth, units::GBps));
    require_positive("--gpu-tflops", in(gpu.peak_flops, units::TFLOPps));
    return gpu;
}

// --- the link ------------------------------------------------------------------
struct LinkOptions {
    std::string name;
    std::optional<double> bandwidth_gbps, step_us;
    double base_latency_us = in(catalog::nccl_ring_ll_base_latency, units::us);
};

inline void add_link_options(CLI::App* sub, LinkOptions& o) {
    sub->add_option("--link", o.name, "catalog link (napkin list); or give --link-bandwidth-gbps and --link-step-us");
    sub->add_option("--link-bandwidth-gbps", o.bandwidth_gbps, "link bandwidth in GB/s");
    sub->add_option("--link-step-us", o.step_us, "latency of one collective step in microseconds");
    sub->add_option("--base-latency-us", o.base_latency_us,
                    "latency paid once per collective call in microseconds (default: NCCL ring LL, 6.6)");
}

inline Link resolve_link(const LinkOptions& o) {
    Link link{.name = "inline", .bandwidth = {}, .step_latency = {}};
    if (!o.name.empty()) {
        auto found = catalog::find_link(o.name);
        if (!found) throw napkin::invalid_argument("--link \"" + o.name + "\": not in the catalog (napkin list)");
        link = *found;
    } else {
        if (!o.bandwidth_gbps)
            throw napkin::invalid_argument("--link is not given, so --link-bandwidth-gbps is required");
        if (!o.step_us) throw napkin::invalid_argument("--link is not given, so --link-step-us is required");
    }
    if (o.bandwidth_gbps) link.bandwidth = gigabytes_per_second(*o.bandwidth_gbps);
    if (o.step_us) link.step_latency = microseconds(*o.step_us);
    require_positive("--link-bandwidth-gbps", in(link.bandwidth, units::GBps));
    require_non_negative("--link-step-us", in(link.step_latency, units::us));
    require_non_negative("--base-latency-us", o.base_latency_us);
    return link;
}

inline Ring resolve_ring(const LinkOptions& o) { return Ring{microseconds(o.base_latency_us)}; }

// --- the nodes of a training cluster (train, plan) ----------------------------------
struct NodeOptions {
    long long gpus_per_node = 8;
    std::string intra = "nvlink3", inter = "ib-hdr";
};

inline void add_node_options(CLI::App* sub, NodeOptions& o, const std::string& inter_help) {
    sub->add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node (8)");
    sub->add_option("--intra-link", o.intra, "catalog link inside a node (nvlink3)");
    sub->add_option("--inter-link", o.inter, inter_help);
}

inline Link resolve_catalog_link(const std::string& flag, const std::string& name) {
    auto link = catalog::find_link(name);
    if (!link) throw napkin::invalid_argument(flag + " \"" + name + "\": not in the catalog (napkin list)");
    return *link;
}

// A node of `gpus` GPUs of the chosen kind with the --intra-link and --inter-link.
inline Node resolve_node(const GpuOptions& gpu, const NodeOptions& o, long long gpus, Nic nic) {
    return Node{.name = "node", .gpu = resolve_gpu(gpu), .gpus = gpus,
                .intra = resolve_catalog_link("--intra-link", o.intra),
                .inter = resolve_catalog_link("--inter-link", o.inter), .nic = nic};
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
};

inline void add_setup_options(CLI::App* sub, SetupOptions& o) {
    sub->add_option("--context-tokens", o.context_tokens, "tokens of the chat whose KV cache must fit (8192)");
    sub->add_option("--working-tokens", o.working_tokens, "tokens of working memory (2048)");
    sub->add_option("--overhead-gib", o.overhead_gib, "fixed working-memory allowance in GiB (1)");
}

inline InferenceSetup resolve_setup(const SetupOptions& o) {
    require_non_negative("--context-tokens", o.context_tokens);
    require_non_negative("--working-tokens", o.working_tokens);
    require_non_negative("--overhead-gib", o.overhead_gib);
    InferenceSetup setup = o.setup;
    setup.context = tokens(o.context_tokens);
    setup.working_tokens = tokens(o.working_tokens);
    setup.working_allowance = gibibytes(o.overhead_gib);
    return setup;
}

// --- sizes -----------------------------------------------------------------------
// A size with an optional unit: 4096, 1KB, 1.5 MiB, 280GB (decimal KB/MB/GB/TB,
// binary KiB/MiB/GiB/TiB, B, bits Gb). The error names the flag and the text.
inline Bytes parse_size(const std::string& flag, const std::string& text) { return io::parse_bytes(flag, text); }

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
inline void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

// Whole byte counts print as integers (37508222976, not 37508222976.0).
inline nlohmann::json json_bytes(Bytes b) {
    const double v = b.value();
    if (v == static_cast<double>(static_cast<long long>(v))) return static_cast<long long>(v);
    return v;
}

// A training estimate's memory per GPU and step breakdown (train, plan), in
// bytes and seconds.
inline nlohmann::json training_memory_json(const TrainingEstimate& e, const Gpu& gpu) {
    return {{"weights", e.memory.weights.value()},
            {"gradients", e.memory.gradients.value()},
            {"optimizer", e.memory.optimizer.value()},
            {"activations", e.memory.activations.value()},
            {"total", e.memory.total().value()},
            {"usable", usable_memory(gpu).value()},
            {"fits", e.fits}};
}

inline nlohmann::json step_breakdown_json(const StepBreakdown& b) {
    return {{"compute", b.compute.value()}, {"recompute", b.recompute.value()}, {"tp", b.tp.value()},
            {"pp", b.pp.value()},           {"bubble", b.bubble.value()},       {"dp", b.dp.value()},
            {"ep", b.ep.value()},           {"cp", b.cp.value()},               {"optimizer", b.optimizer.value()}};
}

}  // namespace napkin::cli
