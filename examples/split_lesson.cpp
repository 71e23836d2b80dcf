// Split one model over several GPUs — the split lesson, computed by napkin.
//
// Prints every table of the lesson (memory per GPU, time per token on each
// link, the waiting share, tokens in flight) and writes its three figures as
// SVG into the folder given as the first argument (default: the current one).
//
//   ./split_lesson [output-folder]
#include <napkin/io/lesson_args.hpp>

#include <napkin/napkin.hpp>
#include <napkin/io/svg.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace napkin;

namespace {

constexpr const Gpu& gpu = catalog::a100_80gb_sxm;
constexpr const Link& fast = catalog::nvlink_a100;
constexpr const Link& slow = catalog::pcie_gen4;
constexpr long long counts[] = {1, 2, 4, 8, 16};

std::string ms(Seconds t) { return format(t, units::ms, 2); }
std::string gib(Bytes b) { return format(b, units::GiB, 2); }
std::string percent(double share) { return format_fixed(100 * share, 1) + "%"; }

TokenTime slices(const TransformerShape& model, long long n, const Link& link, long long tokens_in_flight = 1) {
    return token_time(model, gpu, link, {.gpus = n, .split = Split::tensor, .tokens_in_flight = tokens_in_flight});
}

void the_weights_must_fit() {
    const auto& model = catalog::llama3_1_70b;
    const InferenceMemory four = memory_per_gpu(model, 4);
    std::printf("== The weights must fit ==\n");
    std::printf("The 70B model's weights take %s at 16 bits; one GPU can use %s (%.0f%% of %s).\n",
                gib(weight_bytes(model, 2)).c_str(), format(usable_memory(gpu), units::GiB, 1).c_str(),
                100 * gpu.usable_fraction, format(gpu.memory, units::GiB, 0).c_str());
    std::printf("Split four ways, each GPU holds %s of weights; with the chat's cache and working space, %s.\n",
                gib(four.weights).c_str(), gib(four.total()).c_str());
    std::printf("  by hand: %.0f + %.0f + %.0f = %.0f bytes\n", four.weights.value(), four.kv_cache.value(),
                four.working.value(), four.total().value());
    for (const TransformerShape* m : catalog::models)
        std::printf("  %-14s %10s of weights, fewest GPUs that fit: %lld\n", std::string(m->name).c_str(),
                    gib(weight_bytes(*m, 2)).c_str(), fewest_gpus(*m, gpu).value_or(0));
    std::printf("\nMemory per GPU (weights + cache + working), against %s usable:\n%6s",
                format(usable_memory(gpu), units::GiB, 1).c_str(), "GPUs");
    for (const TransformerShape* m : catalog::models) std::printf("  %16s", std::string(m->name).c_str());
    std::printf("\n");
    for (long long n : counts) {
        std::printf("%6lld", n);
        for (const TransformerShape* m : catalog::models)
            std::printf("  %16s", fits(*m, gpu, n) ? gib(memory_per_gpu(*m, n).total()).c_str() : "does not fit");
        std::printf("\n");
    }
}

void slicing_every_layer() {
    const auto& model = catalog::llama3_1_70b;
    const Bytes message = hidden_vector(model, 2) * tokens(1);
    const CollectiveTime swap = lesson_collective.all_reduce(message, 4, fast);
    std::printf("\n== Slicing every layer ==\n");
    std::printf("One GPU would need %s to read the 70B model's weights; four GPUs each read a quarter in %s.\n",
                ms(weight_read_time(model, gpu, 1)).c_str(), ms(weight_read_time(model, gpu, 4)).c_str());
    std::printf("A swap of %.0f bytes over 4 GPUs takes %s (start-up %s); %lld swaps per token cost %s.\n",
                message.value(), format(swap.total(), units::us, 2).c_str(),
                format(swap.latency, units::us, 2).c_str(), 2 * model.layers,
                ms(slices(model, 4, fast).transfer).c_str());
    std::printf("The 70B model on 4 GPUs, fast link: %s per token, %s of it waiting.\n",
                ms(slices(model, 4, fast).total()).c_str(), percent(slices(model, 4, fast).waiting_share()).c_str());
    std::printf("Waiting at 2, 4, 8 and 16 GPUs: %s, %s, %s and %s.\n",
                percent(slices(model, 2, fast).waiting_share()).c_str(),
                percent(slices(model, 4, fast).waiting_share()).c_str(),
                percent(slices(model, 8, fast).waiting_share()).c_str(),
                percent(slices(model, 16, fast).waiting_share()).c_str());
}

void when_more_gpus_stop_helping() {
    const auto& model = catalog::llama3_1_8b;
    std::printf("\n== When more GPUs stop helping: one user, 8B model (ms per token) ==\n");
    std::printf("| GPUs | Fast link | Slow link |\n|---|---|---|\n");
    for (long long n : counts)
        std::printf("| %lld | %s | %s |\n", n, format_fixed(in(slices(model, n, fast).total(), units::ms), 2).c_str(),
                    format_fixed(in(slices(model, n, slow).total(), units::ms), 2).c_str());
    for (const Link* link : {&fast, &slow}) {
        std::printf("Waiting on %s at 2, 4, 8 and 16 GPUs:", std::string(link->name).c_str());
        for (long long n : {2, 4, 8, 16}) std::printf(" %s", percent(slices(model, n, *link).waiting_share()).c_str());
        std::printf("\n");
    }
    std::printf("Speed-up of each doubling on the fast link:");
    for (std::size_t i = 0; i + 1 < std::size(counts); ++i)
        std::printf(" %.2f", ratio(slices(model, counts[i], fast).total(), slices(model, counts[i + 1], fast).total()));
    std::printf("\n");
    std::printf("Best GPU count for one user (any count up to 64 / only counts dividing the heads):\n");
    for (const TransformerShape* m : catalog::models) {
        std::printf("  %-14s", std::string(m->name).c_str());
        for (const Link* link : {&fast, &slow})
            std::printf("  %s: %lld / %lld", std::string(link->name).c_str(),
                        best_gpu_count(*m, gpu, *link)->gpus,
                        best_gpu_count(*m, gpu, *link, {.divide_heads = true})->gpus);
        std::printf("\n");
    }
}

void many_tokens_at_once() {
    const auto& model = catalog::llama3_1_70b;
    std::printf("\n== Many tokens at once: 70B on 8 GPUs (ms per step) ==\n");
    std::printf("| Tokens | Fast link | Slow link |\n|---|---|---|\n");
    for (long long w : {1, 16, 64})
        std::printf("| %lld | %s | %s |\n", w, format_fixed(in(slices(model, 8, fast, w).total(), units::ms), 2).c_str(),
                    format_fixed(in(slices(model, 8, slow, w).total(), units::ms), 2).c_str());
    for (const Link* link : {&fast, &slow}) {
        std::printf("Waiting on %s at 1, 16 and 64 tokens:", std::string(link->name).c_str());
        for (long long w : {1, 16, 64}) std::printf(" %s", percent(slices(model, 8, *link, w).waiting_share()).c_str());
        std::printf("\n");
    }
}

void groups_of_layers() {
    const auto& model = catalog::llama3_1_70b;
    const TokenTime groups = token_time(model, gpu, fast, {.gpus = 4, .split = Split::pipeline});
    std::printf("\n== Another way to split: groups of layers ==\n");
    std::printf("70B on four groups: %s per token against %s of reading alone, %s of it waiting.\n",
                ms(groups.total()).c_str(), ms(weight_read_time(model, gpu, 1)).c_str(),
                (format_fixed(100 * groups.waiting_share(), 2) + "%").c_str());
}

void write_figures(const std::string& folder) {
    namespace svg = io::svg;
    const auto& big = catalog::llama3_1_70b;
    const double usable = in(usable_memory(gpu), units::GiB);
    const double whole = in(weight_bytes(big, 2), units::GiB);
    const double quarter = in(memory_per_gpu(big, 4).weights, units::GiB);
    svg::horizontal_bars("The 70B model's weights against one GPU's usable memory",
                         {{"1 GPU", {{whole, svg::palette::blue}}, gib(weight_bytes(big, 2)) + ": does not fit"},
                          {"4 GPUs, each", {{quarter, svg::palette::green}}, gib(memory_per_gpu(big, 4).weights)}},
                         "GiB of weights per GPU", {},
                         {{usable, format(usable_memory(gpu), units::GiB, 1) + " usable"}})
        .save(folder + "/weights-split.svg");

    std::vector<svg::Bar> bars;
    for (long long n : {2, 4, 8, 16}) {
        const TokenTime t = slices(big, n, fast);
        bars.push_back({std::to_string(n) + " GPUs",
                        {{in(t.read, units::ms), svg::palette::green}, {in(t.transfer, units::ms), svg::palette::ink, true}},
                        ms(t.total()) + ", " + percent(t.waiting_share()) + " waiting"});
    }
    svg::horizontal_bars("One token from the 70B model on the fast link", bars, "milliseconds per token",
                         {{"reading", svg::palette::green}, {"waiting", svg::palette::ink, true}})
        .save(folder + "/time-per-token.svg");

    std::vector<std::string> labels;
    std::vector<double> on_fast, on_slow;
    for (long long n : counts) {
        labels.push_back(std::to_string(n));
        on_fast.push_back(slices(catalog::llama3_1_8b, n, fast).user_tokens_per_second().value());
        on_slow.push_back(slices(catalog::llama3_1_8b, n, slow).user_tokens_per_second().value());
    }
    svg::line_chart("The 8B model, one user: tokens per second", labels,
                    {{"fast link (NVLink)", on_fast, svg::palette::blue},
                     {"slow link (PCIe)", on_slow, svg::palette::orange}},
                    "GPUs", "tokens per second")
        .save(folder + "/tokens-per-second.svg");
    std::printf("\nFigures: %s/weights-split.svg, %s/time-per-token.svg, %s/tokens-per-second.svg\n", folder.c_str(),
                folder.c_str(), folder.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const std::string folder = napkin::examples::lesson_args(
        argc, argv, "split_lesson", "the lesson \"split one model over GPUs\": every table and its three figures",
        true);
    the_weights_must_fit();
    slicing_every_layer();
    when_more_gpus_stop_helping();
    many_tokens_at_once();
    groups_of_layers();
    write_figures(folder);
}
