// napkin/memory.hpp: training memory per GPU.
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/memory.hpp>
#include <napkin/training.hpp>
#include <napkin/validation/measured_runs.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace napkin;

namespace {
// A GiB value rounded to the digits a figure prints.
double printed(Bytes b, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::round(in(b, units::GiB) * scale) / scale;
}

// Korthikanti et al. 2022, Table 3 / Fig. 1 layouts: s = 2048.
Parallelism figure1(long long tp, long long pp, long long v, long long b) {
    return Parallelism{.tp = tp, .pp = pp, .dp = 1, .virtual_stages = v, .micro_batch = b,
                       .global_batch = b * pp * 4, .sequence = 2048};
}
Parallelism sp_selective(Parallelism par) {
    par.sequence_parallel = true;
    par.recompute = Recompute::selective;
    return par;
}
}  // namespace

TEST_SUITE("memory") {
    TEST_CASE("Korthikanti Fig. 1: first-stage activations, no recomputation and SP + selective") {
        const auto p22 = figure1(8, 1, 1, 4), p175 = figure1(8, 8, 3, 1), p530 = figure1(8, 35, 3, 1),
                   p1t = figure1(8, 64, 1, 1);
        // 22B by hand: sbh = 2048·4·6144; (10 + 24/8 + 5·64·2048/(6144·8)) · sbh · 48 layers = 59.25 GiB.
        CHECK(printed(activation_memory(catalog::megatron_22b, p22), 2) == 59.25);
        CHECK(printed(activation_memory(catalog::megatron_22b, sp_selective(p22)), 4) == 9.5625);
        CHECK(printed(activation_memory(catalog::gpt3_175b, p175), 2) == 66.84);
        CHECK(printed(activation_memory(catalog::gpt3_175b, sp_selective(p175)), 2) == 12.35);
        CHECK(printed(activation_memory(catalog::turing_nlg_530b, p530), 2) == 114.02);
        CHECK(printed(activation_memory(catalog::turing_nlg_530b, sp_selective(p530)), 2) == 23.08);
        CHECK(printed(activation_memory(catalog::megatron_1t, p1t), 2) == 131.25);
        CHECK(printed(activation_memory(catalog::megatron_1t, sp_selective(p1t)), 2) == 26.56);
    }

    TEST_CASE("Korthikanti Fig. 1: 18 bytes per parameter of 12·L·h²/(t·p)") {
        Parallelism megatron{.gradients = DType::fp32};  // 2 + 4 + 4 + 8 = 18 bytes
        const auto figure = [&](const TransformerShape& m, double tp_pp) {
            return in(model_states(12.0 * count(m.layers) * count(m.hidden) * count(m.hidden) / tp_pp, 1, megatron)
                          .total(),
                      units::GiB);
        };
        CHECK(figure(catalog::megatron_22b, 8) == doctest::Approx(45.5625).epsilon(1e-12));
        CHECK(figure(catalog::gpt3_175b, 64) == doctest::Approx(45.5625).epsilon(1e-12));
        CHECK(std::round(figure(catalog::turing_nlg_530b, 280) * 100) / 100 == 31.64);
        CHECK(std::round(figure(catalog::megatron_1t, 512) * 100) / 100 == 32.96);
    }

    TEST_CASE("the library's most loaded stage adds norms, biases and the embedding to Fig. 1's count") {
        Parallelism par = figure1(8, 1, 1, 4);
        par.gradients = DType::fp32;
        // 22B by hand: layer 12h² + 13h = 453,064,704; × 48 / 8 = 2,718,388,224; embedding
        // 51,200·6,144/8 = 39,321,600; positions 2,048·6,144 = 12,582,912; final LayerNorm 12,288:
        // 2,770,305,024 weights × 18 bytes = 49,865,490,432 bytes (46.44 GiB, +1.9 % on 45.5625).
        CHECK(parameters_per_gpu(catalog::megatron_22b, par).dense == 2'770'305'024.0);
        CHECK(training_memory(catalog::megatron_22b, par).states().value() == 49'865'490'432.0);
        // 1T at t8 p64: 2 layers per stage, so the first stage's embedding weighs most: +11 %.
        Parallelism p1t = figure1(8, 64, 1, 1);
        p1t.gradients = DType::fp32;
        const double fig = 12.0 * 128 * 25600.0 * 25600.0 / 512 * 18;
        const double ratio = training_memory(catalog::megatron_1t, p1t).states().value() / fig;
        CHECK(ratio > 1.10);
        CHECK(ratio < 1.12);
    }

    TEST_CASE("ZeRO Table 1: 7.5B parameters, K = 12, 64 GPUs") {
        const double psi = 7.5e9;
        Parallelism par;  // 2 + 2 + 12 bytes
        CHECK(in(model_states(psi, 64, par).total(), units::GB) == doctest::Approx(120.0));
        par.sharding = Sharding::zero1;  // 4Ψ + 12Ψ/64 = 30 + 1.406 GB
        CHECK(in(model_states(psi, 64, par).total(), units::GB) == doctest::Approx(31.40625));
        par.sharding = Sharding::zero2;  // 2Ψ + 14Ψ/64 = 15 + 1.641 GB
        CHECK(in(model_states(psi, 64, par).total(), units::GB) == doctest::Approx(16.640625));
        par.sharding = Sharding::zero3;  // 16Ψ/64
        CHECK(in(model_states(psi, 64, par).total(), units::GB) == doctest::Approx(1.875));
    }

    TEST_CASE("Megatron's distributed optimizer: 6 + 12/d bytes per parameter") {
        const Parallelism par{.sharding = Sharding::distributed, .gradients = DType::fp32};
        CHECK(model_states(1.0, 8, par).total().value() == doctest::Approx(6.0 + 12.0 / 8));
        CHECK(model_states(1.0, 1, par).total().value() == doctest::Approx(18.0));
        // The 16- and 20-byte conventions: pure fp32 Adam (4 + 4 + 0 + 8), and a separate
        // fp32 master copy next to fp32 weights (4 + 4 + 4 + 8).
        CHECK(model_states(1.0, 1, Parallelism{.weights = DType::fp32, .gradients = DType::fp32,
                                               .master = DType::none}).total().value() == 16.0);
        CHECK(model_states(1.0, 1, Parallelism{.weights = DType::fp32, .gradients = DType::fp32})
                  .total().value() == 20.0);
    }

    TEST_CASE("Table 2 per layer: the recomputation variants and flash attention") {
        // GPT-3 175B, s 2048, b 1, t 8: sbh = 25,165,824; 5as/h = 5·96·2048/12288 = 80.
        const double sbh = 2048.0 * 12288.0;
        Parallelism par{.tp = 8, .global_batch = 1, .sequence = 2048};
        const auto layer = [&] { return activation_bytes_per_layer(catalog::gpt3_175b, par).value(); };
        CHECK(layer() == doctest::Approx(sbh * (10 + 24.0 / 8 + 80.0 / 8)));
        par.recompute = Recompute::selective;
        CHECK(layer() == doctest::Approx(sbh * (10 + 24.0 / 8)));
        par.recompute = Recompute::none;
        par.flash_attention = true;  // no s×s scores kept: the same as selective
        CHECK(layer() == doctest::Approx(sbh * (10 + 24.0 / 8)));
        par.flash_attention = false;
        par.sequence_parallel = true;
        CHECK(layer() == doctest::Approx(sbh / 8 * (34 + 80.0)));
        par.recompute = Recompute::full;
        CHECK(layer() == doctest::Approx(2 * sbh / 8));
        par.sequence_parallel = false;
        CHECK(layer() == doctest::Approx(2 * sbh));
        // No parallelism at all: sbh·(34 + 5as/h).
        CHECK(activation_bytes_per_layer(catalog::gpt3_175b, Parallelism{.global_batch = 1, .sequence = 2048})
                  .value() == doctest::Approx(sbh * (34 + 80.0)));
    }

    TEST_CASE("layers in flight on the first stage") {
        const TransformerShape& m = catalog::gpt3_175b;  // 96 layers
        // 1F1B, m ≥ p: p micro-batches × L/p layers = L.
        CHECK(layers_in_flight(m, Parallelism{.pp = 8, .global_batch = 64}) == 96.0);
        // Fewer micro-batches than stages: 3 × 96/8 = 36.
        CHECK(layers_in_flight(m, Parallelism{.pp = 8, .global_batch = 3}) == 36.0);
        // Interleaved, v = 3: L·(1 + (p − 1)/(p·v)) = 96 · 31/24 = 124.
        CHECK(layers_in_flight(m, Parallelism{.pp = 8, .virtual_stages = 3, .global_batch = 64}) == 124.0);
        // No pipeline: one micro-batch at a time through all layers.
        CHECK(layers_in_flight(m, Parallelism{.global_batch = 64}) == 96.0);
    }

    TEST_CASE("layers in flight and parameter copies of the other schedules (pipeline.hpp's multipliers)") {
        const TransformerShape& m = catalog::gpt3_175b;  // 96 layers, p = 8: 12 per stage, m = 64
        const auto with = [](ScheduleKind k) { return Parallelism{.pp = 8, .schedule = k, .global_batch = 64}; };
        // GPipe keeps all m = 64 micro-batches: 64 × 12.
        CHECK(layers_in_flight(m, with(ScheduleKind::gpipe)) == 768.0);
        // ZB-H1 keeps 1F1B's p (Qi et al. 2023, Sec. 3.1): 8 × 12; ZB-H2 2p − 1 = 15: 15 × 12.
        CHECK(layers_in_flight(m, with(ScheduleKind::zero_bubble_h1)) == 96.0);
        CHECK(layers_in_flight(m, with(ScheduleKind::zero_bubble_h2)) == 180.0);
        // DualPipe p + 1 = 9 (DeepSeek-V3's table): 9 × 12; DualPipeV 2p + 1 = 17 half-rank stages: 8.5 × 12.
        CHECK(layers_in_flight(m, with(ScheduleKind::dualpipe)) == 108.0);
        CHECK(layers_in_flight(m, with(ScheduleKind::dualpipev)) == 102.0);
        // DualPipe holds two stages' weights per rank, DualPipeV one rank's share as 1F1B.
        const double one = parameters_per_gpu(m, with(ScheduleKind::one_f_one_b)).total();
        CHECK(parameters_per_gpu(m, with(ScheduleKind::dualpipe)).total() == 2.0 * one);
        CHECK(parameters_per_gpu(m, with(ScheduleKind::dualpipev)).total() == one);
        CHECK(training_memory(m, with(ScheduleKind::dualpipe)).states() ==
              2.0 * training_memory(m, with(ScheduleKind::one_f_one_b)).states());
    }

    TEST_CASE("fits against the usable memory") {
        const Parallelism par = figure1(8, 1, 1, 4);
        const TrainingMemory mem = training_memory(catalog::megatron_22b, par);
        CHECK(mem.total() == mem.weights + mem.gradients + mem.optimizer + mem.activations);
        Gpu big = catalog::a100_80gb_sxm;
        big.memory = gibibytes(1000);
        CHECK(fits(mem, big));
        CHECK_FALSE(fits(mem, catalog::a100_80gb_sxm));  // 59 GiB of activations + 41 GiB of states
    }

    TEST_CASE("the allowances are separate parts: zeroed, the papers' model is unchanged") {
        const Parallelism par = figure1(8, 1, 1, 4);
        const TrainingMemory bare = training_memory(catalog::megatron_22b, par);
        const TrainingMemory zeroed = training_memory(catalog::megatron_22b, par,
                                                      parameters_per_gpu(catalog::megatron_22b, par),
                                                      no_memory_allowances);
        CHECK(zeroed.total() == bare.total());
        CHECK(bare.allowances() == Bytes{});
        const TrainingMemory real = training_memory(catalog::megatron_22b, par,
                                                    parameters_per_gpu(catalog::megatron_22b, par),
                                                    default_memory_allowances);
        CHECK(real.states() == bare.states());
        CHECK(real.activations == bare.activations);
        CHECK(real.total() == bare.total() + real.allowances());
    }

    TEST_CASE("NCCL buffers: 4,194,304 + 4,915,200 + 524,288 B per channel, 32 channels per communicator") {
        // NCCL defaults: Simple 1 << 22; LL128 120 · 640 · 8 steps · 8 B; LL 8 · 512 · 8 steps · 16 B.
        CHECK(nccl_buffers_per_channel == bytes(9'633'792));
        // t8 d4: two communicators (TP and DP) × 32 channels × 9,633,792 B = 616,562,688 B.
        Parallelism par = figure1(8, 1, 1, 4);
        par.dp = 4;
        CHECK(nccl_buffer_memory(par, default_memory_allowances) == bytes(616'562'688));
        // t8 p2 d4 c2 e2... one per dimension wider than one GPU: five.
        CHECK(communicators(Parallelism{.tp = 2, .pp = 2, .dp = 4, .ep = 2, .cp = 2}) == 5.0);
        CHECK(communicators(Parallelism{}) == 0.0);
    }

    TEST_CASE("fp32 logits: b·s·V/t·4 bytes on a single stage, none when the last stage is not the first") {
        const MemoryAllowances a = default_memory_allowances;
        // 22B, t8 b4 s2048, V = 51,200: 4 · 2048 · 6,400 · 4 B = 209,715,200 B = 200 MiB.
        CHECK(loss_logits_memory(catalog::megatron_22b, figure1(8, 1, 1, 4), a) == mebibytes(200));
        CHECK(loss_logits_memory(catalog::megatron_22b, figure1(8, 2, 1, 4), a) == Bytes{});
        MemoryAllowances off = a;
        off.loss_logits = false;
        CHECK(loss_logits_memory(catalog::megatron_22b, figure1(8, 1, 1, 4), off) == Bytes{});
    }

    TEST_CASE("fragmentation is a share of the activations — the CUDA context a fixed allowance") {
        const Parallelism par = figure1(8, 1, 1, 4);
        MemoryAllowances a = no_memory_allowances;
        a.fragmentation = 0.1;
        a.cuda_context = mebibytes(544);
        const TrainingMemory mem =
            training_memory(catalog::megatron_22b, par, parameters_per_gpu(catalog::megatron_22b, par), a);
        CHECK(mem.fragmentation == 0.1 * mem.activations);
        CHECK(mem.cuda_context == mebibytes(544));
        CHECK(default_memory_allowances.cuda_context == mebibytes(512 + 32));
        a.cuda_context = bytes(-1);
        CHECK_THROWS_WITH_AS((void)training_memory(catalog::megatron_22b, par,
                                                   parameters_per_gpu(catalog::megatron_22b, par), a),
                             doctest::Contains("MemoryAllowances.cuda_context"), invalid_argument);
    }

    TEST_CASE("every published run that ran fits its GPU with the allowances counted") {
        // The llm-foundry and Megatron-LM rows of validation/measured_runs.hpp completed, so
        // states + activations + context + NCCL + fp32 logits stay within the usable memory.
        // The tightest: MPT-1B on H100, b = 20 without recomputation (64 GiB of activations,
        // 7.7 GiB of logits: 20 · 2048 · 50,368 · 4 B).
        for (const MeasuredRun& run : catalog::published_runs) {
            const TrainingEstimate e = evaluate_training(run.model, run.cluster, run.layout, run.options);
            INFO(run.label);
            CHECK(e.fits);
            CHECK(e.memory.allowances() > Bytes{});
        }
    }
}
