"""The report of a pass that broke its contract on one graph: :class:`ContractViolation`.

:func:`lab01_onnx.testing.apply` (every graded pass test, the Hypothesis properties included) raises it
when :func:`lab01_onnx.proof.contract.check_variant` finds a broken clause or the rewrite count is not
the one the test states. It is a :class:`common.course.feedback.Counterexample` (an ``AssertionError``),
so the grader prints its text under the failed test. Under Hypothesis the graph is the one the shrinker
left. The text (:func:`report`), plain and about 20-60 lines, e.g. for a fold that takes the element
before the one a negative index names::

    fold_constant_gather broke the pass contract (output_mismatch): onnx.reference: set 0 y: 1 of 1 ...
    Counterexample: the pass's input (onnx.printer)
        <ir_version: 8, opset_import: ["" : 17]>
        g () => (float y) <int64 idx = {-1}, float[2] data = {0.12573022,-0.13210486}> {
           g = Gather <axis: int = 0> (data, idx)
           y = Neg (g)
        }
    Inputs: none (the graph reads only its initializers and constants)
    The pass's result (onnx.printer, 1 rewrite(s) reported)
        ...
    Expected outputs (the input graph under onnx.reference)
        y: float32 [] = 0.13210486
    Actual outputs (the pass's result under onnx.reference)
        y: float32 [] = -0.12573022
    First diverging node (lab01_onnx.divergence, exact): Neg (unnamed, node 0 of the result), output 'y': ...
    Folded value that differs: initializer 'g' of the result: float32 [] = 0.12573022; the input graph's
        Gather computes float32 [] = -0.13210486 there

Everything after the first line is best effort: a runtime or the divergence finder that cannot run on
the graph says so in one line instead. Long initializer values are cut to their first numbers.
"""
from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from typing import Any

import numpy as np
import onnx

from common.course.feedback import Counterexample
from common.onnx_graph import GraphIndex

from . import contract

#: A value list in onnx.printer text longer than this many characters is cut to its first numbers.
MAX_VALUES_CHARS = 100
#: The most lines of one printed graph.
MAX_GRAPH_LINES = 60
_VALUES = re.compile(r"\{([^{}\n]{" + str(MAX_VALUES_CHARS) + r",})\}")


class ContractViolation(Counterexample):
    """A pass broke the pass contract (or the expected rewrite count) on one graph.

    Attributes:
        pass_name: the pass's ``__name__``; ``status``: the broken clause (a
            :data:`~lab01_onnx.proof.contract.FAILURES` name, or ``"rewrite_count"``);
        model: the graph (``onnx.ModelProto``, the pass's input); ``feeds``: its inputs (name -> array).

    ``exc.args[0]`` is the report's first line; ``str(exc)`` is the whole of :func:`report`, built on
    first use (a Hypothesis shrinker raises and discards many of these without reading them).
    """

    def __init__(self, pass_fn: contract.PassFn, model: onnx.ModelProto, feeds: Mapping[str, Any],
                 outcome: contract.Outcome, expected_rewrites: int | None, runtime: str = "onnx.reference"):
        self.pass_name = getattr(pass_fn, "__name__", type(pass_fn).__name__)
        self.status = outcome.status if outcome.failed else "rewrite_count"
        self.model, self.feeds = model, dict(feeds)
        self._report = (pass_fn, outcome, expected_rewrites, runtime)
        self._text: str | None = None
        super().__init__(headline(self.pass_name, outcome, expected_rewrites))

    def __str__(self) -> str:
        if self._text is None:
            pass_fn, outcome, expected, runtime = self._report
            try:
                self._text = report(pass_fn, self.model, self.feeds, outcome, expected, runtime)
            except Exception as exc:  # noqa: BLE001 - the first line must survive a broken report
                self._text = f"{self.args[0]}\n(the rest of the report failed: {contract.short(exc, 200)})"
        return self._text


def violation(pass_fn: contract.PassFn, model: onnx.ModelProto, feeds: Mapping[str, Any],
              outcome: contract.Outcome, expected_rewrites: int | None,
              runtime: str = "onnx.reference") -> ContractViolation:
    """The :class:`ContractViolation` of ``outcome`` (failed, or a rewrite count other than ``expected_rewrites``)."""
    return ContractViolation(pass_fn, model, feeds, outcome, expected_rewrites, runtime)


def headline(name: str, outcome: contract.Outcome, expected_rewrites: int | None) -> str:
    """The report's first line: the broken clause and its detail, or the rewrite counts."""
    if outcome.failed:
        return f"{name} broke the pass contract ({outcome.status}): {outcome.detail}"
    return f"{name} reported {outcome.rewrites} rewrite(s); on this graph the contract says {expected_rewrites}"


