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

    // DeepSeek-V3 (tests/data/deepseek_v3_config.json: the published config.json, its rope_scaling and
    // quantization_config left out). By hand, DeepSeek-V2 Sec. 2.1 for latent attention:
    //   attention 7168·1536 + 1536 + 1536·128·192 + 7168·(512 + 64) + 512 + 512·128·(128 + 128) + 128·128·7168
    //           = 187,107,328; an expert 3·7168·2048 = 44,040,192; the dense FFN 3·7168·18432 = 396,361,728;
    //   dense layer 187,107,328 + 396,361,728 + 2·7168 = 583,483,392 (3 of them);
    //   MoE layer 187,107,328 + (256 + 1)·44,040,192 + 7168·256 + 2·7168 = 11,507,286,016 (58 of them);
    //   embeddings 2·129,280·7168 = 1,853,358,080, final norm 7168:
    //   3·583,483,392 + 58·11,507,286,016 + 1,853,358,080 + 7168 = 671,026,404,352 — the model card's 671 B.
    //   Active: 8 of 256 routed experts, 248·44,040,192 fewer per MoE layer: 37,552,282,624 — its 37 B.
    TEST_CASE("DeepSeek-V3's config.json: 671 B weights, 37 B active, latent attention's 576-value cache") {
        const io::LoadedModel m = io::read_hf_config(data + "/deepseek_v3_config.json");
        CHECK(m.shape.experts == 256);
        CHECK(m.shape.shared_experts == 1);
        CHECK(m.shape.shared_expert_ffn == 2048);
        CHECK(m.shape.dense_layers == 3);
        CHECK(m.shape.kv_lora_rank == 512);
        CHECK(attention_weights(m.shape) == 187'107'328);
        CHECK(parameter_count(m.shape) == 671'026'404'352);
        CHECK(active_parameter_count(m.shape) == 37'552'282'624);
        // The cache: (512 + 64) values per layer (DeepSeek-V2 Table 1), 61 layers at 2 bytes = 70,272 B per token.
        CHECK(kv_cache_per_token(m.shape, 2.0).value() == 70'272.0);
    }

    // Qwen3-30B-A3B (tests/data/qwen3_30b_a3b_config.json, the published config.json). By hand:
    //   attention 2048·4096·2 + 2048·512·2 + Q and K norms 2·128 = 18,874,624; an expert 3·2048·768 = 4,718,592;
    //   layer 18,874,624 + 128·4,718,592 + router 2048·128 + 2·2048 = 623,120,640; 48 layers 29,909,790,720;
    //   embeddings 2·151,936·2048 = 622,329,856, final norm 2048: 30,532,122,624 — the model card's 30.5 B.
    //   Active: 8 of 128 experts, 120·4,718,592 fewer per layer: 3,353,032,704 — its 3.3 B.
    TEST_CASE("Qwen3-30B-A3B's config.json: 30.5 B weights, 3.3 B active") {
        const io::LoadedModel m = io::read_hf_config(data + "/qwen3_30b_a3b_config.json");
        CHECK(m.shape.experts == 128);
        CHECK(m.shape.experts_per_token == 8);
        CHECK(m.shape.expert_ffn == 768);
        CHECK(m.shape.shared_experts == 0);
        CHECK(m.shape.qk_norm);
        CHECK(parameter_count(m.shape) == 30'532'122'624);
        CHECK(active_parameter_count(m.shape) == 3'353'032'704);
    }

    // Qwen2-MoE's keys (Qwen1.5-MoE-A2.7B's shape): one shared expert of width 5632 with its gate, Q/K/V biases.
    //   attention 4·2048² + 3·2048 = 16,783,360; 60 experts 60·3·2048·1408 = 519,045,120; shared 3·2048·5632 + 2048
    //   = 34,605,056; router 2048·60 = 122,880; norms 4096: layer 570,560,512.
    TEST_CASE("Qwen2-MoE's shared expert, its gate and Q/K/V biases are read") {
        const io::LoadedModel m = io::parse_hf_config(
            R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
                "num_key_value_heads": 16, "intermediate_size": 5632, "vocab_size": 151936, "num_experts": 60,
                "num_experts_per_tok": 4, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
                "decoder_sparse_step": 1, "mlp_only_layers": []})",
            "qwen2_moe.json");
        CHECK(m.shape.shared_experts == 1);
        CHECK(m.shape.shared_expert_gate);
        CHECK(m.shape.qkv_bias);
        CHECK(layer_weights(m.shape) == 570'560'512);
    }

    // Qwen2MoeDecoderLayer makes layer i (from 0) MoE when (i + 1) % decoder_sparse_step == 0 and i is not in
    // mlp_only_layers: a step of 2 over 24 layers gives layers 2, 4, …, 24 (from 1) MoE, 12 of them; the other
    // 12 keep the dense block of intermediate_size. The weights by hand, Qwen1.5-MoE's widths above: a dense
    // layer 16,783,360 + 3·2048·5632 + 4096 = 51,390,464, an MoE layer 570,560,512; 12 of each.
    TEST_CASE("MoE on every n-th layer is read (decoder_sparse_step, mlp_only_layers) and other patterns are refused") {
        const std::string base = R"({"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24,
            "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 5632, "vocab_size": 151936,
            "num_experts": 60, "num_experts_per_tok": 4, "moe_intermediate_size": 1408,
            "shared_expert_intermediate_size": 5632, )";
        const io::LoadedModel every_other = io::parse_hf_config(base + R"("decoder_sparse_step": 2})", "q.json");
        CHECK(every_other.shape.moe_every == 2);
        CHECK(every_other.shape.dense_layers == 0);
        CHECK(moe_layers(every_other.shape) == 12);
        const long long tables = 2LL * 151'936 * 2048 + 2048;
        CHECK(parameter_count(every_other.shape) - tables == 12LL * 51'390'464 + 12LL * 570'560'512);
        // The same layers named as a list of dense ones, and DeepSeek's first_k_dense_replace as a list.
        const io::LoadedModel listed =
            io::parse_hf_config(base + R"("mlp_only_layers": [0, 1, 2]})", "q.json");
        CHECK(listed.shape.dense_layers == 3);
        CHECK(listed.shape.moe_every == 1);
        CHECK(moe_layers(listed.shape) == 21);
        // Layers 1, 3, 4, 5, … (from 0) MoE: no "d dense, then every n-th" pattern.
        CHECK_THROWS_WITH((void)io::parse_hf_config(base + R"("mlp_only_layers": [0, 2]})", "q.json"),
                          doctest::Contains("q.json: field \"mlp_only_layers\" must make layers d + n, d + 2n, ... MoE "
                                            "after d dense ones"));
        CHECK_THROWS_WITH((void)io::parse_hf_config(base + R"("mlp_only_layers": [24]})", "q.json"),
                          "q.json: field \"mlp_only_layers\" must list layers in [0, 23], not 24");
        CHECK_THROWS_WITH((void)io::parse_hf_config(base + R"("decoder_sparse_step": 25})", "q.json"),
                          doctest::Contains("field \"decoder_sparse_step\" makes no layer MoE"));
        // DeepseekV2DecoderLayer: i ≥ first_k_dense_replace and i % moe_layer_freq == 0 (from 0). With 1 dense
        // layer and a frequency of 2, layers 2, 4, … (from 0) are MoE: 3, 5, … from 1, i.e. d = 1, n = 2.
        const std::string deepseek = R"({"model_type": "deepseek_v2", "hidden_size": 1024, "num_hidden_layers": 8,
            "num_attention_heads": 8, "intermediate_size": 4096, "vocab_size": 1000, "n_routed_experts": 8,
            "num_experts_per_tok": 2, "moe_intermediate_size": 512, )";
        const io::LoadedModel freq =
            io::parse_hf_config(deepseek + R"("first_k_dense_replace": 1, "moe_layer_freq": 2})", "d.json");
        CHECK(freq.shape.dense_layers == 1);
        CHECK(freq.shape.moe_every == 2);
        CHECK(moe_layers(freq.shape) == 3);  // layers 3, 5, 7 of 8
        // Without dense layers a frequency of 2 makes layers 1, 3, … (from 1) MoE: not of the pattern.
        CHECK_THROWS_WITH((void)io::parse_hf_config(deepseek + R"("moe_layer_freq": 2})", "d.json"),
                          doctest::Contains("field \"moe_layer_freq\" must make layers d + n"));
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
        CHECK_THROWS_WITH((void)io::parse_hf_config(
                              R"({"hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32,
                                  "intermediate_size": 1, "vocab_size": 1, "n_routed_experts": -256})",
                              "deepseek.json"),
                          doctest::Contains("deepseek.json: field \"n_routed_experts\""));
        CHECK_THROWS_WITH((void)io::parse_hf_config("[1, 2]", "list.json"), "list.json: not a JSON object");
    }

    // Gemma (tests/unit/catalog_models.cpp checks the seven files against the catalog and the hub's totals).
    TEST_CASE("Gemma 3's text_config takes Gemma3TextConfig's defaults — errors name the nested field") {
        // Only widths and layers given: 8 heads, 4 KV heads of 256, vocabulary 262,208, tied, window 4,096,
        // every 6th layer global, four norms, Q/K norms.
        const io::LoadedModel m = io::parse_hf_config(
            R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "hidden_size": 2560,
                "intermediate_size": 10240, "num_hidden_layers": 34}})",
            "g.json");
        CHECK(m.shape.heads == 8);
        CHECK(m.shape.kv_heads == 4);
        CHECK(head_dim(m.shape) == 256);
        CHECK(m.shape.vocabulary == 262208);
        CHECK(m.shape.tied_embeddings);
        CHECK(m.shape.qk_norm);
        CHECK(m.shape.norms_per_layer == 4);
        CHECK(m.shape.sliding_window == 4096);
        CHECK(m.shape.global_every == 6);
        CHECK(m.shape.vision_weights == 0);
        // Gemma 2 alternates, whatever the file says of a pattern.
        const io::LoadedModel g2 = io::read_hf_config(data + "/gemma2_9b_config.json");
        CHECK(g2.shape.global_every == 2);
        CHECK(g2.shape.sliding_window == 4096);
        // Mistral's and Qwen's sliding_window keys are not read: their numbers stay as they were.
        CHECK(io::read_hf_config(data + "/mistral_7b_config.json").shape.sliding_window == 0);
        CHECK(io::read_hf_config(data + "/qwen3_30b_a3b_config.json").shape.sliding_window == 0);
        CHECK_THROWS_WITH((void)io::parse_hf_config(R"({"model_type": "gemma3", "text_config": 3})", "g.json"),
                          "g.json: field \"text_config\" must be an object, not 3");
        CHECK_THROWS_WITH((void)io::parse_hf_config(
                              R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
                                  "hidden_size": 2560, "num_hidden_layers": 34}})",
                              "g.json"),
                          "g.json: field \"text_config.intermediate_size\" is missing (a required field)");
        CHECK_THROWS_WITH((void)io::parse_hf_config(
                              R"({"model_type": "qwen2", "text_config": {"hidden_size": 64, "num_hidden_layers": 2,
                                  "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 10},
                                  "vision_config": {}})",
                              "l.json"),
                          "l.json: field \"vision_config\" is read for Gemma 3 and Llama 4 (model_type gemma3, "
                          "llama4) only");
        CHECK_THROWS_WITH((void)io::parse_hf_config(
                              R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
                                  "hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34},
                                  "vision_config": {"vision_use_head": true}})",
                              "g.json"),
                          "g.json: field \"vision_config.vision_use_head\" must be false: napkin counts SigLIP "
                          "without its pooling head");
        CHECK_THROWS_WITH((void)io::parse_hf_config(
                              R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
                                  "hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34},
                                  "vision_config": {"patch_size": 0}})",
                              "g.json"),
                          "g.json: field \"vision_config.patch_size\" must be a positive whole number, not 0");
    }
}

