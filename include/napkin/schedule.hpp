// napkin/schedule.hpp — an event-level pipeline simulator: every forward,
// backward and weight-gradient pass of one step, each rank running its
// schedule's fixed order, each pass starting once its rank is free and its
// input has arrived.
//
// Layout (Megatron-LM's, Narayanan et al. 2021 Sec. 2.2.2): with v chunks per
// rank, chunk c of rank r is virtual stage c·p + r, so a micro-batch visits
// ranks 0..p−1 v times. Dependencies: a forward needs the same micro-batch's
// forward on the previous virtual stage; a backward the same micro-batch's
// backward on the next one (the last virtual stage's backward needs its own
// forward); a weight-gradient pass its own backward. A hand-off between two
// different ranks arrives `send` after the producer ends and occupies neither
// rank's compute.
//
// Everything lives in flat vectors sized once per call; simulating is linear
// in the number of passes (each is visited once, a blocked rank is woken only
// by the pass it waits for).
#pragma once

#include <napkin/error.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

enum class Pass : std::uint8_t {
    forward,
    backward,     // the full backward, or only its input-gradient part when the schedule runs W apart
    weight_grad,  // zero-bubble W
};

[[nodiscard]] constexpr std::string_view to_string(Pass pass) {
    switch (pass) {
        case Pass::forward: return "forward";
        case Pass::backward: return "backward";
        case Pass::weight_grad: return "weight_grad";
    }
    return "?";
}

// One pass on one rank. Micro-batches and chunks count from 0.
struct Operation {
    Pass pass;
    long long microbatch;
    long long chunk;
    Seconds start = Seconds{};
    Seconds end = Seconds{};
};

// What each pass takes. per_chunk[stage·v + chunk] is one micro-batch through
// that chunk (uneven layer splits: give each its own); micro-batch j's passes
// are scaled by microbatch_factor[j] when that vector is not empty.
struct ScheduleTimes {
    PipelineShape shape;
    std::vector<StageTimes> per_chunk;
    Seconds send = Seconds{};
    std::vector<double> microbatch_factor{};

    // Equal stages and chunks: a chunk takes the stage's F/v, B/v, W/v.
    [[nodiscard]] static ScheduleTimes uniform(const PipelineShape& shape, const StageTimes& stage,
                                               Seconds send = Seconds{}) {
        detail::check_shape(shape);
        const double v = count(shape.chunks);
        const StageTimes chunk{stage.forward / v, stage.backward / v, stage.weight_grad / v};
        return {shape, std::vector<StageTimes>(static_cast<std::size_t>(shape.stages * shape.chunks), chunk), send,
                {}};
    }
    // One StageTimes per stage, each split evenly over its v chunks.
    [[nodiscard]] static ScheduleTimes per_stage(const PipelineShape& shape, std::span<const StageTimes> stages,
                                                 Seconds send = Seconds{}) {
        detail::check_shape(shape);
        detail::require(count(stages.size()) == count(shape.stages), "stages.size()", count(stages.size()),
                        "must equal PipelineShape.stages");
        ScheduleTimes t{shape, {}, send, {}};
        const double v = count(shape.chunks);
        for (const StageTimes& s : stages)
            for (long long c = 0; c < shape.chunks; ++c)
                t.per_chunk.push_back({s.forward / v, s.backward / v, s.weight_grad / v});
        return t;
    }
    [[nodiscard]] StageTimes& at(long long stage, long long chunk) {
        return per_chunk[static_cast<std::size_t>(stage * shape.chunks + chunk)];
    }
    [[nodiscard]] const StageTimes& at(long long stage, long long chunk) const {
        return per_chunk[static_cast<std::size_t>(stage * shape.chunks + chunk)];
    }
};

// The simulated step: per rank its passes in the order it ran them.
class Timeline {
public:
    Timeline() = default;
    Timeline(PipelineShape shape, std::vector<Operation> operations, std::vector<std::size_t> offsets)
        : shape_(shape), operations_(std::move(operations)), offsets_(std::move(offsets)) {
        busy_.assign(static_cast<std::size_t>(shape.stages), Seconds{});
        for (long long r = 0; r < shape.stages; ++r)
            for (const Operation& op : stage(r)) {
                busy_[static_cast<std::size_t>(r)] += op.end - op.start;
                step_ = std::max(step_, op.end);
            }
    }

