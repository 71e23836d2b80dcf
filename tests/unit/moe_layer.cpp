// napkin/moe_layer.hpp: one MoE layer's ops on the reference layout (tests/data/moe-training-step-1024-gpus.json:
// h 2048, 128 experts of 768, top-7, one shared expert, micro-batch 2 × 4096 tokens, EP 4 on a GH200 quad node),
// each derived by hand.
#include <napkin/catalog/clusters.hpp>
#include <napkin/collectives.hpp>
#include <napkin/moe_layer.hpp>

#include <doctest/doctest.h>

using namespace napkin;

TEST_SUITE("moe_layer") {
    constexpr TransformerShape moe{.name = "reference-moe", .layers = 45, .hidden = 2048, .ffn = 768, .heads = 16,
                                   .kv_heads = 16, .vocabulary = 131072, .experts = 128, .experts_per_token = 7,
                                   .expert_ffn = 768, .shared_experts = 1, .shared_expert_ffn = 768};
    const MoeLayerSetup setup{.sequence = 4096, .micro_batch = 2, .expert_parallel = 4, .gpu = catalog::gh200,
                              .expert_link = catalog::nvlink4_gh200_pair, .matrix_share = 0.677,
                              .collective_base = nccl::ring_ll_base_latency};

    TEST_CASE("the all-to-all: 7 copies of 8,192 tokens × 2048 × 2 B, a quarter to each peer over its own link") {
        // 234,881,024 B; 3/4 leave the GPU: 176,160,768 B. Each pair carries 58,720,256 B at 150 GB/s = 391.47 µs,
        // plus NCCL's 6.6 µs base and the 0.6 µs NVLink hop: 398.67 µs.
        const auto ops = moe_layer_ops(moe, setup);
        CHECK(ops[2].op == "dispatch all-to-all");
        CHECK(ops[2].moved.value() == 176'160'768.0);
        CHECK(in(ops[2].forward, units::us) == doctest::Approx(58'720'256.0 / 150e9 * 1e6 + 7.2));
        CHECK(in(ops[4].backward, units::us) == doctest::Approx(58'720'256.0 / 150e9 * 1e6 + 7.2));
        // One GPU alone: no all-to-all.
        MoeLayerSetup alone = setup;
        alone.expert_parallel = 1;
        CHECK(moe_layer_ops(moe, alone)[2].forward == Seconds{});
    }

    TEST_CASE("the experts: 7 routed and 1 shared, 3 matrices of 2048 × 768 each, at 0.677 of 989 TFLOP/s") {
        // 2 · 8,192 · 8 · 3 · 2048 · 768 = 618,475,290,624 FLOP / 669.553e12 FLOP/s = 0.92371 ms; backward twice.
        const auto ops = moe_layer_ops(moe, setup);
        CHECK(in(ops[3].forward, units::ms) == doctest::Approx(618'475'290'624.0 / (0.677 * 989e12) * 1e3));
        CHECK(in(ops[3].backward, units::ms) == doctest::Approx(2 * 618'475'290'624.0 / (0.677 * 989e12) * 1e3));
    }

    TEST_CASE("attention: 4h² projections and the causal half of the scores") {
        // 2 · 8,192 · 16,777,216 + 2 · 4096 · 16 · (128 + 128) · 8,192 · 0.5 = 274,877,906,944 + 137,438,953,472.
        const auto ops = moe_layer_ops(moe, setup);
        CHECK(in(ops[0].forward, units::s) == doctest::Approx((274'877'906'944.0 + 137'438'953'472.0) / (0.677 * 989e12)));
        // The layer: the six ops in a row; its all-to-all part twice the dispatch.
        Seconds sum{};
        for (const LayerOp& op : ops) sum += op.forward;
        CHECK(in(moe_layer_time(moe, setup)[0], units::s) == doctest::Approx(in(sum, units::s)));
        CHECK(in(moe_layer_all_to_all(moe, setup)[1], units::s) == doctest::Approx(2 * in(ops[2].forward, units::s)));
    }

    TEST_CASE("bad setups are named") {
        MoeLayerSetup bad = setup;
        bad.matrix_share = 1.5;
        CHECK_THROWS_WITH_AS((void)moe_layer_ops(moe, bad), "MoeLayerSetup.matrix_share = 1.5: must be in (0, 1]",
                             napkin::invalid_argument);
        TransformerShape dense = moe;
        dense.experts = 0;
        CHECK_THROWS_AS((void)moe_layer_ops(dense, setup), napkin::invalid_argument);
    }
}
