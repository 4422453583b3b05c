#!/usr/bin/env python3
"""Measure the workspace's round trips against plain-Erlang anchors, in one run.

Prints: eval round trip of `3 + 4` (parse + compile + ship + compile:forms +
run + reply) next to a bare gen_server round trip to the same node (`rex`
answering erlang:node/0); the time until a wrong cookie is reported; the time
from `interrupt` to the interrupted reply of a runaway evaluation.
Run: .venv/bin/python scripts/bench_workspace.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def main() -> None:
    os.environ["BEAMTALK_HOME"] = tempfile.mkdtemp(prefix="bt-bench-")
    from beamtalk_ws.dist import errors
    from beamtalk_ws.dist.node import Node
    from beamtalk_ws.dist.terms import Atom
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import launcher, paths
    from beamtalk_ws.workspace.client import WorkspaceClient

    ws = paths.resolve("bench")
    t0 = time.perf_counter()
    launcher.start(ws, idle_timeout=None)
    print(f"workspace start (cold, compiles erl_support): {(time.perf_counter() - t0) * 1000:.0f} ms")
    try:
        client = await WorkspaceClient.connect(ws)
        repl = Repl(client)
        for _ in range(20):
            await repl.evaluate("3 + 4")
        n = 200
        evals = []
        for _ in range(n):
            t = time.perf_counter()
            out = await repl.evaluate("3 + 4")
            evals.append(time.perf_counter() - t)
            assert out.text == "7"
        rpcs = []
        req = (Atom("call"), Atom("erlang"), Atom("node"), [], Atom("user"))
        for _ in range(n):
            t = time.perf_counter()
            await client.node.call(Atom("rex"), req)
            rpcs.append(time.perf_counter() - t)
        e50, r50 = statistics.median(evals), statistics.median(rpcs)
        print(f"eval `3 + 4` round trip: p50 {e50 * 1000:.2f} ms, p99 {pct(evals, 99) * 1000:.2f} ms")
        print(f"plain gen_server call (rex, erlang:node/0): p50 {r50 * 1000:.2f} ms")
        print(f"ratio eval / bare call: {e50 / r50:.1f}x")

        t = time.perf_counter()
        try:
            await Node.connect(ws.node_name, b"wrong-cookie-wrong-cookie-wrong", timeout=10)
        except errors.AuthenticationFailed as e:
            print(f"wrong cookie reported in {(time.perf_counter() - t) * 1000:.0f} ms: {e}")

        lat = []
        for _ in range(5):
            task = asyncio.ensure_future(repl.evaluate("Erlang timer sleep: 60000"))
            await asyncio.sleep(0.2)
            t = time.perf_counter()
            await client.interrupt()
            out = await task
            lat.append(time.perf_counter() - t)
            assert out.kind == "interrupted"
        print(f"interrupt to interrupted reply: max {max(lat) * 1000:.1f} ms over {len(lat)} runs")
        await client.close()
    finally:
        launcher.kill(ws)


if __name__ == "__main__":
    asyncio.run(main())
