// SPDX-License-Identifier: MIT
// napkin/serving/simulator.hpp — serving at request level: requests arrive, an
// engine's scheduler batches them step by step under its limits (sequences,
// tokens per step, KV-cache blocks), and each step costs what a step-pricing
// function says (serving/step.hpp prices it through the kernel layer; a test
// gives a fixed cost to check queueing theory). What comes out is every
// request's arrival, first token and last token, and the engine's timeline.
//
//   const SimulationResult r = simulate(requests, limits, price);
//   const SimulationSummary s = summarize(r, slo);
//
// Schedulers, as the engines run them:
//  - continuous: iteration-level scheduling (Yu et al. 2022, Orca, OSDI) with
//    chunked prefill under a token budget (Agrawal et al. 2024, Sarathi-Serve,
//    arXiv 2403.02310; vLLM V1's scheduler): each step the running sequences
//    first — one token per decode, the next chunk of a prompt — then waiting
//    prompts in arrival order, chunked to fill the budget. KV blocks are taken
//    as tokens enter the cache; when none is free the newest running sequence
//    is preempted and later recomputed, its prompt now the input and what it
//    generated (Kwon et al. 2023, vLLM, SOSP, Sec. 4.5: "recomputation");
//  - prefill-first: a step of whole waiting prompts whenever one can start, else
//    a decode step of everything running (vLLM V0 without chunked prefill);
//  - inflight: TensorRT-LLM's in-flight batching: whole prompts join the decodes
//    of a step while the token budget lasts (a prompt longer than the budget is
//    chunked: TensorRT-LLM's chunked context), and a request starts only when the cache holds its whole
//    input and output (the GUARANTEED_NO_EVICT capacity policy, TensorRT-LLM's
//    default), so nothing is preempted;
//  - static: a batch starts when the engine is idle, with every waiting request
//    up to the limit, its caches reserved whole; it prefills in one step and
//    decodes until the last sequence ends (gptSessionBenchmark's batches).
#pragma once

#include <napkin/error.hpp>
#include <napkin/names.hpp>
#include <napkin/serving/step.hpp>
#include <napkin/serving/workload.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin {

/// How the engine batches requests step by step: the four schedulers above.
enum class Scheduler { continuous, prefill_first, inflight, static_batch };

/// The schedulers' names, as to_string writes them.
inline constexpr std::array scheduler_names{
    Named{Scheduler::continuous, "continuous"},
    Named{Scheduler::prefill_first, "prefill-first"},
    Named{Scheduler::inflight, "inflight"},
    Named{Scheduler::static_batch, "static"},
};
/// The scheduler's name: "continuous", "prefill-first", "inflight" or "static".
[[nodiscard]] constexpr std::string_view to_string(Scheduler s) { return name_of(s, scheduler_names); }

/// The engine's scheduler and limits: sequences and tokens per step, KV blocks, and speculative decoding.
struct EngineLimits {
    Scheduler scheduler = Scheduler::continuous;
    long long max_num_seqs = 256;             // sequences running at once (vLLM's default max_num_seqs)
    long long max_num_batched_tokens = 8192;  // tokens one step computes (TensorRT-LLM's default max_num_tokens)
    long long kv_blocks = 1LL << 40;          // blocks the KV cache holds (kv_cache_blocks for a real engine)
    long long block_tokens = 16;              // tokens per block (vLLM's default block size)
    // Speculative decoding: k drafts per decode, each accepted with probability `acceptance`
    // until the first rejection, drawn from `seed` (expected_tokens_per_step).
    long long draft_tokens = 0;
    double acceptance = 0.0;
    std::uint64_t seed = 1;
    // Seconds each request spends outside the engine — the HTTP server, tokenising the prompt,
    // detokenising and streaming the tokens — added to its first and last token (0: the engine alone).
    double front_end_latency = 0.0;
    // A closed loop of this many clients, each sending its next request as the last token of its
    // previous one reaches it (a benchmark's --concurrency); the requests' own arrivals are then
    // ignored. 0: the requests arrive when they say.
    long long clients = 0;
    // Seconds between a closed loop's clients starting: the k-th sends its first request at k times
    // this (a benchmark that starts a thread per client in turn); 0: all at once.
    double client_start_gap = 0.0;
};

