// One full training evaluation (memory + step breakdown) of GPT-3 175B on
// 1,024 A100s, next to a raw-double twin of the same arithmetic.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/training.hpp>

#include <benchmark/benchmark.h>

using namespace napkin;

namespace {

const Parallelism layout{.tp = 8, .pp = 16, .dp = 8, .global_batch = 1536, .sequence = 2048,
                         .recompute = Recompute::full, .gradients = DType::fp32};

void evaluate_with_units(benchmark::State& state) {
    const TransformerShape model = catalog::gpt3_175b;
    const Cluster cluster = cluster_of(catalog::dgx_a100, 128);
    Parallelism par = layout;
    for (auto _ : state) {
        benchmark::DoNotOptimize(par);
        const TrainingEstimate e = evaluate_training(model, cluster, par);
        benchmark::DoNotOptimize(e);
    }
}
BENCHMARK(evaluate_with_units);

// The same formulas in plain doubles: GPT-3, t8 p16 d8, DGX A100 links, no validation.
struct RawEstimate {
    double memory, compute, recompute, tp, pp, bubble, dp, optimizer, step, mfu;
};

RawEstimate evaluate_raw(double L, double h, double V, double P, double s, double b, double B, double t, double p,
                         double d, double peak, double hbm) {
    const double m = B / (b * d);
    const double eff = 0.62 * (h / t) / (h / t + 100.0);
    const double layer_fwd = 2 * s * 12 * h * h + 4 * s * s * h;
    const double logits = 2 * s * h * V;
    const double work = 3 * b * ((L / p) * layer_fwd + logits) / t / (peak * eff);
    const double replay = b * L * layer_fwd / (p * t) / (peak * eff);
    const double msg = b * s * h * 2;
    const double nv = 300e9, ib = 25e9, base = 6.6e-6;
    const double tp = (L / p) * 6 * (base + 2 * (t - 1) * 0.6e-6 + 2 * (t - 1) / t * msg / nv);
    const double pp = 2 * (base + 2.7e-6 + msg / t / ib);
    const double per_mb = work + replay + tp + pp;
    const double params = (L / p) * (12 * h * h + 13 * h) / t + V * h / t + P * h;
    const double grads = params * 4;
    const double dp = base + 2 * (d - 1) * 2.7e-6 + 2 * (d - 1) / d * grads / ib;
    const double optimizer = params * (4 + 2 * 12 + 2) / hbm;
    const double acts = 2 * s * b * h * L;
    const double memory = params * 18 + acts;
    const double step = m * per_mb + (p - 1) * per_mb + dp + optimizer;
    const double model_flops = 3 * B * (L * layer_fwd + logits);
    return {memory, m * work, m * replay, m * tp, m * pp, (p - 1) * per_mb, dp, optimizer, step,
            model_flops / (step * t * p * d * peak)};
}

void evaluate_with_doubles(benchmark::State& state) {
    double L = 96, h = 12288, V = 51200, P = 2048, s = 2048, b = 1, B = 1536, t = 8, p = 16, d = 8;
    for (auto _ : state) {
        benchmark::DoNotOptimize(L);
        const RawEstimate e = evaluate_raw(L, h, V, P, s, b, B, t, p, d, 312e12, 2039e9);
        benchmark::DoNotOptimize(e);
    }
}
BENCHMARK(evaluate_with_doubles);

}  // namespace
