// napkin bubble | schedule — pipeline parallelism from the command line: the
// closed-form bubble of a schedule, and an event-level simulation of one step.
#include "command.hpp"
#include "common.hpp"
#include "layer_map_flags.hpp"

#include <napkin/io/text_file.hpp>
#include <napkin/io/reference_schedule.hpp>
#include <napkin/io/schedule_times.hpp>
#include <napkin/io/timeline_json.hpp>
#include <napkin/io/timeline_svg.hpp>
#include <napkin/layer_map.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace napkin::cli {
namespace {

struct PipelineOptions {
    std::string schedule;
    long long stages = 0, microbatches = 0, chunks = 1, extra_warmup = 0;
    std::optional<double> weight_grad_ms, overlapped_ms;
    // The same with their units (--weight-grad 0.5ms), read into the numbers above.
    std::optional<std::string> weight_grad, overlapped;
    // The flags as typed, for the messages.
    std::string weight_grad_flag = "--weight-grad-ms", overlapped_flag = "--overlapped-ms",
                backward_flag = "--backward-ms";
    bool json = false;
};

// The unit-taking spellings of the shared options, folded into the ms ones.
void read_pipeline_units(PipelineOptions& o) {
    if (o.weight_grad) o.weight_grad_flag = "--weight-grad";
    if (o.overlapped) o.overlapped_flag = "--overlapped";
    o.weight_grad_ms = time_in_ms(o.weight_grad_ms, o.weight_grad, "--weight-grad", "--weight-grad-ms");
    o.overlapped_ms = time_in_ms(o.overlapped_ms, o.overlapped, "--overlapped", "--overlapped-ms");
    o.weight_grad = o.overlapped = std::nullopt;
}

const char* const schedule_help = "gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipe or dualpipev";

// `required`: the shape comes from the command line only (schedule's --times and --reference can give it).
void add_pipeline_options(CLI::App* sub, PipelineOptions& o, bool required = true) {
    sub->add_option("--schedule", o.schedule, schedule_help)->required(required);
    sub->add_option("--stages", o.stages, "pipeline stages p")->required(required);
    sub->add_option("--microbatches", o.microbatches, "micro-batches per step m")->required(required);
    sub->add_option("--chunks", o.chunks, "chunks (virtual stages) per rank v, for interleaved (1)");
    sub->add_option("--extra-warmup", o.extra_warmup,
                    "interleaved: forwards beyond Megatron's warm-up (1 with --overlap-moe-expert-parallel-comm)");
    add_time_flag(sub, "--weight-grad", o.weight_grad, o.weight_grad_ms,
                  "weight-gradient part W of the backward with its unit, 0.5ms, for zero-bubble and DualPipe "
                  "(default: half of it)");
    add_time_flag(sub, "--overlapped", o.overlapped, o.overlapped_ms,
                  "dualpipe, dualpipev: F&B, an overlapped forward + backward pair through a stage, with its "
                  "unit (default: F + B, no overlap)");
    add_json_flag(sub, o.json);
}

AnySchedule resolve_schedule(const PipelineOptions& o) {
    AnySchedule s = schedule_from_name(o.schedule);
    if (auto* interleaved = std::get_if<Interleaved>(&s)) interleaved->extra_warmup = o.extra_warmup;
    else if (o.extra_warmup != 0)
        throw napkin::invalid_argument("--extra-warmup " + std::to_string(o.extra_warmup) +
                                       ": only the interleaved schedule takes it");
    if (o.overlapped_ms) {
        require_non_negative(o.overlapped_flag, *o.overlapped_ms);
        if (auto* dual = std::get_if<DualPipe>(&s)) dual->overlapped_forward_backward = milliseconds(*o.overlapped_ms);
        else if (auto* dual_v = std::get_if<DualPipeV>(&s))
            dual_v->overlapped_forward_backward = milliseconds(*o.overlapped_ms);
        else
            reject(o.overlapped_flag, *o.overlapped_ms, "only dualpipe and dualpipev take it");
    }
    return s;
}

StageTimes resolve_times(const PipelineOptions& o, double forward_ms, double backward_ms) {
    require_non_negative("--forward-ms", forward_ms);
    require_non_negative("--backward-ms", backward_ms);
    const double w = o.weight_grad_ms.value_or(backward_ms / 2);
    require_non_negative(o.weight_grad_flag, w);
    require(w <= backward_ms, o.weight_grad_flag, w, "must not exceed " + o.backward_flag + ", of which it is a part");
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
        std::optional<double> forward_ms, backward_ms;
        std::optional<std::string> forward, backward;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand("bubble", "the pipeline bubble of a schedule, in closed form");
    add_pipeline_options(sub, o->pipeline);
    add_time_flag(sub, "--forward", o->forward, o->forward_ms,
                  "one micro-batch's forward through a stage with its unit: 1.5ms (1ms)");
    add_time_flag(sub, "--backward", o->backward, o->backward_ms, "its full backward with its unit (2ms)");
    sub->callback([o] {
        read_pipeline_units(o->pipeline);
        if (o->backward) o->pipeline.backward_flag = "--backward";
        const double forward_ms = time_in_ms(o->forward_ms, o->forward, "--forward", "--forward-ms").value_or(1.0);
        const double backward_ms = time_in_ms(o->backward_ms, o->backward, "--backward", "--backward-ms").value_or(2.0);
        const PipelineShape shape{o->pipeline.stages, o->pipeline.microbatches, o->pipeline.chunks};
        const StageTimes times = resolve_times(o->pipeline, forward_ms, backward_ms);
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
                              {"parameter_memory_multiplier", parameter_memory_multiplier(schedule)},
                              {"steps_overlap",
                               std::is_same_v<std::decay_t<decltype(schedule)>, ZeroBubbleH2>}});
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
                if constexpr (std::is_same_v<std::decay_t<decltype(schedule)>, ZeroBubbleH2>)
                    printf_wrapped("the step is the time per step when steps overlap (post-validation, Qi et "
                                   "al. 2023 Sec. 4); napkin schedule also gives one step alone\n");
            },
            resolve_schedule(o->pipeline));
    });
}