/// One request's life.
struct RequestRecord {
    double arrival = 0.0, first_token = 0.0, finish = 0.0;  // seconds
    long long input = 0, output = 0, prefix = 0;
    long long preemptions = 0;
    [[nodiscard]] double ttft() const { return first_token - arrival; }
    [[nodiscard]] double e2e() const { return finish - arrival; }
    // Time per output token after the first (0 for a single-token answer).
    [[nodiscard]] double tpot() const { return output > 1 ? (finish - first_token) / count(output - 1) : 0.0; }
};

/// One engine step.
struct StepRecord {
    double start = 0.0, duration = 0.0;  // seconds
    long long decodes = 0, prefill_tokens = 0;
    long long running = 0, waiting = 0;  // sequences when the step starts
    long long kv_blocks_used = 0;
};

/// What a simulation gives: every request's life, every step, the gaps between token deliveries, the cache's size.
struct SimulationResult {
    std::vector<RequestRecord> requests;  // in arrival order
    std::vector<StepRecord> steps;
    // The gaps between a sequence's successive token deliveries (several tokens at once with
    // speculative decoding): {gap, how many}, in step order.
    std::vector<std::pair<double, long long>> token_gaps;
    long long kv_blocks = 0;         // the cache's size
    double front_end_latency = 0.0;  // seconds added to every request's tokens (EngineLimits)
    double between_engines = 0.0;    // request-seconds in no engine's queue (a disaggregated run's cache transfers)
};

/// The run as clients behind a front end of `latency` seconds see it: every
/// request's first and last token that much later than the engine gave them
/// (its token gaps are the engine's); replaces the run's own front end.
[[nodiscard]] inline SimulationResult with_front_end_latency(SimulationResult r, double latency) {
    require(latency >= 0.0 && latency <= 3600.0, "front-end latency (s)", latency, "must be from 0 to 3600 s");
    const double shift = latency - r.front_end_latency;
    for (RequestRecord& q : r.requests) q.first_token += shift, q.finish += shift;
    r.front_end_latency = latency;
    return r;
}

