"""Step 2: struct info and counts of a Relax module (the typed-IR check that replaced Relay's type checker).

Every binding of an imported module must carry its shape and dtype (``var.ty``, a
``relax.TensorType``, TVM 0.27's Python name for ``TensorStructInfo``), and
``relax.analysis.well_formed`` must hold (``tvm/relax/analysis/analysis.py``). The counts here
(operators, ``call_tir``, fused functions, TIR PrimFuncs) are what step 3's table shows after each pass.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .frontend import ImportedModel


def _fully_known(ty) -> bool:
    """True when ``ty`` is a tensor (or tuple of tensors) type with known shape and dtype.

    TVM 0.27 renamed Relax *struct info* to *types* in Python: ``relax.TensorType(shape, dtype)``
    (formerly ``TensorStructInfo``), ``relax.TupleType``, ``relax.ShapeType``; a binding's is ``var.ty``.
    """
    import tvm
    from tvm import relax
    if isinstance(ty, relax.TupleType):
        return all(_fully_known(f) for f in ty.fields)
    if isinstance(ty, relax.TensorType):
        return ty.shape is not None and ty.ndim >= 0 and str(ty.dtype) not in ("", "void")
    return isinstance(ty, (relax.ShapeType, relax.ObjectType, tvm.ir.PrimType))



def bindings_without_struct_info(mod) -> list[str]:
    """Names of the Relax bindings whose struct info lacks a shape or dtype (empty = all typed).

    This is the Relax counterpart of Relay's ``InferType`` check: every binding in every Relax
    function must carry a ``relax.TensorType`` (struct info) with a known shape and dtype (or a
    tuple of those).
    """
    from tvm import relax
    bad: list[str] = []
    for gv, func in mod.functions.items():
        if not isinstance(func, relax.Function):
            continue
        for p in func.params:
            if not _fully_known(p.ty):
                bad.append(f"{gv.name_hint}:{p.name}")
        body = func.body
        for block in getattr(body, "blocks", []):
            for b in block.bindings:
                if not _fully_known(b.var.ty):
                    bad.append(f"{gv.name_hint}:{b.var.name}")
    return bad



def relax_op_counts(mod) -> Counter:
    """``Counter`` of Relax operator names (``relax.nn.conv2d``, ``relax.call_tir``, …) over all Relax functions."""
    import tvm
    from tvm import relax
    ops: Counter = Counter()

    def visit(e):
        if isinstance(e, relax.Call) and isinstance(e.op, tvm.ir.Op):
            ops[e.op.name] += 1

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
    return ops



def module_counts(mod) -> dict:
    """Sizes that show what a pass did.

    Returns:
        ``{"main_calls": calls in ``main`` — to Relax operators, TIR kernels (``call_tir``) or fused
        Relax functions, i.e. the steps the VM executes; "call_tir": ``call_tir`` in ``main``;
        "relax_ops": operator calls in all Relax functions, fused ones included;
        "relax_functions": Relax functions (FuseOps' groups before FuseTIR); "tir_primfuncs": TIR
        PrimFuncs}``.
    """
    import tvm
    from tvm import relax
    main_calls: Counter = Counter()

    def visit(e):
        if isinstance(e, relax.Call):
            main_calls["call_tir" if isinstance(e.op, tvm.ir.Op) and e.op.name == "relax.call_tir" else
                       "op" if isinstance(e.op, tvm.ir.Op) else "function"] += 1

    relax.analysis.post_order_visit(mod["main"].body, visit)
    funcs = list(mod.functions.values())
    return {
        "main_calls": int(sum(main_calls.values())),
        "call_tir": int(main_calls["call_tir"]),
        "relax_ops": int(sum(relax_op_counts(mod).values())),
        "relax_functions": sum(isinstance(f, relax.Function) for f in funcs),
        "tir_primfuncs": sum(isinstance(f, tvm.tirx.PrimFunc) for f in funcs),
    }



def embedded_constants(mod) -> list[np.ndarray]:
    """The tensors embedded as ``relax.Constant`` in the Relax functions (ONNX initializers, BN stats)."""
    import tvm
    from tvm import relax
    found: list = []

    def visit(e):
        if isinstance(e, tvm.ir.expr.Constant) and hasattr(e.value, "numpy") \
                and not any(e.same_as(f) for f in found):
            found.append(e)

    for func in mod.functions.values():
        if isinstance(func, relax.Function):
            relax.analysis.post_order_visit(func.body, visit)
    return [e.value.numpy() for e in found]



def summarize(im: ImportedModel) -> dict:
    """Step 2 summary: well-formedness, struct-info coverage, ops, parameter count and bytes.

    Returns:
        ``{"model", "well_formed": bool, "untyped_bindings": int, "relax_ops": int,
        "distinct_ops": int, "top_ops": "name×n, …", "params": int (weight tensors: function
        parameters plus embedded constants), "param_elements": int, "param_bytes": int (bytes),
        "inputs": "name:shape:dtype, …"}``.
    """
    from tvm import relax
    ops = relax_op_counts(im.mod)
    arrays = [p.numpy() for p in im.params] + embedded_constants(im.mod)
    untyped = bindings_without_struct_info(im.mod)
    return {
        "model": im.name,
        "well_formed": bool(relax.analysis.check_well_formed(im.mod)),
        "untyped_bindings": len(untyped),
        "relax_ops": int(sum(ops.values())),
        "distinct_ops": len(ops),
        "top_ops": ", ".join(f"{k.removeprefix('relax.')}×{v}" for k, v in ops.most_common(4)),
        "params": len(arrays),
        "param_elements": int(sum(a.size for a in arrays)),
        "param_bytes": int(sum(a.nbytes for a in arrays)),
        "inputs": ", ".join(f"{k}:{'x'.join(map(str, v.shape))}:{v.dtype}" for k, v in im.inputs.items()),
    }
