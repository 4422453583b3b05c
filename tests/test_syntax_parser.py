"""Parser: expressions, statements and the newline rules (spec/syntax.md §3–§6,
§11), table driven.  Trees are compared in the compact s-expression form of
``syntax_cases/sexpr.py``."""

import pytest

from beamtalk_ws.syntax import SyntaxErrors, parse, parse_with_diagnostics
from beamtalk_ws.syntax import ast as A
from syntax_cases.sexpr import sx


def p(src):
    """s-expressions of the top-level statements of src."""
    return [sx(i) for i in parse(src).items]


def p1(src):
    items = parse(src).items
    assert len(items) == 1, items
    return sx(items[0])


def errors(src):
    _m, diags = parse_with_diagnostics(src)
    return [d.message for d in diags]


# ----------------------------------------------------------------- §2.6 / §4 precedence and associativity

PRECEDENCE = [
    ("2 + 3 * 4", "(+ 2 (* 3 4))"),
    ("2 * 3 + 4", "(+ (* 2 3) 4)"),
    ("3 * 2 ** 3", "(* 3 (** 2 3))"),
    ("2 ** 3 ** 2", "(** 2 (** 3 2))"),  # ** is right-associative
    ("-2 ** 2", "(** -2 2)"),
    ("10 - 2 - 3", "(- (- 10 2) 3)"),  # left-associative
    ("8 / 4 / 2", "(/ (/ 8 4) 2)"),
    ("7 % 3 * 2", "(* (% 7 3) 2)"),
    ("a ++ b + c", "(+ (++ a b) c)"),
    ("1 + 2 < 3 * 4", "(< (+ 1 2) (* 3 4))"),
    ("a < b == c > d", "(== (< a b) (> c d))"),
    ("a = b", "(= a b)"),
    ("a =:= b =/= c", "(=/= (=:= a b) c)"),
    ("a /= b", "(/= a b)"),
    ("a <= b >= c", "(>= (<= a b) c)"),
    ("#k -> 1 + 2", "(-> #k (+ 1 2))"),
    ("a == b -> c", "(-> (== a b) c)"),
    ("Counter >> #increment", "(>> Counter #increment)"),
    ("a -> b >> c", "(>> (-> a b) c)"),
    ("x foo + y bar", "(+ (foo x) (bar y))"),
    ("a foo: b + c", "(foo: a (+ b c))"),
    ("a + b foo: c * d", "(foo: (+ a b) (* c d))"),
    ("d at: k put: v max: 3", "(at:put:max: d k v 3)"),
    ("a foo bar baz", "(baz (bar (foo a)))"),
    ("((((1 + 1))))", "(+ 1 1)"),
    ("1\t+\t2", "(+ 1 2)"),
    ("(a foo: b) bar: c", "(bar: (foo: a b) c)"),
    ("a foo: (b bar: c)", "(foo: a (bar: b c))"),
    ("0 - -5", "(- 0 -5)"),
    ("x negated", "(negated x)"),
]


@pytest.mark.parametrize("src,expected", PRECEDENCE)
def test_precedence_and_associativity(src, expected):
    assert p1(src) == expected


# ----------------------------------------------------------------- §4 examples (all valid)

SPEC_EXAMPLES = [
    ("x := 3 + 4 * 2", "(:= x (+ 3 (* 4 2)))"),
    ("#(1, 2, 3) inject: 0 into: [:a :b | a + b]", "(inject:into: #(1, 2, 3) 0 [:a :b | (+ a b)])"),
    ('d := #{name => "Ann", #age => 30}', '(:= d #{#name => "Ann", #age => 30})'),
    ('p := #name -> "Ann"', '(:= p (-> #name "Ann"))'),
    ("[:x :y | x * y] value: 3 value: 4", "(value:value: [:x :y | (* x y)] 3 4)"),
    ("(Counter >> #increment) source", "(source (>> Counter #increment))"),
    (
        'v match: [0 -> "zero"; n when: [n > 0] -> "pos"; _ -> "neg"]',
        '(match v <0 -> "zero"> <?n when (> n 0) -> "pos"> <_ -> "neg">)',
    ),
    ('Transcript show: "a"; cr; show: "b"', '(cascade Transcript <show: "a"> <cr> <show: "b">)'),
    ("counter subclass Foo", "(Foo (subclass counter))"),
]


