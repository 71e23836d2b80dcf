# Serving (evaluate_serving, the sweep, the decode step and prefill), the MoE
# and MLA shape fields, layer maps, and the training options that landed after
# the first module: through Python they give the C++ numbers, compared with
# `napkin serve --json` and `napkin train --json` (the same C++ functions) to 1e-12.
import math
import os

import napkin
import pytest
from napkin import catalog


def close(a, b, rel=1e-12):
    return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


def assert_estimate_equals_json(e, j):
    """Every number of `napkin serve --json` (serve.cpp: estimate_json) against the ServingEstimate."""
    assert e.workload.concurrency == j["concurrency"]
    for key in ("ttft", "tpot", "e2e", "queue"):
        assert close(getattr(e, key), j[key + "_s"]), key
    for key in ("output_tokens_per_s", "output_tokens_per_s_per_gpu", "output_tokens_per_s_per_user",
                "requests_per_s"):
        assert close(getattr(e, key), j[key]), key
    assert e.max_concurrency == j["max_concurrency"]
    for key in ("weights", "kv_cache", "activations", "total", "usable"):
        assert close(getattr(e.memory, key), j["memory"][key]), key
    assert e.memory.fits == j["memory"]["fits"]
    for key in ("weights_read", "kv_read", "compute", "tp", "pp", "ep", "total"):
        assert close(getattr(e.step, key), j["decode_step"][key + "_s"]), key
    assert e.step.memory_bound == j["decode_step"]["memory_bound"]
    assert close(e.prefill.compute, j["prefill"]["compute_s"])
    assert close(e.prefill.comm, j["prefill"]["comm_s"])
    assert e.prefill.passes == j["prefill"]["passes"]
    assert e.step.micro_batches == j["decode_step"]["micro_batches"]
    assert e.prefill.micro_batches == j["prefill"]["micro_batches"]


