#!/usr/bin/env python3
"""Benchmark the Beamtalk front end (lexer + parser).

Reports
* lines per second for parsing a generated 2 000-line source file (classes
  with multi-line methods, doc comments, blocks, cascades, literals, string
  interpolation, top-level statements) — target >= 50 000 lines/s;
* the median time to parse a one-line expression — target <= 0.1 ms;
* the same for tokenising only, for reference.

Usage: python scripts/bench_parse.py [--lines N] [--repeat R] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from beamtalk_ws.syntax.lexer import lex  # noqa: E402
from beamtalk_ws.syntax.parser import parse_source  # noqa: E402

CLASS_TEMPLATE = """\
/// A generated class number {n}.
/// It exercises most of the syntax.
Actor subclass: Account{n}
  state: balance = 0
  state: owner: String = "nobody"
  state: history = #()
  classState: created = 0

  /// Create an account.
  class owner: aName =>
    self.created := self.created + 1
    self spawnWith: #{{owner => aName, #balance => 0}}

  deposit: amount: Integer =>
    amount <= 0 ifTrue: [^self error: "Invalid amount {{amount}}"]
    self.balance := self.balance + amount
    self.history := self.history add: #deposit -> amount
    ^self.balance

  withdraw: amount =>
    amount > self.balance ifTrue: [^self error: "Insufficient funds"]
      ifFalse: [self.balance := self.balance - amount]

  balance -> Integer => ^self.balance
  + other => self.balance + other balance

  report =>
    Transcript show: "Owner: "; show: self.owner; cr
    self.history do: [:each |
      Transcript show: each key printString; show: " "; show: each value printString; cr]
    ^self.history inject: 0 into: [:sum :e | sum + e value]

  classify: x =>
    ^x match: [0 -> #zero; n when: [n > 0] -> #positive; _ -> #negative]

acct{n} := Account{n} owner: "Ann {n}"
acct{n} deposit: 100 + {n} * 2; deposit: 16rFF
total := #(1, 2, 3, 4.5, -6) inject: 0 into: [:a :b | a + b]   // a comment
"""


def generate(lines: int) -> str:
    chunks = []
    count = 0
    n = 0
    while count < lines:
        text = CLASS_TEMPLATE.format(n=n)
        chunks.append(text)
        count += text.count("\n")
        n += 1
    src = "".join(chunks)
    # trim to exactly `lines` lines at a line boundary of a complete chunk
    out = src.split("\n")[:lines]
    text = "\n".join(out) + "\n"
    return text


def best_and_median(fn, repeat: int):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    src = generate(args.lines)
    nlines = src.count("\n")
    module, diags = parse_source(src)
    # the generated file is cut at a line boundary; it may end inside a class,
    # which is still valid.  Any error means the benchmark is meaningless.
    if diags:
        print("generated source does not parse:", diags[0], file=sys.stderr)
        return 1

    for _ in range(3):  # warm up
        parse_source(src)
    best, med = best_and_median(lambda: parse_source(src), args.repeat)
    lex_best, lex_med = best_and_median(lambda: lex(src), args.repeat)

    one = "#(1, 2, 3) inject: 0 into: [:a :b | a + b]"
    one_simple = "x := 3 + 4 * 2"
    per = []
    for expr in (one, one_simple):
        for _ in range(200):
            parse_source(expr)
        samples = []
        for _ in range(2000):
            t0 = time.perf_counter()
            parse_source(expr)
            samples.append(time.perf_counter() - t0)
        per.append((expr, statistics.median(samples)))

    result = {
        "lines": nlines,
        "parse_lines_per_s_median": nlines / med,
        "parse_lines_per_s_best": nlines / best,
        "parse_ms_median": med * 1e3,
        "lex_lines_per_s_median": nlines / lex_med,
        "one_line": [{"expr": e, "median_ms": t * 1e3} for e, t in per],
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"file: {nlines} lines, {len(src)} bytes")
    print(
        f"parse: {result['parse_lines_per_s_median']:,.0f} lines/s median "
        f"({med * 1e3:.1f} ms; best {result['parse_lines_per_s_best']:,.0f} lines/s)  target >= 50,000"
    )
    print(f"lex only: {result['lex_lines_per_s_median']:,.0f} lines/s median")
    for e, t in per:
        print(f"one-line expression {e!r}: median {t * 1e3:.4f} ms  target <= 0.1 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
