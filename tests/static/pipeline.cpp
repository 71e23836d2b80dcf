// napkin/pipeline.hpp at compile time: the closed forms are constexpr and every
// schedule satisfies the concept. Whole seconds keep the arithmetic exact.
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>

namespace {
using namespace napkin;

static_assert(PipelineSchedule<GPipe> && PipelineSchedule<OneFOneB> && PipelineSchedule<Interleaved> &&
              PipelineSchedule<ZeroBubbleH1> && PipelineSchedule<ZeroBubbleH2> && PipelineSchedule<DualPipe> &&
              PipelineSchedule<DualPipeV>);
static_assert(!PipelineSchedule<int>);
// The simulator runs every schedule: each has a fixed per-rank order.
static_assert(SimulatedSchedule<GPipe> && SimulatedSchedule<OneFOneB> && SimulatedSchedule<Interleaved> &&
              SimulatedSchedule<ZeroBubbleH1> && SimulatedSchedule<ZeroBubbleH2> && SimulatedSchedule<DualPipe> &&
              SimulatedSchedule<DualPipeV>);
static_assert(!SimulatedSchedule<int>);

constexpr PipelineShape p4m8{.stages = 4, .microbatches = 8};
constexpr StageTimes t{seconds(1), seconds(2), seconds(1)};

// (p − 1)(F + B) = 3 × 3 s; step (m + p − 1)(F + B) = 11 × 3 s.
static_assert(bubble_time(OneFOneB{}, p4m8, t) == seconds(9));
static_assert(step_time(GPipe{}, p4m8, t) == seconds(33));
// Interleaved v = 4: 9 s / 4.
static_assert(bubble_time(Interleaved{}, {4, 8, 4}, t) == seconds(2.25));
// ZB-H1: 3 × (1 + 2 − 2·1); ZB-H2: 3 × (1 + 2 − 3·1).
static_assert(bubble_time(ZeroBubbleH1{}, p4m8, t) == seconds(3));
static_assert(bubble_time(ZeroBubbleH2{}, p4m8, t) == seconds(0));
// 1F1B p = 4: rank r holds p − r.
static_assert(microbatches_in_flight(OneFOneB{}, p4m8, 1) == 3);
static_assert(microbatches_in_flight(Interleaved{}, {4, 8, 2}, 1) == 9);  // 2·2 + 4 warm-up, + 1
static_assert(activation_memory_multiplier(ZeroBubbleH2{}, p4m8) == 7.0);
}  // namespace
