// napkin/calibrate.hpp's cross_validate_profile: the training fit to every
// measured row (catalog::fitting_runs: Narayanan et al. 2021 Tables 1–2 and
// every row of tests/data/measured-training-runs.json, the partial ones at
// their best searched setting), from the kernel layer's shares, each
// parameter on 5 rows or more, with each source left out; and the README's
// training validation table, written from it (NAPKIN_WRITE_README=1 rewrites
// it, as tests/unit/memory_as_run.cpp does the memory table).
#include <napkin/calibrate.hpp>
#include <napkin/catalog/measured_runs.hpp>
#include <napkin/catalog/megatron_runs.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace napkin;

namespace {

std::string percent(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * x);
    return buf;
}

// A source as the README names it: a benchmark table's quoted name after its
// repository, else the source as cited.
std::string source_name(const std::string& source, const std::string& framework) {
    const auto open = source.find('\'');
    const auto close = source.rfind('\'');
    if (open != std::string::npos && close > open) return framework + ", " + source.substr(open + 1, close - open - 1);
    if (source.starts_with("NVIDIA/Megatron-LM")) return framework + ", README weak-scaling table";
    return source;
}

std::string framework_of(const std::vector<MeasuredRun>& runs, const std::string& source) {
    for (const MeasuredRun& r : runs)
        if (r.source == source) return std::string(r.framework);
    return "";
}

std::string validation_table(const std::vector<MeasuredRun>& runs, const CrossValidation& cv) {
    std::ostringstream out;
    out << "| source | rows | fitted mean | fitted max | left out mean | left out max |\n"
        << "|---|---|---|---|---|---|\n";
    for (const SourceValidation& s : cv.sources)
        out << "| " << source_name(s.source, framework_of(runs, s.source)) << " | " << s.rows << " | "
            << percent(s.fitted_mean) << " | " << percent(s.fitted_max) << " | " << percent(s.left_out_mean) << " | "
            << percent(s.left_out_max) << " |\n";
    out << "| all | " << runs.size() << " | " << percent(cv.fit.mean_abs_residual) << " | "
        << percent(cv.fit.max_abs_residual) << " | " << percent(cv.left_out_mean) << " | " << percent(cv.left_out_max)
        << " |\n";
    char line[240];
    std::snprintf(line, sizeof line,
                  "\nFitted on every row: tensor-core share %.4f (Ampere), %.4f (Hopper), %.4f element-wise passes, "
                  "%.3f ms eager-framework overhead per layer and micro-batch.\n",
                  cv.fit.profile.ampere_share, cv.fit.profile.hopper_share, cv.fit.profile.memory_passes,
                  cv.fit.profile.eager_layer_overhead_ms);
    out << line;
    return out.str();
}

}  // namespace

CrossValidation every_row_validation() {
    const std::vector<MeasuredRun> runs = catalog::fitting_runs();
    return cross_validate_profile(runs, {}, kernel_layer_profile(), fitted_rows_per_parameter);
}

