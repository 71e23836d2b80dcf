// napkin/optimizer.hpp: Muon's Newton–Schulz FLOPs and its one momentum buffer, next to Adam, by hand.
#include <napkin/catalog/models.hpp>
#include <napkin/optimizer.hpp>

#include <doctest/doctest.h>

using namespace napkin;

TEST_SUITE("optimizer") {
    TEST_CASE("Newton–Schulz on one matrix: T(4m²n + 2m³), m the shorter side") {
        // 1024 × 4096: 4·1024²·4096 + 2·1024³ = 19,327,352,832 per iteration, × 5 = 96,636,764,160.
        static_assert(newton_schulz_flops(1024, 4096) == 96'636'764'160.0);
        static_assert(newton_schulz_flops(4096, 1024) == 96'636'764'160.0);  // the transpose costs the same
        static_assert(newton_schulz_flops(8, 8, 1) == 6.0 * 512.0);          // square: 6m³
    }

    TEST_CASE("a tiny model's step by hand: every matrix of attention and the gated MLP") {
        // h 4, one head of 4, ffn 8, one layer. Per iteration: Q, K, V, O 4×4: 6·4³ = 384 each, 1536;
        // gate, up, down 4×8: 4·4²·8 + 2·4³ = 640 each, 1920. (1536 + 1920) · 5 = 17,280.
        constexpr TransformerShape tiny{.name = "tiny", .layers = 1, .hidden = 4, .ffn = 8, .heads = 1,
                                        .kv_heads = 1, .vocabulary = 10};
        static_assert(muon_step_flops(tiny) == 17'280.0);
        // 8 GPUs sharing it at 1 TFLOP/s: 17,280 / 8 / 1e12 s.
        CHECK(in(muon_step_time(tiny, 8.0, teraflops_per_second(1)), units::s) ==
              doctest::Approx(17'280.0 / 8.0 / 1e12));
    }

    TEST_CASE("Muon's state: one FP32 momentum on the matrices, AdamW's two moments on the rest (Llama 3.1 8B)") {
        // 8,030,261,248 weights; tables 2·128,256·4096 = 1,050,673,152; norms 2·4096·32 + 4096 = 266,240;
        // matrices 6,979,321,856. Adam: 8 B each = 64,242,089,984 B; Muon: 4·6,979,321,856 + 8·1,050,939,392
        // = 36,324,802,560 B.
        CHECK(muon_parameter_count(catalog::llama3_1_8b) == 6'979'321'856);
        CHECK(optimizer_state_bytes(catalog::llama3_1_8b, Optimizer::adam).value() == 64'242'089'984.0);
        CHECK(optimizer_state_bytes(catalog::llama3_1_8b, Optimizer::muon).value() == 36'324'802'560.0);
        CHECK(optimizer_from_name("muon") == Optimizer::muon);
        CHECK_THROWS_WITH_AS((void)optimizer_from_name("sgd"), "optimizer = \"sgd\": must be adam or muon",
                             napkin::invalid_argument);
    }
}
