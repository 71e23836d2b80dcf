// The GEMM-level compute model (napkin/gemm.hpp) and what training.hpp does with it.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/gemm.hpp>
#include <napkin/training.hpp>

#include <doctest/doctest.h>

using namespace napkin;

namespace {
double s_of(Seconds t) { return in(t, units::s); }
constexpr GemmSettings a100_bf16{.peak = teraflops_per_second(312), .share = 1.0, .element_bytes = 2.0};
}  // namespace

TEST_SUITE("gemm") {
    TEST_CASE("wave quantization: on 108 SMs, 109 tiles take as long as 216 (the guide's example)") {
        // NVIDIA, Matrix Multiplication Background guide: one 256 × 128 tile per SM; 109 tiles make
        // 2 waves. m = 256, n = 128 · 109 = 13,952 (109 tiles), k = 8,192: intensity
        // 256·13,952·8,192 / (256·8,192 + 8,192·13,952 + 256·13,952) = 243 FLOPs per byte, above
        // A100's ridge of 312e12 / 2,039e9 = 153: compute-bound. Quantization 109 / 216.
        const GemmShape few{.m = 256, .n = 128 * 109, .k = 8192};
        const GemmShape full{.m = 256, .n = 128 * 216, .k = 8192};
        CHECK(quantization_efficiency(few, 108) == doctest::Approx(109.0 / 216.0).epsilon(1e-12));
        CHECK(quantization_efficiency(full, 108) == doctest::Approx(1.0).epsilon(1e-12));
        CHECK(s_of(gemm_time(few, catalog::a100_80gb_sxm, a100_bf16)) ==
              doctest::Approx(s_of(gemm_time(full, catalog::a100_80gb_sxm, a100_bf16))).epsilon(1e-12));
        // 216 tiles in 2 full waves: 2 · 256 · 27,648 · 8,192 FLOPs at 312 TFLOP/s = 371.72 µs.
        CHECK(s_of(gemm_time(full, catalog::a100_80gb_sxm, a100_bf16)) ==
              doctest::Approx(2.0 * 256 * 27648 * 8192 / 312e12).epsilon(1e-12));
    }

    TEST_CASE("tile quantization: one row past the tile pays for a whole row of tiles") {
        // m = 257 needs 2 rows of 256: useful 257 · 128 of 2 · 256 · 128 (one tile column, 2 tiles, 1 wave of 108).
        CHECK(quantization_efficiency({.m = 257, .n = 128, .k = 64}, 108) ==
              doctest::Approx(257.0 * 128 / (108.0 * 256 * 128)).epsilon(1e-12));
        CHECK(ceil_ratio(257, 256) == 2.0);
        CHECK(ceil_ratio(256, 256) == 1.0);
    }

    TEST_CASE("the roofline: the slower of the quantized math and the memory traffic") {
        // (2,048 × 128) · (128 × 128): 2·2,048·128·128 = 67,108,864 FLOPs; it moves
        // (2,048·128 + 128·128 + 2,048·128) · 2 = 1,081,344 bytes, 0.53033 µs at 2,039 GB/s; its math
        // fills 8 of one wave's 108 tile slots: 67,108,864 / (312e12 · 8/108) = 2.9035 µs, the slower.
        const GemmShape thin{.m = 2048, .n = 128, .k = 128};
        CHECK(s_of(gemm_time(thin, catalog::a100_80gb_sxm, a100_bf16)) ==
              doctest::Approx(67108864.0 / (312e12 * 8.0 / 108.0)).epsilon(1e-12));
        // Memory-bound: a (2,048 × 4) · (4 × 4,096) GEMM, 2 bytes
        // each: (8,192 + 16,384 + 8,388,608) · 2 = 16,826,368 bytes at 2,039 GB/s = 8.2523 µs, more than
        // its math, 67,108,864 FLOPs over 8 · 32 = 256 tiles in 3 waves: 67,108,864 / (312e12 · 256/324).
        const GemmShape wide{.m = 2048, .n = 4096, .k = 4};
        CHECK(s_of(gemm_time(wide, catalog::a100_80gb_sxm, a100_bf16)) ==
              doctest::Approx(16826368.0 / 2039e9).epsilon(1e-12));
    }

    TEST_CASE("a linear layer's backward is the input-gradient and the weight-gradient GEMM") {
        // (4,096 × 12,288) · (12,288 × 4,608) forward; backward (4,096, 12,288, 4,608) and
        // (12,288, 4,608, 4,096): each 2 · 4,096 · 12,288 · 4,608 FLOPs. Tiles: forward 16 × 36 = 576
        // (6 waves of 108: 648 slots), input gradient 16 × 96 = 1,536 (15 waves: 1,620), weight
        // gradient 48 × 36 = 1,728 (16 waves: exactly 1,728).
        const GemmShape g{.m = 4096, .n = 4608, .k = 12288};
        const PassTimes t = linear_times(g, catalog::a100_80gb_sxm, a100_bf16);
        const double f = 2.0 * 4096 * 4608 * 12288 / 312e12;
        CHECK(s_of(t.forward) == doctest::Approx(f * 648.0 / 576.0).epsilon(1e-12));
        CHECK(s_of(t.backward) == doctest::Approx(f * 1620.0 / 1536.0 + f).epsilon(1e-12));
    }

    TEST_CASE("flash attention: one kernel, backward 2.5 times the forward's math") {
        // GPT-3 shape, b = 1, s = 2,048, t = 8: 12 heads of d = 128 on this GPU. As (2,048 × 128)
        // outputs with depth 2,048: 16 query blocks of 128 per head, 192 tiles in 2 waves of 108
        // (216 slots); 2 products of 2·2,048·128·2,048 FLOPs per head.
        const Parallelism par{.tp = 8, .sequence = 2048, .flash_attention = true};
        const PassTimes t = attention_core_times(catalog::gpt3_175b, par, catalog::a100_80gb_sxm, a100_bf16, false);
        const double forward = 12.0 * 2.0 * (2.0 * 2048 * 128 * 2048) / (312e12 * 192.0 / 216.0);
        CHECK(s_of(t.forward) == doctest::Approx(forward).epsilon(1e-12));
        CHECK(s_of(t.backward) == doctest::Approx(2.5 * forward).epsilon(1e-12));
        // A causal kernel skips half the blocks.
        const PassTimes causal = attention_core_times(catalog::gpt3_175b, par, catalog::a100_80gb_sxm, a100_bf16, true);
        CHECK(s_of(causal.forward) == doctest::Approx(forward / 2).epsilon(1e-12));
    }

    TEST_CASE("flash attention with a sliding window: the local layers' queries see the band only") {
        // Gemma 2 9B, s = 8,192, causal: its 21 global layers attend to s/2 = 4,096 keys per query on
        // average, its 21 local ones (window 4,096) to (8,192² − 4,096²)/2/8,192 = 3,072; over the
        // layers 3,584, 7/8 of the model without the window. The kernel's tiles are the same (queries
        // × head dimension), so the forward's math scales by 7/8.
        const Parallelism par{.sequence = 8192, .flash_attention = true};
        TransformerShape unwindowed = catalog::gemma2_9b;
        unwindowed.sliding_window = 0;
        unwindowed.global_every = 0;
        const PassTimes windowed = attention_core_times(catalog::gemma2_9b, par, catalog::h100_sxm, a100_bf16, true);
        const PassTimes full = attention_core_times(unwindowed, par, catalog::h100_sxm, a100_bf16, true);
        CHECK(s_of(windowed.forward) == doctest::Approx(7.0 / 8.0 * s_of(full.forward)).epsilon(1e-12));
        CHECK(s_of(windowed.backward) == doctest::Approx(7.0 / 8.0 * s_of(full.backward)).epsilon(1e-12));
    }

    TEST_CASE("training: the GEMM model by default, the flat one by request or for a GPU without the facts") {
        const Parallelism par{.tp = 8, .pp = 16, .dp = 8, .global_batch = 1536, .recompute = Recompute::full};
        const Cluster c = cluster_of(catalog::dgx_a100, 128);
        CHECK(evaluate_training(catalog::gpt3_175b, c, par).compute_model == ComputeModel::gemm);
        CHECK(evaluate_training(catalog::gpt3_175b, c, par, TrainingOptions{.compute_model = ComputeModel::flat})
                  .compute_model == ComputeModel::flat);
        Node bare = catalog::dgx_a100;
        bare.gpu.sm_count = 0;  // a GPU given inline with memory, bandwidth and peak only
        CHECK(evaluate_training(catalog::gpt3_175b, cluster_of(bare, 128), par).compute_model == ComputeModel::flat);
    }

    TEST_CASE("FP8: at the FP8 peak on H100, rejected on A100 naming the GPU") {
        const Parallelism par{.tp = 8, .dp = 1, .global_batch = 8, .sequence = 2048, .sequence_parallel = true,
                              .flash_attention = true};
        const Cluster h100 = cluster_of(catalog::dgx_h100, 1);
        const TrainingEstimate bf16 = evaluate_training(catalog::megatron_22b, h100, par);
        const TrainingEstimate fp8 =
            evaluate_training(catalog::megatron_22b, h100, par, TrainingOptions{.compute_dtype = DType::fp8});
        // Twice the peak on the layers' GEMMs; the casts and the 16-bit logits keep it above half.
        CHECK(fp8.breakdown.compute < bf16.breakdown.compute);
        CHECK(fp8.breakdown.compute > 0.5 * bf16.breakdown.compute);
        CHECK_THROWS_WITH_AS((void)evaluate_training(catalog::megatron_22b, cluster_of(catalog::dgx_a100, 1), par,
                                                     TrainingOptions{.compute_dtype = DType::fp8}),
                             "TrainingOptions.compute_dtype = \"fp8\": a100-80gb-sxm has no FP8 tensor cores "
                             "(use bf16 or fp16)",
                             napkin::invalid_argument);
    }

    TEST_CASE("FP8 MFU against both peaks: H100's FP8 peak is 1,978.9 / 989 = 2.0009 × its BF16 one") {
        const Parallelism par{.tp = 8, .dp = 1, .global_batch = 8, .sequence = 2048, .sequence_parallel = true,
                              .flash_attention = true};
        const TrainingEstimate fp8 = evaluate_training(catalog::megatron_22b, cluster_of(catalog::dgx_h100, 1), par,
                                                       TrainingOptions{.compute_dtype = DType::fp8});
        // MFU = model FLOPs / (step · 8 GPUs · peak): the same FLOPs and step over each peak.
        const double by_hand = in(fp8.model_flops, units::FLOP) / (in(fp8.step, units::s) * 8.0);
        CHECK(fp8.mfu_bf16_peak == doctest::Approx(by_hand / 989e12).epsilon(1e-12));
        CHECK(fp8.mfu_fp8_peak == doctest::Approx(by_hand / 1978.9e12).epsilon(1e-12));
        CHECK(fp8.mfu == fp8.mfu_bf16_peak);  // `mfu` keeps its meaning: the 16-bit peak
        // A GPU without FP8 tensor cores has no FP8 peak to state it against.
        const TrainingEstimate a100 = evaluate_training(catalog::megatron_22b, cluster_of(catalog::dgx_a100, 1), par);
        CHECK(a100.mfu_fp8_peak == 0.0);
        CHECK(a100.mfu_bf16_peak == a100.mfu);
    }

    TEST_CASE("overlap: TP under the GEMMs, ZeRO-3 gathers under the neighbouring layer") {
        const Parallelism tp{.tp = 8, .global_batch = 8, .sequence = 2048, .sequence_parallel = true,
                             .flash_attention = true};
        const Cluster one = cluster_of(catalog::dgx_h100, 1);
        const TrainingEstimate plain = evaluate_training(catalog::megatron_22b, one, tp);
        const TrainingEstimate hidden =
            evaluate_training(catalog::megatron_22b, one, tp, TrainingOptions{.overlap_tp = true});
        CHECK(plain.breakdown.tp.value() > 0.0);
        CHECK(hidden.breakdown.tp < plain.breakdown.tp);
        CHECK(hidden.breakdown.compute == plain.breakdown.compute);
        // ZeRO-3 over 64 GPUs: without prefetch every gather shows (2 per micro-batch).
        const Parallelism fsdp{.dp = 64, .micro_batch = 4, .global_batch = 512, .sequence = 2048,
                               .sharding = Sharding::zero3, .flash_attention = true};
        const Cluster eight = cluster_of(catalog::dgx_a100, 8);
        const TrainingEstimate prefetch = evaluate_training(catalog::llama3_1_8b, eight, fsdp);
        const TrainingEstimate serial =
            evaluate_training(catalog::llama3_1_8b, eight, fsdp, TrainingOptions{.fsdp_prefetch = false});
        CHECK(prefetch.breakdown.dp < serial.breakdown.dp);
        CHECK(prefetch.breakdown.compute == serial.breakdown.compute);
    }
}

