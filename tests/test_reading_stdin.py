"""An evaluation that reads stdin (`io:get_line`, `io:fread`, `io:get_chars`)
asks the REPL's user for the line, as Python's `input()` and the Erlang shell
do (spec repl.md §8: need-input / `stdin`).  It used to read eof at once, so
a guessing game could not be written.  Against the real test node."""

from __future__ import annotations

import asyncio
import textwrap
import uuid

import pytest

from conftest import beamtalk_cmd, run_beamtalk


def answering(*lines):
    """An on_input callback that answers `lines` in turn (None: eof), and
    records the prompts it was asked with."""
    asked: list[str] = []
    queue = list(lines)

    async def on_input(prompt: str):
        asked.append(prompt)
        return queue.pop(0) if queue else None

    on_input.asked = asked
    return on_input


async def test_a_line_read_is_a_string_with_its_newline(repl):
    repl.client.on_input = answering("Ann\n")
    out = await repl.evaluate('name := Erlang io get_line: "Your name? "')
    assert (out.ok, out.text) == (True, '"Ann\n"')
    assert repl.client.on_input.asked == ["Your name? "]
    assert (await repl.evaluate('"Hello, {name lines first}!"')).text == '"Hello, Ann!"'


async def test_several_reads_in_one_input_share_what_was_typed(repl):
    repl.client.on_input = answering("abcdef\n", "42 7\n", "é\n")
    out = await repl.evaluate(
        '#((Erlang io get_chars: "> " with: 2), (Erlang io get_line: ""), '
        '(Erlang io fread: "Two numbers: " with: "~d ~d"), (Erlang io get_line: ""))')
    # get_chars takes 2, get_line the rest of that line; fread asks again (a
    # String format is taken as the charlist Erlang wants); then "é"
    assert out.text == '#("ab", "cdef\n", {#ok, #(42, 7)}, "é\n")', out.text
    assert repl.client.on_input.asked == ["> ", "Two numbers: ", ""]


async def test_end_of_input_reads_eof_and_nothing_is_left_over(repl):
    repl.client.on_input = answering(None)
    assert (await repl.evaluate('Erlang io get_line: "? "')).text == "#eof"
    # a client that reads nothing for its evaluations (an agent's tool, say)
    repl.client.on_input = None
    assert (await repl.evaluate('Erlang io get_line: "? "')).text == "#eof"
    # what an input left unread is not read by the next one
    repl.client.on_input = answering("abc\n")
    assert (await repl.evaluate('Erlang io get_chars: "" with: 1')).text == '"a"'
    repl.client.on_input = answering("xyz\n")
    assert (await repl.evaluate('Erlang io get_line: ""')).text == '"xyz\n"'


async def test_list_mode_answers_charlists_as_erlang_code_expects(repl):
    repl.client.on_input = answering("hi\n")
    out = await repl.evaluate('Erlang io setopts: #(#list). Erlang io get_line: ""')
    assert out.text == "#(104, 105, 10)"
    assert (await repl.evaluate("Erlang io getopts")).text.startswith("#({#binary, false}")


async def test_time_spent_waiting_for_the_user_is_not_the_requests_timeout(repl):
    async def slow(prompt):
        await asyncio.sleep(1.0)
        return "late\n"

    repl.client.on_input = slow
    compiled = await repl.compile('Erlang io get_line: "? "')
    out = await repl.client.eval(compiled.forms, timeout_ms=400)
    assert (out.ok, out.text) == (True, '"late\n"'), out.text
    # computing still counts
    compiled = await repl.compile("[true] whileTrue: []")
    out = await repl.client.eval(compiled.forms, timeout_ms=300)
    assert out.kind == "timeout"


async def test_a_process_left_reading_after_its_input_ended_reads_eof(repl):
    repl.client.on_input = answering("never\n")
    await repl.evaluate("me := Erlang erlang self")
    out = await repl.evaluate(
        'Erlang erlang spawn: [(Erlang timer sleep: 300). Erlang erlang send: me with: (Erlang io get_line: "late? ")]. 1')
    assert out.text == "1"
    await asyncio.sleep(0.6)
    got = await repl.evaluate("Erlang erlang process_info: me with: #messages")
    assert got.text == "{#messages, #(#eof)}", got.text
    assert repl.client.on_input.asked == []


