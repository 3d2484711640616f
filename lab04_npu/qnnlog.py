"""Read ORT's verbose log (severity 0) of a QNN session: node verdicts, partitions, placements.

What the QNN EP (onnxruntime-qnn 2.7.0) writes while a session is created, and what is read here:

* ``GetCapability pass 1 (pre-Layout-Transform ...)`` then ``pass 2 (post-Layout-Transform ...)``:
  ORT asks the EP twice; pass 2 runs after ORT rewrote Conv-like nodes to NHWC (their names get a
  ``_token_N`` suffix and Transposes appear). Per *node unit* (one node, a QDQ group, or one of
  QNN's own fusions such as ``GeluFusion``)::

      Validation PASSED for 5 nodes in GeluFusion (Erf) :
          Operator type: Div Node name: /enc/layer.0/act/Div Node index: 36
          ...
      Validation FAILED for 1 nodes in OrtNodeUnit (Erf) :
          Operator type: Erf Node name: e Node index: 3
          REASON : Operators of type `Erf` are not supported by QNN EP. ...

* ``ComposeGraph Graph name: G`` opens one QNN partition (a QNN graph the HTP preparer compiles);
  ``SetGraphInputOutputInfo] input i NAME`` / ``output i NAME`` are the tensors that cross its
  boundary, and ``QNN node builder is trying to add node. Onnx node name: [N]`` its members.
* ``Node(s) placed on [EP]. Number of nodes: K`` (or ``All nodes placed on [EP]``): ORT's final
  placement; for the QNN EP, K is the number of partitions (each one fused node).

Source: onnxruntime/core/providers/qnn/qnn_execution_provider.cc (``LogNodeSupport``),
core/providers/qnn/builder/qnn_model.cc (``ComposeGraph``), core/framework/session_state.cc.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_VERDICT = re.compile(r"Validation (PASSED|FAILED) for (\d+) nodes in (\S+) \(([^)]*)\)")
_MEMBER = re.compile(r"^\s*Operator type: (\S+) Node name: (.*?) Node index: (\d+)\s*$")
_REASON = re.compile(r"^\s*REASON : (.*)$")
_PASS = re.compile(r"GetCapability pass (\d+)")
_COMPOSE = re.compile(r"ComposeGraph Graph name: (\S+)")
_IO = re.compile(r"SetGraphInputOutputInfo\] (input|output) (\d+) (.+?)\s*$")
_ADD = re.compile(r"trying to add node\. Onnx node name: \[(.*?)\] onnx node type: \[(\S*?)\]")
_PLACED = re.compile(r"(?:All nodes|Node\(s\)) placed on \[(\w+)\]\. Number of nodes: (\d+)")
_PLACED_NODE = re.compile(r"VerifyEachNodeIsAssignedToAnEp\]\s{3}(\S+) \((.*)\)\s*$")
_TOKEN = re.compile(r"_token_\d+$")


def base_name(name: str) -> str:
    """A node name without the ``_token_N`` suffix ORT's layout transformer adds."""
    return _TOKEN.sub("", name)


@dataclass
class Verdict:
    """QNN's validation of one node: ``passed``, the node unit (``group``: ``OrtNodeUnit``,
    ``GeluFusion``, ...; ``unit_op``: its anchor op) and QNN's ``reason`` when it failed."""

    node: str
    op_type: str
    passed: bool
    group: str
    unit_op: str
    reason: str = ""
    capability_pass: int = 1
    unit: list = field(default_factory=list, repr=False)  # the Verdicts of every node in the same unit


@dataclass
class Partition:
    """One QNN graph: ``name``, the node names QNN logged adding (``nodes``: one per node unit), and its
    boundary tensors (``inputs``/``outputs``: names in the order QNN binds them)."""

    name: str
    nodes: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)


@dataclass
class QnnLog:
    """Everything :func:`parse` reads: ``verdicts`` by node name as logged (pass 1's; a pass-2 verdict
    replaces the pass-1 verdict of the same name, and a name pass 1 did not log, such as a
    ``_token_N`` node of the layout transformer, is not added), ``partitions`` in compose order,
    ``placed`` ``{EP: number of nodes}``, ``cpu_nodes`` ``[(op_type, name)]`` ORT placed on the CPU EP."""

    verdicts: dict[str, Verdict] = field(default_factory=dict)
    partitions: list[Partition] = field(default_factory=list)
    placed: dict[str, int] = field(default_factory=dict)
    cpu_nodes: list[tuple[str, str]] = field(default_factory=list)


def parse(text: str) -> QnnLog:
    """Parse a QNN session's verbose log (see module doc). Lines not recognized are ignored.

    Args:
        text: ORT's log of session creation at severity 0 with the QNN EP (``QnnSession.log`` of
            ``lab04_npu.qnn.qnn_session(..., verbose_log=True)``).

    Returns:
        A :class:`QnnLog`; empty fields when the text holds none of the lines (never raises). The line
        formats are onnxruntime-qnn 2.7.0's (sources in the module doc).
    """
    out = QnnLog()
    cap_pass, unit, current, in_units, placing = 1, None, None, True, None
    for line in text.splitlines():
        if m := _PASS.search(line):
            cap_pass, current, in_units = int(m.group(1)), None, True
            continue
        if m := _VERDICT.search(line):
            unit = (m.group(1) == "PASSED", m.group(3), m.group(4), [])
            continue
        if unit is not None and (m := _MEMBER.match(line)):
            name = m.group(2) or f"<unnamed {m.group(1)} #{m.group(3)}>"
            v = Verdict(name, m.group(1), unit[0], unit[1], unit[2], capability_pass=cap_pass, unit=unit[3])
            unit[3].append(v)
            if cap_pass == 1 or v.node in out.verdicts:
                out.verdicts[v.node] = v
            continue
        if unit is not None and (m := _REASON.match(line)):
            for v in unit[3]:
                v.reason = m.group(1).strip()
            continue
        if not line.strip() or not line.startswith(("\t", " ")):
            unit = None  # a unit's member and REASON lines are indented; anything else ends it
        if m := _COMPOSE.search(line):
            current, in_units = Partition(m.group(1)), False
            out.partitions.append(current)
            continue
        if current is not None and (m := _IO.search(line)):
            (current.inputs if m.group(1) == "input" else current.outputs).append(m.group(3))
            continue
        if current is not None and not in_units and (m := _ADD.search(line)):
            name = m.group(1)
            if name and name not in current.nodes:
                current.nodes.append(name)
            continue
        if m := _PLACED.search(line):
            out.placed[m.group(1)] = int(m.group(2))
            current, placing = None, m.group(1)
            continue
        if placing == "CPUExecutionProvider" and (m := _PLACED_NODE.search(line)):
            out.cpu_nodes.append((m.group(1), m.group(2)))
        elif "VerifyEachNodeIsAssignedToAnEp" not in line:
            placing = None
    return out
