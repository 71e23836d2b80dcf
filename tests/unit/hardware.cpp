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
            CHECK(gpu->board_power.value() >= 72.0);    // the smallest: L4, 72 W
            CHECK(gpu->board_power.value() <= 1400.0);  // the largest: GB300 and MI355X, 1,400 W
            CHECK(!gpu->source.empty());                // every figure cites its data sheet
        }
        CHECK(catalog::h100_sxm.board_power == watts(700));
        CHECK(catalog::a100_80gb_sxm.board_power == watts(400));
        CHECK(catalog::mi300x.board_power == watts(750));
        CHECK(catalog::gb200.board_power == watts(1200));
    }
}

#include <napkin/catalog/clusters.hpp>

TEST_SUITE("hardware") {
    TEST_CASE("the 2026 GPUs: each data sheet's dense rates, half the sparse ones it prints") {
        // L40S: 733 TFLOP/s BF16 with sparsity / 2 = 362.05 (the sheet: 362.05 | 733); FP8 and INT8 1,466 / 2 = 733.
        CHECK(catalog::l40s.peak_flops == teraflops_per_second(362.05));
        CHECK(catalog::l40s.fp8_flops == teraflops_per_second(1466.0 / 2));
        CHECK(catalog::l40s.int8_ops == teraflops_per_second(1466.0 / 2));
        CHECK(catalog::l40s.memory_bandwidth == gigabytes_per_second(864));
        // L4: 242 / 2 = 121 BF16, 485 / 2 = 242.5 FP8; 24 GB at 300 GB/s, 72 W.
        CHECK(catalog::l4.peak_flops == teraflops_per_second(242.0 / 2));
        CHECK(catalog::l4.fp8_flops == teraflops_per_second(485.0 / 2));
        CHECK(catalog::l4.memory == gigabytes(24));
        // H20: the GH100 at 148 BF16 and 296 FP8 dense, 96 GB at 4.0 TB/s.
        CHECK(catalog::h20.fp8_flops == catalog::h20.peak_flops * 2.0);
        CHECK(catalog::h20.architecture == Architecture::hopper);
        // B200: FP4 144 PFLOP/s with sparsity over 8 GPUs = 18 per GPU, dense 9; FP6 at the FP8 rate.
        CHECK(catalog::b200.fp4_flops == petaflops_per_second(144.0 / 8 / 2));
        CHECK(catalog::b200.fp6_flops == catalog::b200.fp8_flops);
        // Fifth-generation tensor cores double the rate as the width halves: 16-bit × 2 = FP8, × 2 = FP4.
        for (const Gpu* g : {&catalog::b200, &catalog::gb200, &catalog::rtx_pro_6000}) {
            CAPTURE(g->name);
            CHECK(g->fp8_flops == g->peak_flops * 2.0);
            CHECK(g->fp4_flops == g->fp8_flops * 2.0);
        }
        // Compute capability 10.x (HBM3e) and 12.x (GDDR7, no NVLink) are two architectures to the kernels.
        for (const Gpu* g : {&catalog::b200, &catalog::gb200, &catalog::b300, &catalog::gb300})
            CHECK(g->architecture == Architecture::blackwell);
        CHECK(catalog::rtx_pro_6000.architecture == Architecture::rtx_blackwell);
        CHECK(to_string(Architecture::rtx_blackwell) == "rtx-blackwell");
        // Blackwell Ultra raises dense FP4 1.5x over Blackwell at the same FP8: B300 108 PFLOP/s / 8 = 13.5,
        // GB300 1,080 / 72 = 15 (against 9 and 10).
        CHECK(catalog::b300.fp4_flops == petaflops_per_second(108.0 / 8));
        CHECK(catalog::gb300.fp4_flops == petaflops_per_second(1080.0 / 72));
        CHECK(catalog::b300.fp4_flops == catalog::b200.fp4_flops * 1.5);
        CHECK(catalog::gb300.fp4_flops == catalog::gb200.fp4_flops * 1.5);
        CHECK(catalog::b300.memory == catalog::gb300.memory);
        // MI355X: FP8 and INT8 twice the 16-bit rate, MXFP6 and MXFP4 four times (2,516.6 × 4 = 10,066.4).
        CHECK(in(catalog::mi355x.fp8_flops, units::TFLOPps) ==
              doctest::Approx(2.0 * in(catalog::mi355x.peak_flops, units::TFLOPps)).epsilon(1e-12));
        CHECK(in(catalog::mi355x.fp4_flops, units::TFLOPps) ==
              doctest::Approx(4.0 * in(catalog::mi355x.peak_flops, units::TFLOPps)).epsilon(1e-12));
        CHECK(catalog::mi355x.fp6_flops == catalog::mi355x.fp4_flops);
        CHECK(catalog::mi355x.architecture == Architecture::cdna4);
        // V100: 125 TFLOP/s FP16 tensor and no narrower tensor format; 900 GB/s.
        CHECK(catalog::v100_32gb_sxm.peak_flops == teraflops_per_second(125));
        CHECK(catalog::v100_32gb_sxm.fp8_flops.value() == 0.0);
        CHECK(catalog::v100_32gb_sxm.int8_ops.value() == 0.0);
        // Hopper's INT8 equals its FP8 (H100 SXM: 3,958 TOPS with sparsity); A100 624 TOPS, no FP8.
        CHECK(catalog::h100_sxm.int8_ops == catalog::h100_sxm.fp8_flops);
        CHECK(catalog::a100_80gb_sxm.int8_ops == teraflops_per_second(1248.0 / 2));
    }

    TEST_CASE("a narrow tensor rate of 0 is none, and a negative or an impossible one is rejected by name") {
        Gpu gpu = catalog::h100_sxm;
        gpu.fp4_flops = flops_per_second(-1);
        CHECK_THROWS_WITH((void)validated(gpu), "Gpu.fp4_flops (FLOP/s) = -1: must not be negative");
        gpu.fp4_flops = flops_per_second(1e22);
        CHECK_THROWS_WITH((void)validated(gpu), "Gpu.fp4_flops (FLOP/s) = 1e+22: must be at most 1e21 per second");
        gpu.fp4_flops = {};
        gpu.int8_ops = flops_per_second(-5);
        CHECK_THROWS_WITH((void)validated(gpu), "Gpu.int8_ops (op/s) = -5: must not be negative");
    }

    TEST_CASE("the 2026 GPUs' default links: PCIe for L40S, L4 and RTX PRO 6000, XDR for Blackwell Ultra") {
        CHECK(catalog::default_links("l40s").intra == &catalog::pcie4);
        CHECK(catalog::default_links("l4").intra == &catalog::pcie4);
        CHECK(catalog::default_links("rtx-pro-6000").intra == &catalog::pcie5);
        CHECK(catalog::default_links("b300").inter == &catalog::ib_xdr);
        CHECK(catalog::default_links("gb300").intra == &catalog::nvlink5);
        CHECK(catalog::default_links("h20").intra == &catalog::nvlink4);
        CHECK(catalog::default_links("h200-sxm").intra == &catalog::nvlink4);
        CHECK(catalog::default_links("v100-32gb-sxm").intra == &catalog::nvlink2);
        // MI355X's Infinity Fabric: 7 links of 153.6 GB/s both ways, 7 × 76.8 = 537.6 GB/s each way.
        CHECK(catalog::default_links("mi355x").intra->bandwidth == gigabytes_per_second(537.6));
    }

    TEST_CASE("NVLink domains: 72 GPUs in a GB200 or GB300 NVL72 rack, 8 in an HGX/DGX or MI300X platform") {
        CHECK(catalog::default_links("gb200").nvlink_domain == 72);
        CHECK(catalog::default_links("gb300").nvlink_domain == 72);
        CHECK(catalog::default_links("b200").nvlink_domain == 8);
        CHECK(catalog::default_links("b300").nvlink_domain == 8);
        CHECK(catalog::default_links("h100-sxm").nvlink_domain == 8);
        CHECK(catalog::default_links("mi300x").nvlink_domain == 8);
        // The catalog's GB200 NVL72 node is one such domain.
        CHECK(catalog::gb200_nvl72.gpus == catalog::default_links("gb200").nvlink_domain);
    }

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

    // The 2026 NICs, per GPU each way: Spectrum-X800 / ConnectX-8 800 Gb/s = 100 GB/s; Pollara 400 Gb/s =
    // 50 GB/s; EFA v3 (P5en) and v4 (P6-B200) 3,200 Gb/s over 8 GPUs = 400 Gb/s = 50 GB/s; GPUDirect-TCPXO
    // (A3 Mega) 1,600 Gb/s over 8 = 200 Gb/s = 25 GB/s. Every one a network hop of NCCL's 2.7 µs.
    TEST_CASE("the 2026 NICs: Spectrum-X800 100 GB/s, Pollara 50, EFA v3/v4 50, GPUDirect-TCPXO 25 GB/s a GPU") {
        const std::pair<const char*, double> expected[] = {{"spectrum-x-800g", 100e9},
                                                           {"pollara-400", 50e9},
                                                           {"efa-v3", 50e9},
                                                           {"efa-v4", 50e9},
                                                           {"gpudirect-tcpxo", 25e9}};
        for (const auto& e : expected) {
            const char* name = e.first;
            const double bandwidth = e.second;
            CAPTURE(name);
            const auto link = catalog::find_link(name);
            REQUIRE(link.has_value());
            CHECK(link->bandwidth.value() == doctest::Approx(bandwidth).epsilon(1e-12));
            CHECK(link->step_latency.value() == doctest::Approx(2.7e-6).epsilon(1e-12));
        }
    }
}
