"""Warnings about names in method bodies (spec syntax §9 lists them among
the compile-time warnings worth reproducing): a local assigned and never
read, and a block parameter that hides a method parameter or an outer
block's.  (`typed` classes' missing annotations are not reported: the
stdlib's own typed classes leave most of them out.)

Kept apart from `lint.py` because these need a walk that knows which
variable occurrences are reads and which scopes hold which parameters.
Only method bodies are checked: at the REPL top level a name assigned now
is read by a later input."""

from __future__ import annotations

import difflib

from beamtalk_ws.syntax import ast
from beamtalk_ws.syntax.diagnostics import Diagnostic


def method_warnings(method, out: list, fields=frozenset()) -> None:
    """``fields``: the instance fields of the method's class, so that
    `setX: v => x := v` (a field written without `self.`) says so."""
    if method.expect in ("unused", "all"):
        return
    found: list = []
    _unused_locals(method, found, fields)
    _shadowed_parameters(method, found)
    # `@expect unused` (or `all`) as a statement silences the next statement
    quiet = [(nxt.span.start, nxt.span.end) for st, nxt in zip(method.body, method.body[1:])
             if isinstance(st, ast.Expect) and st.category in ("unused", "all")]
    out += [d for d in found if not any(a <= d.span.start < b for a, b in quiet)]


def _unused_locals(method, out, fields=frozenset()) -> None:
    """`x := 1` in a method whose body never reads `x`: the value is lost
    (most often a typo in the name read later).  Names starting with `_`
    are kept on purpose and not reported."""
    targets = set()
    assigned: dict = {}
    reads = set()
    nodes = [n for st in method.body for n in st.walk()]
    for n in nodes:
        if isinstance(n, ast.Assignment) and isinstance(n.target, ast.Variable):
            targets.add(id(n.target))
            assigned.setdefault(n.target.name, n.target)
    for n in nodes:
        if isinstance(n, ast.Variable) and id(n) not in targets:
            reads.add(n.name)
    params = set(method.parameters)
    for name, target in assigned.items():
        if name in reads or name in params or name.startswith("_"):
            continue
        if name in fields and not method.class_side:
            hint = (f"`{name}` is a field of this class: a method sets it with self.{name} := ... "
                    f"(a bare `{name} :=` makes a local variable)")
        else:
            hint = f"remove the assignment or use `{name}`; a name that starts with `_` is not reported"
        out.append(Diagnostic(
            f"Variable `{name}` is assigned but never used", target.span, severity="warning", hint=hint))


def _shadowed_parameters(method, out) -> None:
    """`foo: x => [:x | x]`: inside the block `x` is the block's, and the
    method's `x` cannot be reached."""
    stack = [(st, frozenset(method.parameters)) for st in method.body]
    while stack:
        node, outer = stack.pop()
        if isinstance(node, ast.Block):
            for p in node.parameters:
                name = getattr(p, "name", p)
                if name in outer:
                    out.append(Diagnostic(
                        f"Block parameter `{name}` shadows an outer parameter of the same name",
                        node.span, severity="warning",
                        hint=f"rename the block parameter; inside the block `{name}` is the block's own"))
            outer = outer | {getattr(p, "name", p) for p in node.parameters}
        stack.extend((c, outer) for c in node.children())


def class_variable_reads(cdef, out: list) -> None:
    """`self.count` in an instance method where `count` is a `classState:`
    of the class and no slot: an instance has no such field (spec semantics
    §3.5: instances reach class variables through class-side methods), so
    the read fails when it runs."""
    cvars = {d.name for d in cdef.class_state} - {d.name for d in cdef.state}
    if not cvars:
        return
    for m in cdef.methods:
        if m.class_side:
            continue
        for st in m.body:
            for n in st.walk():
                if (isinstance(n, ast.FieldAccess) and n.name in cvars and isinstance(n.receiver, ast.Variable)
                        and n.receiver.name == "self"):
                    out.append(Diagnostic(
                        f"`{n.name}` is a class variable of {cdef.name}: an instance has no field `{n.name}`",
                        n.span, severity="warning",
                        hint=f"read it in a class-side method (class {n.name} => self.{n.name}) and ask the "
                             f"class: self class {n.name}"))


#: superclasses known to declare no class variables, so that a class-side
#: `self.x` of a subclass that does not declare `x` reads nil
_NO_CLASS_VARIABLES = frozenset({"Object", "Actor", "Value"})


def undeclared_class_variables(cdef, out: list) -> None:
    """`class foo => self.x` where `x` is no `classState:` of the class: a
    class-side method reads and writes class variables (spec semantics
    §3.5), so the read answers nil and an assignment is lost.  Certain when
    `x` is an instance `state:` of the class, or when the superclass is a
    root class (a user superclass may declare it: they are inherited)."""
    cvars = {d.name for d in cdef.class_state}
    fields = {d.name for d in cdef.state} - cvars
    root = cdef.superclass in _NO_CLASS_VARIABLES
    for m in cdef.methods:
        if not m.class_side:
            continue
        for st in m.body:
            assigned = {id(n.target) for n in st.walk() if isinstance(n, ast.Assignment)}
            for n in st.walk():
                if not (isinstance(n, ast.FieldAccess) and isinstance(n.receiver, ast.Variable)
                        and n.receiver.name == "self") or n.name in cvars:
                    continue
                effect = "loses this assignment" if id(n) in assigned else "reads it as nil"
                if n.name in fields:
                    message = (f"`{n.name}` is an instance field of {cdef.name}, not a class variable: "
                               f"a class-side method {effect}")
                elif root:
                    message = f"`{n.name}` is not a class variable of {cdef.name}: a class-side method {effect}"
                else:
                    continue
                out.append(Diagnostic(
                    message, n.span, severity="warning",
                    hint=f"declare it with classState: {n.name} = … (before the methods), or use it in an "
                         f"instance method"))


def undeclared_fields(cdef, out: list) -> None:
    """`self.totl := …` in an instance method of a class whose fields are all
    known (its superclass is a root class) and which declares no `state:
    totl`: the assignment adds a field silently, a read fails when it runs."""
    if cdef.superclass not in _NO_CLASS_VARIABLES:
        return
    fields = [d.name for d in cdef.state]
    cvars = {d.name for d in cdef.class_state}
    for m in cdef.methods:
        if m.class_side:
            continue
        for st in m.body:
            for n in st.walk():
                if not (isinstance(n, ast.FieldAccess) and isinstance(n.receiver, ast.Variable)
                        and n.receiver.name == "self") or n.name in fields or n.name in cvars:
                    continue
                near = difflib.get_close_matches(n.name, fields, 1)
                guess = f"did you mean self.{near[0]}? " if near else ""
                out.append(Diagnostic(
                    f"{cdef.name} declares no field `{n.name}`", n.span, severity="warning",
                    hint=f"{guess}Fields are declared with state: {n.name} = … (before the methods)"))
