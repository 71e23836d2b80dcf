// SPDX-License-Identifier: MIT
// napkin/serving.hpp — serving a model to many users: the decode step of a
// batch with its KV-cache reads, prefill, static and continuous batching, the
// memory of N chats in a paged KV cache, weight and KV number formats, and the
// throughput–latency frontier.
//
// The split lesson (inference.hpp) stays the one-chat model it teaches; this is
// the model beside it. A decode step with one sequence, no context (so no KV
// cache to read and no attention) and 16-bit weights is term by term the
// lesson's token_time (a test checks the equality to the last bit).
//
// Layout: tp·pp·ep GPUs. Each pipeline stage holds layers/pp consecutive layers;
// the sequences run as micro-batches, one in each stage at once, as engines run
// them (ServingSetup::pipeline_micro_batches; 1: the stages in turn, as in the
// lesson's pipeline split, which one sequence always is); inside a stage,
// tp GPUs split every layer by head (Megatron-LM, two all-reduces per layer).
// ep > 1 (mixtures of experts only) runs ep such tensor groups side by side,
// each serving its own share of the sequences with its own copy of attention,
// while the experts are spread over the ep groups and reached by two
// all-to-alls per layer (dispatch and combine; the data-parallel-attention,
// expert-parallel layout of DeepSeek-V3, arXiv 2412.19437, Sec. 3.4.2).
//
// Every pass is priced through the kernel layer (napkin/kernels.hpp): the
// longer of the bytes a GPU moves and the FLOPs it does (Williams et al. 2009,
// "Roofline", CACM 52(4)), each at the rate the ServingProfile's kernels reach —
// under `roofline_serving` the data sheet's bandwidth and peak (the lesson's
// closed forms, exactly), under `measured` the weights at the bandwidth a
// decode-shaped GEMM streams them, the best GEMM's share of the peak, flash and
// paged decode attention's measured rates, the GEMMs and the attention as
// kernels run one after the other, each the longer of its own bytes and FLOPs —
// plus what an engine spends per forward pass beyond its kernels (scheduling,
// sampling, the kernels' launches), fitted to the published serving benchmarks
// (tests/unit/serving_validation.cpp).
#pragma once

#include <napkin/collectives.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/inference.hpp>
#include <napkin/kernels.hpp>
#include <napkin/model.hpp>
#include <napkin/names.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/units.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

/// Requests (or anything counted) per second.
using PerSecond = Quotient<double, Seconds>;
/// `v` per second, as a PerSecond.
[[nodiscard]] constexpr PerSecond per_second(double v) { return PerSecond::from_value(v); }

// ---------------------------------------------------------------------------
// Number formats

/// Weight number formats: 16 bit, FP8, weight-only INT8 and INT4, the 4-bit NVFP4 and MXFP4, and the
/// 6-bit MXFP6.
enum class WeightDType { bf16, fp16, fp8, int8, int4, nvfp4, mxfp4, mxfp6 };
/// KV-cache number formats: 16 bit, FP8, and INT8 or INT4 with a scale per head and token.
enum class KvDType { bf16, fp8, int8, int4 };

/// The weight formats' names, as to_string writes and parse_weight_dtype reads them.
inline constexpr std::array weight_dtype_names{
    Named{WeightDType::bf16, "bf16"}, Named{WeightDType::fp16, "fp16"},   Named{WeightDType::fp8, "fp8"},
    Named{WeightDType::int8, "int8"}, Named{WeightDType::int4, "int4"},   Named{WeightDType::nvfp4, "nvfp4"},
    Named{WeightDType::mxfp4, "mxfp4"}, Named{WeightDType::mxfp6, "mxfp6"}};
/// The KV-cache formats' names, as to_string writes and parse_kv_dtype reads them.
inline constexpr std::array kv_dtype_names{Named{KvDType::bf16, "bf16"}, Named{KvDType::fp8, "fp8"},
                                           Named{KvDType::int8, "int8"}, Named{KvDType::int4, "int4"}};

/// The weight format's name: "bf16", "fp8", "int4", "nvfp4"…
[[nodiscard]] constexpr std::string_view to_string(WeightDType d) { return name_of(d, weight_dtype_names); }
/// The KV-cache format's name: "bf16", "fp8", "int8" or "int4".
[[nodiscard]] constexpr std::string_view to_string(KvDType d) { return name_of(d, kv_dtype_names); }
/// The weight format a name stands for; none for an unknown name.
[[nodiscard]] constexpr std::optional<WeightDType> parse_weight_dtype(std::string_view s) {
    return value_of(s, weight_dtype_names);
}
/// The KV-cache format a name stands for; none for an unknown name.
[[nodiscard]] constexpr std::optional<KvDType> parse_kv_dtype(std::string_view s) { return value_of(s, kv_dtype_names); }

/// Integer weights are group-quantized: one FP16 scale per group of 128 weights
/// along the input dimension (AWQ, Lin et al. 2023, arXiv 2306.00978, Sec. 5.1;
/// GPTQ, Frantar et al. 2022, arXiv 2210.17323, Sec. 5 "grouping" with 128).
inline constexpr double quantization_group = 128.0;
inline constexpr double quantization_scale_bytes = 2.0;  ///< bytes of each group's FP16 scale
/// NVFP4: 4-bit E2M1 values with one FP8 E4M3 scale per block of 16 (NVIDIA,
/// "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference", 2025;
/// its per-tensor FP32 scale is not counted). MXFP4: 4-bit E2M1 values with one
/// 8-bit E8M0 scale per block of 32 (OCP Microscaling Formats (MX) Specification
/// v1.0, 2023, Sec. 5); MXFP6 the same with 6-bit E2M3 or E3M2 values.
inline constexpr double nvfp4_block = 16.0;  ///< NVFP4 values per FP8 scale
inline constexpr double mxfp4_block = 32.0;  ///< MXFP4 values per E8M0 scale
inline constexpr double mxfp6_block = 32.0;  ///< MXFP6 values per E8M0 scale

/// Bytes per weight, the group scales included. FP8 weights carry one FP32
/// scale per tensor (Micikevicius et al. 2022, "FP8 Formats for Deep Learning",
/// arXiv 2209.05433, Sec. 4): 4 bytes per matrix, under 1e-7 of it, not counted.
[[nodiscard]] constexpr double bytes_per_weight(WeightDType d) {
    switch (d) {
        case WeightDType::bf16:
        case WeightDType::fp16:
            return 2.0;
        case WeightDType::fp8:
            return 1.0;
        case WeightDType::int8:
            return 1.0 + quantization_scale_bytes / quantization_group;  // 1.015625
        case WeightDType::int4:
            return 0.5 + quantization_scale_bytes / quantization_group;  // 0.515625
        case WeightDType::nvfp4:
            return 0.5 + 1.0 / nvfp4_block;  // 0.5625
        case WeightDType::mxfp4:
            return 0.5 + 1.0 / mxfp4_block;  // 0.53125
        case WeightDType::mxfp6:
            return 0.75 + 1.0 / mxfp6_block;  // 0.78125
    }
    return 2.0;
}

/// KV cache values: 16-bit; FP8 (vLLM's fp8 KV cache, one scale per tensor); or
/// INT8 / INT4 with an FP16 scale and zero point per head and token (LMDeploy,
/// "KV Cache Quantization", docs/en/quantization/kv_quant.md: per-head per-token
/// asymmetric), 4 bytes per head of 128 values.
inline constexpr double kv_quantization_head = 128.0;
/// Bytes per KV-cache value, the INT8 and INT4 formats' scale and zero point included.
[[nodiscard]] constexpr double bytes_per_kv_value(KvDType d) {
    switch (d) {
        case KvDType::bf16:
            return 2.0;
        case KvDType::fp8:
            return 1.0;
        case KvDType::int8:
            return 1.0 + 4.0 / kv_quantization_head;  // 1.03125
        case KvDType::int4:
            return 0.5 + 4.0 / kv_quantization_head;  // 0.53125
    }
    return 2.0;
}

/// Which GPUs compute in FP8: those whose data sheet gives a dense FP8 tensor
/// rate (Gpu::fp8_flops: Hopper, Ada, Blackwell, CDNA 3 and 4 in the catalog;
/// Ampere's data sheet lists TF32, BF16, FP16, INT8 and INT4, no FP8).
[[nodiscard]] constexpr bool has_fp8(const Gpu& gpu) { return gpu.fp8_flops.value() > 0.0; }
/// FP4 likewise (Gpu::fp4_flops: Blackwell, CDNA 4); NVFP4 is NVIDIA's format,
/// MI355X's data sheet gives its FP4 as MXFP4 only.
[[nodiscard]] constexpr bool has_fp4(const Gpu& gpu) { return gpu.fp4_flops.value() > 0.0; }
/// FP6 likewise (Gpu::fp6_flops: NVIDIA's Blackwell data sheets give "FP8/FP6" one rate, AMD's
/// CDNA 4 ones "MXFP6/MXFP4" one rate; Hopper, Ada, Ampere and CDNA 3 list no FP6).
[[nodiscard]] constexpr bool has_fp6(const Gpu& gpu) { return gpu.fp6_flops.value() > 0.0; }

/// What the GPU lacks, from its data sheet, to compute in a weight format ("": nothing).
[[nodiscard]] constexpr std::string_view missing_for(const Gpu& gpu, WeightDType d) {
    switch (d) {
        case WeightDType::fp8:
            return has_fp8(gpu) ? "" : "no FP8 tensor cores (its data sheet gives no FP8 rate)";
        case WeightDType::nvfp4:
            if (!has_fp4(gpu)) return "no FP4 tensor cores (its data sheet gives no FP4 rate)";
            return gpu.architecture == Architecture::blackwell || gpu.architecture == Architecture::rtx_blackwell
                       ? ""
                       : "no NVFP4 (its data sheet gives FP4 as MXFP4)";
        case WeightDType::mxfp4:
            return has_fp4(gpu) ? "" : "no FP4 tensor cores (its data sheet gives no FP4 rate)";
        case WeightDType::mxfp6:
            return has_fp6(gpu) ? "" : "no FP6 tensor cores (its data sheet gives no FP6 rate)";
        case WeightDType::bf16:
        case WeightDType::fp16:
        case WeightDType::int8:
        case WeightDType::int4:
            return "";
    }
    return "";
}

