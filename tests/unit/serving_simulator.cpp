// napkin/serving/{step,workload,simulator,engine,measured}.hpp: serving at
// request level. The mixed step against decode_step and prefill_time; the
// simulator against queueing theory with a fixed step cost (M/D/1, and M/G/1
// with geometric lengths, the Pollaczek–Khinchine mean wait), Little's law, a
// static batch against evaluate_serving's closed forms, a prefix hit, KV
// preemption; the in-flight rows of measured-serving-runs.json replayed, the
// README's table written from them (NAPKIN_WRITE_README=1 rewrites it).
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/io/serving_runs.hpp>
#include <napkin/io/serving_trace.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/disaggregation.hpp>
#include <napkin/serving/engine.hpp>
#include <napkin/serving/measured.hpp>
#include <napkin/serving/simulator.hpp>
#include <napkin/serving/step.hpp>
#include <napkin/serving/workload.hpp>

#include "support.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace napkin;

namespace {

const TransformerShape& llama8b = catalog::llama3_1_8b;
const Gpu& h100 = catalog::h100_sxm;
const Link& nvlink = catalog::nvlink4;

// Every step costs `d` seconds, whatever it holds: the single server of queueing theory.
struct FixedStep {
    double d;
    [[nodiscard]] Seconds operator()(const StepBatch& /*unused*/) const { return seconds(d); }
};

double mean_ttft(const SimulationResult& r) { return summarize(r).ttft.mean; }

// Poisson arrivals at `rate` of 16-token prompts with `output` tokens each, for a single server.
TrafficSpec poisson_prompts(long long requests, double rate, LengthDistribution output) {
    TrafficSpec t;
    t.requests = requests;
    t.arrivals = {Arrivals::Kind::poisson, rate, 1.0};
    t.input = fixed_length(16);
    t.output = output;
    return t;
}
// One request at a time: the single server of queueing theory.
constexpr EngineLimits one_at_a_time{Scheduler::static_batch, 1, 8192, 1LL << 30, 16};

using test::percent;
using test::signed_percent;

// Each row's errors under the fit of its source's rows on other GPUs (leave one GPU out), or on
// other models where the source ran one GPU; empty for a source of one GPU and one model.
std::vector<std::vector<double>> held_out_errors(const std::vector<MeasuredInflightRun>& runs,
                                                 const InflightSourceFit& f) {
    bool gpus = false;
    for (std::size_t i : f.rows) gpus = gpus || runs[i].header.gpu.name != runs[f.rows.front()].header.gpu.name;
    const auto group = [&](std::size_t i) -> std::string_view {
        return gpus ? runs[i].header.gpu.name : std::string_view(runs[i].header.model);
    };
    std::vector<std::vector<double>> errors(f.rows.size());
    for (std::size_t k = 0; k < f.rows.size(); ++k) {
        if (!errors[k].empty()) continue;
        const std::string_view own = group(f.rows[k]);
        std::vector<MeasuredInflightRun> others;
        for (std::size_t i : f.rows)
            if (group(i) != own) others.push_back(runs[i]);
        if (others.empty()) return {};
        const InflightSourceFit g = fit_batch_limits(others).front();
        for (std::size_t j = k; j < f.rows.size(); ++j)
            if (group(f.rows[j]) == own) errors[j] = inflight_errors(runs[f.rows[j]], g.settings);
    }
    return errors;
}

std::string inflight_table(const std::vector<MeasuredInflightRun>& runs, const std::vector<InflightSourceFit>& fits) {
    std::ostringstream out;
    out << "| source | scheduler | searched batch limit | fitted front end | measured | rows | mean | max | bias | "
           "other GPU's (or model's) fit |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const InflightSourceFit& f : fits) {
        const std::vector<std::vector<double>> held_out = held_out_errors(runs, f);
        bool has_ttft = false;
        for (std::size_t i : f.rows)
            for (const auto& m : runs[i].measured) has_ttft = has_ttft || m.first == InflightMeasure::ttft_mean;
        for (const auto& named : inflight_measure_names) {
            double sum = 0.0, most = 0.0, bias = 0.0, other = 0.0;
            std::size_t n = 0;
            for (std::size_t k = 0; k < f.rows.size(); ++k) {
                const MeasuredInflightRun& run = runs[f.rows[k]];
                for (std::size_t j = 0; j < run.measured.size(); ++j)
                    if (run.measured[j].first == named.value) {
                        const double e = f.errors[k][j];
                        sum += std::abs(e), bias += e, most = std::max(most, std::abs(e)), ++n;
                        if (!held_out.empty()) other += std::abs(held_out[k][j]);
                    }
            }
            if (n == 0) continue;
            const auto rows = static_cast<double>(n);
            const bool stated = runs[f.rows.front()].scheduler.has_value();
            out << "| " << f.source << " | " << to_string(f.settings.scheduler) << (stated ? "" : " (searched)")
                << " | " << f.settings.max_num_seqs << " | "
                << (has_ttft ? format_fixed(f.settings.front_end_latency * 1e3, 1) + " ms" : "–") << " | " << named.name
                << " | " << n << " | " << percent(sum / rows) << " | " << percent(most) << " | "
                << signed_percent(bias / rows) << " | " << (held_out.empty() ? "–" : percent(other / rows)) << " |\n";
        }
    }
    return out.str();
}

}  // namespace

