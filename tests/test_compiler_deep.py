"""Issue 11 item 3: deep programs compile (or get a located "nested too
deeply"), never a Python RecursionError, through every door: REPL eval
(`beamtalk repl --json`), `:load` of a file, and `beamtalk check`."""

from __future__ import annotations

import json
import uuid

import pytest

from beamtalk_ws.compiler import CompileError, compile_input
from beamtalk_ws.compiler.deep import MAX_DEPTH

from conftest import run_beamtalk

UNARY = "x := -7" + " abs" * 600                      # 600 unary sends
BINARY = "y := 0" + " + 1" * 600                       # 600 binary sends
KEYWORD = "z := 1" + " max: 2" * 1 + "".join(f". z := z max: {i}" for i in range(600)) + ". z"
PARENS = "p := " + "(" * 60 + "1 + 1" + ")" * 60       # the parser's bracket limit is 64
BLOCKS = "q := " + "[" * 60 + "3" + "]" * 60 + "".join(" value" for _ in range(60))
ARRAYS = "r := " + "#(" * 60 + "1" + ")" * 60
CASCADE = "s := -5 abs" + "; negated" * 600 + "; abs"
MIXED = "t := 0" + " + 1 abs" * 300 + " + (1" + " * 1" * 300 + ")"


def repl_json(workspace, requests):
    lines = "".join(json.dumps({"id": i, "op": "eval", "code": c}) + "\n" for i, c in enumerate(requests))
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id, "--session", "deep-" + uuid.uuid4().hex[:6]],
                        input=lines, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stdout + proc.stderr
    return {m["id"]: m for m in map(json.loads, proc.stdout.splitlines()) if "output" not in m}


def test_deep_inputs_evaluate_in_the_repl(workspace):
    replies = repl_json(workspace, [UNARY, BINARY, KEYWORD, PARENS, BLOCKS, ARRAYS, CASCADE, MIXED,
                                    "x + y + z", "r size"])
    assert [replies[i].get("value", replies[i].get("error")) for i in range(10)] == [
        "7", "600", "599", "2", "3", "#(" * 60 + "1" + ")" * 60, "5", "301", "1206", "1"]


def test_absurd_depth_is_a_located_error_not_a_crash(workspace):
    code = "w := 0" + " + 1" * (MAX_DEPTH + 50)
    replies = repl_json(workspace, [code, "w := 5", "w"])
    error = replies[0]["error"]
    assert error.startswith("<input>:1:") and "Expression nested too deeply" in error
    assert "hint: the compiler accepts at most 10000 levels" in error
    assert replies[2]["value"] == "5"     # the session goes on


def test_absurd_depth_in_the_compiler_api():
    with pytest.raises(CompileError) as e:
        compile_input("v := nil" + " isNil" * (MAX_DEPTH + 1))
    d = e.value.diagnostics[0]
    assert d.message == "Expression nested too deeply" and d.span.line == 1
    compile_input("v := nil" + " isNil" * (MAX_DEPTH - 10))   # just under the limit compiles


def deep_class_source(name):
    return (f"Object subclass: {name}\n"
            f"  sum => 0{' + 1' * 600}\n"
            f"  chain => -3{' abs' * 600}\n"
            f"  both => self sum + self chain\n")


def test_deep_class_loads_and_runs(workspace, tmp_path):
    f = tmp_path / "DeepSum.bt"
    f.write_text(deep_class_source("DeepSum"))
    replies = repl_json(workspace, [f":load {f}", "DeepSum new both"])
    assert replies[0]["value"] == "Loaded: DeepSum"
    assert replies[1]["value"] == "603"


def test_deep_class_checks(tmp_path):
    f = tmp_path / "DeepCheck.bt"
    f.write_text(deep_class_source("DeepCheck"))
    proc = run_beamtalk(["check", str(f)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no errors" in proc.stdout + proc.stderr
    proc = run_beamtalk(["check", "--emit", "forms", str(f)])
    assert proc.returncode == 0 and "{function," in proc.stdout


def test_absurd_depth_in_check(tmp_path):
    f = tmp_path / "TooDeep.bt"
    f.write_text("Object subclass: TooDeep\n  run => 0" + " + 1" * (MAX_DEPTH + 5) + "\n")
    proc = run_beamtalk(["check", str(f)])
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"{f}:2:" in out and "Expression nested too deeply" in out and "Traceback" not in out
