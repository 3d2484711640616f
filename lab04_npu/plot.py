"""Where the partitions break: one strip per model, nodes in graph order, coloured by placement."""
from __future__ import annotations

from collections.abc import Mapping

from lab04_npu.coverage import Coverage

_QNN_COLOURS = ("#1f77b4", "#2ca02c", "#17becf", "#9467bd", "#8c564b", "#bcbd22")
_CPU = "#d62728"


def partitions_figure(reports: Mapping[str, Coverage]):
    """A matplotlib figure: for each model a strip of its nodes (x: position in the graph, width:
    one node), blue/green shades alternate between QNN partitions, red marks nodes on the CPU.
    Each strip's label gives partitions, node and FLOP coverage."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    fig, axes = plt.subplots(len(reports), 1, figsize=(11, 0.9 + 0.75 * len(reports)), squeeze=False)
    for ax, (label, cov) in zip(axes[:, 0], reports.items()):
        n = len(cov.nodes)
        for r in cov.nodes:
            colour = _CPU if r["placement"] == "CPU" else _QNN_COLOURS[(r["partition"] or 0) % len(_QNN_COLOURS)]
            ax.axvspan(r["index"] / n, (r["index"] + 1) / n, color=colour, lw=0)
        s = cov.summary(label)
        ax.set_xlim(0, 1)
        ax.set_yticks([])
        ax.set_xticks([])
        ax.set_ylabel(label, rotation=0, ha="right", va="center", fontsize=9)
        ax.set_title(f"{s['partitions']} QNN partition(s), {s['nodes_on_qnn']}/{s['nodes']} nodes "
                     f"({s['coverage_nodes_pct']:.1f} %), {s['coverage_flops_pct']:.2f} % of FLOPs, "
                     f"{s['boundary_tensors']} boundary tensors ({s['boundary_mib']:.2f} MiB)", fontsize=8, loc="left")
    axes[-1, 0].set_xlabel("node position in the graph QNN sees (topological order) →", fontsize=8)
    fig.legend(handles=[Patch(color=_QNN_COLOURS[0], label="QNN partition (shade changes per partition)"),
                        Patch(color=_CPU, label="CPU (refused by QNN)")], loc="lower right", fontsize=8, ncol=2)
    fig.suptitle("Where the QNN (HTP) partitions break", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    return fig
