"""Diagnostics: ``Diagnostic``, the ``SyntaxErrors`` exception and rendering as
``file:line:col: message`` + source line + caret underline."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Iterable, Optional

from .ast import Span


@dataclass(frozen=True)
class Diagnostic:
    message: str
    span: Span
    severity: str = "error"
    hint: Optional[str] = None

    def render(self, source: str, filename: str = "<input>") -> str:
        return render_diagnostic(self, source, filename)


def _line_bounds(source: str, offset: int):
    offset = max(0, min(offset, len(source)))
    a = source.rfind("\n", 0, offset) + 1
    b = source.find("\n", offset)
    if b < 0:
        b = len(source)
    return a, b


#: longer source lines are shown as a window of this many characters around the caret
_LONG_LINE = 150


def _columns(ch: str) -> int:
    """How many terminal columns a character takes: CJK and emoji two, a
    combining mark or a zero-width joiner none (so the caret stands under
    the error also after `"日本語"` or an accent written as a mark)."""
    if ch < "\u0300":
        return 1
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _blank(text: str) -> str:
    """Spaces as wide as `text` shows, its tabs kept."""
    return "".join(c if c == "\t" else " " * _columns(c) for c in text)


def render_diagnostic(d: Diagnostic, source: str, filename: str = "<input>") -> str:
    """``file:line:col: message``, the source line, a caret/underline under the
    span (clipped to the first line) and an optional ``hint:`` line."""
    sp = d.span
    prefix = "" if d.severity == "error" else d.severity + ": "
    out = [f"{filename}:{sp.line}:{sp.col}: {prefix}{d.message}"]
    if source is not None:
        a, b = _line_bounds(source, sp.start)
        line = source[a:b].rstrip("\r")
        if line.strip():
            start = sp.start
            end = min(max(sp.end, start + 1), b) if start < b else start + 1
            before, after = "", ""
            if len(line) > _LONG_LINE:
                # a minified or generated line: show a window around the caret
                lo = max(a, start - _LONG_LINE // 3)
                hi = min(a + len(line), lo + _LONG_LINE)
                before, after = ("…" if lo > a else ""), ("…" if hi < a + len(line) else "")
                line = source[lo:hi]
                end = min(end, hi)
                a = lo
            lead = " " * len(before) + _blank(source[a:start])
            width = max(1, sum(_columns(c) for c in source[start:end]))
            out.append("  " + before + line + after)
            out.append("  " + lead + "^" * width)
    if d.hint:
        out.append(f"  hint: {d.hint}")
    return "\n".join(out)


class SyntaxErrors(Exception):
    """Raised by ``parse``: carries every diagnostic of the source text."""

    def __init__(self, diagnostics: Iterable[Diagnostic], source: str = "", filename: str = "<input>"):
        self.diagnostics = list(diagnostics)
        self.source = source
        self.filename = filename
        first = self.diagnostics[0] if self.diagnostics else None
        super().__init__(
            f"{filename}:{first.span.line}:{first.span.col}: {first.message}" if first else "syntax error"
        )

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]

    def render(self) -> str:
        return "\n".join(render_diagnostic(d, self.source, self.filename) for d in self.diagnostics)

    def messages(self):
        return [d.message for d in self.diagnostics]
