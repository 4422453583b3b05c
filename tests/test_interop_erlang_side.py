"""Erlang code calling Beamtalk (seed ADR 0028's other direction), checked
against a real node the way an Erlang developer writes it: a module of their
own compiled from the REPL (`Erlang c c:`) that sends to actors and classes,
calls a Block it was given, and talks to an actor with gen_server.
"""

from __future__ import annotations

import uuid

from helpers import err, ok

MOD = """\
-module({name}).
-export([ask/3, counter/0, twice/2, raw_call/2]).
ask(Target, Sel, Args) -> beamtalk:send(Target, Sel, Args).
counter() ->
    {{ok, C}} = beamtalk:class('IesCounter'),
    {{ok, A}} = beamtalk:send(C, spawn, []),
    A.
twice(Block, X) -> Block(Block(X)).
raw_call(Pid, Msg) -> gen_server:call(Pid, Msg).
"""

COUNTER = """\
Actor subclass: IesCounter
  state: n = 0
  bump => self.n := self.n + 1
  add: k => self.n := self.n + k
  n => self.n
"""


async def compiled(repl, tmp_path):
    name = "ies_" + uuid.uuid4().hex[:8]
    src = tmp_path / f"{name}.erl"
    src.write_text(MOD.format(name=name))
    await ok(repl, COUNTER)
    out = tmp_path.as_posix()
    assert await ok(repl, f'Erlang c c: "{src.as_posix()}" asCharlist with: '
                          f'#((Tuple withAll: #(#outdir, "{out}" asCharlist)))') == f"{{#ok, #{name}}}"
    await ok(repl, f'Erlang code add_patha: "{out}" asCharlist')
    return name


async def test_erlang_sends_to_actors_classes_and_values(repl, tmp_path):
    m = await compiled(repl, tmp_path)
    await ok(repl, f"a := Erlang {m} counter")
    assert await ok(repl, "a class") == "IesCounter"
    assert await ok(repl, f"Erlang {m} ask: a with: #bump with: #()") == "{#ok, 1}"
    assert await ok(repl, f"Erlang {m} ask: a with: #add: with: #(10)") == "{#ok, 11}"
    # The actor's pid works as well as its record: Erlang code often holds only the pid.
    assert await ok(repl, f"Erlang {m} ask: a pid with: #n with: #()") == "{#ok, 11}"
    assert await ok(repl, f"Erlang {m} ask: 3 with: #+ with: #(4)") == "{#ok, 7}"
    assert await ok(repl, f'Erlang {m} ask: "abc" with: #reversed with: #()') == '{#ok, "cba"}'
    # Failures are {error, Text} with the REPL's text, never an exception.
    text = await ok(repl, f"Erlang {m} ask: a with: #nope with: #()")
    assert text.startswith("{#error, ") and "IesCounter does not understand 'nope'" in text, text
    text = await ok(repl, f"Erlang {m} ask: (Erlang erlang whereis: #code_server) with: #n with: #()")
    assert "not a Beamtalk actor" in text, text
    text = await ok(repl, f"Erlang {m} ask: a with: \"n\" with: #()")
    assert "selector must be an atom" in text, text


async def test_erlang_calls_a_block_and_gen_server_calls_an_actor(repl, tmp_path):
    m = await compiled(repl, tmp_path)
    assert await ok(repl, f"Erlang {m} twice: [:x | x * 3] with: 2") == "18"
    await ok(repl, "c := IesCounter spawn. c bump")
    # The actor's gen_server protocol: {Selector, Arguments} -> {ok, Value}.
    assert await ok(repl, f"Erlang {m} raw_call: c pid with: (Tuple withAll: #(#n, #()))") == "{#ok, 1}"
    # Anything else is answered with an error that says what to send.
    text = await ok(repl, f"Erlang {m} raw_call: c pid with: #n")
    assert text.startswith('{#error, "an actor takes {Selector, Arguments} requests: {n, []}'), text
    assert "{Selector, Arguments}" in text and "beamtalk:send" in text, text
    assert await ok(repl, "c n") == "1"


async def test_beamtalk_class_from_erlang(repl):
    assert await ok(repl, "(Erlang beamtalk class: #Integer) unwrap") == "Integer"
    text = await ok(repl, "Erlang beamtalk class: #NoSuchClassXyz")
    assert text == "{#error, \"Class 'NoSuchClassXyz' not found\"}", text


async def test_undef_inside_an_erlang_function_names_the_missing_one(repl, tmp_path):
    name = "ies_" + uuid.uuid4().hex[:8]
    src = tmp_path / f"{name}.erl"
    src.write_text(f"-module({name}).\n-export([go/1, missing/0]).\n"
                   f"go(X) -> lists:no_such_fun(X).\nmissing() -> nosuchmod_xyz:f().\n")
    out = tmp_path.as_posix()
    assert await ok(repl, f'Erlang c c: "{src.as_posix()}" asCharlist with: '
                          f'#((Tuple withAll: #(#outdir, "{out}" asCharlist)))') == f"{{#ok, #{name}}}"
    await ok(repl, f'Erlang code add_patha: "{out}" asCharlist')
    text = await err(repl, f"Erlang {name} go: 1")
    assert f"Function: go/1" in text and "Reason: undef" in text, text
    assert f"{name}:go/1 called lists:no_such_fun/1, which does not exist." in text, text
    text = await err(repl, f"Erlang {name} missing")
    assert "called nosuchmod_xyz:f/0, whose module is not loaded (is it on the code path?)" in text, text


async def test_help_erlang_says_how_to_call_erlang(repl):
    """Seed ADR 0028 (User Impact): `:help Erlang` should get a newcomer started."""
    text = await ok(repl, ":help Erlang")
    assert "first keyword names" in text and "Erlang lists seq: 1 with: 10" in text, text
    assert "asCharlist" in text and "call: #'+' args:" in text, text


async def test_an_erlang_timer_drives_an_actor_through_beamtalk_send(repl):
    await ok(repl, COUNTER)
    await ok(repl, "tk := IesCounter spawn")
    await ok(repl, "tr := Erlang timer apply_interval: 5 with: #beamtalk with: #send with: #(tk, #bump, #())")
    for _ in range(200):                      # until the timer's process has sent a few
        if int(await ok(repl, "tk n")) >= 3:
            break
        await ok(repl, "Erlang timer sleep: 10")
    assert int(await ok(repl, "tk n")) >= 3
    assert await ok(repl, "Erlang timer cancel: tr unwrap") == "{#ok, #cancel}"
    # A cast runs a message with nobody waiting; other casts are ignored.
    await ok(repl, "Erlang gen_server cast: tk pid with: (Tuple withAll: #(#cast, #add:, #(100)))")
    await ok(repl, "Erlang gen_server cast: tk pid with: #junk")
    assert int(await ok(repl, "tk n")) >= 103
