// SPDX-License-Identifier: MIT
// napkin/io/schedule_times.hpp — napkin's own file format for the simulator's
// input (`napkin schedule --times FILE.json`), read and written. Stages and
// chunks count from 1; times are in seconds:
//
//   {
//     "schedule": "interleaved", "extra_warmup": 1, "paired": true,   (optional)
//     "stages": 4, "microbatches": 8, "chunks": 2,
//     "send_s": 0.001535,                  pipeline hand-off between ranks (0)
//     "pair_hidden": 0.38,                 share of a pair's all-to-all hidden (0)
//     "microbatch_factor": [1, 1, …],      optional, one per micro-batch
//     "chunk_times": [                     every (stage, chunk) once
//       {"stage": 1, "chunk": 1, "forward_s": 0.0316, "backward_s": 0.0565,
//        "weight_grad_s": 0,                           (optional, 0)
//        "forward_all_to_all_s": 0.0086, "backward_all_to_all_s": 0.0086,   (optional, 0)
//        "grad_reduce_scatter_s": 0.15}, …],                                (optional)
//     "stage_head": [{"stage": 1, "param_all_gather_s": 0.15, "first_pass_after_s": 0.0139}, …],  (optional)
//     "before_optimizer_s": 0.0002, "optimizer_s": 0.012   (optional)
//   }
#pragma once

#include <napkin/io/text_file.hpp>
#include <napkin/error.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>
#include <napkin/units.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace napkin::io {

/// The file's schedule fields, when it gives them.
struct TimesSchedule {
    std::optional<std::string> name;
    long long extra_warmup = 0;
    bool paired = false;
};

namespace detail {
inline double times_number(const nlohmann::json& j, const std::string& field, std::optional<double> fallback = {}) {
    if (!j.contains(field)) {
        if (fallback) return *fallback;
        napkin::reject(field, "missing", "is required in a schedule-times file");
    }
    const auto& x = j.at(field);
    if (!x.is_number()) napkin::reject(field, x.is_string() ? x.get<std::string>() : x.type_name(), "must be a number");
    const double value = x.get<double>();
    require(std::isfinite(value) && value >= 0.0, field, value, "must be finite and not negative");
    return value;
}
inline long long times_count(const nlohmann::json& j, const std::string& field) {
    if (!j.contains(field) || !j.at(field).is_number_integer())
        napkin::reject(field, j.contains(field) ? j.at(field).dump().substr(0, 40) : "missing",
                       "must be a whole number in a schedule-times file");
    return j.at(field).get<long long>();
}
}  // namespace detail

/// The ScheduleTimes of a parsed schedule-times document (the format above), checked; fills `schedule` if given.
[[nodiscard]] inline ScheduleTimes parse_schedule_times(const nlohmann::json& j, TimesSchedule* schedule = nullptr) {
    const PipelineShape shape{detail::times_count(j, "stages"), detail::times_count(j, "microbatches"),
                              j.contains("chunks") ? detail::times_count(j, "chunks") : 1};
    napkin::detail::check_shape(shape);
    require(shape.stages * shape.chunks <= 1'000'000, "stages × chunks", count(shape.stages * shape.chunks),
            "must be at most 10^6 in a schedule-times file");
    if (schedule) {
        if (j.contains("schedule")) schedule->name = j.at("schedule").get<std::string>();
        if (j.contains("extra_warmup")) schedule->extra_warmup = detail::times_count(j, "extra_warmup");
        schedule->paired = j.value("paired", false);
    }
    const auto n = static_cast<std::size_t>(shape.stages * shape.chunks);
    ScheduleTimes t{shape, std::vector<StageTimes>(n), seconds(detail::times_number(j, "send_s", 0.0)), {}};
    t.pair_hidden = detail::times_number(j, "pair_hidden", 0.0);
    if (j.contains("microbatch_factor"))
        for (const auto& f : j.at("microbatch_factor")) t.microbatch_factor.push_back(f.get<double>());
    std::vector<bool> seen(n, false);
    bool any_all_to_all = false, any_reduce_scatter = false;
    std::vector<ChunkAllToAll> all_to_all(n);
    std::vector<Seconds> reduce_scatter(n);
    if (!j.contains("chunk_times") || !j.at("chunk_times").is_array())
        napkin::reject("chunk_times", "missing", "must list every stage's chunks in a schedule-times file");
    for (const auto& c : j.at("chunk_times")) {
        const long long stage = detail::times_count(c, "stage"), chunk = c.contains("chunk") ? detail::times_count(c, "chunk") : 1;
        require(stage >= 1 && stage <= shape.stages, "chunk_times.stage", count(stage), "must lie in 1 … stages");
        require(chunk >= 1 && chunk <= shape.chunks, "chunk_times.chunk", count(chunk), "must lie in 1 … chunks");
        const auto i = static_cast<std::size_t>((stage - 1) * shape.chunks + chunk - 1);
        require(!seen[i], "chunk_times entry for stage " + std::to_string(stage) + " chunk", count(chunk),
                "appears twice");
        seen[i] = true;
        t.per_chunk[i] = {seconds(detail::times_number(c, "forward_s")), seconds(detail::times_number(c, "backward_s")),
                          seconds(detail::times_number(c, "weight_grad_s", 0.0))};
        all_to_all[i] = {seconds(detail::times_number(c, "forward_all_to_all_s", 0.0)),
                         seconds(detail::times_number(c, "backward_all_to_all_s", 0.0))};
        any_all_to_all = any_all_to_all || c.contains("forward_all_to_all_s") || c.contains("backward_all_to_all_s");
        if (c.contains("grad_reduce_scatter_s")) {
            reduce_scatter[i] = seconds(detail::times_number(c, "grad_reduce_scatter_s"));
            any_reduce_scatter = true;
        }
    }
    for (std::size_t i = 0; i < n; ++i)
        require(seen[i], "chunk_times: stage " + std::to_string(static_cast<long long>(i) / shape.chunks + 1) + " chunk",
                count(static_cast<long long>(i) % shape.chunks + 1), "is missing");
    if (any_all_to_all) t.all_to_all = std::move(all_to_all);
    if (any_reduce_scatter) t.ends.grad_reduce_scatter = std::move(reduce_scatter);
    if (j.contains("stage_head")) {
        t.ends.param_all_gather.assign(static_cast<std::size_t>(shape.stages), Seconds{});
        t.ends.first_pass_after.assign(static_cast<std::size_t>(shape.stages), Seconds{});
        for (const auto& h : j.at("stage_head")) {
            const long long stage = detail::times_count(h, "stage");
            require(stage >= 1 && stage <= shape.stages, "stage_head.stage", count(stage), "must lie in 1 … stages");
            const auto r = static_cast<std::size_t>(stage - 1);
            t.ends.param_all_gather[r] = seconds(detail::times_number(h, "param_all_gather_s", 0.0));
            t.ends.first_pass_after[r] = seconds(detail::times_number(h, "first_pass_after_s", 0.0));
        }
    }
    t.ends.before_optimizer = seconds(detail::times_number(j, "before_optimizer_s", 0.0));
    t.ends.optimizer = seconds(detail::times_number(j, "optimizer_s", 0.0));
    napkin::detail::check_schedule_times(t, shape);
    return t;
}

