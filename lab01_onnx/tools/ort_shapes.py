"""ONNX Runtime's symbolic shape inference, with the one op of ORT's own graph rewrites it has no rule for.

``onnxruntime.tools.symbolic_shape_infer.SymbolicShapeInference`` knows ORT's contrib ops
(``SimplifiedLayerNormalization``, ``QuickGelu``, ``FastGelu``, attention ops, ...) but not
``com.microsoft.FusedMatMul``, which ORT's EXTENDED and ALL levels write for ``MatMul`` after a
``Transpose`` or before a ``Mul`` by a constant (``MatMulScaleFusion``, ``MatmulTransposeFusion``). With
no rule, every tensor after it stays without a shape and the tool gives up ("Incomplete symbolic shape
inference"), so a stage ORT wrote had no memory plan. :func:`infer_shapes` adds the rule.
"""
from __future__ import annotations

import contextlib
import tempfile

import onnx
from onnx import helper


def _shape_inference_class():
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference, get_attribute

    class WithFusedMatMul(SymbolicShapeInference):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.dispatcher_["FusedMatMul"] = self._infer_FusedMatMul

        def _infer_FusedMatMul(self, node):  # noqa: N802 (the tool's naming: _infer_<op_type>)
            """``Y = alpha * op(A) @ op(B)``, ``op`` a swap of the last two axes where ``transA`` / ``transB``
            is 1 (ORT ContribOperators.md, com.microsoft.FusedMatMul); the batch axes broadcast as MatMul's.
            ``transBatchA`` / ``transBatchB`` (batch axes moved as well) and rank < 2 are left without a shape."""
            if get_attribute(node, "transBatchA", 0) or get_attribute(node, "transBatchB", 0):
                return
            lhs, rhs = (list(self._get_shape(node, i)) for i in (0, 1))
            if len(lhs) < 2 or len(rhs) < 2:
                return
            for shape, attr in ((lhs, "transA"), (rhs, "transB")):
                if get_attribute(node, attr, 0):
                    shape[-2], shape[-1] = shape[-1], shape[-2]
            self._check_merged_dims([lhs[-1], rhs[-2]], allow_broadcast=False)
            new_shape = [*self._broadcast_shapes(lhs[:-2], rhs[:-2]), lhs[-2], rhs[-1]]
            dtype = self.known_vi_[node.input[0]].type.tensor_type.elem_type
            self.known_vi_[node.output[0]].CopyFrom(helper.make_tensor_value_info(node.output[0], dtype, new_shape))

    return WithFusedMatMul


def infer_shapes(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """``model`` with the ``value_info`` ORT's symbolic shape inference (``auto_merge=True``) gives it, the
    FusedMatMul rule added; None when the tool cannot infer every tensor (the caller names what is missing)
    or refuses the model (opset < 7). The tool's ``infer_shapes`` loop, run in a scratch folder: when it
    gives up it writes ``sym_shape_infer_temp.onnx`` into the working directory."""
    from onnxruntime.tools.symbolic_shape_infer import get_opset

    if not get_opset(model) or get_opset(model) < 7:
        return None
    inference = _shape_inference_class()(2**31 - 1, True, False, 0)
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch):
        inference._preprocess(model)
        complete = False
        while inference.run_:
            complete = inference._infer_impl()
        inference._update_output_from_vi()
    return inference.out_mp_ if complete else None
