// Property tests: laws the models must obey on every input, checked on inputs
// drawn from a deterministic generator (SplitMix64, fixed seeds: a failure
// reproduces exactly). Each law is a consequence of the formulas, stated with
// its reason beside it.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/collectives.hpp>
#include <napkin/inference.hpp>
#include <napkin/memory.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/planner.hpp>
#include <napkin/schedule.hpp>
#include <napkin/training.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

using namespace napkin;

namespace {
// SplitMix64 (Steele, Lea & Flood 2014): tiny, deterministic, good enough to spread cases.
struct Generator {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    long long integer(long long low, long long high) {  // in [low, high]
        return low + static_cast<long long>(next() % static_cast<std::uint64_t>(high - low + 1));
    }
    double uniform(double low, double high) {
        return low + (high - low) * (static_cast<double>(next() >> 11) / 9007199254740992.0);
    }
    double log_uniform(double low, double high) { return std::exp(uniform(std::log(low), std::log(high))); }
    template <class T, std::size_t N>
    T pick(const std::array<T, N>& items) {
        return items[static_cast<std::size_t>(integer(0, static_cast<long long>(N) - 1))];
    }
};

Link random_link(Generator& g) {
    return validated(Link{"random", bytes_per_second(g.log_uniform(1e8, 1e13)), seconds(g.log_uniform(1e-7, 1e-3))});
}

// A valid GPT-2 small layout on one or two DGX A100 nodes.
struct RandomLayout {
    Cluster cluster;
    Parallelism par;
};
RandomLayout random_layout(Generator& g) {
    const long long nodes = g.integer(1, 2);
    const long long n = 8 * nodes;
    const long long tp = g.pick(std::array<long long, 3>{1, 2, 4});
    const long long pp = g.pick(std::array<long long, 3>{1, 2, 4 / (tp == 4 && nodes == 1 ? 2 : 1)});
    const long long dp = n / (tp * pp);
    const long long b = g.pick(std::array<long long, 3>{1, 2, 4});
    const long long m = pp * g.integer(1, 4);
    Parallelism par{.tp = tp, .pp = pp, .dp = dp, .micro_batch = b, .global_batch = b * dp * m, .sequence = 1024};
    par.recompute = g.pick(std::array<Recompute, 3>{Recompute::none, Recompute::selective, Recompute::full});
    par.sharding = g.pick(std::array<Sharding, 4>{Sharding::none, Sharding::zero1, Sharding::zero3, Sharding::distributed});
    par.sequence_parallel = tp > 1 && g.integer(0, 1) == 1;
    par.flash_attention = g.integer(0, 1) == 1;
    return {Cluster{catalog::dgx_a100, nodes}, validated(par, catalog::gpt2_small)};
}

bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0.0; }
}  // namespace

