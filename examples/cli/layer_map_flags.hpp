// SPDX-License-Identifier: MIT
// examples/cli/layer_map_flags.hpp — the uneven-pipeline flags that train,
// plan and schedule share: --layer-map, or Megatron's shorthand
// --first-stage-layers / --last-stage-layers (the other stages share the rest
// equally). One registration, one resolution, one error shape.
#pragma once

#include <napkin/error.hpp>
#include <napkin/layer_map.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <optional>
#include <string>

namespace napkin::cli {

struct LayerMapOptions {
    std::string layer_map;
    long long first_stage_layers = 0, last_stage_layers = 0;
};

// `map_note` and `shorthand_note` end the help of --layer-map and of the
// shorthand with what the command does with them.
inline void add_layer_map_flags(CLI::App* sub, LayerMapOptions& o, const std::string& map_note,
                                const std::string& shorthand_note) {
    sub->add_option("--layer-map", o.layer_map,
                    "uneven pipeline: layers per stage and chunk, e.g. 1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45 "
                    "(stages split by /, a stage's chunks by ," +
                        map_note + ")");
    sub->add_option("--first-stage-layers", o.first_stage_layers,
                    "uneven pipeline: layers of the first virtual stage (Megatron's "
                    "--decoder-first-pipeline-num-layers; the rest shared equally" +
                        shorthand_note + ")");
    sub->add_option(
        "--last-stage-layers", o.last_stage_layers,
        "uneven pipeline: layers of the last virtual stage (--decoder-last-pipeline-num-layers" + shorthand_note + ")");
}

[[nodiscard]] inline bool layer_map_shorthand_given(const CLI::App& sub) {
    return sub.count("--first-stage-layers") + sub.count("--last-stage-layers") > 0;
}

[[nodiscard]] inline bool layer_map_given(const CLI::App& sub, const LayerMapOptions& o) {
    return !o.layer_map.empty() || layer_map_shorthand_given(sub);
}

// The map the flags give for `layers` over `stages` stages of `chunks` chunks
// each (given by `chunks_flag`), or none. A --layer-map with `stages` 0 has
// as many stages as it writes, with `chunks` 0 as many chunks.
[[nodiscard]] inline std::optional<LayerMap> resolve_layer_map(const CLI::App& sub, const LayerMapOptions& o,
                                                               long long layers, long long stages, long long chunks,
                                                               const std::string& chunks_flag) {
    const bool shorthand = layer_map_shorthand_given(sub);
    if (o.layer_map.empty())
        return shorthand ? std::optional{first_last_layer_map(layers, stages, chunks, o.first_stage_layers,
                                                              o.last_stage_layers)}
                         : std::nullopt;
    if (shorthand)
        reject("--layer-map", o.layer_map, "give --layer-map or --first-stage-layers/--last-stage-layers, not both");
    const auto written = 1 + static_cast<long long>(std::count(o.layer_map.begin(), o.layer_map.end(), '/'));
    LayerMap map = parse_layer_map(o.layer_map, layers, stages == 0 ? written : stages);
    if (chunks != 0 && map.chunks != chunks)
        reject("--layer-map", o.layer_map,
               "has " + std::to_string(map.chunks) + (map.chunks == 1 ? " chunk" : " chunks") + " per stage; " +
                   chunks_flag + " is " + std::to_string(chunks));
    return map;
}

}  // namespace napkin::cli
