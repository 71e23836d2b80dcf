// napkin/collectives.hpp: the communication lab's headlines, derived by hand,
// and the properties every collective must have.
#include <napkin/collectives.hpp>
#include <napkin/communication_budget.hpp>
#include <napkin/inference.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

#include <array>
#include <string>

using namespace napkin;

namespace {
// The lab's network (shared reference lab-communication-at-scale.py): InfiniBand
// NDR at 50 GB/s per GPU with 5 µs per step, NVLink at 900 GB/s with 0.5 µs.
constexpr Link ib_ndr{"ib-ndr", gigabytes_per_second(50), microseconds(5)};
constexpr Link nvlink{"nvlink", gigabytes_per_second(900), microseconds(0.5)};

using napkin::test::error_of;
}  // namespace

TEST_SUITE("collectives") {
    TEST_CASE("lab part A: 70B FP32 gradients on 64 GPUs over IB NDR take 11.03 s") {
        // M = 70e9 × 4 B = 280 GB. Bandwidth term 2·63/64 × 280 GB / 50 GB/s = 1.96875 × 5.6 s = 11.025 s;
        // latency term 2·63 × 5 µs = 0.63 ms; total 11.02563 s.
        const CollectiveTime t = ring_all_reduce(gigabytes(280), 64, ib_ndr);
        CHECK(in(t.bandwidth, units::s) == doctest::Approx(11.025).epsilon(1e-12));
        CHECK(in(t.latency, units::ms) == doctest::Approx(0.63).epsilon(1e-12));
        CHECK(in(t.total(), units::s) == doctest::Approx(11.02563).epsilon(1e-12));
        CHECK(format(t.total(), units::s) == "11.03 s");
        // The bandwidth share: 11.025 / 11.02563 = 99.994 % (the lab's "99.99 %").
        CHECK(t.bandwidth_share() == doctest::Approx(11.025 / 11.02563).epsilon(1e-12));
        CHECK(t.bandwidth_share() > 0.9999);
    }

    TEST_CASE("lab part B: at 1 MB on 256 GPUs the tree wins, 0.416 ms against 2.592 ms") {
        // The lab's 1 MB is 1,024 KB of 1,024 B = 1,048,576 B.
        // Ring: 510 × 5 µs = 2.55 ms + 2·255/256 × 1,048,576 B / 50 GB/s = 41.7792 µs → 2.5917792 ms.
        // Tree: 2⌈log₂ 256⌉ = 16 × (5 µs + 20.97152 µs) = 415.54432 µs.
        const Bytes message = mebibytes(1);
        const CollectiveTime ring = ring_all_reduce(message, 256, ib_ndr);
        const CollectiveTime tree = tree_all_reduce(message, 256, ib_ndr);
        CHECK(in(ring.total(), units::us) == doctest::Approx(2591.7792).epsilon(1e-12));
        CHECK(in(tree.total(), units::us) == doctest::Approx(415.54432).epsilon(1e-12));
        CHECK(tree.total() < ring.total());
        // 510 ring steps against 16 tree levels, as the lab says.
        CHECK(in(ring.latency, units::us) == doctest::Approx(510 * 5.0));
        CHECK(in(tree.latency, units::us) == doctest::Approx(16 * 5.0));
    }

    TEST_CASE("exact ring/tree crossover for 64, 256 and 1,024 GPUs on IB NDR") {
        // M* = α·B·(n − 1 − L)/(L − (n − 1)/n) with α·B = 5 µs × 50 GB/s = 250,000 B:
        //   n = 64,   L = 6:  250,000 × 57·64/321     = 2,841,121.495 B
        //   n = 256,  L = 8:  250,000 × 247·256/1,793 = 8,816,508.645 B
        //   n = 1024, L = 10: 250,000 × 1,013·1,024/9,217 = 28,135,835.955 B
        const struct {
            long long n;
            double bytes;
        } expected[] = {{64, 250000.0 * 57 * 64 / 321},
                        {256, 250000.0 * 247 * 256 / 1793},
                        {1024, 250000.0 * 1013 * 1024 / 9217}};
        for (const auto& e : expected) {
            CAPTURE(e.n);
            const auto m = ring_tree_crossover(e.n, ib_ndr);
            REQUIRE(m.has_value());
            CHECK(in(*m, units::B) == doctest::Approx(e.bytes).epsilon(1e-12));
            // At M* the two cost the same; below it the tree wins, above it the ring.
            CHECK(in(ring_all_reduce(*m, e.n, ib_ndr).total(), units::s) ==
                  doctest::Approx(in(tree_all_reduce(*m, e.n, ib_ndr).total(), units::s)).epsilon(1e-12));
            CHECK(tree_all_reduce(0.9 * *m, e.n, ib_ndr).total() < ring_all_reduce(0.9 * *m, e.n, ib_ndr).total());
            CHECK(ring_all_reduce(1.1 * *m, e.n, ib_ndr).total() < tree_all_reduce(1.1 * *m, e.n, ib_ndr).total());
        }
        // The 1 MB of part B is below the 256-GPU crossover, so the tree wins there.
        CHECK(mebibytes(1) < *ring_tree_crossover(256, ib_ndr));
        // A base latency is paid by both and does not move the crossover.
        CHECK(*ring_tree_crossover(256, ib_ndr, microseconds(6.6)) == *ring_tree_crossover(256, ib_ndr));
    }

    TEST_CASE("no crossover where one algorithm always wins") {
        // n = 2, 3: ⌈log₂ n⌉ = n − 1, the same latency steps, and the ring sends less.
        CHECK_FALSE(ring_tree_crossover(2, ib_ndr).has_value());
        CHECK_FALSE(ring_tree_crossover(3, ib_ndr).has_value());
        for (double gb : {0.0, 1e-6, 1.0, 100.0})
            CHECK(ring_all_reduce(gigabytes(gb), 3, ib_ndr).total() <= tree_all_reduce(gigabytes(gb), 3, ib_ndr).total());
        CHECK_FALSE(ring_tree_crossover(1, ib_ndr).has_value());
    }

    TEST_CASE("lab part C: hierarchical all-reduce on 8 nodes x 8 GPUs is 6.23x the flat ring") {
        // 70B FP16 = 140 GB. Flat ring over 64 GPUs on IB: 2·63/64 × 2.8 s = 5.5125 s + 0.63 ms.
        // Hierarchical: reduce-scatter and all-gather inside, each 7 × 0.5 µs + 7/8 × 140/900 s
        // = 3.5 µs + 0.136111 s; ring across 8 nodes of 17.5 GB: 14 × 5 µs + 2·7/8 × 0.35 s = 70 µs + 0.6125 s.
        const Bytes m = gigabytes(140);
        const CollectiveTime flat = ring_all_reduce(m, 64, ib_ndr);
        const double inside = 2 * (7.0 / 8.0 * 140.0 / 900.0);
        const struct {
            double r, across;
        } cases[] = {{1, 0.6125}, {2, 1.225}, {4, 2.45}};
        for (const auto& c : cases) {
            CAPTURE(c.r);
            const HierarchicalTopology topology{8, 8, nvlink, ib_ndr, Nic::per_gpu, c.r};
            const CollectiveTime h = hierarchical_all_reduce(m, topology);
            CHECK(in(h.latency, units::us) == doctest::Approx(77.0).epsilon(1e-12));
            CHECK(in(h.bandwidth, units::s) == doctest::Approx(inside + c.across).epsilon(1e-12));
            CHECK(ratio(flat.total(), h.total()) ==
                  doctest::Approx((5.5125 + 0.00063) / (inside + c.across + 77e-6)).epsilon(1e-12));
        }
        // 1:1 → 6.23x, 2:1 → 3.68x, 4:1 → 2.03x.
        const auto speedup = [&](double r) {
            return ratio(flat.total(), hierarchical_all_reduce(m, {8, 8, nvlink, ib_ndr, Nic::per_gpu, r}).total());
        };
        CHECK(speedup(1) == doctest::Approx(6.2309).epsilon(1e-4));
        CHECK(speedup(2) == doctest::Approx(3.6820).epsilon(1e-4));
        CHECK(speedup(4) == doctest::Approx(2.0252).epsilon(1e-4));
    }

    TEST_CASE("one NIC per node shares it among the node's 8 GPUs: the inter-node term is 8x") {
        const HierarchicalTopology shared{8, 8, nvlink, ib_ndr, Nic::per_node, 1.0};
        const HierarchicalTopology own{8, 8, nvlink, ib_ndr, Nic::per_gpu, 1.0};
        // Across: 2·7/8 × 17.5 GB / (50/8 GB/s) = 4.9 s instead of 0.6125 s.
        const double inside = 2 * (7.0 / 8.0 * 140.0 / 900.0);
        CHECK(in(hierarchical_all_reduce(gigabytes(140), shared).bandwidth, units::s) ==
              doctest::Approx(inside + 4.9).epsilon(1e-12));
        CHECK(in(inter_node_link(shared).bandwidth, units::GBps) == doctest::Approx(6.25));
        CHECK(hierarchical_all_reduce(gigabytes(140), own).total() < hierarchical_all_reduce(gigabytes(140), shared).total());
    }

    TEST_CASE("the lab's hierarchical formula: same cost with a NIC per GPU, an all-gather short of a result") {
        const HierarchicalTopology topology{8, 8, nvlink, ib_ndr, Nic::per_gpu, 1.0};
        const Bytes m = gigabytes(140);
        // Ring all-reduce inside costs what reduce-scatter + all-gather cost, so the totals agree.
        CHECK(in(all_reduce_inside_then_shard_across(m, topology).total(), units::s) ==
              doctest::Approx(in(hierarchical_all_reduce(m, topology).total(), units::s)).epsilon(1e-12));
        // Made correct (a closing all-gather inside), the lab's order costs 7 × 0.5 µs + 7/8 × 140/900 s more.
        const CollectiveTime completed = all_reduce_inside_then_shard_across(m, topology) + all_gather(m, 8, nvlink);
        CHECK(in(completed.total() - all_reduce_inside_then_shard_across(m, topology).total(), units::s) ==
              doctest::Approx(3.5e-6 + 7.0 / 8.0 * 140.0 / 900.0).epsilon(1e-9));
        // With a shared NIC the lab's formula ignores the sharing: 8x too little across.
        const HierarchicalTopology shared{8, 8, nvlink, ib_ndr, Nic::per_node, 1.0};
        CHECK(all_reduce_inside_then_shard_across(m, shared).total() == all_reduce_inside_then_shard_across(m, topology).total());
    }

    TEST_CASE("hierarchical: one node is the ring inside it, one GPU per node the ring across nodes") {
        for (double gb : {0.001, 1.0, 140.0}) {
            CAPTURE(gb);
            const Bytes m = gigabytes(gb);
            CHECK(in(hierarchical_all_reduce(m, {1, 8, nvlink, ib_ndr}).total(), units::s) ==
                  doctest::Approx(in(ring_all_reduce(m, 8, nvlink).total(), units::s)).epsilon(1e-12));
            CHECK(in(hierarchical_all_reduce(m, {16, 1, nvlink, ib_ndr}).total(), units::s) ==
                  doctest::Approx(in(ring_all_reduce(m, 16, ib_ndr).total(), units::s)).epsilon(1e-12));
            // With g = 1 an oversubscription of 2 halves the inter-node bandwidth.
            const Link half{"half", gigabytes_per_second(25), microseconds(5)};
            CHECK(in(hierarchical_all_reduce(m, {16, 1, nvlink, ib_ndr, Nic::per_gpu, 2.0}).total(), units::s) ==
                  doctest::Approx(in(ring_all_reduce(m, 16, half).total(), units::s)).epsilon(1e-12));
        }
        CHECK(hierarchical_all_reduce(gigabytes(1), {1, 1, nvlink, ib_ndr}).total() == Seconds{});
    }

    TEST_CASE("more bandwidth is never slower, more latency never faster, for every collective") {
        const double gbps[] = {1, 10, 50, 100, 450, 900};
        for (long long n : {2LL, 3LL, 8LL, 64LL, 1000LL})
            for (double gb : {0.0, 1e-6, 1e-3, 1.0, 100.0}) {
                CAPTURE(n);
                CAPTURE(gb);
                const Bytes m = gigabytes(gb);
                const auto all = [&](const Link& l) {
                    return std::array{ring_all_reduce(m, n, l).total(), tree_all_reduce(m, n, l).total(),
                                      reduce_scatter(m, n, l).total(),  all_gather(m, n, l).total(),
                                      all_to_all(m, n, l).total(),      broadcast(m, n, l).total(),
                                      point_to_point(m, l).total()};
                };
                for (std::size_t i = 1; i < std::size(gbps); ++i) {
                    const auto slower = all({"a", gigabytes_per_second(gbps[i - 1]), microseconds(5)});
                    const auto faster = all({"b", gigabytes_per_second(gbps[i]), microseconds(5)});
                    const auto laggier = all({"c", gigabytes_per_second(gbps[i]), microseconds(6)});
                    for (std::size_t k = 0; k < faster.size(); ++k) {
                        CHECK(faster[k] <= slower[k]);
                        CHECK(faster[k] <= laggier[k]);
                    }
                }
            }
    }

    TEST_CASE("reduce-scatter, all-gather, all-to-all and broadcast by hand on 8 ranks") {
        // 8 GB on IB NDR: (n − 1)/n · M/B = 7/8 × 0.16 s = 0.14 s; 7 steps of 5 µs.
        const Bytes m = gigabytes(8);
        for (const CollectiveTime& t : {reduce_scatter(m, 8, ib_ndr), all_gather(m, 8, ib_ndr), all_to_all(m, 8, ib_ndr)}) {
            CHECK(in(t.bandwidth, units::s) == doctest::Approx(0.14).epsilon(1e-12));
            CHECK(in(t.latency, units::us) == doctest::Approx(35.0).epsilon(1e-12));
        }
        // Broadcast: 7 hops, the whole 8 GB once: 0.16 s.
        CHECK(in(broadcast(m, 8, ib_ndr).bandwidth, units::s) == doctest::Approx(0.16).epsilon(1e-12));
        CHECK(in(broadcast(m, 8, ib_ndr).latency, units::us) == doctest::Approx(35.0).epsilon(1e-12));
        // By name, with the same numbers.
        CHECK(collective_time(Collective::all_to_all, m, 8, ib_ndr).total() == all_to_all(m, 8, ib_ndr).total());
        CHECK(collective_time(Collective::all_reduce, m, 8, ib_ndr).total() == ring_all_reduce(m, 8, ib_ndr).total());
    }

    TEST_CASE("nccl-tests bandwidths: 1 GB all-reduced in 10 ms on 8 ranks is algbw 100 GB/s, busbw 175 GB/s") {
        CHECK(in(algorithm_bandwidth(gigabytes(1), milliseconds(10)), units::GBps) == doctest::Approx(100.0));
        // busbw = algbw × 2(n−1)/n = 100 × 14/8.
        CHECK(in(bus_bandwidth(Collective::all_reduce, 8, gigabytes(1), milliseconds(10)), units::GBps) ==
              doctest::Approx(175.0));
        // For the ring, busbw is the link bandwidth when latency is negligible.
        const Seconds t = ring_all_reduce(gigabytes(10), 8, ib_ndr).bandwidth;
        CHECK(in(bus_bandwidth(Collective::all_reduce, 8, gigabytes(10), t), units::GBps) == doctest::Approx(50.0));
    }

    TEST_CASE("policies give the free functions' numbers") {
        const Seconds base = microseconds(6.6);
        const Bytes m = megabytes(64);
        CHECK(Ring{base}.all_reduce(m, 16, ib_ndr).total() == ring_all_reduce(m, 16, ib_ndr, base).total());
        CHECK(Tree{base}.all_reduce(m, 16, ib_ndr).total() == tree_all_reduce(m, 16, ib_ndr, base).total());
        CHECK(Ring{base}.reduce_scatter(m, 16, ib_ndr).total() == reduce_scatter(m, 16, ib_ndr, base).total());
        CHECK(Tree{base}.all_gather(m, 16, ib_ndr).total() == all_gather(m, 16, ib_ndr, base).total());
        const Hierarchical two_level{8, ib_ndr, Nic::per_gpu, 1.0, base};
        CHECK(two_level.all_reduce(m, 64, nvlink).total() ==
              hierarchical_all_reduce(m, {8, 8, nvlink, ib_ndr}, base).total());
        // Up to one node it is the intra-node ring (4 GPUs of an 8-GPU node).
        CHECK(in(two_level.all_reduce(m, 4, nvlink).total(), units::s) ==
              doctest::Approx(in(ring_all_reduce(m, 4, nvlink, base).total(), units::s)).epsilon(1e-12));
        // Hierarchical reduce-scatter + all-gather = hierarchical all-reduce, up to the second base latency.
        CHECK(in((two_level.reduce_scatter(m, 64, nvlink) + two_level.all_gather(m, 64, nvlink)).total() - base,
                 units::s) == doctest::Approx(in(two_level.all_reduce(m, 64, nvlink).total(), units::s)).epsilon(1e-12));
    }

    TEST_CASE("NCCL-style model: tree LL for tiny messages, ring Simple for huge ones on 8 NVLink GPUs") {
        const Link nv{"nvlink3", gigabytes_per_second(300), microseconds(0.6)};
        const NcclModel model{Transport::nvlink};
        // 0 bytes: ring LL 6.6 + 14 × 0.6 = 15.0 µs; tree LL 6.8 + 2·3 × 0.6 = 10.4 µs (the fastest;
        // LL128 and Simple have larger base and hop latencies).
        const NcclChoice tiny = model.choose(bytes(0), 8, nv);
        CHECK(tiny.algorithm == NcclAlgorithm::tree);
        CHECK(tiny.protocol == NcclProtocol::ll);
        CHECK(in(tiny.time.total(), units::us) == doctest::Approx(10.4).epsilon(1e-12));
        CHECK(in(nccl_all_reduce(bytes(0), 8, nv, Transport::nvlink, NcclAlgorithm::ring, NcclProtocol::ll).total(),
                 units::us) == doctest::Approx(15.0).epsilon(1e-12));
        // 10 GB: ring Simple 8.4 + 14 × 3.4 µs + 1.75 × 10/300 s = 58.3 ms; tree Simple
        // 10 / (0.5 × 0.85 × 300) s = 78.4 ms; LL128 0.92 and LL 0.5 of the bandwidth.
        const NcclChoice huge = model.choose(gigabytes(10), 8, nv);
        CHECK(huge.algorithm == NcclAlgorithm::ring);
        CHECK(huge.protocol == NcclProtocol::simple);
        CHECK(in(huge.time.total(), units::s) == doctest::Approx(56.0e-6 + 1.75 * 10.0 / 300.0).epsilon(1e-12));
        // Network hops: ring LL 2.7 µs, tree LL 5.0 µs per hop.
        CHECK(in(nccl_all_reduce(bytes(0), 4, ib_ndr, Transport::network, NcclAlgorithm::tree, NcclProtocol::ll)
                     .latency,
                 units::us) == doctest::Approx(6.8 + 4 * 5.0));
        CHECK(model.all_reduce(bytes(0), 1, nv).total() == Seconds{});
        // The choice is never slower than any single algorithm and protocol.
        for (double mb : {0.001, 0.1, 1.0, 10.0, 100.0, 1000.0})
            for (NcclAlgorithm a : nccl::algorithms)
                for (NcclProtocol p : nccl::protocols)
                    CHECK(model.all_reduce(megabytes(mb), 64, nv).total() <=
                          nccl_all_reduce(megabytes(mb), 64, nv, Transport::nvlink, a, p).total());
    }

    TEST_CASE("NCCL-style model across nodes: each hop at its own transport's latency") {
        // 16 DGX-like nodes × 8 GPUs: NVLink 300 GB/s inside, one 25 GB/s NIC per GPU.
        const Link nv{"nvlink3", gigabytes_per_second(300), microseconds(0.6)};
        const Link ib{"ib-hdr", gigabytes_per_second(25), microseconds(2.7)};
        const HierarchicalTopology t{.nodes = 16, .gpus_per_node = 8, .intra = nv, .inter = ib};
        // Ring LL: nsteps = 2·127 = 254, nInter = 2·15 = 30: 6.6 + 224 × 0.6 + 30 × 2.7 = 222.0 µs.
        const auto ring_ll = nccl_all_reduce(bytes(0), t, Transport::nvlink, NcclAlgorithm::ring, NcclProtocol::ll);
        CHECK(in(ring_ll.latency, units::us) == doctest::Approx(222.0).epsilon(1e-12));
        // Tree LL: 6.8 + 2·(7 × 0.6 + 4 × 5.0) = 55.2 µs; the fastest at 0 bytes.
        const auto tree_ll = nccl_all_reduce(bytes(0), t, Transport::nvlink, NcclAlgorithm::tree, NcclProtocol::ll);
        CHECK(in(tree_ll.latency, units::us) == doctest::Approx(55.2).epsilon(1e-12));
        const NcclModel model{Transport::nvlink};
        CHECK(model.choose(bytes(0), t).algorithm == NcclAlgorithm::tree);
        // 1 GB, ring Simple: the bus runs at the NIC's 25 GB/s, the slower level:
        // 8.4 + 224 × 3.4 + 30 × 14 = 1,190.0 µs + 254/128 × 1 GB / 25 GB/s = 79.375 ms.
        const auto ring_simple =
            nccl_all_reduce(gigabytes(1), t, Transport::nvlink, NcclAlgorithm::ring, NcclProtocol::simple);
        CHECK(in(ring_simple.total(), units::s) == doctest::Approx(1190.0e-6 + 254.0 / 128.0 / 25.0).epsilon(1e-12));
        const NcclChoice big = model.choose(gigabytes(1), t);
        CHECK(big.algorithm == NcclAlgorithm::ring);
        CHECK(big.protocol == NcclProtocol::simple);
        // One node: the single-link ring; the tree a chain through the 8 GPUs, 2·7 hops
        // (6.8 + 14 × 0.6 = 15.2 µs for LL, against the binary tree's 2·3 hops).
        const HierarchicalTopology one_node{.nodes = 1, .gpus_per_node = 8, .intra = nv, .inter = ib};
        for (NcclProtocol p : nccl::protocols)
            CHECK(in(nccl_all_reduce(megabytes(64), one_node, Transport::nvlink, NcclAlgorithm::ring, p).total(),
                     units::s) ==
                  doctest::Approx(in(nccl_all_reduce(megabytes(64), 8, nv, Transport::nvlink, NcclAlgorithm::ring, p)
                                         .total(),
                                     units::s)).epsilon(1e-12));
        CHECK(in(nccl_all_reduce(bytes(0), one_node, Transport::nvlink, NcclAlgorithm::tree, NcclProtocol::ll).latency,
                 units::us) == doctest::Approx(15.2).epsilon(1e-12));
        // One GPU a node: the single-link model on the network.
        for (NcclAlgorithm a : nccl::algorithms)
            for (NcclProtocol p : nccl::protocols) {
                const HierarchicalTopology one_gpu{.nodes = 16, .gpus_per_node = 1, .intra = nv, .inter = ib};
                CHECK(in(nccl_all_reduce(megabytes(64), one_gpu, Transport::nvlink, a, p).total(), units::s) ==
                      doctest::Approx(in(nccl_all_reduce(megabytes(64), 16, ib, Transport::network, a, p).total(),
                                         units::s)).epsilon(1e-12));
            }
        // A shared NIC gives each GPU 1/8 of it: the bandwidth term of ring Simple grows 8×.
        HierarchicalTopology shared = t;
        shared.nic = Nic::per_node;
        CHECK(in(nccl_all_reduce(gigabytes(1), shared, Transport::nvlink, NcclAlgorithm::ring, NcclProtocol::simple)
                     .bandwidth,
              units::s) == doctest::Approx(8 * 254.0 / 128.0 / 25.0).epsilon(1e-12));
        CHECK(model.choose(bytes(0), HierarchicalTopology{.nodes = 1, .gpus_per_node = 1, .intra = nv, .inter = ib})
                  .time.total() == Seconds{});
    }

    TEST_CASE("bad input is rejected with the argument and its value") {
        CHECK(error_of([] { return ring_all_reduce(gigabytes(1), 0, ib_ndr); }) == "ranks = 0: must be at least 1");
        CHECK(error_of([] { return tree_all_reduce(bytes(-1), 8, ib_ndr); }) ==
              "message (bytes) = -1: must not be negative");
        CHECK(error_of([] { return all_to_all(bytes(1), 8, Link{"x", bytes_per_second(0), Seconds{}}); }) ==
              "Link.bandwidth (bytes/s) = 0: must be positive");
        CHECK(error_of([] { return broadcast(bytes(1), 8, ib_ndr, seconds(-1)); }) ==
              "base_latency (s) = -1: must not be negative");
        CHECK(error_of([] { return Hierarchical{8, ib_ndr}.all_reduce(bytes(1), 12, nvlink); }) ==
              "ranks = 12: must be a multiple of Hierarchical.gpus_per_node beyond one node");
        CHECK(error_of([] { return hierarchical_all_reduce(bytes(1), {0, 8, nvlink, ib_ndr}); }) ==
              "HierarchicalTopology.nodes = 0: must be at least 1");
        CHECK(error_of([] { return hierarchical_all_reduce(bytes(1), {8, 8, nvlink, ib_ndr, Nic::per_gpu, 0.5}); }) ==
              "HierarchicalTopology.oversubscription = 0.5: must be at least 1 (r in r:1)");
        CHECK(error_of([] { return ring_tree_crossover(0, ib_ndr); }) == "ranks = 0: must be at least 1");
    }
}

