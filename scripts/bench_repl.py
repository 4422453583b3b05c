#!/usr/bin/env python3
"""How fast the interactive REPL is ready, and how fast completion answers.

Prints, measured in the same run against one already-running workspace:

* start-up: from starting `beamtalk repl` (a subprocess on a pseudo-terminal,
  answering the terminal's cursor-position requests as a terminal does) to
  its ready prompt, p50 over RUNS runs; next to it, the cost of starting
  Python and importing what the REPL imports (prompt_toolkit and the
  package's REPL modules) and of starting a bare Python, the floor no REPL
  written in Python can go under;
* completion latency through the completer API (CompletionEngine, as the
  interactive REPL and `--json` use it) against the running node, p50/p99
  per kind of completion, with its cache emptied before every call so every
  call asks the node; next to it a bare gen_server round trip to the same
  node.

The subprocesses run with bytecode caching on (PYTHONDONTWRITEBYTECODE
removed from their environment), as a user's `beamtalk` has it.

Run: .venv/bin/python scripts/bench_repl.py [RUNS]
"""

from __future__ import annotations

import asyncio
import os
import pty
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 15
PROMPT_READY = re.compile(rb"Ctrl-D leaves[^\n]*\n.*?>", re.S)     # the banner, then the prompt drawn
CPR_REQUEST = b"\x1b[6n"


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def beamtalk() -> list[str]:
    exe = Path(sys.executable).with_name("beamtalk")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "beamtalk_ws.cli"]


def time_to_prompt(workspace: str, env: dict) -> float:
    """Seconds from spawning `beamtalk repl` on a pty to its prompt."""
    pid, fd = pty.fork()
    if pid == 0:                                  # child
        try:
            os.execvpe(beamtalk()[0], beamtalk() + ["repl", "--workspace", workspace], env)
        finally:
            os._exit(127)
    t0 = time.perf_counter()
    seen = b""
    ready = None
    try:
        deadline = t0 + 30
        while time.perf_counter() < deadline:
            r, _, _ = select.select([fd], [], [], 0.5)
            if not r:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if CPR_REQUEST in chunk:
                os.write(fd, b"\x1b[5;1R")       # a terminal answers where the cursor is
            if PROMPT_READY.search(seen):
                ready = time.perf_counter() - t0
                break
        if ready is None:
            os.kill(pid, 9)
            raise RuntimeError(f"no prompt within 30 s; output was {seen[-500:]!r}")
        os.write(fd, b"\x04")                    # Ctrl-D: leave (the workspace keeps running)
        end = time.perf_counter() + 10
        while time.perf_counter() < end:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try:
                    if not os.read(fd, 65536):
                        break
                except OSError:
                    break
    finally:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        os.close(fd)
    return ready


