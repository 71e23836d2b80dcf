// SPDX-License-Identifier: MIT
// napkin/model.hpp — the shape of a decoder-only transformer and what follows
// from the shape alone: its weight count, its KV cache per token, the size of
// one token's hidden vector.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

/// The feed-forward block: Llama's gated SwiGLU has three matrices (gate, up,
/// down); GPT's plain GELU MLP has two (up, down).
enum class FeedForward { gated, plain };

/// A decoder-only transformer's shape, its config.json's fields: layers, widths, heads, vocabulary,
/// and the options below (mixture of experts, latent attention, sliding windows, a vision tower).
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
    // After them every `moe_every`-th layer is MoE, the others dense (1: every
    // layer; Llama 4 Maverick's interleave_moe_layer_step and Qwen-MoE's
    // decoder_sparse_step: layers n, 2n, ... counted from 1).
    long long moe_every = 1;
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
    // RMSNorms (or LayerNorms) in a layer: 2 before attention and the
    // feed-forward block (Llama, GPT); Gemma 2 and 3 add one after each, 4
    // (Gemma Team 2024, arXiv 2408.00118, Sec. 2, "Post-norm and pre-norm with RMSNorm").
    long long norms_per_layer = 2;
    // Sliding-window attention (Beltagy et al. 2020, Longformer, Sec. 3.1):
    // a local layer attends to the last `sliding_window` positions only and
    // caches only those (0: no window, every layer global). Every
    // `global_every`-th layer (layers global_every, 2·global_every, ...)
    // attends to the whole context: config.json's sliding_window_pattern,
    // Gemma 2 alternates (2; arXiv 2408.00118 Sec. 2), Gemma 3 has 5 local
    // to 1 global (6; arXiv 2503.19786 Sec. 2). 0 with a window: all local.
    long long sliding_window = 0;
    long long global_every = 0;
    // Weights outside the language model: a vision encoder and its
    // projection into the text embedding (Gemma 3's SigLIP tower, Sec. 2.1 of
    // arXiv 2503.19786). Counted in parameter_count (so in the memory that
    // holds the weights); their compute, once per image, is not modelled: a
    // text token passes through none of them (active_parameter_count).
    long long vision_weights = 0;
};

/// A ViT vision encoder (Dosovitskiy et al. 2021, arXiv 2010.11929, Sec. 3.1;
/// SigLIP's, Zhai et al. 2023, is the same network): `image_size`² pixels cut
/// into patches of `patch_size`², `layers` pre-LayerNorm blocks of width
/// `hidden` with a plain GELU MLP of width `ffn`, biases everywhere.
struct VisionEncoder {
    long long layers;
    long long hidden;
    long long ffn;
    long long image_size;
    long long patch_size;
    long long channels = 3;
};

/// Its weights, with the projection into a language model `text_hidden` wide
/// that Gemma 3 uses (an RMSNorm over the encoder's width and a hidden ×
/// text_hidden matrix; transformers' Gemma3MultiModalProjector): the patch
/// convolution c·p²·h + h, a learned position per patch (image/patch)²·h, per
/// layer Q, K, V, O 4·(h² + h), the MLP 2·h·ffn + ffn + h and two LayerNorms
/// 4·h, a final LayerNorm 2·h. SigLIP So400m/14 at 896² (Gemma 3's; 27 layers,
/// 1,152 wide, MLP 4,304) has 416,866,032 (tests/unit/model.cpp).
[[nodiscard]] constexpr long long vision_tower_weights(const VisionEncoder& v, long long text_hidden) {
    constexpr std::string_view what = "VisionEncoder (weights)";
    require_count("VisionEncoder.layers", v.layers, limits::layers);
    require_count("VisionEncoder.hidden", v.hidden, limits::width);
    require_count("VisionEncoder.ffn", v.ffn, limits::width);
    require_count("VisionEncoder.patch_size", v.patch_size, limits::width);
    require_count("VisionEncoder.image_size", v.image_size, limits::width);
    require_count("VisionEncoder.channels", v.channels, limits::width);
    require_count("text_hidden", text_hidden, limits::width);
    const auto mul = [what](long long a, long long b) { return checked_mul(a, b, what); };
    const auto add = [what](long long a, long long b) { return checked_add(a, b, what); };
    const long long h = v.hidden, side = v.image_size / v.patch_size;
    const long long patches = add(mul(mul(v.channels, mul(v.patch_size, v.patch_size)), h), h);
    const long long positions = mul(mul(side, side), h);
    const long long layer = add(add(mul(4, add(mul(h, h), h)), add(mul(2, mul(h, v.ffn)), v.ffn + h)), 4 * h);
    const long long encoder = add(add(add(patches, positions), mul(v.layers, layer)), 2 * h);
    return add(encoder, add(h, mul(h, text_hidden)));
}

