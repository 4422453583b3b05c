"""Code generation without a node: the forms for representative inputs,
pinned as printed Erlang terms (source beside the forms it becomes)."""

from __future__ import annotations

import pytest

from beamtalk_ws.compiler import CompileError, compile_input
from beamtalk_ws.compiler.forms import format_term
from beamtalk_ws.syntax import SyntaxErrors


def body(source, bound=()):
    """The printed body expressions of eval/1 for `source`."""
    forms = compile_input(source, frozenset(bound)).forms
    function = forms[2]
    clause = function[4][0]
    return [format_term(e) for e in clause[4]]


SNAPSHOTS = [
    ("3 + 4 * 2", [
        "{match,1,{var,1,'T1'},{op,1,'*',{integer,1,4},{integer,1,2}}}",
        "{match,1,{var,1,'T2'},{op,1,'+',{integer,1,3},{var,1,'T1'}}}",
        "{tuple,1,[{var,1,'T2'},{var,1,'Bindings0'}]}",
    ]),
    ("x := 1", [
        "{tuple,1,[{integer,1,1},{map,1,{var,1,'Bindings0'},[{map_field_assoc,1,{atom,1,x},{integer,1,1}}]}]}",
    ]),
    ("y", [
        "{match,1,{var,1,'B1'},{call,1,{remote,1,{atom,1,beamtalk_workspace},{atom,1,lookup}},"
        "[{atom,1,y},{var,1,'Bindings0'}]}}",
        "{tuple,1,[{var,1,'B1'},{var,1,'Bindings0'}]}",
    ]),
    ("2 ** 3", [
        "{match,1,{var,1,'T1'},{call,1,{remote,1,{atom,1,erlang},{atom,1,round}},[{call,1,{remote,1,"
        "{atom,1,math},{atom,1,pow}},[{call,1,{remote,1,{atom,1,erlang},{atom,1,float}},[{integer,1,2}]},"
        "{call,1,{remote,1,{atom,1,erlang},{atom,1,float}},[{integer,1,3}]}]}]}}",
        "{tuple,1,[{var,1,'T1'},{var,1,'Bindings0'}]}",
    ]),
    ('"hé"', ["{tuple,1,[{bin,1,[{bin_element,1,{string,1,[104,233]},default,[utf8]}]},{var,1,'Bindings0'}]}"]),
    ("#sym", ["{tuple,1,[{atom,1,sym},{var,1,'Bindings0'}]}"]),
    ("7 % 2 = 1", [
        "{match,1,{var,1,'T1'},{op,1,'rem',{integer,1,7},{integer,1,2}}}",
        "{match,1,{var,1,'T2'},{op,1,'=:=',{var,1,'T1'},{integer,1,1}}}",
        "{tuple,1,[{var,1,'T2'},{var,1,'Bindings0'}]}",
    ]),
    ("Erlang lists reverse: #(1, 2)", [
        "{match,1,{var,1,'T1'},{call,1,{remote,1,{atom,1,beamtalk_erlang},{atom,1,invoke}},"
        "[{atom,1,lists},{atom,1,reverse},{cons,1,{cons,1,{integer,1,1},{cons,1,{integer,1,2},{nil,1}}},{nil,1}}]}}",
        "{tuple,1,[{var,1,'T1'},{var,1,'Bindings0'}]}",
    ]),
]


@pytest.mark.parametrize("source,expected", SNAPSHOTS, ids=[s for s, _ in SNAPSHOTS])
def test_forms_snapshot(source, expected):
    assert body(source, bound={"y"}) == expected


def test_module_shape():
    forms = compile_input("1", frozenset()).forms
    printed = [format_term(f) for f in forms]
    assert printed[0] == "{attribute,1,module,'$bt_eval'}"
    assert printed[1] == "{attribute,1,export,[{eval,1}]}"
    assert printed[-1] == "{eof,1}"


