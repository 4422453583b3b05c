"""Class definitions, method definitions and their extent, standalone methods,
pragmas and doc comments (spec/syntax.md §1, §7, §8)."""

import textwrap

import pytest

from beamtalk_ws.syntax import parse, parse_with_diagnostics
from beamtalk_ws.syntax import ast as A
from syntax_cases.sexpr import sx


def d(s):
    return textwrap.dedent(s).lstrip("\n")


def errors(src):
    _m, diags = parse_with_diagnostics(src)
    return [x.message for x in diags]


def cls(src) -> A.ClassDef:
    items = parse(src).items
    assert isinstance(items[0], A.ClassDef), items
    return items[0]


def methods(c):
    return [(m.selector, m.parameters, [sx(s) for s in m.body]) for m in c.methods]


COUNTER = d(
    """
    Actor subclass: Counter
      state: value = 0
      classState: created = 0

      class make =>
        self.created := self.created + 1
        self spawn

      increment => self.value := self.value + 1
      getValue => ^self.value
    Counter make increment        // column 0: ends the class; a top-level statement
    """
)


def test_spec_counter_example():
    m = parse(COUNTER)
    assert len(m.items) == 2
    c = m.items[0]
    assert (c.name, c.superclass, c.modifiers) == ("Counter", "Actor", ())
    assert [(s.name, sx(s.default)) for s in c.state] == [("value", "0")]
    assert [(s.name, sx(s.default)) for s in c.class_state] == [("created", "0")]
    assert methods(c) == [
        ("make", (), ["(:= self.created (+ self.created 1))", "(spawn self)"]),
        ("increment", (), ["(:= self.value (+ self.value 1))"]),
        ("getValue", (), ["(^ self.value)"]),
    ]
    assert [m.class_side for m in c.methods] == [True, False, False]
    assert sx(m.items[1]) == "(increment (make Counter))"


# ----------------------------------------------------------------- §7.1 header

HEADERS = [
    ("Object subclass: Foo", "Foo", "Object", ()),
    ("Value subclass: Point", "Point", "Value", ()),
    ("Actor subclass: C", "C", "Actor", ()),
    ("abstract Object subclass: Shape", "Shape", "Object", ("abstract",)),
    ("sealed Object subclass: S", "S", "Object", ("sealed",)),
    ("typed Object subclass: T", "T", "Object", ("typed",)),
    ("abstract sealed typed Object subclass: X", "X", "Object", ("abstract", "sealed", "typed")),
    ("abstract nil subclass: ProtoObject", "ProtoObject", None, ("abstract",)),
    ("Shape subclass: Triangle", "Triangle", "Shape", ()),
    ("Error subclass: MyError", "MyError", "Error", ()),
]


@pytest.mark.parametrize("src,name,sup,mods", HEADERS)
def test_class_headers(src, name, sup, mods):
    c = cls(src)
    assert (c.name, c.superclass, c.modifiers) == (name, sup, mods)
    assert c.state == c.class_state == c.methods == ()


def test_modifier_word_can_be_a_superclass_name():
    c = cls("sealed subclass: Foo")
    assert (c.superclass, c.modifiers) == ("sealed", ())


def test_class_name_must_be_an_identifier():
    assert errors("Object subclass: #Foo")[0].startswith("Expected class name")
    assert errors("Object subclass:")[0].startswith("Expected class name")


def test_keyword_subclass_inside_an_expression_is_a_message():
    assert sx(parse("x := Object subclass: Foo").items[0]) == "(:= x (subclass: Object Foo))"


# ----------------------------------------------------------------- §7.2 body items

def test_state_declarations():
    c = cls(
        d(
            """
            Object subclass: Account
              state: a
              state: b = 0
              state: c: Integer = 1
              state: e : String = "x"
              state: f: Integer | nil
              state: g = #(1, 2) size
              classState: count = 0
              classState: h: Integer
            """
        )
    )
    assert [(s.name, s.type, s.default and sx(s.default)) for s in c.state] == [
        ("a", None, None),
        ("b", None, "0"),
        ("c", "Integer", "1"),
        ("e", "String", '"x"'),
        ("f", "Integer | nil", None),
        ("g", None, "(size #(1, 2))"),
    ]
    assert [(s.name, s.type, s.default and sx(s.default)) for s in c.class_state] == [
        ("count", None, "0"),
        ("h", "Integer", None),
    ]


def test_items_may_be_separated_by_periods():
    c = cls("Object subclass: A\n  state: x = 1.\n  foo => 1.\n  bar => 2.")
    assert [s.name for s in c.state] == ["x"]
    assert [m.selector for m in c.methods] == ["foo", "bar"]


