// SPDX-License-Identifier: MIT
// napkin/memory_as_run.hpp — the memory a training framework's allocator
// reports at its peak (torch.cuda.max_memory_allocated / max_memory_reserved),
// built from memory.hpp's model states and activations plus the buffers a run
// holds beside them: ZeRO-3/FSDP all-gather buffers of the unsharded layers,
// the recomputed layer's working set, the loss's logits as the loss kernel
// keeps them, and the caching allocator's reserve. One fitted parameter (the
// reserve), fitted by fit_reserve_share over every row, checked with each
// source left out (memory_errors).
//
// What is predicted: `allocated` is the peak of live tensors; `reserved` adds
// the allocator's segments that hold no tensor. Neither counts the CUDA
// context or NCCL's buffers: the allocator does not see them (memory.hpp's
// MemoryAllowances adds them for `napkin train`'s device total).
#pragma once

#include <napkin/error.hpp>
#include <napkin/memory.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <cmath>
#include <span>
#include <string_view>
#include <vector>

namespace napkin {

/// How a framework keeps activations, logits and sharded weights.
enum class ActivationPolicy {
    layout,             // the layout's Recompute (Korthikanti et al., memory.hpp)
    every_other_matmul  // torchtitan's op-level selective checkpointing (below)
};

/// What a framework holds besides the model states: its activation policy, the bytes per logit at the loss,
/// and what ZeRO-3/FSDP keeps gathered.
struct RunFramework {
    ActivationPolicy activations = ActivationPolicy::layout;
    // Bytes per logit at the loss, b·s/c·V/t logits on the last stage:
    //  4  Megatron-LM's vocab-parallel cross entropy (memory.hpp: fp32 logits,
    //     softmax kept, gradient written in place);
    //  12 an unfused torch loss, cross_entropy(pred.float(), labels) as in
    //     torchtitan's train.py: at the start of the backward pass the fp32
    //     log-softmax output (4, saved by log_softmax), the gradient nll_loss
    //     hands it (4) and the gradient log_softmax_backward writes (4) are live
    //     at once (PyTorch aten/src/ATen/native/SoftMax.cpp, LossNLL.cpp).
    double logits_bytes_per_entry = 4.0;
    // ZeRO-3/FSDP layers gathered ahead of the one computing (PyTorch FSDP2's
    // implicit prefetch: the next block's all-gather is issued before the
    // current block runs, torch/distributed/fsdp/_fully_shard/_fsdp_state.py).
    long long fsdp_prefetch = 1;
    // FSDP2's root unit (the tables and the final norm, torchtitan's
    // fully_shard(model)) stays gathered through the backward pass with the
    // output layer's unsharded 16-bit gradient, reduce-scattered last.
    bool fsdp_root_gathered = true;
};

/// Megatron-LM: the layout's recomputation, 4-byte fp32 logits.
inline constexpr RunFramework megatron_framework{};
/// torchtitan: op-level selective checkpointing of every other matmul, 12 bytes per logit (an unfused torch loss).
inline constexpr RunFramework torchtitan_framework{.activations = ActivationPolicy::every_other_matmul,
                                                   .logits_bytes_per_entry = 12.0};

/// torchtitan's op-level selective activation checkpointing
/// (torchtitan/models/llama/parallelize_llama.py, _save_list and
/// _custom_policy, Dec. 2024): a block saves its input and the outputs of
/// matmuls, flash attention and max, except every second matmul, counted per
/// block. A Llama block's matmuls run wq, wk, wv, wo, w1, w3, w2, so wq, wv,
/// w1 and w2 are saved, wk, wo and w3 recomputed; flash attention saves its
/// output and its fp32 log-sum-exp per head. Per token, 16-bit values:
///   2·(h + q + kv + q + f + h) + 4·heads   bytes (q = heads·d, kv = kv_heads·d).
[[nodiscard]] constexpr Bytes every_other_matmul_bytes_per_layer(const TransformerShape& m, const Parallelism& par) {
    const double tokens = count(par.micro_batch) * count(par.sequence / par.cp);
    const double h = count(m.hidden);
    const double q = count(m.heads * head_dim(m));
    const double kv = count(m.kv_heads * head_dim(m));
    const double f = count(m.ffn);
    return bytes(tokens * (2.0 * (h + q + kv + q + f + h) + 4.0 * count(m.heads)) / count(par.tp));
}

/// The activations one layer keeps when nothing is recomputed (flash attention
/// as the layout says): what a recomputed layer holds again in its backward pass.
[[nodiscard]] constexpr Bytes unrecomputed_layer_bytes(const TransformerShape& m, const Parallelism& par) {
    Parallelism kept = par;
    kept.recompute = Recompute::none;
    return activation_bytes_per_layer(m, kept);
}

/// Activations kept through the forward pass on the most loaded stage.
[[nodiscard]] constexpr Bytes kept_activations(const TransformerShape& m, const Parallelism& par,
                                               const RunFramework& fw) {
    if (fw.activations == ActivationPolicy::layout) return activation_memory(m, par);
    return layers_in_flight(m, par) * every_other_matmul_bytes_per_layer(m, par);
}

/// The layer being recomputed in the backward pass holds its activations again,
/// less what it kept (Chen et al. 2016, arXiv 1604.06174, Sec. 4: checkpointing
/// trades the stored activations for one segment's recomputed ones).
[[nodiscard]] constexpr Bytes recompute_working_set(const TransformerShape& m, const Parallelism& par,
                                                    const RunFramework& fw) {
    const Bytes full = unrecomputed_layer_bytes(m, par);
    if (fw.activations == ActivationPolicy::every_other_matmul)
        return std::max(Bytes{}, full - every_other_matmul_bytes_per_layer(m, par));
    if (par.recompute == Recompute::none) return Bytes{};
    return std::max(Bytes{}, full - activation_bytes_per_layer(m, par));
}

/// ZeRO-3/FSDP: the blocks gathered at once, 1 + prefetch, in 16 bits, and the
/// root unit's tables with the output layer's 16-bit gradient when it stays
/// gathered (Rajbhandari et al. 2020, Sec. 5.3: parameters are gathered layer by
/// layer and freed after use). Nothing for other shardings.
[[nodiscard]] constexpr Bytes fsdp_gather_buffers(const TransformerShape& m, const Parallelism& par,
                                                  const RunFramework& fw) {
    if (par.sharding != Sharding::zero3) return Bytes{};
    const double w = bytes_of(par.weights);
    const double blocks = count(1 + fw.fsdp_prefetch) * count(layer_weights(m)) / count(par.tp) * w;
    const double table = count(m.vocabulary * m.hidden) / count(par.tp);
    const double tables = m.tied_embeddings ? table : 2.0 * table;
    const double root = fw.fsdp_root_gathered ? (tables + count(norm_weights(m))) * w + table * w : 0.0;
    return bytes(blocks + root);
}

/// The loss's logits on the last stage, b·s/c tokens × V/t (counted when the
/// last stage is the most loaded one's, p = 1, as memory.hpp's loss_logits).
[[nodiscard]] constexpr Bytes run_logits(const TransformerShape& m, const Parallelism& par, const RunFramework& fw) {
    if (par.pp > 1) return Bytes{};
    const double entries = count(par.micro_batch) * count(par.sequence / par.cp) * count(m.vocabulary) / count(par.tp);
    return bytes(entries * fw.logits_bytes_per_entry);
}

/// The peak memory of one GPU as a framework runs it, in bytes, by part.
struct RunMemory {
    Bytes states;       // weights, gradients, optimizer (memory.hpp)
    Bytes activations;  // kept through the forward pass
    Bytes recompute;    // the recomputed layer's working set
    Bytes gathered;     // ZeRO-3/FSDP all-gather buffers
    Bytes logits;       // the loss's logits
    // Memory allocated and freed every step, where the caching allocator's
    // unused segments come from.
    [[nodiscard]] constexpr Bytes transient() const { return activations + recompute + gathered + logits; }
    [[nodiscard]] constexpr Bytes allocated() const { return states + transient(); }
    // Reserved: allocated plus `reserve_share` of the transient memory held in
    // segments no tensor uses (PyTorch's caching allocator rounds and splits
    // blocks, c10/cuda/CUDACachingAllocator.cpp).
    [[nodiscard]] constexpr Bytes reserved(double reserve_share) const {
        return allocated() + reserve_share * transient();
    }
};

/// The peak memory of the most loaded GPU as framework `fw` runs the layout, by part.
[[nodiscard]] constexpr RunMemory memory_as_run(const TransformerShape& m, const Parallelism& par,
                                                const RunFramework& fw) {
    require(fw.fsdp_prefetch >= 0, "RunFramework.fsdp_prefetch", count(fw.fsdp_prefetch), "must not be negative");
    require_non_negative("RunFramework.logits_bytes_per_entry", fw.logits_bytes_per_entry);
    return {.states = training_memory(m, par).states(),
            .activations = kept_activations(m, par, fw),
            .recompute = recompute_working_set(m, par, fw),
            .gathered = fsdp_gather_buffers(m, par, fw),
            .logits = run_logits(m, par, fw)};
}

// ---------------------------------------------------------------------------
// Checking against measured peaks

/// Which peak a source measured: allocated by tensors, or reserved by PyTorch's caching allocator.
enum class MeasuredMemory { allocated, reserved };

/// One published peak: the run, what it measured, and the reserved peak where
/// the source gives it beside an allocated one (0: not given).
struct MemoryRow {
    std::string_view id;
    std::string_view source;  // the table or file: the unit left out in cross-validation
    TransformerShape model;
    Parallelism layout;
    RunFramework framework;
    MeasuredMemory kind = MeasuredMemory::allocated;
    Bytes measured;
    Bytes measured_reserved{};
};

/// The row's predicted peak of kind `kind`, in bytes (reserved: with `reserve_share` of the transient memory).
[[nodiscard]] constexpr Bytes predicted(const MemoryRow& row, MeasuredMemory kind, double reserve_share) {
    const RunMemory m = memory_as_run(row.model, row.layout, row.framework);
    return kind == MeasuredMemory::allocated ? m.allocated() : m.reserved(reserve_share);
}

/// Signed relative error of the row's own measurement.
[[nodiscard]] constexpr double memory_error(const MemoryRow& row, double reserve_share) {
    return predicted(row, row.kind, reserve_share) / row.measured - 1.0;
}

namespace detail {
/// Mean |relative error| of every reserved peak the rows give (the measured one
/// or the one beside it), leaving out `skip` (empty: none).
inline double reserve_loss(std::span<const MemoryRow> rows, double share, std::string_view skip) {
    double sum = 0.0;
    int n = 0;
    for (const MemoryRow& r : rows) {
        if (!skip.empty() && r.source == skip) continue;
        const Bytes target = r.kind == MeasuredMemory::reserved ? r.measured : r.measured_reserved;
        if (target <= Bytes{}) continue;
        sum += std::abs(predicted(r, MeasuredMemory::reserved, share) / target - 1.0);
        ++n;
    }
    return n == 0 ? 0.0 : sum / n;
}
}  // namespace detail

/// The largest reserve share searched: reserved twice what the transient
/// memory takes, far above the 3–9 % of the total SimuMax's B200 runs report.
inline constexpr double max_reserve_share = 1.0;

/// The reserve share that minimises the mean |relative error| of every reserved
/// peak in `rows` (each row whose source is not `skip`). The loss is convex in
/// the share (a sum of |a + b·x|), so a golden-section search finds its minimum.
[[nodiscard]] inline double fit_reserve_share(std::span<const MemoryRow> rows, std::string_view skip = {}) {
    double lo = 0.0;
    double hi = max_reserve_share;
    const double golden = (std::sqrt(5.0) - 1.0) / 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
        const double a = hi - golden * (hi - lo);
        const double b = lo + golden * (hi - lo);
        if (detail::reserve_loss(rows, a, skip) <= detail::reserve_loss(rows, b, skip))
            hi = b;
        else
            lo = a;
    }
    return (lo + hi) / 2.0;
}