namespace {
// What `napkin schedule` simulates: a schedule, its shape and every pass's time;
// the closed form's stage times when they are uniform; the reference when read from one.
struct ScheduleRun {
    AnySchedule schedule;
    PipelineShape shape;
    ScheduleTimes times;
    std::optional<StageTimes> uniform;
    std::optional<io::ReferenceSchedule> reference;
};

void print_schedule_json(std::string_view name, const ScheduleRun& run, const Timeline& t, unsigned threads) {
    const PipelineShape& shape = run.shape;
    nlohmann::json j = shape_json(name, shape);
    j["schema"] = io::json::schema(current_command());  // streamed, so not through print_json
    j["step_s"] = t.step_time().value();
    // Per step when steps overlap (the longest rank span; ZB-H2's closed form), and the bubble as the
    // closed forms count it, each rank's idle time within its span: what `napkin bubble` gives.
    j["overlapped_step_s"] = t.overlapped_step_time().value();
    j["largest_idle_within_span_s"] = t.largest_idle_within_span().value();
    j["idle_fraction"] = t.idle_fraction();
    if (run.uniform)
        j["closed_form_step_s"] =
            std::visit([&](const auto& s) { return step_time(s, shape, *run.uniform).value(); }, run.schedule);
    nlohmann::json loss = nlohmann::json::array();
    for (const Seconds& l : t.loss_times()) loss.push_back(l.value());
    j["loss_times_s"] = std::move(loss);
    nlohmann::json stages = nlohmann::json::array();
    for (long long r = 0; r < shape.stages; ++r) {
        // Each pass {pass, microbatch, chunk, start_s, end_s}, "overlapped" for DualPipe's F&B and Megatron's
        // paired blocks (the forward and the backward share one span): streamed by io::write_timeline_json.
        nlohmann::json stage{{"stage", r + 1}, {"busy_s", t.busy_time(r).value()}, {"idle_s", t.idle_time(r).value()}};
        nlohmann::json syncs = nlohmann::json::array();
        for (const SyncSpan& sp : t.syncs())
            if (sp.rank == r) {
                nlohmann::json one{{"kind", to_string(sp.kind)}, {"start_s", sp.start.value()}, {"end_s", sp.end.value()}};
                if (sp.chunk) one["chunk"] = *sp.chunk + 1;
                syncs.push_back(std::move(one));
            }
        if (!syncs.empty()) stage["syncs"] = std::move(syncs);
        stages.push_back(std::move(stage));
    }
    j["stages"] = std::move(stages);
    if (run.reference) {
        const io::ReferenceSchedule& ref = *run.reference;
        double worst = 0.0;
        for (long long r = 0; r < shape.stages; ++r) {
            const auto ops = t.stage(r);
            const auto& blocks = ref.stages[static_cast<std::size_t>(r)];
            for (std::size_t i = 0; i < std::min(ops.size(), blocks.size()); ++i)
                worst = std::max({worst, std::abs((ops[i].start - blocks[i].start).value()),
                                  std::abs((ops[i].end - blocks[i].end).value())});
        }
        nlohmann::json loss_ref = nlohmann::json::array();
        for (const Seconds& l : ref.loss_times) loss_ref.push_back(l.value());
        j["reference"] = {{"step_s", ref.step.value()},
                          {"idle_fraction", ref.idle_fraction},
                          {"loss_times_s", std::move(loss_ref)},
                          {"largest_pass_difference_s", worst},
                          {"pair_hidden_fitted", run.times.pair_hidden}};
    }
    std::fflush(stdout);
    io::write_timeline_json(stdout, std::move(j), t, threads);
}
}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        PipelineOptions pipeline;
        std::optional<double> forward_ms, backward_ms, send_ms;
        std::optional<std::string> forward, backward, send;
        std::string svg, times, reference, write_times;
        LayerMapOptions uneven;
        bool overlap_moe = false;
        long long layers = 0;
        std::optional<double> layer_forward_ms, layer_backward_ms, head_forward_ms, head_backward_ms;
        std::optional<std::string> layer_forward, layer_backward, head_forward, head_backward;
        double forward_all_to_all_share = 0, backward_all_to_all_share = 0, pair_hidden = 0;
        unsigned threads = 0;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand(
        "schedule", "simulate one step pass by pass; JSON counts micro-batches, chunks and stages from 1");
    add_pipeline_options(sub, o->pipeline, false);
    add_time_flag(sub, "--forward", o->forward, o->forward_ms,
                  "one micro-batch's forward through a stage (all its chunks) with its unit, 1.5ms (required "
                  "without --times or --reference)");
    add_time_flag(sub, "--backward", o->backward, o->backward_ms,
                  "its full backward with its unit (required without --times or --reference)");
    add_time_flag(sub, "--send", o->send, o->send_ms,
                  "time for a hand-off between two ranks to arrive, with its unit (0)");
    sub->add_option("--svg", o->svg, "write the timeline to this SVG file");
    sub->add_option("--threads", o->threads, "threads writing --json's passes (every core, at most 16; the text is the same)");
    sub->add_option("--times", o->times,
                    "per-stage, per-chunk times in napkin's JSON format (README: napkin schedule --times); "
                    "gives the shape, and the schedule when --schedule is not given");
    sub->add_option("--reference", o->reference,
                    "a reference step (moe-training-step-1024-gpus.json's format): simulate it from its own "
                    "op and send times and compare");
    sub->add_option("--write-times", o->write_times, "write the simulated times in --times's format to this file");
    sub->add_option("--layers", o->layers, "uneven stages: the model's layers, with --layer-map or "
                                           "--first-stage-layers/--last-stage-layers and --layer-forward-ms");
    add_layer_map_flags(sub, o->uneven, "; its stages must number --stages, its chunks --chunks", "");
    add_time_flag(sub, "--layer-forward", o->layer_forward, o->layer_forward_ms,
                  "uneven stages: one layer's forward with its unit, 5.2ms");
    add_time_flag(sub, "--layer-backward", o->layer_backward, o->layer_backward_ms,
                  "uneven stages: one layer's backward with its unit");
    add_time_flag(sub, "--head-forward", o->head_forward, o->head_forward_ms,
                  "uneven stages: the LM head and loss on the last stage, forward, with its unit (0)");
    add_time_flag(sub, "--head-backward", o->head_backward, o->head_backward_ms,
                  "the LM head and loss, backward, with its unit (0)");
    sub->add_option("--forward-all-to-all-share", o->forward_all_to_all_share,
                    "uneven stages: the share of a forward spent in the expert all-to-all (0)");
    sub->add_option("--backward-all-to-all-share", o->backward_all_to_all_share,
                    "uneven stages: the share of a backward spent in the expert all-to-all (0)");
    sub->add_option("--pair-hidden", o->pair_hidden,
                    "with --overlap-moe-expert-parallel-comm: the share of a pair's all-to-all hidden (0)");
    sub->add_flag("--overlap-moe-expert-parallel-comm", o->overlap_moe,
                  "interleaved: Megatron's paired blocks, one more warm-up forward and each steady-state "
                  "forward run together with a backward");
    sub->callback([o, sub] {
        checked_threads(o->threads);
        // 0 stands for "not given" below (the file or the layer map gives it): a 0 typed is an error.
        for (const auto& [flag, value] : {std::pair{"--stages", o->pipeline.stages},
                                          std::pair{"--microbatches", o->pipeline.microbatches},
                                          std::pair{"--layers", o->layers}})
            if (sub->count(flag) > 0) require_at_least_one(flag, value);
        read_pipeline_units(o->pipeline);
        if (o->backward) o->pipeline.backward_flag = "--backward";
        o->forward_ms = time_in_ms(o->forward_ms, o->forward, "--forward", "--forward-ms");
        o->backward_ms = time_in_ms(o->backward_ms, o->backward, "--backward", "--backward-ms");
        const double send_ms = time_in_ms(o->send_ms, o->send, "--send", "--send-ms").value_or(0.0);
        o->forward = o->backward = o->send = std::nullopt;
        // The per-layer times under either spelling; a message names the one typed.
        const std::string layer_forward_flag = o->layer_forward ? "--layer-forward" : "--layer-forward-ms";
        const std::string layer_backward_flag = o->layer_backward ? "--layer-backward" : "--layer-backward-ms";
        const std::string head_forward_flag = o->head_forward ? "--head-forward" : "--head-forward-ms";
        const std::string head_backward_flag = o->head_backward ? "--head-backward" : "--head-backward-ms";
        o->layer_forward_ms = time_in_ms(o->layer_forward_ms, o->layer_forward, "--layer-forward", "--layer-forward-ms");
        o->layer_backward_ms =
            time_in_ms(o->layer_backward_ms, o->layer_backward, "--layer-backward", "--layer-backward-ms");
        const double head_forward_ms =
            time_in_ms(o->head_forward_ms, o->head_forward, "--head-forward", "--head-forward-ms").value_or(0.0);
        const double head_backward_ms =
            time_in_ms(o->head_backward_ms, o->head_backward, "--head-backward", "--head-backward-ms").value_or(0.0);
        const bool from_file = !o->times.empty() || !o->reference.empty();
        if (!o->times.empty() && !o->reference.empty())
            reject("--reference", o->reference, "cannot be given with --times");
        ScheduleRun run{OneFOneB{}, {1, 1, 1}, {}, std::nullopt, std::nullopt};
        if (!o->reference.empty()) {
            run.reference = io::read_reference_schedule(o->reference);
            run.shape = run.reference->shape;
            run.times = io::reference_schedule_times(*run.reference);
            run.schedule = io::reference_schedule_kind(*run.reference);
        } else if (!o->times.empty()) {
            io::TimesSchedule file_schedule;
            run.times = io::read_schedule_times(o->times, &file_schedule);
            run.shape = run.times.shape;
            const std::string name = !o->pipeline.schedule.empty() ? o->pipeline.schedule
                                                                    : file_schedule.name.value_or(std::string{});
            if (name.empty()) reject("--schedule", "", "is required when the --times file names no schedule");
            PipelineOptions p = o->pipeline;
            p.schedule = name;
            // The file's interleaved settings apply when the schedule run is interleaved.
            if (p.extra_warmup == 0 && name == "interleaved") p.extra_warmup = file_schedule.extra_warmup;
            run.schedule = resolve_schedule(p);
            if (auto* interleaved = std::get_if<Interleaved>(&run.schedule))
                interleaved->paired = file_schedule.paired;
        }
        if (from_file) {
            const auto matches = [](const char* flag, long long given, long long file) {
                if (given != 0) require(given == file, flag, count(given), "must match the file's " + std::to_string(file));
            };
            matches("--stages", o->pipeline.stages, run.shape.stages);
            matches("--microbatches", o->pipeline.microbatches, run.shape.microbatches);
            if (o->pipeline.chunks != 1) matches("--chunks", o->pipeline.chunks, run.shape.chunks);
        } else if (o->layers != 0 || layer_map_given(*sub, o->uneven)) {
            // Uneven stages: each chunk priced by its layers.
            if (o->pipeline.schedule.empty()) throw napkin::invalid_argument("--schedule is required");
            if (o->pipeline.stages == 0) throw napkin::invalid_argument("--stages is required");
            if (o->pipeline.microbatches == 0) throw napkin::invalid_argument("--microbatches is required");
            if (o->layers == 0) throw napkin::invalid_argument("--layers is required with a layer map");
            if (!o->layer_forward_ms)
                throw napkin::invalid_argument("--layer-forward-ms (or --layer-forward) is required with a layer map");
            if (!o->layer_backward_ms)
                throw napkin::invalid_argument("--layer-backward-ms (or --layer-backward) is required with a layer map");
            require_at_least_one("--layers", o->layers);
            require_at_least_one("--stages", o->pipeline.stages);
            require_at_least_one("--chunks", o->pipeline.chunks);
            // --layers alone: the layers shared equally.
            const std::optional<LayerMap> given =
                resolve_layer_map(*sub, o->uneven, o->layers, o->pipeline.stages, o->pipeline.chunks, "--chunks");
            const LayerMap map =
                given ? *given : first_last_layer_map(o->layers, o->pipeline.stages, o->pipeline.chunks, 0, 0);
            for (const auto& [flag, value] : {std::pair{layer_forward_flag, *o->layer_forward_ms},
                                              std::pair{layer_backward_flag, *o->layer_backward_ms},
                                              std::pair{head_forward_flag, head_forward_ms},
                                              std::pair{head_backward_flag, head_backward_ms}})
                require(std::isfinite(value) && value >= 0.0, flag, value, "must be finite and not negative");
            require_non_negative("--send-ms", send_ms);
            run.shape = {o->pipeline.stages, o->pipeline.microbatches, o->pipeline.chunks};
            run.schedule = resolve_schedule(o->pipeline);
            const std::vector<long long> layers = map.layers_per_chunk();
            run.times = ScheduleTimes::per_layer(run.shape, layers,
                                                 {milliseconds(*o->layer_forward_ms), milliseconds(*o->layer_backward_ms)},
                                                 {}, {milliseconds(head_forward_ms), milliseconds(head_backward_ms)},
                                                 milliseconds(send_ms));
            for (const auto& [flag, value] : {std::pair{"--forward-all-to-all-share", o->forward_all_to_all_share},
                                              std::pair{"--backward-all-to-all-share", o->backward_all_to_all_share},
                                              std::pair{"--pair-hidden", o->pair_hidden}})
                require(value >= 0.0 && value <= 1.0, flag, value, "must lie between 0 and 1");
            for (const StageTimes& c : run.times.per_chunk)
                run.times.all_to_all.push_back(
                    {c.forward * o->forward_all_to_all_share, c.backward * o->backward_all_to_all_share});
            run.times.pair_hidden = o->pair_hidden;
        } else {
            if (o->pipeline.schedule.empty()) throw napkin::invalid_argument("--schedule is required");
            if (o->pipeline.stages == 0) throw napkin::invalid_argument("--stages is required (or give --times)");
            if (o->pipeline.microbatches == 0)
                throw napkin::invalid_argument("--microbatches is required (or give --times)");
            if (!o->forward_ms) throw napkin::invalid_argument("--forward-ms is required (or give --times)");
            if (!o->backward_ms) throw napkin::invalid_argument("--backward-ms is required (or give --times)");
            run.shape = {o->pipeline.stages, o->pipeline.microbatches, o->pipeline.chunks};
            run.uniform = resolve_times(o->pipeline, *o->forward_ms, *o->backward_ms);
            require_non_negative("--send-ms", send_ms);
            run.schedule = resolve_schedule(o->pipeline);
            run.times = ScheduleTimes::uniform(run.shape, *run.uniform, milliseconds(send_ms));
        }
        if (o->overlap_moe) {
            auto* interleaved = std::get_if<Interleaved>(&run.schedule);
            if (!interleaved) reject("--overlap-moe-expert-parallel-comm", 1.0, "only the interleaved schedule takes it");
            interleaved->paired = true;
            if (interleaved->extra_warmup == 0) interleaved->extra_warmup = 1;
        }
        std::visit(
            [&](const auto& schedule) {
                const PipelineShape& shape = run.shape;
                const Timeline t = simulate(schedule, shape, run.times);
                if (!o->write_times.empty()) {
                    io::TimesSchedule named{std::string(schedule.name), 0, false};
                    if constexpr (std::is_same_v<std::decay_t<decltype(schedule)>, Interleaved>)
                        named.extra_warmup = schedule.extra_warmup, named.paired = schedule.paired;
                    io::write_text_file("--write-times", o->write_times,
                                        io::schedule_times_json(run.times, named).dump(2) + "\n");
                }
                if (!o->svg.empty()) {
                    char title[160];
                    std::snprintf(title, sizeof title, "%s, p = %lld, m = %lld, v = %lld",
                                  std::string(schedule.name).c_str(), shape.stages, shape.microbatches,
                                  shape.chunks);
                    io::write_timeline_svg(t, o->svg, {.title = title});
                }
                if (o->pipeline.json) return print_schedule_json(schedule.name, run, t, o->threads);
                std::printf("%s, p = %lld, m = %lld, v = %lld: %zu passes\n", std::string(schedule.name).c_str(),
                            shape.stages, shape.microbatches, shape.chunks, t.pass_count());
                const Seconds overlapped = t.overlapped_step_time();
                if (run.uniform && overlapped < t.step_time() * (1.0 - 1e-12))
                    // ZB-H2: its closed form is the time per step of steps that overlap.
                    printf_wrapped("step %s alone, %s a step when steps overlap (closed form %s), idle %.2f%% of p x "
                                   "step\n",
                                   to_string(t.step_time()).c_str(), to_string(overlapped).c_str(),
                                   to_string(step_time(schedule, shape, *run.uniform)).c_str(), 100 * t.idle_fraction());
                else if (run.uniform)
                    printf_wrapped("step %s (closed form %s), idle %.2f%% of p x step\n", to_string(t.step_time()).c_str(),
                                to_string(step_time(schedule, shape, *run.uniform)).c_str(), 100 * t.idle_fraction());
                else
                    printf_wrapped("step %s, idle %.2f%% of p x step\n", to_string(t.step_time()).c_str(),
                                100 * t.idle_fraction());
                for (long long r = 0; r < shape.stages; ++r)
                    std::printf("  stage %lld: busy %s, idle %s\n", r + 1, to_string(t.busy_time(r)).c_str(),
                                to_string(t.idle_time(r)).c_str());
                if (!t.loss_times().empty() && !run.uniform) {
                    // Six to a line, so that the line stays within 80 columns.
                    std::string line = "loss times:";
                    std::size_t on_line = 0;
                    for (const Seconds& l : t.loss_times()) {
                        if (on_line == 6) line += "\n           ", on_line = 0;
                        line += " " + format_fixed(l.value(), 6);
                        ++on_line;
                    }
                    std::printf("%s s\n", line.c_str());
                }
                if (run.reference)
                    printf_wrapped("reference: step %.6f s, idle %.4f%% (pair hides %.4f of its all-to-all, fitted)\n",
                                run.reference->step.value(), 100 * run.reference->idle_fraction,
                                run.times.pair_hidden);
                if (!o->svg.empty()) std::printf("timeline: %s\n", o->svg.c_str());
            },
            run.schedule);
    });
}

}  // namespace napkin::cli
