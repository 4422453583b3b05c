"""The interactive REPL: a prompt_toolkit session on a terminal.

One piece per module, as in ptpython: key bindings (`keys.py`), completion
(`completer.py`), highlighting (`highlight.py`), the validator
(`validator.py`); this module puts them together, reads inputs and prints
what `Repl.evaluate` (core.py, shared with `--json`) answers.

The history is kept per workspace (`$BEAMTALK_HOME/workspaces/<id>/history`).
While an evaluation runs the terminal is in its normal mode, so Ctrl-C is a
SIGINT, which interrupts the evaluation on the node; the session's bindings
stay as they were.  Ctrl-D on an empty line leaves: the workspace keeps
running.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading

from beamtalk_ws import __version__
from beamtalk_ws.workspace.errors import WorkspaceError

from . import revive
from .core import Repl

PROMPT = "> "
CONTINUATION = "..> "
_RED = "\x1b[31m"
_RESET = "\x1b[0m"


def banner(repl: Repl) -> str:
    c = repl.client
    return (f"Beamtalk v{__version__} — workspace '{c.ws.id}' on {c.ws.node_name}, session '{c.session}'\n"
            "Type :help for available commands, :exit to quit. Tab completes, Ctrl-R searches the history,\n"
            "Ctrl-C interrupts, Ctrl-D leaves (the workspace keeps running).")


def make_session(repl: Repl, history_path=None, *, input=None, output=None, engine=None):
    """The prompt_toolkit PromptSession of the REPL (input/output for tests)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.styles import Style

    from .completer import CompletionEngine, prompt_toolkit_completer
    from .highlight import STYLE, BeamtalkLexer
    from .keys import repl_key_bindings
    from .validator import BeamtalkValidator

    if history_path is not None:
        history = FileHistory(str(_private_file(history_path)))
    else:
        history = InMemoryHistory()
    engine = engine or CompletionEngine(repl)
    session = PromptSession(
        message=PROMPT,
        multiline=True,
        prompt_continuation=_continuation,
        history=history,
        lexer=BeamtalkLexer(),
        completer=prompt_toolkit_completer(engine),
        complete_while_typing=True,
        validator=BeamtalkValidator(),
        validate_while_typing=False,
        key_bindings=repl_key_bindings(),
        style=Style.from_dict(STYLE),
        include_default_pygments_style=False,
        enable_open_in_editor=False,
        input=input,
        output=output,
    )
    _wrap_validation_message(session)
    return session


def _continuation(width: int, line_number: int, wrap_count: int) -> str:
    """`..> ` before a new line of the input; blanks before the part of a long
    line that wraps, which is not a new line."""
    return CONTINUATION if wrap_count == 0 else " " * len(CONTINUATION)


def _wrap_validation_message(session) -> None:
    """prompt_toolkit shows the validator's message on one line, cut at the
    terminal's edge; ours end with a hint, so let that line wrap (up to a
    few lines) instead."""
    from prompt_toolkit.filters import has_validation_error, to_filter
    from prompt_toolkit.layout.containers import ConditionalContainer, Window
    from prompt_toolkit.layout.dimension import Dimension

    for c in session.app.layout.walk():
        if isinstance(c, ConditionalContainer) and c.filter is has_validation_error \
                and isinstance(c.content, Window):
            c.content.height = Dimension(min=1, max=6)
            c.content.wrap_lines = to_filter(True)
            c.content.dont_extend_height = to_filter(True)


