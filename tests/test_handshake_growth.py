"""Unauthenticated peers and the node's growth (issue 15, item 2).

10 000 distribution handshakes from fresh node names with a wrong cookie,
driven with the project's own handshake code.  The node's log grows by a
bounded amount (beamtalk_dist_guard thins out the kernel's "connection
attempt rejected" lines).  The atom table is measured and reported: OTP 25
interns the peer's name before it checks the cookie (see the README), so
the test records the figure rather than bounding it.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from beamtalk_ws.dist import epmd
from beamtalk_ws.dist.errors import AuthenticationFailed, DistError
from beamtalk_ws.dist.handshake import handshake
from beamtalk_ws.repl.core import Repl
from beamtalk_ws.workspace import launcher, paths
from beamtalk_ws.workspace.client import WorkspaceClient

ATTEMPTS = 10_000
WRONG_COOKIE = b"not-the-cookie-" + b"x" * 16


async def attempt(port: int, name: str, node: str) -> bool:
    """One handshake with a wrong cookie; True when the node refused it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        await handshake(reader, writer, our_name=name, cookie=WRONG_COOKIE, creation=1,
                        peer_label=node, timeout=30)
    except AuthenticationFailed:
        return True
    except DistError:
        return False
    finally:
        writer.close()
    return False


async def storm(ws, n: int, batch: int = 40) -> int:
    port = (await epmd.port_please(ws.node_name.split("@")[0])).port
    tag = uuid.uuid4().hex[:6]
    refused = 0
    for start in range(0, n, batch):
        names = [f"stranger{tag}x{i}@localhost" for i in range(start, min(n, start + batch))]
        results = await asyncio.gather(*(attempt(port, nm, ws.node_name) for nm in names))
        refused += sum(results)
    return refused


@pytest.fixture
def lone_workspace(bt_home):
    """A workspace of its own: its atom table and log see only this test."""
    ws = paths.resolve("hs-" + uuid.uuid4().hex[:8])
    launcher.start(ws, idle_timeout=None)
    try:
        yield ws
    finally:
        launcher.kill(ws)


async def test_ten_thousand_strangers_leave_a_bounded_log(lone_workspace):
    ws = lone_workspace
    client = await WorkspaceClient.connect(ws, session="hs")
    try:
        repl = Repl(client)

        async def atoms() -> int:
            out = await repl.evaluate("Erlang erlang system_info: #atom_count")
            assert out.ok, out.text
            return int(out.text)

        await storm(ws, 20)                      # warm up the accept path
        await asyncio.sleep(0.5)
        atoms_before, log_before = await atoms(), ws.log.stat().st_size
        refused = await storm(ws, ATTEMPTS)
        await asyncio.sleep(1.0)                 # the last log lines are written
        atoms_after, log_after = await atoms(), ws.log.stat().st_size
        print(f"\n{ATTEMPTS} strangers: {refused} refused; atoms {atoms_before} -> {atoms_after} "
              f"(+{atoms_after - atoms_before}); node.log +{log_after - log_before} bytes")
        assert refused == ATTEMPTS
        assert log_after - log_before <= 64 * 1024
        # The workspace is still fine.
        assert (await repl.evaluate("3 + 4")).text == "7"
        # What the log says about them: the first ten, then a count.
        text = ws.log.read_text(errors="replace")
        assert "(10000 failed connection attempts since the node started" in text
    finally:
        await client.close()
