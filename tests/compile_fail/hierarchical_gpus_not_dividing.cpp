// 12 GPUs cannot be split into nodes of 8: the hierarchical policy rejects it,
// at compile time when the call is a constant expression.
#include <napkin/collectives.hpp>

namespace {
constexpr napkin::Link nvlink{"nvlink", napkin::gigabytes_per_second(900), napkin::microseconds(0.5)};
constexpr napkin::Link ib{"ib", napkin::gigabytes_per_second(50), napkin::microseconds(5)};
#ifdef NAPKIN_COMPILE_FAIL
constexpr long long gpus = 12;
#else
constexpr long long gpus = 16;
#endif
constexpr napkin::CollectiveTime t = napkin::Hierarchical{8, ib}.all_reduce(napkin::gigabytes(1), gpus, nvlink);
}  // namespace

int main() { return t.total() > napkin::Seconds{} ? 0 : 1; }
