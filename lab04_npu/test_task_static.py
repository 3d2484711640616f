"""Graded tests of Task 4.1 (``lab04.static``): ``qnn.fix_dims``, the static shapes QNN's HTP needs.

Through the public contract only (the docstring of ``lab04_npu.qnn.fix_dims``), against references that
do not go through it:

* the expected shapes come from the *same graph built with numbers* instead of dim names, run through
  ONNX shape inference (``onnx.shape_inference.infer_shapes``, strict mode); where the contract says nothing
  else changes, the whole copy is compared with that model (``==`` on the protobuf messages: initializers,
  value_info, functions, metadata, doc strings and IR version included, subgraphs at any depth);
* ``onnx.checker.check_model(full_check=True)`` accepts the result (full_check re-runs strict shape
  inference, so a declared output shape that contradicts the graph fails it);
* ONNX Runtime's CPU EP runs it at the fixed shape with outputs *bitwise* equal to the dynamic model's
  (the same nodes and kernels at optimizations off: fixing a dim changes no arithmetic) and refuses
  any other input shape (ORT checks feeds against the declared dims);
* the QNN EP (HTP backend, fp16) compiles and runs it; its outputs agree with ORT's CPU EP within
  2 % of each output's scale (41 fp16 roundings, u = 2^-11; measured below 0.2 %).

Every result of ``fix_dims`` is checked to be an ``onnx.ModelProto`` (exactly, :func:`fix`) before it is read:
an object of another type may answer anything to the reads and ``==`` below.

Run: ``.venv/bin/python -m pytest --task lab04.static``.
"""
from __future__ import annotations

import re

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from google.protobuf.message import Message
from onnx import TensorProto, helper, numpy_helper

from common.errors import UserError
from common.testing import AS_DECLARED, make_model
from common.gates import compare
from lab04_npu import qnn

pytestmark = pytest.mark.lab04

RNG = np.random.default_rng(7)
W = RNG.standard_normal((8, 8)).astype(np.float32) / 3
F = TensorProto.FLOAT
FP16_ATOL = 2e-2  # of each output's scale: see the module docstring


def token_model(batch="batch", seq="sequence", cat="cat_len") -> onnx.ModelProto:
    """``y = MatMul(x, W) * mask``, ``z = Concat(x, x, axis=1)``: x float32 [batch, seq, 8], mask [batch, seq, 1].

    Dims are names (the dynamic model) or numbers (the test's reference); ``z``'s axis 1 has a name of
    its own (``cat``, as an exporter writes for a computed dim) that only shape inference can resolve.
    """
    nodes = [helper.make_node("MatMul", ["x", "W"], ["h"], name="mm"),
             helper.make_node("Mul", ["h", "mask"], ["y"], name="masked"),
             helper.make_node("Concat", ["x", "x"], ["z"], name="cat", axis=1)]
    return make_model(nodes, [("x", F, [batch, seq, 8]), ("mask", F, [batch, seq, 1])],
                      [("y", F, [batch, seq, 8]), ("z", F, [batch, cat, 8])], {"W": W}, name="tokens", **AS_DECLARED)


def fix(model: onnx.ModelProto, dims: dict) -> onnx.ModelProto:
    """``qnn.fix_dims(model, dims)``, checked to be an ``onnx.ModelProto`` (exactly) before anything reads it."""
    fixed = qnn.fix_dims(model, dims)
    assert type(fixed) is onnx.ModelProto, f"fix_dims returned a {type(fixed).__qualname__}, not an onnx.ModelProto"
    return fixed


def dims_of(vi: onnx.ValueInfoProto) -> list:
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in vi.type.tensor_type.shape.dim]


def shapes(model: onnx.ModelProto) -> dict[str, list]:
    g = model.graph
    return {vi.name: dims_of(vi) for vi in list(g.input) + list(g.output)}