def test_piped_input_answers_from_the_next_lines(workspace):
    script = textwrap.dedent("""\
        name := Erlang io get_line: "Name? "
        Bob
        n := Erlang io fread: "Number: " with: "~d"
        41
        (n at: 2) first + 1
        Erlang io get_line: "More? "
        """)
    out = run_beamtalk(["repl", "--workspace", workspace.id, "--session", "p" + uuid.uuid4().hex[:8]],
                       input=script)
    assert out.returncode == 0, out.stderr
    # the prompt is written as Python's input() writes it to a pipe; the value
    # starts on a line of its own
    assert out.stdout.splitlines() == ['Name? ', '"Bob', '"', 'Number: ', '{#ok, #(41)}', '42',
                                       'More? ', '#eof'], out.stdout


def test_json_need_input_and_stdin(jc):
    jc.send({"id": 1, "op": "eval", "code": 'n := Erlang io get_line: "Name? "'})
    assert jc.line() == {"id": 1, "status": ["need-input"], "prompt": "Name? "}
    assert jc.ask({"id": 2, "op": "stdin", "value": "Ann"}) == {"id": 2, "value": "ok"}
    assert jc.reply() == {"id": 1, "value": '"Ann\n"'}
    # nothing waits: said, not swallowed
    assert jc.ask({"id": 3, "op": "stdin", "value": "x"})["error"].startswith(
        "No evaluation is waiting for input")
    assert "error" in jc.ask({"id": 4, "op": "stdin", "value": 5})
    # "eof" ends the input; an interrupt while waiting ends the request
    jc.send({"id": 5, "op": "eval", "code": 'Erlang io get_line: "? "'})
    assert jc.line()["status"] == ["need-input"]
    assert jc.ask({"id": 6, "op": "stdin", "value": "eof"}) == {"id": 6, "value": "ok"}
    assert jc.reply() == {"id": 5, "value": "#eof"}
    jc.send({"id": 7, "op": "eval", "code": 'Erlang io get_line: "? "'})
    assert jc.line()["status"] == ["need-input"]
    jc.send({"id": 8, "op": "interrupt"})
    replies = {r["id"]: r for r in (jc.reply(), jc.reply())}
    assert replies[8] == {"id": 8, "value": "ok"}
    assert replies[7]["error"] == "Interrupted"
    # the read's own monitor of the I/O server is not reported as lost
    assert "monitor" not in replies[7].get("notice", ""), replies[7]
    assert jc.ask({"id": 9, "op": "eval", "code": "n"}) == {"id": 9, "value": '"Ann\n"'}


async def test_an_actor_serving_the_input_reads_from_its_caller(repl):
    # the actor's group leader passes I/O to the evaluation waiting on it
    repl.client.on_input = answering("yes\n")
    assert (await repl.evaluate("Actor subclass: StdinAsker\n  ask: q => Erlang io get_line: q")).ok
    out = await repl.evaluate('(StdinAsker spawn) ask: "Sure? "')
    assert (out.ok, out.text) == (True, '"yes\n"'), out.text
    assert repl.client.on_input.asked == ["Sure? "]


