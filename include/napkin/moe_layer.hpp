// SPDX-License-Identifier: MIT
// napkin/moe_layer.hpp — one MoE layer's ops for one micro-batch on one GPU,
// each with its forward and backward time and the bytes it moves (Megatron's
// MoE layer with expert parallelism: attention, router and permute, dispatch
// all-to-all, the routed and shared experts, combine all-to-all, unpermute).
//
// Matrix work runs at a share of the GPU's peak (the caller's efficiency, e.g.
// compute.hpp's fitted share); element-wise work (permute, unpermute) at the
// memory bandwidth; the all-to-all inside the expert-parallel group sends each
// peer its share over its own link at once (a node whose GPU pairs each have
// a link, as GH200's quad node: M/n per pair), plus NCCL's base and one hop.
// The backward does twice the forward's matrix work (input and weight
// gradients, Narayanan et al. 2021 Sec. 5.1), the same all-to-alls in reverse.
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/units.hpp>

#include <array>
#include <string_view>

namespace napkin {

struct MoeLayerSetup {
    long long sequence;         // tokens per sequence
    long long micro_batch;      // sequences per micro-batch
    long long expert_parallel;  // GPUs sharing the experts (all-to-all group)
    Gpu gpu;
    Link expert_link;           // one pair's link inside the group
    double matrix_share;        // matrix work's share of the GPU's peak
    Seconds collective_base{};  // a collective's launch latency (NCCL's base)
    double bytes_per_value = 2.0;
    bool causal = true;         // flash attention skips the masked half of the scores
};

struct LayerOp {
    std::string_view op;
    Seconds forward, backward;
    Bytes moved;  // per GPU per direction: what an all-to-all sends, 0 for compute
};

[[nodiscard]] constexpr const MoeLayerSetup& validated(const MoeLayerSetup& s) {
    require_at_least_one("MoeLayerSetup.sequence", s.sequence);
    require_at_least_one("MoeLayerSetup.micro_batch", s.micro_batch);
    require_at_least_one("MoeLayerSetup.expert_parallel", s.expert_parallel);
    require(s.matrix_share > 0.0 && s.matrix_share <= 1.0, "MoeLayerSetup.matrix_share", s.matrix_share,
            "must be in (0, 1]");
    require_positive("MoeLayerSetup.bytes_per_value", s.bytes_per_value);
    require_positive("MoeLayerSetup.expert_link.bandwidth (bytes/s)", s.expert_link.bandwidth.value());
    return s;
}

// The six ops in the order they run forward.
[[nodiscard]] constexpr std::array<LayerOp, 6> moe_layer_ops(const TransformerShape& m, const MoeLayerSetup& s) {
    (void)validated(m);
    (void)validated(s);
    require(m.experts > 0, "TransformerShape.experts", 0.0, "must be at least 1 for a MoE layer's ops");
    const double tokens = count(s.sequence * s.micro_batch), h = count(m.hidden), k = count(m.experts_per_token);
    const double rate = s.gpu.peak_flops.value() * s.matrix_share, memory = s.gpu.memory_bandwidth.value();
    const double qk = latent_attention(m) ? count(m.qk_nope_head_dim + m.qk_rope_head_dim) : count(head_dim(m));
    const double v = latent_attention(m) ? count(m.v_head_dim) : count(head_dim(m));
    // Projections: 2 FLOPs per weight per token; scores and values 2·s·heads·(qk + v) per token, half when causal.
    const double core = 2.0 * count(s.sequence) * count(m.heads) * (qk + v) * tokens * (s.causal ? 0.5 : 1.0);
    const Seconds attention = seconds((2.0 * tokens * count(attention_weights(m)) + core) / rate);
    // Router GEMM; permute: each token read once, written k times.
    const Seconds router = seconds(2.0 * tokens * count(router_weights(m)) / rate +
                                   tokens * h * s.bytes_per_value * (1.0 + k) / memory);
    // Dispatch and combine: k copies of every token; each peer gets 1/n of them over its own link.
    const Bytes sent = bytes(tokens * k * h * s.bytes_per_value);
    const double n = count(s.expert_parallel);
    const Seconds all_to_all = s.expert_parallel == 1
                                   ? Seconds{}
                                   : s.collective_base + s.expert_link.step_latency + (sent / n) / s.expert_link.bandwidth;
    const Bytes moved = s.expert_parallel == 1 ? Bytes{} : sent * ((n - 1.0) / n);
    const Seconds experts = seconds(
        2.0 * tokens * (k * count(feed_forward_weights(m, m.expert_ffn)) + count(shared_expert_weights(m))) / rate);
    // Unpermute: the k outputs read and summed into one vector per token.
    const Seconds unpermute = seconds(tokens * h * s.bytes_per_value * (k + 1.0) / memory);
    return {{{"attention", attention, 2.0 * attention, Bytes{}},
             {"router and permute", router, 2.0 * router, Bytes{}},
             {"dispatch all-to-all", all_to_all, all_to_all, moved},
             {"experts", experts, 2.0 * experts, Bytes{}},
             {"combine all-to-all", all_to_all, all_to_all, moved},
             {"unpermute", unpermute, unpermute, Bytes{}}}};
}

// The layer's forward and backward: its ops one after another.
[[nodiscard]] constexpr std::array<Seconds, 2> moe_layer_time(const TransformerShape& m, const MoeLayerSetup& s) {
    Seconds f{}, b{};
    for (const LayerOp& op : moe_layer_ops(m, s)) f += op.forward, b += op.backward;
    return {f, b};
}

// The all-to-all part of the forward and of the backward: what a paired block can hide.
[[nodiscard]] constexpr std::array<Seconds, 2> moe_layer_all_to_all(const TransformerShape& m, const MoeLayerSetup& s) {
    Seconds f{}, b{};
    for (const LayerOp& op : moe_layer_ops(m, s))
        if (op.moved > Bytes{}) f += op.forward, b += op.backward;
    return {f, b};
}

}  // namespace napkin
