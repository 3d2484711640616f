"""Layout assignment as a measured step: ResNet-50 NCHW vs NHWC (warm-up guide, chapter 8).

A convolution's data layout decides which loop is contiguous in memory and therefore which loop
can be vectorized without gathers: NCHW puts the spatial width innermost, NHWC the channels
(64..2048 in ResNet-50, a multiple of any vector width), the blocked NCHW[x]c of ONNX Runtime's
level-ALL "layout optimizations" a block of channels. Relax's ``ConvertLayout`` pass
(``tvm.relax.transform.ConvertLayout({"relax.nn.conv2d": [data, kernel]})``) rewrites every
conv2d to the desired layout and propagates it through layout-agnostic neighbours (add, relu,
pooling); where a neighbour cannot follow, it inserts a layout transform (``permute_dims`` for a
pure transposition, ``layout_transform`` otherwise). Transforms of *weights* are constants and
vanish under ``FoldConstant``; what remains is paid at every inference.

This module converts, counts and locates the transforms that remain, builds both layouts
untuned (gated against PyTorch and timed interleaved at 1 thread, with the time the transform
kernels take, from the Relax VM's per-kernel profile), and tunes the hottest convolution tasks of
both layouts with the same MetaSchedule budget, kernel against kernel.

Blocked layouts (``NCHW8c`` / ``OIHW8i8o``): ConvertLayout rewrites to them, but TVM 0.27's
``LegalizeOps`` leaves a conv2d with a channel-chunked layout unlowered
(``relax/transform/legalize_ops/nn.py``: "Conv2D where data layout or kernel layout have channel
chunk cannot be legalized by TOPI at this moment"), so there is no blocked build to measure;
:func:`blocked_layout_status` checks that this is still so.
"""
from __future__ import annotations

import tempfile
from collections.abc import Sequence
from typing import Any

from ..graph.passes import convert_layout

from .. import LAB
#: data and kernel layout per layout name, as ConvertLayout takes them.
TRANSFORM_OPS = ("relax.permute_dims", "relax.layout_transform")


def layout_transforms(mod) -> list[dict]:
    """Every layout transform left in ``main``: where it sits and what it does.

    Returns:
        One dict per transform binding, in program order: ``{"index": binding position in main,
        "op": permute_dims | layout_transform, "from": source (``input <name>``, ``constant`` or
        the producing op), "to": consuming ops, "shape": output shape, "axes": permutation or
        index map}``.
    """
    import tvm
    from tvm import relax

    func = mod["main"]
    bindings = [b for blk in func.body.blocks for b in blk.bindings]
    producer = {b.var: b.value for b in bindings}
    params = {p: p.name for p in func.params}
    out = []
    for i, b in enumerate(bindings):
        v = b.value
        if not (isinstance(v, relax.Call) and isinstance(v.op, tvm.ir.Op) and v.op.name in TRANSFORM_OPS):
            continue
        src = v.args[0]
        if src in params:
            where = f"input {params[src]}"
        elif isinstance(src, tvm.ir.expr.Constant):
            where = "constant"
        else:
            p = producer.get(src)
            where = p.op.name.removeprefix("relax.") if isinstance(p, relax.Call) and hasattr(p.op, "name") else "?"
        users = []
        for c in bindings:
            cv = c.value
            if isinstance(cv, relax.Call) and any(a.same_as(b.var) for a in cv.args):
                users.append(cv.op.name.removeprefix("relax.") if hasattr(cv.op, "name") else "call")
        if any(o.same_as(b.var) for o in _outputs(func)):
            users.append("output")
        attrs = v.attrs
        axes = getattr(attrs, "axes", None) if attrs is not None else None
        out.append({"index": i, "op": v.op.name.removeprefix("relax."), "from": where,
                    "to": ", ".join(users) or "(unused)", "shape": "x".join(str(int(d)) for d in b.var.ty.shape),
                    "axes": None if axes is None else [int(a) for a in axes]})
    return out


def _outputs(func) -> list:
    from tvm import relax
    body = func.body.body
    return list(body.fields) if isinstance(body, relax.Tuple) else [body]


