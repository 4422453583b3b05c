"""Sessions an Erlang developer can trust (issue 12, items 1-3), against real nodes.

One evaluator process per session kept across inputs; a session's running
evaluation belongs to the client that asked for it; the node is the one source
of truth for bindings; Erlang's exit/throw/error cross processes unchanged and
every error the REPL prints is readable.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
import uuid

import pytest

from conftest import beamtalk_cmd


async def _session_pair(workspace):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    name = "s" + uuid.uuid4().hex[:10]
    a = await WorkspaceClient.connect(workspace, session=name)
    b = await WorkspaceClient.connect(workspace, session=name)
    return name, a, b, Repl(a), Repl(b)


async def test_ets_table_lives_across_inputs_and_interrupt_names_what_was_lost(repl):
    assert (await repl.evaluate("t := Erlang ets new: #t with: #(#set, #public)")).ok
    assert (await repl.evaluate("Erlang ets insert: t with: (Erlang erlang list_to_tuple: #(#k, 42))")).text == "true"
    assert (await repl.evaluate("n := 3 + 4")).text == "7"
    assert (await repl.evaluate("Erlang erlang put: #mine with: 1")).text == "#undefined"
    # three inputs after the table was made
    assert (await repl.evaluate("Erlang ets lookup: t with: #k")).text == "#({#k, 42})"

    task = asyncio.ensure_future(repl.evaluate("[true] whileTrue: []"))
    await asyncio.sleep(0.5)
    assert await repl.client.interrupt()
    out = await task
    assert (out.ok, out.text, out.kind) == (False, "Interrupted", "interrupted")
    assert out.notice is not None
    assert "lost 1 ETS table" in out.notice and "1 process dictionary entry" in out.notice
    assert "bindings are kept" in out.notice

    # the bindings are intact; the table went with the old evaluator
    assert (await repl.evaluate("n")).text == "7"
    gone = await repl.evaluate("Erlang ets lookup: t with: #k")
    assert not gone.ok and "badarg" in gone.text
    assert (await repl.evaluate("Erlang erlang get: #mine")).text == "#undefined"
    # one notice per replacement, not on every later reply
    assert (await repl.evaluate("1 + 1")).notice is None


async def test_process_state_is_one_process_for_the_session(repl):
    first = (await repl.evaluate("Erlang erlang self")).text
    await repl.evaluate("3 + 4")
    assert (await repl.evaluate("Erlang erlang self")).text == first
    # an error of an input does not replace the evaluator
    assert not (await repl.evaluate("1 / 0")).ok
    assert (await repl.evaluate("Erlang erlang self")).text == first


async def test_two_clients_on_one_session_share_bindings_at_once(workspace):
    _, a, b, ra, rb = await _session_pair(workspace)
    try:
        assert a.other_clients == 0 and b.other_clients == 1
        assert (await ra.evaluate("shared := 6 * 7")).text == "42"
        # b has not seen a reply naming `shared`: it asks the node
        assert (await rb.evaluate("shared + 1")).text == "43"
        assert (await rb.evaluate("other := shared * 2")).text == "84"
        assert (await ra.evaluate("other")).text == "84"
        still = await ra.evaluate("nowhere + 1")
        assert not still.ok and "nowhere" in still.text
    finally:
        await a.close()
        await b.close()


async def test_a_name_another_client_cleared_is_a_located_error(workspace):
    """A's `:clear` (or `Workspace` unbinding) leaves B compiling against a
    name the node no longer has: B's input gets the located compile error
    an unbound name always gets, not a bare "Undefined variable: n"."""
    _, a, b, ra, rb = await _session_pair(workspace)
    try:
        assert (await ra.evaluate("n := 5")).text == "5"
        assert (await rb.evaluate("n + 1")).text == "6"
        assert (await ra.evaluate(":clear")).text == "Bindings cleared."
        out = await rb.evaluate("n + 1")
        assert not out.ok and out.kind == "compile", (out.kind, out.text)
        assert out.text.splitlines() == ["<input>:1:1: Undefined variable: n", "  n + 1", "  ^"]
        assert (await rb.evaluate("n := 2")).text == "2"
        assert (await ra.evaluate("n")).text == "2"
    finally:
        await a.close()
        await b.close()


def test_second_client_is_told_another_is_attached(workspace):
    from conftest import run_beamtalk

    session = "n" + uuid.uuid4().hex[:8]
    first = subprocess.Popen(beamtalk_cmd() + ["repl", "--json", "--workspace", workspace.id,
                                               "--session", session],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first.stdin.write(json.dumps({"id": 1, "op": "eval", "code": "1"}) + "\n")
        first.stdin.flush()
        assert json.loads(first.stdout.readline())["value"] == "1"
        second = run_beamtalk(["repl", "--json", "--workspace", workspace.id, "--session", session],
                              input=json.dumps({"id": 1, "op": "eval", "code": "2"}) + "\n")
        assert second.returncode == 0
        notes = [l for l in second.stderr.splitlines() if "other client" in l]
        assert notes == [f"Note: 1 other client is attached to session '{session}'; "
                         "you share its bindings and its evaluator."]
    finally:
        first.stdin.close()
        first.wait(timeout=30)


async def test_killed_client_mid_eval_does_not_hold_up_the_session(workspace):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    session = "k" + uuid.uuid4().hex[:8]
    other = await WorkspaceClient.connect(workspace, session=session)
    proc = subprocess.Popen(beamtalk_cmd() + ["repl", "--json", "--workspace", workspace.id,
                                              "--session", session],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        proc.stdin.write(json.dumps({"id": 1, "op": "eval", "code": "kept := 1"}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"id": 1, "value": "1"}
        code = 'lost := 5. Erlang io format: "spinning~n". [true] whileTrue: []'
        proc.stdin.write(json.dumps({"id": 2, "op": "eval", "code": code}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"id": 2, "output": "spinning\n"}
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

        t = time.perf_counter()
        out = await asyncio.wait_for(Repl(other).evaluate("1 + 1"), timeout=10)
        took = time.perf_counter() - t
        print(f"\n1 + 1 answered {took * 1000:.0f} ms after the client was killed")
        assert out.text == "2"
        assert out.notice is not None and "client went away" in out.notice
        # the killed evaluation's assignments were not applied; earlier ones stay
        assert (await Repl(other).evaluate("kept")).text == "1"
        assert "lost" not in await other.refresh_bindings()
    finally:
        if proc.poll() is None:
            proc.kill()
        await other.close()


async def test_linked_exit_normal_reaches_a_trapping_parent_as_normal(repl):
    assert (await repl.evaluate("Erlang erlang process_flag: #trap_exit with: true")).text == "false"
    assert (await repl.evaluate("p := Erlang erlang spawn_link: [Erlang erlang exit: #normal]")).ok
    await repl.evaluate("Erlang timer sleep: 100")
    got = await repl.evaluate("Erlang erlang process_info: Erlang erlang self with: #messages")
    pid = (await repl.evaluate("p")).text
    assert got.text == "{#messages, #({#EXIT, " + pid + ", #normal})}"
    # the evaluator that trapped is the same one, nothing was replaced
    assert got.notice is None and got.ok


async def test_linked_exit_normal_does_not_disturb_a_parent_that_does_not_trap(repl):
    assert (await repl.evaluate("x := 1")).ok
    out = await repl.evaluate("Erlang erlang spawn_link: [Erlang erlang exit: #normal]. Erlang timer sleep: 100. x")
    assert (out.ok, out.text, out.notice) == (True, "1", None)


async def test_exit_class_and_reason_cross_processes_unchanged(repl):
    code = ("m := Erlang erlang spawn_monitor: [Erlang erlang exit: #boom]. "
            "Erlang timer sleep: 100. Erlang erlang process_info: Erlang erlang self with: #messages")
    out = await repl.evaluate(code)
    assert out.ok and "#boom}" in out.text and "DOWN" in out.text
    thrown = await repl.evaluate("m := Erlang erlang spawn_monitor: [Erlang erlang throw: 3]. "
                                 "Erlang timer sleep: 100. Erlang erlang process_info: Erlang erlang self "
                                 "with: #messages")
    assert "{#nocatch, 3}" in thrown.text
    # where Beamtalk catches them, seed ADR 0028's classes apply
    assert (await repl.evaluate("[Erlang erlang exit: #boom] on: ExitError do: [:e | #exited]")).text == "#exited"
    assert (await repl.evaluate("[Erlang erlang throw: 3] on: ThrowError do: [:e | #thrown]")).text == "#thrown"


async def test_linked_crash_is_readable_and_keeps_bindings(repl):
    assert (await repl.evaluate("keep := 99")).ok
    out = await repl.evaluate("Erlang erlang spawn_link: [Erlang timer sleep: 50. 1 / 0]. Erlang timer sleep: 2000")
    assert not out.ok
    assert out.text.startswith("ERROR: #ExitError\n  Message: A linked process exited: ")
    assert "/" not in out.text.replace("1 / 0", "") and "#{" not in out.text and ".erl" not in out.text
    assert out.notice is not None and "exited: badarith" in out.notice
    assert "after the last input it held" in out.notice
    assert (await repl.evaluate("keep")).text == "99"
    details = await repl.evaluate("(_error details at: #reason) class")
    assert details.text == "Tuple"


async def test_an_idle_evaluator_killed_through_a_link_is_not_called_the_memory_limit(repl):
    """An evaluator linked to an actor that is killed later, between inputs,
    dies with reason `killed` too; waiting for the next input it allocates
    nothing, so that is no memory limit: the notice says what happened."""
    await repl.evaluate("Actor subclass: LinkedVictim\n  ping => #pong")
    assert (await repl.evaluate("keep := 7. v := LinkedVictim spawn. Erlang erlang link: v pid")).ok
    assert (await repl.evaluate("Erlang erlang spawn: [Erlang timer sleep: 200. v kill]. 1")).ok
    await asyncio.sleep(1.0)
    out = await repl.evaluate("keep")
    assert (out.ok, out.text) == (True, "7")
    assert out.notice is not None
    assert "memory limit" not in out.notice
    assert "exited: killed" in out.notice and "bindings are kept" in out.notice


async def test_io_format_in_an_actor_method_is_output_of_the_evaluation_calling_it(repl):
    """An Erlang developer debugs a gen_server with io:format: text an actor
    prints while it serves a synchronous send is output of the evaluation
    waiting on it (also through a second actor), as Transcript text is; it
    went to the node's log, out of sight."""
    await repl.evaluate("Actor subclass: IoSayer\n  say: s => Erlang io format: \"~s~n\" with: #(s). #said")
    await repl.evaluate("Actor subclass: IoRelay\n  relay: a => a say: \"via relay\"")
    assert (await repl.evaluate("p := IoSayer spawn. r := IoRelay spawn. #ok")).ok
    seen = []
    out = await repl.evaluate('p say: "hello from an actor"', on_output=seen.append)
    assert (out.ok, out.text) == (True, "#said")
    assert "".join(seen) == "hello from an actor\n"
    seen.clear()
    out = await repl.evaluate("r relay: p", on_output=seen.append)
    assert (out.ok, out.text) == (True, "#said")
    assert "".join(seen) == "via relay\n"
    # a cast has nobody waiting: the text does not become a later input's output
    seen.clear()
    assert (await repl.evaluate('p say: "in the background"!\n3', on_output=seen.append)).text == "3"
    out = await repl.evaluate("Erlang timer sleep: 200. 4", on_output=seen.append)
    assert out.text == "4" and "in the background" not in "".join(seen)


