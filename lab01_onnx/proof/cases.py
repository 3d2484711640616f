"""The test cases shipped inside the ``onnx`` wheel, as (model, input sets) pairs for the conformance run.

* ``node``: the ~1,900 backend *node* cases (``onnx.backend.test.case.node.collect_testcases``),
  one model per operator behaviour, with their stored inputs;
* ``simple``, ``pytorch-converted``, ``pytorch-operator``: small real models under
  ``onnx/backend/test/data`` with their ``test_data_set_*/input_*.pb``;
* ``light``: models without stored inputs (seeded random ones, as the ONNX backend runner does);
* ``real``: download-only cases, listed as skipped (their ``light_`` twins run instead).

Source of the cases: https://github.com/onnx/onnx/tree/main/onnx/backend/test (Apache-2.0).
"""
from __future__ import annotations

import dataclasses
import functools
import glob
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from common.errors import UserError
from common.onnx_dims import concrete_shape
from common.onnx_graph import GraphIndex, subgraphs


@dataclasses.dataclass
class Case:
    """One model with its input sets. ``feeds``: one dict input-name -> value per data set."""

    name: str
    kind: str
    model: onnx.ModelProto | None
    feeds: list[dict[str, Any]]
    rtol: float = 1e-3
    atol: float = 1e-7
    skip: str | None = None  # reason this case cannot be run at all

    def op_types(self) -> set[str]:
        """Op types of the model and its subgraphs (:func:`all_op_types`); empty when there is no model."""
        return set() if self.model is None else all_op_types(self.model.graph)


def all_op_types(graph: onnx.GraphProto) -> set[str]:
    """Op types of a graph and of every subgraph (If/Loop/Scan bodies) inside it."""
    ops: set[str] = set()
    for node in graph.node:
        ops.add(node.op_type)
        for sub in subgraphs(node):
            ops |= all_op_types(sub)
    return ops


def _data_dir() -> str:
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")


def _runtime_input_names(model: onnx.ModelProto) -> list[str]:
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def _load_proto_value(path: str) -> Any:
    """Load one ``input_i.pb``: a TensorProto, SequenceProto or OptionalProto."""
    data = Path(path).read_bytes()
    for proto_cls, convert in ((onnx.TensorProto, numpy_helper.to_array),
                               (onnx.SequenceProto, numpy_helper.to_list),
                               (onnx.OptionalProto, numpy_helper.to_optional)):
        proto = proto_cls()
        try:
            proto.ParseFromString(data)
            if proto_cls is onnx.TensorProto and not proto.dims and not proto.raw_data \
                    and proto.data_type == 0:
                continue
            return convert(proto)
        except Exception:  # noqa: BLE001 - try the next container type
            continue
    raise ValueError(f"cannot parse {path}")


@functools.lru_cache(maxsize=1)
def _node_cases() -> tuple[Case, ...]:
    return tuple(node_cases())


