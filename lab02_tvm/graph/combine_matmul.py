"""Merge the matmuls that read the same input into one: BERT's Q, K and V projections as one 768x2304 GEMM.

Relax's ``CombineParallelMatmul`` (``tvm/src/relax/transform/combine_parallel_matmul.cc``) finds the
``matmul`` calls that share a left operand, concatenates their right operands along the output axis,
runs one ``matmul`` and splits each branch's columns back out (``split``); when every branch adds
a bias the same way, the biases are concatenated and added once too.

On this lab's import it merges nothing, for two reasons, and this module removes both:

* Its patterns are written ``add(matmul(x, w), bias)``, and Relax's pattern matcher does not try the
  operands of ``add`` the other way round. ``torch.export`` lowers ``nn.Linear`` to ``addmm(bias, x, w.T)``,
which the Relax front end imports as ``add(bias, matmul(x, w.T))``: bias first. The three projections
  then do not match as one group of branches. :func:`bias_after_matmul` swaps those operands (``add`` is
  commutative and broadcasts the same way both ways round).
* Its wildcards for the weights and biases are matched through their bindings ("used by" constraints),
  which a constant does not have, and the tuning module binds the weights as constants.
  :func:`combine_parallel_matmul` turns them into parameters for the pass and binds them back after it.

Then the pass merges each layer's Q/K/V: BERT-base goes from 97 ``matmul`` calls to 73 (12 layers, 3 -> 1).
Whether that is faster is measured, not assumed: ``lab02_tvm.measure.method_study``'s ``combined Q/K/V`` arm.

The shared left operand must be *one* variable: the import gives each projection its own ``reshape``
of the hidden state, so ``EliminateCommonSubexpr`` (in :func:`lab02_tvm.graph.passes.tuning_module`) must
run first.
"""
from __future__ import annotations

from .mutate import rewrite_main


def _is_matmul(expr, lookup) -> bool:
    from tvm import relax
    value = lookup(expr) if isinstance(expr, relax.Var) else None
    return isinstance(value, relax.Call) and getattr(value.op, "name", "") == "relax.matmul"


def _shared_matmul_inputs(func) -> set:
    """The variables that are the left operand of more than one ``matmul`` in ``func``."""
    from collections import Counter

    from tvm import relax
    uses = Counter()

    def visit(e):
        if isinstance(e, relax.Call) and getattr(e.op, "name", "") == "relax.matmul" and isinstance(e.args[0], relax.Var):
            uses[e.args[0]] += 1

    relax.analysis.post_order_visit(func, visit)
    return {v for v, n in uses.items() if n > 1}


def bias_after_matmul(mod):
    """Rewrite ``add(a, m)`` in ``main`` into ``add(m, a)`` where ``m`` is bound to a ``matmul`` whose left
    operand feeds another ``matmul`` too (the ones ``CombineParallelMatmul`` can merge) and ``a`` is not a matmul.

    Every other ``add`` is left as imported, so the kernels that are not merged keep their workloads (a
    swapped ``add`` is another TIR function, and MetaSchedule keys records by its structural hash).

    Args:
        mod: a Relax ``IRModule`` with a function ``main`` in dataflow bindings (any shapes, float dtypes).
    Returns:
        a new module with those ``add`` operands swapped.
    """
    from tvm import relax
    shared = _shared_matmul_inputs(mod["main"])

    def mergeable(expr, lookup) -> bool:
        return _is_matmul(expr, lookup) and lookup(expr).args[0] in shared

    def swap(self, call):
        if getattr(call.op, "name", "") == "relax.add" and len(call.args) == 2:
            a, b = call.args
            if mergeable(b, self.lookup_binding) and not _is_matmul(a, self.lookup_binding):
                return relax.op.add(b, a)
        return call

    return rewrite_main(mod, swap)


def _constants_as_params(mod):
    """``mod`` with each constant operand of a ``matmul`` and of an ``add(matmul, constant)`` in ``main`` turned
    into a new parameter of ``main``, and ``{parameter: value}`` to bind them back.

    ``CombineParallelMatmul`` matches weights and biases through their bindings ("used by" constraints on
    the pattern's wildcards), which a constant does not have: it merges them only while they are parameters.
    """
    from tvm import relax
    from tvm.ir.expr import Constant  # TVM 0.27's home of relax.Constant

    bound = {}

    def param(c):
        w = relax.Var(f"c{len(bound)}", c.ty)
        bound[w] = c.value
        return w

    def lift(self, call):
        name = getattr(call.op, "name", "")
        if name not in ("relax.matmul", "relax.add") or len(call.args) != 2:
            return call
        a, b = call.args
        if isinstance(b, Constant) and (name == "relax.matmul" or _is_matmul(a, self.lookup_binding)):
            return relax.Call(call.op, [a, param(b)], call.attrs)
        return call

    mod = rewrite_main(mod, lift)  # a new module: the caller's is left as it was
    main = mod["main"]
    mod["main"] = relax.Function(list(main.params) + list(bound), main.body, main.ret_ty, main.is_pure, main.attrs)
    return mod, bound


def combine_parallel_matmul(mod):
    """Merge the matmuls that share a left operand (:func:`bias_after_matmul`, then Relax's
    ``CombineParallelMatmul``), fold the concatenated constant weights and drop what is left unused.

    Args:
        mod: an unfused Relax module with weights bound (:func:`lab02_tvm.graph.passes.tuning_module`), its
            entry function ``main``.
    Returns:
        the module with one ``matmul`` per group of parallel matmuls, weights bound again; the model
        computes the same values (each output column is the same dot product as before).
    """
    from tvm import relax

    mod, weights = _constants_as_params(bias_after_matmul(mod))
    mod = relax.transform.CombineParallelMatmul()(mod)
    mod = relax.transform.BindParams("main", weights)(mod)
    mod = relax.transform.FoldConstant()(mod)
    return relax.transform.DeadCodeElimination(["main"])(mod)
