// napkin/model.hpp and the model catalog.
#include <napkin/catalog/models.hpp>
#include <napkin/model.hpp>

#include <doctest/doctest.h>

using namespace napkin;

TEST_SUITE("model") {
    TEST_CASE("Llama 3.1 weight counts match the published totals") {
        // 70B by hand: per layer 2·8192² + 2·8192·1024 + 3·8192·28672 + 2·8192 = 855,654,400;
        // × 80 = 68,452,352,000; tables 2 · 128,256 · 8,192 = 2,101,346,304; final norm 8,192.
        CHECK(layer_weights(catalog::llama3_1_70b) == 855'654'400);
        CHECK(parameter_count(catalog::llama3_1_8b) == 8'030'261'248);
        CHECK(parameter_count(catalog::llama3_1_70b) == 70'553'706'496);
        CHECK(parameter_count(catalog::llama3_1_405b) == 405'853'388'800);
    }

    TEST_CASE("KV cache per token: 2 · 80 layers · 8 KV heads · 128 values · 2 bytes = 327,680 (70B)") {
        CHECK(kv_cache_per_token(catalog::llama3_1_70b, 2).value() == 327680.0);
    }

    TEST_CASE("a token's hidden vector: 8,192 numbers of 2 bytes = 16,384 bytes (70B), 32,768 (405B)") {
        CHECK(hidden_vector(catalog::llama3_1_70b, 2).value() == 16384.0);
        CHECK(hidden_vector(catalog::llama3_1_405b, 2).value() == 32768.0);
    }

    TEST_CASE("GPT-2 small counts 124,439,808 weights (LayerNorm, biases, learned positions, tied output)") {
        // per layer: attention 4·768² + 4·768, MLP 8·768² + 5·768, two LayerNorms 4·768 = 7,087,872;
        // × 12 + token table 50,257·768 + positions 1,024·768 + final LayerNorm 2·768.
        constexpr TransformerShape gpt2{.name = "gpt2", .layers = 12, .hidden = 768, .ffn = 3072, .heads = 12,
                                        .kv_heads = 12, .vocabulary = 50257, .tied_embeddings = true,
                                        .feed_forward = FeedForward::plain, .biases = true,
                                        .learned_positions = 1024};
        CHECK(layer_weights(gpt2) == 7'087'872);
        CHECK(parameter_count(gpt2) == 124'439'808);
    }

    TEST_CASE("a mixture of experts counts every expert, and a token passes through the active ones") {
        // Mixtral 8x7B shape (config.json): 32 layers, h 4096, 8 experts of 14,336, 2 active, 8 KV heads.
        constexpr TransformerShape mixtral{.name = "mixtral", .layers = 32, .hidden = 4096, .ffn = 14336,
                                           .heads = 32, .kv_heads = 8, .vocabulary = 32000, .experts = 8,
                                           .experts_per_token = 2, .expert_ffn = 14336};
        CHECK(parameter_count(mixtral) == 46'702'792'704);         // Mistral AI: "46.7B total"
        CHECK(active_parameter_count(mixtral) == 12'879'925'248);  // and "12.9B active"
    }

    TEST_CASE("the reference MoE layer: 128 routed experts of 768, top-7, one shared expert, 16 heads assumed") {
        // moe-training-step-1024-gpus.json: 45 layers, h 2048, 128 experts of width 768, top-7, one shared
        // expert (of the same width), vocabulary 131,072 (its heads are not given: 16 of 128 assumed). By hand:
        //   attention 4·2048² = 16,777,216; routed 128·3·2048·768 = 603,979,776; shared 3·2048·768 = 4,718,592;
        //   router 2048·128 = 262,144; norms 2·2048: layer 625,741,824;
        //   45 layers 28,158,382,080 + tables 2·131,072·2048 = 536,870,912 + 2048 = 28,695,255,040;
        //   active: 121 of the 128 routed experts idle, 45·121·4,718,592 = 25,692,733,440 fewer: 3,002,521,600.
        constexpr TransformerShape moe{.name = "reference-moe", .layers = 45, .hidden = 2048, .ffn = 768,
                                       .heads = 16, .kv_heads = 16, .vocabulary = 131072, .experts = 128,
                                       .experts_per_token = 7, .expert_ffn = 768, .shared_experts = 1,
                                       .shared_expert_ffn = 768};
        static_assert(layer_weights(moe) == 625'741'824);
        CHECK(parameter_count(moe) == 28'695'255'040);
        CHECK(active_parameter_count(moe) == 3'002'521'600);
    }

    TEST_CASE("DeepSeek-V2-Lite: latent attention without a query latent, 2 shared experts, 1 dense layer: 15.7 B") {
        // DeepSeek-V2-Lite's config.json: h 2048, 16 heads, kv_lora_rank 512, q_lora_rank null, rope 64,
        // nope 128, v 128, 27 layers (the first dense, ffn 10,944), 64 routed experts of 1408, 2 shared, top-6,
        // vocabulary 102,400. By hand (DeepSeek-V2 Sec. 2.1):
        //   attention 2048·16·192 + 2048·(512 + 64) + 512 + 512·16·(128 + 128) + 16·128·2048 = 13,763,072;
        //   dense layer 13,763,072 + 3·2048·10,944 + 4096 = 81,007,104;
        //   MoE layer 13,763,072 + 66·3·2048·1408 + 2048·64 + 4096 = 584,847,872;
        //   81,007,104 + 26·584,847,872 + 2·102,400·2048 + 2048 = 15,706,484,224 — the model card's 15.7 B.
        constexpr TransformerShape lite{.name = "deepseek-v2-lite", .layers = 27, .hidden = 2048, .ffn = 10944,
                                        .heads = 16, .kv_heads = 16, .vocabulary = 102400, .experts = 64,
                                        .experts_per_token = 6, .expert_ffn = 1408, .shared_experts = 2,
                                        .shared_expert_ffn = 1408, .dense_layers = 1, .kv_lora_rank = 512,
                                        .qk_nope_head_dim = 128, .qk_rope_head_dim = 64, .v_head_dim = 128};
        static_assert(attention_weights(lite) == 13'763'072);
        CHECK(dense_layer_weights(lite) == 81'007'104);
        CHECK(layer_weights(lite) == 584'847'872);
        CHECK(parameter_count(lite) == 15'706'484'224);
        // Scores and values against 4096 tokens: 2 · 16 heads · (192 + 128) · 4096 = 41,943,040 FLOPs per token.
        CHECK(attention_score_flops_per_token(lite, 4096.0) == 41'943'040.0);
        TransformerShape bad = lite;
        bad.dense_layers = 28;
        CHECK_THROWS_WITH_AS((void)validated(bad),
                             "TransformerShape.dense_layers = 28: must lie between 0 and the layers",
                             napkin::invalid_argument);
        bad = lite;
        bad.shared_expert_ffn = 0;
        CHECK_THROWS_WITH_AS((void)validated(bad),
                             "TransformerShape.shared_expert_ffn = 0: must be at least 1 when there are shared experts",
                             napkin::invalid_argument);
    }

    TEST_CASE("bad shapes are rejected naming the field") {
        TransformerShape m = catalog::llama3_1_8b;
        m.layers = 0;
        CHECK_THROWS_WITH_AS((void)validated(m), "TransformerShape.layers = 0: must be at least 1",
                             napkin::invalid_argument);
        m = catalog::llama3_1_8b;
        m.kv_heads = 5;
        CHECK_THROWS_WITH((void)validated(m), "TransformerShape.kv_heads = 5: must divide TransformerShape.heads");
        m = catalog::llama3_1_8b;
        m.head_dim = 0;
        m.hidden = 4097;
        CHECK_THROWS_AS((void)validated(m), napkin::invalid_argument);
    }
}
