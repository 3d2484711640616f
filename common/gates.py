"""Numeric diff gates: compare a candidate's outputs with a reference, in a fixed order.

Order (as Hugging Face Optimum's exporter validates): output **names** → **shapes** → **dtypes**
→ **values**. Every output is checked, and the report's ``first_failure`` is the first failure *in
that check order*: a missing output is reported before a wrong shape of another output, a wrong
shape before a wrong dtype, a wrong dtype before wrong values, whatever the outputs' order.

A value passes when ``|cand - ref| <= atol + rtol * |ref|`` elementwise (NumPy's ``allclose``
rule), where an infinity matches only the same infinity; integers, booleans and strings are
compared exactly. With ``scale_atol_by_ref=True`` the absolute tolerance becomes
``atol * max|ref|`` (a tolerance *relative to the output's scale*, for outputs such as random
ResNet-50 logits of magnitude ~100 where fp32 reassociation alone moves the last digits).

NaN policy: ``"equal"`` (default) treats NaN == NaN at the same positions as a match and a NaN on
one side only as a mismatch; ``"fail"`` counts every NaN position (either side) as a mismatch.

:func:`diff_stats` is the numeric core (one pair of arrays → max abs / rel error, mismatch count,
first bad index); :func:`compare` applies it per output, and Lab 01's conformance harness and
divergence finder reuse it. A :class:`GateChain` compares successive stages (PyTorch → raw ONNX →
optimized ONNX → …) with one reference and keeps every stage's rows in one table. A failing gate
raises :class:`GateError` carrying the :class:`GateReport`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import GateFailed
from .results import markdown_table

NAN_POLICIES = ("equal", "fail")
CHECK_ORDER = ("names", "shape", "dtype", "values")
# Float-like dtypes that NumPy does not give kind "f"/"c" (ml_dtypes' bfloat16 and float8 are kind "V").
_EXTRA_FLOAT_NAMES = ("bfloat16", "float8")

# One Markdown table writer for the whole project (common.results.markdown_table); this name stays importable.
rows_to_markdown = markdown_table


def _as_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):  # torch.Tensor
        x = x.detach().cpu().numpy()
    elif hasattr(x, "numpy") and not isinstance(x, np.ndarray):  # tvm.nd.NDArray and friends
        x = x.numpy()
    return np.asarray(x)


def _as_mapping(x: Any) -> dict[str, np.ndarray]:
    if isinstance(x, Mapping):
        return {str(k): _as_numpy(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return {f"output_{i}": _as_numpy(v) for i, v in enumerate(x)}
    return {"output": _as_numpy(x)}


def is_float_like(a: np.ndarray) -> bool:
    """True for float / complex arrays, ml_dtypes' bfloat16 and float8 types included."""
    return a.dtype.kind in "fc" or a.dtype.name.startswith(_EXTRA_FLOAT_NAMES)


def _check_tolerances(atol: float, rtol: float, nan_policy: str) -> None:
    if nan_policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {nan_policy!r}")
    if atol < 0 or rtol < 0:
        raise ValueError("atol and rtol must be >= 0")


