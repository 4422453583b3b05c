"""The parser's and lexer's shortcuts for common shapes (a lone variable or
literal as the right operand of a binary operator, a one-keyword message,
an interpolation that is one identifier) must build exactly what the
general paths build: the trees, and the spans of every node.

Spans are checked without a second parser: the source text of an
expression node, parsed on its own, must give an equal node (equality
ignores spans), and its line/column must be those of its start offset."""

import pytest

from beamtalk_ws.syntax import ast as A
from beamtalk_ws.syntax import parse, parse_with_diagnostics
from beamtalk_ws.syntax.lexer import K_IDENT, K_INT, K_STR_END, K_STR_SEG, K_STR_START, K_STRING, lex
from syntax_cases.sexpr import sx

#: (source, tree): around the edges of the binary-operand shortcut
BINARY = [
    ("a + b", "(+ a b)"),
    ("a + B", "(+ a B)"),
    ("a + super", "(+ a super)"),
    ("a + 1", "(+ a 1)"),
    ("a + 2.5 - #s", "(- (+ a 2.5) #s)"),
    ("a + b c", "(+ a (c b))"),  # unary after the operand: no shortcut
    ("a + b.c", "(+ a b.c)"),  # field access
    ("a + b * c", "(+ a (* b c))"),  # tighter operator after the operand
    ("a * b + c", "(+ (* a b) c)"),
    ("a + b + c", "(+ (+ a b) c)"),
    ("a - b ** 2", "(- a (** b 2))"),
    ("a ** b ** c", "(** a (** b c))"),
    ("a + b -> c", "(-> (+ a b) c)"),
    ("a < b foo: c", "(foo: (< a b) c)"),
    ("x := a + b. y", "(:= x (+ a b)) y"),
]

#: one keyword and several: the selector and the arguments
KEYWORD = [
    ("a at: 1", "(at: a 1)"),
    ("a at: b", "(at: a b)"),
    ("a at: 1 put: 2", "(at:put: a 1 2)"),
    ("a at: [1] put: b c", "(at:put: a [1] (c b))"),
    ("a at: 1 + 2 put: 3 ifTrue: [x]", "(at:put:ifTrue: a (+ 1 2) 3 [x])"),
    ("a do: [:e | e] ; yourself", "(cascade a <do: [:e | e]> <yourself>)"),
]


def _nodes(node):
    """Every node of a tree (depth first)."""
    out = [node]
    for f in node._fields:
        v = getattr(node, f)
        for x in v if isinstance(v, tuple) else (v,):
            if isinstance(x, A.Node):
                out.extend(_nodes(x))
    return out


_EXPRESSIONS = (
    A.Variable, A.GlobalRef, A.Super, A.IntegerLit, A.FloatLit, A.StringLit, A.SymbolLit,
    A.FieldAccess, A.UnarySend, A.BinarySend, A.KeywordSend, A.Block, A.Assignment,
)


def _check_spans(src):
    module = parse(src)
    checked = 0
    for item in module.items:
        for n in _nodes(item):
            span = n.span
            if not isinstance(n, A.CascadeMessage):  # (the first one has its receiver's line/column)
                line = src.count("\n", 0, span.start) + 1
                col = span.start - (src.rfind("\n", 0, span.start) + 1) + 1
                assert (span.line, span.col) == (line, col), (n, span)
            if isinstance(n, _EXPRESSIONS):
                again = parse(src[span.start : span.end]).items
                assert again == (n,), (src[span.start : span.end], n)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("src,tree", BINARY + KEYWORD)
def test_tree(src, tree):
    assert " ".join(sx(i) for i in parse(src).items) == tree


@pytest.mark.parametrize("src", [s for s, _t in BINARY + KEYWORD])
def test_spans(src):
    _check_spans(src)


def test_spans_in_a_class_body():
    # operands before a line break: a following identifier on the next line
    # is the next statement, not a unary selector
    src = (
        "Object subclass: Acc\n"
        "  state: total = 0\n"
        "  add: n =>\n"
        "    self.total := self.total + n\n"
        "    x := n\n"
        "    ^self.total - 1\n"
        "  - other => self.total - other total\n"
        "  report => Transcript show: self.total printString; show: \" \"; cr\n"
    )
    cls = parse(src).items[0]
    add, minus, report = cls.methods
    assert [sx(s) for s in add.body] == ["(:= self.total (+ self.total n))", "(:= x n)", "(^ (- self.total 1))"]
    assert sx(minus.body[0]) == "(- self.total (total other))"
    assert sx(report.body[0]) == '(cascade Transcript <show: (printString self.total)> <show: " "> <cr>)'
    for m in (add, minus, report):
        for st in m.body:
            for n in _nodes(st):
                if isinstance(n, (A.BinarySend, A.KeywordSend, A.Variable, A.IntegerLit)):
                    assert parse(src[n.span.start : n.span.end]).items == (n,)


def test_binary_method_header_still_ends_the_body():
    # ``- other =>`` on the next line is a method, not ``x - other``
    src = "Object subclass: A\n  foo => x\n  - other => 1\n"
    cls = parse(src).items[0]
    assert [m.selector for m in cls.methods] == ["foo", "-"]


@pytest.mark.parametrize(
    "src,message,offset",
    [
        ("a + b )", "Unexpected token: expected expression, found )", 6),
        ("a + b ?? c", "Unexpected token: expected expression, found ??", 6),  # ?? is no operator
        ("a + b , c", "`,` is not an operator in Beamtalk: concatenate with ++", 6),
    ],
)
def test_errors_after_a_shortcut_operand_are_unchanged(src, message, offset):
    _m, diags = parse_with_diagnostics(src)
    assert [(d.message, d.span.start) for d in diags] == [(message, offset)]


INTERPOLATIONS = [
    ('"a{foo}b"', [(K_STR_START, "a", 0, 3), (K_IDENT, "foo", 3, 6), (K_STR_END, "b", 6, 9)]),
    ('"{Foo}"', [(K_STR_START, "", 0, 2), (K_IDENT, "Foo", 2, 5), (K_STR_END, "", 5, 7)]),
    ('"{_x1}{y}"', [(K_STR_START, "", 0, 2), (K_IDENT, "_x1", 2, 5), (K_STR_SEG, "", 5, 7), (K_IDENT, "y", 7, 8), (K_STR_END, "", 8, 10)]),
    # not one identifier: lexed as code (same tokens, other shapes)
    ('"{ foo }"', [(K_STR_START, "", 0, 2), (K_IDENT, "foo", 3, 6), (K_STR_END, "", 7, 9)]),
    ('"{1}"', [(K_STR_START, "", 0, 2), (K_INT, 1, 2, 3), (K_STR_END, "", 3, 5)]),
    ('"plain"', [(K_STRING, "plain", 0, 7)]),
]


@pytest.mark.parametrize("src,tokens", INTERPOLATIONS)
def test_interpolation_tokens(src, tokens):
    t = lex(src)
    got = list(zip(t.kinds, t.values, t.starts, t.ends))[:-1]
    assert got == tokens
    assert not any(t.nls)


def test_interpolated_identifier_is_the_same_token_as_in_code():
    t = lex('x "{x}" {x}')
    ids = [(t.values[i], t.ends[i] - t.starts[i], t.nls[i]) for i in range(len(t.kinds)) if t.kinds[i] == K_IDENT]
    assert ids == [("x", 1, False)] * 3
