#!/usr/bin/env python3
"""What running the compiler on its worker thread costs per input.

The compiler's passes run on a long-lived thread with a large stack
(beamtalk_ws/compiler/deep.py) so that deeply nested programs compile.  This
prints, in the same run, the p50 time to compile typical REPL inputs through
that path (`compile_module`) and by calling the same passes directly on the
calling thread, and their difference: the per-input overhead of the hand-off.

Run: .venv/bin/python scripts/bench_compile.py [RUNS]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from beamtalk_ws.compiler import _compile_module, compile_module  # noqa: E402
from beamtalk_ws.syntax import parse  # noqa: E402

INPUTS = {
    "3 + 4": "3 + 4",
    "collect with a cell block": "sum := 0. #(1, 2, 3) collect: [:x | sum := sum + x]. sum",
    "class of three methods": ("Actor subclass: C\n  state: n = 0\n  inc => self.n := self.n + 1\n"
                               "  get => self.n\n  add: x => self.n := self.n + x\n"),
}


def p50(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def main(runs: int) -> None:
    print(f"{'input':<28} {'worker us':>10} {'direct us':>10} {'overhead us':>12}")
    for name, src in INPUTS.items():
        module = parse(src)
        compile_module(module, src)   # the worker thread starts here, not in the timing
        worker = p50(lambda: compile_module(module, src), runs)
        direct = p50(lambda: _compile_module(module, src, frozenset(), "<input>", None), runs)
        print(f"{name:<28} {worker:>10.1f} {direct:>10.1f} {worker - direct:>12.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