def diff_stats(reference: Any, candidate: Any, *, atol: float, rtol: float = 0.0,
               nan_policy: str = "equal") -> dict:
    """Elementwise difference statistics of two arrays of one shape (the gates' numeric core).

    Float-like arrays (float, complex, bfloat16, float8; either side) are compared in float64 /
    complex128 with ``|c - r| <= atol + rtol·|r|``; an infinity matches only an infinity of the
    same sign; NaNs follow ``nan_policy`` (module docstring). Anything else (integers, booleans,
    strings, objects) is compared exactly, and the reported ``atol``/``rtol`` are then 0.

    Args:
        reference, candidate: array-likes (NumPy arrays, torch tensors, TVM NDArrays) of one shape.
        atol, rtol: tolerances (>= 0).
        nan_policy: ``"equal"`` or ``"fail"``.

    Returns:
        ``{"max_abs", "max_rel", "mismatches", "mismatch_frac", "atol", "rtol", "first_bad",
        "size", "nan_reference", "nan_candidate"}``: ``max_abs`` is the largest ``|c - r|`` over
        positions without a NaN (``inf`` when an infinity differs; for strings/objects 0.0 when
        equal, ``inf`` otherwise); ``max_rel`` the largest ``|c - r| / |r|`` over finite non-zero
        ``r`` (NaN for exact comparisons); ``first_bad`` the index tuple of the first mismatching
        element in C order, or ``None``; ``nan_*`` the NaN counts of each side.

    Raises:
        ValueError: the shapes differ, an unknown ``nan_policy``, or a negative tolerance.
    """
    _check_tolerances(atol, rtol, nan_policy)
    ref, cand = _as_numpy(reference), _as_numpy(candidate)
    if ref.shape != cand.shape:
        raise ValueError(f"diff_stats needs one shape: candidate {cand.shape} vs reference {ref.shape}")
    size = int(ref.size)
    if is_float_like(ref) or is_float_like(cand):
        wide = np.complex128 if "c" in (ref.dtype.kind, cand.dtype.kind) else np.float64
        r, c = ref.astype(wide).ravel(), cand.astype(wide).ravel()  # 1-d: 0-d results stay arrays
        r_nan, c_nan = np.isnan(r), np.isnan(c)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            diff = np.where(r == c, 0.0, np.abs(r - c))  # r == c: equal infinities give 0, not NaN
            bad = (r != c) & ~(diff <= atol + rtol * np.abs(r))  # a NaN on either side fails this
            bad |= (np.isinf(r) | np.isinf(c)) & (r != c)  # inf only matches the same inf
            if nan_policy == "equal":
                bad[r_nan & c_nan] = False
            seen = ~np.isnan(diff)
            rel_ok = seen & np.isfinite(r) & (np.abs(r) > 0)
            max_abs = float(diff[seen].max()) if seen.any() else 0.0
            max_rel = float((diff[rel_ok] / np.abs(r[rel_ok])).max()) if rel_ok.any() else 0.0
        eff_atol, eff_rtol, n_nan_r, n_nan_c = float(atol), float(rtol), int(r_nan.sum()), int(c_nan.sum())
    else:
        bad = np.asarray(ref != cand, dtype=bool).ravel()
        if ref.dtype.kind in "biu" and cand.dtype.kind in "biu":
            delta = np.abs(ref.astype(np.float64) - cand.astype(np.float64))
            max_abs = float(delta.max()) if size else 0.0
        else:
            max_abs = float("inf") if bad.any() else 0.0
        max_rel, eff_atol, eff_rtol, n_nan_r, n_nan_c = float("nan"), 0.0, 0.0, 0, 0
    mism = int(np.count_nonzero(bad))
    first = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), ref.shape)) if mism else None
    return {"max_abs": max_abs, "max_rel": max_rel, "mismatches": mism, "mismatch_frac": mism / max(size, 1),
            "atol": eff_atol, "rtol": eff_rtol, "first_bad": first, "size": size,
            "nan_reference": n_nan_r, "nan_candidate": n_nan_c}


class GateError(GateFailed):
    """A gate failed; ``.report`` is the :class:`GateReport` (its markdown is the message).

    A :class:`common.errors.GateFailed` (hence an ``AssertionError``): CLIs run through
    :func:`common.errors.run_cli` print it and exit 1.
    """

    def __init__(self, report: GateReport):
        self.report = report
        table = f"\n{report.to_markdown()}" if report.rows else ""  # a structural gate has no table
        super().__init__(f"stage {report.stage!r}: {report.first_failure}{table}")


