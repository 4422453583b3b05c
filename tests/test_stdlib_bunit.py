"""The stdlib's own BUnit suite (`stdlib/test/`, one file per class) run by
`beamtalk test`, as CI runs it (issue 4: every [core] selector and its edge
cases)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_beamtalk

SUITE = Path(__file__).resolve().parents[1] / "stdlib" / "test"


def test_stdlib_bunit_suite_passes(bt_home):
    proc = run_beamtalk(["test", str(SUITE), "--format", "json"], timeout=600)
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    bad = [r for r in results if r.get("status") != "pass"]
    assert not bad, "\n".join(json.dumps(r) for r in bad)
    classes = {r["class"] for r in results}
    expected = {p.stem.title().replace("_", "") for p in SUITE.glob("*_test.bt")}
    assert expected <= classes, expected - classes
    assert len(results) > 100 and proc.returncode == 0, proc.stderr
