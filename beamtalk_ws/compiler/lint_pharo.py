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

from beamtalk_ws.syntax import ast, unparse
from beamtalk_ws.syntax.ast import Span
from beamtalk_ws.syntax.diagnostics import Diagnostic

#: superclasses whose instances are made with `new` (no table needed)
_NEW_MADE = frozenset({"Object", "Value", "TestCase", "Exception", "Error", "RuntimeError", "TypeError"})
#: comparisons that are false between a one-letter String and an Integer
_EQUALITIES = frozenset({"=", "==", "=:=", "/=", "=/=", "~="})


def warnings(items, out: list, table=None) -> None:
    values = _value_classes(items, table)
    top = [i for i in items if not isinstance(i, (ast.ClassDef, ast.StandaloneMethod))]
    for item in items:
        if isinstance(item, ast.ClassDef):
            _initialize_not_sent(item, out, table)
            _super_initialize(item, out)
            for m in item.methods:
                maker = item.name if m.class_side and item.name in values else None
                _dropped_setters(m.body, values, out)
                for node in m.walk():
                    if isinstance(node, ast.Cascade):
                        _cascade_to_new_value(node, values, maker, out)
        elif isinstance(item, ast.StandaloneMethod):
            _dropped_setters(item.method.body, values, out)
        code_points = None
        for node in item.walk():
            if isinstance(node, ast.BinarySend) and node.operator in _EQUALITIES:
                if code_points is None and _has_char(node):
                    # a top-level statement sees the names the others assign
                    code_points = _code_point_names(
                        [item] if isinstance(item, (ast.ClassDef, ast.StandaloneMethod)) else top)
                _character_comparison(node, out, code_points or frozenset())
            elif isinstance(node, ast.Cascade) and not isinstance(item, ast.ClassDef):
                _cascade_to_new_value(node, values, None, out)
    _dropped_setters(top, values, out)


def _value_classes(items, table) -> dict:
    """Class name -> field names, for the classes whose instances are values
    (made with `new`): those of this input and those the table knows."""
    out: dict = {}
    if table is not None:
        for name, info in table.known.items():
            if info.kind != "actor":
                out[name] = set(table.fields_of(name))
    changed = True
    while changed:
        changed = False
        for item in items:
            if isinstance(item, ast.ClassDef) and item.name not in out and (
                    item.superclass in _NEW_MADE or item.superclass in out):
                out[item.name] = {d.name for d in item.state} | out.get(item.superclass, set())
                changed = True
    return out


def _setter_of(selector: str, fields) -> str | None:
    """The field a one-keyword selector sets (`name:`, `setName:`), or None."""
    if selector.count(":") != 1 or not selector.endswith(":"):
        return None
    word = selector[:-1]
    if word in fields:
        return word
    if word.startswith("set") and word[3:4].isupper() and word[3:4].lower() + word[4:] in fields:
        return word[3:4].lower() + word[4:]
    return None


def _made_value(node, values, maker) -> str | None:
    """The class of a receiver that is plainly a new value instance:
    `Point new`, `Point new: #{...}`, `self new` in a class-side method."""
    if not isinstance(node, (ast.UnarySend, ast.KeywordSend)) or node.selector not in ("new", "new:"):
        return None
    r = node.receiver
    if isinstance(r, ast.GlobalRef) and r.name in values:
        return r.name
    if maker is not None and (isinstance(r, ast.Super) or (isinstance(r, ast.Variable) and r.name == "self")):
        return maker
    return None


def _cascade_to_new_value(node, values, maker, out) -> None:
    """`Point new x: 1; y: 2; yourself`: Pharo's building cascade.  Each
    message goes to the same new instance, a value here (spec semantics
    §3.3), so the changed copies are dropped and `yourself` answers the
    unchanged one."""
    cls = _made_value(node.receiver, values, maker)
    if cls is None or node.messages[-1].selector != "yourself":
        return
    sets = [m for m in node.messages[:-1] if m.arguments]
    if not sets:
        return
    chain = unparse(node.receiver)
    for m in sets:
        parts = m.selector.split(":")[:-1]
        chain = "(" + chain + " " + " ".join(f"{p}: {unparse(a)}" for p, a in zip(parts, m.arguments)) + ")"
    out.append(Diagnostic(
        f"every message of this cascade goes to the same new {cls}, and an instance of {cls} is a value: "
        f"`{sets[0].selector}` answers a changed copy, which the cascade drops, and yourself answers "
        f"the unchanged {cls}",
        node.receiver.span, severity="warning",
        hint=f"chain the sends instead: `{chain[1:-1]}` (a method that ends with its assignment "
             f"answers the changed object); for state that changes in place, make {cls} an Actor"))


def _dropped_setters(statements, values, out) -> None:
    """`p := Point new. p setX: 5. p x`: the setter answers a changed copy
    and `p` keeps the old value."""
    known: dict = {}
    for i, st in enumerate(statements):
        if isinstance(st, ast.Assignment) and isinstance(st.target, ast.Variable):
            cls = _made_value(st.value, values, None)
            if cls is None and isinstance(st.value, ast.KeywordSend) and isinstance(st.value.receiver, ast.GlobalRef):
                cls = st.value.receiver.name if st.value.receiver.name in values else None
            if cls is not None:
                known[st.target.name] = cls
            else:
                known.pop(st.target.name, None)
            continue
        if (i < len(statements) - 1 and isinstance(st, ast.KeywordSend) and isinstance(st.receiver, ast.Variable)
                and st.receiver.name in known):
            name, cls = st.receiver.name, known[st.receiver.name]
            field = _setter_of(st.selector, values[cls])
            if field is None:
                continue
            out.append(Diagnostic(
                f"`{name} {st.selector} …` answers a changed copy and leaves {name} unchanged: "
                f"an instance of {cls} is a value",
                st.span, severity="warning",
                hint=f"keep the answer: `{name} := {unparse(st)}`; for state that changes in place, "
                     f"make {cls} an Actor"))