TEST_SUITE("properties") {
    TEST_CASE("collectives are monotone: never slower on a faster link, never faster on a slower step") {
        // T = base + steps·α + share·M/B with steps, share ≥ 0: non-increasing in B, non-decreasing in α.
        Generator g{1};
        for (int i = 0; i < 2000; ++i) {
            const Link link = random_link(g);
            const Bytes m = bytes(g.log_uniform(1, 1e11));
            const long long n = g.integer(1, 4096);
            const double k = g.uniform(1.0, 100.0);
            const Link faster{"faster", link.bandwidth * k, link.step_latency};
            const Link slower_steps{"slower steps", link.bandwidth, link.step_latency * k};
            for (Collective op : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                                  Collective::all_to_all, Collective::broadcast}) {
                const Seconds t = collective_time(op, m, n, link).total();
                CHECK(finite_non_negative(t.value()));
                CHECK(collective_time(op, m, n, faster).total() <= t);
                CHECK(collective_time(op, m, n, slower_steps).total() >= t);
            }
            CHECK(tree_all_reduce(m, n, faster).total() <= tree_all_reduce(m, n, link).total());
            CHECK(tree_all_reduce(m, n, slower_steps).total() >= tree_all_reduce(m, n, link).total());
        }
    }

    TEST_CASE("a hierarchical all-reduce on one node is the ring inside the node") {
        // With N = 1 the cross-node ring has no steps: RS + AG inside the node = one ring all-reduce.
        Generator g{2};
        for (int i = 0; i < 2000; ++i) {
            const Link intra = random_link(g), inter = random_link(g);
            const long long gpn = g.integer(1, 64);
            const Bytes m = bytes(g.log_uniform(1, 1e11));
            const HierarchicalTopology one_node{.nodes = 1, .gpus_per_node = gpn, .intra = intra, .inter = inter,
                                                .nic = g.integer(0, 1) == 1 ? Nic::per_gpu : Nic::per_node,
                                                .oversubscription = g.uniform(1.0, 8.0)};
            const CollectiveTime h = hierarchical_all_reduce(m, one_node), r = ring_all_reduce(m, gpn, intra);
            CHECK(h.total().value() == doctest::Approx(r.total().value()).epsilon(1e-12));
        }
    }

    TEST_CASE("the simulator equals the closed forms on uniform stages (GPipe, 1F1B, interleaved)") {
        // With equal stages and free sends every rank's chain is the closed form's
        // (m + p − 1)(F + B), interleaved (m·v + p − 1)(F + B)/v (pipeline.hpp).
        Generator g{3};
        for (int i = 0; i < 300; ++i) {
            const long long p = g.integer(1, 12);
            const StageTimes t{seconds(g.uniform(0.1, 10.0)), seconds(g.uniform(0.1, 20.0))};
            const PipelineShape plain{p, g.integer(1, 40), 1};
            CHECK(simulate(GPipe{}, plain, t).step_time().value() ==
                  doctest::Approx(step_time(GPipe{}, plain, t).value()).epsilon(1e-12));
            CHECK(simulate(OneFOneB{}, plain, t).step_time().value() ==
                  doctest::Approx(step_time(OneFOneB{}, plain, t).value()).epsilon(1e-12));
            if (p > 1) {
                const PipelineShape chunked{p, p * g.integer(1, 5), g.integer(2, 4)};
                CHECK(simulate(Interleaved{}, chunked, t).step_time().value() ==
                      doctest::Approx(step_time(Interleaved{}, chunked, t).value()).epsilon(1e-12));
            }
        }
    }

    TEST_CASE("memory parts add up to the totals, each finite and non-negative") {
        Generator g{4};
        for (int i = 0; i < 500; ++i) {
            const RandomLayout l = random_layout(g);
            const TrainingMemory mem = training_memory(catalog::gpt2_small, l.par);
            for (const Bytes& part : {mem.weights, mem.gradients, mem.optimizer, mem.activations})
                CHECK(finite_non_negative(part.value()));
            CHECK(mem.states().value() == doctest::Approx((mem.weights + mem.gradients + mem.optimizer).value()));
            CHECK(mem.total().value() == doctest::Approx((mem.states() + mem.activations).value()));
            const TrainingEstimate e = evaluate_training(catalog::gpt2_small, l.cluster, l.par);
            const StepBreakdown& b = e.breakdown;
            double sum = 0.0;
            for (const Seconds& part : {b.compute, b.recompute, b.tp, b.pp, b.bubble, b.dp, b.ep, b.cp, b.optimizer}) {
                CHECK(finite_non_negative(part.value()));
                sum += part.value();
            }
            CHECK(e.step.value() == doctest::Approx(sum).epsilon(1e-12));
        }
        for (int i = 0; i < 500; ++i) {
            const TransformerShape& model = *g.pick(catalog::models);
            const long long n = g.integer(1, 512);
            InferenceSetup setup = lesson_setup;
            setup.context = tokens(std::floor(g.log_uniform(1, 1e7)));
            const InferenceMemory m = memory_per_gpu(model, n, setup);
            CHECK(finite_non_negative(m.weights.value()));
            CHECK(finite_non_negative(m.kv_cache.value()));
            CHECK(m.total().value() == doctest::Approx((m.weights + m.kv_cache + m.working).value()));
        }
    }

    TEST_CASE("training is monotone in the peak and in the link bandwidths") {
        // Every part is a time of work over a rate; the exposed gradient sync,
        // max(0, sync − (2/3)·compute), falls by at most 2/3 of what compute gains.
        Generator g{5};
        for (int i = 0; i < 300; ++i) {
            const RandomLayout l = random_layout(g);
            const double k = g.uniform(1.0, 10.0);
            const Seconds step = evaluate_training(catalog::gpt2_small, l.cluster, l.par).step;
            Cluster faster_gpu = l.cluster;
            faster_gpu.node.gpu.peak_flops = faster_gpu.node.gpu.peak_flops * k;
            CHECK(evaluate_training(catalog::gpt2_small, faster_gpu, l.par).step <= step);
            Cluster faster_links = l.cluster;
            faster_links.node.intra.bandwidth = faster_links.node.intra.bandwidth * k;
            faster_links.node.inter.bandwidth = faster_links.node.inter.bandwidth * k;
            CHECK(evaluate_training(catalog::gpt2_small, faster_links, l.par).step <= step);
        }
    }

    TEST_CASE("the best GPU count is never slower than any other count that fits") {
        Generator g{6};
        for (int i = 0; i < 100; ++i) {
            const TransformerShape& model = *g.pick(catalog::models);
            const Gpu& gpu = *g.pick(catalog::gpus);
            const Link& link = *g.pick(catalog::links);
            const BestCountQuery q{.max_gpus = g.integer(1, 128), .divide_heads = g.integer(0, 1) == 1,
                                   .split = g.integer(0, 1) == 1 ? Split::tensor : Split::pipeline,
                                   .tokens_in_flight = g.integer(1, 64)};
            const auto best = best_gpu_count(model, gpu, link, q);
            for (long long n = 1; n <= q.max_gpus; ++n) {
                if (q.divide_heads && model.heads % n != 0) continue;
                if (!fits(model, gpu, n)) continue;
                REQUIRE(best.has_value());
                CHECK(best->time.total() <= token_time(model, gpu, link, {n, q.split, q.tokens_in_flight}).total());
            }
        }
    }

    TEST_CASE("the planner's best equals a brute-force search over every point of small spaces") {
        Generator g{7};
        for (int i = 0; i < 3; ++i) {
            TrainingPlanQuery q{.model = catalog::gpt2_small, .cluster = {catalog::dgx_a100, 1},
                                .global_batch = g.pick(std::array<long long, 3>{8, 16, 32}),
                                .sequence = g.pick(std::array<long long, 2>{512, 1024}), .threads = 2};
            q.cluster.node.gpu = *g.pick(catalog::gpus);
            const TrainingPlan plan = plan_training(q);
            TrainingPlanQuery every = q;
            every.prune = false;
            std::optional<Seconds> fastest;
            for_each_training_point(every, [&](const TrainingCandidate& c) {
                if (c.estimate.fits && (!fastest || c.estimate.step < *fastest)) fastest = c.estimate.step;
            });
            REQUIRE(fastest.has_value());
            REQUIRE_FALSE(plan.top.empty());
            CHECK(plan.top.front().estimate.step == *fastest);
        }
    }
}