/// Whether the model uses multi-head latent attention (kv_lora_rank > 0).
[[nodiscard]] constexpr bool latent_attention(const TransformerShape& m) { return m.kv_lora_rank > 0; }

/// MoE layers among layers first … last (counted from 1, both included):
/// layer i is MoE when i > dense_layers and (i − dense_layers) is a multiple
/// of moe_every; up to layer i there are ⌊(i − dense_layers) / moe_every⌋.
[[nodiscard]] constexpr long long moe_layers_between(const TransformerShape& m, long long first, long long last) {
    if (m.experts == 0 || last < first) return 0;
    const long long every = m.moe_every < 1 ? 1 : m.moe_every;
    const auto up_to = [&m, every](long long i) { return i <= m.dense_layers ? 0 : (i - m.dense_layers) / every; };
    return up_to(last) - up_to(first - 1);
}

/// MoE layers of the model (0 for a dense model).
[[nodiscard]] constexpr long long moe_layers(const TransformerShape& m) { return moe_layers_between(m, 1, m.layers); }

/// The width of one attention head: head_dim when given, else hidden / heads.
[[nodiscard]] constexpr long long head_dim(const TransformerShape& m) {
    return m.head_dim != 0 ? m.head_dim : m.hidden / m.heads;
}

/// Layers that attend to the whole context, and those that attend within the
/// sliding window (TransformerShape::sliding_window, global_every).
[[nodiscard]] constexpr long long global_attention_layers(const TransformerShape& m) {
    if (m.sliding_window == 0) return m.layers;
    return m.global_every == 0 ? 0 : m.layers / m.global_every;
}
/// The layers that attend within the sliding window: those that are not global.
[[nodiscard]] constexpr long long local_attention_layers(const TransformerShape& m) {
    return m.layers - global_attention_layers(m);
}

/// The positions a local layer sees of a `context` of them: at most the window.
[[nodiscard]] constexpr double within_window(const TransformerShape& m, double context) {
    const double w = count(m.sliding_window);
    return m.sliding_window == 0 || context < w ? context : w;
}

/// Σ min(t, w) over the tokens t = first … last of a sequence (token t attends
/// to t positions, itself and those before it), with w = m.sliding_window on a
/// local layer: the positions a chunk of prefill attends to.
[[nodiscard]] constexpr double windowed_positions(const TransformerShape& m, double first, double last) {
    if (last < first) return 0.0;
    const double w = count(m.sliding_window);
    const auto triangle = [](double a, double b) { return (a + b) * (b - a + 1.0) / 2.0; };  // Σ a … b
    if (m.sliding_window == 0 || last <= w) return triangle(first, last);
    if (first >= w) return (last - first + 1.0) * w;
    return triangle(first, w) + (last - w) * w;
}

