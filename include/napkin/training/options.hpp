// SPDX-License-Identifier: MIT
// napkin/training/options.hpp — what a training estimate is asked and what it
// answers: TrainingOptions (the knobs beside the layout), StepBreakdown (the
// step's parts, which add up to it) and TrainingEstimate. Part of
// napkin/training.hpp.
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/compute.hpp>
#include <napkin/error.hpp>
#include <napkin/gemm.hpp>
#include <napkin/hardware.hpp>
#include <napkin/kernels/gemm_ceiling.hpp>
#include <napkin/layer_map.hpp>
#include <napkin/memory.hpp>
#include <napkin/model.hpp>
#include <napkin/names.hpp>
#include <napkin/optimizer.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace napkin {

/// How the tensor-parallel f and g operators communicate (Korthikanti et al.
/// 2022, Sec. 4.2.2): one all-reduce, or a reduce-scatter then an all-gather of
/// the same buffer. Both move 2(n − 1)/n of it over 2(n − 1) ring steps; the
/// second is two NCCL calls, so it pays the base latency twice. Sequence
/// parallelism needs the second (the sequence-split region sits between the
/// two halves); `automatic` picks it with sequence parallelism and the
/// all-reduce without.
enum class TpCommunication { automatic, all_reduce, reduce_scatter_all_gather };

/// Each way's name, as to_string writes it and parse_tp_communication reads it: "auto", "all-reduce", "rs-ag".
inline constexpr std::array tp_communication_names{Named{TpCommunication::automatic, "auto"},
                                                  Named{TpCommunication::all_reduce, "all-reduce"},
                                                  Named{TpCommunication::reduce_scatter_all_gather, "rs-ag"}};
/// The way's name: "auto", "all-reduce" or "rs-ag".
[[nodiscard]] constexpr std::string_view to_string(TpCommunication c) { return name_of(c, tp_communication_names); }
/// The way named `text`, or nothing if none has that name.
[[nodiscard]] constexpr std::optional<TpCommunication> parse_tp_communication(std::string_view text) {
    return value_of(text, tp_communication_names);
}

/// How the matrix work is priced: the GEMM model (napkin/gemm.hpp: every
/// GEMM from its shape, quantization, roofline, a share per GPU generation),
/// or the flat model (compute.hpp: one share of peak for every GEMM, the
/// EfficiencyModel of --peak-share, --half-width, --memory-passes). A GPU
/// without the GEMM model's facts (SM count, architecture) runs the flat model.
enum class ComputeModel { gemm, flat };

/// The compute model's name: "gemm" or "flat".
[[nodiscard]] constexpr std::string_view to_string(ComputeModel c) { return c == ComputeModel::gemm ? "gemm" : "flat"; }

