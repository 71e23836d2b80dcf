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
    // DeepSeekMoE's shared experts (Dai et al. 2024, Sec. 3.2), every token
    // through all of them: their count and each one's width (Qwen2-MoE: one).
    long long shared_experts = 0;
    long long shared_expert_ffn = 0;
    // Layers before the first MoE layer with a dense feed-forward block of
    // width `ffn` (DeepSeek's first_k_dense_replace).
    long long dense_layers = 0;
    bool shared_expert_gate = false;  // Qwen2-MoE: a hidden × 1 sigmoid gate on the shared expert
    // Multi-head latent attention (DeepSeek-V2, Sec. 2.1): keys and values
    // through a rank-kv_lora_rank latent (the cache), queries through a
    // rank-q_lora_rank one (0: a full query projection), heads of
    // qk_nope_head_dim + qk_rope_head_dim for Q·K and v_head_dim for V.
    // kv_lora_rank = 0: ordinary multi-head / grouped-query attention.
    long long q_lora_rank = 0;
    long long kv_lora_rank = 0;
    long long qk_nope_head_dim = 0;
    long long qk_rope_head_dim = 0;
    long long v_head_dim = 0;
    bool qkv_bias = false;  // Qwen2: biases on Q, K and V only
    bool qk_norm = false;   // Qwen3: an RMSNorm over head_dim on Q and on K
    // The longest sequence the model was trained for (config.json's
    // max_position_embeddings); 0: not known, nothing is checked against it.
    long long max_position_embeddings = 0;
};

[[nodiscard]] constexpr bool latent_attention(const TransformerShape& m) { return m.kv_lora_rank > 0; }

// MoE layers: every layer after the dense ones (0 for a dense model).
[[nodiscard]] constexpr long long moe_layers(const TransformerShape& m) {
    return m.experts == 0 ? 0 : m.layers - m.dense_layers;
}

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
    require_non_negative("TransformerShape.shared_experts", count(m.shared_experts));
    require(m.shared_experts == 0 || m.shared_expert_ffn >= 1, "TransformerShape.shared_expert_ffn",
            count(m.shared_expert_ffn), "must be at least 1 when there are shared experts");
    require(m.dense_layers >= 0 && m.dense_layers <= m.layers, "TransformerShape.dense_layers",
            count(m.dense_layers), "must lie between 0 and the layers");
    for (long long x : {m.q_lora_rank, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim})
        require_non_negative("TransformerShape's latent attention sizes", count(x));
    require(m.kv_lora_rank == 0 || (m.qk_nope_head_dim + m.qk_rope_head_dim >= 1 && m.v_head_dim >= 1),
            "TransformerShape.v_head_dim", count(m.v_head_dim),
            "must be at least 1, with qk_nope_head_dim + qk_rope_head_dim, for latent attention");
    return m;
}

// Weights of one attention block: Q and O are hidden × (heads·head_dim), K and V
// hidden × (kv_heads·head_dim) (Ainslie et al. 2023, grouped-query attention).
//
// Latent attention (DeepSeek-V2 Sec. 2.1.2–2.1.3, its Eqs. 9–14 and 37–40):
// W^DQ h × q_lora_rank and its RMSNorm, W^UQ (with W^QR) q_lora_rank ×
// heads·(nope + rope) (h × that without a query latent), W^DKV with W^KR
// h × (kv_lora_rank + rope) and its RMSNorm, W^UK and W^UV kv_lora_rank ×
// heads·(nope + v), W^O heads·v × h.
[[nodiscard]] constexpr long long latent_attention_weights(const TransformerShape& m) {
    const long long qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    const long long query = m.q_lora_rank > 0 ? m.hidden * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * m.heads * qk
                                              : m.hidden * m.heads * qk;
    const long long key_value = m.hidden * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank +
                                m.kv_lora_rank * m.heads * (m.qk_nope_head_dim + m.v_head_dim);
    return query + key_value + m.heads * m.v_head_dim * m.hidden;
}

