"""Right in PyTorch, wrong (or NaN) in TVM: fp16 builds of BERT-base and ResNet-50, layer by layer.

Run::

    python -m debugging.fp16                 # ResNet-50 + BERT-base (a few minutes on 2 cores)
    python -m debugging.fp16 --quick         # the test-size models (common.models small=True)

What it does:

1. **Probes.** Forward hooks on every ``Conv2d``/``Linear``/``LayerNorm``/``Embedding`` of the
   PyTorch model record the order they run in; a wrapper module then returns those layers'
   outputs after the model's own, so ``torch.export`` -> Relax (Lab 02's ``import_torch``) keeps
   each layer's output as a graph output named after the PyTorch module (e.g.
   ``inner.encoder.layer.3.output.dense``). PyTorch eager gives the reference of every probe.
2. **Three builds** of the same Relax module (untuned, ``tvm.compile`` for the host CPU): fp32;
   ``relax.transform.ToMixedPrecision(out_dtype="float16")`` (conv/matmul inputs cast to fp16 and
   the *accumulator* fp16 too); and ``ToMixedPrecision(out_dtype="float32")`` (fp16 inputs, fp32
   accumulator, result rounded to fp16 for its consumers: the pass's default, the fix).
   Both fp16 builds keep the function's fp32 signature (the pass casts at the boundary) and
   leave ``layer_norm``/``softmax`` in fp32 (read the printed module with ``-vv``).
3. **Per-layer comparison** of each fp16 build against the fp32 build on the same input: for
   every probe, ``max |fp16 - fp32| / max |fp32|`` (error relative to the layer's scale), and
   whether it holds inf/NaN. The first layer that is non-finite or beyond :data:`TOL` is named.
4. **Gate**: every layer within :data:`TOL` (1% of the layer's scale) and finite. fp16
   accumulation fails it on normal inputs (its rounding grows with the reduction length: 147-4608
   products in ResNet-50's convolutions, 768-3072 in BERT-base's matmuls); fp32 accumulation
   passes. On an input scaled x64 (a 0-255 image fed without normalization) ResNet-50's fp16
   builds overflow (fp16 max 65504) in *both* variants: the accumulator type does not help when
   the stored result itself is out of range.
5. **Padding**: ``AvgPool2d`` with ``count_include_pad`` / ``ceil_mode`` through TVM vs PyTorch
   (table ``results/debugging/padding``).
6. **Reduction order**: a Relax ``sum`` of 4096 fp16 ones. TVM's legalized ``sum`` accumulates in
   the tensor's dtype, sequentially, so it stops at 2048 (2048 + 1 rounds back to 2048 in fp16);
   PyTorch's CPU ``sum`` of the same fp16 tensor accumulates in fp32 and returns 4096.

The tables go to ``results/debugging/``: ``fp16`` (steps 1-4, one row per model, input and build),
``fp16_sum`` (step 6) and ``padding`` (step 5), each as ``.md``, ``.csv`` and ``.json``. The command exits 0 when the study ran: an fp16
build that fails the gate is the study's finding (the table's ``gate`` column), not the command's failure. Source: ``ToMixedPrecision``'s
docstring in ``tvm/relax/transform/transform.py`` (TVM 0.27); IEEE 754 binary16 (11-bit
significand, unit roundoff 2^-11, max 65504).
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from common.cli import parser, step
from common.errors import UserError, run_cli
from common.gates import GateError, GateReport

TOL = 1e-2  # per layer: max |fp16 - fp32| <= TOL * max |fp32|, every value finite
PROBE_KINDS = ("Conv2d", "Linear", "LayerNorm", "Embedding")
VARIANTS = {"fp32": None, "fp16, fp16 accumulation": "float16", "fp16, fp32 accumulation (fix)": "float32"}
UNNORMALIZED_SCALE = 64.0  # ~ a 0..255 image fed where N(0, 1) is expected
BERT_SEQ = 32  # the reductions (768, 3072, 64 terms) do not depend on it; untuned fp16 BERT at 128 takes minutes a run


def _probed_module(inner, names: Sequence[str]):
    import torch

    class Probed(torch.nn.Module):
        """``inner``'s outputs, then the outputs of the modules ``names`` (in that order)."""

        def __init__(self):
            super().__init__()
            self.inner = inner
            self.names = list(names)
            self._cap: dict = {}
            mods = dict(inner.named_modules())
            for n in self.names:
                mods[n].register_forward_hook(lambda m, i, o, n=n: self._cap.__setitem__(n, o))

        def forward(self, **kw):
            self._cap.clear()  # mutate, never reassign: torch.export warns on attributes set in forward
            out = self.inner(**kw)
            out = (out,) if isinstance(out, torch.Tensor) else tuple(out)
            return (*out, *[self._cap[n] for n in self.names])

    return Probed().eval()