def time_python(code: str, env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - t0


FLOOR = "import asyncio, prompt_toolkit"
IMPORTS = ("import asyncio, prompt_toolkit, prompt_toolkit.shortcuts, prompt_toolkit.history, "
           "prompt_toolkit.styles, prompt_toolkit.completion, prompt_toolkit.lexers, prompt_toolkit.validation; "
           "import beamtalk_ws.cli, beamtalk_ws.repl.attach, beamtalk_ws.repl.core, beamtalk_ws.repl.interactive, "
           "beamtalk_ws.repl.completer, beamtalk_ws.repl.highlight, beamtalk_ws.repl.keys, "
           "beamtalk_ws.repl.validator, beamtalk_ws.workspace.client")


async def completion_latency(ws) -> None:
    from beamtalk_ws.dist.terms import Atom
    from beamtalk_ws.repl.completer import CompletionEngine
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    client = await WorkspaceClient.connect(ws, session="bench")
    try:
        repl = Repl(client)
        await repl.evaluate("x := #(1, 2, 3)")
        engine = CompletionEngine(repl, timeout=5.0)    # measure the answer, not the give-up budget
        cases = [("binding's selectors   `x pri`", "x pri"),
                 ("literal's selectors   `3 fa`", "3 fa"),
                 ("class names           `Int`", "Int"),
                 ("class-side selectors  `Integer ne`", "Integer ne"),
                 ("metaclass selectors   `Integer class th`", "Integer class th"),
                 ("unary chain           `Object classBuilder ad`", "Object classBuilder ad"),
                 ("Erlang modules        `Erlang li`", "Erlang li"),
                 ("Erlang exports        `Erlang lists re`", "Erlang lists re"),
                 ("commands (no node)    `:he`", ":he")]
        n = 300
        rows = []
        for label, code in cases:
            for _ in range(20):
                engine._cache.clear()
                await engine.complete(code)
            times = []
            for _ in range(n):
                engine._cache.clear()
                t = time.perf_counter()
                found = await engine.complete(code)
                times.append(time.perf_counter() - t)
            assert found or code == "x pri", (code, found)
            rows.append((label, statistics.median(times), pct(times, 99), len(found)))
        bare = []
        for _ in range(n):
            t = time.perf_counter()
            await client.call(Atom("ping"))
            bare.append(time.perf_counter() - t)
        print(f"\ncompletion latency through CompletionEngine.complete, {n} calls each, cache emptied each call:")
        for label, p50, p99, k in rows:
            print(f"  {label:<48} p50 {p50 * 1000:6.2f} ms   p99 {p99 * 1000:6.2f} ms   ({k} candidates)")
        print(f"  {'bare gen_server call (workspace ping)':<48} p50 {statistics.median(bare) * 1000:6.2f} ms"
              f"   p99 {pct(bare, 99) * 1000:6.2f} ms")
        print("  budget while typing: 150 ms (an answer that comes later serves the next keystroke)")
    finally:
        await client.close()


def main() -> None:
    home = tempfile.mkdtemp(prefix="bt-bench-repl-")
    os.environ["BEAMTALK_HOME"] = home
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30")
    # As on a user's machine, the package's bytecode is cached (__pycache__,
    # written by the warm-up run): an environment that forbids writing it
    # would have every start compile the sources again.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    from beamtalk_ws.workspace import launcher, paths

    name = "benchrepl"
    ws = paths.resolve(name)
    launcher.start(ws, idle_timeout=None)
    try:
        time_to_prompt(name, env)                # warm the OS caches and the history file
        time_python(IMPORTS, env)
        starts, imports, floor, bare = [], [], [], []
        for _ in range(RUNS):                    # interleaved, so drift hits all four alike
            starts.append(time_to_prompt(name, env))
            imports.append(time_python(IMPORTS, env))
            floor.append(time_python(FLOOR, env))
            bare.append(time_python("pass", env))
        s50, i50, b50 = statistics.median(starts), statistics.median(imports), statistics.median(bare)
        f50 = statistics.median(floor)
        print(f"start-up of `beamtalk repl` to a ready prompt (running workspace, pty), {RUNS} runs:")
        print(f"  beamtalk repl                               p50 {s50 * 1000:6.1f} ms   min {min(starts) * 1000:6.1f}"
              f"   max {max(starts) * 1000:6.1f}   (target p50 <= 300 ms)")
        print(f"  python -c 'import <the same modules>'       p50 {i50 * 1000:6.1f} ms   min {min(imports) * 1000:6.1f}"
              f"   max {max(imports) * 1000:6.1f}")
        print(f"  python -c 'import asyncio, prompt_toolkit'  p50 {f50 * 1000:6.1f} ms   (any asyncio"
              f" prompt_toolkit REPL pays this)")
        print(f"  python -c pass                              p50 {b50 * 1000:6.1f} ms")
        print(f"  => attach + banner + first prompt beyond the imports: {(s50 - i50) * 1000:.1f} ms;"
              f" ratio repl / imports {s50 / i50:.2f}x, repl / asyncio+prompt_toolkit {s50 / f50:.2f}x")
        asyncio.run(completion_latency(ws))
    finally:
        launcher.kill(ws)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
