"""What users of the Erlang shell, IEx, Pharo and ptpython type first at our
prompt: the last value `_`, `:forget`, `:actors`, and a hint naming the
Beamtalk way for their habits (`b().`, `h Enum.map`, `Object browse`)."""

from __future__ import annotations

import pytest

from beamtalk_ws.repl.shell_habits import habit_hint


async def test_underscore_is_the_last_value(repl):
    assert (await repl.evaluate("x := 3 + 4")).text == "7"
    assert (await repl.evaluate("_ + 1")).text == "8"
    assert (await repl.evaluate("_")).text == "8"
    assert (await repl.evaluate("#(1, 2, 3) collect: [:e | e * 2]")).text == "#(2, 4, 6)"
    assert (await repl.evaluate("_ size")).text == "3"


async def test_a_failed_input_leaves_underscore_as_it_was(repl):
    await repl.evaluate("41 + 1")
    bad = await repl.evaluate("3 foo")
    assert not bad.ok
    assert (await repl.evaluate("_")).text == "42"


async def test_commands_leave_underscore_alone(repl):
    """`:actors` and `:modules` evaluate Beamtalk of their own: `_` is still
    the value of the user's last input after them."""
    fresh = await repl.evaluate(":actors")
    assert fresh.ok
    unset = await repl.evaluate("_")
    assert not unset.ok and "Undefined variable: _" in unset.text
    assert (await repl.evaluate("3 + 4")).text == "7"
    for command in (":actors", ":modules", ":bindings", ":workspace"):
        assert (await repl.evaluate(command)).ok, command
    assert (await repl.evaluate("_")).text == "7"


async def test_underscore_is_not_listed_and_stays_known_after_bindings(repl):
    await repl.evaluate("y := 5")
    listed = await repl.evaluate(":bindings")
    assert listed.text == "  y = 5"
    # `:bindings` refreshes what the compiler knows is bound: `_` must stay
    assert (await repl.evaluate("_ * 2")).text == "10"


async def test_underscore_as_match_wildcard_is_untouched(repl):
    await repl.evaluate("99")
    assert (await repl.evaluate('3 match: [1 -> "one"; _ -> "other"]')).text == '"other"'


async def test_forget_drops_one_binding(repl):
    await repl.evaluate("a := 1. b := 2")
    out = await repl.evaluate(":forget a")
    assert out.ok and out.text == "Forgot a."
    gone = await repl.evaluate("a + 1")
    assert not gone.ok and "Undefined variable: a" in gone.text
    assert (await repl.evaluate("b + 1")).text == "3"
    assert (await repl.evaluate(":bindings")).text == "  b = 2"


async def test_forget_several_and_unbound(repl):
    await repl.evaluate("p := 1. q := 2. r := 3")
    out = await repl.evaluate(":forget p, q nope")
    assert not out.ok
    assert out.text == "Forgot p, q.\nNot bound: nope (:bindings lists the bindings)."
    assert (await repl.evaluate(":bindings")).text == "  r = 3"
    usage = await repl.evaluate(":forget")
    assert not usage.ok and usage.text.startswith("Usage: :forget NAME")


async def test_forget_reaches_the_evaluator(repl):
    """The evaluator keeps its own copy of the bindings: a forgotten name
    must be gone there too, not only from the listing."""
    await repl.evaluate("gone := 7")
    await repl.evaluate("gone + 1")
    await repl.evaluate(":forget gone")
    out = await repl.evaluate("Workspace globals includesKey: #gone")
    assert out.ok
    again = await repl.evaluate("gone := gone")
    assert not again.ok and "Undefined variable: gone" in again.text


async def test_actors_lists_live_actors(repl):
    await repl.evaluate("Actor subclass: HabitCtr\n  state: n = 0\n  bump => self.n := self.n + 1")
    await repl.evaluate("hc := HabitCtr spawn")
    out = await repl.evaluate(":actors")
    pid = (await repl.evaluate("hc pid")).text
    assert out.ok and f"  a HabitCtr  {pid}" in out.text.splitlines(), out.text
    await repl.evaluate("hc stop")
    out = await repl.evaluate(":actors")
    assert "a HabitCtr" not in out.text


@pytest.mark.parametrize("typed, named", [
    ("b().", "`:bindings`"),
    ("f().", "`:clear`"),
    ("f(X).", "`:forget x`"),
    ("v(-1).", "`_`"),
    ("v()", "`_`"),
    ("flush().", "`Erlang c flush`"),
    ("i().", "`:actors`"),
    ("regs().", "`:actors`"),
    ("c(counter).", "`:load PATH`"),
    ("h(lists).", "`:help Erlang lists`"),
    ("q().", "`:quit`"),
    ("pid(0,80,0)", "`Erlang c pid: 0 with: 80 with: 0`"),
    ("memory().", "`Erlang erlang memory`"),
    ("h Enum.map", "`:help Enum map`"),
    ("h lists", "`:help Erlang lists`"),
    ("exports Integer", "`:help Integer`"),
    ("i thing", "`thing class`"),
    ("recompile", "`:reload`"),
    ("r Counter", "`:reload ClassName`"),
    ("runtime_info", "`:workspace`"),
    ("IEx.break!", "no debugger"),
    ("self halt", "no debugger"),
    ("Object browse", "`:help Object`"),
    ("dir(x)", "`x class selectors`"),
    ("type(x)", "`x class`"),
    ('c "counter.bt"', "`:load counter.bt`"),
    ("pwd", "`Erlang file get_cwd`"),
    ("x class browse", "`:help ClassName`"),
])
def test_habit_names_our_way(typed, named):
    hint = habit_hint(typed)
    assert hint is not None and named in hint, hint


