"""Memory growth per input (issue 15, item 4).

Inputs with block literals run in modules lent by beamtalk_code_pool, so
10 000 of them leave the atom table and the loaded modules where they were,
while closures that something keeps (bindings, actor state, an ETS table,
Workspace globals, a class built at the REPL) keep working.
"""

from __future__ import annotations

from beamtalk_ws.compiler import compile_input

from helpers import ok

N_INPUTS = 10_000

HOLDER = """\
Actor subclass: GrowthHolder
  state: blk = nil
  keep: b => self.blk := b
  run: x => self.blk value: x
"""

ADDER = """\
Object subclass: GrowthAdder
  add: x => #(1, 2, 3) inject: x into: [:a :b | a + b]
"""


async def figures(repl) -> dict[str, int]:
    """Atoms, loaded modules and total memory of the node, after a sweep of
    the code pool (what a sweep on a later input would do anyway)."""
    await ok(repl, "Erlang beamtalk_code_pool sweep")
    return {"atoms": int(await ok(repl, "Erlang erlang system_info: #atom_count")),
            "modules": int(await ok(repl, "(Erlang code all_loaded) size")),
            "memory": int(await ok(repl, "Erlang erlang memory: #total"))}


async def block_inputs(client, n: int):
    """n inputs that make closures and drop them.  Sent as compiled forms:
    the Python compile is not what is measured, and each input still
    compiles and loads a module of its own on the node.  Eight different
    blocks, so shared code is not what keeps the counts flat."""
    variants = [compile_input(f"[:x | x + {k}] value: {k}") for k in range(8)]
    assert all(v.unique for v in variants)
    for i in range(n):
        r = await client.eval(variants[i % len(variants)].forms, unique=True)
        assert r.ok and r.text == str(2 * (i % len(variants))), r.text


async def keep_closures(repl):
    """Closures in every place one can live, each made by its own input."""
    await ok(repl, "kept := [:x | x * 2]")
    await ok(repl, HOLDER)
    await ok(repl, "holder := GrowthHolder spawn")
    await ok(repl, "holder keep: [:x | x * 3]")
    await ok(repl, "tab := Erlang ets new: #growth_kept with: #(#set, #public)")
    await ok(repl, "Erlang ets insert: tab with: (Erlang erlang list_to_tuple: #(#k, [:x | x * 5]))")
    await ok(repl, "Workspace bind: [:x | x * 7] as: #GrowthKept")
    await ok(repl, ADDER)


async def check_kept(repl):
    assert await ok(repl, "kept value: 10") == "20"
    assert await ok(repl, "holder run: 10") == "30"
    assert await ok(repl, "((Erlang ets lookup: tab with: #k) first at: 2) value: 10") == "50"
    assert await ok(repl, "GrowthKept value: 10") == "70"
    assert await ok(repl, "GrowthAdder new add: 10") == "16"


async def test_ten_thousand_block_inputs_stay_flat_and_kept_closures_work(repl):
    await keep_closures(repl)
    await check_kept(repl)
    # Warm up: the first uses of the pool and of the figures' own calls
    # intern atoms (about 300 for the latter) that later inputs share.
    await block_inputs(repl.client, 50)
    await figures(repl)
    before = await figures(repl)
    await block_inputs(repl.client, N_INPUTS)
    after = await figures(repl)
    print(f"\n{N_INPUTS} block inputs: before {before}, after {after}")
    assert after["atoms"] - before["atoms"] <= 50, (before, after)
    assert after["modules"] - before["modules"] <= 50, (before, after)
    await check_kept(repl)


async def test_a_dropped_closure_frees_its_module_and_a_kept_one_pins_it(repl):
    await block_inputs(repl.client, 20)
    await ok(repl, "Erlang beamtalk_code_pool sweep")
    pinned = int(await ok(repl, "(Erlang beamtalk_code_pool stats) at: #pending"))
    await ok(repl, "pin := [:x | x + 1]")
    await ok(repl, "Erlang beamtalk_code_pool sweep")
    assert int(await ok(repl, "(Erlang beamtalk_code_pool stats) at: #pending")) == pinned + 1
    await block_inputs(repl.client, 40)
    assert await ok(repl, "pin value: 1") == "2"
    await ok(repl, "pin := nil")
    await ok(repl, "Erlang beamtalk_code_pool sweep")
    assert int(await ok(repl, "(Erlang beamtalk_code_pool stats) at: #pending")) == pinned


async def test_a_closure_held_only_by_an_actor_or_a_message_survives_sweeps(repl):
    await ok(repl, HOLDER)
    await ok(repl, "h2 := GrowthHolder spawn")
    await ok(repl, "h2 keep: [:x | x - 1]")
    # A process that has the closure only in its mailbox.
    await ok(repl, "inbox := Erlang erlang spawn: [Erlang timer sleep: 600000]")
    await ok(repl, "Erlang erlang send: inbox with: [:x | x - 2]")
    for _ in range(3):
        await block_inputs(repl.client, 40)
        await ok(repl, "Erlang beamtalk_code_pool sweep")
    assert await ok(repl, "h2 run: 10") == "9"
    msgs = "(Erlang erlang process_info: inbox with: #messages) at: 2"
    assert await ok(repl, f"({msgs}) first value: 10") == "8"


async def test_evals_through_the_compiler_peer_reuse_module_names(repl):
    code = 'Erlang beamtalk eval: "[:x | x + 1] value: 2"'
    assert await ok(repl, code) == "{#ok, 3}"
    await ok(repl, f"1 to: 20 do: [:i | {code}]")
    before = int(await ok(repl, "Erlang erlang system_info: #atom_count"))
    await ok(repl, f"1 to: 300 do: [:i | {code}]")
    after = int(await ok(repl, "Erlang erlang system_info: #atom_count"))
    assert after - before <= 20, (before, after)
