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
        // 27 layers, the first dense: moe_every 27 would make layer 28 the first MoE layer, past the last.
        bad = lite;
        bad.moe_every = 27;
        CHECK_THROWS_WITH_AS((void)validated(bad),
                             "TransformerShape.moe_every = 27: leaves no MoE layer after the dense ones: a model with "
                             "experts needs one",
                             napkin::invalid_argument);
        bad.moe_every = 26;  // layer 27, the last, is MoE
        CHECK(moe_layers(validated(bad)) == 1);
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

    // The SigLIP So400m/14 tower of Gemma 3 at 896² (vision_config: 27 layers, 1,152 wide, MLP 4,304):
    // patch convolution 3·14²·1,152 + 1,152 = 678,528; positions (896/14)² = 4,096 · 1,152 = 4,718,592;
    // a layer: Q, K, V, O 4·(1,152² + 1,152) = 5,313,024, MLP 2·1,152·4,304 + 4,304 + 1,152 = 9,921,872,
    // two LayerNorms 4,608: 15,239,504, × 27 = 411,466,608; final LayerNorm 2,304: 416,866,032.
    // Gemma 3's projection: RMSNorm 1,152 + 1,152 × text width.
    TEST_CASE("a SigLIP tower at 896² has 416,866,032 weights — Gemma 3 adds 1,152 + 1,152·h to project them") {
        const VisionEncoder siglip{.layers = 27, .hidden = 1152, .ffn = 4304, .image_size = 896, .patch_size = 14};
        CHECK(vision_tower_weights(siglip, 2560) == 416'866'032 + 1'152 + 1'152LL * 2'560);
        CHECK(vision_tower_weights(siglip, 5376) - vision_tower_weights(siglip, 2560) == 1'152LL * (5'376 - 2'560));
        CHECK_THROWS_AS((void)vision_tower_weights({.layers = 0, .hidden = 1152, .ffn = 4304, .image_size = 896,
                                                    .patch_size = 14},
                                                   2560),
                        napkin::invalid_argument);
    }

    // KV cache with a sliding window: a local layer keeps at most the window. Gemma 2 9B at 2 bytes: a
    // layer-token is 2 · 8 KV heads · 256 · 2 = 8,192 B. At 8,192 tokens: 21 global × 8,192 + 21 local ×
    // 4,096 = 258,048 layer-tokens = 2,113,929,216 B (without the window 42 · 8,192 · 8,192 = 2,818,572,288).
    // Within the window every layer keeps everything: 4,096 tokens 42 · 4,096 · 8,192 = 1,409,286,144.
    TEST_CASE("KV cache with a window: Gemma 2 9B at 8,192 tokens 2,113,929,216 B, not 2,818,572,288") {
        const TransformerShape& m = catalog::gemma2_9b;
        CHECK(kv_cache_per_token(m, 2.0).value() == 42.0 * 8'192);
        CHECK(kv_cache_bytes(m, 2.0, tokens(8192)).value() == 2'113'929'216.0);
        CHECK(kv_cache_bytes(m, 2.0, tokens(4096)).value() == 1'409'286'144.0);
        TransformerShape no_window = m;
        no_window.sliding_window = 0;
        CHECK(kv_cache_bytes(no_window, 2.0, tokens(8192)).value() == 2'818'572'288.0);
        // Gemma 3 27B at its 131,072 tokens: a layer-token 2 · 16 · 128 · 2 = 8,192 B; 10 global × 131,072
        // + 52 local × 1,024 = 1,363,968 layer-tokens = 11,173,625,856 B (62 · 131,072 · 8,192 without).
        CHECK(kv_cache_bytes(catalog::gemma3_27b, 2.0, tokens(131072)).value() == 11'173'625'856.0);
        // No window: kv_cache_per_token × context, as before.
        CHECK(kv_cache_bytes(catalog::llama3_1_70b, 2.0, tokens(1000)) ==
              kv_cache_per_token(catalog::llama3_1_70b, 2.0) * tokens(1000));
    }

    // Attention FLOPs with a window, one sequence of s = 8,192 tokens, causal, Gemma 2 9B:
    // per position 2 · 16 heads · (256 + 256) = 16,384. A global layer s²/2 positions: 16,384 · 33,554,432
    // = 549,755,813,888; a local one the band s²/2 − (s − w)²/2 = 33,554,432 − 8,388,608 = 25,165,824:
    // 412,316,860,416. Half the layers each: 481,036,337,152 a layer on average.
    TEST_CASE("attention FLOPs with a window: Gemma 2 9B, 8,192 causal tokens, 481,036,337,152 a layer") {
        const TransformerShape& m = catalog::gemma2_9b;
        CHECK(attention_score_flops_per_token(m, 1.0) == 16'384.0);
        CHECK(attention_score_flops_per_sequence(m, 8192, true) == 481'036'337'152.0);
        // Without causal masking the full-square count doubles both.
        CHECK(attention_score_flops_per_sequence(m, 8192, false) == 2.0 * 481'036'337'152.0);
        // Within the window nothing changes: s = 4,096, 16,384 · 4,096² / 2.
        CHECK(attention_score_flops_per_sequence(m, 4096, true) == 16'384.0 * 4096.0 * 4096.0 / 2.0);
        // Gemma 3 1B (w 512), 4 global and 22 local layers, s = 2,048 causal; per position 2·4·512 = 4,096:
        // global 4,096 · 2,048²/2 = 8,589,934,592; local 4,096 · (2,048² − 1,536²)/2 = 3,758,096,384;
        // (4 · 8,589,934,592 + 22 · 3,758,096,384) / 26 = 4,501,400,890.09…
        CHECK(attention_score_flops_per_sequence(catalog::gemma3_1b, 2048, true) ==
              doctest::Approx((4.0 * 8'589'934'592.0 + 22.0 * 3'758'096'384.0) / 26.0).epsilon(1e-15));
    }

    // Prefill's positions: token t attends to min(t, w). Gemma 3 1B (w = 512), tokens 1 … 1,024:
    // Σ 1 … 512 = 131,328, then 512 tokens × 512 = 262,144: 393,472; tokens 513 … 1,024 alone 262,144;
    // tokens 1 … 100: 5,050. Without a window Σ 1 … 1,024 = 524,800.
    TEST_CASE("positions within a window: Σ min(t, 512) over 1 … 1,024 = 393,472") {
        CHECK(windowed_positions(catalog::gemma3_1b, 1, 1024) == 393'472.0);
        CHECK(windowed_positions(catalog::gemma3_1b, 513, 1024) == 262'144.0);
        CHECK(windowed_positions(catalog::gemma3_1b, 1, 100) == 5'050.0);
        CHECK(windowed_positions(catalog::llama3_1_8b, 1, 1024) == 524'800.0);
        CHECK(within_window(catalog::gemma3_1b, 4096) == 512.0);
        CHECK(within_window(catalog::llama3_1_8b, 4096) == 4096.0);
    }

    TEST_CASE("a window's fields are checked") {
        TransformerShape m = catalog::gemma2_9b;
        m.sliding_window = -1;
        CHECK_THROWS_AS((void)validated(m), napkin::invalid_argument);
        m = catalog::gemma2_9b;
        m.global_every = -2;
        CHECK_THROWS_AS((void)validated(m), napkin::invalid_argument);
        m = catalog::gemma2_9b;
        m.norms_per_layer = 17;
        CHECK_THROWS_AS((void)validated(m), napkin::invalid_argument);
        m = catalog::gemma2_9b;
        m.vision_weights = -1;
        CHECK_THROWS_AS((void)validated(m), napkin::invalid_argument);
        // A window with no global layer: every layer local (Mistral v0.1's 4,096).
        m = catalog::gemma2_9b;
        m.global_every = 0;
        CHECK(global_attention_layers(m) == 0);
        CHECK(kv_cache_bytes(m, 2.0, tokens(8192)).value() == 42.0 * 4096 * 8192);
    }
}
