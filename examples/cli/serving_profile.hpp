// The serving profile as a JSON file (napkin calibrate-serving writes it;
// napkin serve reads it with --profile FILE):
//   {"schema": "napkin.serving-profile/1", "kernels": "measured",
//    "pass_overhead_us": 30.5, "layer_overhead_us": 4.2, "gemm_share": 0.8}
// Every field is optional (the default profile fills the rest); an unknown
// field is rejected by name.
#pragma once

#include <napkin/error.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/serving.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace napkin::cli {

inline nlohmann::json serving_profile_json(const ServingProfile& p) {
    return {{"schema", "napkin.serving-profile/1"},
            {"kernels", std::string(to_string(p.kernels))},
            {"pass_overhead_us", p.pass_overhead.value() * 1e6},
            {"layer_overhead_us", p.layer_overhead.value() * 1e6},
            {"gemm_share", p.gemm_share}};
}

inline ServingProfile read_serving_profile(const std::string& path) {
    const std::string where = "--profile \"" + path + "\"";
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(io::read_json_file("--profile", path));
    } catch (const nlohmann::json::exception&) {
        throw napkin::invalid_argument(where + ": not valid JSON");
    }
    if (!j.is_object()) throw napkin::invalid_argument(where + ": must be a JSON object");
    ServingProfile p = default_serving_profile;
    for (const auto& [key, value] : j.items()) {
        if (key == "schema") continue;
        if (key == "kernels") {
            const auto k = value.is_string() ? parse_kernel_profile(value.get<std::string>()) : std::nullopt;
            if (!k) throw napkin::invalid_argument(where + ": field \"kernels\" must be \"roofline\" or \"measured\"");
            p.kernels = *k;
            continue;
        }
        if (key == "gemm_share") {
            if (!value.is_number()) throw napkin::invalid_argument(where + ": field \"gemm_share\" must be a number");
            p.gemm_share = value.get<double>();
            require(p.gemm_share > 0.0 && p.gemm_share <= 1.0, "gemm_share", p.gemm_share, "must be in (0, 1]");
            continue;
        }
        Seconds* field = key == "pass_overhead_us"    ? &p.pass_overhead
                         : key == "layer_overhead_us" ? &p.layer_overhead
                                                      : nullptr;
        if (field == nullptr)
            throw napkin::invalid_argument(where + ": unknown field \"" + io::printable(key) +
                                           "\" (kernels, pass_overhead_us, layer_overhead_us, gemm_share)");
        if (!value.is_number()) throw napkin::invalid_argument(where + ": field \"" + key + "\" must be a number");
        const double us = value.get<double>();
        require_finite(key, us);
        require_non_negative(key, us);
        require(us <= 1e6, key, us, "must be at most 1e6 (one second a pass)");
        *field = seconds(us * 1e-6);
    }
    return p;
}

}  // namespace napkin::cli
