"""Idle timeout and --ephemeral against real nodes."""

from __future__ import annotations

import json
import time
import uuid

from conftest import run_beamtalk


def _wait_until(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def test_idle_workspace_stops_itself(bt_home):
    from beamtalk_ws.workspace import launcher, paths

    name = "idle" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    try:
        launcher.start(ws, idle_timeout=1)
        assert launcher.running_info(ws) is not None
        assert _wait_until(lambda: launcher.running_info(ws) is None, 15)
        assert "idle timeout" in ws.log.read_text()
    finally:
        launcher.kill(ws)


def test_attached_client_keeps_idle_workspace_alive(bt_home):
    import subprocess

    from conftest import beamtalk_cmd
    from beamtalk_ws.workspace import launcher, paths

    name = "busy" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    proc = subprocess.Popen(beamtalk_cmd() + ["repl", "--json", "--timeout", "1", "--workspace", name],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write(json.dumps({"id": 1, "op": "eval", "code": "1"}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"id": 1, "value": "1"}
        time.sleep(2.5)
        assert launcher.running_info(ws) is not None  # a client is attached
        proc.stdin.close()
        proc.wait(timeout=10)
        assert _wait_until(lambda: launcher.running_info(ws) is None, 15)
    finally:
        proc.kill()
        launcher.kill(ws)


def test_ephemeral_stops_the_workspace_on_exit(bt_home):
    from beamtalk_ws.workspace import launcher, paths

    name = "eph" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    try:
        out = run_beamtalk(["repl", "--json", "--ephemeral", "--workspace", name],
                           input=json.dumps({"id": 1, "op": "eval", "code": "6 * 7"}) + "\n")
        assert json.loads(out.stdout) == {"id": 1, "value": "42"}
        assert _wait_until(lambda: launcher.running_info(ws) is None, 15)
    finally:
        launcher.kill(ws)


def test_quitting_the_repl_leaves_the_workspace_running(bt_home):
    from beamtalk_ws.workspace import launcher, paths

    name = "keep" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    try:
        out = run_beamtalk(["repl", "--workspace", name], input="x := 5\n:q\n")
        assert out.returncode == 0 and "5" in out.stdout
        assert launcher.running_info(ws) is not None
        again = run_beamtalk(["repl", "--workspace", name], input="x + 1\n")
        assert again.stdout.strip().splitlines()[-1] == "6"
    finally:
        launcher.kill(ws)