async def test_actor_where_erlang_wants_a_pid_is_one_readable_hint(repl):
    await repl.evaluate("Actor subclass: PidEcho\n  echo: x => x")
    assert (await repl.evaluate("e := PidEcho spawn")).ok
    out = await repl.evaluate("Erlang gen_server call: e with: #foo")
    assert not out.ok
    assert "An actor is not a pid: pass `anActor pid`" in out.text
    assert len(out.text.splitlines()) <= 6
    assert "gen_server.erl" not in out.text and "#{" not in out.text


async def test_charlist_hint_and_conversions(repl):
    out = await repl.evaluate('Erlang os getenv: "HOME"')
    assert not out.ok
    assert '"HOME" asCharlist' in out.text and "String withAll: aList" in out.text
    home = await repl.evaluate('String withAll: (Erlang os getenv: "HOME" asCharlist)')
    assert home.ok and home.text.startswith('"/')
    assert (await repl.evaluate('"hé" asCharlist')).text == "#(104, 233)"
    assert (await repl.evaluate('String withAll: "hé" asCharlist')).text == '"hé"'
    assert (await repl.evaluate("String withAll: #(104, 105)")).text == '"hi"'
    # every List's asString is Collection's (printString, spec stdlib §4),
    # also a list of printable code points: scores are not text
    assert (await repl.evaluate("#(90, 85, 100) asString")).text == '"#(90, 85, 100)"'
    assert (await repl.evaluate("#(1, 2) asString")).text == '"#(1, 2)"'
    assert (await repl.evaluate("#() asString")).text == '"#()"'
    assert (await repl.evaluate("#(#a) asString")).text == '"#(#a)"'
    # the hint shows the String that was given, not a fixed example
    cmd = await repl.evaluate('Erlang os cmd: "echo hi"')
    assert '`"echo hi" asCharlist`' in cmd.text and "HOME" not in cmd.text
    quoted = await repl.evaluate('Erlang os cmd: "say ""hi"""')
    assert '`"say ""hi""" asCharlist`' in quoted.text
    long = await repl.evaluate('Erlang os cmd: "' + "x" * 60 + '"')
    assert "`aString asCharlist`" in long.text and "x" * 60 not in long.text
    raw = await repl.evaluate("Erlang os cmd: (Erlang erlang list_to_binary: #(255, 10))")
    assert "`aString asCharlist`" in raw.text
    # a format that does not fit its arguments is told so, not sent after charlists
    fmt = await repl.evaluate('Erlang io format: "~p ~p~n" with: #(1)')
    assert "directives do not match the arguments" in fmt.text and "asCharlist" not in fmt.text
    fmt = await repl.evaluate('Erlang io_lib format: "~p~n" with: 42')
    assert "The arguments of a format are a List" in fmt.text
    assert (await repl.evaluate('Erlang io format: "~p~n" with: #(1)')).ok
    # no charlist hint when no String was passed
    assert "asCharlist" not in (await repl.evaluate("Erlang erlang atom_to_list: 3")).text


