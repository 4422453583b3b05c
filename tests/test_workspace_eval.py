"""Evaluation on a real workspace node: bindings, errors, output, interrupt,
closures and the atom table (issue 2, DESIGN D3/D5)."""

from __future__ import annotations

import asyncio

from beamtalk_ws.compiler import forms as F
from beamtalk_ws.dist.terms import Atom


def eval_module(body_exprs, result, new_bindings=None, extra_functions=()):
    """Raw forms for an eval module, for behaviour the first slice cannot type."""
    nb = new_bindings if new_bindings is not None else F.var("B0")
    clause = F.clause([F.var("B0")], [], list(body_exprs) + [F.tuple_([result, nb])])
    return [
        F.attribute("module", Atom("$bt_eval")),
        F.attribute("export", [(Atom("eval"), 1)]),
        F.function("eval", [clause]),
        *extra_functions,
        F.eof(),
    ]


async def test_assignment_then_use(repl):
    out = await repl.evaluate("x := 3 + 4")
    assert (out.ok, out.text) == (True, "7")
    out = await repl.evaluate("x * 2")
    assert (out.ok, out.text) == (True, "14")


async def test_several_statements_bind_all_and_show_last(repl):
    out = await repl.evaluate("x := 1. y := x + 5.")
    assert out.text == "6"
    pairs = dict(await repl.client.bindings())
    assert pairs == {"x": "1", "y": "6"}


async def test_display_of_literals(repl):
    cases = {
        "3.5": "3.5", "1.0": "1.0", "10 / 2": "5.0", "2 ** 10": "1024", "7 % 3": "1",
        '"HELLO"': '"HELLO"', '"say ""hi"""': '"say ""hi"""', "#microsecond": "#microsecond",
        "#at:put:": "#at:put:", "#(3, 2, 1)": "#(3, 2, 1)", "#()": "#()",
        "#{#b => 2, #a => 1}": "#{#a => 1, #b => 2}", "nil": "nil", "true": "true",
        "$A": "65", "#[1, 2]": "#[1, 2]", "#a -> \"x\"": "#a -> \"x\"",
        "1 = 1": "true", "1 == 1.0": "true", "1 =:= 1.0": "false", "3 > 2": "true",
        "100 * 100 * 100 * 100 * 100 * 100 * 100": "100000000000000",
        '"a" ++ "b"': '"ab"', "#(1) ++ #(2)": "#(1, 2)", '"x = {3 + 4}!"': '"x = 7!"',
    }
    for code, expected in cases.items():
        out = await repl.evaluate(code)
        assert (code, out.ok, out.text) == (code, True, expected)


async def test_unbound_name_is_a_compile_error_and_evaluates_nothing(repl):
    out = await repl.evaluate("y := 1. zork + 1")
    assert not out.ok and out.kind == "compile"
    assert "Undefined variable: zork" in out.text
    assert await repl.client.bindings() == []


async def test_runtime_error_keeps_bindings_and_binds_error(repl):
    await repl.evaluate("a := 5")
    out = await repl.evaluate("a := 6. b := 1 / 0")
    assert not out.ok
    assert out.text.startswith("ERROR: #RuntimeError")
    assert "Message: badarith" in out.text
    pairs = dict(await repl.client.bindings())
    assert pairs["a"] == "5" and "b" not in pairs and "_error" in pairs


async def test_output_streams_before_the_reply(repl):
    seen = []
    out = await repl.evaluate('Erlang io format: "one~n". Erlang io format: "two~n". 42', on_output=seen.append)
    assert "".join(seen) == "one\ntwo\n"
    assert out.text == "42"


async def test_interrupt_runaway_sleep(repl):
    await repl.evaluate("keep := 99")
    started = asyncio.Event()
    task = asyncio.ensure_future(repl.evaluate('Erlang io format: "go~n". Erlang timer sleep: 60000',
                                               on_output=lambda t: started.set()))
    await asyncio.wait_for(started.wait(), 30)
    assert await repl.client.interrupt()
    out = await asyncio.wait_for(task, 5)
    assert not out.ok and out.kind == "interrupted" and out.text == "Interrupted"
    assert dict(await repl.client.bindings()) == {"keep": "99"}
    assert (await repl.evaluate("keep + 1")).text == "100"


