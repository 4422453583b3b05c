"""Warnings for Pharo habits whose answer is silently not Pharo's.

A Pharo programmer's first classes and loops run here, but two of their
most common idioms answer something else without any error:

* ``initialize`` in a class made with ``new``: Pharo's ``new`` sends
  ``initialize``; here ``new`` answers the instance with its ``state:``
  defaults (spec semantics §3.3) and only an Actor's ``spawn`` sends
  ``initialize`` (§3.4).  The fields ``initialize`` sets stay nil, and
  the first use of one is far from the cause.
* ``c = $a``: a character literal is its code point, an Integer (§1),
  while a String's letters (``at:``, ``first``, ``do:``) are one-letter
  Strings (§7), so the comparison is false for every letter.

Both are spec semantics, not defects, so they are warned at the point of
use with the Beamtalk spelling; the answers stay as the spec says.
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast
from beamtalk_ws.syntax.ast import Span
from beamtalk_ws.syntax.diagnostics import Diagnostic

#: superclasses whose instances are made with `new` (no table needed)
_NEW_MADE = frozenset({"Object", "Value", "TestCase", "Exception", "Error", "RuntimeError", "TypeError"})
#: comparisons that are false between a one-letter String and an Integer
_EQUALITIES = frozenset({"=", "==", "=:=", "/=", "=/=", "~="})


def warnings(items, out: list, table=None) -> None:
    for item in items:
        if isinstance(item, ast.ClassDef):
            _initialize_not_sent(item, out, table)
        for node in item.walk():
            if isinstance(node, ast.BinarySend) and node.operator in _EQUALITIES:
                _character_comparison(node, out)


def _made_with_new(cdef, table) -> bool:
    """True when instances of the class come from `new`, not `spawn`; an
    unknown superclass (another file, not loaded) is not guessed."""
    sup = cdef.superclass
    if sup in _NEW_MADE:
        return True
    if table is not None and sup in table.known:
        return table.kind_of(sup) != "actor"
    return False


def _initialize_not_sent(cdef, out: list, table) -> None:
    init = next((m for m in cdef.methods if m.selector == "initialize" and not m.class_side), None)
    if init is None or not _made_with_new(cdef, table):
        return
    for m in cdef.methods:
        if m.class_side and any(isinstance(n, (ast.UnarySend, ast.CascadeMessage)) and n.selector == "initialize"
                                for st in m.body for n in st.walk()):
            return  # `class new => ^super new initialize` sends it
    s = init.span
    where = Span(s.start, s.start + len("initialize"), s.line, s.col)
    if cdef.superclass == "TestCase":
        hint = "BUnit sends setUp before each test: name the method setUp (ending with the assignment)"
    else:
        hint = ("give each field its starting value in its declaration (`state: count = 0`), or define "
                "`class new => ^super new initialize` with initialize ending in the assignment or `^self`")
    out.append(Diagnostic(
        f"`{cdef.name} new` does not send initialize: a new instance starts with its state: defaults "
        f"(only an Actor's spawn sends initialize)",
        where, severity="warning", hint=hint))


#: unary selectors that answer a code point (an Integer), not a letter
_CODE_POINTS = frozenset({"asInteger", "asCharacter", "codePoint", "value", "asciiValue", "charCode"})


def _code_point(node) -> bool:
    """`Character value: 97`, `x asInteger`: an Integer on purpose."""
    if isinstance(node, (ast.UnarySend, ast.KeywordSend)) and isinstance(node.receiver, ast.GlobalRef) \
            and node.receiver.name == "Character":
        return True
    return isinstance(node, ast.UnarySend) and node.selector in _CODE_POINTS


def _character_comparison(node, out: list) -> None:
    left, right = node.receiver, node.argument
    if isinstance(right, ast.CharLit):
        char, other = right, left
    elif isinstance(left, ast.CharLit):
        char, other = left, right
    else:
        return
    if isinstance(other, (ast.CharLit, ast.IntegerLit, ast.FloatLit)) or _code_point(other):
        return
    v = char.value
    lit = "$" + {10: "\\n", 9: "\\t", 13: "\\r"}.get(v, chr(v))
    spelled = f'"{chr(v)}"' if v > 32 and chr(v) != '"' else "of that one character"
    out.append(Diagnostic(
        f"{lit} is the Integer {v} (a character literal is its code point); "
        f"a String's letters are one-letter Strings, so comparing one with it is always false",
        char.span, severity="warning",
        hint=f"compare a letter of a String with the String {spelled}"))
