"""Reload on save (`:watch`, `beamtalk watch`, `--watch`) against real nodes:
the workspace node watches (its compiler peer, OS change notifications), so
a saved change reaches running actors with no command typed, and reloads go
on after the client that asked has gone."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from conftest import beamtalk_cmd, run_beamtalk


async def eventually(repl, code: str, want: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        out = await repl.evaluate(code)
        if out.text == want or time.monotonic() > deadline:
            return out.text
        time.sleep(0.05)


async def transcript_with(repl, needle: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        text = "".join(await repl.client.transcript_recent())
        if needle in text or time.monotonic() > deadline:
            return text
        time.sleep(0.05)


async def test_watch_reloads_a_package_on_save(repl, tmp_path):
    from beamtalk_ws.package import manifest, scaffold

    root = scaffold.new("watched_app", tmp_path)
    src = root / "src" / "watched_tally.bt"
    body = "Actor subclass: WatchedTally\n  state: n = 0\n  bump => self.n := self.n + 1\n"
    src.write_text(body)
    repl.package = manifest.load(root)
    assert (await repl.evaluate(":reload")).ok
    started = await repl.evaluate(":watch")
    assert started.text == ("Watching watched_app's src/: every save is compiled and hot-reloaded by the "
                            "workspace, also after this client exits (:watch off stops it).")
    try:
        assert (await repl.evaluate("t := WatchedTally spawn")).ok
        assert (await repl.evaluate("t bump; bump")).text == "2"
        src.write_text(body + "  n => self.n\n")
        assert await eventually(repl, "t n", "2") == "2", "".join(await repl.client.transcript_recent())
        assert "\u21bb Reloaded WatchedTally" in await transcript_with(repl, "\u21bb Reloaded WatchedTally")
        src.write_text(body + "  n => self.n + + 1\n")
        text = await transcript_with(repl, f"{src}:4:")
        assert f"\u21bb {src}:4:" in text and "^" in text
        assert (await repl.evaluate("t n")).text == "2"     # the old code stays
    finally:
        assert (await repl.evaluate(":watch off")).text == "Stopped watching."
    assert (await repl.evaluate(":watch off")).text.startswith("Not watching anything")
    assert (await repl.evaluate("Workspace watches")).text == "#()"


async def test_watch_a_path_loads_it_first(repl, tmp_path):
    f = tmp_path / "watched_thing.bt"
    f.write_text("Object subclass: WatchedThing\n  answer => 41\n")
    started = await repl.evaluate(f":watch {f}")
    try:
        assert started.ok and started.text.splitlines()[0] == "Loaded: WatchedThing"
        f.write_text("Object subclass: WatchedThing\n  answer => 42\n")
        assert await eventually(repl, "WatchedThing new answer", "42") == "42"
    finally:
        await repl.evaluate(":watch off")
    assert (await repl.evaluate(":watch /no/such/file.bt")).text == "File not found: /no/such/file.bt"


async def test_watch_off_stops_a_watch_another_client_started(repl, tmp_path):
    """The watch belongs to the workspace (README: it outlives the REPL), so a
    later REPL's `:watch off` stops it; it answered "Not watching anything"
    and the watch went on."""
    d = tmp_path / "elsewhere"
    d.mkdir()
    assert (await repl.evaluate(f'Workspace watch: "{d}"')).ok   # as `beamtalk watch` did
    off = await repl.evaluate(":watch off")
    assert off.ok and off.text == f"Stopped watching {d} (started by another client)."
    assert (await repl.evaluate("Workspace watches")).text == "#()"
    assert (await repl.evaluate(":watch off")).text.startswith("Not watching anything")


async def test_watch_of_a_path_with_dot_segments_reloads(repl, tmp_path):
    """`Workspace watch: "."` (or `src/../src`) used to be listed but never
    reload: the peer reported its saves under the normalized path, which the
    node did not know."""
    f = tmp_path / "dotted_thing.bt"
    f.write_text("Object subclass: DottedThing\n  answer => 1\n")
    assert (await repl.evaluate(f":load {f}")).ok
    (tmp_path / "sub").mkdir()
    root = f"{tmp_path}/./sub/.."
    assert (await repl.evaluate(f'Workspace watch: "{root}"')).ok
    try:
        assert (await repl.evaluate("Workspace watches")).text == f'#("{tmp_path}")'
        f.write_text("Object subclass: DottedThing\n  answer => 2\n")
        assert await eventually(repl, "DottedThing new answer", "2") == "2"
    finally:
        assert (await repl.evaluate(f'Workspace unwatch: "{tmp_path}/."')).ok
    assert (await repl.evaluate("Workspace watches")).text == "#()"


def test_beamtalk_watch_follows_reloads_and_the_watch_stays(bt_home, tmp_path):
    r = run_beamtalk(["new", "cli_watch"], cwd=tmp_path)
    assert r.returncode == 0
    root = tmp_path / "cli_watch"
    main = root / "src" / "main.bt"
    proc = subprocess.Popen(beamtalk_cmd() + ["watch"], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        deadline = time.monotonic() + 60
        while len(lines) < 2 and time.monotonic() < deadline:
            lines.append(proc.stdout.readline().rstrip("\n"))
        assert lines == ["Compiled cli_watch v0.1.0 (1 class); 1 reloaded",
                         "Watching cli_watch's src/: every save is compiled and hot-reloaded by the "
                         "workspace, also after this client exits (Workspace unwatch: stops it; Ctrl-C "
                         "stops following)."]
        time.sleep(0.3)
        main.write_text(main.read_text() + "  class other => 2\n")
        assert proc.stdout.readline().startswith("\u21bb Reloaded ")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 130
        assert "Traceback" not in proc.stderr.read()
        status = run_beamtalk(["workspace", "status"], cwd=root).stdout
        assert f"Watching:  {(root / 'src').resolve()} (" in status
    finally:
        if proc.poll() is None:
            proc.kill()
        from beamtalk_ws.workspace import launcher, paths

        launcher.kill(paths.resolve(None, root))


def test_workspace_start_watch_in_a_package(bt_home, tmp_path):
    r = run_beamtalk(["new", "start_watch"], cwd=tmp_path)
    assert r.returncode == 0
    root = tmp_path / "start_watch"
    try:
        r = run_beamtalk(["workspace", "start", "--watch"], cwd=root)
        assert r.returncode == 0, r.stderr
        assert "Watching start_watch's src/" in r.stdout
        status = run_beamtalk(["workspace", "status"], cwd=root).stdout
        assert f"Watching:  {(root / 'src').resolve()} (0 reloads, 0 files not compiling)" in status
        assert "Compiler:  ready" in status
    finally:
        from beamtalk_ws.workspace import launcher, paths

        launcher.kill(paths.resolve(None, root))


def test_beamtalk_watch_whose_workspace_is_stopped_says_it_was_stopped(bt_home, tmp_path):
    """`beamtalk workspace stop` under two `beamtalk watch`es: each ends
    saying the workspace was stopped, not that a connection to a node was
    lost."""
    import uuid

    from beamtalk_ws.workspace import launcher, paths

    name = "wstop" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    (tmp_path / "w.bt").write_text("Object subclass: WatchStopped\n  x => 1\n")
    launcher.start(ws, idle_timeout=None)
    procs = [subprocess.Popen(beamtalk_cmd() + ["watch", str(tmp_path), "--workspace", name],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        for proc in procs:
            assert "Watching" in proc.stdout.readline() + proc.stdout.readline()
        stop = run_beamtalk(["workspace", "stop", name])
        assert stop.returncode == 0, stop.stderr
        for proc in procs:
            _, err = proc.communicate(timeout=30)
            assert proc.returncode == 1
            assert f"Workspace '{name}' was stopped (`beamtalk workspace stop`)" in err, err
            assert "connection to node" not in err and "Traceback" not in err, err
            # two watches of one workspace: neither is told it shares the user's bindings
            assert "Note:" not in err, err
    finally:
        for proc in procs:
            proc.kill()
        launcher.kill(ws)
