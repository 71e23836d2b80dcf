# The communication lab's numbers through Python: the derivations of
# tests/unit/collectives.cpp and tests/unit/communication_budget.cpp.
import napkin
import pytest

# The lab's network: InfiniBand NDR at 50 GB/s per GPU with 5 µs a step, NVLink at 900 GB/s with 0.5 µs.
ib_ndr = napkin.Link(name="ib-ndr", bandwidth=50e9, step_latency=5e-6)
nvlink = napkin.Link(name="nvlink", bandwidth=900e9, step_latency=0.5e-6)


def approx(x, rel=1e-12):
    return pytest.approx(x, rel=rel)


def test_part_a_11_03_s():
    # 280 GB: bandwidth 2·63/64 × 280 GB / 50 GB/s = 11.025 s; latency 2·63 × 5 µs = 0.63 ms
    t = napkin.ring_allreduce(280e9, 64, ib_ndr)
    assert t.bandwidth == approx(11.025)
    assert t.latency == approx(0.63e-3)
    assert t.total == approx(11.02563)
    assert t.bandwidth_share == approx(11.025 / 11.02563)


def test_part_b_tree_wins_at_1_mib_on_256():
    # Ring: 510 × 5 µs + 2·255/256 × 1,048,576 B / 50 GB/s; tree: 16 × (5 µs + 20.97152 µs)
    ring = napkin.ring_allreduce(napkin.MiB, 256, ib_ndr)
    tree = napkin.tree_allreduce(napkin.MiB, 256, ib_ndr)
    assert ring.total == approx(2591.7792e-6)
    assert tree.total == approx(415.54432e-6)
    assert ring.latency == approx(510 * 5e-6)
    assert tree.latency == approx(16 * 5e-6)


def test_crossover():
    # M* = α·B·(n − 1 − L)/(L − (n − 1)/n), α·B = 250,000 B
    for n, expected in ((64, 250000 * 57 * 64 / 321), (256, 250000 * 247 * 256 / 1793),
                        (1024, 250000 * 1013 * 1024 / 9217)):
        m = napkin.ring_tree_crossover(n, ib_ndr)
        assert m == approx(expected)
        assert napkin.ring_allreduce(m, n, ib_ndr).total == approx(napkin.tree_allreduce(m, n, ib_ndr).total)
    assert napkin.ring_tree_crossover(2, ib_ndr) is None
    assert napkin.ring_tree_crossover(3, ib_ndr) is None
    assert napkin.ring_tree_crossover(256, ib_ndr, 6.6e-6) == napkin.ring_tree_crossover(256, ib_ndr)


def test_part_c_hierarchical_6_23x():
    # 140 GB: flat ring 5.5125 s + 0.63 ms; hierarchical inside 2 × 7/8 × 140/900 s, across 2·7/8 × 17.5 GB / (50/r GB/s)
    flat = napkin.ring_allreduce(140e9, 64, ib_ndr)
    inside = 2 * (7 / 8 * 140 / 900)
    for r, across in ((1, 0.6125), (2, 1.225), (4, 2.45)):
        topology = napkin.HierarchicalTopology(nodes=8, gpus_per_node=8, intra=nvlink, inter=ib_ndr,
                                               oversubscription=r)
        h = napkin.hierarchical_allreduce(140e9, topology)
        assert h.latency == approx(77e-6)
        assert h.bandwidth == approx(inside + across)
    speedup = lambda r: flat.total / napkin.hierarchical_allreduce(
        140e9, napkin.HierarchicalTopology(nodes=8, gpus_per_node=8, intra=nvlink, inter=ib_ndr,
                                           oversubscription=r)).total
    assert speedup(1) == pytest.approx(6.2309, rel=1e-4)
    assert speedup(2) == pytest.approx(3.6820, rel=1e-4)
    assert speedup(4) == pytest.approx(2.0252, rel=1e-4)
    shared = napkin.HierarchicalTopology(nodes=8, gpus_per_node=8, intra=nvlink, inter=ib_ndr, nic="per-node")
    assert napkin.hierarchical_allreduce(140e9, shared).bandwidth == approx(inside + 4.9)
    assert napkin.inter_node_link(shared).bandwidth == approx(6.25e9)
    own = napkin.HierarchicalTopology(nodes=8, gpus_per_node=8, intra=nvlink, inter=ib_ndr)
    assert napkin.lab_hierarchical_allreduce(140e9, own).total == approx(napkin.hierarchical_allreduce(140e9, own).total)


