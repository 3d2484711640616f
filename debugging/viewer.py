"""Google's Model Explorer on any stage of the ladder, with the labs' numbers on the graph.

Usage::

    python -m debugging.viewer MODEL.onnx [--overlay FILE.json[@MODEL] ...] [--port N]
    python -m debugging.viewer CANDIDATE.onnx --reference STAGE_BEFORE.onnx   # max |diff| + removed/added
    python -m debugging.viewer MODEL.onnx --memory --dims batch=1,sequence=32   # bytes, bytes live
    python -m debugging.viewer results/lab03/torch_mlp_tosa.mlir               # MLIR: bytes per op
    python -m debugging.viewer ... --write-only     # write the overlays, serve nothing
    python -m debugging.viewer ... --check          # serve, open in headless chromium, check, exit

Overlays are written to ``results/debugging/<stem>.<kind>.json`` (``--out`` another folder; Model
Explorer's node-data JSON, :mod:`debugging.overlays`) and passed to the server, which listens on
loopback only (127.0.0.1; a free port unless ``--port N``) with the ``model_explorer_onnx`` adapter.
Open the printed URL: its ``?data=`` parameter names the models and overlays to load (the bare
``http://127.0.0.1:PORT/`` opens an empty Model Explorer). With ``--reference``, both graphs are
served (the candidate first) and each gets its own overlays: the candidate its per-node max |diff|
(``divergence``) and its ``added``/``changed`` nodes, the reference its ``removed`` ones; the two
must take the same inputs (names, dtypes, static sizes), fed with seeded random values whose
symbolic dims come from ``--dims`` (a dim it does not size is refused, as for ``--memory``). MLIR
goes through Model Explorer's built-in MLIR adapter; torch-mlir's TOSA in the pretty form does not
parse there (its TOSA dialect is older: ``custom op 'tosa.const_shape' expected 'values'``), so TOSA
files are re-printed in MLIR's generic op form (MLIR 22 bindings, ``<stem>.generic.mlir``) first,
which it reads.

The page opens on the node the first overlay ranks first (:func:`debugging.overlays.rank_first`: the first
node beyond ``--atol`` for the divergence, the largest for bytes, the first not ``kept`` for a diff), with
its layer expanded and the view zoomed on it: the URL carries Model Explorer's ``uiState``
(:func:`debugging.explorer_page.ui_state`), and that overlay is listed last, the one the page draws. One
``[4 select]`` line names the node and its value, or says why there is none (no overlay, no value, nothing
beyond ``--atol``): then the page opens on the whole graph.

``--check`` serves what was written (a ``--serve-only`` child, nothing recomputed), opens the URL in
headless Chromium and waits until the page shows the model's file name, its graph (some of its node
labels, found with Model Explorer's search) and the overlays' names; it clicks "expand all layers"
and saves ``<out>/<served stem>.screenshot.png`` (the whole graph); then it opens the URL with the node
selected, waits for the NODE INFO panel to name it and saves ``<out>/<served stem>.node.screenshot.png``.

Exit codes: 0 served / written / checked; 1 the browser check failed (the page shows the model with
an Error status, or not its graph in time); 2 bad input (not an ONNX or MLIR file, two graphs without
a common tensor or with other inputs, a port in use, an overlay that is not JSON, an ``--out`` that
cannot be written, no chromium for ``--check``).
"""
from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from common.cli import made_folder, parser, positive, step
from common.errors import UserError, run_cli
from common.onnx_dims import add_dims_argument, check_dims_named, require_sizes, parse_dims
from common.onnx_utils import check_feeds
from common.results import results_dir

from . import overlays as ov
from .browser import find_chromium
from .explorer_page import browser_check, check_labels, ui_state, with_ui_state
from .mlir_view import mlir_overlays, servable_mlir

