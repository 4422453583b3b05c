"""Save -> live: how long after a file is saved does the new code answer?

A 20-file package is loaded into a fresh workspace, 1000 actors of one of
its classes are spawned, and the package's src/ is watched by the node
(`Workspace watch:`: OS change notifications, the node's compiler peer).
Then, 30 times: rewrite that class's file so `version` answers a new
number, and poll one of the actors until it does.  Next to it, in the same
run: the time to compile and load the same module directly from the REPL
client (`:load` of the one file), the floor a reload cannot beat.

    .venv/bin/python scripts/bench_reload.py [--edits 30] [--actors 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PINGER = """Actor subclass: Pinger
  state: hits = 0
  version => {v}
  hit => self.hits := self.hits + 1. self.hits
"""

OTHER = """Object subclass: Other{i:02d}
  state: x = {i}
  x => self.x
  twice => self.x * 2
"""


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * len(xs) + 0.5)) - 1))]


async def main(edits: int, actors: int) -> None:
    os.environ["BEAMTALK_HOME"] = tempfile.mkdtemp(prefix="bt-bench-reload-")
    from beamtalk_ws.compiler import compile_input
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import launcher, paths
    from beamtalk_ws.workspace.client import WorkspaceClient

    root = Path(tempfile.mkdtemp(prefix="bench-pkg-"))
    src = root / "src"
    src.mkdir()
    for i in range(19):
        (src / f"other{i:02d}.bt").write_text(OTHER.format(i=i))
    target = src / "pinger.bt"
    target.write_text(PINGER.format(v=0))

    ws = paths.resolve("bench-reload-" + uuid.uuid4().hex[:6])
    launcher.start(ws, idle_timeout=None)
    try:
        client = await WorkspaceClient.connect(ws)
        repl = Repl(client)

        async def ok(code: str) -> str:
            out = await repl.evaluate(code)
            if not out.ok:
                raise SystemExit(f"{code!r} failed: {out.text}")
            return out.text

        await ok(f'Workspace load: "{src}"')
        await ok(f"ps := #(). {actors} timesRepeat: [ps := ps add: Pinger spawn]. ps size")
        await ok("p := ps last. ps do: [:a | a hit]. p hit")
        await ok(f'Workspace watch: "{src}"')
        await asyncio.sleep(0.5)

        # The poll runs on the node (every millisecond, no compile per poll):
        # the input is compiled before the save and sent right after it.
        save_to_live = []
        for k in range(1, edits + 1):
            probe = compile_input(f"[p version = {k}] whileFalse: [Erlang timer sleep: 1]. p version",
                                  frozenset(client.bound_names))
            target.write_text(PINGER.format(v=k))
            t0 = time.perf_counter()
            reply = await client.eval(probe.forms, unique=probe.unique, timeout_ms=10000)
            if not (reply.ok and reply.text == str(k)):
                raise SystemExit(f"edit {k}: the new code did not answer within 10 s ({reply.text})")
            save_to_live.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.05)

        direct = []
        for k in range(edits + 1, edits + 11):
            target.write_text(PINGER.format(v=k))
            await asyncio.sleep(0.2)     # let the watch's own reload of this edit pass first
            t0 = time.perf_counter()
            await ok(f":load {target}")
            direct.append((time.perf_counter() - t0) * 1000)
        state = await ok("p hit")
        await ok(f'Workspace unwatch: "{src}"')
        await client.close()
    finally:
        launcher.kill(ws)

    print(f"{actors} live actors of the changed class, {edits} edits of 1 of 20 files")
    print(f"save->live p50 {statistics.median(save_to_live):.0f} ms, p99 {pct(save_to_live, 99):.0f} ms "
          f"(min {min(save_to_live):.0f}, max {max(save_to_live):.0f})")
    print(f"direct compile+load of the same module from the REPL client: p50 {statistics.median(direct):.0f} ms, "
          f"p99 {pct(direct, 99):.0f} ms")
    print(f"actor state kept across every reload: p hit -> {state} (expected 3)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--actors", type=int, default=1000)
    a = ap.parse_args()
    asyncio.run(main(a.edits, a.actors))
