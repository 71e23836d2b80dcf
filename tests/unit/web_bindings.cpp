// The lesson pages' binding layer (examples/web/bindings.cpp), compiled
// natively: its JSON replies carry the library's numbers and its errors name
// the argument. The browser tests (tests/web) check the same functions in
// WebAssembly against the napkin command.
#include "../../examples/web/bindings.cpp"  // NOLINT(bugprone-suspicious-include): the bindings are a .cpp for emcc

#include <doctest/doctest.h>

namespace {
nlohmann::json call(const char* reply) { return nlohmann::json::parse(reply); }
}  // namespace

TEST_SUITE("web bindings") {
    TEST_CASE("split: 70B on 4 GPUs, fast link, is the lesson's 37,508,222,976 bytes and 18.94 ms") {
        const auto row = call(napkin_web_split("llama3.1-70b", "a100-80gb-sxm", "nvlink-a100", 4, "tensor", 1));
        // Lesson, by hand: 35,276,853,248 + 671,088,640 + 1,560,281,088 bytes.
        CHECK(row["memory"]["total"].get<double>() == 37508222976.0);
        CHECK(row["fits"].get<bool>());
        // Lesson: 17.30 ms of reading + 160 all-reduces of 10.24 µs = 18.94 ms, 8.7% waiting.
        CHECK(row["total_s"].get<double>() * 1e3 == doctest::Approx(18.94).epsilon(0.0005));
        // 1.6384 ms / 18.94 ms = 8.65 %, printed 8.7 %.
        CHECK(row["waiting_share"].get<double>() > 0.0865);
        CHECK(row["waiting_share"].get<double>() < 0.0866);
    }

    TEST_CASE("split: 405B on 1 GPU does not fit (it needs 11, lesson)") {
        CHECK_FALSE(call(napkin_web_split("llama3.1-405b", "a100-80gb-sxm", "nvlink-a100", 1, "tensor", 1))["fits"]
                        .get<bool>());
        CHECK(call(napkin_web_split("llama3.1-405b", "a100-80gb-sxm", "nvlink-a100", 11, "tensor", 1))["fits"]
                  .get<bool>());
    }

    TEST_CASE("split: bad input comes back as an error naming the argument") {
        CHECK(call(napkin_web_split("llama3.1-70b", "a100-80gb-sxm", "nvlink-a100", 0, "tensor", 1))["error"] ==
              "gpus = 0: must be at least 1");
        CHECK(call(napkin_web_split("llama3.1-70b", "a100-80gb-sxm", "nvlink-a100", 4, "diagonal", 1))["error"] ==
              "split = \"diagonal\": must be tensor or pipeline");
        CHECK(call(napkin_web_split("gpt-9", "a100-80gb-sxm", "nvlink-a100", 4, "tensor", 1))["error"] ==
              "model = \"gpt-9\": not a catalog model");
    }

    TEST_CASE("split: a library error names the page's input that set the value (tokens_in_flight is tokens)") {
        const auto reply = call(napkin_web_split("llama3.1-70b", "a100-80gb-sxm", "nvlink-a100", 4, "tensor", 0));
        CHECK(reply["error"] == "tokens_in_flight = 0: must be at least 1");
        CHECK(reply["field"] == "tokens_in_flight");
        CHECK(reply["input"] == "tokens");
    }

    TEST_CASE("load_config: a pasted Llama 3.1 8B config.json becomes model \"custom\"") {
        const auto missing = call(napkin_web_load_config(R"({"hidden_size": 4096, "num_hidden_layers": 32})"));
        CHECK(missing["error"].get<std::string>().find("num_attention_heads") != std::string::npos);
        const auto shape = call(napkin_web_load_config(R"({"hidden_size": 4096, "intermediate_size": 14336,
            "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256})"));
        // Lesson: each of 2 GPUs reads 8,030,261,248 bytes, so 8,030,261,248 weights at 2 bytes each.
        CHECK(shape["parameters"].get<long long>() == 8030261248LL);
        const auto row = call(napkin_web_split("custom", "a100-80gb-sxm", "nvlink-a100", 2, "tensor", 1));
        CHECK(row["total_s"].get<double>() * 1e3 == doctest::Approx(4.44).epsilon(0.001));  // lesson's table
    }

    TEST_CASE("allreduce: 70B FP32 gradients on 64 GPUs over IB NDR take about 11 s (the lab)") {
        // By hand: 2·63/64 × 280e9 B / 50e9 B/s = 11.025 s, plus 2·63 × 5 µs = 630 µs.
        const auto ring = call(napkin_web_allreduce(
            R"({"algorithm": "ring", "bytes": 280e9, "gpus": 64, "bandwidth_gbps": 50, "latency_us": 5})"));
        CHECK(ring["bandwidth_s"].get<double>() == doctest::Approx(11.025).epsilon(1e-12).scale(0));
        CHECK(ring["latency_s"].get<double>() == doctest::Approx(630e-6).epsilon(1e-12).scale(0));
        // Tree on 256 GPUs: 2·8 levels × (5 µs + 1 MiB / 50 GB/s).
        const auto tree = call(napkin_web_allreduce(
            R"({"algorithm": "tree", "bytes": 1048576, "gpus": 256, "bandwidth_gbps": 50, "latency_us": 5})"));
        CHECK(tree["time_s"].get<double>() == doctest::Approx(16 * (5e-6 + 1048576 / 50e9)).epsilon(1e-12).scale(0));
    }

    TEST_CASE("allreduce: hierarchical, 140 GB on 8 nodes of 8, by hand") {
        const auto h = call(napkin_web_allreduce(R"({"algorithm": "hierarchical", "bytes": 140e9, "gpus": 64,
            "gpus_per_node": 8, "intra_bandwidth_gbps": 900, "intra_latency_us": 0.6,
            "bandwidth_gbps": 50, "latency_us": 5})"));
        // Reduce-scatter + all-gather inside: 2 × 7/8 × 140e9 / 900e9; ring of 17.5e9 B over 8 nodes: 2·7/8 × 17.5e9 / 50e9.
        CHECK(h["bandwidth_s"].get<double>() ==
              doctest::Approx(2 * 7.0 / 8 * 140e9 / 900e9 + 2 * 7.0 / 8 * 17.5e9 / 50e9).epsilon(1e-12).scale(0));
        // 2·7 steps × 0.6 µs inside, 2·7 × 5 µs across.
        CHECK(h["latency_s"].get<double>() == doctest::Approx(14 * 0.6e-6 + 14 * 5e-6).epsilon(1e-12).scale(0));
        CHECK(h["nodes"].get<long long>() == 8);
        const auto bad = call(napkin_web_allreduce(R"({"algorithm": "hierarchical", "bytes": 1, "gpus": 64,
            "gpus_per_node": 6, "intra_bandwidth_gbps": 900, "intra_latency_us": 0.6,
            "bandwidth_gbps": 50, "latency_us": 5})"));
        CHECK(bad["error"] == "gpus_per_node = 6: must divide gpus = 64");
        CHECK(call(napkin_web_allreduce(R"({"algorithm": "ring", "bytes": 1, "gpus": 8, "bandwidth_gbps": 0,
            "latency_us": 5})"))["error"] == "bandwidth_gbps = 0: must be positive");
        CHECK(call(napkin_web_allreduce(R"({"algorithm": "butterfly", "bytes": 1, "gpus": 8})"))["error"] ==
              "algorithm = \"butterfly\": must be ring, tree or hierarchical");
    }

    TEST_CASE("crossover: 256 GPUs on IB NDR, α·B·(n−1−L)/(L − (n−1)/n)") {
        // 5 µs × 50 GB/s × (255 − 8) / (8 − 255/256) = 8,816,508.6 bytes.
        const auto c = call(napkin_web_crossover(R"({"gpus": 256, "bandwidth_gbps": 50, "latency_us": 5})"));
        CHECK(c["bytes"].get<double>() ==
              doctest::Approx(5e-6 * 50e9 * 247.0 / (8.0 - 255.0 / 256.0)).epsilon(1e-12).scale(0));
        // Two ranks: the ring's 2 steps equal the tree's 2 levels, so no crossover.
        CHECK(call(napkin_web_crossover(R"({"gpus": 2, "bandwidth_gbps": 50, "latency_us": 5})"))["bytes"].is_null());
    }

    TEST_CASE("catalog: the pages' models and links are there") {
        const auto c = call(napkin_web_catalog());
        CHECK(c["models"].size() >= 3);
        CHECK(c["links"][0]["name"] == "nvlink-a100");
        CHECK(call(napkin_web_catalog())["gpus"][0]["usable"].get<double>() ==
              doctest::Approx(0.92 * 80 * 1073741824.0).epsilon(1e-9));
    }
}
