// SPDX-License-Identifier: MIT
// napkin/io/json.hpp — the one JSON serializer of napkin's answers, used by the
// napkin command (--json) and the lesson pages' bindings, so the same record has
// the same keys and number types everywhere.
//
// Conventions (schema napkin.<command>/1):
// - every document starts with "schema": "napkin.<command>/1"; a new major
//   number means a key changed meaning, new keys may appear in any version;
// - a key's suffix names the unit of its value: _s seconds, _bytes bytes,
//   _bytes_per_s bytes per second, _flops FLOPs, _flops_per_s FLOP/s,
//   _per_s per second; an object's key with a suffix (memory_bytes,
//   breakdown_s) gives the unit of every number inside it; a key without a
//   suffix is a count, a share in [0, 1] (…_share, mfu, hfu), a name, or a
//   key kept from 0.1 whose unit its command's README section states (memory:
//   bytes; breakdown: seconds; bandwidth_gbps: GB/s; latency_us: µs);
// - exact byte counts (weights, caches, message sizes) are integers;
// - null means "no such value" (no crossover, no GPU count that fits).
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/hardware.hpp>
#include <napkin/inference.hpp>
#include <napkin/model.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/run_cost.hpp>
#include <napkin/training.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace napkin::io::json {

using nlohmann::json;

/// The major version in every schema string, "napkin.<command>/1".
inline constexpr int schema_version = 1;

/// "napkin.<command>/1".
[[nodiscard]] inline std::string schema(std::string_view command) {
    return "napkin." + std::string(command) + "/" + std::to_string(schema_version);
}

/// A new document for `command`: {"schema": "napkin.<command>/1"}.
[[nodiscard]] inline json document(std::string_view command) { return json{{"schema", schema(command)}}; }

/// A byte count: an integer when whole (37508222976, not 37508222976.0).
[[nodiscard]] inline json exact_bytes(Bytes b) {
    const double v = b.value();
    if (std::abs(v) < 9.0e18 && v == std::floor(v)) return static_cast<long long>(v);
    return v;
}

/// A byte count as exact_bytes writes it, or null when there is none.
[[nodiscard]] inline json optional_bytes(const std::optional<Bytes>& b) {
    return b ? exact_bytes(*b) : json(nullptr);
}

/// A link: its name, bandwidth in bytes per second and per-step latency in seconds.
[[nodiscard]] inline json link(const Link& l) {
    return {{"name", l.name}, {"bandwidth_bytes_per_s", l.bandwidth.value()}, {"step_latency_s", l.step_latency.value()}};
}

/// A GPU: memory in bytes (integers), bandwidth in bytes per second, peak rates in FLOP/s, board power in watts.
[[nodiscard]] inline json gpu(const Gpu& g) {
    return {{"name", g.name},
            {"memory_bytes", exact_bytes(g.memory)},
            {"usable_fraction", g.usable_fraction},
            {"usable_bytes", exact_bytes(usable_memory(g))},
            {"memory_bandwidth_bytes_per_s", g.memory_bandwidth.value()},
            {"peak_flops_per_s", g.peak_flops.value()},
            {"fp8_flops_per_s", g.fp8_flops.value()},
            {"fp6_flops_per_s", g.fp6_flops.value()},
            {"fp4_flops_per_s", g.fp4_flops.value()},
            {"int8_ops_per_s", g.int8_ops.value()},
            {"sm_count", g.sm_count},
            {"architecture", to_string(g.architecture)},
            {"board_power_w", g.board_power.value()}};
}

/// A model shape and its parameter count; MoE, latent-attention, window and vision keys only where they apply.
[[nodiscard]] inline json model(const TransformerShape& m) {
    json j{{"name", m.name},
           {"parameters", parameter_count(m)},
           {"layers", m.layers},
           {"hidden", m.hidden},
           {"ffn", m.ffn},
           {"heads", m.heads},
           {"kv_heads", m.kv_heads},
           {"head_dim", head_dim(m)},
           {"vocabulary", m.vocabulary},
           {"tied_embeddings", m.tied_embeddings}};
    if (m.experts > 0) {
        j["experts"] = m.experts;
        j["experts_per_token"] = m.experts_per_token;
        j["expert_ffn"] = m.expert_ffn;
        j["active_parameters"] = active_parameter_count(m);
        if (m.shared_experts > 0) {
            j["shared_experts"] = m.shared_experts;
            j["shared_expert_ffn"] = m.shared_expert_ffn;
        }
        if (m.dense_layers > 0) j["dense_layers"] = m.dense_layers;  // the first layers, before the MoE ones
        if (m.moe_every > 1) j["moe_every"] = m.moe_every;          // after them, MoE on every n-th layer
        j["moe_layers"] = moe_layers(m);
    }
    // Latent attention (DeepSeek-V2/V3): "head_dim" above is hidden / heads, no width of the model; its heads
    // are qk_nope_head_dim + qk_rope_head_dim wide for Q·K and v_head_dim for V, its cache one latent of
    // kv_lora_rank (+ the rope part), its queries through a q_lora_rank latent (0: a full projection).
    if (latent_attention(m)) {
        j["kv_lora_rank"] = m.kv_lora_rank;
        j["q_lora_rank"] = m.q_lora_rank;
        j["qk_nope_head_dim"] = m.qk_nope_head_dim;
        j["qk_rope_head_dim"] = m.qk_rope_head_dim;
        j["v_head_dim"] = m.v_head_dim;
    }
    if (m.norms_per_layer != 2) j["norms_per_layer"] = m.norms_per_layer;
    if (m.sliding_window > 0) {  // tokens; every global_every-th layer global (0: none)
        j["sliding_window"] = m.sliding_window;
        j["global_every"] = m.global_every;
        j["local_attention_layers"] = local_attention_layers(m);
        j["global_attention_layers"] = global_attention_layers(m);
    }
    if (m.vision_weights > 0) j["vision_parameters"] = m.vision_weights;  // in "parameters", not in the FLOPs
    return j;
}

