"""The compiled path: a `.bt` file becomes one Erlang module per class.

The module exports one function per method and per field default, and its
`-on_load` hook holds the ClassBuilder conversation with external funs
(`fun 'bt@counter':increment/2`).  External funs always run the newest
loaded code, which is what makes hot reload work: loading a changed file
re-registers the class in place and running actors pick the new methods up on
their next message (spec semantics §10).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from beamtalk_ws.syntax import ast

from . import deep
from . import forms as F
from .classes import ClassGen, ClassTable
from .codegen import ExprGen, GenError, line_of
from .context import Body, Counter
from .errors import CompileError
from .semantic import duplicate_names, with_slot_hints
from beamtalk_ws.syntax.diagnostics import Diagnostic


def snake(name: str) -> str:
    """`FooBar` → `foo_bar`: `_` before an upper-case letter that follows a lower-case one."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def module_name(class_name: str, package: str | None = None, rel_path: str | None = None) -> str:
    """Seed ADR 0026 §4 and semantics §3.6: `bt@foo_bar`, `bt@pkg@path@foo_bar`."""
    if package is None:
        return f"bt@{snake(class_name)}"
    parts = [package] + ([p for p in rel_path.split("/") if p] if rel_path else [snake(class_name)])
    return "bt@" + "@".join(parts)


@dataclass
class CompiledClass:
    name: str
    module: str
    forms: list


def _fun_name(m: ast.MethodDef) -> str:
    return ("class " if m.class_side else "") + m.selector


def _merge_standalone(cdef: ast.ClassDef, extra: list) -> ast.ClassDef:
    methods = {(m.class_side, m.selector): m for m in cdef.methods}
    for sm in extra:
        m = sm.method
        side = sm.class_side or m.class_side
        methods[(side, m.selector)] = ast.MethodDef(m.selector, m.parameters, m.body, side, m.sealed,
                                                    m.return_type, m.param_types, m.doc, m.source, span=m.span)
    return ast.ClassDef(cdef.name, cdef.superclass, cdef.modifiers, cdef.state, cdef.class_state,
                        tuple(methods.values()), cdef.doc, cdef.source, span=cdef.span)


def compile_file(module: ast.Module, source: str, filename: str, table: ClassTable | None = None,
                 module_for=module_name, stdlib: bool = False,
                 source_file: str | None = None) -> CompiledClass:
    """The module for a file holding one class (and standalone methods of it).

    `filename` is what diagnostics show; `source_file` (default: the same) is
    what the class records as its `sourceFile`, which the node's `reload`
    opens: a client that loads a path relative to its own directory passes the
    absolute path here, since the node may run elsewhere."""
    try:
        return deep.run(_compile_file, module, source, filename, module, source, filename, table, module_for,
                        stdlib, source_file)
    except CompileError as e:
        e.diagnostics = with_slot_hints(e.diagnostics, module.items, table, source)
        raise


def _compile_file(module, source, filename, table, module_for, stdlib, source_file=None) -> CompiledClass:
    classes = [i for i in module.items if isinstance(i, ast.ClassDef)]
    others = [i for i in module.items if not isinstance(i, (ast.ClassDef, ast.StandaloneMethod, ast.Expect))]
    diags = []
    if len(classes) > 1:
        names = ", ".join(c.name for c in classes)
        diags.append(Diagnostic(f"Multiple classes in one file is not supported. Found classes: {names}. "
                                f"Put each class in a file of its own.", classes[1].span))
    if not classes:
        span = module.items[0].span if module.items else ast.NO_SPAN
        diags.append(Diagnostic("A loaded file must define a class", span))
    for o in others:
        diags.append(Diagnostic("A loaded file may contain only a class definition and its methods", o.span))
    diags += duplicate_names(module.items)
    if diags:
        raise CompileError(diags, source, filename)
    cdef = classes[0]
    extra = [i for i in module.items if isinstance(i, ast.StandaloneMethod)]
    for sm in extra:
        if sm.class_name != cdef.name:
            raise CompileError([Diagnostic(f"Method for class {sm.class_name} in the file of class {cdef.name}",
                                           sm.span)], source, filename)
    cdef = _merge_standalone(cdef, extra)
    mod = module_for(cdef.name)
    try:
        forms = _class_module(cdef, mod, table, source_file or filename, stdlib)
    except GenError as e:
        raise CompileError([e.diagnostic()], source, filename) from None
    return CompiledClass(cdef.name, mod, forms)


