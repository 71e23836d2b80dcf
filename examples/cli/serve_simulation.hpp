// napkin serve --arrival-rate R (no --batch, no --concurrency): the
// request-level simulator (napkin/serving/engine.hpp) from the command line —
// its flags, the traffic they describe, and the report: percentiles of TTFT,
// TPOT, ITL and end-to-end latency, throughput, SLO goodput, per-request CSV.
#pragma once

#include "common.hpp"
#include "serving_flags.hpp"

#include <napkin/io/hf_config.hpp>
#include <napkin/io/quantity_parse.hpp>
#include <napkin/io/serving_trace.hpp>
#include <napkin/io/svg.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/serving/disaggregation.hpp>
#include <napkin/serving/engine.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace napkin::cli {

struct SimulationOptions {
    long long requests = 1000;
    std::uint64_t seed = 1;
    std::string scheduler = "continuous";
    long long max_num_seqs = 256, max_num_batched_tokens = 8192;
    double burstiness = 1.0;
    std::string input_distribution = "fixed", output_distribution = "fixed";
    long long prefix_tokens = 0;
    double prefix_share = 1.0;
    std::optional<std::string> slo_ttft, slo_tpot;
    std::string front_end_latency = "0s";
    std::optional<long long> clients;             // a closed loop
    std::optional<std::string> client_start_gap;  // between its clients' first requests
    std::string csv;
    bool model_only = false;
    long long draft_tokens = 0;
    double acceptance = 0.7;
    std::string draft_model;
    std::string trace;
    std::string timeline;
};

inline void add_simulation_options(CLI::App* sub, SimulationOptions& o) {
    sub->add_option("--requests", o.requests, "simulator: requests replayed (1000)");
    sub->add_option("--seed", o.seed, "simulator: the traffic's random seed; the same seed, the same run (1)");
    sub->add_option("--scheduler", o.scheduler,
                    "simulator: continuous (chunked prefill, vLLM V1), prefill-first (vLLM V0), inflight "
                    "(TensorRT-LLM) or static (continuous)");
    sub->add_option("--max-num-seqs", o.max_num_seqs, "simulator: sequences running at once (256)");
    sub->add_option("--max-num-batched-tokens", o.max_num_batched_tokens, "simulator: tokens a step computes (8192)");
    sub->add_option("--burstiness", o.burstiness,
                    "simulator: inter-arrival coefficient of variation, gamma arrivals (1: Poisson)");
    sub->add_option("--input-distribution", o.input_distribution,
                    "simulator: fixed, uniform:LO:HI, normal:SD, lognormal:SD or exponential (mean --input-tokens)");
    sub->add_option("--output-distribution", o.output_distribution, "simulator: the same for --output-tokens");
    sub->add_option("--prefix-tokens", o.prefix_tokens, "simulator: a shared prompt prefix kept in the cache (0)");
    sub->add_option("--prefix-share", o.prefix_share, "simulator: share of requests that hit the prefix (1)");
    sub->add_option("--slo-ttft", o.slo_ttft,
                    "simulator: TTFT bound with its unit, 2s: goodput counts requests within");
    sub->add_option("--slo-tpot", o.slo_tpot, "simulator: TPOT bound with its unit, 50ms");
    sub->add_option("--clients", o.clients,
                    "simulator: a closed loop of N clients, each sending its next request as its last answer ends "
                    "(a benchmark's --concurrency N; instead of --arrival-rate)");
    sub->add_option("--client-start-gap", o.client_start_gap,
                    "simulator: with --clients, the time between the clients' first requests, with its unit "
                    "(0s: together; 1us: started one after another, the first alone on an idle engine)");
    sub->add_option("--front-end-latency", o.front_end_latency,
                    "simulator: time a request spends in the server in front of the engine (HTTP, tokenising), "
                    "added to its TTFT and end to end, with its unit: 3.7ms fits TensorRT-LLM behind Triton (0s)");
    sub->add_option("--csv", o.csv, "simulator: write every request (arrival, first token, finish, lengths) here");
    sub->add_option("--trace", o.trace,
                    "simulator: replay this CSV or JSON Lines file of arrival_s, input_tokens, output_tokens "
                    "(instead of --arrival-rate and the distributions)");
    sub->add_option("--timeline", o.timeline,
                    "simulator: write every engine step (start, duration, decodes, prompt tokens, running, "
                    "waiting, KV blocks) to this CSV");
    sub->add_option("--draft-tokens", o.draft_tokens, "simulator: speculative decoding, k drafts a step (0: off)");
    sub->add_option("--acceptance", o.acceptance, "simulator: each draft's acceptance probability (0.7)");
    sub->add_option("--draft-model", o.draft_model,
                    "simulator: the draft model, catalog name or config.json (none: drafts cost nothing)");
    sub->add_flag("--model-only", o.model_only,
                  "the closed forms, not the simulator (they need --batch or --concurrency)");
}

