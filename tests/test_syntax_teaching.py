"""Diagnostics that teach (issue 11 item 6): the seeds' own examples, typed as
written, get an error that says where the language differs on purpose and
shows the accepted form — with a location and a caret like every parse
error."""

import pytest

from beamtalk_ws.syntax import parse, parse_with_diagnostics, render_diagnostic

# seed ADR 0038, "REPL Session", as written
SEED_CLASSBUILDER = """dog := Object classBuilder
     name: #Dog;
     addField: #name default: 'Rex';
     addMethod: #speak body: [ self.name , ' says Woof!' ];
     register"""

# seed ADR 0026, "Phase 5", as written
SEED_APP = """// src/app.bt — Application entry point
start =>
    server := WebServer spawn
    server listen: 8080
    Transcript show: 'Web server started on port 8080'; cr
"""


def diags(src, filename="<input>"):
    _m, ds = parse_with_diagnostics(src, filename)
    return ds


def first(src, filename="<input>"):
    ds = diags(src, filename)
    assert ds, "expected a diagnostic"
    return ds[0]


def rendered(src, filename="<input>"):
    return render_diagnostic(first(src, filename), src, filename)


# ------------------------------------------------------------ keyword at line start
def test_cascade_keyword_on_the_next_line():
    d = first(SEED_CLASSBUILDER)
    assert d.message == "a keyword message cannot start a line: join it to the line above"
    assert (d.span.line, d.span.col) == (2, 6)
    assert "write `dog := Object classBuilder name: #Dog;`" in d.hint
    assert rendered(SEED_CLASSBUILDER).splitlines()[:3] == [
        "<input>:2:6: a keyword message cannot start a line: join it to the line above",
        "       name: #Dog;",
        "       ^^^^^",
    ]


def test_keyword_line_in_a_method_body_and_a_block():
    src = "Object subclass: A\n  foo =>\n    x := Object classBuilder\n      name: #B;\n      register\n"
    d = first(src)
    assert d.message == "a keyword message cannot start a line: join it to the line above"
    assert (d.span.line, d.span.col) == (4, 7)
    d = first("[:x | x > 0\n  ifTrue: [1]]")
    assert d.message == "a keyword message cannot start a line: join it to the line above"
    assert "write `[:x | x > 0 ifTrue: [1]]`" in d.hint


def test_keyword_line_after_a_finished_statement():
    d = first("x := 1.\n  foo: 2")
    assert d.message == "a keyword message cannot start a line: join it to the line above"
    assert d.hint == "a keyword message needs a receiver before it: `receiver foo: 2`"


def test_joined_form_parses():
    fixed = 'dog := Object classBuilder name: #Dog;\n     addField: #name default: "Rex";\n     register'
    parse(fixed)


def test_continuation_keywords_are_still_fine():
    parse('x > 0 ifTrue: ["pos"]\n      ifFalse: ["neg"]')


def test_indented_keyword_line_ending_a_class_body():
    d = first("Object subclass: A\n  x: v [ self.x := v ]")
    assert d.message == "Expected a method definition (pattern => body), state: or classState: in the class body"
    assert (d.span.line, d.span.col) == (2, 3)
    assert "pattern => body" in d.hint


# ------------------------------------------------------------ single quotes
@pytest.mark.parametrize(
    "src,shown,col",
    [
        ("x := 'Rex'", '"Rex"', 6),
        ("'it''s' size", '"it\'s"', 1),
        ("Transcript show: 'say \"hi\"'", '"say ""hi"""', 18),
    ],
)
def test_single_quoted_string(src, shown, col):
    d = first(src)
    assert d.message == "single-quoted strings are no longer supported, use double quotes: " + shown
    assert (d.span.line, d.span.col) == (1, col)
    assert "single quotes are not strings" in d.hint
    assert "^" in rendered(src)


def test_single_quoted_string_in_the_seed_example():
    src = SEED_CLASSBUILDER.replace("classBuilder\n     name:", "classBuilder name:")
    d = first(src)
    assert d.message == 'single-quoted strings are no longer supported, use double quotes: "Rex"'
    assert (d.span.line, d.span.col) == (2, 31)


