// napkin/serving.hpp at compile time: the facts tests/unit/serving.cpp derives by hand, as static_asserts.
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>
#include <napkin/serving.hpp>

namespace {
using namespace napkin;
constexpr const auto& m70b = catalog::llama3_1_70b;

// One sequence, no context, 16-bit weights: the lesson's 70B on 4 A100s over NVLink (18.94 ms), to the bit.
static_assert(decode_step(m70b, catalog::a100_80gb_sxm, catalog::nvlink_a100, {.tp = 4}, {1, tokens(0)}).total() ==
              token_time(m70b, catalog::a100_80gb_sxm, catalog::nvlink_a100, {4, Split::tensor, 1}).total());
// 178 chats of 8,192 tokens on 8 H100: 17,638,426,624 + 59,726,888,960 + 1,560,281,088 bytes; 179 do not fit.
static_assert(serving_memory(m70b, catalog::h100_sxm, {.tp = 8}, 178, 8192).total() == bytes(78'925'596'672));
static_assert(max_concurrency(m70b, catalog::h100_sxm, {.tp = 8}, 8192) == 178);
// 8 experts, 2 per token, 3 tokens: 8 · (1 − (3/4)³) = 8 · 37/64.
static_assert(expected_distinct_experts(8, 2, 3) == 4.625);
// int4 with an FP16 scale per 128 weights.
static_assert(bytes_per_weight(WeightDType::int4) == 0.515625);
}  // namespace