/// Weights of one attention block: Q and O are hidden × (heads·head_dim), K and V
/// hidden × (kv_heads·head_dim) (Ainslie et al. 2023, grouped-query attention).
///
/// Latent attention (DeepSeek-V2 Sec. 2.1.2–2.1.3, its Eqs. 9–14 and 37–40):
/// W^DQ h × q_lora_rank and its RMSNorm, W^UQ (with W^QR) q_lora_rank ×
/// heads·(nope + rope) (h × that without a query latent), W^DKV with W^KR
/// h × (kv_lora_rank + rope) and its RMSNorm, W^UK and W^UV kv_lora_rank ×
/// heads·(nope + v), W^O heads·v × h.
[[nodiscard]] constexpr long long latent_attention_weights(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (latent attention weights)";
    const auto mul = [what](long long a, long long b) { return checked_mul(a, b, what); };
    const auto add = [what](long long a, long long b) { return checked_add(a, b, what); };
    const long long qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    const long long query = m.q_lora_rank > 0
                                ? add(add(mul(m.hidden, m.q_lora_rank), m.q_lora_rank), mul(m.q_lora_rank, mul(m.heads, qk)))
                                : mul(m.hidden, mul(m.heads, qk));
    const long long key_value = add(add(mul(m.hidden, m.kv_lora_rank + m.qk_rope_head_dim), m.kv_lora_rank),
                                    mul(m.kv_lora_rank, mul(m.heads, m.qk_nope_head_dim + m.v_head_dim)));
    return add(add(query, key_value), mul(mul(m.heads, m.v_head_dim), m.hidden));
}

/// Weights of one attention block, as above (latent attention's when kv_lora_rank > 0), with
/// the biases (GPT-style: Q, K, V and O; Qwen2: Q, K and V) and Qwen3's Q and K norms.
[[nodiscard]] constexpr long long attention_weights(const TransformerShape& m) {
    if (latent_attention(m)) return latent_attention_weights(m);
    constexpr std::string_view what = "TransformerShape (attention weights)";
    const long long q_width = checked_mul(m.heads, head_dim(m), what);
    const long long kv_width = checked_mul(m.kv_heads, head_dim(m), what);
    const long long matrices = checked_mul(2 * m.hidden, checked_add(q_width, kv_width, what), what);
    const long long bias = m.biases     ? q_width + 2 * kv_width + m.hidden  // q, k, v biases + o bias
                           : m.qkv_bias ? q_width + 2 * kv_width
                                        : 0;
    return checked_add(matrices, bias + (m.qk_norm ? 2 * head_dim(m) : 0), what);
}

/// Weights of one dense feed-forward block of width `width`: SwiGLU has three
/// hidden × width matrices (Shazeer 2020), the GPT MLP two plus biases.
[[nodiscard]] constexpr long long feed_forward_weights(const TransformerShape& m, long long width) {
    constexpr std::string_view what = "TransformerShape (feed-forward weights)";
    if (m.feed_forward == FeedForward::gated)
        return checked_add(checked_mul(3 * m.hidden, width, what), m.biases ? 2 * width + m.hidden : 0, what);
    return checked_add(checked_mul(2 * m.hidden, width, what), m.biases ? width + m.hidden : 0, what);
}

/// One norm: RMSNorm has one weight vector, LayerNorm a weight and a bias
/// (norms_per_layer of them in a layer, one after the last layer).
[[nodiscard]] constexpr long long norm_weights(const TransformerShape& m) {
    return (m.biases ? 2 : 1) * m.hidden;
}

/// The router: a hidden × experts gate (Fedus et al. 2022 Sec. 2.1; DeepSeek-V3
/// and Qwen-MoE the same).
[[nodiscard]] constexpr long long router_weights(const TransformerShape& m) {
    return checked_mul(m.hidden, m.experts, "TransformerShape (router weights)");
}

/// Every shared expert, and Qwen2-MoE's gate on them.
[[nodiscard]] constexpr long long shared_expert_weights(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (shared expert weights)";
    return checked_add(checked_mul(m.shared_experts, feed_forward_weights(m, m.shared_expert_ffn), what),
                       m.shared_expert_gate ? m.hidden : 0, what);
}

/// A layer with a dense feed-forward block of width ffn.
[[nodiscard]] constexpr long long dense_layer_weights(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (layer weights)";
    return checked_add(checked_add(attention_weights(m), feed_forward_weights(m, m.ffn), what),
                       m.norms_per_layer * norm_weights(m), what);
}

