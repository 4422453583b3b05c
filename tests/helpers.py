"""Helpers the REPL-driven tests share: evaluate-and-check, open a session.

Many test files drive a real workspace through a :class:`Repl` and need the
same few steps: evaluate an input and insist that it succeeded (or failed),
read what the REPL would print, connect a second session.  One copy here
keeps those checks, and the messages they fail with, the same in every file.

Import them with ``from helpers import ok, err`` (``tests/`` is on the path,
as for ``conftest``).
"""

from __future__ import annotations

from beamtalk_ws.repl.core import Repl
from beamtalk_ws.workspace.client import WorkspaceClient


async def ok(repl, code, on_output=None) -> str:
    """Evaluate `code`, which must succeed; answers the result text."""
    out = await repl.evaluate(code, on_output=on_output)
    assert out.ok, (code, out.text)
    return out.text


async def err(repl, code) -> str:
    """Evaluate `code`, which must fail; answers the error text."""
    out = await repl.evaluate(code)
    assert not out.ok, (code, out.text)
    return out.text


async def session(ws, name="s1"):
    """A new client session `name` on workspace `ws`, and a Repl over it."""
    c = await WorkspaceClient.connect(ws, session=name)
    return c, Repl(c)


async def shown(repl, code) -> str:
    """What the REPL prints for `code` (every line, errors included)."""
    out = await repl.evaluate(code)
    return "\n".join(out.lines())


async def shown_without(repl, code, *marks) -> str:
    """What the REPL prints for `code`, which must contain none of `marks`.

    For tests that judge an input by its printed lines (the durable and
    write-back scenarios) rather than by the outcome's flag."""
    text = await shown(repl, code)
    assert not any(m in text for m in marks), text
    return text