PATTERNS = [
    ("foo => 1", "foo", (), (), None),
    ("+ other => 1", "+", ("other",), (), None),
    ("== other => 1", "==", ("other",), (), None),
    (", other => 1", ",", ("other",), (), None),
    ("- other => 1", "-", ("other",), (), None),
    ("at: i => 1", "at:", ("i",), (), None),
    ("at: i put: v => 1", "at:put:", ("i", "v"), (), None),
    ("deposit: amount: Integer => 1", "deposit:", ("amount",), ("Integer",), None),
    ("deposit: amount : Integer => 1", "deposit:", ("amount",), ("Integer",), None),
    ("+ other: Number => 1", "+", ("other",), ("Number",), None),
    ("+ other : Number => 1", "+", ("other",), ("Number",), None),
    ("name -> String => 1", "name", (), (), "String"),
    ("name -> String | nil => 1", "name", (), (), "String | nil"),
    ("at: i: Integer put: v -> Object => 1", "at:put:", ("i", "v"), ("Integer", None), "Object"),
    ("class => 1", "class", (), (), None),
    ("sealed => 1", "sealed", (), (), None),
]


@pytest.mark.parametrize("src,sel,params,types,rtype", PATTERNS)
def test_method_patterns(src, sel, params, types, rtype):
    c = cls("Object subclass: A\n  " + src)
    (m,) = c.methods
    assert (m.selector, m.parameters, m.param_types, m.return_type) == (sel, params, types, rtype)
    assert not m.class_side and not m.sealed


MODIFIED = [
    ("class new => 1", "new", True, False),
    ("sealed foo => 1", "foo", False, True),
    ("sealed class foo => 1", "foo", True, True),
    ("class sealed foo => 1", "foo", True, True),
    ("class class => 1", "class", True, False),
    ("class withRadius: r => self new: #{radius => r}", "withRadius:", True, False),
    ("class + x => 1", "+", True, False),
]


@pytest.mark.parametrize("src,sel,class_side,sealed", MODIFIED)
def test_method_modifiers(src, sel, class_side, sealed):
    (m,) = cls("Object subclass: A\n  " + src).methods
    assert (m.selector, m.class_side, m.sealed) == (sel, class_side, sealed)


def test_method_source_text():
    c = cls(COUNTER)
    assert [m.source for m in c.methods] == [
        "make =>\n    self.created := self.created + 1\n    self spawn",
        "increment => self.value := self.value + 1",
        "getValue => ^self.value",
    ]


def test_method_source_excludes_trailing_period_and_comment():
    c = cls("Object subclass: A\n  foo => 1 + 2.   // c\n  bar => 3")
    assert [m.source for m in c.methods] == ["foo => 1 + 2", "bar => 3"]


def test_class_source_text():
    src = "Object subclass: A\n  foo => 1\nA new foo"
    c = parse(src).items[0]
    assert c.source == "Object subclass: A\n  foo => 1"


def test_empty_method_body_is_an_error():
    assert errors("Object subclass: A\n  foo =>\n  bar => 1") == ["Method `foo` has an empty body"]
    assert errors("Object subclass: A\n  foo =>") == ["Method `foo` has an empty body"]
    assert errors("Object subclass: A\n  foo =>\nbar") == ["Method `foo` has an empty body"]


# ----------------------------------------------------------------- §7.3/§7.4 method body extent

