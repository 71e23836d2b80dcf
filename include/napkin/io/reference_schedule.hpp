// SPDX-License-Identifier: MIT
// napkin/io/reference_schedule.hpp — reads a simulated training step in the
// shape of the shared reference moe-training-step-1024-gpus.json (per stage the
// compute blocks {pass, microbatch, chunk, start, end, paired, layers,
// allToAllShare} and the syncs, the pipeline sends, the loss times), and turns
// its own op and send times into napkin's ScheduleTimes. Stages, micro-batches
// and chunks count from 1 in the file and from 0 here, as in napkin::Operation.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>
#include <napkin/units.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin::io {

/// One compute block of a stage: a pass of one micro-batch and chunk, its start and end in seconds.
struct ReferenceBlock {
    Pass pass;
    long long microbatch;  // from 0
    long long chunk;       // from 0
    Seconds start;
    Seconds end;
    bool paired;  // a forward and a backward overlapped in one block; the file lists the forward first
    long long layers = 0;
    double all_to_all_share = 0.0;  // of the pass's own time, spent in the expert all-to-all
};

/// One pipeline send between two stages, its start and end in seconds.
struct ReferenceSend {
    long long from_stage, to_stage;  // from 0
    Pass pass;                       // forward (activations) or backward (gradients)
    long long microbatch;
    Seconds start, end;
};

/// One sync of a stage (parameter all-gather, gradient reduce-scatter or optimizer step), start and end in seconds.
struct ReferenceSync {
    SyncKind kind;
    std::optional<long long> chunk;  // from 0, the reduce-scatter's
    Seconds start, end;
};

/// A whole reference step: the blocks per stage, the sends, the syncs, the step time and its pipeline idle share.
struct ReferenceSchedule {
    PipelineShape shape;
    std::vector<std::vector<ReferenceBlock>> stages;
    std::vector<ReferenceSend> sends;
    Seconds step;
    double idle_fraction;
    std::vector<std::vector<ReferenceSync>> syncs{};  // per stage
    std::vector<long long> layers_per_stage{};        // transformer layers a stage holds, all its chunks
    std::vector<Seconds> loss_times{};
};

namespace detail {
inline Pass reference_pass(const std::string& text) {
    if (text == "forward") return Pass::forward;
    if (text == "backward") return Pass::backward;
    napkin::reject("pass", text, "must be forward or backward");
}
inline SyncKind reference_sync(const std::string& text) {
    if (text == "parameter all-gather") return SyncKind::param_all_gather;
    if (text == "gradient reduce-scatter") return SyncKind::grad_reduce_scatter;
    if (text == "optimizer step") return SyncKind::optimizer;
    napkin::reject("sync.kind", text, "must be parameter all-gather, gradient reduce-scatter or optimizer step");
}
}  // namespace detail

/// The largest pp × vpp a reference file may give: its chunk times come from
/// a dense least-squares solve over 2·pp·vpp unknowns (33 MB and well under a
/// second at 1,024; published layouts have pp·vpp ≤ 256).
inline constexpr long long max_reference_chunks = 1024;

namespace detail {
/// A whole number of the file: a JSON integer (a float is refused before any
/// cast, so 7.8e76 is an error, not undefined behaviour).
inline long long whole_of(const nlohmann::json& v, const std::string& what) {
    if (!v.is_number_integer()) reject(what, printable(v.dump()), "must be a whole number");
    return v.get<long long>();
}
inline long long whole_or(const nlohmann::json& object, const char* key, long long fallback, const std::string& what) {
    return object.contains(key) ? whole_of(object.at(key), what) : fallback;
}
inline void check_span(std::string_view what, Seconds start, Seconds end) {
    require_non_negative(std::string(what) + ".start", start.value());
    require_non_negative(std::string(what) + ".end", end.value());
    require(end >= start, std::string(what) + ".end", end.value(), "must not be before its start");
}
}  // namespace detail