/// One transformer layer: dense, or for MoE one MoE layer (all routed experts,
/// the shared ones and the router).
[[nodiscard]] constexpr long long layer_weights(const TransformerShape& m) {
    if (m.experts == 0) return dense_layer_weights(m);
    constexpr std::string_view what = "TransformerShape (layer weights)";
    const long long routed = checked_mul(m.experts, feed_forward_weights(m, m.expert_ffn), what);
    return checked_add(checked_add(checked_add(attention_weights(m), routed, what), shared_expert_weights(m), what),
                       router_weights(m) + m.norms_per_layer * norm_weights(m), what);
}

/// Input embedding, output layer (unless tied), learned positions.
[[nodiscard]] constexpr long long embedding_weights(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (embedding weights)";
    return checked_add(checked_mul(checked_mul(m.vocabulary, m.hidden, what), m.tied_embeddings ? 1 : 2, what),
                       checked_mul(m.learned_positions, m.hidden, what), what);
}

/// Every weight of the model: the layers, the tables and the final norm. For
/// Llama 3.1 this gives the published 8,030,261,248 / 70,553,706,496 /
/// 405,853,388,800 (the lesson's "lesson 18" formula:
/// L·(2h² + 2h·kv + 3h·ffn + 2h) + V·h·2 + h).
/// With MoE: the dense layers at their own weights, the rest MoE layers. A
/// vision encoder's weights (vision_weights) are added.
[[nodiscard]] constexpr long long parameter_count(const TransformerShape& m) {
    constexpr std::string_view what = "TransformerShape (parameter count)";
    const long long moe = moe_layers(m);  // each kind of layer is counted only where the model has one
    const long long layers = checked_add(moe == 0 ? 0 : checked_mul(moe, layer_weights(m), what),
                                         moe == m.layers ? 0 : checked_mul(m.layers - moe, dense_layer_weights(m), what),
                                         what);
    return checked_add(checked_add(checked_add(layers, embedding_weights(m), what), norm_weights(m), what),
                       m.vision_weights, what);
}

namespace detail {
/// The same from the model's whole weight count, for callers that hold it already.
[[nodiscard]] constexpr long long active_of(const TransformerShape& m, long long parameters) {
    if (m.experts == 0) return parameters - m.vision_weights;
    constexpr std::string_view what = "TransformerShape (active parameter count)";
    const long long inactive =
        checked_mul(m.experts - m.experts_per_token, feed_forward_weights(m, m.expert_ffn), what);
    return parameters - m.vision_weights - checked_mul(moe_layers(m), inactive, what);
}
}  // namespace detail

/// Weights one token passes through (MoE: only the active routed experts; the
/// shared ones, the router and the embedding tables count; a text token passes
/// through no vision encoder).
[[nodiscard]] constexpr long long active_parameter_count(const TransformerShape& m) {
    return detail::active_of(m, parameter_count(m));
}

// ---------------------------------------------------------------------------
// Mixture of experts: the experts a batch reads

namespace detail {
/// a^n for a whole n ≥ 0 by squaring (constexpr, log n steps).
[[nodiscard]] constexpr double power(double a, long long n) {
    double result = 1.0;
    for (; n > 0; n /= 2, a *= a)
        if (n % 2 == 1) result *= a;
    return result;
}
}  // namespace detail

/// n tokens each pick k of E experts, uniformly and independently: one token
/// misses a given expert with probability 1 − k/E, all n miss it with
/// (1 − k/E)^n, so by linearity of expectation the batch touches
///   E · (1 − (1 − k/E)^n)
/// distinct experts (the occupancy problem: Feller 1968, "An Introduction to
/// Probability Theory", Vol. I, Sec. IV.2). One token: k; many: all E.
[[nodiscard]] constexpr double expected_distinct_experts(long long experts, long long per_token, double tokens_routed) {
    require_at_least_one("experts", experts);
    require(per_token >= 1 && per_token <= experts, "experts_per_token", count(per_token), "must be in [1, experts]");
    require_non_negative("tokens routed", tokens_routed);
    const double miss = 1.0 - count(per_token) / count(experts);
    return count(experts) * (1.0 - detail::power(miss, static_cast<long long>(tokens_routed)));
}