/// The weight formats a GPU computes in, for an error's suggestion: "bf16, fp16, fp8, int8 or int4".
[[nodiscard]] inline std::string computable_formats(const Gpu& gpu) {
    std::string names;
    std::string_view last;
    for (const auto& named : weight_dtype_names) {
        if (!missing_for(gpu, named.value).empty()) continue;
        if (!last.empty()) names += (names.empty() ? "" : ", ") + std::string(last);
        last = named.name;
    }
    return names.empty() ? std::string(last) : names + " or " + std::string(last);
}

/// The matrix throughput a weight format runs at. FP8 weights run W8A8 on FP8
/// tensor cores, NVFP4 and MXFP4 W4A4 on FP4 tensor cores, MXFP6 W6A6 on FP6
/// tensor cores (at the data sheet's FP6 rate: Blackwell's FP8, CDNA 4's FP4); INT8 and INT4 are
/// weight-only (W8A16, W4A16): the kernels dequantize to 16 bit before the
/// multiply (AWQ Sec. 4; TensorRT-LLM's weight-only GEMMs), so they run at the
/// 16-bit peak on any GPU.
[[nodiscard]] constexpr FlopsPerSecond serving_peak(const Gpu& gpu, WeightDType d) {
    if (d == WeightDType::fp8) return gpu.fp8_flops;
    if (d == WeightDType::nvfp4 || d == WeightDType::mxfp4) return gpu.fp4_flops;
    if (d == WeightDType::mxfp6) return gpu.fp6_flops;
    return gpu.peak_flops;
}
/// The GEMMs' precision on the kernel layer, for the measured share of the peak:
/// FP8 weights in FP8; FP4 and FP6 take their generation's FP8 share (Azure's
/// cuBLASLt FP4 sweep on GB200 reaches 76.28 % of the FP4 peak, B200's MAMF FP8
/// 76.28 % of FP8's; no FP6 GEMM was measured); the rest 16 bit.
[[nodiscard]] constexpr DType gemm_precision(WeightDType d) {
    const bool narrow = d == WeightDType::nvfp4 || d == WeightDType::mxfp4 || d == WeightDType::mxfp6;
    return d == WeightDType::fp8 || narrow ? DType::fp8 : DType::bf16;
}

/// How an engine's passes are priced: the kernel layer's ceilings, and what the
/// engine spends per forward pass (a decode step or a prefill chunk) beyond its
/// kernels — once per pipeline stage (the step's scheduling, sampling and
/// hand-back to the host) and once per layer (its kernels' launches and
/// synchronisations; a CUDA graph lowers it, and the fitted value is what the
/// measured engines paid) — and the share of the best GEMM's rate (MAMF's
/// brute-forced best shape) an engine's GEMMs reach at the shapes a batch
/// gives them. All three fitted (default_serving_profile).
struct ServingProfile {
    KernelProfile kernels = KernelProfile::measured;
    Seconds pass_overhead{};
    Seconds layer_overhead{};
    double gemm_share = 1.0;
};
/// The lesson's closed forms: data-sheet peaks and bandwidth, no overhead.
inline constexpr ServingProfile roofline_serving{KernelProfile::roofline, Seconds{}, Seconds{}, 1.0};
/// The fit to every fixed-batch row of tests/data/measured-serving-runs.json
/// (TensorRT-LLM 0.9's static batches on A100 and H100; LMDeploy's closed loops on A100, each
/// replayed as it ran: measured_serving.hpp): the test "serving validation" recomputes it and
/// writes the README's table.
inline constexpr ServingProfile default_serving_profile{KernelProfile::measured, seconds(0.0), seconds(66.493e-6),
                                                        0.82155};

// ---------------------------------------------------------------------------
// Shapes of a serving run

/// The layout: tp GPUs split each layer by head, pp pipeline stages, ep expert-parallel groups; tp·pp·ep GPUs.
struct ServingLayout {
    long long tp = 1;  // GPUs splitting each layer by head
    long long pp = 1;  // pipeline stages
    long long ep = 1;  // expert-parallel groups (MoE): each serves its share of the sequences
    [[nodiscard]] constexpr long long gpus() const { return tp * pp * ep; }
};

/// The links a layout's GPUs talk over. Ranks are numbered tensor-parallel
/// innermost, then the expert-parallel groups, then the pipeline stages, so TP
/// stays inside a node and PP (then EP) crosses nodes when the layout outgrows
/// one, as vLLM's and TensorRT-LLM's multi-node deployments place them. A group
/// whose members span nodes runs on `inter`, the network link one GPU sees
/// (training's link_for does the same). A single Link converts to a fabric of
/// one node holding every GPU: the whole layout on that link.
struct ServingFabric {
    Link intra;                              // GPU to GPU inside a node
    Link inter;                              // one GPU's share of the network
    long long gpus_per_node = limits::gpus;  // GPUs on `intra` together
    constexpr ServingFabric(const Link& link) : intra(link), inter(link) {}  // NOLINT(*-explicit-*): one link
    constexpr ServingFabric(const Link& intra_link, const Link& inter_link, long long gpus_in_node)
        : intra(intra_link), inter(inter_link), gpus_per_node(gpus_in_node) {}
};

/// Checks a fabric's two links and its GPUs per node, naming the field.
[[nodiscard]] constexpr const ServingFabric& validated(const ServingFabric& f) {
    (void)validated(f.intra);
    (void)validated(f.inter);
    require_count("ServingFabric.gpus_per_node", f.gpus_per_node, limits::gpus);
    return f;
}

/// The layout's groups on the fabric (parallelism.hpp places them): TP ranks
/// adjacent, an EP group's members tp apart, neighbouring stages tp·ep apart.
[[nodiscard]] constexpr GroupPlacement tensor_group(const ServingLayout& l, const ServingFabric& f) {
    return place_group(l.tp, 1, f.gpus_per_node);
}
/// An expert-parallel group on the fabric: its ep members tp apart.
[[nodiscard]] constexpr GroupPlacement expert_group(const ServingLayout& l, const ServingFabric& f) {
    return place_group(l.ep, l.tp, f.gpus_per_node);
}
/// The pipeline's pp stages on the fabric: neighbours tp·ep apart.
[[nodiscard]] constexpr GroupPlacement pipeline_group(const ServingLayout& l, const ServingFabric& f) {
    return place_group(l.pp, l.tp * l.ep, f.gpus_per_node);
}
/// The link a group's collectives run on: `intra` inside a node, `inter` once it spans nodes.
[[nodiscard]] constexpr const Link& link_for(const GroupPlacement& g, const ServingFabric& f) {
    return g.crosses_nodes() ? f.inter : f.intra;
}
/// Stage-to-stage hand-offs that leave a node: one fewer than the nodes the stages span.
[[nodiscard]] constexpr long long pipeline_hops_between_nodes(const ServingLayout& l, const ServingFabric& f) {
    return pipeline_group(l, f).nodes - 1;
}
/// Whether the layout spans more than one node.
[[nodiscard]] constexpr bool spans_nodes(const ServingLayout& l, const ServingFabric& f) {
    return l.gpus() > f.gpus_per_node;
}

/// KV-cache offload to host memory (Sheng et al. 2023, FlexGen, ICML, Sec. 4:
/// the cache on the CPU, streamed to the GPU as attention needs it; vLLM's CPU
/// offload and LMCache keep blocks there the same way): the cache beyond what
/// the GPU's memory holds lives in `capacity` of host memory per GPU, and each
/// decode step streams the offloaded share of the cache it reads across the
/// host link at `bandwidth` (one direction: PCIe or NVLink-C2C).
struct KvOffload {
    Bytes capacity{};            // host memory per GPU for the cache (0: no offload)
    BytesPerSecond bandwidth{};  // host to GPU, one direction
    [[nodiscard]] constexpr bool on() const { return capacity.value() > 0; }
};

/// How a model is served: weight and KV formats, activation bytes and all-reduces per layer, KV blocks,
/// working memory, chunked prefill, the engine's profile, expert skew, KV offload and pipeline micro-batches.
struct ServingSetup {
    WeightDType weights = WeightDType::bf16;
    KvDType kv = KvDType::bf16;
    double bytes_per_activation = 2.0;  // hidden vectors on the wire, 16 bit
    // Megatron-LM (Shoeybi et al. 2019, arXiv 1909.08053, Sec. 3): one
    // all-reduce after attention and one after the feed-forward block.
    long long all_reduces_per_layer = 2;
    // PagedAttention stores the cache in blocks of 16 tokens, vLLM's default
    // block size (Kwon et al. 2023, SOSP, arXiv 2309.06180, Sec. 4.2 and 7.2).
    long long kv_block_tokens = 16;
    // Working memory as the split lesson counts it (inference.hpp: working_memory).
    Tokens working_tokens = tokens(2048);
    Bytes working_allowance = gibibytes(1);
    // Chunked prefill (Agrawal et al. 2024, Sarathi-Serve, arXiv 2403.02310):
    // the prompt in chunks of this many tokens; 0: one pass over the whole prompt.
    long long prefill_chunk = 0;
    ServingProfile profile = default_serving_profile;
    // Skewed expert routing (MoE): the experts' popularity as a power law of
    // this exponent (model.hpp's zipf_share; 0: uniform). Fewer distinct experts
    // are read, and the expert-parallel rank holding the hottest sets the step.
    double expert_skew = 0.0;
    // KV-cache offload to host memory: what the GPU's memory cannot hold of
    // the cache lives in the host's (KvOffload; none by default).
    KvOffload kv_offload{};
    // Pipelined stages: a group's sequences run as this many micro-batches, each in
    // another stage at once (GPipe's micro-batches, Huang et al. 2019, arXiv 1811.06965;
    // vLLM runs pp "virtual engines", TensorRT-LLM micro-batches its pipeline); 0: one
    // per stage, as the engines do; 1: the stages in turn. At most one per stage and per
    // sequence (pipeline_micro_batches below).
    long long pipeline_micro_batches = 0;
    // Decode attention reads each KV head's cache once for its group of query heads, as the
    // GQA-aware kernels do (FlashInfer, TensorRT-LLM's XQA); false: once per query head, as a
    // kernel with one thread block per query head does (TensorRT-LLM's masked multi-head
    // attention without XQA): decode_kv_reads below.
    bool grouped_decode_attention = true;
};

