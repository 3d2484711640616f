"""Rewrite a Relax module's ``main`` call by call (the upstream ``PyExprMutator`` idiom)."""
from __future__ import annotations


def rewrite_main(mod, visit_call):
    """A new module: ``mod`` with ``main`` rewritten by a ``PyExprMutator`` whose ``visit_call_`` is
    ``visit_call(self, call)`` (after the call's arguments are visited); ``self.builder_`` may add
    functions (``call_te``) and ``self.lookup_binding`` resolves a variable's value."""
    from tvm import relax

    @relax.expr_functor.mutator
    class _Mutator(relax.PyExprMutator):
        def visit_call_(self, call):
            return visit_call(self, super().visit_call_(call))

    mutator = _Mutator(mod)  # rewrite through the mutator's BlockBuilder
    gv = mod.get_global_var("main")
    mutator.builder_.update_func(gv, mutator.visit_expr(mod["main"]))
    return mutator.builder_.get()
