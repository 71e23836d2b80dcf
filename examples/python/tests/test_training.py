# evaluate_training and plan_training through Python give the C++ numbers:
# compared with `napkin train --json` and `napkin plan --json` (the same C++
# functions behind the napkin command) to 1e-12.
import math

import napkin
import pytest
from napkin import catalog

gpt3 = catalog.model("gpt3-175b")


def close(a, b, rel=1e-12):
    """Equal to 1e-12 relative (or both zero)."""
    return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


def cluster_for(gpus, nic="per-gpu"):
    # `napkin train` builds its nodes from --gpu (A100 80GB), --intra-link nvlink3 and --inter-link ib-hdr:
    # the catalog's DGX A100.
    node = catalog.node("dgx-a100")
    node.nic = nic
    node.gpus = min(gpus, 8)
    return napkin.Cluster(node=node, nodes=gpus // node.gpus)


# Several layouts: Megatron's GPT-3 run, ZeRO-3 data parallelism, interleaving, zero-bubble,
# DualPipe, context parallelism with overlap, a shared NIC, fp32 gradients.
LAYOUTS = [
    dict(model="gpt3-175b", tp=8, pp=16, dp=8, micro_batch=1, global_batch=1536, recompute="selective",
         sequence_parallel=True, flash_attention=True),
    dict(model="gpt2-small", tp=1, pp=1, dp=8, micro_batch=8, global_batch=512, sharding="3"),
    dict(model="megatron-22b", tp=8, pp=4, dp=2, virtual_stages=3, micro_batch=1, global_batch=64,
         recompute="full", schedule="interleaved"),
    dict(model="llama3.1-70b", tp=8, pp=8, dp=4, micro_batch=2, global_batch=256, schedule="zb-h2",
         gradients="fp32", sharding="1", overlap_dp=True),
    dict(model="llama3.1-8b", tp=2, pp=4, dp=4, micro_batch=1, global_batch=64, schedule="dualpipe",
         sequence=4096, flash_attention=True),
    dict(model="llama3.1-8b", tp=4, cp=2, pp=1, dp=4, micro_batch=1, global_batch=32, sequence=8192,
         sequence_parallel=True, flash_attention=True, overlap_dp=True, nic="per-node"),
]

CLI_FLAGS = {"virtual_stages": "--vp", "micro_batch": "--micro-batch", "global_batch": "--global-batch",
             "sequence": "--seq-len", "sharding": "--zero", "gradients": "--grad-dtype", "schedule": "--schedule",
             "recompute": "--recompute", "tp": "--tp", "pp": "--pp", "dp": "--dp", "cp": "--cp", "nic": "--nic",
             "model": "--model"}
BOOL_FLAGS = {"sequence_parallel": "--sequence-parallel", "flash_attention": "--flash-attention",
              "overlap_dp": "--overlap-dp"}
NEGATED_FLAGS = {"sequence_parallel": "--no-sequence-parallel", "flash_attention": "--no-flash-attention"}


def python_estimate(layout):
    layout = dict(layout)
    model = catalog.model(layout.pop("model"))
    nic = layout.pop("nic", "per-gpu")
    options = napkin.TrainingOptions(overlap_dp=layout.pop("overlap_dp", False))
    par = napkin.Parallelism(**layout)
    return napkin.evaluate_training(model, cluster_for(par.gpus, nic), par, options)


def cli_args(layout):
    # The library's Parallelism keeps the lessons' defaults (2,048 tokens, no flash attention, no
    # sequence parallelism); `napkin train` defaults to current practice, so both are spelled out.
    layout = {"sequence": 2048, "flash_attention": False, "sequence_parallel": False, **layout}
    args = []
    for key, value in layout.items():
        if key in BOOL_FLAGS:
            if value:
                args.append(BOOL_FLAGS[key])
            elif key in NEGATED_FLAGS:
                args.append(NEGATED_FLAGS[key])
        else:
            args += [CLI_FLAGS[key], value]
    return args


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda l: f"{l['model']}-t{l['tp']}p{l['pp']}d{l['dp']}")
def test_evaluate_training_equals_cpp(layout, napkin_cli):
    e = python_estimate(layout)
    j = napkin_cli("train", *cli_args(layout))
    assert close(e.step, j["step_s"])
    assert close(e.tokens_per_second, j["tokens_per_s"])
    assert close(e.mfu, j["mfu"])
    assert close(e.hfu, j["hfu"])
    assert e.fits == j["memory"]["fits"]
    for part in ("weights", "gradients", "optimizer", "activations", "total"):
        assert close(getattr(e.memory, part), j["memory"][part]), part
    for part, value in j["breakdown"].items():
        assert close(getattr(e.breakdown, part), value), part
    d = e.to_dict()
    assert d["step"] == e.step and d["memory"]["total"] == e.memory.total
    assert d["breakdown"]["total"] == pytest.approx(e.step, rel=1e-12)


def test_megatron_gpt3_estimate_by_hand_identities():
    # The estimate's own identities: step = Σ breakdown; tokens/s = B·s / step; memory total = states + activations + allowances.
    e = python_estimate(LAYOUTS[0])
    b = e.breakdown
    assert e.step == pytest.approx(b.compute + b.recompute + b.tp + b.pp + b.bubble + b.dp + b.ep + b.cp + b.optimizer,
                                   rel=1e-12)
    assert e.tokens_per_second == pytest.approx(1536 * 2048 / e.step, rel=1e-12)
    # Since the memory allowances (memory.hpp: MemoryAllowances) the total holds them too.
    assert e.memory.total == e.memory.states + e.memory.activations + e.memory.allowances


