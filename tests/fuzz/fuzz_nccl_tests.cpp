// libFuzzer target: any bytes as nccl-tests output. Each input ends in a run
// whose rows are finite and non-negative with 2 ≤ ranks ≤ 2^40, or in one
// napkin::invalid_argument with a bounded message; nothing else may escape.
#include <napkin/calibrate.hpp>
#include <napkin/io/nccl_tests.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

namespace {
bool good(double v) { return std::isfinite(v) && v >= 0.0; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    // The first byte picks the collective, the rest is the file.
    const auto op = static_cast<napkin::Collective>(data[0] % 5);
    std::istringstream in(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    try {
        const napkin::io::NcclTestsRun run = napkin::io::parse_nccl_tests(in, op);
        if (run.ranks < 2 || run.ranks > napkin::limits::gpus) std::abort();
        for (const auto& row : run.rows) {
            if (!good(row.size.value()) || row.elements < 0 || row.root < -1) std::abort();
            for (const auto* r : {&row.out_of_place, &row.in_place})
                if (!good(r->time.value()) || !good(r->algorithm_bandwidth.value()) || !good(r->bus_bandwidth.value()))
                    std::abort();
        }
        const auto samples = napkin::io::samples(run);
        if (static_cast<long long>(samples.size()) + napkin::io::rows_without_time(run) !=
            static_cast<long long>(run.rows.size()))
            std::abort();
        const napkin::CalibrationFit fit = napkin::fit_alpha_beta(samples);
        if (!good(fit.step_latency.value()) || !(fit.bandwidth.value() > 0.0)) std::abort();
    } catch (const napkin::invalid_argument& e) {
        const std::string message = e.what();
        for (const char c : message)
            if (c >= 0 && c < 0x20) std::abort();
        if (message.size() > 400) std::abort();
    }
    return 0;
}