EXTENT = [
    # 1. end of input
    ("Object subclass: A\n  foo => 1\n    + 2", [("foo", ["(+ 1 2)"])], []),
    # 2. a new method definition (all pattern kinds)
    ("Object subclass: A\n  foo => x\n  bar => y", [("foo", ["x"]), ("bar", ["y"])], []),
    ("Object subclass: A\n  foo => x\n  - other => y", [("foo", ["x"]), ("-", ["y"])], []),
    ("Object subclass: A\n  foo => x\n  + other: Number => y", [("foo", ["x"]), ("+", ["y"])], []),
    ("Object subclass: A\n  foo => x at: 1\n  put: v => y", [("foo", ["(at: x 1)"]), ("put:", ["y"])], []),
    ("Object subclass: A\n  foo => x\n  at: i put: v => y", [("foo", ["x"]), ("at:put:", ["y"])], []),
    ("Object subclass: A\n  foo => x\n  bar -> Integer => y", [("foo", ["x"]), ("bar", ["y"])], []),
    ("Object subclass: A\n  foo => x\n  class bar => y", [("foo", ["x"]), ("bar", ["y"])], []),
    ("Object subclass: A\n  foo => x\n  sealed ** a => y", [("foo", ["x"]), ("**", ["y"])], []),
    ("Object subclass: A\n  foo => x\n  class + a => y", [("foo", ["x"]), ("+", ["y"])], []),
    ("Object subclass: A\n  foo => x\n  sealed at: a => y", [("foo", ["x"]), ("at:", ["y"])], []),
    # ... or state:
    ("Object subclass: A\n  foo => x\n  state: s = 1\n  bar => y", [("foo", ["x"]), ("bar", ["y"])], []),
    # 3. a token at column 0 ends the method and the class
    ("Object subclass: A\n  foo => x\nA new", [("foo", ["x"])], ["(new A)"]),
    # ... unless it starts a method or state:
    ("Object subclass: A\nfoo => x\nbar => y", [("foo", ["x"]), ("bar", ["y"])], []),
    ("Object subclass: A\n  foo => x\nstate: z\n  bar => y", [("foo", ["x"]), ("bar", ["y"])], []),
    # 4. two statements on one line without a separator
    ("Object subclass: A\n  foo => 1 2", [("foo", ["1"])], ["2"]),
    # separators inside a body
    ("Object subclass: A\n  foo => a. b\n    c", [("foo", ["a", "b", "c"])], []),
    ("Object subclass: A\n  foo => a foo! b", [("foo", ["(! (foo a))", "b"])], []),
    # multi-line bodies: keyword continuation, binary continuation, blocks
    (
        "Object subclass: A\n  foo =>\n    x > 0 ifTrue: [1]\n      ifFalse: [2]\n  bar => 3",
        [("foo", ["(ifTrue:ifFalse: (> x 0) [1] [2])"]), ("bar", ["3"])],
        [],
    ),
    (
        "Object subclass: A\n  foo =>\n    items do: [:e |\n      e print]\n  bar => 3",
        [("foo", ["(do: items [:e | (print e)])"]), ("bar", ["3"])],
        [],
    ),
    # a new class definition / a standalone method ends the body (and the class)
    ("Object subclass: A\n  foo => x\n  Object subclass: B", [("foo", ["x"])], None),
    ("Object subclass: A\n  foo => x\n  A >> bar => y", [("foo", ["x"])], None),
]


@pytest.mark.parametrize("src,meths,rest", EXTENT)
def test_method_body_extent(src, meths, rest):
    m = parse(src)
    c = m.items[0]
    assert [(x.selector, [sx(s) for s in x.body]) for x in c.methods] == meths
    if rest is not None:
        assert [sx(i) for i in m.items[1:]] == rest


def test_class_ends_at_column_zero_standalone_and_class():
    m = parse("Object subclass: A\n  foo => x\n  Object subclass: B\n    bar => y")
    assert [type(i).__name__ for i in m.items] == ["ClassDef", "ClassDef"]
    assert m.items[1].name == "B" and m.items[1].methods[0].selector == "bar"
    m = parse("Object subclass: A\n  foo => x\n  A >> bar => y")
    assert [type(i).__name__ for i in m.items] == ["ClassDef", "StandaloneMethod"]


def test_class_state_after_a_method_is_not_a_terminator():
    # spec §7.2: declare class variables before methods
    assert errors("Object subclass: A\n  foo => x\n  classState: c = 0")
    assert errors("Object subclass: A\n  foo => x\nclassState: c = 0")


def test_binary_continuation_line_that_is_a_method_ends_the_body():
    c = cls("Object subclass: A\n  foo => x\n  - other => y")
    assert [m.selector for m in c.methods] == ["foo", "-"]


def test_binary_continuation_inside_method():
    c = cls("Object subclass: A\n  total =>\n    10\n      + 20")
    assert [sx(s) for s in c.methods[0].body] == ["(+ 10 20)"]


def test_column_zero_rule_applies_to_continuations():
    # the '+' at column 0 does not continue `x`: it ends the method and the
    # class, and cannot start a statement
    m, diags = parse_with_diagnostics("Object subclass: A\n  foo => x\n+ 1")
    assert [sx(s) for s in m.items[0].methods[0].body] == ["x"]
    assert [x.message for x in diags] == ["Unexpected token: expected expression, found +"]
    assert diags[0].span.line == 3
    # ... while an indented operator continues
    assert [sx(s) for s in parse("Object subclass: A\n  foo => x\n    + 1").items[0].methods[0].body] == ["(+ x 1)"]
    # at top level (no method) a column-0 operator continues too
    assert [sx(s) for s in parse("total := 10\n+ 20").items] == ["(:= total (+ 10 20))"]


