# The split lesson's numbers through Python: the same derivations as
# tests/unit/inference.cpp, each checked here with the module's functions.
import math

import napkin
import pytest
from napkin import catalog

a100 = catalog.gpu("a100-80gb-sxm")
fast = catalog.link("nvlink-a100")  # 600 GB/s, 0.6 µs a step
slow = catalog.link("pcie-gen4")    # 64 GB/s, 1.0 µs a step
m8b = catalog.model("llama3.1-8b")
m70b = catalog.model("llama3.1-70b")
m405b = catalog.model("llama3.1-405b")


def round2(x):
    """The lesson rounds half up to two decimals."""
    return math.floor(x * 100 + 0.5) / 100


def ms2(seconds):
    return round2(seconds * 1e3)


def pct1(share):
    return math.floor(share * 1000 + 0.5) / 10


def slices(model, n, link, w=1):
    return napkin.token_time(model, a100, link, gpus=n, split="tensor", tokens_in_flight=w)


def groups(model, n, link):
    return napkin.token_time(model, a100, link, gpus=n, split="pipeline")


def test_70b_on_4_gpus_memory():
    # weights 70,553,706,496 × 2 / 4; cache 327,680 B/token × 8,192 / 4 KV-head shares;
    # working 2,048 × (3·28,672 + 4·8,192) × 2 = 486,539,264, plus 1 GiB.
    m = napkin.memory_per_gpu(m70b, 4)
    assert m.weights == 35_276_853_248
    assert m.kv_cache == 671_088_640
    assert m.working == 1_560_281_088
    assert m.total == 37_508_222_976
    assert napkin.format_bytes(m.total) == "34.93 GiB"
    assert "total=34.93 GiB" in repr(m)


def test_kv_cache_shared_by_kv_head_and_whole_byte_weights():
    assert napkin.kv_cache_per_gpu(m70b, 16) == napkin.kv_cache_per_gpu(m70b, 8) == 2_684_354_560 / 8
    # 8,030,261,248 × 2 / 3 = 5,353,507,498.67 -> 5,353,507,499
    assert napkin.weights_per_gpu(m8b, 3) == 5_353_507_499


def test_lesson_memory_figures():
    gib = napkin.GiB
    assert round2(napkin.weight_bytes(m70b, 2) / gib) == 131.42
    assert round2(napkin.weights_per_gpu(m70b, 4) / gib) == 32.85
    assert round2(napkin.weight_bytes(m405b, 2) / gib) == 755.96
    assert round2(napkin.memory_per_gpu(m70b, 2).total / gib) == 68.41
    assert round2(napkin.memory_per_gpu(m405b, 16).total / gib) == 49.60


def test_fewest_gpus_1_2_11():
    assert napkin.fewest_gpus(m8b, a100) == 1
    assert napkin.fewest_gpus(m70b, a100) == 2
    assert napkin.fewest_gpus(m405b, a100) == 11
    assert not napkin.fits(m405b, a100, 10)
    assert napkin.fits(m405b, a100, 11)
    assert napkin.fewest_gpus(m405b, a100, max_gpus=10) is None
    huge = napkin.InferenceSetup(working_allowance=100 * napkin.GiB)
    assert napkin.fewest_gpus(m8b, a100, huge) is None


def test_reading_and_compute():
    # 141,107,412,992 bytes / 2,039 GB/s = 69.204 ms
    assert ms2(napkin.weight_read_time(m70b, a100, 1)) == 69.20
    assert ms2(napkin.weight_read_time(m70b, a100, 4)) == 17.30
    # 2 × 70,553,706,496 × 64 / (8 × 312e12) = 3.618 ms
    assert ms2(napkin.token_compute_time(m70b, a100, 8, 64)) == 3.62
    assert ms2(napkin.token_compute_time(m70b, a100, 1, 1)) == 0.45


def test_one_swap_10_24_us():
    # 6.6 + 6 × 0.6 = 10.2 µs start-up, plus 24,576 B / 600 GB/s = 0.041 µs
    swap = napkin.Ring(6.6e-6).all_reduce(16384, 4, fast)
    assert swap.latency == pytest.approx(10.2e-6, rel=1e-12)
    assert swap.bandwidth == pytest.approx(0.04096e-6, rel=1e-9)
    assert round2(swap.total * 1e6) == 10.24
    assert pct1(swap.latency / swap.total) == 99.6
    ring = napkin.ring_allreduce
    assert round2(ring(8192, 2, fast, 6.6e-6).total * 1e6) == 7.81
    assert round2(ring(16384 * 64, 8, fast, 6.6e-6).total * 1e6) == 18.06
    assert round2(ring(16384 * 64, 8, slow, 6.6e-6).total * 1e6) == 49.27


