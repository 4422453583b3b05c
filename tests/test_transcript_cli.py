"""`beamtalk transcript`: follow a workspace's Transcript from another terminal (issue 5 §4)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import uuid

from conftest import beamtalk_cmd, run_beamtalk


async def test_transcript_follows_background_output(workspace, repl):
    tag = "bg-" + uuid.uuid4().hex[:8]
    out = await repl.evaluate(f"Actor subclass: TranscriptWriter\n  go: t => Transcript show: t; cr")
    assert out.ok, out.text
    proc = subprocess.Popen(beamtalk_cmd() + ["transcript", "--workspace", workspace.id],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        await asyncio.sleep(1.0)  # let it subscribe
        out = await repl.evaluate(f'w := TranscriptWriter spawn. w go: "{tag}"!\nw isAlive')
        assert out.ok, out.text
        loop = asyncio.get_running_loop()
        line = ""
        deadline = loop.time() + 10
        while tag not in line and loop.time() < deadline:
            line = await asyncio.wait_for(loop.run_in_executor(None, proc.stdout.readline), 10)
        assert tag in line
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=10)
    assert "Traceback" not in proc.stderr.read()


async def test_transcript_no_follow_prints_the_buffer(workspace, repl):
    tag = "buf-" + uuid.uuid4().hex[:8]
    out = await repl.evaluate(f"Actor subclass: TranscriptWriter2\n  go: t => Transcript show: t; cr")
    assert out.ok, out.text
    out = await repl.evaluate(f'w2 := TranscriptWriter2 spawn. w2 go: "{tag}"!\nw2 isAlive')
    assert out.ok, out.text
    for _ in range(50):
        proc = run_beamtalk(["transcript", "--no-follow", "--workspace", workspace.id])
        if tag in proc.stdout:
            break
        await asyncio.sleep(0.1)
    assert proc.returncode == 0 and tag in proc.stdout


def test_transcript_of_a_workspace_that_is_not_running(bt_home):
    proc = run_beamtalk(["transcript", "--workspace", "nosuch-" + uuid.uuid4().hex[:6]])
    assert proc.returncode == 1
    assert ("not running" in proc.stderr or "never started" in proc.stderr) and "Traceback" not in proc.stderr


def test_json_mode_pushes_background_transcript_text(workspace):
    import json

    reqs = [
        {"id": 1, "op": "eval", "code": "Actor subclass: JsonLate\n  go => Transcript show: \"json-push\"; cr"},
        {"id": 2, "op": "eval", "code": "JsonLate spawn go!\n(Erlang timer sleep: 500). 1"},
        {"id": 3, "op": "eval", "code": "Transcript show: \"in-eval\". 2"},
    ]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id],
                        input="".join(json.dumps(r) + "\n" for r in reqs))
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    pushes = [l for l in lines if "push" in l]
    assert {"push": "transcript", "text": "json-push"} in pushes
    # Text an eval writes is its output, not a push.
    assert {"id": 3, "output": "in-eval"} in lines
    assert not any(p.get("text") == "in-eval" for p in pushes)
    assert [l["id"] for l in lines if "value" in l or "error" in l] == [1, 2, 3]


def test_json_mode_pushes_output_of_a_process_an_earlier_input_left_running(workspace):
    """A process that outlives its input and writes (here: it crashes, and
    the crash report is written to the session) is not dropped by `--json`:
    it comes as a `{"push": "output"}` line, as the interactive REPL shows it
    with `│ ` (README, "What an Erlang user meets first")."""
    import time

    from json_client import JsonClient

    c = JsonClient(workspace.id, session="bgout-" + uuid.uuid4().hex[:6])
    try:
        r = c.ask({"id": 1, "op": "eval",
                   "code": "Erlang erlang spawn: [Erlang timer sleep: 300. 1 foo]. #started"})
        assert r == {"id": 1, "value": "#started"}
        assert not c.seen
        deadline = time.monotonic() + 20
        pushed = None
        while pushed is None:
            msg = c.line(max(0.1, deadline - time.monotonic()))
            if msg.get("push") == "output":
                pushed = msg
        assert pushed is not None
        assert "id" not in pushed
        assert pushed["text"].startswith("\u26a0 Process #Pid<")
        assert pushed["text"].endswith(" crashed: #RuntimeError: Integer does not understand 'foo'\n")
        assert c.ask({"id": 2, "op": "eval", "code": "1 + 1"}) == {"id": 2, "value": "2"}
    finally:
        c.close()


def test_a_follower_whose_workspace_is_stopped_says_it_was_stopped(bt_home):
    """`beamtalk workspace stop` under `beamtalk transcript`: the follower
    ends saying the workspace was stopped, not only that a connection to a
    node was lost."""
    import time

    from beamtalk_ws.workspace import launcher, paths

    name = "trstop" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    launcher.start(ws, idle_timeout=None)
    proc = subprocess.Popen(beamtalk_cmd() + ["transcript", "--workspace", name],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.0)  # let it subscribe
        stop = run_beamtalk(["workspace", "stop", name])
        assert stop.returncode == 0, stop.stderr
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 1
        assert f"Workspace '{name}' was stopped (`beamtalk workspace stop`)" in err, err
        assert "connection to node" not in err and "Traceback" not in err, err
    finally:
        proc.kill()
        launcher.kill(ws)
