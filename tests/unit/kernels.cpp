// The kernel layer (napkin/kernels.hpp): each measured ceiling re-derived from
// the rows of tests/data/measured-kernels.json it cites (a copy of the
// reference file's rows), the roofline profile against napkin/gemm.hpp's
// closed forms, and kernel times worked by hand.
#include <napkin/catalog/hardware.hpp>
#include <napkin/gemm.hpp>
#include <napkin/kernels.hpp>
#include <napkin/serving.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

using namespace napkin;

namespace {

const nlohmann::json& kernel_rows() {
    static const nlohmann::json rows = [] {
        std::ifstream file(NAPKIN_TEST_DATA_DIR "/measured-kernels.json");
        REQUIRE(file.good());
        return nlohmann::json::parse(file).at("rows");
    }();
    return rows;
}

const nlohmann::json& row(const std::string& id) {
    for (const nlohmann::json& r : kernel_rows())
        if (r.at("id") == id) return r;
    FAIL("no row " << id);
    static const nlohmann::json none;
    return none;
}

// The rows whose id starts with `prefix`: (size, rate) with `size_key` of the
// shape and the rate `rate` of the measurement divided by `scale`.
struct Points {
    std::vector<double> sizes, rates;
};
Points points(const std::string& prefix, const std::string& size_key, const std::string& rate_key, double scale) {
    Points p;
    for (const nlohmann::json& r : kernel_rows()) {
        const std::string id = r.at("id");
        if (!id.starts_with(prefix)) continue;
        p.sizes.push_back(r.at("shape").at(size_key).get<double>());
        p.rates.push_back(r.at("measured").at(rate_key).get<double>() / scale);
    }
    return p;
}

double mamf_share(const std::string& id) {
    const nlohmann::json& r = row(id);
    return r.at("measured").at("tflops").get<double>() / r.at("peak_datasheet").at("tflops").get<double>();
}

double us(Seconds t) { return in(t, units::s) * 1e6; }

}  // namespace

