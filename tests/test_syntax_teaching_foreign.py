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
        ("x += 1", "expected expression, found +=", 3, "write `x := x + 1`"),
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
        ("p x := 5", "Assignment target must be", 1, "`p x: value`"),
        ("spawn(fun() -> ok end)", "Expected ')' to close parentheses", 10, "a block is the function"),
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
        ('f"hello {x}"', "interpolates by itself"),
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


def test_a_pharo_comment_in_a_class_body_is_named_a_string():
    """It used to end the class, and the method below was "outside a class"."""
    src = 'Object subclass: Cmt\n  "A comment, Pharo style"\n  foo => 1\n'
    _m, ds = parse_with_diagnostics(src, "cmt.bt")
    assert len(ds) == 1 and ds[0].message.startswith("A String is not a comment")
    assert (ds[0].span.line, ds[0].span.col) == (2, 3) and "//" in ds[0].hint


def test_a_string_after_a_class_at_the_repl_is_still_a_statement():
    """Spec §7.4: with no method below it the String ends the class, as before."""
    m, ds = parse_with_diagnostics('Object subclass: Cmt2\n  "just a string"', "<input>")
    assert ds == [] and len(m.items) == 2


def test_pharo_instance_variable_names_in_a_class_body_names_state():
    src = "Object subclass: P2\n  instanceVariableNames: 'a b'\n  foo => 1\n"
    d = first(src)
    assert (d.span.line, d.span.col) == (2, 3) and "state: balance = 0" in d.hint


def test_a_call_on_a_method_line_says_the_rest_is_outside_the_class():
    """`greet: name => print("Hello " + name)`: by spec §7.4 the `(...)` is a
    top-level statement, where `name` is undefined; the hint says why."""
    from beamtalk_ws.compiler.check import semantic_pass
    src = 'Object subclass: Greeter\n  greet: name =>\n    print("Hello " + name)\n'
    m, _ = parse_with_diagnostics(src, "py.bt")
    ds = semantic_pass(m, src, "py.bt")
    assert [(d.span.line, d.span.col) for d in ds] == [(3, 5), (3, 22)]
    assert "printNl" in ds[0].hint and "outside the class" in ds[1].hint


def test_a_method_body_at_column_0_says_to_indent_it():
    d = first("Object subclass: Ind\n  bar =>\n1 + 2")
    assert d.message == "Method `bar` has an empty body" and "indent the body" in d.hint
