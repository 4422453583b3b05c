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
``lines[i]``, ``cols[i]``   1-based line and column of ``starts[i]``

The last token is always ``K_EOF`` (its ``nls`` tells whether the input ends
with a newline).  Trivia (whitespace and comments) is not materialised; the
leading trivia of token ``i`` is ``source[trivia_starts[i]:starts[i]]``, which
is where doc comments (``///``) are read from, lazily, by the parser.

Strings with interpolation are split into ``K_STR_START``, the tokens of each
embedded expression, ``K_STR_SEG`` (between two embedded expressions) and
``K_STR_END`` tokens (spec §2.3).
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional

from .ast import Span

# ----------------------------------------------------------------- kinds

K_IDENT = "ident"
K_KEYWORD = "keyword"
K_INT = "int"
K_FLOAT = "float"
K_STRING = "string"
K_STR_START = "string-start"
K_STR_SEG = "string-segment"
K_STR_END = "string-end"
K_SYMBOL = "symbol"
K_CHAR = "char"
K_BINOP = "binop"
K_ASSIGN = ":="
K_CARET = "^"
K_SEMI = ";"
K_PERIOD = "."
K_BANG = "!"
K_PIPE = "|"
K_COLON = ":"
K_FATARROW = "=>"
K_LPAREN = "("
K_RPAREN = ")"
K_LBRACKET = "["
K_RBRACKET = "]"
K_LBRACE = "{"
K_RBRACE = "}"
K_HASH_PAREN = "#("
K_HASH_BRACKET = "#["
K_HASH_BRACE = "#{"
K_PRIMITIVE = "@primitive"
K_INTRINSIC = "@intrinsic"
K_EXPECT = "@expect"
K_ERROR = "error"
K_EOF = "eof"

BINARY_CHARS = frozenset("+-*/<>=~%&?,\\")

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

EMPTY_INTERPOLATION = "empty interpolation {} is not allowed, use \\{ for literal brace"
SINGLE_QUOTED = "single-quoted strings are no longer supported, use double quotes"


class LexError(NamedTuple):
    """Value of a ``K_ERROR`` token."""

    message: str
    hint: Optional[str] = None
    #: True for an unterminated string / quoted symbol / block comment: the
    #: REPL treats such input as incomplete (spec §10).
    unterminated: bool = False


class Token(NamedTuple):
    """Public, convenient view of one token (see ``tokenize``)."""

    kind: str
    value: object
    span: Span
    nl_before: bool
    text: str


# ----------------------------------------------------------------- regexes

_TRIVIA = re.compile(r"(?:[ \t\r\n]+|//[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/)?)*")

_OPS = r"[+\-*/<>=~%&?,\\]"
_ID = r"[A-Za-z_][A-Za-z0-9_]*"

_MASTER = re.compile(
    r"""
    (?P<id>[A-Za-z_][A-Za-z0-9_]*)(?P<colon>:(?!=))?
  | (?P<radix>\d+r[A-Za-z0-9]+)
  | (?P<num>-?\d+(?P<frac>\.\d+)?(?P<exp>[eE][+-]?\d*)?)
  | (?P<str>"(?:[^"\\{]|""|\\[\s\S])*+")
  | (?P<strx>")
  | (?P<assign>:=)
  | (?P<fat>=>)
  | (?P<op>=:=|=/=|""" + _OPS + r"""+)
  | (?P<punct>[()\[\]{}^;.!|:])
  | (?P<hash>\#[(\[{])
  | (?P<sym>\#(?:(?:""" + _ID + r""":(?!=))+(?:""" + _ID + r""")?|""" + _ID + r"""))
  | (?P<osym>\#(?:=:=|""" + _OPS + r"""+))
  | (?P<qsym>\#'(?:[^']|'')*+')
  | (?P<qsymx>\#')
  | (?P<char>\$(?:\\[\s\S]|[^\\]))
  | (?P<at>@(?:[A-Za-z_][A-Za-z0-9_]*)?)
  | (?P<squote>'(?:[^'\n]|'')*'?)
  | (?P<other>[\s\S])
    """,
    re.VERBOSE | re.ASCII,
)

_CHAR_ESCAPES = {"n": 10, "t": 9, "r": 13, "\\": 92, "'": 39}

_STR_RUN = re.compile(r'[^"\\{]+')


class Tokens:
    """The token arrays of one source text (see module docstring)."""

    __slots__ = (
        "source",
        "kinds",
        "values",
        "starts",
        "ends",
        "nls",
        "lines",
        "cols",
        "trivia_starts",
        "unterminated_comment",
    )

    def __init__(self, source: str):
        self.source = source
        self.kinds: list = []
        self.values: list = []
        self.starts: list = []
        self.ends: list = []
        self.nls: list = []
        self.lines: list = []
        self.cols: list = []
        self.trivia_starts: list = []
        self.unterminated_comment = False

    def __len__(self):
        return len(self.kinds)

    def text(self, i: int) -> str:
        return self.source[self.starts[i] : self.ends[i]]

    def span(self, i: int) -> Span:
        return Span(self.starts[i], self.ends[i], self.lines[i], self.cols[i])

    def token(self, i: int) -> Token:
        return Token(self.kinds[i], self.values[i], self.span(i), self.nls[i], self.text(i))


class _Lexer:
    __slots__ = ("src", "n", "t", "line", "line_start")

    def __init__(self, src: str):
        self.src = src
        self.n = len(src)
        self.t = Tokens(src)
        self.line = 1
        self.line_start = 0

    # -- helpers ---------------------------------------------------------
    def _advance_lines(self, a: int, b: int) -> None:
        """Account for newlines in src[a:b]."""
        src = self.src
        k = src.rfind("\n", a, b)
        if k >= 0:
            self.line += src.count("\n", a, b)
            self.line_start = k + 1

    def _emit(self, kind, value, start, end, nl, tstart):
        t = self.t
        t.kinds.append(kind)
        t.values.append(value)
        t.starts.append(start)
        t.ends.append(end)
        t.nls.append(nl)
        t.lines.append(self.line)
        t.cols.append(start - self.line_start + 1)
        t.trivia_starts.append(tstart)

    # -- main loop ---------------------------------------------------------
    def run(self, pos: int, end: int) -> int:
        """Tokenise src[pos:end]; return the position reached (== end)."""
        src = self.src
        trivia = _TRIVIA.match
        master = _MASTER.match
        t = self.t
        kinds = t.kinds
        values = t.values
        starts = t.starts
        ends = t.ends
        nls = t.nls
        lines = t.lines
        cols = t.cols
        tstarts = t.trivia_starts
        find = src.find
        while True:
            tstart = pos
            m = trivia(src, pos, end)
            p = m.end()
            nl = False
            if p != pos:
                if find("\n", pos, p) >= 0:
                    nl = True
                    self._advance_lines(pos, p)
                if p == end and end == self.n:
                    self._check_unterminated_comment(pos, p)
                pos = p
            if pos >= end:
                return pos
            m = master(src, pos, end)
            g = m.lastgroup
            mend = m.end()
            if g == "colon" or g == "id":
                if m.group("colon") is not None:
                    kind = K_KEYWORD
                    val = m.group()
                else:
                    kind = K_IDENT
                    val = m.group("id")
            elif g == "punct":
                kind = val = m.group()
            elif g == "num" or g == "frac" or g == "exp":
                text = m.group()
                if m.group("frac") is None and m.group("exp") is None:
                    kind, val = _int_token(text)
                else:
                    kind, val = _float_token(text)
            elif g == "op":
                kind = K_BINOP
                val = m.group()
            elif g == "assign":
                kind = val = K_ASSIGN
            elif g == "fat":
                kind = val = K_FATARROW
            elif g == "str":
                text = m.group()
                kind = K_STRING
                val = text[1:-1]
                if '"' in val:
                    val = val.replace('""', '"')
                if "\n" in text:
                    # emit first (line/col of the start), then move lines
                    kinds.append(kind)
                    values.append(val)
                    starts.append(pos)
                    ends.append(mend)
                    nls.append(nl)
                    lines.append(self.line)
                    cols.append(pos - self.line_start + 1)
                    tstarts.append(tstart)
                    self._advance_lines(pos, mend)
                    pos = mend
                    continue
            elif g == "strx":
                pos = self._string(pos, nl, tstart, end)
                continue
            elif g == "sym":
                kind = K_SYMBOL
                val = m.group()[1:]
            elif g == "hash":
                kind = val = m.group()
            elif g == "char":
                kind = K_CHAR
                text = m.group()
                if text[1] == "\\":
                    c = text[2]
                    val = _CHAR_ESCAPES.get(c, ord(c))
                else:
                    val = ord(text[1])
                if "\n" in text:
                    self._emit(kind, val, pos, mend, nl, tstart)
                    self._advance_lines(pos, mend)
                    pos = mend
                    continue
            elif g == "radix":
                kind, val = _radix_token(m.group())
            elif g == "osym":
                kind = K_SYMBOL
                val = m.group()[1:]
            elif g == "qsym":
                kind = K_SYMBOL
                val = m.group()[2:-1].replace("''", "'")
                if "\n" in val:
                    self._emit(kind, val, pos, mend, nl, tstart)
                    self._advance_lines(pos, mend)
                    pos = mend
                    continue
            elif g == "qsymx":
                mend = end
                kind = K_ERROR
                val = LexError("Unterminated quoted symbol: " + src[pos:mend], None, True)
                self._emit(kind, val, pos, mend, nl, tstart)
                self._advance_lines(pos, mend)
                pos = mend
                continue
            elif g == "at":
                text = m.group()
                if text == "@primitive" or text == "@intrinsic" or text == "@expect":
                    kind = val = text
                else:
                    kind = K_ERROR
                    if text == "@":
                        val = LexError(
                            "Unexpected '@': expected @primitive, @intrinsic or @expect"
                        )
                    else:
                        val = LexError(
                            f"Unknown directive '{text}'",
                            "directives are @primitive, @intrinsic and @expect",
                        )
            elif g == "squote":
                kind = K_ERROR
                val = LexError(SINGLE_QUOTED)
            elif g == "char" or g == "other":
                text = m.group()
                kind = K_ERROR
                if text == "#":
                    val = LexError(
                        "Unexpected '#': expected a symbol (#foo, #at:put:, #+, #'text') "
                        "or a literal opener #( #[ #{"
                    )
                elif text == "$":
                    if mend < end and src[mend] == "\\":
                        mend += 1
                    val = LexError("Unexpected end of input after '$' (character literal)")
                elif ord(text) > 127:
                    val = LexError(
                        f"Unexpected character '{text}'",
                        "identifiers, keywords and symbols are ASCII only",
                    )
                else:
                    val = LexError(f"Unexpected character {text!r}")
            else:  # pragma: no cover - every alternative is handled above
                raise AssertionError(g)
            kinds.append(kind)
            values.append(val)
            starts.append(pos)
            ends.append(mend)
            nls.append(nl)
            lines.append(self.line)
            cols.append(pos - self.line_start + 1)
            tstarts.append(tstart)
            pos = mend

    def _check_unterminated_comment(self, a: int, b: int) -> None:
        src = self.src
        k = src.rfind("/*", a, b)
        if k < 0:
            return
        # re-scan the trivia to see whether the last block comment is open
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
    def _string(self, pos: int, nl: bool, tstart: int, end: int) -> int:
        """Lex a string starting at src[pos] == '"' that contains an
        interpolation or is unterminated.  Returns the new position."""
        src = self.src
        i = pos + 1
        buf: list = []
        seg_start = pos
        first = True
        run = _STR_RUN.match
        while True:
            if i >= end:
                return self._unterminated(pos, nl, tstart, end)
            c = src[i]
            if c == '"':
                if i + 1 < end and src[i + 1] == '"':
                    buf.append('"')
                    i += 2
                    continue
                # closing quote
                kind = K_STRING if first else K_STR_END
                self._emit(kind, "".join(buf), seg_start, i + 1, nl if first else False, tstart if first else seg_start)
                self._advance_lines(seg_start, i + 1)
                return i + 1
            if c == "\\":
                if i + 1 >= end:
                    return self._unterminated(pos, nl, tstart, end)
                buf.append(src[i : i + 2])
                i += 2
                continue
            if c == "{":
                j = _find_interp_end(src, i + 1, end)
                if j < 0:
                    return self._unterminated(pos, nl, tstart, end)
                if src[i + 1 : j].strip(" \t\r\n") == "":
                    # empty interpolation: the whole string becomes one error
                    # token (span: the braces)
                    close = _find_string_end(src, j + 1, end)
                    if close < 0:
                        return self._unterminated(pos, nl, tstart, end)
                    self._rollback(pos)
                    self._advance_lines(pos, i)
                    self._emit(K_ERROR, LexError(EMPTY_INTERPOLATION), i, j + 1, nl, tstart)
                    self._advance_lines(i, close)
                    return close
                kind = K_STR_START if first else K_STR_SEG
                self._emit(kind, "".join(buf), seg_start, i + 1, nl if first else False, tstart if first else seg_start)
                self._advance_lines(seg_start, i + 1)
                first = False
                buf = []
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
        that turned out to be bad) and restore the line bookkeeping."""
        t = self.t
        k = len(t.starts)
        while k > 0 and t.starts[k - 1] >= pos:
            k -= 1
        if k < len(t.starts):
            self.line = t.lines[k]
            self.line_start = t.starts[k] - t.cols[k] + 1
            for arr in (t.kinds, t.values, t.starts, t.ends, t.nls, t.lines, t.cols, t.trivia_starts):
                del arr[k:]

    def _unterminated(self, pos: int, nl: bool, tstart: int, end: int) -> int:
        """Emit the error token for an unterminated string starting at pos.
        Tokens already emitted for the string's interpolations are removed."""
        self._rollback(pos)
        text = self.src[pos:end]
        shown = text if len(text) <= 40 else text[:40] + "…"
        self._emit(
            K_ERROR,
            LexError(f"Unterminated string: {shown}", None, True),
            pos,
            end,
            nl,
            tstart,
        )
        self._advance_lines(pos, end)
        return end


