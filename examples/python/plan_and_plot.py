#!/usr/bin/env python3
"""Plan GPT-3 175B on 1,024 A100s from Python and plot the memory/time Pareto front.

The planner searches every layout of the model on 128 DGX A100 nodes (tensor,
pipeline and data parallel sizes, micro-batch, schedule, recomputation, ZeRO
stage, gradient format, ...) for Megatron-LM's global batch of 1,536 sequences
of 2,048 tokens (Narayanan et al. 2021, Sec. 5.1). It keeps the fastest layouts
that fit in memory and the Pareto front: the layouts no other layout beats on
both step time and memory per GPU.

    PYTHONPATH=<prefix>/lib/python3.11/site-packages python3 plan_and_plot.py --out pareto.png

Every number napkin returns is a float in SI units (seconds, bytes); the
format_* helpers print them.
"""
import argparse
import os
import tempfile
import time

import napkin
from napkin import catalog


def describe(c):
    p = c.parallelism
    layout = f"t{p.tp} p{p.pp} d{p.dp}"
    if p.virtual_stages > 1:
        layout += f" v{p.virtual_stages}"
    return (f"{layout:<16} b{p.micro_batch:<2} {p.schedule:<11} recompute {p.recompute:<9} "
            f"ZeRO {p.sharding:<2} grads {p.gradients}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "napkin-gpt3-pareto.png"),
                        help="where to write the plot (PNG); default in the temporary directory")
    args = parser.parse_args()

    model = catalog.model("gpt3-175b")
    cluster = napkin.Cluster(node=catalog.node("dgx-a100"), nodes=128)
    start = time.perf_counter()
    plan = napkin.plan_training(model, cluster, global_batch=1536, sequence=2048, top_k=5)
    seconds = time.perf_counter() - start

    print(f"{model.name} on {cluster.gpus} x {cluster.node.gpu.name}, batch 1536 x 2048 tokens")
    print(f"searched {plan.points:,} layouts ({plan.points_evaluated:,} evaluated, "
          f"{plan.points_fitting:,} fit) in {seconds:.2f} s")
    print("\nthe five fastest layouts that fit:")
    for rank, c in enumerate(plan.top, 1):
        e = c.estimate
        print(f"{rank}. {describe(c)}: step {napkin.format_seconds(e.step)}, "
              f"{napkin.format_bytes(e.memory.total)} per GPU, MFU {100 * e.mfu:.1f} %")

    front = plan.pareto
    print(f"\nPareto front: {len(front)} layouts, from {napkin.format_bytes(front[0].estimate.memory.total)} "
          f"per GPU at {napkin.format_seconds(front[0].estimate.step)} to "
          f"{napkin.format_bytes(front[-1].estimate.memory.total)} at {napkin.format_seconds(front[-1].estimate.step)}")

    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed (apt-get install -y python3-matplotlib): no plot")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    memory = [c.estimate.memory.total / napkin.GiB for c in front]
    step = [c.estimate.step for c in front]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.step(memory, step, where="post", color="tab:blue", alpha=0.5)
    ax.plot(memory, step, "o", color="tab:blue", label="Pareto front")
    fastest = plan.top[0].estimate
    ax.plot([fastest.memory.total / napkin.GiB], [fastest.step], "*", color="tab:red", markersize=14,
            label="fastest")
    ax.axvline(cluster.node.gpu.usable_memory / napkin.GiB, color="grey", linestyle="--",
               label="usable memory per GPU")
    ax.set_xlabel("memory per GPU (GiB)")
    ax.set_yscale("log")
    ax.set_ylabel("step time (s, log scale)")
    ax.set_title(f"{model.name} on {cluster.gpus} A100s: memory against step time")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    with open(args.out, "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n", "matplotlib did not write a PNG"
    print(f"plot: {args.out} (PNG, {os.path.getsize(args.out):,} bytes)")


if __name__ == "__main__":
    main()
