// napkin/measured_serving.hpp and napkin/io/serving_runs.hpp: serving priced
// through the kernel layer against published fixed-batch benchmarks
// (tests/data/measured-serving-runs.json, a copy of the reference file:
// TensorRT-LLM 0.9 on A100 and H100, LMDeploy on A100); the engine overheads
// fitted on every row, each source left out; the README's serving validation
// table, written from it (NAPKIN_WRITE_README=1 rewrites it).
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/io/serving_runs.hpp>
#include <napkin/measured_serving.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/engine.hpp>
#include <napkin/serving/simulator.hpp>

#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

using namespace napkin;

namespace {

io::ServingRunFile fitting_set() {
    return io::read_serving_runs("measured-serving-runs.json", NAPKIN_TEST_DATA_DIR "/measured-serving-runs.json");
}

using test::percent;
using test::signed_percent;

// The table, with the data sheet's roofline beside the fit (what serving was before the kernel layer).
std::string validation_table(const std::vector<MeasuredServingRun>& runs, const ServingCrossValidation& cv) {
    std::ostringstream out;
    out << "| source | measured | rows | roofline mean | fitted mean | fitted max | bias | left out mean | left out "
           "max |\n"
        << "|---|---|---|---|---|---|---|---|---|\n";
    double roofline_all = 0.0;
    for (const MeasuredServingRun& r : runs) roofline_all += std::abs(serving_error(r, roofline_serving));
    for (const ServingSourceValidation& g : cv.groups) {
        double roofline = 0.0;
        for (const MeasuredServingRun& r : runs)
            if (r.source == g.source && r.measure == g.measure)
                roofline += std::abs(serving_error(r, roofline_serving));
        out << "| " << g.source << " | " << to_string(g.measure) << " | " << g.rows << " | "
            << percent(roofline / static_cast<double>(g.rows)) << " | " << percent(g.fitted_mean) << " | "
            << percent(g.fitted_max) << " | " << signed_percent(g.fitted_bias) << " | " << percent(g.left_out_mean)
            << " | " << percent(g.left_out_max) << " |\n";
    }
    out << "| all | | " << runs.size() << " | " << percent(roofline_all / static_cast<double>(runs.size())) << " | "
        << percent(cv.fit.mean_abs) << " | " << percent(cv.fit.max_abs) << " | " << signed_percent(cv.fit.bias) << " | "
        << percent(cv.left_out_mean) << " | |\n";
    char line[240];
    std::snprintf(line, sizeof line,
                  "\nFitted on every row: %.2f µs a forward pass and stage, %.2f µs a layer and pass, GEMMs at "
                  "%.4f of the best GEMM's rate.\n",
                  cv.fit.profile.pass_overhead.value() * 1e6, cv.fit.profile.layer_overhead.value() * 1e6,
                  cv.fit.profile.gemm_share);
    out << line;
    return out.str();
}

}  // namespace

