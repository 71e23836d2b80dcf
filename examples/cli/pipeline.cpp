// napkin bubble | schedule — pipeline parallelism from the command line: the
// closed-form bubble of a schedule, and an event-level simulation of one step.
#include "command.hpp"
#include "common.hpp"

#include <napkin/io/timeline_svg.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>

#include <cstdio>
#include <optional>

namespace napkin::cli {
namespace {

struct PipelineOptions {
    std::string schedule;
    long long stages = 0, microbatches = 0, chunks = 1, extra_warmup = 0;
    std::optional<double> weight_grad_ms, overlapped_ms;
    bool json = false;
};

const char* const schedule_help = "gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipe or dualpipev";

void add_pipeline_options(CLI::App* sub, PipelineOptions& o) {
    sub->add_option("--schedule", o.schedule, schedule_help)->required();
    sub->add_option("--stages", o.stages, "pipeline stages p")->required();
    sub->add_option("--microbatches", o.microbatches, "micro-batches per step m")->required();
    sub->add_option("--chunks", o.chunks, "chunks (virtual stages) per rank v, for interleaved (1)");
    sub->add_option("--extra-warmup", o.extra_warmup,
                    "interleaved: forwards beyond Megatron's warm-up (1 with --overlap-moe-expert-parallel-comm)");
    sub->add_option("--weight-grad-ms", o.weight_grad_ms,
                    "weight-gradient part W of the backward, for zero-bubble and DualPipe (default: half of it)");
    sub->add_option("--overlapped-ms", o.overlapped_ms,
                    "dualpipe, dualpipev: F&B, an overlapped forward + backward pair through a stage, ms "
                    "(default: F + B, no overlap)");
    sub->add_flag("--json", o.json, "machine-readable output in seconds");
}

AnySchedule resolve_schedule(const PipelineOptions& o) {
    AnySchedule s = schedule_from_name(o.schedule);
    if (auto* interleaved = std::get_if<Interleaved>(&s)) interleaved->extra_warmup = o.extra_warmup;
    else if (o.extra_warmup != 0)
        throw napkin::invalid_argument("--extra-warmup " + std::to_string(o.extra_warmup) +
                                       ": only the interleaved schedule takes it");
    if (o.overlapped_ms) {
        require_non_negative("--overlapped-ms", *o.overlapped_ms);
        if (auto* dual = std::get_if<DualPipe>(&s)) dual->overlapped_forward_backward = milliseconds(*o.overlapped_ms);
        else if (auto* dual_v = std::get_if<DualPipeV>(&s))
            dual_v->overlapped_forward_backward = milliseconds(*o.overlapped_ms);
        else
            reject("--overlapped-ms", *o.overlapped_ms, "only dualpipe and dualpipev take it");
    }
    return s;
}

StageTimes resolve_times(const PipelineOptions& o, double forward_ms, double backward_ms) {
    require_non_negative("--forward-ms", forward_ms);
    require_non_negative("--backward-ms", backward_ms);
    const double w = o.weight_grad_ms.value_or(backward_ms / 2);
    require_non_negative("--weight-grad-ms", w);
    require(w <= backward_ms, "--weight-grad-ms", w, "must not exceed --backward-ms, of which it is a part");
    return {milliseconds(forward_ms), milliseconds(backward_ms), milliseconds(w)};
}

nlohmann::json shape_json(std::string_view name, const PipelineShape& shape) {
    return {{"schedule", name},
            {"stages", shape.stages},
            {"microbatches", shape.microbatches},
            {"chunks", shape.chunks}};
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        PipelineOptions pipeline;
        double forward_ms = 1.0, backward_ms = 2.0;
    };
    auto o = std::make_shared<Options>();
    auto* sub = app.add_subcommand("bubble", "the pipeline bubble of a schedule, in closed form");
    add_pipeline_options(sub, o->pipeline);
    sub->add_option("--forward-ms", o->forward_ms, "one micro-batch's forward through a stage, ms (1)");
    sub->add_option("--backward-ms", o->backward_ms, "its full backward, ms (2)");
    sub->callback([o] {
        const PipelineShape shape{o->pipeline.stages, o->pipeline.microbatches, o->pipeline.chunks};
        const StageTimes times = resolve_times(o->pipeline, o->forward_ms, o->backward_ms);
        std::visit(
            [&](const auto& schedule) {
                const Seconds bubble = bubble_time(schedule, shape, times);
                const Seconds step = step_time(schedule, shape, times);
                const double share = bubble_share_of_step(schedule, shape, times);
                const double ratio_to_ideal = bubble_ratio_to_ideal(schedule, shape, times);
                if (o->pipeline.json) {
                    nlohmann::json j = shape_json(schedule.name, shape);
                    j.update({{"forward_s", times.forward.value()},
                              {"backward_s", times.backward.value()},
                              {"weight_grad_s", times.weight_grad.value()},
                              {"bubble_s", bubble.value()},
                              {"step_s", step.value()},
                              {"bubble_fraction_of_step", share},
                              {"bubble_ratio_to_ideal", ratio_to_ideal},
                              {"activation_memory_multiplier", activation_memory_multiplier(schedule, shape)},
                              {"parameter_memory_multiplier", parameter_memory_multiplier(schedule)}});
                    return print_json(j);
                }
                printf_wrapped("%s, p = %lld, m = %lld, v = %lld (F %s, B %s, W %s)\n", std::string(schedule.name).c_str(),
                            shape.stages, shape.microbatches, shape.chunks, to_string(times.forward).c_str(),
                            to_string(times.backward).c_str(), to_string(times.weight_grad).c_str());
                printf_wrapped("bubble %s of a %s step: %.2f%% of the step, %.2f%% of the ideal %s\n",
                            to_string(bubble).c_str(), to_string(step).c_str(), 100 * share, 100 * ratio_to_ideal,
                            to_string(ideal_step_time(shape, times)).c_str());
                printf_wrapped("activations: %.4g micro-batches of a stage at the peak; parameters %.4g x a rank's share\n",
                            activation_memory_multiplier(schedule, shape), parameter_memory_multiplier(schedule));
            },
            resolve_schedule(o->pipeline));
    });
}

NAPKIN_COMMAND(app) {
    struct Options {
        PipelineOptions pipeline;
        double forward_ms = 0, backward_ms = 0, send_ms = 0;
        std::string svg;
    };
    auto o = std::make_shared<Options>();
    auto* sub = app.add_subcommand(
        "schedule", "simulate one step pass by pass; JSON counts micro-batches, chunks and stages from 1");
    add_pipeline_options(sub, o->pipeline);
    sub->add_option("--forward-ms", o->forward_ms, "one micro-batch's forward through a stage (all its chunks), ms")
        ->required();
    sub->add_option("--backward-ms", o->backward_ms, "its full backward, ms")->required();
    sub->add_option("--send-ms", o->send_ms, "time for a hand-off between two ranks to arrive, ms (0)");
    sub->add_option("--svg", o->svg, "write the timeline to this SVG file");
    sub->callback([o] {
        const PipelineShape shape{o->pipeline.stages, o->pipeline.microbatches, o->pipeline.chunks};
        const StageTimes times = resolve_times(o->pipeline, o->forward_ms, o->backward_ms);
        require_non_negative("--send-ms", o->send_ms);
        std::visit(
            [&](const auto& schedule) {
                const Timeline t = simulate(schedule, shape, times, milliseconds(o->send_ms));
                if (!o->svg.empty()) {
                    char title[160];
                    std::snprintf(title, sizeof title, "%s, p = %lld, m = %lld, v = %lld",
                                  std::string(schedule.name).c_str(), shape.stages, shape.microbatches,
                                  shape.chunks);
                    io::write_timeline_svg(t, o->svg, {.title = title});
                }
                if (o->pipeline.json) {
                    nlohmann::json j = shape_json(schedule.name, shape);
                    j["step_s"] = t.step_time().value();
                    j["idle_fraction"] = t.idle_fraction();
                    j["closed_form_step_s"] = step_time(schedule, shape, times).value();
                    nlohmann::json stages = nlohmann::json::array();
                    for (long long r = 0; r < shape.stages; ++r) {
                        nlohmann::json ops = nlohmann::json::array();
                        for (const Operation& op : t.stage(r)) {
                            nlohmann::json one{{"pass", to_string(op.pass)},
                                               {"microbatch", op.microbatch + 1},
                                               {"chunk", op.chunk + 1},
                                               {"start_s", op.start.value()},
                                               {"end_s", op.end.value()}};
                            // DualPipe's F&B: the forward and the backward share one span.
                            if (op.overlapped) one["overlapped"] = true;
                            ops.push_back(std::move(one));
                        }
                        stages.push_back({{"stage", r + 1},
                                          {"busy_s", t.busy_time(r).value()},
                                          {"idle_s", t.idle_time(r).value()},
                                          {"operations", std::move(ops)}});
                    }
                    j["stages"] = std::move(stages);
                    return print_json(j);
                }
                std::printf("%s, p = %lld, m = %lld, v = %lld: %zu passes\n", std::string(schedule.name).c_str(),
                            shape.stages, shape.microbatches, shape.chunks, t.operations().size());
                printf_wrapped("step %s (closed form %s), idle %.2f%% of p x step\n", to_string(t.step_time()).c_str(),
                            to_string(step_time(schedule, shape, times)).c_str(), 100 * t.idle_fraction());
                for (long long r = 0; r < shape.stages; ++r)
                    std::printf("  stage %lld: busy %s, idle %s\n", r + 1, to_string(t.busy_time(r)).c_str(),
                                to_string(t.idle_time(r)).c_str());
                if (!o->svg.empty()) std::printf("timeline: %s\n", o->svg.c_str());
            },
            resolve_schedule(o->pipeline));
    });
}

}  // namespace napkin::cli
