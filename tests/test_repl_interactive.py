"""The interactive REPL driven through a pseudo-terminal, as a person types:
multi-line input typed and pasted, completion, Ctrl-C, Ctrl-D, history,
the validator.  Real `beamtalk repl` processes against the real test node."""

from __future__ import annotations

import os
import re
import time
import uuid

import pytest

from conftest import beamtalk_cmd

pexpect = pytest.importorskip("pexpect")

#: prompt_toolkit turns bracketed paste on each time a prompt starts reading.
PROMPT = "\x1b[?2004h"
#: ... and off when the input is accepted.
ACCEPTED = "\x1b[?2004l"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
UP = "\x1b[A"


def spawn(workspace, session=None):
    session = session or "i" + uuid.uuid4().hex[:8]
    cmd = beamtalk_cmd() + ["repl", "--workspace", workspace.id, "--session", session]
    env = dict(os.environ, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(cmd[0], cmd[1:], env=env, dimensions=(40, 120), encoding="utf-8", timeout=20)
    child.session = session
    child.expect("Ctrl-D leaves")
    child.expect_exact(PROMPT)
    return child


def expect_line(child, text: str, timeout: float = 20):
    """A whole line of output: after a newline or the terminal codes that end the prompt."""
    child.expect(r"(?:\n|\x1b\[[0-9;?]*[A-Za-z])" + re.escape(text) + r"(?:\x1b\[0m)?\r\n", timeout=timeout)


def enter(child, line: str, expected: str | None = None):
    """Type `line` and Enter; wait for `expected` (a line of output) and the next prompt."""
    child.send(line + "\r")
    if expected is not None:
        expect_line(child, expected)
    before = child.before
    child.expect_exact(PROMPT)
    return before


def quit_(child):
    child.sendcontrol("d")
    child.expect_exact("Goodbye!")
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


@pytest.fixture
def repl_tty(workspace):
    child = spawn(workspace)
    yield child
    if child.isalive():
        child.terminate(force=True)


def test_banner_names_workspace_node_and_session(workspace):
    child = pexpect.spawn(beamtalk_cmd()[0], beamtalk_cmd()[1:] + ["repl", "--workspace", workspace.id,
                                                                    "--session", "banner-s"],
                          env=dict(os.environ, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1"),
                          dimensions=(40, 120), encoding="utf-8", timeout=20)
    child.expect_exact(f"workspace '{workspace.id}' on {workspace.node_name}, session 'banner-s'")
    child.expect_exact(PROMPT)
    assert quit_(child) == 0


def test_class_typed_line_by_line(repl_tty):
    # Enter keeps the indentation (two more after a header or `=>`), Backspace
    # removes a step, an empty line submits the class.
    child = repl_tty
    for line in ("Object subclass: TypedGreeter",       # -> next line indented by 2
                 "greet: name =>",                      # -> 4
                 '"Hello, {name}"',
                 "\x7fshout: name =>",                  # Backspace: back to 2
                 "(self greet: name) asUppercase"):
        child.send(line + "\r")
        child.expect_exact("..>")
    child.send("\r")                                    # the empty line submits
    expect_line(child, "TypedGreeter")
    child.expect_exact(PROMPT)
    enter(child, 'TypedGreeter new greet: "Ann"', '"Hello, Ann"')
    enter(child, 'TypedGreeter new shout: "Bob"', '"HELLO, BOB"')


def test_class_pasted_at_once_is_one_input(repl_tty):
    # Blank lines between methods would end the class if the paste were read
    # line by line; a bracketed paste is one input.
    source = ("Object subclass: PastedGreeter\n"
              "  greet: name =>\n"
              '    "Hi, {name}"\n'
              "\n"
              "  twice: name =>\n"
              "    (self greet: name) ++ (self greet: name)\n"
              "\n"
              "  plain => 1\n")
    child = repl_tty
    child.send(PASTE_START + source.replace("\n", "\r") + PASTE_END)
    child.send("\r")
    expect_line(child, "PastedGreeter")
    child.expect_exact(PROMPT)
    enter(child, 'PastedGreeter new twice: "Al"', '"Hi, AlHi, Al"')
    enter(child, "PastedGreeter new plain", "1")


def test_pasted_statements_are_one_input(repl_tty):
    child = repl_tty
    child.send(PASTE_START + "a := 20\rb := 22\r" + PASTE_END + "\r")
    expect_line(child, "22")                     # one input: the last value only
    child.expect_exact(PROMPT)
    enter(child, "a + b", "42")


def _complete(child, typed: str, shown: str):
    child.send(typed)
    for _ in range(3):                           # an answer that came late serves the next Tab
        child.send("\t")
        try:
            child.expect_exact(shown, timeout=3)
            return
        except pexpect.TIMEOUT:
            continue
    raise AssertionError(f"{shown!r} was not offered for {typed!r}")


def test_completion_of_a_bindings_selectors(repl_tty):
    child = repl_tty
    enter(child, "x := 3", "3")
    _complete(child, "x facto", "factorial")
    child.send("\t")                             # a menu of one: Tab takes it
    enter(child, "", "6")                        # `x factorial`


def test_completion_of_erlang_exports(repl_tty):
    child = repl_tty
    _complete(child, "Erlang lists re", "reverse:")
    child.sendcontrol("c")
    child.expect_exact(PROMPT)
    enter(child, "Erlang lists reverse: #(1, 2)", "#(2, 1)")


def test_ctrl_c_interrupts_a_running_evaluation_and_keeps_bindings(repl_tty):
    child = repl_tty
    enter(child, "k := 5", "5")
    child.send("[true] whileTrue: []\r")
    child.expect_exact(ACCEPTED)
    time.sleep(0.5)                              # the loop is running on the node
    child.sendintr()
    child.expect_exact("Interrupted", timeout=5)
    child.expect_exact(PROMPT)
    enter(child, "k + 1", "6")


def test_ctrl_c_cancels_the_input_being_edited(repl_tty):
    child = repl_tty
    child.send("1 +\r")                          # incomplete: a continuation line
    child.expect_exact("..>")
    child.sendcontrol("c")
    child.expect_exact("Cancelled")
    child.expect_exact(PROMPT)
    enter(child, "2 + 2", "4")


def test_ctrl_d_leaves_and_the_workspace_keeps_running(workspace):
    from beamtalk_ws.workspace import launcher

    child = spawn(workspace)
    enter(child, "kept := 17", "17")
    assert quit_(child) == 0
    assert launcher.running_info(workspace) is not None
    again = spawn(workspace, session=child.session)
    enter(again, "kept + 1", "18")
    assert quit_(again) == 0


def test_history_survives_a_restart_and_ctrl_r_searches_it(workspace):
    marker = "histMarker" + uuid.uuid4().hex[:6]
    first = spawn(workspace)
    enter(first, f"{marker} := 4242", "4242")
    assert quit_(first) == 0
    assert f"+{marker} := 4242" in workspace.history.read_text()
    assert workspace.history.stat().st_mode & 0o077 == 0
    second = spawn(workspace)                    # a new process and a new session
    second.send(UP)
    enter(second, "", "4242")
    second.sendcontrol("r")
    second.send(marker[:12])
    second.send("\r")                            # take the entry found ...
    enter(second, "", "4242")                    # ... and submit it
    assert quit_(second) == 0


def test_validator_shows_the_error_instead_of_sending(repl_tty):
    child = repl_tty
    child.send("]\r")
    child.expect_exact("1:1: Unexpected token: expected expression, found ]")
    child.sendcontrol("c")                       # the input is still there: cancel it
    child.expect_exact("Cancelled")
    child.expect_exact(PROMPT)
    before = enter(child, "1 + 1", "2")
    assert "<input>" not in before               # the node never saw `]`


def test_commands_interactively(repl_tty):
    child = repl_tty
    child.send(":help\r")
    child.expect_exact("Beamtalk REPL commands:")
    child.expect_exact(PROMPT)
    child.send(":help Integer gcd:\r")
    child.expect_exact("Integer >> gcd:")
    child.expect_exact(PROMPT)
    enter(child, ":b", "No bindings.")
    enter(child, "bindings", "Hint: did you mean `:bindings`? REPL commands start with `:`")
    child.send(":q\r")
    child.expect_exact("Goodbye!")
    child.expect(pexpect.EOF)


def test_background_transcript_and_output_appear_while_editing(repl_tty):
    # A Transcript line written by an actor after its input has answered, and
    # output of a process an input left running, show up marked with │ while
    # the prompt waits; the prompt is drawn again below them.
    enter(repl_tty, "Actor subclass: LateWriter\r  go => (Erlang timer sleep: 400). Transcript show: \"late-tr\"; cr\r")
    enter(repl_tty, "LateWriter spawn go!")
    repl_tty.expect_exact("\u2502 late-tr", timeout=10)
    repl_tty.expect_exact(PROMPT)
    enter(repl_tty, "Erlang erlang spawn: [(Erlang timer sleep: 400). Erlang io format: \"late-io~n\"]")
    repl_tty.expect_exact("\u2502 late-io", timeout=10)
    assert quit_(repl_tty) == 0


def test_watch_reloads_show_above_the_prompt(workspace, tmp_path):
    """`:watch` in the terminal: a save is reloaded in the background and its
    outcome is printed above the line being typed, which stays as it was."""
    f = tmp_path / "watched_term.bt"
    f.write_text("Object subclass: WatchedTerm\n  answer => 1\n")
    child = spawn(workspace)
    try:
        enter(child, f":watch {f}", "Loaded: WatchedTerm")
        child.send("WatchedTerm new ans")          # typing, not yet entered
        time.sleep(0.3)
        f.write_text("Object subclass: WatchedTerm\n  answer => 2\n")
        st = f.stat()
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        child.expect_exact("\u21bb Reloaded WatchedTerm", timeout=20)   # the node's watch, on the Transcript
        child.send("wer\r")                        # the line typed so far is still there
        expect_line(child, "2")
        child.expect_exact(PROMPT)
        enter(child, ":watch off", "Stopped watching.")
    finally:
        assert quit_(child) == 0


def test_an_evaluation_reads_a_line_typed_at_its_own_prompt(repl_tty):
    # A guessing game or `input()`: io:get_line asks the person at the REPL.
    child = repl_tty

    def asked(line: str, prompt: str) -> None:
        # the prompt text also shows in the echo of the typed input: wait for
        # the input to be accepted and the evaluation's own prompt to read
        # keys (raw mode; a Ctrl-D typed before that is the tty's end of file)
        child.send(line + "\r")
        child.expect_exact(ACCEPTED)
        child.expect_exact(PROMPT)
        child.expect_exact(prompt)

    asked('name := Erlang io get_line: "Your name? "', "Your name?")
    child.send("Ann\r")
    expect_line(child, '"Ann')                 # a String, with its newline
    child.expect_exact(PROMPT)
    enter(child, "name size", "4")
    # Ctrl-D at the evaluation's prompt is end of input; Ctrl-C interrupts it
    asked('Erlang io get_line: "more? "', "more?")
    child.sendcontrol("d")
    expect_line(child, "#eof")
    child.expect_exact(PROMPT)
    asked('again := Erlang io get_line: "again? "', "again?")
    child.sendcontrol("c")
    child.expect_exact("Interrupted", timeout=10)
    child.expect_exact(PROMPT)
    enter(child, "name size", "4")


def test_a_read_after_output_without_newline_keeps_that_output_on_its_line(repl_tty):
    # `Transcript show: "Age: "` then a read: "Age: " stays, and the typed
    # answer follows it on that line, as after Python's print(end="") and
    # input().  The read's prompt used to redraw the line, erasing "Age: ",
    # and a blank line followed the answer.
    child = repl_tty
    child.send('Transcript show: "Age: ". Erlang io get_line: "(years) "\r')
    child.expect_exact(ACCEPTED)
    child.expect_exact(PROMPT)                 # the read's own prompt reads keys
    child.send("42\r")
    child.expect_exact(ACCEPTED)
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", child.before)
    assert "Age: (years) 42" in drawn, repr(child.before)
    child.expect_exact('"42')
    assert re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r|\s", "", child.before) == "", repr(child.before)
    child.expect_exact(PROMPT)
    enter(child, "3 + 4", "7")