/// ServingSetup's defaults: 16-bit weights and cache, 16-token blocks, the fitted profile, no offload.
inline constexpr ServingSetup default_serving_setup{};

/// How sequences share the GPUs: continuous (iteration-level) or static batching.
enum class Batching {
    continuous,   // iteration-level scheduling (Yu et al. 2022, Orca, OSDI): N sequences always in flight
    static_batch  // a batch of N starts together and ends together
};

/// The batching's name: "continuous" or "static".
[[nodiscard]] constexpr std::string_view to_string(Batching b) {
    return b == Batching::continuous ? "continuous" : "static";
}

/// What is served: I prompt and O output tokens per request, N sequences at once, the batching,
/// and the Poisson arrival rate (requests/s) for the queueing term.
struct ServingWorkload {
    long long input_tokens = 1;   // I, the prompt
    long long output_tokens = 1;  // O, generated
    long long concurrency = 1;    // N sequences in flight (continuous) or in the batch (static)
    Batching batching = Batching::continuous;
    PerSecond arrival_rate{};  // requests/s arriving (Poisson) for the queueing term; 0: none
};

namespace detail {
constexpr void check_layout(const TransformerShape& m, const ServingLayout& l) {
    require_at_least_one("tp", l.tp);
    require_at_least_one("pp", l.pp);
    require_at_least_one("ep", l.ep);
    require(m.heads % l.tp == 0, "tp", count(l.tp), "must divide the attention heads");
    require(m.layers % l.pp == 0, "pp", count(l.pp), "must divide the layers");
    require(l.ep == 1 || m.experts > 0, "ep", count(l.ep), "must be 1 for a dense model");
    require(m.experts == 0 || m.experts % l.ep == 0, "ep", count(l.ep), "must divide the experts");
}
constexpr void check_serving_setup(const ServingSetup& s) {
    require_positive("ServingSetup.bytes_per_activation", s.bytes_per_activation);
    require_non_negative("ServingSetup.all_reduces_per_layer", count(s.all_reduces_per_layer));
    require_at_least_one("ServingSetup.kv_block_tokens", s.kv_block_tokens);
    require_non_negative("ServingSetup.working_tokens", s.working_tokens.value());
    require_non_negative("ServingSetup.working_allowance (bytes)", s.working_allowance.value());
    require_non_negative("prefill chunk (tokens)", count(s.prefill_chunk));
    require_non_negative("ServingSetup.pipeline_micro_batches", count(s.pipeline_micro_batches));
    require_in_range("ServingSetup.kv_offload.capacity (bytes)", s.kv_offload.capacity.value(), 0.0, 0x1p50,
                     "must be from 0 to 2^50 B = 1 PiB per GPU");
    require(!s.kv_offload.on() || s.kv_offload.bandwidth.value() > 0, "ServingSetup.kv_offload.bandwidth (B/s)",
            s.kv_offload.bandwidth.value(), "must be positive with a host capacity");
    require_non_negative("ServingProfile.pass_overhead (s)", s.profile.pass_overhead.value());
    require_non_negative("ServingProfile.layer_overhead (s)", s.profile.layer_overhead.value());
    require(s.profile.gemm_share > 0.0 && s.profile.gemm_share <= 1.0, "ServingProfile.gemm_share",
            s.profile.gemm_share, "must be in (0, 1]");
    require_in_range("ServingSetup.expert_skew", s.expert_skew, 0.0, 10.0, "must be in [0, 10]");
}
}  // namespace detail

/// Checks a serving setup, naming the field; a layout against its model.
[[nodiscard]] constexpr const ServingSetup& validated(const ServingSetup& s) {
    detail::check_serving_setup(s);
    return s;
}
/// Checks a layout against its model: tp divides the heads, pp the layers, ep the experts.
[[nodiscard]] constexpr const ServingLayout& validated(const ServingLayout& layout, const TransformerShape& m) {
    detail::check_layout(m, layout);
    return layout;
}

/// A model's weights in a format the GPU can compute in; names the format and what the GPU lacks.
constexpr void require_computable(const Gpu& gpu, WeightDType d) {
    if (const std::string_view missing = missing_for(gpu, d); !missing.empty())
        reject("weight dtype", to_string(d),
               std::string(gpu.name) + " has " + std::string(missing) + "; use " + computable_formats(gpu));
}

/// A sequence of `length` tokens within the model's trained context, when known.
constexpr void require_within_context(const TransformerShape& m, long long length) {
    if (m.max_position_embeddings != 0 && length > m.max_position_embeddings)
        reject("input + output tokens", count(length),
               "exceeds the model's max_position_embeddings = " + std::to_string(m.max_position_embeddings));
}

// Mixture of experts: the experts a batch reads, expected_distinct_experts and
// routed_expert_weights, are in model.hpp (the split lesson prices with them too).

// ---------------------------------------------------------------------------
// Memory per GPU

/// One GPU's memory while serving: weights, KV cache, working memory and what it may use, plus the
/// cache offloaded to host memory and the host memory for it, in bytes.
struct ServingMemory {
    Bytes weights;
    Bytes kv_cache;     // on the GPU
    Bytes activations;  // working memory and workspace
    Bytes usable;
    Bytes offloaded{};  // of the cache, in host memory (KvOffload)
    Bytes host{};       // host memory for it
    [[nodiscard]] constexpr Bytes total() const { return weights + kv_cache + activations; }
    [[nodiscard]] constexpr bool fits() const { return total() <= usable && offloaded <= host; }
};

namespace detail {
/// serving_weights_per_gpu from the model's weight count (`c.parameters`), worked out once per evaluation.
[[nodiscard]] constexpr Bytes serving_weights_of(const CountedModel& c, const ServingLayout& l, WeightDType d) {
    const TransformerShape& m = c.shape;
    const double b = bytes_per_weight(d);
    if (m.experts == 0) return weight_share(c.parameters, l.tp * l.pp, b);
    const double experts = count(routed_expert_weights(m));
    const double rest = count(c.parameters) - experts;
    return ceil_whole(bytes(b * (rest / count(l.tp * l.pp) + experts / count(l.gpus()))));
}
}  // namespace detail

/// The weights one GPU holds: a dense model's are shared evenly over tp·pp (the
/// lesson's share, rounded up to a whole byte); a mixture's experts are spread
/// over all tp·pp·ep GPUs while the rest (attention, router, norms, tables) is
/// shared over tp·pp and copied into each of the ep groups.
[[nodiscard]] constexpr Bytes serving_weights_per_gpu(const TransformerShape& m, const ServingLayout& l,
                                                      WeightDType d) {
    return detail::serving_weights_of(detail::counts_of(m), l, d);
}

/// Paged KV cache: a sequence of `length` tokens holds ⌈length / block⌉ blocks.
[[nodiscard]] constexpr Tokens paged_tokens(long long length, long long block) {
    return tokens(count((length + block - 1) / block * block));
}

/// The GPUs a sequence's cache is shared over: by layer over the pp stages, by
/// KV head over min(tp, kv_heads) GPUs (past kv_heads each GPU keeps one head).
/// Latent attention caches one latent per token and layer that every head
/// up-projects its keys and values from (DeepSeek-V2, arXiv 2405.04434,
/// Sec. 2.1.2, Eq. 9), so a split by head cannot split it: every tp GPU holds
/// and reads the whole latent (the duplication that made SGLang v0.4 serve
/// DeepSeek with data-parallel attention, LMSYS blog, Dec. 2024; DeepSeek-V3,
/// arXiv 2412.19437, Sec. 3.4.2, decodes with attention data-parallel for it).
[[nodiscard]] constexpr double kv_share(const TransformerShape& m, const ServingLayout& l) {
    if (latent_attention(m)) return count(l.pp);
    return count(l.pp) * count(std::min(l.tp, m.kv_heads));
}

/// The KV-cache bytes one GPU holds for `cached` tokens of its sequences: the
/// model's cache per token (model.hpp: per KV head, or MLA's latent of
/// kv_lora_rank + qk_rope_head_dim values per layer) over the GPU's share.
/// Every KV byte of the serving model goes through here.
[[nodiscard]] constexpr Bytes kv_bytes_per_gpu(const TransformerShape& m, const ServingLayout& l, KvDType d,
                                               Tokens cached) {
    return kv_cache_per_token(m, bytes_per_kv_value(d)) * cached / kv_share(m, l);
}

/// How many times a decode step reads each cached K/V byte: once with a GQA-aware kernel; else once per
/// query head, heads over the KV heads a GPU holds (one at least, when tp splits the KV heads
/// finer than they go) — TensorRT-LLM's masked multi-head attention runs one thread block per
/// query head, each reading its KV head's cache, and XQA, its kernel for MQA/GQA, reads a group's
/// K/V once for all its query heads (TensorRT-LLM docs/source/advanced/gpt-attention.md, "XQA
/// Optimization"). MLA's latent is one for all heads: read once either way.
[[nodiscard]] constexpr double decode_kv_reads(const TransformerShape& m, const ServingLayout& l,
                                               const ServingSetup& s) {
    if (s.grouped_decode_attention || latent_attention(m)) return 1.0;
    return count(m.heads) / count(std::max(m.kv_heads, l.tp));
}

