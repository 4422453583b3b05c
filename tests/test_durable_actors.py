"""Opt-in actor revival (issue 14): an actor class that answers `true` to
`class revivable` comes back after `workspace stop` + start, `workspace
restart` and a kill -9 of its node with its last state, and every stored
reference to it (a binding, a `Workspace bind:as:` global, another actor's
field) refers to the revived process.  Other actors still come back as dead
placeholders.

Each test uses a workspace of its own (the shared one must not be restarted).
"""

from __future__ import annotations

import os
import re
import subprocess

from beamtalk_ws.workspace import launcher

from conftest import run_beamtalk
from test_durable import kill9, ok, session


SETUP = [
    "Actor subclass: RevCounter\n  state: count = 0\n  class revivable => true\n"
    "  bump => self.count := self.count + 1\n  count => self.count",
    "Actor subclass: RevHolder\n  state: held = nil\n  classState: kept = nil\n"
    "  class revivable => true\n  class keep: x => self.kept := x\n  class kept => self.kept\n"
    "  hold: x => self.held := x\n  held => self.held",
    "Actor subclass: PlainCounter\n  state: count = 0\n"
    "  bump => self.count := self.count + 1\n  count => self.count",
    "c := RevCounter spawn",
    "c bump. c bump. c bump",
    "Workspace bind: c as: #RevShared",
    "h := RevHolder spawn",
    "h hold: c",
    "RevHolder keep: c",
    "cp := c pid",
    "p := PlainCounter spawn",
    "p bump",
]


async def set_up(ws):
    launcher.start(ws, idle_timeout=None)
    c, repl = await session(ws)
    try:
        for line in SETUP:
            await ok(repl, line)
        assert await ok(repl, "c count") == "3"
    finally:
        await c.close()


async def check(ws, count="3"):
    c, repl = await session(ws)
    try:
        assert await ok(repl, "c isAlive") == "true"
        assert await ok(repl, "c count") == count
        assert await ok(repl, "RevShared count") == count
        assert await ok(repl, "h held count") == count
        # one process, not three copies of the state
        assert await ok(repl, "(c pid) == (RevShared pid)") == "true"
        assert await ok(repl, "(c pid) == (h held pid)") == "true"
        assert await ok(repl, "(c pid) == (RevHolder kept pid)") == "true"
        assert await ok(repl, "cp == c pid") == "true"
        # it runs: a message after the restart changes the one revived state
        await ok(repl, "c bump")
        assert await ok(repl, "RevShared count") == str(int(count) + 1)
        await ok(repl, "c bump")  # (two bumps: back to a known count below)
        dead = await ok(repl, "p")
        assert re.fullmatch(r"a dead PlainCounter \(was <0\.\d+\.0>\)", dead), dead
    finally:
        await c.close()
    return str(int(count) + 2)


async def test_revivable_actor_survives_stop_and_start(own_ws):
    await set_up(own_ws)
    r = run_beamtalk(["workspace", "stop", own_ws.id])
    assert r.returncode == 0, r.stderr
    r = run_beamtalk(["workspace", "start", own_ws.id])
    assert r.returncode == 0, r.stderr
    assert "1 global" in r.stdout and "2 actors revived" in r.stdout, r.stdout
    count = await check(own_ws)
    # the state after the restart is what a second restart brings back
    r = run_beamtalk(["workspace", "restart", own_ws.id])
    assert r.returncode == 0, r.stderr
    assert "2 actors revived" in r.stdout, r.stdout
    await check(own_ws, count)


async def test_revivable_actor_survives_kill_9(own_ws):
    await set_up(own_ws)
    kill9(own_ws)
    info, started = launcher.start(own_ws, idle_timeout=None)
    assert started and "2 actors revived" in info.restored, info
    count = await check(own_ws)
    kill9(own_ws)
    info, started = launcher.start(own_ws, idle_timeout=None)
    assert started and "2 actors revived" in info.restored, info
    await check(own_ws, count)


