// SPDX-License-Identifier: MIT
// napkin show NAME — one catalog entry (model, GPU, link or node) with its source.
#include "command.hpp"
#include "common.hpp"

#include <napkin/kernels.hpp>
#include <napkin/serving.hpp>

#include <cstdio>
#include <map>
#include <sstream>

namespace napkin::cli {
namespace {

// Where each entry's figures come from (the comments beside them in
// include/napkin/catalog/, in short). An entry missing here points there.
const std::map<std::string, std::string, std::less<>>& sources() {
    static const std::map<std::string, std::string, std::less<>> all{
        {"llama3.1-8b", "config.json of meta-llama/Llama-3.1-8B (Hugging Face)"},
        {"llama3.1-70b", "config.json of meta-llama/Llama-3.1-70B (Hugging Face)"},
        {"llama3.1-405b", "The Llama 3 Herd of Models (arXiv 2407.21783), Table 3"},
        {"llama3.2-1b", "config.json of meta-llama/Llama-3.2-1B (Hugging Face); card: 1.23B"},
        {"llama3.2-3b", "config.json of meta-llama/Llama-3.2-3B (Hugging Face); card: 3.21B"},
        {"llama3.3-70b", "config.json of meta-llama/Llama-3.3-70B-Instruct (Hugging Face); hub: 70.6B"},
        {"mistral-7b", "config.json of mistralai/Mistral-7B-v0.1 (Hugging Face); hub: 7.24B"},
        {"mixtral-8x7b", "config.json of mistralai/Mixtral-8x7B-v0.1 (Hugging Face); hub: 46.7B"},
        {"mixtral-8x22b", "config.json of mistralai/Mixtral-8x22B-v0.1 (Hugging Face); hub: 141B"},
        {"qwen3-8b", "config.json of Qwen/Qwen3-8B (Hugging Face); card: 8.2B"},
        {"qwen3-32b", "config.json of Qwen/Qwen3-32B (Hugging Face); card: 32.8B"},
        {"phi3-mini", "config.json of microsoft/Phi-3-mini-4k-instruct (Hugging Face); hub: 3.82B"},
        {"phi4", "config.json of microsoft/phi-4 (Hugging Face); hub: 14.7B"},
        {"qwen3-30b-a3b", "config.json of Qwen/Qwen3-30B-A3B (Hugging Face); card: 30.5B, 3.3B active"},
        {"qwen3-235b-a22b", "config.json of Qwen/Qwen3-235B-A22B (Hugging Face); card: 235B, 22B active"},
        {"deepseek-v3", "config.json of deepseek-ai/DeepSeek-V3 (Hugging Face); card: 671B, 37B active"},
        {"qwen2.5-0.5b", "config.json of Qwen/Qwen2.5-0.5B (Hugging Face); card: 0.49B"},
        {"qwen2.5-7b", "config.json of Qwen/Qwen2.5-7B (Hugging Face); card: 7.61B"},
        {"qwen2.5-72b", "config.json of Qwen/Qwen2.5-72B (Hugging Face); card: 72.7B"},
        {"deepseek-r1", "config.json of deepseek-ai/DeepSeek-R1 (V3's shape); card: 671B, 37B active"},
        {"deepseek-v3.1", "config.json of deepseek-ai/DeepSeek-V3.1 (V3's shape); card: 671B, 37B active"},
        {"kimi-k2", "config.json of moonshotai/Kimi-K2-Instruct (Hugging Face); card: 1T, 32B active"},
        {"glm-4.5", "config.json of zai-org/GLM-4.5 (Hugging Face); card: 355B, 32B active"},
        {"qwen3-235b-a22b-2507", "config.json of Qwen/Qwen3-235B-A22B-Instruct-2507; card: 235B, 22B active"},
        {"qwen3-coder-480b-a35b", "config.json of Qwen/Qwen3-Coder-480B-A35B-Instruct; card: 480B, 35B active"},
        {"mistral-large-2", "config.json of mistralai/Mistral-Large-Instruct-2407 (Hugging Face); card: 123B"},
        {"gpt-oss-20b", "config.json of openai/gpt-oss-20b (Hugging Face); card: 21B, 3.6B active"},
        {"gpt-oss-120b", "config.json of openai/gpt-oss-120b (Hugging Face); card: 117B, 5.1B active"},
        {"llama4-scout", "config.json of meta-llama/Llama-4-Scout-17B-16E; card: 109B, 17B active"},
        {"llama4-maverick", "config.json of meta-llama/Llama-4-Maverick-17B-128E; card: 400B, 17B active"},
        {"gemma2-2b", "config.json of google/gemma-2-2b (Hugging Face); hub: 2.61B"},
        {"gemma2-9b", "config.json of google/gemma-2-9b (Hugging Face); hub: 9.24B"},
        {"gemma2-27b", "config.json of google/gemma-2-27b (Hugging Face); hub: 27.2B"},
        {"gemma3-1b", "config.json of google/gemma-3-1b-pt (Hugging Face); hub: 1,000M"},
        {"gemma3-4b", "config.json of google/gemma-3-4b-pt (Hugging Face); hub: 4.3B"},
        {"gemma3-12b", "config.json of google/gemma-3-12b-pt (Hugging Face); hub: 12.2B"},
        {"gemma3-27b", "config.json of google/gemma-3-27b-pt (Hugging Face); hub: 27.4B"},
        {"megatron-22b", "Korthikanti et al. 2022 (arXiv 2205.05198), Table 3"},
        {"gpt3-175b", "Brown et al. 2020, Table 2.1; Korthikanti et al. 2022, Table 3"},
        {"turing-nlg-530b", "Smith et al. 2022; Korthikanti et al. 2022, Table 3"},
        {"megatron-1t", "Narayanan et al. 2021, Table 1; Korthikanti et al. 2022, Table 3"},
        {"gpt2-small", "Radford et al. 2019, Table 2; config.json of openai-community/gpt2"},
        {"gpt2-medium", "Radford et al. 2019, Table 2; config.json of openai-community/gpt2-medium"},
        {"gpt2-large", "Radford et al. 2019, Table 2; config.json of openai-community/gpt2-large"},
        {"gpt2-xl", "Radford et al. 2019, Table 2; config.json of openai-community/gpt2-xl"},
        {"nvlink-a100", "NVIDIA A100 data sheet: NVLink 600 GB/s (both directions, as written)"},
        {"pcie-gen4", "NVIDIA A100 data sheet: PCIe Gen4 64 GB/s (both directions, as written)"},
        {"nvlink3", "Krashinsky et al. 2020 (NVIDIA Ampere in depth): 12 links × 25 GB/s each way"},
        {"nvlink4", "NVIDIA H100 data sheet: 900 GB/s both directions, 450 each way"},
        {"nvlink5", "NVIDIA DGX B200 / GB200 NVL72 data sheets: 1.8 TB/s both directions"},
        {"pcie4", "PCI-SIG PCIe 4.0: 16 GT/s × 16 lanes, 128b/130b, each way"},
        {"pcie5", "PCI-SIG PCIe 5.0: 32 GT/s × 16 lanes, 128b/130b, each way"},
        {"ib-hdr", "NVIDIA ConnectX-6 data sheet: 200 Gb/s; NCCL tuning.cc NET hop latency"},
        {"ib-ndr", "NVIDIA ConnectX-7 data sheet: 400 Gb/s; NCCL tuning.cc NET hop latency"},
        {"ib-xdr", "NVIDIA ConnectX-8 SuperNIC data sheet: 800 Gb/s; NCCL tuning.cc NET"},
        {"roce-400g", "NVIDIA ConnectX-7 400GbE / Spectrum-X: 400 Gb/s; NCCL tuning.cc NET"},
        {"efa-p5", "AWS EC2 P5: 3,200 Gb/s EFA per 8 H100s; NCCL tuning.cc NET"},
        {"efa-p4d", "AWS EC2 P4d: 400 Gb/s EFA per 8 A100s; NCCL tuning.cc NET"},
        {"infinity-fabric-mi300x", "AMD Instinct MI300X data sheet: 7 links × 128 GB/s both directions"},
        {"infinity-fabric-mi355x", "AMD Instinct MI355X data sheet: 7 links × 153.6 GB/s both directions"},
        {"nvlink2", "NVIDIA V100 data sheet: NVLink 300 GB/s both directions, 150 each way"},
        {"nvlink4-gh200-pair", "CSCS Alps GH200 nodes: 6 NVLink 4 links of 25 GB/s each way per pair"},
        {"slingshot-11", "HPE Slingshot data sheet: one 200 Gb/s Cassini NIC per GPU; NCCL NET"},
        {"spectrum-x-800g", "NVIDIA Spectrum-X800 / ConnectX-8 SuperNIC: 800 Gb/s Ethernet; NCCL NET"},
        {"pollara-400", "AMD Pensando Pollara 400 AI NIC product brief: 400 Gb/s; NCCL NET"},
        {"efa-v3", "AWS EC2 P5en: 3,200 Gb/s EFAv3 per 8 H200s; NCCL tuning.cc NET"},
        {"efa-v4", "AWS EC2 P6-B200: 3,200 Gb/s EFAv4 per 8 B200s; NCCL tuning.cc NET"},
        {"gpudirect-tcpxo", "Google Cloud A3 Mega: 1,600 Gb/s GPUDirect-TCPXO per 8 H100s; NCCL NET"},
        {"hgx-mi300x", "AMD Instinct MI300X platform data sheet: 8 GPUs on Infinity Fabric"},
        {"gh200-quad", "CSCS Alps: four GH200 per node, each pair on 6 NVLink 4 links"},
        {"dgx-a100", "NVIDIA DGX A100 data sheet (80 GB)"},
        {"dgx-h100", "NVIDIA DGX H100 data sheet"},
        {"dgx-b200", "NVIDIA DGX B200 data sheet"},
        {"gb200-nvl72", "NVIDIA GB200 NVL72 data sheet"},
    };
    return all;
}

std::string source_of(std::string_view name) {
    if (const auto g = catalog::find_gpu(name); g && !g->source.empty()) return std::string(g->source);
    const auto found = sources().find(name);
    return found != sources().end() ? found->second : "the comment beside it in include/napkin/catalog/";
}

// The narrower tensor formats' dense peaks and the board power: "FP8 1.98 PFLOP/s, INT8 1.98 POP/s; 700 W".
std::string narrow_formats(const Gpu& g) {
    std::string text;
    const auto add = [&](const char* format, FlopsPerSecond rate, bool ops) {
        if (rate.value() <= 0) return;
        std::string figure = to_string(rate);
        if (ops) figure.replace(figure.find("FLOP/s"), 6, "OP/s");
        text += (text.empty() ? "" : ", ") + std::string(format) + " " + figure;
    };
    add("FP8", g.fp8_flops, false);
    add("FP6", g.fp6_flops, false);
    add("FP4", g.fp4_flops, false);
    add("INT8", g.int8_ops, true);
    if (text.empty()) text = "no FP8, FP6, FP4 or INT8 tensor rate";
    if (g.board_power.value() > 0) text += "; " + to_string(g.board_power);
    return text + " (dense, per the data sheet)";
}

// What the measured kernel profile takes for the GPU (napkin/kernels/): its shares and launch cost.
struct KernelFacts {
    double gemm_16bit, gemm_fp8, stream_16bit, stream_fp8, element_wise;
    Seconds launch;
};
KernelFacts kernel_facts(const Gpu& g) {
    const Architecture a = g.architecture;
    constexpr KernelProfile k = KernelProfile::measured;
    return {.gemm_16bit = gemm_ceiling(a, DType::bf16, k),
            .gemm_fp8 = gemm_ceiling(a, DType::fp8, k),
            .stream_16bit = gemm_stream_share(a, DType::bf16, k),
            .stream_fp8 = gemm_stream_share(a, DType::fp8, k),
            .element_wise = hbm_share(a, k),
            .launch = launch_cost(a, k)};
}
// "measured kernels (132 SMs, hopper): best GEMM 80.3 % of the peak (FP8 70.9 %), ...": what the
// measured profile takes, "none measured" where the generation has no row (the data sheet's figure).
std::string kernel_text(const Gpu& g) {
    const KernelFacts f = kernel_facts(g);
    const auto pct = [](double share) {
        return share == 1.0 ? std::string("100 % (none measured)") : format_fixed(100.0 * share, 1) + " %";
    };
    const bool fp8 = g.fp8_flops.value() > 0;
    return "measured kernels (" + std::to_string(g.sm_count) + " SMs, " + std::string(to_string(g.architecture)) +
           "): best GEMM " + pct(f.gemm_16bit) + " of the peak" + (fp8 ? ", FP8 " + pct(f.gemm_fp8) : "") +
           "; decode GEMMs stream " + pct(f.stream_16bit) + " of the bandwidth" +
           (fp8 ? ", FP8 " + pct(f.stream_fp8) : "") + "; element-wise passes " + pct(f.element_wise) +
           "; a launch " + (f.launch.value() > 0 ? to_string(f.launch) : std::string("none measured"));
}
nlohmann::json kernel_json(const Gpu& g) {
    const KernelFacts f = kernel_facts(g);
    return {{"gemm_ceiling_16bit", f.gemm_16bit}, {"gemm_ceiling_fp8", f.gemm_fp8},
            {"gemm_stream_share_16bit", f.stream_16bit}, {"gemm_stream_share_fp8", f.stream_fp8},
            {"element_wise_share", f.element_wise}, {"launch_s", f.launch.value()}};
}

bool looks_like_path(const std::string& name) { return name.find('/') != std::string::npos || name.ends_with(".json"); }

std::string link_text(const Link& l) {
    return std::string(l.name) + ": " + to_string(l.bandwidth) + ", " + to_string(l.step_latency) + " per step";
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        std::string name, model;
        bool json = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("show", "one catalog entry (model, GPU, link or node) with its source");
    sub->add_option("name", o->name, "its catalog name (napkin list), or a config.json's path");
    sub->add_option("--model", o->model, "a Hugging Face config.json: prints what napkin reads from it");
    add_json_flag(sub, o->json);
    sub->callback([o] {
        if (o->name.empty() == o->model.empty())
            throw napkin::invalid_argument("show: give a catalog name or --model FILE (one of them)");
        nlohmann::json j;
        std::string text;
        // A config.json (--model FILE, or a path as the name): what the reader made of it.
        std::optional<TransformerShape> from_file;
        std::string file_source;
        if (!o->model.empty() || (!catalog::find_model(o->name) && looks_like_path(o->name))) {
            const std::string path = o->model.empty() ? o->name : o->model;
            from_file = resolve_model(ModelOptions{path});
            file_source = "read from " + path + " (napkin's reading of its config.json)";
        }
        if (const auto m = from_file ? from_file : catalog::find_model(o->name)) {
            j = {{"kind", "model"}, {"model", io::json::model(*m)}};
            text = "model " + std::string(m->name) + ": " + grouped(parameter_count(*m)) + " weights";
            if (m->experts > 0) text += " (" + grouped(active_parameter_count(*m)) + " active)";
            // Latent attention's heads: Q·K over nope + rope dimensions, V its own width, one cached latent.
            const std::string heads =
                latent_attention(*m)
                    ? std::to_string(m->heads) + " heads of " + std::to_string(m->qk_nope_head_dim) + " + " +
                          std::to_string(m->qk_rope_head_dim) + " (Q·K), " + std::to_string(m->v_head_dim) +
                          " (V), latent " + std::to_string(m->kv_lora_rank)
                    : std::to_string(m->heads) + " heads (" + std::to_string(m->kv_heads) + " KV) of " +
                          std::to_string(head_dim(*m));
            text += "\n  " + std::to_string(m->layers) + " layers, hidden " + grouped(m->hidden) + ", ffn " +
                    grouped(m->ffn) + ", " + heads + ", vocabulary " + grouped(m->vocabulary) +
                    (m->tied_embeddings ? ", tied embeddings" : "");
            if (m->experts > 0)
                text += ", " + std::to_string(m->experts) + " experts (" + std::to_string(m->experts_per_token) +
                        " per token) of " + grouped(m->expert_ffn);
            if (m->shared_experts > 0)
                text += ", " + std::to_string(m->shared_experts) + " shared of " + grouped(m->shared_expert_ffn);
            if (m->dense_layers == 1) text += ", the first layer dense";
            if (m->dense_layers > 1) text += ", the first " + std::to_string(m->dense_layers) + " layers dense";
            if (m->experts > 0 && m->moe_every > 1)
                text += ", MoE on one layer in " + std::to_string(m->moe_every) + " (" +
                        std::to_string(moe_layers(*m)) + " of " + std::to_string(m->layers) + ")";
            if (m->norms_per_layer != 2) text += ", " + std::to_string(m->norms_per_layer) + " norms a layer";
            if (m->sliding_window > 0)
                text += "\n  sliding window of " + grouped(m->sliding_window) + " tokens on " +
                        std::to_string(local_attention_layers(*m)) + " of " + std::to_string(m->layers) +
                        " layers, " + std::to_string(global_attention_layers(*m)) + " global";
            if (m->vision_weights > 0)
                text += "\n  vision tower: " + grouped(m->vision_weights) +
                        " of the weights (its compute is not modelled)";
        } else if (const auto g = catalog::find_gpu(o->name)) {
            std::vector<std::string> formats;  // serve's --weight-dtype choices the data sheet allows
            for (const auto& named : weight_dtype_names)
                if (missing_for(*g, named.value).empty()) formats.emplace_back(named.name);
            j = {{"kind", "gpu"}, {"gpu", io::json::gpu(*g)}, {"kernels", kernel_json(*g)}, {"weight_dtypes", formats}};
            text = "gpu " + std::string(g->name) + ": " + to_string(g->memory) + " (" +
                   to_string(usable_memory(*g)) + " usable), " + to_string(g->memory_bandwidth) + ", " +
                   to_string(g->peak_flops) + " dense 16-bit";
            text += "\n  " + narrow_formats(*g);
            text += "\n  " + kernel_text(*g);
            text += "\n  serves weights in " + computable_formats(*g) + " (serve --weight-dtype)";
        } else if (const auto l = catalog::find_link(o->name)) {
            j = {{"kind", "link"}, {"link", link_json(*l)}};
            text = "link " + link_text(*l) + "\n  bandwidth: " + std::string(catalog::bandwidth_convention(l->name));
        } else if (const auto n = catalog::find_node(o->name)) {
            j = {{"kind", "node"},
                 {"node",
                  {{"name", n->name},
                   {"gpu", io::json::gpu(n->gpu)},
                   {"gpus", n->gpus},
                   {"intra_link", link_json(n->intra)},
                   {"inter_link", link_json(n->inter)},
                   {"nic", to_string(n->nic)}}}};
            text = "node " + std::string(n->name) + ": " + std::to_string(n->gpus) + " x " + std::string(n->gpu.name) +
                   "\n  inside: " + link_text(n->intra) + "\n  between: " + link_text(n->inter) + " (NIC " +
                   std::string(to_string(n->nic)) + ")";
        } else {
            std::vector<std::string> names = names_of(catalog::models);
            for (const auto& list : {names_of(catalog::gpus), names_of(catalog::links), names_of(catalog::nodes)})
                names.insert(names.end(), list.begin(), list.end());
            not_in_catalog("show", o->name, names);
        }
        const std::string source = from_file ? file_source : source_of(o->name);
        j["source"] = source;
        if (o->json) return print_json(j);
        std::istringstream lines(text + "\n  source: " + source);
        for (std::string line; std::getline(lines, line);) std::printf("%s\n", wrap_line(line).c_str());
    });
}

}  // namespace napkin::cli
