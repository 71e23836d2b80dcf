// Serving (napkin/serving.hpp) and pipeline layer maps (napkin/layer_map.hpp)
// from Python. The collective is the library's default, a ring with NCCL's
// base latency (inference.hpp: lesson_collective), as `napkin serve` uses;
// `base_latency` (seconds) replaces it, like the CLI's --base-latency-us.
#include "bindings.hpp"

#include <napkin/layer_map.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/disaggregation.hpp>
#include <napkin/serving/engine.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace napkin::python {

namespace {

Ring ring_of(const std::optional<double>& base_latency) {
    if (!base_latency) return lesson_collective;
    require_non_negative("base_latency", *base_latency);
    return Ring{Seconds::from_value(*base_latency)};
}

// A per-second field (requests/s, arrivals/s) as a float.
template <class T>
auto per_second_field(PerSecond T::*member) {
    return std::make_pair([member](const T& t) { return (t.*member).value(); },
                          [member](T& t, double v) { t.*member = PerSecond::from_value(v); });
}

py::dict distribution_dict(const Distribution& d) {
    py::dict out;
    out["mean"] = d.mean, out["p50"] = d.p50, out["p90"] = d.p90, out["p99"] = d.p99;
    out["min"] = d.min, out["p75"] = d.p75, out["p95"] = d.p95, out["max"] = d.max;
    return out;
}

// The simulator's result: "summary" (as `napkin serve --json` prints it) and
// "requests", one row per request (a pandas DataFrame when pandas imports).
py::dict simulation_dict(const SimulationResult& r) {
    const SimulationSummary s = summarize(r);
    py::dict summary;
    summary["requests"] = s.requests, summary["duration_s"] = s.duration;
    summary["ttft_s"] = distribution_dict(s.ttft), summary["tpot_s"] = distribution_dict(s.tpot);
    summary["itl_s"] = distribution_dict(s.itl), summary["e2e_s"] = distribution_dict(s.e2e);
    summary["requests_per_s"] = s.requests_per_s, summary["output_tokens_per_s"] = s.output_tokens_per_s;
    summary["total_tokens_per_s"] = s.total_tokens_per_s, summary["mean_batch"] = s.mean_batch;
    summary["steps"] = s.steps, summary["preemptions"] = s.preemptions, summary["kv_cache_blocks"] = r.kv_blocks;
    py::dict columns;
    std::vector<double> arrival, first, finish, ttft, tpot, e2e;
    std::vector<long long> input, output, preemptions;
    for (const RequestRecord& q : r.requests) {
        arrival.push_back(q.arrival), first.push_back(q.first_token), finish.push_back(q.finish);
        ttft.push_back(q.ttft()), tpot.push_back(q.tpot()), e2e.push_back(q.e2e());
        input.push_back(q.input), output.push_back(q.output), preemptions.push_back(q.preemptions);
    }
    columns["arrival_s"] = arrival, columns["first_token_s"] = first, columns["finish_s"] = finish;
    columns["ttft_s"] = ttft, columns["tpot_s"] = tpot, columns["e2e_s"] = e2e;
    columns["input_tokens"] = input, columns["output_tokens"] = output, columns["preemptions"] = preemptions;
    py::dict out;
    out["summary"] = summary;
    try {
        out["requests"] = py::module_::import("pandas").attr("DataFrame")(columns);
    } catch (const py::error_already_set&) {
        out["requests"] = columns;  // no pandas: the columns as lists
    }
    return out;
}

}  // namespace

