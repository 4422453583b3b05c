#!/usr/bin/env python3
"""Measure the workspace's round trips against native Erlang peers, in one run.

Prints, with the issue 17 targets in brackets:

* `eval round trip vs native peer` [<= 1.5x]: `3 + 4` from the REPL (parse,
  compile, encode, ship, compile:forms, load, run, print, reply) against a
  plain Erlang node (scripts/bench/bench_native.erl) that ships the same
  forms to the workspace node with erpc and has them compiled, loaded and
  run there: the native floor of compile-per-input.
* `10 MB result vs native peer` [<= 2x]: a bound 10 MB String and a bound
  1 000 000-element List, each from the eval request to its printString in
  the client, against the native peer receiving the same term with erpc.
* the time until a wrong cookie is reported, and from `interrupt` to the
  interrupted reply of a runaway evaluation.

The machine is shared, so the two sides alternate in rounds (A/B in the same
run); the ratio is of the medians over all rounds, and the best round of each
side is printed next to it.
Run: .venv/bin/python scripts/bench_workspace.py [--rounds N]
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def native(ws, build: Path, mode: str, arg: str, count: int) -> list[float]:
    """Run the native peer once: `count` calls, answered in seconds each."""
    from beamtalk_ws.workspace import launcher

    env = launcher.node_env(ws)
    out = subprocess.run(
        ["erl", "-sname", f"bt-bench-native-{os.getpid()}", "-hidden", "-noshell",
         "-kernel", "inet_dist_use_interface", "{127,0,0,1}",
         "-pa", str(build), "-run", "bench_native", "main", ws.node_name, mode, arg, str(count)],
        env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"native peer failed:\n{out.stdout}\n{out.stderr}")
    return [int(t) / 1e6 for t in out.stdout.split()]


def ms(x: float) -> str:
    return f"{x * 1000:.2f} ms"


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--evals", type=int, default=150, help="evaluations per round and side")
    ap.add_argument("--big-rounds", type=int, default=5)
    args = ap.parse_args()

    os.environ["BEAMTALK_HOME"] = tempfile.mkdtemp(prefix="bt-bench-")
    from beamtalk_ws.compiler import compile_input
    from beamtalk_ws.dist import errors
    from beamtalk_ws.dist.codec import encode
    from beamtalk_ws.dist.node import Node
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import launcher, paths
    from beamtalk_ws.workspace.client import WorkspaceClient

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    build = Path(tempfile.mkdtemp(prefix="bt-bench-erl-"))
    subprocess.run(["erlc", "-o", str(build), str(HERE / "bench" / "bench_native.erl")], check=True)
    forms_file = build / "forms.etf"
    forms_file.write_bytes(encode(compile_input("3 + 4").forms))

    ws = paths.resolve("bench")
    t0 = time.perf_counter()
    launcher.start(ws, idle_timeout=None)
    print(f"workspace start (cold, compiles erl_support): {(time.perf_counter() - t0) * 1000:.0f} ms")
    try:
        client = await WorkspaceClient.connect(ws)
        repl = Repl(client)
        for _ in range(20):
            await repl.evaluate("3 + 4")

        # ---- eval round trip, alternated with the native peer -------------------
        bt_all, na_all, bt_rounds, na_rounds = [], [], [], []
        fresh_all, fresh_rounds = [], []
        serial = 0
        for _ in range(args.rounds):
            evals, fresh = [], []
            for _ in range(args.evals):
                t = time.perf_counter()
                out = await repl.evaluate("3 + 4")
                evals.append(time.perf_counter() - t)
                assert out.text == "7", out.text
            for _ in range(args.evals):
                serial += 1
                t = time.perf_counter()
                out = await repl.evaluate(f"3 + {serial}")
                fresh.append(time.perf_counter() - t)
                assert out.text == str(3 + serial), out.text
            nat = native(ws, build, "eval", str(forms_file), args.evals)
            bt_all += evals
            fresh_all += fresh
            na_all += nat
            bt_rounds.append(statistics.median(evals))
            fresh_rounds.append(statistics.median(fresh))
            na_rounds.append(statistics.median(nat))
        b50, n50, f50 = statistics.median(bt_all), statistics.median(na_all), statistics.median(fresh_all)
        print(f"eval `3 + 4` round trip: p50 {ms(b50)}, p99 {ms(pct(bt_all, 99))} "
              f"(best round p50 {ms(min(bt_rounds))})")
        print(f"eval `3 + N`, a new input each time (no reuse of loaded code): p50 {ms(f50)}, "
              f"p99 {ms(pct(fresh_all, 99))} (best round p50 {ms(min(fresh_rounds))})")
        print(f"native peer (erpc + compile:forms + load + run): p50 {ms(n50)}, p99 {ms(pct(na_all, 99))} "
              f"(best round p50 {ms(min(na_rounds))})")
        print(f"eval round trip vs native peer: {b50 / n50:.2f}x  "
              f"(p50 {ms(b50)} vs {ms(n50)}; p99 {ms(pct(bt_all, 99))} vs {ms(pct(na_all, 99))}; "
              f"best rounds {min(bt_rounds) / min(na_rounds):.2f}x)  target <= 1.5x")
        print(f"new-input round trip vs native peer: {f50 / n50:.2f}x  "
              f"(p50 {ms(f50)} vs {ms(n50)}; p99 {ms(pct(fresh_all, 99))} vs {ms(pct(na_all, 99))}; "
              f"best rounds {min(fresh_rounds) / min(na_rounds):.2f}x)")

        # ---- big results ----------------------------------------------------------
        # The String stays bound while the List is measured: an input is handed
        # only the bindings that changed (beamtalk_bindings_delta), so a big
        # bound value costs the inputs that do not assign it nothing.
        ratios = []
        for name, expr, mode, setup in (
                ("10 MB String", "s", "string", 's := "x" repeat: 10000000. nil'),
                ("1 000 000-element List", "xs", "list", "xs := (1 to: 1000000) asList. nil")):
            out = await repl.evaluate(setup)
            assert out.ok, out.text
            bt, na = [], []
            native(ws, build, "fetch", mode, 1)       # warm: the term is built once on the node
            for _ in range(args.big_rounds):
                t = time.perf_counter()
                out = await client.eval(compile_input(expr, frozenset(client.bound_names)).forms)
                bt.append(time.perf_counter() - t)
                assert out.ok and " more " in out.text[-80:], out.text[:200]
                na += native(ws, build, "fetch", mode, 1)
            ratio = statistics.median(bt) / statistics.median(na)
            ratios.append(ratio)
            print(f"{name} result: median {ms(statistics.median(bt))} (best {ms(min(bt))}, "
                  f"{len(out.text) / 1e3:.0f} kB of text shown) vs native peer {ms(statistics.median(na))} "
                  f"(best {ms(min(na))}): {ratio:.2f}x")
        print(f"10 MB result vs native peer: {max(ratios):.2f}x  (the worse of String {ratios[0]:.2f}x "
              f"and List {ratios[1]:.2f}x)  target <= 2x")

        # ---- errors and interrupts -------------------------------------------------
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
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
        await client.close()
    finally:
        launcher.kill(ws)


if __name__ == "__main__":
    asyncio.run(main())
