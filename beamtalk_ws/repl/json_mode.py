"""`beamtalk repl --json`: one JSON object per line each way (DESIGN §3).

Requests run in order, one at a time, because each input is compiled against
the bindings the previous one left; only `interrupt` and `stdin` overtake (they must reach
a running `eval`).  For each request every `output` line is written before
its one final reply.

The promise tools build on is *one final reply per request line, whatever
the line holds*: invalid, huge or deeply nested JSON, non-finite numbers, a
line over :data:`MAX_LINE` bytes, a failure inside the compiler, the node
dying.  A client that stops answering is worse than any error, so every path
from a line to its reply ends in an `error` reply when nothing better is
possible, and the loop keeps serving.  Replies are always valid JSON (no
NaN, lone surrogates escaped).
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from typing import Awaitable, Callable

from beamtalk_ws.dist.errors import ConnectionLost
from beamtalk_ws.workspace import launcher
from beamtalk_ws.workspace.errors import WorkspaceError

from . import revive
from .core import Repl

#: A tool asked explicitly: give the node longer than while typing (150 ms).
COMPLETE_TIMEOUT = 1.0
#: The longest request line read; a longer one is skipped and answered with an error.
MAX_LINE = 64 * 1024 * 1024
_CHUNK = 1 << 20
_MAX_DIGITS = 4000        # below Python's own int/str conversion limit (4300)
_OPS = ("eval", "interrupt", "stdin", "bindings", "load", "reload", "complete")
#: Requests that overtake the running one: they are about it.
_URGENT = ("interrupt", "stdin")


class _TooLong:
    def __init__(self, size: int):
        self.size = size


class _Invalid:
    """A line that is not a request: answered with `error` and id null (or the
    line's id, when it could still be read)."""

    def __init__(self, message: str, rid=None):
        self.message = message
        self.rid = rid


class JsonRepl:
    def __init__(self, repl: Repl, out=None, *, max_line: int = MAX_LINE,
                 reopen: Callable[[], Awaitable] | None = None, revive: bool = True):
        self.repl = repl
        self.out = out or sys.stdout
        self.max_line = max_line
        self.completion = None
        #: starts (if needed) and connects a new client after the node died
        self.reopen = reopen or self._default_reopen
        #: false for a node beamtalk did not start (`repl --node`): it is not ours to restart
        self.revive = revive
        self.node_info = launcher.read_node_info(repl.client.ws) if revive else None
        self._reviving = asyncio.Lock()
        #: set by `:detach` (or `:quit`) on a node we attached to: the answer to every later request
        self.detached: str | None = None
        self._pushes: asyncio.Task | None = None
        #: the line a running request waits for (need-input), answered by `stdin`
        self._stdin_wait: asyncio.Future | None = None
        #: the requests have ended: no `stdin` can come, a read gets eof at once
        self._input_ended = False
        #: requests queued or running that may read (not interrupt / stdin)
        self._busy = 0
        #: `stdin` lines sent before their eval asked (a batch): (line, reply future)
        self._held: list[tuple[str | None, asyncio.Future]] = []
        # `:watch` reloads arrive as push lines, like background Transcript text
        repl.notify = lambda o: self.emit({"push": "reload", "ok": o.ok, "text": o.text,
                                           **({"warnings": o.warnings} if o.warnings else {})})

    # ------------------------------------------------------------ writing

    def emit(self, obj: dict) -> None:
        self.out.write(_dumps(obj) + "\n")
        self.out.flush()

    # ------------------------------------------------------------ one request

    async def handle(self, item) -> None:
        """Answer one line (a parsed request, or why it is not one): exactly one final reply."""
        if isinstance(item, _Invalid):
            self.emit({"id": item.rid, "error": item.message})
            return
        if isinstance(item, _TooLong):
            self.emit({"id": None, "error": f"Request line too long: {item.size} bytes (the limit is "
                                             f"{self.max_line} bytes); it was skipped"})
            return
        rid = item.get("id")
        try:
            reply = await self.run_request(item, rid)
        except Exception as e:                  # noqa: BLE001 - the one reply must still be sent
            reply = {"error": _internal(e)}
        self.emit({"id": rid, **reply})

    async def run_request(self, req: dict, rid) -> dict:
        if self.detached is not None:
            return {"error": self.detached}
        if not self._connected():
            return {"error": await self._revive(during=False)}
        if req.get("op") not in _URGENT:
            self.repl.client.on_input = lambda prompt: self._need_input(rid, prompt)
        try:
            return await self.dispatch(req, rid)
        except (WorkspaceError, ConnectionLost) as e:
            if not self._connected():
                return {"error": await self._revive(during=True)}
            return {"error": str(e)}

    async def _leave(self) -> None:
        """`:detach` from a node beamtalk did not start: close the connection as
        the interactive REPL does when it quits, and say so to later requests
        (they must not run on the node the user just left)."""
        node = self.repl.client.ws.node_name
        self.detached = (f"Detached from {node}: this client no longer talks to it. Attach again with "
                         f"`beamtalk repl --json --node {node}`.")
        if self._pushes is not None:
            self._pushes.cancel()
        try:
            await self.repl.client.close()
        except Exception:                       # noqa: BLE001 - the node may have gone with --unload
            pass

    def _connected(self) -> bool:
        return self.repl.client.node.is_connected

    def output_for(self, rid):
        return lambda text: self.emit({"id": rid, "output": text})

    async def dispatch(self, req: dict, rid) -> dict:
        op = req.get("op")
        if not isinstance(op, str):
            return {"error": "Invalid request: \"op\" must be a string, one of " + ", ".join(_OPS)}
        if op == "eval":
            code = req.get("code")
            if not isinstance(code, str):
                return {"error": "eval needs a \"code\" string"}
            outcome = await self.repl.evaluate(code, on_output=self.output_for(rid))
            if outcome.ok and outcome.quit and not self.revive:
                await self._leave()
            return _reply(outcome)
        if op == "interrupt":
            self._answer_stdin(None)        # a request waiting for a line is interrupted too
            await self.repl.client.interrupt()
            return {"value": "ok"}
        if op == "stdin":
            value = req.get("value")
            if not isinstance(value, str):
                return {"error": "stdin needs a \"value\" string: the line typed, or \"eof\""}
            line = None if value == "eof" else value if value.endswith("\n") else value + "\n"
            if self._answer_stdin(line):
                return {"value": "ok"}
            if self._busy:
                # an eval sent before this line has not asked yet: keep the
                # line for its read, answered when it is read (or dropped)
                held = asyncio.get_running_loop().create_future()
                self._held.append((line, held))
                return await held
            return {"error": "No evaluation is waiting for input (a need-input status asks for it)"}
        if op == "bindings":
            pairs = await self.repl.client.bindings()
            return {"bindings": dict(pairs)}
        if op == "load":
            path = req.get("path")
            if not isinstance(path, str) or not path or "\0" in path:
                return {"error": "load needs a \"path\" string (a file or directory name)"}
            return _reply(await self.repl.load(path, on_output=self.output_for(rid)))
        if op == "reload":
            cls = req.get("class")
            if cls is not None and not isinstance(cls, str):
                return {"error": "reload: \"class\" must be a class name"}
            command = ":reload" + (f" {cls}" if cls else "")
            return _reply(await self.repl.evaluate(command, on_output=self.output_for(rid)))
        if op == "complete":
            return await self.complete(req)
        return {"error": f"Unknown operation: {_short(op)}"}

    async def _need_input(self, rid, prompt: str):
        """The running request reads a line (repl.md §8): say so, and wait for
        the `stdin` request that answers it."""
        if self._held:
            line, held = self._held.pop(0)
            if not held.done():
                held.set_result({"value": "ok"})
            return line
        if self._input_ended:
            return None
        fut = asyncio.get_running_loop().create_future()
        self._stdin_wait = fut
        self.emit({"id": rid, "status": ["need-input"], "prompt": prompt})
        try:
            return await fut
        finally:
            self._stdin_wait = None

    def _answer_stdin(self, line) -> bool:
        fut = self._stdin_wait
        if fut is None or fut.done():
            return False
        fut.set_result(line)
        return True

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

    # ------------------------------------------------------------ a dead node

    async def _revive(self, during: bool) -> str:
        """Report the dead node and connect to a new one (started if needed)."""
        async with self._reviving:
            old = self.repl.client
            if old.node.is_connected:       # another request revived it meanwhile
                return "The workspace node was restarted; send the request again."
            if not self.revive:
                return old.lost_text()
            text = revive.death_report(old.ws, self.node_info, during)
            try:
                new = await self.reopen()
            except WorkspaceError as e:
                return text + f"\nNo new node: {e}"
            self.repl.client = new
            self.completion = None
            self.node_info = launcher.read_node_info(new.ws)
            try:
                await old.close()
            except Exception:                   # noqa: BLE001 - the old connection is gone anyway
                pass
            self._start_pushes()
            who = (f"{self.node_info.node} (OS pid {self.node_info.os_pid})" if self.node_info
                   else new.ws.node_name)
            # The new node restored what the old one had stored (durable state):
            # bindings, classes and globals up to the last completed evaluation;
            # live processes (actors) are gone.
            kept = (f" {self.node_info.restored}; live actors and processes of the old one are gone"
                    if self.node_info and self.node_info.restored else
                    ": the bindings and actors of the old one are gone")
            return text + f"\nConnected to a new node {who}{kept}; send the request again."

    async def _default_reopen(self):
        from .attach import idle_timeout_from, open_client

        client = self.repl.client
        return await open_client(client.ws, client.session, start="auto",
                                 idle_timeout=idle_timeout_from(None))

    # ------------------------------------------------------------ the loop

    async def run(self) -> int:
        if not _pollable(sys.stdin):
            return await self.serve(_FileReader(sys.stdin.fileno()))
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=_CHUNK)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        return await self.serve(reader)

    async def serve(self, reader: asyncio.StreamReader) -> int:
        """Answer every line of `reader` until its end."""
        queue: asyncio.Queue = asyncio.Queue()
        worker = asyncio.ensure_future(self._work(queue))
        self._start_pushes()
        urgent: set[asyncio.Task] = set()
        lines = _Lines(reader, self.max_line)
        while True:
            raw = await lines.next()
            if raw is None:
                break
            item = raw if isinstance(raw, _TooLong) else _parse(raw)
            if item is None:
                continue
            if isinstance(item, dict) and item.get("op") in _URGENT:
                t = asyncio.ensure_future(self.handle(item))
                urgent.add(t)
                t.add_done_callback(urgent.discard)
            else:
                self._busy += 1
                queue.put_nowait(item)
        # nothing can answer a read any more: one waiting now, and any later
        # one, reads eof (else the batch waits for ever)
        self._input_ended = True
        self._answer_stdin(None)
        queue.put_nowait(None)
        await worker
        if urgent:
            await asyncio.gather(*urgent, return_exceptions=True)
        if self._pushes is not None:
            self._pushes.cancel()
        return 0

    def _start_pushes(self) -> None:
        if self._pushes is not None:
            self._pushes.cancel()
        self._pushes = asyncio.ensure_future(self._push_transcript())

    async def _push_transcript(self) -> None:
        """Transcript text written in the background, as `{"push": "transcript",
        "text": ...}` lines (repl.md §8); text an eval writes is that eval's output.
        Output of a process an earlier input left running (its `io:format`, the
        report of its crash) comes as `{"push": "output", "text": ...}`: the
        interactive REPL shows both kinds, and a JSON client must not lose one."""
        client = self.repl.client
        # such output that arrives while a request runs is taken by that request's
        # receive loop, which hands it here
        client.background = lambda text: self.emit({"push": "output", "text": text})
        try:
            await client.subscribe_transcript()
        except Exception:                       # noqa: BLE001 - no Transcript: process output still comes
            pass
        try:
            while True:
                kind, text = await client.next_background()
                self.emit({"push": "transcript" if kind == "transcript" else "output", "text": text})
        except Exception:                       # noqa: BLE001 - the node is gone
            return

    async def _work(self, queue: asyncio.Queue) -> None:
        while True:
            item = await queue.get()
            if item is None:
                return
            try:
                await self.handle(item)
            finally:
                self._busy -= 1
                if not self._busy:
                    self._drop_held()

    def _drop_held(self) -> None:
        """Every request sent before the held `stdin` lines has finished
        without reading them: say so in their replies."""
        held, self._held = self._held, []
        for _line, fut in held:
            if not fut.done():
                fut.set_result({"error": "No evaluation read this input: the requests sent before it "
                                         "finished without reading a line"})


