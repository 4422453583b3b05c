"""One established distribution connection: framing, ticks, control messages.

After the handshake every packet has a 4-byte length.  Length 0 is a tick
(keep-alive): the node drops a peer it has not heard from for
``net_ticktime`` seconds, so we answer each tick at once and also tick on our
own when we have been quiet.  Because we negotiated neither the atom cache
nor fragmentation, every other packet is a pass-through frame::

    112 | 131 ControlTuple | [131 Payload]

This module turns frames into calls on a :class:`ControlHandler` (one method
per kind of signal, already unpacked) and offers the reverse as ``send_*``
methods.  It knows nothing about mailboxes; routing is ``node.py``'s job.

A frame longer than the codec's size cap (:func:`codec.max_size`, plus room
for the control message) is never read whole: its head is read to learn the
recipient, the rest is skipped in chunks, and the recipient gets an
:class:`UndecodableMessage` saying so (a waiting call fails instead of hanging).
"""

from __future__ import annotations

import asyncio
import logging
import struct
from typing import Any

from . import codec
from .codec import decode_from, encode
from .errors import ConnectionLost, DecodeError
from .handshake import DFLAG_UNLINK_ID
from .terms import Atom, Pid, Reference

__all__ = [
    "Connection",
    "ControlHandler",
    "UndecodableMessage",
    "PASS_THROUGH",
    "LINK",
    "SEND",
    "EXIT",
    "UNLINK",
    "REG_SEND",
    "EXIT2",
    "MONITOR_P",
    "DEMONITOR_P",
    "MONITOR_P_EXIT",
    "UNLINK_ID",
    "UNLINK_ID_ACK",
]

log = logging.getLogger(__name__)

PASS_THROUGH = 112

LINK = 1
SEND = 2
EXIT = 3
UNLINK = 4
NODE_LINK = 5
REG_SEND = 6
GROUP_LEADER = 7
EXIT2 = 8
SEND_TT = 12
EXIT_TT = 13
REG_SEND_TT = 16
EXIT2_TT = 18
MONITOR_P = 19
DEMONITOR_P = 20
MONITOR_P_EXIT = 21
SEND_SENDER = 22
SEND_SENDER_TT = 23
PAYLOAD_EXIT = 24
PAYLOAD_EXIT_TT = 25
PAYLOAD_EXIT2 = 26
PAYLOAD_EXIT2_TT = 27
PAYLOAD_MONITOR_P_EXIT = 28
ALIAS_SEND = 33
ALIAS_SEND_TT = 34
UNLINK_ID = 35
UNLINK_ID_ACK = 36

_LEN = struct.Struct(">I")
_TICK = b"\0\0\0\0"
_CONTROL_ROOM = 1 << 20     # a frame may exceed the term cap by this much (its control message)
_SKIP_CHUNK = 1 << 20
_EMPTY_ATOM = Atom("")


class UndecodableMessage:
    """Stands in for a message (or exit reason) that arrived but cannot be decoded.

    Dropping it silently would leave a ``call`` waiting until its timeout;
    delivering this lets the receiver see what happened.  ``error`` is the
    :class:`DecodeError`, ``data`` the raw bytes of the term.
    """

    __slots__ = ("error", "data")

    def __init__(self, error: DecodeError, data: bytes) -> None:
        self.error = error
        self.data = data

    def __repr__(self) -> str:
        return f"UndecodableMessage({str(self.error)!r})"


class ControlHandler:
    """Receiver of the signals of one connection.  Every method defaults to ignoring."""

    def on_send(self, to: Pid, msg: Any, sender: Pid | None) -> None:
        pass

    def on_reg_send(self, sender: Pid, name: Atom, msg: Any) -> None:
        pass

    def on_alias_send(self, sender: Pid, alias: Reference, msg: Any) -> None:
        pass

    def on_link(self, sender: Pid, to: Pid) -> None:
        pass

    def on_unlink(self, sender: Pid, to: Pid, unlink_id: int | None) -> None:
        """``unlink_id`` is None for the old UNLINK signal."""

    def on_unlink_ack(self, sender: Pid, to: Pid, unlink_id: int) -> None:
        pass

    def on_exit(self, sender: Pid, to: Pid, reason: Any, via_link: bool) -> None:
        """EXIT (a link broke, ``via_link``) or EXIT2 (``exit(Pid, Reason)``)."""

    def on_monitor(self, sender: Pid, target: Pid | Atom, ref: Reference) -> None:
        pass

    def on_demonitor(self, sender: Pid, target: Pid | Atom, ref: Reference) -> None:
        pass

    def on_monitor_exit(self, target: Pid | Atom, to: Pid, ref: Reference, reason: Any) -> None:
        pass

    def connection_lost(self, detail: str) -> None:
        pass


