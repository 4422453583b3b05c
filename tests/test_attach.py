"""`beamtalk repl --node`: Beamtalk inside a plain Erlang node it did not start.

Every test runs against a real `erl -sname` node with no Beamtalk on it and
a cookie of its own (tests/plain_nodes.py).
"""

from __future__ import annotations

import asyncio
import os

import pytest

from conftest import run_beamtalk
from plain_nodes import probe, start_plain_node

COUNTER = """Actor subclass: Counter
  state: n = 0
  inc => self.n := self.n + 1
  n => self.n
"""


@pytest.fixture
def plain(bt_home, tmp_path):
    node = start_plain_node(tmp_path)
    try:
        yield node
    finally:
        node.stop()


def attach_args(node, *more):
    return ["--node", node.name, "--cookie-file", str(node.cookie_file), *more]


def test_attach_evaluate_define_actor_detach_leaves_node_untouched(plain):
    before = asyncio.run(probe(plain))
    assert before["beamtalk_modules"] == []
    script = "3 + 4\n" + COUNTER + "\nc := Counter spawn\nc inc; inc\nc n\nc printString\n:detach\n"
    r = run_beamtalk(["repl", *attach_args(plain)], input=script, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["7", "Counter", "a Counter", "2", "2", '"a Counter"',
                                     f"Detached from {plain.name}; Beamtalk stays loaded there (its actors "
                                     f"and classes run on; `beamtalk detach --node {plain.name} --cookie-file "
                                     f"{plain.cookie_file} --unload` "
                                     f"removes it)."]
    assert f"Loaded Beamtalk" in r.stderr and plain.name in r.stderr

    after = asyncio.run(probe(plain))
    assert after["node"] == plain.name                       # the node answers
    assert after["app_pid"] == before["app_pid"]             # its own process: same pid, still serving
    assert after["app_count"] == before["app_count"] + 1
    assert after["applications"] == before["applications"]   # nothing started in its applications
    assert after["kernel_children"] == before["kernel_children"]   # nor in its top supervisor
    added = sorted(set(after["registered"]) - set(before["registered"]))
    assert added and all(n.startswith("beamtalk_") for n in added)
    assert "beamtalk_attach_sup" in added and "beamtalk_workspace" in added
    assert set(before["registered"]) <= set(after["registered"])
    assert "beamtalk_attach" in after["beamtalk_modules"]


def test_second_attach_reuses_what_is_loaded_and_unload_removes_everything(plain):
    before = asyncio.run(probe(plain))
    r = run_beamtalk(["repl", *attach_args(plain)], input=COUNTER + "\nc := Counter spawn\nc inc\n", timeout=120)
    assert r.returncode == 0, r.stderr
    again = run_beamtalk(["repl", *attach_args(plain)], input="c inc\nc n\n", timeout=60)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == ["2", "2"]           # the same actor, bindings kept
    assert "already loaded" in again.stderr and "reusing it (1 classes of yours)" in again.stderr
    assert "Loading" not in again.stderr

    gone = run_beamtalk(["detach", *attach_args(plain), "--unload"], timeout=60)
    assert gone.returncode == 0, gone.stderr
    assert gone.stdout.startswith(f"Removed Beamtalk from {plain.name} (")
    after = asyncio.run(probe(plain))
    assert after["beamtalk_modules"] == []
    assert after["registered"] == before["registered"]
    assert after["persistent_terms"] == before["persistent_terms"]
    assert after["logger_filters"] == before["logger_filters"]
    assert after["app_pid"] == before["app_pid"] and after["app_count"] == before["app_count"] + 1
    assert "CRASH REPORT" not in plain.log() and "SUPERVISOR REPORT" not in plain.log()

    # and it can be attached to again from scratch
    fresh = run_beamtalk(["repl", *attach_args(plain)], input="c\n3 * 3\n", timeout=120)
    assert "Loading Beamtalk" in fresh.stderr
    assert fresh.stdout.splitlines()[-1] == "9"


def test_a_node_running_another_version_is_refused_then_upgraded(plain):
    from beamtalk_ws.dist import rpc
    from beamtalk_ws.dist.node import Node
    from beamtalk_ws.dist.terms import Atom

    assert run_beamtalk(["repl", *attach_args(plain)], input="x := 1\n", timeout=120).returncode == 0

    async def pretend_old():
        n = await Node.connect(plain.name, plain.cookie_file.read_bytes())
        try:
            info = await rpc.call(n, "persistent_term", "get", [(Atom("beamtalk_attach"), Atom("info"))])
            info[Atom("version")] = b"0.0.1+old"
            await rpc.call(n, "persistent_term", "put", [(Atom("beamtalk_attach"), Atom("info")), info])
        finally:
            await n.close()

    asyncio.run(pretend_old())
    r = run_beamtalk(["repl", *attach_args(plain)], input="x\n", timeout=60)
    assert r.returncode == 1
    assert f"Node {plain.name} runs another Beamtalk (0.0.1+old; this beamtalk is 0.1.0+" in r.stderr
    assert "--upgrade" in r.stderr and "Traceback" not in r.stderr
    # the command in the hint can be run as it is: it names the cookie file given
    assert f"`beamtalk detach --node {plain.name} --cookie-file {plain.cookie_file} --unload`" in r.stderr
    up = run_beamtalk(["repl", *attach_args(plain, "--upgrade")], input="x\n3 + 4\n", timeout=120)
    assert up.returncode == 0, up.stderr
    assert "Replacing Beamtalk 0.0.1+old" in up.stderr
    assert up.stdout.splitlines()[-1] == "7"
    assert "Undefined variable: x" in up.stderr, up.stderr   # the old bindings went with it


def test_node_going_away_mid_session_is_reported_not_a_hang(plain):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import remote
    from beamtalk_ws.workspace.errors import WorkspaceError

    async def scenario():
        client = await remote.attach(remote.Target(plain.name, plain.cookie_file), "s1")
        repl = Repl(client)
        try:
            assert (await repl.evaluate("x := 42")).text == "42"
            running = asyncio.ensure_future(repl.evaluate("(Erlang timer) sleep: 600000"))
            await asyncio.sleep(0.5)
            plain.proc.kill()
            with pytest.raises(WorkspaceError) as e:
                await asyncio.wait_for(running, 60)     # a safety net, not a timing assertion
            return str(e.value)
        finally:
            await client.close()

    text = asyncio.run(scenario())
    assert text == (f"Node {plain.name} went away: this session's bindings (x), the actors and the classes "
                    f"Beamtalk had there are gone with it. Attach again once the node is back.")


def test_node_gone_in_a_piped_repl_says_which_node(plain):
    import subprocess

    from conftest import beamtalk_cmd

    proc = subprocess.Popen(beamtalk_cmd() + ["repl", *attach_args(plain)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("y := 5\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "5\n"
        plain.proc.kill()
        plain.proc.wait(10)
        proc.stdin.write("y + 1\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 1
    assert f"Node {plain.name} went away: this session's bindings (y)" in out + err
    assert "Traceback" not in out + err


def test_bad_cookie_files_and_unknown_nodes_are_clear(plain, tmp_path):
    wrong = tmp_path / "wrong.cookie"
    wrong.write_bytes(b"not-the-cookie-of-that-node")
    os.chmod(wrong, 0o600)
    r = run_beamtalk(["repl", "--node", plain.name, "--cookie-file", str(wrong)], input="1\n")
    assert r.returncode == 1
    assert r.stderr.strip() == f"beamtalk: Node {plain.name} refused the cookie in {wrong}: it is not that node's cookie."

    os.chmod(wrong, 0o644)
    r = run_beamtalk(["repl", "--node", plain.name, "--cookie-file", str(wrong)], input="1\n")
    assert "it is accessible by other users (mode 0644)" in r.stderr and r.returncode == 1

    alive, host = plain.name.split("@")
    r = run_beamtalk(["repl", "--node", f"nosuch_{alive}@{host}", "--cookie-file", str(plain.cookie_file)],
                     input="1\n")
    assert r.returncode == 1
    assert f"No node named 'nosuch_{alive}' is running on 127.0.0.1" in r.stderr

    r = run_beamtalk(["repl", "--node", "nohost", "--cookie-file", str(plain.cookie_file)], input="1\n")
    assert "A node name looks like name@host, not 'nohost'." in r.stderr
    assert asyncio.run(probe(plain))["beamtalk_modules"] == []     # nothing was loaded by any of these


def test_json_mode_attaches_too(plain):
    import json

    reqs = [{"id": 1, "op": "eval", "code": "3 + 4"}, {"id": 2, "op": "eval", "code": ":detach"}]
    r = run_beamtalk(["repl", "--json", *attach_args(plain)],
                     input="".join(json.dumps(q) + "\n" for q in reqs), timeout=120)
    assert r.returncode == 0, r.stderr
    replies = [json.loads(line) for line in r.stdout.splitlines()]
    assert replies[0] == {"id": 1, "value": "7"}
    assert replies[1]["id"] == 2 and replies[1]["value"].startswith(f"Detached from {plain.name}")


def test_json_mode_after_detach_answers_that_it_is_detached(plain):
    """`:detach` in --json used to answer "Detached" and then go on evaluating
    on the node (and after `--unload`, "the workspace server stopped during
    evaluation"): a later request now says the client has left the node."""
    import json

    def run(detach):
        reqs = [{"id": 1, "op": "eval", "code": "y := 1"}, {"id": 2, "op": "eval", "code": detach},
                {"id": 3, "op": "eval", "code": "y + 1"}, {"id": 4, "op": "bindings"}]
        r = run_beamtalk(["repl", "--json", *attach_args(plain)],
                         input="".join(json.dumps(q) + "\n" for q in reqs), timeout=120)
        assert r.returncode == 0, r.stderr
        return [json.loads(line) for line in r.stdout.splitlines()]

    gone = (f"Detached from {plain.name}: this client no longer talks to it. Attach again with "
            f"`beamtalk repl --json --node {plain.name}`.")
    replies = run(":detach")
    assert replies[1]["value"].startswith(f"Detached from {plain.name}; Beamtalk stays loaded")
    assert replies[2:] == [{"id": 3, "error": gone}, {"id": 4, "error": gone}]
    replies = run(":detach --unload")
    assert replies[1]["value"].startswith(f"Removed Beamtalk from {plain.name}")
    assert replies[2:] == [{"id": 3, "error": gone}, {"id": 4, "error": gone}]
    assert asyncio.run(probe(plain))["beamtalk_modules"] == []


def test_attach_after_an_older_unload_left_the_beamtalk_module(plain):
    """An older beamtalk's `--unload` left the `beamtalk` module loaded; loaded
    again and left again, it has old code, and the next attach (or `--upgrade`)
    failed with `{error,<<"the runtime did not load: [{beamtalk,not_purged}]">>}`."""
    from beamtalk_ws.dist import rpc
    from beamtalk_ws.dist.node import Node
    from beamtalk_ws.dist.terms import Atom
    from beamtalk_ws.workspace import erlbuild

    beam = (erlbuild.ensure_built() / "beamtalk.beam").read_bytes()

    async def leave_old_code():
        n = await Node.connect(plain.name, plain.cookie_file.read_bytes())
        try:
            for _ in range(2):      # current and old code, as two attach/unload rounds left it
                loaded = await rpc.call(n, "code", "load_binary", [Atom("beamtalk"), list(b"beamtalk.beam"), beam])
                assert loaded == (Atom("module"), Atom("beamtalk"))
        finally:
            await n.close()

    asyncio.run(leave_old_code())
    r = run_beamtalk(["repl", *attach_args(plain)], input="3 + 4\n", timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["7"]
    gone = run_beamtalk(["detach", *attach_args(plain), "--unload"], timeout=60)
    assert gone.returncode == 0, gone.stderr
    assert asyncio.run(probe(plain))["beamtalk_modules"] == []


def test_detach_unload_in_a_repl_on_a_workspace_node_is_refused(own_ws):
    """`repl --node` on a workspace node beamtalk started, then `:detach --unload`,
    used to unload the runtime from under the workspace (its server gone, the
    node left running without it); `beamtalk detach --unload` refused already."""
    from beamtalk_ws.workspace import launcher

    launcher.start(own_ws, idle_timeout=None)
    args = ["--node", own_ws.node_name, "--cookie-file", str(own_ws.cookie_file)]
    r = run_beamtalk(["repl", *args], input="w := 6 * 7\n:detach --unload\n", timeout=120)
    assert r.stdout.splitlines() == ["42"]
    assert (f"Node {own_ws.node_name} is a Beamtalk workspace node: `:detach --unload` would remove its "
            f"workspace. Leave it with :detach (it keeps running); stop it with `beamtalk workspace stop`."
            in r.stderr.splitlines()), r.stderr          # an error: stderr (spec repl.md §6)
    after = run_beamtalk(["repl", "--workspace", own_ws.id], input="w + 1\n", timeout=60)
    assert after.returncode == 0, after.stderr
    assert after.stdout.splitlines() == ["43"]


def test_a_second_repl_on_the_same_session_of_an_attached_node_is_told(plain):
    """A workspace REPL says "Note: 1 other client is attached to session …";
    `repl --node` said nothing, though the two share bindings and evaluator."""
    import subprocess

    from conftest import beamtalk_cmd

    first = subprocess.Popen(beamtalk_cmd() + ["repl", *attach_args(plain)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first.stdin.write("s := 1\n")
        first.stdin.flush()
        assert first.stdout.readline() == "1\n"
        second = run_beamtalk(["repl", *attach_args(plain)], input="s + 1\n", timeout=60)
        assert second.stdout.splitlines() == ["2"]
        assert ("Note: 1 other client is attached to session 'default'; you share its bindings and its "
                "evaluator.") in second.stderr.splitlines()
    finally:
        first.kill()
        first.wait(10)


def test_a_repl_whose_node_had_beamtalk_unloaded_says_so(plain):
    """`beamtalk detach --unload` from another terminal while a REPL was attached:
    its next input answered "The workspace server on N stopped during evaluation"
    (no evaluation was running, and nothing said Beamtalk had been removed)."""
    import subprocess

    from conftest import beamtalk_cmd

    proc = subprocess.Popen(beamtalk_cmd() + ["repl", *attach_args(plain)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("u := 9\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "9\n"
        gone = run_beamtalk(["detach", *attach_args(plain), "--unload"], timeout=60)
        assert gone.returncode == 0, gone.stderr
        proc.stdin.write("u + 1\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 1
    assert (f"Beamtalk no longer runs on {plain.name} (it was removed with `--unload`, or its workspace "
            f"server stopped): this session's bindings (u), the actors and the classes it had there are "
            f"gone. Attach again to load it anew.") in out + err
    assert "during evaluation" not in out + err


def test_reload_of_a_class_on_an_attached_node_compiles_on_our_side(plain, tmp_path):
    """An attached node runs no compiler peer: `:reload Counter` answered
    `The compiler peer is not running on this node` and reloaded nothing;
    `Counter compile:` said the same, with no way out."""
    src = tmp_path / "counter.bt"
    src.write_text(COUNTER)

    async def scenario():
        from beamtalk_ws.repl.core import Repl
        from beamtalk_ws.workspace import remote

        client = await remote.attach(remote.Target(plain.name, plain.cookie_file), "rl")
        repl = Repl(client)
        ev = lambda code: repl.evaluate(code)  # noqa: E731
        try:
            assert (await ev(f":load {src}")).text == "Loaded: Counter"
            assert (await ev("c := Counter spawn. c inc; inc")).text == "2"
            src.write_text(COUNTER.replace("self.n + 1", "self.n + 10"))
            reloaded = (await ev(":reload Counter")).text
            after = (await ev("c inc")).text
            compiled = (await ev('Counter compile: "double => self.n * 2"')).text
            return reloaded, after, compiled, repl.last_load
        finally:
            await client.close()

    reloaded, after, compiled, last = asyncio.run(scenario())
    assert reloaded == "Loaded: Counter"
    assert after == "12"                       # new code, state kept
    assert last == str(src)
    assert ("This node has no Beamtalk compiler of its own (Beamtalk was attached to it with "
            "`beamtalk repl --node`): compile on your side with `:load FILE`") in compiled
