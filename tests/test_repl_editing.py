"""The pieces of the interactive REPL that need no node: when Enter submits,
indentation, the validator, highlighting (the project's lexer), and a whole
PromptSession fed through prompt_toolkit's pipe input."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings, strategies as st

from beamtalk_ws.repl.analysis import analyse
from beamtalk_ws.repl.highlight import fragments, split_lines
from beamtalk_ws.repl.keys import next_indent, should_submit
from beamtalk_ws.repl.validator import syntax_error


@pytest.mark.parametrize("text, submit", [
    ("3 + 4", True),
    ("", True),
    (":load x.bt", True),
    ("]", True),                                   # invalid: submitted to the validator
    ("3 +", False),
    ("x := [:a |", False),
    ('"open string', False),
    ("Object subclass: Foo", False),
    ("Object subclass: Foo\n  bar => 1", False),   # more methods may follow
    ("Object subclass: Foo\n  bar =>\n    1 + 2\n  ", True),   # an empty line ends the class
    ("Object subclass: Foo\n  bar => 1\nFoo new bar", True),
])
def test_should_submit(text, submit):
    assert should_submit(text) is submit


@pytest.mark.parametrize("line, indent", [
    ("x := 3 +", ""),
    ("Object subclass: Foo", "  "),
    ("abstract Value subclass: Foo", "  "),
    ("  bar =>", "    "),
    ("  bar => 1", "  "),
    ("    coll do: [:x |", "      "),
    ("  state: x = 0", "  "),
    ('  x := "a [" size', "  "),                  # brackets in strings do not count
    ("  coll do: [:x | x]", "  "),
])
def test_next_indent(line, indent):
    assert next_indent(line) == indent


def test_validator_only_for_invalid_input():
    offset, message = syntax_error("]")
    assert offset == 0 and message == "1:1: Unexpected token: expected expression, found ]"
    assert syntax_error("x := 3 + + 4")[1].endswith("expected expression, found +")
    assert syntax_error("3 +") is None               # incomplete: a continuation line instead
    assert syntax_error("3 + 4") is None
    assert syntax_error(":load ]") is None           # commands are not Beamtalk
    assert syntax_error("   ") is None


def test_highlighting_covers_the_text_with_styles():
    src = 'x := #(1, 2) inject: 0 into: [:a :b | a + b]. "s {x}" // note\n#foo $a 3.5 Foo new ^ self'
    frags = fragments(src)
    assert "".join(t for _, t in frags) == src
    styled = {t: s for s, t in frags}
    assert styled["inject:"] == "class:bt.keyword"
    assert styled["1"] == styled["3.5"] == "class:bt.number"
    assert styled["// note"] == "class:bt.comment"
    assert styled["#foo"] == "class:bt.symbol"
    assert styled["Foo"] == "class:bt.class"
    assert styled["self"] == "class:bt.pseudo"
    assert styled['"s {'] == "class:bt.string"
    assert styled[":="] == "class:bt.operator"
    assert len(split_lines(frags)) == 2


def test_highlighting_of_unfinished_and_bad_input():
    assert fragments('"still typing') == [("class:bt.string", '"still typing')]
    assert ("class:bt.error", "@") in fragments("3 @ 4")
    assert fragments(":load x.bt") == [("class:bt.command", ":load"), ("", " x.bt")]
    assert fragments("") == []


_PIECES = st.sampled_from(list('abcXYZ :=#()[]{}"$\'.^;|!<>+-*/,\n\t0123456789@`\\')
                         + ["subclass:", "=>", "Erlang", "lists", " x", "//", "/*", "*/", ":load ", ":help "])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_editing_helpers_take_any_text(text):
    """Whatever is being typed: highlighting covers it exactly, and reading
    it for completion, validation or Enter never fails."""
    assert "".join(t for _, t in fragments(text)) == text
    analyse(text, {"x"})
    syntax_error(text)
    should_submit(text)
    next_indent(text.split("\n")[-1])


class _Client:
    bound_names: list = []
    info: dict = {}


class _Repl:
    client = _Client()


async def _prompt(keys: str):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from beamtalk_ws.repl.interactive import make_session

    with create_pipe_input() as inp:
        session = make_session(_Repl(), None, input=inp, output=DummyOutput())
        task = asyncio.ensure_future(session.prompt_async())
        inp.send_text(keys)
        try:
            return await asyncio.wait_for(task, 10), session
        except asyncio.TimeoutError:
            return None, session


async def test_prompt_session_multi_line_by_completeness():
    text, _ = await _prompt("Object subclass: Foo\rbar =>\r1 + 2\r\r")
    assert text == "Object subclass: Foo\n  bar =>\n    1 + 2"


async def test_prompt_session_bracketed_paste_is_one_input():
    text, _ = await _prompt("\x1b[200~x := 1\ry := 2\r\x1b[201~\r")
    assert text == "x := 1\ny := 2"


async def test_prompt_session_keeps_invalid_input_with_the_error():
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from beamtalk_ws.repl.interactive import make_session
    from beamtalk_ws.repl.keys import Cancelled

    with create_pipe_input() as inp:
        session = make_session(_Repl(), None, input=inp, output=DummyOutput())
        task = asyncio.ensure_future(session.prompt_async())
        inp.send_text("]\r")
        for _ in range(100):
            if session.default_buffer.validation_error is not None:
                break
            await asyncio.sleep(0.02)
        assert not task.done()
        assert "expected expression, found ]" in session.default_buffer.validation_error.message
        inp.send_text("\x03")
        with pytest.raises(Cancelled):
            await asyncio.wait_for(task, 10)


class _BoundClient:
    bound_names = ["apple", "apricot"]
    info: dict = {}


class _BoundRepl:
    client = _BoundClient()


async def _wait_for(predicate, what):
    for _ in range(200):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def test_escape_closes_the_completion_menu_and_keeps_what_was_typed():
    """Esc with the menu open closes it (as in ptpython, IPython, editors),
    giving back the text as typed; then Enter submits it."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from beamtalk_ws.repl.interactive import make_session

    with create_pipe_input() as inp:
        session = make_session(_BoundRepl(), None, input=inp, output=DummyOutput())
        session.app.ttimeoutlen = 0.05
        buf = session.default_buffer
        task = asyncio.ensure_future(session.prompt_async())
        inp.send_text("ap\t")
        await _wait_for(lambda: buf.complete_state is not None, "the menu")
        inp.send_text("\t")                       # walk to the first candidate
        await _wait_for(lambda: buf.text == "apple", "the first candidate")
        inp.send_text("\x1b")
        await _wait_for(lambda: buf.complete_state is None, "Esc to close the menu")
        assert buf.text == "ap"
        inp.send_text("\r")
        assert await asyncio.wait_for(task, 10) == "ap"


