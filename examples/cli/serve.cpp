// napkin serve — the serving model from the command line: TTFT, TPOT,
// end-to-end latency, throughput and memory of N chats, and the
// throughput–latency frontier over a sweep of concurrencies.
#include "command.hpp"
#include "serve_simulation.hpp"
#include "serving_profile.hpp"
#include "common.hpp"
#include "run_flags.hpp"
#include "serving_flags.hpp"

#include <napkin/io/svg.hpp>
#include <napkin/run_cost.hpp>
#include <napkin/serving.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace napkin::cli {
namespace {

std::vector<long long> parse_sweep(const std::string& text) {
    std::vector<long long> counts;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        std::size_t used = 0;
        long long n = 0;
        try {
            n = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != item.size() || item.empty()) reject("--sweep", text, "\"" + item + "\" is not a whole number");
        require_at_least_one("--sweep", n);
        counts.push_back(n);
    }
    if (counts.empty()) reject("--sweep", text, "give at least one concurrency");
    return counts;
}

nlohmann::json estimate_json(const ServingEstimate& e) {
    const DecodeStep& s = e.step;
    return {{"concurrency", e.workload.concurrency},
            {"ttft_s", e.ttft.value()},
            {"tpot_s", e.tpot.value()},
            {"e2e_s", e.e2e.value()},
            {"queue_s", e.queue.value()},
            {"output_tokens_per_s", e.output_tokens_per_s.value()},
            {"output_tokens_per_s_per_gpu", e.output_tokens_per_s_per_gpu.value()},
            {"output_tokens_per_s_per_user", e.output_tokens_per_s_per_user.value()},
            {"requests_per_s", e.requests_per_s.value()},
            {"max_concurrency", e.max_concurrency},
            {"memory",
             {{"weights", json_bytes(e.memory.weights)},
              {"kv_cache", json_bytes(e.memory.kv_cache)},
              {"activations", json_bytes(e.memory.activations)},
              {"total", json_bytes(e.memory.total())},
              {"usable", json_bytes(e.memory.usable)},
              {"kv_offloaded", json_bytes(e.memory.offloaded)},
              {"host", json_bytes(e.memory.host)},
              {"fits", e.memory.fits()}}},
            {"decode_step",
             {{"weights_read_s", s.weights_read.value()},
              {"kv_read_s", s.kv_read.value()},
              {"kv_offload_s", s.kv_offload.value()},
              {"compute_s", s.compute.value()},
              {"attention_compute_s", s.attention.value()},
              {"kernels_in_turn", s.kernels_in_turn},
              {"tp_s", s.tp.value()},
              {"pp_s", s.pp.value()},
              {"ep_s", s.ep.value()},
              {"overhead_s", s.overhead.value()},
              {"total_s", s.total().value()},
              {"micro_batches", s.micro_batches},
              {"memory_bound", s.memory_bound()}}},
            {"prefill",
             {{"compute_s", e.prefill.compute.value()},
              {"comm_s", e.prefill.comm.value()},
              {"overhead_s", e.prefill.overhead.value()},
              {"passes", e.prefill.passes},
              {"micro_batches", e.prefill.micro_batches}}}};
}