@dataclass
class GateReport:
    """Result of one comparison.

    Attributes:
        stage: name of the candidate stage.
        rows: one dict per output, in the reference's output order: stage, output, shape, dtype,
            max_abs, max_rel, mismatches, mismatch_frac, atol (effective), rtol, status (``ok`` or
            the failed check: ``missing``, ``unexpected``, ``shape``, ``dtype``, ``values``).
        first_failure: one line describing the first failure in check order (names → shapes →
            dtypes → values), or ``None`` when every check passed.
    """

    stage: str
    rows: list[dict] = field(default_factory=list)
    first_failure: str | None = None

    @property
    def passed(self) -> bool:
        """Whether every check passed (no ``first_failure``)."""
        return self.first_failure is None

    def raise_if_failed(self) -> GateReport:
        """Raise :class:`GateError` if any check failed; return ``self`` otherwise."""
        if not self.passed:
            raise GateError(self)
        return self

    def to_markdown(self) -> str:
        """The rows as one Markdown table (:func:`common.results.markdown_table`)."""
        return rows_to_markdown(self.rows).rstrip("\n")

    def max_abs(self) -> float:
        """Largest max-abs error over all compared outputs (NaN if none compared)."""
        vals = [r["max_abs"] for r in self.rows if isinstance(r.get("max_abs"), float)]
        return max(vals) if vals else float("nan")


def _value_row(name: str, ref: np.ndarray, cand: np.ndarray, atol: float, rtol: float,
               nan_policy: str) -> tuple[dict, str | None]:
    """The table row of one same-shape output and its failure line (``None`` when it passes)."""
    st = diff_stats(ref, cand, atol=atol, rtol=rtol, nan_policy=nan_policy)
    row = {"output": name, "shape": "x".join(map(str, ref.shape)) or "scalar", "dtype": str(ref.dtype),
           **{k: st[k] for k in ("max_abs", "max_rel", "mismatches", "mismatch_frac", "atol", "rtol")}}
    if not st["mismatches"]:
        return row, None
    at = st["first_bad"]
    where = f"first at {list(at)}: reference {ref[at]}, candidate {cand[at]}"  # NumPy's str: 0.328, not np.float32(0.328)
    if nan_policy == "fail" and (st["nan_reference"] or st["nan_candidate"]):
        return row, (f"{name}: NaN present (reference {st['nan_reference']}, candidate {st['nan_candidate']}) "
                     f"with nan_policy='fail'; {where}")
    if st["atol"] == 0 and st["rtol"] == 0 and not is_float_like(ref):
        return row, f"{name}: {st['mismatches']} of {st['size']} {ref.dtype} elements differ ({where})"
    return row, (f"{name}: {st['mismatches']} of {st['size']} elements ({st['mismatch_frac']:.2%}) beyond "
                 f"atol={st['atol']:.3g} rtol={st['rtol']:.3g} (max abs {st['max_abs']:.3g}; {where})")


def compare(reference: Any, candidate: Any, *, atol: float, rtol: float = 0.0,
            scale_atol_by_ref: bool = False, nan_policy: str = "equal", stage: str = "candidate",
            check_dtype: bool = True) -> GateReport:
    """Compare ``candidate`` with ``reference`` (names → shapes → dtypes → values).

    Every output is checked; ``first_failure`` is the first failure in check order, so a missing
    output is named before another output's wrong shape, and so on (see module docstring).

    Args:
        reference, candidate: ``{name: array}`` (NumPy arrays, torch tensors, TVM NDArrays), a
            sequence (named ``output_0`` …) or a single array (named ``output``).
        atol, rtol: tolerances of ``|c - r| <= atol + rtol·|r|``.
        scale_atol_by_ref: use ``atol · max|reference|`` per output as the absolute tolerance.
        nan_policy: ``"equal"`` or ``"fail"`` (see module docstring).
        stage: label of the candidate in the report.
        check_dtype: fail on dtype differences (otherwise values are compared in float64).

    Returns:
        A :class:`GateReport`; it does not raise (use :func:`gate` or ``raise_if_failed``).

    Raises:
        ValueError: unknown ``nan_policy`` or negative tolerances.
    """
    _check_tolerances(atol, rtol, nan_policy)
    ref, cand = _as_mapping(reference), _as_mapping(candidate)
    report = GateReport(stage=stage)
    failures: dict[str, list[str]] = {check: [] for check in CHECK_ORDER}
    missing, extra = [n for n in ref if n not in cand], [n for n in cand if n not in ref]
    if missing or extra:
        failures["names"].append(f"output names differ: missing {missing}, unexpected {extra}")
    for name in ref:
        if name not in cand:
            report.rows.append({"stage": stage, "output": name, "status": "missing"})
            continue
        r, c = ref[name], cand[name]
        if r.shape != c.shape:
            report.rows.append({"stage": stage, "output": name, "shape": f"{c.shape} vs {r.shape}", "status": "shape"})
            failures["shape"].append(f"{name}: shape {c.shape} != reference {r.shape}")
            continue
        if check_dtype and r.dtype != c.dtype:
            report.rows.append({"stage": stage, "output": name, "dtype": f"{c.dtype} vs {r.dtype}", "status": "dtype"})
            failures["dtype"].append(f"{name}: dtype {c.dtype} != reference {r.dtype}")
            continue
        eff_atol = atol * float(np.nanmax(np.abs(r))) if scale_atol_by_ref and r.size and r.dtype.kind == "f" else atol
        row, why = _value_row(name, r, c, eff_atol, rtol, nan_policy)
        report.rows.append({"stage": stage, **row, "status": "ok" if why is None else "values"})
        if why:
            failures["values"].append(why)
    report.rows += [{"stage": stage, "output": name, "status": "unexpected"} for name in extra]
    report.first_failure = next((msgs[0] for msgs in failures.values() if msgs), None)
    return report


