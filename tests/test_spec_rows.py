"""Rules of spec/syntax.md and spec/semantics.md checked row by row from
outside (the spec-probe round): each test is an input an outsider wrote from
the spec, whose answer was wrong or unhelpful before.  No node needed: these
are parser and compiler answers (the node-side rows are in
`tests/scenarios/spec_rows.scn`)."""

from __future__ import annotations

import pytest

from beamtalk_ws.compiler import CompileError, compile_input
from beamtalk_ws.compiler.modules import compile_file
from beamtalk_ws.syntax import SyntaxErrors, parse, parse_with_diagnostics


def compile_error(source, bound=()):
    with pytest.raises(CompileError) as err:
        compile_input(source, frozenset(bound))
    return err.value.diagnostics


def file_error(source):
    with pytest.raises(CompileError) as err:
        compile_file(parse(source, "x.bt"), source, "x.bt")
    return err.value.diagnostics


def parse_error(source):
    return parse_with_diagnostics(source)[1]


# -- syntax §4: list/array/map elements are binary-level expressions ----------

@pytest.mark.parametrize("source, element", [
    ("#(d respondsTo: #speak, 2)", "(d respondsTo: #speak)"),
    ("#(1, x at: 1)", "(x at: 1)"),
    ("#[x at: 1 put: 2]", "(x at: 1 put: 2)"),
    ("#{#a => x max: 3}", "(x max: 3)"),
    ("#(#(3, 1) inject: 0 into: [:a :b | a + b], 1)", "(#(3, 1) inject: 0 into: [:a :b | a + b])"),
])
def test_keyword_message_in_a_literal_keeps_the_spec_error_and_shows_the_parentheses(source, element):
    """`#(d respondsTo: #speak, ...)` is an error by spec syntax §4 (elements
    are binary expressions); the hint shows the element in parentheses."""
    [d] = parse_error(source)
    assert d.message.startswith("Expected ")
    assert "literal" in d.message
    assert d.hint is not None and element in d.hint, d.hint


# -- syntax §4 notes: "A repeated variable in one pattern is a compile error" --

def test_repeated_variable_in_one_pattern_is_a_compile_error():
    [d] = compile_error("t := 3. t match: [{a, a} -> a; _ -> 0]")
    assert d.message == "Variable `a` appears twice in one match pattern"
    assert (d.span.line, d.span.col) == (1, 23)
    assert "when:" in d.hint


def test_repeated_variable_in_a_method_pattern_is_a_compile_error():
    [d] = file_error("Object subclass: Rp\n  f: t => t match: [{a, {b, a}} -> a; _ -> 0]\n")
    assert d.message == "Variable `a` appears twice in one match pattern"
    assert (d.span.line, d.span.col) == (2, 29)


def test_the_same_variable_in_two_arms_is_fine():
    assert compile_input("t := 3. t match: [{a, 1} -> a; {1, a} -> a; a -> a]").forms


def test_wildcards_may_repeat():
    assert compile_input("t := 3. t match: [{_, _} -> 1; _ -> 0]").forms


# -- syntax §4 notes: guards are `when: [expr]` (any expression) --------------

@pytest.mark.parametrize("source", [
    "5 match: [x when: [x > 10 or: [x < 0]] -> 1; _ -> 2]",
    "5 match: [x when: [x > 1 and: [x < 9]] -> 1; _ -> 2]",
    "5 match: [x when: [(x > 1 and: [x < 9]) or: [x =:= 42]] -> 1; _ -> 2]",
    "5 match: [x when: [(x > 1) not] -> 1; _ -> 2]",
])
def test_guards_combine_comparisons_with_and_or_not(source):
    assert compile_input(source).forms


def test_a_guard_that_sends_a_message_says_how_to_write_it():
    [d] = compile_error("5 match: [x when: [x isEven] -> 1; _ -> 2]")
    assert d.message.startswith("A match guard may only compare values")
    assert "and:" in d.message
    assert d.hint is not None and "ifTrue:" in d.hint


# -- semantics §5.5: slots are read with self.x -------------------------------

def test_a_bare_slot_name_in_a_repl_class_says_write_self_dot():
    ds = compile_error("Value subclass: Pt\n  state: x = 0\n  norm => x * x\n")
    assert [d.message for d in ds] == ["Undefined variable: x", "Undefined variable: x"]
    assert all("self.x" in d.hint for d in ds)


def test_a_bare_slot_name_in_a_loaded_class_says_write_self_dot():
    [d] = file_error("Object subclass: Sq\n  state: side = 2\n  area => side * 2\n")
    assert d.message == "Undefined variable: side"
    assert "self.side" in d.hint


def test_a_bare_class_variable_name_says_write_self_dot_on_the_class_side():
    [d] = file_error("Object subclass: Cv\n  classState: n = 0\n  class count => n\n")
    assert d.message == "Undefined variable: n"
    assert "self.n" in d.hint


def test_an_undefined_name_that_is_no_slot_has_no_slot_hint():
    [d] = file_error("Object subclass: Sq\n  state: side = 2\n  area => sidee * 2\n")
    assert d.message == "Undefined variable: sidee"
    assert d.hint is None or "self." not in d.hint


# -- syntax §7.2: classState: must come before the methods --------------------

def test_class_state_after_a_method_says_declare_it_first():
    """Spec §7.2: a `classState:` line after a method body does not end it;
    the error must not suggest joining it to the method's last line."""
    src = "Object subclass: Csa\n  foo => 1\n  classState: k = 3\n  class k => self.k\n"
    errs = parse_error(src)
    assert errs, "expected an error"
    d = errs[0]
    assert (d.span.line, d.span.col) == (3, 3)
    assert "classState:" in d.message
    assert "before" in d.message and "join" not in d.hint


