"""Google's Model Explorer on any stage of the ladder, with the labs' numbers on the graph.

Usage::

    python -m debugging.viewer MODEL.onnx [--overlay FILE.json ...] [--port N]
    python -m debugging.viewer CANDIDATE.onnx --reference STAGE_BEFORE.onnx   # max |diff| + removed/added
    python -m debugging.viewer MODEL.onnx --memory --dims batch=1,sequence=32   # bytes, bytes live
    python -m debugging.viewer results/lab03/torch_mlp_tosa.mlir               # MLIR: bytes per op
    python -m debugging.viewer ... --write-only     # write the overlays, serve nothing
    python -m debugging.viewer ... --check          # serve, open in headless chromium, check, exit

Overlays are written to ``results/debugging/<stem>.<kind>.json`` (Model Explorer's node-data
JSON, :mod:`debugging.overlays`) and passed to the server, which runs on loopback
(``--host 127.0.0.1``) with the ``model_explorer_onnx`` adapter; open the printed URL. With
``--reference``, both graphs are served (the candidate first) and each gets its own overlays:
the candidate its per-node max |diff| (``divergence``) and its ``added``/``changed`` nodes, the
reference its ``removed`` ones. MLIR goes through Model Explorer's built-in MLIR adapter; torch-mlir's
TOSA in the pretty form does not parse there (its TOSA dialect is older: ``custom op
'tosa.const_shape' expected 'values'``), so TOSA files are re-printed in MLIR's generic op form
(MLIR 22 bindings) first, which it reads.

Exit codes: 0 served / written / checked, 1 the browser check failed, 2 bad input (not an ONNX
or MLIR file, two graphs without a common tensor, a port in use, an overlay that is not JSON).
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from common.cli import parser, step
from common.errors import GateFailed, UserError, run_cli
from common.onnx_dims import add_dims_argument, parse_dims
from common.results import atomic_write, results_dir

from . import overlays as ov

PROG = "python -m debugging.viewer"
HOST = "127.0.0.1"
#: sizes of the symbolic dims of the random inputs and the memory plan, unless ``--dims`` says otherwise
DEFAULT_DIMS = "batch=1,sequence=8"
MLIR_EXTS = (".mlir", ".mlirbc")
#: dialects registered in ai_edge_model_explorer_adapter 0.2.1's MLIR parser (its "Available dialects" error line)
ADAPTER_DIALECTS = ("arith", "builtin", "check", "chlo", "func", "scf", "sdy", "shape", "stablehlo", "tf", "tfl",
                    "tosa", "vhlo")


def free_port(host: str = HOST) -> int:
    """A TCP port nobody listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_in_use(port: int, host: str = HOST) -> bool:
    """True when something accepts connections on ``host:port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        return s.connect_ex((host, port)) == 0


def load_onnx(path: str | os.PathLike):
    """Load an ONNX file (one-line UserError for a missing or non-ONNX file), checked with onnx.checker."""
    from common.onnx_utils import check_model, load_model

    model = load_model(path)
    check_model(model, str(path))
    return model


def generic_mlir(path: Path, out_dir: Path) -> Path:
    """``path`` re-printed in MLIR's generic op form (upstream MLIR 22 bindings) as ``<stem>.generic.mlir``.

    Raises:
        UserError: the file does not parse as MLIR.
    """
    from mlir import ir

    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = True
        try:
            module = ir.Module.parse(path.read_text())
        except Exception as exc:  # MLIRError: parse diagnostics
            raise UserError(f"{path}: not an MLIR module ({str(exc).splitlines()[0]})") from exc
        dialects: set[str] = set()

        def visit(op):
            dialects.add(op.operation.name.split(".")[0])
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit)
        text = module.operation.get_asm(print_generic_op_form=True)
    missing = sorted(dialects - set(ADAPTER_DIALECTS))
    if missing:  # the adapter crashes (SIGSEGV) on generic ops of dialects it does not register
        raise UserError(f"{path.name}: Model Explorer's MLIR adapter has no {', '.join(missing)} dialect "
                        f"(it reads {', '.join(ADAPTER_DIALECTS)}); show the TOSA or StableHLO form instead")
    return atomic_write(out_dir / f"{path.stem}.generic.mlir", text)


def mlir_overlays(path: Path, out_dir: Path) -> tuple[Path, list[Path]]:
    """The MLIR file Model Explorer will read (generic form when the pretty form fails) and its bytes overlay."""
    try:
        graphs = ov.mlir_graphs(path)
        served = path
    except UserError:
        served = generic_mlir(path, out_dir)
        graphs = ov.mlir_graphs(served)
    files = []
    for g in graphs[:1]:
        files.append(ov.write_overlay(out_dir / f"{path.stem}.bytes.json", g["id"], ov.mlir_bytes_overlay(g)))
    step(1, "mlir", f"{path.name}: {len(graphs[0]['nodes'])} nodes in graph {graphs[0]['id']!r}, served as {served.name}")
    return served, files


def onnx_overlays(model_path: Path, out_dir: Path, *, reference: Path | None, memory: bool, dims: dict,
                  atol: float, seed: int) -> tuple[list[tuple[Path, str]], dict]:
    """Compute and write the ONNX overlays; returns ``[(file, target model file name)]`` and a summary."""
    model = load_onnx(model_path)
    ids = ov.onnx_node_ids(model_path)
    files: list[tuple[Path, str]] = []
    summary: dict = {"nodes": len(model.graph.node)}
    stem = model_path.stem
    if reference is not None:
        from lab01_onnx.divergence import make_feeds

        if reference.name == model_path.name:
            raise UserError(f"the two stages share the file name {model_path.name!r}; Model Explorer targets "
                            "overlays by file name, so copy one under another name")
        ref = load_onnx(reference)
        ids_ref = ov.onnx_node_ids(reference)
        over_ref, over_b, counts = ov.graph_diff_overlays(ref, ids_ref, model, ids)
        rows = ov.per_node_max_abs(ref, model, make_feeds(ref, dims, seed))
        first = next((r for r in rows if r["max_abs"] > atol), None)
        files.append((ov.write_overlay(out_dir / f"{stem}.divergence.json", ids.graph,
                                       ov.divergence_overlay(rows, ids, model, atol)), model_path.name))
        files.append((ov.write_overlay(out_dir / f"{stem}.diff.json", ids.graph, over_b), model_path.name))
        files.append((ov.write_overlay(out_dir / f"{reference.stem}.diff.json", ids_ref.graph, over_ref),
                      reference.name))
        summary.update(counts)
        summary["first_divergence"] = (f"{first['node']} ({first['op_type']}) max abs {first['max_abs']:.3g}"
                                       if first else f"none beyond atol={atol}")
        step(1, "diff", f"{reference.name} -> {model_path.name}: " +
             ", ".join(f"{v} {k}" for k, v in counts.items()))
        step(2, "divergence", f"{len(rows)} nodes compared; first beyond atol={atol}: {summary['first_divergence']}")
    if memory:
        written, live, mem = ov.memory_overlays(model, ids, dims)
        files.append((ov.write_overlay(out_dir / f"{stem}.bytes.json", ids.graph, written), model_path.name))
        files.append((ov.write_overlay(out_dir / f"{stem}.live.json", ids.graph, live), model_path.name))
        summary["peak_live_bytes"] = mem["lower_bound_bytes"]
        step(3, "memory", f"{mem['tensors']} tensors, peak live {mem['lower_bound_bytes'] / 2**20:.2f} MiB "
                          f"at step {mem['peak_step']}")
    return files, summary


def check_overlay_file(path: Path) -> Path:
    """Raise UserError unless ``path`` is a JSON object (a node-data file)."""
    if not path.is_file():
        raise UserError(f"--overlay {path}: no such file")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"--overlay {path}: not JSON ({exc.msg if hasattr(exc, 'msg') else exc})") from exc
    if not isinstance(data, dict):
        raise UserError(f"--overlay {path}: expected a JSON object of Model Explorer node data")
    return path


def _overlay_arg(text: str) -> tuple[Path, str]:
    """``FILE.json`` or ``FILE.json@model.onnx`` -> ``(checked path, target model file name or "")``."""
    path, _, target = text.partition("@") if text.rsplit("@", 1)[-1].endswith(MLIR_EXTS + (".onnx",)) else (text, "", "")
    return check_overlay_file(Path(path)), target


def model_explorer_config(models: Sequence[Path], overlays: Sequence[tuple[Path, str]]):
    """A ``model_explorer.config()`` with the models (in order) and node-data files (targeted by file name)."""
    import model_explorer

    cfg = model_explorer.config()
    for m in models:
        cfg.add_model_from_path(str(m))
    for path, target in overlays:
        cfg.add_node_data_from_path(str(path), model_name=target or None)
    return cfg


def serve(models: Sequence[Path], overlays: Sequence[tuple[Path, str]], port: int, host: str = HOST) -> None:
    """Serve Model Explorer (blocks until Ctrl-C). ``port`` must be free (checked first: UserError)."""
    import model_explorer

    if port_in_use(port, host):
        raise UserError(f"port {port} on {host} is in use; pick another with --port N (or --port 0 for a free one)")
    model_explorer.visualize_from_config(model_explorer_config(models, overlays), host=host, port=port,
                                         extensions=["model_explorer_onnx"], no_open_in_browser=True)


def spawn(args: Sequence[str], timeout: float = 300.0) -> tuple[subprocess.Popen, str]:
    """Start ``python -m debugging.viewer ARGS`` and wait for its URL line; returns ``(process, url)``.

    Raises:
        UserError: the server exited first (its last stderr line is the reason), or printed no URL in time.
    """
    import queue
    import threading

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "debugging.viewer", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=Path(__file__).resolve().parent.parent)
    lines: queue.Queue = queue.Queue()
    err: list[str] = []
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put(None)], daemon=True).start()
    threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=timeout)
            if line is None:
                proc.wait(10)
                last = [x.strip() for x in err if x.strip()]
                raise UserError(f"the viewer exited with {proc.returncode}: {last[-1] if last else 'no message'}")
            if line.startswith("http://"):
                return proc, line.strip()
    except queue.Empty:
        proc.kill()
        raise UserError(f"the viewer printed no URL within {timeout:.0f} s") from None


def browser_check(url: str, needles: Sequence[str], shot: Path, timeout: float = 90.0) -> str:
    """Open ``url`` in headless chromium, wait until every string of ``needles`` is on the page, save a
    screenshot to ``shot``; returns the page text.

    Raises:
        UserError: no chromium. GateFailed: the page never showed them.
    """
    from .browser import Browser, find_chromium

    if find_chromium() is None:
        raise UserError("no chromium for --check: apt-get install chromium (or set $CHROMIUM)")
    try:
        with Browser() as b:
            b.open(url)
            text = b.wait_for_text(list(needles), timeout=timeout)
            expand_all_layers(b)
            b.screenshot(shot)
    except (TimeoutError, RuntimeError) as exc:  # the page never showed them, or the browser stopped answering
        raise GateFailed(f"Model Explorer did not render in headless chromium: {exc}") from exc
    return text


def expand_all_layers(b, settle: float = 3.0) -> bool:
    """Click Model Explorer's "expand all layers" button (material icon ``unfold_more_double``) so a
    screenshot shows the op nodes with their overlay colours; False when the button is not found."""
    import time

    clicked = b.evaluate("(() => { const i = [...document.querySelectorAll('mat-icon, .mat-icon, span, button')]"
                         ".find(e => e.textContent.trim() === 'unfold_more_double');"
                         " if (!i) return false; (i.closest('button') || i.closest('[role=button]') || i).click();"
                         " return true; })()")
    time.sleep(settle)
    return bool(clicked)


def main(argv: Sequence[str] | None = None) -> int:
    p = parser(PROG, __doc__)
    p.add_argument("model", help="an .onnx file (any stage) or an .mlir file (e.g. results/lab03/*_tosa.mlir)")
    p.add_argument("--overlay", action="append", default=[], metavar="FILE.json[@MODEL]",
                   help="extra node-data file(s) to show (Model Explorer's format); @MODEL: the file name of "
                        "the served model it applies to (default: the first)")
    p.add_argument("--add-model", action="append", default=[], metavar="FILE",
                   help="serve another model beside it (no overlays computed for it)")
    p.add_argument("--reference", metavar="A.onnx",
                   help="an earlier stage of the same model: per-node max |diff| and removed/added nodes")
    p.add_argument("--memory", action="store_true", help="bytes written and bytes live per node (Lab 01's planner)")
    add_dims_argument(p, help=f"sizes of dynamic axes, over the defaults {DEFAULT_DIMS}")
    p.add_argument("--atol", type=float, default=1e-4, help="divergence tolerance (default 1e-4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs for --reference")
    p.add_argument("--port", type=int, default=0, help="loopback port (default 0: a free one)")
    p.add_argument("--out", help="folder for the overlay files (default results/debugging)")
    p.add_argument("--write-only", action="store_true", help="write the overlays and exit")
    p.add_argument("--check", action="store_true",
                   help="serve, open the page in headless chromium, check graph and overlays render, exit")
    args = p.parse_args(argv)
    model = Path(args.model)
    if not model.is_file():
        raise UserError(f"{model}: no such file")
    if not 0 <= args.port < 65536:
        raise UserError(f"--port {args.port}: expected 0..65535")
    if args.port and port_in_use(args.port):
        raise UserError(f"port {args.port} on {HOST} is in use; pick another with --port N (or --port 0)")
    out_dir = Path(args.out) if args.out else results_dir("debugging")
    out_dir.mkdir(parents=True, exist_ok=True)
    extra = [_overlay_arg(f) for f in args.overlay]
    dims = {**parse_dims(DEFAULT_DIMS), **args.dims}
    if model.suffix in MLIR_EXTS:
        if args.reference or args.memory:
            raise UserError("--reference and --memory work on ONNX files; for MLIR the overlay is bytes per op")
        served, files = mlir_overlays(model, out_dir)
        models, over = [served], [(f, "") for f in files] + extra
    else:
        ref = Path(args.reference) if args.reference else None
        if ref is not None and not ref.is_file():
            raise UserError(f"--reference {ref}: no such file")
        over, _ = onnx_overlays(model, out_dir, reference=ref, memory=args.memory, dims=dims,
                                atol=args.atol, seed=args.seed)
        over += extra
        models = [model] + ([ref] if ref is not None else [])
    for m in args.add_model:
        if not Path(m).is_file():
            raise UserError(f"--add-model {m}: no such file")
        models.append(Path(m))
    for f, _ in over:
        step(4, "overlay", str(f))
    if args.write_only:
        return 0
    if args.check:  # serve what was just written (no recomputation) in a child process, then look at it
        child = [str(models[0]), "--port", str(free_port()), "--out", str(out_dir)]
        child += [a for m in models[1:] for a in ("--add-model", str(m))]
        child += [a for f, target in over for a in ("--overlay", f"{f}@{target}" if target else str(f))]
        first = [f for f, target in over if target in ("", models[0].name)]  # the page opens the first model
        return _check(child, models[0], first, out_dir)
    port = args.port or free_port()
    step(5, "serve", f"Model Explorer on http://{HOST}:{port} (Ctrl-C stops)")
    serve(models, over, port)
    return 0


def _check(child_args: Sequence[str], model: Path, files: Sequence[Path], out_dir: Path) -> int:
    proc, url = spawn(child_args)
    try:
        needles = [Path(f).name for f in files] or ["Model Explorer"]
        text = browser_check(url, needles, out_dir / f"{model.stem}.screenshot.png")
    finally:
        proc.terminate()
        proc.wait(10)
    step(6, "check", f"graph and {len(files)} overlay(s) rendered in headless chromium "
                     f"({len(text)} characters of page text, screenshot {model.stem}.screenshot.png)")
    return 0


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