# ------------------------------------------------------------ comma
@pytest.mark.parametrize(
    "src,col,fixed",
    [
        ('x := "a" , "b"', 10, 'x := "a" ++ "b"'),
        ('[:s | s , "!"]', 9, '[:s | s ++ "!"]'),
        ('("a" , "b") size', 6, '("a" ++ "b") size'),
        ('x := #(1) , #(2)', 11, "x := #(1) ++ #(2)"),
        ('"{a , b}"', 5, '"{a ++ b}"'),
        # every `,` of the same concatenation, not only the first one
        ('x := a , " then " , b', 8, 'x := a ++ " then " ++ b'),
        ('x := a , #(1, 2) , (b , c). y := d , e', 8, 'x := a ++ #(1, 2) ++ (b ++ c). y := d ++ e'),
    ],
)
def test_comma_is_not_concatenation(src, col, fixed):
    d = first(src)
    assert d.message == "`,` is not an operator in Beamtalk: concatenate with ++"
    assert (d.span.line, d.span.col) == (1, col)
    assert d.hint.startswith(f"write `{fixed}`")
    parse(fixed)


def test_comma_between_exception_classes_is_not_turned_into_concatenation():
    """Pharo's `on: ZeroDivide, Error do:` is an exception set; `Error ++
    TypeError` (what the hint used to suggest) is no such thing."""
    d = first("[1/0] on: Error, TypeError do: [:e | 1]")
    assert d.message == "`,` is not an operator in Beamtalk: there are no exception sets"
    assert (d.span.line, d.span.col) == (1, 16)
    assert "++" not in d.hint
    assert "on: Error do:" in d.hint and "] on: TypeError do:" in d.hint


def test_comma_in_a_method_body_keeps_the_rest_of_the_class():
    src = 'Object subclass: A\n  foo => "a" , "b"\n  bar => 3'
    module, ds = parse_with_diagnostics(src)
    assert [d.message for d in ds] == ["`,` is not an operator in Beamtalk: concatenate with ++"]
    assert (ds[0].span.line, ds[0].span.col) == (2, 14)
    assert [m.selector for m in module.items[0].methods] == ["bar"]


def test_comma_in_the_seed_example():
    src = (SEED_CLASSBUILDER.replace("classBuilder\n     name:", "classBuilder name:")
           .replace("'Rex'", '"Rex"').replace("' says Woof!'", '" says Woof!"'))
    d = first(src)
    assert d.message == "`,` is not an operator in Beamtalk: concatenate with ++"
    assert (d.span.line, d.span.col) == (3, 42)


@pytest.mark.parametrize("src", ["#(1, 2, 3)", "#[1, 2]", "#{a => 1, b => 2}", "v match: [{a, b} -> a]"])
def test_commas_in_literals_and_patterns_stay_separators(src):
    parse(src)


def test_a_missing_element_is_not_a_concatenation():
    assert first("#(1, , 2)").message == "Unexpected token: expected expression, found ,"


# ------------------------------------------------------------ self in addMethod:body:
def test_self_in_an_add_method_block():
    src = (SEED_CLASSBUILDER.replace("classBuilder\n     name:", "classBuilder name:")
           .replace("'Rex'", '"Rex"').replace("' says Woof!'", '" says Woof!"').replace(" , ", " ++ "))
    d = first(src)
    assert d.message == (
        "`self` is not defined in the block of addMethod:body:: "
        "the block gets the receiver as its first argument: [:me | me ...]"
    )
    assert (d.span.line, d.span.col) == (3, 32)
    assert d.hint == 'write `[:me | me.name ++ " says Woof!" ]`'
    fixed = src.replace('[ self.name ++ " says Woof!" ]', '[:me | me.name ++ " says Woof!" ]')
    parse(fixed)


