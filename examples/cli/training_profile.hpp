// The training efficiency profile as a JSON file (napkin calibrate-training
// writes it; napkin train and plan read it with --profile FILE):
//   {"schema": "napkin.efficiency-profile/1", "ampere_share": 0.652,
//    "hopper_share": 0.4818, "memory_passes": 0.8872}
// Every field is optional (the default profile fills the rest); an unknown
// field is rejected by name.
#pragma once

#include <napkin/error.hpp>
#include <napkin/gemm.hpp>
#include <napkin/io/text_file.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace napkin::cli {

inline nlohmann::json efficiency_profile_json(const EfficiencyProfile& p) {
    return {{"schema", "napkin.efficiency-profile/1"},
            {"ampere_share", p.ampere_share},
            {"hopper_share", p.hopper_share},
            {"memory_passes", p.memory_passes},
            {"eager_layer_overhead_ms", p.eager_layer_overhead_ms}};
}

// The profile in `j`, read from `path` (named in every message).
inline EfficiencyProfile parse_efficiency_profile(const nlohmann::json& j, const std::string& path) {
    if (!j.is_object()) throw napkin::invalid_argument("--profile \"" + path + "\": must be a JSON object");
    EfficiencyProfile p = default_profile;
    for (const auto& [key, value] : j.items()) {
        if (key == "schema") continue;
        double* field = key == "ampere_share"              ? &p.ampere_share
                        : key == "hopper_share"            ? &p.hopper_share
                        : key == "memory_passes"           ? &p.memory_passes
                        : key == "eager_layer_overhead_ms" ? &p.eager_layer_overhead_ms
                                                           : nullptr;
        if (field == nullptr)
            throw napkin::invalid_argument("--profile \"" + path + "\": unknown field \"" + io::printable(key) +
                                           "\" (ampere_share, hopper_share, memory_passes, eager_layer_overhead_ms)");
        if (!value.is_number())
            throw napkin::invalid_argument("--profile \"" + path + "\": field \"" + key + "\" must be a number");
        *field = value.get<double>();
    }
    require(p.ampere_share > 0.0 && p.ampere_share <= 1.0, "profile ampere_share", p.ampere_share, "must be in (0, 1]");
    require(p.hopper_share > 0.0 && p.hopper_share <= 1.0, "profile hopper_share", p.hopper_share, "must be in (0, 1]");
    require_non_negative("profile memory_passes", p.memory_passes);
    require_non_negative("profile eager_layer_overhead_ms", p.eager_layer_overhead_ms);
    return p;
}

inline EfficiencyProfile read_efficiency_profile(const std::string& path) {
    const std::string text = io::read_json_file("--profile", path);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
        throw napkin::invalid_argument("--profile \"" + path + "\": not valid JSON");
    }
    return parse_efficiency_profile(j, path);
}

}  // namespace napkin::cli
