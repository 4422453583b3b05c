"""REPL input completeness (spec/syntax.md §10 and this project's
indentation-preserving multi-line input, see completeness.py)."""

import pytest

from beamtalk_ws.syntax import completeness


SPEC_TABLE = [
    # complete
    ("3 + 4", "complete"),
    ("x := 1. y := x + 5.", "complete"),
    ("", "complete"),
    ("   ", "complete"),
    ("// just a comment", "complete"),
    # a doc comment alone waits for what it documents
    ("/// A greeter.", "incomplete"),
    ("/// A greeter.\n/// Second line.", "incomplete"),
    ("/// A greeter.\nObject subclass: G\n  hi => 1\n", "complete"),
    ("Counter >> reset => self.value := 0", "complete"),
    ('"a" , "b"', "invalid"),  # ',' is not an operator: parses badly → submit
    # unclosed brackets
    ("[:x | x + 1", "incomplete"),
    ("(1 + 2", "incomplete"),
    ("#(1, 2", "incomplete"),
    ("#[1, 2", "incomplete"),
    ("#{a => 1", "incomplete"),
    ("foo: [", "incomplete"),
    ('"{x', "incomplete"),
    # unterminated string / block comment / quoted symbol
    ('"hello', "incomplete"),
    ('"hello\nworld', "incomplete"),
    ("x /* comment", "incomplete"),
    ("#'abc", "incomplete"),
    # trailing keyword / operator / := / ; / ^
    ("obj foo:", "incomplete"),
    ("123 +", "incomplete"),
    ("123 + ", "incomplete"),
    ("x :=", "incomplete"),
    ("Transcript show: 1;", "incomplete"),
    ("^", "incomplete"),
    ("x ~=", "incomplete"),
    ("@expect", "incomplete"),
    # invalid: extra or mismatched closers
    ("]", "invalid"),
    (")", "invalid"),
    ("(1 + 2]", "invalid"),
    ("[1)", "invalid"),
    ("1 + 2)", "invalid"),
    # structurally complete but does not parse
    ("[:x x + 1]", "invalid"),
    ("1 + + 2", "invalid"),
    ("{1, 2}", "invalid"),
    ('"{}"', "invalid"),
    ("#", "invalid"),
    ("'single'", "invalid"),
    # class header waiting for its first method
    ("Actor subclass: Counter", "incomplete"),
    ("Actor subclass: Counter\n  state: value = 0", "incomplete"),
    ("Object subclass: Foo\nstate: x = 0", "incomplete"),
    ("abstract Object subclass: Shape", "incomplete"),
]


@pytest.mark.parametrize("text,verdict", SPEC_TABLE)
def test_completeness_table(text, verdict):
    assert completeness(text) == verdict


def feed(lines):
    """Verdicts after each line, as the REPL accumulates them."""
    out = []
    buf = []
    for line in lines:
        buf.append(line)
        out.append(completeness("\n".join(buf)))
    return out


def test_class_typed_line_by_line_with_multi_line_methods():
    lines = [
        "Actor subclass: Counter",
        "  state: value = 0",
        "  classState: created = 0",
        "",
        "  class make =>",
        "    self.created := self.created + 1",
        "    self spawn",
        "  increment => self.value := self.value + 1",
        "  getValue =>",
        "    ^self.value",
        "",
    ]
    v = feed(lines)
    assert v[:-1] == ["incomplete"] * 10
    assert v[-1] == "complete"


def test_class_submitted_by_a_column_zero_statement():
    lines = [
        "Actor subclass: Counter",
        "  state: value = 0",
        "  increment =>",
        "    self.value := self.value + 1",
        "Counter spawn increment",
    ]
    assert feed(lines) == ["incomplete"] * 4 + ["complete"]


def test_pasting_a_whole_class_at_once():
    text = "\n".join(
        [
            "Actor subclass: Counter",
            "  state: value = 0",
            "  classState: created = 0",
            "",
            "  class make =>",
            "    self.created := self.created + 1",
            "    self spawn",
            "",
            "  increment => self.value := self.value + 1",
            "  getValue => ^self.value",
        ]
    )
    assert completeness(text) == "incomplete"  # last line indented: more may follow
    assert completeness(text + "\n") == "complete"
    assert completeness(text + "\nCounter make increment") == "complete"


def test_unindented_class_is_submitted_at_its_first_method_line():
    # the original REPL trimmed lines; typing without indentation behaves like it
    assert feed(["Object subclass: Foo", "foo => 1"]) == ["incomplete", "complete"]


def test_method_header_without_body_waits():
    assert feed(["Object subclass: Foo", "  foo =>"]) == ["incomplete", "incomplete"]
    assert feed(["Object subclass: Foo", "foo =>"]) == ["incomplete", "incomplete"]
    # an empty line submits it (and the empty body is reported)
    assert completeness("Object subclass: Foo\n  foo =>\n") == "invalid"


def test_standalone_method_multi_line():
    assert feed(["Counter >> reset =>", "    self.value := 0", "    self", ""]) == [
        "incomplete",
        "incomplete",
        "incomplete",
        "complete",
    ]
    assert feed(["Counter >> reset =>", "    self.value := 0", "Counter new reset"]) == [
        "incomplete",
        "incomplete",
        "complete",
    ]


def test_blank_lines_before_the_first_method_are_kept():
    assert feed(["Object subclass: Foo", "  state: x = 1", ""]) == ["incomplete"] * 3
    # a second empty line submits a class without methods
    assert completeness("Error subclass: MyError\n\n") == "complete"
    assert completeness("Error subclass: MyError\n\n\n") == "complete"


def test_class_without_methods_followed_by_statement():
    assert completeness("Error subclass: MyError\nMyError new") == "complete"


def test_unclosed_bracket_inside_method_waits_even_at_column_zero():
    assert completeness("Object subclass: Foo\n  foo => #(1,\n2") == "incomplete"
    assert completeness("Object subclass: Foo\n  foo => #(1,\n2)\n") == "complete"


def test_broken_class_is_invalid_when_submitted():
    assert completeness("Object subclass: Foo\n  foo => 1 + + 2\n") == "invalid"


def test_statements_after_a_finished_class_use_normal_rules():
    assert completeness("Object subclass: Foo\n  foo => 1\nx := 3\n  + 4") == "complete"


def test_comment_only_last_line_inside_class_waits():
    assert completeness("Object subclass: Foo\n  foo => 1\n  // more to come") == "incomplete"


def test_trailing_keyword_inside_class_waits_even_after_blank_line():
    assert completeness("Object subclass: Foo\n  foo => self bar:\n") == "incomplete"


def test_multi_line_string_in_method():
    assert completeness('Object subclass: Foo\n  foo => "a\nb') == "incomplete"
    assert completeness('Object subclass: Foo\n  foo => "a\nb"\n') == "complete"


def test_non_class_multi_line_input():
    assert feed(["x := 10 +", "  20"]) == ["incomplete", "complete"]
    assert feed(["#(1,", "2,", "3)"]) == ["incomplete", "incomplete", "complete"]
    assert feed(["[:x |", "  x + 1]"]) == ["incomplete", "complete"]
