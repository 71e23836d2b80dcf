// SPDX-License-Identifier: MIT
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
// DualPipe and DualPipeV (DeepSeek-V3 technical report, Sec. 3.2.1 and Fig. 5;
// the DualPipe repository's dualpipe.py and dualpipev.py) run two micro-batches'
// passes at once: a forward of one overlapped with a full backward of another,
// an "F&B" pair. The simulator runs such a pair as one block of the rank: it
// starts once both inputs have arrived and both results are ready at its end.
// Passes hand off as soon as they end (plus `send`); the repository posts some
// sends one pass later to overlap them with compute, which only matters when
// sends take time.
//
// Simulating is linear in the number of passes (each is visited once, a
// blocked rank is woken only by the pass it waits for). The result is kept in
// 16 bytes a pass, each rank's order packed and each pass's end stored by its
// key; a pass's start is worked out again when read (detail::CompactPasses),
// the full Operation list only built when asked for.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin {

/// The kind of a pass: a forward, a backward, or a weight-gradient (W) pass run on its own.
enum class Pass : std::uint8_t {
    forward,
    backward,     // the full backward, or only its input-gradient part when its W runs apart
    weight_grad,  // zero-bubble W
};

/// The pass's name: "forward", "backward" or "weight_grad".
[[nodiscard]] constexpr std::string_view to_string(Pass pass) {
    switch (pass) {
        case Pass::forward: return "forward";
        case Pass::backward: return "backward";
        case Pass::weight_grad: return "weight_grad";
    }
    return "?";
}

/// One pass on one rank. Micro-batches and chunks count from 0.
///
/// An overlapped pair (DualPipe's F&B) is two adjacent operations, its forward
/// then its backward, both marked `overlapped` and both spanning the pair's
/// [start, end]; the rank is busy for that span once.
struct Operation {
    Pass pass;
    long long microbatch;
    long long chunk;
    Seconds start = Seconds{};
    Seconds end = Seconds{};
    bool overlapped = false;
    bool weight_grad_apart = false;  // a backward whose W runs later as its own weight_grad pass
};

/// The expert all-to-all inside one micro-batch's pass through a chunk (dispatch
/// and combine, every MoE layer of the chunk): what a paired block can hide.
struct ChunkAllToAll {
    Seconds forward{};
    Seconds backward{};
};

/// The step around the pipeline, with Megatron's distributed optimizer
/// (Megatron-LM docs, distrib_optimizer.md): parameters all-gathered at the start,
/// gradients reduce-scattered chunk by chunk as each chunk's last backward ends,
/// then the optimizer step. Empty vectors: no head or tail.
struct StepEnds {
    std::vector<Seconds> param_all_gather{};  // per rank, from time 0, beside the compute
    // Per rank: when its first pass may start, once the all-gather has brought
    // the first layers (later layers' gathers are assumed to stay ahead).
    std::vector<Seconds> first_pass_after{};
    // Per chunk, [stage·v + chunk]: starts when the chunk's last backward ends,
    // one at a time on a rank, beside the compute.
    std::vector<Seconds> grad_reduce_scatter{};
    Seconds before_optimizer{};  // after every rank's last reduce-scatter (e.g. the gradient-norm reduction)
    Seconds optimizer{};
};

namespace detail {
/// p·v, the chunks a ScheduleTimes holds one StageTimes for: the shape checked
/// (its products cannot wrap), and at most 2^26, as the simulator's passes, so
/// that nothing is allocated for a shape it would refuse.
inline std::size_t simulated_chunks(const PipelineShape& shape) {
    check_shape(shape);
    const long long chunks = checked_mul(shape.stages, shape.chunks, "PipelineShape.stages × chunks");
    if (chunks > limits::simulated_passes)
        reject_exact("PipelineShape.stages × chunks", std::to_string(chunks), "must be at most 2^26 to simulate");
    return static_cast<std::size_t>(chunks);
}
}  // namespace detail

/// What each pass takes. per_chunk[stage·v + chunk] is one micro-batch through
/// that chunk (uneven layer splits: give each its own); micro-batch j's passes
/// are scaled by microbatch_factor[j] when that vector is not empty.
/// DualPipe (v = 1): per_chunk[s] is model stage s; rank r runs stage r for the
/// micro-batches entering at rank 0 and stage p − 1 − r for those entering at
/// rank p − 1. DualPipeV (v = 1): per_chunk[r] is rank r's two stages together,
/// r and 2p − 1 − r, each taking half of it.
struct ScheduleTimes {
    PipelineShape shape;
    std::vector<StageTimes> per_chunk;
    Seconds send = Seconds{};
    std::vector<double> microbatch_factor{};
    // Interleaved{.paired = true}: a pair takes F + B − pair_hidden × (its
    // forward's all-to-all + its backward's), all_to_all[stage·v + chunk];
    // without them F + B.
    std::vector<ChunkAllToAll> all_to_all{};
    double pair_hidden = 0.0;
    StepEnds ends{};

    // Equal stages and chunks: a chunk takes the stage's F/v, B/v, W/v.
    [[nodiscard]] static ScheduleTimes uniform(const PipelineShape& shape, const StageTimes& stage,
                                               Seconds send = Seconds{}) {
        const std::size_t chunks = detail::simulated_chunks(shape);
        const double v = count(shape.chunks);
        const StageTimes chunk{stage.forward / v, stage.backward / v, stage.weight_grad / v};
        return {shape, std::vector<StageTimes>(chunks, chunk), send, {}};
    }
    // One StageTimes per stage, each split evenly over its v chunks.
    [[nodiscard]] static ScheduleTimes per_stage(const PipelineShape& shape, std::span<const StageTimes> stages,
                                                 Seconds send = Seconds{}) {
        const std::size_t chunks = detail::simulated_chunks(shape);
        require(count(stages.size()) == count(shape.stages), "stages.size()", count(stages.size()),
                        "must equal PipelineShape.stages");
        ScheduleTimes t{shape, {}, send, {}};
        t.per_chunk.reserve(chunks);
        const double v = count(shape.chunks);
        for (const StageTimes& s : stages)
            for (long long c = 0; c < shape.chunks; ++c)
                t.per_chunk.push_back({s.forward / v, s.backward / v, s.weight_grad / v});
        return t;
    }
    // Uneven chunks (a LayerMap's layers_per_chunk()): chunk i takes layers[i]
    // layers' times; the first virtual stage (stage 0, chunk 0) adds `first`
    // (the embedding), the last (stage p − 1, chunk v − 1) adds `last` (the LM
    // head and the loss).
    [[nodiscard]] static ScheduleTimes per_layer(const PipelineShape& shape, std::span<const long long> layers,
                                                 const StageTimes& layer, const StageTimes& first = {},
                                                 const StageTimes& last = {}, Seconds send = Seconds{}) {
        const std::size_t chunks = detail::simulated_chunks(shape);
        require(layers.size() == chunks, "layers.size()", count(layers.size()),
                "must be PipelineShape.stages × PipelineShape.chunks");
        ScheduleTimes t{shape, {}, send, {}};
        for (long long n : layers) {
            require_at_least_one("layers per chunk", n);
            const double k = count(n);
            t.per_chunk.push_back({layer.forward * k, layer.backward * k, layer.weight_grad * k});
        }
        const auto add = [](StageTimes& a, const StageTimes& b) {
            a.forward += b.forward, a.backward += b.backward, a.weight_grad += b.weight_grad;
        };
        add(t.per_chunk.front(), first);
        add(t.per_chunk.back(), last);
        return t;
    }
    [[nodiscard]] StageTimes& at(long long stage, long long chunk) {
        return per_chunk[static_cast<std::size_t>(stage * shape.chunks + chunk)];
    }
    [[nodiscard]] const StageTimes& at(long long stage, long long chunk) const {
        return per_chunk[static_cast<std::size_t>(stage * shape.chunks + chunk)];
    }
};

