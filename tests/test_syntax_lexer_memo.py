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
