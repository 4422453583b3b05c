#!/usr/bin/env python3
"""What restoring a workspace adds to a warm start (issue 14).

One workspace is filled with N bindings (a tenth of them blocks closing over
a variable, each in an input module of its own) and C classes typed at the
REPL, then stopped.  Rounds alternate between two starts, until the first
evaluation has answered:

* restoring: the filled workspace (its store is read back);
* empty: a workspace of the same kind with no store.

The difference of the medians is what restoring adds (target: < 1 s for
1 000 bindings and 100 classes).  Every round checks the restored state.

Run: .venv/bin/python scripts/bench_restore.py [--bindings 1000] [--classes 100] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


async def fill(ws, n_bindings: int, n_classes: int) -> None:
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    c = await WorkspaceClient.connect(ws, session="bench")
    repl = Repl(c)
    try:
        for i in range(n_classes):
            await repl.evaluate(f"Value subclass: Bench{i}\n  state: k = {i}\n  twice => self k * 2")
        blocks = n_bindings // 10
        for i in range(blocks):
            await repl.evaluate(f"b{i} := [:x | x + {i}]")
        plain = n_bindings - blocks
        chunk = 100
        for start in range(0, plain, chunk):
            code = ". ".join(f"v{i} := #({i}, \"s{i}\")" for i in range(start, min(plain, start + chunk)))
            await repl.evaluate(code)
    finally:
        await c.close()


async def first_eval(ws, check: bool, n_bindings: int, n_classes: int) -> None:
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    c = await WorkspaceClient.connect(ws, session="bench")
    try:
        repl = Repl(c)
        out = (await repl.evaluate("3 + 4")).lines()
        assert out == ["7"], out
        if check:
            assert (await repl.evaluate("b3 value: 4")).lines() == ["7"]
            assert (await repl.evaluate(f"Bench{n_classes - 1} new twice")).lines() == [str(2 * (n_classes - 1))]
            assert len(c.bound_names) >= n_bindings, len(c.bound_names)
    finally:
        await c.close()


def timed_start(ws, check, nb, nc) -> float:
    from beamtalk_ws.workspace import launcher

    t0 = time.perf_counter()
    launcher.start(ws, idle_timeout=None)
    asyncio.run(first_eval(ws, check, nb, nc))
    dt = time.perf_counter() - t0
    launcher.kill(ws)
    launcher.wait_stopped(ws)
    return dt


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindings", type=int, default=1000)
    ap.add_argument("--classes", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    os.environ["BEAMTALK_HOME"] = tempfile.mkdtemp(prefix="bt-bench-restore-")
    from beamtalk_ws.workspace import launcher, paths

    full = paths.resolve("bench-full")
    empty = paths.resolve("bench-empty")
    launcher.start(full, idle_timeout=None)
    asyncio.run(fill(full, args.bindings, args.classes))
    launcher.kill(full)
    launcher.wait_stopped(full)
    timed_start(empty, False, 0, 0)          # warm the caches
    restoring, plain = [], []
    for _ in range(args.rounds):
        restoring.append(timed_start(full, True, args.bindings, args.classes))
        launcher.reset_store(empty)
        plain.append(timed_start(empty, False, 0, 0))
    info = launcher.read_node_info(full)
    mr, mp = statistics.median(restoring), statistics.median(plain)
    print(f"store: {launcher.store_size(full) / 1024:.0f} KB; node said: {info.restored if info else '?'}")
    print(f"warm start, empty workspace:     median {mp * 1000:.0f} ms  {[round(x * 1000) for x in plain]}")
    print(f"warm start, restoring workspace: median {mr * 1000:.0f} ms  {[round(x * 1000) for x in restoring]}")
    print(f"restore adds {(mr - mp) * 1000:.0f} ms ({args.bindings} bindings, {args.classes} classes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
