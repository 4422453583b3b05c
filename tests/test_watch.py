"""Reload on save (`:watch`, `beamtalk watch`): the polling watcher alone, then
against real nodes — a saved change reaches running actors with no command typed."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

from conftest import beamtalk_cmd, run_beamtalk

from beamtalk_ws.repl.watch import changes, snapshot


def touch(path: Path, text: str) -> None:
    path.write_text(text)
    st = path.stat()  # make the change visible even within one mtime tick
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))


async def test_changes_are_settled_sets_of_files(tmp_path):
    a = tmp_path / "a.bt"
    a.write_text("x")
    (tmp_path / ".hidden").mkdir()
    seen = changes([tmp_path], interval=0.05)
    first = asyncio.ensure_future(seen.__anext__())
    await asyncio.sleep(0.1)
    touch(a, "y")
    (tmp_path / "b.bt").write_text("new")
    (tmp_path / "notes.txt").write_text("ignored")
    (tmp_path / ".hidden" / "c.bt").write_text("ignored too")
    assert await asyncio.wait_for(first, 5) == {a, tmp_path / "b.bt"}
    a.unlink()
    assert await asyncio.wait_for(seen.__anext__(), 5) == {a}
    await seen.aclose()


def test_snapshot_of_a_file_and_of_nothing(tmp_path):
    f = tmp_path / "one.bt"
    f.write_text("x")
    assert set(snapshot([f, tmp_path / "missing"])) == {f}


async def test_watch_reloads_a_package_on_save(repl, tmp_path):
    from beamtalk_ws.package import manifest, scaffold

    root = scaffold.new("watched_app", tmp_path)
    src = root / "src" / "watched_tally.bt"
    body = "Actor subclass: WatchedTally\n  state: n = 0\n  bump => self.n := self.n + 1\n"
    src.write_text(body)
    repl.package = manifest.load(root)
    assert (await repl.evaluate(":reload")).ok
    reloads: asyncio.Queue = asyncio.Queue()
    repl.notify = reloads.put_nowait
    started = await repl.evaluate(":watch")
    assert started.text == ("Watching watched_app's src/: every save is compiled and hot-reloaded "
                            "(:watch off stops).")
    try:
        assert (await repl.evaluate("t := WatchedTally spawn")).ok
        assert (await repl.evaluate("t bump; bump")).text == "2"
        touch(src, body + "  n => self.n\n")
        done = await asyncio.wait_for(reloads.get(), 15)
        assert (done.ok, done.text) == (True, "\u21bb Compiled watched_app v0.1.0 (2 classes); 1 reloaded")
        assert (await repl.evaluate("t n")).text == "2"
        touch(src, body + "  n => (self.n\n")
        bad = await asyncio.wait_for(reloads.get(), 15)
        assert not bad.ok and bad.text.startswith("\u21bb watched_app: 1 file did not compile:")
        assert (await repl.evaluate("t n")).text == "2"     # the old code stays
    finally:
        assert (await repl.evaluate(":watch off")).text == "Stopped watching."
    assert (await repl.evaluate(":watch off")).text.startswith("Not watching anything")


async def test_watch_a_path_loads_it_first(repl, tmp_path):
    f = tmp_path / "watched_thing.bt"
    f.write_text("Object subclass: WatchedThing\n  answer => 41\n")
    reloads: asyncio.Queue = asyncio.Queue()
    repl.notify = reloads.put_nowait
    started = await repl.evaluate(f":watch {f}")
    try:
        assert started.ok and started.text.splitlines()[0] == "Loaded: WatchedThing"
        touch(f, "Object subclass: WatchedThing\n  answer => 42\n")
        done = await asyncio.wait_for(reloads.get(), 15)
        assert done.text == "\u21bb Loaded: WatchedThing"
        assert (await repl.evaluate("WatchedThing new answer")).text == "42"
    finally:
        await repl.evaluate(":watch off")
    assert (await repl.evaluate(":watch /no/such/file.bt")).text == "File not found: /no/such/file.bt"


def test_beamtalk_watch_follows_saves_until_ctrl_c(bt_home, tmp_path):
    r = run_beamtalk(["new", "cli_watch"], cwd=tmp_path)
    assert r.returncode == 0
    root = tmp_path / "cli_watch"
    proc = subprocess.Popen(beamtalk_cmd() + ["watch"], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        deadline = time.monotonic() + 60
        while len(lines) < 2 and time.monotonic() < deadline:
            lines.append(proc.stdout.readline().rstrip("\n"))
        assert lines == ["Compiled cli_watch v0.1.0 (1 class); 1 reloaded",
                         "Watching cli_watch's src/: every save is compiled and hot-reloaded (Ctrl-C stops)."]
        touch(root / "src" / "main.bt", (root / "src" / "main.bt").read_text() + "  class other => 2\n")
        assert proc.stdout.readline().rstrip("\n") == "\u21bb Compiled cli_watch v0.1.0 (1 class); 1 reloaded"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 130
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        from beamtalk_ws.workspace import launcher, paths

        launcher.kill(paths.resolve(None, root))
