"""Warnings for literals that mean something else than a newcomer expects.

Both are valid Beamtalk whose value is what the spec says, and both turned
puzzle programs silently wrong when probed:

* `#{goal => 0}` with `goal` a variable: a bare name before `=>` is an
  implicit Symbol (spec syntax §3), so the key is `#goal` and the
  variable's value is never used; the error (a missing key) comes much
  later, far from the literal.
* `text split: "\\n\\n"`: strings have no escapes (spec syntax §2.3), so
  the separator is a backslash and an `n`; the text holds none and the
  answer is the whole text.  Only strings given to String methods that
  take text literally are warned: a regex (`splitRegex:`, `Regex from:`)
  reads `\\n` as a line break itself.
* `Set new add: 3; add: 4; yourself`: each message of a cascade goes to the
  same receiver, and a collection is a value (spec stdlib §4: "→ new X"),
  so the Set of the answer is the empty one; only receivers that are
  plainly a new collection (a literal, `Set new`, `List withAll: …`) are
  warned.  Pharo's `MyError new messageText: 'x'; signal` is the same slip
  with an exception (a value too): the signal raises the one without text.
* `#(state, ev) match: [{#closed, #open} -> …; _ -> state]`: `#( )` is a
  List and a `{ }` pattern matches only a Tuple (spec syntax §4), so the
  tuple arms are never taken and the wildcard answers; a state machine
  written this way silently never moves."""

from __future__ import annotations

import re

from beamtalk_ws.syntax import ast
from beamtalk_ws.syntax.ast import Span
from beamtalk_ws.syntax.diagnostics import Diagnostic
from beamtalk_ws.syntax.unparse import unparse

#: selectors whose String arguments are matched or written as they are
_LITERAL_TEXT_SELECTORS = frozenset({
    "split:", "join:", "includesSubstring:", "replaceAll:with:", "replaceFirst:with:", "indexOf:",
    "startsWith:", "endsWith:", "show:", "showCr:", "display:", "occurrencesOf:", "padLeft:with:",
    "padRight:with:", "includes:", "at:put:"})
_LITERAL_TEXT_OPERATORS = frozenset({"++", "=", "=:=", "/=", "=="})
_ESCAPE = re.compile(r"\\[ntr]")


def literal_warnings(items, out: list) -> None:
    top_names = None
    for item in items:
        # one walk per item; the names a map key could mean are gathered only
        # when it holds a map literal (this runs on every input and file)
        nodes = list(item.walk())
        if any(isinstance(n, ast.MapLit) for n in nodes):
            if isinstance(item, ast.ClassDef):
                for m in item.methods:
                    _map_keys(m, _method_names(m), out)
            elif isinstance(item, ast.StandaloneMethod):
                _map_keys(item.method, _method_names(item.method), out)
            else:
                if top_names is None:
                    top_names = _assigned(items)
                _map_keys(item, top_names | _block_params(item), out)
        for node in nodes:
            if isinstance(node, ast.KeywordSend) and node.selector in _LITERAL_TEXT_SELECTORS:
                for arg in node.arguments:
                    _escaped_string(arg, out)
                if node.selector == "join:":  # Python's "\n".join(xs): the separator receives
                    _escaped_string(node.receiver, out)
            elif isinstance(node, ast.Cascade):
                _cascade_to_value(node, out)
            elif isinstance(node, ast.Match) and isinstance(node.subject, ast.ListLit):
                _list_against_tuples(node, out)
            elif isinstance(node, ast.BinarySend) and node.selector in _LITERAL_TEXT_OPERATORS:
                _escaped_string(node.receiver, out)
                _escaped_string(node.argument, out)


def _assigned(nodes) -> set:
    names = set()
    for st in nodes:
        if isinstance(st, ast.Assignment) and isinstance(st.target, ast.Variable):
            names.add(st.target.name)
    return names


def _block_params(node) -> set:
    return {getattr(p, "name", p) for n in node.walk() if isinstance(n, ast.Block) for p in n.parameters}


def _method_names(method) -> set:
    names = {getattr(p, "name", p) for p in method.parameters} | _block_params(method)
    for node in method.walk():
        if isinstance(node, ast.Assignment) and isinstance(node.target, ast.Variable):
            names.add(node.target.name)
    return names


