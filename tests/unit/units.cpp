// napkin/units.hpp: named constructors, in(), literals and formatting.
#include <napkin/units.hpp>

#include <doctest/doctest.h>

using namespace napkin;
using namespace napkin::literals;

TEST_SUITE("units") {
    TEST_CASE("binary and decimal prefixes are powers of 1,024 and 1,000 (IEC 80000-13)") {
        CHECK(gibibytes(1).value() == 1073741824.0);
        CHECK(mebibytes(1).value() == 1048576.0);
        CHECK(kibibytes(1).value() == 1024.0);
        CHECK(gigabytes(1).value() == 1e9);
        CHECK(in(gibibytes(80), units::GB) == doctest::Approx(85.89934592).epsilon(1e-12));
    }

    TEST_CASE("a bit is an eighth of a byte: 400 Gb/s is 50 GB/s (InfiniBand NDR)") {
        CHECK(in(gigabits_per_second(400), units::GBps) == doctest::Approx(50.0).epsilon(1e-12));
    }

    TEST_CASE("quantities compose into the right dimensions") {
        const Seconds t = gigabytes(2.039) / gigabytes_per_second(2039);  // 1 ms by hand
        CHECK(in(t, units::ms) == doctest::Approx(1.0).epsilon(1e-12));
        const Flops work = teraflops_per_second(312) * milliseconds(1);  // 0.312 TFLOP
        CHECK(in(work, units::TFLOP) == doctest::Approx(0.312).epsilon(1e-12));
        const Bytes cache = bytes_per_token(327680) * tokens(8192);  // 70B's KV cache for a chat: 2,684,354,560
        CHECK(cache.value() == 2684354560.0);
    }

    TEST_CASE("literals equal the named constructors") {
        CHECK(80_GiB == gibibytes(80));
        CHECK(6.6_us == microseconds(6.6));
        CHECK(600_GBps == gigabytes_per_second(600));
        CHECK(400_Gbps == gigabits_per_second(400));
        CHECK(312_TFLOPps == teraflops_per_second(312));
        CHECK(2048_tokens == tokens(2048));
    }

    TEST_CASE("ceil_whole and floor_whole round to whole base units") {
        CHECK(ceil_whole(bytes(10.2)).value() == 11.0);
        CHECK(ceil_whole(bytes(10.0)).value() == 10.0);
        CHECK(floor_whole(bytes(79027398246.4)).value() == 79027398246.0);  // 92 % of 80 GiB
        CHECK(floor_whole(bytes(-0.5)).value() == -1.0);
    }

    TEST_CASE("formatting prints the lesson's units, not Boost's bits") {
        CHECK(to_string(bytes(37508222976)) == "34.93 GiB");  // 37,508,222,976 / 2^30 = 34.932...
        CHECK(to_string(milliseconds(18.9378)) == "18.94 ms");
        CHECK(to_string(microseconds(10.241)) == "10.24 \u00b5s");
        CHECK(to_string(gigabytes_per_second(600)) == "600 GB/s");
        CHECK(to_string(gigabytes_per_second(2039)) == "2.04 TB/s");
        CHECK(to_string(bytes(512)) == "512 B");
        CHECK(to_string(kibibytes(16)) == "16.00 KiB");
        CHECK(to_string(seconds(0)) == "0 s");
        CHECK(to_string(teraflops_per_second(312)) == "312 TFLOP/s");
        CHECK(format(milliseconds(18.9378), units::ms, 1) == "18.9 ms");
    }

    TEST_CASE("energy: 700 W for an hour is 2.52e6 J = 0.7 kWh (1 kWh = 3.6e6 J by definition)") {
        const Joules e = watts(700) * quantity(1.0, units::hours);
        CHECK(e.value() == doctest::Approx(2.52e6).epsilon(1e-15));
        CHECK(in(e, units::kWh) == doctest::Approx(0.7).epsilon(1e-15));
        CHECK(in(megawatt_hours(1), units::kWh) == 1000.0);
        CHECK(in(kilowatts(1200), units::MW) == doctest::Approx(1.2).epsilon(1e-15));
        const Watts back = e / seconds(3600);
        CHECK(back == watts(700));
        CHECK(700_W == watts(700));
        CHECK(1.2_kW == kilowatts(1.2));
        CHECK(3.6_J == joules(3.6));
        CHECK(2_kWh == joules(7.2e6));
    }

    TEST_CASE("power and energy print in decimal units: 700 W, 11.47 MW, 3.6 kWh, 27.48 MWh") {
        CHECK(to_string(watts(700)) == "700 W");
        CHECK(to_string(megawatts(11.4688)) == "11.47 MW");
        CHECK(to_string(kilowatt_hours(3.6)) == "3.6 kWh");
        CHECK(to_string(megawatt_hours(27.48)) == "27.48 MWh");
        CHECK(to_string(joules(0.25)) == "0.25 J");
    }
}