/// Skewed routing: the experts' popularity as a power law (Zipf), expert i of
/// E (i = 1..E, most popular first) taking the share p_i = i^−s / Σ_j j^−s of
/// the routed picks; s = 0 is uniform, 1/E each. Real routers are skewed per
/// layer and over time (DeepSeek-V3, arXiv 2412.19437, Sec. 3.4.2, balances
/// its hottest experts by replicating them); s is the user's statement of it.
namespace detail {
/// Σ_j j^−s over the E experts, the power law's normaliser.
[[nodiscard]] inline double zipf_normaliser(long long experts, double skew) {
    require_at_least_one("experts", experts);
    require_in_range("expert skew", skew, 0.0, 10.0, "must be in [0, 10]");
    double total = 0.0;
    for (long long j = 1; j <= experts; ++j) total += std::pow(count(j), -skew);
    return total;
}
}  // namespace detail

/// The share p_i of the routed picks that expert `rank` of `experts` takes at skew s (see above).
[[nodiscard]] inline double zipf_share(long long rank, long long experts, double skew) {
    const double total = detail::zipf_normaliser(experts, skew);
    require(rank >= 1 && rank <= experts, "expert rank", count(rank), "must be in [1, experts]");
    return std::pow(count(rank), -skew) / total;
}

namespace detail {
/// The chance q_i that a token's k picks include expert i under skewed routing:
/// proportional to the popularity p_i and summing to k, none above 1 (an
/// expert takes at most one of a token's picks): the hottest capped at 1, the
/// rest of the k shared by the others in proportion (water-filling). Uniform: k/E.
[[nodiscard]] inline std::vector<double> pick_chances(long long experts, long long per_token, double skew) {
    require(per_token >= 1 && per_token <= experts, "experts_per_token", count(per_token), "must be in [1, experts]");
    const double total = zipf_normaliser(experts, skew);
    std::vector<double> q(static_cast<std::size_t>(experts));
    double rest = total;  // Σ_{j > capped} j^−s
    for (long long capped = 0; capped < per_token; ++capped) {
        const double scale = count(per_token - capped) / rest;  // the uncapped q_j = scale · j^−s
        if (scale * std::pow(count(capped + 1), -skew) <= 1.0) {
            for (long long j = 1; j <= experts; ++j)
                q[static_cast<std::size_t>(j - 1)] = j <= capped ? 1.0 : scale * std::pow(count(j), -skew);
            return q;
        }
        rest -= std::pow(count(capped + 1), -skew);
    }
    std::fill(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(per_token), 1.0);  // the k hottest take every pick
    return q;
}
}  // namespace detail

/// The occupancy count above with skewed routing: n tokens touch
/// Σ_i (1 − (1 − q_i)^n) distinct experts (q_i: detail::pick_chances); s = 0
/// is the uniform count.
[[nodiscard]] inline double expected_distinct_experts(long long experts, long long per_token, double tokens_routed,
                                                      double skew) {
    if (skew == 0.0) return expected_distinct_experts(experts, per_token, tokens_routed);
    require_non_negative("tokens routed", tokens_routed);
    double distinct = 0.0;
    for (const double q : detail::pick_chances(experts, per_token, skew))
        distinct += 1.0 - detail::power(1.0 - q, static_cast<long long>(tokens_routed));
    return distinct;
}

/// The load of the busiest of `ranks` expert-parallel ranks against the mean,
/// the experts dealt round-robin by popularity (expert i on rank (i − 1) mod
/// ranks, so rank 0 holds the hottest): ranks/k · Σ_{i ≡ 1 mod ranks} q_i. 1
/// when uniform; the hottest expert's rank sets the step of every rank.
[[nodiscard]] inline double busiest_rank_load(long long experts, long long per_token, long long ranks, double skew) {
    require(ranks >= 1 && experts % ranks == 0, "expert-parallel ranks", count(ranks), "must divide the experts");
    if (skew == 0.0 || ranks == 1) return 1.0;
    const std::vector<double> q = detail::pick_chances(experts, per_token, skew);
    double picks = 0.0;
    for (std::size_t i = 0; i < q.size(); i += static_cast<std::size_t>(ranks)) picks += q[i];
    return count(ranks) * picks / count(per_token);
}

