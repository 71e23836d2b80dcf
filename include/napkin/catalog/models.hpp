// SPDX-License-Identifier: MIT
// napkin/catalog/models.hpp — published model shapes, each with its source.
#pragma once

#include <napkin/model.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace napkin::catalog {

/// Llama 3.1 8B: config.json of meta-llama/Llama-3.1-8B on Hugging Face
/// (max_position_embeddings 131,072, the 128K context of all three sizes).
inline constexpr TransformerShape llama3_1_8b = validated(TransformerShape{
    .name = "llama3.1-8b", .layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false, .max_position_embeddings = 131072});

/// Llama 3.1 70B: config.json of meta-llama/Llama-3.1-70B on Hugging Face.
inline constexpr TransformerShape llama3_1_70b = validated(TransformerShape{
    .name = "llama3.1-70b", .layers = 80, .hidden = 8192, .ffn = 28672, .heads = 64, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false, .max_position_embeddings = 131072});

/// Llama 3.1 405B: Table 3 of "The Llama 3 Herd of Models" (arXiv 2407.21783):
/// 126 layers, model dimension 16,384, FFN 53,248, 128 heads, 8 KV heads; the
/// vocabulary, untied output layer and 131,072 positions as in the 8B and 70B
/// files (the paper's 128K context, Sec. 3.4.2).
inline constexpr TransformerShape llama3_1_405b = validated(TransformerShape{
    .name = "llama3.1-405b", .layers = 126, .hidden = 16384, .ffn = 53248, .heads = 128, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false, .max_position_embeddings = 131072});

/// GPT-style shapes (LayerNorm with biases, 4h GELU MLP, learned positions,
/// the output layer tied to the word embedding as in GPT-2 and Megatron-LM's
/// default), with Megatron-LM's padded vocabulary of 51,200 and 2,048 positions.
/// Korthikanti et al. 2022 (arXiv 2205.05198), Table 3: 22B (64 heads, h 6,144,
/// 48 layers), 175B = GPT-3 (96, 12,288, 96; also Brown et al. 2020, Table 2.1),
/// 530B = Turing-NLG (128, 20,480, 105; also Smith et al. 2022), 1T (160,
/// 25,600, 128; also Narayanan et al. 2021, Table 1).
inline constexpr TransformerShape megatron_22b = validated(TransformerShape{
    .name = "megatron-22b", .layers = 48, .hidden = 6144, .ffn = 4LL * 6144, .heads = 64, .kv_heads = 64,
    .vocabulary = 51200, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 2048});
/// GPT-3 175B (Korthikanti et al. 2022, Table 3; Brown et al. 2020): 96 layers, h 12,288, 96 heads.
inline constexpr TransformerShape gpt3_175b = validated(TransformerShape{
    .name = "gpt3-175b", .layers = 96, .hidden = 12288, .ffn = 4LL * 12288, .heads = 96, .kv_heads = 96,
    .vocabulary = 51200, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 2048});
/// Turing-NLG 530B (Korthikanti et al. 2022, Table 3; Smith et al. 2022): 105 layers, h 20,480, 128 heads.
inline constexpr TransformerShape turing_nlg_530b = validated(TransformerShape{
    .name = "turing-nlg-530b", .layers = 105, .hidden = 20480, .ffn = 4LL * 20480, .heads = 128, .kv_heads = 128,
    .vocabulary = 51200, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 2048});
/// Megatron 1T (Korthikanti et al. 2022, Table 3; Narayanan et al. 2021): 128 layers, h 25,600, 160 heads.
inline constexpr TransformerShape megatron_1t = validated(TransformerShape{
    .name = "megatron-1t", .layers = 128, .hidden = 25600, .ffn = 4LL * 25600, .heads = 160, .kv_heads = 160,
    .vocabulary = 51200, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 2048});

/// GPT-2 (Radford et al. 2019, Table 2; config.json of openai-community/gpt2,
/// gpt2-medium, gpt2-large, gpt2-xl on Hugging Face): vocabulary 50,257, 1,024
/// positions, tied output layer. gpt2-small has the published 124,439,808 weights.
inline constexpr TransformerShape gpt2_small = validated(TransformerShape{
    .name = "gpt2-small", .layers = 12, .hidden = 768, .ffn = 4LL * 768, .heads = 12, .kv_heads = 12,
    .vocabulary = 50257, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 1024});
