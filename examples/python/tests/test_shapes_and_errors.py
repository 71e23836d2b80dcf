# Shapes, catalog, Hugging Face configs, nccl-tests calibration; and bad input:
# ValueError with napkin's message naming the argument, TypeError for a wrong type, never a crash.
import json
import os

import napkin
import pytest
from napkin import catalog


def test_catalog():
    assert [g.name for g in catalog.gpus()][:2] == ["a100-80gb-sxm", "a100-40gb-sxm"]
    assert "nvlink-a100" in [l.name for l in catalog.links()]
    assert "gpt3-175b" in [m.name for m in catalog.models()]
    assert catalog.node("dgx-a100").gpus == 8
    a100 = catalog.gpu("a100-80gb-sxm")
    assert a100.memory == 80 * napkin.GiB and a100.peak_flops == 312e12 and a100.memory_bandwidth == 2039e9
    assert repr(a100) == ("Gpu(name='a100-80gb-sxm', memory=80.00 GiB, usable_fraction=0.92, "
                          "memory_bandwidth=2.04 TB/s, peak_flops=312 TFLOP/s, sm_count=108, fp8_flops=0 FLOP/s, "
                          "architecture='ampere', board_power=400 W, fp6_flops=0 FLOP/s, fp4_flops=0 FLOP/s, "
                          "int8_ops=624 TOP/s, source='NVIDIA A100 Tensor Core GPU data sheet (June 2021), 80 GB SXM "
                          "column', usable_memory=73.60 GiB)")
    assert repr(catalog.link("nvlink-a100")) == "Link(name='nvlink-a100', bandwidth=600 GB/s, step_latency=600.00 ns)"
    with pytest.raises(ValueError, match=r'^gpu = "h1000": not in the catalog'):
        catalog.gpu("h1000")
    # copies: changing one leaves the catalog alone
    a100.memory = 1.0
    assert catalog.gpu("a100-80gb-sxm").memory == 80 * napkin.GiB


def test_keyword_construction_and_nesting():
    gpu = napkin.Gpu(name="mine", memory=96e9, usable_fraction=0.9, memory_bandwidth=4e12, peak_flops=1e15)
    assert gpu.name == "mine" and gpu.to_dict()["memory"] == 96e9
    node = napkin.Node(name="box", gpu=gpu, gpus=4, intra=catalog.link("nvlink4"), inter=catalog.link("ib-ndr"))
    cluster = napkin.Cluster(node=node, nodes=2)
    cluster.node.gpu.memory = 80e9  # nested attributes are references
    assert cluster.node.gpu.memory == 80e9 and cluster.gpus == 8
    assert cluster.to_dict()["node"]["gpu"]["name"] == "mine"
    par = napkin.Parallelism(tp=2, dp=4, global_batch=8)
    assert (par.pp, par.schedule, par.weights) == (1, "auto", "bf16")


def test_format():
    assert napkin.format_bytes(37508222976) == "34.93 GiB"
    assert napkin.format_seconds(0.01894) == "18.94 ms"
    assert napkin.format_bandwidth(600e9) == "600 GB/s"
    assert napkin.format_flops_per_second(312e12) == "312 TFLOP/s"


def test_hf_config(data_dir):
    m = napkin.TransformerShape.from_hf_config(os.path.join(data_dir, "llama31_70b_config.json"))
    assert (m.layers, m.hidden, m.ffn, m.heads, m.kv_heads) == (80, 8192, 28672, 64, 8)
    assert napkin.parameter_count(m) == 70_553_706_496
    assert m.name == "llama31_70b_config"
    with open(os.path.join(data_dir, "mixtral_8x7b_config.json")) as f:
        mixtral = napkin.TransformerShape.from_hf_config(json.load(f))
    assert mixtral.experts == 8 and mixtral.experts_per_token == 2
    assert napkin.parameter_count(mixtral) == 46_702_792_704
    assert napkin.active_parameter_count(mixtral) == 12_879_925_248
    gpt2 = napkin.TransformerShape.from_hf_config(os.path.join(data_dir, "gpt2_config.json"))
    assert gpt2.feed_forward == "plain" and gpt2.parameters == 124_439_808
    missing = os.path.join(data_dir, "missing_field_config.json")
    with pytest.raises(ValueError, match='field "intermediate_size" is missing'):
        napkin.TransformerShape.from_hf_config(missing)
    with pytest.raises(ValueError, match='field "hidden_size" must be a positive whole number, not -4096'):
        napkin.TransformerShape.from_hf_config({"hidden_size": -4096})
    with pytest.raises(TypeError):
        napkin.TransformerShape.from_hf_config(42)


