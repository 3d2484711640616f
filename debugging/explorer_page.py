"""Model Explorer's page checked in headless Chromium: the model loaded, its graph and overlays shown.

:func:`wait_for_graph` is the one definition of "rendered" (the CLI's ``--check`` and ``test_viewer.py`` both use
it): the model's file name, the GRAPH INFO panel with no "Processing graph...", the overlay file names, and a few
of the graph's rarest node labels found with the page's search box; a model row with an Error status fails at
once, with the adapter's message read from its tooltip. :func:`page_check` then expands all layers (a graph that
has any: see :func:`layer_count`) and saves a screenshot once two captures agree.

**Opening on one node** (:func:`ui_state`, :func:`with_ui_state`, :func:`node_check`). Model Explorer 0.1.34 reads
a ``uiState`` from its URL's ``data`` JSON (``web_app/main-*.js``: the URL service's ``decodeUrl`` takes
``data.uiState``, the visualizer's ``initInternal`` opens the pane state's ``selectedGraphId`` of the collection
``selectedCollectionLabel``, and once the graph is processed the renderer adds the selected node's layer
(``nsParentId``) to ``deepestExpandedGroupNodeIds``, lays out with those layers expanded and calls
``zoomFitOnNode``, whose ``zoomFit`` caps the zoom at 45 screen pixels per 30 layout units: an op box about 38 px
high, its label and its neighbours readable around it). The side panel then shows NODE INFO (``id`` = the node)
instead of GRAPH INFO (:func:`selected_node`). The page draws the colours of one node-data file, the last one added
(``addRun`` selects each new run; they are added in the URL's order): the viewer lists the overlay it ranks by
last.
"""
from __future__ import annotations

import json
import re
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

from common.errors import GateFailed, UserError

from .browser import Browser, find_chromium

#: at most this many node labels (the rarest of the graph) are looked up on the page by ``--check``
CHECK_LABELS = 3

# Model Explorer 0.1.x's page: "Processing graph..." while the adapter converts; the model's row on the
# model-selection page gets an ``error`` status label, whose info icon shows the adapter's exception on hover
_PROCESSING = "Processing graph..."
_LOADED = "op node count"  # the GRAPH INFO panel, once a graph is shown
_NODE_INFO = "NODE INFO"  # the side panel's title while a node is selected (then GRAPH INFO is not shown)
MOUSE_AWAY = (5, 300)  # CSS pixels: the graph pane's left edge, where no node or button is drawn
_LAYERS = re.compile(r"layer count\s+(\d+)")  # GRAPH INFO's row: "layer count", a tab, the count
_ERROR_JS = """(() => {
  const e = document.querySelector('.model-status-label-container.error');
  if (!e) return null;
  const row = e.closest('tr'), info = row ? row.querySelector('.error-info-container') : null;
  const r = info ? info.getBoundingClientRect() : null;
  return {model: row ? row.querySelector('td').innerText.trim() : '',
          x: r ? r.x + r.width / 2 : null, y: r ? r.y + r.height / 2 : null};
})()"""
_SEARCH_JS = """((q) => {
  const i = document.querySelector('input[placeholder^="Search nodes"]');
  if (!i) return false;
  i.focus(); i.value = q; i.dispatchEvent(new Event('input', {bubbles: true}));
  if (!q) i.blur();
  return true;
})(%s)"""
_RESULTS_JS = "(() => { const e = document.querySelector('.search-results-container'); return e ? e.innerText : null; })()"


def ui_state(node: str, graph: str, collection: str) -> dict:
    """Model Explorer's URL ``uiState`` (module docstring) opening one pane on the graph id ``graph`` of the model
    file ``collection`` (a file name; ``""``: any) with the node id ``node`` selected, its layer expanded and the
    view zoomed on it. A ``graph`` not found there opens the first graph (``initInternal``)."""
    return {"paneStates": [{"deepestExpandedGroupNodeIds": [], "selectedNodeId": node, "selectedGraphId": graph,
                            "selectedCollectionLabel": collection, "widthFraction": 1}]}


def with_ui_state(url: str, state: dict | None) -> str:
    """``url``, a Model Explorer page URL (``http://HOST:PORT/?data=<url-encoded JSON>``), with ``state`` as the
    ``data`` JSON's ``uiState`` (:func:`ui_state`); ``None`` removes it (the page opens on the whole graph).

    Raises:
        ValueError: ``url`` has a ``data`` parameter that is not a JSON object.
    """
    parts = urllib.parse.urlsplit(url)
    query = []
    for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
        if key == "data":
            data = json.loads(value)
            if not isinstance(data, dict):
                raise ValueError(f"the data parameter of {url[:80]!r} is not a JSON object")
            data.pop("uiState", None)
            value = json.dumps(data if state is None else {**data, "uiState": state})
        query.append(f"{key}={urllib.parse.quote(value)}")
    return urllib.parse.urlunsplit(parts._replace(query="&".join(query)))