/// GPT-2 medium (openai-community/gpt2-medium): 24 layers, hidden 1,024, 16 heads.
inline constexpr TransformerShape gpt2_medium = validated(TransformerShape{
    .name = "gpt2-medium", .layers = 24, .hidden = 1024, .ffn = 4LL * 1024, .heads = 16, .kv_heads = 16,
    .vocabulary = 50257, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 1024});
/// GPT-2 large (openai-community/gpt2-large): 36 layers, hidden 1,280, 20 heads.
inline constexpr TransformerShape gpt2_large = validated(TransformerShape{
    .name = "gpt2-large", .layers = 36, .hidden = 1280, .ffn = 4LL * 1280, .heads = 20, .kv_heads = 20,
    .vocabulary = 50257, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 1024});
/// GPT-2 XL (openai-community/gpt2-xl): 48 layers, hidden 1,600, 25 heads.
inline constexpr TransformerShape gpt2_xl = validated(TransformerShape{
    .name = "gpt2-xl", .layers = 48, .hidden = 1600, .ffn = 4LL * 1600, .heads = 25, .kv_heads = 25,
    .vocabulary = 50257, .tied_embeddings = true, .feed_forward = FeedForward::plain, .biases = true,
    .learned_positions = 1024});

// Models from their published config.json on Hugging Face (the fields napkin
// reads are in tests/data/*_config.json; tests/unit/catalog_models.cpp checks
// each against its file and against the total its model card or hub page prints).

/// Llama 3.2 1B and 3B (meta-llama/Llama-3.2-1B, -3B): tied embeddings; the
/// card's table prints 1.23B and 3.21B.
inline constexpr TransformerShape llama3_2_1b = validated(TransformerShape{
    .name = "llama3.2-1b", .layers = 16, .hidden = 2048, .ffn = 8192, .heads = 32, .kv_heads = 8,
    .head_dim = 64, .vocabulary = 128256, .tied_embeddings = true});
/// Llama 3.2 3B (meta-llama/Llama-3.2-3B): 28 layers, hidden 3,072, 24 heads (8 KV); the card prints 3.21B.
inline constexpr TransformerShape llama3_2_3b = validated(TransformerShape{
    .name = "llama3.2-3b", .layers = 28, .hidden = 3072, .ffn = 8192, .heads = 24, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = true});

/// Llama 3.3 70B (meta-llama/Llama-3.3-70B-Instruct): Llama 3.1 70B's shape;
/// the hub prints 70.6B.
inline constexpr TransformerShape llama3_3_70b = validated(TransformerShape{
    .name = "llama3.3-70b", .layers = 80, .hidden = 8192, .ffn = 28672, .heads = 64, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 128256, .tied_embeddings = false});

/// Mistral 7B (mistralai/Mistral-7B-v0.1): the hub prints 7.24B.
inline constexpr TransformerShape mistral_7b = validated(TransformerShape{
    .name = "mistral-7b", .layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8,
    .vocabulary = 32000, .tied_embeddings = false});

/// Mixtral 8x7B and 8x22B (mistralai/Mixtral-8x7B-v0.1, -8x22B-v0.1): 8 experts,
/// 2 per token; the hub prints 46.7B and 141B.
inline constexpr TransformerShape mixtral_8x7b = validated(TransformerShape{
    .name = "mixtral-8x7b", .layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8,
    .vocabulary = 32000, .tied_embeddings = false, .experts = 8, .experts_per_token = 2, .expert_ffn = 14336});
/// Mixtral 8x22B (mistralai/Mixtral-8x22B-v0.1): 56 layers, hidden 6,144, 8 experts of 16,384, 2 per token.
inline constexpr TransformerShape mixtral_8x22b = validated(TransformerShape{
    .name = "mixtral-8x22b", .layers = 56, .hidden = 6144, .ffn = 16384, .heads = 48, .kv_heads = 8,
    .vocabulary = 32000, .tied_embeddings = false, .experts = 8, .experts_per_token = 2, .expert_ffn = 16384});