/// The kind of a span in the step's head or tail (StepEnds): all-gather, reduce-scatter or optimizer step.
enum class SyncKind : std::uint8_t { param_all_gather, grad_reduce_scatter, optimizer };

/// The kind's name: "parameter all-gather", "gradient reduce-scatter" or "optimizer step".
[[nodiscard]] constexpr std::string_view to_string(SyncKind kind) {
    switch (kind) {
        case SyncKind::param_all_gather: return "parameter all-gather";
        case SyncKind::grad_reduce_scatter: return "gradient reduce-scatter";
        case SyncKind::optimizer: return "optimizer step";
    }
    return "?";
}

/// A span of the step's head or tail on one rank: beside the compute (not busy time).
struct SyncSpan {
    SyncKind kind;
    long long rank;
    std::optional<long long> chunk;  // the reduce-scatter's chunk
    Seconds start, end;
};

namespace detail {
/// Where each rank's chunks sit on a micro-batch's path of virtual stages.
enum class LayoutKind : std::uint8_t {
    looped,   // Megatron: chunk c of rank r is virtual stage c·p + r
    dual,     // DualPipe: chunk 0 of rank r is stage r of one pipeline, chunk 1 stage p − 1 − r of the other
    v_shape,  // DualPipeV: chunk 0 of rank r is stage r, chunk 1 stage 2p − 1 − r
};
template <LayoutKind K>
struct StageLayout {
    long long p, v;

    // Virtual stages a micro-batch crosses.
    [[nodiscard]] long long stages() const {
        if constexpr (K == LayoutKind::looped) return p * v;
        else if constexpr (K == LayoutKind::dual) return p;
        else return 2 * p;
    }
    [[nodiscard]] long long position(long long rank, long long chunk) const {
        if constexpr (K == LayoutKind::looped) return chunk * p + rank;
        else if constexpr (K == LayoutKind::dual) return chunk == 0 ? rank : p - 1 - rank;
        else return chunk == 0 ? rank : 2 * p - 1 - rank;
    }
    // The rank holding virtual stage `vs` of a micro-batch that runs on `chunk` (DualPipe: its pipeline).
    [[nodiscard]] long long rank_of(long long vs, long long chunk) const {
        if constexpr (K == LayoutKind::looped) return vs % p;
        else if constexpr (K == LayoutKind::dual) return chunk == 0 ? vs : p - 1 - vs;
        else return vs < p ? vs : 2 * p - 1 - vs;
    }
    // The ranks holding the virtual stages just before and after `vs`, which
    // `rank` holds on `chunk` (looped: the neighbouring ranks, without dividing).
    [[nodiscard]] long long rank_before(long long vs, long long rank, long long chunk) const {
        if constexpr (K == LayoutKind::looped) return rank == 0 ? p - 1 : rank - 1;
        else return rank_of(vs - 1, chunk);
    }
    [[nodiscard]] long long rank_after(long long vs, long long rank, long long chunk) const {
        if constexpr (K == LayoutKind::looped) return rank == p - 1 ? 0 : rank + 1;
        else return rank_of(vs + 1, chunk);
    }
    // Which ScheduleTimes::per_chunk entry times the chunk, and the share of it one pass takes.
    [[nodiscard]] std::size_t time_index(long long rank, long long chunk) const {
        if constexpr (K == LayoutKind::looped) return static_cast<std::size_t>(rank * v + chunk);
        else if constexpr (K == LayoutKind::dual) return static_cast<std::size_t>(position(rank, chunk));
        else return static_cast<std::size_t>(rank);
    }
    static constexpr double time_share = K == LayoutKind::v_shape ? 0.5 : 1.0;
};

/// A pass of a rank's order in 8 bytes: its micro-batch, and its chunk, kind and
/// flags in one word (the simulator runs at most 2^26 passes, so a micro-batch
/// and a chunk each fit in 26 bits).
struct PassId {
    std::uint32_t microbatch;
    std::uint32_t bits;  // chunk << 4 | weight_grad_apart << 3 | overlapped << 2 | pass

    [[nodiscard]] static PassId of(const Operation& op) {
        return {static_cast<std::uint32_t>(op.microbatch),
                static_cast<std::uint32_t>(op.chunk) << 4 | static_cast<std::uint32_t>(op.weight_grad_apart) << 3 |
                    static_cast<std::uint32_t>(op.overlapped) << 2 | static_cast<std::uint32_t>(op.pass)};
    }
    [[nodiscard]] Pass pass() const { return static_cast<Pass>(bits & 3U); }
    [[nodiscard]] bool overlapped() const { return (bits & 4U) != 0; }
    [[nodiscard]] bool weight_grad_apart() const { return (bits & 8U) != 0; }
    [[nodiscard]] long long chunk() const { return static_cast<long long>(bits >> 4); }
    [[nodiscard]] long long j() const { return static_cast<long long>(microbatch); }
    // An overlapped forward runs as one block with the pass after it (its pair's backward).
    [[nodiscard]] bool opens_pair() const { return (bits & 7U) == (4U | static_cast<std::uint32_t>(Pass::forward)); }
};

/// Keys of passes: (virtual stage, kind, micro-batch), micro-batches fastest, so
/// a rank running its order walks each of its (virtual stage, kind) rows in
/// sequence. kinds: 2 (F, B) or 3 (and W).
struct PassKeys {
    long long m, kinds;
    [[nodiscard]] std::size_t operator()(Pass pass, long long j, long long vs) const {
        return static_cast<std::size_t>((vs * kinds + static_cast<long long>(pass)) * m + j);
    }
};
/// What a pass waits for: the key of the pass whose result it takes and the rank
/// that ran it; none for the first virtual stage's forwards.
struct Input {
    std::size_t key;
    long long from;
};
template <LayoutKind K>
[[nodiscard, gnu::always_inline]] inline std::optional<Input> input_of(const StageLayout<K>& layout, PassKeys key,
                                                                       long long stages, PassId id, long long rank) {
    const long long chunk = id.chunk(), j = id.j();
    const long long vs = layout.position(rank, chunk);
    switch (id.pass()) {
        case Pass::forward:
            if (vs == 0) return std::nullopt;
            return Input{key(Pass::forward, j, vs - 1), layout.rank_before(vs, rank, chunk)};
        case Pass::weight_grad: return Input{key(Pass::backward, j, vs), rank};
        case Pass::backward: break;
    }
    if (vs == stages - 1) return Input{key(Pass::forward, j, vs), rank};
    return Input{key(Pass::backward, j, vs + 1), layout.rank_after(vs, rank, chunk)};
}

/// A simulated step as the simulator leaves it: each rank's order (8 bytes a
/// pass) and each pass's end, stored by the pass's key (8 bytes a pass). A
/// pass's start is worked out again when asked for, by the rule the events
/// used: the later of its rank's previous block's end and its inputs' arrivals.
struct CompactPasses {
    LayoutKind layout;
    long long p, v, stages;
    PassKeys key;
    double send;
    std::vector<double> first_pass_after;  // empty, or per rank
    std::unique_ptr<PassId[]> order;
    std::unique_ptr<double[]> ends;

