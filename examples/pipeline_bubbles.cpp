// Pipeline bubbles side by side: GPipe, 1F1B, interleaved 1F1B (v = 2, 4),
// ZB-H1, DualPipe and DualPipeV on the same 4 stages and 8 micro-batches, each
// in closed form and simulated pass by pass, with a timeline picture of each.
// DualPipe's overlapped forward + backward pairs are taken at F + B here (no
// overlap gain), where its closed form is the simulated step exactly.
//   pipeline_bubbles [output directory]
#include <napkin/io/lesson_args.hpp>

#include <napkin/io/timeline_svg.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>

#include <cstdio>
#include <string>

using namespace napkin;

namespace {

// A forward of 1 ms per stage, a backward twice as long (it computes two
// gradients per weight), half of which is the weight gradient (Qi et al. 2023
// take T_B = T_W).
constexpr StageTimes times{milliseconds(1), milliseconds(2), milliseconds(1)};

template <SimulatedSchedule S>
void show(const char* label, const S& schedule, const PipelineShape& shape, const std::string& dir,
          const char* file) {
    const Timeline timeline = simulate(schedule, shape, times);
    std::printf("%-16s %10s %10s %9.2f%% %9.2f%% %11s\n", label, to_string(bubble_time(schedule, shape, times)).c_str(),
                to_string(step_time(schedule, shape, times)).c_str(),
                100 * bubble_share_of_step(schedule, shape, times), 100 * bubble_ratio_to_ideal(schedule, shape, times),
                to_string(timeline.step_time()).c_str());
    const std::string path = dir + "/" + file;
    io::write_timeline_svg(timeline, path, {.title = label});
}

}  // namespace

int main(int argc, char** argv) {
    const std::string dir = napkin::examples::lesson_args(
        argc, argv, "pipeline_bubbles", "every pipeline schedule's bubble, closed form and simulated, as timelines",
        true);
    const long long p = 4, m = 8;
    std::printf("p = %lld stages, m = %lld micro-batches, F = 1 ms, B = 2 ms (W = 1 ms of it)\n", p, m);
    std::printf("ideal step m(F + B) = %s\n\n", to_string(ideal_step_time({p, m}, times)).c_str());
    std::printf("%-16s %10s %10s %10s %10s %11s\n", "schedule", "bubble", "step", "of step", "of ideal", "simulated");
    show("GPipe", GPipe{}, {p, m}, dir, "bubbles-gpipe.svg");
    show("1F1B", OneFOneB{}, {p, m}, dir, "bubbles-1f1b.svg");
    show("interleaved v=2", Interleaved{}, {p, m, 2}, dir, "bubbles-interleaved-v2.svg");
    show("interleaved v=4", Interleaved{}, {p, m, 4}, dir, "bubbles-interleaved-v4.svg");
    show("ZB-H1", ZeroBubbleH1{}, {p, m}, dir, "bubbles-zb-h1.svg");
    show("DualPipe", DualPipe{}, {p, m}, dir, "bubbles-dualpipe.svg");
    show("DualPipeV", DualPipeV{}, {p, m}, dir, "bubbles-dualpipev.svg");
    std::printf("\nactivations held at the peak (micro-batches of a stage): GPipe %g, 1F1B %g, interleaved v=2 %g, "
                "ZB-H1 %g\n",
                activation_memory_multiplier(GPipe{}, {p, m}), activation_memory_multiplier(OneFOneB{}, {p, m}),
                activation_memory_multiplier(Interleaved{}, {p, m, 2}),
                activation_memory_multiplier(ZeroBubbleH1{}, {p, m}));
    std::printf("DualPipe %g with %gx parameters (each rank holds two stages), DualPipeV %g\n",
                activation_memory_multiplier(DualPipe{}, {p, m}), parameter_memory_multiplier(DualPipe{}),
                activation_memory_multiplier(DualPipeV{}, {p, m}));
    std::printf("timelines: %s/bubbles-{gpipe,1f1b,interleaved-v2,interleaved-v4,zb-h1,dualpipe,dualpipev}.svg\n",
                dir.c_str());
}