def test_indentation_is_otherwise_insignificant():
    a = parse("Object subclass: A\n state: x = 1\n          foo => 1\n  bar =>\n                  2")
    b = parse("Object subclass: A\n  state: x = 1\n  foo => 1\n  bar => 2")
    assert a == b


def test_methods_at_column_zero():
    c = cls("Object subclass: A\nstate: x = 0\nfoo => 1\nbar => 2")
    assert [m.selector for m in c.methods] == ["foo", "bar"]


def test_method_body_ending_in_operator_before_next_method():
    assert errors("Object subclass: A\n  foo => 1 +\n  bar => 2") == [
        "Unexpected token: expected expression, found +"
    ]


def test_temporaries_in_method_body_are_an_error():
    msgs = errors("Object subclass: A\n  foo =>\n    | a b |\n    a := 1")
    assert msgs[0] == "Unexpected token: expected expression, found |"


def test_method_brackets_from_docs_do_not_exist():
    # `x: v [ ... ]` (no =>) is not a method: the class body ends there
    assert errors("Object subclass: A\n  x: v [ self.x := v ]")[0] == (
        "Expected a method definition (pattern => body), state: or classState: in the class body"
    )


# ----------------------------------------------------------------- §7.5 standalone methods

STANDALONE = [
    ("Counter >> reset => self.value := 0", "Counter", False, "reset", ["(:= self.value 0)"]),
    ("Counter class >> make => self new", "Counter", True, "make", ["(new self)"]),
    ("Counter >> + other => 1", "Counter", False, "+", ["1"]),
    ("Counter >> at: i put: v => v", "Counter", False, "at:put:", ["v"]),
    ("Counter >> name -> String => 1", "Counter", False, "name", ["1"]),
    ("Counter >> class => 1", "Counter", False, "class", ["1"]),
    ("Counter >> foo =>\n    a\n    b", "Counter", False, "foo", ["a", "b"]),
]


@pytest.mark.parametrize("src,cname,cside,sel,body", STANDALONE)
def test_standalone_methods(src, cname, cside, sel, body):
    (s,) = parse(src).items
    assert isinstance(s, A.StandaloneMethod)
    assert (s.class_name, s.class_side, s.method.selector, s.method.class_side) == (cname, cside, sel, cside)
    assert [sx(x) for x in s.method.body] == body


def test_standalone_method_source():
    (s,) = parse("Counter >> reset => self.value := 0").items
    assert s.method.source == "reset => self.value := 0"


def test_lookup_is_not_a_standalone_method():
    assert sx(parse("Counter >> #increment").items[0]) == "(>> Counter #increment)"
    assert sx(parse("x >> foo").items[0]) == "(>> x foo)"


def test_file_with_header_and_standalone_methods():
    src = d(
        """
        Object subclass: Foo
          state: x = 0

        Foo >> bar => self.x
        Foo class >> make => self new
        Foo new bar
        """
    )
    items = parse(src).items
    assert [type(i).__name__ for i in items] == ["ClassDef", "StandaloneMethod", "StandaloneMethod", "UnarySend"]


# ----------------------------------------------------------------- §8 pragmas

def test_primitive_and_intrinsic_in_method_bodies():
    c = cls('Object subclass: A\n  + other => @primitive "+"\n  value => @intrinsic blockValue\n  x => @primitive size')
    assert [sx(m.body[0]) for m in c.methods] == [
        "(@primitive +)",
        "(@intrinsic blockValue)",
        "(@primitive size)",
    ]
    assert c.methods[1].body[0] == A.Primitive("blockValue", "intrinsic")


def test_primitive_in_block_inside_method_is_allowed():
    assert not errors('Object subclass: A\n  foo => [@primitive "x"]')


def test_primitive_single_quotes_rejected():
    assert 'single-quoted strings are no longer supported, use double quotes: "+"' in errors(
        "Object subclass: A\n  + other => @primitive '+'"
    )


def test_expect_in_class_and_method_bodies():
    c = cls("Object subclass: A\n  foo =>\n    @expect dnu\n    self bar")
    assert [sx(s) for s in c.methods[0].body] == ["(@expect dnu)", "(bar self)"]


# ----------------------------------------------------------------- §1 doc comments

