"""Three custom ONNX graph passes and a pass manager that runs them to a fixed point.

Each pass is ``fn(model: onnx.ModelProto) -> PassResult``, works on a copy, runs in linear time,
is idempotent, and lives in its own file with its rewrite, preconditions and spec citation:

* :func:`fuse_consecutive_reshapes` (``reshape.py``) -- ``Reshape(Reshape(x, s1), s2)`` ->
  ``Reshape(x, s2')``;
* :func:`eliminate_identity` (``identity.py``) -- remove ``Identity`` nodes by renaming values;
* :func:`fold_constant_gather` (``gather.py``) -- ``Gather(const, const)`` and
  ``Gather(Shape(x), const)`` on static dims become initializers.

They share ``core.py`` (the def-use index keyed by node position, built on
:class:`common.onnx_graph.GraphIndex`, and the rule driver) and ``shapes.py`` (shape inference
on demand); ``manager.py`` holds :func:`run_passes`.

Example::

    from common.onnx_utils import op_counts
    from lab01_onnx.passes import run_passes
    optimized, report = run_passes(model)            # all three custom passes, to a fixed point
    print(op_counts(model), op_counts(optimized))
"""
from .core import DefUseIndex, PassResult, apply_rule
from .gather import MAX_FOLD_ELEMENTS, fold_constant_gather
from .identity import eliminate_identity
from .manager import CUSTOM_PASSES, check_onnxoptimizer_passes, run_passes
from .reshape import fuse_consecutive_reshapes

__all__ = ["PassResult", "DefUseIndex", "apply_rule", "fuse_consecutive_reshapes", "eliminate_identity",
           "fold_constant_gather", "CUSTOM_PASSES", "run_passes", "check_onnxoptimizer_passes", "MAX_FOLD_ELEMENTS"]
