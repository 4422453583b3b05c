"""Issue 15, item 7: a client mailbox that nothing reads stays bounded (the
oldest messages are dropped and counted), and a message over the size cap is
skipped without being read whole, its recipient told why.  Against a real
BEAM node (tests/dist_helpers.py) that floods a Python mailbox."""

from __future__ import annotations

import asyncio
import logging

from beamtalk_ws.dist import Atom as A
from beamtalk_ws.dist import codec
from beamtalk_ws.dist.connection import UndecodableMessage
from beamtalk_ws.dist.node import Mailbox, Node
from dist_helpers import erl_node_factory  # noqa: F401


async def erl_eval(node: Node, source: str, bindings: dict):
    """Run an Erlang expression on the node (rpc to erl_scan, erl_parse, erl_eval)."""
    def rpc(m, f, args):
        return node.call(A("rex"), (A("call"), A(m), A(f), args, A("user")), timeout=120)

    ok, tokens, _ = await rpc("erl_scan", "string", [list(source.encode())])
    assert ok == A("ok")
    ok, exprs = await rpc("erl_parse", "parse_exprs", [tokens])
    assert ok == A("ok"), exprs
    return await rpc("erl_eval", "exprs", [exprs, [(A(k), v) for k, v in bindings.items()]])


async def test_200k_unreceived_messages_keep_the_mailbox_bounded(erl_node_factory, caplog):
    erl = erl_node_factory()
    node = await Node.connect(erl.name, erl.cookie)
    try:
        mb = node.mailbox()
        probe = node.mailbox()
        caplog.set_level(logging.WARNING, logger="beamtalk_ws.dist.node")
        # 200 000 messages of 1 KB that nothing receives, then one we wait for.
        await erl_eval(node, "B = binary:copy(<<\"x\">>, 1024), "
                             "lists:foreach(fun(I) -> P ! {junk, I, B} end, lists:seq(1, 200000)), "
                             "Q ! done.", {"P": mb.pid, "Q": probe.pid})
        assert await probe.receive(timeout=120) == A("done")
        assert len(mb.pending()) == Mailbox.max_messages
        assert mb.dropped == 200_000 - Mailbox.max_messages
        # the newest are kept, in order
        kept = mb.pending()
        assert kept[0][1] == 200_000 - Mailbox.max_messages + 1 and kept[-1][1] == 200_000
        assert "dropped" in caplog.text and "unreceived messages" in caplog.text
        # and the mailbox still works: a selective receive finds a kept message
        assert (await mb.receive(timeout=5, match=lambda m: m[1] == 200_000))[1] == 200_000
    finally:
        await node.close()


async def test_byte_bound_drops_big_messages(erl_node_factory):
    erl = erl_node_factory()
    node = await Node.connect(erl.name, erl.cookie)
    try:
        mb = node.mailbox()
        mb.max_bytes = 1 << 20                  # a per-mailbox bound, here 1 MiB
        probe = node.mailbox()
        await erl_eval(node, "B = binary:copy(<<\"y\">>, 100000), "
                             "lists:foreach(fun(I) -> P ! {big, I, B} end, lists:seq(1, 50)), Q ! done.",
                       {"P": mb.pid, "Q": probe.pid})
        await probe.receive(timeout=60)
        assert 1 <= len(mb.pending()) <= 11 and mb.dropped == 50 - len(mb.pending())
    finally:
        await node.close()


async def test_a_message_over_the_cap_is_skipped_and_its_call_fails_clearly(erl_node_factory):
    erl = erl_node_factory()
    node = await Node.connect(erl.name, erl.cookie)
    codec.set_max_size(100_000)
    try:
        mb = node.mailbox()
        probe = node.mailbox()
        # 3 MB: over the cap plus the room kept for the control message (1 MiB)
        await erl_eval(node, "P ! binary:copy(<<\"z\">>, 3000000), Q ! after_it.",
                       {"P": mb.pid, "Q": probe.pid})
        got = await mb.receive(timeout=60)
        assert isinstance(got, UndecodableMessage)
        assert "a message of" in str(got.error) and "exceeds the limit of 100000 bytes" in str(got.error)
        # the stream stayed in step: the next message arrives intact
        assert await probe.receive(timeout=60) == A("after_it")
        assert node.is_connected
    finally:
        codec.set_max_size(None)
        await node.close()


async def test_bounded_mailbox_hands_a_reply_to_its_waiter(erl_node_factory):
    """A receive that is waiting gets its message even while the queue overflows."""
    erl = erl_node_factory()
    node = await Node.connect(erl.name, erl.cookie)
    try:
        mb = node.mailbox()
        mb.max_messages = 10
        waiting = asyncio.ensure_future(mb.receive(timeout=60, match=lambda m: m == A("the_reply")))
        await asyncio.sleep(0)
        await erl_eval(node, "lists:foreach(fun(I) -> P ! I end, lists:seq(1, 1000)), P ! the_reply, "
                             "lists:foreach(fun(I) -> P ! I end, lists:seq(1, 1000)).", {"P": mb.pid})
        assert await waiting == A("the_reply")
        assert len(mb.pending()) == 10
    finally:
        await node.close()
