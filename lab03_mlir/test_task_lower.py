"""Graded tests of Task 3.4 (``lab03.lower``): the ``bufferize`` and ``affine`` stages of step 3.

Through the public contract only (the rules in the docstring of ``lab03_mlir/bufferization.py``,
checked on the IR :func:`lab03_mlir.lowering.lower` keeps after each stage), on kernels written here as
linalg on tensors (not built by Task 3.1, so this task is graded on its own):

- after ``bufferize``: no tensor type anywhere, public arguments memrefs of the identity layout, the
  results turned into the last arguments and computed straight into them (no ``memref.copy``),
  every ``memref.alloc`` matched by a ``memref.dealloc``, no ``memref.alloca`` over 1 KiB (a temporary of 1028
  bytes stays on the heap);
- after ``affine``: no linalg op, ``affine.for`` nests over ``affine.load``/``affine.store``: one nest per
  linalg op, in order, one loop per iteration dimension, each from 0 to its size with step 1 (checked
  against nests worked out by hand from the kernels' shapes; a chain of elementwise ops with a unit dimension
  shows fusion, transpose folding or unit-dimension dropping done on tensors before the lowering);
- a result that is a view of an argument (a reshape) reaches its output argument (copied there);
- the whole pipeline (the given ``scf``, ``cf`` and ``llvm`` stages after them), JIT-compiled: each
  kernel computes what NumPy computes, bitwise. Every input is a multiple of 1/16 in [-8, 8], so every
  product and every sum of up to a few hundred of them is exact in float32 in any order: any loop order,
  tiling or fusion a correct pipeline picks gives the same bits.

Run: ``.venv/bin/python -m pytest --task lab03.lower``.
"""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from lab03_mlir import jit, lowering

pytestmark = pytest.mark.lab03

MATMUL_BIAS_RELU = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu(%a: tensor<6x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> tensor<6x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6x5xf32>) -> tensor<6x5xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<6x4xf32>, tensor<4x5xf32>) outs(%z : tensor<6x5xf32>) -> tensor<6x5xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<6x5xf32>, tensor<5xf32>) outs(%e : tensor<6x5xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<6x5xf32>
  return %r : tensor<6x5xf32>
}
"""

#: A temporary: the first product is read by the second while the output is written.
CHAINED_MATMULS = """
func.func @chain(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<5x2xf32>) -> tensor<3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<3x5xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %t = linalg.matmul ins(%a, %b : tensor<3x4xf32>, tensor<4x5xf32>) outs(%z1 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %e2 = tensor.empty() : tensor<3x2xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x2xf32>) -> tensor<3x2xf32>
  %o = linalg.matmul ins(%t, %c : tensor<3x5xf32>, tensor<5x2xf32>) outs(%z2 : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %o : tensor<3x2xf32>
}
"""

#: Two results: both become out-parameters, in order.
TWO_RESULTS = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @twice_and_row_sum(%a: tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x7xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x7xf32>) outs(%e : tensor<4x7xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4x7xf32>
  %es = tensor.empty() : tensor<4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x7xf32>) outs(%zs : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %acc, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %d, %s : tensor<4x7xf32>, tensor<4xf32>
}
"""

TRANSPOSE = """
func.func @transpose(%a: tensor<3x8xf32>) -> tensor<8x3xf32> {
  %e = tensor.empty() : tensor<8x3xf32>
  %t = linalg.transpose ins(%a : tensor<3x8xf32>) outs(%e : tensor<8x3xf32>) permutation = [1, 0]
  return %t : tensor<8x3xf32>
}
"""

CONV = """
func.func @conv(%x: tensor<1x6x6x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x6x6x3xf32>, tensor<3x3x3x4xf32>) outs(%z : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
"""