class Connection:
    """A framed distribution connection driving a :class:`ControlHandler`.

    ``start()`` launches the reader and the ticker; ``close()`` stops them.
    When the socket ends for any other reason the handler's
    ``connection_lost`` is called exactly once.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        handler: ControlHandler,
        *,
        peer_name: str,
        flags: int,
        tick_interval: float = 15.0,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._handler = handler
        self.peer_name = peer_name
        self.flags = flags
        self.tick_interval = tick_interval
        self._closed = False
        self._wrote_since_tick = False
        self._tasks: list[asyncio.Task] = []
        self.bytes_received = 0
        self.frames_received = 0
        self.ticks_received = 0
        #: length of the frame being dispatched (mailboxes count queued bytes with it)
        self.frame_size = 0

    @property
    def closed(self) -> bool:
        return self._closed

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._read_loop(), name=f"dist-reader {self.peer_name}"),
            asyncio.create_task(self._tick_loop(), name=f"dist-ticker {self.peer_name}"),
        ]

    # ---------------------------------------------------------------- writing

    def _write(self, *chunks: bytes) -> None:
        if self._closed:
            raise ConnectionLost(self.peer_name, "the connection is closed")
        self._writer.writelines(chunks)
        self._wrote_since_tick = True

    def send_control(self, ctrl: tuple, payload: Any = None, has_payload: bool = False) -> None:
        """Send a control tuple, with a payload term when ``has_payload``."""
        c = encode(ctrl)
        if has_payload:
            p = encode(payload)
            self._write(_LEN.pack(1 + len(c) + len(p)), b"p", c, p)
        else:
            self._write(_LEN.pack(1 + len(c)), b"p", c)

    async def drain(self) -> None:
        """Wait until the socket buffer is flushed enough (back-pressure for big sends)."""
        if self._closed:
            raise ConnectionLost(self.peer_name, "the connection is closed")
        try:
            await self._writer.drain()
        except ConnectionError as e:
            raise ConnectionLost(self.peer_name, str(e) or type(e).__name__) from None

    def send(self, to: Pid, msg: Any) -> None:
        self.send_control((SEND, _EMPTY_ATOM, to), msg, True)

    def reg_send(self, sender: Pid, name: Atom, msg: Any) -> None:
        self.send_control((REG_SEND, sender, _EMPTY_ATOM, name), msg, True)

    def link(self, sender: Pid, to: Pid) -> None:
        self.send_control((LINK, sender, to))

    def unlink(self, sender: Pid, to: Pid, unlink_id: int) -> None:
        """UNLINK_ID with the new link protocol, else the old UNLINK."""
        if self.flags & DFLAG_UNLINK_ID:
            self.send_control((UNLINK_ID, unlink_id, sender, to))
        else:
            self.send_control((UNLINK, sender, to))

    def unlink_ack(self, sender: Pid, to: Pid, unlink_id: int) -> None:
        self.send_control((UNLINK_ID_ACK, unlink_id, sender, to))

    def exit(self, sender: Pid, to: Pid, reason: Any) -> None:
        """The EXIT signal of a broken link (our process ``sender`` ended)."""
        self.send_control((EXIT, sender, to, reason))

    def exit2(self, sender: Pid, to: Pid, reason: Any) -> None:
        """``exit(To, Reason)`` sent by ``sender``."""
        self.send_control((EXIT2, sender, to, reason))

    def monitor(self, sender: Pid, target: Pid | Atom, ref: Reference) -> None:
        self.send_control((MONITOR_P, sender, target, ref))

    def demonitor(self, sender: Pid, target: Pid | Atom, ref: Reference) -> None:
        self.send_control((DEMONITOR_P, sender, target, ref))

    def monitor_exit(self, target: Pid | Atom, to: Pid, ref: Reference, reason: Any) -> None:
        self.send_control((MONITOR_P_EXIT, target, to, ref, reason))

    # ---------------------------------------------------------------- reading

    async def _read_loop(self) -> None:
        read = self._reader.readexactly
        detail = "the node closed the connection"
        try:
            while True:
                (n,) = _LEN.unpack(await read(4))
                if n == 0:
                    self.ticks_received += 1
                    self._write(_TICK)
                    continue
                if n > codec.max_size() + _CONTROL_ROOM:
                    await self._skip_oversized(n)
                    continue
                frame = await read(n)
                self.bytes_received += n + 4
                self.frames_received += 1
                self.frame_size = n
                if frame[0] != PASS_THROUGH:
                    detail = (
                        f"the node sent a frame of type {frame[0]}, "
                        "but only pass-through frames were negotiated"
                    )
                    return
                try:
                    self._dispatch(frame)
                except Exception:  # a bug in a handler must not kill the connection
                    log.exception("error while handling a message from node %s", self.peer_name)
        except asyncio.IncompleteReadError:
            pass
        except ConnectionError as e:
            detail = str(e) or type(e).__name__
        except asyncio.CancelledError:
            detail = "closed"
            raise
        finally:
            self._shutdown(detail)

    async def _tick_loop(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.tick_interval)
            if not self._wrote_since_tick and not self._closed:
                try:
                    self._write(_TICK)
                except ConnectionLost:
                    return
            self._wrote_since_tick = False

    async def _skip_oversized(self, n: int) -> None:
        """Read past a frame of ``n`` bytes without holding it; tell its recipient."""
        head = await self._reader.readexactly(min(n, _CONTROL_ROOM))
        left = n - len(head)
        while left:
            chunk = await self._reader.read(min(left, _SKIP_CHUNK))
            if not chunk:
                raise asyncio.IncompleteReadError(b"", left)
            left -= len(chunk)
        self.bytes_received += n + 4
        self.frames_received += 1
        self.frame_size = 0
        log.warning("skipped a message of %d bytes from node %s: over the limit of %d bytes",
                    n, self.peer_name, codec.max_size())
        if head[:1] == bytes((PASS_THROUGH,)):
            error = DecodeError(f"a message of {n} bytes exceeds the limit of {codec.max_size()} bytes "
                                "(set BEAMTALK_MAX_TERM_BYTES to allow more); it was skipped")
            try:
                self._dispatch(head, UndecodableMessage(error, b""))
            except Exception:  # a bug in a handler must not kill the connection
                log.exception("error while handling a message from node %s", self.peer_name)

    def _dispatch(self, frame: bytes, skipped: UndecodableMessage | None = None) -> None:
        try:
            ctrl, pos = decode_from(frame, 1)
        except DecodeError as e:
            log.warning("dropping a frame from node %s with an undecodable control message: %s",
                        self.peer_name, e)
            return
        if type(ctrl) is not tuple or not ctrl or type(ctrl[0]) is not int:
            log.warning("dropping a frame from node %s with a malformed control message", self.peer_name)
            return
        payload: Any = skipped
        if skipped is None and pos < len(frame):
            try:
                payload, _ = decode_from(frame, pos)
            except DecodeError as e:
                payload = UndecodableMessage(e, frame[pos:])
        op = ctrl[0]
        h = self._handler
        n = len(ctrl)
        if op == SEND and n >= 3 or op == SEND_TT and n >= 4:
            h.on_send(ctrl[2], payload, None)
        elif op == SEND_SENDER and n >= 3 or op == SEND_SENDER_TT and n >= 4:
            h.on_send(ctrl[2], payload, ctrl[1])
        elif op == REG_SEND and n >= 4 or op == REG_SEND_TT and n >= 5:
            h.on_reg_send(ctrl[1], ctrl[3], payload)
        elif op == MONITOR_P_EXIT and n >= 5:
            h.on_monitor_exit(ctrl[1], ctrl[2], ctrl[3], ctrl[4])
        elif op == PAYLOAD_MONITOR_P_EXIT and n >= 4:
            h.on_monitor_exit(ctrl[1], ctrl[2], ctrl[3], payload)
        elif op == EXIT and n >= 4:
            h.on_exit(ctrl[1], ctrl[2], ctrl[3], True)
        elif op == EXIT_TT and n >= 5:
            h.on_exit(ctrl[1], ctrl[2], ctrl[4], True)
        elif op in (PAYLOAD_EXIT, PAYLOAD_EXIT_TT) and n >= 3:
            h.on_exit(ctrl[1], ctrl[2], payload, True)
        elif op == EXIT2 and n >= 4:
            h.on_exit(ctrl[1], ctrl[2], ctrl[3], False)
        elif op == EXIT2_TT and n >= 5:
            h.on_exit(ctrl[1], ctrl[2], ctrl[4], False)
        elif op in (PAYLOAD_EXIT2, PAYLOAD_EXIT2_TT) and n >= 3:
            h.on_exit(ctrl[1], ctrl[2], payload, False)
        elif op == LINK and n >= 3:
            h.on_link(ctrl[1], ctrl[2])
        elif op == UNLINK_ID and n >= 4:
            h.on_unlink(ctrl[2], ctrl[3], ctrl[1])
        elif op == UNLINK_ID_ACK and n >= 4:
            h.on_unlink_ack(ctrl[2], ctrl[3], ctrl[1])
        elif op == UNLINK and n >= 3:
            h.on_unlink(ctrl[1], ctrl[2], None)
        elif op == MONITOR_P and n >= 4:
            h.on_monitor(ctrl[1], ctrl[2], ctrl[3])
        elif op == DEMONITOR_P and n >= 4:
            h.on_demonitor(ctrl[1], ctrl[2], ctrl[3])
        elif op in (ALIAS_SEND, ALIAS_SEND_TT) and n >= 3:
            h.on_alias_send(ctrl[1], ctrl[2], payload)
        else:
            # GROUP_LEADER, NODE_LINK, spawn signals (never sent to us: not negotiated), ...
            log.debug("ignoring control message %r from node %s", op, self.peer_name)

    # ---------------------------------------------------------------- closing

    def _shutdown(self, detail: str) -> None:
        if self._closed:
            return
        self._closed = True
        for t in self._tasks:
            if t is not asyncio.current_task() and not t.done():
                t.cancel()
        try:
            self._writer.close()
        except Exception:  # pragma: no cover - closing a broken transport
            pass
        if detail != "closed":
            self._handler.connection_lost(detail)

    async def close(self) -> None:
        """Close the socket and stop the tasks; does not report a loss to the handler."""
        tasks = [t for t in self._tasks if not t.done()]
        self._shutdown("closed")
        for t in tasks:
            try:
                await t
            except (asyncio.CancelledError, Exception):
                pass
        try:
            await self._writer.wait_closed()
        except (ConnectionError, OSError):
            pass

