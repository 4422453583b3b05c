#!/usr/bin/env python3
"""Soak the workspace: evaluations through `beamtalk repl --json` with the
client and the node killed at random points, for BUDGET seconds; prints
`soak: N evaluations, K client kills, J node kills, 0 lost confirmations in T s`
and exits non-zero when anything confirmed was lost or reported unclearly.

    scripts/soak.py 600 [--seed N] [--verbose]

Runs in a throw-away workspace under $BEAMTALK_HOME (a temporary one unless set).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("budget", type=float, help="seconds to run")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--verbose", action="store_true", help="one line per kill")
    args = ap.parse_args()
    from beamtalk_ws import soak

    home = None
    if "BEAMTALK_HOME" not in os.environ:
        home = tempfile.mkdtemp(prefix="bt-soak-")
        os.environ["BEAMTALK_HOME"] = home
    exe = Path(sys.executable).with_name("beamtalk")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "beamtalk_ws.cli"]
    try:
        summary = soak.run(cmd, args.budget, seed=args.seed,
                           say=(lambda t: print(t, flush=True)) if args.verbose else (lambda t: None))
    finally:
        if home:
            shutil.rmtree(home, ignore_errors=True)
    for p in summary.problems:
        print("problem:", p)
    for n in sorted(set(summary.notes)):
        print("note:", n)
    print(summary.line())
    return 1 if summary.lost or summary.problems else 0


if __name__ == "__main__":
    sys.exit(main())
