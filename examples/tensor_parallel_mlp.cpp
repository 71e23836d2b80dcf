// Megatron's tensor-parallel MLP, Y = GeLU(X·A)·B on t GPUs (shared reference
// tensor-parallel-mlp.txt): A is split by columns, so GeLU runs on each GPU's
// slice with no sync; B by rows, so each GPU holds a partial sum of Y. The g
// operator all-reduces Y forward (identity backward); f is identity forward and
// all-reduces dL/dX backward. Attention has the same shape: 4 all-reduces per
// layer per training step (2 forward, 2 backward).
#include <napkin/io/lesson_args.hpp>

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/training.hpp>

#include <cstdio>

using namespace napkin;

int main(int argc, char** argv) {
    napkin::examples::lesson_args(argc, argv, "tensor_parallel_mlp",
                                  "Megatron's tensor-parallel MLP: the all-reduces and their time", false);
    const TransformerShape& model = catalog::gpt3_175b;
    const Parallelism par{.tp = 8, .micro_batch = 1, .global_batch = 1, .sequence = 2048};
    const Cluster node = cluster_of(catalog::dgx_a100, 1);
    const Link link = link_for(tensor_group(par, node), node);

    const Bytes y = hidden_states_bytes(model, par);  // b·s·h values of Y (and of dL/dX)
    const CollectiveTime one = ring_all_reduce(y, par.tp, link, nccl::ring_ll_base_latency);
    std::printf("%s, t = %lld on %s: each GPU holds A[:, %lld cols] and B[%lld rows, :]\n",
                std::string(model.name).c_str(), par.tp, std::string(link.name).c_str(), model.ffn / par.tp,
                model.ffn / par.tp);
    std::printf("per MLP block: 1 all-reduce forward (g), 1 backward (f), %s each\n", to_string(y).c_str());
    std::printf("per layer and micro-batch: 4 all-reduces, %s, %s\n", to_string(4.0 * y).c_str(),
                to_string(4.0 * one.total()).c_str());
    std::printf("one all-reduce: %s latency + %s bandwidth\n", to_string(one.latency).c_str(),
                to_string(one.bandwidth).c_str());
    const Seconds tp = tp_time_per_microbatch(model, par, node, default_training_options);
    std::printf("all %lld layers, one micro-batch: %lld all-reduces, %s\n", model.layers, 4 * model.layers,
                to_string(tp).c_str());
}