    [[nodiscard]] double end(PassId id, long long rank) const {
        return ends[key(id.pass(), id.j(), position(rank, id.chunk()))];
    }
    // Calls f(const Operation&) on the passes order[first .. stop) of rank `rank`,
    // whose order starts at `begin`: a pair cut by `first` is left to the call
    // before (its second pass skipped), a pair cut by `stop` is visited whole.
    template <class F>
    void for_each(long long rank, std::size_t begin, std::size_t first, std::size_t stop, F&& f) const {
        switch (layout) {
            case LayoutKind::looped: return walk(StageLayout<LayoutKind::looped>{p, v}, rank, begin, first, stop, f);
            case LayoutKind::dual: return walk(StageLayout<LayoutKind::dual>{p, v}, rank, begin, first, stop, f);
            case LayoutKind::v_shape: return walk(StageLayout<LayoutKind::v_shape>{p, v}, rank, begin, first, stop, f);
        }
    }

private:
    [[nodiscard]] long long position(long long rank, long long chunk) const {
        switch (layout) {
            case LayoutKind::looped: return StageLayout<LayoutKind::looped>{p, v}.position(rank, chunk);
            case LayoutKind::dual: return StageLayout<LayoutKind::dual>{p, v}.position(rank, chunk);
            case LayoutKind::v_shape: return StageLayout<LayoutKind::v_shape>{p, v}.position(rank, chunk);
        }
        return 0;
    }
    template <LayoutKind K, class F>
    void walk(const StageLayout<K>& layout_of, long long rank, std::size_t begin, std::size_t first, std::size_t stop,
              F& f) const {
        if (first > begin && order[first - 1].opens_pair()) ++first;
        // The rank is free when its previous pass ended (its first pass: when the head let it start).
        double free = first > begin                 ? end(order[first - 1], rank)
                      : first_pass_after.empty() ? 0.0
                                                 : first_pass_after[static_cast<std::size_t>(rank)];
        for (std::size_t i = first; i < stop;) {
            const std::size_t n = order[i].opens_pair() ? 2 : 1;
            double start = free;
            for (std::size_t k = 0; k < n; ++k)
                if (const auto in = input_of(layout_of, key, stages, order[i + k], rank))
                    start = std::max(start, ends[in->key] + (in->from == rank ? 0.0 : send));
            for (std::size_t k = 0; k < n; ++k) {
                const PassId id = order[i + k];
                free = ends[key(id.pass(), id.j(), layout_of.position(rank, id.chunk()))];
                f(Operation{id.pass(), id.j(), id.chunk(), seconds(start), seconds(free), id.overlapped(),
                            id.weight_grad_apart()});
            }
            i += n;
        }
    }
};
}  // namespace detail

/// The simulated step: per rank its passes in the order it ran them.
///
/// simulate() keeps its passes compact (16 bytes a pass, see
/// detail::CompactPasses); the step, busy and idle times, pass_count() and
/// for_each_pass() read them as they are, and operations() and stage() build
/// the Operation list (48 bytes a pass) the first time either is called. Copies
/// share the passes (they never change).
class Timeline {
public:
    Timeline() = default;
    Timeline(PipelineShape shape, std::vector<Operation> operations, std::vector<std::size_t> offsets,
             std::vector<SyncSpan> syncs = {}, std::vector<Seconds> loss_times = {})
        : shape_(shape), offsets_(std::move(offsets)), syncs_(std::move(syncs)), loss_(std::move(loss_times)) {
        operations_->ops = std::move(operations);
        busy_.assign(static_cast<std::size_t>(shape.stages), Seconds{});
        for (long long r = 0; r < shape.stages; ++r)
            for (const Operation& op : stage(r)) {
                // An overlapped pair's backward shares its forward's span: count it once.
                if (!(op.overlapped && op.pass == Pass::backward))
                    busy_[static_cast<std::size_t>(r)] += op.end - op.start;
                step_ = std::max(step_, op.end);
            }
        for (const SyncSpan& s : syncs_) step_ = std::max(step_, s.end);
    }
    // simulate()'s: the busy times and the last pass's end as the events left them.
    Timeline(PipelineShape shape, std::shared_ptr<const detail::CompactPasses> passes,
             std::vector<std::size_t> offsets, std::vector<Seconds> busy, Seconds pipeline_end,
             std::vector<SyncSpan> syncs, std::vector<Seconds> loss_times)
        : shape_(shape), compact_(std::move(passes)), offsets_(std::move(offsets)), syncs_(std::move(syncs)),
          loss_(std::move(loss_times)), busy_(std::move(busy)), step_(pipeline_end) {
        for (const SyncSpan& s : syncs_) step_ = std::max(step_, s.end);
    }

    // The head and tail spans, when the times gave them.
    [[nodiscard]] std::span<const SyncSpan> syncs() const { return syncs_; }
    // Micro-batch j's loss: the end of its forward through the last virtual stage.
    [[nodiscard]] std::span<const Seconds> loss_times() const { return loss_; }

