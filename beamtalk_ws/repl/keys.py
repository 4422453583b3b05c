"""Key bindings of the interactive REPL.

* Enter submits an input the parser calls complete (or invalid: then the
  validator shows the error instead), and opens a continuation line for an
  incomplete one, keeping the indentation (two more after `=>`, an unclosed
  bracket or a class header).  Inside a multi-line input (cursor not at its
  end) Enter just breaks the line.  Escape-Enter (Meta-Enter) submits as it is.
* Tab indents at the start of a line and completes elsewhere (a single
  candidate, or what all candidates share, is inserted; several open a menu
  that Tab and Shift-Tab walk through; Escape closes it, giving back the
  text as typed); Backspace in leading whitespace
  removes one indentation step.
* Ctrl-C cancels the input being edited (`Cancelled`); Ctrl-D on an empty
  line leaves (prompt_toolkit's default); Ctrl-R searches the history
  (prompt_toolkit's default).
* A bracketed paste is inserted whole (prompt_toolkit's default), so a
  pasted class definition is one input however many lines it has.
"""

from __future__ import annotations

import re

from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.key_binding import KeyBindings

INDENT = "  "
_ENDS_HEADER = re.compile(r"=>\s*(//.*)?$")
_STRINGS_AND_COMMENTS = re.compile(r'"(?:[^"]|"")*"?|//.*|\$.')
_CLASS_HEADER = re.compile(r"^(?:[a-z]+\s+)*[A-Z]\w*(?:\s+class)?\s+subclass:\s*[A-Z]\w*\s*$")


class Cancelled(Exception):
    """Ctrl-C while editing; `text` is what was being edited."""

    def __init__(self, text: str = ""):
        super().__init__(text)
        self.text = text


def should_submit(text: str) -> bool:
    """Does Enter at the end of `text` submit it?"""
    stripped = text.strip()
    if not stripped or (stripped.startswith(":") and "\n" not in stripped):
        return True
    from beamtalk_ws.syntax import completeness

    return completeness(text) != "incomplete"


def next_indent(line: str) -> str:
    """Indentation of the line after `line`."""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    body = line.rstrip()
    code = _STRINGS_AND_COMMENTS.sub("", body)
    opened = sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
    if opened > 0 or _ENDS_HEADER.search(body) or _CLASS_HEADER.match(body):
        indent += INDENT
    return indent


def accept(buffer) -> None:
    """Submit (through the validator): without trailing blank lines, so the
    history and the screen keep the input as it reads."""
    text = buffer.text
    stripped = text.rstrip()
    if stripped != text:
        from prompt_toolkit.document import Document

        buffer.set_document(Document(stripped, len(stripped)), bypass_readonly=True)
    buffer.validate_and_handle()


def newline(buffer) -> None:
    buffer.insert_text("\n" + next_indent(buffer.document.current_line_before_cursor))


def repl_key_bindings() -> KeyBindings:
    kb = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER)         # not while searching the history (Ctrl-R)

    @kb.add("enter", filter=editing)
    def _enter(event):
        b = event.current_buffer
        if b.complete_state is not None:
            chosen = b.complete_state.current_completion
            b.complete_state = None
            if chosen is not None:
                return                         # Enter took the completion shown
        text = b.text
        if "\n" in text and text[b.cursor_position:].strip():
            newline(b)                         # editing inside a multi-line input
            return
        if should_submit(text):
            accept(b)
        else:
            newline(b)

    @kb.add("escape", "enter", filter=editing)
    def _submit(event):
        accept(event.current_buffer)

    menu_open = Condition(lambda: get_app().current_buffer.complete_state is not None)

    @kb.add("escape", filter=editing & menu_open)
    def _close_menu(event):
        event.current_buffer.cancel_completion()   # back to the text as typed

    @kb.add("c-c", filter=editing)
    def _cancel(event):
        event.app.exit(exception=Cancelled(event.current_buffer.text), style="class:aborting")

    @kb.add("tab", filter=editing)
    def _tab(event):
        b = event.current_buffer
        before = b.document.current_line_before_cursor
        state = b.complete_state
        if not before.strip() and state is None:
            b.insert_text(INDENT)
        elif state is not None:
            if state.current_completion is None and len(state.completions) == 1:
                b.apply_completion(state.completions[0])
            else:
                b.complete_next()
        else:
            b.start_completion(insert_common_part=True)

    @kb.add("s-tab", filter=editing)
    def _back(event):
        b = event.current_buffer
        if b.complete_state is not None:
            b.complete_previous()

    @kb.add("backspace", filter=editing)
    def _backspace(event):
        b = event.current_buffer
        before = b.document.current_line_before_cursor
        if before and not before.strip(" ") and b.complete_state is None:
            step = len(before) % len(INDENT) or len(INDENT)
            b.delete_before_cursor(min(step, len(before)))
        else:
            b.delete_before_cursor(1)

    return kb
