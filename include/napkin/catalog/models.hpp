// SPDX-License-Identifier: MIT
// napkin/catalog/models.hpp — published model shapes, each with its source.
#pragma once

#include <napkin/model.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace napkin::catalog {

// Llama 3.1 8B: config.json of meta-llama/Llama-3.1-8B on Hugging Face
// (max_position_embeddings 131,072, the 128K context of all three sizes).
inline constexpr TransformerShape llama3_1_8b = validated(TransformerShape{
    .name = "llama3.1-8b", .layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false, .max_position_embeddings = 131072});

// Llama 3.1 70B: config.json of meta-llama/Llama-3.1-70B on Hugging Face.
inline constexpr TransformerShape llama3_1_70b = validated(TransformerShape{
    .name = "llama3.1-70b", .layers = 80, .hidden = 8192, .ffn = 28672, .heads = 64, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false, .max_position_embeddings = 131072});

// Llama 3.1 405B: Table 3 of "The Llama 3 Herd of Models" (arXiv 2407.21783):
// 126 layers, model dimension 16,384, FFN 53,248, 128 heads, 8 KV heads; the
// vocabulary, untied output layer and 131,072 positions as in the 8B and 70B
// files (the paper's 128K context, Sec. 3.4.2).
inline constexpr TransformerShape llama3_1_405b = validated(TransformerShape{
    .name = "llama3.1-405b", .layers = 126, .hidden = 16384, .ffn = 53248, .heads = 128, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false, .max_position_embeddings = 131072});

// GPT-style shapes (LayerNorm with biases, 4h GELU MLP, learned positions,
// the output layer tied to the word embedding as in GPT-2 and Megatron-LM's
// default), with Megatron-LM's padded vocabulary of 51,200 and 2,048 positions.
// Korthikanti et al. 2022 (arXiv 2205.05198), Table 3: 22B (64 heads, h 6,144,
// 48 layers), 175B = GPT-3 (96, 12,288, 96; also Brown et al. 2020, Table 2.1),
// 530B = Turing-NLG (128, 20,480, 105; also Smith et al. 2022), 1T (160,
// 25,600, 128; also Narayanan et al. 2021, Table 1).
inline constexpr TransformerShape megatron_22b = validated(TransformerShape{
    .name = "megatron-22b", .layers = 48, .hidden = 6144, .ffn = 4LL * 6144, .heads = 64, .kv_heads = 64,
    .vocabulary = 51200, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 2048});
inline constexpr TransformerShape gpt3_175b = validated(TransformerShape{
    .name = "gpt3-175b", .layers = 96, .hidden = 12288, .ffn = 4LL * 12288, .heads = 96, .kv_heads = 96,
    .vocabulary = 51200, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 2048});
inline constexpr TransformerShape turing_nlg_530b = validated(TransformerShape{
    .name = "turing-nlg-530b", .layers = 105, .hidden = 20480, .ffn = 4LL * 20480, .heads = 128, .kv_heads = 128,
    .vocabulary = 51200, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 2048});
inline constexpr TransformerShape megatron_1t = validated(TransformerShape{
    .name = "megatron-1t", .layers = 128, .hidden = 25600, .ffn = 4LL * 25600, .heads = 160, .kv_heads = 160,
    .vocabulary = 51200, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 2048});

// GPT-2 (Radford et al. 2019, Table 2; config.json of openai-community/gpt2,
// gpt2-medium, gpt2-large, gpt2-xl on Hugging Face): vocabulary 50,257, 1,024
// positions, tied output layer. gpt2-small has the published 124,439,808 weights.
inline constexpr TransformerShape gpt2_small = validated(TransformerShape{
    .name = "gpt2-small", .layers = 12, .hidden = 768, .ffn = 4LL * 768, .heads = 12, .kv_heads = 12,
    .vocabulary = 50257, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 1024});
inline constexpr TransformerShape gpt2_medium = validated(TransformerShape{
    .name = "gpt2-medium", .layers = 24, .hidden = 1024, .ffn = 4LL * 1024, .heads = 16, .kv_heads = 16,
    .vocabulary = 50257, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 1024});
inline constexpr TransformerShape gpt2_large = validated(TransformerShape{
    .name = "gpt2-large", .layers = 36, .hidden = 1280, .ffn = 4LL * 1280, .heads = 20, .kv_heads = 20,
    .vocabulary = 50257, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 1024});
inline constexpr TransformerShape gpt2_xl = validated(TransformerShape{
    .name = "gpt2-xl", .layers = 48, .hidden = 1600, .ffn = 4LL * 1600, .heads = 25, .kv_heads = 25,
    .vocabulary = 50257, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 1024});

// Models from their published config.json on Hugging Face (the fields napkin
// reads are in tests/data/*_config.json; tests/unit/catalog_models.cpp checks
// each against its file and against the total its model card or hub page prints).

// Llama 3.2 1B and 3B (meta-llama/Llama-3.2-1B, -3B): tied embeddings; the
// card's table prints 1.23B and 3.21B.
inline constexpr TransformerShape llama3_2_1b = validated(TransformerShape{
    .name = "llama3.2-1b", .layers = 16, .hidden = 2048, .ffn = 8192, .heads = 32, .kv_heads = 8,
    .head_dim = 64, .vocabulary = 128256, .tied_embeddings = true});
inline constexpr TransformerShape llama3_2_3b = validated(TransformerShape{
    .name = "llama3.2-3b", .layers = 28, .hidden = 3072, .ffn = 8192, .heads = 24, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = true});

// Llama 3.3 70B (meta-llama/Llama-3.3-70B-Instruct): Llama 3.1 70B's shape;
// the hub prints 70.6B.
inline constexpr TransformerShape llama3_3_70b = validated(TransformerShape{
    .name = "llama3.3-70b", .layers = 80, .hidden = 8192, .ffn = 28672, .heads = 64, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false});

