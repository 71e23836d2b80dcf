// Exact facts of the split lesson, checked by the compiler (constexpr inputs).
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>

namespace {
using namespace napkin;
constexpr const auto& m70b = catalog::llama3_1_70b;

// Published weight counts (Llama 3.1 model cards).
static_assert(parameter_count(catalog::llama3_1_8b) == 8'030'261'248);
static_assert(parameter_count(m70b) == 70'553'706'496);
static_assert(parameter_count(catalog::llama3_1_405b) == 405'853'388'800);

// 70B on 4 GPUs, to the byte: 35,276,853,248 + 671,088,640 + 1,560,281,088.
static_assert(memory_per_gpu(m70b, 4).weights == bytes(35'276'853'248));
static_assert(memory_per_gpu(m70b, 4).kv_cache == bytes(671'088'640));
static_assert(memory_per_gpu(m70b, 4).working == bytes(1'560'281'088));
static_assert(memory_per_gpu(m70b, 4).total() == bytes(37'508'222'976));

// The fewest GPUs: 1, 2 and 11.
static_assert(fewest_gpus(catalog::llama3_1_8b, catalog::a100_80gb_sxm) == 1);
static_assert(fewest_gpus(m70b, catalog::a100_80gb_sxm) == 2);
static_assert(fewest_gpus(catalog::llama3_1_405b, catalog::a100_80gb_sxm) == 11);

// A ring all-reduce over 4 GPUs takes 2(n − 1) = 6 steps: 6.6 + 6 × 0.6 µs of start-up,
// exactly 10.2 µs up to the last bit of a double.
static_assert(ring_all_reduce(bytes(16384), 4, catalog::nvlink_a100, nccl::ring_ll_base_latency).latency ==
              microseconds(6.6) + 6.0 * microseconds(0.6));
static_assert(ring_all_reduce(bytes(16384), 1, catalog::nvlink_a100).total() == Seconds{});

// The best count that divides the heads: 16 for the 70B model (64 heads).
static_assert(best_gpu_count(m70b, catalog::a100_80gb_sxm, catalog::nvlink_a100, {.divide_heads = true})->gpus == 16);
}  // namespace
