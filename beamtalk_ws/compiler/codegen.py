"""Lowering of checked AST to Erlang abstract forms: expressions and sends.

One generator method per AST node kind (`gen_<NodeName>`), each returning a
form.  Sub-expressions with effects are bound to fresh variables in
evaluation order (A-normal form), so Erlang's single assignment and its
unspecified operand order never change Beamtalk's left-to-right semantics;
the Erlang compiler removes the extra variables.  Control structures with
literal blocks are inlined by `control.py`; sends go through the runtime
(`runtime_abi.py`) unless the spec says the compiler specialises them.
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast

from . import forms as F
from . import runtime_abi as R
from beamtalk_ws.interop_names import ERLANG_CLASS_SELECTORS, PROXY_OWN_SELECTORS

from .context import STATE, Body, Ctx
from .proxy_sends import proxy_function
from .errors import CompileError
from beamtalk_ws.syntax.diagnostics import Diagnostic

#: keyword messages that are Erlang guard connectives inside `when: [...]`
GUARD_CONNECTIVES = {"and:": "andalso", "or:": "orelse"}

# Binary operators that map straight onto an Erlang operator (spec §6).
DIRECT_OPS = {
    "+": "+", "-": "-", "*": "*", "/": "/", "%": "rem",
    "==": "==", "/=": "/=", "=:=": "=:=", "=/=": "=/=", "=": "=:=",
    "<": "<", ">": ">", "<=": "=<", ">=": ">=",
}


def line_of(node) -> int:
    span = getattr(node, "span", None)
    return span.line if span is not None else 1


def rt(entry, args, line):
    """A call of a runtime entry point from runtime_abi."""
    module, function = entry
    return F.call(module, function, args, line)


class GenError(Exception):
    """A located error found while generating; becomes a CompileError."""

    def __init__(self, message: str, node, hint=None):
        super().__init__(message)
        self.node = node
        self.hint = hint

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(str(self), self.node.span, hint=self.hint)


class ExprGen:
    """Generates the expressions of one compilation unit."""

    def __init__(self, counter):
        self.counter = counter
        self.makes_funs = False
        self.abstract_classes: set[str] = set()  # filled from the class table by the unit
        from .cells import Cells  # these refer back to the generator
        from .control import Inliner
        self.inliner = Inliner(self)
        self.cells = Cells(self)

    def fresh(self, hint: str) -> str:
        return self.counter.fresh(hint)

    # -- dispatch ---------------------------------------------------------------
    def gen(self, node, body: Body, ctx: Ctx):
        method = getattr(self, "gen_" + type(node).__name__, None)
        if method is None:
            raise GenError(f"{type(node).__name__} cannot be used as an expression here", node)
        return method(node, body, ctx)

    def statements(self, stmts, body: Body, ctx: Ctx, empty=None):
        """Generate a statement sequence; answer the value of the last one.

        A `^` ends the sequence: at method level it is the method's value, in
        a block it is a non-local return."""
        value = empty if empty is not None else F.atom("nil")
        for stmt in stmts:
            if isinstance(stmt, ast.Expect):
                continue
            value = self.gen(stmt, body, ctx)
            if isinstance(stmt, ast.Return):
                break
        return value

    # -- literals -----------------------------------------------------------------
    def gen_IntegerLit(self, node, body, ctx):
        return F.integer(node.value, line_of(node))

    def gen_FloatLit(self, node, body, ctx):
        return F.float_(node.value, line_of(node))

    def gen_StringLit(self, node, body, ctx):
        return F.binary_string(node.value, line_of(node))

    def gen_SymbolLit(self, node, body, ctx):
        return F.atom(node.name, line_of(node))

    def gen_CharLit(self, node, body, ctx):
        return F.integer(node.value, line_of(node))

    def gen_ListLit(self, node, body, ctx):
        line = line_of(node)
        elems = [self.gen(e, body, ctx) for e in node.elements]
        tail = self.gen(node.tail, body, ctx) if node.tail is not None else None
        return F.list_(elems, tail, line)

    def gen_ArrayLit(self, node, body, ctx):
        line = line_of(node)
        elems = [self.gen(e, body, ctx) for e in node.elements]
        return body.bind(rt(R.ARRAY_FROM_LIST, [F.list_(elems, None, line)], line), line)

    def gen_MapLit(self, node, body, ctx):
        line = line_of(node)
        pairs = []
        for p in node.pairs:
            k = self.gen(p.key, body, ctx)
            v = self.gen(p.value, body, ctx)
            pairs.append((k, v))
        return F.map_(pairs, line)

    def gen_InterpolatedString(self, node, body, ctx):
        line = line_of(node)
        parts = []
        for part in node.parts:
            if isinstance(part, str):
                if part:
                    parts.append(F.binary_string(part, line))
            else:
                value = self.gen(part, body, ctx)
                parts.append(body.bind(rt(R.DISPLAY_STRING, [value], line), line))
        return body.bind(F.call("erlang", "iolist_to_binary", [F.list_(parts, None, line)], line), line)

    # -- names ----------------------------------------------------------------------
    def gen_Variable(self, node, body, ctx):
        line = line_of(node)
        name = node.name
        if name in ("true", "false", "nil"):
            return F.atom(name, line)
        if name in ctx.env:
            return ctx.env[name]
        if name in ctx.boxed:
            return body.bind(F.call("erlang", "get", [ctx.boxed[name]], line), line, hint="N")
        if ctx.repl is not None and name in ctx.repl.bound:
            v = body.bind(F.call("beamtalk_workspace", "lookup",
                                 [F.atom(name, line), F.var(ctx.repl.bindings_var, line)], line),
                          line, hint="B")
            ctx.env[name] = v
            return v
        if name == "self":
            raise GenError("self can only be used inside a method body", node)
        raise GenError(f"Undefined variable: {name}", node)

    def load_bound(self, names, body: Body, ctx: Ctx, line: int) -> None:
        """Read session bindings into the environment before a construct that
        assigns them, so every branch starts from the same variable."""
        if ctx.repl is None:
            return
        for name in names:
            if name not in ctx.env and name not in ctx.boxed and name in ctx.repl.bound:
                self.gen_Variable(ast.Variable(name, span=ast.Span(0, 0, line, 1)), body, ctx)

    def gen_GlobalRef(self, node, body, ctx):
        line = line_of(node)
        return body.bind(rt(R.GLOBAL, [F.atom(node.name, line)], line), line)

    def gen_Super(self, node, body, ctx):
        raise GenError("super can only be used as the receiver of a message", node)

    def self_form(self, ctx, node):
        if "self" not in ctx.env:
            raise GenError("self can only be used inside a method body", node)
        return ctx.env["self"]

    def gen_FieldAccess(self, node, body, ctx):
        line = line_of(node)
        if isinstance(node.receiver, ast.Variable) and node.receiver.name == "self":
            m = ctx.method
            if m is None:
                raise GenError("self can only be used inside a method body", node)
            if m.class_side:
                return body.bind(rt(R.CLASS_VAR, [ctx.env["self"], F.atom(node.name, line)], line), line)
            source = ctx.env[STATE] if m.is_actor_instance else ctx.env["self"]
            return body.bind(self._field_read(node.name, source, body, line), line)
        receiver = self.gen(node.receiver, body, ctx)
        return body.bind(self._field_read(node.name, receiver, body, line), line)

    def _field_read(self, name, source, body, line):
        """`case S of #{x := V} -> V; _ -> missing_field(x, S) end`: a map pattern
        is half the cost of the `maps:get/2` BIF call; the runtime handles the
        miss (a value made before its class gained the field reads its default)."""
        v = F.var(body.counter.fresh("F"), line)
        key = F.atom(name, line)
        return F.case(source, [
            F.clause([(F.A("map"), line, [(F.A("map_field_exact"), line, key, v)])], [], [v], line),
            F.clause([F.var("_", line)], [], [rt(R.MISSING_FIELD, [key, source], line)], line),
        ], line)

    # -- assignment and return ---------------------------------------------------------
    def gen_Assignment(self, node, body, ctx):
        line = line_of(node)
        target = node.target
        if isinstance(target, ast.Variable) and target.name not in ctx.env and (
                target.name in ctx.boxed or ctx.scope is not None and target.name in ctx.scope.names):
            return self.cells.assign_boxed(target.name, self.gen(node.value, body, ctx), body, ctx, line)
        stored = self.cells.stored_block(node, body, ctx) if isinstance(target, ast.Variable) else None
        value = stored if stored is not None else self.gen(node.value, body, ctx)
        if isinstance(target, ast.Variable):
            if stored is None:
                ctx.env.pop(self.cells.cell_key(target.name), None)
            var = body.bind(value, line, hint="V")
            ctx.env[target.name] = var
            if ctx.repl is not None and not ctx.in_block:
                ctx.repl.note(target.name)
            return var
        return self.assign_field(target, value, body, ctx, line)

    def assign_field(self, target, value, body, ctx, line):
        if not (isinstance(target.receiver, ast.Variable) and target.receiver.name == "self"):
            recv = target.receiver.name if isinstance(target.receiver, ast.Variable) else "anObject"
            raise GenError("Cannot assign to a field of another object: objects cannot mutate "
                           "another object's state", target,
                           hint=f"a method changes its own fields (self.{target.name} := value); in a block "
                                f"given to addMethod:body:, whose receiver is its first argument, write "
                                f"`{recv} fieldAt: #{target.name} put: value`")
        m = ctx.method
        if m is None:
            raise GenError("self can only be used inside a method body", target)
        name = F.atom(target.name, line)
        value = body.bind(value, line)
        if m.class_side:
            body.bind(rt(R.SET_CLASS_VAR, [ctx.env["self"], name, value], line), line)
            return value
        if m.class_kind == "value":
            raise GenError(f"Cannot assign to slot `{target.name}` on value type — use "
                           f"`self with{target.name[:1].upper()}{target.name[1:]}: newValue` instead", target)
        if m.is_actor_instance:
            if ctx.in_block and not ctx.threads_state:
                raise GenError(f"cannot assign to field '{target.name}' inside a stored closure: "
                               f"the actor's state cannot be threaded through it", target)
            ctx.env[STATE] = body.bind(F.map_update(ctx.env[STATE], [(name, value)], line), line, hint="S")
            if ctx.threads_state and ctx.state_cell is not None:
                key, names = ctx.state_cell
                body.add(F.call("erlang", "put", [key, F.tuple_([ctx.env[n] for n in names], line)], line))
        else:
            ctx.env["self"] = body.bind(F.map_update(ctx.env["self"], [(name, value)], line), line, hint="Self")
        return value

    def gen_Return(self, node, body, ctx):
        value = self.gen(node.value, body, ctx)
        if (ctx.in_block or ctx.inlined) and ctx.nlr_token is not None:
            line = line_of(node)
            payload = [F.atom(R.NLR_TAG, line), ctx.nlr_token, value]
            if ctx.method is not None and ctx.method.is_actor_instance:
                payload.append(ctx.env[STATE])
            body.add(F.call("erlang", "throw", [F.tuple_(payload, line)], line))
        return value

    def gen_Cast(self, node, body, ctx):
        line = line_of(node)
        send = node.send
        if isinstance(send, ast.Cascade):
            raise GenError("An async send (!) cannot be a cascade", node)
        receiver = self.gen(send.receiver, body, ctx)
        args = self.arguments(send, body, ctx)
        return body.bind(rt(R.CAST, [receiver, F.atom(selector_of(send), line), F.list_(args, None, line)], line),
                         line)

    # -- blocks ------------------------------------------------------------------------
    def gen_Block(self, node, body, ctx, own_return: bool = False):
        """A real closure (non-inlined block).  With `own_return` its `^`
        returns from the closure itself (see gen_method_block)."""
        from .units import nlr_wrap

        line = line_of(node)
        if own_return:
            token = F.var(self.fresh("NlrToken"), line)

            def build(inner, fbody):
                inner.nlr_token = token
                tbody = fbody.child()
                tbody.add(self.statements(node.body, tbody, inner))
                fbody.add(nlr_wrap(tbody.exprs, token, line))

            return self.cells.closure(node, body, ctx, build,
                                      prologue=[F.match(token, F.call("erlang", "make_ref", [], line), line)])

        def plain(inner, fbody):
            fbody.add(self.statements(node.body, fbody, inner))

        return self.cells.closure(node, body, ctx, plain)

    def block_params(self, node, inner, line) -> list:
        """Fresh variables for a block's parameters, bound in its scope."""
        params = []
        for p in node.parameters:
            v = F.var(self.fresh("P"), line)
            inner.env[p] = v
            params.append(v)
        return params

    def gen_method_block(self, node, body, ctx):
        """A literal block that becomes a method (`addMethod: #f body: [:me | ^5]`,
        seed ADR 0038): its `^` returns from that method, not from the code
        that built the class, which may be long gone when the method runs."""
        from .units import needs_nlr

        return self.gen_Block(node, body, ctx, own_return=needs_nlr([node]))

    # -- sends ---------------------------------------------------------------------------
    def arguments(self, send, body, ctx):
        if isinstance(send, ast.UnarySend):
            return []
        if isinstance(send, ast.BinarySend):
            return [self.gen(send.argument, body, ctx)]
        return self.keyword_arguments(send.selector, send.arguments, body, ctx)

    def keyword_arguments(self, selector, nodes, body, ctx):
        at = METHOD_BODY_ARGUMENT.get(selector)
        return [self.gen_method_block(a, body, ctx) if i == at and isinstance(a, ast.Block)
                else self.gen(a, body, ctx) for i, a in enumerate(nodes)]

    def gen_BinarySend(self, node, body, ctx):
        line = line_of(node)
        opname = node.operator
        if isinstance(node.receiver, ast.Super):
            return self.super_send(node, [self.gen(node.argument, body, ctx)], body, ctx)
        left = self.gen(node.receiver, body, ctx)
        right = self.gen(node.argument, body, ctx)
        if opname in DIRECT_OPS:
            return body.bind(F.op(DIRECT_OPS[opname], left, right, line), line)
        if opname == "**":
            pw = F.call("math", "pow", [F.call("erlang", "float", [left], line),
                                        F.call("erlang", "float", [right], line)], line)
            return body.bind(F.call("erlang", "round", [pw], line), line)
        if opname == "++":
            if isinstance(node.receiver, ast.ListLit) and isinstance(node.argument, ast.ListLit):
                return body.bind(F.op("++", left, right, line), line)
            return body.bind(rt(R.CONCAT, [left, right], line), line)
        if opname == "->":
            return F.map_([(F.atom(R.CLASS_KEY, line), F.atom("Association", line)),
                           (F.atom("key", line), left), (F.atom("value", line), right)], line)
        if opname == ">>":
            return body.bind(rt(R.SEND, [left, F.atom(">>", line), F.list_([right], None, line)], line), line)
        raise GenError(f"Unknown binary operator {opname}", node)

    def gen_UnarySend(self, node, body, ctx):
        inlined = self.inliner.try_inline(node, body, ctx)
        if inlined is not None:
            return inlined
        return self.send(node, body, ctx)

    def gen_KeywordSend(self, node, body, ctx):
        inlined = self.inliner.try_inline(node, body, ctx)
        if inlined is not None:
            return inlined
        return self.send(node, body, ctx)

    def send(self, node, body, ctx):
        line = line_of(node)
        selector = selector_of(node)
        recv_node = node.receiver
        if isinstance(recv_node, ast.Super):
            return self.super_send(node, None, body, ctx)
        module = erlang_module(recv_node)
        if module is not None and selector not in PROXY_OWN_SELECTORS:
            # `Erlang lists reverse: x`: the proxy's call, without building the
            # proxy; the runtime maps a failure as the proxy does (seed ADR 0028)
            args = self.arguments(node, body, ctx)
            function = selector.split(":", 1)[0]
            return body.bind(rt(R.ERLANG_INVOKE, [F.atom(module, line), F.atom(function, line),
                                                  F.list_(args, line=line)], line), line)
        if selector == "respondsTo:" and not isinstance(node.arguments[0], ast.SymbolLit):
            raise GenError("respondsTo: expects a symbol literal", node.arguments[0])
        if is_self(recv_node) and ctx.method is not None and ctx.method.is_actor_instance:
            celled = self.cells.call(argument_nodes(node), body, ctx, line, lambda values: self.self_send_form(
                selector, values, ctx, line), pair=selector)
            if celled is not None:
                return celled
            args = self.arguments(node, body, ctx)
            return self.actor_self_send(selector, args, body, ctx, line)
        self.check_instantiation(node, selector)
        celled = self.cells.send(node, selector, body, ctx)
        if celled is not None:
            return celled
        receiver = self.gen(recv_node, body, ctx)
        args = self.arguments(node, body, ctx)
        special = self.specialised(selector, receiver, args, node, body, line)
        if special is not None:
            return special
        function = proxy_function(selector) if may_be_proxy(recv_node) else None
        if function is not None:
            return body.bind(rt(R.SEND_CALLING, [receiver, F.atom(selector, line), F.list_(args, None, line),
                                                 F.atom(function, line)], line), line)
        return body.bind(rt(R.SEND, [receiver, F.atom(selector, line), F.list_(args, None, line)], line), line)

    def specialised(self, selector, receiver, args, node, body, line):
        """Sends the spec lets the compiler answer without a lookup."""
        if selector == "class":
            return body.bind(rt(R.CLASS_OF, [receiver], line), line)
        if selector == "yourself":
            return receiver
        if selector == "isNil":
            return body.bind(F.op("=:=", receiver, F.atom("nil", line), line), line)
        if selector == "notNil":
            return body.bind(F.op("=/=", receiver, F.atom("nil", line), line), line)
        if selector == "asType:":
            return receiver
        if selector == "respondsTo:":
            return body.bind(rt(R.RESPONDS_TO, [receiver, args[0]], line), line)
        return None

    def check_instantiation(self, node, selector):
        """`AbstractClass new` with a literal class name is caught before anything runs."""
        if selector not in ("new", "new:", "spawn", "spawnWith:") or not isinstance(node.receiver, ast.GlobalRef):
            return
        if node.receiver.name in self.abstract_classes:
            raise GenError(f"Cannot instantiate abstract class `{node.receiver.name}`. Subclass it first.", node)

    def self_send_form(self, selector, args, ctx, line):
        return rt(R.ACTOR_SELF_SEND, [ctx.env["self"], ctx.env[STATE], F.atom(selector, line),
                                      F.list_(args, None, line)], line)

    def actor_self_send(self, selector, args, body, ctx, line):
        return self.threaded_state_call(self.self_send_form(selector, args, ctx, line), body, ctx, line,
                                        selector)

    def threaded_state_call(self, call, body, ctx, line, selector=None):
        """Bind `{Result, State1}` from an actor-style call; State1 becomes the
        state.  In a closure that cannot hand the state back, a changed state
        is a runtime error rather than a silently lost change."""
        pair = body.bind(call, line)
        result = F.var(self.fresh("R"), line)
        state = F.var(self.fresh("S"), line)
        body.add(F.match(F.tuple_([result, state], line), pair, line))
        if not ctx.in_block or ctx.threads_state:
            ctx.env[STATE] = state
        elif selector is not None:
            body.add(rt(R.STATE_KEPT, [ctx.env["self"], ctx.env[STATE], state, F.atom(selector, line)], line))
        return result

    def super_send(self, node, args, body, ctx):
        """`super sel ...`; `args` are generated here when None (literal
        blocks among them may then thread variables through a cell)."""
        line = line_of(node)
        m = ctx.method
        if m is None:
            raise GenError("super can only be used inside a method body", node.receiver)
        selector = selector_of(node)
        defining = F.atom(m.class_name, line)

        def form(values):
            if m.is_actor_instance:
                return rt(R.ACTOR_SUPER_SEND, [defining, ctx.env["self"], ctx.env[STATE],
                                               F.atom(selector, line), F.list_(values, None, line)], line)
            return rt(R.SUPER_SEND, [defining, ctx.env["self"],
                                     F.atom(selector, line), F.list_(values, None, line)], line)

        if args is None:
            celled = self.cells.call(argument_nodes(node), body, ctx, line, form, pair=m.is_actor_instance and selector)
            if celled is not None:
                return celled
            args = self.arguments(node, body, ctx)
        if m.is_actor_instance:
            return self.threaded_state_call(form(args), body, ctx, line, selector)
        return body.bind(form(args), line)

    def gen_Cascade(self, node, body, ctx):
        line = line_of(node)
        recv_node = node.receiver
        actor_self = is_self(recv_node) and ctx.method is not None and ctx.method.is_actor_instance
        receiver = None if actor_self else self.gen(recv_node, body, ctx)
        value = F.atom("nil", line)
        for msg in node.messages:
            if msg.selector and not (msg.selector[0].isalpha() or msg.selector[0] == "_"):
                raise GenError(f"Binary selectors cannot be used in cascades (found {msg.selector})", msg)
            celled = None if msg.selector in METHOD_BODY_ARGUMENT else self.cells.call(
                list(msg.arguments), body, ctx, line,
                self.cascade_form(msg.selector, receiver, ctx, line, actor_self), pair=actor_self and msg.selector)
            if celled is not None:
                value = celled
                continue
            args = self.keyword_arguments(msg.selector, msg.arguments, body, ctx)
            if actor_self:
                value = self.actor_self_send(msg.selector, args, body, ctx, line)
            else:
                value = body.bind(rt(R.SEND, [receiver, F.atom(msg.selector, line),
                                              F.list_(args, None, line)], line), line)
        return value

    def cascade_form(self, selector, receiver, ctx, line, actor_self):
        """The call of one cascade message, given its argument values."""
        if actor_self:
            return lambda values: self.self_send_form(selector, values, ctx, line)
        return lambda values: rt(R.SEND, [receiver, F.atom(selector, line), F.list_(values, None, line)], line)

    def gen_Match(self, node, body, ctx):
        """A `case`; its arms are inlined like the branches of `ifTrue:`, so
        the variables, fields and actor state they change are threaded out
        of it (an arm's `self go: d` in an actor method kept its change
        only inside the arm before)."""
        line = line_of(node)
        subject = self.gen(node.subject, body, ctx)
        inl = self.inliner
        w = inl.threaded([arm.body for arm in node.arms], body, ctx, line)
        clauses = []
        for arm in node.arms:
            actx = ctx.fork()
            repeated_pattern_variable(arm.pattern)
            pattern = self.pattern(arm.pattern, actx)
            abody = body.child()
            guards = []
            if arm.guard is not None:
                guards = [[self.guard(arm.guard, actx)]]
            value = self.gen(arm.body, abody, actx)
            abody.add(inl.result(value, actx, w, line))
            clauses.append(F.clause([pattern], guards, abody.exprs, line))
        catch_all = F.clause([F.var("_", line)], [], [rt(R.MATCH_ERROR, [subject], line)], line)
        clauses.append(catch_all)
        return inl.finish(F.case(subject, clauses, line), w, body, ctx, line)

    def guard(self, node, ctx):
        """A `when: [...]` guard as an Erlang guard expression (no sends)."""
        if isinstance(node, ast.Block):
            if len(node.body) != 1:
                raise GenError("A match guard must be a single expression", node)
            return self.guard(node.body[0], ctx)
        if isinstance(node, ast.BinarySend) and node.operator in DIRECT_OPS:
            line = line_of(node)
            return F.op(DIRECT_OPS[node.operator], self.guard(node.receiver, ctx),
                        self.guard(node.argument, ctx), line)
        # `and:` / `or:` with a literal block and `not` are Erlang's own
        # guard connectives (andalso, orelse, not)
        if (isinstance(node, ast.KeywordSend) and node.selector in GUARD_CONNECTIVES
                and isinstance(node.arguments[0], ast.Block) and not node.arguments[0].parameters):
            line = line_of(node)
            return F.op(GUARD_CONNECTIVES[node.selector], self.guard(node.receiver, ctx),
                        self.guard(node.arguments[0], ctx), line)
        if isinstance(node, ast.UnarySend) and node.selector == "not":
            return F.op("not", self.guard(node.receiver, ctx), None, line_of(node))
        if isinstance(node, (ast.IntegerLit, ast.FloatLit, ast.StringLit, ast.SymbolLit, ast.CharLit)):
            return self.gen(node, None, ctx)
        if isinstance(node, ast.Variable):
            if node.name in ctx.env or node.name in ("true", "false", "nil"):
                return self.gen_Variable(node, None, ctx)
        raise GenError("A match guard may only compare values with > < >= <= =:= =/= == /= + - * / "
                       "and combine them with and:, or: and not", node,
                       hint="for any other test, match the value and decide in the arm: "
                            "`n -> (n isEven) ifTrue: [...] ifFalse: [...]`")

    def pattern(self, node, ctx):
        line = line_of(node)
        if isinstance(node, ast.WildcardPattern):
            return F.var("_", line)
        if isinstance(node, ast.VariablePattern):
            if node.name in ("nil", "true", "false"):
                # the values themselves: they cannot be assigned, so a
                # pattern cannot bind them (it would match anything)
                return F.atom(node.name, line)
            if node.name in ("self", "super"):
                raise GenError(f"{node.name} cannot be bound by a pattern", node)
            v = F.var(self.fresh("M"), line)
            ctx.env[node.name] = v
            return v
        if isinstance(node, ast.TuplePattern):
            return F.tuple_([self.pattern(e, ctx) for e in node.elements], line)
        if isinstance(node, ast.LiteralPattern):
            return self.gen(node.value_node, None, ctx)
        raise GenError("Unsupported pattern", node)

    def gen_Primitive(self, node, body, ctx):
        raise GenError("Primitives can only be declared in the standard library", node)


