"""Find the first node where two models (or PyTorch and an ONNX export) stop agreeing.

Usage::

    python -m lab01_onnx.divergence A.onnx B.onnx [--atol 1e-4] [--dims batch=2,sequence=8] [--inputs feeds.npz]
    python -m lab01_onnx.divergence --torch llama_tiny B.onnx    # PyTorch module outputs vs the ONNX export

Exit code 0 when the models agree on the input, 1 (a failed gate, with the diverging node's row)
when they do not, 2 on bad input.

Method (ONNX vs ONNX): every intermediate tensor of both models is made a graph output (types
from ``onnx.shape_inference``), both run in onnxruntime (graph optimizations off, so every tensor
exists as written) on the same input, then B's nodes are walked in topological order and the
first node with an output also present in A whose values fail :func:`common.gates.compare`
(``|b - a| <= atol + rtol * |a|``, or a different shape) is named. Tensors are matched by name, which graph
passes keep for every value they do not delete.

Method (PyTorch vs ONNX): forward hooks record every submodule's output; the TorchScript exporter
names nodes after the module scope (``/inner/model/layers.0/mlp/down_proj/MatMul``), so a module's
output is the last node of its scope. The first module, in execution order, whose output diverges
is named.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx import helper

from common import cli
from common.errors import UserError, run_cli
from common.gates import GateError, GateReport, diff_stats
from common.onnx_dims import add_dims_argument, check_input_bytes, concrete_shape
from common.onnx_skeleton import infer_shapes
from common.onnx_utils import check_model, load_model, ort_run, ort_session, print_ir


@dataclass
class Divergence:
    """The first diverging node: ``node`` (name), ``op_type``, ``output`` (tensor name), ``max_abs``
    (float, inf on shape mismatch), ``shape_a``/``shape_b``, and ``compared`` (tensors checked)."""

    node: str
    op_type: str
    output: str
    max_abs: float
    shape_a: tuple
    shape_b: tuple
    compared: int
    detail: dict = field(default_factory=dict)

    def line(self) -> str:
        """The one-line report: node, op type, output, max abs difference, both shapes, tensors compared."""
        return (f"first divergence at node {self.node!r} ({self.op_type}) output {self.output!r}: "
                f"max abs {self.max_abs:.3g}, shapes {self.shape_a} vs {self.shape_b} "
                f"({self.compared} tensors compared before it)")


def expose_intermediates(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of ``model`` whose every main-graph tensor with a known element type is a graph output
    (types from :func:`common.onnx_skeleton.infer_shapes`, which does not copy the weights)."""
    inferred = infer_shapes(model)
    types = {v.name: v.type for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    out = onnx.ModelProto()
    out.CopyFrom(model)
    present = {o.name for o in out.graph.output}
    for node in out.graph.node:
        for name in node.output:
            t = types.get(name)
            if name and name not in present and t is not None and t.HasField("tensor_type") and t.tensor_type.elem_type:
                out.graph.output.append(helper.make_tensor_value_info(name, t.tensor_type.elem_type, None))
                present.add(name)
    return out


def make_feeds(model: onnx.ModelProto, dims: Mapping[str, int] | None = None, seed: int = 0) -> dict[str, np.ndarray]:
    """Deterministic inputs for every graph input: floats ~ N(0, 1), integers in [1, 8) (valid token ids
    and a non-zero attention mask), booleans True. Symbolic dims come from ``dims`` (by ``dim_param`` or
    ``input:axis``; default 3: :func:`common.onnx_dims.concrete_shape`).

    Raises:
        UserError: an input would take more than :data:`common.onnx_dims.MAX_INPUT_BYTES` (a typo in the sizes)."""
    rng = np.random.default_rng(seed)
    inits = {t.name for t in model.graph.initializer}
    feeds = {}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        dtype = helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
        shape = concrete_shape(vi, dims or {}, 3)
        check_input_bytes(vi.name, tuple(shape), np.dtype(dtype).itemsize)
        if np.issubdtype(dtype, np.floating):
            feeds[vi.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype == np.bool_:
            feeds[vi.name] = np.ones(shape, dtype)
        else:
            feeds[vi.name] = rng.integers(1, 8, size=shape).astype(dtype)
    return feeds


def _diff(a: np.ndarray, b: np.ndarray, atol: float, rtol: float) -> float | None:
    """Max abs difference if ``b`` fails ``|b - a| <= atol + rtol·|a|`` (:func:`common.gates.diff_stats`)
    anywhere, else None; inf on a shape mismatch or when only NaNs differ."""
    if a.shape != b.shape:
        return float("inf")
    st = diff_stats(a, b, atol=atol, rtol=rtol)
    if not st["mismatches"]:
        return None
    return st["max_abs"] if st["max_abs"] > atol else float("inf")


def onnx_divergence(model_a: onnx.ModelProto, model_b: onnx.ModelProto, feeds: Mapping[str, np.ndarray],
                atol: float = 1e-4, rtol: float = 0.0) -> Divergence | None:
    """First node of ``model_b`` (topological order) whose output differs from ``model_a``'s same-named tensor.

    Returns:
        a :class:`Divergence`, or None when every shared tensor agrees within tolerance.
    """
    va = ort_run(ort_session(expose_intermediates(model_a)), feeds)
    vb = ort_run(ort_session(expose_intermediates(model_b)), feeds)
    compared = 0
    for node in model_b.graph.node:
        for name in node.output:
            if name in va and name in vb:
                d = _diff(va[name], vb[name], atol, rtol)
                if d is not None:
                    return Divergence(node.name, node.op_type, name, d, va[name].shape, vb[name].shape, compared)
                compared += 1
    return None


def torch_divergence(bundle, model: onnx.ModelProto, atol: float = 1e-4, rtol: float = 0.0) -> Divergence | None:
    """First PyTorch submodule (execution order) whose output differs from the ONNX export's.

    Needs a TorchScript export (node names carry the module scope).

    Raises:
        UserError: ``model``'s inputs are not ``bundle``'s, or no node name in ``model`` matches a
        module scope.
    """
    import torch

    records: list[tuple[str, np.ndarray]] = []
    hooks = []
    for name, mod in bundle.model.named_modules():
        if not name:
            continue
        hooks.append(mod.register_forward_hook(
            lambda m, i, o, name=name: records.append((name, o.detach().numpy())) if isinstance(o, torch.Tensor) else None))
    try:
        bundle.run()
    finally:
        for h in hooks:
            h.remove()
    last_in_scope: dict[str, str] = {}
    for node in model.graph.node:
        parts = node.name.strip("/").split("/")[:-1]
        for k in range(1, len(parts) + 1):
            last_in_scope[".".join(parts[:k])] = node.output[0]
    feeds = bundle.numpy_inputs()
    inits = {t.name for t in model.graph.initializer}
    wanted = [i.name for i in model.graph.input if i.name not in inits]
    if sorted(wanted) != sorted(feeds):
        raise UserError(f"the ONNX model's inputs {wanted} are not {bundle.name}'s {list(feeds)}; "
                        f"pass the TorchScript export of {bundle.name}")
    values = ort_run(ort_session(expose_intermediates(model)), feeds)
    compared = 0
    for name, ref in records:
        tensor = last_in_scope.get(name)
        if tensor is None or tensor not in values or values[tensor].shape != ref.shape:
            continue
        d = _diff(ref, values[tensor], atol, rtol)
        if d is not None:
            return Divergence(name, "module", tensor, d, ref.shape, values[tensor].shape, compared)
        compared += 1
    if compared == 0:
        raise UserError("no ONNX node name matches a PyTorch module scope; --torch needs a TorchScript "
                        "(dynamo=False) export, whose node names carry the module path")
    return None


def wrong_rewrite_neg_as_identity(model: onnx.ModelProto) -> tuple[onnx.ModelProto, str]:
    """A deliberately WRONG rewrite for the bisection demo: drop the first ``Neg`` as if it were an Identity.

    Shapes still agree (Neg is elementwise), so only values reveal it. Returns the faulty copy and
    the name of the removed node.

    Raises:
        UserError: the model has no Neg node.
    """
    out = onnx.ModelProto()
    out.CopyFrom(model)
    negs = [n for n in out.graph.node if n.op_type == "Neg"]
    if not negs:
        raise UserError("the model has no Neg node to break")
    neg = negs[0]
    src, dst = neg.input[0], neg.output[0]
    for n in out.graph.node:
        for i, name in enumerate(n.input):
            if name == dst:
                n.input[i] = src
    out.graph.node.remove(neg)
    return out, neg.name


def main(argv: Sequence[str] | None = None) -> int:
    p = cli.parser("python -m lab01_onnx.divergence", __doc__)
    p.add_argument("a", help="reference model (.onnx), or with --torch a common.models name (llama_tiny)")
    p.add_argument("b", help="candidate model (.onnx)")
    p.add_argument("--torch", action="store_true", help="A is a PyTorch model name from common.models")
    p.add_argument("--atol", type=float, default=1e-4, help="absolute tolerance (default 1e-4)")
    p.add_argument("--rtol", type=float, default=0.0, help="relative tolerance (default 0)")
    add_dims_argument(p, "batch=2,sequence=8", "sizes of symbolic dims (the random inputs; --torch: the model's size)")
    p.add_argument("--inputs", help=".npz file of named inputs (default: deterministic random inputs)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    model_b = load_model(args.b)
    check_model(model_b, args.b)
    if args.torch:
        from common.models import build_model

        dims = args.dims
        size = {"batch": dims.get("batch", 2)}
        if args.a != "resnet50":  # the image models take no sequence length
            size["seq"] = dims.get("sequence", 8)
        div = torch_divergence(build_model(args.a, **size), model_b, args.atol, args.rtol)
    else:
        model_a = load_model(args.a)
        check_model(model_a, args.a)
        if cli.want_ir(args):
            print_ir(f"A {args.a}", model_a)
            print_ir(f"B {args.b}", model_b)
        if args.inputs:
            if not Path(args.inputs).is_file():
                raise UserError(f"--inputs {args.inputs}: no such file")
            feeds = dict(np.load(args.inputs))
        else:
            feeds = make_feeds(model_a, args.dims, args.seed)
        div = onnx_divergence(model_a, model_b, feeds, args.atol, args.rtol)
    if div is None:
        cli.step(1, "divergence", f"none beyond atol={args.atol} rtol={args.rtol}: the models agree on this input")
        return 0
    cli.step(1, "divergence", div.line())
    row = {"node": div.node, "op_type": div.op_type, "output": div.output, "max_abs": div.max_abs,
           "shape_a": div.shape_a, "shape_b": div.shape_b, "tensors_compared_before": div.compared}
    raise GateError(GateReport(Path(args.b).name, [row], div.line()))


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
