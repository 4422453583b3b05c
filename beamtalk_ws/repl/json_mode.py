"""`beamtalk repl --json`: one JSON object per line each way (DESIGN §3).

Requests run in order, one at a time, because each input is compiled against
the bindings the previous one left; only `interrupt` overtakes (it must reach
a running `eval`).  For each request every `output` line is written before
its one final reply.
"""

from __future__ import annotations

import asyncio
import json
import sys

from beamtalk_ws.workspace.errors import WorkspaceError

from .core import Repl

#: A tool asked explicitly: give the node longer than while typing (150 ms).
COMPLETE_TIMEOUT = 1.0


class JsonRepl:
    def __init__(self, repl: Repl, out=None):
        self.repl = repl
        self.out = out or sys.stdout
        self.completion = None
        # `:watch` reloads arrive as push lines, like background Transcript text
        repl.notify = lambda o: self.emit({"push": "reload", "ok": o.ok, "text": o.text,
                                           **({"warnings": o.warnings} if o.warnings else {})})

    def emit(self, obj: dict) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()

    async def handle(self, line: str) -> None:
        try:
            req = json.loads(line)
        except json.JSONDecodeError as e:
            self.emit({"id": None, "error": f"Invalid JSON request: {e.msg} at column {e.colno}"})
            return
        if not isinstance(req, dict):
            self.emit({"id": None, "error": "Invalid request: expected a JSON object"})
            return
        rid = req.get("id")
        try:
            reply = await self.dispatch(req, rid)
        except WorkspaceError as e:
            reply = {"error": str(e)}
        self.emit({"id": rid, **reply})

    def output_for(self, rid):
        return lambda text: self.emit({"id": rid, "output": text})

    async def dispatch(self, req: dict, rid) -> dict:
        op = req.get("op")
        if op == "eval":
            code = req.get("code")
            if not isinstance(code, str):
                return {"error": "eval needs a \"code\" string"}
            return _reply(await self.repl.evaluate(code, on_output=self.output_for(rid)))
        if op == "interrupt":
            await self.repl.client.interrupt()
            return {"value": "ok"}
        if op == "bindings":
            pairs = await self.repl.client.bindings()
            return {"bindings": dict(pairs)}
        if op == "load":
            path = req.get("path")
            if not isinstance(path, str):
                return {"error": "load needs a \"path\" string"}
            return _reply(await self.repl.load(path, on_output=self.output_for(rid)))
        if op == "reload":
            command = ":reload" + (f" {req['class']}" if req.get("class") else "")
            return _reply(await self.repl.evaluate(command, on_output=self.output_for(rid)))
        if op == "complete":
            return await self.complete(req)
        return {"error": f"Unknown operation: {op}"}

    async def complete(self, req: dict) -> dict:
        """`{"op": "complete", "code": "x pri", "cursor": 5}` -> `{"completions": [...]}`:
        the interactive completer's answers (completer.py), words that replace
        the one being typed before the cursor."""
        code = req.get("code")
        if not isinstance(code, str):
            return {"error": "complete needs a \"code\" string"}
        cursor = req.get("cursor", len(code))
        if not isinstance(cursor, int) or isinstance(cursor, bool) or not 0 <= cursor <= len(code):
            return {"error": f"complete: \"cursor\" must be an offset from 0 to {len(code)}"}
        if self.completion is None:
            from .completer import CompletionEngine
            self.completion = CompletionEngine(self.repl, timeout=COMPLETE_TIMEOUT)
        found = await self.completion.complete(code, cursor)
        return {"completions": [c.text for c in found]}

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        queue: asyncio.Queue = asyncio.Queue()
        worker = asyncio.ensure_future(self._work(queue))
        pushes = asyncio.ensure_future(self._push_transcript())
        urgent: set[asyncio.Task] = set()
        while True:
            line = await reader.readline()
            if not line:
                break
            text = line.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            if '"interrupt"' in text and _op(text) == "interrupt":
                t = asyncio.ensure_future(self.handle(text))
                urgent.add(t)
                t.add_done_callback(urgent.discard)
            else:
                queue.put_nowait(text)
        queue.put_nowait(None)
        await worker
        if urgent:
            await asyncio.gather(*urgent, return_exceptions=True)
        pushes.cancel()
        return 0

    async def _push_transcript(self) -> None:
        """Transcript text written in the background, as `{"push": "transcript",
        "text": ...}` lines (repl.md §8); text an eval writes is that eval's output."""
        client = self.repl.client
        try:
            await client.subscribe_transcript()
            while True:
                self.emit({"push": "transcript", "text": await client.next_transcript()})
        except Exception:                       # noqa: BLE001 - no Transcript, or the node is gone
            return

    async def _work(self, queue: asyncio.Queue) -> None:
        while True:
            text = await queue.get()
            if text is None:
                return
            await self.handle(text)


def _reply(outcome) -> dict:
    reply = {"value": outcome.text} if outcome.ok else {"error": outcome.text}
    if outcome.warnings:
        reply["warnings"] = list(outcome.warnings)
    if getattr(outcome, "notice", None):
        reply["notice"] = outcome.notice          # the session's evaluator was replaced
    return reply


def _op(text: str):
    try:
        req = json.loads(text)
    except json.JSONDecodeError:
        return None
    return req.get("op") if isinstance(req, dict) else None
