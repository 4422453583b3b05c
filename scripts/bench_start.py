#!/usr/bin/env python3
"""Workspace start-up next to a bare `erl -sname` start, measured in one run.

* cold start: an empty BEAMTALK_HOME, so the Erlang runtime and the standard
  library are compiled first (reported, no target);
* warm start: a second start with both caches filled, until the first
  evaluation (`3 + 4`) has answered — a usable prompt;
* bare start: `erl -sname NAME -noshell -eval 'halt().'`, the cost of a
  distributed BEAM node coming up and going down.

Issue 4 target: warm start <= 3x the bare start.  Rounds alternate between
the two so both see the same machine load; medians are compared.

Run: .venv/bin/python scripts/bench_start.py [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


async def start_and_eval(ws) -> float:
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import launcher
    from beamtalk_ws.workspace.client import WorkspaceClient

    t = time.perf_counter()
    launcher.start(ws, idle_timeout=None)
    client = await WorkspaceClient.connect(ws)
    out = await Repl(client).evaluate("3 + 4")
    elapsed = time.perf_counter() - t
    if not out.ok or out.text != "7":
        raise SystemExit(f"unexpected result: {out.text}")
    await client.close()
    launcher.kill(ws)
    return elapsed


def bare_start(n: int) -> float:
    t = time.perf_counter()
    subprocess.run(["erl", "-sname", f"bt_bench_bare_{os.getpid()}_{n}", "-noshell", "-eval", "halt()."],
                   check=True, stdin=subprocess.DEVNULL, env=dict(os.environ, ERL_EPMD_ADDRESS="127.0.0.1"))
    return time.perf_counter() - t


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    os.environ["BEAMTALK_HOME"] = tempfile.mkdtemp(prefix="bt-bench-start-")
    from beamtalk_ws.workspace import paths

    cold = await start_and_eval(paths.resolve("bench-start-cold"))
    warm, bare = [], []
    for i in range(args.rounds):
        warm.append(await start_and_eval(paths.resolve(f"bench-start-{i}")))
        bare.append(bare_start(i))
    w, b = statistics.median(warm), statistics.median(bare)
    print(f"cold start (compiles runtime + stdlib)  {cold * 1e3:8.0f} ms")
    print(f"warm start to first result (median)    {w * 1e3:8.0f} ms   (min {min(warm) * 1e3:.0f})")
    print(f"bare erl -sname start (median)         {b * 1e3:8.0f} ms   (min {min(bare) * 1e3:.0f})")
    mark = "ok" if w / b <= 3.0 else "MISSED"
    print(f"ratio warm / bare                      {w / b:8.2f}x  <= 3.0x {mark}")


if __name__ == "__main__":
    asyncio.run(main())
