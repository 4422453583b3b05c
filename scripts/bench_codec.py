"""Decode (and encode) throughput of the term codec on big terms.

Every REPL input and result goes through `beamtalk_ws.dist.codec`, so the
hardening limits (key depth, size cap) must not cost it speed: this prints the
best of several rounds for a few shapes of big term, to compare commits.

Run: .venv/bin/python scripts/bench_codec.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from beamtalk_ws.dist.codec import decode, encode  # noqa: E402
from beamtalk_ws.dist.terms import Atom  # noqa: E402


def forms_like(n: int):
    """Something shaped like compiler output: nested tuples of atoms, ints, lists."""
    clause = (Atom("clause"), 7, [(Atom("var"), 7, Atom("X"))], [],
              [(Atom("op"), 7, Atom("+"), (Atom("var"), 7, Atom("X")), (Atom("integer"), 7, 1))])
    return [(Atom("function"), i, Atom(f"f{i % 50}"), 1, [clause, clause]) for i in range(n)]


TERMS = {
    "forms 20k functions": forms_like(20_000),
    "map 100k int keys": {i: (Atom("v"), i, b"payload") for i in range(100_000)},
    "list 1M small ints": list(range(256)) * 4096,
    "binary 32 MiB": b"x" * (32 << 20),
    "deep list 100k": None,
}


def deep(n: int):
    t: list = []
    for _ in range(n):
        t = [t]
    return t


TERMS["deep list 100k"] = deep(100_000)


def best(f, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    for name, term in TERMS.items():
        data = encode(term)
        d = best(lambda: decode(data))
        e = best(lambda: encode(term))
        print(f"{name:22s} {len(data) / 1e6:8.2f} MB  decode {d * 1000:8.1f} ms  "
              f"({len(data) / d / 1e6:7.1f} MB/s)  encode {e * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