def blocked_layout_status(mod) -> str:
    """Whether a blocked-layout (``NCHW8c``) conv2d survives ``LegalizeOps`` unlowered (one line)."""
    from tvm import relax

    from ..graph.struct_info import relax_op_counts
    conv = convert_layout(mod, "NCHW8c")
    left = relax_op_counts(relax.transform.LegalizeOps()(conv)).get("relax.nn.conv2d", 0)
    total = relax_op_counts(conv).get("relax.nn.conv2d", 0)
    if left:
        return (f"NCHW8c: ConvertLayout rewrote {total} conv2d, LegalizeOps lowered {total - left} "
                f"({left} left as Relax ops: TOPI has no legalization for channel-chunked layouts in TVM 0.27)")
    return f"NCHW8c: all {total} conv2d legalized (TVM now lowers blocked layouts: worth measuring)"


def build_layout(im, mod, target: dict, *, stage: str):
    """Compile a weights-bound module untuned, gate its outputs against ``im.reference``.

    Returns:
        ``(VMRunner, fused module)``.
    Raises:
        common.gates.GateError: outputs differ beyond ``build.REL_TOL * max|ref|``.
    """
    from ..tuning.tasks import fuse_for_tasks
    from ..build import VMRunner, compile_module, gate_outputs
    fused = fuse_for_tasks(mod, target)
    ex, _ = compile_module(fused, target)
    runner = VMRunner(ex, im, with_params=False)
    gate_outputs(im, runner.outputs(), stage=stage)
    return runner, fused


def tune_hot_convs(mods: dict[str, Any], target: dict, *, top_k: int, trials: int,
                   progress: bool = True) -> list[dict]:
    """Tune the ``top_k`` hottest conv2d tasks of every layout with the same ``trials`` each.

    Tasks are matched across layouts by (FLOPs per call, calls). Returns one row per task and
    layout: ``{"rank", "layout", "task", "calls", "mflop", "trials", "best_ms", "gflops",
    "pct_peak"}`` (best_ms: MetaSchedule's measured mean of the best candidate).
    """
    from common.roof import rate_columns

    from ..tuning.database import best_ms_of, open_database, task_records
    from ..tuning.tasks import extract_tasks
    from ..tuning.tune import tune_tasks_plan
    rows = []
    for layout, mod in mods.items():
        infos = [t for t in extract_tasks(mod, target) if "conv2d" in t.name][:top_k]
        with tempfile.TemporaryDirectory(prefix=f"layout_{layout}_") as wd:
            tune_tasks_plan(infos, {t.name: trials for t in infos}, target, wd,
                                   progress=progress, desc=f"tune {layout}")
            db = open_database(wd)
            for rank, t in enumerate(infos, 1):
                best = best_ms_of(task_records(db, t.task))
                rows.append({"rank": rank, "layout": layout, "task": t.name, "calls": t.weight,
                             "mflop": round(t.flops / 1e6, 2), "trials": trials,
                             "best_ms": None if best is None else round(best, 4), **rate_columns(t.flops, best)})
    return rows