/// The knobs of a training estimate beside the layout: the compute model and its parameters, precision,
/// overlaps, collectives, memory allowances, optimizer, layer map and framework.
struct TrainingOptions {
    EfficiencyModel efficiency = default_efficiency;  // the flat model's parameters
    ComputeModel compute_model = ComputeModel::gemm;
    EfficiencyProfile profile = default_profile;      // the GEMM model's fitted parameters
    // The GEMMs' precision: bf16/fp16 at the 16-bit tensor peak, fp8 at the FP8
    // peak (Transformer Engine; its casts to FP8 counted as element-wise traffic).
    DType compute_dtype = DType::bf16;
    // Megatron-Core's --tp-comm-overlap (Transformer Engine userbuffers): the
    // tensor-parallel collectives run in chunks under the neighbouring GEMMs;
    // only what exceeds the layer's linear-layer GEMM time shows.
    bool overlap_tp = false;
    // Megatron's --overlap-param-gather with the distributed optimizer: the
    // parameter all-gather runs under the first micro-batch's forward.
    bool overlap_param_gather = false;
    // FSDP / ZeRO-3 prefetch (PyTorch FSDP's backward_prefetch and the
    // all-gathers issued ahead on their own stream): each layer's weight
    // all-gather and gradient reduce-scatter run under the neighbouring
    // layer's compute; only what exceeds it shows.
    bool fsdp_prefetch = true;
    // PyTorch's non-reentrant activation checkpointing (torch.utils.checkpoint
    // with use_reentrant=False; FSDP's apply_activation_checkpointing) stops
    // the replay as soon as every tensor the backward needs is recomputed
    // (set_checkpoint_early_stop, on by default since PyTorch 2.1). The last
    // saved tensor of a dense layer is the input of its MLP down projection,
    // saved before that GEMM runs: under full recomputation the down
    // projection is not replayed. (MoE layers replay in full: the combine
    // after the experts keeps their outputs.) Megatron's own recomputation
    // replays the whole layer (false).
    bool recompute_early_stop = false;
    // NCCL's per-call base latency (src/graph/tuning.cc, ring LL: 6.6 µs).
    Seconds collective_base_latency = nccl::ring_ll_base_latency;
    // Count FLOPs of the attention core for a causal kernel that skips masked
    // blocks (false: the full square, as Narayanan et al. count them).
    bool causal = false;
    // Megatron's scatter/gather optimisation (Narayanan et al. Sec. 4.1): a
    // stage sends b·s·h/t per boundary instead of b·s·h.
    bool pipeline_scatter_gather = true;
    // Overlap the data-parallel gradient synchronisation with the last
    // micro-batch's backward pass (Megatron's --overlap-grad-reduce).
    bool overlap_dp = false;
    TpCommunication tp_communication = TpCommunication::automatic;
    // The format the gradients travel in through the data-parallel
    // collectives; none: the gradients' own (Parallelism::gradients).
    // Megatron-LM with --fp16 and without --accumulate-allreduce-grads-in-fp32
    // all-reduces the 16-bit gradients (megatron/arguments.py).
    DType gradient_reduce_dtype = DType::none;
    // What a real run holds besides model states and activations (memory.hpp).
    MemoryAllowances memory_allowances = default_memory_allowances;
    // The optimizer (napkin/optimizer.hpp): Adam's two moments, or Muon's one
    // momentum buffer on the weight matrices and its Newton–Schulz iterations.
    Optimizer optimizer = Optimizer::adam;
    // An uneven pipeline (napkin/layer_map.hpp): the layers each stage and
    // chunk holds; null: L/(p·v) layers in every chunk. Not owned: it must
    // outlive the call.
    const LayerMap* layer_map = nullptr;
    // An eager PyTorch framework (FSDP under Composer): each layer's forward
    // and backward pay EfficiencyProfile::eager_layer_overhead_ms per
    // micro-batch on top of their kernels (compiled Megatron-LM, NeMo: false).
    bool eager_framework = false;
    // SMs the communication kernels hold while a collective runs under
    // compute (DeepSeek-V3 technical report, Sec. 3.2.2: 20 of H800's 132 SMs
    // keep both InfiniBand and NVLink busy); the overlapped compute runs on the
    // rest (step.hpp's communication_sm_share). 0: overlap is free.
    long long communication_sms = 20;
};

/// The defaults of every option (TrainingOptions{}).
inline constexpr TrainingOptions default_training_options{};

/// Full recomputation replays every layer's forward pass inside the backward
/// (Korthikanti et al. 2022, Sec. 5), so its collectives run once more too.
[[nodiscard]] constexpr bool full_recompute_replays(const Parallelism& par) { return par.recompute == Recompute::full; }
/// A layer's forward passes per micro-batch: 2 with full recomputation, else 1.
[[nodiscard]] constexpr double forward_passes(const Parallelism& par) { return full_recompute_replays(par) ? 2.0 : 1.0; }
/// Tensor- (or expert-) parallel collectives per layer per micro-batch: two in
/// each forward pass and two in the backward (Megatron's f and g): 4, or 6.
[[nodiscard]] constexpr double collectives_per_layer(const Parallelism& par) { return 2.0 * forward_passes(par) + 2.0; }