def shape_mismatch(fixed: onnx.ModelProto, want: dict[str, list]) -> str:
    """The assert message when ``fixed`` (what ``fix_dims`` returned) does not have the shapes ``want``: each
    graph input or output that differs, which of its dims are still symbolic (``dim_param`` names), and the
    static shape it should have."""
    got, inputs = shapes(fixed), {vi.name for vi in fixed.graph.input}
    lines = []
    for name in sorted(set(got) | set(want)):
        if got.get(name) == want.get(name):
            continue
        if name not in got or name not in want:
            lines.append(f"{name!r}: {'missing from' if name not in got else 'not expected in'} the fixed model")
            continue
        kind = "input" if name in inputs else "output"
        symbolic = [d for d in got[name] if isinstance(d, str)]
        what = f"still has the symbolic dim(s) {', '.join(map(repr, symbolic))}" if symbolic else "has other dims"
        lines.append(f"graph {kind} {name!r} is {got[name]} after fix_dims: it {what}; "
                     f"its static shape is {want[name]}")
    return ("fix_dims did not give every graph input and output its static shape (an output whose dim the "
            "exporter named itself gets the shape ONNX shape inference infers from the fixed inputs; see "
            "the docstring of qnn.fix_dims):\n  " + "\n  ".join(lines))


def inferred_shapes(batch: int, seq: int) -> dict[str, list]:
    """The reference: the graph built with numbers, outputs as ONNX shape inference gives them."""
    numeric = token_model(batch, seq, cat="unknown")
    for o in numeric.graph.output:
        o.type.tensor_type.ClearField("shape")
    inferred = onnx.shape_inference.infer_shapes(numeric, strict_mode=True)
    return shapes(inferred)


def feeds(batch: int, seq: int) -> dict[str, np.ndarray]:
    return {"x": RNG.standard_normal((batch, seq, 8)).astype(np.float32),
            "mask": (RNG.random((batch, seq, 1)) > 0.3).astype(np.float32)}


def cpu_run(model: onnx.ModelProto, feed: dict) -> dict[str, np.ndarray]:
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feed)))


@pytest.mark.task("lab04.static", points=1)
@pytest.mark.parametrize("batch, seq", [(1, 16), (3, 5)])
def test_inputs_and_outputs_get_the_numbers_shape_inference_gives(batch, seq):
    dynamic = token_model()
    before = dynamic.SerializeToString()
    fixed = fix(dynamic, {"batch": batch, "sequence": seq})
    assert dynamic.SerializeToString() == before, "fix_dims modified its input"
    # z's 'cat_len' was never named in dims: only shape inference knows it is 2 * seq
    want = inferred_shapes(batch, seq)
    assert want == {"x": [batch, seq, 8], "mask": [batch, seq, 1], "y": [batch, seq, 8], "z": [batch, 2 * seq, 8]}
    got = shapes(fixed)
    assert got == want, shape_mismatch(fixed, want)
    assert qnn.dynamic_inputs(fixed) == {}


@pytest.mark.task("lab04.static", points=1)
def test_a_dim_only_an_output_names_can_be_fixed_too():
    """``cat_len`` appears on the output z alone: it is a symbolic dim of the model all the same (the inputs'
    and outputs' names are what ``--dims`` may fix), and z takes the number given. So does a name only the
    *second* input declares, one only an initializer declared as a graph input (an overridable one) declares,
    and an output's name that shape inference could never size (``NonZero``'s count: the number given is the
    number declared, whatever inference says)."""
    fixed = fix(token_model(), {"batch": 2, "sequence": 4, "cat_len": 8})
    assert shapes(fixed)["z"] == [2, 8, 8], shape_mismatch(fixed, {**inferred_shapes(2, 4), "z": [2, 8, 8]})

    def pair(batch, other, nb, count):
        return make_model([helper.make_node("Relu", ["a"], ["ya"]),
                           helper.make_node("ReduceMax", ["b"], ["yb"], axes=[0], keepdims=0),
                           helper.make_node("NonZero", ["a"], ["nz"])],
                          [("a", F, [batch, 8]), ("b", F, [other, 8]), ("bias", F, [nb])],
                          [("ya", F, [batch, 8]), ("yb", F, [8]), ("nz", TensorProto.INT64, ["nz_rank", count])],
                          {"bias": np.zeros(4, np.float32)}, **AS_DECLARED)

    fixed = fix(pair("batch", "other", "nb", "count"), {"batch": 3, "other": 5, "nb": 4, "count": 7})
    # the reference: the same graph built with the numbers, through shape inference: nz's rank dim is a's rank, 2;
    # its count is data, which only the 7 given sizes (without it, nz is not fully static and keeps its names)
    want = shapes(onnx.shape_inference.infer_shapes(pair(3, 5, 4, 7), strict_mode=True))
    assert want == {"a": [3, 8], "b": [5, 8], "bias": [4], "ya": [3, 8], "yb": [8], "nz": [2, 7]}
    assert shapes(fixed) == want, shape_mismatch(fixed, want)


