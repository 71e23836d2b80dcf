// SPDX-License-Identifier: MIT
// napkin/io/hf_config.hpp — a Hugging Face config.json as a TransformerShape.
//
// Reads the Llama family (LlamaForCausalLM and the many models with the same
// keys: hidden_size, intermediate_size, num_attention_heads, ...), Mixtral-style
// mixtures of experts (num_local_experts, num_experts_per_tok) and GPT-2
// (n_embd, n_layer, n_head). A missing or malformed field is an error naming the
// field and the file.
#pragma once

#include <napkin/error.hpp>
#include <napkin/model.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace napkin::io {

// A shape read from a file owns the name its `shape.name` points at.
struct LoadedModel {
    std::unique_ptr<std::string> name;
    TransformerShape shape;
};

namespace detail {
class ConfigFields {
public:
    ConfigFields(const nlohmann::json& json, std::string origin) : json_(json), origin_(std::move(origin)) {}

    [[nodiscard]] bool has(const char* field) const { return json_.contains(field) && !json_[field].is_null(); }

    [[nodiscard]] long long count(const char* field) const {
        if (!has(field)) fail(field, "is missing (a required field)");
        const auto& value = json_[field];
        if (!value.is_number_integer() || value.get<long long>() < 1)
            fail(field, "must be a positive whole number, not " + value.dump());
        return value.get<long long>();
    }
    [[nodiscard]] long long count_or(const char* field, long long fallback) const {
        return has(field) ? count(field) : fallback;
    }
    [[nodiscard]] bool flag_or(const char* field, bool fallback) const {
        if (!has(field)) return fallback;
        if (!json_[field].is_boolean()) fail(field, "must be true or false, not " + json_[field].dump());
        return json_[field].get<bool>();
    }
    [[noreturn]] void fail(const char* field, const std::string& what) const {
        throw napkin::invalid_argument(origin_ + ": field \"" + field + "\" " + what);
    }

private:
    const nlohmann::json& json_;
    std::string origin_;
};
}  // namespace detail

// Parses the text of a config.json; `origin` names it in error messages.
[[nodiscard]] inline LoadedModel parse_hf_config(const std::string& text, const std::string& origin,
                                                 const std::string& name = "") {
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw napkin::invalid_argument(origin + ": not valid JSON (" + e.what() + ")");
    }
    if (!json.is_object()) throw napkin::invalid_argument(origin + ": not a JSON object");
    const detail::ConfigFields f(json, origin);

    LoadedModel loaded{std::make_unique<std::string>(name.empty() ? origin : name), {}};
    TransformerShape& m = loaded.shape;
    m.name = *loaded.name;
    if (f.has("n_embd")) {  // GPT-2 (transformers' GPT2Config)
        m.hidden = f.count("n_embd");
        m.layers = f.count("n_layer");
        m.heads = f.count("n_head");
        m.kv_heads = m.heads;
        m.ffn = f.count_or("n_inner", 4 * m.hidden);
        m.vocabulary = f.count("vocab_size");
        m.learned_positions = f.count("n_positions");
        m.max_position_embeddings = m.learned_positions;
        m.tied_embeddings = f.flag_or("tie_word_embeddings", true);
        m.feed_forward = FeedForward::plain;
        m.biases = true;
    } else {  // the Llama family
        for (const char* unsupported : {"n_routed_experts", "num_experts", "moe_intermediate_size"})
            if (f.has(unsupported))
                f.fail(unsupported, "describes a mixture of experts napkin does not read yet "
                                    "(Mixtral's num_local_experts is read)");
        m.hidden = f.count("hidden_size");
        m.layers = f.count("num_hidden_layers");
        m.heads = f.count("num_attention_heads");
        m.kv_heads = f.count_or("num_key_value_heads", m.heads);
        m.head_dim = f.count_or("head_dim", 0);
        m.ffn = f.count("intermediate_size");
        m.vocabulary = f.count("vocab_size");
        m.tied_embeddings = f.flag_or("tie_word_embeddings", false);
        m.max_position_embeddings = f.count_or("max_position_embeddings", 0);
        if (f.has("num_local_experts")) {  // Mixtral
            m.experts = f.count("num_local_experts");
            m.experts_per_token = f.count("num_experts_per_tok");
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