namespace detail {
/// One GPU's cache for sequences of `context` tokens, with the factors that do not depend on how
/// many worked out once (max_concurrency tries several counts): a dense-attention model's cache per
/// token over the share, or a sliding-window model's cache per sequence (kv_cache_bytes) over it.
struct SequenceCache {
    BytesPerToken per_token;
    Bytes per_sequence;
    Tokens context;
    double share = 1.0;
    bool windowed = false;
    [[nodiscard]] constexpr Bytes of(double sequences) const {
        return windowed ? per_sequence * sequences / share : per_token * (context * sequences) / share;
    }
};
[[nodiscard]] constexpr SequenceCache sequence_cache(const TransformerShape& m, const ServingLayout& l, KvDType d,
                                                     Tokens context) {
    const double b = bytes_per_kv_value(d);
    if (local_attention_layers(m) == 0) return {kv_cache_per_token(m, b), Bytes{}, context, kv_share(m, l), false};
    return {BytesPerToken{}, kv_cache_bytes(m, b, context), context, kv_share(m, l), true};
}
}  // namespace detail

/// The same for `sequences` sequences of `context` tokens each: a sliding-window
/// model's local layers keep only the window of each (model.hpp's kv_cache_bytes).
[[nodiscard]] constexpr Bytes kv_bytes_per_gpu(const TransformerShape& m, const ServingLayout& l, KvDType d,
                                               Tokens context, double sequences) {
    return detail::sequence_cache(m, l, d, context).of(sequences);
}

/// The sequences one expert-parallel group serves (the busiest, when ep does
/// not divide N).
[[nodiscard]] constexpr long long sequences_per_group(long long concurrency, const ServingLayout& l) {
    return (concurrency + l.ep - 1) / l.ep;
}

/// The micro-batches `sequences` of a group run in over the pp stages: as many as
/// the setup asks (0: one per stage), at most one per stage — a stage works on one
/// at a time, so more would only wait — and at most one per sequence.
[[nodiscard]] constexpr long long pipeline_micro_batches(const ServingLayout& l, const ServingSetup& s,
                                                         long long sequences) {
    const long long asked = s.pipeline_micro_batches == 0 ? l.pp : s.pipeline_micro_batches;
    return std::max(1LL, std::min({asked, l.pp, sequences}));
}

/// The sequences of the largest of `micro_batches` micro-batches of a group's `sequences`.
[[nodiscard]] constexpr long long micro_batch_sequences(long long sequences, long long micro_batches) {
    return (sequences + micro_batches - 1) / micro_batches;
}

namespace detail {
/// One GPU's weights, working memory (the split lesson's, inference.hpp) and usable memory, no cache yet.
[[nodiscard]] constexpr ServingMemory without_cache(const CountedModel& c, const Gpu& gpu, const ServingLayout& l,
                                                    const ServingSetup& s) {
    InferenceSetup working;
    working.bytes_per_activation = s.bytes_per_activation;
    working.working_tokens = s.working_tokens;
    working.working_allowance = s.working_allowance;
    return {serving_weights_of(c, l, s.weights), Bytes{}, working_memory(c.shape, working), usable_memory(gpu)};
}
[[nodiscard]] constexpr ServingMemory without_cache(const TransformerShape& m, const Gpu& gpu, const ServingLayout& l,
                                                    const ServingSetup& s) {
    return without_cache(counts_of(m), gpu, l, s);
}
/// One GPU's cache for `sequences` of its group, each reserved whole at `length` tokens in blocks.
[[nodiscard]] constexpr Bytes reserved_kv(const TransformerShape& m, const ServingLayout& l, const ServingSetup& s,
                                          long long length, long long sequences) {
    return ceil_whole(sequence_cache(m, l, s.kv, paged_tokens(length, s.kv_block_tokens)).of(count(sequences)));
}
/// `memory` holding `kv` bytes of cache: with offload the GPU keeps what fits beside the
/// weights and working memory, and the rest goes to the host.
[[nodiscard]] constexpr ServingMemory holding(ServingMemory memory, Bytes kv, const ServingSetup& s) {
    memory.kv_cache = kv;
    if (!s.kv_offload.on()) return memory;
    const Bytes room = std::max(Bytes{}, memory.usable - memory.weights - memory.activations);
    memory.kv_cache = std::min(kv, room);
    memory.offloaded = kv - memory.kv_cache;
    memory.host = s.kv_offload.capacity;
    return memory;
}
}  // namespace detail

/// Memory of one GPU serving `concurrency` sequences of `length` tokens each
/// (their KV cache reserved whole, so no sequence is ever preempted).
[[nodiscard]] constexpr ServingMemory serving_memory(const TransformerShape& m, const Gpu& gpu, const ServingLayout& l,
                                                     long long concurrency, long long length,
                                                     const ServingSetup& s = default_serving_setup) {
    return detail::holding(detail::without_cache(m, gpu, l, s),
                           detail::reserved_kv(m, l, s, length, sequences_per_group(concurrency, l)), s);
}

/// The cache bytes of a step's reads that live in host memory: what `read`
/// bytes of cache per GPU exceed of the GPU's room for it (0 without offload).
[[nodiscard]] constexpr Bytes offloaded_kv(Bytes read, const TransformerShape& m, const Gpu& gpu,
                                           const ServingLayout& l, const ServingSetup& s) {
    if (!s.kv_offload.on()) return Bytes{};
    const ServingMemory empty = detail::without_cache(m, gpu, l, s);
    const Bytes room = std::max(Bytes{}, empty.usable - empty.weights - empty.activations);
    return std::max(Bytes{}, read - room);
}

namespace detail {
/// max_concurrency from one GPU's memory without cache (`base`): serving_memory of per_group·ep
/// sequences, the weights, working memory and cache per sequence worked out once.
[[nodiscard]] constexpr long long max_concurrency_of(const ServingMemory& base, const TransformerShape& m,
                                                     const ServingLayout& l, long long length, const ServingSetup& s) {
    const SequenceCache cache = sequence_cache(m, l, s.kv, paged_tokens(length, s.kv_block_tokens));
    const auto memory_of = [&](long long per_group) {
        return holding(base, ceil_whole(cache.of(count(per_group))), s);
    };
    const ServingMemory empty = memory_of(0);
    if (empty.total() >= empty.usable) return 0;
    const ServingMemory single = memory_of(1);
    const Bytes one = single.kv_cache + single.offloaded;
    const auto guess = static_cast<long long>(ratio(empty.usable - empty.total() + s.kv_offload.capacity, one));
    long long per_group = std::max(0LL, guess - 1);
    while (memory_of(per_group + 1).fits()) ++per_group;
    while (per_group > 0 && !memory_of(per_group).fits()) --per_group;
    return per_group * l.ep;
}
}  // namespace detail

/// The most sequences of `length` tokens whose memory fits (0: not one).
[[nodiscard]] constexpr long long max_concurrency(const TransformerShape& m, const Gpu& gpu, const ServingLayout& l,
                                                  long long length, const ServingSetup& s = default_serving_setup) {
    require_at_least_one("sequence length (tokens)", length);
    (void)validated(gpu);  // memory ≤ 10^18 B keeps the guess below within a long long
    return detail::max_concurrency_of(detail::without_cache(m, gpu, l, s), m, l, length, s);
}

// ---------------------------------------------------------------------------
/// The roofline (Williams et al. 2009): work that reads for `memory` seconds and
/// computes for `compute` seconds takes the longer of the two — a whole pass
/// under the roofline profile, each kernel group (GEMMs, attention) under the
/// measured one.
struct ServingRoofline {
    Seconds memory;
    Seconds compute;
    [[nodiscard]] constexpr Seconds time() const { return std::max(memory, compute); }
};

// ---------------------------------------------------------------------------
// One decode step

/// B sequences per expert-parallel group, each with `context` tokens in its
/// cache on average. Every term below depends on the contexts only through
/// their sum, so the mean context stands for any mix of them.
struct DecodeBatch {
    long long sequences = 1;
    Tokens context = tokens(0);
};

/// One decode step's time, term by term (decode_step): reads, compute, communication, overhead.
struct DecodeStep {
    long long stages = 1;
    long long micro_batches = 1;  // in flight at once, one per stage (ServingSetup::pipeline_micro_batches)
    Seconds weights_read;  // all stages in turn: the weights (MoE: the experts hit) over the memory bandwidth
    Seconds kv_read;       // every sequence's KV cache over the memory bandwidth
    Seconds kv_offload{};  // the offloaded share of it over the host link (KvOffload)
    Seconds compute;       // 2 FLOPs per active weight per token plus attention, at peak
    Seconds tp;            // all-reduces among the tp GPUs of a stage
    Seconds pp;            // hand-offs between stages
    Seconds ep;            // dispatch and combine all-to-alls among the ep groups
    Seconds overhead;      // the engine's, per stage and layer (ServingProfile)
    Seconds attention{};   // the part of `compute` that is decode attention (measured kernels)
    bool kernels_in_turn = false;  // measured kernels: GEMMs and attention are kernels of their own
    // Roofline: the whole step's reading overlaps its computing. Measured kernels: the GEMMs
    // (weights read, their math) and the attention (cache read, its math) run one after the other,
    // each the longer of its reading and computing.
    [[nodiscard]] constexpr Seconds busy() const {
        if (!kernels_in_turn) return ServingRoofline{reading(), compute}.time();
        return ServingRoofline{weights_read, compute - attention}.time() +
               ServingRoofline{kv_read + kv_offload, attention}.time();
    }
    [[nodiscard]] constexpr Seconds reading() const { return weights_read + kv_read + kv_offload; }
    [[nodiscard]] constexpr Seconds communication() const { return tp + pp + ep; }
    [[nodiscard]] constexpr Seconds total() const { return busy() + communication() + overhead; }
    [[nodiscard]] constexpr bool memory_bound() const { return reading() >= compute; }
};

namespace detail {
/// weights_read_per_gpu from the model's weight count (`c.parameters`).
[[nodiscard]] constexpr Bytes serving_weights_read(const CountedModel& c, const ServingLayout& l, WeightDType d,
                                                   double routed, double skew) {
    const TransformerShape& m = c.shape;
    if (m.experts == 0) return serving_weights_of(c, l, d);
    const double b = bytes_per_weight(d);
    const double experts = count(routed_expert_weights(m));
    const double rest = count(c.parameters) - experts;
    const double tokens_routed = routed * count(l.ep);
    // The rank's distinct experts, as a share of all E, times ep: the share of the expert weights it reads.
    const double hit =
        skew == 0.0
            ? expected_distinct_experts(m.experts, m.experts_per_token, tokens_routed) / count(m.experts)
            : busiest_rank_distinct_experts(m.experts, m.experts_per_token, l.ep, tokens_routed, skew) *
                  count(l.ep) / count(m.experts);
    return ceil_whole(bytes(b * (rest / count(l.tp * l.pp) + hit * experts / count(l.gpus()))));
}
}  // namespace detail