// deprecated-aliases:begin (tools leave the old spellings below alone)
// The 0.1 spellings stay for one version as deprecated forwarding functions
// (CHANGELOG 0.2.0): each gives exactly what its new name gives.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("collectives: the deprecated allreduce spellings forward to the all_reduce ones") {
    using namespace napkin;
    const Link link{"l", gigabytes_per_second(50), microseconds(5)};
    const HierarchicalTopology t{8, 8, Link{"nv", gigabytes_per_second(900), microseconds(0.5)}, link};
    CHECK(ring_allreduce(gigabytes(1), 64, link).total() == ring_all_reduce(gigabytes(1), 64, link).total());
    CHECK(tree_allreduce(gigabytes(1), 64, link).total() == tree_all_reduce(gigabytes(1), 64, link).total());
    CHECK(hierarchical_allreduce(gigabytes(1), t).total() == hierarchical_all_reduce(gigabytes(1), t).total());
    CHECK(lab_hierarchical_allreduce(gigabytes(1), t).total() ==
          all_reduce_inside_then_shard_across(gigabytes(1), t).total());
    // The lessons' names are aliases of the descriptive ones: the same function, the same objects.
    CHECK(lab_hierarchical_all_reduce(gigabytes(1), t).total() ==
          all_reduce_inside_then_shard_across(gigabytes(1), t).total());
    CHECK(&lab_compression::int8 == &compression_examples::int8);
    CHECK(&lesson_setup == &default_inference_setup);
    CHECK(&lesson_collective == &default_ring_collective);
    CHECK(nccl_allreduce(gigabytes(1), 8, link, Transport::nvlink, NcclAlgorithm::ring, NcclProtocol::simple).total() ==
          nccl_all_reduce(gigabytes(1), 8, link, Transport::nvlink, NcclAlgorithm::ring, NcclProtocol::simple).total());
    CHECK(split_allreduce(gigabytes(1), 4, 64, link, Ring{}).total() ==
          split_all_reduce(gigabytes(1), 4, 64, link, Ring{}).total());
}
#pragma GCC diagnostic pop
// deprecated-aliases:end
