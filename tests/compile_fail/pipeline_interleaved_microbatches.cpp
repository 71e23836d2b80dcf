// Megatron's interleaved schedule needs m to be a multiple of p: a constexpr
// bubble with m = 6, p = 4, v = 2 must not compile.
#include <napkin/pipeline.hpp>

using namespace napkin;

constexpr StageTimes times{seconds(1), seconds(2)};
constexpr Seconds fine = bubble_time(Interleaved{}, {.stages = 4, .microbatches = 8, .chunks = 2}, times);
static_assert(fine == seconds(4.5));

#ifdef NAPKIN_COMPILE_FAIL
constexpr Seconds impossible = bubble_time(Interleaved{}, {.stages = 4, .microbatches = 6, .chunks = 2}, times);
#endif
