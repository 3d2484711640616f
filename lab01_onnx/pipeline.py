"""Lab 01 pipeline: export LLaMA-tiny to ONNX, optimize it with three custom passes, validate, time.

Run ``python -m lab01_onnx.pipeline`` (``--help`` for options, ``-v`` to print the IR at each
stage). Steps, each one function below, each printing one line and followed by its gate:

 1. export        TorchScript (opset 17) and dynamo (opset 18) exports with dynamic batch/sequence
 2. check         onnx.checker.check_model(full_check=True) on every model written
 3. optimize      custom passes to a fixed point; onnxoptimizer and ORT levels beside them;
                  the same passes on a second real export (BERT-base), gated against PyTorch
 4. validate      PyTorch -> raw ONNX -> optimized ONNX -> ORT-optimized on 100 text sequences
 5. latency       eager vs ORT CPU vs ORT CUDA, batch 1/4 x sequence 32/128; ORT optimization levels
 6. scale         the passes on a generated 100k-node graph, beside onnxoptimizer
 7. quantize      INT8 QDQ static quantization with a top-1 agreement gate
 8. bisect        name the first diverging node of a deliberately wrong rewrite
 9. export bugs   three export bug families: the gate fails the broken export, passes the fixed one
10. tables        results/lab01/{accuracy,latency,passes,quantization,export_bugs}.{md,csv,json} + PNGs
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

from common import budget
from common.errors import UserError, run_cli
from common.gates import GateChain, GateError, compare
from common.results import results_dir, save_plot, write_table
from common.timing import environment, interleaved, set_torch_threads
from lab01_onnx import bisect as bisect_mod
from lab01_onnx import export as ex
from lab01_onnx.passes import CUSTOM_PASSES, op_counts, run_passes
from lab01_onnx.quantize import per_channel_ok, quantize_int8, top1_agreement

LAB = "lab01"
ATOL = 1e-4
ATOL_BERT = 1e-4  # second-model gate (max abs vs PyTorch on last_hidden_state / pooler_output)
#: onnxoptimizer built-ins run beside (and after) the custom passes; fuse_consecutive_reshapes
#: does not exist there, eliminate_identity does (a direct comparison).
ONNXOPT_PASSES = ["eliminate_identity", "eliminate_deadend", "eliminate_shape_gather", "eliminate_nop_reshape",
                  "fuse_consecutive_concats", "fuse_consecutive_unsqueezes", "eliminate_unused_initializer"]
ORT_LEVELS = ["DISABLE_ALL", "BASIC", "EXTENDED", "ALL"]
SHAPES = [(1, 32), (1, 128), (4, 32), (4, 128)]


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
    reference: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    def say(self, step: str, text: str) -> None:
        print(f"[{step}] {text}", flush=True)

    def show_ir(self, title: str, model: onnx.ModelProto) -> None:
        if self.args.verbose:
            g = onnx.GraphProto()
            g.CopyFrom(model.graph)
            small = [t for t in g.initializer if int(np.prod(t.dims)) <= 16]
            dropped = len(g.initializer) - len(small)
            del g.initializer[:]
            g.initializer.extend(small)
            print(f"----- IR: {title} ({len(model.graph.node)} nodes; {dropped} initializers over 16 elements "
                  f"not printed) -----")
            print(onnx.printer.to_text(g))


def compute_nodes(model: onnx.ModelProto) -> int:
    """Main-graph nodes that are not ``Constant`` (ORT turns Constants into initializers at load)."""
    return sum(1 for n in model.graph.node if n.op_type != "Constant")


# ------------------------------------------------------------------------------------------------
# 1-2. export and check
# ------------------------------------------------------------------------------------------------

def export_models(ctx: Ctx) -> None:
    """Export LLaMA-tiny both ways (example batch 2, sequence 16; attention_mask passed explicitly)."""
    from common.models import build_llama_tiny

    ctx.bundle = build_llama_tiny(batch=2, seq=16, seed=ctx.args.seed)
    t0 = time.perf_counter()
    ctx.paths["torchscript"] = ex.export_torchscript(ctx.bundle, ctx.out / "llama_tiny.onnx", opset=ctx.args.opset)
    t_ts = time.perf_counter() - t0
    line = f"TorchScript opset {ctx.args.opset} -> {ctx.paths['torchscript'].name} ({t_ts:.1f} s)"
    if not ctx.args.skip_dynamo:
        t0 = time.perf_counter()
        ctx.paths["dynamo"] = ex.export_dynamo(ctx.bundle, ctx.out / "llama_tiny_dynamo.onnx", opset=ctx.args.dynamo_opset)
        line += f"; dynamo opset {ctx.args.dynamo_opset} -> {ctx.paths['dynamo'].name} ({time.perf_counter() - t0:.1f} s)"
    ctx.say("export", line)
    for kind, path in ctx.paths.items():
        ctx.models[kind] = ex.load_model(path)
        ctx.show_ir(f"{kind} export", ctx.models[kind])
    # gate: batch and sequence stay symbolic on every input
    for kind, model in ctx.models.items():
        for vi in model.graph.input:
            dims = [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]
            if any(isinstance(d, int) for d in dims[:2]):
                raise UserError(f"{kind} export made an axis of {vi.name} static: {dims}")


def check_models(ctx: Ctx) -> None:
    """onnx.checker (full_check) on every model file written so far."""
    for path in ctx.paths.values():
        ex.check(path, str(path.name))
    ctx.say("check", f"{len(ctx.paths)} models pass onnx.checker.check_model(full_check=True): "
            + ", ".join(f"{p.name} ({len(ctx.models[k].graph.node)} nodes)" for k, p in ctx.paths.items()))


# ------------------------------------------------------------------------------------------------
# 3. optimize
# ------------------------------------------------------------------------------------------------

def _passes_row(graph: str, stage: str, model: onnx.ModelProto, base: onnx.ModelProto, **extra) -> dict:
    n, c, n0, c0 = len(model.graph.node), compute_nodes(model), len(base.graph.node), compute_nodes(base)
    counts = op_counts(model)
    row = {"graph": graph, "stage": stage, "nodes": n, "non_constant_nodes": c,
           "reduction_pct": round(100 * (n0 - n) / max(n0, 1), 1),
           "non_constant_reduction_pct": round(100 * (c0 - c) / max(c0, 1), 1)}
    row.update(extra)
    row.update({f"op_{k}": counts.get(k, 0) for k in ("Reshape", "Identity", "Gather", "Shape", "Constant",
                                                       "Unsqueeze", "Concat")})
    return row


def _custom_pass_rows(ctx: Ctx, graph: str, raw: onnx.ModelProto) -> tuple[onnx.ModelProto, int, float]:
    """Rows ``raw export``, ``+ <pass>`` (each pass once, in turn) and the fixed point for one graph.

    Returns:
        ``(optimized model, iterations to the fixed point, seconds of the fixed-point run)``.
    """
    rows = ctx.tables["passes"]
    rows.append(_passes_row(graph, "raw export", raw, raw))
    current = raw
    for name in CUSTOM_PASSES:  # one row per pass (first application), as a student reads them
        before = current
        t0 = time.perf_counter()
        current, report = run_passes(current, [name], max_iters=1)
        rows.append(_passes_row(graph, f"+ {name}", current, raw, rewrites=report[0]["rewrites"],
                                seconds=round(time.perf_counter() - t0, 4)))
        if ctx.args.verbose:
            diff = op_counts(current) - op_counts(before), op_counts(before) - op_counts(current)
            print(f"  {name}: +{dict(diff[0])} -{dict(diff[1])}")
    t0 = time.perf_counter()
    opt, report = run_passes(raw)
    dt = time.perf_counter() - t0
    iters = report[-1]["iter"] + 1
    rows.append(_passes_row(graph, f"custom passes, fixed point ({iters} iterations)", opt, raw,
                            rewrites=sum(r["rewrites"] for r in report), seconds=round(dt, 4)))
    return opt, iters, dt


def optimize(ctx: Ctx) -> None:
    """Custom passes to a fixed point on the TorchScript export, beside onnxoptimizer."""
    raw = ctx.models["torchscript"]
    graph = f"llama_tiny TorchScript opset {ctx.args.opset}"
    rows = ctx.tables["passes"]
    opt, iters, dt = _custom_pass_rows(ctx, graph, raw)
    t0 = time.perf_counter()
    only_opt, _ = run_passes(raw, [], onnxoptimizer_passes=ONNXOPT_PASSES)
    rows.append(_passes_row(graph, "onnxoptimizer only", only_opt, raw, seconds=round(time.perf_counter() - t0, 4)))
    both, _ = run_passes(raw, onnxoptimizer_passes=ONNXOPT_PASSES)
    rows.append(_passes_row(graph, "custom + onnxoptimizer", both, raw))
    if "dynamo" in ctx.models:
        dyn = ctx.models["dynamo"]
        dyn_opt, _ = run_passes(dyn)
        rows.append(_passes_row(f"llama_tiny dynamo opset {ctx.args.dynamo_opset}", "raw export", dyn, dyn))
        rows.append(_passes_row(f"llama_tiny dynamo opset {ctx.args.dynamo_opset}", "custom passes, fixed point",
                                dyn_opt, dyn))
    ctx.paths["opt"] = ex.save_model(opt, ctx.out / "llama_tiny_opt.onnx")
    ex.check(ctx.paths["opt"], ctx.paths["opt"].name)
    ctx.models["opt"] = opt
    ctx.models["opt+onnxoptimizer"] = both
    red = 100 * (len(raw.graph.node) - len(opt.graph.node)) / len(raw.graph.node)
    ctx.meta["node_reduction_pct"] = round(red, 1)
    ctx.say("optimize", f"custom passes: {len(raw.graph.node)} -> {len(opt.graph.node)} nodes (-{red:.1f}%), "
            f"{iters} iterations, {dt * 1e3:.0f} ms; onnxoptimizer alone -> {len(only_opt.graph.node)}; "
            f"both -> {len(both.graph.node)}; saved {ctx.paths['opt'].name}")
    ctx.show_ir("after custom passes", opt)
    if not len(opt.graph.node) < len(raw.graph.node):
        raise UserError("gate: the custom passes did not reduce the node count of the TorchScript export")


def optimize_bert(ctx: Ctx) -> None:
    """The same passes on a second real TorchScript export: BERT-base (``common.models.build_bert``).

    LLaMA-tiny's export has no Reshape->Reshape pair and no Identity here (torch 2.13,
    transformers 4.57), so the custom passes only fold ``Shape -> Gather``. BERT's export does
    have Identity nodes: the TorchScript exporter deduplicates initializers with equal values
    (``_jit_pass_onnx_deduplicate_initializers``) and reads each duplicate through an
    ``Identity`` of the kept one. ``BertModel`` initializes every bias to 0 and every LayerNorm
    weight to 1, so with these seeded weights there are many; a trained checkpoint has far fewer.
    Gate: raw and optimized BERT both match PyTorch (max abs <= :data:`ATOL_BERT`) at a batch and
    sequence other than the export's. ``--quick`` (CI) uses the 2-layer, 128-hidden BERT.
    """
    from common.models import build_bert

    small = ctx.args.quick
    name = "bert (2-layer, hidden 128)" if small else "bert-base"
    bundle = build_bert(batch=2, seq=16, seed=ctx.args.seed, small=small)
    path = ex.export_torchscript(bundle, ctx.out / "bert_passes.onnx", opset=ctx.args.opset)
    raw = ex.load_model(path)
    graph = f"{name} TorchScript opset {ctx.args.opset} (second model)"
    opt, _, dt = _custom_pass_rows(ctx, graph, raw)
    ex.check(opt, f"{name} after the custom passes")
    ids = np.random.default_rng(ctx.args.seed).integers(1, 1000, size=(3, 24)).astype(np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    feed = {k: v for k, v in feed.items() if k in bundle.inputs}
    reference = bundle.run(feed)
    chain = GateChain(f"pytorch {name}", reference, atol=ATOL_BERT)
    chain.check(f"{name} onnx raw", ex.ort_run(ex.ort_session(path), feed))
    chain.check(f"{name} onnx optimized (custom passes)", ex.ort_run(ex.ort_session(opt), feed))
    ctx.tables["accuracy"].extend(chain.rows)
    path.unlink()  # not needed later (BERT-base is ~0.4 GB)
    n0, n1 = len(raw.graph.node), len(opt.graph.node)
    inits = {t.name for t in raw.graph.initializer}
    ident = [n for n in raw.graph.node if n.op_type == "Identity"]
    dedup = sum(1 for n in ident if n.input[0] in inits)
    ctx.say("optimize-bert", f"{name}: custom passes {n0} -> {n1} nodes (-{100 * (n0 - n1) / n0:.1f}%; "
            f"{len(ident)} Identity, {dedup} of them reading an initializer: the exporter's deduplication), "
            f"{dt * 1e3:.0f} ms; "
            f"max abs vs PyTorch {max(r['max_abs'] for r in chain.rows):.2e} (gate {ATOL_BERT})")
    if not n1 < n0:
        raise UserError(f"gate: the custom passes did not reduce the node count of the {name} export")


def ort_levels(ctx: Ctx) -> None:
    """Node counts of the model ORT saves after each graph optimization level (input: optimized model)."""
    for level in ORT_LEVELS:
        path = ctx.out / f"llama_tiny_ort_{level.lower()}.onnx"
        ex.ort_session(ctx.paths["opt"], level=level, threads=ctx.args.threads, optimized_model_path=path)
        saved = onnx.load(str(path))
        ctx.models[f"ort_{level}"] = saved
        ctx.tables["passes"].append(_passes_row(f"llama_tiny TorchScript opset {ctx.args.opset}",
                                                f"custom passes + ORT {level} (saved model)", saved,
                                                ctx.models["torchscript"]))
    counts = {lv: len(ctx.models[f"ort_{lv}"].graph.node) for lv in ORT_LEVELS}
    ctx.say("ort-levels", "nodes in ORT's saved optimized model: " + ", ".join(f"{k} {v}" for k, v in counts.items())
            + " (Constant nodes become initializers at load)")
    if not counts["ALL"] <= counts["DISABLE_ALL"]:
        raise UserError(f"gate: ORT level ALL grew the graph ({counts})")


# ------------------------------------------------------------------------------------------------
# 4. validate
# ------------------------------------------------------------------------------------------------

def validation_feeds(ctx: Ctx) -> None:
    """Tokenize the first N WikiText-2 validation sequences (common.data; the source is recorded)."""
    from common.data import load_texts, tokenize

    data = load_texts(ctx.args.n_texts)
    ids = tokenize(data.texts, vocab_size=ctx.bundle.meta["config"]["vocab_size"], seq_len=ctx.args.seq)
    b = ctx.args.val_batch
    ctx.feeds = [{"input_ids": ids[i:i + b], "attention_mask": np.ones_like(ids[i:i + b])}
                 for i in range(0, len(ids), b)]
    ctx.meta["data_source"] = data.source
    ctx.meta["validation"] = f"{len(ids)} sequences x {ctx.args.seq} tokens, batch {b}"


def _run_ort_all(path_or_model, feeds, level="DISABLE_ALL", threads=1, providers=("CPUExecutionProvider",)):
    sess = ex.ort_session(path_or_model, level=level, threads=threads, providers=providers)
    outs = [ex.ort_run(sess, f) for f in feeds]
    return {k: np.concatenate([o[k] for o in outs]) for k in outs[0]}


def validate(ctx: Ctx) -> None:
    """Gate every stage against PyTorch (max abs on logits <= 1e-4; names -> shapes -> values)."""
    from tqdm import tqdm

    validation_feeds(ctx)
    ref = [ctx.bundle.run(f) for f in tqdm(ctx.feeds, desc="pytorch", leave=False, disable=None)]
    ctx.reference = {"logits": np.concatenate([r["logits"] for r in ref])}
    chain = GateChain("pytorch", ctx.reference, atol=ATOL)
    stages = [("onnx raw (TorchScript)", ctx.paths["torchscript"], "DISABLE_ALL")]
    if "dynamo" in ctx.paths:
        stages.append(("onnx raw (dynamo)", ctx.paths["dynamo"], "DISABLE_ALL"))
    stages += [("onnx optimized (custom passes)", ctx.paths["opt"], "DISABLE_ALL"),
               ("ORT-optimized (custom passes + ORT ALL)", ctx.paths["opt"], "ALL")]
    errs = {}
    for stage, path, level in tqdm(stages, desc="validate", leave=False, disable=None):
        outs = _run_ort_all(path, ctx.feeds, level=level, threads=ctx.args.threads)
        report = chain.check(stage, outs)
        errs[stage] = report.rows[0]["max_abs"]
    ctx.tables["accuracy"][:0] = chain.rows  # LLaMA-tiny first; the BERT rows of optimize_bert follow
    ctx.meta["max_abs"] = errs
    ctx.say("validate", f"{ctx.meta['validation']} ({ctx.meta['data_source']}): max abs vs PyTorch "
            + ", ".join(f"{k} {v:.2e}" for k, v in errs.items()) + f" (gate {ATOL})")


# ------------------------------------------------------------------------------------------------
# 5. latency
# ------------------------------------------------------------------------------------------------

def cuda_provider_reason() -> str | None:
    """None if onnxruntime can use CUDAExecutionProvider here, else the reason."""
    import onnxruntime as ort

    if "CUDAExecutionProvider" not in ort.get_available_providers():
        return (f"onnxruntime {ort.__version__} here has no CUDAExecutionProvider "
                f"(providers: {', '.join(ort.get_available_providers())}; install onnxruntime-gpu on a CUDA machine)")
    return None


def _token_feed(batch: int, seq: int, seed: int = 0) -> dict[str, np.ndarray]:
    ids = np.random.default_rng(seed).integers(0, 512, size=(batch, seq)).astype(np.int64)
    return {"input_ids": ids, "attention_mask": np.ones_like(ids)}


def latency(ctx: Ctx) -> None:
    """Eager vs ORT CPU (vs ORT CUDA, TF32 off) per shape, interleaved, at fixed threads."""
    import torch

    set_torch_threads(ctx.args.threads)
    cuda_reason = cuda_provider_reason()
    sessions = {"ort_cpu": ex.ort_session(ctx.paths["opt"], level="ALL", threads=ctx.args.threads)}
    if cuda_reason is None:
        sessions["ort_cuda"] = ex.ort_session(ctx.paths["opt"], level="ALL", threads=ctx.args.threads,
                                              providers=("CUDAExecutionProvider", "CPUExecutionProvider"),
                                              provider_options=[{"use_tf32": "0"}, {}])
    rows = ctx.tables["latency"]
    shapes = SHAPES if not ctx.args.quick else SHAPES[:2]
    for batch, seq in shapes:
        feed = _token_feed(batch, seq)
        tfeed = {k: torch.from_numpy(v) for k, v in feed.items()}
        fns = {"pytorch eager": lambda tfeed=tfeed: ctx.bundle.model(**tfeed)}
        fns.update({name: (lambda s=s, feed=feed: s.run(None, feed)) for name, s in sessions.items()})
        eager_out = ctx.bundle.run(feed)
        for name, sess in sessions.items():  # gate: never time a model that computes something else
            compare(eager_out, ex.ort_run(sess, feed), atol=ATOL, stage=f"{name} b{batch} s{seq}").raise_if_failed()
        with torch.no_grad():
            stats = interleaved(fns, warmup=ctx.args.warmup, repeats=ctx.args.repeats)
        eager = stats["pytorch eager"].median_ms
        for name, st in stats.items():
            rows.append({"batch": batch, "seq": seq, "backend": name, "median_ms": round(st.median_ms, 3),
                         "p10_ms": round(st.p10_ms, 3), "p90_ms": round(st.p90_ms, 3),
                         "speedup_vs_eager": round(eager / st.median_ms, 2), "threads": ctx.args.threads, "repeats": st.n})
        if cuda_reason is not None:
            rows.append({"batch": batch, "seq": seq, "backend": "ort_cuda", "median_ms": None, "p90_ms": None,
                         "speedup_vs_eager": None, "threads": ctx.args.threads, "repeats": 0,
                         "skipped": cuda_reason})
    b1 = {r["backend"]: r for r in rows if (r["batch"], r["seq"]) == (1, 128)} or \
         {r["backend"]: r for r in rows if (r["batch"], r["seq"]) == shapes[-1]}
    ref_shape = (1, 128) if (1, 128) in shapes else shapes[-1]
    ctx.meta["ort_cpu_speedup"] = b1["ort_cpu"]["speedup_vs_eager"]
    ctx.say("latency", f"batch {ref_shape[0]} seq {ref_shape[1]}, {ctx.args.threads} thread(s): eager "
            f"{b1['pytorch eager']['median_ms']:.2f} ms, ORT CPU {b1['ort_cpu']['median_ms']:.2f} ms "
            f"({b1['ort_cpu']['speedup_vs_eager']:.2f}x); CUDA: "
            + (f"{b1['ort_cuda']['median_ms']:.2f} ms" if cuda_reason is None else f"skipped ({cuda_reason})"))
    # ORT optimization levels at one shape, interleaved
    feed = _token_feed(*ref_shape)
    lv = {f"ORT CPU level {lvl}": ex.ort_session(ctx.paths["opt"], level=lvl, threads=ctx.args.threads)
          for lvl in ORT_LEVELS}
    stats = interleaved({k: (lambda s=s: s.run(None, feed)) for k, s in lv.items()},
                        warmup=ctx.args.warmup, repeats=ctx.args.repeats)
    base = stats["ORT CPU level DISABLE_ALL"].median_ms
    for (name, st), lvl in zip(stats.items(), ORT_LEVELS):
        rows.append({"batch": ref_shape[0], "seq": ref_shape[1], "backend": name, "median_ms": round(st.median_ms, 3),
                     "p10_ms": round(st.p10_ms, 3), "p90_ms": round(st.p90_ms, 3),
                     "speedup_vs_DISABLE_ALL": round(base / st.median_ms, 2), "nodes_saved_model": len(ctx.models[f"ort_{lvl}"].graph.node), "threads": ctx.args.threads,
                     "repeats": st.n})
    ctx.say("latency", "ORT levels: " + ", ".join(f"{lvl} {st.median_ms:.2f} ms" for lvl, st in zip(ORT_LEVELS, stats.values())))


# ------------------------------------------------------------------------------------------------
# 6. scale: linear-time passes on a generated graph
# ------------------------------------------------------------------------------------------------

BLOCK_NODES = 8


def synthetic_graph(n_nodes: int) -> onnx.ModelProto:
    """A chain of blocks of 8 nodes over x: float32 [4, 8]; every block holds one instance of each idiom.

    Block: ``i = Identity(h)``; ``r1 = Reshape(i, [8, 4])``; ``r2 = Reshape(r1, [2, 16])``;
    ``r3 = Reshape(r2, [4, 8])``; ``s = Shape(r3)``; ``g = Gather(s, 1)``; ``c = Cast(g, float)``;
    ``h' = Add(r3, c)``. After the passes a block is Reshape, Cast(initializer), Add: 3 nodes.
    """
    shapes = {"s_a": [8, 4], "s_b": [2, 16], "s_c": [4, 8]}
    inits = [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in shapes.items()]
    inits.append(numpy_helper.from_array(np.array(1, np.int64), "one"))
    nodes, h = [], "x"
    for b in range(max(1, n_nodes // BLOCK_NODES)):
        p = f"b{b}_"
        nodes += [helper.make_node("Identity", [h], [p + "i"]),
                  helper.make_node("Reshape", [p + "i", "s_a"], [p + "r1"]),
                  helper.make_node("Reshape", [p + "r1", "s_b"], [p + "r2"]),
                  helper.make_node("Reshape", [p + "r2", "s_c"], [p + "r3"]),
                  helper.make_node("Shape", [p + "r3"], [p + "s"]),
                  helper.make_node("Gather", [p + "s", "one"], [p + "g"]),
                  helper.make_node("Cast", [p + "g"], [p + "c"], to=onnx.TensorProto.FLOAT),
                  helper.make_node("Add", [p + "r3", p + "c"], [p + "h"])]
        h = p + "h"
    graph = helper.make_graph(nodes, "synthetic", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4, 8])],
                              [helper.make_tensor_value_info(h, onnx.TensorProto.FLOAT, [4, 8])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def scale(ctx: Ctx) -> None:
    """Time the custom passes on generated graphs of N/10 and N nodes (linear: equal us/node), and
    onnxoptimizer on the same graphs, growing the size until one run exceeds its time budget."""
    import onnxoptimizer

    rows = ctx.tables["passes"]
    opt_passes = ["eliminate_identity", "eliminate_shape_gather", "eliminate_nop_reshape"]
    per_node = {}
    for n in sorted({max(BLOCK_NODES, ctx.args.scale_nodes // 10), ctx.args.scale_nodes}):
        model = synthetic_graph(n)
        graph = f"synthetic {len(model.graph.node)} nodes"
        rows.append(_passes_row(graph, "generated", model, model))
        current, total = model, 0.0
        for name, fn in CUSTOM_PASSES.items():
            t0 = time.perf_counter()
            res = fn(current)
            dt = time.perf_counter() - t0
            total += dt
            current = res.model
            rows.append(_passes_row(graph, f"+ {name}", current, model, rewrites=res.rewrites, seconds=round(dt, 3),
                                    us_per_node=round(1e6 * dt / len(model.graph.node), 2)))
        per_node[len(model.graph.node)] = 1e6 * total / len(model.graph.node)
        blocks = len(model.graph.node) // BLOCK_NODES
        if len(current.graph.node) != 3 * blocks:
            raise UserError(f"gate: expected {3 * blocks} nodes after the passes on {graph}, got {len(current.graph.node)}")
    # onnxoptimizer: same generator, doubling sizes until a run takes longer than the budget
    n, timings, growth = min(1000, ctx.args.scale_nodes), {}, 1.0
    while n <= ctx.args.scale_nodes:
        model = synthetic_graph(n)
        t0 = time.perf_counter()
        opt = onnxoptimizer.optimize(model, opt_passes)
        dt = time.perf_counter() - t0
        timings[len(model.graph.node)] = dt
        rows.append(_passes_row(f"synthetic {len(model.graph.node)} nodes", "onnxoptimizer " + ",".join(opt_passes),
                                opt, model, seconds=round(dt, 3), us_per_node=round(1e6 * dt / len(model.graph.node), 2)))
        sizes = sorted(timings)
        growth = (np.log(timings[sizes[-1]] / timings[sizes[-2]]) / np.log(sizes[-1] / sizes[-2])
                  if len(sizes) > 1 else 1.0)
        # stop when the next doubling would exceed the budget; its measured exponent swings between
        # ~2 and ~4 on a busy machine, so predict with at least n^3
        if dt * 2 ** max(growth, 3.0) > ctx.args.onnxopt_budget_s:
            break
        n *= 2
    ctx.meta["onnxoptimizer_growth_exponent"] = round(float(growth), 2) if len(timings) > 1 else None
    ctx.meta["custom_passes_us_per_node"] = {k: round(v, 2) for k, v in per_node.items()}
    big = max(per_node)
    ctx.say("scale", f"custom passes: {per_node[big] * big / 1e6:.2f} s on {big} nodes; us/node "
            + " vs ".join(f"{v:.1f} ({k})" for k, v in sorted(per_node.items()))
            + f"; onnxoptimizer {timings[sizes[-1]]:.2f} s on {sizes[-1]} nodes, "
            + (f"time ~ n^{growth:.1f}" if len(sizes) > 1 else "one size only (no growth exponent)")
            + ("" if sizes[-1] >= ctx.args.scale_nodes else f" (stopped before {ctx.args.scale_nodes}: over its budget)"))


# ------------------------------------------------------------------------------------------------
# 7. quantize
# ------------------------------------------------------------------------------------------------

def quantize(ctx: Ctx) -> None:
    """INT8 QDQ (MatMul, U8S8, per-channel; weights pre-folded by ORT BASIC) calibrated on the validation
    inputs; gate: next-token top-1 agreement with fp32."""
    n_cal = budget.pick(len(ctx.feeds), min(4, len(ctx.feeds)))
    path = quantize_int8(ctx.paths["opt"], ctx.out / "llama_tiny_int8.onnx", ctx.feeds[:n_cal])
    ex.check(path, path.name)
    fp32 = _run_ort_all(ctx.paths["opt"], ctx.feeds, threads=ctx.args.threads)["logits"]
    int8 = _run_ort_all(path, ctx.feeds, level="ALL", threads=ctx.args.threads)["logits"]
    agree = top1_agreement(fp32, int8)
    max_diff = float(np.abs(fp32 - int8).max())
    feed = _token_feed(1, 128)
    s32 = ex.ort_session(ctx.paths["opt"], level="ALL", threads=ctx.args.threads)
    s8 = ex.ort_session(path, level="ALL", threads=ctx.args.threads)
    st = interleaved({"fp32": lambda: s32.run(None, feed), "int8": lambda: s8.run(None, feed)},
                     warmup=ctx.args.warmup, repeats=ctx.args.repeats)
    q = op_counts(onnx.load(str(path)))
    ctx.tables["quantization"] = [
        {"model": "fp32 (custom passes)", "top1_agreement": 1.0, "max_abs_logit_diff": 0.0,
         "median_ms_b1_s128": round(st["fp32"].median_ms, 3), "p10_ms_b1_s128": round(st["fp32"].p10_ms, 3),
         "p90_ms_b1_s128": round(st["fp32"].p90_ms, 3),
         "file_bytes": ctx.paths["opt"].stat().st_size},
        {"model": f"int8 QDQ (MatMul, U8S8, {'per-channel' if per_channel_ok(ctx.args.opset) else 'per-tensor'}, "
                  "MinMax; weights constant-folded by ORT BASIC first)", "top1_agreement": round(agree, 4),
         "max_abs_logit_diff": round(max_diff, 4), "median_ms_b1_s128": round(st["int8"].median_ms, 3),
         "p10_ms_b1_s128": round(st["int8"].p10_ms, 3), "p90_ms_b1_s128": round(st["int8"].p90_ms, 3),
         "file_bytes": path.stat().st_size,
         "QuantizeLinear": q.get("QuantizeLinear", 0), "DequantizeLinear": q.get("DequantizeLinear", 0),
         "calibration_batches": n_cal}]
    ctx.meta["int8"] = {"top1": agree, "max_abs": max_diff, "speedup": st["fp32"].median_ms / st["int8"].median_ms}
    ctx.say("quantize", f"INT8 QDQ: next-token top-1 agreement {agree:.3f} on {fp32.shape[0] * fp32.shape[1]} "
            f"positions, max abs logit diff {max_diff:.3f}; b1 s128 {st['int8'].median_ms:.2f} ms vs fp32 "
            f"{st['fp32'].median_ms:.2f} ms ({ctx.meta['int8']['speedup']:.2f}x)")
    if agree < ctx.args.min_top1:
        raise UserError(f"gate: INT8 top-1 agreement {agree:.3f} < {ctx.args.min_top1}")


# ------------------------------------------------------------------------------------------------
# 8. bisect demo and 9. export bug families
# ------------------------------------------------------------------------------------------------

def bisect_demo(ctx: Ctx) -> None:
    """Break the optimized model with a wrong rewrite (Neg treated as Identity) and find it."""
    faulty, removed = bisect_mod.wrong_rewrite_neg_as_identity(ctx.models["opt"])
    path = ex.save_model(faulty, ctx.out / "llama_tiny_faulty.onnx")
    feeds = ctx.feeds[0]
    div = bisect_mod.bisect_onnx(ctx.models["opt"], faulty, feeds, atol=ATOL)
    neg_out = [n.output[0] for n in ctx.models["opt"].graph.node if n.name == removed][0]
    consumers = {n.name for n in ctx.models["opt"].graph.node if neg_out in n.input}
    ctx.say("bisect", f"wrong rewrite dropped {removed!r} -> {path.name}; "
            + (div.line() if div else "no divergence found"))
    ctx.tables["bisect"] = [{"fault": f"Neg {removed} treated as Identity", "first_divergent_node": div and div.node,
                             "op_type": div and div.op_type, "max_abs": div and div.max_abs,
                             "tensors_compared_before": div and div.compared, "correct": bool(div and div.node in consumers)}]
    if div is None or div.node not in consumers:
        raise UserError(f"gate: bisect should name a consumer of {removed} ({sorted(consumers)}), got {div}")


def export_bugs(ctx: Ctx) -> None:
    """Each bug family: the gate must fail the broken export and pass the fixed one."""
    rows = ctx.tables["export_bugs"]
    for family in ex.BUG_FAMILIES:
        e = ex.bug_family_exports(family, ctx.out / "bugs")
        broken_ok, why = ex.gate_exported(e["broken"], e["reference"], e["feeds"])
        fixed_ok, why_fixed = ex.gate_exported(e["fixed"], e["reference"], e["feeds"])
        rows.append({"family": family, "broken_gate": "pass" if broken_ok else "fail", "broken_failure": why,
                     "fixed_gate": "pass" if fixed_ok else "fail", "fixed_failure": why_fixed})
        if broken_ok or not fixed_ok:
            raise UserError(f"gate: bug family {family}: broken export passed={broken_ok}, fixed passed={fixed_ok} {why_fixed}")
    ctx.say("export-bugs", "; ".join(f"{r['family']}: broken {r['broken_gate']}, fixed {r['fixed_gate']}" for r in rows))


# ------------------------------------------------------------------------------------------------
# 10. tables and pictures
# ------------------------------------------------------------------------------------------------

def plot_op_counts(ctx: Ctx) -> Path:
    """Grouped bars: node count per op type, raw vs custom passes vs + onnxoptimizer vs ORT ALL."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages = {"raw TorchScript": ctx.models["torchscript"], "custom passes": ctx.models["opt"],
              "custom + onnxoptimizer": ctx.models["opt+onnxoptimizer"]}
    if "ort_ALL" in ctx.models:
        stages["+ ORT ALL"] = ctx.models["ort_ALL"]
    counts = {k: op_counts(m) for k, m in stages.items()}
    ops = sorted(set().union(*counts.values()), key=lambda o: -counts["raw TorchScript"].get(o, 0))[:20]
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
    prod = {o: n for n in model.graph.node for o in n.output}
    cons = collections.defaultdict(list)
    for n in model.graph.node:
        for i in n.input:
            cons[i].append(n)
    names = set(center)
    for _ in range(hops):
        nxt = set(names)
        for n in model.graph.node:
            if n.name in names:
                nxt.update(prod[i].name for i in n.input if i in prod)
                nxt.update(c.name for o in n.output for c in cons[o])
        names = nxt
    return [n for n in model.graph.node if n.name in names]