PROG = "python -m debugging.viewer"
HOST = "127.0.0.1"
#: sizes of the symbolic dims of the random inputs and the memory plan, unless ``--dims`` says otherwise
DEFAULT_DIMS = "batch=1,sequence=8"
ONNX_EXTS = (".onnx",)
MLIR_EXTS = (".mlir", ".mlirbc")


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


# ------------------------------------------------------------------------------------------------
# input files


def model_file(text: str, flag: str = "", exts: Sequence[str] = ONNX_EXTS + MLIR_EXTS) -> Path:
    """``text`` as the path of a model file Model Explorer reads (an existing file named ``*.onnx``,
    ``*.mlir`` or ``*.mlirbc``, or one of ``exts``); the content is checked when it is loaded.

    Raises:
        UserError: a folder, no such file, or another extension (one line naming ``flag``, the option).
    """
    path = Path(text)
    label = f"{flag} {path}" if flag else str(path)
    kinds = exts[0] if len(exts) == 1 else f"{', '.join(exts[:-1])} or {exts[-1]}"
    if path.is_dir():
        raise UserError(f"{label} is a folder; give a model file ({kinds})")
    if not path.is_file():
        raise UserError(f"{label}: no such file")
    if path.suffix not in exts:
        raise UserError(f"{label}: not a model file Model Explorer reads here (expected {kinds})")
    return path


def load_onnx(path: str | os.PathLike):
    """Load an ONNX file checked with ``onnx.checker`` (full check: strict shape inference).

    A model ONNX Runtime wrote (Lab 01's ``llama_tiny_ort_extended.onnx`` / ``_ort_all.onnx``) holds ORT's own
    ops (``SimplifiedLayerNormalization``, ``com.microsoft`` fusions), which the checker does not know. Such a
    model is taken when its graph is sound (:func:`common.onnx_utils.check_dataflow`) and ONNX Runtime, which
    runs every comparison here, loads it; one line says so.

    Raises:
        UserError: a missing or non-ONNX file (:func:`common.onnx_utils.load_model`), or a model the checker
            refuses (:func:`common.onnx_utils.check_model`: its whole message on one line) and ONNX Runtime
            cannot load either.
    """
    from common.onnx_utils import check_dataflow, check_model, load_model, ort_session

    model = load_model(path)
    try:
        check_model(path)
    except UserError as refused:
        try:
            check_dataflow(model, str(path))
            ort_session(model)
        except UserError:
            raise refused from None
        step(0, "load", f"{Path(path).name}: onnx.checker does not know some of its ops, ONNX Runtime loads it "
                        f"(a model ORT wrote: its own ops); taken")
    return model


