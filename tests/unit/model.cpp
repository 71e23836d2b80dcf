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