/// The inference split's memory per GPU, in bytes (integers).
[[nodiscard]] inline json inference_memory(const InferenceMemory& m, const Gpu& g) {
    return {{"weights", exact_bytes(m.weights)}, {"kv_cache", exact_bytes(m.kv_cache)},
            {"working", exact_bytes(m.working)}, {"total", exact_bytes(m.total())},
            {"usable", exact_bytes(usable_memory(g))}};
}

/// One collective's time, split into its latency and bandwidth terms.
[[nodiscard]] inline json collective_time(Bytes message, long long gpus, const CollectiveTime& t) {
    return {{"bytes", exact_bytes(message)},
            {"gpus", gpus},
            {"time_s", t.total().value()},
            {"latency_s", t.latency.value()},
            {"bandwidth_s", t.bandwidth.value()}};
}

/// A training layout as given (and the values it resolves to).
[[nodiscard]] inline json layout(const Parallelism& p) {
    return {{"tp", p.tp},
            {"pp", p.pp},
            {"dp", p.dp},
            {"cp", p.cp},
            {"ep", p.ep},
            {"vp", p.virtual_stages},
            {"micro_batch", p.micro_batch},
            {"global_batch", p.global_batch},
            {"sequence", p.sequence},
            {"sequence_parallel", p.sequence_parallel},
            {"flash_attention", p.flash_attention},
            {"recompute", to_string(p.recompute)},
            {"zero", to_string(p.sharding)},
            {"weights_dtype", to_string(p.weights)},
            {"gradients_dtype", to_string(p.gradients)},
            {"master_dtype", to_string(p.master)},
            {"moments_dtype", to_string(p.moments)},
            {"schedule", to_string(resolved_schedule(p))}};
}

/// A training estimate's memory per GPU in bytes (integers) and whether it fits.
[[nodiscard]] inline json training_memory(const TrainingEstimate& e, const Gpu& g) {
    return {{"weights", exact_bytes(e.memory.weights)},
            {"gradients", exact_bytes(e.memory.gradients)},
            {"optimizer", exact_bytes(e.memory.optimizer)},
            {"activations", exact_bytes(e.memory.activations)},
            {"cuda_context", exact_bytes(e.memory.cuda_context)},
            {"nccl_buffers", exact_bytes(e.memory.nccl_buffers)},
            {"loss_logits", exact_bytes(e.memory.loss_logits)},
            {"fragmentation", exact_bytes(e.memory.fragmentation)},
            {"total", exact_bytes(e.memory.total())},
            {"usable", exact_bytes(usable_memory(g))},
            {"fits", e.fits}};
}

/// The parts of a training step, in seconds.
[[nodiscard]] inline json step_breakdown(const StepBreakdown& b) {
    return {{"compute", b.compute.value()}, {"recompute", b.recompute.value()}, {"tp", b.tp.value()},
            {"pp", b.pp.value()},           {"bubble", b.bubble.value()},       {"dp", b.dp.value()},
            {"ep", b.ep.value()},           {"cp", b.cp.value()},               {"optimizer", b.optimizer.value()}};
}

/// A whole run (napkin/run_cost.hpp), the "run" object of train and plan: {"time_s", "cost_usd", "energy_kwh",
/// "failures", "checkpoint_interval_s", "goodput", ...}; null where the input was not given (no price, no power,
/// no --mtbf).
[[nodiscard]] inline json run(const RunCost& r, const RunQuery& q, double steps) {
    json j{{"steps", steps},
           {"useful_s", r.useful.value()},
           {"time_s", r.wall.value()},
           {"cost_usd", nullptr},
           {"energy_kwh", nullptr},
           {"facility_mw", nullptr},
           {"power_per_gpu_w", nullptr},
           {"pue", q.pue},
           {"failures", nullptr},
           {"job_mtbf_s", nullptr},
           {"checkpoint_interval_s", nullptr},
           {"lost_per_failure_s", nullptr},
           {"goodput", nullptr}};
    if (q.usd_per_gpu_hour > 0) j["cost_usd"] = r.cost_usd;
    if (q.power_per_gpu.value() > 0) {
        j["energy_kwh"] = in(r.energy, units::kWh);
        j["facility_mw"] = in(r.facility_power, units::MW);
        j["power_per_gpu_w"] = q.power_per_gpu.value();
    }
    if (r.failures_modelled) {
        j["failures"] = r.failures;
        j["job_mtbf_s"] = r.job_mtbf.value();
        j["checkpoint_interval_s"] = r.interval.value();
        j["lost_per_failure_s"] = r.lost_per_failure.value();
        j["goodput"] = r.goodput;
    }
    return j;
}

}  // namespace napkin::io::json