def onnx_overlays(model_path: Path, out_dir: Path, *, reference: Path | None, memory: bool, dims: dict,
                  atol: float, seed: int, typed: Mapping[str, int] | None = None) -> tuple[list[tuple[Path, str]], dict]:
    """Compute and write the ONNX overlays of ``model_path`` into ``out_dir``.

    Args:
        reference: an earlier stage: per-node max |diff| (``atol``: the tolerance, absolute, in the
            tensors' units; ``seed``: of the random feeds) and the graph diff.
        typed: the ``--dims`` the user typed (``dims`` adds the defaults): each must size an axis of the models.
        memory: also bytes written / bytes live per node (``dims`` sizes the symbolic axes).

    Returns:
        ``([(overlay file, target model file name)], summary)``; ``summary["graph"]`` and ``summary["labels"]``
        are the adapter's main graph id and ``{node id: label}`` (:func:`debugging.overlays.onnx_node_ids`).

    Raises:
        UserError: not ONNX or refused by the checker, the two stages share a file name or no tensor
            name, take other inputs, or an input axis ``dims`` does not size.
    """
    model = load_onnx(model_path)
    ref = load_onnx(reference) if reference is not None else None
    check_dims_named(typed or {}, *[m for m in (model, ref) if m is not None])  # the --dims typed, not the defaults
    ids = ov.onnx_node_ids(model_path)
    pending: list[tuple[Path, str, dict, str]] = []  # (file, graph id, node data, target): written once all computed
    summary: dict = {"nodes": len(model.graph.node), "graph": ids.graph, "labels": ids.labels}
    stem = model_path.stem
    if memory:
        require_sizes(model, dims, model_path.name)  # before any work: the message --reference gives for an unsized axis
    if reference is not None:
        from lab01_onnx.divergence import make_feeds

        if reference.name == model_path.name:
            raise UserError(f"the two stages share the file name {model_path.name!r}; Model Explorer targets "
                            "overlays by file name, so copy one under another name")
        require_sizes(ref, dims, reference.name)  # every axis of the reference sized: its shapes draw the feeds
        feeds = make_feeds(ref, dims, seed)
        try:
            check_feeds(model, feeds, model_path.name)
        except UserError as exc:
            raise UserError(f"{exc} (drawn for {reference.name}): --reference must be an earlier stage of the same "
                            "model, with the same inputs") from None
        ids_ref = ov.onnx_node_ids(reference)
        over_ref, over_b, counts = ov.graph_diff_overlays(ref, ids_ref, model, ids)
        rows = ov.per_node_max_abs(ref, model, feeds)
        first = next((r for r in rows if r["max_abs"] > atol), None)
        pending += [(out_dir / f"{stem}.divergence.json", ids.graph, ov.divergence_overlay(rows, ids, model, atol),
                     model_path.name),
                    (out_dir / f"{stem}.diff.json", ids.graph, over_b, model_path.name),
                    (out_dir / f"{reference.stem}.diff.json", ids_ref.graph, over_ref, reference.name)]
        summary.update(counts)
        summary["first_divergence"] = (f"{first['node']} ({first['op_type']}) max abs {first['max_abs']:.3g}"
                                       if first else "none")
        step(1, "diff", f"{reference.name} -> {model_path.name}: " +
             ", ".join(f"{v} {k}" for k, v in counts.items()))
        step(2, "divergence", f"{len(rows)} nodes compared; first beyond atol={atol}: {summary['first_divergence']}")
    if memory:
        written, live, mem = ov.memory_overlays(model, ids, dims)
        pending += [(out_dir / f"{stem}.bytes.json", ids.graph, written, model_path.name),
                    (out_dir / f"{stem}.live.json", ids.graph, live, model_path.name)]
        summary["peak_live_bytes"] = mem["lower_bound_bytes"]
        step(3, "memory", f"{mem['tensors']} tensors, peak live {mem['lower_bound_bytes'] / 2**20:.2f} MiB "
                          f"at step {mem['peak_step']}")
    # no file before every overlay is computed: a failure in the last (e.g. the memory planner on a shape it cannot
    # infer) leaves no overlay of this run beside an older one
    files = [(ov.write_overlay(path, graph, data), target) for path, graph, data, target in pending]
    return files, summary


# ------------------------------------------------------------------------------------------------
# overlays given on the command line


def check_overlay_file(path: Path) -> Path:
    """Raise UserError unless ``path`` is Model Explorer node data: a ``GraphNodeData`` object (``{"results":
    {...}, ...}``) or a ``ModelNodeData`` one (``{graph id: GraphNodeData}``; ``model_explorer/node_data_builder.py``)."""
    if path.is_dir():
        raise UserError(f"--overlay {path} is a folder; give a node-data .json file")
    if not path.is_file():
        raise UserError(f"--overlay {path}: no such file")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"--overlay {path}: not JSON ({exc.msg if hasattr(exc, 'msg') else exc})") from exc
    def graph_data(d) -> bool:  # GraphNodeData (model_explorer/node_data_builder.py): a "results" object
        return isinstance(d, dict) and isinstance(d.get("results"), dict)

    if not (graph_data(data) or (isinstance(data, dict) and data and all(graph_data(v) for v in data.values()))):
        raise UserError(f"--overlay {path}: not Model Explorer node data (expected {{\"results\": {{node id: "
                        f"{{\"value\": ...}}}}}} or {{graph id: {{\"results\": ...}}}})")
    return path


