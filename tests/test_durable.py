"""Durable workspaces (issue 14): what a workspace holds survives `workspace
stop` + start, `workspace restart` and a kill -9 of its node; `reset` drops
it; a store of another version is refused with a message.

Each test uses a workspace of its own (the shared one must not be restarted).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess

import pytest

from beamtalk_ws.workspace import launcher

from conftest import run_beamtalk
from helpers import session, shown_without


async def ok(repl, code) -> str:
    return await shown_without(repl, code, "ERROR", "hint:", "Undefined")


def kill9(ws):
    info = launcher.running_info(ws)
    assert info is not None
    os.kill(info.os_pid, signal.SIGKILL)
    assert launcher.wait_stopped(ws, timeout=10)


SETUP = [
    "n := 2",
    "adder := [:y | y + n]",
    "Value subclass: DurFoo\n  state: k = 5\n  bar => self k * 10",
    "f := DurFoo new",
    "Object classBuilder name: #DurDog; addField: #name default: \"Rex\"; "
    "addMethod: #speak body: [:me | (me fieldAt: #name) ++ \" says woof\"]; register",
    "Workspace bind: 7 as: #DurSeven",
    "me := Erlang erlang self",
    "t := Transcript",
]

CHECKS = {
    "adder value: 40": "42",
    "DurFoo new bar": "50",
    "f bar": "50",
    "DurDog new speak": '"Rex says woof"',
    "DurSeven": "7",
    "t == Transcript": "true",
}


async def set_up(ws):
    launcher.start(ws, idle_timeout=None)
    c, repl = await session(ws)
    try:
        for line in SETUP:
            await ok(repl, line)
    finally:
        await c.close()


async def check(ws):
    c, repl = await session(ws)
    try:
        for code, want in CHECKS.items():
            assert await ok(repl, code) == want, code
        dead = await ok(repl, "me")
        assert dead.startswith("a dead process (was <0.") and dead.endswith(")"), dead
        # the dead value is a value like any other: asking it more says what it is
        assert "DeadObject" in "\n".join((await repl.evaluate("me foo")).lines())
    finally:
        await c.close()


async def test_state_survives_stop_and_start(own_ws):
    await set_up(own_ws)
    r = run_beamtalk(["workspace", "stop", own_ws.id])
    assert r.returncode == 0, r.stderr
    r = run_beamtalk(["workspace", "start", own_ws.id])
    assert r.returncode == 0, r.stderr
    assert "Restored 5 bindings, 2 classes, 1 global, 0 watches" in r.stdout, r.stdout
    await check(own_ws)


async def test_state_survives_kill_9_and_restart_command(own_ws):
    await set_up(own_ws)
    kill9(own_ws)
    info, started = launcher.start(own_ws, idle_timeout=None)
    assert started and info.restored.startswith("Restored 5 bindings, 2 classes, 1 global"), info
    await check(own_ws)
    # `workspace restart` of a running workspace brings it back too
    r = run_beamtalk(["workspace", "restart", own_ws.id])
    assert r.returncode == 0, r.stderr
    # (check's `me foo` bound _error)
    assert "Restored 6 bindings, 2 classes" in r.stdout, r.stdout
    await check(own_ws)


async def test_reset_starts_empty_and_status_shows_storage(own_ws):
    await set_up(own_ws)
    r = run_beamtalk(["workspace", "status", own_ws.id])
    assert "Storage:" in r.stdout and " in " in r.stdout, r.stdout
    r = run_beamtalk(["workspace", "reset", own_ws.id], input="")
    # not a terminal: no question asked
    assert r.returncode == 0, r.stderr
    assert "Dropped the stored state" in r.stdout, r.stdout
    assert "Restored" not in r.stdout
    c, repl = await session(own_ws)
    try:
        out = "\n".join((await repl.evaluate("adder")).lines())
        assert "Undefined variable: adder" in out, out
        out = "\n".join((await repl.evaluate("DurFoo")).lines())
        assert "DurFoo" in out and "ERROR" in out, out
    finally:
        await c.close()


async def test_a_store_of_another_version_is_refused(own_ws, tmp_path):
    await set_up(own_ws)
    run_beamtalk(["workspace", "stop", own_ws.id])
    # Another beamtalk_ws wrote format 99: rewrite the version record on a
    # node of the same name, as that version would have left it.
    store = launcher.store_dir(own_ws)
    home = tmp_path / "home"
    home.mkdir()

    def on_store(action):
        code = ("application:set_env(mnesia, dir, \"%s\"), ok = mnesia:start(), "
                "ok = mnesia:wait_for_tables([bt_meta, bt_binding], 10000), %s, "
                "stopped = mnesia:stop(), halt()." % (store, action))
        # (logger_level: mnesia's "exited: stopped" report may reach stdout before halt)
        return subprocess.run(["erl", "-noshell", "-sname", own_ws.node_name,
                               "-kernel", "logger_level", "warning", "-eval", code],
                              check=True, timeout=60, cwd=tmp_path, capture_output=True, text=True,
                              env={**os.environ, "HOME": str(home), "ERL_CRASH_DUMP_BYTES": "0"}).stdout

    on_store("ok = mnesia:dirty_write({bt_meta, schema_version, 99})")
    r = run_beamtalk(["workspace", "start", own_ws.id])
    assert r.returncode == 0, r.stderr
    assert "written by another version of beamtalk_ws (store format 99" in r.stdout, r.stdout
    assert "Restored" not in r.stdout
    c, repl = await session(own_ws)
    try:
        # running, empty, and the old store is left as it was
        assert "Undefined variable" in "\n".join((await repl.evaluate("adder")).lines())
        assert await ok(repl, "3 + 4") == "7"
    finally:
        await c.close()
    run_beamtalk(["workspace", "stop", own_ws.id])
    # the refused store still holds what it held
    out = on_store('io:format("~p ~p~n", [mnesia:dirty_read(bt_meta, schema_version), '
                   'mnesia:table_info(bt_binding, size)])')
    assert out.strip() == "[{bt_meta,schema_version,99}] 5", out


async def test_crash_consistency_under_kill_9(own_ws):
    """Kill the node during a stream of evaluations, many times: what comes
    back is always the state after some prefix of the evaluations, and never
    less than what had been answered."""
    launcher.start(own_ws, idle_timeout=None)
    c, repl = await session(own_ws)
    await ok(repl, "last := 0. total := 0")
    await c.close()
    rng = random.Random(14)
    done = 0          # evaluations answered so far (over all rounds)
    for _round in range(6):
        c, repl = await session(own_ws)
        answered = done

        async def stream():
            nonlocal answered
            k = answered
            while True:
                k += 1
                # one evaluation changes three bindings and a block together
                await ok(repl, f"last := {k}. total := total + {k}. "
                               f"a{k} := [{k}]")
                answered = k

        task = asyncio.ensure_future(stream())
        await asyncio.sleep(rng.uniform(0.3, 1.2))
        kill9(own_ws)
        with pytest.raises(Exception):
            await task
        await c.close()
        launcher.start(own_ws, idle_timeout=None)
        c, repl = await session(own_ws)
        try:
            last = int(await ok(repl, "last"))
            assert last >= answered, (last, answered)      # nothing answered is lost
            assert last <= answered + 1                       # at most the one in flight
            assert await ok(repl, "total") == str(last * (last + 1) // 2)
            if last:
                assert await ok(repl, f"a{last} value") == str(last)
            names = [n for n, _ in await c.bindings() if n.startswith("a") and n[1:].isdigit()]
            assert sorted(int(n[1:]) for n in names) == list(range(1, last + 1))
        finally:
            await c.close()
        done = last
    assert done > 6


async def test_a_new_workspace_creates_its_store_after_it_is_ready(own_ws, bt_home):
    """A new store is created by the store process once the node is up
    (beamtalk_store:open/1); the first evaluation waits for it, so what it
    binds is durable all the same.  The boot's dispatch module comes from the
    stdlib cache (beamtalk_dispatch_gen:cache_in/1), not a .beam there."""
    launcher.start(own_ws, idle_timeout=None)
    c, repl = await session(own_ws)
    try:
        assert await ok(repl, "early := 41 + 1") == "42"
        status = run_beamtalk(["workspace", "status", own_ws.id])
        assert status.returncode == 0 and "store" in status.stdout.lower()
    finally:
        await c.close()
    cached = list(bt_home.glob("cache/stdlib/*/beamtalk_dispatch-*.cached"))
    assert len(cached) == 1
    assert not list(bt_home.glob("cache/stdlib/*/beamtalk_dispatch*.beam"))
    kill9(own_ws)
    launcher.start(own_ws, idle_timeout=None)
    c, repl = await session(own_ws)
    try:
        assert await ok(repl, "early") == "42"
        assert await ok(repl, "3 + 4") == "7"
    finally:
        await c.close()
    assert list(bt_home.glob("cache/stdlib/*/beamtalk_dispatch-*.cached")) == cached


async def test_a_repl_that_starts_the_node_says_what_was_restored(own_ws):
    """After a kill -9, `beamtalk repl` starts the node again: the user is
    told what came back (as `workspace start` does), not left to guess."""
    await set_up(own_ws)
    kill9(own_ws)
    r = run_beamtalk(["repl", "--workspace", own_ws.id], input="DurSeven\n")
    assert r.returncode == 0, r.stderr
    assert "Starting workspace" in r.stderr
    assert "Restored 5 bindings, 2 classes, 1 global, 0 watches" in r.stderr, r.stderr
    assert r.stdout.strip().endswith("7"), r.stdout


async def test_a_mnesia_core_dump_would_go_to_the_private_store(repl):
    # Mnesia writes MnesiaCore.<node>… when it stops on a fatal error; it
    # holds table contents (bindings).  It used to land in the node's current
    # directory, the user's project (one was once committed by mistake).
    out = await repl.evaluate("Erlang mnesia_lib core_file")
    assert out.ok, out.text
    path = "".join(map(chr, json.loads(out.text.replace("#(", "[").replace(")", "]"))))
    store = repl.client.ws.dir / "store"
    assert os.path.commonpath([path, str(store)]) == str(store), (path, store)