def _asking_package(tmp_path, name: str, body: str):
    root = tmp_path / name
    (root / "src").mkdir(parents=True)
    (root / "beamtalk.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\nstart = "main"\n')
    (root / "src" / "main.bt").write_text("Object subclass: Main\n  class start =>\n" + textwrap.indent(body, "    "))
    return root


def test_ctrl_c_at_a_run_programs_prompt_ends_the_command(workspace, tmp_path):
    # `beamtalk run` of a program waiting at its prompt: Ctrl-C ends the
    # command (exit 130) at once, as for `python game.py`; it used to hang,
    # its stdin reader thread keeping the process alive.
    import os

    pexpect = pytest.importorskip("pexpect")
    root = _asking_package(tmp_path, "asker", 'Transcript showCr: (Erlang io get_line: "Guess: ")\n')
    cmd = beamtalk_cmd() + ["run", "--workspace", workspace.id]
    child = pexpect.spawn(cmd[0], cmd[1:], cwd=str(root), env=dict(os.environ), encoding="utf-8", timeout=30)
    child.expect_exact("Guess: ")
    child.sendcontrol("c")
    child.expect(pexpect.EOF, timeout=15)
    child.close()
    assert child.exitstatus == 130, (child.exitstatus, child.signalstatus, child.before)
    # the workspace goes on serving
    out = run_beamtalk(["repl", "--workspace", workspace.id, "--session", "after-c"], input="3 + 4\n")
    assert out.stdout.strip() == "7", out


def test_json_input_ending_while_a_read_waits_answers_eof_and_exits(workspace):
    # `beamtalk repl --json < requests.jsonl` whose eval reads a line no
    # request answers: the read gets eof when the requests end, the eval its
    # reply, and the command exits; it used to wait for ever.
    import json

    requests = [{"id": 1, "op": "eval", "code": 'x := Erlang io get_line: "Name? "'},
                {"id": 2, "op": "eval", "code": 'Erlang io get_line: "Again? "'},
                {"id": 3, "op": "eval", "code": "x"}]
    out = run_beamtalk(["repl", "--json", "--workspace", workspace.id, "--session", "j" + uuid.uuid4().hex[:8]],
                       input="".join(json.dumps(r) + "\n" for r in requests), timeout=60)
    assert out.returncode == 0, out.stderr
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    finals = [r for r in replies if "status" not in r and "push" not in r]
    assert finals == [{"id": 1, "value": "#eof"}, {"id": 2, "value": "#eof"}, {"id": 3, "value": "#eof"}], replies


def test_json_batch_answers_a_read_with_the_stdin_sent_after_its_eval(workspace):
    # A batch (`repl --json < requests.jsonl`) has its `stdin` line read long
    # before the eval asks: it is kept for the read of an eval sent before it,
    # as typed-ahead lines wait on a terminal.  It used to be refused ("No
    # evaluation is waiting"), and the read got eof.
    import json

    requests = [{"id": 1, "op": "eval", "code": 'x := Erlang io get_line: "Name? "'},
                {"id": 2, "op": "stdin", "value": "Ann"},
                {"id": 3, "op": "eval", "code": "x size"},
                {"id": 4, "op": "eval", "code": "1 + 1"},
                {"id": 5, "op": "stdin", "value": "never read"}]
    out = run_beamtalk(["repl", "--json", "--workspace", workspace.id, "--session", "j" + uuid.uuid4().hex[:8]],
                       input="".join(json.dumps(r) + "\n" for r in requests), timeout=60)
    assert out.returncode == 0, out.stderr
    replies = {r["id"]: r for r in map(json.loads, out.stdout.splitlines()) if "push" not in r}
    assert replies[1] == {"id": 1, "value": '"Ann\n"'}, replies
    assert replies[2] == {"id": 2, "value": "ok"}
    assert replies[3] == {"id": 3, "value": "4"}
    assert replies[5]["error"].startswith("No evaluation read this input"), replies


async def test_a_read_loop_binds_the_line_in_its_condition(repl):
    # Smalltalk's read loop: a name first assigned in an inlined whileTrue:
    # condition is bound in the body (it was "Undefined variable: line")
    repl.client.on_input = answering("a\n", "b\n", None)
    out = await repl.evaluate(
        'got := #(). [(line := Erlang io get_line: "") /= #eof] whileTrue: [got := got add: line trim]. got')
    assert (out.ok, out.text) == (True, '#("a", "b")'), out.text
    # in a method of an actor too; after the loop the name is gone, as for
    # any name first assigned in a block
    src = ("Actor subclass: LoopRd\n  state: seen = #()\n  run: xs =>\n    i := 0.\n"
           "    [(x := i < xs size ifTrue: [xs at: (i := i + 1)] ifFalse: [nil]) notNil] whileTrue: [\n"
           "      self.seen := self.seen add: x * 10].\n    self.seen")
    assert (await repl.evaluate(src)).ok
    assert (await repl.evaluate("(LoopRd spawn) run: #(1, 2, 3)")).text == "#(10, 20, 30)"
    out = await repl.evaluate("[(k := 5) > 3] whileFalse: [k]. k")
    assert not out.ok and "Undefined variable: k" in out.text