WIDE = np.arange(128, dtype=np.float32).reshape(8, 16) / 128  # 128 elements: more than skeleton() keeps


def full_model(batch="batch", seq="sequence", cat="cat_len") -> onnx.ModelProto:
    """:func:`token_model` plus all a copy keeps: a second MatMul by a 128-element initializer (``w``
    [batch, seq, 16]), a value_info entry (``h``: ``[batch, hidden, ?]``, of which only batch is named), a
    local function, metadata, doc strings, producer, model version and IR version 9."""
    m = token_model(batch, seq, cat)
    g = m.graph
    g.node.append(helper.make_node("MatMul", ["h", "W2"], ["w"], name="wide", doc_string="h @ W2"))
    g.initializer.append(numpy_helper.from_array(WIDE, "W2"))
    g.output.append(helper.make_tensor_value_info("w", F, [batch, seq, 16]))
    g.value_info.append(helper.make_tensor_value_info("h", F, [batch, "hidden", None]))
    g.doc_string = "tokens, for lab04.static"
    m.functions.append(helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                                            [helper.make_opsetid("", 17)]))
    m.opset_import.append(helper.make_opsetid("local", 1))
    helper.set_model_props(m, {"exported_by": "test_task_static", "dims": "batch,sequence"})
    m.doc_string, m.producer_name, m.producer_version, m.domain, m.model_version = (
        "a test model", "lab04-tests", "1.0", "ai.course.test", 7)
    m.ir_version = 9
    return m


def differing_fields(got: Message, want: Message, prefix: str = "") -> list[str]:
    """The fields (``graph.value_info``, ``metadata_props``, ...) in which two messages of one type differ."""
    out = []
    for fd in want.DESCRIPTOR.fields:
        a, b = getattr(got, fd.name), getattr(want, fd.name)
        if a != b:
            out += differing_fields(a, b, f"{prefix}{fd.name}.") if isinstance(b, Message) else [prefix + fd.name]
    return out


def refused(model: onnx.ModelProto, dims: dict, why: str) -> str:
    """The message of the UserError ``qnn.fix_dims(model, dims)`` must raise; ``why``: the contract's reason."""
    try:
        qnn.fix_dims(model, dims)
    except UserError as err:
        return str(err)
    except Exception as err:  # the wrong error: named in one line
        first = (str(err).splitlines() or [""])[0]
        pytest.fail(f"fix_dims(model, {dims}) raised {type(err).__name__} ({first}), not a UserError: {why}")
    pytest.fail(f"fix_dims(model, {dims}) returned a model; it must raise a one-line UserError: {why}")


