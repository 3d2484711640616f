"""The tuning method behind a MetaSchedule database: data layout and weight layout rewrite.

MetaSchedule keys each record by the structural hash of the fused kernel it schedules
(``meta_schedule.database``: a workload is ``[structural hash, IRModule]``). The same model tuned
in NCHW or NHWC, with or without weight layout rewrite, therefore gives *different* workloads, and
records made one way cannot schedule a build made another: the build would fall back to untuned
loop nests (the coverage gate of step 6 refuses that). So the method is data, stored in each
database's ``PROVENANCE.json`` as ``"method": {"layout": ..., "layout_rewrite": ..., "combine_matmul": ..., "winograd": ...}``,
and every
build from records follows the method its records were tuned with.

* ``layout``: ``"NCHW"`` (the model as imported) or ``"NHWC"`` (:func:`lab02_tvm.graph.passes.convert_layout`
  on every conv2d; a model without conv2d is unchanged).
* ``kernel_layout``: the NHWC convs' weight layout (Relax ``conv2d``'s ``kernel_layout``): ``"OHWI"`` (every
  folder before 2026-12-07; absent from provenance: this) or ``"HWIO"``, each filter tap a ``[K, N]`` matrix
  with ``N`` contiguous, the layout the fp32 register tile reads ``B`` in (:func:`lab02_tvm.lowering.intrin.why_not`:
  with ``OHWI`` it never tensorizes a conv). With weight layout rewrite the schedule repacks the weights anyway;
  the workloads differ all the same. NCHW's weights are ``OIHW``.
* ``layout_rewrite``: mark each kernel's weights layout-free (``relax.transform.AttachAttrLayoutFreeBuffers``)
  so MetaSchedule's ``RewriteLayout`` postprocessor may repack them into the order the schedule
  reads them in; the repack is then folded into the constants (TVM 0.27's
  ``relax.pipeline.static_shape_tuning_pipeline(cpu_weight_prepack=True)``, which its docstring
  says "is expected to be True when running on CPU").
* ``combine_matmul``: merge the matmuls that read the same input into one
  (:func:`lab02_tvm.graph.combine_matmul.combine_parallel_matmul`: BERT's Q, K and V projections as one
  768x2304 matmul). Absent from provenance written before it existed: off.
* ``winograd``: the tile policy ``{out_h: m}`` of the 3x3 stride-1 convs rewritten as Winograd F(m x m, 3 x 3)
  (:func:`lab02_tvm.graph.winograd.winograd_conv2d`; NHWC only), ``false`` for none. Each tile is its own
  workload, so the records carry the policy they were tuned with. ``true`` (provenance written before the
  policy was recorded): :data:`lab02_tvm.graph.winograd.FIRST_TILES`. Absent from provenance written before it existed: off.

Provenance written before the method was recorded has no ``"method"``: it is NCHW, with the
top-level ``"layout_rewrite"`` flag (False in every such database shipped).
"""
from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, fields, replace

from common.errors import UserError

LAYOUTS = ("NCHW", "NHWC")
#: the weight layouts of each data layout's convs, its default first
KERNEL_LAYOUTS = {"NCHW": ("OIHW",), "NHWC": ("OHWI", "HWIO")}
#: ``SplitLayoutRewritePreproc`` renames a kernel whose weights it repacks ``<task>_prepacked``.
PREPACKED = "_prepacked"


def task_of_kernel(kernel: str) -> str:
    """The tuning task a built kernel comes from: its name without the weight layout rewrite's suffix."""
    return kernel.removesuffix(PREPACKED)


