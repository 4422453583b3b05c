"""Hand-written Beamtalk lexer (spec/syntax.md §1–§2).

The lexer produces *parallel arrays* instead of one object per token (this is
the hot loop of the front end):

``kinds[i]``   token kind (one of the ``K_*`` strings below)
``values[i]``  identifier/keyword text, number value, string text, symbol name,
               character code point, operator text, or a ``LexError`` for
               error tokens
``starts[i]``, ``ends[i]``  source offsets of the token text
``nls[i]``     True when the token's leading trivia contains a newline
               ("NL-before", spec §1/§3)
``lines[i]``, ``cols[i]``   1-based line and column of ``starts[i]`` (computed
               on first access: the parser does not need them)

The last token is always ``K_EOF`` (its ``nls`` tells whether the input ends
with a newline).  Trivia (whitespace and comments) is not materialised; the
leading trivia of token ``i`` is ``source[ends[i-1]:starts[i]]``, which
is where doc comments (``///``) are read from, lazily, by the parser.

Strings with interpolation are split into ``K_STR_START``, the tokens of each
embedded expression, ``K_STR_SEG`` (between two embedded expressions) and
``K_STR_END`` tokens (spec §2.3).
"""

from __future__ import annotations

import re

from .ast import LineTable, Span
from .lexer_nesting import find_interp_end as _find_interp_end, find_string_end as _find_string_end
from .teaching import single_quoted
from .token_kinds import (  # noqa: F401  (the kinds are public names of this module)
    K_IDENT,
    K_KEYWORD,
    K_INT,
    K_FLOAT,
    K_STRING,
    K_STR_START,
    K_STR_SEG,
    K_STR_END,
    K_SYMBOL,
    K_CHAR,
    K_BINOP,
    K_ASSIGN,
    K_CARET,
    K_SEMI,
    K_PERIOD,
    K_BANG,
    K_PIPE,
    K_COLON,
    K_FATARROW,
    K_LPAREN,
    K_RPAREN,
    K_LBRACKET,
    K_RBRACKET,
    K_LBRACE,
    K_RBRACE,
    K_HASH_PAREN,
    K_HASH_BRACKET,
    K_HASH_BRACE,
    K_PRIMITIVE,
    K_INTRINSIC,
    K_EXPECT,
    K_ERROR,
    K_EOF,
    BINARY_CHARS,
    INT64_MIN,
    INT64_MAX,
    EMPTY_INTERPOLATION,
    LexError,
    Token,
    _int_token,
    _radix_token,
    _digit_ok,
    _float_token,
    _short,
)

# ----------------------------------------------------------------- regexes

_OPS = r"[+\-*/<>=~%&?,\\]"
_ID = r"[A-Za-z_][A-Za-z0-9_]*"

# Group 1 is the leading trivia (atomic: never re-read as tokens); the named
# alternatives are the tokens.  ``other`` matches any character, and ``eof``
# the end of the range, so consecutive matches always tile the text.
_MASTER = re.compile(
    r"""
    ((?>[ \t\r\n]*(?:(?://[^\n]*|/\*(?:[^*]|\*(?!/))*+(?:\*/)?)[ \t\r\n]*)*))
    (?:
    (?P<id>[A-Za-z_][A-Za-z0-9_]*)(?P<colon>:(?!=))?
  | (?P<punct>[()\[\]{}^;.!|])
  | (?P<radix>\d+r[A-Za-z0-9]+)
  | (?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d*)?)
  | (?P<assign>:=)
  | (?P<colon2>:)
  | (?P<fat>=>)
  | (?P<op>=:=|=/=|""" + _OPS + r"""+)
  | (?P<str>"(?:[^"\\{]|""|\\[\s\S])*+")
  | (?P<strx>")
  | (?P<hash>\#[(\[{])
  | (?P<sym>\#(?:(?:""" + _ID + r""":(?!=))+(?:""" + _ID + r""")?|""" + _ID + r"""))
  | (?P<osym>\#(?:=:=|""" + _OPS + r"""+))
  | (?P<qsym>\#'(?:[^']|'')*+')
  | (?P<qsymx>\#')
  | (?P<char>\$(?:\\[\s\S]|[^\\]))
  | (?P<at>@(?:[A-Za-z_][A-Za-z0-9_]*)?)
  | (?P<squote>'(?:[^'\n]|'')*'?)
  | (?P<eof>\Z)
  | (?P<other>[\s\S])
    )
    """,
    re.VERBOSE | re.ASCII,
)

