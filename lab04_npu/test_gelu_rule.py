"""The Erf-GELU fusion as a rule on Lab 01's rule driver: nested-subgraph reads, numerics, pass contract.

Regression (issue "One ONNX graph layer"): the pass used to look for outer-scope reads one level
deep only, so a value of the GELU chain read by an ``If`` inside a ``Loop`` body was deleted and
the rewritten model failed ``onnx.checker``. The rule now asks :class:`common.onnx_graph.GraphIndex`
(through Lab 01's :class:`~lab01_onnx.passes.core.DefUseIndex`), which counts reads at any depth.

Tolerance: ORT's fused ``com.microsoft.Gelu`` kernel rounds differently from the five float32 ops
it replaces (a few ulps), so rewritten models are compared at :data:`lab04_npu.gelu_pass.ATOL` =
1e-5 absolute, rtol 0 -- the pass contract's own tolerance for this rule. Inputs lie in [-4, 4], so
every fused GELU's output (and the sum of two of them) stays below 8 in magnitude, where a float32
ulp is at most 4.8e-7: 1e-5 is about 20 ulps, far below the error of a wrong rewrite (1/sqrt 2
off by 1 % already moves GELU(2) by 2e-3). Outputs the rewrite does not touch (the nested bodies'
``z``) are equal bitwise in practice; they share the tolerance only because the contract compares
all outputs at once.

No test here needs the NPU: everything runs on ORT's CPU EP or ``onnx.reference``.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from common.testing import AS_DECLARED, make_model, tensor
from lab01_onnx.proof import contract
from lab01_onnx.proof.conformance import run_reference_side
from lab04_npu.gelu_pass import ATOL, MS_DOMAIN, fuse_erf_gelu, fuse_gelu_at
from lab04_npu.testing import const, gelu_chain, gelu_constants

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
SHAPE = [3, 5]
RNG = np.random.default_rng(7)


def _model(nodes, inputs, outputs, inits=()) -> onnx.ModelProto:
    """The GELU constants plus ``inits`` as initializers, opset 17, as declared."""
    return make_model(nodes, inputs, outputs, [*gelu_constants(), *inits], **AS_DECLARED)


def plain_model(spelling: str = "jax") -> onnx.ModelProto:
    """``y = GELU(x)`` in primitive ops, then ``Neg`` (so the GELU result is not the graph output)."""
    nodes, g = gelu_chain("x", "0", spelling)
    return _model(nodes + [helper.make_node("Neg", [g], ["y"])],
                  [helper.make_tensor_value_info("x", F, SHAPE)], [helper.make_tensor_value_info("y", F, SHAPE)])


def _leaf(read: str) -> onnx.GraphProto:
    """The innermost body: ``Sub(read, x)``, a node reading outer values. (A body *output* naming
    an outer value directly is refused by onnx.checker and ORT alike; common/test_onnx_graph.py
    covers that form of read.)"""
    return helper.make_graph([helper.make_node("Sub", [read, "x"], ["leaf_out"])], "leaf", [],
                             [helper.make_tensor_value_info("leaf_out", F, SHAPE)])


def _if(read: str, out: str, inner: onnx.GraphProto | None = None) -> onnx.NodeProto:
    """``out = If(flag)``: then = ``inner`` (or the leaf reading ``read``), else = ``Neg(x)``."""
    then_g = inner or _leaf(read)
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["neg_x"])], "else", [],
                               [helper.make_tensor_value_info("neg_x", F, SHAPE)])
    return helper.make_node("If", ["flag"], [out], then_branch=then_g, else_branch=else_g)


def _loop_body(inner: onnx.NodeProto) -> onnx.GraphProto:
    """A Loop body (iteration, cond, carried v) whose only work is ``inner`` (writing ``w``) plus ``v + w``."""
    return helper.make_graph(
        [inner, helper.make_node("Add", ["v", "w"], ["v_next"]), helper.make_node("Identity", ["cond"], ["cond_next"])],
        "body", [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond", B, []),
                 helper.make_tensor_value_info("v", F, SHAPE)],
        [helper.make_tensor_value_info("cond_next", B, []), helper.make_tensor_value_info("v_next", F, SHAPE)])


def nested_model(read: str, depth: int) -> onnx.ModelProto:
    """Two GELU chains of ``x`` (tags 0 and 1); ``read`` (a value of chain 0) is read only inside
    a nested subgraph at ``depth``:

    * 1: ``z = If(flag)`` whose then-branch reads ``read``;
    * 2: ``z = Loop(2, "", x)`` whose body holds that ``If`` (the issue's case);
    * 3: ``z = If(flag)`` whose then-branch holds that ``Loop``.

    Chain 1 is read by nothing else: the rule must fuse it and keep chain 0 whole.
    """
    c0, g0 = gelu_chain("x", "0")
    c1, g1 = gelu_chain("x", "1")
    if depth == 1:
        holder = _if(read, "z")
    else:
        loop = helper.make_node("Loop", ["trips", "", "x"], ["z" if depth == 2 else "loop_out"],
                                body=_loop_body(_if(read, "w")))
        if depth == 2:
            holder = loop
        else:
            then_g = helper.make_graph([loop], "then", [], [helper.make_tensor_value_info("loop_out", F, SHAPE)])
            holder = _if(read, "z", inner=then_g)
    nodes = c0 + c1 + [holder, helper.make_node("Add", [g0, g1], ["y"])]
    return _model(nodes, [helper.make_tensor_value_info("x", F, SHAPE), helper.make_tensor_value_info("flag", B, [])],
                  [helper.make_tensor_value_info("y", F, SHAPE), helper.make_tensor_value_info("z", F, SHAPE)],
                  inits=[tensor("trips", 2, np.int64)])


def _feeds(flag: bool = True) -> dict[str, np.ndarray]:
    return {"x": RNG.uniform(-4, 4, SHAPE).astype(np.float32), "flag": np.asarray(flag)}


def _depth_of(model: onnx.ModelProto, name: str) -> int:
    from common.onnx_graph import outer_reads

    return max(r.depth for n in model.graph.node for r in outer_reads(n) if r.name == name)


# ---- the regression: a value read only inside a nested subgraph is kept --------------------------------

@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("read", ["s0", "e0", "a0", "p0"])
def test_a_value_read_in_a_nested_subgraph_is_kept(read, depth):
    model = nested_model(read, depth)
    onnx.checker.check_model(model, full_check=True)
    assert _depth_of(model, read) == depth
    result = fuse_erf_gelu(model)
    assert result.rewrites == 1  # chain 1 only
    fused = result.model
    onnx.checker.check_model(fused, full_check=True)  # failed before the fix: chain 0's nodes were deleted
    produced = {o for n in fused.graph.node for o in n.output}
    assert read in produced and "e1" not in produced
    assert [n.op_type for n in fused.graph.node].count("Gelu") == 1
    feeds = [_feeds(True), _feeds(False)]
    ref = [contract.ort_outputs(model, f) for f in feeds]
    got = [contract.ort_outputs(fused, f) for f in feeds]
    assert contract.diff_outputs(ref, got, ["y", "z"], atol=ATOL) is None


def test_the_issue_case_loop_body_if_reading_erf_output():
    """Erf's output read only by an If inside a Loop body (depth 2): the rule keeps that GELU."""
    model, feeds = nested_model("e0", 2), [_feeds(True), _feeds(False)]
    runtime, ref = run_reference_side(model, feeds)
    out = contract.check_variant(fuse_erf_gelu, model, feeds, runtime, ref, full_check=True, atol=ATOL)
    assert out.status == "equal" and out.rewrites == 1, out.detail


# ---- the rewrite itself -------------------------------------------------------------------------------

@pytest.mark.parametrize("spelling", ["jax", "A", "C"])
def test_a_plain_erf_gelu_becomes_one_gelu_equal_to_the_reference(spelling):
    model = plain_model(spelling)
    result = fuse_erf_gelu(model)
    assert result.rewrites == 1
    fused = result.model
    assert [(n.op_type, n.domain) for n in fused.graph.node] == [("Gelu", MS_DOMAIN), ("Neg", "")]
    assert list(fused.graph.node[0].input) == ["x"]
    assert not fused.graph.initializer  # every constant of the chain is dropped with it
    assert any(o.domain == MS_DOMAIN for o in fused.opset_import)
    onnx.checker.check_model(fused, full_check=True)
    x = np.linspace(-4, 4, 15, dtype=np.float32).reshape(SHAPE)
    ref = ReferenceEvaluator(model).run(None, {"x": x})[0]  # the primitive ops, as the ONNX spec defines them
    got = contract.ort_outputs(fused, {"x": x})[0]
    np.testing.assert_allclose(got, ref, rtol=0, atol=ATOL)


def test_constants_as_constant_nodes_and_shared_constants():
    # two chains share the scalar initializers, the second reads them through Constant nodes
    c0, g0 = gelu_chain("x", "0")
    c1, g1 = gelu_chain("x", "1", "A")
    consts = [helper.make_node("Constant", [], [n], value=const(n, v))
              for n, v in (("half_c", 0.5), ("inv_c", 1 / np.sqrt(2)), ("one_c", 1.0))]
    for node in c1:
        node.input[:] = [{"half": "half_c", "inv_sqrt2": "inv_c", "one": "one_c"}.get(t, t) for t in node.input]
    model = _model(consts + c0 + c1 + [helper.make_node("Add", [g0, g1], ["y"])],
                   [helper.make_tensor_value_info("x", F, SHAPE)], [helper.make_tensor_value_info("y", F, SHAPE)])
    result = fuse_erf_gelu(model)
    assert result.rewrites == 2
    assert [n.op_type for n in result.model.graph.node] == ["Gelu", "Gelu", "Add"]
    assert not result.model.graph.initializer


def test_preconditions_refuse_the_fusion():
    # an overridable constant (initializer that is also a graph input) is not a constant
    m = plain_model()
    m.graph.input.append(helper.make_tensor_value_info("sqrt2", F, []))
    assert fuse_erf_gelu(m).rewrites == 0
    # a size-1 constant of higher rank than x would broadcast x's shape: refused
    m = plain_model()
    scalar_x = helper.make_tensor_value_info("x", F, [])
    m.graph.input[0].CopyFrom(scalar_x)
    m.graph.output[0].type.tensor_type.shape.ClearField("dim")
    for t in m.graph.initializer:
        if t.name == "sqrt2":
            t.CopyFrom(const("sqrt2", np.full([1], np.sqrt(2))))
    assert fuse_erf_gelu(m).rewrites == 0
    # an intermediate that is also a graph output must stay
    m = plain_model()
    m.graph.output.append(helper.make_tensor_value_info("e0", F, SHAPE))
    assert fuse_erf_gelu(m).rewrites == 0


def test_the_rule_runs_on_lab01_driver():
    from lab01_onnx.passes import apply_rule

    model = plain_model()  # the jax spelling: inv_sqrt2 and half are initializers nothing reads
    direct, fused = apply_rule(model, fuse_gelu_at), fuse_erf_gelu(model)
    assert direct.rewrites == fused.rewrites == 1
    assert list(direct.model.graph.node) == list(fused.model.graph.node)
    # the driver drops what the rewrite orphaned (sqrt2, one, two); fuse_erf_gelu also the dead rest
    assert {t.name for t in direct.model.graph.initializer} == {"inv_sqrt2", "half"}
    assert not fused.model.graph.initializer


# ---- Lab 01's proof harness ---------------------------------------------------------------------------

def _gelu_cases() -> list[tuple[str, onnx.ModelProto, list[dict]]]:
    cases = [(f"plain_{s}", plain_model(s), [{"x": RNG.uniform(-4, 4, SHAPE).astype(np.float32)}])
             for s in ("jax", "A", "C")]
    cases += [(f"nested_{r}_{d}", nested_model(r, d), [_feeds(True), _feeds(False)])
              for r, d in (("e0", 2), ("a0", 3), ("s0", 1))]
    return cases


def test_pass_contract_on_gelu_graphs():
    """Lab 01's contract (input untouched, deterministic, checker, interface, outputs, idempotent)
    on graphs the rule rewrites; outputs at :data:`ATOL` (see the module doc)."""
    for name, model, feeds in _gelu_cases():
        runtime, ref = run_reference_side(model, feeds)
        out = contract.check_variant(fuse_erf_gelu, model, feeds, runtime, ref, full_check=True, atol=ATOL)
        assert out.status == "equal" and out.rewrites >= 1, f"{name}: {out.status}: {out.detail}"


def test_pass_contract_on_a_backend_suite_slice():
    """The conformance run (:func:`lab01_onnx.proof.conformance.run_case`) of the ONNX backend
    suite's Erf / Gelu / control-flow cases: the rule breaks none (mostly it finds no chain)."""
    from lab01_onnx.proof import conformance as conf
    from lab01_onnx.proof.cases import load_cases

    cases = load_cases(["node"], r"^test_(erf|gelu|if|loop|scan)")
    assert len(cases) >= 10
    results = [conf.run_case(c, {"fuse_erf_gelu": fuse_erf_gelu}) for c in cases]
    failed = [f"{r.case.name}: {o.status}: {o.detail}" for r in results for o in r.outcomes.values() if o.failed]
    assert not failed, failed
    assert sum(r.skip is None for r in results) >= 0.8 * len(cases)


def test_pass_contract_on_fuzzed_graphs():
    """Lab 01's fuzzer (its If/Loop outer-scope traps included): the rule keeps the contract on each."""
    from lab01_onnx.proof import fuzz

    stats = fuzz.run_fuzz(40, {"fuse_erf_gelu": fuse_erf_gelu}, seed=0, progress=False, shrink=False)
    assert stats.examples == 40 and not stats.counterexamples, stats.counterexamples
