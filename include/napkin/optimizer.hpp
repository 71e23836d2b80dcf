// SPDX-License-Identifier: MIT
// napkin/optimizer.hpp — what the optimizer step costs: Adam's two moments
// against Muon's one momentum buffer and its Newton–Schulz iterations.
//
// Muon (Jordan et al. 2024, "Muon: an optimizer for hidden layers in neural
// networks"; Liu et al. 2025, "Muon is Scalable for LLM Training" — the
// Moonlight paper, Sec. 2) keeps one momentum buffer per weight matrix and
// orthogonalises each update with T = 5 iterations of the quintic
// Newton–Schulz map X ← aX + b(XXᵀ)X + c(XXᵀ)²X. For an m × n matrix, m ≤ n:
// XXᵀ costs 2m²n FLOPs, (XXᵀ)² 2m³, the product with X 2m²n — 4m²n + 2m³ per
// iteration (Jordan et al.'s "Tm/B overhead" analysis). Vectors (norms,
// biases) and the embedding and output tables stay with AdamW in both papers.
#pragma once

#include <napkin/error.hpp>
#include <napkin/model.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <string_view>

namespace napkin {

/// The optimizer priced: Adam(W), two moments per weight, or Muon, one momentum buffer and Newton–Schulz iterations.
enum class Optimizer : unsigned char { adam, muon };

/// The optimizer's name: "adam" or "muon".
[[nodiscard]] constexpr std::string_view to_string(Optimizer o) { return o == Optimizer::adam ? "adam" : "muon"; }

/// The optimizer named `name` ("adam", "adamw" or "muon"); any other name is rejected.
[[nodiscard]] inline Optimizer optimizer_from_name(std::string_view name) {
    if (name == "adam" || name == "adamw") return Optimizer::adam;
    if (name == "muon") return Optimizer::muon;
    reject("optimizer", name, "must be adam or muon");
}

/// Jordan et al. 2024: five iterations.
inline constexpr long long muon_newton_schulz_iterations = 5;

/// One Newton–Schulz orthogonalisation of an rows × cols matrix.
[[nodiscard]] constexpr double newton_schulz_flops(long long rows, long long cols,
                                                   long long iterations = muon_newton_schulz_iterations) {
    require_at_least_one("rows", rows);
    require_at_least_one("cols", cols);
    require_at_least_one("iterations", iterations);
    const double m = count(std::min(rows, cols)), n = count(std::max(rows, cols));
    return count(iterations) * (4.0 * m * m * n + 2.0 * m * m * m);
}

namespace detail {
[[nodiscard]] constexpr double feed_forward_newton_schulz(const TransformerShape& m, long long width, long long t) {
    const long long matrices = m.feed_forward == FeedForward::gated ? 3 : 2;  // gate, up, down; or up, down
    return count(matrices) * newton_schulz_flops(m.hidden, width, t);
}
[[nodiscard]] constexpr double attention_newton_schulz(const TransformerShape& m, long long t) {
    if (latent_attention(m)) {  // DeepSeek-V2 Sec. 2.1: W^DQ, W^UQ(+W^QR), W^DKV(+W^KR), W^UK with W^UV, W^O
        const long long qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
        const double query = m.q_lora_rank > 0 ? newton_schulz_flops(m.hidden, m.q_lora_rank, t) +
                                                     newton_schulz_flops(m.q_lora_rank, m.heads * qk, t)
                                               : newton_schulz_flops(m.hidden, m.heads * qk, t);
        return query + newton_schulz_flops(m.hidden, m.kv_lora_rank + m.qk_rope_head_dim, t) +
               newton_schulz_flops(m.kv_lora_rank, m.heads * (m.qk_nope_head_dim + m.v_head_dim), t) +
               newton_schulz_flops(m.heads * m.v_head_dim, m.hidden, t);
    }
    const long long q = m.heads * head_dim(m), kv = m.kv_heads * head_dim(m);
    return 2.0 * newton_schulz_flops(m.hidden, q, t) + 2.0 * newton_schulz_flops(m.hidden, kv, t);
}
}  // namespace detail

/// Muon's Newton–Schulz FLOPs for one step over every matrix of the model:
/// attention's, each dense, routed and shared expert's, the router's.
[[nodiscard]] constexpr double muon_step_flops(const TransformerShape& m,
                                               long long iterations = muon_newton_schulz_iterations) {
    const double attention = detail::attention_newton_schulz(m, iterations);
    const double dense = attention + detail::feed_forward_newton_schulz(m, m.ffn, iterations);
    if (m.experts == 0) return count(m.layers) * dense;
    const double moe = attention + count(m.experts) * detail::feed_forward_newton_schulz(m, m.expert_ffn, iterations) +
                       count(m.shared_experts) * (m.shared_experts > 0
                                                      ? detail::feed_forward_newton_schulz(m, m.shared_expert_ffn,
                                                                                           iterations)
                                                      : 0.0) +
                       newton_schulz_flops(m.hidden, m.experts, iterations);
    return count(moe_layers(m)) * moe + count(m.layers - moe_layers(m)) * dense;
}

/// Weights Muon updates (the matrices) and those AdamW keeps (the rest).
[[nodiscard]] constexpr long long muon_parameter_count(const TransformerShape& m) {
    const long long vectors = m.norms_per_layer * norm_weights(m) * m.layers + norm_weights(m);
    return parameter_count(m) - embedding_weights(m) - vectors;
}

/// Optimizer state in bytes per weight beside the FP32 master copy: Adam's two
/// FP32 moments (8 B, Kingma & Ba 2015), Muon's one FP32 momentum (4 B) on its
/// matrices and AdamW's 8 B on the rest.
[[nodiscard]] constexpr Bytes optimizer_state_bytes(const TransformerShape& m, Optimizer o) {
    const double all = count(parameter_count(m));
    if (o == Optimizer::adam) return bytes(8.0 * all);
    const double matrices = count(muon_parameter_count(m));
    return bytes(4.0 * matrices + 8.0 * (all - matrices));
}

/// The step's Newton–Schulz time when `gpus` share the matrices (a distributed
/// optimizer: each handles 1/gpus of them), each running at `rate`.
[[nodiscard]] constexpr Seconds muon_step_time(const TransformerShape& m, double gpus, FlopsPerSecond rate,
                                               long long iterations = muon_newton_schulz_iterations) {
    require_positive("gpus", gpus);
    require_positive("rate (FLOP/s)", rate.value());
    return flops(muon_step_flops(m, iterations) / gpus) / rate;
}

}  // namespace napkin
