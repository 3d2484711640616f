"""Step 3: the standard Relax passes, counted after each (graph-level, then lowering, then fusion).

Source of the pass order: ``tvm.relax.transform`` docstrings and ``relax.pipeline.zero_pipeline``.
"""
from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from common.errors import UserError

from .struct_info import module_counts

if TYPE_CHECKING:
    from .frontend import ImportedModel

#: The notes of ``relax_passes.md`` (what each count column means).
PASS_TABLE_NOTES = ("main_calls: calls executed by main (operators, call_tir, fused functions); call_tir: "
                    "calls into TIR kernels in main; relax_ops: operator calls in all Relax functions "
                    "(fused groups included); relax_functions: FuseOps groups before FuseTIR; "
                    "tir_primfuncs: TIR kernels in the module.")


def standard_passes() -> list[tuple[str, Callable, str]]:
    """The step-3 pass list, in order: ``(name, pass factory, what it rewrites)``.

    Graph-level passes first (they keep Relax operators), then lowering (LegalizeOps turns each
    operator into a ``call_tir`` of a TIR PrimFunc), then fusion (FuseOps groups call_tir's by
    their TIR op pattern — injective, broadcast, reduction, out-EWise-fusible — into Relax
    sub-functions; FuseTIR merges each group into one PrimFunc). Source: ``tvm.relax.transform``
    docstrings and ``relax.pipeline.zero_pipeline``.

    Contract (Task 2.2, ``lab02.passes``): each factory returns a fresh ``tvm.ir.transform.Pass``;
    the graph-level entries are named as in :data:`GRAPH_LEVEL` (:func:`tuning_module` looks them up
    by name; any order that keeps the module well formed and decomposes BatchNorm before
    FoldConstant is valid) and all run before ``LegalizeOps`` → ``AnnotateTIROpPattern`` →
    ``FuseOps`` → ``FuseTIR``, in that order and under those names (the rows of
    :func:`run_standard_passes`): exactly these eight entries, each description non-empty, and each
    factory's pass does what TVM's pass of that name does and nothing else (``DeadCodeElimination``
    keeping ``["main"]``).
    """
    from tvm import relax
    T = relax.transform
    ### BEGIN SOLUTION lab02.passes
    return [
        ("DecomposeOpsForInference", T.DecomposeOpsForInference,
         "batch_norm (inference) → its arithmetic; exposes constant folding of running stats"),
        ("FoldConstant", T.FoldConstant, "evaluate sub-graphs whose inputs are all constants"),
        ("EliminateCommonSubexpr", T.EliminateCommonSubexpr, "one binding per identical expression (CSE)"),
        ("DeadCodeElimination", lambda: T.DeadCodeElimination(["main"]), "drop unused bindings and functions"),
        ("LegalizeOps", T.LegalizeOps, "each Relax op → call_tir of a TIR PrimFunc (TOPI compute)"),
        ("AnnotateTIROpPattern", T.AnnotateTIROpPattern, "tag each PrimFunc injective/reduction/…"),
        ("FuseOps", T.FuseOps, "group call_tir's into fused Relax functions by op pattern"),
        ("FuseTIR", T.FuseTIR, "merge each fused group into a single TIR PrimFunc"),
    ]
    ### END SOLUTION



GRAPH_LEVEL = ("DecomposeOpsForInference", "FoldConstant", "EliminateCommonSubexpr", "DeadCodeElimination")



@dataclass
class PassResult:
    """Output of :func:`run_standard_passes`.

    Attributes:
        graph_mod: the module after the graph-level passes, still *unfused* Relax operators — what
            MetaSchedule tuning and ``tvm.compile`` want (they legalize and fuse themselves).
        fused_mod: after LegalizeOps → FuseTIR: Relax calling fused TIR PrimFuncs.
        rows: one row per stage: ``{"stage", "relax_ops", "call_tir", "relax_functions",
            "tir_primfuncs", "main_calls", "relax_ops", "seconds", "well_formed"}`` (see
            :func:`module_counts`); the first row is the import.
    """

    graph_mod: object
    fused_mod: object
    rows: list[dict]