def _overlay_arg(text: str) -> tuple[Path, str]:
    """``FILE.json`` or ``FILE.json@MODEL`` -> ``(checked path, target model file name or "")`` (a file
    whose own name holds ``@`` is taken whole)."""
    path, target = (text, "") if "@" not in text or Path(text).is_file() else text.rsplit("@", 1)
    return check_overlay_file(Path(path)), target


def resolve_targets(overlays: Sequence[tuple[Path, str]], served: Mapping[str, Path]) -> list[tuple[Path, str]]:
    """The ``--overlay`` targets as file names of served models: ``served`` maps each name a user may
    type (the file given, the file served, e.g. ``m.mlir`` and ``m.generic.mlir``) to the served file.

    Raises:
        UserError: a target that names no served model.
    """
    out = []
    for path, target in overlays:
        if target and target not in served:
            names = ", ".join(dict.fromkeys(p.name for p in served.values()))
            raise UserError(f"--overlay {path}@{target}: {target} is not a served model (served: {names}); "
                            "name one by its file name, or add it with --add-model")
        out.append((path, served[target].name if target else ""))
    return out


# ------------------------------------------------------------------------------------------------
# serving


def first_overlay(overlays: Sequence[tuple[Path, str]], model: str) -> Path | None:
    """The first of ``overlays`` (``(file, target)``) shown on the model file named ``model`` (target ``""`` or
    ``model``): the one the page opens on and draws; None without one."""
    return next((Path(f) for f, target in overlays if target in ("", model)), None)


def pick_focus(overlays: Sequence[tuple[Path, str]], model: str,
               known: tuple[str, Mapping[str, str]] | None = None) -> ov.Focus:
    """The node the page opens on: :func:`debugging.overlays.rank_first` on :func:`first_overlay` (the divergence
    with ``--reference``, else bytes written with ``--memory`` or for MLIR, else the first ``--overlay``).

    Args:
        known: ``(graph id, {node id: label})`` of the model as the adapter names them; a ranked node outside
            them selects none (a hand-made overlay's ids); :func:`adapter_nodes` gives them. None: not checked,
            no label.

    Returns:
        the :class:`debugging.overlays.Focus`; its ``node`` None when there is no overlay, no value, no node
        beyond the tolerance, or a node not in ``known`` (``why`` says which).
    """
    path = first_overlay(overlays, model)
    if path is None:
        return ov.Focus("", None, None, "no overlay to rank its nodes (--reference, --memory or --overlay gives one)")
    focus = ov.rank_first(json.loads(path.read_text()), path.name)
    if known is not None and focus.node is not None:
        graph, ids = known
        if focus.node not in ids or focus.graph not in ("", graph):
            return ov.Focus(focus.graph, None, None, f"{focus.why} names {focus.node!r}, not a node of graph "
                                                     f"{graph!r}")
        focus = dataclasses.replace(focus, label=ids[focus.node])
    return focus


def adapter_nodes(model: Path) -> tuple[str, dict[str, str]]:
    """``(graph id, {node id: label})`` of the first graph Model Explorer's adapter makes of ``model`` (ONNX:
    :func:`debugging.overlays.onnx_node_ids`; MLIR: :func:`debugging.overlays.mlir_graphs`, ``("", {})`` for a
    module without a function): the ids :func:`pick_focus` checks an overlay's node against.

    Raises:
        UserError: the MLIR adapter cannot read the file (its first diagnostic, ``FILE:LINE:COL``).
    """
    if model.suffix in MLIR_EXTS:
        graphs = ov.mlir_graphs(model)
        return _graph_nodes(graphs[0]) if graphs else ("", {})
    ids = ov.onnx_node_ids(model)
    return ids.graph, ids.labels


def _graph_nodes(graph: Mapping) -> tuple[str, dict[str, str]]:
    return graph["id"], {n["id"]: n["label"] for n in graph["nodes"]}


