"""Lexer: every token rule and example of spec/syntax.md §1–§2."""

import pytest
from hypothesis import given, settings, strategies as st

from beamtalk_ws.syntax import tokenize
from beamtalk_ws.syntax import lexer as L


def toks(src):
    """(kind, value) pairs without EOF; error tokens as ('error', message)."""
    out = []
    for t in tokenize(src)[:-1]:
        v = t.value.message if t.kind == "error" else t.value
        out.append((t.kind, v))
    return out


def kinds(src):
    return [t.kind for t in tokenize(src)[:-1]]


# ----------------------------------------------------------------- §2.1 identifiers / keywords

IDENT_CASES = [
    ("foo", [("ident", "foo")]),
    ("_x1", [("ident", "_x1")]),
    ("Counter", [("ident", "Counter")]),
    ("foo:", [("keyword", "foo:")]),
    ("foo :", [("ident", "foo"), (":", ":")]),
    ("x:=1", [("ident", "x"), (":=", ":="), ("int", 1)]),
    ("at:put:", [("keyword", "at:"), ("keyword", "put:")]),
    ("a:b", [("keyword", "a:"), ("ident", "b")]),
    ("_", [("ident", "_")]),
    ("thisContext", [("ident", "thisContext")]),
]


@pytest.mark.parametrize("src,expected", IDENT_CASES)
def test_identifiers_and_keywords(src, expected):
    assert toks(src) == expected


@pytest.mark.parametrize(
    "src,bad",
    [("café := 1", "é"), ("counter🚀", "🚀"), ("计数器", "计")],
)
def test_non_ascii_outside_strings_is_an_error_token(src, bad):
    errs = [t for t in tokenize(src) if t.kind == "error"]
    assert errs and bad in errs[0].value.message
    assert errs[0].text == bad


# ----------------------------------------------------------------- §2.2 numbers

NUMBER_CASES = [
    ("42", [("int", 42)]),
    ("16rFF", [("int", 255)]),
    ("16rff", [("int", 255)]),
    ("2r1010", [("int", 10)]),
    ("36rZZ", [("int", 1295)]),
    ("3.14", [("float", 3.14)]),
    ("0.5", [("float", 0.5)]),
    ("2.5e-3", [("float", 0.0025)]),
    ("1e10", [("float", 1e10)]),
    ("2E5", [("float", 2e5)]),
    ("1.5e+2", [("float", 150.0)]),
    ("1.", [("int", 1), (".", ".")]),
    (".5", [(".", "."), ("int", 5)]),
    ("-42", [("int", -42)]),
    ("-3.14", [("float", -3.14)]),
    ("-1e5", [("float", -1e5)]),
    ("-16rFF", [("int", -16), ("ident", "rFF")]),
    ("123abc", [("int", 123), ("ident", "abc")]),
    ("3even", [("error", "Invalid float: 3e"), ("ident", "ven")]),
    ("3 - 2", [("int", 3), ("binop", "-"), ("int", 2)]),
    ("3 -2", [("int", 3), ("int", -2)]),
    ("3-2", [("int", 3), ("int", -2)]),
    ("x-1", [("ident", "x"), ("int", -1)]),
    ("0 - -5", [("int", 0), ("binop", "-"), ("int", -5)]),
    ("3 +-1", [("int", 3), ("binop", "+-"), ("int", 1)]),
    ("- x", [("binop", "-"), ("ident", "x")]),
    ("-2 ** 2", [("int", -2), ("binop", "**"), ("int", 2)]),
    ("9223372036854775807", [("int", 9223372036854775807)]),
    ("-9223372036854775808", [("int", -9223372036854775808)]),
    ("16r7FFFFFFFFFFFFFFF", [("int", 2**63 - 1)]),
]


@pytest.mark.parametrize("src,expected", NUMBER_CASES)
def test_numbers(src, expected):
    assert toks(src) == expected


@pytest.mark.parametrize(
    "src",
    [
        "9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999999999999",
        "16r8000000000000000",
        "1r0",
        "37r1",
        "0r0",
        "2r102",
        "16rXYZ",
        "8r9",
        "1" * 5000,  # Python's int() digit limit must not leak out
    ],
)
def test_invalid_integer_literals(src):
    ts = tokenize(src)
    assert ts[0].kind == "error"
    assert ts[0].value.message.startswith("Invalid integer: ")


def test_float_out_of_range_is_an_error():
    assert tokenize("1e999")[0].kind == "error"


# ----------------------------------------------------------------- §2.3 strings

