// A constexpr GPU with an impossible usable fraction is a compile error, not a run-time surprise.
#include <napkin/catalog/hardware.hpp>

int main() {
#ifdef NAPKIN_COMPILE_FAIL
    constexpr double usable = 1.5;
#else
    constexpr double usable = 0.9;
#endif
    constexpr napkin::Gpu gpu = napkin::validated(napkin::Gpu{.name = "mine",
                                                              .memory = napkin::gibibytes(80),
                                                              .usable_fraction = usable,
                                                              .memory_bandwidth = napkin::gigabytes_per_second(2039),
                                                              .peak_flops = napkin::teraflops_per_second(312)});
    return gpu.usable_fraction > 0 ? 0 : 1;
}
