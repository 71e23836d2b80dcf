// napkin allreduce | collective | crossover | calibrate — the alpha-beta
// collectives from the command line.
//
//   napkin allreduce --algorithm ring --bytes 280GB --gpus 64 --bandwidth-gbps 50 --latency-us 5
//   napkin allreduce --algorithm hierarchical --bytes 140GB --gpus 64 --gpus-per-node 8
//          --intra-bandwidth-gbps 900 --intra-latency-us 0.5 --inter-bandwidth-gbps 50 --inter-latency-us 5
//   napkin collective --op all-gather --bytes 1GiB --gpus 8 --bandwidth-gbps 300 --latency-us 0.6
//   napkin collective --op all-reduce --bytes 1GiB --gpus 128 --gpu h100-sxm --json
//   napkin allreduce --bytes 1GiB --gpus 128 --intra-link nvlink4 --nics-per-node 8 --nic-bandwidth 400Gb/s
//   napkin collective --op all-reduce --sweep 8B:16GiB --gpus 16 --node dgx-h100
//   napkin crossover --gpus 256 --bandwidth-gbps 50 --latency-us 5 --json
//   napkin calibrate all_reduce_perf.txt
#include "cluster_collective.hpp"
#include "command.hpp"
#include "common.hpp"

#include <napkin/calibrate.hpp>
#include <napkin/collectives.hpp>
#include <napkin/io/nccl_tests.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace napkin::cli {
namespace {

// The options allreduce and collective share: a message, a GPU count, a link
// (alpha, B) and, for the hierarchical algorithm, the two levels.
struct NetworkOptions {
    std::string bytes;
    long long gpus = 0;
    std::optional<double> bandwidth_gbps, latency_us;
    std::optional<double> base_latency_us;  // none: 0
    std::optional<std::string> calibration;  // napkin calibrate --json's file: bandwidth, latency, base latency
    std::optional<long long> gpus_per_node;
    std::optional<double> intra_bandwidth_gbps, intra_latency_us, inter_bandwidth_gbps, inter_latency_us;
    // The same with their units (--bandwidth 400Gb/s, --latency 5us), read into the numbers above.
    std::optional<std::string> bandwidth, latency, base_latency, intra_bandwidth, intra_latency, inter_bandwidth,
        inter_latency;
    double oversubscription = 1.0;
    std::string nic = "per-gpu";
    std::optional<std::string> transport;
    bool json = false;
};

void add_network_options(CLI::App* sub, NetworkOptions& o) {
    sub->add_option("--bytes", o.bytes, "message size: 4096, 1MiB, 280GB, ... (or --sweep)");
    sub->add_option("--gpus", o.gpus, "ranks taking part")->required();
    add_rate_flag(sub, "--bandwidth", o.bandwidth, o.bandwidth_gbps,
                  "link bandwidth per GPU and direction with its unit: 50GB/s, 400Gb/s (bits)");
    add_microseconds_flag(sub, "--latency", o.latency, o.latency_us,
                          "latency of one step (alpha) with its unit: 5us, 0.6us");
    add_microseconds_flag(sub, "--base-latency", o.base_latency, o.base_latency_us,
                          "latency paid once per call with its unit (0)");
    sub->add_option("--calibration", o.calibration,
                    "the link napkin calibrate --json fitted (its file), for --bandwidth, --latency, --base-latency");
    sub->add_option("--gpus-per-node", o.gpus_per_node, "hierarchical: GPUs per node (divides --gpus)");
    add_rate_flag(sub, "--intra-bandwidth", o.intra_bandwidth, o.intra_bandwidth_gbps,
                  "hierarchical: bandwidth inside a node: 900GB/s");
    add_microseconds_flag(sub, "--intra-latency", o.intra_latency, o.intra_latency_us,
                          "hierarchical: step latency inside a node: 0.5us");
    add_rate_flag(sub, "--inter-bandwidth", o.inter_bandwidth, o.inter_bandwidth_gbps,
                  "hierarchical: bandwidth of one NIC between nodes: 400Gb/s (default --bandwidth)");
    add_microseconds_flag(sub, "--inter-latency", o.inter_latency, o.inter_latency_us,
                          "hierarchical: step latency between nodes: 5us (default --latency)");
    sub->add_option("--oversubscription", o.oversubscription, "hierarchical: r of an r:1 fabric (1)");
    sub->add_option("--nic", o.nic, "hierarchical: per-gpu (one NIC per GPU) or shared (one per node)");
    sub->add_option("--transport", o.transport,
                    "nccl: nvlink, pcie or network: the link's (nvlink on up to 8 GPUs, one node; network beyond), "
                    "or inside a node with --gpus-per-node (nvlink)");
    add_json_flag(sub, o.json);
}

// Reads the flags with units into the numbers of the old flags beside them.
void fold_units(NetworkOptions& o) {
    o.bandwidth_gbps = rate_in_gbps(o.bandwidth_gbps, o.bandwidth, "--bandwidth", "--bandwidth-gbps");
    o.latency_us = time_in_us(o.latency_us, o.latency, "--latency", "--latency-us");
    o.base_latency_us = time_in_us(o.base_latency_us, o.base_latency, "--base-latency", "--base-latency-us");
    o.intra_bandwidth_gbps =
        rate_in_gbps(o.intra_bandwidth_gbps, o.intra_bandwidth, "--intra-bandwidth", "--intra-bandwidth-gbps");
    o.intra_latency_us = time_in_us(o.intra_latency_us, o.intra_latency, "--intra-latency", "--intra-latency-us");
    o.inter_bandwidth_gbps =
        rate_in_gbps(o.inter_bandwidth_gbps, o.inter_bandwidth, "--inter-bandwidth", "--inter-bandwidth-gbps");
    o.inter_latency_us = time_in_us(o.inter_latency_us, o.inter_latency, "--inter-latency", "--inter-latency-us");
    o.bandwidth = o.latency = o.base_latency = o.intra_bandwidth = o.intra_latency = o.inter_bandwidth =
        o.inter_latency = std::nullopt;
    if (o.calibration) {
        if (o.bandwidth_gbps || o.latency_us)
            reject("--calibration", io::printable(*o.calibration),
                   "give --calibration or --bandwidth and --latency, not both");
        const Calibration c = read_calibration("--calibration", *o.calibration);
        o.bandwidth_gbps = in(c.link.bandwidth, units::GBps);
        o.latency_us = in(c.link.step_latency, units::us);
        if (!o.base_latency_us) o.base_latency_us = in(c.base_latency, units::us);
    }
}

Link resolve_flat_link(const NetworkOptions& o) {
    if (!o.bandwidth_gbps) throw napkin::invalid_argument("--bandwidth (or --bandwidth-gbps) is required");
    if (!o.latency_us) throw napkin::invalid_argument("--latency (or --latency-us) is required");
    require_positive("--bandwidth-gbps", *o.bandwidth_gbps);
    require_non_negative("--latency-us", *o.latency_us);
    return {"link", gigabytes_per_second(*o.bandwidth_gbps), microseconds(*o.latency_us)};
}

Seconds resolve_base(const NetworkOptions& o) {
    require_non_negative("--base-latency-us", o.base_latency_us.value_or(0.0));
    return microseconds(o.base_latency_us.value_or(0.0));
}

long long resolve_gpus(const NetworkOptions& o) {
    require_at_least_one("--gpus", o.gpus);
    return o.gpus;
}

// The two levels of the hierarchical algorithm. The NCCL-style model takes its
// hop latencies from NCCL's tables, so it needs no step latencies (0 if not given).
HierarchicalTopology resolve_topology(const NetworkOptions& o, std::string_view algorithm = "hierarchical") {
    const std::string needs = "--algorithm " + std::string(algorithm) + " needs ";
    const bool latencies_needed = algorithm == "hierarchical";
    if (!o.gpus_per_node) throw napkin::invalid_argument(needs + "--gpus-per-node");
    const long long g = *o.gpus_per_node;
    require_at_least_one("--gpus-per-node", g);
    const long long n = resolve_gpus(o);
    if (n % g != 0)
        throw napkin::invalid_argument("--gpus-per-node = " + std::to_string(g) + ": must divide --gpus = " +
                                       std::to_string(n));
    const std::optional<double> no_latency = latencies_needed ? std::nullopt : std::optional<double>{0.0};
    const auto intra_lat = o.intra_latency_us ? o.intra_latency_us : no_latency;
    const auto inter_bw = o.inter_bandwidth_gbps ? o.inter_bandwidth_gbps : o.bandwidth_gbps;
    const auto inter_lat = o.inter_latency_us ? o.inter_latency_us : o.latency_us ? o.latency_us : no_latency;
    if (!o.intra_bandwidth_gbps) throw napkin::invalid_argument(needs + "--intra-bandwidth-gbps");
    if (!intra_lat) throw napkin::invalid_argument(needs + "--intra-latency-us");
    if (!inter_bw) throw napkin::invalid_argument(needs + "--inter-bandwidth-gbps");
    if (!inter_lat) throw napkin::invalid_argument(needs + "--inter-latency-us");
    require_positive("--intra-bandwidth-gbps", *o.intra_bandwidth_gbps);
    require_non_negative("--intra-latency-us", *intra_lat);
    require_positive("--inter-bandwidth-gbps", *inter_bw);
    require_non_negative("--inter-latency-us", *inter_lat);
    require(o.oversubscription >= 1.0, "--oversubscription", o.oversubscription, "must be at least 1");
    Nic nic = Nic::per_gpu;
    if (o.nic == "per-node") nic = Nic::per_node;  // an older spelling of "shared"
    else if (const std::optional<Nic> named = parse_nic(o.nic)) nic = *named;
    else throw napkin::invalid_argument("--nic \"" + o.nic + "\": must be " + names_of(nic_names));
    return {n / g,
            g,
            {"intra", gigabytes_per_second(*o.intra_bandwidth_gbps), microseconds(*intra_lat)},
            {"inter", gigabytes_per_second(*inter_bw), microseconds(*inter_lat)},
            nic,
            o.oversubscription};
}

Transport resolve_transport(const std::string& text) {
    for (Transport t : {Transport::nvlink, Transport::pcie, Transport::network})
        if (to_string(t) == text) return t;
    throw napkin::invalid_argument("--transport \"" + text + "\": must be nvlink, pcie or network");
}

// Sizes on the wire are quoted in decimal units, as link bandwidths are: "280 GB".
std::string decimal_size(Bytes b) {
    static constexpr Unit<Bytes> ladder[] = {units::B, units::KB, units::MB, units::GB, units::TB};
    const Unit<Bytes>* chosen = &ladder[0];
    for (const auto& u : ladder)
        if (b.value() >= u.factor) chosen = &u;
    return format_trimmed(in(b, *chosen), 2) + " " + chosen->symbol;
}

// `op` gives nccl-tests' bus factor for algbw and busbw (none: not printed).
void report(const std::string& what, Bytes message, long long gpus, const CollectiveTime& t, bool json,
            const nlohmann::json& extra = nlohmann::json::object(), std::optional<ClusterOp> op = std::nullopt) {
    const Seconds total = t.total();
    const bool rated = op.has_value() && total.value() > 0.0;
    if (json) {
        nlohmann::json j{{"operation", what},
                         {"bytes", json_bytes(message)},
                         {"gpus", gpus},
                         {"time_s", total.value()},
                         {"latency_s", t.latency.value()},
                         {"bandwidth_s", t.bandwidth.value()}};
        if (op) {
            j["algbw_bytes_per_s"] = rated ? nlohmann::json(cluster_algbw(message, total).value()) : nlohmann::json();
            j["busbw_bytes_per_s"] =
                rated ? nlohmann::json(cluster_busbw(*op, gpus, message, total).value()) : nlohmann::json();
        }
        j.update(extra);
        return print_json(j);
    }
    printf_wrapped("%s of %s on %lld GPUs: %s (latency %s, bandwidth %s; %.2f%% bandwidth)\n", what.c_str(),
                decimal_size(message).c_str(), gpus, to_string(total).c_str(), to_string(t.latency).c_str(),
                to_string(t.bandwidth).c_str(), 100.0 * t.bandwidth_share());
    if (rated)
        std::printf("algbw %.2f GB/s, busbw %.2f GB/s (nccl-tests definitions)\n",
                    in(cluster_algbw(message, total), units::GBps),
                    in(cluster_busbw(*op, gpus, message, total), units::GBps));
}

// The cluster model answers when a catalog GPU, node or link, NICs, a sweep or
// one of its own algorithms is asked for; the alpha-beta formulas otherwise.
bool wants_cluster(const ClusterOptions& c, const std::optional<std::string>& algorithm) {
    return c.given() || (algorithm && (*algorithm == "auto" || *algorithm == "nvls" || *algorithm == "nvls-tree" ||
                                       *algorithm == "collnet"));
}

void run_cluster(ClusterOp op, const NetworkOptions& net, const ClusterOptions& c,
                 const std::optional<std::string>& algorithm) {
    const NcclFabric f = resolve_fabric(c, net.gpus, net.gpus_per_node, net.intra_bandwidth_gbps,
                                        net.inter_bandwidth_gbps, net.oversubscription, net.transport);
    report_cluster(op, net.bytes, c, f, resolve_cluster_algorithm(algorithm.value_or("auto")), net.json);
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        NetworkOptions net;
        ClusterOptions cluster;
        std::optional<std::string> given_algorithm;
        std::string algorithm;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("allreduce", "time of one all-reduce (the alias of collective --op all-reduce)");
    sub->add_option("--algorithm", o->given_algorithm,
                    "ring, tree, hierarchical or nccl (ring); with a catalog GPU, node or link: auto, ring, tree, "
                    "nvls, nvls-tree or collnet (auto)");
    add_network_options(sub, o->net);
    add_cluster_options(sub, o->cluster);
    sub->callback([o] {
        fold_units(o->net);
        if (wants_cluster(o->cluster, o->given_algorithm))
            return run_cluster(ClusterOp::all_reduce, o->net, o->cluster, o->given_algorithm);
        if (o->net.bytes.empty()) throw napkin::invalid_argument("allreduce: --bytes is required");
        o->algorithm = o->given_algorithm.value_or("ring");
        const Bytes message = parse_size("--bytes", o->net.bytes);
        const long long gpus = resolve_gpus(o->net);
        const Seconds base = resolve_base(o->net);
        if (o->algorithm == "ring")
            return report("ring all-reduce", message, gpus, ring_all_reduce(message, gpus, resolve_flat_link(o->net), base),
                          o->net.json, {{"algorithm", "ring"}}, ClusterOp::all_reduce);
        if (o->algorithm == "tree")
            return report("tree all-reduce", message, gpus, tree_all_reduce(message, gpus, resolve_flat_link(o->net), base),
                          o->net.json, {{"algorithm", "tree"}}, ClusterOp::all_reduce);
        if (o->algorithm == "hierarchical") {
            const HierarchicalTopology t = resolve_topology(o->net);
            return report("hierarchical all-reduce", message, gpus, hierarchical_all_reduce(message, t, base), o->net.json,
                          {{"algorithm", "hierarchical"}, {"nodes", t.nodes}, {"gpus_per_node", t.gpus_per_node},
                           {"nic", to_string(t.nic)}, {"oversubscription", t.oversubscription}},
                          ClusterOp::all_reduce);
        }
        if (o->algorithm == "nccl") {
            // One link, or nodes of --gpus-per-node GPUs (each hop at its transport's latency).
            const bool across_nodes = o->net.gpus_per_node.has_value();
            // One node (up to 8 GPUs) talks over the link inside it, not the network.
            const NcclModel model{
                resolve_transport(o->net.transport.value_or(across_nodes || gpus <= 8 ? "nvlink" : "network"))};
            const NcclChoice c = across_nodes ? model.choose(message, resolve_topology(o->net, "nccl"))
                                              : model.choose(message, gpus, resolve_flat_link(o->net));
            nlohmann::json extra{{"algorithm", "nccl"}, {"nccl_algorithm", to_string(c.algorithm)},
                                 {"nccl_protocol", to_string(c.protocol)}, {"transport", to_string(model.transport)}};
            if (across_nodes) extra["gpus_per_node"] = *o->net.gpus_per_node;
            return report("NCCL-style all-reduce (" + std::string(to_string(c.algorithm)) + ", " +
                              std::string(to_string(c.protocol)) + ")",
                          message, gpus, c.time, o->net.json, extra, ClusterOp::all_reduce);
        }
        throw napkin::invalid_argument("--algorithm \"" + o->algorithm + "\": must be ring, tree, hierarchical or nccl");
    });
}

NAPKIN_COMMAND(app) {
    struct Options {
        NetworkOptions net;
        ClusterOptions cluster;
        std::string op;
        std::optional<std::string> given_algorithm;
        std::string algorithm;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("collective", "time of one collective: alpha-beta, or as NCCL runs it on a cluster");
    sub->add_option("--op", o->op, "all-reduce, all-gather, reduce-scatter, all-to-all, broadcast, send-recv (p2p)")
        ->required();
    sub->add_option("--algorithm", o->given_algorithm,
                    "ring, or hierarchical for reduce-scatter and all-gather (ring); with a catalog GPU, node or "
                    "link: auto, ring, tree, nvls, nvls-tree or collnet (auto)");
    add_network_options(sub, o->net);
    add_cluster_options(sub, o->cluster);
    sub->callback([o] {
        fold_units(o->net);
        if (wants_cluster(o->cluster, o->given_algorithm)) {
            const auto op = parse_cluster_op(o->op);
            if (!op)
                throw napkin::invalid_argument("--op \"" + o->op + "\": must be " + names_of(cluster_op_names) +
                                               " (or p2p)");
            return run_cluster(*op, o->net, o->cluster, o->given_algorithm);
        }
        if (o->net.bytes.empty()) throw napkin::invalid_argument("collective: --bytes is required");
        o->algorithm = o->given_algorithm.value_or("ring");
        const Bytes message = parse_size("--bytes", o->net.bytes);
        const long long gpus = resolve_gpus(o->net);
        const Seconds base = resolve_base(o->net);
        const nlohmann::json extra{{"op", o->op}, {"algorithm", o->algorithm}};
        if (o->algorithm == "hierarchical") {
            const HierarchicalTopology t = resolve_topology(o->net);
            if (o->op == "reduce-scatter")
                return report("hierarchical reduce-scatter", message, gpus, hierarchical_reduce_scatter(message, t, base),
                              o->net.json, extra);
            if (o->op == "all-gather")
                return report("hierarchical all-gather", message, gpus, hierarchical_all_gather(message, t, base),
                              o->net.json, extra);
            if (o->op == "all-reduce")
                return report("hierarchical all-reduce", message, gpus, hierarchical_all_reduce(message, t, base),
                              o->net.json, extra);
            throw napkin::invalid_argument("--op \"" + o->op +
                                           "\": the hierarchical algorithm has reduce-scatter, all-gather, all-reduce");
        }
        if (o->algorithm != "ring")
            throw napkin::invalid_argument("--algorithm \"" + o->algorithm + "\": must be ring or hierarchical");
        const Link link = resolve_flat_link(o->net);
        if (o->op == "p2p" || o->op == "send-recv" || o->op == "sendrecv")
            return report("point-to-point", message, 2, point_to_point(message, link, base), o->net.json, extra,
                          ClusterOp::send_recv);
        for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                             Collective::all_to_all, Collective::broadcast})
            if (to_string(c) == o->op)
                return report(o->op, message, gpus, collective_time(c, message, gpus, link, base), o->net.json, extra,
                              parse_cluster_op(o->op));
        throw napkin::invalid_argument("--op \"" + o->op +
                                       "\": must be reduce-scatter, all-gather, all-to-all, broadcast, p2p or all-reduce");
    });
}

