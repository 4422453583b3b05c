"""The node's own compiler peer (issue 13, DESIGN D11): Erlang code and
Beamtalk on the node compile Beamtalk with no REPL attached; the peer is
supervised by the node; node-side watches outlive the client that asked."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from beamtalk_ws.dist import codec
from beamtalk_ws.dist.terms import Atom
from conftest import beamtalk_cmd, run_beamtalk

PEER = Atom("beamtalk_compiler_peer")

TALLY = """Actor subclass: {name}
  state: total = 0
  add: n => self.total := self.total + n. self.total
  total => self.total
"""


def _norm(term):
    """The term as it comes back from the node (Python builds strings and
    lists that the wire may write either way)."""
    return codec.decode(codec.encode(term))


async def peer_status(client, ready: bool = True) -> dict:
    """The peer's status map; with `ready`, after waiting for it to be connected."""
    deadline = time.monotonic() + 60
    while True:
        st = {str(k): v for k, v in (await client.node.call(PEER, Atom("status"), timeout=10)).items()}
        if not ready or st["state"] == Atom("ready") or time.monotonic() > deadline:
            return st
        time.sleep(0.05)


def test_an_erlang_node_loads_and_evaluates_beamtalk_with_no_repl(workspace, tmp_path):
    src = tmp_path / "erl_peer_tally.bt"
    src.write_text(TALLY.format(name="ErlPeerTally"))
    cookie = workspace.cookie_file.read_text().strip()   # on argv for this test's probe only
    probe = f"probe_{uuid.uuid4().hex[:8]}@localhost"
    # The probe retries its connection: on a loaded machine a first
    # connection attempt can time out before the node answers.
    script = (f"N = '{workspace.node_name}', "
              "Up = fun Up(0) -> false; Up(K) -> net_kernel:connect_node(N) orelse "
              "(begin timer:sleep(500), Up(K - 1) end) end, true = Up(40), "
              f"R1 = rpc:call(N, beamtalk, load, [<<\"{src}\">>]), "
              f"R2 = rpc:call(N, beamtalk, eval, [<<\"t := ErlPeerTally spawn. t add: 3. t add: 4. t total\">>]), "
              f"R3 = rpc:call(N, beamtalk, eval, [<<\"3 +\">>]), "
              f"io:format(\"~p~n~p~n~p~n\", [R1, R2, R3]), halt().")
    out = subprocess.run(["erl", "-sname", probe, "-hidden", "-noinput", "-setcookie", cookie,
                          "-eval", script], capture_output=True, text=True, timeout=120)
    lines = out.stdout.splitlines()
    assert lines[0] == "{ok,['ErlPeerTally']}", out.stdout + out.stderr
    assert lines[1] == "{ok,7}"
    assert lines[2].startswith("{error,<<\"<eval>:1:") and "Unexpected token" in lines[2]


async def test_the_peer_compiles_the_same_forms_as_the_repl_client(client, tmp_path):
    from beamtalk_ws.compiler import classes_needed, compile_module
    from beamtalk_ws.repl.loader import plan
    from beamtalk_ws.syntax import parse

    src = tmp_path / "same_forms.bt"
    src.write_text(TALLY.format(name="SameForms") + "  double => self.total * 2\n")
    reply = await client.node.call(PEER, (Atom("compile"), (Atom("load"), [str(src).encode()])), timeout=90)
    assert reply[0] == Atom("ok")
    local = await plan([src], client)
    assert [(str(m), _norm(f), str(c)) for m, f, c, _ in reply[1]] == \
           [(m, _norm(f), c) for m, f, c, _ in local.modules]

    code = "x := #(3, 1, 2) collect: [:e | e * 10]. x inject: 0 into: [:a :b | a + b]"
    reply = await client.node.call(PEER, (Atom("compile"), (Atom("eval"), code.encode())), timeout=90)
    module = parse(code, "<eval>")
    needed = classes_needed(module)
    mine = compile_module(module, code, frozenset(), "<eval>", await client.class_table(needed) if needed else None)
    assert reply[0] == Atom("ok") and _norm(reply[1]) == _norm(mine.forms) and reply[2] is mine.unique


