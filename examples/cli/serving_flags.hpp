// SPDX-License-Identifier: MIT
// The serving engine's flags that `napkin serve` and `napkin plan-inference`
// share, read once: --weight-dtype and --kv-dtype, each refusal naming the flag
// and, for a format the GPU cannot compute in, what its data sheet lacks; and
// the links: one --link for every GPU, or a node's links inside and between.
#pragma once

#include "common.hpp"

#include <napkin/catalog/clusters.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/names.hpp>
#include <napkin/serving.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <string>

namespace napkin::cli {

// The number formats of --weight-dtype and --kv-dtype for `gpu`, into `setup`.
inline void apply_serving_formats(ServingSetup& setup, const std::string& weight_dtype, const std::string& kv_dtype,
                                  const Gpu& gpu) {
    const auto weights = parse_weight_dtype(weight_dtype);
    if (!weights) reject("--weight-dtype", weight_dtype, "must be " + names_of(weight_dtype_names));
    const auto kv = parse_kv_dtype(kv_dtype);
    if (!kv) reject("--kv-dtype", kv_dtype, "must be " + names_of(kv_dtype_names));
    if (const std::string_view missing = missing_for(gpu, *weights); !missing.empty())
        reject("--weight-dtype", weight_dtype,
               std::string(gpu.name) + " has " + std::string(missing) + "; use " + computable_formats(gpu));
    setup.weights = *weights;
    setup.kv = *kv;
}

// --pipeline-micro-batches: stages, or how many micro-batches the pipeline keeps in
// flight (ServingSetup::pipeline_micro_batches; 1: the stages in turn).
inline void add_micro_batches_flag(CLI::App* sub, std::string& micro_batches) {
    sub->add_option("--pipeline-micro-batches", micro_batches,
                    "micro-batches in flight over the --pp stages, each in another stage at once, as vLLM and "
                    "TensorRT-LLM run them: stages (one per stage) or a count, at most the stages (1: the stages in "
                    "turn) (stages)");
}
// The setup's count for --pipeline-micro-batches: 0 (one per stage) for "stages"; `pp` is
// the --pp typed, or 0 when the stages are searched (any count is then capped at each layout's).
inline long long resolve_micro_batches(const std::string& text, long long pp) {
    if (text == "stages") return 0;
    const long long n = whole_number("--pipeline-micro-batches", text);
    require_at_least_one("--pipeline-micro-batches", n);
    if (pp > 0 && n > pp)
        reject("--pipeline-micro-batches", text,
               "must be at most --pp = " + std::to_string(pp) + " (a stage works on one micro-batch at a time)");
    return n;
}

// --expert-skew: the experts' popularity as a power law (ServingSetup::expert_skew).
inline void add_expert_skew_flag(CLI::App* sub, double& skew) {
    sub->add_option("--expert-skew", skew,
                    "MoE: the experts' popularity as a power law of this exponent, 0 to 10 (0: uniform routing); "
                    "fewer experts are read and the busiest expert-parallel rank sets the step");
}

// --decode-attention grouped|per-query-head (ServingSetup::grouped_decode_attention), for serve and plan-inference.
inline void add_decode_attention_flag(CLI::App* sub, std::string& value) {
    sub->add_option("--decode-attention", value,
                    "grouped: decode attention reads each KV head's cache once (a GQA-aware kernel: FlashInfer, "
                    "TensorRT-LLM's XQA); per-query-head: once per query head (a kernel without GQA support) "
                    "(grouped)");
}

// The setup reads the cache as --decode-attention says; any other spelling is refused by the flag's name.
inline void apply_decode_attention(ServingSetup& setup, const std::string& value) {
    if (value != "grouped" && value != "per-query-head")
        reject("--decode-attention", value, "must be grouped or per-query-head");
    setup.grouped_decode_attention = value == "grouped";
}

inline void apply_expert_skew(ServingSetup& setup, double skew, const TransformerShape& model) {
    require_in_range("--expert-skew", skew, 0.0, 10.0, "must be in [0, 10]");
    if (skew != 0.0 && model.experts == 0) reject("--expert-skew", skew, "needs a mixture-of-experts model");
    setup.expert_skew = skew;
}

// The flags of the node's links (add_node_options), any of which asks for a fabric of nodes.
inline constexpr std::array node_link_flags{"--gpus-per-node",        "--intra-link",           "--inter-link",
                                            "--intra-bandwidth",      "--intra-latency",        "--inter-bandwidth",
                                            "--inter-latency",        "--intra-link-bandwidth", "--intra-link-latency",
                                            "--inter-link-bandwidth", "--inter-link-latency",   "--intra-calibration",
                                            "--inter-calibration"};

// --gpus-per-node's help for the serving engine, whose default is the GPU's NVLink domain.
inline void describe_serving_node_size(CLI::App* sub) {
    sub->get_option("--gpus-per-node")
        ->description(
            "GPUs on one NVLink domain, the links inside it --intra-link (default: the GPU's: 8, or 72 "
            "on GB200 and GB300 NVL72)");
}

// The links of a serving layout: --link (or its inline twins) puts every GPU on
// that one link, as before nodes existed; otherwise nodes of --gpus-per-node
// GPUs (by default the GPU's NVLink domain) on --intra-link, joined by
// --inter-link, each defaulting to the GPU's usual server
// (catalog::default_links). Both at once are refused.
inline ServingFabric resolve_serving_fabric(const CLI::App* sub, const GpuOptions& gpu, LinkOptions& link,
                                            const NodeOptions& node) {
    const char* node_flag = nullptr;
    for (const char* flag : node_link_flags)
        if (node_flag == nullptr && sub->count(flag) > 0) node_flag = flag;
    if (link.given()) {
        if (node_flag != nullptr)
            reject(node_flag, sub->get_option(node_flag)->as<std::string>(),
                   "give --link (one link for every GPU) or the node's links, not both");
        return ServingFabric{resolve_link(link)};
    }
    require_count("--gpus-per-node", node.gpus_per_node, limits::gpus);
    (void)time_in_us(link.base_latency_us, link.base_latency, "--base-latency", "--base-latency-us");
    if (!link.base_latency) require_non_negative("--base-latency-us", link.base_us());
    // By default a node is the GPU's NVLink domain: 8, or a whole NVL72 rack.
    const long long per_node =
        sub->count("--gpus-per-node") > 0 ? node.gpus_per_node : default_links_of(gpu).nvlink_domain;
    const Node n = resolve_node(gpu, node, per_node, Nic::per_gpu);
    return ServingFabric{n.intra, network_link_per_gpu(n), per_node};
}

// "nvlink4" for a layout inside one node; "nvlink4 inside a node, ib-ndr
// between (8 GPUs a node)" for one that spans nodes.
inline std::string fabric_text(const ServingFabric& f, const ServingLayout& l) {
    if (!spans_nodes(l, f)) return std::string(f.intra.name);
    return std::string(f.intra.name) + " inside a node, " + std::string(f.inter.name) + " between (" +
           std::to_string(f.gpus_per_node) + " GPUs a node)";
}

// ", read per query head" after the KV cache's format when --decode-attention per-query-head asks for it.
inline const char* kv_reads_text(const ServingSetup& s) {
    return s.grouped_decode_attention ? "" : ", read per query head";
}

// "link": the link inside a node (every GPU's, with --link); with nodes also
// "inter_link" and "gpus_per_node".
inline void add_fabric_json(nlohmann::json& j, const ServingFabric& f) {
    j["link"] = f.intra.name;
    if (f.gpus_per_node == limits::gpus) return;
    j["inter_link"] = f.inter.name;
    j["gpus_per_node"] = f.gpus_per_node;
}

}  // namespace napkin::cli
