"""Warnings for code that runs but cannot mean what a newcomer meant.

Each case here is valid Beamtalk whose value is silently not the one a
Pharo, Python or JavaScript user expects, so an error would be wrong and
silence is worse:

* ``l add: 3.`` on a List (or ``d at: #k put: 1.`` on a Dictionary) whose
  answer is dropped: collections are values (spec semantics §1), the update
  answers a new collection and ``l`` is unchanged.  In a method,
  ``self.items add: x`` leaves the field as it was, also as the last
  statement (the new List is answered, the field keeps the old one).
* ``x[0]``, ``d["a"]``: no indexing syntax; by spec syntax §3.2 this is
  ``x`` and then a block, so the answer is "a Block".
* ``"a comment" x foo``: a Pharo comment is a String here, and the line
  is two statements.
* ``state: a = 1 b = 2``: one field ``a`` whose default is the expression
  ``1 b = 2`` (a send of ``b`` to 1, compared with 2), which fails only
  when an instance is made; two fields need two ``state:`` lines.

Only literal knowledge is used (a variable assigned a collection literal
in the same input or method, a field whose `state:` default is one), so an
actor's ``add:`` (which changes the actor) is never reported.
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast, unparse
from beamtalk_ws.syntax.diagnostics import Diagnostic

#: selectors that answer an updated copy of a List, Dictionary or Set
UPDATES = frozenset({"add:", "addFirst:", "addAll:", "at:put:", "removeKey:", "remove:", "addLast:"})

#: classes whose `new` answers an empty collection value
_COLLECTION_CLASSES = frozenset({"List", "Dictionary", "Set"})


def _is_collection(node) -> bool:
    if isinstance(node, (ast.ListLit, ast.MapLit)):
        return True
    return (isinstance(node, ast.UnarySend) and node.selector == "new" and isinstance(node.receiver, ast.GlobalRef)
            and node.receiver.name in _COLLECTION_CLASSES)


def _kind(node) -> str:
    if isinstance(node, ast.MapLit) or (isinstance(node, ast.UnarySend) and node.receiver.name == "Dictionary"):
        return "Dictionary"
    if isinstance(node, ast.UnarySend) and node.receiver.name == "Set":
        return "Set"
    return "List"


def _two_declarations(decl, out) -> None:
    """`state: a = 1 b = 2`: the default of `a` reads as `(1 b) = 2`."""
    d = decl.default
    if not (isinstance(d, ast.BinarySend) and d.operator == "=" and isinstance(d.receiver, ast.UnarySend)):
        return
    second = d.receiver.selector
    if not second[:1].islower():
        return
    out.append(Diagnostic(
        f"This declares one field, `{decl.name}`, whose default is the expression "
        f"`{unparse(d)}` (a send of `{second}`), not a second field `{second}`",
        d.span, severity="warning",
        hint=f"declare each field on a line of its own: `state: {decl.name} = ...` and then "
             f"`state: {second} = ...`"))


def warnings(items, source: str | None) -> list:
    out: list = []
    _statements(items, {}, out, source, top=True)
    for item in items:
        if isinstance(item, ast.ClassDef):
            for d in item.state + item.class_state:
                _two_declarations(d, out)
            fields = {d.name: _kind(d.default) for d in item.state
                      if d.default is not None and _is_collection(d.default)}
            for m in item.methods:
                if not m.class_side:
                    _method(m, fields, out, source)
    return out


def _method(method, fields: dict, out: list, source) -> None:
    _statements(method.body, {}, out, source, fields=fields)


def _statements(statements, known: dict, out: list, source, fields=None, top=False) -> None:
    """One sequence of statements; ``known`` maps the variables assigned a
    collection literal so far to the collection's class name."""
    known = dict(known)
    n = len(statements)
    for i, st in enumerate(statements):
        last = i == n - 1
        if isinstance(st, ast.Assignment) and isinstance(st.target, ast.Variable):
            if _is_collection(st.value):
                known[st.target.name] = _kind(st.value)
            else:
                known.pop(st.target.name, None)
        if isinstance(st, ast.KeywordSend) and st.selector in UPDATES:
            _update(st, known, fields or {}, last, out, source)
        if source is not None and i > 0:
            _glued(statements[i - 1], st, source, out)
        for block in _blocks_in(st):
            _statements(block.body, known, out, source, fields)


def _blocks_in(node):
    """The blocks of a statement that are not inside another of its blocks."""
    if isinstance(node, _DEFINITIONS):
        return  # their methods are checked with their class's fields
    stack = list(node.children()) if not isinstance(node, ast.Block) else [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Block):
            yield n
        elif not isinstance(n, _DEFINITIONS):
            stack.extend(n.children())


_DEFINITIONS = (ast.ClassDef, ast.StandaloneMethod, ast.MethodDef)


def _update(st, known: dict, fields: dict, last: bool, out: list, source) -> None:
    recv = st.receiver
    if isinstance(recv, ast.Variable) and recv.name in known and not last:
        name, kind = recv.name, known[recv.name]
    elif (isinstance(recv, ast.FieldAccess) and isinstance(recv.receiver, ast.Variable)
          and recv.receiver.name == "self" and recv.name in fields):
        name, kind = "self." + recv.name, fields[recv.name]
    else:
        return
    if source is not None and "// =>" in source[st.span.end : (source.find("\n", st.span.end) + 1 or len(source) + 1)]:
        return  # a doctest line (`xs add: 3   // => #(1, 2, 3)`) shows the answer
    out.append(Diagnostic(
        f"`{name} {st.selector} …` answers a new {kind} and leaves {name} unchanged: "
        f"collections are values",
        st.span, severity="warning",
        hint=f"keep the answer: {name} := {_shown(st, source, name)}"))


def _shown(st, source, name: str) -> str:
    """The update as written (one short line), else its selector's shape."""
    text = source[st.span.start : st.span.end] if source is not None else ""
    if text and "\n" not in text and len(text) <= 60:
        return text
    return name + " " + " ".join(f"{p}: …" for p in st.selector.split(":")[:-1])


def _glued(prev, st, source: str, out: list) -> None:
    """Two statements on one line with no `.` between them."""
    between = source[prev.span.end : st.span.start]
    if "\n" in between or "." in between or "!" in between:
        return
    if isinstance(st, ast.Block) and between == "" and not isinstance(prev, ast.Block):
        # `x[0]`, `d["a"]`: indexing syntax of other languages
        out.append(Diagnostic(
            "This is two statements: the value, then a block; Beamtalk has no [ ] indexing",
            st.span, severity="warning",
            hint="index with at: (x at: 1, indexes start at 1; d at: #key for a Dictionary)"))
    elif isinstance(prev, ast.StringLit) and between.strip() == "":
        # `"a comment" x foo`: Pharo's comment
        out.append(Diagnostic(
            "A String on its own is not a comment: double quotes make a String",
            prev.span, severity="warning",
            hint="comments start with // (to the end of the line)"))