/// The distinct experts the busiest expert-parallel rank (rank 0, holding the
/// hottest: experts 1, 1 + ranks, …) reads for n routed tokens:
/// Σ_{i ≡ 1 mod ranks} (1 − (1 − q_i)^n), its share of expected_distinct_experts.
[[nodiscard]] inline double busiest_rank_distinct_experts(long long experts, long long per_token, long long ranks,
                                                          double tokens_routed, double skew) {
    require(ranks >= 1 && experts % ranks == 0, "expert-parallel ranks", count(ranks), "must divide the experts");
    require_non_negative("tokens routed", tokens_routed);
    const std::vector<double> q = detail::pick_chances(experts, per_token, skew);
    double distinct = 0.0;
    for (std::size_t i = 0; i < q.size(); i += static_cast<std::size_t>(ranks))
        distinct += 1.0 - detail::power(1.0 - q[i], static_cast<long long>(tokens_routed));
    return distinct;
}

/// Weights of all routed experts of one MoE layer.
[[nodiscard]] constexpr long long expert_weights_per_layer(const TransformerShape& m) {
    return m.experts == 0 ? 0 : m.experts * feed_forward_weights(m, m.expert_ffn);
}

/// Weights of every routed expert of the model: only the MoE layers have them
/// (DeepSeek-V3's first 3 layers are dense). Everything else, the shared
/// experts included (Dai et al. 2024, DeepSeekMoE, Sec. 3.2: every token goes
/// through them), is read by every pass like a dense model's weights.
[[nodiscard]] constexpr long long routed_expert_weights(const TransformerShape& m) {
    return moe_layers(m) * expert_weights_per_layer(m);
}

/// Matrix FLOPs of attention's scores and weighted values per token, forward,
/// against `context` earlier tokens: 2·heads·(Q·K width + V width)·context
/// (Q·Kᵀ and scores·V; with latent attention Q·K spans nope + rope dimensions,
/// DeepSeek-V2 Sec. 2.1.3). The projections are 2 FLOPs per weight.
[[nodiscard]] constexpr double attention_score_flops_per_token(const TransformerShape& m, double context) {
    const double qk = latent_attention(m) ? count(m.qk_nope_head_dim + m.qk_rope_head_dim) : count(head_dim(m));
    const double v = latent_attention(m) ? count(m.v_head_dim) : count(head_dim(m));
    return 2.0 * count(m.heads) * (qk + v) * context;
}

/// The same for one sequence of s tokens, averaged over the layers (a caller
/// multiplies by the layers): s·(the above at s), halved when causal masking
/// skips the upper triangle (the continuous s²/2). A local layer's scores lie in
/// a band of the window's width: s²/2 − (s − w)²/2 positions when causal
/// (Beltagy et al. 2020, Longformer, Sec. 3.1: linear in s), twice that when
/// the masked half is counted as the full square is.
[[nodiscard]] constexpr double attention_score_flops_per_sequence(const TransformerShape& m, double s, bool causal) {
    const double full = s * attention_score_flops_per_token(m, s) * (causal ? 0.5 : 1.0);
    const double w = count(m.sliding_window);
    if (m.sliding_window == 0 || s <= w) return full;
    const double band = attention_score_flops_per_token(m, 1.0) * (s * s - (s - w) * (s - w)) * (causal ? 0.5 : 1.0);
    return (count(global_attention_layers(m)) * full + count(local_attention_layers(m)) * band) / count(m.layers);
}

/// Bytes of all weights at `bytes_per_weight` (2 for BF16/FP16).
[[nodiscard]] constexpr Bytes weight_bytes(const TransformerShape& m, double bytes_per_weight) {
    return bytes(count(parameter_count(m)) * bytes_per_weight);
}