def test_evaluate_serving_equals_napkin_serve_json(napkin_cli):
    # serve.cpp's default link for an H100 is the catalog's nvlink4, its collective a
    # ring with NCCL's 6.6 µs base latency (the module's default too).
    j = napkin_cli("serve", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", 4, "--input-tokens", 1024,
                   "--output-tokens", 256, "--concurrency", 16, "--kv-dtype", "fp8")
    e = napkin.evaluate_serving(catalog.model("llama3.1-70b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(tp=4),
                                napkin.ServingWorkload(input_tokens=1024, output_tokens=256, concurrency=16),
                                napkin.ServingSetup(kv="fp8"))
    assert_estimate_equals_json(e, j)


def test_serving_fabric_across_nodes_equals_napkin_serve_json(napkin_cli):
    # tp 8 x pp 2 on nodes of 8 H100: the stage hand-off crosses to the second node over IB NDR
    # (serve's default nodes), so the step's pp term is dearer than on one NVLink.
    j = napkin_cli("serve", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", 8, "--pp", 2, "--input-tokens",
                   1000, "--output-tokens", 200, "--concurrency", 32)
    assert j["link"] == "nvlink4" and j["inter_link"] == "ib-ndr" and j["gpus_per_node"] == 8
    model, gpu = catalog.model("llama3.1-70b"), catalog.gpu("h100-sxm")
    fabric = napkin.ServingFabric(catalog.link("nvlink4"), catalog.link("ib-ndr"), gpus_per_node=8)
    layout = napkin.ServingLayout(tp=8, pp=2)
    workload = napkin.ServingWorkload(input_tokens=1000, output_tokens=200, concurrency=32)
    e = napkin.evaluate_serving(model, gpu, fabric, layout, workload)
    assert_estimate_equals_json(e, j)
    one_link = napkin.evaluate_serving(model, gpu, catalog.link("nvlink4"), layout, workload)
    assert e.step.pp > one_link.step.pp and e.step.tp == one_link.step.tp
    with pytest.raises(ValueError, match="ServingFabric.gpus_per_node"):
        napkin.ServingFabric(catalog.link("nvlink4"), catalog.link("ib-ndr"), gpus_per_node=0)


def test_pipelined_stages_equal_napkin_serve_json(napkin_cli):
    # tp 2 x pp 4: 32 sequences as 4 micro-batches of 8 by default, the stages in turn with 1.
    model, gpu, link = catalog.model("llama3.1-70b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4")
    layout = napkin.ServingLayout(tp=2, pp=4)
    workload = napkin.ServingWorkload(input_tokens=1000, output_tokens=200, concurrency=32)
    args = ("serve", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", 2, "--pp", 4, "--input-tokens", 1000,
            "--output-tokens", 200, "--concurrency", 32)
    piped = napkin.evaluate_serving(model, gpu, link, layout, workload)
    in_turn = napkin.evaluate_serving(model, gpu, link, layout, workload, napkin.ServingSetup(pipeline_micro_batches=1))
    assert_estimate_equals_json(piped, napkin_cli(*args))
    assert_estimate_equals_json(in_turn, napkin_cli(*args, "--pipeline-micro-batches", 1))
    assert piped.step.micro_batches == 4 and in_turn.step.micro_batches == 1
    assert piped.tpot < in_turn.tpot
    with pytest.raises(ValueError, match="pipeline_micro_batches"):
        napkin.ServingSetup(pipeline_micro_batches=-1)


def test_best_disaggregation_equals_napkin_serve_json(napkin_cli):
    # 4 copies of 8B on one H100, prompts on an A100 pool and tokens on the H100s (serve's default nodes: the
    # cache crosses IB NDR between the two kinds), within a 500 ms TTFT and a 20 ms TPOT.
    j = napkin_cli("serve", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--input-tokens", 2048, "--output-tokens",
                   256, "--concurrency", 1, "--disaggregate", 4, "--prefill-gpu", "a100-80gb-sxm", "--ttft", "500ms",
                   "--tpot", "20ms")["disaggregated"]
    h100 = catalog.gpu("h100-sxm")
    fabric = napkin.ServingFabric(catalog.link("nvlink4"), catalog.link("ib-ndr"), gpus_per_node=8)
    d = napkin.best_disaggregation(catalog.model("llama3.1-8b"), catalog.gpu("a100-80gb-sxm"), fabric,
                                   napkin.ServingLayout(), 4, 2048, 256, ttft=0.5, tpot=0.02, decode_gpu=h100)
    assert d.prefill_instances == j["prefill_instances"] and d.decode_instances == j["decode_instances"]
    assert d.decode_concurrency == j["decode_concurrency"]
    for key in ("prefill", "kv_transfer", "ttft", "tpot"):
        assert close(getattr(d, key), j[key + "_s"]), key
    assert close(d.goodput, j["requests_per_s"])
    # A TTFT bound below one prompt's prefill admits no split.
    assert napkin.best_disaggregation(catalog.model("llama3.1-8b"), h100, fabric, napkin.ServingLayout(), 4, 2048,
                                      256, ttft=1e-6) is None
    with pytest.raises(ValueError, match="instances"):
        napkin.best_disaggregation(catalog.model("llama3.1-8b"), h100, fabric, napkin.ServingLayout(), 1, 2048, 256)
    # Unbounded, the prefill pool runs saturated (TTFT inf, JSON null); at 2 requests/s offered the TTFT is finite
    # and equals serve --arrival-rate 2's.
    j = napkin_cli("serve", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--input-tokens", 2048, "--output-tokens",
                   256, "--concurrency", 32, "--disaggregate", 4, "--arrival-rate", 2)["disaggregated"]
    args = (catalog.model("llama3.1-8b"), h100, fabric, napkin.ServingLayout(), 4, 2048, 256)
    assert math.isinf(napkin.best_disaggregation(*args).ttft)
    assert close(napkin.best_disaggregation(*args, arrival_rate=2.0).ttft, j["ttft_s"])


def test_kv_offload_equals_napkin_serve_json(napkin_cli):
    # 512 GiB of host memory per GPU over the H100's PCIe 5.0 slot (serve's default for --kv-offload).
    j = napkin_cli("serve", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--tp", 8, "--input-tokens", 8192,
                   "--output-tokens", 1024, "--concurrency", 400, "--kv-offload", "512GiB")
    setup = napkin.ServingSetup(kv_offload=napkin.KvOffload(capacity=512 * 2**30,
                                                            bandwidth=catalog.link("pcie5").bandwidth))
    e = napkin.evaluate_serving(catalog.model("llama3.1-70b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(tp=8),
                                napkin.ServingWorkload(input_tokens=8192, output_tokens=1024, concurrency=400), setup)
    assert_estimate_equals_json(e, j)
    assert close(e.memory.offloaded, j["memory"]["kv_offloaded"]) and e.memory.offloaded > 0
    assert close(e.step.kv_offload, j["decode_step"]["kv_offload_s"]) and e.step.kv_offload > 0
    with pytest.raises(ValueError, match="kv_offload.bandwidth"):
        napkin.KvOffload(capacity=2**30, bandwidth=0.0)


def test_serving_profile_roofline_and_nvfp4_equal_napkin_serve_json(napkin_cli):
    # ServingSetup.profile: napkin.roofline_serving is `serve --kernels roofline`; the fit is the default.
    j = napkin_cli("serve", "--model", "llama3.1-8b", "--gpu", "b200", "--input-tokens", 1024, "--output-tokens", 128,
                   "--concurrency", 32, "--kernels", "roofline", "--weight-dtype", "nvfp4", "--kv-dtype", "int8")
    setup = napkin.ServingSetup(profile=napkin.roofline_serving, weights="nvfp4", kv="int8")
    e = napkin.evaluate_serving(catalog.model("llama3.1-8b"), catalog.gpu("b200"), catalog.link("nvlink5"),
                                napkin.ServingLayout(),
                                napkin.ServingWorkload(input_tokens=1024, output_tokens=128, concurrency=32), setup)
    assert_estimate_equals_json(e, j)
    assert napkin.ServingSetup().profile.gemm_share == napkin.default_serving_profile.gemm_share
    assert napkin.roofline_serving.kernels == "roofline" and napkin.roofline_serving.layer_overhead == 0.0
    with pytest.raises(ValueError, match="ServingProfile.gemm_share"):
        napkin.ServingProfile(gemm_share=1.5)


def test_mxfp6_on_mi355x_equals_napkin_serve_json(napkin_cli):
    # MXFP6 weights at MI355X's FP6 rate (its data sheet's MXFP6/MXFP4 row), as `serve --weight-dtype mxfp6`.
    j = napkin_cli("serve", "--model", "llama3.1-70b", "--gpu", "mi355x", "--input-tokens", 2048, "--output-tokens", 256,
                   "--concurrency", 64, "--weight-dtype", "mxfp6")
    e = napkin.evaluate_serving(catalog.model("llama3.1-70b"), catalog.gpu("mi355x"),
                                catalog.link("infinity-fabric-mi355x"), napkin.ServingLayout(),
                                napkin.ServingWorkload(input_tokens=2048, output_tokens=256, concurrency=64),
                                napkin.ServingSetup(weights="mxfp6"))
    assert_estimate_equals_json(e, j)


def test_static_chunked_sweep_equals_napkin_serve_json(napkin_cli):
    j = napkin_cli("serve", "--model", "llama3.1-8b", "--gpu", "a100-80gb-sxm", "--tp", 2, "--pp", 2,
                   "--weight-dtype", "int4", "--input-tokens", 2000, "--output-tokens", 100, "--batch", 8,
                   "--prefill-chunk", 512, "--sweep", "1,4")
    model, gpu, link = catalog.model("llama3.1-8b"), catalog.gpu("a100-80gb-sxm"), catalog.link("nvlink3")
    layout = napkin.ServingLayout(tp=2, pp=2)
    workload = napkin.ServingWorkload(input_tokens=2000, output_tokens=100, concurrency=8, batching="static")
    setup = napkin.ServingSetup(weights="int4", prefill_chunk=512)
    assert_estimate_equals_json(napkin.evaluate_serving(model, gpu, link, layout, workload, setup), j)
    rows = napkin.serving_sweep(model, gpu, link, layout, workload, [1, 4], setup)
    assert len(rows) == len(j["rows"]) == 2
    for e, row in zip(rows, j["rows"]):
        assert_estimate_equals_json(e, row)
    # 2000 tokens in chunks of 512: four passes (512, 512, 512, 464).
    assert rows[0].prefill.passes == 4


def test_moe_serving_from_hf_config_equals_napkin_serve_json(napkin_cli, data_dir):
    path = os.path.join(data_dir, "mixtral_8x7b_config.json")
    j = napkin_cli("serve", "--model", path, "--gpu", "h100-sxm", "--tp", 2, "--ep", 2, "--input-tokens", 512,
                   "--output-tokens", 128, "--concurrency", 32)
    model = napkin.TransformerShape.from_hf_config(path)
    assert model.experts == 8 and model.experts_per_token == 2
    e = napkin.evaluate_serving(model, catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(tp=2, ep=2),
                                napkin.ServingWorkload(input_tokens=512, output_tokens=128, concurrency=32))
    assert_estimate_equals_json(e, j)
    assert e.step.ep > 0


def test_decode_step_and_prefill_are_the_estimates_parts():
    model, gpu, link = catalog.model("llama3.1-70b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4")
    layout = napkin.ServingLayout(tp=4)
    e = napkin.evaluate_serving(model, gpu, link, layout,
                                napkin.ServingWorkload(input_tokens=1024, output_tokens=256, concurrency=16))
    # evaluate_serving's step is decode_step at the mean context I + O/2 = 1152 tokens, B = 16.
    step = napkin.decode_step(model, gpu, link, layout, napkin.DecodeBatch(sequences=16, context=1152.0))
    assert step.to_dict() == e.step.to_dict()
    # Continuous batching prefills one prompt at a time.
    assert napkin.prefill(model, gpu, link, layout, 1, 1024).to_dict() == e.prefill.to_dict()
    assert napkin.max_concurrency(model, gpu, layout, 1024 + 256) == e.max_concurrency
    # busy = max(read, compute), total = busy + communication + the engine's overhead.
    assert close(step.busy, max(step.weights_read + step.kv_read, step.compute))
    assert close(step.total, step.busy + step.tp + step.pp + step.ep + step.overhead)


def test_expected_distinct_experts_by_hand():
    # E·(1 − (1 − k/E)^n): one token hits k experts; E = 8, k = 2, n = 2: 8·(1 − (3/4)²) = 3.5.
    assert napkin.expected_distinct_experts(8, 2, 1) == pytest.approx(2.0, rel=1e-15)
    assert napkin.expected_distinct_experts(8, 2, 2) == pytest.approx(3.5, rel=1e-15)
    with pytest.raises(ValueError, match="per_token"):
        napkin.expected_distinct_experts(8, 9, 1)


def test_bad_serving_input_raises_value_error_naming_it():
    model, gpu, link = catalog.model("llama3.1-70b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4")
    work = napkin.ServingWorkload(input_tokens=1024, output_tokens=256, concurrency=16)
    # 64 heads: tp = 3 does not divide them.
    with pytest.raises(ValueError, match=r"tp.*3.*must divide the attention heads"):
        napkin.evaluate_serving(model, gpu, link, napkin.ServingLayout(tp=3), work)
    with pytest.raises(ValueError, match="ServingLayout.pp"):
        napkin.ServingLayout(pp=0)
    with pytest.raises(ValueError, match="concurrency"):
        napkin.evaluate_serving(model, gpu, link, napkin.ServingLayout(tp=4),
                                napkin.ServingWorkload(input_tokens=1, output_tokens=1, concurrency=0))
    with pytest.raises(ValueError, match=r"ServingSetup\.kv.*int2"):
        napkin.ServingSetup(kv="int2")
    with pytest.raises(ValueError, match="base_latency"):
        napkin.evaluate_serving(model, gpu, link, napkin.ServingLayout(tp=4), work, base_latency=-1.0)
    with pytest.raises(TypeError):
        napkin.ServingWorkload(concurrency="many")


def test_moe_and_mla_fields_round_trip(data_dir):
    v3 = napkin.TransformerShape.from_hf_config(os.path.join(data_dir, "deepseek_v3_config.json"))
    # DeepSeek-V3's config.json: 256 routed experts, 8 per token, 1 shared, the first 3 layers dense,
    # MLA with kv_lora_rank 512, q_lora_rank 1536, 128 + 64 Q·K widths, 128 V width.
    assert (v3.experts, v3.experts_per_token, v3.shared_experts, v3.dense_layers) == (256, 8, 1, 3)
    assert (v3.kv_lora_rank, v3.q_lora_rank, v3.qk_nope_head_dim, v3.qk_rope_head_dim, v3.v_head_dim) == \
        (512, 1536, 128, 64, 128)
    assert v3.max_position_embeddings == 163840
    d = v3.to_dict()
    again = napkin.TransformerShape(**{k: v for k, v in d.items() if k != "parameters"})
    assert again.to_dict() == d


def test_gemma_fields_round_trip(data_dir):
    g = napkin.TransformerShape.from_hf_config(os.path.join(data_dir, "gemma3_4b_config.json"))
    # Gemma 3 4B: four norms a layer, 5 local layers of 1,024 to 1 global, the SigLIP tower and its
    # projection 416,866,032 + 1,152 + 1,152 x 2,560 = 419,816,304 of its 4,300,079,472 weights.
    assert (g.norms_per_layer, g.sliding_window, g.global_every) == (4, 1024, 6)
    assert g.vision_weights == 419816304
    assert napkin.parameter_count(g) == 4300079472
    d = g.to_dict()
    again = napkin.TransformerShape(**{k: v for k, v in d.items() if k != "parameters"})
    assert again.to_dict() == d


def test_layer_maps():
    # Two stages of two chunks: stage 0 holds 6 + 5 = 11 layers, stage 1 9 + 9 = 18.
    m = napkin.parse_layer_map("1-6,25-29/7-15,16-24", 29, 2)
    assert (m.stages, m.chunks) == (2, 2)
    assert [(r.first, r.last) for r in m.ranges] == [(1, 6), (25, 29), (7, 15), (16, 24)]
    assert m.stage_layers(0) == 11 and m.stage_layers(1) == 18
    assert m.fullest_stage == 1
    even = napkin.even_layer_map(96, 8)
    assert even.layers_per_chunk == [12] * 8
    with pytest.raises(ValueError, match="--layer-map"):
        napkin.parse_layer_map("1-6/8-29", 29, 2)
    with pytest.raises(ValueError, match="stage"):
        m.stage_layers(2)


# --- the training options and memory parts that landed after the first module ---

def h100_cluster(gpus):
    node = catalog.node("dgx-h100")
    return napkin.Cluster(node=node, nodes=gpus // node.gpus)


def test_gpu_gemm_fields():
    h100 = catalog.gpu("h100-sxm")
    # NVIDIA Hopper whitepaper: 132 SMs on the SXM5 part; FP8 at twice the 16-bit dense peak.
    assert h100.sm_count == 132 and h100.architecture == "hopper"
    assert h100.fp8_flops == pytest.approx(2 * h100.peak_flops, rel=1e-3)
    g = napkin.Gpu(name="x", memory=80e9, usable_fraction=0.9, memory_bandwidth=2e12, peak_flops=1e15,
                   sm_count=100, fp8_flops=2e15, architecture="blackwell")
    assert (g.sm_count, g.fp8_flops, g.architecture) == (100, 2e15, "blackwell")
    with pytest.raises(ValueError, match="Gpu.architecture"):
        g.architecture = "kepler"
    # The workstation Blackwell (compute capability 12.x, GDDR7) is an architecture of its own.
    assert catalog.gpu("rtx-pro-6000").architecture == "rtx-blackwell"


def test_training_options_round_trip():
    o = napkin.TrainingOptions(compute_model="flat", compute_dtype="fp8", overlap_tp=True, overlap_param_gather=True,
                               fsdp_prefetch=False,
                               profile=napkin.EfficiencyProfile(ampere_share=0.5, hopper_share=0.4, memory_passes=1.0),
                               memory_allowances=napkin.MemoryAllowances(fragmentation=0.1, loss_logits=False))
    d = o.to_dict()
    assert (d["compute_model"], d["compute_dtype"], d["overlap_tp"], d["overlap_param_gather"],
            d["fsdp_prefetch"]) == ("flat", "fp8", True, True, False)
    assert d["profile"] == {"ampere_share": 0.5, "hopper_share": 0.4, "memory_passes": 1.0}
    assert d["memory_allowances"]["fragmentation"] == 0.1 and d["memory_allowances"]["loss_logits"] is False
    # The defaults are the library's: the GEMM model with the fitted profile, 544 MiB of context.
    default = napkin.TrainingOptions()
    assert default.compute_model == "gemm" and default.fsdp_prefetch is True
    assert default.profile.to_dict() == napkin.default_profile.to_dict()
    assert default.memory_allowances.cuda_context == (512 + 32) * 2**20
    with pytest.raises(ValueError, match="TrainingOptions.compute_model"):
        napkin.TrainingOptions(compute_model="exact")


def test_training_options_change_the_result():
    model = catalog.model("llama3.1-70b")
    par = napkin.Parallelism(tp=8, pp=1, dp=4, micro_batch=1, global_batch=64, sequence=4096,
                             sequence_parallel=True, flash_attention=True, recompute="full", sharding="distributed")
    cluster = h100_cluster(32)
    base = napkin.evaluate_training(model, cluster, par)
    # --tp-comm-overlap hides the TP collectives behind the linear layers' GEMMs: never more, here less.
    tp = napkin.evaluate_training(model, cluster, par, napkin.TrainingOptions(overlap_tp=True))
    assert tp.breakdown.tp < base.breakdown.tp
    # The FP8 peak is twice the 16-bit one: the compute falls.
    fp8 = napkin.evaluate_training(model, cluster, par, napkin.TrainingOptions(compute_dtype="fp8"))
    assert fp8.breakdown.compute < base.breakdown.compute
    # The flat roofline is another compute model: another compute time, the same memory.
    flat = napkin.evaluate_training(model, cluster, par, napkin.TrainingOptions(compute_model="flat"))
    assert flat.breakdown.compute != base.breakdown.compute
    assert flat.memory.total == base.memory.total
    # memory.hpp: fragmentation = share × activations; p = 1 holds the fp32 logits b·s·V/t·4 bytes.
    frag = napkin.evaluate_training(
        model, cluster, par, napkin.TrainingOptions(memory_allowances=napkin.MemoryAllowances(fragmentation=0.25)))
    assert close(frag.memory.fragmentation, 0.25 * frag.memory.activations)
    assert close(base.memory.loss_logits, 1 * 4096 * model.vocabulary / 8 * 4.0)
    assert close(base.memory.total, base.memory.states + base.memory.activations + base.memory.allowances)
    # The NCCL buffers: one communicator each for TP and DP (pp = 1), the same channels each.
    assert base.memory.nccl_buffers > 0
    none = napkin.evaluate_training(model, cluster, par,
                                    napkin.TrainingOptions(memory_allowances=napkin.no_memory_allowances))
    assert none.memory.allowances == 0.0
    assert close(base.memory.total - none.memory.total, base.memory.allowances)



def test_simulate_serving_equals_napkin_serve_json(napkin_cli):
    # The request-level simulator through Python and through `napkin serve --arrival-rate`: the same run.
    args = ("serve", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--input-tokens", 467, "--output-tokens", 64,
            "--arrival-rate", 8, "--requests", 100, "--seed", 3)
    j = napkin_cli(*args)
    r = napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 467, 64, arrival_rate=8, requests=100, seed=3)
    s = r["summary"]
    for key in ("ttft_s", "tpot_s", "itl_s", "e2e_s"):
        for q in ("mean", "p50", "p90", "p99"):
            assert close(s[key][q], j[key][q]), (key, q)
    assert s["steps"] == j["steps"]
    assert close(s["output_tokens_per_s"], j["output_tokens_per_s"])
    assert len(r["requests"]["ttft_s"]) == 100


def test_simulate_serving_front_end_latency_adds_to_ttft_not_itl(napkin_cli):
    # A front end of 3.2 ms: the same engine run, every TTFT 3.2 ms later, the token gaps unchanged;
    # --front-end-latency 3.2ms gives the same numbers.
    args = dict(arrival_rate=8, requests=100, seed=3)
    model, gpu, link = catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4")
    engine = napkin.simulate_serving(model, gpu, link, napkin.ServingLayout(), 467, 64, **args)["summary"]
    served = napkin.simulate_serving(model, gpu, link, napkin.ServingLayout(), 467, 64, front_end_latency=0.0032,
                                     **args)["summary"]
    assert close(served["ttft_s"]["mean"], engine["ttft_s"]["mean"] + 0.0032)
    assert close(served["itl_s"]["mean"], engine["itl_s"]["mean"])
    j = napkin_cli("serve", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--input-tokens", 467, "--output-tokens",
                   64, "--arrival-rate", 8, "--requests", 100, "--seed", 3, "--front-end-latency", "3.2ms")
    assert close(j["ttft_s"]["mean"], served["ttft_s"]["mean"])
    assert close(j["front_end_latency_s"], 0.0032)
    with pytest.raises(ValueError, match="front_end_latency"):
        napkin.simulate_serving(model, gpu, link, napkin.ServingLayout(), 10, 10, arrival_rate=1,
                                front_end_latency=-1.0)


def test_simulate_serving_disaggregated_equals_napkin_serve_json(napkin_cli):
    # 3 instances: --disaggregate picks 2 prefill (H100) + 1 decode (H200); the same pools from Python, every
    # GPU on one NVLink (--link), so the caches cross the same link.
    j = napkin_cli("serve", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--input-tokens", 500, "--output-tokens",
                   200, "--arrival-rate", 4, "--requests", 50, "--disaggregate", 3, "--decode-gpu", "h200-sxm",
                   "--link", "nvlink4")
    assert (j["disaggregated"]["prefill_instances"], j["disaggregated"]["decode_instances"]) == (2, 1)
    r = napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 500, 200, arrival_rate=4, requests=50, disaggregate=(2, 1),
                                decode_gpu=catalog.gpu("h200-sxm"))
    for key in ("ttft_s", "itl_s", "e2e_s"):
        assert close(r["summary"][key]["mean"], j[key]["mean"]), key
    with pytest.raises(ValueError, match="decode_gpu"):
        napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 10, 10, arrival_rate=1, decode_gpu=catalog.gpu("h200-sxm"))
    with pytest.raises(ValueError, match="prefill instances"):
        napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 10, 10, arrival_rate=1, disaggregate=(0, 1))
    with pytest.raises(ValueError, match="clients = \"4\": runs one engine"):
        napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 10, 10, clients=4, disaggregate=(1, 1))


