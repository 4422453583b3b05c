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
    _instance_fields_on_class_side(cdef, out)
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


def _instance_fields_on_class_side(cdef, out: list) -> None:
    """`class make => self.x` where `x` is a `state:` field and no class
    variable: on the class side `self` is the class, which has no such
    field, so the read answers nil (probe-teach: it was silent)."""
    fields = {d.name for d in cdef.state} - {d.name for d in cdef.class_state}
    if not fields:
        return
    for m in cdef.methods:
        if not m.class_side:
            continue
        for st in m.body:
            for n in st.walk():
                if (isinstance(n, ast.FieldAccess) and n.name in fields and isinstance(n.receiver, ast.Variable)
                        and n.receiver.name == "self"):
                    out.append(Diagnostic(
                        f"`{n.name}` is a field of each {cdef.name} instance: in a class-side method self is "
                        f"the class, which has no `{n.name}`",
                        n.span, severity="warning",
                        hint=f"make an instance and ask it (self new {n.name}), or declare a class variable "
                             f"with classState: {n.name} = ..."))