void bind_serving(py::module_& m) {
    Struct<ServingLayout>(m, "ServingLayout", "GPUs of one serving instance: tp × pp × ep.")
        .value("tp", &ServingLayout::tp, "GPUs splitting each layer by head")
        .value("pp", &ServingLayout::pp, "pipeline stages")
        .value("ep", &ServingLayout::ep, "expert-parallel groups (MoE)")
        .computed("gpus", [](const ServingLayout& l) { return l.gpus(); }, Kind::plain, "tp · pp · ep")
        .finish([](const ServingLayout& l) {
            require_at_least_one("ServingLayout.tp", l.tp);
            require_at_least_one("ServingLayout.pp", l.pp);
            require_at_least_one("ServingLayout.ep", l.ep);
        });
    py::class_<ServingFabric>(m, "ServingFabric",
                              "The links of a serving layout: nodes of gpus_per_node GPUs on `intra`, joined by "
                              "`inter` (one GPU's network link). TP stays inside a node; a group or stage hand-off "
                              "that crosses nodes runs on `inter`. Any function taking a Link takes this instead; "
                              "a Link alone puts every GPU on it.")
        .def(py::init([](const Link& intra, const Link& inter, long long gpus_per_node) {
                 return validated(ServingFabric{intra, inter, gpus_per_node});
             }), py::arg("intra"), py::arg("inter"), py::arg("gpus_per_node") = 8)
        .def(py::init([](const Link& link) { return ServingFabric{validated(link)}; }), py::arg("link"))
        .def_readonly("intra", &ServingFabric::intra)
        .def_readonly("inter", &ServingFabric::inter)
        .def_readonly("gpus_per_node", &ServingFabric::gpus_per_node)
        .def("__repr__", [](const ServingFabric& f) {
            return "ServingFabric(intra=" + std::string(f.intra.name) + ", inter=" + std::string(f.inter.name) +
                   ", gpus_per_node=" + std::to_string(f.gpus_per_node) + ")";
        });
    py::implicitly_convertible<Link, ServingFabric>();
    Struct<ServingProfile>(m, "ServingProfile",
                           "How an engine's passes are priced: the kernel layer's rates (measured or roofline) and "
                           "the engine's own cost per pass and per layer (napkin calibrate-serving fits them).")
        .choice("kernels", &ServingProfile::kernels, choices_of(KernelProfile::measured, KernelProfile::roofline),
                "measured (kernel rates) or roofline (data-sheet peaks, the lesson's closed forms)")
        .quantity("pass_overhead", &ServingProfile::pass_overhead, Kind::seconds, "per forward pass and stage")
        .quantity("layer_overhead", &ServingProfile::layer_overhead, Kind::seconds, "per layer and pass")
        .value("gemm_share", &ServingProfile::gemm_share, "the GEMMs' share of the best GEMM's rate, in (0, 1]")
        .finish([](const ServingProfile& p) { (void)validated(ServingSetup{.profile = p}); });
    m.attr("roofline_serving") = roofline_serving;
    m.attr("default_serving_profile") = default_serving_profile;
    Struct<KvOffload>(m, "KvOffload",
                      "KV-cache offload to host memory (FlexGen): capacity per GPU (bytes, 0: off) and the host "
                      "link one way (bytes/s).")
        .quantity("capacity", &KvOffload::capacity, Kind::bytes, "host memory per GPU for the cache")
        .quantity("bandwidth", &KvOffload::bandwidth, Kind::bytes_per_second, "host to GPU, one direction")
        .finish([](const KvOffload& k) { (void)validated(ServingSetup{.kv_offload = k}); });
    Struct<ServingSetup>(m, "ServingSetup", "Number formats, paging, working memory and chunked prefill.")
        .choice("weights", &ServingSetup::weights,
                choices_of(WeightDType::bf16, WeightDType::fp16, WeightDType::fp8, WeightDType::int8, WeightDType::int4,
                           WeightDType::nvfp4, WeightDType::mxfp4, WeightDType::mxfp6),
                "weight format (int8/int4 group-quantized, 128; nvfp4/mxfp4/mxfp6 block-scaled, 16/32/32)")
        .choice("kv", &ServingSetup::kv, choices_of(KvDType::bf16, KvDType::fp8, KvDType::int8, KvDType::int4),
                "KV cache format (int8/int4: a scale and zero point per head of 128)")
        .value("bytes_per_activation", &ServingSetup::bytes_per_activation, "hidden vectors on the wire")
        .value("all_reduces_per_layer", &ServingSetup::all_reduces_per_layer, "tensor split: all-reduces a layer")
        .value("kv_block_tokens", &ServingSetup::kv_block_tokens, "PagedAttention block (tokens)")
        .quantity("working_tokens", &ServingSetup::working_tokens, Kind::tokens, "tokens of working memory")
        .quantity("working_allowance", &ServingSetup::working_allowance, Kind::bytes, "fixed working allowance")
        .value("prefill_chunk", &ServingSetup::prefill_chunk, "chunked prefill: tokens per chunk (0: whole prompt)")
        .value("pipeline_micro_batches", &ServingSetup::pipeline_micro_batches,
               "micro-batches in flight over the pp stages, one per stage at most (0: one per stage; 1: in turn)")
        .value("expert_skew", &ServingSetup::expert_skew,
               "MoE: the experts' popularity as a power law of this exponent (0: uniform routing)")
        .value("grouped_decode_attention", &ServingSetup::grouped_decode_attention,
               "decode attention reads each KV head once (a GQA-aware kernel); False: once per query head")
        .value("profile", &ServingSetup::profile, "ServingProfile: how passes are priced (default: the fit)")
        .value("kv_offload", &ServingSetup::kv_offload, "KvOffload: the cache beyond the GPU's memory in the host's")
        .finish([](const ServingSetup& s) { (void)validated(s); });
    const auto arrival = per_second_field(&ServingWorkload::arrival_rate);
    Struct<ServingWorkload>(m, "ServingWorkload", "Requests: prompt and output tokens, sequences in flight.")
        .value("input_tokens", &ServingWorkload::input_tokens, "prompt tokens I")
        .value("output_tokens", &ServingWorkload::output_tokens, "generated tokens O")
        .value("concurrency", &ServingWorkload::concurrency, "sequences in flight (continuous) or in the batch (static)")
        .choice("batching", &ServingWorkload::batching,
                Choices<Batching>{{{Batching::continuous, "continuous"}, {Batching::static_batch, "static"}}},
                "continuous (Orca) or static batching")
        .custom("arrival_rate", arrival.first, arrival.second, "Poisson arrivals for the M/D/1 queue (0: none) [1/s]")
        .finish();
    Struct<ServingMemory>(m, "ServingMemory", "Memory on one serving GPU (bytes).")
        .quantity("weights", &ServingMemory::weights, Kind::bytes, "the GPU's share of the weights")
        .quantity("kv_cache", &ServingMemory::kv_cache, Kind::bytes, "its share of the sequences' KV cache")
        .quantity("activations", &ServingMemory::activations, Kind::bytes, "working memory and workspace")
        .quantity("usable", &ServingMemory::usable, Kind::bytes, "the GPU's usable memory")
        .quantity("offloaded", &ServingMemory::offloaded, Kind::bytes, "of the cache, in host memory (KvOffload)")
        .quantity("host", &ServingMemory::host, Kind::bytes, "host memory for it")
        .computed("total", [](const ServingMemory& x) { return x.total().value(); }, Kind::bytes,
                  "weights + kv_cache + activations")
        .computed("fits", &ServingMemory::fits, Kind::plain, "total ≤ usable and offloaded ≤ host")
        .finish();
    Struct<DecodeBatch>(m, "DecodeBatch", "Sequences per expert-parallel group and their mean context (tokens).")
        .value("sequences", &DecodeBatch::sequences, "sequences B")
        .quantity("context", &DecodeBatch::context, Kind::tokens, "mean tokens in each sequence's cache")
        .finish();
    Struct<DecodeStep>(m, "DecodeStep", "One decode step (seconds).")
        .value("stages", &DecodeStep::stages, "pipeline stages")
        .value("micro_batches", &DecodeStep::micro_batches, "micro-batches in flight, each in another stage")
        .quantity("weights_read", &DecodeStep::weights_read, Kind::seconds, "reading the weights (MoE: experts hit)")
        .quantity("kv_read", &DecodeStep::kv_read, Kind::seconds, "reading the KV cache")
        .quantity("kv_offload", &DecodeStep::kv_offload, Kind::seconds, "the offloaded cache over the host link")
        .quantity("compute", &DecodeStep::compute, Kind::seconds, "the FLOPs at peak")
        .quantity("attention", &DecodeStep::attention, Kind::seconds, "the part of compute that is decode attention")
        .value("kernels_in_turn", &DecodeStep::kernels_in_turn,
               "measured kernels: the GEMMs, then the attention, each the longer of its read and math")
        .quantity("tp", &DecodeStep::tp, Kind::seconds, "tensor-parallel all-reduces")
        .quantity("pp", &DecodeStep::pp, Kind::seconds, "hand-offs between stages")
        .quantity("ep", &DecodeStep::ep, Kind::seconds, "expert-parallel all-to-alls")
        .quantity("overhead", &DecodeStep::overhead, Kind::seconds, "the engine's, per stage and layer")
        .computed(
            "busy", [](const DecodeStep& s) { return s.busy().value(); }, Kind::seconds,
            "max(weights_read + kv_read + kv_offload, compute); kernels in turn: max(weights_read, "
            "compute - attention) + max(kv_read + kv_offload, attention)")
        .computed(
            "communication", [](const DecodeStep& s) { return s.communication().value(); }, Kind::seconds,
            "tp + pp + ep")
        .computed(
            "total", [](const DecodeStep& s) { return s.total().value(); }, Kind::seconds,
            "busy + communication + overhead")
        .computed("memory_bound", &DecodeStep::memory_bound, Kind::plain, "reading outlasts computing")
        .finish();
    Struct<PrefillTime>(m, "PrefillTime", "The prompt's forward pass (seconds).")
        .value("passes", &PrefillTime::passes, "chunks")
        .value("micro_batches", &PrefillTime::micro_batches, "of the prompts, pipelined over the stages")
        .quantity("compute", &PrefillTime::compute, Kind::seconds, "the passes' rooflines, stages in turn")
        .quantity("comm", &PrefillTime::comm, Kind::seconds, "their collectives and hand-offs")
        .quantity("overhead", &PrefillTime::overhead, Kind::seconds, "the engine's, per pass")
        .computed("total", [](const PrefillTime& p) { return p.total().value(); }, Kind::seconds,
                  "compute + comm + overhead")
        .finish();
    const auto requests = per_second_field(&ServingEstimate::requests_per_s);
    Struct<ServingEstimate>(m, "ServingEstimate", "evaluate_serving's answer (seconds, tokens/s).")
        .value("layout", &ServingEstimate::layout, "ServingLayout")
        .value("workload", &ServingEstimate::workload, "ServingWorkload")
        .value("memory", &ServingEstimate::memory, "ServingMemory (bytes)")
        .value("max_concurrency", &ServingEstimate::max_concurrency, "most sequences whose memory fits")
        .value("step", &ServingEstimate::step, "DecodeStep at the mean context")
        .value("prefill", &ServingEstimate::prefill, "PrefillTime: one prompt (continuous) or the batch (static)")
        .quantity("queue", &ServingEstimate::queue, Kind::seconds, "waiting for a slot (M/D/1)")
        .quantity("ttft", &ServingEstimate::ttft, Kind::seconds, "time to first token")
        .quantity("tpot", &ServingEstimate::tpot, Kind::seconds, "time per output token")
        .quantity("e2e", &ServingEstimate::e2e, Kind::seconds, "first request byte to last token")
        .quantity("output_tokens_per_s", &ServingEstimate::output_tokens_per_s, Kind::tokens_per_second, "all GPUs")
        .quantity("output_tokens_per_s_per_gpu", &ServingEstimate::output_tokens_per_s_per_gpu,
                  Kind::tokens_per_second, "per GPU of the layout")
        .quantity("output_tokens_per_s_per_user", &ServingEstimate::output_tokens_per_s_per_user,
                  Kind::tokens_per_second, "1 token ÷ tpot")
        .custom("requests_per_s", requests.first, requests.second, "requests served per second [1/s]")
        .finish();

    const auto prefill_rate = per_second_field(&DisaggregatedEstimate::prefill_rate);
    const auto decode_rate = per_second_field(&DisaggregatedEstimate::decode_rate);
    Struct<DisaggregatedEstimate>(m, "DisaggregatedEstimate",
                                  "best_disaggregation's answer: the split into prefill and decode pools (seconds).")
        .value("prefill_instances", &DisaggregatedEstimate::prefill_instances, "copies of the layout for prompts")
        .value("decode_instances", &DisaggregatedEstimate::decode_instances, "copies for tokens")
        .value("decode_concurrency", &DisaggregatedEstimate::decode_concurrency, "sequences per decode instance")
        .quantity("prefill", &DisaggregatedEstimate::prefill, Kind::seconds, "one prompt's prefill")
        .quantity("kv_transfer", &DisaggregatedEstimate::kv_transfer, Kind::seconds, "its cache to the decode pool")
        .quantity("ttft", &DisaggregatedEstimate::ttft, Kind::seconds, "prefill + the M/D/1 wait at the load")
        .quantity("tpot", &DisaggregatedEstimate::tpot, Kind::seconds, "the decode step")
        .custom("prefill_rate", prefill_rate.first, prefill_rate.second,
                "requests/s the prefill pool takes within the TTFT bound [1/s]")
        .custom("decode_rate", decode_rate.first, decode_rate.second, "requests/s the decode pool takes [1/s]")
        .computed("goodput", [](const DisaggregatedEstimate& d) { return d.goodput().value(); }, Kind::plain,
                  "the smaller of the two rates [1/s]")
        .finish();

    m.attr("default_serving_setup") = default_serving_setup;
    m.def(
        "evaluate_serving",
        [](const TransformerShape& model, const Gpu& gpu, const ServingFabric& link, const ServingLayout& layout,
           const ServingWorkload& workload, const ServingSetup& setup, const std::optional<double>& base_latency) {
            return evaluate_serving(model, gpu, link, layout, workload, setup, ring_of(base_latency));
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("layout"), py::arg("workload"),
        py::arg("setup") = default_serving_setup, py::arg("base_latency") = py::none(),
        "Memory, decode step, prefill, TTFT, TPOT, throughput of one serving layout (ServingEstimate), as "
        "`napkin serve`. base_latency: NCCL's per-call latency in seconds (None: 6.6 µs). ValueError names the "
        "first bad argument.");
    m.def(
        "simulate_serving",
        [](const TransformerShape& model, const Gpu& gpu, const ServingFabric& link, const ServingLayout& layout,
           long long input_tokens, long long output_tokens, const std::optional<double>& arrival_rate,
           long long request_count, std::uint64_t seed, const std::string& scheduler, long long max_num_seqs,
           long long max_num_batched_tokens, const ServingSetup& setup, const std::optional<double>& base_latency,
           double front_end_latency, const std::optional<std::pair<long long, long long>>& disaggregate,
           const std::optional<Gpu>& decode_gpu, const std::optional<long long>& clients, double client_start_gap) {
            TrafficSpec t;
            t.requests = request_count;
            t.seed = seed;
            if (arrival_rate.has_value() == clients.has_value())
                throw napkin::invalid_argument(
                    "give one of arrival_rate (requests arrive on their own) or clients "
                    "(a closed loop)");
            const double rate = arrival_rate.value_or(std::numeric_limits<double>::infinity());
            require(!std::isnan(rate) && rate > 0.0, "arrival_rate", rate,
                    "must be positive (inf: every request at once)");
            if (clients)
                require(*clients >= 1 && *clients <= (1LL << 24), "clients", count(*clients), "must be from 1 to 2^24");
            t.arrivals = {std::isinf(rate) ? Arrivals::Kind::at_once : Arrivals::Kind::poisson,
                          std::isinf(rate) ? 1.0 : rate, 1.0};
            require_at_least_one("input_tokens", input_tokens);
            require_at_least_one("output_tokens", output_tokens);
            t.input = fixed_length(input_tokens);
            t.output = fixed_length(output_tokens);
            EngineLimits limits;
            const auto known = value_of(scheduler, scheduler_names);
            if (!known) reject("scheduler", scheduler, "must be continuous, prefill-first, inflight or static");
            limits.scheduler = *known;
            limits.max_num_seqs = max_num_seqs;
            limits.max_num_batched_tokens = max_num_batched_tokens;
            require(front_end_latency >= 0.0 && front_end_latency <= 3600.0, "front_end_latency", front_end_latency,
                    "must be from 0 to 3600 s");
            limits.front_end_latency = front_end_latency;
            limits.clients = clients.value_or(0);
            require(client_start_gap >= 0.0 && client_start_gap <= 3600.0, "client_start_gap", client_start_gap,
                    "must be from 0 to 3600 s");
            if (client_start_gap > 0.0 && !clients)
                reject("client_start_gap", client_start_gap, "spaces a closed loop's clients: give clients");
            limits.client_start_gap = client_start_gap;
            if (clients && disaggregate)
                reject("clients", std::to_string(*clients), "runs one engine: give arrival_rate with disaggregate");
            if (decode_gpu && !disaggregate)
                reject("decode_gpu", std::string(decode_gpu->name), "chooses the decode pool's GPU: give disaggregate");
            if (disaggregate)
                return simulation_dict(simulate_disaggregated_serving(
                    model, gpu, decode_gpu.value_or(gpu), link, layout, generate_requests(t),
                    {disaggregate->first, disaggregate->second}, limits, setup, ring_of(base_latency)));
            return simulation_dict(simulate_serving(model, gpu, link, layout, generate_requests(t), limits, setup,
                                                    ring_of(base_latency)));
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("layout"), py::arg("input_tokens"),
        py::arg("output_tokens"), py::arg("arrival_rate") = py::none(), py::arg("requests") = 1000, py::arg("seed") = 1,
        py::arg("scheduler") = "continuous", py::arg("max_num_seqs") = 256, py::arg("max_num_batched_tokens") = 8192,
        py::arg("setup") = default_serving_setup, py::arg("base_latency") = py::none(),
        py::arg("front_end_latency") = 0.0, py::arg("disaggregate") = py::none(), py::arg("decode_gpu") = py::none(),
        py::arg("clients") = py::none(), py::arg("client_start_gap") = 0.0,
        "The request-level simulator, as `napkin serve --arrival-rate R`: Poisson arrivals (inf: all at once) of "
        "fixed lengths through the scheduler; front_end_latency: seconds a request spends in the server in front of "
        "the engine, in its TTFT and end to end (0.0037 fits TensorRT-LLM behind Triton); disaggregate=(P, D): P "
        "prefill instances of the layout on gpu and D decode instances on decode_gpu (default gpu), each prompt's "
        "cache sent between them (as `napkin serve --disaggregate`, which picks P and D); clients=N instead of "
        "arrival_rate: a closed loop of N clients, each sending its next request as its last answer ends, started "
        "client_start_gap seconds apart (0: together; LMDeploy's profile_generation starts one thread after "
        "another). Returns "
        "{'summary': "
        "percentiles and throughput, 'requests': one row "
        "per request (a pandas DataFrame when pandas imports)}.");
    m.def(
        "best_disaggregation",
        [](const TransformerShape& model, const Gpu& gpu, const ServingFabric& link, const ServingLayout& layout,
           long long instances, long long input_tokens, long long output_tokens, const std::optional<double>& ttft,
           const std::optional<double>& tpot, long long max_concurrency, const std::optional<Gpu>& decode_gpu,
           const ServingSetup& setup, const std::optional<double>& base_latency,
           double arrival_rate) -> std::optional<DisaggregatedEstimate> {
            DisaggregationQuery q{.instances = instances,
                                  .input_tokens = input_tokens,
                                  .output_tokens = output_tokens,
                                  .max_concurrency = max_concurrency,
                                  .arrival_rate = per_second(arrival_rate)};
            if (ttft) {
                require_positive("ttft (s)", *ttft);
                q.ttft_bound = seconds(*ttft);
            }
            if (tpot) {
                require_positive("tpot (s)", *tpot);
                q.tpot_bound = seconds(*tpot);
            }
            return best_disaggregation(model, gpu, decode_gpu.value_or(gpu), link, layout, q, setup,
                                       ring_of(base_latency));
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("layout"), py::arg("instances"),
        py::arg("input_tokens"), py::arg("output_tokens"), py::arg("ttft") = py::none(), py::arg("tpot") = py::none(),
        py::arg("max_concurrency") = 1024, py::arg("decode_gpu") = py::none(), py::arg("setup") = default_serving_setup,
        py::arg("base_latency") = py::none(), py::arg("arrival_rate") = 0.0,
        "DistServe/Splitwise: `instances` copies of the layout split into prefill and decode pools, the split with "
        "the most goodput within the ttft and tpot bounds (seconds; None: unbounded), as `napkin serve "
        "--disaggregate N`. gpu runs the prompts, decode_gpu (default: gpu) the tokens. The TTFT is at "
        "arrival_rate requests/s (0: the goodput; inf when that saturates the prefill pool). None when no split "
        "meets the bounds.");
    m.def(
        "serving_sweep",
        [](const TransformerShape& model, const Gpu& gpu, const ServingFabric& link, const ServingLayout& layout,
           const ServingWorkload& workload, const std::vector<long long>& concurrencies, const ServingSetup& setup,
           const std::optional<double>& base_latency) {
            return serving_sweep(model, gpu, link, layout, workload, concurrencies, setup, ring_of(base_latency));
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("layout"), py::arg("workload"),
        py::arg("concurrencies"), py::arg("setup") = default_serving_setup, py::arg("base_latency") = py::none(),
        "One ServingEstimate per concurrency: the throughput-latency frontier.");
    m.def(
        "decode_step",
        [](const TransformerShape& model, const Gpu& gpu, const ServingFabric& link, const ServingLayout& layout,
           const DecodeBatch& batch, const ServingSetup& setup, const std::optional<double>& base_latency) {
            (void)validated(model);
            (void)validated(gpu);
            (void)validated(link);
            (void)validated(layout, model);
            (void)validated(setup);
            require_at_least_one("sequences", batch.sequences);
            require_non_negative("context (tokens)", batch.context.value());
            return decode_step(model, gpu, link, layout, batch, setup, ring_of(base_latency));
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("layout"), py::arg("batch"),
        py::arg("setup") = default_serving_setup, py::arg("base_latency") = py::none(),
        "One step giving each of batch.sequences its next token (DecodeStep, seconds).");
    m.def(
        "prefill",
        [](const TransformerShape& model, const Gpu& gpu, const ServingFabric& link, const ServingLayout& layout,
           long long prompts, long long input_tokens, const ServingSetup& setup,
           const std::optional<double>& base_latency) {
            (void)validated(model);
            (void)validated(gpu);
            (void)validated(link);
            (void)validated(layout, model);
            (void)validated(setup);
            return prefill_time(model, gpu, link, layout, prompts, input_tokens, setup, ring_of(base_latency));
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("layout"), py::arg("prompts"),
        py::arg("input_tokens"), py::arg("setup") = default_serving_setup, py::arg("base_latency") = py::none(),
        "The forward pass over `prompts` prompts of `input_tokens` tokens (PrefillTime, seconds).");
    m.def(
        "max_concurrency",
        [](const TransformerShape& model, const Gpu& gpu, const ServingLayout& layout, long long length,
           const ServingSetup& setup) {
            (void)validated(model);
            (void)validated(gpu);
            (void)validated(layout, model);
            (void)validated(setup);
            return max_concurrency(model, gpu, layout, length, setup);
        },
        py::arg("model"), py::arg("gpu"), py::arg("layout"), py::arg("length"),
        py::arg("setup") = default_serving_setup,
        "The most sequences of `length` tokens whose memory fits on the layout (0: not one).");
    m.def(
        "expected_distinct_experts",
        [](long long experts, long long per_token, double tokens_routed) {
            require_at_least_one("experts", experts);
            require(per_token >= 1 && per_token <= experts, "per_token", count(per_token),
                    "must lie in 1 … experts");
            require_non_negative("tokens_routed", tokens_routed);
            return expected_distinct_experts(experts, per_token, tokens_routed);
        },
        py::arg("experts"), py::arg("per_token"), py::arg("tokens_routed"),
        "Experts of E hit at least once when `tokens_routed` tokens each pick `per_token` (uniform routing).");

    // --- layer maps ------------------------------------------------------------
    Struct<LayerRange>(m, "LayerRange", "Layers first … last, counted from 1, both included.")
        .value("first", &LayerRange::first, "first layer")
        .value("last", &LayerRange::last, "last layer")
        .computed("size", &LayerRange::size, Kind::plain, "last − first + 1")
        .finish();
    Struct<LayerMap>(m, "LayerMap", "Which layers each pipeline stage (and chunk) holds.")
        .value("stages", &LayerMap::stages, "pipeline stages")
        .value("chunks", &LayerMap::chunks, "chunks per stage")
        .value("ranges", &LayerMap::ranges, "LayerRange per stage·chunks + chunk")
        .computed("layers_per_chunk", &LayerMap::layers_per_chunk, Kind::plain, "layers of each range")
        .computed("fullest_stage", &LayerMap::fullest_stage, Kind::plain, "the stage with the most layers, from 0")
        .finish()
        .def("stage_layers", [](const LayerMap& map, long long stage) {
                 require(stage >= 0 && stage < map.stages, "stage", count(stage), "must lie in 0 … stages − 1");
                 return map.stage_layers(stage);
             }, py::arg("stage"), "Layers on one stage (from 0).");
    m.def("parse_layer_map", &parse_layer_map, py::arg("text"), py::arg("layers"), py::arg("stages"),
          py::arg("name") = "--layer-map",
          "Parses '1-6,25-29/7-12,30-35/…' (stages split by '/') for a model of `layers` layers (LayerMap); "
          "ValueError names `name`.");
    m.def("even_layer_map", &even_layer_map, py::arg("layers"), py::arg("stages"), py::arg("chunks") = 1,
          "p·v equal chunks (LayerMap).");
    m.def("stage_parameter_count",
          [](const TransformerShape& model, const LayerMap& map, long long stage) {
              return stage_parameter_count(validated(model), map, stage);
          },
          py::arg("model"), py::arg("map"), py::arg("stage"), "Weights a stage holds under the layer map.");
}

}  // namespace napkin::python