/// Qwen2.5 0.5B, 7B and 72B (Qwen/Qwen2.5-0.5B, -7B, -72B): biases on Q, K and V
/// (model_type qwen2; Qwen2 technical report, arXiv 2407.10671, Sec. 2.1); the
/// 0.5B ties its embeddings. The cards print 0.49B (0.36B without embeddings),
/// 7.61B (6.53B) and 72.7B.
inline constexpr TransformerShape qwen2_5_0_5b = validated(TransformerShape{
    .name = "qwen2.5-0.5b", .layers = 24, .hidden = 896, .ffn = 4864, .heads = 14, .kv_heads = 2,
    .vocabulary = 151936, .tied_embeddings = true, .qkv_bias = true, .max_position_embeddings = 32768});
/// Qwen2.5 7B (Qwen/Qwen2.5-7B): 28 layers, hidden 3,584, 28 heads (4 KV), biases on Q, K and V.
inline constexpr TransformerShape qwen2_5_7b = validated(TransformerShape{
    .name = "qwen2.5-7b", .layers = 28, .hidden = 3584, .ffn = 18944, .heads = 28, .kv_heads = 4,
    .vocabulary = 152064, .tied_embeddings = false, .qkv_bias = true, .max_position_embeddings = 131072});
/// Qwen2.5 72B (Qwen/Qwen2.5-72B): 80 layers, hidden 8,192, 64 heads (8 KV), biases on Q, K and V.
inline constexpr TransformerShape qwen2_5_72b = validated(TransformerShape{
    .name = "qwen2.5-72b", .layers = 80, .hidden = 8192, .ffn = 29568, .heads = 64, .kv_heads = 8,
    .vocabulary = 152064, .tied_embeddings = false, .qkv_bias = true, .max_position_embeddings = 131072});

/// Qwen3 8B and 32B (Qwen/Qwen3-8B, -32B): no biases, an RMSNorm over each
/// head's 128 values of Q and of K (model_type qwen3; Qwen3 technical report,
/// arXiv 2505.09388, Sec. 2): 2 × 128 weights a layer. The cards print 8.2B
/// (6.95B without embeddings) and 32.8B (31.2B).
inline constexpr TransformerShape qwen3_8b = validated(TransformerShape{
    .name = "qwen3-8b", .layers = 36, .hidden = 4096, .ffn = 12288, .heads = 32, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 151936, .tied_embeddings = false, .qk_norm = true,
    .max_position_embeddings = 40960});
/// Qwen3 32B (Qwen/Qwen3-32B): 64 layers, hidden 5,120, 64 heads of 128 (8 KV), Q/K norms.
inline constexpr TransformerShape qwen3_32b = validated(TransformerShape{
    .name = "qwen3-32b", .layers = 64, .hidden = 5120, .ffn = 25600, .heads = 64, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 151936, .tied_embeddings = false, .qk_norm = true,
    .max_position_embeddings = 40960});

/// Qwen3-30B-A3B and Qwen3-235B-A22B (Qwen/Qwen3-30B-A3B, -235B-A22B;
/// model_type qwen3_moe, Qwen3 technical report, arXiv 2505.09388, Sec. 2 and
/// Table 2): every layer MoE, 128 experts of which 8 per token, no shared
/// expert, Q/K norms. The cards print 30.5B (3.3B activated) and 235B (22B).
inline constexpr TransformerShape qwen3_30b_a3b = validated(TransformerShape{
    .name = "qwen3-30b-a3b", .layers = 48, .hidden = 2048, .ffn = 6144, .heads = 32, .kv_heads = 4,
    .head_dim = 128, .vocabulary = 151936, .tied_embeddings = false, .experts = 128, .experts_per_token = 8,
    .expert_ffn = 768, .qk_norm = true, .max_position_embeddings = 40960});
/// Qwen3-235B-A22B (Qwen/Qwen3-235B-A22B): 94 layers, hidden 4,096, 128 experts of 1,536, 8 per token.
inline constexpr TransformerShape qwen3_235b_a22b = validated(TransformerShape{
    .name = "qwen3-235b-a22b", .layers = 94, .hidden = 4096, .ffn = 12288, .heads = 64, .kv_heads = 4,
    .head_dim = 128, .vocabulary = 151936, .tied_embeddings = false, .experts = 128, .experts_per_token = 8,
    .expert_ffn = 1536, .qk_norm = true, .max_position_embeddings = 40960});

