# What a run and a token cost, and the fewest GPUs for a traffic level: through
# Python the numbers of `napkin train --steps --json` ("run") and
# `napkin plan-inference --arrival-rate --json` (the same C++ functions, the
# same serializer), and the hand derivations of napkin/run_cost.hpp.
import math
import os
import subprocess

import napkin
import pytest
from napkin import catalog


def close(a, b, rel=1e-12):
    return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


def test_board_power_is_the_data_sheets():
    # H100 data sheet: max TDP up to 700 W (SXM); MI300X data sheet: 750 W.
    assert catalog.gpu("h100-sxm").board_power == 700.0
    assert catalog.gpu("mi300x").board_power == 750.0


def test_cost_and_energy_by_hand():
    # 1,024 GPUs × 10 h × $2.50 = $25,600; 1,024 × 700 W × 36,000 s × 1.2 = 3.0966e10 J = 8,601.6 kWh.
    r = napkin.run_cost(1024, 3.6, 10_000, usd_per_gpu_hour=2.5, power=700.0, pue=1.2)
    assert close(r["time_s"], 36_000.0)
    assert close(r["cost_usd"], 25_600.0)
    assert close(r["energy_kwh"], 1024 * 700.0 * 36_000.0 * 1.2 / 3.6e6)
    assert r["failures"] is None and r["goodput"] is None  # no MTBF given
    # The GPU's board power when no power is given.
    r = napkin.run_cost(8, 1.0, 3600, gpu=catalog.gpu("h100-sxm"))
    assert close(r["power_per_gpu_w"], 700.0)
    assert r["cost_usd"] is None


def test_young_and_daly_by_hand():
    # δ = 60 s, M = 10,000 s: √(2 · 60 · 10,000) = 1,095.445 s; Daly, x = δ/2M = 0.003:
    # 1,095.445 · (1 + √0.003/3 + 0.003/9) − 60 = 1,055.81 s.
    assert close(napkin.young_interval(60.0, 10_000.0), math.sqrt(1_200_000.0))
    x = 60.0 / 20_000.0
    assert close(napkin.daly_interval(60.0, 10_000.0),
                 math.sqrt(1_200_000.0) * (1 + math.sqrt(x) / 3 + x / 9) - 60.0)


def test_token_cost_by_hand():
    # 8 GPUs × $3 / 3,600 / 2,000 tokens/s × 1e6 = $3.333 per million; 8 × 700 W / 2,000 = 2.8 J per token.
    assert close(napkin.usd_per_million_tokens(8, 3.0, 2000.0), 8 * 3.0 / 3600.0 / 2000.0 * 1e6)
    assert close(napkin.joules_per_token(8, 700.0, 2000.0), 2.8)


def test_run_cost_equals_napkin_train_json(napkin_cli):
    args = ["train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--tp", 2, "--dp", 4, "--micro-batch", 1,
            "--global-batch", 32, "--steps", 20000, "--gpu-hour-price", 2.5, "--pue", 1.1, "--mtbf", "50000h",
            "--checkpoint-write", "60s", "--restart", "10min"]
    j = napkin_cli(*args)
    r = napkin.run_cost(8, j["step_s"], 20000, gpu_mtbf=50000 * 3600.0, checkpoint_write=60.0, restart=600.0,
                        usd_per_gpu_hour=2.5, gpu=catalog.gpu("h100-sxm"), pue=1.1)
    assert set(r) == set(j["run"])
    for key, value in j["run"].items():
        assert (r[key] is None) == (value is None), key
        if value is not None:
            assert close(r[key], value), key
    assert 0.0 < r["goodput"] < 1.0


def test_plan_serving_fleet_equals_napkin_plan_inference_json(napkin_cli):
    j = napkin_cli("plan-inference", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--link", "nvlink4",
                   "--max-gpus", 4, "--max-tokens", 32, "--input-tokens", 1024, "--output-tokens", 128,
                   "--tpot", "20ms", "--ttft", "500ms", "--arrival-rate", 12, "--objective", "cost",
                   "--gpu-hour-price", 3)["serving"]["best"]
    f = napkin.plan_serving_fleet(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                  12.0, input_tokens=1024, output_tokens=128, tpot_bound=0.020, ttft_bound=0.5,
                                  max_gpus=4, max_concurrency=32, usd_per_gpu_hour=3.0)
    assert f is not None
    assert f["replicas"] == j["replicas"] and f["gpus"] == j["gpus"]
    assert f["replica"].layout.tp == j["tp"] and f["replica"].workload.concurrency == j["concurrency"]
    assert close(f["replica"].ttft, j["ttft_s"])
    assert close(f["usd_per_hour"], j["usd_per_hour"])
    assert close(f["usd_per_million_output_tokens"], j["usd_per_million_output_tokens"])
    # $ / M output tokens at the traffic served: GPUs × $3 / 3,600 / (12 × 128) × 1e6.
    assert close(f["usd_per_million_output_tokens"], f["gpus"] * 3.0 / 3600.0 / (12 * 128) * 1e6)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="steps = 0: must be positive"):
        napkin.run_cost(8, 1.0, 0)
    with pytest.raises(ValueError, match="requests/s = -1: must be positive"):
        napkin.plan_serving_fleet(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                  -1.0)
    with pytest.raises(ValueError, match="ttft_bound = 0: must be positive"):
        napkin.plan_serving_fleet(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                  1.0, ttft_bound=0.0)


