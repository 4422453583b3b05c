"""A cluster as an operator meets it when things go wrong (outsider check):
a member that lost its Beamtalk, one that runs another build of it, a node
that cannot be reached, a REPL block sent to an actor on another node, and a
class loaded twice while a process there still runs its oldest code.  Plain
`erl -sname` nodes that share a cookie."""

from __future__ import annotations

import asyncio

import pytest

from plain_nodes import start_plain_node

SLEEPER = """Actor subclass: Sleeper
  state: k = {k}
  nap => (Erlang timer) sleep: 60000. self.k
  k => self.k
  apply: aBlock => aBlock value: 5
"""


@pytest.fixture
def pair(bt_home, tmp_path):
    first = start_plain_node(tmp_path, "first")
    second = start_plain_node(tmp_path, "second", cookie=first.cookie_file.read_bytes())
    try:
        yield first, second
    finally:
        for n in (first, second):
            n.stop()


async def _call(node, m, f, args):
    from beamtalk_ws.dist import rpc
    from beamtalk_ws.dist.node import Node

    n = await Node.connect(node.name, node.cookie_file.read_bytes())
    try:
        return await rpc.call(n, m, f, args)
    finally:
        await n.close()


def _session(first, src, steps):
    """Attach to `first`, load `src`, run `steps(ev, out)`; the texts it answers."""
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace import remote

    async def scenario():
        client = await remote.attach(remote.Target(first.name, first.cookie_file), "probe")
        repl = Repl(client)
        out: list[str] = []

        async def ev(code):
            return (await repl.evaluate(code, on_output=out.append)).text

        try:
            assert "Sleeper" in await ev(f":load {src}")
            return await steps(ev, out)
        finally:
            await client.close()

    return asyncio.run(scenario())


def test_spawn_on_a_node_that_cannot_be_reached_names_it_and_why(pair, tmp_path):
    """It said `the node went away` (of a node that was never there), naming neither."""
    first, second = pair
    src = tmp_path / "sleeper.bt"
    src.write_text(SLEEPER.format(k=1))
    alive, host = second.name.split("@")

    async def steps(ev, out):
        return await ev(f"Sleeper spawnOn: #'nosuch_{alive}@{host}'"), await ev("Sleeper spawnOn: #nohost")

    missing, no_host = _session(first, src, steps)
    assert (f"Message: Cannot spawn a Sleeper on nosuch_{alive}@{host}: it is not running, not "
            f"reachable, or its cookie differs") in missing
    assert "went away" not in missing
    assert "Hint: Nodes of a cluster share one cookie" in missing
    assert "Message: Cannot spawn a Sleeper on nohost: a node name looks like name@host" in no_host


def test_a_member_whose_beamtalk_was_unloaded_gets_it_again_with_no_raw_term(pair, tmp_path):
    """`beamtalk detach --node B --unload` on a member, then a `:load` in the
    workspace: it printed `⚠ B: {'EXIT',{undef,[{beamtalk_cluster,load_here,…`
    with the whole class module's binary, and the class did not reach B."""
    from beamtalk_ws.workspace import remote

    first, second = pair
    src = tmp_path / "sleeper.bt"
    src.write_text(SLEEPER.format(k=1))

    async def steps(ev, out):
        assert (await ev(f"s := Sleeper spawnOn: #'{second.name}'")) == f"a Sleeper on {second.name}"
        await remote.detach(remote.Target(second.name, second.cookie_file), unload_all=True)
        src.write_text(SLEEPER.format(k=2))
        reloaded = await ev(f":load {src}")
        again = await ev(f"t := Sleeper spawnOn: #'{second.name}'")
        return reloaded, again, await ev("t k"), "".join(out)

    reloaded, again, k, out = _session(first, src, steps)
    assert reloaded == "Loaded: Sleeper"
    assert out == ""
    assert again == f"a Sleeper on {second.name}"
    assert k == "2"


def test_a_member_running_another_beamtalk_build_is_named_with_the_way_out(pair, tmp_path):
    """It said `it runs another Beamtalk runtime (detach it with --unload
    first)`, naming no node, with the hint about cookies."""
    first, second = pair
    src = tmp_path / "sleeper.bt"
    src.write_text(SLEEPER.format(k=1))

    async def steps(ev, out):
        assert (await ev(f"Workspace connect: #'{second.name}'")) == f"#'{second.name}'"
        # another build there: one more runtime module than ours
        from beamtalk_ws.dist.terms import Atom
        await _call(second, "code", "load_binary",
                    [Atom("beamtalk_zzz_other_build"), list(b"beamtalk_zzz_other_build.beam"),
                     await _compile_empty(first, "beamtalk_zzz_other_build")])
        await _call(second, "erlang", "disconnect_node", [Atom(first.name)])
        return await ev(f"Workspace connect: #'{second.name}'"), await ev(f"Sleeper spawnOn: #'{second.name}'")

    connect, spawn = _session(first, src, steps)
    for text, what in ((connect, "Cannot connect to"), (spawn, "Cannot spawn a Sleeper on")):
        assert (f"Message: {what} {second.name}: it runs another build of Beamtalk than "
                f"{first.name}") in text, text
        assert f"beamtalk detach --node {second.name} --unload" in text, text
        assert "share one cookie" not in text, text