/// DeepSeek-V3 (deepseek-ai/DeepSeek-V3; DeepSeek-V3 technical report, arXiv
/// 2412.19437, Sec. 4.2): 61 layers, the first 3 dense (FFN 18,432), then 256
/// routed experts (8 per token) and 1 shared expert of 2,048; multi-head latent
/// attention with a 512-value KV latent, a 1,536-value query latent, 128 heads of
/// 128 + 64 (RoPE) for Q·K and 128 for V. The card prints 671B total, 37B
/// activated (the 14B multi-token-prediction module aside).
inline constexpr TransformerShape deepseek_v3 = validated(TransformerShape{
    .name = "deepseek-v3", .layers = 61, .hidden = 7168, .ffn = 18432, .heads = 128, .kv_heads = 128,
    .vocabulary = 129280, .tied_embeddings = false, .experts = 256, .experts_per_token = 8, .expert_ffn = 2048,
    .shared_experts = 1, .shared_expert_ffn = 2048, .dense_layers = 3, .q_lora_rank = 1536, .kv_lora_rank = 512,
    .qk_nope_head_dim = 128, .qk_rope_head_dim = 64, .v_head_dim = 128, .max_position_embeddings = 163840});

/// DeepSeek-R1 (deepseek-ai/DeepSeek-R1, arXiv 2501.12948) and DeepSeek-V3.1
/// (deepseek-ai/DeepSeek-V3.1): post-trained from DeepSeek-V3-Base, the same
/// DeepseekV3ForCausalLM shape as V3 (their cards: 671B total, 37B activated).
inline constexpr TransformerShape deepseek_r1 = [] {
    TransformerShape m = deepseek_v3;
    m.name = "deepseek-r1";
    return m;
}();
/// DeepSeek-V3.1 (deepseek-ai/DeepSeek-V3.1): DeepSeek-V3's shape under its own name.
inline constexpr TransformerShape deepseek_v3_1 = [] {
    TransformerShape m = deepseek_v3;
    m.name = "deepseek-v3.1";
    return m;
}();

/// Kimi K2 (moonshotai/Kimi-K2-Instruct, model_type kimi_k2 on DeepSeek-V3's
/// architecture; Kimi Team 2025, arXiv 2507.20534, Sec. 2.3): 61 layers, the
/// first dense, then 384 routed experts (8 per token) and 1 shared of 2,048;
/// latent attention with 64 heads. The card prints 1T total, 32B activated.
inline constexpr TransformerShape kimi_k2 = validated(TransformerShape{
    .name = "kimi-k2", .layers = 61, .hidden = 7168, .ffn = 18432, .heads = 64, .kv_heads = 64,
    .vocabulary = 163840, .tied_embeddings = false, .experts = 384, .experts_per_token = 8, .expert_ffn = 2048,
    .shared_experts = 1, .shared_expert_ffn = 2048, .dense_layers = 1, .q_lora_rank = 1536, .kv_lora_rank = 512,
    .qk_nope_head_dim = 128, .qk_rope_head_dim = 64, .v_head_dim = 128, .max_position_embeddings = 131072});

/// GLM-4.5 (zai-org/GLM-4.5, model_type glm4_moe; GLM-4.5 Team 2025, arXiv
/// 2508.06471, Table 1): 92 layers, the first 3 dense (FFN 12,288), then 160
/// routed experts (8 per token) and 1 shared of 1,536; 96 heads of 128 over a
/// 5,120 width, 8 KV heads, biases on Q, K and V, Q/K norms. The card prints
/// 355B total, 32B activated (its multi-token-prediction layer aside).
inline constexpr TransformerShape glm4_5 = validated(TransformerShape{
    .name = "glm-4.5", .layers = 92, .hidden = 5120, .ffn = 12288, .heads = 96, .kv_heads = 8, .head_dim = 128,
    .vocabulary = 151552, .tied_embeddings = false, .experts = 160, .experts_per_token = 8, .expert_ffn = 1536,
    .shared_experts = 1, .shared_expert_ffn = 1536, .dense_layers = 3, .qkv_bias = true, .qk_norm = true,
    .max_position_embeddings = 131072});