#: Four elementwise ops in a chain, each with a unit leading dimension: a transpose, an add (``linalg.elementwise``),
#: a doubling and a ReLU (two ``linalg.generic``): four nests of three loops. Folding the transpose into the add,
#: fusing the two generics or dropping the unit dimension before the lowering leaves fewer nests or loops than the ops.
TRANSPOSE_ADD_RELU = """
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @transpose_add_relu(%a: tensor<1x6x4xf32>, %b: tensor<1x4x6xf32>) -> tensor<1x4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6xf32>
  %t = linalg.transpose ins(%a : tensor<1x6x4xf32>) outs(%e : tensor<1x4x6xf32>) permutation = [0, 2, 1]
  %s = linalg.elementwise kind=#linalg.elementwise_kind<add>
      ins(%t, %b : tensor<1x4x6xf32>, tensor<1x4x6xf32>) outs(%e : tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x4x6xf32>) outs(%e : tensor<1x4x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<1x4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%d : tensor<1x4x6xf32>) outs(%e : tensor<1x4x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x6xf32>
  return %r : tensor<1x4x6xf32>
}
"""


#: Results the function does not compute: its argument as it is, and flattened (a view); each is copied into
#: its output. Then one it does compute: twice the argument, straight into its output.
VIEW_RESULT = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @flatten_and_double(%a: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<24xf32>, tensor<4x6xf32>) {
  %flat = tensor.collapse_shape %a [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4x6xf32>
  return %a, %flat, %d : tensor<4x6xf32>, tensor<24xf32>, tensor<4x6xf32>
}
"""


def _conv(x, w):
    out = np.zeros((1, 4, 4, 4))
    for i in range(4):
        for j in range(4):
            out[0, i, j] = np.einsum("hwc,hwcf->f", x[0, i:i + 3, j:j + 3], w)
    return out


#: name: (text, function, input shapes, NumPy reference (float64) -> outputs, argument types after bufferize)
KERNELS = {
    "matmul_bias_relu": (MATMUL_BIAS_RELU, "matmul_bias_relu", [(6, 4), (4, 5), (5,)],
                         lambda a, b, c: [np.maximum(a @ b + c, 0.0)],
                         ["memref<6x4xf32>", "memref<4x5xf32>", "memref<5xf32>", "memref<6x5xf32>"]),
    "chain": (CHAINED_MATMULS, "chain", [(3, 4), (4, 5), (5, 2)], lambda a, b, c: [(a @ b) @ c],
              ["memref<3x4xf32>", "memref<4x5xf32>", "memref<5x2xf32>", "memref<3x2xf32>"]),
    "two_results": (TWO_RESULTS, "twice_and_row_sum", [(4, 7)], lambda a: [2 * a, a.sum(axis=1)],
                    ["memref<4x7xf32>", "memref<4x7xf32>", "memref<4xf32>"]),
    "transpose": (TRANSPOSE, "transpose", [(3, 8)], lambda a: [a.T],
                  ["memref<3x8xf32>", "memref<8x3xf32>"]),
    "conv": (CONV, "conv", [(1, 6, 6, 3), (3, 3, 3, 4)], lambda x, w: [_conv(x, w)],
             ["memref<1x6x6x3xf32>", "memref<3x3x3x4xf32>", "memref<1x4x4x4xf32>"]),
    "transpose_add_relu": (TRANSPOSE_ADD_RELU, "transpose_add_relu", [(1, 6, 4), (1, 4, 6)],
                           lambda a, b: [np.maximum(2 * (a.transpose(0, 2, 1) + b), 0.0)],
                           ["memref<1x6x4xf32>", "memref<1x4x6xf32>", "memref<1x4x6xf32>"]),
}


def nest(*sizes: int) -> tuple:
    """The perfect nest ``lowering.Loop.nest()`` gives for loops over ``sizes``, outermost first: each from 0
    to its size, step 1."""
    return (0, sizes[0], 1, (nest(*sizes[1:]),) if sizes[1:] else ())


#: name: the nest of each linalg op after ``affine``, in op order (worked out by hand from the shapes above).
NESTS = {
    "matmul_bias_relu": [nest(6, 5), nest(6, 5, 4), nest(6, 5)],  # fill (i, j), matmul (i, j, k), bias+ReLU (i, j)
    "chain": [nest(3, 5), nest(3, 5, 4), nest(3, 2), nest(3, 2, 5)],  # fill, matmul, fill, matmul
    "two_results": [nest(4, 7), nest(4), nest(4, 7)],  # twice (i, j), fill (i), row sum (i, j)
    "transpose": [nest(8, 3)],  # the output's dimensions
    "conv": [nest(1, 4, 4, 4), nest(1, 4, 4, 4, 3, 3, 3)],  # fill (n, oh, ow, f), conv (n, oh, ow, f, kh, kw, c)
    "transpose_add_relu": [nest(1, 4, 6)] * 4,  # transpose, add, doubling, ReLU: each over the output's (1, 4, 6)
}


def exact_inputs(shapes, seed: int) -> list[np.ndarray]:
    """Multiples of 1/16 in [-8, 8): float32 sums of their products are exact (see the module docstring)."""
    rng = np.random.default_rng(seed)
    return [(rng.integers(-128, 128, size=s) / 16).astype(np.float32) for s in shapes]


def stage_module(text: str, n_stages: int) -> ir.Module:
    """The module after the first ``n_stages`` stages of the lab's pipeline (1: bufferize, 2: affine)."""
    res = lowering.lower(text, stages=lowering.STAGES[:n_stages])
    return lowering.as_module(res.ir(lowering.STAGES[n_stages - 1][0]))


def ops(module: ir.Module) -> list:
    found = []

    def visit(op):
        found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def tensor_values(module: ir.Module) -> list[str]:
    """``op: type`` of every operand, result and block argument of tensor type."""
    bad = []
    for op in ops(module):
        values = [*op.operands, *op.results]
        for region in op.regions:
            for block in region.blocks:
                values.extend(block.arguments)
        bad.extend(f"{op.name}: {v.type}" for v in values if isinstance(v.type, (ir.RankedTensorType, ir.UnrankedTensorType)))
        if op.name == "func.func":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            bad.extend(f"func signature: {t}" for t in [*ftype.inputs, *ftype.results]
                       if isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType)))
    return bad