TEST_SUITE("kernels") {
    TEST_CASE("each GEMM ceiling is its MAMF row's TFLOP/s over the same table's theory peak") {
        CHECK(kernel_ceilings::ampere_16bit == doctest::Approx(mamf_share("mle-mamf-bf16-a100-sxm")).epsilon(1e-12));
        CHECK(kernel_ceilings::hopper_16bit == doctest::Approx(mamf_share("mle-mamf-bf16-h100-sxm")).epsilon(1e-12));
        CHECK(kernel_ceilings::hopper_fp8 == doctest::Approx(mamf_share("mle-mamf-fp8-h100-sxm")).epsilon(1e-12));
        CHECK(kernel_ceilings::blackwell_16bit == doctest::Approx(mamf_share("mle-mamf-bf16-b200-sxm")).epsilon(1e-12));
        CHECK(kernel_ceilings::blackwell_fp8 == doctest::Approx(mamf_share("mle-mamf-fp8-b200-sxm")).epsilon(1e-12));
        CHECK(kernel_ceilings::cdna2_16bit ==
              doctest::Approx(mamf_share("mle-mamf-v1-bf16-mi250x-1gcd")).epsilon(1e-12));
        // FP4 GEMMs take Blackwell's FP8 share (serving.hpp's gemm_precision): the best of Azure's cuBLASLt FP4
        // sweep on GB200 (7,627.6 TFLOP/s at 16,384³) over the data sheet's 10,000 dense is 76.28 %, B200's
        // MAMF FP8 share 3,432.5 / 4,500 = 76.28 % — within 0.1 %.
        double best_fp4 = 0.0;
        for (const nlohmann::json& r : kernel_rows())
            if (r.at("id").get<std::string>().starts_with("azure-gb200-185gb-fp4-"))
                best_fp4 = std::max(best_fp4, r.at("measured").at("tflops").get<double>());
        CHECK(best_fp4 == 7627.6);
        CHECK(best_fp4 / in(catalog::gb200.fp4_flops, units::TFLOPps) ==
              doctest::Approx(kernel_ceilings::blackwell_fp8).epsilon(1e-3));
        CHECK(gemm_precision(WeightDType::nvfp4) == DType::fp8);
        CHECK(kernel_ceilings::cdna3_16bit == doctest::Approx(mamf_share("mle-mamf-bf16-mi300x")).epsilon(1e-12));
        // MI355X and L40S over the catalog's data-sheet peak (the MI355X row's "Theory" is the MI350X's
        // 2,300; the L40S row gives none): the catalog card then runs at the measured TFLOP/s.
        const auto measured_tflops = [](const std::string& id) {
            return row(id).at("measured").at("tflops").get<double>();
        };
        CHECK(kernel_ceilings::cdna4_16bit * in(catalog::mi355x.peak_flops, units::TFLOPps) ==
              doctest::Approx(measured_tflops("mle-mamf-bf16-mi355x")).epsilon(1e-12));
        CHECK(kernel_ceilings::ada_16bit * in(catalog::l40s.peak_flops, units::TFLOPps) ==
              doctest::Approx(measured_tflops("zzc-l40s-bf16")).epsilon(1e-12));
        CHECK(gemm_ceiling(Architecture::ada, DType::fp8, KernelProfile::measured) == kernel_ceilings::ada_16bit);
        // MI300X FP8: AMD's own max-achievable-FLOPs table over the catalog's data-sheet peak.
        CHECK(kernel_ceilings::cdna3_fp8 * in(catalog::mi300x.fp8_flops, units::TFLOPps) ==
              doctest::Approx(measured_tflops("amd-maf-mi300x-fp8")).epsilon(1e-12));
        CHECK(gemm_ceiling(Architecture::cdna3, DType::fp8, KernelProfile::measured) == kernel_ceilings::cdna3_fp8);
        CHECK(gemm_ceiling(Architecture::volta, DType::bf16, KernelProfile::measured) == 1.0);  // no row
        // The table prints the shares too: 86.9 % (A100), 80.3 % (H100 BF16), 70.9 % (H100 FP8).
        CHECK(100.0 * kernel_ceilings::ampere_16bit == doctest::Approx(86.9).epsilon(0.001));
        CHECK(100.0 * kernel_ceilings::hopper_16bit == doctest::Approx(80.3).epsilon(0.001));
        CHECK(100.0 * kernel_ceilings::hopper_fp8 == doctest::Approx(70.9).epsilon(0.001));
        // Per generation and precision; fp16 is the 16-bit peak's share too.
        CHECK(gemm_ceiling(Architecture::hopper, DType::fp8, KernelProfile::measured) == kernel_ceilings::hopper_fp8);
        CHECK(gemm_ceiling(Architecture::hopper, DType::fp16, KernelProfile::measured) ==
              kernel_ceilings::hopper_16bit);
        CHECK(gemm_ceiling(Architecture::hopper, DType::bf16, KernelProfile::roofline) == 1.0);
        // The workstation Blackwell has no MAMF row: B200's share, the same tensor-core generation.
        CHECK(gemm_ceiling(catalog::rtx_pro_6000.architecture, DType::fp8, KernelProfile::measured) ==
              kernel_ceilings::blackwell_fp8);
    }

    TEST_CASE("each achieved bandwidth is its STREAM triad row over the catalog's data-sheet bandwidth") {
        const auto share = [](const std::string& id, const Gpu& gpu) {
            return row(id).at("measured").at("gbps").get<double>() * 1e9 / in(gpu.memory_bandwidth, units::Bps);
        };
        CHECK(kernel_bandwidth::ampere ==
              doctest::Approx(share("azure-hbm-a100-sxm4-80gb-triad", catalog::a100_80gb_sxm)).epsilon(1e-12));
        CHECK(kernel_bandwidth::hopper ==
              doctest::Approx(share("azure-hbm-h100-80gb-hbm3-(sxm)-triad", catalog::h100_sxm)).epsilon(1e-12));
        CHECK(kernel_bandwidth::cdna3 ==
              doctest::Approx(share("azure-hbm-mi300x-triad", catalog::mi300x)).epsilon(1e-12));
        // gpu-benches' cards, over their data sheets: L40 864 GB/s, V100 SXM 900, MI210 1,638.4.
        const auto gpu_benches = [](const std::string& id, double data_sheet_gbps) {
            return row(id).at("measured").at("gbps").get<double>() / data_sheet_gbps;
        };
        CHECK(kernel_bandwidth::ada ==
              doctest::Approx(gpu_benches("gpubenches-stream-l40-triad", 864.0)).epsilon(1e-12));
        CHECK(kernel_bandwidth::volta ==
              doctest::Approx(gpu_benches("gpubenches-stream-v100-triad", 900.0)).epsilon(1e-12));
        CHECK(kernel_bandwidth::cdna2 ==
              doctest::Approx(gpu_benches("gpubenches-stream-mi210-triad", 1638.4)).epsilon(1e-12));
        CHECK(in(catalog::v100_32gb_sxm.memory_bandwidth, units::GBps) == 900.0);
        CHECK(hbm_share(Architecture::ada, KernelProfile::measured) == kernel_bandwidth::ada);
        CHECK(hbm_share(Architecture::blackwell, KernelProfile::measured) == 1.0);  // no row
    }

    TEST_CASE("each GEMM streaming share is its vLLM rows' bandwidth: operands and result over 2·M·N·K / rate") {
        // At M = 1, 16, 64: BF16 operands and result 2 bytes each; FP8 operands 1 byte, the BF16
        // result 2; the mean over the three rows, of the card's data-sheet bandwidth.
        const auto stream = [](const std::string& prefix, double n, double k, double operand_bytes, const Gpu& card) {
            double sum = 0.0;
            for (const double m : {1.0, 16.0, 64.0}) {
                const nlohmann::json& r = row(prefix + std::to_string(static_cast<int>(m)));
                const double seconds = 2.0 * m * n * k / (r.at("measured").at("tflops").get<double>() * 1e12);
                sum += ((m * k + k * n) * operand_bytes + m * n * 2.0) / seconds;
            }
            return sum / 3.0 / in(card.memory_bandwidth, units::Bps);
        };
        // H100 (vLLM PR 49363): N = 12,288, K = 5,376, of the SXM's 3,350 GB/s.
        CHECK(kernel_gemm_stream::hopper_16bit == doctest::Approx(stream("vllm49363-h100-torch-bf16-N12288K5376-M",
                                                                         12288.0, 5376.0, 2.0, catalog::h100_sxm))
                                                      .epsilon(1e-4));
        CHECK(kernel_gemm_stream::hopper_fp8 ==
              doctest::Approx(stream("vllm49363-h100-fp8-tensor-w-tensor-a-noquant-N12288K5376-M", 12288.0, 5376.0, 1.0,
                                     catalog::h100_sxm))
                  .epsilon(1e-4));
        // SM100 (vLLM PR 20071): N = 28,672, K = 4,096, of B200's 8,000 GB/s: 5,428 and 5,292 GB/s.
        CHECK(kernel_gemm_stream::blackwell_16bit ==
              doctest::Approx(stream("vllm20071-sm100-torch-bf16-N28672K4096-M", 28672.0, 4096.0, 2.0, catalog::b200))
                  .epsilon(1e-4));
        CHECK(kernel_gemm_stream::blackwell_fp8 ==
              doctest::Approx(stream("vllm20071-sm100-fp8-tensor-w-tensor-a-noquant-N28672K4096-M", 28672.0, 4096.0,
                                     1.0, catalog::b200))
                  .epsilon(1e-4));
        // Below the STREAM triad's 2,970 GB/s, FP8's kernels the more: 2,898 and 2,586 GB/s.
        CHECK(kernel_gemm_stream::hopper_fp8 < kernel_gemm_stream::hopper_16bit);
        CHECK(kernel_gemm_stream::hopper_16bit < kernel_bandwidth::hopper);
        CHECK(kernel_gemm_stream::blackwell_fp8 < kernel_gemm_stream::blackwell_16bit);
        CHECK(gemm_stream_share(Architecture::hopper, DType::fp8, KernelProfile::measured) ==
              kernel_gemm_stream::hopper_fp8);
        CHECK(gemm_stream_share(Architecture::blackwell, DType::bf16, KernelProfile::measured) ==
              kernel_gemm_stream::blackwell_16bit);
        CHECK(gemm_stream_share(Architecture::ampere, DType::bf16, KernelProfile::measured) ==
              kernel_bandwidth::ampere);
        // The workstation Blackwell (GDDR7) has no row of its own: the data sheet's bandwidth.
        CHECK(gemm_stream_share(catalog::rtx_pro_6000.architecture, DType::bf16, KernelProfile::measured) == 1.0);
        CHECK(gemm_stream_share(Architecture::hopper, DType::fp8, KernelProfile::roofline) == 1.0);
    }

    TEST_CASE("each launch cost is its gpu-benches small-kernel fit's per-kernel overhead") {
        CHECK(kernel_launch::ampere_us ==
              row("gpubenches-smallkernel-fit-a100-80gb").at("measured").at("us").get<double>());
        CHECK(kernel_launch::hopper_us == row("gpubenches-smallkernel-fit-h200").at("measured").at("us").get<double>());
        CHECK(kernel_launch::cdna2_us == row("gpubenches-smallkernel-fit-mi210").at("measured").at("us").get<double>());
        CHECK(kernel_launch::ada_us == row("gpubenches-smallkernel-fit-l40").at("measured").at("us").get<double>());
        CHECK(us(launch_cost(Architecture::hopper, KernelProfile::roofline)) == 0.0);
    }

    TEST_CASE("flash attention's and decode attention's (r∞, n½) are the Hockney fits to their rows") {
        const auto check_fit = [](const Points& p, const Hockney& constant, std::size_t rows) {
            REQUIRE(p.sizes.size() == rows);
            const Hockney fit = hockney_fit(p.sizes, p.rates);
            CHECK(constant.r_infinity == doctest::Approx(fit.r_infinity).epsilon(1e-4));
            CHECK(constant.n_half == doctest::Approx(fit.n_half).epsilon(1e-4));
            // Every row within 2 % of the fitted form.
            for (std::size_t i = 0; i < p.sizes.size(); ++i) {
                CAPTURE(p.sizes[i]);
                CHECK(std::abs(hockney_rate(constant, p.sizes[i]) / p.rates[i] - 1.0) < 0.02);
            }
        };
        check_fit(points("fa-fig-a100-flash2_a100_fwd_bwd_benchmark-flashattention-2-d-", "seqlen", "tflops", 312.0),
                  kernel_attention::ampere_flash, 6);
        check_fit(points("fa-fig-h100-flash2_h100_fwd_bwd_benchmark-flashattention-2-d-", "seqlen", "tflops", 989.0),
                  kernel_attention::hopper_flash, 6);
        check_fit(points("fa-pr2605-b200-fa4-fwd-hd128-causal-", "seqlen", "tflops", 2250.0),
                  kernel_attention::blackwell_flash, 3);
        // Below FlashAttention-4's best published rate on B200 (1,613 TFLOP/s, 71 %) at any sequence.
        CHECK(kernel_attention::blackwell_flash.r_infinity <
              row("fa4-abstract-b200-bf16-max").at("measured").at("tflops").get<double>() / 2250.0);
        check_fit(points("flashinfer-fig5-a100-flashinfer-split-", "kv_len", "bw_utilization_pct", 100.0),
                  kernel_attention::ampere_decode, 4);
        check_fit(points("flashinfer-fig5-h100-flashinfer-split-", "kv_len", "bw_utilization_pct", 100.0),
                  kernel_attention::hopper_decode, 4);
    }

    TEST_CASE("hockney_fit recovers a form it is given, and says which input is wrong") {
        // r(n) = 0.8·n/(n + 1000) at n = 500, 1000, 4000: 0.2667, 0.4, 0.64.
        const std::vector<double> n{500, 1000, 4000};
        const std::vector<double> r{0.8 * 500 / 1500, 0.4, 0.8 * 4000 / 5000};
        const Hockney h = hockney_fit(n, r);
        CHECK(h.r_infinity == doctest::Approx(0.8).epsilon(1e-12));
        CHECK(h.n_half == doctest::Approx(1000).epsilon(1e-9));
        const std::vector<double> one{1000};
        CHECK_THROWS_WITH_AS((void)hockney_fit(one, one), doctest::Contains("Hockney points (count)"),
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)hockney_rate(h, 0.0), doctest::Contains("Hockney size n"), napkin::invalid_argument);
    }

    TEST_CASE("roofline profile: napkin/gemm.hpp's gemm_time at share 1, exactly") {
        // The guide's wave example (tests/unit/gemm.cpp): 216 tiles of 256 × 128 on 108 SMs, 2 full
        // waves, k = 8,192: 2·256·27,648·8,192 FLOPs at 312 TFLOP/s = 371.72 µs.
        const GemmShape full{.m = 256, .n = 128 * 216, .k = 8192};
        const GemmSettings lesson{.peak = teraflops_per_second(312), .share = 1.0, .element_bytes = 2.0};
        CHECK(in(kernel_gemm_time(full, DType::bf16, catalog::a100_80gb_sxm, KernelProfile::roofline), units::s) ==
              in(gemm_time(full, catalog::a100_80gb_sxm, lesson), units::s));
        CHECK(us(kernel_gemm_time(full, DType::bf16, catalog::a100_80gb_sxm, KernelProfile::roofline)) ==
              doctest::Approx(2.0 * 256 * 27648 * 8192 / 312e12 * 1e6).epsilon(1e-12));
        // A memory-bound one (m = 1): the roofline's bytes over the data-sheet bandwidth.
        const GemmShape skinny{.m = 1, .n = 4096, .k = 4096};
        CHECK(in(kernel_gemm_time(skinny, DType::bf16, catalog::h100_sxm, KernelProfile::roofline), units::s) ==
              in(gemm_time(skinny, catalog::h100_sxm, {.peak = catalog::h100_sxm.peak_flops}), units::s));
    }

    TEST_CASE("a large GEMM under the measured profile: tiles, waves and the MAMF ceiling") {
        // 8,192³ BF16 on H100 SXM: 32 × 64 = 2,048 tiles of 256 × 128 over 132 SMs = 16 waves
        // (15.5 rounded up), quantization 2,048 / (16·132) = 0.9697; at 989 TFLOP/s × 0.8033 × 0.9697
        // the 1.0995e12 FLOPs take 1,427.2 µs, plus the 2.433 µs launch; the memory time (3·8,192²·2
        // bytes at the 2,898 GB/s a BF16 GEMM streams = 138.9 µs) is below it.
        const GemmShape g{.m = 8192, .n = 8192, .k = 8192};
        const double bf16_stream = (2871.1 + 2921.3 + 2901.8) / 3.0 * 1e9;
        const double quantization = 2048.0 / (16.0 * 132.0);
        CHECK(quantization_efficiency(g, 132) == doctest::Approx(quantization).epsilon(1e-12));
        const double math_us = 2.0 * 8192.0 * 8192.0 * 8192.0 / (989e12 * (794.5 / 989.0) * quantization) * 1e6;
        CHECK(us(kernel_gemm_time(g, DType::bf16, catalog::h100_sxm, KernelProfile::measured)) ==
              doctest::Approx(math_us + 2.433).epsilon(1e-9));
        CHECK(us(kernel_gemm_memory_time(g, DType::bf16, catalog::h100_sxm, KernelProfile::measured)) ==
              doctest::Approx(3.0 * 8192 * 8192 * 2 / bf16_stream * 1e6).epsilon(1e-9));
        // Never above the best shape the MAMF search found (794.5 TFLOP/s).
        CHECK(in(kernel_gemm_rate(g, DType::bf16, catalog::h100_sxm, KernelProfile::measured), units::FLOPps) <
              794.5e12);
        // FP8: the FP8 peak and its own ceiling, 1 byte per element.
        const double fp8_us = 2.0 * 8192.0 * 8192.0 * 8192.0 / (1978.9e12 * (1402.6 / 1979.0) * quantization) * 1e6;
        CHECK(us(kernel_gemm_time(g, DType::fp8, catalog::h100_sxm, KernelProfile::measured)) ==
              doctest::Approx(fp8_us + 2.433).epsilon(1e-9));
    }

    TEST_CASE("a skinny (decode) GEMM is its weight read at the bandwidth a decode GEMM streams") {
        // One token through a 4,096 × 4,096 BF16 weight on H100 SXM: (4,096 + 4,096² + 4,096)·2 =
        // 33,570,816 bytes at vLLM's measured 2,898.07 GB/s = 11.584 µs, plus the 2.433 µs launch =
        // 14.017 µs; its 33.5 MFLOP on one wave of 32 tiles of 64 × 128 (the smallest tile holding one
        // row) at the tensor ceiling take 11.15 µs, just under the read.
        const double bf16_stream = (2871.1 + 2921.3 + 2901.8) / 3.0 * 1e9;
        const GemmShape g{.m = 1, .n = 4096, .k = 4096};
        CHECK(us(kernel_gemm_time(g, DType::bf16, catalog::h100_sxm, KernelProfile::measured)) ==
              doctest::Approx(33570816.0 / bf16_stream * 1e6 + 2.433).epsilon(1e-9));
        // In FP8 half the bytes (gemm_bytes: 1 byte an element), at the 2,585.53 GB/s FP8 kernels
        // stream: 16,785,408 bytes in 6.4920 µs.
        CHECK(us(kernel_gemm_memory_time(g, DType::fp8, catalog::h100_sxm, KernelProfile::measured)) ==
              doctest::Approx((4096.0 + 4096.0 * 4096 + 4096.0) / ((2582.6 + 2614.2 + 2559.8) / 3.0 * 1e9) * 1e6)
                  .epsilon(1e-9));
        // Eight tokens read the same weights: barely slower.
        const GemmShape eight{.m = 8, .n = 4096, .k = 4096};
        CHECK(us(kernel_gemm_time(eight, DType::bf16, catalog::h100_sxm, KernelProfile::measured)) ==
              doctest::Approx((8.0 * 4096 + 4096.0 * 4096 + 8.0 * 4096) * 2 / bf16_stream * 1e6 + 2.433).epsilon(1e-9));
    }

    TEST_CASE("an element-wise pass: its bytes at the achieved bandwidth plus a launch") {
        // 1 GiB read and written on A100 80 GB: 2^30 / 1,700 GB/s = 631.6 µs + 2.555 µs.
        CHECK(us(memory_pass_time(bytes(1073741824.0), catalog::a100_80gb_sxm, KernelProfile::measured)) ==
              doctest::Approx(1073741824.0 / 1700e9 * 1e6 + 2.555).epsilon(1e-9));
        // Roofline: the data sheet's 2,039 GB/s, no launch.
        CHECK(us(memory_pass_time(bytes(1073741824.0), catalog::a100_80gb_sxm, KernelProfile::roofline)) ==
              doctest::Approx(1073741824.0 / 2039e9 * 1e6).epsilon(1e-12));
        CHECK_THROWS_WITH_AS((void)memory_pass_time(bytes(-1.0), catalog::a100_80gb_sxm, KernelProfile::measured),
                             doctest::Contains("memory pass (bytes)"), napkin::invalid_argument);
    }

    TEST_CASE("flash attention: its FLOPs at the fitted share of the 16-bit peak") {
        // Causal, 16 heads of 128, batch 8, sequence 2,048 on A100 80 GB (the benchmark's panel d):
        // forward 4·(8·16)·2,048·1,024·128 = 1.374e11 FLOPs; the share 0.62078·2,048/(2,048 + 486.51)
        // = 0.50161 of 312 TFLOP/s = 156.5 TFLOP/s (the row: 155): 877.9 µs + the 2.555 µs launch;
        // backward 2.5 × the FLOPs: 2,194.8 µs + 2.555 µs.
        const FlashAttentionShape s{
            .heads = 8 * 16, .queries = 2048, .attended = 1024, .head_dim = 128, .sequence = 2048};
        const double share = 0.62078 * 2048 / (2048 + 486.51);
        const double forward_us = 4.0 * 128 * 2048 * 1024 * 128 / (312e12 * share) * 1e6;
        const AttentionPasses t = flash_attention_times(s, catalog::a100_80gb_sxm, KernelProfile::measured);
        CHECK(us(t.forward) == doctest::Approx(forward_us + 2.555).epsilon(1e-9));
        CHECK(us(t.backward) == doctest::Approx(2.5 * forward_us + 2.555).epsilon(1e-9));
        // The benchmark's own figure, fwd + bwd TFLOP/s = 3.5 × forward FLOPs over both times: 155.
        const double tflops = 3.5 * 4.0 * 128 * 2048 * 1024 * 128 / (in(t.forward + t.backward, units::s) * 1e12);
        CHECK(tflops == doctest::Approx(155.0).epsilon(0.02));
        // Roofline: the 16-bit peak.
        const AttentionPasses r = flash_attention_times(s, catalog::a100_80gb_sxm, KernelProfile::roofline);
        CHECK(us(r.forward) == doctest::Approx(4.0 * 128 * 2048 * 1024 * 128 / 312e12 * 1e6).epsilon(1e-12));
    }

    TEST_CASE("paged decode attention: the KV cache read at FlashInfer's share of the bandwidth") {
        // Llama-2 7B, one sequence of 16,384 tokens: 32 layers × 2 (K, V) × 32 heads × 128 × 2 bytes
        // × 16,384 = 8 GiB; on H100 SXM the share 0.94842·16,384/(16,384 + 4,482.8) = 0.74468 of
        // 3,350 GB/s: 3,443.5 µs + 2.433 µs (the row: 74.1 %).
        const Bytes kv = bytes(32.0 * 2 * 32 * 128 * 2 * 16384);
        const double share = 0.94842 * 16384 / (16384 + 4482.8);
        CHECK(us(decode_attention_time(kv, 16384, catalog::h100_sxm, KernelProfile::measured)) ==
              doctest::Approx(in(kv, units::B) / (3350e9 * share) * 1e6 + 2.433).epsilon(1e-9));
        CHECK(share == doctest::Approx(0.741).epsilon(0.01));
        CHECK_THROWS_WITH_AS((void)decode_attention_time(kv, 0.0, catalog::h100_sxm, KernelProfile::measured),
                             doctest::Contains("KV length"), napkin::invalid_argument);
    }

    TEST_CASE("bad precision: FP8 on a GPU without FP8 tensor cores, FP32 on the tensor path") {
        const GemmShape g{.m = 1024, .n = 1024, .k = 1024};
        CHECK_THROWS_WITH_AS((void)kernel_gemm_time(g, DType::fp8, catalog::a100_80gb_sxm, KernelProfile::measured),
                             doctest::Contains("GEMM precision"), napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)kernel_gemm_time(g, DType::fp32, catalog::h100_sxm, KernelProfile::measured),
                             doctest::Contains("GEMM precision"), napkin::invalid_argument);
        CHECK(parse_kernel_profile("roofline") == KernelProfile::roofline);
        CHECK(parse_kernel_profile("measured") == KernelProfile::measured);
        CHECK_FALSE(parse_kernel_profile("fast").has_value());
    }
}
