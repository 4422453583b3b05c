"""Fuzzing the compiler (not only the parser) with generated programs.

Whatever the parser accepts, the compiler answers forms or a located
CompileError: never a Python exception of its own (RecursionError, KeyError,
...).  The programs mix what the code generator treats specially: blocks
that assign outer variables and fields, given to inlined control messages,
to other sends, to an actor's messages to itself and to cascades; `^` in
blocks; long chains and nesting.  The budget is fixed and small enough for
CI (BEAMTALK_COMPILER_EXAMPLES raises it for a soak run).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings, strategies as st

from beamtalk_ws.compiler import CompileError, compile_input
from beamtalk_ws.compiler.modules import compile_file
from beamtalk_ws.syntax import SyntaxErrors, parse

EXAMPLES = int(os.environ.get("BEAMTALK_COMPILER_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))

VARS = ("a", "b", "c")
FIELDS = ("n", "m")
UNARY = ("abs", "negated", "isNil", "printString", "size", "value", "yourself", "class", "foo")
BINARY = ("+", "-", "*", "<", "=", "==", ",", "->", ">>", "++")
KEYWORD = ("max:", "value:", "collect:", "do:", "inject:into:", "ifTrue:", "ifFalse:",
           "ifTrue:ifFalse:", "whileTrue:", "timesRepeat:", "to:do:", "on:do:", "ensure:",
           "ifCurtailed:", "detect:ifNone:", "at:put:", "feed:with:", "twice:and:")


def atoms(in_method):
    base = [st.integers(-5, 99).map(str), st.sampled_from(VARS), st.just("nil"), st.just('"s"'),
            st.just("#sym"), st.just("Error"), st.just("#(1, 2, 3)")]
    if in_method:
        base += [st.just("self"), st.sampled_from(FIELDS).map(lambda f: "self." + f)]
    return st.one_of(base)


def exprs(in_method):
    def extend(inner):
        block = st.builds(lambda ps, body: "[" + "".join(f":{p} " for p in ps) + ("| " if ps else "") + body + "]",
                          st.lists(st.sampled_from(("x", "y")), max_size=2, unique=True), statements(inner))
        operand = st.one_of(inner.map(lambda e: f"({e})"), atoms(in_method), block)
        unary = st.builds(lambda r, ss: r + "".join(" " + s for s in ss), operand,
                          st.lists(st.sampled_from(UNARY), min_size=1, max_size=3))
        binary = st.builds(lambda l, op, r: f"{l} {op} {r}", operand, st.sampled_from(BINARY), operand)
        keyword = st.builds(lambda r, sel, args: r + "".join(f" {k}: {a}" for k, a in zip(sel.split(":")[:-1], args)),
                            operand, st.sampled_from(KEYWORD), st.lists(operand, min_size=3, max_size=3))
        cascade = st.builds(lambda k, more: k + "".join(f"; {m}" for m in more), keyword,
                            st.lists(st.sampled_from(("yourself", "value: 1", "feed: [:x | a := x] with: 2")),
                                     min_size=1, max_size=2))
        targets = st.sampled_from(VARS + tuple("self." + f for f in FIELDS)) if in_method else st.sampled_from(VARS)
        assign = st.builds(lambda t, e: f"{t} := {e}", targets, inner)
        return st.one_of(unary, binary, keyword, cascade, assign, block)

    return st.recursive(atoms(in_method), extend, max_leaves=12)


def statements(expr):
    """One to three statements; the last may be a `^` (a non-local return in a block)."""
    return st.builds(lambda ss, ret: ". ".join(ss[:-1] + [("^" if ret else "") + ss[-1]]),
                     st.lists(expr, min_size=1, max_size=3), st.booleans())


def prelude():
    return ". ".join(f"{v} := {i}" for i, v in enumerate(VARS)) + ". "


def compiles_or_reports(compile_):
    try:
        compile_()
    except CompileError as e:
        assert e.diagnostics and all(d.span is not None for d in e.diagnostics)
        assert "Traceback" not in e.render()


@SETTINGS
@given(statements(exprs(False)))
def test_repl_inputs_compile_or_report(body):
    source = prelude() + body
    try:
        parse(source)
    except SyntaxErrors:
        return
    compiles_or_reports(lambda: compile_input(source))


@SETTINGS
@given(st.sampled_from(("Actor", "Object", "Value")), st.lists(statements(exprs(True)), min_size=1, max_size=3))
def test_class_methods_compile_or_report(kind, bodies):
    methods = "".join(f"  m{i} => {prelude()}{b}\n" for i, b in enumerate(bodies))
    source = (f"{kind} subclass: Fuzz\n  state: n = 0\n  state: m = 1\n"
              f"  feed: blk with: x => blk value: x\n  twice: p and: q => p value: 1. q value: 2\n{methods}")
    try:
        module = parse(source, "Fuzz.bt")
    except SyntaxErrors:
        return
    compiles_or_reports(lambda: compile_file(module, source, "Fuzz.bt"))


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(("unary", "binary", "keyword", "cascade", "parens", "block")),
                          st.integers(1, 400)), min_size=1, max_size=4))
def test_deep_shapes_compile_or_report(shapes):
    """Long chains and nesting, in any combination, up to and past the limit."""
    e = "a"
    for shape, n in shapes:
        if shape == "unary":
            e = f"({e})" + " abs" * n
        elif shape == "binary":
            e = f"({e})" + " + 1" * n
        elif shape == "keyword":
            e = f"({e})" + "".join(f" max: {i}" for i in range(min(n, 1)))
        elif shape == "cascade":
            e = f"({e}) abs" + "; negated" * n
        elif shape == "parens":
            k = min(n, 20)
            e = "(" * k + e + ")" * k
        else:
            e = "[:x | " + e + " * x] value: 2"
    source = prelude() + "r := " + e
    try:
        parse(source)
    except SyntaxErrors:
        return
    compiles_or_reports(lambda: compile_input(source))
