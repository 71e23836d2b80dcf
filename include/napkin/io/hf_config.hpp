// SPDX-License-Identifier: MIT
// napkin/io/hf_config.hpp — a Hugging Face config.json as a TransformerShape.
//
// Reads the Llama family (LlamaForCausalLM and the many models with the same
// keys: hidden_size, intermediate_size, num_attention_heads, ...), Mixtral-style
// mixtures of experts (num_local_experts, num_experts_per_tok) and GPT-2
// (n_embd, n_layer, n_head). A missing or malformed field is an error naming the
// field and the file.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/model.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

namespace napkin::io {

// A shape read from a file owns the name its `shape.name` points at.
struct LoadedModel {
    std::unique_ptr<std::string> name;
    TransformerShape shape;
};

namespace detail {
// At most `limit` printable ASCII characters of `text` (others as '?'), "..."
// when cut: what an error message may echo of a file.
inline std::string printable(std::string_view text, std::size_t limit = 80) {
    std::string out;
    for (const char c : text) {
        if (out.size() == limit) return out + "...";
        out += c >= 0x20 && c < 0x7f ? c : '?';
    }
    return out;
}

// A JSON value as an error message echoes it: compact, cut to 80 characters.
// (dump() recurses into nested values; the reader rejects nesting deeper than
// max_json_depth first, so it cannot exhaust the stack.)
inline std::string echo(const nlohmann::json& value) {
    return printable(value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
}

// config.json files nest two or three levels; a value nested deeper than this
// is rejected before it is parsed (nothing napkin reads is that deep, and the
// stack holds it whatever the input).
inline constexpr int max_json_depth = 64;

// The deepest [ or { nesting of a JSON text, strings skipped.
inline int json_depth(std::string_view text) {
    int depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
        else if ((c == ']' || c == '}') && depth > 0) --depth;
    }
    return deepest;
}

class ConfigFields {
public:
    ConfigFields(const nlohmann::json& json, std::string origin) : json_(json), origin_(std::move(origin)) {}

    [[nodiscard]] bool has(const char* field) const { return json_.contains(field) && !json_[field].is_null(); }

    // A whole number in [1, bound].
    [[nodiscard]] long long count(const char* field, long long bound) const {
        if (!has(field)) fail(field, "is missing (a required field)");
        const auto& value = json_[field];
        if (value.is_number_unsigned() && value.get<unsigned long long>() > static_cast<unsigned long long>(bound))
            fail(field, "must be at most " + std::to_string(bound) + ", not " + echo(value));
        if (!value.is_number_integer() || value.get<long long>() < 1)
            fail(field, "must be a positive whole number, not " + echo(value));
        if (value.get<long long>() > bound)
            fail(field, "must be at most " + std::to_string(bound) + ", not " + echo(value));
        return value.get<long long>();
    }
    [[nodiscard]] long long count_or(const char* field, long long fallback, long long bound) const {
        return has(field) ? count(field, bound) : fallback;
    }
    [[nodiscard]] bool flag_or(const char* field, bool fallback) const {
        if (!has(field)) return fallback;
        if (!json_[field].is_boolean()) fail(field, "must be true or false, not " + echo(json_[field]));
        return json_[field].get<bool>();
    }
    [[noreturn]] void fail(const char* field, const std::string& what) const {
        throw napkin::invalid_argument(origin_ + ": field \"" + field + "\" " + what);
    }

private:
    const nlohmann::json& json_;
    std::string origin_;
};

// nlohmann's message without its "[json.exception.parse_error.101] " tag, cut.
inline std::string json_error_text(const nlohmann::json::exception& e) {
    std::string_view text = e.what();
    if (const auto end = text.find("] "); !text.empty() && text.front() == '[' && end != std::string_view::npos)
        text.remove_prefix(end + 2);
    return printable(text, 120);
}
}  // namespace detail

// Parses the text of a config.json; `origin` names it in error messages.
// Every error, whatever the text, is a napkin::invalid_argument naming the
// origin (and the field, where there is one), echoing at most ~80 printable
// characters of the input.
[[nodiscard]] inline LoadedModel parse_hf_config(const std::string& text, const std::string& origin,
                                                 const std::string& name = "") {
    if (detail::json_depth(text) > detail::max_json_depth)
        throw napkin::invalid_argument(origin + ": not a config.json (values nested deeper than " +
                                       std::to_string(detail::max_json_depth) + " levels)");
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers beyond a double (1e400)
        throw napkin::invalid_argument(origin + ": not valid JSON (" + detail::json_error_text(e) + ")");
    }
    if (!json.is_object()) throw napkin::invalid_argument(origin + ": not a JSON object");
    const detail::ConfigFields f(json, origin);

    LoadedModel loaded{std::make_unique<std::string>(name.empty() ? origin : name), {}};
    TransformerShape& m = loaded.shape;
    m.name = *loaded.name;
    if (f.has("n_embd")) {  // GPT-2 (transformers' GPT2Config)
        m.hidden = f.count("n_embd", limits::width);
        m.layers = f.count("n_layer", limits::layers);
        m.heads = f.count("n_head", limits::heads);
        m.kv_heads = m.heads;
        m.ffn = f.count_or("n_inner", 4 * m.hidden, limits::width);
        m.vocabulary = f.count("vocab_size", limits::vocabulary);
        m.learned_positions = f.count("n_positions", limits::vocabulary);
        m.tied_embeddings = f.flag_or("tie_word_embeddings", true);
        m.feed_forward = FeedForward::plain;
        m.biases = true;
    } else {  // the Llama family
        for (const char* unsupported : {"n_routed_experts", "num_experts", "moe_intermediate_size"})
            if (f.has(unsupported))
                f.fail(unsupported, "describes a mixture of experts napkin does not read yet "
                                    "(Mixtral's num_local_experts is read)");
        m.hidden = f.count("hidden_size", limits::width);
        m.layers = f.count("num_hidden_layers", limits::layers);
        m.heads = f.count("num_attention_heads", limits::heads);
        m.kv_heads = f.count_or("num_key_value_heads", m.heads, limits::heads);
        m.head_dim = f.count_or("head_dim", 0, limits::width);
        m.ffn = f.count("intermediate_size", limits::width);
        m.vocabulary = f.count("vocab_size", limits::vocabulary);
        m.tied_embeddings = f.flag_or("tie_word_embeddings", false);
        if (f.has("num_local_experts")) {  // Mixtral
            m.experts = f.count("num_local_experts", limits::experts);
            m.experts_per_token = f.count("num_experts_per_tok", limits::experts);
            m.expert_ffn = m.ffn;
        }
    }
    if (m.heads % m.kv_heads != 0)
        f.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(m.heads) + "), not " +
                                          std::to_string(m.kv_heads));
    try {
        (void)validated(m);
    } catch (const napkin::invalid_argument& e) {
        throw napkin::invalid_argument(origin + ": " + e.what());
    }
    return loaded;
}

// Reads a config file. A Hugging Face model folder's config.json names the
// model after its folder (Meta-Llama-3.1-70B/config.json: "Meta-Llama-3.1-70B");
// any other file after itself (mixtral_8x7b_config.json: "mixtral_8x7b_config").
[[nodiscard]] inline LoadedModel read_hf_config(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw napkin::invalid_argument("config file \"" + path.string() + "\" cannot be opened");
    std::stringstream text;
    text << in.rdbuf();
    const auto parent = path.parent_path().filename().string();
    const bool in_model_folder = path.filename() == "config.json" && !parent.empty();
    return parse_hf_config(text.str(), path.string(), in_model_folder ? parent : path.stem().string());
}

}  // namespace napkin::io
