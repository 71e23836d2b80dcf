// napkin/layer_map.hpp: uneven pipelines — the reference's explicit map, Megatron's first/last shorthand, and
// every malformed map rejected naming its entry.
#include <napkin/layer_map.hpp>
#include <napkin/model.hpp>
#include <napkin/schedule.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <vector>

using namespace napkin;
using napkin::test::error_of;
using napkin::test::fields_of;

TEST_SUITE("layer_map") {
    TEST_CASE("the reference's map: 45 layers on 4 stages of 2 chunks, 11 / 12 / 12 / 10 layers") {
        // moe-training-step-1024-gpus.json, parallelism.layersPerStage.
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        CHECK(map.stages == 4);
        CHECK(map.chunks == 2);
        CHECK(map.layers_per_chunk() == std::vector<long long>{6, 5, 6, 6, 6, 6, 6, 4});
        CHECK(map.stage_layers(0) == 11);
        CHECK(map.stage_layers(1) == 12);
        CHECK(map.stage_layers(3) == 10);
        CHECK(map.fullest_stage() == 1);
        CHECK(map.at(3, 1).first == 42);
        CHECK(map.at(3, 1).last == 45);
        // A single layer needs no dash.
        CHECK(parse_layer_map("1/2", 2, 2).layers_per_chunk() == std::vector<long long>{1, 1});
    }

    TEST_CASE("Megatron's shorthand: the first and last virtual stages' layers, the rest shared equally") {
        // 45 layers, p = 4, v = 2, first 3 and last 6: the other 6 virtual stages take (45 − 9)/6 = 6 each.
        // Virtual stage k = chunk·p + stage: stage 1 chunk 1 layers 1-3, stage 2 chunk 1 4-9, …,
        // stage 1 chunk 2 (k = 4) 22-27, stage 4 chunk 2 (k = 7) 40-45.
        const LayerMap map = first_last_layer_map(45, 4, 2, 3, 6);
        CHECK(map.layers_per_chunk() == std::vector<long long>{3, 6, 6, 6, 6, 6, 6, 6});
        CHECK(map.at(0, 1).first == 22);
        CHECK(map.at(3, 1).first == 40);
        CHECK(map.at(3, 1).last == 45);
        CHECK(even_layer_map(48, 4, 2).layers_per_chunk() == std::vector<long long>(8, 6));
        // 45 − 4 − 6 = 35 layers do not split over the other 6 virtual stages: the field and the one it names.
        CHECK(fields_of([] { return first_last_layer_map(45, 4, 2, 4, 6); }) ==
              "first_stage_layers | 4 | with last_stage_layers = 6 must leave the other 6 virtual stages an equal "
              "share of the 45 layers, at least 1 each | last_stage_layers");
        CHECK_THROWS_AS((void)even_layer_map(45, 4, 2), napkin::invalid_argument);
    }

    TEST_CASE("a missed or repeated layer, an empty stage or chunk, a wrong stage count: each named") {
        // The field names the entry ("layer_map stage 2 chunk 1"), the value is the entry as typed.
        CHECK(fields_of([] { return parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,43-45", 45, 4); }) ==
              "layer_map | 42 | this layer is on no stage (every layer 1 … 45 exactly once) | ");
        CHECK(fields_of([] { return parse_layer_map("1-6,25-29/6-12,30-35/13-18,36-41/19-24,42-45", 45, 4); }) ==
              "layer_map stage 2 chunk 1 | \"6-12\" | repeats layer 6 | ");
        CHECK(fields_of([] { return parse_layer_map("1-6,25-29/7-12,30-35//19-24,42-45", 45, 4); }) ==
              "layer_map stage 3 chunk 1 | \"\" | is empty: every stage and chunk holds at least one layer | ");
        CHECK(fields_of([] { return parse_layer_map("1-6,/7-12,13-14", 14, 2); }) ==
              "layer_map stage 1 chunk 2 | \"\" | is empty: every stage and chunk holds at least one layer | ");
        CHECK(fields_of([] { return parse_layer_map("1-12/13-24/25-36", 36, 4); }) ==
              "layer_map | \"1-12/13-24/25-36\" | has 3 stages; the pipeline has 4 | ");
        CHECK(fields_of([] { return parse_layer_map("1-6,7-12/13-24", 24, 2); }) ==
              "layer_map stage 2 | \"13-24\" | has 1 chunks; stage 1 has 2 (every stage the same) | ");
        CHECK(fields_of([] { return parse_layer_map("1-6/9-7", 9, 2); }) ==
              "layer_map stage 2 chunk 1 | \"9-7\" | must be a range a-b with 1 <= a <= b <= 9 (the model's layers) | ");
        CHECK(fields_of([] { return parse_layer_map("1-6/7-x", 9, 2); }) ==
              "layer_map stage 2 chunk 1 | \"x\" | must be a layer number or a range a-b | ");
        // A front end may spell the entry its own way: the CLI passes its flag.
        CHECK(error_of([] { return parse_layer_map("1-6/7-x", 9, 2, "--layer-map"); }) ==
              "--layer-map stage 2 chunk 1 = \"x\": must be a layer number or a range a-b");
    }

    TEST_CASE("weights per stage: the reference MoE's 11 / 12 / 12 / 10 layers, the tables on the end stages") {
        // Layer 625,741,824 weights (tests/unit/model.cpp); the table 131,072 · 2048 = 268,435,456.
        // Stage 1: 11 layers + the embedding = 7,151,595,520; stage 4: 10 layers + the output layer + the final
        // norm (2048) = 6,525,855,744; the four stages add up to the model's 28,695,255,040.
        constexpr TransformerShape moe{.name = "reference-moe", .layers = 45, .hidden = 2048, .ffn = 768,
                                       .heads = 16, .kv_heads = 16, .vocabulary = 131072, .experts = 128,
                                       .experts_per_token = 7, .expert_ffn = 768, .shared_experts = 1,
                                       .shared_expert_ffn = 768};
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        CHECK(stage_parameter_count(moe, map, 0) == 7'151'595'520);
        CHECK(stage_parameter_count(moe, map, 3) == 6'525'855'744);
        long long sum = 0;
        for (long long s = 0; s < 4; ++s) sum += stage_parameter_count(moe, map, s);
        CHECK(sum == parameter_count(moe));
        // DeepSeek's dense layers count at their own width: with the first 3 dense, stage 1 of an even 48-layer
        // map on 4 stages holds 3 dense and 9 MoE layers.
        TransformerShape dense_first = moe;
        dense_first.layers = 48;
        dense_first.dense_layers = 3;
        dense_first.ffn = 6144;
        const LayerMap even = even_layer_map(48, 4, 1);
        CHECK(stage_parameter_count(dense_first, even, 0) ==
              3 * dense_layer_weights(dense_first) + 9 * layer_weights(dense_first) + 131072LL * 2048);
        // MoE on every other layer (Llama 4 Maverick's interleave_moe_layer_step 2): layers 2, 4, … are MoE, so
        // the map 1-3/4-6/… of 16 layers on 5 + 1 stages gives its stages alternately 1 and 2 MoE layers (layers
        // 1-3 hold layer 2; 4-6 hold 4 and 6), and the stages sum to the model.
        TransformerShape interleaved = moe;
        interleaved.layers = 16;
        interleaved.moe_every = 2;
        CHECK(moe_layers(interleaved) == 8);
        CHECK(moe_layers_between(interleaved, 1, 3) == 1);
        CHECK(moe_layers_between(interleaved, 4, 6) == 2);
        const LayerMap threes = parse_layer_map("1-3/4-6/7-9/10-12/13-15/16", 16, 6);
        CHECK(stage_parameter_count(interleaved, threes, 1) ==
              dense_layer_weights(interleaved) + 2 * layer_weights(interleaved));
        long long total = 0;
        for (long long s = 0; s < 6; ++s) total += stage_parameter_count(interleaved, threes, s);
        CHECK(total == parameter_count(interleaved));
    }

    TEST_CASE("time per chunk from the map: the reference's forwards, 5.272 ms a layer, the LM head on the last") {
        // perLayer.forward ends at 5.272 ms and backward at 9.414 ms; stage 4's last chunk (4 layers) takes 29.232 ms
        // forward in the file: 4 × 5.272 = 21.088 ms plus 8.144 ms for the LM head and loss.
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        const std::vector<long long> layers = map.layers_per_chunk();
        const ScheduleTimes t = ScheduleTimes::per_layer({4, 8, 2}, layers, {milliseconds(5.272), milliseconds(9.414)},
                                                         {}, {milliseconds(8.144), milliseconds(16.288)});
        CHECK(in(t.at(0, 0).forward, units::ms) == doctest::Approx(31.632));  // 6 layers
        CHECK(in(t.at(0, 1).forward, units::ms) == doctest::Approx(26.36));   // 5 layers
        CHECK(in(t.at(3, 1).forward, units::ms) == doctest::Approx(29.232));
        CHECK(in(t.at(3, 1).backward, units::ms) == doctest::Approx(4 * 9.414 + 16.288));
    }
}