/// Every count and time is checked as it is read: the shape before anything
/// is sized by it, each block's micro-batch and chunk within the shape, each
/// span finite, non-negative and in order.
[[nodiscard]] inline ReferenceSchedule parse_reference_schedule(const nlohmann::json& j) {
    ReferenceSchedule r;
    const auto& par = j.at("parallelism");
    r.shape = {detail::whole_of(par.at("pp"), "parallelism.pp"),
               detail::whole_of(par.at("microbatchesPerPipeline"), "parallelism.microbatchesPerPipeline"),
               detail::whole_or(par, "vpp", 1, "parallelism.vpp")};
    napkin::detail::check_shape(r.shape);
    require(r.shape.stages * r.shape.chunks <= max_reference_chunks, "parallelism.pp × vpp",
            count(r.shape.stages * r.shape.chunks), "must be at most 1024 in a reference schedule");
    require(count(j.at("stages").size()) == count(r.shape.stages), "stages", count(j.at("stages").size()),
            "must list parallelism.pp stages");
    for (const auto& stage : j.at("stages")) {
        auto& blocks = r.stages.emplace_back();
        for (const auto& c : stage.at("compute")) {
            const long long microbatch = detail::whole_of(c.at("microbatch"), "microbatch"),
                            chunk = detail::whole_of(c.at("chunk"), "chunk");
            require(microbatch >= 1 && microbatch <= r.shape.microbatches, "compute.microbatch", count(microbatch),
                    "must lie in 1 … microbatchesPerPipeline");
            require(chunk >= 1 && chunk <= r.shape.chunks, "compute.chunk", count(chunk), "must lie in 1 … vpp");
            const Seconds start = seconds(c.at("start").get<double>()), end = seconds(c.at("end").get<double>());
            detail::check_span("compute", start, end);
            const long long layers = detail::whole_or(c, "layers", 0, "compute.layers");
            require(layers >= 0 && layers <= limits::layers, "compute.layers", count(layers), "must lie in 0 … 2^24");
            const double share = c.value("allToAllShare", 0.0);
            require_in_range("compute.allToAllShare", share, 0.0, 1.0, "must lie in [0, 1]");
            blocks.push_back({detail::reference_pass(c.at("pass").get<std::string>()), microbatch - 1, chunk - 1, start,
                              end, c.value("paired", false), layers, share});
        }
        auto& syncs = r.syncs.emplace_back();
        for (const auto& s : stage.value("sync", nlohmann::json::array())) {
            std::optional<long long> chunk;
            if (s.contains("chunk")) {
                chunk = detail::whole_of(s.at("chunk"), "chunk") - 1;
                require(*chunk >= 0 && *chunk < r.shape.chunks, "sync.chunk", count(*chunk + 1), "must lie in 1 … vpp");
            }
            const Seconds start = seconds(s.at("start").get<double>()), end = seconds(s.at("end").get<double>());
            detail::check_span("sync", start, end);
            syncs.push_back({detail::reference_sync(s.at("kind").get<std::string>()), chunk, start, end});
        }
    }
    for (const auto& s : j.value("pipelineSends", nlohmann::json::array())) {
        const long long from = detail::whole_of(s.at("fromStage"), "fromStage"),
                        to = detail::whole_of(s.at("toStage"), "toStage");
        require(from >= 1 && from <= r.shape.stages, "pipelineSends.fromStage", count(from), "must lie in 1 … pp");
        require(to >= 1 && to <= r.shape.stages, "pipelineSends.toStage", count(to), "must lie in 1 … pp");
        const Seconds start = seconds(s.at("start").get<double>()), end = seconds(s.at("end").get<double>());
        detail::check_span("pipelineSends", start, end);
        r.sends.push_back({from - 1, to - 1, detail::reference_pass(s.at("dir").get<std::string>()),
                           detail::whole_of(s.at("microbatch"), "microbatch") - 1, start, end});
    }
    // layersPerStage: per stage, per chunk, [first, last] layer.
    if (par.contains("layersPerStage"))
        for (const auto& stage : par.at("layersPerStage")) {
            long long layers = 0;
            for (const auto& range : stage) {
                const long long first = detail::whole_of(range.at(0), "layersPerStage range"),
                                last = detail::whole_of(range.at(1), "layersPerStage range");
                require(first >= 0 && last >= first && last - first < limits::layers, "layersPerStage range",
                        count(last - first + 1), "must be [first, last] with first ≤ last, at most 2^24 layers");
                layers = checked_add(layers, last - first + 1, "layersPerStage");
            }
            require(layers <= limits::layers, "layersPerStage", count(layers), "must be at most 2^24 layers a stage");
            r.layers_per_stage.push_back(layers);
        }
    for (const auto& t : j.value("lossTimes", nlohmann::json::array())) {
        require_non_negative("lossTimes", t.get<double>());
        r.loss_times.push_back(seconds(t.get<double>()));
    }
    r.step = seconds(j.at("step").at("total").get<double>());
    require_positive("step.total", r.step.value());
    r.idle_fraction = j.at("step").at("pipelineIdleFraction").get<double>();
    require_in_range("step.pipelineIdleFraction", r.idle_fraction, 0.0, 1.0, "must lie in [0, 1]");
    return r;
}

