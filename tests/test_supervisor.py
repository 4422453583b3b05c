"""Supervision across both languages against a real node: a `Supervisor
subclass:` run by OTP's `supervisor`, with Beamtalk actors and a plain Erlang
gen_server as children (seed ADR 0028 §5, issue 12 item 5)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import uuid

import pytest

from helpers import err, ok

KV_ERL = """\
-module({mod}).
-behaviour(gen_server).
-export([start_link/0, init/1, handle_call/3, handle_cast/2]).
start_link() -> gen_server:start_link(?MODULE, #{{}}, []).
init(M) -> {{ok, M}}.
handle_call({{put, K, V}}, _, M) -> {{reply, ok, M#{{K => V}}}};
handle_call({{get, K}}, _, M) -> {{reply, maps:get(K, M, nil), M}};
handle_call(crash, _, _) -> exit(boom).
handle_cast(_, M) -> {{noreply, M}}.
"""

TALLY = """\
Actor subclass: {name}
  state: count = 0
  state: started = 0
  initialize => self.started := self.started + 1
  bump => self.count := self.count + 1
  count => self.count
  started => self.started
"""


async def until_changed(repl, code, old, tries=200):
    """`code`'s answer once it differs from `old` and is not nil (a restart is
    asynchronous: the supervisor handles the EXIT after the kill returns)."""
    text = old
    for _ in range(tries):
        text = await ok(repl, code)
        if text not in (old, "nil"):
            return text
        await asyncio.sleep(0.02)
    raise AssertionError(f"{code} still answers {text}")


def uid() -> str:
    return uuid.uuid4().hex[:6]


@pytest.fixture
def kv_module(tmp_path):
    """A plain Erlang gen_server compiled into tmp_path: (module name, ebin)."""
    mod = "bt_kv_" + uid()
    src = tmp_path / f"{mod}.erl"
    src.write_text(KV_ERL.format(mod=mod))
    subprocess.run(["erlc", "-o", str(tmp_path), str(src)], check=True, timeout=60)
    return mod, tmp_path


async def add_path(repl, ebin):
    assert await ok(repl, f'Erlang code add_patha: (Erlang erlang binary_to_list: "{ebin}")') == "true"


async def test_restarts_a_crashing_actor_and_a_crashing_gen_server(repl, kv_module):
    mod, ebin = kv_module
    await add_path(repl, ebin)
    n = uid()
    tally, sup = f"SvTally{n}", f"SvSup{n}"
    await ok(repl, TALLY.format(name=tally))
    await ok(repl, f"Supervisor subclass: {sup}\n"
                   f"  class children => #({tally}, (Erlang childSpec: #{{#id => #kv, "
                   f"#start => #(#{mod}, #start_link, #())}}))\n")
    assert re.fullmatch(rf"{sup}\(<\d+\.\d+\.\d+>\)", await ok(repl, f"s := {sup} start"))

    which = await ok(repl, "s which")
    assert re.fullmatch(rf"#\(#\{{#child => a {tally}, #id => #{tally}, #type => #worker\}}, "
                        rf"#\{{#child => #Pid<[\d.]+>, #id => #kv, #type => #worker\}}\)", which), which

    # the actor: state built up, then a crash (kill); the supervisor starts a
    # new process with the class's initial state and runs initialize again
    await ok(repl, f"(s child: #{tally}) bump; bump")
    assert await ok(repl, f"(s child: #{tally}) count") == "2"
    old = await ok(repl, f"(s child: #{tally}) pid")
    await ok(repl, f"(s child: #{tally}) kill")
    new = await until_changed(repl, f"(s child: #{tally}) pid", old)
    assert new != old
    assert await ok(repl, f"(s child: #{tally}) count") == "0"
    assert await ok(repl, f"(s child: #{tally}) started") == "1"

    # the gen_server: state, then a crash inside a call (raised in the caller)
    assert await ok(repl, "Erlang gen_server call: (s child: #kv) with: (Erlang erlang list_to_tuple: #(#put, #a, 1))") == "#ok"
    assert await ok(repl, "Erlang gen_server call: (s child: #kv) with: (Erlang erlang list_to_tuple: #(#get, #a))") == "1"
    old_kv = await ok(repl, "s child: #kv")
    crash = await err(repl, "Erlang gen_server call: (s child: #kv) with: #crash")
    assert "boom" in crash
    new_kv = await until_changed(repl, "s child: #kv", old_kv)
    assert new_kv.startswith("#Pid<") and new_kv != old_kv
    assert await ok(repl, "Erlang gen_server call: (s child: #kv) with: (Erlang erlang list_to_tuple: #(#get, #a))") == "nil"

    # which shows both, running again, with their new processes
    which = await ok(repl, "s which")
    assert f"#child => a {tally}, #id => #{tally}" in which
    assert f"#child => {new_kv}, #id => #kv" in which
    children = await ok(repl, "s children")
    assert children == f"#(a {tally}, {new_kv})"
    assert await ok(repl, f"{sup} current") == await ok(repl, "s")
    await ok(repl, "s stop")
    assert await ok(repl, f"{sup} current") == "nil"
    assert await ok(repl, "s isAlive") == "false"


async def test_terminate_restart_start_and_delete_children(repl):
    n = uid()
    tally, sup = f"SvT{n}", f"SvS{n}"
    await ok(repl, TALLY.format(name=tally))
    await ok(repl, f"Supervisor subclass: {sup}\n"
                   f"  class strategy => #oneForAll\n"
                   f"  class children => #(#{{#actor => {tally}, #id => #five, #with => #{{#count => 5}}}})\n")
    await ok(repl, f"s := {sup} start")
    assert await ok(repl, "(s child: #five) count") == "5"
    assert await ok(repl, "s terminateChild: #five") == await ok(repl, "s")
    assert await ok(repl, "s child: #five") == "nil"
    assert await ok(repl, "s which") == "#(#{#child => nil, #id => #five, #type => #worker})"
    assert await ok(repl, "s children") == "#()"
    assert await ok(repl, "(s restartChild: #five) count") == "5"

    # a child added while running, then removed
    assert await ok(repl, f"(s startChild: #{{#actor => {tally}, #id => #more}}) count") == "0"
    assert await ok(repl, "(s which) size") == "2"
    await ok(repl, "s deleteChild: #more")
    assert await ok(repl, "(s which) size") == "1"

    # errors say what is wrong and keep the supervisor running
    assert f"{sup} has no child #nope" in await err(repl, "s child: #nope")
    assert "Its children are: #five" in await err(repl, "s terminateChild: #nope")
    assert f"{sup} is already running" in await err(repl, f"{sup} start")
    assert "already running" in await err(repl, f"s startChild: #{{#actor => {tally}, #id => #five}}")
    assert f"Cannot call 'new' on {sup}" in await err(repl, f"{sup} new")
    await ok(repl, "s stop")
    assert "supervisor process has terminated" in await err(repl, "s which")


async def test_a_nested_supervisor_child(repl):
    n = uid()
    tally, inner, outer = f"SvNT{n}", f"SvIn{n}", f"SvOut{n}"
    await ok(repl, TALLY.format(name=tally))
    await ok(repl, f"Supervisor subclass: {inner}\n  class children => #({tally})\n")
    await ok(repl, f"Supervisor subclass: {outer}\n  class children => #({inner})\n")
    await ok(repl, f"s := {outer} start")
    assert re.fullmatch(rf"#\(#\{{#child => {inner}\(<[\d.]+>\), #id => #{inner}, #type => #supervisor\}}\)",
                        await ok(repl, "s which"))
    assert await ok(repl, f"((s child: #{inner}) child: #{tally}) count") == "0"
    assert await ok(repl, f"{inner} current") == await ok(repl, f"s child: #{inner}")
    await ok(repl, "s stop")
    assert await ok(repl, f"{inner} current") == "nil"


async def test_bad_descriptions_are_errors_where_start_is_sent(repl):
    n = uid()
    await ok(repl, f"Supervisor subclass: SvBad{n}\n  class strategy => #sometimes\n")
    text = await err(repl, f"SvBad{n} start")
    assert f"SvBad{n} strategy must answer #oneForOne, #oneForAll or #restForOne, not #sometimes" in text
    await ok(repl, f"Supervisor subclass: SvBadKids{n}\n  class children => #(3)\n")
    text = await err(repl, f"SvBadKids{n} start")
    assert "A child must be an Actor subclass, a Supervisor subclass or a child spec Dictionary, not 3" in text
    await ok(repl, f"Object subclass: SvPlain{n}\n  foo => 1\n")
    await ok(repl, f"Supervisor subclass: SvPlainKids{n}\n  class children => #(SvPlain{n})\n")
    assert f"Supervisor subclass or a child spec Dictionary, not SvPlain{n}" in await err(repl, f"SvPlainKids{n} start")
    assert "Supervisor is not a Supervisor subclass" in await err(repl, "Supervisor start")
    assert "An Erlang child spec needs an #id" in await err(repl, "Erlang childSpec: #{#start => #(#m, #f, #())}")
    assert "#start must be #(module, function, arguments)" in await err(repl, "Erlang childSpec: #{#id => #x, #start => 3}")
    assert "#restart must be #permanent, #transient or #temporary" in await err(
        repl, "Erlang childSpec: #{#id => #x, #start => #(#m, #f, #()), #restart => #always}")
    assert await ok(repl, f"SvBad{n} current") == "nil"
    # an Erlang child that cannot start: the start fails with its reason
    await ok(repl, f"Supervisor subclass: SvNoMod{n}\n"
                   f"  class children => #((Erlang childSpec: #{{#id => #gone, #start => #(#no_such_mod_{n}, #start_link, #())}}))\n")
    text = await err(repl, f"SvNoMod{n} start")
    assert (f"Cannot start SvNoMod{n}: child #gone failed to start: no_such_mod_{n}:start_link/0 is undefined "
            f"(is no_such_mod_{n} on the code path?)") in text
    # an actor child whose initialize fails
    await ok(repl, f"Actor subclass: SvBoom{n}\n  initialize => self error: \"no way\"\n")
    await ok(repl, f"Supervisor subclass: SvBoomSup{n}\n  class children => #(SvBoom{n})\n")
    text = await err(repl, f"SvBoomSup{n} start")
    assert f"Cannot start SvBoomSup{n}: child #SvBoom{n} failed to start: Error: no way" in text
    assert await ok(repl, f"SvNoMod{n} current") == "nil"
