// SPDX-License-Identifier: MIT
// napkin/io/hf_config.hpp — a Hugging Face config.json as a TransformerShape.
//
// Reads the Llama family (LlamaForCausalLM and the many models with the same
// keys: hidden_size, intermediate_size, num_attention_heads, ...), Mixtral-style
// mixtures of experts (num_local_experts, num_experts_per_tok), DeepSeek-V2/V3
// (n_routed_experts, n_shared_experts, first_k_dense_replace, latent attention),
// Qwen2-MoE and Qwen3-MoE (num_experts, shared_expert_intermediate_size), GPT-2
// (n_embd, n_layer, n_head), and Gemma 2 and 3 (model_type gemma2, gemma3_text:
// four norms a layer, sliding-window attention; gemma3: the language model in
// text_config, a SigLIP vision tower in vision_config), gpt-oss (model_type
// gpt_oss: every layer a mixture of experts, sliding-window attention on the
// layers layer_types marks) and Llama 4 Scout (llama4: a shared expert beside
// the routed ones, chunked attention on three layers of four, a ViT vision
// tower; Maverick's MoE on every other layer), Kimi K2 (kimi_k2: DeepSeek-V3's
// keys) and GLM-4.5 (glm4_moe: DeepSeek's expert keys, biases on Q, K and V).
// A missing or malformed field is an error naming the field and the file; so
// is a model_type napkin does not model, and a field that would make it read
// the model wrongly (MoE layers in a pattern it does not model).
#pragma once

#include <napkin/io/text_file.hpp>
#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/model.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::io {

/// A shape read from a file owns the name its `shape.name` points at.
struct LoadedModel {
    std::unique_ptr<std::string> name;
    TransformerShape shape;
};