def _draw(ax, nodes: list[onnx.NodeProto], inits: set[str], title: str, removed: set[str]) -> None:
    prod = {o: n.name for n in nodes for o in n.output}
    depth = {}
    for n in nodes:
        depth[n.name] = 1 + max([depth[prod[i]] for i in n.input if i in prod] or [0])
    by_depth = collections.defaultdict(list)
    for n in nodes:
        by_depth[depth[n.name]].append(n)
    pos = {}
    for d, ns in by_depth.items():
        for k, n in enumerate(ns):
            pos[n.name] = (k - (len(ns) - 1) / 2, -d)
    for n in nodes:
        for i in n.input:
            if i in prod:
                (x0, y0), (x1, y1) = pos[prod[i]], pos[n.name]
                ax.annotate("", (x1, y1 + 0.15), (x0, y0 - 0.15), arrowprops=dict(arrowstyle="->", color="0.5"))
            elif i in inits:  # an initializer input: a green box just above its reader
                x1, y1 = pos[n.name]
                ax.annotate("", (x1, y1 + 0.15), (x1 + 0.3, y1 + 0.55), arrowprops=dict(arrowstyle="->", color="tab:green"))
                ax.text(x1 + 0.3, y1 + 0.62, "initializer", ha="center", fontsize=6, color="white",
                        bbox=dict(boxstyle="round", fc="tab:green", ec="none"))
    for n in nodes:
        x, y = pos[n.name]
        color = "tab:red" if n.name in removed else "tab:blue"
        ax.text(x, y, n.op_type, ha="center", va="center", fontsize=7, color="white",
                bbox=dict(boxstyle="round", fc=color, ec="none"))
    ax.set_title(title, fontsize=9)
    ax.set_xlim(min(p[0] for p in pos.values()) - 1, max(p[0] for p in pos.values()) + 1)
    ax.set_ylim(min(p[1] for p in pos.values()) - 1, 0.2)
    ax.axis("off")