/// Qwen3-235B-A22B-Instruct-2507 (Qwen/Qwen3-235B-A22B-Instruct-2507): the
/// shape of Qwen3-235B-A22B with 262,144 positions. Qwen3-Coder-480B-A35B
/// (Qwen/Qwen3-Coder-480B-A35B-Instruct, qwen3_moe): 62 layers of 6,144, 96
/// heads (8 KV), 160 experts of 2,560, 8 per token. Cards: 235B (22B
/// activated), 480B (35B activated).
inline constexpr TransformerShape qwen3_235b_a22b_2507 = [] {
    TransformerShape m = qwen3_235b_a22b;
    m.name = "qwen3-235b-a22b-2507";
    m.max_position_embeddings = 262144;
    return m;
}();
/// Qwen3-Coder-480B-A35B (Qwen/Qwen3-Coder-480B-A35B-Instruct): 62 layers of 6,144, 160 experts of 2,560.
inline constexpr TransformerShape qwen3_coder_480b_a35b = validated(TransformerShape{
    .name = "qwen3-coder-480b-a35b", .layers = 62, .hidden = 6144, .ffn = 8192, .heads = 96, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 151936, .tied_embeddings = false, .experts = 160, .experts_per_token = 8,
    .expert_ffn = 2560, .qk_norm = true, .max_position_embeddings = 262144});

/// Mistral Large 2 (mistralai/Mistral-Large-Instruct-2407): 88 layers of
/// 12,288, 96 heads (8 KV), SwiGLU of 28,672, a 32,768 vocabulary. The card
/// prints 123B.
inline constexpr TransformerShape mistral_large_2 = validated(TransformerShape{
    .name = "mistral-large-2", .layers = 88, .hidden = 12288, .ffn = 28672, .heads = 96, .kv_heads = 8,
    .vocabulary = 32768, .tied_embeddings = false, .max_position_embeddings = 131072});

/// gpt-oss-20b and gpt-oss-120b (openai/gpt-oss-20b, -120b; OpenAI, "gpt-oss
/// model card", 2025, Table 1): 24 and 36 layers of 2,880, 64 heads of 64 (8
/// KV) with biases on Q, K and V, 32 and 128 experts of 2,880 (4 per token),
/// a 128-token window on every other layer. Cards: 21B (3.6B active), 117B
/// (5.1B active).
inline constexpr TransformerShape gpt_oss_20b = validated(TransformerShape{
    .name = "gpt-oss-20b", .layers = 24, .hidden = 2880, .ffn = 2880, .heads = 64, .kv_heads = 8, .head_dim = 64,
    .vocabulary = 201088, .tied_embeddings = false, .experts = 32, .experts_per_token = 4, .expert_ffn = 2880,
    .qkv_bias = true, .max_position_embeddings = 131072, .sliding_window = 128, .global_every = 2});
/// gpt-oss-120b (openai/gpt-oss-120b): gpt-oss-20b's shape with 36 layers and 128 experts.
inline constexpr TransformerShape gpt_oss_120b = [] {
    TransformerShape m = gpt_oss_20b;
    m.name = "gpt-oss-120b";
    m.layers = 36;
    m.experts = 128;
    return validated(m);
}();

/// Llama 4 Scout and Maverick (meta-llama/Llama-4-Scout-17B-16E,
/// -Maverick-17B-128E; Meta's Llama 4 model cards, 2025): 48 layers of 5,120,
/// 40 heads of 128 (8 KV), a shared expert of 8,192 beside 16 (Scout) or 128
/// (Maverick) routed ones, 1 per token; Maverick's MoE on every other layer,
/// its dense layers of 16,384. Chunked attention of 8,192 on three layers of
/// four, priced as a window. The vision tower: 34 layers of 1,408, MLP 5,632,
/// 336² in patches of 14. Cards: 109B (17B active), 400B (17B active).
inline constexpr VisionEncoder llama4_vision_encoder{
    .layers = 34, .hidden = 1408, .ffn = 5632, .image_size = 336, .patch_size = 14};
/// Llama 4 Scout (meta-llama/Llama-4-Scout-17B-16E): 16 routed experts beside the shared one, with the vision tower.
inline constexpr TransformerShape llama4_scout = validated(TransformerShape{
    .name = "llama4-scout", .layers = 48, .hidden = 5120, .ffn = 16384, .heads = 40, .kv_heads = 8, .head_dim = 128,
    .vocabulary = 202048, .tied_embeddings = false, .experts = 16, .experts_per_token = 1, .expert_ffn = 8192,
    .shared_experts = 1, .shared_expert_ffn = 8192, .max_position_embeddings = 10485760, .sliding_window = 8192,
    .global_every = 4, .vision_weights = vision_tower_weights(llama4_vision_encoder, 5120)});