def node_cases() -> list[Case]:
    """The backend *node* test cases (one ONNX model per operator behaviour)."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = collect_testcases()
    cases = []
    for tc in raw:
        names = _runtime_input_names(tc.model)
        feeds = []
        for inputs, _outputs in tc.data_sets or []:
            values = [numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else v
                      for v in inputs]
            feeds.append(dict(zip(names, values)))
        cases.append(Case(tc.name, "node", tc.model, feeds, tc.rtol, tc.atol,
                          None if feeds else "no input data set"))
    return cases


def _dummy_value(vi: onnx.ValueInfoProto, rng: np.random.Generator) -> np.ndarray:
    """Seeded random input for a declared tensor input (symbolic dims become 1)."""
    shape = concrete_shape(vi, {}, 1)
    dtype = onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 4, size=shape).astype(dtype)


def data_dir_cases(kinds: Iterable[str] = ("simple", "pytorch-converted", "pytorch-operator",
                                           "light", "real")) -> list[Case]:
    """The small real models stored under ``onnx/backend/test/data/<kind>``.

    ``light`` models have no stored inputs: they get seeded random ones (seed 0), as the ONNX
    backend runner does. ``real`` cases only name a download URL: they are listed as skipped
    (their ``light_`` twins are run instead).
    """
    cases = []
    root = _data_dir()
    for kind in kinds:
        kdir = os.path.join(root, kind)
        if not os.path.isdir(kdir):
            continue
        if kind == "light":
            for path in sorted(glob.glob(os.path.join(kdir, "*.onnx"))):
                model = onnx.load(path)
                rng = np.random.default_rng(0)
                inits = {t.name for t in model.graph.initializer}
                feeds = [{vi.name: _dummy_value(vi, rng) for vi in model.graph.input
                          if vi.name not in inits}]
                name = os.path.splitext(os.path.basename(path))[0]
                cases.append(Case(name, kind, model, feeds))
            continue
        for case_dir in sorted(glob.glob(os.path.join(kdir, "test_*"))):
            name = os.path.basename(case_dir)
            model_path = os.path.join(case_dir, "model.onnx")
            if not os.path.exists(model_path):
                cases.append(Case(name, kind, None, [],
                                  skip="download-only (data.json names a URL; its light_ twin runs)"))
                continue
            model = onnx.load(model_path)
            names = _runtime_input_names(model)
            feeds = []
            for ds in sorted(glob.glob(os.path.join(case_dir, "test_data_set_*"))):
                files = sorted(glob.glob(os.path.join(ds, "input_*.pb")),
                               key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
                feeds.append(dict(zip(names, [_load_proto_value(f) for f in files])))
            cases.append(Case(name, kind, model, feeds, skip=None if feeds else "no input data set"))
    return cases


ALL_KINDS = ("node", "simple", "pytorch-converted", "pytorch-operator", "light", "real")


def load_cases(kinds: Sequence[str] = ALL_KINDS, filter_re: str | None = None,
               limit: int | None = None) -> list[Case]:
    """All cases of the given kinds, optionally filtered by a regex on the name and truncated.

    Args:
        kinds: case kinds, a subset of :data:`ALL_KINDS`.
        filter_re: regex searched in each case's name (``re.search``); None keeps all.
        limit: keep the first ``limit`` cases; None or 0 keeps all.

    Raises:
        UserError: an unknown kind, or ``filter_re`` is not a valid regex.
    """
    unknown = set(kinds) - set(ALL_KINDS)
    if unknown:
        raise UserError(f"unknown case kind(s) {sorted(unknown)}; choose from {list(ALL_KINDS)}")
    cases: list[Case] = []
    if "node" in kinds:
        cases += _node_cases()  # cached: collecting them takes ~5 s
    cases += data_dir_cases([k for k in kinds if k != "node"])
    if filter_re:
        try:
            rx = re.compile(filter_re)
        except re.error as exc:
            raise UserError(f"--filter {filter_re!r} is not a valid regex ({exc})") from None
        cases = [c for c in cases if rx.search(c.name)]
    return cases[:limit] if limit else cases


TARGET_OPS = {"Reshape", "Identity", "Gather", "Shape", "If", "Loop", "Scan"}


def pattern_count(model: onnx.ModelProto) -> int:
    """Main-graph instances of what the passes rewrite: Reshape fed by Reshape, Identity, and
    Gather whose indices are constant and whose data is constant or a Shape."""
    g = model.graph
    idx = GraphIndex(g)
    consts = {t.name for t in g.initializer} | {n.output[0] for n in g.node
                                               if n.op_type == "Constant" and n.output}

    def made_by(name: str, op: str) -> bool:
        return name in idx.producer and idx.nodes[idx.producer[name]].op_type == op

    count = 0
    for n in g.node:
        if n.op_type == "Identity" or n.op_type == "Reshape" and n.input and made_by(n.input[0], "Reshape") or (n.op_type == "Gather" and len(n.input) == 2 and n.input[1] in consts
              and (n.input[0] in consts or made_by(n.input[0], "Shape"))):
            count += 1
    return count


def quick_slice(cases: Sequence[Case], n: int = 300) -> list[Case]:
    """A deterministic slice for CI, ``n`` cases: first those containing a pattern the passes
    rewrite (:func:`pattern_count`), then those using Reshape/Identity/Gather/Shape/If/Loop/Scan
    anywhere (subgraphs included), then every k-th remaining case."""
    def rank(c: Case) -> int:
        if c.model is None:
            return 2
        return 0 if pattern_count(c.model) else (1 if c.op_types() & TARGET_OPS else 2)

    ranked = sorted(cases, key=rank)  # stable: keeps the suite's order within a rank
    first = [c for c in ranked if rank(c) < 2][:n]
    rest = [c for c in ranked if rank(c) == 2]
    missing = n - len(first)
    if missing > 0 and rest:
        first += rest[::max(1, len(rest) // missing)][:missing]
    return first


