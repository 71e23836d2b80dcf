// napkin/layer_map.hpp: uneven pipelines — the reference's explicit map, Megatron's first/last shorthand, and
// every malformed map rejected naming its entry.
#include <napkin/layer_map.hpp>
#include <napkin/schedule.hpp>

#include <doctest/doctest.h>

#include <vector>

using namespace napkin;

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
        CHECK_THROWS_WITH_AS((void)first_last_layer_map(45, 4, 2, 4, 6), doctest::Contains("--first-stage-layers = 4"),
                             napkin::invalid_argument);
        CHECK_THROWS_AS((void)even_layer_map(45, 4, 2), napkin::invalid_argument);
    }

    TEST_CASE("a missed or repeated layer, an empty stage or chunk, a wrong stage count: each named") {
        CHECK_THROWS_WITH_AS((void)parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,43-45", 45, 4),
                             "--layer-map = 42: this layer is on no stage (every layer 1 … 45 exactly once)",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse_layer_map("1-6,25-29/6-12,30-35/13-18,36-41/19-24,42-45", 45, 4),
                             "--layer-map stage 2 chunk 1 = \"6-12\": repeats layer 6", napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse_layer_map("1-6,25-29/7-12,30-35//19-24,42-45", 45, 4),
                             "--layer-map stage 3 chunk 1 = \"\": is empty: every stage and chunk holds at least one "
                             "layer",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse_layer_map("1-6,/7-12,13-14", 14, 2),
                             "--layer-map stage 1 chunk 2 = \"\": is empty: every stage and chunk holds at least one "
                             "layer",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse_layer_map("1-12/13-24/25-36", 36, 4),
                             "--layer-map = \"1-12/13-24/25-36\": has 3 stages; the pipeline has 4",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse_layer_map("1-6,7-12/13-24", 24, 2),
                             "--layer-map stage 2 = \"13-24\": has 1 chunks; stage 1 has 2 (every stage the same)",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse_layer_map("1-6/9-7", 9, 2),
                             "--layer-map stage 2 chunk 1 = \"9-7\": must be a range a-b with 1 <= a <= b <= 9 (the "
                             "model's layers)",
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)parse_layer_map("1-6/7-x", 9, 2),
                             "--layer-map stage 2 chunk 1 = \"x\": must be a layer number or a range a-b",
                             napkin::invalid_argument);
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