@pytest.mark.parametrize("code", ["x := 3", "3 + 4", "Object new", "b", "f value: 3"])
def test_ordinary_code_is_no_habit(code):
    assert habit_hint(code) is None


async def test_habit_replaces_the_parse_error(repl):
    out = await repl.evaluate("b().")
    assert not out.ok and out.kind == "hint"
    assert out.text == ("Hint: `b()` is another shell's habit; here `:bindings` (`:b`) lists this "
                        "session's bindings.")
    out = await repl.evaluate("f(X).")
    assert "`:forget x`" in out.text and "Undefined variable" not in out.text


async def test_habit_under_a_runtime_error_keeps_it(repl):
    out = await repl.evaluate("Object browse")
    assert not out.ok and out.kind == "runtime"
    assert "does not understand 'browse'" in out.text
    assert out.text.splitlines()[-1].startswith("Hint: `Object browse` is another shell's habit; here `:help Object`")
    assert "browse" in (await repl.evaluate("_error message")).text


async def test_code_that_runs_gets_no_habit_hint(repl):
    """`i x` is a habit only when it fails: with `i` bound it is a send."""
    await repl.evaluate("i := -5")
    assert (await repl.evaluate("i abs")).text == "5"


async def test_actors_lists_an_actor_that_cannot_answer(repl):
    """An actor whose class was redefined as a Value class cannot print
    itself: `:actors` still lists it (and every other one)."""
    await repl.evaluate("Actor subclass: HabitGone\n  state: n = 0\n  n => self.n")
    await repl.evaluate("hg := HabitGone spawn")
    await repl.evaluate("Value subclass: HabitGone\n  state: n = 0")
    await repl.evaluate("Actor subclass: HabitLive\n  state: n = 0\n  n => self.n")
    await repl.evaluate("hl := HabitLive spawn")
    out = await repl.evaluate(":actors")
    assert out.ok, out.text
    lines = out.text.splitlines()
    assert any(line.startswith("  a HabitLive  #Pid<") for line in lines), lines
    assert any(line.startswith("  an actor that cannot answer: ") for line in lines), lines
    await repl.evaluate("hl stop")


async def test_underscore_is_not_stored(own_ws):
    """The durable store keeps the user's bindings, not the last value: a
    restore counts only those (a shell's `_` does not outlive it either)."""
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import launcher
    from beamtalk_ws.workspace.client import WorkspaceClient

    launcher.start(own_ws, idle_timeout=None)
    c = await WorkspaceClient.connect(own_ws, session="u")
    try:
        repl = Repl(c)
        assert (await repl.evaluate("keep := 6")).text == "6"
        assert (await repl.evaluate("_ * 7")).text == "42"
    finally:
        await c.close()
    from conftest import run_beamtalk

    r = run_beamtalk(["workspace", "stop", own_ws.id])
    assert r.returncode == 0, r.stderr
    info, started = launcher.start(own_ws, idle_timeout=None)
    assert started and info.restored.startswith("Restored 1 binding"), info.restored
    c = await WorkspaceClient.connect(own_ws, session="u")
    try:
        repl = Repl(c)
        gone = await repl.evaluate("_")
        assert not gone.ok and "Undefined variable: _" in gone.text
        assert (await repl.evaluate("keep")).text == "6"
    finally:
        await c.close()


def test_interactive_validator_shows_the_habit_hint():
    """The interactive REPL does not send an input no continuation can
    complete (`b().`): the message under it is the habit's hint, not the
    parse error."""
    from beamtalk_ws.repl.validator import syntax_error

    offset, message = syntax_error("b().")
    assert offset == 0 and "`:bindings`" in message
    assert "`:quit`" in syntax_error("q().")[1]
    assert syntax_error("]")[1].startswith("1:1: ")


async def test_a_bound_command_word_is_a_variable_also_when_its_send_fails(repl):
    """`r unwrap` with `r` bound is a message to `r`: its error is not IEx's
    `r Module` habit (the hint talked about `:reload`)."""
    await repl.evaluate("r := Erlang file read_file: \"/nonexistent/x\"")
    out = await repl.evaluate("r unwrap")
    assert not out.ok and out.kind == "runtime"
    assert "Cannot unwrap {#error, #enoent}" in out.text
    assert "habit" not in out.text and ":reload" not in out.text
    # a Pharo habit on a bound value still gets its hint
    out = await repl.evaluate("r browse")
    assert "another shell's habit" in out.text


def test_bound_command_words_hide_only_the_command_habits():
    assert habit_hint("r unwrap", {"r"}) is None
    assert habit_hint("i size", {"i"}) is None
    assert habit_hint("r Counter") is not None
    assert habit_hint("x browse", {"x"}) is not None


async def test_a_command_word_habit_keeps_the_undefined_variable_error(repl):
    """`h go` after `h := Halter new` failed (its class did not load): the
    input is a send to a variable the user believes is bound, so the located
    "Undefined variable: h" stays and the IEx hint comes under it (it was
    replaced by the hint alone, which sent a Pharo user to `:help Erlang go`)."""
    out = await repl.evaluate("h go")
    assert not out.ok
    assert out.text.startswith("<input>:1:1: Undefined variable: h"), out.text
    assert out.text.splitlines()[-1].startswith("Hint: `h go` is another shell's habit"), out.text
