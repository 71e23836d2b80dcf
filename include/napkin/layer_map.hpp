// SPDX-License-Identifier: MIT
// napkin/layer_map.hpp — which transformer layers each pipeline stage and chunk
// holds, for pipelines whose stages are not equal: an explicit map
// ("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45": stages split by '/', a
// stage's chunks by ',', each chunk a range of layers counted from 1) or
// Megatron-LM's shorthand, the first and last stages' layer counts
// (--decoder-first-pipeline-num-layers, --decoder-last-pipeline-num-layers).
// The embedding sits on the first stage, the LM head and loss on the last.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/model.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin {

/// A contiguous range of transformer layers, first to last, counted from 1 and both included.
struct LayerRange {
    long long first, last;  // counted from 1, both included
    [[nodiscard]] constexpr long long size() const { return last - first + 1; }
};

/// ranges[stage·chunks + chunk]: the layers that chunk of that stage holds.
struct LayerMap {
    long long stages = 1;
    long long chunks = 1;
    std::vector<LayerRange> ranges;

    [[nodiscard]] const LayerRange& at(long long stage, long long chunk) const {
        return ranges[static_cast<std::size_t>(stage * chunks + chunk)];
    }
    [[nodiscard]] long long layers(long long stage, long long chunk) const { return at(stage, chunk).size(); }
    [[nodiscard]] long long stage_layers(long long stage) const {
        long long n = 0;
        for (long long c = 0; c < chunks; ++c) n += layers(stage, c);
        return n;
    }
    // Layers per chunk in ScheduleTimes::per_chunk's order (stage·chunks + chunk).
    [[nodiscard]] std::vector<long long> layers_per_chunk() const {
        std::vector<long long> out;
        for (const LayerRange& r : ranges) out.push_back(r.size());
        return out;
    }
    // The stage holding the most layers (the first of equals), from 0.
    [[nodiscard]] long long fullest_stage() const {
        long long best = 0;
        for (long long s = 1; s < stages; ++s)
            if (stage_layers(s) > stage_layers(best)) best = s;
        return best;
    }
};

namespace detail {
/// The counts a map is built from, checked before anything is allocated or
/// indexed: the layers within their bound, p and v at least 1, and the p·v
/// virtual stages (a product that must not wrap: checked_mul) at most the
/// layers, each holding one at least. Returns p·v.
inline long long check_map_counts(long long layers, long long stages, long long chunks) {
    require_count("layers", layers, limits::layers);
    require_count("stages", stages, limits::gpus);
    require_count("chunks", chunks, limits::layers);
    const long long virtual_stages = checked_mul(stages, chunks, "stages × chunks");
    if (virtual_stages > layers)
        reject_exact("stages × chunks", std::to_string(virtual_stages),
                     "must be at most the model's " + std::to_string(layers) +
                         " layers (every virtual stage holds one at least)");
    return virtual_stages;
}

/// Every layer 1 … layers exactly once; `name` names the map in errors.
inline void check_layer_cover(const LayerMap& map, long long layers, std::string_view name) {
    std::vector<unsigned char> seen(static_cast<std::size_t>(layers) + 1, 0);
    for (long long s = 0; s < map.stages; ++s)
        for (long long c = 0; c < map.chunks; ++c) {
            const LayerRange& r = map.at(s, c);
            const std::string entry =
                std::string(name) + " stage " + std::to_string(s + 1) + " chunk " + std::to_string(c + 1);
            if (!(r.first >= 1 && r.first <= r.last && r.last <= layers))
                reject(entry, std::to_string(r.first) + "-" + std::to_string(r.last),
                       "must be a range a-b with 1 <= a <= b <= " + std::to_string(layers) + " (the model's layers)");
            for (long long l = r.first; l <= r.last; ++l)
                if (++seen[static_cast<std::size_t>(l)] > 1)
                    reject(entry, std::to_string(r.first) + "-" + std::to_string(r.last),
                           "repeats layer " + std::to_string(l));
        }
    for (long long l = 1; l <= layers; ++l)
        if (seen[static_cast<std::size_t>(l)] == 0)
            reject(name, static_cast<double>(l),
                   "this layer is on no stage (every layer 1 … " + std::to_string(layers) + " exactly once)");
}

inline long long parse_layer_number(std::string_view text, const std::string& entry) {
    if (text.empty() || text.size() > 12) reject(entry, text, "must be a layer number or a range a-b");
    long long n = 0;
    for (char ch : text) {
        if (ch < '0' || ch > '9') reject(entry, text, "must be a layer number or a range a-b");
        n = n * 10 + (ch - '0');
    }
    return n;
}
}  // namespace detail

