// SPDX-License-Identifier: MIT
// napkin/io/nccl_tests.hpp — reading the output of NVIDIA's nccl-tests
// (all_reduce_perf, reduce_scatter_perf, all_gather_perf, alltoall_perf,
// broadcast_perf) into measured samples.
//
// The table (nccl-tests src/common.cu; doc/PERFORMANCE.md):
//   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
//   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
//        1048576        262144     float     sum      -1    45.10   23.25   40.69      0    44.80   23.41   40.96      0
// out-of-place time, algbw, busbw, #wrong, then the same for in-place. Older
// versions have no root column; some collectives print "none" as the redop;
// #wrong is "N/A" when checking is off. algbw = size / time; busbw = algbw ×
// the collective's factor (2(n−1)/n for all-reduce). The rank count is the
// number of "#  Rank" lines of the header; without them it follows from
// busbw / algbw.
#pragma once

#include <napkin/io/text_file.hpp>
#include <napkin/checked.hpp>
#include <napkin/collectives.hpp>
#include <napkin/error.hpp>
#include <napkin/units.hpp>

#include <cmath>
#include <fstream>
#include <istream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace napkin::io {

/// One placement's result in a row: time in seconds, algbw and busbw in bytes per second.
struct NcclTestsResult {
    Seconds time;
    BytesPerSecond algorithm_bandwidth;
    BytesPerSecond bus_bandwidth;
};

/// One row of the table: the message size in bytes, its element count, type, redop and root, and both results.
struct NcclTestsRow {
    Bytes size;
    long long elements = 0;
    std::string type;
    std::string redop;
    long long root = -1;
    NcclTestsResult out_of_place;
    NcclTestsResult in_place;
};

/// A whole run: the collective measured, its rank count and its result rows in file order.
struct NcclTestsRun {
    Collective op = Collective::all_reduce;
    long long ranks = 0;
    std::vector<NcclTestsRow> rows;
};

/// Which of a row's two results to use: out-of-place or in-place.
enum class Placement { out_of_place, in_place };

namespace detail {
inline bool is_number(const std::string& text) {
    if (text.empty()) return false;
    std::size_t used = 0;
    try {
        (void)std::stod(text, &used);
    } catch (const std::exception&) {
        return false;
    }
    return used == text.size();
}

using io::printable;

/// A finite, non-negative number (sizes, times and bandwidths are never below 0).
inline double number_at(const std::vector<std::string>& fields, std::size_t i, long long line, const char* what) {
    const std::string where = "nccl-tests line " + std::to_string(line) + " " + what;
    if (i >= fields.size() || !is_number(fields[i]))
        napkin::reject(where, i < fields.size() ? printable(fields[i]) : std::string("(missing)"), "is not a number");
    const double v = std::stod(fields[i]);
    napkin::require_non_negative(where, v);
    return v;
}

/// A whole count in [low, 2^53] (element counts, the root rank; -1 is "no root"):
/// checked before it is converted, so no double outside long long's range is cast.
inline long long whole_at(const std::vector<std::string>& fields, std::size_t i, long long line, const char* what,
                          double low) {
    const std::string where = "nccl-tests line " + std::to_string(line) + " " + what;
    if (i >= fields.size() || !is_number(fields[i]))
        napkin::reject(where, i < fields.size() ? printable(fields[i]) : std::string("(missing)"), "is not a number");
    const double v = std::stod(fields[i]);
    napkin::require(v >= low && v <= 9007199254740992.0 && v == std::floor(v), where, v,
                    low < 0 ? "must be a whole number in [-1, 2^53]" : "must be a whole number in [0, 2^53]");
    return static_cast<long long>(v);
}

/// The result columns' first index: after size, count, type, redop and (in
/// newer versions) root. The root column is there when the field after the
/// redop is an integer and eight numeric fields follow it.
inline std::size_t results_start(const std::vector<std::string>& fields) {
    return fields.size() >= 13 ? 5 : 4;
}
}  // namespace detail

