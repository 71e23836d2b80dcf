// SPDX-License-Identifier: MIT
// A consumer of the io component (find_package(napkin CONFIG COMPONENTS io)):
// InfiniBand NDR as sold, 400 Gb/s, is 50 GB/s.
#include <napkin/io/quantity_parse.hpp>

#include <cstdio>

int main() {
    const auto rate = napkin::io::parse_rate("400Gb/s");
    const auto time = napkin::io::parse_time("5us");
    if (!rate || !time) return 1;
    std::printf("%s, %s\n", napkin::to_string(*rate).c_str(), napkin::to_string(*time).c_str());
    return rate->value() == 50e9 ? 0 : 1;
}