def test_self_in_an_add_method_block_with_parameters():
    d = first("Object classBuilder name: #A; addMethod: #f: body: [:x | self foo: x]; register")
    assert d.message.startswith("`self` is not defined in the block of addMethod:body:")
    assert d.hint == "write `[:me :x | me foo: x]`"


def test_self_in_an_add_class_method_block_sent_plainly():
    d = first("b := Object classBuilder.\nb addClassMethod: #make body: [self new]")
    assert d.message.startswith("`self` is not defined in the block of addClassMethod:body:")
    assert (d.span.line, d.span.col) == (2, 32)


def test_self_in_an_add_method_block_inside_a_method_is_the_methods_self():
    src = "Object subclass: Maker\n  make => Object classBuilder name: #B; addMethod: #m body: [:me | self]; register\n"
    assert diags(src) == []


def test_receiver_argument_is_fine():
    assert diags("Object classBuilder name: #A; addMethod: #f body: [:me | me foo]; register") == []


# ------------------------------------------------------------ start => outside a class
def test_top_level_start_method_in_app_bt():
    d = first(SEED_APP, "src/app.bt")
    assert d.message == "start must be a class-side method of a class"
    assert (d.span.line, d.span.col) == (2, 1)
    assert "`Object subclass: App`" in d.hint and "`class start => …`" in d.hint
    assert render_diagnostic(d, SEED_APP, "src/app.bt").splitlines()[:3] == [
        "src/app.bt:2:1: start must be a class-side method of a class",
        "  start =>",
        "  ^^^^^^^^",
    ]
    # one error only: the body is skipped with the header
    assert len(diags(SEED_APP, "src/app.bt")) == 1


def test_start_class_name_follows_the_file():
    d = first("start => 1", "src/my_app.bt")
    assert "`Object subclass: MyApp`" in d.hint


def test_accepted_form_of_start_parses():
    src = (
        "Object subclass: App\n  class start =>\n    server := WebServer spawn\n"
        '    server listen: 8080\n    Transcript show: "Web server started on port 8080"; cr\n'
    )
    (cls,) = parse(src, "src/app.bt").items
    assert [(m.selector, m.class_side) for m in cls.methods] == [("start", True)]


@pytest.mark.parametrize(
    "src,pattern",
    [("get: k => 1", "get: k =>"), ("sealed size => 1", "size =>"), ("+ other => 1", "+ other =>"),
     ("x := 3\nsize -> Integer => 1", "size -> Integer =>")],
)
def test_other_methods_outside_a_class(src, pattern):
    d = first(src)
    assert d.message == "a method definition must be inside a class"
    assert f"`Foo >> {pattern} …`" in d.hint


@pytest.mark.parametrize("src, col", [("{1, 2} size", 1), ("Erlang ets insert: t with: {#k, 42}", 28)])
def test_a_tuple_written_as_in_erlang_keeps_the_spec_message_and_shows_how_to_build_one(src, col):
    d = first(src)
    assert d.message == "Unexpected token: expected expression, found {"
    assert (d.span.line, d.span.col) == (1, col)
    assert "Tuple withAll: #(" in d.hint and "no tuple literal" in d.hint


def test_braces_in_a_match_pattern_are_still_a_tuple_pattern():
    assert diags("x match: [{#a, b} -> b; _ -> 0]") == []


@pytest.mark.parametrize("src, found, hint", [
    ("true & false", "&", "write `a and: [b]`"),
    ("(3 > 2) | (1 > 2)", "|", "write `a or: [b]`"),
    ("10 \\\\ 3", "\\\\", "`%` is the remainder"),
    ("3 ~= 4", "~=", "write `/=`"),
])
def test_operators_of_other_smalltalks_keep_the_spec_message_with_a_hint(src, found, hint):
    d = first(src)
    assert d.message == f"Unexpected token: expected expression, found {found}"
    assert hint in d.hint


