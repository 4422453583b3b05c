"""Several clients on one workspace at once (outsider check): what one does
must not hang, break or leak into what another does at the same moment."""

from __future__ import annotations

import asyncio
import uuid

from helpers import ok, session


async def _two(workspace):
    tag = uuid.uuid4().hex[:8]
    (ca, a), (cb, b) = await session(workspace, "la" + tag), await session(workspace, "lb" + tag)
    return ca, cb, a, b


async def test_two_clients_loading_the_same_file_at_once_both_load_it(workspace, tmp_path):
    # Both used to load the module at the same moment: the first race hung one
    # of them for the 30 s request timeout ("Request timed out"), later ones
    # failed with "Cannot load bt@…: not_purged".
    ca, cb, a, b = await _two(workspace)
    name = "Twice" + uuid.uuid4().hex[:6]
    path = tmp_path / "twice.bt"
    try:
        for i in range(6):
            path.write_text(f"Object subclass: {name}\n  state: x = {i}\n  m{i} => {i}\n")
            ra, rb = await asyncio.wait_for(
                asyncio.gather(a.evaluate(f":load {path}"), b.evaluate(f":load {path}")), 25)
            assert (ra.ok, ra.text) == (True, f"Loaded: {name}"), i
            assert (rb.ok, rb.text) == (True, f"Loaded: {name}"), i
            assert await ok(a, f"{name} new m{i}") == str(i)
    finally:
        await ca.close()
        await cb.close()


async def test_two_clients_reloading_one_package_at_once_both_answer(workspace, tmp_path):
    # Two REPLs opened in a package at the same moment each build it and load
    # its classes: one of them waited 30 s and then said "Request timed out".
    from beamtalk_ws.package import manifest, scaffold

    ca, cb, a, b = await _two(workspace)
    app = "race_" + uuid.uuid4().hex[:6]
    root = scaffold.new(app, tmp_path)
    src = root / "src" / "race_tally.bt"
    cls = "RaceTally" + uuid.uuid4().hex[:6]
    try:
        a.package = b.package = manifest.load(root)
        for i in range(3):
            src.write_text(f"Actor subclass: {cls}\n  state: n = {i}\n  n => self.n\n")
            ra, rb = await asyncio.wait_for(asyncio.gather(a.evaluate(":reload"), b.evaluate(":reload")), 25)
            assert ra.ok and rb.ok, (i, ra.text, rb.text)
            assert await ok(b, f"{cls} spawn n") == str(i)
    finally:
        await ca.close()
        await cb.close()


def test_a_piped_repl_whose_workspace_is_stopped_says_so_on_stderr(bt_home):
    """`beamtalk workspace stop` from another terminal under an attached
    REPL: the REPL says the node was stopped and how to go on, on stderr (it
    said only "Error: Lost the connection to workspace 'x'." on stdout)."""
    import subprocess
    import time

    from conftest import beamtalk_cmd, run_beamtalk
    from beamtalk_ws.workspace import launcher, paths

    name = "stopped" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    launcher.start(ws, idle_timeout=None)
    proc = subprocess.Popen(beamtalk_cmd() + ["repl", "--workspace", name], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("x := 41\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "41"
        stop = run_beamtalk(["workspace", "stop", name])
        assert stop.returncode == 0, stop.stderr
        time.sleep(0.5)
        out, err = proc.communicate("x + 1\n", timeout=60)
        assert proc.returncode == 1
        assert out == "", out
        info = f"'{name}' node {ws.node_name}"
        assert f"The workspace {info}" in err and "was stopped since the previous request (`beamtalk workspace stop`)" in err, err
        assert "`beamtalk repl` starts it again" in err, err
        assert "Traceback" not in err
    finally:
        proc.kill()
        launcher.kill(ws)
