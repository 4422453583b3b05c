"""Exceptions raised by the distribution layer.

Everything the dist package raises on purpose derives from :class:`DistError`,
so callers (the CLI, the REPL) can catch one type and print ``str(exc)`` to the
user without a traceback.  Each message is a complete sentence that says what
went wrong and, where we know it, what to do about it.  No message ever
contains the cookie: messages end up in terminals, logs and bug reports.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DistError",
    "DecodeError",
    "EpmdUnreachable",
    "NodeNotRegistered",
    "HandshakeError",
    "AuthenticationFailed",
    "TLSRefused",
    "ConnectionLost",
    "ProcessDown",
    "CallTimeout",
]


class DistError(Exception):
    """Base class for every error of the Erlang distribution layer."""


class DecodeError(DistError, ValueError):
    """Bytes that are not a valid external term.

    A ValueError too, because for callers that only parse data this is a bad
    value, not a broken connection.  ``offset`` is the byte position in the
    buffer that was being decoded when the problem was found.
    """

    def __init__(self, message: str, offset: int | None = None) -> None:
        self.offset = offset
        if offset is not None:
            message = f"{message} (at byte offset {offset})"
        super().__init__(message)


class EpmdUnreachable(DistError):
    """Nothing answers on the epmd port: usually no node was started."""

    def __init__(self, host: str, port: int = 4369, detail: str | None = None) -> None:
        self.host = host
        self.port = port
        msg = f"epmd is not reachable at {host}:{port} — is the workspace node running?"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


class NodeNotRegistered(DistError):
    """epmd is up but does not know the node name we asked for."""

    def __init__(self, name: str, host: str) -> None:
        self.name = name
        self.host = host
        super().__init__(f"node '{name}' is not registered with epmd on {host}")


class HandshakeError(DistError):
    """The distribution handshake failed for a reason other than the cookie."""


class TLSRefused(HandshakeError):
    """The TLS handshake under the distribution failed (no or a wrong certificate)."""


class AuthenticationFailed(HandshakeError):
    """The node rejected our digest, or answered with a digest we cannot verify.

    Both mean the two sides use different cookies.
    """

    def __init__(self, message: str | None = None) -> None:
        super().__init__(
            message
            or "authentication failed: the cookie does not match the node's cookie"
        )


class ConnectionLost(DistError):
    """The connection to the node is gone (node stopped, socket closed, or closed by us)."""

    def __init__(self, node: str, detail: str | None = None) -> None:
        self.node = node
        msg = f"connection to node {node} lost"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


class ProcessDown(DistError):
    """The process we were calling is dead, missing, or died during the call.

    ``reason`` is the Erlang exit reason as a decoded term (``Atom('noproc')``
    for a process that does not exist).
    """

    def __init__(self, process: str, node: str, reason: Any, reason_text: str) -> None:
        self.process = process
        self.node = node
        self.reason = reason
        if reason_text in ("noproc", "noconnection"):
            msg = f"process {process} on node {node} is not running ({reason_text})"
        else:
            msg = f"process {process} on node {node} exited during the call (reason: {reason_text})"
        super().__init__(msg)


class CallTimeout(DistError, TimeoutError):
    """A call got no reply in time.  Also a TimeoutError, so generic timeout handlers see it."""

    def __init__(self, process: str, node: str, timeout: float) -> None:
        self.process = process
        self.node = node
        self.timeout = timeout
        super().__init__(
            f"call to process {process} on node {node} got no reply within {timeout:g} s"
        )
