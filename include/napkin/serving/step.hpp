// SPDX-License-Identifier: MIT
// napkin/serving/step.hpp — one forward pass of an engine that mixes decodes
// and prompt chunks in the same step (continuous batching with chunked
// prefill: Agrawal et al. 2024, Sarathi-Serve, arXiv 2403.02310, Sec. 4), priced
// through the same kernel layer as serving.hpp's decode_step and prefill_time.
//
// A step reads the weights once for all its tokens (MoE: the experts they hit)
// at the bandwidth a decode-shaped GEMM streams them, the decodes' KV caches at
// paged decode attention's measured share of the bandwidth, the chunks' caches
// at the achieved HBM bandwidth; it does the GEMMs of every token, decode
// attention over the caches and causal flash attention inside each chunk.
// Under the roofline the step's reading overlaps its computing; under measured
// kernels the GEMMs (weights and their math) and the attention (caches and its
// math) run in turn, each the longer of the two. The communication and the
// engine's per-pass overhead add. With decodes only it is decode_step().total();
// with one chunk only it is prefill_time's pass (tests check both to 1e-12).
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/hardware.hpp>
#include <napkin/kernels.hpp>
#include <napkin/model.hpp>
#include <napkin/serving.hpp>
#include <napkin/units.hpp>

#include <span>