namespace detail {
struct Running {
    std::size_t request = 0;
    long long prompt = 0;     // tokens to have in the cache before the next token comes
    long long cached = 0;     // tokens in the cache
    long long generated = 0;  // tokens given out
    long long blocks = 0;     // blocks held
    long long shared = 0;     // leading tokens in the shared prefix's blocks (held by no one sequence)
    double last_token = 0.0;
};

[[nodiscard]] constexpr long long blocks_for(long long tokens, long long block) { return (tokens + block - 1) / block; }

class Engine {
public:
    Engine(const std::vector<Request>& requests, const EngineLimits& limits) : requests_(requests), limits_(limits) {
        require_at_least_one("max-num-seqs", limits.max_num_seqs);
        require_at_least_one("max-num-batched-tokens", limits.max_num_batched_tokens);
        require_at_least_one("KV cache blocks", limits.kv_blocks);
        require_at_least_one("KV block tokens", limits.block_tokens);
        require(limits.draft_tokens >= 0 && limits.draft_tokens <= 64, "draft tokens", count(limits.draft_tokens),
                "must be from 0 to 64");
        require(limits.acceptance >= 0.0 && limits.acceptance <= 1.0, "acceptance", limits.acceptance,
                "must be in [0, 1]");
        require(limits.front_end_latency >= 0.0 && limits.front_end_latency <= 3600.0, "front-end latency (s)",
                limits.front_end_latency, "must be from 0 to 3600 s");
        require(limits.clients >= 0 && limits.clients <= (1LL << 24), "clients", count(limits.clients),
                "must be from 0 to 2^24");
        require(limits.client_start_gap >= 0.0 && limits.client_start_gap <= 3600.0, "client start gap (s)",
                limits.client_start_gap, "must be from 0 to 3600 s");
        long long prefix = 0;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            const Request& r = requests[i];
            require(i == 0 || r.arrival >= requests[i - 1].arrival, "request arrival (s)", r.arrival,
                    "must not come before the request listed before it");
            require(std::isfinite(r.arrival) && r.arrival >= 0.0, "request arrival (s)", r.arrival,
                    "must be finite and not negative");
            require_at_least_one("request input tokens", r.input);
            require_at_least_one("request output tokens", r.output);
            require(r.prefix >= 0 && r.prefix < r.input, "request prefix tokens", count(r.prefix),
                    "must be below the request's input tokens");
            require(!r.prompt_cached || r.prefix == 0, "request prefix tokens", count(r.prefix),
                    "must be 0 for a request whose whole prompt is cached");
            prefix = std::max(prefix, r.prefix);
        }
        // One copy of the shared prefix's blocks, held for the whole run.
        prefix_blocks_ = blocks_for(prefix, limits.block_tokens);
        free_ = limits.kv_blocks - prefix_blocks_;
        for (const Request& r : requests)
            if (blocks_for(r.input - r.prefix + r.output, limits.block_tokens) > free_)
                reject("input + output tokens", count(r.input + r.output),
                       "a request needs more KV cache than the engine holds (" + std::to_string(limits.kv_blocks) +
                           " blocks of " + std::to_string(limits.block_tokens) + " tokens)");
        result_.requests.resize(requests.size());
        arrival_.resize(requests.size());
        for (std::size_t i = 0; i < requests.size(); ++i) {
            const Request& r = requests[i];
            // A closed loop's first requests leave their clients as they start; the rest wait for a client.
            const bool open = limits.clients == 0, first = std::cmp_less(i, limits.clients);
            const double sent = open    ? r.arrival
                                : first ? count(static_cast<long long>(i)) * limits.client_start_gap
                                        : 0.0;
            arrival_[i] = open || first ? sent : std::numeric_limits<double>::infinity();
            result_.requests[i] = {sent, 0.0, 0.0, r.input, r.output, r.prefix, 0};
        }
        released_ =
            limits.clients == 0 ? requests.size() : std::min(requests.size(), static_cast<std::size_t>(limits.clients));
        result_.kv_blocks = limits.kv_blocks;
    }