def plot_rewritten_region(ctx: Ctx) -> Path | None:
    """Draw the neighbourhood of the first node the passes removed, before and after."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    raw, opt = ctx.models["torchscript"], ctx.models["opt"]
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


def write_tables(ctx: Ctx) -> None:
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
    notes = {"latency": "Interleaved timing (round-robin) so ratios come from one run; ORT sessions use "
                        "the custom-optimized model. Speedups are ratios of medians. On a loaded machine "
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
    written = []
    for name, rows in ctx.tables.items():
        if rows:
            write_table(LAB, name, rows, title=titles.get(name, name), env=env, meta=meta, notes=notes.get(name))
            written.append(name)
    pngs = [plot_op_counts(ctx), plot_rewritten_region(ctx)]
    ctx.say("tables", f"wrote {', '.join(written)} and {', '.join(p.name for p in pngs if p)} under {results_dir(LAB)}")


# ------------------------------------------------------------------------------------------------

def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m lab01_onnx.pipeline", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-v", "--verbose", action="store_true", help="print the ONNX IR at each stage and per-pass op diffs")
    p.add_argument("--opset", type=int, default=ex.TORCHSCRIPT_DEFAULT_OPSET, help="TorchScript exporter opset (default 17)")
    p.add_argument("--dynamo-opset", type=int, default=ex.DYNAMO_DEFAULT_OPSET, help="dynamo exporter opset (default 18)")
    p.add_argument("--skip-dynamo", action="store_true", help="skip the dynamo export (saves ~20 s)")
    p.add_argument("--skip-bert", action="store_true",
                   help="skip the passes on the second real export, BERT-base (saves ~20 s)")
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
    p.add_argument("--min-top1", type=float, default=0.9, help="INT8 gate: minimum next-token top-1 agreement")
    p.add_argument("--quick", action="store_true", default=budget.ci(),
                   help="fewer latency shapes and a 2-layer BERT for the second-model passes rows "
                        "(default under CI=true)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.threads < 1 or args.n_texts < 1 or args.seq < 2 or args.val_batch < 1 or args.repeats < 1:
        raise UserError("--threads, --n-texts, --val-batch and --repeats must be >= 1 and --seq >= 2")
    ex.check_torchscript_opset(args.opset)  # both before any work, so a bad flag writes nothing
    if not args.skip_dynamo:
        ex.check_dynamo_opset(args.dynamo_opset)
    if args.scale_nodes < BLOCK_NODES or args.warmup < 0:
        raise UserError(f"--scale-nodes must be >= {BLOCK_NODES} (one generated block) and --warmup >= 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    import onnxruntime as ort
    ort.set_default_logger_severity(4)  # runtime errors are reported by the gates
    ctx = Ctx(args=args, out=results_dir(LAB))
    t0 = time.perf_counter()
    try:
        export_models(ctx)
        check_models(ctx)
        optimize(ctx)
        ort_levels(ctx)
        if not ctx.args.skip_bert:
            optimize_bert(ctx)
        validate(ctx)
        latency(ctx)
        scale(ctx)
        quantize(ctx)
        bisect_demo(ctx)
        export_bugs(ctx)
        write_tables(ctx)
    except GateError as exc:  # the table goes to stderr, the one-line verdict through run_cli
        print(exc.report.to_markdown(), file=sys.stderr)
        raise UserError(f"gate failed at stage {exc.report.stage!r}: {exc.report.first_failure}") from exc
    ctx.say("done", f"{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(main))