# -- syntax §9: warnings for unused variables and shadowing -------

def warnings_of(source):
    return compile_input(source).warnings


def test_a_local_assigned_and_never_read_in_a_method_is_a_warning():
    [w] = warnings_of("Object subclass: Uv\n  foo =>\n    x := 1\n    2\n")
    assert w.startswith("<input>:3:5: warning: Variable `x` is assigned but never used")


def test_locals_read_later_or_in_a_block_or_named_with_underscore_are_not_reported():
    src = ("Object subclass: Uv2\n"
           "  foo =>\n    x := 1\n    [:k | x + k] value: 2\n"
           "  bar =>\n    _ignored := 3\n    4\n"
           "  baz: n =>\n    n := n + 1\n    n\n")
    assert warnings_of(src) == []


def test_repl_top_level_assignments_are_never_unused():
    assert warnings_of("x := 1") == []


def test_a_block_parameter_that_hides_a_method_parameter_is_a_warning():
    [w] = warnings_of("Object subclass: Sh\n  foo: x => [:x | x] value: 3\n")
    assert "warning: Block parameter `x` shadows an outer parameter" in w
    assert w.startswith("<input>:2:13:")


def test_nested_block_parameters_that_hide_outer_ones_are_a_warning():
    [w] = warnings_of("Object subclass: Sh3\n  foo => [:a | [:a | a] value: 1] value: 2\n")
    assert "Block parameter `a` shadows" in w


def test_expect_unused_before_a_method_silences_its_unused_warning():
    assert warnings_of("Object subclass: Ex\n  @expect unused\n  foo =>\n    x := 1\n    2\n") == []


# -- syntax §7.1: the class modifiers are abstract, sealed and typed ----------

@pytest.mark.parametrize("source", [
    "final Object subclass: Fin\n  foo => 1\n",
    "final Object subclass: Fin\n  state: x = 1\n  foo => 1\n",
])
def test_an_unknown_class_modifier_is_named_instead_of_the_method_below(source):
    [d] = parse_error(source)
    assert d.message == "`final` is not a class modifier"
    assert (d.span.line, d.span.col) == (1, 1)
    assert "abstract | sealed | typed" in d.hint


def test_a_method_after_an_ordinary_statement_still_says_it_needs_a_class():
    [d] = parse_error("x := 3\nfoo => 1\n")
    assert d.message == "a method definition must be inside a class"


# -- syntax §2.5: `#+,` is one symbol (a run of operator characters) ----------

def test_an_operator_symbol_before_a_comma_says_the_comma_joined_the_symbol():
    [d] = parse_error("#(#at:put:, #+, #'hello world')")
    assert d.message == "Expected ')' to close list literal"
    assert "`#+,` is one symbol" in d.hint and "`#+ ,`" in d.hint


def test_an_operator_symbol_with_a_space_before_the_comma_is_an_element():
    module = parse("#(#+ , 1)")
    sym, one = module.items[0].elements
    assert (sym.name, one.value) == ("+", 1)


def test_expect_unused_before_a_statement_silences_that_statement_only():
    src = "Object subclass: Ex2\n  foo =>\n    @expect unused\n    x := 1\n    y := 2\n    3\n"
    [w] = warnings_of(src)
    assert "Variable `y` is assigned but never used" in w


# -- syntax §2.2: numbers written as other languages write them ---------------

@pytest.mark.parametrize("source, message, hint", [
    ("16#FF", "This is two expressions: the number 16 and the symbol #FF", "16rFF"),
    ("x := 16#FF", "This is two expressions: the number 16 and the symbol #FF", "16rFF"),
    ("0x1F", "`0x1F` is 0 sent the message x1F, not a hexadecimal number", "16r1F"),
    ("1_000_000", "`1_000_000` is 1 sent the message _000_000: digits cannot be grouped with _", "1000000"),
])
def test_foreign_number_spellings_are_warnings_with_the_beamtalk_spelling(source, message, hint):
    [w] = warnings_of(source)
    assert f"warning: {message}" in w
    assert f"hint: " in w and hint in w.split("hint: ")[1]


@pytest.mark.parametrize("source", ["3 #foo", "16 #FF", "0 x1F", "x := 3. x foo"])
def test_separated_numbers_and_names_are_not_foreign_spellings(source):
    assert warnings_of(source) == []


def test_erlang_radix_inside_an_expression_hints_the_r_notation():
    [d] = parse_error("[2#1010]")
    assert d.message.startswith("Unexpected '#'")
    assert "2r" in d.hint and "16rFF" in d.hint


# -- semantics §3.5: instances reach class variables through the class -------

def test_an_instance_method_reading_a_class_variable_as_a_field_is_a_warning():
    src = ("Object subclass: Cvw\n  classState: n = 0\n  class n => self.n\n"
           "  peek => self.n\n")
    [w] = warnings_of(src)
    assert w.startswith("<input>:4:11: warning: `n` is a class variable of Cvw: an instance has no field `n`")
    assert "self class n" in w


# -- syntax §2.3 / §4: interpolations and match arms are keyword-level --------

def test_a_return_inside_an_interpolation_says_what_an_interpolation_holds():
    [d] = parse_error('"{^ 3}"')
    assert d.message == "Unexpected token: expected expression, found ^"
    assert "without cascade, assignment or '^'" in d.hint


def test_an_assignment_in_a_match_arm_says_to_assign_the_whole_match():
    [d] = parse_error("3 match: [n -> x := n]")
    assert d.message == "Expected ']' to close match"
    assert (d.span.line, d.span.col) == (1, 18)
    assert "x := v match:" in d.hint
