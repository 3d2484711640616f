"""Model Explorer's page checked in headless Chromium: the model loaded, its graph and overlays shown.

:func:`wait_for_graph` is the one definition of "rendered" (the CLI's ``--check`` and ``test_viewer.py`` both use
it): the model's file name, the GRAPH INFO panel with no "Processing graph...", the overlay file names, and a few
of the graph's rarest node labels found with the page's search box; a model row with an Error status fails at
once, with the adapter's message read from its tooltip. :func:`page_check` then expands all layers (a graph that
has any: see :func:`layer_count`) and saves a screenshot once two captures agree.
"""
from __future__ import annotations

import json
import re
import time
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
                   timeout: float = 90.0, poll: float = 0.5) -> str:
    """Wait until Model Explorer's page, open in ``b`` (a :class:`debugging.browser.Browser`), shows the
    graph of the model file ``model`` (its name, the GRAPH INFO panel, no "Processing graph..."), the
    node-data files ``overlays`` (file names) and every node label of ``labels`` (looked up with the
    page's search box, cleared after); returns the page text then.

    Raises:
        GateFailed: the page shows a model with an Error status (its name and the adapter's message),
            or not all of the above within ``timeout`` seconds (what is missing).
    """
    deadline = time.monotonic() + timeout
    want = [model, *overlays]
    text = ""
    while True:
        err = b.evaluate(_ERROR_JS)
        if err:
            raise GateFailed(f"Model Explorer could not load {err.get('model') or model}: "
                             f"Error status ({_error_detail(b, err)})")
        text = b.text()
        if all(w in text for w in want) and _LOADED in text and _PROCESSING not in text:
            break
        if time.monotonic() > deadline:
            missing = [w for w in want if w not in text] + ([] if _LOADED in text else ["the graph"])
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
    screenshot shows the op nodes with their overlay colours; False when the button is not found."""
    return bool(b.evaluate("(() => { const i = [...document.querySelectorAll('mat-icon, .mat-icon, span, button')]"
                           ".find(e => e.textContent.trim() === 'unfold_more_double');"
                           " if (!i) return false; (i.closest('button') || i.closest('[role=button]') || i).click();"
                           " return true; })()"))


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


def browser_check(url: str, model: str, labels: Sequence[str], overlays: Sequence[str], shot: Path,
                  timeout: float = 90.0) -> str:
    """:func:`page_check` in a fresh headless Chromium (ended after); returns the page text.

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
            return page_check(b, url, model, labels, overlays, shot, timeout)
    except (TimeoutError, RuntimeError) as exc:  # the browser stopped answering
        raise GateFailed(f"Model Explorer did not render in headless chromium: {exc}") from exc