/// The weight bytes one GPU reads in a pass over `routed` tokens of its group:
/// a dense model its whole share; a mixture the rest of its share plus, per
/// MoE layer, the expected distinct experts among the E/ep it holds, hit by the
/// tokens of all ep groups (the shared experts are in the rest, always read;
/// the dense layers' feed-forward blocks too). Uniform routing: the average
/// rank's E/ep share of the distinct experts; skewed routing: those of the
/// busiest rank, which sets the step (busiest_rank_distinct_experts).
[[nodiscard]] constexpr Bytes weights_read_per_gpu(const TransformerShape& m, const ServingLayout& l, WeightDType d,
                                                   double routed, double skew = 0.0) {
    return detail::serving_weights_read(detail::counts_of(m), l, d, routed, skew);
}

/// FLOPs of attention over the cache: per token and layer, QKᵀ and the weighted
/// sum of V each cost 2·heads·head_dim per cached position (Chowdhery et al.
/// 2022, PaLM, arXiv 2204.02311, App. B: 4·L·H·Q·T on top of 2N per token);
/// with latent attention Q·K spans qk_nope + qk_rope dimensions and V
/// v_head_dim (model.hpp's attention_score_flops_per_token).
[[nodiscard]] constexpr Flops attention_flops(const TransformerShape& m, double positions) {
    if (!latent_attention(m)) return flops(4.0 * count(m.layers) * count(m.heads * head_dim(m)) * positions);
    return flops(count(m.layers) * attention_score_flops_per_token(m, positions));
}

/// The same when the local layers of a sliding-window model attend to
/// `local_positions` in all (each token at most the window) and the global
/// ones to `positions`.
[[nodiscard]] constexpr Flops attention_flops(const TransformerShape& m, double positions, double local_positions) {
    if (local_attention_layers(m) == 0) return attention_flops(m, positions);
    return flops(4.0 * count(m.heads * head_dim(m)) *
                 (count(global_attention_layers(m)) * positions + count(local_attention_layers(m)) * local_positions));
}

/// The load of the busiest expert-parallel rank against the mean (model.hpp's
/// busiest_rank_load): 1 for a dense model, one rank, or uniform routing.
[[nodiscard]] constexpr double expert_load(const TransformerShape& m, const ServingLayout& l, double skew) {
    if (m.experts == 0 || l.ep == 1 || skew == 0.0) return 1.0;
    return busiest_rank_load(m.experts, m.experts_per_token, l.ep, skew);
}

namespace detail {
/// The tiles of 64, 128 and 256 along one side of `extent` elements (gemm.hpp's ceil_ratio).
struct TileCounts {
    double of64, of128, of256;
};
[[nodiscard]] constexpr TileCounts tile_counts(double extent) {
    return {ceil_ratio(extent, 64.0), ceil_ratio(extent, 128.0), ceil_ratio(extent, 256.0)};
}
/// The fewest tile slots, in output elements (waves × SMs × tile area), any of the guide's tiles (256 ×
/// 128 down to 64 × 64; Matrix Multiplication Background guide, "Tile quantization") gives a batch of
/// GEMMs with `rows` and `cols` tiles along m and n on `sms` SMs: cuBLAS's heuristics pick the tile per
/// shape.
[[nodiscard]] constexpr double fewest_tile_slots(const TileCounts& rows, const TileCounts& cols, double batch,
                                                 double sms) {
    // One wave whatever the tile (a decode step's few rows): the smallest tile fills the fewest slots.
    const double most_tiles = batch * rows.of64 * cols.of64;  // every other tile makes fewer
    if (most_tiles > 0.0 && most_tiles <= sms) return sms * 4096.0;
    const auto slots = [sms](double tiles, double area) { return ceil_ratio(tiles, sms) * sms * area; };
    // 256 × 128 or 128 × 256, 128 × 128, 128 × 64 or 64 × 128, 64 × 64: of two tiles of one area the one
    // with fewer tiles fills fewer slots (the slots grow with the tiles), so one wave count each.
    return std::min({slots(batch * std::min(rows.of256 * cols.of128, rows.of128 * cols.of256), 32768.0),
                     slots(batch * rows.of128 * cols.of128, 16384.0),
                     slots(batch * std::min(rows.of128 * cols.of64, rows.of64 * cols.of128), 8192.0),
                     slots(batch * rows.of64 * cols.of64, 4096.0)});
}
}  // namespace detail

/// The best quantization_efficiency over the guide's tiles: the GEMM's output over its fewest tile slots.
[[nodiscard]] constexpr double best_tile_quantization(const GemmShape& g, long long sm_count) {
    require_at_least_one("Gpu.sm_count", sm_count);
    require(g.m > 0.0 && g.n > 0.0 && g.k > 0.0 && g.batch > 0.0, "GemmShape (m·n·k·batch)", g.m * g.n * g.k * g.batch,
            "every dimension must be positive");
    return g.batch * g.m * g.n /
           detail::fewest_tile_slots(detail::tile_counts(g.m), detail::tile_counts(g.n), g.batch, count(sm_count));
}

namespace detail {
/// pass_gemm_quantization (below) for a checked model, layout, GPU and token count.
[[nodiscard]] constexpr double pass_gemm_quantization_of(const TransformerShape& m, const ServingLayout& l,
                                                         double tokens, const Gpu& gpu, KernelProfile p) {
    if (p == KernelProfile::roofline || gpu.sm_count == 0 || tokens <= 0.0) return 1.0;
    const double t = count(l.tp), h = count(m.hidden), d = count(head_dim(m));
    const double up = m.feed_forward == FeedForward::gated ? 2.0 : 1.0;
    const double sms = count(gpu.sm_count);
    // Σ F and Σ F / q over the layer's GEMMs: F = 2·m·n·k·batch, F / q = 2·k × its fewest tile slots.
    double flops = 0.0, slots = 0.0;
    const auto add = [&](const detail::TileCounts& rows, GemmShape g, double layers) {
        if (layers <= 0.0 || g.m <= 0.0 || g.n <= 0.0 || g.k <= 0.0 || g.batch <= 0.0) return;
        flops += layers * 2.0 * g.m * g.n * g.k * g.batch;
        slots += layers * 2.0 * g.k * detail::fewest_tile_slots(rows, detail::tile_counts(g.n), g.batch, sms);
    };
    const detail::TileCounts token_rows = detail::tile_counts(tokens);
    const double all = count(m.layers), moe = count(moe_layers(m));
    if (!latent_attention(m)) {
        add(token_rows, {.m = tokens, .n = count(m.heads + 2 * m.kv_heads) * d / t, .k = h}, all);
        add(token_rows, {.m = tokens, .n = h, .k = count(m.heads) * d / t}, all);
    }
    const auto feed_forward = [&](double width, double rows, double batch, double layers) {
        const detail::TileCounts counts = rows == tokens ? token_rows : detail::tile_counts(rows);
        add(counts, {.m = rows, .n = up * width / t, .k = h, .batch = batch}, layers);
        add(counts, {.m = rows, .n = h, .k = width / t, .batch = batch}, layers);
    };
    feed_forward(count(m.ffn), tokens, 1.0, all - moe);
    if (m.experts > 0) {
        // The rank's experts see every group's tokens: the distinct ones hit (model.hpp), each its share.
        const double routed = tokens * count(l.ep);
        const double hit = expected_distinct_experts(m.experts, m.experts_per_token, ceil_ratio(routed, 1.0));
        if (hit > 0.0)
            feed_forward(count(m.expert_ffn), routed * count(m.experts_per_token) / hit, hit / count(l.ep), moe);
        feed_forward(count(m.shared_experts * m.shared_expert_ffn), tokens, 1.0, moe);
    }
    return slots > 0.0 ? flops / slots : 1.0;
}
}  // namespace detail

/// The share of their tile slots a pass's GEMMs fill on the GPU, each in the guide's tile that fills
/// the most (best_tile_quantization), weighted by FLOPs over one layer's linear GEMMs on a GPU with
/// `tokens` rows each: Q, K and V, the output projection, the feed-forward block's gate and up (one
/// fused GEMM) and down projections; a mixture's routed experts as a batch of GEMMs, one for each
/// distinct expert the rank's tokens are expected to hit (expected_distinct_experts, the ep groups'
/// tokens together), each of its share of their k·tokens·ep routed rows, beside its shared experts.
/// The pass's GEMM time is its FLOPs at the ceiling over this share. 1 under the roofline profile and
/// for a GPU without an SM count; latent attention's projections are left out of the weighting.
/// The model, the layout, the GPU and the token count are checked.
[[nodiscard]] constexpr double pass_gemm_quantization(const TransformerShape& m, const ServingLayout& l,
                                                      double tokens, const Gpu& gpu, KernelProfile p) {
    (void)validated(m);
    (void)validated(l, m);
    (void)validated(gpu);
    require_non_negative("tokens", tokens);
    require(tokens <= limits::tokens, "tokens", tokens, "must be at most 2^53");
    return detail::pass_gemm_quantization_of(m, l, tokens, gpu, p);
}

namespace detail {
/// pass_gemm_flops from the model's active weight count (`c.active`).
[[nodiscard]] constexpr Flops gemm_flops_of(const CountedModel& c, const ServingLayout& l, double routed, double skew) {
    const TransformerShape& m = c.shape;
    const double active = count(c.active);
    if (m.experts == 0) return flops(2.0 * active * routed);
    const double routed_active = count(routed_expert_weights(m)) * count(m.experts_per_token) / count(m.experts);
    return flops(2.0 * (active + (expert_load(m, l, skew) - 1.0) * routed_active) * routed);
}
}  // namespace detail