@pytest.mark.parametrize("src,expected", SPEC_EXAMPLES)
def test_spec_examples(src, expected):
    assert p1(src) == expected


# ----------------------------------------------------------------- literals

LITERALS = [
    ("42", "42"),
    ("-7", "-7"),
    ("3.5", "3.5"),
    ('"hi"', '"hi"'),
    ('"say ""hi"""', '"say "hi""'),
    ("#foo", "#foo"),
    ("#at:put:", "#at:put:"),
    ("#'hello world'", "#hello world"),
    ("#+", "#+"),
    ("$a", "$97"),
    ("#()", "#()"),
    ("#(1, 2, 3)", "#(1, 2, 3)"),
    ("#(1, 2,)", "#(1, 2)"),
    ("#(1 + 1, #a -> 2)", "#((+ 1 1), (-> #a 2))"),
    ("#(h | t)", "#(h | t)"),
    ("#(1, 2 | rest)", "#(1, 2 | rest)"),
    ("#(1 | t foo)", "#(1 | (foo t))"),
    ("#[]", "#[]"),
    ("#[1, 2]", "#[1, 2]"),
    ("#[1, 2,]", "#[1, 2]"),
    ("#{}", "#{}"),
    ("#{x => 3}", "#{#x => 3}"),  # implicit symbol key
    ("#{#x => 3}", "#{#x => 3}"),
    ("#{Foo => 3}", "#{Foo => 3}"),  # upper-case key: a global reference
    ("#{x foo => 3}", "#{(foo x) => 3}"),
    ("#{(1 + 1) => #two}", "#{(+ 1 1) => #two}"),
    ('#{"k" => 1, 2 => 3,}', '#{"k" => 1, 2 => 3}'),
    ("#{a => 1 + 2}", "#{#a => (+ 1 2)}"),
    ('"a {x} b"', "(interp 'a ' x ' b')"),
    ('"{x}"', "(interp x)"),
    ('"{x foo: 1}{y}"', "(interp (foo: x 1) y)"),
    ('"{"in"}"', '(interp "in")'),
]


@pytest.mark.parametrize("src,expected", LITERALS)
def test_literals(src, expected):
    assert p1(src) == expected


def test_literal_values():
    (n,) = parse("16rFF").items
    assert isinstance(n, A.IntegerLit) and n.value == 255
    (f,) = parse("1.0").items
    assert isinstance(f, A.FloatLit) and f.value == 1.0 and isinstance(f.value, float)
    (c,) = parse("$世").items
    assert c == A.CharLit(19990)


def test_names():
    items = parse("x\nFoo\nself\nsuper\ntrue\nnil\n_\nthisContext").items
    assert items == (
        A.Variable("x"),
        A.GlobalRef("Foo"),
        A.Variable("self"),
        A.Super(),
        A.Variable("true"),
        A.Variable("nil"),
        A.Variable("_"),
        A.Variable("thisContext"),  # does not exist: an ordinary name
    )


# ----------------------------------------------------------------- §3.3 field access

FIELDS = [
    ("self.x", ["self.x"]),
    ("a.b.c", ["a.b.c"]),
    ("self.x := self.x + 1", ["(:= self.x (+ self.x 1))"]),
    ("(self.x := 5) + 1", ["(+ (:= self.x 5) 1)"]),
    ("n. self foo", ["n", "(foo self)"]),
    ("n.\nself foo", ["n", "(foo self)"]),
    ("n .x", ["n"]),  # "n" then "." then "x"
    ("3.x", ["3", "x"]),  # a number followed by .name is never field access
    ("self.x foo", ["(foo self.x)"]),
    ("other.x", ["other.x"]),
]


@pytest.mark.parametrize("src,expected", FIELDS)
def test_field_access(src, expected):
    got = p(src)
    if src == "n .x":
        assert got == ["n", "x"]
    else:
        assert got == expected


# ----------------------------------------------------------------- assignment / return

ASSIGN = [
    ("a := b := 3", "(:= a (:= b 3))"),
    ("x := y foo: 1; bar", "(:= x (cascade y <foo: 1> <bar>))"),
    ("^x", "(^ x)"),
    ("^x := 1", "(^ (:= x 1))"),
    ("^a foo; bar", "(^ (cascade a <foo> <bar>))"),
    ("(^x) foo", "(foo (^ x))"),
    ("x := [:a | ^a]", "(:= x [:a | (^ a)])"),
]


