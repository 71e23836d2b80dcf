// The planners' speed: the whole GPT-3 175B search on 1,024 A100s (the
// issue's case, batch 1,536 × 2,048 tokens, 1,160,320 points), on one thread
// and on every core, with the bounds and the dominance proofs (the real
// search) and without them (every point of the space that a schedule can run
// is evaluated: the cost per configuration). Calculon (Isaev et al. SC'23)
// takes about 20–26 ms per configuration on this case; the goal is ≤ 20 µs,
// aiming under 1 µs.
//
//   ./build/bench/bench_planner --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Counters: points (the space), evaluated (points whose step time was
// computed), points_per_second (points of the space settled per second of
// wall time: evaluated, pruned or rejected), evaluated_per_second, and
// seconds_per_evaluated (its inverse, printed with an SI prefix: 240n = 240 ns).
// With every point evaluated, seconds_per_evaluated is the cost of one
// configuration inside the search.
// The per-point formula (evaluate_training) is timed next to its raw-double
// twin in bench_training; the combined inference split in bench_formulas.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/planner.hpp>

#include <benchmark/benchmark.h>

#include <thread>

namespace {

using namespace napkin;

TrainingPlanQuery gpt3_query(unsigned threads, bool prune) {
    return TrainingPlanQuery{.model = catalog::gpt3_175b,
                             .cluster = cluster_of(catalog::dgx_a100, 128),
                             .global_batch = 1536,
                             .sequence = 2048,
                             .top_k = 10,
                             .threads = threads,
                             .prune = prune};
}

unsigned all_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

void report(benchmark::State& state, const TrainingPlan& plan) {
    const double evaluated = static_cast<double>(plan.points_evaluated);
    const double runs = static_cast<double>(state.iterations());
    state.counters["points"] = static_cast<double>(plan.points);
    state.counters["evaluated"] = evaluated;
    state.counters["pruned"] = static_cast<double>(plan.points_pruned());
    state.counters["points_per_second"] =
        benchmark::Counter(static_cast<double>(plan.points) * runs, benchmark::Counter::kIsRate);
    state.counters["evaluated_per_second"] = benchmark::Counter(evaluated * runs, benchmark::Counter::kIsRate);
    state.counters["seconds_per_evaluated"] =
        benchmark::Counter(evaluated * runs, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void plan_gpt3(benchmark::State& state, bool prune) {
    const unsigned threads = state.range(0) == 0 ? all_cores() : static_cast<unsigned>(state.range(0));
    const TrainingPlanQuery q = gpt3_query(threads, prune);
    TrainingPlan plan;
    for (auto _ : state) {
        plan = plan_training(q);
        benchmark::DoNotOptimize(plan.top.data());
    }
    state.counters["threads"] = threads;
    report(state, plan);
}

// The search as `napkin plan` runs it: memory bounds on. Arg: threads (0 = every core).
void plan_gpt3_search(benchmark::State& state) { plan_gpt3(state, true); }
BENCHMARK(plan_gpt3_search)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);

// Every point evaluated: the cost of one configuration inside the search.
void plan_gpt3_every_point(benchmark::State& state) { plan_gpt3(state, false); }
BENCHMARK(plan_gpt3_every_point)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);

// The inference planner: Llama 3.1 405B on up to 64 A100s over NVLink, every
// tp × pp split and up to 1,024 tokens in flight, under a 30 ms bound.
void plan_inference_405b(benchmark::State& state) {
    const InferencePlanQuery q{.max_gpus = 64, .max_tokens_in_flight = 1024, .latency_bound = milliseconds(30),
                               .objective = InferenceObjective::throughput};
    InferencePlan plan;
    for (auto _ : state) {
        plan = plan_inference(catalog::llama3_1_405b, catalog::a100_80gb_sxm, catalog::nvlink_a100, q);
        benchmark::DoNotOptimize(plan.best);
    }
    state.counters["evaluated"] = static_cast<double>(plan.points_evaluated);
    state.counters["points_per_second"] = benchmark::Counter(
        static_cast<double>(plan.points_evaluated) * static_cast<double>(state.iterations()),
        benchmark::Counter::kIsRate);
}
BENCHMARK(plan_inference_405b)->Unit(benchmark::kMicrosecond);

}  // namespace
