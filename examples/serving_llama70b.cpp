// Serving Llama 3.1 70B on 8 H100s: a lesson in five parts.
//
//   serving_llama70b [--out DIR]   writes serving-frontier.svg into DIR (default: <temp>/napkin/serving_llama70b)
//
// 1. Why decoding is memory-bound: each step reads every weight to produce one
//    token per sequence.
// 2. Where reading the KV cache overtakes reading the weights as the batch grows.
// 3. The batch where compute takes over — and why, at long contexts, it never does.
// 4. Prefill against decode: the same weights, a thousand times the work per read.
// 5. The throughput–latency frontier of continuous batching, up to the memory limit.
#include <napkin/io/lesson_args.hpp>

#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/io/svg.hpp>
#include <napkin/serving.hpp>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace napkin;
    const std::string folder = napkin::examples::lesson_args(
        argc, argv, "serving_llama70b", "serving Llama 3.1 70B on 8 H100s: decode, KV reads, prefill, the frontier", true);
    const TransformerShape& model = catalog::llama3_1_70b;
    const Gpu& gpu = catalog::h100_sxm;
    const Link& link = catalog::nvlink4;
    const ServingLayout layout{.tp = 8};
    // The lesson's roofline: data-sheet bandwidth and peak, no engine overhead
    // (napkin serve's default prices the same passes at measured kernel rates).
    const ServingSetup lesson{.profile = roofline_serving};

    std::printf("# Serving %s on %lld x %s (tensor-parallel %lld, %s)\n\n", std::string(model.name).c_str(),
                layout.gpus(), std::string(gpu.name).c_str(), layout.tp, std::string(link.name).c_str());

    // 1. One sequence, no context yet.
    const DecodeStep one = decode_step(model, gpu, link, layout, {1, tokens(0)}, lesson);
    const double ridge = gpu.peak_flops.value() / gpu.memory_bandwidth.value();
    std::printf("## 1. Decoding reads every weight for one token\n");
    std::printf("Each GPU reads its %s of weights per step: %s at %s. The matrix work is 2 FLOPs per weight per\n"
                "token: %s. A 16-bit weight brings 2 FLOPs per sequence for its 2 bytes, 1 FLOP/byte, while the\n"
                "GPU needs %.0f FLOP/byte (%s / %s) to be busy: one sequence leaves it %.1f%% busy.\n\n",
                to_string(serving_weights_per_gpu(model, layout, WeightDType::bf16)).c_str(),
                to_string(one.weights_read).c_str(), to_string(gpu.memory_bandwidth).c_str(),
                to_string(one.compute).c_str(), ridge, to_string(gpu.peak_flops).c_str(),
                to_string(gpu.memory_bandwidth).c_str(), 100.0 * ratio(one.compute, one.weights_read));

    // 2. KV reads against weight reads.
    std::printf("## 2. The KV cache overtakes the weights\n");
    std::printf("Each sequence adds %s of cache per token of context, %s per GPU (8 KV heads over 8 GPUs).\n",
                to_string(kv_cache_per_token(model, 2.0) * tokens(1)).c_str(),
                to_string(kv_cache_per_token(model, 2.0) * tokens(1) / kv_share(model, layout)).c_str());
    for (double context : {1024.0, 4096.0, 8192.0}) {
        long long b = 1;
        while (decode_step(model, gpu, link, layout, {b, tokens(context)}, lesson).kv_read <
               decode_step(model, gpu, link, layout, {b, tokens(context)}, lesson).weights_read)
            ++b;
        std::printf("at %5.0f tokens of context the cache reads overtake the weight reads at %3lld sequences\n",
                    context, b);
    }
    const DecodeStep chats = decode_step(model, gpu, link, layout, {178, tokens(8192)}, lesson);
    std::printf("178 chats at 8,192 tokens: weights %s, KV cache %s per step.\n\n", to_string(chats.weights_read).c_str(),
                to_string(chats.kv_read).c_str());

    // 3. When compute takes over.
    std::printf("## 3. When compute takes over\n");
    for (double context : {128.0, 512.0, 1024.0, 4096.0}) {
        const long long most = max_concurrency(model, gpu, layout, static_cast<long long>(context) + 1);
        long long b = 1;
        while (b <= most && decode_step(model, gpu, link, layout, {b, tokens(context)}, lesson).memory_bound()) ++b;
        if (b <= most)
            std::printf("at %5.0f tokens of context: compute-bound from %lld sequences\n", context, b);
        else
            std::printf("at %5.0f tokens of context: memory-bound up to the %lld sequences that fit\n", context, most);
    }
    std::printf("Each sequence brings 2 FLOPs per weight, but also its own cache to read: attention over a\n"
                "grouped-query cache does 8 query heads' work per KV head read, 8 FLOP/byte, far below %.0f.\n\n",
                ridge);

    // 4. Prefill against decode.
    const PrefillTime prefill = prefill_time(model, gpu, link, layout, 1, 4096, lesson);
    std::printf("## 4. Prefill against decode\n");
    std::printf("A 4,096-token prompt in one pass: %s (compute %s + communication %s): %.0f tokens/s,\n"
                "against %.0f tokens/s decoding one sequence. Prefill reads the weights once for 4,096 tokens:\n"
                "it is compute-bound.\n\n",
                to_string(prefill.total()).c_str(), to_string(prefill.compute).c_str(),
                to_string(prefill.comm).c_str(), 4096.0 / in(prefill.total(), units::s),
                1.0 / in(one.total(), units::s));

    // 5. The frontier.
    const ServingWorkload chat{.input_tokens = 2048, .output_tokens = 512, .concurrency = 1};
    const long long most = max_concurrency(model, gpu, layout, chat.input_tokens + chat.output_tokens);
    std::vector<long long> ns;
    for (long long n = 1; n < most; n *= 2) ns.push_back(n);
    ns.push_back(most);
    const std::vector<ServingEstimate> rows = serving_sweep(model, gpu, link, layout, chat, ns, lesson);
    std::printf("## 5. The throughput-latency frontier (continuous batching, 2,048 in, 512 out)\n");
    std::printf("| N | TTFT | TPOT | tokens/s | per GPU | per user |\n|---|---|---|---|---|---|\n");
    std::vector<std::string> labels;
    io::svg::Series per_gpu{"output tokens/s per GPU", {}, io::svg::palette::blue};
    io::svg::Series per_user{"tokens/s per user", {}, io::svg::palette::vermillion};
    for (const ServingEstimate& r : rows) {
        std::printf("| %lld | %s | %s | %.0f | %.0f | %.1f |\n", r.workload.concurrency, to_string(r.ttft).c_str(),
                    to_string(r.tpot).c_str(), r.output_tokens_per_s.value(), r.output_tokens_per_s_per_gpu.value(),
                    r.output_tokens_per_s_per_user.value());
        labels.push_back(std::to_string(r.workload.concurrency));
        per_gpu.values.push_back(r.output_tokens_per_s_per_gpu.value());
        per_user.values.push_back(r.output_tokens_per_s_per_user.value());
    }
    std::printf("At most %lld chats of 2,560 tokens fit; each doubling buys less throughput and costs every\n"
                "user more time per token.\n",
                most);
    const std::string path = folder + "/serving-frontier.svg";
    io::svg::line_chart("Llama 3.1 70B on 8 H100: throughput against latency", labels, {per_gpu, per_user},
                        "sequences in flight", "tokens/s")
        .save(path);
    std::printf("wrote %s\n", path.c_str());
}
