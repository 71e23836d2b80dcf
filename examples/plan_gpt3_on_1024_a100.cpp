// The planner on the case Megatron-LM made famous: GPT-3 175B on 1,024 A100
// 80 GB GPUs (128 DGX A100 nodes: NVLink inside, InfiniBand HDR between),
// global batch 1,536 sequences of 2,048 tokens (Narayanan et al. 2021, SC'21,
// Table 1). It searches every layout, prints the fastest, and shows where
// the paper's own choice, t8 p16 (dp 8), ranks among them.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/planner.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace napkin;

namespace {
std::string describe(const TrainingCandidate& c) {
    const Parallelism& p = c.point.parallelism;
    char text[200];
    std::snprintf(text, sizeof text, "t%lld p%lld d%lld v%lld b%lld %-9s sp=%s zero=%-11s %-11s %s",
                  p.tp, p.pp, p.dp, p.virtual_stages, p.micro_batch, std::string(to_string(p.recompute)).c_str(),
                  p.sequence_parallel ? "on " : "off", std::string(to_string(p.sharding)).c_str(),
                  std::string(to_string(p.schedule)).c_str(), c.point.options.overlap_dp ? "overlap" : "");
    return text;
}
void print_row(long long rank, const TrainingCandidate& c) {
    std::printf("%6lld  %-84s %9s %10s %7.1f%%\n", rank, describe(c).c_str(), to_string(c.estimate.step).c_str(),
                to_string(c.estimate.memory.total()).c_str(), 100.0 * c.estimate.mfu);
}
}  // namespace

int main() {
    const TrainingPlanQuery query{.model = catalog::gpt3_175b,
                                  .cluster = cluster_of(catalog::dgx_a100, 128),  // 1,024 GPUs
                                  .global_batch = 1536,
                                  .sequence = 2048,
                                  .top_k = 10};
    const auto start = std::chrono::steady_clock::now();
    const TrainingPlan plan = plan_training(query);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::printf("GPT-3 175B on 1,024 A100 80 GB, batch 1,536 x 2,048 tokens\n");
    std::printf("space: %lld points; evaluated %lld (fit %lld), pruned %lld (dominated %lld, memory bound %lld), "
                "rejected %lld (memory %lld, schedule %lld; layouts: gpus %lld, batch %lld)\n",
                plan.points, plan.points_evaluated, plan.points_fitting, plan.points_pruned(),
                plan.points_pruned_dominated, plan.points_pruned_memory, plan.rejected.total(), plan.rejected.memory,
                plan.rejected.schedule, plan.rejected.gpus, plan.rejected.batch);
    std::printf("searched in %.2f s\n\n%6s  %-84s %9s %10s %8s\n", seconds, "rank", "layout", "step", "memory",
                "MFU");
    for (std::size_t i = 0; i < plan.top.size(); ++i) print_row(static_cast<long long>(i + 1), plan.top[i]);

    // Megatron's choice: t8 p16. Its best variant, and how many fitting points beat it.
    std::optional<TrainingCandidate> megatron;
    std::vector<double> steps;
    for_each_training_point(query, [&](const TrainingCandidate& c) {
        if (!c.estimate.fits) return;
        steps.push_back(in(c.estimate.step, units::s));
        const Parallelism& p = c.point.parallelism;
        if (p.tp == 8 && p.pp == 16 && (!megatron || detail::ranks_before(c, *megatron))) megatron = c;
    });
    if (megatron) {
        const double t = in(megatron->estimate.step, units::s);
        const auto faster = std::count_if(steps.begin(), steps.end(), [t](double x) { return x < t; });
        std::printf("\nMegatron-LM's t8 p16, best variant, ranks %lld of %zu fitting points "
                    "(%.1f%% slower than the best):\n",
                    static_cast<long long>(faster) + 1, steps.size(),
                    100.0 * (ratio(megatron->estimate.step, plan.top.front().estimate.step) - 1.0));
        print_row(static_cast<long long>(faster) + 1, *megatron);
    }
}