// Mistral 7B (mistralai/Mistral-7B-v0.1): the hub prints 7.24B.
inline constexpr TransformerShape mistral_7b = validated(TransformerShape{
    .name = "mistral-7b", .layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8,
    .vocabulary = 32000, .tied_embeddings = false});

// Mixtral 8x7B and 8x22B (mistralai/Mixtral-8x7B-v0.1, -8x22B-v0.1): 8 experts,
// 2 per token; the hub prints 46.7B and 141B.
inline constexpr TransformerShape mixtral_8x7b = validated(TransformerShape{
    .name = "mixtral-8x7b", .layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8,
    .vocabulary = 32000, .tied_embeddings = false, .experts = 8, .experts_per_token = 2, .expert_ffn = 14336});
inline constexpr TransformerShape mixtral_8x22b = validated(TransformerShape{
    .name = "mixtral-8x22b", .layers = 56, .hidden = 6144, .ffn = 16384, .heads = 48, .kv_heads = 8,
    .vocabulary = 32000, .tied_embeddings = false, .experts = 8, .experts_per_token = 2, .expert_ffn = 16384});

// Qwen2.5 0.5B, 7B and 72B (Qwen/Qwen2.5-0.5B, -7B, -72B): biases on Q, K and V
// (model_type qwen2; Qwen2 technical report, arXiv 2407.10671, Sec. 2.1); the
// 0.5B ties its embeddings. The cards print 0.49B (0.36B without embeddings),
// 7.61B (6.53B) and 72.7B.
inline constexpr TransformerShape qwen2_5_0_5b = validated(TransformerShape{
    .name = "qwen2.5-0.5b", .layers = 24, .hidden = 896, .ffn = 4864, .heads = 14, .kv_heads = 2,
    .vocabulary = 151936, .tied_embeddings = true, .qkv_bias = true, .max_position_embeddings = 32768});
inline constexpr TransformerShape qwen2_5_7b = validated(TransformerShape{
    .name = "qwen2.5-7b", .layers = 28, .hidden = 3584, .ffn = 18944, .heads = 28, .kv_heads = 4,
    .vocabulary = 152064, .tied_embeddings = false, .qkv_bias = true, .max_position_embeddings = 131072});
inline constexpr TransformerShape qwen2_5_72b = validated(TransformerShape{
    .name = "qwen2.5-72b", .layers = 80, .hidden = 8192, .ffn = 29568, .heads = 64, .kv_heads = 8,
    .vocabulary = 152064, .tied_embeddings = false, .qkv_bias = true, .max_position_embeddings = 131072});

// Qwen3 8B and 32B (Qwen/Qwen3-8B, -32B): no biases, an RMSNorm over each
// head's 128 values of Q and of K (model_type qwen3; Qwen3 technical report,
// arXiv 2505.09388, Sec. 2): 2 × 128 weights a layer. The cards print 8.2B
// (6.95B without embeddings) and 32.8B (31.2B).
inline constexpr TransformerShape qwen3_8b = validated(TransformerShape{
    .name = "qwen3-8b", .layers = 36, .hidden = 4096, .ffn = 12288, .heads = 32, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 151936, .tied_embeddings = false, .qk_norm = true,
    .max_position_embeddings = 40960});
inline constexpr TransformerShape qwen3_32b = validated(TransformerShape{
    .name = "qwen3-32b", .layers = 64, .hidden = 5120, .ffn = 25600, .heads = 64, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 151936, .tied_embeddings = false, .qk_norm = true,
    .max_position_embeddings = 40960});

// Not in the catalog: Gemma 2 and Gemma 3 (google/gemma-2-*, gemma-3-*). Their
// layers carry four RMSNorms (before and after attention and the feed-forward
// block) where TransformerShape counts two, so no entry here would give their
// published weight counts exactly; the 4B and larger Gemma 3 also carry a
// vision encoder. Their head_dim of 256, tied embeddings, GeGLU (three
// matrices, as SwiGLU) and Gemma 3's Q/K norms are representable; the logit
// soft-capping changes no weight.

// Phi-3-mini (microsoft/Phi-3-mini-4k-instruct; fused qkv, the same weights)
// and Phi-4 (microsoft/phi-4): the hub prints 3.82B and 14.7B.
inline constexpr TransformerShape phi3_mini = validated(TransformerShape{
    .name = "phi3-mini", .layers = 32, .hidden = 3072, .ffn = 8192, .heads = 32, .kv_heads = 32,
    .vocabulary = 32064, .tied_embeddings = false});
inline constexpr TransformerShape phi4 = validated(TransformerShape{
    .name = "phi4", .layers = 40, .hidden = 5120, .ffn = 17920, .heads = 40, .kv_heads = 10,
    .vocabulary = 100352, .tied_embeddings = false});

inline constexpr std::array models{&llama3_1_8b, &llama3_1_70b, &llama3_1_405b,
                                   &megatron_22b, &gpt3_175b, &turing_nlg_530b, &megatron_1t,
                                   &gpt2_small, &gpt2_medium, &gpt2_large, &gpt2_xl,
                                   &llama3_2_1b, &llama3_2_3b, &llama3_3_70b, &mistral_7b, &mixtral_8x7b,
                                   &mixtral_8x22b, &qwen2_5_0_5b, &qwen2_5_7b, &qwen2_5_72b, &qwen3_8b, &qwen3_32b,
                                   &phi3_mini, &phi4};

[[nodiscard]] constexpr std::optional<TransformerShape> find_model(std::string_view name) {
    for (const TransformerShape* model : models)
        if (model->name == name) return *model;
    return std::nullopt;
}

}  // namespace napkin::catalog
