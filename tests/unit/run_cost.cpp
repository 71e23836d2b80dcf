// napkin/run_cost.hpp: a run's wall time, dollars, energy, failures and goodput.
#include <napkin/catalog/models.hpp>
#include <napkin/run_cost.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace napkin;

namespace {
// Llama 3 405B (Dubey et al. 2024, Sec. 3.3.4): 419 unexpected interruptions
// of 16,384 GPUs in 54 days, so one GPU's MTBF is 16,384 × 54 × 24 / 419 h.
constexpr long long llama3_gpus = 16384;
const Seconds llama3_gpu_mtbf = quantity(16384.0 * 54.0 * 24.0 / 419.0, units::hours);
}  // namespace

TEST_SUITE("run_cost") {
    TEST_CASE("the job's MTBF is the GPU's over N: Llama 3's 54 days / 419 = 3.093 h") {
        const Seconds m = job_mtbf(llama3_gpu_mtbf, llama3_gpus);
        CHECK(in(m, units::hours) == doctest::Approx(54.0 * 24.0 / 419.0).epsilon(1e-12));
    }

    TEST_CASE("Young's interval √(2δM): δ = 60 s, M = 10,000 s → √1,200,000 = 1,095.445 s") {
        CHECK(young_interval(seconds(60), seconds(10000)).value() == doctest::Approx(1095.4451150103).epsilon(1e-12));
    }

    TEST_CASE("Daly's higher-order interval: δ = 60 s, M = 10,000 s, x = δ/2M = 0.003") {
        // √(2δM)(1 + √0.003 / 3 + 0.003 / 9) − 60 by hand: 1095.445 × 1.018591 − 60 = 1055.81
        const double young = std::sqrt(1.2e6);
        const double by_hand = young * (1.0 + std::sqrt(0.003) / 3.0 + 0.003 / 9.0) - 60.0;
        CHECK(daly_interval(seconds(60), seconds(10000)).value() == doctest::Approx(by_hand).epsilon(1e-12));
        CHECK(by_hand == doctest::Approx(1055.81).epsilon(1e-5));
        // δ ≥ 2M: checkpoint once per MTBF (Daly 2006, eq. 37's second branch).
        CHECK(daly_interval(seconds(3000), seconds(1000)) == seconds(1000));
    }

    TEST_CASE("cost = GPUs × hours × price, exactly: 1,024 GPUs × 10 h × $2.50 = $25,600") {
        const RunCost r = run_cost({.gpus = 1024, .useful = quantity(10.0, units::hours), .usd_per_gpu_hour = 2.5});
        CHECK(r.cost_usd == 25600.0);
        CHECK(r.goodput == 1.0);
        CHECK_FALSE(r.failures_modelled);
    }

    TEST_CASE("energy = GPUs × W × s × PUE: 1,000 × 700 W × 3,600 s × 1.2 = 3.024e9 J = 840 kWh") {
        const RunCost r = run_cost({.gpus = 1000, .useful = seconds(3600), .power_per_gpu = watts(700), .pue = 1.2});
        CHECK(r.energy.value() == doctest::Approx(1000.0 * 700.0 * 3600.0 * 1.2).epsilon(1e-15));
        CHECK(in(r.energy, units::kWh) == doctest::Approx(840.0).epsilon(1e-12));
        CHECK(in(r.facility_power, units::MW) == doctest::Approx(0.84).epsilon(1e-12));
    }

    TEST_CASE("with failures: W = U (1 + δ/τ) / (1 − (τ/2 + R)/M), goodput U/W, failures W/M") {
        // 1,000 GPUs of MTBF 1e7 s: the job's M = 10,000 s; δ = 60 s, R = 600 s, τ = 1,000 s given.
        const RunQuery q{.gpus = 1000,
                         .useful = seconds(1e6),
                         .gpu_mtbf = seconds(1e7),
                         .checkpoint = {.write = seconds(60), .restart = seconds(600), .interval = seconds(1000)},
                         .usd_per_gpu_hour = 2.0};
        const RunCost r = run_cost(q);
        const double wall = 1e6 * (1.0 + 60.0 / 1000.0) / (1.0 - (500.0 + 600.0) / 10000.0);  // 1,191,011.2 s
        CHECK(r.wall.value() == doctest::Approx(wall).epsilon(1e-12));
        CHECK(r.goodput == doctest::Approx(1e6 / wall).epsilon(1e-12));
        CHECK(r.failures == doctest::Approx(wall / 10000.0).epsilon(1e-12));
        CHECK(r.lost_per_failure.value() == 1100.0);
        CHECK(r.cost_usd == doctest::Approx(1000.0 * wall / 3600.0 * 2.0).epsilon(1e-12));
    }

    TEST_CASE("goodput falls as the MTBF falls and as the restart grows") {
        const auto at = [](double gpu_mtbf_s, double restart_s) {
            return run_cost({.gpus = 1024,
                             .useful = seconds(1e6),
                             .gpu_mtbf = seconds(gpu_mtbf_s),
                             .checkpoint = {.write = seconds(60), .restart = seconds(restart_s)}})
                .goodput;
        };
        CHECK(at(1e8, 600) > at(5e7, 600));
        CHECK(at(5e7, 600) > at(2e7, 600));
        CHECK(at(5e7, 60) > at(5e7, 600));
        CHECK(at(5e7, 600) > at(5e7, 1800));
    }

    TEST_CASE("Llama 3's failure rate, 60 s checkpoints, 10 min restarts: goodput 85-97 % (the paper: > 90 %)") {
        const RunCost r = run_cost({.gpus = llama3_gpus,
                                    .useful = quantity(54.0 * 24.0, units::hours),
                                    .gpu_mtbf = llama3_gpu_mtbf,
                                    .checkpoint = {.write = seconds(60), .restart = seconds(600)}});
        CHECK(r.goodput >= 0.85);
        CHECK(r.goodput <= 0.97);
        // The interval is Daly's for δ = 60 s, M = 11,134.6 s.
        CHECK(r.interval == r.daly);
        CHECK(r.interval.value() == doctest::Approx(daly_interval(seconds(60), r.job_mtbf).value()));
    }

    TEST_CASE("an asynchronous checkpoint blocks for its snapshot only, and is lost while it is written") {
        const RunQuery sync{.gpus = llama3_gpus,
                            .useful = seconds(1e6),
                            .gpu_mtbf = llama3_gpu_mtbf,
                            .checkpoint = {.write = seconds(60), .restart = seconds(600)}};
        RunQuery async = sync;
        async.checkpoint.asynchronous = true;
        async.checkpoint.snapshot = seconds(2);
        const RunCost a = run_cost(async), s = run_cost(sync);
        CHECK(a.goodput > s.goodput);
        CHECK(a.interval.value() == doctest::Approx(daly_interval(seconds(2), a.job_mtbf).value()));
        CHECK(a.lost_per_failure.value() == doctest::Approx(a.interval.value() / 2 + 600 + 60));
        async.checkpoint.snapshot = seconds(0);
        CHECK_THROWS_WITH_AS((void)run_cost(async), "Checkpointing.snapshot (s) = 0: must be positive",
                             napkin::invalid_argument);
    }

    TEST_CASE("a job that fails faster than it recovers is rejected, not an infinite time") {
        CHECK_THROWS_WITH_AS((void)run_cost({.gpus = 16384,
                                             .useful = seconds(1e6),
                                             .gpu_mtbf = seconds(16384.0 * 500),
                                             .checkpoint = {.write = seconds(60), .restart = seconds(600)}}),
                             doctest::Contains("RunQuery.gpu_mtbf (s) = 8192000: is too short"),
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)run_cost({.gpus = 8, .useful = seconds(1), .pue = 0.9}),
                             "RunQuery.pue = 0.9: must be in [1, 3] (facility / IT energy)", napkin::invalid_argument);
        CHECK_THROWS_AS((void)run_cost({.gpus = 0, .useful = seconds(1)}), napkin::invalid_argument);
        CHECK_THROWS_AS((void)run_cost({.gpus = 8, .useful = seconds(-1)}), napkin::invalid_argument);
    }

    TEST_CASE("$ / M tokens = GPUs × price / 3,600 / tokens/s × 1e6: 8 × $3 / 3,600 / 2,000 × 1e6 = $3.333") {
        CHECK(usd_per_million_tokens(8, 3.0, tokens_per_second(2000)) ==
              doctest::Approx(8.0 * 3.0 / 3600.0 / 2000.0 * 1e6).epsilon(1e-15));
        CHECK(usd_per_million_tokens(8, 3.0, tokens_per_second(2000)) == doctest::Approx(3.3333333).epsilon(1e-7));
        // Joules per token: 8 × 700 W / 2,000 tokens/s = 2.8 J.
        CHECK(joules_per_token(8, watts(700), tokens_per_second(2000)).value() == doctest::Approx(2.8).epsilon(1e-15));
    }

    TEST_CASE("a checkpoint holds 14 bytes per parameter in mixed precision (2 + 4 + 4 + 4)") {
        const Parallelism p{};  // bf16 weights, fp32 master and moments
        CHECK(checkpoint_bytes(catalog::llama3_1_405b, p).value() ==
              14.0 * static_cast<double>(parameter_count(catalog::llama3_1_405b)));
    }
}
