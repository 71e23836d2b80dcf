// moe_step_1024_gh200 — one training step of a 45-layer mixture of experts on
// 1,024 GH200 GPUs (256 quad nodes), the layout of the reference visualisation
// tests/data/moe-training-step-1024-gpus.json: TP 1, PP 4 with 2 chunks per
// rank on an uneven layer map, EP 4 inside the node, DP 256 (expert DP 64),
// micro-batch 2 of 4,096 mb_tokens, 8 micro-batches per pipeline, Megatron's
// interleaved 1F1B with --overlap-moe-expert-parallel-comm, Muon.
//
// Part 1 prices every op of one MoE layer (layer_ops under the flat model)
// and every collective of the step (alpha-beta links) and
// prints it next to the reference's figure; where they differ by more than
// 15 % it says which assumption differs (the reference calls its timings
// illustrative). Part 2 simulates the step from napkin's per-layer times;
// part 3 from the reference's own op and send times, which must give back its
// step and idle fraction. Part 4 states the whole layout to evaluate_training
// (the uneven map, EP 4, the quad node, Muon, the distributed optimizer) and
// prints its per-op, per-layer and per-step numbers beside the reference's.
//
//   moe_step_1024_gh200 [path to moe-training-step-1024-gpus.json]
#include <napkin/catalog/clusters.hpp>
#include <napkin/collectives.hpp>
#include <napkin/compute.hpp>
#include <napkin/io/reference_schedule.hpp>
#include <napkin/layer_map.hpp>
#include <napkin/model.hpp>
#include <napkin/optimizer.hpp>
#include <napkin/schedule.hpp>
#include <napkin/training.hpp>

#include <cmath>
#include <cstdio>
#include <string>

using namespace napkin;