void print_estimate(const ServingEstimate& e) {
    const DecodeStep& s = e.step;
    const ServingMemory& m = e.memory;
    printf_wrapped("memory per GPU: weights %s + KV cache %s + activations %s = %s of %s usable: %s\n",
                to_string(m.weights).c_str(), to_string(m.kv_cache).c_str(), to_string(m.activations).c_str(),
                to_string(m.total()).c_str(), to_string(m.usable).c_str(), m.fits() ? "fits" : "does not fit");
    if (m.host.value() > 0)
        printf_wrapped("KV offload: %s of the cache in host memory (of %s per GPU)\n", to_string(m.offloaded).c_str(),
                       to_string(m.host).c_str());
    // With offload the cache's share in host memory crosses the host link, a third read.
    const std::string kv = to_string(s.kv_read) +
                           (s.kv_offload.value() > 0 ? " + offloaded KV " + to_string(s.kv_offload) + " over the host link" : "");
    if (s.kernels_in_turn) {  // the GEMMs, then the attention (measured kernels): each the longer of read and math
        const Seconds gemm_math = s.compute - s.attention, cache = s.kv_read + s.kv_offload;
        const std::string gemms = s.weights_read >= gemm_math
                                      ? "reading the weights; math " + to_string(gemm_math)
                                      : "math; reading the weights " + to_string(s.weights_read);
        const std::string attention = cache >= s.attention
                                          ? "reading the KV cache" + (s.kv_offload.value() > 0 ? " " + kv : "") +
                                                "; math " + to_string(s.attention)
                                          : "math; reading the KV cache " + kv;
        printf_wrapped("decode step: %s = GEMMs %s (%s) + attention %s (%s) + tp %s + pp %s + ep %s + engine %s\n",
                       to_string(s.total()).c_str(), to_string(std::max(s.weights_read, gemm_math)).c_str(),
                       gemms.c_str(), to_string(std::max(cache, s.attention)).c_str(), attention.c_str(),
                       to_string(s.tp).c_str(), to_string(s.pp).c_str(), to_string(s.ep).c_str(),
                       to_string(s.overhead).c_str());
    } else
        printf_wrapped(
            "decode step: %s = max(weights %s + KV cache %s, compute %s) + tp %s + pp %s + ep %s + engine %s "
            "(%s)\n",
            to_string(s.total()).c_str(), to_string(s.weights_read).c_str(), kv.c_str(), to_string(s.compute).c_str(),
            to_string(s.tp).c_str(), to_string(s.pp).c_str(), to_string(s.ep).c_str(), to_string(s.overhead).c_str(),
            s.memory_bound() ? "memory-bound" : "compute-bound");
    if (s.stages > 1 && s.micro_batches > 1)
        printf_wrapped("pipeline: %lld stages, %lld micro-batches of %lld sequences, one in each stage at once\n",
                       s.stages, s.micro_batches,
                       micro_batch_sequences(sequences_per_group(e.workload.concurrency, e.layout), s.micro_batches));
    else if (s.stages > 1)
        printf_wrapped("pipeline: %lld stages in turn, one micro-batch\n", s.stages);
    printf_wrapped("prefill: %s in %lld pass(es) = compute %s + communication %s + engine %s\n",
                to_string(e.prefill.total()).c_str(), e.prefill.passes, to_string(e.prefill.compute).c_str(),
                to_string(e.prefill.comm).c_str(), to_string(e.prefill.overhead).c_str());
    printf_wrapped("TTFT %s, TPOT %s, end to end %s\n", to_string(e.ttft).c_str(), to_string(e.tpot).c_str(),
                to_string(e.e2e).c_str());
    printf_wrapped("output: %.1f tokens/s (%.1f per GPU, %.1f per user), %.3f requests/s\n",
                e.output_tokens_per_s.value(), e.output_tokens_per_s_per_gpu.value(),
                e.output_tokens_per_s_per_user.value(), e.requests_per_s.value());
}

// The pools' GPUs and, with --disaggregate, the split (none when no split meets the bounds).
struct PoolChoice {
    Gpu prefill_gpu, decode_gpu;
    std::optional<DisaggregatedEstimate> split;
};

// A disaggregated pool's GPU: the catalog's `name` (checked as `flag`), or --gpu's.
Gpu pool_gpu(const char* flag, const std::string& name, const Gpu& gpu, const ServingSetup& setup) {
    if (name.empty()) return gpu;
    const auto found = catalog::find_gpu(name);
    if (!found) not_in_catalog(flag, name, names_of(catalog::gpus));
    if (const std::string_view missing = missing_for(*found, setup.weights); !missing.empty())
        reject(flag, name, "has " + std::string(missing) + " for --weight-dtype " + std::string(to_string(setup.weights)));
    return *found;
}

// " (h100-sxm)" when the two pools run on different GPUs, else nothing.
std::string pool_label(const Gpu& pool, const Gpu& other) {
    return pool.name == other.name ? "" : " (" + std::string(pool.name) + ")";
}

