"""What each MCP tool does to the live workspace, without any protocol.

Every tool answers a `ToolAnswer`: the text an agent reads (the REPL's own
text, so an agent sees what a person at the REPL would), whether it is an
error, and structured data where the answer has a shape (test results,
class info).  Output an evaluation writes (`Transcript show:`,
`io:format`) is collected and delivered with the call that wrote it.

Inputs that change the session (eval, load, compile, tests) run one at a
time, as in the REPL: each is compiled against the bindings the previous
one left.  `interrupt`, `complete` and `bindings` do not wait for them, so
an agent can stop a runaway evaluation.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from beamtalk_ws.repl import revive
from beamtalk_ws.dist.errors import ConnectionLost, DistError
from beamtalk_ws.workspace.errors import WorkspaceError, WorkspaceNotRunning

CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*\Z")
SELECTOR = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*:)+\Z|[A-Za-z_][A-Za-z0-9_]*\Z|[-+*/\\<>=~@%|&?,!]+\Z")


@dataclass
class ToolAnswer:
    text: str
    error: bool = False
    data: dict[str, Any] | None = None
    output: list[str] = field(default_factory=list)

    def full_text(self) -> str:
        """The output the call produced, then its answer."""
        out = "".join(self.output)
        if out and not out.endswith("\n"):
            out += "\n"
        return out + self.text


def string_literal(text: str) -> str:
    """`text` as a Beamtalk string literal whose value is exactly `text`.

    Beamtalk strings have no escapes (spec/syntax.md §2.3): `""` is a quote,
    a backslash is kept together with the character after it, and `{` starts
    an interpolation.  So quotes are doubled, and `{`, `}` and `\\` are
    written as interpolations of their character literals (`{${ asCharacter}`),
    which display as the character itself.
    """
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('""')
        elif ch in "{}":
            out.append("{$" + ch + " asCharacter}")
        elif ch == "\\":
            out.append("{$\\\\ asCharacter}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def unquote(printed: str) -> str:
    """The value of a String from its printString: outer quotes off, doubled quotes single."""
    if len(printed) >= 2 and printed[0] == printed[-1] == '"':
        return printed[1:-1].replace('""', '"')
    return printed


def _class_ref(name: str, class_side: bool) -> str:
    return f"{name} class" if class_side else name


class LiveWorkspace:
    """One MCP server's session on the project's workspace, connected at the
    first tool call (so `initialize` answers before any node is started)."""

    def __init__(self, ws, session: str = "mcp", idle_timeout: int | None = None, connect=None):
        self.ws = ws
        self.session = session
        self.idle_timeout = idle_timeout
        #: for a node beamtalk did not start (`beamtalk mcp --node`): a coroutine
        #: function `connect(say)` that attaches a client (never starts a node)
        self._connect = connect
        self._repl = None
        self._node_info = None
        self._connecting = asyncio.Lock()
        self._busy = asyncio.Lock()          # one session-changing input at a time

    async def repl(self):
        async with self._connecting:
            if self._repl is None:
                import sys

                from beamtalk_ws.repl.attach import open_client
                from beamtalk_ws.repl.core import Repl

                def say(text: str) -> None:
                    print(text, file=sys.stderr, flush=True)

                if self._connect is not None:
                    client = await self._connect(say)
                else:
                    client = await open_client(self.ws, self.session, start="auto",
                                               idle_timeout=self.idle_timeout, say=say)
                repl = Repl(client)
                self._node_info = revive.node_info_of(client)
                # `:watch` reports each reload through `notify`; stdout is the protocol's.
                repl.notify = lambda outcome: say(outcome.text)
                if self._connect is None:
                    await _open_package(repl, self.ws, say)
                self._repl = repl
            return self._repl

    async def close(self) -> None:
        if self._repl is not None:
            await self._repl.client.close()

    async def guarded(self, what, *args, **kw) -> ToolAnswer:
        """Run one tool; every failure becomes a tool error with a clear text."""
        connected = self._repl is not None and self._repl.client.node.is_connected
        try:
            return await what(*args, **kw)
        except (WorkspaceError, DistError) as e:
            gone = self._forget_if_gone(lost=isinstance(e, (ConnectionLost, WorkspaceNotRunning)))
            if gone is not None:
                try:
                    await gone.client.close()
                except Exception:  # noqa: BLE001 - it is gone already
                    pass
                if self._connect is not None:
                    return ToolAnswer(f"{gone.client.lost_text()} The next call attaches again.", error=True)
                # Why it went (stopped, restarted, died) as `repl --json` says it; a new
                # node brings back what the old one stored (durable state), not its processes.
                why = revive.death_report(self.ws, self._node_info, connected)
                return ToolAnswer(f"{why}\nThe next call attaches again, starting it if needed: the "
                                  f"bindings, classes and globals the workspace stored come back; live "
                                  f"actors and processes of the old node do not.", error=True)
            return ToolAnswer(str(e), error=True)
        except Exception as e:  # noqa: BLE001 - an agent gets a message, the server keeps running
            return ToolAnswer(f"Internal error: {type(e).__name__}: {e}", error=True)

    def _forget_if_gone(self, lost: bool = False):
        """After a lost connection the next call attaches again (starting the node if needed):
        the REPL on the old connection, or None if the connection is fine."""
        repl = self._repl
        if repl is not None and (lost or repl.client.node.closed.done()):
            self._repl = None
            return repl
        return None

    # ------------------------------------------------------------ evaluation

    async def evaluate(self, code: str, internal: bool = False) -> ToolAnswer:
        """`internal`: code a tool runs for itself (a lookup, a method
        compiled by name), which leaves the session's `_` (the last value
        the user saw) alone."""
        repl = await self.repl()
        output: list[str] = []
        async with self._busy:
            if internal:
                outcome = await repl.evaluate_code(code, on_output=output.append, internal=True)
            else:
                outcome = await repl.evaluate(code, on_output=output.append)
        data = {"ok": outcome.ok, ("value" if outcome.ok else "error"): outcome.text, "output": "".join(output)}
        if outcome.warnings:
            data["warnings"] = list(outcome.warnings)
        return ToolAnswer(outcome.text, error=not outcome.ok, data=data, output=output)

    async def load(self, path: str) -> ToolAnswer:
        repl = await self.repl()
        output: list[str] = []
        async with self._busy:
            outcome = await repl.load(path, on_output=output.append)
        return _answer(outcome, output)

    async def reload(self, class_name: str | None) -> ToolAnswer:
        if class_name and not CLASS_NAME.match(class_name):
            return ToolAnswer(f"Not a class name: {class_name!r}", error=True)
        return await self.evaluate(":reload" + (f" {class_name}" if class_name else ""))

    async def interrupt(self) -> ToolAnswer:
        repl = await self.repl()
        running = self._busy.locked()        # before: the stopped eval releases it at once
        stopped = await repl.client.interrupt()
        return ToolAnswer("Interrupted" if stopped and running else "Nothing was running",
                          data={"interrupted": bool(stopped and running)})

    # ------------------------------------------------------------ looking around

    async def complete(self, code: str, cursor: int | None) -> ToolAnswer:
        from beamtalk_ws.repl.completer import CompletionEngine

        repl = await self.repl()
        found = await CompletionEngine(repl, timeout=1.0).complete(code, cursor)
        items = [{"text": c.text, "kind": c.meta} for c in found]
        start = found[0].start if found else (len(code) if cursor is None else cursor)
        return ToolAnswer("\n".join(c.text for c in found) or "No completions.",
                          data={"completions": items, "replace_from": start})

    async def bindings(self) -> ToolAnswer:
        repl = await self.repl()
        pairs = await repl.client.bindings()
        text = "\n".join(f"{k} = {v}" for k, v in pairs) or "No bindings."
        return ToolAnswer(text, data={"bindings": dict(pairs)})

    async def classes(self, loaded_only: bool) -> ToolAnswer:
        from beamtalk_ws.dist.terms import Atom

        repl = await self.repl()
        if loaded_only:
            async with self._busy:
                outcome = await repl.evaluate_code("Workspace classes", internal=True)
            if not outcome.ok:
                return ToolAnswer(outcome.text, error=True)
            names = re.findall(r"[A-Z][A-Za-z0-9_]*", outcome.text)
        else:
            names = [n for n in await repl.client.complete(Atom("classes")) if n[:1].isupper()]
        names = sorted(set(names))
        return ToolAnswer(", ".join(names) or "No classes.", data={"classes": names})

    async def class_info(self, name: str) -> ToolAnswer:
        from beamtalk_ws.repl.commands import UNKNOWN_CLASS, _text, class_help

        if not CLASS_NAME.match(name):
            return ToolAnswer(f"Not a class name: {name!r}", error=True)
        repl = await self.repl()
        docs = await repl.client.class_docs(name)
        if docs is None:
            return ToolAnswer(UNKNOWN_CLASS.format(name), error=True)
        table = await repl.client.class_table([name])
        info = table.known.get(name)
        async with self._busy:
            found = await repl.evaluate_code(f"{name} sourceFile", internal=True)
        source = unquote(found.text) if found.ok and found.text != "nil" else None

        def methods(side):
            return [{"selector": str(s), "defined_in": str(d), "doc": _text(doc)} for s, d, doc in docs.get(side, [])]

        sup = _text(docs.get("superclass"))
        data = {"name": name, "superclass": sup, "kind": str(docs.get("kind")),
                "doc": _text(docs.get("doc")), "fields": list(info.fields) if info else [],
                "source_file": source, "instance_methods": methods("instance"), "class_methods": methods("class")}
        text = class_help(docs)
        text += f"\nFields: {', '.join(data['fields']) or '(none)'}\nSource file: {source or '(none)'}"
        return ToolAnswer(text, data=data)

    async def method_source(self, class_name: str, selector: str, class_side: bool) -> ToolAnswer:
        bad = _check(class_name, selector)
        if bad:
            return bad
        answer = await self.evaluate(f"({_class_ref(class_name, class_side)} >> #{selector}) source", internal=True)
        if answer.error:
            return answer
        source = unquote(answer.text)
        return ToolAnswer(source, data={"class": class_name, "selector": selector, "class_side": class_side,
                                        "source": source})

    async def compile_method(self, class_name: str, source: str, class_side: bool) -> ToolAnswer:
        if not CLASS_NAME.match(class_name):
            return ToolAnswer(f"Not a class name: {class_name!r}", error=True)
        return await self.evaluate(f"{_class_ref(class_name, class_side)} compile: {string_literal(source)}",
                                   internal=True)

    async def remove_method(self, class_name: str, selector: str, class_side: bool) -> ToolAnswer:
        bad = _check(class_name, selector)
        if bad:
            return bad
        return await self.evaluate(f"{_class_ref(class_name, class_side)} removeSelector: #{selector}",
                                   internal=True)

    async def test(self, class_name: str | None) -> ToolAnswer:
        from beamtalk_ws.bunit import repl_output

        if class_name and not CLASS_NAME.match(class_name):
            return ToolAnswer(f"Not a class name: {class_name!r}", error=True)
        repl = await self.repl()
        output: list[str] = []
        async with self._busy:
            loaded = await _load_package_tests(repl, output)
            if loaded is not None and not loaded.ok:
                return ToolAnswer(f"The package's tests did not load:\n{loaded.text}\n"
                                  "Fix the file named above, then call test again.", error=True, output=output)
            # in a package, its own test classes (the workspace may hold others)
            names = [class_name] if class_name else (_package_test_classes(repl) if loaded is not None else None)
            reply = await repl.client.run_tests(names, on_output=output.append)
        if not reply.ok:
            return ToolAnswer(reply.text, error=True, output=output)
        results = [r.as_json() for r in reply.results or []]
        counts = {s: sum(1 for r in results if r["status"] == s) for s in ("pass", "fail", "error")}
        ok, text = repl_output(reply.results or [])
        if not results:
            text += ("\nNo tests ran: no TestCase subclass is loaded. Load a file that defines one"
                     " (the load tool), or put it in the package's test/ directory.")
        data = {"passed": counts["pass"], "failed": counts["fail"], "errors": counts["error"],
                "total": len(results), "results": results}
        # A failing test is a result, not a tool failure: the agent reads `failed`.
        return ToolAnswer(text, data=data, output=output)


async def _load_package_tests(repl, output: list):
    """In a package, its `test/` files (as last saved) are loaded before each `test` call, so an
    agent runs the package's tests as `beamtalk test` does, and sees its edits to them."""
    package = getattr(repl, "package", None)
    if package is None or not package.test_dir.is_dir() or not any(package.test_dir.rglob("*.bt")):
        return None
    return await repl.load(str(package.test_dir), on_output=output.append)