def public_function(module: ir.Module, name: str):
    return next(op for op in module.body.operations
                if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name)


def public_signature(module: ir.Module, name: str) -> tuple[list[str], list[str]]:
    """The argument and result types of ``@name`` after ``bufferize``, once it is checked to be still public: rules 2-3
    are about the public functions (those the JIT calls), which a pipeline that made them private would dodge."""
    f = public_function(module, name)
    visibility = ir.StringAttr(f.attributes["sym_visibility"]).value if "sym_visibility" in f.attributes else "public"
    assert visibility == "public", (
        f"@{name} is {visibility} after bufferize: it must stay a public function (rules 2-3: the JIT calls it; "
        "do not change the functions' visibility)")
    ftype = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
    return [str(t) for t in ftype.inputs], [str(t) for t in ftype.results]


def unfreed_message(name: str, module: ir.Module, names: list[str]) -> str:
    """Why ``memref.alloc`` and ``memref.dealloc`` do not pair up after ``bufferize``: a function that still
    returns a memref hands its own buffer to the caller (rule 3 unmet), which looks like a leak (rule 4)."""
    counts = f"{names.count('memref.alloc')} memref.alloc vs {names.count('memref.dealloc')} memref.dealloc"
    returning = [ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations
                 if op.operation.name == "func.func"
                 and ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value).results]
    if returning:
        return (f"{name}: {counts} after bufferize, but the cause is rule 3, not deallocation: "
                f"@{', @'.join(returning)} still return(s) memref results, so the buffer allocated for a result "
                "is returned, not freed; turn results into caller-owned last arguments (out-parameters) first "
                "(test_public_functions_take_identity_layout_memrefs_and_results_become_the_last_arguments; if "
                "your pipeline has a pass for that, read its options in `mlir-opt --help`: which functions it "
                "rewrites)")
    return f"{name}: {counts} after bufferize: a temporary buffer is never freed (rule 4); ops: {sorted(set(names))}"


@pytest.mark.task("lab03.lower", points=1)
def test_bufferize_leaves_no_tensor_anywhere():
    for name, (text, *_rest) in KERNELS.items():
        assert tensor_values(stage_module(text, 1)) == [], name