TEST_SUITE("gemm") {
    TEST_CASE("a GEMM on a GPU without an SM count, or of an empty shape, is named") {
        Gpu bare = catalog::a100_80gb_sxm;
        bare.sm_count = 0;
        CHECK_THROWS_WITH_AS((void)gemm_time({.m = 8, .n = 8, .k = 8}, bare, a100_bf16),
                             "Gpu.sm_count = 0: must be at least 1", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)quantization_efficiency({.m = 0, .n = 8, .k = 8}, 108),
                             "GemmShape (m·n·k·batch) = 0: every dimension must be positive",
                             napkin::invalid_argument);
    }

    TEST_CASE("the catalog GPUs carry the GEMM model's facts from their data sheets") {
        // Every catalog GPU has an SM count and an architecture; the names of round 1 still resolve.
        for (const Gpu* gpu : catalog::gpus) {
            CAPTURE(gpu->name);
            CHECK(has_gemm_facts(*gpu));
        }
        for (const char* name : {"a100-80gb-sxm", "a100-40gb-sxm", "h100-sxm", "h200-sxm", "b200", "gh200"})
            CHECK(catalog::find_gpu(name).has_value());
        // A100: 108 SMs, no FP8 (whitepaper); H100 SXM: 132 SMs, 1,978.9 TFLOP/s dense FP8 (half the
        // data sheet's sparse 3,958); H100 PCIe 114 SMs, 756 / 1,513; MI300X 304 CUs, 1,307.4 / 2,614.9.
        CHECK(catalog::a100_80gb_sxm.sm_count == 108);
        CHECK(catalog::a100_80gb_sxm.fp8_flops.value() == 0.0);
        CHECK(catalog::h100_sxm.sm_count == 132);
        CHECK(in(catalog::h100_sxm.fp8_flops, units::TFLOPps) == doctest::Approx(1978.9));
        CHECK(catalog::h100_pcie.sm_count == 114);
        CHECK(in(catalog::h100_pcie.peak_flops, units::TFLOPps) == doctest::Approx(756));
        CHECK(in(catalog::mi300x.fp8_flops, units::TFLOPps) == doctest::Approx(2614.9));
        CHECK(catalog::mi300x.architecture == Architecture::cdna3);
        CHECK(catalog::gb200.architecture == Architecture::blackwell);
        CHECK(catalog::gpus.size() == 23);  // round 2's 15, and the 2026 catalog's H20, L40S, L4, RTX PRO 6000,
                                            // B300, GB300, MI355X and V100
    }
}