/// Llama 4 Maverick (meta-llama/Llama-4-Maverick-17B-128E): Scout with 128 experts, MoE on every other layer.
inline constexpr TransformerShape llama4_maverick = [] {
    TransformerShape m = llama4_scout;
    m.name = "llama4-maverick";
    m.experts = 128;
    m.moe_every = 2;
    m.max_position_embeddings = 1048576;
    return validated(m);
}();

/// Gemma 2 2B, 9B and 27B (google/gemma-2-2b, -9b, -27b; Gemma Team 2024,
/// arXiv 2408.00118, Table 1): an RMSNorm before and after attention and the
/// feed-forward block (4 a layer), GeGLU (three matrices, as SwiGLU), tied
/// embeddings over a 256,000 vocabulary, head_dim 256 (27B: 128) whatever
/// hidden / heads is, local layers of a 4,096 window alternating with global
/// ones (Sec. 2), 8,192 positions. The hub prints 2.61B, 9.24B and 27.2B.
inline constexpr TransformerShape gemma2_2b = validated(TransformerShape{
    .name = "gemma2-2b", .layers = 26, .hidden = 2304, .ffn = 9216, .heads = 8, .kv_heads = 4, .head_dim = 256,
    .vocabulary = 256000, .tied_embeddings = true, .max_position_embeddings = 8192, .norms_per_layer = 4,
    .sliding_window = 4096, .global_every = 2});
/// Gemma 2 9B (google/gemma-2-9b): 42 layers, hidden 3,584, 16 heads (8 KV) of 256.
inline constexpr TransformerShape gemma2_9b = validated(TransformerShape{
    .name = "gemma2-9b", .layers = 42, .hidden = 3584, .ffn = 14336, .heads = 16, .kv_heads = 8, .head_dim = 256,
    .vocabulary = 256000, .tied_embeddings = true, .max_position_embeddings = 8192, .norms_per_layer = 4,
    .sliding_window = 4096, .global_every = 2});
/// Gemma 2 27B (google/gemma-2-27b): 46 layers, hidden 4,608, 32 heads (16 KV) of 128.
inline constexpr TransformerShape gemma2_27b = validated(TransformerShape{
    .name = "gemma2-27b", .layers = 46, .hidden = 4608, .ffn = 36864, .heads = 32, .kv_heads = 16, .head_dim = 128,
    .vocabulary = 256000, .tied_embeddings = true, .max_position_embeddings = 8192, .norms_per_layer = 4,
    .sliding_window = 4096, .global_every = 2});

/// Gemma 3 1B, 4B, 12B and 27B (google/gemma-3-1b-pt, -4b-pt, -12b-pt, -27b-pt;
/// Gemma Team 2025, arXiv 2503.19786, Table 1 and Sec. 2): Gemma 2's four norms
/// and GeGLU, an RMSNorm on Q and on K per head, 5 local layers (window 1,024;
/// the 1B's 512) to 1 global, tied embeddings over 262,208 rows (the 1B
/// 262,144), 131,072 positions (the 1B 32,768). The 4B and up carry the 400M
/// SigLIP encoder (27 layers, 1,152 wide, MLP 4,304, 896² images in 14² patches)
/// and its projection into the text width: model.hpp's vision_tower_weights,
/// counted in the weights, its compute per image not modelled. The hub prints
/// 1,000M (999,885,952), 4.3B, 12.2B and 27.4B.
inline constexpr VisionEncoder siglip_so400m_896{
    .layers = 27, .hidden = 1152, .ffn = 4304, .image_size = 896, .patch_size = 14};
/// Gemma 3 1B (google/gemma-3-1b-pt): 26 layers, hidden 1,152, a 512 window, no vision encoder.
inline constexpr TransformerShape gemma3_1b = validated(TransformerShape{
    .name = "gemma3-1b", .layers = 26, .hidden = 1152, .ffn = 6912, .heads = 4, .kv_heads = 1, .head_dim = 256,
    .vocabulary = 262144, .tied_embeddings = true, .qk_norm = true, .max_position_embeddings = 32768,
    .norms_per_layer = 4, .sliding_window = 512, .global_every = 6});