TEST_SUITE("io/hf_config") {
    TEST_CASE("gpt-oss-120b and 20b: 116.8 B and 20.9 B weights, 5.1 B and 3.6 B active as their card counts") {
        // tests/data/gpt_oss_{120b,20b}_config.json: the fields of openai/gpt-oss-{120b,20b}'s config.json.
        // Per layer: attention 2880·64·64 + 2·2880·8·64 + 64·64·2880 + Q/K/V biases 4,096 + 2·512 =
        // 26,546,176; 128 experts × 3·2880·2880 = 3,185,049,600 and a router 2880 × 128; two norms 5,760.
        // Embeddings 2 × 201,088 × 2,880 (untied). The card (openai.com, "gpt-oss model card", 2025,
        // Table 1) gives 116.83 B total and 5.13 B active, its active count leaving out the input
        // embedding (579,133,440), which napkin counts.
        const io::LoadedModel big = io::read_hf_config(data + "/gpt_oss_120b_config.json");
        const TransformerShape& m = big.shape;
        CHECK(m.experts == 128);
        CHECK(m.experts_per_token == 4);
        CHECK(m.expert_ffn == 2880);
        CHECK(m.qkv_bias);
        // layer_types alternate sliding_attention and full_attention: a window of 128 on 18 of 36 layers.
        CHECK(m.sliding_window == 128);
        CHECK(local_attention_layers(m) == 18);
        CHECK(static_cast<double>(parameter_count(m)) == doctest::Approx(116.83e9).epsilon(0.001));
        const double input_embedding = 201'088.0 * 2'880.0;
        CHECK(static_cast<double>(active_parameter_count(m)) - input_embedding ==
              doctest::Approx(5.13e9).epsilon(0.005));
        const io::LoadedModel small = io::read_hf_config(data + "/gpt_oss_20b_config.json");
        CHECK(static_cast<double>(parameter_count(small.shape)) == doctest::Approx(20.91e9).epsilon(0.001));
        CHECK(static_cast<double>(active_parameter_count(small.shape)) - input_embedding ==
              doctest::Approx(3.61e9).epsilon(0.005));
    }

    TEST_CASE("Llama 4 Scout: 109 B weights and 17 B active, a shared expert, chunked attention as a window") {
        // tests/data/llama4_scout_config.json: the fields of meta-llama/Llama-4-Scout-17B-16E's config.json.
        // Per layer: attention 2·5120·5120 + 2·5120·1024 = 62,914,560; 16 experts and one shared expert of
        // 3·5120·8192 = 125,829,120 each, a router 5120 × 16. Embeddings 2 × 202,048 × 5,120. The model card
        // (Meta, Llama 4, 2025): 17 B active, 109 B total.
        const io::LoadedModel loaded = io::read_hf_config(data + "/llama4_scout_config.json");
        const TransformerShape& m = loaded.shape;
        CHECK(m.experts == 16);
        CHECK(m.experts_per_token == 1);
        CHECK(m.shared_experts == 1);
        CHECK(m.shared_expert_ffn == 8192);
        CHECK(m.expert_ffn == 8192);
        CHECK(m.ffn == 16384);  // intermediate_size_mlp: a dense layer's width
        // Chunks of 8,192 on three layers of four (no_rope_layers), every 4th global.
        CHECK(m.sliding_window == 8192);
        CHECK(global_attention_layers(m) == 12);
        CHECK(m.vision_weights > 0);
        CHECK(static_cast<double>(parameter_count(m)) == doctest::Approx(109e9).epsilon(0.01));
        CHECK(static_cast<double>(active_parameter_count(m)) == doctest::Approx(17e9).epsilon(0.02));
        // The text model alone, by hand: 48 × (62,914,560 + 17 × 125,829,120 + 81,920 + 2 × 5,120) + 2 ×
        // 202,048 × 5,120 + 5,120 (final norm) = 107,769,861,120.
        CHECK(parameter_count(m) - m.vision_weights == 107'769'861'120LL);
    }

    TEST_CASE("Llama 4 Maverick: MoE on every other layer, 400 B weights and 17 B active") {
        // tests/data/llama4_maverick_config.json: meta-llama/Llama-4-Maverick-17B-128E's config.json, whose
        // moe_layers (from 0) are 1, 3, …, 47: layers 2, 4, …, 48 counted from 1, 24 MoE and 24 dense. By hand:
        //   attention 62,914,560 and norms 10,240 per layer (as Scout);
        //   MoE layer: 128 + 1 shared experts of 3·5120·8192 = 125,829,120, router 5120·128 = 655,360:
        //     62,914,560 + 129 · 125,829,120 + 655,360 + 10,240 = 16,295,536,640;
        //   dense layer (intermediate_size_mlp 16,384): 62,914,560 + 3·5120·16384 + 10,240 = 314,583,040;
        //   24 · 16,295,536,640 + 24 · 314,583,040 + 2 · 202,048 · 5,120 + 5,120 = 400,711,848,960.
        // Active: an MoE layer's routed expert and its shared one, 62,914,560 + 2 · 125,829,120 + 665,600 =
        // 315,238,400; 24 · 315,238,400 + 24 · 314,583,040 + 2,068,976,640 = 17,184,691,200.
        // The model card (Meta, Llama 4, 2025): 400 B total, 17 B active.
        const io::LoadedModel loaded = io::read_hf_config(data + "/llama4_maverick_config.json");
        const TransformerShape& m = loaded.shape;
        CHECK(m.experts == 128);
        CHECK(m.moe_every == 2);
        CHECK(m.dense_layers == 0);
        CHECK(moe_layers(m) == 24);
        CHECK(parameter_count(m) - m.vision_weights == 400'711'848'960LL);
        CHECK(active_parameter_count(m) == 17'184'691'200LL);
        CHECK(static_cast<double>(parameter_count(m)) == doctest::Approx(400e9).epsilon(0.01));
    }

    TEST_CASE("a config napkin would misread is refused: an unknown model_type") {
        CHECK_THROWS_WITH((void)io::parse_hf_config(R"({"model_type": "mamba", "hidden_size": 64})", "m.json"),
                          doctest::Contains("m.json: field \"model_type\" = \"mamba\": not an architecture napkin "
                                            "models (it reads gpt2, llama,"));
        // A text_config's own model_type is checked too.
        CHECK_THROWS_WITH(
            (void)io::parse_hf_config(R"({"model_type": "llama4", "text_config": {"model_type": "rwkv"}})", "r.json"),
            doctest::Contains("field \"text_config.model_type\" = \"rwkv\""));
        // layer_types in a pattern napkin does not model: two sliding, one full, one sliding, ...
        CHECK_THROWS_WITH((void)io::parse_hf_config(
                              R"({"model_type": "gpt_oss", "hidden_size": 64, "num_hidden_layers": 4,
                                  "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
                                  "sliding_window": 8, "layer_types": ["sliding_attention", "sliding_attention",
                                  "full_attention", "full_attention"]})",
                              "p.json"),
                          doctest::Contains("field \"layer_types\" must mark every p-th layer global"));
        // Every config in tests/data names a model_type napkin reads.
        for (const auto& entry : std::filesystem::directory_iterator(data)) {
            const std::string file = entry.path().filename().string();
            if (!file.ends_with("_config.json") || file.starts_with("malformed") || file.starts_with("missing") ||
                file.starts_with("llama4_maverick"))
                continue;
            CAPTURE(file);
            CHECK_NOTHROW((void)io::read_hf_config(entry.path()));
        }
    }
}
