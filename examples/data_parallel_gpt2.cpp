// The same GPT-2 global batch on one GPU and on eight (shared reference
// gpt2-batch-one-vs-eight-gpus.d2): 512 sequences × 1,024 tokens, 16 sequences
// per micro-step. One A100 runs 32 micro-steps in a row and adds the
// gradients; eight run 4 waves of 128 sequences, then average the gradients
// with one all-reduce. Both make one optimizer update on the same batch.
#include <napkin/io/lesson_args.hpp>

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/training.hpp>

#include <cstdio>

using namespace napkin;

namespace {
void show(const char* title, const TransformerShape& model, const Cluster& cluster, const Parallelism& par) {
    const TrainingEstimate e = evaluate_training(model, cluster, par);
    std::printf("%s: %lld micro-steps of %lld sequences per GPU\n", title, microbatches(par), par.micro_batch);
    std::printf("  compute %s, gradient all-reduce %s, optimizer %s -> step %s, %.0f tokens/s\n",
                to_string(e.breakdown.compute).c_str(), to_string(e.breakdown.dp).c_str(),
                to_string(e.breakdown.optimizer).c_str(), to_string(e.step).c_str(), e.tokens_per_second.value());
}
}  // namespace

int main(int argc, char** argv) {
    napkin::examples::lesson_args(argc, argv, "data_parallel_gpt2",
                                  "data-parallel GPT-2 small: the gradient sync against the step", false);
    const TransformerShape& model = catalog::gpt2_small;
    constexpr long long global_batch = 512, micro_batch = 16, sequence = 1024;
    std::printf("%s, global batch %lld x %lld = %lld tokens\n", std::string(model.name).c_str(), global_batch, sequence,
                global_batch * sequence);

    Node one_gpu = catalog::dgx_a100;  // a DGX A100 with only one of its GPUs in use
    one_gpu.gpus = 1;
    show("one A100", model, cluster_of(one_gpu, 1),
         Parallelism{.dp = 1, .micro_batch = micro_batch, .global_batch = global_batch, .sequence = sequence});
    show("eight A100s (DDP)", model, cluster_of(catalog::dgx_a100, 1),
         Parallelism{.dp = 8, .micro_batch = micro_batch, .global_batch = global_batch, .sequence = sequence});
}
