// SPDX-License-Identifier: MIT
// napkin/model.hpp — the shape of a decoder-only transformer and what follows
// from the shape alone: its weight count, its KV cache per token, the size of
// one token's hidden vector.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/units.hpp>

#include <string>
#include <string_view>

namespace napkin {

// The feed-forward block: Llama's gated SwiGLU has three matrices (gate, up,
// down); GPT's plain GELU MLP has two (up, down).
enum class FeedForward { gated, plain };

struct TransformerShape {
    std::string_view name;
    long long layers;
    long long hidden;          // model width h
    long long ffn;             // feed-forward width
    long long heads;           // attention (query) heads
    long long kv_heads;        // key/value heads (grouped-query attention); = heads without GQA
    long long head_dim = 0;    // 0: hidden / heads
    long long vocabulary;
    bool tied_embeddings = false;  // the output layer reuses the input embedding table
    FeedForward feed_forward = FeedForward::gated;
    bool biases = false;               // GPT-style: biases on every linear layer and LayerNorm
    long long learned_positions = 0;   // GPT-style learned position table: its rows (0: none, RoPE)
    // Mixture of experts (0 experts: dense). Each MoE layer replaces its
    // feed-forward block by `experts` of width `expert_ffn`, `experts_per_token` active.
    long long experts = 0;
    long long experts_per_token = 0;
    long long expert_ffn = 0;
};

[[nodiscard]] constexpr long long head_dim(const TransformerShape& m) {
    return m.head_dim != 0 ? m.head_dim : m.hidden / m.heads;
}

// Weights of one attention block: Q and O are hidden × (heads·head_dim), K and V
// hidden × (kv_heads·head_dim) (Ainslie et al. 2023, grouped-query attention).
[[nodiscard]] constexpr long long attention_weights(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (attention weights)";
    const long long q_width = checked_mul(m.heads, head_dim(m), what);
    const long long kv_width = checked_mul(m.kv_heads, head_dim(m), what);
    const long long matrices = checked_mul(2 * m.hidden, checked_add(q_width, kv_width, what), what);
    const long long bias = m.biases ? q_width + 2 * kv_width + m.hidden : 0;  // q, k, v biases + o bias
    return checked_add(matrices, bias, what);
}

// Weights of one dense feed-forward block of width `width`: SwiGLU has three
// hidden × width matrices (Shazeer 2020), the GPT MLP two plus biases.
[[nodiscard]] constexpr long long feed_forward_weights(const TransformerShape& m, long long width) {
    constexpr std::string_view what = "TransformerShape (feed-forward weights)";
    if (m.feed_forward == FeedForward::gated)
        return checked_add(checked_mul(3 * m.hidden, width, what), m.biases ? 2 * width + m.hidden : 0, what);
    return checked_add(checked_mul(2 * m.hidden, width, what), m.biases ? width + m.hidden : 0, what);
}

// Two norms per layer: RMSNorm has one weight vector, LayerNorm a weight and a bias.
[[nodiscard]] constexpr long long norm_weights(const TransformerShape& m) {
    return (m.biases ? 2 : 1) * m.hidden;
}

// One transformer layer (dense, or all experts plus the router for MoE).
[[nodiscard]] constexpr long long layer_weights(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (layer weights)";
    const long long ffn =
        m.experts == 0 ? feed_forward_weights(m, m.ffn)
                       : checked_add(checked_mul(m.experts, feed_forward_weights(m, m.expert_ffn), what),
                                     checked_mul(m.hidden, m.experts, what), what);
    return checked_add(checked_add(attention_weights(m), ffn, what), 2 * norm_weights(m), what);
}

// Input embedding, output layer (unless tied), learned positions.
[[nodiscard]] constexpr long long embedding_weights(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (embedding weights)";
    return checked_add(checked_mul(checked_mul(m.vocabulary, m.hidden, what), m.tied_embeddings ? 1 : 2, what),
                       checked_mul(m.learned_positions, m.hidden, what), what);
}

// Every weight of the model: the layers, the tables and the final norm. For
// Llama 3.1 this gives the published 8,030,261,248 / 70,553,706,496 /
// 405,853,388,800 (the lesson's "lesson 18" formula:
// L·(2h² + 2h·kv + 3h·ffn + 2h) + V·h·2 + h).
[[nodiscard]] constexpr long long parameter_count(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (parameter count)";
    return checked_add(checked_add(checked_mul(m.layers, layer_weights(m), what), embedding_weights(m), what),
                       norm_weights(m), what);
}

// Weights one token passes through (MoE: only the active experts).
[[nodiscard]] constexpr long long active_parameter_count(const TransformerShape& m) {
    if (m.experts == 0) return parameter_count(m);
    constexpr std::string_view what = "TransformerShape (active parameter count)";
    const long long inactive = checked_mul(m.experts - m.experts_per_token, feed_forward_weights(m, m.expert_ffn), what);
    return parameter_count(m) - checked_mul(m.layers, inactive, what);
}

// Bytes of all weights at `bytes_per_weight` (2 for BF16/FP16).
[[nodiscard]] constexpr Bytes weight_bytes(const TransformerShape& m, double bytes_per_weight) {
    return bytes(count(parameter_count(m)) * bytes_per_weight);
}

// KV cache per token: a key and a value vector per layer per KV head
// (2 · layers · kv_heads · head_dim values).
[[nodiscard]] constexpr BytesPerToken kv_cache_per_token(const TransformerShape& m, double bytes_per_value) {
    constexpr std::string_view what = "TransformerShape (KV cache values per token)";
    return bytes_per_token(count(checked_mul(checked_mul(2 * m.layers, m.kv_heads, what), head_dim(m), what)) *
                           bytes_per_value);
}

// One token's hidden vector: what tensor-parallel GPUs all-reduce after each
// split block and what pipeline stages hand to one another.
[[nodiscard]] constexpr BytesPerToken hidden_vector(const TransformerShape& m, double bytes_per_value) {
    return bytes_per_token(count(m.hidden) * bytes_per_value);
}

// Checks the shape: every count at least 1 and at most its bound
// (napkin/checked.hpp limits), heads split evenly, and the weight count within
// limits::parameters, so every count below is exact.
[[nodiscard]] constexpr const TransformerShape& validated(const TransformerShape& m) {
    require_count("TransformerShape.layers", m.layers, limits::layers);
    require_count("TransformerShape.hidden", m.hidden, limits::width);
    require_count("TransformerShape.ffn", m.ffn, limits::width);
    require_count("TransformerShape.heads", m.heads, limits::heads);
    require_count("TransformerShape.kv_heads", m.kv_heads, limits::heads);
    require_count("TransformerShape.vocabulary", m.vocabulary, limits::vocabulary);
    require_non_negative("TransformerShape.head_dim", count(m.head_dim));
    require(m.head_dim <= limits::width, "TransformerShape.head_dim", count(m.head_dim),
            "must be at most 2^30");
    require_non_negative("TransformerShape.learned_positions", count(m.learned_positions));
    require(m.learned_positions <= limits::vocabulary, "TransformerShape.learned_positions",
            count(m.learned_positions), "must be at most 2^34");
    require(m.heads % m.kv_heads == 0, "TransformerShape.kv_heads", count(m.kv_heads),
                    "must divide TransformerShape.heads");
    require(m.head_dim != 0 || m.hidden % m.heads == 0, "TransformerShape.hidden", count(m.hidden),
                    "must be a multiple of heads when head_dim is not given");
    require_non_negative("TransformerShape.experts", count(m.experts));
    require(m.experts <= limits::experts, "TransformerShape.experts", count(m.experts), "must be at most 2^24");
    require(m.experts == 0 || (m.experts_per_token >= 1 && m.experts_per_token <= m.experts),
                    "TransformerShape.experts_per_token", count(m.experts_per_token),
                    "must be in [1, experts] for a mixture of experts");
    require(m.experts == 0 || (m.expert_ffn >= 1 && m.expert_ffn <= limits::width), "TransformerShape.expert_ffn",
            count(m.expert_ffn), "must be in [1, 2^30] for a mixture of experts");
    require(checked_mul(m.heads, head_dim(m), "TransformerShape.heads × head_dim") <= limits::width,
            "TransformerShape.heads × head_dim", count(m.heads * head_dim(m)), "must be at most 2^30");
    const long long weights = parameter_count(m);
    if (weights > limits::parameters)
        reject_exact("TransformerShape (parameter count)", std::to_string(weights),
                     "must be at most 2^53 = 9007199254740992");
    (void)kv_cache_per_token(m, 1.0);
    return m;
}

}  // namespace napkin