def _private_file(path):
    """The history holds what was typed: readable by its owner only (also a
    history file an older version or a copy left open to others)."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
        try:
            os.fchmod(fd, 0o600)
        finally:
            os.close(fd)
    except OSError:
        pass
    return path


def warm_up_after_first_render(session, notes=None) -> None:
    """Once the prompt is on the screen, import the compiler (and the parser)
    in a thread, so neither the prompt nor the first input waits for it; then
    `notes()` (work that needs the compiler too) may answer a text to show
    above the prompt."""
    app = session.app
    loop = asyncio.get_running_loop()

    def start(_app) -> None:
        app.after_render -= start
        threading.Thread(target=_warm_up, args=(session, loop, notes), name="beamtalk-warm-up",
                         daemon=True).start()

    app.after_render += start


def _warm_up(session, loop, notes) -> None:
    try:
        import beamtalk_ws.compiler  # noqa: F401
        import beamtalk_ws.repl.analysis  # noqa: F401
        import beamtalk_ws.repl.commands  # noqa: F401

        note = notes() if notes is not None else None
    except Exception:                           # noqa: BLE001 - imported again, and reported, when used
        return
    if note:
        loop.call_soon_threadsafe(_show_note, session, note)


def _show_note(session, text: str) -> None:
    """Print a note on stderr above the prompt."""
    _above_prompt(session, lambda: print(text, file=sys.stderr))


def _above_prompt(session, say) -> None:
    """Run `say` (which prints) above the prompt, which is drawn again below
    it; straight away when no prompt is showing (an input is running)."""
    from prompt_toolkit.application import run_in_terminal
    from prompt_toolkit.application.current import set_app

    if session.app.is_running:
        with set_app(session.app):
            asyncio.ensure_future(run_in_terminal(say))
    else:
        say()


async def read_input(session) -> str | None:
    """One input; None at Ctrl-D.  Ctrl-C while editing starts over."""
    from .keys import Cancelled

    while True:
        try:
            text = await session.prompt_async()
        except Cancelled as c:
            if c.text.strip():
                print("Cancelled")
            continue
        except KeyboardInterrupt:
            continue
        except EOFError:
            return None
        if text.strip():
            return text.rstrip()


class OpenLine:
    """The text an evaluation wrote after its last newline.  A read's prompt
    starts with it: prompt_toolkit draws its prompt from the start of the
    line, which would erase `Transcript show: "Age: "` before the answer."""

    def __init__(self) -> None:
        self.tail = ""

    def wrote(self, text: str) -> None:
        head, newline, rest = text.rpartition("\n")
        self.tail = rest if newline else self.tail + text

    def take(self) -> str:
        """The tail, which the caller draws again: the line is no longer open."""
        tail, self.tail = self.tail, ""
        return tail


async def evaluate(repl: Repl, code: str, out=None, open_line: OpenLine | None = None):
    """Run one input; Ctrl-C (SIGINT) meanwhile interrupts it on the node."""
    out = out or sys.stdout
    loop = asyncio.get_running_loop()
    open_line = open_line or OpenLine()
    open_line.tail = ""

    def output(text: str) -> None:
        if text:
            out.write(text)
            out.flush()
            open_line.wrote(text)

    task = asyncio.ensure_future(repl.evaluate(code, on_output=output))

    def on_sigint() -> None:
        if not task.done():
            asyncio.ensure_future(_interrupt(repl))

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
        installed = True
    except (RuntimeError, ValueError):          # not the main thread (tests)
        installed = False
    try:
        outcome = await task
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
    if open_line.take():
        out.write("\n")
    return outcome


async def _interrupt(repl: Repl) -> None:
    try:
        await repl.client.interrupt()
    except WorkspaceError:
        pass


def show(outcome, out=None, err=None) -> None:
    out = out or sys.stdout
    err = err or sys.stderr
    for w in outcome.warnings:
        err.write("\u26a0 " + w + "\n")
    if outcome.text:
        colour = not outcome.ok and out.isatty()
        out.write((_RED + outcome.text + _RESET if colour else outcome.text) + "\n")
    if getattr(outcome, "notice", None):
        out.write("\u21bb " + outcome.notice + "\n")
    out.flush()
    err.flush()


async def read_line(session, repl: Repl, prompt: str, open_line: OpenLine | None = None) -> str | None:
    """A line typed for an evaluation that reads stdin (`io:get_line`), at
    the evaluation's own prompt: Ctrl-D answers eof, Ctrl-C interrupts."""
    from prompt_toolkit import PromptSession

    asker = PromptSession(input=session.input, output=session.output)
    # the output's open line is drawn again as the start of the prompt; the
    # Enter that ends the answer ends that line
    prompt = (open_line.take() if open_line else "") + prompt
    try:
        text = await asker.prompt_async(prompt)
    except KeyboardInterrupt:
        await _interrupt(repl)
        return None
    except EOFError:
        return None
    return text + "\n"


async def run(repl: Repl, history_path=None, notes=None) -> int:
    print(banner(repl))
    session = make_session(repl, history_path)
    open_line = OpenLine()
    repl.client.on_input = lambda prompt: read_line(session, repl, prompt, open_line)
    repl.notify = lambda outcome: _above_prompt(session, lambda: show(outcome))
    warm_up_after_first_render(session, notes)
    follower = asyncio.ensure_future(follow_background(session, repl.client))
    node_info = revive.node_info_of(repl.client)
    try:
        while True:
            code = await read_input(session)
            if code is None:
                print("Goodbye!")
                return 0
            connected = repl.client.node.is_connected
            try:
                outcome = await evaluate(repl, code, open_line=open_line)
            except WorkspaceError as e:
                print(revive.ended_text(repl.client, node_info, connected, e), file=sys.stderr, flush=True)
                return 1
            show(outcome)
            if outcome.quit:
                return 0
    finally:
        follower.cancel()
        if repl.watcher is not None:
            repl.watcher.stop()


#: Marks text that no input of this REPL asked for (repl.md §6).
BACKGROUND_MARK = "\u2502 "


def mark_background(text: str) -> str:
    """`│ ` before each line; a chunk without a final newline still ends its line."""
    return "".join(BACKGROUND_MARK + line + "\n" for line in text.rstrip("\n").split("\n")) if text else ""


#: How long a line without its newline waits for the rest before it is shown.
LINE_WAIT = 0.1


async def follow_background(session, client) -> None:
    """Transcript text and output of processes earlier inputs left running, shown
    as they arrive: above the prompt while one is being edited (the line being
    typed is drawn again below), straight to the terminal while an input runs.

    Shown by whole lines: `Transcript show: "x"; cr` arrives as two chunks, and
    showing each at once would print `│ x` and then an empty `│ ` line.  A line
    still open is shown when nothing more comes for LINE_WAIT seconds."""
    try:
        await client.subscribe_transcript()
    except WorkspaceError:
        pass
    partial = ""
    pending = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(client.next_background())
            if partial:
                done, _ = await asyncio.wait({pending}, timeout=LINE_WAIT)
                if not done:
                    _show_background(session, partial + "\n")
                    partial = ""
                    continue
            try:
                _kind, text = await pending
            except Exception:                       # noqa: BLE001 - the connection is gone: stop following
                if partial:
                    _show_background(session, partial + "\n")
                return
            finally:
                if pending.done():
                    pending = None
            text = partial + text
            cut = text.rfind("\n") + 1
            partial = text[cut:]
            if cut:
                _show_background(session, text[:cut])
    finally:
        if pending is not None:
            pending.cancel()


def _show_background(session, text: str) -> None:
    shown = mark_background(text)
    if shown:
        _above_prompt(session, lambda: (sys.stdout.write(shown), sys.stdout.flush()))
