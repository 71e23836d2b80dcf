// What a run and a token cost (napkin/run_cost.hpp) and the inference planners
// (napkin/inference_planner.hpp: plan_inference, plan_serving and, for a
// traffic level, plan_serving_fleet) from Python. The planners answer with
// the records of `napkin plan-inference --json` (io::json::inference_plan,
// io::json::serving_plan). A run's answer is the "run" object of `napkin train --json` and
// `napkin plan --json` (io::json::run: the same keys and numbers); times are
// seconds, power watts, as everywhere in the module.
#include "bindings.hpp"

#include <napkin/inference_planner.hpp>
#include <napkin/io/json.hpp>
#include <napkin/io/json_plans.hpp>
#include <napkin/io/text_file.hpp>
#include <napkin/run_cost.hpp>
#include <napkin/serving.hpp>

#include <limits>
#include <optional>

namespace napkin::python {

namespace {

// A JSON record as the Python objects json.loads gives for its text.
py::object to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

Watts power_of(const std::optional<double>& power, const std::optional<Gpu>& gpu) {
    if (power) {
        require_in_range("power", *power, 0.0, 1e6, "must be in [0, 1e6] W (0: no energy)");
        return watts(*power);
    }
    return gpu ? gpu->board_power : Watts{};
}

Seconds bound_of(const char* name, const std::optional<double>& bound) {
    if (!bound) return seconds(std::numeric_limits<double>::infinity());
    require_positive(name, *bound);
    return seconds(*bound);
}

// The serving planners' query from their keyword arguments (bounds in seconds, None: no bound).
ServingPlanQuery serving_query(long long max_gpus, long long max_concurrency, long long input_tokens,
                               long long output_tokens, const std::optional<double>& tpot_bound,
                               const std::optional<double>& ttft_bound) {
    return {.max_gpus = max_gpus,
            .max_concurrency = max_concurrency,
            .input_tokens = input_tokens,
            .output_tokens = output_tokens,
            .tpot_bound = bound_of("tpot_bound", tpot_bound),
            .ttft_bound = bound_of("ttft_bound", ttft_bound)};
}

}  // namespace

void bind_cost(py::module_& m) {
    m.def(
        "run_cost",
        [](long long gpus, double step_time, double steps, double gpu_mtbf, double checkpoint_write, double restart,
           bool asynchronous, double snapshot, double interval, double usd_per_gpu_hour,
           const std::optional<double>& power, const std::optional<Gpu>& gpu, double pue) {
            require_positive("step_time", step_time);
            require_positive("steps", steps);
            RunQuery q{.gpus = gpus,
                       .useful = seconds(step_time) * steps,
                       .gpu_mtbf = seconds(gpu_mtbf),
                       .checkpoint = {.write = seconds(checkpoint_write),
                                      .restart = seconds(restart),
                                      .asynchronous = asynchronous,
                                      .snapshot = seconds(snapshot),
                                      .interval = seconds(interval)},
                       .usd_per_gpu_hour = usd_per_gpu_hour,
                       .power_per_gpu = power_of(power, gpu),
                       .pue = pue};
            return to_python(io::json::run(run_cost(q), q, steps));
        },
        py::arg("gpus"), py::arg("step_time"), py::arg("steps"), py::kw_only(), py::arg("gpu_mtbf") = 0.0,
        py::arg("checkpoint_write") = 0.0, py::arg("restart") = 0.0, py::arg("asynchronous") = false,
        py::arg("snapshot") = 0.0, py::arg("interval") = 0.0, py::arg("usd_per_gpu_hour") = 0.0,
        py::arg("power") = py::none(), py::arg("gpu") = py::none(), py::arg("pue") = 1.0,
        "A whole run of `steps` steps of `step_time` seconds on `gpus` GPUs, as `napkin train --steps N`: the "
        "'run' object of train --json (time_s, cost_usd, energy_kwh, failures, checkpoint_interval_s, goodput, "
        "...; None where its input is not given). gpu_mtbf (seconds per GPU; 0: no failures) models failures with "
        "checkpoints every Daly-optimal interval (or `interval`); power in W per GPU (None: gpu's board power).");
    m.def(
        "young_interval",
        [](double checkpoint, double mtbf) {
            require_positive("checkpoint", checkpoint);
            require_positive("mtbf", mtbf);
            return young_interval(seconds(checkpoint), seconds(mtbf)).value();
        },
        py::arg("checkpoint"), py::arg("mtbf"), "Young (1974): √(2 · checkpoint · job MTBF), seconds.");
    m.def(
        "daly_interval",
        [](double checkpoint, double mtbf) {
            require_positive("checkpoint", checkpoint);
            require_positive("mtbf", mtbf);
            return daly_interval(seconds(checkpoint), seconds(mtbf)).value();
        },
        py::arg("checkpoint"), py::arg("mtbf"), "Daly (2006), eq. (37): Young's interval to higher order, seconds.");
    m.def(
        "usd_per_million_tokens",
        [](long long gpus, double usd_per_gpu_hour, double tokens_per_s) {
            require_count("gpus", gpus, limits::gpus);
            require_in_range("usd_per_gpu_hour", usd_per_gpu_hour, 0.0, run_limits::usd_per_gpu_hour,
                             "must be in [0, 1e6] USD per GPU-hour");
            require_positive("tokens_per_s", tokens_per_s);
            return usd_per_million_tokens(gpus, usd_per_gpu_hour, tokens_per_second(tokens_per_s));
        },
        py::arg("gpus"), py::arg("usd_per_gpu_hour"), py::arg("tokens_per_s"),
        "GPUs × price / 3,600 / tokens/s × 10⁶, as `napkin serve --gpu-hour-price`.");
    m.def(
        "joules_per_token",
        [](long long gpus, double power, double tokens_per_s) {
            require_count("gpus", gpus, limits::gpus);
            require_in_range("power", power, 0.0, 1e6, "must be in [0, 1e6] W");
            require_positive("tokens_per_s", tokens_per_s);
            return in(joules_per_token(gpus, watts(power), tokens_per_second(tokens_per_s)), units::joules_per_token);
        },
        py::arg("gpus"), py::arg("power"), py::arg("tokens_per_s"), "GPUs × W / tokens/s: joules per token.");
    m.def(
        "plan_inference",
        [](const TransformerShape& model, const Gpu& gpu, const Link& link, long long max_gpus,
           long long max_tokens_in_flight, const std::optional<double>& latency_bound,
           const std::optional<std::string>& objective, const InferenceSetup& setup, const Ring& collective) {
            InferencePlanQuery q{.max_gpus = max_gpus,
                                 .max_tokens_in_flight = max_tokens_in_flight,
                                 .latency_bound = bound_of("latency_bound", latency_bound)};
            // As plan-inference: a latency bound asks for the most tokens/s under it.
            q.objective = latency_bound ? InferenceObjective::throughput : InferenceObjective::latency;
            if (objective == "latency")
                q.objective = InferenceObjective::latency;
            else if (objective == "throughput")
                q.objective = InferenceObjective::throughput;
            else if (objective)
                reject("objective", io::printable(*objective), "must be latency or throughput");
            return to_python(io::json::inference_plan(plan_inference(model, gpu, link, q, setup, collective), gpu));
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::kw_only(), py::arg("max_gpus") = 64,
        py::arg("max_tokens_in_flight") = 1024, py::arg("latency_bound") = py::none(),
        py::arg("objective") = py::none(), py::arg("setup") = lesson_setup, py::arg("collective") = lesson_collective,
        "The lesson model's planner, as `napkin plan-inference`: the fewest GPUs that hold the model and the "
        "tensor × pipeline split and tokens in flight with the lowest time per token (or, under latency_bound "
        "seconds, the most tokens/s). Returns the 'fewest', 'best' and 'search' keys of plan-inference --json "
        "(None where no split qualifies).");
    m.def(
        "plan_serving",
        [](const TransformerShape& model, const Gpu& gpu, const ServingFabric& link, long long input_tokens,
           long long output_tokens, const std::optional<double>& tpot_bound, const std::optional<double>& ttft_bound,
           long long max_gpus, long long max_concurrency, const ServingSetup& setup) {
            const ServingPlanQuery q =
                serving_query(max_gpus, max_concurrency, input_tokens, output_tokens, tpot_bound, ttft_bound);
            return to_python(io::json::serving_plan(plan_serving(model, gpu, link, q, setup), q));
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::kw_only(), py::arg("input_tokens") = 1024,
        py::arg("output_tokens") = 256, py::arg("tpot_bound") = py::none(), py::arg("ttft_bound") = py::none(),
        py::arg("max_gpus") = 64, py::arg("max_concurrency") = 1024, py::arg("setup") = default_serving_setup,
        "The serving engine's planner, as `napkin plan-inference --tpot/--ttft`: the layout and concurrency with "
        "the most output tokens/s per GPU within the bounds (seconds). Returns the 'serving' key of "
        "plan-inference --json without its cost keys ('best' is None when nothing meets the bounds).");
    m.def(
        "plan_serving_fleet",
        [](const TransformerShape& model, const Gpu& gpu, const ServingFabric& link, double requests_per_s,
           long long input_tokens, long long output_tokens, const std::optional<double>& tpot_bound,
           const std::optional<double>& ttft_bound, long long max_gpus, long long max_concurrency,
           const ServingSetup& setup, const std::optional<double>& usd_per_gpu_hour,
           const std::optional<double>& power) -> py::object {
            const ServingPlanQuery q =
                serving_query(max_gpus, max_concurrency, input_tokens, output_tokens, tpot_bound, ttft_bound);
            const Watts per_gpu = power_of(power, gpu);
            if (usd_per_gpu_hour)
                require_in_range("usd_per_gpu_hour", *usd_per_gpu_hour, 0.0, run_limits::usd_per_gpu_hour,
                                 "must be in [0, 1e6] USD per GPU-hour");
            const ServingFleetPlan plan = plan_serving_fleet(model, gpu, link, q, per_second(requests_per_s), setup);
            if (!plan.best) return py::none();
            const ServingFleet& f = *plan.best;
            const TokensPerSecond served = tokens_per_second(requests_per_s * count(output_tokens));
            py::dict out;
            out["replicas"] = f.replicas, out["gpus"] = f.gpus(), out["load"] = f.load;
            out["replica"] = py::cast(f.replica);
            out["usd_per_hour"] = py::none(), out["usd_per_million_output_tokens"] = py::none();
            if (usd_per_gpu_hour) {
                out["usd_per_hour"] = count(f.gpus()) * *usd_per_gpu_hour;
                out["usd_per_million_output_tokens"] = usd_per_million_tokens(f.gpus(), *usd_per_gpu_hour, served);
            }
            out["joules_per_output_token"] = py::none();
            if (per_gpu.value() > 0)
                out["joules_per_output_token"] =
                    in(joules_per_token(f.gpus(), per_gpu, served), units::joules_per_token);
            return out;
        },
        py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("requests_per_s"), py::kw_only(),
        py::arg("input_tokens") = 1024, py::arg("output_tokens") = 256, py::arg("tpot_bound") = py::none(),
        py::arg("ttft_bound") = py::none(), py::arg("max_gpus") = 64, py::arg("max_concurrency") = 1024,
        py::arg("setup") = default_serving_setup, py::arg("usd_per_gpu_hour") = py::none(),
        py::arg("power") = py::none(),
        "The fewest GPUs, as replicas of one layout, that serve `requests_per_s` Poisson requests within the "
        "bounds (seconds; queueing included), as `napkin plan-inference --arrival-rate`: {'replicas', 'gpus', "
        "'load', 'replica' (ServingEstimate at its share), 'usd_per_hour', 'usd_per_million_output_tokens', "
        "'joules_per_output_token'}; None when no layout meets the bounds. power: W per GPU (None: board power).");
}

}  // namespace napkin::python
