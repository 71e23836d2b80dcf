// SPDX-License-Identifier: MIT
// napkin/pipeline.hpp — pipeline parallelism in closed form: the bubble, the
// step time and the activations in flight of each pipeline schedule.
//
// Notation (shared with the papers cited below): p stages (ranks), m
// micro-batches per step, v chunks (virtual stages) per rank. StageTimes hold
// one micro-batch's forward F and full backward B through a whole stage (all
// its chunks); W is the weight-gradient part of B, which the zero-bubble and
// DualPipe schedules run on its own.
//
// Two conventions for "the bubble", named so they cannot be confused:
//   bubble_share_of_step   bubble / step          (p − 1)/(v·m + p − 1) for 1F1B-like schedules
//   bubble_ratio_to_ideal  bubble / (m·(F + B))   (p − 1)/(v·m), Narayanan et al. 2021 Sec. 2.2
//
// Schedules are types satisfying `PipelineSchedule`; pass one by value:
//   bubble_time(Interleaved{}, {.stages = 4, .microbatches = 8, .chunks = 2}, times)
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <limits>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace napkin {

/// p, m, v.
struct PipelineShape {
    long long stages;
    long long microbatches;
    long long chunks = 1;
};

/// One micro-batch through one whole stage (all of its chunks).
struct StageTimes {
    Seconds forward;
    Seconds backward;                    // the full backward: input gradient and weight gradient
    Seconds weight_grad = Seconds{};     // the weight-gradient part of `backward` (zero-bubble W)
};

namespace detail {
/// The usual shape passes in one branch; the checks below then name what is wrong.
[[nodiscard]] constexpr bool usual_shape(const PipelineShape& s) {
    long long virtual_microbatches = 0, virtual_stages = 0;  // up to 2^64 in range: formed without wrapping
    return (s.stages >= 1) && (s.stages <= limits::gpus) && (s.microbatches >= 1) && (s.microbatches <= limits::batch) &&
           (s.chunks >= 1) && (s.chunks <= limits::layers) &&
           !__builtin_mul_overflow(s.microbatches, s.chunks, &virtual_microbatches) &&
           virtual_microbatches <= limits::tokens && !__builtin_mul_overflow(s.stages, s.chunks, &virtual_stages) &&
           virtual_stages <= limits::passes;
}
[[gnu::cold, gnu::noinline]] constexpr void name_shape_fault(const PipelineShape& s) {
    require_count("PipelineShape.stages", s.stages, limits::gpus);
    require_count("PipelineShape.microbatches", s.microbatches, limits::batch);
    require_count("PipelineShape.chunks", s.chunks, limits::layers);
    // The closed forms count m·v virtual micro-batches and p·v virtual
    // stages, and Interleaved's warm-up adds (v − 1)·p and 2(p − 1) to
    // extra_warmup ≤ m·v: each product formed without wrapping (checked_mul),
    // then bounded (p·v by limits::passes like Parallelism's pp × v, m·v by
    // limits::tokens) so that every sum of them stays exact below 2^63.
    const long long virtual_microbatches =
        checked_mul(s.microbatches, s.chunks, "PipelineShape.microbatches × chunks");
    if (virtual_microbatches > limits::tokens)
        reject_exact("PipelineShape.microbatches × chunks", std::to_string(virtual_microbatches),
                     "must be at most 2^53 = " + std::to_string(limits::tokens));
    const long long virtual_stages = checked_mul(s.stages, s.chunks, "PipelineShape.stages × chunks");
    if (virtual_stages > limits::passes)
        reject_exact("PipelineShape.stages × chunks", std::to_string(virtual_stages),
                     "must be at most 2^40 = " + std::to_string(limits::passes));
}
/// A time in {0} ∪ [DBL_MIN, 1e9 s]: the usual stage time, in one branch.
[[nodiscard]] constexpr bool usual_stage_seconds(double x) {
    return x == 0.0 || (x >= std::numeric_limits<double>::min() && x <= limits::stage_seconds);
}
[[gnu::cold, gnu::noinline]] constexpr void name_times_fault(const StageTimes& t) {
    require_non_negative("StageTimes.forward (s)", t.forward.value());
    require_non_negative("StageTimes.backward (s)", t.backward.value());
    require_non_negative("StageTimes.weight_grad (s)", t.weight_grad.value());
    // A micro-batch through one stage in at most 1e9 s (31 years): every step
    // of up to 2^40 stages and micro-batches then stays finite.
    require(t.forward.value() <= limits::stage_seconds, "StageTimes.forward (s)", t.forward.value(),
            "must be at most 1e9 s");
    require(t.backward.value() <= limits::stage_seconds, "StageTimes.backward (s)", t.backward.value(),
            "must be at most 1e9 s");
    require(t.weight_grad <= t.backward, "StageTimes.weight_grad (s)", t.weight_grad.value(),
            "must not exceed StageTimes.backward, of which it is a part");
}
constexpr void check_shape(const PipelineShape& s) {
    if (!usual_shape(s)) [[unlikely]]
        name_shape_fault(s);
}
constexpr void check_times(const StageTimes& t) {
    if (!(usual_stage_seconds(t.forward.value()) && usual_stage_seconds(t.backward.value()) &&
          usual_stage_seconds(t.weight_grad.value()) && (t.weight_grad <= t.backward))) [[unlikely]]
        name_times_fault(t);
}
constexpr void require_one_chunk(const PipelineShape& s) {
    require(s.chunks == 1, "PipelineShape.chunks", count(s.chunks),
            "must be 1 for this schedule (interleaved chunks are the Interleaved schedule)");
}
constexpr void check_rank(const PipelineShape& s, long long rank) {
    require(rank >= 0 && rank < s.stages, "rank", count(rank), "must be in [0, PipelineShape.stages)");
}
}  // namespace detail

/// Checks a pipeline's shape (p, m, v at least 1) and its stage times (finite,
/// non-negative, W within B), naming the field.
[[nodiscard]] constexpr const PipelineShape& validated(const PipelineShape& s) {
    detail::check_shape(s);
    return s;
}
/// The same for stage times: finite, non-negative, W within B; returns `t`.
[[nodiscard]] constexpr const StageTimes& validated(const StageTimes& t) {
    detail::check_times(t);
    return t;
}

// ---------------------------------------------------------------------------
// The schedules. Each knows its closed-form bubble, the micro-batches a rank
// holds activations for, and how much parameter memory it needs relative to
// a plain pipeline (1 = the rank's 1/p share of the model).

/// GPipe (Huang et al. 2019, Sec. 2.2): all forwards, then all backwards; the
/// bubble is (p − 1)(F + B) and every rank keeps all m micro-batches' activations.
struct GPipe {
    static constexpr std::string_view name = "gpipe";
    constexpr void validate(const PipelineShape& s) const { detail::require_one_chunk(s); }
    [[nodiscard]] constexpr Seconds bubble(const PipelineShape& s, const StageTimes& t) const {
        return count(s.stages - 1) * (t.forward + t.backward);
    }
    [[nodiscard]] constexpr long long in_flight(const PipelineShape& s, long long) const { return s.microbatches; }
    [[nodiscard]] constexpr double peak_activations(const PipelineShape& s) const { return count(s.microbatches); }
    [[nodiscard]] constexpr double parameter_copies() const { return 1.0; }
};

/// 1F1B, PipeDream-Flush (Narayanan et al. 2021, Sec. 2.2.1): rank r runs
/// p − r − 1 warm-up forwards, then alternates one forward and one backward.
/// Same bubble as GPipe, (p − 1)(F + B), but rank r holds only p − r micro-batches.
struct OneFOneB {
    static constexpr std::string_view name = "1f1b";
    constexpr void validate(const PipelineShape& s) const { detail::require_one_chunk(s); }
    [[nodiscard]] constexpr Seconds bubble(const PipelineShape& s, const StageTimes& t) const {
        return count(s.stages - 1) * (t.forward + t.backward);
    }
    [[nodiscard]] constexpr long long in_flight(const PipelineShape& s, long long rank) const {
        return std::min(s.stages - rank, s.microbatches);
    }
    [[nodiscard]] constexpr double peak_activations(const PipelineShape& s) const {
        return count(in_flight(s, 0));
    }
    [[nodiscard]] constexpr double parameter_copies() const { return 1.0; }
};

/// Interleaved 1F1B (Narayanan et al. 2021, Sec. 2.2.2; Megatron-LM
/// megatron/core/pipeline_parallel/schedules.py): each rank holds v chunks, so a
/// micro-batch crosses every rank v times and the bubble shrinks v-fold:
/// (p − 1)(F + B)/v. Megatron's order takes virtual micro-batches in groups of
/// p, which needs m to be a multiple of p. With v = 1 it is 1F1B.
struct Interleaved {
    // Forwards run before the first backward beyond Megatron's warm-up count.
    // Megatron with --overlap-moe-expert-parallel-comm runs one more, so each
    // steady-state forward can overlap a backward (the reference schedule
    // moe-training-step-1024-gpus.json shows it on all 4 of its stages).
    long long extra_warmup = 0;
    // Each steady-state forward runs together with the backward after it as one
    // block (Megatron's --overlap-moe-expert-parallel-comm: one pass's expert
    // all-to-all hides behind the other's compute); schedule.hpp simulates it.
    bool paired = false;

    static constexpr std::string_view name = "interleaved";
    constexpr void validate(const PipelineShape& s) const {
        // The usual shape in one branch (extra_warmup in [0, m·v], m·v formed without wrapping, p | m when
        // v > 1); the checks below name what is wrong.
        long long virtual_microbatches = 0;
        if (!(extra_warmup >= 0 && !__builtin_mul_overflow(s.microbatches, s.chunks, &virtual_microbatches) &&
              extra_warmup <= virtual_microbatches && (s.chunks == 1 || (s.stages >= 1 && s.microbatches % s.stages == 0))))
            [[unlikely]]
            name_fault(s);
    }
    /// validate's checks one by one, naming the first that fails (out of line: a usual shape never runs them).
    [[gnu::cold, gnu::noinline]] constexpr void name_fault(const PipelineShape& s) const {
        require_non_negative("Interleaved.extra_warmup", count(extra_warmup));
        // Past m·v extra forwards every forward already runs first: a larger
        // count changes nothing but the arithmetic's range.
        if (extra_warmup > checked_mul(s.microbatches, s.chunks, "PipelineShape.microbatches × chunks"))
            reject_exact("Interleaved.extra_warmup", std::to_string(extra_warmup),
                   "must be at most PipelineShape.microbatches × chunks = " + std::to_string(s.microbatches * s.chunks),
                         {"PipelineShape.microbatches", "PipelineShape.chunks"});
        if (s.chunks > 1 && (s.stages < 1 || s.microbatches % s.stages != 0))
            reject("PipelineShape.microbatches", count(s.microbatches),
                           "must be a multiple of PipelineShape.stages = " + std::to_string(s.stages) +
                               " in Megatron's interleaved schedule",
                   {"PipelineShape.stages"});
    }
    [[nodiscard]] constexpr Seconds bubble(const PipelineShape& s, const StageTimes& t) const {
        return count(s.stages - 1) * (t.forward + t.backward) / count(s.chunks);
    }
    // Megatron's warm-up on rank r: 2(p − r − 1) + (v − 1)·p forwards, capped at
    // m·v, and every forward first when m == p; one more forward runs before the
    // first backward. Counted in chunk passes: each holds 1/v of a stage's activations.
    [[nodiscard]] constexpr long long warmup(const PipelineShape& s, long long rank) const {
        const long long p = s.stages, m = s.microbatches, v = s.chunks;
        if (v == 1) return std::min(p - rank - 1 + extra_warmup, m);
        if (m == p) return m * v;
        return std::min(2 * (p - rank - 1) + (v - 1) * p + extra_warmup, m * v);
    }
    [[nodiscard]] constexpr long long in_flight(const PipelineShape& s, long long rank) const {
        return std::min(warmup(s, rank) + 1, s.microbatches * s.chunks);
    }
    // Rank 0 holds the most: p + (p − 1)/v micro-batches, the (1 + (p − 1)/(p·v))
    // factor of Korthikanti et al. 2022 Sec. 4.2.3.
    [[nodiscard]] constexpr double peak_activations(const PipelineShape& s) const {
        return count(in_flight(s, 0)) / count(s.chunks);
    }
    [[nodiscard]] constexpr double parameter_copies() const { return 1.0; }
};

/// Zero Bubble ZB-H1 (Qi et al. 2023, "Zero Bubble Pipeline Parallelism", Sec. 3.1):
/// the backward is split into B (input gradient) and W (weight gradient), W runs
/// later to fill the cool-down. Paper notation T_B = B − W here:
/// bubble (p − 1)(T_F + T_B − T_W) = (p − 1)(F + B − 2W), activations p·M_B as 1F1B.
/// The paper's handcrafted schedule reaches it when W ≤ F and W ≤ B − W and m ≥ p.
struct ZeroBubbleH1 {
    static constexpr std::string_view name = "zb-h1";
    constexpr void validate(const PipelineShape& s) const { detail::require_one_chunk(s); }
    [[nodiscard]] constexpr Seconds bubble(const PipelineShape& s, const StageTimes& t) const {
        return std::max(Seconds{}, count(s.stages - 1) * (t.forward + t.backward - 2.0 * t.weight_grad));
    }
    [[nodiscard]] constexpr long long in_flight(const PipelineShape& s, long long) const {
        return std::min(s.stages, s.microbatches);
    }
    [[nodiscard]] constexpr double peak_activations(const PipelineShape& s) const { return count(in_flight(s, 0)); }
    [[nodiscard]] constexpr double parameter_copies() const { return 1.0; }
};

/// Zero Bubble ZB-H2 (Qi et al. 2023, Sec. 3.1): more warm-up forwards fill the
/// bubble before the first B; bubble (p − 1)(T_F + T_B − 2T_W) = (p − 1)(F + B − 3W),
/// zero when F = T_B = W, for (2p − 1)·M_B of activations. The bubble is each
/// stage's idle time inside its own span: the step is a parallelogram whose
/// first and last stages start and end (p − 1)·F apart, and the paper overlaps
/// consecutive steps (post-validation instead of an optimizer barrier, Sec. 4),
/// so step_time is the time per step of a run of them. One step alone, with an
/// optimizer barrier after it, takes m(F + B) + (p − 1)·max(F, F + B − 3W)
/// (schedule.hpp simulates that step; its Timeline::overlapped_step_time is this
/// closed form's step, tests/unit/schedule.cpp).
struct ZeroBubbleH2 {
    static constexpr std::string_view name = "zb-h2";
    constexpr void validate(const PipelineShape& s) const { detail::require_one_chunk(s); }
    [[nodiscard]] constexpr Seconds bubble(const PipelineShape& s, const StageTimes& t) const {
        return std::max(Seconds{}, count(s.stages - 1) * (t.forward + t.backward - 3.0 * t.weight_grad));
    }
    [[nodiscard]] constexpr long long in_flight(const PipelineShape& s, long long) const {
        return std::min(2 * s.stages - 1, s.microbatches);
    }
    [[nodiscard]] constexpr double peak_activations(const PipelineShape& s) const { return count(in_flight(s, 0)); }
    [[nodiscard]] constexpr double parameter_copies() const { return 1.0; }
};

/// DualPipe (DeepSeek-V3 technical report 2024, Sec. 3.2.1, and the DualPipe
/// repository's README table): micro-batches enter from both ends of the
/// pipeline, each rank holding its own stage and the mirrored one.
/// Bubble (p/2 − 1)(F&B + B − 3W), F&B the time of a forward and a backward
/// chunk overlapped with each other (F + B when no overlap is assumed);
/// 2× parameters, p + 1 micro-batches of activations; p must be even.
/// Where this form holds the simulator (schedule.hpp) reproduces it exactly;
/// README "Pipeline parallelism" gives the range and a case outside it.
struct DualPipe {
    std::optional<Seconds> overlapped_forward_backward{};  // F&B; F + B when not given

    static constexpr std::string_view name = "dualpipe";
    constexpr void validate(const PipelineShape& s) const {
        // The usual shape in one branch; the checks below name what is wrong.
        if (!(s.chunks == 1 && s.stages % 2 == 0 &&
              (!overlapped_forward_backward || usual_non_negative(overlapped_forward_backward->value()))))
            [[unlikely]]
            name_fault(s);
    }
    /// validate's checks one by one, naming the first that fails (out of line: a usual shape never runs them).
    [[gnu::cold, gnu::noinline]] constexpr void name_fault(const PipelineShape& s) const {
        detail::require_one_chunk(s);
        require(s.stages % 2 == 0, "PipelineShape.stages", count(s.stages), "must be even for DualPipe");
        if (overlapped_forward_backward)
            require_non_negative("DualPipe.overlapped_forward_backward (s)",
                                         overlapped_forward_backward->value());
    }
    [[nodiscard]] constexpr Seconds paired(const StageTimes& t) const {
        return overlapped_forward_backward.value_or(t.forward + t.backward);
    }
    [[nodiscard]] constexpr Seconds bubble(const PipelineShape& s, const StageTimes& t) const {
        return std::max(Seconds{}, (count(s.stages) / 2.0 - 1.0) * (paired(t) + t.backward - 3.0 * t.weight_grad));
    }
    [[nodiscard]] constexpr long long in_flight(const PipelineShape& s, long long) const {
        return std::min(s.stages + 1, s.microbatches);
    }
    [[nodiscard]] constexpr double peak_activations(const PipelineShape& s) const { return count(in_flight(s, 0)); }
    [[nodiscard]] constexpr double parameter_copies() const { return 2.0; }
};

/// DualPipeV (DualPipe repository, the "cut-in-half" V-shape): a DualPipe of 2p
/// stages folded onto p ranks, each rank holding two of them. Its README gives
/// (PP/2 − 1)(F&B + B − 3W) per stage with PP = 2p stages; with this file's
/// per-rank times a stage takes half of them, so the bubble is
/// (p − 1)(F&B + B − 3W)/2. Each rank holds two stages (1× a rank's share of
/// the parameters) and PP + 1 = 2p + 1 stage micro-batches, p + 1/2 in rank units.
/// The simulator reproduces it in the same range as DualPipe's (README).
struct DualPipeV {
    std::optional<Seconds> overlapped_forward_backward{};  // F&B per rank; F + B when not given

    static constexpr std::string_view name = "dualpipev";
    constexpr void validate(const PipelineShape& s) const {
        detail::require_one_chunk(s);
        if (overlapped_forward_backward)
            require_non_negative("DualPipeV.overlapped_forward_backward (s)",
                                         overlapped_forward_backward->value());
    }
    [[nodiscard]] constexpr Seconds paired(const StageTimes& t) const {
        return overlapped_forward_backward.value_or(t.forward + t.backward);
    }
    [[nodiscard]] constexpr Seconds bubble(const PipelineShape& s, const StageTimes& t) const {
        return std::max(Seconds{}, count(s.stages - 1) * (paired(t) + t.backward - 3.0 * t.weight_grad) / 2.0);
    }
    [[nodiscard]] constexpr long long in_flight(const PipelineShape& s, long long) const {
        return std::min(2 * s.stages + 1, 2 * s.microbatches);  // in stage (half-rank) micro-batches
    }
    [[nodiscard]] constexpr double peak_activations(const PipelineShape& s) const {
        return count(in_flight(s, 0)) / 2.0;
    }
    [[nodiscard]] constexpr double parameter_copies() const { return 1.0; }
};

/// A pipeline schedule: its name, a check of the shape, and its closed-form bubble, micro-batches in flight
/// per rank, activation peak and parameter copies.
template <class S>
concept PipelineSchedule = std::copy_constructible<S> &&
    requires(const S& s, const PipelineShape& shape, const StageTimes& t, long long rank) {
        { S::name } -> std::convertible_to<std::string_view>;
        s.validate(shape);
        { s.bubble(shape, t) } -> std::same_as<Seconds>;
        { s.in_flight(shape, rank) } -> std::same_as<long long>;
        { s.peak_activations(shape) } -> std::same_as<double>;
        { s.parameter_copies() } -> std::same_as<double>;
    };

// ---------------------------------------------------------------------------
// The formulas, for any schedule.

/// Checks the shape, then what the schedule itself requires of it (one chunk, an even number of stages, ...).
template <PipelineSchedule S>
constexpr void validate(const S& schedule, const PipelineShape& shape) {
    detail::check_shape(shape);
    schedule.validate(shape);
}

namespace detail {
/// Every closed form's inputs, checked once where they enter.
template <PipelineSchedule S>
constexpr void check_step(const S& schedule, const PipelineShape& shape, const StageTimes& t) {
    validate(schedule, shape);
    check_times(t);
}
[[nodiscard]] constexpr Seconds ideal_step_of(const PipelineShape& shape, const StageTimes& t) {
    return count(shape.microbatches) * (t.forward + t.backward);
}
}  // namespace detail

/// The ideal step: every rank busy all the time, m·(F + B).
[[nodiscard]] constexpr Seconds ideal_step_time(const PipelineShape& shape, const StageTimes& t) {
    detail::check_shape(shape);
    detail::check_times(t);
    return detail::ideal_step_of(shape, t);
}

/// Idle time per rank in one step, as the schedule's paper states it.
template <PipelineSchedule S>
[[nodiscard]] constexpr Seconds bubble_time(const S& schedule, const PipelineShape& shape, const StageTimes& t) {
    detail::check_step(schedule, shape, t);
    return schedule.bubble(shape, t);
}

/// step = m·(F + B) + bubble.
template <PipelineSchedule S>
[[nodiscard]] constexpr Seconds step_time(const S& schedule, const PipelineShape& shape, const StageTimes& t) {
    detail::check_step(schedule, shape, t);
    return detail::ideal_step_of(shape, t) + schedule.bubble(shape, t);
}

/// bubble / step: the share of the step a rank spends idle; (p − 1)/(v·m + p − 1)
/// for GPipe, 1F1B and interleaved 1F1B (p = 4, m = 8: 3/11).
template <PipelineSchedule S>
[[nodiscard]] constexpr double bubble_share_of_step(const S& schedule, const PipelineShape& shape,
                                                    const StageTimes& t) {
    detail::check_step(schedule, shape, t);
    require_positive("StageTimes.forward + StageTimes.backward (s)", (t.forward + t.backward).value());
    const Seconds bubble = schedule.bubble(shape, t);
    return ratio(bubble, detail::ideal_step_of(shape, t) + bubble);
}

/// bubble / (m·(F + B)): Narayanan et al. 2021's "bubble time fraction",
/// (p − 1)/(v·m) for GPipe, 1F1B and interleaved 1F1B (p = 4, m = 8: 3/8).
template <PipelineSchedule S>
[[nodiscard]] constexpr double bubble_ratio_to_ideal(const S& schedule, const PipelineShape& shape,
                                                     const StageTimes& t) {
    detail::check_step(schedule, shape, t);
    require_positive("StageTimes.forward + StageTimes.backward (s)", (t.forward + t.backward).value());
    return ratio(schedule.bubble(shape, t), detail::ideal_step_of(shape, t));
}

/// Micro-batches whose activations rank r holds at its peak: GPipe m, 1F1B
/// p − r, interleaved Megatron's warm-up + 1 (in chunk passes, 1/v of a stage
/// each), zero-bubble p or 2p − 1.
template <PipelineSchedule S>
[[nodiscard]] constexpr long long microbatches_in_flight(const S& schedule, const PipelineShape& shape,
                                                         long long rank) {
    validate(schedule, shape);
    detail::check_rank(shape, rank);
    return schedule.in_flight(shape, rank);
}

/// Memory multipliers. Activations: the most a rank holds, in micro-batches
/// through a whole stage (1F1B: p; GPipe: m; interleaved p + (p − 1)/v; ZB-H2
/// 2p − 1; DualPipe p + 1). Parameters: a rank's weights relative to its 1/p
/// share of the model (DualPipe keeps two stages per rank: 2).
template <PipelineSchedule S>
[[nodiscard]] constexpr double activation_memory_multiplier(const S& schedule, const PipelineShape& shape) {
    validate(schedule, shape);
    return schedule.peak_activations(shape);
}
/// The schedule's parameter multiplier (above).
template <PipelineSchedule S>
[[nodiscard]] constexpr double parameter_memory_multiplier(const S& schedule) {
    return schedule.parameter_copies();
}

// ---------------------------------------------------------------------------
// The schedule registry: every schedule napkin knows, one row each. Parsing,
// printing, run-time dispatch (visit_schedule), the planner's search space and
// its dominance twins are all derived from it. A new schedule is its type
// above, a value in ScheduleKind, an alternative of AnySchedule and one row.

/// ScheduleKind (napkin/parallelism.hpp, the layout's choice) names a row.
/// Row i of the registry is alternative i of AnySchedule.
using AnySchedule = std::variant<GPipe, OneFOneB, Interleaved, ZeroBubbleH1, ZeroBubbleH2, DualPipe, DualPipeV>;

/// One row of the schedule registry: the schedule, its name, and which layouts it accepts.
struct ScheduleTraits {
    ScheduleKind kind;
    std::string_view name;
    bool interleaved = false;              // runs v > 1 chunks per rank, and only those
    long long stages_multiple = 1;         // p must be a multiple of it (DualPipe: 2, one stage per end)
    long long layers_multiple = 1;         // the layers must divide into p·this stages (DualPipeV: 2)
    std::optional<ScheduleKind> dominated_by{};  // a twin never slower, never larger (planner.hpp)
};

/// Every schedule napkin knows, row i for alternative i of AnySchedule.
inline constexpr std::array<ScheduleTraits, std::variant_size_v<AnySchedule>> schedule_registry{{
    // GPipe: 1F1B's bubble with m micro-batches of activations instead of min(m, p).
    {ScheduleKind::gpipe, GPipe::name, false, 1, 1, ScheduleKind::one_f_one_b},
    {ScheduleKind::one_f_one_b, OneFOneB::name},
    {ScheduleKind::interleaved, Interleaved::name, true},
    {ScheduleKind::zero_bubble_h1, ZeroBubbleH1::name},
    {ScheduleKind::zero_bubble_h2, ZeroBubbleH2::name},
    {ScheduleKind::dualpipe, DualPipe::name, false, 2},
    {ScheduleKind::dualpipev, DualPipeV::name, false, 1, 2},
}};

namespace detail {
template <std::size_t... I>
constexpr bool registry_matches_types(std::index_sequence<I...>) {
    return ((schedule_registry[I].name == std::variant_alternative_t<I, AnySchedule>::name &&
             schedule_registry[I].name == to_string(schedule_registry[I].kind) &&
             schedule_registry[I].kind != ScheduleKind::automatic) &&
            ...);
}
constexpr std::size_t registry_index(ScheduleKind kind) {
    for (std::size_t i = 0; i < schedule_registry.size(); ++i)
        if (schedule_registry[i].kind == kind) return i;
    return schedule_registry.size();
}
template <class F, std::size_t... I>
constexpr decltype(auto) visit_index(std::size_t index, F&& f, std::index_sequence<I...>) {
    using Result = decltype(f(std::variant_alternative_t<0, AnySchedule>{}));
    if constexpr (std::is_void_v<Result>) {
        (void)((index == I ? (f(std::variant_alternative_t<I, AnySchedule>{}), true) : false) || ...);
    } else {
        Result result{};
        (void)((index == I ? (result = f(std::variant_alternative_t<I, AnySchedule>{}), true) : false) || ...);
        return result;
    }
}
}  // namespace detail
static_assert(detail::registry_matches_types(std::make_index_sequence<schedule_registry.size()>{}),
              "row i of schedule_registry must name alternative i of AnySchedule, by its ScheduleKind name");

/// "gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipe or dualpipev": for help and errors.
[[nodiscard]] inline std::string schedule_names() {
    std::string text;
    for (std::size_t i = 0; i < schedule_registry.size(); ++i) {
        if (i > 0) text += i + 1 == schedule_registry.size() ? " or " : ", ";
        text += schedule_registry[i].name;
    }
    return text;
}

/// The registry row of a schedule (`automatic` has none: resolve it first).
[[nodiscard]] constexpr const ScheduleTraits& traits_of(ScheduleKind kind) {
    const std::size_t i = detail::registry_index(kind);
    if (i == schedule_registry.size()) reject("schedule", "auto", "must be resolved to a schedule first");
    return schedule_registry[i];
}

/// Calls f with the schedule's type (OneFOneB{}, Interleaved{}, ...): no
/// allocation; f must return the same type for every schedule.
template <class F>
constexpr decltype(auto) visit_schedule(ScheduleKind kind, F&& f) {
    return detail::visit_index(detail::registry_index(traits_of(kind).kind), std::forward<F>(f),
                               std::make_index_sequence<schedule_registry.size()>{});
}

/// The pipeline of a layout: p stages, m micro-batches, v chunks.
[[nodiscard]] constexpr PipelineShape pipeline_shape(const Parallelism& par) {
    return PipelineShape{.stages = par.pp, .microbatches = microbatches(par), .chunks = par.virtual_stages};
}

/// Calls `f` with the layout's schedule as its type (OneFOneB{}, Interleaved{},
/// ZeroBubbleH1{}, ...) through visit_schedule: no allocation.
/// `f` must return the same type for every schedule.
template <class F>
constexpr decltype(auto) with_schedule(const Parallelism& par, F&& f) {
    return visit_schedule(resolved_schedule(par), std::forward<F>(f));
}

/// The schedule a name stands for ("gpipe", "1f1b", "interleaved", "zb-h1", ...).
[[nodiscard]] inline AnySchedule schedule_from_name(std::string_view name) {
    const std::optional<ScheduleKind> kind = parse_schedule_kind(name);
    if (!kind || *kind == ScheduleKind::automatic) reject("schedule", name, "must be " + schedule_names());
    return visit_schedule(*kind, [](auto schedule) { return AnySchedule{schedule}; });
}

}  // namespace napkin
