"""The line-based REPL for piped input: multi-line input by completeness, print.

Terminals get the interactive REPL (interactive.py); this one reads stdin
line by line.  While an evaluation runs, SIGINT interrupts it on the node and
the session's bindings stay.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading

from beamtalk_ws.syntax import completeness
from beamtalk_ws.workspace.errors import WorkspaceError

from . import revive
from .core import Repl

PROMPT = "> "
CONTINUATION = "..> "


async def stdin_line() -> str:
    """The next line of stdin ("" at its end), read in a daemon thread: a
    reader blocked on a terminal must not keep the process alive after Ctrl-C
    (the default executor's threads are joined when asyncio.run ends)."""
    loop = asyncio.get_running_loop()
    got: asyncio.Future[str] = loop.create_future()

    def settle(line: str | None, exc: BaseException | None) -> None:
        if got.done():
            return
        if exc is not None:
            got.set_exception(exc)
        else:
            got.set_result(line)

    def work() -> None:
        try:
            line, exc = sys.stdin.readline(), None
        except Exception as e:  # a closed or undecodable stdin: the caller's error
            line, exc = None, e
        try:
            loop.call_soon_threadsafe(settle, line, exc)
        except RuntimeError:  # the loop has ended: nobody waits for the line
            pass

    threading.Thread(target=work, name="stdin-line", daemon=True).start()
    return await got


class LineReader:
    """Reads one line at a time from stdin (prompts shown when `interactive`)."""

    def __init__(self, interactive: bool, history_path=None):
        self.interactive = interactive
        self.pushed: list[str] = []

    def push_back(self, line: str) -> None:
        self.pushed.append(line)

    async def read(self, prompt: str) -> str:
        """A line without its newline; EOFError at end of input, KeyboardInterrupt on Ctrl-C."""
        if self.pushed:
            return self.pushed.pop()
        if self.interactive:
            write(prompt)
        line = await stdin_line()
        if not line:
            raise EOFError
        return line.rstrip("\n")


async def read_input(reader: LineReader) -> str | None:
    """Accumulate lines until the input is complete; None at end of input."""
    lines: list[str] = []
    while True:
        try:
            line = await reader.read(CONTINUATION if lines else PROMPT)
        except EOFError:
            if lines:
                return "\n".join(lines)
            return None
        except KeyboardInterrupt:
            if lines:
                print("Cancelled")
            lines = []
            continue
        if not lines and not line.strip():
            continue
        lines.append(line)
        text = "\n".join(lines)
        if text.lstrip().startswith(":") or completeness(text) != "incomplete":
            if not reader.interactive and _in_class_body(text):
                # Piped input can look ahead: blank lines and indented lines
                # after a method still belong to the class being defined.
                more = await _continuation(reader)
                if more:
                    lines.extend(more)
                    text = "\n".join(lines)
            return text


def _in_class_body(text: str) -> bool:
    return "subclass:" in text or ">>" in text


async def _continuation(reader: LineReader) -> list[str]:
    """Lines that continue a class body: blank runs followed by an indented line."""
    taken: list[str] = []
    blanks: list[str] = []
    while True:
        try:
            line = await reader.read(CONTINUATION)
        except EOFError:
            return taken
        if not line.strip():
            blanks.append(line)
            continue
        if line[:1] in (" ", "\t"):
            taken.extend(blanks)
            taken.append(line)
            blanks = []
            continue
        reader.push_back(line)
        return taken


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


async def run(repl: Repl, interactive: bool, history_path=None) -> int:
    reader = LineReader(interactive, history_path)
    loop = asyncio.get_running_loop()
    node_info = revive.node_info_of(repl.client)
    shown = {"open_line": False}

    async def read_line(prompt: str) -> str | None:
        """A line for an evaluation that reads stdin: the next line of input,
        after its prompt, as Python's input() and Erlang's io:get_line read
        piped input."""
        if prompt:
            write(prompt)
            shown["open_line"] = not prompt.endswith("\n")
        try:
            line = await reader.read("")
        except (EOFError, KeyboardInterrupt):
            return None
        if interactive:
            shown["open_line"] = False            # the terminal echoed the newline
        return line + "\n"

    repl.client.on_input = read_line
    while True:
        code = await read_input(reader)
        if code is None:
            if interactive:
                print("Goodbye!")
            return 0
        shown["open_line"] = False

        def output(text: str) -> None:
            if text:
                write(text)
                shown["open_line"] = not text.endswith("\n")

        connected = repl.client.node.is_connected
        task = asyncio.ensure_future(repl.evaluate(code, on_output=output))

        def on_sigint() -> None:
            asyncio.ensure_future(repl.client.interrupt())

        loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            outcome = await task
        except WorkspaceError as e:
            sys.stdout.flush()
            print(revive.ended_text(repl.client, node_info, connected, e), file=sys.stderr, flush=True)
            return 1
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        if shown["open_line"]:
            print()                  # output without a final newline (`Transcript show: "x"`)
        # spec repl.md §6: warnings and errors on stderr, values on stdout;
        # stdout is flushed first so that `2>&1` keeps the order of a session
        sys.stdout.flush()
        for w in outcome.warnings:
            print("\u26a0 " + w, file=sys.stderr, flush=True)
        stream = sys.stdout if outcome.ok else sys.stderr
        for line in outcome.lines():
            print(line, file=stream, flush=True)
        if outcome.quit:
            return 0
