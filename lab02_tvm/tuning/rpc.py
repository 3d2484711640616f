"""Step 9 — tuning over RPC: the scale-out path, on loopback.

With a farm of boards, MetaSchedule builds candidates on the host and measures them on the
boards: each board runs ``python -m tvm.exec.rpc_server --tracker HOST:PORT --key KEY``, an RPC
*tracker* (``python -m tvm.exec.rpc_tracker``) queues the boards per key, and MetaSchedule's
``RPCRunner`` asks the tracker for a free board, uploads the built module, times it there and
sends the times back (TVM docs, "Cross Compilation and RPC"; ``tvm.rpc.tracker``).

:func:`tune_over_rpc` runs exactly that with one tracker and ``n_servers`` RPC servers, all on
127.0.0.1 (an RPC server executes whatever it is sent: never bind it to a public address). The
tracker and the servers are TVM's own ``Tracker``/``Server`` classes (each a child process);
they are terminated in a ``finally`` block and checked dead before the function returns. The
time is bounded by the trial budget, the per-session timeout and ``timeout_s``.

Needs the ``tornado`` package (TVM's ``rpc`` extra) for the tracker.
"""
from __future__ import annotations

import math
import os
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import tvm

from common.budget import pick
from common.errors import UserError, require

from .database import best_ms_of, open_database, task_records
from .harness import evaluator_config
from .tasks import as_target, extract_tasks
from .tune import tune_tasks_plan

LOOPBACK = "127.0.0.1"
TRACKER_PORTS = (9190, 9290)
SERVER_PORTS = (9300, 9400)


@contextmanager
def local_cluster(n_servers: int = 2, key: str = "lab02-loopback",
                  wait_s: float = 60.0) -> Iterator[dict]:
    """An RPC tracker and ``n_servers`` RPC servers on 127.0.0.1, torn down on exit.

    Yields:
        ``{"host", "port", "key", "servers": [ports], "tracker": Tracker, "server_objs": [...]}``
        once the tracker reports ``n_servers`` free servers under ``key``.
    Raises:
        MissingDependency: ``tornado`` is not installed (the tracker needs it).
        UserError: ``n_servers < 1`` or the servers did not register within ``wait_s`` seconds.
    """
    if n_servers < 1:
        raise UserError(f"n_servers must be >= 1 (got {n_servers})")
    require("tornado", "tornado", why="TVM's RPC tracker (lab02 step 9)")
    from tvm.rpc.server import Server
    from tvm.rpc.tracker import Tracker

    tracker, servers = None, []
    info: dict = {}
    try:
        tracker = Tracker(host=LOOPBACK, port=TRACKER_PORTS[0], port_end=TRACKER_PORTS[1],
                          silent=True)
        for _ in range(n_servers):
            servers.append(Server(host=LOOPBACK, port=SERVER_PORTS[0], port_end=SERVER_PORTS[1],
                                  tracker_addr=(LOOPBACK, tracker.port), key=key, silent=True))
        deadline = time.monotonic() + wait_s
        free = 0
        while time.monotonic() < deadline:
            free = registered_servers(LOOPBACK, tracker.port, key)
            if free >= n_servers:
                break
            time.sleep(0.5)
        if free < n_servers:
            raise UserError(f"only {free} of {n_servers} RPC servers registered with the tracker "
                            f"on {LOOPBACK}:{tracker.port} within {wait_s:.0f} s")
        info = {"host": LOOPBACK, "port": tracker.port, "key": key,
                "servers": [s.port for s in servers], "tracker": tracker, "server_objs": servers}
        yield info
    finally:
        _terminate(servers, tracker)
        info["cleaned_up"] = _all_dead(servers, tracker)


def registered_servers(host: str, port: int, key: str) -> int:
    """Free servers the tracker at ``host:port`` holds under ``key`` (its queue summary)."""
    from tvm import rpc

    summary = rpc.connect_tracker(host, port).summary()
    return int(summary.get("queue_info", {}).get(key, {}).get("free", 0))


def _terminate(servers: list, tracker: Any) -> None:
    for s in servers:
        try:
            s.terminate()
        except Exception:  # noqa: BLE001 - best effort; checked by _all_dead
            pass
    if tracker is not None:
        try:
            tracker.terminate()
        except Exception:  # noqa: BLE001
            pass


def _all_dead(servers: list, tracker: Any) -> bool:
    """True when every server and the tracker process has exited (``proc`` is None or dead)."""
    procs = [getattr(s, "proc", None) for s in servers] + [getattr(tracker, "proc", None)]
    return all(p is None or not p.is_alive() for p in procs)