def test_calibration_from_nccl_tests_text(data_dir):
    # The file's times come from α = 5 µs and B = 50 GB/s on 16 ranks; the fit gives them back.
    with open(os.path.join(data_dir, "nccl_tests", "all_reduce_perf_16_ranks.txt")) as f:
        text = f.read()
    run = napkin.parse_nccl_tests(text)
    assert run.ranks == 16 and run.op == "all-reduce" and len(run.rows) == 28
    fit = napkin.fit_alpha_beta(run.samples())
    assert fit.step_latency == pytest.approx(5e-6, rel=1e-3)
    assert fit.bandwidth == pytest.approx(50e9, rel=1e-3)
    assert fit.rms_relative_residual < 1e-4
    assert napkin.calibrate(text).bandwidth == fit.bandwidth
    link = fit.link("ib-fitted")
    assert link.name == "ib-fitted" and link.bandwidth == fit.bandwidth
    with pytest.raises(ValueError, match="has no table"):
        napkin.parse_nccl_tests("nothing here\n")


@pytest.mark.parametrize("call, message", [
    (lambda: napkin.memory_per_gpu(catalog.model("llama3.1-70b"), 0), "gpus = 0: must be at least 1"),
    (lambda: napkin.ring_allreduce(1e9, 0, catalog.link("ib-ndr")), "ranks = 0: must be at least 1"),
    (lambda: napkin.tree_allreduce(-1, 8, catalog.link("ib-ndr")), "message (bytes) = -1: must not be negative"),
    (lambda: napkin.broadcast(1, 8, catalog.link("ib-ndr"), -1), "base_latency (s) = -1: must not be negative"),
    (lambda: napkin.Gpu(name="x", memory=-1, usable_fraction=0.9, memory_bandwidth=1, peak_flops=1),
     "Gpu.memory (bytes) = -1: must be positive"),
    (lambda: napkin.Gpu(name="x", memory=1, usable_fraction=1.5, memory_bandwidth=1, peak_flops=1),
     "Gpu.usable_fraction = 1.5: must be in (0, 1]"),
    (lambda: napkin.Parallelism(dp=3, global_batch=8), "Parallelism.global_batch = 8: must be a multiple of"),
    (lambda: napkin.Parallelism(recompute="sometimes"), 'Parallelism.recompute = "sometimes": must be none, selective or full'),
    (lambda: napkin.InferenceSetup(bytes_per_weight=0) and napkin.memory_per_gpu(
        catalog.model("llama3.1-70b"), 4, napkin.InferenceSetup(bytes_per_weight=0)),
     "InferenceSetup.bytes_per_weight = 0: must be positive"),
    (lambda: napkin.token_time(catalog.model("llama3.1-70b"), catalog.gpu("a100-80gb-sxm"),
                               catalog.link("nvlink-a100"), gpus=4, tokens_in_flight=0),
     "tokens_in_flight = 0: must be at least 1"),
    (lambda: napkin.step_time("1f1b", napkin.PipelineShape(stages=4, microbatches=8, chunks=2),
                              napkin.StageTimes(forward=1, backward=2)), "PipelineShape.chunks = 2: must be 1"),
    (lambda: napkin.step_time("pipedream", napkin.PipelineShape(stages=4, microbatches=8),
                              napkin.StageTimes(forward=1, backward=2)), 'schedule = "pipedream"'),
    (lambda: napkin.evaluate_training(catalog.model("gpt3-175b"),
                                      napkin.Cluster(node=catalog.node("dgx-a100"), nodes=1),
                                      napkin.Parallelism(tp=7, dp=1, global_batch=8)), "tp"),
    (lambda: napkin.plan_training(catalog.model("gpt2-small"),
                                  napkin.Cluster(node=catalog.node("dgx-a100"), nodes=1), 0), "global_batch = 0"),
    (lambda: napkin.nccl_choice(1e6, 8, catalog.link("nvlink3"), "carrier-pigeon"), 'transport = "carrier-pigeon"'),
])
def test_bad_input_is_a_value_error_naming_the_argument(call, message):
    with pytest.raises(ValueError) as error:
        call()
    assert message in str(error.value)
    assert isinstance(error.value, napkin.InvalidArgument)


