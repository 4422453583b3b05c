#!/usr/bin/env python3
"""Beamtalk runtime costs next to hand-written Erlang, measured in one run on
one workspace node (issue 3 targets in brackets):

* value-object send vs a direct (remote) Erlang function call   [<= 3x]
  (a class loaded from a file, the compiled path; a class typed at the REPL,
  built from closures, is reported on its own line for comparison)
* actor send vs a raw gen_server:call                          [<= 1.25x]
* `1 to: N do:` summing loop vs an Erlang loop                  [<= 3x]
* an Erlang call through a proxy held in a variable vs the call written
  out (`Erlang lists reverse: xs`)                                [<= 1.5x]
* a 5-method class definition evaluated at the REPL vs compiling and loading
  the equivalent hand-written Erlang module, both through the REPL  [<= 1.3x]

Run: .venv/bin/python scripts/bench_runtime.py
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

N = 1_000_000

CLASS_DEF = """Value subclass: BenchFive{n}
  state: x = 3
  state: y = 4
  sum => self.x + self.y
  scaled: k => self withX: self.x * k
  describe => self sum > 10 ifTrue: [#big] ifFalse: [#small]
  double => self sum * 2
  half => self sum / 2"""


def micros(text: str) -> int:
    m = re.match(r"\d+", text)
    if not m:
        raise SystemExit(f"unexpected benchmark result: {text}")
    return int(m.group(0))


async def main() -> None:
    os.environ["BEAMTALK_HOME"] = tempfile.mkdtemp(prefix="bt-bench-")
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import launcher, paths
    from beamtalk_ws.workspace.client import WorkspaceClient

    build = Path(tempfile.mkdtemp(prefix="bt-bench-erl-"))
    subprocess.run(["erlc", "-o", str(build), str(HERE / "bench" / "bench_baseline.erl")], check=True)
    ws = paths.resolve("bench-runtime")
    launcher.start(ws, idle_timeout=None)
    try:
        client = await WorkspaceClient.connect(ws)
        repl = Repl(client)

        async def ev(code: str) -> str:
            out = await repl.evaluate(code)
            if not out.ok:
                raise SystemExit(f"benchmark input failed:\n{code}\n{out.text}")
            return out.text

        await ev(f'Erlang code add_patha: (Erlang erlang binary_to_list: "{build}")')
        src = build / "bp.bt"
        src.write_text("Value subclass: BP\n  state: x = 3\n  getX => self.x\n")
        await ev(f':load {src}')
        await ev("Value subclass: BPRepl\n  state: x = 3\n  getX => self.x")
        await ev("Actor subclass: BC\n  state: value = 7\n  getValue => self.value")
        await ev(f"""Object subclass: Loops
  valueSends: n on: p => 1 to: n do: [:i | p getX]
  actorSends: n on: a => 1 to: n do: [:i | a getValue]
  proxyCalls: n on: p with: xs => 1 to: n do: [:i | p reverse: xs]
  writtenCalls: n with: xs => 1 to: n do: [:i | Erlang lists reverse: xs]
  sum: n =>
    total := 0.
    1 to: n do: [:i | total := total + i].
    ^total""")
        await ev("q := BPRepl new")
        await ev("p := BP new. a := BC spawn. pid := Erlang bench_baseline start_counter. m := #{x => 3}")
        await ev("loops := Loops new")
        tc = "Erlang bench_baseline tc: "
        rows = []

        async def paired(bt_code: str, er_code: str, rounds: int = 9) -> tuple[int, int]:
            """Best of `rounds` alternated rounds per side (each round is itself the
            best of five runs), so both sides see the same machine load."""
            bts, ers = [], []
            for _ in range(rounds):
                bts.append(micros(await ev(f"{tc}[{bt_code}]")))
                ers.append(micros(await ev(f"{tc}[{er_code}]")))
            return min(bts), min(ers)

        bt, er = await paired(f"loops valueSends: {N} on: p", f"Erlang bench_baseline direct_loop: {N} with: m")
        rows.append(("value-object send", bt / N * 1000, er / N * 1000, "ns/op", 3.0))
        bt, er = await paired(f"loops valueSends: {N} on: q", f"Erlang bench_baseline direct_loop: {N} with: m")
        rows.append(("  (class typed at the REPL)", bt / N * 1000, er / N * 1000, "ns/op", None))
        n_actor = N // 10
        bt, er = await paired(f"loops actorSends: {n_actor} on: a", f"Erlang bench_baseline call_loop: {n_actor} with: pid")
        rows.append(("actor send", bt / n_actor * 1000, er / n_actor * 1000, "ns/op", 1.25))
        bt, er = await paired(f"loops sum: {N}", f"Erlang bench_baseline sum_loop: {N}")
        rows.append(("1 to: N do: sum loop", bt / N * 1000, er / N * 1000, "ns/op", 3.0))

        await ev("erlProxy := Erlang lists. smallList := #(1, 2, 3)")
        bt, er = await paired(f"loops proxyCalls: {N} on: erlProxy with: smallList",
                              f"loops writtenCalls: {N} with: smallList")
        proxy_ratio = bt / er
        rows.append(("Erlang call via a proxy variable", bt / N * 1000, er / N * 1000, "ns/op", 1.5))

        # Class definition at the REPL vs compiling + loading hand-written Erlang, both via the REPL.
        five = HERE / "bench" / "bench_five.erl"
        bt_times, er_times = [], []
        for i in range(15):
            t = time.perf_counter()
            await ev(CLASS_DEF.format(n=i))
            bt_times.append(time.perf_counter() - t)
            t = time.perf_counter()
            # a new input each time, as the class definition is: the REPL reuses
            # the loaded code of a repeated input, which the class side cannot
            await ev(f'Erlang bench_baseline compile_and_load: "{five}". {i}')
            er_times.append(time.perf_counter() - t)
        bt_c, er_c = statistics.median(bt_times), statistics.median(er_times)
        rows.append(("5-method class at the REPL", bt_c * 1e3, er_c * 1e3, "ms", 1.3))

        print(f"{'measure':<30} {'beamtalk':>14} {'erlang':>14} {'ratio':>7}  target")
        for name, b, e, unit, target in rows:
            goal = "" if target is None else f"<= {target}x " + ("ok" if b / e <= target else "MISSED")
            print(f"{name:<30} {b:>9.1f} {unit:<5} {e:>9.1f} {unit:<5} {b / e:>6.2f}x  {goal}")
        print(f"proxy held in a variable vs written-out: {proxy_ratio:.2f}x  "
              "(`p reverse: xs` with p := Erlang lists, against `Erlang lists reverse: xs`, "
              "both in a compiled loop; best of alternated rounds)  target <= 1.5x")
        await client.close()
    finally:
        launcher.kill(ws)


if __name__ == "__main__":
    asyncio.run(main())
