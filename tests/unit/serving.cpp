// napkin/serving.hpp: the serving model's numbers, each derived by hand.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/io/hf_config.hpp>
#include <napkin/serving.hpp>

#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

using namespace napkin;

namespace {
constexpr const Gpu& a100 = catalog::a100_80gb_sxm;
constexpr const Gpu& h100 = catalog::h100_sxm;
constexpr const auto& m8b = catalog::llama3_1_8b;
constexpr const auto& m70b = catalog::llama3_1_70b;

// Mixtral 8x7B, from its config.json (tests/data/mixtral_8x7b_config.json):
// 32 layers, hidden 4,096, 8 experts of width 14,336, 2 per token, 32 heads,
// 8 KV heads, vocabulary 32,000, 32,768 positions.
constexpr TransformerShape mixtral = validated(TransformerShape{
    .name = "mixtral-8x7b", .layers = 32, .hidden = 4096, .ffn = 14336, .heads = 32, .kv_heads = 8,
    .head_dim = 128, .vocabulary = 32000, .experts = 8, .experts_per_token = 2, .expert_ffn = 14336,
    .max_position_embeddings = 32768});

// The hand derivations below are the roofline's: data-sheet bandwidth and
// peak, no engine overhead (tests/unit/serving_validation.cpp checks the
// measured kernels and the fitted overheads).
constexpr ServingSetup lesson{.profile = roofline_serving};

double ms(Seconds t) { return in(t, units::ms); }

// The compute of one 8,192-token prefill of Llama 3.1 8B on one GPU at the roofline, its weights in `weights`.
double prefill_compute_s(const Gpu& gpu, WeightDType weights) {
    ServingSetup s = lesson;
    s.weights = weights;
    return in(prefill_time(m8b, gpu, catalog::nvlink5, {}, 1, 8192, s).compute, units::s);
}

std::string error_of(auto&& f) {
    try {
        f();
    } catch (const napkin::invalid_argument& e) {
        return e.what();
    }
    return "no error";
}
}  // namespace

