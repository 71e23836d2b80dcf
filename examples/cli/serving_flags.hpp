// SPDX-License-Identifier: MIT
// The serving engine's flags that `napkin serve` and `napkin plan-inference`
// share, read once: --weight-dtype and --kv-dtype, each refusal naming the flag
// and, for a format the GPU cannot compute in, what its data sheet lacks.
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/names.hpp>
#include <napkin/serving.hpp>

#include <string>

namespace napkin::cli {

// The number formats of --weight-dtype and --kv-dtype for `gpu`, into `setup`.
inline void apply_serving_formats(ServingSetup& setup, const std::string& weight_dtype, const std::string& kv_dtype,
                                  const Gpu& gpu) {
    const auto weights = parse_weight_dtype(weight_dtype);
    if (!weights) reject("--weight-dtype", weight_dtype, "must be " + names_of(weight_dtype_names));
    const auto kv = parse_kv_dtype(kv_dtype);
    if (!kv) reject("--kv-dtype", kv_dtype, "must be " + names_of(kv_dtype_names));
    if (const std::string_view missing = missing_for(gpu, *weights); !missing.empty())
        reject("--weight-dtype", weight_dtype,
               std::string(gpu.name) + " has " + std::string(missing) + "; use " + computable_formats(gpu));
    setup.weights = *weights;
    setup.kv = *kv;
}

}  // namespace napkin::cli