def _class_module(cdef: ast.ClassDef, mod: str, table, source_file: str | None = None,
                  stdlib: bool = False) -> list:
    counter = Counter()
    gen = ExprGen(counter)
    cg = ClassGen(gen, table, (cdef,), primitive_module=primitive_module(cdef.name) if stdlib else None)
    line = line_of(cdef)
    functions = []
    exports = []

    def ext_fun(name, arity):
        return (F.A("fun"), line, (F.A("function"), F.atom(mod, line), F.atom(name, line), F.integer(arity, line)))

    def fun_of(c, kind, fields, m):
        fun = cg.method_fun(c.name, kind, c.superclass, fields, m, line_of(m))
        clause = fun[2][1][0]
        arity = len(clause[2])
        name = _fun_name(m)
        functions.append(F.function(name, [clause], line_of(m)))
        exports.append((F.A(name), arity))
        return ext_fun(name, arity)

    sends = cg.description_sends(cdef, fun_of, line, source_file)
    dispatch = cg.kind_for(cdef) != "actor"
    _add_module_info(sends, mod, dispatch, line)
    # Field and class-variable defaults become exported functions too.
    for sel, args in sends:
        if sel in ("fields:", "classVars:"):
            args[0] = _defaults_to_functions(args[0], sel, functions, exports, ext_fun, line, stdlib)
    if stdlib:
        return _stdlib_module(cdef, mod, sends, functions, exports, dispatch, line)
    body = Body(counter)
    superclass = (F.atom("nil", line) if cdef.superclass is None
                  else body.bind(F.call("beamtalk_class", "global", [F.atom(cdef.superclass, line)], line), line))
    cg.builder_conversation(cdef, sends, body, line, superclass)
    body.add(F.atom("ok", line))
    # A failed registration is kept for the loader to report (on_load itself
    # can only say that it failed).
    c, r, st = (F.var(n, line) for n in ("Class", "Reason", "Stack"))
    keep = F.call("persistent_term", "put", [
        F.tuple_([F.atom("beamtalk_load_error", line), F.atom(mod, line)], line),
        F.call("beamtalk_errors", "wrap", [c, r, st], line)], line)
    catch = (F.A("clause"), line, [F.tuple_([c, r, st], line)], [], [keep, F.atom("failed", line)])
    guarded = F.try_(body.exprs, [], [catch], (), line)
    functions.append(F.function("register_class", [F.clause([], [], [guarded], line)], line))
    extra = []
    if dispatch:
        functions.append(_dispatch_function(cdef, cdef.name, line))
        exports.append((F.A("$d"), 3))
        # The method bodies are copied into '$d' so a send costs no extra call.
        inline = [(F.A(_fun_name(m)), 1 + len(m.parameters)) for m in cdef.methods if not m.class_side]
        if inline:
            extra.append(F.attribute("compile", (F.A("inline"), inline), line))
        extra.append(_no_auto_import(cdef, line))
    return [
        F.attribute("module", F.A(mod), line),
        *_file_attribute(source_file, line),
        F.attribute("export", [(F.A("register_class"), 0)] + exports, line),
        *extra,
        F.attribute("on_load", (F.A("register_class"), 0), line),
        *functions,
        F.eof(line),
    ]


def _file_attribute(source_file: str | None, line: int) -> list:
    """`-file("…/counter.bt", 1).`: the module's line table then names the
    `.bt` file, so a stack frame (and any Erlang crash report) reads
    `counter.bt:4` rather than the generated module's `bt@counter.erl:4`."""
    if not source_file or source_file.startswith("<"):
        return []
    return [F.attribute("file", ([ord(c) for c in source_file], 1), line)]


def _defaults_to_functions(list_form, sel, functions, exports, ext_fun, line, stdlib=False):
    """Rewrite `[{Name, fun() -> Default end}]` into exported `'$default x'/0` functions."""
    items = []
    node = list_form
    while node[0] == F.A("cons"):
        items.append(node[2])
        node = node[3]
    out = []
    prefix = "$default " if sel == "fields:" else "$classvar "
    for tup in items:
        name_form, fun_form = tup[2]
        fname = prefix + str(name_form[2])
        clause = fun_form[2][1][0]
        functions.append(F.function(fname, [clause], line))
        exports.append((F.A(fname), 0))
        if sel == "classVars:" and not stdlib:
            # Evaluated here, in the load hook: a fun into this module called
            # from another process would wait for the hook to finish.
            out.append(F.tuple_([name_form, F.local_call(fname, [], line)], line))
        else:
            out.append(F.tuple_([name_form, ext_fun(fname, 0)], line))
    return F.list_(out, None, line)


