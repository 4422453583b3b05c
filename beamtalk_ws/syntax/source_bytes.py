"""Source files as bytes on disk to source text (spec syntax §1: source is UTF-8).

Every reader of `.bt` files (`beamtalk check`, `--emit forms`, `:load`,
`beamtalk build`, `beamtalk test`) goes through `decode_source`, so a file
that is not UTF-8 gets one located error everywhere instead of a crash in
one command, "no errors" in another (a bad byte inside a string literal
decoded to U+FFFD and passed) and an unlocated line in a third.

A UTF-8 byte order mark at the start of a file (some Windows editors write
one) is an encoding mark, not a character of the program: it is dropped.
"""

from __future__ import annotations

from .ast import Span
from .diagnostics import Diagnostic, SyntaxErrors

BOM = "\ufeff"


def decode_source(data: bytes, filename: str) -> str:
    """The text of a source file; raises SyntaxErrors located at the first
    byte that is not UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise not_utf8(data, e, filename) from None
    return text[1:] if text.startswith(BOM) else text


def not_utf8(data: bytes, e: UnicodeDecodeError, filename: str) -> SyntaxErrors:
    before = data[:e.start].decode("utf-8")        # valid up to the bad byte
    shown = data.decode("utf-8", errors="replace")  # the line, with U+FFFD for the bad bytes
    return _located(before, shown, filename,
                    f"the file is not UTF-8 text: byte 0x{data[e.start]:02x} cannot start or continue "
                    "a UTF-8 character", "Beamtalk source is UTF-8: save the file with UTF-8 encoding")


def _located(before: str, shown: str, filename: str, message: str, hint: str) -> SyntaxErrors:
    """The error at the character after `before` (the text up to the bad byte)."""
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1
    diag = Diagnostic(message, Span(len(before), len(before) + 1, line, col), hint=hint)
    return SyntaxErrors([diag], shown, filename)


def check_input_text(text: str, filename: str) -> None:
    """Raise a located SyntaxErrors when typed or piped text holds bytes that
    were not UTF-8: Python reads such a byte from stdin as a lone surrogate
    (surrogateescape), which the node cannot take (a bare `badarg`)."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        ch = ord(text[e.start])
        what = (f"byte 0x{ch - 0xDC00:02x} cannot start or continue a UTF-8 character"
                if 0xDC80 <= ch <= 0xDCFF else f"U+{ch:04X} is a lone surrogate, not a character")
        shown = text.encode("utf-8", "surrogateescape" if 0xDC80 <= ch <= 0xDCFF else "replace")
        raise _located(text[:e.start], shown.decode("utf-8", "replace"), filename,
                       f"the input is not UTF-8 text: {what}",
                       "Beamtalk text is UTF-8: set the terminal or the file piped in to UTF-8") from None
