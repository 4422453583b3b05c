"""Newcomers' slips from Python, JavaScript, Ruby and Erlang (probe-teach):
each gets a located error whose hint names the Beamtalk way.  Before, these
said only "expected expression, found +=" or "Undefined variable: print",
and some misled (`[1, 2, 3]` was told to write `[1 ++ 2, 3]`)."""

import pytest

from beamtalk_ws.compiler import CompileError, compile_input
from beamtalk_ws.syntax import parse_with_diagnostics


def first(src):
    _m, ds = parse_with_diagnostics(src, "<input>")
    if ds:
        return ds[0]
    with pytest.raises(CompileError) as e:
        compile_input(src, frozenset({"x"}))
    return e.value.diagnostics[0]


@pytest.mark.parametrize(
    "src, message, col, hint",
    [
        ("x += 1", "expected expression, found +=", 3, "write x := x + 1"),
        ("x++", "expected expression, found ++", 2, "write x := x + 1"),
        ("x ? 1 : 2", "found ?", 3, "ifTrue: [a] ifFalse: [b]"),
        ("!x", "found !", 1, "send not (x not)"),
        ("x.foo()", "found )", 7, "write `x foo`"),
        ("#(1, 2) |> reverse", "found |", 9, "no pipe operator"),
        ("for x in list:", "found list:", 10, "coll do: [:x | ...]"),
        ("if x > 1:", "found :", 9, "ifTrue: [...] ifFalse: [...]"),
        ("while x < 50: x += 1", "found :", 13, "whileTrue:"),
        ("def foo():", "found )", 9, "`name => body`"),
        ("class Foo:", "found Foo:", 7, "Object subclass: Foo"),
        ("lists:map(fun(X) -> X end, L)", "found lists:", 1, "Erlang lists map: arg1 with: arg2"),
        ("io:format(\"~p~n\", [1])", "found io:", 1, "Erlang io format:"),
        ("[1, 2, 3]", "`[ ]` is a block, not a list", 3, "#(1, 2, 3)"),
        ("Erlang lists:seq(1, 5)", "`seq(a, b)` is not a call", 19, "Erlang lists seq: 1 with: 5"),
        ("#(1, 2) collect: [e | e * 2]", "Expected ']' to close block", 21, "[:e | ...]"),
        ("#(1, 2) inject: 0 into: [a b | a + b]", "Expected ']' to close block", 30, "[:a :b | ...]"),
    ],
)
def test_syntax_of_other_languages_gets_the_beamtalk_way(src, message, col, hint):
    d = first(src)
    assert message in d.message
    assert d.span.col == col
    assert d.hint is not None and hint in d.hint, d.hint


@pytest.mark.parametrize(
    "src, hint",
    [
        ("print(x)", "x printNl"),
        ("puts x", "x printNl"),
        ("len(x)", "x size"),
        ("null", "nil"),
        ("return x", "^x"),
        ("let y = 3", "x := 3"),
        ("import os", "no import"),
        ("lambda x: x", "[:x | x * 2]"),
        ("fun(X) -> X end", "[:x | x * 2]"),
        ("receive X -> X end", "Actor subclass"),
        ("ok", "#ok"),
        ("self", "no receiver"),
        ("frobnicate(3)", "no function calls `frobnicate(...)`"),
    ],
)
def test_words_of_other_languages_get_a_hint(src, hint):
    d = first(src)
    assert d.span.col == 1
    assert d.hint is not None and hint in d.hint, d.hint


@pytest.mark.parametrize("src", ['("a" , "b") size', 'x ifTrue: ["a" , "b"]', '#(1, 2) collect: [:e | e , 1]'])
def test_pharo_concatenation_keeps_its_hint(src):
    d = first(src)
    assert d.message == "`,` is not an operator in Beamtalk: concatenate with ++"


def test_a_beamtalk_word_that_looks_foreign_is_not_taught():
    """`print := 3` is an assignment: no hint about print functions."""
    _m, ds = parse_with_diagnostics("print := 3. print + 1", "<input>")
    assert ds == []