def probe_bundle(bundle):
    """A copy of ``bundle`` whose model also returns every probed layer's output; returns ``(bundle, names)``.

    Layers are the ``Conv2d``/``Linear``/``LayerNorm``/``Embedding`` modules that return one tensor,
    in the order they first run (measured with forward hooks on the example input).
    """
    import torch

    from common.models import ModelBundle

    order: list[str] = []
    kinds = tuple(getattr(torch.nn, k) for k in PROBE_KINDS)

    def record(name):
        return lambda m, i, o: order.append(name) if isinstance(o, torch.Tensor) and name not in order else None

    hooks = [m.register_forward_hook(record(n)) for n, m in bundle.model.named_modules() if isinstance(m, kinds)]
    try:
        bundle.run()
    finally:
        for h in hooks:
            h.remove()
    model = _probed_module(bundle.model, order)
    probed = ModelBundle(name=bundle.name, model=model, inputs=bundle.inputs,
                         output_names=list(bundle.output_names) + order, meta=dict(bundle.meta))
    return probed, order


def mixed_precision(mod, accumulate: str):
    """``ConvertToDataflow`` + ``ToMixedPrecision(out_dtype=accumulate)`` on a Relax module.

    ``accumulate``: ``"float16"`` or ``"float32"``, the accumulator dtype of the fp16 convolutions and matmuls
    (TVM ``relax.transform.ToMixedPrecision``, which works mainly within dataflow blocks, hence
    ``ConvertToDataflow`` first, as its docstring says). Returns a new ``IRModule``.
    """
    import tvm
    from tvm import relax

    return tvm.transform.Sequential([relax.transform.ConvertToDataflow(),
                                     relax.transform.ToMixedPrecision(out_dtype=accumulate)])(mod)


@dataclass
class Builds:
    """The imported model and one VM runner per variant name (see :data:`VARIANTS`).

    Attributes:
        im: the Relax import (``lab02_tvm.graph.frontend.import_torch``) of the probed model.
        layers: the probed layers' names, in execution order (:func:`probe_bundle`).
        probed: the probed ``ModelBundle`` (PyTorch eager side).
        runners: ``{variant: VMRunner}``; build_s: ``{variant: compile time in seconds}``.
    """

    im: object
    layers: list[str]
    probed: object = None
    runners: dict = field(default_factory=dict)
    build_s: dict = field(default_factory=dict)


def build_variants(bundle, variants: dict[str, str | None] = VARIANTS, verbose: int = 0) -> Builds:
    """Probe ``bundle``, import it into Relax (``lab02_tvm.graph.frontend.import_torch``), and build
    each variant (``None`` = fp32, else ``ToMixedPrecision``'s accumulator dtype) for the host CPU."""
    from tvm import relax

    from lab02_tvm.build import VMRunner, compile_module, host_target
    from lab02_tvm.graph.frontend import import_torch

    probed, layers = probe_bundle(bundle)
    with warnings.catch_warnings():  # torch.export flags the probes' dict of captured tensors; harmless here
        warnings.filterwarnings("ignore", message="The tensor attributes")
        im = import_torch(probed)
    base = relax.transform.DecomposeOpsForInference()(im.mod)
    out = Builds(im=im, layers=layers, probed=probed)
    for name, acc in variants.items():
        mod = base if acc is None else mixed_precision(base, acc)
        if verbose >= 2:
            print(f"---- {name} ----\n{mod.script(show_meta=False)}")
        ex, seconds = compile_module(mod, host_target())
        out.runners[name] = VMRunner(ex, im)
        out.build_s[name] = round(seconds, 2)
    return out


