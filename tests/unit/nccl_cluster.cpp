// napkin/nccl_cluster.hpp: collectives as NCCL runs them, by hand and against
// published nccl-tests tables (tests/data/measured-collectives.json, a copy of
// the reference file).
#include <napkin/catalog/hardware.hpp>
#include <napkin/nccl_cluster.hpp>

#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace napkin;

namespace {

// A DGX H100-like fabric: n GPUs in nodes of 8 on NVLink 4 (450 GB/s each way,
// NCCL's ring ceiling 18 × 20.6 GB/s), 8 NICs of 400 Gb/s a node.
NcclFabric h100(long long gpus, long long nics = 8) {
    return {.gpus = gpus,
            .domain_gpus = std::min(gpus, 8LL),
            .intra = catalog::nvlink4,
            .intra_ceiling = cluster::nvlink_ring_ceiling(Architecture::hopper),
            .nics = nics,
            .nic_bandwidth = gigabits_per_second(400),
            .nvls_efficiency = cluster::nvls_efficiency(Architecture::hopper)};
}

// How napkin reads a table's hardware: each fabric from the table's own fields
// and notes, the platform's data sheet where the table does not say.
struct TableFabric {
    long long domain;   // GPUs on one NVLink domain
    const Link* intra;  // the catalog link inside it
    Architecture arch;  // for NCCL's ring ceiling and NVLS efficiency
    long long nics;     // NICs per domain
    double nic_gbps;    // each, Gb/s
    bool sharp = false;
    Transport transport = Transport::nvlink;
};

// V100 SXM2: NVLink 2, 300 GB/s both directions (NVIDIA V100 data sheet), 150 each way.
constexpr Link nvlink2{"nvlink2", gigabytes_per_second(150), microseconds(0.6)};

// The fitting set: NCCL runs by nccl-tests (or torch's all_reduce_bench on NCCL)
// whose hardware is stated or a documented platform. Kept apart: problem
// reports (the reporter says the numbers are poor), MSCCL++ (not NCCL).
const std::map<std::string, TableFabric>& fabrics() {
    static const std::map<std::string, TableFabric> m{
        // Azure ND A100 v4 / ND H100 v5 / ND H200 v5: 8 GPUs on NVSwitch, 8 × 200/400 Gb/s
        // InfiniBand (Azure ND-series documentation).
        {"azure_aibench_a100_1node_allreduce", {8, &catalog::nvlink3, Architecture::ampere, 8, 200}},
        {"azure_aibench_h100_1node_allreduce", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"azure_aibench_h200_1node_allreduce", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        // p4de: 4 × 100 Gb/s EFA (the table's note); p5: 32 × 100 Gb/s EFA (the table).
        {"aws_adt_p4de_2node_allreduce", {8, &catalog::nvlink3, Architecture::ampere, 4, 100}},
        {"aws_adt_p5_2node_allreduce", {8, &catalog::nvlink4, Architecture::hopper, 32, 100}},
        {"aws_adt_batch_p5_allreduce", {8, &catalog::nvlink4, Architecture::hopper, 32, 100}},
        {"stas_a100_1node_allreduce", {8, &catalog::nvlink3, Architecture::ampere, 8, 200}},
        {"stas_h200_1node_allreduce_torch", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"stas_p6b200_1node_allreduce_torch", {8, &catalog::nvlink5, Architecture::blackwell, 8, 400}},
        {"stas_p6b200_4node_allreduce_torch", {8, &catalog::nvlink5, Architecture::blackwell, 8, 400}},
        {"stas_h200_1node_nvls_gpucount_8GiB", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"stas_b200_1node_nvls_gpucount_8GiB", {8, &catalog::nvlink5, Architecture::blackwell, 8, 400}},
        {"stas_h200_1node_all_reduce_nvls_16GiB", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"stas_h200_1node_all_reduce_ring_16GiB", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"stas_h200_1node_all_gather_16GiB", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"stas_h200_1node_reduce_scatter_16GiB", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        // CoreWeave HGX H100: 8 × 400 Gb/s NDR a node (the DGX H100 reference design), SHARP.
        {"coreweave_h100_8node_allreduce_sharp_collnetchain",
         {8, &catalog::nvlink4, Architecture::hopper, 8, 400, true}},
        // GB200 NVL72: the 72-GPU NVLink domain, one 400 Gb/s ConnectX-7 a GPU (GB200 NVL72
        // data sheet), SHARP in the Quantum-X800 switches (the table's note).
        {"coreweave_gb200nvl72_1rack_72gpu_allreduce", {72, &catalog::nvlink5, Architecture::blackwell, 72, 400, true}},
        {"coreweave_gb200nvl72_2rack_144gpu_allreduce",
         {72, &catalog::nvlink5, Architecture::blackwell, 72, 400, true}},
        {"coreweave_gb200nvl72_20rack_1440gpu_allreduce",
         {72, &catalog::nvlink5, Architecture::blackwell, 72, 400, true}},
        // 4 × 200 Gb/s HDR a node (the table).
        {"nccltests_issue119_a100_3node_allreduce", {8, &catalog::nvlink3, Architecture::ampere, 4, 200}},
    };
    return m;
}

const std::map<std::string, TableFabric>& kept_apart() {
    static const std::map<std::string, TableFabric> m{
        // One 400 Gb/s RoCE HCA, GPUDirect RDMA off for the 1-GPU runs (the log), PCIe inside.
        {"moc_h100_2node_1gpu_all_reduce_roce", {1, &catalog::pcie5, Architecture::unknown, 1, 400}},
        {"moc_h100_2node_1gpu_sendrecv_roce", {1, &catalog::pcie5, Architecture::unknown, 1, 400}},
        {"moc_h100_2node_4gpu_sendrecv_roce",
         {4, &catalog::pcie5, Architecture::unknown, 1, 400, false, Transport::pcie}},
        // One 100 Gb/s IB port a node (the reporter's "100G" network; the count is not stated).
        {"nccltests_issue78_v100_8node_allreduce", {8, &nvlink2, Architecture::unknown, 1, 100}},
        {"nccltests_issue78_v100_8node_alltoall", {8, &nvlink2, Architecture::unknown, 1, 100}},
        // HGX H20: NVLink 900 GB/s both ways (H20 data sheet); 8 × 400 Gb/s NDR (the later comment).
        {"nccl_issue1244_h20_2node_allreduce_nvls_default", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"nccl_issue1244_h20_2node_allreduce_nvlstree_small", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        // 4 NICs; the reporter's "theoretical busbw 200" is 4 × 400 Gb/s.
        {"nccltests_issue232_h100_2node_1gpu_4nic_allreduce_tree", {1, &catalog::pcie5, Architecture::hopper, 4, 400}},
        // Azure NDm A100 v4 (8 × 200 Gb/s HDR) and ND H100 v5 (8 × 400 Gb/s NDR): MSCCL++, not NCCL.
        {"mscclpp_ndmv4_allgather_8ranks", {8, &catalog::nvlink3, Architecture::ampere, 8, 200}},
        {"mscclpp_ndmv4_allgather_16ranks", {8, &catalog::nvlink3, Architecture::ampere, 8, 200}},
        {"mscclpp_ndmv4_allreduce_8ranks", {8, &catalog::nvlink3, Architecture::ampere, 8, 200}},
        {"mscclpp_ndmv4_allreduce_16ranks", {8, &catalog::nvlink3, Architecture::ampere, 8, 200}},
        {"mscclpp_ndmv4_alltoall_8ranks", {8, &catalog::nvlink3, Architecture::ampere, 8, 200}},
        {"mscclpp_ndmv4_alltoall_16ranks", {8, &catalog::nvlink3, Architecture::ampere, 8, 200}},
        {"mscclpp_ndmv5_allgather_16ranks", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"mscclpp_ndmv5_allreduce_8ranks", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"mscclpp_ndmv5_allreduce_16ranks", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
        {"mscclpp_ndmv5_alltoall_16ranks", {8, &catalog::nvlink4, Architecture::hopper, 8, 400}},
    };
    return m;
}

std::optional<ClusterOp> op_of(const std::string& c) {
    if (c == "all_reduce" || c == "allreduce") return ClusterOp::all_reduce;
    if (c == "all_gather" || c == "allgather") return ClusterOp::all_gather;
    if (c == "reduce_scatter") return ClusterOp::reduce_scatter;
    if (c == "alltoall") return ClusterOp::all_to_all;
    if (c == "sendrecv") return ClusterOp::send_recv;
    return std::nullopt;
}

// The algorithm a table forced (NCCL_ALGO, NCCL_NVLS_ENABLE=0), if any.
std::optional<ClusterAlgorithm> forced(const nlohmann::json& t) {
    const auto& env = t.at("env");
    const auto get = [&](const char* k) { return env.contains(k) ? env.at(k).get<std::string>() : std::string{}; };
    const std::string algo = get("NCCL_ALGO");
    if (get("NCCL_NVLS_ENABLE") == "0" || algo == "RING") return ClusterAlgorithm::ring;
    if (algo == "COLLNETCHAIN") return ClusterAlgorithm::collnet;
    if (algo == "NVLSTree") return ClusterAlgorithm::nvls_tree;
    if (algo == "Tree") return ClusterAlgorithm::tree;
    return std::nullopt;
}

struct Table {
    std::string id, source;
    bool fitting = false;
    std::vector<ClusterSample> samples;
};

struct Collectives {
    std::deque<std::string> text;  // the sources the samples point to
    std::vector<Table> tables;
    long long refused = 0;                   // tables with no fabric (none expected)
    std::vector<std::string> without_times;  // tables with no nccl-tests times (DeepEP's metrics)
};

// The measured time of a row: out-of-place, else in-place, else from busbw
// (t = f_op · S / busbw); none when the row printed neither (or busbw 0).
std::optional<Seconds> row_time(const nlohmann::json& r, ClusterOp op, long long gpus) {
    const auto num = [&](const char* k) -> std::optional<double> {
        if (!r.contains(k) || r.at(k).is_null()) return std::nullopt;
        return r.at(k).get<double>();
    };
    if (auto t = num("time_us"); t && *t > 0) return microseconds(*t);
    if (auto t = num("inplace_time_us"); t && *t > 0) return microseconds(*t);
    auto bw = num("busbw_gbs");
    if (!bw) bw = num("inplace_busbw_gbs");
    if (!bw || *bw <= 0 || !r.contains("bytes")) return std::nullopt;
    return bus_factor(op, gpus) * (bytes(r.at("bytes").get<double>()) / gigabytes_per_second(*bw));
}

Collectives read_collectives() {
    std::ifstream file(NAPKIN_TEST_DATA_DIR "/measured-collectives.json");
    REQUIRE(file.good());
    const nlohmann::json doc = nlohmann::json::parse(file);
    Collectives c;
    for (const auto& t : doc.at("tables")) {
        const std::string id = t.at("id");
        const auto fit = fabrics().find(id);
        const auto apart = kept_apart().find(id);
        const auto op = op_of(t.at("collective"));
        if (!op) {
            c.without_times.push_back(id);
            continue;
        }
        if (fit == fabrics().end() && apart == kept_apart().end()) {
            ++c.refused;
            continue;
        }
        const TableFabric& tf = fit != fabrics().end() ? fit->second : apart->second;
        Table table{id, t.at("citation").at("repo"), fit != fabrics().end(), {}};
        const std::string_view source = c.text.emplace_back(table.source);
        for (const auto& r : t.at("rows")) {
            const long long gpus =
                r.contains("gpus") ? r.at("gpus").get<long long>() : t.at("total_gpus").get<long long>();
            const auto time = row_time(r, *op, gpus);
            if (!time) continue;
            const NcclFabric f{.gpus = gpus,
                               .domain_gpus = std::min(gpus, tf.domain),
                               .intra = *tf.intra,
                               .intra_transport = tf.transport,
                               .intra_ceiling = cluster::nvlink_ring_ceiling(tf.arch),
                               .nics = tf.nics,
                               .nic_bandwidth = gigabits_per_second(tf.nic_gbps),
                               .nvls_efficiency = cluster::nvls_efficiency(tf.arch),
                               .sharp = tf.sharp};
            // NCCL_ALGO picks among the collective algorithms; the grouped sends have none to pick.
            const bool sends = *op == ClusterOp::all_to_all || *op == ClusterOp::send_recv;
            table.samples.push_back(
                {source, f, *op, bytes(r.at("bytes").get<double>()), *time, sends ? std::nullopt : forced(t)});
        }
        c.tables.push_back(std::move(table));
    }
    return c;
}

std::vector<ClusterSample> fitting_samples(const Collectives& c) {
    std::vector<ClusterSample> all;
    for (const Table& t : c.tables)
        if (t.fitting) all.insert(all.end(), t.samples.begin(), t.samples.end());
    return all;
}

constexpr double large = 64.0 * 1024 * 1024;  // 64 MiB: the large/small split

struct TableErrors {
    long long large_rows = 0, small_rows = 0;
    double large_fitted = 0, small_fitted = 0, large_left_out = 0, small_left_out = 0;
};

TableErrors table_errors(const Table& t, const NcclShares& fitted, const NcclShares& left_out) {
    TableErrors e;
    for (const ClusterSample& s : t.samples) {
        const bool big = s.message.value() >= large;
        (big ? e.large_rows : e.small_rows) += 1;
        (big ? e.large_fitted : e.small_fitted) += std::abs(cluster_error(s, fitted));
        (big ? e.large_left_out : e.small_left_out) += std::abs(cluster_error(s, left_out));
    }
    if (e.large_rows) e.large_fitted /= count(e.large_rows), e.large_left_out /= count(e.large_rows);
    if (e.small_rows) e.small_fitted /= count(e.small_rows), e.small_left_out /= count(e.small_rows);
    return e;
}

using test::percent;

// The README's collectives validation table: per table, mean |error| on time
// at ≥ 64 MiB and below, fitted and with the table's source left out of the fit.
std::string validation_table(const Collectives& c) {
    const std::vector<ClusterSample> all = fitting_samples(c);
    const NcclShares fitted = fit_nccl_shares(all);
    std::map<std::string, NcclShares> left_out;
    std::ostringstream out;
    out << "| table | set | rows ≥ 64 MiB | fitted | source left out | rows < 64 MiB | fitted | source left out |\n"
        << "|---|---|---|---|---|---|---|---|\n";
    const auto cell = [](long long rows, double v) { return rows == 0 ? std::string("–") : percent(v); };
    TableErrors sum;  // over every fitting row: error sums, then means
    for (const Table& t : c.tables) {
        if (t.fitting && !left_out.contains(t.source)) left_out[t.source] = fit_nccl_shares(all, t.source);
        const TableErrors e = table_errors(t, fitted, t.fitting ? left_out[t.source] : fitted);
        if (t.fitting) {
            sum.large_rows += e.large_rows, sum.small_rows += e.small_rows;
            sum.large_fitted += e.large_fitted * count(e.large_rows);
            sum.large_left_out += e.large_left_out * count(e.large_rows);
            sum.small_fitted += e.small_fitted * count(e.small_rows);
            sum.small_left_out += e.small_left_out * count(e.small_rows);
        }
        out << "| " << t.id << " | " << (t.fitting ? "fit" : "apart") << " | " << e.large_rows << " | "
            << cell(e.large_rows, e.large_fitted) << " | " << (t.fitting ? cell(e.large_rows, e.large_left_out) : "")
            << " | " << e.small_rows << " | " << cell(e.small_rows, e.small_fitted) << " | "
            << (t.fitting ? cell(e.small_rows, e.small_left_out) : "") << " |\n";
    }
    const double large_rows = count(sum.large_rows), small_rows = count(sum.small_rows);
    out << "| every fitting row | fit | " << sum.large_rows << " | " << percent(sum.large_fitted / large_rows) << " | "
        << percent(sum.large_left_out / large_rows) << " | " << sum.small_rows << " | "
        << percent(sum.small_fitted / small_rows) << " | " << percent(sum.small_left_out / small_rows) << " |\n";
    char shares[160];
    std::snprintf(shares, sizeof shares, "η_nvls = %.4f, η_net = %.4f, H = %.3f, λ = %.4f", fitted.nvls, fitted.network,
                  fitted.heads, fitted.latency);
    out << "\nFitted on every row of the fitting tables: " << shares << ".\n";
    return out.str();
}

}  // namespace

TEST_SUITE("nccl_cluster") {
    TEST_CASE("one node of 8 H100s, ring: NCCL's 18 × 20.6 GB/s channel ceiling, 2·7/8 · 1 GiB over it") {
        const NcclFabric f = h100(8);
        const NcclShares table_only{
            .nvls = 1.0, .network = 1.0, .heads = 8, .latency = 1.0};  // NCCL's latencies as they are
        const ClusterChoice c = cluster_collective(ClusterOp::all_reduce, gibibytes(1), f, ClusterAlgorithm::ring,
                                                   NcclProtocol::simple, table_only);
        CHECK(c.bus_bandwidth == gigabytes_per_second(370.8));
        CHECK(c.time.bandwidth.value() == doctest::Approx(1.75 * 1073741824.0 / 370.8e9));
        // Latency: Simple base 8.4 µs + 14 NVLink steps at 3.4 µs (tuning.cc) = 56 µs.
        CHECK(c.time.latency.value() == doctest::Approx(56e-6));
    }

    TEST_CASE("NVLS inside one node: η · 0.85 · 2(g−1)/(g+1) · 450 GB/s — g = 4 gets 1.2/1.556 of g = 8") {
        const NcclShares s{.nvls = 1.0, .network = 1.0, .heads = 8};
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::nvls, ClusterOp::all_reduce, h100(8), s).value() ==
              doctest::Approx(0.85 * 14.0 / 9.0 * 450e9));
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::nvls, ClusterOp::all_reduce, h100(4), s).value() ==
              doctest::Approx(0.85 * 6.0 / 5.0 * 450e9));
        // No NVLink SHARP (A100): NVLS is not offered, and forcing it is refused by name.
        NcclFabric a100 = h100(8);
        a100.nvls_efficiency = 0.0;
        CHECK_FALSE(available(ClusterAlgorithm::nvls, ClusterOp::all_reduce, a100));
        CHECK_THROWS_WITH_AS(
            (void)choose_cluster_collective(ClusterOp::all_reduce, gibibytes(1), a100, ClusterAlgorithm::nvls),
            doctest::Contains("algorithm = \"nvls\""), invalid_argument);
    }