namespace napkin {

/// A prompt chunk: `tokens` new tokens after `cached` already in the cache.
struct PromptChunk {
    long long cached = 0;
    long long tokens = 0;
};

/// What one engine step computes: `decodes` sequences each advance over
/// `decode_context` cached tokens in all, and the prompt chunks. A decode
/// computes `decode_tokens` positions: 1, or with speculative decoding the last
/// token and k drafts the target model verifies at once (Leviathan et al. 2023,
/// "Fast Inference from Transformers via Speculative Decoding", ICML, Sec. 2),
/// after `draft_steps` = k steps of the draft model.
struct StepBatch {
    long long decodes = 0;
    double decode_context = 0.0;
    std::span<const PromptChunk> chunks;
    long long decode_tokens = 1;
    long long draft_steps = 0;
};

/// The tokens one verification gives a sequence on average when each of k
/// drafts is accepted with probability a, independently, until the first
/// rejection (Leviathan et al. 2023, Eq. 1): 1 + a + … + a^k = (1 − a^(k+1)) / (1 − a).
[[nodiscard]] constexpr double expected_tokens_per_step(long long draft_tokens, double acceptance) {
    require(draft_tokens >= 0, "draft tokens", count(draft_tokens), "must not be negative");
    require(acceptance >= 0.0 && acceptance <= 1.0, "acceptance", acceptance, "must be in [0, 1]");
    if (acceptance == 1.0) return count(draft_tokens + 1);
    return (1.0 - detail::power(acceptance, draft_tokens + 1)) / (1.0 - acceptance);
}

/// One engine step's time, in seconds: memory and compute (the longer counts), communication, overhead.
struct ServingStepTime {
    Seconds memory;    // weights and KV caches read, stages in turn
    Seconds compute;   // GEMMs and attention, stages in turn
    Seconds comm;      // all-reduces, hand-offs and all-to-alls
    Seconds overhead;  // the engine's (ServingProfile)
    // Measured kernels: the GEMMs (weights read, their math) and the attention kernels (caches
    // read, their math) run one after the other, each the longer of its reading and computing.
    Seconds attention_memory{}, attention_compute{};  // parts of memory and compute
    bool kernels_in_turn = false;
    [[nodiscard]] constexpr Seconds busy() const {
        if (!kernels_in_turn) return ServingRoofline{memory, compute}.time();
        return ServingRoofline{memory - attention_memory, compute - attention_compute}.time() +
               ServingRoofline{attention_memory, attention_compute}.time();
    }
    [[nodiscard]] constexpr Seconds total() const { return busy() + comm + overhead; }
};

/// The step's tokens shared over the ep groups, each serving its share of the
/// sequences (the busiest when ep does not divide them).
[[nodiscard]] constexpr double per_group(double tokens, const ServingLayout& l) {
    if (l.ep == 1) return tokens;
    const double share = tokens / count(l.ep);
    const auto whole = static_cast<double>(static_cast<long long>(share));
    return whole == share ? share : whole + 1.0;
}

/// The time of one engine step of the target model (see the top of the file): `batch`'s decodes and
/// prompt chunks on layout `l`; the draft model's steps are not included.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr ServingStepTime step_time(const TransformerShape& m, const Gpu& gpu,
                                                  const ServingFabric& fabric, const ServingLayout& l,
                                                  const StepBatch& batch, const ServingSetup& s = default_serving_setup,
                                                  const Collective& collective = default_ring_collective) {
    const KernelProfile k = s.profile.kernels;
    const Architecture a = gpu.architecture;
    const double stages = count(l.pp);
    const double gpus = count(l.tp * l.pp);
    const bool roofline = k == KernelProfile::roofline;
    const FlopsPerSecond peak = serving_peak(gpu, s.weights);
    double chunk_tokens = 0.0;
    for (const PromptChunk& c : batch.chunks) chunk_tokens += count(c.tokens);
    const double n = per_group(count(batch.decodes), l);
    const double positions = count(batch.decode_tokens);  // each decode's query positions
    const double routed = n * positions + per_group(chunk_tokens, l);
    // The step's decodes and chunks are the rows of one set of GEMMs (pass_gemm_quantization).
    const FlopsPerSecond gemm_rate = roofline
                                         ? peak
                                         : peak * gemm_ceiling(a, gemm_precision(s.weights), k) * s.profile.gemm_share *
                                               detail::pass_gemm_quantization_of(m, l, routed, gpu, k);

    // Decodes: as decode_step, at the group's mean context.
    const Tokens context = tokens(batch.decodes == 0 ? 0.0 : batch.decode_context / count(batch.decodes));
    const double cached = n * context.value();
    const Seconds weights = detail::read_at(weights_read_per_gpu(m, l, s.weights, routed, s.expert_skew), gpu,
                                            gemm_stream_share(a, gemm_precision(s.weights), k));
    // With offload, the share beyond the GPU's room streams over the host link (as decode_step).
    const Bytes decode_bytes = kv_bytes_per_gpu(m, l, s.kv, context, n);
    const Bytes host = offloaded_kv(decode_bytes, m, gpu, l, s);
    const Seconds decode_kv =
        decode_kv_reads(m, l, s) *
            detail::read_at(decode_bytes - host, gpu, cached > 0.0 ? decode_attention_share(a, cached, k) : 1.0) +
        (host.value() > 0 ? host / s.kv_offload.bandwidth : Seconds{});
    const Flops gemms = pass_gemm_flops(m, l, routed, s.expert_skew);
    // Every query position attends to the cache (the drafts' own few positions not counted).
    const Flops decode_attention = positions * attention_flops(m, cached, n * within_window(m, context.value()));
    const Seconds gemm_math = gemms / gpus / gemm_rate;
    Seconds attention_math = roofline ? decode_attention / gpus / peak
                                      : decode_attention / gpus / (gpu.peak_flops * gemm_ceiling(a, DType::bf16, k));

    // Chunks: as prefill_time's pass, each chunk's cache and causal attention.
    Bytes chunk_kv{};
    const double share = l.ep == 1 ? 1.0 : 1.0 / count(l.ep);
    for (const PromptChunk& c : batch.chunks) {
        const double p = count(c.cached), t = count(c.tokens);
        chunk_kv += kv_bytes_per_gpu(m, l, s.kv, tokens(p + t), share);
        const Flops attention =
            attention_flops(m, share * (t * p + t * (t + 1.0) / 2.0), share * windowed_positions(m, p + 1.0, p + t));
        attention_math += roofline ? attention / gpus / peak
                                   : attention / gpus / (gpu.peak_flops * flash_attention_share(a, p + t, k));
    }
    ServingStepTime step;
    const Seconds caches = decode_kv + detail::read_at(chunk_kv, gpu, hbm_share(a, k));
    step.memory = stages * (weights + caches);
    step.compute = stages * (gemm_math + attention_math);
    step.attention_memory = stages * caches;
    step.attention_compute = stages * attention_math;
    step.kernels_in_turn = !roofline;
    DecodeStep comm;
    detail::pass_communication(m, fabric, l, routed, s, collective, comm);
    step.comm = comm.communication();
    step.overhead = detail::pass_overhead(m, l, s.profile);
    return step;
}

}  // namespace napkin