[[nodiscard]] constexpr long long attention_weights(const TransformerShape& m) {
    if (latent_attention(m)) return latent_attention_weights(m);
    const long long q_width = m.heads * head_dim(m);
    const long long kv_width = m.kv_heads * head_dim(m);
    const long long matrices = 2 * m.hidden * q_width + 2 * m.hidden * kv_width;
    const long long bias = m.biases     ? q_width + 2 * kv_width + m.hidden  // q, k, v biases + o bias
                           : m.qkv_bias ? q_width + 2 * kv_width
                                        : 0;
    return matrices + bias + (m.qk_norm ? 2 * head_dim(m) : 0);
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

// The router: a hidden × experts gate (Fedus et al. 2022 Sec. 2.1; DeepSeek-V3
// and Qwen-MoE the same).
[[nodiscard]] constexpr long long router_weights(const TransformerShape& m) { return m.hidden * m.experts; }

// Every shared expert, and Qwen2-MoE's gate on them.
[[nodiscard]] constexpr long long shared_expert_weights(const TransformerShape& m) {
    return m.shared_experts * feed_forward_weights(m, m.shared_expert_ffn) + (m.shared_expert_gate ? m.hidden : 0);
}

// A layer with a dense feed-forward block of width ffn.
[[nodiscard]] constexpr long long dense_layer_weights(const TransformerShape& m) {
    return attention_weights(m) + feed_forward_weights(m, m.ffn) + 2 * norm_weights(m);
}

// One transformer layer: dense, or for MoE one MoE layer (all routed experts,
// the shared ones and the router).
[[nodiscard]] constexpr long long layer_weights(const TransformerShape& m) {
    if (m.experts == 0) return dense_layer_weights(m);
    return attention_weights(m) + m.experts * feed_forward_weights(m, m.expert_ffn) + shared_expert_weights(m) +
           router_weights(m) + 2 * norm_weights(m);
}

// Input embedding, output layer (unless tied), learned positions.
[[nodiscard]] constexpr long long embedding_weights(const TransformerShape& m) {
    return m.vocabulary * m.hidden * (m.tied_embeddings ? 1 : 2) + m.learned_positions * m.hidden;
}

// Every weight of the model: the layers, the tables and the final norm. For
// Llama 3.1 this gives the published 8,030,261,248 / 70,553,706,496 /
// 405,853,388,800 (the lesson's "lesson 18" formula:
// L·(2h² + 2h·kv + 3h·ffn + 2h) + V·h·2 + h).
// With MoE: the dense layers at their own weights, the rest MoE layers.
[[nodiscard]] constexpr long long parameter_count(const TransformerShape& m) {
    const long long moe = moe_layers(m);
    return moe * layer_weights(m) + (m.layers - moe) * dense_layer_weights(m) + embedding_weights(m) +
           norm_weights(m);
}

// Weights one token passes through (MoE: only the active routed experts; the
// shared ones, the router and the embedding tables count).
[[nodiscard]] constexpr long long active_parameter_count(const TransformerShape& m) {
    if (m.experts == 0) return parameter_count(m);
    const long long inactive = (m.experts - m.experts_per_token) * feed_forward_weights(m, m.expert_ffn);
    return parameter_count(m) - moe_layers(m) * inactive;
}

// Matrix FLOPs of attention's scores and weighted values per token, forward,
// against `context` earlier tokens: 2·heads·(Q·K width + V width)·context
// (Q·Kᵀ and scores·V; with latent attention Q·K spans nope + rope dimensions,
// DeepSeek-V2 Sec. 2.1.3). The projections are 2 FLOPs per weight.
[[nodiscard]] constexpr double attention_score_flops_per_token(const TransformerShape& m, double context) {
    const double qk = latent_attention(m) ? count(m.qk_nope_head_dim + m.qk_rope_head_dim) : count(head_dim(m));
    const double v = latent_attention(m) ? count(m.v_head_dim) : count(head_dim(m));
    return 2.0 * count(m.heads) * (qk + v) * context;
}

// Bytes of all weights at `bytes_per_weight` (2 for BF16/FP16).
[[nodiscard]] constexpr Bytes weight_bytes(const TransformerShape& m, double bytes_per_weight) {
    return bytes(count(parameter_count(m)) * bytes_per_weight);
}

// KV cache per token: a key and a value vector per layer per KV head
// (2 · layers · kv_heads · head_dim values).
// Latent attention caches the latent and the shared RoPE key instead:
// (kv_lora_rank + qk_rope_head_dim) values per layer (DeepSeek-V2 Sec. 2.1.2, Table 1).
[[nodiscard]] constexpr BytesPerToken kv_cache_per_token(const TransformerShape& m, double bytes_per_value) {
    if (latent_attention(m))
        return bytes_per_token(count(m.layers * (m.kv_lora_rank + m.qk_rope_head_dim)) * bytes_per_value);
    return bytes_per_token(count(2 * m.layers * m.kv_heads * head_dim(m)) * bytes_per_value);
}

// One token's hidden vector: what tensor-parallel GPUs all-reduce after each
// split block and what pipeline stages hand to one another.
[[nodiscard]] constexpr BytesPerToken hidden_vector(const TransformerShape& m, double bytes_per_value) {
    return bytes_per_token(count(m.hidden) * bytes_per_value);
}

}  // namespace napkin
