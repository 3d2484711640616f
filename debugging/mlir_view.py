"""An MLIR file as Model Explorer's built-in MLIR adapter can show it, and its bytes-per-op overlay.

The adapter (``ai_edge_model_explorer_adapter`` 0.2.1) registers the dialects of :data:`ADAPTER_DIALECTS` and
parses their pretty form as its own (older) versions print it. torch-mlir's TOSA from MLIR 22 does not parse there
(``custom op 'tosa.const_shape' expected 'values'``), so :func:`servable_mlir` re-prints such a file in MLIR's
generic op form with MLIR 22's bindings; an op of a dialect the adapter lacks is refused first, because in the
generic form the adapter crashes the process (SIGSEGV) on it.
"""
from __future__ import annotations

import re
from pathlib import Path

from common.cli import step
from common.errors import UserError
from common.results import atomic_write

from . import overlays as ov

#: dialects registered in ai_edge_model_explorer_adapter 0.2.1's MLIR parser (its "Available dialects" error line)
ADAPTER_DIALECTS = ("arith", "builtin", "check", "chlo", "func", "scf", "sdy", "shape", "stablehlo", "tf", "tfl",
                    "tosa", "vhlo")


def _parse_mlir(path: Path) -> tuple[str | None, set[str] | None, str]:
    """``(generic text, dialects of its ops, "")`` when MLIR 22's Python bindings parse ``path`` (unregistered
    dialects allowed), else ``(None, None, their diagnostic)`` (StableHLO's pretty form: no such dialect there).

    Raises:
        UserError: an ``.mlir`` file that is not text.
    """
    from mlir import ir

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        try:
            module = ir.Module.parse(path.read_bytes() if path.suffix == ".mlirbc" else path.read_text())
        except UnicodeDecodeError:
            raise UserError(f"{path}: not text, so not MLIR assembly (MLIR bytecode is named .mlirbc)") from None
        except Exception as exc:  # MLIRError: parse diagnostics
            return None, None, str(exc)
        dialects: set[str] = set()

        def visit(op):
            dialects.add(op.operation.name.split(".")[0])
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        return module.operation.get_asm(print_generic_op_form=True), dialects, ""


def servable_mlir(path: Path, out_dir: Path | None) -> tuple[Path, list[dict]]:
    """The MLIR file Model Explorer will read for ``path`` and its graphs (adapter dicts, one per function).

    ``path`` itself when the adapter reads it (StableHLO, any file in a dialect it knows in a form it
    parses), else ``path`` re-printed in MLIR's generic op form (MLIR 22 bindings) as
    ``out_dir/<stem>.generic.mlir`` (torch-mlir's TOSA). Ops of a dialect the adapter lacks are refused
    before the adapter sees them: in the generic form it crashes the process (SIGSEGV).

    Raises:
        UserError: not MLIR (the diagnostic with its ``FILE:LINE:COL``), a dialect the adapter lacks,
            no function in the module, or the file needs re-printing and ``out_dir`` is None.
    """
    generic, dialects, _ = _parse_mlir(path)
    if dialects is None:  # the adapter may still read it (StableHLO): scan the generic-form op names it would crash on
        text = path.read_bytes().decode(errors="replace")
        dialects = set(re.findall(r'"([A-Za-z_][\w$]*)\.[\w.$]+"\s*\(', text))
    missing = sorted(dialects - set(ADAPTER_DIALECTS))
    if missing:
        names = missing[0] if len(missing) == 1 else f"{', '.join(missing[:-1])} or {missing[-1]}"
        raise UserError(f"{path}: Model Explorer's MLIR adapter has no {names} dialect "
                        f"(it reads {', '.join(ADAPTER_DIALECTS)}); show the TOSA or StableHLO form instead")
    try:
        graphs, served = ov.mlir_graphs(path), path
    except UserError as exc:
        if generic is None or out_dir is None:  # neither the adapter nor the bindings read it: its diagnostic
            raise exc from None
        served = atomic_write(out_dir / f"{path.stem}.generic.mlir", generic)
        graphs = ov.mlir_graphs(served)
    if not graphs:
        raise UserError(f"{path}: no function in this MLIR module: Model Explorer has no graph to show")
    return served, graphs


def mlir_overlays(path: Path, out_dir: Path) -> tuple[Path, list[Path], list[dict]]:
    """Write the bytes overlay of an MLIR file (first function) as ``out_dir/<stem>.bytes.json``.

    Returns:
        ``(served file, [overlay file], graphs)``: the file Model Explorer reads (:func:`servable_mlir`)
        and the adapter's graphs.

    Raises:
        UserError: as :func:`servable_mlir`.
    """
    served, graphs = servable_mlir(path, out_dir)
    g = graphs[0]
    files = [ov.write_overlay(out_dir / f"{path.stem}.bytes.json", g["id"], ov.mlir_bytes_overlay(g))]
    step(1, "mlir", f"{path.name}: {len(g['nodes'])} nodes in graph {g['id']!r}, served as {served.name}")
    return served, files, graphs
