"""Tests of lab02_tvm.measure.inmodel_gap: each kernel of a built model timed in the model and alone on the
model's own arguments.

Workload: :mod:`lab02_tvm.test_roofline`'s (``main(x, w, b) = relu(x @ w + b) @ w^T``, fp32 64 x 64, built
untuned; two kernels, one call each). The reference for the captured arguments and output is NumPy (float64,
``rtol=1e-5, atol=1e-3``: sums of 64 products of N(0,1) values, magnitudes ~1e1, as in test_roofline). Times
are only checked to be positive and consistent with the ratios the table reports: no speed is asserted.
"""
from __future__ import annotations

import numpy as np
import pytest

from common.errors import UserError
from lab02_tvm.measure import inmodel_gap
from lab02_tvm.test_roofline import built  # noqa: F401 - the shared 64 x 64 model (a pytest fixture)

pytestmark = pytest.mark.lab02


def test_each_kernels_first_call_is_captured_with_the_models_arguments(built):  # noqa: F811
    vm, args, _, (x, w, b) = built
    times, first = inmodel_gap.model_kernels(vm, args, rounds=3)
    assert sorted(first) == sorted(times) and len(first) >= 2 and all(len(t) == 3 for t in times.values())
    name = next(k for k in first if "relu" in k)
    _, arguments, out = first[name]
    np.testing.assert_array_equal(arguments[0], x)
    np.testing.assert_array_equal(arguments[1], w)
    np.testing.assert_allclose(out, np.maximum(x.astype(np.float64) @ w + b, 0), rtol=1e-5, atol=1e-3)


def test_rows_time_every_kernel_alone_and_the_ratios_are_their_quotients(built):  # noqa: F811
    vm, args, _, _ = built
    rows = inmodel_gap.gap_rows(vm, args, rounds=3, top=None, progress=False)
    assert len(rows) >= 2 and all(r["calls"] == 1 for r in rows)
    per_inf = [r["model_ms_per_inf"] for r in rows]
    assert per_inf == sorted(per_inf, reverse=True)
    for r in rows:
        assert min(r["model_ms"], r["warm_ms"], r["cold_ms"]) > 0
        for mode in inmodel_gap.MODES:  # the ratio of the two ms shown, to its 3 decimals
            assert r[f"model_over_{mode}"] == pytest.approx(r["model_ms"] / r[f"{mode}_ms"], abs=6e-4)
            assert r[f"{mode}_ms_per_inf"] == pytest.approx(r[f"{mode}_ms"] * r["calls"], rel=1e-3)  # 4 digits
    assert inmodel_gap.summary(rows)["cold_ms_per_inf"] == pytest.approx(sum(r["cold_ms"] for r in rows), abs=0.01)
    assert len(inmodel_gap.gap_rows(vm, args, rounds=1, top=1, progress=False)) == 1


def test_an_alone_call_that_writes_another_output_stops_the_step(built):  # noqa: F811
    vm, args, _, _ = built
    _, first = inmodel_gap.model_kernels(vm, args, rounds=1)
    func, arguments, out = next(iter(first.values()))
    assert set(inmodel_gap.alone_ms(func, arguments, out, rounds=2)) == set(inmodel_gap.MODES)
    with pytest.raises(AssertionError, match="another output than in the model"):
        inmodel_gap.alone_ms(func, arguments, out + 1.0, rounds=1)


def test_bad_input_is_one_line(tmp_path):
    for argv, says in [(["--rounds", "0"], "--rounds must be"),
                       (["--folder", str(tmp_path / "none")], "holds no records of resnet50 for this host: pass --folder"),
                       (["--name", "bad name"], "letters, digits")]:
        with pytest.raises(UserError, match=says) as e:
            inmodel_gap.main(["--model", "resnet50", *argv])
        assert "\n" not in str(e.value)