def compare_layouts(im, *, layouts: Sequence[str] = ("NCHW", "NHWC"), top_k: int = 2, trials: int = 32,
                    repeats: int = 3, base=None, progress: bool = True) -> dict:
    """Convert, count, build, gate and time each layout; tune the hottest convs of each.

    Args:
        im: :class:`lab02_tvm.graph.frontend.ImportedModel` of a convolutional model (ResNet-50).
        layouts: ``"NCHW"`` (as imported) and keys of :data:`LAYOUTS` that TVM can legalize.
        top_k, trials: hottest conv2d tasks tuned per layout, and trials per task (0 = no tuning).
        repeats: interleaved rounds of the untuned builds (ResNet-50 untuned: ~5 s a run).
        base: ``relax.passes.tuning_module(im)`` if already computed (weights bound, BN folded).
    Returns:
        ``{"rows": one row per layout (transforms, untuned ms, vs NCHW, ms in transform kernels,
        max error), "transforms": {layout: layout_transforms(...)}, "kernels": tune rows}``.
    Raises:
        common.gates.GateError: a layout's outputs differ from PyTorch.
    """
    from common.roof import rate_columns
    from common.timing import interleaved, tvm_threads

    from ..build import error_summary, host_target
    from ..graph.passes import tuning_module
    from ..graph.struct_info import relax_op_counts
    from ..profile import profile_vm

    target = {**host_target(), "num-cores": 1}
    base = tuning_module(im) if base is None else base
    mods, runners, fused, transforms, counts = {}, {}, {}, {}, {}
    for lay in layouts:
        mods[lay] = convert_layout(base, lay)
        transforms[lay] = layout_transforms(mods[lay])
        counts[lay] = sum(relax_op_counts(mods[lay]).get(op, 0) for op in TRANSFORM_OPS)
        runners[lay], fused[lay] = build_layout(im, mods[lay], target, stage=f"tvm_untuned_{lay}")
    with tvm_threads(1):
        stats = interleaved(runners, warmup=1, repeats=repeats, progress=progress)
        profiles = {lay: profile_vm(r, r.args, repeats=1) for lay, r in runners.items()}
    base_ms = stats[layouts[0]].median_ms
    rows = []
    for lay in layouts:
        kern = profiles[lay]["kernels"]
        t_ms = sum(k["ms"] for n, k in kern.items() if "transpose" in n or "layout_transform" in n)
        conv_ms = sum(k["ms"] for n, k in kern.items() if "conv2d" in n)
        rows.append({
            "model": im.name, "layout": lay, "build": "untuned",
            "transforms_after_convert": counts[lay],
            "where": "; ".join(f"{t['from']} -> {t['to']}" for t in transforms[lay]) or "-",
            "median_ms": round(stats[lay].median_ms, 2), "p90_ms": round(stats[lay].p90_ms, 2),
            "n": stats[lay].n, "speedup_vs_nchw": round(base_ms / stats[lay].median_ms, 3),
            **rate_columns(im.flops, stats[lay].median_ms),
            "conv_ms": round(conv_ms, 2), "transform_ms": round(t_ms, 3),
            "rel_err": error_summary(im.reference, runners[lay].outputs())["rel_to_scale"],
        })
    kernels = tune_hot_convs(mods, target, top_k=top_k, trials=trials,
                             progress=progress) if trials > 0 and top_k > 0 else []
    return {"rows": rows, "transforms": transforms, "kernels": kernels}


def write_layout(res: dict, *, name: str = "layout", blocked: str = "") -> dict:
    """Write ``results/lab02/<name>.{md,csv,json}`` (layouts) and ``<name>_kernels`` (tuned convs)."""
    from common.gates import rows_to_markdown
    from common.results import write_table
    from common.timing import environment

    env = environment(threads=1)
    locs = "\n".join(f"- {lay}: " + ("; ".join(f"#{t['index']} {t['op']} {t['axes']} {t['shape']}: "
                                               f"{t['from']} -> {t['to']}" for t in ts) or "none")
                     for lay, ts in res["transforms"].items())
    notes = ("Layout transforms left in main after ConvertLayout + FoldConstant (weight transforms fold "
             f"away), located:\n\n{locs}\n\n{blocked}\n\nUntuned builds timed interleaved at 1 thread; "
             "conv_ms / transform_ms from one Relax VM per-kernel profile; rel_err = max|tvm - PyTorch| / "
             "max|PyTorch| (gate 1e-4).")
    if res["kernels"]:
        notes += "\n\nHottest conv2d tasks tuned with the same MetaSchedule budget per layout:\n\n" + \
                 rows_to_markdown(res["kernels"])
    paths = write_table(LAB, name, res["rows"], title="Layout assignment: NCHW vs NHWC (ResNet-50)",
                        notes=notes, env=env)
    if res["kernels"]:
        write_table(LAB, f"{name}_kernels", res["kernels"], title="Hottest conv2d tasks per layout, tuned",
                    env=env)
    return paths
