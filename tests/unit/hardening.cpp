// Hardening: checked arithmetic, documented bounds, finite inputs, bounded
// loops, exceptions carried home, and the readers' errors (napkin/checked.hpp,
// error.hpp, the validated() of every shape, io/hf_config.hpp, io/nccl_tests.hpp,
// calibrate.hpp). Each defect of the red-team pass is reproduced and must now
// end in a result or a napkin::invalid_argument naming the argument.
#include <napkin/calibrate.hpp>
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/checked.hpp>
#include <napkin/collectives.hpp>
#include <napkin/inference.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/io/hf_config.hpp>
#include <napkin/io/nccl_tests.hpp>
#include <napkin/io/reference_schedule.hpp>
#include <napkin/io/svg.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/layer_map.hpp>
#include <napkin/planner.hpp>
#include <napkin/schedule.hpp>
#include <napkin/training.hpp>

#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <functional>
#include <mutex>
#include <random>
#include <utility>
#include <vector>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

using namespace napkin;
using napkin::test::error_of;

namespace {
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
constexpr double inf = std::numeric_limits<double>::infinity();
const double nan_value = std::numeric_limits<double>::quiet_NaN();
}  // namespace

TEST_SUITE("hardening") {
    TEST_CASE("checked_mul and checked_add: exact below 2^63, rejected by name beyond") {
        static_assert(checked_mul(1LL << 31, 1LL << 31, "x") == 1LL << 62);
        static_assert(checked_add((1LL << 62) - 1, 1LL << 62, "x") == std::numeric_limits<long long>::max());
        CHECK(error_of([] { return checked_mul(1LL << 32, 1LL << 32, "tp × dp"); }) ==
              "tp × dp = 4294967296 × 4294967296: the product overflows a 64-bit count");
        CHECK(error_of([] { return checked_add(std::numeric_limits<long long>::max(), 1, "a + b"); }) ==
              "a + b = 9223372036854775807 + 1: the sum overflows a 64-bit count");
    }

    TEST_CASE("divisors: O(√n), ascending, the same set a scan finds") {
        CHECK(divisors(1) == std::vector<long long>{1});
        CHECK(divisors(12) == std::vector<long long>{1, 2, 3, 4, 6, 12});
        CHECK(divisors(49) == std::vector<long long>{1, 7, 49});
        // 2^40 has the 41 divisors 2^0 … 2^40; the trial division stops at 2^20.
        CHECK(divisors(1LL << 40).size() == 41);
        CHECK(divisors(1LL << 40).back() == 1LL << 40);
    }

    TEST_CASE("floating inputs: nan, ±inf and denormals are rejected by name, 0 and normal values pass") {
        CHECK(error_of([] { require_positive("Link.bandwidth (bytes/s)", inf); return 0; }) ==
              "Link.bandwidth (bytes/s) = inf: must be finite");
        CHECK(error_of([] { require_positive("x", nan_value); return 0; }) == "x = nan: must be a number");
        CHECK(error_of([] { require_positive("x", 1e-320); return 0; }) ==
              "x = 9.99989e-321: must be at least 2.2e-308 (a denormal is no physical value)");
        CHECK(error_of([] { require_non_negative("x", -inf); return 0; }) == "x = -inf: must be finite");
        CHECK(error_of([] { require_non_negative("x", 0.0); return 0; }) == "(no error)");
        CHECK(error_of([] { require_positive("x", 2.3e-308); return 0; }) == "(no error)");
        // The red-team's cases through the models: an infinite latency, a denormal bandwidth.
        Link link = catalog::nvlink_a100;
        link.step_latency = seconds(inf);
        CHECK(error_of([&] { return ring_all_reduce(gigabytes(1), 8, link); }) == "Link.step_latency (s) = inf: must be finite");
        link = catalog::nvlink_a100;
        link.bandwidth = bytes_per_second(1e-320);
        CHECK(contains(error_of([&] { return ring_all_reduce(gigabytes(1), 8, link); }), "Link.bandwidth (bytes/s) = 9.99989e-321"));
        CHECK(error_of([] { return simulate(OneFOneB{}, {2, 4}, StageTimes{seconds(inf), seconds(1)}); }) ==
              "StageTimes.forward (s) = inf: must be finite");
    }

    TEST_CASE("hardware figures beyond physical sense are rejected: 1e308 bandwidth, an exabyte+ card") {
        Gpu gpu = catalog::a100_80gb_sxm;
        gpu.memory_bandwidth = bytes_per_second(1e308);
        CHECK(contains(error_of([&] { return validated(gpu); }), "Gpu.memory_bandwidth (bytes/s) = 1e+308: must be at most 1e18"));
        gpu = catalog::a100_80gb_sxm;
        gpu.memory = gibibytes(1e10);  // 1.07e19 bytes
        CHECK(contains(error_of([&] { return validated(gpu); }), "Gpu.memory (bytes)"));
        gpu.memory = gibibytes(1e6);  // a petabyte: allowed, and the usable memory stays positive
        CHECK(in(usable_memory(validated(gpu)), units::GiB) == doctest::Approx(gpu.usable_fraction * 1e6).epsilon(1e-12));
    }

    TEST_CASE("ceil_whole / floor_whole: no cast out of range — nan and inf have no whole value") {
        CHECK(ceil_whole(bytes(1e20)).value() == 1e20);  // beyond 2^63, already whole
        CHECK(floor_whole(bytes(-1e20)).value() == -1e20);
        CHECK(ceil_whole(bytes(2.5)).value() == 3.0);
        CHECK(floor_whole(bytes(-2.5)).value() == -3.0);
        CHECK(ceil_whole(bytes(4503599627370495.5)).value() == 4503599627370496.0);  // 2^52 − 0.5
        CHECK(contains(error_of([] { return ceil_whole(bytes(inf)); }), "must be finite to round"));
        // The red-team case: a 10^20-token context gave a negative KV cache per GPU.
        InferenceSetup setup = lesson_setup;
        setup.context = tokens(1e20);
        const InferenceMemory m = memory_per_gpu(catalog::llama3_1_70b, 8, setup);
        CHECK(m.kv_cache.value() > 0.0);
        CHECK(std::isfinite(m.total().value()));
    }

    TEST_CASE("layouts whose products overflow or pass the bounds are rejected by name, never wrapped") {
        // --tp 4294967296 --dp 4294967296 died on SIGFPE (the product wrapped to 0).
        CHECK(error_of([] { return validated(Parallelism{.tp = 1LL << 32, .dp = 1LL << 32}); }) ==
              "tp × cp × pp × dp = 4294967296 × 4294967296: the product overflows a 64-bit count");
        CHECK(error_of([] { return validated(Parallelism{.dp = 1LL << 32, .micro_batch = 1LL << 32, .global_batch = 8}); }) ==
              "micro_batch × dp = 4294967296 × 4294967296: the product overflows a 64-bit count");
        CHECK(error_of([] { return validated(Parallelism{.tp = 1LL << 21, .dp = 1LL << 21}); }) ==
              "tp × cp × pp × dp = 4398046511104: must be at most 2^40 = 1099511627776 GPUs");
        // --vp 9223372036854775807 printed "activations −0 B (fits)".
        CHECK(error_of([] { return validated(Parallelism{.pp = 2, .virtual_stages = std::numeric_limits<long long>::max()}); }) ==
              "Parallelism.virtual_stages = 9223372036854775807: must be at most 16777216");
        CHECK(error_of([] { return validated(Parallelism{.global_batch = 1LL << 30, .sequence = 1LL << 30}); }) ==
              "global_batch × sequence = 1152921504606846976: must be at most 2^53 tokens per step");
        CHECK(error_of([] { return gpus(Cluster{catalog::dgx_a100, 1LL << 61}); }) ==
              "nodes × GPUs per node = 2305843009213693952 × 8: the product overflows a 64-bit count");
        CHECK(error_of([] { return validated(Cluster{catalog::dgx_a100, 1LL << 38}); }) ==
              "Cluster GPUs (nodes × GPUs per node) = 2199023255552: must be at most 2^40 = 1099511627776");
    }

    TEST_CASE("a model of 10^11 layers is rejected, not priced at a negative memory that fits") {
        TransformerShape m = catalog::llama3_1_8b;
        m.layers = 100'000'000'000;
        CHECK(error_of([&] { return validated(m); }) == "TransformerShape.layers = 100000000000: must be at most 16777216");
        m = catalog::llama3_1_8b;
        m.layers = 1LL << 24;
        m.hidden = 1LL << 30;
        m.heads = 1LL << 16;
        m.kv_heads = 1LL << 16;
        m.ffn = 1LL << 30;
        CHECK(contains(error_of([&] { return validated(m); }), "overflows a 64-bit count"));
        m.layers = 1LL << 20;
        m.hidden = 1LL << 20;
        m.ffn = 1LL << 20;
        m.heads = 1LL << 10;
        m.kv_heads = 1LL << 10;
        // 2^20 layers × ~2^42.6 weights each: beyond 2^53, named as the parameter count.
        CHECK(contains(error_of([&] { return validated(m); }), "TransformerShape (parameter count) = "));
        CHECK(contains(error_of([&] { return validated(m); }), "must be at most 2^53"));
    }

    TEST_CASE("limits: 10^13 weights × 10^6 GPUs × 10^7-token contexts are finite and right by hand") {
        // A Llama-shaped model of 1.03·10^13 weights: L = 150, h = 2^16, 512 heads of 128
        // (no GQA), ffn = 2^18 (SwiGLU), V = 2^17, untied.
        //   attention 2h·(H·d) + 2h·(kv·d) = 4·2^16·2^16              = 17,179,869,184
        //   layer = attention + 3h·ffn + 2h = 2^34 + 3·2^34 + 2^17     = 68,719,607,808
        //   total = 150 · layer + 2·V·h + h = 10,307,941,171,200 + 2^34 + 2^16
        //                                                             = 10,325,121,105,920
        constexpr TransformerShape big{.name = "big", .layers = 150, .hidden = 1LL << 16, .ffn = 1LL << 18,
                                       .heads = 512, .kv_heads = 512, .vocabulary = 1LL << 17};
        static_assert(parameter_count(validated(big)) == 10'325'121'105'920);
        // KV cache per token 2·L·kv·d values × 2 bytes = 2·150·512·128·2 = 39,321,600 B;
        // a 10^7-token context holds 393,216,000,000,000 B, exact in a double.
        CHECK(kv_cache_per_token(big, 2.0).value() == 39'321'600.0);
        InferenceSetup setup = lesson_setup;
        setup.context = tokens(1e7);
        // Spread over 10^6 GPUs: the cache over min(10^6, 512) = 512 shares, ⌈3.93216e14 / 512⌉ =
        // 768,000,000,000 B; the weights ⌈2 · 10,325,121,105,920 / 10^6⌉ = 20,650,243 B.
        const InferenceMemory per_gpu = memory_per_gpu(big, 1'000'000, setup);
        CHECK(per_gpu.kv_cache.value() == 768'000'000'000.0);
        CHECK(per_gpu.weights.value() == 20'650'243.0);
        // A ring all-reduce of 1 GB over 10^6 ranks on NVLink A100 (α, B from the catalog):
        // 2(n − 1) α + 2(n − 1)/n · M/B, and the tree's ⌈log₂ 10^6⌉ = 20 levels.
        const Link& link = catalog::nvlink_a100;
        const double n = 1e6;
        const CollectiveTime ring = ring_all_reduce(gigabytes(1), 1'000'000, link);
        CHECK(ring.total().value() == doctest::Approx(2 * (n - 1) * link.step_latency.value() +
                                                      2 * (n - 1) / n * 1e9 / link.bandwidth.value()));
        CHECK(detail::ceil_log2(1'000'000) == 20);
        CHECK(tree_all_reduce(gigabytes(1), 1'000'000, link).total().value() ==
              doctest::Approx(40 * (link.step_latency.value() + 1e9 / link.bandwidth.value())));
        // Training it on 125,000 DGX A100 nodes (10^6 GPUs): t = 8, p = 50, c = 5, d = 500,
        // B = 1,000 sequences of 10^7 tokens (10^10 tokens a step).
        const Cluster cluster{catalog::dgx_a100, 125'000};
        const Parallelism par{.tp = 8, .pp = 50, .dp = 500, .cp = 5, .micro_batch = 1, .global_batch = 1000,
                              .sequence = 10'000'000, .sequence_parallel = true, .recompute = Recompute::full,
                              .sharding = Sharding::distributed, .flash_attention = true};
        CHECK(gpus(validated(par, big, cluster)) == 1'000'000);
        CHECK(microbatches(par) == 2);
        const TrainingEstimate e = evaluate_training(big, cluster, par);
        const StepBreakdown& b = e.breakdown;
        for (const Seconds& part : {b.compute, b.recompute, b.tp, b.pp, b.bubble, b.dp, b.ep, b.cp, b.optimizer}) {
            CHECK(std::isfinite(part.value()));
            CHECK(part.value() >= 0.0);
        }
        CHECK(e.step.value() == doctest::Approx(b.total().value()));
        CHECK(std::isfinite(e.step.value()));
        CHECK(e.step.value() > 0.0);
        // Throughput is the step's tokens over its time: 10^10 / step.
        CHECK(e.tokens_per_second.value() == doctest::Approx(1e10 / e.step.value()));
        // The parts add up: states, activations and the allowances (memory.hpp).
        const TrainingMemory& mem = e.memory;
        CHECK(mem.total().value() == doctest::Approx((mem.states() + mem.activations + mem.cuda_context +
                                                      mem.nccl_buffers + mem.fragmentation + mem.loss_logits)
                                                         .value()));
        CHECK(std::isfinite(e.memory.total().value()));
        CHECK(e.mfu > 0.0);
        CHECK(e.mfu <= 1.0);
    }

    TEST_CASE("loops are bounded: the GPU-count scans, the crossover at 2^62 + 1 ranks, the simulator") {
        // fewest_gpus is a binary search (memory per GPU never grows with the count):
        // it answers for 2^40 as fast as for 64, the same as a scan.
        CHECK(fewest_gpus(catalog::llama3_1_405b, catalog::a100_80gb_sxm, lesson_setup, 1LL << 40) == 11);
        CHECK(fewest_gpus(catalog::llama3_1_405b, catalog::a100_80gb_sxm, lesson_setup, 10) == std::nullopt);
        CHECK(error_of([] { return fewest_gpus(catalog::llama3_1_8b, catalog::a100_80gb_sxm, lesson_setup, 10'000'000'000'000); }) ==
              "max_gpus = 10000000000000: must be at most 1099511627776");
        CHECK(error_of([] {
                  return best_gpu_count(catalog::llama3_1_8b, catalog::a100_80gb_sxm, catalog::nvlink_a100,
                                        {.max_gpus = 10'000'000'000'000});
              }) == "max_gpus = 10000000000000: must be at most 1048576");
        CHECK(error_of([] { return ring_tree_crossover((1LL << 62) + 1, catalog::nvlink_a100); }) ==
              "ranks = 4611686018427387905: must be at most 1099511627776");
        CHECK(detail::ceil_log2(std::numeric_limits<long long>::max()) == 63);
        CHECK(detail::ceil_log2((1LL << 40) + 1) == 41);
        // schedule --extra-warmup 9223372036854775807 grew to gigabytes; --stages 10^13 said bad_alloc.
        CHECK(error_of([] {
                  return simulate(Interleaved{.extra_warmup = std::numeric_limits<long long>::max()}, {4, 8, 1},
                                  StageTimes{seconds(1), seconds(2)});
              }) == "Interleaved.extra_warmup = 9223372036854775807: must be at most PipelineShape.microbatches × chunks = 8");
        CHECK(contains(error_of([] { return simulate(OneFOneB{}, {10'000'000'000'000, 1}, StageTimes{seconds(1), seconds(2)}); }),
                       "PipelineShape.stages = 10000000000000: must be at most 1099511627776"));
        CHECK(contains(error_of([] { return simulate(OneFOneB{}, {1'000'000, 1'000'000}, StageTimes{seconds(1), seconds(2)}); }),
                       "must be at most 2^26 = 67108864"));
    }

    TEST_CASE("pipeline counts: p·v and m·v are checked before a layer map or a schedule's times is sized by them") {
        // Issue 28: 3 × 6148914691236517206 = 2^64 + 2 wrapped to 2 virtual stages, a map of 2 ranges was
        // made for 2 layers, then indexed at (k mod 3)·v: a crash. Every count is now bounded first.
        CHECK(error_of([] { return first_last_layer_map(2, 3, 6148914691236517206, 0, 0); }) ==
              "chunks = 6148914691236517206: must be at most 16777216");
        // 2^40 stages × 2^24 chunks = 2^64: each within its bound, the product not.
        CHECK(error_of([] { return first_last_layer_map(1LL << 24, 1LL << 40, 1LL << 24, 0, 0); }) ==
              "stages × chunks = 1099511627776 × 16777216: the product overflows a 64-bit count");
        // Every virtual stage holds a layer: 3 × 2 = 6 of them cannot share 4 layers.
        CHECK(error_of([] { return first_last_layer_map(4, 3, 2, 0, 0); }) ==
              "stages × chunks = 6: must be at most the model's 4 layers (every virtual stage holds one at least)");
        CHECK(error_of([] { return first_last_layer_map(45, 4, 2, std::numeric_limits<long long>::max(), 0); }) ==
              "first_stage_layers = 9223372036854775807: must lie in 0 … 45 (the model's layers)");
        CHECK(error_of([] { return first_last_layer_map(45, 4, 2, 3, -1); }) ==
              "last_stage_layers = -1: must lie in 0 … 45 (the model's layers)");
        // 2^62 layers would have sized a vector of 2^62 + 1 entries (bad_alloc, an internal error).
        CHECK(error_of([] { return parse_layer_map("1/2", 1LL << 62, 2); }) ==
              "layers = 4611686018427387904: must be at most 16777216");
        // PipelineShape: p·v at most 2^40 (as Parallelism's pp × virtual_stages), m·v at most 2^53, so that
        // Interleaved's warm-up, 2(p − 1) + (v − 1)·p + extra_warmup ≤ m·v, cannot pass 2^63
        // ((2^40 − 1)·2^23 = 2^63 − 2^23 fits in 64 bits, then 2(p − 1) more would not).
        CHECK(error_of([] { return validated(PipelineShape{(1LL << 40) - 1, 1LL << 23, 1LL << 23}); }) ==
              "PipelineShape.stages × chunks = 9223372036846387200: must be at most 2^40 = 1099511627776");
        CHECK(error_of([] { return validated(PipelineShape{1, 1LL << 40, 1LL << 14}); }) ==
              "PipelineShape.microbatches × chunks = 18014398509481984: must be at most 2^53 = 9007199254740992");
        // A schedule's times hold p·v entries: bounded as the simulator's passes before they are allocated.
        const std::vector<StageTimes> stages(1 << 20, StageTimes{seconds(1), seconds(2)});
        CHECK(error_of([&] { return ScheduleTimes::per_stage({1 << 20, 1, 1 << 10}, stages); }) ==
              "PipelineShape.stages × chunks = 1073741824: must be at most 2^26 to simulate");
    }

    TEST_CASE("the inference planner lists divisors only: huge heads and layers, max_gpus capped by name") {
        CHECK(error_of([] {
                  return plan_inference(catalog::llama3_1_8b, catalog::a100_80gb_sxm, catalog::nvlink_a100,
                                        {.max_tokens_in_flight = 1LL << 40});
              }) == "max_tokens_in_flight = 1099511627776: must be at most 1048576");
        CHECK(error_of([] {
                  return plan_inference(catalog::llama3_1_8b, catalog::a100_80gb_sxm, catalog::nvlink_a100,
                                        {.latency_bound = seconds(nan_value)});
              }) == "latency_bound (s) = nan: must be positive");
    }

    TEST_CASE("the training planner: a worker's exception reaches the caller on every thread count") {
        TrainingPlanQuery q{.model = catalog::gpt2_small, .cluster = {catalog::dgx_a100, 1}, .global_batch = 16,
                            .sequence = 1024};
        for (unsigned threads : {1u, 2u, 4u}) {
            q.threads = threads;
            CHECK_THROWS_WITH_AS((void)plan_training(q, [](long long done, long long) {
                                     if (done > 0) throw std::runtime_error("from a worker");
                                 }),
                                 "from a worker", std::runtime_error);
        }
        // The up-front count reports too (0 of 0: counting), before the first row is searched.
        q.threads = 2;
        std::vector<std::pair<long long, long long>> calls;
        std::mutex calls_mutex;
        (void)plan_training(q, [&](long long done, long long total) {
            const std::lock_guard lock(calls_mutex);
            calls.emplace_back(done, total);
        });
        REQUIRE(calls.size() > 1);
        CHECK(calls.front() == std::pair<long long, long long>{0, 0});
        CHECK(calls.back().first == calls.back().second);
        // plan --threads 2 --gpu-tflops 1e-320 aborted: the denormal is named before any thread starts.
        q.cluster.node.gpu.peak_flops = flops_per_second(1e-320);
        CHECK(contains(error_of([&] { return plan_training(q); }), "Gpu.peak_flops (FLOP/s) = 9.99989e-321"));
        // max_cp up to 2^40 costs no scan: cp runs over the divisors of the sequence.
        q = TrainingPlanQuery{.model = catalog::gpt2_small, .cluster = {catalog::dgx_a100, 1}, .global_batch = 16,
                              .sequence = 1024, .max_cp = 1LL << 40, .threads = 1};
        TrainingPlanQuery capped = q;
        capped.max_cp = 1024;
        CHECK(plan_training(q).points == plan_training(capped).points);
        q.global_batch = 1LL << 40;
        q.sequence = 1LL << 20;
        CHECK(error_of([&] { return plan_training(q); }) ==
              "global_batch × sequence = 1152921504606846976: must be at most 2^53 tokens per step");
    }

    TEST_CASE("config.json: every JSON error is one napkin::invalid_argument naming the file, echo cut") {
        const auto message = [](const std::string& text) {
            return error_of([&] { return io::parse_hf_config(text, "cfg.json"); });
        };
        const std::string llama = R"("num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 128256)";
        // 1e400 escaped as nlohmann's out_of_range, naming neither file nor field.
        CHECK(contains(message(R"({"hidden_size": 1e400, )" + llama + "}"), "cfg.json: not valid JSON (number overflow"));
        // A deeply nested value overflowed the stack inside value.dump().
        const std::string deep = R"({"hidden_size": )" + std::string(100000, '[') + std::string(100000, ']') + ", " + llama + "}";
        CHECK(message(deep) == "cfg.json: not a config.json (values nested deeper than 64 levels)");
        // Nested, but not too deep: the echo is cut at 80 printable characters.
        std::string wide = R"({"hidden_size": [)";
        for (int i = 0; i < 1000; ++i) wide += "1234567890,";
        wide += "0], " + llama + "}";
        const std::string cut = message(wide);
        CHECK(contains(cut, R"(cfg.json: field "hidden_size" must be a positive whole number, not [1234567890,)"));
        CHECK(cut.size() < 200);
        CHECK(contains(cut, "..."));
        // Control characters never reach the terminal: JSON escapes come back escaped.
        const std::string control = message("{\"hidden_size\": \"\\u001b[2J\\u0007\", " + llama + "}");
        CHECK(contains(control, R"(not "\u001b[2J\u0007")"));
        CHECK(std::none_of(control.begin(), control.end(), [](char c) { return c >= 0 && c < 0x20; }));
        // Bounds by field, before any product is formed.
        CHECK(message(R"({"hidden_size": 4096, "num_hidden_layers": 100000000000, "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 128256})") ==
              R"(cfg.json: field "num_hidden_layers" must be at most 16777216, not 100000000000)");
        CHECK(message(R"({"hidden_size": 18446744073709551615, )" + llama + "}") ==
              R"(cfg.json: field "hidden_size" must be at most 1073741824, not 18446744073709551615)");
        CHECK(contains(message("{\"hidden_size\": 4096,"), "cfg.json: not valid JSON"));
    }

    TEST_CASE("nccl-tests: count and root are range-checked before the cast — negative times are named") {
        const std::string header = "#  Rank  0 Group  0 Pid 1 on host device  0\n#  Rank  1 Group  0 Pid 1 on host device  1\n";
        const auto message = [&](const std::string& row) {
            std::istringstream in(header + row);
            return error_of([&] { return io::parse_nccl_tests(in); });
        };
        CHECK(message("1048576 1e30 float sum -1 45.10 23.25 23.25 0 44.80 23.41 23.41 0\n") ==
              "nccl-tests line 3 count = 1e+30: must be a whole number in [0, 2^53]");
        CHECK(message("1048576 262144 float sum 1e300 45.10 23.25 23.25 0 44.80 23.41 23.41 0\n") ==
              "nccl-tests line 3 root = 1e+300: must be a whole number in [-1, 2^53]");
        CHECK(message("1048576 262144 float sum -1 -45.10 23.25 23.25 0 44.80 23.41 23.41 0\n") ==
              "nccl-tests line 3 out-of-place time = -45.1: must not be negative");
        CHECK(message("1048576 262144 float sum -1 inf 23.25 23.25 0 44.80 23.41 23.41 0\n") ==
              "nccl-tests line 3 out-of-place time = inf: must be finite");
        CHECK(message("1048576 262144 float sum -1 45.10 23.25 23.25 0 44.80 23.41 23.41 0\n") == "(no error)");
        std::istringstream zero(header + "0 0 float sum -1 0.00 0.00 0.00 0 0.00 0.00 0.00 0\n"
                                         "1048576 262144 float sum -1 45.10 23.25 23.25 0 44.80 23.41 23.41 0\n");
        const io::NcclTestsRun run = io::parse_nccl_tests(zero);
        CHECK(io::rows_without_time(run) == 1);
        CHECK(io::samples(run).size() == 1);
    }

    TEST_CASE("calibrate: a negative α is not physical: the fit holds it at 0 and says so") {
        // Exact samples of a link with α = −1 µs and B = 100 GB/s, 8 ranks (14 steps,
        // factor 1.75): t = 14·(−1 µs) + 1.75·M/B. The unconstrained fit returns α < 0;
        // held at 0, the best bandwidth for t = 1.75·M/B' is fitted instead.
        std::vector<CollectiveSample> samples;
        for (double mb : {1.0, 4.0, 16.0, 64.0, 256.0}) {
            const Bytes m = megabytes(mb);
            samples.push_back({Collective::all_reduce, 8, m, seconds(14 * -1e-6 + 1.75 * m.value() / 100e9)});
        }
        const CalibrationFit fit = fit_alpha_beta(samples);
        CHECK(fit.step_latency_held_at_zero);
        CHECK(fit.step_latency.value() == 0.0);
        CHECK(fit.bandwidth.value() > 0.0);
        CHECK_FALSE(fit.base_latency_held_at_zero);
        // A physical link fits as before, nothing held.
        samples.clear();
        for (double mb : {1.0, 4.0, 16.0, 64.0, 256.0}) {
            const Bytes m = megabytes(mb);
            samples.push_back({Collective::all_reduce, 8, m, seconds(14 * 5e-6 + 1.75 * m.value() / 100e9)});
        }
        const CalibrationFit good = fit_alpha_beta(samples);
        CHECK_FALSE(good.step_latency_held_at_zero);
        CHECK(good.step_latency.value() == doctest::Approx(5e-6));
        CHECK(good.bandwidth.value() == doctest::Approx(100e9));
    }
    TEST_CASE("ranges that keep every result finite: rates ≥ 1/s, messages ≤ 1e18 B, stage times ≤ 1e9 s") {
        // The fuzzer's findings: 1e308 B over 2.3e-308 B/s, and 1e308 s stages, gave inf.
        Link link = catalog::nvlink_a100;
        link.bandwidth = bytes_per_second(0.5);
        CHECK(error_of([&] { return validated(link); }) == "Link.bandwidth (bytes/s) = 0.5: must be at least 1 per second");
        CHECK(error_of([] { return tree_all_reduce(bytes(1e308), 8, catalog::nvlink_a100); }) ==
              "message (bytes) = 1e+308: must be at most 1e18 bytes");
        CHECK(error_of([] { return step_time(OneFOneB{}, {4, 8}, StageTimes{seconds(1e308), seconds(1e308)}); }) ==
              "StageTimes.forward (s) = 1e+308: must be at most 1e9 s");
        // At the edges every result is finite: 1e18 B at 1 B/s over 2^40 ranks, 2^40 stages of 1e9 s.
        const Link slow{"slow", bytes_per_second(1.0), seconds(3600)};
        CHECK(std::isfinite(tree_all_reduce(bytes(1e18), 1LL << 40, slow).total().value()));
        CHECK(std::isfinite(ring_all_reduce(bytes(1e18), 1LL << 40, slow).total().value()));
        CHECK(std::isfinite(step_time(OneFOneB{}, {1LL << 40, 1LL << 40}, StageTimes{seconds(1e9), seconds(1e9)}).value()));
    }

    TEST_CASE("the allocator's fragmentation is a share of at most 10: 1e308 made the memory total inf") {
        MemoryAllowances allowances = default_memory_allowances;
        allowances.fragmentation = 1e308;
        CHECK(error_of([&] { return validated(allowances); }) ==
              "MemoryAllowances.fragmentation = 1e+308: must be at most 10");
        allowances.fragmentation = max_fragmentation;  // the bound itself passes
        CHECK(validated(allowances).fragmentation == 10.0);
    }

    TEST_CASE("a reference schedule that is not one: one napkin::invalid_argument naming the file") {
        const std::string malformed = NAPKIN_TEST_DATA_DIR "/malformed_config.json";
        const std::string other = NAPKIN_TEST_DATA_DIR "/gpt2_config.json";
        CHECK(contains(error_of([&] { return io::read_reference_schedule(malformed); }),
                       malformed + ": not a reference schedule ("));
        CHECK(contains(error_of([&] { return io::read_reference_schedule(other); }), other + ": not a reference schedule ("));
    }
    TEST_CASE("an SVG axis for nan, inf or a denormal top is the default one: no tick loop runs forever") {
        for (const double top : {nan_value, inf, 1e-320, -1.0, 0.0}) {
            const io::svg::Ticks t = io::svg::nice_ticks(top);
            CHECK(t.max == 1.0);
            CHECK(t.step == 0.25);
        }
        // 7.3 over 5 ticks: raw step 1.46, the next nice step 2, the axis to ⌈7.3 / 2⌉ · 2 = 8.
        CHECK(io::svg::nice_ticks(7.3).step == 2.0);
        CHECK(io::svg::nice_ticks(7.3).max == 8.0);
    }

    // Each validation passes a usual value in one inline test and runs the checks
    // that name the fault out of line only when that test fails (error.hpp). The
    // two must agree, or a bad value would pass unnamed (or a good one be
    // refused): on 20,000 inputs per shape, each a valid catalog value with up to
    // three fields set at, just inside or just beyond a bound (0, denormals,
    // DBL_MIN, 1, each limit and its neighbours, ±inf, nan), the one-branch test
    // passes exactly the inputs whose naming checks throw nothing.
    TEST_CASE("every validation's one-branch test agrees with its naming checks, at and beyond each bound") {
        std::mt19937_64 random(20261206);
        const auto pick = [&random](const auto& values) {
            return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(random)];
        };
        const auto accepts = [](auto&& check) {
            try {
                check();
                return true;
            } catch (const napkin::invalid_argument&) {
                return false;
            }
        };
        constexpr double tiny = std::numeric_limits<double>::min(), huge = std::numeric_limits<double>::max();
        const std::vector<double> reals{-inf, -1.0, -0.0, 0.0, tiny / 4, tiny, 1e-9, 0.5, 1.0, 2.0, 3600.0,
                                        3600.5, 1e9, 1.5e9, 1e18, 1.01e18, 1e21, 1.01e21, 1e6, 1.01e6, huge,
                                        inf, nan_value};
        const std::vector<long long> counts{-1, 0, 1, 2, 3, 7, 8, 16, 17, 64, (1LL << 24), (1LL << 24) + 1,
                                            (1LL << 30), (1LL << 30) + 1, (1LL << 34), (1LL << 34) + 1,
                                            (1LL << 40), (1LL << 40) + 1, (1LL << 53), (1LL << 53) + 1,
                                            std::numeric_limits<long long>::max()};
        constexpr int trials = 20000;
        int usual = 0;
        for (int i = 0; i < trials; ++i) {
            Gpu gpu = catalog::h100_sxm;
            const std::vector<std::function<void()>> gpu_fields{
                [&] { gpu.memory = bytes(pick(reals)); }, [&] { gpu.usable_fraction = pick(reals); },
                [&] { gpu.memory_bandwidth = bytes_per_second(pick(reals)); },
                [&] { gpu.peak_flops = flops_per_second(pick(reals)); }, [&] { gpu.sm_count = pick(counts); },
                [&] { gpu.fp8_flops = flops_per_second(pick(reals)); },
                [&] { gpu.fp6_flops = flops_per_second(pick(reals)); },
                [&] { gpu.fp4_flops = flops_per_second(pick(reals)); },
                [&] { gpu.int8_ops = flops_per_second(pick(reals)); },
                [&] { gpu.board_power = watts(pick(reals)); }};
            Link link = catalog::nvlink4;
            PipelineShape shape{8, 64, 1};
            StageTimes times{milliseconds(1.5), milliseconds(3), milliseconds(1)};
            Bytes message = bytes(1e6);
            long long ranks = 8;
            Seconds base = microseconds(5);
            const std::vector<std::function<void()>> other_fields{
                [&] { link.bandwidth = bytes_per_second(pick(reals)); },
                [&] { link.step_latency = seconds(pick(reals)); }, [&] { shape.stages = pick(counts); },
                [&] { shape.microbatches = pick(counts); }, [&] { shape.chunks = pick(counts); },
                [&] { times.forward = seconds(pick(reals)); }, [&] { times.backward = seconds(pick(reals)); },
                [&] { times.weight_grad = seconds(pick(reals)); }, [&] { message = bytes(pick(reals)); },
                [&] { ranks = pick(counts); }, [&] { base = seconds(pick(reals)); }};
            for (int k = i % 4; k > 0; --k) pick(gpu_fields)(), pick(other_fields)();
            usual += detail::usual_gpu(gpu) ? 1 : 0;
            CHECK(detail::usual_gpu(gpu) == accepts([&] { detail::name_gpu_fault(gpu); }));
            CHECK(accepts([&] { (void)validated(link); }) == accepts([&] { detail::name_link_fault(link); }));
            CHECK(detail::usual_shape(shape) == accepts([&] { detail::name_shape_fault(shape); }));
            CHECK(accepts([&] { detail::check_times(times); }) == accepts([&] { detail::name_times_fault(times); }));
            CHECK(accepts([&] { detail::check_collective(message, ranks, link, base); }) ==
                  accepts([&] { detail::name_collective_fault(message, ranks, link, base); }));
        }
        CHECK(usual > trials / 8);  // both sides of every test are reached
        CHECK(usual < trials * 7 / 8);

        // The hierarchical topology (its GPU count formed without wrapping), the message the hierarchical
        // collectives check once, and the schedules' own shape checks (Interleaved's extra warm-up and
        // divisibility, DualPipe's even stages and F&B), each on a shape that passed its own checks.
        int usual_topologies = 0;
        for (int i = 0; i < trials; ++i) {
            HierarchicalTopology t{8, 8, catalog::nvlink4, catalog::ib_ndr, Nic::per_gpu, 2.0};
            PipelineShape shape{8, 64, 4};
            Interleaved interleaved{};
            DualPipe dualpipe{milliseconds(4)};
            Bytes message = bytes(1e6);
            const std::vector<std::function<void()>> fields{
                [&] { t.nodes = pick(counts); }, [&] { t.gpus_per_node = pick(counts); },
                [&] { t.intra.bandwidth = bytes_per_second(pick(reals)); },
                [&] { t.inter.step_latency = seconds(pick(reals)); }, [&] { t.oversubscription = pick(reals); },
                [&] { shape.stages = pick(counts); }, [&] { shape.microbatches = pick(counts); },
                [&] { shape.chunks = pick(counts); }, [&] { interleaved.extra_warmup = pick(counts); },
                [&] { dualpipe.overlapped_forward_backward = seconds(pick(reals)); },
                [&] { message = bytes(pick(reals)); }};
            for (int k = 1 + i % 3; k > 0; --k) pick(fields)();
            const bool usual_topology = accepts([&] { (void)validated(t); });
            usual_topologies += usual_topology ? 1 : 0;
            CHECK(usual_topology == accepts([&] { detail::name_topology_fault(t); }));
            CHECK(accepts([&] { detail::check_message(message); }) ==
                  accepts([&] { detail::name_message_fault(message); }));
            if (!detail::usual_shape(shape)) continue;
            CHECK(accepts([&] { interleaved.validate(shape); }) == accepts([&] { interleaved.name_fault(shape); }));
            const PipelineShape one_chunk{shape.stages, shape.microbatches, 1};  // DualPipe's (chunks > 1: refused)
            CHECK(accepts([&] { dualpipe.validate(one_chunk); }) == accepts([&] { dualpipe.name_fault(one_chunk); }));
        }
        CHECK(usual_topologies > trials / 20);
        CHECK(usual_topologies < trials * 19 / 20);

        // The model's fields: a dense, a mixture and a latent-attention shape.
        const std::vector<TransformerShape> models{catalog::llama3_1_70b, catalog::mixtral_8x22b,
                                                   catalog::deepseek_v3};
        const std::vector<long long TransformerShape::*> fields{
            &TransformerShape::layers, &TransformerShape::hidden, &TransformerShape::ffn,
            &TransformerShape::heads, &TransformerShape::kv_heads, &TransformerShape::head_dim,
            &TransformerShape::vocabulary, &TransformerShape::learned_positions, &TransformerShape::experts,
            &TransformerShape::experts_per_token, &TransformerShape::expert_ffn,
            &TransformerShape::shared_experts, &TransformerShape::shared_expert_ffn,
            &TransformerShape::dense_layers, &TransformerShape::moe_every, &TransformerShape::q_lora_rank,
            &TransformerShape::kv_lora_rank, &TransformerShape::qk_nope_head_dim,
            &TransformerShape::qk_rope_head_dim, &TransformerShape::v_head_dim,
            &TransformerShape::max_position_embeddings, &TransformerShape::norms_per_layer,
            &TransformerShape::sliding_window, &TransformerShape::global_every,
            &TransformerShape::vision_weights};
        int usual_models = 0;
        for (int i = 0; i < trials; ++i) {
            TransformerShape m = pick(models);
            for (int k = 1 + i % 3; k > 0; --k) m.*pick(fields) = pick(counts);
            usual_models += detail::usual_fields(m) ? 1 : 0;
            CHECK(detail::usual_fields(m) == accepts([&] { detail::name_field_fault(m); }));
        }
        CHECK(usual_models > trials / 20);
        CHECK(usual_models < trials * 19 / 20);

        // divides(d, n), which skips the integer division for d = 1 and powers of two, is n % d == 0.
        for (long long d = 1; d <= 130; ++d)
            for (long long n : {-12LL, -3LL, 0LL, 1LL, 6LL, 64LL, 96LL, 127LL, 128LL, 4096LL, 1LL << 40, (1LL << 40) + 2})
                CHECK(divides(d, n) == (n % d == 0));
    }
}