/// KV cache per token: a key and a value vector per layer per KV head
/// (2 · layers · kv_heads · head_dim values).
/// Latent attention caches the latent and the shared RoPE key instead:
/// (kv_lora_rank + qk_rope_head_dim) values per layer (DeepSeek-V2 Sec. 2.1.2, Table 1).
[[nodiscard]] constexpr BytesPerToken kv_cache_per_token(const TransformerShape& m, double bytes_per_value) {
    constexpr std::string_view what = "TransformerShape (KV cache values per token)";
    if (latent_attention(m))
        return bytes_per_token(count(checked_mul(m.layers, m.kv_lora_rank + m.qk_rope_head_dim, what)) *
                               bytes_per_value);
    return bytes_per_token(count(checked_mul(checked_mul(2 * m.layers, m.kv_heads, what), head_dim(m), what)) *
                           bytes_per_value);
}

/// The KV cache of one sequence of `context` tokens: kv_cache_per_token ×
/// context, but a local layer keeps only the last sliding_window tokens (Gemma
/// 2/3's "hybrid" cache; Gemma Team 2025, arXiv 2503.19786, Sec. 2, the 5:1 local/global interleaving).
[[nodiscard]] constexpr Bytes kv_cache_bytes(const TransformerShape& m, double bytes_per_value, Tokens context) {
    if (local_attention_layers(m) == 0) return kv_cache_per_token(m, bytes_per_value) * context;
    const double c = in(context, units::token);
    const double kept = count(global_attention_layers(m)) * c + count(local_attention_layers(m)) * within_window(m, c);
    return kv_cache_per_token(m, bytes_per_value) * tokens(kept / count(m.layers));
}

/// One token's hidden vector: what tensor-parallel GPUs all-reduce after each
/// split block and what pipeline stages hand to one another.
[[nodiscard]] constexpr BytesPerToken hidden_vector(const TransformerShape& m, double bytes_per_value) {
    return bytes_per_token(count(m.hidden) * bytes_per_value);
}