/// Per-source errors, fitted on every row and with the source left out.
struct SourceMemoryErrors {
    std::string_view source;
    int rows = 0;
    double fitted_mean = 0.0;  // mean |relative error|
    double fitted_max = 0.0;
    double left_out_mean = 0.0;
    double left_out_max = 0.0;
    double left_out_share = 0.0;  // the reserve share fitted without the source
    // The reserved peaks a source gives beside its allocated ones (SimuMax):
    // their count and mean |relative error|, fitted and with the source left out.
    int reserved_rows = 0;
    double reserved_fitted_mean = 0.0;
    double reserved_left_out_mean = 0.0;
};

/// The memory model against every row: the reserve share fitted on every row, each row's signed error under it
/// and with its source left out, and the errors per source.
struct MemoryValidation {
    double reserve_share = 0.0;    // fitted on every row
    std::vector<double> errors;    // signed, each row's own measurement, fitted
    std::vector<double> left_out;  // signed, with the row's source left out of the fit
    std::vector<SourceMemoryErrors> sources;
    [[nodiscard]] double mean_abs() const {
        double s = 0.0;
        for (double e : errors) s += std::abs(e);
        return errors.empty() ? 0.0 : s / static_cast<double>(errors.size());
    }
    [[nodiscard]] double left_out_mean_abs() const {
        double s = 0.0;
        for (double e : left_out) s += std::abs(e);
        return left_out.empty() ? 0.0 : s / static_cast<double>(left_out.size());
    }
};