def test_an_error_carries_its_field_value_and_requirement_and_the_python_keyword():
    # global_batch 12 is no multiple of micro_batch 2 × dp 4 = 8: the field, its value, the rule, the fields
    # the rule names, and the keyword that set it, as data (a front end maps them, no parsing of the message).
    with pytest.raises(napkin.InvalidArgument) as error:
        napkin.Parallelism(dp=4, micro_batch=2, global_batch=12)
    e = error.value
    assert e.field == "Parallelism.global_batch"
    assert e.value == "12"
    assert e.requirement == "must be a multiple of micro_batch × dp = 8"
    assert e.related == ["micro_batch", "dp"]
    assert e.keyword == "global_batch"
    assert str(e) == "Parallelism.global_batch = 12: must be a multiple of micro_batch × dp = 8"
    # A product of fields has no single keyword.
    with pytest.raises(napkin.InvalidArgument) as error:
        napkin.Parallelism(tp=2 ** 21, dp=2 ** 21, global_batch=2 ** 21)
    assert error.value.field == "tp × cp × pp × dp" and error.value.keyword == ""


@pytest.mark.parametrize("call", [
    lambda: napkin.ring_allreduce("1 GB", 8, catalog.link("ib-ndr")),
    lambda: napkin.ring_allreduce(1e9, 8.5, catalog.link("ib-ndr")),
    lambda: napkin.ring_allreduce(1e9, 8, "ib-ndr"),
    lambda: napkin.ring_allreduce(1e9, 2 ** 80, catalog.link("ib-ndr")),
    lambda: napkin.Gpu(memory="80GB"),
    lambda: napkin.Gpu(colour="green"),
    lambda: napkin.Parallelism(recompute=2),
    lambda: napkin.Parallelism(tp=None),
    lambda: napkin.memory_per_gpu(None, 4),
    lambda: napkin.simulate_schedule("1f1b", napkin.PipelineShape(stages=2, microbatches=2), 3.0),
    lambda: napkin.TrainingPlanQuery(schedules="1f1b"),
])
def test_wrong_types_are_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_no_crash_on_odd_values():
    # nan, inf and huge numbers: each raises ValueError or gives a number, never a crash.
    link = catalog.link("ib-ndr")
    for value in (float("nan"), float("inf"), -float("inf"), 1e308, -0.0):
        for call in (lambda: napkin.ring_allreduce(value, 8, link),
                     lambda: napkin.Link(name="x", bandwidth=value, step_latency=1e-6),
                     lambda: napkin.Gpu(name="x", memory=value, usable_fraction=0.9, memory_bandwidth=1e12,
                                        peak_flops=1e15),
                     lambda: napkin.format_bytes(value), lambda: napkin.format_seconds(value)):
            try:
                call()
            except ValueError:
                pass
    with pytest.raises(ValueError):
        napkin.simulate_schedule("1f1b", napkin.PipelineShape(stages=10**6, microbatches=10**6),
                                 napkin.StageTimes(forward=1.0, backward=2.0))
    with pytest.raises(ValueError):
        napkin.fewest_gpus(catalog.model("llama3.1-70b"), catalog.gpu("a100-80gb-sxm"), max_gpus=10**15)


def test_the_planner_refuses_what_would_hang_it():
    # 10^6 layers: a valid shape (TransformerShape.layers is at most 2^24, checked.hpp), past the planner's 100,000.
    deep = napkin.TransformerShape(name="deep", layers=10**6, hidden=64, ffn=256, heads=1, kv_heads=1,
                                   vocabulary=100)
    cluster = napkin.Cluster(node=catalog.node("dgx-a100"), nodes=1)
    with pytest.raises(ValueError, match="TransformerShape.layers = 1000000: must be at most 100,000"):
        napkin.plan_training(deep, cluster, 8)
    with pytest.raises(ValueError, match="global_batch"):
        napkin.plan_training(catalog.model("gpt2-small"), cluster, 10**12)