@pytest.mark.task("lab03.lower", points=2)
def test_public_functions_take_identity_layout_memrefs_and_results_become_the_last_arguments():
    for name, (text, func, _shapes, _ref, types) in KERNELS.items():
        got_in, got_out = public_signature(stage_module(text, 1), func)
        assert (got_in, got_out) == (types, []), (
            f"{name}: after bufferize @{func} takes ({', '.join(got_in)}) and returns ({', '.join(got_out)}); "
            f"rules 2-3 want it to take ({', '.join(types)}) and return nothing: identity-layout memrefs at the "
            "boundary, each result a caller-owned last argument (read the options of the passes you use in "
            "`mlir-opt --help`: the function-boundary layout, and which functions are rewritten)")


@pytest.mark.task("lab03.lower", points=1)
def test_results_are_computed_straight_into_the_output_arguments():
    """Rule 3: no buffer of the function's own copied into an output (the kernels here need none)."""
    for name, (text, *_rest) in KERNELS.items():
        names = [op.name for op in ops(stage_module(text, 1))]
        assert "memref.copy" not in names, (
            f"{name}: memref.copy after bufferize: a result is computed in a buffer of the function's own and then "
            "copied into the output argument (rule 3 wants it computed in the argument; the pass that makes "
            "out-parameters has an option for results of static shape: `mlir-opt --help`)")


@pytest.mark.task("lab03.lower", points=2)
def test_every_temporary_is_freed():
    """The chain's first product is a temporary (the second matmul reads it while writing the output)."""
    for name, (text, *_rest) in KERNELS.items():
        module = stage_module(text, 1)
        names = [op.name for op in ops(module)]
        assert names.count("memref.alloc") == names.count("memref.dealloc"), unfreed_message(name, module, names)
    names = [op.name for op in ops(stage_module(CHAINED_MATMULS, 1))]
    assert names.count("memref.alloc") + names.count("memref.alloca") >= 1, \
        f"chain: the first product (a temporary) must live in a buffer of its own (memref.alloc or .alloca); ops: {sorted(set(names))}"


@pytest.mark.task("lab03.lower", points=2)
def test_affine_stage_leaves_affine_loops_one_per_dimension():
    for name, (text, *_rest) in KERNELS.items():
        module = stage_module(text, 2)
        names = [op.name for op in ops(module)]
        linalg = sorted({n for n in names if n.startswith("linalg.")})
        assert not linalg, f"{name}: linalg ops left after affine: {linalg}"
        other = sorted({"memref.load", "memref.store", "scf.for"} & set(names))
        assert "affine.for" in names and not other, \
            f"{name}: after affine, want affine.for over affine.load/affine.store, found {other or 'no affine.for'}"
        vector = sorted({n for n in names if n.startswith("vector.")})
        assert not vector, f"{name}: vector ops after affine ({vector}): the loops are over affine.load/affine.store"
        got = [loop.nest() for loop in lowering.loop_structure(module)]
        assert got == NESTS[name], (
            f"{name}: affine.for nests (lb, ub, step, inner) {got}, want {NESTS[name]}: one nest per linalg op in "
            "op order, one loop per dimension from 0 to its size with step 1 (no fusion, tiling, unrolling)")


@pytest.mark.task("lab03.lower", points=1)
@pytest.mark.parametrize("name", list(KERNELS))
def test_lowered_and_run_it_computes_what_numpy_computes(name):
    text, func, shapes, reference, _types = KERNELS[name]
    inputs = exact_inputs(shapes, seed=len(name))
    outputs = jit.run_with_engine(lowering.lower(text), func, inputs)
    expected = reference(*[x.astype(np.float64) for x in inputs])
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want.astype(np.float32))


@pytest.mark.task("lab03.lower", points=1)
def test_each_call_writes_its_own_output_buffer():
    """Out-parameters are the caller's: two calls with different inputs give two right answers."""
    text, func, shapes, reference, _types = KERNELS["chain"]
    kernel = jit.EngineKernel(lowering.lower(text).module, func)
    first, second = exact_inputs(shapes, seed=1), exact_inputs(shapes, seed=2)
    out1 = kernel(first)[0]
    out2 = kernel(second)[0]
    np.testing.assert_array_equal(out1, reference(*[x.astype(np.float64) for x in first])[0].astype(np.float32))
    np.testing.assert_array_equal(out2, reference(*[x.astype(np.float64) for x in second])[0].astype(np.float32))


