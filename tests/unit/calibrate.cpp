// napkin/calibrate.hpp and napkin/io/nccl_tests.hpp: recovering α and B from
// synthetic measurements made from known values.
#include <napkin/calibrate.hpp>
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/io/nccl_tests.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace napkin;

namespace {
// The time the ring model gives, the quantity the fit inverts.
Seconds model_time(Collective op, long long n, Bytes m, Seconds alpha, BytesPerSecond b, Seconds base = {}) {
    return base + latency_steps(op, n) * alpha + bus_bandwidth_factor(op, n) * (m / b);
}

// All-reduce samples on n ranks from 8 B to 1 GiB (×2 each), each time multiplied by
// (1 + noise), noise uniform in ±`noise`, from a fixed seed.
std::vector<CollectiveSample> synthetic(long long n, Seconds alpha, BytesPerSecond b, double noise,
                                        Seconds base = {}, unsigned seed = 7) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<double> jitter(-noise, noise);
    std::vector<CollectiveSample> out;
    for (double size = 8; size <= 1024.0 * 1024 * 1024; size *= 2) {
        const Seconds t = model_time(Collective::all_reduce, n, bytes(size), alpha, b, base);
        out.push_back({Collective::all_reduce, n, bytes(size), t * (1.0 + (noise > 0 ? jitter(generator) : 0.0))});
    }
    return out;
}

// The same samples as all_reduce_perf prints them: header, rank lines, the table
// with times in µs and bandwidths in GB/s at two decimals.
std::string nccl_tests_text(const std::vector<CollectiveSample>& samples, bool rank_lines, bool root_column) {
    std::ostringstream out;
    out << "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20\n#\n"
           "# Using devices\n";
    if (rank_lines)
        for (long long r = 0; r < samples.front().ranks; ++r)
            out << "#  Rank " << r << " Group  0 Pid  1000 on node" << r / 8 << " device  " << r % 8
                << " [0x07] NVIDIA H100 80GB HBM3\n";
    out << "#\n#                                                              out-of-place                       "
           "in-place\n#       size         count      type   redop"
        << (root_column ? "    root" : "")
        << "     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
    for (const CollectiveSample& s : samples) {
        const double us = in(s.time, units::us);
        const double algbw = in(algorithm_bandwidth(s.message, s.time), units::GBps);
        const double busbw = algbw * bus_bandwidth_factor(s.op, s.ranks);
        char line[256];
        std::snprintf(line, sizeof line, "%12.0f  %12.0f     float     sum%s  %7.2f  %6.2f  %6.2f  %5s  %7.2f  %6.2f  %6.2f  %5s\n",
                      s.message.value(), s.message.value() / 4, root_column ? "      -1" : "", us, algbw, busbw, "0",
                      us, algbw, busbw, "N/A");
        out << line;
    }
    out << "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 12.3456\n#\n";
    return out.str();
}

using napkin::test::error_of;
}  // namespace