# The same token set as _MASTER, but with exactly two groups (leading trivia,
# token text) so that ``findall`` can return plain tuples: the fast path.
# Strings whose interpolations are simple (no braces, quotes or ``$`` inside)
# are matched whole, so that the scan can continue after them; any other
# string start matches just ``"`` and forces a restart after hand-lexing it.
_CMT = r"(?://[^\n]*|/\*(?:[^*]|\*(?!/))*+(?:\*/)?)"
_CMT1 = r"(?:/[^\n]*|\*(?:[^*]|\*(?!/))*+(?:\*/)?)"  # _CMT after its '/'

# Every alternative (and the comment branch of the trivia) starts with a
# literal or a character set, which lets the regex engine skip the ones that
# cannot match without entering them (this is the hot loop of the lexer).
_TRIVIA_RX = (
    r"""[ \t\r\n]*+(?:/(?>""" + _CMT1 + r"""(?:[ \t\r\n]*+""" + _CMT + r""")*)[ \t\r\n]*+|)"""
)
_TOKEN_RX = r"""
    [A-Za-z_][A-Za-z0-9_]*+(?::(?!=)|)
  | [()\[\]{}^;.!|]
  | \d++(?:r[A-Za-z0-9]+|(?:\.\d++|)(?:[eE][+-]?\d*|))
  | :=?
  | =>
  | =:=|=/=
  | -\d++(?:\.\d++|)(?:[eE][+-]?\d*|)
  | """ + _OPS + _OPS + r"""*+
  | "(?:[^"\\{]++|""|\\[\s\S]|\{[^{}"$]*\})*+"
  | "
  | \#[(\[{]
  | \#(?:(?:""" + _ID + r""":(?!=))+(?:""" + _ID + r""")?|""" + _ID + r""")
  | \#(?:=:=|""" + _OPS + r"""+)
  | \#'(?:[^']|'')*+'
  | \#'
  | \$(?:\\[\s\S]|[^\\])
  | @(?:[A-Za-z_][A-Za-z0-9_]*)?
  | '(?:[^'\n]|'')*'?
  | \Z
  | [\s\S]
"""
#: (leading trivia, token text)
_FAST = re.compile("(" + _TRIVIA_RX + ")(" + _TOKEN_RX + ")", re.VERBOSE | re.ASCII)
#: the same matches without groups (``findall`` then returns each whole
#: match): each "piece" (trivia + token) is one string, the key of the
#: piece memo
_PIECE = re.compile("(?:" + _TRIVIA_RX + "(?:" + _TOKEN_RX + "))", re.VERBOSE | re.ASCII)

_C_ID, _C_PUNCT, _C_DIGIT, _C_MINUS, _C_OP, _C_COLON, _C_QUOTE, _C_HASH, _C_OTHER = range(1, 10)
_FIRST = {}
for _c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_":
    _FIRST[_c] = _C_ID
for _c in "()[]{}^;.!|":
    _FIRST[_c] = _C_PUNCT
for _c in "0123456789":
    _FIRST[_c] = _C_DIGIT
for _c in "+*/<>=~%&?,\\":
    _FIRST[_c] = _C_OP
_FIRST["-"] = _C_MINUS
_FIRST[":"] = _C_COLON
_FIRST['"'] = _C_QUOTE
_FIRST["#"] = _C_HASH
del _c

#: after this many restarts (complex strings) the lexer switches to the
#: match-object scanner for the rest of the range (keeps it linear)
_MAX_RESTARTS = 32

#: interpolated strings nested deeper than this are one error token
_MAX_STRING_NESTING = 32

#: token text -> its kind constant, for the kinds read from the token text
#: (every kind in the arrays is one of the K_* objects: the parser compares
#: kinds with ``is``; one-character kinds are CPython's shared strings)
_KINDS = {k: k for k in (K_HASH_PAREN, K_HASH_BRACKET, K_HASH_BRACE, K_PRIMITIVE, K_INTRINSIC, K_EXPECT)}

_CHAR_ESCAPES = {"n": 10, "t": 9, "r": 13, "\\": 92, "'": 39}

