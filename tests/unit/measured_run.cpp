// napkin/measured_run.hpp: a partial row's unknown settings searched over what
// its notes allow, its best fitting setting taken; catalog::fitting_runs; and
// tests/data/measured-training-runs.json, the rows' published numbers with their
// sources, row for row the same as validation/measured_runs.hpp.
#include <napkin/measured_run.hpp>
#include <napkin/validation/measured_runs.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using namespace napkin;

namespace {
const MeasuredRun& row(std::string_view label) {
    for (const MeasuredRun& r : catalog::published_runs)
        if (r.label == label) return r;
    for (const MeasuredRun& r : catalog::nemo_runs)
        if (r.label == label) return r;
    FAIL("no row " << std::string(label));
    return catalog::published_runs.front();
}

// "owner/repo @ sha" of a citation: its first three words, without a trailing comma.
std::string repository_at_commit(std::string_view citation) {
    std::size_t end = 0;
    for (int word = 0; word < 3 && end != std::string_view::npos; ++word) end = citation.find(' ', end + 1);
    std::string words(citation.substr(0, end));
    if (!words.empty() && words.back() == ',') words.pop_back();
    return words;
}

double error_at(const MeasuredRun& candidate, const MeasuredRun& run) {
    return ratio(run.measured_step, evaluated_step(candidate, default_profile)) - 1.0;
}
}  // namespace