@pytest.mark.task("lab04.static", points=2)
def test_only_the_named_dims_change_and_the_graph_stays():
    """The copy is the model with numbers for the named dims and nothing else changed: compared field by field
    with the same model built with the numbers (``h``'s ``hidden`` and unset dim stay; no value_info is
    added or dropped; the 128-element initializer, the function, metadata, doc strings and IR version stay)."""
    dynamic = full_model()
    before = dynamic.SerializeToString()
    fixed = fix(dynamic, {"batch": 2, "sequence": 4})
    assert dynamic.SerializeToString() == before, "fix_dims modified its input"
    want = full_model(2, 4, 8)
    assert fixed == want, (f"fix_dims(model, {{'batch': 2, 'sequence': 4}}) changed more than the named dims (and "
                           f"z's exporter-named one): the copy's {', '.join(differing_fields(fixed, want))} differ "
                           "from the same model built with the numbers")
    # nothing to fix: an equal copy all the same, not the model itself
    again = fix(want, {})
    assert again == want and again is not want, "fix_dims(static model, {}) must return an equal copy of it"


@pytest.mark.task("lab04.static", points=1)
def test_checker_accepts_it_and_ort_runs_it_only_at_the_fixed_shape():
    dynamic = token_model()
    fixed = fix(dynamic, {"batch": 2, "sequence": 6})
    onnx.checker.check_model(fixed, full_check=True)
    feed = feeds(2, 6)
    want, got = cpu_run(dynamic, feed), cpu_run(fixed, feed)
    assert compare(want, got, atol=0.0).passed  # same nodes, same kernels: bitwise
    with pytest.raises(Exception, match="(?i)invalid|dimension|shape"):
        cpu_run(fixed, feeds(2, 7))  # the file now says sequence = 6


@pytest.mark.task("lab04.static", points=2)
def test_the_qnn_ep_compiles_and_runs_the_fixed_model():
    dynamic = token_model()
    with pytest.raises(UserError):  # the given session refuses the dynamic file (check_static)
        qnn.qnn_session(dynamic)
    fixed = fix(dynamic, {"batch": 1, "sequence": 8})
    feed = feeds(1, 8)
    got = qnn.qnn_session(fixed, precision="fp16").run(feed)
    assert compare(cpu_run(dynamic, feed), got, atol=FP16_ATOL, scale_atol_by_ref=True).passed