    [[nodiscard]] const PipelineShape& shape() const { return shape_; }
    [[nodiscard]] std::span<const Operation> operations() const { return operations_; }
    [[nodiscard]] std::span<const Operation> stage(long long rank) const {
        const auto r = static_cast<std::size_t>(rank);
        return std::span<const Operation>(operations_).subspan(offsets_[r], offsets_[r + 1] - offsets_[r]);
    }
    // The last pass's end.
    [[nodiscard]] Seconds step_time() const { return step_; }
    [[nodiscard]] Seconds busy_time(long long rank) const { return busy_[static_cast<std::size_t>(rank)]; }
    // Step time − the rank's busy time.
    [[nodiscard]] Seconds idle_time(long long rank) const { return step_ - busy_time(rank); }
    // The ranks' idle time summed ÷ (p × step time).
    [[nodiscard]] double idle_fraction() const {
        if (step_ == Seconds{}) return 0.0;
        Seconds idle{};
        for (long long r = 0; r < shape_.stages; ++r) idle += idle_time(r);
        return ratio(idle, count(shape_.stages) * step_);
    }
    // Idle time inside the rank's own span, first start to last end: the
    // bubble as the zero-bubble paper counts it (Qi et al. 2023 Sec. 3.1).
    [[nodiscard]] Seconds idle_within_span(long long rank) const {
        const auto ops = stage(rank);
        if (ops.empty()) return Seconds{};
        return ops.back().end - ops.front().start - busy_time(rank);
    }
    [[nodiscard]] Seconds largest_idle_within_span() const {
        Seconds worst{};
        for (long long r = 0; r < shape_.stages; ++r) worst = std::max(worst, idle_within_span(r));
        return worst;
    }

private:
    PipelineShape shape_{1, 1, 1};
    std::vector<Operation> operations_;
    std::vector<std::size_t> offsets_{0, 0};
    std::vector<Seconds> busy_;
    Seconds step_{};
};

// ---------------------------------------------------------------------------
// The orders. Each appends rank r's passes to `out`.

namespace schedule_order {

inline void forwards(std::vector<Operation>& out, long long first, long long last) {
    for (long long j = first; j < last; ++j) out.push_back({Pass::forward, j, 0});
}
inline void backwards(std::vector<Operation>& out, long long first, long long last) {
    for (long long j = first; j < last; ++j) out.push_back({Pass::backward, j, 0});
}

// warm-up forwards, then one forward / one backward, then the remaining
// backwards (Narayanan et al. 2021 Sec. 2.2.1).
inline void one_f_one_b(std::vector<Operation>& out, long long m, long long warmup) {
    forwards(out, 0, warmup);
    for (long long i = 0; i < m - warmup; ++i) {
        out.push_back({Pass::forward, warmup + i, 0});
        out.push_back({Pass::backward, i, 0});
    }
    backwards(out, m - warmup, m);
}

// 1F1B with W split off and run `delay` backwards late: stage r of ZB-H1 holds
// r finished-B-pending-W micro-batches (p in all, as 1F1B's first stage), ZB-H2
// 2r after 2(p − r − 1) warm-up forwards (2p − 1 in all) — the memory the
// paper gives each (Qi et al. 2023 Sec. 3.1, Fig. 3); the late W's fill the
// cool-down, where 1F1B waits for backwards to come back.
inline void zero_bubble(std::vector<Operation>& out, long long m, long long warmup, long long delay) {
    long long b = 0, w = 0;
    const auto backward_then_w = [&](long long j) {
        out.push_back({Pass::backward, j, 0});
        if (++b - w > delay) out.push_back({Pass::weight_grad, w++, 0});
    };
    forwards(out, 0, warmup);
    for (long long i = 0; i < m - warmup; ++i) {
        out.push_back({Pass::forward, warmup + i, 0});
        backward_then_w(i);
    }
    for (long long j = m - warmup; j < m; ++j) backward_then_w(j);
    while (w < m) out.push_back({Pass::weight_grad, w++, 0});
}

}  // namespace schedule_order