def _package_test_classes(repl) -> list[str] | None:
    """The classes the package's `test/` files define, as `beamtalk test` runs them (None: all)."""
    from beamtalk_ws.repl.loader import bt_files
    from beamtalk_ws.syntax import ast, parse_with_diagnostics

    names = []
    for f in bt_files(repl.package.test_dir):
        module, _ = parse_with_diagnostics(f.read_text(encoding="utf-8"), str(f))
        names += [i.name for i in (module.items if module is not None else ()) if isinstance(i, ast.ClassDef)]
    return names or None


async def _open_package(repl, ws, say) -> None:
    """As `beamtalk repl` does in a package (spec/repl.md §2): build it and load its classes, so
    the agent finds them and `reload` rebuilds it.  What happened goes to stderr (the MCP
    client's log): a package that does not build leaves the tools usable without its classes."""
    from beamtalk_ws.package import manifest
    from beamtalk_ws.package.manifest import PackageError

    try:
        m = manifest.find(ws.project)            # the current directory with --workspace
    except PackageError as e:
        say(f"Error: {e}")
        return
    if m is None or (ws.project is not None and m.root != ws.project):
        return
    repl.package = m
    outcome = await repl.load_package()
    say(outcome.text)


def _check(class_name: str, selector: str) -> ToolAnswer | None:
    if not CLASS_NAME.match(class_name):
        return ToolAnswer(f"Not a class name: {class_name!r}", error=True)
    if not SELECTOR.match(selector):
        return ToolAnswer(f"Not a selector: {selector!r} (e.g. increment, at:put:, +)", error=True)
    return None


def _answer(outcome, output) -> ToolAnswer:
    data = {"ok": outcome.ok, "text": outcome.text}
    if outcome.warnings:
        data["warnings"] = list(outcome.warnings)
    return ToolAnswer(outcome.text, error=not outcome.ok, data=data, output=output)