@dataclass(frozen=True)
class Method:
    """How a model is prepared for tuning and for the build from its records."""

    layout: str = "NCHW"
    layout_rewrite: bool = False
    #: merge the matmuls that share an input (BERT's Q/K/V) into one (:mod:`lab02_tvm.graph.combine_matmul`)
    combine_matmul: bool = False
    #: ``((out_h, m), ...)``: the 3x3 stride-1 convs rewritten as Winograd F(m, 3) (:mod:`lab02_tvm.graph.winograd`;
    #: any form :func:`~lab02_tvm.graph.winograd.policy` reads, ``True`` for its measured one); needs NHWC
    winograd: tuple[tuple[int, int], ...] = ()
    #: the convs' weight layout, one of ``KERNEL_LAYOUTS[layout]`` (``""``: the layout's default)
    kernel_layout: str = ""

    def __post_init__(self) -> None:
        from ..graph.winograd import policy
        object.__setattr__(self, "winograd", policy(self.winograd))
        if self.layout not in LAYOUTS:
            raise UserError(f"unknown tuning layout {self.layout!r}: choose one of {', '.join(LAYOUTS)}")
        defaults = {ks[0] for ks in KERNEL_LAYOUTS.values()}  # another layout's default: replace(m, layout=...) keeps it
        if not self.kernel_layout or (self.kernel_layout in defaults and self.kernel_layout not in KERNEL_LAYOUTS[self.layout]):
            object.__setattr__(self, "kernel_layout", KERNEL_LAYOUTS[self.layout][0])
        if self.kernel_layout not in KERNEL_LAYOUTS[self.layout]:
            raise UserError(f"{self.layout} convs take weights in {' or '.join(KERNEL_LAYOUTS[self.layout])}, "
                            f"not {self.kernel_layout!r}")
        if self.winograd and self.layout != "NHWC":
            raise UserError(f"Winograd rewrites NHWC convolutions: use layout NHWC with it (got {self.layout})")
        if self.winograd and self.kernel_layout != "OHWI":
            raise UserError(f"Winograd rewrites convolutions with OHWI weights (graph/winograd.py), not {self.kernel_layout}: "
                            "use one or the other")

    def module(self, mod):
        """The tuning module in this method's layout, its Winograd convs rewritten and its parallel matmuls
        merged if the method says so (``mod``: ``relax.passes.tuning_module``'s output)."""
        from ..graph.combine_matmul import combine_parallel_matmul
        from ..graph.passes import convert_layout
        from ..graph.winograd import winograd_conv2d
        mod = convert_layout(mod, self.layout, self.kernel_layout)
        mod = winograd_conv2d(mod, tile=dict(self.winograd).get) if self.winograd else mod
        return combine_parallel_matmul(mod) if self.combine_matmul else mod

    def model_module(self, model: str):
        """:meth:`module` of the full-size ``model`` (a :data:`lab02_tvm.models.MODELS` key, batch 1, seeded weights),
        imported from PyTorch and prepared for tuning: what the long run, the re-timing and a seed extract tasks from."""
        return self.prepared(model)[1]

    def prepared(self, model: str, quick: bool = False):
        """``(im, mod)``: ``model`` imported (:func:`lab02_tvm.models.imported`) and its tuning module in this method
        (:meth:`module` of ``relax.passes.tuning_module``), what every build from records of ``model`` starts from.

        A reduced configuration's (``quick``) is made once per process for each method and shared, as its import
        is (:func:`lab02_tvm.models.imported`): ``Method.module``'s ``ConvertLayout`` folds every weight's new
        layout with LLVM (2.5 s for the test-size ResNet on Zen 4). Treat both as read-only."""
        return _prepared_reduced(self, model) if quick else _prepare(self, model, False)

    def extends(self, other: Method) -> bool:
        """Whether records tuned with ``other`` are workloads of a build with this method too: this method
        is ``other`` with more of the graph rewrites of :data:`REWRITES` switched on (or more map sizes in its
        Winograd policy). Each rewrites some kernels (a merged matmul, a Winograd conv: new workloads) and
        leaves every other kernel as it was, so a folder of ``other``'s records can be topped up this way."""
        mine, theirs = ({k: _parts(getattr(m, k)) for k in REWRITES} for m in (self, other))
        grows = mine != theirs and all(theirs[k] <= mine[k] for k in REWRITES)
        return grows and replace(self, **{k: getattr(other, k) for k in REWRITES}) == other

    def union(self, other: Method) -> Method:
        """The method whose workloads cover both folders' records: the same layout, kernel layout and weight layout rewrite,
        every graph rewrite of :data:`REWRITES` either switches on, and both Winograd policies together.

        Raises:
            UserError: the layouts or rewrite flags differ, or the two policies give one map size two tiles
                (their records are other workloads of every kernel, or of that conv; one line naming it).
        """
        if (self.layout, self.kernel_layout, self.layout_rewrite) != (other.layout, other.kernel_layout,
                                                                      other.layout_rewrite):
            raise UserError(f"records tuned {self} and {other} are other workloads of every kernel: "
                            "they cannot join one folder")
        tiles = dict(self.winograd)
        clash = {h: (tiles[h], m) for h, m in other.winograd if tiles.get(h, m) != m}
        if clash:
            raise UserError(f"the two Winograd policies tile the same maps differently ({clash}, out_h: (m, m)): "
                            "keep one policy per folder")
        tiles.update(other.winograd)
        return replace(self, combine_matmul=self.combine_matmul or other.combine_matmul, winograd=tiles)

    def as_dict(self) -> dict:
        """The method as provenance stores it (the Winograd policy as ``{"out_h": m}`` or ``False``; the kernel layout
        only where it is not the layout's default, so a method of before the option is written as it was)."""
        out = {**asdict(self), "winograd": {str(h): m for h, m in self.winograd} or False}
        if self.kernel_layout == KERNEL_LAYOUTS[self.layout][0]:
            del out["kernel_layout"]
        return out

    def __str__(self) -> str:
        tiles = ", ".join(f"F({m},3) on {h}x{h}" for h, m in self.winograd)
        weights = f" ({self.kernel_layout} weights)" if self.kernel_layout != KERNEL_LAYOUTS[self.layout][0] else ""
        return (self.layout + weights + (" + weight layout rewrite" if self.layout_rewrite else "")
                + (" + parallel matmuls combined" if self.combine_matmul else "")
                + (f" + Winograd {tiles}" if self.winograd else ""))

    @classmethod
    def from_provenance(cls, prov: dict) -> Method:
        """The method recorded in a ``PROVENANCE.json`` dict (NCHW without rewrite when none is).

        Raises:
            UserError: the recorded method is not one this lab knows (one line naming it).
        """
        m = prov.get("method")
        if m is None:
            return cls("NCHW", bool(prov.get("layout_rewrite", False)))
        switches = {f.name for f in fields(cls)} - {"layout", "kernel_layout"}  # on/off switches and the Winograd policy
        if not isinstance(m, dict) or set(m) - switches - {"layout", "kernel_layout"}:
            raise UserError(f"unknown tuning method {m!r} in the records' provenance")
        from ..graph.winograd import FIRST_TILES
        wino = m.get("winograd", False)
        return cls(str(m.get("layout", "NCHW")), winograd=FIRST_TILES if wino is True else wino,
                   kernel_layout=str(m.get("kernel_layout", "")),
                   **{k: bool(m.get(k, False)) for k in switches - {"winograd"}})


@functools.cache
def _prepared_reduced(method: Method, model: str):
    return _prepare(method, model, True)


def _prepare(method: Method, model: str, quick: bool):
    from ..graph.passes import tuning_module
    from ..models import imported
    im = imported(model, quick)
    return im, method.module(tuning_module(im))


def _parts(value) -> frozenset:
    """What a rewrite switch adds: an on/off switch's ``{True}`` or nothing, a Winograd policy's (out_h, m) pairs."""
    return frozenset(value) if isinstance(value, tuple) else frozenset([True] if value else [])


#: The graph rewrites that only add workloads to a records folder (see :meth:`Method.extends`).
REWRITES = ("combine_matmul", "winograd")
#: The records as first shipped: the imported layout, weights read in their own order.
PLAIN = Method("NCHW", False)
#: The method a tuning from scratch uses: NHWC with weight layout rewrite (the field's CPU method).
FIELD = Method("NHWC", True)
