// A collective over zero ranks evaluated at compile time is a compile error
// (the check that throws at run time cannot be reached in a constant expression).
#include <napkin/collectives.hpp>

namespace {
constexpr napkin::Link ib{"ib", napkin::gigabytes_per_second(50), napkin::microseconds(5)};
#ifdef NAPKIN_COMPILE_FAIL
constexpr long long ranks = 0;
#else
constexpr long long ranks = 64;
#endif
constexpr napkin::CollectiveTime t = napkin::ring_all_reduce(napkin::gigabytes(280), ranks, ib);
}  // namespace

int main() { return t.total() > napkin::Seconds{} ? 0 : 1; }
