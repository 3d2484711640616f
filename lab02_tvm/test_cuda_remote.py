"""Tests for the build-here / run-on-the-GPU path (lab02_tvm.targets.cuda_remote)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from common.errors import UserError
from lab02_tvm.targets import cuda_remote as cr

pytestmark = pytest.mark.lab02


def test_regenerated_weights_are_deterministic_and_follow_the_recipe():
    state = {"w": torch.randn(64, 32) * 0.02 + 0.5, "var": torch.rand(300) + 0.5, "ones": torch.ones(8),
             "ids": torch.arange(4)}
    recipe = cr.weight_recipe(state)
    assert set(recipe) == {"w", "var", "ones"}  # integer buffers are not regenerated
    a, b = cr.regenerate_state(recipe, seed=0), cr.regenerate_state(recipe, seed=0)
    assert cr.checksums(a) == cr.checksums(b)
    assert not np.array_equal(a["w"], cr.regenerate_state(recipe, seed=1)["w"])
    np.testing.assert_allclose(a["w"].mean(), recipe["w"]["mean"], atol=3e-3)
    np.testing.assert_allclose(a["w"].std(), recipe["w"]["std"], rtol=0.1)
    assert a["var"].min() >= recipe["var"]["min"] and a["var"].max() <= recipe["var"]["max"]  # clipped: stays > 0
    np.testing.assert_array_equal(a["ones"], np.ones(8, np.float32))
    assert a["w"].dtype == np.float32 and a["w"].shape == (64, 32)


def test_load_state_copies_by_name_and_rejects_unknown_names():
    lin = torch.nn.Linear(3, 2)
    arrays = {"weight": np.full((2, 3), 0.25, np.float32), "bias": np.zeros(2, np.float32)}
    cr.load_state(lin, arrays)
    np.testing.assert_array_equal(lin.weight.detach().numpy(), arrays["weight"])
    with pytest.raises(UserError, match="no match"):
        cr.load_state(lin, {"weights": np.zeros((2, 3), np.float32)})


def test_run_without_a_gpu_is_one_clear_line(tmp_path, capsys):
    pytest.importorskip("tvm")
    from common.errors import run_cli
    assert run_cli(cr._main, ["run", "--dir", str(tmp_path)]) == 2
    assert "no exported models" in capsys.readouterr().err
    for argv in (["run", "--dir", str(tmp_path), "--repeats", "0"], ["frob"]):
        assert run_cli(cr._main, argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and "\n" not in err, err


@pytest.mark.gpu
@pytest.mark.slow
def test_export_and_run_on_cuda_matches_pytorch(tmp_path):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc (CUDA toolkit) is not on PATH")
    cr.export("bert", tmp_path, seed=0)
    row = cr.run_one(tmp_path / "bert", repeats=3)
    assert row["gate"] == "pass", row