// GPipe: all forwards, then all backwards, in micro-batch order.
inline void append_order(const GPipe&, const PipelineShape& s, long long, std::vector<Operation>& out) {
    schedule_order::forwards(out, 0, s.microbatches);
    schedule_order::backwards(out, 0, s.microbatches);
}
inline void append_order(const OneFOneB&, const PipelineShape& s, long long rank, std::vector<Operation>& out) {
    schedule_order::one_f_one_b(out, s.microbatches, std::min(s.stages - rank - 1, s.microbatches));
}
// Megatron's interleaved order: virtual micro-batch k is micro-batch
// (k / (p·v))·p + k mod p on chunk (k mod p·v) / p going forward, on chunk
// v − 1 − that going backward (schedules.py, get_model_chunk_id).
inline void append_order(const Interleaved& schedule, const PipelineShape& s, long long rank,
                         std::vector<Operation>& out) {
    const long long p = s.stages, v = s.chunks, total = s.microbatches * v;
    if (v == 1) return schedule_order::one_f_one_b(out, s.microbatches, schedule.warmup(s, rank));
    const auto pass = [p, v](Pass kind, long long k) {
        const long long chunk = (k % (p * v)) / p;
        return Operation{kind, (k / (p * v)) * p + k % p, kind == Pass::forward ? chunk : v - 1 - chunk};
    };
    const long long warmup = schedule.warmup(s, rank);
    for (long long k = 0; k < warmup; ++k) out.push_back(pass(Pass::forward, k));
    for (long long k = 0; k < total - warmup; ++k) {
        out.push_back(pass(Pass::forward, warmup + k));
        out.push_back(pass(Pass::backward, k));
    }
    for (long long k = total - warmup; k < total; ++k) out.push_back(pass(Pass::backward, k));
}
inline void append_order(const ZeroBubbleH1&, const PipelineShape& s, long long rank, std::vector<Operation>& out) {
    schedule_order::zero_bubble(out, s.microbatches, std::min(s.stages - rank - 1, s.microbatches), rank);
}
inline void append_order(const ZeroBubbleH2&, const PipelineShape& s, long long rank, std::vector<Operation>& out) {
    schedule_order::zero_bubble(out, s.microbatches, std::min(2 * (s.stages - rank - 1), s.microbatches), 2 * rank);
}

// A schedule the simulator can run: one with a fixed per-rank order.
template <class S>
concept SimulatedSchedule = PipelineSchedule<S> &&
    requires(const S& s, const PipelineShape& shape, long long rank, std::vector<Operation>& out) {
        append_order(s, shape, rank, out);
    };

// Whether the schedule runs W as its own pass.
template <class S>
inline constexpr bool splits_weight_grad = false;
template <>
inline constexpr bool splits_weight_grad<ZeroBubbleH1> = true;
template <>
inline constexpr bool splits_weight_grad<ZeroBubbleH2> = true;

namespace detail {
inline void check_schedule_times(const ScheduleTimes& t, const PipelineShape& shape) {
    require(t.shape.stages == shape.stages && t.shape.chunks == shape.chunks &&
                t.shape.microbatches == shape.microbatches,
            "ScheduleTimes.shape.stages", count(t.shape.stages), "must match the simulated PipelineShape");
    require(count(t.per_chunk.size()) == count(shape.stages * shape.chunks), "ScheduleTimes.per_chunk.size()",
            count(t.per_chunk.size()), "must be PipelineShape.stages × PipelineShape.chunks");
    for (const StageTimes& c : t.per_chunk) check_times(c);
    require_non_negative("ScheduleTimes.send (s)", t.send.value());
    require(t.microbatch_factor.empty() || count(t.microbatch_factor.size()) == count(shape.microbatches),
            "ScheduleTimes.microbatch_factor.size()", count(t.microbatch_factor.size()),
            "must be 0 or PipelineShape.microbatches");
    for (double f : t.microbatch_factor) require_non_negative("ScheduleTimes.microbatch_factor[j]", f);
}
}  // namespace detail

// Every rank's passes in the schedule's order, times not yet set.
template <SimulatedSchedule S>
[[nodiscard]] Timeline schedule_order_of(const S& schedule, const PipelineShape& shape) {
    validate(schedule, shape);
    const long long per_rank = shape.microbatches * shape.chunks * (splits_weight_grad<S> ? 3 : 2);
    std::vector<Operation> ops;
    ops.reserve(static_cast<std::size_t>(shape.stages * per_rank));
    std::vector<std::size_t> offsets{0};
    for (long long r = 0; r < shape.stages; ++r) {
        append_order(schedule, shape, r, ops);
        offsets.push_back(ops.size());
    }
    return Timeline(shape, std::move(ops), std::move(offsets));
}