def _super_initialize(cdef, out) -> None:
    """Pharo's `super initialize` first line: Object, Actor and Value
    define no initialize, so the send fails with does-not-understand."""
    if cdef.superclass not in ("Object", "Actor", "Value"):
        return
    for m in cdef.methods:
        if m.class_side or m.selector != "initialize":
            continue
        for st in m.body:
            for n in st.walk():
                if isinstance(n, ast.UnarySend) and n.selector == "initialize" and isinstance(n.receiver, ast.Super):
                    out.append(Diagnostic(
                        f"{cdef.superclass} defines no initialize, so `super initialize` fails "
                        f"(does not understand)",
                        n.span, severity="warning",
                        hint="remove the line: there is no inherited initialize to run"))


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


def _has_char(node) -> bool:
    return isinstance(node.receiver, ast.CharLit) or isinstance(node.argument, ast.CharLit)


def _root(node):
    while isinstance(node, (ast.UnarySend, ast.BinarySend, ast.KeywordSend)):
        node = node.receiver
    return node


def _chain_has_charlist(node) -> bool:
    """`s asCharlist`, `(s asCharlist) reverse`, `s trim asCharlist`: the
    String's code points, Integers that a character literal matches."""
    while isinstance(node, (ast.UnarySend, ast.BinarySend, ast.KeywordSend)):
        if isinstance(node, ast.UnarySend) and node.selector == "asCharlist":
            return True
        node = node.receiver
    return False


def _code_point_names(items) -> frozenset:
    """Names that hold code points (or collections of them) somewhere in the
    items (a class, or all top-level statements of an input): assigned one (`c := s asCharlist first`, `c := $a + 1`), or a block
    parameter over a List of them (`s asCharlist do: [:c | ...]`,
    `$a to: $z do: [:c | ...]`, `#($a, $e) includes:`...).  A name-level
    guess is enough: the warning is for a letter of a String, and a name
    that also holds code points is not plainly one."""
    points: set = set()
    lists: set = set()
    others: set = set()  # also assigned something else (`c := s at: i`): maybe a letter

    def is_list(node) -> bool:
        if isinstance(node, (ast.ListLit, ast.ArrayLit)):
            return bool(node.elements) and all(
                isinstance(e, (ast.CharLit, ast.IntegerLit)) for e in node.elements)
        if isinstance(node, ast.Variable):
            return node.name in lists
        root = _root(node)  # `cs reverse`, `$a to: $z`
        return _chain_has_charlist(node) or isinstance(root, ast.CharLit) \
            or isinstance(root, ast.Variable) and root.name in lists

    def is_point(node) -> bool:
        if isinstance(node, ast.Variable):
            return node.name in points
        if _code_point(node) or _from_a_code_point(node):
            return True
        # one element of a List of code points: `(s asCharlist) at: 1`, `cs first`
        return isinstance(node, (ast.UnarySend, ast.KeywordSend)) and is_list(node.receiver)

    nodes = [n for item in items for n in item.walk()]
    for _ in range(2):  # a name assigned from another one, in either order
        for node in nodes:
            if isinstance(node, ast.Assignment) and isinstance(node.target, ast.Variable):
                if is_point(node.value):
                    points.add(node.target.name)
                elif is_list(node.value):
                    lists.add(node.target.name)
                else:
                    others.add(node.target.name)
            elif isinstance(node, ast.KeywordSend) and (is_list(node.receiver) or is_point(node.receiver)):
                for arg in node.arguments:
                    if isinstance(arg, ast.Block):
                        points.update(getattr(p, "name", p) for p in arg.parameters)
    return frozenset((points | lists) - others)


def _from_a_code_point(node) -> bool:
    """`$é uppercase`, `$a + 1`: sends whose first receiver is a character
    or number literal answer a code point too."""
    while isinstance(node, (ast.UnarySend, ast.BinarySend, ast.KeywordSend)):
        node = node.receiver
    return isinstance(node, (ast.CharLit, ast.IntegerLit))


def _character_comparison(node, out: list, code_points=frozenset()) -> None:
    left, right = node.receiver, node.argument
    if isinstance(right, ast.CharLit):
        char, other = right, left
    elif isinstance(left, ast.CharLit):
        char, other = left, right
    else:
        return
    if isinstance(other, (ast.CharLit, ast.IntegerLit, ast.FloatLit)) or _code_point(other) \
            or _from_a_code_point(other):
        return
    root = _root(other)
    if isinstance(root, ast.Variable) and root.name in code_points \
            or _chain_has_charlist(other):
        return
    v = char.value
    lit = "$" + {10: "\\n", 9: "\\t", 13: "\\r"}.get(v, chr(v))
    spelled = f'"{chr(v)}"' if v > 32 and chr(v) != '"' else "of that one character"
    out.append(Diagnostic(
        f"{lit} is the Integer {v} (a character literal is its code point); "
        f"a String's letters are one-letter Strings, so comparing one with it is always false",
        char.span, severity="warning",
        hint=f"compare a letter of a String with the String {spelled}"))
