"""The fast send path for classes compiled from files (erl_support/beamtalk_dispatch*.erl).

Value sends to an instance of a file-loaded class go through the generated
`beamtalk_dispatch` module to the class module's `'$d'/3`.  These tests pin
that the shortcut never answers anything the method table would not: after
hot reload, REPL redefinition, `Class >> sel` and for inherited and unknown
selectors.
"""

from __future__ import annotations

from helpers import ok

POINT_V1 = """\
Value subclass: FastPoint
  state: x = 3
  state: y = 4
  sum => self.x + self.y
  legacy => #old
"""

POINT_V2 = """\
Value subclass: FastPoint
  state: x = 3
  state: y = 4
  sum => (self.x + self.y) * 10
"""


async def routed(repl) -> str:
    return await ok(repl, "(Erlang beamtalk_dispatch classes) includes: #FastPoint")


async def test_file_class_sends_take_the_fast_path_and_stay_correct(repl, tmp_path):
    path = tmp_path / "fast_point.bt"
    path.write_text(POINT_V1)
    assert (await repl.evaluate(f":load {path}")).text == "Loaded: FastPoint"
    assert await routed(repl) == "true"
    await ok(repl, "p := FastPoint new")
    assert await ok(repl, "p sum") == "7"
    # Inherited methods, synthesised accessors and unknown selectors fall back to the table.
    assert await ok(repl, "p x") == "3"
    assert await ok(repl, "(p withX: 10) sum") == "14"
    assert await ok(repl, "p isNil") == "false"
    out = await repl.evaluate("p frobnicate")
    assert not out.ok and "does not understand 'frobnicate'" in out.text
    # Hot reload: new code runs, the removed method is gone.
    path.write_text(POINT_V2)
    assert (await repl.evaluate(":reload")).text == "Loaded: FastPoint"
    assert await ok(repl, "p sum") == "70"
    out = await repl.evaluate("p legacy")
    assert not out.ok and "does not understand 'legacy'" in out.text


async def test_extension_method_overrides_the_compiled_one(repl, tmp_path):
    path = tmp_path / "fast_point.bt"
    path.write_text(POINT_V1)
    await ok(repl, f":load {path}")
    assert await routed(repl) == "true"
    await ok(repl, "FastPoint >> sum => 99")
    assert await routed(repl) == "false"
    assert await ok(repl, "FastPoint new sum") == "99"
    # Loading the file again puts the compiled method (and the fast path) back.
    await ok(repl, ":reload")
    assert await routed(repl) == "true"
    assert await ok(repl, "FastPoint new sum") == "7"


async def test_repl_redefinition_leaves_the_fast_path(repl, tmp_path):
    path = tmp_path / "fast_point.bt"
    path.write_text(POINT_V1)
    await ok(repl, f":load {path}")
    await ok(repl, "Value subclass: FastPoint\n  state: x = 1\n  state: y = 1\n  sum => #fromRepl")
    assert await routed(repl) == "false"
    assert await ok(repl, "FastPoint new sum") == "#fromRepl"


async def test_subclass_of_a_file_class_inherits_through_the_table(repl, tmp_path):
    path = tmp_path / "fast_point.bt"
    path.write_text(POINT_V1)
    await ok(repl, f":load {path}")
    await ok(repl, "FastPoint subclass: FastPoint3\n  state: z = 5\n  zed => self.z")
    assert await ok(repl, "FastPoint3 new sum") == "7"
    assert await ok(repl, "FastPoint3 new zed") == "5"


async def test_actor_classes_are_not_routed(repl, tmp_path):
    path = tmp_path / "fast_actor.bt"
    path.write_text("Actor subclass: FastActor\n  state: n = 1\n  n => self.n\n")
    await ok(repl, f":load {path}")
    assert await ok(repl, "(Erlang beamtalk_dispatch classes) includes: #FastActor") == "false"
    assert await ok(repl, "FastActor spawn n") == "1"
