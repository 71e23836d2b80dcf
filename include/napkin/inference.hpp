// SPDX-License-Identifier: MIT
// napkin/inference.hpp — one model split over n GPUs to generate tokens: the
// memory each GPU needs and the time one generated token takes, for a tensor
// split ("slices": every layer cut into n parts) or a pipeline split
// ("groups": each GPU holds whole layers).
//
// The model follows the split lesson (shared reference
// lesson-split-one-model-over-gpus.txt): weights are read once per step (of a
// mixture of experts, the experts the step's tokens hit), reading and
// computing overlap, and the communication comes on top.
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/names.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

namespace napkin {

/// What the serving process keeps besides the weights. The defaults are the
/// lesson's ("lesson 18") setup: 16-bit weights and cache, an 8,192-token chat,
/// 2,048 tokens of working memory and a 1 GiB allowance.
struct InferenceSetup {
    double bytes_per_weight = 2.0;       // BF16
    double bytes_per_cache_value = 2.0;  // 16-bit KV cache
    double bytes_per_activation = 2.0;   // 16-bit hidden vectors, also on the wire
    Tokens context = tokens(8192);       // the chat whose KV cache must fit
    Tokens working_tokens = tokens(2048);
    Bytes working_allowance = gibibytes(1);
    // Megatron-LM (Shoeybi et al. 2019, arXiv 1909.08053, Sec. 3): one all-reduce
    // after the attention block and one after the feed-forward block.
    long long all_reduces_per_layer = 2;
};

/// The serving process's default setup: InferenceSetup's defaults (16-bit weights and cache, an 8,192-token
/// chat, 2,048 working tokens, 1 GiB allowance).
inline constexpr InferenceSetup default_inference_setup{};

/// The default tensor-parallel collective: NCCL's ring with the low-latency protocol's base latency.
inline constexpr Ring default_ring_collective{nccl::ring_ll_base_latency};

/// The lessons' names for the two defaults above (lesson 18 and its split lab); they keep working.
inline constexpr const InferenceSetup& lesson_setup = default_inference_setup;  ///< the lesson's setup
inline constexpr const Ring& lesson_collective = default_ring_collective;       ///< the lesson's collective

/// How the model is split over n GPUs: tensor ("slices") or pipeline ("groups").
enum class Split {
    tensor,   // "slices": every layer cut n ways, two all-reduces per layer
    pipeline  // "groups": consecutive layers per GPU, one hand-off between groups
};

/// The splits' names, as to_string writes and parse_split reads them.
inline constexpr std::array split_names{Named{Split::tensor, "tensor"}, Named{Split::pipeline, "pipeline"}};
/// The split's name: "tensor" or "pipeline".
[[nodiscard]] constexpr std::string_view to_string(Split split) { return name_of(split, split_names); }
/// The split a name stands for; none for an unknown name.
[[nodiscard]] constexpr std::optional<Split> parse_split(std::string_view text) { return value_of(text, split_names); }

namespace detail {
constexpr void check_setup(const InferenceSetup& s) {
    require_positive("InferenceSetup.bytes_per_weight", s.bytes_per_weight);
    require_positive("InferenceSetup.bytes_per_cache_value", s.bytes_per_cache_value);
    require_positive("InferenceSetup.bytes_per_activation", s.bytes_per_activation);
    require_non_negative("InferenceSetup.context (tokens)", s.context.value());
    require_non_negative("InferenceSetup.working_tokens", s.working_tokens.value());
    require_non_negative("InferenceSetup.working_allowance (bytes)", s.working_allowance.value());
    require_non_negative("InferenceSetup.all_reduces_per_layer", count(s.all_reduces_per_layer));
    require(s.all_reduces_per_layer <= 1024, "InferenceSetup.all_reduces_per_layer", count(s.all_reduces_per_layer),
            "must be at most 1024");
}
}  // namespace detail

// ---------------------------------------------------------------------------
// Memory per GPU

/// The memory one GPU needs, in bytes: its share of the weights and of the KV cache, and working memory.
struct InferenceMemory {
    Bytes weights;
    Bytes kv_cache;
    Bytes working;
    [[nodiscard]] constexpr Bytes total() const { return weights + kv_cache + working; }
};

namespace detail {
/// A checked model with its weight counts worked out once: the time per token
/// and the searches over GPU counts price every count from them.
struct CountedModel {
    const TransformerShape& shape;
    long long parameters;  // parameter_count
    long long active;      // active_parameter_count
};
[[nodiscard]] constexpr CountedModel counted(const TransformerShape& model) {
    const long long parameters = validated_weights(model);
    return {model, parameters, active_of(model, parameters)};
}
/// The same counts without the shape's checks, for formulas that price a shape as given.
[[nodiscard]] constexpr CountedModel counts_of(const TransformerShape& model) {
    const long long parameters = parameter_count(model);
    return {model, parameters, active_of(model, parameters)};
}
/// One GPU's share of `parameters` weights of `bytes_per_weight` each, rounded up to a whole byte.
[[nodiscard]] constexpr Bytes weight_share(long long parameters, long long gpus, double bytes_per_weight) {
    return ceil_whole(bytes(count(parameters) * bytes_per_weight) / count(gpus));
}
}  // namespace detail

/// The weights are shared out evenly, each share rounded up to a whole byte.
[[nodiscard]] constexpr Bytes weights_per_gpu(const TransformerShape& model, long long gpus,
                                              const InferenceSetup& setup = default_inference_setup) {
    require_at_least_one("gpus", gpus);
    return detail::weight_share(parameter_count(model), gpus, setup.bytes_per_weight);
}

/// The chat's KV cache is shared by KV head, so never into more parts than the
/// model has KV heads: past that each GPU keeps a copy of one head.
[[nodiscard]] constexpr Bytes kv_cache_per_gpu(const TransformerShape& model, long long gpus,
                                               const InferenceSetup& setup = default_inference_setup) {
    require_at_least_one("gpus", gpus);
    const Bytes whole = kv_cache_bytes(model, setup.bytes_per_cache_value, setup.context);
    return ceil_whole(whole / count(std::min(gpus, model.kv_heads)));
}

/// Working memory is not shared: intermediate results of `working_tokens`
/// tokens, (3·ffn + 4·hidden) values each, plus a fixed allowance.
[[nodiscard]] constexpr Bytes working_memory(const TransformerShape& model,
                                             const InferenceSetup& setup = default_inference_setup) {
    const BytesPerToken per_token =
        bytes_per_token(count(3 * model.ffn + 4 * model.hidden) * setup.bytes_per_activation);
    return per_token * setup.working_tokens + setup.working_allowance;
}

/// The memory one of `gpus` GPUs needs. The lesson counts it the same way for
/// both splits.
[[nodiscard]] constexpr InferenceMemory memory_per_gpu(const TransformerShape& model, long long gpus,
                                                       const InferenceSetup& setup = default_inference_setup) {
    (void)validated(model);
    detail::check_setup(setup);
    return {weights_per_gpu(model, gpus, setup), kv_cache_per_gpu(model, gpus, setup),
            working_memory(model, setup)};
}

/// Whether the memory one of `gpus` GPUs needs (memory_per_gpu) fits in the GPU's usable memory.
[[nodiscard]] constexpr bool fits(const TransformerShape& model, const Gpu& gpu, long long gpus,
                                  const InferenceSetup& setup = default_inference_setup) {
    return memory_per_gpu(model, gpus, setup).total() <= usable_memory(validated(gpu));
}

/// The fewest GPUs whose usable memory holds a share of the model, up to
/// `max_gpus`; none when even `max_gpus` is not enough.
[[nodiscard]] constexpr std::optional<long long> fewest_gpus(const TransformerShape& model, const Gpu& gpu,
                                                             const InferenceSetup& setup = default_inference_setup,
                                                             long long max_gpus = 4096) {
    require_count("max_gpus", max_gpus, limits::gpus);
    if (working_memory(model, setup) >= usable_memory(validated(gpu))) return std::nullopt;
    // Memory per GPU never grows with n (each share is a ceiling of a fixed
    // total over n or min(n, kv_heads)), so "fits" is monotone in n: a binary
    // search finds the first n that fits in O(log max_gpus) steps, the answer
    // a scan from 1 would give.
    if (!fits(model, gpu, max_gpus, setup)) return std::nullopt;
    long long low = 1, high = max_gpus;  // fits(high); the first fitting count is in [low, high]
    while (low < high) {
        const long long mid = low + (high - low) / 2;
        if (fits(model, gpu, mid, setup)) high = mid;
        else low = mid + 1;
    }
    return high;
}

// ---------------------------------------------------------------------------
// Time per generated token

/// Each GPU reads its share of the weights once per step (all of a mixture's
/// experts: the step of a batch that hits every one).
[[nodiscard]] constexpr Seconds weight_read_time(const TransformerShape& model, const Gpu& gpu, long long gpus,
                                                 const InferenceSetup& setup = default_inference_setup) {
    return read_time(weights_per_gpu(model, gpus, setup), gpu);
}

namespace detail {
/// The formula, from the model's weight count (`parameters`), for counts checked already.
[[nodiscard]] constexpr Bytes weights_read_of(const TransformerShape& model, long long parameters, long long gpus,
                                              long long tokens_in_flight, const InferenceSetup& setup) {
    if (model.experts == 0) return weight_share(parameters, gpus, setup.bytes_per_weight);
    const double b = setup.bytes_per_weight;
    const double experts = count(routed_expert_weights(model));
    const double rest = count(parameters) - experts;
    const double hit = expected_distinct_experts(model.experts, model.experts_per_token, count(tokens_in_flight)) /
                       count(model.experts);
    return ceil_whole(bytes(b * (rest / count(gpus) + hit * experts / count(gpus))));
}
/// Two operations per weight of `active` per token, shared over the GPUs.
[[nodiscard]] constexpr Seconds compute_share(long long active, const Gpu& gpu, long long gpus,
                                              long long tokens_in_flight) {
    const Flops work = flops(2.0 * count(active) * count(tokens_in_flight));
    return compute_time(work / count(gpus), gpu);
}
}  // namespace detail

/// The bytes one of `gpus` GPUs reads in a step of `tokens_in_flight` tokens:
/// its share of the weights, once; of a mixture's routed experts only those the
/// tokens hit, E·(1 − (1 − k/E)^N) of the E of each layer
/// (expected_distinct_experts, model.hpp). This is serving.hpp's count for the
/// same GPUs (weights_read_per_gpu, term by term), so `split` and `serve`
/// price a mixture's token alike: one Mixtral 8x7B token reads 2 of its 8
/// experts, not all 8 (it read all 8 here, 3.6 times the bytes, while its
/// compute counted the 2).
[[nodiscard]] constexpr Bytes weights_read_in_step(const TransformerShape& model, long long gpus,
                                                   long long tokens_in_flight,
                                                   const InferenceSetup& setup = default_inference_setup) {
    require_at_least_one("gpus", gpus);
    if (model.experts != 0) require_at_least_one("tokens_in_flight", tokens_in_flight);
    return detail::weights_read_of(model, parameter_count(model), gpus, tokens_in_flight, setup);
}

/// Two operations (a multiply and an add) per weight per token, shared over the GPUs.
[[nodiscard]] constexpr Seconds token_compute_time(const TransformerShape& model, const Gpu& gpu, long long gpus,
                                                   long long tokens_in_flight = 1) {
    require_at_least_one("gpus", gpus);
    require_at_least_one("tokens_in_flight", tokens_in_flight);
    return detail::compute_share(active_parameter_count(model), gpu, gpus, tokens_in_flight);
}

/// How the model runs: on how many GPUs, split how, with how many tokens in flight per step.
struct Deployment {
    long long gpus = 1;
    Split split = Split::tensor;
    long long tokens_in_flight = 1;  // the lesson's "words at once": one per chat served together
};

/// The time of one step (token_time): busy time and time waiting on the link, in seconds.
struct TokenTime {
    Seconds read;      // busy time: the longer of reading the weights and computing
    Seconds transfer;  // waiting on the link
    [[nodiscard]] constexpr Seconds total() const { return read + transfer; }
    [[nodiscard]] constexpr double waiting_share() const {
        return total().value() == 0.0 ? 0.0 : ratio(transfer, total());
    }
    // One user receives one token per step.
    [[nodiscard]] constexpr TokensPerSecond user_tokens_per_second() const { return tokens(1) / total(); }
};

namespace detail {
/// The formula without the input checks, for callers that checked once already.
template <CollectivePolicy Collective>
[[nodiscard]] constexpr TokenTime token_time_of(const CountedModel& counts, const Gpu& gpu, const Link& link,
                                                Deployment where, const InferenceSetup& setup,
                                                const Collective& collective) {
    const TransformerShape& model = counts.shape;
    const Seconds busy =
        std::max(read_time(weights_read_of(model, counts.parameters, where.gpus, where.tokens_in_flight, setup), gpu),
                 compute_share(counts.active, gpu, where.gpus, where.tokens_in_flight));
    const Bytes message = hidden_vector(model, setup.bytes_per_activation) * tokens(count(where.tokens_in_flight));
    if (where.split == Split::tensor) {
        const double all_reduces = count(setup.all_reduces_per_layer * model.layers);
        return {busy, all_reduces * collective.all_reduce(message, where.gpus, link).total()};
    }
    return {count(where.gpus) * busy,
            count(where.gpus - 1) * collective.point_to_point(message, link).total()};
}
/// What every inference time needs besides the model: a valid GPU, link and setup.
constexpr void check_hardware_and_setup(const Gpu& gpu, const Link& link, const InferenceSetup& setup) {
    (void)validated(gpu);
    (void)validated(link);
    check_setup(setup);
}
/// What every inference time needs: a valid model, GPU, link and setup.
constexpr void check_inference_inputs(const TransformerShape& model, const Gpu& gpu, const Link& link,
                                      const InferenceSetup& setup) {
    (void)validated(model);
    check_hardware_and_setup(gpu, link, setup);
}
/// check_inference_inputs and the deployment's counts; the model's weight counts for the formula.
[[nodiscard]] constexpr CountedModel check_token_time(const TransformerShape& model, const Gpu& gpu, const Link& link,
                                                      Deployment where, const InferenceSetup& setup) {
    const CountedModel counts = counted(model);
    check_hardware_and_setup(gpu, link, setup);
    require_count("gpus", where.gpus, limits::gpus);
    require_count("tokens_in_flight", where.tokens_in_flight, limits::tokens);
    return counts;
}
}  // namespace detail

/// One step that gives each of `tokens_in_flight` chats its next token. A user
/// waits one step per token, so this is also one user's time per token.
///  - tensor split: every GPU reads its 1/n at once, then `all_reduces_per_layer`
///    all-reduces per layer of the tokens' hidden vectors;
///  - pipeline split: the n groups read in turn (n × the share), with n − 1
///    hand-offs of the hidden vectors between them.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr TokenTime token_time(const TransformerShape& model, const Gpu& gpu, const Link& link,
                                             Deployment where, const InferenceSetup& setup = default_inference_setup,
                                             const Collective& collective = lesson_collective) {
    return detail::token_time_of(detail::check_token_time(model, gpu, link, where, setup), gpu, link, where, setup,
                                 collective);
}