    [[nodiscard]] const PipelineShape& shape() const { return shape_; }
    [[nodiscard]] std::span<const Operation> operations() const { return materialised(); }
    [[nodiscard]] std::span<const Operation> stage(long long rank) const {
        const auto r = static_cast<std::size_t>(rank);
        return std::span<const Operation>(materialised()).subspan(offsets_[r], offsets_[r + 1] - offsets_[r]);
    }
    // Passes in all, and on one rank, without building the Operation list.
    [[nodiscard]] std::size_t pass_count() const { return offsets_.back(); }
    [[nodiscard]] std::size_t pass_count(long long rank) const {
        const auto r = static_cast<std::size_t>(rank);
        return offsets_[r + 1] - offsets_[r];
    }
    // Calls f(const Operation&) on each of the rank's passes in order, without
    // building the Operation list.
    template <class F>
    void for_each_pass(long long rank, F&& f) const {
        for_each_pass(rank, 0, pass_count(rank), f);
    }
    // The same over the rank's passes first … stop − 1 (counted within the
    // rank), so that calls over consecutive ranges visit each pass once: an
    // overlapped pair (one block of two passes) cut by a range's end is
    // visited whole by that range, its second pass skipped by the next.
    template <class F>
    void for_each_pass(long long rank, std::size_t first, std::size_t stop, F&& f) const {
        const std::size_t begin = offsets_[static_cast<std::size_t>(rank)];
        stop = std::min(stop, pass_count(rank));
        if (first >= stop) return;
        if (compact_) return compact_->for_each(rank, begin, begin + first, begin + stop, f);
        const std::vector<Operation>& ops = operations_->ops;
        const auto opens_pair = [&](std::size_t i) { return ops[i].overlapped && ops[i].pass == Pass::forward; };
        std::size_t i = begin + first;
        if (first > 0 && opens_pair(i - 1)) ++i;
        const std::size_t end = begin + stop + (stop < pass_count(rank) && opens_pair(begin + stop - 1) ? 1 : 0);
        for (; i < end; ++i) f(std::as_const(ops[i]));
    }
    // The last pass's end, or the optimizer's when the times gave a tail.
    [[nodiscard]] Seconds step_time() const { return step_; }
    [[nodiscard]] Seconds busy_time(long long rank) const { return busy_[static_cast<std::size_t>(rank)]; }
    // Step time − the rank's busy time (compute only: the head and tail, which
    // run beside it, count as idle, as the reference step counts them).
    [[nodiscard]] Seconds idle_time(long long rank) const { return step_ - busy_time(rank); }
    // The ranks' idle time summed ÷ (p × step time).
    [[nodiscard]] double idle_fraction() const {
        if (step_ == Seconds{}) return 0.0;
        Seconds idle{};
        for (long long r = 0; r < shape_.stages; ++r) idle += idle_time(r);
        return ratio(idle, count(shape_.stages) * step_);
    }
    // The rank's span: its first pass's start to its last pass's end (0 without passes).
    [[nodiscard]] Seconds span(long long rank) const {
        const auto r = static_cast<std::size_t>(rank);
        if (offsets_[r] == offsets_[r + 1]) return Seconds{};
        if (!compact_) {
            const std::vector<Operation>& ops = operations_->ops;
            return ops[offsets_[r + 1] - 1].end - ops[offsets_[r]].start;
        }
        std::optional<Seconds> first;
        compact_->for_each(rank, offsets_[r], offsets_[r], offsets_[r] + 1, [&](const Operation& op) {
            if (!first) first = op.start;
        });
        return seconds(compact_->end(compact_->order[offsets_[r + 1] - 1], rank)) - *first;
    }
    // Idle time inside the rank's own span, first start to last end: the
    // bubble as the zero-bubble paper counts it (Qi et al. 2023 Sec. 3.1).
    [[nodiscard]] Seconds idle_within_span(long long rank) const {
        return pass_count(rank) == 0 ? Seconds{} : span(rank) - busy_time(rank);
    }
    [[nodiscard]] Seconds largest_idle_within_span() const {
        Seconds worst{};
        for (long long r = 0; r < shape_.stages; ++r) worst = std::max(worst, idle_within_span(r));
        return worst;
    }
    // The time per step when consecutive steps overlap, each rank starting the
    // next step's passes as soon as it has run this one's: the longest rank
    // span. ZB-H2 needs this to reach its bubble (p − 1)(F + B − 3W): its
    // step is a parallelogram whose last rank starts (p − 1)·F after the
    // first and ends that much later, and the paper replaces the optimizer's
    // barrier by post-validation so that the steps overlap (Qi et al. 2023,
    // Sec. 3.1 and 4); pipeline.hpp's step_time is this one. For GPipe, 1F1B,
    // interleaved and ZB-H1, rank 0 spans the whole step and it is step_time()
    // (the head and tail spans, StepEnds, are not counted).
    [[nodiscard]] Seconds overlapped_step_time() const {
        Seconds longest{};
        for (long long r = 0; r < shape_.stages; ++r) longest = std::max(longest, span(r));
        return longest;
    }

private:
    struct Operations {
        std::once_flag built;
        std::vector<Operation> ops;
    };
    [[nodiscard]] const std::vector<Operation>& materialised() const {
        std::call_once(operations_->built, [this] {
            if (!compact_) return;
            std::vector<Operation>& ops = operations_->ops;
            ops.reserve(pass_count());
            for (long long r = 0; r < shape_.stages; ++r)
                for_each_pass(r, [&ops](const Operation& op) { ops.push_back(op); });
        });
        return operations_->ops;
    }

    PipelineShape shape_{1, 1, 1};
    std::shared_ptr<const detail::CompactPasses> compact_;
    std::shared_ptr<Operations> operations_ = std::make_shared<Operations>();
    std::vector<std::size_t> offsets_{0, 0};
    std::vector<SyncSpan> syncs_;
    std::vector<Seconds> loss_;
    std::vector<Seconds> busy_;
    Seconds step_{};
};

// ---------------------------------------------------------------------------
// The orders. Each appends rank r's passes to `out`: a std::vector<Operation>,
// or the simulator's packed order (detail::PackedSink).

namespace detail {
/// Appends passes to a packed order in place: 8 bytes each, no times.
struct PackedSink {
    PassId* passes;
    std::size_t n = 0;
    std::size_t bound = 0;
    bool weight_grads = false;  // whether the key space has rows for W's

    void push_back(const Operation& op) {
        if (n == bound || (op.pass == Pass::weight_grad && !weight_grads)) [[unlikely]]
            refuse();
        passes[n++] = PassId::of(op);
    }
    [[noreturn, gnu::cold, gnu::noinline]] void refuse() const {
        if (n == bound) throw std::logic_error("napkin::simulate: the schedule's order has more passes than its bound");
        throw std::logic_error("napkin::simulate: a W pass in a schedule that does not split them");
    }
    [[nodiscard]] std::size_t size() const { return n; }
    [[nodiscard]] Operation operator[](std::size_t i) const {
        const PassId id = passes[i];
        return {.pass = id.pass(), .microbatch = id.j(), .chunk = id.chunk(), .overlapped = id.overlapped(),
                .weight_grad_apart = id.weight_grad_apart()};
    }
};
inline void mark_overlapped(std::vector<Operation>& out, std::size_t i) { out[i].overlapped = true; }
inline void mark_overlapped(PackedSink& out, std::size_t i) { out.passes[i].bits |= 4U; }
}  // namespace detail

