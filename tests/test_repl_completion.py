"""Completion: the text analysis alone, the engine against a real node, and
`--json`'s `complete` op (the same engine)."""

from __future__ import annotations

import asyncio
import json

import pytest

from beamtalk_ws.repl.analysis import Context, analyse
from beamtalk_ws.repl.completer import CompletionEngine

from conftest import run_beamtalk


@pytest.mark.parametrize("text, expected", [
    ("x pri", Context("selector", "pri", 2, ("binding", "x"))),
    ("x", Context("primary", "x", 0)),
    ("y := x si", Context("selector", "si", 7, ("binding", "x"))),
    ("zork pri", Context("none")),                                   # not bound
    ("3 fa", Context("selector", "fa", 2, ("instance", "Integer"))),
    ("3.5 ro", Context("selector", "ro", 4, ("instance", "Float"))),
    ('"abc" si', Context("selector", "si", 6, ("instance", "String"))),
    ("#foo si", Context("selector", "si", 5, ("instance", "Symbol"))),
    ("#(1, 2) inj", Context("selector", "inj", 8, ("instance", "List"))),
    ("#[1] si", Context("selector", "si", 5, ("instance", "Array"))),
    ("#{#a => 1} ke", Context("selector", "ke", 11, ("instance", "Dictionary"))),
    ("[:a | a] va", Context("selector", "va", 9, ("instance", "Block"))),
    ("true an", Context("selector", "an", 5, ("instance", "True"))),
    ("nil is", Context("selector", "is", 4, ("instance", "UndefinedObject"))),
    ("Integer ne", Context("selector", "ne", 8, ("class", "Integer"))),
    ("Erlang li", Context("selector", "li", 7, ("erlang-class", "Erlang"))),
    ("Erlang lists re", Context("selector", "re", 13, ("erlang", "lists"))),
    ("Erlang lists ", Context("selector", "", 13, ("erlang", "lists"))),
    ("x foo: 3 pr", Context("selector", "pr", 9, ("instance", "Integer"), (("binding", "x"), "foo:"))),
    ("(3 + 4) pr", Context("none")),                                # receiver not known from the text
    # the next keyword of the message being written
    ("3 between: 1 a", Context("selector", "a", 13, ("instance", "Integer"), (("instance", "Integer"), "between:"))),
    ("3 between: 1 + 1 a", Context("selector", "a", 17, ("instance", "Integer"), (("instance", "Integer"), "between:"))),
    ("d := #{} at: #k put: 2 ifA", Context("selector", "ifA", 23, ("instance", "Integer"),
                                           (("instance", "Dictionary"), "at:put:"))),
    ("3 between: (1 + 1) ", Context("selector", "", 19, None, (("instance", "Integer"), "between:"))),
    ("x + 3 between: 1 a", Context("selector", "a", 17, ("instance", "Integer"))),  # receiver not an operand
    # metaclasses, parentheses, unary chains (what the node cannot tell stays a chain)
    ("Counter class th", Context("selector", "th", 14, ("metaclass", "Counter"))),
    ("Counter class class isM", Context("selector", "isM", 20, ("chain", ("metaclass", "Counter"), ("class",)))),
    ("Metaclass class th", Context("selector", "th", 16, ("metaclass", "Metaclass"))),
    ("Integer class isM", Context("selector", "isM", 14, ("metaclass", "Integer"))),
    ("3 class class th", Context("selector", "th", 14, ("metaclass", "Integer"))),
    ("#(1) class ne", Context("selector", "ne", 11, ("class", "List"))),
    ('"a {x} b" class ne', Context("selector", "ne", 16, ("class", "String"))),
    ("(Counter class) thisC", Context("selector", "thisC", 16, ("metaclass", "Counter"))),
    ("((Counter) class) th", Context("selector", "th", 18, ("metaclass", "Counter"))),
    ("(y := Counter class) th", Context("selector", "th", 21, ("metaclass", "Counter"))),
    ("x := (Counter class) th", Context("selector", "th", 21, ("metaclass", "Counter"))),
    ("(x) pr", Context("selector", "pr", 4, ("binding", "x"))),
    ("(((x))) pr", Context("selector", "pr", 8, ("binding", "x"))),
    ("x yourself pr", Context("selector", "pr", 11, ("binding", "x"))),
    ("x class ne", Context("selector", "ne", 8, ("chain", ("binding", "x"), ("class",)))),
    ("x size pr", Context("selector", "pr", 7, ("chain", ("binding", "x"), ("size",)))),
    ("Object classBuilder ad", Context("selector", "ad", 20, ("chain", ("class", "Object"), ("classBuilder",)))),
    ("3 printString si", Context("selector", "si", 14, ("chain", ("instance", "Integer"), ("printString",)))),
    ("[:a | a] value pr", Context("selector", "pr", 15, ("chain", ("instance", "Block"), ("value",)))),
    ("(Erlang lists) re", Context("selector", "re", 15, ("erlang", "lists"))),
    ("Erlang class th", Context("selector", "th", 13, ("metaclass", "Erlang"))),  # a message to the class Erlang, as compiled
    ("Erlang lists th", Context("selector", "th", 13, ("erlang", "lists"))),
    ("Erlang lists reverse fo", Context("none")),                   # what an Erlang function answers
    ("zork size pr", Context("none")),
    ("(x foo: 3) pr", Context("none")),
    ("self class ne", Context("none")),
    ("x foo; ba", Context("none")),
    ('"abc pr', Context("none")),                                    # inside a string
    ("x // note pr", Context("none")),                               # inside a comment
    ("Int", Context("primary", "Int", 0)),
    ("x := 3. y", Context("primary", "y", 8)),
    ("[:a | a + b", Context("primary", "b", 10)),
    (":he", Context("command", ":he", 0)),
    (":load sc", Context("path", "sc", 6)),
    (":l ", Context("path", "", 3)),
    (":watch sr", Context("path", "sr", 7)),
    (":help Int", Context("class", "Int", 6)),
    (":help Integer fa", Context("help-selector", "fa", 14, ("instance", "Integer"))),
    (":emit forms x pr", Context("selector", "pr", 14, ("binding", "x"))),
])
def test_analyse(text, expected):
    assert analyse(text, {"x"}) == expected


