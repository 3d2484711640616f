"""The one contract every Lab 01 pass must keep, checked the same way by the backend-suite run,
the fuzzer and the unit tests.

A pass is ``fn(model) -> PassResult(model, rewrites)``. On a model and its input sets it must:

1. leave its input model untouched, and give the same graph when run twice on it (deterministic);
2. pass ``onnx.checker.check_model`` (``full_check=True`` whenever the original passes it); a hand-made
   input the checker already refuses (a subgraph that shadows an outer name, say) is not held to this clause;
3. keep every graph input and output name, element type and shape (the model's interface);
4. give the same outputs as the original on the same runtime: ONNX Runtime (CPU, graph
   optimizations off, 1 thread, so the kernels are the same on both sides) or
   ``onnx.reference.ReferenceEvaluator``. The custom passes only move data, so the comparison is
   exact (:func:`common.gates.compare` with atol = rtol = 0, NaN == NaN); only variants that
   change arithmetic (onnxoptimizer fusions) get the case's tolerances;
5. be idempotent: running it again on its result rewrites nothing.

:func:`check_variant` returns an :class:`Outcome` naming the first broken clause.
"""
from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import onnx

from common.gates import compare
from common.onnx_utils import ort_run, ort_session
from lab01_onnx.passes import CUSTOM_PASSES, PassResult, run_passes

PassFn = Callable[[onnx.ModelProto], PassResult]

FAILURES = ("pass_error", "mutated_input", "nondeterministic", "checker_failed",
            "interface_changed", "runtime_error", "output_mismatch", "not_idempotent")


def run_all_passes(model: onnx.ModelProto) -> PassResult:
    """:func:`lab01_onnx.passes.run_passes` (all custom passes to a fixed point) as a PassResult."""
    new, report = run_passes(model)
    return PassResult(new, sum(int(r["rewrites"]) for r in report))


def custom_variants() -> dict[str, PassFn]:
    """Each custom pass alone, plus ``all`` (the pass manager)."""
    return {**CUSTOM_PASSES, "all": run_all_passes}


def call_pass(fn: PassFn, model: onnx.ModelProto) -> PassResult:
    """Run one pass; raises ``TypeError`` unless it returns a :class:`PassResult`."""
    out = fn(model)
    if not isinstance(out, PassResult):
        raise TypeError(f"pass returned {type(out).__name__}, expected PassResult(model, rewrites)")
    return out


# ---------------------------------------------------------------------------------------------
# runtimes and value comparison
# ---------------------------------------------------------------------------------------------

def ort_outputs(model: onnx.ModelProto, feeds: Mapping[str, Any]) -> list[Any]:
    """Outputs in graph order from ONNX Runtime CPU, graph optimizations off, 1 thread."""
    return list(ort_run(ort_session(model, level="DISABLE_ALL", threads=1), feeds).values())


def reference_outputs(model: onnx.ModelProto, feeds: Mapping[str, Any]) -> list[Any]:
    """Outputs in graph order from ``onnx.reference.ReferenceEvaluator``."""
    from onnx.reference import ReferenceEvaluator

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return list(ReferenceEvaluator(model).run(None, dict(feeds)))


RUNTIMES: dict[str, Callable[[onnx.ModelProto, Mapping[str, Any]], list[Any]]] = {
    "onnxruntime": ort_outputs, "onnx.reference": reference_outputs}


def diff_values(ref: Any, got: Any, *, rtol: float = 0.0, atol: float = 0.0, where: str = "output") -> str | None:
    """First difference between two runtime values, or None when they match.

    Containers (optional / map / sequence) are compared by presence, keys and length, then
    element by element; each tensor by :func:`common.gates.compare` (shape, dtype, then
    ``|got - ref| <= atol + rtol*|ref|``, NaN == NaN at the same positions; exact by default).
    """
    if ref is None or got is None:
        return None if ref is None and got is None else f"{where}: optional presence differs"
    if isinstance(ref, dict) or isinstance(got, dict):
        if not (isinstance(ref, dict) and isinstance(got, dict)) or ref.keys() != got.keys():
            return f"{where}: map keys differ"
        return next((d for k in ref if (d := diff_values(ref[k], got[k], rtol=rtol, atol=atol,
                                                         where=f"{where}[{k!r}]"))), None)
    if isinstance(ref, list) or isinstance(got, list):
        if not (isinstance(ref, list) and isinstance(got, list)) or len(ref) != len(got):
            return f"{where}: sequence length differs"
        return next((d for i, (r, g) in enumerate(zip(ref, got))
                     if (d := diff_values(r, g, rtol=rtol, atol=atol, where=f"{where}[{i}]"))), None)
    return compare({where: np.asarray(ref)}, {where: np.asarray(got)}, atol=atol, rtol=rtol).first_failure


def diff_outputs(ref: Sequence[Sequence[Any]], got: Sequence[Sequence[Any]], names: Sequence[str],
                 **tol: float) -> str | None:
    """Compare outputs of every input set (list of lists, in graph output order)."""
    for k, (r_set, g_set) in enumerate(zip(ref, got)):
        if len(r_set) != len(g_set):
            return f"set {k}: {len(g_set)} outputs != {len(r_set)}"
        for name, r, g in zip(names, r_set, g_set):
            if d := diff_values(r, g, where=f"set {k} {name}", **tol):
                return d
    return None


# ---------------------------------------------------------------------------------------------
# structure
# ---------------------------------------------------------------------------------------------