STRING_CASES = [
    ('"hello"', [("string", "hello")]),
    ('""', [("string", "")]),
    ('""""', [("string", '"')]),
    ('"say ""hi"""', [("string", 'say "hi"')]),
    ('"a\\nb"', [("string", "a\\nb")]),  # no escape processing: 4 characters
    ('"\\{x\\}"', [("string", "\\{x\\}")]),  # \{ and \} stay in the value
    ('"a\\"b"', [("string", 'a\\"b')]),  # \" does not close the string
    ('"line1\nline2"', [("string", "line1\nline2")]),
    ('"a } b"', [("string", "a } b")]),  # } without { is text
]


@pytest.mark.parametrize("src,expected", STRING_CASES)
def test_strings(src, expected):
    assert toks(src) == expected


def test_backslash_string_value_lengths():
    # spec §2.3 says `"\{x\}"` "has 6 characters including both backslashes";
    # the rule it states (a backslash is kept together with the next
    # character) gives the 5 characters \ { x \ } — we follow the rule.
    assert tokenize('"\\{x\\}"')[0].value == "\\{x\\}"
    assert len(tokenize('"a\\nb"')[0].value) == 4


INTERP_CASES = [
    ('"a{x}b"', [("string-start", "a"), ("ident", "x"), ("string-end", "b")]),
    (
        '"{x} and {y + 1}!"',
        [
            ("string-start", ""),
            ("ident", "x"),
            ("string-segment", " and "),
            ("ident", "y"),
            ("binop", "+"),
            ("int", 1),
            ("string-end", "!"),
        ],
    ),
    # nested braces are counted
    ('"{#{a => 1} size}"', [("string-start", ""), ("#{", "#{"), ("ident", "a"), ("=>", "=>"), ("int", 1), ("}", "}"), ("ident", "size"), ("string-end", "")]),
    # nested string literals, characters and comments are skipped when looking for the end
    ('"{x at: "}"}"', [("string-start", ""), ("ident", "x"), ("keyword", "at:"), ("string", "}"), ("string-end", "")]),
    ('"{$} value}"', [("string-start", ""), ("char", 125), ("ident", "value"), ("string-end", "")]),
    ('"{$\\} value}"', [("string-start", ""), ("char", 125), ("ident", "value"), ("string-end", "")]),
    ('"{x /* } */ foo}"', [("string-start", ""), ("ident", "x"), ("ident", "foo"), ("string-end", "")]),
    ('"{"in {y}"}"', [("string-start", ""), ("string-start", "in "), ("ident", "y"), ("string-end", ""), ("string-end", "")]),
]


@pytest.mark.parametrize("src,expected", INTERP_CASES)
def test_interpolation_tokens(src, expected):
    assert toks(src) == expected


@pytest.mark.parametrize("src", ['"{}"', '"{   }"', '"a {} b"', '"{x} {}"', '"{\n}"'])
def test_empty_interpolation(src):
    errs = [t for t in tokenize(src) if t.kind == "error"]
    assert [e.value.message for e in errs] == [
        "empty interpolation {} is not allowed, use \\{ for literal brace"
    ]


@pytest.mark.parametrize("src", ['"hello', '"abc""', '"a {x', '"a {x} b', '"ab\\'])
def test_unterminated_string(src):
    ts = tokenize(src)
    assert ts[0].kind == "error"
    assert ts[0].value.unterminated
    assert src.split("\n")[0][:10] in ts[0].value.message
    assert ts[0].text == src


def test_unterminated_string_message_contains_text():
    assert '"hello' in tokenize('"hello')[0].value.message


@pytest.mark.parametrize(
    "src,shown", [("'hello'", '"hello"'), ("'it''s'", '"it\'s"'), ("'unterminated", '"unterminated"'), ("'say \"hi\"'", '"say ""hi"""')]
)
def test_single_quoted_strings_are_rejected(src, shown):
    t = tokenize(src)[0]
    assert t.kind == "error"
    assert t.value.message == "single-quoted strings are no longer supported, use double quotes: " + shown
    assert "single quotes are not strings" in t.value.hint


# ----------------------------------------------------------------- §2.4 characters

CHAR_CASES = [
    ("$a", 97),
    ("$世", 19990),
    ("$ ", 32),
    ("$'", 39),
    ("$\\n", 10),
    ("$\\t", 9),
    ("$\\r", 13),
    ("$\\\\", 92),
    ("$\\'", 39),
    ("$\\0", 48),
    ("$\\X", 88),
    ('$"', 34),
    ("$$", 36),
]