@pytest.mark.parametrize("src, message, hint", [
    ("[:x | x > 0 | (x < -5)] value: 3", "Expected ']' to close block", "write `a or: [b]`"),
    ("#(1) collect: [:e | true & false]", "Expected ']' to close block", "write `a and: [b]`"),
    ("x := (true | false)", "Expected ')' to close parentheses", "write `a or: [b]`"),
    ("Object subclass: G\n  ok: a => [a | a] value", "Expected ']' to close block", "write `a or: [b]`"),
    ("[3 ~= 4] value", "Expected ']' to close block", "write `/=`"),
])
def test_operators_of_other_smalltalks_inside_brackets_get_the_same_hint(src, message, hint):
    """Inside a block or parentheses the operator ends the statement, so the
    error is the missing bracket; it used to come without the hint the same
    operator gets at top level (a Pharo user writes `[:x | a | b]`)."""
    d = first(src)
    assert d.message == message
    assert d.hint is not None and hint in d.hint


@pytest.mark.parametrize("src", ["| a b |", "x := 3\n| a |"])
def test_a_bar_that_starts_a_line_is_still_the_temporaries_hint(src):
    assert "no temporaries declaration" in first(src).hint


@pytest.mark.parametrize("src, fixed", [
    ("b addMethod: #tick body: [:self | self n]", "write `[:me | me n]`"),
    ("b addMethod: #at: body: [:self :i | self at: i]", "write `[:me :i | me at: i]`"),
])
def test_a_builder_block_whose_receiver_argument_is_named_self_is_told_to_rename_it(src, fixed):
    """The old hint kept `:self` and added `:me` in front (`[:me :self | ...]`,
    a block of one argument too many)."""
    d = first(src)
    assert d.message.startswith("`self` cannot name a block parameter; the block of addMethod:body:")
    assert d.hint == fixed


@pytest.mark.parametrize(
    "src, found, hint",
    [
        ("x := 1 +\n", "+", "the input ends after `+`"),
        ("obj foo:", "foo:", "the input ends after `foo:`"),
        (
            "Object subclass: A\n  foo =>\n    ^1 +\n  bar => 2\n",
            "+",
            "the method body ends after `+`: the next line starts another method or declaration",
        ),
        ("Object subclass: A\n  foo => 1 +\n", "+", "the input ends after `+`"),
        (
            "Object subclass: A\n  foo =>\n    ^1 +\nx := 3\n",
            "+",
            "the method body ends after `+`: the next line starts at column 1, which ends the class body",
        ),
    ],
)
def test_an_expression_cut_short_keeps_the_spec_message_and_says_where_it_stopped(src, found, hint):
    d = first(src)
    assert d.message == f"Unexpected token: expected expression, found {found}"
    assert d.hint is not None and d.hint.startswith(hint)
    assert src[d.span.start : d.span.end] == found


@pytest.mark.parametrize(
    "src, message, hint",
    [
        (
            "Animal := Object subclass: Animal\n",
            "Assignment target must be an identifier or field access",
            "a class definition binds its name itself: write `Object subclass: Animal` without `Animal :=`",
        ),
        (
            "Foo := 3\n",
            "Assignment target must be an identifier or field access",
            "Foo starts with an upper-case letter, so it names a class or global; "
            "variables start with a lower-case letter (foo := …)",
        ),
        (
            "Object subclass: Animal\n  state: name := \"x\"\n",
            "Unexpected token: expected expression, found :=",
            "a state default is written with `=`: state: name = value",
        ),
        (
            "Object subclass: Animal [\n  speak => 1\n]\n",
            "Unexpected '[' after the class name Animal",
            "a class body has no brackets",
        ),
    ],
)
def test_smalltalk_habits_in_declarations_get_a_hint(src, message, hint):
    d = first(src)
    assert d.message == message
    assert d.hint is not None and d.hint.startswith(hint)


def test_a_system_name_assignment_keeps_its_own_message_without_a_hint():
    d = first("Transcript := 4\n")
    assert d.message == "Transcript is a system name and cannot be shadowed"
    assert d.hint is None


