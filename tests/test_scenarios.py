"""Scenario suite: Beamtalk inputs with the REPL output expected for each,
driven through `beamtalk repl --json` against a real workspace.

Format of `tests/scenarios/*.scn`: a line `> code` starts an input (further
lines of the same input start with `..> `); the lines after it, up to the next
input or `//` comment line, are the expected output: any `output` text first,
then the value or the error text exactly as the REPL prints it.  Blank lines
between cases are ignored.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from conftest import run_beamtalk

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.scn"))


def parse_scenario(path: Path):
    cases = []
    code: list[str] | None = None
    expected: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith("> "):
            if code is not None:
                cases.append(("\n".join(code), "\n".join(expected).rstrip("\n")))
            code, expected = [raw[2:]], []
        elif raw.startswith("..> ") and code is not None and not expected:
            code.append(raw[4:])
        elif raw.startswith("//"):
            continue
        elif code is not None:
            expected.append(raw)
    if code is not None:
        cases.append(("\n".join(code), "\n".join(expected).rstrip("\n")))
    return [(c, e.strip("\n")) for c, e in cases]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path, workspace):
    cases = parse_scenario(path)
    assert cases, f"{path} has no cases"
    requests = "".join(json.dumps({"id": i, "op": "eval", "code": code}) + "\n"
                       for i, (code, _) in enumerate(cases))
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id,
                         "--session", f"{path.stem}-{uuid.uuid4().hex[:6]}"], input=requests, timeout=120)
    assert proc.returncode == 0, proc.stderr
    shown: dict[int, list[str]] = {}
    for line in proc.stdout.splitlines():
        msg = json.loads(line)
        parts = shown.setdefault(msg["id"], [])
        if "output" in msg:
            parts.append(msg["output"])
        else:
            parts.append(msg.get("value", msg.get("error")))
    failures = []
    for i, (code, expected) in enumerate(cases):
        got = "".join(p if p.endswith("\n") or j == len(shown.get(i, [])) - 1 else p
                      for j, p in enumerate(shown.get(i, []))).strip("\n")
        if got != expected:
            failures.append(f"> {code}\nexpected:\n{expected}\ngot:\n{got}\n")
    assert not failures, f"{path.name}:\n" + "\n".join(failures)
