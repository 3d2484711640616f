"""Tests that kill the mutants of ``common/gates.py`` the older tests let survive (``python -m common.mutation``).

Each test pins one documented behaviour of :mod:`common.gates`: the tolerance rule at its boundary,
which side's dtype picks the float path, complex values, the statistics of empty / integer /
string arrays, NumPy warnings kept quiet, the report rows' fields and the failure line of each
check. Expected numbers come from NumPy (``np.isclose``, plain arithmetic) or are exact by
construction.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from common import gates

INF, NAN = math.inf, math.nan


# ---- diff_stats: the tolerance rule and which path compares -------------------------------------

def test_error_equal_to_the_tolerance_passes():
    # |c - r| <= atol + rtol*|r| with equality: 0.5 and 0.25 are exact in binary
    assert gates.diff_stats([0.0], [0.5], atol=0.5)["mismatches"] == 0
    assert gates.diff_stats([2.0], [2.5], atol=0.0, rtol=0.25)["mismatches"] == 0


def test_rtol_defaults_to_zero():
    st = gates.diff_stats([100.0], [100.5], atol=0.1)
    assert st["mismatches"] == 1 and st["rtol"] == 0.0


def test_float_on_one_side_only_compares_with_tolerance():
    # a float reference against an integer candidate: |1.5 - 1| = 0.5 <= atol 1.0
    st = gates.diff_stats(np.array([1.5]), np.array([1]), atol=1.0)
    assert st["mismatches"] == 0 and st["max_abs"] == 0.5 and st["atol"] == 1.0


def test_complex_values_compare_with_their_imaginary_part():
    ref, cand = np.array([1 + 1j, 2 + 0j]), np.array([1 + 0j, 2 + 0j])
    for r, c in ((ref, cand), (cand, ref)):
        st = gates.diff_stats(r, c, atol=0.5)
        assert st["mismatches"] == 1 and st["first_bad"] == (0,) and st["max_abs"] == pytest.approx(1.0, abs=1e-12)


def test_complex_against_real_keeps_the_imaginary_part():
    st = gates.diff_stats(np.array([3.0]), np.array([3.0 + 2j]), atol=1.0)
    assert st["mismatches"] == 1 and st["max_abs"] == pytest.approx(2.0, abs=1e-12)


def test_infinities_and_overflow_raise_no_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st = gates.diff_stats([INF, -INF, 1e308, INF], [INF, -INF, -1e308, 5.0], atol=0.0, rtol=0.1)
    assert st["mismatches"] == 2 and st["max_abs"] == INF  # 1e308 - (-1e308) overflows to inf


# ---- diff_stats: reported statistics --------------------------------------------------------------

def test_max_rel_ignores_zero_and_infinite_references():
    st = gates.diff_stats([0.0, INF, 4.0], [1.0, 5.0, 5.0], atol=0.0)
    assert st["max_rel"] == pytest.approx(0.25, abs=1e-12)  # only |5 - 4| / 4 counts


def test_max_rel_of_small_references():
    st = gates.diff_stats([0.5], [0.6], atol=0.0)
    assert st["max_rel"] == pytest.approx(0.2, rel=1e-9)


def test_max_rel_is_zero_when_no_reference_qualifies():
    st = gates.diff_stats([0.0, 0.0], [1.0, 2.0], atol=0.0)
    assert st["max_rel"] == 0.0 and st["max_abs"] == 2.0


def test_empty_and_all_nan_floats_have_zero_max_abs():
    assert gates.diff_stats(np.zeros(0), np.zeros(0), atol=0.0)["max_abs"] == 0.0
    st = gates.diff_stats([NAN], [NAN], atol=0.0)
    assert st["max_abs"] == 0.0 and st["max_rel"] == 0.0 and st["mismatches"] == 0


def test_mismatch_fraction_of_a_single_element():
    assert gates.diff_stats([0.0], [1.0], atol=0.0)["mismatch_frac"] == 1.0


def test_integer_statistics():
    st = gates.diff_stats(np.array([1, 2, 3]), np.array([1, 2, 3]), atol=0.5, rtol=0.5)
    assert (st["max_abs"], st["atol"], st["rtol"], st["nan_reference"], st["nan_candidate"]) == (0.0, 0.0, 0.0, 0, 0)
    assert math.isnan(st["max_rel"])


def test_empty_integer_arrays():
    st = gates.diff_stats(np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64), atol=0.0)
    assert st["max_abs"] == 0.0 and st["mismatches"] == 0


def test_equal_strings_have_zero_max_abs():
    st = gates.diff_stats(np.array(["a", "b"]), np.array(["a", "b"]), atol=0.0)
    assert st["max_abs"] == 0.0 and st["mismatches"] == 0


def test_integers_against_objects_compare_exactly_with_infinite_max_abs():
    # objects are compared exactly (no numeric difference): a mismatch reports max_abs inf
    st = gates.diff_stats(np.array([1, 2]), np.array([1, 3], dtype=object), atol=10.0)
    assert st["mismatches"] == 1 and st["max_abs"] == INF


# ---- conversion of the inputs -----------------------------------------------------------------------

def test_torch_tensor_that_requires_grad_is_compared():
    import torch  # a required package: conftest fails the run if it is missing
    t = torch.ones(3, requires_grad=True)
    assert gates.compare(t, np.ones(3, np.float32), atol=0.0).passed


class _NDArrayLike:
    """Stands in for ``tvm.nd.NDArray``: a ``.numpy()`` method and no ``__array__``."""

    def __init__(self, value):
        self.value = np.asarray(value)

    def numpy(self):
        return self.value


def test_objects_with_a_numpy_method_are_converted():
    rep = gates.compare(np.array([1.0, 2.0], np.float32), _NDArrayLike(np.array([1.0, 2.5], np.float32)), atol=0.1)
    assert rep.rows[0]["status"] == "values" and rep.rows[0]["max_abs"] == 0.5


def test_sequences_compare_each_output():
    rep = gates.compare([np.zeros(2), np.ones(2)], [np.zeros(2), np.zeros(2)], atol=0.1)
    assert [r["output"] for r in rep.rows] == ["output_0", "output_1"]
    assert [r["status"] for r in rep.rows] == ["ok", "values"]


def test_a_single_array_is_named_output():
    rep = gates.compare(np.zeros(2), np.zeros(2), atol=0.0)
    assert rep.rows[0]["output"] == "output" and rep.stage == "candidate"


# ---- argument checks ---------------------------------------------------------------------------------

def test_bad_nan_policy_message():
    with pytest.raises(ValueError, match=r"nan_policy must be one of \('equal', 'fail'\), got 'x'"):
        gates.diff_stats([1.0], [1.0], atol=0.0, nan_policy="x")


def test_negative_tolerance_message():
    with pytest.raises(ValueError, match=r"^atol and rtol must be >= 0$"):
        gates.compare([1.0], [1.0], atol=0.0, rtol=-1.0)


# ---- compare: rows -----------------------------------------------------------------------------------

def test_value_row_fields():
    rep = gates.compare({"y": np.zeros((2, 3), np.float32)}, {"y": np.zeros((2, 3), np.float32)}, atol=1e-4,
                        rtol=1e-3, stage="s")
    assert rep.rows == [{"stage": "s", "output": "y", "shape": "2x3", "dtype": "float32", "max_abs": 0.0,
                         "max_rel": 0.0, "mismatches": 0, "mismatch_frac": 0.0, "atol": 1e-4, "rtol": 1e-3,
                         "status": "ok"}]


def test_scalar_row_shape_is_named_scalar():
    assert gates.compare(np.float32(1), np.float32(1), atol=0.0).rows[0]["shape"] == "scalar"


def test_rtol_reaches_the_value_check():
    assert gates.compare([100.0], [100.5], atol=0.0, rtol=0.01).passed


def test_missing_shape_dtype_and_unexpected_rows():
    ref = {"m": np.zeros(2), "s": np.zeros(2), "d": np.zeros(2, np.float32)}
    cand = {"s": np.zeros(3), "d": np.zeros(2, np.float64), "u": np.zeros(1)}
    rows = gates.compare(ref, cand, atol=0.0, stage="st").rows
    assert rows == [{"stage": "st", "output": "m", "status": "missing"},
                    {"stage": "st", "output": "s", "shape": "(3,) vs (2,)", "status": "shape"},
                    {"stage": "st", "output": "d", "dtype": "float64 vs float32", "status": "dtype"},
                    {"stage": "st", "output": "u", "status": "unexpected"}]


def test_outputs_after_a_missing_one_are_still_checked():
    rep = gates.compare({"a": np.zeros(2), "b": np.zeros(2)}, {"b": np.ones(2)}, atol=0.0)
    assert [r["status"] for r in rep.rows] == ["missing", "values"]


# ---- compare: failure lines --------------------------------------------------------------------------

def test_nan_failure_line_with_nan_policy_fail():
    rep = gates.compare(np.array([1.0, NAN]), np.array([1.0, 2.0]), atol=0.0, nan_policy="fail")
    assert rep.first_failure.startswith("output: NaN present (reference 1, candidate 0) with nan_policy='fail'")


def test_nan_failure_line_names_the_candidate_side():
    rep = gates.compare(np.array([1.0, 2.0]), np.array([1.0, NAN]), atol=0.0, nan_policy="fail")
    assert rep.first_failure.startswith("output: NaN present (reference 0, candidate 1)")


def test_nan_on_one_side_with_policy_equal_is_a_value_failure():
    rep = gates.compare(np.array([1.0, NAN]), np.array([1.0, 2.0]), atol=0.0)
    assert rep.first_failure.startswith("output: 1 of 2 elements (50.00%) beyond atol=0 rtol=0")


def test_integer_failure_line():
    rep = gates.compare(np.arange(4), np.array([0, 1, 2, 5]), atol=0.0)
    assert rep.first_failure == "output: 1 of 4 int64 elements differ (first at [3]: reference 3, candidate 5)"


def test_float_failure_line_with_zero_tolerances():
    rep = gates.compare(np.array([1.0]), np.array([2.0]), atol=0.0)
    assert rep.first_failure.startswith("output: 1 of 1 elements (100.00%) beyond atol=0 rtol=0 (max abs 1;")


def test_float_failure_line_with_only_rtol():
    rep = gates.compare(np.array([1.0]), np.array([2.0]), atol=0.0, rtol=0.1)
    assert rep.first_failure.startswith("output: 1 of 1 elements (100.00%) beyond atol=0 rtol=0.1")


def test_gate_error_message_names_stage_failure_and_table():
    rep = gates.compare([1.0], [2.0], atol=0.0, stage="opt")
    msg = str(gates.GateError(rep))
    assert msg.startswith(f"stage 'opt': {rep.first_failure}\n| stage |")
    # a structural gate (no compared output) is its one line, with no empty table after it
    assert str(gates.GateError(gates.GateReport("build", first_failure="no kernel"))) == "stage 'build': no kernel"


def test_report_max_abs():
    rep = gates.compare({"a": [0.0], "b": [0.0], "c": [0.0]}, {"a": [0.5], "b": [2.0], "c": [0.0, 1.0]}, atol=0.0)
    assert rep.max_abs() == 2.0  # the shape row of "c" has no max_abs
    assert math.isnan(gates.compare({"a": [0.0]}, {}, atol=0.0).max_abs())


# ---- GateChain defaults -------------------------------------------------------------------------------

def test_chain_defaults_are_strict():
    chain = gates.GateChain("torch", [100.0], atol=0.1, raise_on_fail=False)
    assert not chain.check("s", [100.5]).passed  # rtol defaults to 0 and atol is not scaled


def test_chain_passes_its_tolerances_to_every_check():
    assert gates.GateChain("torch", [100.0], atol=0.0, rtol=0.01).check("s", [100.5]).passed
    assert gates.GateChain("torch", [100.0], atol=0.01, scale_atol_by_ref=True).check("s", [100.5]).passed
    chain = gates.GateChain("torch", [NAN], atol=0.0, nan_policy="fail", raise_on_fail=False)
    assert not chain.check("s", [NAN]).passed


def test_chain_rows_name_the_reference():
    chain = gates.GateChain("torch", [1.0], atol=0.0)
    chain.check("s", [1.0])
    assert chain.rows[0]["reference"] == "torch" and chain.rows[0]["stage"] == "s"


def test_chain_table_has_no_trailing_newline():
    chain = gates.GateChain("torch", [1.0], atol=0.0)
    chain.check("s", [1.0])
    assert chain.to_markdown() == chain.to_markdown().strip() and chain.to_markdown().startswith("| reference |")


# ---- structural: a gate without numbers ----------------------------------------------------------

def test_structural_gate_passes_silently_and_fails_with_its_stage_line_and_rows():
    assert gates.structural("fusion", None, [{"stage": "fusion", "ops": 3}]) is None
    rows = [{"stage": "legal", "prim_funcs": 99}, {"stage": "fused", "prim_funcs": 99}]
    with pytest.raises(gates.GateError) as ei:
        gates.structural("fusion", "FuseOps/FuseTIR fused nothing", iter(rows))
    rep = ei.value.report
    assert (rep.stage, rep.rows, rep.first_failure) == ("fusion", rows, "FuseOps/FuseTIR fused nothing")
    assert str(ei.value).splitlines()[0] == "stage 'fusion': FuseOps/FuseTIR fused nothing"
    assert "prim_funcs" in str(ei.value) and "99" in str(ei.value)  # the table is printed with it
