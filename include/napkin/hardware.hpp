// SPDX-License-Identifier: MIT
// napkin/hardware.hpp — what a GPU, a link, a node and a cluster are, as numbers.
//
// Plain constexpr aggregates, built with designated initializers:
//   constexpr Gpu gpu = validated(Gpu{.name = "mine", .memory = gibibytes(80), ...});
// `validated` rejects impossible values with a message naming the field; at
// compile time that is a compile error.
#pragma once

#include <napkin/checked.hpp>
#include <napkin/error.hpp>
#include <napkin/names.hpp>
#include <napkin/units.hpp>

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace napkin {

/// The GPU's architecture generation: the GEMM model (napkin/gemm.hpp) fits one
/// achievable share of the tensor-core peak per generation. `blackwell` is the
/// data-center part (compute capability 10.x: B200, GB200, B300, GB300, HBM3e);
/// `rtx_blackwell` the workstation one (12.x: RTX PRO 6000, GDDR7, no NVLink),
/// whose memory no data-center measurement speaks for (NVIDIA RTX Blackwell GPU
/// architecture whitepaper, 2025).
enum class Architecture { unknown, ampere, hopper, blackwell, cdna2, cdna3, volta, ada, cdna4, rtx_blackwell };

/// The architecture's name in lower case ("?" for a value outside the enum).
[[nodiscard]] constexpr std::string_view to_string(Architecture a) {
    switch (a) {
        case Architecture::unknown: return "unknown";
        case Architecture::ampere: return "ampere";
        case Architecture::hopper: return "hopper";
        case Architecture::blackwell: return "blackwell";
        case Architecture::cdna2: return "cdna2";
        case Architecture::cdna3: return "cdna3";
        case Architecture::volta: return "volta";
        case Architecture::ada: return "ada";
        case Architecture::cdna4: return "cdna4";
        case Architecture::rtx_blackwell: return "rtx-blackwell";
    }
    return "?";
}

/// Every architecture, in the enum's order.
inline constexpr std::array architectures{Architecture::unknown,   Architecture::ampere, Architecture::hopper,
                                          Architecture::blackwell, Architecture::cdna2,  Architecture::cdna3,
                                          Architecture::volta,     Architecture::ada,    Architecture::cdna4,
                                          Architecture::rtx_blackwell};

/// The architecture to_string names `name`, or nullopt.
[[nodiscard]] constexpr std::optional<Architecture> parse_architecture(std::string_view name) {
    for (const Architecture a : architectures)
        if (to_string(a) == name) return a;
    return std::nullopt;
}

/// A GPU as the models see it: its memory, memory bandwidth and dense tensor peaks, with the
/// data sheet the figures come from.
struct Gpu {
    std::string_view name;
    Bytes memory;                    // memory on the card
    double usable_fraction;          // share a serving or training process may claim, in (0, 1]
    BytesPerSecond memory_bandwidth; // reading its own memory
    FlopsPerSecond peak_flops;       // dense 16-bit tensor throughput
    // What the GEMM model needs (napkin/gemm.hpp); 0 / unknown: not given, and
    // training falls back to the flat model (compute.hpp, EfficiencyModel).
    long long sm_count = 0;            // streaming multiprocessors (AMD: compute units)
    FlopsPerSecond fp8_flops{};        // dense FP8 tensor throughput (0: no FP8 tensor cores)
    Architecture architecture = Architecture::unknown;
    // What the card may draw at full load: its board power (NVIDIA's TDP or
    // "max thermal design power", AMD's TBP). 0: not given.
    Watts board_power{};
    // The narrower tensor formats' dense peaks. 0: the data sheet gives none
    // (FP4: NVFP4 on NVIDIA Blackwell, MXFP4 on Blackwell and CDNA 4; INT8 in
    // operations per second, the data sheets' TOPS).
    FlopsPerSecond fp6_flops{};
    FlopsPerSecond fp4_flops{};
    FlopsPerSecond int8_ops{};
    // Where the figures come from (a data sheet and its column), for `napkin show`.
    std::string_view source{};
};

/// Whether the GPU carries the facts the GEMM model needs.
[[nodiscard]] constexpr bool has_gemm_facts(const Gpu& gpu) {
    return gpu.sm_count > 0 && gpu.architecture != Architecture::unknown;
}

/// A link between two GPUs as the alpha-beta model sees it: the bandwidth one
/// GPU sends at, and the latency every step of a collective pays on it.
struct Link {
    std::string_view name;
    BytesPerSecond bandwidth;
    Seconds step_latency;
};

// Physical ranges of the hardware figures: positive, finite, not denormal
// (error.hpp), and below ceilings a thousand-fold and more beyond any part
// made (2026: 288 GB of HBM, 8 TB/s, 5·10^15 FLOP/s dense, 1.8 TB/s links).
namespace limits {
inline constexpr double memory_bytes = 1e18;           ///< an exabyte on one card
inline constexpr double bandwidth_bytes_per_s = 1e18;  ///< an exabyte per second
inline constexpr double peak_flops_per_s = 1e21;       ///< a zettaFLOP per second
inline constexpr double latency_s = 3600.0;            ///< an hour per step
inline constexpr double slowest_rate = 1.0;            ///< a byte (or a FLOP) per second: the slowest rate priced
inline constexpr double message_bytes = 1e18;          ///< the largest message or tensor priced, an exabyte
inline constexpr double board_power_w = 1e6;           ///< a megawatt on one card (2026's largest: 1,200 W)
}  // namespace limits

namespace detail {
/// A rate in [1, ceiling] per second: with sizes ≤ 1e18 every time stays finite.
constexpr void check_rate(std::string_view argument, double value, double ceiling, std::string_view ceiling_text) {
    require_positive(argument, value);
    require(value >= limits::slowest_rate, argument, value, "must be at least 1 per second");
    require(value <= ceiling, argument, value, ceiling_text);
}
/// A narrower format's rate: 0 when the data sheet gives none, else a rate as above.
constexpr void check_narrow_rate(std::string_view argument, double value) {
    require_non_negative(argument, value);
    if (value > 0.0) check_rate(argument, value, limits::peak_flops_per_s, "must be at most 1e21 per second");
}

/// Every check of validated(Gpu) below in one branch (each field within its range).
[[nodiscard]] constexpr bool usual_gpu(const Gpu& gpu) {
    constexpr double tiny = std::numeric_limits<double>::min();
    const auto rate_or_none = [](double v) { return v == 0.0 || within(v, limits::slowest_rate, limits::peak_flops_per_s); };
    return within(gpu.memory.value(), 1.0, limits::memory_bytes) && within(gpu.usable_fraction, tiny, 1.0) &&
           within(gpu.memory_bandwidth.value(), limits::slowest_rate, limits::bandwidth_bytes_per_s) &&
           within(gpu.peak_flops.value(), limits::slowest_rate, limits::peak_flops_per_s) &&
           (gpu.sm_count >= 0) && (gpu.sm_count <= (1LL << 24)) && rate_or_none(gpu.fp8_flops.value()) &&
           rate_or_none(gpu.fp6_flops.value()) && rate_or_none(gpu.fp4_flops.value()) &&
           rate_or_none(gpu.int8_ops.value()) &&
           (gpu.board_power.value() == 0.0 || within(gpu.board_power.value(), 1.0, limits::board_power_w));
}
/// The checks one by one, naming the first field that fails (out of line: the usual GPU never runs them).
[[gnu::cold, gnu::noinline]] constexpr void name_gpu_fault(const Gpu& gpu) {
    require_positive("Gpu.memory (bytes)", gpu.memory.value());
    require(gpu.memory.value() >= 1.0, "Gpu.memory (bytes)", gpu.memory.value(), "must be at least 1 byte");
    require(gpu.memory.value() <= limits::memory_bytes, "Gpu.memory (bytes)", gpu.memory.value(),
            "must be at most 1e18 bytes");
    require(gpu.usable_fraction > 0.0 && gpu.usable_fraction <= 1.0, "Gpu.usable_fraction",
                    gpu.usable_fraction, "must be in (0, 1]");
    require_positive("Gpu.usable_fraction", gpu.usable_fraction);  // not a denormal
    detail::check_rate("Gpu.memory_bandwidth (bytes/s)", gpu.memory_bandwidth.value(), limits::bandwidth_bytes_per_s,
                       "must be at most 1e18 bytes/s");
    detail::check_rate("Gpu.peak_flops (FLOP/s)", gpu.peak_flops.value(), limits::peak_flops_per_s,
                       "must be at most 1e21 FLOP/s");
    require(gpu.sm_count >= 0 && gpu.sm_count <= (1LL << 24), "Gpu.sm_count", static_cast<double>(gpu.sm_count),
            "must be in [0, 2^24] (0: unknown)");
    require_non_negative("Gpu.fp8_flops (FLOP/s)", gpu.fp8_flops.value());
    if (gpu.fp8_flops.value() > 0.0)  // 0: no FP8 tensor cores
        detail::check_rate("Gpu.fp8_flops (FLOP/s)", gpu.fp8_flops.value(), limits::peak_flops_per_s,
                           "must be at most 1e21 FLOP/s");
    detail::check_narrow_rate("Gpu.fp6_flops (FLOP/s)", gpu.fp6_flops.value());
    detail::check_narrow_rate("Gpu.fp4_flops (FLOP/s)", gpu.fp4_flops.value());
    detail::check_narrow_rate("Gpu.int8_ops (op/s)", gpu.int8_ops.value());
    require_non_negative("Gpu.board_power (W)", gpu.board_power.value());
    if (gpu.board_power.value() > 0.0) {  // 0: not given
        require(gpu.board_power.value() >= 1.0, "Gpu.board_power (W)", gpu.board_power.value(),
                "must be at least 1 W (0: not given)");
        require(gpu.board_power.value() <= limits::board_power_w, "Gpu.board_power (W)", gpu.board_power.value(),
                "must be at most 1e6 W");
    }
}
}  // namespace detail

/// The GPU unchanged when every field is within its range (`limits`); otherwise rejects it,
/// naming the first field that fails (at compile time, a compile error).
[[nodiscard]] constexpr const Gpu& validated(const Gpu& gpu) {
    if (!detail::usual_gpu(gpu)) [[unlikely]]
        detail::name_gpu_fault(gpu);
    return gpu;
}

namespace detail {
[[gnu::cold, gnu::noinline]] constexpr void name_link_fault(const Link& link) {
    detail::check_rate("Link.bandwidth (bytes/s)", link.bandwidth.value(), limits::bandwidth_bytes_per_s,
                       "must be at most 1e18 bytes/s");
    require_non_negative("Link.step_latency (s)", link.step_latency.value());
    require(link.step_latency.value() <= limits::latency_s, "Link.step_latency (s)", link.step_latency.value(),
            "must be at most 3600 s");
}
/// A link's physical ranges in one test: a rate in [1 B/s, 1e18 B/s], α 0 or in [DBL_MIN, an hour].
[[nodiscard]] constexpr bool usual_link(const Link& link) {
    const double latency = link.step_latency.value();
    return within(link.bandwidth.value(), limits::slowest_rate, limits::bandwidth_bytes_per_s) &&
           (latency == 0.0 || within(latency, std::numeric_limits<double>::min(), limits::latency_s));
}
}  // namespace detail

/// The link unchanged when its bandwidth is in [1, 1e18] bytes/s and its step latency in
/// [0, 3600] s; otherwise rejects it, naming the field.
[[nodiscard]] constexpr const Link& validated(const Link& link) {
    if (!detail::usual_link(link)) [[unlikely]]
        detail::name_link_fault(link);
    return link;
}

/// The memory a process may use: the usable share of the card, in whole bytes
/// (rounded down, as a byte count is).
[[nodiscard]] constexpr Bytes usable_memory(const Gpu& gpu) {
    return floor_whole(gpu.memory * gpu.usable_fraction);
}

/// Time to read `size` from the GPU's own memory once.
[[nodiscard]] constexpr Seconds read_time(Bytes size, const Gpu& gpu) {
    return size / gpu.memory_bandwidth;
}

/// Time to run `work` at the GPU's peak rate.
[[nodiscard]] constexpr Seconds compute_time(Flops work, const Gpu& gpu) {
    return work / gpu.peak_flops;
}

/// How a node reaches the network: one NIC per GPU (each GPU sends at the
/// inter-node bandwidth), or one NIC per node shared by its GPUs.
enum class Nic { per_gpu, per_node };

/// The NIC arrangements' names, for printing and parsing: "per-gpu" and "shared".
inline constexpr std::array nic_names{Named{Nic::per_gpu, "per-gpu"}, Named{Nic::per_node, "shared"}};
/// The NIC arrangement's name ("per-gpu" or "shared").
[[nodiscard]] constexpr std::string_view to_string(Nic nic) { return name_of(nic, nic_names); }
/// The NIC arrangement `text` names, if any.
[[nodiscard]] constexpr std::optional<Nic> parse_nic(std::string_view text) { return value_of(text, nic_names); }

/// A server: its GPUs, the link between them and the link each NIC drives.
struct Node {
    std::string_view name;
    Gpu gpu;
    long long gpus;
    Link intra;  // GPU to GPU inside the node (per direction, per GPU)
    Link inter;  // one NIC's link into the network
    Nic nic = Nic::per_gpu;  // one NIC per GPU (DGX A100, DGX H100) or one shared by the node
};

/// A cluster: `nodes` identical copies of one node.
struct Cluster {
    Node node;
    long long nodes = 1;
};

/// GPUs in the cluster: nodes × GPUs per node (checked: a product beyond 64 bits is rejected).
[[nodiscard]] constexpr long long gpus(const Cluster& c) { return checked_mul(c.nodes, c.node.gpus, "nodes × GPUs per node"); }

/// A cluster of `nodes` copies of `node`.
[[nodiscard]] constexpr Cluster cluster_of(const Node& node, long long nodes) { return Cluster{node, nodes}; }

/// The node unchanged once its GPU, its GPU count and both links pass their checks.
[[nodiscard]] constexpr const Node& validated(const Node& node) {
    (void)validated(node.gpu);
    require_count("Node.gpus", node.gpus, limits::gpus);
    (void)validated(node.intra);
    (void)validated(node.inter);
    return node;
}

/// The cluster unchanged once its node passes and it holds at most 2^40 GPUs in all.
[[nodiscard]] constexpr const Cluster& validated(const Cluster& c) {
    (void)validated(c.node);
    require_count("Cluster.nodes", c.nodes, limits::gpus);
    if (gpus(c) > limits::gpus)
        reject_exact("Cluster GPUs (nodes × GPUs per node)", std::to_string(gpus(c)),
                     "must be at most 2^40 = 1099511627776");
    return c;
}

/// The network link one GPU sees: its own NIC, or its share of the node's.
[[nodiscard]] constexpr Link network_link_per_gpu(const Node& node) {
    if (node.nic == Nic::per_gpu) return node.inter;
    return Link{node.inter.name, node.inter.bandwidth / count(node.gpus), node.inter.step_latency};
}

}  // namespace napkin
