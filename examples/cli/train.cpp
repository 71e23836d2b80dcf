// napkin train — memory per GPU and the step time of one training layout.
#include "command.hpp"
#include "common.hpp"
#include "layer_map_flags.hpp"
#include "run_flags.hpp"
#include "training_flags.hpp"

#include <napkin/catalog/clusters.hpp>
#include <napkin/training.hpp>

#include <cstdio>
#include <optional>

namespace napkin::cli {
namespace {

template <class T, class Parse>
T parse_choice(const std::string& flag, const std::string& text, Parse parse, const char* choices) {
    if (auto value = parse(text)) return *value;
    throw napkin::invalid_argument(flag + " \"" + text + "\": must be one of " + choices);
}

nlohmann::json stages_json(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                           const TrainingOptions& o) {
    nlohmann::json out = nlohmann::json::array();
    if (o.layer_map == nullptr) return out;
    for_each_stage(m, c, par, o, *o.layer_map, [&](long long s, const StageEstimate& e) {
        out.push_back({{"stage", s + 1},
                       {"layers", e.layers.total()},
                       {"dense_layers", e.layers.dense},
                       {"moe_layers", e.layers.moe},
                       {"microbatch_s", e.microbatch.total().value()},
                       {"forward_s", stage_times(e.microbatch, par).forward.value()},
                       {"backward_s", stage_times(e.microbatch, par).backward.value()},
                       {"parameters_per_gpu", e.parameters.total()},
                       {"memory_bytes", e.memory.total().value()},
                       {"dp_s", e.dp.value()},
                       {"optimizer_s", e.optimizer.value()}});
    });
    return out;
}

nlohmann::json ops_json(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                        const TrainingOptions& o) {
    nlohmann::json out = nlohmann::json::array();
    const auto add = [&](std::string_view layer, const LayerOps& ops) {
        for (std::size_t i = 0; i < ops.size; ++i)
            out.push_back({{"layer", layer},
                           {"op", ops.ops[i].op},
                           {"forward_s", ops.ops[i].forward.value()},
                           {"backward_s", ops.ops[i].backward.value()},
                           {"bytes", ops.ops[i].sent.value()}});
    };
    if (m.experts > 0) add("moe", layer_ops(m, c, par, o));
    if (moe_layers(m) < m.layers) add("dense", layer_ops(m, c, par, o, true));
    return out;
}

nlohmann::json collectives_json(const TransformerShape& m, const Cluster& c, const Parallelism& par,
                                const TrainingOptions& o) {
    StageParameters params = parameters_per_gpu(m, par);
    double layers = count(m.layers / par.pp), moe = m.experts > 0 ? layers : 0.0;
    if (o.layer_map != nullptr) {
        params = {};
        layers = moe = 0.0;
        for_each_stage(m, c, par, o, *o.layer_map, [&](long long, const StageEstimate& e) {
            // The stage with the most weights syncs the most; the one with
            // the most layers makes the most per-layer calls.
            if (e.parameters.total() > params.total()) params = e.parameters;
            layers = std::max(layers, count(e.layers.total()));
            moe = std::max(moe, count(e.layers.moe));
        });
    }
    const StepCollectives list = step_collectives(m, c, par, o, params, layers, moe);
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < list.size; ++i) {
        const StepCollective& x = list.list[i];
        out.push_back({{"name", x.name},
                       {"algorithm", x.algorithm},
                       {"bytes", x.bytes.value()},
                       {"group", x.group},
                       {"nodes", x.nodes},
                       {"link", x.link},
                       {"calls_per_step", x.calls},
                       {"base_latency_s", o.collective_base_latency.value()},
                       {"time_s", x.time.value()}});
    }
    return out;
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        ModelOptions model;
        GpuOptions gpu;
        NodeOptions node;
        std::string nic = "per-gpu";
        Parallelism par{};
        std::string recompute = "none", zero = "0", schedule = "auto";
        std::string weights = "bf16", grads = "bf16", master = "fp32", moments = "fp32";
        std::string tp_comm = "auto";
        bool overlap_dp = false, no_scatter_gather = false, causal = false;
        bool sequence_parallel = false, no_sequence_parallel = false, flash_attention = false,
             no_flash_attention = false;
        EfficiencyModel efficiency = default_efficiency;
        std::string compute_model = "gemm";
        FrameworkFlags framework;
        RunFlags run;
        double fragmentation = 0.0;
        bool no_memory_allowances = false;
        bool json = false;
        std::string optimizer = "adam";
        LayerMapOptions uneven;
    };
    auto o = make_options<Options>();
    o->gpu.name = "a100-80gb-sxm";
    auto* sub = app.add_subcommand("train", "memory per GPU and step time of a TP x PP x DP (x EP) training run");
    add_model_options(sub, o->model);
    add_gpu_options(sub, o->gpu);
    add_node_options(sub, o->node, "catalog link of one NIC between nodes (default: the GPU's usual one)");
    sub->add_option("--nic", o->nic, "per-gpu (one NIC per GPU) or per-node (one shared NIC)");
    sub->add_option("--tp", o->par.tp, "tensor-parallel size");
    sub->add_option("--pp", o->par.pp, "pipeline stages");
    sub->add_option("--dp", o->par.dp, "data-parallel copies");
    sub->add_option("--ep", o->par.ep, "expert-parallel size (divides dp x cp)");
    sub->add_option("--cp", o->par.cp, "context-parallel size (splits the sequence; ring attention)");
    sub->add_option("--vp", o->par.virtual_stages, "virtual stages (model chunks) per pipeline rank");
    sub->add_option("--schedule", o->schedule,
                    "pipeline schedule: 1f1b, interleaved, zb-h1, zb-h2, dualpipe, dualpipev or gpipe "
                    "(1f1b, interleaved when --vp > 1)");
    sub->add_option("--micro-batch", o->par.micro_batch, "sequences per micro-batch");
    sub->add_option("--global-batch", o->par.global_batch, "sequences per optimizer step");
    sub->add_option("--seq-len", o->par.sequence,
                    "tokens per sequence (the model's context up to 8192; 2048 when its config states none)");
    auto* sp_on = sub->add_flag("--sequence-parallel", o->sequence_parallel,
                                "Megatron sequence parallelism (on by default when --tp > 1)");
    sub->add_flag("--no-sequence-parallel", o->no_sequence_parallel, "no sequence parallelism")->excludes(sp_on);
    sub->add_option("--recompute", o->recompute, "activation recomputation: none, selective or full");
    sub->add_option("--zero", o->zero, "ZeRO stage 0, 1, 2, 3, or distributed (Megatron's distributed optimizer)");
    auto* flash_on = sub->add_flag("--flash-attention", o->flash_attention,
                                   "fused attention: no s x s scores kept or moved through memory (the default)");
    sub->add_flag("--no-flash-attention", o->no_flash_attention, "attention that keeps the s x s scores")
        ->excludes(flash_on);
    sub->add_option("--weight-dtype", o->weights, "bf16, fp16, fp32 or fp8 (bf16)");
    sub->add_option("--grad-dtype", o->grads, "bf16 or fp32 (bf16; Megatron keeps fp32)");
    sub->add_option("--master-dtype", o->master, "fp32 or none (fp32)");
    sub->add_option("--moment-dtype", o->moments, "each Adam moment: fp32 or bf16 (fp32)");
    sub->add_flag("--overlap-dp", o->overlap_dp, "overlap the gradient sync with the last backward pass");
    sub->add_option("--tp-comm", o->tp_comm,
                    "tensor-parallel collectives: auto, all-reduce or rs-ag (reduce-scatter + all-gather; "
                    "auto: rs-ag with --sequence-parallel, all-reduce without)");
    sub->add_flag("--no-scatter-gather", o->no_scatter_gather,
                  "pipeline sends carry b x s x h, not b x s x h / tp (Megatron's scatter/gather off)");
    sub->add_flag("--causal", o->causal, "count the attention core at half: a kernel that skips masked blocks");
    sub->add_option("--peak-share", o->efficiency.peak_share,
                    "efficiency model r: share of peak the matrix products reach (0.677)");
    sub->add_option("--half-width", o->efficiency.half_width,
                    "efficiency model n_1/2: per-GPU width h/tp at which half of r is reached (0: none)");
    sub->add_option("--memory-passes", o->efficiency.memory_passes,
                    "efficiency model: element-wise traffic per forward pass, in activation bytes (2.18)");
    sub->add_option("--compute-model", o->compute_model,
                    "gemm (every GEMM from its shape, the default) or flat (one share of peak: the model of "
                    "--peak-share, --half-width, --memory-passes, which select it)");
    add_framework_flags(sub, o->framework);
    sub->add_option("--fragmentation", o->fragmentation,
                    "caching-allocator fragmentation as a share of the activations (0; max reserved / max "
                    "allocated - 1 of your runs)");
    sub->add_flag("--no-memory-allowances", o->no_memory_allowances,
                  "memory of the papers' model only: no CUDA context, NCCL buffers or fp32 logits");
    add_layer_map_flags(sub, o->uneven, "; its stages must number --pp, its chunks --vp", "");
    sub->add_option("--optimizer", o->optimizer, "adam or muon (adam)");
    add_run_flags(sub, o->run);
    add_json_flag(sub, o->json);
    sub->callback([o, sub] {
        const TransformerShape model = resolve_model(o->model);
        Parallelism par = o->par;
        // Defaults as training runs now (README, "train"): the model's context up to 8,192 tokens,
        // flash attention, and sequence parallelism wherever there is tensor parallelism (unless
        // --tp-comm all-reduce asks for the collectives it cannot use).
        if (sub->count("--seq-len") == 0) par.sequence = default_sequence(model);
        par.flash_attention = !o->no_flash_attention;
        par.sequence_parallel =
            o->sequence_parallel || (!o->no_sequence_parallel && par.tp > 1 && o->tp_comm != "all-reduce");
        constexpr const char* dtypes = "none, fp8, bf16, fp16, fp32";
        par.recompute = parse_choice<Recompute>("--recompute", o->recompute, parse_recompute, "none, selective, full");
        par.schedule = parse_choice<ScheduleKind>("--schedule", o->schedule, parse_schedule_kind,
                                                  "1f1b, interleaved, zb-h1, zb-h2, dualpipe, dualpipev, gpipe");
        par.sharding = parse_choice<Sharding>("--zero", o->zero, parse_sharding, "0, 1, 2, 3, distributed");
        par.weights = parse_choice<DType>("--weight-dtype", o->weights, parse_dtype, dtypes);
        par.gradients = parse_choice<DType>("--grad-dtype", o->grads, parse_dtype, dtypes);
        par.master = parse_choice<DType>("--master-dtype", o->master, parse_dtype, dtypes);
        par.moments = parse_choice<DType>("--moment-dtype", o->moments, parse_dtype, dtypes);
        require_at_least_one("--gpus-per-node", o->node.gpus_per_node);
        require_at_least_one("--tp", par.tp);
        require_at_least_one("--pp", par.pp);
        require_at_least_one("--dp", par.dp);
        require_at_least_one("--cp", par.cp);
        if (o->nic != "per-gpu" && o->nic != "per-node")
            throw napkin::invalid_argument("--nic \"" + o->nic + "\": must be per-gpu or per-node");
        // The cluster is as large as the layout: whole nodes, or part of one.
        const long long total = gpus(par);
        Node node = resolve_node(o->gpu, o->node, o->node.gpus_per_node,
                                 o->nic == "per-gpu" ? Nic::per_gpu : Nic::per_node);
        node.gpus = gpus_in_each_node("tp × cp × pp × dp", total, o->node);
        const Cluster cluster = cluster_of(node, total / node.gpus);
        const bool flat_flags = sub->count("--peak-share") + sub->count("--half-width") + sub->count("--memory-passes") > 0;
        if (o->compute_model != "gemm" && o->compute_model != "flat")
            throw napkin::invalid_argument("--compute-model \"" + o->compute_model + "\": must be gemm or flat");
        require_non_negative("--fragmentation", o->fragmentation);
        require(o->fragmentation <= max_fragmentation, "--fragmentation", o->fragmentation,
                "must be at most " + format_fixed(max_fragmentation, 0) + " (a share of the activations)");
        MemoryAllowances allowances = o->no_memory_allowances ? no_memory_allowances : default_memory_allowances;
        allowances.fragmentation = o->fragmentation;
        const std::optional<LayerMap> map =
            resolve_layer_map(*sub, o->uneven, model.layers, par.pp, par.virtual_stages, "--vp");
        TrainingOptions options{
            .efficiency = o->efficiency,
            .compute_model = flat_flags || o->compute_model == "flat" ? ComputeModel::flat : ComputeModel::gemm,
            .causal = o->causal,
            .pipeline_scatter_gather = !o->no_scatter_gather,
            .overlap_dp = o->overlap_dp,
            .tp_communication = parse_choice<TpCommunication>("--tp-comm", o->tp_comm, parse_tp_communication,
                                                              "auto, all-reduce, rs-ag"),
            .memory_allowances = allowances,
            .optimizer = optimizer_from_name(o->optimizer),
            .layer_map = map ? &*map : nullptr};
        apply_framework_flags(o->framework, node.gpu, options);
        const TrainingEstimate e = evaluate_training(model, cluster, par, options);
        const std::optional<std::string> assumed = gpu_assumed_from(*sub, o->gpu);
        const StepBreakdown& b = e.breakdown;
        // The whole run (--train-tokens or --steps): time, dollars, energy, goodput.
        const RunQuery run_query = run_query_from_flags(o->run, node.gpu, total, checkpoint_bytes(model, par));
        std::optional<RunCost> run;
        double steps = 0;
        if (run_requested(o->run)) {
            steps = run_steps(o->run, tokens(count(par.global_batch) * count(par.sequence)));
            run = run_of(o->run, run_query, steps, e.step);
        }
        if (o->json) {
            nlohmann::json j{{"schema", "napkin.train/1"},
                        {"model", model.name},
                        {"gpu", node.gpu.name},
                        {"gpus", total},
                        {"nodes", cluster.nodes},
                        {"gpus_per_node", node.gpus},
                        {"intra_link", link_json(node.intra)},
                        {"inter_link", link_json(node.inter)},
                        {"nic", to_string(node.nic)},
                        {"layout", layout_json(par)},
                        {"options", {{"overlap_dp", options.overlap_dp},
                                     {"causal", options.causal},
                                     {"pipeline_scatter_gather", options.pipeline_scatter_gather},
                                     {"tp_communication", to_string(options.tp_communication)},
                                     {"peak_share", options.efficiency.peak_share},
                                     {"half_width", options.efficiency.half_width},
                                     {"memory_passes", options.efficiency.memory_passes},
                                     {"compute_dtype", to_string(options.compute_dtype)},
                                     {"overlap_tp", options.overlap_tp},
                                     {"overlap_param_gather", options.overlap_param_gather},
                                     {"fsdp_prefetch", options.fsdp_prefetch},
                                     {"recompute_early_stop", options.recompute_early_stop},
                                     {"gradient_reduce_dtype",
                                      to_string(options.gradient_reduce_dtype == DType::none
                                                    ? par.gradients
                                                    : options.gradient_reduce_dtype)}}},
                        {"schedule", to_string(resolved_schedule(par))},
                        {"tp_communication", to_string(resolved_tp_communication(par, options))},
                        {"compute_model", to_string(e.compute_model)},
                        {"memory", training_memory_json(e, node.gpu)},
                        {"memory_bytes", training_memory_bytes_json(e, node.gpu)},
                        {"step_s", e.step.value()},
                        {"breakdown", step_breakdown_json(b)},
                        {"breakdown_s", step_breakdown_json(b)},
                        {"microbatches", microbatches(par)},
                        {"tokens_per_s", e.tokens_per_second.value()},
                        {"mfu", e.mfu},
                        {"mfu_bf16_peak", e.mfu_bf16_peak},
                        {"mfu_fp8_peak", node.gpu.fp8_flops.value() > 0.0 ? nlohmann::json(e.mfu_fp8_peak) : nlohmann::json()},
                        {"hfu", e.hfu},
                        {"optimizer", to_string(options.optimizer)},
                        {"expert_dp", expert_data_parallel(par)},
                        {"stages", stages_json(model, cluster, par, options)},
                        {"ops", ops_json(model, cluster, par, options)},
                        {"collectives", collectives_json(model, cluster, par, options)}};
            if (run) j["run"] = io::json::run(*run, run_query, steps);
            if (assumed) j["gpu_assumed_from"] = *assumed;
            print_json(j);
            return;
        }
        // In 80 columns: a head line, then each part on its own indented lines.
        std::printf("%s on %s x %s (%s nodes), tp %lld pp %lld dp %lld%s\n", std::string(model.name).c_str(),
                    grouped(total).c_str(), std::string(node.gpu.name).c_str(), grouped(cluster.nodes).c_str(),
                    par.tp, par.pp, par.dp, par.cp > 1 ? (" cp " + std::to_string(par.cp)).c_str() : "");
        std::printf("  %s micro-batches of %lld, %s schedule\n", grouped(microbatches(par)).c_str(), par.micro_batch,
                    std::string(to_string(resolved_schedule(par))).c_str());
        std::printf("  seq %s, flash %s, sp %s, recompute %s, zero %s\n", grouped(par.sequence).c_str(),
                    par.flash_attention ? "on" : "off", par.sequence_parallel ? "on" : "off",
                    std::string(to_string(par.recompute)).c_str(), std::string(to_string(par.sharding)).c_str());
        // Longer than the model was built for: context extension, priced as asked but said.
        if (model.max_position_embeddings > 0 && par.sequence > model.max_position_embeddings)
            std::printf("%s\n", wrap_line("  note: seq " + grouped(par.sequence) + " is beyond the model's " +
                                           grouped(model.max_position_embeddings) +
                                           " positions (context extension)")
                                     .c_str());
        std::printf("%s\n", wrap_line(links_line(o->gpu, o->node, node)).c_str());
        if (assumed) std::printf("%s\n", wrap_line(gpu_assumed_line(*assumed, node.gpu, o->gpu)).c_str());
        std::printf("memory per GPU: %s of %s usable (%s)\n", to_string(e.memory.total()).c_str(),
                    to_string(usable_memory(node.gpu)).c_str(), e.fits ? "fits" : "does not fit");
        std::printf("%s\n", wrap_line("  weights " + to_string(e.memory.weights) + ", gradients " +
                                      to_string(e.memory.gradients) + ", optimizer " + to_string(e.memory.optimizer) +
                                      ", activations " + to_string(e.memory.activations) + ", CUDA context " +
                                      to_string(e.memory.cuda_context) + ", NCCL buffers " +
                                      to_string(e.memory.nccl_buffers) + ", fp32 logits " +
                                      to_string(e.memory.loss_logits) + ", fragmentation " +
                                      to_string(e.memory.fragmentation)).c_str());
        std::printf("step %s\n", to_string(e.step).c_str());
        std::printf("%s\n", wrap_line("  compute " + to_string(b.compute) + ", recompute " + to_string(b.recompute) +
                                      ", tp " + to_string(b.tp) + ", pp " + to_string(b.pp) + ", bubble " +
                                      to_string(b.bubble) + ", dp " + to_string(b.dp) + ", ep " + to_string(b.ep) +
                                      ", cp " + to_string(b.cp) + ", optimizer " + to_string(b.optimizer)).c_str());
        std::printf("%s tokens/s, MFU %.1f%%, HFU %.1f%%\n", grouped(e.tokens_per_second.value()).c_str(), 100 * e.mfu,
                    100 * e.hfu);
        if (run) {
            std::printf("%s\n", wrap_line(run_line(*run, run_query)).c_str());
            if (run->failures_modelled) std::printf("%s\n", wrap_line(checkpoint_line(*run)).c_str());
        }
        if (options.compute_dtype == DType::fp8)
            printf_wrapped("  FP8 GEMMs: MFU %.1f%% of the BF16 peak, %.1f%% of the FP8 peak\n", 100 * e.mfu_bf16_peak,
                           100 * e.mfu_fp8_peak);
        if (model.experts > 0)
            printf_wrapped("experts: ep %lld, expert data-parallel %lld (dense gradients over dp x cp = %lld)\n", par.ep,
                           expert_data_parallel(par), par.dp * par.cp);
        if (options.optimizer != Optimizer::adam)
            std::printf("optimizer: %s\n", std::string(to_string(options.optimizer)).c_str());
        if (map)
            for_each_stage(model, cluster, par, options, *map, [](long long s, const StageEstimate& x) {
                printf_wrapped("stage %lld: %lld layers (%lld dense, %lld MoE), micro-batch %s, memory %s\n", s + 1,
                            x.layers.total(), x.layers.dense, x.layers.moe, to_string(x.microbatch.total()).c_str(),
                            to_string(x.memory.total()).c_str());
            });
        if (e.compute_model == ComputeModel::flat && options.compute_model == ComputeModel::gemm)
            std::printf("%s\n", wrap_line("flat compute model: " + std::string(node.gpu.name) +
                                          " lacks the SM count or architecture the GEMM model needs").c_str());
        else
            std::printf("compute model: %s\n", std::string(to_string(e.compute_model)).c_str());
    });
}

}  // namespace napkin::cli