@pytest.mark.parametrize("src,expected", ASSIGN)
def test_assignment_and_return(src, expected):
    assert p1(src) == expected


@pytest.mark.parametrize("src", ["Foo := 1", "a foo := 1", "3 := 4", "super := 1", "(a foo) := 1", "#a := 1"])
def test_assignment_target_errors(src):
    assert "Assignment target must be an identifier or field access" in errors(src)


def test_no_compound_assignment():
    assert errors("x += 1")


# ----------------------------------------------------------------- cascades

CASCADES = [
    ("a foo; bar", "(cascade a <foo> <bar>)"),
    ("a foo bar; baz", "(cascade (foo a) <bar> <baz>)"),  # receiver of the LAST message of the first part
    ("a + b; * c", "(cascade a <+ b> <* c>)"),
    ("a at: 1 put: 2; yourself", "(cascade a <at:put: 1 2> <yourself>)"),
    ("a foo: 1; bar: 2 baz: 3; qux", "(cascade a <foo: 1> <bar:baz: 2 3> <qux>)"),
    ("a foo; + b c", "(cascade a <foo> <+ (c b)>)"),
    ("a foo\n  ; bar\n  ; baz: 1\n    qux: 2", "(cascade a <foo> <bar> <baz:qux: 1 2>)"),
    ("Transcript show: 1 + 2; cr", "(cascade Transcript <show: (+ 1 2)> <cr>)"),
]


@pytest.mark.parametrize("src,expected", CASCADES)
def test_cascades(src, expected):
    assert p1(src) == expected


def test_cascade_part_must_be_a_selector():
    assert errors("1; 2; 3") == ["Expected message selector in cascade"]
    assert errors("a foo; 3") == ["Expected message selector in cascade"]
    assert errors("a foo;") == ["Expected message selector in cascade"]


def test_cascade_needs_a_message_send():
    assert errors("a; foo")


# ----------------------------------------------------------------- blocks

BLOCKS = [
    ("[]", "[]"),
    ("[:x | ]", "[:x | ]"),
    ("[:x | x]", "[:x | x]"),
    ("[:a :b | a + b]", "[:a :b | (+ a b)]"),
    ("[1. 2]", "[1. 2]"),
    ("[1. 2.]", "[1. 2]"),
    ("[1\n2]", "[1. 2]"),
    ("[a foo!\nb]", "[(! (foo a)). b]"),
    ("[a foo! b bar]", "[(! (foo a)). (bar b)]"),
    ("[x := 1. x + 1]", "[(:= x 1). (+ x 1)]"),
    ("[^1]", "[(^ 1)]"),
    ("[ :x | x ]", "[:x | x]"),
]


@pytest.mark.parametrize("src,expected", BLOCKS)
def test_blocks(src, expected):
    assert p1(src) == expected


@pytest.mark.parametrize(
    "src,msg",
    [
        ("[:x | x + 1", "Expected ']' to close block"),
        ("[:x x + 1]", "Expected '|' after block parameters"),
        ("[:x]", "Expected '|' after block parameters"),
        ("[1 2]", "Expected ']' to close block"),
        ("[:a:b | a]", "Expected parameter name after ':'"),
        ("[| t | t]", "Unexpected token: expected expression, found |"),
        ("[:x | | t | t]", "Unexpected token: expected expression, found |"),
    ],
)
def test_block_errors(src, msg):
    assert errors(src)[0] == msg


def test_temporaries_hint():
    _m, diags = parse_with_diagnostics("[| t | t := 1]")
    assert "temporaries" in diags[0].hint


# ----------------------------------------------------------------- match

MATCHES = [
    ("x match: [_ -> 0]", "(match x <_ -> 0>)"),
    ("x match: [1 -> #a; 2.5 -> #b]", "(match x <1 -> #a> <2.5 -> #b>)"),
    ('x match: ["s" -> 1; #sym -> 2; $c -> 3]', '(match x <"s" -> 1> <#sym -> 2> <$99 -> 3>)'),
    ("x match: [-1 -> #neg; - 2 -> #neg2]", "(match x <-1 -> #neg> <-2 -> #neg2>)"),
    ("x match: [{a, b} -> a + b; {} -> 0]", "(match x <{?a, ?b} -> (+ a b)> <{} -> 0>)"),
    ("x match: [{#ok, v} -> v; {#error, _} -> nil]", "(match x <{#ok, ?v} -> v> <{#error, _} -> nil>)"),
    ("x match: [\n  0 -> #zero\n  n -> n foo: 1\n]", "(match x <0 -> #zero> <?n -> (foo: n 1)>)"),
    ("x match: [n when: [n > 0] -> n; _ -> 0]", "(match x <?n when (> n 0) -> n> <_ -> 0>)"),
    ("x match: [1 -> 2;]", "(match x <1 -> 2>)"),
    ("(x match: [_ -> 1]) + 1", "(+ (match x <_ -> 1>) 1)"),
    ("x foo match: [_ -> 1]", "(match (foo x) <_ -> 1>)"),
    ("x match: y", "(match: x y)"),  # not followed by '[': an ordinary message
    ("x foo: 1 match: [_ -> 1]", "(foo:match: x 1 [(-> _ 1)])"),  # match: not first keyword
]


