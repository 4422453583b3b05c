"""The language server: pygls wiring of features.py, completion.py and the
project's workspace.

The workspace is attached only when it is already running (an editor never
starts a node); it adds the live classes to completion and serves the two
commands, `beamtalk.evaluate` (the selection) and `beamtalk.reloadFile`.
Diagnostics are computed on every change, in the server's loop: the parser
and the compiler's checks take about 0.1 s for a 1 000-method class here.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from beamtalk_ws import __version__

from . import features
from .completion import EditorClient, EditorRepl
from .index import ClassIndex

#: How often a missing workspace is looked for again (seconds).
ATTACH_RETRY = 10.0
_KIND = {"class": T.CompletionItemKind.Class, "module": T.CompletionItemKind.Module,
         "command": T.CompletionItemKind.Keyword, "variable": T.CompletionItemKind.Variable,
         "binding": T.CompletionItemKind.Variable, "file": T.CompletionItemKind.File,
         "directory": T.CompletionItemKind.Folder}
COMMANDS = ("beamtalk.evaluate", "beamtalk.reloadFile")


class BeamtalkServer(LanguageServer):
    def __init__(self):
        super().__init__("beamtalk", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Full)
        self.index = ClassIndex(None)
        self.live = None                       # WorkspaceClient of the project's running workspace
        self._repl = None                      # the REPL core on it, for the commands
        self._looked_for = -ATTACH_RETRY
        self._attaching = None                 # an asyncio.Lock, made in the server's loop
        #: `--workspace NAME`; else the workspace of the project the editor opened
        self.workspace_name: str | None = None

    def path_of(self, uri: str) -> str:
        return to_fs_path(uri) or uri

    # ------------------------------------------------------------ the workspace, if it runs

    async def attach(self, *, now: bool = False):
        """The project's workspace client, if it is running (looked for at most every ATTACH_RETRY s,
        so typing never waits on a missing node; `now` looks at once: a command the user gave
        must not be told no workspace runs when one was started a moment ago; a request that
        comes while it is being connected waits for that)."""
        if self._attaching is None:
            import asyncio

            self._attaching = asyncio.Lock()
        async with self._attaching:
            if self.live is not None and not self.live.node.closed.done():
                return self.live
            self.live = self._repl = None
            when = time.monotonic()
            if not now and when - self._looked_for < ATTACH_RETRY:
                return None
            self._looked_for = when
            try:
                from beamtalk_ws.workspace import launcher, paths
                from beamtalk_ws.workspace.client import WorkspaceClient

                ws = paths.resolve(self.workspace_name, self.index.root)
                if launcher.running_info(ws) is not None:
                    self.live = await WorkspaceClient.connect(ws, "lsp", timeout=2.0)
            except Exception:                    # noqa: BLE001 - no workspace: the files alone answer
                self.live = None
            return self.live

    async def repl(self):
        live = await self.attach(now=True)
        if live is None:
            return None
        if self._repl is None:
            from beamtalk_ws.repl.core import Repl

            self._repl = Repl(live)
            # `:watch` reports each reload through `notify`; stdout is the protocol's.
            self._repl.notify = lambda outcome: logging.getLogger("beamtalk").warning("%s", outcome.text)
        return self._repl

    # ------------------------------------------------------------ documents

    def refresh(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        path = self.path_of(uri)
        module, diags = features.check(doc.source, path)
        self.index.update(path, module, doc.source)
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=uri, version=doc.version, diagnostics=features.diagnostics(doc.source, diags)))


server = BeamtalkServer()


@server.feature(T.INITIALIZED)
async def initialized(ls: BeamtalkServer, params: T.InitializedParams) -> None:
    root = ls.workspace.root_path
    ls.index.root = Path(root) if root else None
    await ls.attach()


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: BeamtalkServer, params: T.DidOpenTextDocumentParams) -> None:
    ls.refresh(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: BeamtalkServer, params: T.DidChangeTextDocumentParams) -> None:
    ls.refresh(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: BeamtalkServer, params: T.DidSaveTextDocumentParams) -> None:
    ls.refresh(params.text_document.uri)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: BeamtalkServer, params: T.DidCloseTextDocumentParams) -> None:
    ls.index.close(ls.path_of(params.text_document.uri))
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[" ", ":"]))
async def completion(ls: BeamtalkServer, params: T.CompletionParams) -> T.CompletionList:
    from beamtalk_ws.repl.completer import CompletionEngine

    from .scope import receivers_at

    doc = ls.workspace.get_text_document(params.text_document.uri)
    offset = doc.offset_at_position(params.position)
    client = EditorClient(ls.index, await ls.attach(), receivers_at(doc.source, offset))
    found = await CompletionEngine(EditorRepl(client), timeout=1.0).complete(doc.source, offset)
    items = []
    for c in found:
        kind = _KIND.get(c.meta, T.CompletionItemKind.Method)
        items.append(T.CompletionItem(label=c.text, kind=kind, detail=c.meta or None))
    return T.CompletionList(is_incomplete=False, items=items)


@server.feature(T.TEXT_DOCUMENT_HOVER)
async def hover(ls: BeamtalkServer, params: T.HoverParams) -> T.Hover | None:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    offset = doc.offset_at_position(params.position)
    text = features.hover(ls.index, doc.source, offset)
    if text is None:
        text = await _live_class_help(ls, doc.source, offset)
    if text is None:
        return None
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))


async def _live_class_help(ls: BeamtalkServer, source: str, offset: int) -> str | None:
    """`:help Class` from the running workspace, for a class no file defines (typed at a REPL)."""
    from .text import word_at

    found = word_at(source, offset)
    if found is None or not found[0][:1].isupper() or found[0].endswith(":"):
        return None
    live = await ls.attach()
    if live is None:
        return None
    from beamtalk_ws.repl.commands import class_help

    try:
        docs = await live.class_docs(found[0], timeout=1.0)
    except Exception:                            # noqa: BLE001 - the workspace went away: no hover
        return None
    return f"```\n{class_help(docs)}\n```" if docs else None


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def definition(ls: BeamtalkServer, params: T.DefinitionParams) -> list[T.Location]:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    return [features.location(*where) for where in
            features.definition(ls.index, doc.source, doc.offset_at_position(params.position))]


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: BeamtalkServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol]:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    module, _ = features.check(doc.source, ls.path_of(params.text_document.uri))
    return features.symbols(doc.source, module)


@server.command("beamtalk.evaluate")
async def evaluate(ls: BeamtalkServer, code: str) -> dict:
    """Evaluate code (the editor's selection) in the workspace's `lsp` session."""
    repl = await ls.repl()
    if repl is None:
        return _no_workspace()
    output: list[str] = []
    outcome = await repl.evaluate(code, on_output=output.append)
    return {"ok": outcome.ok, "text": outcome.text, "output": "".join(output)}


@server.command("beamtalk.reloadFile")
async def reload_file(ls: BeamtalkServer, uri: str) -> dict:
    """Compile and load (or reload) the file into the workspace."""
    repl = await ls.repl()
    if repl is None:
        return _no_workspace()
    outcome = await repl.load(ls.path_of(uri))
    return {"ok": outcome.ok, "text": outcome.text, "output": ""}


def _no_workspace() -> dict:
    return {"ok": False, "output": "",
            "text": "No workspace is running for this project: start one with `beamtalk workspace start` "
                    "(or `beamtalk repl`)."}


def serve(workspace: str | None = None) -> int:
    # pygls logs to stderr through `logging`; keep it to warnings (stdout is the protocol).
    logging.basicConfig(level=logging.WARNING)
    server.workspace_name = workspace
    server.start_io()
    return 0