// "uniform:100:800", "normal:50", … with the mean from `mean`; named by `flag`.
inline LengthDistribution parse_length_distribution(const std::string& flag, const std::string& text, long long mean) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
    const auto number = [&](std::size_t i) {
        std::size_t used = 0;
        double v = 0;
        try {
            v = std::stod(parts[i], &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != parts[i].size() || !std::isfinite(v))
            reject(flag, text, "\"" + parts[i] + "\" is not a number");
        return v;
    };
    using K = LengthDistribution::Kind;
    const auto m = static_cast<double>(mean);
    LengthDistribution d;
    if (parts.size() == 1 && parts[0] == "fixed")
        d = fixed_length(mean);
    else if (parts.size() == 1 && parts[0] == "exponential")
        d = {K::exponential, m};
    else if (parts.size() == 2 && parts[0] == "normal")
        d = {K::normal, m, number(1)};
    else if (parts.size() == 2 && parts[0] == "lognormal")
        d = {K::lognormal, m, number(1)};
    else if (parts.size() == 3 && parts[0] == "uniform")
        d = {K::uniform, number(1), number(2)};
    else
        reject(flag, text, "must be fixed, uniform:LO:HI, normal:SD, lognormal:SD or exponential");
    (void)validated(d, flag);
    return d;
}

// The simulator's flags: with --batch or --concurrency (the closed forms) none of them applies.
inline constexpr std::array simulation_flags{"--requests",
                                             "--seed",
                                             "--scheduler",
                                             "--max-num-seqs",
                                             "--max-num-batched-tokens",
                                             "--burstiness",
                                             "--input-distribution",
                                             "--output-distribution",
                                             "--prefix-tokens",
                                             "--prefix-share",
                                             "--slo-ttft",
                                             "--slo-tpot",
                                             "--front-end-latency",
                                             "--clients",
                                             "--client-start-gap",
                                             "--csv",
                                             "--trace",
                                             "--timeline",
                                             "--draft-tokens",
                                             "--acceptance",
                                             "--draft-model"};
inline void reject_simulation_flags(const CLI::App* sub) {
    for (const char* flag : simulation_flags)
        if (sub->count(flag) > 0)
            reject(flag, sub->get_option(flag)->as<std::string>(),
                   "applies to the simulator only: give --arrival-rate without --batch or --concurrency");
}

inline std::string seconds_text(double s) { return to_string(seconds(s)); }

// --disaggregate N in the simulator: the split the closed forms chose, and the pools' GPUs.
struct SimulatedPools {
    DisaggregatedPools pools;
    Gpu prefill_gpu, decode_gpu;
};

inline nlohmann::json distribution_json(const Distribution& d) {
    return {{"mean", d.mean}, {"p50", d.p50}, {"p90", d.p90}, {"p99", d.p99},
            {"min", d.min},   {"p75", d.p75}, {"p95", d.p95}, {"max", d.max}};
}

inline std::string steps_csv(const SimulationResult& r) {
    std::string out = "start_s,duration_s,decodes,prefill_tokens,running,waiting,kv_blocks_used\n";
    char line[200];
    for (const StepRecord& q : r.steps) {
        std::snprintf(line, sizeof line, "%.9g,%.9g,%lld,%lld,%lld,%lld,%lld\n", q.start, q.duration, q.decodes,
                      q.prefill_tokens, q.running, q.waiting, q.kv_blocks_used);
        out += line;
    }
    return out;
}

// Sequences running and KV cache in use over the run, 24 spans.
inline io::svg::Document occupancy_chart(const SimulationResult& r, const std::string& title) {
    std::vector<std::string> labels;
    io::svg::Series running{"running", {}, io::svg::palette::blue};
    io::svg::Series kv{"KV used (%)", {}, io::svg::palette::vermillion};
    for (const Occupancy& o : occupancy(r, 24)) {
        labels.push_back(format_fixed(o.start, 1));
        running.values.push_back(o.running);
        kv.values.push_back(100.0 * o.kv_share);
    }
    return io::svg::line_chart(title, labels, {running, kv}, "time (s)", "sequences running, KV cache used (%)", 1100,
                               420);
}