    TEST_CASE("16 nodes × 8 H100, 8 NICs of 400 Gb/s: one ring channel per NIC, 8 × 50 GB/s, not one NIC") {
        const NcclShares s{.nvls = 1.0, .network = 1.0, .heads = 8};
        const NcclFabric f = h100(128);
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::ring, ClusterOp::all_reduce, f, s) ==
              gigabytes_per_second(370.8));  // NVLink's ceiling is lower than the NICs' 400 GB/s
        NcclFabric four = h100(128, 4);      // 4 NICs: 200 GB/s
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::ring, ClusterOp::all_reduce, four, s).value() ==
              doctest::Approx(200e9));
        // The tree moves the node's M/g shard up and down: ×16/15 × 127/128 over the ring's network.
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::tree, ClusterOp::all_reduce, four, s).value() ==
              doctest::Approx(200e9 * 16.0 / 15.0 * 127.0 / 128.0));
        // A 2:1 spine halves the network.
        four.oversubscription = 2.0;
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::ring, ClusterOp::all_reduce, four, s).value() ==
              doctest::Approx(100e9));
        // SHARP reduces in the switch: twice the network's bus bandwidth.
        NcclFabric two = h100(128, 2);  // 2 NICs: 100 GB/s
        two.sharp = true;
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::collnet, ClusterOp::all_reduce, two, s).value() ==
              doctest::Approx(2.0 * 127.0 / 128.0 * 100e9));
    }

    TEST_CASE(
        "NVLS tree through H head GPUs, k/g NICs each: p5's 32 NICs all reached at H ≥ 8, an NVL72 rack's 9 of 72") {
        const NcclShares s{.nvls = 1.0, .network = 1.0, .heads = 9};
        // p5: 8 GPUs, 32 EFA NICs of 100 Gb/s a node; 9 heads cap nothing (8 GPUs, 4 NICs each).
        NcclFabric p5 = h100(16, 32);
        p5.nic_bandwidth = gigabits_per_second(100);
        // min(NVLS 0.85·14/9·450 GB/s = 595, tree gain 2/1·15/16 · 32·12.5 GB/s = 750) = 595.
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::nvls_tree, ClusterOp::all_reduce, p5, s).value() ==
              doctest::Approx(0.85 * 14.0 / 9.0 * 450e9));
        // 2 NVL72 racks, one 400 Gb/s NIC a GPU: 9 heads · 1 NIC · 50 GB/s · tree gain 2/1 · 143/144 = 893.75 GB/s,
        // under NVLS's 0.74 · 2·71/73 · 900 GB/s = 1,295 GB/s.
        const NcclFabric racks{.gpus = 144,
                               .domain_gpus = 72,
                               .intra = catalog::nvlink5,
                               .intra_ceiling = cluster::nvlink_ring_ceiling(Architecture::blackwell),
                               .nics = 72,
                               .nic_bandwidth = gigabits_per_second(400),
                               .nvls_efficiency = cluster::nvls_efficiency(Architecture::blackwell)};
        CHECK(cluster_bus_bandwidth(ClusterAlgorithm::nvls_tree, ClusterOp::all_reduce, racks, s).value() ==
              doctest::Approx(9.0 * 50e9 * 2.0 * 143.0 / 144.0));
        // The tuner does not see the head limit: with every GPU a head the NVLS tree is NVLS-bound (1,295 GB/s)
        // and beats the ring (NVLink's 18 × 40.1 GB/s ceiling), so it is chosen, then priced at 9 heads.
        const ClusterChoice c = choose_cluster_collective(ClusterOp::all_reduce, gibibytes(16), racks, {}, s);
        CHECK(c.algorithm == ClusterAlgorithm::nvls_tree);
        CHECK(c.bus_bandwidth.value() == doctest::Approx(9.0 * 50e9 * 2.0 * 143.0 / 144.0));
    }

    TEST_CASE("ring latency across 2 nodes of 8: 2·15 steps, 2 of them on the network (tuning.cc hwLat)") {
        // LL: 6.6 + 28 · 0.6 + 2 · 2.7 = 28.8 µs.
        CHECK(cluster_latency(ClusterAlgorithm::ring, ClusterOp::all_reduce, h100(16), NcclProtocol::ll).value() ==
              doctest::Approx(28.8e-6));
        // Tree LL: 6.8 + 2 · (7 · 0.6 + 1 · 5.0) = 25.2 µs.
        CHECK(cluster_latency(ClusterAlgorithm::tree, ClusterOp::all_reduce, h100(16), NcclProtocol::ll).value() ==
              doctest::Approx(25.2e-6));
    }

    TEST_CASE("NCCL's choice: LL for 8 B, Simple for 1 GiB — busbw = algbw · 2(n−1)/n") {
        const NcclFabric f = h100(8);
        CHECK(choose_cluster_collective(ClusterOp::all_reduce, bytes(8), f).protocol == NcclProtocol::ll);
        const ClusterChoice big = choose_cluster_collective(ClusterOp::all_reduce, gibibytes(1), f);
        CHECK(big.protocol == NcclProtocol::simple);
        CHECK(big.algorithm == ClusterAlgorithm::nvls);  // NVLS beats the ring's 370.8 GB/s on NVSwitch
        const Seconds t = big.time.total();
        CHECK(cluster_busbw(ClusterOp::all_reduce, 8, gibibytes(1), t).value() ==
              doctest::Approx(1.75 * cluster_algbw(gibibytes(1), t).value()));
    }

    TEST_CASE("node-limited MoE dispatch: M = 4 of 16 nodes, k = 8: 4·15/16 = 3.75 crossings, not 8·120/127") {
        const NcclShares s{.nvls = 1.0, .network = 1.0, .heads = 8, .latency = 1.0};
        const NcclFabric f = h100(128);  // 16 nodes, 8 × 50 GB/s a node: 50 GB/s a GPU
        const ClusterChoice c = moe_dispatch(gibibytes(1), f, {.top_k = 8, .node_limit = 4}, s);
        // Network: 3.75/8 of 1 GiB at 50 GB/s = 10.066 ms; NVLink: 7/8 of 1 GiB at 370.8 GB/s = 2.534 ms.
        CHECK(c.time.bandwidth.value() == doctest::Approx(3.75 / 8.0 * 1073741824.0 / 50e9));
        // Latency: ring Simple base 8.4 µs + one network hop 14 µs (tuning.cc).
        CHECK(c.time.latency.value() == doctest::Approx(22.4e-6));
        CHECK(c.algorithm == ClusterAlgorithm::p2p);
        // Unlimited (M ≥ N): the all-to-all, 120/127 of it over the network.
        const ClusterChoice all = moe_dispatch(gibibytes(1), f, {.top_k = 8, .node_limit = 16}, s);
        const ClusterChoice a2a = choose_cluster_collective(ClusterOp::all_to_all, gibibytes(1), f, std::nullopt, s);
        CHECK(all.time.total() == a2a.time.total());
        CHECK(c.time.total() < all.time.total());
        CHECK_THROWS_WITH_AS((void)moe_dispatch(gibibytes(1), f, {.top_k = 0, .node_limit = 4}, s),
                             doctest::Contains("top-k = 0"), invalid_argument);
    }

    TEST_CASE("bad shares are refused by name: no heads, a zero share, a nan latency") {
        const NcclFabric f = h100(16);
        NcclShares no_heads{};
        no_heads.heads = 0.0;
        CHECK_THROWS_WITH_AS((void)choose_cluster_collective(ClusterOp::all_reduce, gibibytes(1), f, {}, no_heads),
                             doctest::Contains("NcclShares.heads"), invalid_argument);
        NcclShares zero{};
        zero.network = 0.0;
        CHECK_THROWS_WITH_AS((void)cluster_collective(ClusterOp::all_reduce, gibibytes(1), f, ClusterAlgorithm::ring,
                                                      NcclProtocol::simple, zero),
                             doctest::Contains("NcclShares.network"), invalid_argument);
        NcclShares nan{};
        nan.latency = std::nan("");
        CHECK_THROWS_WITH_AS((void)moe_dispatch(gibibytes(1), h100(128), {}, nan),
                             doctest::Contains("NcclShares.latency"), invalid_argument);
    }

    TEST_CASE("bad fabrics are refused by name") {
        NcclFabric f = h100(16);
        f.nic_bandwidth = BytesPerSecond{};
        CHECK_THROWS_WITH_AS((void)validated(f), doctest::Contains("nic bandwidth"), invalid_argument);
        f = h100(12);
        f.domain_gpus = 8;
        CHECK_THROWS_WITH_AS((void)validated(f), doctest::Contains("gpus = 12"), invalid_argument);
        CHECK_THROWS_WITH_AS((void)cluster_collective(ClusterOp::all_reduce, bytes(-1), h100(8), ClusterAlgorithm::ring,
                                                      NcclProtocol::ll),
                             doctest::Contains("bytes"), invalid_argument);
    }

    TEST_CASE("measured-collectives.json: every NCCL table stated — the shares are the fit — errors reported") {
        const Collectives c = read_collectives();
        CHECK(c.refused == 0);
        CHECK(c.without_times.size() == 3);  // the DeepEP tables: bandwidths of DeepEP's own, no times
        const std::vector<ClusterSample> all = fitting_samples(c);
        REQUIRE(all.size() > 200);
        const NcclShares fit = fit_nccl_shares(all);
        const NcclShares stored{};
        MESSAGE("fitted nvls " << fit.nvls << ", network " << fit.network << ", heads " << fit.heads << ", latency "
                               << fit.latency << "; loss " << detail::cluster_loss(all, fit, {}));
        CHECK(stored.nvls == doctest::Approx(fit.nvls).epsilon(1e-3));
        CHECK(stored.network == doctest::Approx(fit.network).epsilon(1e-3));
        CHECK(stored.heads == doctest::Approx(fit.heads).epsilon(1e-3));
        CHECK(stored.latency == doctest::Approx(fit.latency).epsilon(1e-3));
        // The fit is a minimum: a step either way in each share is no better.
        const double at = detail::cluster_loss(all, fit, {});
        for (double d : {-0.01, 0.01}) {
            NcclShares a = fit, b = fit;
            a.nvls += d;
            b.network += d;
            CHECK(at <= detail::cluster_loss(all, a, {}) + 1e-12);
            CHECK(at <= detail::cluster_loss(all, b, {}) + 1e-12);
        }
        long long large_rows = 0, small_rows = 0;
        double large_sum = 0, small_sum = 0;
        for (const ClusterSample& s : all) {
            const double e = std::abs(cluster_error(s, fit));
            if (s.message.value() >= large)
                large_sum += e, ++large_rows;
            else
                small_sum += e, ++small_rows;
        }
        MESSAGE("fitting set: mean |error| " << percent(large_sum / count(large_rows)) << " at >= 64 MiB ("
                                             << large_rows << " rows), " << percent(small_sum / count(small_rows))
                                             << " below (" << small_rows << " rows)");
        CHECK(large_rows > 0);
        CHECK(small_rows > 0);
    }

    TEST_CASE("the README's collectives validation table is the one the fit gives") {
        const std::string table = validation_table(read_collectives());
        const test::ReadmeBlock block = test::readme_block("collectives-validation", table);
        REQUIRE(block.found);
        CHECK(block.current == table);
    }
}