async def test_interrupt_busy_loop_built_as_forms(client):
    # loop(N) -> loop(N + 1): a CPU-bound runaway with no receive in it.
    loop_fn = F.function("loop", [F.clause([F.var("N")], [], [
        F.local_call("loop", [F.op("+", F.var("N"), F.integer(1))])])])
    forms = eval_module([], F.local_call("loop", [F.integer(0)]), extra_functions=[loop_fn])
    task = asyncio.ensure_future(client.eval(forms))
    while not await client.interrupt():  # `idle` until the evaluation has started
        await asyncio.sleep(0.05)
    reply = await asyncio.wait_for(task, 5)
    assert reply.kind == "interrupted"
    ok = await client.eval(eval_module([], F.integer(1)))
    assert ok.ok and ok.text == "1"


async def test_timeout_is_reported_and_session_survives(client):
    forms = eval_module([], F.call("timer", "sleep", [F.integer(5000)]))
    reply = await client.eval(forms, timeout_ms=200)
    assert reply.kind == "timeout" and reply.text == "Request timed out"
    assert (await client.eval(eval_module([], F.integer(2)))).text == "2"


async def test_closures_in_bindings_survive_later_inputs(client):
    # f := fun(X) -> X * K end, with K captured: a fun made by an input module.
    k = F.match(F.var("K"), F.integer(10))
    fun = F.fun([F.clause([F.var("X")], [], [F.op("*", F.var("X"), F.var("K"))])])
    nb = F.map_update(F.var("B0"), [(F.atom("f"), F.var("Fn"))])
    made = await client.eval(eval_module([k, F.match(F.var("Fn"), fun)], F.atom("ok"), nb), unique=True)
    assert made.ok
    # Many later inputs, both kinds, reload scratch and add unique modules.
    for i in range(30):
        r = await client.eval(eval_module([], F.integer(i)), unique=(i % 3 == 0))
        assert r.ok
    call = F.call("erlang", "apply", [
        F.call("beamtalk_workspace", "lookup", [F.atom("f"), F.var("B0")]), F.list_([F.integer(4)])])
    r = await client.eval(eval_module([], call))
    assert (r.ok, r.text) == (True, "40")


async def test_inputs_without_blocks_do_not_grow_the_atom_table(repl):
    await repl.evaluate("n := 0")
    for _ in range(5):  # warm up: the first inputs load modules and intern their atoms
        await repl.evaluate("n := n + 1")
    before = int((await repl.evaluate("Erlang erlang system_info: #atom_count")).text)
    for _ in range(100):
        assert (await repl.evaluate("n := n + 1")).ok
    after = int((await repl.evaluate("Erlang erlang system_info: #atom_count")).text)
    assert after - before < 5, (before, after)
    assert (await repl.evaluate("n")).text == "105"


async def test_sessions_have_separate_bindings(workspace, client):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    await Repl(client).evaluate("only := 1")
    other = await WorkspaceClient.connect(workspace, session=client.session + "-other")
    try:
        out = await Repl(other).evaluate("only")
        assert not out.ok and "Undefined variable: only" in out.text
    finally:
        await other.close()


async def test_reattaching_resumes_the_session(workspace, client):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    await Repl(client).evaluate("kept := #yes")
    again = await WorkspaceClient.connect(workspace, session=client.session)
    try:
        assert "kept" in again.bound_names
        assert (await Repl(again).evaluate("kept")).text == "#yes"
    finally:
        await again.close()


async def test_commands(repl):
    await repl.evaluate("v := 2")
    assert (await repl.evaluate(":bindings")).text == "  v = 2"
    assert (await repl.evaluate(":clear")).text == "Bindings cleared."
    assert (await repl.evaluate(":b")).text == "No bindings."
    hint = await repl.evaluate("bindings")
    assert hint.text == "Hint: did you mean `:bindings`? REPL commands start with `:`"
    assert (await repl.evaluate(":q")).quit