_STR_RUN = re.compile(r'[^"\\{]+')
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Tokens:
    """The token arrays of one source text (see module docstring).
    ``lines``/``cols`` are computed on first access (from ``table``)."""

    __slots__ = (
        "source",
        "kinds",
        "values",
        "starts",
        "ends",
        "nls",
        "table",
        "_lines",
        "_cols",
        "unterminated_comment",
    )

    def __init__(self, source: str):
        self.source = source
        self.kinds: list = []
        self.values: list = []
        self.starts: list = []
        self.ends: list = []
        self.nls: list = []
        self.table = LineTable(source)
        self._lines = None
        self._cols = None
        self.unterminated_comment = False

    def __len__(self):
        return len(self.kinds)

    def _line_cols(self):
        lc = self.table.line_col
        pairs = [lc(s) for s in self.starts]
        self._lines = [p[0] for p in pairs]
        self._cols = [p[1] for p in pairs]

    @property
    def lines(self) -> list:
        if self._lines is None or len(self._lines) != len(self.starts):
            self._line_cols()
        return self._lines

    @property
    def cols(self) -> list:
        if self._cols is None or len(self._cols) != len(self.starts):
            self._line_cols()
        return self._cols

    def text(self, i: int) -> str:
        return self.source[self.starts[i] : self.ends[i]]

    def trivia_start(self, i: int) -> int:
        """Offset where the leading trivia of token i starts."""
        return self.ends[i - 1] if i > 0 else 0

    def span(self, i: int) -> Span:
        return self.table.span(self.starts[i], self.ends[i])

    def token(self, i: int) -> Token:
        return Token(self.kinds[i], self.values[i], self.span(i), self.nls[i], self.text(i))


#: memo of the fast path: token text -> (kind, value) for every token whose
#: kind and value depend on its text alone (cleared when it grows too big)
_MEMO: dict = {}
_MEMO_LIMIT = 200_000
#: memo of the pieces (leading trivia + token text, see _PIECE) without
#: comments: piece -> (kind, value, trivia length, piece length, NL-before)
_PIECES: dict = {}
#: memo of the pieces the fast path cannot lex alone (same key and entry,
#: with None as the kind)
_SPECIAL: dict = {}
#: memo of the string pieces with simple interpolations: piece -> the
#: entries of its tokens, flat (see _Lexer._memo_string)
_STRINGS: dict = {}


def _piece_entry(piece: str):
    """The _PIECES entry of a piece (memoised unless its trivia has a
    comment), or (None, token text, trivia length, piece length, NL-before)
    for the tokens that need the slow path (see _classify), memoised
    too: an interpolated string costs one extra lookup for the end of
    each interpolation."""
    e = _SPECIAL.get(piece)
    if e is not None:
        return e
    m = _FAST.match(piece)
    triv = m.group(1)
    tok = m.group(2)
    kv = _MEMO.get(tok)
    if kv is None:
        kv = _classify(tok)
        if kv is None:
            e = (None, tok, len(triv), len(piece), "\n" in triv)
            if "/" not in triv:
                _SPECIAL[piece] = e
            return e
        _MEMO[tok] = kv
    e = (kv[0], kv[1], len(triv), len(piece), "\n" in triv)
    if "/" not in triv:
        _PIECES[piece] = e
    return e


def _classify(tok: str):
    """(kind, value) of a fast-path token text, or None for the texts that
    need the slow path (strings with interpolations, unterminated quoted
    symbols, a lone '$', the end of the range)."""
    code = _FIRST.get(tok[0], _C_OTHER) if tok else _C_OTHER
    if code == _C_ID:
        return (K_KEYWORD if tok[-1] == ":" else K_IDENT), tok
    if code == _C_PUNCT:
        return tok, tok
    if code == _C_OP:
        if tok == "=>":
            return K_FATARROW, K_FATARROW
        return K_BINOP, tok
    if code == _C_DIGIT or (code == _C_MINUS and len(tok) > 1 and "0" <= tok[1] <= "9"):
        if len(tok) < 19 and tok.isdigit():
            return K_INT, int(tok)
        if "r" in tok:
            return _radix_token(tok)
        if "." in tok or "e" in tok or "E" in tok:
            return _float_token(tok)
        return _int_token(tok)
    if code == _C_MINUS:
        return K_BINOP, tok
    if code == _C_COLON:
        if tok == ":=":
            return K_ASSIGN, K_ASSIGN
        return K_COLON, K_COLON
    if code == _C_QUOTE:
        if len(tok) > 1 and "{" not in tok:
            val = tok[1:-1]
            if '"' in val:
                val = val.replace('""', '"')
            return K_STRING, val
        return None
    if not tok:
        return None
    g = _rare_group(code, tok)
    if g == "qsymx" or (g == "other" and tok == "$"):
        return None
    return _rare_text(g, tok)