def _pollable(stream) -> bool:
    """Whether the event loop can watch `stream`: a pipe, a socket or a
    terminal.  A regular file (`repl --json < requests.jsonl`) or /dev/null
    cannot be registered with epoll."""
    import os
    import stat

    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stream.isatty()


class _FileReader:
    """`read(n)` of a file descriptor epoll cannot watch (a regular file, /dev/null),
    on the loop's executor: such reads never block for long."""

    def __init__(self, fd: int):
        self.fd = fd

    async def read(self, n: int) -> bytes:
        import os

        try:
            return await asyncio.get_running_loop().run_in_executor(None, os.read, self.fd, n)
        except OSError:
            return b""


class _Lines:
    """Lines of a stream, each at most `limit` bytes: a longer one is read past
    (never held whole) and comes out as a :class:`_TooLong`."""

    def __init__(self, reader: asyncio.StreamReader, limit: int):
        self.reader = reader
        self.limit = limit
        self.buf = bytearray()
        self.scanned = 0
        self.eof = False

    async def next(self):
        """The next line without its newline, a _TooLong, or None at the end."""
        while True:
            i = self.buf.find(b"\n", self.scanned)
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[: i + 1]
                self.scanned = 0
                return _TooLong(len(line)) if len(line) > self.limit else line
            self.scanned = len(self.buf)
            if len(self.buf) > self.limit:
                return await self._skip()
            if self.eof:
                if not self.buf:
                    return None
                line = bytes(self.buf)
                self.buf.clear()
                self.scanned = 0
                return line
            chunk = await self.reader.read(_CHUNK)
            if chunk:
                self.buf += chunk
            else:
                self.eof = True

    async def _skip(self) -> _TooLong:
        size = len(self.buf)
        self.buf.clear()
        self.scanned = 0
        while True:
            chunk = await self.reader.read(_CHUNK)
            if not chunk:
                self.eof = True
                return _TooLong(size)
            j = chunk.find(b"\n")
            if j >= 0:
                self.buf += chunk[j + 1:]
                return _TooLong(size + j)
            size += len(chunk)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {_short(text)} is too large for a finite float")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > _MAX_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits is too long (at most {_MAX_DIGITS})")
    return int(text)