TEST_SUITE("cross validation") {
    TEST_CASE("fitting_runs: Narayanan's 16 measured rows, then the 28 of measured-training-runs.json") {
        const std::vector<MeasuredRun> runs = catalog::fitting_runs();
        REQUIRE(runs.size() == 44);
        CHECK(runs.front().source == "Narayanan 2021, Table 1");
        CHECK(runs[15].source == "Narayanan 2021, Table 2");
        std::size_t eager = 0, hopper = 0, ampere = 0;
        for (const MeasuredRun& r : runs) {
            eager += r.options.eager_framework ? 1 : 0;
            (r.cluster.node.gpu.architecture == Architecture::ampere ? ampere : hopper) += 1;
        }
        // No parameter rests on fewer than five rows: 25 A100, 19 H100, 14 eager (llm-foundry) rows.
        CHECK(ampere == 25);
        CHECK(hopper == 19);
        CHECK(eager == 14);
    }

    TEST_CASE("every row fitted: mean |error| at most 5 %, max at most 12 %; each source left out reported") {
        const std::vector<MeasuredRun> runs = catalog::fitting_runs();
        const CrossValidation cv = every_row_validation();
        for (std::size_t i = 0; i < 4; ++i) CHECK(cv.fit.fitted[i]);
        MESSAGE("ampere " << cv.fit.profile.ampere_share << ", hopper " << cv.fit.profile.hopper_share << ", passes "
                          << cv.fit.profile.memory_passes << ", eager " << cv.fit.profile.eager_layer_overhead_ms
                          << " ms; mean " << percent(cv.fit.mean_abs_residual) << ", max "
                          << percent(cv.fit.max_abs_residual) << ", left out mean " << percent(cv.left_out_mean));
        for (std::size_t i = 0; i < runs.size(); ++i)
            MESSAGE(std::string(runs[i].label) << ": fitted " << percent(cv.fit.relative_residuals[i]) << ", left out "
                                               << percent(cv.left_out_residuals[i]));
        CHECK(cv.fit.mean_abs_residual <= 0.05);
        CHECK(cv.fit.max_abs_residual <= 0.12);
        std::size_t rows = 0;
        for (const SourceValidation& s : cv.sources) {
            CAPTURE(s.source);
            rows += s.rows;
            CHECK(s.fitted_mean <= s.fitted_max);
            CHECK(s.left_out_mean <= s.left_out_max);
        }
        CHECK(rows == runs.size());
        // Nine sources: Narayanan Tables 1 and 2, the Megatron-LM README, llm-foundry's three
        // tables, DGX Cloud's 8B and 70B tables, NeMo's summary.
        CHECK(cv.sources.size() == 9);
        // The fit is a minimum: the Hopper share a little either way is no better.
        const auto sum_of_squares = [&](double hopper) {
            EfficiencyProfile p = cv.fit.profile;
            p.hopper_share = hopper;
            double s = 0.0;
            for (const MeasuredRun& r : runs) s += throughput_error(r, p) * throughput_error(r, p);
            return s;
        };
        const double at = sum_of_squares(cv.fit.profile.hopper_share);
        CHECK(at <= sum_of_squares(cv.fit.profile.hopper_share + 0.01));
        CHECK(at <= sum_of_squares(cv.fit.profile.hopper_share - 0.01));
    }

    TEST_CASE("cross-validation says which input is short") {
        std::vector<MeasuredRun> one_source;
        for (const MeasuredRun& r : catalog::fitting_runs())
            if (r.source == "Narayanan 2021, Table 1") one_source.push_back(r);
        CHECK_THROWS_WITH_AS((void)cross_validate_profile(one_source), doctest::Contains("runs (sources)"),
                             napkin::invalid_argument);
    }

    TEST_CASE("the README's training validation table is the one cross_validate_profile gives") {
        const std::vector<MeasuredRun> runs = catalog::fitting_runs();
        const std::string table = validation_table(runs, every_row_validation());
        const std::string path = NAPKIN_TEST_DATA_DIR "/../../README.md";
        std::ifstream in(path);
        REQUIRE(in.good());
        std::stringstream buf;
        buf << in.rdbuf();
        std::string readme = buf.str();
        const std::string begin = "<!-- training-validation:begin -->\n";
        const std::string end = "<!-- training-validation:end -->";
        const auto b = readme.find(begin);
        const auto e = readme.find(end);
        REQUIRE(b != std::string::npos);
        REQUIRE(e != std::string::npos);
        const std::string current = readme.substr(b + begin.size(), e - b - begin.size());
        if (std::getenv("NAPKIN_WRITE_README") != nullptr && current != table) {
            readme.replace(b + begin.size(), e - b - begin.size(), table);
            std::ofstream(path) << readme;
            MESSAGE("README.md's training validation table rewritten");
            return;
        }
        CHECK(current == table);
    }
}
