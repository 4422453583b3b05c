"""The lexer's fast path memoises (kind, value) per token text (``_MEMO``);
only texts whose kind and value do not depend on their context may be
memoised.  Lines/columns are computed lazily from the line table."""

import pytest

from beamtalk_ws.syntax import lexer as L

SOURCES = [
    'x := "a{b}c" , "{d e: "f{g}"}" // c\n /* x */ #(1, -2.5e3) $a #foo:bar #\'q\'',
    '"{$} x" "{x //}\n}" 3even 16rFF "a\\{" @primitive "+" @foo @ \'s\' # é ~',
    "a $", "a $\\", "$", "#'abc", "x #'", '"abc', '"a{', '"{}"', "a /* open", "99999999999999999999999",
    "1e", "16r1G", "$\n", "#'a\nb'", '"a\nb" c',
]


def _arrays(src):
    t = L.lex(src)
    return (t.kinds, t.values, t.starts, t.ends, t.nls, t.lines, t.cols, t.unterminated_comment)


@pytest.mark.parametrize("src", SOURCES)
def test_memo_warm_and_cold_agree(src):
    L._MEMO.clear()
    cold = _arrays(src)
    warm = _arrays(src)
    # and with every source of the list seen before
    for s in SOURCES:
        L.lex(s)
    assert cold == warm == _arrays(src)


@pytest.mark.parametrize("src", SOURCES)
def test_lines_and_cols_are_those_of_the_start_offsets(src):
    t = L.lex(src)
    for s, line, col in zip(t.starts, t.lines, t.cols):
        assert line == src.count("\n", 0, s) + 1
        assert col == s - (src.rfind("\n", 0, s) + 1) + 1


def test_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(L, "_MEMO_LIMIT", 10)
    L.lex(" ".join(f"name{k}" for k in range(50)))
    L.lex("a")
    assert len(L._MEMO) < 50


def test_memo_of_pieces_the_fast_path_cannot_lex_is_bounded(monkeypatch):
    # every string here is new (so is its memo entry) while its tokens are not
    monkeypatch.setattr(L, "_MEMO_LIMIT", 10)
    for k in range(50):
        L.lex('"a{x}' + "b" * k + '"')
    assert len(L._SPECIAL) <= 11


STRING_SOURCES = [
    'a := "x{b}y{c d}z" , "{e}"\n"{f\n g}" "{}" "{ }" "a{b}"',
    'x := "q{y}" // c\n "q{y}" /* k */ "q{y}" . "q{y}"',
    # a simple string inside a complex interpolation (nesting), and a string
    # nested deeper than the lexer allows
    '"a{ "b{c}" }" "{"{x}"}"',
    "".join('"{' for _ in range(40)) + "x" + "".join('}"' for _ in range(40)) + ' "{y}"',
    '"{a}" "{a}',
]


def _cold(src):
    for memo in (L._MEMO, L._PIECES, L._SPECIAL, L._STRINGS):
        memo.clear()
    return _arrays(src)


@pytest.mark.parametrize("src", STRING_SOURCES)
def test_strings_with_interpolations_lex_the_same_from_the_memo(src):
    # the first lex fills the memo of whole string pieces (_STRINGS), the
    # second reads the tokens from it
    cold = _cold(src)
    if src == STRING_SOURCES[0]:
        assert len(L._STRINGS) == 4  # "{}" is an error: not memoised
    warm = _arrays(src)
    assert cold == warm
    # and inside a longer text (other offsets, other lines)
    prefix = "z := 1\n  w foo; bar\n"
    n = len(L.lex(prefix).kinds) - 1
    shifted = _arrays(prefix + src)
    assert shifted[0][n:] == warm[0] and shifted[1][n:] == warm[1]
    assert [s - len(prefix) for s in shifted[2][n:]] == warm[2]
    assert shifted[4][n + 1 :] == warm[4][1:]
    assert _cold(prefix + src) == shifted


def test_memo_of_whole_strings_is_bounded(monkeypatch):
    monkeypatch.setattr(L, "_MEMO_LIMIT", 10)
    for k in range(50):
        L.lex('"a{x}' + "b" * k + '"')
    assert len(L._STRINGS) <= 11


def test_every_kind_is_the_kind_constant_itself():
    # the parser compares kinds with ``is``: a kind equal to a K_* string but
    # not the same object would silently take the wrong branch
    import glob
    import os

    constants = {id(getattr(L, name)) for name in dir(L) if name.startswith("K_")}
    root = os.path.join(os.path.dirname(__file__), "..", "stdlib")
    texts = SOURCES + STRING_SOURCES + [open(f, encoding="utf-8").read() for f in glob.glob(root + "/**/*.bt", recursive=True)]
    texts.append("#( #[ #{ @primitive @intrinsic @expect ( ) [ ] { } ^ ; . ! | : := => x: + $a #a 'q' 1 2.5 \"s\"")
    for cold in (True, False):
        for src in texts:
            if cold:
                _cold(src)
            for k in L.lex(src).kinds:
                assert id(k) in constants, (k, src[:40])