// The split's TTFT, or why it has none: a saturated prefill pool's queue grows without bound.
// `offered`: --arrival-rate's requests/s (0: none).
std::string disaggregated_ttft_text(const DisaggregatedEstimate& split, double offered) {
    if (!std::isinf(split.ttft.value())) return to_string(split.ttft);
    if (offered > 0 && offered > split.goodput().value())
        return "unbounded (--arrival-rate offers more than the split's goodput: the queue grows without end)";
    return "unbounded (the prefill pool runs saturated: bound it with --ttft or give --arrival-rate)";
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        ModelOptions model;
        GpuOptions gpu;
        LinkOptions link;
        NodeOptions node;
        std::optional<double> price;
        std::optional<std::string> power;
        long long tp = 1, pp = 1, ep = 1;
        std::string weight_dtype = "bf16", kv_dtype = "bf16";
        std::string kernels = "measured", profile;
        std::optional<long long> input, output, batch, concurrency;
        std::optional<std::string> concurrency_text;  // a whole number, or max
        std::string sweep;
        std::string svg;
        double arrival_rate = 0;
        long long prefill_chunk = 0;
        std::string decode_attention = "grouped";
        std::string micro_batches = "stages";  // --pipeline-micro-batches
        double expert_skew = 0.0;
        long long disaggregate = 0;
        std::string prefill_gpu, decode_gpu;  // catalog GPUs of the pools (default: --gpu)
        std::optional<std::string> kv_offload, kv_offload_bandwidth;  // with their units
        LatencyTargets targets;
        bool json = false;
        SimulationOptions simulation;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("serve", "serve a model to many users: TTFT, TPOT, throughput, memory and the "
                                            "largest concurrency that fits (continuous or static batching)");
    add_model_options(sub, o->model);
    add_gpu_options(sub, o->gpu);
    add_link_options(sub, o->link);
    add_node_options(sub, o->node,
                     "catalog link of one NIC between nodes, when the layout spans nodes of --gpus-per-node GPUs "
                     "(default: the GPU's usual one; give --link for one link everywhere)");
    describe_serving_node_size(sub);
    sub->add_option("--tp", o->tp, "tensor-parallel GPUs per stage, dividing the heads (1)");
    sub->add_option("--pp", o->pp, "pipeline stages, dividing the layers (1)");
    sub->add_option("--ep", o->ep, "expert-parallel groups of a mixture of experts, dividing the experts (1)");
    sub->add_option("--weight-dtype", o->weight_dtype,
                    "bf16, fp16, fp8, int8 or int4 (group-quantized, 128), nvfp4 or mxfp4 (FP4 tensor cores), "
                    "mxfp6 (FP6 tensor cores) (bf16)");
    sub->add_option("--kv-dtype", o->kv_dtype, "bf16, fp8, int8 or int4 (bf16)");
    sub->add_option("--input-tokens", o->input, "prompt tokens per request (required but with --trace)");
    sub->add_option("--output-tokens", o->output, "generated tokens per request (required but with --trace)");
    sub->add_option("--batch", o->batch, "static batching: B requests start and end together");
    sub->add_option("--concurrency", o->concurrency_text,
                    "continuous batching: N requests always in flight; max: the offline maximum (the simulator with "
                    "every request at once, as --arrival-rate inf)");
    sub->add_option("--sweep", o->sweep,
                    "comma-separated concurrencies (batch sizes with --batch): one row each; alone, continuous "
                    "batching, the first printed in full");
    sub->add_option("--svg", o->svg, "write the throughput-latency frontier of the sweep to this SVG file");
    sub->add_option("--arrival-rate", o->arrival_rate,
                    "requests/s arriving: alone, the request-level simulator (inf: all at once); with --batch or "
                    "--concurrency, the M/D/1 queue (0: none)");
    sub->add_option("--prefill-chunk", o->prefill_chunk, "chunked prefill: tokens per chunk (0: whole prompt)");
    add_decode_attention_flag(sub, o->decode_attention);
    add_micro_batches_flag(sub, o->micro_batches);
    sub->add_option("--kv-offload", o->kv_offload,
                    "host memory per GPU for the KV cache beyond the GPU's, with its unit, 256GiB (FlexGen, vLLM's CPU "
                    "offload): more sequences fit, and each step streams the offloaded cache over the host link");
    sub->add_option("--kv-offload-bandwidth", o->kv_offload_bandwidth,
                    "with --kv-offload: the host link one way with its unit, 63GB/s (default: the GPU's PCIe slot or "
                    "NVLink-C2C)");
    add_expert_skew_flag(sub, o->expert_skew);
    sub->add_option("--disaggregate", o->disaggregate,
                    "also split this many copies of the layout into prefill and decode pools (DistServe, "
                    "Splitwise) and give the split with the most goodput within --ttft / --tpot");
    sub->add_option("--prefill-gpu", o->prefill_gpu,
                    "with --disaggregate: catalog GPU of the prefill pool (default: --gpu); a pool of another kind "
                    "sends the cache over the network");
    sub->add_option("--decode-gpu", o->decode_gpu, "with --disaggregate: catalog GPU of the decode pool (default: --gpu)");
    add_latency_targets(sub, o->targets, "with --disaggregate: longest time to first token with its unit, 2s",
                        "with --disaggregate: longest time per output token with its unit, 50ms");
    sub->add_option("--gpu-hour-price", o->price,
                    "USD per GPU-hour: gives the USD per million output (and input) tokens");
    sub->add_option("--power", o->power, "power per GPU with its unit, 700W (the catalog's board power): J per token");
    sub->add_option("--kernels", o->kernels,
                    "measured (kernel rates and the fitted engine overheads) or roofline (data-sheet peaks, the "
                    "lesson's closed forms) (measured)");
    sub->add_option("--profile", o->profile, "serving profile JSON (napkin calibrate-serving)");
    add_json_flag(sub, o->json);
    add_simulation_options(sub, o->simulation);
    sub->callback([o, sub] {
        resolve_latency_targets(o->targets);
        const TransformerShape model = resolve_model(o->model);
        const Gpu gpu = resolve_gpu(o->gpu);
        // --link: every GPU on it; else nodes of the GPU's usual server (catalog::default_links).
        const ServingFabric fabric = resolve_serving_fabric(sub, o->gpu, o->link, o->node);
        const Ring ring = resolve_ring(o->link);

        // Every argument checked here, by the flag the user typed.
        (void)price_flag(o->price);
        const Watts power = power_flag(o->power, gpu);
        require_at_least_one("--tp", o->tp);
        require_at_least_one("--pp", o->pp);
        require_at_least_one("--ep", o->ep);
        require(model.heads % o->tp == 0, "--tp", count(o->tp),
                "must divide the model's " + std::to_string(model.heads) + " attention heads");
        require(model.layers % o->pp == 0, "--pp", count(o->pp),
                "must divide the model's " + std::to_string(model.layers) + " layers");
        require(o->ep == 1 || model.experts > 0, "--ep", count(o->ep), "must be 1 for a dense model");
        require(model.experts == 0 || model.experts % o->ep == 0, "--ep", count(o->ep),
                "must divide the model's " + std::to_string(model.experts) + " experts");
        ServingSetup setup;
        apply_serving_formats(setup, o->weight_dtype, o->kv_dtype, gpu);
        // A trace gives every request its lengths; the checks below then see one token each.
        for (auto [flag, value] : {std::pair{"--input-tokens", &o->input}, std::pair{"--output-tokens", &o->output}}) {
            if (value->has_value()) continue;
            if (o->simulation.trace.empty())
                throw napkin::invalid_argument("serve: " + std::string(flag) + " is required");
            *value = 1;
        }
        require_count("--input-tokens", *o->input, limits::sequence);
        require_count("--output-tokens", *o->output, limits::sequence);
        const long long length = *o->input + *o->output;  // at most 2^41: no overflow
        if (model.max_position_embeddings > 0 && length > model.max_position_embeddings)
            reject("--input-tokens + --output-tokens", count(length),
                   "exceeds the model's max_position_embeddings = " + std::to_string(model.max_position_embeddings));
        require(!std::isnan(o->arrival_rate) && o->arrival_rate >= 0.0, "--arrival-rate", o->arrival_rate,
                "must not be negative");
        if (o->concurrency_text == "max") {
            // The offline maximum an engine's throughput benchmark reports: every request at once.
            if (sub->count("--arrival-rate") > 0)
                reject("--concurrency", "max", "is every request at once: give no --arrival-rate");
            o->arrival_rate = std::numeric_limits<double>::infinity();
        } else if (o->concurrency_text) {
            o->concurrency = whole_number("--concurrency", *o->concurrency_text);
        }
        // --sweep alone: continuous batching, its first concurrency the one printed in full.
        if (!o->sweep.empty() && !o->batch && !o->concurrency && o->arrival_rate == 0 && o->simulation.trace.empty())
            o->concurrency = parse_sweep(o->sweep).front();
        const bool clients = o->simulation.clients.has_value();
        const bool simulate = !o->batch && !o->concurrency &&
                              (o->arrival_rate > 0 || !o->simulation.trace.empty() || clients) &&
                              !o->simulation.model_only;
        if (!o->simulation.trace.empty() && (o->batch || o->concurrency || o->arrival_rate > 0))
            reject("--trace", o->simulation.trace, "replays its own arrivals: give no --arrival-rate, --batch or --concurrency");
        if (clients && (o->arrival_rate > 0 || !o->simulation.trace.empty()))
            reject("--clients", std::to_string(*o->simulation.clients),
                   "send each request as an answer ends: give no --arrival-rate, --concurrency max or --trace");
        if (!simulate && o->batch.has_value() == o->concurrency.has_value())
            throw napkin::invalid_argument(
                "give one of --batch (static batching) or --concurrency (continuous), or "
                "--arrival-rate or --clients alone (the request-level simulator)");
        if (!simulate) reject_simulation_flags(sub);
        if (simulate && !o->sweep.empty())
            reject("--sweep", o->sweep, "is the closed forms' frontier: give no --arrival-rate or --trace with it");
        // The simulator chunks prompts under --max-num-batched-tokens: --prefill-chunk is the closed forms'.
        if (simulate && sub->count("--prefill-chunk") > 0)
            reject("--prefill-chunk", std::to_string(o->prefill_chunk),
                   "is the closed forms' chunk: the simulator chunks prompts under --max-num-batched-tokens");
        const bool continuous = o->concurrency.has_value();
        const char* n_flag = continuous ? "--concurrency" : "--batch";
        const long long n = simulate ? 1 : continuous ? *o->concurrency : *o->batch;
        require_at_least_one(n_flag, n);
        if (!simulate)
            require(std::isfinite(o->arrival_rate), "--arrival-rate", o->arrival_rate,
                    "must be finite with --batch or --concurrency (inf: alone, every request at once)");
        require_non_negative("--prefill-chunk", count(o->prefill_chunk));

        setup.prefill_chunk = o->prefill_chunk;
        apply_decode_attention(setup, o->decode_attention);
        setup.pipeline_micro_batches = resolve_micro_batches(o->micro_batches, o->pp);
        apply_expert_skew(setup, o->expert_skew, model);
        if (o->kv_offload) {
            const Bytes capacity = io::parse_bytes("--kv-offload", *o->kv_offload);
            if (!(capacity.value() > 0 && capacity.value() <= 0x1p50))
                reject("--kv-offload", *o->kv_offload, "must be positive and at most 1PiB per GPU");
            const BytesPerSecond bandwidth = o->kv_offload_bandwidth
                                                 ? io::parse_rate("--kv-offload-bandwidth", *o->kv_offload_bandwidth)
                                                 : catalog::host_link(gpu).bandwidth;
            if (!(bandwidth.value() > 0))
                reject("--kv-offload-bandwidth", o->kv_offload_bandwidth.value_or(""), "must be positive");
            setup.kv_offload = {capacity, bandwidth};
        } else if (o->kv_offload_bandwidth) {
            reject("--kv-offload-bandwidth", *o->kv_offload_bandwidth, "sets the link of --kv-offload: give it too");
        }
        const auto kernels = parse_kernel_profile(o->kernels);
        if (!kernels) reject("--kernels", o->kernels, "must be measured or roofline");
        if (!o->profile.empty() && sub->count("--kernels") > 0)
            reject("--kernels", o->kernels, "give --kernels or --profile, not both");
        setup.profile = !o->profile.empty()                 ? read_serving_profile(o->profile)
                        : *kernels == KernelProfile::roofline ? roofline_serving
                                                              : default_serving_profile;
        const ServingLayout layout{o->tp, o->pp, o->ep};
        // --disaggregate N: the pools' GPUs and the split with the most goodput within --ttft / --tpot.
        const auto choose_pools = [&] {
            if (o->targets.any() && o->disaggregate == 0)
                throw napkin::invalid_argument(std::string(o->targets.ttft_ms ? "--ttft" : "--tpot") +
                                               " bounds the disaggregated split: give --disaggregate N");
            for (const auto& [flag, name] :
                 {std::pair{"--prefill-gpu", &o->prefill_gpu}, {"--decode-gpu", &o->decode_gpu}})
                if (!name->empty() && o->disaggregate == 0)
                    reject(flag, *name, "chooses a pool's GPU: give --disaggregate N");
            PoolChoice pools{pool_gpu("--prefill-gpu", o->prefill_gpu, gpu, setup),
                             pool_gpu("--decode-gpu", o->decode_gpu, gpu, setup), std::nullopt};
            if (o->disaggregate == 0) return pools;
            // A trace's requests have their own lengths; the split is chosen for one length.
            if (!o->simulation.trace.empty() &&
                (sub->count("--input-tokens") == 0 || sub->count("--output-tokens") == 0))
                reject("--disaggregate", std::to_string(o->disaggregate),
                       "chooses its split for one length: give --input-tokens and --output-tokens with --trace");
            require(o->disaggregate >= 2, "--disaggregate", count(o->disaggregate),
                    "must be at least 2 (one prefill and one decode instance)");
            // Requests offered: --arrival-rate (every request at once, as --concurrency max: the goodput).
            DisaggregationQuery q{.instances = o->disaggregate,
                                  .input_tokens = *o->input,
                                  .output_tokens = *o->output,
                                  .arrival_rate = per_second(std::isinf(o->arrival_rate) ? 0.0 : o->arrival_rate)};
            if (o->targets.ttft_ms) q.ttft_bound = milliseconds(*o->targets.ttft_ms);
            if (o->targets.tpot_ms) q.tpot_bound = milliseconds(*o->targets.tpot_ms);
            if (max_concurrency(model, pools.prefill_gpu, layout, *o->input, setup) == 0)
                reject(o->prefill_gpu.empty() ? "--gpu" : "--prefill-gpu", std::string(pools.prefill_gpu.name),
                       "one prompt's cache does not fit beside the weights of a prefill instance");
            pools.split =
                best_disaggregation(model, pools.prefill_gpu, pools.decode_gpu, fabric, layout, q, setup, ring);
            return pools;
        };
        if (simulate) {
            const PoolChoice pools = choose_pools();
            if (o->disaggregate != 0 && !pools.split)
                reject("--disaggregate", std::to_string(o->disaggregate),
                       "no split of the instances into prefill and decode pools meets --ttft / --tpot");
            std::optional<SimulatedPools> simulated;
            if (pools.split)
                simulated = SimulatedPools{{pools.split->prefill_instances, pools.split->decode_instances},
                                           pools.prefill_gpu,
                                           pools.decode_gpu};
            return run_simulation(o->simulation, o->arrival_rate, model, gpu, fabric, layout, *o->input, *o->output,
                                  setup, ring, o->json, o->svg, simulated);
        }
        const long long most = max_concurrency(model, gpu, layout, length, setup);
        if (most == 0) {
            const ServingMemory empty = serving_memory(model, gpu, layout, 0, length, setup);
            if (empty.total() >= empty.usable)
                reject("--tp x --pp x --ep (GPUs)", count(layout.gpus()),
                       "the weights (" + to_string(empty.weights) + " per GPU) and working memory (" +
                           to_string(empty.activations) + ") leave no room for a KV cache in " +
                           to_string(empty.usable) + " usable");
            reject("--input-tokens + --output-tokens", count(length),
                   "one sequence's KV cache (" +
                       to_string(serving_memory(model, gpu, layout, 1, length, setup).kv_cache) +
                       " per GPU) does not fit in the " + to_string(empty.usable - empty.total()) +
                       " left beside the weights");
        }
        const ServingWorkload workload{.input_tokens = *o->input, .output_tokens = *o->output, .concurrency = n,
                                       .batching = continuous ? Batching::continuous : Batching::static_batch,
                                       .arrival_rate = per_second(o->arrival_rate)};

        std::vector<long long> sweep;
        if (!o->sweep.empty()) sweep = parse_sweep(o->sweep);
        else if (!o->svg.empty())
            for (long long k = 1; k <= most; k *= 2) sweep.push_back(k);
        // The queue needs arrivals below the capacity at every concurrency asked for.
        if (o->arrival_rate > 0) {
            ServingWorkload unloaded = workload;
            unloaded.arrival_rate = PerSecond{};
            std::vector<long long> all = sweep;
            all.push_back(n);
            for (long long k : all) {
                unloaded.concurrency = k;
                const PerSecond capacity =
                    evaluate_serving(model, gpu, fabric, layout, unloaded, setup, ring).requests_per_s;
                if (!(per_second(o->arrival_rate) < capacity))
                    reject("--arrival-rate", o->arrival_rate,
                           "must be below the " + format_fixed(capacity.value(), 3) + " requests/s served at " +
                               std::to_string(k) + " in flight, or the queue grows without bound");
            }
        }
        const std::vector<ServingEstimate> rows = serving_sweep(model, gpu, fabric, layout, workload, sweep, setup, ring);
        const ServingEstimate e = evaluate_serving(model, gpu, fabric, layout, workload, setup, ring);
        const auto [prefill_gpu, decode_gpu, split] = choose_pools();

        if (!o->svg.empty()) {
            std::vector<std::string> labels;
            io::svg::Series per_gpu{"output tokens/s per GPU", {}, io::svg::palette::blue};
            io::svg::Series per_user{"tokens/s per user", {}, io::svg::palette::vermillion};
            for (const ServingEstimate& r : rows) {
                if (!r.memory.fits()) break;
                labels.push_back(std::to_string(r.workload.concurrency));
                per_gpu.values.push_back(r.output_tokens_per_s_per_gpu.value());
                per_user.values.push_back(r.output_tokens_per_s_per_user.value());
            }
            io::svg::line_chart(std::string(model.name) + " on " + std::to_string(layout.gpus()) + " x " +
                                    std::string(gpu.name) + ": throughput vs latency",
                                labels, {per_gpu, per_user}, continuous ? "concurrency" : "batch", "tokens/s")
                .save(o->svg);
        }

        if (o->json) {
            nlohmann::json j = estimate_json(e);
            add_token_cost_json(j, token_cost(e, o->price, power));
            j["model"] = model.name;
            j["gpu"] = gpu.name;
            add_fabric_json(j, fabric);
            j["tp"] = layout.tp;
            j["pp"] = layout.pp;
            j["ep"] = layout.ep;
            j["gpus"] = layout.gpus();
            j["batching"] = to_string(workload.batching);
            j["input_tokens"] = workload.input_tokens;
            j["output_tokens"] = workload.output_tokens;
            j["weight_dtype"] = to_string(setup.weights);
            j["kv_dtype"] = to_string(setup.kv);
            j["decode_attention"] = setup.grouped_decode_attention ? "grouped" : "per-query-head";
            if (o->disaggregate != 0) {
                j["disaggregated"] = nullptr;
                if (split)
                    j["disaggregated"] = {
                        {"prefill_gpu", prefill_gpu.name},
                        {"decode_gpu", decode_gpu.name},
                        {"prefill_instances", split->prefill_instances},
                        {"decode_instances", split->decode_instances},
                        {"decode_concurrency", split->decode_concurrency},
                        {"prefill_s", split->prefill.value()},
                        {"kv_transfer_s", split->kv_transfer.value()},
                        {"ttft_s", std::isinf(split->ttft.value()) ? nlohmann::json(nullptr)
                                                                   : nlohmann::json(split->ttft.value())},
                        {"tpot_s", split->tpot.value()},
                        {"requests_per_s", split->goodput().value()},
                        {"output_tokens_per_s_per_gpu", split->goodput().value() * count(workload.output_tokens) /
                                                            count(o->disaggregate * layout.gpus())}};
            }
            if (!sweep.empty()) {
                j["rows"] = nlohmann::json::array();
                for (const ServingEstimate& r : rows) j["rows"].push_back(estimate_json(r));
            }
            return print_json(j);
        }
        printf_wrapped("%s on %lld x %s (tp %lld, pp %lld, ep %lld) over %s; %s weights, %s KV cache%s\n",
                    std::string(model.name).c_str(), layout.gpus(), std::string(gpu.name).c_str(), layout.tp,
                    layout.pp, layout.ep, fabric_text(fabric, layout).c_str(), std::string(to_string(setup.weights)).c_str(),
                    std::string(to_string(setup.kv)).c_str(), kv_reads_text(setup));
        printf_wrapped("%s batching: %lld requests of %lld + %lld tokens (at most %lld fit)\n",
                    continuous ? "continuous" : "static", n, workload.input_tokens, workload.output_tokens, most);
        print_estimate(e);
        const TokenCost cost = token_cost(e, o->price, power);
        if (cost.usd_per_million_output)
            printf_wrapped("cost: $%.3f per million output tokens ($%.3f per million input tokens)\n",
                           *cost.usd_per_million_output, *cost.usd_per_million_input);
        if (cost.joules_per_output && (o->price || o->power))  // asked for: the default output stays as it was
            printf_wrapped("energy: %.3f J per output token at %s per GPU\n", *cost.joules_per_output,
                           to_string(power).c_str());
        if (!sweep.empty()) {
            printf_wrapped("\n%8s %-5s %11s %11s %14s %12s %12s\n", continuous ? "N" : "B", "fits", "TTFT", "TPOT",
                        "tokens/s", "per GPU", "per user");
            for (const ServingEstimate& r : rows)
                printf_wrapped("%8lld %-5s %11s %11s %14.1f %12.1f %12.1f\n", r.workload.concurrency,
                            r.memory.fits() ? "yes" : "no", to_string(r.ttft).c_str(), to_string(r.tpot).c_str(),
                            r.output_tokens_per_s.value(), r.output_tokens_per_s_per_gpu.value(),
                            r.output_tokens_per_s_per_user.value());
        }
        if (o->disaggregate != 0) {
            if (!split)
                printf_wrapped("\ndisaggregated: no split of %lld instances meets the bounds\n", o->disaggregate);
            else
                printf_wrapped(
                    "\ndisaggregated over %lld instances: %lld prefill%s + %lld decode%s (N = %lld each): "
                    "TTFT %s, TPOT %s, KV transfer %s, %.3f requests/s (%.1f output tokens/s per GPU)\n",
                    o->disaggregate, split->prefill_instances, pool_label(prefill_gpu, decode_gpu).c_str(),
                    split->decode_instances, pool_label(decode_gpu, prefill_gpu).c_str(), split->decode_concurrency,
                    disaggregated_ttft_text(*split, std::isinf(o->arrival_rate) ? 0.0 : o->arrival_rate).c_str(),
                    to_string(split->tpot).c_str(), to_string(split->kv_transfer).c_str(), split->goodput().value(),
                    split->goodput().value() * count(workload.output_tokens) / count(o->disaggregate * layout.gpus()));
        }
        if (!o->svg.empty()) printf_wrapped("frontier written to %s\n", o->svg.c_str());
    });
}

}  // namespace napkin::cli