@pytest.fixture
async def engine(repl):
    return CompletionEngine(repl, timeout=5.0)


def texts(found):
    return [c.text for c in found]


async def test_binding_selectors(repl, engine):
    await repl.evaluate("x := 3")
    found = await engine.complete("x pri")
    assert set(texts(found)) >= {"printString"}
    assert all(c.start == 2 for c in found)
    assert "factorial" in texts(await engine.complete("x fac"))
    await repl.evaluate("l := #(3, 1)")
    assert "inject:into:" in texts(await engine.complete("l inj"))
    # the cursor decides, not the end of the text
    assert "factorial" in texts(await engine.complete("x fac + 1", cursor=5))


async def test_erlang_module_exports_as_selectors(engine):
    assert texts(await engine.complete("Erlang lists re")) == ["reverse:", "reverse:with:"]
    seq = texts(await engine.complete("Erlang lists se"))
    assert "seq:with:" in seq and "seq:with:with:" in seq
    assert "foldl:with:with:" in texts(await engine.complete("Erlang lists fol"))
    assert "now" in texts(await engine.complete("Erlang erlang no"))


async def test_erlang_module_names(engine):
    found = texts(await engine.complete("Erlang lis"))
    assert "lists" in found
    assert all(f.startswith("lis") for f in found)


async def test_module_proxy_in_a_binding(repl, engine):
    await repl.evaluate("m := Erlang lists")
    assert "reverse:" in texts(await engine.complete("m rev"))