TEST_SUITE("calibrate") {
    TEST_CASE("exact samples give back alpha and B exactly, with zero residuals") {
        // 16 ranks over IB NDR as the lab has it: α = 5 µs, B = 50 GB/s.
        const auto samples = synthetic(16, microseconds(5), gigabytes_per_second(50), 0.0);
        const CalibrationFit fit = fit_alpha_beta(samples);
        CHECK(in(fit.step_latency, units::us) == doctest::Approx(5.0).epsilon(1e-9));
        CHECK(in(fit.bandwidth, units::GBps) == doctest::Approx(50.0).epsilon(1e-9));
        CHECK(fit.relative_residuals.size() == samples.size());
        CHECK(fit.rms_relative_residual < 1e-9);
        CHECK(fit.link("ib").bandwidth == fit.bandwidth);
    }

    TEST_CASE("noisy samples (±2 % each) recover alpha and B within 1 %") {
        // NVLink-like: α = 0.6 µs, B = 300 GB/s on 8 ranks; 28 sizes with uniform ±2 % noise.
        const auto samples = synthetic(8, microseconds(0.6), gigabytes_per_second(300), 0.02);
        const CalibrationFit fit = fit_alpha_beta(samples);
        CHECK(in(fit.step_latency, units::us) == doctest::Approx(0.6).epsilon(0.01));
        CHECK(in(fit.bandwidth, units::GBps) == doctest::Approx(300.0).epsilon(0.01));
        // The residuals are the noise: none beyond ~2 %, the rms near 2 %/√3 = 1.15 %.
        CHECK(fit.max_relative_residual < 0.025);
        CHECK(fit.rms_relative_residual > 0.005);
        CHECK(fit.rms_relative_residual < 0.02);
    }

    TEST_CASE("the base latency is fitted when the samples cover two rank counts") {
        // NCCL's ring LL base latency 6.6 µs (src/graph/tuning.cc) on top of α = 2.7 µs, B = 24 GB/s.
        auto samples = synthetic(8, microseconds(2.7), gigabytes_per_second(24), 0.005, microseconds(6.6), 1);
        const auto more = synthetic(32, microseconds(2.7), gigabytes_per_second(24), 0.005, microseconds(6.6), 2);
        samples.insert(samples.end(), more.begin(), more.end());
        const CalibrationFit fit = fit_alpha_beta(samples, {.fit_base_latency = true});
        CHECK(fit.base_latency_fitted);
        CHECK(in(fit.base_latency, units::us) == doctest::Approx(6.6).epsilon(0.05));
        CHECK(in(fit.step_latency, units::us) == doctest::Approx(2.7).epsilon(0.01));
        CHECK(in(fit.bandwidth, units::GBps) == doctest::Approx(24.0).epsilon(0.01));
        // A known base latency can be given instead of fitted.
        const CalibrationFit given = fit_alpha_beta(more, {.fit_base_latency = false, .base_latency = microseconds(6.6)});
        CHECK(in(given.step_latency, units::us) == doctest::Approx(2.7).epsilon(0.01));
    }

    TEST_CASE("base and step latency cannot be told apart on one rank count") {
        const auto samples = synthetic(8, microseconds(2.7), gigabytes_per_second(24), 0.0);
        CHECK(error_of([&] { return fit_alpha_beta(samples, {.fit_base_latency = true}); }).find("rank counts") !=
              std::string::npos);
    }

    TEST_CASE("bad samples are rejected with the argument and its value") {
        const std::vector<CollectiveSample> one{{Collective::all_reduce, 8, bytes(8), microseconds(10)}};
        CHECK(error_of([&] { return fit_alpha_beta(one); }) ==
              "samples (count) = 1: need at least 2 to fit step latency and bandwidth");
        const std::vector<CollectiveSample> lonely{{Collective::all_reduce, 1, bytes(8), microseconds(10)},
                                                   {Collective::all_reduce, 1, bytes(16), microseconds(10)}};
        CHECK(error_of([&] { return fit_alpha_beta(lonely); }) ==
              "sample.ranks = 1: must be at least 2 (one rank does not communicate)");
        const std::vector<CollectiveSample> instant{{Collective::all_reduce, 8, bytes(8), Seconds{}},
                                                    {Collective::all_reduce, 8, bytes(16), microseconds(10)}};
        CHECK(error_of([&] { return fit_alpha_beta(instant); }) == "sample.time (s) = 0: must be positive");
    }

    TEST_CASE("all_reduce_perf output: 16 ranks read from the header, alpha and B back within 1 %") {
        // α = 5 µs, B = 50 GB/s, ±0.5 % noise; printed at nccl-tests' two decimals.
        const auto truth = synthetic(16, microseconds(5), gigabytes_per_second(50), 0.005);
        std::istringstream text(nccl_tests_text(truth, true, true));
        const io::NcclTestsRun run = io::parse_nccl_tests(text);
        CHECK(run.ranks == 16);
        REQUIRE(run.rows.size() == truth.size());
        CHECK(run.rows.front().size == bytes(8));
        CHECK(run.rows.front().elements == 2);
        CHECK(run.rows.front().type == "float");
        CHECK(run.rows.front().redop == "sum");
        CHECK(run.rows.front().root == -1);
        // busbw = algbw × 2·15/16 on the largest row (1 GiB).
        const io::NcclTestsRow& big = run.rows.back();
        CHECK(ratio(big.out_of_place.bus_bandwidth, big.out_of_place.algorithm_bandwidth) ==
              doctest::Approx(30.0 / 16.0).epsilon(1e-3));
        const CalibrationFit fit = fit_alpha_beta(io::samples(run));
        CHECK(in(fit.step_latency, units::us) == doctest::Approx(5.0).epsilon(0.01));
        CHECK(in(fit.bandwidth, units::GBps) == doctest::Approx(50.0).epsilon(0.01));
        // In-place columns read as well (here equal to out-of-place).
        CHECK(io::samples(run, io::Placement::in_place).size() == truth.size());
    }

    TEST_CASE("older output without root column nor rank lines: the rank count follows from busbw/algbw") {
        const auto truth = synthetic(8, microseconds(1), gigabytes_per_second(100), 0.0);
        std::istringstream text(nccl_tests_text(truth, false, false));
        const io::NcclTestsRun run = io::parse_nccl_tests(text);
        // busbw/algbw = 2(n−1)/n = 1.75 → n = 2/(2 − 1.75) = 8.
        CHECK(run.ranks == 8);
        CHECK(run.rows.front().root == -1);
        // An explicit count wins over the header.
        std::istringstream again(nccl_tests_text(truth, false, false));
        CHECK(io::parse_nccl_tests(again, Collective::all_reduce, 4).ranks == 4);
    }

    TEST_CASE("nccl-tests output without a table, or with a broken row, is rejected") {
        std::istringstream empty("# nThread 1 nGpus 8\n# Avg bus bandwidth : 0\n");
        CHECK(error_of([&] { return io::parse_nccl_tests(empty); }).find("has no table") != std::string::npos);
        std::istringstream broken("  1024  256  float  sum  -1  abc  1.0  1.0  0  1.0  1.0  1.0  0\n");
        CHECK(error_of([&] { return io::parse_nccl_tests(broken, Collective::all_reduce, 8); }) ==
              "nccl-tests line 1 out-of-place time = \"abc\": is not a number");
        CHECK(error_of([] { return io::read_nccl_tests("/nonexistent/all_reduce_perf.txt"); }) ==
              "nccl-tests file = \"/nonexistent/all_reduce_perf.txt\": cannot be opened");
    }
}