def structural(stage: str, failure: str | None, rows: Sequence[dict] = ()) -> None:
    """A structural gate (no numeric comparison): raise :class:`GateError` when ``failure`` is set.

    Args:
        stage: the stage the check belongs to (e.g. ``"affine"``, ``"rpc"``).
        failure: one line saying what is wrong, or ``None`` when the check passed.
        rows: the table printed with the failure (exit 1 through ``common.errors.run_cli``).
    """
    GateReport(stage, list(rows), failure).raise_if_failed()


def gate(reference: Any, candidate: Any, **kwargs) -> GateReport:
    """:func:`compare`, then raise :class:`GateError` on failure. Returns the passing report."""
    return compare(reference, candidate, **kwargs).raise_if_failed()


class GateChain:
    """Compare successive stages against one reference and keep one table.

    Example::

        chain = GateChain("pytorch", torch_outputs, atol=1e-4)
        chain.check("onnx_raw", ort_outputs)
        chain.check("onnx_opt", ort_opt_outputs)
        print(chain.to_markdown())

    Args:
        reference_name: label of the reference (e.g. ``"pytorch"``).
        reference_outputs: as for :func:`compare`.
        atol, rtol, scale_atol_by_ref, nan_policy: defaults for every :meth:`check`.
        raise_on_fail: raise :class:`GateError` at the first failing stage (default True).
    """

    def __init__(self, reference_name: str, reference_outputs: Any, *, atol: float, rtol: float = 0.0,
                 scale_atol_by_ref: bool = False, nan_policy: str = "equal", raise_on_fail: bool = True):
        self.reference_name = reference_name
        self.reference = _as_mapping(reference_outputs)
        self.defaults = dict(atol=atol, rtol=rtol, scale_atol_by_ref=scale_atol_by_ref, nan_policy=nan_policy)
        self.raise_on_fail = raise_on_fail
        self.reports: list[GateReport] = []

    def check(self, stage: str, outputs: Any, **overrides) -> GateReport:
        """Compare ``outputs`` of ``stage`` with the reference; record and return the report."""
        report = compare(self.reference, outputs, stage=stage, **{**self.defaults, **overrides})
        self.reports.append(report)
        if self.raise_on_fail:
            report.raise_if_failed()
        return report

    @property
    def passed(self) -> bool:
        """Whether every stage checked so far passed (True before any :meth:`check`)."""
        return all(r.passed for r in self.reports)

    @property
    def rows(self) -> list[dict]:
        """Every stage's rows in check order, each with ``reference`` (the reference's name) first."""
        return [{"reference": self.reference_name, **row} for rep in self.reports for row in rep.rows]

    def to_markdown(self) -> str:
        """Every stage's rows as one Markdown table."""
        return rows_to_markdown(self.rows).rstrip("\n")