def test_a_method_header_without_its_arrow_is_reported_in_the_class_body():
    src = "Object subclass: A\n  state: n = 0\n  speak\n    ^1\n"
    module, ds = parse_with_diagnostics(src)
    assert [d.message for d in ds] == [
        "Expected a method definition (pattern => body), state: or classState: in the class body"
    ]
    assert ds[0].hint == "a method header ends with `=>`: `speak => …`"
    assert src[ds[0].span.start : ds[0].span.end] == "speak"
    cls = module.items[0]
    assert cls.name == "A" and [s.name for s in cls.state] == ["n"]


def test_an_indented_assignment_after_a_class_is_not_taken_for_a_method_header():
    _m, ds = parse_with_diagnostics("Object subclass: A\n  x := 3\n")
    assert all("method header" not in (d.hint or "") for d in ds)


@pytest.mark.parametrize(
    "src, message, hint",
    [
        ("#(1 2 3)", "Expected ')' to close list literal", "elements are separated by commas: #(1, 2, 3)"),
        ("#($a $b) size", "Expected ')' to close list literal", "elements are separated by commas: #($a, $b)"),
        ("#[1 2]", "Expected ']' to close array literal", "elements are separated by commas: #[1, 2]"),
        ("#(#a #b)", "Expected ')' to close list literal", "elements are separated by commas: #(#a, #b)"),
        ("#(1 + 2 3)", "Expected ')' to close list literal", "elements are separated by commas, as in #(1, 2, 3)"),
        ("#{#a => 1 #b => 2}", "Expected '}' to close map literal", "elements are separated by commas, as in #{#a => 1, #b => 2}"),
        ("#(1\n 2)", "Expected ')' to close list literal", "the `#(` opened at line 1, column 1 is not closed"),
    ],
)
def test_literal_elements_without_commas_keep_the_spec_message_with_the_commas_shown(src, message, hint):
    d = first(src)
    assert (d.message, d.hint) == (message, hint)


def test_an_unterminated_string_opened_by_a_brace_says_why():
    """`JSON parse: "{bad"`: the string is closed, but its `{` starts an
    interpolation that swallows the closing quote (spec syntax §2.3); the
    error said only "Unterminated string"."""
    out = rendered('JSON parse: "{bad"')
    assert "Unterminated string" in out
    assert "hint:" in out and "interpolation" in out and "\\{" in out
    assert "hint:" not in rendered('x := "no brace')


def test_a_bracket_left_open_on_an_earlier_line_is_located_in_the_hint():
    src = "Object subclass: A\n  foo: x =>\n    ^(x + 1\n  bar => 2\n"
    d = first(src)
    assert d.message == "Expected ')' to close parentheses"
    assert d.hint == "the `(` opened at line 3, column 6 is not closed"
    # on the same line the caret shows it: no hint
    assert first("(1 + 2]").hint is None


def test_a_comment_that_took_the_closing_bracket_says_so():
    d = first("x := (7 // 2) printString\n")
    assert d.message == "Expected ')' to close parentheses"
    assert d.hint == "`//` starts a comment, so `2) printString` was not read; integer division is `div:` (7 div: 2)"
    d = first("Object subclass: A\n  f: b => ^(b // 3) + 1\n  g => 2\n")
    assert d.hint.startswith("`//` starts a comment, so `3) + 1` was not read")
    # a comment without a bracket in it keeps the open-bracket hint
    assert first("x := (7 // note\n").hint == "the `(` opened at line 1, column 6 is not closed"


def test_period_after_a_cast_bang_says_the_bang_ends_the_statement():
    # an Erlang or Pharo user ends every statement with `.`; `!` already
    # ends a cast statement (spec syntax §3.2, §5.10)
    d = first("c increment!. c count")
    assert d.message == "Unexpected token: expected expression, found ."
    assert d.span.start == 12           # the `.` right after the `!`
    assert "`!` ends the statement" in d.hint
    assert "c increment! c count" in d.hint