def scaled_inputs(builds: Builds, scale: float) -> dict[str, np.ndarray]:
    """The example inputs with every float input multiplied by ``scale`` (token ids unchanged)."""
    return {k: (a * scale).astype(a.dtype) if a.dtype.kind == "f" else a for k, a in builds.im.inputs.items()}


def run_all(builds: Builds, scale: float = 1.0) -> dict[str, dict[str, np.ndarray]]:
    """Run every variant, and PyTorch eager (key ``"pytorch"``), on :func:`scaled_inputs`;
    ``{variant: {output or layer name: array}}``."""
    import tvm

    feeds = list(scaled_inputs(builds, scale).values())
    outs = {"pytorch": builds.probed.run(scaled_inputs(builds, scale))}
    for name, runner in builds.runners.items():
        for i, a in enumerate(feeds):
            runner.args[i] = tvm.runtime.tensor(a)
        runner()
        outs[name] = runner.outputs()
    return outs


def layer_rows(reference: dict[str, np.ndarray], candidate: dict[str, np.ndarray], layers: Sequence[str]) -> list[dict]:
    """Per layer: ``{"layer", "max_ref", "max_abs", "rel", "finite"}``; ``rel = max_abs / max_ref``
    (``max_abs`` itself when ``max_ref`` is 0; inf when the candidate holds inf/NaN where the reference is
    finite). ``reference[name]`` and ``candidate[name]`` must have one shape (compared in float64)."""
    rows = []
    for name in layers:
        r, c = reference[name].astype(np.float64), candidate[name].astype(np.float64)
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        finite = bool(np.isfinite(c).all() or not np.isfinite(r).all())
        d = float(np.max(np.abs(r - c))) if finite and r.size else float("inf")
        rows.append({"layer": name, "max_ref": scale, "max_abs": d,
                     "rel": d / scale if scale > 0 else d, "finite": finite})
    return rows


def first_bad(rows: Sequence[dict], tol: float = TOL) -> dict | None:
    """The first row (execution order) that is non-finite or beyond ``tol``; None when all pass."""
    return next((r for r in rows if not r["finite"] or r["rel"] > tol), None)


def gate_layers(rows: Sequence[dict], stage: str, tol: float = TOL) -> GateReport:
    """Raise :class:`common.gates.GateError` naming the first bad layer; returns the passing report."""
    report = GateReport(stage=stage, rows=[{"stage": stage, **r} for r in rows])
    bad = first_bad(rows, tol)
    if bad is not None:
        what = "turns inf/NaN" if not bad["finite"] else f"max |diff| {bad['rel']:.3g} of its scale > {tol:g}"
        report.first_failure = f"{stage}: first bad layer {bad['layer']} ({what})"
        raise GateError(report)
    return report


def summary_row(model: str, input_name: str, variant: str, rows: Sequence[dict], outputs: Sequence[str],
                build_s: float, tol: float = TOL) -> dict:
    """One table row for one (model, input, variant), numbers as numbers: ``first_bad_layer`` and
    ``first_nonfinite_layer`` are None when there is none, a relative error is inf where the layer holds
    inf/NaN, and each graph output ``o`` (the last ``len(outputs)`` of ``rows``) gets its own ``rel_<o>``."""
    bad = first_bad(rows, tol)
    finite_rels = [r["rel"] for r in rows if r["finite"]]
    out_rows = rows[len(rows) - len(outputs):]
    return {"model": model, "input": input_name, "build": variant, "layers": len(rows),
            "first_bad_layer": bad["layer"] if bad else None,
            "first_bad_rel": bad["rel"] if bad else None,
            "nonfinite_layers": sum(not r["finite"] for r in rows),
            "first_nonfinite_layer": next((r["layer"] for r in rows if not r["finite"]), None),
            "worst_finite_rel": max(finite_rels) if finite_rels else float("nan"),
            **{f"rel_{o}": r["rel"] for o, r in zip(outputs, out_rows)},
            "gate": "fail" if bad else "pass", "build_s": build_s}