def model_explorer_config(models: Sequence[Path], overlays: Sequence[tuple[Path, str]], state: dict | None = None):
    """A ``model_explorer.config()`` with the models (in order) and node-data files (targeted by file name),
    :func:`first_overlay` of the first model listed last: Model Explorer 0.1.34 draws the colours of the last
    node-data file it adds (``addRun`` in ``web_app/main-*.js`` selects each new run, in the URL's order).

    With ``state`` (:func:`debugging.explorer_page.ui_state`), its ``to_url_param_value()`` (``config.py``: the
    ``data`` parameter, which Model Explorer's server prints and opens, ``server.py``) also holds ``uiState``.
    """
    from urllib.parse import quote, unquote

    from model_explorer.config import ModelExplorerConfig

    class Config(ModelExplorerConfig):
        def to_url_param_value(self) -> str:
            value = super().to_url_param_value()
            return value if state is None else quote(json.dumps({**json.loads(unquote(value)), "uiState": state}))

    cfg = Config()
    for m in models:
        cfg.add_model_from_path(str(m))
    drawn = first_overlay(overlays, models[0].name) if models else None
    for path, target in sorted(overlays, key=lambda o: Path(o[0]) == drawn):  # stable: the others keep their order
        cfg.add_node_data_from_path(str(path), model_name=target or None)
    return cfg


def page_url(cfg, port: int, host: str = HOST) -> str:
    """The URL that opens Model Explorer with ``cfg``'s models and node data (``/?data=<url-encoded
    JSON>``, as Model Explorer's server prints it)."""
    return f"http://{host}:{port}/?data={cfg.to_url_param_value()}"


def serve(models: Sequence[Path], overlays: Sequence[tuple[Path, str]], port: int, host: str = HOST,
          focus: ov.Focus | None = None) -> None:
    """Serve Model Explorer on ``host:port`` and print the URL that loads ``models`` and ``overlays``
    (blocks until Ctrl-C), opening the first model on ``focus``'s node when it names one
    (:func:`model_explorer_config`'s ``state``: the URL Model Explorer's server prints opens there too).

    Raises:
        UserError: ``port`` is in use (checked first).
    """
    import model_explorer

    if port_in_use(port, host):
        raise UserError(f"port {port} on {host} is in use; pick another with --port N (or --port 0 for a free one)")
    node = focus.node if focus is not None else None
    cfg = model_explorer_config(models, overlays, ui_state(node, focus.graph, models[0].name) if node else None)
    step(5, "serve", f"Model Explorer on {page_url(cfg, port, host)} (Ctrl-C stops)")
    model_explorer.visualize_from_config(cfg, host=host, port=port, extensions=["model_explorer_onnx"],
                                         no_open_in_browser=True)


