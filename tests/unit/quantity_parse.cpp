// SPDX-License-Identifier: MIT
// napkin/io/quantity_parse.hpp: sizes, rates and times typed with their units.
#include <napkin/io/quantity_parse.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace napkin;

TEST_SUITE("io/quantity_parse") {
    TEST_CASE("sizes: decimal, binary, bits, bare bytes") {
        CHECK(io::parse_bytes("80GiB")->value() == 80.0 * 1024 * 1024 * 1024);  // 85,899,345,920 B
        CHECK(io::parse_bytes("280GB")->value() == 280e9);
        CHECK(io::parse_bytes("280 GB")->value() == 280e9);
        CHECK(io::parse_bytes("1.5MiB")->value() == 1.5 * 1024 * 1024);         // 1,572,864 B
        CHECK(io::parse_bytes("4096")->value() == 4096);                        // a bare size is bytes
        CHECK(io::parse_bytes("8Gb")->value() == 1e9);                          // 8 gigabits = 1 GB
        CHECK(io::parse_bytes("1kB")->value() == 1000);
        CHECK_FALSE(io::parse_bytes("12XB"));
        CHECK_FALSE(io::parse_bytes("-1GB"));
        CHECK_FALSE(io::parse_bytes("GB"));
        CHECK_FALSE(io::parse_bytes(""));
        CHECK_FALSE(io::parse_bytes("inf"));
        CHECK_FALSE(io::parse_bytes("nan"));
        CHECK_FALSE(io::parse_bytes("1e31"));  // beyond the 10^30 bound
        CHECK_FALSE(io::parse_bytes("1GiBs"));
    }

    TEST_CASE("rates: 400 Gb/s (InfiniBand NDR as sold) is 50 GB/s — a rate needs its unit") {
        CHECK(io::parse_rate("400Gb/s")->value() == 50e9);  // 400e9 bits / 8
        CHECK(io::parse_rate("400Gbps")->value() == 50e9);
        CHECK(io::parse_rate("50GB/s")->value() == 50e9);
        CHECK(io::parse_rate("3.35TB/s")->value() == doctest::Approx(3.35e12));
        CHECK(io::parse_rate("900 GBps")->value() == 900e9);
        CHECK(io::parse_rate("1GiB/s")->value() == 1024.0 * 1024 * 1024);
        CHECK_FALSE(io::parse_rate("400"));    // no unit: GB/s or Gb/s would be 8x apart
        CHECK_FALSE(io::parse_rate("50GB"));   // a size, not a rate
        CHECK_FALSE(io::parse_rate("-5GB/s"));
    }

    TEST_CASE("times: ns, us, µs, ms, s, min, h — a time needs its unit") {
        CHECK(io::parse_time("5us")->value() == doctest::Approx(5e-6));
        CHECK(io::parse_time("5\u00b5s")->value() == doctest::Approx(5e-6));
        CHECK(io::parse_time("1.5ms")->value() == doctest::Approx(1.5e-3));
        CHECK(io::parse_time("2s")->value() == 2);
        CHECK(io::parse_time("100ns")->value() == doctest::Approx(1e-7));
        CHECK(io::parse_time("1h")->value() == 3600);
        CHECK_FALSE(io::parse_time("5"));
        CHECK_FALSE(io::parse_time("5 parsecs"));
    }

    TEST_CASE("days, powers and counts: 90d = 7,776,000 s, 1.2kW = 1,200 W, 15.6T = 1.56e13") {
        CHECK(io::parse_time("90d")->value() == 90.0 * 86400.0);
        CHECK(io::parse_time("10min")->value() == 600.0);
        CHECK(io::parse_power("700W")->value() == 700.0);
        CHECK(io::parse_power("1.2kW")->value() == doctest::Approx(1200.0).epsilon(1e-15));
        CHECK(io::parse_power("20 MW")->value() == 2e7);
        CHECK_FALSE(io::parse_power("700"));
        CHECK_FALSE(io::parse_power("700J"));
        CHECK(*io::parse_count("15.6T") == doctest::Approx(1.56e13).epsilon(1e-15));
        CHECK(*io::parse_count("300B") == 3e11);
        CHECK(*io::parse_count("4096") == 4096.0);
        CHECK_FALSE(io::parse_count("-3"));
        CHECK_FALSE(io::parse_count("15.6X"));
        CHECK_THROWS_WITH_AS(static_cast<void>(io::parse_power("--power", "700")),
                             doctest::Contains("--power = \"700\": not a power"), napkin::invalid_argument);
        CHECK_THROWS_WITH_AS(static_cast<void>(io::parse_count("--train-tokens", "lots")),
                             doctest::Contains("--train-tokens = \"lots\": not a count"), napkin::invalid_argument);
    }

    TEST_CASE("the throwing forms name the flag and the text") {
        CHECK_THROWS_WITH_AS(static_cast<void>(io::parse_rate("--bandwidth", "400")),
                             doctest::Contains("--bandwidth = \"400\": not a rate"), napkin::invalid_argument);
        CHECK_THROWS_WITH_AS(static_cast<void>(io::parse_time("--latency", "x")), doctest::Contains("--latency = \"x\": not a time"),
                             napkin::invalid_argument);
        CHECK_THROWS_WITH_AS(static_cast<void>(io::parse_bytes("--bytes", "12XB")), doctest::Contains("--bytes = \"12XB\": not a size"),
                             napkin::invalid_argument);
    }
}
