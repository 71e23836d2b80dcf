// SPDX-License-Identifier: MIT
// napkin/serving/disaggregation.hpp — prefill and decode pools, request by
// request (DistServe: Zhong et al. 2024, OSDI, arXiv 2401.09670; Splitwise:
// Patel et al. 2024, ISCA, arXiv 2311.18677): each prompt runs on a prefill
// instance, which gives its first token; its KV cache then crosses the link to
// a decode instance, which gives the rest. Each instance is an engine of its
// own (serving/simulator.hpp), the pools may be different GPUs, and prompts
// never stall a decode step.
//
//   const SimulationResult r = simulate_disaggregated_serving(m, h100, h200, fabric, layout, requests,
//                                                             {.prefill_instances = 1, .decode_instances = 3},
//                                                             limits);
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/engine.hpp>
#include <napkin/serving/simulator.hpp>
#include <napkin/serving/workload.hpp>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <vector>

namespace napkin {

/// How many copies of the layout run prompts, and how many run tokens.
struct DisaggregatedPools {
    long long prefill_instances = 1;
    long long decode_instances = 1;
};

/// Both pools' run from their step prices and each request's cache transfer time:
/// requests go to the prefill instances in turn (round robin), each prefilled alone
/// to its first token; `transfer(request)` seconds later its cache reaches the decode
/// pool, whose instances take those arrivals in turn, each starting from the cached
/// prompt. Every request's record joins both: its first token the prefill's, its last
/// the decode's; the gap between them is the transfer, the wait and the first decode
/// step. Steps and KV blocks are both pools' together, and the transfers' time is
/// the run's time between engines (Little's law counts it). The front end
/// (`prefill_limits.front_end_latency`) is applied once, to the joined run. The
/// requests arrive on their own (EngineLimits::clients 0: no closed loop).
template <class PrefillPrice, class DecodePrice, class Transfer>
[[nodiscard]] SimulationResult simulate_disaggregated(const std::vector<Request>& requests,
                                                      const DisaggregatedPools& pools, EngineLimits prefill_limits,
                                                      EngineLimits decode_limits, const PrefillPrice& prefill_price,
                                                      const DecodePrice& decode_price, const Transfer& transfer) {
    require(pools.prefill_instances >= 1 && pools.prefill_instances <= (1LL << 20), "prefill instances",
            count(pools.prefill_instances), "must be from 1 to 2^20");
    require(pools.decode_instances >= 1 && pools.decode_instances <= (1LL << 20), "decode instances",
            count(pools.decode_instances), "must be from 1 to 2^20");
    require(!requests.empty(), "requests", 0.0, "must be at least 1");
    // Each instance is simulated alone, so a closed loop (a client waiting for its answer from the
    // decode pool) cannot be: the pools take the requests' arrivals.
    require(prefill_limits.clients == 0 && decode_limits.clients == 0, "clients",
            count(std::max(prefill_limits.clients, decode_limits.clients)),
            "must be 0 for disaggregated pools: give the requests' arrivals");
    const double front_end = prefill_limits.front_end_latency;
    require(front_end >= 0.0 && front_end <= 3600.0, "front-end latency (s)", front_end, "must be from 0 to 3600 s");
    prefill_limits.front_end_latency = decode_limits.front_end_latency = 0.0;
    const std::size_t n = requests.size();
    SimulationResult out;
    out.requests.resize(n);
    const auto absorb = [&out](SimulationResult& part) {
        out.steps.insert(out.steps.end(), part.steps.begin(), part.steps.end());
        out.token_gaps.insert(out.token_gaps.end(), part.token_gaps.begin(), part.token_gaps.end());
        out.kv_blocks += part.kv_blocks;
    };
    // Each instance's share, in turn: requests k, k + pools, k + 2·pools, … of `order`.
    const auto share = [](const std::vector<std::size_t>& order, long long instance, long long instances) {
        std::vector<std::size_t> mine;
        mine.reserve(order.size() / static_cast<std::size_t>(instances) + 1);
        for (auto j = static_cast<std::size_t>(instance); j < order.size(); j += static_cast<std::size_t>(instances))
            mine.push_back(order[j]);
        return mine;
    };
    std::vector<std::size_t> arrival_order(n);
    std::iota(arrival_order.begin(), arrival_order.end(), std::size_t{0});
    for (long long i = 0; i < pools.prefill_instances; ++i) {
        const std::vector<std::size_t> mine = share(arrival_order, i, pools.prefill_instances);
        if (mine.empty()) continue;
        std::vector<Request> prompts;
        prompts.reserve(mine.size());
        for (std::size_t k : mine) {
            prompts.push_back(requests[k]);
            prompts.back().output = 1;  // the prefill gives the first token, and the request leaves
        }
        SimulationResult part = simulate(prompts, prefill_limits, prefill_price);
        for (std::size_t j = 0; j < mine.size(); ++j) {
            const Request& r = requests[mine[j]];
            const RequestRecord& q = part.requests[j];
            out.requests[mine[j]] = {r.arrival, q.first_token, q.first_token, r.input,
                                     r.output,  r.prefix,      q.preemptions};
        }
        absorb(part);
    }
    // The decode pool's arrivals: each cache, in the order the caches arrive.
    std::vector<std::size_t> decode_order;
    std::vector<double> cache_arrival(n, 0.0);
    for (std::size_t k = 0; k < n; ++k)
        if (requests[k].output > 1) {
            cache_arrival[k] = out.requests[k].first_token + transfer(requests[k]);
            out.between_engines += cache_arrival[k] - out.requests[k].first_token;
            decode_order.push_back(k);
        }
    std::stable_sort(decode_order.begin(), decode_order.end(),
                     [&](std::size_t a, std::size_t b) { return cache_arrival[a] < cache_arrival[b]; });
    for (long long i = 0; i < pools.decode_instances; ++i) {
        const std::vector<std::size_t> mine = share(decode_order, i, pools.decode_instances);
        if (mine.empty()) continue;
        std::vector<Request> caches;
        caches.reserve(mine.size());
        for (std::size_t k : mine)
            caches.push_back({cache_arrival[k], requests[k].input, requests[k].output - 1, 0, true});
        SimulationResult part = simulate(caches, decode_limits, decode_price);
        for (std::size_t j = 0; j < mine.size(); ++j) {
            RequestRecord& q = out.requests[mine[j]];
            out.token_gaps.emplace_back(part.requests[j].first_token - q.first_token, 1);
            q.finish = part.requests[j].finish;
            q.preemptions += part.requests[j].preemptions;
        }
        absorb(part);
    }
    std::stable_sort(out.steps.begin(), out.steps.end(),
                     [](const StepRecord& a, const StepRecord& b) { return a.start < b.start; });
    return with_front_end_latency(std::move(out), front_end);
}

/// The traffic through `pools` of the layout: prompts on `prefill_gpu`, tokens on
/// `decode_gpu`, each instance an engine with `limits` (its KV blocks its GPU's,
/// kv_cache_blocks), each prompt's cache sent as best_disaggregation prices it
/// (inside a node when both pools are one kind and two instances fit in one, else
/// on the network); `draft` drafts on the decode instances.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] SimulationResult simulate_disaggregated_serving(
    const TransformerShape& m, const Gpu& prefill_gpu, const Gpu& decode_gpu, const ServingFabric& fabric,
    const ServingLayout& l, const std::vector<Request>& requests, const DisaggregatedPools& pools,
    const EngineLimits& limits, const ServingSetup& s = default_serving_setup,
    const Collective& collective = default_ring_collective,
    const std::optional<TransformerShape>& draft = std::nullopt) {
    (void)validated(fabric);
    const EngineLimits prefill_limits = detail::engine_limits_on(m, prefill_gpu, l, requests, limits, s);
    const EngineLimits decode_limits = detail::engine_limits_on(m, decode_gpu, l, requests, limits, s);
    if (draft) {
        (void)validated(*draft);
        require(limits.draft_tokens > 0, "draft tokens", count(limits.draft_tokens),
                "must be at least 1 with a draft model");
    }
    const auto transfer = [&](const Request& r) {
        return detail::prompt_cache_transfer(m, prefill_gpu, decode_gpu, fabric, l, r.input, s, collective).value();
    };
    return simulate_disaggregated(requests, pools, prefill_limits, decode_limits,
                                  StepPrice<Collective>{m, prefill_gpu, fabric, l, s, collective, std::nullopt},
                                  StepPrice<Collective>{m, decode_gpu, fabric, l, s, collective, draft}, transfer);
}

}  // namespace napkin