TEST_SUITE("measured_run") {
    TEST_CASE("a complete row is priced as printed: no search") {
        const MeasuredRun& r = row("MPT-7B, 8 GPUs");
        CHECK_FALSE(r.search.any());
        int settings = 0;
        for_each_setting(r, [&](const MeasuredRun&) { ++settings; });
        CHECK(settings == 1);
        CHECK(predicted_step(r, default_profile) == evaluated_step(r, default_profile));
    }

    TEST_CASE("Megatron-LM README 70B (t8 p2 d48, batch 384): 3 micro-batches × 3 recomputations × 5 chunk counts") {
        // b ∈ {1, 2, 4}: 384 / (b · 48) = 8, 4, 2 micro-batches, each a multiple of p = 2 (interleaving
        // needs it); v ∈ 1..8 dividing the 42 layers a stage holds: 1, 2, 3, 6, 7. All 45 fit in 80 GB
        // with the distributed optimizer over 48 copies.
        const MeasuredRun& r = row("GPT 70B, 768 GPUs");
        REQUIRE(r.search.any());
        int settings = 0;
        double best = 1e9;
        for_each_setting(r, [&](const MeasuredRun& c) {
            ++settings;
            CHECK(42 % c.layout.virtual_stages == 0);
            best = std::min(best, std::abs(error_at(c, r)));
        });
        CHECK(settings == 45);
        // The setting taken is the closest of them, never worse than the one napkin assumed before
        // (b = 1, no recomputation, no interleaving, itself a candidate).
        const MeasuredRun taken = best_setting(r, default_profile);
        CHECK(std::abs(throughput_error(r)) == doctest::Approx(best).epsilon(1e-12));
        CHECK(std::abs(error_at(taken, r)) <= std::abs(error_at(r, r)));
    }

    TEST_CASE("llm-foundry's H100 rows without their interconnect: NDR or 200 Gb/s per GPU") {
        const MeasuredRun& r = row("MPT-13B, 64 GPUs");
        int settings = 0;
        for_each_setting(r, [&](const MeasuredRun& c) {
            ++settings;
            CHECK((c.cluster.node.inter.name == "ib-ndr" || c.cluster.node.inter.name == "ib-hdr"));
        });
        CHECK(settings == 2);
    }

    TEST_CASE("NeMo's FP8 GPT-3 175B: recomputation searched, FP8 GEMMs, 256 · 2,048 / (726 · 128) = 5.642 s") {
        const MeasuredRun& r = row("GPT-3 175B FP8, 128 GPUs");
        CHECK(r.options.compute_dtype == DType::fp8);
        CHECK(in(r.measured_step, units::s) == doctest::Approx(256.0 * 2048 / (726.0 * 128)).epsilon(1e-12));
        int settings = 0;
        for_each_setting(r, [&](const MeasuredRun&) { ++settings; });
        CHECK(settings == 3);
    }

    TEST_CASE("fitting_runs: Narayanan's 16 measured rows and the 28 of measured-training-runs.json") {
        const std::vector<MeasuredRun> runs = catalog::fitting_runs();
        CHECK(runs.size() == 16 + 23 + 5);
        double sum = 0.0, worst = 0.0;
        for (const MeasuredRun& r : runs) {
            const double e = throughput_error(r);
            MESSAGE(std::string(r.label) << ": " << 100.0 * e << " %");
            CHECK(std::abs(e) < 0.5);  // every row within a factor 1.5 either way
            sum += std::abs(e);
            worst = std::max(worst, std::abs(e));
        }
        MESSAGE("every row at the defaults: mean |error| " << 100.0 * sum / 44.0 << " %, max " << 100.0 * worst
                                                           << " %");
    }

    TEST_CASE("measured-training-runs.json: each row's published numbers are those of validation/") {
        std::ifstream file(NAPKIN_TEST_DATA_DIR "/measured-training-runs.json");
        REQUIRE(file.good());
        const nlohmann::json doc = nlohmann::json::parse(file);
        std::vector<MeasuredRun> runs(catalog::published_runs.begin(), catalog::published_runs.end());
        runs.insert(runs.end(), catalog::nemo_runs.begin(), catalog::nemo_runs.end());
        REQUIRE(doc.at("runs").size() == runs.size());
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const nlohmann::json& j = doc.at("runs")[i];
            const MeasuredRun& r = runs[i];
            const std::string id = j.at("id");
            INFO(id << " against " << std::string(r.label));
            // The source: the same repository at the same commit ("owner/repo @ sha").
            CHECK(repository_at_commit(r.source) == repository_at_commit(j.at("citation").get<std::string>()));
            CHECK(r.complete == (j.at("status") == "complete"));
            const nlohmann::json& m = j.at("model");
            CHECK(r.model.layers == m.at("layers"));
            CHECK(r.model.hidden == m.at("hidden"));
            CHECK(r.model.ffn == m.at("ffn"));
            CHECK(r.model.heads == m.at("heads"));
            CHECK(r.model.kv_heads == m.at("kv_heads"));
            CHECK(r.model.vocabulary == m.at("vocab"));
            CHECK(gpus(r.cluster) == j.at("gpus"));
            CHECK(gpus(r.layout) == j.at("gpus"));
            CHECK(r.cluster.node.gpus == j.at("gpus_per_node"));
            CHECK(r.layout.tp == j.at("tp"));
            CHECK(r.layout.pp == j.at("pp"));
            CHECK(r.layout.dp == j.at("dp"));
            CHECK(r.layout.cp == j.at("cp"));
            CHECK(r.layout.ep == j.at("ep"));
            CHECK(r.layout.global_batch == j.at("global_batch"));
            CHECK(r.layout.sequence == j.at("seq_len"));
            // null: the source does not say, and the row assumes or searches it.
            if (!j.at("vp").is_null()) CHECK(r.layout.virtual_stages == j.at("vp"));
            if (!j.at("micro_batch").is_null()) CHECK(r.layout.micro_batch == j.at("micro_batch"));
            if (!j.at("sequence_parallel").is_null()) CHECK(r.layout.sequence_parallel == j.at("sequence_parallel"));
            if (!j.at("recompute").is_null())
                CHECK(std::optional(r.layout.recompute) == parse_recompute(j.at("recompute").get<std::string>()));
            CHECK((r.options.compute_dtype == DType::fp8) == j.at("fp8"));
            // The measured number, as the row turns it into a step time.
            const nlohmann::json& measured = j.at("measured");
            const std::string kind = measured.at("kind");
            const double value = measured.at("value");
            std::optional<Seconds> step;
            if (kind == "tflops_per_gpu")
                step = step_from_flops_per_gpu(model_flops_per_iteration(r.model, r.layout), value, gpus(r.layout));
            else if (kind == "tokens_per_s_per_gpu")
                step = step_from_tokens_per_gpu(r.layout, value);
            else if (kind == "step_time_s")
                step = seconds(value);
            REQUIRE_MESSAGE(step.has_value(), "a measured kind the test does not know: " << kind);
            CHECK(in(r.measured_step, units::s) == doctest::Approx(in(*step, units::s)).epsilon(1e-12));
        }
    }
}