async def test_an_actor_maps_its_erlang_call_errors_for_the_caller(repl):
    await repl.evaluate("Actor subclass: EnvReader\n  read: name => Erlang os getenv: name")
    assert (await repl.evaluate("r := EnvReader spawn")).ok
    out = await repl.evaluate('r read: "HOME"')
    assert not out.ok
    assert out.text.startswith("ERROR: #TypeError\n  Module: os\n  Function: getenv/1")
    assert "asCharlist" in out.text
    assert (await repl.evaluate('String withAll: (r read: "HOME" asCharlist)')).ok


async def test_long_reasons_are_shortened_with_the_whole_term_in_details(repl):
    out = await repl.evaluate("Erlang erlang error: (Erlang lists seq: 1 with: 500)")
    assert not out.ok
    longest = max(len(line) for line in out.text.splitlines())
    assert longest < 260 and "\u2026" in out.text
    assert (await repl.evaluate("(_error details at: #reason) size")).text == "500"


def test_memory_limit_and_crash_dump(bt_home, monkeypatch):
    """A workspace with a small memory limit: an evaluation past it stops with a
    clear error; the node, the bindings and other sessions live on.  The node
    writes no crash dump (it would hold the cookie)."""
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import launcher, paths
    from beamtalk_ws.workspace.client import WorkspaceClient

    monkeypatch.setenv("BEAMTALK_MAX_HEAP_MB", "40")
    ws = paths.resolve("m" + uuid.uuid4().hex[:8])
    launcher.start(ws, idle_timeout=None)

    async def scenario():
        c = await WorkspaceClient.connect(ws, session="big")
        other = await WorkspaceClient.connect(ws, session="small")
        try:
            r = Repl(c)
            assert (await r.evaluate("k := 12")).ok
            assert (await Repl(other).evaluate("j := 5")).ok
            out = await r.evaluate("(Erlang lists seq: 1 with: 20000000) size")
            assert (out.ok, out.kind) == (False, "memory_limit")
            assert out.text.startswith("ERROR: memory limit: the evaluation used more than 40 MB")
            assert out.notice is not None and "memory limit" in out.notice
            assert (await r.evaluate("k + 1")).text == "13"
            assert (await Repl(other).evaluate("j")).text == "5"
            assert (await r.evaluate("(Erlang lists seq: 1 with: 1000) size")).text == "1000"
            # a node that halts with a message writes no erl_crash.dump
            task = asyncio.ensure_future(r.evaluate('Erlang erlang halt: "deliberate crash" asCharlist'))
            await asyncio.wait([task], timeout=10)
        finally:
            for cl in (c, other):
                try:
                    await cl.close()
                except Exception:           # noqa: BLE001 - the node has halted
                    pass

    try:
        asyncio.run(scenario())
        assert launcher.wait_stopped(ws, timeout=10)
        dumps = list(ws.dir.rglob("erl_crash.dump"))
        assert dumps == []
    finally:
        launcher.kill(ws)