def reduction_order_rows(n: int = 4096) -> list[dict]:
    """A Relax ``sum`` of ``n`` fp16 ones built by TVM, vs PyTorch's fp16 ``sum`` and the exact value."""
    import torch
    import tvm
    from tvm import relax
    from tvm.script import relax as R

    from lab02_tvm.build import host_target

    @tvm.script.ir_module
    class Sum:
        @R.function
        def main(x: R.Tensor((n,), "float16")) -> R.Tensor((), "float16"):
            return R.sum(x)

    vm = relax.VirtualMachine(tvm.compile(Sum, tvm.target.Target(host_target())), tvm.cpu())
    ones = np.ones(n, np.float16)
    got_tvm = float(vm["main"](tvm.runtime.tensor(ones)).numpy())
    got_torch = float(torch.from_numpy(ones).sum())
    seq = np.float16(0)
    for v in ones:  # sequential fp16 accumulation, as the legalized loop does
        seq = np.float16(seq + v)
    return [{"case": f"sum of {n} fp16 ones", "by": by, "accumulator": acc, "value": v, "exact": float(n)}
            for by, acc, v in (("TVM R.sum", "float16", got_tvm), ("PyTorch torch.sum", "float32", got_torch),
                               ("NumPy sequential loop", "float16", float(seq)))]


def padding_rows(cases=((True, False), (False, False), (False, True))) -> list[dict]:
    """Padding behaviour: ``AvgPool2d(3, stride=2, padding=1)`` on a 6x6 input (mean ~3, so a wrong
    divisor at the border shows) for ``(count_include_pad, ceil_mode)`` cases, PyTorch eager vs TVM
    fp32 and fp16 (fp16 accumulation) builds. ``count_include_pad=False`` divides a border window by
    its valid elements only; ``ceil_mode=True`` adds a last window that starts inside the input and
    runs past the padding, the classic place where a compiler's divisor differs from PyTorch's."""
    import torch

    from common.models import ModelBundle
    from lab02_tvm.build import VMRunner, compile_module, host_target
    from lab02_tvm.graph.frontend import import_torch

    rows = []
    for include_pad, ceil in cases:
        pool = torch.nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=include_pad, ceil_mode=ceil)
        x = torch.randn(1, 2, 6, 6, generator=torch.Generator().manual_seed(0)) + 3
        im = import_torch(ModelBundle(name="avgpool", model=torch.nn.Sequential(pool).eval(), inputs={"input": x},
                                      output_names=["y"]))
        ref = im.reference["y"]
        for variant, acc in (("fp32", None), ("fp16, fp16 accumulation", "float16")):
            ex, _ = compile_module(im.mod if acc is None else mixed_precision(im.mod, acc), host_target())
            got = VMRunner(ex, im).outputs()["y"]
            same = got.shape == ref.shape
            rows.append({"case": f"AvgPool2d(3, 2, pad 1, count_include_pad={include_pad}, ceil_mode={ceil})",
                         "build": variant, "shape": "x".join(map(str, got.shape)),
                         "shape_matches_pytorch": same,
                         "max_abs_vs_pytorch": float(np.abs(got - ref).max()) if same else float("inf")})
    return rows


def study(bundle, *, scales: dict[str, float], verbose: int = 0) -> tuple[list[dict], dict]:
    """Build the variants of ``bundle``, run each input, return the summary rows and per-layer rows."""
    builds = build_variants(bundle, verbose=verbose)
    outputs = list(bundle.output_names)
    rows, detail = [], {}
    for input_name, scale in scales.items():
        outs = run_all(builds, scale)
        ref = outs["fp32"]
        lr = layer_rows(outs["pytorch"], ref, builds.layers + outputs)
        detail[(bundle.name, input_name, "fp32 vs PyTorch")] = lr
        rows.append(summary_row(bundle.name, input_name, "fp32 (vs PyTorch eager)", lr, outputs,
                                builds.build_s["fp32"]))
        for variant in list(VARIANTS)[1:]:
            lr = layer_rows(ref, outs[variant], builds.layers + outputs)
            detail[(bundle.name, input_name, variant)] = lr
            rows.append(summary_row(bundle.name, input_name, variant, lr, outputs, builds.build_s[variant]))
    return rows, detail


