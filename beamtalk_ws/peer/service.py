"""The peer's life: connect to the node, announce itself, serve requests
until the node goes away.

Two ways the node going away is noticed: the distribution connection drops,
or the port's pipe (our stdin) reaches end of file.  The second also covers
a node killed before it finished the handshake with us.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from pathlib import Path

from beamtalk_ws.dist import errors as dist_errors
from beamtalk_ws.dist.node import Node
from beamtalk_ws.dist.terms import Atom
from beamtalk_ws.workspace import cookie, tlsfiles
from beamtalk_ws.workspace.client import WorkspaceClient
from beamtalk_ws.workspace.paths import WorkspacePaths

from .compiling import Compiler
from .watching import Watches
from .writing import flush as write_changes

OWNER = Atom("beamtalk_compiler_peer")
COMPILE = Atom("compile")
WATCH = Atom("watch")
WRITEBACK = Atom("writeback")


def _stdin_closed(loop: asyncio.AbstractEventLoop, done: asyncio.Event) -> None:
    """Set `done` when the node closes our stdin (in a daemon thread: a
    blocking read must never hold up the exit)."""
    def read() -> None:
        try:
            while sys.stdin.buffer.read1(4096):
                pass
        except (OSError, ValueError):
            pass
        loop.call_soon_threadsafe(done.set)

    threading.Thread(target=read, name="stdin-eof", daemon=True).start()


async def serve(node_name: str, cookie_file: str, workspace_dir: str) -> int:
    secret = cookie.read(Path(cookie_file))
    alive = node_name.split("@", 1)[0]
    ws = WorkspacePaths(Path(workspace_dir).name, Path(workspace_dir), None)
    # A TLS workspace (`workspace start --tls`) admits only peers holding its
    # client certificate: the compiler peer uses the same files as a client.
    node = await Node.connect(node_name, secret, name=f"bt_peer_{alive}_{os.getpid()}", timeout=10.0,
                              **tlsfiles.connect_kwargs(ws))
    gone = asyncio.Event()
    _stdin_closed(asyncio.get_running_loop(), gone)
    tables = WorkspaceClient(node, ws, "compiler-peer", {})
    compiler = Compiler(tables)
    mbox = node.mailbox("beamtalk_compiler")
    watches = Watches(compiler, mbox)
    mbox.send(OWNER, (Atom("peer_ready"), mbox.pid, os.getpid()))

    async def requests() -> None:
        while True:
            msg = await mbox.receive()
            if isinstance(msg, tuple) and len(msg) == 3 and msg[0] == COMPILE:
                _, ref, op = msg
                if isinstance(op, tuple) and op[:1] == (WATCH,):
                    await watches.ensure([_text(r) for r in op[1]])
                    reply = Atom("ok")
                elif isinstance(op, tuple) and op[:1] == (WRITEBACK,):
                    reply = _writeback(op[1], watches)
                else:
                    reply = await compiler.handle(op)
                mbox.send(OWNER, (Atom("compiled"), ref, reply))
            elif isinstance(msg, tuple) and len(msg) == 2 and msg[0] == WATCH:
                watches.set([_text(r) for r in msg[1]])

    serving = asyncio.ensure_future(requests())
    stdin_eof = asyncio.ensure_future(gone.wait())
    try:
        await asyncio.wait([serving, stdin_eof, node.closed], return_when=asyncio.FIRST_COMPLETED)
    finally:
        watches.set([])
        serving.cancel()
        stdin_eof.cancel()
        if serving.done() and not serving.cancelled() and serving.exception() is not None:
            exc = serving.exception()
            if not isinstance(exc, dist_errors.ConnectionLost):
                raise exc
        await node.close()
    return 0


def _writeback(terms, watches: Watches):
    try:
        return write_changes(terms, watches.live_hashes)
    except Exception as e:  # noqa: BLE001 - one failed flush, not a dead peer
        import traceback

        traceback.print_exc(file=sys.stderr)
        return (Atom("error"), f"Internal error while writing the changes: {type(e).__name__}: {e}".encode())


def _text(b) -> str:
    return bytes(b).decode("utf-8") if isinstance(b, (bytes, bytearray)) else str(b)
