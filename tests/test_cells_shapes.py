"""Issue 11 item 2 through `beamtalk repl --json` on the compiled path (a
loaded `.bt` file): every shape a block that assigns a method temporary can
take gives the Smalltalk answer while the method runs; an escaped block
starts from the values it captured and leaves nothing behind."""

from __future__ import annotations

import json

from conftest import run_beamtalk

SHAPES = """Object subclass: CellShapes
  state: blk = nil
  mk: b => b
  viaReturn =>
    n := 0.
    b := self mk: [n := n + 1].
    b value. b value.
    n
  viaArray =>
    n := 0.
    arr := #([n := n + 1]).
    (arr at: 1) value.
    n
  viaAssoc =>
    n := 0.
    a := #k -> [n := n + 1].
    a value value.
    n
  stored =>
    n := 0.
    b := [n := n + 1].
    b value. b value.
    n
  viaCollect =>
    n := 0.
    #(1, 2, 3) collect: [:x | n := n + x].
    n
  viaField =>
    n := 0.
    self.blk := [n := n + 1].
    self.blk value.
    n
  wrap: x => ^[x value]
  viaCaret =>
    n := 0.
    (self wrap: [n := n + 10]) value.
    n
  counter =>
    n := 0.
    ^[n := n + 1]
  blockTemp => ([:x | m := x. (self mk: [m := m + 1]) value. m]) value: 10
  nlr =>
    n := 0.
    #(1, 2, 3) collect: [:x | n := n + x. (x = 2) ifTrue: [^n]].
    0
  class classSide =>
    n := 0.
    (self new mk: [:x | n := n + x]) value: 5.
    n
  dict => (Erlang erlang get) size
  leak =>
    before := self dict.
    1 to: 20 do: [:i | self nlr. self counter value. self viaReturn].
    self dict - before
"""

CASES = [
    ("CellShapes new viaReturn", "2"),
    ("CellShapes new viaArray", "1"),
    ("CellShapes new viaAssoc", "1"),
    ("CellShapes new stored", "2"),
    ("CellShapes new viaCollect", "6"),
    ("CellShapes new viaField", "1"),
    ("CellShapes new viaCaret", "10"),
    ("c := CellShapes new counter. #(c value, c value)", "#(1, 1)"),
    ("CellShapes new blockTemp", "11"),
    ("CellShapes new nlr", "3"),
    ("CellShapes classSide", "5"),
    ("CellShapes new leak", "0"),
    ("n := 0. b := CellShapes new mk: [n := n + 1]. b value. b value. n", "2"),
]


def test_shapes_from_a_loaded_file(workspace, tmp_path):
    path = tmp_path / "cell_shapes.bt"
    path.write_text(SHAPES)
    reqs = [{"id": 0, "op": "load", "path": str(path)}]
    reqs += [{"id": i + 1, "op": "eval", "code": code} for i, (code, _) in enumerate(CASES)]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id],
                        input="".join(json.dumps(r) + "\n" for r in reqs))
    replies = {m["id"]: m for m in map(json.loads, proc.stdout.splitlines()) if "id" in m}
    assert replies[0]["value"] == "Loaded: CellShapes", replies[0]
    # viaField uses the field as a temporary on purpose: the change is lost
    # when it returns, and the compiler says so (compiler/lint.py)
    assert [w.split(": warning: ")[1].split(" is lost")[0] for w in replies[0]["warnings"]] == [
        "This change to self.blk"], replies[0]
    got = [(code, replies[i + 1].get("value", replies[i + 1].get("error"))) for i, (code, _) in enumerate(CASES)]
    assert got == CASES