def report(pass_fn: contract.PassFn, model: onnx.ModelProto, feeds: Mapping[str, Any], outcome: contract.Outcome,
           expected_rewrites: int | None, runtime: str = "onnx.reference") -> str:
    """The text of the module docstring: the broken clause, both graphs, both outputs, the divergence.

    ``runtime`` is a key of :data:`lab01_onnx.proof.contract.RUNTIMES` (the one the test compared on).
    Runs the pass once more (to show its result) and, on failure of either, says so in the text.
    """
    name = getattr(pass_fn, "__name__", type(pass_fn).__name__)
    lines = [headline(name, outcome, expected_rewrites), "Counterexample: the pass's input (onnx.printer)", _indent(graph_text(model)),
             "Inputs: " + (", ".join(f"{k} = {value_text(v)}" for k, v in feeds.items())
                           or "none (the graph reads only its initializers and constants)")]
    try:
        result = contract.call_pass(pass_fn, model)
    except Exception as exc:  # noqa: BLE001 - the report says what the pass raised
        return "\n".join([*lines, f"The pass raised {contract.short(exc, 300)}"])
    lines += [f"The pass's result (onnx.printer, {result.rewrites} rewrite(s) reported)",
              _indent(graph_text(result.model))]
    names = [o.name for o in model.graph.output]
    for title, m in (("Expected outputs (the input graph", model), ("Actual outputs (the pass's result", result.model)):
        lines.append(f"{title} under {runtime})")
        try:
            values = contract.RUNTIMES[runtime](m, feeds)
            lines += [f"    {n}: {value_text(v)}" for n, v in zip(names, values)]
        except Exception as exc:  # noqa: BLE001
            lines.append(f"    {runtime} cannot run it: {contract.short(exc, 200)}")
    lines += divergence_lines(model, result.model, feeds)
    return "\n".join(lines)


def graph_text(model: onnx.ModelProto) -> str:
    """``onnx.printer.to_text(model)`` with long value lists cut and at most :data:`MAX_GRAPH_LINES` lines."""
    try:
        text = onnx.printer.to_text(model)
    except Exception as exc:  # noqa: BLE001 - an invalid graph the printer refuses
        return f"(onnx.printer cannot print it: {contract.short(exc, 200)}; {len(model.graph.node)} nodes)"

    def cut(m: re.Match) -> str:
        values = m.group(1).split(",")
        return "{" + ",".join(values[:6]) + f", ... ({len(values)} values)}}"

    lines = _VALUES.sub(cut, text).splitlines()
    if len(lines) > MAX_GRAPH_LINES:
        lines = lines[:MAX_GRAPH_LINES] + [f"... ({len(lines) - MAX_GRAPH_LINES} more lines)"]
    return "\n".join(lines)


def value_text(value: Any) -> str:
    """``dtype [shape] = values`` of a tensor (at most 16 values, then a summary); ``repr`` otherwise."""
    if value is None or isinstance(value, (list, dict)):
        return textwrap.shorten(repr(value), 200)
    a = np.asarray(value)
    body = np.array2string(a, threshold=16, edgeitems=3, precision=8, separator=", ", max_line_width=10_000)
    return f"{a.dtype} {list(a.shape)} = {' '.join(body.split())}"


def divergence_lines(a: onnx.ModelProto, b: onnx.ModelProto, feeds: Mapping[str, Any]) -> list[str]:
    """The first diverging node of ``b`` (:func:`lab01_onnx.divergence.onnx_divergence`, exact, on ONNX
    Runtime) and the initializers of ``b`` that replace a node output of ``a`` with another value."""
    from lab01_onnx import divergence

    try:
        div = divergence.onnx_divergence(a, b, dict(feeds), atol=0.0, rtol=0.0)
    except Exception as exc:  # noqa: BLE001 - ORT may lack an op or refuse the broken graph
        return [f"First diverging node: the divergence finder cannot run these graphs ({contract.short(exc, 200)})"]
    if div is None:
        out = ["First diverging node: none; every tensor both graphs compute agrees (the difference is in the "
               "graph's structure or interface, not its values)"]
    else:
        pos = GraphIndex(b.graph).producer.get(div.output)
        label = repr(div.node) if div.node else "unnamed"
        out = [f"First diverging node (lab01_onnx.divergence, exact): {div.op_type} ({label}, node {pos} of the "
               f"result), output {div.output!r}: max abs {div.max_abs:.3g}, shapes {list(div.shape_a)} vs "
               f"{list(div.shape_b)} ({div.compared} tensors agreed before it)"]
    out += _folded_lines(a, b, feeds)
    return out


def _folded_lines(a: onnx.ModelProto, b: onnx.ModelProto, feeds: Mapping[str, Any]) -> list[str]:
    """Initializers of ``b`` named like a node output of ``a`` whose values differ from what ``a`` computes."""
    from onnx import numpy_helper

    from common.onnx_utils import ort_run, ort_session
    from lab01_onnx.divergence import expose_intermediates

    idx = GraphIndex(a.graph)
    folded = [t for t in b.graph.initializer if t.name in idx.producer]
    if not folded:
        return []
    try:
        values = ort_run(ort_session(expose_intermediates(a)), dict(feeds))
    except Exception:  # noqa: BLE001 - best effort; the line above already names a node
        return []
    out = []
    for t in folded:
        got, want = numpy_helper.to_array(t), values.get(t.name)
        if want is not None and (got.shape != want.shape or got.dtype != want.dtype
                                 or not np.array_equal(got, want, equal_nan=got.dtype.kind == "f")):
            out.append(f"Folded value that differs: initializer {t.name!r} of the result: {value_text(got)}; the "
                       f"input graph's {idx.nodes[idx.producer[t.name]].op_type} computes {value_text(want)} there")
    return out


def _indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text, prefix)


__all__ = ["ContractViolation", "violation", "headline", "report", "graph_text", "value_text", "divergence_lines"]
