// napkin plan | plan-inference — the planners from the command line.
#include "command.hpp"
#include "common.hpp"

#include <napkin/inference_planner.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace napkin::cli {
namespace {

nlohmann::json search_json(long long evaluated, long long rejected, double seconds) {
    return {{"points_evaluated", evaluated},
            {"points_rejected", rejected},
            {"seconds", seconds},
            {"points_per_second", seconds > 0 ? static_cast<double>(evaluated) / seconds : 0.0}};
}

nlohmann::json inference_candidate_json(const InferenceCandidate& c, const Gpu& gpu) {
    return {{"tp", c.split.tp},
            {"pp", c.split.pp},
            {"gpus", c.split.gpus()},
            {"tokens_in_flight", c.split.tokens_in_flight},
            {"memory",
             {{"weights", c.memory.weights.value()},
              {"kv_cache", c.memory.kv_cache.value()},
              {"working", c.memory.working.value()},
              {"total", c.memory.total().value()},
              {"usable", usable_memory(gpu).value()}}},
            {"read_s", c.time.read.value()},
            {"transfer_s", c.time.transfer.value()},
            {"total_s", c.time.total().value()},
            {"user_tokens_per_s", c.time.user_tokens_per_second().value()},
            {"tokens_per_s", c.tokens_per_second().value()}};
}

void print_inference_candidate(const char* what, const InferenceCandidate& c) {
    std::printf("%-8s t%lld x p%lld = %lld GPUs, %lld token(s) in flight: %s per token (%s read + %s waiting), "
                "%.1f tokens/s in all, %s per GPU\n",
                what, c.split.tp, c.split.pp, c.split.gpus(), c.split.tokens_in_flight,
                to_string(c.time.total()).c_str(), to_string(c.time.read).c_str(),
                to_string(c.time.transfer).c_str(), c.tokens_per_second().value(),
                to_string(c.memory.total()).c_str());
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        ModelOptions model;
        GpuOptions gpu;
        LinkOptions link;
        SetupOptions setup;
        long long max_gpus = 64;
        long long max_tokens = 1024;
        std::optional<double> latency_ms;
        std::string objective;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* sub = app.add_subcommand(
        "plan-inference", "the fewest GPUs, and the tensor x pipeline split and tokens in flight that give the "
                          "lowest time per token (or the most tokens/s under --latency-ms)");
    add_model_options(sub, o->model);
    add_gpu_options(sub, o->gpu);
    add_link_options(sub, o->link);
    add_setup_options(sub, o->setup);
    sub->add_option("--max-gpus", o->max_gpus, "largest tp x pp to try (64)");
    sub->add_option("--max-tokens", o->max_tokens, "most tokens in flight (chats served together) to try (1024)");
    sub->add_option("--latency-ms", o->latency_ms,
                    "longest time per token a user may wait, in ms; the plan then maximises tokens/s");
    sub->add_option("--objective", o->objective,
                    "latency or throughput (default: latency, throughput when --latency-ms is given)");
    sub->add_flag("--json", o->json, "machine-readable output in bytes and seconds");
    sub->callback([o] {
        const TransformerShape model = resolve_model(o->model);
        const Gpu gpu = resolve_gpu(o->gpu);
        const Link link = resolve_link(o->link);
        const InferenceSetup setup = resolve_setup(o->setup);
        detail::require_at_least_one("--max-gpus", o->max_gpus);
        detail::require_at_least_one("--max-tokens", o->max_tokens);
        InferencePlanQuery query{.max_gpus = o->max_gpus, .max_tokens_in_flight = o->max_tokens};
        if (o->latency_ms) {
            detail::require_positive("--latency-ms", *o->latency_ms);
            query.latency_bound = milliseconds(*o->latency_ms);
            query.objective = InferenceObjective::throughput;
        }
        if (o->objective == "latency") query.objective = InferenceObjective::latency;
        else if (o->objective == "throughput") query.objective = InferenceObjective::throughput;
        else if (!o->objective.empty())
            throw napkin::invalid_argument("--objective \"" + o->objective + "\": must be latency or throughput");

        const auto start = std::chrono::steady_clock::now();
        const InferencePlan plan = plan_inference(model, gpu, link, query, setup, resolve_ring(o->link));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string objective = query.objective == InferenceObjective::latency ? "latency" : "throughput";

        if (o->json) {
            nlohmann::json j{{"model", model.name},   {"gpu", gpu.name},           {"link", link.name},
                             {"objective", objective}, {"max_gpus", o->max_gpus}, {"fewest", nullptr},
                             {"best", nullptr}};
            j["latency_bound_s"] = nullptr;
            if (o->latency_ms) j["latency_bound_s"] = in(query.latency_bound, units::s);
            if (plan.fewest) j["fewest"] = inference_candidate_json(*plan.fewest, gpu);
            if (plan.best) j["best"] = inference_candidate_json(*plan.best, gpu);
            j["search"] = search_json(plan.points_evaluated, plan.rejected_memory + plan.rejected_latency, seconds);
            j["search"]["rejected"] = {{"memory", plan.rejected_memory}, {"latency", plan.rejected_latency}};
            j["search"]["points_pruned"] = plan.pruned;
            return print_json(j);
        }
        std::printf("%s on %s over %s (tp dividing %lld heads, pp dividing %lld layers, up to %lld GPUs)\n",
                    std::string(model.name).c_str(), std::string(gpu.name).c_str(), std::string(link.name).c_str(),
                    model.heads, model.layers, o->max_gpus);
        if (!plan.fewest) {
            std::printf("does not fit on any split of up to %lld GPUs\n", o->max_gpus);
            return;
        }
        print_inference_candidate("fewest:", *plan.fewest);
        if (plan.best)
            print_inference_candidate(objective == "latency" ? "fastest:" : "most:", *plan.best);
        else
            std::printf("no split meets the latency bound of %s\n", to_string(query.latency_bound).c_str());
        std::printf("search: %lld points evaluated, %lld rejected (%lld memory, %lld latency), %lld pruned, %.3f s\n",
                    plan.points_evaluated, plan.rejected_memory + plan.rejected_latency, plan.rejected_memory,
                    plan.rejected_latency, plan.pruned, seconds);
    });
}

}  // namespace napkin::cli