/// Parses "1-6,25-29/7-12,30-35/…" for a model of `layers` layers on `stages`
/// pipeline stages; `name` names the entry in errors (a front end may pass its own spelling).
[[nodiscard]] inline LayerMap parse_layer_map(std::string_view text, long long layers, long long stages,
                                              std::string_view name = "layer_map") {
    require_count("layers", layers, limits::layers);
    require_count("stages", stages, limits::gpus);
    LayerMap map{stages, 0, {}};
    long long stage = 0;
    std::size_t at = 0;
    while (true) {
        const std::size_t slash = text.find('/', at);
        const std::string_view stage_text = text.substr(at, slash == std::string_view::npos ? text.npos : slash - at);
        long long chunks = 0;
        std::size_t c_at = 0;
        while (true) {
            const std::size_t comma = stage_text.find(',', c_at);
            const std::string_view chunk =
                stage_text.substr(c_at, comma == std::string_view::npos ? stage_text.npos : comma - c_at);
            const std::string entry =
                std::string(name) + " stage " + std::to_string(stage + 1) + " chunk " + std::to_string(chunks + 1);
            if (chunk.empty()) reject(entry, chunk, "is empty: every stage and chunk holds at least one layer");
            const std::size_t dash = chunk.find('-');
            const long long first = detail::parse_layer_number(chunk.substr(0, dash), entry);
            const long long last =
                dash == std::string_view::npos ? first : detail::parse_layer_number(chunk.substr(dash + 1), entry);
            map.ranges.push_back({first, last});
            ++chunks;
            if (comma == std::string_view::npos) break;
            c_at = comma + 1;
        }
        if (stage == 0)
            map.chunks = chunks;
        else if (chunks != map.chunks)
            reject(std::string(name) + " stage " + std::to_string(stage + 1), stage_text,
                   "has " + std::to_string(chunks) + " chunks; stage 1 has " + std::to_string(map.chunks) +
                       " (every stage the same)");
        ++stage;
        if (slash == std::string_view::npos) break;
        at = slash + 1;
    }
    if (stage != stages)
        reject(name, text, "has " + std::to_string(stage) + " stages; the pipeline has " + std::to_string(stages));
    detail::check_layer_cover(map, layers, name);
    return map;
}

/// Megatron's shorthand: the first virtual stage (stage 1, chunk 1) holds
/// `first` layers, the last (stage p, chunk v) `last`, the others an equal
/// share of the rest, in order (Megatron-core, transformer_block.py
/// get_num_layers_to_build with --decoder-first/last-pipeline-num-layers).
/// 0 for first or last: that stage takes an equal share too.
[[nodiscard]] inline LayerMap first_last_layer_map(long long layers, long long stages, long long chunks,
                                                   long long first, long long last) {
    const long long virtual_stages = detail::check_map_counts(layers, stages, chunks);
    // Each at most the layers, so that first + last and what they leave stay exact.
    for (const auto& [name, given] : {std::pair{"first_stage_layers", first}, std::pair{"last_stage_layers", last}})
        if (given < 0 || given > layers)
            reject_exact(name, std::to_string(given),
                         "must lie in 0 … " + std::to_string(layers) + " (the model's layers)");
    const long long fixed = (first > 0 ? 1 : 0) + (last > 0 ? 1 : 0);
    require(virtual_stages > fixed || (virtual_stages == 1 && first + last <= layers), "stages", count(stages),
            "must leave a stage between the first and the last");
    const long long middle = virtual_stages - fixed;
    const long long rest = layers - first - last;
    if (!(rest >= middle && (middle == 0 ? rest == 0 : rest % middle == 0)))
        reject("first_stage_layers", static_cast<double>(first),
               "with last_stage_layers = " + std::to_string(last) + " must leave the other " + std::to_string(middle) +
                   " virtual stages an equal share of the " + std::to_string(layers) + " layers, at least 1 each",
               {"last_stage_layers"});
    const long long each = middle == 0 ? 0 : rest / middle;
    // Virtual stage k = chunk·p + stage holds the k-th block of layers.
    std::vector<long long> counts(static_cast<std::size_t>(virtual_stages), each);
    if (first > 0) counts.front() = first;
    if (last > 0) counts.back() = last;
    LayerMap map{stages, chunks, std::vector<LayerRange>(static_cast<std::size_t>(virtual_stages))};
    long long next = 1;
    for (long long k = 0; k < virtual_stages; ++k) {
        const long long n = counts[static_cast<std::size_t>(k)];
        map.ranges[static_cast<std::size_t>((k % stages) * chunks + k / stages)] = {next, next + n - 1};
        next += n;
    }
    detail::check_layer_cover(map, layers, "first_stage_layers");
    return map;
}

/// Even stages: p·v equal chunks (the layers must divide).
[[nodiscard]] inline LayerMap even_layer_map(long long layers, long long stages, long long chunks) {
    return first_last_layer_map(layers, stages, chunks, 0, 0);
}

/// The weights a stage holds: its layers (dense or MoE as
/// model.hpp's moe_layers_between places them), the embedding table on the first stage, the output
/// layer and final norm on the last (with tied embeddings Megatron keeps a copy
/// of the table there too, so the stages then hold one table more than the model).
/// What memory and the gradient collectives per stage need.
[[nodiscard]] inline long long stage_parameter_count(const TransformerShape& m, const LayerMap& map, long long stage) {
    require(stage >= 0 && stage < map.stages, "stage", static_cast<double>(stage), "must lie in 0 … stages − 1");
    long long weights = 0;
    for (long long c = 0; c < map.chunks; ++c) {
        const LayerRange& r = map.at(stage, c);
        const long long moe = moe_layers_between(m, r.first, r.last);
        weights += (r.size() - moe) * dense_layer_weights(m) + moe * layer_weights(m);
    }
    const long long table = m.vocabulary * m.hidden;
    if (stage == 0) weights += table + m.learned_positions * m.hidden;
    if (stage == map.stages - 1) weights += table + norm_weights(m);
    return weights;
}

}  // namespace napkin