def test_doc_comments():
    src = d(
        """
        /// A counter.
        /// Second line.
        Actor subclass: Counter
          /// The value.
          state: value = 0
          state: other = 1

          /// Increment it.
          ///
          ///    indented
          increment => 1
          // not a doc
          plain => 2
        """
    )
    c = cls(src)
    assert c.doc == "A counter.\nSecond line."
    assert [s.doc for s in c.state] == ["The value.", None]
    assert [m.doc for m in c.methods] == ["Increment it.\n\n   indented", None]


DOC_RUNS = [
    ("/// a\n/// b\nObject subclass: A", "a\nb"),
    ("/// a\n\n/// b\nObject subclass: A", "b"),  # blank line restarts
    ("/// a\n// x\n/// b\nObject subclass: A", "b"),  # // comment restarts
    ("/// a\n// x\nObject subclass: A", None),
    ("//// four\nObject subclass: A", None),  # //// is an ordinary comment
    ("///no space\nObject subclass: A", "no space"),
    ("/// a\n/* x */\nObject subclass: A", None),
    ("x := 1 /// trailing\nObject subclass: A", None),
    ("/// doc\nabstract Object subclass: A", "doc"),
]


@pytest.mark.parametrize("src,doc", DOC_RUNS)
def test_doc_comment_collection(src, doc):
    c = [i for i in parse(src).items if isinstance(i, A.ClassDef)][0]
    assert c.doc == doc


def test_doc_on_standalone_method():
    (s,) = parse("/// Resets.\nCounter >> reset => 0").items
    assert s.method.doc == "Resets."


def test_doc_on_class_side_method_includes_modifier_position():
    c = cls("Object subclass: A\n  /// Make.\n  class make => 1")
    assert c.methods[0].doc == "Make."


# ----------------------------------------------------------------- error recovery in classes

def test_several_errors_in_one_class():
    src = d(
        """
        Object subclass: A
          foo => 1 + + 2
          bar => [:x x]
          baz => (1 + 2]
          ok => 3
        x := ]
        """
    )
    m, diags = parse_with_diagnostics(src)
    assert [x.message for x in diags] == [
        "Unexpected token: expected expression, found +",
        "Expected '|' after block parameters",
        "Expected ')' to close parentheses",
        "Unexpected token: expected expression, found ]",
    ]
    assert [x.span.line for x in diags] == [2, 3, 4, 6]
    assert [mm.selector for mm in m.items[0].methods] == ["ok"]


# ----------------------------------------------------------------- @expect in class bodies

def test_expect_before_declarations_in_a_class_body():
    src = d(
        """
        Object subclass: A
          @expect unused
          state: x = 0
          foo => 1
          /// Doc of bar.
          @expect dnu
          bar => self zork
          @expect type
          class make => self new
        """
    )
    c = cls(src)
    assert [(s.name, s.expect) for s in c.state] == [("x", "unused")]
    assert [(m.selector, m.expect, m.doc) for m in c.methods] == [
        ("foo", None, None),
        ("bar", "dnu", "Doc of bar."),
        ("make", "type", None),
    ]
    # the @expect line ended foo's body instead of becoming its last statement
    assert [sx(s) for s in c.methods[0].body] == ["1"]


def test_expect_inside_a_method_body_is_a_statement():
    c = cls("Object subclass: A\n  foo =>\n    @expect dnu\n    self zork\n  bar => 1")
    assert [sx(s) for s in c.methods[0].body] == ["(@expect dnu)", "(zork self)"]


def test_state_default_keyword_message_does_not_swallow_next_declaration():
    c = cls("Object subclass: A\n  state: a = d at: 1\n  state: b = 2\n  classState: c = e at: 2\n  classState: f")
    assert [(s.name, sx(s.default) if s.default else None) for s in c.state] == [("a", "(at: d 1)"), ("b", "2")]
    assert [(s.name, sx(s.default) if s.default else None) for s in c.class_state] == [("c", "(at: e 2)"), ("f", None)]


def test_column_zero_line_inside_a_block_closes_the_method():
    m, diags = parse_with_diagnostics("Object subclass: A\n  foo => items do: [:e |\ne print]\n")
    assert diags[0].message == "Expected ']' to close block"
    assert diags[0].span.line == 3
    # indented, the same block is fine
    assert not parse_with_diagnostics("Object subclass: A\n  foo => items do: [:e |\n    e print]\n")[1]


def test_multi_line_map_literal_in_a_method():
    c = cls("Object subclass: A\n  foo => #{\n    a => 1,\n    b => 2}\n  bar => 3")
    assert [m.selector for m in c.methods] == ["foo", "bar"]
    assert sx(c.methods[0].body[0]) == "#{#a => 1, #b => 2}"
