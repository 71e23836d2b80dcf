// SPDX-License-Identifier: MIT
// napkin/memory.hpp — memory per GPU while training: model states (weights,
// gradients, optimizer) with ZeRO or Megatron's distributed optimizer, and
// activations after Korthikanti et al. 2022, on the most loaded pipeline stage,
// and the memory a real run holds beside them (MemoryAllowances: the CUDA
// context, NCCL's buffers, the fp32 logits, the allocator's fragmentation).
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/units.hpp>

#include <algorithm>

namespace napkin {

// ---------------------------------------------------------------------------
// Model states

/// The model states one GPU holds, in bytes: weights, gradients and the optimizer's states.
struct ModelStates {
    Bytes weights;
    Bytes gradients;
    Bytes optimizer;  // master weights and the two Adam moments
    [[nodiscard]] constexpr Bytes total() const { return weights + gradients + optimizer; }
};

/// Bytes per parameter of each state before sharding: weights, gradients, and
/// the optimizer's master copy plus Adam's two moments (Kingma & Ba 2015).
/// Defaults: 2 + 2 + (4 + 4 + 4) = 16, ZeRO's K = 12 (Rajbhandari et al. Sec. 3.1).
[[nodiscard]] constexpr double optimizer_bytes_per_parameter(const Parallelism& par) {
    return bytes_of(par.master) + 2.0 * bytes_of(par.moments);
}

/// `parameters` weights kept by one model-parallel rank, their states shared
/// over `shards` data-parallel ranks (ZeRO, Rajbhandari et al. SC'20, Sec. 5.1):
///   none         (w + g + K)·Ψ
///   P_os         (w + g)·Ψ + K·Ψ/N        (and Megatron's distributed optimizer: 6 + 12/d with fp32 gradients)
///   P_os+g       w·Ψ + (g + K)·Ψ/N
///   P_os+g+p     (w + g + K)·Ψ/N
[[nodiscard]] constexpr ModelStates model_states(double parameters, long long shards, const Parallelism& par) {
    require_non_negative("parameters", parameters);
    require_at_least_one("shards", shards);
    const double n = count(shards);
    const double psi = parameters;
    const bool shard_optimizer = par.sharding != Sharding::none;
    const bool shard_gradients = par.sharding == Sharding::zero2 || par.sharding == Sharding::zero3;
    const bool shard_weights = par.sharding == Sharding::zero3;
    return {bytes(bytes_of(par.weights) * psi / (shard_weights ? n : 1.0)),
            bytes(bytes_of(par.gradients) * psi / (shard_gradients ? n : 1.0)),
            bytes(optimizer_bytes_per_parameter(par) * psi / (shard_optimizer ? n : 1.0))};
}

// ---------------------------------------------------------------------------
// Parameters on one GPU

/// Weights one GPU keeps for its share of the most loaded pipeline stage,
/// split into those all data-parallel ranks share (dense) and the experts.
struct StageParameters {
    double dense = 0.0;
    double expert = 0.0;
    [[nodiscard]] constexpr double total() const { return dense + expert; }
};

namespace detail {
/// Expert feed-forward weights of one layer (0 for a dense model).
[[nodiscard]] constexpr double layer_expert_weights(const TransformerShape& m) {
    return m.experts == 0 ? 0.0 : count(m.experts * feed_forward_weights(m, m.expert_ffn));
}
}  // namespace detail

/// Megatron-LM's split (Shoeybi et al. 2019, Sec. 3; Narayanan et al. 2021,
/// Sec. 2): every layer's matrices are cut t ways (norms and biases are
/// counted cut as well, under 0.1 % of a layer), each stage holds L/p layers,
/// experts are cut over ep. The word embedding is vocabulary-parallel (V·h/t)
/// on the first stage, the output layer on the last (a tied one is kept as a
/// second copy there when p > 1), learned positions whole on the first stage.
[[nodiscard]] constexpr StageParameters parameters_per_gpu(const TransformerShape& m, const Parallelism& par) {
    const double t = count(par.tp);
    const double layers = count(m.layers / par.pp);
    const double expert = detail::layer_expert_weights(m);
    const double dense_layer = count(layer_weights(m)) - expert;
    const double table = count(m.vocabulary * m.hidden) / t;
    const double positions = count(m.learned_positions * m.hidden);
    const double output = (!m.tied_embeddings || par.pp > 1) ? table : 0.0;
    const double final_norm = count(norm_weights(m));
    const double body = layers * dense_layer / t;
    const double first = body + table + positions + (par.pp == 1 ? output + final_norm : 0.0);
    const double last = body + output + final_norm;
    // DualPipe keeps two stages per rank (napkin/pipeline.hpp's parameter
    // multiplier, 2): counted as twice the most loaded one, which bounds rank
    // 0's first + last stage from above.
    const double copies = with_schedule(par, [](const auto& s) { return parameter_memory_multiplier(s); });
    return {copies * std::max(first, last), copies * layers * expert / (t * count(par.ep))};
}

// ---------------------------------------------------------------------------
// Activations (Korthikanti et al. 2022, arXiv 2205.05198)

/// Bytes of activations one layer keeps for one micro-batch, at 16 bits.
/// Sec. 4.1 counts, per layer, with s tokens, b sequences, h hidden, a heads:
///   attention 11·sbh + 5·a·s²·b, MLP 19·sbh, two LayerNorms 4·sbh
/// which Table 2 cuts by the tensor-parallel size t:
///   tensor parallel          sbh·(10 + 24/t + 5·a·s/(h·t))
///   + sequence parallel      sbh/t·(34 + 5·a·s/h)
///   + selective recompute    the 5·a·s²·b term goes (so does flash attention)
///   full recompute           2·sbh (÷ t with sequence parallelism): the layer input only.
/// The same parts are written here by what they hold, so GQA (narrower K, V)
/// and SwiGLU (gate, up, down inputs) follow; for a GPT layer they are exactly
/// Table 2. MoE: each token's MLP part is kept for each of its k experts.
/// Context parallelism keeps s/c tokens per GPU.
[[nodiscard]] constexpr Bytes activation_bytes_per_layer(const TransformerShape& m, const Parallelism& par) {
    const double t = count(par.tp);
    const double s = count(par.sequence / par.cp);
    const double b = count(par.micro_batch);
    const double h = count(m.hidden);
    const double sbh = s * b * h;
    if (par.recompute == Recompute::full) return bytes(2.0 * sbh / (par.sequence_parallel ? t : 1.0));
    const double q_width = count(m.heads * head_dim(m));
    const double kv_width = count(m.kv_heads * head_dim(m));
    // Cut by t: Q, K, V (2 bytes each), the output projection's input.
    const double attention_split = 2.0 * s * b * (2.0 * q_width + 2.0 * kv_width);
    // The attention core: softmax output (2), dropout mask (1), dropout output (2) per score.
    const bool keep_scores = par.recompute == Recompute::none && !par.flash_attention;
    const double scores = keep_scores ? 5.0 * count(m.heads) * s * count(par.sequence / par.cp) * b : 0.0;
    // Cut by t: the feed-forward inputs after the first matrix (GELU in and
    // second matrix in: 2·2·s·b·f; SwiGLU gate, up and down in: 3·2·s·b·f).
    const bool moe = m.experts > 0;
    const double f = count(moe ? m.expert_ffn : m.ffn);
    const double routed = moe ? count(m.experts_per_token) : 1.0;
    const double mlp_split = (m.feed_forward == FeedForward::gated ? 6.0 : 4.0) * s * b * f * routed;
    // Not cut by t without sequence parallelism: attention input (2) and its
    // dropout mask (1), MLP input (2) and its dropout mask (1), two LayerNorm inputs (2 + 2).
    const double replicated = 10.0 * sbh;
    const double split = (attention_split + scores + mlp_split) / t;
    return bytes(par.sequence_parallel ? (replicated / t + split) : (replicated + split));
}

/// Layers' worth of micro-batch activations the most loaded rank holds at its
/// peak: the schedule's activation multiplier (napkin/pipeline.hpp: micro-batches
/// through a whole stage, 1F1B min(m, p), interleaved Megatron's warm-up + 1 chunk
/// passes ÷ v, i.e. p·(1 + (p − 1)/(p·v)) for m ≥ p as in Korthikanti Sec. 4.2.3,
/// ZB-H2 2p − 1, DualPipe p + 1) × the L/p layers of a stage. The schedule's
/// own formula is called without its checks: the layout is validated by
/// validated() and evaluate_training, and a search bounds memory before it
/// asks whether a schedule runs at all.
[[nodiscard]] constexpr double layers_in_flight(const TransformerShape& m, const Parallelism& par) {
    const PipelineShape shape = pipeline_shape(par);
    const double multiplier = with_schedule(par, [&](const auto& s) { return s.peak_activations(shape); });
    return multiplier * count(m.layers / par.pp);
}

/// The first stage's activations at the peak.
[[nodiscard]] constexpr Bytes activation_memory(const TransformerShape& m, const Parallelism& par) {
    return layers_in_flight(m, par) * activation_bytes_per_layer(m, par);
}

// ---------------------------------------------------------------------------
// Memory a real run holds beyond model states and activations

/// NCCL's receive buffers per channel and peer, one per protocol, at NCCL's
/// defaults (src/include/device.h and src/init.cc, NCCL 2.18–2.21):
/// Simple NCCL_BUFFSIZE = 1 << 22 = 4,194,304 B; LL128 NCCL_LL128_ELEMS_PER_THREAD
/// 120 × NCCL_LL128_MAX_NTHREADS 640 × NCCL_STEPS 8 × 8 B = 4,915,200 B; LL
/// NCCL_LL_LINES_PER_THREAD 8 × NCCL_LL_MAX_NTHREADS 512 × NCCL_STEPS 8 × 16 B
/// = 524,288 B. Together 9,633,792 B.
inline constexpr Bytes nccl_buffers_per_channel = bytes(4'194'304.0 + 4'915'200.0 + 524'288.0);
/// NCCL's channel limit (MAXCHANNELS = 32, src/include/device.h): a ring or
/// tree communicator on NVLink/InfiniBand opens up to 32 channels.
inline constexpr double nccl_max_channels = 32.0;

/// What a training process holds besides the model states and the activations
/// of Korthikanti et al. — each a named part of TrainingMemory, each with a
/// documented default a caller can zero (MemoryAllowances{} with every field
/// 0/false is the bare model of the papers).
struct MemoryAllowances {
    // The CUDA context and the libraries' device memory (PyTorch's kernels,
    // cuBLAS, cuDNN, NCCL's own code) that nvidia-smi shows for a process
    // before it allocates a tensor: a few hundred MiB with CUDA 12's lazy
    // loading (CUDA C Programming Guide, "Lazy Loading"); 512 MiB assumed,
    // plus cuBLAS's workspace (cuBLAS docs, cublasSetWorkspace: 32 MiB
    // recommended on Hopper).
    Bytes cuda_context = mebibytes(512.0 + 32.0);
    // NCCL's buffers: nccl_buffers_per_channel × channels for each
    // communicator the layout opens (TP, PP, DP, CP, EP groups of more than
    // one GPU; a ring receives from one peer per channel).
    double nccl_channels = nccl_max_channels;
    // The caching allocator's fragmentation: memory reserved in its 2 MiB
    // segments (PyTorch c10/cuda/CUDACachingAllocator.cpp, kRoundLarge) that
    // no tensor uses, as a share of the activations, the memory that is
    // allocated and freed every micro-batch. 0 by default: memory_as_run.hpp
    // fits it on the measured reserved peaks (fit_reserve_share, about 0.10
    // of the transient memory), but counted here it moved the training fit's
    // left-out error from 4.06 to 4.16 % (README, "Planner"); set it from your
    // runs' max reserved / max allocated − 1 (torch.cuda.max_memory_reserved /
    // max_memory_allocated).
    double fragmentation = 0.0;
    // The largest temporary: the loss's fp32 logits, b·s/c tokens × V/t
    // vocabulary entries × 4 bytes (Megatron's vocab-parallel cross entropy,
    // core/tensor_parallel/cross_entropy.py, upcasts the logits to fp32, keeps
    // the softmax for the backward pass and writes the gradient into it in
    // place), held at the end of the forward pass with every activation, on
    // the last stage: counted when the last stage is the first (p = 1).
    bool loss_logits = true;
};

/// The largest fragmentation accepted: reserved 11 times what the activations
/// take. A bound of sense, not a measurement (runs report max reserved / max
/// allocated − 1 well below 1); it keeps a mistyped share (1e308) from turning
/// the memory total into inf.
inline constexpr double max_fragmentation = 10.0;

/// The allowances' documented defaults (MemoryAllowances{}).
inline constexpr MemoryAllowances default_memory_allowances{};
/// No allowances: the bare model of the papers.
inline constexpr MemoryAllowances no_memory_allowances{
    .cuda_context = Bytes{}, .nccl_channels = 0.0, .fragmentation = 0.0, .loss_logits = false};

/// `a` itself, after checking that every allowance is non-negative and the fragmentation at most max_fragmentation.
[[nodiscard]] constexpr const MemoryAllowances& validated(const MemoryAllowances& a) {
    require_non_negative("MemoryAllowances.cuda_context (bytes)", a.cuda_context.value());
    require_non_negative("MemoryAllowances.nccl_channels", a.nccl_channels);
    require_non_negative("MemoryAllowances.fragmentation", a.fragmentation);
    require(a.fragmentation <= max_fragmentation, "MemoryAllowances.fragmentation", a.fragmentation, "must be at most 10");
    return a;
}

/// The communicators a layout opens: one per parallel dimension wider than one GPU.
[[nodiscard]] constexpr double communicators(const Parallelism& par) {
    return (par.tp > 1 ? 1.0 : 0.0) + (par.pp > 1 ? 1.0 : 0.0) + (par.dp > 1 ? 1.0 : 0.0) +
           (par.cp > 1 ? 1.0 : 0.0) + (par.ep > 1 ? 1.0 : 0.0);
}

/// NCCL's buffers: nccl_buffers_per_channel × the allowed channels × the communicators the layout opens.
[[nodiscard]] constexpr Bytes nccl_buffer_memory(const Parallelism& par, const MemoryAllowances& a) {
    return communicators(par) * a.nccl_channels * nccl_buffers_per_channel;
}

/// fp32 logits: b·s/c·V/t entries × 4 bytes.
[[nodiscard]] constexpr Bytes loss_logits_memory(const TransformerShape& m, const Parallelism& par,
                                                 const MemoryAllowances& a) {
    if (!a.loss_logits || par.pp > 1) return Bytes{};
    const double entries = count(par.micro_batch) * count(par.sequence) / count(par.cp) * count(m.vocabulary) /
                           count(par.tp);
    return bytes(entries * 4.0);
}

// ---------------------------------------------------------------------------
// Everything on one GPU

/// Memory on one GPU while training, in bytes: model states, activations, and the allowances a real run
/// holds besides (MemoryAllowances).
struct TrainingMemory {
    Bytes weights;
    Bytes gradients;
    Bytes optimizer;
    Bytes activations;
    // The allowances (MemoryAllowances); zero from training_memory(m, par).
    Bytes cuda_context{};
    Bytes nccl_buffers{};
    Bytes fragmentation{};
    Bytes loss_logits{};
    [[nodiscard]] constexpr Bytes states() const { return weights + gradients + optimizer; }
    [[nodiscard]] constexpr Bytes allowances() const { return cuda_context + nccl_buffers + fragmentation + loss_logits; }
    [[nodiscard]] constexpr Bytes total() const { return states() + activations + allowances(); }
};

/// The most loaded GPU: its stage's model states, dense ones sharded over the
/// d·c data-parallel ranks, expert ones over the d·c/ep ranks that hold the
/// same experts, and the first stage's activation peak — the papers' model
/// (no allowances).
/// `params` is parameters_per_gpu(m, par), for a caller that has it already.
[[nodiscard]] constexpr TrainingMemory training_memory(const TransformerShape& m, const Parallelism& par,
                                                       const StageParameters& params) {
    const ModelStates dense = model_states(params.dense, par.dp * par.cp, par);
    const ModelStates expert = model_states(params.expert, par.dp * par.cp / par.ep, par);
    return {.weights = dense.weights + expert.weights,
            .gradients = dense.gradients + expert.gradients,
            .optimizer = dense.optimizer + expert.optimizer,
            .activations = activation_memory(m, par)};
}

/// The same, computing the parameters per GPU from the layout.
[[nodiscard]] constexpr TrainingMemory training_memory(const TransformerShape& m, const Parallelism& par) {
    return training_memory(m, par, parameters_per_gpu(m, par));
}

/// `memory` with the allowances a real run holds besides (MemoryAllowances).
[[nodiscard]] constexpr TrainingMemory with_allowances(TrainingMemory memory, const TransformerShape& m,
                                                       const Parallelism& par, const MemoryAllowances& a) {
    memory.cuda_context = validated(a).cuda_context;
    memory.nccl_buffers = nccl_buffer_memory(par, a);
    memory.fragmentation = a.fragmentation * memory.activations;
    memory.loss_logits = loss_logits_memory(m, par, a);
    return memory;
}

/// The same with the memory a real run holds besides (MemoryAllowances).
[[nodiscard]] constexpr TrainingMemory training_memory(const TransformerShape& m, const Parallelism& par,
                                                       const StageParameters& params, const MemoryAllowances& a) {
    return with_allowances(training_memory(m, par, params), m, par, a);
}

/// Whether `memory` fits in the GPU's usable memory.
[[nodiscard]] constexpr bool fits(const TrainingMemory& memory, const Gpu& gpu) {
    return memory.total() <= usable_memory(gpu);
}

}  // namespace napkin