def test_plan_inference_equals_napkin_plan_inference_json(napkin_cli):
    # Both go through io::json::inference_plan and io::json::serving_plan: the same keys, the same numbers.
    args = ["plan-inference", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--link", "nvlink4", "--max-gpus", 8,
            "--max-tokens", 64, "--tpot", "50ms", "--ttft", "2s"]
    j = napkin_cli(*args)
    model, gpu, link = catalog.model("llama3.1-70b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4")
    p = napkin.plan_inference(model, gpu, link, max_gpus=8, max_tokens_in_flight=64)
    assert p["fewest"] == j["fewest"] and p["best"] == j["best"]
    for key in ("points_evaluated", "points_rejected", "rejected", "points_pruned"):
        assert p["search"][key] == j["search"][key], key
    # 70 B in BF16 is 141 GB: it needs two 80 GB GPUs at least; the fastest split uses all 8.
    assert p["fewest"]["gpus"] == 2
    assert p["best"]["tp"] * p["best"]["pp"] == p["best"]["gpus"] <= 8
    s = napkin.plan_serving(model, gpu, link, tpot_bound=0.050, ttft_bound=2.0, max_gpus=8, max_concurrency=64)
    served = j["serving"]
    for key in ("tpot_bound_s", "ttft_bound_s", "input_tokens", "output_tokens", "search"):
        assert s[key] == served[key], key
    for key, value in s["best"].items():
        assert served["best"][key] == value, key
    assert s["best"]["tpot_s"] <= 0.050 and s["best"]["ttft_s"] <= 2.0
    # A latency bound asks for the most tokens/s under it, as --latency does.
    bounded = napkin.plan_inference(model, gpu, link, max_gpus=8, max_tokens_in_flight=64, latency_bound=0.030)
    assert bounded["best"]["total_s"] <= 0.030
    with pytest.raises(ValueError, match='objective = "fastest": must be latency or throughput'):
        napkin.plan_inference(model, gpu, link, objective="fastest")
    with pytest.raises(ValueError, match="latency_bound = 0: must be positive"):
        napkin.plan_inference(model, gpu, link, latency_bound=0.0)


# Every subcommand of `napkin --help` and the Python function that answers the same question. A new
# subcommand without a Python twin fails here until one is written (or its absence is stated).
SUBCOMMAND_FUNCTIONS = {
    "serve": ["evaluate_serving", "simulate_serving", "serving_sweep", "max_concurrency", "best_disaggregation"],
    "split": ["memory_per_gpu", "token_time"],
    "fewest": ["fewest_gpus"],
    "best": ["best_gpu_count"],
    "allreduce": ["ring_all_reduce", "nccl_all_reduce"],
    "collective": ["collective_time", "all_gather", "reduce_scatter", "all_to_all", "broadcast"],
    "crossover": ["ring_tree_crossover"],
    "bubble": ["bubble_time"],
    "schedule": ["simulate_schedule"],
    "train": ["evaluate_training", "run_cost"],
    "plan": ["plan_training"],
    "plan-inference": ["plan_inference", "plan_serving", "plan_serving_fleet"],
    "calibrate": ["calibrate", "read_nccl_tests", "parse_nccl_tests"],
    "calibrate-serving": None,   # a fit over measured files: the command is the interface (README, Calibration)
    "calibrate-training": None,  # the same
    "show": ["catalog.model", "catalog.gpu", "catalog.link", "catalog.node"],
    "list": ["catalog.models", "catalog.gpus", "catalog.links", "catalog.nodes"],
}


def test_every_subcommand_has_its_python_function():
    path = os.environ.get("NAPKIN_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("NAPKIN_CLI does not name the napkin command (ctest sets it)")
    text = subprocess.run([path, "--help"], capture_output=True, text=True, check=True).stdout
    # Subcommands are the lines "  name   description" between "usage:" and "options:".
    body = text.split("options:")[0]
    listed = {line.split()[0] for line in body.splitlines() if line.startswith("  ") and not line.startswith("   ")}
    assert listed == set(SUBCOMMAND_FUNCTIONS)
    for command, functions in SUBCOMMAND_FUNCTIONS.items():
        for name in functions or []:
            owner = napkin
            for part in name.split("."):
                owner = getattr(owner, part, None)
            assert callable(owner), f"{command}: napkin.{name}"
