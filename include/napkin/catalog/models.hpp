// napkin/catalog/models.hpp — published model shapes, each with its source.
#pragma once

#include <napkin/model.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace napkin::catalog {

// Llama 3.1 8B: config.json of meta-llama/Llama-3.1-8B on Hugging Face.
inline constexpr TransformerShape llama3_1_8b = validated(TransformerShape{
    .name = "llama3.1-8b", .layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false});

// Llama 3.1 70B: config.json of meta-llama/Llama-3.1-70B on Hugging Face.
inline constexpr TransformerShape llama3_1_70b = validated(TransformerShape{
    .name = "llama3.1-70b", .layers = 80, .hidden = 8192, .ffn = 28672, .heads = 64, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false});

// Llama 3.1 405B: Table 3 of "The Llama 3 Herd of Models" (arXiv 2407.21783):
// 126 layers, model dimension 16,384, FFN 53,248, 128 heads, 8 KV heads; the
// vocabulary and untied output layer as in the 8B and 70B files.
inline constexpr TransformerShape llama3_1_405b = validated(TransformerShape{
    .name = "llama3.1-405b", .layers = 126, .hidden = 16384, .ffn = 53248, .heads = 128, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false});

inline constexpr std::array models{&llama3_1_8b, &llama3_1_70b, &llama3_1_405b};

[[nodiscard]] constexpr std::optional<TransformerShape> find_model(std::string_view name) {
    for (const TransformerShape* model : models)
        if (model->name == name) return *model;
    return std::nullopt;
}

}  // namespace napkin::catalog