def _in_a_64_mb_workspace(monkeypatch, scenario) -> None:
    """Run `scenario(repl)` in a workspace of its own started with
    BEAMTALK_MAX_HEAP_MB=64 (session "big"), then kill the workspace."""
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import launcher, paths
    from beamtalk_ws.workspace.client import WorkspaceClient

    monkeypatch.setenv("BEAMTALK_MAX_HEAP_MB", "64")
    ws = paths.resolve("mb" + uuid.uuid4().hex[:8])
    launcher.start(ws, idle_timeout=None)

    async def run():
        c = await WorkspaceClient.connect(ws, session="big")
        try:
            await scenario(Repl(c))
        finally:
            await c.close()

    try:
        asyncio.run(run())
    finally:
        launcher.kill(ws)


def test_memory_limit_counts_binaries(bt_home, monkeypatch):
    """A String doubled in a loop lives in shared binaries, which the VM's
    `max_heap_size` does not count (OTP 25): it used to grow until the whole
    node died of "Cannot allocate".  The evaluator's binaries are held to the
    same limit: the input stops with the memory-limit error, the node, the
    bindings and the session live on."""
    async def scenario(r):
        assert (await r.evaluate("k := 12")).ok
        out = await r.evaluate('s := "x". [true] whileTrue: [s := s ++ s]. 1')
        assert (out.ok, out.kind) == (False, "memory_limit"), out.text
        assert out.text.startswith("ERROR: memory limit: the evaluation used more than 64 MB")
        assert (await r.evaluate("k + 1")).text == "13"
        # strings below the limit still work, also big ones
        assert (await r.evaluate('t := "0123456789". 1 to: 20 do: [:i | t := t ++ t]. t size')).text \
            == "10485760"

    _in_a_64_mb_workspace(monkeypatch, scenario)


