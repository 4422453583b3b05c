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
from .codegen import GenError, line_of, rt
from .context import STATE, Scope


class Cells:
    def __init__(self, gen):
        self.gen = gen

    @staticmethod
    def cell_key(name: str) -> str:
        """The environment entry recording that variable `name` holds a stored cell block."""
        return "$cell " + name

    def stored_block(self, node, body, ctx):
        """`b := [count := count + 1]`: a stored block that assigns outer
        variables becomes a cell block with a cell of its own; sends that are
        given `b` (`b value`, `coll do: b`) in the same scope thread the
        variables back (spec semantics §4.5).  Answers None for other values."""
        block = node.value
        if not isinstance(block, ast.Block):
            return None
        from .control import assigned_names

        self.gen.load_bound(sorted(assigned_names([block])), body, ctx, line_of(node))
        names = assigned_outer(block, ctx)
        if not names:
            return None
        if STATE in names:
            return None  # field assignment in a stored block: the generator reports it
        line = line_of(node)
        self.gen.makes_funs = True
        key = body.bind(F.call("erlang", "make_ref", [], line), line, hint="Cell")
        w = names
        captured = F.tuple_([ctx.env[n] for n in w], line)
        fun = self.cell_block(block, key, captured, w, body, ctx)
        ctx.env[self.cell_key(node.target.name)] = (key, tuple(w))
        return fun

    def send(self, node, selector, body, ctx):
        """Generate `node` with cell blocks, or answer None when it has none."""
        if isinstance(node, ast.BinarySend):
            return None
        line = line_of(node)
        parts = [node.receiver] + (list(node.arguments) if isinstance(node, ast.KeywordSend) else [])
        return self.call(parts, body, ctx, line, lambda values: rt(
            R.SEND, [values[0], F.atom(selector, line), F.list_(values[1:], None, line)], line))

    def call(self, parts, body, ctx, line, make, pair=False):
        """Evaluate `parts` (literal blocks among them become cell blocks) and
        run `make(values)`, the call, with the cell filled around it; answer
        None when no part threads a variable.

        With `pair` (its selector) the call is an actor's message to itself, answering
        `{Result, State}`: the called method holds the actor's state while the
        blocks run, so they may not assign fields (the state they would hand
        back would lose the method's own changes, or the other way round)."""
        blocks = [p for p in parts if isinstance(p, ast.Block)]
        stored = [ctx.env[self.cell_key(p.name)] for p in parts
                  if isinstance(p, ast.Variable) and self.cell_key(p.name) in ctx.env]
        if not blocks and not stored:
            return None
        w = self.gen.inliner.threaded(blocks, body, ctx, line) if blocks else []
        if pair:
            field = first_field_assignment(blocks)
            if field is not None:
                raise GenError(
                    f"cannot assign to field '{field.target.name}' inside a block given to a message "
                    f"to self: the called method holds the actor's state while the block runs "
                    f"(assign a method temporary in the block and store it in the field after the send)",
                    field.target)
            w = [n for n in w if n != STATE]
        for _, names in stored:
            w += [n for n in names if n not in w and n in ctx.env]
        if not w:
            return None
        gen = self.gen
        gen.makes_funs = True
        key = body.bind(F.call("erlang", "make_ref", [], line), line, hint="Cell")
        captured = F.tuple_([ctx.env[n] for n in w], line)
        values = [self.cell_block(p, key, captured, w, body, ctx) if isinstance(p, ast.Block)
                  else gen.gen(p, body, ctx) for p in parts]
        body.add(F.call("erlang", "put", [key, F.tuple_([ctx.env[n] for n in w], line)], line))
        for skey, names in stored:
            body.add(F.call("erlang", "put", [skey, F.tuple_([ctx.env[n] for n in names], line)], line))
        call = make(values)
        c, e, st = (F.var(gen.fresh(h), line) for h in ("Cc", "Ce", "Cs"))
        handler = F.clause([(F.A("tuple"), line, [c, e, st])], [],
                           [F.call("erlang", "erase", [k], line) for k in [key] + [s for s, _ in stored]]
                           + [F.call("erlang", "raise", [c, e, st], line)], line)
        result = body.bind(F.try_([call], [], [handler], (), line), line)
        new = [F.var(gen.fresh("W"), line) for _ in w]
        body.add(F.match(F.tuple_(new, line), F.call("erlang", "erase", [key], line), line))
        # A stored block's cell holds what its runs left; it wins over this send's own.
        fresh = dict(zip(w, new))
        for skey, names in stored:
            got = [F.var(gen.fresh("W"), line) for _ in names]
            body.add(F.match(F.tuple_(got, line), F.call("erlang", "erase", [skey], line), line))
            fresh.update(zip(names, got))
        new = [fresh[n] for n in w]
        for name, var in zip(w, new):
            ctx.env[name] = var
            if ctx.repl is not None and not ctx.in_block:
                ctx.repl.note(name)
        if pair:
            return gen.threaded_state_call(result, body, ctx, line, pair)
        return result

    def cell_block(self, block, key, captured, w, body, ctx):
        line = line_of(block)
        gen = self.gen

        def build(inner, fbody):
            inner.threads_state = STATE in w
            # a field assigned in the block is put in the cell at once, so that
            # it is kept when the block then raises and the send (on:do:)
            # goes on
            inner.state_cell = (key, w) if inner.threads_state else None
            start = [F.var(gen.fresh("W"), line) for _ in w]
            fbody.add(F.match(F.tuple_(start, line), rt(R.CELL, [key, captured], line), line))
            for name, var in zip(w, start):
                inner.env[name] = var
            value = gen.statements(block.body, fbody, inner)
            value = fbody.bind(value, line)
            fbody.add(F.call("erlang", "put", [key, F.tuple_([inner.env[n] for n in w], line)], line))
            fbody.add(value)

        return self.closure(block, body, ctx, build)

    # -- variables that live in cells for a whole activation ------------------------
    def closure(self, block, body, ctx, build, prologue=()):
        """The fun for a literal block that stays a closure.  `build(inner,
        fbody)` fills its body.  The block's own temporaries that closures
        inside it assign get cells of their own (`open_scope`); when the block
        uses variables living in cells of an enclosing activation, its body
        runs under `beamtalk_rt:cell_run/2` with the values they have now."""
        line = line_of(block)
        gen = self.gen
        gen.makes_funs = True
        inner = ctx.block()
        params = gen.block_params(block, inner, line)
        fbody = body.child()
        for form in prologue:
            fbody.add(form)
        setup = self.open_scope(block.body, fbody, inner, line)
        build(inner, fbody)
        exprs = self.close_scope(inner.scope, setup, fbody.exprs, line)
        used = uses_boxed(block, ctx)
        if used:
            caps = F.list_([F.tuple_([ctx.boxed[n], F.call("erlang", "get", [ctx.boxed[n]], line)], line)
                            for n in used], None, line)
            caps = body.bind(caps, line, hint="Caps")
            exprs = [rt(R.CELL_RUN, [caps, F.fun([F.clause([], [], exprs, line)], line)], line)]
        return F.fun([F.clause(params, [], exprs, line)], line)

    def open_scope(self, stmts, body, ctx, line, bound=frozenset()):
        """Give the temporaries of an activation that closures assign a cell
        each; answer the set-up expressions (the caller puts them first), or
        [] when there are none.  `bound` are REPL bindings: those a closure
        assigns live in a cell from the start of the input."""
        from .control import scope_names

        level, inner = scope_names(stmts)
        names = sorted(n for n in inner & (level | bound)
                       if n != "self" and n not in ctx.env and n not in ctx.boxed)
        if not names:
            return []
        gen = self.gen
        ref = F.var(gen.fresh("CellRef"), line)
        setup = [F.match(ref, F.call("erlang", "make_ref", [], line), line),
                 F.call("erlang", "put", [ref, F.atom("true", line)], line)]
        keys = {}
        for n in names:
            k = F.var(gen.fresh("Cell"), line)
            setup.append(F.match(k, F.tuple_([ref, F.atom(n, line)], line), line))
            keys[n] = k
        ctx.scope = Scope(ref, frozenset(names), keys)
        for n in names:
            if n in bound:
                lookup = F.call("beamtalk_workspace", "lookup",
                                [F.atom(n, line), F.var(ctx.repl.bindings_var, line)], line)
                setup.append(F.call("erlang", "put", [keys[n], lookup], line))
                ctx.boxed[n] = keys[n]
                ctx.repl.note(n)
        return setup

    @staticmethod
    def close_scope(scope, setup, exprs, line) -> list:
        """`Setup, try Exprs after <erase the activation's cells> end`."""
        if scope is None or not setup:
            return exprs
        erase = [F.call("erlang", "erase", [scope.ref], line)]
        erase += [F.call("erlang", "erase", [k], line) for k in scope.keys.values()]
        return list(setup) + [F.try_(exprs, [], [], erase, line)]

    def assign_boxed(self, name, value, body, ctx, line):
        """`n := V` for a variable living in a cell; answers None when `name`
        is an ordinary variable here."""
        if name in ctx.env:
            return None
        key = ctx.boxed.get(name)
        if key is None:
            if ctx.scope is None or name not in ctx.scope.names:
                return None
            key = ctx.boxed[name] = ctx.scope.keys[name]
        var = body.bind(value, line, hint="V")
        body.add(F.call("erlang", "put", [key, var], line))
        if ctx.repl is not None and not ctx.in_block:
            ctx.repl.note(name)
        return var


def assigned_outer(block, ctx) -> list:
    """Names of the enclosing scope a block assigns (sorted; `STATE` when it
    assigns a field of an actor)."""
    from .control import assigned_names

    names = assigned_names([block])
    out = sorted(n for n in names if n in ctx.env and n != "self" and not n.startswith("$"))
    if "self" in names and STATE in ctx.env:
        out.append(STATE)
    return out


def uses_boxed(block, ctx) -> list:
    """Variables living in cells of enclosing activations that `block` (or a
    block inside it) reads or assigns, sorted."""
    if not ctx.boxed:
        return []
    names = set()
    for sub in block.walk():
        if isinstance(sub, ast.Variable):
            names.add(sub.name)
        elif isinstance(sub, ast.Assignment) and isinstance(sub.target, ast.Variable):
            names.add(sub.target.name)
    return sorted(n for n in names if n in ctx.boxed and n not in ctx.env)


def first_field_assignment(blocks):
    """The first `self.x := ...` anywhere inside `blocks`, or None."""
    for block in blocks:
        for sub in block.walk():
            if isinstance(sub, ast.Assignment) and not isinstance(sub.target, ast.Variable):
                return sub
    return None