// Runs one step: each pass starts at max(its rank free, its input arrived).
template <SimulatedSchedule S>
[[nodiscard]] Timeline simulate(const S& schedule, const PipelineShape& shape, const ScheduleTimes& times) {
    validate(schedule, shape);
    detail::check_schedule_times(times, shape);
    constexpr bool split_w = splits_weight_grad<S>;
    const long long p = shape.stages, m = shape.microbatches, v = shape.chunks, stages = p * v;

    std::vector<Operation> ops;
    ops.reserve(static_cast<std::size_t>(p * m * v * (split_w ? 3 : 2)));
    std::vector<std::size_t> offsets{0};
    for (long long r = 0; r < p; ++r) {
        append_order(schedule, shape, r, ops);
        offsets.push_back(ops.size());
    }

    // finished[key] is the end of a pass (negative: not run yet); key = (pass·m + j)·p·v + virtual stage.
    const auto key = [m, stages](Pass pass, long long j, long long vs) {
        return static_cast<std::size_t>((static_cast<long long>(pass) * m + j) * stages + vs);
    };
    std::vector<double> finished(static_cast<std::size_t>(3 * m * stages), -1.0);
    std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
    std::vector<double> free_at(static_cast<std::size_t>(p), 0.0);
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::vector<std::size_t> waiting_on(static_cast<std::size_t>(p), none);
    std::vector<long long> ready;
    ready.reserve(static_cast<std::size_t>(p));
    for (long long r = p - 1; r >= 0; --r) ready.push_back(r);

    const double send = times.send.value();
    const auto factor = [&](long long j) {
        return times.microbatch_factor.empty() ? 1.0 : times.microbatch_factor[static_cast<std::size_t>(j)];
    };
    const auto wake = [&](long long rank, std::size_t k) {
        auto& w = waiting_on[static_cast<std::size_t>(rank)];
        if (w == k) w = none, ready.push_back(rank);
    };

    while (!ready.empty()) {
        const long long r = ready.back();
        ready.pop_back();
        const auto ur = static_cast<std::size_t>(r);
        for (; next[ur] < offsets[ur + 1]; ++next[ur]) {
            Operation& op = ops[next[ur]];
            const long long vs = op.chunk * p + r;
            // The input: which pass, on which virtual stage.
            std::size_t input = none;
            long long input_rank = r;
            if (op.pass == Pass::forward && vs > 0) {
                input = key(Pass::forward, op.microbatch, vs - 1), input_rank = (vs - 1) % p;
            } else if (op.pass == Pass::backward) {
                if (vs == stages - 1) input = key(Pass::forward, op.microbatch, vs);
                else input = key(Pass::backward, op.microbatch, vs + 1), input_rank = (vs + 1) % p;
            } else if (op.pass == Pass::weight_grad) {
                input = key(Pass::backward, op.microbatch, vs);
            }
            double start = free_at[ur];
            if (input != none) {
                const double arrived = finished[input];
                if (arrived < 0.0) {
                    waiting_on[ur] = input;
                    break;
                }
                start = std::max(start, arrived + (input_rank == r ? 0.0 : send));
            }
            const StageTimes& t = times.per_chunk[static_cast<std::size_t>(r * v + op.chunk)];
            const Seconds length = op.pass == Pass::forward ? t.forward
                                   : op.pass == Pass::weight_grad ? t.weight_grad
                                   : split_w ? t.backward - t.weight_grad
                                             : t.backward;
            const double end = start + length.value() * factor(op.microbatch);
            op.start = seconds(start);
            op.end = seconds(end);
            free_at[ur] = end;
            const std::size_t done = key(op.pass, op.microbatch, vs);
            finished[done] = end;
            // Wake the rank whose next pass needs this one.
            if (op.pass == Pass::forward && vs + 1 < stages) wake((vs + 1) % p, done);
            if (op.pass == Pass::backward && vs > 0) wake((vs - 1) % p, done);
        }
    }
    for (long long r = 0; r < p; ++r)
        if (next[static_cast<std::size_t>(r)] != offsets[static_cast<std::size_t>(r) + 1])
            throw std::logic_error("napkin::simulate: the schedule's order deadlocks on rank " + std::to_string(r));
    return Timeline(shape, std::move(ops), std::move(offsets));
}

// Uniform stages: every chunk takes F/v, B/v, W/v.
template <SimulatedSchedule S>
[[nodiscard]] Timeline simulate(const S& schedule, const PipelineShape& shape, const StageTimes& stage,
                                Seconds send = Seconds{}) {
    return simulate(schedule, shape, ScheduleTimes::uniform(shape, stage, send));
}

}  // namespace napkin
