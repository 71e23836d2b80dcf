# What a run and a token cost, and the fewest GPUs for a traffic level: through
# Python the numbers of `napkin train --steps --json` ("run") and
# `napkin plan-inference --arrival-rate --json` (the same C++ functions, the
# same serializer), and the hand derivations of napkin/run_cost.hpp.
import math

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