@pytest.mark.parametrize("src,expected", MATCHES)
def test_match(src, expected):
    assert p1(src) == expected


def test_match_errors():
    assert errors("x match: []")
    assert errors("x match: [1 2]")
    assert errors("x match: [1 -> 2 3 -> 4]")
    assert errors("x match: [(1) -> 2]")


# ----------------------------------------------------------------- §3.1 newline rules

NEWLINES = [
    # unary chain stops at a newline
    ("counter\n  increment", ["counter", "increment"]),
    # binary operators continue across newlines
    ("total := 10\n  + 20", ["(:= total (+ 10 20))"]),
    ("total := 10 +\n  20", ["(:= total (+ 10 20))"]),
    ("a\n+ b", ["(+ a b)"]),
    # a continuation keyword may be on the next line
    ('x > 0 ifTrue: ["pos"]\n      ifFalse: ["neg"]', ['(ifTrue:ifFalse: (> x 0) ["pos"] ["neg"])']),
    ("d at: 1\nput: 2", ["(at:put: d 1 2)"]),
    # cascade ';' and selectors on new lines
    ("a foo\n; bar", ["(cascade a <foo> <bar>)"]),
    # no separator needed at top level
    ("1 2", ["1", "2"]),
    ("1. 2", ["1", "2"]),
    ("1! 2", ["1", "2"]) if False else ("a foo! 2", ["(! (foo a))", "2"]),
    ("3 -2", ["3", "-2"]),
    ("3-2", ["3", "-2"]),
    ("x-1", ["x", "-1"]),
    ("x := 1. y := x + 5.", ["(:= x 1)", "(:= y (+ x 5))"]),
]


@pytest.mark.parametrize("src,expected", NEWLINES)
def test_newline_rules(src, expected):
    assert p(src) == expected


@pytest.mark.parametrize(
    "src,msg",
    [
        ('x > 0\n  ifTrue: ["pos"]', "a keyword message cannot start a line: join it to the line above"),
        ("(foo\nbar)", "Expected ')' to close parentheses"),
        ("[3 -2]", "Expected ']' to close block"),
        ("[x-1]", "Expected ']' to close block"),
        ("- x", "Unexpected token: expected expression, found -"),
        ("(a. b)", "Expected ')' to close parentheses"),
    ],
)
def test_newline_rule_errors(src, msg):
    assert errors(src)[0] == msg


def test_keyword_on_new_line_inside_block_is_an_error():
    assert errors('[x > 0\n  ifTrue: ["pos"]]')


def test_block_statements_separated_by_newline():
    assert p1("[a foo\n b bar]") == "[(foo a). (bar b)]"


# ----------------------------------------------------------------- §3.2 separators, casts

def test_top_level_separators():
    assert p("a foo. b bar! c") == ["(foo a)", "(! (bar b))", "c"]


def test_cast_requires_a_send():
    assert errors("x := a b!") == ["Cast '!' can only follow a message send"]
    assert errors("3!") == ["Cast '!' can only follow a message send"]


def test_cast_of_cascade_and_keyword():
    assert p1("c foo: 1; bar!") == "(! (cascade c <foo: 1> <bar>))"
    assert p1("c increment!") == "(! (increment c))"


def test_docs_cast_form_is_invalid():
    assert errors("c ! increment")


# ----------------------------------------------------------------- pragmas

def test_expect_directive():
    assert p("@expect dnu\nx foo") == ["(@expect dnu)", "(foo x)"]
    assert p("@expect all x foo") == ["(@expect all)", "(foo x)"]
    for cat in ("dnu", "type", "unused", "all"):
        assert p1(f"@expect {cat}") == f"(@expect {cat})"


