"""Lab 01 pipeline: export LLaMA-tiny to ONNX, optimize it with three custom passes, validate, time.

Run ``python -m lab01_onnx.pipeline`` (``--help`` for options; ``-v`` per-pass op diffs, ``-vv``
also the ONNX IR after each stage). The seed's steps, one function each, called in this order by
:func:`main`, each printing ``[N step] ...`` and followed by its gate (a failed gate exits 1 with
its table; bad input exits 2 with one ``error:`` line):

 1. export        TorchScript (opset 17) and dynamo (opset 18) exports with dynamic batch/sequence
 2. check         onnx.checker.check_model(full_check=True) on every model written
 3. optimize      custom passes to a fixed point; onnxoptimizer and ORT levels beside them;
                  the same passes on a second real export (BERT-base), gated against PyTorch
 4. validate      PyTorch -> raw ONNX -> optimized ONNX -> ORT-optimized on 100 text sequences
 5. latency       eager vs ORT CPU vs ORT CUDA, batch 1/4 x sequence 32/128; ORT optimization levels
 6. scale         the passes on a generated 100k-node graph, beside onnxoptimizer
 7. quantize      INT8 QDQ static quantization with a top-1 agreement gate
 8. bisect        name the first diverging node of a deliberately wrong rewrite
 9. export-bugs   three export bug families: the gate fails the broken export, passes the fixed one
10. tables        results/lab01/{accuracy,latency,passes,quantization,bisect,export_bugs}.* + PNGs
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

from common import budget, cli
from common.course.notimpl import naming_stubs, stubs_as_errors
from common.errors import UserError, run_cli
from common.gates import GateChain, structural
from common.onnx_graph import GraphIndex, dim_labels
from common.onnx_utils import (DYNAMO_OPSET, ORT_LEVELS, TORCHSCRIPT_OPSET, check_dynamo_opset, check_model,
                               check_torchscript_opset, export_dynamo, export_torchscript, load_model, op_counts,
                               ort_run, ort_session, print_ir, save_model)
from common.results import results_dir, write_table
from common.timing import environment, interleaved
from lab01_onnx import divergence, export_bugs, measure, plots
from lab01_onnx.passes import CUSTOM_PASSES, run_passes
from lab01_onnx.quantize import accuracy_gate, per_channel_ok, quantize_int8

LAB = "lab01"
ATOL = 1e-4
ATOL_BERT = 1e-4  # second-model gate (max abs vs PyTorch on last_hidden_state / pooler_output)
#: onnxoptimizer built-ins run beside (and after) the custom passes; fuse_consecutive_reshapes
#: does not exist there, eliminate_identity does (a direct comparison).
ONNXOPT_PASSES = ["eliminate_identity", "eliminate_deadend", "eliminate_shape_gather", "eliminate_nop_reshape",
                  "fuse_consecutive_concats", "fuse_consecutive_unsqueezes", "eliminate_unused_initializer"]
SKIPPABLE = ["dynamo", "bert", "quantize"]


@dataclass
class Ctx:
    """Everything the steps share: arguments, output folder, models, and table rows collected."""

    args: argparse.Namespace
    out: Path
    bundle: object = None
    paths: dict = field(default_factory=dict)
    models: dict = field(default_factory=dict)
    tables: dict = field(default_factory=lambda: collections.defaultdict(list))
    feeds: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    def show_ir(self, title: str, model: onnx.ModelProto) -> None:
        """With ``-vv``: the main graph in ONNX text syntax (initializers over 16 elements left out)."""
        if cli.want_ir(self.args):
            print_ir(title, model)


def gate(ok: bool, stage: str, failure: str, rows: list[dict] | None = None) -> None:
    """A structural gate: raise :class:`GateError` (exit 1, ``rows`` as its table) unless ``ok``."""
    structural(stage, None if ok else failure, rows or [])


def compute_nodes(model: onnx.ModelProto) -> int:
    """Main-graph nodes that are not ``Constant`` (ORT turns Constants into initializers at load)."""
    return sum(1 for n in model.graph.node if n.op_type != "Constant")


def passes_row(graph: str, stage: str, model: onnx.ModelProto, base: onnx.ModelProto, **extra) -> dict:
    """One row of the ``passes`` table: node counts (all, non-Constant), reductions vs ``base``, op counts."""
    n, c, n0, c0 = len(model.graph.node), compute_nodes(model), len(base.graph.node), compute_nodes(base)
    counts = op_counts(model)
    row = {"graph": graph, "stage": stage, "nodes": n, "non_constant_nodes": c,
           "reduction_pct": round(100 * (n0 - n) / max(n0, 1), 1),
           "non_constant_reduction_pct": round(100 * (c0 - c) / max(c0, 1), 1), **extra}
    row.update({f"op_{k}": counts.get(k, 0) for k in ("Reshape", "Identity", "Gather", "Shape", "Constant",
                                                       "Unsqueeze", "Concat")})
    return row


def _run_stage(stage: str, path, feeds, level: str, threads: int) -> dict[str, np.ndarray]:
    """:func:`run_all` for one validated stage; a graph ONNX Runtime cannot load or run (a pass that broke
    a shape, say) fails the gate in one line (:class:`common.errors.GateFailed`), not with a traceback."""
    from common.errors import GateFailed, UserError
    from common.onnx_utils import is_ort_error, ort_message

    try:
        return run_all(path, feeds, level=level, threads=threads)
    except Exception as exc:
        if not (is_ort_error(exc) or isinstance(exc, UserError)):
            raise
        raise GateFailed(f"validate: {stage} ({Path(path).name}) cannot run on the validation feeds: "
                         f"{ort_message(exc)}") from exc


def run_all(path_or_model, feeds, level: str = "DISABLE_ALL", threads: int = 1) -> dict[str, np.ndarray]:
    """ORT outputs of every feed, concatenated along the batch axis."""
    sess = ort_session(path_or_model, level=level, threads=threads)
    outs = [ort_run(sess, f) for f in feeds]
    return {k: np.concatenate([o[k] for o in outs]) for k in outs[0]}


# ------------------------------------------------------------------------------------------------
# 1-2. export and check
# ------------------------------------------------------------------------------------------------

def export(ctx: Ctx) -> None:
    """Export LLaMA-tiny both ways (example batch 2, sequence 16; attention_mask passed explicitly): the
    TorchScript one with :func:`lab01_onnx.export_bugs.export_bundle` (Task 1.4's ``export_dynamic``).

    Gate: ``batch`` and ``sequence`` stay symbolic on every input.
    """
    from common.models import build_llama_tiny

    ctx.bundle = build_llama_tiny(batch=2, seq=16, seed=ctx.args.seed)
    t0 = time.perf_counter()
    ctx.paths["torchscript"] = export_bugs.export_bundle(ctx.bundle, ctx.out / "llama_tiny.onnx", opset=ctx.args.opset)
    line = f"TorchScript opset {ctx.args.opset} -> {ctx.paths['torchscript'].name} ({time.perf_counter() - t0:.1f} s)"
    if "dynamo" not in ctx.args.skip:
        t0 = time.perf_counter()
        ctx.paths["dynamo"] = export_dynamo(ctx.bundle, ctx.out / "llama_tiny_dynamo.onnx", opset=ctx.args.dynamo_opset)
        line += f"; dynamo opset {ctx.args.dynamo_opset} -> {ctx.paths['dynamo'].name} ({time.perf_counter() - t0:.1f} s)"
    cli.step(1, "export", line)
    for kind, path in ctx.paths.items():
        ctx.models[kind] = load_model(path)
        ctx.show_ir(f"{kind} export", ctx.models[kind])
        for vi in ctx.models[kind].graph.input:
            dims = dim_labels(vi)
            gate(not any(isinstance(d, int) for d in dims[:2]), f"{kind} export",
                 f"{kind} export made an axis of {vi.name} static: {dims}")


def check(ctx: Ctx) -> None:
    """onnx.checker (full_check) on every model file written so far."""
    for path in ctx.paths.values():
        check_model(path, path.name)
    cli.step(2, "check", f"{len(ctx.paths)} models pass onnx.checker.check_model(full_check=True): "
             + ", ".join(f"{p.name} ({len(ctx.models[k].graph.node)} nodes)" for k, p in ctx.paths.items()))


# ------------------------------------------------------------------------------------------------
# 3. optimize
# ------------------------------------------------------------------------------------------------

def custom_pass_rows(ctx: Ctx, graph: str, raw: onnx.ModelProto) -> tuple[onnx.ModelProto, int, float]:
    """Rows ``raw export``, ``+ <pass>`` (each pass once, in turn) and the fixed point for one graph.

    Returns:
        ``(optimized model, iterations to the fixed point, seconds of the fixed-point run)``.
    """
    rows = ctx.tables["passes"]
    rows.append(passes_row(graph, "raw export", raw, raw))
    current = raw
    for name in CUSTOM_PASSES:  # one row per pass (first application), as a student reads them
        before, t0 = current, time.perf_counter()
        current, report = run_passes(current, [name], max_iters=1)
        rows.append(passes_row(graph, f"+ {name}", current, raw, rewrites=report[0]["rewrites"],
                               seconds=round(time.perf_counter() - t0, 4)))
        if ctx.args.verbose:
            print(f"  {name}: +{dict(op_counts(current) - op_counts(before))} -{dict(op_counts(before) - op_counts(current))}")
    t0 = time.perf_counter()
    opt, report = run_passes(raw)
    dt = time.perf_counter() - t0
    iters = report[-1]["iter"] + 1
    rows.append(passes_row(graph, f"custom passes, fixed point ({iters} iterations)", opt, raw,
                           rewrites=sum(r["rewrites"] for r in report), seconds=round(dt, 4)))
    return opt, iters, dt


def passes_result_loads(model: str | Path | onnx.ModelProto, stage: str, what: str, rows: list[dict]) -> None:
    """Gate: the custom passes' result passes ``onnx.checker`` and loads in ONNX Runtime. A model the passes broke
    is their failure (exit 1, naming them and their tests), not bad input (exit 2, "onnxruntime cannot load the
    model" without saying which model or who made it)."""
    try:
        check_model(model, what)
        ort_session(model, level="ALL")  # ALL: a wrong folded shape may show only once ORT folds constants too
    except UserError as exc:
        gate(False, stage, f"{what} is broken, so a custom pass rewrote it wrongly: {exc}; run the passes' graded "
             "tests (.venv/bin/python -m pytest --task lab01.reshape, lab01.identity, lab01.gather)", rows)


def optimize(ctx: Ctx) -> None:
    """Custom passes to a fixed point on the TorchScript export, beside onnxoptimizer.

    Gate: the custom passes reduce the node count.
    """
    raw = ctx.models["torchscript"]
    graph = f"llama_tiny TorchScript opset {ctx.args.opset}"
    rows = ctx.tables["passes"]
    opt, iters, dt = custom_pass_rows(ctx, graph, raw)
    t0 = time.perf_counter()
    only_opt, _ = run_passes(raw, [], onnxoptimizer_passes=ONNXOPT_PASSES)
    rows.append(passes_row(graph, "onnxoptimizer only", only_opt, raw, seconds=round(time.perf_counter() - t0, 4)))
    both, _ = run_passes(raw, onnxoptimizer_passes=ONNXOPT_PASSES)
    rows.append(passes_row(graph, "custom + onnxoptimizer", both, raw))
    if "dynamo" in ctx.models:
        dyn = ctx.models["dynamo"]
        dyn_graph = f"llama_tiny dynamo opset {ctx.args.dynamo_opset}"
        rows.append(passes_row(dyn_graph, "raw export", dyn, dyn))
        rows.append(passes_row(dyn_graph, "custom passes, fixed point", run_passes(dyn)[0], dyn))
    ctx.paths["opt"] = save_model(opt, ctx.out / "llama_tiny_opt.onnx")
    passes_result_loads(ctx.paths["opt"], "optimize", f"{ctx.paths['opt'].name} (the custom passes' result)", rows)
    ctx.models["opt"], ctx.models["opt+onnxoptimizer"] = opt, both
    n0, n1 = len(raw.graph.node), len(opt.graph.node)
    ctx.meta["node_reduction_pct"] = round(100 * (n0 - n1) / n0, 1)
    cli.step(3, "optimize", f"custom passes: {n0} -> {n1} nodes (-{100 * (n0 - n1) / n0:.1f}%), {iters} iterations, "
             f"{dt * 1e3:.0f} ms; onnxoptimizer alone -> {len(only_opt.graph.node)}; both -> {len(both.graph.node)}; "
             f"saved {ctx.paths['opt'].name}")
    ctx.show_ir("after custom passes", opt)
    gate(n1 < n0, "optimize", "the custom passes did not reduce the node count of the TorchScript export", rows)


def ort_levels(ctx: Ctx) -> None:
    """Node counts of the model ORT saves after each graph optimization level (input: optimized model).

    Gate: level ALL does not grow the graph beyond DISABLE_ALL.
    """
    from common.onnx_utils import ort_optimize

    for level in ORT_LEVELS:
        saved = ort_optimize(ctx.paths["opt"], ctx.out / f"llama_tiny_ort_{level.lower()}.onnx", level,
                             threads=ctx.args.threads)
        ctx.models[f"ort_{level}"] = saved
        ctx.show_ir(f"ORT {level} (saved model)", saved)
        ctx.tables["passes"].append(passes_row(f"llama_tiny TorchScript opset {ctx.args.opset}",
                                               f"custom passes + ORT {level} (saved model)", saved,
                                               ctx.models["torchscript"]))
    counts = {lv: len(ctx.models[f"ort_{lv}"].graph.node) for lv in ORT_LEVELS}
    cli.step(3, "ort-levels", "nodes in ORT's saved optimized model: "
             + ", ".join(f"{k} {v}" for k, v in counts.items()) + " (Constant nodes become initializers at load)")
    gate(counts["ALL"] <= counts["DISABLE_ALL"], "ort-levels", f"ORT level ALL grew the graph ({counts})", [counts])


def optimize_bert(ctx: Ctx) -> None:
    """The same passes on a second real TorchScript export: BERT-base (``common.models.build_bert``).

    LLaMA-tiny's export has no Reshape->Reshape pair and no Identity here (torch 2.13,
    transformers 4.57), so the custom passes only fold ``Shape -> Gather``. BERT's export does
    have Identity nodes: the TorchScript exporter deduplicates initializers with equal values
    (``_jit_pass_onnx_deduplicate_initializers``) and reads each duplicate through an
    ``Identity`` of the kept one; ``BertModel`` initializes every bias to 0 and every LayerNorm
    weight to 1, so with these seeded weights there are many (a trained checkpoint has few).
    Gate: raw and optimized BERT both match PyTorch (max abs <= :data:`ATOL_BERT`) at a batch and
    sequence other than the export's, and the passes reduce the node count. ``--quick`` uses the
    2-layer, 128-hidden BERT.
    """
    from common.models import build_bert

    small = ctx.args.quick
    name = "bert (2-layer, hidden 128)" if small else "bert-base"
    bundle = build_bert(batch=2, seq=16, seed=ctx.args.seed, small=small)
    path = export_torchscript(bundle, ctx.out / "bert_passes.onnx", opset=ctx.args.opset)
    raw = load_model(path)
    opt, _, dt = custom_pass_rows(ctx, f"{name} TorchScript opset {ctx.args.opset} (second model)", raw)
    passes_result_loads(opt, "optimize-bert", f"{name} after the custom passes", ctx.tables["passes"])
    ctx.show_ir(f"{name} after the custom passes", opt)
    ids = np.random.default_rng(ctx.args.seed).integers(1, 1000, size=(3, 24)).astype(np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    feed = {k: v for k, v in feed.items() if k in bundle.inputs}
    chain = GateChain(f"pytorch {name}", bundle.run(feed), atol=ATOL_BERT)
    chain.check(f"{name} onnx raw", ort_run(path, feed))
    chain.check(f"{name} onnx optimized (custom passes)", ort_run(opt, feed))
    ctx.tables["accuracy"].extend(chain.rows)
    path.unlink()  # not needed later (BERT-base is ~0.4 GB)
    n0, n1 = len(raw.graph.node), len(opt.graph.node)
    inits = {t.name for t in raw.graph.initializer}
    ident = [n for n in raw.graph.node if n.op_type == "Identity"]
    dedup = sum(1 for n in ident if n.input[0] in inits)
    cli.step(3, "optimize-bert", f"{name}: custom passes {n0} -> {n1} nodes (-{100 * (n0 - n1) / n0:.1f}%; "
             f"{len(ident)} Identity, {dedup} of them reading an initializer: the exporter's deduplication), "
             f"{dt * 1e3:.0f} ms; max abs vs PyTorch {max(r['max_abs'] for r in chain.rows):.2e} (gate {ATOL_BERT})")
    gate(n1 < n0, "optimize-bert", f"the custom passes did not reduce the node count of the {name} export")


# ------------------------------------------------------------------------------------------------
# 4. validate, 5. latency, 6. scale
# ------------------------------------------------------------------------------------------------

def validate(ctx: Ctx) -> None:
    """Gate every stage against PyTorch on text (max abs on logits <= 1e-4; names -> shapes -> values).

    Inputs: the first ``--n-texts`` WikiText-2 validation sequences (``common.data``; offline, a
    deterministic fallback corpus, recorded in the tables) at a batch and sequence other than the
    export's, so the dynamic axes are exercised.
    """
    from tqdm import tqdm

    from common.data import load_texts, tokenize

    data = load_texts(ctx.args.n_texts)
    ids = tokenize(data.texts, vocab_size=ctx.bundle.meta["config"]["vocab_size"], seq_len=ctx.args.seq)
    b = ctx.args.val_batch
    ctx.feeds = [{"input_ids": ids[i:i + b], "attention_mask": np.ones_like(ids[i:i + b])} for i in range(0, len(ids), b)]
    ctx.meta.update(data_source=data.source, validation=f"{len(ids)} sequences x {ctx.args.seq} tokens, batch {b}")
    ref = [ctx.bundle.run(f) for f in tqdm(ctx.feeds, desc="pytorch", leave=False, disable=None)]
    chain = GateChain("pytorch", {"logits": np.concatenate([r["logits"] for r in ref])}, atol=ATOL)
    stages = [("onnx raw (TorchScript)", ctx.paths["torchscript"], "DISABLE_ALL")]
    if "dynamo" in ctx.paths:
        stages.append(("onnx raw (dynamo)", ctx.paths["dynamo"], "DISABLE_ALL"))
    stages += [("onnx optimized (custom passes)", ctx.paths["opt"], "DISABLE_ALL"),
               ("ORT-optimized (custom passes + ORT ALL)", ctx.paths["opt"], "ALL")]
    errs = {}
    for stage, path, level in tqdm(stages, desc="validate", leave=False, disable=None):
        errs[stage] = chain.check(stage, _run_stage(stage, path, ctx.feeds, level, ctx.args.threads)).rows[0]["max_abs"]
    ctx.tables["accuracy"][:0] = chain.rows  # LLaMA-tiny first; the BERT rows of optimize_bert follow
    ctx.meta["max_abs"] = errs
    cli.step(4, "validate", f"{ctx.meta['validation']} ({data.source}): max abs vs PyTorch "
             + ", ".join(f"{k} {v:.2e}" for k, v in errs.items()) + f" (gate {ATOL})")


def latency(ctx: Ctx) -> None:
    """Eager vs ORT CPU (vs ORT CUDA, TF32 off) per shape, then ORT's levels at one shape, interleaved."""
    a = ctx.args
    shapes = measure.SHAPES[:2] if a.quick else measure.SHAPES
    rows = measure.latency_rows(ctx.bundle, ctx.paths["opt"], shapes, threads=a.threads, warmup=a.warmup,
                                repeats=a.repeats, atol=ATOL)
    ref_shape = (1, 128) if (1, 128) in shapes else shapes[-1]
    b1 = {r["backend"]: r for r in rows if (r["batch"], r["seq"]) == ref_shape}
    ctx.meta["ort_cpu_speedup"] = b1["ort_cpu"]["speedup_vs_eager"]
    cuda = b1["ort_cuda"]
    cli.step(5, "latency", f"batch {ref_shape[0]} seq {ref_shape[1]}, {a.threads} thread(s): eager "
             f"{b1['pytorch eager']['median_ms']:.2f} ms, ORT CPU {b1['ort_cpu']['median_ms']:.2f} ms "
             f"({b1['ort_cpu']['speedup_vs_eager']:.2f}x); CUDA: "
             + (f"{cuda['median_ms']:.2f} ms" if cuda["median_ms"] is not None else f"skipped ({cuda['skipped']})"))
    saved = {lvl: len(ctx.models[f"ort_{lvl}"].graph.node) for lvl in ORT_LEVELS}
    levels = measure.ort_level_rows(ctx.paths["opt"], ref_shape, saved, threads=a.threads, warmup=a.warmup,
                                    repeats=a.repeats, flops=ctx.bundle.flops(measure.token_feed(*ref_shape)))
    ctx.tables["latency"] += rows + levels
    cli.step(5, "latency", "ORT levels: " + ", ".join(f"{lvl} {r['median_ms']:.2f} ms" for lvl, r in zip(ORT_LEVELS, levels)))


def scale(ctx: Ctx) -> None:
    """The passes on generated graphs of N/10 and N nodes (linear: equal us/node), beside onnxoptimizer.

    Gate: every 8-node block ends as 3 nodes.
    """
    rows, s = measure.scale_rows(ctx.args.scale_nodes, ctx.args.onnxopt_budget_s, passes_row)
    ctx.tables["passes"] += rows
    for size, left in s["after"].items():
        gate(left == 3 * (size // measure.BLOCK_NODES), "scale",
             f"expected {3 * (size // measure.BLOCK_NODES)} nodes after the passes on {size} nodes, got {left}", rows)
    growth, per_node, timings = s["growth"], s["us_per_node"], s["onnxopt_seconds"]
    ctx.meta["onnxoptimizer_growth_exponent"] = round(growth, 2) if growth is not None else None
    ctx.meta["custom_passes_us_per_node"] = {k: round(v, 2) for k, v in per_node.items()}
    big, last = max(per_node), max(timings)
    cli.step(6, "scale", f"custom passes: {per_node[big] * big / 1e6:.2f} s on {big} nodes; us/node "
             + " vs ".join(f"{v:.1f} ({k})" for k, v in sorted(per_node.items()))
             + f"; onnxoptimizer {timings[last]:.2f} s on {last} nodes, "
             + (f"time ~ n^{growth:.1f}" if growth is not None else "one size only (no growth exponent)")
             + ("" if last >= ctx.args.scale_nodes else f" (stopped before {ctx.args.scale_nodes}: over its budget)"))
    for line in measure.nonlinear_passes(s["pass_us_per_node"]):  # a notice, not a gate: timings are noisy
        print(f"notice: {line}", file=sys.stderr)


# ------------------------------------------------------------------------------------------------
# 7. quantize, 8. bisect, 9. export bugs, 10. tables
# ------------------------------------------------------------------------------------------------

def quantize(ctx: Ctx) -> None:
    """INT8 QDQ (MatMul, U8S8, per-channel; weights pre-folded by ORT BASIC) calibrated on the validation
    inputs. Gate: next-token top-1 agreement with fp32 >= ``--min-top1`` over the positions the attention
    mask keeps (:func:`lab01_onnx.quantize.accuracy_gate`, Task 1.5)."""
    a = ctx.args
    n_cal = budget.pick(len(ctx.feeds), min(4, len(ctx.feeds)))
    path = quantize_int8(ctx.paths["opt"], ctx.out / "llama_tiny_int8.onnx", ctx.feeds[:n_cal])
    check_model(path, path.name)
    ctx.show_ir("INT8 QDQ", load_model(path))
    fp32 = run_all(ctx.paths["opt"], ctx.feeds, threads=a.threads)["logits"]
    int8 = run_all(path, ctx.feeds, level="ALL", threads=a.threads)["logits"]
    mask = np.concatenate([f["attention_mask"] for f in ctx.feeds])
    verdict = accuracy_gate(fp32, int8, min_top1=a.min_top1, mask=mask)  # Task 1.5's rule
    agree, max_diff = verdict.agreement, verdict.max_abs
    feed = measure.token_feed(1, 128)
    s32, s8 = (ort_session(p, level="ALL", threads=a.threads) for p in (ctx.paths["opt"], path))
    st = interleaved({"fp32": lambda: s32.run(None, feed), "int8": lambda: s8.run(None, feed)},
                     warmup=a.warmup, repeats=a.repeats)
    q = op_counts(load_model(path))

    def timing(k):
        return {"median_ms_b1_s128": round(st[k].median_ms, 3), "p10_ms_b1_s128": round(st[k].p10_ms, 3),
                "p90_ms_b1_s128": round(st[k].p90_ms, 3)}

    ctx.tables["quantization"] = [
        {"model": "fp32 (custom passes)", "top1_agreement": 1.0, "max_abs_logit_diff": 0.0, **timing("fp32"),
         "file_bytes": ctx.paths["opt"].stat().st_size},
        {"model": f"int8 QDQ (MatMul, U8S8, {'per-channel' if per_channel_ok(a.opset) else 'per-tensor'}, "
                  "MinMax; weights constant-folded by ORT BASIC first)", "top1_agreement": round(agree, 4),
         "max_abs_logit_diff": round(max_diff, 4), **timing("int8"), "file_bytes": path.stat().st_size,
         "QuantizeLinear": q.get("QuantizeLinear", 0), "DequantizeLinear": q.get("DequantizeLinear", 0),
         "calibration_batches": n_cal}]
    ctx.meta["int8"] = {"top1": agree, "max_abs": max_diff, "speedup": st["fp32"].median_ms / st["int8"].median_ms}
    cli.step(7, "quantize", f"INT8 QDQ: next-token top-1 agreement {agree:.3f} on {verdict.positions} "
             f"positions, max abs logit diff {max_diff:.3f}; b1 s128 {st['int8'].median_ms:.2f} ms vs fp32 "
             f"{st['fp32'].median_ms:.2f} ms ({ctx.meta['int8']['speedup']:.2f}x)")
    gate(verdict.passed, "quantize", f"INT8 {verdict.line()}", ctx.tables["quantization"])


def bisect(ctx: Ctx) -> None:
    """Break the optimized model with a wrong rewrite (Neg treated as Identity) and find it.

    Gate: :func:`lab01_onnx.divergence.onnx_divergence` names a consumer of the removed Neg.
    """
    opt = ctx.models["opt"]
    faulty, removed = divergence.wrong_rewrite_neg_as_identity(opt)
    path = save_model(faulty, ctx.out / "llama_tiny_faulty.onnx")
    ctx.show_ir("faulty (Neg removed)", faulty)
    div = divergence.onnx_divergence(opt, faulty, ctx.feeds[0], atol=ATOL)
    idx = GraphIndex(opt.graph)
    neg_out = next(n.output[0] for n in idx.nodes if n.name == removed)
    consumers = {idx.nodes[p].name for p in idx.readers.get(neg_out, ())}
    cli.step(8, "bisect", f"wrong rewrite dropped {removed!r} -> {path.name}; " + (div.line() if div else "no divergence found"))
    ctx.tables["bisect"] = [{"fault": f"Neg {removed} treated as Identity", "first_divergent_node": div and div.node,
                             "op_type": div and div.op_type, "max_abs": div and div.max_abs,
                             "tensors_compared_before": div and div.compared, "correct": bool(div and div.node in consumers)}]
    gate(div is not None and div.node in consumers, "bisect",
         f"the divergence finder should name a consumer of {removed} ({sorted(consumers)}), got {div}", ctx.tables["bisect"])


def export_bugs_step(ctx: Ctx) -> None:
    """Each export bug family: the gate must fail the broken export and pass the fixed one."""
    rows = ctx.tables["export_bugs"]
    for family in export_bugs.BUG_FAMILIES:
        e = export_bugs.bug_family_exports(family, ctx.out / "bugs")
        broken_ok, why = export_bugs.gate_exported(e["broken"], e["reference"], e["feeds"])
        fixed_ok, why_fixed = export_bugs.gate_exported(e["fixed"], e["reference"], e["feeds"])
        rows.append({"family": family, "broken_gate": "pass" if broken_ok else "fail", "broken_failure": why,
                     "fixed_gate": "pass" if fixed_ok else "fail", "fixed_failure": why_fixed})
        gate(not broken_ok and fixed_ok, "export-bugs",
             f"bug family {family}: broken export passed={broken_ok}, fixed passed={fixed_ok} {why_fixed}", rows)
    cli.step(9, "export-bugs", "; ".join(f"{r['family']}: broken {r['broken_gate']}, fixed {r['fixed_gate']}" for r in rows))


def tables(ctx: Ctx) -> None:
    """All tables (md/csv/json with the environment) and the two PNGs."""
    env = environment(threads=ctx.args.threads)
    meta = {"model": f"llama_tiny (common.models.build_llama_tiny, seed {ctx.args.seed})",
            "export_example": "batch 2, sequence 16", "opset_torchscript": ctx.args.opset,
            "opset_dynamo": ctx.args.dynamo_opset, "exporter_constant_folding": False, "atol": ATOL,
            "data_source": ctx.meta.get("data_source"), "validation": ctx.meta.get("validation"),
            "threads": ctx.args.threads, "repeats": ctx.args.repeats, "warmup": ctx.args.warmup,
            "ci": budget.ci(), "quick": ctx.args.quick}
    titles = {"accuracy": "Lab 01: numeric gate per stage vs PyTorch (logits, max abs)",
              "latency": "Lab 01: latency (ms), eager vs ONNX Runtime, and ORT optimization levels",
              "passes": "Lab 01: node counts by op type after each pass, onnxoptimizer and ORT levels",
              "quantization": "Lab 01: INT8 QDQ static quantization vs fp32",
              "export_bugs": "Lab 01: export bug families caught by the gate",
              "bisect": "Lab 01: bisection of a deliberately wrong rewrite"}
    notes = {"latency": "Interleaved timing (every candidate once per round, each round shuffled) so "
                        "ratios come from one run; ORT sessions use the custom-optimized model. Speedups are ratios of medians. On a loaded machine "
                        "samples are bimodal (time slices lost to other processes): p10 is then the "
                        "steadier figure.",
             "quantization": "Latency interleaved fp32/int8 in one run at batch 1, sequence 128; on a loaded "
                             "machine compare the p10 columns.",
             "passes": "reduction_pct counts every node; non_constant_reduction_pct leaves out Constant "
                       "nodes (ORT turns them into initializers at load). Synthetic rows: the linear-time check. "
                       "'(second model)' rows: the same passes on BERT's TorchScript export, whose Identity nodes "
                       "come from the exporter deduplicating equal-valued initializers (BertModel's zero biases and "
                       "unit LayerNorm weights at these seeded weights); LLaMA-tiny's export has no Identity and no "
                       "Reshape->Reshape pair."}
    written = [name for name, rows in ctx.tables.items() if rows]
    for name in written:
        write_table(LAB, name, ctx.tables[name], title=titles.get(name, name), env=env, meta=meta, notes=notes.get(name))
    stages = {"raw TorchScript": ctx.models["torchscript"], "custom passes": ctx.models["opt"],
              "custom + onnxoptimizer": ctx.models["opt+onnxoptimizer"], "+ ORT ALL": ctx.models["ort_ALL"]}
    pngs = [plots.plot_op_counts(stages), plots.plot_rewritten_region(ctx.models["torchscript"], ctx.models["opt"])]
    cli.step(10, "tables", f"wrote {', '.join(written)} and {', '.join(p.name for p in pngs if p)} under {results_dir(LAB)}")


# ------------------------------------------------------------------------------------------------

def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Options; budgets under ``CI=true`` come from :mod:`common.budget` (``--quick`` is never implied).

    Returns:
        the parsed namespace (``skip``: the ``--skip-<step>`` names); ``--quick``, ``--skip-dynamo`` or
        ``--skip-bert`` also point the tables at :data:`common.cli.QUICK_RESULTS` (:func:`common.cli.quick_results`).

    Raises:
        UserError: an unknown flag or bad value (:class:`common.cli.Parser`; :func:`common.errors.run_cli` exits 2),
            a count that is not > 0 (``--warmup``: >= 0), ``--seq`` < 2, ``--min-top1`` outside [0, 1],
            ``--scale-nodes`` below one generated block, or an opset its exporter refuses (``--opset``;
            ``--dynamo-opset`` unless ``--skip-dynamo``). All before any work.
    """
    p = cli.parser("python -m lab01_onnx.pipeline", __doc__, steps=SKIPPABLE,
                   quick="fewer latency shapes and a 2-layer BERT for the second-model passes rows",
                   epilog="steps:\n" + __doc__.split("\n\n")[2])
    p.add_argument("--opset", type=int, default=TORCHSCRIPT_OPSET, help="TorchScript exporter opset (default 17)")
    p.add_argument("--dynamo-opset", type=int, default=DYNAMO_OPSET, help="dynamo exporter opset (default 18)")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads for PyTorch and ORT (default 1)")
    p.add_argument("--n-texts", type=int, default=100, help="validation sequences (default 100)")
    p.add_argument("--seq", type=int, default=32, help="validation sequence length in tokens (default 32)")
    p.add_argument("--val-batch", type=int, default=4, help="validation batch size (default 4)")
    p.add_argument("--repeats", type=int, default=budget.pick(20, 5), help="timed repeats (default 20, CI 5)")
    p.add_argument("--warmup", type=int, default=budget.pick(3, 1), help="warm-up runs (default 3, CI 1)")
    p.add_argument("--scale-nodes", type=int, default=budget.pick(100_000, 10_000),
                   help="size of the generated graph for the linear-time check (default 100000, CI 10000)")
    p.add_argument("--onnxopt-budget-s", type=float, default=budget.pick(10.0, 2.0),
                   help="scale step: stop doubling onnxoptimizer's graph once the next run is predicted "
                        "to exceed this many seconds (default 10, CI 2)")
    p.add_argument("--min-top1", type=float, default=0.9,
                   help="INT8 gate: minimum next-token top-1 agreement, in [0, 1] (default 0.9)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the models' random weights (LLaMA-tiny, BERT) and of BERT's check input (default 0)")
    args = p.parse_args(argv)
    for flag in ("threads", "n_texts", "val_batch", "repeats"):
        cli.positive("--" + flag.replace("_", "-"), getattr(args, flag))
    cli.positive("--warmup", args.warmup, strict=False)
    if args.seq < 2:
        raise UserError("--seq must be >= 2")
    if not 0.0 <= args.min_top1 <= 1.0:  # checked here, not at step 7 after a minute of work
        raise UserError(f"--min-top1 must lie in [0, 1] (a fraction of positions), got {args.min_top1:g}")
    if args.scale_nodes < measure.BLOCK_NODES:
        raise UserError(f"--scale-nodes must be >= {measure.BLOCK_NODES} (one generated block)")
    check_torchscript_opset(args.opset)  # both before any work, so a bad flag writes nothing
    if "dynamo" not in args.skip:
        check_dynamo_opset(args.dynamo_opset)
    if partial := sorted(args.skip & {"dynamo", "bert"}):  # their rows are part of tables a full run writes whole
        cli.quick_results("--skip-" + "/--skip-".join(partial))
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """The seed's steps in order (see the module docstring)."""
    ctx = Ctx(args=parse_args(argv), out=results_dir(LAB))
    t0 = time.perf_counter()
    steps = [export, check, optimize, ort_levels]                     # 1, 2, 3
    if "bert" not in ctx.args.skip:
        steps.append(optimize_bert)
    steps += [validate, latency, scale, quantize, bisect, export_bugs_step, tables]  # 4 .. 10
    for fn in steps:  # the later steps read export's and optimize's models; quantize can be left out
        if fn is quantize and "quantize" in ctx.args.skip:
            cli.step(7, "quantize", "skipped")
            continue
        with naming_stubs(fn.__name__, skip="--skip-quantize" if fn is quantize else None,
                          later=fn in (export, optimize)):
            fn(ctx)
    cli.step("", "done", f"{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(stubs_as_errors(main)))