def selected_node(text: str) -> str | None:
    """The id of the node the page text ``text`` shows selected (the NODE INFO panel's ``id`` row), or None
    (no NODE INFO panel: nothing selected)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if _NODE_INFO not in lines:
        return None
    rest = lines[lines.index(_NODE_INFO) + 1:]
    return rest[rest.index("id") + 1] if "id" in rest[:-1] else None


def check_labels(labels: Sequence[str], k: int = CHECK_LABELS) -> list[str]:
    """The ``k`` rarest distinct labels of ``labels`` (a graph's op labels), in their order in ``labels``:
    what ``--check`` looks up with the page's search (few results each, whatever the graph's size)."""
    count: dict[str, int] = {}
    for lab in labels:
        count[lab] = count.get(lab, 0) + 1
    order = list(count)
    rare = sorted(order, key=lambda lab: (count[lab], order.index(lab)))[:k]
    return [lab for lab in order if lab in rare]


def _error_detail(b, where: dict) -> str:
    """The text Model Explorer shows when the mouse is on a model's error icon (the adapter's exception)."""
    before = set(b.text().splitlines())
    if where.get("x") is None:
        return "no detail on the page"
    b.hover(where["x"], where["y"])
    time.sleep(1.0)
    new = [ln.strip() for ln in b.text().splitlines() if ln.strip() and ln not in before]
    b.hover(0, 0)
    return " ".join(new) or "no detail on the page"


def wait_for_graph(b, model: str, labels: Sequence[str] = (), overlays: Sequence[str] = (),
                   timeout: float = 90.0, poll: float = 0.5, node: str | None = None) -> str:
    """Wait until Model Explorer's page, open in ``b`` (a :class:`debugging.browser.Browser`), shows the
    graph of the model file ``model`` (its name, the GRAPH INFO panel, no "Processing graph..."), the
    node-data files ``overlays`` (file names) and every node label of ``labels`` (looked up with the
    page's search box, cleared after); returns the page text then. With ``node`` (a node id), the NODE INFO
    panel naming ``node`` (:func:`selected_node`) stands for GRAPH INFO: the page opened on that node.

    Raises:
        GateFailed: the page shows a model with an Error status (its name and the adapter's message),
            or not all of the above within ``timeout`` seconds (what is missing).
    """
    deadline = time.monotonic() + timeout
    want = [model, *overlays]
    text = ""

    def shown(text: str) -> bool:
        return selected_node(text) == node if node is not None else _LOADED in text

    while True:
        err = b.evaluate(_ERROR_JS)
        if err:
            raise GateFailed(f"Model Explorer could not load {err.get('model') or model}: "
                             f"Error status ({_error_detail(b, err)})")
        text = b.text()
        if all(w in text for w in want) and shown(text) and _PROCESSING not in text:
            break
        if time.monotonic() > deadline:
            graph = (f"node {node!r} selected (NODE INFO shows {selected_node(text)!r})" if node is not None
                     else "the graph")
            missing = [w for w in want if w not in text] + ([] if shown(text) else [graph])
            state = " (still processing the graph)" if _PROCESSING in text else ""
            raise GateFailed(f"Model Explorer never showed {', '.join(map(repr, missing)) or 'the graph'} "
                             f"within {timeout:.0f} s{state}; the page starts {' '.join(text.split())[:200]!r}")
        time.sleep(poll)
    if labels:
        regex = "^(?:" + "|".join(re.escape(lab) for lab in labels) + ")$"
        if not b.evaluate(_SEARCH_JS % json.dumps(regex)):
            raise GateFailed("Model Explorer's page has no node search box: cannot look up the graph's nodes")
        found: list[str] = []
        while True:
            found = [ln.strip() for ln in (b.evaluate(_RESULTS_JS) or "").splitlines()]
            if all(lab in found for lab in labels):
                break
            if time.monotonic() > deadline:
                raise GateFailed(f"Model Explorer's graph of {model} has no node labelled "
                                 f"{', '.join(repr(x) for x in labels if x not in found)} (searched {regex!r})")
            time.sleep(poll)
        b.evaluate(_SEARCH_JS % json.dumps(""))
    return text


def layer_count(text: str) -> int | None:
    """The graph's number of layers (group nodes) as the GRAPH INFO panel in the page text ``text`` shows
    it (``layer count  0`` for an MLIR function, whose ops all sit at the root); None without that row."""
    m = _LAYERS.search(text)
    return int(m.group(1)) if m else None


def expand_all_layers(b) -> bool:
    """Click Model Explorer's "expand all layers" button (material icon ``unfold_more_double``) so a
    screenshot shows the op nodes with their overlay colours; False when the button is not found.

    The click leaves the button's help bubble ("Expand all layers in the graph") over the graph; the mouse is
    moved onto the button and off it again, to :data:`MOUSE_AWAY`, which closes the bubble as a user's would."""
    at = b.evaluate("(() => { const i = [...document.querySelectorAll('mat-icon, .mat-icon, span, button')]"
                    ".find(e => e.textContent.trim() === 'unfold_more_double');"
                    " if (!i) return null; const e = i.closest('button') || i.closest('[role=button]') || i;"
                    " e.click(); const r = e.getBoundingClientRect();"
                    " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()")
    if not at:
        return False
    b.hover(at["x"], at["y"])
    time.sleep(0.3)
    b.hover(*MOUSE_AWAY)
    return True


def page_check(b, url: str, model: str, labels: Sequence[str], overlays: Sequence[str], shot: Path,
               timeout: float = 90.0) -> str:
    """Open ``url`` in ``b``, :func:`wait_for_graph`, expand all layers, and save a screenshot (PNG,
    the 1400x900 viewport) to ``shot`` once the drawing has settled; returns the page text.

    A graph without layers (GRAPH INFO's ``layer count`` 0: an MLIR function) is not expanded: it has nothing
    to expand, and there Model Explorer 0.1.x's "expand all layers" clears the size of every root node and
    lays nothing out again (``expandAllGroups`` in its worker), so the op boxes vanish and only the edges and
    labels stay drawn (a label white for the overlay's top values, on no box, is not seen at all).

    Raises:
        GateFailed: as :func:`wait_for_graph`, or no "expand all layers" button on a graph with layers.
    """
    b.open(url)
    text = wait_for_graph(b, model, labels, overlays, timeout=timeout)
    if layer_count(text) != 0 and not expand_all_layers(b):
        raise GateFailed("Model Explorer's page has no 'expand all layers' button: the graph is not shown")
    b.screenshot(shot, settle=20.0)
    return text


def node_check(b, url: str, model: str, node: str, overlays: Sequence[str], shot: Path, timeout: float = 90.0) -> str:
    """Open ``url`` (with a :func:`ui_state` selecting the node id ``node``) in ``b``, wait until the page shows
    ``model``, the ``overlays`` and NODE INFO naming ``node`` (:func:`wait_for_graph`), and save a screenshot (PNG,
    the viewport) to ``shot`` once the drawing has settled: the node zoomed in, its layer expanded; returns the
    page text.

    Raises:
        GateFailed: as :func:`wait_for_graph` (the page did not select ``node`` within ``timeout`` seconds).
    """
    b.open(url)
    text = wait_for_graph(b, model, (), overlays, timeout=timeout, node=node)
    b.screenshot(shot, settle=20.0)
    return text


def browser_check(url: str, model: str, labels: Sequence[str], overlays: Sequence[str], shot: Path,
                  node: str | None = None, node_shot: Path | None = None, timeout: float = 90.0) -> str:
    """In a fresh headless Chromium (ended after): :func:`page_check` on ``url`` without its ``uiState`` (the
    whole graph, ``shot``), then, with ``node``, :func:`node_check` on ``url`` as it is (the page a user opens,
    selecting ``node``; ``node_shot``); returns the page text of the last.

    Raises:
        UserError: no chromium, or it does not start. GateFailed: the page check failed, or the browser stopped
            answering.
    """
    if find_chromium() is None:
        raise UserError("no chromium for --check: apt-get install chromium (make optional-debs), or set $CHROMIUM")
    try:
        b = Browser()
    except RuntimeError as exc:  # the machine's browser, not the page: exit 2, like no chromium at all
        raise UserError(f"{exc}: check $CHROMIUM or apt-get install chromium (make optional-debs)") from None
    try:
        with b:
            text = page_check(b, with_ui_state(url, None), model, labels, overlays, shot, timeout)
            if node is not None and node_shot is not None:
                text = node_check(b, url, model, node, overlays, node_shot, timeout)
            return text
    except (TimeoutError, RuntimeError) as exc:  # the browser stopped answering
        raise GateFailed(f"Model Explorer did not render in headless chromium: {exc}") from exc