    template <class Price>
    SimulationResult run(Price&& price) {
        std::size_t next = 0, done = 0;
        double now = 0.0;
        const std::size_t n = requests_.size();
        while (done < n) {
            for (; next < n && arrival_[next] <= now; ++next) waiting_.push_back(start(next));
            if (running_.empty() && waiting_.empty()) {
                now = arrival_[next];
                continue;
            }
            StepRecord record{
                now, 0.0, 0, 0, static_cast<long long>(running_.size()), static_cast<long long>(waiting_.size()), 0};
            schedule();
            if (decodes_.empty() && chunks_.empty()) {
                // Nothing could start: only more time (an arrival) can change that.
                require(next < n && std::isfinite(arrival_[next]), "serving simulation", now,
                        "stalled with requests left (an engine limit too small)");
                now = std::max(now, arrival_[next]);
                continue;
            }
            record.decodes = static_cast<long long>(decodes_.size());
            for (const PromptChunk& c : chunks_) record.prefill_tokens += c.tokens;
            record.kv_blocks_used = limits_.kv_blocks - free_;
            const Seconds cost = price(
                StepBatch{record.decodes, decode_context_, chunks_, 1 + limits_.draft_tokens, limits_.draft_tokens});
            require(std::isfinite(cost.value()) && cost.value() > 0.0, "step time (s)", cost.value(),
                    "must be positive and finite");
            record.duration = cost.value();
            now += cost.value();
            result_.steps.push_back(record);
            done += finish_step(now);
        }
        return with_front_end_latency(std::move(result_), limits_.front_end_latency);
    }

private:
    [[nodiscard]] Running start(std::size_t i) const {
        const Request& r = requests_[i];
        return {i, r.input, r.prompt_cached ? r.input : r.prefix, 0, 0, r.prefix, 0.0};
    }
    [[nodiscard]] long long blocks(long long cached, const Running& s) const {
        return blocks_for(cached - s.shared, limits_.block_tokens);
    }
    [[nodiscard]] long long whole_life_blocks(const Running& s) const {
        const Request& r = requests_[s.request];
        return blocks(r.input + r.output, s);
    }
    bool take(Running& s, long long blocks_needed) {
        const long long more = blocks_needed - s.blocks;
        if (more > free_) return false;
        if (more > 0) free_ -= more, s.blocks += more;
        return true;
    }
    // Frees the newest running sequence's blocks and queues it first, to be recomputed.
    void preempt_newest() {
        Running s = running_.back();
        running_.pop_back();
        free_ += s.blocks;
        s.blocks = 0;
        s.prompt = requests_[s.request].input + s.generated;
        s.cached = s.shared;
        ++result_.requests[s.request].preemptions;
        waiting_.push_front(s);
    }
    // The cache positions a decode of running sequence i may fill: its token and the drafts,
    // never past its whole length (so a whole-life reservation always holds them).
    [[nodiscard]] long long decode_positions(std::size_t i) const {
        const Request& r = requests_[running_[i].request];
        return std::min(1 + limits_.draft_tokens, r.input + r.output - running_[i].cached);
    }
    // Blocks for `tokens` more of running sequence i, preempting the newest
    // until they are free; false when i itself had to go (it is then queued).
    bool make_room(std::size_t i, long long tokens) {
        while (!take(running_[i], blocks(running_[i].cached + tokens, running_[i]))) {
            preempt_newest();
            if (running_.size() <= i) return false;
        }
        return true;
    }
    // A waiting sequence's first decode: its token and the drafts, within its whole length.
    [[nodiscard]] long long first_decode_positions(const Running& s) const {
        const Request& r = requests_[s.request];
        return std::min(1 + limits_.draft_tokens, r.input + r.output - s.cached);
    }
    // Running sequence i just admitted: the next `tokens` of its prompt, or its first decode
    // when the prompt is all cached (`rest` = 0).
    void admit(std::size_t running_index, long long rest, long long tokens) {
        if (rest == 0) {
            add_decode(running_index);
        } else {
            add_chunk(running_index, tokens);
        }
    }
    void add_chunk(std::size_t running_index, long long tokens) {
        Running& s = running_[running_index];
        chunks_.push_back({s.cached, tokens});
        in_step_.push_back({running_index, tokens});
    }
    void add_decode(std::size_t running_index) {
        decodes_.push_back(running_index);
        decode_context_ += count(running_[running_index].cached);
    }

    void schedule() {
        chunks_.clear(), decodes_.clear(), in_step_.clear();
        decode_context_ = 0.0;
        switch (limits_.scheduler) {
            case Scheduler::continuous:
            case Scheduler::inflight:
                schedule_mixed();
                break;
            case Scheduler::prefill_first:
                if (!admit_whole_prompts(false)) schedule_decodes();
                break;
            case Scheduler::static_batch:
                if (running_.empty()) {
                    admit_whole_prompts(true);
                } else {
                    schedule_decodes();
                }
                break;
        }
    }

