"""The AST node representation (tuple-based nodes, see ``ast.Node``) keeps
the frozen-dataclass contract: keyword/positional construction with
defaults, read-only attributes, equality and hashing without ``span`` (and
``source``), class-sensitive equality, no ordering, dataclass-style repr."""

import copy
import pickle

import pytest

from beamtalk_ws.syntax import ast as A
from beamtalk_ws.syntax import parse

S1 = A.Span(0, 1, 1, 1)
S2 = A.Span(5, 9, 2, 3)


def test_construction_positional_keyword_and_defaults():
    a = A.ListLit((A.IntegerLit(1),))
    b = A.ListLit(elements=(A.IntegerLit(1),), tail=None, span=S1)
    assert a == b
    assert a.tail is None and b.span == S1 and a.span is A.NO_SPAN
    m = A.MethodDef("foo", (), (), source="foo => 1", expect="dnu")
    assert (m.selector, m.class_side, m.sealed, m.return_type, m.param_types, m.doc, m.source, m.expect) == (
        "foo", False, False, None, (), None, "foo => 1", "dnu"
    )
    assert A.Primitive("x").kind == "primitive"
    assert A.Super().span is A.NO_SPAN
    with pytest.raises(TypeError):
        A.Variable()
    with pytest.raises(TypeError):
        A.Variable("x", S1)  # span is keyword-only


def test_nodes_are_read_only():
    n = A.Variable("x", span=S1)
    with pytest.raises(AttributeError):
        n.name = "y"
    with pytest.raises(AttributeError):
        n.span = S2
    with pytest.raises(AttributeError):
        n.other = 1
    m = parse("Object subclass: A\n  foo => 1\n").items[0]
    with pytest.raises(AttributeError):
        m.methods = ()
    with pytest.raises(AttributeError):
        m.methods[0].source = ""


def test_equality_and_hash_ignore_span_and_source():
    assert A.Variable("x", span=S1) == A.Variable("x", span=S2)
    assert hash(A.Variable("x", span=S1)) == hash(A.Variable("x", span=S2))
    assert not (A.Variable("x", span=S1) != A.Variable("x", span=S2))
    assert A.Variable("x") != A.Variable("y")
    m1 = A.MethodDef("foo", (), (A.IntegerLit(1),), source="foo => 1", span=S1)
    m2 = A.MethodDef("foo", (), (A.IntegerLit(1),), source="foo =>\n  1", span=S2)
    assert m1 == m2 and hash(m1) == hash(m2)
    assert m1 != m1._replace(expect="dnu")
    c1 = A.ClassDef("A", "Object", source="x")
    assert c1 == A.ClassDef("A", "Object", source="y")


def test_equality_is_class_sensitive_and_not_tuple_equality():
    assert A.Variable("x") != A.GlobalRef("x")
    assert A.VariablePattern("x") != A.Variable("x")
    assert A.Variable("x") != ("x", A.NO_SPAN)
    assert A.Super() != A.WildcardPattern()
    assert {A.Variable("x"): 1}.get(A.Variable("x", span=S2)) == 1
    with pytest.raises(TypeError):
        A.IntegerLit(1) < A.IntegerLit(2)  # noqa: B015


def test_repr_like_a_dataclass():
    assert repr(A.Variable("x", span=S1)) == "Variable(name='x')"
    assert repr(A.Super()) == "Super()"
    assert repr(A.BinarySend(A.IntegerLit(1), "+", A.IntegerLit(2))) == (
        "BinarySend(receiver=IntegerLit(value=1), operator='+', argument=IntegerLit(value=2))"
    )
    m = A.MethodDef("foo", (), (), source="foo")
    assert repr(m) == (
        "MethodDef(selector='foo', parameters=(), body=(), class_side=False, sealed=False, "
        "return_type=None, param_types=(), doc=None, source='foo', expect=None)"
    )


def test_fields_children_walk_replace():
    assert A.MethodDef._fields == (
        "selector", "parameters", "body", "class_side", "sealed", "return_type",
        "param_types", "doc", "source", "expect",
    )
    assert A.KeywordSend.__match_args__ == ("receiver", "selector", "arguments")
    k = parse("a at: 1 put: b").items[0]
    assert [type(c).__name__ for c in k.children()] == ["Variable", "IntegerLit", "Variable"]
    assert [type(c).__name__ for c in k.walk()] == ["KeywordSend", "Variable", "IntegerLit", "Variable"]
    r = k._replace(selector="x:y:")
    assert r.selector == "x:y:" and r.arguments == k.arguments and r.span == k.span
    with pytest.raises(TypeError):
        k._replace(nope=1)


def test_copy_and_pickle():
    m = parse("Object subclass: A\n  foo: x => ^x + 1\nA new foo: 2\n")
    assert copy.deepcopy(m) == m
    m2 = pickle.loads(pickle.dumps(m))
    assert m2 == m and m2.items[0].methods[0].source == m.items[0].methods[0].source
    assert m2.items[1].span == m.items[1].span


def test_not_equal_to_plain_tuples_either_way():
    v = A.Variable("x")
    assert not (v == ("x", A.NO_SPAN)) and not (("x", A.NO_SPAN) == v)
    assert ("x", A.NO_SPAN) != v
    assert v != ("x",) and A.Super() != ()


def _eager_line_col(src, offset):
    line = src.count("\n", 0, offset) + 1
    return line, offset - (src.rfind("\n", 0, offset) + 1) + 1


SPAN_SOURCES = [
    "x := 3 +\n  4 foo",
    'Object subclass: A\n  state: x = 0\n  /// doc\n  foo: a => ^a + self.x\n\n  bar =>\n    #(1, 2) do: [:e |\n      Transcript show: e; cr]\n',
    '\n\n"a\nb" size\r\n  + 1. y := #{#k => "v{1 + 2}w"}\n',
    "x match: [0 -> #zero; {a, -1} -> a; _ -> nil]",
]


@pytest.mark.parametrize("src", SPAN_SOURCES)
def test_lazy_spans_match_eager_line_and_column(src):
    m = parse(src)
    for n in m.walk():
        sp = n.span
        assert isinstance(sp, A.Span)
        assert 0 <= sp.start <= sp.end <= len(src)
        if isinstance(n, A.CascadeMessage):
            continue  # the first message keeps its receiver's line/column
        assert (sp.line, sp.col) == _eager_line_col(src, sp.start), (n, sp)


def test_line_table():
    src = "ab\n\ncd\n"
    t = A.LineTable(src)
    assert t.starts() == [0, 3, 4, 7]
    assert [t.line_col(k) for k in range(len(src) + 1)] == [_eager_line_col(src, k) for k in range(len(src) + 1)]
    assert t.span(4, 6) == A.Span(4, 6, 3, 1)
    assert A.LineTable("").starts() == [0]
