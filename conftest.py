"""Root pytest configuration: lab markers, GPU skipping, a temporary results folder, CI budgets.

Markers (declared in pyproject.toml): ``lab01``, ``lab02``, ``lab03``, ``slow``, ``gpu``.
Tests marked ``gpu`` are skipped with the reason when no CUDA device is visible.
With ``CI=true`` the labs shrink their budgets (see :mod:`common.budget`).
"""
from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("MPLBACKEND", "Agg")


def cuda_reason() -> str | None:
    """``None`` when a CUDA device is usable (PyTorch sees one), else why not."""
    try:
        import torch
    except ImportError:  # pragma: no cover
        return "PyTorch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device on this machine (torch.cuda.is_available() is False)"
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if "gpu" in item.keywords:
            reason = reason or cuda_reason() or ""
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    """A temporary results root (``$MLC_RESULTS_DIR``) so tests never touch the committed results/."""
    root = tmp_path / "results"
    root.mkdir()
    monkeypatch.setenv("MLC_RESULTS_DIR", str(root))
    return root


@pytest.fixture
def ci() -> bool:
    """True when running with ``CI=true`` (budgets are shrunk)."""
    from common.budget import ci as _ci
    return _ci()
