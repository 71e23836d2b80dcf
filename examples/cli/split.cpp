// napkin split | fewest | best | list — the split lesson from the command line.
#include "command.hpp"
#include "common.hpp"

#include <cstdio>
#include <sstream>

namespace napkin::cli {
namespace {

nlohmann::json memory_json(const InferenceMemory& m, const Gpu& gpu) { return io::json::inference_memory(m, gpu); }

std::vector<long long> parse_counts(const std::string& text) {
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
        if (used != item.size() || item.empty())
            throw napkin::invalid_argument("--gpus \"" + text + "\": \"" + item + "\" is not a whole number");
        require_at_least_one("--gpus", n);
        counts.push_back(n);
    }
    if (counts.empty()) throw napkin::invalid_argument("--gpus \"" + text + "\": give at least one GPU count");
    return counts;
}

Split split_flag(const std::string& text) {
    if (const std::optional<Split> split = parse_split(text)) return *split;
    throw napkin::invalid_argument("--split \"" + text + "\": must be " + names_of(split_names));
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        InferenceOptions inputs;
        std::string gpus = "1,2,4,8,16";
        std::string split = "tensor";
        long long tokens = 1;
        bool json = false, csv = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("split", "memory per GPU and time per token for each GPU count");
    add_inference_options(sub, o->inputs);
    sub->add_option("--gpus", o->gpus, "comma-separated GPU counts (1,2,4,8,16)");
    sub->add_option("--split", o->split, "tensor (slices of every layer) or pipeline (groups of layers)");
    sub->add_option("--tokens", o->tokens, "tokens in flight: chats served together (1)");
    add_json_flag(sub, o->json);
    sub->add_flag("--csv", o->csv, "the table as CSV (bytes, seconds)");
    sub->callback([o] {
        const auto [model, gpu, link, ring, setup] = resolve_inference(o->inputs);
        const Split split = split_flag(o->split);
        require_at_least_one("--tokens", o->tokens);
        const std::vector<long long> counts = parse_counts(o->gpus);
        // Every row is priced before anything is printed: a bad input is one error line.
        nlohmann::json rows = nlohmann::json::array();
        std::string table;
        for (long long n : counts) {
            const InferenceMemory memory = memory_per_gpu(model, n, setup);
            const bool ok = memory.total() <= usable_memory(gpu);
            const TokenTime t = token_time(model, gpu, link, {n, split, o->tokens}, setup, ring);
            rows.push_back({{"gpus", n},
                            {"fits", ok},
                            {"memory", memory_json(memory, gpu)},
                            {"read_s", t.read.value()},
                            {"transfer_s", t.transfer.value()},
                            {"total_s", t.total().value()},
                            {"waiting_share", t.waiting_share()},
                            {"user_tokens_per_s", t.user_tokens_per_second().value()}});
            char line[256];
            if (o->csv)
                std::snprintf(line, sizeof line, "%lld,%d,%.0f,%.9g,%.6g,%.6g\n", n, ok ? 1 : 0,
                              memory.total().value(), t.total().value(), t.waiting_share(),
                              t.user_tokens_per_second().value());
            else
                std::snprintf(line, sizeof line, "%5lld  %-5s  %12s  %12s  %9s  %8s\n", n, ok ? "yes" : "no",
                              to_string(memory.total()).c_str(), ok ? to_string(t.total()).c_str() : "does not fit",
                              ok ? (format_fixed(100 * t.waiting_share(), 1) + "%").c_str() : "",
                              ok ? grouped(t.user_tokens_per_second().value()).c_str() : "");
            table += line;
        }
        if (o->csv) std::printf("gpus,fits,memory_bytes,per_token_s,waiting_share,user_tokens_per_s\n%s", table.c_str());
        else if (!o->json) {
            printf_wrapped("%s on %s over %s, %s split, %lld token(s) in flight\n%5s  %-5s  %12s  %12s  %9s  %8s\n",
                           std::string(model.name).c_str(), std::string(gpu.name).c_str(),
                           std::string(link.name).c_str(), std::string(to_string(split)).c_str(), o->tokens, "GPUs",
                           "fits", "memory/GPU", "per token", "waiting", "tokens/s");
            std::printf("%s", table.c_str());
        }
        if (o->json)
            print_json({{"model", model.name}, {"gpu", gpu.name}, {"link", link.name},
                        {"split", to_string(split)}, {"tokens", o->tokens}, {"rows", rows}});
    });
}

NAPKIN_COMMAND(app) {
    struct Options {
        ModelOptions model;
        GpuOptions gpu;
        SetupOptions setup;
        long long max_gpus = 4096;
        bool json = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("fewest", "the fewest GPUs whose usable memory holds the model");
    add_model_options(sub, o->model);
    add_gpu_options(sub, o->gpu);
    add_setup_options(sub, o->setup);
    sub->add_option("--max-gpus", o->max_gpus, "largest count to try (4096)");
    add_json_flag(sub, o->json);
    sub->callback([o] {
        const TransformerShape model = resolve_model(o->model);
        const Gpu gpu = resolve_gpu(o->gpu);
        const InferenceSetup setup = resolve_setup(o->setup);
        const auto n = fewest_gpus(model, gpu, setup, o->max_gpus);
        if (o->json) {
            nlohmann::json j{{"model", model.name}, {"gpu", gpu.name}, {"gpus", nullptr}};
            if (n) j["gpus"] = *n, j["memory"] = memory_json(memory_per_gpu(model, *n, setup), gpu);
            print_json(j);
        } else if (n) {
            std::printf("%s fits on %lld x %s: %s of %s usable each\n", std::string(model.name).c_str(), *n,
                        std::string(gpu.name).c_str(), to_string(memory_per_gpu(model, *n, setup).total()).c_str(),
                        to_string(usable_memory(gpu)).c_str());
        } else {
            std::printf("%s does not fit on up to %lld x %s\n", std::string(model.name).c_str(), o->max_gpus,
                        std::string(gpu.name).c_str());
        }
    });
}

NAPKIN_COMMAND(app) {
    struct Options {
        InferenceOptions inputs;
        long long tokens = 1;
        long long max_gpus = 64;
        bool divide_heads = false;
        std::string split = "tensor";
        bool json = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("best", "the GPU count with the shortest time per token");
    add_inference_options(sub, o->inputs);
    sub->add_option("--tokens", o->tokens, "tokens in flight (1)");
    sub->add_option("--max-gpus", o->max_gpus, "largest count to try (64)");
    sub->add_flag("--divide-heads", o->divide_heads, "only counts that divide the attention heads");
    sub->add_option("--split", o->split, "tensor or pipeline");
    add_json_flag(sub, o->json);
    sub->callback([o] {
        const auto [model, gpu, link, ring, setup] = resolve_inference(o->inputs);
        require_at_least_one("--tokens", o->tokens);
        require_at_least_one("--max-gpus", o->max_gpus);
        const auto best = best_gpu_count(model, gpu, link,
                                         {o->max_gpus, o->divide_heads, split_flag(o->split), o->tokens}, setup,
                                         ring);
        if (o->json) {
            nlohmann::json j{{"model", model.name}, {"gpu", gpu.name}, {"link", link.name}, {"gpus", nullptr}};
            if (best)
                j["gpus"] = best->gpus, j["total_s"] = best->time.total().value(),
                j["read_s"] = best->time.read.value(), j["transfer_s"] = best->time.transfer.value(),
                j["waiting_share"] = best->time.waiting_share();
            print_json(j);
        } else if (best) {
            std::printf("best: %lld GPUs, %s per token (%.1f%% waiting)\n", best->gpus,
                        to_string(best->time.total()).c_str(), 100 * best->time.waiting_share());
        } else {
            std::printf("no count up to %lld fits\n", o->max_gpus);
        }
    });
}

NAPKIN_COMMAND(app) {
    auto json = make_options<bool>();
    auto* sub = app.add_subcommand("list", "the catalog: models, GPUs, links and nodes (napkin show NAME: one)");
    add_json_flag(sub, *json);
    sub->callback([json] {
        nlohmann::json j{{"models", nlohmann::json::array()}, {"gpus", nlohmann::json::array()},
                         {"links", nlohmann::json::array()}, {"nodes", nlohmann::json::array()}};
        // The 0.1 keys (memory, bandwidth, ... in bytes and seconds) beside io/json.hpp's.
        for (const auto* m : catalog::models) j["models"].push_back(io::json::model(*m));
        for (const auto* g : catalog::gpus) {
            nlohmann::json e = io::json::gpu(*g);
            e.update({{"memory", g->memory.value()},
                      {"memory_bandwidth", g->memory_bandwidth.value()},
                      {"peak_flops", g->peak_flops.value()}});
            j["gpus"].push_back(e);
        }
        for (const auto* l : catalog::links) {
            nlohmann::json e = link_json(*l);
            e.update({{"bandwidth", l->bandwidth.value()}, {"step_latency", l->step_latency.value()}});
            j["links"].push_back(e);
        }
        for (const auto* n : catalog::nodes)
            j["nodes"].push_back({{"name", n->name}, {"gpu", n->gpu.name}, {"gpus", n->gpus},
                                  {"intra_link", n->intra.name}, {"inter_link", n->inter.name},
                                  {"nic", to_string(n->nic)}});
        if (*json) return print_json(j);
        std::printf("models:\n");
        for (const auto* m : catalog::models)
            std::printf("  %-21s %8.2fB weights, %3lld layers%s\n", std::string(m->name).c_str(),
                        count(parameter_count(*m)) / 1e9, m->layers,
                        m->experts > 0 ? (", " + std::to_string(m->experts) + " experts").c_str() : "");
        std::printf("gpus:\n");
        for (const auto* g : catalog::gpus)
            std::printf("  %-20s %s, %s, %s\n", std::string(g->name).c_str(), to_string(g->memory).c_str(),
                        to_string(g->memory_bandwidth).c_str(), to_string(g->peak_flops).c_str());
        std::printf("links (per direction per GPU; * both directions, as the lesson writes it):\n");
        for (const auto* l : catalog::links)
            std::printf("  %-23s %11s%s %9s per step\n", std::string(l->name).c_str(), to_string(l->bandwidth).c_str(),
                        catalog::bandwidth_convention(l->name) == "per direction per GPU" ? " " : "*",
                        to_string(l->step_latency).c_str());
        std::printf("nodes:\n");
        for (const auto* n : catalog::nodes)
            printf_wrapped("  %-20s %lld x %s, %s inside, %s between\n", std::string(n->name).c_str(), n->gpus,
                        std::string(n->gpu.name).c_str(), std::string(n->intra.name).c_str(),
                        std::string(n->inter.name).c_str());
    });
}

}  // namespace napkin::cli