    // Continuous and in-flight batching: the running first, then new prompts.
    void schedule_mixed() {
        const bool reserve = limits_.scheduler == Scheduler::inflight;
        long long budget = limits_.max_num_batched_tokens;
        for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
            const bool prefilling = running_[i].cached < running_[i].prompt;
            const long long want =
                prefilling ? std::min(running_[i].prompt - running_[i].cached, budget) : decode_positions(i);
            if (!make_room(i, want)) break;
            if (prefilling) {
                add_chunk(i, want);
            } else {
                add_decode(i);
            }
            budget -= want;
        }
        while (!waiting_.empty() && budget > 0 && static_cast<long long>(running_.size()) < limits_.max_num_seqs) {
            Running s = waiting_.front();
            const long long rest = s.prompt - s.cached;
            // In-flight batching takes a prompt whole, or in chunks when no step could hold it whole.
            if (reserve && rest > budget && rest <= limits_.max_num_batched_tokens) break;
            // A prompt already cached (sent by a prefill instance) decodes in the step that admits it.
            const long long want = rest == 0 ? first_decode_positions(s) : std::min(rest, budget);
            if (!take(s, reserve ? whole_life_blocks(s) : blocks(s.cached + want, s))) break;
            waiting_.pop_front();
            running_.push_back(s);
            admit(running_.size() - 1, rest, want);
            budget -= want;
        }
    }

    // A step of whole waiting prompts (the first one even when over the budget); false when none can start.
    bool admit_whole_prompts(bool whole_batch) {
        long long budget = limits_.max_num_batched_tokens;
        bool any = false;
        while (!waiting_.empty() && static_cast<long long>(running_.size()) < limits_.max_num_seqs) {
            Running s = waiting_.front();
            const long long rest = s.prompt - s.cached;
            if (!whole_batch && any && rest > budget) break;
            if (!take(s, whole_batch ? whole_life_blocks(s)
                                     : blocks(rest == 0 ? s.cached + first_decode_positions(s) : s.prompt, s)))
                break;
            waiting_.pop_front();
            running_.push_back(s);
            admit(running_.size() - 1, rest, rest);
            budget -= rest;
            any = true;
        }
        return any;
    }

    void schedule_decodes() {
        for (std::size_t i = 0; i < running_.size(); ++i) {
            if (!make_room(i, decode_positions(i))) break;
            add_decode(i);
        }
    }

    // `tokens` tokens delivered together at `now`: one gap since the last delivery (an
    // inter-token latency as a streaming benchmark times it, per chunk it receives).
    void give_token(Running& s, double now, long long tokens = 1) {
        RequestRecord& r = result_.requests[s.request];
        if (s.generated == 0) {
            r.first_token = now;
        } else {
            const double gap = now - s.last_token;
            if (!result_.token_gaps.empty() && result_.token_gaps.back().first == gap) {
                ++result_.token_gaps.back().second;
            } else {
                result_.token_gaps.emplace_back(gap, 1);
            }
        }
        s.generated += tokens;
        s.last_token = now;
    }

    // Tokens into caches, tokens out; returns how many requests finished.
    std::size_t finish_step(double now) {
        for (const auto& [i, tokens] : in_step_) {
            Running& s = running_[i];
            s.cached += tokens;
            if (s.cached == s.prompt) give_token(s, now);
        }
        for (std::size_t i : decodes_) {
            Running& s = running_[i];
            // The drafts accepted until the first rejection, and the target's own token; together.
            long long accepted = 0;
            while (accepted < limits_.draft_tokens && rng_.uniform() < limits_.acceptance) ++accepted;
            const long long tokens = std::min(accepted + 1, requests_[s.request].output - s.generated);
            s.cached += tokens;
            give_token(s, now, tokens);
        }
        std::size_t finished = 0, kept = 0;
        for (std::size_t i = 0; i < running_.size(); ++i) {
            Running& s = running_[i];
            if (s.generated >= requests_[s.request].output) {
                result_.requests[s.request].finish = now;
                free_ += s.blocks;
                ++finished;
                release(now);
            } else {
                running_[kept++] = s;
            }
        }
        running_.resize(kept);
        return finished;
    }

    // A closed loop: the client whose request finished at `now` sends the next one when
    // the last token reaches it (the front end's latency later).
    void release(double now) {
        if (released_ == requests_.size()) return;
        arrival_[released_] = now + limits_.front_end_latency;
        result_.requests[released_].arrival = arrival_[released_];
        ++released_;
    }

    const std::vector<Request>& requests_;
    std::vector<double> arrival_;  // when each request reaches the engine
    std::size_t released_ = 0;     // requests a client has sent (all of them without a closed loop)
    EngineLimits limits_;
    SimulationResult result_;
    std::deque<Running> waiting_;
    std::vector<Running> running_;  // oldest first
    long long free_ = 0, prefix_blocks_ = 0;
    std::vector<PromptChunk> chunks_;
    std::vector<std::pair<std::size_t, long long>> in_step_;  // running index, prompt tokens this step
    std::vector<std::size_t> decodes_;
    double decode_context_ = 0.0;
    SplitMix64 rng_{limits_.seed};
};
}  // namespace detail

