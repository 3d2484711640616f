"""A headless Chromium driven over the DevTools protocol: open a page, wait for text, read the DOM.

No browser is downloaded: this uses the system's Chromium (Debian's ``chromium`` package,
``/usr/bin/chromium``; ``$CHROMIUM`` overrides). It runs headless with a fresh profile and
without network side traffic (``--no-sandbox`` because CI runs as root, ``--disable-gpu``,
``--no-first-run``, ``--disable-background-networking``, ``--disable-component-update``,
``--disable-sync``), listens on a loopback DevTools port chosen by Chromium itself
(``--remote-debugging-port=0``; the ``DevTools listening on ws://...`` line on stderr gives it),
and is driven through the page target's websocket (Chrome DevTools Protocol: ``Page.navigate``,
``Runtime.evaluate``, ``Page.captureScreenshot``, ``Input.dispatchMouseEvent``;
https://chromedevtools.github.io/devtools-protocol/)
with tornado's websocket client.
"""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from common.results import atomic_write

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1400,900")


def find_chromium() -> str | None:
    """Path of a Chromium binary (``$CHROMIUM`` when it is an executable file, then ``chromium``,
    ``chromium-browser`` on PATH), or None."""
    env = os.environ.get("CHROMIUM")
    if env and Path(env).is_file() and os.access(env, os.X_OK):
        return env
    return next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None)


class Browser:
    """One headless Chromium with one page; a context manager (the process is ended on exit).

    Raises:
        RuntimeError: Chromium did not print its DevTools address within ``start_timeout`` seconds.
    """

    def __init__(self, binary: str | None = None, start_timeout: float = 60.0):
        self.binary = binary or find_chromium()
        if self.binary is None:
            raise RuntimeError("no chromium on PATH (apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="mlc-chromium-")
        # Chromium's own temporary files (with --disable-dev-shm-usage, its shared memory) go inside the profile,
        # and its helper processes share one session, so that close() ends them all and leaves nothing in /tmp
        try:
            self.proc = subprocess.Popen([self.binary, *FLAGS, f"--user-data-dir={self.profile}",
                                          "--remote-debugging-port=0", "about:blank"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                         env={**os.environ, "TMPDIR": self.profile}, start_new_session=True)
        except OSError as exc:  # not executable, not a program
            shutil.rmtree(self.profile, ignore_errors=True)
            raise RuntimeError(f"chromium {self.binary} did not start ({exc.strerror or exc})") from None
        deadline = time.monotonic() + start_timeout
        self.port = None
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                break
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            self.close()
            raise RuntimeError("chromium did not start (no DevTools address on stderr)")
        threading_drain(self.proc.stderr)
        self._ws = None
        self._id = 0

    # -- DevTools protocol ----------------------------------------------------------------------
    def _page_ws_url(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=10) as r:
            targets = json.load(r)
        return next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")

    def _run(self, coro, timeout: float):
        from tornado.ioloop import IOLoop

        return IOLoop.current().run_sync(coro, timeout=timeout)

    def call(self, method: str, timeout: float = 120.0, **params) -> dict:
        """Send one CDP command to the page and return its ``result`` (RuntimeError on a CDP error)."""
        from tornado.websocket import websocket_connect

        async def go():
            if self._ws is None:
                self._ws = await websocket_connect(self._page_ws_url(), max_message_size=1 << 28)
            self._id += 1
            self._ws.write_message(json.dumps({"id": self._id, "method": method, "params": params}))
            while True:
                raw = await self._ws.read_message()
                if raw is None:
                    raise RuntimeError("DevTools connection closed")
                msg = json.loads(raw)
                if msg.get("id") == self._id:
                    if "error" in msg:
                        raise RuntimeError(f"{method}: {msg['error']}")
                    return msg.get("result", {})

        return self._run(go, timeout)

    def open(self, url: str) -> None:
        """Navigate the page to ``url``."""
        self.call("Page.enable")
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str):
        """Value of a JavaScript expression in the page (``returnByValue``)."""
        res = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return res.get("result", {}).get("value")

    def text(self) -> str:
        """The page's visible text (``document.body.innerText``; ``""`` before the body exists)."""
        return self.evaluate("document.body ? document.body.innerText : ''") or ""

    def wait_for_text(self, needles: list[str], timeout: float = 60.0, poll: float = 0.5) -> str:
        """Poll the page text until every string in ``needles`` appears; returns the text.

        Raises:
            TimeoutError: with the missing strings and the text's first 300 characters.
        """
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.text()
            if all(n in text for n in needles):
                return text
            time.sleep(poll)
        missing = [n for n in needles if n not in text]
        raise TimeoutError(f"page never showed {missing}; text starts {text[:300]!r}")

    def hover(self, x: float, y: float) -> None:
        """Move the mouse to viewport point ``(x, y)`` (CSS pixels): what shows a tooltip."""
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)

    def png(self) -> bytes:
        """A PNG of the viewport (bytes)."""
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def screenshot(self, path: str | os.PathLike, *, settle: float = 0.0, interval: float = 0.5) -> Path:
        """Save a PNG of the viewport to ``path`` (atomically); returns the path.

        With ``settle`` > 0 (seconds), wait until two captures ``interval`` seconds apart are the same
        (the page has stopped drawing: a graph laid out after a click), at most ``settle`` seconds, and
        save the last capture either way.
        """
        data = self.png()
        deadline = time.monotonic() + settle
        while time.monotonic() < deadline:
            time.sleep(interval)
            last, data = data, self.png()
            if data == last:
                break
        return atomic_write(Path(path), data)

    def close(self) -> None:
        """End Chromium and its helper processes (its session: SIGTERM, SIGKILL after 10 s) and delete the profile."""
        _signal_session(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        _signal_session(self.proc.pid, signal.SIGKILL)  # helpers that outlived the browser process
        self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _signal_session(pid: int, sig: int) -> None:
    """Send ``sig`` to the process group ``pid`` leads (``start_new_session``); nothing if it is gone."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def threading_drain(stream) -> None:
    """Read ``stream`` to its end in a daemon thread (so Chromium never blocks on a full stderr pipe)."""
    import threading

    threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()