def test_a_pharo_point_says_there_is_no_at_operator():
    d = first("p := 3 @ 4\n")
    assert d.message == "Unexpected '@': expected @primitive, @intrinsic or @expect"
    assert d.hint == ("Beamtalk has no Point and no `@` operator (`3 @ 4`): a Value subclass with x and y "
                      "fields gives `Point x: 3 y: 4`, or use a List: #(3, 4)")
    # not after a value: the message alone
    assert first("@ 4\n").hint is None


def test_a_stray_operator_inside_a_method_keeps_the_later_methods_in_the_class():
    """`(a > 1) & (b > 1)` ended the method body at `&`, the class body with
    it, and every later method was "a method definition must be inside a
    class" (seen writing a packet comparator)."""
    src = ("Object subclass: Amp\n  cmp: a with: b =>\n    (a > 1) & (b > 1) ifTrue: [^1].\n    ^0\n"
           "  other => 1\n  third: x => x\n")
    ds = diags(src)
    assert [(d.message, d.span.line, d.span.col) for d in ds] == [
        ("Unexpected token: expected expression, found &", 3, 13)], ds
    assert "and: [b]" in ds[0].hint
    mod, _ = parse_with_diagnostics(src)
    (cls,) = [i for i in mod.items if hasattr(i, "methods")]
    assert [m.selector for m in cls.methods] == ["other", "third:"]


def test_a_bracket_left_unopened_by_a_division_comment_is_explained():
    """`1 to: xs size // 2 do: [:i |` comments out the block's opening, so
    the `]` that closes it is unexpected; say why, and keep the class."""
    src = ("Object subclass: Half\n  run: xs =>\n    sum := 0.\n    1 to: xs size // 2 do: [:i |\n"
           "      sum := sum + i].\n    sum\n  other => 1\n")
    ds = diags(src)
    assert [(d.message, d.span.line, d.span.col) for d in ds] == [
        ("Unexpected token: expected expression, found ]", 5, 21)], ds
    assert "`//` starts a comment" in ds[0].hint and "div:" in ds[0].hint
    assert "`2 do: [:i |`" in ds[0].hint


# ------------------------------------------------------------ a class body ended by a line that is no item
@pytest.mark.parametrize("line, fix", [
    ("foo = 1", "a method header ends with `=>`: `foo => 1`"),
    ("foo [ ^1 ]", "a method header ends with `=>`: `foo => ^1`"),
    ("x := 3", "a state default is written `state: x = 3`"),
])
def test_an_indented_line_that_ends_the_class_body_is_named_not_the_method_after_it(line, fix):
    # it said "a method definition must be inside a class" at `bar =>`,
    # with the hint to indent the (indented) method
    src = f"Object subclass: Gy\n  {line}\n  bar => 2\n"
    d = first(src)
    assert d.message == "Expected a method definition (pattern => body), state: or classState: in the class body"
    assert (d.span.line, d.span.col) == (2, 3)
    assert d.hint == (f"this indented line ended the class body of Gy, so `bar =>` below it is outside "
                      f"the class; {fix}")


def test_an_indented_statement_after_a_class_is_still_a_statement():
    # spec syntax §7.4: indentation has no meaning; the class ends where its items end
    assert not diags("Object subclass: Gy\n  bar => 2\n  Gy new bar\n")


def test_an_unterminated_string_over_several_lines_says_it_swallowed_them():
    # the message quoted the lines after the quote (one message over 3 lines)
    # and did not say why the statements below it were not run
    src = 'x := "abc\ny := 2\nz := 3\n'
    d = first(src)
    assert d.message == 'Unterminated string: "abc…'
    assert (d.span.line, d.span.col) == (1, 6)
    assert d.hint == ('the string runs to the end of the input, over 2 more lines: a string may span lines, '
                      'so everything after its opening quote is inside it; close it with " where it should end')


