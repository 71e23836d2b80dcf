// The lesson pages' arithmetic: napkin compiled to WebAssembly.
//
// A small C interface the loader (napkin.js) calls through emscripten's ccall.
// Every function takes plain numbers and strings and returns a JSON text with
// the same keys and units (bytes, seconds) as the matching `napkin ... --json`
// command, so a page shows exactly what the library computes and a test can
// compare the two. Bad input comes back as {"error": "<message naming the
// argument and its value>"} instead of an exception crossing into JavaScript.
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>
#include <napkin/io/hf_config.hpp>

#include <nlohmann/json.hpp>

#include <emscripten/emscripten.h>

#include <exception>
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

template <class Compute>
const char* answer(Compute compute) {
    try {
        reply() = compute().dump();
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
    napkin::detail::reject("model", name, "not a catalog model");
}

napkin::Gpu find_gpu(std::string_view name) {
    if (auto found = napkin::catalog::find_gpu(name)) return *found;
    napkin::detail::reject("gpu", name, "not a catalog GPU");
}

napkin::Link find_link(std::string_view name) {
    if (auto found = napkin::catalog::find_link(name)) return *found;
    napkin::detail::reject("link", name, "not a catalog link");
}

napkin::Split parse_split(std::string_view text) {
    if (text == "tensor") return napkin::Split::tensor;
    if (text == "pipeline") return napkin::Split::pipeline;
    napkin::detail::reject("split", text, "must be tensor or pipeline");
}

json shape_json(const napkin::TransformerShape& m) {
    return {{"name", m.name},   {"parameters", napkin::parameter_count(m)},
            {"layers", m.layers}, {"hidden", m.hidden},
            {"heads", m.heads},   {"kv_heads", m.kv_heads}};
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
        const napkin::TokenTime t = napkin::token_time(m, g, l, {gpus, parse_split(split), tokens});
        return json{{"gpus", gpus},
                    {"fits", memory.total() <= napkin::usable_memory(g)},
                    {"memory",
                     {{"weights", in(memory.weights, B)},
                      {"kv_cache", in(memory.kv_cache, B)},
                      {"working", in(memory.working, B)},
                      {"total", in(memory.total(), B)},
                      {"usable", in(napkin::usable_memory(g), B)}}},
                    {"read_s", in(t.read, s)},
                    {"transfer_s", in(t.transfer, s)},
                    {"total_s", in(t.total(), s)},
                    {"waiting_share", t.waiting_share()},
                    {"user_tokens_per_s", in(t.user_tokens_per_second(), tokens_per_s)}};
    });
}

}  // extern "C"
