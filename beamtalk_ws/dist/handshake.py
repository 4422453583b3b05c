"""The connecting side of the distribution handshake, protocol version 6 (OTP 23+).

Sequence (2-byte length prefix on every message)::

    us   -> node   'N' flags:64 creation:32 nlen:16 name        send_name
    node -> us     's' status                                     "ok", "nok", "alive", ...
    node -> us     'N' flags:64 challenge:32 creation:32 nlen:16 name
    us   -> node   'r' our_challenge:32 digest:16                 proves we know the cookie
    node -> us     'a' digest:16                                  proves the node knows it

digest = MD5(cookie ++ decimal text of the challenge).  When the node does not
like our digest it simply closes the socket, so end-of-file right after our
challenge reply *is* the "wrong cookie" answer; we report it as such at once
instead of waiting for a timeout.

Capability flags: the OTP 25 mandatory set (0x1070F94, checked below against
the individual flags), plus what this client really implements: monitors (by
pid and by name), the new link protocol (UNLINK_ID), and version-4 node
containers (full 32-bit pid fields, 64-bit port ids, 5-word refs).  We do NOT
offer the atom cache in the distribution header nor fragmented messages, so
the node sends plain pass-through frames (type 112) with two complete terms.
"Hidden" has no flag of its own: it is the absence of DFLAG_PUBLISHED, which
keeps us out of ``nodes()`` and out of ``global``'s mesh.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass

from .errors import AuthenticationFailed, HandshakeError

__all__ = [
    "DFLAG_PUBLISHED",
    "DFLAG_EXTENDED_REFERENCES",
    "DFLAG_DIST_MONITOR",
    "DFLAG_FUN_TAGS",
    "DFLAG_DIST_MONITOR_NAME",
    "DFLAG_NEW_FUN_TAGS",
    "DFLAG_EXTENDED_PIDS_PORTS",
    "DFLAG_EXPORT_PTR_TAG",
    "DFLAG_BIT_BINARIES",
    "DFLAG_NEW_FLOATS",
    "DFLAG_DIST_HDR_ATOM_CACHE",
    "DFLAG_UTF8_ATOMS",
    "DFLAG_MAP_TAG",
    "DFLAG_BIG_CREATION",
    "DFLAG_FRAGMENTS",
    "DFLAG_HANDSHAKE_23",
    "DFLAG_UNLINK_ID",
    "DFLAG_V4_NC",
    "MANDATORY_FLAGS_25",
    "OUR_FLAGS",
    "HandshakeResult",
    "handshake",
    "gen_digest",
    "normalize_cookie",
]

DFLAG_PUBLISHED = 0x1
DFLAG_ATOM_CACHE = 0x2
DFLAG_EXTENDED_REFERENCES = 0x4
DFLAG_DIST_MONITOR = 0x8
DFLAG_FUN_TAGS = 0x10
DFLAG_DIST_MONITOR_NAME = 0x20
DFLAG_HIDDEN_ATOM_CACHE = 0x40
DFLAG_NEW_FUN_TAGS = 0x80
DFLAG_EXTENDED_PIDS_PORTS = 0x100
DFLAG_EXPORT_PTR_TAG = 0x200
DFLAG_BIT_BINARIES = 0x400
DFLAG_NEW_FLOATS = 0x800
DFLAG_UNICODE_IO = 0x1000
DFLAG_DIST_HDR_ATOM_CACHE = 0x2000
DFLAG_SMALL_ATOM_TAGS = 0x4000
DFLAG_UTF8_ATOMS = 0x10000
DFLAG_MAP_TAG = 0x20000
DFLAG_BIG_CREATION = 0x40000
DFLAG_SEND_SENDER = 0x80000
DFLAG_BIG_SEQTRACE_LABELS = 0x100000
DFLAG_EXIT_PAYLOAD = 0x400000
DFLAG_FRAGMENTS = 0x800000
DFLAG_HANDSHAKE_23 = 0x1000000
DFLAG_UNLINK_ID = 0x2000000
DFLAG_SPAWN = 1 << 32
DFLAG_NAME_ME = 1 << 33
DFLAG_V4_NC = 1 << 34
DFLAG_ALIAS = 1 << 35

MANDATORY_FLAGS_25 = (
    DFLAG_EXTENDED_REFERENCES
    | DFLAG_FUN_TAGS
    | DFLAG_EXTENDED_PIDS_PORTS
    | DFLAG_NEW_FUN_TAGS
    | DFLAG_EXPORT_PTR_TAG
    | DFLAG_BIT_BINARIES
    | DFLAG_NEW_FLOATS
    | DFLAG_UTF8_ATOMS
    | DFLAG_MAP_TAG
    | DFLAG_BIG_CREATION
    | DFLAG_HANDSHAKE_23
)
assert MANDATORY_FLAGS_25 == 0x1070F94

OUR_FLAGS = (
    MANDATORY_FLAGS_25
    | DFLAG_DIST_MONITOR
    | DFLAG_DIST_MONITOR_NAME
    | DFLAG_UNLINK_ID
    | DFLAG_V4_NC
)

PROTOCOL_VERSION = 6


@dataclass(frozen=True)
class HandshakeResult:
    """What we learnt about the peer; ``flags`` is what both sides support."""

    peer_name: str
    peer_flags: int
    peer_creation: int
    flags: int


def normalize_cookie(cookie: bytes | str) -> bytes:
    """The cookie as the bytes the node hashes.

    Erlang hashes the characters of its cookie atom, which for a cookie file
    are the file's bytes; a ``str`` is taken as UTF-8 text, i.e. the text of
    such a file.  Surrounding whitespace is not part of a cookie.
    """
    if isinstance(cookie, str):
        cookie = cookie.encode("utf-8")
    elif not isinstance(cookie, (bytes, bytearray)):
        raise TypeError("the cookie must be bytes or str")
    cookie = bytes(cookie).strip()
    if not cookie:
        raise ValueError("the cookie is empty")
    return cookie


def gen_digest(challenge: int, cookie: bytes) -> bytes:
    """MD5 over the cookie followed by the challenge in decimal, as ``dist_util`` computes it."""
    return hashlib.md5(cookie + str(challenge).encode("ascii")).digest()


_STATUS_TEXT = {
    "nok": "it is connecting to us at the same time (status nok)",
    "not_allowed": (
        "it does not allow a connection from our node name (status not_allowed); "
        "a node started with -name only talks to long names, -sname to short names"
    ),
    "alive": "it already has a connection from a node with our name (status alive)",
}


async def _read_packet(reader: asyncio.StreamReader, wide: bool = False) -> bytes:
    if wide:
        (n,) = struct.unpack(">I", await reader.readexactly(4))
    else:
        (n,) = struct.unpack(">H", await reader.readexactly(2))
    return await reader.readexactly(n)


def _packet(payload: bytes, wide: bool = False) -> bytes:
    return struct.pack(">I" if wide else ">H", len(payload)) + payload


async def handshake(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    *,
    our_name: str,
    cookie: bytes | str,
    creation: int,
    peer_label: str,
    flags: int = OUR_FLAGS,
    timeout: float = 5.0,
    wide: bool = False,
) -> HandshakeResult:
    """Run the handshake on a freshly connected socket; raise on any failure.

    ``peer_label`` is the node name used in error messages.  ``wide``: the
    handshake messages carry 4-byte lengths, as OTP's TLS distribution
    (`inet_tls_dist`) frames them; plain TCP uses 2 bytes.
    """
    cookie_b = normalize_cookie(cookie)
    try:
        return await asyncio.wait_for(
            _handshake(reader, writer, our_name, cookie_b, creation, peer_label, flags, wide),
            timeout,
        )
    except asyncio.TimeoutError:
        raise HandshakeError(
            f"the handshake with node {peer_label} did not finish within {timeout:g} s"
        ) from None


async def _handshake(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    our_name: str,
    cookie: bytes,
    creation: int,
    peer_label: str,
    flags: int,
    wide: bool = False,
) -> HandshakeResult:
    name_b = our_name.encode("utf-8")
    stage = "before answering our name"
    try:
        # 1. send_name
        writer.write(_packet(b"N" + struct.pack(">QIH", flags, creation, len(name_b)) + name_b, wide))
        await writer.drain()

        # 2. recv_status
        msg = await _read_packet(reader, wide)
        if not msg or msg[:1] != b"s":
            raise HandshakeError(f"node {peer_label} sent an unexpected handshake message")
        status = msg[1:].decode("ascii", "replace")
        if status == "alive":
            writer.write(_packet(b"sfalse", wide))
            await writer.drain()
        if status not in ("ok", "ok_simultaneous"):
            why = _STATUS_TEXT.get(status, f"status {status!r}")
            raise HandshakeError(f"node {peer_label} refused the connection: {why}")

        # 3. recv_challenge
        stage = "before sending its challenge"
        msg = await _read_packet(reader, wide)
        if len(msg) < 19 or msg[:1] != b"N":
            raise HandshakeError(
                f"node {peer_label} sent a challenge we do not understand "
                "(is it older than OTP 23?)"
            )
        peer_flags, challenge, peer_creation, nlen = struct.unpack_from(">QIIH", msg, 1)
        peer_name = msg[19 : 19 + nlen].decode("utf-8", "replace")
        if peer_flags & MANDATORY_FLAGS_25 != MANDATORY_FLAGS_25:
            raise HandshakeError(
                f"node {peer_label} lacks distribution features this client requires "
                "(it must be OTP 23 or newer)"
            )

        # 4. send_challenge_reply
        our_challenge = secrets.randbits(32)
        writer.write(_packet(b"r" + struct.pack(">I", our_challenge) + gen_digest(challenge, cookie), wide))
        await writer.drain()

        # 5. recv_challenge_ack; EOF here means the node rejected our digest.
        stage = "after our challenge reply"
        try:
            msg = await _read_packet(reader, wide)
        except (asyncio.IncompleteReadError, ConnectionError):
            raise AuthenticationFailed() from None
        if len(msg) != 17 or msg[:1] != b"a":
            raise HandshakeError(f"node {peer_label} sent a malformed challenge acknowledgement")
        if not hmac.compare_digest(msg[1:], gen_digest(our_challenge, cookie)):
            # The node accepted us but cannot prove it knows our cookie.
            raise AuthenticationFailed()
    except (asyncio.IncompleteReadError, ConnectionError) as e:
        raise HandshakeError(f"node {peer_label} closed the connection {stage}") from e

    return HandshakeResult(
        peer_name=peer_name,
        peer_flags=peer_flags,
        peer_creation=peer_creation,
        flags=flags & peer_flags,
    )