def test_simulate_serving_clients_equals_napkin_serve_json(napkin_cli):
    # A closed loop of 8 clients from Python and from `napkin serve --clients 8`: the same run, 8 always in flight.
    j = napkin_cli("serve", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--input-tokens", 467, "--output-tokens",
                   64, "--clients", 8, "--requests", 80)
    r = napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 467, 64, clients=8, requests=80)["summary"]
    for key in ("ttft_s", "itl_s", "e2e_s"):
        assert close(r[key]["mean"], j[key]["mean"]), key
    assert j["clients"] == 8
    with pytest.raises(ValueError, match="arrival_rate"):
        napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 10, 10, arrival_rate=2, clients=8)
    with pytest.raises(ValueError, match="clients"):
        napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 10, 10, clients=0)


def test_simulate_serving_client_start_gap_equals_napkin_serve_json(napkin_cli):
    # Clients started 1 µs apart: the first prompt has the engine to itself, so the least TTFT is shorter than
    # with all started together (8 prompts of 2,048 tokens in steps of 8,192); Python and the CLI agree.
    args = ("serve", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--input-tokens", 2048, "--output-tokens", 16,
            "--clients", 8, "--requests", 16)
    together = napkin_cli(*args)
    apart = napkin_cli(*args, "--client-start-gap", "1us")
    r = napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 2048, 16, clients=8, requests=16,
                                client_start_gap=1e-6)["summary"]
    assert apart["client_start_gap_s"] == 1e-6
    assert apart["ttft_s"]["min"] < together["ttft_s"]["min"]
    for key in ("min", "mean", "max"):
        assert close(r["ttft_s"][key], apart["ttft_s"][key]), key
    with pytest.raises(ValueError, match="client_start_gap = -1: must be from 0 to 3600 s"):
        napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 10, 10, clients=2, client_start_gap=-1.0)
    with pytest.raises(ValueError, match="give clients"):
        napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 10, 10, arrival_rate=1, client_start_gap=1e-6)


def test_simulate_serving_bad_input_names_it():
    with pytest.raises(ValueError, match="scheduler"):
        napkin.simulate_serving(catalog.model("llama3.1-8b"), catalog.gpu("h100-sxm"), catalog.link("nvlink4"),
                                napkin.ServingLayout(), 10, 10, arrival_rate=1, scheduler="fifo")
