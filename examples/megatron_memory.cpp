// Korthikanti et al. 2022, Fig. 1: memory per GPU of four GPT models on
// A100s, activations of the first pipeline stage without recomputation and
// with sequence parallelism + selective recomputation, and the model states
// at 18 bytes per parameter. Then the four recomputation variants side by side.
#include <napkin/io/lesson_args.hpp>

#include <napkin/catalog/models.hpp>
#include <napkin/memory.hpp>

#include <cstdio>

using namespace napkin;

namespace {
struct Figure1Model {
    const TransformerShape* model;
    long long tp, pp, v, micro_batch;
};

Parallelism layout(const Figure1Model& f) {
    // fp32 gradients: Megatron's 2 + 4 + 4 + 8 = 18 bytes per parameter.
    return Parallelism{.tp = f.tp, .pp = f.pp, .dp = 1, .virtual_stages = f.v, .micro_batch = f.micro_batch,
                       .global_batch = f.micro_batch * f.pp * 4, .sequence = 2048, .gradients = DType::fp32};
}
}  // namespace

int main(int argc, char** argv) {
    napkin::examples::lesson_args(argc, argv, "megatron_memory",
                                  "activation memory per GPU against Korthikanti et al. 2022, Fig. 1", false);
    constexpr Figure1Model rows[] = {{&catalog::megatron_22b, 8, 1, 1, 4},
                                     {&catalog::gpt3_175b, 8, 8, 3, 1},
                                     {&catalog::turing_nlg_530b, 8, 35, 3, 1},
                                     {&catalog::megatron_1t, 8, 64, 1, 1}};
    std::printf("Korthikanti Fig. 1 (GiB per GPU, first stage)\n%-16s %12s %12s %12s %14s\n", "model",
                "no recompute", "SP+selective", "states", "Fig. 1 states");
    for (const auto& row : rows) {
        const TransformerShape& m = *row.model;
        Parallelism par = layout(row);
        const double plain = in(activation_memory(m, par), units::GiB);
        par.sequence_parallel = true;
        par.recompute = Recompute::selective;
        const double sp_selective = in(activation_memory(m, par), units::GiB);
        const double states = in(training_memory(m, par).states(), units::GiB);
        // The figure's 12·L·h²/(t·p) weights, without embeddings.
        const double figure = in(model_states(12.0 * count(m.layers) * count(m.hidden) * count(m.hidden) /
                                                  count(row.tp * row.pp), 1, par).total(), units::GiB);
        std::printf("%-16s %12.2f %12.2f %12.2f %14.2f\n", std::string(m.name).c_str(), plain, sp_selective, states,
                    figure);
    }

    std::printf("\nGPT-3 175B, t8 p8 v3, b1, activations per GPU by recomputation (GiB)\n");
    struct Variant {
        const char* name;
        bool sp;
        Recompute recompute;
    };
    constexpr Variant variants[] = {{"none", false, Recompute::none},
                                    {"selective", false, Recompute::selective},
                                    {"SP + selective", true, Recompute::selective},
                                    {"full", false, Recompute::full}};
    for (const auto& v : variants) {
        Parallelism par = layout(rows[1]);
        par.sequence_parallel = v.sp;
        par.recompute = v.recompute;
        std::printf("  %-16s %8.2f\n", v.name, in(activation_memory(catalog::gpt3_175b, par), units::GiB));
    }
}