@pytest.mark.parametrize("src, name", [
    ("x := 3 y := 4", "y"),
    ("a := 1\nb := a + 1 c := 3", "c"),
    ("x := #(1, 2) size y := 2", "y"),
    ("Object subclass: M1\n  foo => x := 1 y := 2", "y"),
])
def test_two_assignments_on_a_line_without_a_period_say_where_it_goes(src, name):
    # the spec's message (§3) was all: "Assignment target must be ..." on `3 y`
    d = first(src)
    assert d.message == "Assignment target must be an identifier or field access"
    assert d.hint == f"`{name} :=` starts another statement: put a `.` before `{name}`"


def test_a_compound_assignment_says_how_to_write_it():
    # spec syntax §3: there are no compound assignments
    d = first("x := 1. x += 1")
    assert d.message == "Unexpected token: expected expression, found +="
    assert d.hint == "Beamtalk has no `+=`: write `x := x + 1`"
    assert first("x := 1. x -= 2").hint == "Beamtalk has no `-=`: write `x := x - 2`"
    assert first("self.n *= 2").hint == "Beamtalk has no `*=`: write `self.n := self.n * 2`"
    assert first("x *= 3 + y").hint == "Beamtalk has no `*=`: write `x := x * (3 + y)`"
    assert first("[:x | x += 1]").hint == "Beamtalk has no `+=`: write `x := x + 1`"


def test_a_unary_header_with_its_body_on_the_line_but_no_arrow_is_located():
    # `testY ^1` as the last line of a class: it ended the class and a file
    # said "A loaded file may contain only a class definition ..." at `^1`
    for src in ("Object subclass: A\n  testY ^1\n", "Object subclass: A\n  testY ^1\n  bar => 2\n"):
        d = first(src)
        assert d.message == "Expected a method definition (pattern => body), state: or classState: in the class body"
        assert (d.span.line, d.span.col, d.hint) == (2, 3, "a method header ends with `=>`: `testY => ^1`")


@pytest.mark.parametrize("header, shown", [
    ("Object subClass: Foo", "subClass:"),
    ("Object sublass: Foo", "sublass:"),
    ("Object subclass Foo", "subclass"),
])
def test_a_misspelt_class_header_is_named_not_the_method_below_it(header, shown):
    # the indented method said "a method definition must be inside a class"
    # and the hint showed the very header that was written
    d = first(f"{header}\n  bar => 1\n")
    assert d.message == f"`{shown}` does not make a class header"
    assert (d.span.line, d.span.col) == (1, 8)
    assert d.hint == "a class header is `Superclass subclass: Name` (`subclass:` in lower case, with its colon)"


# ------------------------------------------------------------ match: arms separated by periods
@pytest.mark.parametrize("src", ["st match: [#red -> #green. #green -> #red]",
                                 "st match: [#red -> #green. _ -> #red]",
                                 "st match: [#red -> #green.\n  #green -> #red]"])
def test_match_arms_separated_by_a_period_say_to_use_a_semicolon(src):
    # a Pharo habit: `.` ends a statement, but match: arms are separated by
    # `;` or a new line (spec syntax §3.2); the error names the way
    d = first(src)
    assert d.message == "Expected ']' to close match"
    assert src[d.span.start:d.span.end] == "."
    assert d.hint == "match: arms are separated by `;` or a new line, not `.`: `[#red -> 1; _ -> 2]`"
    # what the hint says parses
    parse("st match: [#red -> #green; #green -> #red]")


def test_pharos_class_definition_message_names_the_declarations():
    """`Object subclass: #Animal instanceVariableNames: 'name sound' ...` is
    the first line a Pharo user types; the hint writes it the Beamtalk way."""
    d = first("Object subclass: #Animal instanceVariableNames: 'name sound' classVariableNames: 'Count' "
              "package: 'Zoo'")
    assert d.message == "Expected class name" and (d.span.line, d.span.col) == (1, 18)
    assert d.hint == ("the class name is written without #: `Object subclass: Animal`, and its variables are "
                      "declared on the lines below it, indented: `state: name`, `state: sound`, "
                      "`classState: count`")
    assert first("Animal subclass: #Dog").hint == "the class name is written without #: `Animal subclass: Dog`"
