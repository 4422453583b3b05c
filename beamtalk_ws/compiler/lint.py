"""Warnings: things that compile and run, but are very likely mistakes.

Warnings never stop an input from running; the REPL shows them as `⚠` lines
and `--json` replies carry them as `"warnings"` (DESIGN §3).  Today there is
one: statements after a `^` can never run (spec semantics §4.6).
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast
from beamtalk_ws.syntax.diagnostics import Diagnostic


def warnings(items) -> list[Diagnostic]:
    """The warnings of a list of top-level items (a REPL input or a file)."""
    out: list[Diagnostic] = []
    _sequence(items, out)
    for item in items:
        for node in item.walk():
            if isinstance(node, ast.MethodDef):
                _sequence(node.body, out)
            elif isinstance(node, ast.Block):
                _sequence(node.body, out)
    return out


def _sequence(statements, out) -> None:
    for i, st in enumerate(statements[:-1]):
        if isinstance(st, ast.Return):
            nxt = statements[i + 1]
            if isinstance(nxt, (ast.ClassDef, ast.StandaloneMethod, ast.Expect)):
                continue
            out.append(Diagnostic("Unreachable code after `^`", nxt.span, severity="warning",
                                  hint="Statements after a return never run"))
            return


def render(diags, source: str, filename: str) -> list[str]:
    return [d.render(source, filename) for d in diags]
