"""Property tests (hypothesis) for the front end:

* the parser, the completeness test and the unparser never raise anything
  but ``SyntaxErrors`` — on arbitrary text, on random bytes decoded as UTF-8,
  and on mutations of valid programs;
* the unparse round trip ``parse(unparse(parse(s))) == parse(s)`` holds on
  generated programs (in fact ``parse(unparse(ast)) == ast`` for generated
  ASTs) and on every example source used by the other tests.
"""

import os
import string

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from beamtalk_ws.syntax import (
    SyntaxErrors,
    completeness,
    parse,
    parse_with_diagnostics,
    unparse,
)
from beamtalk_ws.syntax import ast as A

# the AST strategies are big; hypothesis warns when it prints their repr
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

# BEAMTALK_SYNTAX_EXAMPLES=5000 for a long soak run
_N = int(os.environ.get("BEAMTALK_SYNTAX_EXAMPLES", "0")) or None
SETTINGS = settings(max_examples=_N or 250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROUNDTRIP = settings(max_examples=_N or 60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ----------------------------------------------------------------- generators

KEYWORDLIKE = {"super", "class", "sealed", "abstract", "typed", "state", "classState", "subclass"}

lower_names = st.from_regex(r"[a-z][a-zA-Z0-9_]{0,6}", fullmatch=True).filter(lambda s: s not in KEYWORDLIKE)
upper_names = st.from_regex(r"[A-Z][a-zA-Z0-9_]{0,6}", fullmatch=True)
keyword_parts = st.lists(lower_names.map(lambda s: s + ":"), min_size=1, max_size=3)
operators = st.sampled_from(
    ["**", "*", "/", "%", "+", "-", "++", "<", ">", "<=", ">=", "==", "/=", "=:=", "=/=", "=", "->", ">>"]
)

# string values as the lexer produces them: `\` always travels with the next
# character, `{` only escaped
_str_piece = st.one_of(
    st.text(alphabet=string.ascii_letters + string.digits + " .,;:!?()[]}#$'\"\n\t-+*/é世", min_size=1, max_size=4),
    st.sampled_from(["\\{", "\\}", "\\n", "\\\\", '\\"', "\\t"]),
)
string_values = st.lists(_str_piece, max_size=4).map("".join)
symbol_names = st.one_of(
    lower_names,
    keyword_parts.map("".join),
    st.sampled_from(["+", "->", "==>", ",", "=:=", "at:put:", "a:b"]),
    st.text(alphabet=string.ascii_letters + " '-:", max_size=6),
)
chars = st.integers(min_value=0, max_value=0x10FFFF).filter(lambda c: not 0xD800 <= c <= 0xDFFF)
ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
floats = st.floats(allow_nan=False, allow_infinity=False)


def literals():
    return st.one_of(
        ints.map(A.IntegerLit),
        floats.map(A.FloatLit),
        string_values.map(A.StringLit),
        symbol_names.map(A.SymbolLit),
        chars.map(A.CharLit),
    )


def names():
    return st.one_of(lower_names.map(A.Variable), upper_names.map(A.GlobalRef))


def fields():
    return st.builds(lambda r, ns: _chain(r, ns), names(), st.lists(lower_names, min_size=1, max_size=2))


def _chain(r, ns):
    for n in ns:
        r = A.FieldAccess(r, n)
    return r


def patterns(depth):
    base = st.one_of(
        st.just(A.WildcardPattern()),
        lower_names.map(A.VariablePattern),
        st.one_of(ints.map(A.IntegerLit), floats.map(A.FloatLit), string_values.map(A.StringLit),
                  symbol_names.map(A.SymbolLit), chars.map(A.CharLit)).map(A.LiteralPattern),
    )
    if depth <= 0:
        return base
    return st.one_of(base, st.lists(patterns(depth - 1), max_size=3).map(lambda es: A.TuplePattern(tuple(es))))


@st.composite
def interpolated(draw, depth):
    n = draw(st.integers(1, 3))
    parts = []
    for k in range(n):
        if draw(st.booleans()):
            text = draw(string_values)
            if text and (not parts or not isinstance(parts[-1], str)):
                parts.append(text)
        parts.append(draw(exprs(depth - 1, in_method=False)))
    if draw(st.booleans()):
        text = draw(string_values)
        if text:
            parts.append(text)
    return A.InterpolatedString(tuple(parts))


def exprs(depth, in_method=False):
    """Expression ASTs (not statements)."""
    leaf = st.one_of(literals(), names(), fields(), st.just(A.Super()))
    if depth <= 0:
        return leaf
    sub = exprs(depth - 1, in_method)
    stmts = st.lists(statements(depth - 1, in_method), max_size=2).map(tuple)
    options = [
        leaf,
        st.builds(A.UnarySend, sub, st.one_of(lower_names, upper_names)),
        st.builds(A.BinarySend, sub, operators, sub),
        st.builds(
            lambda r, ks, a: A.KeywordSend(r, "".join(ks), tuple(a[: len(ks)] + [A.IntegerLit(0)] * (len(ks) - len(a)))),
            sub,
            keyword_parts,
            st.lists(sub, min_size=1, max_size=3),
        ),
        st.builds(lambda r, ms: A.Cascade(r, tuple(ms)), sub, st.lists(cascade_messages(depth - 1, in_method), min_size=2, max_size=3)),
        st.builds(lambda ps, b: A.Block(tuple(ps), b), st.lists(lower_names, max_size=2), stmts),
        st.builds(lambda es, t: A.ListLit(tuple(es), t), st.lists(sub, max_size=3), st.none() | sub),
        st.builds(lambda es: A.ArrayLit(tuple(es)), st.lists(sub, max_size=3)),
        st.builds(lambda ps: A.MapLit(tuple(ps)), st.lists(st.builds(A.MapPair, sub, sub), max_size=3)),
        st.builds(
            lambda s, arms: A.Match(s, tuple(arms)),
            sub,
            st.lists(st.builds(A.MatchArm, patterns(2), st.none() | sub, sub), min_size=1, max_size=3),
        ),
        st.builds(A.Assignment, st.one_of(lower_names.map(A.Variable), fields()), sub),
        interpolated(depth),
    ]
    if in_method:
        options.append(
            st.builds(A.Primitive, st.one_of(lower_names, string_values), st.sampled_from(["primitive", "intrinsic"]))
        )
    return st.one_of(*options).filter(_valid_expr)


def _valid_expr(e):
    # a match arm's body and the other expressions above may be anything;
    # the only constructs the grammar cannot express are filtered here
    if isinstance(e, A.ListLit) and e.tail is not None and not e.elements:
        return False  # `#( | t)` does not exist
    if isinstance(e, A.Primitive) and e.kind == "primitive" and "\n" in e.name:
        return True
    return True


def cascade_messages(depth, in_method):
    sub = exprs(depth, in_method)
    return st.one_of(
        st.builds(lambda s: A.CascadeMessage(s, ()), st.one_of(lower_names, upper_names)),
        st.builds(lambda op, a: A.CascadeMessage(op, (a,)), operators, sub),
        st.builds(
            lambda ks, a: A.CascadeMessage("".join(ks), tuple(a[: len(ks)] + [A.IntegerLit(1)] * (len(ks) - len(a)))),
            keyword_parts,
            st.lists(sub, min_size=1, max_size=3),
        ),
    )


def statements(depth, in_method=False):
    e = exprs(depth, in_method)
    sends = e.filter(lambda x: isinstance(x, (A.UnarySend, A.BinarySend, A.KeywordSend, A.Cascade)))
    return st.one_of(
        e,
        e.map(A.Return),
        sends.map(A.Cast),
        st.sampled_from(["dnu", "type", "unused", "all"]).map(A.Expect),
    )


docs = st.none() | st.lists(
    st.text(alphabet=string.ascii_letters + " /.*#-", max_size=12), min_size=1, max_size=3
).map("\n".join)
type_names = st.lists(upper_names | st.just("nil"), min_size=1, max_size=2).map(" | ".join)


@st.composite
def method_defs(draw, class_side=None):
    kind = draw(st.sampled_from(["unary", "binary", "keyword"]))
    if kind == "unary":
        sel = draw(st.one_of(lower_names, st.sampled_from(["class", "sealed"])))
        params = ()
    elif kind == "binary":
        sel = draw(operators)
        params = (draw(lower_names),)
    else:
        ks = draw(keyword_parts)
        sel = "".join(ks)
        params = tuple(draw(lower_names) for _ in ks)
    ptypes = ()
    if params and draw(st.booleans()):
        ptypes = tuple(draw(st.none() | type_names) for _ in params)
        if all(t is None for t in ptypes):
            ptypes = ()
    # `@expect` annotates the statement after it: as the last statement of a
    # method body it would annotate the next method of the class instead.
    body = tuple(draw(st.lists(statements(1, in_method=True), min_size=1, max_size=2)
                      .filter(lambda b: not isinstance(b[-1], A.Expect))))
    return A.MethodDef(
        sel,
        params,
        body,
        draw(st.booleans()) if class_side is None else class_side,
        draw(st.booleans()) if class_side is None else False,
        # `class -> T =>` reads as a class-side method `->` with a parameter T:
        # a unary method named like a modifier cannot also declare a return type.
        None if sel in ("class", "sealed") else draw(st.none() | type_names),
        ptypes,
        draw(docs),
        "",
        None if class_side is not None else draw(st.none() | st.sampled_from(["dnu", "type", "unused", "all"])),
    )


state_decls = st.builds(
    A.StateDecl,
    lower_names,
    st.none() | type_names,
    st.none() | exprs(1),
    docs,
    st.none() | st.sampled_from(["dnu", "type", "unused", "all"]),
)


@st.composite
def class_defs(draw):
    return A.ClassDef(
        draw(upper_names),
        draw(st.none() | upper_names),
        tuple(draw(st.lists(st.sampled_from(["abstract", "sealed", "typed"]), max_size=2, unique=True))),
        tuple(draw(st.lists(state_decls, max_size=2))),
        tuple(draw(st.lists(state_decls, max_size=2))),
        tuple(draw(st.lists(method_defs(), max_size=3))),
        draw(docs),
    )


@st.composite
def standalone_methods(draw):
    side = draw(st.booleans())
    return A.StandaloneMethod(draw(upper_names), side, draw(method_defs(class_side=side)))


modules = st.lists(
    st.one_of(statements(2), class_defs(), standalone_methods()), max_size=3
).map(lambda items: A.Module(tuple(items)))


# ----------------------------------------------------------------- round trip

@ROUNDTRIP
@given(modules)
def test_generated_ast_round_trips(module):
    src = unparse(module)
    try:
        again = parse(src)
    except SyntaxErrors as e:  # pragma: no cover - shows the failing text
        pytest.fail(f"unparsed text does not parse:\n{src}\n{e.render()}")
    assert again == module, src
    assert unparse(again) == src


@ROUNDTRIP
@given(statements(3))
def test_generated_statement_round_trips(stmt):
    src = unparse(stmt)
    m = parse(src)
    assert m.items == (stmt,), src


EXAMPLES = [
    "x := 3 + 4 * 2",
    "#(1, 2, 3) inject: 0 into: [:a :b | a + b]",
    'd := #{name => "Ann", #age => 30}',
    "(Counter >> #increment) source",
    'v match: [0 -> "zero"; n when: [n > 0] -> "pos"; _ -> "neg"]',
    'Transcript show: "a"; cr; show: "b"',
    "x := (a foo: ([:e | e])) match: ([1])",
    "(a foo; bar) baz; qux",
    "(Object subclass: Foo) name",
    "x := Object subclass: Foo",
    "(abstract Object subclass: Foo)!",
    '"a {x} b {y foo: "c{1}"} \\{d\\}"',
    "#(1, 2 | t) size",
    "#[#+ , #- , 0]",
    "-2 ** 2 - -3",
    "a := b := c",
    "^[:x | ^x]",
    "$\\n $' $  $\\\\ #'it''s' #+ #at:put:",
    "Actor subclass: Counter\n  state: value = 0\n  classState: created = 0\n  class make =>\n    self.created := self.created + 1\n    self spawn\n  increment => self.value := self.value + 1\nCounter make increment",
    "/// Doc.\nabstract Object subclass: Shape\n  /// Area.\n  area -> Number => self subclassResponsibility\n  + other: Shape => 1\n  at: i: Integer put: v => v\nShape >> foo => 1\nShape class >> bar: x =>\n  @expect dnu\n  x baz",
]


@pytest.mark.parametrize("src", EXAMPLES)
def test_example_round_trips(src):
    m = parse(src)
    u = unparse(m)
    assert parse(u) == m, u
    assert unparse(parse(u)) == u  # canonical form is a fixed point


# ----------------------------------------------------------------- robustness

def _never_raises(src):
    try:
        m, diags = parse_with_diagnostics(src)
        if not diags:
            # whatever parses also round-trips
            assert m is not None
            u = unparse(m)
            assert parse(u) == m, (src, u)
    except SyntaxErrors:  # pragma: no cover - parse_with_diagnostics never raises
        pass
    assert completeness(src) in ("complete", "incomplete", "invalid")
    try:
        parse(src)
    except SyntaxErrors as e:
        assert e.diagnostics
        e.render()


@SETTINGS
@given(st.text(max_size=80))
def test_arbitrary_text(src):
    _never_raises(src)


@SETTINGS
@given(st.binary(max_size=80))
def test_random_bytes(data):
    _never_raises(data.decode("utf-8", errors="replace"))
    _never_raises(data.decode("utf-8", errors="surrogateescape"))


TOKENS = [
    "x", "Foo", "foo:", "at:", "put:", ":=", "^", ".", ";", "!", "|", ":", "=>", "(", ")", "[", "]", "{", "}",
    "#(", "#[", "#{", "1", "-2", "3.5", '"s"', '"a{x}b"', "#sym", "$c", "+", "-", "*", "->", ">>", ",",
    "subclass:", "state:", "classState:", "class", "sealed", "abstract", "@primitive", "@expect", "dnu",
    "match:", "when:", "_", "self", "super", "\n", "\n  ", " ", "//c\n", "/*c*/",
]


@SETTINGS
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_token_soup(toks):
    _never_raises(" ".join(toks))
    _never_raises("".join(toks))


VALID_PROGRAMS = [EXAMPLES[-1], EXAMPLES[-2], EXAMPLES[1], EXAMPLES[4], EXAMPLES[11]]


@st.composite
def mutated(draw):
    src = draw(st.sampled_from(VALID_PROGRAMS))
    for _ in range(draw(st.integers(1, 4))):
        if not src:
            break
        i = draw(st.integers(0, len(src) - 1))
        op = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        if op == "delete":
            j = draw(st.integers(i, min(len(src), i + 6)))
            src = src[:i] + src[j:]
        elif op == "insert":
            src = src[:i] + draw(st.sampled_from(TOKENS)) + src[i:]
        elif op == "replace":
            src = src[:i] + draw(st.characters()) + src[i + 1 :]
        else:
            j = draw(st.integers(i, min(len(src), i + 20)))
            src = src[:j] + src[i:j] + src[j:]
    return src


@SETTINGS
@given(mutated())
def test_mutations_of_valid_programs(src):
    _never_raises(src)


@given(st.integers(1, 400))
@settings(max_examples=10, deadline=None)
def test_deep_nesting_never_crashes(n):
    for open_, close in [("(", ")"), ("[", "]"), ("#(", ")"), ('"{', '}"'), ("x := ", "")]:
        _never_raises(open_ * n + "1" + close * n)
        _never_raises(open_ * n)
