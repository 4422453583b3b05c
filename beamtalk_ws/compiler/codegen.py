"""Lowering of checked AST to Erlang abstract forms.

One generator method per AST node kind (`gen_<NodeName>`), each returning a
form; sub-expressions with effects are bound to fresh variables in evaluation
order (A-normal form), so Erlang's single assignment and unspecified operand
order never change Beamtalk's left-to-right semantics.  The Erlang compiler
removes the extra variables.
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast
from beamtalk_ws.syntax.diagnostics import Diagnostic

from . import forms as F
from .errors import CompileError

# Binary operators that map straight onto an Erlang operator (spec §6).
_DIRECT_OPS = {
    "+": "+", "-": "-", "*": "*", "/": "/", "%": "rem",
    "==": "==", "/=": "/=", "=:=": "=:=", "=/=": "=/=", "=": "=:=",
    "<": "<", ">": ">", "<=": "=<", ">=": ">=",
}


def _line(node) -> int:
    span = getattr(node, "span", None)
    return span.line if span is not None else 1


class Unsupported(Exception):
    def __init__(self, message: str, node):
        super().__init__(message)
        self.node = node


class Body:
    """A straight-line sequence of Erlang expressions being built."""

    def __init__(self, gen: "ExprGen"):
        self.gen = gen
        self.exprs: list = []

    def bind(self, form, line: int, hint: str = "T") -> tuple:
        name = self.gen.fresh(hint)
        self.exprs.append(F.match(F.var(name, line), form, line))
        return F.var(name, line)


class ExprGen:
    """Generates expressions for one compilation unit (a REPL input)."""

    def __init__(self, bindings_var: str, bound: frozenset[str]):
        self.counter = 0
        self.bindings_var = bindings_var
        self.bound = bound
        self.env: dict[str, tuple] = {}      # Beamtalk name -> current Erlang var form
        self.assigned: list[str] = []        # session names assigned, first-assignment order
        self.makes_funs = False

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"{hint}{self.counter}"

    # -- dispatch -------------------------------------------------------------
    def gen(self, node, body: Body):
        method = getattr(self, "gen_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(f"{_describe(node)} is not supported by the compiler yet", node)
        return method(node, body)

    # -- literals -------------------------------------------------------------
    def gen_IntegerLit(self, node, body):
        return F.integer(node.value, _line(node))

    def gen_FloatLit(self, node, body):
        return F.float_(node.value, _line(node))

    def gen_StringLit(self, node, body):
        return F.binary_string(node.value, _line(node))

    def gen_SymbolLit(self, node, body):
        return F.atom(node.name, _line(node))

    def gen_CharLit(self, node, body):
        return F.integer(node.value, _line(node))

    def gen_ListLit(self, node, body):
        line = _line(node)
        elems = [self.gen(e, body) for e in node.elements]
        tail = self.gen(node.tail, body) if node.tail is not None else None
        return F.list_(elems, tail, line)

    def gen_ArrayLit(self, node, body):
        line = _line(node)
        elems = [self.gen(e, body) for e in node.elements]
        return body.bind(F.call("beamtalk_rt", "array_from_list", [F.list_(elems, None, line)], line), line)

    def gen_MapLit(self, node, body):
        line = _line(node)
        pairs = []
        for p in node.pairs:
            k = self.gen(p.key, body)
            v = self.gen(p.value, body)
            pairs.append((k, v))
        return F.map_(pairs, line)

    def gen_InterpolatedString(self, node, body):
        line = _line(node)
        parts = []
        for part in node.parts:
            if isinstance(part, str):
                if part:
                    parts.append(F.binary_string(part, line))
            else:
                value = self.gen(part, body)
                parts.append(body.bind(F.call("beamtalk_print", "display_string", [value], line), line))
        return body.bind(F.call("erlang", "iolist_to_binary", [F.list_(parts, None, line)], line), line)

    # -- variables ------------------------------------------------------------
    def gen_Variable(self, node, body):
        line = _line(node)
        name = node.name
        if name in ("true", "false", "nil"):
            return F.atom(name, line)
        if name in self.env:
            return self.env[name]
        if name in self.bound:
            v = body.bind(
                F.call("beamtalk_workspace", "lookup",
                       [F.atom(name, line), F.var(self.bindings_var, line)], line),
                line, hint="B")
            self.env[name] = v
            return v
        raise Unsupported(f"Undefined variable: {name}", node)

    def gen_Assignment(self, node, body):
        line = _line(node)
        target = node.target
        if not isinstance(target, ast.Variable):
            raise Unsupported("Field assignment outside a method", target)
        value = self.gen(node.value, body)
        var = body.bind(value, line, hint="V")
        self.env[target.name] = var
        if target.name not in self.assigned:
            self.assigned.append(target.name)
        return var

    # -- operators ------------------------------------------------------------
    def gen_BinarySend(self, node, body):
        line = _line(node)
        left = self.gen(node.receiver, body)
        right = self.gen(node.argument, body)
        opname = node.operator
        if opname in _DIRECT_OPS:
            return body.bind(F.op(_DIRECT_OPS[opname], left, right, line), line)
        if opname == "**":
            pw = F.call("math", "pow", [F.call("erlang", "float", [left], line),
                                        F.call("erlang", "float", [right], line)], line)
            return body.bind(F.call("erlang", "round", [pw], line), line)
        if opname == "++":
            if isinstance(node.receiver, ast.ListLit):
                return body.bind(F.op("++", left, right, line), line)
            return body.bind(F.call("beamtalk_rt", "concat", [left, right], line), line)
        if opname == "->":
            return F.map_([(F.atom("$beamtalk_class", line), F.atom("Association", line)),
                           (F.atom("key", line), left), (F.atom("value", line), right)], line)
        raise Unsupported(f"The operator {opname} is not supported by the compiler yet", node)

    # -- Erlang interop: `Erlang mod fn: args` and `Erlang mod fn` --------------
    def _erlang_module(self, receiver):
        if (isinstance(receiver, ast.UnarySend) and isinstance(receiver.receiver, ast.GlobalRef)
                and receiver.receiver.name == "Erlang"):
            return receiver.selector
        return None

    def gen_UnarySend(self, node, body):
        module = self._erlang_module(node.receiver)
        if module is not None:
            line = _line(node)
            return body.bind(F.call(module, node.selector, [], line), line)
        raise Unsupported("Message sends are not supported by the compiler yet", node)

    def gen_KeywordSend(self, node, body):
        module = self._erlang_module(node.receiver)
        if module is not None:
            line = _line(node)
            args = [self.gen(a, body) for a in node.arguments]
            function = node.selector.split(":", 1)[0]
            return body.bind(F.call(module, function, args, line), line)
        raise Unsupported("Message sends are not supported by the compiler yet", node)

    def gen_Return(self, node, body):
        return self.gen(node.value, body)


def _describe(node) -> str:
    name = type(node).__name__
    return {
        "Block": "A block", "Cascade": "A cascade", "ClassDef": "A class definition",
        "StandaloneMethod": "A method definition", "Match": "match:", "GlobalRef": "A class reference",
        "FieldAccess": "Field access", "Super": "super", "Cast": "An async send (!)",
    }.get(name, name)


def compile_repl_statements(statements, bound: frozenset[str]):
    """Forms for a REPL input: module `'$bt_eval'` with `eval(Bindings0)`.

    `eval/1` answers `{Value, Bindings1}`, where Bindings1 holds every session
    name the input assigned.  Returns (forms, makes_funs).
    """
    gen = ExprGen("Bindings0", bound)
    body = Body(gen)
    result = F.atom("nil")
    try:
        for stmt in statements:
            result = gen.gen(stmt, body)
            if isinstance(stmt, ast.Return):
                break
    except Unsupported as e:
        raise CompileError([Diagnostic(str(e), e.node.span)]) from None
    line = 1
    if gen.assigned:
        new_bindings = F.map_update(F.var("Bindings0", line),
                                    [(F.atom(n, line), gen.env[n]) for n in gen.assigned], line)
    else:
        new_bindings = F.var("Bindings0", line)
    body.exprs.append(F.tuple_([result, new_bindings], line))
    clause = F.clause([F.var("Bindings0", line)], [], body.exprs, line)
    forms = [
        F.attribute("module", F.A("$bt_eval")),
        F.attribute("export", [(F.A("eval"), 1)]),
        F.function("eval", [clause]),
        F.eof(),
    ]
    return forms, gen.makes_funs
