"""Inlined control structures: `ifTrue:`, `and:`, `ifNil:`, `whileTrue:`,
`timesRepeat:`, `to:do:`, `do:` … with literal block arguments.

Why inline: the spec (semantics §4.4) requires assignments inside these
blocks to update the enclosing method's variables and fields.  Each construct
becomes an Erlang `case` (conditionals) or a local recursive fun (loops) that
carries the *threaded* variables — the outer variables assigned anywhere
inside, the actor state, a rebound `self` — and hands back their final values.
A receiver that is not of the expected kind falls back to an ordinary send,
so `3 ifTrue: [...]` is still "Integer does not understand 'ifTrue:'".
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast

from . import forms as F
from . import runtime_abi as R
from .codegen import line_of, rt
from .context import STATE

CONDITIONALS = {"ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "and:", "or:",
                "ifNil:", "ifNotNil:", "ifNil:ifNotNil:", "ifNotNil:ifNil:"}
LOOPS = {"whileTrue:", "whileFalse:", "timesRepeat:", "to:do:", "to:by:do:", "do:"}
UNARY_LOOPS = {"whileTrue", "whileFalse", "repeat"}


def _is_block(node, params: int | None = None) -> bool:
    return isinstance(node, ast.Block) and (params is None or len(node.parameters) == params)


def assigned_names(nodes) -> set:
    """Every variable name assigned anywhere inside `nodes` (blocks included)."""
    names = set()
    fields = False
    for n in nodes:
        for sub in n.walk():
            if isinstance(sub, ast.Assignment):
                if isinstance(sub.target, ast.Variable):
                    names.add(sub.target.name)
                else:
                    fields = True
    if fields:
        names.add("self")
    return names


class Inliner:
    def __init__(self, gen):
        self.gen = gen

    # -- entry --------------------------------------------------------------------
    def try_inline(self, node, body, ctx):
        handler = inline_handler(node)
        if handler is None:
            return None
        if handler == "to_do":
            args = node.arguments
            if node.selector == "to:do:":
                return self.to_do(node, body, ctx, None, args[1])
            return self.to_do(node, body, ctx, args[1], args[2])
        return getattr(self, handler)(node, body, ctx)

    # -- threading ------------------------------------------------------------------
    def threaded(self, nodes, body, ctx, line) -> list:
        """Outer names the construct may change, in a stable order."""
        names = assigned_names(nodes)
        if ctx.repl is not None:
            self.gen.load_bound(sorted(n for n in names if n in ctx.repl.bound), body, ctx, line)
        w = sorted(n for n in names if n in ctx.env and n not in ("self",))
        if "self" in names and "self" in ctx.env and ctx.method is not None \
                and not ctx.method.is_actor_instance and not ctx.method.class_side:
            w.append("self")
        if STATE in ctx.env:
            w.append(STATE)
        return w

    def finish(self, form, w, body, ctx, line):
        """Bind the construct's result; rebind the threaded names to their new values."""
        if not w:
            return body.bind(form, line)
        result = F.var(self.gen.fresh("C"), line)
        new = [F.var(self.gen.fresh("W"), line) for _ in w]
        body.add(F.match(F.tuple_([result] + new, line), form, line))
        for name, var in zip(w, new):
            ctx.env[name] = var
            if ctx.repl is not None and not ctx.in_block:
                ctx.repl.note(name)
        return result

    def branch(self, stmts, body, ctx, w, line, params=(), param_values=(), default=None):
        """A clause body: the block's statements then {Value, threaded...}."""
        bctx = ctx.fork()
        for p, v in zip(params, param_values):
            bctx.env[p] = v
        b = body.child()
        value = self.gen.statements(stmts, b, bctx, empty=default)
        b.add(self.result(value, bctx, w, line))
        return b.exprs

    def result(self, value, ctx, w, line):
        if not w:
            return value
        return F.tuple_([value] + [ctx.env[n] for n in w], line)

    # -- conditionals ------------------------------------------------------------------
    def conditional(self, node, body, ctx):
        line = line_of(node)
        sel = node.selector
        subject = self.gen.gen(node.receiver, body, ctx)
        blocks = node.arguments
        w = self.threaded([b for b in blocks], body, ctx, line)
        nil = F.atom("nil", line)

        def clause(pattern, exprs):
            return F.clause([pattern], [], exprs, line)

        def const(value):
            return [self.result(value, ctx, w, line)]

        def block_branch(block, param_values=()):
            return self.branch(block.body, body, ctx, w, line, block.parameters, param_values, default=nil)

        T, Fa = F.atom("true", line), F.atom("false", line)
        if sel in ("ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "and:", "or:"):
            # a branch not taken answers the receiver (semantics §4.6), as the primitives do
            if sel == "ifTrue:":
                cl = [clause(T, block_branch(blocks[0])), clause(Fa, const(Fa))]
            elif sel == "ifFalse:":
                cl = [clause(Fa, block_branch(blocks[0])), clause(T, const(T))]
            elif sel == "ifTrue:ifFalse:":
                cl = [clause(T, block_branch(blocks[0])), clause(Fa, block_branch(blocks[1]))]
            elif sel == "ifFalse:ifTrue:":
                cl = [clause(Fa, block_branch(blocks[0])), clause(T, block_branch(blocks[1]))]
            elif sel == "and:":
                cl = [clause(T, block_branch(blocks[0])), clause(Fa, const(Fa))]
            else:
                cl = [clause(T, const(T)), clause(Fa, block_branch(blocks[0]))]
            other = F.var(self.gen.fresh("O"), line)
            placeholder = F.list_([nil] * len(blocks), None, line)
            cl.append(clause(other, [rt(R.SEND, [other, F.atom(sel, line), placeholder], line)]))
            return self.finish(F.case(subject, cl, line), w, body, ctx, line)
        # nil tests
        other = F.var(self.gen.fresh("O"), line)
        if sel == "ifNil:":
            cl = [clause(nil, block_branch(blocks[0])), clause(other, const(other))]
        elif sel == "ifNotNil:":
            cl = [clause(nil, const(nil)), clause(other, block_branch(blocks[0], (other,)))]
        elif sel == "ifNil:ifNotNil:":
            cl = [clause(nil, block_branch(blocks[0])), clause(other, block_branch(blocks[1], (other,)))]
        else:  # ifNotNil:ifNil:
            cl = [clause(nil, block_branch(blocks[1])), clause(other, block_branch(blocks[0], (other,)))]
        return self.finish(F.case(subject, cl, line), w, body, ctx, line)

    # -- loops -------------------------------------------------------------------------------
    def _loop(self, name, params_extra, w, ctx, line, make_clauses):
        """`LoopName(Extra..., W...)` as a named fun; answers (fun form, param vars)."""
        wparams = [F.var(self.gen.fresh("L"), line) for _ in w]
        lctx = ctx.fork()
        for n, v in zip(w, wparams):
            lctx.env[n] = v
        clauses = make_clauses(lctx, wparams)
        return F.named_fun(name, clauses, line), wparams

    def recur(self, name, extra, lctx, w, line):
        return F.apply_var(F.var(name, line), list(extra) + [lctx.env[n] for n in w], line)

    def while_loop(self, node, body, ctx):
        line = line_of(node)
        cond_block, body_block = node.receiver, node.arguments[0]
        continue_on = F.atom("true" if node.selector == "whileTrue:" else "false", line)
        w = self.threaded([cond_block, body_block], body, ctx, line)
        name = self.gen.fresh("Loop")

        def clauses(lctx, wparams):
            b = body.child()
            cctx = lctx  # the condition runs in the loop's own scope
            cond = self.gen.statements(cond_block.body, b, cctx)
            after_cond = cctx.fork()
            tb = b.child()
            self.gen.statements(body_block.body, tb, after_cond)
            tb.add(self.recur(name, (), after_cond, w, line))
            stop = [self.result(F.atom("nil", line), cctx, w, line)]
            other = F.var(self.gen.fresh("O"), line)
            b.add(F.case(cond, [F.clause([continue_on], [], tb.exprs, line),
                                F.clause([other], [], stop, line)], line))
            return [F.clause(wparams, [], b.exprs, line)]

        fun, _ = self._loop(name, (), w, ctx, line, clauses)
        call = F.apply_var(fun, [ctx.env[n] for n in w], line)
        return self.finish(call, w, body, ctx, line)

    def loop_unary(self, node, body, ctx):
        line = line_of(node)
        block = node.receiver
        w = self.threaded([block], body, ctx, line)
        name = self.gen.fresh("Loop")
        sel = node.selector

        def clauses(lctx, wparams):
            b = body.child()
            value = self.gen.statements(block.body, b, lctx)
            if sel == "repeat":
                b.add(self.recur(name, (), lctx, w, line))
            else:
                continue_on = F.atom("true" if sel == "whileTrue" else "false", line)
                other = F.var(self.gen.fresh("O"), line)
                b.add(F.case(value, [
                    F.clause([continue_on], [], [self.recur(name, (), lctx, w, line)], line),
                    F.clause([other], [], [self.result(F.atom("nil", line), lctx, w, line)], line)], line))
            return [F.clause(wparams, [], b.exprs, line)]

        fun, _ = self._loop(name, (), w, ctx, line, clauses)
        return self.finish(F.apply_var(fun, [ctx.env[n] for n in w], line), w, body, ctx, line)

    def times_repeat(self, node, body, ctx):
        line = line_of(node)
        count = self.gen.gen(node.receiver, body, ctx)
        if not isinstance(node.receiver, ast.IntegerLit):
            # a Float, String or nil count ran no iteration where the send
            # says `Float does not understand 'timesRepeat:'`
            count = rt(R.TIMES_COUNT, [count], line)
        block = node.arguments[0]
        w = self.threaded([block], body, ctx, line)
        name = self.gen.fresh("Loop")

        def clauses(lctx, wparams):
            i = F.var(self.gen.fresh("I"), line)
            b = body.child()
            self.gen.statements(block.body, b, lctx)
            b.add(self.recur(name, [F.op("-", i, F.integer(1, line), line)], lctx, w, line))
            guard = [[F.call("erlang", "is_integer", [i], line), F.op(">", i, F.integer(0, line), line)]]
            done = F.clause([F.var("_", line)] + wparams, [],
                            [self.result(F.atom("nil", line), ctx_with(lctx, w, wparams), w, line)], line)
            return [F.clause([i] + wparams, guard, b.exprs, line), done]

        fun, _ = self._loop(name, (), w, ctx, line, clauses)
        return self.finish(F.apply_var(fun, [count] + [ctx.env[n] for n in w], line), w, body, ctx, line)

    def to_do(self, node, body, ctx, step_node, block):
        line = line_of(node)
        start = self.gen.gen(node.receiver, body, ctx)
        stop = body.bind(self.gen.gen(node.arguments[0], body, ctx), line)
        step = body.bind(self.gen.gen(step_node, body, ctx), line) if step_node is not None else F.integer(1, line)
        numbers = (ast.IntegerLit, ast.FloatLit)
        if not all(isinstance(n, numbers) for n in (node.receiver, node.arguments[0], step_node or node.receiver)):
            # Erlang's term order compares a number with anything: `1 to: "3"`
            # never stopped, `nil to: 3` ran no iteration; check as the send does
            start = body.bind(start, line)
            sel = "to:do:" if step_node is None else "to:by:do:"
            body.add(rt(R.LOOP_BOUNDS, [F.atom(sel, line), start, stop, step], line))
        w = self.threaded([block], body, ctx, line)
        name = self.gen.fresh("Loop")

        def clauses(lctx, wparams):
            i = F.var(self.gen.fresh("I"), line)
            b = body.child()
            bctx = lctx.fork()
            bctx.env[block.parameters[0]] = i
            self.gen.statements(block.body, b, bctx)
            b.add(self.recur(name, [F.op("+", i, step, line)], bctx, w, line))
            if step_node is None or isinstance(step_node, ast.IntegerLit) and step_node.value > 0:
                guard = [[F.op("=<", i, stop, line)]]
            elif isinstance(step_node, ast.IntegerLit) and step_node.value < 0:
                guard = [[F.op(">=", i, stop, line)]]
            else:
                guard = [[F.op("orelse",
                               F.op("andalso", F.op(">", step, F.integer(0, line), line), F.op("=<", i, stop, line), line),
                               F.op("andalso", F.op("<", step, F.integer(0, line), line), F.op(">=", i, stop, line), line),
                               line)]]
            done = F.clause([F.var("_", line)] + wparams, [],
                            [self.result(F.atom("nil", line), ctx_with(lctx, w, wparams), w, line)], line)
            return [F.clause([i] + wparams, guard, b.exprs, line), done]

        fun, _ = self._loop(name, (), w, ctx, line, clauses)
        return self.finish(F.apply_var(fun, [start] + [ctx.env[n] for n in w], line), w, body, ctx, line)

    def protected(self, node, body, ctx):
        """`[...] on: E do: [...]`, `ensure:`, `ifCurtailed:` through the runtime, with the
        protected block and the handler handing their threaded variables back
        tagged, so assignments inside them stay visible after the message."""
        line = line_of(node)
        sel = node.selector
        blocks = [node.receiver] + ([node.arguments[1]] if sel == "on:do:" else [])
        w = self.threaded(blocks, body, ctx, line)
        tag = F.atom("$bt_w", line)

        def thunk(block):
            bctx = ctx.fork()
            bctx.inlined = False  # a `^` inside must still unwind through the runtime
            bctx.in_block = True
            # the thunk hands the actor state back with the other threaded names
            bctx.threads_state = STATE in w
            b = body.child()
            params = []
            for p in block.parameters:
                v = F.var(self.gen.fresh("P"), line)
                bctx.env[p] = v
                params.append(v)
            value = self.gen.statements(block.body, b, bctx)
            b.add(F.tuple_([tag, value] + [bctx.env[n] for n in w], line) if w else value)
            return F.fun([F.clause(params, [], b.exprs, line)], line)

        self.gen.makes_funs = True
        protected = thunk(node.receiver)
        if sel == "on:do:":
            filt = self.gen.gen(node.arguments[0], body, ctx)
            call = rt(R.ON_DO, [protected, filt, thunk(node.arguments[1])], line)
        else:
            cleanup = self.gen.gen_Block(node.arguments[0], body, ctx)
            call = rt(R.ENSURE if sel == "ensure:" else R.IF_CURTAILED, [protected, cleanup], line)
        if not w:
            return body.bind(call, line)
        res = body.bind(call, line)
        v = F.var(self.gen.fresh("V"), line)
        ws = [F.var(self.gen.fresh("W"), line) for _ in w]
        other = F.var(self.gen.fresh("O"), line)
        form = F.case(res, [
            F.clause([F.tuple_([tag, v] + ws, line)], [], [F.tuple_([v] + ws, line)], line),
            F.clause([other], [], [F.tuple_([other] + [ctx.env[n] for n in w], line)], line)], line)
        return self.finish(form, w, body, ctx, line)

    def do_list(self, node, body, ctx):
        """`aCollection do: [:x | ...]`: a loop over the elements `do:` would visit
        (`beamtalk_rt:elements/1`; a list is used as it is)."""
        line = line_of(node)
        receiver = body.bind(self.gen.gen(node.receiver, body, ctx), line)
        elements = body.bind(rt(R.ELEMENTS, [receiver], line), line)
        block = node.arguments[0]
        w = self.threaded([block], body, ctx, line)
        name = self.gen.fresh("Loop")

        def clauses(lctx, wparams):
            h = F.var(self.gen.fresh("H"), line)
            t = F.var(self.gen.fresh("Tl"), line)
            b = body.child()
            bctx = lctx.fork()
            bctx.env[block.parameters[0]] = h
            self.gen.statements(block.body, b, bctx)
            b.add(self.recur(name, [t], bctx, w, line))
            done = F.clause([F.nil(line)] + wparams, [],
                            [self.result(F.atom("nil", line), ctx_with(lctx, w, wparams), w, line)], line)
            return [F.clause([F.cons(h, t, line)] + wparams, [], b.exprs, line), done]

        fun, _ = self._loop(name, (), w, ctx, line, clauses)
        return self.finish(F.apply_var(fun, [elements] + [ctx.env[n] for n in w], line), w, body, ctx, line)


def ctx_with(lctx, w, wparams):
    """The loop context as it is at the loop's entry (for the exit clause)."""
    c = lctx.fork()
    for n, v in zip(w, wparams):
        c.env[n] = v
    return c


def inline_handler(node) -> str | None:
    """The name of the Inliner method that inlines `node`, or None when it is
    an ordinary send.  One decision shared by the generator and by
    `scope_names`, which must agree on which literal blocks stay closures."""
    if isinstance(node, ast.UnarySend):
        if node.selector in UNARY_LOOPS and _is_block(node.receiver, 0):
            return "loop_unary"
        return None
    if not isinstance(node, ast.KeywordSend):
        return None
    sel = node.selector
    args = node.arguments
    if sel in CONDITIONALS:
        if sel in ("ifNotNil:",):
            ok = _is_block(args[0]) and len(args[0].parameters) <= 1
        elif sel in ("ifNil:ifNotNil:",):
            ok = _is_block(args[0], 0) and _is_block(args[1]) and len(args[1].parameters) <= 1
        elif sel in ("ifNotNil:ifNil:",):
            ok = _is_block(args[0]) and len(args[0].parameters) <= 1 and _is_block(args[1], 0)
        else:
            ok = all(_is_block(a, 0) for a in args)
        return "conditional" if ok else None
    if sel in ("whileTrue:", "whileFalse:") and _is_block(node.receiver, 0) and _is_block(args[0], 0):
        return "while_loop"
    if sel == "timesRepeat:" and _is_block(args[0], 0):
        return "times_repeat"
    if sel == "to:do:" and _is_block(args[1], 1):
        return "to_do"
    if sel == "to:by:do:" and _is_block(args[2], 1):
        return "to_do"
    if sel == "do:" and _is_block(args[0], 1):
        return "do_list"
    # on:do: / ensure: / ifCurtailed: are not inlined: their blocks are
    # closures whose assignments reach the method through its cells
    # (cells.py), so an assignment made before the protected block raised is
    # what the handler, a `retry` and the code after the message see.
    return None


def scope_names(stmts) -> tuple[set, set]:
    """(names assigned at this scope's own level, names assigned inside the
    closures it makes).  The blocks of inlined control structures belong to
    the scope's own level; every other literal block is a closure."""
    level: set = set()
    inner: set = set()
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Block):
            inner |= assigned_names([n])
            continue
        if isinstance(n, ast.Assignment) and isinstance(n.target, ast.Variable):
            level.add(n.target.name)
        handler = inline_handler(n) if isinstance(n, (ast.UnarySend, ast.KeywordSend)) else None
        if handler is None:
            stack.extend(n.children())
            continue
        parts = [n.receiver] + list(getattr(n, "arguments", ()))
        for p in parts:
            stack.extend(p.body if isinstance(p, ast.Block) else [p])
    return level, inner