/// The GEMM FLOPs of a pass over `routed` tokens on the busiest rank: 2 per
/// active weight per token (Kaplan et al. 2020, Sec. 2.1), the routed experts'
/// share scaled by expert_load.
[[nodiscard]] constexpr Flops pass_gemm_flops(const TransformerShape& m, const ServingLayout& l, double routed,
                                              double skew) {
    return detail::gemm_flops_of(detail::counts_of(m), l, routed, skew);
}

namespace detail {
/// What one forward pass over every stage costs the engine beyond its kernels.
[[nodiscard]] constexpr Seconds pass_overhead(const TransformerShape& m, const ServingLayout& l,
                                              const ServingProfile& p) {
    return count(l.pp) * p.pass_overhead + count(m.layers) * p.layer_overhead;
}
/// `bytes` at the share of the data sheet's bandwidth a kernel reaches (1: read_time exactly).
[[nodiscard]] constexpr Seconds read_at(Bytes bytes, const Gpu& gpu, double share) {
    return share == 1.0 ? read_time(bytes, gpu) : read_time(bytes, gpu) / share;
}
/// The policy's latency paid once per call (NCCL's base latency): a
/// point-to-point of nothing costs it plus one step.
template <CollectivePolicy Collective>
[[nodiscard]] constexpr Seconds base_latency(const Collective& collective, const Link& link) {
    return collective.point_to_point(Bytes{}, link).latency - link.step_latency;
}
/// The communication of one pass over `n` tokens of each group, each group on
/// its link (the fabric's placement above).
template <CollectivePolicy Collective>
constexpr void pass_communication(const TransformerShape& m, const ServingFabric& f, const ServingLayout& l, double n,
                                  const ServingSetup& s, const Collective& collective, DecodeStep& step) {
    const Bytes message = hidden_vector(m, s.bytes_per_activation) * tokens(n);
    step.tp = l.tp == 1 ? Seconds{}
                        : count(s.all_reduces_per_layer * m.layers) *
                              collective.all_reduce(message, l.tp, link_for(tensor_group(l, f), f)).total();
    // The pp − 1 hand-offs: those between nodes on the network, the rest inside a node.
    const long long between = pipeline_hops_between_nodes(l, f);
    step.pp = count(l.pp - 1 - between) * collective.point_to_point(message, f.intra).total() +
              count(between) * collective.point_to_point(message, f.inter).total();
    // Each token goes to k experts and comes back: two all-to-alls per MoE
    // layer (none in the dense layers), each rank's buffer k·n hidden vectors
    // (cut over its tp GPUs).
    // The busiest rank receives expert_load times the mean.
    const Link& ep_link = link_for(expert_group(l, f), f);
    step.ep = l.ep == 1 ? Seconds{}
                        : 2.0 * count(moe_layers(m)) *
                              all_to_all(message * count(m.experts_per_token) * expert_load(m, l, s.expert_skew) /
                                             count(l.tp),
                                         l.ep, ep_link, base_latency(collective, ep_link))
                                  .total();
}
}  // namespace detail

namespace detail {
/// decode_step from the model's weight counts, worked out once per evaluation.
template <CollectivePolicy Collective>
[[nodiscard]] constexpr DecodeStep decode_step_of(const CountedModel& c, const Gpu& gpu, const ServingFabric& fabric,
                                                  const ServingLayout& l, const DecodeBatch& batch,
                                                  const ServingSetup& s, const Collective& collective) {
    const TransformerShape& m = c.shape;
    const long long micro_batches = pipeline_micro_batches(l, s, batch.sequences);
    const double n = count(micro_batch_sequences(batch.sequences, micro_batches));
    const double stages = count(l.pp);
    const KernelProfile k = s.profile.kernels;
    const Architecture a = gpu.architecture;
    DecodeStep step;
    step.stages = l.pp;
    step.micro_batches = micro_batches;
    step.weights_read = stages * read_at(serving_weights_read(c, l, s.weights, n, s.expert_skew), gpu,
                                         gemm_stream_share(a, gemm_precision(s.weights), k));
    // Paged decode attention reaches its measured share of the bandwidth for the
    // cached tokens it reads, all of the group's sequences together (FlashInfer's
    // rows are one sequence: the kernel's work is the tokens it reads).
    // With offload, the share beyond the GPU's room streams over the host link instead.
    const double cached = n * batch.context.value();
    // A kernel that reads the cache once per query head reads the GPU's part decode_kv_reads times (an
    // offloaded part crosses the host link once).
    const Bytes kv = kv_bytes_per_gpu(m, l, s.kv, batch.context, n);
    const Bytes host = offloaded_kv(kv, m, gpu, l, s);
    step.kv_read = stages * decode_kv_reads(m, l, s) *
                   read_at(kv - host, gpu, cached > 0.0 ? decode_attention_share(a, cached, k) : 1.0);
    step.kv_offload = host.value() > 0 ? stages * (host / s.kv_offload.bandwidth) : Seconds{};
    const Flops gemms = gemm_flops_of(c, l, n, s.expert_skew);
    const Flops attention = attention_flops(m, n * batch.context.value(), n * within_window(m, batch.context.value()));
    const double gpus = count(l.tp * l.pp);
    if (k == KernelProfile::roofline) {
        step.compute = stages * ((gemms + attention) / gpus / serving_peak(gpu, s.weights));
    } else {
        // The GEMMs at the best GEMM's share of their precision's peak, attention in 16 bit.
        const FlopsPerSecond gemm_rate = serving_peak(gpu, s.weights) * gemm_ceiling(a, gemm_precision(s.weights), k) *
                                         s.profile.gemm_share * pass_gemm_quantization_of(m, l, n, gpu, k);
        const FlopsPerSecond attention_rate = gpu.peak_flops * gemm_ceiling(a, DType::bf16, k);
        step.attention = stages * (attention / gpus / attention_rate);
        step.compute = stages * (gemms / gpus / gemm_rate) + step.attention;
        step.kernels_in_turn = true;
    }
    step.overhead = pass_overhead(m, l, s.profile);
    pass_communication(m, fabric, l, n, s, collective, step);
    return step;
}
}  // namespace detail

/// One step that gives each of B sequences its next token (see the top of the
/// file). With B = 1, context 0 and 16-bit weights it is the lesson's
/// token_time: weights_read + 0 = read, compute = 2·N_active / gpus / peak,
/// tp = a·L all-reduces of h·b, pp = (pp − 1) hand-offs, stages × busy.
/// Pipelined (M = pipeline_micro_batches > 1): the B sequences run as M
/// micro-batches of ⌈B/M⌉, each in another stage at once; with M ≤ pp a
/// micro-batch's pass through the stages sets the step, so every term is priced
/// at ⌈B/M⌉ sequences (the stages' busy time per step, M·pass/pp, is no longer).
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr DecodeStep decode_step(const TransformerShape& m, const Gpu& gpu, const ServingFabric& fabric,
                                               const ServingLayout& l, const DecodeBatch& batch,
                                               const ServingSetup& s = default_serving_setup,
                                               const Collective& collective = default_ring_collective) {
    return detail::decode_step_of(detail::counts_of(m), gpu, fabric, l, batch, s, collective);
}

// ---------------------------------------------------------------------------
// Prefill

/// A prefill's time (prefill_time): its passes' rooflines, communication and the engine's overhead.
struct PrefillTime {
    long long passes = 1;         // chunks
    long long micro_batches = 1;  // of the prompts, pipelined over the stages
    Seconds compute;       // the passes' rooflines, stages in turn
    Seconds comm;          // their all-reduces, hand-offs and all-to-alls
    Seconds overhead;      // the engine's, per pass (ServingProfile)
    [[nodiscard]] constexpr Seconds total() const { return compute + comm + overhead; }
};

namespace detail {
/// prefill_time from the model's weight counts, for checked prompts and input.
template <CollectivePolicy Collective>
[[nodiscard]] constexpr PrefillTime prefill_time_of(const CountedModel& counts, const Gpu& gpu,
                                                    const ServingFabric& fabric, const ServingLayout& l,
                                                    long long prompts, long long input, const ServingSetup& s,
                                                    const Collective& collective) {
    const TransformerShape& m = counts.shape;
    const long long chunk = s.prefill_chunk == 0 ? input : std::min(s.prefill_chunk, input);
    const FlopsPerSecond peak = serving_peak(gpu, s.weights);
    const KernelProfile k = s.profile.kernels;
    const Architecture a = gpu.architecture;
    const long long micro_batches = pipeline_micro_batches(l, s, prompts);
    const double b = count(micro_batch_sequences(prompts, micro_batches));
    const double gpus = count(l.tp * l.pp);
    PrefillTime result{0, micro_batches, {}, {}, {}};
    for (long long done = 0; done < input; done += chunk) {
        const double c = count(std::min(chunk, input - done));
        const double p = count(done);
        const Bytes weights = serving_weights_read(counts, l, s.weights, b * c, s.expert_skew);
        const Bytes cache = kv_bytes_per_gpu(m, l, s.kv, tokens(p + c), b);
        const Flops gemms = gemm_flops_of(counts, l, b * c, s.expert_skew);
        const Flops attention =
            attention_flops(m, b * (c * p + c * (c + 1.0) / 2.0), b * windowed_positions(m, p + 1.0, p + c));
        // Roofline: every FLOP at the peak. Measured: the GEMMs at the best GEMM's share,
        // flash attention at its rate for p + c keys (kernels/attention.hpp), in 16 bit.
        Seconds pass;
        if (k == KernelProfile::roofline) {
            pass = ServingRoofline{read_at(weights + cache, gpu, hbm_share(a, k)), (gemms + attention) / gpus / peak}
                       .time();
        } else {
            const Seconds gemm_math = gemms / gpus /
                                      (peak * gemm_ceiling(a, gemm_precision(s.weights), k) * s.profile.gemm_share *
                                       pass_gemm_quantization_of(m, l, b * c, gpu, k));
            const Seconds attention_math = attention / gpus / (gpu.peak_flops * flash_attention_share(a, p + c, k));
            pass = ServingRoofline{read_at(weights, gpu, gemm_stream_share(a, gemm_precision(s.weights), k)), gemm_math}
                       .time() +
                   ServingRoofline{read_at(cache, gpu, hbm_share(a, k)), attention_math}.time();
        }
        DecodeStep comm;
        pass_communication(m, fabric, l, b * c, s, collective, comm);
        result.compute += count(l.pp) * pass;
        result.comm += comm.communication();
        result.overhead += pass_overhead(m, l, s.profile);
        ++result.passes;
    }
    if (micro_batches == 1) return result;
    const double fill = count(l.pp + micro_batches - 1) / count(l.pp);
    result.compute = fill * result.compute;
    result.comm = fill * result.comm;
    result.overhead = fill * result.overhead;
    return result;
}
}  // namespace detail

