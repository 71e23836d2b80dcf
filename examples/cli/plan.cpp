// napkin plan | plan-inference — the planners from the command line.
#include "command.hpp"
#include "common.hpp"
#include "layer_map_flags.hpp"
#include "progress.hpp"
#include "run_flags.hpp"
#include "serving_flags.hpp"
#include "training_flags.hpp"

#include <napkin/catalog/clusters.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/io/json_plans.hpp>
#include <napkin/planner.hpp>
#include <napkin/run_plan.hpp>
#include <napkin/validation/framework_choices.hpp>
#include <napkin/validation/measured_runs.hpp>
#include <napkin/validation/megatron_runs.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace napkin::cli {
namespace {

nlohmann::json search_json(long long evaluated, long long rejected, double seconds) {
    return {{"points_evaluated", evaluated},
            {"points_rejected", rejected},
            {"seconds", seconds},
            {"points_per_second", seconds > 0 ? static_cast<double>(evaluated) / seconds : 0.0}};
}

void print_inference_candidate(const char* what, const InferenceCandidate& c) {
    printf_wrapped("%-8s t%lld x p%lld = %lld GPUs, %lld token(s) in flight: %s per token (%s read + %s waiting), "
                "%.1f tokens/s in all, %s per GPU\n",
                what, c.split.tp, c.split.pp, c.split.gpus(), c.split.tokens_in_flight,
                to_string(c.time.total()).c_str(), to_string(c.time.read).c_str(),
                to_string(c.time.transfer).c_str(), c.tokens_per_second().value(),
                to_string(c.memory.total()).c_str());
}

// A comma-separated set of choices as bits: `bit_of(item)` is an item's bit, or none when it is not one
// of `choices`; `what` names one of them in the error for an empty set.
template <class BitOf>
unsigned parse_set(const char* flag, const std::string& text, const char* what, const char* choices, BitOf bit_of) {
    unsigned bits = 0;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const std::optional<unsigned> bit = bit_of(item);
        if (!bit)
            throw napkin::invalid_argument(std::string(flag) + " \"" + text + "\": \"" + item + "\" is not one of " +
                                           choices);
        bits |= *bit;
    }
    if (bits == 0) throw napkin::invalid_argument(std::string(flag) + " \"" + text + "\": give at least one " + what);
    return bits;
}

unsigned parse_schedules(const std::string& text) {
    return parse_set("--schedules", text, "schedule", "1f1b, interleaved, zb-h1, zb-h2, dualpipe, dualpipev, gpipe",
                     [](const std::string& item) -> std::optional<unsigned> {
                         const auto kind = parse_schedule_kind(item);
                         if (!kind || *kind == ScheduleKind::automatic) return std::nullopt;
                         return schedule_bit(*kind);
                     });
}

unsigned parse_gradient_dtypes(const std::string& text) {
    return parse_set("--grad-dtype", text, "format", "bf16, fp16, fp32, fp8",
                     [](const std::string& item) -> std::optional<unsigned> {
                         const auto d = parse_dtype(item);
                         if (!d || *d == DType::none) return std::nullopt;
                         return dtype_bit(*d);
                     });
}

unsigned parse_recomputes(const std::string& text) {
    return parse_set("--recomputes", text, "recomputation", "none, selective, full",
                     [](const std::string& item) -> std::optional<unsigned> {
                         const auto r = parse_recompute(item);
                         if (!r) return std::nullopt;
                         return recompute_bit(*r);
                     });
}

unsigned parse_zero_stages(const std::string& text) {
    return parse_set("--zero-stages", text, "stage", "0, 1, 2, 3",
                     [](const std::string& item) -> std::optional<unsigned> {
                         const auto z = parse_sharding(item);
                         if (!z || *z == Sharding::distributed) return std::nullopt;
                         return sharding_bit(*z);
                     });
}

nlohmann::json training_candidate_json(const TrainingCandidate& c, const Gpu& gpu) {
    return io::json::training_candidate(c, gpu);
}

// --wide: every column on one line (about 280 columns).
void print_training_candidate_wide(long long rank, const TrainingCandidate& c) {
    const Parallelism& p = c.point.parallelism;
    const StepBreakdown& b = c.estimate.breakdown;
    const TrainingOptions& o = c.point.options;
    std::printf("%4lld  t%-2lld p%-3lld d%-4lld c%-2lld e%-3lld v%-2lld b%-3lld %-9s %-3s %-3s %-10s %-11s %-4s %-11s %-3s %-3s %9s %10s "
                "%10.0f %6.1f%% %-3s  compute %s, recompute %s, tp %s, pp %s, bubble %s, dp %s, ep %s, cp %s, optimizer %s\n",
                rank, p.tp, p.pp, p.dp, p.cp, p.ep, p.virtual_stages, p.micro_batch, std::string(to_string(p.recompute)).c_str(),
                p.flash_attention ? "on" : "off", p.sequence_parallel ? "on" : "off",
                std::string(to_string(o.tp_communication)).c_str(), std::string(to_string(p.sharding)).c_str(),
                std::string(to_string(p.gradients)).c_str(), std::string(to_string(p.schedule)).c_str(),
                o.pipeline_scatter_gather ? "on" : "off", o.overlap_dp ? "on" : "off",
                to_string(c.estimate.step).c_str(), to_string(c.estimate.memory.total()).c_str(),
                c.estimate.tokens_per_second.value(), 100.0 * c.estimate.mfu, c.estimate.fits ? "yes" : "no",
                to_string(b.compute).c_str(),
                to_string(b.recompute).c_str(), to_string(b.tp).c_str(), to_string(b.pp).c_str(),
                to_string(b.bubble).c_str(), to_string(b.dp).c_str(), to_string(b.ep).c_str(), to_string(b.cp).c_str(),
                to_string(b.optimizer).c_str());
}

// The default: two lines of at most 80 columns per layout; "no" marks one that
// does not fit (--include-non-fitting).
void print_training_candidate(long long rank, const TrainingCandidate& c) {
    const Parallelism& p = c.point.parallelism;
    const TrainingOptions& o = c.point.options;
    char mfu[16];
    std::snprintf(mfu, sizeof mfu, "%.1f%%", 100.0 * c.estimate.mfu);
    std::printf("%4lld  t%-2lld p%-3lld d%-4lld c%-2lld e%-3lld v%-2lld b%-3lld %9s %10s %9s %6s%s\n", rank, p.tp, p.pp,
                p.dp, p.cp, p.ep, p.virtual_stages, p.micro_batch, to_string(c.estimate.step).c_str(),
                to_string(c.estimate.memory.total()).c_str(), grouped(c.estimate.tokens_per_second.value()).c_str(), mfu,
                c.estimate.fits ? "" : " no");
    std::printf("%s\n", wrap_line("      " + std::string(to_string(p.schedule)) + ", recompute " +
                                  std::string(to_string(p.recompute)) + ", flash " + (p.flash_attention ? "on" : "off") +
                                  ", sp " + (p.sequence_parallel ? "on" : "off") + ", tp-comm " +
                                  std::string(to_string(o.tp_communication)) + ", zero " +
                                  std::string(to_string(p.sharding)) + ", grad " + std::string(to_string(p.gradients)) +
                                  ", s/g " + (o.pipeline_scatter_gather ? "on" : "off") + ", overlap " +
                                  (o.overlap_dp ? "on" : "off")).c_str());
}

