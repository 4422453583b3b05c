"""Clusters: `Workspace nodes`, `Workspace connect:`, `spawnOn:`, class modules
on every connected node, hot reload reaching them.  Plain `erl -sname` nodes
that share a cookie, as the nodes of a cluster do."""

from __future__ import annotations

import asyncio

import pytest

from plain_nodes import start_plain_node

COUNTER = """Actor subclass: Counter
  state: n = 0
  inc => self.n := self.n + {step}
  n => self.n
"""


@pytest.fixture
def cluster(bt_home, tmp_path):
    first = start_plain_node(tmp_path, "first")
    cookie = first.cookie_file.read_bytes()
    second = start_plain_node(tmp_path, "second", cookie=cookie)
    later = start_plain_node(tmp_path, "later", cookie=cookie)
    try:
        yield first, second, later
    finally:
        for n in (first, second, later):
            n.stop()


async def _connect(a, b) -> None:
    from beamtalk_ws.dist import rpc
    from beamtalk_ws.dist.node import Node
    from beamtalk_ws.dist.terms import Atom

    n = await Node.connect(a.name, a.cookie_file.read_bytes())
    try:
        assert await rpc.call(n, "net_kernel", "connect_node", [Atom(b.name)]) is True
    finally:
        await n.close()


async def _rpc(node, m, f, *args):
    from beamtalk_ws.dist import rpc
    from beamtalk_ws.dist.node import Node
    from beamtalk_ws.dist.terms import Atom

    n = await Node.connect(node.name, node.cookie_file.read_bytes())
    try:
        return await rpc.call(n, m, f, [Atom(a) for a in args])
    finally:
        await n.close()


def test_actor_spawned_on_another_node_answers_and_reloads_there(cluster, tmp_path):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import remote

    first, second, later = cluster
    asyncio.run(_connect(first, second))
    src = tmp_path / "counter.bt"
    src.write_text(COUNTER.format(step=1))

    async def scenario():
        client = await remote.attach(remote.Target(first.name, first.cookie_file), "c1")
        repl = Repl(client)
        out = []

        async def ev(code):
            o = await repl.evaluate(code, on_output=out.append)
            return o.text

        try:
            assert await ev("Workspace nodes") == f"#(#'{second.name}')"
            assert "Counter" in await ev(f":load {src}")
            assert await ev(f"c := Counter spawnOn: #'{second.name}'") == f"a Counter on {second.name}"
            assert await ev("c inc; inc") == "2"
            assert await ev("(Erlang erlang) node: c pid") == f"#'{second.name}'"
            assert await ev("c n") == "2"
            local = await ev("d := Counter spawn")
            assert local == "a Counter"

            src.write_text(COUNTER.format(step=10))
            assert "Counter" in await ev(":reload")
            assert await ev("c inc") == "12"               # new code on the second node, state kept
            assert await ev("d inc") == "10"

            # a node that joins later gets the runtime and the current classes
            assert await ev(f"Workspace connect: #'{later.name}'") == f"#'{later.name}'"
            assert await ev(f"e := Counter spawnOn: #'{later.name}'") == f"a Counter on {later.name}"
            assert await ev("e inc") == "10"
            a, b = sorted([second.name, later.name])
            assert await ev("Workspace nodes") == f"#(#'{a}', #'{b}')"
            assert all("\u26a0" not in t for t in out)

            # a node where loading fails is named; the others get the new code
            await _rpc(later, "code", "stick_mod", "bt@counter")
            src.write_text(COUNTER.format(step=100))
            reloaded = await repl.evaluate(":reload", on_output=out.append)
            assert reloaded.ok, reloaded.text
            assert "".join(out) == f"\u26a0 {later.name}: loading bt@counter failed: sticky_directory\n"
            assert await ev("c inc") == "112"
            assert await ev("e inc") == "20"                # the old code still runs there
        finally:
            await client.close()

    asyncio.run(scenario())