@pytest.mark.parametrize("src,code", CHAR_CASES)
def test_characters(src, code):
    assert toks(src) == [("char", code)]


@pytest.mark.parametrize("src", ["42$", "$", "$\\"])
def test_dollar_at_end_is_an_error(src):
    errs = [t for t in tokenize(src) if t.kind == "error"]
    assert len(errs) == 1 and "$" in errs[0].value.message


# ----------------------------------------------------------------- §2.5 symbols

SYMBOL_CASES = [
    ("#foo", "foo"),
    ("#_x1", "_x1"),
    ("#at:", "at:"),
    ("#at:put:", "at:put:"),
    ("#ifTrue:ifFalse:", "ifTrue:ifFalse:"),
    ("#a:b", "a:b"),
    ("#'hello world'", "hello world"),
    ("#'it''s'", "it's"),
    ("#''", ""),
    ("#+", "+"),
    ("#>=", ">="),
    ("#==>", "==>"),
    ("#,", ","),
    ("#=:=", "=:="),
    ("#\\\\", "\\\\"),
]


@pytest.mark.parametrize("src,name", SYMBOL_CASES)
def test_symbols(src, name):
    assert toks(src) == [("symbol", name)]


def test_symbol_colon_followed_by_equals_is_not_taken():
    assert toks("#a:=1") == [("symbol", "a"), (":=", ":="), ("int", 1)]


@pytest.mark.parametrize("src,kind", [("#(", "#("), ("#[", "#["), ("#{", "#{")])
def test_collection_openers(src, kind):
    assert kinds(src) == [kind]


@pytest.mark.parametrize("src", ["#", "# foo", "#1", "#)"])
def test_hash_alone_is_an_error(src):
    t = tokenize(src)[0]
    assert t.kind == "error" and t.text == "#"
    assert t.value.message.startswith("Unexpected '#'")


def test_unterminated_quoted_symbol():
    t = tokenize("#'abc")[0]
    assert t.kind == "error" and t.value.unterminated


# ----------------------------------------------------------------- §2.6 operators and punctuation

OP_CASES = [
    ("+", ["+"]),
    ("->", ["->"]),
    ("**", ["**"]),
    ("++", ["++"]),
    ("<=", ["<="]),
    ("==", ["=="]),
    ("/=", ["/="]),
    ("=:=", ["=:="]),
    ("=/=", ["=/="]),
    (">>", [">>"]),
    ("~=", ["~="]),
    ("&", ["&"]),
    ("<<", ["<<"]),
    ("==>", ["==>"]),
    ("\\\\", ["\\\\"]),
    (">=>", [">=>"]),
    ("%", ["%"]),
    (",", [","]),
    ("?", ["?"]),
]


@pytest.mark.parametrize("src,ops", OP_CASES)
def test_operator_runs(src, ops):
    assert toks(src) == [("binop", o) for o in ops]


def test_fat_arrow_starts_a_run():
    assert toks("=>") == [("=>", "=>")]
    assert toks("=>>") == [("=>", "=>"), ("binop", ">")]
    assert toks("a => b") == [("ident", "a"), ("=>", "=>"), ("ident", "b")]


def test_colon_is_not_an_operator_char():
    assert toks("=:=") == [("binop", "=:=")]
    assert toks("a :b") == [("ident", "a"), (":", ":"), ("ident", "b")]


@pytest.mark.parametrize("p", list("()[]{}^;.!|:"))
def test_punctuation(p):
    assert kinds(p) == [p]


def test_assign_token():
    assert kinds(":=") == [":="]


@pytest.mark.parametrize("d", ["@primitive", "@intrinsic", "@expect"])
def test_directives(d):
    assert kinds(d + " x") == [d, "ident"]


@pytest.mark.parametrize("src", ["@foo", "@", "@primitives"])
def test_unknown_directive_is_an_error(src):
    assert tokenize(src)[0].kind == "error"


def test_comment_slash_slash_is_not_an_operator():
    assert toks("a // b") == [("ident", "a")]


# ----------------------------------------------------------------- §1 trivia

def test_comments_are_trivia():
    assert toks("a /* x */ b // c\n d") == [("ident", "a"), ("ident", "b"), ("ident", "d")]


def test_block_comments_do_not_nest():
    assert toks("/* a /* b */ c */") == [("ident", "c"), ("binop", "*/")]


def test_unterminated_block_comment_runs_to_eof():
    t = L.lex("a /* never closed\n b c")
    assert t.kinds == ["ident", "eof"]
    assert t.unterminated_comment


