// The lesson pages' arithmetic: napkin compiled to WebAssembly.
//
// A small C interface the loader (napkin.js) calls through emscripten's ccall.
// Every function takes plain numbers and strings and returns a JSON text with
// the same keys and units (bytes, seconds) as the matching `napkin ... --json`
// command, so a page shows exactly what the library computes and a test can
// compare the two. Bad input comes back as {"error": "<message naming the
// argument and its value>", "field": the library's name, "input": the option
// or argument that set it} instead of an exception crossing into JavaScript.
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/collectives.hpp>
#include <napkin/inference.hpp>
#include <napkin/io/hf_config.hpp>
#include <napkin/io/json.hpp>

#include <nlohmann/json.hpp>

#if defined(__EMSCRIPTEN__)
#include <emscripten/emscripten.h>
#else
#define EMSCRIPTEN_KEEPALIVE  // a native build (tests/unit/web_bindings.cpp) exports nothing
#endif

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace {

using nlohmann::json;
using napkin::in;
using napkin::units::B;
using napkin::units::Bps;
using napkin::units::s;
using napkin::units::tokens_per_s;

// The text handed back to JavaScript; valid until the next call.
std::string& reply() {
    static std::string text;
    return text;
}

// The library's field in the pages' spelling: the option key or argument that
// set it ("tokens_in_flight" → "tokens"); a name the bindings check themselves
// is already the key. "" where no one input sets it (a product, a file).
std::string page_input(const std::string& field) {
    static const std::map<std::string, std::string, std::less<>> spelled{
        {"tokens_in_flight", "tokens"},
        {"TensorPipelineSplit.tokens_in_flight", "tokens"},
        {"ranks", "gpus"},
        {"message", "bytes"},
        {"HierarchicalTopology.nodes", "gpus"},
        {"Link.bandwidth", "bandwidth_gbps"},
        {"Link.step_latency", "latency_us"},
    };
    if (const auto found = spelled.find(field); found != spelled.end()) return found->second;
    const bool key = !field.empty() && std::all_of(field.begin(), field.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    return key ? field : "";
}

template <class Compute>
const char* answer(Compute compute) {
    try {
        reply() = compute().dump();
    } catch (const napkin::invalid_argument& e) {
        // The message, and as data the library's field and the page's input that set it.
        reply() = json{{"error", e.what()}, {"field", e.field()}, {"input", page_input(e.field())}}.dump();
    } catch (const std::exception& e) {
        reply() = json{{"error", e.what()}}.dump();
    }
    return reply().c_str();
}

// The model a reader pasted as config.json, under the name "custom".
std::optional<napkin::io::LoadedModel>& custom_model() {
    static std::optional<napkin::io::LoadedModel> model;
    return model;
}

napkin::TransformerShape find_model(std::string_view name) {
    if (name == "custom") {
        if (!custom_model()) throw napkin::invalid_argument("model = \"custom\": no config.json has been loaded");
        return custom_model()->shape;
    }
    if (auto found = napkin::catalog::find_model(name)) return *found;
    napkin::reject("model", name, "not a catalog model");
}

napkin::Gpu find_gpu(std::string_view name) {
    if (auto found = napkin::catalog::find_gpu(name)) return *found;
    napkin::reject("gpu", name, "not a catalog GPU");
}

napkin::Link find_link(std::string_view name) {
    if (auto found = napkin::catalog::find_link(name)) return *found;
    napkin::reject("link", name, "not a catalog link");
}

napkin::Split split_named(std::string_view text) {
    if (const std::optional<napkin::Split> split = napkin::parse_split(text)) return *split;
    napkin::reject("split", text, "must be " + napkin::names_of(napkin::split_names));
}

// The records are io/json.hpp's, as the napkin command writes them.
json shape_json(const napkin::TransformerShape& m) { return napkin::io::json::model(m); }

// Options of the collective calls, named as the JSON keys (and the CLI flags
// with _ for -): a missing required one or a bad value is an error naming it.
class Options {
public:
    explicit Options(const char* text) : json_(json::parse(text)) {
        if (!json_.is_object()) throw napkin::invalid_argument("options: not a JSON object");
    }
    [[nodiscard]] bool has(const char* key) const { return json_.contains(key) && !json_[key].is_null(); }
    [[nodiscard]] double number(const char* key) const {
        if (!has(key)) throw napkin::invalid_argument(std::string(key) + " is required");
        if (!json_[key].is_number()) napkin::reject(key, json_[key].dump(), "must be a number");
        return json_[key].get<double>();
    }
    [[nodiscard]] double number_or(const char* key, double fallback) const { return has(key) ? number(key) : fallback; }
    [[nodiscard]] long long whole(const char* key) const {
        const double v = number(key);
        napkin::require(v == static_cast<double>(static_cast<long long>(v)), key, v, "must be a whole number");
        return static_cast<long long>(v);
    }
    [[nodiscard]] std::string text_or(const char* key, const char* fallback) const {
        if (!has(key)) return fallback;
        if (!json_[key].is_string()) napkin::reject(key, json_[key].dump(), "must be a string");
        return json_[key].get<std::string>();
    }

private:
    json json_;
};

// A link given as GB/s and µs, checked as the CLI checks --bandwidth-gbps and --latency-us.
napkin::Link link_from(const Options& o, const char* bandwidth_key, const char* latency_key) {
    const double bandwidth = o.number(bandwidth_key);
    const double latency = o.number(latency_key);
    napkin::require_positive(bandwidth_key, bandwidth);
    napkin::require_non_negative(latency_key, latency);
    return {"link", napkin::gigabytes_per_second(bandwidth), napkin::microseconds(latency)};
}

// NVLink inside a node and a network between nodes: `gpus` split into nodes of
// `gpus_per_node`, the inter-node link defaulting to the flat one.
napkin::HierarchicalTopology topology_from(const Options& o, long long gpus) {
    const long long g = o.whole("gpus_per_node");
    napkin::require_at_least_one("gpus_per_node", g);
    if (gpus % g != 0)
        napkin::reject("gpus_per_node", static_cast<double>(g), "must divide gpus = " + std::to_string(gpus));
    const napkin::Link intra = link_from(o, "intra_bandwidth_gbps", "intra_latency_us");
    const napkin::Link inter = link_from(o, o.has("inter_bandwidth_gbps") ? "inter_bandwidth_gbps" : "bandwidth_gbps",
                                         o.has("inter_latency_us") ? "inter_latency_us" : "latency_us");
    const double r = o.number_or("oversubscription", 1.0);
    napkin::require(r >= 1.0, "oversubscription", r, "must be at least 1");
    const std::string nic = o.text_or("nic", "per-gpu");
    if (nic != "per-gpu" && nic != "shared") napkin::reject("nic", nic, "must be per-gpu or shared");
    return {gpus / g, g, intra, inter, nic == "shared" ? napkin::Nic::per_node : napkin::Nic::per_gpu, r};
}

}  // namespace

extern "C" {

// The catalog entries a page may name: {"models": [...], "gpus": [...], "links": [...]}.
EMSCRIPTEN_KEEPALIVE const char* napkin_web_catalog() {
    return answer([] {
        json j{{"models", json::array()}, {"gpus", json::array()}, {"links", json::array()}};
        for (const auto* m : napkin::catalog::models) j["models"].push_back(shape_json(*m));
        for (const auto* g : napkin::catalog::gpus)
            j["gpus"].push_back({{"name", g->name}, {"usable", in(napkin::usable_memory(*g), B)}});
        for (const auto* l : napkin::catalog::links)
            j["links"].push_back({{"name", l->name}, {"bandwidth", in(l->bandwidth, Bps)},
                                  {"step_latency", in(l->step_latency, s)}});
        return j;
    });
}

// Reads a pasted config.json (io/hf_config.hpp) and keeps it as model "custom".
EMSCRIPTEN_KEEPALIVE const char* napkin_web_load_config(const char* text) {
    return answer([text] {
        custom_model() = napkin::io::parse_hf_config(text, "config.json", "custom");
        return shape_json(custom_model()->shape);
    });
}

// One row of `napkin split --json`: `model` on `gpus` x `gpu` joined by `link`,
// split `split` ("tensor" or "pipeline"), `tokens` tokens in flight, with the
// lesson's setup and the lesson's collective (ring, NCCL LL base latency).
EMSCRIPTEN_KEEPALIVE const char* napkin_web_split(const char* model, const char* gpu, const char* link,
                                                  int gpus, const char* split, int tokens) {
    return answer([=] {
        const napkin::TransformerShape m = find_model(model);
        const napkin::Gpu g = find_gpu(gpu);
        const napkin::Link l = find_link(link);
        const napkin::InferenceMemory memory = napkin::memory_per_gpu(m, gpus);
        const napkin::TokenTime t = napkin::token_time(m, g, l, {gpus, split_named(split), tokens});
        return json{{"gpus", gpus},
                    {"fits", memory.total() <= napkin::usable_memory(g)},
                    {"memory", napkin::io::json::inference_memory(memory, g)},
                    {"read_s", in(t.read, s)},
                    {"transfer_s", in(t.transfer, s)},
                    {"total_s", in(t.total(), s)},
                    {"waiting_share", t.waiting_share()},
                    {"user_tokens_per_s", in(t.user_tokens_per_second(), tokens_per_s)}};
    });
}

// `napkin allreduce --json`: options {"algorithm": "ring" | "tree" | "hierarchical",
// "bytes", "gpus", "bandwidth_gbps", "latency_us", "base_latency_us" (0), and for
// the hierarchical algorithm "gpus_per_node", "intra_bandwidth_gbps",
// "intra_latency_us", "inter_bandwidth_gbps", "inter_latency_us" (default: the
// flat link), "oversubscription" (1), "nic" ("per-gpu" or "shared")}.
EMSCRIPTEN_KEEPALIVE const char* napkin_web_allreduce(const char* options) {
    return answer([options] {
        const Options o(options);
        const std::string algorithm = o.text_or("algorithm", "ring");
        const napkin::Bytes message = napkin::bytes(o.number("bytes"));
        const long long gpus = o.whole("gpus");
        napkin::require_at_least_one("gpus", gpus);
        const double base_us = o.number_or("base_latency_us", 0.0);
        napkin::require_non_negative("base_latency_us", base_us);
        const napkin::Seconds base = napkin::microseconds(base_us);
        json extra{{"algorithm", algorithm}};
        napkin::CollectiveTime t;
        if (algorithm == "ring") {
            t = napkin::ring_all_reduce(message, gpus, link_from(o, "bandwidth_gbps", "latency_us"), base);
        } else if (algorithm == "tree") {
            t = napkin::tree_all_reduce(message, gpus, link_from(o, "bandwidth_gbps", "latency_us"), base);
        } else if (algorithm == "hierarchical") {
            const napkin::HierarchicalTopology topology = topology_from(o, gpus);
            t = napkin::hierarchical_all_reduce(message, topology, base);
            extra.update({{"nodes", topology.nodes},
                          {"gpus_per_node", topology.gpus_per_node},
                          {"nic", napkin::to_string(topology.nic)},
                          {"oversubscription", topology.oversubscription}});
        } else {
            napkin::reject("algorithm", algorithm, "must be ring, tree or hierarchical");
        }
        json j = napkin::io::json::collective_time(message, gpus, t);
        j.update(extra);
        return j;
    });
}

// `napkin crossover --json`: the message size where ring and tree all-reduce
// cost the same, {"bytes": null} when the ring never loses.
// Options {"gpus", "bandwidth_gbps", "latency_us"}.
EMSCRIPTEN_KEEPALIVE const char* napkin_web_crossover(const char* options) {
    return answer([options] {
        const Options o(options);
        const long long gpus = o.whole("gpus");
        napkin::require_at_least_one("gpus", gpus);
        const auto m = napkin::ring_tree_crossover(gpus, link_from(o, "bandwidth_gbps", "latency_us"));
        return json{{"gpus", gpus}, {"bytes", napkin::io::json::optional_bytes(m)}};
    });
}

}  // extern "C"
