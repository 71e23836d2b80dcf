// napkin/parallelism.hpp and the cluster catalog.
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/parallelism.hpp>

#include <doctest/doctest.h>

#include "support.hpp"

using namespace napkin;
using napkin::test::rejection_of;

TEST_SUITE("parallelism") {
    TEST_CASE("an error is data: field, value, requirement and the fields the requirement names") {
        // global_batch 12 over micro_batch 2 × dp 4 = 8 sequences per step: 12 is no multiple of 8.
        const auto batch = rejection_of([] { return validated(Parallelism{.dp = 4, .micro_batch = 2, .global_batch = 12}); });
        REQUIRE(batch);
        CHECK(batch->field() == "Parallelism.global_batch");
        CHECK(batch->value() == "12");
        CHECK(batch->requirement() == "must be a multiple of micro_batch × dp = 8");
        CHECK(batch->related() == std::vector<std::string>{"micro_batch", "dp"});
        CHECK(std::string(batch->what()) == "Parallelism.global_batch = 12: must be a multiple of micro_batch × dp = 8");
        // A product of fields is the field; its factors are for the front end to split.
        const auto product = rejection_of([] {
            return validated(Parallelism{.tp = 1LL << 21, .dp = 1LL << 21, .global_batch = 1LL << 21});
        });
        REQUIRE(product);
        CHECK(product->field() == "tp × cp × pp × dp");
        CHECK(product->value() == "4398046511104");  // 2^42
        CHECK(product->related().empty());
        // A message a front end writes in its own spelling has no fields.
        const napkin::invalid_argument own("--bytes (or --sweep) is required");
        CHECK(own.field().empty());
        CHECK(own.value().empty());
        CHECK(std::string(own.what()) == "--bytes (or --sweep) is required");
    }

    TEST_CASE("Megatron order: rank = tp + t·(cp + c·(dp + d·pp)), and back") {
        const Parallelism par{.tp = 8, .pp = 4, .dp = 2, .global_batch = 64};
        CHECK(gpus(par) == 64);
        // Rank 9: second GPU of the second data-parallel copy of stage 0 (9 = 1 + 8·1).
        const RankCoordinates r = coordinates_of(9, par);
        CHECK(r.tp == 1);
        CHECK(r.dp == 1);
        CHECK(r.pp == 0);
        // Rank 50 = 2 + 8·(0 + 2·3): stage 3, copy 0, tensor rank 2.
        CHECK(rank_of({.tp = 2, .cp = 0, .dp = 0, .pp = 3}, par) == 50);
        for (long long rank = 0; rank < gpus(par); ++rank) CHECK(rank_of(coordinates_of(rank, par), par) == rank);
        CHECK_THROWS_AS((void)coordinates_of(64, par), napkin::invalid_argument);
    }

    TEST_CASE("micro-batches: m = B / (b·d), the GPT-2 diagram's 32 and 4") {
        // 512 sequences, 16 per micro-step: one GPU runs 32, eight GPUs 4 waves each.
        CHECK(microbatches(Parallelism{.dp = 1, .micro_batch = 16, .global_batch = 512}) == 32);
        CHECK(microbatches(Parallelism{.dp = 8, .micro_batch = 16, .global_batch = 512}) == 4);
    }

    TEST_CASE("which group crosses the network on 8-GPU DGX A100 nodes") {
        const Cluster c = cluster_of(catalog::dgx_a100, 16);  // 128 GPUs
        const Parallelism t8{.tp = 8, .pp = 2, .dp = 8, .global_batch = 64};
        CHECK_FALSE(tensor_group(t8, c).crosses_nodes());  // ranks 0..7: one node
        // Data-parallel members are 8 ranks apart: one per node, 8 nodes.
        CHECK(data_group(t8, c).ranks_per_node == 1);
        CHECK(data_group(t8, c).nodes == 8);
        CHECK(pipeline_group(t8, c).crosses_nodes());
        CHECK(link_for(tensor_group(t8, c), c).name == "nvlink3");
        CHECK(link_for(data_group(t8, c), c).name == "ib-hdr");

        const Parallelism t2{.tp = 2, .pp = 1, .dp = 64, .global_batch = 64};
        // 64 members 2 apart: 4 per node, 16 nodes.
        CHECK(data_group(t2, c).ranks_per_node == 4);
        CHECK(data_group(t2, c).nodes == 16);
        const Parallelism t16{.tp = 16, .pp = 1, .dp = 8, .global_batch = 64};
        CHECK(tensor_group(t16, c).crosses_nodes());
        CHECK(tensor_group(t16, c).nodes == 2);
    }

    TEST_CASE("a NIC shared by the node gives each of its 8 GPUs 1/8 of it") {
        Node node = catalog::dgx_a100;
        node.nic = Nic::per_node;
        // ib-hdr: 200 Gb/s = 25 GB/s; / 8 = 3.125 GB/s.
        CHECK(in(network_link_per_gpu(node).bandwidth, units::GBps) == doctest::Approx(3.125));
        CHECK(in(network_link_per_gpu(catalog::dgx_a100).bandwidth, units::GBps) == doctest::Approx(25.0));
    }

    TEST_CASE("invalid layouts are rejected with the argument and its value") {
        const Cluster c = cluster_of(catalog::dgx_a100, 2);
        const TransformerShape& m = catalog::gpt3_175b;  // 96 heads, 96 layers
        CHECK_THROWS_WITH_AS((void)validated(Parallelism{.tp = 8, .pp = 1, .dp = 4, .global_batch = 8}, m, c),
                             doctest::Contains("tp × cp × pp × dp = 32"), napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)validated(Parallelism{.tp = 16, .pp = 1, .dp = 1, .global_batch = 8}, catalog::gpt2_xl),
                             doctest::Contains("Parallelism.tp = 16: must divide the model's attention heads (25)"),
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)validated(Parallelism{.tp = 1, .pp = 5, .dp = 1, .global_batch = 8}, m),
                             doctest::Contains("Parallelism.pp × virtual_stages = 5"), napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)validated(Parallelism{.dp = 4, .micro_batch = 2, .global_batch = 12}),
                             doctest::Contains("Parallelism.global_batch = 12: must be a multiple of micro_batch × dp = 8"),
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)validated(Parallelism{.pp = 4, .dp = 1, .virtual_stages = 2, .global_batch = 6}),
                             doctest::Contains("for the interleaved schedule"), napkin::invalid_argument);
        CHECK_THROWS_AS((void)validated(Parallelism{.tp = 0}), napkin::invalid_argument);
        CHECK_THROWS_WITH_AS((void)validated(Parallelism{.dp = 2, .ep = 2, .global_batch = 2}, m),
                             doctest::Contains("needs a mixture-of-experts model"), napkin::invalid_argument);
        CHECK_NOTHROW((void)validated(Parallelism{.tp = 8, .pp = 2, .dp = 1, .global_batch = 8}, m, c));
    }

    TEST_CASE("names round-trip for the command line") {
        CHECK(parse_dtype("fp32") == DType::fp32);
        CHECK(bytes_of(*parse_dtype("bf16")) == 2.0);
        CHECK_FALSE(parse_dtype("fp64").has_value());
        CHECK(parse_sharding("distributed") == Sharding::distributed);
        CHECK(parse_sharding("3") == Sharding::zero3);
        CHECK(parse_recompute("selective") == Recompute::selective);
        CHECK(catalog::find_node("dgx-a100").has_value());
        CHECK(gpus(cluster_of(catalog::dgx_a100, 128)) == 1024);
    }
}