/// The forward pass over `prompts` prompts of `input` tokens each, in chunks of
/// `s.prefill_chunk` tokens (one chunk when 0). A chunk of c tokens after p
/// already cached reads the weights once (MoE: the experts its tokens hit), reads
/// the cache of the p and writes that of the c; it does 2·N_active FLOPs per
/// token plus causal attention: token t attends to t positions, so the chunk's
/// Σ t = c·p + c(c + 1)/2, with flash attention skipping the masked half
/// (Dao 2023, FlashAttention-2, arXiv 2307.08691, Sec. 3.1.1) and never writing
/// the scores to memory. Long prompts are compute-bound.
/// Pipelined (M = pipeline_micro_batches > 1): the prompts run as M micro-batches
/// of ⌈B/M⌉ one stage apart, so the last is done after (pp + M − 1)/pp of one
/// micro-batch's pass through the stages (GPipe's fill, Huang et al. 2019, Sec. 2.2).
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr PrefillTime prefill_time(const TransformerShape& m, const Gpu& gpu, const ServingFabric& fabric,
                                                 const ServingLayout& l, long long prompts, long long input,
                                                 const ServingSetup& s = default_serving_setup,
                                                 const Collective& collective = default_ring_collective) {
    require_at_least_one("prompts", prompts);
    require_at_least_one("input tokens", input);
    return detail::prefill_time_of(detail::counts_of(m), gpu, fabric, l, prompts, input, s, collective);
}

// ---------------------------------------------------------------------------
// Batching: TTFT, TPOT, end-to-end latency, throughput

/// One serving run (evaluate_serving): memory, the decode step and prefill, queueing, TTFT, TPOT,
/// end-to-end latency, and throughput in all, per GPU and per user.
struct ServingEstimate {
    ServingLayout layout;
    ServingWorkload workload;
    ServingMemory memory;
    long long max_concurrency = 0;
    DecodeStep step;      // at the mean context of the decode steps
    PrefillTime prefill;  // one prompt (continuous) or the whole batch (static)
    Seconds queue;        // waiting for a slot at the arrival rate (M/D/1)
    Seconds ttft;         // time to first token
    Seconds tpot;         // time per output token, steady state
    Seconds e2e;          // first request byte to last token
    TokensPerSecond output_tokens_per_s;
    TokensPerSecond output_tokens_per_s_per_gpu;
    TokensPerSecond output_tokens_per_s_per_user;
    PerSecond requests_per_s;
};

namespace detail {
constexpr void check_workload(const TransformerShape& m, const ServingWorkload& w) {
    require_at_least_one("input tokens", w.input_tokens);
    require_at_least_one("output tokens", w.output_tokens);
    require_at_least_one("concurrency", w.concurrency);
    require_non_negative("arrival rate (requests/s)", w.arrival_rate.value());
    require_within_context(m, w.input_tokens + w.output_tokens);
}
}  // namespace detail

/// Mean waiting time in an M/D/1 queue: Poisson arrivals at rate λ, one server
/// with a fixed service time D = 1/μ, load ρ = λ/μ < 1. The Pollaczek–Khinchine
/// mean-value formula with a deterministic service time (Kleinrock 1975,
/// "Queueing Systems", Vol. I, Sec. 5.6): W = ρ·D / (2(1 − ρ)).
[[nodiscard]] constexpr Seconds md1_wait(const PerSecond& arrival, const PerSecond& service) {
    require_positive("service rate (requests/s)", service.value());
    const double rho = arrival / service;
    require(rho < 1.0, "arrival rate (requests/s)", arrival.value(),
            "must be below the capacity, or the queue grows without bound");
    return rho / (2.0 * (1.0 - rho)) / service;
}

namespace detail {
/// What an evaluation at one workload shares with every other concurrency of it: the weight
/// counts, one GPU's memory without cache, the most sequences that fit, and one prompt's prefill
/// (continuous batching's stall). Built once per sweep.
struct ServingInvariants {
    CountedModel counts;
    ServingMemory memory_without_cache;
    long long max_concurrency = 0;
    PrefillTime one_prompt;  // continuous batching only
};

/// Every check of evaluate_serving but the concurrency's, then what does not depend on it.
template <CollectivePolicy Collective>
[[nodiscard]] constexpr ServingInvariants serving_invariants(const TransformerShape& m, const Gpu& gpu,
                                                             const ServingFabric& fabric, const ServingLayout& l,
                                                             const ServingWorkload& w, const ServingSetup& s,
                                                             const Collective& collective) {
    ServingInvariants shared{.counts = counted(m), .memory_without_cache = {}, .one_prompt = {}};  // validated(m)
    (void)validated(gpu);
    (void)validated(fabric);
    check_layout(m, l);
    check_serving_setup(s);
    check_workload(m, w);
    require_computable(gpu, s.weights);
    const long long length = w.input_tokens + w.output_tokens;
    shared.memory_without_cache = without_cache(shared.counts, gpu, l, s);
    shared.max_concurrency = max_concurrency_of(shared.memory_without_cache, m, l, length, s);
    if (w.batching == Batching::continuous)
        shared.one_prompt = prefill_time_of(shared.counts, gpu, fabric, l, 1, w.input_tokens, s, collective);
    return shared;
}

/// evaluate_serving at a checked workload, from its invariants.
template <CollectivePolicy Collective>
[[nodiscard]] constexpr ServingEstimate serving_estimate_of(const ServingInvariants& shared, const TransformerShape& m,
                                                            const Gpu& gpu, const ServingFabric& fabric,
                                                            const ServingLayout& l, const ServingWorkload& w,
                                                            const ServingSetup& s, const Collective& collective) {
    ServingEstimate e;
    e.layout = l;
    e.workload = w;
    const long long length = w.input_tokens + w.output_tokens;
    const long long b = sequences_per_group(w.concurrency, l);
    e.memory = holding(shared.memory_without_cache, reserved_kv(m, l, s, length, b), s);
    e.max_concurrency = shared.max_concurrency;
    const double out = count(w.output_tokens);
    e.step =
        decode_step_of(shared.counts, gpu, fabric, l, {b, tokens(count(w.input_tokens) + out / 2.0)}, s, collective);
    Seconds service;
    if (w.batching == Batching::continuous) {
        e.prefill = shared.one_prompt;
        // Each micro-batch admits its own sequences' prompts: the stall is its share.
        e.tpot = e.step.total() +
                 count(micro_batch_sequences(b, e.step.micro_batches)) / out * e.prefill.total();
        service = e.step.total() + e.prefill.total() + (out - 1.0) * e.tpot;
        e.requests_per_s = count(w.concurrency) / service;
        e.queue = w.arrival_rate.value() > 0 ? md1_wait(w.arrival_rate, e.requests_per_s) : Seconds{};
        e.ttft = e.queue + e.step.total() + e.prefill.total();
    } else {
        e.prefill = prefill_time_of(shared.counts, gpu, fabric, l, b, w.input_tokens, s, collective);
        e.tpot = e.step.total();
        service = e.prefill.total() + (out - 1.0) * e.tpot;
        e.requests_per_s = count(w.concurrency) / service;
        e.queue = w.arrival_rate.value() > 0 ? md1_wait(w.arrival_rate, e.requests_per_s) : Seconds{};
        e.ttft = e.queue + e.prefill.total();
    }
    e.e2e = e.queue + service;
    e.output_tokens_per_s = tokens(out) * e.requests_per_s;
    e.output_tokens_per_s_per_gpu = e.output_tokens_per_s / count(l.gpus());
    e.output_tokens_per_s_per_user = tokens(1) / e.tpot;
    return e;
}
}  // namespace detail

/// Serving `w` on layout `l`:
///  - continuous batching: N sequences in flight at mean context I + O/2; each
///    sequence lives O steps, so every step N/O new prompts are prefilled in
///    between (prefill stalls decode, vLLM's default without chunking):
///      TPOT = step + (B/O)·prefill(1 prompt)      (B: sequences per group)
///      TTFT = queue + step (the running iteration ends) + prefill(1 prompt)
///      requests/s = N / (TTFT − queue + (O − 1)·TPOT)   (Little 1961: N = λ·W)
///  - static batching: the batch's prompts in one prefill, then O − 1 steps:
///      TTFT = prefill(B prompts), TPOT = step, e2e = TTFT + (O − 1)·TPOT,
///      requests/s = N / e2e.
/// Pipelined stages (M micro-batches, ServingSetup::pipeline_micro_batches): the
/// step is one micro-batch's of ⌈B/M⌉ (decode_step), each admitting its own
/// prompts, so the stall is (⌈B/M⌉/O)·prefill(1); the static prefill pipelines
/// (prefill_time).
/// Output tokens/s = requests/s · O; per GPU over tp·pp·ep; per user 1/TPOT.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr ServingEstimate evaluate_serving(const TransformerShape& m, const Gpu& gpu,
                                                         const ServingFabric& fabric, const ServingLayout& l,
                                                         const ServingWorkload& w,
                                                         const ServingSetup& s = default_serving_setup,
                                                         const Collective& collective = default_ring_collective) {
    const detail::ServingInvariants shared = detail::serving_invariants(m, gpu, fabric, l, w, s, collective);
    return detail::serving_estimate_of(shared, m, gpu, fabric, l, w, s, collective);
}