/// Every JSON error (not JSON, a missing key, a value of the wrong type or
/// range) is a napkin::invalid_argument naming the file, cut to 160 printable
/// characters.
[[nodiscard]] inline ReferenceSchedule read_reference_schedule(const std::string& path) {
    const std::string file = read_json_file("reference file", path);
    try {
        return parse_reference_schedule(nlohmann::json::parse(file));
    } catch (const nlohmann::json::exception& e) {
        throw napkin::invalid_argument(path, "", "not a reference schedule (" + printable(e.what(), 160) + ")");
    }
}

/// The schedule the file ran: Megatron's interleaved 1F1B; with paired blocks,
/// --overlap-moe-expert-parallel-comm's one extra warm-up forward and pairs.
[[nodiscard]] inline Interleaved reference_schedule_kind(const ReferenceSchedule& ref) {
    bool paired = false;
    for (const auto& blocks : ref.stages)
        for (const ReferenceBlock& b : blocks) paired = paired || b.paired;
    return Interleaved{.extra_warmup = paired ? 1 : 0, .paired = paired};
}

namespace detail {
/// One block's duration as a linear function of the chunks' forward and
/// backward times x = (F_0 … F_{n−1}, B_0 … B_{n−1}): an unpaired pass is its
/// own; a pair is (1 − h·sF)·F + (1 − h·sB)·B, where sF and sB are the shares
/// of the passes spent in the all-to-all and h the share of that hidden.
struct BlockRow {
    std::size_t forward, backward;  // indices into x; a lone pass uses one of them
    double forward_weight, backward_weight;
    double duration;
};

inline std::vector<BlockRow> block_rows(const ReferenceSchedule& ref, double h) {
    const long long v = ref.shape.chunks;
    const auto n = static_cast<std::size_t>(ref.shape.stages * v);
    std::vector<BlockRow> rows;
    for (std::size_t r = 0; r < ref.stages.size(); ++r) {
        const auto& blocks = ref.stages[r];
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            const ReferenceBlock& b = blocks[k];
            require(b.chunk >= 0 && b.chunk < v, "compute.chunk", count(b.chunk + 1), "must lie in 1 … vpp");
            const std::size_t i = r * static_cast<std::size_t>(v) + static_cast<std::size_t>(b.chunk);
            const double duration = (b.end - b.start).value();
            if (b.paired && b.pass == Pass::forward && k + 1 < blocks.size() && blocks[k + 1].paired) {
                const ReferenceBlock& partner = blocks[k + 1];
                const std::size_t j = r * static_cast<std::size_t>(v) + static_cast<std::size_t>(partner.chunk);
                rows.push_back({i, n + j, 1.0 - h * b.all_to_all_share, 1.0 - h * partner.all_to_all_share, duration});
                ++k;
            } else if (b.pass == Pass::forward) {
                rows.push_back({i, i, 1.0, 0.0, duration});
            } else {
                rows.push_back({n + i, n + i, 1.0, 0.0, duration});
            }
        }
    }
    return rows;
}

/// Least squares for x given h (normal equations, Gaussian elimination with
/// partial pivoting); the sum of squared residuals comes back with it.
inline std::pair<std::vector<double>, double> fit_chunk_times(const ReferenceSchedule& ref, double h) {
    const auto n = static_cast<std::size_t>(2 * ref.shape.stages * ref.shape.chunks);
    const std::vector<BlockRow> rows = block_rows(ref, h);
    std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0.0));
    for (const BlockRow& row : rows) {
        const std::size_t idx[2] = {row.forward, row.backward};
        const double w[2] = {row.forward_weight, row.backward_weight};
        for (int p = 0; p < 2; ++p) {
            for (int q = 0; q < 2; ++q) a[idx[p]][idx[q]] += w[p] * w[q];
            a[idx[p]][n] += w[p] * row.duration;
        }
    }
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t pivot = c;
        for (std::size_t k = c + 1; k < n; ++k)
            if (std::abs(a[k][c]) > std::abs(a[pivot][c])) pivot = k;
        require(std::abs(a[pivot][c]) > 1e-12, c < n / 2 ? "forward of chunk" : "backward of chunk",
                count(c % (n / 2) + 1), "appears in no block of the file, so it cannot be timed");
        std::swap(a[c], a[pivot]);
        for (std::size_t k = 0; k < n; ++k) {
            if (k == c || a[k][c] == 0.0) continue;
            const double f = a[k][c] / a[c][c];
            for (std::size_t col = c; col <= n; ++col) a[k][col] -= f * a[c][col];
        }
    }
    std::vector<double> x(n);
    for (std::size_t c = 0; c < n; ++c) x[c] = a[c][n] / a[c][c];
    double residual = 0.0;
    for (const BlockRow& row : rows) {
        const double e = row.forward_weight * x[row.forward] +
                         (row.forward == row.backward ? 0.0 : row.backward_weight * x[row.backward]) - row.duration;
        residual += e * e;
    }
    return {x, residual};
}
}  // namespace detail