def test_memory_limit_holds_actors_too(bt_home, monkeypatch):
    """An actor that allocates without bound used to have no limit at all and
    took the whole node down; it runs with the workspace's limit: it is
    killed there, its caller is told why, and the node and bindings live on."""
    async def scenario(r):
        assert (await r.evaluate("k := 12")).ok
        assert (await r.evaluate("Actor subclass: Hog\n  state: l = #(1)\n"
                                 "  eat => [true] whileTrue: [self.l := self.l ++ self.l]\n"
                                 "  ping => ^#pong")).ok
        assert (await r.evaluate("hog := Hog spawn. other := Hog spawn. 1")).ok
        out = await r.evaluate("hog eat")
        assert not out.ok
        assert "Cannot send 'eat' to a Hog (actor process has terminated): it was killed" in out.text, out.text
        assert "memory limit of 64 MB" in out.text, out.text
        assert (await r.evaluate("hog isAlive")).text == "false"
        assert (await r.evaluate("other ping")).text == "#pong"
        assert (await r.evaluate("k + 1")).text == "13"

    _in_a_64_mb_workspace(monkeypatch, scenario)


async def test_timeout_replaces_the_evaluator_and_says_so(repl):
    assert (await repl.evaluate("kept := 3")).ok
    compiled = await repl.compile("[true] whileTrue: []")
    out = await repl.client.eval(compiled.forms, timeout_ms=300)
    assert (out.ok, out.kind, out.text) == (False, "timeout", "Request timed out")
    assert "was stopped when the request timed out" in out.notice
    assert (await repl.evaluate("kept")).text == "3"


async def test_a_detached_evaluation_outlives_its_client(workspace):
    name, a, b, ra, rb = await _session_pair(workspace)
    try:
        compiled = await ra.compile('z := 5. Erlang timer sleep: 300. z')
        task = asyncio.ensure_future(a.eval(compiled.forms, detached=True))
        await asyncio.sleep(0.1)
        await a.close()
        task.cancel()
        await asyncio.sleep(0.6)
        out = await rb.evaluate("z + 1")
        assert (out.text, out.notice) == ("6", None)
    finally:
        await b.close()


