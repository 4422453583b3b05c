"""Scope and semantic checks on REPL input, before any code is generated.

Why a pass of its own: every error it finds is reported together, with the
span of the offending name, and nothing reaches the node when one is found.
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast, teaching_foreign
from beamtalk_ws.syntax.diagnostics import Diagnostic

PREDEFINED = frozenset({"true", "false", "nil"})


class ScopeCheck:
    """Undefined variables, `self`/`super` outside methods (REPL top level)."""

    def __init__(self, bound: frozenset[str]):
        self.defined = set(bound) | PREDEFINED
        self.diagnostics: list[Diagnostic] = []
        #: names being assigned a block whose body is being visited
        #: (``fib := [...]``)
        self.assigning: list[str] = []

    def run(self, statements) -> list[Diagnostic]:
        self.diagnostics.extend(duplicate_names(statements))
        for s in statements:
            self.visit(s)
        return self.diagnostics

    def error(self, message: str, node, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(message, node.span, "error", hint))

    def visit(self, node) -> None:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            for child in node.children():
                self.visit(child)

    def in_scope(self, names, statements) -> None:
        """Visit a method or default expression in a scope of its own."""
        outer = self.defined
        self.defined = set(names) | PREDEFINED
        for st in statements:
            self.visit(st)
        self.defined = outer

    def visit_ClassDef(self, node) -> None:
        for decl in node.state + node.class_state:
            if decl.default is not None:
                self.in_scope((), [decl.default])
        for m in node.methods:
            self.in_scope({"self", *m.parameters}, m.body)

    def visit_StandaloneMethod(self, node) -> None:
        self.in_scope({"self", *node.method.parameters}, node.method.body)

    def visit_Variable(self, node) -> None:
        if node.name == "self" and "self" not in self.defined:
            self.error("self can only be used inside a method body", node,
                       "at the top level there is no receiver: self is the object a method runs in")
        elif node.name not in self.defined:
            name = node.name
            hint = None
            if name in self.assigning:
                # ``fib := [:k | ... fib value: k - 1]``: the block is made
                # before the name exists (spec semantics §4.5)
                hint = (f"`{name}` is being assigned this block: a block cannot call itself "
                        f"through the variable it is assigned to; write the recursion as a method, "
                        f"or pass the block to itself ({name} := [:f :k | ... f value: f value: k - 1], "
                        f"called as {name} value: {name} value: 10)")
            self.error(f"Undefined variable: {name}", node, hint)

    def visit_Super(self, node) -> None:
        if "self" not in self.defined:
            self.error("super can only be used inside a method body", node)

    def visit_Assignment(self, node) -> None:
        target = node.target
        block = isinstance(target, ast.Variable) and isinstance(node.value, ast.Block)
        if block:
            self.assigning.append(target.name)
        self.visit(node.value)
        if block:
            self.assigning.pop()
        if isinstance(target, ast.Variable):
            if target.name in ("self", "true", "false", "nil"):
                self.error(f"Cannot assign to {target.name}", target)
            self.defined.add(target.name)
        else:
            self.visit(target)

    def visit_Match(self, node) -> None:
        self.visit(node.subject)
        outer = set(self.defined)
        for arm in node.arms:
            self.defined = set(outer) | {p.name for p in arm.pattern.walk() if isinstance(p, ast.VariablePattern)}
            if arm.guard is not None:
                self.visit(arm.guard)
            self.visit(arm.body)
        self.defined = outer

    def visit_KeywordSend(self, node) -> None:
        cond = node.receiver
        body = node.arguments[0] if node.arguments else None
        if (node.selector in ("whileTrue:", "whileFalse:") and isinstance(cond, ast.Block)
                and isinstance(body, ast.Block) and not cond.parameters and not body.parameters):
            # `[(line := s next) notNil] whileTrue: [... line ...]`: the inlined
            # condition runs before every run of the body, so a name it assigns
            # is bound in the body (the loop's own scope, as the code runs it);
            # after the loop it is gone, like any name first assigned in a block
            outer = set(self.defined)
            for s in cond.body:
                self.visit(s)
            self.visit(body)
            self.defined = outer
            return
        for child in node.children():
            self.visit(child)

    def visit_Block(self, node) -> None:
        outer = set(self.defined)
        self.defined |= set(node.parameters)
        for s in node.body:
            self.visit(s)
        # Names first assigned inside a block are local to it.
        self.defined = outer | (self.defined & outer)


def duplicate_names(items) -> list[Diagnostic]:
    """A name declared twice in one scope: two `state:` (or `classState:`)
    of a class, two parameters of a method or block.  The later one silently
    won (`foo: a bar: a => a` answered its second argument), so each is an
    error, for REPL input and loaded files alike."""
    out = []

    def once(names, node, message, hint):
        seen = set()
        for name in names:
            if name in seen:
                out.append(Diagnostic(message(name), node.span, "error", hint(name)))
            seen.add(name)

    def params(m):
        once(m.parameters, m, lambda n: f"Duplicate parameter `{n}` in method `{m.selector}`",
             lambda n: "give each parameter its own name")

    for item in items:
        for node in item.walk():
            if isinstance(node, ast.ClassDef):
                for word, decls in (("state", node.state), ("classState", node.class_state)):
                    seen = set()
                    for decl in decls:
                        if decl.name in seen:
                            out.append(Diagnostic(f"Duplicate {word} `{decl.name}` in class {node.name}",
                                                  decl.span, "error",
                                                  f"declare `{decl.name}` once, with the default it should have"))
                        seen.add(decl.name)
                for m in node.methods:
                    params(m)
            elif isinstance(node, ast.StandaloneMethod):
                params(node.method)
            elif isinstance(node, ast.Block):
                once([getattr(p, "name", p) for p in node.parameters], node,
                     lambda n: f"Duplicate parameter `{n}` in block", lambda n: "give each parameter its own name")
    return out


def with_slot_hints(diagnostics, items, table=None, source=None) -> list:
    """`norm => x * x` in a class with `state: x`: a slot is read through
    `self.x` (spec syntax §5.5), never by its bare name, so "Undefined
    variable: x" inside a method of that class says so.  Applied to the
    diagnostics of a REPL input and of a loaded file alike."""
    methods = []  # (method, class name, instance slots, class variables)
    for item in items:
        if isinstance(item, ast.ClassDef):
            inherited = table.fields_of(item.superclass) if table is not None else ()
            slots = {*inherited, *(d.name for d in item.state)}
            cvars = {d.name for d in item.class_state}
            methods += [(m, item.name, slots, cvars) for m in item.methods]
        elif isinstance(item, ast.StandaloneMethod):
            slots = set(table.fields_of(item.class_name)) if table is not None else set()
            methods.append((item.method, item.class_name, slots, set()))
    out = []
    for d in diagnostics:
        if d.hint is None and d.message.startswith("Undefined variable: "):
            name = d.message[len("Undefined variable: "):]
            for m, cls, slots, cvars in methods:
                if m.span.start <= d.span.start < m.span.end:
                    d = Diagnostic(d.message, d.span, d.severity, _slot_hint(name, cls, m.class_side, slots, cvars))
                    break
            if d.hint is None:
                # `print(x)`, `return x`, `null`: a word of another language
                d = Diagnostic(d.message, d.span, d.severity,
                               teaching_foreign.undefined_name(name, source, d.span.end))
            if d.hint is None and _after_class_on_its_line(d.span.start, items, source):
                d = Diagnostic(d.message, d.span, d.severity,
                               "this is outside the class: a second statement on a method's line ends the "
                               "method and the class (spec syntax §7.4); separate statements with `.`")
        out.append(d)
    return out


def _after_class_on_its_line(offset: int, items, source) -> bool:
    """Is ``offset`` in a top-level statement that starts on the line a
    class definition ends on (``greet: n => print("hi " + n)``)?"""
    if source is None:
        return False
    for prev, item in zip(items, items[1:]):
        if isinstance(prev, ast.ClassDef) and item.span.start <= offset < item.span.end:
            return "\n" not in source[prev.span.end : item.span.start]
    return False


def _slot_hint(name, cls, class_side, slots, cvars):
    if class_side and name in cvars:
        return f"`{name}` is a class variable of {cls}: a class-side method reads it as self.{name}"
    if not class_side and name in slots:
        return f"`{name}` is a slot of {cls}: a method reads it as self.{name} (and sets it with self.{name} := ...)"
    if name in cvars:
        return (f"`{name}` is a class variable of {cls}: read it in a class-side method "
                f"(class {name} => self.{name}) and ask the class: self class {name}")
    if name in slots:
        return f"`{name}` is a slot of each {cls} instance; a class-side method has no instance to read it from"
    return None