def _rare_text(g: str, text: str):
    """Kind and value of the less frequent token kinds whose value depends
    on their text alone (``g``: the _MASTER group name)."""
    if g == "sym" or g == "osym":
        return K_SYMBOL, text[1:]
    if g == "hash":
        k = _KINDS[text]  # the kind constant itself (the parser compares with ``is``)
        return k, k
    if g == "char":
        if text[1] == "\\":
            c = text[2]
            return K_CHAR, _CHAR_ESCAPES.get(c, ord(c))
        return K_CHAR, ord(text[1])
    if g == "radix":
        return _radix_token(text)
    if g == "qsym":
        return K_SYMBOL, text[2:-1].replace("''", "'")
    if g == "at":
        if text == "@primitive" or text == "@intrinsic" or text == "@expect":
            k = _KINDS[text]
            return k, k
        if text == "@":
            return K_ERROR, LexError("Unexpected '@': expected @primitive, @intrinsic or @expect")
        return K_ERROR, LexError(f"Unknown directive '{text}'", "directives are @primitive, @intrinsic and @expect")
    if g == "squote":
        return K_ERROR, LexError(*single_quoted(text))
    # other (a lone '$' is context dependent: not handled here)
    if text == "#":
        return K_ERROR, LexError(
            "Unexpected '#': expected a symbol (#foo, #at:put:, #+, #'text') "
            "or a literal opener #( #[ #{"
        )
    if ord(text) > 127:
        return K_ERROR, LexError(f"Unexpected character '{text}'", "identifiers, keywords and symbols are ASCII only")
    return K_ERROR, LexError(f"Unexpected character {text!r}")