async def test_the_evaluators_copy_of_the_bindings_follows_every_change(workspace):
    """The evaluator keeps a copy of the session's bindings and is handed
    only what changed (beamtalk_bindings_delta): a clear from another client
    while an input runs, an evaluator replaced after an interrupt, a failed
    input and a binding made by another client must all reach it."""
    _, a, b, ra, rb = await _session_pair(workspace)
    try:
        assert (await ra.evaluate("big := (1 to: 100000) asList. n := 1")).text == "1"
        running = asyncio.ensure_future(ra.evaluate("Erlang timer sleep: 300. later := n + 1"))
        await asyncio.sleep(0.1)
        await b.clear()
        assert (await running).text == "2"
        # the clear kept only what the running input made
        assert [k for k, _ in await a.bindings()] == ["later"]
        out = await ra.evaluate("big size")
        assert not out.ok and "big" in out.text
        assert (await ra.evaluate("later + 1")).text == "3"
        # a failed input changes nothing but _error
        assert not (await ra.evaluate("later := 1 / 0")).ok
        assert (await ra.evaluate("later")).text == "2"
        # another client's binding, then a new evaluator after an interrupt
        assert (await rb.evaluate("fromB := 40")).text == "40"
        assert (await ra.evaluate("fromB + later")).text == "42"
        stuck = asyncio.ensure_future(ra.evaluate("[true] whileTrue: []"))
        await asyncio.sleep(0.2)
        assert await a.interrupt()
        assert not (await stuck).ok
        assert (await ra.evaluate("fromB + later")).text == "42"
        assert (await ra.evaluate("later := later * 10. later")).text == "20"
        assert (await rb.evaluate("later")).text == "20"
    finally:
        await a.close()
        await b.close()


async def test_a_crash_of_a_process_spawned_from_the_session_is_reported_to_it(repl):
    """As the Erlang shell does: the crash is not only in node.log."""
    async def run(code):
        seen = []
        out = await repl.evaluate(code, on_output=seen.append)
        assert out.ok, out.text
        return "".join(seen)

    text = await run("p := Erlang erlang spawn: [Erlang timer sleep: 50. 1 foo]. Erlang timer sleep: 1000. #done")
    assert text.startswith("\u26a0 Process #Pid<")
    assert text.endswith(" crashed: #RuntimeError: Integer does not understand 'foo'\n")
    assert (await run("Erlang erlang spawn: [Erlang timer sleep: 50. 1 / 0]. Erlang timer sleep: 1000"
                      )).endswith(" crashed: badarith\n")
    # an exit is no crash report (as in Erlang), and nothing else is noted
    assert await run("Erlang erlang spawn: [Erlang erlang exit: #boom]. Erlang timer sleep: 300") == ""
    # a block of the wrong arity (spawn calls it with none): the spec's
    # arity message, not the raw {badarity, ...} term
    assert (await run("Erlang erlang spawn: [:x | x]. Erlang timer sleep: 1000")).endswith(
        " crashed: #RuntimeError: Wrong number of arguments: block expects 1 but was called with 0\n")


async def test_an_interrupt_cancels_the_callers_own_queued_input_not_another_clients_run(workspace):
    """Two clients on one session: B's input waits behind A's runaway
    loop.  B's interrupt (Ctrl-C at B's prompt) cancels what B is waiting
    for and leaves A's evaluation alone; A's own interrupt stops A's.  A
    client with nothing running or queued still stops the session's run
    (a tool stopping a loop someone else started)."""
    _, a, b, ra, rb = await _session_pair(workspace)
    try:
        assert (await ra.evaluate("n := 5")).text == "5"
        loop = asyncio.ensure_future(ra.evaluate("[true] whileTrue: []"))
        await asyncio.sleep(0.3)
        waiting = asyncio.ensure_future(rb.evaluate("n + 1"))
        await asyncio.sleep(0.3)
        assert await b.interrupt()
        out_b = await waiting
        assert (out_b.ok, out_b.kind) == (False, "interrupted")
        assert out_b.text.startswith("Interrupted")
        assert not loop.done()                      # A's run goes on
        assert await a.interrupt()
        out_a = await loop
        assert (out_a.ok, out_a.text, out_a.kind) == (False, "Interrupted", "interrupted")
        # B, with nothing of its own running or queued, stops A's run
        loop = asyncio.ensure_future(ra.evaluate("[true] whileTrue: []"))
        await asyncio.sleep(0.3)
        assert await b.interrupt()
        assert (await loop).kind == "interrupted"
        assert (await rb.evaluate("n + 1")).text == "6"
    finally:
        await a.close()
        await b.close()
