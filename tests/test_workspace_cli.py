"""`beamtalk repl --json` and `beamtalk workspace` as separate processes
against real nodes: persistence across clients, SIGKILL, lifecycle, security."""

from __future__ import annotations

import json
import textwrap
import os
import signal
import stat
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import beamtalk_cmd, run_beamtalk


def json_session(workspace_name, requests, session="default", timeout=60):
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace_name, "--session", session],
                        input=lines, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(l) for l in proc.stdout.splitlines() if l.strip()]


@pytest.fixture
def own_workspace(bt_home):
    """A workspace of this test's own, stopped afterwards."""
    from beamtalk_ws.workspace import launcher, paths

    name = "w" + uuid.uuid4().hex[:8]
    yield name
    launcher.kill(paths.resolve(name))


def test_two_clients_share_bindings(own_workspace):
    first = json_session(own_workspace, [{"id": 1, "op": "eval", "code": "x := 3 + 4"},
                                         {"id": 2, "op": "eval", "code": "x * 2"}])
    assert first == [{"id": 1, "value": "7"}, {"id": 2, "value": "14"}]
    second = json_session(own_workspace, [{"id": 1, "op": "eval", "code": "x"},
                                          {"id": 2, "op": "bindings"}])
    assert second == [{"id": 1, "value": "7"}, {"id": 2, "bindings": {"x": "7"}}]


def test_json_protocol_shapes(own_workspace):
    replies = json_session(own_workspace, [
        {"id": "a", "op": "eval", "code": 'Erlang io format: "hi~n". 5'},
        {"id": "b", "op": "eval", "code": "nope"},
        {"id": "c", "op": "eval", "code": "1 / 0"},
        {"id": "d", "op": "frobnicate"},
        {"id": "e", "op": "eval", "code": ":bindings"},
    ])
    assert replies[0] == {"id": "a", "output": "hi\n"}
    assert replies[1] == {"id": "a", "value": "5"}
    assert replies[2]["id"] == "b" and "Undefined variable: nope" in replies[2]["error"]
    assert replies[3] == {"id": "c", "error": "ERROR: #RuntimeError\n  Message: badarith"}
    assert replies[4] == {"id": "d", "error": "Unknown operation: frobnicate"}
    assert replies[5]["id"] == "e" and replies[5]["value"].startswith("  _error = ")