def test_undefined_variables_all_reported_with_locations():
    with pytest.raises(CompileError) as err:
        compile_input("a + 1.\nb := 2.\nb + c", frozenset())
    msgs = [(d.message, d.span.line, d.span.col) for d in err.value.diagnostics]
    assert msgs == [("Undefined variable: a", 1, 1), ("Undefined variable: c", 3, 5)]
    rendered = err.value.render()
    assert "<input>:3:5: Undefined variable: c" in rendered
    assert "  b + c\n      ^" in rendered


def test_bound_names_are_defined():
    assert compile_input("x + 1", frozenset({"x"})).forms


def test_self_outside_method():
    with pytest.raises(CompileError, match="self can only be used inside a method body"):
        compile_input("self", frozenset())


def test_syntax_errors_come_from_the_parser():
    with pytest.raises(SyntaxErrors) as err:
        compile_input("]", frozenset())
    assert "Unexpected token: expected expression, found ]" in err.value.render()


def test_assigning_a_field_of_a_builder_blocks_receiver_says_how_to_change_it():
    """`me.n := ...` in a block given to addMethod:body: is another object's
    field by the rules; the hint shows the message that does change it."""
    with pytest.raises(CompileError) as err:
        compile_input("b addMethod: #tick body: [:me | me.n := me.n + 1]", frozenset({"b"}))
    d = err.value.diagnostics[0]
    assert d.message.startswith("Cannot assign to a field of another object")
    assert "`me fieldAt: #n put: value`" in d.hint


def test_self_cannot_be_bound_by_a_match_pattern():
    with pytest.raises(CompileError) as err:
        compile_input("3 match: [self -> 1]")
    assert err.value.diagnostics[0].message == "self cannot be bound by a pattern"


@pytest.mark.parametrize("source, message, line", [
    # the second `a` silently won: `Gz new foo: 1 bar: 2` answered 2
    ("Object subclass: Gz\n  foo: a bar: a => a", "Duplicate parameter `a` in method `foo:bar:`", 2),
    ("Object subclass: Gz\n  class foo: a bar: a => a", "Duplicate parameter `a` in method `foo:bar:`", 2),
    ("Object subclass: Gz\n  foo => [:a :b :a | a] value: 1 value: 2 value: 3",
     "Duplicate parameter `a` in block", 2),
    ("[:a :a | a] value: 1 value: 2", "Duplicate parameter `a` in block", 1),
    # a second `state: x` silently replaced the first one's default
    ("Object subclass: Fd\n  state: x = 1\n  state: x = 2", "Duplicate state `x` in class Fd", 3),
    ("Object subclass: Fd\n  classState: n = 1\n  classState: n = 2", "Duplicate classState `n` in class Fd", 3),
])
def test_duplicate_names_in_one_scope_are_errors(source, message, line):
    with pytest.raises(CompileError) as err:
        compile_input(source, frozenset())
    d = err.value.diagnostics[0]
    assert (d.message, d.span.line) == (message, line)


def test_the_same_name_in_state_and_classstate_is_not_a_duplicate():
    # spec semantics §3.5: instance slots and class variables are separate
    assert compile_input("Object subclass: Fe\n  state: n = 1\n  classState: n = 2\n  n => self.n",
                         frozenset()).forms


def test_duplicate_parameters_in_a_loaded_file_are_errors_too():
    from beamtalk_ws.compiler.modules import compile_file
    from beamtalk_ws.syntax import parse

    source = "Object subclass: Gz\n  foo: a bar: a => a\n"
    with pytest.raises(CompileError) as err:
        compile_file(parse(source, "gz.bt"), source, "gz.bt")
    assert err.value.render().startswith("gz.bt:2:3: Duplicate parameter `a` in method `foo:bar:`")


def test_a_lower_case_superclass_is_a_compile_error():
    # `object subclass: Foo` passed `beamtalk check` and failed only on the
    # node ("Class 'object' not found")
    with pytest.raises(CompileError) as err:
        compile_input("object subclass: Foo9\n  bar => 1", frozenset())
    d = err.value.diagnostics[0]
    assert (d.message, d.span.line, d.span.col) == (
        "Invalid superclass name object: a class name starts with an upper-case letter (A-Z)", 1, 1)
    assert d.hint == "did you mean Object?"