def tune_over_rpc(mod: tvm.IRModule, target: Any, work_dir: str | os.PathLike | None = None, *,
                  trials: int | None = None, n_servers: int = 2, top_k: int = 1,
                  timeout_s: float = 300.0, progress: bool = True, cache_flush: bool = True) -> dict:
    """MetaSchedule tuning with candidates measured through an RPC tracker on loopback.

    The ``top_k`` hottest tasks of ``mod`` (by weighted FLOPs) get ``trials`` trials each, built
    locally (:class:`lab02_tvm.tuning.harness.PooledBuilder`) and measured by an ``RPCRunner`` that
    takes servers from the tracker, ``n_servers`` candidates in flight.

    Args:
        mod: unfused Relax IRModule with parameters bound.
        target: the target the servers run (here the host itself).
        work_dir: database + logs directory (a temporary one when ``None``; use a different one
            from the local tuning, or the RPC run reuses its records and measures nothing).
        trials: trials per task (default 16, 4 with ``CI=true``).
        n_servers: RPC servers to start (2 by default).
        top_k: hottest tasks to tune.
        timeout_s: wall-clock cap on tuning (checked before each task, which gets the trials that fit) and RPC session timeout.
        progress: tqdm bar over trials.
        cache_flush: time each candidate cold on its server, as the lab's new databases are
            (:func:`lab02_tvm.tuning.harness.evaluator_config`); ``False``: warm.
    Returns:
        ``{"servers", "servers_registered", "tracker_port", "tasks", "trials", "measured",
        "best_ms", "build_errors", "run_errors", "seconds", "seconds_per_trial", "cleaned_up",
        "work_dir", "run_ms"}``; ``run_ms`` is the mean RPC-measured time (ms) of every candidate in
        the database (``inf`` for one that failed), ``measured`` counts the finite ones,
        ``cleaned_up`` says the tracker and server processes have exited.
    Raises:
        MissingDependency: no ``tornado``.
        UserError: servers do not register, bad arguments.
    """
    from tvm.s_tir import meta_schedule as ms

    target = as_target(target)
    trials = pick(16, 4) if trials is None else trials
    if trials < 1 or top_k < 1:
        raise UserError("tune_over_rpc needs trials >= 1 and top_k >= 1")
    work_dir = Path(work_dir or tempfile.mkdtemp(prefix="lab02_rpc_"))
    infos = extract_tasks(mod, target)[:top_k]
    result: dict = {"servers": n_servers, "work_dir": str(work_dir),
                    "tasks": [ti.name for ti in infos]}
    with local_cluster(n_servers) as cluster:
        result["tracker_port"] = cluster["port"]
        result["servers_registered"] = registered_servers(cluster["host"], cluster["port"],
                                                          cluster["key"])
        runner = ms.runner.RPCRunner(
            rpc_config=ms.runner.RPCConfig(tracker_host=cluster["host"],
                                           tracker_port=cluster["port"],
                                           tracker_key=cluster["key"],
                                           session_timeout_sec=int(min(timeout_s, 120))),
            evaluator_config=evaluator_config(cache_flush), max_workers=n_servers)
        try:
            stats = tune_tasks_plan(infos, {ti.name: trials for ti in infos}, target,
                                           work_dir, tune_minutes=timeout_s / 60, runner=runner,
                                           progress=progress, desc=f"tune over RPC x{n_servers}")
        finally:
            runner.pool.shutdown()
    result["cleaned_up"] = cluster.get("cleaned_up", False)
    db = open_database(work_dir)
    run_ms = [best_ms_of([r]) or float("inf") for ti in infos for r in task_records(db, ti.task)]
    result.update({
        "trials": stats["trials"], "measured": sum(1 for t in run_ms if t != float("inf")), "run_ms": run_ms,
        "best_ms": stats["best_ms"],
        "build_errors": stats["build_errors"], "run_errors": stats["run_errors"],
        "seconds": round(stats["seconds"], 2),
        "seconds_per_trial": round(stats["seconds"] / stats["trials"], 2) if stats["trials"] else None,
    })
    return result


def rpc_failure(res: dict) -> str | None:
    """The first thing wrong with an RPC tuning result, or ``None``: every trial must have come back
    over RPC with a finite positive latency, and the tracker and servers must be gone."""
    times = res.get("run_ms", [])
    if res["servers_registered"] < res["servers"]:
        return f"{res['servers_registered']} of {res['servers']} RPC servers registered"
    if res["trials"] < 1 or res["measured"] != res["trials"]:
        return f"{res['measured']} of {res['trials']} trials came back measured over RPC"
    if len(times) != res["trials"] or not all(math.isfinite(t) and t > 0 for t in times):
        return f"latencies not all finite and positive: {times[:8]}"
    if not res["cleaned_up"]:
        return "tracker/server processes still alive"
    return None
