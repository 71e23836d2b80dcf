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
    CHECK(m.experts_per_token == entry.experts_per_token);
    CHECK(m.expert_ffn == entry.expert_ffn);
    CHECK(m.qk_norm == entry.qk_norm);
    CHECK(m.norms_per_layer == entry.norms_per_layer);
    CHECK(m.sliding_window == entry.sliding_window);
    CHECK(m.global_every == entry.global_every);
    CHECK(m.vision_weights == entry.vision_weights);
    CHECK(m.shared_experts == entry.shared_experts);
    CHECK(m.shared_expert_ffn == entry.shared_expert_ffn);
    CHECK(m.dense_layers == entry.dense_layers);
    CHECK(m.moe_every == entry.moe_every);
    CHECK(m.qkv_bias == entry.qkv_bias);
    CHECK(m.kv_lora_rank == entry.kv_lora_rank);
    CHECK(m.q_lora_rank == entry.q_lora_rank);
    // Older entries leave max_position_embeddings 0 (nothing checked against it).
    if (entry.max_position_embeddings > 0) CHECK(m.max_position_embeddings == entry.max_position_embeddings);
    CHECK(parameter_count(m) == parameter_count(entry));
    CHECK(active_parameter_count(m) == active_parameter_count(entry));
}

}  // namespace

