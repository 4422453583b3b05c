"""A Python-side client of one workspace session.

It speaks to the workspace server (DESIGN D3) over the Erlang distribution:
gen_server calls for the simple requests, and for `eval` a call whose output
messages are streamed to a callback before the final reply arrives.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Awaitable, Callable

from beamtalk_ws.dist import errors as dist_errors
from beamtalk_ws.dist.connection import UndecodableMessage
from beamtalk_ws.dist.node import Node
from beamtalk_ws.dist.terms import Atom
from beamtalk_ws.shown_path import as_typed

from . import cookie, tlsfiles
from .errors import WorkspaceError, WorkspaceNotRunning
from .paths import WorkspacePaths

SERVER = Atom("beamtalk_workspace")
OUTPUT = Atom("beamtalk_output")
INPUT = Atom("beamtalk_input")
EOF = Atom("eof")
TRANSCRIPT = Atom("transcript")
TESTS = Atom("tests")
DOWN = Atom("DOWN")
NONE = Atom("none")

OutputCallback = Callable[[str], None]
#: Asked for a line typed for a running evaluation (its prompt given): the
#: line with its newline, or None at end of input.
InputCallback = Callable[[str], Awaitable["str | None"]]


def _text(b) -> str:
    if isinstance(b, (bytes, bytearray)):
        return bytes(b).decode("utf-8", errors="replace")
    return str(b)


@dataclass
class EvalReply:
    """The outcome of one evaluation on the node."""

    ok: bool
    text: str                      # printString of the value, or the error text
    kind: str = "ok"               # ok | runtime | interrupted | timeout | undefined_variable | internal
    bindings: list[str] = field(default_factory=list)
    results: list["TestOutcome"] | None = None     # for a `tests` request
    #: one line from the node when the session's evaluator process was
    #: replaced (interrupt, timeout, crash, memory limit): what was lost
    notice: str | None = None


@dataclass
class TestOutcome:
    """One test method's result, as the node's BUnit runner reports it."""

    cls: str
    test: str
    status: str                    # pass | fail | error
    message: str | None = None
    time_us: int = 0
    #: `path/to/file.bt:Line` of the failing line, when the test's class came from a file
    location: str | None = None

    def as_json(self) -> dict:
        # The contract's four keys (DESIGN §3): the location leads the
        # message, as a compile error's does (`file.bt:9: Expected 3, got 2`).
        message = self.message or ""
        if self.location and self.status != "pass":
            message = f"{self.location}: {message}"
        return {"class": self.cls, "test": self.test, "status": self.status, "message": message}


def _is_transcript(m) -> bool:
    return isinstance(m, tuple) and len(m) == 2 and m[0] == TRANSCRIPT


def _test_outcome(r: dict) -> TestOutcome:
    get = {str(k): v for k, v in r.items()}.get
    message = get("message")
    location = get("location")
    return TestOutcome(str(get("class")), str(get("test")), str(get("status")),
                       None if message in (None, Atom("nil")) else _text(message),
                       int(get("time_us") or 0),
                       None if location in (None, Atom("nil")) else _relative(_text(location)))


def _relative(path_line: str) -> str:
    """`/abs/dir/test/x.bt:9` as `test/x.bt:9` below the current directory
    (the way the user named the file), else unchanged."""
    path, sep, line = path_line.rpartition(":")
    if not sep:
        return path_line
    return f"{as_typed(path)}:{line}"


class WorkspaceClient:
    def __init__(self, node: Node, ws: WorkspacePaths, session: str, info: dict):
        self.node = node
        self.ws = ws
        self.session = session
        self.info = info
        self.mailbox = node.mailbox()
        self.background: OutputCallback | None = None
        #: True when the command that connected also started the node
        self.started_node = False
        self.on_transcript: OutputCallback | None = None
        #: reads a line when an evaluation reads stdin (`io:get_line`); None: it reads eof
        self.on_input: InputCallback | None = None
        #: one monitor on the workspace server for all requests (see `_watch_server`)
        self._server_mon = None
        #: class_table entries of protected (stdlib) classes: nobody can change
        #: them, so a class definition need not ask again for `Value`
        self._protected_classes: dict = {}

    @classmethod
    async def connect(cls, ws: WorkspacePaths, session: str = "default", timeout: float = 5.0) -> "WorkspaceClient":
        secret = cookie.read(ws.cookie_file)
        try:
            node = await Node.connect(ws.node_name, secret, timeout=timeout, **tlsfiles.connect_kwargs(ws))
        except (dist_errors.EpmdUnreachable, dist_errors.NodeNotRegistered) as e:
            raise WorkspaceNotRunning(f"Workspace '{ws.id}' is not running ({e}).") from None
        except dist_errors.DistError as e:
            raise WorkspaceError(f"Cannot connect to workspace '{ws.id}': {e}") from None
        return await cls.on_node(node, ws, session, timeout)

    @classmethod
    async def on_node(cls, node: Node, ws, session: str = "default", timeout: float = 5.0) -> "WorkspaceClient":
        """A client of the workspace server on an already connected node
        (`ws` may be a remote.RemoteWorkspace for a node we attached to)."""
        self = cls(node, ws, session, {})
        reply = await self.call((Atom("attach"), self.mailbox.pid, session.encode()), timeout=timeout)
        if not (isinstance(reply, tuple) and reply[0] == Atom("ok")):
            raise WorkspaceError(f"Workspace '{ws.id}' refused the connection: {reply!r}")
        self.info = {str(k): v for k, v in reply[1].items()}
        return self

    def lost_text(self) -> str:
        """What to say when the connection drops (an attached node says what went with it)."""
        lost_text = getattr(self.ws, "lost_text", None)
        if lost_text is not None:
            return lost_text(self.shown_names)
        return f"Lost the connection to workspace '{self.ws.id}'."

    def _server_gone_text(self, default: str) -> str:
        """What to say when the server process is gone but the node is not (an
        attached node says Beamtalk went, with the bindings lost)."""
        gone = getattr(self.ws, "server_gone_text", None)
        return gone(self.shown_names) if gone is not None else default

    @property
    def bound_names(self) -> list[str]:
        return [str(n) for n in self.info.get("bindings", [])]

    @property
    def shown_names(self) -> list[str]:
        """The bindings as a person named them: without `_`, the last value,
        which the compiler must know of but a message listing what was lost
        need not."""
        return [n for n in self.bound_names if n != "_"]

    @property
    def other_clients(self) -> int:
        """How many other clients were attached to this session when this one attached."""
        n = self.info.get("other_clients", 0)
        return n if isinstance(n, int) else 0

    async def refresh_bindings(self) -> list[str]:
        """Ask the node which names are bound now (another client of the
        session may have bound some since our last reply)."""
        reply = await self.call((Atom("binding_names"), self.session.encode()))
        if isinstance(reply, tuple) and reply and reply[0] == Atom("ok"):
            self.info["bindings"] = list(reply[1])
        return self.bound_names

    async def call(self, request, timeout: float = 10.0):
        try:
            return await self.node.call(SERVER, request, timeout=timeout)
        except dist_errors.ProcessDown:
            raise WorkspaceError(self._server_gone_text(f"The workspace server on {self.ws.node_name} "
                                                        f"is not running.")) from None
        except dist_errors.ConnectionLost:
            raise WorkspaceNotRunning(self.lost_text()) from None

    async def eval(self, forms, *, unique: bool = False, timeout_ms: int | None = None,
                   on_output: OutputCallback | None = None, detached: bool = False,
                   internal: bool = False, while_running=None) -> EvalReply:
        """Evaluate compiled forms in this session; output goes to `on_output` first.
        The node stops the evaluation if this client goes away before the reply,
        unless `detached` (then it runs to its end and its assignments apply).
        An `internal` evaluation (a REPL command's own) leaves `_`, the last
        value, as the user's last input set it.  `while_running` is called
        once the request is sent: work done there overlaps the node's."""
        req = {Atom("forms"): forms, Atom("module"): Atom("unique" if unique else "scratch")}
        if internal:
            req[Atom("last")] = False
        if detached:
            req[Atom("detached")] = True
        return await self.request(req, timeout_ms, on_output, while_running)

    async def load_modules(self, modules, *, timeout_ms: int | None = None,
                           on_output: OutputCallback | None = None) -> EvalReply:
        """Compile and load class modules [(name, forms)]: all of them or none."""
        req = {Atom("load"): [(Atom(name), forms) for name, forms in modules], Atom("module"): Atom("none")}
        return await self.request(req, timeout_ms, on_output)

    async def load_package(self, ebin, app: str, *, on_output: OutputCallback | None = None) -> EvalReply:
        """Load a built package's changed class modules from its ebin directory
        (`reply.text`: how many were (re)loaded)."""
        req = {Atom("package"): (str(ebin).encode(), Atom(app)), Atom("module"): Atom("none")}
        return await self.request(req, None, on_output)

    async def run_tests(self, classes: list[str] | None = None, *, strict: bool = True,
                        on_output: OutputCallback | None = None) -> EvalReply:
        """Run the tests of every TestCase subclass (`classes` None) or of the named ones
        in this session; `reply.results` lists a TestOutcome per test, in run order.
        Strict: a name that is not a TestCase subclass is an error (else it is skipped)."""
        which = Atom("all") if classes is None else [Atom(c) for c in classes]
        req = {Atom("tests"): which, Atom("strict"): strict, Atom("module"): Atom("none"),
               Atom("timeout"): Atom("infinity")}
        return await self.request(req, None, on_output)

    async def subscribe_transcript(self) -> None:
        """Have Transcript text pushed to this client (`on_transcript`, while a request runs,
        or `next_transcript`); text an evaluation of this client writes arrives as its output
        instead."""
        await self.call((Atom("transcript_subscribe"), self.mailbox.pid))

    async def transcript_recent(self) -> list[str]:
        """The Transcript's ring buffer, oldest chunk first."""
        reply = await self.call(Atom("transcript_recent"))
        return [_text(t) for t in reply] if isinstance(reply, list) else []

    async def unsubscribe_transcript(self) -> None:
        await self.call((Atom("transcript_unsubscribe"), self.mailbox.pid))

    async def next_background(self) -> tuple[str, str]:
        """The next text that belongs to no request of ours: `("transcript", text)`
        pushed by the Transcript (after `subscribe_transcript`), or `("output", text)`
        written by a process an earlier input left running."""
        def background(m) -> bool:
            return _is_transcript(m) or (isinstance(m, tuple) and len(m) == 3 and m[0] == OUTPUT
                                         and m[1] == NONE)

        msg = await self.mailbox.receive(match=background)
        return ("transcript", _text(msg[1])) if msg[0] == TRANSCRIPT else ("output", _text(msg[2]))

    async def next_transcript(self, timeout: float | None = None) -> str:
        """The next pushed Transcript chunk (TimeoutError after `timeout` seconds)."""
        msg = await self.mailbox.receive(timeout, match=_is_transcript)
        return _text(msg[1])

    async def _watch_server(self):
        """The monitor on the workspace server that every request waits on.

        Why one for all requests: a monitor per request costs two more
        distribution messages (monitor, demonitor) and their system calls on
        both sides of every round trip, about a third of the time of a small
        eval on a busy machine.  Each request is told apart by its own tag
        (a reference made here, no message).  A DOWN that arrived while no
        request was waiting is taken out first, and the server is watched
        again, so a restarted server is reached as with a fresh monitor.
        """
        mref = self._server_mon
        if mref is not None:
            def stale(m) -> bool:
                return isinstance(m, tuple) and len(m) == 5 and m[0] == DOWN and m[1] == mref
            try:
                await self.mailbox.receive(0, match=stale)
                mref = None
            except TimeoutError:
                pass
        if mref is None:
            mref = self._server_mon = self.mailbox.monitor(SERVER)
        return mref

    async def request(self, req: dict, timeout_ms, on_output, while_running=None) -> EvalReply:
        if timeout_ms is not None:
            req[Atom("timeout")] = int(timeout_ms)
        mbox = self.mailbox
        try:
            smon = await self._watch_server()
        except dist_errors.ConnectionLost:
            raise WorkspaceNotRunning(self.lost_text()) from None
        tag = self.node.make_ref()
        mbox.send(SERVER, (Atom("$gen_call"), (mbox.pid, tag), (Atom("eval"), self.session.encode(), req)))
        if while_running is not None:
            while_running()

        def mine(m) -> bool:
            if isinstance(m, UndecodableMessage):
                return True
            if not isinstance(m, tuple) or not m:
                return False
            if m[0] == tag and len(m) == 2:
                return True
            if len(m) == 3 and m[0] == OUTPUT:
                return True
            if len(m) == 5 and m[0] == INPUT:
                return True
            if self.on_transcript is not None and _is_transcript(m):
                return True
            return len(m) == 5 and m[0] == DOWN and m[1] == smon

        while True:
            try:
                msg = await mbox.receive(match=mine)
            except dist_errors.ConnectionLost:
                raise WorkspaceNotRunning(self.lost_text()) from None
            if isinstance(msg, UndecodableMessage):
                raise WorkspaceError(
                    "The workspace's reply could not be received: {}. "
                    "Bind a large result to a name and look at parts of it, or raise "
                    "BEAMTALK_MAX_TERM_BYTES.".format(msg.error))
            if msg[0] == OUTPUT:
                text = _text(msg[2])
                if msg[1] == tag and on_output is not None:
                    on_output(text)
                elif self.background is not None:
                    self.background(text)
                continue
            if msg[0] == INPUT:
                await self._answer_input(msg, tag)
                continue
            if msg[0] == TRANSCRIPT:
                if self.on_transcript is not None:
                    self.on_transcript(_text(msg[1]))
                continue
            if msg[0] == DOWN:
                self._server_mon = None
                if msg[4] == Atom("noproc"):      # gone before this request reached it
                    raise WorkspaceError(self._server_gone_text(
                        f"The workspace server on {self.ws.node_name} is not running."))
                raise WorkspaceError(self._server_gone_text(
                    f"The workspace server on {self.ws.node_name} stopped during evaluation."))
            return self._eval_reply(msg[1])

    async def _answer_input(self, msg, tag) -> None:
        """The running evaluation reads a line: ask `on_input` (a line of
        another request, or no reader: eof) and send it to the I/O server."""
        _, for_tag, io, ref, prompt = msg
        line = None
        if for_tag == tag and self.on_input is not None:
            line = await self.on_input(_text(prompt))
        self.mailbox.send(io, (INPUT, ref, EOF if line is None else line.encode("utf-8", "surrogateescape")))

    def _eval_reply(self, reply) -> EvalReply:
        # A notice (the session's evaluator was replaced) rides as one more element.
        base = 4 if reply[0] == Atom("error") else 3
        notice = _text(reply[base]) if len(reply) > base else None
        if reply[0] == TESTS:
            _, results, names = reply[:3]
            self.info["bindings"] = names
            outcomes = [_test_outcome(r) for r in results]
            return EvalReply(True, "", "tests", [str(n) for n in names], outcomes, notice)
        if reply[0] == Atom("ok"):
            _, text, names = reply[:3]
            self.info["bindings"] = names
            return EvalReply(True, _text(text), "ok", [str(n) for n in names], notice=notice)
        _, kind, text, names = reply[:4]
        self.info["bindings"] = names
        return EvalReply(False, _text(text), str(kind), [str(n) for n in names], notice=notice)

    async def class_modules(self, names) -> dict[str, str]:
        """The module each of these classes is registered from, for those the
        node knows (a load from another module redefines the class)."""
        if not names:
            return {}
        reply = await self.call((Atom("class_info"), [Atom(n) for n in sorted(names)]))
        wanted = set(names)
        return {str(e[0]): str(e[6]) for e in reply[1]
                if len(e) > 6 and str(e[0]) in wanted and e[6] not in (Atom("nil"), None)}

    async def class_table(self, names):
        """What the node knows of these classes and their superclasses (kind,
        fields, superclass), for the compiler.  Protected classes are asked
        about once per connection: the stdlib cannot be redefined."""
        from beamtalk_ws.compiler.classes import ClassTable

        table = ClassTable()
        if self._from_protected(names, table):
            return table
        reply = await self.call((Atom("class_info"), [Atom(n) for n in sorted(names)]))
        for entry in reply[1]:
            info = _class_info(entry)
            table.known[info.name] = info
            if len(entry) > 5 and entry[5] is True:
                self._protected_classes[info.name] = info
        return table

    def _from_protected(self, names, table) -> bool:
        """Fill `table` from the protected classes already known when every
        name and its superclass chain is one of them."""
        todo = list(names)
        while todo:
            info = self._protected_classes.get(todo.pop())
            if info is None:
                return False
            if info.name not in table.known:
                table.known[info.name] = info
                if info.superclass is not None:
                    todo.append(info.superclass)
        return True

    async def complete(self, request, timeout: float = 5.0) -> list[str]:
        """Ask the node for completion candidates (beamtalk_complete.erl):
        `Atom("classes")`, `(Atom("selectors"), (Atom("binding"|"instance"|"class"|"erlang"), Atom(name)))`
        or `(Atom("modules"), b"prefix")`.  Answers names as strings."""
        reply = await self.call((Atom("complete"), self.session.encode(), request), timeout=timeout)
        if not (isinstance(reply, tuple) and reply and reply[0] == Atom("ok")):
            return []
        return [_text(n) for n in reply[1]]

    async def class_docs(self, name: str, timeout: float = 5.0) -> dict | None:
        """What `:help Class` shows (beamtalk_complete:docs/1), None for an unknown class."""
        reply = await self.call((Atom("docs"), Atom(name)), timeout=timeout)
        if not (isinstance(reply, tuple) and reply and reply[0] == Atom("ok")):
            return None
        return {str(k): v for k, v in reply[1].items()}

    async def interrupt(self) -> bool:
        # the mailbox the evaluations come from: the node stops this
        # client's own request first (see beamtalk_workspace)
        reply = await self.call((Atom("interrupt"), self.session.encode(), self.mailbox.pid))
        return reply == Atom("ok")

    async def bindings(self) -> list[tuple[str, str]]:
        reply = await self.call((Atom("bindings"), self.session.encode()))
        pairs = [(str(k), _text(v)) for k, v in reply[1]]
        # `_` (the last value) is bound but not listed: keep it known
        last = [b for b in self.info.get("bindings", []) if str(b) == "_"]
        self.info["bindings"] = [Atom(k) for k, _ in pairs] + last
        return pairs

    async def clear(self) -> None:
        await self.call((Atom("clear"), self.session.encode()))
        self.info["bindings"] = []

    async def forget(self, name: str) -> bool:
        """Drop one binding of this session; False when it was not bound."""
        reply = await self.call((Atom("forget"), self.session.encode(), Atom(name)))
        if reply == Atom("ok"):
            self.info["bindings"] = [b for b in self.info.get("bindings", []) if str(b) != name]
            return True
        return False

    async def sessions(self) -> list[str]:
        reply = await self.call(Atom("sessions"))
        return [_text(s) for s in reply[1]]

    async def workspace_info(self) -> dict:
        reply = await self.call(Atom("info"))
        return {str(k): v for k, v in reply[1].items()}

    async def stop_with_client(self) -> None:
        """Make the node stop when this client goes away (ephemeral workspaces)."""
        await self.call((Atom("stop_with"), self.mailbox.pid))

    async def stop_workspace(self) -> None:
        await self.call(Atom("stop"))

    async def close(self) -> None:
        await self.node.close()


def _class_info(entry):
    """A ClassInfo from one `class_info` reply entry
    `{Name, Kind, Fields, Super, Abstract[, Protected]}`."""
    from beamtalk_ws.compiler.classes import ClassInfo

    name, kind, fields, superclass = entry[:4]
    abstract = entry[4] if len(entry) > 4 else False
    return ClassInfo(str(name), str(kind), tuple(str(f) for f in fields),
                     None if superclass in (Atom("nil"), None) else str(superclass), abstract is True)