def test_other_collectives_on_8_ranks():
    # 8 GB: (n − 1)/n · M/B = 7/8 × 0.16 s = 0.14 s, 7 steps of 5 µs; broadcast the whole 0.16 s
    for f in (napkin.reduce_scatter, napkin.all_gather, napkin.all_to_all):
        t = f(8e9, 8, ib_ndr)
        assert t.bandwidth == approx(0.14)
        assert t.latency == approx(35e-6)
    assert napkin.broadcast(8e9, 8, ib_ndr).bandwidth == approx(0.16)
    assert napkin.collective_time("all-to-all", 8e9, 8, ib_ndr).total == napkin.all_to_all(8e9, 8, ib_ndr).total
    assert napkin.point_to_point(8e9, ib_ndr).total == approx(5e-6 + 0.16)
    # nccl-tests: 1 GB in 10 ms on 8 ranks is algbw 100 GB/s, busbw 100 × 14/8 = 175 GB/s
    assert napkin.algorithm_bandwidth(1e9, 10e-3) == approx(100e9)
    assert napkin.bus_bandwidth("all-reduce", 8, 1e9, 10e-3) == approx(175e9)


def test_policies_match_the_free_functions():
    base = 6.6e-6
    assert napkin.Ring(base).all_reduce(64e6, 16, ib_ndr).total == napkin.ring_allreduce(64e6, 16, ib_ndr, base).total
    assert napkin.Tree(base).all_reduce(64e6, 16, ib_ndr).total == napkin.tree_allreduce(64e6, 16, ib_ndr, base).total
    two_level = napkin.Hierarchical(gpus_per_node=8, inter=ib_ndr, base_latency=base)
    topology = napkin.HierarchicalTopology(nodes=8, gpus_per_node=8, intra=nvlink, inter=ib_ndr)
    assert two_level.all_reduce(64e6, 64, nvlink).total == napkin.hierarchical_allreduce(64e6, topology, base).total


def test_nccl_choice_on_8_nvlink_gpus():
    nv = napkin.Link(name="nvlink3", bandwidth=300e9, step_latency=0.6e-6)
    # 0 bytes: ring LL 6.6 + 14 × 0.6 = 15.0 µs; tree LL 6.8 + 2·3 × 0.6 = 10.4 µs, the fastest
    tiny = napkin.NcclModel("nvlink").choose(0, 8, nv)
    assert (tiny.algorithm, tiny.protocol) == ("tree", "LL")
    assert tiny.time.total == approx(10.4e-6)
    assert napkin.nccl_allreduce(0, 8, nv, "nvlink", "ring", "LL").total == approx(15.0e-6)
    assert napkin.nccl_choice(0, 8, nv).algorithm == "tree"