TEST_SUITE("catalog/models") {
    // L·(attention + 3·h·ffn + 2h) + V·h·(1 tied | 2) + h, attention = 2·h·H·d + 2·h·KV·d.
    TEST_CASE("Llama 3.2 1B: 16 × 60,821,504 + 128,256 × 2,048 (tied) + 2,048 = 1,235,814,400 — card 1.23B") {
        check_config("llama32_1b_config.json", catalog::llama3_2_1b);
        CHECK(parameter_count(catalog::llama3_2_1b) == 1'235'814'400);
        CHECK(agrees(parameter_count(catalog::llama3_2_1b), 1.23, 0.01));
    }
    TEST_CASE("Llama 3.2 3B: 28 × 100,669,440 + 128,256 × 3,072 (tied) + 3,072 = 3,212,749,824 — card 3.21B") {
        check_config("llama32_3b_config.json", catalog::llama3_2_3b);
        CHECK(parameter_count(catalog::llama3_2_3b) == 3'212'749'824);
        CHECK(agrees(parameter_count(catalog::llama3_2_3b), 3.21, 0.01));
    }
    TEST_CASE("Llama 3.3 70B has Llama 3.1 70B's 70,553,706,496 weights — hub 70.6B") {
        check_config("llama33_70b_config.json", catalog::llama3_3_70b);
        CHECK(parameter_count(catalog::llama3_3_70b) == parameter_count(catalog::llama3_1_70b));
        CHECK(agrees(parameter_count(catalog::llama3_3_70b), 70.6, 0.1));
    }
    TEST_CASE("Mistral 7B: 32 × 218,112,000 + 2 × 32,000 × 4,096 + 4,096 = 7,241,732,096 — hub 7.24B") {
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
        "+ 2 × 32,000 × 6,144 + 6,144 = 140,620,634,112 — hub 141B") {
        check_config("mixtral_8x22b_config.json", catalog::mixtral_8x22b);
        CHECK(parameter_count(catalog::mixtral_8x22b) == 140'620'634'112);
        CHECK(agrees(parameter_count(catalog::mixtral_8x22b), 141, 1));
    }
    // Qwen2.5 (model_type qwen2): attention 2·h·H·d + 2·h·KV·d plus the Q, K and V biases H·d + 2·KV·d.
    // 0.5B: 2·896·(896 + 128) + 1,152 = 1,836,160; layer + 3·896·4,864 + 2·896 = 14,912,384;
    // 24 layers 357,897,216 (+ final norm 896: the card's 0.36B without embeddings); + 151,936 × 896 (tied).
    TEST_CASE("Qwen2.5 0.5B: 24 × 14,912,384 + 151,936 × 896 (tied) + 896 = 494,032,768 — card 0.49B") {
        check_config("qwen2_5_0_5b_config.json", catalog::qwen2_5_0_5b);
        const long long all = parameter_count(catalog::qwen2_5_0_5b);
        CHECK(all == 494'032'768);
        CHECK(agrees(all, 0.49, 0.01));
        CHECK(agrees(all - embedding_weights(catalog::qwen2_5_0_5b), 0.36, 0.01));
    }
    // 7B: 2·3,584·(3,584 + 512) + 4,608 = 29,364,736; + 3·3,584·18,944 + 7,168 = 233,057,792 a layer.
    TEST_CASE("Qwen2.5 7B: 28 × 233,057,792 + 2 × 152,064 × 3,584 + 3,584 = 7,615,616,512 — card 7.61B (6.53B)") {
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
    TEST_CASE("Qwen2.5 72B: 80 × 877,684,736 + 2 × 152,064 × 8,192 + 8,192 = 72,706,203,648 — card 72.7B") {
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
    TEST_CASE("Phi-3-mini: 32 × 113,252,352 + 2 × 32,064 × 3,072 + 3,072 = 3,821,079,552 — hub 3.82B") {
        check_config("phi3_mini_4k_config.json", catalog::phi3_mini);
        CHECK(parameter_count(catalog::phi3_mini) == 3'821'079'552);
        CHECK(agrees(parameter_count(catalog::phi3_mini), 3.82, 0.01));
    }
    TEST_CASE("Phi-4: 40 × 340,797,440 + 2 × 100,352 × 5,120 + 5,120 = 14,659,507,200 — hub 14.7B") {
        check_config("phi4_config.json", catalog::phi4);
        CHECK(parameter_count(catalog::phi4) == 14'659'507'200);
        CHECK(agrees(parameter_count(catalog::phi4), 14.7, 0.1));
    }
    // The mixtures from their config.json (tests/unit/hf_config.cpp derives the first two by hand).
    TEST_CASE("DeepSeek-V3: 671,026,404,352 weights (card 671B), 37,552,282,624 active (card 37B)") {
        check_config("deepseek_v3_config.json", catalog::deepseek_v3);
        CHECK(parameter_count(catalog::deepseek_v3) == 671'026'404'352);
        CHECK(active_parameter_count(catalog::deepseek_v3) == 37'552'282'624);
        CHECK(agrees(parameter_count(catalog::deepseek_v3), 671, 1));
        CHECK(agrees(active_parameter_count(catalog::deepseek_v3), 37, 1));
    }
    TEST_CASE("Qwen3-30B-A3B: 30,532,122,624 weights (card 30.5B), 3,353,032,704 active (card 3.3B)") {
        check_config("qwen3_30b_a3b_config.json", catalog::qwen3_30b_a3b);
        CHECK(parameter_count(catalog::qwen3_30b_a3b) == 30'532'122'624);
        CHECK(active_parameter_count(catalog::qwen3_30b_a3b) == 3'353'032'704);
        CHECK(agrees(parameter_count(catalog::qwen3_30b_a3b), 30.5, 0.1));
        CHECK(agrees(active_parameter_count(catalog::qwen3_30b_a3b), 3.3, 0.1));
    }
    // Qwen3-235B-A22B by hand: attention 2·4,096·8,192 + 2·4,096·512 + Q/K norms 2·128 = 71,303,424;
    // an expert 3·4,096·1,536 = 18,874,368, 128 of them 2,415,919,104; router 4,096·128 = 524,288;
    // norms 2·4,096: a layer 2,487,755,008; × 94 = 233,848,970,752; + 2·151,936·4,096 = 1,244,659,712
    // + final norm 4,096 = 235,093,634,560. Active: 120 experts a layer fewer, 94·120·18,874,368 =
    // 212,902,871,040 less: 22,190,763,520.
    TEST_CASE(
        "Qwen3-235B-A22B: 94 × 2,487,755,008 + 1,244,659,712 + 4,096 = 235,093,634,560 (card 235B), "
        "22,190,763,520 active (card 22B)") {
        check_config("qwen3_235b_a22b_config.json", catalog::qwen3_235b_a22b);
        CHECK(layer_weights(catalog::qwen3_235b_a22b) == 2'487'755'008);
        CHECK(parameter_count(catalog::qwen3_235b_a22b) == 235'093'634'560);
        CHECK(active_parameter_count(catalog::qwen3_235b_a22b) == 22'190'763'520);
        CHECK(agrees(parameter_count(catalog::qwen3_235b_a22b), 235, 1));
        CHECK(agrees(active_parameter_count(catalog::qwen3_235b_a22b), 22, 1));
    }

    // Gemma 2 (model_type gemma2): attention 2·h·H·d + 2·h·KV·d with d = head_dim (not h / H), GeGLU
    // 3·h·ffn, four RMSNorms 4·h a layer; tied embeddings V·h, final norm h.
    // 2B: 2·2,304·2,048 + 2·2,304·1,024 = 14,155,776; + 3·2,304·9,216 = 63,700,992; + 9,216: 77,865,984.
    TEST_CASE("Gemma 2 2B: 26 × 77,865,984 + 256,000 × 2,304 + 2,304 = 2,614,341,888 — hub 2.61B") {
        check_config("gemma2_2b_config.json", catalog::gemma2_2b);
        CHECK(layer_weights(catalog::gemma2_2b) == 77'865'984);
        CHECK(parameter_count(catalog::gemma2_2b) == 2'614'341'888);
        CHECK(agrees(parameter_count(catalog::gemma2_2b), 2.61, 0.01));
    }
    // 9B: head_dim 256 while 3,584 / 16 = 224. Attention 2·3,584·4,096 + 2·3,584·2,048 = 44,040,192;
    // GeGLU 3·3,584·14,336 = 154,140,672; norms 4·3,584 = 14,336: 198,195,200 a layer; × 42 = 8,324,198,400;
    // + 256,000·3,584 = 917,504,000 + 3,584. With two norms a layer (Llama's count) it would be 42·7,168 fewer.
    TEST_CASE("Gemma 2 9B: 42 × 198,195,200 + 256,000 × 3,584 + 3,584 = 9,241,705,984 — hub 9.24B") {
        check_config("gemma2_9b_config.json", catalog::gemma2_9b);
        CHECK(head_dim(catalog::gemma2_9b) == 256);
        CHECK(layer_weights(catalog::gemma2_9b) == 198'195'200);
        CHECK(parameter_count(catalog::gemma2_9b) == 9'241'705'984);
        CHECK(agrees(parameter_count(catalog::gemma2_9b), 9.24, 0.01));
        TransformerShape two_norms = catalog::gemma2_9b;
        two_norms.norms_per_layer = 2;
        CHECK(parameter_count(catalog::gemma2_9b) - parameter_count(two_norms) == 42 * 7'168);
        // Alternating local and global layers: 21 of each.
        CHECK(global_attention_layers(catalog::gemma2_9b) == 21);
        CHECK(local_attention_layers(catalog::gemma2_9b) == 21);
    }
    // 27B: attention 2·4,608·4,096 + 2·4,608·2,048 = 56,623,104; GeGLU 3·4,608·36,864 = 509,607,936;
    // norms 18,432: 566,249,472 a layer.
    TEST_CASE("Gemma 2 27B: 46 × 566,249,472 + 256,000 × 4,608 + 4,608 = 27,227,128,320 — hub 27.2B") {
        check_config("gemma2_27b_config.json", catalog::gemma2_27b);
        CHECK(layer_weights(catalog::gemma2_27b) == 566'249'472);
        CHECK(parameter_count(catalog::gemma2_27b) == 27'227'128'320);
        CHECK(agrees(parameter_count(catalog::gemma2_27b), 27.2, 0.1));
    }

    // Gemma 3 (model_type gemma3_text; gemma3 with text_config and vision_config): Gemma 2's layer plus
    // the Q and K norms 2·head_dim. 1B: attention 2·1,152·1,024 + 2·1,152·256 + 512 = 2,949,632;
    // GeGLU 3·1,152·6,912 = 23,887,872; norms 4,608: 26,842,112 a layer.
    TEST_CASE("Gemma 3 1B: 26 × 26,842,112 + 262,144 × 1,152 + 1,152 = 999,885,952 — hub 1,000M") {
        check_config("gemma3_1b_config.json", catalog::gemma3_1b);
        CHECK(layer_weights(catalog::gemma3_1b) == 26'842'112);
        CHECK(parameter_count(catalog::gemma3_1b) == 999'885'952);
        CHECK(agrees(parameter_count(catalog::gemma3_1b), 1.0, 0.001));
        // 5 local to 1 global: layers 6, 12, 18, 24 global, the other 22 local (window 512).
        CHECK(global_attention_layers(catalog::gemma3_1b) == 4);
        CHECK(local_attention_layers(catalog::gemma3_1b) == 22);
    }
    // The SigLIP tower (tests/unit/model.cpp): 416,866,032; projection into width h: 1,152 + 1,152·h.
    // 4B text: attention 2·2,560·2,048 + 2·2,560·1,024 + 512 = 15,729,152; GeGLU 3·2,560·10,240 = 78,643,200;
    // norms 10,240: 94,382,592 a layer; × 34 = 3,209,008,128; + 262,208·2,560 = 671,252,480 + 2,560
    // = 3,880,263,168; vision 416,866,032 + 1,152 + 2,949,120 = 419,816,304.
    TEST_CASE("Gemma 3 4B: 3,880,263,168 text + 419,816,304 vision = 4,300,079,472 — hub 4.3B") {
        check_config("gemma3_4b_config.json", catalog::gemma3_4b);
        CHECK(catalog::gemma3_4b.vision_weights == 419'816'304);
        CHECK(parameter_count(catalog::gemma3_4b) == 4'300'079'472);
        CHECK(agrees(parameter_count(catalog::gemma3_4b), 4.3, 0.1));
        // A text token passes through the language model only.
        CHECK(active_parameter_count(catalog::gemma3_4b) == 3'880'263'168);
        CHECK(global_attention_layers(catalog::gemma3_4b) == 5);
    }
    // 12B: attention 2·3,840·4,096 + 2·3,840·2,048 + 512 = 47,186,432; GeGLU 3·3,840·15,360 = 176,947,200;
    // norms 15,360: 224,148,992 a layer; × 48 + 262,208·3,840 + 3,840 = 11,766,034,176;
    // vision 416,866,032 + 1,152 + 1,152·3,840 = 421,290,864.
    TEST_CASE("Gemma 3 12B: 11,766,034,176 text + 421,290,864 vision = 12,187,325,040 — hub 12.2B") {
        check_config("gemma3_12b_config.json", catalog::gemma3_12b);
        CHECK(layer_weights(catalog::gemma3_12b) == 224'148'992);
        CHECK(parameter_count(catalog::gemma3_12b) == 12'187'325'040);
        CHECK(agrees(parameter_count(catalog::gemma3_12b), 12.2, 0.1));
    }
    // 27B: head_dim 128. Attention 2·5,376·4,096 + 2·5,376·2,048 + 256 = 66,060,544; GeGLU 3·5,376·21,504
    // = 346,816,512; norms 21,504: 412,898,560 a layer; × 62 + 262,208·5,376 + 5,376 = 27,009,346,304;
    // vision 416,866,032 + 1,152 + 1,152·5,376 = 423,060,336.
    TEST_CASE("Gemma 3 27B: 27,009,346,304 text + 423,060,336 vision = 27,432,406,640 — hub 27.4B") {
        check_config("gemma3_27b_config.json", catalog::gemma3_27b);
        CHECK(layer_weights(catalog::gemma3_27b) == 412'898'560);
        CHECK(parameter_count(catalog::gemma3_27b) == 27'432'406'640);
        CHECK(agrees(parameter_count(catalog::gemma3_27b), 27.4, 0.1));
        // Layers 6, 12, …, 60 global: 10; 52 local.
        CHECK(global_attention_layers(catalog::gemma3_27b) == 10);
        CHECK(local_attention_layers(catalog::gemma3_27b) == 52);
    }
    // The 2026 models. Latent attention (DeepSeek-V2 Sec. 2.1) with q latent q, kv latent c, H heads of
    // n + r (Q·K) and v (V): h·q + q + q·H·(n + r) + h·(c + r) + c + c·H·(n + v) + H·v·h.
    // Kimi K2 (h 7,168, 64 heads): 11,010,048 + 1,536 + 18,874,368 + 4,128,768 + 512 + 8,388,608 + 58,720,256
    // = 101,124,096. An expert 3·7,168·2,048 = 44,040,192; an MoE layer 385 of them (one shared), a router
    // 7,168·384 and 2 norms: 17,059,364,864; the dense layer 101,124,096 + 3·7,168·18,432 + 14,336 =
    // 497,500,160; 60·17,059,364,864 + 497,500,160 + 2·163,840·7,168 + 7,168 = 1,026,408,209,408 (the
    // checkpoint adds DeepSeek-V3's per-expert routing bias, 60·384 = 23,040 more). Active: 376 experts
    // a layer fewer, 60·376·44,040,192 less: 32,861,477,888.
    TEST_CASE("Kimi K2: 1,026,408,209,408 weights (card 1T), 32,861,477,888 active (card 32B)") {
        check_config("kimi_k2_config.json", catalog::kimi_k2);
        CHECK(parameter_count(catalog::kimi_k2) == 1'026'408'209'408);
        CHECK(active_parameter_count(catalog::kimi_k2) == 32'861'477'888);
        CHECK(agrees(parameter_count(catalog::kimi_k2), 1000, 100));
        CHECK(agrees(active_parameter_count(catalog::kimi_k2), 32, 1));
    }
    // GLM-4.5 (h 5,120; 96 heads of 128, 8 KV): attention 2·5,120·12,288 + 2·5,120·1,024 + biases 12,288 +
    // 2·1,024 + Q/K norms 256 = 136,329,472; an expert 3·5,120·1,536 = 23,592,960, an MoE layer 161 of them,
    // a router 5,120·160 and 2 norms: 3,935,625,472; a dense layer 136,329,472 + 3·5,120·12,288 + 10,240 =
    // 325,083,392; 89·3,935,625,472 + 3·325,083,392 + 2·151,552·5,120 + 5,120 = 352,797,814,784 (the card's
    // 355B adds the multi-token-prediction layer). Active 89·152·23,592,960 fewer: 33,632,251,904, of which
    // 32,080,359,424 outside the two embedding tables (the card's 32B).
    TEST_CASE("GLM-4.5: 352,797,814,784 weights (card 355B), 32,080,359,424 active outside the tables (card 32B)") {
        check_config("glm4_5_config.json", catalog::glm4_5);
        CHECK(parameter_count(catalog::glm4_5) == 352'797'814'784);
        CHECK(active_parameter_count(catalog::glm4_5) == 33'632'251'904);
        CHECK(agrees(parameter_count(catalog::glm4_5), 355, 3));
        CHECK(agrees(active_parameter_count(catalog::glm4_5) - 2LL * 151'552 * 5'120, 32, 1));
    }
    // Qwen3-Coder-480B-A35B (h 6,144; 96 heads of 128, 8 KV): attention 2·6,144·12,288 + 2·6,144·1,024 +
    // Q/K norms 256 = 163,578,112; an expert 3·6,144·2,560 = 47,185,920, 160 of them, a router 6,144·160,
    // norms 12,288: a layer 7,714,320,640; 62 of them + 2·151,936·6,144 + 6,144 = 480,154,875,392. Active:
    // 152 experts a layer fewer: 35,474,765,312.
    TEST_CASE("Qwen3-Coder-480B-A35B: 480,154,875,392 weights (card 480B), 35,474,765,312 active (card 35B)") {
        check_config("qwen3_coder_480b_a35b_config.json", catalog::qwen3_coder_480b_a35b);
        CHECK(layer_weights(catalog::qwen3_coder_480b_a35b) == 7'714'320'640);
        CHECK(parameter_count(catalog::qwen3_coder_480b_a35b) == 480'154'875'392);
        CHECK(active_parameter_count(catalog::qwen3_coder_480b_a35b) == 35'474'765'312);
        CHECK(agrees(parameter_count(catalog::qwen3_coder_480b_a35b), 480, 1));
        CHECK(agrees(active_parameter_count(catalog::qwen3_coder_480b_a35b), 35, 1));
    }
    TEST_CASE("Qwen3-235B-A22B-2507: Qwen3-235B-A22B's weights with 262,144 positions") {
        check_config("qwen3_235b_a22b_2507_config.json", catalog::qwen3_235b_a22b_2507);
        CHECK(parameter_count(catalog::qwen3_235b_a22b_2507) == 235'093'634'560);
        CHECK(catalog::qwen3_235b_a22b_2507.max_position_embeddings == 262'144);
    }
    // Mistral Large 2 (h 12,288; 96 heads of 128, 8 KV): 2·12,288² + 2·12,288·1,024 + 3·12,288·28,672 +
    // 2·12,288 = 1,384,144,896 a layer; 88 of them + 2·32,768·12,288 + 12,288 = 122,610,069,504.
    TEST_CASE("Mistral Large 2: 88 × 1,384,144,896 + 805,318,656 = 122,610,069,504 — card 123B") {
        check_config("mistral_large_2_config.json", catalog::mistral_large_2);
        CHECK(layer_weights(catalog::mistral_large_2) == 1'384'144'896);
        CHECK(parameter_count(catalog::mistral_large_2) == 122'610'069'504);
        CHECK(agrees(parameter_count(catalog::mistral_large_2), 123, 1));
    }
    TEST_CASE("DeepSeek-R1 and V3.1 have DeepSeek-V3's shape (671B, 37B active)") {
        check_config("deepseek_v3_config.json", catalog::deepseek_r1);
        check_config("deepseek_v3_config.json", catalog::deepseek_v3_1);
        CHECK(catalog::find_model("deepseek-r1").has_value());
        CHECK(catalog::find_model("deepseek-v3.1").has_value());
    }
    // gpt-oss and Llama 4 are derived by hand in tests/unit/hf_config.cpp; the catalog holds what their
    // config.json files read as.
    TEST_CASE("gpt-oss and Llama 4 in the catalog are their config.json files") {
        check_config("gpt_oss_20b_config.json", catalog::gpt_oss_20b);
        check_config("gpt_oss_120b_config.json", catalog::gpt_oss_120b);
        check_config("llama4_scout_config.json", catalog::llama4_scout);
        check_config("llama4_maverick_config.json", catalog::llama4_maverick);
        CHECK(agrees(parameter_count(catalog::gpt_oss_120b), 117, 1));
        CHECK(agrees(parameter_count(catalog::llama4_scout), 109, 1));
        CHECK(agrees(parameter_count(catalog::llama4_maverick), 400, 2));
        CHECK(agrees(active_parameter_count(catalog::llama4_maverick), 17, 1));
    }
    TEST_CASE("every catalog name is unique and found by find_model") {
        for (const auto* m : catalog::models) {
            CAPTURE(m->name);
            CHECK(catalog::find_model(m->name)->name == m->name);
        }
    }
}
