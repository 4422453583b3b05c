"""Token kinds (the ``K_*`` strings of ``Tokens.kinds``), the value of an
error token (``LexError``), the public ``Token`` view, and the values of
number tokens (64-bit range and radix checks, with their messages).

Kept apart from ``lexer`` (which re-exports every name) so that the lexer
proper is about scanning: this is what a token *is*.
"""

from __future__ import annotations

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