/// The throughput–latency frontier: one estimate per concurrency.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] std::vector<ServingEstimate> serving_sweep(const TransformerShape& m, const Gpu& gpu, const ServingFabric& fabric,
                                                         const ServingLayout& l, ServingWorkload w,
                                                         const std::vector<long long>& concurrencies,
                                                         const ServingSetup& s = default_serving_setup,
                                                         const Collective& collective = default_ring_collective) {
    std::vector<ServingEstimate> rows;
    if (concurrencies.empty()) return rows;
    rows.reserve(concurrencies.size());
    // The checks and what no concurrency changes, once (the first concurrency stands in for the rest,
    // each checked in its turn, in order, as evaluate_serving would).
    w.concurrency = concurrencies.front();
    const detail::ServingInvariants shared = detail::serving_invariants(m, gpu, fabric, l, w, s, collective);
    for (long long n : concurrencies) {
        require_at_least_one("concurrency", n);
        w.concurrency = n;
        rows.push_back(detail::serving_estimate_of(shared, m, gpu, fabric, l, w, s, collective));
    }
    return rows;
}

// ---------------------------------------------------------------------------
// Disaggregated serving: prefill and decode on separate GPUs

/// DistServe (Zhong et al. 2024, OSDI, arXiv 2401.09670) and Splitwise (Patel et
/// al. 2024, ISCA, arXiv 2311.18677) run prompts and generation on separate
/// instances, so prefills never stall a decode step; each prompt's KV cache
/// crosses the link once. Here `instances` copies of the layout are split into
/// `prefill` and `instances − prefill` decode instances:
///  - a prefill instance runs one prompt at a time (Tp, deterministic), fed by
///    Poisson arrivals: TTFT = Tp + the M/D/1 wait. A TTFT bound T admits a load
///    ρ ≤ x/(1 + x) with x = 2(T − Tp)/Tp (solving Tp + ρ·Tp/(2(1 − ρ)) ≤ T),
///    so the pool takes prefill·ρ/Tp requests/s;
///  - a decode instance runs continuous batching of N sequences without
///    prefills: TPOT = step(N), the pool takes decode·N/(O·TPOT) requests/s;
///  - the KV transfer: each prefill GPU sends its share of the prompt's cache to
///    its decode peer, one point-to-point: inside a node when two instances
///    fit in one, else on the network.
/// The goodput is the smaller of the two rates.
struct DisaggregatedEstimate {
    long long prefill_instances = 0;
    long long decode_instances = 0;
    long long decode_concurrency = 0;  // N per decode instance
    Seconds prefill;                   // Tp, one prompt
    Seconds kv_transfer;               // one prompt's cache to the decode pool
    Seconds ttft;                      // Tp + the M/D/1 wait at the load carried; inf when it has no bound
    Seconds tpot;                      // step(N)
    PerSecond prefill_rate;            // requests/s the prefill pool takes within the TTFT bound
    PerSecond decode_rate;             // requests/s the decode pool takes
    [[nodiscard]] constexpr PerSecond goodput() const { return std::min(prefill_rate, decode_rate); }
};

/// What best_disaggregation searches: the instances in all, a request's input and output tokens,
/// the TTFT and TPOT bounds (none by default), the most sequences per decode instance, and the
/// requests/s offered (none by default: the pools carry their goodput).
struct DisaggregationQuery {
    long long instances = 2;  // copies of the layout in all (≥ 2)
    long long input_tokens = 1;
    long long output_tokens = 1;
    Seconds ttft_bound = seconds(std::numeric_limits<double>::infinity());
    Seconds tpot_bound = seconds(std::numeric_limits<double>::infinity());
    long long max_concurrency = 1024;  // per decode instance
    PerSecond arrival_rate{};          // Poisson requests/s offered; 0: as many as the pools take
};

namespace detail {
/// One prompt's KV cache from a prefill instance to a decode instance: each GPU sends its
/// share, one point-to-point, inside a node when both pools are one kind of GPU and two
/// instances fit in one, else on the network.
template <CollectivePolicy Collective>
[[nodiscard]] constexpr Seconds prompt_cache_transfer(const TransformerShape& m, const Gpu& prefill_gpu,
                                                      const Gpu& decode_gpu, const ServingFabric& fabric,
                                                      const ServingLayout& l, long long input_tokens,
                                                      const ServingSetup& s, const Collective& collective) {
    const Bytes cache = ceil_whole(kv_bytes_per_gpu(m, l, s.kv, tokens(count(input_tokens)), 1.0));
    const bool one_kind = prefill_gpu.name == decode_gpu.name && prefill_gpu.memory == decode_gpu.memory &&
                          prefill_gpu.memory_bandwidth == decode_gpu.memory_bandwidth &&
                          prefill_gpu.peak_flops == decode_gpu.peak_flops;
    const bool same_node = one_kind && 2 * l.gpus() <= fabric.gpus_per_node;
    return collective.point_to_point(cache, same_node ? fabric.intra : fabric.inter).total();
}
}  // namespace detail

/// The largest load ρ one M/D/1 server with service time `service` may carry
/// while the mean response (service + wait) stays within `bound` (1 when unbounded).
[[nodiscard]] constexpr double md1_admissible_load(Seconds service, Seconds bound) {
    if (bound.value() == std::numeric_limits<double>::infinity()) return 1.0;
    if (bound < service) return 0.0;
    const double x = 2.0 * ratio(bound - service, service);
    return x / (1.0 + x);
}

/// The best split of `q.instances` instances into prefill and decode pools for
/// the bounds: the most goodput (ties: fewer prefill instances); none when no
/// split meets them or one prompt's cache does not fit beside the weights of a
/// prefill instance. The pools may run on different GPUs (Patel et al. 2024,
/// Splitwise, whose Splitwise-HA runs prompts on H100 and tokens on A100): each
/// prices its phase on its own GPU, and
/// the cache then crosses the network, pools of two kinds sitting in different
/// nodes; on one kind it stays inside a node when two instances fit in one.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr std::optional<DisaggregatedEstimate> best_disaggregation(
    const TransformerShape& m, const Gpu& prefill_gpu, const Gpu& decode_gpu, const ServingFabric& fabric,
    const ServingLayout& l, const DisaggregationQuery& q, const ServingSetup& s = default_serving_setup,
    const Collective& collective = default_ring_collective) {
    (void)validated(m);
    (void)validated(prefill_gpu);
    (void)validated(decode_gpu);
    (void)validated(fabric);
    detail::check_layout(m, l);
    detail::check_serving_setup(s);
    require(q.instances >= 2, "instances", count(q.instances), "must be at least 2 (one prefill, one decode)");
    // The split is searched one prefill count at a time: a cap, not the user's number.
    require(q.instances <= limits::tokens_in_flight, "instances", count(q.instances),
            "must be at most 2^20 = 1048576 (the split is searched one by one)");
    detail::check_workload(m, {.input_tokens = q.input_tokens, .output_tokens = q.output_tokens});
    require_at_least_one("max_concurrency", q.max_concurrency);
    require_non_negative("arrival_rate", q.arrival_rate.value());
    require_computable(prefill_gpu, s.weights);
    require_computable(decode_gpu, s.weights);
    if (max_concurrency(m, prefill_gpu, l, q.input_tokens, s) == 0) return std::nullopt;
    const long long length = q.input_tokens + q.output_tokens;
    const Seconds tp1 = prefill_time(m, prefill_gpu, fabric, l, 1, q.input_tokens, s, collective).total();
    const double load = md1_admissible_load(tp1, q.ttft_bound);
    const Seconds transfer =
        detail::prompt_cache_transfer(m, prefill_gpu, decode_gpu, fabric, l, q.input_tokens, s, collective);
    // The decode instance's best N: the most N·/TPOT within the bound and memory.
    const long long most = std::min(max_concurrency(m, decode_gpu, l, length, s), q.max_concurrency);
    const double ctx = count(q.input_tokens) + count(q.output_tokens) / 2.0;
    long long best_n = 0;
    Seconds best_step{};
    for (long long n = 1; n <= most; ++n) {
        const Seconds step =
            decode_step(m, decode_gpu, fabric, l, {sequences_per_group(n, l), tokens(ctx)}, s, collective).total();
        if (step > q.tpot_bound) break;  // the step never shrinks as N grows
        if (best_n == 0 || count(n) / step.value() >= count(best_n) / best_step.value()) {
            best_n = n;
            best_step = step;
        }
    }
    if (best_n == 0 || load <= 0.0) return std::nullopt;
    std::optional<DisaggregatedEstimate> best;
    for (long long p = 1; p < q.instances; ++p) {
        DisaggregatedEstimate e;
        e.prefill_instances = p;
        e.decode_instances = q.instances - p;
        e.decode_concurrency = best_n;
        e.prefill = tp1;
        e.kv_transfer = transfer;
        e.tpot = best_step;
        e.prefill_rate = count(p) * load / tp1;
        e.decode_rate = count(e.decode_instances) * count(best_n) / (count(q.output_tokens) * best_step);
        // The wait at the load the pools carry: what is offered, else the goodput. With neither a TTFT
        // bound nor an offered rate the prefill pool runs saturated, and more offered than the goodput
        // queues without end: the wait has no bound either way.
        const PerSecond carried = q.arrival_rate.value() > 0 ? q.arrival_rate : e.goodput();
        const double rho = ratio(carried, count(p) / tp1);
        e.ttft = rho < 1.0 && carried <= e.goodput() ? tp1 + rho / (2.0 * (1.0 - rho)) * tp1
                                                     : seconds(std::numeric_limits<double>::infinity());
        if (!best || e.goodput() > best->goodput()) best = e;
    }
    return best;
}

/// The same with both pools on one kind of GPU.
template <CollectivePolicy Collective = Ring>
[[nodiscard]] constexpr std::optional<DisaggregatedEstimate> best_disaggregation(
    const TransformerShape& m, const Gpu& gpu, const ServingFabric& fabric, const ServingLayout& l,
    const DisaggregationQuery& q, const ServingSetup& s = default_serving_setup,
    const Collective& collective = default_ring_collective) {
    return best_disaggregation(m, gpu, gpu, fabric, l, q, s, collective);
}

}  // namespace napkin
