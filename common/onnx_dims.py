"""Symbolic dims of ONNX models: the one ``--dims`` option, which inputs are dynamic, fixing dims.

ONNX IR spec, "Static tensor shapes" (onnx/docs/IR.md, https://onnx.ai/onnx/repo-docs/IR.html): each
axis of a declared tensor shape is a ``dim_value`` (a number), a ``dim_param`` (a symbolic name such
as ``batch``, the same name meaning the same size wherever it occurs in the model) or unset.

* The command line: every tool that needs sizes for symbolic dims takes ``--dims NAME=SIZE[,...]``
  (:data:`DIMS_OPTION`, e.g. ``--dims batch=1,sequence=128``), parsed by :func:`parse_dims` (the
  argparse ``type``) and added by :func:`add_dims_argument`. A ``NAME`` is a ``dim_param`` or
  ``INPUT:AXIS`` (an axis of a graph input, for axes that have no ``dim_param``); each ``SIZE`` is a
  positive integer.
* :func:`dynamic_inputs`: the graph inputs that are not static; :func:`concrete_shape`: the numbers a
  value's shape takes under given sizes (what random inputs are drawn with);
  :func:`fix_dims`: a copy of a model in which the named dims are numbers.

Dims are ``dict[str, int]`` (``{"batch": 1, "input_ids:1": 128}``). Bad input is one line: a
:class:`DimsError` (a :class:`~common.errors.UserError`) naming the item and the form it must take.
"""
from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping

import onnx

from .errors import UserError
from .onnx_graph import dim_labels, subgraphs

__all__ = ["DIMS_OPTION", "DimsError", "parse_dims", "add_dims_argument", "all_numbers", "dynamic_inputs", "concrete_shape",
           "fix_dims"]

#: The one spelling of the option, in every lab: ``--dims batch=1,sequence=128``.
DIMS_OPTION = "--dims"
_FORM = "NAME=SIZE[,NAME=SIZE...] with SIZE a positive integer (e.g. batch=1,sequence=128)"


class DimsError(UserError, argparse.ArgumentTypeError):
    """A malformed ``--dims`` value. A :class:`~common.errors.UserError` (one ``error:`` line from
    :func:`~common.errors.run_cli`) and an ``argparse.ArgumentTypeError`` (as a parser's ``type``,
    argparse prefixes the option the user typed: ``argument --dims: ...``)."""


#: The largest size ``--dims`` takes for one axis: 2^31 - 1 (ONNX Runtime keeps an axis in an int32 in places,
#: and no test input is larger); the total an input may hold is :func:`check_input_bytes`'s.
MAX_DIM = 2**31 - 1
#: The most bytes one random input may take (4 GiB): a typo such as ``sequence=100000000`` is refused, not allocated.
MAX_INPUT_BYTES = 4 << 30


def check_input_bytes(name: str, shape: tuple[int, ...], itemsize: int) -> None:
    """Raise :class:`common.errors.UserError` when an input of ``shape`` and ``itemsize`` bytes per element would
    take more than :data:`MAX_INPUT_BYTES` (the sizes come from ``--dims``)."""
    import math
    n = math.prod(shape) * itemsize
    if n > MAX_INPUT_BYTES:
        raise UserError(f"input {name!r} of shape {list(shape)} would take {n / 2**30:.3g} GiB: check the sizes given "
                        f"with {DIMS_OPTION} (at most {MAX_INPUT_BYTES >> 30} GiB an input)")


def parse_dims(text: str) -> dict[str, int]:
    """``"batch=1,sequence=128"`` -> ``{"batch": 1, "sequence": 128}``; ``""`` -> ``{}``.

    Items are separated by commas, blanks around names and sizes are ignored. A name is a
    ``dim_param`` or ``INPUT:AXIS`` (``input_ids:1``, AXIS an integer >= 0).

    Raises:
        DimsError: an item without ``=``, an empty name, a size that is not an integer in 1..:data:`MAX_DIM`, an
            ``INPUT:AXIS`` name whose axis is not an integer >= 0, or a name given twice.
    """
    out: dict[str, int] = {}
    for item in (s.strip() for s in str(text).split(",")):
        if not item:
            continue
        name, sep, value = (p.strip() for p in item.partition("="))
        try:
            size = int(value)
        except ValueError:
            size = 0
        _, colon, axis = name.rpartition(":")
        if not sep or not name or size <= 0 or (colon and not (axis.isdigit() and name[:-len(axis) - 1])):
            raise DimsError(f"{item!r} is not NAME=SIZE: expected {_FORM}")
        if size > MAX_DIM:
            raise DimsError(f"{item!r}: a size above {MAX_DIM} (2^31 - 1, ONNX Runtime's limit per axis) is no input a "
                            "test can build")
        if name in out:
            raise DimsError(f"{name!r} is given twice ({name}={out[name]} and {item}); give each dim once")
        out[name] = size
    return out


