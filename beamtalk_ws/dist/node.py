"""The Python side as a (hidden) Erlang node: mailboxes that behave like processes.

A :class:`Node` owns one connection to one BEAM node.  Each :class:`Mailbox`
has a pid on our node, so node processes can send to it, link to it and
monitor it, and it can do the same to them.  Semantics follow Erlang's where
it matters to callers:

* ``receive`` is selective: a ``match`` predicate picks the first queued
  message it accepts; the others stay queued, in order.
* Mailboxes always trap exits: an exit signal from a linked process (or from
  ``exit/2``) arrives as ``(Atom('EXIT'), FromPid, Reason)``; a monitor fires
  as ``(Atom('DOWN'), Ref, Atom('process'), PidOrName, Reason)`` where a
  monitor by name reports ``(Name, Node)`` as Erlang does.
* ``call`` is ``gen_server:call``: monitor, send ``{'$gen_call', {Pid, Ref},
  Request}``, wait for ``{Ref, Reply}`` or the DOWN.  A dead or unregistered
  server fails at once (the node answers the monitor with ``noproc``).

If the connection drops, every pending ``receive``/``call`` raises
:class:`ConnectionLost`, ``node.closed`` resolves and ``on_connection_lost``
is called, so the owner (the REPL) can say so and reconnect.

Unlike an Erlang process, a mailbox is bounded: messages nothing receives
(a user's actor sending to the REPL's pid in a loop) must not grow the
client for ever.  When more than :attr:`Mailbox.max_messages` messages or
:attr:`Mailbox.max_bytes` bytes (as they came over the wire) are queued, the
*oldest* queued messages are dropped: a receive waiting for a reply gets it
as it arrives (it is handed over, not queued), so what piles up is stale.
``Mailbox.dropped`` counts them and a warning with the count is logged (at
the first drop, then at most every few seconds).
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import secrets
import time
from collections import deque
from typing import Any, Callable

from . import epmd
from .connection import Connection, ControlHandler, UndecodableMessage
from .errors import (
    CallTimeout,
    ConnectionLost,
    DistError,
    HandshakeError,
    ProcessDown,
    TLSRefused,
)
from .handshake import DFLAG_UNLINK_ID, OUR_FLAGS, PROTOCOL_VERSION, handshake
from .terms import Atom, Pid, Reference, erl_repr

__all__ = ["Node", "Mailbox"]

log = logging.getLogger(__name__)

A_EXIT = Atom("EXIT")
A_DOWN = Atom("DOWN")
A_PROCESS = Atom("process")
A_NORMAL = Atom("normal")
A_NOPROC = Atom("noproc")
A_GEN_CALL = Atom("$gen_call")
A_NET_KERNEL = Atom("net_kernel")
A_IS_AUTH = Atom("is_auth")
A_YES = Atom("yes")

Target = Pid | Atom | str | tuple


class Mailbox:
    """A process-like endpoint on our node: a pid, a message queue, links and monitors.

    Create with :meth:`Node.mailbox`; close with :meth:`close` (which, like a
    process exiting, sends exit signals to linked processes and DOWN messages
    to monitors).
    """

    #: Bounds of the queue of messages not yet received (see the module docstring).
    max_messages = 10_000
    max_bytes = 64 << 20
    #: Seconds between two warnings about dropped messages.
    warn_every = 5.0

    def __init__(self, node: "Node", pid: Pid, name: Atom | None) -> None:
        self.node = node
        self.pid = pid
        self.name = name
        self._queue: deque[tuple[int, Any, int]] = deque()  # (arrival number, message, bytes)
        self._queued_bytes = 0
        #: messages dropped because the queue was full
        self.dropped = 0
        self._warned_at: float | None = None
        self._warned_count = 0
        self._seq = 0
        self._waiters: list[tuple[Callable[[Any], bool] | None, asyncio.Future]] = []
        self._links: set[Pid] = set()  # active links
        self._unlinking: dict[Pid, int] = {}  # unlink id awaiting its ack
        self._monitors: dict[Reference, Any] = {}  # ref -> what DOWN reports
        self._monitored_by: dict[Reference, tuple[Pid, Any]] = {}  # ref -> (watcher, as-named)
        self._failure: BaseException | None = None

    def __repr__(self) -> str:
        return f"<Mailbox {self.pid}{' ' + self.name if self.name else ''}>"

    @property
    def closed(self) -> bool:
        return self._failure is not None

    # ------------------------------------------------------------ receiving

    def _deliver(self, msg: Any, size: int = 0) -> None:
        if self._failure is not None:
            return  # like a message to a dead process
        self._seq += 1
        seq = self._seq
        for i, (match, fut) in enumerate(self._waiters):
            if fut.done():
                continue
            if match is not None:
                try:
                    if not match(msg):
                        continue
                except Exception as e:  # a broken predicate fails its own receive only
                    fut.set_exception(e)
                    continue
            del self._waiters[i]
            fut.set_result((seq, msg, size))
            return
        self._queue.append((seq, msg, size))
        self._queued_bytes += size
        if len(self._queue) > self.max_messages or self._queued_bytes > self.max_bytes:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        q = self._queue
        n = 0
        while q and (len(q) > self.max_messages or self._queued_bytes > self.max_bytes):
            self._queued_bytes -= q.popleft()[2]
            n += 1
        self.dropped += n
        now = time.monotonic()
        if self._warned_at is None or now - self._warned_at >= self.warn_every:
            log.warning(
                "mailbox %s: dropped %d unreceived messages so far (%d since the last warning); "
                "a mailbox keeps at most %d messages or %d bytes, oldest dropped first",
                self.pid, self.dropped, self.dropped - self._warned_count, self.max_messages, self.max_bytes,
            )
            self._warned_at = now
            self._warned_count = self.dropped

    def _take(self, match: Callable[[Any], bool] | None) -> tuple[bool, Any]:
        q = self._queue
        if match is None:
            if q:
                _, m, size = q.popleft()
                self._queued_bytes -= size
                return True, m
            return False, None
        for i, (_, m, size) in enumerate(q):
            if match(m):
                del q[i]
                self._queued_bytes -= size
                return True, m
        return False, None

    async def receive(
        self, timeout: float | None = None, match: Callable[[Any], bool] | None = None
    ) -> Any:
        """Return the first queued message accepted by ``match`` (any message if None).

        Waits up to ``timeout`` seconds (forever if None) and raises
        ``TimeoutError`` when nothing matching arrives.  Raises
        :class:`ConnectionLost` once the connection is gone and no matching
        message is left in the queue.
        """
        found, msg = self._take(match)
        if found:
            return msg
        if self._failure is not None:
            raise self._failure
        if timeout is not None and timeout <= 0:
            raise TimeoutError(f"no matching message in mailbox {self.pid}")
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        waiter = (match, fut)
        self._waiters.append(waiter)
        try:
            if timeout is None:
                return (await fut)[1]
            return (await asyncio.wait_for(fut, timeout))[1]
        except BaseException:
            # Timed out or cancelled just as a message was handed to us: put it
            # back where it belongs so it is not lost.
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                entry = fut.result()
                bisect.insort(self._queue, entry, key=lambda e: e[0])
                self._queued_bytes += entry[2]
            raise
        finally:
            try:
                self._waiters.remove(waiter)
            except ValueError:
                pass

    def pending(self) -> list:
        """A snapshot of the queued messages, oldest first (for diagnostics and tests)."""
        return [m for _, m, _ in self._queue]

    # ------------------------------------------------------------ signals out

    def send(self, dest: Target, msg: Any) -> None:
        """``dest ! msg`` where dest is a Pid, a registered name, or ``(Name, Node)``."""
        self._check_open()
        self.node._send(self, dest, msg)

    def link(self, pid: Pid) -> None:
        """Link to ``pid``; its exit arrives as ``('EXIT', pid, Reason)``."""
        self._check_open()
        if not isinstance(pid, Pid):
            raise TypeError("link/1 needs a Pid")
        self._unlinking.pop(pid, None)
        if pid in self._links:
            return
        self._links.add(pid)
        self.node._signal_link(self.pid, pid)

    def unlink(self, pid: Pid) -> None:
        """Remove the link to ``pid``; an exit signal already on its way is ignored."""
        self._check_open()
        if pid not in self._links:
            return
        self._links.discard(pid)
        uid = self.node._next_unlink_id()
        self._unlinking[pid] = uid
        self.node._signal_unlink(self.pid, pid, uid)

    def monitor(self, target: Target) -> Reference:
        """Monitor a pid or a registered name on the remote node; return the monitor ref."""
        self._check_open()
        ref = self.node.make_ref()
        wire, reported = self.node._monitor_target(target)
        self._monitors[ref] = reported
        self.node._signal_monitor(self, wire, ref)
        return ref

    def demonitor(self, ref: Reference, flush: bool = False) -> bool:
        """Stop monitoring; with ``flush`` also drop a DOWN for ``ref`` already queued.

        Returns True if the monitor was still active.
        """
        reported = self._monitors.pop(ref, None)
        if reported is not None and self._failure is None:
            wire = reported[0] if isinstance(reported, tuple) else reported
            self.node._signal_demonitor(self.pid, wire, ref)
        if flush:
            self._queue = deque(
                e
                for e in self._queue
                if not (type(e[1]) is tuple and len(e[1]) == 5 and e[1][0] == A_DOWN and e[1][1] == ref)
            )
            self._queued_bytes = sum(e[2] for e in self._queue)
        return reported is not None

    def exit(self, pid: Pid, reason: Any) -> None:
        """``exit(Pid, Reason)``: send an exit signal to ``pid``."""
        self._check_open()
        self.node._signal_exit2(self.pid, pid, reason)

    def close(self, reason: Any = A_NORMAL) -> None:
        """End this 'process': linked processes get an exit signal, monitors a DOWN."""
        if self._failure is not None:
            return
        self.node._close_mailbox(self, reason)
        self._fail(DistError(f"mailbox {self.pid} was closed"))

    def _check_open(self) -> None:
        if self._failure is not None:
            raise self._failure

    def _fail(self, exc: BaseException) -> None:
        if self._failure is None:
            self._failure = exc
        waiters, self._waiters = self._waiters, []
        for _, fut in waiters:
            if not fut.done():
                fut.set_exception(self._failure)


async def _open(host: str, port: int, ssl: Any, server_hostname: str | None):
    """The socket of the connection: plain TCP, or TLS for a node that runs
    `-proto_dist inet_tls` (the handshake then runs inside TLS)."""
    if ssl is None:
        return await asyncio.open_connection(host, port)
    import ssl as _ssl

    try:
        return await asyncio.open_connection(host, port, ssl=ssl,
                                             server_hostname=server_hostname or host)
    except _ssl.SSLError as e:
        raise TLSRefused(f"the TLS handshake with {host}:{port} failed ({e.reason or e})") from None


class Node(ControlHandler):
    """Our end of a connection to one BEAM node.  Create with :meth:`Node.connect`."""

    def __init__(
        self,
        *,
        name: str,
        remote: str,
        creation: int,
        flags: int,
        on_connection_lost: Callable[[ConnectionLost], Any] | None = None,
    ) -> None:
        self.name = Atom(name)
        self.remote = Atom(remote)
        self.creation = creation
        self.flags = flags
        self.on_connection_lost = on_connection_lost
        self.closed: asyncio.Future = asyncio.get_running_loop().create_future()
        self._conn: Connection | None = None
        self._failure: ConnectionLost | None = None
        self._by_pid: dict[Pid, Mailbox] = {}
        self._by_name: dict[Atom, Mailbox] = {}
        self._pid_counter = 0
        self._ref_counter = 0
        self._ref_salt = secrets.randbits(32)
        self._unlink_counter = 0

    # ------------------------------------------------------------ connecting

    @classmethod
    async def connect(
        cls,
        remote: str,
        cookie: bytes | str,
        *,
        name: str | None = None,
        host: str = "127.0.0.1",
        epmd_port: int | None = None,
        timeout: float = 5.0,
        tick_interval: float = 15.0,
        on_connection_lost: Callable[[ConnectionLost], Any] | None = None,
        port: int | None = None,
        ssl: Any = None,
        server_hostname: str | None = None,
    ) -> "Node":
        """Connect to node ``remote`` (``alive@host``) as a hidden node.

        epmd and the node are reached at ``host`` (the host part of ``remote``
        is only a name).  Our own name defaults to ``bt_py_<random hex>@`` the
        remote's host part, which keeps short/long name styles compatible.
        """
        if "@" not in remote:
            raise ValueError(f"node name {remote!r} must look like name@host")
        alive, remote_host = remote.split("@", 1)
        if name is None:
            name = f"bt_py_{secrets.token_hex(6)}@{remote_host}"
        elif "@" not in name:
            name = f"{name}@{remote_host}"
        # A known port skips epmd (a node whose epmd is not reachable from here).
        info = (epmd.NodeInfo(port, PROTOCOL_VERSION, PROTOCOL_VERSION) if port is not None
                else await epmd.port_please(alive, host, epmd_port, timeout))
        if info.highest_version < PROTOCOL_VERSION:
            raise HandshakeError(
                f"node {remote} only speaks distribution version {info.highest_version}; "
                "OTP 23 or newer is required"
            )
        try:
            reader, writer = await asyncio.wait_for(
                _open(host, info.port, ssl, server_hostname), timeout
            )
        except TLSRefused:
            raise
        except (OSError, asyncio.TimeoutError) as e:
            raise HandshakeError(
                f"node {remote} is registered with epmd on port {info.port} "
                f"but does not accept connections there ({type(e).__name__})"
            ) from None
        creation = secrets.randbits(32) or 1
        try:
            result = await handshake(
                reader,
                writer,
                our_name=name,
                cookie=cookie,
                creation=creation,
                peer_label=remote,
                flags=OUR_FLAGS,
                timeout=timeout,
                wide=ssl is not None,
            )
        except OSError as e:
            writer.close()
            if ssl is None:
                raise HandshakeError(f"the connection to node {remote} failed ({e})") from None
            # A TLS alert after the TLS handshake: TLS 1.3 servers judge the
            # client's certificate once the client has finished.
            raise TLSRefused(f"node {remote} refused our certificate ({getattr(e, 'reason', None) or e})") from None
        except BaseException:
            writer.close()
            raise
        node = cls(
            name=name,
            remote=result.peer_name or remote,
            creation=creation,
            flags=result.flags,
            on_connection_lost=on_connection_lost,
        )
        node._conn = Connection(
            reader,
            writer,
            node,
            peer_name=str(node.remote),
            flags=result.flags,
            tick_interval=tick_interval,
        )
        node._conn.start()
        return node

    async def __aenter__(self) -> "Node":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    @property
    def is_connected(self) -> bool:
        return self._failure is None and self._conn is not None and not self._conn.closed

    async def close(self) -> None:
        """Close the connection.  Pending receives raise ConnectionLost; no callback fires."""
        if self._failure is None:
            self._fail(ConnectionLost(str(self.remote), "closed by this side"))
            if not self.closed.done():
                self.closed.set_result(None)
        if self._conn is not None:
            await self._conn.close()

    # ------------------------------------------------------------ identities

    def mailbox(self, name: str | None = None) -> Mailbox:
        """A new mailbox (a new pid); with ``name`` it is also registered under that name."""
        if self._failure is not None:
            raise self._failure
        reg = Atom(name) if name is not None else None
        if reg is not None and reg in self._by_name:
            raise ValueError(f"the name {name!r} is already registered on this node")
        self._pid_counter += 1
        n = self._pid_counter
        pid = Pid(self.name, n & 0x7FFF, (n >> 15) & 0x1FFF, self.creation)
        mb = Mailbox(self, pid, reg)
        self._by_pid[pid] = mb
        if reg is not None:
            self._by_name[reg] = mb
        return mb

    def make_ref(self) -> Reference:
        """A reference unique on this node incarnation (like ``make_ref()``)."""
        self._ref_counter += 1
        n = self._ref_counter
        return Reference(self.name, self.creation, (n & 0x3FFFF, (n >> 18) & 0xFFFFFFFF, self._ref_salt))

    def _next_unlink_id(self) -> int:
        self._unlink_counter += 1
        return self._unlink_counter

    # ------------------------------------------------------------ call

    async def call(self, server: Target, request: Any, timeout: float | None = 5.0) -> Any:
        """``gen_server:call(Server, Request, Timeout)``; Server is a Pid, a name or ``(Name, Node)``.

        Raises :class:`ProcessDown` if the server is not running or dies before
        answering, :class:`CallTimeout` after ``timeout`` seconds, and
        :class:`ConnectionLost` if the connection drops meanwhile.
        """
        mb = self.mailbox()
        try:
            ref = mb.monitor(server)
            mb.send(server, (A_GEN_CALL, (mb.pid, ref), request))

            def is_answer(m: Any) -> bool:
                if type(m) is tuple:
                    if len(m) == 2:
                        return m[0] == ref
                    return len(m) == 5 and m[0] == A_DOWN and m[1] == ref
                return isinstance(m, UndecodableMessage)

            try:
                msg = await mb.receive(timeout, is_answer)
            except TimeoutError:
                mb.demonitor(ref)
                raise CallTimeout(self._label(server), str(self.remote), timeout) from None
            if isinstance(msg, UndecodableMessage):
                mb.demonitor(ref)
                raise msg.error
            if len(msg) == 2:
                mb.demonitor(ref)
                return msg[1]
            reason = msg[4]
            raise ProcessDown(self._label(server), str(self.remote), reason, erl_repr(reason))
        finally:
            mb.close()  # also drops the monitor if we leave early (cancelled, lost)

    def _label(self, server: Target) -> str:
        if isinstance(server, tuple) and len(server) == 2:
            return str(server[0])
        return str(server)

    # ------------------------------------------------------------ signals out

    def _conn_or_fail(self) -> Connection:
        if self._failure is not None:
            raise self._failure
        assert self._conn is not None
        return self._conn

    def _is_local(self, pid: Pid) -> bool:
        return pid.node == self.name

    def _send(self, mb: Mailbox, dest: Target, msg: Any) -> None:
        if isinstance(dest, Pid):
            if self._is_local(dest):
                target = self._by_pid.get(dest)
                if target is not None:
                    target._deliver(msg)
                return
            self._conn_or_fail().send(dest, msg)
            return
        if isinstance(dest, tuple) and len(dest) == 2:
            name, node = dest
            if Atom(str(node)) == self.name:
                target = self._by_name.get(Atom(str(name)))
                if target is not None:
                    target._deliver(msg)
                return
            dest = name
        if isinstance(dest, str):
            self._conn_or_fail().reg_send(mb.pid, Atom(dest), msg)
            return
        raise TypeError(
            f"cannot send to {dest!r}: use a Pid, a registered name, or a (name, node) tuple"
        )

    def _monitor_target(self, target: Target) -> tuple[Any, Any]:
        """(what goes on the wire, what the DOWN message reports)."""
        if isinstance(target, Pid):
            return target, target
        if isinstance(target, tuple) and len(target) == 2:
            target = target[0]
        if isinstance(target, str):
            name = Atom(target)
            return name, (name, self.remote)
        raise TypeError(f"cannot monitor {target!r}: use a Pid or a registered name")

    def _signal_link(self, frm: Pid, to: Pid) -> None:
        if self._is_local(to):
            target = self._by_pid.get(to)
            if target is None:
                self._deliver_exit(frm, to, A_NOPROC)
            else:
                target._links.add(frm)
            return
        self._conn_or_fail().link(frm, to)

    def _signal_unlink(self, frm: Pid, to: Pid, uid: int) -> None:
        if self._is_local(to):
            target = self._by_pid.get(to)
            if target is not None:
                target._links.discard(frm)
            src = self._by_pid.get(frm)
            if src is not None:
                src._unlinking.pop(to, None)
            return
        self._conn_or_fail().unlink(frm, to, uid)
        if not self.flags & DFLAG_UNLINK_ID:  # old protocol: no ack will come
            src = self._by_pid.get(frm)
            if src is not None:
                src._unlinking.pop(to, None)

    def _signal_exit2(self, frm: Pid, to: Pid, reason: Any) -> None:
        if self._is_local(to):
            target = self._by_pid.get(to)
            if target is not None:
                target._deliver((A_EXIT, frm, reason))
            return
        self._conn_or_fail().exit2(frm, to, reason)

    def _signal_monitor(self, mb: Mailbox, wire: Any, ref: Reference) -> None:
        local = self._by_pid.get(wire) if isinstance(wire, Pid) and self._is_local(wire) else None
        if isinstance(wire, Pid) and self._is_local(wire):
            if local is None:
                self.on_monitor_exit(wire, mb.pid, ref, A_NOPROC)
            else:
                local._monitored_by[ref] = (mb.pid, wire)
            return
        self._conn_or_fail().monitor(mb.pid, wire, ref)

    def _signal_demonitor(self, frm: Pid, wire: Any, ref: Reference) -> None:
        if isinstance(wire, Pid) and self._is_local(wire):
            local = self._by_pid.get(wire)
            if local is not None:
                local._monitored_by.pop(ref, None)
            return
        if self._failure is None and self._conn is not None:
            self._conn.demonitor(frm, wire, ref)

    def _deliver_exit(self, frm: Pid, to: Pid, reason: Any) -> None:
        """An exit signal caused by a link, from ``frm`` to ``to`` (either side may be ours)."""
        if self._is_local(to):
            self.on_exit(frm, to, reason, True)
        elif self._failure is None and self._conn is not None:
            self._conn.exit(frm, to, reason)

    def _forget(self, mb: Mailbox) -> None:
        self._by_pid.pop(mb.pid, None)
        if mb.name is not None and self._by_name.get(mb.name) is mb:
            del self._by_name[mb.name]

    def _close_mailbox(self, mb: Mailbox, reason: Any) -> None:
        self._forget(mb)
        for pid in list(mb._links):
            self._deliver_exit(mb.pid, pid, reason)
        mb._links.clear()
        for ref, (watcher, as_named) in list(mb._monitored_by.items()):
            if self._is_local(watcher):
                self.on_monitor_exit(as_named, watcher, ref, reason)
            elif self._failure is None and self._conn is not None:
                self._conn.monitor_exit(as_named, watcher, ref, reason)
        mb._monitored_by.clear()
        for ref in list(mb._monitors):
            mb.demonitor(ref)

    # ------------------------------------------------------------ signals in

    def _frame_size(self) -> int:
        return self._conn.frame_size if self._conn is not None else 0

    def on_send(self, to: Pid, msg: Any, sender: Pid | None) -> None:
        mb = self._by_pid.get(to)
        if mb is not None:
            mb._deliver(msg, self._frame_size())

    def on_reg_send(self, sender: Pid, name: Atom, msg: Any) -> None:
        mb = self._by_name.get(name)
        if mb is not None:
            mb._deliver(msg, self._frame_size())
        elif name == A_NET_KERNEL:
            self._net_kernel(msg)

    def _net_kernel(self, msg: Any) -> None:
        """Answer ``net_adm:ping/1`` from the node: ``{'$gen_call', {From, Tag}, {is_auth, _}}``."""
        if (
            type(msg) is tuple
            and len(msg) == 3
            and msg[0] == A_GEN_CALL
            and type(msg[1]) is tuple
            and len(msg[1]) == 2
            and isinstance(msg[1][0], Pid)
            and type(msg[2]) is tuple
            and msg[2][:1] == (A_IS_AUTH,)
        ):
            self._conn_or_fail().send(msg[1][0], (msg[1][1], A_YES))

    def on_link(self, sender: Pid, to: Pid) -> None:
        mb = self._by_pid.get(to)
        if mb is None:
            self._deliver_exit(to, sender, A_NOPROC)
        elif sender not in mb._unlinking:
            mb._links.add(sender)

    def on_unlink(self, sender: Pid, to: Pid, unlink_id: int | None) -> None:
        mb = self._by_pid.get(to)
        if mb is not None and sender not in mb._unlinking:
            mb._links.discard(sender)
        if unlink_id is not None and self._conn is not None and not self._conn.closed:
            self._conn.unlink_ack(to, sender, unlink_id)

    def on_unlink_ack(self, sender: Pid, to: Pid, unlink_id: int) -> None:
        mb = self._by_pid.get(to)
        if mb is not None and mb._unlinking.get(sender) == unlink_id:
            del mb._unlinking[sender]

    def on_exit(self, sender: Pid, to: Pid, reason: Any, via_link: bool) -> None:
        mb = self._by_pid.get(to)
        if mb is None:
            return
        if via_link:
            if sender not in mb._links:
                return  # not linked (or an unlink is in flight): ignored, as in Erlang
            mb._links.discard(sender)
        mb._deliver((A_EXIT, sender, reason))

    def on_monitor(self, sender: Pid, target: Any, ref: Reference) -> None:
        mb = self._by_pid.get(target) if isinstance(target, Pid) else self._by_name.get(target)
        if mb is None and target == A_NET_KERNEL:
            return  # our built-in net_kernel never dies; gen:call monitors it before pinging
        if mb is None:
            self._conn_or_fail().monitor_exit(target, sender, ref, A_NOPROC)
        else:
            mb._monitored_by[ref] = (sender, target)

    def on_demonitor(self, sender: Pid, target: Any, ref: Reference) -> None:
        mb = self._by_pid.get(target) if isinstance(target, Pid) else self._by_name.get(target)
        if mb is not None:
            mb._monitored_by.pop(ref, None)

    def on_monitor_exit(self, target: Any, to: Pid, ref: Reference, reason: Any) -> None:
        mb = self._by_pid.get(to)
        if mb is None:
            return
        reported = mb._monitors.pop(ref, None)
        if reported is None:
            return
        mb._deliver((A_DOWN, ref, A_PROCESS, reported, reason))

    def connection_lost(self, detail: str) -> None:
        exc = ConnectionLost(str(self.remote), detail)
        self._fail(exc)
        if not self.closed.done():
            self.closed.set_result(exc)
        cb = self.on_connection_lost
        if cb is not None:
            try:
                cb(exc)
            except Exception:
                log.exception("on_connection_lost callback failed")

    def _fail(self, exc: ConnectionLost) -> None:
        if self._failure is None:
            self._failure = exc
        for mb in list(self._by_pid.values()):
            mb._fail(exc)
