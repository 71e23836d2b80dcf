// libFuzzer target: any bytes as one of the JSON files napkin reads besides
// config.json — a --times file, a --reference schedule, a --profile. The first
// byte picks the reader, the rest is the file (the fourth reader: a serving
// --trace, CSV or JSON Lines, read as text). Each input ends in values that
// are finite and non-negative, or in one napkin::invalid_argument (or a JSON
// error) with a bounded one-line message; nothing else may escape, and no
// size read from the file is allocated before it is checked.
#include "training_profile.hpp"

#include <napkin/io/reference_schedule.hpp>
#include <napkin/io/schedule_times.hpp>
#include <napkin/io/serving_trace.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
bool good(double v) { return std::isfinite(v) && v >= 0.0; }

void check_message(const std::string& message) {
    for (const char c : message)
        if (c >= 0 && c < 0x20) std::abort();
    if (message.size() > 600) std::abort();
}

void read_times(const nlohmann::json& j) {
    const napkin::ScheduleTimes t = napkin::io::parse_schedule_times(j);
    for (const napkin::StageTimes& s : t.per_chunk)
        if (!good(s.forward.value()) || !good(s.backward.value()) || !good(s.weight_grad.value())) std::abort();
}

void read_reference(const nlohmann::json& j) {
    const napkin::io::ReferenceSchedule r = napkin::io::parse_reference_schedule(j);
    if (static_cast<long long>(r.stages.size()) != r.shape.stages) std::abort();
    if (!good(r.step.value()) || !(r.idle_fraction >= 0.0 && r.idle_fraction <= 1.0)) std::abort();
}

void read_profile(const nlohmann::json& j) {
    const napkin::EfficiencyProfile p = napkin::cli::parse_efficiency_profile(j, "fuzz.json");
    if (!(p.ampere_share > 0.0 && p.ampere_share <= 1.0) || !good(p.memory_passes)) std::abort();
}

void read_trace(const std::string& text) {
    for (const napkin::Request& r : napkin::io::parse_serving_trace(text, "--trace", "fuzz.csv"))
        if (!good(r.arrival) || r.input < 1 || r.output < 1 || r.prefix < 0 || r.prefix >= r.input) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const int reader = data[0] % 4;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        if (reader == 3) {
            read_trace(text);
            return 0;
        }
        const nlohmann::json j = nlohmann::json::parse(text);
        if (reader == 0)
            read_times(j);
        else if (reader == 1)
            read_reference(j);
        else
            read_profile(j);
    } catch (const napkin::invalid_argument& e) {
        check_message(e.what());
    } catch (const nlohmann::json::exception&) {
        // not JSON, or a field of the wrong type: the CLI's readers say so naming the file
    }
    return 0;
}