def _find_string_end(src: str, i: int, end: int) -> int:
    """Position just after the closing quote of a string whose body starts at
    i (nested interpolations skipped); -1 if unterminated."""
    while i < end:
        c = src[i]
        if c == '"':
            if i + 1 < end and src[i + 1] == '"':
                i += 2
                continue
            return i + 1
        if c == "\\":
            i += 2
            continue
        if c == "{":
            j = _find_interp_end(src, i + 1, end)
            if j < 0:
                return -1
            i = j + 1
            continue
        i += 1
    return -1


def _find_interp_end(src: str, i: int, end: int) -> int:
    """Index of the '}' closing an interpolation whose text starts at i, or -1.
    Nested {} are counted; strings, character literals and comments are
    skipped (spec §2.3)."""
    depth = 1
    while i < end:
        c = src[i]
        if c == "}":
            depth -= 1
            if depth == 0:
                return i
            i += 1
        elif c == "{":
            depth += 1
            i += 1
        elif c == '"':
            i += 1
            while i < end:
                d = src[i]
                if d == '"':
                    if i + 1 < end and src[i + 1] == '"':
                        i += 2
                        continue
                    break
                if d == "\\":
                    i += 2
                    continue
                i += 1
            else:
                return -1
            i += 1
        elif c == "$":
            if i + 1 < end and src[i + 1] == "\\":
                i += 3
            else:
                i += 2
        elif c == "/" and i + 1 < end and src[i + 1] == "/":
            j = src.find("\n", i, end)
            if j < 0:
                return -1
            i = j
        elif c == "/" and i + 1 < end and src[i + 1] == "*":
            j = src.find("*/", i + 2, end)
            if j < 0:
                return -1
            i = j + 2
        else:
            i += 1
    return -1