def test_communication_sms_prices_hidden_data_parallel_traffic():
    # gpt2-small with DDP on 8 A100s, the all-reduce overlapped with the backward: it hides, so it shows
    # only as the SMs it holds (step.hpp: 20/108 of the hidden time). With 0 SMs the exposed part is
    # 0; with 20 it is 20/108 of the all-reduce (248,879,616 gradient bytes on 8 GPUs over nvlink3:
    # 6.6 µs + 14 · 0.6 µs + 1.75 · 248,879,616 B / 300 GB/s = 1.466798 ms), and 40 SMs show twice that.
    layout = dict(tp=1, pp=1, dp=8, micro_batch=8, global_batch=512)
    dp = {}
    for sms in (0, 20, 40):
        options = napkin.TrainingOptions(overlap_dp=True, communication_sms=sms)
        e = napkin.evaluate_training(catalog.model("gpt2-small"), cluster_for(8), napkin.Parallelism(**layout),
                                     options)
        dp[sms] = e.breakdown.dp
    assert napkin.TrainingOptions().communication_sms == 20
    assert dp[0] == 0.0
    assert dp[20] == pytest.approx(20.0 / 108.0 * 1.466798e-3, rel=1e-5)
    assert dp[40] == pytest.approx(2.0 * dp[20], rel=1e-12)
    with pytest.raises(ValueError, match="TrainingOptions.communication_sms"):
        napkin.evaluate_training(catalog.model("gpt2-small"), cluster_for(8), napkin.Parallelism(**layout),
                                 napkin.TrainingOptions(communication_sms=108))


def test_plan_rows_equal_napkin_plan_json(napkin_cli):
    cluster = napkin.Cluster(node=catalog.node("dgx-a100"), nodes=128)
    plan = napkin.plan_training(gpt3, cluster, 1536, top_k=5)
    j = napkin_cli("plan", "--model", "gpt3-175b", "--gpus", 1024, "--global-batch", 1536, "--top", 5)
    for which in ("top", "pareto"):
        rows, expected = plan.rows(which), j[which]
        assert len(rows) == len(expected) > 0
        for row, want in zip(rows, expected):
            assert row.keys() == want.keys()
            for key, value in want.items():
                if isinstance(value, dict):
                    for inner, v in value.items():
                        assert row[key][inner] == v if not isinstance(v, float) else close(row[key][inner], v)
                elif isinstance(value, float):
                    assert close(row[key], value), key
                else:
                    assert row[key] == value, key
    stats = plan.statistics()
    for key in ("points", "points_evaluated", "points_pruned", "pruned", "points_fitting", "rejected",
                "points_rejected"):
        assert stats[key] == j["search"][key], key
    assert len(plan.top) == 5
    assert plan.top[0].estimate.step == plan.rows()[0]["step_s"]


def test_plan_query_object_and_pandas():
    q = napkin.TrainingPlanQuery(model=catalog.model("gpt2-small"),
                                 cluster=napkin.Cluster(node=catalog.node("dgx-a100"), nodes=1),
                                 global_batch=64, sequence=1024, top_k=3, schedules=["1f1b", "gpipe"],
                                 gradient_dtypes=["bf16"])
    assert q.schedules == ["gpipe", "1f1b"] and q.gradient_dtypes == ["bf16"]
    assert q.recomputes == ["none", "selective", "full"] and q.shardings == ["0", "1", "2", "3"]
    plan = napkin.plan_training(q)
    assert 0 < len(plan.top) <= 3
    steps = [c.estimate.step for c in plan.top]
    assert steps == sorted(steps)
    memories = [c.estimate.memory.total for c in plan.pareto]
    assert memories == sorted(memories)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            plan.to_pandas()
    else:
        frame = plan.to_pandas()
        assert list(frame["step_s"]) == steps and "memory_total" in frame.columns


def test_plan_within_a_frameworks_choices_equals_napkin_plan(napkin_cli):
    # What Megatron-LM ran in 2021 (Narayanan et al.): no selective recomputation, no ZeRO, no sequence
    # parallelism: the same search as `napkin plan --recomputes none,full --zero-stages 0 --no-sequence-parallel`.
    j = napkin_cli("plan", "--model", "gpt2-small", "--gpu", "a100-80gb-sxm", "--gpus", 8, "--global-batch", 64,
                   "--seq-len", 1024, "--top", 3, "--recomputes", "none,full", "--zero-stages", "0",
                   "--no-sequence-parallel", "--json")
    plan = napkin.plan_training(catalog.model("gpt2-small"), napkin.Cluster(node=catalog.node("dgx-a100"), nodes=1),
                                64, sequence=1024, top_k=3, recomputes=["none", "full"], shardings=["0"],
                                sequence_parallel=False)
    assert plan.points == j["search"]["points"]
    for c in plan.top:
        assert c.parallelism.recompute in ("none", "full") and c.parallelism.sharding == "0"
        assert not c.parallelism.sequence_parallel
    with pytest.raises(ValueError, match="shardings"):
        napkin.TrainingPlanQuery(shardings=["distributed"])