TEST_SUITE("serving") {
    TEST_CASE("one sequence, no context, 16-bit weights: the decode step is the lesson's token_time, to the bit") {
        // The tensor and pipeline splits of the lesson (70B, A100, NVLink 600 GB/s, 4 GPUs: 18.94 ms and
        // 69.23 ms) and the slow link with 8 GPUs.
        const DecodeBatch one{1, tokens(0)};
        for (long long n : {1LL, 2LL, 4LL, 8LL}) {
            for (const Link& link : {catalog::nvlink_a100, catalog::pcie_gen4}) {
                const TokenTime tensor = token_time(m70b, a100, link, {n, Split::tensor, 1});
                const TokenTime pipeline = token_time(m70b, a100, link, {n, Split::pipeline, 1});
                CHECK(decode_step(m70b, a100, link, {.tp = n}, one, lesson).total() == tensor.total());
                CHECK(decode_step(m70b, a100, link, {.pp = n}, one, lesson).total() == pipeline.total());
                CHECK(decode_step(m8b, a100, link, {.tp = n}, one, lesson).total() ==
                      token_time(m8b, a100, link, {n, Split::tensor, 1}).total());
            }
        }
        CHECK(ms(decode_step(m70b, a100, catalog::nvlink_a100, {.tp = 4}, one, lesson).total()) ==
              doctest::Approx(18.94).epsilon(3e-4));
    }

    TEST_CASE("a mixture too: Mixtral 8x7B's decode step at no context is the split's token_time, experts hit alike") {
        // The split read every expert (46.7B weights a token) while it computed with the 12.9B active ones, and
        // disagreed with serve by 3.3x. By hand, tp 2 on an H100 (3.35 TB/s), bf16, one token: the routed experts
        // 32 × 8 × 3 × 4,096 × 14,336 = 45,097,156,608 weights, the rest 46,702,792,704 − that = 1,605,636,096;
        // one token hits 2 of 8, so a GPU reads 2 B × (1,605,636,096 + 45,097,156,608 / 4) / 2 = 12,879,925,248 B,
        // 3.8448 ms.
        CHECK(weights_read_in_step(mixtral, 2, 1).value() == 12'879'925'248.0);
        CHECK(ms(token_time(mixtral, h100, catalog::nvlink4, {2, Split::tensor, 1}).read) ==
              doctest::Approx(12'879'925'248.0 / 3.35e9).epsilon(1e-12));
        // Two tokens hit 8·(1 − (6/8)²) = 3.5 experts a layer.
        CHECK(weights_read_in_step(mixtral, 1, 2).value() ==
              2.0 * (1'605'636'096.0 + 3.5 / 8 * 45'097'156'608.0));
        // A dense model reads its whole share, as before.
        CHECK(weights_read_in_step(m70b, 4, 64) == weights_per_gpu(m70b, 4));
        // Term by term the same as the decode step of B sequences at context 0, tensor and pipeline splits;
        // the lesson's pipeline split runs its stages in turn (one micro-batch).
        ServingSetup in_turn = lesson;
        in_turn.pipeline_micro_batches = 1;
        for (long long n : {1LL, 2LL, 4LL, 8LL})
            for (long long b : {1LL, 4LL, 64LL}) {
                CAPTURE(n);
                CAPTURE(b);
                const DecodeBatch batch{b, tokens(0)};
                CHECK(decode_step(mixtral, h100, catalog::nvlink4, {.tp = n}, batch, lesson).total() ==
                      token_time(mixtral, h100, catalog::nvlink4, {n, Split::tensor, b}).total());
                CHECK(decode_step(mixtral, h100, catalog::nvlink4, {.pp = n}, batch, in_turn).total() ==
                      token_time(mixtral, h100, catalog::nvlink4, {n, Split::pipeline, b}).total());
            }
    }

    TEST_CASE("70B on 8 H100, 178 chats at 8,192 tokens: weights 5.27 ms, KV cache 55.62 GiB = 17.83 ms per step") {
        // weights per GPU: 70,553,706,496 × 2 / 8 = 17,638,426,624 B, / 3.35 TB/s = 5.2652 ms;
        // KV cache: 2·80 layers·8 KV heads·128·2 B = 327,680 B/token; × 8,192 × 178 / 8 KV-head shares
        // = 59,726,888,960 B (55.625 GiB), / 3.35 TB/s = 17.829 ms: the "≥ 17.8 ms".
        const DecodeStep s = decode_step(m70b, h100, catalog::nvlink4, {.tp = 8}, {178, tokens(8192)}, lesson);
        CHECK(ms(s.weights_read) == doctest::Approx(17'638'426'624.0 / 3.35e9).epsilon(1e-12));
        CHECK(ms(s.kv_read) == doctest::Approx(59'726'888'960.0 / 3.35e9).epsilon(1e-12));
        CHECK(s.kv_read > 3.0 * s.weights_read);
        // compute: 2 × 70,553,706,496 × 178 + 4·80·(64·128)·178·8,192 = 2.5117e13 + 3.8221e12 FLOPs,
        // / 8 / 989 TFLOP/s = 3.658 ms: the step is memory-bound.
        const double work = 2.0 * 70'553'706'496.0 * 178 + 4.0 * 80 * 8192 * 178 * 8192;
        CHECK(ms(s.compute) == doctest::Approx(work / 8 / 989e9).epsilon(1e-12));
        CHECK(s.memory_bound());
        // The lesson's figure for this case, 9.48 ms, left the 17.8 ms out.
        CHECK(ms(s.total()) > 9.48 + 17.8);
    }

    TEST_CASE("GQA: Llama 3.1 8B (8 KV heads) on 2 H100, 16 sequences at 1,000 tokens") {
        // KV: 2·32·8·128·2 = 131,072 B/token × 1,000 × 16 / 2 = 1,048,576,000 B, / 3.35 TB/s = 0.31301 ms;
        // weights 8,030,261,248 × 2 / 2 = 8,030,261,248 B, / 3.35 TB/s = 2.39709 ms.
        const DecodeStep s = decode_step(m8b, h100, catalog::nvlink4, {.tp = 2}, {16, tokens(1000)}, lesson);
        CHECK(ms(s.kv_read) == doctest::Approx(1'048'576'000.0 / 3.35e9).epsilon(1e-12));
        CHECK(ms(s.weights_read) == doctest::Approx(8'030'261'248.0 / 3.35e9).epsilon(1e-12));
        // tp = 16 > 8 KV heads: each GPU keeps one head, the share stops at 8.
        CHECK(kv_share(m8b, {.tp = 16}) == 8.0);
    }

    TEST_CASE("a decode kernel without GQA support reads each KV head once per query head: 32 / 8 = 4 times for Llama 3.1 8B") {
        // The same step as above (1,048,576,000 B of cache a GPU at tp 2) read by one thread block per
        // query head: 16 query heads share each GPU's 4 KV heads, so 4 × the bytes, 1.25204 ms.
        ServingSetup per_head = lesson;
        per_head.grouped_decode_attention = false;
        const DecodeStep s = decode_step(m8b, h100, catalog::nvlink4, {.tp = 2}, {16, tokens(1000)}, per_head);
        CHECK(ms(s.kv_read) == doctest::Approx(4.0 * 1'048'576'000.0 / 3.35e9).epsilon(1e-12));
        CHECK(ms(s.weights_read) == doctest::Approx(8'030'261'248.0 / 3.35e9).epsilon(1e-12));
        CHECK(decode_kv_reads(m8b, {.tp = 2}, per_head) == 4.0);
        // tp = 16 splits the 8 KV heads no finer: each GPU keeps one KV head for its 2 query heads.
        CHECK(decode_kv_reads(m8b, {.tp = 16}, per_head) == 2.0);
        // No GQA (12 of 12), a grouped kernel, or MLA's one latent for every head: one read.
        CHECK(decode_kv_reads(catalog::gpt2_small, {}, per_head) == 1.0);
        CHECK(decode_kv_reads(m8b, {.tp = 2}, lesson) == 1.0);
        CHECK(decode_kv_reads(catalog::deepseek_v3, {.tp = 8}, per_head) == 1.0);
    }

    TEST_CASE("a pass's GEMMs fill 77.80 % of their tile slots: Llama-2-7B's 128-token prefill on an A100's 108 SMs") {
        // Llama-2-7B (h 4,096, 32 heads of 128, SwiGLU 11,008). Each GEMM takes the guide's tile that fills
        // the most slots (m·n over waves × 108 × tile area):
        //  Q, K, V  (128, 12,288, 4,096): 128 × 128, 96 tiles, one wave: 1,572,864 / 1,769,472 = 0.8889
        //  output   (128, 4,096, 4,096):  128 × 64, 64 tiles, one wave:    524,288 / 884,736  = 0.5926
        //  gate, up (128, 22,016, 4,096): 64 × 64, 688 tiles, 7 waves:   2,818,048 / 3,096,576 = 0.9101
        //  down     (128, 4,096, 11,008): as the output,                                        0.5926
        // FLOPs ∝ n·k: 50.33 M, 16.78 M, 90.18 M, 45.09 M; Σ F / Σ (F / q) = 0.778030.
        const TransformerShape llama2_7b{.name = "llama-2-7b", .layers = 32, .hidden = 4096, .ffn = 11008,
                                         .heads = 32, .kv_heads = 32, .vocabulary = 32000};
        CHECK(best_tile_quantization({.m = 128, .n = 4096, .k = 4096}, 108) == doctest::Approx(524288.0 / 884736.0));
        CHECK(pass_gemm_quantization(llama2_7b, {}, 128, a100, KernelProfile::measured) ==
              doctest::Approx(0.7780297304).epsilon(1e-9));
        // Enough rows fill every slot (4,096 × 108: whole waves of 64 × 64 tiles); the roofline has no tiles.
        CHECK(pass_gemm_quantization(llama2_7b, {}, 4096 * 108, a100, KernelProfile::measured) ==
              doctest::Approx(1.0));
        CHECK(pass_gemm_quantization(llama2_7b, {}, 128, a100, KernelProfile::roofline) == 1.0);
        // A decode step of 16 sequences at tp 8: every GEMM is one wave even in 64 × 64 tiles (Q, K, V
        // 1 × 24 tiles, output and down 1 × 64, gate and up 1 × 43, all ≤ 108), so each fills 108 × 4,096
        // slots: Σ 16·n·k / Σ k·108·4,096 = 404,750,336 / 4,459,069,440 = 0.0907701.
        CHECK(pass_gemm_quantization(llama2_7b, {.tp = 8}, 16, a100, KernelProfile::measured) ==
              doctest::Approx(404750336.0 / 4459069440.0).epsilon(1e-12));
        // Its arguments are checked: a token count that is not a number, a tp that does not divide the heads.
        CHECK(test::fields_of([&] {
                  return pass_gemm_quantization(llama2_7b, {}, std::nan(""), a100, KernelProfile::measured);
              }).starts_with("tokens | nan | must be a number"));
        CHECK(test::fields_of([&] {
                  return pass_gemm_quantization(llama2_7b, {.tp = 3}, 128, a100, KernelProfile::measured);
              }) == "tp | 3 | must divide the attention heads | ");
    }

    TEST_CASE("no GQA: GPT-2 small (12 KV heads of 12) on one A100, 8 sequences at 1,024: the cache outweighs the weights") {
        // KV: 2·12·12·64·2 = 36,864 B/token × 1,024 × 8 = 301,989,888 B, / 2,039 GB/s = 0.148107 ms;
        // weights 124,439,808 × 2 = 248,879,616 B, / 2,039 GB/s = 0.122060 ms.
        const DecodeStep s = decode_step(catalog::gpt2_small, a100, catalog::nvlink3, {}, {8, tokens(1024)}, lesson);
        CHECK(ms(s.kv_read) == doctest::Approx(301'989'888.0 / 2.039e9).epsilon(1e-12));
        CHECK(ms(s.weights_read) == doctest::Approx(248'879'616.0 / 2.039e9).epsilon(1e-12));
        CHECK(s.kv_read > s.weights_read);
    }

    TEST_CASE("expected distinct experts E·(1 − (1 − k/E)^n) equals the binomial sum over the tokens hitting an expert") {
        // 8 experts, 2 per token, 3 tokens, by hand: P(an expert is hit) = Σ_{j=1..3} C(3,j)(1/4)^j(3/4)^(3−j)
        // = 27/64 + 9/64 + 1/64 = 37/64, so 8 · 37/64 = 4.625 experts.
        CHECK(expected_distinct_experts(8, 2, 3) == 4.625);
        CHECK(expected_distinct_experts(8, 2, 1) == 2.0);  // one token: its k experts
        CHECK(expected_distinct_experts(8, 2, 0) == 0.0);
        for (long long e : {8LL, 64LL, 256LL})
            for (long long k : {1LL, 2LL, 8LL})
                for (long long n = 1; n <= 40; ++n) {
                    const double p = static_cast<double>(k) / static_cast<double>(e);
                    double hit = 0, binomial = 1;  // binomial = C(n, j)
                    for (long long j = 1; j <= n; ++j) {
                        binomial = binomial * static_cast<double>(n - j + 1) / static_cast<double>(j);
                        double term = binomial;
                        for (long long i = 0; i < j; ++i) term *= p;
                        for (long long i = 0; i < n - j; ++i) term *= 1 - p;
                        hit += term;
                    }
                    CHECK(expected_distinct_experts(e, k, static_cast<double>(n)) ==
                          doctest::Approx(static_cast<double>(e) * hit).epsilon(1e-12));
                }
    }

    TEST_CASE("Mixtral 8x7B on 2 H100, one chat: it reads its 12.9 B active weights, not all 46.7 B") {
        // Active: 46,702,792,704 − 32 layers × 6 idle experts × 3·4,096·14,336 = 12,879,925,248 weights;
        // at B = 1 the expected experts are k = 2 of 8, so a GPU reads 12,879,925,248 × 2 / 2 bytes:
        // / 3.35 TB/s = 3.8448 ms, against 46,702,792,704 / 3.35 TB/s = 13.941 ms for every weight (3.63×).
        CHECK(active_parameter_count(mixtral) == 12'879'925'248);
        const DecodeStep one = decode_step(mixtral, h100, catalog::nvlink4, {.tp = 2}, {1, tokens(0)}, lesson);
        CHECK(ms(one.weights_read) == doctest::Approx(12'879'925'248.0 / 3.35e9).epsilon(1e-12));
        // A batch of 64 hits 8·(1 − (3/4)^64) = 7.99999 experts per layer: nearly every weight.
        const DecodeStep many = decode_step(mixtral, h100, catalog::nvlink4, {.tp = 2}, {64, tokens(0)}, lesson);
        CHECK(ms(many.weights_read) == doctest::Approx(46'702'792'704.0 / 3.35e9).epsilon(1e-5));
        // Expert parallelism: two groups of tp 2 hold 4 experts each and pay two all-to-alls per layer.
        const DecodeStep ep = decode_step(mixtral, h100, catalog::nvlink4, {.tp = 2, .ep = 2}, {1, tokens(0)}, lesson);
        CHECK(ep.ep > Seconds{});
        CHECK(one.ep == Seconds{});
    }

    TEST_CASE("memory of 178 chats of 8,192 tokens on 8 H100, to the byte — 179 do not fit") {
        // weights 17,638,426,624 + KV 59,726,888,960 + working 2,048·(3·28,672 + 4·8,192)·2 + 1 GiB
        // = 486,539,264 + 1,073,741,824 = 1,560,281,088 → 78,925,596,672 B of 79,027,398,246 usable
        // (80 GiB × 0.92, rounded down). One more chat adds 335,544,320 B and passes it.
        const ServingMemory m = serving_memory(m70b, h100, {.tp = 8}, 178, 8192);
        CHECK(m.weights.value() == 17'638'426'624.0);
        CHECK(m.kv_cache.value() == 59'726'888'960.0);
        CHECK(m.activations.value() == 1'560'281'088.0);
        CHECK(m.total().value() == 78'925'596'672.0);
        CHECK(m.usable.value() == 79'027'398'246.0);
        CHECK(m.fits());
        CHECK_FALSE(serving_memory(m70b, h100, {.tp = 8}, 179, 8192).fits());
        CHECK(max_concurrency(m70b, h100, {.tp = 8}, 8192) == 178);
    }

    TEST_CASE("paged KV cache: 1,000 tokens take 63 blocks of 16 = 1,008 tokens") {
        CHECK(paged_tokens(1000, 16).value() == 1008.0);
        CHECK(paged_tokens(1008, 16).value() == 1008.0);
        // 8B, one GPU, 1 sequence of 1,000 tokens: 131,072 × 1,008 = 132,120,576 B.
        CHECK(serving_memory(m8b, h100, {}, 1, 1000).kv_cache.value() == 132'120'576.0);
    }

    TEST_CASE("number formats: int4 with a 16-bit scale per 128 weights is 0.515625 B, fp8 KV halves the cache") {
        CHECK(bytes_per_weight(WeightDType::int4) == 0.515625);
        CHECK(bytes_per_weight(WeightDType::int8) == 1.015625);
        CHECK(bytes_per_weight(WeightDType::fp8) == 1.0);
        // 70B in int4 on one GPU: 70,553,706,496 × 0.515625 = 36,379,254,912 B.
        CHECK(serving_weights_per_gpu(m70b, {}, WeightDType::int4).value() == 36'379'254'912.0);
        ServingSetup fp8kv = lesson;
        fp8kv.kv = KvDType::fp8;
        CHECK(serving_memory(m70b, h100, {.tp = 8}, 10, 8192, fp8kv).kv_cache * 2.0 ==
              serving_memory(m70b, h100, {.tp = 8}, 10, 8192).kv_cache);
        // FP8 weights compute at the data sheet's dense FP8 rate (H100 SXM: 1,978.9 TFLOP/s) and are
        // refused on A100, whose data sheet has none.
        CHECK(serving_peak(h100, WeightDType::fp8) == h100.fp8_flops);
        CHECK(in(serving_peak(h100, WeightDType::fp8), units::TFLOPps) == doctest::Approx(1978.9));
        CHECK(has_fp8(h100));
        CHECK_FALSE(has_fp8(a100));
    }

    TEST_CASE("FP4 and quantized KV formats: NVFP4 4 + 8/16 bits, MXFP4 4 + 8/32, INT8 KV 1 + 4/128 bytes") {
        // NVFP4: an FP8 scale per 16 values, 0.5 + 1/16 = 0.5625 B; MXFP4: an E8M0 scale per 32, 0.5 + 1/32.
        CHECK(bytes_per_weight(WeightDType::nvfp4) == 0.5625);
        CHECK(bytes_per_weight(WeightDType::mxfp4) == 0.53125);
        // 70B in NVFP4 on one GPU: 70,553,706,496 × 0.5625 = 39,686,459,904 B.
        CHECK(serving_weights_per_gpu(m70b, {}, WeightDType::nvfp4).value() == 39'686'459'904.0);
        // INT8 / INT4 KV: an FP16 scale and zero point (4 B) per head of 128 values.
        CHECK(bytes_per_kv_value(KvDType::int8) == 1.03125);
        CHECK(bytes_per_kv_value(KvDType::int4) == 0.53125);
        ServingSetup int8kv = lesson;
        int8kv.kv = KvDType::int8;
        // 70B on 8 H100, one token of cache: 327,680 B/token in 16 bit / 8 GPUs × 1.03125 / 2 = 21,120 B.
        CHECK(kv_bytes_per_gpu(m70b, {.tp = 8}, KvDType::int8, tokens(1)).value() == 327'680.0 / 8 * 1.03125 / 2);
        CHECK(serving_memory(m70b, h100, {.tp = 8}, 10, 8192, int8kv).kv_cache.value() ==
              doctest::Approx(serving_memory(m70b, h100, {.tp = 8}, 10, 8192).kv_cache.value() * 1.03125 / 2)
                  .epsilon(1e-9));
        // FP4 weights run W4A4 at the data sheet's dense FP4 rate: B200 9,000 TFLOP/s, twice its FP8.
        CHECK(serving_peak(catalog::b200, WeightDType::nvfp4) == catalog::b200.fp4_flops);
        CHECK(serving_peak(catalog::mi355x, WeightDType::mxfp4) == catalog::mi355x.fp4_flops);
        // A compute-bound prefill (8B, 8,192 tokens, one B200, roofline) takes half as long in NVFP4 as in FP8.
        CHECK(prefill_compute_s(catalog::b200, WeightDType::nvfp4) ==
              doctest::Approx(prefill_compute_s(catalog::b200, WeightDType::fp8) / 2).epsilon(1e-12));
    }

    TEST_CASE("MXFP6: 6 + 8/32 bits a weight, at the data sheet's FP6 rate (B200's FP8 rate, MI355X's FP4 rate)") {
        // OCP MX v1.0: 6-bit E2M3/E3M2 values, one E8M0 scale per 32: 0.75 + 1/32 = 0.78125 B.
        CHECK(bytes_per_weight(WeightDType::mxfp6) == 0.78125);
        CHECK(parse_weight_dtype("mxfp6") == WeightDType::mxfp6);
        CHECK(to_string(WeightDType::mxfp6) == "mxfp6");
        // 70B in MXFP6 on one GPU: 70,553,706,496 × 0.78125 = 55,120,083,200 B.
        CHECK(serving_weights_per_gpu(m70b, {}, WeightDType::mxfp6).value() == 55'120'083'200.0);
        // HGX B200: "FP8/FP6" 4.5 PFLOP/s dense; MI355X: "MXFP6/MXFP4" 10,066.4 TFLOP/s dense.
        CHECK(serving_peak(catalog::b200, WeightDType::mxfp6) == catalog::b200.fp8_flops);
        CHECK(serving_peak(catalog::mi355x, WeightDType::mxfp6) == catalog::mi355x.fp4_flops);
        CHECK(gemm_precision(WeightDType::mxfp6) == DType::fp8);
        // A compute-bound prefill (8B, 8,192 tokens, one MI355X, roofline) takes half as long in MXFP6 as in
        // FP8 (10,066.4 against 5,033.2 TFLOP/s), and reads 0.78125 B a weight where FP8 reads 1.
        CHECK(prefill_compute_s(catalog::mi355x, WeightDType::mxfp6) ==
              doctest::Approx(prefill_compute_s(catalog::mi355x, WeightDType::fp8) / 2).epsilon(1e-12));
        // Hopper, Ada, Ampere and CDNA 3 data sheets give no FP6 rate: refused, naming it.
        CHECK(missing_for(h100, WeightDType::mxfp6) == "no FP6 tensor cores (its data sheet gives no FP6 rate)");
        CHECK(missing_for(catalog::mi300x, WeightDType::mxfp6) ==
              "no FP6 tensor cores (its data sheet gives no FP6 rate)");
        for (const Gpu* g : {&catalog::b200, &catalog::gb200, &catalog::b300, &catalog::gb300, &catalog::rtx_pro_6000,
                             &catalog::mi355x})
            CHECK(missing_for(*g, WeightDType::mxfp6).empty());
    }

    TEST_CASE("a format the GPU cannot compute in is refused, naming what its data sheet lacks") {
        CHECK(missing_for(a100, WeightDType::fp8) == "no FP8 tensor cores (its data sheet gives no FP8 rate)");
        CHECK(missing_for(h100, WeightDType::nvfp4) == "no FP4 tensor cores (its data sheet gives no FP4 rate)");
        CHECK(missing_for(h100, WeightDType::mxfp4) == "no FP4 tensor cores (its data sheet gives no FP4 rate)");
        CHECK(missing_for(catalog::mi355x, WeightDType::nvfp4) == "no NVFP4 (its data sheet gives FP4 as MXFP4)");
        CHECK(missing_for(catalog::mi355x, WeightDType::mxfp4).empty());
        // NVFP4 on both Blackwells: the data-center B200 and the workstation RTX PRO 6000.
        CHECK(missing_for(catalog::b200, WeightDType::nvfp4).empty());
        CHECK(missing_for(catalog::rtx_pro_6000, WeightDType::nvfp4).empty());
        CHECK(missing_for(catalog::gb300, WeightDType::nvfp4).empty());
        CHECK(missing_for(catalog::mi300x, WeightDType::fp8).empty());  // MI300X: 2,614.9 TFLOP/s FP8 dense
        CHECK(computable_formats(a100) == "bf16, fp16, int8 or int4");
        CHECK(computable_formats(catalog::b200) == "bf16, fp16, fp8, int8, int4, nvfp4, mxfp4 or mxfp6");
        CHECK(error_of([] {
                  ServingSetup s = lesson;
                  s.weights = WeightDType::mxfp4;
                  (void)evaluate_serving(m8b, h100, catalog::nvlink4, {}, {.input_tokens = 8, .output_tokens = 8}, s);
              }) == "weight dtype = \"mxfp4\": h100-sxm has no FP4 tensor cores (its data sheet gives no FP4 rate); "
                    "use bf16, fp16, fp8, int8 or int4");
        // Every catalog GPU states a served model in 16 bit, and in FP8 wherever its data sheet gives FP8.
        for (const Gpu* g : catalog::gpus) {
            CAPTURE(g->name);
            ServingSetup s = lesson;
            s.weights = has_fp8(*g) ? WeightDType::fp8 : WeightDType::bf16;
            const ServingEstimate e = evaluate_serving(m8b, *g, *catalog::default_links(g->name).intra, {},
                                                       {.input_tokens = 512, .output_tokens = 64}, s);
            CHECK(e.output_tokens_per_s.value() > 0.0);
        }
    }

    TEST_CASE("TTFT of a 2,048-token prompt on one H100 (8B, continuous, O = 256), by hand: 39.25 ms") {
        // Prefill, one pass: 2·8,030,261,248·2,048 = 32,891,950,071,808 FLOPs + causal attention
        // 4·32·4,096·(2,048·2,049/2) = 1,100,048,498,688 → 33,991,998,570,496 / 989 TFLOP/s = 34.3701 ms,
        // above its memory time ((16,060,522,496 + 131,072·2,048) B / 3.35 TB/s = 4.874 ms): compute-bound.
        // First step (the running iteration ends): B = 1 at context 2,048 + 256/2 = 2,176, memory-bound:
        // (16,060,522,496 + 131,072·2,176) B / 3.35 TB/s = 4.87932 ms.
        const ServingEstimate e = evaluate_serving(m8b, h100, catalog::nvlink4, {},
                                                   {.input_tokens = 2048, .output_tokens = 256, .concurrency = 1}, lesson);
        const double prefill = 33'991'998'570'496.0 / 989e9;
        const double step = (16'060'522'496.0 + 131'072.0 * 2176) / 3.35e9;
        CHECK(ms(e.prefill.total()) == doctest::Approx(prefill).epsilon(1e-12));
        CHECK(ms(e.step.total()) == doctest::Approx(step).epsilon(1e-12));
        CHECK(ms(e.ttft) == doctest::Approx(prefill + step).epsilon(1e-12));
        CHECK(ms(e.ttft) == doctest::Approx(39.2494).epsilon(1e-5));
        // TPOT: the step plus 1/256 of a prefill per step; e2e = TTFT + 255 TPOT.
        CHECK(ms(e.tpot) == doctest::Approx(step + prefill / 256).epsilon(1e-12));
        CHECK(ms(e.e2e) == doctest::Approx(prefill + step + 255 * (step + prefill / 256)).epsilon(1e-12));
        CHECK(e.output_tokens_per_s.value() == doctest::Approx(256 / in(e.e2e, units::s)).epsilon(1e-12));
    }

    TEST_CASE("static batching: TTFT is the batch's prefill, TPOT one step, e2e TTFT + (O − 1)·TPOT") {
        const ServingEstimate e = evaluate_serving(
            m70b, h100, catalog::nvlink4, {.tp = 8},
            {.input_tokens = 1024, .output_tokens = 128, .concurrency = 16, .batching = Batching::static_batch}, lesson);
        const PrefillTime p = prefill_time(m70b, h100, catalog::nvlink4, {.tp = 8}, 16, 1024, lesson);
        CHECK(e.ttft == p.total());
        CHECK(e.tpot == e.step.total());
        CHECK(ms(e.e2e) == doctest::Approx(ms(p.total()) + 127 * ms(e.step.total())).epsilon(1e-12));
        CHECK(e.requests_per_s.value() == doctest::Approx(16 / in(e.e2e, units::s)).epsilon(1e-12));
    }

    TEST_CASE("chunked prefill does the same attention work in more passes") {
        // Σ over chunks of c·p + c(c + 1)/2 = I(I + 1)/2, so a compute-bound prompt costs the same FLOPs.
        ServingSetup chunked = lesson;
        chunked.prefill_chunk = 2048;
        const PrefillTime whole = prefill_time(m8b, h100, catalog::nvlink4, {}, 1, 8192, lesson);
        const PrefillTime parts = prefill_time(m8b, h100, catalog::nvlink4, {}, 1, 8192, chunked);
        CHECK(whole.passes == 1);
        CHECK(parts.passes == 4);
        CHECK(ms(parts.compute) == doctest::Approx(ms(whole.compute)).epsilon(1e-12));
        chunked.prefill_chunk = 64;  // small chunks re-read the weights: memory-bound, slower
        CHECK(prefill_time(m8b, h100, catalog::nvlink4, {}, 1, 8192, chunked).compute > whole.compute);
    }

    TEST_CASE("M/D/1: at half the capacity a request waits half a service time") {
        // ρ = 1/2: W = ρ·D / (2(1 − ρ)) = D/2.
        CHECK(in(md1_wait(per_second(5), per_second(10)), units::s) == doctest::Approx(0.05).epsilon(1e-15));
        CHECK(error_of([] { (void)md1_wait(per_second(10), per_second(10)); }).starts_with("arrival rate"));
    }

    TEST_CASE("the frontier: more concurrency never lowers throughput until memory runs out") {
        const ServingLayout l{.tp = 8};
        const long long most = max_concurrency(m70b, h100, l, 2048);
        CHECK(most > 256);
        double last = 0;
        for (long long n = 1; n <= most + 8; ++n) {
            const ServingEstimate e =
                evaluate_serving(m70b, h100, catalog::nvlink4, l, {.input_tokens = 1024, .output_tokens = 1024, .concurrency = n}, lesson);
            CHECK(e.memory.fits() == (n <= most));
            if (n <= most) CHECK(e.output_tokens_per_s.value() >= last);
            last = e.output_tokens_per_s.value();
        }
    }

    TEST_CASE("bad input: each a one-line error naming the argument and its value") {
        auto serve = [](ServingWorkload w, const Gpu& gpu = h100, ServingSetup s = lesson) {
            return error_of([&] { (void)evaluate_serving(m70b, gpu, catalog::nvlink4, {.tp = 8}, w, s); });
        };
        CHECK(serve({.input_tokens = 16, .output_tokens = 16, .concurrency = 0}) == "concurrency = 0: must be at least 1");
        CHECK(serve({.input_tokens = 0, .output_tokens = 16}) == "input tokens = 0: must be at least 1");
        CHECK(serve({.input_tokens = 16, .output_tokens = -3}) == "output tokens = -3: must be at least 1");
        ServingSetup fp8 = lesson;
        fp8.weights = WeightDType::fp8;
        CHECK(serve({.input_tokens = 16, .output_tokens = 16}, a100, fp8).starts_with("weight dtype = \"fp8\": a100-80gb-sxm has no FP8 tensor cores"));
        // The context: Mixtral was trained for 32,768 positions.
        CHECK(error_of([] {
                  (void)evaluate_serving(mixtral, h100, catalog::nvlink4, {.tp = 2},
                                         {.input_tokens = 32000, .output_tokens = 1000}, lesson);
              }) == "input + output tokens = 33000: exceeds the model's max_position_embeddings = 32768");
        CHECK(error_of([] { (void)evaluate_serving(m70b, h100, catalog::nvlink4, {.tp = 3}, {}, lesson); }) ==
              "tp = 3: must divide the attention heads");
        CHECK(error_of([] { (void)evaluate_serving(m70b, h100, catalog::nvlink4, {.ep = 2}, {}, lesson); }) ==
              "ep = 2: must be 1 for a dense model");
        // A KV cache that fits for no N: 405B's weights alone overflow one H100.
        CHECK(max_concurrency(catalog::llama3_1_405b, h100, {}, 1024) == 0);
        CHECK(error_of([] { (void)max_concurrency(m8b, h100, {}, 0); }) ==
              "sequence length (tokens) = 0: must be at least 1");
    }
}

TEST_SUITE("serving") {
    TEST_CASE("plan_serving finds what a brute-force search over every layout and concurrency finds") {
        // 8B on up to 4 H100, N ≤ 96, TPOT ≤ 12 ms and TTFT ≤ 400 ms: check every point, keep the most
        // output tokens/s per GPU (ties: fewer GPUs, then lower TPOT); both at the default profile.
        ServingPlanQuery q{.max_gpus = 4, .max_concurrency = 96, .input_tokens = 1024, .output_tokens = 128};
        q.tpot_bound = milliseconds(12);
        q.ttft_bound = milliseconds(400);
        const ServingPlan plan = plan_serving(m8b, h100, catalog::nvlink4, q);
        std::optional<ServingEstimate> best;
        long long points = 0;
        for (long long tp : {1LL, 2LL, 4LL})
            for (long long pp : {1LL, 2LL, 4LL}) {
                if (tp * pp > 4) continue;
                for (long long n = 1; n <= 96; ++n) {
                    const ServingEstimate e = evaluate_serving(m8b, h100, catalog::nvlink4, {tp, pp, 1},
                                                               {.input_tokens = 1024, .output_tokens = 128, .concurrency = n});
                    ++points;
                    if (!e.memory.fits() || e.tpot > q.tpot_bound || e.ttft > q.ttft_bound) continue;
                    const bool better = !best || e.output_tokens_per_s_per_gpu > best->output_tokens_per_s_per_gpu ||
                                        (e.output_tokens_per_s_per_gpu == best->output_tokens_per_s_per_gpu &&
                                         (e.layout.gpus() < best->layout.gpus() ||
                                          (e.layout.gpus() == best->layout.gpus() && e.tpot < best->tpot)));
                    if (better) best = e;
                }
            }
        REQUIRE(best);
        REQUIRE(plan.best);
        CHECK(plan.best->layout.tp == best->layout.tp);
        CHECK(plan.best->layout.pp == best->layout.pp);
        CHECK(plan.best->workload.concurrency == best->workload.concurrency);
        CHECK(plan.best->output_tokens_per_s_per_gpu == best->output_tokens_per_s_per_gpu);
        CHECK(plan.points_evaluated + plan.pruned == points);  // every point estimated or proven out
        CHECK(plan.points_evaluated < points);  // the cut-offs skipped some
    }
}

TEST_SUITE("serving") {
    TEST_CASE("plan_serving_fleet: the fewest GPUs for a traffic level, checked against every layout, N and replica count") {
        // 8B on replicas of up to 4 H100, N ≤ 48, 30 requests/s of 1,024 + 128 tokens, TPOT ≤ 15 ms and
        // TTFT ≤ 300 ms with each replica's M/D/1 wait at λ/r: for every point within the bounds unloaded,
        // the smallest r whose load is below 1 and whose TTFT stays within the bound; the fewest GPUs
        // (ties: the lower TTFT, then the lower TPOT).
        ServingPlanQuery q{.max_gpus = 4, .max_concurrency = 48, .input_tokens = 1024, .output_tokens = 128};
        q.tpot_bound = milliseconds(15);
        q.ttft_bound = milliseconds(300);
        const PerSecond traffic = per_second(30);
        const ServingFleetPlan plan = plan_serving_fleet(m8b, h100, catalog::nvlink4, q, traffic);
        long long best_gpus = 0, best_replicas = 0, best_n = 0;
        Seconds best_ttft{}, best_tpot{};
        for (long long tp : {1LL, 2LL, 4LL})
            for (long long pp : {1LL, 2LL, 4LL}) {
                if (tp * pp > 4) continue;
                for (long long n = 1; n <= 48; ++n) {
                    ServingWorkload w{.input_tokens = 1024, .output_tokens = 128, .concurrency = n};
                    const ServingEstimate e = evaluate_serving(m8b, h100, catalog::nvlink4, {tp, pp, 1}, w);
                    if (!e.memory.fits() || e.tpot > q.tpot_bound || e.ttft > q.ttft_bound) continue;
                    for (long long r = 1; r <= 10'000; ++r) {
                        if (!(traffic / e.requests_per_s / count(r) < 1.0)) continue;
                        w.arrival_rate = traffic / count(r);
                        const ServingEstimate loaded = evaluate_serving(m8b, h100, catalog::nvlink4, {tp, pp, 1}, w);
                        if (loaded.ttft > q.ttft_bound) continue;
                        const long long gpus = r * tp * pp;
                        const bool better = best_gpus == 0 || gpus < best_gpus ||
                                            (gpus == best_gpus && (loaded.ttft < best_ttft ||
                                                                   (loaded.ttft == best_ttft && loaded.tpot < best_tpot)));
                        if (better) {
                            best_gpus = gpus;
                            best_replicas = r;
                            best_n = n;
                            best_ttft = loaded.ttft;
                            best_tpot = loaded.tpot;
                        }
                        break;  // the smallest r for this point
                    }
                }
            }
        REQUIRE(best_gpus > 0);
        REQUIRE(plan.best);
        CHECK(plan.best->gpus() == best_gpus);
        CHECK(plan.best->replicas == best_replicas);
        CHECK(plan.best->replica.workload.concurrency == best_n);
        CHECK(plan.best->replica.ttft <= q.ttft_bound);
        CHECK(plan.best->replica.tpot <= q.tpot_bound);
        // The load each replica carries: λ / (r·μ), below 1.
        CHECK(plan.best->load < 1.0);
        CHECK(plan.best->replica.queue.value() > 0.0);
    }

    TEST_CASE("plan_serving_fleet without a TTFT bound: r = ⌈λ/μ⌉, one more when the load would be exactly 1") {
        // One H100, N = 1 (max_gpus = 1, max_concurrency = 1): μ = requests_per_s at N = 1.
        // λ = 2.5μ → r = 3 at load 2.5/3; λ = 2μ → r = 2 would load each replica fully (ρ = 1: the M/D/1
        // wait ρD/(2(1 − ρ)) is unbounded), so r = 3 at load 2/3.
        const ServingPlanQuery q{.max_gpus = 1, .max_concurrency = 1, .input_tokens = 512, .output_tokens = 64};
        const PerSecond mu =
            evaluate_serving(m8b, h100, catalog::nvlink4, {}, {.input_tokens = 512, .output_tokens = 64}).requests_per_s;
        const ServingFleetPlan a = plan_serving_fleet(m8b, h100, catalog::nvlink4, q, mu * 2.5);
        REQUIRE(a.best);
        CHECK(a.best->replicas == 3);
        CHECK(a.best->load == doctest::Approx(2.5 / 3.0).epsilon(1e-12));
        const ServingFleetPlan b = plan_serving_fleet(m8b, h100, catalog::nvlink4, q, mu * 2.0);
        REQUIRE(b.best);
        CHECK(b.best->replicas == 3);
        CHECK(b.best->load == doctest::Approx(2.0 / 3.0).epsilon(1e-12));
        // Its TTFT is the unloaded one plus the M/D/1 wait at ρ = 2/3: ρ/(2(1 − ρ))/μ = 1/μ.
        const ServingEstimate unloaded =
            evaluate_serving(m8b, h100, catalog::nvlink4, {}, {.input_tokens = 512, .output_tokens = 64});
        CHECK(in(b.best->replica.ttft, units::s) ==
              doctest::Approx(in(unloaded.ttft, units::s) + 1.0 / mu.value()).epsilon(1e-12));
    }

    TEST_CASE("plan_serving_fleet: a TTFT bound below every unloaded TTFT finds no fleet, and bad traffic is an error") {
        ServingPlanQuery q{.max_gpus = 2, .max_concurrency = 8, .input_tokens = 1024, .output_tokens = 128};
        q.ttft_bound = seconds(1e-6);
        const ServingFleetPlan none = plan_serving_fleet(m8b, h100, catalog::nvlink4, q, per_second(1));
        CHECK(!none.best);
        CHECK(none.rejected_latency > 0);
        CHECK(error_of([] { (void)plan_serving_fleet(m8b, h100, catalog::nvlink4, {}, per_second(0)); }) ==
              "requests/s = 0: must be positive");
    }
}

TEST_SUITE("serving") {
    TEST_CASE("README's serving example: 55.62 GiB of cache per GPU, 178 chats fit, KV 13.37 ms against weights 5.27 ms") {
        // Mean decode context 4,096 + 4,096/2 = 6,144 tokens: 327,680 B × 6,144 × 178 / 8 = 44,795,166,720 B,
        // / 3.35 TB/s = 13.37 ms.
        const ServingEstimate e = evaluate_serving(catalog::llama3_1_70b, catalog::h100_sxm, catalog::nvlink4, {.tp = 8},
                                                   {.input_tokens = 4096, .output_tokens = 4096, .concurrency = 178}, lesson);
        CHECK(to_string(e.memory.kv_cache) == "55.62 GiB");
        CHECK(e.max_concurrency == 178);
        CHECK(to_string(e.step.kv_read) == "13.37 ms");
        CHECK(to_string(e.step.weights_read) == "5.27 ms");
    }
}

TEST_SUITE("serving") {
    TEST_CASE("M/D/1 admissible load: a TTFT bound of twice the prefill admits ρ = 2/3") {
        // x = 2(T − Tp)/Tp = 2, ρ = x/(1 + x) = 2/3; check: Tp + ρ·Tp/(2(1 − ρ)) = 1 + (2/3)/(2/3) = 2 s.
        CHECK(md1_admissible_load(seconds(1), seconds(2)) == doctest::Approx(2.0 / 3.0).epsilon(1e-15));
        CHECK(md1_admissible_load(seconds(1), seconds(0.5)) == 0.0);
        CHECK(md1_admissible_load(seconds(1), seconds(std::numeric_limits<double>::infinity())) == 1.0);
    }

    TEST_CASE("disaggregated prefill and decode: the best split of 4 instances, against every split by hand") {
        // 8B on one H100 per instance, 2,048 in, 256 out, TTFT ≤ 200 ms, TPOT ≤ 20 ms.
        const DisaggregationQuery q{.instances = 4, .input_tokens = 2048, .output_tokens = 256,
                                    .ttft_bound = milliseconds(200), .tpot_bound = milliseconds(20)};
        const auto best = best_disaggregation(m8b, h100, catalog::nvlink4, {}, q, lesson);
        REQUIRE(best);
        // Prefill of one prompt: 34.3701 ms (see the TTFT case); the bound admits ρ = x/(1 + x) with
        // x = 2(200 − 34.37)/34.37.
        const double tp = 33'991'998'570'496.0 / 989e12;
        const double x = 2 * (0.2 - tp) / tp, rho = x / (1 + x);
        CHECK(in(best->prefill, units::s) == doctest::Approx(tp).epsilon(1e-12));
        // KV transfer: 131,072 B × 2,048 = 268,435,456 B in one point-to-point: 6.6 + 0.6 µs + 596.52 µs.
        CHECK(in(best->kv_transfer, units::us) == doctest::Approx(7.2 + 268'435'456.0 / 450e3).epsilon(1e-9));
        CHECK(best->tpot <= milliseconds(20));
        CHECK(best->ttft <= milliseconds(200) * (1 + 1e-12));
        const double n = static_cast<double>(best->decode_concurrency), step = in(best->tpot, units::s);
        double most = 0;
        long long arg = 0;
        for (long long p = 1; p < 4; ++p) {
            const double rate = std::min(static_cast<double>(p) * rho / tp, static_cast<double>(4 - p) * n / (256 * step));
            if (rate > most) {
                most = rate;
                arg = p;
            }
        }
        CHECK(best->prefill_instances == arg);
        CHECK(best->goodput().value() == doctest::Approx(most).epsilon(1e-12));
        // A TPOT bound below one sequence's step admits no split.
        DisaggregationQuery tight = q;
        tight.tpot_bound = milliseconds(1);
        CHECK_FALSE(best_disaggregation(m8b, h100, catalog::nvlink4, {}, tight, lesson));
        CHECK(error_of([&] {
                  DisaggregationQuery one = q;
                  one.instances = 1;
                  (void)best_disaggregation(m8b, h100, catalog::nvlink4, {}, one, lesson);
              }) == "instances = 1: must be at least 2 (one prefill, one decode)");
    }

    TEST_CASE(
        "disaggregated TTFT at the offered rate: Tp + rho/(2(1 - rho)) Tp with rho = rate Tp / p, unbounded when "
        "the prefill pool saturates") {
        // 8B on one H100 per instance, 2,048 in, 256 out, no bounds: the split carries its goodput.
        DisaggregationQuery q{.instances = 4, .input_tokens = 2048, .output_tokens = 256};
        const auto saturated = best_disaggregation(m8b, h100, catalog::nvlink4, {}, q, lesson);
        REQUIRE(saturated);
        const double tp = in(saturated->prefill, units::s), p = static_cast<double>(saturated->prefill_instances);
        // Without a TTFT bound the prefill pool runs at load 1 when it sets the goodput: an M/D/1 queue at ρ = 1
        // has no finite wait.
        if (saturated->goodput().value() == doctest::Approx(p / tp).epsilon(1e-12))
            CHECK(std::isinf(in(saturated->ttft, units::s)));
        // Offered 2 requests/s the pools carry 2: ρ = 2 · Tp / p (M/D/1: W = ρ/(2(1 − ρ)) · Tp).
        q.arrival_rate = per_second(2.0);
        const auto offered = best_disaggregation(m8b, h100, catalog::nvlink4, {}, q, lesson);
        REQUIRE(offered);
        const double rho = 2.0 * tp / static_cast<double>(offered->prefill_instances);
        CHECK(in(offered->ttft, units::s) == doctest::Approx(tp + rho / (2 * (1 - rho)) * tp).epsilon(1e-12));
        // More offered than the split's goodput queues without end: no finite TTFT.
        q.arrival_rate = per_second(offered->goodput().value() * 1.01);
        const auto over = best_disaggregation(m8b, h100, catalog::nvlink4, {}, q, lesson);
        REQUIRE(over);
        CHECK(std::isinf(in(over->ttft, units::s)));
        // An offered rate is a rate: a negative one is named.
        q.arrival_rate = per_second(-1.0);
        CHECK(error_of([&] { (void)best_disaggregation(m8b, h100, catalog::nvlink4, {}, q, lesson); }) ==
              "arrival_rate = -1: must not be negative");
    }
}

TEST_SUITE("serving") {
    TEST_CASE("expert all-to-alls: Mixtral, tp 2 × ep 2, one token: 2 × 32 layers × (6.6 + 0.6 µs + ½ · 8,192 B / 450 GB/s)") {
        // Each rank's buffer: k = 2 copies of a 4,096 × 2 B hidden vector, cut over its tp = 2 GPUs = 8,192 B;
        // a 2-rank all-to-all sends half of it in one step. 64 × 7.2091 µs = 461.38 µs.
        const DecodeStep s = decode_step(mixtral, h100, catalog::nvlink4, {.tp = 2, .ep = 2}, {1, tokens(0)}, lesson);
        CHECK(in(s.ep, units::us) == doctest::Approx(64 * (7.2 + 0.5 * 8192 / 450e3)).epsilon(1e-12));
        // Each GPU holds 4 of the 8 experts (cut in 2) and the tokens of both groups hit
        // 8·(1 − (3/4)²) = 3.5 experts, 1.75 of its 4 on average, each 1/8 of a layer's experts cut in 2:
        // (rest/2 + 1.75/8 · experts/2) × 2 B, rounded up to a whole byte.
        const double experts = 32.0 * 8 * 3 * 4096 * 14336, rest = 46'702'792'704.0 - experts;
        CHECK(in(s.weights_read, units::s) ==
              doctest::Approx(std::ceil((rest / 2 + 3.5 / 8 * experts / 4) * 2) / 3.35e12).epsilon(1e-12));
    }

    TEST_CASE("queueing: TTFT = the M/D/1 wait at the arrival rate + the running step + the prefill") {
        const ServingWorkload quiet{.input_tokens = 2048, .output_tokens = 256, .concurrency = 8};
        ServingWorkload busy = quiet;
        busy.arrival_rate = per_second(1);
        const ServingEstimate a = evaluate_serving(m8b, h100, catalog::nvlink4, {}, quiet, lesson);
        const ServingEstimate b = evaluate_serving(m8b, h100, catalog::nvlink4, {}, busy, lesson);
        const double mu = a.requests_per_s.value(), rho = 1 / mu;
        CHECK(in(b.queue, units::s) == doctest::Approx(rho / (2 * (1 - rho)) / mu).epsilon(1e-12));
        CHECK(in(b.ttft, units::s) == doctest::Approx(in(a.ttft + b.queue, units::s)).epsilon(1e-12));
        CHECK(b.tpot == a.tpot);
    }
}

// Mixtures with shared experts and dense layers, and multi-head latent attention (issue #16: "MLA's compressed
// cache when the model has it", shared experts always read).
namespace {
// DeepSeek-V3, from its config.json (tests/data/deepseek_v3_config.json; the test below checks the two agree):
// 61 layers, the first 3 dense (first_k_dense_replace) with FFN 18,432, then 58 MoE layers of 256 routed experts
// of width 2,048, 8 per token, and 1 shared expert of width 2,048; hidden 7,168, 128 heads; latent attention with
// q_lora_rank 1,536, kv_lora_rank 512, Q·K heads of 128 + 64 (RoPE), V heads of 128; vocabulary 129,280.
constexpr TransformerShape deepseek_v3 = validated(TransformerShape{
    .name = "deepseek-v3", .layers = 61, .hidden = 7168, .ffn = 18432, .heads = 128, .kv_heads = 128,
    .vocabulary = 129280, .experts = 256, .experts_per_token = 8, .expert_ffn = 2048, .shared_experts = 1,
    .shared_expert_ffn = 2048, .dense_layers = 3, .q_lora_rank = 1536, .kv_lora_rank = 512,
    .qk_nope_head_dim = 128, .qk_rope_head_dim = 64, .v_head_dim = 128, .max_position_embeddings = 163840});
constexpr const Gpu& h200 = catalog::h200_sxm;
const std::string data = NAPKIN_TEST_DATA_DIR;

ServingSetup fp8_weights() {
    ServingSetup s = lesson;
    s.weights = WeightDType::fp8;  // DeepSeek-V3 ships its weights in FP8 (arXiv 2412.19437, Sec. 3.3)
    return s;
}
}  // namespace

TEST_SUITE("serving") {
    TEST_CASE("DeepSeek-V3's shape here is its config.json's: 671,026,404,352 weights, 37,552,282,624 active") {
        // The weight counts are derived by hand in tests/unit/hf_config.cpp.
        const TransformerShape& c = io::read_hf_config(data + "/deepseek_v3_config.json").shape;
        CHECK(c.layers == deepseek_v3.layers);
        CHECK(c.dense_layers == deepseek_v3.dense_layers);
        CHECK(c.kv_lora_rank == deepseek_v3.kv_lora_rank);
        CHECK(c.qk_rope_head_dim == deepseek_v3.qk_rope_head_dim);
        CHECK(c.max_position_embeddings == deepseek_v3.max_position_embeddings);
        CHECK(parameter_count(c) == parameter_count(deepseek_v3));
        CHECK(parameter_count(deepseek_v3) == 671'026'404'352);
        CHECK(active_parameter_count(deepseek_v3) == 37'552'282'624);
        CHECK(moe_layers(deepseek_v3) == 58);
    }

    TEST_CASE("MLA cache: DeepSeek-V3 holds 61 × (512 + 64) × 2 B = 70,272 B per token, whole on every tp GPU") {
        // DeepSeek-V2 Sec. 2.1.2: one latent c^KV of kv_lora_rank values and one shared RoPE key of
        // qk_rope_head_dim values per token and layer; 61 × 576 × 2 B = 70,272 B. Every head up-projects from
        // the same latent, so tp 8 does not split it: kv_share is the pp stages only (1).
        CHECK(kv_cache_per_token(deepseek_v3, 2.0).value() == 70'272.0);
        CHECK(kv_share(deepseek_v3, {.tp = 8}) == 1.0);
        CHECK(kv_bytes_per_gpu(deepseek_v3, {.tp = 8}, KvDType::bf16, tokens(1)).value() == 70'272.0);
        CHECK(kv_bytes_per_gpu(deepseek_v3, {.tp = 8}, KvDType::fp8, tokens(1)).value() == 35'136.0);
        // Memory of 64 chats of 1,024 + 1,024 tokens on 8 H200 (141 GB × 0.92 = 129,720,000,000 B usable), FP8:
        //   weights 671,026,404,352 × 1 B / 8 = 83,878,300,544 (experts and the rest both over 8 GPUs);
        //   KV 70,272 × 2,048 × 64 = 9,210,691,584 (not / 8);
        //   working 2,048 × (3·18,432 + 4·7,168) × 2 B + 1 GiB = 343,932,928 + 1,073,741,824 = 1,417,674,752;
        //   total 94,506,666,880. The most chats: (129,720,000,000 − 83,878,300,544 − 1,417,674,752)
        //   / (70,272 × 2,048 = 143,917,056) = 308.68 → 308.
        const ServingMemory mem = serving_memory(deepseek_v3, h200, {.tp = 8}, 64, 2048, fp8_weights());
        CHECK(mem.weights.value() == 83'878'300'544.0);
        CHECK(mem.kv_cache.value() == 9'210'691'584.0);
        CHECK(mem.activations.value() == 1'417'674'752.0);
        CHECK(mem.total().value() == 94'506'666'880.0);
        CHECK(mem.usable.value() == 129'720'000'000.0);
        CHECK(max_concurrency(deepseek_v3, h200, {.tp = 8}, 2048, fp8_weights()) == 308);
        // A decode step of those 64 at mean context 1,536 reads 70,272 × 1,536 × 64 = 6,908,018,688 B of cache,
        // / 4.8 TB/s = 1.43917056 ms.
        const DecodeStep step = decode_step(deepseek_v3, h200, catalog::nvlink4, {.tp = 8}, {64, tokens(1536)},
                                            fp8_weights());
        CHECK(ms(step.kv_read) == doctest::Approx(6'908'018'688.0 / 4.8e9).epsilon(1e-12));
    }

    TEST_CASE("DeepSeek-V3 on 8 H200, FP8: B = 1 reads its 37.6 B active weights / 8 — B = 256 nearly all 671 B") {
        // Routed experts: 58 MoE layers × 256 × 3·7,168·2,048 = 653,908,770,816 weights; the rest (attention,
        // the 3 dense FFNs, the shared experts, routers, norms, tables) 671,026,404,352 − that = 17,117,633,536,
        // read whole by every step. Per GPU at 1 B per weight, tp 8:
        //   B = 1: rest/8 + (8/256)·653,908,770,816/8 = 2,139,704,192 + 2,554,331,136 = 4,694,035,328 B
        //          = 37,552,282,624 / 8, the active weights' share; / 4.8 TB/s = 0.97792 ms;
        //   B = 256: expected experts per MoE layer 256·(1 − (31/32)^256) = 256·(1 − 2.95256e-4) = 255.9244, so
        //          2,139,704,192 + (255.9244/256)·81,738,596,352 = 83,854,166,708.55 → 83,854,166,709 B,
        //          24.1 MB short of all 83,878,300,544; / 4.8 TB/s = 17.4696 ms.
        const ServingSetup s = fp8_weights();
        CHECK(weights_read_per_gpu(deepseek_v3, {.tp = 8}, s.weights, 1).value() == 4'694'035'328.0);
        CHECK(weights_read_per_gpu(deepseek_v3, {.tp = 8}, s.weights, 1).value() ==
              37'552'282'624.0 / 8);
        CHECK(expected_distinct_experts(256, 8, 256) == doctest::Approx(255.92441438744697).epsilon(1e-12));
        CHECK(weights_read_per_gpu(deepseek_v3, {.tp = 8}, s.weights, 256).value() == 83'854'166'709.0);
        CHECK(serving_weights_per_gpu(deepseek_v3, {.tp = 8}, s.weights).value() == 83'878'300'544.0);
        const DecodeStep one = decode_step(deepseek_v3, h200, catalog::nvlink4, {.tp = 8}, {1, tokens(0)}, s);
        const DecodeStep many = decode_step(deepseek_v3, h200, catalog::nvlink4, {.tp = 8}, {256, tokens(0)}, s);
        CHECK(ms(one.weights_read) == doctest::Approx(4'694'035'328.0 / 4.8e9).epsilon(1e-12));
        CHECK(ms(many.weights_read) == doctest::Approx(83'854'166'709.0 / 4.8e9).epsilon(1e-12));
        CHECK(many.weights_read > 17.0 * one.weights_read);
    }

    TEST_CASE("DeepSeek-V3's compute: 2 FLOPs per active weight plus MLA's 2·128·(192 + 128) FLOPs per position") {
        // B = 1 at context 1,024: 2 × 37,552,282,624 + 61 layers × 2·128·(128 + 64 + 128)·1,024
        // = 75,104,565,248 + 61 × 83,886,080 = 75,104,565,248 + 5,117,050,880 = 80,221,616,128 FLOPs,
        // / 8 GPUs / 1,978.9 TFLOP/s (H200's dense FP8) = 5.0673 µs.
        const DecodeStep step = decode_step(deepseek_v3, h200, catalog::nvlink4, {.tp = 8}, {1, tokens(1024)},
                                            fp8_weights());
        CHECK(attention_flops(deepseek_v3, 1024).value() == 5'117'050'880.0);
        CHECK(in(step.compute, units::s) == doctest::Approx(80'221'616'128.0 / 8 / 1978.9e12).epsilon(1e-12));
        // The dense 70B keeps the PaLM count 4·L·heads·head_dim: 4·80·8,192 = 2,621,440 FLOPs per position.
        CHECK(attention_flops(m70b, 1).value() == 2'621'440.0);
        CHECK(kv_share(m70b, {.tp = 8}) == 8.0);
    }

    TEST_CASE("Qwen3-30B-A3B on one H200, one chat: it reads its 3.35 B active weights, 1.397 ms") {
        // No shared experts, all 48 layers MoE: 30,532,122,624 weights, 48 × 128 × 3·2,048·768 = 28,991,029,248
        // of them routed (tests/unit/hf_config.cpp). B = 1: 1,541,093,376 + 28,991,029,248 / 16
        // = 3,353,032,704 = the active count; × 2 B = 6,706,065,408 B, / 4.8 TB/s = 1.39710 ms.
        const TransformerShape& q = io::read_hf_config(data + "/qwen3_30b_a3b_config.json").shape;
        CHECK(weights_read_per_gpu(q, {}, WeightDType::bf16, 1).value() == 2.0 * 3'353'032'704.0);
        const DecodeStep one = decode_step(q, h200, catalog::nvlink4, {}, {1, tokens(0)}, lesson);
        CHECK(ms(one.weights_read) == doctest::Approx(6'706'065'408.0 / 4.8e9).epsilon(1e-12));
        // All 30.5 B weights would take 61,064,245,248 / 4.8e9 = 12.72 ms: the step is 9.1× lighter.
        CHECK(ms(one.weights_read) < ms(read_time(weight_bytes(q, 2.0), h200)) / 9.0);
    }

    TEST_CASE("expert all-to-alls only in MoE layers: DeepSeek-V3 pays 2 × 58, not 2 × 61") {
        // tp 1 × ep 8, one token: each of the 116 all-to-alls carries k·h·2 B = 8 × 14,336 B.
        ServingSetup s = fp8_weights();
        const DecodeStep step = decode_step(deepseek_v3, h200, catalog::nvlink4, {.ep = 8}, {1, tokens(0)}, s);
        const Seconds one = all_to_all(hidden_vector(deepseek_v3, 2.0) * tokens(8), 8, catalog::nvlink4,
                                       detail::base_latency(lesson_collective, catalog::nvlink4))
                                .total();
        CHECK(in(step.ep, units::s) == doctest::Approx(116.0 * in(one, units::s)).epsilon(1e-12));
    }

    TEST_CASE("the Llama 3.1 catalog entries know their 131,072 positions, so a longer chat is refused") {
        // Llama 3.1's config.json: max_position_embeddings = 131072 (8B, 70B and 405B alike).
        for (const TransformerShape* m : {&catalog::llama3_1_8b, &catalog::llama3_1_70b, &catalog::llama3_1_405b})
            CHECK(m->max_position_embeddings == 131072);
        CHECK(error_of([] {
                  (void)evaluate_serving(m70b, h100, catalog::nvlink4, {.tp = 8},
                                         {.input_tokens = 130000, .output_tokens = 2000}, lesson);
              }) == "input + output tokens = 132000: exceeds the model's max_position_embeddings = 131072");
        CHECK(evaluate_serving(m70b, h100, catalog::nvlink4, {.tp = 8}, {.input_tokens = 130000, .output_tokens = 1072}, lesson)
                  .max_concurrency >= 1);
    }

    // Sliding windows in serving: Gemma 3 27B's 52 local layers attend to and cache at most 1,024 positions,
    // its 10 global ones everything. One sequence at context 32,768: 4 · 32 heads · 128 = 16,384 FLOPs per
    // layer-position; 10 · 32,768 + 52 · 1,024 = 380,928 layer-positions: 6,241,124,352 FLOPs (62 · 32,768 ·
    // 16,384 = 33,285,996,544 without the window). Its cache at 2 bytes: 2 · 16 · 128 · 2 = 8,192 B per
    // layer-token, 380,928 of them = 3,120,562,176 B a sequence, two sequences on one GPU 6,241,124,352 B.
    TEST_CASE("a sliding window caps the attention FLOPs and the KV cache of local layers (Gemma 3 27B)") {
        const TransformerShape& g = catalog::gemma3_27b;
        CHECK(attention_flops(g, 32768, within_window(g, 32768)).value() == 6'241'124'352.0);
        CHECK(kv_bytes_per_gpu(g, {.tp = 1}, KvDType::bf16, tokens(32768), 2.0).value() == 6'241'124'352.0);
        // The decode step reads that cache and does that attention work on top of 2 FLOPs per active weight.
        const DecodeStep step = decode_step(g, h100, catalog::nvlink4, {.tp = 1}, {2, tokens(32768)}, lesson);
        const DecodeStep step_8k = decode_step(g, h100, catalog::nvlink4, {.tp = 1}, {2, tokens(8192)}, lesson);
        // From 8,192 to 32,768 tokens only the 10 global layers' cache grows: 2 · 10 · 24,576 · 8,192 B.
        CHECK(in(step.kv_read - step_8k.kv_read, units::s) ==
              doctest::Approx(2.0 * 10 * 24'576 * 8'192 / h100.memory_bandwidth.value()).epsilon(1e-9));
        // No window: the one-argument count, as before.
        CHECK(attention_flops(m70b, 100, 100).value() == attention_flops(m70b, 100).value());
        // Prefill of 2,048 tokens in one chunk: global Σ 1 … 2,048 = 2,098,176, local Σ min(t, 1,024)
        // = 524,800 + 1,024 · 1,024 = 1,573,376 positions.
        CHECK(windowed_positions(g, 1, 2048) == 1'573'376.0);
    }
    // Skewed routing (model.hpp's zipf_share): 8 experts at exponent 1 take 1/i over H_8 = 2.717857 each:
    // the hottest 1/H_8 = 0.367937. Two tokens each picking 2 touch Σ (1 − (1 − 2p_i)²) = 4 − 4·Σ p_i² =
    // 4 − 4 · 1.527422 / 2.717857² = 3.172885 experts (uniform: 8 · (1 − 0.75²) = 3.5); one token touches
    // its 2 whatever the skew. Two expert-parallel ranks dealt round-robin: rank 0 holds experts 1, 3, 5,
    // 7, the busiest at 2 · (1 + 1/3 + 1/5 + 1/7) / H_8 = 1.233465 times the mean.
    TEST_CASE("skewed experts: a Zipf popularity reads fewer experts and loads the hottest rank (by hand)") {
        CHECK(zipf_share(1, 8, 1.0) == doctest::Approx(0.3679369).epsilon(1e-6));
        CHECK(zipf_share(5, 8, 0.0) == doctest::Approx(0.125));
        CHECK(expected_distinct_experts(8, 2, 2.0, 1.0) == doctest::Approx(3.1728852).epsilon(1e-6));
        CHECK(expected_distinct_experts(8, 2, 1.0, 1.0) == doctest::Approx(2.0));
        CHECK(expected_distinct_experts(8, 2, 16.0, 0.0) == expected_distinct_experts(8, 2, 16.0));
        CHECK(busiest_rank_load(8, 2, 2, 1.0) == doctest::Approx(1.2334647).epsilon(1e-6));
        CHECK(busiest_rank_load(8, 2, 1, 1.0) == 1.0);
        CHECK(busiest_rank_load(8, 2, 2, 0.0) == 1.0);
        // At exponent 10 the hottest expert would take 0.999 of the picks, more than a token's one in
        // two: it is capped at every token (q_1 = 1) and the other pick spreads over experts 2…8 by
        // popularity, so one token still touches exactly 2, and rank 0 (experts 1, 3, 5, 7) takes
        // 1 + (3^−10 + 5^−10 + 7^−10) / Σ_{j=2..8} j^−10 = 1.01713 of the 2 picks: load 2 · 1.01713 / 2.
        CHECK(expected_distinct_experts(8, 2, 1.0, 10.0) == doctest::Approx(2.0));
        double rest = 0.0, odd = 0.0;
        for (int j = 2; j <= 8; ++j) rest += std::pow(j, -10.0);
        for (int j = 3; j <= 8; j += 2) odd += std::pow(j, -10.0);
        CHECK(busiest_rank_load(8, 2, 2, 10.0) == doctest::Approx(1.0 + odd / rest).epsilon(1e-9));
        CHECK_THROWS_WITH_AS((void)zipf_share(1, 8, -1.0), doctest::Contains("expert skew"), napkin::invalid_argument);
        // Mixtral 8x7B on ep = 2, 64 sequences a group: the busiest rank's expert GEMMs grow by 0.233465 of
        // the routed active weights (2 of 8 experts in each of 32 layers), everything else as uniform.
        const TransformerShape& mx = catalog::mixtral_8x7b;
        const ServingLayout ep2{.tp = 1, .ep = 2};
        const double routed_active = count(routed_expert_weights(mx)) * 2.0 / 8.0;
        CHECK(pass_gemm_flops(mx, ep2, 64.0, 1.0).value() ==
              doctest::Approx(2.0 * (count(active_parameter_count(mx)) + 0.2334647 * routed_active) * 64.0)
                  .epsilon(1e-6));
        CHECK(pass_gemm_flops(mx, ep2, 64.0, 0.0).value() == 2.0 * count(active_parameter_count(mx)) * 64.0);
        // The decode step: fewer experts read, more work and traffic on the busiest rank.
        ServingSetup skewed = default_serving_setup;
        skewed.expert_skew = 1.0;
        const DecodeStep uniform = decode_step(mx, h100, catalog::nvlink4, ep2, {64, tokens(1024)});
        const DecodeStep hot = decode_step(mx, h100, catalog::nvlink4, ep2, {64, tokens(1024)}, skewed);
        // At 64 sequences a group (128 tokens routed) nearly every expert is hit either way; at one a
        // group the busiest rank's experts 1, 3, 5, 7 are hit Σ (1 − (1 − q_i)²) = 1.8325 times
        // (q_i = 2/(H_8·i), H_8 = 2.717857), against the average rank's 3.1729 / 2 = 1.5864:
        // it reads its rest whole and 1.8325 of the 8 experts' weights, 2 B each.
        CHECK(busiest_rank_distinct_experts(8, 2, 2, 2.0, 1.0) == doctest::Approx(1.8325397).epsilon(1e-6));
        const double all = count(routed_expert_weights(mx)), shared = count(parameter_count(mx)) - all;
        CHECK(weights_read_per_gpu(mx, ep2, WeightDType::bf16, 1.0, 1.0).value() ==
              doctest::Approx(std::ceil(2.0 * (shared + 1.8325397 * all / 8.0))).epsilon(1e-7));
        CHECK(weights_read_per_gpu(mx, ep2, WeightDType::bf16, 1.0, 1.0) >
              weights_read_per_gpu(mx, ep2, WeightDType::bf16, 1.0, 0.0));
        CHECK(hot.compute > uniform.compute);
        CHECK(hot.ep > uniform.ep);
        skewed.expert_skew = 11.0;
        CHECK_THROWS_WITH_AS((void)validated(skewed), doctest::Contains("ServingSetup.expert_skew"),
                             napkin::invalid_argument);
    }
}

TEST_SUITE("serving") {
    TEST_CASE("across nodes: 70B at tp 8 × pp 2 on 8-GPU nodes hands 16,384 B to the next stage over IB, "
              "6.6 + 2.7 µs + 16,384 B / 50 GB/s") {
        const ServingFabric nodes{catalog::nvlink4, catalog::ib_ndr, 8};
        const ServingLayout l{.tp = 8, .pp = 2};
        // One token's hidden vector: 8,192 × 2 B = 16,384 B; NCCL's ring LL base 6.6 µs, then a step and the bytes.
        const DecodeStep across = decode_step(m70b, h100, nodes, l, {1, tokens(0)}, lesson);
        const DecodeStep one_link = decode_step(m70b, h100, catalog::nvlink4, l, {1, tokens(0)}, lesson);
        CHECK(in(across.pp, units::us) == doctest::Approx(6.6 + 2.7 + 16384 / 50e3).epsilon(1e-12));
        CHECK(in(one_link.pp, units::us) == doctest::Approx(6.6 + 0.6 + 16384 / 450e3).epsilon(1e-12));
        CHECK(across.tp == one_link.tp);  // TP stays inside its node
        CHECK(across.weights_read == one_link.weights_read);
        // tp 4 × pp 4: two stages share a node, so one of the three hand-offs leaves it.
        const DecodeStep four = decode_step(m70b, h100, nodes, {.tp = 4, .pp = 4}, {1, tokens(0)}, lesson);
        CHECK(in(four.pp, units::us) ==
              doctest::Approx(2 * (6.6 + 0.6 + 16384 / 450e3) + (6.6 + 2.7 + 16384 / 50e3)).epsilon(1e-12));
        // tp 16 spans two nodes: each of the 2 × 80 all-reduces is a 16-rank ring on IB,
        // 6.6 + 2·15 × 2.7 µs + 2·15/16 × 16,384 B / 50 GB/s.
        const DecodeStep wide = decode_step(m70b, h100, nodes, {.tp = 16}, {1, tokens(0)}, lesson);
        CHECK(in(wide.tp, units::us) == doctest::Approx(160 * (6.6 + 30 * 2.7 + 30.0 / 16 * 16384 / 50e3)).epsilon(1e-12));
        // A node that holds the whole layout is the single link, exactly.
        const ServingFabric big{catalog::nvlink4, catalog::ib_ndr, 16};
        CHECK(decode_step(m70b, h100, big, l, {1, tokens(0)}, lesson).total() == one_link.total());
        // Mixtral at tp 2 × ep 4 on 4-GPU nodes: an EP group's members are 2 apart, 2 to a node, so its
        // all-to-alls cross: 2 × 32 layers × (6.6 + 3 × 2.7 µs + ¾ × 8,192 B / 50 GB/s), the buffer k = 2
        // hidden vectors of 8,192 B cut over tp = 2.
        const ServingFabric quads{catalog::nvlink4, catalog::ib_ndr, 4};
        const DecodeStep moe = decode_step(mixtral, h100, quads, {.tp = 2, .ep = 4}, {1, tokens(0)}, lesson);
        CHECK(in(moe.ep, units::us) == doctest::Approx(64 * (6.6 + 3 * 2.7 + 0.75 * 8192 / 50e3)).epsilon(1e-12));
        // Disaggregated: two 8-GPU instances do not share an 8-GPU node, so the prompt's cache crosses IB.
        const DisaggregationQuery q{.instances = 2, .input_tokens = 1000, .output_tokens = 100};
        const auto split = best_disaggregation(m70b, h100, ServingFabric{catalog::nvlink4, catalog::ib_ndr, 8},
                                               {.tp = 8}, q, lesson);
        REQUIRE(split.has_value());
        const double cache = std::ceil(kv_bytes_per_gpu(m70b, {.tp = 8}, KvDType::bf16, tokens(1000), 1.0).value());
        CHECK(in(split->kv_transfer, units::us) == doctest::Approx(6.6 + 2.7 + cache / 50e3).epsilon(1e-12));
        CHECK_THROWS_WITH_AS((void)validated(ServingFabric{catalog::nvlink4, catalog::ib_ndr, 0}),
                             doctest::Contains("ServingFabric.gpus_per_node"), napkin::invalid_argument);
    }
}

TEST_SUITE("serving") {
    TEST_CASE("disaggregated pools on two GPUs: prompts priced on the A100, tokens on the H100, the cache over IB") {
        // 8B on one GPU an instance, 2,048 in, 256 out, on 8-GPU nodes of nvlink4 and ib-ndr.
        const ServingFabric nodes{catalog::nvlink4, catalog::ib_ndr, 8};
        const DisaggregationQuery q{.instances = 4, .input_tokens = 2048, .output_tokens = 256,
                                    .ttft_bound = milliseconds(500), .tpot_bound = milliseconds(20)};
        const auto mixed = best_disaggregation(m8b, a100, h100, nodes, {}, q, lesson);
        const auto same = best_disaggregation(m8b, h100, nodes, {}, q, lesson);
        REQUIRE(mixed);
        REQUIRE(same);
        // Each phase on its own GPU: the prefill is the A100's, the decode step the H100's.
        CHECK(mixed->prefill == prefill_time(m8b, a100, nodes, {}, 1, 2048, lesson).total());
        CHECK(mixed->tpot == same->tpot);
        CHECK(mixed->decode_concurrency == same->decode_concurrency);
        // The cache, 131,072 B × 2,048 = 268,435,456 B: two one-GPU H100 instances share a node
        // (6.6 + 0.6 µs + 268,435,456 B / 450 GB/s); pools of two kinds do not (6.6 + 2.7 µs + … / 50 GB/s).
        CHECK(in(same->kv_transfer, units::us) == doctest::Approx(7.2 + 268'435'456.0 / 450e3).epsilon(1e-9));
        CHECK(in(mixed->kv_transfer, units::us) == doctest::Approx(9.3 + 268'435'456.0 / 50e3).epsilon(1e-9));
        // A prefill GPU that cannot hold one prompt beside the weights gives no split: 70B in 16 bit
        // (141 GB) on one 80 GB A100.
        CHECK_FALSE(best_disaggregation(m70b, a100, catalog::h200_sxm, nodes, {}, q, lesson));
    }
}

TEST_SUITE("serving") {
    TEST_CASE("KV offload: 70B on 8 H100 with 512 GiB of host memory per GPU, the cache beyond the GPU's room over PCIe 5") {
        // Llama 3.1 70B's cache: 80 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 327,680 B per token,
        // 40,960 B per GPU at tp 8. The GPU's room for it: usable − weights − working memory.
        ServingSetup offload = lesson;
        offload.kv_offload = {gibibytes(512), catalog::pcie5.bandwidth};
        const ServingLayout l{.tp = 8};
        const ServingMemory empty = serving_memory(m70b, h100, l, 0, 1, lesson);
        const double room = (empty.usable - empty.weights - empty.activations).value();
        // 400 sequences at 8,704 tokens: 400 × 8,704 × 40,960 B = 142,606,336,000 B, more than the room;
        // the rest streams over PCIe 5.0 x16 (63.02 GB/s) every step, the room at the HBM's 3.35 TB/s.
        const double kv = 400.0 * 8704 * 40960;
        const DecodeStep step = decode_step(m70b, h100, catalog::nvlink4, l, {400, tokens(8704)}, offload);
        CHECK(in(step.kv_read, units::s) == doctest::Approx(room / 3.35e12).epsilon(1e-12));
        CHECK(in(step.kv_offload, units::s) == doctest::Approx((kv - room) / (32e9 * 16 * 128 / 130 / 8)).epsilon(1e-12));
        CHECK(step.busy() == step.weights_read + step.kv_read + step.kv_offload);
        // Without offload the same batch reads it all from HBM and does not fit; with it, it fits.
        const DecodeStep hbm = decode_step(m70b, h100, catalog::nvlink4, l, {400, tokens(8704)}, lesson);
        CHECK(in(hbm.kv_read, units::s) == doctest::Approx(kv / 3.35e12).epsilon(1e-12));
        CHECK(hbm.kv_offload == Seconds{});
        CHECK_FALSE(serving_memory(m70b, h100, l, 400, 9216, lesson).fits());
        const ServingMemory spilled = serving_memory(m70b, h100, l, 400, 9216, offload);
        CHECK(spilled.fits());
        CHECK(spilled.kv_cache.value() == doctest::Approx(room));
        // Sequences of 9,216 tokens (576 blocks of 16): 9,216 × 40,960 = 377,487,360 B each, so
        // ⌊(room + 512 GiB) / 377,487,360 B⌋ fit.
        CHECK(max_concurrency(m70b, h100, l, 9216, offload) ==
              static_cast<long long>((room + 512.0 * 1024 * 1024 * 1024) / 377'487'360.0));
        // The default host links (catalog::host_link): the H100's PCIe 5.0 x16 slot, the A100's 4.0,
        // V100's 3.0 (8 GT/s × 16 lanes × 128/130 / 8 = 15.75 GB/s), GH200's NVLink-C2C at 900/2 GB/s.
        CHECK(catalog::host_link(h100).bandwidth == catalog::pcie5.bandwidth);
        CHECK(catalog::host_link(a100).bandwidth == catalog::pcie4.bandwidth);
        CHECK(in(catalog::host_link(catalog::v100_32gb_sxm).bandwidth, units::GBps) == doctest::Approx(15.753846));
        CHECK(in(catalog::host_link(catalog::gh200).bandwidth, units::GBps) == doctest::Approx(450.0));
        offload.kv_offload.bandwidth = BytesPerSecond{};
        CHECK_THROWS_WITH_AS((void)validated(offload), doctest::Contains("ServingSetup.kv_offload.bandwidth"),
                             napkin::invalid_argument);
    }
}

TEST_SUITE("serving") {
    TEST_CASE("pipelined stages: 70B at tp 2 × pp 4, 32 sequences at 1,000 tokens run as 4 micro-batches of 8, "
              "the weights read once per micro-batch, the cache and the FLOPs of 8") {
        const ServingLayout l{.tp = 2, .pp = 4};
        ServingSetup in_turn = lesson;
        in_turn.pipeline_micro_batches = 1;
        // One micro-batch per stage by default, at most one per stage and one per sequence.
        CHECK(pipeline_micro_batches(l, lesson, 32) == 4);
        CHECK(pipeline_micro_batches(l, in_turn, 32) == 1);
        ServingSetup eight = lesson;
        eight.pipeline_micro_batches = 8;
        CHECK(pipeline_micro_batches(l, eight, 32) == 4);
        eight.pipeline_micro_batches = 2;
        CHECK(pipeline_micro_batches(l, eight, 32) == 2);
        CHECK(pipeline_micro_batches(l, lesson, 3) == 3);
        CHECK(pipeline_micro_batches({.tp = 8}, lesson, 32) == 1);

        const DecodeStep piped = decode_step(m70b, h100, catalog::nvlink4, l, {32, tokens(1000)}, lesson);
        const DecodeStep turn = decode_step(m70b, h100, catalog::nvlink4, l, {32, tokens(1000)}, in_turn);
        CHECK(piped.micro_batches == 4);
        CHECK(turn.micro_batches == 1);
        // Each GPU holds 1/8 of the weights and reads them for every micro-batch that passes:
        // the four stages in turn read W/8 each, pipelined or not.
        CHECK(piped.weights_read == turn.weights_read);
        // The cache: 80 layers × 8 KV heads × 128 × 2 × 2 B = 327,680 B a token over pp 4 × tp 2
        // = 40,960 B per GPU; a micro-batch of 8 × 1,000 tokens at 3.35 TB/s, through the 4 stages.
        CHECK(in(piped.kv_read, units::ms) == doctest::Approx(4.0 * 8 * 1000 * 40960 / 3.35e9).epsilon(1e-12));
        CHECK(in(turn.kv_read, units::ms) == doctest::Approx(4.0 * 32 * 1000 * 40960 / 3.35e9).epsilon(1e-12));
        // 2 FLOPs a weight and the attention over the cache, both linear in the sequences: a quarter.
        CHECK(in(piped.compute, units::s) == doctest::Approx(in(turn.compute, units::s) / 4).epsilon(1e-12));
        // The step of 32 pipelined is the step of one micro-batch of 8 through the stages in turn.
        CHECK(piped.total() ==
              decode_step(m70b, h100, catalog::nvlink4, l, {8, tokens(1000)}, in_turn).total());

        // Continuous batching: each micro-batch admits its own prompts, so the stall per step is
        // 8/O of a prefill: TPOT = step(8 at the mean context 1,000 + 200/2) + 8/200 · prefill(1).
        const ServingWorkload w{.input_tokens = 1000, .output_tokens = 200, .concurrency = 32};
        const ServingEstimate e = evaluate_serving(m70b, h100, catalog::nvlink4, l, w, lesson);
        const PrefillTime one = prefill_time(m70b, h100, catalog::nvlink4, l, 1, 1000, lesson);
        const DecodeStep mean = decode_step(m70b, h100, catalog::nvlink4, l, {8, tokens(1100)}, in_turn);
        CHECK(one.micro_batches == 1);
        CHECK(ms(e.tpot) == doctest::Approx(ms(mean.total()) + 8.0 / 200 * ms(one.total())).epsilon(1e-12));
        CHECK(e.tpot < evaluate_serving(m70b, h100, catalog::nvlink4, l, w, in_turn).tpot);

        // Static batching: 32 prompts as 4 micro-batches of 8, one stage apart: the last is done
        // (pp + M − 1)/pp = 7/4 of one micro-batch's pass after the first starts.
        const PrefillTime batch = prefill_time(m70b, h100, catalog::nvlink4, l, 32, 1000, lesson);
        const PrefillTime eight_in_turn = prefill_time(m70b, h100, catalog::nvlink4, l, 8, 1000, in_turn);
        CHECK(batch.micro_batches == 4);
        CHECK(ms(batch.total()) == doctest::Approx(7.0 / 4 * ms(eight_in_turn.total())).epsilon(1e-12));

        ServingSetup bad = lesson;
        bad.pipeline_micro_batches = -1;
        CHECK(error_of([&] { return validated(bad); }) ==
              "ServingSetup.pipeline_micro_batches = -1: must not be negative");
    }
}