namespace detail {
using io::printable;

/// A JSON value as an error message echoes it: compact, cut to 80 characters.
/// (dump() recurses into nested values; the reader rejects nesting deeper than
/// max_json_depth first, so it cannot exhaust the stack.)
inline std::string echo(const nlohmann::json& value) {
    return printable(value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
}

/// config.json files nest two or three levels; a value nested deeper than
/// io::max_json_depth is rejected before it is parsed (text_file.hpp), so the
/// stack holds it whatever the input.
using io::json_depth;
using io::max_json_depth;

/// The architectures the reader models, by config.json's model_type
/// (transformers' names); a config without one is read as the Llama family.
inline constexpr std::array<std::string_view, 19> modelled_types{
    "gpt2",   "llama",  "mistral",     "mixtral",     "qwen2",       "qwen2_moe", "qwen3",
    "qwen3_moe", "phi3", "gemma2",     "gemma3",      "gemma3_text", "deepseek_v2", "deepseek_v3",
    "kimi_k2", "glm4_moe", "gpt_oss",  "llama4",      "llama4_text"};

inline std::string modelled_type_list() {
    std::string text;
    for (std::size_t i = 0; i < modelled_types.size(); ++i)
        text += (i == 0 ? "" : i + 1 == modelled_types.size() ? " or " : ", ") + std::string(modelled_types[i]);
    return text;
}

class ConfigFields {
public:
    // `prefix` names a nested object in messages ("text_config.").
    ConfigFields(const nlohmann::json& json, std::string origin, std::string prefix = "")
        : json_(json), origin_(std::move(origin)), prefix_(std::move(prefix)) {}

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
    // A whole number that may be 0 (first_k_dense_replace, n_shared_experts).
    [[nodiscard]] long long whole_or(const char* field, long long fallback) const {
        if (!has(field)) return fallback;
        const auto& value = json_[field];
        if (!value.is_number_integer() || (value.is_number_unsigned() && value.get<unsigned long long>() > (1ULL << 40)) ||
            value.get<long long>() < 0 || value.get<long long>() > (1LL << 40))
            fail(field, "must be a whole number in [0, 2^40], not " + echo(value));
        return value.get<long long>();
    }
    [[nodiscard]] std::string text_or(const char* field, const std::string& fallback) const {
        return has(field) && json_[field].is_string() ? json_[field].get<std::string>() : fallback;
    }
    [[nodiscard]] const nlohmann::json& at(const char* field) const { return json_[field]; }
    [[nodiscard]] bool flag_or(const char* field, bool fallback) const {
        if (!has(field)) return fallback;
        if (!json_[field].is_boolean()) fail(field, "must be true or false, not " + echo(json_[field]));
        return json_[field].get<bool>();
    }
    [[noreturn]] void fail(const char* field, const std::string& what) const {
        throw napkin::invalid_argument(origin_, "", "field \"" + prefix_ + field + "\" " + what);
    }

private:
    const nlohmann::json& json_;
    std::string origin_;
    std::string prefix_;
};

/// nlohmann's message without its "[json.exception.parse_error.101] " tag, cut.
inline std::string json_error_text(const nlohmann::json::exception& e) {
    std::string_view text = e.what();
    if (const auto end = text.find("] "); !text.empty() && text.front() == '[' && end != std::string_view::npos)
        text.remove_prefix(end + 2);
    return printable(text, 120);
}
}  // namespace detail

namespace detail {
/// The period p of a list that marks every p-th layer (1-based) `global_mark`
/// and every other layer not: Gemma 2's and gpt-oss's alternation (p = 2),
/// Llama 4's no_rope_layers (p = 4). Any other pattern is refused by name.
inline long long global_period(const ConfigFields& f, const char* field, long long layers, int global_mark) {
    const auto& list = f.at(field);
    if (!list.is_array() || static_cast<long long>(list.size()) != layers)
        f.fail(field, "must list every layer (" + std::to_string(layers) + " entries)");
    long long period = 0;
    for (long long i = 0; i < layers; ++i) {
        const auto& v = list[static_cast<std::size_t>(i)];
        const bool global = v.is_string() ? v.get<std::string>() == "full_attention"
                                          : v.is_number_integer() && v.get<long long>() == global_mark;
        if (global && period == 0) period = i + 1;
    }
    if (period == 0) period = layers + 1;  // none global: every layer local
    for (long long i = 0; i < layers; ++i) {
        const auto& v = list[static_cast<std::size_t>(i)];
        const bool global = v.is_string() ? v.get<std::string>() == "full_attention"
                                          : v.is_number_integer() && v.get<long long>() == global_mark;
        if (global != ((i + 1) % period == 0))
            f.fail(field, "must mark every p-th layer global and the rest local: napkin models no other pattern");
    }
    return period;
}

/// The MoE layers a config names, as TransformerShape's pattern: `dense_layers`
/// dense layers, then MoE on every `moe_every`-th (layers d + n, d + 2n, …,
/// counted from 1). `is_moe` answers for a layer counted from 0, as
/// transformers' configs count; a pattern of another shape is refused naming
/// `field`, never read as something else.
struct MoeLayerPattern {
    long long dense_layers = 0;
    long long moe_every = 1;
};
template <class IsMoe>
[[nodiscard]] MoeLayerPattern moe_layer_pattern(const ConfigFields& f, const char* field, long long layers,
                                                IsMoe is_moe) {
    long long first = 0, second = 0;  // the first two MoE layers, counted from 1
    for (long long i = 1; i <= layers && second == 0; ++i)
        if (is_moe(i - 1)) (first == 0 ? first : second) = i;
    if (first == 0) f.fail(field, "makes no layer MoE: napkin reads a model with experts as having MoE layers");
    const long long every = second == 0 ? first : second - first;
    const MoeLayerPattern pattern{first - every, every};
    bool same = pattern.dense_layers >= 0;
    for (long long i = 1; same && i <= layers; ++i)
        same = is_moe(i - 1) == (i > pattern.dense_layers && (i - pattern.dense_layers) % every == 0);
    if (!same)
        f.fail(field, "must make layers d + n, d + 2n, ... MoE after d dense ones (counted from 1): napkin models "
                      "no other pattern");
    return pattern;
}

/// A list of layers counted from 0 (Llama 4's moe_layers, Qwen's
/// mlp_only_layers) as one flag per layer.
inline std::vector<bool> listed_layers(const ConfigFields& f, const char* field, long long layers) {
    const auto& list = f.at(field);
    if (!list.is_array()) f.fail(field, "must be a list of layers counted from 0, not " + echo(list));
    std::vector<bool> listed(static_cast<std::size_t>(layers), false);
    for (const auto& v : list) {
        if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= layers)
            f.fail(field, "must list layers in [0, " + std::to_string(layers - 1) + "], not " + echo(v));
        listed[static_cast<std::size_t>(v.get<long long>())] = true;
    }
    return listed;
}
}  // namespace detail

