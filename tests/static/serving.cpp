// napkin/serving.hpp at compile time: the facts tests/unit/serving.cpp derives by hand, as static_asserts.
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>
#include <napkin/serving.hpp>

namespace {
using namespace napkin;
constexpr const auto& m70b = catalog::llama3_1_70b;

// One sequence, no context, 16-bit weights, the roofline: the lesson's 70B on 4 A100s over NVLink (18.94 ms), to the
// bit.
constexpr ServingSetup lesson{.profile = roofline_serving};
static_assert(
    decode_step(m70b, catalog::a100_80gb_sxm, catalog::nvlink_a100, {.tp = 4}, {1, tokens(0)}, lesson).total() ==
    token_time(m70b, catalog::a100_80gb_sxm, catalog::nvlink_a100, {4, Split::tensor, 1}).total());
// 178 chats of 8,192 tokens on 8 H100: 17,638,426,624 + 59,726,888,960 + 1,560,281,088 bytes; 179 do not fit.
static_assert(serving_memory(m70b, catalog::h100_sxm, {.tp = 8}, 178, 8192).total() == bytes(78'925'596'672));
static_assert(max_concurrency(m70b, catalog::h100_sxm, {.tp = 8}, 8192) == 178);
// 8 experts, 2 per token, 3 tokens: 8 · (1 − (3/4)³) = 8 · 37/64.
static_assert(expected_distinct_experts(8, 2, 3) == 4.625);
// int4 with an FP16 scale per 128 weights.
static_assert(bytes_per_weight(WeightDType::int4) == 0.515625);

// DeepSeek-V3 (tests/data/deepseek_v3_config.json): its MLA cache, 61 × (512 + 64) × 2 B per token, whole on each
// of 8 tensor-parallel GPUs; at B = 1 each GPU reads its share of the 37,552,282,624 active FP8 weights.
constexpr TransformerShape deepseek_v3 = validated(TransformerShape{.name = "deepseek-v3",
                                                                    .layers = 61,
                                                                    .hidden = 7168,
                                                                    .ffn = 18432,
                                                                    .heads = 128,
                                                                    .kv_heads = 128,
                                                                    .vocabulary = 129280,
                                                                    .experts = 256,
                                                                    .experts_per_token = 8,
                                                                    .expert_ffn = 2048,
                                                                    .shared_experts = 1,
                                                                    .shared_expert_ffn = 2048,
                                                                    .dense_layers = 3,
                                                                    .q_lora_rank = 1536,
                                                                    .kv_lora_rank = 512,
                                                                    .qk_nope_head_dim = 128,
                                                                    .qk_rope_head_dim = 64,
                                                                    .v_head_dim = 128,
                                                                    .max_position_embeddings = 163840});
static_assert(kv_bytes_per_gpu(deepseek_v3, {.tp = 8}, KvDType::bf16, tokens(1)) == bytes(70'272));
static_assert(weights_read_per_gpu(deepseek_v3, {.tp = 8}, WeightDType::fp8, 1) == bytes(37'552'282'624 / 8));
}  // namespace
