// napkin/training.hpp with issue 15's MoE layout: uneven pipelines from a layer
// map, expert data parallelism, the GEMM model's shared experts, dense layers
// and latent attention, per-op times and the step's collectives, Muon. By hand.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/io/hf_config.hpp>
#include <napkin/layer_map.hpp>
#include <napkin/planner.hpp>
#include <napkin/training.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <string>

using namespace napkin;
using napkin::test::fields_of;

namespace {
const std::string data = NAPKIN_TEST_DATA_DIR;

// A small GPT-like model with round numbers: h 1024, plain MLP of 4096, 16
// heads, no biases, vocabulary 8192, 6 layers.
constexpr TransformerShape small{.name = "small", .layers = 6, .hidden = 1024, .ffn = 4096, .heads = 16,
                                 .kv_heads = 16, .vocabulary = 8192, .feed_forward = FeedForward::plain};

// The flat model at half of peak with no element-wise work: time = FLOPs / (0.5 · peak).
constexpr TrainingOptions flat_half{.efficiency = {.peak_share = 0.5, .half_width = 0.0, .memory_passes = 0.0},
                                    .compute_model = ComputeModel::flat};

// The reference visualisation's MoE (tests/data/moe-training-step-1024-gpus.json; 16 heads of 128 assumed).
constexpr TransformerShape reference_moe{.name = "reference-moe", .layers = 45, .hidden = 2048, .ffn = 768,
                                         .heads = 16, .kv_heads = 16, .vocabulary = 131072, .experts = 128,
                                         .experts_per_token = 7, .expert_ffn = 768, .shared_experts = 1,
                                         .shared_expert_ffn = 768};
constexpr Parallelism reference_layout{.tp = 1, .pp = 4, .dp = 256, .ep = 4, .virtual_stages = 2, .micro_batch = 2,
                                       .global_batch = 4096, .sequence = 4096, .sharding = Sharding::distributed,
                                       .flash_attention = true, .gradients = DType::fp32};
}  // namespace