async def _compile_empty(node, mod):
    """An empty module's binary, compiled on `node` (we have no compiler here)."""
    from beamtalk_ws.dist.terms import Atom

    forms = [(Atom("attribute"), 1, Atom("module"), Atom(mod))]
    ok, _, binary = await _call(node, "compile", "forms", [forms, [Atom("binary")]])
    assert ok == Atom("ok")
    return binary


def test_a_repl_block_sent_to_an_actor_on_another_node_says_why_it_cannot_run_there(pair, tmp_path):
    """It answered a bare `undef`: the block's code is the REPL input's
    module, which exists only on the node the input ran on."""
    first, second = pair
    src = tmp_path / "sleeper.bt"
    src.write_text(SLEEPER.format(k=1))

    async def steps(ev, out):
        await ev(f"s := Sleeper spawnOn: #'{second.name}'")
        local = await ev("(Sleeper spawn) apply: [:x | x + 1]")
        return local, await ev("s apply: [:x | x + 1]"), await ev("s k")

    local, remote_, k = _session(first, src, steps)
    assert local == "6"
    assert (f"Message: A block typed at the REPL on {first.name} cannot run on {second.name}: code typed "
            f"at the REPL stays on the node it was typed on") in remote_, remote_
    assert "Hint: " in remote_ and ":load" in remote_
    assert k == "1"


def test_loading_a_class_twice_while_a_process_there_runs_its_oldest_code_says_so(pair, tmp_path):
    """The second load purged the oldest code, which killed the actor still
    running it on the other node, and said nothing."""
    first, second = pair
    src = tmp_path / "sleeper.bt"
    src.write_text(SLEEPER.format(k=1))

    async def steps(ev, out):
        assert (await ev(f"s := Sleeper spawnOn: #'{second.name}'")).endswith(second.name)
        assert await ev("s nap!") == "#ok"
        await asyncio.sleep(0.3)
        src.write_text(SLEEPER.format(k=2))
        assert await ev(f":load {src}") == "Loaded: Sleeper"
        src.write_text(SLEEPER.format(k=3))
        third = await ev(f":load {src}")
        return third, "".join(out), await ev("s k")

    third, out, k = _session(first, src, steps)
    assert third == "Loaded: Sleeper"
    assert (f"\u26a0 {second.name}: bt@sleeper: 1 process still ran its oldest code and was stopped "
            f"(a Sleeper on {second.name})") in out, out
    assert "terminated" in k or "not alive" in k or "stopped" in k, k


def test_a_node_still_running_old_runtime_code_is_told_in_words(pair, tmp_path):
    """The runtime's atomic load on another node answered a raw
    `{error,[{beamtalk_…,not_purged}]}` when a process there still ran old
    code of a runtime module (left by a Beamtalk removed from that node)."""
    from beamtalk_ws.dist.terms import Atom

    first, second = pair
    src = tmp_path / "sleeper.bt"
    src.write_text(SLEEPER.format(k=1))
    mod = Atom("beamtalk_print")
    loop = [(Atom("clause"), 1, [], [],
             [(Atom("receive"), 1, [(Atom("clause"), 1, [(Atom("var"), 1, Atom("_"))], [],
                                     [(Atom("call"), 1, (Atom("atom"), 1, Atom("loop")), [])])])])]
    forms = [(Atom("attribute"), 1, Atom("module"), mod),
             (Atom("attribute"), 1, Atom("export"), [(Atom("loop"), 0)]),
             (Atom("function"), 1, Atom("loop"), 0, loop)]

    async def old_code_running():
        ok, _, binary = await _call(first, "compile", "forms", [forms, [Atom("binary")]])
        assert ok == Atom("ok")
        name = list(b"beamtalk_print.beam")
        await _call(second, "code", "load_binary", [mod, name, binary])
        await _call(second, "erlang", "spawn", [mod, Atom("loop"), []])
        await _call(second, "code", "load_binary", [mod, name, binary])   # the process now runs old code

    asyncio.run(old_code_running())

    async def steps(ev, out):
        return await ev(f"Workspace connect: #'{second.name}'")

    text = _session(first, src, steps)
    assert (f"Cannot connect to {second.name}: the runtime did not load: a process there still runs the old "
            f"code of beamtalk_print (left by a Beamtalk removed from that node): stop that process or "
            f"restart the node") in text, text
    assert "not_purged" not in text