TEST_SUITE("serving validation") {
    TEST_CASE("the roofline profile is the lesson's token_time: one sequence, no context, 16-bit weights") {
        // decode_step under roofline_serving keeps the closed form term by term.
        const TransformerShape& m = catalog::llama3_1_8b;
        ServingSetup s;
        s.profile = roofline_serving;
        const DecodeStep step = decode_step(m, catalog::h100_sxm, catalog::nvlink4, {.tp = 1}, {1, tokens(0)}, s);
        CHECK(step.overhead.value() == 0.0);
        CHECK(step.weights_read ==
              read_time(serving_weights_per_gpu(m, {.tp = 1}, WeightDType::bf16), catalog::h100_sxm));
    }

    TEST_CASE(
        "measured kernels: a decode step's weights at a decode GEMM's bandwidth, 2,898 (BF16) or 2,586 (FP8) of 3,350 "
        "GB/s") {
        const TransformerShape& m = catalog::llama3_1_8b;
        ServingSetup measured;
        measured.profile = {KernelProfile::measured, Seconds{}, Seconds{}};
        ServingSetup roofline;
        roofline.profile = roofline_serving;
        const auto at = [&](const ServingSetup& s) {
            return decode_step(m, catalog::h100_sxm, catalog::nvlink4, {.tp = 1}, {1, tokens(0)}, s).weights_read;
        };
        // vLLM's decode-shaped H100 GEMMs (kernels.cpp re-derives both from their rows).
        CHECK(ratio(at(measured), at(roofline)) == doctest::Approx(3350.0 / ((2871.1 + 2921.3 + 2901.8) / 3.0)));
        measured.weights = WeightDType::fp8;
        roofline.weights = WeightDType::fp8;
        CHECK(ratio(at(measured), at(roofline)) == doctest::Approx(3350.0 / ((2582.6 + 2614.2 + 2559.8) / 3.0)));
    }

    TEST_CASE(
        "measured kernels: a decode step's GEMMs, then its attention — max(W, G) + max(KV, A), not max(W + KV, G + "
        "A)") {
        // Llama 3.1 8B on one H100, 512 sequences of 512 cached tokens each, bf16: the GEMMs do
        // 2 · 8 B FLOPs a token for 512 rows (≈ 8.2 TFLOP, ≈ 13 ms at 0.8 of the MAMF ceiling's
        // 794 TFLOP/s) while their weights read in ≈ 5 ms; the attention reads 512 · 512 tokens of
        // 128 KiB (32 layers · 8 KV heads · 128 · 2 · 2 B) = 32 GiB and does
        // 4 · 32 · 4,096 · 512 · 512 ≈ 0.14 TFLOP. So the GEMMs are compute-bound, the attention
        // memory-bound, and, run in turn, the step is the GEMMs' math plus the cache's read.
        const TransformerShape& m = catalog::llama3_1_8b;
        const DecodeStep s =
            decode_step(m, catalog::h100_sxm, catalog::nvlink4, {.tp = 1}, {512, tokens(512)}, default_serving_setup);
        const Seconds gemms = s.compute - s.attention;
        CHECK(gemms.value() > s.weights_read.value());
        CHECK(s.kv_read.value() > s.attention.value());
        CHECK(s.busy().value() == doctest::Approx((gemms + s.kv_read).value()).epsilon(1e-12));
        CHECK(s.busy().value() > 1.3 * std::max(s.reading(), s.compute).value());
        // The roofline keeps the lesson's one roofline for the whole step.
        ServingSetup lesson;
        lesson.profile = roofline_serving;
        const DecodeStep r = decode_step(m, catalog::h100_sxm, catalog::nvlink4, {.tp = 1}, {512, tokens(512)}, lesson);
        CHECK(r.busy() == std::max(r.reading(), r.compute));
    }

    TEST_CASE("the engine's overheads: P passes over pp stages and L layers add P·(pp·a + L·b)") {
        // Llama 3.1 8B (32 layers), pp = 2, a prompt in 4 chunks: 4 · (2 · 10 µs + 32 · 1 µs) = 208 µs.
        const TransformerShape& m = catalog::llama3_1_8b;
        ServingSetup s;
        s.prefill_chunk = 256;
        s.profile = {KernelProfile::measured, seconds(10e-6), seconds(1e-6)};
        ServingSetup none = s;
        none.profile = {KernelProfile::measured, Seconds{}, Seconds{}};
        const ServingLayout l{.tp = 1, .pp = 2};
        const PrefillTime with = prefill_time(m, catalog::h100_sxm, catalog::nvlink4, l, 1, 1024, s);
        const PrefillTime without = prefill_time(m, catalog::h100_sxm, catalog::nvlink4, l, 1, 1024, none);
        CHECK(with.passes == 4);
        CHECK((with.total() - without.total()).value() == doctest::Approx(208e-6));
    }

    TEST_CASE("fit_serving_profile recovers the overheads that made its rows") {
        // Rows made with a = 40 µs, b = 6 µs and GEMMs at 70 % of the best GEMM: the search and
        // the linear least squares find them.
        io::ServingRunFile file = fitting_set();
        std::vector<MeasuredServingRun> rows(file.runs.begin(), file.runs.begin() + 40);
        const ServingProfile truth{KernelProfile::measured, seconds(40e-6), seconds(6e-6), 0.7};
        for (MeasuredServingRun& r : rows) r.measured = predicted(r, truth);
        const ServingFit fit = fit_serving_profile(rows);
        CHECK(fit.profile.pass_overhead.value() == doctest::Approx(40e-6).epsilon(1e-4));
        CHECK(fit.profile.layer_overhead.value() == doctest::Approx(6e-6).epsilon(1e-4));
        CHECK(fit.profile.gemm_share == doctest::Approx(0.7).epsilon(1e-4));
        CHECK(fit.max_abs < 1e-6);
    }

    TEST_CASE("measured-serving-runs.json: every fixed-batch measurement read, in-flight rows left to the simulator") {
        const io::ServingRunFile file = fitting_set();
        // 72 TensorRT-LLM 0.9 rows (48 throughput, 24 batch-1 TTFT) and 40 LMDeploy rows of
        // three kinds each (throughput, mean first-token latency, p50 per-token latency); the LMDeploy
        // rows' other kinds go to their closed-loop replay, but the GPU memory (the pre-allocated cache).
        CHECK(file.runs.size() == 72 + 3 * 40);
        CHECK(file.skipped == 40);
        CHECK(file.replay_only == 5 * 40);  // least and greatest TTFT, per-token p75, p95, p99: the replay's
        for (const MeasuredServingRun& r : file.runs) {
            CAPTURE(r.id);
            CHECK(std::isfinite(predicted(r, default_serving_profile)));
        }
    }

    TEST_CASE("the defaults are the fit to every row — each source left out is reported, as the README's table") {
        const io::ServingRunFile file = fitting_set();
        const ServingCrossValidation cv = cross_validate_serving(file.runs);
        MESSAGE(std::setprecision(9) << "pass " << cv.fit.profile.pass_overhead.value() * 1e6 << " us, layer "
                                     << cv.fit.profile.layer_overhead.value() * 1e6 << " us, gemm share "
                                     << cv.fit.profile.gemm_share << "; mean " << percent(cv.fit.mean_abs) << ", bias "
                                     << signed_percent(cv.fit.bias) << ", left out " << percent(cv.left_out_mean));
        for (std::size_t i = 0; i < file.runs.size(); ++i)
            MESSAGE(file.runs[i].id << " " << to_string(file.runs[i].measure) << ": "
                                    << signed_percent(cv.fit.errors[i]));
        CHECK(std::abs(cv.fit.profile.pass_overhead.value() - default_serving_profile.pass_overhead.value()) < 5e-9);
        CHECK(std::abs(cv.fit.profile.layer_overhead.value() - default_serving_profile.layer_overhead.value()) < 5e-9);
        CHECK(std::abs(cv.fit.profile.gemm_share - default_serving_profile.gemm_share) < 5e-5);
        CHECK(cv.groups.size() >= 5);
        // The README's serving validation table is this cross-validation (one test: each replays
        // LMDeploy's closed loops at every GEMM share the fits try).
        const std::string table = validation_table(file.runs, cv);
        const test::ReadmeBlock block = test::readme_block("serving-validation", table);
        REQUIRE(block.found);
        CHECK(block.current == table);
    }

    TEST_CASE("a fixed-batch row with a closed loop's kinds is also replayed as batch_size clients") {
        // LMDeploy's profile_generation prints the least and greatest first-token latency and per-token
        // percentiles: the row is read as a static batch (its mean TTFT, tokens/s and median per-token
        // latency) and as a closed loop of 4 clients, its scheduler left to the search.
        const io::ServingRunFile file = io::parse_serving_runs(
            R"json({"runs": [{"id": "r4", "model_shape": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128,
                "vocab": 100}, "gpu": "a100-80gb-sxm", "batching": "static (fixed batch of concurrent requests)",
                "batch_size": 4, "input_tokens": 8, "output_tokens": 16, "measurements": [
                {"kind": "output_tokens_per_s_total", "value": 100}, {"kind": "first_token_latency_s_avg", "value": 0.02},
                {"kind": "first_token_latency_s_min", "value": 0.01}, {"kind": "first_token_latency_s_max", "value": 0.03},
                {"kind": "per_token_latency_s_p50", "value": 0.005}, {"kind": "per_token_latency_s_p99", "value": 0.009},
                {"kind": "gpu_mem_gb", "value": 70}]}]})json",
            "RUNS", "f.json");
        CHECK(file.runs.size() == 3);
        for (const MeasuredServingRun& r : file.runs) CHECK(r.closed_loop);  // its batch replayed too
        CHECK(file.skipped == 1);  // the GPU memory: LMDeploy's pre-allocated cache, compared by neither
        CHECK(file.replay_only == 3);
        REQUIRE(file.inflight.size() == 1);
        const MeasuredInflightRun& loop = file.inflight.front();
        CHECK(loop.clients == 4);
        CHECK(loop.requests == 4);  // one round: the replay sends closed_loop_rounds a client
        CHECK_FALSE(loop.scheduler.has_value());
        REQUIRE(loop.measured.size() == 6);
        CHECK(loop.measured[2] == std::pair{InflightMeasure::ttft_min, 0.01});
        CHECK(loop.measured[5] == std::pair{InflightMeasure::itl_p99, 0.009});
        CHECK(test::fields_of([] {
                  return io::parse_serving_runs(
                      R"({"runs": [{"id": "r5", "model_shape": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128,
                          "vocab": 100}, "gpu": "a100-80gb-sxm", "batch_size": 100000, "input_tokens": 8,
                          "output_tokens": 16, "measurements": [{"kind": "first_token_latency_s_max", "value": 1}]}]})",
                      "RUNS", "f.json");
              }) == "r5.batch_size | 100000 | must be at most 65,536 clients for a closed loop's replay | ");
    }

    TEST_CASE("a closed loop of one client is the static batch of one: the same prefill, steps at each context") {
        // LMDeploy, Llama-2-7B on an A100, one client of 2,048 + 128 tokens: prefill-first runs the
        // prompt in a step of its own (the first token: the static batch's prefill, as prefill_time
        // prices it) and then 127 decode steps at contexts 2,049 … 2,175, whose median is the step
        // at the middle context, 2,112 = I + O/2 (memory-bound: a step's time is affine in its
        // context), the static batch's one step, to rounding of a step's context.
        const io::ServingRunFile file = fitting_set();
        const auto row = std::find_if(file.runs.begin(), file.runs.end(), [](const MeasuredServingRun& r) {
            return r.id == "lmdeploy-a100-llama2-7b-tp1-b1-2048-128";
        });
        REQUIRE(row != file.runs.end());
        REQUIRE(row->closed_loop);
        const SimulationSummary replayed = closed_loop_run(*row, default_serving_profile);
        ServingSetup setup = row->setup;
        setup.profile = default_serving_profile;
        const ServingEstimate batch =
            evaluate_serving(row->shape, row->gpu, row->link, row->layout, row->workload, setup);
        CHECK(replayed.ttft.mean == doctest::Approx(batch.ttft.value()).epsilon(1e-9));
        CHECK(replayed.itl.p50 == doctest::Approx(batch.tpot.value()).epsilon(1e-3));
        CHECK(replayed.preemptions == 0);
    }

    TEST_CASE("a closed loop the KV cache cannot hold runs as many sequences as it holds, not the whole batch") {
        // LMDeploy, Llama-2-13B on an A100 (80 GiB, 92 % usable): 26 GB of weights leave the cache
        // about 49 GiB, 0.78 MiB a token (2 · 40 layers · 5,120 · 2 B): 15 sequences of 4,096 tokens
        // (max_concurrency). 64 clients of 2,048 + 2,048 tokens: no step runs more sequences than
        // the cache holds at 2,049 tokens each (a running sequence has its prompt and a token), so
        // sequences are preempted, and the time-weighted batch is at most the cache's tokens over 2,049.
        const io::ServingRunFile file = fitting_set();
        const auto row = std::find_if(file.runs.begin(), file.runs.end(), [](const MeasuredServingRun& r) {
            return r.id == "lmdeploy-a100-llama2-13b-tp1-b64-2048-2048";
        });
        REQUIRE(row != file.runs.end());
        ServingSetup setup = row->setup;
        const ServingEstimate batch =
            evaluate_serving(row->shape, row->gpu, row->link, row->layout, row->workload, setup);
        CHECK(batch.max_concurrency == 15);
        CHECK_FALSE(batch.memory.fits());
        const SimulationSummary replayed = closed_loop_run(*row, default_serving_profile);
        const double cache_tokens =
            count(kv_cache_blocks(row->shape, row->gpu, row->layout, setup) * setup.kv_block_tokens);
        CHECK(replayed.preemptions > 0);
        CHECK(replayed.mean_batch <= cache_tokens / 2049.0);
        CHECK(replayed.mean_batch < 64.0 / 2.0);
        // A step of fewer sequences is shorter: the replay's median gap is below the static batch's step.
        CHECK(replayed.itl.p50 < batch.tpot.value());
    }

    TEST_CASE("the decode attention a model's rows leave unstated is searched: the kernel that made them is found") {
        // Llama-2-70B's TensorRT-LLM 0.9 rows (GQA: 64 query heads over 8 KV heads, so a per-query-head
        // kernel reads the cache 8 times) made under a known profile, once with each kernel: the search
        // finds the one that made them, and the fit its profile, every row then exact; the other model's
        // rows, whose kernel is stated, are not touched.
        const io::ServingRunFile file = fitting_set();
        const ServingProfile truth{KernelProfile::measured, seconds(20e-6), seconds(30e-6), 0.75};
        for (const bool grouped : {true, false}) {
            CAPTURE(grouped);
            std::vector<MeasuredServingRun> rows;
            for (const MeasuredServingRun& r : file.runs)
                if (r.id.starts_with("trt09-") && (r.model == "Llama-2-70B" || r.model == "Mistral-7B"))
                    rows.push_back(r);
            REQUIRE(rows.size() == 24);  // 2 models × 2 GPUs × (4 throughput + 2 first-token rows)
            for (MeasuredServingRun& r : rows) {
                MeasuredServingRun made = r;
                made.setup.grouped_decode_attention =
                    r.decode_attention_known ? r.setup.grouped_decode_attention : grouped;
                r.measured = predicted(made, truth);
            }
            const ServingFit fit = fit_serving_profile(rows);
            REQUIRE(fit.decode_attention.size() == 1);
            CHECK(fit.decode_attention[0].model == "Llama-2-70B");
            CHECK(fit.decode_attention[0].grouped == grouped);
            CHECK(fit.profile.gemm_share == doctest::Approx(0.75).epsilon(1e-3));
            CHECK(fit.max_abs < 1e-3);
        }
    }

    TEST_CASE("a serving-runs file with a wrong field is one error naming the row and field") {
        CHECK(test::error_of([] { return io::parse_serving_runs(R"({"runs": 3})", "RUNS", "f.json"); }) ==
              "RUNS = \"f.json\": must be an object with a \"runs\" array");
        CHECK(test::error_of([] {
                  return io::parse_serving_runs(
                      R"({"runs": [{"id": "r1", "batching": "static", "model_shape": {"layers": 0}}]})", "RUNS",
                      "f.json");
              }) == "r1.model_shape.layers = \"0\": must be a whole number from 1 to 2^40");
        CHECK(test::error_of([] {
                  return io::parse_serving_runs(
                      R"({"runs": [{"id": "r2", "model_shape": {"layers": 2, "hidden": 64, "heads": 2, "ffn": 128,
                          "vocab": 100}, "gpu": "tpu-v9", "input_tokens": 1, "output_tokens": 1}]})",
                      "RUNS", "f.json");
              }) ==
              "r2.gpu = \"tpu-v9\": is not a catalog GPU (napkin list gpus) nor an A100, H100 or H200 as printed");
    }

    TEST_CASE("decode attention per row: as stated, else per query head for TensorRT-LLM 0.9 without its XQA build") {
        // The performance doc of 0.9.0 sets TRTLLM_ENABLE_XQA=1 for Llama-70B and Falcon only (the rows' notes):
        // which kernel those two ran (XQA takes only the shapes its kernels take) is left to the fit's search.
        const io::ServingRunFile file = fitting_set();
        long long per_head = 0, unstated = 0;
        for (const MeasuredServingRun& r : file.runs) {
            CAPTURE(r.id);
            const bool xqa = r.model.find("70B") != std::string::npos || r.model.find("Falcon") != std::string::npos;
            const bool trt_0_9 = r.id.starts_with("trt09-");
            CHECK(r.setup.grouped_decode_attention == (!trt_0_9 || xqa));
            CHECK(r.decode_attention_known == !(trt_0_9 && xqa));
            per_head += r.setup.grouped_decode_attention ? 0 : 1;
            unstated += r.decode_attention_known ? 0 : 1;
        }
        // 6 models × 2 GPUs × (4 throughput + 2 first-token rows) = 72 rows of 0.9; GPT-J, Mistral, Mixtral and
        // Llama-2-7B: 48 of them, read per query head (GPT-J and Llama-2-7B have no GQA: one read either way);
        // Llama-2-70B and Falcon-180B the other 24, searched.
        CHECK(per_head == 48);
        CHECK(unstated == 24);
        const auto row = [](const std::string& extra) {
            return io::parse_serving_runs(R"({"runs": [{"id": "r3", "model_shape": {"layers": 2, "hidden": 64,
                "heads": 4, "kv_heads": 2, "ffn": 128, "vocab": 100}, "gpu": "h100-sxm", "batching": "static",
                "batch_size": 1, "input_tokens": 1, "output_tokens": 2, "measurements": [{"kind":
                "output_tokens_per_s_total", "value": 10}])" +
                                              extra + "}]}",
                                          "RUNS", "f.json");
        };
        CHECK(row("").runs.at(0).setup.grouped_decode_attention);
        CHECK(row("").runs.at(0).decode_attention_known);
        CHECK_FALSE(row(R"(, "decode_attention": "per_query_head")").runs.at(0).setup.grouped_decode_attention);
        CHECK_FALSE(row(R"(, "decode_attention": "searched")").runs.at(0).decode_attention_known);
        CHECK(test::fields_of([&] { return row(R"(, "decode_attention": "xqa")"); }) ==
              "r3.decode_attention | \"xqa\" | must be grouped, per_query_head or searched | ");
    }
}