namespace {
// The reference's model (its "model" block); it gives no head count: 16 heads of 128 assumed.
constexpr TransformerShape moe{.name = "reference-moe", .layers = 45, .hidden = 2048, .ffn = 768, .heads = 16,
                               .kv_heads = 16, .vocabulary = 131072, .experts = 128, .experts_per_token = 7,
                               .expert_ffn = 768, .shared_experts = 1, .shared_expert_ffn = 768};
constexpr long long sequence = 4096, micro_batch = 2, ep = 4, dp = 256, expert_dp = 64;
constexpr double mb_tokens = sequence * micro_batch;  // 8,192 per micro-batch per GPU
constexpr double bf16 = 2.0, fp32 = 4.0;

struct Row {
    const char* what;
    double napkin_ms, reference_ms;
    const char* why;  // the assumption that differs, printed when more than 15 % apart
};

void print(const Row& r) {
    const double ratio = r.napkin_ms / r.reference_ms;
    std::printf("  %-34s %10.3f %10.3f  %+6.0f%%\n", r.what, r.napkin_ms, r.reference_ms, 100 * (ratio - 1));
    if (std::abs(ratio - 1) > 0.15) std::printf("      -> %s\n", r.why);
}

double op_ms(const nlohmann::json& ops, const char* name) {
    for (const auto& op : ops)
        if (op.at("op") == name) return 1e3 * (op.at("end").get<double>() - op.at("start").get<double>());
    return 0.0;
}
}  // namespace

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : "tests/data/moe-training-step-1024-gpus.json";
    std::ifstream file(path);
    if (!file) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        return 2;
    }
    const nlohmann::json ref_json = nlohmann::json::parse(file);
    const io::ReferenceSchedule ref = io::parse_reference_schedule(ref_json);
    const Node node = catalog::gh200_quad;
    const Gpu& gpu = node.gpu;
    const LayerMap map = parse_layer_map("1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45", moe.layers, 4);

    std::printf("The reference MoE: %lld layers, h %lld, %lld experts of %lld (top-%lld) + %lld shared, "
                "vocabulary %lld\n",
                moe.layers, moe.hidden, moe.experts, moe.expert_ffn, moe.experts_per_token, moe.shared_experts,
                moe.vocabulary);
    std::printf("  %.2f B weights, %.2f B active per token (16 heads assumed)\n", count(parameter_count(moe)) / 1e9,
                count(active_parameter_count(moe)) / 1e9);
    std::printf("On %lld x %s (%lld GPUs): %s pairs at %.0f GB/s each way, %s at %.0f GB/s per GPU\n\n", 256LL,
                std::string(node.name).c_str(), 256 * node.gpus, std::string(node.intra.name).c_str(),
                node.intra.bandwidth.value() / 1e9, std::string(node.inter.name).c_str(),
                node.inter.bandwidth.value() / 1e9);

    // --- Part 1: one MoE layer, one micro-batch, one GPU -------------------------------------------
    // training/ops.hpp's layer_ops under the flat model: every GEMM at compute.hpp's fitted share of peak
    // (0.677), element-wise work at the memory bandwidth, the all-to-all by collectives.hpp.
    const Parallelism layout{.tp = 1, .pp = 4, .dp = dp, .ep = ep, .virtual_stages = 2, .micro_batch = micro_batch,
                             .global_batch = 4096, .sequence = sequence, .sharding = Sharding::distributed,
                             .flash_attention = true, .gradients = DType::fp32};
    const Cluster cluster = cluster_of(node, 256);
    TrainingOptions flat;
    flat.compute_model = ComputeModel::flat;
    flat.causal = true;
    flat.layer_map = &map;
    const LayerOps flat_layer = layer_ops(moe, cluster, layout, flat);
    const auto op_of = [](const LayerOps& layer, const char* name) {
        for (std::size_t i = 0; i < layer.size; ++i)
            if (layer.ops[i].op == name) return layer.ops[i];
        return TrainingOp{};
    };
    const double rate = gpu.peak_flops.value() * default_efficiency.peak_share;
    const double h = count(moe.hidden);
    const double all_to_all_s = op_of(flat_layer, "dispatch all-to-all").forward.value();
    const nlohmann::json& fwd = ref_json.at("perLayer").at("forward");
    const nlohmann::json& bwd = ref_json.at("perLayer").at("backward");
    std::printf("Part 1: one MoE layer, one micro-batch (%.0f tokens), one GPU, the flat model; ms\n", mb_tokens);
    std::printf("  %-34s %10s %10s  %7s\n", "op", "napkin", "reference", "napkin");
    const char* dense_fit = "napkin prices it at its dense fit (67.7% of peak, Megatron A100 runs); the "
                            "reference's kernel runs slower";
    print({"attention, forward", 1e3 * op_of(flat_layer, "attention").forward.value(), op_ms(fwd, "attention"),
           dense_fit});
    print({"router, forward", 1e3 * op_of(flat_layer, "router").forward.value(), op_ms(fwd, "router and permute"),
           "napkin's router is its GEMM alone; the permute is in napkin's element-wise row"});
    const char* one_link = "collectives.hpp's all-to-all sends 3/4 of the buffer through one 150 GB/s pair link in "
                           "n - 1 steps; the reference's uses the three pair links at once";
    print({"dispatch all-to-all", 1e3 * all_to_all_s, op_ms(fwd, "dispatch all-to-all"), one_link});
    print({"experts (7 routed + 1 shared), fwd",
           1e3 * (op_of(flat_layer, "routed experts").forward + op_of(flat_layer, "shared experts").forward).value(),
           op_ms(fwd, "experts"),
           "expert GEMMs: napkin prices the 768-wide grouped GEMMs like dense ones (67.7% of peak); the "
           "reference's run at about 28%"});
    print({"combine all-to-all", 1e3 * op_of(flat_layer, "combine all-to-all").forward.value(),
           op_ms(fwd, "combine all-to-all"), one_link});
    print({"combine all-to-all, backward", 1e3 * op_of(flat_layer, "combine all-to-all").backward.value(),
           op_ms(bwd, "combine all-to-all, backward"), "as forward: the same bytes back over the same links"});
    print({"dispatch all-to-all, backward", 1e3 * op_of(flat_layer, "dispatch all-to-all").backward.value(),
           op_ms(bwd, "dispatch all-to-all, backward"), "as forward: the same bytes back over the same links"});
    std::printf("  %-34s %10.3f %10s\n      (norms, activation, permute and unpermute at %.0f GB/s)\n",
                "element-wise, forward", 1e3 * op_of(flat_layer, "element-wise").forward.value(), "-",
                gpu.memory_bandwidth.value() / 1e9);
    // Backward: input and weight gradients, twice the forward's matrix work (Narayanan et al. 2021 Sec. 5.1).
    const double forward_s = flat_layer.forward().value();
    const double backward_s = flat_layer.backward().value();
    const double ref_forward = op_ms(fwd, "unpermute") > 0 ? 1e3 * fwd.back().at("end").get<double>() : 0.0;
    const double ref_backward = 1e3 * bwd.back().at("end").get<double>();
    print({"layer forward", 1e3 * forward_s, ref_forward, "the sum of the rows above"});
    print({"layer backward", 1e3 * backward_s, ref_backward, "the same assumptions, twice the matrix work"});

    // --- The step's collectives ------------------------------------------------------------------
    std::printf("\nThe step's collectives\n");
    const Bytes send = bytes(mb_tokens * h * bf16);  // one micro-batch's hidden states
    const double send_s = point_to_point(send, node.inter, nccl::ring_ll_base_latency).total().value();
    std::printf("  pipeline send: %.2f MB (8,192 tokens x 2048 x bf16) over %s\n", send.value() / 1e6,
                std::string(node.inter.name).c_str());
    print({"pipeline send", 1e3 * send_s, 1e3 * (ref.sends.front().end - ref.sends.front().start).value(),
           "napkin's Slingshot-11 runs at its 200 Gb/s line rate"});
    // A GPU's weights of one layer: the dense part (attention, shared expert, router, norms) shared by all
    // 256 data-parallel copies, its 32 experts by the 64 expert-parallel copies; both over the NICs.
    const double dense_weights = count(layer_weights(moe) - moe.experts * feed_forward_weights(moe, moe.expert_ffn));
    const double local_experts = count(moe.experts / ep * feed_forward_weights(moe, moe.expert_ffn));
    const auto gather_s = [&](double layers, double bytes_per_weight) {
        return all_gather(bytes(layers * dense_weights * bytes_per_weight), dp, node.inter).total().value() +
               all_gather(bytes(layers * local_experts * bytes_per_weight), expert_dp, node.inter).total().value();
    };
    const auto stage_ms = [&](long long stage, long long chunk) {
        const double layers = chunk < 0 ? count(map.stage_layers(stage)) : count(map.layers(stage, chunk));
        return layers;
    };
    const auto sync = [&](long long stage, SyncKind kind, std::optional<long long> chunk) {
        for (const io::ReferenceSync& s : ref.syncs[static_cast<std::size_t>(stage)])
            if (s.kind == kind && s.chunk == chunk) return 1e3 * (s.end - s.start).value();
        return 0.0;
    };
    print({"parameter all-gather, stage 2 (bf16)", 1e3 * gather_s(stage_ms(1, -1), bf16),
           sync(1, SyncKind::param_all_gather, std::nullopt),
           "napkin's rings send every byte it counts at the NIC's 25 GB/s; the reference moves a stage's "
           "weights faster or counts fewer (its attention shape is not given: 16 heads assumed)"});
    print({"grad reduce-scatter, stage 2 chunk 1", 1e3 * gather_s(stage_ms(1, 0), fp32),
           sync(1, SyncKind::grad_reduce_scatter, 0),
           "fp32 gradients of half the layers, the same bytes as the all-gather: the same assumption"});
    // Muon: each of the 256 data-parallel GPUs of a stage orthogonalises 1/256 of the stage's matrices.
    const double muon_s =
        muon_step_flops(moe) / 4.0 / count(dp) / rate;  // a quarter of the model per stage
    print({"optimizer step (Muon)", 1e3 * muon_s, sync(0, SyncKind::optimizer, std::nullopt),
           "napkin counts only Newton-Schulz at the matrix rate; the reference's step also reads and writes "
           "the weights, momentum and gradients"});

    // --- Part 2: the step from napkin's own per-layer times ---------------------------------------
    const double head_ms = 1e3 * (2 * mb_tokens * count(moe.vocabulary) * h / rate);  // the LM head's GEMM
    ScheduleTimes mine = ScheduleTimes::per_layer(ref.shape, map.layers_per_chunk(),
                                                  {seconds(forward_s), seconds(backward_s)}, {},
                                                  {milliseconds(head_ms), milliseconds(2 * head_ms)}, seconds(send_s));
    mine.all_to_all.clear();
    for (long long n : map.layers_per_chunk())
        mine.all_to_all.push_back({seconds(count(n) * 2 * all_to_all_s), seconds(count(n) * 2 * all_to_all_s)});
    mine.pair_hidden = 1.0;  // napkin's assumption: a pair hides all of one pass's all-to-all behind the other
    for (long long r = 0; r < 4; ++r) {
        mine.ends.param_all_gather.push_back(seconds(gather_s(stage_ms(r, -1), bf16)));
        mine.ends.first_pass_after.push_back(seconds(gather_s(1, bf16)));
        for (long long c = 0; c < 2; ++c) mine.ends.grad_reduce_scatter.push_back(seconds(gather_s(stage_ms(r, c), fp32)));
    }
    mine.ends.optimizer = seconds(muon_s);
    const Interleaved schedule{.extra_warmup = 1, .paired = true};
    const Timeline t = simulate(schedule, ref.shape, mine);
    const double step_tokens = count(ref.shape.microbatches) * mb_tokens * count(dp);
    std::printf("\nPart 2: the step simulated from napkin's per-layer times (interleaved 1F1B, paired F&B)\n");
    print({"step", 1e3 * t.step_time().value(), 1e3 * ref.step.value(),
           "the per-op differences above, chiefly the expert GEMMs and attention"});
    std::printf("  tokens per second: napkin %.3g, reference %.3g (%.0f tokens per step)\n",
                step_tokens / t.step_time().value(), step_tokens / ref.step.value(), step_tokens);
    std::printf("  pipeline idle: napkin %.1f%%, reference %.1f%%\n", 100 * t.idle_fraction(),
                100 * ref.idle_fraction);

    // --- Part 3: the reference's own op and send times through napkin's simulator -----------------
    const ScheduleTimes theirs = io::reference_schedule_times(ref);
    const Timeline u = simulate(io::reference_schedule_kind(ref), ref.shape, theirs);
    double worst = 0.0;
    for (long long r = 0; r < 4; ++r)
        for (std::size_t i = 0; i < u.stage(r).size(); ++i)
            worst = std::max({worst, std::abs((u.stage(r)[i].start - ref.stages[static_cast<std::size_t>(r)][i].start).value()),
                              std::abs((u.stage(r)[i].end - ref.stages[static_cast<std::size_t>(r)][i].end).value())});
    std::printf("\nPart 3: the reference's own op and send times through napkin's simulator\n");
    std::printf("  step %.6f s (reference %.6f s), idle %.6f (reference %.6f)\n", u.step_time().value(),
                ref.step.value(), u.idle_fraction(), ref.idle_fraction);
    std::printf("  every pass within %.2f us of the reference; a pair hides %.4f of its all-to-all (fitted)\n",
                1e6 * worst, theirs.pair_hidden);

    // --- Part 4: the layout through evaluate_training (the GEMM model, per-op times) ---------------
    TrainingOptions options;
    options.optimizer = Optimizer::muon;
    options.causal = true;
    options.overlap_dp = true;            // the reference reduce-scatters each chunk's gradients under what follows
    options.overlap_param_gather = true;  // and gathers the weights before the first forward, overlapped
    options.layer_map = &map;
    const TrainingEstimate e = evaluate_training(moe, cluster, layout, options);
    const LayerOps layer = layer_ops(moe, cluster, layout, options);
    std::printf("\nPart 4: the layout through evaluate_training (GEMM model, expert DP %lld); ms\n",
                expert_data_parallel(layout));
    std::printf("  %-34s %10s %10s  %7s\n", "op", "napkin", "reference", "napkin");
    const auto op = [&](const char* name) { return op_of(layer, name); };
    const char* gemm_share = "the GEMM model's Hopper share (48.5% of peak, fitted to H100 runs) after tile and "
                             "wave quantization; the reference's kernels run slower";
    print({"attention, forward", 1e3 * op("attention").forward.value(), op_ms(fwd, "attention"), gemm_share});
    print({"routed + shared experts, forward",
           1e3 * (op("routed experts").forward + op("shared experts").forward).value(), op_ms(fwd, "experts"),
           "grouped GEMMs of 2 · 8,192 · 7 / 128 = 448 rows per expert at the fitted dense share; the "
           "reference's expert GEMMs run at about 0.6 of it"});
    print({"dispatch all-to-all", 1e3 * op("dispatch all-to-all").forward.value(), op_ms(fwd, "dispatch all-to-all"),
           "collectives.hpp's all-to-all sends 3/4 of the 235 MB buffer through one 150 GB/s link in n - 1 "
           "steps; the reference's uses the three pair links at once, 1.7x faster"});
    print({"layer forward", 1e3 * layer.forward().value(), ref_forward,
           "the sum of the rows above, with element-wise work at the memory bandwidth"});
    print({"layer backward", 1e3 * layer.backward().value(), ref_backward,
           "twice the forward's matrix work; the reference's backward is 1.8x its forward and its ops slower"});
    print({"step", 1e3 * e.step.value(), 1e3 * ref.step.value(),
           "no pairing of F and B and the closed-form bubble of the slowest stage (stage 4: 10 layers and the "
           "LM head) against the reference's simulated paired schedule"});
    std::printf("  step parts (ms): compute %.1f, ep %.1f, pp %.1f, bubble %.1f, dp %.1f, optimizer %.1f\n",
                1e3 * e.breakdown.compute.value(), 1e3 * e.breakdown.ep.value(), 1e3 * e.breakdown.pp.value(),
                1e3 * e.breakdown.bubble.value(), 1e3 * e.breakdown.dp.value(), 1e3 * e.breakdown.optimizer.value());
    std::printf("  tokens per second: napkin %.3g, reference %.3g; MFU %.1f%%\n", e.tokens_per_second.value(),
                step_tokens / ref.step.value(), 100 * e.mfu);
    std::printf("  memory per GPU (fullest stage, Muon): %.1f GB\n", e.memory.total().value() / 1e9);
    return 0;
}