def test_70b_on_4_fast_18_94_ms():
    t = slices(m70b, 4, fast)
    assert ms2(t.read) == 17.30
    assert ms2(t.transfer) == 1.64  # 160 × 10.24 µs
    assert ms2(t.total) == 18.94
    assert pct1(t.waiting_share) == 8.7
    assert napkin.format_seconds(t.total) == "18.94 ms"


def test_70b_waiting_shares():
    assert [pct1(slices(m70b, n, fast).waiting_share) for n in (2, 4, 8, 16)] == [3.5, 8.7, 21.8, 47.7]
    assert ms2(slices(m70b, 16, fast).total) == 8.27
    assert round2(slices(m70b, 8, fast).total / slices(m70b, 16, fast).total) == 1.34


def test_8b_table():
    expected = {1: (7.88, 7.88), 2: (4.44, 4.50), 4: (2.62, 2.79), 8: (1.95, 2.32), 16: (2.07, 2.85)}
    for n, (on_fast, on_slow) in expected.items():
        assert ms2(slices(m8b, n, fast).total) == on_fast, n
        assert ms2(slices(m8b, n, slow).total) == on_slow, n
    assert [pct1(slices(m8b, n, fast).waiting_share) for n in (2, 4, 8, 16)] == [11.3, 24.9, 49.4, 76.2]
    assert [pct1(slices(m8b, n, slow).waiting_share) for n in (2, 4, 8, 16)] == [12.4, 29.4, 57.5, 82.7]
    assert round(slices(m8b, 8, fast).user_tokens_per_second) == 514
    assert round(slices(m8b, 16, fast).user_tokens_per_second) == 483


def test_tokens_in_flight_70b_on_8():
    expected = {1: (11.06, 12.02, 21.8, 28.0), 16: (11.17, 13.09, 22.6, 33.9), 64: (11.54, 16.53, 25.0, 47.7)}
    for w, (on_fast, on_slow, share_fast, share_slow) in expected.items():
        assert ms2(slices(m70b, 8, fast, w).total) == on_fast
        assert ms2(slices(m70b, 8, slow, w).total) == on_slow
        assert pct1(slices(m70b, 8, fast, w).waiting_share) == share_fast
        assert pct1(slices(m70b, 8, slow, w).waiting_share) == share_slow


def test_halved_links():
    fast_half = napkin.Link(name="half-fast", bandwidth=fast.bandwidth / 2, step_latency=fast.step_latency)
    slow_half = napkin.Link(name="half-slow", bandwidth=slow.bandwidth / 2, step_latency=slow.step_latency)
    assert ms2(slices(m70b, 8, fast_half).total) == 11.07
    assert ms2(slices(m70b, 8, slow_half).total) == 12.09
    assert ms2(slices(m70b, 8, slow_half, 64).total) == 21.12


def test_groups_of_layers_69_23_ms():
    t = groups(m70b, 4, fast)
    assert ms2(t.total) == 69.23
    # a hand-off: base 6.6 + one step 0.6 µs + 16,384 B / 600 GB/s
    assert t.transfer == pytest.approx(3 * (7.2e-6 + 16384 / 600e9), rel=1e-12)
    assert math.floor(t.waiting_share * 10000 + 0.5) / 100 == 0.03


def test_best_counts():
    assert napkin.best_gpu_count(m8b, a100, fast).gpus == 10
    assert napkin.best_gpu_count(m8b, a100, slow).gpus == 8
    assert napkin.best_gpu_count(m70b, a100, fast).gpus == 19
    assert napkin.best_gpu_count(m70b, a100, slow).gpus == 15
    assert napkin.best_gpu_count(m405b, a100, fast).gpus == 36
    assert napkin.best_gpu_count(m405b, a100, slow).gpus == 28
    for link in (fast, slow):
        assert napkin.best_gpu_count(m8b, a100, link, divide_heads=True).gpus == 8
        assert napkin.best_gpu_count(m70b, a100, link, divide_heads=True).gpus == 16
        assert napkin.best_gpu_count(m405b, a100, link, divide_heads=True).gpus == 32
    assert napkin.best_gpu_count(m70b, a100, fast, max_gpus=16).gpus == 16
    assert napkin.best_gpu_count(m405b, a100, fast, max_gpus=10) is None


def test_the_collective_is_a_policy():
    # 160 swaps × 6.6 µs = 1.056 ms less without the base latency
    without = napkin.token_time(m70b, a100, fast, gpus=8, collective=napkin.Ring())
    assert slices(m70b, 8, fast).transfer - without.transfer == pytest.approx(1.056e-3, rel=1e-9)
