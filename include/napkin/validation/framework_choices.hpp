// SPDX-License-Identifier: MIT
// napkin/validation/framework_choices.hpp — what a training framework could
// run, as a planner query, and where a published run's layout ranks among
// those choices. A published layout was chosen among what its framework
// offered then (Megatron-LM in 2021 had no sequence parallelism, PyTorch FSDP
// no tensor parallelism), so that is the space it is ranked in.
//
//   const StepRank r = published_rank(run);  // r.rank() of r.ranked, r.share()
#pragma once

#include <napkin/measured_run.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/planner.hpp>

#include <string_view>

namespace napkin {

/// A framework's choices as the planner searches them (TrainingPlanQuery's fields of the same names).
struct FrameworkChoices {
    unsigned schedules = schedules_all;
    unsigned recomputes = recomputes_all;
    unsigned shardings = shardings_all;
    unsigned gradient_dtypes = dtype_bit(DType::bf16) | dtype_bit(DType::fp32);
    bool sequence_parallel = true;
    bool flash_attention = true;
    bool overlap_dp = true;
    long long max_tp = 0;  // 0: no limit
    long long max_pp = 0;  // 0: no limit
    long long max_cp = 1;  // 1: no context parallelism
};

/// Megatron-LM as Narayanan et al. 2021 (SC21) ran it: 1F1B and the interleaved schedule (their Sec. 2.2),
/// activation recomputation on or off (Sec. 3.5); no sequence parallelism or selective recomputation
/// (Korthikanti et al. 2022, arXiv 2205.05198, came after), no optimizer sharding (the runs keep every state on
/// each replica), no fused attention (Dao et al. 2022, arXiv 2205.14135), fp32 gradients (their runs'), and
/// the gradients all-reduced once the backward is done (its data-parallel module of the time; the overlapped
/// reduce came with Megatron-Core's distributed optimizer).
inline constexpr FrameworkChoices megatron_2021_choices{
    .schedules = schedule_bit(ScheduleKind::one_f_one_b) | schedule_bit(ScheduleKind::interleaved),
    .recomputes = recompute_bit(Recompute::none) | recompute_bit(Recompute::full),
    .shardings = sharding_bit(Sharding::none),
    .gradient_dtypes = dtype_bit(DType::fp32),
    .sequence_parallel = false,
    .flash_attention = false,
    .overlap_dp = false};

/// PyTorch FSDP under Composer (llm-foundry): data parallelism only (tp = pp = 1), FULL_SHARD or SHARD_GRAD_OP
/// (ZeRO-3 or ZeRO-2: torch.distributed.fsdp.ShardingStrategy), activation checkpointing on or off, fused
/// attention.
inline constexpr FrameworkChoices fsdp_choices{
    .recomputes = recompute_bit(Recompute::none) | recompute_bit(Recompute::full),
    .shardings = sharding_bit(Sharding::zero2) | sharding_bit(Sharding::zero3),
    .max_tp = 1,
    .max_pp = 1};

/// Megatron-Core (the Megatron-LM README's runs, NeMo): tensor parallelism with or without sequence
/// parallelism, 1F1B and interleaved pipelines, selective or full recomputation, Megatron's distributed
/// optimizer (searched as its ZeRO-1 twin) or none, fused attention, context parallelism up to one node's
/// 8 GPUs (its rank order puts cp right after tp, inside the node).
inline constexpr FrameworkChoices megatron_core_choices{
    .schedules = schedule_bit(ScheduleKind::one_f_one_b) | schedule_bit(ScheduleKind::interleaved),
    .shardings = sharding_bit(Sharding::none) | sharding_bit(Sharding::zero1),
    .max_cp = 8};

/// The choices of a MeasuredRun's `framework`; every choice for one napkin does not know.
[[nodiscard]] constexpr FrameworkChoices framework_choices(std::string_view framework) {
    if (framework == "Megatron-LM (2021)") return megatron_2021_choices;
    if (framework == "llm-foundry (FSDP)") return fsdp_choices;
    if (framework == "Megatron-LM (Megatron-Core)" || framework == "NeMo (Megatron-Core)") return megatron_core_choices;
    return {};
}

/// The planner's query for the run's model, cluster, batch and sequence within its framework's choices: its
/// formats (base) and framework settings (options) as it ran, the layout searched.
[[nodiscard]] inline TrainingPlanQuery framework_query(const MeasuredRun& run) {
    const FrameworkChoices f = framework_choices(run.framework);
    TrainingPlanQuery q{.model = run.model,
                        .cluster = run.cluster,
                        .global_batch = run.layout.global_batch,
                        .sequence = run.layout.sequence,
                        .max_tp = f.max_tp,
                        .max_cp = f.max_cp,
                        .max_pp = f.max_pp,
                        .schedules = f.schedules,
                        .gradient_dtypes = f.gradient_dtypes,
                        .flash_attention = f.flash_attention,
                        .recomputes = f.recomputes,
                        .shardings = f.shardings,
                        .sequence_parallel = f.sequence_parallel,
                        .overlap_dp = f.overlap_dp,
                        .base = run.layout,
                        .options = run.options,
                        .top_k = 1};
    return q;
}

/// Where the run's layout (a partial row at its best searched setting, measured_run.hpp) ranks by step time
/// among what its framework could run, as napkin prices both.
[[nodiscard]] inline StepRank published_rank(const MeasuredRun& run,
                                             const EfficiencyProfile& profile = default_profile) {
    const MeasuredRun published = best_setting(run, profile);
    TrainingPlanQuery q = framework_query(published);
    q.options.profile = profile;
    return rank_of_step(q, evaluated_step(published, profile));
}

}  // namespace napkin