namespace detail {
/// Every field check of validated(TransformerShape) below in one pass of
/// predictable branches; the checks that name the failing field run only when it fails.
[[nodiscard]] constexpr bool usual_fields(const TransformerShape& m) {
    const auto in = [](long long v, long long low, long long high) { return v >= low && v <= high; };
    const bool sizes = in(m.layers, 1, limits::layers) && in(m.hidden, 1, limits::width) && in(m.ffn, 1, limits::width) &&
                       in(m.heads, 1, limits::heads) && in(m.kv_heads, 1, limits::heads) &&
                       in(m.vocabulary, 1, limits::vocabulary) && in(m.head_dim, 0, limits::width) &&
                       in(m.learned_positions, 0, limits::vocabulary) && in(m.experts, 0, limits::experts) &&
                       in(m.max_position_embeddings, 0, limits::sequence) && in(m.norms_per_layer, 0, 16) &&
                       in(m.sliding_window, 0, limits::sequence) && in(m.global_every, 0, limits::layers) &&
                       in(m.vision_weights, 0, limits::parameters) && in(m.shared_experts, 0, limits::experts) &&
                       (m.shared_expert_ffn <= limits::width) && in(m.dense_layers, 0, m.layers) &&
                       in(m.moe_every, 1, limits::layers) && in(m.q_lora_rank, 0, limits::width) &&
                       in(m.kv_lora_rank, 0, limits::width) && in(m.qk_nope_head_dim, 0, limits::width) &&
                       in(m.qk_rope_head_dim, 0, limits::width) && in(m.v_head_dim, 0, limits::width);
    return sizes && m.heads % m.kv_heads == 0 && (m.head_dim != 0 || m.hidden % m.heads == 0) &&
           (m.experts == 0 || (in(m.experts_per_token, 1, m.experts) && in(m.expert_ffn, 1, limits::width) &&
                               moe_layers(m) >= 1)) &&
           (m.shared_experts == 0 || m.shared_expert_ffn >= 1) &&
           (m.kv_lora_rank == 0 || (m.qk_nope_head_dim + m.qk_rope_head_dim >= 1 && m.v_head_dim >= 1)) &&
           m.heads * head_dim(m) <= limits::width;
}
/// The field checks one by one, naming the first that fails.
[[gnu::cold, gnu::noinline]] constexpr void name_field_fault(const TransformerShape& m) {
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
    require_non_negative("TransformerShape.max_position_embeddings", count(m.max_position_embeddings));
    require(m.norms_per_layer >= 0 && m.norms_per_layer <= 16, "TransformerShape.norms_per_layer",
            count(m.norms_per_layer), "must be in [0, 16]");
    require(m.sliding_window >= 0 && m.sliding_window <= limits::sequence, "TransformerShape.sliding_window",
            count(m.sliding_window), "must be in [0, 2^40]");
    require(m.global_every >= 0 && m.global_every <= limits::layers, "TransformerShape.global_every",
            count(m.global_every), "must be in [0, 2^24]");
    require(m.vision_weights >= 0 && m.vision_weights <= limits::parameters, "TransformerShape.vision_weights",
            count(m.vision_weights), "must be in [0, 2^53]");
    require(m.max_position_embeddings <= limits::sequence, "TransformerShape.max_position_embeddings",
            count(m.max_position_embeddings), "must be at most 2^40");
    require(m.experts == 0 || (m.expert_ffn >= 1 && m.expert_ffn <= limits::width), "TransformerShape.expert_ffn",
            count(m.expert_ffn), "must be in [1, 2^30] for a mixture of experts");
    require(m.shared_experts >= 0 && m.shared_experts <= limits::experts, "TransformerShape.shared_experts",
            count(m.shared_experts), "must be in [0, 2^24]");
    require(m.shared_experts == 0 || m.shared_expert_ffn >= 1, "TransformerShape.shared_expert_ffn",
            count(m.shared_expert_ffn), "must be at least 1 when there are shared experts");
    require(m.shared_expert_ffn <= limits::width, "TransformerShape.shared_expert_ffn", count(m.shared_expert_ffn),
            "must be at most 2^30");
    require(m.dense_layers >= 0 && m.dense_layers <= m.layers, "TransformerShape.dense_layers",
            count(m.dense_layers), "must lie between 0 and the layers");
    require(m.moe_every >= 1 && m.moe_every <= limits::layers, "TransformerShape.moe_every", count(m.moe_every),
            "must be in [1, 2^24]");
    require(m.experts == 0 || moe_layers(m) >= 1, "TransformerShape.moe_every", count(m.moe_every),
            "leaves no MoE layer after the dense ones: a model with experts needs one");
    for (long long x : {m.q_lora_rank, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim})
        require(x >= 0 && x <= limits::width, "TransformerShape's latent attention sizes", count(x),
                "must be in [0, 2^30]");
    require(m.kv_lora_rank == 0 || (m.qk_nope_head_dim + m.qk_rope_head_dim >= 1 && m.v_head_dim >= 1),
            "TransformerShape.v_head_dim", count(m.v_head_dim),
            "must be at least 1, with qk_nope_head_dim + qk_rope_head_dim, for latent attention");
    require(checked_mul(m.heads, head_dim(m), "TransformerShape.heads × head_dim") <= limits::width,
            "TransformerShape.heads × head_dim", count(m.heads * head_dim(m)), "must be at most 2^30");
}

/// validated(m)'s checks, returning the weight count they work out (parameter_count).
[[nodiscard]] constexpr long long validated_weights(const TransformerShape& m) {
    if (!usual_fields(m)) [[unlikely]]
        name_field_fault(m);
    const long long weights = parameter_count(m);
    if (weights > limits::parameters)
        reject_exact("TransformerShape (parameter count)", std::to_string(weights),
                     "must be at most 2^53 = 9007199254740992");
    (void)kv_cache_per_token(m, 1.0);
    return weights;
}
}  // namespace detail

/// Checks the shape: every count at least 1 and at most its bound
/// (napkin/checked.hpp limits), heads split evenly, and the weight count within
/// limits::parameters, so every count above is exact.
[[nodiscard]] constexpr const TransformerShape& validated(const TransformerShape& m) {
    (void)detail::validated_weights(m);
    return m;
}

}  // namespace napkin