def _parse(raw: bytes):
    """A request dict, an :class:`_Invalid` saying why the line is not one, or None (blank)."""
    if raw.startswith(b"\xef\xbb\xbf") and raw[3:].strip():
        raw = raw[3:]                   # a UTF-8 byte order mark (RFC 8259 §8.1 lets us ignore it);
        #                                 a line of a BOM alone is not blank: it is answered
    if not raw.strip():                 # blank: ASCII white space only, as JSON counts it
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        # JSON text is UTF-8 (RFC 8259 §8.1).  Decoding with replacement would
        # hand the parser U+FFFD and the tool a puzzling "Unexpected character";
        # say which byte, and keep the id when the rest of the line has one.
        why = (f"Invalid JSON request: the line is not valid UTF-8 (byte 0x{raw[e.start]:02x} "
               f"at column {e.start + 1}); JSON text must be encoded as UTF-8")
        guess = _parse(raw.decode("utf-8", errors="replace").encode("utf-8"))
        return _Invalid(why, guess.get("id") if isinstance(guess, dict) else None)
    try:
        req = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                         parse_int=_bounded_int)
    except json.JSONDecodeError as e:
        msg = e.msg[:-3] if e.msg.endswith(" at") else e.msg    # "Unterminated string starting at"
        return _Invalid(f"Invalid JSON request: {msg} at column {e.colno}")
    except RecursionError:
        return _Invalid("Invalid JSON request: nested too deeply")
    except ValueError as e:             # NaN/Infinity, a float out of range, an integer too long
        return _Invalid(f"Invalid JSON request: {_short(str(e), 200)}")
    if not isinstance(req, dict):
        return _Invalid("Invalid request: expected a JSON object")
    rid = req.get("id")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (str, int, float))):
        return _Invalid("Invalid request: \"id\" must be a string, a number or null")
    bad = _surrogate_field(req)
    if bad:
        return _Invalid(f"Invalid request: \"{bad}\" contains an unpaired UTF-16 surrogate "
                        "(\\ud800-\\udfff), which is not a character", rid)
    return req