@pytest.mark.task("lab03.lower", points=1)
def test_a_result_that_is_an_argument_or_a_view_of_one_reaches_its_output():
    """Rule 3 for results the function does not compute: the argument and its flattened view are copied into
    their output arguments (the JIT hands in zeroed outputs, so an output left unwritten reads 0)."""
    got_types, got_results = public_signature(stage_module(VIEW_RESULT, 1), "flatten_and_double")
    want_types = ["memref<4x6xf32>", "memref<4x6xf32>", "memref<24xf32>", "memref<4x6xf32>"]
    assert (got_types, got_results) == (want_types, []), (
        f"flatten_and_double: after bufferize it takes ({', '.join(got_types)}) and returns {len(got_results)} "
        f"result(s); want ({', '.join(want_types)}) and none: every result, an argument returned as it is too, "
        "becomes an out-parameter")
    (a,) = exact_inputs([(4, 6)], seed=3)
    a[a == 0] = 0.5  # no zero input: an unwritten output cannot pass for the right one
    outputs = jit.run_with_engine(lowering.lower(VIEW_RESULT), "flatten_and_double", [a])
    for what, got, want in zip(["the argument", "the argument flattened", "2 * the argument"], outputs,
                               [a, a.reshape(24), 2 * a]):
        assert np.array_equal(got, want), (
            f"flatten_and_double: the output that should hold {what} is "
            f"{'all zeros (never written)' if not got.any() else 'wrong'}: every output must hold its result when "
            "the function returns, a returned argument or view of one copied there (rule 3; check the order of your passes)")


#: CHAINED_MATMULS with a temporary of 1 x 257 float32 (1028 bytes, the smallest float32 buffer over 1 KiB):
#: ``(A @ B) @ C`` for A 1x4, B 4x257, C 257x2. Rule 4 keeps it on the heap (``promote-buffers-to-stack`` moves
#: allocations up to 1 KiB by default; a larger ``max-alloc-size-in-bytes`` would move it).
BIG_CHAIN = (CHAINED_MATMULS.replace("3x4xf32", "1x4xf32").replace("4x5xf32", "4x257xf32")
             .replace("3x5xf32", "1x257xf32").replace("5x2xf32", "257x2xf32").replace("3x2xf32", "1x2xf32"))


def stack_buffers_over_1kib(module: ir.Module) -> list[str]:
    """The type of each ``memref.alloca`` of more than 1024 bytes (rule 4: only smaller temporaries go to the stack)."""
    over = []
    for op in ops(module):
        if op.name == "memref.alloca":
            t = ir.MemRefType(op.results[0].type)
            if t.has_static_shape and int(np.prod(t.shape)) * t.element_type.width // 8 > 1024:
                over.append(str(t))
    return over


@pytest.mark.task("lab03.lower", points=1)
def test_a_temporary_too_big_for_the_stack_is_freed():
    """Rule 4 for a temporary of any size: after ``bufferize`` the 1028-byte product of BIG_CHAIN is a heap buffer
    (``memref.alloc``), no ``memref.alloca`` is over 1 KiB, and every ``memref.alloc`` has its ``memref.dealloc``,
    as MLIR's own ``buffer-deallocation-pipeline`` leaves it (moving small buffers to the stack frees only those)."""
    module = stage_module(BIG_CHAIN, 1)
    names = [op.name for op in ops(module)]
    on_stack = stack_buffers_over_1kib(module)
    assert on_stack == [], (
        f"BIG_CHAIN: stack buffers over 1 KiB after bufferize: {on_stack}; rule 4 keeps a "
        "temporary over 1 KiB on the heap (memref.alloc + memref.dealloc): check the size limit you move buffers with")
    assert names.count("memref.alloc") >= 1, f"BIG_CHAIN: the 1028-byte temporary is no heap buffer; ops: {sorted(set(names))}"
    assert names.count("memref.alloc") == names.count("memref.dealloc"), unfreed_message("BIG_CHAIN", module, names)
