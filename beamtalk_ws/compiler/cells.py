"""Cell blocks: literal blocks, passed to a send that is not inlined, that
assign variables of the enclosing scope (or, in an actor method, fields).

Why: Smalltalk users write `sum := 0. coll collect: [:x | sum := sum + x]`
and expect `sum` to have changed; the spec (semantics §4.4–4.5) asks the
same for collection iteration and block messages.  Inlining every such
message (as `control.py` does for `to:do:`, `do:` …) would mean
re-implementing each one's result shape in the compiler.  Instead the send
runs as usual, through the runtime, and the block carries its threaded
variables through a *cell*: an entry of the caller's process dictionary
under a fresh reference.

    Key = make_ref(),
    put(Key, {Sum0}),                          % after the arguments are evaluated
    R = try send(Coll, 'collect:', [fun(X) ->
            {Sum1} = beamtalk_rt:cell(Key, {Sum0}),
            ...,
            put(Key, {Sum2}), Value end])
        catch C:E:St -> erase(Key), erlang:raise(C, E, St) end,
    {Sum3} = erase(Key)                        % Sum is Sum3 from here on

A block that runs in another process, or after the send has returned, starts
from the values it captured and its assignments stay where it ran; that
matches the spec's rule that mutations propagate back only through the
messages the block was given to.  `Erlang` calls are left alone, as the spec
says (`Erlang lists foreach:` leaves `count` unchanged).
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast

from . import forms as F
from . import runtime_abi as R
from .codegen import line_of, rt
from .context import STATE


class Cells:
    def __init__(self, gen):
        self.gen = gen

    def send(self, node, selector, body, ctx):
        """Generate `node` with cell blocks, or answer None when it has none."""
        if isinstance(node, ast.BinarySend):
            return None
        parts = [node.receiver] + (list(node.arguments) if isinstance(node, ast.KeywordSend) else [])
        blocks = [p for p in parts if isinstance(p, ast.Block)]
        if not blocks:
            return None
        w = self.gen.inliner.threaded(blocks, body, ctx, line_of(node))
        if not w:
            return None
        line = line_of(node)
        gen = self.gen
        gen.makes_funs = True
        key = body.bind(F.call("erlang", "make_ref", [], line), line, hint="Cell")
        captured = F.tuple_([ctx.env[n] for n in w], line)
        values = [self.cell_block(p, key, captured, w, body, ctx) if isinstance(p, ast.Block)
                  else gen.gen(p, body, ctx) for p in parts]
        receiver, args = values[0], values[1:]
        body.add(F.call("erlang", "put", [key, F.tuple_([ctx.env[n] for n in w], line)], line))
        call = rt(R.SEND, [receiver, F.atom(selector, line), F.list_(args, None, line)], line)
        c, e, st = (F.var(gen.fresh(h), line) for h in ("Cc", "Ce", "Cs"))
        handler = F.clause([(F.A("tuple"), line, [c, e, st])], [],
                           [F.call("erlang", "erase", [key], line),
                            F.call("erlang", "raise", [c, e, st], line)], line)
        result = body.bind(F.try_([call], [], [handler], (), line), line)
        new = [F.var(gen.fresh("W"), line) for _ in w]
        body.add(F.match(F.tuple_(new, line), F.call("erlang", "erase", [key], line), line))
        for name, var in zip(w, new):
            ctx.env[name] = var
            if ctx.repl is not None and not ctx.in_block:
                ctx.repl.note(name)
        return result

    def cell_block(self, block, key, captured, w, body, ctx):
        line = line_of(block)
        gen = self.gen
        inner = ctx.block()
        inner.threads_state = STATE in w
        params = []
        for p in block.parameters:
            v = F.var(gen.fresh("P"), line)
            inner.env[p] = v
            params.append(v)
        fbody = body.child()
        start = [F.var(gen.fresh("W"), line) for _ in w]
        fbody.add(F.match(F.tuple_(start, line), rt(R.CELL, [key, captured], line), line))
        for name, var in zip(w, start):
            inner.env[name] = var
        value = gen.statements(block.body, fbody, inner)
        value = fbody.bind(value, line)
        fbody.add(F.call("erlang", "put", [key, F.tuple_([inner.env[n] for n in w], line)], line))
        fbody.add(value)
        return F.fun([F.clause(params, [], fbody.exprs, line)], line)
