// napkin/compute.hpp: FLOPs, the efficiency model, MFU and HFU.
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/compute.hpp>

#include <doctest/doctest.h>

using namespace napkin;

TEST_SUITE("compute") {
    TEST_CASE("the per-layer form gives Narayanan et al.'s 72 and 96 formulas for GPT-3 175B") {
        // Without biases, 3·(24·s·h² + 4·s²·h) per layer and 6·s·h·V for the logits is
        // 72·B·s·l·h²·(1 + s/(6h) + V/(12lh)); full recomputation adds one forward of the layers.
        Parallelism par{.global_batch = 1536, .sequence = 2048};
        const double model = in(model_flops_per_iteration(catalog::gpt3_175b, par), units::FLOP);
        CHECK(model == doctest::Approx(in(narayanan_model_flops(1536, 2048, 96, 12288, 51200), units::FLOP))
                           .epsilon(1e-12));
        par.recompute = Recompute::full;
        const double hardware = in(hardware_flops_per_iteration(catalog::gpt3_175b, par), units::FLOP);
        CHECK(hardware ==
              doctest::Approx(in(narayanan_flops_with_recomputation(1536, 2048, 96, 12288, 51200), units::FLOP))
                  .epsilon(1e-12));
        // 96/72 of the layer work: 4 passes instead of 3 (the logits are not replayed).
        CHECK(hardware / model > 1.30);
        CHECK(hardware / model < 4.0 / 3.0);
    }

    TEST_CASE("6·N·D is within the attention share s/(6h) of the per-layer count") {
        const Parallelism par{.global_batch = 1536, .sequence = 2048};
        const double six_nd = in(six_n_d(parameter_count(catalog::gpt3_175b), tokens(1536.0 * 2048)), units::FLOP);
        const double model = in(model_flops_per_iteration(catalog::gpt3_175b, par), units::FLOP);
        // s/(6h) = 2048/73728 = 2.8 %; the tied embedding counted in N but not in the matrices pulls back.
        CHECK(model / six_nd > 1.0);
        CHECK(model / six_nd < 1.0 + 2048.0 / (6 * 12288));
    }

    TEST_CASE("Llama 3.1 8B, one token: GQA and SwiGLU matrices by hand") {
        // 2·(2·4096·4096 + 2·4096·1024 + 3·4096·14336) = 436,207,616, plus the core 2·2·1·1·4096.
        CHECK(layer_forward_flops(catalog::llama3_1_8b, 1).value() == 436'207'616.0 + 16'384.0);
        CHECK(layer_forward_flops(catalog::llama3_1_8b, 1, true).value() == 436'207'616.0 + 8'192.0);
        CHECK(attention_core_flops(catalog::llama3_1_8b, 4096).value() == 4.0 * 4096 * 4096 * 4096);
        CHECK(logits_forward_flops(catalog::llama3_1_8b, 1).value() == 2.0 * 4096 * 128256);
    }

    TEST_CASE("selective recomputation replays only the attention cores") {
        Parallelism par{.global_batch = 2, .sequence = 2048, .recompute = Recompute::selective};
        const TransformerShape& m = catalog::megatron_22b;
        const double extra = (hardware_flops_per_iteration(m, par) - model_flops_per_iteration(m, par)).value();
        CHECK(extra == doctest::Approx(2.0 * 48 * 4.0 * 2048 * 2048 * 6144));
    }

    TEST_CASE("Hockney's r(n) = r∞·n/(n + n½)") {
        const EfficiencyModel e{.peak_share = 0.8, .half_width = 500};
        CHECK(achievable_efficiency(e, 500) == doctest::Approx(0.4));
        CHECK(achievable_efficiency(e, 1500) == doctest::Approx(0.6));
        CHECK(achievable_efficiency(EfficiencyModel{.peak_share = 0.8, .half_width = 0}, 7) == doctest::Approx(0.8));
        // Defaults (r = 0.677, n½ = 0): the same share at every width.
        CHECK(achievable_efficiency(default_efficiency, matmul_width(catalog::gpt3_175b, Parallelism{.tp = 8})) ==
              0.677);
        CHECK(achievable_efficiency(default_efficiency, 96.0) == 0.677);
        CHECK_THROWS_WITH_AS((void)achievable_efficiency(EfficiencyModel{.memory_passes = -1}, 10),
                             "EfficiencyModel.memory_passes = -1: must not be negative", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)achievable_efficiency(EfficiencyModel{.peak_share = 1.5}, 10),
                             "EfficiencyModel.peak_share = 1.5: must be in (0, 1]", napkin::invalid_argument);
        // 312 TFLOP at half of an A100's 312 TFLOP/s: 2 s.
        CHECK(in(achievable_compute_time(flops(312e12), catalog::a100_80gb_sxm, 0.5), units::s) ==
              doctest::Approx(2.0));
    }

    TEST_CASE("MFU and HFU") {
        // 8 A100s, 1 s, 1,248 TFLOP of model work: 1248 / (8 · 312) = 50 %.
        CHECK(model_flops_utilisation(flops(1248e12), seconds(1), 8, catalog::a100_80gb_sxm) ==
              doctest::Approx(0.5));
        CHECK(hardware_flops_utilisation(flops(1664e12), seconds(1), 8, catalog::a100_80gb_sxm) ==
              doctest::Approx(2.0 / 3.0));
        CHECK_THROWS_AS((void)model_flops_utilisation(flops(1), seconds(0), 8, catalog::a100_80gb_sxm),
                        napkin::invalid_argument);
    }
}
