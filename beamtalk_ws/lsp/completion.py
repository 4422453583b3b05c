"""Completion in an editor: the REPL's engine (repl/completer.py) on a
client that answers its `complete` requests from the class index and, when
the project's workspace is running, from the workspace as well.

A file has no session, so there are no bindings: the engine is given only
the names whose class the text tells (`self`, `c := Cart new`: scope.py) as
bindings, and their requests are rewritten to ask about that class; a name it
cannot place is not asked about.
"""

from __future__ import annotations

from beamtalk_ws.dist.terms import Atom

from .index import ClassIndex

#: How long the editor waits for the node per completion request.
NODE_TIMEOUT = 0.5


class EditorClient:
    """The part of WorkspaceClient the completion engine uses."""

    def __init__(self, index: ClassIndex, live=None, known: dict | None = None):
        self.index = index
        self.live = live                     # a WorkspaceClient, or None
        self.known = known or {}             # {name: (how, class)}: scope.receivers_at
        self.bound_names = list(self.known)
        self.info = {"bindings": ()}         # never changes: the engine's cache lives 2 s

    def _resolve(self, request):
        """A request about a name the file binds, asked about its class instead."""
        if not (isinstance(request, tuple) and len(request) == 2 and request[0] == Atom("selectors")):
            return request
        target = request[1]

        def known(recv):
            if str(recv[0]) == "binding" and str(recv[1]) in self.known:
                how, cls = self.known[str(recv[1])]
                return (Atom(how), Atom(cls))
            return recv

        if str(target[0]) == "chain":
            return (request[0], (target[0], known(target[1]), target[2]))
        return (request[0], known(target))

    async def complete(self, request, timeout: float = NODE_TIMEOUT) -> list[str]:
        request = self._resolve(request)
        words = self._static(request)
        if self.live is not None:
            try:
                words += await self.live.complete(request, timeout=timeout)
            except Exception:                # noqa: BLE001 - a gone workspace leaves the index's answer
                pass
        return list(dict.fromkeys(words))

    def _static(self, request) -> list[str]:
        if request == Atom("classes"):
            return sorted(self.index.classes())
        if isinstance(request, tuple) and request and request[0] == Atom("selectors"):
            target = request[1]
            how, name = str(target[0]), target[1]
            if how in ("instance", "class") and isinstance(name, Atom):
                return [m.selector for _, m in self.index.methods(str(name), how == "class")]
            if how == "metaclass":
                return [m.selector for _, m in self.index.methods("Metaclass", False)]
            if how == "chain":
                return self._chain(target[1], [str(s) for s in target[2]])
        return []

    def _chain(self, base, sels: list[str]) -> list[str]:
        """`Counter new pri`: an instance made by `new` or `spawn` (the node knows more chains)."""
        how, name = str(base[0]), str(base[1])
        if how == "class" and sels in (["new"], ["spawn"]) and name in self.index.classes():
            return [m.selector for _, m in self.index.methods(name, False)]
        return []


class EditorRepl:
    """What CompletionEngine needs of a Repl: its client."""

    def __init__(self, client: EditorClient):
        self.client = client