/// best_gpu_count's answer: the GPU count and its time per token.
struct BestCount {
    long long gpus;
    TokenTime time;
};

/// What best_gpu_count searches: counts up to max_gpus (dividing the heads, if asked), the split, tokens in flight.
struct BestCountQuery {
    long long max_gpus = 64;
    bool divide_heads = false;  // slices are cut by head: keep only counts dividing the attention heads
    Split split = Split::tensor;
    long long tokens_in_flight = 1;
};

/// The GPU count (among those that fit, up to max_gpus) with the shortest time
/// per token; the smallest such count on a tie. None when no count fits.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr std::optional<BestCount> best_gpu_count(const TransformerShape& model, const Gpu& gpu,
                                                                const Link& link, BestCountQuery query = {},
                                                                const InferenceSetup& setup = default_inference_setup,
                                                                const Collective& collective = lesson_collective) {
    // Every count is tried (the time is not monotone in it), so the scan is
    // capped: 2^20 counts, an error beyond.
    require_count("max_gpus", query.max_gpus, limits::gpu_scan);
    const detail::CountedModel counts =
        detail::check_token_time(model, gpu, link, {1, query.split, query.tokens_in_flight}, setup);
    const Bytes usable = usable_memory(gpu);
    const Bytes working = working_memory(model, setup);
    std::optional<BestCount> best;
    for (long long n = 1; n <= query.max_gpus; ++n) {
        if (query.divide_heads && model.heads % n != 0) continue;
        if (detail::weight_share(counts.parameters, n, setup.bytes_per_weight) + kv_cache_per_gpu(model, n, setup) +
                working >
            usable)
            continue;
        const TokenTime t =
            detail::token_time_of(counts, gpu, link, {n, query.split, query.tokens_in_flight}, setup, collective);
        if (!best || t.total() < best->time.total()) best = BestCount{n, t};
    }
    return best;
}

}  // namespace napkin
