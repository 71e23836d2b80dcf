// SPDX-License-Identifier: MIT
// napkin/io/reference_schedule.hpp — reads a simulated training step in the
// shape of the shared reference moe-training-step-1024-gpus.json: per stage
// the compute blocks {pass, microbatch, chunk, start, end, paired}, and the
// pipeline sends. Stages, micro-batches and chunks count from 1 in the file
// and from 0 here, as in napkin::Operation.
#pragma once

#include <napkin/error.hpp>
#include <napkin/schedule.hpp>
#include <napkin/units.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::io {

struct ReferenceBlock {
    Pass pass;
    long long microbatch;  // from 0
    long long chunk;       // from 0
    Seconds start;
    Seconds end;
    bool paired;  // a forward and a backward overlapped in one block; the file lists the forward first
};

struct ReferenceSend {
    long long from_stage, to_stage;  // from 0
    Pass pass;                       // forward (activations) or backward (gradients)
    long long microbatch;
    Seconds start, end;
};

struct ReferenceSchedule {
    PipelineShape shape;
    std::vector<std::vector<ReferenceBlock>> stages;
    std::vector<ReferenceSend> sends;
    Seconds step;
    double idle_fraction;
};

namespace detail {
inline Pass reference_pass(const std::string& text) {
    if (text == "forward") return Pass::forward;
    if (text == "backward") return Pass::backward;
    napkin::reject("pass", text, "must be forward or backward");
}
}  // namespace detail

[[nodiscard]] inline ReferenceSchedule parse_reference_schedule(const nlohmann::json& j) {
    ReferenceSchedule r;
    const auto& par = j.at("parallelism");
    r.shape = {par.at("pp").get<long long>(), par.at("microbatchesPerPipeline").get<long long>(),
               par.value("vpp", 1LL)};
    for (const auto& stage : j.at("stages")) {
        auto& blocks = r.stages.emplace_back();
        for (const auto& c : stage.at("compute"))
            blocks.push_back({detail::reference_pass(c.at("pass").get<std::string>()),
                              c.at("microbatch").get<long long>() - 1, c.at("chunk").get<long long>() - 1,
                              seconds(c.at("start").get<double>()), seconds(c.at("end").get<double>()),
                              c.value("paired", false)});
    }
    for (const auto& s : j.value("pipelineSends", nlohmann::json::array()))
        r.sends.push_back({s.at("fromStage").get<long long>() - 1, s.at("toStage").get<long long>() - 1,
                           detail::reference_pass(s.at("dir").get<std::string>()),
                           s.at("microbatch").get<long long>() - 1, seconds(s.at("start").get<double>()),
                           seconds(s.at("end").get<double>())});
    r.step = seconds(j.at("step").at("total").get<double>());
    r.idle_fraction = j.at("step").at("pipelineIdleFraction").get<double>();
    return r;
}

// Every JSON error (not JSON, a missing key, a value of the wrong type or
// range) is a napkin::invalid_argument naming the file, cut to 160 printable
// characters.
[[nodiscard]] inline ReferenceSchedule read_reference_schedule(const std::string& path) {
    std::ifstream file(path);
    if (!file) napkin::reject("path", path, "cannot be opened");
    try {
        return parse_reference_schedule(nlohmann::json::parse(file));
    } catch (const nlohmann::json::exception& e) {
        std::string text;
        for (const char c : std::string_view(e.what()).substr(0, 160)) text += c >= 0x20 && c < 0x7f ? c : '?';
        throw napkin::invalid_argument(path + ": not a reference schedule (" + text + ")");
    }
}

}  // namespace napkin::io