class _Lexer:
    __slots__ = ("src", "n", "t", "nest")

    def __init__(self, src: str):
        self.src = src
        self.n = len(src)
        self.t = Tokens(src)
        self.nest = 0  # interpolated strings being lexed (nesting)

    def _emit(self, kind, value, start, end, nl):
        t = self.t
        t.kinds.append(kind)
        t.values.append(value)
        t.starts.append(start)
        t.ends.append(end)
        t.nls.append(nl)

    # -- main loop ---------------------------------------------------------
    def run(self, pos: int, end: int) -> None:
        """Tokenise src[pos:end], including trailing trivia."""
        restarts = 0
        while pos is not None:
            if restarts < _MAX_RESTARTS:
                pos = self._scan_fast(pos, end)
                restarts += 1
            else:
                pos = self._scan(pos, end)

    def _scan_fast(self, pos: int, end: int):
        """Fast path: ``findall`` gives the pieces (leading trivia + token
        text); the kind, value, lengths and NL-before flag of a piece come
        from a memo keyed by its text.  Returns None when the range is done,
        or a position to restart from.

        The arrays are grown once by the number of pieces and filled by
        index (cheaper than five appends per token).  A string with simple
        interpolations is one piece whose memo entry holds all its tokens
        (see _memo_string).  At the first piece the memo cannot answer
        alone the arrays are cut back and ``_scan_append`` goes on with the
        same pieces.  The last piece (trailing trivia, then the end of the
        range) is taken off before the loop."""
        t = self.t
        kinds_ = t.kinds
        values_ = t.values
        starts_ = t.starts
        ends_ = t.ends
        nls_ = t.nls
        memo = _PIECES
        pieces = _PIECE.findall(self.src, pos, end)
        last = pieces.pop()  # the trailing trivia (its token: the end)
        j = len(kinds_)
        pad = [None] * len(pieces)
        kinds_ += pad
        values_ += pad
        starts_ += pad
        ends_ += pad
        nls_ += pad
        it = iter(pieces)
        for piece in it:
            try:
                kinds_[j], values_[j], lt, n, nls_[j] = memo[piece]
            except KeyError:
                e = _STRINGS.get(piece)
                if e is None:
                    e = _piece_entry(piece)
                    if e[0] is None:  # the slow path: append from here on
                        for arr in (kinds_, values_, starts_, ends_, nls_):
                            del arr[j:]
                        return self._scan_append(pos, end, piece, e, it, last)
                if len(e) == 5:
                    kinds_[j], values_[j], lt, n, nls_[j] = e
                else:  # several tokens (a string with interpolations)
                    more = [None] * (len(e) // 5 - 1)
                    for arr in (kinds_, values_, starts_, ends_, nls_):
                        arr += more
                    for k in range(0, len(e) - 5, 5):
                        kinds_[j], values_[j], lt, n, nls_[j] = e[k : k + 5]
                        starts_[j] = pos + lt
                        pos += n
                        ends_[j] = pos
                        j += 1
                    kinds_[j], values_[j], lt, n, nls_[j] = e[-5:]
            starts_[j] = pos + lt
            pos += n
            ends_[j] = pos
            j += 1
        if end == self.n and "/*" in last:
            self._check_unterminated_comment(pos, pos + len(last))
        return None

    def _scan_append(self, pos: int, end: int, piece: str, e, it, last: str):
        """The rest of _scan_fast from ``piece`` (its memo entry ``e``), then
        the pieces left in ``it``, then ``last`` (the end of the range),
        appending to the arrays: lexes the tokens that need the slow path,
        and memoises the strings with simple interpolations."""
        t = self.t
        kinds_ = t.kinds
        values_ = t.values
        starts_ = t.starts
        ends_ = t.ends
        nls_ = t.nls
        memo = _PIECES
        while True:
            if e is None:
                e = memo.get(piece) or _STRINGS.get(piece) or _piece_entry(piece)
            if e[0] is None:  # context dependent, or the end of the range
                tok = e[1]
                ts = pos + e[2]
                if not tok:
                    if end == self.n and "/*" in piece:
                        self._check_unterminated_comment(pos, ts)
                    return None
                te = pos + e[3]
                first = len(kinds_)
                p = self._special(tok, ts, te, e[4], end)
                if p != te:
                    return p  # the regex disagreed: restart after it
                if tok[0] == '"' and len(tok) > 1 and self.nest == 0 and ends_[-1] == te and "/" not in piece[: e[2]]:
                    self._memo_string(piece, pos, first)
                pos = te
            elif len(e) == 5:
                kinds_.append(e[0])
                values_.append(e[1])
                starts_.append(pos + e[2])
                pos += e[3]
                ends_.append(pos)
                nls_.append(e[4])
            else:
                for k in range(0, len(e), 5):
                    kinds_.append(e[k])
                    values_.append(e[k + 1])
                    starts_.append(pos + e[k + 2])
                    pos += e[k + 3]
                    ends_.append(pos)
                    nls_.append(e[k + 4])
            e = None
            piece = next(it, last)
            if piece is last:
                last = None
            elif piece is None:  # pragma: no cover (``last`` always ends the range)
                return None

    def _memo_string(self, piece: str, pos: int, first: int) -> None:
        """Memoise the tokens of a whole string piece (from index ``first``,
        the piece starting at ``pos``) as one flat entry: five items per
        token, the offsets relative to the end of the previous token.  A
        complete string lexes the same wherever it stands (outside other
        strings, and if no error token ends before it: the caller checks;
        as in _piece_entry, not when its trivia has a comment)."""
        t = self.t
        flat = []
        prev = pos
        for k in range(first, len(t.kinds)):
            flat += (t.kinds[k], t.values[k], t.starts[k] - prev, t.ends[k] - prev, t.nls[k])
            prev = t.ends[k]
        if len(flat) == 5:
            _PIECES[piece] = tuple(flat)
        else:
            _STRINGS[piece] = tuple(flat)

    def _special(self, tok: str, ts: int, te: int, nl: bool, end: int) -> int:
        """Lex a token the fast path cannot (see _classify); returns the
        position after it."""
        if tok[0] == '"':
            return self._string(ts, nl, end)
        if tok == "#'":
            self._emit(K_ERROR, LexError("Unterminated quoted symbol: " + _short(self.src[ts:end]), None, True), ts, end, nl)
            return end
        # a lone '$' (at the end of the range, or before a final backslash)
        msg = LexError("Unexpected end of input after '$' (character literal)")
        if te < end and self.src[te] == "\\":
            self._emit(K_ERROR, msg, ts, te + 1, nl)
            return te + 1
        self._emit(K_ERROR, msg, ts, te, nl)
        return te

    def _scan(self, pos: int, end: int):
        """Tokenise from pos with one regex iterator.  Returns None when the
        range is done, or the position to restart from after a token that
        the regex cannot lex alone (interpolated/unterminated strings)."""
        src = self.src
        t = self.t
        kinds_ = t.kinds
        values_ = t.values
        starts_ = t.starts
        ends_ = t.ends
        nls_ = t.nls
        find = src.find
        for m in _MASTER.finditer(src, pos, end):
            g = m.lastgroup
            ms, ts = m.span(1)
            te = m.end()
            nl = ts != ms and find("\n", ms, ts) >= 0
            if g == "id":
                kinds_.append(K_IDENT)
                values_.append(src[ts:te])
            elif g == "colon":
                kinds_.append(K_KEYWORD)
                values_.append(src[ts:te])
            elif g == "punct":
                c = src[ts]
                kinds_.append(c)
                values_.append(c)
            elif g == "op":
                kinds_.append(K_BINOP)
                values_.append(src[ts:te])
            elif g == "num":
                text = src[ts:te]
                if "." in text or "e" in text or "E" in text:
                    kind, val = _float_token(text)
                else:
                    kind, val = _int_token(text)
                kinds_.append(kind)
                values_.append(val)
            elif g == "assign":
                kinds_.append(K_ASSIGN)
                values_.append(K_ASSIGN)
            elif g == "fat":
                kinds_.append(K_FATARROW)
                values_.append(K_FATARROW)
            elif g == "colon2":
                kinds_.append(K_COLON)
                values_.append(K_COLON)
            elif g == "str":
                val = src[ts + 1 : te - 1]
                if '"' in val:
                    val = val.replace('""', '"')
                kinds_.append(K_STRING)
                values_.append(val)
            elif g == "eof":
                if end == self.n and find("/*", ms, ts) >= 0:
                    self._check_unterminated_comment(ms, ts)
                return None
            elif g == "strx":
                return self._string(ts, nl, end)
            elif g == "qsymx" or (g == "other" and te - ts == 1 and src[ts] == "$"):
                p = self._special(src[ts:te], ts, te, nl, end)
                if p != te:
                    return p
                continue
            else:
                kind, val = _rare_text(g, src[ts:te])
                kinds_.append(kind)
                values_.append(val)
            starts_.append(ts)
            ends_.append(te)
            nls_.append(nl)
        # not reached: the eof alternative always matches at the end
        return None

    def _check_unterminated_comment(self, a: int, b: int) -> None:
        src = self.src
        i = a
        while i < b:
            c = src[i]
            if c == "/" and src.startswith("//", i):
                j = src.find("\n", i, b)
                i = b if j < 0 else j
            elif c == "/" and src.startswith("/*", i):
                j = src.find("*/", i + 2, b)
                if j < 0:
                    self.t.unterminated_comment = True
                    return
                i = j + 2
            else:
                i += 1

    # -- strings -----------------------------------------------------------
    def _string(self, pos: int, nl: bool, end: int) -> int:
        """Lex a string starting at src[pos] == '"' that contains an
        interpolation or is unterminated.  Returns the position after it."""
        if self.nest >= _MAX_STRING_NESTING:
            close = _find_string_end(self.src, pos + 1, end)
            if close < 0:
                return self._unterminated(pos, nl, end)
            self._emit(K_ERROR, LexError("Expression nesting is too deep"), pos, close, nl)
            return close
        self.nest += 1
        try:
            return self._string_body(pos, nl, end)
        finally:
            self.nest -= 1

    def _string_body(self, pos: int, nl: bool, end: int) -> int:
        src = self.src
        i = pos + 1
        buf: list = []
        seg_start = pos
        first = True
        run = _STR_RUN.match
        while True:
            if i >= end:
                return self._unterminated(pos, nl, end)
            c = src[i]
            if c == '"':
                if i + 1 < end and src[i + 1] == '"':
                    buf.append('"')
                    i += 2
                    continue
                self._emit(K_STRING if first else K_STR_END, "".join(buf), seg_start, i + 1, nl if first else False)
                return i + 1
            if c == "\\":
                if i + 1 >= end:
                    return self._unterminated(pos, nl, end)
                buf.append(src[i : i + 2])
                i += 2
                continue
            if c == "{":
                j = _find_interp_end(src, i + 1, end)
                if j < 0:
                    return self._unterminated(pos, nl, end)
                if src[i + 1 : j].strip(" \t\r\n") == "":
                    # empty interpolation: the whole string becomes one error
                    # token (its span: the braces)
                    close = _find_string_end(src, j + 1, end)
                    if close < 0:
                        return self._unterminated(pos, nl, end)
                    self._rollback(pos)
                    self._emit(K_ERROR, LexError(EMPTY_INTERPOLATION), i, j + 1, nl)
                    return close
                self._emit(K_STR_START if first else K_STR_SEG, "".join(buf), seg_start, i + 1, nl if first else False)
                first = False
                buf = []
                if _IDENT.fullmatch(src, i + 1, j):
                    # ``{name}``: one identifier token, as run() would lex it
                    self._emit(K_IDENT, src[i + 1 : j], i + 1, j, False)
                else:
                    self.run(i + 1, j)
                seg_start = j
                i = j + 1
                continue
            m = run(src, i, end)
            if m:
                buf.append(m.group())
                i = m.end()
            else:  # pragma: no cover
                buf.append(c)
                i += 1

    def _rollback(self, pos: int) -> None:
        """Drop the tokens emitted at or after ``pos`` (the start of a string
        that turned out to be bad)."""
        t = self.t
        k = len(t.starts)
        while k > 0 and t.starts[k - 1] >= pos:
            k -= 1
        if k < len(t.starts):
            for arr in (t.kinds, t.values, t.starts, t.ends, t.nls):
                del arr[k:]

    def _unterminated(self, pos: int, nl: bool, end: int) -> int:
        """Emit the error token for an unterminated string starting at pos.
        Tokens already emitted for the string's interpolations are removed."""
        self._rollback(pos)
        text = self.src[pos:end]
        # a `{` whose interpolation runs past the closing quote (`"{bad"`)
        hint = ("a `{` in a string starts an interpolation that runs to its matching `}`; "
                "write `\\{` for a brace (the backslash stays in the string)") if "{" in text else None
        first, newline, _ = text.partition("\n")
        shown = _short(first)
        if newline:
            # a string may span lines: it swallowed every line after its quote
            shown += "" if shown.endswith("…") else "…"
            n = text.rstrip("\n").count("\n")
            if n and hint is None:
                hint = (f"the string runs to the end of the input, over {n} more line{'s' if n != 1 else ''}: "
                        "a string may span lines, so everything after its opening quote is inside it; "
                        "close it with \" where it should end")
        self._emit(K_ERROR, LexError(f"Unterminated string: {shown}", hint, True), pos, end, nl)
        return end


def _rare_group(code: int, tok: str) -> str:
    """Map a fast-path token to the _MASTER group name used by _rare."""
    c = tok[0]
    if c == "#":
        if len(tok) == 1:
            return "other"
        d = tok[1]
        if d in "([{":
            return "hash"
        if d == "'":
            return "qsym" if len(tok) > 2 else "qsymx"
        if d.isalpha() or d == "_":
            return "sym"
        return "osym"
    if c == "$":
        return "char" if len(tok) > 1 else "other"
    if c == "@":
        return "at"
    if c == "'":
        return "squote"
    return "other"


def lex(source: str) -> Tokens:
    """Tokenise ``source`` into arrays (never raises; bad input becomes
    ``K_ERROR`` tokens).  The last token is ``K_EOF``."""
    if len(_MEMO) > _MEMO_LIMIT or len(_PIECES) > _MEMO_LIMIT or len(_SPECIAL) > _MEMO_LIMIT or len(_STRINGS) > _MEMO_LIMIT:
        _MEMO.clear()
        _PIECES.clear()
        _SPECIAL.clear()
        _STRINGS.clear()
    lx = _Lexer(source)
    n = len(source)
    lx.run(0, n)
    t = lx.t
    last_end = t.ends[-1] if t.ends else 0
    nl = last_end < n and source.find("\n", last_end, n) >= 0
    t.kinds.append(K_EOF)
    t.values.append(None)
    t.starts.append(n)
    t.ends.append(n)
    t.nls.append(nl)
    return t


def tokenize(source: str) -> list:
    """Tokenise ``source`` into a list of ``Token`` (the last one is EOF)."""
    t = lex(source)
    return [t.token(i) for i in range(len(t.kinds))]