def repeated_pattern_variable(pattern) -> None:
    """Spec syntax §4: a variable may appear once in one pattern (Erlang's
    `{A, A}` would silently mean "two equal elements")."""
    seen = set()
    for p in pattern.walk():
        if isinstance(p, ast.VariablePattern) and p.name not in ("nil", "true", "false"):
            if p.name in seen:
                raise GenError(f"Variable `{p.name}` appears twice in one match pattern", p,
                               hint=f"give each element its own name and compare them in a guard: "
                                    f"`{{{p.name}, {p.name}2}} when: [{p.name} =:= {p.name}2] -> ...`")
            seen.add(p.name)


def selector_of(send) -> str:
    if isinstance(send, ast.UnarySend):
        return send.selector
    if isinstance(send, ast.BinarySend):
        return send.operator
    return send.selector


def argument_nodes(send) -> list:
    """The argument expressions of a send, in order."""
    if isinstance(send, ast.UnarySend):
        return []
    if isinstance(send, ast.BinarySend):
        return [send.argument]
    return list(send.arguments)


def is_self(node) -> bool:
    return isinstance(node, ast.Variable) and node.name == "self"


#: Receivers that are never an Erlang module proxy: literals, blocks, self
#: and class references.
NOT_PROXY = (ast.IntegerLit, ast.FloatLit, ast.StringLit, ast.InterpolatedString, ast.SymbolLit,
             ast.CharLit, ast.ListLit, ast.ArrayLit, ast.MapLit, ast.Block, ast.GlobalRef)


def may_be_proxy(node) -> bool:
    """Whether a send to `node` should name the function a module proxy
    would call (proxy_sends.py); the others keep the shorter send/3."""
    return not isinstance(node, NOT_PROXY) and not is_self(node)


#: ClassBuilder messages whose block argument (at this index) becomes a method.
METHOD_BODY_ARGUMENT = {"addMethod:body:": 1, "addClassMethod:body:": 1}

def erlang_module(receiver):
    """`Erlang lists` as a receiver names the module `lists`."""
    if (isinstance(receiver, ast.UnarySend) and isinstance(receiver.receiver, ast.GlobalRef)
            and receiver.receiver.name == "Erlang" and receiver.selector not in ERLANG_CLASS_SELECTORS):
        return receiver.selector
    return None


def compile_error(e: GenError, source="", filename="<input>") -> CompileError:
    return CompileError([e.diagnostic()], source, filename)