/// layer_types (gpt-oss, newer transformers for any model): "sliding_attention"
/// or "full_attention" per layer. All full: no window; else a window of
/// sliding_window on all but every p-th layer.
inline void read_layer_types(const detail::ConfigFields& f, TransformerShape& m) {
    if (!f.has("layer_types")) return;
    const auto& list = f.at("layer_types");
    const bool any_sliding =
        list.is_array() && std::any_of(list.begin(), list.end(), [](const nlohmann::json& v) {
            return v.is_string() && v.get<std::string>() == "sliding_attention";
        });
    const long long period = detail::global_period(f, "layer_types", m.layers, 0);
    if (!any_sliding) return;
    m.sliding_window = f.count("sliding_window", limits::sequence);
    m.global_every = period > m.layers ? 0 : period;  // 0: every layer local
}

/// Parses the text of a config.json; `origin` names it in error messages.
/// Every error, whatever the text, is a napkin::invalid_argument naming the
/// origin (and the field, where there is one), echoing at most ~80 printable
/// characters of the input.
[[nodiscard]] inline LoadedModel parse_hf_config(const std::string& text, const std::string& origin,
                                                 const std::string& name = "") {
    if (detail::json_depth(text) > detail::max_json_depth)
        throw napkin::invalid_argument(origin, "", "not a config.json (values nested deeper than " +
                                                       std::to_string(detail::max_json_depth) + " levels)");
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers beyond a double (1e400)
        throw napkin::invalid_argument(origin, "", "not valid JSON (" + detail::json_error_text(e) + ")");
    }
    if (!json.is_object()) throw napkin::invalid_argument(origin, "", "not a JSON object");
    const detail::ConfigFields top(json, origin);
    // A multimodal model (Gemma 3 4B and up) keeps its language model in text_config.
    const bool nested = top.has("text_config");
    if (nested && !json["text_config"].is_object())
        top.fail("text_config", "must be an object, not " + detail::echo(json["text_config"]));
    const detail::ConfigFields f(nested ? json["text_config"] : json, origin, nested ? "text_config." : "");
    // An architecture napkin does not model is refused, not read as a Llama.
    for (const detail::ConfigFields* fields : {&top, &f}) {
        if (!fields->has("model_type")) continue;
        const auto& type = fields->at("model_type");
        if (!type.is_string() ||
            std::find(detail::modelled_types.begin(), detail::modelled_types.end(), type.get<std::string>()) ==
                detail::modelled_types.end())
            fields->fail("model_type", "= " + detail::echo(type) +
                                           ": not an architecture napkin models (it reads " +
                                           detail::modelled_type_list() + ")");
    }

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
        m.max_position_embeddings = m.learned_positions;
        m.tied_embeddings = f.flag_or("tie_word_embeddings", true);
        m.feed_forward = FeedForward::plain;
        m.biases = true;
    } else {  // the Llama family
        const std::string type = f.text_or("model_type", "");
        // Gemma 3's text_config leaves out what transformers' Gemma3TextConfig
        // supplies (the 4B's gives only widths, layers and the window): its
        // defaults, 8 heads, 4 KV heads of 256, vocabulary 262,208, 131,072
        // positions, tied embeddings (transformers 4.50, configuration_gemma3.py).
        const bool gemma3 = type == "gemma3_text";
        const bool gemma = gemma3 || type == "gemma2";
        const bool llama4 = type == "llama4_text";
        const auto required = [&](const char* field, long long gemma3_default, long long bound) {
            return gemma3 ? f.count_or(field, gemma3_default, bound) : f.count(field, bound);
        };
        m.hidden = f.count("hidden_size", limits::width);
        m.layers = f.count("num_hidden_layers", limits::layers);
        m.heads = required("num_attention_heads", 8, limits::heads);
        m.kv_heads = f.count_or("num_key_value_heads", gemma3 ? 4 : m.heads, limits::heads);
        m.head_dim = f.count_or("head_dim", gemma3 ? 256 : 0, limits::width);
        // Llama 4: intermediate_size is an expert's width, intermediate_size_mlp a dense layer's.
        m.ffn = llama4 ? f.count("intermediate_size_mlp", limits::width) : f.count("intermediate_size", limits::width);
        m.vocabulary = required("vocab_size", 262208, limits::vocabulary);
        m.tied_embeddings = f.flag_or("tie_word_embeddings", gemma);  // Gemma2Config, Gemma3TextConfig: tied
        // Qwen2 puts biases on Q, K and V (Qwen2 technical report Sec. 2.1); Qwen3 drops them and
        // normalises Q and K per head (Qwen3 technical report Sec. 2).
        // gpt-oss and GLM-4.5 (Glm4MoeAttention) put attention_bias on Q, K and V, not on the output.
        const bool qkv_attention_bias = type == "gpt_oss" || type == "glm4_moe";
        m.qkv_bias = type == "qwen2" || type == "qwen2_moe" || (qkv_attention_bias && f.flag_or("attention_bias", false));
        m.qk_norm = type == "qwen3" || type == "qwen3_moe" || gemma3 ||  // Gemma 3: arXiv 2503.19786 Sec. 2
                    (type == "glm4_moe" && f.flag_or("use_qk_norm", false));
        m.max_position_embeddings = f.count_or("max_position_embeddings", gemma3 ? 131072 : 0, limits::sequence);
        if (gemma) {
            // Four norms a layer; local layers of sliding_window positions, every
            // 2nd (Gemma 2: Gemma2DecoderLayer's is_sliding on even layers) or
            // sliding_window_pattern-th (Gemma 3: 6) layer global. Both
            // configurations default the window to 4,096.
            m.norms_per_layer = 4;
            m.sliding_window = f.count_or("sliding_window", 4096, limits::sequence);
            m.global_every = gemma3 ? f.count_or("sliding_window_pattern", 6, limits::layers) : 2;
        }
        if (!gemma) read_layer_types(f, m);
        if (llama4) {
            // Llama 4 (transformers' Llama4TextConfig): chunked attention of attention_chunk_size on the
            // layers no_rope_layers marks 1, every 4th a global NoPE layer by default; a chunked layer keeps
            // at most a chunk of the cache, priced as a window of that size.
            m.sliding_window = f.count_or("attention_chunk_size", 8192, limits::sequence);
            m.global_every = 4;
            if (f.has("no_rope_layers")) m.global_every = global_period(f, "no_rope_layers", m.layers, 0);
        }
        if (f.has("num_local_experts")) {  // Mixtral, gpt-oss, Llama 4
            m.experts = f.count("num_local_experts", limits::experts);
            m.experts_per_token = f.count("num_experts_per_tok", limits::experts);
            m.expert_ffn = f.count("intermediate_size", limits::width);
            if (llama4) {
                // Every MoE layer adds one shared expert of the experts' width (Llama4TextMoe.shared_expert).
                m.shared_experts = 1;
                m.shared_expert_ffn = m.expert_ffn;
                // Llama4TextConfig: moe_layers (counted from 0) when given, else every
                // interleave_moe_layer_step-th layer (Maverick: 2, so 24 of 48 layers MoE).
                const long long step = f.count_or("interleave_moe_layer_step", 1, limits::layers);
                const detail::MoeLayerPattern pattern =
                    f.has("moe_layers")
                        ? detail::moe_layer_pattern(f, "moe_layers", m.layers,
                                                    [listed = detail::listed_layers(f, "moe_layers", m.layers)](
                                                        long long i) { return listed[static_cast<std::size_t>(i)]; })
                        : detail::moe_layer_pattern(f, "interleave_moe_layer_step", m.layers,
                                                    [step](long long i) { return (i + 1) % step == 0; });
                m.dense_layers = pattern.dense_layers;
                m.moe_every = pattern.moe_every;
            }
        } else if (f.has("n_routed_experts")) {  // DeepSeek-V2/V3, Kimi K2 (DeepseekV3Config), GLM-4.5 (Glm4MoeConfig)
            m.experts = f.count("n_routed_experts", limits::experts);
            m.experts_per_token = f.count("num_experts_per_tok", limits::experts);
            m.expert_ffn = f.count("moe_intermediate_size", limits::width);
            m.shared_experts = f.whole_or("n_shared_experts", 0);
            m.shared_expert_ffn = m.shared_experts > 0 ? m.expert_ffn : 0;
            // DeepseekV2DecoderLayer: MoE where i ≥ first_k_dense_replace and i % moe_layer_freq == 0 (from 0).
            const long long dense = f.whole_or("first_k_dense_replace", 0);
            const long long freq = f.count_or("moe_layer_freq", 1, limits::layers);
            const detail::MoeLayerPattern pattern = detail::moe_layer_pattern(
                f, f.has("moe_layer_freq") ? "moe_layer_freq" : "first_k_dense_replace", m.layers,
                [dense, freq](long long i) { return i >= dense && i % freq == 0; });
            m.dense_layers = pattern.dense_layers;
            m.moe_every = pattern.moe_every;
        } else if (f.has("num_experts")) {  // Qwen2-MoE, Qwen3-MoE (Qwen2MoeConfig, Qwen3MoeConfig)
            m.experts = f.count("num_experts", limits::experts);
            m.experts_per_token = f.count("num_experts_per_tok", limits::experts);
            m.expert_ffn = f.count("moe_intermediate_size", limits::width);
            if (const long long shared = f.whole_or("shared_expert_intermediate_size", 0); shared > 0) {
                m.shared_experts = 1;
                m.shared_expert_ffn = shared;
                m.shared_expert_gate = true;
            }
            // Qwen2MoeDecoderLayer: MoE where i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
            const long long step = f.count_or("decoder_sparse_step", 1, limits::layers);
            const std::vector<bool> dense = f.has("mlp_only_layers")
                                                ? detail::listed_layers(f, "mlp_only_layers", m.layers)
                                                : std::vector<bool>(static_cast<std::size_t>(m.layers), false);
            const detail::MoeLayerPattern pattern = detail::moe_layer_pattern(
                f, f.has("mlp_only_layers") ? "mlp_only_layers" : "decoder_sparse_step", m.layers,
                [&dense, step](long long i) { return !dense[static_cast<std::size_t>(i)] && (i + 1) % step == 0; });
            m.dense_layers = pattern.dense_layers;
            m.moe_every = pattern.moe_every;
        }
        if (f.has("kv_lora_rank")) {  // multi-head latent attention (DeepSeek-V2 Sec. 2.1)
            m.kv_lora_rank = f.count("kv_lora_rank", limits::width);
            m.q_lora_rank = f.whole_or("q_lora_rank", 0);  // null in DeepSeek-V2-Lite: a full query projection
            m.qk_nope_head_dim = f.count("qk_nope_head_dim", limits::width);
            m.qk_rope_head_dim = f.count("qk_rope_head_dim", limits::width);
            m.v_head_dim = f.count("v_head_dim", limits::width);
        }
    }
    if (top.has("vision_config")) {
        // Gemma 3's SigLIP tower and projector (model.hpp's vision_tower_weights),
        // transformers' SiglipVisionConfig defaults for what a file leaves out.
        // Llama 4's tower is a ViT of the same shape (Llama4VisionConfig: 34
        // layers, 1,408 wide, MLP 5,632, 336² in patches of 14); its pixel-shuffle
        // adapter and projector (about 61 M weights, 0.06 % of Scout) are
        // counted as Gemma 3's projector.
        const std::string top_type = top.text_or("model_type", "");
        if (top_type != "gemma3" && top_type != "llama4")
            top.fail("vision_config", "is read for Gemma 3 and Llama 4 (model_type gemma3, llama4) only");
        if (!json["vision_config"].is_object())
            top.fail("vision_config", "must be an object, not " + detail::echo(json["vision_config"]));
        const detail::ConfigFields v(json["vision_config"], origin, "vision_config.");
        if (v.flag_or("vision_use_head", false))
            v.fail("vision_use_head", "must be false: napkin counts SigLIP without its pooling head");
        const VisionEncoder encoder{.layers = v.count_or("num_hidden_layers", 12, limits::layers),
                                    .hidden = v.count_or("hidden_size", 768, limits::width),
                                    .ffn = v.count_or("intermediate_size", 3072, limits::width),
                                    .image_size = v.count_or("image_size", 224, limits::width),
                                    .patch_size = v.count_or("patch_size", 16, limits::width),
                                    .channels = v.count_or("num_channels", 3, limits::width)};
        m.vision_weights = vision_tower_weights(encoder, m.hidden);
    }
    if (m.heads % m.kv_heads != 0)
        f.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(m.heads) + "), not " +
                                          std::to_string(m.kv_heads));
    try {
        (void)validated(m);
    } catch (const napkin::invalid_argument& e) {
        throw napkin::invalid_argument(origin, "", e.what());
    }
    return loaded;
}

/// Reads a config file. A Hugging Face model folder's config.json names the
/// model after its folder (Meta-Llama-3.1-70B/config.json: "Meta-Llama-3.1-70B");
/// any other file after itself (mixtral_8x7b_config.json: "mixtral_8x7b_config").
[[nodiscard]] inline LoadedModel read_hf_config(const std::filesystem::path& path) {
    const std::string text = read_text_file("config file", path.string());
    const auto parent = path.parent_path().filename().string();
    const bool in_model_folder = path.filename() == "config.json" && !parent.empty();
    return parse_hf_config(text, path.string(), in_model_folder ? parent : path.stem().string());
}

}  // namespace napkin::io