def _add_module_info(sends, mod: str, dispatch: bool, line: int) -> None:
    """Tell the runtime which module the class comes from and whether it has `'$d'/3`."""
    for sel, args in sends:
        if sel == "info:":
            pairs = args[0][2]
            pairs.append((F.A("map_field_assoc"), line, F.atom("module", line), F.atom(mod, line)))
            pairs.append((F.A("map_field_assoc"), line, F.atom("dispatch", line),
                          F.atom("true" if dispatch else "false", line)))


def _dispatch_function(cdef: ast.ClassDef, class_name: str, line: int):
    """`'$d'(Selector, Self, Args)`: the class's own instance methods by a
    `select_val` and a local call (the fast send path, see
    erl_support/beamtalk_dispatch.erl); anything else goes to the method table,
    which holds inherited methods, synthesised accessors and
    `doesNotUnderstand:args:`.  Only instances of exactly this class come here."""
    clauses = []
    for m in cdef.methods:
        if m.class_side:
            continue
        params = [F.var(f"A{i}", line) for i in range(len(m.parameters))]
        self_ = F.var("Self", line)
        clauses.append(F.clause([F.atom(m.selector, line), self_, F.list_(params, None, line)], [],
                                [F.local_call(_fun_name(m), [self_] + params, line)], line))
    sel, self_, args = F.var("Sel", line), F.var("Self", line), F.var("Args", line)
    clauses.append(F.clause([sel, self_, args], [],
                            [F.call("beamtalk_send", "send_value",
                                    [F.atom(class_name, line), self_, sel, args], line)], line))
    return F.function("$d", clauses, line)


def primitive_module(class_name: str) -> str:
    """The runtime module holding a stdlib class's primitives: `beamtalk_prim_<snake>`."""
    return "beamtalk_prim_" + snake(class_name)


def _stdlib_module(cdef, mod, sends, functions, exports, dispatch, line) -> list:
    """A stdlib class module: no load hook; `'$class'/0` answers the class
    description, and the runtime registers every stdlib class in one batch
    when a workspace boots (erl_support/beamtalk_stdlib.erl), on top of the
    classes its bootstrap made."""
    by_sel = {sel: args[0] for sel, args in sends}
    info_pairs = {str.__str__(p[2][2]): p[3] for p in by_sel["info:"][2]}
    sealed = [F.atom(m.selector, line) for m in cdef.methods if m.sealed and not m.class_side]
    desc = F.map_([
        (F.atom("name", line), by_sel["name:"]),
        (F.atom("superclass", line), F.atom(cdef.superclass or "nil", line)),
        (F.atom("fields", line), by_sel["fields:"]),
        (F.atom("methods", line), by_sel["methods:"]),
        (F.atom("class_methods", line), by_sel["classMethods:"]),
        (F.atom("class_vars", line), by_sel["classVars:"]),
        (F.atom("modifiers", line), by_sel["modifiers:"]),
        (F.atom("sealed_methods", line), F.list_(sealed, None, line)),
        (F.atom("doc", line), info_pairs["doc"]),
        (F.atom("source_file", line), info_pairs["source_file"]),
        (F.atom("method_info", line), info_pairs["methods"]),
        (F.atom("module", line), F.atom(mod, line)),
        (F.atom("dispatch", line), F.atom("true" if dispatch else "false", line)),
        (F.atom("stdlib", line), F.atom("true", line)),
    ], line)
    functions.append(F.function("$class", [F.clause([], [], [desc], line)], line))
    extra = []
    if dispatch:
        functions.append(_dispatch_function(cdef, cdef.name, line))
        exports.append((F.A("$d"), 3))
        extra.append(_no_auto_import(cdef, line))
    return [
        F.attribute("module", F.A(mod), line),
        F.attribute("export", [(F.A("$class"), 0)] + exports, line),
        *extra,
        *functions,
        F.eof(line),
    ]


def _no_auto_import(cdef, line):
    """'$d' calls the methods locally; a method named like an auto-imported
    BIF (`size`, `length`, `abs`, `spawn` …) must win over the BIF."""
    names = [(F.A(_fun_name(m)), 1 + len(m.parameters)) for m in cdef.methods if not m.class_side]
    return F.attribute("compile", (F.A("no_auto_import"), names), line)
