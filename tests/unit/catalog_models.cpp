// SPDX-License-Identifier: MIT
// catalog/models.hpp's models from their published config.json: each file in
// tests/data gives the catalog's shape, and the weights add up to the total the
// model card (or the Hugging Face hub page, from the safetensors) prints.
#include <napkin/catalog/models.hpp>
#include <napkin/io/hf_config.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using namespace napkin;

namespace {

const std::string data = NAPKIN_TEST_DATA_DIR;

// The count in billions agrees with the printed figure to its last digit:
// within one unit of it (a card may truncate: 1,235,814,400 is printed 1.23B).
bool agrees(long long weights, double printed_billions, double last_digit) {
    return std::abs(static_cast<double>(weights) / 1e9 - printed_billions) < last_digit;
}

void check_config(const char* file, const TransformerShape& entry) {
    CAPTURE(file);
    const io::LoadedModel loaded = io::read_hf_config(data + "/" + file);
    const TransformerShape& m = loaded.shape;
    CHECK(m.layers == entry.layers);
    CHECK(m.hidden == entry.hidden);
    CHECK(m.ffn == entry.ffn);
    CHECK(m.heads == entry.heads);
    CHECK(m.kv_heads == entry.kv_heads);
    CHECK(head_dim(m) == head_dim(entry));
    CHECK(m.vocabulary == entry.vocabulary);
    CHECK(m.tied_embeddings == entry.tied_embeddings);
    CHECK(m.experts == entry.experts);
    CHECK(parameter_count(m) == parameter_count(entry));
}

}  // namespace