def test_cluster_errors_are_clear(cluster, tmp_path):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import remote

    first, second, _ = cluster
    alive, host = second.name.split("@")

    async def scenario():
        client = await remote.attach(remote.Target(first.name, first.cookie_file), "c2")
        repl = Repl(client)
        try:
            gone = (await repl.evaluate(f"Workspace connect: #'nosuch_{alive}@{host}'")).text
            assert (await repl.evaluate("Actor subclass: Pinger\n  ping => #pong\n")).text == "Pinger"
            wrong = (await repl.evaluate("Pinger spawnOn: 42")).text
            local_only = (await repl.evaluate(f"Pinger spawnOn: #'{second.name}'")).text
            bad = (await repl.evaluate("Workspace connect: 42")).text
            return gone, wrong, bad, local_only
        finally:
            await client.close()

    gone, wrong, bad, local_only = asyncio.run(scenario())
    assert f"Cannot connect to nosuch_{alive}@{host}: it is not running" in gone
    assert "ERROR: #TypeError" in bad and "connect: expects a node name" in bad
    assert "ERROR: #TypeError" in wrong and "spawnOn: expects a node name" in wrong and "not 42" in wrong
    assert f"Message: Pinger is not defined on {second.name}" in local_only
    assert "a class typed at the REPL stays on this one" in local_only


def test_a_cluster_node_going_away_is_named(cluster, tmp_path):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import remote

    first, second, _ = cluster
    src = tmp_path / "counter.bt"
    src.write_text(COUNTER.format(step=1))

    async def scenario():
        client = await remote.attach(remote.Target(first.name, first.cookie_file), "c3")
        repl = Repl(client)
        try:
            await repl.evaluate(f":load {src}")
            assert (await repl.evaluate(f"c := Counter spawnOn: #'{second.name}'")).text.endswith(second.name)
            assert (await repl.evaluate("c inc")).text == "1"
            second.stop()
            after = (await repl.evaluate("c inc")).text
            still = (await repl.evaluate("3 + 4")).text
            return after, still
        finally:
            await client.close()

    after, still = asyncio.run(scenario())
    assert after.startswith("ERROR: #RuntimeError") or after.startswith("ERROR: ")
    assert (f"Message: Cannot send 'inc' to a Counter on {second.name}: node {second.name} went away, "
            f"with every actor that ran there") in after
    assert still == "7"



def test_attaching_to_one_node_leaves_the_others_alone_until_a_class_is_loaded(cluster, tmp_path):
    from plain_nodes import probe

    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import remote

    first, second, _ = cluster
    asyncio.run(_connect(first, second))
    src = tmp_path / "counter.bt"
    src.write_text(COUNTER.format(step=1))

    async def scenario():
        client = await remote.attach(remote.Target(first.name, first.cookie_file), "c4")
        repl = Repl(client)
        try:
            assert (await repl.evaluate("3 + 4")).text == "7"
            untouched = (await probe(second))["beamtalk_modules"]
            await repl.evaluate(f":load {src}")
            loaded = (await probe(second))["beamtalk_modules"]
            return untouched, loaded
        finally:
            await client.close()

    untouched, loaded = asyncio.run(scenario())
    assert untouched == []
    assert "bt@counter" in loaded and "beamtalk_attach" in loaded


def test_attaching_to_a_node_that_runs_beamtalk_for_the_cluster_names_the_home_node(cluster, tmp_path):
    """`repl --node` on a node that got Beamtalk from another node's cluster said
    "runs another Beamtalk (cluster; this beamtalk is …)" and offered --upgrade,
    which throws away the actors the cluster runs there."""
    from conftest import run_beamtalk

    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import remote

    first, second, _ = cluster
    asyncio.run(_connect(first, second))
    src = tmp_path / "counter.bt"
    src.write_text(COUNTER.format(step=1))

    async def scenario():
        client = await remote.attach(remote.Target(first.name, first.cookie_file), "c5")
        repl = Repl(client)
        try:
            await repl.evaluate(f":load {src}")
            assert (await repl.evaluate(f"k := Counter spawnOn: #'{second.name}'")).ok
        finally:
            await client.close()

    asyncio.run(scenario())
    r = run_beamtalk(["repl", "--node", second.name, "--cookie-file", str(second.cookie_file)],
                     input="3 + 4\n", timeout=120)
    assert r.returncode == 1
    assert r.stderr.strip() == (
        f"beamtalk: Node {second.name} runs Beamtalk as a member of {first.name}'s cluster (its classes "
        f"and actors are served from there; it has no workspace of its own). Attach to {first.name} "
        f"instead (`spawnOn: #'{second.name}'` starts actors here), or add --upgrade to give it a "
        f"Beamtalk of its own (the actors the cluster runs on it are lost).")