namespace schedule_order {

/// Appends the forwards of micro-batches first … last − 1, on chunk 0.
template <class Out>
void forwards(Out& out, long long first, long long last) {
    for (long long j = first; j < last; ++j) out.push_back({Pass::forward, j, 0});
}
/// Appends the backwards of micro-batches first … last − 1, on chunk 0.
template <class Out>
void backwards(Out& out, long long first, long long last) {
    for (long long j = first; j < last; ++j) out.push_back({Pass::backward, j, 0});
}

/// warm-up forwards, then one forward / one backward, then the remaining
/// backwards (Narayanan et al. 2021 Sec. 2.2.1).
template <class Out>
void one_f_one_b(Out& out, long long m, long long warmup) {
    forwards(out, 0, warmup);
    for (long long i = 0; i < m - warmup; ++i) {
        out.push_back({Pass::forward, warmup + i, 0});
        out.push_back({Pass::backward, i, 0});
    }
    backwards(out, m - warmup, m);
}

/// 1F1B with W split off and run `delay` backwards late: stage r of ZB-H1 holds
/// r finished-B-pending-W micro-batches (p in all, as 1F1B's first stage), ZB-H2
/// 2r after 2(p − r − 1) warm-up forwards (2p − 1 in all) — the memory the
/// paper gives each (Qi et al. 2023 Sec. 3.1, Fig. 3); the late W's fill the
/// cool-down, where 1F1B waits for backwards to come back.
template <class Out>
void zero_bubble(Out& out, long long m, long long warmup, long long delay) {
    long long b = 0, w = 0;
    const auto backward_then_w = [&](long long j) {
        out.push_back({.pass = Pass::backward, .microbatch = j, .chunk = 0, .weight_grad_apart = true});
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


/// DualPipe's order on one rank, the eight steps of dualpipe.py's step() (and,
/// with one pipeline folded into a V, dualpipev.py's). In its terms: n ranks
/// per half (DualPipe p/2, DualPipeV p), k this rank's distance from its end
/// (DualPipe min(r, p − 1 − r), DualPipeV r), M micro-batches per chunk (DualPipe
/// m/2 each way, DualPipeV m). "Phase 0" is the chunk the rank reaches first,
/// `first_chunk`; the other is phase 1. Micro-batches of chunk c are numbered
/// from microbatch_base[c]. Backwards marked zero-bubble leave their W for later;
/// the W's run in the order their backwards did (the repository's WeightGradStore
/// is a FIFO queue).
struct DualOrder {
    long long n, k, M;
    long long first_chunk;
    long long microbatch_base[2];

    template <class Out>
    void append(Out& out) const {
        long long forwards[2] = {0, 0}, backwards[2] = {0, 0};
        std::size_t w_source = out.size();  // the next backward whose W is pending
        const auto chunk = [this](long long phase) { return phase == 0 ? first_chunk : 1 - first_chunk; };
        const auto forward = [&](long long phase, bool overlapped = false) {
            const long long c = chunk(phase);
            out.push_back({.pass = Pass::forward, .microbatch = microbatch_base[c] + forwards[c]++, .chunk = c,
                           .overlapped = overlapped});
        };
        const auto backward = [&](long long phase, bool zero_bubble = false, bool overlapped = false) {
            const long long c = chunk(phase);
            out.push_back({.pass = Pass::backward, .microbatch = microbatch_base[c] + backwards[c]++, .chunk = c,
                           .overlapped = overlapped, .weight_grad_apart = zero_bubble});
        };
        const auto weight = [&] {
            while (!(out[w_source].pass == Pass::backward && out[w_source].weight_grad_apart)) ++w_source;
            const Operation& b = out[w_source++];
            out.push_back({.pass = Pass::weight_grad, .microbatch = b.microbatch, .chunk = b.chunk});
        };
        // A forward of one phase overlapped with a full backward of the other.
        const auto pair = [&](long long forward_phase) {
            forward(forward_phase, true);
            backward(1 - forward_phase, false, true);
        };
        // 1: nF0, 2: nF0F1 (warm-up).
        for (long long i = 0; i < 2 * (n - k - 1); ++i) forward(0);
        for (long long i = 0; i < k + 1; ++i) forward(0), forward(1);
        // 3: nB1W1F1, zero bubble.
        for (long long i = 0; i < n - k - 1; ++i) backward(1, true), weight(), forward(1);
        // 4: nF0B1F1B0, the main step; the middle ranks run their first F0 and B1 apart.
        for (long long i = 0; i < M - 2 * n + k + 1; ++i) {
            if (i == 0 && k == n - 1) forward(0), backward(1);
            else pair(0);
            pair(1);
        }
        // 5: nB1F1B0.
        for (long long i = 0; i < n - k - 1; ++i) backward(1), pair(1);
        // 6: nB1B0, the second half zero bubble.
        const long long steps6 = k + 1;
        bool zero_bubble = false;
        for (long long i = 0; i < steps6; ++i) {
            if (i == steps6 / 2 && k % 2 == 1) zero_bubble = true;
            backward(1, zero_bubble);
            if (i == steps6 / 2 && k % 2 == 0) zero_bubble = true;
            backward(0, zero_bubble);
        }
        // 7: nWB0, zero bubble; 8: nW.
        for (long long i = 0; i < n - k - 1; ++i) weight(), backward(0, true);
        for (long long i = 0; i < k + 1; ++i) weight();
    }
};

}  // namespace schedule_order

/// GPipe: all forwards, then all backwards, in micro-batch order.
template <class Out>
void append_order(const GPipe&, const PipelineShape& s, long long, Out& out) {
    schedule_order::forwards(out, 0, s.microbatches);
    schedule_order::backwards(out, 0, s.microbatches);
}
/// 1F1B: rank r runs min(p − r − 1, m) warm-up forwards, then one forward / one backward.
template <class Out>
void append_order(const OneFOneB&, const PipelineShape& s, long long rank, Out& out) {
    schedule_order::one_f_one_b(out, s.microbatches, std::min(s.stages - rank - 1, s.microbatches));
}
/// Megatron's interleaved order: virtual micro-batch k is micro-batch
/// (k / (p·v))·p + k mod p on chunk (k mod p·v) / p going forward, on chunk
/// v − 1 − that going backward (schedules.py, get_model_chunk_id).
/// Paired (--overlap-moe-expert-parallel-comm, Megatron's combined 1F1B): each
/// steady-state forward and the backward after it form one block.
template <class Out>
void append_order(const Interleaved& schedule, const PipelineShape& s, long long rank, Out& out) {
    const long long p = s.stages, v = s.chunks, total = s.microbatches * v;
    const long long warmup = schedule.warmup(s, rank);
    const std::size_t steady = out.size() + static_cast<std::size_t>(warmup);
    if (v == 1) {
        schedule_order::one_f_one_b(out, s.microbatches, warmup);
    } else {
        // Forwards and backwards each take k = 0, 1, … in turn: walk k = (group·v + chunk)·p + lane
        // without dividing.
        struct Cursor {
            Pass kind;
            long long p, v, lane = 0, chunk = 0, group = 0;
            Operation next() {
                Operation op{kind, group * p + lane, kind == Pass::forward ? chunk : v - 1 - chunk};
                if (++lane == p) {
                    lane = 0;
                    if (++chunk == v) chunk = 0, ++group;
                }
                return op;
            }
        } forward{Pass::forward, p, v}, backward{Pass::backward, p, v};
        for (long long k = 0; k < warmup; ++k) out.push_back(forward.next());
        for (long long k = 0; k < total - warmup; ++k) {
            out.push_back(forward.next());
            out.push_back(backward.next());
        }
        for (long long k = total - warmup; k < total; ++k) out.push_back(backward.next());
    }
    if (schedule.paired)
        for (std::size_t i = steady; i < steady + 2 * static_cast<std::size_t>(total - warmup); ++i)
            detail::mark_overlapped(out, i);
}
/// ZB-H1: 1F1B's warm-up, each W of rank r run r backwards late (schedule_order::zero_bubble).
template <class Out>
void append_order(const ZeroBubbleH1&, const PipelineShape& s, long long rank, Out& out) {
    schedule_order::zero_bubble(out, s.microbatches, std::min(s.stages - rank - 1, s.microbatches), rank);
}
/// ZB-H2: min(2(p − r − 1), m) warm-up forwards, each W of rank r run 2r backwards late.
template <class Out>
void append_order(const ZeroBubbleH2&, const PipelineShape& s, long long rank, Out& out) {
    schedule_order::zero_bubble(out, s.microbatches, std::min(2 * (s.stages - rank - 1), s.microbatches), 2 * rank);
}

/// DualPipe: rank r holds stage r (chunk 0) of the pipeline fed at rank 0 and
/// stage p − 1 − r (chunk 1) of the one fed at rank p − 1; micro-batches 0 … m/2 − 1
/// enter at rank 0, m/2 … m − 1 at rank p − 1. Ranks in the second half reach
/// chunk 1 first (dualpipe.py flips the phase there). The repository's step()
/// needs an even number of micro-batches, at least 2p.
template <class Out>
void append_order(const DualPipe&, const PipelineShape& s, long long rank, Out& out) {
    if (!(s.microbatches % 2 == 0 && s.microbatches >= 2 * s.stages))
        reject("PipelineShape.microbatches", count(s.microbatches),
               "must be even and at least 2 × PipelineShape.stages = " + std::to_string(2 * s.stages) +
                   " to simulate DualPipe (half enter at each end)",
               {"PipelineShape.stages"});
    const long long half = s.stages / 2, second_half = rank >= half ? 1 : 0;
    schedule_order::DualOrder{.n = half,
                              .k = std::min(rank, s.stages - 1 - rank),
                              .M = s.microbatches / 2,
                              .first_chunk = second_half,
                              .microbatch_base = {0, s.microbatches / 2}}
        .append(out);
}
/// DualPipeV: one pipeline of 2p stages folded into a V; rank r holds stage r
/// (chunk 0) and stage 2p − 1 − r (chunk 1), a micro-batch goes down the ranks
/// on chunk 0 and back up on chunk 1. dualpipev.py needs at least 2p micro-batches.
template <class Out>
void append_order(const DualPipeV&, const PipelineShape& s, long long rank, Out& out) {
    if (s.microbatches < 2 * s.stages)
        reject("PipelineShape.microbatches", count(s.microbatches),
               "must be at least 2 × PipelineShape.stages = " + std::to_string(2 * s.stages) + " to simulate DualPipeV",
               {"PipelineShape.stages"});
    schedule_order::DualOrder{.n = s.stages, .k = rank, .M = s.microbatches, .first_chunk = 0, .microbatch_base = {0, 0}}
        .append(out);
}

/// A schedule the simulator can run: one with a fixed per-rank order.
template <class S>
concept SimulatedSchedule = PipelineSchedule<S> &&
    requires(const S& s, const PipelineShape& shape, long long rank, std::vector<Operation>& out) {
        append_order(s, shape, rank, out);
    };

/// Whether the schedule runs W as its own pass (DualPipe: some of them).
template <class S>
inline constexpr bool splits_weight_grad = false;
/// ZB-H1 runs every W as its own pass.
template <>
inline constexpr bool splits_weight_grad<ZeroBubbleH1> = true;
/// ZB-H2 runs every W as its own pass.
template <>
inline constexpr bool splits_weight_grad<ZeroBubbleH2> = true;
/// DualPipe runs the W's of its zero-bubble backwards as their own passes.
template <>
inline constexpr bool splits_weight_grad<DualPipe> = true;
/// DualPipeV, as DualPipe, runs the W's of its zero-bubble backwards as their own passes.
template <>
inline constexpr bool splits_weight_grad<DualPipeV> = true;

namespace detail {
inline void check_schedule_times(const ScheduleTimes& t, const PipelineShape& shape) {
    require(t.shape.stages == shape.stages && t.shape.chunks == shape.chunks &&
                t.shape.microbatches == shape.microbatches,
            "ScheduleTimes.shape.stages", count(t.shape.stages), "must match the simulated PipelineShape");
    const std::size_t chunks = simulated_chunks(shape);
    require(t.per_chunk.size() == chunks, "ScheduleTimes.per_chunk.size()", count(t.per_chunk.size()),
            "must be PipelineShape.stages × PipelineShape.chunks");
    for (const StageTimes& c : t.per_chunk) check_times(c);
    require_non_negative("ScheduleTimes.send (s)", t.send.value());
    require(t.send.value() <= limits::stage_seconds, "ScheduleTimes.send (s)", t.send.value(), "must be at most 1e9 s");
    require(t.microbatch_factor.empty() || count(t.microbatch_factor.size()) == count(shape.microbatches),
            "ScheduleTimes.microbatch_factor.size()", count(t.microbatch_factor.size()),
            "must be 0 or PipelineShape.microbatches");
    for (double f : t.microbatch_factor) {
        require_non_negative("ScheduleTimes.microbatch_factor[j]", f);
        require(f <= 1e6, "ScheduleTimes.microbatch_factor[j]", f, "must be at most 1e6");
    }
    require(t.all_to_all.empty() || t.all_to_all.size() == chunks, "ScheduleTimes.all_to_all.size()",
            count(t.all_to_all.size()), "must be 0 or PipelineShape.stages × PipelineShape.chunks");
    for (std::size_t i = 0; i < t.all_to_all.size(); ++i) {
        const ChunkAllToAll& a = t.all_to_all[i];
        require(a.forward >= Seconds{} && a.forward <= t.per_chunk[i].forward, "ScheduleTimes.all_to_all.forward (s)",
                a.forward.value(), "must lie between 0 and the chunk's forward");
        require(a.backward >= Seconds{} && a.backward <= t.per_chunk[i].backward,
                "ScheduleTimes.all_to_all.backward (s)", a.backward.value(),
                "must lie between 0 and the chunk's backward");
    }
    require(t.pair_hidden >= 0.0 && t.pair_hidden <= 1.0, "ScheduleTimes.pair_hidden", t.pair_hidden,
            "must lie between 0 and 1");
    const StepEnds& e = t.ends;
    require(e.param_all_gather.empty() || count(e.param_all_gather.size()) == count(shape.stages),
            "StepEnds.param_all_gather.size()", count(e.param_all_gather.size()), "must be 0 or PipelineShape.stages");
    require(e.first_pass_after.empty() || count(e.first_pass_after.size()) == count(shape.stages),
            "StepEnds.first_pass_after.size()", count(e.first_pass_after.size()), "must be 0 or PipelineShape.stages");
    require(e.grad_reduce_scatter.empty() || e.grad_reduce_scatter.size() == chunks,
            "StepEnds.grad_reduce_scatter.size()", count(e.grad_reduce_scatter.size()),
            "must be 0 or PipelineShape.stages × PipelineShape.chunks");
    for (const Seconds& x : e.param_all_gather) require_non_negative("StepEnds.param_all_gather (s)", x.value());
    for (const Seconds& x : e.first_pass_after) require_non_negative("StepEnds.first_pass_after (s)", x.value());
    for (const Seconds& x : e.grad_reduce_scatter) require_non_negative("StepEnds.grad_reduce_scatter (s)", x.value());
    require_non_negative("StepEnds.before_optimizer (s)", e.before_optimizer.value());
    require_non_negative("StepEnds.optimizer (s)", e.optimizer.value());
}

template <class S>
inline constexpr LayoutKind layout_kind = LayoutKind::looped;
template <>
inline constexpr LayoutKind layout_kind<DualPipe> = LayoutKind::dual;
template <>
inline constexpr LayoutKind layout_kind<DualPipeV> = LayoutKind::v_shape;

/// Passes a rank runs at most: F and B of every micro-batch on each chunk it
/// visits, and a W for each when the schedule splits them off.
/// The simulator keeps every pass in memory, so it runs at most
/// limits::simulated_passes of them; the count is rejected by name beyond that.
template <class S>
[[nodiscard]] std::size_t passes_bound(const PipelineShape& shape) {
    constexpr std::string_view what = "passes to simulate (stages × microbatches × chunks × passes per micro-batch)";
    const long long visits = layout_kind<S> == LayoutKind::v_shape ? 2 : shape.chunks;
    const long long passes = checked_mul(checked_mul(checked_mul(shape.stages, shape.microbatches, what), visits, what),
                                         splits_weight_grad<S> ? 3 : 2, what);
    if (passes > limits::simulated_passes)
        reject_exact(what, std::to_string(passes), "must be at most 2^26 = 67108864");
    return static_cast<std::size_t>(passes);
}
}  // namespace detail

namespace detail {
/// Each rank's passes in order: ops[offsets[r] .. offsets[r + 1]) run on rank r.
struct RankOrders {
    std::vector<Operation> ops;
    std::vector<std::size_t> offsets;
};

template <SimulatedSchedule S>
[[nodiscard]] RankOrders build_orders(const S& schedule, const PipelineShape& shape) {
    RankOrders o;
    o.ops.reserve(passes_bound<S>(shape));
    o.offsets.reserve(static_cast<std::size_t>(shape.stages) + 1);
    o.offsets.push_back(0);
    for (long long r = 0; r < shape.stages; ++r) {
        append_order(schedule, shape, r, o.ops);
        o.offsets.push_back(o.ops.size());
    }
    return o;
}

/// The same orders packed, 8 bytes a pass, written in place.
struct PackedOrders {
    std::unique_ptr<PassId[]> order;
    std::vector<std::size_t> offsets;
};

template <SimulatedSchedule S>
[[nodiscard]] PackedOrders build_packed_orders(const S& schedule, const PipelineShape& shape) {
    const std::size_t bound = passes_bound<S>(shape);
    PackedOrders o{std::unique_ptr<PassId[]>(new PassId[bound]), {}};
    o.offsets.reserve(static_cast<std::size_t>(shape.stages) + 1);
    o.offsets.push_back(0);
    PackedSink sink{o.order.get(), 0, bound, splits_weight_grad<S>};
    for (long long r = 0; r < shape.stages; ++r) {
        if constexpr (requires { append_order(schedule, shape, r, sink); }) {
            append_order(schedule, shape, r, sink);
        } else {  // an order written for std::vector<Operation> only
            std::vector<Operation> ops;
            append_order(schedule, shape, r, ops);
            for (const Operation& op : ops) sink.push_back(op);
        }
        o.offsets.push_back(sink.size());
    }
    return o;
}

/// The head and tail around the simulated passes: the all-gathers from 0, each
/// rank's reduce-scatters one at a time after its chunks' last backwards (or W),
/// last_backward[r·v + c], the optimizer once every rank's are done.
inline std::vector<SyncSpan> step_ends(std::span<const double> last_backward, Seconds pipeline_end,
                                       const PipelineShape& shape, const StepEnds& e) {
    std::vector<SyncSpan> spans;
    const long long p = shape.stages, v = shape.chunks;
    for (long long r = 0; r < static_cast<long long>(e.param_all_gather.size()); ++r)
        spans.push_back({SyncKind::param_all_gather, r, std::nullopt, Seconds{},
                         e.param_all_gather[static_cast<std::size_t>(r)]});
    Seconds gradients_done = pipeline_end;
    if (!e.grad_reduce_scatter.empty()) {
        gradients_done = Seconds{};
        std::vector<std::pair<Seconds, long long>> last(static_cast<std::size_t>(v));
        for (long long r = 0; r < p; ++r) {
            for (long long c = 0; c < v; ++c)
                last[static_cast<std::size_t>(c)] = {seconds(last_backward[static_cast<std::size_t>(r * v + c)]), c};
            std::sort(last.begin(), last.end());
            Seconds free{};
            for (const auto& [ready, c] : last) {
                const Seconds start = std::max(free, ready);
                free = start + e.grad_reduce_scatter[static_cast<std::size_t>(r * v + c)];
                spans.push_back({SyncKind::grad_reduce_scatter, r, c, start, free});
            }
            gradients_done = std::max(gradients_done, free);
        }
    }
    if (e.optimizer > Seconds{} || e.before_optimizer > Seconds{})
        for (long long r = 0; r < p; ++r)
            spans.push_back({SyncKind::optimizer, r, std::nullopt, gradients_done + e.before_optimizer,
                             gradients_done + e.before_optimizer + e.optimizer});
    return spans;
}

/// Runs the events: each pass starts at max(its rank free, its input arrived);
/// an overlapped pair at max(its rank free, both inputs arrived). kinds: 3 when
/// the schedule splits W's off, else 2.
template <LayoutKind K>
[[nodiscard]] Timeline run_events(PackedOrders o, const PipelineShape& shape, const ScheduleTimes& times,
                                  std::optional<Seconds> fixed_pair, long long kinds) {
    const StageLayout<K> layout{shape.stages, shape.chunks};
    const long long p = shape.stages, m = shape.microbatches, v = shape.chunks, stages = layout.stages();
    constexpr double share = StageLayout<K>::time_share;
    const PassKeys key{m, kinds};
    const auto keys = static_cast<std::size_t>(kinds * m * stages);
    std::vector<double> first_pass_after;
    for (const Seconds& t : times.ends.first_pass_after) first_pass_after.push_back(t.value());
    // Ends are written once each, pass by pass: left uninitialised until then.
    auto passes = std::make_shared<CompactPasses>(CompactPasses{K, p, v, stages, key, times.send.value(),
                                                                std::move(first_pass_after), std::move(o.order),
                                                                std::unique_ptr<double[]>(new double[keys])});
    const PassId* const order = passes->order.get();
    double* const ends = passes->ends.get();

    // The event state lives in buffers kept per thread and reused from call to
    // call, so a large step does not map and unmap fresh pages every time.
    constexpr std::size_t waits_for_nothing = static_cast<std::size_t>(-1);
    struct Workspace {
        std::vector<double> free_at;
        std::vector<std::uint64_t> done;  // bit `key`: the pass has run, ends[key] is set
        std::vector<std::size_t> next, stop, waiting_on;
        std::vector<long long> ready;
    };
    thread_local Workspace w;
    w.done.assign((keys + 63) / 64, 0);
    w.next.assign(o.offsets.begin(), o.offsets.end() - 1);
    w.stop.assign(o.offsets.begin() + 1, o.offsets.end());
    w.free_at.assign(static_cast<std::size_t>(p), 0.0);
    for (std::size_t r = 0; r < passes->first_pass_after.size(); ++r) w.free_at[r] = passes->first_pass_after[r];
    w.waiting_on.assign(static_cast<std::size_t>(p), waits_for_nothing);
    w.ready.clear();
    for (long long r = p - 1; r >= 0; --r) w.ready.push_back(r);
    std::uint64_t* const done = w.done.data();
    std::size_t* const next = w.next.data();
    const std::size_t* const stop = w.stop.data();
    double* const free_at = w.free_at.data();
    std::size_t* const waiting_on = w.waiting_on.data();
    std::vector<long long>& ready = w.ready;

    std::vector<Seconds> loss(static_cast<std::size_t>(m));
    std::vector<double> busy(static_cast<std::size_t>(p), 0.0);
    double pipeline_end = 0.0;
    // Each rank's chunks' last backward (or W) end, for the reduce-scatters (looped layout only).
    const bool track_last = !times.ends.grad_reduce_scatter.empty();
    std::vector<double> last_backward(track_last ? static_cast<std::size_t>(p * v) : 0, 0.0);

    const double send = times.send.value();
    const double* const factors = times.microbatch_factor.empty() ? nullptr : times.microbatch_factor.data();
    const auto factor = [factors](long long j) { return factors ? factors[j] : 1.0; };
    const auto length = [&](PassId id, long long r) {
        const StageTimes& t = times.per_chunk[layout.time_index(r, id.chunk())];
        const Pass pass = id.pass();
        const Seconds base = pass == Pass::forward       ? t.forward
                             : pass == Pass::weight_grad ? t.weight_grad
                             : id.weight_grad_apart()    ? t.backward - t.weight_grad
                                                         : t.backward;
        return base.value() * share * factor(id.j());
    };
    // The all-to-all a pass of a pair can hide behind the other's compute.
    const auto all_to_all = [&](PassId id, long long r) {
        if (times.all_to_all.empty()) return 0.0;
        const ChunkAllToAll& a = times.all_to_all[layout.time_index(r, id.chunk())];
        return (id.pass() == Pass::forward ? a.forward : a.backward).value() * share * factor(id.j());
    };
    // Whether the input of pass `id` on rank r has arrived: if so `start` moves
    // past its arrival and nothing is returned, if not the key it waits for.
    const auto await_input = [&](PassId id, long long r, double& start) -> std::size_t {
        const std::optional<Input> in = input_of(layout, key, stages, id, r);
        if (!in) return waits_for_nothing;
        if (!(done[in->key / 64] >> (in->key % 64) & 1U)) return in->key;
        start = std::max(start, ends[in->key] + (in->from == r ? 0.0 : send));
        return waits_for_nothing;
    };

    while (!ready.empty()) {
        const long long r = ready.back();
        ready.pop_back();
        const auto ur = static_cast<std::size_t>(r);
        while (next[ur] < stop[ur]) {
            const PassId id = order[next[ur]];
            double start = free_at[ur];
            std::size_t missing = await_input(id, r, start);
            // An overlapped forward runs together with the backward after it.
            const bool pair = id.opens_pair();
            if (pair && missing == waits_for_nothing) missing = await_input(order[next[ur] + 1], r, start);
            if (missing != waits_for_nothing) {
                waiting_on[ur] = missing;
                break;
            }
            double end = start;
            if (!pair) {
                end += length(id, r);
            } else {
                const PassId partner = order[next[ur] + 1];
                end += fixed_pair ? fixed_pair->value() * share * (factor(id.j()) + factor(partner.j())) / 2.0
                                  : length(id, r) + length(partner, r) -
                                        times.pair_hidden * (all_to_all(id, r) + all_to_all(partner, r));
            }
            free_at[ur] = end;
            // Records each pass of the block, and wakes the rank whose next pass needs it.
            for (std::size_t n = pair ? 2 : 1; n > 0; --n) {
                const PassId done_id = order[next[ur]++];
                const Pass pass = done_id.pass();
                const long long chunk = done_id.chunk(), j = done_id.j();
                // An overlapped pair's backward shares its forward's span: busy once.
                if (!(done_id.overlapped() && pass == Pass::backward))
                    busy[ur] += (seconds(end) - seconds(start)).value();
                const long long vs = layout.position(r, chunk);
                const std::size_t k = key(pass, j, vs);
                ends[k] = end;
                done[k / 64] |= std::uint64_t{1} << (k % 64);
                pipeline_end = std::max(pipeline_end, end);
                if (track_last && pass != Pass::forward) {
                    double& l = last_backward[static_cast<std::size_t>(r * v + chunk)];
                    l = std::max(l, end);
                }
                long long woken = -1;
                if (pass == Pass::forward && vs + 1 < stages) woken = layout.rank_after(vs, r, chunk);
                if (pass == Pass::forward && vs + 1 == stages) loss[static_cast<std::size_t>(j)] = seconds(end);
                if (pass == Pass::backward && vs > 0) woken = layout.rank_before(vs, r, chunk);
                if (woken >= 0 && waiting_on[static_cast<std::size_t>(woken)] == k)
                    waiting_on[static_cast<std::size_t>(woken)] = waits_for_nothing, ready.push_back(woken);
            }
        }
    }
    for (long long r = 0; r < p; ++r)
        if (next[static_cast<std::size_t>(r)] != stop[static_cast<std::size_t>(r)])
            throw std::logic_error("napkin::simulate: the schedule's order deadlocks on rank " + std::to_string(r));
    std::vector<SyncSpan> syncs = step_ends(last_backward, seconds(pipeline_end), shape, times.ends);
    std::vector<Seconds> busy_s;
    busy_s.reserve(busy.size());
    for (double b : busy) busy_s.push_back(seconds(b));
    return Timeline(shape, std::move(passes), std::move(o.offsets), std::move(busy_s), seconds(pipeline_end),
                    std::move(syncs), std::move(loss));
}
}  // namespace detail

/// Every rank's passes in the schedule's order, times not yet set.
template <SimulatedSchedule S>
[[nodiscard]] Timeline schedule_order_of(const S& schedule, const PipelineShape& shape) {
    validate(schedule, shape);
    detail::RankOrders o = detail::build_orders(schedule, shape);
    return Timeline(shape, std::move(o.ops), std::move(o.offsets));
}

/// Runs one step in two parts: each rank's order (schedule_order_of), then the
/// events. A pair takes the schedule's F&B when it sets one (DualPipe{F&B}: the
/// closed form's input, the same for every pair; DualPipeV's per rank, so a pair
/// of its half-size chunks takes F&B/2), scaled by the mean of its two
/// micro-batches' factors; otherwise its forward plus its backward less the
/// share ScheduleTimes::pair_hidden of their all-to-alls.
template <SimulatedSchedule S>
[[nodiscard]] Timeline simulate(const S& schedule, const PipelineShape& shape, const ScheduleTimes& times) {
    validate(schedule, shape);
    detail::check_schedule_times(times, shape);
    if constexpr (detail::layout_kind<S> != detail::LayoutKind::looped)
        require(times.ends.grad_reduce_scatter.empty(), "StepEnds.grad_reduce_scatter.size()",
                count(times.ends.grad_reduce_scatter.size()), "must be 0 for DualPipe and DualPipeV");
    std::optional<Seconds> fixed_pair;
    if constexpr (requires { schedule.overlapped_forward_backward; })
        fixed_pair = schedule.overlapped_forward_backward;
    return detail::run_events<detail::layout_kind<S>>(detail::build_packed_orders(schedule, shape), shape, times,
                                                      fixed_pair, splits_weight_grad<S> ? 3 : 2);
}

/// Uniform stages: every chunk takes F/v, B/v, W/v.
template <SimulatedSchedule S>
[[nodiscard]] Timeline simulate(const S& schedule, const PipelineShape& shape, const StageTimes& stage,
                                Seconds send = Seconds{}) {
    return simulate(schedule, shape, ScheduleTimes::uniform(shape, stage, send));
}

}  // namespace napkin
