"""Warnings for numbers spelled as other languages spell them.

Each of these is valid Beamtalk that means something else (spec syntax
§2.2): `16#FF` (Erlang) is the number 16 and then the symbol `#FF`, two
statements whose value is silently the symbol; `0x1F` (C, Python) is 0 sent
the unary message `x1F`; `1_000` (Python, Erlang 27) is 1 sent `_000`.  The
warning says how Beamtalk writes the number."""

from __future__ import annotations

from beamtalk_ws.syntax import ast
from beamtalk_ws.syntax.ast import Span
from beamtalk_ws.syntax.diagnostics import Diagnostic


def foreign_numbers(items, out: list) -> None:
    _sequence(items, out)
    for item in items:
        for node in item.walk():
            if isinstance(node, ast.MethodDef):
                _sequence(node.body, out)
            elif isinstance(node, ast.Block):
                _sequence(node.body, out)
            elif isinstance(node, ast.UnarySend):
                _glued_selector(node, out)


def _rightmost(node):
    """The last leaf of an expression."""
    while True:
        if isinstance(node, (ast.Assignment, ast.Return)):
            node = node.value
        elif isinstance(node, ast.BinarySend):
            node = node.argument
        elif isinstance(node, ast.KeywordSend):
            node = node.arguments[-1]
        else:
            return node


def _leftmost(node):
    while isinstance(node, (ast.UnarySend, ast.BinarySend, ast.KeywordSend, ast.Cascade)):
        node = node.receiver
    return node


def _sequence(statements, out) -> None:
    """`16#FF`: an integer and a symbol with nothing between them."""
    for prev, st in zip(statements, statements[1:]):
        number, symbol = _rightmost(prev), _leftmost(st)
        if (isinstance(number, ast.IntegerLit) and isinstance(symbol, ast.SymbolLit)
                and number.span.end == symbol.span.start and number.value >= 0):
            sp = number.span
            out.append(Diagnostic(
                f"This is two expressions: the number {number.value} and the symbol #{symbol.name}",
                Span(sp.start, symbol.span.end, sp.line, sp.col), severity="warning",
                hint=f"radix numbers are written with r: {number.value}r{symbol.name}"))


def _glued_selector(node, out) -> None:
    """`0x1F` and `1_000`: a unary selector glued to an integer literal."""
    recv = node.receiver
    if not isinstance(recv, ast.IntegerLit) or node.span.end - len(node.selector) != recv.span.end:
        return
    sel = node.selector
    sp = recv.span
    span = Span(sp.start, node.span.end, sp.line, sp.col)
    if recv.value == 0 and sel[:1] in ("x", "X") and len(sel) > 1:
        digits = sel[1:]
        if all(c in "0123456789abcdefABCDEF" for c in digits):
            out.append(Diagnostic(
                f"`0{sel}` is 0 sent the message {sel}, not a hexadecimal number", span, severity="warning",
                hint=f"hexadecimal numbers are written with a radix: 16r{digits.upper()}"))
    elif sel.startswith("_") and sel.replace("_", "").isdigit():
        whole = str(recv.value) + sel.replace("_", "")
        out.append(Diagnostic(
            f"`{recv.value}{sel}` is {recv.value} sent the message {sel}: digits cannot be grouped with _",
            span, severity="warning", hint=f"write the number without underscores: {whole}"))
