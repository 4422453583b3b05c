"""Compilation units: the Erlang module a REPL input becomes.

A REPL input is module `'$bt_eval'` (renamed by the node) exporting
`eval(Bindings0) -> {Value, Bindings1}`, where Bindings1 holds every session
name the input assigned.  Class definitions and standalone methods inside an
input are compiled by `classes.py` into expressions of the same function (the
dynamic ClassBuilder path, DESIGN D7).
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast

from . import forms as F
from . import runtime_abi as R
from .codegen import ExprGen, GenError
from .context import Body, Counter, Ctx, ReplInfo
from .errors import CompileError


def needs_nlr(statements) -> bool:
    """True when a `^` occurs anywhere but as a top-level statement: it must
    unwind through a throw to the enclosing method (or REPL input)."""
    for stmt in statements:
        inner = stmt.value if isinstance(stmt, ast.Return) else stmt
        for node in inner.walk():
            if isinstance(node, ast.Return):
                return True
    return False


def nlr_wrap(body_exprs, token, line, actor=False):
    """`try Body catch throw:{'$bt_nlr', Token, V} -> V end` (actors: {V, State})."""
    v = F.var("NlrValue", line)
    pattern = [F.atom(R.NLR_TAG, line), token, v]
    result = v
    if actor:
        s = F.var("NlrState", line)
        pattern.append(s)
        result = F.tuple_([v, s], line)
    catch = F.catch_clause("throw", F.tuple_(pattern, line), [result], line)
    return F.try_(body_exprs, [], [catch], (), line)


def binding_value(name, ctx, line):
    """The value a session binding leaves the input with (read from its cell
    when closures of the input assign it)."""
    if name in ctx.env:
        return ctx.env[name]
    return F.call("erlang", "get", [ctx.boxed[name]], line)


def compile_repl_statements(items, bound: frozenset[str], source: str = "", filename: str = "<input>",
                            table=None):
    """Forms for a REPL input; answers (forms, makes_funs)."""
    counter = Counter()
    gen = ExprGen(counter)
    repl = ReplInfo("Bindings0", frozenset(bound))
    ctx = Ctx({}, repl=repl)
    body = Body(counter)
    line = 1
    statements = [i for i in items if not isinstance(i, (ast.ClassDef, ast.StandaloneMethod))]
    if needs_nlr(statements):
        token = F.var("NlrToken", line)
        body.add(F.match(token, F.call("erlang", "make_ref", [], line), line))
        ctx.nlr_token = token
    result = F.atom("nil", line)
    setup = gen.cells.open_scope(statements, body, ctx, line, bound=frozenset(bound))
    try:
        from .classes import ClassGen
        classes = ClassGen(gen, table, items)
        for item in items:
            if isinstance(item, ast.ClassDef):
                result = classes.define_dynamic(item, body, ctx, source)
            elif isinstance(item, ast.StandaloneMethod):
                result = classes.add_method_dynamic(item, body, ctx, source)
            elif isinstance(item, ast.Expect):
                continue
            else:
                result = gen.gen(item, body, ctx)
                if isinstance(item, ast.Return):
                    break
    except GenError as e:
        raise CompileError([e.diagnostic()], source, filename) from None
    # A name assigned only inside a branch of an inlined conditional is not
    # defined after it (as in a method): it does not become a binding.
    saved = [n for n in repl.assigned if n in ctx.env or n in ctx.boxed]
    if saved:
        new_bindings = F.map_update(F.var("Bindings0", line),
                                    [(F.atom(n, line), binding_value(n, ctx, line)) for n in saved], line)
    else:
        new_bindings = F.var("Bindings0", line)
    body.add(F.tuple_([result, new_bindings], line))
    exprs = body.exprs
    if ctx.nlr_token is not None:
        # A non-local `^` at top level answers its value; bindings stay as they were.
        token_match, rest = exprs[0], exprs[1:]
        v = F.var("NlrValue", line)
        catch = F.catch_clause("throw", F.tuple_([F.atom(R.NLR_TAG, line), ctx.nlr_token, v], line),
                               [F.tuple_([v, F.var("Bindings0", line)], line)], line)
        exprs = [token_match, F.try_(rest, [], [catch], (), line)]
    exprs = gen.cells.close_scope(ctx.scope, setup, exprs, line)
    clause = F.clause([F.var("Bindings0", line)], [], exprs, line)
    forms = [
        F.attribute("module", F.A("$bt_eval")),
        F.attribute("export", [(F.A("eval"), 1)]),
        F.function("eval", [clause]),
        F.eof(),
    ]
    return forms, gen.makes_funs