async def test_classes_bindings_and_class_side(repl, engine):
    await repl.evaluate("counterValue := 1")
    assert "Integer" in texts(await engine.complete("Int"))
    assert "counterValue" in texts(await engine.complete("coun"))
    assert "new" in texts(await engine.complete("Integer ne"))
    assert "true" in texts(await engine.complete("tr"))


CMPL_COUNTER = """Object subclass: CmplCounter
  classState: bumps = 0
  class make => self new
  class bump =>
    self.bumps := self.bumps + 1
    self
  class bumps => self.bumps
  count => 0
"""


@pytest.mark.parametrize("code, expected", [
    # a metaclass answers Metaclass's protocol (`CmplCounter class respondsTo: #make` is false)
    ("CmplCounter class th", ["thisClass"]),
    ("CmplCounter class ma", []),
    ("(CmplCounter class) thisC", ["thisClass"]),
    ("Metaclass class th", ["thisClass"]),
    ("CmplCounter class class isM", {"isMeta", "isMetaclass"}),       # Metaclass (a class)
    ("Integer class isM", {"isMeta", "isMetaclass"}),
    ("3 class class th", ["thisClass"]),
    ("Zork class th", []),
    # unary chains whose result the runtime knows without running anything
    ("Object classBuilder ad", ["addClassMethod:body:", "addClassVariable:default:", "addField:default:",
                                "addMethod:body:"]),
    ("nil classBuilder regi", ["register"]),
    ("3 printString si", ["size"]),
    ("CmplCounter name asStr", ["asString"]),
    ("CmplCounter new cou", ["count"]),
    ("CmplCounter class thisClass ma", ["make"]),
    ("CmplCounter superclass classB", ["classBuilder"]),
    ("CmplCounter ma", ["make"]),
    # a method of the user's: what it answers is not known, and it is not run
    ("CmplCounter make cou", []),
    ("CmplCounter bump ma", []),
    # a workspace global is its value
    ("Transcript sh", ["show:", "showCr:"]),
])
async def test_metaclass_and_chain_receivers(repl, engine, code, expected):
    await repl.evaluate(CMPL_COUNTER)
    found = texts(await engine.complete(code))
    if isinstance(expected, set):
        assert set(found) >= expected
    else:
        assert sorted(found) == expected


async def test_a_metaclass_completes_as_a_binding_to_it(repl, engine):
    """`CmplCounter class ` offers what `m ` offers for `m := CmplCounter class`
    (the runtime's own answer, `respondsTo:`), and `x class class ` on a
    binding the same as `3 class class `."""
    await repl.evaluate(CMPL_COUNTER)
    await repl.evaluate("m := CmplCounter class")
    await repl.evaluate("x := 3")
    meta = texts(await engine.complete("CmplCounter class "))
    assert meta and meta == texts(await engine.complete("m "))
    assert "thisClass" in meta and "make" not in meta
    assert texts(await engine.complete("x class class ")) == texts(await engine.complete("3 class class "))
    assert texts(await engine.complete("x printString si")) == ["size"]


async def test_completing_a_chain_runs_nothing(repl, engine):
    await repl.evaluate(CMPL_COUNTER)
    builders = "(Workspace actorsOf: ClassBuilder) size"
    before = (await repl.evaluate(builders)).text
    assert texts(await engine.complete("Object classBuilder ad"))        # would spawn a ClassBuilder
    assert texts(await engine.complete("CmplCounter bump bump ma")) == []
    assert (await repl.evaluate(builders)).text == before
    assert (await repl.evaluate("CmplCounter bumps")).text == "0"


async def test_classes_defined_in_the_session_appear_at_once(repl, engine):
    assert texts(await engine.complete("CompletionFres")) == []
    await repl.evaluate("Object subclass: CompletionFresh\n  hello => 1\n")
    assert texts(await engine.complete("CompletionFres")) == ["CompletionFresh"]
    await repl.evaluate("c := CompletionFresh new")
    assert texts(await engine.complete("c hel")) == ["hello"]


