// SPDX-License-Identifier: MIT
// napkin/io/json_plans.hpp — the planners' answers as JSON: a training plan's
// row (napkin plan --json, Python's Plan.rows()) and plan-inference's records
// (napkin plan-inference --json, Python's plan_inference and plan_serving).
// Apart from io/json.hpp so that a writer of single estimates (the lesson
// pages' bindings) does not pull in the planners.
#pragma once

#include <napkin/inference_planner.hpp>
#include <napkin/io/json.hpp>
#include <napkin/planner.hpp>

#include <cmath>

namespace napkin::io::json {

/// One split of plan_inference: its layout, memory per GPU and time per token.
[[nodiscard]] inline json inference_candidate(const InferenceCandidate& c, const Gpu& g) {
    return {{"tp", c.split.tp},
            {"pp", c.split.pp},
            {"gpus", c.split.gpus()},
            {"tokens_in_flight", c.split.tokens_in_flight},
            {"memory", inference_memory(c.memory, g)},
            {"read_s", c.time.read.value()},
            {"transfer_s", c.time.transfer.value()},
            {"total_s", c.time.total().value()},
            {"user_tokens_per_s", c.time.user_tokens_per_second().value()},
            {"tokens_per_s", c.tokens_per_second().value()}};
}

/// plan_inference's answer, the "fewest", "best" and "search" keys of
/// plan-inference --json (null: no split holds the model or meets the bound).
[[nodiscard]] inline json inference_plan(const InferencePlan& plan, const Gpu& g) {
    json j{{"fewest", nullptr}, {"best", nullptr}};
    if (plan.fewest) j["fewest"] = inference_candidate(*plan.fewest, g);
    if (plan.best) j["best"] = inference_candidate(*plan.best, g);
    j["search"] = {{"points_evaluated", plan.points_evaluated},
                   {"points_rejected", plan.rejected_memory + plan.rejected_latency},
                   {"rejected", {{"memory", plan.rejected_memory}, {"latency", plan.rejected_latency}}},
                   {"points_pruned", plan.pruned}};
    return j;
}

/// A bound in seconds, null for none (+inf).
[[nodiscard]] inline json bound_seconds(Seconds bound) {
    return std::isinf(bound.value()) ? json(nullptr) : json(bound.value());
}

/// plan_serving's answer, the "serving" key of plan-inference --json without
/// --arrival-rate: the query's bounds and tokens, the best layout and
/// concurrency (null: none meets the bounds), the search's counts.
[[nodiscard]] inline json serving_plan(const ServingPlan& plan, const ServingPlanQuery& q) {
    json j{{"tpot_bound_s", bound_seconds(q.tpot_bound)},
           {"ttft_bound_s", bound_seconds(q.ttft_bound)},
           {"input_tokens", q.input_tokens},
           {"output_tokens", q.output_tokens},
           {"best", nullptr},
           {"search",
            {{"points_evaluated", plan.points_evaluated},
             {"rejected", {{"memory", plan.rejected_memory}, {"latency", plan.rejected_latency}}},
             {"points_pruned", plan.pruned}}}};
    if (plan.best) {
        const ServingEstimate& e = *plan.best;
        j["best"] = {{"tp", e.layout.tp},
                     {"pp", e.layout.pp},
                     {"ep", e.layout.ep},
                     {"gpus", e.layout.gpus()},
                     {"concurrency", e.workload.concurrency},
                     {"ttft_s", e.ttft.value()},
                     {"tpot_s", e.tpot.value()},
                     {"e2e_s", e.e2e.value()},
                     {"output_tokens_per_s", e.output_tokens_per_s.value()},
                     {"output_tokens_per_s_per_gpu", e.output_tokens_per_s_per_gpu.value()},
                     {"requests_per_s", e.requests_per_s.value()},
                     {"memory_total", exact_bytes(e.memory.total())}};
    }
    return j;
}

/// One row of a training plan (napkin plan --json's "top" and "pareto", and
/// Python's Plan.rows()): the layout, the options the search varied, memory
/// in bytes, the step and its parts in seconds, throughput and MFU.
[[nodiscard]] inline json training_candidate(const TrainingCandidate& c, const Gpu& g) {
    const Parallelism& p = c.point.parallelism;
    const TrainingOptions& o = c.point.options;
    const TrainingEstimate& e = c.estimate;
    return {{"tp", p.tp},
            {"pp", p.pp},
            {"dp", p.dp},
            {"cp", p.cp},
            {"ep", p.ep},
            {"vp", p.virtual_stages},
            {"micro_batch", p.micro_batch},
            {"microbatches", microbatches(p)},
            {"recompute", to_string(p.recompute)},
            {"sequence_parallel", p.sequence_parallel},
            {"zero", to_string(p.sharding)},
            {"schedule", to_string(p.schedule)},
            {"overlap_dp", o.overlap_dp},
            {"flash_attention", p.flash_attention},
            {"tp_communication", to_string(o.tp_communication)},
            {"pipeline_scatter_gather", o.pipeline_scatter_gather},
            {"grad_dtype", to_string(p.gradients)},
            {"memory", training_memory(e, g)},
            {"step_s", e.step.value()},
            {"breakdown", step_breakdown(e.breakdown)},
            {"tokens_per_s", e.tokens_per_second.value()},
            {"mfu", e.mfu}};
}

}  // namespace napkin::io::json