async def test_a_long_syntax_error_is_shown_whole():
    """The message under an invalid input wraps instead of being cut at the
    terminal's edge (the hint is at its end)."""
    import io

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output.vt100 import Vt100_Output

    from beamtalk_ws.repl.interactive import make_session
    from beamtalk_ws.repl.keys import Cancelled

    screen = io.StringIO()
    out = Vt100_Output(screen, lambda: Size(rows=20, columns=60), term="xterm")
    with create_pipe_input() as inp:
        session = make_session(_Repl(), None, input=inp, output=out)
        task = asyncio.ensure_future(session.prompt_async())
        inp.send_text('"abc" , "def"\r')
        buf = session.default_buffer
        await _wait_for(lambda: buf.validation_error is not None, "the error")
        await asyncio.sleep(0.3)                  # drawn
        message = buf.validation_error.message
        assert len(message) > 120 and message.endswith(")")
        inp.send_text("\x03")
        with pytest.raises(Cancelled):
            await asyncio.wait_for(task, 10)
    import re as _re
    shown = _re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|[\r\n]", "", screen.getvalue())
    tail = message[-25:]
    assert tail in shown.replace("  ", " ") or tail in shown, shown[-400:]


class _Chunks:
    """A client whose background text arrives in the given chunks, then stops."""

    def __init__(self, chunks):
        self.chunks = list(chunks)

    async def subscribe_transcript(self):
        return None

    async def next_background(self):
        if not self.chunks:
            await asyncio.sleep(3600)
        item = self.chunks.pop(0)
        if isinstance(item, float):
            await asyncio.sleep(item)
            item = self.chunks.pop(0)
        return "transcript", item


class _NoPrompt:
    class app:
        is_running = False


async def test_background_text_is_shown_by_lines(capsys):
    """`Transcript show: "bg"; cr` arrives as two chunks ("bg", "\\n"): one
    marked line, not "│ bg" and an empty "│ " line; a line left open is
    shown once nothing more comes."""
    from beamtalk_ws.repl.interactive import follow_background

    client = _Chunks(["bg", "\n", "a", "b\nc", "\n", "tail", 0.5, "more\n"])
    task = asyncio.ensure_future(follow_background(_NoPrompt(), client))
    await asyncio.sleep(1.0)
    task.cancel()
    assert capsys.readouterr().out == "\u2502 bg\n\u2502 ab\n\u2502 c\n\u2502 tail\n\u2502 more\n"


def test_a_wrapped_long_line_is_not_shown_as_a_continuation_line():
    """`..> ` marks a new line of the input; the rest of a line too long for
    the terminal is indented without it, so it does not read as a new line."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from beamtalk_ws.repl.interactive import CONTINUATION, make_session

    with create_pipe_input() as inp:
        session = make_session(_Repl(), None, input=inp, output=DummyOutput())
        cont = session.prompt_continuation
        assert cont(2, 1, 0) == CONTINUATION
        assert cont(2, 0, 1).strip() == "" and len(cont(2, 0, 1)) == len(CONTINUATION)