def spawn(args: Sequence[str], timeout: float = 300.0) -> tuple[subprocess.Popen, str]:
    """Start ``python -m debugging.viewer ARGS`` and wait for the URL line of Model Explorer's server;
    returns ``(process, url)``; the caller ends the process.

    Raises:
        UserError: the server exited first (its last stderr line is the reason), or printed no URL
            within ``timeout`` seconds.
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
        proc.wait(10)
        raise UserError(f"the viewer printed no URL within {timeout:.0f} s") from None


def check(models: Sequence[Path], overlays: Sequence[tuple[Path, str]], port: int, labels: Sequence[str],
          shot: Path, focus: ov.Focus | None = None, node_shot: Path | None = None) -> int:
    """Serve ``models`` and ``overlays`` as they are (a ``--serve-only`` child on ``port``), run
    :func:`browser_check` on the first model (its overlays: target ``""`` or its file name; the whole graph to
    ``shot``, and ``focus``'s node, when it names one, to ``node_shot``), and stop the server; returns 0.

    Raises:
        UserError: the server did not start. GateFailed: the page check failed.
    """
    child = [str(models[0].resolve()), "--serve-only", "--port", str(port)]  # the child runs in the checkout
    child += [a for m in models[1:] for a in ("--add-model", str(m.resolve()))]
    child += [a for f, target in overlays for a in ("--overlay", f"{Path(f).resolve()}@{target}" if target
                                                    else str(Path(f).resolve()))]
    names = [Path(f).name for f, target in overlays if target in ("", models[0].name)]
    proc, url = spawn(child)
    node = focus.node if focus is not None and node_shot is not None else None
    url = with_ui_state(url, ui_state(node, focus.graph, models[0].name) if node is not None else None)
    try:
        browser_check(url, models[0].name, labels, names, shot, node, node_shot)
    finally:
        proc.terminate()
        proc.wait(10)
    others = len(overlays) - len(names)  # the overlays of the other served models (--reference): not on this page
    step(6, "check", f"{models[0].name}: graph (nodes {', '.join(labels) or 'none'}) and its {len(names)} overlay(s) "
                     f"rendered in headless chromium" + (f" ({others} more target the other models)" if others else "")
                     + f"; screenshot {shot}" + (f"; node {node} selected, zoomed: {node_shot}" if node else ""))
    return 0


# ------------------------------------------------------------------------------------------------
# command line


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (module docstring): write the overlays, then serve, check or stop; returns 0.

    Raises:
        UserError: bad input (checked before any work where it can be). GateFailed: ``--check`` failed.
    """
    p = parser(PROG, __doc__, verbose=None)
    p.add_argument("model", help="an .onnx file (any stage) or an .mlir file (e.g. results/lab03/*_tosa.mlir)")
    p.add_argument("--overlay", action="append", default=[], metavar="FILE.json[@MODEL]",
                   help="extra node-data file(s) to show (Model Explorer's format); @MODEL: the file name of "
                        "the served model it applies to (default: the first)")
    p.add_argument("--add-model", action="append", default=[], metavar="FILE",
                   help="serve another .onnx/.mlir model beside it (no overlays computed for it)")
    p.add_argument("--reference", metavar="A.onnx",
                   help="an earlier stage of the same model (same inputs): per-node max |diff| and removed/added "
                        "nodes")
    p.add_argument("--memory", action="store_true", help="bytes written and bytes live per node (Lab 01's planner)")
    add_dims_argument(p, help=f"sizes of dynamic axes, over the defaults {DEFAULT_DIMS}")
    p.add_argument("--atol", type=float, default=1e-4, help="divergence tolerance, >= 0 (default 1e-4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs for --reference, >= 0 (default 0)")
    p.add_argument("--port", type=int, default=0, help="loopback port (default 0: a free one)")
    p.add_argument("--out", help="folder for the overlay files (default results/debugging)")
    p.add_argument("--write-only", action="store_true", help="write the overlays and exit")
    p.add_argument("--check", action="store_true",
                   help="serve, open the page in headless chromium, check graph and overlays render, exit")
    p.add_argument("--serve-only", action="store_true",
                   help="serve MODEL, --add-model and --overlay files as they are: nothing computed or written "
                        "(the server --check starts)")
    args = p.parse_args(argv)
    # everything a user can get wrong is checked before any work
    model = model_file(args.model)
    positive("--atol", args.atol, strict=False)
    positive("--seed", args.seed, strict=False)
    if not 0 <= args.port < 65536:
        raise UserError(f"--port {args.port}: expected 0..65535")
    is_mlir = model.suffix in MLIR_EXTS
    if args.write_only and args.check:
        raise UserError("--write-only and --check exclude each other (--check serves what it writes)")
    if args.serve_only and (args.reference or args.memory or args.write_only or args.check):
        raise UserError("--serve-only serves the files as given: no --reference, --memory, --write-only or --check")
    if is_mlir and (args.reference or args.memory):
        raise UserError("--reference and --memory work on ONNX files; for MLIR the overlay is bytes per op")
    if args.write_only and not is_mlir and not (args.reference or args.memory):
        raise UserError(f"--write-only: nothing to write for {model.name} without --reference or --memory "
                        "(an ONNX model's overlays); drop --write-only to serve it")
    ref = model_file(args.reference, "--reference", ONNX_EXTS) if args.reference else None
    added = [model_file(m, "--add-model") for m in args.add_model]
    extra = [_overlay_arg(f) for f in args.overlay]
    given = [model] + ([ref] if ref is not None else []) + added
    resolve_targets(extra, _names([(m, m) for m in given]))  # each @MODEL names one of them
    if args.port and port_in_use(args.port):
        raise UserError(f"port {args.port} on {HOST} is in use; pick another with --port N (or --port 0)")
    if args.check and find_chromium() is None:
        raise UserError("no chromium for --check: apt-get install chromium (make optional-debs), or set $CHROMIUM")
    port = args.port or free_port()
    if args.serve_only:
        models = [model, *added]
        over = resolve_targets(extra, _names(list(zip(models, models))))
        focus = pick_focus(over, model.name, adapter_nodes(model) if first_overlay(over, model.name) else None)
        step(4, "select", focus.line(model.name))
        serve(models, over, port, focus=focus)
        return 0
    out_path = Path(args.out) if args.out else results_dir("debugging")
    with made_folder(out_path, "--out" if args.out else "the results folder") as out_dir:
        dims = {**parse_dims(DEFAULT_DIMS), **args.dims}
        extra_pairs = []  # the --add-model files, checked (ONNX) or made readable (MLIR) before the overlays' work
        for m in added:
            if m.suffix in MLIR_EXTS:
                extra_pairs.append((m, servable_mlir(m, out_dir)[0]))
            else:
                load_onnx(m)
                extra_pairs.append((m, m))
        labels: list[str] = []
        if is_mlir:
            served, files, graphs = mlir_overlays(model, out_dir)
            over = [(f, "") for f in files]
            labels = ov.mlir_op_labels(graphs[0])
            known = _graph_nodes(graphs[0])
        else:
            served = model
            over, summary = onnx_overlays(model, out_dir, reference=ref, memory=args.memory, dims=dims,
                                          atol=args.atol, seed=args.seed, typed=args.dims)
            known = (summary["graph"], summary["labels"])
            if args.check:
                labels = ov.onnx_op_labels(model)
        pairs = [(model, served)] + ([(ref, ref)] if ref is not None else []) + extra_pairs
        over += resolve_targets(extra, _names(pairs))
        models = [s for _, s in pairs]
        for f, _ in over:
            step(4, "overlay", str(f))
        if args.write_only:
            return 0
        focus = pick_focus(over, served.name, known)
        step(4, "select", focus.line(served.name))
        if args.check:
            return check(models, over, port, check_labels(labels), out_dir / f"{served.stem}.screenshot.png", focus,
                         out_dir / f"{served.stem}.node.screenshot.png")
        serve(models, over, port, focus=focus)
        return 0


def _names(pairs: Sequence[tuple[Path, Path]]) -> dict[str, Path]:
    """``{name a user may type: served file}`` for ``(given, served)`` pairs: the given and the served file
    name (and, for MLIR, ``<stem>.generic.mlir``, the name of its re-print).

    Raises:
        UserError: two served models share a file name (Model Explorer targets node data by file name).
    """
    out: dict[str, Path] = {}
    for given, served in pairs:
        aliases = (f"{given.stem}.generic.mlir",) if given.suffix in MLIR_EXTS else ()
        for name in (given.name, served.name, *aliases):
            if name in out and out[name] != served:
                raise UserError(f"two served models are named {name!r}; Model Explorer targets overlays by file "
                                "name, so copy one under another name")
            out[name] = served
    return out


if __name__ == "__main__":
    from common.course.notimpl import stubs_as_errors

    raise SystemExit(run_cli(stubs_as_errors(main)))