def _int_token(text: str):
    if len(text) > 21:
        return K_ERROR, LexError(f"Invalid integer: {_short(text)}", "integer literals must fit in a signed 64-bit integer")
    v = int(text)
    if v < INT64_MIN or v > INT64_MAX:
        return K_ERROR, LexError(f"Invalid integer: {text}", "integer literals must fit in a signed 64-bit integer")
    return K_INT, v


def _radix_token(text: str):
    r = text.index("r")
    base_text, digits = text[:r], text[r + 1 :]
    base = int(base_text) if len(base_text) < 4 else 0
    if not 2 <= base <= 36:
        return K_ERROR, LexError(f"Invalid integer: {_short(text)}", f"radix must be between 2 and 36, not {base_text}")
    if len(digits) > 64:
        return K_ERROR, LexError(f"Invalid integer: {_short(text)}", "integer literals must fit in a signed 64-bit integer")
    try:
        v = int(digits, base)
    except ValueError:
        bad = next(c for c in digits if not _digit_ok(c, base))
        return K_ERROR, LexError(f"Invalid integer: {text}", f"'{bad}' is not a digit in base {base}")
    if v > INT64_MAX:
        return K_ERROR, LexError(f"Invalid integer: {text}", "integer literals must fit in a signed 64-bit integer")
    return K_INT, v