async def test_commands_paths_and_help(engine, tmp_path, monkeypatch):
    assert texts(await engine.complete(":he")) == [":help"]
    assert sorted(texts(await engine.complete(":w"))) == [":watch", ":workspace"]
    (tmp_path / "sub").mkdir()
    (tmp_path / "counter.bt").write_text("")
    (tmp_path / "notes.txt").write_text("")
    monkeypatch.chdir(tmp_path)
    assert texts(await engine.complete(":load ")) == ["counter.bt", "sub/"]
    assert texts(await engine.complete(":l co")) == ["counter.bt"]
    assert texts(await engine.complete(":watch s")) == ["sub/"]
    assert texts(await engine.complete(f":load {tmp_path}/c")) == [f"{tmp_path}/counter.bt"]
    assert "Integer" in texts(await engine.complete(":help Integ"))
    assert "factorial" in texts(await engine.complete(":help Integer fact"))


async def test_nothing_while_typing_until_a_word_is_started(repl, engine):
    await repl.evaluate("x := 3")
    assert await engine.complete("x ", explicit=False) == []
    assert await engine.complete("x ", explicit=True)


async def test_a_slow_answer_is_not_waited_for(repl):
    """With no time at all, nothing is answered, and the late answer serves
    the next request."""
    await repl.evaluate("x := 3")
    impatient = CompletionEngine(repl, timeout=0.0)
    assert await impatient.complete("x fac") == []
    for _ in range(100):
        found = await impatient.complete("x fac")
        if found:
            break
        await asyncio.sleep(0.05)
    assert texts(found) == ["factorial"]


def test_json_complete_op(workspace):
    requests = [{"id": 1, "op": "eval", "code": "x := 3"},
                {"id": 2, "op": "complete", "code": "x pri", "cursor": 5},
                {"id": 3, "op": "complete", "code": "Erlang lists re"},
                {"id": 4, "op": "complete", "code": "x fac + 1", "cursor": 5},
                {"id": 5, "op": "complete", "code": "x", "cursor": 9},
                {"id": 6, "op": "complete"}]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id, "--session", "json-complete"],
                        input="".join(json.dumps(r) + "\n" for r in requests))
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert replies[0] == {"id": 1, "value": "3"}
    assert replies[1]["id"] == 2 and "printString" in replies[1]["completions"]
    assert replies[2] == {"id": 3, "completions": ["reverse:", "reverse:with:"]}
    assert replies[3] == {"id": 4, "completions": ["factorial"]}
    assert replies[4]["id"] == 5 and "cursor" in replies[4]["error"]
    assert replies[5]["id"] == 6 and "code" in replies[5]["error"]


async def test_erlang_module_names_are_only_ones_that_can_be_written(engine):
    # `Erlang OTP-PUB-KEY` (an asn1 module on the code path) does not parse:
    # completion offers only module names that read as an identifier.
    found = [c.text for c in await engine.complete("Erlang ", timeout=5) if c.meta == "module"]
    assert "application" in found
    odd = [f for f in found if not (f[:1].islower() and f.replace("_", "a").isalnum())]
    assert odd == []


async def test_the_next_keyword_of_a_message_is_offered(repl, engine):
    # `3 between: 1 a` + Tab: `and:` (of between:and:) before 1's unary selectors
    got = [c.text for c in await engine.complete("3 between: 1 a")]
    assert got[0] == "and:" and "abs" in got, got
    await repl.evaluate("d := Dictionary new")
    got = [(c.text, c.meta) for c in await engine.complete("d at: #k ifAb")]
    assert [w for w, _ in got] == ["ifAbsent:", "ifAbsentPut:"], got
    # a message nobody continues offers only the argument's selectors
    got = [c.text for c in await engine.complete("3 max: 4 ab")]
    assert got == ["abs"], got