/// Runs the requests (in arrival order) through an engine with `limits`; `price`
/// maps a StepBatch to the step's Seconds.
template <class Price>
[[nodiscard]] SimulationResult simulate(const std::vector<Request>& requests, const EngineLimits& limits,
                                        Price&& price) {
    require(!requests.empty(), "requests", 0.0, "must be at least 1");
    return detail::Engine(requests, limits).run(price);
}

// ---------------------------------------------------------------------------
// What a benchmark prints

/// The mean, the least and the greatest, and the 50th, 75th, 90th, 95th and 99th percentiles of a set
/// of samples (what vLLM's and LMDeploy's benchmarks print).
struct Distribution {
    double mean = 0.0, p50 = 0.0, p90 = 0.0, p99 = 0.0;
    double min = 0.0, p75 = 0.0, p95 = 0.0, max = 0.0;
};

/// Mean and percentiles of weighted samples: the q-th is linear between the
/// closest ranks, as numpy.percentile's default (Hyndman and Fan 1996, def. 7).
[[nodiscard]] inline Distribution distribution(std::vector<std::pair<double, long long>> samples) {
    Distribution d;
    long long total = 0;
    double sum = 0.0;
    for (const auto& [v, w] : samples) total += w, sum += v * count(w);
    if (total == 0) return d;
    d.mean = sum / count(total);
    std::sort(samples.begin(), samples.end());
    const auto value_at = [&](long long k) {  // the k-th smallest, from 0
        for (const auto& [v, w] : samples) {
            if (k < w) return v;
            k -= w;
        }
        return samples.back().first;
    };
    const auto at = [&](double q) {
        const double rank = q * count(total - 1);
        const auto below = static_cast<long long>(rank);
        const double lo = value_at(below), hi = value_at(std::min(below + 1, total - 1));
        return lo + (rank - count(below)) * (hi - lo);
    };
    d.p50 = at(0.50), d.p90 = at(0.90), d.p99 = at(0.99);
    d.min = samples.front().first, d.p75 = at(0.75), d.p95 = at(0.95), d.max = value_at(total - 1);
    return d;
}

/// The engine's load over time in `bins` equal spans from the first step's
/// start to the last one's end: sequences running and the share of KV blocks
/// in use, each averaged over the time its steps take in the span.
struct Occupancy {
    double start = 0.0;                    // seconds
    double running = 0.0, kv_share = 0.0;  // sequences; 0 … 1
};
/// The run's Occupancy in `bins` equal spans (none without steps or bins).
[[nodiscard]] inline std::vector<Occupancy> occupancy(const SimulationResult& r, std::size_t bins) {
    std::vector<Occupancy> out;
    if (r.steps.empty() || bins == 0) return out;
    const double t0 = r.steps.front().start, t1 = r.steps.back().start + r.steps.back().duration;
    const double width = (t1 - t0) / static_cast<double>(bins);
    std::vector<double> time(bins, 0.0);
    out.resize(bins);
    for (std::size_t b = 0; b < bins; ++b) out[b].start = t0 + width * static_cast<double>(b);
    for (const StepRecord& step : r.steps) {
        // A step's weight in each span it overlaps.
        const double a = step.start, z = step.start + step.duration;
        auto b = static_cast<std::size_t>(std::max(0.0, (a - t0) / width));
        for (; b < bins && out[b].start < z; ++b) {
            const double overlap = std::min(z, out[b].start + width) - std::max(a, out[b].start);
            if (overlap <= 0.0) continue;
            time[b] += overlap;
            out[b].running += overlap * count(step.running);
            out[b].kv_share += overlap * count(step.kv_blocks_used) / count(std::max(1LL, r.kv_blocks));
        }
    }
    for (std::size_t b = 0; b < bins; ++b)
        if (time[b] > 0.0) out[b].running /= time[b], out[b].kv_share /= time[b];
    return out;
}

