"""Completion: what could stand at the cursor.

One engine answers both the interactive REPL (through the prompt_toolkit
adapter at the end of this file) and `--json`'s `complete` op, so both give
the same answers.

Reading the text (which word is being typed, and what receives it: a
binding, a literal, a class, a metaclass, `Erlang`, an Erlang module, or a
unary chain on one of them) is `analysis.py`,
with the project's lexer; it is imported at the first completion, not at
start-up.  What needs the node (the class of a binding's value,
selectors including inherited ones, what a unary chain answers, Erlang
modules and their exports) is
asked of the workspace server's `complete` request (beamtalk_complete.erl).

Completion must never hold up typing: the node is given a short budget
(`timeout`, 150 ms by default) and an answer that comes later is kept for
the next keystroke instead of being waited for.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from pathlib import Path

from beamtalk_ws.dist.terms import Atom

#: Command names offered after `:` (spec/repl.md §4).
COMMANDS = (":help", ":bindings", ":clear", ":forget", ":actors", ":load", ":reload", ":emit", ":sessions", ":workspace",
            ":test", ":watch", ":quit", ":exit", ":show-codegen")
CACHE_SECONDS = 2.0


@dataclass(frozen=True)
class Candidate:
    text: str            # the whole word that replaces code[start:cursor]
    start: int
    meta: str = ""       # binding | class | selector | command | file | directory | module | variable


# ---------------------------------------------------------------- answering

class CompletionEngine:
    """Completion candidates for one REPL session (see the module docstring)."""

    def __init__(self, repl, timeout: float = 0.15):
        self.repl = repl
        self.timeout = timeout
        self._cache: dict = {}
        self._pending: dict = {}
        self._generation = None

    @property
    def client(self):
        return self.repl.client

    async def complete(self, code: str, cursor: int | None = None, *, explicit: bool = True,
                       timeout: float | None = None) -> list[Candidate]:
        """Candidates for the word at `cursor` (default: the end of `code`).

        `explicit` is False for completion while typing: then nothing is
        offered until a word has been started.  Never waits for the node
        longer than `timeout` seconds; a late answer serves the next call.
        """
        from .analysis import analyse

        cursor = len(code) if cursor is None else max(0, min(cursor, len(code)))
        bound = set(self.client.bound_names)
        ctx = analyse(code[:cursor], bound)
        if ctx.kind == "none" or (not explicit and not ctx.prefix and ctx.kind not in ("command", "path")):
            return []
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        words = await self._words(ctx, bound, deadline)
        seen, out = set(), []
        for word, meta in words:
            if word.startswith(ctx.prefix) and word not in seen:
                seen.add(word)
                out.append(Candidate(word, ctx.start, meta))
        if len(out) == 1 and out[0].text == ctx.prefix:
            return []                            # nothing left to complete
        return out

    async def _words(self, ctx, bound, deadline) -> list[tuple[str, str]]:
        from .analysis import PSEUDO, Context

        if ctx.kind == "command":
            return [(c, "command") for c in COMMANDS]
        if ctx.kind == "word":
            return [(w, "command") for w in ctx.receiver]
        if ctx.kind == "path":
            return _paths(ctx.prefix)
        if ctx.kind == "class":
            return [(c, "class") for c in await self._ask(("classes",), Atom("classes"), deadline) if c[:1].isupper()]
        if ctx.kind == "primary":
            words = []
            if not ctx.prefix[:1].isupper():
                words += ([(b, "binding") for b in sorted(bound) if not b.startswith("_")]
                          + [(p, "variable") for p in PSEUDO]
                          + [(b, "binding") for b in sorted(bound) if b.startswith("_")])
            if not ctx.prefix[:1].islower():
                words += [(c, "class") for c in await self._ask(("classes",), Atom("classes"), deadline)]
            return words
        if ctx.kind == "help-selector":
            _, cls = ctx.receiver
            inst, klass = await asyncio.gather(self._selectors(("instance", cls), deadline),
                                               self._selectors(("class", cls), deadline))
            return inst + klass
        if ctx.kind == "selector" and ctx.keyword is not None:
            # `3 between: 1 a`: the next keyword of a selector the keyword
            # message's receiver understands first, then `1`'s unary selectors
            recv, sofar = ctx.keyword
            known = await self._selectors(recv, deadline)
            nexts = []
            for sel, meta in known:
                if sel.startswith(sofar) and len(sel) > len(sofar):
                    rest = sel[len(sofar):]
                    nexts.append((rest[: rest.index(":") + 1], meta))
            if ctx.receiver is None:
                return nexts
            return nexts + await self._words(Context("selector", ctx.prefix, ctx.start, ctx.receiver),
                                             bound, deadline)
        if ctx.kind == "selector":
            how, name = ctx.receiver[:2]
            if how == "erlang-class":
                modules, sels = await asyncio.gather(
                    self._ask(("modules", ctx.prefix), (Atom("modules"), ctx.prefix.encode()), deadline),
                    self._selectors(("class", name), deadline))
                return [(m, "module") for m in modules] + sels
            return await self._selectors(ctx.receiver, deadline)
        return []

    async def _selectors(self, receiver, deadline) -> list[tuple[str, str]]:
        how, name = receiver[:2]
        if how == "chain":                       # ("chain", (how, name), (unary selectors…))
            request = (Atom("chain"), (Atom(name[0]), Atom(name[1])), [Atom(s) for s in receiver[2]])
        else:
            request = (Atom(how), Atom(name))
        words = await self._ask(("selectors",) + tuple(receiver), (Atom("selectors"), request), deadline)
        meta = {"erlang": f"Erlang {name}", "class": f"{name} class", "instance": name,
                "metaclass": "Metaclass"}.get(how, "selector")
        # Unary and keyword selectors first, binary operators after them.
        return [(w, meta) for w in sorted(words, key=lambda w: (not (w[:1].isalpha() or w[:1] == "_"), w))]

    async def _ask(self, key, request, deadline) -> list[str]:
        """The node's answer to `request`, or [] if it does not come in time
        (it is then kept for the next call)."""
        generation = self.client.info.get("bindings")
        if generation is not self._generation:   # an input was evaluated: classes and values may differ
            self._generation = generation
            self._cache.clear()
        now = time.monotonic()
        hit = self._cache.get(key)
        if hit is not None and now - hit[0] < CACHE_SECONDS:
            return hit[1]
        task = self._pending.get(key)
        if task is None:
            task = asyncio.ensure_future(self.client.complete(request))
            self._pending[key] = task

            def done(t, key=key, gen=generation):
                self._pending.pop(key, None)
                if not t.cancelled() and t.exception() is None and gen is self._generation:
                    self._cache[key] = (time.monotonic(), t.result())

            task.add_done_callback(done)
        try:
            return list(await asyncio.wait_for(asyncio.shield(task), max(0.0, deadline - now)))
        except asyncio.TimeoutError:
            return []
        except Exception:                        # noqa: BLE001 - completion must never break typing
            return []


def _paths(prefix: str) -> list[tuple[str, str]]:
    quote = prefix[:1] if prefix[:1] in "\"'" else ""
    raw = prefix[len(quote):]
    expanded = os.path.expanduser(raw)
    head, _, tail = expanded.rpartition("/")
    shown_head = raw[: len(raw) - len(tail)]
    directory = Path(head or ("/" if expanded.startswith("/") else "."))
    try:
        entries = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    out = []
    for e in entries:
        if e.name.startswith(".") and not tail.startswith("."):
            continue
        if not e.name.startswith(tail):
            continue
        try:
            is_dir = e.is_dir()
        except OSError:
            continue
        if is_dir:
            out.append((quote + shown_head + e.name + "/", "directory"))
        elif e.suffix == ".bt":
            out.append((quote + shown_head + e.name, "file"))
    return out


# ---------------------------------------------------------------- prompt_toolkit

def prompt_toolkit_completer(engine: CompletionEngine):
    """A prompt_toolkit Completer on `engine`: asynchronous, so a slow node
    never holds up a keystroke."""
    from prompt_toolkit.completion import Completer, Completion

    class BeamtalkCompleter(Completer):
        def get_completions(self, document, complete_event):
            return iter(())                       # only the asynchronous path is used

        async def get_completions_async(self, document, complete_event):
            cursor = document.cursor_position
            found = await engine.complete(document.text, cursor, explicit=complete_event.completion_requested)
            for c in found:
                yield Completion(c.text, start_position=c.start - cursor, display_meta=c.meta)

    return BeamtalkCompleter()
