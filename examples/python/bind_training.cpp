// Training (napkin/training.hpp), the planner (napkin/planner.hpp) and the
// alpha-beta calibration from nccl-tests output (napkin/calibrate.hpp,
// napkin/io/nccl_tests.hpp) from Python.
#include "bindings.hpp"

#include <napkin/calibrate.hpp>
#include <napkin/io/json.hpp>
#include <napkin/io/json_plans.hpp>
#include <napkin/io/nccl_tests.hpp>
#include <napkin/memory.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/planner.hpp>
#include <napkin/training.hpp>

#include <sstream>

namespace napkin::python {

namespace {

const auto dtype_choices = choices_of(DType::none, DType::fp8, DType::bf16, DType::fp16, DType::fp32);
const auto schedule_choices =
    choices_of(ScheduleKind::automatic, ScheduleKind::gpipe, ScheduleKind::one_f_one_b, ScheduleKind::interleaved,
               ScheduleKind::zero_bubble_h1, ScheduleKind::zero_bubble_h2, ScheduleKind::dualpipe,
               ScheduleKind::dualpipev);
const auto recompute_choices = choices_of(Recompute::none, Recompute::selective, Recompute::full);
const auto zero_stage_choices = choices_of(Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3);

// A plan with the GPU it ran on (the rows name its usable memory, as `napkin plan --json` does).
struct Plan {
    TrainingPlan plan;
    Gpu gpu;
};

// One row of a plan: io::json::training_candidate, the row `napkin plan --json` writes.
py::dict candidate_row(const TrainingCandidate& c, const Gpu& gpu) {
    return py::module_::import("json").attr("loads")(io::json::training_candidate(c, gpu).dump());
}

py::list rows_of(const Plan& p, const std::string& which) {
    if (which != "top" && which != "pareto") reject("which", which, "must be top or pareto");
    py::list out;
    long long rank = 0;
    for (const TrainingCandidate& c : which == "top" ? p.plan.top : p.plan.pareto) {
        py::dict row = candidate_row(c, p.gpu);
        row["rank"] = ++rank;  // as `napkin plan --json` ranks its rows (1 = first)
        out.append(row);
    }
    return out;
}

// Nested dicts flattened to columns: memory.total -> memory_total.
py::dict flat(const py::dict& row) {
    py::dict out;
    for (const auto& [key, value] : row) {
        if (py::isinstance<py::dict>(value)) {
            for (const auto& [inner, v] : value.cast<py::dict>())
                out[py::str(std::string(py::str(key)) + "_" + std::string(py::str(inner)))] = v;
        } else {
            out[key] = value;
        }
    }
    return out;
}

template <class E>
unsigned bits_of(const py::object& names, const Choices<E>& choices, std::string_view argument,
                 unsigned (*bit)(E)) {
    if (py::isinstance<py::str>(names) || !py::isinstance<py::iterable>(names))
        throw py::type_error(std::string(argument) + ": expected a list of str (" + choices.listing() + ")");
    unsigned bits = 0;
    for (const py::handle item : names) bits |= bit(choices.parse(item, argument));
    return bits;
}

template <class E>
std::vector<std::string> names_of(unsigned bits, const Choices<E>& choices, unsigned (*bit)(E)) {
    std::vector<std::string> out;
    for (const auto& [e, name] : choices.items)
        if ((bits & bit(e)) != 0) out.push_back(name);
    return out;
}

}  // namespace

void bind_training(py::module_& m) {
    Struct<Parallelism>(m, "Parallelism",
                        "A training layout: tp × cp × pp × dp GPUs, batch, recomputation, sharding, formats.")
        .value("tp", &Parallelism::tp, "tensor-parallel size t")
        .value("pp", &Parallelism::pp, "pipeline stages p")
        .value("dp", &Parallelism::dp, "data-parallel copies d")
        .value("ep", &Parallelism::ep, "expert-parallel size (divides dp·cp)")
        .value("cp", &Parallelism::cp, "context-parallel size (splits the sequence)")
        .value("virtual_stages", &Parallelism::virtual_stages, "model chunks per pipeline rank v")
        .choice("schedule", &Parallelism::schedule, schedule_choices, "the pipeline schedule")
        .value("micro_batch", &Parallelism::micro_batch, "sequences per micro-batch b")
        .value("global_batch", &Parallelism::global_batch, "sequences per optimizer step B")
        .value("sequence", &Parallelism::sequence, "tokens per sequence s")
        .value("sequence_parallel", &Parallelism::sequence_parallel, "Megatron sequence parallelism")
        .choice("recompute", &Parallelism::recompute, recompute_choices, "activation recomputation")
        .choice("sharding", &Parallelism::sharding,
                choices_of(Sharding::none, Sharding::zero1, Sharding::zero2, Sharding::zero3, Sharding::distributed),
                "ZeRO stage ('0' to '3') or Megatron's distributed optimizer")
        .value("flash_attention", &Parallelism::flash_attention, "fused attention: no s × s scores kept")
        .choice("weights", &Parallelism::weights, dtype_choices, "weight format")
        .choice("gradients", &Parallelism::gradients, dtype_choices, "gradient format")
        .choice("master", &Parallelism::master, dtype_choices, "master-weight format")
        .choice("moments", &Parallelism::moments, dtype_choices, "format of each Adam moment")
        .computed("gpus", [](const Parallelism& p) { return gpus(p); }, Kind::plain, "tp · cp · pp · dp")
        .computed("microbatches", [](const Parallelism& p) { return p.micro_batch * p.dp == 0 ? 0 : microbatches(p); },
                  Kind::plain, "global_batch ÷ (micro_batch · dp)")
        .finish([](const Parallelism& p) { (void)validated(p); });

    Struct<EfficiencyModel>(m, "EfficiencyModel", "The compute model's fitted roofline (napkin/compute.hpp).")
        .value("peak_share", &EfficiencyModel::peak_share, "matrix multiplications' share of peak, in (0, 1]")
        .value("half_width", &EfficiencyModel::half_width, "n½ on the width h/t (0: none)")
        .value("memory_passes", &EfficiencyModel::memory_passes, "element-wise traffic per forward, in activation bytes")
        .finish();
    Struct<EfficiencyProfile>(m, "EfficiencyProfile",
                              "The GEMM model's fitted parameters (napkin/gemm.hpp); EfficiencyProfile() is all "
                              "zeros, napkin.default_profile the fit.")
        .value("ampere_share", &EfficiencyProfile::ampere_share, "tensor peak share on Ampere, in (0, 1]")
        .value("hopper_share", &EfficiencyProfile::hopper_share, "tensor peak share on Hopper, in (0, 1]")
        .value("memory_passes", &EfficiencyProfile::memory_passes, "element-wise traffic per forward")
        .finish();
    m.attr("default_profile") = default_profile;
    Struct<MemoryAllowances>(m, "MemoryAllowances", "What a real run holds besides states and activations.")
        .quantity("cuda_context", &MemoryAllowances::cuda_context, Kind::bytes, "CUDA context and libraries")
        .value("nccl_channels", &MemoryAllowances::nccl_channels, "NCCL channels per communicator")
        .value("fragmentation", &MemoryAllowances::fragmentation, "allocator fragmentation, share of activations")
        .value("loss_logits", &MemoryAllowances::loss_logits, "count the loss's fp32 logits (p = 1)")
        .finish();
    m.attr("default_memory_allowances") = default_memory_allowances;
    m.attr("no_memory_allowances") = no_memory_allowances;
    Struct<TrainingOptions>(m, "TrainingOptions", "How the step is run beyond the layout.")
        .value("efficiency", &TrainingOptions::efficiency, "EfficiencyModel (the flat model's parameters)")
        .choice("compute_model", &TrainingOptions::compute_model, choices_of(ComputeModel::gemm, ComputeModel::flat),
                "GEMM model (needs the GPU's sm_count and architecture) or the flat roofline")
        .value("profile", &TrainingOptions::profile, "EfficiencyProfile (the GEMM model's parameters)")
        .choice("compute_dtype", &TrainingOptions::compute_dtype, dtype_choices, "the GEMMs' precision")
        .value("overlap_tp", &TrainingOptions::overlap_tp, "TP collectives under the GEMMs (--tp-comm-overlap)")
        .value("overlap_param_gather", &TrainingOptions::overlap_param_gather,
               "parameter all-gather under the first forward (--overlap-param-gather)")
        .value("fsdp_prefetch", &TrainingOptions::fsdp_prefetch, "ZeRO-3 all-gathers under the neighbouring layer")
        .value("communication_sms", &TrainingOptions::communication_sms,
               "SMs a collective holds while it overlaps compute (20, DeepSeek-V3 Sec. 3.2.2)")
        .value("recompute_early_stop", &TrainingOptions::recompute_early_stop,
               "full recomputation skips each dense layer's MLP down projection (PyTorch's non-reentrant checkpoint)")
        .value("memory_allowances", &TrainingOptions::memory_allowances, "MemoryAllowances")
        .quantity("collective_base_latency", &TrainingOptions::collective_base_latency, Kind::seconds,
                  "paid once per collective call")
        .value("causal", &TrainingOptions::causal, "count the attention core at half")
        .value("pipeline_scatter_gather", &TrainingOptions::pipeline_scatter_gather, "send 1/t of a hand-off")
        .value("overlap_dp", &TrainingOptions::overlap_dp, "hide the gradient sync behind the backward pass")
        .choice("tp_communication", &TrainingOptions::tp_communication,
                choices_of(TpCommunication::automatic, TpCommunication::all_reduce,
                           TpCommunication::reduce_scatter_all_gather),
                "tensor-parallel collectives")
        .choice("gradient_reduce_dtype", &TrainingOptions::gradient_reduce_dtype, dtype_choices,
                "format of the gradients in the data-parallel collectives (none: the gradients' own)")
        .finish();

    Struct<TrainingMemory>(m, "TrainingMemory", "Memory on the most loaded GPU (bytes).")
        .quantity("weights", &TrainingMemory::weights, Kind::bytes, "weights")
        .quantity("gradients", &TrainingMemory::gradients, Kind::bytes, "gradients")
        .quantity("optimizer", &TrainingMemory::optimizer, Kind::bytes, "master weights and Adam's moments")
        .quantity("activations", &TrainingMemory::activations, Kind::bytes, "activations at the peak")
        .quantity("cuda_context", &TrainingMemory::cuda_context, Kind::bytes, "CUDA context and libraries")
        .quantity("nccl_buffers", &TrainingMemory::nccl_buffers, Kind::bytes, "NCCL's buffers")
        .quantity("fragmentation", &TrainingMemory::fragmentation, Kind::bytes, "allocator fragmentation")
        .quantity("loss_logits", &TrainingMemory::loss_logits, Kind::bytes, "the loss's fp32 logits")
        .computed("allowances", [](const TrainingMemory& x) { return x.allowances().value(); }, Kind::bytes,
                  "cuda_context + nccl_buffers + fragmentation + loss_logits")
        .computed("states", [](const TrainingMemory& x) { return x.states().value(); }, Kind::bytes,
                  "weights + gradients + optimizer")
        .computed("total", [](const TrainingMemory& x) { return x.total().value(); }, Kind::bytes,
                  "states + activations + allowances")
        .finish();
    Struct<StepBreakdown>(m, "StepBreakdown", "Where a training step's time goes (seconds).")
        .quantity("compute", &StepBreakdown::compute, Kind::seconds, "forward and backward of every micro-batch")
        .quantity("recompute", &StepBreakdown::recompute, Kind::seconds, "forward work recomputation replays")
        .quantity("tp", &StepBreakdown::tp, Kind::seconds, "tensor-parallel collectives")
        .quantity("pp", &StepBreakdown::pp, Kind::seconds, "sends between stages")
        .quantity("bubble", &StepBreakdown::bubble, Kind::seconds, "pipeline fill and drain")
        .quantity("dp", &StepBreakdown::dp, Kind::seconds, "gradient sync not hidden")
        .quantity("ep", &StepBreakdown::ep, Kind::seconds, "expert-parallel all-to-alls")
        .quantity("cp", &StepBreakdown::cp, Kind::seconds, "context-parallel exchange not hidden")
        .quantity("optimizer", &StepBreakdown::optimizer, Kind::seconds, "the Adam update")
        .computed("total", [](const StepBreakdown& b) { return b.total().value(); }, Kind::seconds, "the step")
        .finish();
    Struct<TrainingEstimate>(m, "TrainingEstimate", "evaluate_training's answer.")
        .value("memory", &TrainingEstimate::memory, "TrainingMemory (bytes)")
        .value("fits", &TrainingEstimate::fits, "memory.total ≤ the GPU's usable memory")
        .value("breakdown", &TrainingEstimate::breakdown, "StepBreakdown (seconds)")
        .quantity("step", &TrainingEstimate::step, Kind::seconds, "one optimizer step")
        .quantity("tokens_per_second", &TrainingEstimate::tokens_per_second, Kind::tokens_per_second,
                  "global_batch · sequence ÷ step")
        .value("mfu", &TrainingEstimate::mfu, "model FLOPs utilisation")
        .value("hfu", &TrainingEstimate::hfu, "hardware FLOPs utilisation (recomputation counted)")
        .quantity("model_flops", &TrainingEstimate::model_flops, Kind::flops, "per iteration, all GPUs")
        .quantity("hardware_flops", &TrainingEstimate::hardware_flops, Kind::flops, "with recomputation")
        .finish();

    m.attr("default_training_options") = default_training_options;
    m.def("evaluate_training", &evaluate_training, py::arg("model"), py::arg("cluster"), py::arg("parallelism"),
          py::arg("options") = default_training_options,
          "Memory per GPU, step breakdown, step time (seconds), tokens/s and MFU of one layout "
          "(TrainingEstimate). ValueError names the first bad field.");
    m.def("training_memory", [](const TransformerShape& model, const Parallelism& par) {
              return training_memory(validated(model), validated(par));
          }, py::arg("model"), py::arg("parallelism"), "Memory on the most loaded GPU (TrainingMemory, bytes).");

    // --- the planner ----------------------------------------------------------
    auto query_cls =
        Struct<TrainingPlanQuery>(m, "TrainingPlanQuery", "What plan_training searches.")
            .value("model", &TrainingPlanQuery::model, "TransformerShape")
            .value("cluster", &TrainingPlanQuery::cluster, "Cluster: its GPUs are the GPUs to use")
            .value("global_batch", &TrainingPlanQuery::global_batch, "sequences per optimizer step")
            .value("sequence", &TrainingPlanQuery::sequence, "tokens per sequence")
            .value("max_tp", &TrainingPlanQuery::max_tp, "largest tensor-parallel size (0: no limit)")
            .value("max_cp", &TrainingPlanQuery::max_cp, "largest context-parallel size (1: none)")
            .value("max_ep", &TrainingPlanQuery::max_ep, "largest expert-parallel size (0: no limit)")
            .value("must_fit", &TrainingPlanQuery::must_fit, "False: rank layouts that do not fit too")
            .custom("schedules",
                    [](const TrainingPlanQuery& q) { return names_of(q.schedules, schedule_choices, &schedule_bit); },
                    [](TrainingPlanQuery& q, const py::object& v) {
                        q.schedules = bits_of<ScheduleKind>(v, schedule_choices, "schedules", &schedule_bit);
                    },
                    "pipeline schedules to search (list of str; 'auto' excluded)")
            .custom("gradient_dtypes",
                    [](const TrainingPlanQuery& q) { return names_of(q.gradient_dtypes, dtype_choices, &dtype_bit); },
                    [](TrainingPlanQuery& q, const py::object& v) {
                        q.gradient_dtypes = bits_of<DType>(v, dtype_choices, "gradient_dtypes", &dtype_bit);
                    },
                    "gradient formats to search (list of str)")
            .value("flash_attention", &TrainingPlanQuery::flash_attention, "search with and without fused attention")
            .custom("recomputes",
                    [](const TrainingPlanQuery& q) {
                        return names_of(q.recomputes, recompute_choices, &recompute_bit);
                    },
                    [](TrainingPlanQuery& q, const py::object& v) {
                        q.recomputes = bits_of<Recompute>(v, recompute_choices, "recomputes", &recompute_bit);
                    },
                    "activation recomputations to search (list of str: none, selective, full)")
            .custom("shardings",
                    [](const TrainingPlanQuery& q) { return names_of(q.shardings, zero_stage_choices, &sharding_bit); },
                    [](TrainingPlanQuery& q, const py::object& v) {
                        q.shardings = bits_of<Sharding>(v, zero_stage_choices, "shardings", &sharding_bit);
                    },
                    "ZeRO stages to search (list of str: '0' to '3')")
            .value("sequence_parallel", &TrainingPlanQuery::sequence_parallel,
                   "False: tensor parallelism without sequence parallelism only")
            .value("overlap_dp", &TrainingPlanQuery::overlap_dp,
                   "False: gradients reduced after the backward only (no overlap searched)")
            .value("base", &TrainingPlanQuery::base, "Parallelism: weight, master and moment formats")
            .value("options", &TrainingPlanQuery::options, "TrainingOptions: efficiency, base latency, causal")
            .value("top_k", &TrainingPlanQuery::top_k, "how many of the fastest layouts to keep")
            .value("threads", &TrainingPlanQuery::threads, "worker threads (0: every core)")
            .value("prune", &TrainingPlanQuery::prune, "skip what bounds and dominance settle")
            .finish([](const TrainingPlanQuery& q) { (void)validated(q); });
    (void)query_cls;

    Struct<TrainingCandidate>(m, "TrainingCandidate", "One layout of a plan and its estimate.")
        .custom("parallelism", [](const TrainingCandidate& c) { return c.point.parallelism; },
                [](TrainingCandidate& c, const Parallelism& p) { c.point.parallelism = p; }, "Parallelism")
        .custom("options", [](const TrainingCandidate& c) { return c.point.options; },
                [](TrainingCandidate& c, const TrainingOptions& o) { c.point.options = o; }, "TrainingOptions")
        .value("estimate", &TrainingCandidate::estimate, "TrainingEstimate")
        .value("dominated", &TrainingCandidate::dominated, "a variant whose canonical twin is never worse")
        .finish();

    Struct<Rejections>(m, "Rejections", "Why layouts were rejected, counted.")
        .value("gpus", &Rejections::gpus, "tp·pp·cp does not divide the GPU count")
        .value("batch", &Rejections::batch, "dp does not divide the global batch")
        .value("max_tp", &Rejections::max_tp, "tp above the constraint")
        .value("memory", &Rejections::memory, "does not fit")
        .value("schedule", &Rejections::schedule, "the schedule cannot run it")
        .computed("total", &Rejections::total, Kind::plain, "all of them")
        .finish();

    py::class_<Plan>(m, "TrainingPlan", "plan_training's answer: the fastest layouts, the Pareto front, statistics.")
        .def_property_readonly("top", [](const Plan& p) { return p.plan.top; },
                               "the fastest layouts, fastest first (list of TrainingCandidate)")
        .def_property_readonly("pareto", [](const Plan& p) { return p.plan.pareto; },
                               "memory vs step time, least memory first (list of TrainingCandidate)")
        .def_property_readonly("points", [](const Plan& p) { return p.plan.points; }, "points in the space")
        .def_property_readonly("points_evaluated", [](const Plan& p) { return p.plan.points_evaluated; })
        .def_property_readonly("points_pruned_memory", [](const Plan& p) { return p.plan.points_pruned_memory; })
        .def_property_readonly("points_pruned_dominated",
                               [](const Plan& p) { return p.plan.points_pruned_dominated; })
        .def_property_readonly("points_pruned", [](const Plan& p) { return p.plan.points_pruned(); })
        .def_property_readonly("points_fitting", [](const Plan& p) { return p.plan.points_fitting; })
        .def_property_readonly("rejected", [](const Plan& p) { return p.plan.rejected; }, "Rejections")
        .def_property_readonly("gpu", [](const Plan& p) { return p.gpu; })
        .def("rows", &rows_of, py::arg("which") = "top",
             "The rows of `napkin plan --json` ('top' or 'pareto'): dicts in bytes and seconds.")
        .def("statistics", [](const Plan& p) {
            py::dict s;
            s["points"] = p.plan.points;
            s["points_evaluated"] = p.plan.points_evaluated;
            s["points_pruned"] = p.plan.points_pruned();
            s["pruned"] = py::dict(py::arg("memory") = p.plan.points_pruned_memory,
                                   py::arg("dominated") = p.plan.points_pruned_dominated);
            s["points_fitting"] = p.plan.points_fitting;
            s["rejected"] = py::dict(py::arg("memory") = p.plan.rejected.memory,
                                     py::arg("schedule") = p.plan.rejected.schedule,
                                     py::arg("gpus") = p.plan.rejected.gpus, py::arg("batch") = p.plan.rejected.batch,
                                     py::arg("max_tp") = p.plan.rejected.max_tp);
            s["points_rejected"] = p.plan.rejected.total();
            return s;
        }, "The search statistics of `napkin plan --json` (without the timing).")
        .def("to_pandas", [](const Plan& p, const std::string& which) {
            py::module_ pandas;
            try {
                pandas = py::module_::import("pandas");
            } catch (py::error_already_set&) {
                throw py::import_error("to_pandas needs pandas (apt-get install -y python3-pandas); rows() gives "
                                       "the same data as dicts");
            }
            py::list rows;
            for (const py::handle row : rows_of(p, which)) rows.append(flat(row.cast<py::dict>()));
            return pandas.attr("DataFrame")(rows);
        }, py::arg("which") = "top",
             "The rows as a pandas DataFrame, nested keys flattened (memory_total, breakdown_tp).")
        .def("__repr__", [](const Plan& p) {
            std::string text = "TrainingPlan(points=" + std::to_string(p.plan.points) +
                               ", evaluated=" + std::to_string(p.plan.points_evaluated) +
                               ", fitting=" + std::to_string(p.plan.points_fitting) +
                               ", top=" + std::to_string(p.plan.top.size()) +
                               ", pareto=" + std::to_string(p.plan.pareto.size());
            if (!p.plan.top.empty()) text += ", fastest=" + to_string(p.plan.top.front().estimate.step);
            return text + ")";
        });

    const auto run = [](const TrainingPlanQuery& q) {
        // The search walks every divisor of layers and heads: bound them so no input hangs it.
        require(q.model.layers <= 100'000, "TransformerShape.layers", count(q.model.layers),
                "must be at most 100,000 for the planner");
        require(q.model.heads <= 100'000, "TransformerShape.heads", count(q.model.heads),
                "must be at most 100,000 for the planner");
        require(q.global_batch <= 1'000'000, "global_batch", count(q.global_batch),
                "must be at most 1,000,000 for the planner");
        Plan p{{}, q.cluster.node.gpu};
        py::gil_scoped_release release;
        p.plan = plan_training(q);
        return p;
    };
    m.def("plan_training", run, py::arg("query"), "Searches every layout the query allows (TrainingPlan).");
    m.def("plan_training", [run](const TransformerShape& model, const Cluster& cluster, long long global_batch,
                                 const py::kwargs& more) {
              py::dict fields;
              for (const auto& [key, value] : more) fields[key] = value;
              fields["model"] = model;
              fields["cluster"] = cluster;
              fields["global_batch"] = global_batch;
              return run(py::type::of<TrainingPlanQuery>()(**fields).cast<TrainingPlanQuery>());
          }, py::arg("model"), py::arg("cluster"), py::arg("global_batch"),
          "plan_training(model, cluster, global_batch, sequence=2048, top_k=10, ...): any TrainingPlanQuery "
          "field by keyword. Returns TrainingPlan.");
}

// --- alpha-beta calibration from nccl-tests output ----------------------------
void bind_io(py::module_& m) {
    const auto collective_choices = choices_of(Collective::all_reduce, Collective::reduce_scatter,
                                               Collective::all_gather, Collective::all_to_all, Collective::broadcast);
    const Choices<io::Placement> placement_choices{
        {{io::Placement::out_of_place, "out-of-place"}, {io::Placement::in_place, "in-place"}}};

    Struct<CollectiveSample>(m, "CollectiveSample", "One measured collective: op, ranks, message (bytes), time (s).")
        .choice("op", &CollectiveSample::op, collective_choices, "the collective")
        .value("ranks", &CollectiveSample::ranks, "ranks")
        .quantity("message", &CollectiveSample::message, Kind::bytes, "message size")
        .quantity("time", &CollectiveSample::time, Kind::seconds, "measured time")
        .finish();
    Struct<io::NcclTestsResult>(m, "NcclTestsResult", "One placement's columns of an nccl-tests row.")
        .quantity("time", &io::NcclTestsResult::time, Kind::seconds, "time")
        .quantity("algorithm_bandwidth", &io::NcclTestsResult::algorithm_bandwidth, Kind::bytes_per_second, "algbw")
        .quantity("bus_bandwidth", &io::NcclTestsResult::bus_bandwidth, Kind::bytes_per_second, "busbw")
        .finish();
    Struct<io::NcclTestsRow>(m, "NcclTestsRow", "One row of an nccl-tests table.")
        .quantity("size", &io::NcclTestsRow::size, Kind::bytes, "size")
        .value("elements", &io::NcclTestsRow::elements, "count")
        .value("type", &io::NcclTestsRow::type, "data type")
        .value("redop", &io::NcclTestsRow::redop, "reduction")
        .value("root", &io::NcclTestsRow::root, "root (-1: none)")
        .value("out_of_place", &io::NcclTestsRow::out_of_place, "NcclTestsResult")
        .value("in_place", &io::NcclTestsRow::in_place, "NcclTestsResult")
        .finish();
    Struct<io::NcclTestsRun>(m, "NcclTestsRun", "One parsed nccl-tests run.")
        .choice("op", &io::NcclTestsRun::op, collective_choices, "the collective measured")
        .value("ranks", &io::NcclTestsRun::ranks, "ranks")
        .value("rows", &io::NcclTestsRun::rows, "list of NcclTestsRow")
        .finish()
        .def("samples", [placement_choices](const io::NcclTestsRun& run, const py::object& placement) {
            return io::samples(run, placement_choices.parse(placement, "placement"));
        }, py::arg("placement") = "out-of-place",
             "The measured times as samples for fit_alpha_beta (rows with a zero time skipped).");

    const auto parse = [collective_choices](const std::string& text, const py::object& op,
                                            std::optional<long long> ranks) {
        std::istringstream in(text);
        return io::parse_nccl_tests(in, collective_choices.parse(op, "op"), ranks);
    };
    m.def("parse_nccl_tests", parse, py::arg("text"), py::arg("op") = "all-reduce", py::arg("ranks") = py::none(),
          "Parses the text nccl-tests prints (all_reduce_perf, ...). op names the collective it measured; ranks "
          "overrides the count read from the header. Returns NcclTestsRun.");
    m.def("read_nccl_tests", [collective_choices](const std::string& path, const py::object& op,
                                                  std::optional<long long> ranks) {
              return io::read_nccl_tests(path, collective_choices.parse(op, "op"), ranks);
          }, py::arg("path"), py::arg("op") = "all-reduce", py::arg("ranks") = py::none(),
          "parse_nccl_tests on a file.");

    Struct<CalibrationFit>(m, "CalibrationFit", "α and B fitted to measured collectives.")
        .quantity("step_latency", &CalibrationFit::step_latency, Kind::seconds, "α")
        .quantity("bandwidth", &CalibrationFit::bandwidth, Kind::bytes_per_second, "B, the bus bandwidth per rank")
        .quantity("base_latency", &CalibrationFit::base_latency, Kind::seconds, "fitted, or the assumed one")
        .value("base_latency_fitted", &CalibrationFit::base_latency_fitted, "whether it was fitted")
        .value("relative_residuals", &CalibrationFit::relative_residuals, "(model − measured) ÷ measured per sample")
        .value("rms_relative_residual", &CalibrationFit::rms_relative_residual, "root mean square of them")
        .value("max_relative_residual", &CalibrationFit::max_relative_residual, "largest |residual|")
        .finish()
        .def("link", [](const CalibrationFit& f, const std::string& name) { return f.link(intern(name)); },
             py::arg("name") = "calibrated", "The fitted Link.");
    const auto fit = [](const std::vector<CollectiveSample>& samples, bool fit_base, double base) {
        return fit_alpha_beta(samples, CalibrationOptions{fit_base, seconds(base)});
    };
    m.def("fit_alpha_beta", fit, py::arg("samples"), py::arg("fit_base_latency") = false,
          py::arg("base_latency") = 0.0,
          "Least-squares α (s), B (bytes/s) and optionally a base latency (s) from samples (list of "
          "CollectiveSample). Returns CalibrationFit.");
    m.def("calibrate", [parse, fit, placement_choices](const std::string& text, const py::object& op,
                                                       std::optional<long long> ranks, const py::object& placement,
                                                       bool fit_base, double base) {
              const io::NcclTestsRun run = parse(text, op, ranks);
              return fit(io::samples(run, placement_choices.parse(placement, "placement")), fit_base, base);
          }, py::arg("text"), py::arg("op") = "all-reduce", py::arg("ranks") = py::none(),
          py::arg("placement") = "out-of-place", py::arg("fit_base_latency") = false, py::arg("base_latency") = 0.0,
          "fit_alpha_beta(parse_nccl_tests(text, op, ranks).samples(placement)): `napkin calibrate` on text.");
}

}  // namespace napkin::python