/// The service-level objective: the longest TTFT and TPOT a request may have, in seconds (none by default).
struct ServiceLevel {
    double ttft = std::numeric_limits<double>::infinity();  // seconds
    double tpot = std::numeric_limits<double>::infinity();  // seconds
};

/// What a benchmark prints of a run: TTFT, TPOT, inter-token latency and end-to-end distributions,
/// throughput, the mean batch and requests in the system, preemptions, and goodput within the SLO.
struct SimulationSummary {
    long long requests = 0;
    double duration = 0.0;  // the first arrival to the last token, s
    Distribution ttft, tpot, itl, e2e;
    double requests_per_s = 0.0, output_tokens_per_s = 0.0, total_tokens_per_s = 0.0;
    double mean_batch = 0.0;      // sequences per step, weighted by the steps' time
    double mean_in_system = 0.0;  // requests arrived and not finished, averaged over the duration
    long long steps = 0, preemptions = 0;
    long long within_slo = 0;  // requests meeting both bounds
    double goodput = 0.0;      // of them, per second
};

/// Summarises a run, counting the requests that meet `slo` (both bounds) for the goodput.
[[nodiscard]] inline SimulationSummary summarize(const SimulationResult& r, const ServiceLevel& slo = {}) {
    SimulationSummary s;
    s.requests = static_cast<long long>(r.requests.size());
    if (r.requests.empty()) return s;
    double first = r.requests.front().arrival, last = 0.0;
    long long out = 0, in = 0;
    std::vector<std::pair<double, long long>> ttft, tpot, e2e;
    for (const RequestRecord& q : r.requests) {
        last = std::max(last, q.finish);
        out += q.output, in += q.input;
        ttft.emplace_back(q.ttft(), 1);
        e2e.emplace_back(q.e2e(), 1);
        if (q.output > 1) tpot.emplace_back(q.tpot(), 1);
        s.preemptions += q.preemptions;
        if (q.ttft() <= slo.ttft && q.tpot() <= slo.tpot) ++s.within_slo;
    }
    s.duration = last - first;
    s.ttft = distribution(std::move(ttft));
    s.tpot = distribution(std::move(tpot));
    s.e2e = distribution(std::move(e2e));
    s.itl = distribution(r.token_gaps);
    s.steps = static_cast<long long>(r.steps.size());
    double busy = 0.0, batch = 0.0, in_system = 0.0;
    for (const StepRecord& step : r.steps) {
        busy += step.duration;
        batch += step.duration * count(step.decodes + (step.prefill_tokens > 0 ? 1 : 0));
        in_system += step.duration * count(step.running + step.waiting);
    }
    s.mean_batch = busy > 0.0 ? batch / busy : 0.0;
    // Requests in the front end or between engines count as in the system too (Little's law over e2e).
    in_system += r.front_end_latency * count(s.requests) + r.between_engines;
    s.mean_in_system = s.duration > 0.0 ? in_system / s.duration : 0.0;
    if (s.duration > 0.0) {
        s.requests_per_s = count(s.requests) / s.duration;
        s.output_tokens_per_s = count(out) / s.duration;
        s.total_tokens_per_s = count(in + out) / s.duration;
        s.goodput = count(s.within_slo) / s.duration;
    }
    return s;
}

}  // namespace napkin