def interface_diff(before: onnx.ModelProto, after: onnx.ModelProto) -> str | None:
    """One line naming the first graph input/output whose name, type or shape changed."""
    def interface(m: onnx.ModelProto) -> list[tuple[str, str, bytes]]:
        return ([("input", v.name, v.type.SerializeToString()) for v in m.graph.input]
                + [("output", v.name, v.type.SerializeToString()) for v in m.graph.output])

    a, b = interface(before), interface(after)
    if len(a) != len(b):
        return f"{len(b)} graph inputs+outputs != {len(a)}"
    for (role, n1, t1), (_, n2, t2) in zip(a, b):
        if n1 != n2:
            return f"graph {role} {n1!r} renamed to {n2!r}"
        if t1 != t2:
            return f"graph {role} {n1!r} changed type/shape"
    return None


def graph_key(model: onnx.ModelProto) -> bytes:
    """What a rewrite changes: the nodes, initializers and interface (not value_info)."""
    g = onnx.GraphProto()
    g.CopyFrom(model.graph)
    del g.value_info[:]
    return g.SerializeToString(deterministic=True)


def short(exc: BaseException, n: int = 160) -> str:
    """``Type: message`` on one line, ORT's ``[ONNXRuntimeError] : N : KIND :`` prefix dropped."""
    text = re.sub(r"^\[ONNXRuntimeError\] : \d+ : \w+ : ", "", " ".join(str(exc).split()))
    return f"{type(exc).__name__}: {text[:n]}"


def raised_at(exc: BaseException) -> str:
    """Where ``exc`` was raised in this project's code: ``" (at lab01_onnx/passes/reshape.py:57 in fuse_at:
    first.foo)"``, the innermost frame outside installed packages ("" when there is none)."""
    import traceback
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for fr in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(fr.filename).resolve()
        if path.is_relative_to(root) and "site-packages" not in path.parts:
            return f" (at {path.relative_to(root)}:{fr.lineno} in {fr.name}: {(fr.line or '').strip()})"
    return ""


def checker_error(model: onnx.ModelProto, full_check: bool) -> str | None:
    """``onnx.checker.check_model`` message (first line) or None when the model passes."""
    try:
        onnx.checker.check_model(model, full_check=full_check)
        return None
    except Exception as exc:  # noqa: BLE001 - the checker raises several types
        return short(exc, 200)


# ---------------------------------------------------------------------------------------------
# the contract
# ---------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
    """One variant on one model: ``status`` is ``unchanged``, ``equal`` or one of :data:`FAILURES`;
    ``rewrites`` is what the pass reported (None when it raised first)."""

    status: str
    rewrites: int | None = None
    rewritten: bool = False
    detail: str = ""

    @property
    def failed(self) -> bool:
        """Whether ``status`` is one of :data:`FAILURES`."""
        return self.status in FAILURES


def check_variant(fn: PassFn, model: onnx.ModelProto, feeds_list: Sequence[Mapping[str, Any]],
                  runtime: str, ref_outputs: Sequence[Sequence[Any]], *, full_check: bool,
                  rtol: float = 0.0, atol: float = 0.0) -> Outcome:
    """Apply ``fn`` to ``model`` and check clauses 1-5 of the module docstring, in that order.

    ``ref_outputs`` are the original's outputs from ``runtime`` (a key of :data:`RUNTIMES`) on
    ``feeds_list``.
    """
    before = model.SerializeToString(deterministic=True)
    key_before = graph_key(model)
    try:
        result = call_pass(fn, model)
    except Exception as exc:  # noqa: BLE001 - a pass must not raise on a valid model
        return Outcome("pass_error", detail=short(exc, 240) + raised_at(exc))
    new, rewrites = result.model, result.rewrites
    if model.SerializeToString(deterministic=True) != before:
        return Outcome("mutated_input", rewrites, detail="the pass modified its input model")
    rewritten = graph_key(new) != key_before
    if rewritten:
        try:
            twin = call_pass(fn, model).model
        except Exception as exc:  # noqa: BLE001
            return Outcome("nondeterministic", rewrites, rewritten, "raised on a second run over the same input: "
                           + short(exc, 200))
        if graph_key(twin) != graph_key(new):
            return Outcome("nondeterministic", rewrites, rewritten, "two runs over the same input gave different graphs")
    if not rewritten and not rewrites and new.SerializeToString(deterministic=True) == before:
        return Outcome("unchanged", rewrites)
    if (err := checker_error(new, full_check)) and not checker_error(model, full_check):
        return Outcome("checker_failed", rewrites, rewritten, err)
    if err := interface_diff(model, new):
        return Outcome("interface_changed", rewrites, rewritten, err)
    try:
        got = [RUNTIMES[runtime](new, f) for f in feeds_list]
    except Exception as exc:  # noqa: BLE001
        return Outcome("runtime_error", rewrites, rewritten, f"{runtime}: {short(exc, 240)}")
    if err := diff_outputs(ref_outputs, got, [o.name for o in model.graph.output], rtol=rtol, atol=atol):
        return Outcome("output_mismatch", rewrites, rewritten, f"{runtime}: {err}")
    if rewritten:
        try:
            again = call_pass(fn, new)
        except Exception as exc:  # noqa: BLE001
            return Outcome("pass_error", rewrites, rewritten, "second run: " + short(exc, 200))
        if graph_key(again.model) != graph_key(new) or again.rewrites > 0:
            return Outcome("not_idempotent", rewrites, rewritten,
                           f"second run reported {again.rewrites} rewrite(s) / changed the graph")
    return Outcome("equal", rewrites, rewritten)