/// Read the schedule-times file at `path` and parse it, rejecting text that is not JSON or a field of the wrong type.
[[nodiscard]] inline ScheduleTimes read_schedule_times(const std::string& path, TimesSchedule* schedule = nullptr) {
    const std::string text = read_json_file("times file", path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        napkin::reject("times file", path, std::string("is not JSON: ") + e.what());
    }
    try {
        return parse_schedule_times(j, schedule);
    } catch (const nlohmann::json::exception& e) {
        napkin::reject("times file", path, std::string("has a field of the wrong type: ") + e.what());
    }
}

/// The same format, written: what --times reads back.
[[nodiscard]] inline nlohmann::json schedule_times_json(const ScheduleTimes& t, const TimesSchedule& schedule = {}) {
    nlohmann::json j;
    if (schedule.name) j["schedule"] = *schedule.name;
    if (schedule.extra_warmup != 0) j["extra_warmup"] = schedule.extra_warmup;
    if (schedule.paired) j["paired"] = true;
    j["stages"] = t.shape.stages;
    j["microbatches"] = t.shape.microbatches;
    j["chunks"] = t.shape.chunks;
    j["send_s"] = t.send.value();
    if (t.pair_hidden != 0.0) j["pair_hidden"] = t.pair_hidden;
    if (!t.microbatch_factor.empty()) j["microbatch_factor"] = t.microbatch_factor;
    nlohmann::json chunks = nlohmann::json::array();
    for (long long s = 0; s < t.shape.stages; ++s)
        for (long long c = 0; c < t.shape.chunks; ++c) {
            const auto i = static_cast<std::size_t>(s * t.shape.chunks + c);
            nlohmann::json one{{"stage", s + 1},
                               {"chunk", c + 1},
                               {"forward_s", t.per_chunk[i].forward.value()},
                               {"backward_s", t.per_chunk[i].backward.value()}};
            if (t.per_chunk[i].weight_grad != Seconds{}) one["weight_grad_s"] = t.per_chunk[i].weight_grad.value();
            if (!t.all_to_all.empty()) {
                one["forward_all_to_all_s"] = t.all_to_all[i].forward.value();
                one["backward_all_to_all_s"] = t.all_to_all[i].backward.value();
            }
            if (!t.ends.grad_reduce_scatter.empty())
                one["grad_reduce_scatter_s"] = t.ends.grad_reduce_scatter[i].value();
            chunks.push_back(std::move(one));
        }
    j["chunk_times"] = std::move(chunks);
    if (!t.ends.param_all_gather.empty() || !t.ends.first_pass_after.empty()) {
        nlohmann::json head = nlohmann::json::array();
        for (long long s = 0; s < t.shape.stages; ++s) {
            const auto r = static_cast<std::size_t>(s);
            head.push_back({{"stage", s + 1},
                            {"param_all_gather_s",
                             r < t.ends.param_all_gather.size() ? t.ends.param_all_gather[r].value() : 0.0},
                            {"first_pass_after_s",
                             r < t.ends.first_pass_after.size() ? t.ends.first_pass_after[r].value() : 0.0}});
        }
        j["stage_head"] = std::move(head);
    }
    if (t.ends.before_optimizer != Seconds{}) j["before_optimizer_s"] = t.ends.before_optimizer.value();
    if (t.ends.optimizer != Seconds{}) j["optimizer_s"] = t.ends.optimizer.value();
    return j;
}

}  // namespace napkin::io