class _Once(argparse.Action):
    """Store the value; a second occurrence of the option is a usage error (``--dims a=1 --dims b=2``
    would otherwise keep only the last: all sizes go in one ``--dims a=1,b=2``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = f"_{self.dest}_given"
        if getattr(namespace, seen, False):
            raise argparse.ArgumentError(self, f"given twice; give all sizes in one {self.option_strings[0]} "
                                               "NAME=SIZE,NAME=SIZE")
        setattr(namespace, seen, True)
        setattr(namespace, self.dest, values)


def add_dims_argument(p: argparse.ArgumentParser, default: str = "", help: str = "", *,
                      option: str = DIMS_OPTION, axis_names: bool = True) -> argparse.Action:
    """Add the sizes option to ``p``: ``args.dims`` is the ``dict[str, int]`` of :func:`parse_dims`
    (``default`` parsed the same way; ``{}`` when empty); giving the option twice is a usage error.
    ``help`` says what the sizes are for; the form and the default are appended. ``option``: the flag
    (Lab 04 names its own, :data:`lab04_npu.qnn.FIX_DIMS_OPTION`); ``axis_names``: whether the sizes go to
    :func:`fix_dims`, which also takes ``INPUT:AXIS``, or to a function that takes ``dim_param`` names only
    (Lab 04's task, :func:`lab04_npu.qnn.fix_dims`), and the help says which."""
    form = "NAME is a dim_param or INPUT:AXIS" if axis_names else "NAME is a dim_param"
    tail = f"{form}; default {default}" if default else form
    return p.add_argument(option, dest="dims", type=parse_dims, default=default, metavar="NAME=SIZE[,...]",
                          action=_Once, help=f"{help} ({tail})" if help else tail)


def all_numbers(labels: list[int | str]) -> bool:
    """Whether every dim label (:func:`common.onnx_graph.dim_labels`) is a number >= 0: a static shape (a
    zero-size axis is a number; ONNX IR spec, "Static tensor shapes"). Empty labels (a scalar) are static."""
    return all(isinstance(d, int) and d >= 0 for d in labels)


def dynamic_inputs(model: onnx.ModelProto) -> dict[str, list[int | str]]:
    """``{input name: dims}`` (:func:`common.onnx_graph.dim_labels`: ints, ``dim_param`` names, ``"?"``
    for an unset dim) for every main-graph input that is not an initializer and has a dim that is not
    a number >= 0, in input order. An input declaring no shape at all is not listed (its rank is
    unknown; nothing here can fix it)."""
    inits = {t.name for t in model.graph.initializer}
    out = {}
    for vi in model.graph.input:
        labels = dim_labels(vi)
        if vi.name not in inits and not all_numbers(labels):
            out[vi.name] = labels
    return out


def _size(d: onnx.TensorShapeProto.Dimension, key: str, dims: Mapping[str, int]) -> int | None:
    """The size ``dims`` gives dim ``d`` (``key`` = its ``INPUT:AXIS`` name): by ``dim_param`` first."""
    if d.HasField("dim_param") and d.dim_param in dims:
        return int(dims[d.dim_param])
    return int(dims[key]) if key in dims else None


def concrete_shape(vi: onnx.ValueInfoProto, dims: Mapping[str, int], default: int) -> list[int]:
    """The numbers a declared tensor shape takes: each ``dim_value`` as declared, a symbolic or unset
    dim from ``dims`` (by ``dim_param``, else by ``"<vi.name>:<axis>"``), else ``default``. ``[]`` for
    a value declaring no shape (a scalar is ``[]`` too)."""
    out = []
    for axis, d in enumerate(vi.type.tensor_type.shape.dim):
        size = d.dim_value if d.HasField("dim_value") else _size(d, f"{vi.name}:{axis}", dims)
        out.append(default if size is None else size)
    return out


def _value_infos(graph: onnx.GraphProto) -> Iterator[onnx.ValueInfoProto]:
    """Inputs, outputs and ``value_info`` of ``graph`` and of every subgraph in it, any depth."""
    yield from graph.input
    yield from graph.output
    yield from graph.value_info
    for node in graph.node:
        for sg in subgraphs(node):
            yield from _value_infos(sg)


def fix_dims(model: onnx.ModelProto, dims: Mapping[str, int], *, require_static: bool = True) -> onnx.ModelProto:
    """A copy of ``model`` in which the dims ``dims`` names are numbers (``dim_value``).

    * every dim whose ``dim_param`` is a key of ``dims``, wherever it is declared (graph inputs,
      outputs and ``value_info``, of the main graph and of every subgraph), becomes that number
      (a ``dim_param`` names one size throughout the model, IR spec "Static tensor shapes");
    * a main-graph input's axis that is still not a number gets ``dims["<input>:<axis>"]`` when given;
    * names of ``dims`` the model does not have are ignored (one ``--dims`` serves several models);
      other dims are left as they are (shape inference derives the rest).

    ``model`` is not modified. Shapes and dtypes of the values are otherwise unchanged.

    Raises:
        UserError: with ``require_static``, a main-graph input (not an initializer) that declares no
            shape, or one with an axis still not a number: the message names the first such axis and
            the ``--dims`` item that fixes it.
    """
    out = onnx.ModelProto()
    out.CopyFrom(model)
    for vi in _value_infos(out.graph):
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                d.dim_value = int(dims[d.dim_param])  # the oneof: clears dim_param
    inits = {t.name for t in out.graph.initializer}
    missing = []
    for vi in out.graph.input:
        if vi.name in inits or not vi.type.HasField("tensor_type"):
            continue
        if not vi.type.tensor_type.HasField("shape"):
            if require_static:
                raise UserError(f"input {vi.name!r} has no shape, so its rank is unknown and no {DIMS_OPTION} "
                                "can fix it; re-export the model with input shapes")
            continue
        for axis, d in enumerate(vi.type.tensor_type.shape.dim):
            if d.HasField("dim_value") and d.dim_value >= 0:
                continue
            size = _size(d, f"{vi.name}:{axis}", dims)
            if size is not None:
                d.dim_value = size
            else:
                missing.append((f"{vi.name}:{axis}", d.dim_param))
    if missing and require_static:
        where, param = missing[0]
        listed = ", ".join(f"{w} ({p!r})" if p else w for w, p in missing)
        raise UserError(f"dynamic input axis {where}{f' ({param!r})' if param else ''} has no size: pass "
                        f"{DIMS_OPTION} {param or where}=<size> (dynamic axes without a size: {listed})")
    return out


def require_sizes(model: onnx.ModelProto, dims: Mapping[str, int], label: str) -> None:
    """Check that ``dims`` sizes every axis of ``model``'s main-graph tensor inputs (initializers left out) that is
    not a number (by ``dim_param`` first, else ``INPUT:AXIS``, as :func:`fix_dims`), before random inputs are drawn
    from their shapes: no size is made up.

    Raises:
        UserError: a tensor input that declares no shape, or an axis ``dims`` does not size:
            ``dynamic input axis x:0 ('N') of LABEL has no size: pass --dims N=<size>`` (the one message of the
            viewer's ``--reference`` and ``--memory`` and of ``debugging.reduce``).
    """
    inits = {t.name for t in model.graph.initializer}
    for vi in model.graph.input:
        if vi.name in inits or not vi.type.HasField("tensor_type"):
            continue  # a sequence, map or optional: no shape to size
        if not vi.type.tensor_type.HasField("shape"):
            raise UserError(f"input {vi.name!r} of {label} declares no shape, so its rank is unknown and no "
                            f"{DIMS_OPTION} can size it; re-export the model with input shapes")
        for axis, d in enumerate(vi.type.tensor_type.shape.dim):
            key = f"{vi.name}:{axis}"
            if (d.HasField("dim_value") and d.dim_value >= 0) or _size(d, key, dims) is not None:
                continue
            param = d.dim_param if d.HasField("dim_param") else ""
            raise UserError(f"dynamic input axis {key}{f' ({param!r})' if param else ''} of {label} has no size: "
                            f"pass {DIMS_OPTION} {param or key}=<size>")


def check_dims_named(dims: Mapping[str, int], *models: onnx.ModelProto) -> None:
    """Refuse a ``--dims`` name that sizes nothing in ``models``: no ``dim_param`` anywhere in them and no
    ``INPUT:AXIS`` of an input axis that is not a number (a typo such as ``sequnce=32`` would leave the axis at a
    default size without a word). :func:`fix_dims` ignores such names on purpose (one ``--dims`` serves several
    models); a command that reads the ``--dims`` a user typed for these models calls this first.

    Raises:
        UserError: one line naming the unknown names and the ones the models have.
    """
    known: set[str] = set()
    for m in models:
        known |= {d.dim_param for vi in _value_infos(m.graph) for d in vi.type.tensor_type.shape.dim
                  if d.HasField("dim_param")}
        known |= {f"{name}:{axis}" for name, labels in dynamic_inputs(m).items()
                  for axis, d in enumerate(labels) if not isinstance(d, int) or d < 0}
    unknown = [n for n in dims if n not in known]
    if unknown:
        raise UserError(f"{DIMS_OPTION} {', '.join(unknown)}: no such dynamic axis in the model "
                        f"(its dims: {', '.join(sorted(known)) or 'none, every axis is a number'})")
