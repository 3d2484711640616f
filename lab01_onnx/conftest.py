"""Lab 01 test setup: the small models several Lab 01 test modules share.

* ``llama_tiny`` (session): :func:`common.models.build_llama_tiny` at its example size, batch 2 x
  sequence 16, seeded weights (two builds are bit-identical), built once: ``test_lab.py`` exports it
  (TorchScript, dynamo), ``test_tools.py`` runs it as customop's PyTorch reference. Read-only: tests
  run and export it, none changes its weights.
* ``dangling_onnx`` (per test): :func:`common.testing.dangling_model` saved in the test's
  ``tmp_path``, the model ``onnx.checker`` rejects, which every Lab 01 command line must refuse in
  one line (``test_lab.py``: divergence; ``test_tools.py``: memplan, whatran).

Tiny hand-built graphs come from :mod:`common.testing`; pass-test helpers from :mod:`lab01_onnx.testing`.
"""
from __future__ import annotations

import onnx
import pytest

from common.testing import dangling_model


@pytest.fixture(scope="session")
def llama_tiny():
    from common.models import build_llama_tiny

    return build_llama_tiny(batch=2, seq=16)


@pytest.fixture
def dangling_onnx(tmp_path):
    path = tmp_path / "dangling.onnx"
    onnx.save(dangling_model(), str(path))
    return path