inline std::string requests_csv(const SimulationResult& r) {
    std::string out = "arrival_s,first_token_s,finish_s,input_tokens,output_tokens,prefix_tokens,preemptions\n";
    char line[200];
    for (const RequestRecord& q : r.requests) {
        std::snprintf(line, sizeof line, "%.9g,%.9g,%.9g,%lld,%lld,%lld,%lld\n", q.arrival, q.first_token, q.finish,
                      q.input, q.output, q.prefix, q.preemptions);
        out += line;
    }
    return out;
}

// Runs and reports the simulation; `rate` may be infinite (every request at once).
template <class Collective>
void run_simulation(const SimulationOptions& o, double rate, const TransformerShape& model, const Gpu& gpu,
                    const ServingFabric& fabric, const ServingLayout& layout, long long input, long long output,
                    const ServingSetup& setup, const Collective& collective, bool json, const std::string& svg,
                    const std::optional<SimulatedPools>& split = std::nullopt) {
    require(o.requests >= 1 && o.requests <= (1LL << 24), "--requests", count(o.requests),
            "must be from 1 to 2^24 = 16777216");
    const auto scheduler = value_of(o.scheduler, scheduler_names);
    if (!scheduler) reject("--scheduler", o.scheduler, "must be continuous, prefill-first, inflight or static");
    require(o.max_num_seqs >= 1 && o.max_num_seqs <= (1LL << 24), "--max-num-seqs", count(o.max_num_seqs),
            "must be from 1 to 2^24");
    require(o.max_num_batched_tokens >= 1 && o.max_num_batched_tokens <= (1LL << 30), "--max-num-batched-tokens",
            count(o.max_num_batched_tokens), "must be from 1 to 2^30");
    require(std::isfinite(o.burstiness) && o.burstiness > 0.0 && o.burstiness <= 100.0, "--burstiness", o.burstiness,
            "must be in (0, 100]");
    require(o.prefix_tokens >= 0 && o.prefix_tokens < (1LL << 40), "--prefix-tokens", count(o.prefix_tokens),
            "must be from 0 to 2^40");
    require(o.prefix_share >= 0.0 && o.prefix_share <= 1.0, "--prefix-share", o.prefix_share, "must be in [0, 1]");
    ServiceLevel slo;
    if (o.slo_ttft) slo.ttft = io::parse_time("--slo-ttft", *o.slo_ttft).value();
    if (o.slo_tpot) slo.tpot = io::parse_time("--slo-tpot", *o.slo_tpot).value();
    if (o.slo_ttft) require_positive("--slo-ttft", slo.ttft);
    if (o.slo_tpot) require_positive("--slo-tpot", slo.tpot);
    const double front_end = io::parse_time("--front-end-latency", o.front_end_latency).value();
    if (!(front_end >= 0.0 && front_end <= 3600.0))
        reject("--front-end-latency", o.front_end_latency, "must be from 0 to 1 h");
    if (o.clients)
        require(*o.clients >= 1 && *o.clients <= (1LL << 24), "--clients", count(*o.clients), "must be from 1 to 2^24");
    const double start_gap =
        o.client_start_gap ? io::parse_time("--client-start-gap", *o.client_start_gap).value() : 0.0;
    if (!(start_gap >= 0.0 && start_gap <= 3600.0))
        reject("--client-start-gap", *o.client_start_gap, "must be from 0 to 1 h");
    if (o.client_start_gap && !o.clients)
        reject("--client-start-gap", *o.client_start_gap, "spaces the clients of a closed loop: give --clients");
    if (o.clients && split)  // each pool's instances are simulated alone: no client can wait on two of them
        reject("--clients", std::to_string(*o.clients), "runs one engine: give --arrival-rate with --disaggregate");

    TrafficSpec t;
    t.requests = o.requests;
    t.seed = o.seed;
    const bool at_once = std::isinf(rate) || o.clients.has_value();  // a closed loop ignores the arrivals
    t.arrivals = {at_once               ? Arrivals::Kind::at_once
                  : o.burstiness == 1.0 ? Arrivals::Kind::poisson
                                        : Arrivals::Kind::gamma,
                  at_once ? 1.0 : rate, o.burstiness};
    t.input = parse_length_distribution("--input-distribution", o.input_distribution, input);
    t.output = parse_length_distribution("--output-distribution", o.output_distribution, output);
    // Each output token is a step of its sequence: at about 20 ns one, 2^28 of them take seconds.
    if (count(o.requests) * t.output.mean() > count(1LL << 28))
        reject("--requests", count(o.requests),
               "times the mean output tokens must be at most 2^28 = 268435456 tokens simulated");
    t.prefix_tokens = o.prefix_tokens;
    t.prefix_share = o.prefix_tokens > 0 ? o.prefix_share : 0.0;
    require(o.draft_tokens >= 0 && o.draft_tokens <= 64, "--draft-tokens", count(o.draft_tokens),
            "must be from 0 to 64");
    require(o.acceptance >= 0.0 && o.acceptance <= 1.0, "--acceptance", o.acceptance, "must be in [0, 1]");
    std::optional<TransformerShape> draft;
    if (!o.draft_model.empty()) {
        if (o.draft_tokens == 0) reject("--draft-model", o.draft_model, "needs --draft-tokens k of at least 1");
        if (const auto found = catalog::find_model(o.draft_model)) {
            draft = *found;
        } else if (o.draft_model.find('/') != std::string::npos || o.draft_model.ends_with(".json")) {
            static std::deque<io::LoadedModel> loaded;  // owns the names the shapes point at
            loaded.push_back(io::read_hf_config(o.draft_model));
            draft = loaded.back().shape;
        } else {
            reject("--draft-model", o.draft_model, "is not a catalog model nor a path to a config.json (napkin list)");
        }
    }
    EngineLimits limits;
    limits.draft_tokens = o.draft_tokens;
    limits.acceptance = o.acceptance;
    limits.seed = o.seed;
    limits.scheduler = *scheduler;
    limits.max_num_seqs = o.max_num_seqs;
    limits.max_num_batched_tokens = o.max_num_batched_tokens;
    limits.front_end_latency = front_end;
    limits.clients = o.clients.value_or(0);
    limits.client_start_gap = start_gap;
    const std::vector<Request> requests =
        o.trace.empty() ? generate_requests(t) : io::read_serving_trace("--trace", o.trace);
    const SimulationResult r =
        split ? simulate_disaggregated_serving(model, split->prefill_gpu, split->decode_gpu, fabric, layout, requests,
                                               split->pools, limits, setup, collective, draft)
              : simulate_serving(model, gpu, fabric, layout, requests, limits, setup, collective, draft);
    const SimulationSummary s = summarize(r, slo);
    if (!o.csv.empty()) io::write_text_file("--csv", o.csv, requests_csv(r));
    if (!o.timeline.empty()) io::write_text_file("--timeline", o.timeline, steps_csv(r));
    if (!svg.empty())
        occupancy_chart(r, std::string(model.name) + " on " + std::to_string(layout.gpus()) + " x " +
                               std::string(gpu.name) + ": the engine's load")
            .save(svg);

    if (json) {
        nlohmann::json j{{"model", model.name},
                         {"gpu", gpu.name},
                         {"tp", layout.tp},
                         {"pp", layout.pp},
                         {"ep", layout.ep},
                         {"gpus", layout.gpus()},
                         {"weight_dtype", to_string(setup.weights)},
                         {"kv_dtype", to_string(setup.kv)},
                         {"decode_attention", setup.grouped_decode_attention ? "grouped" : "per-query-head"},
                         {"scheduler", to_string(*scheduler)},
                         {"max_num_seqs", o.max_num_seqs},
                         {"max_num_batched_tokens", o.max_num_batched_tokens},
                         {"kv_cache_blocks", r.kv_blocks},
                         {"front_end_latency_s", front_end},
                         {"arrival_rate", !o.trace.empty() || o.clients ? nlohmann::json(nullptr)
                                          : at_once                     ? nlohmann::json("inf")
                                                                        : nlohmann::json(rate)},
                         {"clients", o.clients ? nlohmann::json(*o.clients) : nlohmann::json(nullptr)},
                         {"client_start_gap_s", start_gap},
                         {"trace", o.trace.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.trace)},
                         {"requests", s.requests},
                         {"seed", o.seed},
                         {"duration_s", s.duration},
                         {"ttft_s", distribution_json(s.ttft)},
                         {"tpot_s", distribution_json(s.tpot)},
                         {"itl_s", distribution_json(s.itl)},
                         {"e2e_s", distribution_json(s.e2e)},
                         {"requests_per_s", s.requests_per_s},
                         {"output_tokens_per_s", s.output_tokens_per_s},
                         {"total_tokens_per_s", s.total_tokens_per_s},
                         {"mean_batch", s.mean_batch},
                         {"steps", s.steps},
                         {"draft_tokens", o.draft_tokens},
                         {"acceptance", o.acceptance},
                         {"preemptions", s.preemptions},
                         {"within_slo", s.within_slo},
                         {"goodput_requests_per_s", s.goodput}};
        j["disaggregated"] = nullptr;
        if (split)
            j["disaggregated"] = {{"prefill_instances", split->pools.prefill_instances},
                                  {"decode_instances", split->pools.decode_instances},
                                  {"prefill_gpu", split->prefill_gpu.name},
                                  {"decode_gpu", split->decode_gpu.name}};
        add_fabric_json(j, fabric);
        return print_json(j);
    }
    printf_wrapped("%s on %lld x %s%s (tp %lld, pp %lld, ep %lld) over %s; %s weights, %s KV cache%s\n",
                   std::string(model.name).c_str(), layout.gpus(), std::string(gpu.name).c_str(),
                   split ? " per instance" : "", layout.tp, layout.pp, layout.ep, fabric_text(fabric, layout).c_str(),
                   std::string(to_string(setup.weights)).c_str(), std::string(to_string(setup.kv)).c_str(),
                   kv_reads_text(setup));
    const std::string arrivals =
        o.clients ? "a closed loop of " + std::to_string(*o.clients) + " clients" +
                        (start_gap > 0.0 ? " started " + to_string(seconds(start_gap)) + " apart" : "")
        : at_once ? std::string("all at once")
        : o.burstiness == 1.0
            ? "Poisson at " + format_fixed(rate, 3) + " requests/s"
            : "gamma (burstiness " + format_fixed(o.burstiness, 2) + ") at " + format_fixed(rate, 3) + " requests/s";
    if (o.trace.empty())
        printf_wrapped("simulated: %lld requests of %lld + %lld tokens (%s, %s), %s, seed %llu\n", s.requests, input,
                       output, o.input_distribution.c_str(), o.output_distribution.c_str(), arrivals.c_str(),
                       static_cast<unsigned long long>(o.seed));
    else
        printf_wrapped("simulated: %lld requests replayed from %s\n", s.requests, o.trace.c_str());
    printf_wrapped(
        "engine: %s batching, at most %lld sequences and %lld tokens a step; KV cache %lld blocks of %lld "
        "tokens\n",
        std::string(to_string(*scheduler)).c_str(), o.max_num_seqs, o.max_num_batched_tokens, r.kv_blocks,
        setup.kv_block_tokens);
    if (split)
        printf_wrapped(
            "disaggregated: %lld prefill instance(s) on %s, %lld decode instance(s) on %s (the split the closed "
            "forms choose); each prompt's cache sent to a decode instance\n",
            split->pools.prefill_instances, std::string(split->prefill_gpu.name).c_str(), split->pools.decode_instances,
            std::string(split->decode_gpu.name).c_str());
    if (front_end > 0.0)
        printf_wrapped("front end: %s a request, in its TTFT and end to end (HTTP, tokenising)\n",
                       seconds_text(front_end).c_str());
    if (o.draft_tokens > 0)
        printf_wrapped(
            "speculative decoding: %lld drafts a step at acceptance %.2f, %.3f tokens a step expected; "
            "drafts by %s\n",
            o.draft_tokens, o.acceptance, expected_tokens_per_step(o.draft_tokens, o.acceptance),
            draft ? std::string(draft->name).c_str() : "nothing priced");
    printf_wrapped("\n%-12s %12s %12s %12s %12s\n", "", "mean", "p50", "p90", "p99");
    const auto row = [](const char* name, const Distribution& d) {
        printf_wrapped("%-12s %12s %12s %12s %12s\n", name, seconds_text(d.mean).c_str(), seconds_text(d.p50).c_str(),
                       seconds_text(d.p90).c_str(), seconds_text(d.p99).c_str());
    };
    row("TTFT", s.ttft);
    row("TPOT", s.tpot);
    row("ITL", s.itl);
    row("end to end", s.e2e);
    printf_wrapped("\nserved: %.3f requests/s, %.1f output tokens/s (%.1f with the prompts) in %s\n", s.requests_per_s,
                   s.output_tokens_per_s, s.total_tokens_per_s, seconds_text(s.duration).c_str());
    printf_wrapped("engine: %lld steps, %.1f sequences a step on average, %lld preemptions\n", s.steps, s.mean_batch,
                   s.preemptions);
    if (o.slo_ttft || o.slo_tpot)
        printf_wrapped("SLO (TTFT <= %s, TPOT <= %s): %lld of %lld requests, goodput %.3f requests/s\n",
                       o.slo_ttft ? seconds_text(slo.ttft).c_str() : "any",
                       o.slo_tpot ? seconds_text(slo.tpot).c_str() : "any", s.within_slo, s.requests, s.goodput);
    if (!o.csv.empty()) printf_wrapped("requests written to %s\n", o.csv.c_str());
    if (!o.timeline.empty()) printf_wrapped("engine steps written to %s\n", o.timeline.c_str());
    if (!svg.empty()) printf_wrapped("load over time written to %s\n", svg.c_str());
}

}  // namespace napkin::cli
