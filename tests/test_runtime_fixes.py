"""Runtime defects fixed together, each checked against a real node:

* actor reflection (`fieldAt:`, `fieldAt:put:`, `fieldNames`, `perform:`) sent
  from outside the actor, and every `@primitive` of the stdlib existing in its
  runtime module with the arity the compiled method calls it with;
* class names: not an upper-case identifier, or a workspace singleton's name;
* ADR 0034 §3's wording for `Metaclass subclass:`;
* a ClassBuilder whose `register` failed stops like one that succeeded.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from beamtalk_ws.compiler.stdlib import compile_stdlib

from helpers import err, ok

ROOT = Path(__file__).resolve().parents[1]

ACC = """\
Actor subclass: RtfAcc
  state: total = 0
  state: label = "acc"
  add: n => self.total := self.total + n
  total => self.total
  peek => self fieldAt: #total
  poke => self fieldAt: #total put: 42. self.total
  names => self fieldNames
  viaPerform => self perform: #total
  die => self kill
"""

NAME_RULE = "a class name starts with an upper-case letter (A-Z), followed by letters, digits or _"


async def eventually(repl, code, expected, seconds=3.0):
    """`code` answers `expected` within `seconds` (an actor stops just after answering)."""
    text = None
    for _ in range(int(seconds / 0.05)):
        text = await ok(repl, code)
        if text == expected:
            return
        await asyncio.sleep(0.05)
    assert text == expected, (code, text)


# -- 1. actor reflection ---------------------------------------------------------------

async def test_actor_field_reflection_from_outside(repl):
    assert await ok(repl, ACC) == "RtfAcc"
    await ok(repl, "a := RtfAcc spawn")
    await ok(repl, "a add: 3")
    assert await ok(repl, "a respondsTo: #fieldAt:") == "true"
    assert await ok(repl, "a fieldAt: #total") == "3"
    assert await ok(repl, 'a fieldAt: #label') == '"acc"'
    assert await ok(repl, "a fieldNames") == "#(#total, #label)"
    # fieldAt:put: writes the state the actor holds: its own methods see it.
    assert await ok(repl, "a fieldAt: #total put: 5") == "5"
    assert await ok(repl, "a total") == "5"
    assert await ok(repl, "a add: 1") == "6"
    assert await ok(repl, "a fieldAt: #total") == "6"
    assert await ok(repl, "a perform: #fieldAt: with: #total") == "6"
    assert await ok(repl, "a perform: #fieldNames") == "#(#total, #label)"


async def test_actor_unknown_field_is_a_beamtalk_error_and_the_actor_lives_on(repl):
    await ok(repl, ACC)
    await ok(repl, "a := RtfAcc spawn")
    text = await err(repl, "a fieldAt: #nope")
    assert text.startswith("ERROR: #RuntimeError") and "RtfAcc has no field 'nope'" in text
    text = await err(repl, "a fieldAt: #nope put: 1")
    assert "RtfAcc has no field 'nope'" in text
    assert await ok(repl, "a fieldNames") == "#(#total, #label)"
    # As for value objects: the same wording.
    await ok(repl, "Value subclass: RtfPoint\n  state: x = 1\n")
    assert "RtfPoint has no field 'nope'" in await err(repl, "RtfPoint new fieldAt: #nope")
    assert await ok(repl, "a isAlive") == "true"
    assert await ok(repl, "a total") == "0"


async def test_actor_reflection_inside_the_actor(repl):
    await ok(repl, ACC)
    await ok(repl, "a := RtfAcc spawn. a add: 7")
    assert await ok(repl, "a peek") == "7"
    assert await ok(repl, "a names") == "#(#total, #label)"
    assert await ok(repl, "a viaPerform") == "7"
    assert await ok(repl, "a poke") == "42"
    assert await ok(repl, "a total") == "42"


async def test_self_kill_inside_a_method_kills_the_actor(repl):
    await ok(repl, ACC)
    await ok(repl, "a := RtfAcc spawn")
    text = await err(repl, "a die")
    assert "actor process has terminated" in text
    await eventually(repl, "a isAlive", "false")


def _prim_exports() -> dict:
    exports = {}
    for f in (ROOT / "erl_support").glob("beamtalk_prim_*.erl"):
        found = set()
        for m in re.finditer(r"-export\(\[(.*?)\]\)\.", f.read_text(), re.S):
            for name, arity in re.findall(r"('(?:[^'\\]|\\.)*'|[a-z][A-Za-z0-9_@]*)\s*/\s*(\d+)", m.group(1)):
                found.add((name.strip("'"), int(arity)))
        exports[f.stem] = found
    return exports


def _prim_calls(term, out):
    """Every `beamtalk_prim_*:F(Args)` call in a module's abstract forms."""
    if isinstance(term, tuple):
        if (len(term) == 4 and str(term[0]) == "call" and isinstance(term[2], tuple)
                and str(term[2][0]) == "remote" and str(term[2][2][2]).startswith("beamtalk_prim_")):
            out.add((str(term[2][2][2]), str(term[2][3][2]), len(term[3])))
        for x in term:
            _prim_calls(x, out)
    elif isinstance(term, list):
        for x in term:
            _prim_calls(x, out)


