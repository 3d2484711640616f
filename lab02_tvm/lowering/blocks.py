"""The blocks of one kernel's schedule, and its anchor: the reduction block a tile or a template is built around.

Shared by the search spaces that need the kernel's main computation by name: the register tile's
:func:`lab02_tvm.lowering.intrin.tile_for` and the AutoTVM-style template of
:mod:`lab02_tvm.schedule.search_space`.
"""
from __future__ import annotations

from common.errors import UserError


def sblocks(sch) -> list:
    """Every block of ``sch``'s ``main`` below the root, as ``(SBlockRV, SBlock)`` pairs (pre-order)."""
    out: list = []

    def walk(rv):
        for child in sch.get_child_blocks(rv):
            out.append((child, sch.get(child)))
            walk(child)

    walk(sch.get_sblock("root"))
    return out


def anchor_name(sch) -> str:
    """Name of the reduction block with the most iterators (the conv2d / matmul of a fused kernel).

    Raises:
        UserError: the kernel has no reduction block.
    """
    reds = [b for _, b in sblocks(sch) if any(int(iv.iter_type) == 2 for iv in b.iter_vars)]  # 2 = CommReduce
    if not reds:
        raise UserError("the template needs a kernel with a reduction (conv2d, matmul, dense)")
    return max(reds, key=lambda b: len(b.iter_vars)).name_hint
