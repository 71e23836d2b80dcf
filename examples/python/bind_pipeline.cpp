// Pipeline schedules (napkin/pipeline.hpp: closed forms) and the simulator
// (napkin/schedule.hpp: every pass of one step) from Python.
#include "bindings.hpp"

#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>

#include <optional>
#include <variant>

namespace napkin::python {

namespace {

const char* const schedule_doc =
    "schedule: 'gpipe', '1f1b', 'interleaved', 'zb-h1', 'zb-h2', 'dualpipe' or 'dualpipev'; "
    "extra_warmup: interleaved's forwards beyond Megatron's warm-up; overlapped_forward_backward: "
    "DualPipe's F&B in seconds (None: F + B).";

AnySchedule make_schedule(const std::string& name, long long extra_warmup, std::optional<double> fb) {
    AnySchedule s = schedule_from_name(name);
    if (auto* interleaved = std::get_if<Interleaved>(&s)) interleaved->extra_warmup = extra_warmup;
    else if (extra_warmup != 0)
        reject("extra_warmup", count(extra_warmup), "applies to the interleaved schedule only");
    if (fb) {
        if (auto* dual = std::get_if<DualPipe>(&s)) dual->overlapped_forward_backward = seconds(*fb);
        else if (auto* v = std::get_if<DualPipeV>(&s)) v->overlapped_forward_backward = seconds(*fb);
        else reject("overlapped_forward_backward (s)", *fb, "applies to dualpipe and dualpipev only");
    }
    return s;
}

// One pass of a simulated step, with the rank that ran it.
struct PassRecord {
    long long rank = 0;
    std::string pass;
    long long microbatch = 0;
    long long chunk = 0;
    double start = 0.0;
    double end = 0.0;
    bool overlapped = false;
    bool weight_grad_apart = false;
};

PassRecord record(long long rank, const Operation& op) {
    return {rank, std::string(to_string(op.pass)), op.microbatch, op.chunk, op.start.value(), op.end.value(),
            op.overlapped, op.weight_grad_apart};
}

void check_rank(const Timeline& t, long long rank) {
    require(rank >= 0 && rank < t.shape().stages, "rank", count(rank), "must be in [0, PipelineShape.stages)");
}

}  // namespace

void bind_pipeline(py::module_& m) {
    Struct<PipelineShape>(m, "PipelineShape", "p stages, m micro-batches, v chunks per rank.")
        .value("stages", &PipelineShape::stages, "pipeline stages p")
        .value("microbatches", &PipelineShape::microbatches, "micro-batches per step m")
        .value("chunks", &PipelineShape::chunks, "model chunks per rank v (interleaved)")
        .finish([](const PipelineShape& s) { (void)validated(s); });
    Struct<StageTimes>(m, "StageTimes", "One micro-batch through one whole stage (seconds).")
        .quantity("forward", &StageTimes::forward, Kind::seconds, "F")
        .quantity("backward", &StageTimes::backward, Kind::seconds, "B: input and weight gradient")
        .quantity("weight_grad", &StageTimes::weight_grad, Kind::seconds, "W, the weight-gradient part of B")
        .finish([](const StageTimes& t) { (void)validated(t); });

    using Fb = std::optional<double>;
    const auto visit = [](const std::string& name, long long extra, Fb fb, auto&& f) {
        return std::visit(f, make_schedule(name, extra, fb));
    };
    m.def("ideal_step_time", [](const PipelineShape& shape, const StageTimes& t) {
              return ideal_step_time(shape, t).value();
          }, py::arg("shape"), py::arg("times"), "m · (F + B), seconds: every rank busy all the time.");
    m.def("bubble_time", [visit](const std::string& s, const PipelineShape& shape, const StageTimes& t, long long e,
                                 Fb fb) {
              return visit(s, e, fb, [&](const auto& sch) { return bubble_time(sch, shape, t).value(); });
          }, py::arg("schedule"), py::arg("shape"), py::arg("times"), py::arg("extra_warmup") = 0,
          py::arg("overlapped_forward_backward") = py::none(),
          (std::string("Idle seconds per rank in one step, as the schedule's paper states it. ") + schedule_doc).c_str());
    m.def("step_time", [visit](const std::string& s, const PipelineShape& shape, const StageTimes& t, long long e,
                               Fb fb) {
              return visit(s, e, fb, [&](const auto& sch) { return step_time(sch, shape, t).value(); });
          }, py::arg("schedule"), py::arg("shape"), py::arg("times"), py::arg("extra_warmup") = 0,
          py::arg("overlapped_forward_backward") = py::none(),
          (std::string("Pipeline step, seconds: m · (F + B) + bubble. ") + schedule_doc).c_str());
    m.def("bubble_share_of_step", [visit](const std::string& s, const PipelineShape& shape, const StageTimes& t,
                                          long long e, Fb fb) {
              return visit(s, e, fb, [&](const auto& sch) { return bubble_share_of_step(sch, shape, t); });
          }, py::arg("schedule"), py::arg("shape"), py::arg("times"), py::arg("extra_warmup") = 0,
          py::arg("overlapped_forward_backward") = py::none(),
          "bubble ÷ step: (p − 1)/(v·m + p − 1) for gpipe, 1f1b, interleaved.");
    m.def("bubble_ratio_to_ideal", [visit](const std::string& s, const PipelineShape& shape, const StageTimes& t,
                                           long long e, Fb fb) {
              return visit(s, e, fb, [&](const auto& sch) { return bubble_ratio_to_ideal(sch, shape, t); });
          }, py::arg("schedule"), py::arg("shape"), py::arg("times"), py::arg("extra_warmup") = 0,
          py::arg("overlapped_forward_backward") = py::none(),
          "bubble ÷ (m · (F + B)): Narayanan et al.'s bubble time fraction, (p − 1)/(v·m).");
    m.def("microbatches_in_flight", [visit](const std::string& s, const PipelineShape& shape, long long rank,
                                            long long e, Fb fb) {
              return visit(s, e, fb, [&](const auto& sch) { return microbatches_in_flight(sch, shape, rank); });
          }, py::arg("schedule"), py::arg("shape"), py::arg("rank"), py::arg("extra_warmup") = 0,
          py::arg("overlapped_forward_backward") = py::none(),
          "Micro-batches whose activations rank `rank` holds at its peak.");
    m.def("activation_memory_multiplier", [visit](const std::string& s, const PipelineShape& shape, long long e,
                                                  Fb fb) {
              return visit(s, e, fb, [&](const auto& sch) { return activation_memory_multiplier(sch, shape); });
          }, py::arg("schedule"), py::arg("shape"), py::arg("extra_warmup") = 0,
          py::arg("overlapped_forward_backward") = py::none(),
          "The most activations a rank holds, in micro-batches through a whole stage (1F1B: p).");
    m.def("parameter_memory_multiplier", [visit](const std::string& s) {
              return visit(s, 0, std::nullopt, [&](const auto& sch) { return parameter_memory_multiplier(sch); });
          }, py::arg("schedule"), "A rank's weights relative to its 1/p share (DualPipe: 2).");

    py::class_<PassRecord>(m, "Pass", "One pass of a simulated step (times in seconds).")
        .def_readonly("rank", &PassRecord::rank)
        .def_readonly("pass_", &PassRecord::pass, "'forward', 'backward' or 'weight_grad'")
        .def_property_readonly("kind", [](const PassRecord& p) { return p.pass; },
                               "'forward', 'backward' or 'weight_grad'")
        .def_readonly("microbatch", &PassRecord::microbatch)
        .def_readonly("chunk", &PassRecord::chunk)
        .def_readonly("start", &PassRecord::start, "seconds")
        .def_readonly("end", &PassRecord::end, "seconds")
        .def_readonly("overlapped", &PassRecord::overlapped, "half of DualPipe's overlapped F&B pair")
        .def_readonly("weight_grad_apart", &PassRecord::weight_grad_apart, "a backward whose W runs later")
        .def("to_dict", [](const PassRecord& p) {
            py::dict d;
            d["rank"] = p.rank;
            d["pass"] = p.pass;
            d["microbatch"] = p.microbatch;
            d["chunk"] = p.chunk;
            d["start"] = p.start;
            d["end"] = p.end;
            d["overlapped"] = p.overlapped;
            d["weight_grad_apart"] = p.weight_grad_apart;
            return d;
        })
        .def("__repr__", [](const PassRecord& p) {
            return "Pass(rank=" + std::to_string(p.rank) + ", " + p.pass + ", microbatch=" +
                   std::to_string(p.microbatch) + ", chunk=" + std::to_string(p.chunk) + ", " +
                   to_string(seconds(p.start)) + " to " + to_string(seconds(p.end)) + ")";
        });

    py::class_<Timeline>(m, "Timeline", "A simulated step: every rank's passes in the order it ran them.")
        .def_property_readonly("shape", &Timeline::shape)
        .def_property_readonly("passes", [](const Timeline& t) {
            std::vector<PassRecord> out;
            out.reserve(t.operations().size());
            for (long long r = 0; r < t.shape().stages; ++r)
                for (const Operation& op : t.stage(r)) out.push_back(record(r, op));
            return out;
        }, "Every pass of every rank, rank by rank (list of Pass).")
        .def("stage", [](const Timeline& t, long long rank) {
            check_rank(t, rank);
            std::vector<PassRecord> out;
            for (const Operation& op : t.stage(rank)) out.push_back(record(rank, op));
            return out;
        }, py::arg("rank"), "Rank `rank`'s passes in order.")
        .def_property_readonly("step_time", [](const Timeline& t) { return t.step_time().value(); },
                               "the last pass's end, seconds")
        .def("busy_time", [](const Timeline& t, long long r) {
            check_rank(t, r);
            return t.busy_time(r).value();
        }, py::arg("rank"), "seconds rank `rank` computes")
        .def("idle_time", [](const Timeline& t, long long r) {
            check_rank(t, r);
            return t.idle_time(r).value();
        }, py::arg("rank"), "step time − busy time, seconds")
        .def("idle_within_span", [](const Timeline& t, long long r) {
            check_rank(t, r);
            return t.idle_within_span(r).value();
        }, py::arg("rank"), "idle seconds between the rank's first start and last end")
        .def_property_readonly("idle_fraction", &Timeline::idle_fraction, "idle time summed ÷ (p × step time)")
        .def_property_readonly("largest_idle_within_span",
                               [](const Timeline& t) { return t.largest_idle_within_span().value(); }, "seconds")
        .def_property_readonly("overlapped_step_time",
                               [](const Timeline& t) { return t.overlapped_step_time().value(); },
                               "seconds per step when steps overlap: the longest rank span (ZB-H2's closed form)")
        .def("__len__", [](const Timeline& t) { return t.pass_count(); })
        .def("__repr__", [](const Timeline& t) {
            return "Timeline(stages=" + std::to_string(t.shape().stages) + ", microbatches=" +
                   std::to_string(t.shape().microbatches) + ", passes=" + std::to_string(t.pass_count()) +
                   ", step_time=" + to_string(t.step_time()) + ")";
        });

    const auto simulate_schedule = [visit](const std::string& s, const PipelineShape& shape, const py::object& times,
                                           double send, const std::optional<std::vector<double>>& factors,
                                           long long e, Fb fb) {
        (void)validated(shape);
        require(count(shape.stages) * count(shape.microbatches) * count(shape.chunks) <= 1e7,
                "stages × microbatches × chunks", count(shape.stages) * count(shape.microbatches) * count(shape.chunks),
                "must be at most 10,000,000 passes for the simulator");
        ScheduleTimes st;
        if (py::isinstance<StageTimes>(times)) {
            st = ScheduleTimes::uniform(shape, times.cast<StageTimes>(), seconds(send));
        } else if (py::isinstance<py::sequence>(times) && !py::isinstance<py::str>(times)) {
            const auto stages = times.cast<std::vector<StageTimes>>();
            st = ScheduleTimes::per_stage(shape, stages, seconds(send));
        } else {
            throw py::type_error("times: expected a StageTimes or a list of StageTimes (one per stage), got " +
                                 std::string(py::str(times.get_type().attr("__name__"))));
        }
        if (factors) st.microbatch_factor = *factors;
        py::gil_scoped_release release;
        return visit(s, e, fb, [&](const auto& sch) { return simulate(sch, shape, st); });
    };
    const char* simulate_doc =
        "Simulates one step and returns every pass (Timeline). times: a StageTimes for equal stages, or a list of "
        "StageTimes, one per stage (seconds, each split evenly over the rank's chunks); send: seconds per "
        "hand-off between stages; microbatch_factor: a factor per micro-batch scaling its passes.";
    m.def("simulate_schedule", simulate_schedule, py::arg("schedule"), py::arg("shape"), py::arg("times"),
          py::arg("send") = 0.0, py::arg("microbatch_factor") = py::none(), py::arg("extra_warmup") = 0,
          py::arg("overlapped_forward_backward") = py::none(), simulate_doc);
    m.def("simulate", simulate_schedule, py::arg("schedule"), py::arg("shape"), py::arg("times"),
          py::arg("send") = 0.0, py::arg("microbatch_factor") = py::none(), py::arg("extra_warmup") = 0,
          py::arg("overlapped_forward_backward") = py::none(), "C++'s name for simulate_schedule.");
}

}  // namespace napkin::python
