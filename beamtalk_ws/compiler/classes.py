"""Class definitions: method functions and the ClassBuilder protocol.

Every class definition becomes a ClassBuilder conversation (seed ADR 0038,
DESIGN D7): `Super classBuilder`, then `name:`, `fields:`, `methods:`,
`classMethods:`, `classVars:`, `modifiers:`, `info:`, and `register`.  At the
REPL the methods are closures made by the input's own module (the dynamic
path); a loaded file compiles to a module whose load hook holds the same
conversation with exported method functions (the compiled path).

The kind of a class (actor / value / object) follows its superclass chain;
the compiler asks the node's class table (`ClassTable`) about superclasses it
did not define itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from beamtalk_ws.syntax import ast
from beamtalk_ws.syntax.parser import SYSTEM_NAMES

from . import forms as F
from . import runtime_abi as R
from .codegen import GenError, line_of, rt
from .context import STATE, Body, Ctx, MethodInfo
from .units import needs_nlr, nlr_wrap

BUILTIN_KINDS = {
    "ProtoObject": "object", "Object": "object", "Actor": "actor", "Value": "value",
    "Exception": "value", "Error": "value", "RuntimeError": "value", "TypeError": "value",
    "InstantiationError": "value", "BEAMError": "value", "ExitError": "value", "ThrowError": "value",
    "TestCase": "object",
}


@dataclass
class ClassInfo:
    name: str
    kind: str
    fields: tuple = ()
    superclass: str | None = None
    abstract: bool = False


@dataclass
class ClassTable:
    """What the compiler knows of classes it did not define in this unit."""

    known: dict = field(default_factory=dict)

    def kind_of(self, name: str | None) -> str:
        if name is None:
            return "object"
        info = self.known.get(name)
        if info is not None:
            return info.kind
        return BUILTIN_KINDS.get(name, "object")

    def fields_of(self, name: str | None) -> tuple:
        seen = set()
        out: list = []
        while name is not None and name not in seen:
            seen.add(name)
            info = self.known.get(name)
            if info is None:
                break
            out = list(info.fields) + out
            name = info.superclass
        return tuple(out)


def abstract_names(table: "ClassTable | None", items=()) -> set:
    """Abstract classes known to the compiler: from the node, and defined in this unit."""
    names = {n for n, info in table.known.items() if info.abstract} if table else set()
    return names | {i.name for i in items if isinstance(i, ast.ClassDef) and i.is_abstract}


CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*\Z")


def class_name_problem(name: str) -> str | None:
    """Why `name` cannot name a class (the runtime says the same of a
    ClassBuilder's name, erl_support/beamtalk_class.erl), or None."""
    if name in SYSTEM_NAMES:
        return f"{name} is a system name and cannot be used as a class name"
    if not CLASS_NAME.match(name):
        return (f"Invalid class name {name}: a class name starts with an upper-case letter (A-Z), "
                "followed by letters, digits or _")
    return None


def _keeps_its_frame(m: ast.MethodDef) -> bool:
    """A test method (unary, instance side, named test...) does not tail-call
    its last statement: BEAM keeps no frame for a tail call, and a failing
    assertion on a test's last line would otherwise be reported at the
    method's header (BUnit names `file:line` from the stack).  Only test
    methods: elsewhere a tail call is what keeps a recursive loop in constant
    space."""
    return (not m.class_side and not m.parameters and m.selector.startswith("test")
            and len(m.selector) > 4 and bool(m.body))


def method_source(m: ast.MethodDef) -> str:
    return m.source or ""


class ClassGen:
    def __init__(self, gen, table: ClassTable | None = None, items=(), primitive_module: str | None = None):
        self.gen = gen
        self.table = table or ClassTable()
        # The stdlib compiles `@primitive "sel"` bodies to calls of this module.
        self.primitive_module = primitive_module
        gen.abstract_classes |= abstract_names(self.table, items)

    # -- method functions -----------------------------------------------------------
    def method_fun(self, cls_name: str, kind: str, superclass, fields, m: ast.MethodDef, line: int):
        """A fun in the method's calling convention (runtime_abi)."""
        info = MethodInfo(cls_name, kind, m.class_side, m.selector, frozenset(fields), superclass)
        counter = self.gen.counter
        self_var = F.var(counter.fresh("Self"), line)
        env = {"self": self_var}
        params = [self_var]
        actor = info.is_actor_instance
        if actor:
            state = F.var(counter.fresh("State"), line)
            env[STATE] = state
            params.append(state)
        for p in m.parameters:
            v = F.var(counter.fresh("A"), line)
            env[p] = v
            params.append(v)
        if len(m.body) == 1 and isinstance(m.body[0], ast.Primitive):
            return self.primitive_fun(m, params, line)
        ctx = Ctx(env, method=info)
        body = Body(counter)
        setup = self.gen.cells.open_scope(m.body, body, ctx, line)
        token = None
        if needs_nlr(m.body):
            token = F.var(counter.fresh("Nlr"), line)
            ctx.nlr_token = token
        value = self.gen.statements(m.body, body, ctx)
        last = m.body[-1] if m.body else None
        if (kind == "object" and not m.class_side and isinstance(last, ast.Assignment)
                and isinstance(last.target, ast.FieldAccess)):
            value = ctx.env["self"]  # spec §3.3: a trailing field assignment answers the new self
        if not actor and _keeps_its_frame(m):
            kept = F.var(counter.fresh("Last"), line)
            body.add(F.match(kept, value, line))
            value = F.call("beamtalk_test_location", "kept", [kept], line)
        body.add(F.tuple_([value, ctx.env[STATE]], line) if actor else value)
        exprs = body.exprs
        if token is not None:
            exprs = [F.match(token, F.call("erlang", "make_ref", [], line), line),
                     nlr_wrap(exprs, token, line, actor)]
        exprs = self.gen.cells.close_scope(ctx.scope, setup, exprs, line)
        return F.fun([F.clause(params, [], exprs, line)], line)

    def primitive_fun(self, m: ast.MethodDef, params, line: int):
        """`sel => @primitive "name"`: a call of `name` (class side: `'class name'`)
        in the class's primitive module with the method's own arguments, so the
        primitive follows the same calling convention as the method.  An
        `@intrinsic` is a primitive the runtime provides under the method's
        own selector."""
        prim = m.body[0]
        if self.primitive_module is None:
            raise GenError("Primitives can only be declared in the standard library", prim)
        name = prim.name if prim.kind == "primitive" else m.selector
        if m.class_side:
            name = "class " + name
        return F.fun([F.clause(params, [], [F.call(self.primitive_module, name, params, line)], line)], line)

    def default_fun(self, decl: ast.StateDecl, line: int):
        ctx = Ctx({})
        body = Body(self.gen.counter)
        value = self.gen.gen(decl.default, body, ctx) if decl.default is not None else F.atom("nil", line)
        body.add(value)
        return F.fun([F.clause([], [], body.exprs, line)], line)

    # -- the description --------------------------------------------------------------
    def description_sends(self, cdef: ast.ClassDef, method_fun_of, line: int, source_file: str | None = None):
        """The ClassBuilder messages for a class: [(selector, [arg forms])]."""
        problem = class_name_problem(cdef.name)
        if problem:
            raise GenError(problem, cdef)
        if cdef.superclass is not None and not CLASS_NAME.match(cdef.superclass):
            # `object subclass: Foo` failed only on the node: "Class 'object' not found"
            fixed = cdef.superclass[:1].upper() + cdef.superclass[1:]
            raise GenError(f"Invalid superclass name {cdef.superclass}: a class name starts with an upper-case "
                           f"letter (A-Z)", cdef, hint=f"did you mean {fixed}?" if CLASS_NAME.match(fixed) else None)
        kind = self.kind_for(cdef)
        own_fields = tuple(s.name for s in cdef.state)
        all_fields = self.table.fields_of(cdef.superclass) + own_fields
        seen = set()
        for m in cdef.methods:
            key = (m.class_side, m.selector)
            if key in seen:
                raise GenError(f"Duplicate method `{m.selector}` in class {cdef.name}", m)
            seen.add(key)
            if not m.body:
                raise GenError(f"Method `{m.selector}` has an empty body", m)
        inst = [(F.atom(m.selector, line), F.tuple_([F.atom("a" if kind == "actor" else "v", line),
                                                    method_fun_of(cdef, kind, all_fields, m)], line))
                for m in cdef.methods if not m.class_side]
        klass = [(F.atom(m.selector, line), method_fun_of(cdef, kind, all_fields, m))
                 for m in cdef.methods if m.class_side]
        fields = [F.tuple_([F.atom(s.name, line), self.default_fun(s, line)], line) for s in cdef.state]
        cvars = [F.tuple_([F.atom(s.name, line), self.default_fun(s, line)], line) for s in cdef.class_state]
        info = []
        for m in cdef.methods:
            info.append((F.tuple_([F.atom(m.selector, line), F.atom("true" if m.class_side else "false", line)], line),
                         F.map_([(F.atom("source", line), F.binary_string(method_source(m), line)),
                                 (F.atom("doc", line), doc_form(m.doc, line)),
                                 # where a frame of the dispatch function '$d' is
                                 # (erl_support/beamtalk_prim_stack_frame.erl)
                                 (F.atom("line", line), F.integer(line_of(m), line)),
                                 (F.atom("sealed", line), F.atom("true" if m.sealed else "false", line))], line)))
        return [
            ("name:", [F.atom(cdef.name, line)]),
            ("fields:", [F.list_(fields, None, line)]),
            ("methods:", [F.map_(inst, line)]),
            ("classMethods:", [F.map_(klass, line)]),
            ("classVars:", [F.list_(cvars, None, line)]),
            ("modifiers:", [F.list_([F.atom(x, line) for x in cdef.modifiers], None, line)]),
            ("info:", [F.map_([(F.atom("doc", line), doc_form(cdef.doc, line)),
                               (F.atom("source", line), F.binary_string(cdef.source or "", line)),
                               (F.atom("source_file", line), F.binary_string(source_file or "", line)),
                               (F.atom("methods", line), F.map_(info, line))], line)]),
        ]

    def kind_for(self, cdef: ast.ClassDef) -> str:
        if self.primitive_module is not None and cdef.name in self.table.known:
            # The stdlib knows every class's kind, roots included: `Actor`'s
            # own methods run in the actor's process (actor style), like its
            # subclasses' methods, although its superclass is Object.
            return self.table.kind_of(cdef.name)
        if cdef.superclass is None:
            return "object"
        return self.table.kind_of(cdef.superclass)

    def builder_conversation(self, cdef, sends, body: Body, line: int, superclass_form):
        b = body.bind(rt(R.SEND, [superclass_form, F.atom("classBuilder", line), F.nil(line)], line), line, "Cb")
        for sel, args in sends:
            body.bind(rt(R.SEND, [b, F.atom(sel, line), F.list_(args, None, line)], line), line)
        return body.bind(rt(R.SEND, [b, F.atom("register", line), F.nil(line)], line), line)

    # -- dynamic path (REPL) ---------------------------------------------------------------
    def define_dynamic(self, cdef: ast.ClassDef, body: Body, ctx: Ctx, source: str):
        line = line_of(cdef)
        self.gen.makes_funs = True

        def fun_of(c, kind, fields, m):
            return self.method_fun(c.name, kind, c.superclass, fields, m, line_of(m))

        sends = self.description_sends(cdef, fun_of, line)
        superclass = (F.atom("nil", line) if cdef.superclass is None
                      else body.bind(rt(R.GLOBAL, [F.atom(cdef.superclass, line)], line), line))
        return self.builder_conversation(cdef, sends, body, line, superclass)

    def add_method_dynamic(self, sm: ast.StandaloneMethod, body: Body, ctx: Ctx, source: str):
        """`Counter >> sel => body`: add or replace one method of a live class."""
        line = line_of(sm)
        self.gen.makes_funs = True
        info = self.table.known.get(sm.class_name)
        kind = info.kind if info else self.table.kind_of(sm.class_name)
        fields = self.table.fields_of(sm.class_name)
        m = sm.method
        if not m.body:
            raise GenError(f"Method `{m.selector}` has an empty body", m)
        class_side = sm.class_side or m.class_side
        m_side = ast.MethodDef(m.selector, m.parameters, m.body, class_side, m.sealed, m.return_type,
                               m.param_types, m.doc, m.source, span=m.span)
        fun = self.method_fun(sm.class_name, kind, info.superclass if info else None, fields, m_side, line)
        conv = "a" if kind == "actor" and not class_side else "v"
        # the class by name: add_method/4 takes a name too, and says "Class
        # not found: X. Define the class first ..." (spec repl.md 5.1) for none
        cls = F.atom(sm.class_name, line)
        meta = F.map_([(F.atom("source", line), F.binary_string(m.source or "", line)),
                       (F.atom("doc", line), doc_form(m.doc, line)),
                       (F.atom("class_side", line), F.atom("true" if class_side else "false", line))], line)
        body.bind(rt(R.ADD_METHOD, [cls, F.atom(m.selector, line),
                                    F.tuple_([F.atom(conv, line), fun], line), meta], line), line)
        return F.binary_string(f"{sm.class_name}{' class' if sm.class_side else ''}>>{m.selector}", line)


def doc_form(doc, line):
    return F.binary_string(doc, line) if doc else F.atom("nil", line)
