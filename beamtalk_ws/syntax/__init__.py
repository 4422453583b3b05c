"""Beamtalk front end: lexer, parser, AST, unparser, diagnostics and the REPL
completeness test (spec/syntax.md; DESIGN D1)."""

from __future__ import annotations

from .ast import *  # noqa: F401,F403
from .ast import Span
from .diagnostics import Diagnostic, SyntaxErrors, render_diagnostic
from .lexer import Token, tokenize
from .parser import parse_source


def parse_with_diagnostics(source: str, filename: str = "<input>"):
    """Parse ``source``; return ``(Module | None, diagnostics)``.  The module
    is None only when no tree could be built at all.  Never raises for bad
    input."""
    module, diags = parse_source(source, filename)
    return module, diags


def parse(source: str, filename: str = "<input>"):
    """Parse ``source`` into a ``Module``; raise ``SyntaxErrors`` (carrying
    every diagnostic) if there is any error."""
    module, diags = parse_source(source, filename)
    if any(d.severity == "error" for d in diags) or module is None:
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


from .ast import dump  # noqa: E402
from .completeness import completeness  # noqa: E402
from .unparse import unparse  # noqa: E402

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