/// The file's own op and send times as napkin's input, nothing taken from where
/// a pass was placed:
/// - each chunk's forward F and backward B and the one share h of a pair's
///   all-to-all that the pair hides: least squares over every block's duration
///   (an unpaired pass takes F or B, a pair F + B − h·(sF·F + sB·B) with the
///   file's allToAllShare sF, sB), h by golden-section search; the file rounds
///   every time to 1 µs, so no single block gives them exactly;
/// - the send: the mean of the pipeline sends' durations;
/// - the head: each stage's parameter all-gather, its first pass waiting for
///   the first layer's share of it (all-gather ÷ the stage's layers);
/// - the tail: each chunk's reduce-scatter duration, the optimizer's, and the
///   wait between the last reduce-scatter and the optimizer (the file lists no
///   op for it).
[[nodiscard]] inline ScheduleTimes reference_schedule_times(const ReferenceSchedule& ref) {
    const PipelineShape& shape = ref.shape;
    const long long p = shape.stages, v = shape.chunks;
    require(count(ref.stages.size()) == count(p), "stages", count(ref.stages.size()), "must be parallelism.pp");
    const auto n = static_cast<std::size_t>(p * v);
    std::vector<double> f_share(n, 0.0), b_share(n, 0.0);
    bool paired = false;
    for (long long r = 0; r < p; ++r)
        for (const ReferenceBlock& b : ref.stages[static_cast<std::size_t>(r)]) {
            require(b.chunk >= 0 && b.chunk < v, "compute.chunk", count(b.chunk + 1), "must lie in 1 … vpp");
            (b.pass == Pass::forward ? f_share : b_share)[static_cast<std::size_t>(r * v + b.chunk)] =
                b.all_to_all_share;
            paired = paired || b.paired;
        }
    double h = 0.0;
    if (paired) {
        // Golden-section search of the residual over h in [0, 1].
        const double g = (std::sqrt(5.0) - 1.0) / 2.0;
        double lo = 0.0, hi = 1.0;
        for (int i = 0; i < 60; ++i) {
            const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
            if (detail::fit_chunk_times(ref, a).second < detail::fit_chunk_times(ref, b).second)
                hi = b;
            else
                lo = a;
        }
        h = (lo + hi) / 2.0;
    }
    const std::vector<double> x = detail::fit_chunk_times(ref, h).first;
    ScheduleTimes t{shape, {}, Seconds{}, {}};
    t.pair_hidden = h;
    for (std::size_t i = 0; i < n; ++i) {
        t.per_chunk.push_back({seconds(x[i]), seconds(x[n + i])});
        t.all_to_all.push_back({seconds(x[i] * f_share[i]), seconds(x[n + i] * b_share[i])});
    }
    double send = 0.0;
    for (const ReferenceSend& s : ref.sends) send += (s.end - s.start).value();
    if (!ref.sends.empty()) t.send = seconds(send / count(ref.sends.size()));

    // Head and tail, when the file has them.
    bool any_sync = false;
    for (const auto& syncs : ref.syncs) any_sync = any_sync || !syncs.empty();
    if (!any_sync) return t;
    StepEnds& e = t.ends;
    e.param_all_gather.assign(static_cast<std::size_t>(p), Seconds{});
    e.first_pass_after.assign(static_cast<std::size_t>(p), Seconds{});
    e.grad_reduce_scatter.assign(n, Seconds{});
    Seconds last_reduce_scatter{}, optimizer_start{};
    for (long long r = 0; r < p; ++r)
        for (const ReferenceSync& s : ref.syncs[static_cast<std::size_t>(r)]) {
            const auto ur = static_cast<std::size_t>(r);
            if (s.kind == SyncKind::param_all_gather) {
                e.param_all_gather[ur] = s.end - s.start;
                if (ur < ref.layers_per_stage.size())
                    e.first_pass_after[ur] = e.param_all_gather[ur] / count(ref.layers_per_stage[ur]);
            } else if (s.kind == SyncKind::grad_reduce_scatter) {
                require(s.chunk.has_value() && *s.chunk >= 0 && *s.chunk < v, "sync.chunk",
                        count(s.chunk.value_or(-1) + 1), "must lie in 1 … vpp for a gradient reduce-scatter");
                e.grad_reduce_scatter[static_cast<std::size_t>(r * v + *s.chunk)] = s.end - s.start;
                last_reduce_scatter = std::max(last_reduce_scatter, s.end);
            } else {
                e.optimizer = s.end - s.start;
                optimizer_start = s.start;
            }
        }
    e.before_optimizer = std::max(Seconds{}, optimizer_start - last_reduce_scatter);
    return t;
}

}  // namespace napkin::io