async def test_live_class_editing_from_beamtalk(repl, tmp_path):
    src = tmp_path / "live_edit.bt"
    src.write_text(TALLY.format(name="LiveEdit"))

    async def ok(code):
        out = await repl.evaluate(code)
        assert out.ok, out.text
        return out.text

    assert await ok(f'Workspace load: "{src}"') == "nil"
    await ok("t := LiveEdit spawn. t add: 5")
    assert await ok('LiveEdit compile: "double => self.total * 2"') == "#double"
    assert await ok("t double") == "10"
    assert await ok('LiveEdit class compile: "make => self spawn"') == "#make"
    assert await ok("LiveEdit make total") == "0"
    assert await ok("LiveEdit removeSelector: #double") == "LiveEdit"
    out = await repl.evaluate("t double")
    assert not out.ok and "does not understand 'double'" in out.text
    out = await repl.evaluate("LiveEdit removeSelector: #double")
    assert not out.ok and "LiveEdit does not define double" in out.text
    out = await repl.evaluate('LiveEdit compile: "broken => 3 +"')
    assert not out.ok and "1:" in out.text and "^" in out.text     # location and caret
    assert await ok("t total") == "5"                                # the actor kept its state
    out = await repl.evaluate("Integer reload")
    assert not out.ok and "Integer has no source file" in out.text
    out = await repl.evaluate('Workspace load: "/no/such/file.bt"')
    assert not out.ok and "File not found: /no/such/file.bt" in out.text
    # a relative path starts at the node's directory, not the client's: say which
    out = await repl.evaluate('Workspace load: "no_such_dir/x.bt"')
    assert not out.ok and "File not found: no_such_dir/x.bt" in out.text, out.text
    assert "relative paths start at the workspace directory" in out.text, out.text


async def test_a_killed_peer_is_restarted_and_the_next_load_works(repl, tmp_path):
    before = await peer_status(repl.client)
    os.kill(int(before["os_pid"]), signal.SIGKILL)
    src = tmp_path / "after_kill.bt"
    src.write_text(TALLY.format(name="AfterKill"))
    out = await repl.evaluate(f'Workspace load: "{src}". AfterKill spawn add: 2')
    assert (out.ok, out.text) == (True, "2")
    after = await peer_status(repl.client)
    assert after["os_pid"] != before["os_pid"] and after["starts"] > before["starts"]


class JsonRepl:
    """`beamtalk repl --json` as a subprocess: one request, its final reply."""

    def __init__(self, workspace, session: str):
        self.proc = subprocess.Popen(beamtalk_cmd() + ["repl", "--json", "--workspace", workspace.id,
                                                       "--session", session],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.n = 0

    def eval(self, code: str) -> dict:
        self.n += 1
        self.proc.stdin.write(json.dumps({"id": self.n, "op": "eval", "code": code}) + "\n")
        self.proc.stdin.flush()
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.n and ("value" in reply or "error" in reply):
                return reply

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


async def _eventually(repl, code: str, want: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        out = await repl.evaluate(code)
        if out.text == want or time.monotonic() > deadline:
            return out.text
        time.sleep(0.05)


async def test_json_repl_load_reload_compile_and_a_watch_that_outlives_it(workspace, repl, tmp_path):
    d = tmp_path / "watched"
    d.mkdir()
    src = d / "json_tally.bt"
    src.write_text(TALLY.format(name="JsonTally"))
    session = "j" + uuid.uuid4().hex[:8]
    j = JsonRepl(workspace, session)
    try:
        assert j.eval(f'Workspace load: "{src}"') == {"id": 1, "value": "nil"}
        assert j.eval("t := JsonTally spawn. t add: 2")["value"] == "2"
        src.write_text(TALLY.format(name="JsonTally") + "  double => self.total * 2\n")
        assert j.eval("JsonTally reload")["value"] == "JsonTally"
        assert j.eval("t double")["value"] == "4"
        assert j.eval('JsonTally compile: "triple => self.total * 3"')["value"] == "#triple"
        assert j.eval("t triple")["value"] == "6"
        assert j.eval(f'Workspace watch: "{d}"')["value"] == "nil"
        assert j.eval("Workspace watches")["value"] == f'#("{d}")'
    finally:
        assert j.close() == 0

    # The client has gone; the watch has not.
    from beamtalk_ws.workspace.client import WorkspaceClient
    from beamtalk_ws.repl.core import Repl

    other = Repl(await WorkspaceClient.connect(workspace, session=session))
    try:
        src.write_text(TALLY.format(name="JsonTally") + "  quad => self.total * 4\n")
        assert await _eventually(other, "t quad", "8") == "8"
        assert (await other.evaluate("t total")).text == "2"            # state kept

        # A save that does not compile keeps the running code and is reported.
        src.write_text(TALLY.format(name="JsonTally") + "  quad => self.total *\n")
        deadline = time.monotonic() + 20
        status = ""
        while "json_tally.bt:" not in status and time.monotonic() < deadline:
            status = run_beamtalk(["workspace", "status", workspace.id]).stdout
        assert f"Watching:  {d} (" in status and "1 file not compiling" in status
        assert f"{src}:5:" in status and "^" in status
        assert (await other.evaluate("t quad")).text == "8"
        recent = "".join(await other.client.transcript_recent())
        assert f"{src}:5:" in recent

        src.write_text(TALLY.format(name="JsonTally") + "  quad => self.total * 40\n")
        assert await _eventually(other, "t quad", "80") == "80"
        assert "0 files not compiling" in run_beamtalk(["workspace", "status", workspace.id]).stdout
        assert (await other.evaluate(f'Workspace unwatch: "{d}". Workspace watches')).text == "#()"
    finally:
        await other.client.close()