def test_interrupt_over_json(own_workspace):
    proc = subprocess.Popen(beamtalk_cmd() + ["repl", "--json", "--workspace", own_workspace],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdin.write(json.dumps({"id": 1, "op": "eval", "code": "k := 5"}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"id": 1, "value": "5"}
        code = 'Erlang io format: "running~n". Erlang timer sleep: 60000'
        proc.stdin.write(json.dumps({"id": 2, "op": "eval", "code": code}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"id": 2, "output": "running\n"}
        proc.stdin.write(json.dumps({"id": 3, "op": "interrupt"}) + "\n")
        proc.stdin.write(json.dumps({"id": 4, "op": "eval", "code": "k + 1"}) + "\n")
        proc.stdin.close()
        replies = [json.loads(l) for l in proc.stdout.read().splitlines()]
    finally:
        proc.wait(timeout=30)
    by_id = {r["id"]: r for r in replies}
    assert {k: v for k, v in by_id[2].items() if k != "notice"} == {"id": 2, "error": "Interrupted"}
    assert "evaluator process was stopped by the interrupt" in by_id[2]["notice"]
    assert by_id[3] == {"id": 3, "value": "ok"}
    assert by_id[4] == {"id": 4, "value": "6"}


def test_sigkill_client_mid_evaluation_keeps_workspace(own_workspace):
    json_session(own_workspace, [{"id": 1, "op": "eval", "code": "x := 7"}])
    proc = subprocess.Popen(beamtalk_cmd() + ["repl", "--json", "--workspace", own_workspace],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    code = 'Erlang io format: "started~n". y := Erlang timer sleep: 1000'
    proc.stdin.write(json.dumps({"id": 1, "op": "eval", "code": code}) + "\n")
    proc.stdin.flush()
    # The evaluation is running on the node once its first output arrives.
    assert json.loads(proc.stdout.readline()) == {"id": 1, "output": "started\n"}
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    time.sleep(1.0)
    replies = json_session(own_workspace, [{"id": 1, "op": "bindings"}, {"id": 2, "op": "eval", "code": "x + 1"}])
    # The workspace lives on; the evaluation whose client died was stopped and
    # its assignment not applied (a session's evaluation belongs to its client),
    # and the next reply says the evaluator was replaced.
    assert replies[0] == {"id": 1, "bindings": {"x": "7"}}
    assert {k: v for k, v in replies[1].items() if k != "notice"} == {"id": 2, "value": "8"}
    assert "because its client went away" in replies[1]["notice"]


def test_workspace_lifecycle_commands(own_workspace, bt_home):
    started = run_beamtalk(["workspace", "start", own_workspace])
    assert started.returncode == 0 and "Started workspace" in started.stdout
    again = run_beamtalk(["workspace", "start", own_workspace])
    assert "Already running" in again.stdout
    listed = run_beamtalk(["workspace", "list"])
    assert any(l.startswith(own_workspace) and "running" in l for l in listed.stdout.splitlines())
    status = run_beamtalk(["workspace", "status", own_workspace])
    assert status.returncode == 0 and "Status:    running" in status.stdout
    stopped = run_beamtalk(["workspace", "stop", own_workspace])
    assert stopped.returncode == 0 and "Stopped workspace" in stopped.stdout
    status = run_beamtalk(["workspace", "status", own_workspace])
    assert "Status:    stopped" in status.stdout
    # a stop that was asked for is said as such (it read "has exited", as for a crash)
    attach = run_beamtalk(["repl", "--no-start", "--workspace", own_workspace], input="")
    assert attach.returncode == 1
    assert "was stopped (`beamtalk workspace stop`)." in attach.stderr, attach.stderr
    # a workspace stopped on purpose is started again without the notice a
    # crashed one gets ("is not running: its node ... has exited")
    again = run_beamtalk(["repl", "--workspace", own_workspace], input="1 + 1\n")
    assert again.stdout.strip() == "2"
    assert "has exited" not in again.stderr and "Starting workspace" in again.stderr
    run_beamtalk(["workspace", "stop", own_workspace])


def test_dead_workspace_is_reported(own_workspace):
    from beamtalk_ws.workspace import launcher, paths

    json_session(own_workspace, [{"id": 1, "op": "eval", "code": "1"}])
    ws = paths.resolve(own_workspace)
    info = launcher.read_node_info(ws)
    os.kill(info.os_pid, signal.SIGKILL)
    launcher.wait_stopped(ws)
    attach = run_beamtalk(["repl", "--json", "--no-start", "--workspace", own_workspace], input="")
    assert attach.returncode == 1
    assert "is not running" in attach.stderr and "has exited" in attach.stderr
    assert "Traceback" not in attach.stderr
    # Without --no-start a tool gets a fresh node, and is told so.
    fresh = run_beamtalk(["repl", "--json", "--workspace", own_workspace],
                         input=json.dumps({"id": 1, "op": "eval", "code": "2"}) + "\n")
    assert "Starting workspace" in fresh.stderr
    assert json.loads(fresh.stdout) == {"id": 1, "value": "2"}


def test_cookie_is_private_and_never_in_argv_or_environment(workspace):
    from beamtalk_ws.workspace import launcher

    mode = stat.S_IMODE(workspace.cookie_file.stat().st_mode)
    assert mode == 0o600
    secret = workspace.cookie_file.read_bytes().strip()
    assert len(secret) >= 32
    ps = subprocess.run(["ps", "-eww", "-o", "args"], capture_output=True, text=True).stdout
    assert secret.decode() not in ps
    pid = launcher.read_node_info(workspace).os_pid
    assert secret not in Path(f"/proc/{pid}/cmdline").read_bytes()
    assert secret not in Path(f"/proc/{pid}/environ").read_bytes()


def test_cookie_readable_by_others_is_refused(bt_home, tmp_path):
    from beamtalk_ws.workspace import cookie
    from beamtalk_ws.workspace.errors import CookieError

    path = tmp_path / "home" / ".erlang.cookie"
    cookie.create(path)
    os.chmod(path, 0o644)
    with pytest.raises(CookieError, match="accessible by other users"):
        cookie.read(path)


def test_distribution_listens_on_loopback_only(workspace):
    from beamtalk_ws.workspace import launcher

    pid = launcher.read_node_info(workspace).os_pid
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in inodes:  # 0A = LISTEN
                listening.append(cols[1].split(":")[0])
    assert listening, "the node listens on no TCP socket"
    assert all(addr == "0100007F" for addr in listening), listening


async def test_wrong_cookie_is_authentication_failed(workspace):
    from beamtalk_ws.dist import errors
    from beamtalk_ws.dist.node import Node

    with pytest.raises(errors.AuthenticationFailed, match="authentication failed"):
        await Node.connect(workspace.node_name, b"not-the-cookie-at-all-xxxxxxxx", timeout=5.0)


def test_piped_class_with_blank_lines_between_methods(own_workspace):
    script = textwrap.dedent("""\
        Actor subclass: Piped
          state: value = 0

          increment =>
            self.value := self.value + 1

          getValue => self.value

        p := Piped spawn
        p increment; increment; getValue
        """)
    out = run_beamtalk(["repl", "--workspace", own_workspace], input=script)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["Piped", "a Piped", "2"]


def test_piped_doc_comment_and_a_command_right_after_a_class(own_workspace):
    """A `///` line is the doc of the class below it (not an input of its
    own that answers nil and loses the doc), and a `:command` at column 0
    right after a class ends the class and runs as a command (it was glued
    to the class and reported as a syntax error, losing the class)."""
    script = textwrap.dedent("""\
        /// Says hello.
        Object subclass: PipedDoc
          hi => "hi"
        :bindings
        :help PipedDoc
        PipedDoc new hi
        """)
    out = run_beamtalk(["repl", "--workspace", own_workspace], input=script)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["PipedDoc", "No bindings."], lines
    assert "Says hello." in out.stdout, out.stdout
    assert lines[-1] == '"hi"', lines
    assert "nil" not in lines and "Unexpected token" not in out.stdout, lines


def test_missing_erlang_is_a_clear_error(bt_home, tmp_path):
    import sys

    env = dict(os.environ, PATH=str(Path(sys.executable).parent), BEAMTALK_HOME=str(tmp_path))
    out = run_beamtalk(["repl", "--json", "--workspace", "noerl"], input="", env=env)
    assert out.returncode == 1
    assert "Erlang/OTP is not installed (no `erl` on PATH)" in out.stderr
    assert "Traceback" not in out.stderr


def test_status_and_stop_of_a_workspace_that_does_not_exist(bt_home):
    """A typo in NAME must not read as "stopped" / "not running" (exit 3 / 0):
    the script would believe the real workspace is down, or was stopped."""
    name = "nosuch" + uuid.uuid4().hex[:6]
    for action in ("status", "stop"):
        r = run_beamtalk(["workspace", action, name])
        assert r.returncode == 1, (action, r.returncode, r.stdout, r.stderr)
        assert r.stdout == ""
        assert f"No workspace named '{name}'" in r.stderr and "beamtalk workspace list" in r.stderr
    assert not (bt_home / "workspaces" / name).exists()


def test_workspace_without_an_action_is_a_usage_error(bt_home):
    """Like `beamtalk` alone (exit 2): a script that lost its ACTION must not pass."""
    r = run_beamtalk(["workspace"])
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "usage: beamtalk workspace" in r.stdout


def test_json_requests_from_a_file_and_from_dev_null(own_workspace, tmp_path):
    """`beamtalk repl --json < requests.jsonl` (a regular file) used to fail with
    "internal error: ValueError: Pipe transport is for pipes/sockets only", and
    `< /dev/null` hung for ever with an asyncio traceback on stderr."""
    requests = tmp_path / "requests.jsonl"
    requests.write_text('{"id": 1, "op": "eval", "code": "x := 3 + 4"}\n{"id": 2, "op": "eval", "code": "x * 2"}')
    cmd = beamtalk_cmd() + ["repl", "--json", "--workspace", own_workspace]
    with open(requests, "rb") as f:
        r = subprocess.run(cmd, stdin=f, capture_output=True, text=True, timeout=90)
    assert r.returncode == 0, r.stderr
    assert [json.loads(l) for l in r.stdout.splitlines()] == [{"id": 1, "value": "7"}, {"id": 2, "value": "14"}]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=90)
    assert (r.returncode, r.stdout) == (0, ""), r.stderr
    assert "Traceback" not in r.stderr and "Exception" not in r.stderr, r.stderr


def test_erl_epmd_port_is_honoured_by_clients_and_the_compiler_peer(own_ws, monkeypatch):
    """With ERL_EPMD_PORT set (Erlang's own variable for a non-default epmd), the
    node registered with that epmd but every client asked port 4369: the
    workspace started and was then "not running" for the REPL."""
    import socket

    from beamtalk_ws.workspace import launcher

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ERL_EPMD_PORT", str(port))
    try:
        launcher.start(own_ws, idle_timeout=None)
        r = run_beamtalk(["repl", "--workspace", own_ws.id],
                         input='3 + 4\n(Erlang beamtalk) eval: "6 * 7"\n', timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["7", "{#ok, 42}"]       # the second through the compiler peer
    finally:
        launcher.kill(own_ws)
        subprocess.run(["epmd", "-kill"], env=dict(os.environ, ERL_EPMD_PORT=str(port)),
                       capture_output=True, timeout=30)