def run_standard_passes(mod, *, verbose: bool = False, progress: bool = False) -> PassResult:
    """Run :func:`standard_passes` one at a time, counting after each and checking well-formedness.

    Raises:
        AssertionError: a pass produced a module that is not well formed (names the pass).
    """
    from tvm import relax
    rows = [{"stage": "imported", **module_counts(mod), "seconds": 0.0,
             "well_formed": bool(relax.analysis.check_well_formed(mod))}]
    graph_mod = None
    steps = standard_passes()
    if progress:
        from tqdm import tqdm
        steps = tqdm(steps, desc="relax passes", leave=False, disable=None)  # no bar in a log (not a tty)
    for name, factory, _ in steps:
        t0 = time.perf_counter()
        mod = factory()(mod)
        seconds = time.perf_counter() - t0
        ok = bool(relax.analysis.check_well_formed(mod))
        if not ok:
            raise AssertionError(f"module is not well formed after {name}")
        rows.append({"stage": name, **module_counts(mod), "seconds": round(seconds, 3), "well_formed": ok})
        if name in GRAPH_LEVEL:  # after the last graph-level pass, whatever their order
            graph_mod = mod
        if verbose:
            print(f"---- after {name} ----")
            print(mod.script(show_meta=False))
    return PassResult(graph_mod=graph_mod, fused_mod=mod, rows=rows)


def bind_params(im: ImportedModel, mod=None):
    """``mod`` (default ``im.mod``) with the weights bound as constants: ``main(*inputs)`` only.

    What MetaSchedule's ``compile_relax`` flow expects; ``FoldConstant`` can then precompute
    weight-only sub-graphs (BERT's weight transposes, BatchNorm scale/shift).
    """
    from tvm import relax
    mod = im.mod if mod is None else mod
    func = mod["main"]
    n_in = len(im.inputs)
    weights = dict(zip(list(func.params)[n_in:], im.params))
    return relax.transform.BindParams("main", weights)(mod) if weights else mod



#: :func:`tuning_module`'s result per imported model, kept as long as the model is
_TUNING_MODULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tuning_module(im: ImportedModel):
    """The unfused, weights-bound module MetaSchedule tunes and ``tuning.apply.build_tuned`` compiles.

    Weights bound as constants (:func:`bind_params`), then ``FoldBatchnormToConv2D`` (scales each
    conv2d's weights and bias by its BatchNorm — possible only once weights are constants), then
    the graph-level passes of step 3, then :mod:`lab02_tvm.graph.fast_gelu` (GELU lowered with
    ``fast_erf``, which vectorizes, instead of libm's scalar ``erff``). ResNet-50 then has 28 tuning
    tasks (8.2 GFLOP per image) instead of 39 with the BatchNorm arithmetic left in every conv
    epilogue; BERT-base's GELU kernel goes from 20.5 ms a call (tuned, scalar ``erff``) to a
    vectorized one.

    Made once per imported model, kept as long as the model is (:class:`ImportedModel` is hashed by identity):
    ``FoldConstant`` compiles every operator it folds with LLVM (137 builds, 9 s, for the test-size ResNet on
    Zen 4). The module is shared: Relax modules are immutable.
    """
    mod = _TUNING_MODULES.get(im)
    if mod is None:
        mod = _TUNING_MODULES[im] = _fold_and_rewrite(im)
    return mod


def _fold_and_rewrite(im: ImportedModel):
    from tvm import relax

    from .fast_gelu import fast_gelu
    mod = relax.transform.FoldBatchnormToConv2D()(bind_params(im))
    by_name = {name: factory for name, factory, _ in standard_passes()}
    for name in GRAPH_LEVEL:
        mod = by_name[name]()(mod)
    mod, _ = fast_gelu(mod)
    relax.analysis.well_formed(mod)
    return mod


#: data and kernel layout per layout name, as ConvertLayout takes them.
LAYOUTS = {"NHWC": ["NHWC", "OHWI"], "NCHW8c": ["NCHW8c", "OIHW8i8o"]}



def convert_layout(mod, layout: str = "NHWC", kernel_layout: str | None = None):
    """``ConvertLayout`` every conv2d of ``mod`` to ``layout``, then ``FoldConstant`` (weights).

    Args:
        mod: unfused Relax module with weights bound (``relax.passes.tuning_module``).
        layout: a key of :data:`LAYOUTS`, or ``"NCHW"`` (returns ``mod`` unchanged).
        kernel_layout: the convs' weight layout (``"HWIO"``); default the layout's in :data:`LAYOUTS`.
    Raises:
        UserError: unknown layout.
    """
    from tvm import relax
    if layout == "NCHW":
        return mod
    if layout not in LAYOUTS:
        raise UserError(f"unknown layout {layout!r}; choose NCHW or one of {', '.join(LAYOUTS)}")
    data, kernel = LAYOUTS[layout]
    mod = relax.transform.ConvertLayout({"relax.nn.conv2d": [data, kernel_layout or kernel]})(mod)
    mod = relax.transform.FoldConstant()(mod)
    return relax.transform.DeadCodeElimination(["main"])(mod)
