// SPDX-License-Identifier: MIT
// napkin/model.hpp — the shape of a decoder-only transformer and what follows
// from the shape alone: its weight count, its KV cache per token, the size of
// one token's hidden vector.
#pragma once

#include <napkin/error.hpp>
#include <napkin/units.hpp>

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
    // The longest sequence the model was trained for (config.json's
    // max_position_embeddings); 0: not known, nothing is checked against it.
    long long max_position_embeddings = 0;
};

[[nodiscard]] constexpr long long head_dim(const TransformerShape& m) {
    return m.head_dim != 0 ? m.head_dim : m.hidden / m.heads;
}

[[nodiscard]] constexpr const TransformerShape& validated(const TransformerShape& m) {
    require_at_least_one("TransformerShape.layers", m.layers);
    require_at_least_one("TransformerShape.hidden", m.hidden);
    require_at_least_one("TransformerShape.ffn", m.ffn);
    require_at_least_one("TransformerShape.heads", m.heads);
    require_at_least_one("TransformerShape.kv_heads", m.kv_heads);
    require_at_least_one("TransformerShape.vocabulary", m.vocabulary);
    require_non_negative("TransformerShape.head_dim", count(m.head_dim));
    require(m.heads % m.kv_heads == 0, "TransformerShape.kv_heads", count(m.kv_heads),
                    "must divide TransformerShape.heads");
    require(m.head_dim != 0 || m.hidden % m.heads == 0, "TransformerShape.hidden", count(m.hidden),
                    "must be a multiple of heads when head_dim is not given");
    require_non_negative("TransformerShape.experts", count(m.experts));
    require(m.experts == 0 || (m.experts_per_token >= 1 && m.experts_per_token <= m.experts),
                    "TransformerShape.experts_per_token", count(m.experts_per_token),
                    "must be in [1, experts] for a mixture of experts");
    require_non_negative("TransformerShape.max_position_embeddings", count(m.max_position_embeddings));
    require(m.experts == 0 || m.expert_ffn >= 1, "TransformerShape.expert_ffn", count(m.expert_ffn),
                    "must be at least 1 for a mixture of experts");
    return m;
}

// Weights of one attention block: Q and O are hidden × (heads·head_dim), K and V
// hidden × (kv_heads·head_dim) (Ainslie et al. 2023, grouped-query attention).
[[nodiscard]] constexpr long long attention_weights(const TransformerShape& m) {
    const long long q_width = m.heads * head_dim(m);
    const long long kv_width = m.kv_heads * head_dim(m);
    const long long matrices = 2 * m.hidden * q_width + 2 * m.hidden * kv_width;
    const long long bias = m.biases ? q_width + 2 * kv_width + m.hidden : 0;  // q, k, v biases + o bias
    return matrices + bias;
}

// Weights of one dense feed-forward block of width `width`: SwiGLU has three
// hidden × width matrices (Shazeer 2020), the GPT MLP two plus biases.
[[nodiscard]] constexpr long long feed_forward_weights(const TransformerShape& m, long long width) {
    if (m.feed_forward == FeedForward::gated) return 3 * m.hidden * width + (m.biases ? 2 * width + m.hidden : 0);
    return 2 * m.hidden * width + (m.biases ? width + m.hidden : 0);
}

// Two norms per layer: RMSNorm has one weight vector, LayerNorm a weight and a bias.
[[nodiscard]] constexpr long long norm_weights(const TransformerShape& m) {
    return (m.biases ? 2 : 1) * m.hidden;
}

// One transformer layer (dense, or all experts plus the router for MoE).
[[nodiscard]] constexpr long long layer_weights(const TransformerShape& m) {
    const long long ffn = m.experts == 0
                              ? feed_forward_weights(m, m.ffn)
                              : m.experts * feed_forward_weights(m, m.expert_ffn) + m.hidden * m.experts;
    return attention_weights(m) + ffn + 2 * norm_weights(m);
}

// Input embedding, output layer (unless tied), learned positions.
[[nodiscard]] constexpr long long embedding_weights(const TransformerShape& m) {
    return m.vocabulary * m.hidden * (m.tied_embeddings ? 1 : 2) + m.learned_positions * m.hidden;
}

// Every weight of the model: the layers, the tables and the final norm. For
// Llama 3.1 this gives the published 8,030,261,248 / 70,553,706,496 /
// 405,853,388,800 (the lesson's "lesson 18" formula:
// L·(2h² + 2h·kv + 3h·ffn + 2h) + V·h·2 + h).
[[nodiscard]] constexpr long long parameter_count(const TransformerShape& m) {
    return m.layers * layer_weights(m) + embedding_weights(m) + norm_weights(m);
}

// Weights one token passes through (MoE: only the active experts).
[[nodiscard]] constexpr long long active_parameter_count(const TransformerShape& m) {
    if (m.experts == 0) return parameter_count(m);
    const long long inactive = (m.experts - m.experts_per_token) * feed_forward_weights(m, m.expert_ffn);
    return parameter_count(m) - m.layers * inactive;
}

// Bytes of all weights at `bytes_per_weight` (2 for BF16/FP16).
[[nodiscard]] constexpr Bytes weight_bytes(const TransformerShape& m, double bytes_per_weight) {
    return bytes(count(parameter_count(m)) * bytes_per_weight);
}

// KV cache per token: a key and a value vector per layer per KV head
// (2 · layers · kv_heads · head_dim values).
[[nodiscard]] constexpr BytesPerToken kv_cache_per_token(const TransformerShape& m, double bytes_per_value) {
    return bytes_per_token(count(2 * m.layers * m.kv_heads * head_dim(m)) * bytes_per_value);
}

// One token's hidden vector: what tensor-parallel GPUs all-reduce after each
// split block and what pipeline stages hand to one another.
[[nodiscard]] constexpr BytesPerToken hidden_vector(const TransformerShape& m, double bytes_per_value) {
    return bytes_per_token(count(m.hidden) * bytes_per_value);
}

}  // namespace napkin