def _g(value) -> str:
    """A relative error as the step lines print it: 3 significant digits, ``-`` for None (no such layer)."""
    return "-" if value is None else f"{value:.3g}"


def main(argv: Sequence[str] | None = None) -> int:
    from common.models import build_bert, build_resnet50
    from common.results import write_table
    from common.timing import environment

    from common.cli import quick_results, writable_folder
    from common.results import results_dir

    p = parser("python -m debugging.fp16", __doc__, steps=["bert", "resnet50", "reduction", "padding"],
               quick="test-size models (common.models small=True)",
               verbose="-vv prints each build's Relax module (after ToMixedPrecision) before it is compiled")
    args = p.parse_args(argv)
    if args.skip >= {"bert", "resnet50", "reduction", "padding"}:
        raise UserError("every step is skipped: nothing to run")
    if args.skip & {"bert", "resnet50"}:  # fp16.md's rows would be a part of the committed table's
        quick_results(f"--skip-{'/'.join(sorted(args.skip))}")
    writable_folder(results_dir("debugging"), "the results folder")  # before minutes of builds, not after them
    small = args.quick
    rows: list[dict] = []
    if "resnet50" not in args.skip:
        b = build_resnet50(small=small)
        r, _ = study(b, scales={"N(0,1) image": 1.0, f"image x{UNNORMALIZED_SCALE:g} (unnormalized)":
                                UNNORMALIZED_SCALE}, verbose=args.verbose)
        rows += r
        for x in r:
            step(1, "resnet50", f"{x['input']}, {x['build']}: first bad layer {x['first_bad_layer'] or '-'} "
                                f"({_g(x['first_bad_rel'])}), worst {_g(x['worst_finite_rel'])}, gate {x['gate']}")
    if "bert" not in args.skip:
        b = build_bert(seq=BERT_SEQ, small=small)
        r, _ = study(b, scales={f"token ids, sequence {BERT_SEQ}": 1.0}, verbose=args.verbose)
        rows += r
        for x in r:
            step(2, "bert", f"{x['input']}, {x['build']}: first bad layer {x['first_bad_layer'] or '-'} "
                            f"({_g(x['first_bad_rel'])}), worst {_g(x['worst_finite_rel'])}, gate {x['gate']}")
    if "reduction" not in args.skip:
        red = reduction_order_rows()
        table = write_table("debugging", "fp16_sum", red, title="Reduction order: a sum of fp16 ones",
                            env=environment(), meta={"input": "4096 fp16 ones", "exact": "4096"})
        step(3, "reduction", "; ".join(f"{x['by']} ({x['accumulator']} accumulator): {x['value']:g}" for x in red)
             + f" -> {table['md']}")
    if "padding" not in args.skip:
        pad = padding_rows()
        table = write_table("debugging", "padding", pad, title="Padding behaviour: AvgPool2d, PyTorch vs TVM",
                            env=environment(), meta={"input": "1x2x6x6, N(3, 1)", "reference": "PyTorch eager"})
        step(4, "padding", "; ".join(f"{x['case']} {x['build']}: max |diff| {x['max_abs_vs_pytorch']:.2g}"
                                     for x in pad) + f" -> {table['md']}")
    if not rows:
        return 0
    paths = write_table("debugging", "fp16", rows, title="fp16 in TVM: first layer out of tolerance, and the fix",
                        env=environment(), meta={"tolerance": f"per layer max|fp16 - fp32| <= {TOL} * max|fp32|, finite",
                                                 "small_models": small, "reference": "TVM fp32 build, same input",
                                                 "builds": "untuned"},
                        notes="rel = max |diff| / max |fp32| of the layer; 'fix' = ToMixedPrecision(out_dtype='float32').")
    step(5, "table", str(paths["md"]))
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