// Training calibration: runs whose measured steps are napkin's own predictions under a known
// profile give that profile back from another start, with zero residuals.
namespace {
std::vector<MeasuredRun> synthetic_runs(const EfficiencyProfile& truth) {
    const TransformerShape models[] = {catalog::gpt3_175b, catalog::megatron_22b, catalog::llama3_1_8b};
    const Parallelism layouts[] = {
        Parallelism{.tp = 8, .pp = 8, .dp = 2, .global_batch = 256, .recompute = Recompute::full},
        Parallelism{.tp = 4, .dp = 4, .micro_batch = 2, .global_batch = 64, .sequence_parallel = true,
                    .flash_attention = true},
        Parallelism{.dp = 16, .micro_batch = 4, .global_batch = 128, .sharding = Sharding::zero3,
                    .flash_attention = true}};
    std::vector<MeasuredRun> runs;
    for (const Node* node : {&catalog::dgx_a100, &catalog::dgx_h100})
        for (int i = 0; i < 3; ++i) {
            MeasuredRun run{.label = models[i].name, .source = "synthetic", .framework = "", .model = models[i],
                            .cluster = cluster_of(*node, gpus(layouts[i]) / 8), .layout = layouts[i],
                            .options = TrainingOptions{}, .measured_step = seconds(1)};
            run.measured_step = predicted_step(run, truth);
            runs.push_back(run);
        }
    return runs;
}
}  // namespace

TEST_SUITE("calibrate training") {
    TEST_CASE("runs made from a known profile give it back, residuals zero") {
        const EfficiencyProfile truth{.ampere_share = 0.72, .hopper_share = 0.55, .memory_passes = 1.5};
        const std::vector<MeasuredRun> runs = synthetic_runs(truth);
        const TrainingFit fit = fit_efficiency_profile(runs, {}, EfficiencyProfile{0.5, 0.5, 3.0});
        CHECK(fit.profile.ampere_share == doctest::Approx(0.72).epsilon(1e-6));
        CHECK(fit.profile.hopper_share == doctest::Approx(0.55).epsilon(1e-6));
        CHECK(fit.profile.memory_passes == doctest::Approx(1.5).epsilon(1e-5));
        CHECK(fit.max_abs_residual < 1e-8);
        CHECK(fit.relative_residuals.size() == 6);
    }

    TEST_CASE("a parameter no run depends on keeps its start and is reported as not fitted") {
        std::vector<MeasuredRun> runs = synthetic_runs(default_profile);
        runs.resize(3);  // the A100 runs only
        const TrainingFit fit = fit_efficiency_profile(runs, {}, EfficiencyProfile{0.5, 0.4, 3.0});
        CHECK(fit.fitted[0]);
        CHECK_FALSE(fit.fitted[1]);
        CHECK(fit.profile.hopper_share == 0.4);
        CHECK(fit.profile.ampere_share == doctest::Approx(default_profile.ampere_share).epsilon(1e-6));
    }

    TEST_CASE("too few runs, or a weight per run that is not positive, are rejected by name") {
        std::vector<MeasuredRun> runs = synthetic_runs(default_profile);
        runs.resize(1);
        CHECK_THROWS_WITH_AS((void)fit_efficiency_profile(runs), "runs (count) = 1: need at least as many runs as "
                                                                  "free parameters",
                             napkin::invalid_argument);
        const std::vector<MeasuredRun> all = synthetic_runs(default_profile);
        const std::vector<double> weights{1, 1, 1, 1, 1, 0};
        CHECK_THROWS_WITH_AS((void)fit_efficiency_profile(all, weights), "weight = 0: must be positive",
                             napkin::invalid_argument);
        MeasuredRun bad = all[0];
        bad.measured_step = seconds(-1);
        CHECK_THROWS_WITH_AS((void)throughput_error(bad), "MeasuredRun.measured_step (s) = -1: must be positive",
                             napkin::invalid_argument);
    }
}
