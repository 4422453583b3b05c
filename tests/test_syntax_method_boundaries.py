"""Method boundaries in class bodies (spec/syntax.md §3.1, §7.3, §7.4; issue
11 item 1).

A line at method indentation that reads as a method header starts a new
method, whatever the statement before it was and whatever stands between
them (nothing, a blank line, a whitespace-only line, a ``//`` comment, a
``///`` doc comment).  The table below crosses every header form with every
statement form and every separator, and checks the parse (both methods, the
first body unchanged, the header read exactly) and the REPL's completeness
verdicts for the same text.
"""

import pytest

from beamtalk_ws.syntax import completeness, parse_with_diagnostics
from syntax_cases.sexpr import sx

#: (header line, selector, parameters, class side, sealed, return type)
HEADERS = [
    ("get: k =>", "get:", ("k",), False, False, None),
    ("at: k put: v =>", "at:put:", ("k", "v"), False, False, None),
    ("size =>", "size", (), False, False, None),
    ("+ other =>", "+", ("other",), False, False, None),
    ("- other =>", "-", ("other",), False, False, None),
    ("get: k -> Object =>", "get:", ("k",), False, False, "Object"),
    ("size -> Integer =>", "size", (), False, False, "Integer"),
    ("get: k: Integer =>", "get:", ("k",), False, False, None),
    ("get: k : Integer =>", "get:", ("k",), False, False, None),
    ("+ other: Number =>", "+", ("other",), False, False, None),
    ("sealed get: k =>", "get:", ("k",), False, True, None),
    ("sealed size =>", "size", (), False, True, None),
    ("class withAll: k =>", "withAll:", ("k",), True, False, None),
    ("class make =>", "make", (), True, False, None),
    ("sealed class make: k =>", "make:", ("k",), True, True, None),
    ("class =>", "class", (), False, False, None),
]

#: (last statement of the first method, as written, its s-expression)
STATEMENTS = [
    ("self.items size", "(size self.items)"),
    ("self.items size + 1", "(+ (size self.items) 1)"),
    ("self.items at: k put: v", "(at:put: self.items k v)"),
    ("self.items at: k ifAbsent: [nil]", "(at:ifAbsent: self.items k [nil])"),
    ("self.items at: k\n      put: v", "(at:put: self.items k v)"),
    ("self.items := self.items at: k put: v", "(:= self.items (at:put: self.items k v))"),
    ("items := self.items at: k put: v", "(:= items (at:put: self.items k v))"),
    ("a := b := self.items at: k put: v", "(:= a (:= b (at:put: self.items k v)))"),
    ("self.count := self.count + 1", "(:= self.count (+ self.count 1))"),
    ("self.count := self.count\n      + 1", "(:= self.count (+ self.count 1))"),
    ("^self.items at: k put: v", "(^ (at:put: self.items k v))"),
    ("^self.items := self.items at: k put: v", "(^ (:= self.items (at:put: self.items k v)))"),
    ("self.items at: k put: v.", "(at:put: self.items k v)"),
    ("self.items at: k put: v!", "(! (at:put: self.items k v))"),
    ("self.items at: k put: (v max: 3)", "(at:put: self.items k (max: v 3))"),
    ("self.items at: k put: v size", "(at:put: self.items k (size v))"),
    ("self.items at: k put: 3", "(at:put: self.items k 3)"),
    ("self.items at: k put: #sym", "(at:put: self.items k #sym)"),
    ("Transcript show: k; show: v", "(cascade Transcript <show: k> <show: v>)"),
    ("Transcript show: k; cr", "(cascade Transcript <show: k> <cr>)"),
    ("self.items := self.items at: k put: v; yourself",
     "(:= self.items (cascade self.items <at:put: k v> <yourself>))"),
    ("self.items := Transcript show: k; show: v",
     "(:= self.items (cascade Transcript <show: k> <show: v>))"),
    ("v match: [0 -> 1; _ -> v]", "(match v <0 -> 1> <_ -> v>)"),
    ("v > 0 ifTrue: [\n      self.items at: k put: v]", "(ifTrue: (> v 0) [(at:put: self.items k v)])"),
    ("self.items at: k put: [:x |\n      x foo: v]", "(at:put: self.items k [:x | (foo: x v)])"),
]

#: separator lines between the statement and the header
SEPARATORS = {
    "none": [],
    "blank": [""],
    "whitespace-only": ["    "],
    "comment": ["  // read one back"],
    "column-0 comment": ["// read one back"],
    "doc comment": ["  /// Reads one back."],
    "block comment": ["  /* read one back */"],
    "blank, whitespace and comment": ["", "  ", "  // read one back"],
    "blank then doc comment": ["", "  /// Reads one back."],
}

SECOND_BODY = "    self.items at: k ifAbsent: [nil]"


def class_text(statement: str, separator: list, header: str) -> str:
    lines = [
        "Actor subclass: Store",
        "  state: items = #{}",
        "",
        "  put: k value: v =>",
        "    " + statement,
        *separator,
        "  " + header,
        SECOND_BODY,
    ]
    return "\n".join(lines)


def check_class(text, header_row, first_body):
    header, selector, params, class_side, sealed, rtype = header_row
    module, diags = parse_with_diagnostics(text)
    assert [d.message for d in diags] == []
    assert len(module.items) == 1
    cls = module.items[0]
    assert [m.selector for m in cls.methods] == ["put:value:", selector]
    first, second = cls.methods
    assert [sx(s) for s in first.body] == first_body
    assert second.parameters == params
    assert (second.class_side, second.sealed, second.return_type) == (class_side, sealed, rtype)
    assert [sx(s) for s in second.body] == ["(at:ifAbsent: self.items k [nil])"]
    return second