TEST_SUITE("serving simulator") {
    TEST_CASE("a step of decodes only is decode_step — a step of one chunk is prefill_time's pass") {
        // Each profile, with a GQA-aware decode kernel and with one that reads the cache per query head.
        for (const auto& [profile, grouped] :
             {std::pair{roofline_serving, true}, std::pair{default_serving_profile, true},
              std::pair{default_serving_profile, false}}) {
            ServingSetup s;
            s.profile = profile;
            s.grouped_decode_attention = grouped;
            const ServingLayout l{.tp = 2};
            // 24 sequences of 700 cached tokens each.
            const Seconds closed = decode_step(llama8b, h100, nvlink, l, {24, tokens(700)}, s).total();
            const Seconds stepped = step_time(llama8b, h100, nvlink, l, {24, 24.0 * 700.0, {}}, s).total();
            CHECK(stepped.value() == doctest::Approx(closed.value()).epsilon(1e-12));
            // One prompt of 900 tokens in one pass.
            const std::array<PromptChunk, 1> chunk{{{0, 900}}};
            const Seconds prefill = prefill_time(llama8b, h100, nvlink, l, 1, 900, s).total();
            CHECK(step_time(llama8b, h100, nvlink, l, {0, 0.0, chunk}, s).total().value() ==
                  doctest::Approx(prefill.value()).epsilon(1e-12));
        }
    }

    TEST_CASE("M/D/1: Poisson arrivals, one request at a time, a fixed service D: mean wait ρD/(2(1 − ρ))") {
        // D = 1 ms (one step, one output token), λ = 500/s, ρ = 0.5: W = 0.5 ms, TTFT = W + D = 1.5 ms.
        const TrafficSpec t = poisson_prompts(200'000, 500.0, fixed_length(1));
        const double ttft = mean_ttft(simulate(generate_requests(t), one_at_a_time, FixedStep{1e-3}));
        CHECK(ttft - 1e-3 == doctest::Approx(md1_wait(per_second(500.0), per_second(1000.0)).value()).epsilon(0.02));
        CHECK(ttft - 1e-3 == doctest::Approx(0.5e-3).epsilon(0.02));
    }

    TEST_CASE("M/G/1 with geometric lengths (M/M/1's discrete twin): W = λE[S²]/(2(1 − ρ)) (Pollaczek–Khinchine)") {
        // O geometric with mean 10 (p = 0.1), one step of d = 1 ms per token: S = O·d, E[S] = 10 ms,
        // E[S²] = d²(2 − p)/p² = 190 ms²; λ = 50/s gives ρ = 0.5 and W = 50 · 190e-6 / 1 = 9.5 ms
        // (exponential service would give ρE[S]/(1 − ρ) = 10 ms). TTFT = W + the first step.
        const TrafficSpec t = poisson_prompts(200'000, 50.0, {LengthDistribution::Kind::exponential, 10.0});
        const SimulationResult r = simulate(generate_requests(t), one_at_a_time, FixedStep{1e-3});
        CHECK(mean_ttft(r) - 1e-3 == doctest::Approx(9.5e-3).epsilon(0.04));
    }

    TEST_CASE("Little's law: mean requests in the system = throughput × mean latency, within 1 %") {
        // Llama 3.1 8B on an H100 at 16 requests/s of 467 + 256 tokens, continuous batching. The
        // time-average count comes from the engine's steps, the latencies from the requests.
        TrafficSpec t;
        t.requests = 2000;
        t.arrivals = {Arrivals::Kind::poisson, 16.0, 1.0};
        t.input = fixed_length(467);
        t.output = fixed_length(256);
        for (const Scheduler scheduler : {Scheduler::continuous, Scheduler::inflight, Scheduler::prefill_first}) {
            CAPTURE(to_string(scheduler));
            EngineLimits limits;
            limits.scheduler = scheduler;
            const SimulationSummary s =
                summarize(simulate_serving(llama8b, h100, nvlink, {}, generate_requests(t), limits));
            CHECK(s.mean_in_system == doctest::Approx(s.requests_per_s * s.e2e.mean).epsilon(0.01));
        }
        // Disaggregated, on a network of 1 GB/s: each 2048-token cache takes about 0.27 s to cross (in no
        // engine), a tenth of a request's time, and the law still holds.
        const Link slow{"slow", gigabytes_per_second(1), microseconds(5)};
        TrafficSpec long_prompts = t;
        long_prompts.input = fixed_length(2048);
        long_prompts.arrivals.rate = 8.0;
        const SimulationSummary split = summarize(simulate_disaggregated_serving(
            llama8b, h100, catalog::h200_sxm, {nvlink, slow, 8}, {}, generate_requests(long_prompts), {2, 1}, {}));
        CHECK(split.mean_in_system == doctest::Approx(split.requests_per_s * split.e2e.mean).epsilon(0.01));
        // Behind a front end of 50 ms a request is in the system 50 ms longer: the law still holds.
        EngineLimits served;
        served.front_end_latency = 0.05;
        const SimulationSummary s =
            summarize(simulate_serving(llama8b, h100, nvlink, {}, generate_requests(t), served));
        CHECK(s.mean_in_system == doctest::Approx(s.requests_per_s * s.e2e.mean).epsilon(0.01));
    }

    TEST_CASE("a front end of c seconds: the engine's run, every first and last token c later, the gaps the same") {
        // M/D/1 as above (D = 1 ms, ρ = 0.5, TTFT 1.5 ms) behind a 4 ms front end: TTFT 5.5 ms, ITL unchanged.
        const TrafficSpec t = poisson_prompts(20'000, 500.0, fixed_length(3));
        EngineLimits one = one_at_a_time;
        const SimulationResult engine = simulate(generate_requests(t), one, FixedStep{1e-3});
        one.front_end_latency = 4e-3;
        const SimulationResult served = simulate(generate_requests(t), one, FixedStep{1e-3});
        const SimulationSummary a = summarize(engine), b = summarize(served);
        CHECK(b.ttft.mean - a.ttft.mean == doctest::Approx(4e-3).epsilon(1e-9));
        CHECK(b.e2e.p99 - a.e2e.p99 == doctest::Approx(4e-3).epsilon(1e-9));
        CHECK(b.itl.mean == a.itl.mean);
        CHECK(b.steps == a.steps);
        // Replacing the front end, not adding to it: back to the engine's own times.
        CHECK(summarize(with_front_end_latency(served, 0.0)).ttft.mean == doctest::Approx(a.ttft.mean).epsilon(1e-12));
        one.front_end_latency = -1e-3;
        CHECK(test::error_of([&] { return simulate(generate_requests(t), one, FixedStep{1e-3}); }) ==
              "front-end latency (s) = -0.001: must be from 0 to 3600 s");
    }

    TEST_CASE("a closed loop of clients: each sends its next request as its last token comes") {
        // Requests of 16 + 3 tokens, every step 1 ms: a request is 3 steps (its prompt gives the first
        // token, two decodes the rest). One client: one after another, 3 ms each, TTFT 1 ms; ten take
        // 30 ms, 333.3 requests/s.
        const std::vector<Request> ten(10, Request{0.0, 16, 3, 0});
        EngineLimits one;
        one.clients = 1;
        const SimulationSummary a = summarize(simulate(ten, one, FixedStep{1e-3}));
        CHECK(a.duration == doctest::Approx(30e-3));
        CHECK(a.requests_per_s == doctest::Approx(1000.0 / 3.0));
        CHECK(a.ttft.p99 == doctest::Approx(1e-3));
        CHECK(a.e2e.mean == doctest::Approx(3e-3));
        // Four clients and a step that costs 1 ms whatever it holds: four at a time, 3 ms a round,
        // forty in 30 ms; always four in the system (Little's law: 4 = X·R = 1333.3/s × 3 ms).
        const std::vector<Request> forty(40, Request{0.0, 16, 3, 0});
        EngineLimits four;
        four.clients = 4;
        const SimulationSummary b = summarize(simulate(forty, four, FixedStep{1e-3}));
        CHECK(b.duration == doctest::Approx(30e-3));
        CHECK(b.mean_in_system == doctest::Approx(4.0).epsilon(0.01));
        CHECK(b.requests_per_s * b.e2e.mean == doctest::Approx(4.0).epsilon(1e-9));
        // Behind a 2 ms front end one client's request takes 3 + 2 ms: 200 requests/s, TTFT 3 ms.
        one.front_end_latency = 2e-3;
        const SimulationSummary c = summarize(simulate(ten, one, FixedStep{1e-3}));
        CHECK(c.requests_per_s == doctest::Approx(200.0).epsilon(1e-9));
        CHECK(c.ttft.mean == doctest::Approx(3e-3));
        CHECK(c.e2e.mean == doctest::Approx(5e-3));
        // Llama 3.1 8B on an H100, 32 clients of 467 + 256 tokens, continuous batching: 32 in the system.
        TrafficSpec t;
        t.requests = 640;
        t.input = fixed_length(467);
        t.output = fixed_length(256);
        EngineLimits many;
        many.clients = 32;
        const SimulationSummary d = summarize(simulate_serving(llama8b, h100, nvlink, {}, generate_requests(t), many));
        CHECK(d.mean_in_system == doctest::Approx(32.0).epsilon(0.01));
        CHECK(d.mean_in_system == doctest::Approx(d.requests_per_s * d.e2e.mean).epsilon(0.01));
        many.clients = -1;
        CHECK(test::error_of([&] { return simulate(ten, many, FixedStep{1e-3}); }) ==
              "clients = -1: must be from 0 to 2^24");
        four.client_start_gap = -1e-3;
        CHECK(test::error_of([&] { return simulate(forty, four, FixedStep{1e-3}); }) ==
              "client start gap (s) = -0.001: must be from 0 to 3600 s");
    }

    TEST_CASE("clients started in turn: the first request runs alone, the others join the next step") {
        // Four clients 1 µs apart, requests of 16 + 3 tokens, every step 1 ms whatever it holds. The
        // first request arrives at 0 to an idle engine: its prompt is the first step's alone (TTFT
        // 1 ms). The other three, arrived meanwhile, prefill in the second step, 1 µs to 3 µs after they
        // were sent: TTFT 2 ms less their start (1.999, 1.998, 1.997 ms). Started together instead, every
        // request's prompt is in the first step: TTFT 1 ms each.
        const std::vector<Request> four_requests(4, Request{0.0, 16, 3, 0});
        EngineLimits turn;
        turn.clients = 4;
        turn.client_start_gap = 1e-6;
        const SimulationSummary s = summarize(simulate(four_requests, turn, FixedStep{1e-3}));
        CHECK(s.ttft.min == doctest::Approx(1e-3));
        CHECK(s.ttft.max == doctest::Approx(1.999e-3));
        CHECK(s.ttft.mean == doctest::Approx((1.0 + 1.999 + 1.998 + 1.997) / 4.0 * 1e-3));
        turn.client_start_gap = 0.0;
        const SimulationSummary together = summarize(simulate(four_requests, turn, FixedStep{1e-3}));
        CHECK(together.ttft.min == doctest::Approx(1e-3));
        CHECK(together.ttft.max == doctest::Approx(1e-3));
    }

    TEST_CASE("front_end_fit: the weighted median of measured − predicted TTFT, weights 1 / measured") {
        // {predicted, measured} ms: gaps 10, 2, 1 with weights 1/20, 1/12, 1/11 (total 0.2242): the
        // weight below gap 2 reaches half (0.0909 + 0.0833 ≥ 0.1121), so c = 2 ms; the relative errors'
        // sum there is 8/20 + 0 + 1/11 = 0.491, against 0.533 at c = 1 and 1.485 at c = 10.
        CHECK(front_end_fit({{10e-3, 20e-3}, {10e-3, 12e-3}, {10e-3, 11e-3}}) == doctest::Approx(2e-3));
        // Predictions already long: no negative front end.
        CHECK(front_end_fit({{10e-3, 8e-3}, {10e-3, 9e-3}}) == 0.0);
        CHECK(front_end_fit({}) == 0.0);
        CHECK(test::error_of([] {
                  return front_end_fit({{10e-3, 0.0}});
              }) == "measured TTFT (s) = 0: must be positive and finite, its prediction finite");
    }

    TEST_CASE("a static batch replays evaluate_serving: TTFT the batch's prefill, then O − 1 decode steps") {
        // 64 requests of 500 + 200 tokens at once, one batch of 64. The closed form prices every
        // step at the mean context I + O/2 = 600; the simulated steps run at 500 … 698 cached
        // tokens (mean 599): one token of 600 in the KV term apart.
        TrafficSpec t;
        t.requests = 64;
        t.arrivals.kind = Arrivals::Kind::at_once;
        t.input = fixed_length(500);
        t.output = fixed_length(200);
        EngineLimits limits;
        limits.scheduler = Scheduler::static_batch;
        limits.max_num_seqs = 64;
        const SimulationSummary s =
            summarize(simulate_serving(llama8b, h100, nvlink, {}, generate_requests(t), limits));
        const ServingEstimate e =
            evaluate_serving(llama8b, h100, nvlink, {}, {500, 200, 64, Batching::static_batch, PerSecond{}});
        CHECK(s.ttft.mean == doctest::Approx(e.ttft.value()).epsilon(1e-9));
        CHECK(s.tpot.mean == doctest::Approx(e.tpot.value()).epsilon(1e-3));
        CHECK(s.output_tokens_per_s == doctest::Approx(e.output_tokens_per_s.value()).epsilon(1e-3));
        CHECK(s.steps == 200);  // one prefill and 199 decode steps
    }

    TEST_CASE("a prefix hit skips its prefill exactly: the first step computes the prompt's own tokens") {
        // One request of 1,000 tokens, 800 of them a cached prefix: its first step is a chunk of 200
        // after 800 cached, not 1,000 from nothing.
        std::vector<Request> hit{{0.0, 1000, 4, 800}};
        std::vector<Request> miss{{0.0, 1000, 4, 0}};
        const EngineLimits limits;
        const std::array<PromptChunk, 1> own{{{800, 200}}};
        const std::array<PromptChunk, 1> whole{{{0, 1000}}};
        const SimulationResult with = simulate_serving(llama8b, h100, nvlink, {}, hit, limits);
        const SimulationResult without = simulate_serving(llama8b, h100, nvlink, {}, miss, limits);
        CHECK(with.requests[0].ttft() == step_time(llama8b, h100, nvlink, {}, {0, 0.0, own}).total().value());
        CHECK(without.requests[0].ttft() == step_time(llama8b, h100, nvlink, {}, {0, 0.0, whole}).total().value());
        CHECK(with.steps[0].prefill_tokens == 200);
    }

    TEST_CASE("a small KV cache preempts and recomputes — every request still gets all its tokens") {
        // 40 requests of 100 + 100 tokens at once, 64 blocks of 16 tokens (1,024 tokens: 5 whole
        // sequences): continuous batching starts more than fit and preempts the newest; in-flight
        // batching reserves whole sequences and never preempts.
        std::vector<Request> requests(40, Request{0.0, 100, 100, 0});
        EngineLimits continuous{Scheduler::continuous, 256, 8192, 64, 16};
        EngineLimits inflight = continuous;
        inflight.scheduler = Scheduler::inflight;
        const auto price = StepPrice<>{llama8b, h100, nvlink, {}};
        for (const EngineLimits& limits : {continuous, inflight}) {
            CAPTURE(to_string(limits.scheduler));
            const SimulationResult r = simulate(requests, limits, price);
            long long preemptions = 0;
            for (const RequestRecord& q : r.requests) {
                CHECK(q.finish > q.first_token);
                preemptions += q.preemptions;
            }
            for (const StepRecord& step : r.steps) CHECK(step.kv_blocks_used <= 64);
            if (limits.scheduler == Scheduler::continuous) CHECK(preemptions > 0);
            if (limits.scheduler == Scheduler::inflight) CHECK(preemptions == 0);
            // Every output token past the first is one gap.
            long long gaps = 0;
            for (const auto& g : r.token_gaps) gaps += g.second;
            CHECK(gaps == 40 * 99);
        }
    }

    TEST_CASE("speculative decoding: k = 4 drafts accepted at 0.8 give (1 − 0.8⁵)/0.2 = 3.3616 tokens a step") {
        CHECK(expected_tokens_per_step(4, 0.8) == doctest::Approx(3.3616));
        CHECK(expected_tokens_per_step(0, 0.8) == 1.0);
        CHECK(expected_tokens_per_step(3, 1.0) == 4.0);
        // Simulated: 20 requests of 20,000 tokens at once, a fixed step cost; output tokens past
        // the first over the decode steps each sequence took (the last step of each is cut short).
        std::vector<Request> requests(20, Request{0.0, 16, 20'000, 0});
        EngineLimits limits;
        limits.draft_tokens = 4;
        limits.acceptance = 0.8;
        const SimulationResult r = simulate(requests, limits, FixedStep{1e-3});
        long long sequence_steps = 0;
        for (const StepRecord& step : r.steps) sequence_steps += step.decodes;
        CHECK(20.0 * 19'999.0 / count(sequence_steps) == doctest::Approx(3.3616).epsilon(0.01));
        // The verifier computes 5 positions a sequence: one step of 8 sequences prices 40 tokens' GEMMs.
        const ServingSetup roofline{.profile = roofline_serving};
        const StepBatch one{8, 8.0 * 1000.0, {}, 1, 0}, five{8, 8.0 * 1000.0, {}, 5, 0};
        const ServingStepTime t1 = step_time(llama8b, h100, nvlink, {}, one, roofline);
        const ServingStepTime t5 = step_time(llama8b, h100, nvlink, {}, five, roofline);
        CHECK(t5.compute.value() == doctest::Approx(5.0 * t1.compute.value()));
        CHECK(t5.memory == t1.memory);  // the weights and the cache read once
    }

    TEST_CASE(
        "pipelined stages in the simulator: the step's work dealt into one micro-batch per stage, "
        "the slowest sets the step — decodes alone are decode_step's pipelined step") {
        // Llama 3.1 8B at pp 4: 32 decodes at 1,000 tokens are 4 micro-batches of 8.
        const ServingLayout l{.pp = 4};
        const ServingSetup roofline{.profile = roofline_serving};
        ServingSetup in_turn = roofline;
        in_turn.pipeline_micro_batches = 1;
        const auto piped = StepPrice<>{llama8b, h100, nvlink, l, roofline};
        const auto turn = StepPrice<>{llama8b, h100, nvlink, l, in_turn};
        const StepBatch decodes{32, 32.0 * 1000.0, {}, 1, 0};
        CHECK(piped(decodes).value() ==
              doctest::Approx(decode_step(llama8b, h100, nvlink, l, {32, tokens(1000)}, roofline).total().value())
                  .epsilon(1e-12));
        CHECK(piped(decodes) == turn({8, 8.0 * 1000.0, {}, 1, 0}));
        // 31 decodes and a 512-token chunk: 8, 8, 8 and 7 decodes, the chunk joins the 7.
        const std::array<PromptChunk, 1> chunk{PromptChunk{0, 512}};
        const StepBatch mixed{31, 31.0 * 1000.0, chunk, 1, 0};
        const Seconds eight = turn({8, 8.0 * 1000.0, {}, 1, 0});
        const Seconds seven_and_chunk = turn({7, 7.0 * 1000.0, chunk, 1, 0});
        CHECK(piped(mixed) == std::max(eight, seven_and_chunk));
        CHECK(piped(mixed) < turn(mixed));
    }

    TEST_CASE("a request whose prompt is cached decodes from its first step: O tokens in O steps") {
        // 16 + 3 tokens, the prompt's cache sent along, every step 1 ms: tokens at 1, 2 and 3 ms.
        const std::vector<Request> one{{0.0, 16, 3, 0, true}};
        for (const Scheduler scheduler :
             {Scheduler::continuous, Scheduler::inflight, Scheduler::prefill_first, Scheduler::static_batch}) {
            CAPTURE(to_string(scheduler));
            EngineLimits limits;
            limits.scheduler = scheduler;
            const SimulationResult r = simulate(one, limits, FixedStep{1e-3});
            CHECK(r.requests[0].first_token == doctest::Approx(1e-3));
            CHECK(r.requests[0].finish == doctest::Approx(3e-3));
            CHECK(r.steps.size() == 3);
            CHECK(r.steps[0].prefill_tokens == 0);
        }
        CHECK(test::error_of([] {
                  return simulate({{0.0, 16, 3, 4, true}}, EngineLimits{}, FixedStep{1e-3});
              }) == "request prefix tokens = 4: must be 0 for a request whose whole prompt is cached");
    }

    TEST_CASE("disaggregated pools by hand: the prefill's first token, the transfer, then the decode's") {
        // Steps of 1 ms, a transfer of 0.5 ms. One request of 16 + 3 tokens at 0: its prompt step
        // ends at 1 ms (the first token), its cache reaches the decode instance at 1.5 ms, whose
        // steps give tokens at 2.5 and 3.5 ms: TTFT 1 ms, end to end 3.5 ms, gaps 1.5 and 1 ms.
        const auto half_ms = [](const Request&) { return 0.5e-3; };
        const SimulationResult r = simulate_disaggregated({{0.0, 16, 3}}, {1, 1}, EngineLimits{}, EngineLimits{},
                                                          FixedStep{1e-3}, FixedStep{1e-3}, half_ms);
        REQUIRE(r.requests.size() == 1);
        CHECK(r.requests[0].ttft() == doctest::Approx(1e-3));
        CHECK(r.requests[0].e2e() == doctest::Approx(3.5e-3));
        const SimulationSummary s = summarize(r);
        CHECK(s.itl.mean == doctest::Approx(1.25e-3));
        CHECK(s.steps == 3);
        // Two prefill instances take two requests at 0 at once (round robin): both first tokens at
        // 1 ms; one decode instance decodes both together. A one-token answer never leaves the prefill.
        const SimulationResult two =
            simulate_disaggregated({{0.0, 16, 3}, {0.0, 16, 3}, {0.0, 16, 1}}, {2, 1}, EngineLimits{}, EngineLimits{},
                                   FixedStep{1e-3}, FixedStep{1e-3}, half_ms);
        CHECK(two.requests[0].first_token == doctest::Approx(1e-3));
        CHECK(two.requests[1].first_token == doctest::Approx(1e-3));
        CHECK(two.requests[1].finish == doctest::Approx(3.5e-3));
        // The third shares the first prefill instance's step (two prompts within the token budget):
        // its one token at 1 ms, and it is done.
        CHECK(two.requests[2].finish == doctest::Approx(1e-3));
        CHECK(two.steps.size() == 2 + 2);  // a prompt step on each prefill instance, two decode steps
        // A front end, applied once.
        EngineLimits served;
        served.front_end_latency = 4e-3;
        CHECK(simulate_disaggregated({{0.0, 16, 3}}, {1, 1}, served, served, FixedStep{1e-3}, FixedStep{1e-3}, half_ms)
                  .requests[0]
                  .e2e() == doctest::Approx(7.5e-3));
        CHECK(test::error_of([&] {
                  return simulate_disaggregated({{0.0, 16, 3}}, {0, 1}, EngineLimits{}, EngineLimits{}, FixedStep{1e-3},
                                                FixedStep{1e-3}, half_ms);
              }) == "prefill instances = 0: must be from 1 to 2^20");
        served.front_end_latency = std::nan("");
        CHECK(test::error_of([&] {
                  return simulate_disaggregated({{0.0, 16, 3}}, {1, 1}, served, served, FixedStep{1e-3},
                                                FixedStep{1e-3}, half_ms);
              }).find("front-end latency (s) = nan") == 0);
        CHECK(test::error_of([&] {
                  return simulate_disaggregated({}, {1, 1}, EngineLimits{}, EngineLimits{}, FixedStep{1e-3},
                                                FixedStep{1e-3}, half_ms);
              }) == "requests = 0: must be at least 1");
        // A closed loop needs its answers from the decode pool, which each instance's own run cannot give.
        EngineLimits loop;
        loop.clients = 2;
        CHECK(test::error_of([&] {
                  return simulate_disaggregated({{0.0, 16, 3}}, {1, 1}, loop, loop, FixedStep{1e-3}, FixedStep{1e-3},
                                                half_ms);
              }) == "clients = 2: must be 0 for disaggregated pools: give the requests' arrivals");
    }

    TEST_CASE("disaggregated Llama 3.1 8B, H100 prompts and H200 tokens: a lone request's TTFT is prefill_time") {
        // Requests 10 s apart never wait: TTFT is one prompt's prefill on the H100; the first gap is the
        // cache's transfer (best_disaggregation's) and one decode step on the H200 at the prompt's length.
        const Gpu& h200 = catalog::h200_sxm;
        const ServingFabric fabric = nvlink;
        const std::vector<Request> lone{{0.0, 2048, 2}, {10.0, 2048, 2}};
        const SimulationResult r =
            simulate_disaggregated_serving(llama8b, h100, h200, fabric, {}, lone, {1, 1}, EngineLimits{});
        const Seconds prefill = prefill_time(llama8b, h100, fabric, {}, 1, 2048, default_serving_setup).total();
        CHECK(r.requests[1].ttft() == doctest::Approx(prefill.value()).epsilon(1e-12));
        const DisaggregationQuery q{.instances = 2, .input_tokens = 2048, .output_tokens = 2};
        const Seconds transfer = best_disaggregation(llama8b, h100, h200, fabric, {}, q)->kv_transfer;
        const Seconds step = decode_step(llama8b, h200, fabric, {}, {1, tokens(2048)}, default_serving_setup).total();
        CHECK(r.requests[1].e2e() - r.requests[1].ttft() == doctest::Approx((transfer + step).value()).epsilon(1e-12));
    }

    TEST_CASE("percentiles as numpy.percentile: 1 … 100 has p50 50.5, p75 75.25, p90 90.1, p95 95.05, p99 99.01") {
        // The q-th is at rank q·99 of 0…99, linear between the two values beside it; min 1, max 100.
        std::vector<std::pair<double, long long>> samples;
        for (int i = 100; i >= 1; --i) samples.emplace_back(i, 1);
        const Distribution d = distribution(samples);
        CHECK(d.mean == doctest::Approx(50.5));
        CHECK(d.p50 == doctest::Approx(50.5));
        CHECK(d.p75 == doctest::Approx(75.25));
        CHECK(d.p90 == doctest::Approx(90.1));
        CHECK(d.p95 == doctest::Approx(95.05));
        CHECK(d.p99 == doctest::Approx(99.01));
        CHECK(d.min == 1.0);
        CHECK(d.max == 100.0);
        // Weights count as repeats: {1 ×3, 10 ×1} is 1, 1, 1, 10: p50 1, mean 3.25, p75 at rank 2.25 of
        // 0…3: 1 + 0.25·9 = 3.25; min 1, max 10.
        const Distribution w = distribution({{10.0, 1}, {1.0, 3}});
        CHECK(w.p50 == 1.0);
        CHECK(w.mean == doctest::Approx(3.25));
        CHECK(w.p75 == doctest::Approx(3.25));
        CHECK(w.min == 1.0);
        CHECK(w.max == 10.0);
    }

    TEST_CASE("the traffic repeats from its seed and has the means asked for") {
        TrafficSpec t;
        t.requests = 100'000;
        t.arrivals = {Arrivals::Kind::gamma, 10.0, 2.0};
        t.input = {LengthDistribution::Kind::lognormal, 1000.0, 500.0};
        t.output = {LengthDistribution::Kind::uniform, 100.0, 300.0};
        const std::vector<Request> a = generate_requests(t), b = generate_requests(t);
        CHECK(a.back().arrival == b.back().arrival);
        CHECK(a[777].input == b[777].input);
        t.seed = 2;
        CHECK(generate_requests(t).back().arrival != a.back().arrival);
        double in = 0, out = 0, gaps = 0, gaps2 = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            in += count(a[i].input), out += count(a[i].output);
            const double g = a[i].arrival - (i == 0 ? 0.0 : a[i - 1].arrival);
            gaps += g, gaps2 += g * g;
        }
        const double n = count(t.requests), mean_gap = gaps / n;
        CHECK(in / n == doctest::Approx(1000.0).epsilon(0.01));  // lognormal with mean 1,000
        CHECK(out / n == doctest::Approx(200.0).epsilon(0.01));  // uniform 100 … 300
        CHECK(mean_gap == doctest::Approx(0.1).epsilon(0.02));   // 10 requests/s
        // Gamma gaps with a coefficient of variation of 2.
        CHECK(std::sqrt(gaps2 / n - mean_gap * mean_gap) / mean_gap == doctest::Approx(2.0).epsilon(0.05));
    }

    TEST_CASE("bad input to the simulator is one error naming it") {
        CHECK(test::error_of([] {
                  return simulate_serving(llama8b, h100, nvlink, {}, {{0.0, 4'000'000, 1, 0}}, EngineLimits{});
              }).find("input + output tokens") == 0);
        CHECK(test::error_of([] {
                  EngineLimits limits;
                  limits.max_num_seqs = 0;
                  return simulate(std::vector<Request>{{}}, limits, FixedStep{1.0});
              }) == "max-num-seqs = 0: must be at least 1");
        CHECK(test::error_of([] {
                  TrafficSpec t;
                  t.arrivals.rate = -1.0;
                  return generate_requests(t);
              }) == "arrival rate (requests/s) = -1: must be positive and finite");
    }

    TEST_CASE("a shared prefix must be shorter than the longest prompt: a hit keeps one token of its own") {
        // 500-token prompts: a 500-token prefix would leave a hit no token of its own (a trace row with
        // prefix_tokens = input_tokens is refused the same way), so every hit would grow to 501.
        const auto traffic = [](long long prefix, LengthDistribution input) {
            TrafficSpec t;
            t.requests = 50;
            t.input = input;
            t.prefix_tokens = prefix;
            t.prefix_share = 0.5;
            return t;
        };
        CHECK(test::fields_of([&] { return generate_requests(traffic(500, fixed_length(500))); }) ==
              "prefix tokens | 500 | must be below the longest prompt the input lengths give (500 tokens) | "
              "input tokens");
        // Uniform 100..1000: the most it draws is 1,000; a 600-token prefix is fine, and the hits among
        // the prompts drawn shorter than 601 grow to 601, as documented.
        CHECK(test::fields_of([&] {
                  return generate_requests(traffic(1000, {LengthDistribution::Kind::uniform, 100, 1000}));
              }).starts_with("prefix tokens | 1000 |"));
        const std::vector<Request> drawn =
            generate_requests(traffic(600, {LengthDistribution::Kind::uniform, 100, 1000}));
        for (const Request& r : drawn) CHECK((r.prefix == 0 || r.input >= 601));
        // 499 of 500 leaves one token of its own; no hits at all (share 0) asks nothing of the prefix.
        CHECK(test::fields_of([&] { return generate_requests(traffic(499, fixed_length(500))); }) == "(no error)");
        TrafficSpec none = traffic(600, fixed_length(500));
        none.prefix_share = 0.0;
        CHECK(test::fields_of([&] { return generate_requests(none); }) == "(no error)");
    }

    TEST_CASE("occupancy: a step's sequences and KV blocks weighted by its time in each span") {
        // Steps [0, 1) with 2 running and 10 of 100 blocks, [1, 4) with 6 and 40: two spans of 2 s
        // hold 2·1 + 6·1 = 8 over 2 s (4 running, 25 % KV), then 6 and 40 %.
        SimulationResult r;
        r.kv_blocks = 100;
        r.steps = {{0.0, 1.0, 0, 0, 2, 0, 10}, {1.0, 3.0, 0, 0, 6, 0, 40}};
        const std::vector<Occupancy> o = occupancy(r, 2);
        REQUIRE(o.size() == 2);
        CHECK(o[0].running == doctest::Approx(4.0));
        CHECK(o[0].kv_share == doctest::Approx(0.25));
        CHECK(o[1].start == 2.0);
        CHECK(o[1].running == doctest::Approx(6.0));
        CHECK(o[1].kv_share == doctest::Approx(0.40));
    }

    TEST_CASE("a trace: CSV with a header in any column order, or JSON Lines — replayed in arrival order") {
        const std::vector<Request> csv = io::parse_serving_trace(
            "output_tokens,arrival_s,input_tokens\n128,0.5,512\n300,0.25,64\n\n", "--trace", "t.csv");
        REQUIRE(csv.size() == 2);
        CHECK(csv[0].arrival == 0.25);
        CHECK(csv[0].input == 64);
        CHECK(csv[1].output == 128);
        const std::vector<Request> jsonl =
            io::parse_serving_trace(R"({"arrival_s": 0, "input_tokens": 900, "output_tokens": 3, "prefix_tokens": 800})"
                                    "\n",
                                    "--trace", "t.jsonl");
        REQUIRE(jsonl.size() == 1);
        CHECK(jsonl[0].prefix == 800);
        CHECK(test::error_of([] {
                  return io::parse_serving_trace("a,b\n1,2\n", "--trace", "t.csv");
              }).find("--trace = \"t.csv\": line 1: the header must name") == 0);
        CHECK(test::error_of([] {
                  return io::parse_serving_trace("arrival_s,input_tokens,output_tokens\n0,1.5,2\n", "--trace", "t");
              }) == "--trace = \"t\": line 2: input_tokens = 1.5 must be a whole number from 1 to 2^40");
        CHECK(test::error_of([] { return io::parse_serving_trace("{\"arrival_s\": 1}\n", "--trace", "t"); }) ==
              "--trace = \"t\": line 1: input_tokens is missing");
        CHECK(test::error_of([] { return io::parse_serving_trace("\n\n", "--trace", "t"); }) ==
              "--trace = \"t\": holds no requests");
    }

    TEST_CASE("measured-serving-runs.json's in-flight rows, replayed — the README's table") {
        const io::ServingRunFile file =
            io::read_serving_runs("measured-serving-runs.json", NAPKIN_TEST_DATA_DIR "/measured-serving-runs.json");
        // 36 online rows of 5 measures (TensorRT-LLM 0.14), 18 offline rows of one (0.17) and LMDeploy's 40
        // closed loops of 8 (its fixed-batch rows, each also replayed as profile_generation ran it).
        REQUIRE(file.inflight.size() == 94);
        const std::vector<InflightSourceFit> fits = fit_batch_limits(file.inflight);
        REQUIRE(fits.size() == 3);
        const std::string table = inflight_table(file.inflight, fits);
        MESSAGE(table);
        const test::ReadmeBlock block = test::readme_block("serving-simulation-validation", table);
        REQUIRE(block.found);
        CHECK(block.current == table);
    }
}
