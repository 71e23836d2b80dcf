// napkin/hardware.hpp and the hardware catalog.
#include <napkin/catalog/hardware.hpp>
#include <napkin/hardware.hpp>

#include <doctest/doctest.h>

using namespace napkin;

TEST_SUITE("hardware") {
    TEST_CASE("usable memory is 92 % of 80 GiB, rounded down to whole bytes: 79,027,398,246") {
        // 85,899,345,920 × 0.92 = 79,027,398,246.4
        CHECK(usable_memory(catalog::a100_80gb_sxm).value() == 79027398246.0);
        CHECK(format(usable_memory(catalog::a100_80gb_sxm), units::GiB, 1) == "73.6 GiB");
    }

    TEST_CASE("read and compute times follow the data sheet rates") {
        // 2,039 GB read at 2,039 GB/s takes one second; 312 TFLOP at 312 TFLOP/s too.
        CHECK(in(read_time(gigabytes(2039), catalog::a100_80gb_sxm), units::s) == doctest::Approx(1.0));
        CHECK(in(compute_time(flops(312e12), catalog::a100_80gb_sxm), units::s) == doctest::Approx(1.0));
    }

    TEST_CASE("catalog names are found, unknown ones are not") {
        CHECK(catalog::find_gpu("a100-80gb-sxm")->memory == gibibytes(80));
        CHECK(catalog::find_gpu("h100-sxm")->peak_flops == teraflops_per_second(989));
        CHECK(catalog::find_link("nvlink-a100")->bandwidth == gigabytes_per_second(600));
        CHECK(catalog::find_link("pcie-gen4")->step_latency == microseconds(1.0));
        CHECK_FALSE(catalog::find_gpu("a100").has_value());
        CHECK_FALSE(catalog::find_link("nvlink").has_value());
    }

    TEST_CASE("impossible hardware is rejected with the field and its value") {
        Gpu gpu = catalog::a100_80gb_sxm;
        gpu.usable_fraction = 1.5;
        CHECK_THROWS_WITH_AS((void)validated(gpu), "Gpu.usable_fraction = 1.5: must be in (0, 1]",
                             napkin::invalid_argument);
        gpu.usable_fraction = 0.0;
        CHECK_THROWS_AS((void)validated(gpu), napkin::invalid_argument);
        gpu = catalog::a100_80gb_sxm;
        gpu.memory_bandwidth = gigabytes_per_second(-1);
        CHECK_THROWS_WITH((void)validated(gpu), "Gpu.memory_bandwidth (bytes/s) = -1000000000: must be positive");
        Link link = catalog::nvlink_a100;
        link.bandwidth = bytes_per_second(0);
        CHECK_THROWS_WITH((void)validated(link), "Link.bandwidth (bytes/s) = 0: must be positive");
        link = catalog::nvlink_a100;
        link.step_latency = microseconds(-1);
        CHECK_THROWS_AS((void)validated(link), napkin::invalid_argument);
    }

    TEST_CASE("board power: 0 is not given, a negative or a megawatt-plus card is rejected") {
        Gpu gpu = catalog::h100_sxm;
        gpu.board_power = watts(0);
        CHECK_NOTHROW((void)validated(gpu));
        gpu.board_power = watts(-700);
        CHECK_THROWS_WITH((void)validated(gpu), "Gpu.board_power (W) = -700: must not be negative");
        gpu.board_power = watts(2e6);
        CHECK_THROWS_WITH((void)validated(gpu), "Gpu.board_power (W) = 2000000: must be at most 1e6 W");
        gpu.board_power = watts(0.5);
        CHECK_THROWS_AS((void)validated(gpu), napkin::invalid_argument);
    }

    TEST_CASE("every catalog GPU carries its data sheet's board power (H100 SXM 700 W, MI300X 750 W, GB200 1,200 W)") {
        for (const Gpu* gpu : catalog::gpus) {
            CAPTURE(gpu->name);
            CHECK(gpu->board_power.value() >= 250.0);   // the smallest: A100 40 GB PCIe, 250 W
            CHECK(gpu->board_power.value() <= 1200.0);  // the largest: GB200, 1,200 W
        }
        CHECK(catalog::h100_sxm.board_power == watts(700));
        CHECK(catalog::a100_80gb_sxm.board_power == watts(400));
        CHECK(catalog::mi300x.board_power == watts(750));
        CHECK(catalog::gb200.board_power == watts(1200));
    }
}

#include <napkin/catalog/clusters.hpp>

TEST_SUITE("hardware") {
    TEST_CASE("GH200 quad node: 4 GPUs, a pair's NVLink 6 × 25 = 150 GB/s each way, Slingshot-11 200 Gb/s = 25 GB/s") {
        const auto node = catalog::find_node("gh200-quad");
        REQUIRE(node.has_value());
        CHECK(node->gpus == 4);
        CHECK(node->gpu.name == "gh200");
        CHECK(node->intra.bandwidth.value() == 150e9);
        CHECK(node->inter.bandwidth.value() == 25e9);
        CHECK(node->nic == Nic::per_gpu);
        CHECK(catalog::find_link("slingshot-11").has_value());
        CHECK(catalog::find_link("nvlink4-gh200-pair").has_value());
        // 256 nodes: the reference's 1,024 GPUs.
        CHECK(gpus(Cluster{*node, 256}) == 1024);
    }
}
