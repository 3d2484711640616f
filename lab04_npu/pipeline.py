"""Lab 04 pipeline: the NPU end of the ladder with ONNX Runtime's QNN EP on the HTP backend.

Run ``python -m lab04_npu.pipeline`` (``--help``; ``--quick`` uses test-size models; ``-v`` what each
model went through, ``-vv`` also the ONNX IR QNN receives). Steps:

 1. qnn        Lab 01's LLaMA-tiny (export + passes), dims fixed to 1 x 32, ORT's basic folding,
               run through QNN (HTP, fp16); gated against PyTorch at the fp16 tolerance
 2. coverage   per-node QNN verdicts for LLaMA-tiny, BERT-base (s128), ResNet-50 (224): coverage
               in % of nodes and FLOPs, partitions, boundary tensors; each gated against PyTorch;
               and LLaMA-tiny once more without ORT's folding (what QNN refuses then)
 3. gelu       BERT-base with GELU spelled as JAX does (Erf refused: one partition per layer),
               the Erf-GELU -> Gelu pass under Lab 01's pass contract, back to one partition
 4. quantize   QDQ with QNN's config (int8 and int16 activations, uint8 weights; and 16-bit weights),
               calibrated on text and evaluated on a held-out sequence; per-layer error on the HTP
               itself, the first layer beyond tolerance; the -FLT_MAX attention-mask fix; A8W8 with a
               16-bit Softmax input (mixed precision); A8W8 and A16W16 at four mask floors (the value the
               fill is clamped to sets Softmax's input grid)
 5. context    EP-context model + QNN context binary under results/lab04/, reloaded in a new
               session without the source model and gated

Writes results/lab04/{qnn_gate,coverage,coverage_nodes,boundaries,gelu_pass,quant_layers,
quantization,mask_floor,context}.{md,csv,json} and partitions.png. Timings on this x86 host are the HTP
*emulation*, not NPU latency, and are not reported as such.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from common import cli
from common.course.notimpl import naming_stubs, needed_by_every_step, stubs_as_errors
from common.errors import GateFailed, run_cli
from common.gates import compare
from common.results import results_dir, save_plot, write_table
from common.timing import environment

LAB = "lab04"
#: fp16 on HTP: unit roundoff 4.9e-4; through 2-12 layers errors reach ~0.3-1.3 % of the output
#: scale (measured: LLaMA-tiny 0.3 %, BERT-base pooler 1.3 %, ResNet-50 0.09 %): gate at 2 % of scale
FP16_ATOL = 2e-2
STEPS = ["qnn", "coverage", "gelu", "quantize", "context"]
COVERAGE_MODELS = ("llama_tiny", "bert", "resnet50")


@dataclass
class Ctx:
    """One run's state, shared by the steps: the parsed ``args``, the ``work`` folder (temporary), ``tables``
    (table name -> rows, written at the end), ``reports`` (model label -> QNN coverage report, drawn in
    ``partitions.png``), ``models`` (name -> :func:`prepared`'s tuple) and ``meta`` (added to every table's environment)."""

    args: argparse.Namespace
    work: Path
    tables: dict = field(default_factory=dict)
    reports: dict = field(default_factory=dict)
    models: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    def session_kw(self) -> dict:
        """The ``--precision``, ``--soc-model`` and ``--htp-arch`` as keywords of :func:`lab04_npu.qnn.qnn_session`."""
        return {"precision": self.args.precision, "soc_model": self.args.soc_model, "htp_arch": self.args.htp_arch}


def dims_text(dims: dict) -> str:
    """Fixed dims as a console line shows them: ``{"batch": 1, "sequence": 8}`` -> ``batch 1, sequence 8``."""
    return ", ".join(f"{k} {v}" for k, v in dims.items()) or "no symbolic dims"


def prepared(ctx: Ctx, name: str):
    """``(StaticModel, folded model, folded path)`` for ``name``, built once per run."""
    from lab04_npu.models import VARIANTS, build_static, fold_for_qnn

    if name not in ctx.models:
        t0 = time.perf_counter()
        dims = ctx.args.dims if ctx.args.dims and name != "resnet50" else None
        base = ctx.models.get(VARIANTS.get(name, ""))  # a variant reuses its base model's build
        with needed_by_every_step("preparing each model (export, Lab 01's passes, Task 4.1's fixed dims)"):
            static = build_static(name, ctx.work, small=ctx.args.quick, dims=dims,
                                  bundle=base[0].bundle if base else None)
        folded, path = fold_for_qnn(static, ctx.work)
        ctx.models[name] = (static, folded, path)
        if cli.want_ir(ctx.args):
            from common.onnx_utils import print_ir

            print_ir(f"{name} as QNN sees it (static, ORT basic folding)", folded)
        if ctx.args.verbose:
            print(f"  {name}: export + Lab 01 passes + fixed dims ({dims_text(static.dims)}) + ORT basic folding: "
                  f"{static.nodes_raw} -> {len(static.model.graph.node)} -> {len(folded.graph.node)} nodes "
                  f"({time.perf_counter() - t0:.1f} s)")
    return ctx.models[name]


def gate_row(stage: str, reference: dict, outputs: dict) -> dict:
    """Gate ``outputs`` against the PyTorch reference at :data:`FP16_ATOL` of each output's scale.

    Returns:
        the table row of the worst output (largest ``max_abs``): stage, output, ``max_abs``, ``scale``
        (max |reference|), effective ``atol`` (:data:`FP16_ATOL` x scale), status ``ok``.

    Raises:
        GateFailed: an output is missing, extra, of another shape or dtype, or off by more than the tolerance
            (the message holds the gate's table).
    """
    rep = compare(reference, outputs, atol=FP16_ATOL, scale_atol_by_ref=True, stage=stage)
    if not rep.passed:
        raise GateFailed(f"{stage}: {rep.first_failure}\n{rep.to_markdown()}")
    worst = max(rep.rows, key=lambda r: r.get("max_abs", 0.0))
    return {"stage": stage, "output": worst["output"], "max_abs": worst.get("max_abs"),
            "scale": float(np.max(np.abs(reference[worst["output"]]))), "atol": worst.get("atol"), "status": "ok"}


def step_qnn(ctx: Ctx) -> None:
    """Step 1: static LLaMA-tiny (1 x 32, folded) in a QNN HTP session at ``--precision``; gated against
    PyTorch at :data:`FP16_ATOL` of the output scale; fills ``ctx.tables["qnn_gate"]``."""
    from lab04_npu.qnn import qnn_session

    static, folded, path = prepared(ctx, "llama_tiny")
    t0 = time.perf_counter()
    sess = qnn_session(path, **ctx.session_kw())
    compile_s = time.perf_counter() - t0
    row = gate_row("llama_tiny on QNN HTP", static.reference, sess.run(static.feeds))
    row.update(precision=ctx.args.precision, options=str(sess.options), session_create_s=round(compile_s, 2))
    ctx.tables["qnn_gate"] = [row]
    cli.step(1, "qnn", f"LLaMA-tiny ({dims_text(static.dims)}) on QNN HTP ({ctx.args.precision}): "
             f"max abs {row['max_abs']:.3g} vs PyTorch (max |logit| {row['scale']:.3g}; "
             f"gate {FP16_ATOL:g} of scale) ok; "
             f"session + HTP compile {compile_s:.1f} s on the x86 host")


def step_coverage(ctx: Ctx) -> None:
    """Step 2: per-node QNN verdicts of each of :data:`COVERAGE_MODELS` (and LLaMA-tiny unfolded), each gated
    against PyTorch; fills the ``coverage``, ``coverage_nodes`` and ``boundaries`` tables."""
    from lab04_npu.coverage import coverage

    rows, nodes, bounds = [], [], []
    for name in COVERAGE_MODELS:
        static, folded, _ = prepared(ctx, name)
        t0 = time.perf_counter()
        cov = coverage(folded, **ctx.session_kw())
        ctx.reports[name] = cov
        row = cov.summary(name)
        gate = gate_row(name, static.reference, cov.session.run(static.feeds))
        row.update(dims=str(static.dims), max_abs_vs_torch=gate["max_abs"], gate=gate["status"],
                   report_s=round(time.perf_counter() - t0, 1))
        labelled = [(name, cov, row)]
        if name == "llama_tiny":  # the same static graph without ORT's folding: what QNN refuses then
            raw = coverage(static.model, **ctx.session_kw())
            label = "llama_tiny, not folded"
            ctx.reports[label] = raw
            labelled.append((label, raw, {**raw.summary(label), "dims": str(static.dims),
                                          "gate": "not run (coverage example only)"}))
        for label, c, r in labelled:
            rows.append(r)
            nodes += [{"model": label, **n} for n in c.nodes]
            bounds += [{"model": label, **b} for b in c.boundaries]
            cli.step(2, "coverage", f"{label}: {r['nodes_on_qnn']}/{r['nodes']} nodes on QNN "
                     f"({r['coverage_nodes_pct']} %), {r['coverage_flops_pct']} % of {r['gflops']} GFLOP, "
                     f"{r['partitions']} partition(s), {r['boundary_tensors']} boundary tensors; CPU: {r['cpu_ops']}")
    ctx.tables.update(coverage=rows, coverage_nodes=nodes, boundaries=bounds)


def step_gelu(ctx: Ctx) -> None:
    """Step 3: BERT-base with JAX's Erf GELU before and after ``fuse_erf_gelu`` (proved under Lab 01's pass
    contract); gate: one QNN partition after it; fills ``gelu_pass``.

    Raises:
        GateFailed: the pass broke its contract, or more than one partition is left.
    """
    from lab04_npu.coverage import coverage
    from lab04_npu.gelu_pass import ATOL, fuse_erf_gelu, prove
    from lab04_npu.graphfacts import name_nodes

    static, folded, _ = prepared(ctx, "bert_erfgelu")
    before = coverage(folded, **ctx.session_kw())
    runtime, outcome = prove(static.model, [static.feeds])
    if outcome.failed:
        raise GateFailed(f"gelu pass broke the pass contract: {outcome.status}: {outcome.detail}")
    fused = name_nodes(fuse_erf_gelu(folded).model)
    after = coverage(fused, **ctx.session_kw())
    gate = gate_row("bert_erfgelu after the pass, on QNN", static.reference, after.session.run(static.feeds))
    ctx.reports["bert_erfgelu"], ctx.reports["bert_erfgelu + pass"] = before, after
    for label, cov in (("bert_erfgelu", before), ("bert_erfgelu + fuse_erf_gelu", after)):
        ctx.tables.setdefault("coverage_nodes", []).extend({"model": label, **r} for r in cov.nodes)
        ctx.tables.setdefault("boundaries", []).extend({"model": label, **b} for b in cov.boundaries)
    rows = []
    for label, cov in (("before", before), ("after fuse_erf_gelu", after)):
        s = cov.summary(f"bert_erfgelu {label}")
        rows.append({**s, "pass_rewrites": outcome.rewrites if label != "before" else 0,
                     "pass_contract": f"{outcome.status} at atol {ATOL:g} ({runtime})",
                     "max_abs_vs_torch": gate["max_abs"] if label != "before" else None})
    ctx.tables["gelu_pass"] = rows
    b, a = rows
    if a["partitions"] != 1:
        raise GateFailed(f"after fuse_erf_gelu the model still has {a['partitions']} QNN partitions")
    cli.step(3, "gelu", f"BERT (JAX-spelled GELU): {b['partitions']} partitions, {b['coverage_nodes_pct']} % nodes, "
             f"CPU {b['cpu_ops']} -> fuse_erf_gelu ({outcome.rewrites} rewrites, pass contract {outcome.status} at "
             f"atol {ATOL:g}) -> {a['partitions']} partition, {a['coverage_nodes_pct']} %; "
             f"QNN vs PyTorch max abs {gate['max_abs']:.3g}")


#: the floors the mask_floor table measures (A8W8, A16W16) beside the run's (``--mask-floor``, quant.MASK_FLOOR)
MASK_FLOOR_SWEEP = (-1e4, -1e3, -150.0)


def step_quantize(ctx: Ctx) -> None:
    """Step 4: QDQ models for the HTP (QNN's config; A8W8, A16W8, A16W16), MinMax-calibrated on
    ``--calibration`` text sequences and evaluated on the next one, held out: per-layer error on the HTP
    against fp32, the first tensor beyond :data:`lab04_npu.quant.LAYER_TOL`, with the attention-mask fill
    clamped to ``--mask-floor`` and without, the A8W8 arm with 16-bit Softmax inputs, and both 8- and 16-bit
    activations at the floors of :data:`MASK_FLOOR_SWEEP`; fills ``quantization``, ``quant_layers`` and
    ``mask_floor``.

    Raises:
        GateFailed: clamping the mask changed fp32 outputs, or A16W8's logits are off by more than ``--max-rel``
            of their scale.
    """
    import onnx

    from common.onnx_utils import ort_run, save_model
    from lab01_onnx.divergence import onnx_divergence
    from lab04_npu.qnn import qnn_session
    from lab04_npu.quant import (LAYER_TOL, clamp_mask_fill, first_out_of_tolerance, per_layer, quantize_for_qnn,
                                 softmax_inputs)

    static, folded, path = prepared(ctx, "llama_tiny")
    # calibrate on the first n text sequences, evaluate on the next one: held out, from the same source (random
    # ids over the whole vocabulary reach activations the byte-level calibration text never does: clipping)
    texts, source = text_feeds(static, ctx.args.calibration + 1)
    cal, held = texts[:-1], texts[-1]
    reference = {k: np.asarray(v, np.float32) for k, v in static.bundle.run(held).items()}
    ref = ort_run(folded, held)
    floor = ctx.args.mask_floor

    def clamp(at: float):
        """The model with its mask fill clamped to ``at``, whether its fp32 outputs stayed bit for bit."""
        model, n = clamp_mask_fill(folded, at)
        return model, n, compare(ref, ort_run(model, held), atol=0.0, stage=f"mask clamp to {at:g} (fp32, CPU)")

    clamped, n_clamped, same = clamp(floor)
    if not same.passed:
        raise GateFailed(f"clamping the mask fill to {floor:g} changed fp32 outputs ({same.first_failure}): the "
                         f"attention scores spread wider than {-floor - 104:.0f}; pass a lower --mask-floor")
    clamped_path = save_model(clamped, ctx.work / "llama_tiny_clamped.onnx")

    def on_htp(model, feeds):
        return qnn_session(model, **ctx.session_kw()).run(feeds)

    def measure(acts: str, weights: str, src, fp32, wide=()) -> tuple[dict, list[dict]]:
        """Quantize ``src`` (calibrated on ``cal``), run it on the HTP: the arm's end-to-end row, its per-layer rows."""
        qdq = onnx.load(str(quantize_for_qnn(src, ctx.work / f"llama_{acts}_{weights}.onnx", cal, acts, weights, wide)))
        rows = per_layer(fp32, qdq, held, LAYER_TOL[acts], run=on_htp)
        y, r = on_htp(qdq, held)["logits"], reference["logits"]
        return {"activations": acts, "weights": f"u{weights}", "qdq": qdq, "rows": rows,
                "first": first_out_of_tolerance(rows),
                "logits_max_abs": float(np.max(np.abs(y - r))), "logits_scale": float(np.max(np.abs(r))),
                "top1_agreement": float((y.argmax(-1) == r.argmax(-1)).mean())}, rows

    summary, layers, kept = [], [], {}
    # (activations, weights, model, source, its fp32 model, tensors at 16 bits): A8W8 and A16W8 as exported and with
    # the mask clamped; A16W16, clamped, to show what the uint8 weights cost; and A8W8 with Softmax's input at 16 bits,
    # where no mask floor helps 8 (mixed precision)
    softmax_reads = softmax_inputs(folded)
    arms = [(a, "int8", label, src, fp32, ()) for a in ("int8", "int16")
            for label, src, fp32 in (("as exported", path, folded), ("mask clamped", clamped_path, clamped))]
    arms.append(("int16", "int16", "mask clamped, 16-bit weights", clamped_path, clamped, ()))
    arms.append(("int8", "int8", "mask clamped, 16-bit Softmax input", clamped_path, clamped, softmax_reads))
    for acts, weights, label, src, fp32, wide in arms:
        m, rows = measure(acts, weights, src, fp32, wide)
        kept[label, acts] = m
        first = m["first"]
        cpu = onnx_divergence(fp32, m["qdq"], held, atol=LAYER_TOL[acts])  # Lab 01's finder, CPU EP
        summary.append({"activations": acts, "weights": m["weights"], "model": label, "layers_compared": len(rows),
                        "layer_tol_rel": LAYER_TOL[acts],
                        "first_out_of_tol": f"{first['node']} ({first['op']}) rel {first['rel']:.3g}" if first else "-",
                        # the part of that error outside the calibrated range (the same at any bit width)
                        "first_out_of_tol_clip_rel": first["clip_rel"] if first else float("nan"),
                        "cpu_ep_first_divergence": f"{cpu.node} ({cpu.op_type}) max abs {cpu.max_abs:.3g}" if cpu else "-",
                        **{k: m[k] for k in ("logits_max_abs", "logits_scale", "top1_agreement")}})
        layers += [{"activations": acts, "weights": m["weights"], "model": label, **row} for row in rows]
    # the floor sets the grid of scores + mask: A8W8 and A16W16 at the sweep's floors beside this run's (measured
    # above); the grid has 2^bits - 1 steps
    sweep = []
    for acts, label in (("int8", "mask clamped"), ("int16", "mask clamped, 16-bit weights")):
        levels = 2 ** int(acts[3:]) - 1
        for at in sorted({floor, *MASK_FLOOR_SWEEP}):
            if at == floor:
                m, exact = kept[label, acts], True
            else:
                model, _, check = clamp(at)
                m, _ = measure(acts, acts, save_model(model, ctx.work / "llama_tiny_floor.onnx"), model)
                exact = check.passed
            reads = [r for r in m["rows"] if r["tensor"] in softmax_reads]
            sweep.append({"activations": acts, "weights": m["weights"], "mask_floor": at, "this_run": at == floor,
                          "fp32_outputs_unchanged": exact,
                          "softmax_input_lo": min(r["cal_lo"] for r in reads),
                          "softmax_input_hi": max(r["cal_hi"] for r in reads),
                          "softmax_input_step": max((r["cal_hi"] - r["cal_lo"]) / levels for r in reads),
                          "softmax_rel": max(r["rel"] for r in m["rows"] if r["op"] == "Softmax"),
                          "beyond_tol": sum(not r["within"] for r in m["rows"]), "compared": len(m["rows"]),
                          **{k: m[k] for k in ("logits_max_abs", "top1_agreement")}})
    ctx.tables.update(quantization=summary, quant_layers=layers, mask_floor=sweep)
    best = next(r for r in summary if r["activations"] == "int16" and r["model"] == "mask clamped")  # A16W8
    rel = best["logits_max_abs"] / best["logits_scale"]
    if rel > ctx.args.max_rel:
        raise GateFailed(f"int16 QDQ (mask clamped) on HTP: logits max abs {best['logits_max_abs']:.3g} is "
                         f"{rel:.1%} of the logit scale > --max-rel {ctx.args.max_rel:g}")
    ctx.meta["mask_initializers_clamped"] = n_clamped
    ctx.meta["mask_floor"] = floor
    ctx.meta["quantization_data"] = (f"{source}: MinMax calibration on the first {len(cal)} sequences, evaluated "
                                     f"on sequence {len(cal) + 1} (held out)")
    cli.step(4, "quantize", "; ".join(
        f"{s['activations']} {s['model']}: logits max abs {s['logits_max_abs']:.3g}, top-1 {s['top1_agreement']:.2f}, "
        f"first beyond tol on the HTP {s['first_out_of_tol'].split(' (')[0].split('/inner/model/')[-1]}" for s in summary)
        + "; by mask floor: " + ", ".join(f"{s['activations']} {s['mask_floor']:g} logits {s['logits_max_abs']:.3g}"
                                          for s in sweep))


def text_feeds(static, n: int) -> tuple[list[dict], str]:
    """``n`` feeds for a token model from byte-tokenized text (``common.data``) at its static shape, and the
    text's source (WikiText-2, a local file, or the offline fallback corpus)."""
    from common.data import load_texts, tokenize

    ids = static.feeds["input_ids"]
    data = load_texts(n)
    toks = tokenize(data.texts, vocab_size=512, seq_len=ids.shape[1])
    return [{"input_ids": t[None].astype(np.int64), "attention_mask": np.ones_like(ids)} for t in toks], data.source


def step_context(ctx: Ctx) -> None:
    """Step 5: the EP-context model and QNN context binary written under ``results/lab04/``, reloaded alone;
    gates: bitwise equal to a freshly compiled session, and within the fp16 gate against PyTorch.

    Raises:
        GateFailed: the reloaded binary's outputs differ from the compiled session's.
    """
    from lab04_npu.context import load_context, write_context
    from lab04_npu.qnn import qnn_session

    static, folded, _ = prepared(ctx, "llama_tiny")
    out = results_dir(LAB) / "llama_tiny_ctx.onnx"
    t0 = time.perf_counter()
    files = write_context(folded, out, **ctx.session_kw())
    gen_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    reloaded = load_context(files.model, **ctx.session_kw())
    load_s = time.perf_counter() - t0
    y = reloaded.run(static.feeds)
    fresh = qnn_session(folded, **ctx.session_kw()).run(static.feeds)
    same = compare(fresh, y, atol=0.0, stage="context binary vs compiled session")
    if not same.passed:
        raise GateFailed(f"the reloaded context binary does not match the compiled session: {same.first_failure}")
    gate = gate_row("context binary vs PyTorch", static.reference, y)
    ctx.tables["context"] = [{"model": "llama_tiny", "ep_context_onnx": files.model.name, "onnx_bytes": files.model_bytes,
                              "context_binary": files.binary.name, "binary_bytes": files.binary_bytes,
                              "partitions": files.partitions, "compile_and_write_s": round(gen_s, 2),
                              "reload_s": round(load_s, 3), "vs_compiled_session": "bitwise equal",
                              "max_abs_vs_torch": gate["max_abs"]}]
    cli.step(5, "context", f"{files.binary.name} {files.binary_bytes / 2**20:.2f} MiB + {files.model.name} "
             f"{files.model_bytes} B ({files.partitions} EPContext node); reloaded alone in {load_s * 1e3:.0f} ms, "
             f"bitwise equal to the compiled session, max abs {gate['max_abs']:.3g} vs PyTorch")


def write_tables(ctx: Ctx) -> None:
    """Step 6: every table of ``ctx.tables`` (Markdown, CSV, JSON with the environment) and ``partitions.png``
    under ``results/lab04/``."""
    from lab04_npu.plot import partitions_figure

    import importlib.metadata

    env = environment(threads=1, host="x86 HTP emulation (onnxruntime-qnn)",
                      onnxruntime_qnn=importlib.metadata.version("onnxruntime-qnn"), **ctx.meta)
    from lab04_npu.qnn import provider_options

    opts = provider_options(ctx.args.precision, ctx.args.soc_model, ctx.args.htp_arch)
    meta = {"precision": ctx.args.precision, "qnn_provider_options": str(opts), "quick": ctx.args.quick,
            "fp16_gate": f"atol {FP16_ATOL:g} x max|reference| per output"}
    titles = {"qnn_gate": "LLaMA-tiny on QNN HTP vs PyTorch", "coverage": "NPU coverage (QNN HTP)",
              "coverage_nodes": "Every node's QNN verdict", "boundaries": "Tensors crossing CPU <-> NPU per partition",
              "gelu_pass": "Closing the Erf gap with a graph pass", "quantization": "QDQ for the HTP: end to end",
              "quant_layers": "QDQ per-layer error on the HTP vs fp32",
              "mask_floor": "A8W8 and A16W16 by the value the attention-mask fill is clamped to", "context": "QNN context binary"}
    for name, rows in ctx.tables.items():
        write_table(LAB, name, rows, title=titles.get(name, name), env=env, meta=meta)
    if ctx.reports:
        save_plot(partitions_figure(ctx.reports), LAB, "partitions")
    cli.step(6, "tables", f"{len(ctx.tables)} tables in {results_dir(LAB)}" + (" + partitions.png" if ctx.reports else ""))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options of the pipeline (``skip``: the ``--skip-<step>`` names of :data:`STEPS`; ``dims``: ``{name: size}``);
    ``--quick`` sends the tables to the folder of :func:`common.cli.quick_results`.

    Raises:
        UserError: an unknown flag or bad value (:class:`common.cli.Parser`; :func:`common.errors.run_cli` exits 2),
            ``--dims`` given twice or malformed, ``--calibration`` or ``--max-rel`` not a finite number > 0, or ``--mask-floor`` not finite or not
            below ``EXP_UNDERFLOW`` (``lab04_npu.quant``).
    """
    from common.onnx_dims import add_dims_argument
    from lab04_npu.qnn import FIX_DIMS_OPTION, PRECISIONS
    from lab04_npu.quant import EXP_UNDERFLOW, MASK_FLOOR

    p = cli.parser("python -m lab04_npu.pipeline", __doc__, steps=STEPS,
                   quick="test-size models (2-layer BERT, 1-block ResNet, short sequences): about a minute")
    p.add_argument("--precision", choices=PRECISIONS, default="fp16",
                   help="HTP float precision (default fp16; see lab04_npu/qnn.py for why fp32 is not the default)")
    p.add_argument("--soc-model", default=None, help="QNN soc_model (default 43 = SM8550 for fp16)")
    p.add_argument("--htp-arch", default=None, help="QNN htp_arch (default 73 for fp16)")
    add_dims_argument(p, help="override the static dims of the token models", option=FIX_DIMS_OPTION,
                      axis_names=False)
    p.add_argument("--calibration", type=int, default=16, help="calibration sequences for QDQ (default 16)")
    p.add_argument("--mask-floor", type=float, default=MASK_FLOOR, metavar="VALUE",
                   help=f"what the -FLT_MAX attention-mask fill is clamped to before QDQ (default {MASK_FLOOR:g}, "
                        "lab04_npu/quant.py MASK_FLOOR: below -104, as close to it as the scores' spread allows)")
    p.add_argument("--max-rel", type=float, default=0.1,
                   help="int16 QDQ gate: logits max abs error / max |logit| on the HTP (default 0.1)")
    args = p.parse_args(argv)
    cli.positive("--calibration", args.calibration)
    cli.positive("--max-rel", args.max_rel)
    if not (np.isfinite(args.mask_floor) and args.mask_floor < EXP_UNDERFLOW):
        p.error(f"--mask-floor {args.mask_floor:g}: must be finite and below {EXP_UNDERFLOW} (ln 2^-150), or "
                f"Softmax gives masked positions a nonzero weight")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lab04.") as work:
        ctx = Ctx(args, Path(work))
        for i, (name, fn) in enumerate(zip(STEPS, (step_qnn, step_coverage, step_gelu, step_quantize, step_context)), 1):
            if name in args.skip:
                cli.step(i, name, "skipped")
                continue
            with naming_stubs(name, skip=f"--skip-{name}"):
                fn(ctx)
        write_tables(ctx)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_cli(stubs_as_errors(main)))