def test_nccl_across_16_nodes():
    nv = napkin.Link(name="nvlink3", bandwidth=300e9, step_latency=0.6e-6)
    ib = napkin.Link(name="ib-hdr", bandwidth=25e9, step_latency=2.7e-6)
    t = napkin.HierarchicalTopology(nodes=16, gpus_per_node=8, intra=nv, inter=ib)
    # ring LL: 6.6 + 224 × 0.6 + 30 × 2.7 = 222.0 µs; tree LL: 6.8 + 2·(7 × 0.6 + 4 × 5.0) = 55.2 µs
    assert napkin.nccl_allreduce(0, t, "nvlink", "ring", "LL").latency == approx(222.0e-6)
    assert napkin.nccl_allreduce(0, t, "nvlink", "tree", "LL").latency == approx(55.2e-6)
    # 1 GB ring Simple: 8.4 + 224 × 3.4 + 30 × 14 = 1,190 µs + 254/128 × 1 GB / 25 GB/s
    assert napkin.nccl_allreduce(1e9, t, "nvlink", "ring", "Simple").total == approx(1190e-6 + 254 / 128 / 25)
    big = napkin.nccl_choice(1e9, t)
    assert (big.algorithm, big.protocol) == ("ring", "Simple")


# --- the communication budget: parts D and E -------------------------------------

def lab_plan(nic, overlap_efficiency):
    return napkin.CommunicationPlan(
        parameters=70_000_000_000, gradients="fp32", reduced_gradients="fp16", tensors=1, bucket=25e6,
        topology=napkin.HierarchicalTopology(nodes=8, gpus_per_node=8, intra=nvlink, inter=ib_ndr, nic=nic),
        compute=19.0, backward=19.0 * 2 / 3, overlap_efficiency=overlap_efficiency, base_latency=0.0)


def test_gradient_bytes_and_fusion():
    assert napkin.gradient_bytes(70_000_000_000, "fp32") == 280e9
    assert napkin.gradient_bytes(70_000_000_000, "fp8") == 70e9
    assert napkin.fused_calls(1e9, 1000, 25e6) == 40
    assert napkin.fused_calls(280e9, 723, 25e6) == 723
    # 40 calls of 25 MB on 64 GPUs: latency 40 × 126 × 5 µs = 25.2 ms, bandwidth 1.96875 × 20 ms
    fused = napkin.split_allreduce(1e9, 40, 64, ib_ndr, napkin.Ring())
    assert fused.latency == approx(25.2e-3)
    assert fused.bandwidth == approx(39.375e-3)


def test_overlap_and_share():
    assert napkin.hidden_communication(10, 12, 0.85) == approx(8.5)
    step = napkin.step_time(18, 20, 12, 0.85)
    assert step.exposed == approx(8.0)
    assert step.total == approx(26.0)
    assert napkin.communication_for_share(19, 0.2) == approx(4.75)


def test_part_d_int8_30_percent():
    int8 = next(c for c in napkin.catalog.compressions() if c.name == "INT8 (4x)")
    r = napkin.compression_time_ratio(140e9, int8, 64, ib_ndr, napkin.Ring(), 5.0)
    assert r == pytest.approx(1.15 * 6.378755 / 10.51313, rel=1e-9)


def test_part_e():
    plan = lab_plan("per-gpu", 0.85)
    raw = napkin.plan_step(plan, 0)
    assert raw.communication == approx(11.02563)
    assert raw.communication_share == approx(11.02563 / 30.02563)
    h = napkin.plan_step(plan, napkin.optimization.hierarchical)
    assert h.communication_share == pytest.approx(1.769521 / 20.769521, rel=1e-6)
    o = napkin.plan_step(plan, napkin.optimization.overlap)
    assert o.communication_share == pytest.approx(1.653845 / 20.653845, rel=1e-6)
    best = napkin.smallest_stack_under(plan, 0.2)
    assert best.optimizations == napkin.optimization.overlap and best.size == 1
    shared = lab_plan("per-node", 0.0)
    both = napkin.plan_step(shared, napkin.optimization.hierarchical | napkin.optimization.half_precision)
    assert both.communication_share == pytest.approx(5.172299 / 24.172299, rel=1e-6)
    assert napkin.smallest_stack_under(shared, 0.2) is None
    assert len(napkin.optimization_stacks(shared)) == 16
    assert napkin.describe_optimizations(napkin.optimization.hierarchical | napkin.optimization.overlap) == \
        "hierarchical + overlap"
