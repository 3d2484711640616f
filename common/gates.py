"""Numeric diff gates: compare a candidate's outputs with a reference, in a fixed order.

Order (as Hugging Face Optimum's exporter validates): output **names** → **shapes** → **dtypes**
→ **values**. A value passes when ``|cand - ref| <= atol + rtol * |ref|`` elementwise (NumPy's
``allclose`` rule); with ``scale_atol_by_ref=True`` the absolute tolerance becomes
``atol * max|ref|`` (a tolerance *relative to the output's scale*, for outputs such as random
ResNet-50 logits of magnitude ~100 where fp32 reassociation alone moves the last digits).

NaN policy: ``"equal"`` (default) treats NaN == NaN at the same positions as a match and a NaN on
one side only as a mismatch; ``"fail"`` fails on any NaN in either side.

A :class:`GateChain` compares successive stages (PyTorch → raw ONNX → optimized ONNX → …) with one
reference and keeps every stage's rows in one table. A failing gate raises :class:`GateError`
carrying the :class:`GateReport`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

import numpy as np

from .errors import GateFailed

NAN_POLICIES = ("equal", "fail")


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


class GateError(GateFailed):
    """A gate failed; ``.report`` is the :class:`GateReport` (its markdown is the message).

    A :class:`common.errors.GateFailed` (hence an ``AssertionError``): CLIs run through
    :func:`common.errors.run_cli` print it and exit 1.
    """

    def __init__(self, report: "GateReport"):
        self.report = report
        super().__init__(f"stage {report.stage!r}: {report.first_failure}\n{report.to_markdown()}")


@dataclass
class GateReport:
    """Result of one comparison.

    Attributes:
        stage: name of the candidate stage.
        rows: one dict per output: stage, output, shape, dtype, max_abs, max_rel, mismatches,
            mismatch_frac, atol (effective), rtol, status (``ok`` or the reason).
        first_failure: a one-line description of the first failing check, or ``None``.
    """

    stage: str
    rows: list[dict] = field(default_factory=list)
    first_failure: str | None = None

    @property
    def passed(self) -> bool:
        return self.first_failure is None

    def raise_if_failed(self) -> "GateReport":
        """Raise :class:`GateError` if any check failed; return ``self`` otherwise."""
        if not self.passed:
            raise GateError(self)
        return self

    def to_markdown(self) -> str:
        return rows_to_markdown(self.rows)

    def max_abs(self) -> float:
        """Largest max-abs error over all compared outputs (NaN if none compared)."""
        vals = [r["max_abs"] for r in self.rows if isinstance(r.get("max_abs"), float)]
        return max(vals) if vals else float("nan")


def rows_to_markdown(rows: list[dict]) -> str:
    """Render dict rows as a GitHub Markdown table (floats in ``%.3g``)."""
    if not rows:
        return "(no rows)"
    cols = list(dict.fromkeys(k for r in rows for k in r))

    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3g}"
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def _value_row(name: str, ref: np.ndarray, cand: np.ndarray, atol: float, rtol: float,
               nan_policy: str) -> tuple[dict, str | None]:
    row = {"output": name, "shape": "x".join(map(str, ref.shape)) or "scalar", "dtype": str(ref.dtype)}
    if ref.dtype.kind in "biuO" or ref.dtype == np.bool_:
        diff_mask = ref != cand
        mism = int(np.count_nonzero(diff_mask))
        max_abs = float(np.max(np.abs(ref.astype(np.float64) - cand.astype(np.float64)))) if ref.size and ref.dtype.kind != "O" else 0.0
        row.update(max_abs=max_abs, max_rel=float("nan"), mismatches=mism,
                   mismatch_frac=mism / max(ref.size, 1), atol=0.0, rtol=0.0)
        return row, (f"{name}: {mism} of {ref.size} integer elements differ" if mism else None)
    r = ref.astype(np.float64)
    c = cand.astype(np.float64)
    r_nan, c_nan = np.isnan(r), np.isnan(c)
    if nan_policy == "fail" and (r_nan.any() or c_nan.any()):
        row.update(max_abs=float("nan"), max_rel=float("nan"), mismatches=int(r_nan.sum() + c_nan.sum()),
                   mismatch_frac=float("nan"), atol=atol, rtol=rtol)
        return row, f"{name}: NaN present (reference {int(r_nan.sum())}, candidate {int(c_nan.sum())}) with nan_policy='fail'"
    both_nan = r_nan & c_nan
    with np.errstate(invalid="ignore"):
        diff = np.abs(r - c)
        diff[both_nan] = 0.0
        diff[np.isinf(r) & np.isinf(c) & (np.sign(r) == np.sign(c))] = 0.0
        bad = ~(diff <= atol + rtol * np.abs(r))  # NaN on one side only counts as bad
        bad[both_nan] = False
        rel = diff / np.maximum(np.abs(r), np.finfo(np.float64).tiny)
    finite = np.isfinite(diff)
    mism = int(np.count_nonzero(bad))
    row.update(max_abs=float(diff[finite].max()) if finite.any() else 0.0,
               max_rel=float(rel[finite & (np.abs(r) > 0)].max()) if (finite & (np.abs(r) > 0)).any() else 0.0,
               mismatches=mism, mismatch_frac=mism / max(ref.size, 1), atol=atol, rtol=rtol)
    fail = None
    if mism:
        fail = (f"{name}: {mism} of {ref.size} elements ({mism / max(ref.size, 1):.2%}) beyond "
                f"atol={atol:.3g} rtol={rtol:.3g} (max abs {row['max_abs']:.3g})")
    return row, fail


def compare(reference: Any, candidate: Any, *, atol: float, rtol: float = 0.0,
            scale_atol_by_ref: bool = False, nan_policy: str = "equal", stage: str = "candidate",
            check_dtype: bool = True) -> GateReport:
    """Compare ``candidate`` with ``reference`` (names → shapes → dtypes → values).

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
    if nan_policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {nan_policy!r}")
    if atol < 0 or rtol < 0:
        raise ValueError("atol and rtol must be >= 0")
    ref, cand = _as_mapping(reference), _as_mapping(candidate)
    report = GateReport(stage=stage)

    def fail(msg: str) -> None:
        if report.first_failure is None:
            report.first_failure = msg

    missing, extra = [n for n in ref if n not in cand], [n for n in cand if n not in ref]
    if missing or extra:
        fail(f"output names differ: missing {missing}, unexpected {extra}")
    for name in ref:
        if name not in cand:
            report.rows.append({"stage": stage, "output": name, "status": "missing"})
            continue
        r, c = ref[name], cand[name]
        if r.shape != c.shape:
            report.rows.append({"stage": stage, "output": name, "shape": f"{r.shape} vs {c.shape}", "status": "shape"})
            fail(f"{name}: shape {c.shape} != reference {r.shape}")
            continue
        if check_dtype and r.dtype != c.dtype:
            report.rows.append({"stage": stage, "output": name, "dtype": f"{c.dtype} vs {r.dtype}", "status": "dtype"})
            fail(f"{name}: dtype {c.dtype} != reference {r.dtype}")
            continue
        eff_atol = atol * float(np.nanmax(np.abs(r))) if scale_atol_by_ref and r.size and r.dtype.kind == "f" else atol
        row, why = _value_row(name, r, c, eff_atol, rtol, nan_policy)
        row = {"stage": stage, **row, "status": "ok" if why is None else "values"}
        report.rows.append(row)
        if why:
            fail(why)
    return report


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
        return all(r.passed for r in self.reports)

    @property
    def rows(self) -> list[dict]:
        return [{"reference": self.reference_name, **row} for rep in self.reports for row in rep.rows]

    def to_markdown(self) -> str:
        return rows_to_markdown(self.rows)