def _digit_ok(c: str, base: int) -> bool:
    try:
        return int(c, 36) < base
    except ValueError:
        return False


def _float_token(text: str):
    try:
        v = float(text)
    except ValueError:
        return K_ERROR, LexError(f"Invalid float: {text}", "an exponent needs digits, e.g. 2.5e-3")
    if v == float("inf") or v == float("-inf"):
        return K_ERROR, LexError(f"Invalid float: {_short(text)}", "float literal out of range")
    return K_FLOAT, v


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "…"


def lex(source: str) -> Tokens:
    """Tokenise ``source`` into arrays (never raises; bad input becomes
    ``K_ERROR`` tokens)."""
    lx = _Lexer(source)
    lx.run(0, len(source))
    t = lx.t
    n = len(source)
    # EOF token: NL-before if the trailing trivia holds a newline
    last_end = t.ends[-1] if t.ends else 0
    tstart = last_end
    # trailing trivia starts after the last token (strings may end later)
    nl = source.find("\n", tstart, n) >= 0 if tstart < n else False
    t.kinds.append(K_EOF)
    t.values.append(None)
    t.starts.append(n)
    t.ends.append(n)
    t.nls.append(nl)
    t.lines.append(lx.line)
    t.cols.append(n - lx.line_start + 1)
    t.trivia_starts.append(tstart)
    return t


def tokenize(source: str) -> list:
    """Tokenise ``source`` into a list of ``Token`` (the last one is EOF)."""
    t = lex(source)
    return [t.token(i) for i in range(len(t.kinds))]
