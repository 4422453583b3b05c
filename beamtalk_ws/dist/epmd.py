"""Client for the Erlang Port Mapper Daemon (epmd): where does a node listen?

Only the two read-only requests are needed: PORT_PLEASE2 (one node's port)
and NAMES (everything registered, for ``workspace list``-style tooling).  We
never register ourselves: a hidden client node that only connects out does
not need a listening port, so there is nothing to advertise.
"""

from __future__ import annotations

import asyncio
import os
import struct

from .errors import DistError, EpmdUnreachable, NodeNotRegistered

__all__ = ["EPMD_PORT", "port_please", "names", "NodeInfo"]

EPMD_PORT = 4369


def default_port() -> int:
    """epmd's port: `ERL_EPMD_PORT` when set, as for `erl` itself (a node started
    with it registers there, so its clients must ask there too), else 4369."""
    value = os.environ.get("ERL_EPMD_PORT", "")
    return int(value) if value.isdigit() and 0 < int(value) < 65536 else EPMD_PORT

PORT_PLEASE2_REQ = 122
PORT2_RESP = 119
NAMES_REQ = 110


class NodeInfo(tuple):
    """``(port, highest_version, lowest_version)`` from PORT2_RESP, with names."""

    __slots__ = ()

    def __new__(cls, port: int, highest_version: int, lowest_version: int) -> "NodeInfo":
        return tuple.__new__(cls, (port, highest_version, lowest_version))

    port = property(lambda self: self[0])
    highest_version = property(lambda self: self[1])
    lowest_version = property(lambda self: self[2])


async def _request(host: str, port: int, payload: bytes, timeout: float) -> bytes:
    """Send one request and read until epmd closes the socket (it always does)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, asyncio.TimeoutError) as e:
        raise EpmdUnreachable(host, port) from e
    try:
        writer.write(struct.pack(">H", len(payload)) + payload)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout)
    except asyncio.TimeoutError as e:
        raise EpmdUnreachable(host, port, "it accepted the connection but did not answer") from e
    except OSError as e:
        raise EpmdUnreachable(host, port, "the connection broke during the request") from e
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass


async def port_please(
    name: str, host: str = "127.0.0.1", port: int | None = None, timeout: float = 5.0
) -> NodeInfo:
    """Return ``(port, highest_version, lowest_version)`` of node ``name`` (the part before '@')."""
    port = port or default_port()
    alive = name.split("@", 1)[0]
    resp = await _request(host, port, bytes((PORT_PLEASE2_REQ,)) + alive.encode("utf-8"), timeout)
    if len(resp) < 2 or resp[0] != PORT2_RESP:
        if not resp:
            # epmd closes without answering when the name is unknown on some versions.
            raise NodeNotRegistered(alive, host)
        raise DistError(f"epmd at {host}:{port} sent an unexpected answer to a port request")
    if resp[1] != 0:
        raise NodeNotRegistered(alive, host)
    if len(resp) < 12:
        raise DistError(f"epmd at {host}:{port} sent a truncated port answer")
    node_port, _node_type, _proto, high, low = struct.unpack_from(">HBBHH", resp, 2)
    return NodeInfo(node_port, high, low)


async def names(host: str = "127.0.0.1", port: int | None = None, timeout: float = 5.0) -> list[tuple[str, int]]:
    """Return ``[(name, port), ...]`` for every node registered with epmd on ``host``."""
    port = port or default_port()
    resp = await _request(host, port, bytes((NAMES_REQ,)), timeout)
    if len(resp) < 4:
        raise DistError(f"epmd at {host}:{port} sent a truncated names answer")
    result = []
    for line in resp[4:].decode("utf-8", "replace").splitlines():
        # "name foo at port 12345"
        parts = line.split()
        if len(parts) >= 5 and parts[0] == "name" and parts[-3] == "at" and parts[-2] == "port":
            try:
                result.append((" ".join(parts[1:-3]), int(parts[-1])))
            except ValueError:
                continue
    return result