async def test_a_stopped_actor_and_a_removed_class_come_back_dead(own_ws):
    launcher.start(own_ws, idle_timeout=None)
    c, repl = await session(own_ws)
    try:
        for line in SETUP[:2]:
            await ok(repl, line)
        await ok(repl, "a := RevCounter spawn. a bump")
        await ok(repl, "gone := RevCounter spawn. gone stop")
        # revivable is inherited like any class-side method, and can be undone
        await ok(repl, "RevCounter subclass: RevSub\n  twice => self bump. self bump")
        await ok(repl, "s := RevSub spawn. s twice")
        await ok(repl, "RevCounter subclass: RevNot\n  class revivable => false")
        await ok(repl, "n := RevNot spawn. n bump")
        await ok(repl, "Actor subclass: RevTemp\n  state: n = 1\n  class revivable => true\n  n => self.n")
        await ok(repl, "t := RevTemp spawn")
        await ok(repl, "RevTemp removeFromSystem")
    finally:
        await c.close()
    kill9(own_ws)
    info, started = launcher.start(own_ws, idle_timeout=None)
    assert started, info
    assert "2 actors revived" in info.restored, info
    c, repl = await session(own_ws)
    try:
        assert await ok(repl, "a count") == "1"
        assert await ok(repl, "s count") == "2"
        assert (await ok(repl, "n")).startswith("a dead RevNot (was <0.")
        gone = await ok(repl, "gone")
        assert re.fullmatch(r"a dead RevCounter \(was <0\.\d+\.0>\)", gone), gone
        t = await ok(repl, "t")
        assert t.startswith("a dead RevTemp (was <0.") and "class RevTemp" in t, t
    finally:
        await c.close()


async def test_a_store_from_before_actor_revival_gets_its_table(own_ws, tmp_path):
    """A format-1 store written before `bt_actor` existed is opened, keeps what
    it holds, and revives actors from then on."""
    await set_up(own_ws)
    run_beamtalk(["workspace", "stop", own_ws.id])
    store = launcher.store_dir(own_ws)
    home = tmp_path / "home"
    home.mkdir()
    code = ("application:set_env(mnesia, dir, \"%s\"), ok = mnesia:start(), "
            "ok = mnesia:wait_for_tables([bt_actor], 10000), "
            "{atomic, ok} = mnesia:delete_table(bt_actor), stopped = mnesia:stop(), halt()." % store)
    subprocess.run(["erl", "-noshell", "-sname", own_ws.node_name, "-eval", code],
                   check=True, timeout=60, cwd=tmp_path, capture_output=True, text=True,
                   env={**os.environ, "HOME": str(home), "ERL_CRASH_DUMP_BYTES": "0"})
    r = run_beamtalk(["workspace", "start", own_ws.id])
    assert r.returncode == 0, r.stderr
    assert "Restored" in r.stdout and "1 global" in r.stdout, r.stdout
    assert "actors revived" not in r.stdout and "another version" not in r.stdout, r.stdout
    c, repl = await session(own_ws)
    try:
        dead = await ok(repl, "c")
        assert dead.startswith("a dead RevCounter (was <0."), dead
        # (a class defined in this run: spawning a REPL class restored from the
        # store can fail with `undef` when the input-module pool lent its
        # defining module's name again after the restart; see the README)
        await ok(repl, "Actor subclass: RevAfter\n  state: count = 0\n  class revivable => true\n"
                       "  bump => self.count := self.count + 1\n  count => self.count")
        await ok(repl, "c := RevAfter spawn. c bump")
    finally:
        await c.close()
    kill9(own_ws)
    info, started = launcher.start(own_ws, idle_timeout=None)
    assert started and "1 actor revived" in info.restored, info
    c, repl = await session(own_ws)
    try:
        assert await ok(repl, "c count") == "1"
    finally:
        await c.close()
