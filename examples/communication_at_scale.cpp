// Communication at scale — the five parts of the communication lab (shared
// reference lab-communication-at-scale.py), computed by napkin.
//
//   A  the all-reduce of 70B FP32 gradients on 64 GPUs over InfiniBand NDR
//   B  ring against tree, and the message size where they cost the same
//   C  flat ring against the hierarchical all-reduce on 8 nodes × 8 GPUs
//   D  gradient compression: fewer bytes, more steps
//   E  which optimizations bring communication under 20 % of a step
//
// Writes the ring/tree sweep of part B (1 KB … 10 GB on 256 GPUs) as
// ring_vs_tree.csv and ring_vs_tree.svg into the current folder, or the one
// given with --out.
//
//   ./communication_at_scale [--out folder]
#include <napkin/io/lesson_args.hpp>

#include <napkin/catalog/hardware.hpp>
#include <napkin/collectives.hpp>
#include <napkin/communication_budget.hpp>
#include <napkin/io/svg.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using namespace napkin;

namespace {

// The lab's hardware: InfiniBand NDR at 50 GB/s per GPU with 5 µs per step,
// NVLink (H100) at 900 GB/s with 0.5 µs. (The lab uses NVLink's both-directions
// figure as one direction's; napkin's catalog nvlink4 says 450 GB/s.)
constexpr Link ib_ndr{"IB NDR", gigabytes_per_second(50), microseconds(5)};
constexpr Link nvlink{"NVLink", gigabytes_per_second(900), microseconds(0.5)};

constexpr long long parameters = 70'000'000'000LL;  // "70B"

void part_a() {
    std::printf("A. The network time budget: 70B FP32 gradients, 64 GPUs, %s\n", std::string(ib_ndr.name).c_str());
    const Bytes m = gradient_bytes(parameters, DType::fp32);
    const CollectiveTime t = ring_all_reduce(m, 64, ib_ndr);
    std::printf("   message      %s\n", format(m, units::GB, 0).c_str());
    std::printf("   bandwidth    2(n-1)/n x M/B = %s\n", format(t.bandwidth, units::s, 3).c_str());
    std::printf("   latency      2(n-1) x alpha = %s\n", format(t.latency, units::ms, 2).c_str());
    std::printf("   ring all-reduce %s, bandwidth share %.3f%%\n\n", format(t.total(), units::s, 2).c_str(),
                100 * t.bandwidth_share());
}

void part_b(const std::string& out) {
    std::printf("B. Ring or tree\n");
    const Bytes one_mb = mebibytes(1);  // the lab's "1 MB": 1,024 KB
    const CollectiveTime ring = ring_all_reduce(one_mb, 256, ib_ndr);
    const CollectiveTime tree = tree_all_reduce(one_mb, 256, ib_ndr);
    std::printf("   1 MB on 256 GPUs: ring %s (510 steps), tree %s (16 levels): %s wins\n",
                to_string(ring.total()).c_str(), to_string(tree.total()).c_str(),
                tree.total() < ring.total() ? "the tree" : "the ring");
    for (long long n : {64LL, 256LL, 1024LL}) {
        const auto m = ring_tree_crossover(n, ib_ndr);
        std::printf("   crossover on %4lld GPUs: %s (%.0f B); tree below, ring above\n", n,
                    format(*m, units::MB, 2).c_str(), m->value());
    }

    // 200 log-spaced sizes from 1 KB to 10 GB (the lab's comment; its code's
    // logspace(0, 10) in KB would run on to 10 TB).
    std::ofstream csv(out + "/ring_vs_tree.csv");
    csv << "bytes,ring_s,tree_s\n";
    std::vector<std::pair<double, double>> ring_points, tree_points;
    const int points = 200;
    for (int i = 0; i < points; ++i) {
        const Bytes m = bytes(std::pow(10.0, 3.0 + 7.0 * i / (points - 1)));
        const double r = in(ring_all_reduce(m, 256, ib_ndr).total(), units::s);
        const double t = in(tree_all_reduce(m, 256, ib_ndr).total(), units::s);
        csv << m.value() << "," << r << "," << t << "\n";
        ring_points.emplace_back(std::log10(m.value()), std::log10(r));
        tree_points.emplace_back(std::log10(m.value()), std::log10(t));
    }
    // A log-log chart: x from 10^3 to 10^10 B, y from 10^-5 to 10^1 s.
    const double left = 80, top = 50, width = 600, height = 340;
    const double x0 = 3, x1 = 10, y0 = -5, y1 = 1;
    const auto px = [&](double lx) { return left + width * (lx - x0) / (x1 - x0); };
    const auto py = [&](double ly) { return top + height * (1 - (ly - y0) / (y1 - y0)); };
    io::svg::Document doc(left + width + 150, top + height + 70);
    doc.title("All-reduce on 256 GPUs over IB NDR (50 GB/s, 5 \u00b5s): ring vs tree");
    for (int e = 3; e <= 10; ++e) {
        doc.line(px(e), top, px(e), top + height, io::svg::palette::grid);
        doc.text(px(e), top + height + 18, "1e" + std::to_string(e), 11, "middle");
    }
    for (int e = -5; e <= 1; ++e) {
        doc.line(left, py(e), left + width, py(e), io::svg::palette::grid);
        doc.text(left - 8, py(e) + 4, "1e" + std::to_string(e), 11, "end");
    }
    doc.text(left + width / 2, top + height + 44, "message size (bytes)", 12, "middle");
    doc.text(22, top + height / 2, "time (s)", 12, "middle",
             "transform=\"rotate(-90 22 " + io::svg::number(top + height / 2) + ")\"");
    const auto to_px = [&](const std::vector<std::pair<double, double>>& p) {
        std::vector<std::pair<double, double>> q;
        q.reserve(p.size());
        for (const auto& [x, y] : p) q.emplace_back(px(x), py(y));
        return q;
    };
    doc.polyline(to_px(ring_points), io::svg::palette::blue, 2.5);
    doc.polyline(to_px(tree_points), io::svg::palette::vermillion, 2.5);
    const double cross = std::log10(ring_tree_crossover(256, ib_ndr)->value());
    doc.line(px(cross), top, px(cross), top + height, io::svg::palette::green, 2, "stroke-dasharray=\"6 4\"");
    doc.text(px(cross) + 6, top + 16, "crossover " + format(*ring_tree_crossover(256, ib_ndr), units::MB, 2), 11);
    const double legend_x = left + width + 16;
    doc.line(legend_x, top + 20, legend_x + 22, top + 20, io::svg::palette::blue, 3);
    doc.text(legend_x + 28, top + 24, "ring", 12);
    doc.line(legend_x, top + 42, legend_x + 22, top + 42, io::svg::palette::vermillion, 3);
    doc.text(legend_x + 28, top + 46, "tree", 12);
    doc.save(out + "/ring_vs_tree.svg");
    std::printf("   sweep of %d sizes, 1 KB to 10 GB: %s/ring_vs_tree.csv, %s/ring_vs_tree.svg\n\n", points,
                out.c_str(), out.c_str());
}

void part_c() {
    std::printf("C. Topology and hierarchy: 70B FP16 gradients, 8 nodes x 8 GPUs, %s inside, %s across\n",
                std::string(nvlink.name).c_str(), std::string(ib_ndr.name).c_str());
    const Bytes m = gradient_bytes(parameters, DType::fp16);
    const CollectiveTime flat = ring_all_reduce(m, 64, ib_ndr);
    std::printf("   flat ring over 64 GPUs           %s\n", format(flat.total(), units::s, 3).c_str());
    for (double r : {1.0, 2.0, 4.0}) {
        const CollectiveTime h = hierarchical_all_reduce(m, {8, 8, nvlink, ib_ndr, Nic::per_gpu, r});
        std::printf("   hierarchical, NIC per GPU, %.0f:1   %s  speed-up %.2fx\n", r,
                    format(h.total(), units::s, 3).c_str(), ratio(flat.total(), h.total()));
    }
    const CollectiveTime shared = hierarchical_all_reduce(m, {8, 8, nvlink, ib_ndr, Nic::per_node, 1.0});
    std::printf("   hierarchical, one NIC per node   %s  speed-up %.2fx\n", format(shared.total(), units::s, 3).c_str(),
                ratio(flat.total(), shared.total()));
    const HierarchicalTopology topology{8, 8, nvlink, ib_ndr, Nic::per_gpu, 1.0};
    const Seconds missing = all_gather(m, 8, nvlink).total();
    std::printf("   the lab's formula (all-reduce inside, then M/g across) gives %s: the same cost, but it still\n"
                "   needs an all-gather inside to finish, %s more\n\n",
                format(all_reduce_inside_then_shard_across(m, topology).total(), units::s, 3).c_str(),
                format(missing, units::s, 3).c_str());
}

void part_d() {
    std::printf("D. Gradient compression: 70B FP16 gradients on 64 GPUs, 5 s of compute per step\n");
    std::printf("   %-10s", "network");
    for (const Compression* c : compression_examples::all) std::printf("  %10s", std::string(c->name).c_str());
    std::printf("\n");
    for (double gbps : {10.0, 50.0, 100.0}) {
        const Link link{"IB", gigabytes_per_second(gbps), ib_ndr.step_latency};
        std::printf("   %4.0f GB/s ", gbps);
        for (const Compression* c : compression_examples::all) {
            const double r = compression_time_ratio(gradient_bytes(parameters, DType::fp16), *c, 64, link, Ring{},
                                                    seconds(5));
            std::printf("  %+9.1f%%", 100 * (r - 1));
        }
        std::printf("\n");
    }
    std::printf("   (change in total training time; the penalties are the lab's assumptions)\n\n");
}

void part_e() {
    std::printf("E. The communication budget: 70B FP32 gradients, 8 x 8 GPUs, 19 s of compute, target 20%%\n");
    for (Nic nic : {Nic::per_gpu, Nic::per_node}) {
        const CommunicationPlan plan{
            .parameters = parameters,
            .gradients = DType::fp32,
            .reduced_gradients = DType::fp16,
            .tensors = 80 * 9 + 3,  // a Llama-style 70B: 9 tensors in each of 80 layers, embeddings, norm, head
            .bucket = megabytes(25),
            .topology = {8, 8, nvlink, ib_ndr, nic, 1.0},
            .compute = seconds(19),
            .backward = seconds(19.0 * 2.0 / 3.0),  // the backward pass is twice the forward
            .overlap_efficiency = 0.85,             // the lab's overlap efficiency
            .base_latency = nccl::ring_ll_base_latency,
        };
        std::printf("   NIC %s: communication may take %s\n", nic == Nic::per_gpu ? "per GPU" : "shared per node",
                    format(communication_for_share(plan.compute, 0.2), units::s, 2).c_str());
        for (const OptimizationStack& s : optimization_stacks(plan))
            if (s.size() <= 1 || s.optimizations == optimization::all)
                std::printf("     %-26s exposed %8s  share %5.1f%%\n",
                            s.optimizations == optimization::all ? "all four"
                                                                 : describe_optimizations(s.optimizations).c_str(),
                            format(s.step.exposed(), units::s, 2).c_str(), 100 * s.step.communication_share());
        const auto show = [](const char* label, const std::optional<OptimizationStack>& best) {
            std::printf("     %s: %s\n", label,
                        best ? (describe_optimizations(best->optimizations) + ", " +
                                format_trimmed(100 * best->step.communication_share(), 1) + "%")
                                   .c_str()
                             : "none reaches it");
        };
        show("smallest stack under 20%", smallest_stack_under(plan, 0.2));
        CommunicationPlan no_overlap = plan;
        no_overlap.overlap_efficiency = 0.0;
        show("without overlap", smallest_stack_under(no_overlap, 0.2));
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::string out = napkin::examples::lesson_args(
        argc, argv, "communication_at_scale",
        "the communication lab: ring vs tree, hierarchical all-reduce, the data-parallel budget", true);
    part_a();
    part_b(out);
    part_c();
    part_d();
    part_e();
    return 0;
}