def test_every_stdlib_primitive_exists_with_the_arity_its_method_calls():
    exports = _prim_exports()
    calls: set = set()
    for c in compile_stdlib():
        _prim_calls(c.forms, calls)
    assert ("beamtalk_prim_actor", "fieldAt:", 3) in calls  # actor style: Self, State, Name
    missing = sorted((m, f, a) for m, f, a in calls if (f, a) not in exports.get(m, set()))
    assert missing == []


# -- 2. class names --------------------------------------------------------------------

async def test_class_names_must_be_upper_case_identifiers(repl):
    for sym, shown in (("#lower", "#lower"), ("#'Foo Bar'", "#'Foo Bar'"), ("#''", "#''"),
                       ("#'9Lives'", "#'9Lives'"), ("#'Ünicode'", "#'Ünicode'"), ("#'A-B'", "#'A-B'")):
        text = await err(repl, f"Object classBuilder name: {sym}; register")
        assert f"Invalid class name {shown}: {NAME_RULE}" in text, text
    assert await ok(repl, "Erlang beamtalk_class exists: #lower") == "false"
    assert await ok(repl, "Erlang beamtalk_class exists: #'Foo Bar'") == "false"
    assert await ok(repl, "Erlang beamtalk_class exists: #''") == "false"
    # A class definition with such a name is a compile error: nothing reaches the node.
    out = await repl.evaluate("Object subclass: rtfLower\n  foo => 1\n")
    assert not out.ok and out.kind == "compile"
    assert f"<input>:1:1: Invalid class name rtfLower: {NAME_RULE}" in out.text
    assert await ok(repl, "Erlang beamtalk_class exists: #rtfLower") == "false"
    # What the syntax allows still works.
    assert await ok(repl, "Object classBuilder name: #Rtf_Good2; register") == "Rtf_Good2"
    assert await ok(repl, "Rtf_Good2 new class") == "Rtf_Good2"


async def test_workspace_singleton_names_are_refused(repl, tmp_path):
    for name in ("Transcript", "Beamtalk", "Workspace"):
        msg = f"{name} is a system name and cannot be used as a class name"
        assert msg in await err(repl, f"Object classBuilder name: #{name}; register")
        out = await repl.evaluate(f"Object subclass: {name}\n  foo => 1\n")
        assert not out.ok and out.kind == "compile" and msg in out.text
    path = tmp_path / "transcript.bt"
    path.write_text("Object subclass: Transcript\n  show: x => 42\n")
    out = await repl.evaluate(f":load {path}")
    assert not out.ok and "transcript.bt:1:1: Transcript is a system name and cannot be used as a class name" in out.text
    # The singletons are untouched.
    seen = []
    out = await repl.evaluate('Transcript show: "still here"; cr. 7', on_output=seen.append)
    assert (out.ok, out.text) == (True, "7") and "still here\n" in "".join(seen)
    assert await ok(repl, "Beamtalk class") == "BeamtalkInterface"
    assert await ok(repl, "Workspace class") == "WorkspaceInterface"


# -- 3. ADR 0034 §3 ----------------------------------------------------------------------

SEALED_METACLASS = "Metaclass is sealed and cannot be subclassed"


async def test_metaclass_subclass_error_text(repl, tmp_path):
    text = await err(repl, "Metaclass subclass: RtfMeta\n  foo => 1\n")
    assert f"Message: {SEALED_METACLASS}" in text and "Cannot subclass sealed class" not in text
    text = await err(repl, "Metaclass classBuilder name: #RtfMM; register")
    assert f"Message: {SEALED_METACLASS}" in text
    assert SEALED_METACLASS in await err(repl, "Integer class classBuilder")
    path = tmp_path / "rtf_meta.bt"
    path.write_text("Metaclass subclass: RtfMeta\n  foo => 1\n")
    out = await repl.evaluate(f":load {path}")
    assert not out.ok and SEALED_METACLASS in out.text and "Cannot subclass sealed class" not in out.text
    assert await ok(repl, "Erlang beamtalk_class exists: #RtfMeta") == "false"
    # Other sealed classes keep their message.
    assert "Cannot subclass sealed class `Integer`" in await err(repl, "Integer subclass: RtfInt\n  foo => 1\n")


# -- 4. a failed register stops the builder ---------------------------------------------

async def test_failed_register_stops_the_builder(repl):
    await ok(repl, "b := Object classBuilder")
    await ok(repl, "b name: #lower")
    assert "Invalid class name #lower" in await err(repl, "b register")
    await eventually(repl, "b isAlive", "false")
    await ok(repl, "m := Metaclass classBuilder")
    await ok(repl, "m name: #RtfMM2")
    assert SEALED_METACLASS in await err(repl, "m register")
    await eventually(repl, "m isAlive", "false")
    # Like a successful one.
    await ok(repl, "g := Object classBuilder")
    await ok(repl, "g name: #RtfFine")
    assert await ok(repl, "g register") == "RtfFine"
    await eventually(repl, "g isAlive", "false")


async def test_failed_register_in_a_cascade_leaves_no_builder(repl):
    before = int(await ok(repl, "(Workspace actorsOf: ClassBuilder) size"))
    for _ in range(5):
        await err(repl, "Object classBuilder name: #'bad name'; register")
    await eventually(repl, "(Workspace actorsOf: ClassBuilder) size", str(before))