@pytest.mark.task("lab04.static", points=1)
def test_a_torchscript_export_with_exporter_named_output_dims(tmp_path):
    """A real export (the course's TorchScript exporter): y's computed axis gets a name the exporter
    makes up; after fixing batch and sequence every input and output is static and ORT agrees."""
    import torch

    from common.models import ModelBundle
    from common.onnx_utils import export_torchscript

    class Twice(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(torch.cat([x, x], dim=1))

    net = Twice().eval()
    bundle = ModelBundle(name="twice", model=net, inputs={"x": torch.randn(2, 3, 8)}, output_names=["y"],
                         dynamic_axes={"x": {0: "batch", 1: "sequence"}, "y": {0: "batch"}})
    dynamic = onnx.load(str(export_torchscript(bundle, tmp_path / "twice.onnx")))
    assert isinstance(dims_of(dynamic.graph.output[0])[1], str)  # the exporter named the computed axis
    fixed = fix(dynamic, {"batch": 1, "sequence": 5})
    got, want = shapes(fixed), {"x": [1, 5, 8], "y": [1, 10, 4]}
    assert got == want, shape_mismatch(fixed, want)
    x = torch.randn(1, 5, 8)
    with torch.no_grad():
        want = net(x).numpy()
    # ORT vs PyTorch, float32: an 8-term dot product plus bias, both sides rounding once per term
    # (|y| < 4): 1e-5 is ~20 ulp at 4
    assert compare({"y": want}, cpu_run(fixed, {"x": x.numpy()}), atol=1e-5).passed


@pytest.mark.task("lab04.static", points=1)
def test_bad_names_values_and_leftover_dims_are_one_line_user_errors():
    """Which error a call with two faults reports is not part of the contract, so each call here has one: an
    unknown name (every input fixed otherwise), a bad size, an input left dynamic. The messages are read only for
    what the contract says they hold: the unknown name and the dim_params the model has (quoted or not), the
    input and the ``--dims`` fix (``check_static``'s), all on one line."""
    dynamic = token_model()
    with pytest.raises(UserError) as err:
        qnn.fix_dims(dynamic, {"batch": 1, "sequence": 8, "seq": 8})
    msg = str(err.value)
    assert re.search(r"\bseq\b", msg) and "sequence" in msg and "\n" not in msg, msg
    for bad in (0, -2):
        with pytest.raises(UserError) as err:
            qnn.fix_dims(dynamic, {"batch": bad, "sequence": 8})
        assert "\n" not in str(err.value), str(err.value)
    with pytest.raises(UserError) as err:  # sequence left symbolic: the input is named with the fix
        qnn.fix_dims(dynamic, {"batch": 1})
    msg = str(err.value)
    assert "'x'" in msg and qnn.FIX_DIMS_OPTION in msg and "sequence" in msg and "\n" not in msg


def branch_model(batch="batch") -> onnx.ModelProto:
    """``y = If(c, then: Relu(x), else: Neg(x))``: x float32 [batch, 8], c bool scalar; each branch declares
    its output, and the then-branch the value it computes on the way, with the outer ``batch``."""
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Identity", ["r"], ["t"])],
                               "then", [], [helper.make_tensor_value_info("t", F, [batch, 8])],
                               value_info=[helper.make_tensor_value_info("r", F, [batch, 8])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", F, [batch, 8])])
    node = helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)
    return make_model([node], [("x", F, [batch, 8]), ("c", TensorProto.BOOL, [])], [("y", F, [batch, 8])],
                      name="branches", **AS_DECLARED)


def subgraph_shapes(model: onnx.ModelProto) -> dict[str, list]:
    """Every value declared inside an If's branches (outputs and value_info), by name."""
    return {vi.name: dims_of(vi) for node in model.graph.node for attr in node.attribute if attr.g.name
            for vi in list(attr.g.output) + list(attr.g.value_info)}


def loop_model(batch="batch") -> onnx.ModelProto:
    """``y = Loop(3 trips, state x)``, each trip ``If(c, then: Relu(s), else: Neg(s))``: the Loop body declares
    the state it takes (a subgraph *input*) and gives with ``batch``, and so do the If's branches inside it (a
    subgraph in a subgraph)."""
    def vi(name, elem, shape):
        return helper.make_tensor_value_info(name, elem, shape)

    then_g = helper.make_graph([helper.make_node("Relu", ["s_in"], ["t"])], "then", [], [vi("t", F, [batch, 8])])
    else_g = helper.make_graph([helper.make_node("Neg", ["s_in"], ["e"])], "else", [], [vi("e", F, [batch, 8])])
    body = helper.make_graph([helper.make_node("If", ["c"], ["s_out"], then_branch=then_g, else_branch=else_g),
                              helper.make_node("Identity", ["go_in"], ["go_out"])], "body",
                             [vi("i", TensorProto.INT64, []), vi("go_in", TensorProto.BOOL, []), vi("s_in", F, [batch, 8])],
                             [vi("go_out", TensorProto.BOOL, []), vi("s_out", F, [batch, 8])])
    node = helper.make_node("Loop", ["trips", "", "x"], ["y"], name="loop", body=body)
    return make_model([node], [("x", F, [batch, 8]), ("c", TensorProto.BOOL, [])], [("y", F, [batch, 8])],
                      {"trips": np.array(3, np.int64)}, name="loop", **AS_DECLARED)


def nested_shapes(graph: onnx.GraphProto, where: str = "") -> dict[str, list]:
    """Every value the subgraphs of ``graph`` declare (inputs, outputs, value_info), any depth, by path."""
    out = {}
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("g"):
                at = f"{where}{node.name or node.op_type}.{attr.name}/"
                g = attr.g
                out.update({at + vi.name: dims_of(vi) for vi in list(g.input) + list(g.output) + list(g.value_info)})
                out.update(nested_shapes(g, at))
    return out


@pytest.mark.task("lab04.static", points=1)
def test_dims_inside_subgraphs_are_fixed_too():
    """The contract's "wherever it occurs (... subgraphs at any depth, their inputs included)": an If's branches
    declare ``batch`` on their outputs and value_info, a Loop body on its inputs and outputs and an If inside it
    on its branches' outputs; after the fix they read as the same graph built with the number (a fix of the main
    graph's inputs, outputs and value_info alone leaves ``['batch', 8]`` there), and the input model is as it was."""
    dynamic = branch_model()
    before = dynamic.SerializeToString()
    fixed = fix(dynamic, {"batch": 2})
    assert dynamic.SerializeToString() == before, "fix_dims modified its input (inside the If's branches?)"
    want = subgraph_shapes(branch_model(2))
    assert want == {"t": [2, 8], "r": [2, 8], "e": [2, 8]}
    assert subgraph_shapes(fixed) == want, (
        f"the If's branches still declare {subgraph_shapes(fixed)} after fix_dims(model, {{'batch': 2}}); "
        f"a dim is fixed wherever it occurs, subgraphs included: {want}")
    assert shapes(fixed) == {"x": [2, 8], "c": [], "y": [2, 8]}
    x = RNG.standard_normal((2, 8)).astype(np.float32)
    for c in (True, False):
        feed = {"x": x, "c": np.array(c)}
        assert compare(cpu_run(dynamic, feed), cpu_run(fixed, feed), atol=0.0).passed  # same kernels: bitwise

    dynamic = loop_model()
    before = dynamic.SerializeToString()
    fixed = fix(dynamic, {"batch": 2})
    assert dynamic.SerializeToString() == before, "fix_dims modified its input (inside the Loop's body?)"
    want = nested_shapes(loop_model(2).graph)
    assert want["loop.body/s_in"] == [2, 8] and want["loop.body/If.then_branch/t"] == [2, 8]
    got = nested_shapes(fixed.graph)
    assert got == want, (f"after fix_dims(model, {{'batch': 2}}) the Loop's body and the If inside it declare "
                         f"{ {k: v for k, v in got.items() if v != want.get(k)} }: a dim is fixed in subgraphs at any "
                         "depth, their inputs included")
    assert fixed == loop_model(2), (f"fix_dims(model, {{'batch': 2}}) changed more than the named dim: the copy's "
                                    f"{', '.join(differing_fields(fixed, loop_model(2)))} differ from the same model "
                                    "built with the number")
    for c in (True, False):
        feed = {"x": x, "c": np.array(c)}
        assert compare(cpu_run(dynamic, feed), cpu_run(fixed, feed), atol=0.0).passed  # same kernels: bitwise


@pytest.mark.task("lab04.static", points=1)
def test_a_name_no_graph_input_or_output_declares_is_refused():
    """The names ``--dims`` may fix are the dim_params of the graph's inputs and outputs: one only a value_info
    declares is a one-line UserError listing the ones the model has; so is one only a subgraph declares, the empty
    name, an ``INPUT:AXIS`` name (which the lenient ``common.onnx_dims.fix_dims`` takes, this one does not), and any
    name at all for a model that is already static. Each call has that one fault."""
    m = token_model()
    m.graph.value_info.append(helper.make_tensor_value_info("h", TensorProto.FLOAT, ["batch", "sequence", "hidden"]))
    with pytest.raises(UserError) as err:
        qnn.fix_dims(m, {"batch": 1, "sequence": 4, "hidden": 8})
    msg = str(err.value)
    assert re.search(r"\bhidden\b", msg) and "cat_len" in msg and "\n" not in msg, msg
    m = branch_model()
    then_g = next(a.g for a in m.graph.node[0].attribute if a.name == "then_branch")
    then_g.output[0].type.tensor_type.shape.dim[0].dim_param = "inner"  # t: ['inner', 8], in the If's branch only
    msg = refused(m, {"batch": 2, "inner": 2}, "'inner' is declared only inside an If's branch")
    assert re.search(r"\binner\b", msg) and "batch" in msg and "\n" not in msg, msg
    for name in ("", "x:1"):
        msg = refused(token_model(), {"batch": 1, "sequence": 4, name: 4}, f"{name!r} is not a dim_param of the model")
        assert name in msg and "\n" not in msg, msg
    # no symbolic dim at all: nothing may be named
    msg = refused(token_model(1, 4, 8), {"batch": 1}, "the model is static: it has no dim_param 'batch'")
    assert re.search(r"\bbatch\b", msg) and "\n" not in msg, msg


@pytest.mark.task("lab04.static", points=1)
def test_a_bad_value_of_an_output_only_dim_is_refused():
    """A value that is not > 0 is a UserError for every dim, also one only an output names (on an input,
    ``check_static`` would refuse what is left anyway)."""
    for bad in (-8, 0):
        with pytest.raises(UserError) as err:
            qnn.fix_dims(token_model(), {"batch": 2, "sequence": 4, "cat_len": bad})
        assert "\n" not in str(err.value), str(err.value)


@pytest.mark.task("lab04.static", points=1)
def test_an_output_shape_inference_cannot_make_static_stays_as_declared():
    """The contract: an output still symbolic gets the shape inference gives it *when that shape is fully static*,
    otherwise it stays as it was. ``NonZero``'s count is data: on the same graph built with the number, ONNX shape
    inference gives ``nz`` a second dim it cannot size, so ``nz`` keeps its declaration (none: rank unknown)
    rather than a made-up name such as ``unk__0``; ``y`` becomes static. The same holds for ``nzn``, the same
    NonZero declared with a name on each dim as an exporter writes them: inference sizes the first (x's rank, 2)
    but not the count, so neither changes (not ``[2, 'NonZero_nzn_dim_1']``: that shape is not fully static;
    ``onnxruntime.tools.onnx_model_utils.fix_output_shapes`` applies the same rule)."""
    def model(batch):
        return make_model([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("NonZero", ["x"], ["nz"]),
                           helper.make_node("NonZero", ["x"], ["nzn"])],
                          [("x", F, [batch, 8])], [("y", F, [batch, 8]), ("nz", TensorProto.INT64, None),
                                                   ("nzn", TensorProto.INT64, ["NonZero_nzn_dim_0", "NonZero_nzn_dim_1"])],
                          **AS_DECLARED)

    inferred = {o.name: o for o in onnx.shape_inference.infer_shapes(model(3), strict_mode=True).graph.output}
    for name in ("nz", "nzn"):
        dims = inferred[name].type.tensor_type.shape.dim
        assert len(dims) == 2 and not dims[1].HasField("dim_value")  # the reference: not fully static
    assert inferred["nzn"].type.tensor_type.shape.dim[0].dim_value == 2  # partly sized: still not static
    fixed = fix(model("batch"), {"batch": 3})
    assert dims_of(fixed.graph.output[0]) == [3, 8]
    assert fixed.graph.output[1] == model("batch").graph.output[1], (
        f"nz was declared with no shape and inference cannot size it; fix_dims made it {fixed.graph.output[1].type}")
    assert fixed.graph.output[2] == model("batch").graph.output[2], (
        f"nzn was declared {dims_of(model('batch').graph.output[2])} and inference cannot size it fully; fix_dims made "
        f"it {dims_of(fixed.graph.output[2])}: an output that is not fully static afterwards stays as it was")


@pytest.mark.task("lab04.static", points=1)
def test_an_output_with_an_unset_dim_gets_the_shape_inference_gives():
    """An output axis left unset (neither a number nor a name, as some exporters write a computed axis) is as
    dynamic as a named one: after the fix, y and z take the static shapes shape inference gives (the same graph
    built with numbers is the reference). A zero-size axis is a number: an inferred ``[0, 8]`` is fully static too
    (``onnxruntime.tools.onnx_model_utils.fix_output_shapes`` counts a 0 dim as dynamic and would leave it)."""
    dynamic = token_model()
    dynamic.graph.output[0].type.tensor_type.shape.dim[2].Clear()  # y: ['batch', 'sequence', ?]
    dynamic.graph.output[1].type.tensor_type.shape.dim[1].Clear()  # z: ['batch', ?, 8]
    fixed = fix(dynamic, {"batch": 2, "sequence": 4})
    want = inferred_shapes(2, 4)
    assert shapes(fixed) == want, shape_mismatch(fixed, want)
    # a zero-size axis is a number (an empty tensor): z = Concat(x, x) of x [0, sequence] is [0, ?] declared,
    # and shape inference on the graph built with numbers gives [0, 8], which is fully static
    def empty_rows(seq):
        return make_model([helper.make_node("Concat", ["x", "x"], ["z"], axis=1)], [("x", F, [0, seq])],
                          [("z", F, [0, None])], **AS_DECLARED)
    want = shapes(onnx.shape_inference.infer_shapes(empty_rows(4), strict_mode=True))
    assert want == {"x": [0, 4], "z": [0, 8]}
    fixed = fix(empty_rows("sequence"), {"sequence": 4})
    assert shapes(fixed) == want, shape_mismatch(fixed, want)


@pytest.mark.task("lab04.static", points=1)
def test_an_input_dim_with_no_name_left_dynamic_is_refused():
    """The contract's "afterwards no graph input has a dynamic dim": an axis that is neither a number nor a name (unset, as some
    exporters write it) is dynamic too, and no ``--dims`` name can fix it (``"?"``, the way such a dim reads, is
    not a name of the model's); ``check_static``'s one-line UserError names the input."""
    m = token_model()
    m.graph.input[1].type.tensor_type.shape.dim[2].Clear()  # mask: ['batch', 'sequence', ?]
    assert qnn.dynamic_inputs(m)["mask"] == ["batch", "sequence", "?"]
    with pytest.raises(UserError) as err:
        qnn.fix_dims(m, {"batch": 1, "sequence": 4})
    assert "'mask'" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(UserError) as err:  # two faults here ('?' and mask's axis): either error may be the one
        qnn.fix_dims(m, {"batch": 1, "sequence": 4, "?": 3})
    assert "\n" not in str(err.value), str(err.value)
    # "?" is how an unset dim reads, not a name the model gives it: on an *output* axis left unset (every input
    # fixable, so the name is the one fault) it is refused all the same, naming it and the dim_params the model has
    m = token_model()
    m.graph.output[1].type.tensor_type.shape.dim[1].Clear()  # z: ['batch', ?, 8]
    with pytest.raises(UserError) as err:
        qnn.fix_dims(m, {"batch": 1, "sequence": 4, "?": 3})
    msg = str(err.value)
    assert "?" in msg and "batch" in msg and "sequence" in msg and "\n" not in msg, (
        f"'?' is not a dim_param of the model: a one-line UserError naming it and listing batch, sequence: {msg!r}")
    # a negative size (-1, as some converters write a dynamic axis) is dynamic too (qnn.dynamic_inputs)
    m = token_model()
    m.graph.input[0].type.tensor_type.shape.dim[2].dim_value = -1  # x: ['batch', 'sequence', -1]
    msg = refused(m, {"batch": 1, "sequence": 4}, "x is declared [batch, sequence, -1]: a negative size is dynamic "
                  "(qnn.dynamic_inputs), so x is still dynamic afterwards (check_static)")
    assert "'x'" in msg and "\n" not in msg, msg
    # no dims given at all: the model's inputs stay dynamic, which is the same error
    msg = refused(token_model(), {}, "with no dims the inputs x and mask stay dynamic (check_static)")
    assert "'x'" in msg and qnn.FIX_DIMS_OPTION in msg and "\n" not in msg, (
        f"fix_dims(dynamic model, {{}}) must raise check_static's one-line UserError naming x and the fix: {msg!r}")
