"""Tests of common.onnx_dims: the one ``--dims`` option, dynamic inputs, concrete shapes, fixing dims.

References: ONNX Runtime's own dim fixer (``onnxruntime.tools.onnx_model_utils.make_dim_param_fixed``,
the tool ORT documents for exactly this), ``onnx.shape_inference`` on the model built with numbers,
``onnx.checker``, and ``onnx.reference`` running the fixed model on NumPy inputs of those shapes.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from common.cli import parser
from common.errors import UserError, run_cli
from common.onnx_dims import (DIMS_OPTION, DimsError, add_dims_argument, concrete_shape, dynamic_inputs, fix_dims,
                              parse_dims)
from common.testing import make_model, value_info

F = TensorProto.FLOAT


# ---- the option -----------------------------------------------------------------------------------------

@given(st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}(:[0-9]{1,2})?", fullmatch=True),
                       st.integers(1, 10**6), max_size=5))
def test_parse_dims_reads_what_it_is_given(dims):
    text = ", ".join(f"{k} = {v}" for k, v in dims.items())
    assert parse_dims(text) == dims


@pytest.mark.parametrize("text", ["batch", "batch=", "=4", "batch=0", "batch=-2", "batch=1.5", "batch=x",
                                  "input_ids:a=3", ":1=3", "batch=1,batch=2"])
def test_parse_dims_refuses_bad_items_in_one_line(text):
    with pytest.raises(UserError) as err:
        parse_dims(text)
    assert "\n" not in str(err.value) and isinstance(err.value, DimsError)


def _main(argv):
    p = parser("prog", "a tool")
    add_dims_argument(p, "batch=2", "sizes")
    return p.parse_args(argv).dims


def test_the_option_is_one_spelling_with_a_default_and_a_one_line_error(capsys):
    assert DIMS_OPTION == "--dims"
    assert _main([]) == {"batch": 2}
    assert _main(["--dims", "batch=1,sequence=128"]) == {"batch": 1, "sequence": 128}
    assert _main(["--dims", ""]) == {}
    assert run_cli(_main, ["--dims", "batch"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: argument --dims: 'batch' is not NAME=SIZE")
    assert run_cli(_main, ["--dims", "batch=1", "--dims", "sequence=2"]) == 2  # the old repeated --dim
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "given twice; give all sizes in one --dims" in err[0]


# ---- dynamic inputs and concrete shapes -------------------------------------------------------------------

def token_model(batch="batch", seq="sequence") -> onnx.ModelProto:
    """``y = x + 1`` (x [batch, seq, 4]), ``z = Concat(x, x, axis=1)`` [batch, 2*seq, 4] (an output dim of
    its own name), ``w`` an initializer also declared as an input (overridable)."""
    nodes = [helper.make_node("Add", ["x", "w"], ["y"]), helper.make_node("Concat", ["x", "x"], ["z"], axis=1)]
    return make_model(nodes, [("x", F, [batch, seq, 4]), ("w", F, [4])],
                      [("y", F, [batch, seq, 4]), ("z", F, [batch, "cat", 4])], inits={"w": np.ones(4, np.float32)})


def test_dynamic_inputs_are_the_inputs_with_a_dim_that_is_not_a_number():
    assert dynamic_inputs(token_model()) == {"x": ["batch", "sequence", 4]}
    assert dynamic_inputs(token_model(2, 3)) == {}
    m = token_model(2, 3)
    m.graph.input[0].type.tensor_type.shape.dim[1].Clear()  # unset
    assert dynamic_inputs(m) == {"x": [2, "?", 4]}


def test_concrete_shape_by_dim_param_then_by_input_axis_then_default():
    vi = value_info("x", F, ["batch", None, 4])
    assert concrete_shape(vi, {"batch": 2, "x:1": 7}, 3) == [2, 7, 4]
    assert concrete_shape(vi, {}, 3) == [3, 3, 4]
    assert concrete_shape(value_info("s", F, []), {}, 3) == []


# ---- fix_dims against ORT's fixer, shape inference and onnx.reference ---------------------------------------

def test_fix_dims_equals_onnxruntimes_make_dim_param_fixed_and_runs_at_those_shapes():
    from onnxruntime.tools.onnx_model_utils import make_dim_param_fixed

    model = token_model()
    before = model.SerializeToString()
    fixed = fix_dims(model, {"batch": 2, "sequence": 3, "unused": 9})
    assert model.SerializeToString() == before, "fix_dims modified its input"
    reference = onnx.ModelProto()
    reference.CopyFrom(model)
    make_dim_param_fixed(reference.graph, "batch", 2)
    make_dim_param_fixed(reference.graph, "sequence", 3)
    assert fixed.graph == reference.graph
    onnx.checker.check_model(fixed, full_check=True)
    inferred = onnx.shape_inference.infer_shapes(token_model(2, 3), strict_mode=True)
    assert [vi.type for vi in fixed.graph.input] == [vi.type for vi in inferred.graph.input]
    x = np.random.default_rng(0).standard_normal(concrete_shape(fixed.graph.input[0], {}, 0)).astype(np.float32)
    y, z = ReferenceEvaluator(fixed).run(None, {"x": x})
    np.testing.assert_array_equal(y, x + 1)
    assert z.shape == (2, 6, 4)


def test_fix_dims_by_input_axis_and_in_subgraphs():
    branch = helper.make_graph([helper.make_node("Identity", ["x"], ["b"])], "then", [],
                               [value_info("b", F, ["batch", None])])
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)
    model = make_model([node], [("x", F, ["batch", None]), ("c", TensorProto.BOOL, [])], [("y", F, ["batch", None])],
                       check=False, infer_outputs=False)
    fixed = fix_dims(model, {"batch": 5, "x:1": 6})
    assert [d.dim_value for d in fixed.graph.input[0].type.tensor_type.shape.dim] == [5, 6]
    inner = fixed.graph.node[0].attribute[0].g.output[0].type.tensor_type.shape.dim
    assert inner[0].dim_value == 5 and not inner[1].HasField("dim_value")  # by name everywhere, by axis on inputs


def test_fix_dims_names_the_missing_size_and_the_option_in_one_line():
    with pytest.raises(UserError) as err:
        fix_dims(token_model(), {"batch": 1})
    msg = str(err.value)
    assert "x:1 ('sequence')" in msg and "--dims sequence=<size>" in msg and "\n" not in msg
    assert fix_dims(token_model(), {"batch": 1}, require_static=False).graph.input[0].type.tensor_type.shape.dim[0].dim_value == 1
    shapeless = token_model()
    shapeless.graph.input[0].type.tensor_type.ClearField("shape")
    with pytest.raises(UserError, match="'x' has no shape"):
        fix_dims(shapeless, {"batch": 1, "sequence": 2})


def test_a_size_no_test_input_can_have_is_one_line_not_an_allocation():
    """``--dims N=99999999999`` (a typo) is refused when parsed; sizes each fine but whose product would take more than
    4 GiB are refused before NumPy allocates them (it raised ``_ArrayMemoryError`` with a traceback)."""
    from lab01_onnx.divergence import make_feeds
    with pytest.raises(DimsError, match="above 2147483647"):
        parse_dims("N=99999999999")
    assert parse_dims("N=2147483647") == {"N": 2**31 - 1}
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [("x", TensorProto.FLOAT, ["N", 4])],
                       [("y", TensorProto.FLOAT, ["N", 4])])
    assert make_feeds(model, {"N": 3})["x"].shape == (3, 4)
    with pytest.raises(UserError, match=r"input 'x' of shape \[300000000, 4\] would take 4.47 GiB"):
        make_feeds(model, {"N": 300_000_000})