/// Parse the text of one nccl-tests run. `op` names the collective the program
/// measured (it decides the busbw factor); `ranks` overrides the count read
/// from the header.
inline NcclTestsRun parse_nccl_tests(std::istream& in, Collective op = Collective::all_reduce,
                                     std::optional<long long> ranks = std::nullopt) {
    NcclTestsRun run{op, 0, {}};
    long long rank_lines = 0;
    std::string line;
    long long number = 0;
    while (std::getline(in, line)) {
        ++number;
        std::istringstream words(line);
        std::vector<std::string> fields;
        for (std::string w; words >> w;) fields.push_back(w);
        if (fields.empty()) continue;
        if (fields[0] == "#") {
            if (fields.size() >= 2 && fields[1] == "Rank") ++rank_lines;
            continue;
        }
        if (fields[0][0] == '#' || !detail::is_number(fields[0])) continue;
        if (fields.size() < 12)
            napkin::reject("nccl-tests line " + std::to_string(number), detail::printable(line),
                                   "has fewer than the 12 columns of a result row");
        const std::size_t r = detail::results_start(fields);
        NcclTestsRow row;
        row.size = bytes(detail::number_at(fields, 0, number, "size"));
        row.elements = detail::whole_at(fields, 1, number, "count", 0.0);
        row.type = fields[2];
        row.redop = fields[3];
        if (r == 5) row.root = detail::whole_at(fields, 4, number, "root", -1.0);
        const auto result = [&](std::size_t at, const char* which) {
            const std::string prefix = std::string(which) + " ";
            return NcclTestsResult{
                microseconds(detail::number_at(fields, at, number, (prefix + "time").c_str())),
                gigabytes_per_second(detail::number_at(fields, at + 1, number, (prefix + "algbw").c_str())),
                gigabytes_per_second(detail::number_at(fields, at + 2, number, (prefix + "busbw").c_str()))};
        };
        row.out_of_place = result(r, "out-of-place");
        row.in_place = result(r + 4, "in-place");  // after out-of-place's #wrong
        run.rows.push_back(row);
    }
    if (run.rows.empty())
        napkin::reject("nccl-tests output", std::string("(no result rows)"),
                               "has no table of size, count, type, ... rows");
    if (ranks) {
        napkin::require_count("ranks", *ranks, limits::gpus);
        run.ranks = *ranks;
    } else if (rank_lines > 0) {
        run.ranks = rank_lines;
    } else {
        // busbw / algbw = f(n): solve for n on the largest row (the most digits).
        const NcclTestsRow& big = run.rows.back();
        const double factor = ratio(big.out_of_place.bus_bandwidth, big.out_of_place.algorithm_bandwidth);
        double n = 0;
        if (op == Collective::all_reduce) n = 2.0 / (2.0 - factor);  // f = 2(n−1)/n
        else if (op != Collective::broadcast) n = 1.0 / (1.0 - factor);  // f = (n−1)/n
        if (!(n >= 1.5) || !(n <= static_cast<double>(limits::gpus)))
            napkin::reject("nccl-tests ranks", factor,
                                   "cannot be read: no \"#  Rank\" lines, and busbw/algbw does not give it");
        run.ranks = std::llround(n);
    }
    napkin::require(run.ranks >= 2 && run.ranks <= limits::gpus, "nccl-tests ranks", static_cast<double>(run.ranks),
                    "must be in [2, 2^40]");
    return run;
}

/// Read and parse the nccl-tests output file at `path`, as parse_nccl_tests does.
inline NcclTestsRun read_nccl_tests(const std::string& path, Collective op = Collective::all_reduce,
                                    std::optional<long long> ranks = std::nullopt) {
    std::istringstream file(read_text_file("nccl-tests file", path));
    return parse_nccl_tests(file, op, ranks);
}

/// Rows `samples` leaves out: a zero time (nccl-tests prints 0 when a size is
/// below its timer's resolution) gives no sample. Reported beside a fit.
[[nodiscard]] inline long long rows_without_time(const NcclTestsRun& run,
                                                 Placement placement = Placement::out_of_place) {
    long long dropped = 0;
    for (const NcclTestsRow& row : run.rows)
        if (!((placement == Placement::out_of_place ? row.out_of_place : row.in_place).time.value() > 0.0)) ++dropped;
    return dropped;
}

/// The measured times as samples for fit_alpha_beta (rows with a zero time are skipped).
inline std::vector<CollectiveSample> samples(const NcclTestsRun& run, Placement placement = Placement::out_of_place) {
    std::vector<CollectiveSample> out;
    for (const NcclTestsRow& row : run.rows) {
        const NcclTestsResult& r = placement == Placement::out_of_place ? row.out_of_place : row.in_place;
        if (r.time.value() > 0.0) out.push_back({run.op, run.ranks, row.size, r.time});
    }
    return out;
}

}  // namespace napkin::io