def _surrogate_field(req: dict) -> str | None:
    for key in ("code", "path", "class", "op"):
        v = req.get(key)
        if isinstance(v, str) and _has_surrogate(v):
            return key
    return None


def _has_surrogate(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _dumps(obj: dict) -> str:
    """One line of valid JSON for any reply: UTF-8 where possible, escapes where the
    text holds lone surrogates (an echoed id), never NaN."""
    try:
        text = json.dumps(obj, ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as e:
        return json.dumps({"id": None, "error": f"Internal error: the reply could not be written as JSON ({e})"})
    if _has_surrogate(text):
        text = json.dumps(obj, ensure_ascii=True, allow_nan=False)
    return text


def _short(text, n: int = 60) -> str:
    s = text if isinstance(text, str) else repr(text)
    return s if len(s) <= n else s[:n] + "…"


def _internal(e: BaseException) -> str:
    msg = _short(str(e), 300) or "no details"
    return (f"Internal error ({type(e).__name__}: {msg}). The request was not completed "
            "(bindings change only when an evaluation succeeds); please report this input.")


def _reply(outcome) -> dict:
    reply = {"value": outcome.text} if outcome.ok else {"error": outcome.text}
    if outcome.warnings:
        reply["warnings"] = list(outcome.warnings)
    if getattr(outcome, "notice", None):
        reply["notice"] = outcome.notice          # the session's evaluator was replaced
    return reply
