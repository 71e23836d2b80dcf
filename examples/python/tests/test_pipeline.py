# Pipeline closed forms and the simulator through Python (tests/unit/pipeline.cpp, schedule.cpp).
import napkin
import pytest

p4m8 = napkin.PipelineShape(stages=4, microbatches=8)
fbw = napkin.StageTimes(forward=1e-3, backward=2e-3, weight_grad=1e-3)


def test_gpipe_and_1f1b_p4_m8():
    # bubble (p − 1)(F + B) = 3 × 3 ms = 9 ms, step 11 × 3 ms = 33 ms, share 3/11, ratio 3/8
    for s in ("gpipe", "1f1b"):
        assert napkin.bubble_time(s, p4m8, fbw) == pytest.approx(9e-3, rel=1e-12)
        assert napkin.step_time(s, p4m8, fbw) == pytest.approx(33e-3, rel=1e-12)
        assert napkin.bubble_share_of_step(s, p4m8, fbw) == pytest.approx(3 / 11, rel=1e-12)
        assert napkin.bubble_ratio_to_ideal(s, p4m8, fbw) == pytest.approx(3 / 8, rel=1e-12)
    assert napkin.ideal_step_time(p4m8, fbw) == pytest.approx(24e-3, rel=1e-12)


def test_interleaved_zero_bubble_dualpipe():
    v2 = napkin.PipelineShape(stages=4, microbatches=8, chunks=2)
    assert napkin.bubble_time("interleaved", v2, fbw) == pytest.approx(4.5e-3, rel=1e-12)
    assert napkin.bubble_share_of_step("interleaved", v2, fbw) == pytest.approx(3 / 19, rel=1e-12)
    assert napkin.bubble_time("zb-h1", p4m8, fbw) == pytest.approx(3e-3, rel=1e-12)  # 3·(1 + 2 − 2) ms
    assert napkin.bubble_time("zb-h2", p4m8, fbw) == pytest.approx(0.0, abs=1e-15)
    p8 = napkin.PipelineShape(stages=8, microbatches=16)
    # (8/2 − 1)(F&B + B − 3W) = 3 × (3 + 2 − 3) = 6 ms; F&B = 2.5 ms gives 4.5 ms
    assert napkin.bubble_time("dualpipe", p8, fbw) == pytest.approx(6e-3, rel=1e-12)
    assert napkin.bubble_time("dualpipe", p8, fbw, overlapped_forward_backward=2.5e-3) == pytest.approx(4.5e-3, rel=1e-12)
    assert napkin.microbatches_in_flight("gpipe", p4m8, 2) == 8
    assert napkin.microbatches_in_flight("1f1b", p4m8, 0) == 4
    assert napkin.parameter_memory_multiplier("dualpipe") == 2


def test_simulate_1f1b_p2_m2_by_hand():
    # stage 0: F0 [0,1] F1 [1,2] B0 [4,6] B1 [7,9]; stage 1: F0 [1,2] B0 [2,4] F1 [4,5] B1 [5,7]
    t = napkin.simulate_schedule("1f1b", napkin.PipelineShape(stages=2, microbatches=2),
                                 napkin.StageTimes(forward=1.0, backward=2.0))
    assert len(t.passes) == len(t) == 8
    assert [(p.kind, p.microbatch) for p in t.stage(0)] == [("forward", 0), ("forward", 1), ("backward", 0),
                                                            ("backward", 1)]
    assert [p.start for p in t.stage(0)] == [0, 1, 4, 7]
    assert [p.start for p in t.stage(1)] == [1, 2, 4, 5]
    assert t.step_time == 9.0
    assert t.idle_time(0) == t.idle_time(1) == 3.0
    assert t.idle_fraction == pytest.approx(6 / 18)
    assert t.passes[0].to_dict()["pass"] == "forward"
    # 0.5 s sends: step 10 s
    assert napkin.simulate("1f1b", napkin.PipelineShape(stages=2, microbatches=2),
                           napkin.StageTimes(forward=1.0, backward=2.0), send=0.5).step_time == 10.0


def test_simulate_uneven_stages():
    # GPipe p = 2, stage 1 twice as slow: step 15 s; one stage with micro-batch 1 twice as long: 12 s
    stages = [napkin.StageTimes(forward=1.0, backward=2.0), napkin.StageTimes(forward=2.0, backward=4.0)]
    t = napkin.simulate_schedule("gpipe", napkin.PipelineShape(stages=2, microbatches=2), stages)
    assert t.step_time == 15.0 and t.idle_time(0) == 9.0 and t.idle_time(1) == 3.0
    assert napkin.simulate_schedule("1f1b", napkin.PipelineShape(stages=1, microbatches=3),
                                    napkin.StageTimes(forward=1.0, backward=2.0),
                                    microbatch_factor=[1.0, 2.0, 1.0]).step_time == 12.0


def test_simulator_matches_closed_forms():
    for s, shape in (("1f1b", p4m8), ("gpipe", p4m8), ("interleaved", napkin.PipelineShape(stages=4, microbatches=8, chunks=2))):
        times = napkin.StageTimes(forward=1.0, backward=2.0)
        assert napkin.simulate_schedule(s, shape, times).step_time == pytest.approx(napkin.step_time(s, shape, times))


def test_zb_h2_closed_form_is_the_overlapped_step():
    # p = 4, m = 8, F = B = 2, W = 1: the closed form m(F + B) + (p − 1)(F + B − 3W) = 32 + 3 = 35 is the time per
    # step when steps overlap (the longest rank span); one step alone is 32 + 3·max(F, F + B − 3W) = 38.
    times = napkin.StageTimes(forward=2.0, backward=2.0, weight_grad=1.0)
    t = napkin.simulate_schedule("zb-h2", p4m8, times)
    assert napkin.step_time("zb-h2", p4m8, times) == pytest.approx(35.0)
    assert t.overlapped_step_time == pytest.approx(35.0)
    assert t.step_time == pytest.approx(38.0)
    assert t.largest_idle_within_span == pytest.approx(napkin.bubble_time("zb-h2", p4m8, times))