TEST_SUITE("catalog/models") {
    // L·(attention + 3·h·ffn + 2h) + V·h·(1 tied | 2) + h, attention = 2·h·H·d + 2·h·KV·d.
    TEST_CASE("Llama 3.2 1B: 16 × 60,821,504 + 128,256 × 2,048 (tied) + 2,048 = 1,235,814,400; card 1.23B") {
        check_config("llama32_1b_config.json", catalog::llama3_2_1b);
        CHECK(parameter_count(catalog::llama3_2_1b) == 1'235'814'400);
        CHECK(agrees(parameter_count(catalog::llama3_2_1b), 1.23, 0.01));
    }
    TEST_CASE("Llama 3.2 3B: 28 × 100,669,440 + 128,256 × 3,072 (tied) + 3,072 = 3,212,749,824; card 3.21B") {
        check_config("llama32_3b_config.json", catalog::llama3_2_3b);
        CHECK(parameter_count(catalog::llama3_2_3b) == 3'212'749'824);
        CHECK(agrees(parameter_count(catalog::llama3_2_3b), 3.21, 0.01));
    }
    TEST_CASE("Llama 3.3 70B has Llama 3.1 70B's 70,553,706,496 weights; hub 70.6B") {
        check_config("llama33_70b_config.json", catalog::llama3_3_70b);
        CHECK(parameter_count(catalog::llama3_3_70b) == parameter_count(catalog::llama3_1_70b));
        CHECK(agrees(parameter_count(catalog::llama3_3_70b), 70.6, 0.1));
    }
    TEST_CASE("Mistral 7B: 32 × 218,112,000 + 2 × 32,000 × 4,096 + 4,096 = 7,241,732,096; hub 7.24B") {
        check_config("mistral_7b_config.json", catalog::mistral_7b);
        CHECK(parameter_count(catalog::mistral_7b) == 7'241'732'096);
        CHECK(agrees(parameter_count(catalog::mistral_7b), 7.24, 0.01));
    }
    TEST_CASE("Mixtral 8x7B: the published 46,702,792,704 weights, 12,879,921,152 active (2 of 8 experts)") {
        check_config("mixtral_8x7b_config.json", catalog::mixtral_8x7b);
        CHECK(parameter_count(catalog::mixtral_8x7b) == 46'702'792'704);
        // Inactive: 32 layers × 6 experts × 3 × 4,096 × 14,336 = 33,822,867,456.
        CHECK(active_parameter_count(catalog::mixtral_8x7b) == 46'702'792'704 - 33'822'867'456);
    }
    TEST_CASE(
        "Mixtral 8x22B: 56 × (88,080,384 attention + 8 × 301,989,888 experts + 49,152 router + 12,288) "
        "+ 2 × 32,000 × 6,144 + 6,144 = 140,620,634,112; hub 141B") {
        check_config("mixtral_8x22b_config.json", catalog::mixtral_8x22b);
        CHECK(parameter_count(catalog::mixtral_8x22b) == 140'620'634'112);
        CHECK(agrees(parameter_count(catalog::mixtral_8x22b), 141, 1));
    }
    // Qwen2.5 (model_type qwen2): attention 2·h·H·d + 2·h·KV·d plus the Q, K and V biases H·d + 2·KV·d.
    // 0.5B: 2·896·(896 + 128) + 1,152 = 1,836,160; layer + 3·896·4,864 + 2·896 = 14,912,384;
    // 24 layers 357,897,216 (+ final norm 896: the card's 0.36B without embeddings); + 151,936 × 896 (tied).
    TEST_CASE("Qwen2.5 0.5B: 24 × 14,912,384 + 151,936 × 896 (tied) + 896 = 494,032,768; card 0.49B") {
        check_config("qwen2_5_0_5b_config.json", catalog::qwen2_5_0_5b);
        const long long all = parameter_count(catalog::qwen2_5_0_5b);
        CHECK(all == 494'032'768);
        CHECK(agrees(all, 0.49, 0.01));
        CHECK(agrees(all - embedding_weights(catalog::qwen2_5_0_5b), 0.36, 0.01));
    }
    // 7B: 2·3,584·(3,584 + 512) + 4,608 = 29,364,736; + 3·3,584·18,944 + 7,168 = 233,057,792 a layer.
    TEST_CASE("Qwen2.5 7B: 28 × 233,057,792 + 2 × 152,064 × 3,584 + 3,584 = 7,615,616,512; card 7.61B (6.53B)") {
        check_config("qwen2_5_7b_config.json", catalog::qwen2_5_7b);
        const long long all = parameter_count(catalog::qwen2_5_7b);
        CHECK(all == 7'615'616'512);
        CHECK(agrees(all, 7.61, 0.01));
        CHECK(agrees(all - embedding_weights(catalog::qwen2_5_7b), 6.53, 0.01));
        // Without the biases the count falls by 28 × 4,608 = 129,024: the flag is what the test sees.
        TransformerShape no_bias = catalog::qwen2_5_7b;
        no_bias.qkv_bias = false;
        CHECK(all - parameter_count(no_bias) == 129'024);
    }
    // 72B: 2·8,192·(8,192 + 1,024) + 10,240 = 151,005,184; + 3·8,192·29,568 + 16,384 = 877,684,736 a layer.
    TEST_CASE("Qwen2.5 72B: 80 × 877,684,736 + 2 × 152,064 × 8,192 + 8,192 = 72,706,203,648; card 72.7B") {
        check_config("qwen2_5_72b_config.json", catalog::qwen2_5_72b);
        const long long all = parameter_count(catalog::qwen2_5_72b);
        CHECK(all == 72'706'203'648);
        CHECK(agrees(all, 72.7, 0.1));
    }
    // Qwen3 (model_type qwen3): no biases; the Q and K RMSNorms add 2 × 128 weights a layer:
    // 8B 36 × 256 = 9,216 more than 8,190,726,144 without them; 32B 64 × 256 = 16,384 more than 32,762,106,880.
    // "Without embeddings" keeps the final norm: 36 × 192,946,432 + 4,096 and 64 × 487,598,336 + 5,120.
    TEST_CASE("Qwen3 8B: 8,190,735,360 (card 8.2B), 6,946,075,648 without embeddings (card 6.95B)") {
        check_config("qwen3_8b_config.json", catalog::qwen3_8b);
        const long long all = parameter_count(catalog::qwen3_8b);
        CHECK(all == 8'190'735'360);
        CHECK(agrees(all, 8.2, 0.1));
        CHECK(all - embedding_weights(catalog::qwen3_8b) == 6'946'075'648);
        CHECK(agrees(all - embedding_weights(catalog::qwen3_8b), 6.95, 0.01));
        TransformerShape no_norm = catalog::qwen3_8b;
        no_norm.qk_norm = false;
        CHECK(all - parameter_count(no_norm) == 9'216);
    }
    TEST_CASE("Qwen3 32B: 32,762,123,264 (card 32.8B), 31,206,298,624 without embeddings (card 31.2B)") {
        check_config("qwen3_32b_config.json", catalog::qwen3_32b);
        const long long all = parameter_count(catalog::qwen3_32b);
        CHECK(all == 32'762'123'264);
        CHECK(agrees(all, 32.8, 0.1));
        CHECK(all - embedding_weights(catalog::qwen3_32b) == 31'206'298'624);
        CHECK(agrees(all - embedding_weights(catalog::qwen3_32b), 31.2, 0.1));
    }
    TEST_CASE("Phi-3-mini: 32 × 113,252,352 + 2 × 32,064 × 3,072 + 3,072 = 3,821,079,552; hub 3.82B") {
        check_config("phi3_mini_4k_config.json", catalog::phi3_mini);
        CHECK(parameter_count(catalog::phi3_mini) == 3'821'079'552);
        CHECK(agrees(parameter_count(catalog::phi3_mini), 3.82, 0.01));
    }
    TEST_CASE("Phi-4: 40 × 340,797,440 + 2 × 100,352 × 5,120 + 5,120 = 14,659,507,200; hub 14.7B") {
        check_config("phi4_config.json", catalog::phi4);
        CHECK(parameter_count(catalog::phi4) == 14'659'507'200);
        CHECK(agrees(parameter_count(catalog::phi4), 14.7, 0.1));
    }
    TEST_CASE("every catalog name is unique and found by find_model") {
        for (const auto* m : catalog::models) {
            CAPTURE(m->name);
            CHECK(catalog::find_model(m->name)->name == m->name);
        }
    }
}
