// SPDX-License-Identifier: MIT
// napkin/serving/engine.hpp — a model served on a layout, request by request:
// the KV cache the GPUs' memory leaves after the weights and working memory,
// cut into blocks; each step priced through the kernel layer
// (serving/step.hpp); the engine's scheduler (serving/simulator.hpp).
//
//   const SimulationResult r = simulate_serving(m, gpu, link, layout, traffic, limits);
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/simulator.hpp>
#include <napkin/serving/step.hpp>
#include <napkin/serving/workload.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace napkin {

/// The KV-cache blocks of `s.kv_block_tokens` tokens a layout holds: what each
/// GPU's usable memory leaves after its weights and working memory
/// (serving_memory with no sequence), over one block's bytes on a GPU, for
/// each of the ep groups (each keeps its own sequences' caches); with KV
/// offload, the host memory's blocks too.
[[nodiscard]] constexpr long long kv_cache_blocks(const TransformerShape& m, const Gpu& gpu, const ServingLayout& l,
                                                  const ServingSetup& s = default_serving_setup) {
    const ServingMemory empty = serving_memory(m, gpu, l, 0, 1, s);
    if (empty.total() >= empty.usable) return 0;
    const Bytes block = kv_bytes_per_gpu(m, l, s.kv, tokens(count(s.kv_block_tokens)));
    const double per_group = ratio(empty.usable - empty.total() + s.kv_offload.capacity, block);
    return static_cast<long long>(std::min(per_group, 1e15)) * l.ep;
}

/// Prices a StepBatch for the simulator.
template <CollectivePolicy Collective = Ring>
struct StepPrice {
    TransformerShape model;
    Gpu gpu;
    ServingFabric fabric;
    ServingLayout layout;
    ServingSetup setup = default_serving_setup;
    Collective collective = default_ring_collective;
    // Speculative decoding: the draft model (an MTP head is a one-layer model), on the same
    // GPUs, runs draft_steps decode steps of the sequences before the target verifies.
    std::optional<TransformerShape> draft = std::nullopt;
    [[nodiscard]] Seconds operator()(const StepBatch& b) const {
        const long long items = b.decodes + static_cast<long long>(b.chunks.size());
        const long long micro_batches = pipeline_micro_batches(layout, setup, items);
        if (micro_batches == 1) return pass(b);
        // Pipelined stages (decode_step): the step's work dealt into micro-batches — the
        // decodes evenly, the chunks to those with fewer decodes first — each in another
        // stage at once; at most one per stage, so the slowest one's pass sets the step.
        std::vector<std::vector<PromptChunk>> chunks(static_cast<std::size_t>(micro_batches));
        for (std::size_t j = 0; j < b.chunks.size(); ++j)
            chunks[static_cast<std::size_t>((b.decodes + static_cast<long long>(j)) % micro_batches)].push_back(
                b.chunks[j]);
        Seconds slowest{};
        for (long long i = 0; i < micro_batches; ++i) {
            const long long decodes = b.decodes / micro_batches + (i < b.decodes % micro_batches ? 1 : 0);
            const double context = b.decodes == 0 ? 0.0 : b.decode_context * count(decodes) / count(b.decodes);
            slowest = std::max(
                slowest, pass({decodes, context, chunks[static_cast<std::size_t>(i)], b.decode_tokens, b.draft_steps}));
        }
        return slowest;
    }
    /// One micro-batch through every stage: the draft's steps, then the target's.
    [[nodiscard]] Seconds pass(const StepBatch& b) const {
        Seconds t = step_time(model, gpu, fabric, layout, b, setup, collective).total();
        if (draft && b.draft_steps > 0 && b.decodes > 0) {
            const StepBatch drafting{b.decodes, b.decode_context, {}, 1, 0};
            t += count(b.draft_steps) * step_time(*draft, gpu, fabric, layout, drafting, setup, collective).total();
        }
        return t;
    }
};

namespace detail {
/// The limits of an engine of the layout on `gpu`, checked: its KV blocks the memory's
/// (kv_cache_blocks) unless smaller ones are given, and every request within the context.
[[nodiscard]] inline EngineLimits engine_limits_on(const TransformerShape& m, const Gpu& gpu, const ServingLayout& l,
                                                   const std::vector<Request>& requests, EngineLimits limits,
                                                   const ServingSetup& s) {
    (void)validated(m);
    (void)validated(gpu);
    (void)validated(l, m);
    (void)validated(s);
    require_computable(gpu, s.weights);
    for (const Request& r : requests) require_within_context(m, r.input + r.output);
    const long long blocks = kv_cache_blocks(m, gpu, l, s);
    require(blocks > 0, "gpu memory", usable_memory(gpu).value(),
            "holds the weights and working memory but leaves no room for a KV cache");
    limits.kv_blocks = std::min(limits.kv_blocks, blocks);
    limits.block_tokens = s.kv_block_tokens;
    return limits;
}
}  // namespace detail

/// The traffic through an engine with `limits` on the layout; the limits' KV
/// blocks are the memory's (kv_cache_blocks) unless smaller ones are given.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] SimulationResult simulate_serving(const TransformerShape& m, const Gpu& gpu, const ServingFabric& fabric,
                                                const ServingLayout& l, const std::vector<Request>& requests,
                                                EngineLimits limits, const ServingSetup& s = default_serving_setup,
                                                const Collective& collective = default_ring_collective,
                                                const std::optional<TransformerShape>& draft = std::nullopt) {
    (void)validated(fabric);
    limits = detail::engine_limits_on(m, gpu, l, requests, limits, s);
    if (draft) {
        (void)validated(*draft);
        require(limits.draft_tokens > 0, "draft tokens", count(limits.draft_tokens),
                "must be at least 1 with a draft model");
    }
    return simulate(requests, limits, StepPrice<Collective>{m, gpu, fabric, l, s, collective, draft});
}

}  // namespace napkin
