"""Finding a bug at the REPL (outsider check): what a stopped evaluation and
a call that timed out say about where the program was.

A runaway method used to answer a bare `Interrupted` or `Request timed
out`; an actor call that timed out said only "may be busy or waiting on
another actor (deadlock)", whichever it was.
"""

from __future__ import annotations

import asyncio

from helpers import err, ok

LOOPS = """\
Object subclass: DbgLoops
  spin =>
    i := 0.
    [i < 10] whileTrue: [i := i + 1. i := i - 1].
    ^i
  deep: n =>
    ^1 + (self deep: n + 1)
"""

PING = """\
Actor subclass: DbgPing
  state: other = nil
  other: o => self.other := o
  ping => ^self.other pong
  pong => ^self.other ping
  slow => Erlang timer sleep: 7000. ^#done
  count => ^42
"""


async def load(repl, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    out = await repl.evaluate(f":load {path}")
    assert out.ok, out.text


async def interrupted(repl, code):
    """Run `code`, interrupt it once it has run a while, answer the reply."""
    task = asyncio.ensure_future(repl.evaluate(code))
    while not await repl.client.interrupt():   # idle until the input has started
        await asyncio.sleep(0.05)
    return await asyncio.wait_for(task, 10)


async def test_an_interrupt_says_which_method_was_running(repl, tmp_path):
    await load(repl, tmp_path, "dbg_loops.bt", LOOPS)
    await ok(repl, "keep := 1")
    task = asyncio.ensure_future(repl.evaluate("DbgLoops new spin"))
    await asyncio.sleep(1.0)
    assert await repl.client.interrupt()
    out = await asyncio.wait_for(task, 10)
    assert out.kind == "interrupted"
    assert out.text.startswith("Interrupted\n  Location: DbgLoops>>spin (dbg_loops.bt:"), out.text
    assert await ok(repl, "keep") == "1"


async def test_an_interrupted_recursion_without_end_says_so(repl, tmp_path):
    await load(repl, tmp_path, "dbg_loops2.bt", LOOPS.replace("DbgLoops", "DbgLoops2"))
    task = asyncio.ensure_future(repl.evaluate("DbgLoops2 new deep: 1"))
    await asyncio.sleep(1.5)
    assert await repl.client.interrupt()
    out = await asyncio.wait_for(task, 20)
    lines = out.text.splitlines()
    assert lines[0] == "Interrupted", out.text
    assert lines[1] == "  Location: DbgLoops2>>deep: (dbg_loops2.bt:7)", out.text
    assert lines[2].startswith("  Hint: the stack had grown to ") and "calls itself" in lines[2], out.text


async def test_a_timed_out_request_says_where_it_was(repl, tmp_path):
    await load(repl, tmp_path, "dbg_loops3.bt", LOOPS.replace("DbgLoops", "DbgLoops3"))
    compiled = await repl.compile("DbgLoops3 new spin")
    reply = await repl.client.eval(compiled.forms, timeout_ms=500)
    assert reply.kind == "timeout"
    assert reply.text.startswith("Request timed out\n  Location: DbgLoops3>>spin (dbg_loops3.bt:"), reply.text


async def test_an_input_typed_at_the_repl_is_interrupted_as_before(repl):
    out = await interrupted(repl, "[true] whileTrue: []")
    assert out.text == "Interrupted"


async def test_an_interrupt_while_waiting_for_an_actor_says_what_the_actor_runs(repl, tmp_path):
    await load(repl, tmp_path, "dbg_ping0.bt", PING.replace("DbgPing", "DbgPing0"))
    await ok(repl, "s := DbgPing0 spawn")
    task = asyncio.ensure_future(repl.evaluate("s slow"))
    await asyncio.sleep(1.0)
    assert await repl.client.interrupt()
    out = await asyncio.wait_for(task, 10)
    assert out.text.startswith("Interrupted\n"), out.text
    assert "a DbgPing0" in out.text and "'slow'" in out.text, out.text
    assert "DbgPing0>>slow (dbg_ping0.bt:6)" in out.text, out.text


async def test_a_deadlock_of_two_actors_names_both(repl, tmp_path):
    await load(repl, tmp_path, "dbg_ping.bt", PING)
    await ok(repl, "p := DbgPing spawn")
    await ok(repl, "q := DbgPing spawn")
    await ok(repl, "p other: q")
    await ok(repl, "q other: p")
    # The chain, read while the two actors wait on each other (a caller's
    # own timeout races with theirs, which fire a moment later)
    await ok(repl, "Erlang erlang spawn: [p ping]")
    await ok(repl, "Erlang timer sleep: 300")
    hint = await ok(repl, "Erlang beamtalk_where call_timeout_hint: #DbgPing with: p pid")
    assert "waiting for a DbgPing" in hint and "'pong'" in hint and "'ping'" in hint, hint
    assert "deadlock" in hint, hint
    text = await err(repl, "p ping")
    assert "did not answer 'ping' within 5000 ms" in text, text
    assert "Hint: " in text, text


async def test_a_busy_actor_says_where_it_is(repl, tmp_path):
    await load(repl, tmp_path, "dbg_ping2.bt", PING.replace("DbgPing", "DbgPing2"))
    await ok(repl, "s := DbgPing2 spawn")
    text = await err(repl, "s slow")
    assert "did not answer 'slow' within 5000 ms" in text, text
    assert "busy in DbgPing2>>slow (dbg_ping2.bt:6)" in text, text


async def test_a_field_that_is_not_there_names_the_fields_that_are(repl):
    # `fieldAt:` with a misspelt name said only "has no field 'balanse'"
    await ok(repl, "Actor subclass: DbgAcct\n  state: balance = 0\n  state: history = #()")
    await ok(repl, "Object subclass: DbgBox\n  state: width = 1")
    await ok(repl, "a := DbgAcct spawn")
    text = await err(repl, "a fieldAt: #balanse")
    assert "Message: DbgAcct has no field 'balanse'" in text, text
    assert "Hint: did you mean #balance? Its fields are: balance, history" in text, text
    text = await err(repl, "a fieldAt: #zzz put: 3")
    assert "Hint: Its fields are: balance, history" in text, text
    text = await err(repl, "DbgBox new fieldAt: #widht")
    assert "Hint: did you mean #width? Its fields are: width" in text, text


async def test_pharo_debugging_selectors_name_the_beamtalk_way(repl):
    # `self halt` in a method (Pharo's breakpoint) and the exception's
    # `receiver` / `signalerContext` got "Check spelling".
    await ok(repl, "Object subclass: DbgHalter\n  go => self halt. ^1")
    text = await err(repl, "DbgHalter new go")
    assert "does not understand 'halt'" in text and "no debugger to stop in" in text, text
    assert "Transcript show:" in text, text
    text = await err(repl, "[42 foo] on: Error do: [:e | e receiver]")
    assert "Hint: an exception answers errorClass" in text, text
    text = await err(repl, "[42 foo] on: Error do: [:e | e signalerContext]")
    assert "Hint: an exception carries its frames: e stackTrace" in text, text


async def test_an_actor_monitored_for_its_own_reasons_is_not_the_one_waited_for(repl, tmp_path):
    # The input monitors `m` itself (an Erlang habit: to hear of its end),
    # then calls `s`, which is busy: the hint names `s`, whichever monitor
    # the process table lists last.
    await load(repl, tmp_path, "dbg_ping5.bt", PING.replace("DbgPing", "DbgPing5"))
    await ok(repl, "m := DbgPing5 spawn")
    await ok(repl, "s := DbgPing5 spawn")
    for first, second in (("m", "s"), ("s", "m")):
        code = (f"Erlang erlang monitor: #process with: {first} pid. "
                f"Erlang erlang monitor: #process with: {second} pid. s slow")
        task = asyncio.ensure_future(repl.evaluate(code))
        await asyncio.sleep(1.0)
        assert await repl.client.interrupt()
        out = await asyncio.wait_for(task, 10)
        s_pid = await ok(repl, "s pid")
        assert "'slow'" in out.text, out.text
        assert s_pid.strip("#<>").split()[-1] in out.text or "busy in DbgPing5>>slow" in out.text, (out.text, s_pid)