def test_expect_unknown_category():
    assert errors("@expect bogus") == ["Unknown @expect category 'bogus'"]


def test_primitive_outside_method_is_an_error():
    assert errors('@primitive "+"') == ["@primitive can only appear inside a method body (after =>)"]
    assert errors("x := @intrinsic foo") == ["@intrinsic can only appear inside a method body (after =>)"]


# ----------------------------------------------------------------- nesting limit

def test_nesting_limit():
    ok = "(" * 60 + "1" + ")" * 60
    assert p1(ok) == "1"
    deep = "(" * 70 + "1" + ")" * 70
    assert "Expression nesting is too deep" in errors(deep)
    assert "Expression nesting is too deep" in errors("[" * 70 + "]" * 70)
    assert "Expression nesting is too deep" in errors("#(" * 70 + ")" * 70)


def test_long_right_assoc_chain_does_not_overflow():
    msgs = errors(" ** ".join(["2"] * 500))
    assert msgs == ["Expression nesting is too deep"]


def test_deep_input_never_raises_recursion_error():
    for src in ["(" * 5000, "[" * 5000, "a := " * 3000 + "1", "#(" * 3000, '"{' * 2000]:
        m, diags = parse_with_diagnostics(src)
        assert diags


# ----------------------------------------------------------------- §11 worked edge cases

WORKED_ERRORS = [
    ("]", "Unexpected token: expected expression, found ]"),
    ("[:x | x + 1", "Expected ']' to close block"),
    ("123 + ", "Unexpected token: expected expression, found +"),
    ("(1 + 2]", "Expected ')' to close parentheses"),
    ("[:x x + 1]", "Expected '|' after block parameters"),
    ("obj foo:", "Unexpected token: expected expression, found foo:"),
    ("1 + + 2", "Unexpected token: expected expression, found +"),
    ("1; 2; 3", "Expected message selector in cascade"),
    ('"{}"', "empty interpolation {} is not allowed, use \\{ for literal brace"),
    ("{1, 2}", "Unexpected token: expected expression, found {"),
    ("x ~= y", "Unexpected token: expected expression, found ~="),
    ("a & b", "Unexpected token: expected expression, found &"),
    ("a << b", "Unexpected token: expected expression, found <<"),
    ("a ==> b", "Unexpected token: expected expression, found ==>"),
    ("a \\\\ b", "Unexpected token: expected expression, found \\\\"),
    ("'hello'", 'single-quoted strings are no longer supported, use double quotes: "hello"'),
    ("x := 99999999999999999999", "Invalid integer: 99999999999999999999"),
]


@pytest.mark.parametrize("src,msg", WORKED_ERRORS)
def test_worked_error_cases(src, msg):
    assert errors(src)[0] == msg


def test_hash_alone_error_mentions_hash():
    assert "#" in errors("#")[0]


def test_end_of_input_reports_previous_token_position():
    _m, diags = parse_with_diagnostics("obj foo:")
    assert diags[0].span.start == 4 and diags[0].span.end == 8


WORKED_VALID = [
    ("1\t+\t2", "(+ 1 2)"),
    ("((((1 + 1))))", "(+ 1 1)"),
    ("counter subclass Foo", "(Foo (subclass counter))"),
]


@pytest.mark.parametrize("src,expected", WORKED_VALID)
def test_worked_valid_cases(src, expected):
    assert p1(src) == expected


# ----------------------------------------------------------------- spans

def test_spans():
    m = parse("x := 3 +\n  4 foo")
    a = m.items[0]
    assert (a.span.start, a.span.end, a.span.line, a.span.col) == (0, 16, 1, 1)
    b = a.value
    assert (b.span.start, b.span.end) == (5, 16)
    u = b.argument
    assert isinstance(u, A.UnarySend) and (u.span.line, u.span.col) == (2, 3)


def test_spans_do_not_take_part_in_equality():
    assert parse("x := 1") == parse("x   :=\n 1")
    assert parse("x := 1") != parse("x := 2")


def test_nodes_are_immutable():
    n = parse("x").items[0]
    with pytest.raises(Exception):
        n.name = "y"


def test_parse_raises_syntax_errors():
    with pytest.raises(SyntaxErrors) as ei:
        parse("]")
    assert ei.value.diagnostics[0].message == "Unexpected token: expected expression, found ]"
