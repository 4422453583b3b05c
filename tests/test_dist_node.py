"""The distribution client against real BEAM nodes started by the tests.

The shared node runs ``bt_dist_echo`` (see ``dist_helpers.ECHO_MODULE``) with
``net_ticktime`` 4 so that the tick test is quick.  Tests that stop or kill a
node start their own.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import time

import pytest
from hypothesis import HealthCheck, given, settings

from beamtalk_ws.dist import (
    Atom,
    AuthenticationFailed,
    BitBinary,
    CallTimeout,
    ConnectionLost,
    DistError,
    EpmdUnreachable,
    ExportFun,
    FrozenList,
    FrozenMap,
    HandshakeError,
    ImproperList,
    LocalFun,
    Node,
    NodeNotRegistered,
    Pid,
    Port,
    ProcessDown,
    Reference,
    decode,
    encode,
)
from dist_helpers import erl_node_factory, erl_terms, same_term, start_erl_node  # noqa: F401

A = Atom
ECHO = "bt_echo"


@pytest.fixture(scope="module")
def echo_node():
    n = start_erl_node(ticktime=4)
    yield n
    n.stop()


@pytest.fixture
async def node(echo_node):
    n = await Node.connect(echo_node.name, echo_node.cookie)
    yield n
    await n.close()


async def ask(mb, *parts, timeout=10.0):
    """Send ``{MyPid, Part1, ...}`` to the echo process and return its reply."""
    mb.send(ECHO, (mb.pid, *parts))
    return await mb.receive(timeout=timeout)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- connecting


async def test_connect_as_hidden_node_and_rpc(node, echo_node):
    assert node.remote == A(echo_node.name)
    assert node.name.startswith("bt_py_") and node.name.endswith("@localhost")
    assert node.is_connected
    reply = await node.call(A("rex"), (A("call"), A("erlang"), A("node"), [], A("user")))
    assert reply == A(echo_node.name)
    mb = node.mailbox()
    tag, hidden, visible = await ask(mb, A("nodes"))
    assert tag == A("nodes") and node.name in hidden and node.name not in visible


async def test_wrong_cookie_is_reported_promptly(echo_node):
    t0 = time.monotonic()
    with pytest.raises(AuthenticationFailed) as info:
        await Node.connect(echo_node.name, "not-the-cookie")
    assert time.monotonic() - t0 < 2.0
    assert str(info.value) == "authentication failed: the cookie does not match the node's cookie"
    assert "not-the-cookie" not in str(info.value) and echo_node.cookie not in str(info.value)


async def test_epmd_unreachable():
    port = free_port()
    with pytest.raises(EpmdUnreachable) as info:
        await Node.connect("beamtalk_x@localhost", "c", epmd_port=port)
    assert str(info.value) == (
        f"epmd is not reachable at 127.0.0.1:{port} — is the workspace node running?"
    )


async def test_unregistered_node(echo_node):
    with pytest.raises(NodeNotRegistered) as info:
        await Node.connect("nobody_here_4711@localhost", echo_node.cookie)
    assert str(info.value) == "node 'nobody_here_4711' is not registered with epmd on 127.0.0.1"


async def test_bad_node_name_is_a_value_error():
    with pytest.raises(ValueError, match="name@host"):
        await Node.connect("no_host_part", "c")


# --------------------------------------------------------------------------- terms


async def test_terms_made_on_the_node_round_trip(node, echo_node):
    mb = node.mailbox()
    remote = A(echo_node.name)
    names = ["pid", "ref", "port", "export_fun", "local_fun", "bits", "bits_multi", "map_keys",
             "large_map", "improper", "big", "neg_big", "huge", "ints", "utf8_atom", "floats",
             "string", "unicode_list", "binary", "empties", "large_tuple", "nested", "booleans"]
    made = {}
    for name in names:
        tag, n, term, ttb = await ask(mb, A("make"), A(name))
        assert (tag, n) == (A("made"), A(name))
        # what came over the wire equals what term_to_binary says, and re-encodes to it exactly
        assert same_term(decode(ttb), term), name
        assert encode(term) == ttb, name
        assert await ask(mb, A("same"), A(name), term) == (A("same"), A(name), True), name
        made[name] = term

    assert isinstance(made["pid"], Pid) and made["pid"].node == remote
    assert isinstance(made["ref"], Reference) and made["ref"].node == remote
    assert isinstance(made["port"], Port) and made["port"].node == remote
    assert made["export_fun"] == ExportFun(A("lists"), A("reverse"), 1)
    assert isinstance(made["local_fun"], LocalFun) and made["local_fun"].module == A("bt_dist_echo")
    assert made["local_fun"].free_vars[1] == [A("a"), b"b"]
    assert made["bits"] == BitBinary(b"\x20", 3)
    assert same_term(made["map_keys"], {
        FrozenMap({A("a"): 1}): [A("x")],
        FrozenList([1, 2]): (A("y"),),
        (FrozenList([3]), FrozenMap()): A("z"),
        FrozenList(): A("e"),
    })
    assert made["large_map"] == {i: i * i for i in range(1, 101)}
    assert made["improper"] == ImproperList((1, 2), A("c"))
    assert made["huge"] == 1 << 5000 and made["neg_big"] == -(1 << 100)
    assert made["ints"] == [0, 255, 256, -1, 2147483647, -2147483648, 2147483648]
    assert made["utf8_atom"] == A("\U0001F600héllo")
    assert same_term(made["floats"], [1.5, -0.1, 1.0e300, 5.0e-324, 0.0])
    assert made["string"] == list(b"hello")
    assert made["unicode_list"] == [ord(c) for c in "héllo \U0001F600"]
    assert made["binary"] == "héllo".encode()
    assert same_term(made["empties"], ([], b"", (), {}, A("")))
    assert made["large_tuple"] == tuple(range(1, 301))
    assert same_term(made["booleans"], (True, False, A("undefined")))


async def test_local_fun_with_free_variables_still_runs_on_the_node(node):
    mb = node.mailbox()
    _, _, fun, _ = await ask(mb, A("make"), A("local_fun"))
    x = fun.free_vars[0]
    assert await ask(mb, A("apply_fun"), fun, [1]) == (A("applied"), (x + 1, [A("a"), b"b"]))
    exported = ExportFun(A("lists"), A("reverse"), 1)  # built in Python
    assert await ask(mb, A("apply_fun"), exported, [[1, 2, 3]]) == (A("applied"), [3, 2, 1])


PYTHON_TERMS = {
    # name in bt_dist_echo:expected/1 -> what Python sends
    "atom": A("héllo"),
    "utf8_atom": A("\U0001F600x"),
    "booleans": (True, False),
    "big": 1 << 100,
    "neg_big": -(1 << 100),
    "huge": -(1 << 5000),
    "ints": [0, 255, 256, -1, 2147483647, -2147483648, 2147483648, -2147483649],
    "float": 1.5,
    "floats": [0.1, -2.5e-300, 1.0e300],
    "str_binary": "héllo \U0001F600",
    "bytes": b"\x01\x02\x03",
    "bits": BitBinary(b"\x20", 3),
    "bits_multi": BitBinary(b"\xff\x28", 5),
    "improper": ImproperList((1, 2), A("c")),
    "string": [97, 98, 99],
    "mixed_list": [256, 1 << 70, A("a")],
    "map_keys": {FrozenMap({A("a"): 1}): [A("x")], FrozenList([1, 2]): (A("y"),),
                 (FrozenList([3]),): A("z")},
    "nested": ([(A("a"), [b"b"])], {A("k"): ()}),
    "empties": ([], b"", (), {}, A("")),
    "export_fun": ExportFun(A("lists"), A("reverse"), 1),
    "large_tuple": tuple(range(1, 301)),
    "long_atom": A("é" * 255),
}


async def test_terms_built_in_python_are_what_the_node_expects(node):
    mb = node.mailbox()
    for name, term in PYTHON_TERMS.items():
        tag, n, ok, theirs = await ask(mb, A("expect"), A(name), term)
        assert (tag, n, ok) == (A("expect"), A(name), True), name
        mine = term.encode() if type(term) is str else term  # str travels as a binary
        assert same_term(theirs, mine), name


async def test_our_pids_refs_and_mailbox_identity_survive_the_trip(node):
    mb = node.mailbox()
    ref = node.make_ref()
    tag, back, _ = await ask(mb, A("echo"), (mb.pid, ref, node.make_ref()))
    assert tag == A("echo") and back[0] == mb.pid and back[1] == ref and back[2] != ref
    assert mb.pid.node == node.name and mb.pid.creation == node.creation != 0


async def test_deep_nesting_both_ways(node):
    mb = node.mailbox()
    n = 100_000
    tag, deep = await ask(mb, A("deep"), A("list"), n)
    depth, t = 0, deep
    while t:
        t, depth = t[0], depth + 1
    assert (tag, depth) == (A("deep"), n)
    assert await ask(mb, A("check_deep"), A("list"), n, deep) == (A("check_deep"), True)
    mine: tuple = ()
    for _ in range(n):
        mine = (mine,)
    assert await ask(mb, A("check_deep"), A("tuple"), n, mine) == (A("check_deep"), True)


async def test_multi_megabyte_frames(node):
    mb = node.mailbox()
    size = 8 * 1024 * 1024
    tag, data = await ask(mb, A("big_binary"), size)
    assert tag == A("big_binary") and data == b"\x07" * size
    assert await ask(mb, A("check_big_binary"), data) == (A("check_big_binary"), size, True)


@pytest.mark.filterwarnings("ignore:Generating overly large repr")
def test_random_terms_round_trip_through_the_node(echo_node):
    loop = asyncio.new_event_loop()
    node = loop.run_until_complete(Node.connect(echo_node.name, echo_node.cookie))
    try:
        mb = node.mailbox()

        @settings(max_examples=100, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow])
        @given(erl_terms())
        def check(term):
            mb.send(ECHO, (mb.pid, A("echo"), term))
            tag, back, ttb = loop.run_until_complete(mb.receive(timeout=10))
            assert tag == A("echo")
            assert same_term(back, term)  # Python -> node -> Python
            assert same_term(decode(ttb), term)  # and the node's own encoding of what it got

        check()
    finally:
        loop.run_until_complete(node.close())
        loop.close()


# --------------------------------------------------------------------------- mailboxes


async def test_selective_receive_keeps_order(node):
    mb = node.mailbox()
    for i in range(5):
        mb.send(mb.pid, (A("n"), i))
    assert await mb.receive(match=lambda m: m[1] == 3) == (A("n"), 3)
    assert [await mb.receive(timeout=1) for _ in range(4)] == [(A("n"), i) for i in (0, 1, 2, 4)]
    with pytest.raises(TimeoutError):
        await mb.receive(timeout=0.05)
    waiting = asyncio.ensure_future(mb.receive(timeout=5, match=lambda m: m == A("wanted")))
    await asyncio.sleep(0)
    mb.send(mb.pid, A("other"))
    mb.send(mb.pid, A("wanted"))
    assert await waiting == A("wanted")
    assert mb.pending() == [A("other")]


async def test_a_message_handed_to_a_cancelled_receive_is_not_lost(node):
    mb = node.mailbox()
    mb.send(mb.pid, A("first"))
    receiver = asyncio.ensure_future(mb.receive(match=lambda m: m == A("second")))
    await asyncio.sleep(0)  # the receiver is now waiting
    mb.send(mb.pid, A("second"))  # handed over to the waiting receive...
    mb.send(mb.pid, A("third"))
    receiver.cancel()  # ...which is cancelled before it runs again
    with pytest.raises(asyncio.CancelledError):
        await receiver
    assert mb.pending() == [A("first"), A("second"), A("third")]
    with pytest.raises(TimeoutError):
        await mb.receive(timeout=0, match=lambda m: m == A("fourth"))
    assert await mb.receive(timeout=0) == A("first")


async def test_registered_mailbox_and_ping_from_the_node(node):
    named = node.mailbox("py_inbox")
    with pytest.raises(ValueError, match="already registered"):
        node.mailbox("py_inbox")
    mb = node.mailbox()
    assert await ask(mb, A("send_named"), A("py_inbox"), node.name, (A("hi"), 1)) == A("sent")
    assert await named.receive(timeout=5) == (A("hi"), 1)
    assert await ask(mb, A("ping"), node.name) == (A("ping"), A("pong"))


# --------------------------------------------------------------------------- call


async def test_call_gen_server_style(node):
    assert await node.call(A(ECHO), (A("echo"), [1, 2])) == (A("echoed"), [1, 2])
    mb = node.mailbox()
    _, server = await ask(mb, A("spawn_server"))
    assert await node.call(server, (A("reply"), {A("k"): b"v"})) == {A("k"): b"v"}
    results = await asyncio.gather(*(node.call(server, (A("reply"), i)) for i in range(50)))
    assert results == list(range(50))


async def test_call_to_missing_registered_process_fails_at_once(node, echo_node):
    t0 = time.monotonic()
    with pytest.raises(ProcessDown) as info:
        await node.call(A("beamtalk_workspace"), A("hello"), timeout=5)
    assert time.monotonic() - t0 < 1.0
    assert info.value.reason == A("noproc")
    assert str(info.value) == (
        f"process beamtalk_workspace on node {echo_node.name} is not running (noproc)"
    )


async def test_call_to_server_that_crashes(node):
    mb = node.mailbox()
    _, server = await ask(mb, A("spawn_server"))
    with pytest.raises(ProcessDown) as info:
        await node.call(server, (A("crash"), (A("shutdown"), A("boom"))))
    assert info.value.reason == (A("shutdown"), A("boom"))
    assert "exited during the call (reason: {shutdown,boom})" in str(info.value)
    with pytest.raises(ProcessDown, match="noproc"):  # now it is dead
        await node.call(server, (A("reply"), 1))


async def test_call_timeout_then_server_still_usable(node):
    mb = node.mailbox()
    _, server = await ask(mb, A("spawn_server"))
    t0 = time.monotonic()
    with pytest.raises(CallTimeout) as info:
        await node.call(server, A("silent"), timeout=0.3)
    assert 0.25 < time.monotonic() - t0 < 2.0
    assert isinstance(info.value, TimeoutError)
    assert "got no reply within 0.3 s" in str(info.value)
    assert await node.call(server, (A("reply"), 7)) == 7


# --------------------------------------------------------------------------- links, monitors


async def test_link_then_exit_is_delivered(node):
    mb = node.mailbox()
    _, child = await ask(mb, A("spawn_child"))
    mb.link(child)
    mb.send(child, (A("die"), (A("bye"), 1)))
    assert await mb.receive(timeout=5) == (A("EXIT"), child, (A("bye"), 1))


async def test_node_process_links_to_us(node):
    mb = node.mailbox()
    mb.send(ECHO, (mb.pid, A("spawn_linked_child")))
    tag, child = await mb.receive(timeout=5)
    assert tag == A("child")
    mb.send(child, (A("die"), A("oops")))
    assert await mb.receive(timeout=5) == (A("EXIT"), child, A("oops"))


async def test_unlinked_exit_is_not_delivered(node):
    mb = node.mailbox()
    _, child = await ask(mb, A("spawn_child"))
    mb.link(child)
    mb.unlink(child)
    mb.send(child, (A("die"), A("quietly")))
    with pytest.raises(TimeoutError):
        await mb.receive(timeout=0.3)


async def test_linking_to_a_dead_process_gives_noproc(node):
    mb = node.mailbox()
    _, child = await ask(mb, A("spawn_child"))
    ref = mb.monitor(child)
    mb.send(child, (A("die"), A("normal")))
    assert (await mb.receive(timeout=5))[:2] == (A("DOWN"), ref)
    mb.link(child)
    assert await mb.receive(timeout=5) == (A("EXIT"), child, A("noproc"))


async def test_monitor_and_down(node, echo_node):
    mb = node.mailbox()
    _, child = await ask(mb, A("spawn_child"))
    ref = mb.monitor(child)
    assert isinstance(ref, Reference) and ref.node == node.name
    mb.send(child, (A("die"), A("gone")))
    assert await mb.receive(timeout=5) == (A("DOWN"), ref, A("process"), child, A("gone"))
    # by name, for a name nobody registered: DOWN noproc at once, reporting {Name, Node}
    ref2 = mb.monitor("nobody_registered")
    assert await mb.receive(timeout=5) == (
        A("DOWN"), ref2, A("process"), (A("nobody_registered"), A(echo_node.name)), A("noproc"))
    # after demonitor nothing arrives
    _, child2 = await ask(mb, A("spawn_child"))
    ref3 = mb.monitor(child2)
    assert mb.demonitor(ref3) is True
    mb.send(child2, (A("die"), A("gone")))
    with pytest.raises(TimeoutError):
        await mb.receive(timeout=0.3)


async def test_exit_signal_from_node(node):
    mb = node.mailbox()
    mb.send(ECHO, (mb.pid, A("exit2"), mb.pid, A("you_go")))
    msgs = [await mb.receive(timeout=5) for _ in range(2)]
    exits = [m for m in msgs if m[0] == A("EXIT")]
    assert len(exits) == 1 and exits[0][2] == A("you_go") and isinstance(exits[0][1], Pid)
    assert A("exit2_sent") in msgs


async def test_node_sees_our_mailbox_die(node):
    reporter = node.mailbox()
    target = node.mailbox()
    assert await ask(reporter, A("watch"), target.pid, reporter.pid) == A("watching")
    assert await ask(reporter, A("link_watch"), target.pid, reporter.pid) == A("linked")
    target.close((A("done"), 1))
    got = {await reporter.receive(timeout=5), await reporter.receive(timeout=5)}
    assert got == {(A("saw_down"), target.pid, (A("done"), 1)),
                   (A("saw_exit"), target.pid, (A("done"), 1))}
    with pytest.raises(DistError, match="closed"):
        await target.receive(timeout=1)
    # a monitor on a pid of ours that does not exist fires at once with noproc
    ghost = Pid(node.name, 32000, 0, node.creation)
    assert await ask(reporter, A("watch"), ghost, reporter.pid) == A("watching")
    assert await reporter.receive(timeout=5) == (A("saw_down"), ghost, A("noproc"))


# --------------------------------------------------------------------------- ticks, loss


async def test_ticks_keep_an_idle_connection_alive(node):
    # the node runs with net_ticktime 4: it would drop a peer that does not answer ticks
    await asyncio.sleep(5.5)
    assert node.is_connected and node._conn.ticks_received >= 2
    assert await node.call(A(ECHO), (A("echo"), 1)) == (A("echoed"), 1)


async def test_close_fails_pending_receives(echo_node):
    n = await Node.connect(echo_node.name, echo_node.cookie)
    mb = n.mailbox()
    pending = asyncio.ensure_future(mb.receive())
    await asyncio.sleep(0)
    await n.close()
    with pytest.raises(ConnectionLost, match=f"connection to node {echo_node.name} lost"):
        await pending
    assert n.closed.done() and n.closed.result() is None
    with pytest.raises(ConnectionLost):
        n.mailbox()


async def test_handshake_timeout_and_killed_node(erl_node_factory):
    victim = erl_node_factory()
    lost: list = []
    n = await Node.connect(victim.name, victim.cookie, on_connection_lost=lost.append)
    mb = n.mailbox()
    pending_receive = asyncio.ensure_future(mb.receive(timeout=30))
    pending_call = asyncio.ensure_future(n.call(A("rex"), A("never_answered"), timeout=30))

    # A frozen node still accepts TCP connections but never answers the handshake.
    victim.proc.send_signal(signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        with pytest.raises(HandshakeError, match="did not finish within 0.5 s"):
            await Node.connect(victim.name, victim.cookie, timeout=0.5)
        assert time.monotonic() - t0 < 2.0
    finally:
        victim.proc.send_signal(signal.SIGCONT)

    victim.stop()  # SIGKILL: the socket closes under us
    message = f"connection to node {victim.name} lost"
    with pytest.raises(ConnectionLost, match=message):
        await asyncio.wait_for(pending_receive, 5)
    with pytest.raises(ConnectionLost, match=message):
        await asyncio.wait_for(pending_call, 5)
    result = await asyncio.wait_for(n.closed, 5)
    assert isinstance(result, ConnectionLost) and lost == [result]
    assert not n.is_connected
    with pytest.raises(ConnectionLost):
        mb.send(ECHO, 1)
    with pytest.raises(ConnectionLost):
        await mb.receive(timeout=1)
    await n.close()  # closing a lost node is harmless