def test_closed_block_comment_is_not_flagged():
    assert not L.lex("a /* x */").unterminated_comment
    assert not L.lex("a // /* x").unterminated_comment


def test_no_double_quote_comments():
    assert kinds('"comment" x') == ["string", "ident"]


NL_CASES = [
    ("a b", [False, False]),
    ("a\nb", [False, True]),
    ("a // c\nb", [False, True]),
    ("a /* \n */ b", [False, True]),
    ("a /* x */ b", [False, False]),
    ("\n a", [True]),
    ("a\r\nb", [False, True]),
    ("a\tb", [False, False]),
    ('a "x\ny" b', [False, False, False]),  # newline inside a string is not trivia
]


@pytest.mark.parametrize("src,nls", NL_CASES)
def test_newline_before(src, nls):
    assert [t.nl_before for t in tokenize(src)[:-1]] == nls


def test_positions_lines_and_columns():
    ts = tokenize('x := 1\n  "a\nb" foo\n\tbar')
    got = [(t.text, t.span.line, t.span.col) for t in ts[:-1]]
    assert got == [("x", 1, 1), (":=", 1, 3), ("1", 1, 6), ('"a\nb"', 2, 3), ("foo", 3, 4), ("bar", 4, 2)]
    assert ts[-1].kind == "eof"


def test_positions_inside_interpolation():
    ts = tokenize('"ab{x\n + y}c" z')
    got = [(t.kind, t.span.line, t.span.col) for t in ts[:-1]]
    assert got == [
        ("string-start", 1, 1),
        ("ident", 1, 5),
        ("binop", 2, 2),
        ("ident", 2, 4),
        ("string-end", 2, 5),
        ("ident", 2, 9),
    ]


def test_eof_token_newline_flag():
    assert tokenize("a\n")[-1].nl_before
    assert not tokenize("a")[-1].nl_before


# ----------------------------------------------------------------- lexer paths agree

def _lex_arrays(src, fast):
    old = L._MAX_RESTARTS
    L._MAX_RESTARTS = 10**9 if fast else 0
    try:
        t = L.lex(src)
    finally:
        L._MAX_RESTARTS = old
    return (t.kinds, t.values, t.starts, t.ends, t.nls, t.lines, t.cols, t.unterminated_comment)


SAMPLES = [
    'x := "a{b}c" , "{d e: "f{g}"}" // c\n /* x */ #(1, -2.5e3) $a #foo:bar #\'q\'',
    '"{$} x" "{x //}\n}" 3even 16rFF "a\\{" @primitive "+"',
    "Object subclass: Foo\n  state: x = 0\n  foo => ^self.x + 1",
    '"unterminated {x',
    "a /* open",
    '"{}" "{ }" \'single\' #\' $',
]


@pytest.mark.parametrize("src", SAMPLES)
def test_fast_and_slow_lexer_paths_agree(src):
    assert _lex_arrays(src, True) == _lex_arrays(src, False)


_ALPHABET = st.sampled_from(
    list("abcXY_019 \n\t\"'{}()[]#$@:;.!|^+-*/<>=~%&?,\\rE")
    + ["//", "/*", "*/", "\"{x}\"", "#(", ":=", "=>", "$\\", "é", "{{", "}}"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_property_fast_and_slow_lexer_paths_agree(src):
    assert _lex_arrays(src, True) == _lex_arrays(src, False)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_property_lexer_never_raises_and_tiles_source(src):
    t = L.lex(src)
    assert t.kinds[-1] == "eof"
    # tokens are in order and inside the source
    prev = 0
    for s, e in zip(t.starts, t.ends):
        assert 0 <= s <= e <= len(src)
        assert s >= prev or True  # error tokens may overlap strings they replace
        prev = s


def test_nested_interpolated_strings_inside_interpolation():
    # a nested string literal that is itself interpolated is skipped whole
    assert toks('"{"{"\\{"}"}"') == [
        ("string-start", ""),
        ("string-start", ""),
        ("string", "\\{"),
        ("string-end", ""),
        ("string-end", ""),
    ]
    assert toks('"a{"b{"c"}d"}e"') == [
        ("string-start", "a"),
        ("string-start", "b"),
        ("string", "c"),
        ("string-end", "d"),
        ("string-end", "e"),
    ]


def test_very_deep_string_nesting_is_an_error_not_a_crash():
    src = '"{' * 300 + "1" + '}"' * 300
    t = L.lex(src)
    assert any(v.message == "Expression nesting is too deep" for k, v in zip(t.kinds, t.values) if k == "error")