@pytest.mark.parametrize("sep", list(SEPARATORS), ids=list(SEPARATORS))
@pytest.mark.parametrize("statement,expected", STATEMENTS, ids=[s for s, _ in STATEMENTS])
@pytest.mark.parametrize("header_row", HEADERS, ids=[h[0] for h in HEADERS])
def test_header_after_statement(header_row, statement, expected, sep):
    text = class_text(statement, SEPARATORS[sep], header_row[0])
    second = check_class(text, header_row, [expected])
    if "doc" in sep:
        assert second.doc == "Reads one back."
    # the REPL agrees: more may follow the indented last line, an empty line
    # or a column-0 statement submits the class, and the class then parses
    assert completeness(text) == "incomplete"
    assert completeness(text + "\n") == "complete"
    assert completeness(text + "\nStore spawn") == "complete"


@pytest.mark.parametrize("sep", list(SEPARATORS), ids=list(SEPARATORS))
@pytest.mark.parametrize("header_row", HEADERS, ids=[h[0] for h in HEADERS])
def test_header_typed_line_by_line(header_row, sep):
    """What the piped REPL sees line by line: no prefix is ever invalid, and
    the header line itself always waits for its body."""
    text = class_text("self.items := self.items at: k put: v", SEPARATORS[sep], header_row[0])
    lines = text.split("\n")
    verdicts = [completeness("\n".join(lines[: n + 1])) for n in range(len(lines))]
    assert "invalid" not in verdicts
    assert verdicts[-2] == "incomplete"  # the header line
    assert verdicts[-1] == "incomplete"  # an indented body line


@pytest.mark.parametrize("sep", list(SEPARATORS), ids=list(SEPARATORS))
@pytest.mark.parametrize("header_row", HEADERS, ids=[h[0] for h in HEADERS])
def test_header_after_state_default(header_row, sep):
    """A ``state:`` default is a statement too: a keyword send in it does not
    swallow the header of the first method."""
    header, selector = header_row[0], header_row[1]
    text = "\n".join(
        ["Object subclass: Store", "  state: items = Dictionary new at: 1 put: 2", *SEPARATORS[sep],
         "  " + header, SECOND_BODY]
    )
    module, diags = parse_with_diagnostics(text)
    assert [d.message for d in diags] == []
    cls = module.items[0]
    assert sx(cls.state[0].default) == "(at:put: (new Dictionary) 1 2)"
    assert [m.selector for m in cls.methods] == [selector]


@pytest.mark.parametrize("statement,expected", STATEMENTS, ids=[s for s, _ in STATEMENTS])
def test_methods_at_column_zero(statement, expected):
    """Methods may stand at column 0 themselves (spec §7.4)."""
    text = "\n".join(
        ["Object subclass: Store", "put: k value: v =>", "  " + statement.replace("\n    ", "\n"), "",
         "// next", "get: k =>", "  self.items at: k ifAbsent: [nil]"]
    )
    module, diags = parse_with_diagnostics(text)
    assert [d.message for d in diags] == []
    cls = module.items[0]
    assert [m.selector for m in cls.methods] == ["put:value:", "get:"]
    assert [sx(s) for s in cls.methods[0].body] == [expected]


def test_three_methods_in_a_row():
    text = "\n".join(
        [
            "Actor subclass: Store",
            "  state: items = #{}",
            "  put: k value: v =>",
            "    self.items := self.items at: k put: v",
            "  remove: k =>",
            "    self.items := self.items removeKey: k",
            "",
            "  /// The value at k.",
            "  get: k =>",
            "    self.items at: k ifAbsent: [nil]",
        ]
    )
    module, diags = parse_with_diagnostics(text)
    assert diags == []
    assert [m.selector for m in module.items[0].methods] == ["put:value:", "remove:", "get:"]
    assert module.items[0].methods[2].doc == "The value at k."


def test_a_header_is_one_line():
    """``at: k`` ⏎ ``put: v`` ⏎ ``get: k =>``: the second line continues the
    message (it is no header: its ``=>`` is not on its line), the third is
    the next method."""
    text = "\n".join(
        [
            "Object subclass: Store",
            "  put: k value: v =>",
            "    self.items at: k",
            "      put: v",
            "  get: k =>",
            "    k",
        ]
    )
    module, diags = parse_with_diagnostics(text)
    assert diags == []
    first, second = module.items[0].methods
    assert [sx(s) for s in first.body] == ["(at:put: self.items k v)"]
    assert second.selector == "get:"


def test_a_modifier_alone_on_its_line_is_no_modifier():
    text = "Object subclass: Store\n  foo =>\n    sealed\n  get: k =>\n    k"
    module, diags = parse_with_diagnostics(text)
    assert diags == []
    foo, get = module.items[0].methods
    assert [sx(s) for s in foo.body] == ["sealed"]
    assert (get.selector, get.sealed) == ("get:", False)


def test_continuation_keyword_that_is_a_header_ends_the_message():
    """spec §3.1: a keyword part on a new line that, with what follows,
    looks like a method header ends the message."""
    text = "Object subclass: Store\n  foo: v =>\n    self.items at: 1\n  put: v =>\n    v"
    module, diags = parse_with_diagnostics(text)
    assert diags == []
    assert [m.selector for m in module.items[0].methods] == ["foo:", "put:"]
    assert [sx(s) for s in module.items[0].methods[0].body] == ["(at: self.items 1)"]