/// Bytes per gradient in the data-parallel collectives.
[[nodiscard]] constexpr double gradient_reduce_bytes(const Parallelism& par, const TrainingOptions& o) {
    const DType d = o.gradient_reduce_dtype;
    if (d != DType::none && d != DType::bf16 && d != DType::fp16 && d != DType::fp32)
        reject("TrainingOptions.gradient_reduce_dtype", to_string(d), "must be bf16, fp16 or fp32");
    return bytes_of(d == DType::none ? par.gradients : d);
}

/// Whether full recomputation skips the layer's MLP down projection
/// (TrainingOptions::recompute_early_stop): dense layers only.
[[nodiscard]] constexpr bool skips_down_projection(const TransformerShape& layer, const Parallelism& par,
                                                   const TrainingOptions& o) {
    return o.recompute_early_stop && full_recompute_replays(par) && layer.experts == 0;
}

/// The FLOPs that early stop leaves out of one sequence's replay: the down
/// projection's forward, 2·s·h·f, in every dense layer.
[[nodiscard]] constexpr Flops skipped_recompute_flops_per_sequence(const TransformerShape& m, const Parallelism& par,
                                                                   const TrainingOptions& o) {
    if (!o.recompute_early_stop || !full_recompute_replays(par)) return Flops{};
    const long long dense = m.layers - moe_layers(m);
    return flops(2.0 * count(dense) * count(par.sequence) * count(m.hidden) * count(m.ffn));
}

/// The collectives the layout's TP really uses: `automatic` resolves to reduce-scatter + all-gather with
/// sequence parallelism and to the all-reduce without.
[[nodiscard]] constexpr TpCommunication resolved_tp_communication(const Parallelism& par, const TrainingOptions& o) {
    if (o.tp_communication != TpCommunication::automatic) return o.tp_communication;
    return par.sequence_parallel ? TpCommunication::reduce_scatter_all_gather : TpCommunication::all_reduce;
}

/// Where one iteration's time goes, on the slowest pipeline stage.
struct StepBreakdown {
    Seconds compute;    // forward and backward of every micro-batch (matrix and element-wise work)
    Seconds recompute;  // the forward work recomputation replays
    Seconds tp;         // tensor-parallel all-reduces (or reduce-scatter + all-gather)
    Seconds pp;         // activations and gradients sent between stages
    Seconds bubble;     // pipeline fill and drain
    Seconds dp;         // gradient synchronisation not hidden behind compute
    Seconds ep;         // expert-parallel all-to-alls
    Seconds cp;         // context-parallel K/V exchange not hidden behind attention
    Seconds optimizer;  // the Adam update
    [[nodiscard]] constexpr Seconds total() const {
        return compute + recompute + tp + pp + bubble + dp + ep + cp + optimizer;
    }
};

/// What a training estimate answers: memory per GPU and whether it fits, the step and its breakdown,
/// throughput in tokens per second, MFU and HFU, and the FLOPs per iteration.
struct TrainingEstimate {
    TrainingMemory memory;
    bool fits = false;
    StepBreakdown breakdown;
    Seconds step;
    TokensPerSecond tokens_per_second;
    double mfu = 0.0;  // against the 16-bit (BF16) tensor peak, whatever the GEMMs' precision
    double hfu = 0.0;
    // MFU stated against both peaks: the BF16 one (= mfu) and, on a GPU with
    // FP8 tensor cores, the FP8 one (half of it on NVIDIA's dense data sheets;
    // 0 without FP8). An FP8 run's MFU is quoted against either in the
    // literature (NeMo's FP8 recipes against the BF16 peak), so both are labelled.
    double mfu_bf16_peak = 0.0;
    double mfu_fp8_peak = 0.0;
    Flops model_flops;     // per iteration, all GPUs
    Flops hardware_flops;  // the same with recomputation
    ComputeModel compute_model = ComputeModel::gemm;  // the model that priced the matrix work
};

}  // namespace napkin