def _map_keys(root, names, out) -> None:
    if not names:
        return
    for node in root.walk():
        if not isinstance(node, ast.MapLit):
            continue
        for pair in node.pairs:
            key = pair.key
            sp = key.span
            bare = isinstance(key, ast.SymbolLit) and sp.end - sp.start == len(key.name)
            # `qty => qty` is the shorthand for a record (the Symbol named
            # after the variable holding its value): keying the variable's
            # value to itself is not what anyone writes
            if bare and key.name in names and not (
                    isinstance(pair.value, ast.Variable) and pair.value.name == key.name):
                k = key.name
                out.append(Diagnostic(
                    f"`{k} =>` is the Symbol #{k} as the key, not the variable {k}: a bare name before "
                    f"`=>` in a map literal is a Symbol",
                    sp, severity="warning",
                    hint=f"to key by the variable's value write `#{{({k}) => …}}` or `d at: {k} put: …`; "
                         f"write `#{k} =>` to keep the Symbol and silence this warning"))


def _escaped_string(node, out) -> None:
    if not isinstance(node, ast.StringLit):
        return
    m = _ESCAPE.search(node.value)
    if not m:
        return
    letter = m.group(0)[1]
    what = {"n": "a line break", "t": "a tab", "r": "a carriage return"}[letter]
    shown = node.value if len(node.value) <= 20 else node.value[:17] + "..."
    out.append(Diagnostic(
        f'`"{shown}"` holds a backslash and the letter {letter}, not {what}: Beamtalk strings have no '
        f"escapes",
        node.span, severity="warning",
        hint=f"put the {what[2:]} itself between the quotes, split at line ends with `lines`, or use a "
             'regex, where \\n is a line break (`text splitRegex: "\\n\\n"` for blank-line groups)'))


#: messages that answer a changed copy of a collection value
_BUILDING = frozenset({"add:", "addFirst:", "addAll:", "at:put:", "remove:", "removeKey:", "union:",
                       "intersection:", "difference:", "merge:"})
_COLLECTIONS = frozenset({"List", "Set", "Dictionary", "Array", "Tuple"})
_LITERAL_CLASS = {ast.ListLit: "List", ast.MapLit: "Dictionary", ast.ArrayLit: "Array"}


def _collection_class(node):
    """The class of a receiver that is plainly a new collection, or None."""
    if type(node) in _LITERAL_CLASS:
        return _LITERAL_CLASS[type(node)]
    if (isinstance(node, (ast.UnarySend, ast.KeywordSend)) and isinstance(node.receiver, ast.GlobalRef)
            and node.receiver.name in _COLLECTIONS and node.selector in ("new", "new:", "withAll:")):
        return node.receiver.name
    return None


def _cascade_to_value(node, out) -> None:
    _cascade_to_exception(node, out)
    cls = _collection_class(node.receiver)
    if cls is None:
        return
    building = [m for m in node.messages if m.selector in _BUILDING]
    if not building or (len(building) == 1 and building[0] is node.messages[-1]):
        return
    recv = unparse(node.receiver)
    chain = recv
    for m in building[:2]:
        parts = m.selector.split(":")[:-1]
        chain = "(" + chain + " " + " ".join(f"{p}: {unparse(a)}" for p, a in zip(parts, m.arguments)) + ")"
    chain = chain[1:-1]
    out.append(Diagnostic(
        f"every message of this cascade goes to the same {cls}, and a {cls} is an immutable value: "
        f"`{building[0].selector}` answers a new {cls}, which the cascade drops",
        node.receiver.span, severity="warning",
        hint=f"chain the sends instead: `{chain}`; each answers the {cls} the next one builds on"))


def _list_against_tuples(node, out) -> None:
    tuples = [arm.pattern for arm in node.arms if isinstance(arm.pattern, ast.TuplePattern)]
    if not tuples:
        return
    out.append(Diagnostic(
        "`#( )` is a List, and a `{ }` pattern matches only a Tuple: this match: never takes its tuple arms",
        tuples[0].span, severity="warning",
        hint=f"match a Tuple: `(Tuple withAll: {unparse(node.subject)}) match: [...]`"))


def _cascade_to_exception(node, out) -> None:
    """`Error new messageText: "x"; signal`: only `messageText:` before a
    `signal` in one cascade is warned (no other value answers both)."""
    sels = [m.selector for m in node.messages]
    if "messageText:" not in sels:
        return
    at = sels.index("messageText:")
    if not any(s in ("signal", "signal:", "pass", "outer") for s in sels[at + 1:]):
        return
    text = unparse(node.messages[at].arguments[0])
    recv = unparse(node.receiver)
    out.append(Diagnostic(
        "every message of this cascade goes to the same exception, and an exception is an immutable "
        "value: `messageText:` answers a copy with the text, and `signal` raises the one without it",
        node.receiver.span, severity="warning",
        hint=f"write `{recv} signal: {text}` (or `({recv} messageText: {text}) signal`)"))