NAPKIN_COMMAND(app) {
    struct Options {
        long long gpus = 0;
        std::optional<double> bandwidth_gbps, latency_us;
        std::optional<std::string> bandwidth, latency;
        bool json = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("crossover", "the message size where ring and tree all-reduce cost the same");
    sub->add_option("--gpus", o->gpus, "ranks taking part")->required();
    add_rate_flag(sub, "--bandwidth", o->bandwidth, o->bandwidth_gbps,
                  "link bandwidth per GPU and direction: 50GB/s, 400Gb/s (bits)");
    add_microseconds_flag(sub, "--latency", o->latency, o->latency_us, "latency of one step (alpha): 5us");
    add_json_flag(sub, o->json);
    sub->callback([o] {
        require_at_least_one("--gpus", o->gpus);
        const auto gbps = rate_in_gbps(o->bandwidth_gbps, o->bandwidth, "--bandwidth", "--bandwidth-gbps");
        const auto us = time_in_us(o->latency_us, o->latency, "--latency", "--latency-us");
        if (!gbps) throw napkin::invalid_argument("--bandwidth (or --bandwidth-gbps) is required");
        if (!us) throw napkin::invalid_argument("--latency (or --latency-us) is required");
        o->bandwidth_gbps = gbps;
        o->latency_us = us;
        require_positive("--bandwidth-gbps", *o->bandwidth_gbps);
        require_non_negative("--latency-us", *o->latency_us);
        const Link link{"link", gigabytes_per_second(*o->bandwidth_gbps), microseconds(*o->latency_us)};
        const auto m = ring_tree_crossover(o->gpus, link);
        if (o->json)
            return print_json({{"gpus", o->gpus},
                               {"bandwidth_gbps", *o->bandwidth_gbps},
                               {"latency_us", *o->latency_us},
                               {"bandwidth_bytes_per_s", in(link.bandwidth, units::Bps)},
                               {"latency_s", in(link.step_latency, units::s)},
                               {"bytes", m ? nlohmann::json(m->value()) : nlohmann::json(nullptr)}});
        if (!m) {
            printf_wrapped("no crossover on %lld GPUs: the ring is never slower than the tree\n", o->gpus);
            return;
        }
        printf_wrapped("ring and tree cost the same at %s (%.0f B) on %lld GPUs: the tree wins below, the ring above\n",
                    decimal_size(*m).c_str(), m->value(), o->gpus);
    });
}

NAPKIN_COMMAND(app) {
    struct Options {
        std::string file;
        std::string op = "all-reduce";
        std::optional<long long> ranks;
        bool fit_base = false, in_place = false, json = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("calibrate", "fit alpha and B to nccl-tests output (all_reduce_perf, ...)");
    sub->add_option("file", o->file, "the program's output, saved to a file")->required();
    sub->add_option("--op", o->op, "the collective measured: all-reduce (all_reduce_perf), reduce-scatter, "
                                   "all-gather, all-to-all");
    sub->add_option("--ranks", o->ranks, "rank count (default: the header's \"#  Rank\" lines)");
    sub->add_flag("--fit-base-latency", o->fit_base, "also fit a base latency (needs several rank counts)");
    sub->add_flag("--in-place", o->in_place, "use the in-place columns (default: out-of-place)");
    add_json_flag(sub, o->json);
    sub->callback([o] {
        std::optional<Collective> op;
        for (Collective c : {Collective::all_reduce, Collective::reduce_scatter, Collective::all_gather,
                             Collective::all_to_all, Collective::broadcast})
            if (to_string(c) == o->op) op = c;
        if (!op) throw napkin::invalid_argument("--op \"" + o->op + "\": must be all-reduce, reduce-scatter, "
                                                                     "all-gather, all-to-all or broadcast");
        const io::NcclTestsRun run = io::read_nccl_tests(o->file, *op, o->ranks);
        const io::Placement placement = o->in_place ? io::Placement::in_place : io::Placement::out_of_place;
        const auto samples = io::samples(run, placement);
        const long long dropped = io::rows_without_time(run, placement);
        const CalibrationFit fit = fit_alpha_beta(samples, {.fit_base_latency = o->fit_base, .base_latency = {}});
        if (o->json) {
            nlohmann::json rows = nlohmann::json::array();
            for (std::size_t i = 0; i < samples.size(); ++i)
                rows.push_back({{"bytes", json_bytes(samples[i].message)},
                                {"time_s", samples[i].time.value()},
                                {"relative_residual", fit.relative_residuals[i]}});
            return print_json({{"op", o->op},
                               {"ranks", run.ranks},
                               {"step_latency_s", fit.step_latency.value()},
                               {"bandwidth_bytes_per_s", fit.bandwidth.value()},
                               {"base_latency_s", fit.base_latency.value()},
                               {"rms_relative_residual", fit.rms_relative_residual},
                               {"max_relative_residual", fit.max_relative_residual},
                               {"rows_dropped_zero_time", dropped},
                               {"step_latency_held_at_zero", fit.step_latency_held_at_zero},
                               {"base_latency_held_at_zero", fit.base_latency_held_at_zero},
                               {"samples", rows}});
        }
        std::printf("%s on %lld ranks, %zu sizes: alpha = %s per step, B = %s", o->op.c_str(), run.ranks,
                    samples.size(), format(fit.step_latency, units::us, 3).c_str(), to_string(fit.bandwidth).c_str());
        if (fit.base_latency_fitted) std::printf(", base = %s", format(fit.base_latency, units::us, 3).c_str());
        std::printf("\nresiduals (model - measured) / measured: rms %.2f%%, max %.2f%%\n",
                    100 * fit.rms_relative_residual, 100 * fit.max_relative_residual);
        if (dropped > 0) std::printf("%lld rows with a zero time dropped (below the timer's resolution)\n", dropped);
        if (fit.step_latency_held_at_zero || fit.base_latency_held_at_zero)
            std::printf("the unconstrained fit gave a negative %s (not physical): held at 0, the rest refitted\n",
                        fit.step_latency_held_at_zero && fit.base_latency_held_at_zero ? "alpha and base latency"
                        : fit.step_latency_held_at_zero                                ? "alpha"
                                                                                       : "base latency");
        std::printf("%14s  %12s  %9s\n", "size", "measured", "residual");
        for (std::size_t i = 0; i < samples.size(); ++i)
            std::printf("%14s  %12s  %8.2f%%\n", to_string(samples[i].message).c_str(),
                        to_string(samples[i].time).c_str(), 100 * fit.relative_residuals[i]);
    });
}

}  // namespace napkin::cli