/// Gemma 3 4B (google/gemma-3-4b-pt): 34 layers, hidden 2,560, with the SigLIP encoder's weights.
inline constexpr TransformerShape gemma3_4b = validated(TransformerShape{
    .name = "gemma3-4b", .layers = 34, .hidden = 2560, .ffn = 10240, .heads = 8, .kv_heads = 4, .head_dim = 256,
    .vocabulary = 262208, .tied_embeddings = true, .qk_norm = true, .max_position_embeddings = 131072,
    .norms_per_layer = 4, .sliding_window = 1024, .global_every = 6,
    .vision_weights = vision_tower_weights(siglip_so400m_896, 2560)});
/// Gemma 3 12B (google/gemma-3-12b-pt): 48 layers, hidden 3,840, with the SigLIP encoder's weights.
inline constexpr TransformerShape gemma3_12b = validated(TransformerShape{
    .name = "gemma3-12b", .layers = 48, .hidden = 3840, .ffn = 15360, .heads = 16, .kv_heads = 8, .head_dim = 256,
    .vocabulary = 262208, .tied_embeddings = true, .qk_norm = true, .max_position_embeddings = 131072,
    .norms_per_layer = 4, .sliding_window = 1024, .global_every = 6,
    .vision_weights = vision_tower_weights(siglip_so400m_896, 3840)});
/// Gemma 3 27B (google/gemma-3-27b-pt): 62 layers, hidden 5,376, with the SigLIP encoder's weights.
inline constexpr TransformerShape gemma3_27b = validated(TransformerShape{
    .name = "gemma3-27b", .layers = 62, .hidden = 5376, .ffn = 21504, .heads = 32, .kv_heads = 16, .head_dim = 128,
    .vocabulary = 262208, .tied_embeddings = true, .qk_norm = true, .max_position_embeddings = 131072,
    .norms_per_layer = 4, .sliding_window = 1024, .global_every = 6,
    .vision_weights = vision_tower_weights(siglip_so400m_896, 5376)});

/// Phi-3-mini (microsoft/Phi-3-mini-4k-instruct; fused qkv, the same weights)
/// and Phi-4 (microsoft/phi-4): the hub prints 3.82B and 14.7B.
inline constexpr TransformerShape phi3_mini = validated(TransformerShape{
    .name = "phi3-mini", .layers = 32, .hidden = 3072, .ffn = 8192, .heads = 32, .kv_heads = 32,
    .vocabulary = 32064, .tied_embeddings = false});
/// Phi-4 (microsoft/phi-4): 40 layers, hidden 5,120, 40 heads (10 KV); the hub prints 14.7B.
inline constexpr TransformerShape phi4 = validated(TransformerShape{
    .name = "phi4", .layers = 40, .hidden = 5120, .ffn = 17920, .heads = 40, .kv_heads = 10,
    .vocabulary = 100352, .tied_embeddings = false});

/// Every model above, in the order find_model searches them.
inline constexpr std::array models{&llama3_1_8b, &llama3_1_70b, &llama3_1_405b,
                                   &megatron_22b, &gpt3_175b, &turing_nlg_530b, &megatron_1t,
                                   &gpt2_small, &gpt2_medium, &gpt2_large, &gpt2_xl,
                                   &llama3_2_1b, &llama3_2_3b, &llama3_3_70b, &mistral_7b, &mixtral_8x7b,
                                   &mixtral_8x22b, &qwen2_5_0_5b, &qwen2_5_7b, &qwen2_5_72b, &qwen3_8b, &qwen3_32b,
                                   &phi3_mini, &phi4,
                                   &qwen3_30b_a3b, &qwen3_235b_a22b, &deepseek_v3,
                                   &deepseek_r1, &deepseek_v3_1, &kimi_k2, &glm4_5, &qwen3_235b_a22b_2507,
                                   &qwen3_coder_480b_a35b, &mistral_large_2, &gpt_oss_20b, &gpt_oss_120b,
                                   &llama4_scout, &llama4_maverick,
                                   &gemma2_2b, &gemma2_9b, &gemma2_27b,
                                   &gemma3_1b, &gemma3_4b, &gemma3_12b, &gemma3_27b};

/// The catalog model with this name ("llama3.1-70b", ...), or nullopt.
[[nodiscard]] constexpr std::optional<TransformerShape> find_model(std::string_view name) {
    for (const TransformerShape* model : models)
        if (model->name == name) return *model;
    return std::nullopt;
}

}  // namespace napkin::catalog