// --csv: one row per layout, numbers in base units (seconds, bytes, tokens/s).
void print_training_csv_header() {
    std::printf("list,rank,tp,pp,dp,cp,ep,vp,micro_batch,schedule,recompute,flash_attention,sequence_parallel,"
                "tp_communication,zero,grad_dtype,scatter_gather,overlap_dp,step_s,memory_bytes,fits,tokens_per_s,mfu,"
                "compute_s,recompute_s,tp_s,pp_s,bubble_s,dp_s,ep_s,cp_s,optimizer_s\n");
}

void print_training_csv(const char* list, long long rank, const TrainingCandidate& c) {
    const Parallelism& p = c.point.parallelism;
    const TrainingOptions& o = c.point.options;
    const StepBreakdown& b = c.estimate.breakdown;
    std::printf("%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s,%d,%d,%s,%s,%s,%d,%d,%.9g,%.0f,%d,%.9g,%.6g,"
                "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
                list, rank, p.tp, p.pp, p.dp, p.cp, p.ep, p.virtual_stages, p.micro_batch,
                std::string(to_string(p.schedule)).c_str(), std::string(to_string(p.recompute)).c_str(),
                p.flash_attention ? 1 : 0, p.sequence_parallel ? 1 : 0, std::string(to_string(o.tp_communication)).c_str(),
                std::string(to_string(p.sharding)).c_str(), std::string(to_string(p.gradients)).c_str(),
                o.pipeline_scatter_gather ? 1 : 0, o.overlap_dp ? 1 : 0, c.estimate.step.value(),
                c.estimate.memory.total().value(), c.estimate.fits ? 1 : 0, c.estimate.tokens_per_second.value(),
                c.estimate.mfu, b.compute.value(), b.recompute.value(), b.tp.value(), b.pp.value(), b.bubble.value(),
                b.dp.value(), b.ep.value(), b.cp.value(), b.optimizer.value());
}

// The published run of the catalog (Narayanan et al. Tables 1-2 and Sec. 5.1,
// validation/megatron_runs.hpp; the runs of validation/measured_runs.hpp) with the
// query's model shape, GPU, GPU count, global batch and sequence length.
std::optional<MeasuredRun> published_run_for(const TrainingPlanQuery& q) {
    const auto same_shape = [](const TransformerShape& a, const TransformerShape& b) {
        return a.layers == b.layers && a.hidden == b.hidden && a.ffn == b.ffn && a.heads == b.heads &&
               a.kv_heads == b.kv_heads && a.vocabulary == b.vocabulary && a.experts == b.experts &&
               a.feed_forward == b.feed_forward;
    };
    const auto matches = [&](const MeasuredRun& r) {
        return same_shape(r.model, q.model) && r.cluster.node.gpu.name == q.cluster.node.gpu.name &&
               gpus(r.layout) == gpus(q.cluster) && r.layout.global_batch == q.global_batch &&
               r.layout.sequence == q.sequence;
    };
    for (const catalog::MegatronRun& m : catalog::megatron_runs)
        if (const MeasuredRun r = catalog::measured_run_of(m); matches(r)) return r;
    for (const MeasuredRun& r : catalog::published_runs)
        if (matches(r)) return r;
    for (const MeasuredRun& r : catalog::nemo_runs)
        if (matches(r)) return r;
    return std::nullopt;
}

std::string layout_words(const Parallelism& p) {
    return "t" + std::to_string(p.tp) + " p" + std::to_string(p.pp) + " d" + std::to_string(p.dp) + " c" +
           std::to_string(p.cp) + " e" + std::to_string(p.ep) + " v" + std::to_string(p.virtual_stages) + " b" +
           std::to_string(p.micro_batch) + ", recompute " + std::string(to_string(p.recompute)) + ", zero " +
           std::string(to_string(p.sharding));
}

// A signed difference in a unit's own printing ("+1.2 s", "-350 ms").
std::string signed_seconds(Seconds d) {
    return (d < Seconds{} ? "-" : "+") + to_string(d < Seconds{} ? -d : d);
}
std::string signed_bytes(Bytes d) { return (d < Bytes{} ? "-" : "+") + to_string(d < Bytes{} ? -d : d); }

// --explain N: row N of the plan against the published layout, term by term.
void print_explanation(long long n, const TrainingCandidate& row, const MeasuredRun& run,
                       const TrainingEstimate& published, const StepRank& rank, const StepRank& among_framework) {
    const StepBreakdown& a = row.estimate.breakdown;
    const StepBreakdown& b = published.breakdown;
    const std::string name = "row " + std::to_string(n);
    printf_wrapped("\n%s against the published layout of %s (%s):\n", name.c_str(), std::string(run.label).c_str(),
                   std::string(run.source).c_str());
    std::printf("  %s: %s\n", name.c_str(), layout_words(row.point.parallelism).c_str());
    std::printf("  published: %s\n", layout_words(run.layout).c_str());
    std::printf("  %-24s %12s %12s %12s\n", "term", name.c_str(), "published", "difference");
    const auto line = [](const char* term, Seconds x, Seconds y) {
        std::printf("  %-24s %12s %12s %12s\n", term, to_string(x).c_str(), to_string(y).c_str(),
                    signed_seconds(x - y).c_str());
    };
    const auto exposed = [](const StepBreakdown& s) { return s.tp + s.pp + s.dp + s.ep + s.cp; };
    line("compute", a.compute, b.compute);
    line("recompute", a.recompute, b.recompute);
    line("bubble", a.bubble, b.bubble);
    line("exposed communication", exposed(a), exposed(b));
    line("  tensor parallel", a.tp, b.tp);
    line("  pipeline sends", a.pp, b.pp);
    line("  data parallel", a.dp, b.dp);
    line("  expert parallel", a.ep, b.ep);
    line("  context parallel", a.cp, b.cp);
    line("optimizer", a.optimizer, b.optimizer);
    line("step", row.estimate.step, published.step);
    std::printf("  %-24s %12s %12s %12s\n", "memory per GPU", to_string(row.estimate.memory.total()).c_str(),
                to_string(published.memory.total()).c_str(),
                signed_bytes(row.estimate.memory.total() - published.memory.total()).c_str());
    char mfu[3][32];
    std::snprintf(mfu[0], sizeof mfu[0], "%.1f%%", 100.0 * row.estimate.mfu);
    std::snprintf(mfu[1], sizeof mfu[1], "%.1f%%", 100.0 * published.mfu);
    std::snprintf(mfu[2], sizeof mfu[2], "%+.1f pt", 100.0 * (row.estimate.mfu - published.mfu));
    std::printf("  %-24s %12s %12s %12s\n", "MFU", mfu[0], mfu[1], mfu[2]);
    // The term that moves the step most, in the row's favour.
    const std::array<std::pair<const char*, Seconds>, 5> terms{
        {{"compute", b.compute - a.compute},
         {"recomputation", b.recompute - a.recompute},
         {"the pipeline bubble", b.bubble - a.bubble},
         {"exposed communication", exposed(b) - exposed(a)},
         {"the optimizer step", b.optimizer - a.optimizer}}};
    const auto most = std::max_element(terms.begin(), terms.end(),
                                       [](const auto& x, const auto& y) { return x.second < y.second; });
    if (row.estimate.step < published.step)
        printf_wrapped("  %s is %s faster; most of it from %s (%s)\n", name.c_str(),
                       to_string(published.step - row.estimate.step).c_str(), most->first,
                       to_string(most->second).c_str());
    else
        printf_wrapped("  %s is not faster than the published layout (%s slower)\n", name.c_str(),
                       to_string(row.estimate.step - published.step).c_str());
    const auto share = [](const StepRank& r) {
        char text[32];
        std::snprintf(text, sizeof text, "%.2f %%", 100.0 * r.share());
        return std::string(text);
    };
    printf_wrapped("  the published layout ranks %s of %s points (top %s)%s\n", grouped(rank.rank()).c_str(),
                   grouped(rank.ranked).c_str(), share(rank).c_str(),
                   published.fits ? "" : "; it does not fit as napkin counts memory");
    printf_wrapped("  among the choices of %s: %s of %s (top %s)\n", std::string(run.framework).c_str(),
                   grouped(among_framework.rank()).c_str(), grouped(among_framework.ranked).c_str(),
                   share(among_framework).c_str());
}