/// Fits the reserve share to `rows` and cross-validates it, leaving out each source in turn.
[[nodiscard]] inline MemoryValidation memory_errors(std::span<const MemoryRow> rows) {
    MemoryValidation v;
    v.reserve_share = fit_reserve_share(rows);
    for (const MemoryRow& r : rows) {
        v.errors.push_back(memory_error(r, v.reserve_share));
        auto it = std::find_if(v.sources.begin(), v.sources.end(),
                               [&](const SourceMemoryErrors& s) { return s.source == r.source; });
        if (it == v.sources.end()) {
            SourceMemoryErrors s;
            s.source = r.source;
            s.left_out_share = fit_reserve_share(rows, r.source);
            v.sources.push_back(s);
            it = v.sources.end() - 1;
        }
        const double fitted = std::abs(v.errors.back());
        v.left_out.push_back(memory_error(r, it->left_out_share));
        const double out = std::abs(v.left_out.back());
        if (r.kind == MeasuredMemory::allocated && r.measured_reserved > Bytes{}) {
            ++it->reserved_rows;
            it->reserved_fitted_mean +=
                std::abs(predicted(r, MeasuredMemory::reserved, v.reserve_share) / r.measured_reserved - 1.0);
            it->reserved_left_out_mean +=
                std::abs(predicted(r, MeasuredMemory::reserved, it->left_out_share) / r.measured_reserved - 1.0);
        }
        ++it->rows;
        it->fitted_mean += fitted;
        it->fitted_max = std::max(it->fitted_max, fitted);
        it->left_out_mean += out;
        it->left_out_max = std::max(it->left_out_max, out);
    }
    for (SourceMemoryErrors& s : v.sources) {
        s.fitted_mean /= s.rows;
        s.left_out_mean /= s.rows;
        if (s.reserved_rows > 0) {
            s.reserved_fitted_mean /= s.reserved_rows;
            s.reserved_left_out_mean /= s.reserved_rows;
        }
    }
    return v;
}

}  // namespace napkin
