"""Lab 01's two pictures: node counts per op type by stage, and a rewritten region before/after."""
from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
import onnx

from common.onnx_graph import GraphIndex
from common.onnx_utils import op_counts
from common.results import save_plot

LAB = "lab01"


def plot_op_counts(stages: dict[str, onnx.ModelProto]) -> Path:
    """Grouped bars: node count per op type for each stage (the first is the reference order)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = {k: op_counts(m) for k, m in stages.items()}
    first = counts[next(iter(counts))]
    ops = sorted(set().union(*counts.values()), key=lambda o: -first.get(o, 0))[:20]
    fig, ax = plt.subplots(figsize=(12, 4.5))
    w = 0.8 / len(stages)
    for i, (k, c) in enumerate(counts.items()):
        ax.bar(np.arange(len(ops)) + i * w, [c.get(o, 0) for o in ops], w,
               label=f"{k} ({sum(c.values())} nodes)")
    ax.set_xticks(np.arange(len(ops)) + 0.4 - w / 2, ops, rotation=60, ha="right")
    ax.set_ylabel("nodes")
    ax.set_title("LLaMA-tiny: nodes per op type before/after the passes")
    ax.legend()
    return save_plot(fig, LAB, "op_counts")


def _region(model: onnx.ModelProto, center: set[str], hops: int = 2) -> list[onnx.NodeProto]:
    """The nodes named in ``center`` and those within ``hops`` producer/reader edges of them."""
    idx = GraphIndex(model.graph)
    names = set(center)
    for _ in range(hops):
        nxt = set(names)
        for n in idx.nodes:
            if n.name in names:
                nxt.update(idx.nodes[idx.producer[i]].name for i in n.input if i in idx.producer)
                nxt.update(idx.nodes[r].name for o in n.output for r in idx.readers.get(o, ()))
        names = nxt
    return [n for n in model.graph.node if n.name in names]


def _draw(ax, nodes: list[onnx.NodeProto], inits: set[str], title: str, removed: set[str]) -> None:
    sub = onnx.GraphProto()
    sub.node.extend(nodes)
    producer = GraphIndex(sub).producer  # value -> position in ``nodes``
    depth: dict[int, int] = {}
    for k, n in enumerate(nodes):
        depth[k] = 1 + max([depth[producer[i]] for i in n.input if i in producer] or [0])
    by_depth = collections.defaultdict(list)
    for k in range(len(nodes)):
        by_depth[depth[k]].append(k)
    pos = {}
    for d, ks in by_depth.items():
        for j, k in enumerate(ks):
            pos[k] = (j - (len(ks) - 1) / 2, -d)
    for k, n in enumerate(nodes):
        for i in n.input:
            if i in producer:
                (x0, y0), (x1, y1) = pos[producer[i]], pos[k]
                ax.annotate("", (x1, y1 + 0.15), (x0, y0 - 0.15), arrowprops=dict(arrowstyle="->", color="0.5"))
            elif i in inits:  # an initializer input: a green box just above its reader
                x1, y1 = pos[k]
                ax.annotate("", (x1, y1 + 0.15), (x1 + 0.3, y1 + 0.55), arrowprops=dict(arrowstyle="->", color="tab:green"))
                ax.text(x1 + 0.3, y1 + 0.62, "initializer", ha="center", fontsize=6, color="white",
                        bbox=dict(boxstyle="round", fc="tab:green", ec="none"))
    for k, n in enumerate(nodes):
        x, y = pos[k]
        color = "tab:red" if n.name in removed else "tab:blue"
        ax.text(x, y, n.op_type, ha="center", va="center", fontsize=7, color="white",
                bbox=dict(boxstyle="round", fc=color, ec="none"))
    ax.set_title(title, fontsize=9)
    ax.set_xlim(min(p[0] for p in pos.values()) - 1, max(p[0] for p in pos.values()) + 1)
    ax.set_ylim(min(p[1] for p in pos.values()) - 1, 0.2)
    ax.axis("off")


def plot_rewritten_region(raw: onnx.ModelProto, opt: onnx.ModelProto) -> Path | None:
    """Draw the neighbourhood of the first node the passes removed, before and after."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kept = {n.name for n in opt.graph.node}
    removed = [n for n in raw.graph.node if n.name not in kept and n.op_type != "Constant"]
    if not removed:
        return None
    seed = {removed[0].name}
    before = _region(raw, seed, hops=2)
    names_before = {n.name for n in before}
    after = [n for n in opt.graph.node if n.name in names_before]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 5))
    _draw(a, before, {t.name for t in raw.graph.initializer}, f"before: {len(before)} nodes around {removed[0].name}",
          {n.name for n in before if n.name not in kept})
    _draw(b, after, {t.name for t in opt.graph.initializer}, f"after custom passes: {len(after)} nodes", set())
    fig.suptitle("red: nodes the passes removed; green: initializer inputs (a folded Gather becomes one)", fontsize=9)
    return save_plot(fig, LAB, "rewritten_region")
