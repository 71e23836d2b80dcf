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

inline constexpr std::array models{&llama3_1_8b, &llama3_1_70b, &llama3_1_405b,
                                   &megatron_22b, &gpt3_175b, &turing_nlg_530b, &megatron_1t,
                                   &gpt2_small, &gpt2_medium, &gpt2_large, &gpt2_xl};

[[nodiscard]] constexpr std::optional<TransformerShape> find_model(std::string_view name) {
    for (const TransformerShape* model : models)
        if (model->name == name) return *model;
    return std::nullopt;
}

}  // namespace napkin::catalog
