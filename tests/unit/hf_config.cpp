// napkin/io/hf_config.hpp: Hugging Face config.json files as shapes.
#include <napkin/catalog/models.hpp>
#include <napkin/io/hf_config.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

using namespace napkin;

namespace {
const std::string data = NAPKIN_TEST_DATA_DIR;
}

TEST_SUITE("io/hf_config") {
    TEST_CASE("Llama 3.1 70B's config.json gives the catalog's shape and 70,553,706,496 weights") {
        const io::LoadedModel loaded = io::read_hf_config(data + "/llama31_70b_config.json");
        const TransformerShape& m = loaded.shape;
        CHECK(m.layers == 80);
        CHECK(m.hidden == 8192);
        CHECK(m.ffn == 28672);
        CHECK(m.heads == 64);
        CHECK(m.kv_heads == 8);
        CHECK(parameter_count(m) == parameter_count(catalog::llama3_1_70b));
        CHECK(m.name == "llama31_70b_config");  // not a folder's config.json: named after the file
    }

    TEST_CASE("Mixtral 8x7B from a model folder's config.json: named after the folder, 46,702,792,704 weights") {
        // Per layer: attention 2·4096² + 2·4096·1,024 = 41,943,040; 8 experts × 3 × 4096 × 14,336 =
        // 1,409,286,144; router 4096 × 8 = 32,768; two RMSNorms 8,192: 1,451,270,144 × 32 layers
        // + untied embedding and output 2 × 32,000 × 4096 + final norm 4096 = 46,702,792,704 (the
        // published count). Active, 2 experts: (41,943,040 + 2 × 176,160,768 + 32,768 + 8,192) × 32
        // + 262,148,096 = 12,879,925,248.
        const std::filesystem::path folder = std::filesystem::temp_directory_path() / "napkin-test-Mixtral-8x7B";
        std::filesystem::create_directories(folder);
        std::filesystem::copy_file(data + "/mixtral_8x7b_config.json", folder / "config.json",
                                   std::filesystem::copy_options::overwrite_existing);
        const io::LoadedModel loaded = io::read_hf_config(folder / "config.json");
        std::filesystem::remove_all(folder);
        CHECK(loaded.shape.name == "napkin-test-Mixtral-8x7B");
        CHECK(loaded.shape.experts == 8);
        CHECK(loaded.shape.experts_per_token == 2);
        CHECK(parameter_count(loaded.shape) == 46'702'792'704);
        CHECK(active_parameter_count(loaded.shape) == 12'879'925'248);
    }

    TEST_CASE("GPT-2's config.json (n_embd, n_layer, n_head) gives 124,439,808 weights") {
        const io::LoadedModel loaded = io::read_hf_config(data + "/gpt2_config.json");
        CHECK(loaded.shape.feed_forward == FeedForward::plain);
        CHECK(loaded.shape.tied_embeddings);
        CHECK(parameter_count(loaded.shape) == 124'439'808);
    }

    TEST_CASE("a config without num_key_value_heads has one KV head per head (no GQA)") {
        const auto loaded = io::parse_hf_config(
            R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                "intermediate_size": 11008, "vocab_size": 32000})",
            "llama2-7b");
        CHECK(loaded.shape.kv_heads == 32);
        CHECK(parameter_count(loaded.shape) == 6'738'415'616);  // Llama 2 7B: published 6.74B
    }

    TEST_CASE("Mixtral's experts are read") {
        const auto loaded = io::parse_hf_config(
            R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8, "num_experts_per_tok": 2})",
            "mixtral");
        CHECK(loaded.shape.experts == 8);
        CHECK(parameter_count(loaded.shape) == 46'702'792'704);
    }

    TEST_CASE("errors name the field and the file") {
        CHECK_THROWS_WITH_AS((void)io::read_hf_config(data + "/missing_field_config.json"),
                             (data + "/missing_field_config.json: field \"intermediate_size\" is missing (a required field)").c_str(),
                             napkin::invalid_argument);
        CHECK_THROWS_WITH((void)io::read_hf_config(data + "/malformed_config.json"),
                          doctest::Contains("malformed_config.json: not valid JSON"));
        CHECK_THROWS_WITH((void)io::read_hf_config(data + "/no_such_file.json"),
                          doctest::Contains("cannot be opened"));
        CHECK_THROWS_WITH((void)io::parse_hf_config(R"({"hidden_size": -4096})", "x.json"),
                          "x.json: field \"hidden_size\" must be a positive whole number, not -4096");
        CHECK_THROWS_WITH((void)io::parse_hf_config(
                              R"({"hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32,
                                  "num_key_value_heads": 5, "intermediate_size": 1, "vocab_size": 1})",
                              "x.json"),
                          "x.json: field \"num_key_value_heads\" must divide num_attention_heads (32), not 5");
        CHECK_THROWS_WITH((void)io::parse_hf_config(R"({"n_routed_experts": 256})", "deepseek.json"),
                          doctest::Contains("deepseek.json: field \"n_routed_experts\""));
        CHECK_THROWS_WITH((void)io::parse_hf_config("[1, 2]", "list.json"), "list.json: not a JSON object");
    }
}
