"""Beamtalk front end (spec/syntax.md; DESIGN D1): a hand-written lexer, a
recursive-descent parser with precedence climbing, the AST, an unparser,
diagnostics, and the REPL completeness test.

Public API
----------
``parse(source, filename='<input>') -> Module``
    raises ``SyntaxErrors`` (``.diagnostics``, ``.render()``) on any error.
``parse_with_diagnostics(source, filename) -> (Module | None, [Diagnostic])``
    never raises for bad input; the module holds whatever parsed.
``parse_expression(source) -> node``
    exactly one statement.
``tokenize(source) -> [Token]``
    ``Token(kind, value, span, nl_before, text)``; the last one is EOF.
``completeness(text) -> 'complete' | 'incomplete' | 'invalid'``
    for multi-line REPL input (rules in ``completeness.py``).
``unparse(node) -> str``
    canonical source; ``parse(unparse(parse(s))) == parse(s)``.
``dump(node) -> str``
    readable AST rendering (``beamtalk check --emit ast``).
``Diagnostic(message, span, severity='error', hint=None)``, ``Span(start, end,
line, col)``, ``render_diagnostic(diag, source, filename)``.

The AST node classes live in ``beamtalk_ws.syntax.ast`` (also re-exported
here).  ``beamtalk check`` is ``beamtalk_ws.syntax.check.check_main``.
"""

from __future__ import annotations

from .ast import *  # noqa: F401,F403  (node classes)
from .ast import Span, dump
from .completeness import completeness
from .diagnostics import Diagnostic, SyntaxErrors, render_diagnostic
from .lexer import Token, tokenize
from .parser import parse_source
from .unparse import unparse


def parse_with_diagnostics(source: str, filename: str = "<input>"):
    """Parse ``source``; return ``(Module | None, diagnostics)``.  The module
    is None only when no tree could be built at all (nesting beyond Python's
    recursion limit).  Never raises for bad input."""
    return parse_source(source, filename)


def parse(source: str, filename: str = "<input>"):
    """Parse ``source`` into a ``Module``; raise ``SyntaxErrors`` (carrying
    every diagnostic) if there is any error."""
    module, diags = parse_source(source, filename)
    if module is None or any(d.severity == "error" for d in diags):
        raise SyntaxErrors(diags, source, filename)
    return module


def parse_expression(source: str, filename: str = "<input>"):
    """Parse a source text holding exactly one statement; return its node."""
    m = parse(source, filename)
    if len(m.items) != 1:
        raise SyntaxErrors(
            [Diagnostic("Expected exactly one expression", Span(0, len(source), 1, 1))], source, filename
        )
    return m.items[0]


__all__ = [
    "parse",
    "parse_with_diagnostics",
    "parse_expression",
    "tokenize",
    "completeness",
    "unparse",
    "dump",
    "Diagnostic",
    "SyntaxErrors",
    "render_diagnostic",
    "Token",
    "Span",
]
