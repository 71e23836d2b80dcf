// napkin/inference.hpp: the split lesson's numbers, each derived by hand.
// Source: shared reference lesson-split-one-model-over-gpus.txt ("Go deeper").
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace napkin;

namespace {
constexpr const Gpu& a100 = catalog::a100_80gb_sxm;
constexpr const Link& fast = catalog::nvlink_a100;
constexpr const Link& slow = catalog::pcie_gen4;
constexpr const auto& m8b = catalog::llama3_1_8b;
constexpr const auto& m70b = catalog::llama3_1_70b;
constexpr const auto& m405b = catalog::llama3_1_405b;

// The lesson rounds half up to two decimals (JavaScript's toFixed on ties).
double round2(double x) { return std::floor(x * 100 + 0.5) / 100; }
double ms2(Seconds t) { return round2(in(t, units::ms)); }
double pct1(double share) { return std::floor(share * 1000 + 0.5) / 10; }

TokenTime slices(const TransformerShape& m, long long n, const Link& link, long long w = 1) {
    return token_time(m, a100, link, {n, Split::tensor, w});
}
TokenTime groups(const TransformerShape& m, long long n, const Link& link) {
    return token_time(m, a100, link, {n, Split::pipeline, 1});
}
}  // namespace

TEST_SUITE("inference") {
    TEST_CASE("70B on 4 GPUs: 35,276,853,248 + 671,088,640 + 1,560,281,088 = 37,508,222,976 bytes") {
        // weights 70,553,706,496 × 2 / 4; cache 327,680 B/token × 8,192 / 4 KV-head shares;
        // working 2,048 × (3·28,672 + 4·8,192) × 2 = 486,539,264, plus 1 GiB.
        const InferenceMemory m = memory_per_gpu(m70b, 4);
        CHECK(m.weights.value() == 35'276'853'248.0);
        CHECK(m.kv_cache.value() == 671'088'640.0);
        CHECK(m.working.value() == 1'560'281'088.0);
        CHECK(m.total().value() == 37'508'222'976.0);
        CHECK(to_string(m.total()) == "34.93 GiB");
    }

    TEST_CASE("the cache is shared by KV head: 16 GPUs hold as much of it as 8 (8 KV heads)") {
        CHECK(kv_cache_per_gpu(m70b, 16) == kv_cache_per_gpu(m70b, 8));
        CHECK(kv_cache_per_gpu(m70b, 8).value() == 2'684'354'560.0 / 8);
    }

    TEST_CASE("weight shares round up to a whole byte") {
        // 8,030,261,248 × 2 = 16,060,522,496 bytes; / 3 = 5,353,507,498.67 -> 5,353,507,499
        CHECK(weights_per_gpu(m8b, 3).value() == 5'353'507'499.0);
    }

    TEST_CASE("the lesson's memory figures: 131.42 GiB of 70B weights, 755.96 GiB for 405B, 68.41 and 49.60 GiB") {
        CHECK(round2(in(weight_bytes(m70b, 2), units::GiB)) == 131.42);
        CHECK(round2(in(weights_per_gpu(m70b, 4), units::GiB)) == 32.85);
        CHECK(round2(in(weight_bytes(m405b, 2), units::GiB)) == 755.96);
        CHECK(round2(in(memory_per_gpu(m70b, 2).total(), units::GiB)) == 68.41);
        CHECK(round2(in(memory_per_gpu(m405b, 16).total(), units::GiB)) == 49.60);
    }

    TEST_CASE("which settings fit: the fewest GPUs are 1, 2 and 11 — 405B on 1 GPU does not fit") {
        CHECK(fewest_gpus(m8b, a100) == 1);
        CHECK(fewest_gpus(m70b, a100) == 2);
        CHECK(fewest_gpus(m405b, a100) == 11);
        CHECK_FALSE(fits(m405b, a100, 1));
        CHECK_FALSE(fits(m405b, a100, 10));
        CHECK(fits(m405b, a100, 11));
        CHECK_FALSE(fewest_gpus(m405b, a100, lesson_setup, 10).has_value());
    }

    TEST_CASE("working memory larger than the card: no count fits") {
        InferenceSetup huge = lesson_setup;
        huge.working_allowance = gibibytes(100);
        CHECK_FALSE(fewest_gpus(m8b, a100, huge).has_value());
    }

    TEST_CASE("reading: 69.20 ms for the whole 70B model, 17.30 ms for a quarter — time × count stays constant") {
        // 141,107,412,992 bytes / 2,039 GB/s = 69.204 ms
        CHECK(ms2(weight_read_time(m70b, a100, 1)) == 69.20);
        CHECK(ms2(weight_read_time(m70b, a100, 4)) == 17.30);
        for (long long n : {1, 2, 4, 8, 16})
            CHECK(in(weight_read_time(m70b, a100, n), units::s) * static_cast<double>(n) ==
                  doctest::Approx(in(weight_read_time(m70b, a100, 1), units::s)).epsilon(1e-9));
    }

    TEST_CASE("compute: 2 operations per weight per token — 3.62 ms for 64 tokens on 8 GPUs, 0.45 ms for one on one") {
        // 2 × 70,553,706,496 × 64 / (8 × 312e12) = 3.618 ms
        CHECK(ms2(token_compute_time(m70b, a100, 8, 64)) == 3.62);
        CHECK(ms2(token_compute_time(m70b, a100, 1, 1)) == 0.45);
        CHECK(ms2(weight_read_time(m70b, a100, 8)) == 8.65);
    }

    TEST_CASE("one swap: 6.6 + 6 × 0.6 = 10.2 µs start-up, plus 24,576 B / 600 GB/s = 0.041 µs") {
        const CollectiveTime swap = lesson_collective.all_reduce(bytes(16384), 4, fast);
        CHECK(in(swap.latency, units::us) == doctest::Approx(10.2).epsilon(1e-12));
        CHECK(in(swap.bandwidth, units::us) == doctest::Approx(0.04096).epsilon(1e-9));
        CHECK(round2(in(swap.total(), units::us)) == 10.24);
        // start-up is 99.6 % of it
        CHECK(pct1(ratio(swap.latency, swap.total())) == 99.6);
        // 8B over 2 GPUs: 6.6 + 2 × 0.6 = 7.8 µs plus 8,192 B / 600 GB/s = 0.014 µs: 7.81
        CHECK(round2(in(lesson_collective.all_reduce(bytes(8192), 2, fast).total(), units::us)) == 7.81);
        // 64 tokens on 8 GPUs: 6.6 + 14 × 0.6 + 1.75 × 1,048,576 B / 600 GB/s = 18.06 µs; 6.6 + 14 + 28.67 = 49.27 µs slow
        CHECK(round2(in(lesson_collective.all_reduce(bytes(16384 * 64), 8, fast).total(), units::us)) == 18.06);
        CHECK(round2(in(lesson_collective.all_reduce(bytes(16384 * 64), 8, slow).total(), units::us)) == 49.27);
    }

    TEST_CASE("a token makes two swaps per layer: 64, 160 and 252") {
        for (const auto* m : {&m8b, &m70b, &m405b}) {
            const TokenTime t = slices(*m, 4, fast);
            const Seconds one = lesson_collective.all_reduce(hidden_vector(*m, 2) * tokens(1), 4, fast).total();
            CHECK(ratio(t.transfer, one) == doctest::Approx(2.0 * static_cast<double>(m->layers)));
        }
        CHECK(2 * m405b.layers == 252);
    }

    TEST_CASE("70B on 4 GPUs, fast link: 17.30 + 1.64 = 18.94 ms per token, 8.7 % waiting") {
        const TokenTime t = slices(m70b, 4, fast);
        CHECK(ms2(t.read) == 17.30);
        CHECK(ms2(t.transfer) == 1.64);  // 160 × 10.24 µs
        CHECK(ms2(t.total()) == 18.94);
        CHECK(pct1(t.waiting_share()) == 8.7);
    }

    TEST_CASE("70B waiting at 2, 4, 8 and 16 GPUs: 3.5, 8.7, 21.8 and 47.7 %") {
        CHECK(pct1(slices(m70b, 2, fast).waiting_share()) == 3.5);
        CHECK(pct1(slices(m70b, 4, fast).waiting_share()) == 8.7);
        CHECK(pct1(slices(m70b, 8, fast).waiting_share()) == 21.8);
        CHECK(pct1(slices(m70b, 16, fast).waiting_share()) == 47.7);
        // 8 -> 16 GPUs: 11.06 -> 8.27 ms, 1.34 times faster
        CHECK(ms2(slices(m70b, 16, fast).total()) == 8.27);
        CHECK(round2(ratio(slices(m70b, 8, fast).total(), slices(m70b, 16, fast).total())) == 1.34);
    }

    TEST_CASE("8B check cell: 3.94 ms reading + 64 swaps × 7.81 µs = 0.50 ms, 4.44 ms, 11.3 % waiting") {
        const TokenTime t = slices(m8b, 2, fast);
        CHECK(ms2(t.read) == 3.94);
        CHECK(ms2(t.transfer) == 0.50);
        CHECK(ms2(t.total()) == 4.44);
        CHECK(pct1(t.waiting_share()) == 11.3);
    }

    TEST_CASE("the lesson's 8B table, ms per token on the fast and slow link") {
        const double expected[][3] = {{1, 7.88, 7.88}, {2, 4.44, 4.50}, {4, 2.62, 2.79}, {8, 1.95, 2.32}, {16, 2.07, 2.85}};
        for (const auto& row : expected) {
            const auto n = static_cast<long long>(row[0]);
            CAPTURE(n);
            CHECK(ms2(slices(m8b, n, fast).total()) == row[1]);
            CHECK(ms2(slices(m8b, n, slow).total()) == row[2]);
        }
    }

    TEST_CASE("8B waiting shares: fast 11.3/24.9/49.4/76.2 %, slow 12.4/29.4/57.5/82.7 %") {
        const long long n[] = {2, 4, 8, 16};
        const double on_fast[] = {11.3, 24.9, 49.4, 76.2}, on_slow[] = {12.4, 29.4, 57.5, 82.7};
        for (int i = 0; i < 4; ++i) {
            CHECK(pct1(slices(m8b, n[i], fast).waiting_share()) == on_fast[i]);
            CHECK(pct1(slices(m8b, n[i], slow).waiting_share()) == on_slow[i]);
        }
    }

    TEST_CASE("8B speed-ups of each doubling: 1.77, 1.69, 1.35, then 0.94 (slower) — 514 -> 483 tokens/s") {
        const long long n[] = {1, 2, 4, 8, 16};
        const double gains[] = {1.77, 1.69, 1.35, 0.94};
        for (int i = 0; i < 4; ++i) CHECK(round2(ratio(slices(m8b, n[i], fast).total(), slices(m8b, n[i + 1], fast).total())) == gains[i]);
        CHECK(std::round(slices(m8b, 8, fast).user_tokens_per_second().value()) == 514);
        CHECK(std::round(slices(m8b, 16, fast).user_tokens_per_second().value()) == 483);
    }

    TEST_CASE("tokens in flight, 70B on 8 GPUs: the lesson's table and waiting shares") {
        const double expected[][3] = {{1, 11.06, 12.02}, {16, 11.17, 13.09}, {64, 11.54, 16.53}};
        const double share_fast[] = {21.8, 22.6, 25.0}, share_slow[] = {28.0, 33.9, 47.7};
        for (int i = 0; i < 3; ++i) {
            const auto w = static_cast<long long>(expected[i][0]);
            CAPTURE(w);
            CHECK(ms2(slices(m70b, 8, fast, w).total()) == expected[i][1]);
            CHECK(ms2(slices(m70b, 8, slow, w).total()) == expected[i][2]);
            CHECK(pct1(slices(m70b, 8, fast, w).waiting_share()) == share_fast[i]);
            CHECK(pct1(slices(m70b, 8, slow, w).waiting_share()) == share_slow[i]);
        }
        // the slow link costs 0.96 ms more at 1 token and 4.99 ms more at 64: more than 5 times as much
        const Seconds gap1 = slices(m70b, 8, slow).total() - slices(m70b, 8, fast).total();
        const Seconds gap64 = slices(m70b, 8, slow, 64).total() - slices(m70b, 8, fast, 64).total();
        CHECK(ms2(gap1) == 0.96);
        CHECK(ms2(gap64) == 4.99);
        CHECK(ratio(gap64, gap1) > 5.0);
    }

    TEST_CASE("halving both links (if the sheet counts both directions): 11.07, 12.09 and 21.12 ms") {
        const Link fast_half{"half-fast", fast.bandwidth / 2.0, fast.step_latency};
        const Link slow_half{"half-slow", slow.bandwidth / 2.0, slow.step_latency};
        CHECK(ms2(slices(m70b, 8, fast_half).total()) == 11.07);
        CHECK(ms2(slices(m70b, 8, slow_half).total()) == 12.09);
        CHECK(ms2(slices(m70b, 8, slow_half, 64).total()) == 21.12);
        // 28 % more than 16.53 ms
        CHECK(std::round(100 * (ratio(slices(m70b, 8, slow_half, 64).total(), slices(m70b, 8, slow, 64).total()) - 1)) == 28);
    }

    TEST_CASE("groups of layers: 4 × 17.30 ms + 3 hand-offs of 7.2 µs = 69.23 ms, 0.03 % waiting") {
        const TokenTime t = groups(m70b, 4, fast);
        CHECK(ms2(t.total()) == 69.23);
        // a hand-off: base 6.6 + one step 0.6 µs + 16,384 B / 600 GB/s
        CHECK(in(t.transfer, units::us) == doctest::Approx(3 * (7.2 + 16384 / 600e9 * 1e6)).epsilon(1e-12));
        CHECK(std::floor(t.waiting_share() * 10000 + 0.5) / 100 == 0.03);
    }

    TEST_CASE("groups do not speed up one user: within 2 % of one GPU's full read, for every setting") {
        for (const auto* m : {&m8b, &m70b, &m405b})
            for (long long n : {1, 2, 4, 8, 16})
                for (const Link* link : {&fast, &slow}) {
                    const Seconds whole = weight_read_time(*m, a100, 1);
                    const TokenTime t = groups(*m, n, *link);
                    CHECK(t.total() >= whole);
                    CHECK(t.total() <= 1.02 * whole);
                    CHECK(t.waiting_share() < 0.02);
                }
    }

    TEST_CASE("one GPU waits on no one") {
        CHECK(slices(m70b, 1, fast).transfer.value() == 0.0);
        CHECK(groups(m70b, 1, fast).transfer.value() == 0.0);
    }

    TEST_CASE("waiting grows with the GPU count and with a slower link") {
        for (const auto* m : {&m8b, &m70b, &m405b}) {
            double last = -1;
            for (long long n : {1, 2, 4, 8, 16}) {
                CHECK(slices(*m, n, fast).waiting_share() > last);
                CHECK(slices(*m, n, slow).waiting_share() >= slices(*m, n, fast).waiting_share());
                last = slices(*m, n, fast).waiting_share();
            }
        }
    }

    TEST_CASE("best counts: 10/8, 19/15, 36/28 — dividing the heads 8, 16 and 32 on both links") {
        CHECK(best_gpu_count(m8b, a100, fast)->gpus == 10);
        CHECK(best_gpu_count(m8b, a100, slow)->gpus == 8);
        CHECK(best_gpu_count(m70b, a100, fast)->gpus == 19);
        CHECK(best_gpu_count(m70b, a100, slow)->gpus == 15);
        CHECK(best_gpu_count(m405b, a100, fast)->gpus == 36);
        CHECK(best_gpu_count(m405b, a100, slow)->gpus == 28);
        for (const Link* link : {&fast, &slow}) {
            CHECK(best_gpu_count(m8b, a100, *link, {.divide_heads = true})->gpus == 8);
            CHECK(best_gpu_count(m70b, a100, *link, {.divide_heads = true})->gpus == 16);
            CHECK(best_gpu_count(m405b, a100, *link, {.divide_heads = true})->gpus == 32);
        }
        // among the counts the page offers (1 to 16): 8 for the 8B model, 16 for the others
        CHECK(best_gpu_count(m8b, a100, fast, {.max_gpus = 16})->gpus == 10);  // any count: 10 is within 16
        CHECK(best_gpu_count(m70b, a100, fast, {.max_gpus = 16})->gpus == 16);
        CHECK_FALSE(best_gpu_count(m405b, a100, fast, {.max_gpus = 10}).has_value());
    }

    TEST_CASE("bad input names the argument") {
        CHECK_THROWS_WITH_AS((void)memory_per_gpu(m70b, 0), "gpus = 0: must be at least 1", napkin::invalid_argument);
        CHECK_THROWS_WITH((void)token_time(m70b, a100, fast, {4, Split::tensor, 0}),
                          "tokens_in_flight = 0: must be at least 1");
        Link broken = fast;
        broken.bandwidth = gigabytes_per_second(-600);
        CHECK_THROWS_AS((void)token_time(m70b, a100, broken, {4}), napkin::invalid_argument);
        InferenceSetup setup = lesson_setup;
        setup.bytes_per_weight = 0;
        CHECK_THROWS_WITH((void)memory_per_gpu(m70b, 4, setup), "InferenceSetup.bytes_per_weight = 0: must be positive");
    }

    TEST_CASE("the collective is a policy: a ring without base latency waits less") {
        const TokenTime with_base = slices(m70b, 8, fast);
        const TokenTime without = token_time(m70b, a100, fast, {8}, lesson_setup, Ring{});
        // 160 swaps × 6.6 µs = 1.056 ms less
        CHECK(in(with_base.transfer - without.transfer, units::ms) == doctest::Approx(1.056).epsilon(1e-9));
    }
}