TEST_SUITE("training moe") {
    // The flat model per op (moe_layer.hpp's lesson, now through layer_ops): every GEMM at 0.677 of GH200's
    // 989 TFLOP/s, no element-wise passes, the reference layout's micro-batch of T = 2 · 4096 = 8,192 tokens.
    TEST_CASE("flat per-op times of the reference MoE layer by hand: experts, attention, all-to-all") {
        const Cluster c = cluster_of(catalog::gh200_quad, 256);
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        TrainingOptions o;
        o.layer_map = &map;
        o.compute_model = ComputeModel::flat;
        o.causal = true;  // a causal kernel: each query against half the keys
        o.efficiency = {.peak_share = 0.677, .half_width = 0.0, .memory_passes = 0.0};
        const LayerOps ops = layer_ops(reference_moe, c, reference_layout, o);
        REQUIRE(ops.size == 7);
        const double rate = 0.677 * 989e12;
        // Routed: 32 local experts × 1,792 rows × (2048 · 1536 + 768 · 2048) × 2 = 541,165,879,296 FLOP; shared:
        // 8,192 × 4,718,592 × 2 = 77,309,411,328; together 618,475,290,624 = 7 + 1 experts' 3 matrices a token.
        CHECK(ops.ops[3].forward.value() + ops.ops[4].forward.value() ==
              doctest::Approx(618'475'290'624.0 / rate).epsilon(1e-12));
        CHECK(ops.ops[3].backward.value() == doctest::Approx(2.0 * ops.ops[3].forward.value()).epsilon(1e-12));
        // Attention: 2 · 8,192 · 4h² = 274,877,906,944 for the projections, and the causal half of the scores,
        // 2 products × 2 · 4096 queries · 2048 keys · 128 · 32 heads = 137,438,953,472; backward twice.
        CHECK(ops.ops[0].forward.value() == doctest::Approx((274'877'906'944.0 + 137'438'953'472.0) / rate));
        CHECK(ops.ops[0].backward.value() == doctest::Approx(2.0 * ops.ops[0].forward.value()));
        // The all-to-all is collectives.hpp's under either model: 3/4 of 7 · 33,554,432 B at 150 GB/s, NCCL's
        // 6.6 µs base and 3 steps of 0.6 µs: 1,174.41 + 8.4 = 1,182.81 µs.
        CHECK(ops.ops[2].forward.value() * 1e6 == doctest::Approx(0.75 * 7.0 * 33'554'432.0 / 150e9 * 1e6 + 8.4));
        // No element-wise passes asked for: none priced.
        CHECK(ops.ops[6].forward == Seconds{});
        // A share outside (0, 1] is named.
        o.efficiency.peak_share = 1.5;
        CHECK(fields_of([&] { (void)layer_ops(reference_moe, c, reference_layout, o); }) ==
              "EfficiencyModel.peak_share | 1.5 | must be in (0, 1] | ");
    }

    TEST_CASE("flat per-op times add up to the layer evaluate_training prices under the flat model") {
        const Cluster c = cluster_of(catalog::gh200_quad, 256);
        Parallelism par = reference_layout;
        par.recompute = Recompute::none;
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        TrainingOptions o;  // the default flat efficiency: 0.677, a half width and 2.18 passes
        o.layer_map = &map;
        o.compute_model = ComputeModel::flat;
        const LayerOps ops = layer_ops(reference_moe, c, par, o);
        const MicrobatchTime layer = layer_microbatch_time(one_layer_shape(reference_moe, par, false), par, c, o);
        CHECK((ops.forward() + ops.backward()).value() ==
              doctest::Approx((layer.compute + layer.tp + layer.ep).value()).epsilon(1e-12));
    }

    TEST_CASE("45 layers on 4 x 2 chunks: rejected without a layer map, naming the flags — accepted with one") {
        const Cluster c = cluster_of(catalog::gh200_quad, 256);
        // p·v = 8 does not divide 45: the product is named, and the way out (a layer map).
        CHECK(fields_of([&] { return evaluate_training(reference_moe, c, reference_layout); }) ==
              "Parallelism.pp × virtual_stages | 8 | must divide the model's layers (45) unless a layer map places "
              "them (a layer_map, or first_stage_layers and last_stage_layers) | ");
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        TrainingOptions o;
        o.layer_map = &map;
        const TrainingEstimate e = evaluate_training(reference_moe, c, reference_layout, o);
        CHECK(e.step.value() > 0.0);
        // A map with 3 stages for pp 4 is named, with the field it disagrees with.
        const LayerMap three = parse_layer_map("1-15/16-30/31-45", 45, 3);
        o.layer_map = &three;
        CHECK(fields_of([&] { return evaluate_training(reference_moe, c, reference_layout, o); }) ==
              "LayerMap.stages | 3 | must equal pp = 4 | pp");
    }

    TEST_CASE("an uneven map 1-4/5-6: the 4-layer stage sets the pace, its bubble, its weights") {
        // Per layer and sequence of 1024 tokens: 2s(4h² + 2hf) + 4s²h
        //   = 2048 · (4,194,304 + 8,388,608) + 4,294,967,296 = 30,064,771,072 FLOPs forward.
        // Stage 1: 4 layers, 3 × 4 × 30,064,771,072 = 360,777,252,864 FLOPs per micro-batch.
        // Stage 2: 2 layers + logits 2·1024·1024·8192 = 17,179,869,184:
        //   3 × (60,129,542,144 + 17,179,869,184) = 231,928,233,984, less: stage 1 is the slowest.
        // At 0.5 × 312 TFLOP/s: 360,777,252,864 / 156e12 s per micro-batch, m = 16 / (1 · 4) = 4 of them.
        const Parallelism par{.pp = 2, .dp = 4, .micro_batch = 1, .global_batch = 16, .sequence = 1024};
        const Cluster c = cluster_of(catalog::dgx_a100, 1);
        const LayerMap map = parse_layer_map("1-4/5-6", 6, 2);
        TrainingOptions o = flat_half;
        o.layer_map = &map;
        const TrainingEstimate e = evaluate_training(small, c, par, o);
        const double one = 360'777'252'864.0 / 156e12;
        CHECK(e.breakdown.compute.value() == doctest::Approx(4.0 * one).epsilon(1e-12));
        // 1F1B's bubble (p − 1)(F + B) with p = 2: one micro-batch of the slowest stage, its sends included.
        CHECK(e.breakdown.bubble.value() ==
              doctest::Approx(one + e.breakdown.pp.value() / 4.0).epsilon(1e-12));
        // Weights of stage 1: 4 layers of 4h² + 2hf + 2h = 12,584,960, and the table 8192 · 1024 = 8,388,608:
        // 58,728,448 × 2 B = 117,456,896 B (stage 2: 2 layers + the output table + the final norm, 33,559,552).
        CHECK(e.memory.weights.value() == 117'456'896.0);
        // The model's FLOPs do not depend on the map: 3 · 16 · (6 · 30,064,771,072 + 17,179,869,184).
        CHECK(e.model_flops.value() == 3.0 * 16.0 * (6.0 * 30'064'771'072.0 + 17'179'869'184.0));
    }

    TEST_CASE("an even map gives the even pipeline's step (same work on the slowest stage)") {
        const Parallelism par{.pp = 2, .dp = 4, .micro_batch = 1, .global_batch = 16, .sequence = 1024};
        const Cluster c = cluster_of(catalog::dgx_a100, 1);
        const LayerMap map = parse_layer_map("1-3/4-6", 6, 2);
        TrainingOptions o;
        const TrainingEstimate even = evaluate_training(small, c, par, o);
        o.layer_map = &map;
        const TrainingEstimate mapped = evaluate_training(small, c, par, o);
        CHECK(mapped.breakdown.compute.value() == doctest::Approx(even.breakdown.compute.value()).epsilon(1e-9));
        CHECK(mapped.breakdown.bubble.value() == doctest::Approx(even.breakdown.bubble.value()).epsilon(1e-9));
        CHECK(mapped.memory.weights.value() == doctest::Approx(even.memory.weights.value()).epsilon(1e-12));
    }

    TEST_CASE("the reference layout: stage 4 (10 layers and the LM head) is the slowest — expert DP 64") {
        // Per token and MoE layer the matrices are 4h² (attention, 16.8 M) + 8 · 3 · 2048 · 768 (the 7 routed
        // and the shared expert, 37.7 M) + 2048 · 128 (router): ≈ 54.8 M weights, 2 FLOPs each forward; the LM
        // head's 2048 · 131,072 = 268 M weights are ≈ 4.9 layers, so stage 4's 10 + 4.9 beat stages 2 and 3's 12.
        const Cluster c = cluster_of(catalog::gh200_quad, 256);
        // The derivation counts FLOPs, so the flat model prices them: under the fitted
        // GEMM model the work of a layer that is not a GEMM (element-wise passes, attention) makes stage
        // 2 (12 layers) the slowest instead.
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        TrainingOptions o = flat_half;
        o.layer_map = &map;
        o.optimizer = Optimizer::muon;
        const TrainingEstimate e = evaluate_training(reference_moe, c, reference_layout, o);
        long long slowest = -1;
        Seconds worst{};
        for_each_stage(reference_moe, c, reference_layout, o, map, [&](long long s, const StageEstimate& x) {
            if (x.microbatch.total() > worst) worst = x.microbatch.total(), slowest = s;
        });
        CHECK(slowest == 3);
        CHECK(e.breakdown.compute.value() == doctest::Approx(8.0 * (worst.value() - e.breakdown.pp.value() / 8.0 -
                                                                    e.breakdown.ep.value() / 8.0 -
                                                                    e.breakdown.tp.value() / 8.0)));
        // Expert data parallelism: dp · cp / ep = 256 / 4 = 64 (tp 1).
        CHECK(expert_data_parallel(reference_layout) == 64);
    }

    TEST_CASE("the reference layout's collectives: groups, links and bytes by hand") {
        const Cluster c = cluster_of(catalog::gh200_quad, 256);
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        TrainingOptions o;
        o.layer_map = &map;
        StageParameters params;
        for_each_stage(reference_moe, c, reference_layout, o, map, [&](long long, const StageEstimate& x) {
            if (x.parameters.total() > params.total()) params = x.parameters;
        });
        const StepCollectives list = step_collectives(reference_moe, c, reference_layout, o, params, 12.0, 12.0);
        REQUIRE(list.size == 6);  // pipeline send, expert all-to-all, dense and expert reduce-scatter + all-gather
        // The pipeline send: b·s·h·2 B = 2 · 4096 · 2048 · 2 = 33,554,432 B; neighbouring stages are
        // t·c·d = 256 ranks apart, 64 quad nodes: on Slingshot-11.
        CHECK(list.list[0].name == "pipeline send");
        CHECK(list.list[0].bytes.value() == 33'554'432.0);
        CHECK(list.list[0].link == "slingshot-11");
        // The expert all-to-all: 7 copies of every token, 234,881,024 B per rank, over the 4 GPUs of one node.
        CHECK(list.list[1].bytes.value() == 7.0 * 33'554'432.0);
        CHECK(list.list[1].group == 4);
        CHECK(list.list[1].nodes == 1);
        CHECK(list.list[1].link == catalog::gh200_quad.intra.name);
        // Dense gradients over all 256 data-parallel copies (4 per node, 64 nodes); expert gradients over
        // the 64 that hold the same experts, 4 ranks apart (Megatron's order): one per node, 64 nodes.
        CHECK(list.list[2].name == "dense gradient sync");
        CHECK(list.list[2].group == 256);
        CHECK(list.list[2].nodes == 64);
        CHECK(list.list[4].name == "expert gradient sync");
        CHECK(list.list[4].group == 64);
        CHECK(list.list[4].nodes == 64);
        // fp32 gradients: 4 B per weight.
        CHECK(list.list[4].bytes.value() == 4.0 * params.expert);
    }

    TEST_CASE("per-op times of an MoE layer add up to the layer evaluate_training prices") {
        const Cluster c = cluster_of(catalog::gh200_quad, 256);
        Parallelism par = reference_layout;
        par.recompute = Recompute::none;
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        TrainingOptions o;
        o.layer_map = &map;
        const LayerOps ops = layer_ops(reference_moe, c, par, o);
        REQUIRE(ops.size == 7);  // attention, router, dispatch, routed, shared, combine, element-wise
        CHECK(ops.ops[2].op == "dispatch all-to-all");
        // Each peer gets 3/4 of the 234,881,024 B the rank sends.
        CHECK(ops.ops[2].sent.value() == 0.75 * 7.0 * 33'554'432.0);
        const MicrobatchTime layer = layer_microbatch_time(one_layer_shape(reference_moe, par, false), par, c, o);
        CHECK((ops.forward() + ops.backward()).value() ==
              doctest::Approx((layer.compute + layer.tp + layer.ep).value()).epsilon(1e-12));
        // The shared expert is one more gated FFN of width 768 for every token: 1/7 of the routed experts'
        // FLOPs, so its GEMMs take a real, smaller time.
        CHECK(ops.ops[4].op == "shared experts");
        CHECK(ops.ops[4].forward.value() > 0.0);
        CHECK(ops.ops[4].forward.value() < ops.ops[3].forward.value());
    }

    TEST_CASE("Muon: one momentum on the matrices in memory, Newton–Schulz in the step") {
        const Parallelism par{.tp = 1, .pp = 1, .dp = 8, .micro_batch = 1, .global_batch = 8, .sequence = 1024};
        const Cluster c = cluster_of(catalog::dgx_a100, 1);
        TrainingOptions o;
        const TrainingEstimate adam = evaluate_training(small, c, par, o);
        o.optimizer = Optimizer::muon;
        const TrainingEstimate muon = evaluate_training(small, c, par, o);
        // f: the matrices' share of the weights (6 · (4h² + 2hf) = 75,497,472 of 92,296,192 + the norms);
        // per weight the master's 4 B + (2 − f) moments of 4 B on average instead of 4 + 8.
        const double f = count(muon_parameter_count(small)) / count(parameter_count(small));
        CHECK(muon.memory.optimizer.value() == doctest::Approx(adam.memory.optimizer.value() * (4.0 + (2.0 - f) * 4.0) / 12.0));
        // The step: the update reads and writes one moment less on the matrices, and adds Newton–Schulz over
        // 8 GPUs at the GEMM model's Ampere share of 312 TFLOP/s.
        const double ns = muon_step_flops(small) / 8.0 / (312e12 * default_profile.ampere_share);
        const double update = adam.breakdown.optimizer.value() * (2.0 + 2.0 * (4.0 + (2.0 - f) * 4.0) + 2.0) / 28.0;
        CHECK(muon.breakdown.optimizer.value() == doctest::Approx(update + ns));
    }

    TEST_CASE("MoE FLOPs count the shared experts, the dense layers and latent attention (published configs)") {
        // Per token (sequence 1): layers_forward_flops = 2 × every active weight of the layers but the norms,
        // + the attention core against one key, 2·heads·(qk + v) a layer. So
        //   layers_forward_flops(m, 1) = 2 (active − embedding − (2L + 1)·h) + L · 2·heads·(qk + v)
        // (DeepSeek's latent norms, q_lora + kv_lora a layer, count as weights on both sides).
        for (const char* file : {"/deepseek_v3_config.json", "/qwen3_30b_a3b_config.json", "/mixtral_8x7b_config.json"}) {
            CAPTURE(file);
            const io::LoadedModel loaded = io::read_hf_config(data + file);
            const TransformerShape& m = loaded.shape;
            const double matrices = 2.0 * count(active_parameter_count(m) - embedding_weights(m) -
                                                (2 * m.layers + 1) * norm_weights(m));
            const double core = count(m.layers) * attention_score_flops_per_token(m, 1.0);
            const double qk_norms = m.qk_norm ? 2.0 * 2.0 * count(head_dim(m)) * count(m.layers) : 0.0;
            CHECK(layers_forward_flops(m, 1).value() == doctest::Approx(matrices - qk_norms + core).epsilon(1e-12));
        }
        // The same by hand from the weights tests/unit/hf_config.cpp derives:
        // DeepSeek-V3: active 37,552,282,624 − tables 1,853,358,080 − norms 123 · 7168 = 35,698,042,880,
        //   × 2 = 71,396,085,760; core 61 · 2 · 128 · (192 + 128) = 4,997,120: 71,401,082,880 per token
        //   (the 3 dense layers at their 18,432-wide FFN, the shared expert and latent attention included).
        const io::LoadedModel v3 = io::read_hf_config(data + "/deepseek_v3_config.json");
        CHECK(layers_forward_flops(v3.shape, 1).value() == 71'401'082'880.0);
        // Qwen3-30B-A3B: 3,353,032,704 − 622,329,856 − 97 · 2048 − Q/K norms 48 · 256 = 2,730,491,904, × 2
        //   = 5,460,983,808; core 48 · 2 · 32 · 256 = 786,432: 5,461,770,240.
        const io::LoadedModel qwen = io::read_hf_config(data + "/qwen3_30b_a3b_config.json");
        CHECK(layers_forward_flops(qwen.shape, 1).value() == 5'461'770'240.0);
        // Mixtral 8x7B: 12,879,925,248 − 2 · 32,000 · 4096 − 65 · 4096 = 12,617,515,008, × 2 =
        //   25,235,030,016; core 32 · 2 · 32 · 256 = 524,288: 25,235,554,304.
        const io::LoadedModel mixtral = io::read_hf_config(data + "/mixtral_8x7b_config.json");
        CHECK(layers_forward_flops(mixtral.shape, 1).value() == 25'235'554'304.0);
    }
}

TEST_SUITE("training moe") {
    TEST_CASE("op bytes by hand: the reference layout's attention, router and routed experts (bf16, 2 B)") {
        // T = b·s = 2 · 4096 = 8,192 tokens a micro-batch, h 2,048, tp 1.
        const Cluster c = cluster_of(catalog::gh200_quad, 256);
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        TrainingOptions o;
        o.layer_map = &map;
        const LayerOps ops = layer_ops(reference_moe, c, reference_layout, o);
        REQUIRE(ops.size == 7);
        // Attention: QKV (T, 3h, h): 8192·2048 + 2048·6144 + 8192·6144 = 79,691,776 elements; output (T, h, h):
        // 8192·2048 + 2048·2048 + 8192·2048 = 37,748,736; flash attention's Q, K, V, O: 4 · b·a · s · d =
        // 4 · 32 · 4096 · 128 = 67,108,864. (79,691,776 + 37,748,736 + 67,108,864) · 2 B = 369,098,752 B.
        CHECK(ops.ops[0].op == "attention");
        CHECK(ops.ops[0].sent.value() == 369'098'752.0);
        // Router (T, E, h): 8192·2048 + 2048·128 + 8192·128 = 18,087,936 elements, 36,175,872 B.
        CHECK(ops.ops[1].op == "router");
        CHECK(ops.ops[1].sent.value() == 36'175'872.0);
        // Routed experts: 32 local experts, each T·ep·k/E = 8192·4·7/128 = 1,792 rows; up (1792, 1536, 2048):
        // 3,670,016 + 3,145,728 + 2,752,512 = 9,568,256; down (1792, 2048, 768): 1,376,256 + 1,572,864 +
        // 3,670,016 = 6,619,136; 32 · 16,187,392 · 2 B = 1,035,993,088 B.
        CHECK(ops.ops[3].op == "routed experts");
        CHECK(ops.ops[3].sent.value() == 1'035'993'088.0);
        // Element-wise: memory_passes (2.18) passes over the layer's activation bytes, more than nothing.
        CHECK(ops.ops[6].op == "element-wise");
        CHECK(ops.ops[6].sent.value() > 0.0);
    }

    TEST_CASE("dense layers without a layer map: priced as dense layers through the even map") {
        // h 1024, 4 layers, the first dense (gated FFN of 4096: 3·1024·4096 = 12,582,912 weights a token),
        // the others 8 experts, top-2, width 1024 (2·3·1024·1024 = 6,291,456) plus the router (1024·8 = 8,192).
        // pp 1: the one stage holds 1 dense + 3 MoE layers. The dense layer does 12,582,912 − 6,299,648 =
        // 6,283,264 more weights' work a token: 2 FLOPs forward, 3× with the backward, 1,024 tokens a
        // micro-batch, 4 micro-batches, at 0.5 · 312 TFLOP/s (flat_half).
        constexpr TransformerShape moe{.name = "moe", .layers = 4, .hidden = 1024, .ffn = 4096, .heads = 16,
                                       .kv_heads = 16, .vocabulary = 8192, .experts = 8, .experts_per_token = 2,
                                       .expert_ffn = 1024};
        TransformerShape dense_first = moe;
        dense_first.dense_layers = 1;
        const Parallelism par{.pp = 1, .dp = 8, .micro_batch = 1, .global_batch = 32, .sequence = 1024};
        const Cluster c = cluster_of(catalog::dgx_a100, 1);
        const TrainingEstimate all_moe = evaluate_training(moe, c, par, flat_half);
        const TrainingEstimate apportioned = evaluate_training(dense_first, c, par, flat_half);
        const double extra = 4.0 * 3.0 * 2.0 * 1024.0 * 6'283'264.0 / (0.5 * 312e12);
        CHECK(apportioned.breakdown.compute.value() - all_moe.breakdown.compute.value() ==
              doctest::Approx(extra).epsilon(1e-9));
        // The same as the even map stated explicitly.
        const LayerMap even = even_layer_map(4, 1, 1);
        TrainingOptions mapped = flat_half;
        mapped.layer_map = &even;
        CHECK(evaluate_training(dense_first, c, par, mapped).step.value() ==
              doctest::Approx(apportioned.step.value()).epsilon(1e-12));
        // MoE on every other layer instead (moe_every 2: layers 2 and 4): 2 dense layers, twice the extra work.
        TransformerShape interleaved = moe;
        interleaved.moe_every = 2;
        const TrainingEstimate alternate = evaluate_training(interleaved, c, par, flat_half);
        CHECK(alternate.breakdown.compute.value() - all_moe.breakdown.compute.value() ==
              doctest::Approx(2.0 * extra).epsilon(1e-9));
        // At pp 2 each stage holds one dense and one MoE layer (layers 1-2 and 3-4).
        const Parallelism two{.pp = 2, .dp = 4, .micro_batch = 1, .global_batch = 32, .sequence = 1024};
        const LayerMap halves = even_layer_map(4, 2, 1);
        std::vector<StageEstimate> stages;
        for_each_stage(interleaved, c, two, flat_half, halves,
                       [&stages](long long, const StageEstimate& e) { stages.push_back(e); });
        REQUIRE(stages.size() == 2);
        for (const StageEstimate& e : stages) {
            CHECK(e.layers.dense == 1);
            CHECK(e.layers.moe == 1);
        }
    }
}

TEST_SUITE("training moe") {
    TEST_CASE("the planner with the reference's layer map: pp 4 and v 2 fixed, 45 layers placed — bad maps named") {
        // 45 layers do not divide over 4 stages: without the map no pp = 4 layout exists; with it every
        // layout the planner finds has the map's 4 stages of 2 chunks.
        const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", 45, 4);
        TrainingPlanQuery q{.model = reference_moe, .cluster = cluster_of(catalog::gh200_quad, 256),
                            .global_batch = 4096, .sequence = 4096, .max_tp = 1, .max_ep = 4,
                            .must_fit = false, .top_k = 3, .threads = 1};
        q.layer_map = &map;
        q.gradient_dtypes = dtype_bit(DType::fp32);
        q.flash_attention = true;
        const TrainingPlan plan = plan_training(q);
        REQUIRE(!plan.top.empty());
        for (const TrainingCandidate& cand : plan.top) {
            CHECK(cand.point.parallelism.pp == 4);
            CHECK(cand.point.parallelism.virtual_stages == 2);
            CHECK(cand.point.options.layer_map == &map);
            // dp = 1024 / (tp 1 · pp 4 · cp 1) = 256.
            CHECK(cand.point.parallelism.dp == 256);
        }
        // A 4-stage map with --max-pp 2, or on 6 GPUs, is named.
        q.max_pp = 2;
        CHECK(fields_of([&] { return plan_training(q); }) == "LayerMap.stages | 4 | must be at most max_pp = 2 | max_pp");
        q.max_pp = 0;
        Node six = catalog::dgx_a100;
        six.gpus = 6;
        q.cluster = cluster_of(six, 1);
        CHECK_THROWS_WITH_AS((void)plan_training(q), doctest::Contains("which do not divide the 6 GPUs"),
                             napkin::invalid_argument);
    }
}