// --gpus: one count (1024), a list (512,1024,4096) or a range A-B: A, 2A, 4A, ... up to B.
std::vector<long long> parse_gpu_counts(const std::string& text) {
    const auto one = [&](const std::string& item) {
        long long n = 0;
        const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), n);
        if (error != std::errc{} || end != item.data() + item.size())
            throw napkin::invalid_argument("--gpus = \"" + text + "\": not a whole number, a list (512,1024) or a "
                                           "range (512-16384)");
        require_at_least_one("--gpus", n);
        require(n <= limits::gpus, "--gpus", count(n), "must be at most 2^40");
        return n;
    };
    std::vector<long long> counts;
    if (const auto dash = text.find('-'); dash != std::string::npos && dash > 0) {
        const long long low = one(text.substr(0, dash)), high = one(text.substr(dash + 1));
        if (high < low) throw napkin::invalid_argument("--gpus = \"" + text + "\": the range must not fall");
        for (long long n = low; n <= high; n *= 2) counts.push_back(n);
        return counts;
    }
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) counts.push_back(one(item));
    if (counts.empty()) throw napkin::invalid_argument("--gpus = \"" + text + "\": give at least one count");
    return counts;
}

// A plan row's run, on one line: "      16,384 GPUs: 61.3 days, $60.21M, 18,894 MWh, goodput 85.0%".
std::string run_row_line(const RunCandidate& c, const RunQuery& q) {
    std::string line = "      " + grouped(c.gpus) + " GPUs: " + duration_words(c.run.wall);
    if (q.usd_per_gpu_hour > 0) line += ", " + dollars(c.run.cost_usd);
    if (q.power_per_gpu.value() > 0) line += ", " + grouped(in(c.run.energy, units::MWh)) + " MWh";
    if (c.run.failures_modelled) line += ", goodput " + format_fixed(100.0 * c.run.goodput, 1) + "%";
    return line;
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        ModelOptions model;
        GpuOptions gpu;
        std::string gpus_text;
        long long gpus = 0, pp = 0;
        NodeOptions node;
        long long global_batch = 0;
        long long sequence = 2048;
        long long top = 10;
        long long explain = 0;
        long long max_tp = 0, max_cp = 1, max_ep = 0, max_pp = 0;
        LayerMapOptions uneven;
        long long vp = 1;
        std::string schedules = "1f1b,interleaved,zb-h1,zb-h2,dualpipe,dualpipev,gpipe";
        bool include_non_fitting = false;
        bool no_flash_attention = false;
        std::string recomputes = "none,selective,full";
        std::string zero_stages = "0,1,2,3";
        bool no_sequence_parallel = false;
        bool no_overlap_dp = false;
        std::string grads = "bf16,fp32";
        unsigned threads = 0;
        bool pareto = false;
        bool json = false, wide = false, csv = false;
        FrameworkFlags framework;
        RunFlags run;
        std::string objective = "time";
        std::optional<std::string> deadline;
    };
    auto o = make_options<Options>();
    o->gpu.name = "a100-80gb-sxm";
    auto* sub = app.add_subcommand("plan", "search every training layout of a model on a cluster: the fastest that "
                                           "fit, the memory/time Pareto front, the search statistics");
    add_model_options(sub, o->model);
    add_gpu_options(sub, o->gpu);
    sub->add_option("--gpus", o->gpus_text,
                    "GPUs to train on (whole nodes): 1024, a list 512,1024, or a range 512-16384 (doubling; with "
                    "--train-tokens or --steps)")
        ->required();
    add_node_options(sub, o->node, "catalog link of one NIC between nodes, one NIC per GPU (default: the GPU's usual one)");
    sub->add_option("--global-batch", o->global_batch, "sequences per optimizer step")->required();
    sub->add_option("--seq-len", o->sequence,
                    "tokens per sequence (the model's context up to 8192; 2048 when its config states none)");
    sub->add_option("--top", o->top, "how many of the fastest layouts to show (10)");
    sub->add_option("--explain", o->explain,
                    "row N against the published layout of the catalog for this model, GPU count and batch: "
                    "compute, bubble, exposed communication, memory, and where the published layout ranks");
    sub->add_option("--max-tp", o->max_tp, "largest tensor-parallel size to consider (no limit)");
    sub->add_option("--max-cp", o->max_cp,
                    "largest context-parallel size to consider: sizes dividing --seq-len (1: no context parallelism)");
    sub->add_option("--max-ep", o->max_ep,
                    "largest expert-parallel size to consider for a mixture of experts (no limit; 1: none)");
    sub->add_option("--max-pp", o->max_pp, "most pipeline stages to consider (no limit)");
    add_layer_map_flags(sub, o->uneven, "; fixes pp to its stages and the virtual stages to its chunks",
                        "; with --pp, --vp");
    sub->add_option("--pp", o->pp, "with --first-stage-layers/--last-stage-layers: the pipeline stages");
    sub->add_option("--vp", o->vp, "with --first-stage-layers/--last-stage-layers: chunks per stage (1)");
    sub->add_option("--schedules", o->schedules, "pipeline schedules to consider: 1f1b,interleaved,zb-h1,zb-h2,dualpipe,dualpipev,gpipe (all)");
    sub->add_flag("--include-non-fitting", o->include_non_fitting, "rank layouts that do not fit in memory too");
    sub->add_flag("--no-flash-attention", o->no_flash_attention,
                  "the kernels have no fused attention: search without it only");
    sub->add_option("--grad-dtype", o->grads, "gradient formats to search: bf16,fp32 (both)");
    sub->add_option("--recomputes", o->recomputes,
                    "activation recomputations to search: none,selective,full (all; a framework's own set to rank "
                    "its published run among what it could run)");
    sub->add_option("--zero-stages", o->zero_stages, "ZeRO stages to search: 0,1,2,3 (all)");
    sub->add_flag("--no-sequence-parallel", o->no_sequence_parallel,
                  "the framework has no sequence parallelism: search tensor parallelism without it only");
    sub->add_flag("--no-overlap-dp", o->no_overlap_dp,
                  "the framework reduces gradients after the backward: search without the overlap only");
    sub->add_option("--threads", o->threads, "worker threads (every core)");
    sub->add_flag("--pareto", o->pareto, "also print the memory/time Pareto front, ranked by memory");
    add_framework_flags(sub, o->framework);
    add_run_flags(sub, o->run);
    sub->add_option("--objective", o->objective,
                    "rank the runs by time, cost, energy or goodput (time: the step's order)");
    sub->add_option("--deadline", o->deadline, "keep the runs that end by then, 90d (with --train-tokens or --steps)");
    add_json_flag(sub, o->json);
    sub->add_flag("--wide", o->wide, "one line per layout with every column and the step's parts");
    sub->add_flag("--csv", o->csv, "the layouts as CSV (seconds, bytes), the Pareto front after with --pareto");
    sub->callback([o, sub] {
        checked_threads(o->threads);
        const TransformerShape model = resolve_model(o->model);
        if (sub->count("--seq-len") == 0) o->sequence = default_sequence(model);
        const std::vector<long long> counts = parse_gpu_counts(o->gpus_text);
        o->gpus = counts.front();
        const std::optional<RunObjective> objective = parse_run_objective(o->objective);
        if (!objective)
            throw napkin::invalid_argument("--objective \"" + o->objective + "\": must be time, cost, energy or goodput");
        const std::string runs_only = ": ranks whole runs: give --train-tokens or --steps";
        if (!run_requested(o->run) && counts.size() > 1)
            throw napkin::invalid_argument("--gpus \"" + o->gpus_text + "\"" + runs_only);
        if (!run_requested(o->run) && *objective != RunObjective::time)
            throw napkin::invalid_argument("--objective \"" + o->objective + "\"" + runs_only);
        if (!run_requested(o->run) && o->deadline)
            throw napkin::invalid_argument("--deadline \"" + *o->deadline + "\"" + runs_only);
        if (counts.size() > 1 && (o->explain > 0 || o->csv || o->wide))
            throw napkin::invalid_argument("--gpus \"" + o->gpus_text + "\": a range prints runs; give one count with "
                                           "--explain, --csv or --wide");
        const Seconds deadline = time_flag("--deadline", o->deadline, true);
        require_at_least_one("--gpus-per-node", o->node.gpus_per_node);
        require_at_least_one("--global-batch", o->global_batch);
        require_at_least_one("--seq-len", o->sequence);
        require_non_negative("--top", count(o->top));
        require_non_negative("--explain", count(o->explain));
        if (o->explain > 0 && (o->json || o->csv))
            reject("--explain", count(o->explain), "prints text: give it without --json and --csv");
        require_non_negative("--max-tp", count(o->max_tp));
        require_at_least_one("--max-cp", o->max_cp);
        require_non_negative("--max-ep", count(o->max_ep));
        const long long per_node = gpus_in_each_node("--gpus", o->gpus, o->node);
        const Node node = resolve_node(o->gpu, o->node, per_node, Nic::per_gpu);
        const std::optional<std::string> assumed = gpu_assumed_from(*sub, o->gpu);
        TrainingPlanQuery query{.model = model, .cluster = cluster_of(node, o->gpus / per_node),
                                .global_batch = o->global_batch, .sequence = o->sequence, .max_tp = o->max_tp,
                                .max_cp = o->max_cp, .max_ep = o->max_ep,
                                .must_fit = !o->include_non_fitting, .schedules = parse_schedules(o->schedules),
                                .top_k = o->top, .threads = o->threads};
        query.flash_attention = !o->no_flash_attention;
        apply_framework_flags(o->framework, node.gpu, query.options);
        query.gradient_dtypes = parse_gradient_dtypes(o->grads);
        query.recomputes = parse_recomputes(o->recomputes);
        query.shardings = parse_zero_stages(o->zero_stages);
        query.sequence_parallel = !o->no_sequence_parallel;
        query.overlap_dp = !o->no_overlap_dp;
        require_non_negative("--max-pp", count(o->max_pp));
        query.max_pp = o->max_pp;
        // An uneven pipeline fixes pp and the chunks (the map outlives the plan below).
        const bool shorthand = layer_map_shorthand_given(*sub);
        if (shorthand && o->uneven.layer_map.empty()) {
            if (sub->count("--pp") == 0)
                throw napkin::invalid_argument("--first-stage-layers/--last-stage-layers need --pp");
            require_at_least_one("--pp", o->pp);
            require_at_least_one("--vp", o->vp);
        } else if (!shorthand && sub->count("--pp") + sub->count("--vp") > 0) {
            throw napkin::invalid_argument("--pp and --vp go with --first-stage-layers/--last-stage-layers");
        }
        // A --layer-map has the stages and chunks it writes; the shorthand those of --pp and --vp.
        const std::optional<LayerMap> map = resolve_layer_map(*sub, o->uneven, model.layers, shorthand ? o->pp : 0,
                                                              shorthand ? o->vp : 0, "--vp");
        if (map) query.layer_map = &*map;
        std::optional<MeasuredRun> published;
        if (o->explain > 0) {
            published = published_run_for(query);
            if (!published)
                reject("--explain", count(o->explain),
                       "needs a published run of this model on this GPU, GPU count, --global-batch and --seq-len in "
                       "the catalog (Narayanan et al. 2021, llm-foundry, Megatron-LM README)");
            query.top_k = std::max(query.top_k, o->explain);
        }

        const auto start = std::chrono::steady_clock::now();
        TrainingPlan plan;
        {
            ProgressBar bar("planning");
            plan = plan_training(query, [&bar](long long done, long long total) { bar.report(done, total); });
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

        if (run_requested(o->run)) {
            // Whole runs: every count's fastest layouts, priced, ranked by the objective.
            const double steps = run_steps(o->run, tokens(count(o->global_batch) * count(o->sequence)));
            const Bytes checkpoint = checkpoint_bytes(model, Parallelism{});  // bf16 weights, fp32 master and moments
            std::vector<RunCandidate> runs;
            nlohmann::json searches = nlohmann::json::array();
            RunQuery run_query;
            const auto add_runs = [&](long long n, const TrainingPlan& p, const Gpu& gpu, double s) {
                run_query = run_query_from_flags(o->run, gpu, n, checkpoint);
                for (const TrainingCandidate& c : p.top) runs.push_back({n, c, run_of(o->run, run_query, steps, c.estimate.step)});
                nlohmann::json j = search_json(p.points_evaluated, p.rejected.total(), s);
                j["gpus"] = n;
                searches.push_back(j);
            };
            add_runs(o->gpus, plan, node.gpu, seconds);
            for (std::size_t i = 1; i < counts.size(); ++i) {
                TrainingPlanQuery q = query;
                const long long each = gpus_in_each_node("--gpus", counts[i], o->node);
                q.cluster = cluster_of(resolve_node(o->gpu, o->node, each, Nic::per_gpu), counts[i] / each);
                const auto t0 = std::chrono::steady_clock::now();
                TrainingPlan p;
                {
                    ProgressBar bar("planning " + grouped(counts[i]) + " GPUs");
                    p = plan_training(q, [&bar](long long done, long long total) { bar.report(done, total); });
                }
                add_runs(counts[i], p, q.cluster.node.gpu,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
            if (*objective == RunObjective::cost && run_query.usd_per_gpu_hour <= 0)
                throw napkin::invalid_argument("--objective cost needs --gpu-hour-price");
            if (*objective == RunObjective::energy && run_query.power_per_gpu.value() <= 0)
                throw napkin::invalid_argument("--objective energy needs --power (the GPU has no board power)");
            if (*objective == RunObjective::goodput && !o->run.mtbf)
                throw napkin::invalid_argument("--objective goodput needs --mtbf");
            const std::size_t all = runs.size();
            rank_runs(runs, *objective);
            runs = within_deadline(std::move(runs), deadline);
            const std::vector<RunCandidate> front = time_cost_front(runs);
            std::vector<RunCandidate> by_time = runs, by_cost = runs;
            rank_runs(by_time, RunObjective::time);
            rank_runs(by_cost, RunObjective::cost);
            if (runs.size() > static_cast<std::size_t>(o->top)) runs.resize(static_cast<std::size_t>(o->top));
            const auto row_json = [&](const RunCandidate& c) {
                nlohmann::json j = training_candidate_json(c.layout, node.gpu);
                j["gpus"] = c.gpus;
                j["run"] = io::json::run(c.run, run_query, steps);
                return j;
            };
            if (o->json) {
                nlohmann::json top = nlohmann::json::array(), pareto = nlohmann::json::array();
                for (std::size_t i = 0; i < runs.size(); ++i) {
                    top.push_back(row_json(runs[i]));
                    top.back()["rank"] = i + 1;
                }
                for (std::size_t i = 0; i < front.size(); ++i) {
                    pareto.push_back(row_json(front[i]));
                    pareto.back()["rank"] = i + 1;
                }
                nlohmann::json j{{"schema", "napkin.plan/1"},
                                 {"model", model.name},
                                 {"intra_link", link_json(node.intra)},
                                 {"inter_link", link_json(node.inter)},
                                 {"gpu", node.gpu.name},
                                 {"gpus", o->gpus},
                                 {"gpu_counts", counts},
                                 {"global_batch", o->global_batch},
                                 {"seq_len", o->sequence},
                                 {"objective", to_string(*objective)},
                                 {"deadline_s", nullptr},
                                 {"runs", all},
                                 {"runs_by_deadline", by_time.size()},
                                 {"top", top},
                                 {"fastest", nullptr},
                                 {"cheapest", nullptr},
                                 {"time_cost_pareto", pareto},
                                 {"searches", searches}};
                if (deadline.value() > 0) j["deadline_s"] = deadline.value();
                if (!by_time.empty()) j["fastest"] = row_json(by_time.front());
                if (!by_cost.empty() && run_query.usd_per_gpu_hour > 0) j["cheapest"] = row_json(by_cost.front());
                if (assumed) j["gpu_assumed_from"] = *assumed;
                return print_json(j);
            }
            printf_wrapped("%s on %s x %s, batch %s x %s tokens, %s steps\n", std::string(model.name).c_str(),
                           o->gpus_text.c_str(), std::string(node.gpu.name).c_str(), grouped(o->global_batch).c_str(),
                           grouped(o->sequence).c_str(), grouped(steps).c_str());
            std::printf("%s\n", wrap_line(links_line(o->gpu, o->node, node)).c_str());
            if (assumed) std::printf("%s\n", wrap_line(gpu_assumed_line(*assumed, node.gpu, o->gpu)).c_str());
            for (const auto& x : searches)
                std::printf("%s\n", wrap_line("search on " + grouped(x["gpus"].get<long long>()) + " GPUs: " +
                                              grouped(x["points_evaluated"].get<long long>()) + " points evaluated, " +
                                              format_fixed(x["seconds"].get<double>(), 2) + " s").c_str());
            std::string ranked = "runs ranked by " + std::string(to_string(*objective));
            if (deadline.value() > 0)
                ranked += "; " + grouped(static_cast<long long>(by_time.size())) + " of " +
                          grouped(static_cast<long long>(all)) + " end within " + duration_words(deadline);
            std::printf("%s\n", wrap_line(ranked).c_str());
            if (runs.empty()) {
                std::printf("no layout fits%s\n", deadline.value() > 0 ? " and ends by the deadline" : "");
                return;
            }
            std::printf("\n%4s  %-32s %9s %10s %9s %6s\n", "rank", "layout (t p d c e v b)", "step", "memory",
                        "tokens/s", "MFU");
            for (std::size_t i = 0; i < runs.size(); ++i) {
                print_training_candidate(static_cast<long long>(i) + 1, runs[i].layout);
                std::printf("%s\n", wrap_line(run_row_line(runs[i], run_query)).c_str());
            }
            const auto best = [&](const char* what, const RunCandidate& c) {
                std::printf("%s\n", wrap_line(std::string(what) + ": " + grouped(c.gpus) + " GPUs, " +
                                              layout_words(c.layout.point.parallelism) + "; " +
                                              run_line(c.run, run_query)).c_str());
            };
            std::printf("\n");
            best("fastest", by_time.front());
            if (run_query.usd_per_gpu_hour > 0) best("cheapest", by_cost.front());
            if (by_time.front().run.failures_modelled)
                std::printf("%s\n", wrap_line(checkpoint_line(by_time.front().run)).c_str());
            if (o->pareto && run_query.usd_per_gpu_hour > 0) {
                std::printf("\nPareto front (time vs cost), fastest first:\n");
                for (const RunCandidate& c : front)
                    std::printf("%s\n", wrap_line(run_row_line(c, run_query) + " (" +
                                                  layout_words(c.layout.point.parallelism) + ")").c_str());
            }
            return;
        }

        if (o->json) {
            nlohmann::json top = nlohmann::json::array(), front = nlohmann::json::array();
            for (const auto& c : plan.top) top.push_back(training_candidate_json(c, node.gpu));
            for (const auto& c : plan.pareto) front.push_back(training_candidate_json(c, node.gpu));
            nlohmann::json search = search_json(plan.points_evaluated, plan.rejected.total(), seconds);
            search["points"] = plan.points;
            search["points_pruned"] = plan.points_pruned();
            search["pruned"] = {{"memory", plan.points_pruned_memory}, {"dominated", plan.points_pruned_dominated}};
            search["points_fitting"] = plan.points_fitting;
            search["rejected"] = {{"memory", plan.rejected.memory},     {"schedule", plan.rejected.schedule},
                                  {"gpus", plan.rejected.gpus},         {"batch", plan.rejected.batch},
                                  {"max_tp", plan.rejected.max_tp}};
            // The counts that add up: every point of the space is evaluated, pruned
            // unevaluated, or one the schedule cannot run; layouts are skipped before
            // the space is built.
            search["accounting"] = {
                {"points", plan.points},
                {"evaluated", plan.points_evaluated},
                {"pruned_memory_bound", plan.points_pruned_memory},
                {"pruned_dominated", plan.points_pruned_dominated},
                {"rejected_schedule", plan.rejected.schedule},
                {"sum", plan.points_evaluated + plan.points_pruned() + plan.rejected.schedule},
                {"evaluated_fitting", plan.points_fitting},
                {"evaluated_not_fitting", plan.points_evaluated - plan.points_fitting},
                {"layouts_skipped", {{"gpus", plan.rejected.gpus}, {"batch", plan.rejected.batch},
                                     {"max_tp", plan.rejected.max_tp}}},
                {"meaning",
                 {{"points", "layouts × choices in the space: points = evaluated + pruned_memory_bound + "
                             "pruned_dominated + rejected_schedule"},
                  {"evaluated", "points whose step time and memory were computed"},
                  {"pruned_memory_bound", "points a memory lower bound showed cannot fit, not evaluated"},
                  {"pruned_dominated", "points no faster and no smaller than an evaluated one, not evaluated"},
                  {"rejected_schedule", "points whose pipeline schedule cannot run the micro-batch count"},
                  {"layouts_skipped", "tp x pp x cp x dp layouts dropped before the space: the GPU count, "
                                      "the global batch or --max-tp rules them out (not points)"}}}};
            for (std::size_t i = 0; i < top.size(); ++i) top[i]["rank"] = i + 1;
            for (std::size_t i = 0; i < front.size(); ++i) front[i]["rank"] = i + 1;
            nlohmann::json j{{"schema", "napkin.plan/1"},
                             {"model", model.name},
                             {"intra_link", link_json(node.intra)},
                             {"inter_link", link_json(node.inter)},
                             {"gpu", node.gpu.name},
                             {"gpus", o->gpus},
                             {"nodes", query.cluster.nodes},
                             {"global_batch", o->global_batch},
                             {"seq_len", o->sequence},
                             {"top", top},
                             {"pareto", front},
                             {"search", search}};
            if (assumed) j["gpu_assumed_from"] = *assumed;
            return print_json(j);
        }
        if (o->csv) {
            print_training_csv_header();
            for (std::size_t i = 0; i < plan.top.size(); ++i)
                print_training_csv("top", static_cast<long long>(i) + 1, plan.top[i]);
            if (o->pareto)
                for (std::size_t i = 0; i < plan.pareto.size(); ++i)
                    print_training_csv("pareto", static_cast<long long>(i) + 1, plan.pareto[i]);
            return;
        }
        printf_wrapped("%s on %s x %s (%s nodes of %lld), batch %s x %s tokens\n", std::string(model.name).c_str(),
                    grouped(o->gpus).c_str(), std::string(node.gpu.name).c_str(), grouped(query.cluster.nodes).c_str(),
                    per_node, grouped(o->global_batch).c_str(), grouped(o->sequence).c_str());
        std::printf("%s\n", wrap_line(links_line(o->gpu, o->node, node)).c_str());
        if (assumed) std::printf("%s\n", wrap_line(gpu_assumed_line(*assumed, node.gpu, o->gpu)).c_str());
        // points = evaluated + pruned + schedule-rejected; skipped layouts are not points.
        std::printf("%s\n", wrap_line("search: " + grouped(plan.points) + " points = " + grouped(plan.points_evaluated) +
                                      " evaluated (" + grouped(plan.points_fitting) + " fit) + " +
                                      grouped(plan.points_pruned()) + " pruned (dominated " +
                                      grouped(plan.points_pruned_dominated) + ", memory bound " +
                                      grouped(plan.points_pruned_memory) + ") + " + grouped(plan.rejected.schedule) +
                                      " the schedule cannot run; layouts skipped: gpus " + grouped(plan.rejected.gpus) +
                                      ", batch " + grouped(plan.rejected.batch) + ", max-tp " +
                                      grouped(plan.rejected.max_tp) + "; " + format_fixed(seconds, 2) + " s").c_str());
        if (plan.top.empty()) {
            std::printf("no layout fits\n");
            return;
        }
        const auto header = [&] {
            if (o->wide)
                std::printf("\n%4s  %-3s %-4s %-5s %-3s %-4s %-3s %-4s %-9s %-3s %-3s %-10s %-11s %-4s %-11s %-3s %-3s %9s "
                            "%10s %10s %7s %-3s\n",
                            "rank", "tp", "pp", "dp", "cp", "ep", "vp", "mb", "recompute", "fa", "sp", "tp-comm", "zero",
                            "grad", "schedule", "s/g", "ovl", "step", "memory", "tokens/s", "MFU", "fits");
            else
                std::printf("\n%4s  %-32s %9s %10s %9s %6s\n", "rank", "layout (t p d c e v b)", "step", "memory",
                            "tokens/s", "MFU");
        };
        const auto row = [&](long long rank, const TrainingCandidate& c) {
            if (o->wide) print_training_candidate_wide(rank, c);
            else print_training_candidate(rank, c);
        };
        header();
        for (std::size_t i = 0; i < std::min(plan.top.size(), static_cast<std::size_t>(o->top)); ++i)
            row(static_cast<long long>(i) + 1, plan.top[i]);
        if (published) {
            if (o->explain > static_cast<long long>(plan.top.size()))
                reject("--explain", count(o->explain),
                       "is beyond the " + std::to_string(plan.top.size()) + " layouts that fit");
            const TrainingEstimate e =
                evaluate_training(query.model, query.cluster, published->layout, published->options);
            TrainingPlanQuery framework = framework_query(*published);
            framework.options.profile = query.options.profile;
            print_explanation(o->explain, plan.top[static_cast<std::size_t>(o->explain - 1)], *published, e,
                              rank_of_step(query, e.step), rank_of_step(framework, e.step));
        }
        if (o->pareto) {
            std::printf("\nPareto front (memory per GPU vs step time), least memory first:\n");
            header();
            for (std::size_t i = 0; i < plan.pareto.size(); ++i) row(static_cast<long long>(i) + 1, plan.pareto[i]);
        }
    });
}

namespace {
// The serving engine of plan-inference: runs when --tpot, --ttft, --arrival-rate
// or --objective cost is given.
template <class Options>
bool serving_engine_wanted(const Options& o) {
    return o.targets.any() || o.arrival_rate || o.objective == "cost";
}

template <class Options>
std::pair<ServingPlanQuery, ServingSetup> serving_query_from_flags(const Options& o, const TransformerShape& model,
                                                                   const Gpu& gpu) {
    ServingPlanQuery query{.max_gpus = o.max_gpus, .max_concurrency = o.max_tokens,
                           .input_tokens = o.input_tokens, .output_tokens = o.output_tokens};
    if (o.targets.tpot_ms) query.tpot_bound = milliseconds(*o.targets.tpot_ms);
    if (o.targets.ttft_ms) query.ttft_bound = milliseconds(*o.targets.ttft_ms);
    require_at_least_one("--input-tokens", o.input_tokens);
    require_at_least_one("--output-tokens", o.output_tokens);
    require_at_least_one("--max-gpus", o.max_gpus);
    require_at_least_one("--max-tokens", o.max_tokens);
    if (model.max_position_embeddings > 0 && o.input_tokens + o.output_tokens > model.max_position_embeddings)
        reject("--input-tokens + --output-tokens", count(o.input_tokens + o.output_tokens),
               "exceeds the model's max_position_embeddings = " + std::to_string(model.max_position_embeddings));
    ServingSetup setup;
    apply_serving_formats(setup, o.weight_dtype, o.kv_dtype, gpu);
    apply_expert_skew(setup, o.expert_skew, model);
    apply_decode_attention(setup, o.decode_attention);
    setup.pipeline_micro_batches = resolve_micro_batches(o.micro_batches, 0);  // each layout caps it at its pp
    return {query, setup};
}

// io::json::serving_plan and the cost of a token at full load, when asked for.
template <class Options>
nlohmann::json serving_plan_json(const ServingPlan& plan, const ServingPlanQuery& q, const Options& o,
                                 const Watts& power) {
    nlohmann::json j = io::json::serving_plan(plan, q);
    if (plan.best) add_token_cost_json(j["best"], token_cost(*plan.best, o.price, power));
    return j;
}

// The fleet for --arrival-rate: r replicas of the best layout, at the traffic they serve.
template <class Options>
TokenCost fleet_cost(const ServingFleet& f, const Options& o, const Watts& power) {
    const double rate = *o.arrival_rate;
    return token_cost(f.gpus(), tokens_per_second(rate * count(o.output_tokens)),
                      tokens_per_second(rate * count(o.input_tokens)), o.price, power);
}

template <class Options>
nlohmann::json serving_fleet_json(const ServingFleetPlan& plan, const Options& o, const Watts& power) {
    nlohmann::json j{{"arrival_rate", *o.arrival_rate},
                     {"tpot_bound_s", nullptr},
                     {"ttft_bound_s", nullptr},
                     {"input_tokens", o.input_tokens},
                     {"output_tokens", o.output_tokens},
                     {"best", nullptr},
                     {"search",
                      {{"points_evaluated", plan.points_evaluated},
                       {"rejected", {{"memory", plan.rejected_memory}, {"latency", plan.rejected_latency}}}}}};
    if (o.targets.tpot_ms) j["tpot_bound_s"] = *o.targets.tpot_ms / 1e3;
    if (o.targets.ttft_ms) j["ttft_bound_s"] = *o.targets.ttft_ms / 1e3;
    if (plan.best) {
        const ServingFleet& f = *plan.best;
        const ServingEstimate& e = f.replica;
        j["best"] = {{"replicas", f.replicas},
                     {"tp", e.layout.tp},
                     {"pp", e.layout.pp},
                     {"ep", e.layout.ep},
                     {"gpus_per_replica", e.layout.gpus()},
                     {"gpus", f.gpus()},
                     {"concurrency", e.workload.concurrency},
                     {"load", f.load},
                     {"queue_s", e.queue.value()},
                     {"ttft_s", e.ttft.value()},
                     {"tpot_s", e.tpot.value()},
                     {"e2e_s", e.e2e.value()},
                     {"usd_per_hour", nullptr}};
        if (o.price) j["best"]["usd_per_hour"] = count(f.gpus()) * *o.price;
        add_token_cost_json(j["best"], fleet_cost(f, o, power));
    }
    return j;
}

// The cost line under a serving answer, when a price or a power was asked for.
void print_token_cost(const TokenCost& c, const char* at) {
    if (c.usd_per_million_output)
        printf_wrapped("  cost: $%.3f per million output tokens ($%.3f per million input tokens) %s\n",
                       *c.usd_per_million_output, *c.usd_per_million_input, at);
    if (c.joules_per_output) printf_wrapped("  energy: %.3f J per output token %s\n", *c.joules_per_output, at);
}

template <class Options>
void print_serving_plan(const ServingPlan& plan, const Options& o, const Watts& power) {
    if (!plan.best) {
        printf_wrapped("serving: no layout and concurrency meets the bounds (%lld points evaluated)\n",
                    plan.points_evaluated);
        return;
    }
    const ServingEstimate& e = *plan.best;
    printf_wrapped("serving: t%lld x p%lld x e%lld = %lld GPUs at concurrency %lld: %.1f output tokens/s per GPU "
                "(%.1f in all), TPOT %s, TTFT %s (%lld points evaluated, %lld pruned)\n",
                e.layout.tp, e.layout.pp, e.layout.ep, e.layout.gpus(), e.workload.concurrency,
                e.output_tokens_per_s_per_gpu.value(), e.output_tokens_per_s.value(), to_string(e.tpot).c_str(),
                to_string(e.ttft).c_str(), plan.points_evaluated, plan.pruned);
    if (o.price || o.power) print_token_cost(token_cost(e, o.price, power), "at full load");
}

template <class Options>
void print_serving_fleet(const ServingFleetPlan& plan, const Options& o, const Watts& power) {
    if (!plan.best) {
        printf_wrapped("serving %g requests/s: no layout and concurrency meets the bounds (%lld points evaluated)\n",
                       *o.arrival_rate, plan.points_evaluated);
        return;
    }
    const ServingFleet& f = *plan.best;
    const ServingEstimate& e = f.replica;
    printf_wrapped("serving %g requests/s: %lld x (t%lld x p%lld x e%lld) = %lld GPUs at concurrency %lld, each "
                   "replica %.1f %% loaded: TTFT %s (%s queued), TPOT %s (%lld points evaluated)\n",
                   *o.arrival_rate, f.replicas, e.layout.tp, e.layout.pp, e.layout.ep, f.gpus(),
                   e.workload.concurrency, 100.0 * f.load, to_string(e.ttft).c_str(), to_string(e.queue).c_str(),
                   to_string(e.tpot).c_str(), plan.points_evaluated);
    if (o.price) printf_wrapped("  $%.2f per hour for %lld GPUs\n", count(f.gpus()) * *o.price, f.gpus());
    if (o.price || o.power) print_token_cost(fleet_cost(f, o, power), "at that traffic");
}

}  // namespace

NAPKIN_COMMAND(app) {
    struct Options {
        ModelOptions model;
        GpuOptions gpu;
        LinkOptions link;
        NodeOptions node;
        SetupOptions setup;
        long long max_gpus = 64;
        long long max_tokens = 1024;
        std::optional<double> latency_ms;
        std::string objective;
        // With its unit (--latency 20ms), read into latency_ms.
        std::optional<std::string> latency;
        LatencyTargets targets;  // the serving engine's --ttft and --tpot
        long long input_tokens = 1024, output_tokens = 256;
        std::string weight_dtype = "bf16", kv_dtype = "bf16";
        double expert_skew = 0.0;
        std::string decode_attention = "grouped";
        std::string micro_batches = "stages";  // --pipeline-micro-batches
        std::optional<double> arrival_rate, price;
        std::optional<std::string> power;
        bool json = false;
    };
    auto o = make_options<Options>();
    auto* sub = app.add_subcommand(
        "plan-inference", "the fewest GPUs, and the tensor x pipeline split and tokens in flight that give the "
                          "lowest time per token (or the most tokens/s under --latency-ms)");
    add_model_options(sub, o->model);
    add_gpu_options(sub, o->gpu);
    add_link_options(sub, o->link);
    add_node_options(sub, o->node,
                     "serving engine: catalog link of one NIC between nodes of --gpus-per-node GPUs, for layouts "
                     "that span nodes (default: the GPU's usual one; give --link for one link everywhere)");
    describe_serving_node_size(sub);
    add_setup_options(sub, o->setup);
    sub->add_option("--max-gpus", o->max_gpus, "largest tp x pp to try (64)");
    sub->add_option("--max-tokens", o->max_tokens, "most tokens in flight (chats served together) to try (1024)");
    add_time_flag(sub, "--latency", o->latency, o->latency_ms,
                  "longest time per token a user may wait, with its unit (20ms); the plan then maximises tokens/s");
    sub->add_option("--objective", o->objective,
                    "latency or throughput (default: latency, throughput when --latency-ms is given); cost: the "
                    "serving engine's cheapest answer (needs --gpu-hour-price)");
    add_latency_targets(sub, o->targets, "serving engine: longest time to first token with its unit (2s)",
                        "serving engine: longest time per output token with its unit (50ms); plans the layout "
                        "and concurrency with the most output tokens/s per GPU");
    sub->add_option("--input-tokens", o->input_tokens, "serving engine: prompt tokens per request (1024)");
    sub->add_option("--output-tokens", o->output_tokens, "serving engine: generated tokens per request (256)");
    sub->add_option("--weight-dtype", o->weight_dtype, "serving engine: " + names_of(weight_dtype_names) + " (bf16)");
    sub->add_option("--kv-dtype", o->kv_dtype, "serving engine: " + names_of(kv_dtype_names) + " (bf16)");
    add_expert_skew_flag(sub, o->expert_skew);
    add_decode_attention_flag(sub, o->decode_attention);
    add_micro_batches_flag(sub, o->micro_batches);
    sub->add_option("--arrival-rate", o->arrival_rate,
                    "serving engine: requests/s of Poisson traffic to serve; plans the fewest GPUs (replicas of one "
                    "layout) that serve it within --tpot and --ttft, queueing included");
    sub->add_option("--gpu-hour-price", o->price, "serving engine: USD per GPU-hour; gives USD per million tokens");
    sub->add_option("--power", o->power,
                    "serving engine: power per GPU with its unit, 700W (the catalog's board power): J per token");
    add_json_flag(sub, o->json);
    sub->callback([o, sub] {
        o->latency_ms = time_in_ms(o->latency_ms, o->latency, "--latency", "--latency-ms");
        resolve_latency_targets(o->targets);
        o->latency.reset();
        const TransformerShape model = resolve_model(o->model);
        const Gpu gpu = resolve_gpu(o->gpu);
        // --link: every GPU on it; else nodes of the GPU's usual server (catalog::default_links). The
        // lesson's model has one link: the one inside a node.
        const bool link_given = o->link.given();
        const ServingFabric fabric = resolve_serving_fabric(sub, o->gpu, o->link, o->node);
        const Link link = fabric.intra;
        const InferenceSetup setup = resolve_setup(o->setup);
        const bool cost_objective = o->objective == "cost";
        if (cost_objective && !o->price) throw napkin::invalid_argument("--objective cost needs --gpu-hour-price");
        (void)price_flag(o->price);
        const Watts power = power_flag(o->power, gpu);
        if (o->arrival_rate) {
            require_positive("--arrival-rate", *o->arrival_rate);
            require(*o->arrival_rate <= 1e12, "--arrival-rate", *o->arrival_rate, "must be at most 1e12 requests/s");
        }
        std::optional<ServingPlan> serving;
        std::optional<ServingFleetPlan> fleet;
        ServingPlanQuery serving_query;
        // The serving engine's own flags mean nothing to the lesson's model alone.
        if (!serving_engine_wanted(*o))
            for (const char* flag : {"--input-tokens", "--output-tokens", "--weight-dtype", "--kv-dtype", "--expert-skew",
                                     "--decode-attention", "--pipeline-micro-batches"})
                if (sub->count(flag) > 0)
                    reject(flag, sub->get_option(flag)->as<std::string>(),
                           "sets the serving engine: give --tpot, --ttft, --arrival-rate or --objective cost too");
        if (serving_engine_wanted(*o)) {
            const auto [query_of_flags, serving_setup] = serving_query_from_flags(*o, model, gpu);
            serving_query = query_of_flags;
            if (o->arrival_rate)
                fleet = plan_serving_fleet(model, gpu, fabric, serving_query, per_second(*o->arrival_rate), serving_setup,
                                           resolve_ring(o->link));
            else
                serving = plan_serving(model, gpu, fabric, serving_query, serving_setup, resolve_ring(o->link));
        }
        require_at_least_one("--max-gpus", o->max_gpus);
        require_at_least_one("--max-tokens", o->max_tokens);
        InferencePlanQuery query{.max_gpus = o->max_gpus, .max_tokens_in_flight = o->max_tokens};
        if (o->latency_ms) {
            require_positive("--latency-ms", *o->latency_ms);
            query.latency_bound = milliseconds(*o->latency_ms);
            query.objective = InferenceObjective::throughput;
        }
        if (o->objective == "latency") query.objective = InferenceObjective::latency;
        else if (o->objective == "throughput") query.objective = InferenceObjective::throughput;
        else if (!o->objective.empty() && !cost_objective)
            throw napkin::invalid_argument("--objective \"" + o->objective +
                                           "\": must be latency, throughput or cost");

        const auto start = std::chrono::steady_clock::now();
        const InferencePlan plan = plan_inference(model, gpu, link, query, setup, resolve_ring(o->link));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string objective = query.objective == InferenceObjective::latency ? "latency" : "throughput";
        const std::string asked = cost_objective ? "cost" : objective;

        if (o->json) {
            nlohmann::json j{{"model", model.name},
                             {"gpu", gpu.name},
                             {"objective", asked},
                             {"max_gpus", o->max_gpus},
                             {"latency_bound_s", io::json::bound_seconds(query.latency_bound)}};
            add_fabric_json(j, fabric);
            j.update(io::json::inference_plan(plan, gpu));
            j["search"].update(search_json(plan.points_evaluated, plan.rejected_memory + plan.rejected_latency, seconds));
            if (serving) j["serving"] = serving_plan_json(*serving, serving_query, *o, power);
            if (fleet) j["serving"] = serving_fleet_json(*fleet, *o, power);
            return print_json(j);
        }
        if (!link_given)
            printf_wrapped("links: %s inside a node, %s between nodes of %lld (the serving engine's; --link for one "
                           "link everywhere)\n",
                           std::string(fabric.intra.name).c_str(), std::string(fabric.inter.name).c_str(),
                           fabric.gpus_per_node);
        printf_wrapped("%s on %s over %s (tp dividing %lld heads, pp dividing %lld layers, up to %lld GPUs)\n",
                    std::string(model.name).c_str(), std::string(gpu.name).c_str(), std::string(link.name).c_str(),
                    model.heads, model.layers, o->max_gpus);
        // Two models answer (README, "Which inference command"): the lesson's, and with the serving flags
        // the serving engine's. Each says which it is, and which flags it reads.
        if (serving || fleet)
            std::printf("lesson model (as split/fewest/best: one chat, 16-bit, data-sheet peaks):\n");
        if (!plan.fewest) {
            std::printf("does not fit on any split of up to %lld GPUs\n", o->max_gpus);
        } else {
            print_inference_candidate("fewest:", *plan.fewest);
            if (plan.best)
                print_inference_candidate(objective == "latency" ? "fastest:" : "most:", *plan.best);
            else
                std::printf("no split meets the latency bound of %s\n", to_string(query.latency_bound).c_str());
        }
        printf_wrapped("search: %lld points evaluated, %lld rejected (%lld memory, %lld latency), %lld pruned, %.3f s\n",
                    plan.points_evaluated, plan.rejected_memory + plan.rejected_latency, plan.rejected_memory,
                    plan.rejected_latency, plan.pruned, seconds);
        if (serving || fleet)
            std::printf("serving engine (as serve: --weight-dtype, --kv-dtype, --input/--output-tokens):\n");
        if (serving) print_serving_plan(*serving, *o, power);
        if (fleet) print_serving_fleet(*fleet, *o, power);
    });
}

}  // namespace napkin::cli
