"""A warning for a collection "mutator" whose answer is dropped.

Spec semantics §8: List, Dictionary, Set and Array are values, so
`d at: 1 put: 2` answers a new dictionary and leaves `d` as it was; written
as a statement of its own (Pharo's habit), it does nothing at all.  Only a
receiver known to hold a collection is warned: a variable assigned a
collection literal (or `Set new`, ...) earlier in the same statement
sequence, or a field whose `state:` default is one; any other receiver may
be an object or actor whose `add:` does change it.
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast, unparse
from beamtalk_ws.syntax.diagnostics import Diagnostic
from beamtalk_ws.syntax.doctest_marks import is_doctest

#: selectors that answer an updated copy of a collection (stdlib.md)
MUTATORS = frozenset({"at:put:", "add:", "addAll:", "addFirst:", "addLast:", "removeKey:", "remove:",
                      "removeAll:", "removeFirst", "removeLast"})
_CLASSES = frozenset({"Dictionary", "Set", "List", "Array", "Bag"})
_LITERALS = {ast.MapLit: "Dictionary", ast.ListLit: "List", ast.ArrayLit: "Array"}


def _kind(value) -> str | None:
    """The collection class an expression certainly answers, or None."""
    if type(value) in _LITERALS:
        return _LITERALS[type(value)]
    if (isinstance(value, ast.UnarySend) and value.selector == "new" and isinstance(value.receiver, ast.GlobalRef)
            and value.receiver.name in _CLASSES):
        return value.receiver.name
    return None


def _key(node) -> str | None:
    if isinstance(node, ast.Variable) and node.name != "self":
        return node.name
    if isinstance(node, ast.FieldAccess) and isinstance(node.receiver, ast.Variable) and node.receiver.name == "self":
        return "self." + node.name
    return None


def dropped_updates(statements, out: list, known: dict) -> None:
    """Warn on the statements of one sequence (not the last: that is its
    value); `known` maps variables and `self.field`s to collection classes."""
    known = dict(known)
    for i, st in enumerate(statements):
        if isinstance(st, ast.Assignment):
            key = _key(st.target)
            if key is not None:
                kind = _kind(st.value)
                if kind:
                    known[key] = kind
                else:
                    known.pop(key, None)
            continue
        if i == len(statements) - 1:
            break
        if isinstance(st, (ast.KeywordSend, ast.UnarySend)) and st.selector in MUTATORS:
            key = _key(st.receiver)
            if key in known:
                out.append(Diagnostic(
                    f"`{st.selector}` answers a new {known[key]} and leaves `{key}` as it was "
                    f"(collections are values)", st.span, severity="warning",
                    hint=f"keep the answer: `{key} := {unparse(st).strip()}`"))


def warnings(items, out: list, source: str | None = None) -> None:
    """Every sequence of a REPL input or file: its top level, method bodies
    (knowing the class's collection fields) and blocks.  The top level of a
    doc-test file is a transcript whose cases show values on purpose
    (`xs add: 3 // => #(1, 2, 3)`, then `xs` unchanged): not checked."""
    if source is None or not is_doctest(source):
        dropped_updates(items, out, {})
    for item in items:
        if isinstance(item, ast.ClassDef):
            fields = {"self." + d.name: _kind(d.default) for d in item.state if _kind(d.default)}
            for m in item.methods:
                _sequences(m.body, out, {} if m.class_side else fields)
        elif not isinstance(item, ast.StandaloneMethod):
            _sequences([item], out, {}, top=True)


def _sequences(body, out: list, fields: dict, top: bool = False) -> None:
    if not top:
        dropped_updates(body, out, fields)
    for st in body:
        for node in st.walk():
            if isinstance(node, ast.Block):
                dropped_updates(node.body, out, fields)
