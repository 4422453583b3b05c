"""Offsets in a source text and LSP positions (line, UTF-16 code unit)."""

from __future__ import annotations

from bisect import bisect_right


class Lines:
    """Line starts of one text, for converting both ways."""

    def __init__(self, source: str):
        self.source = source
        self.starts = [0]
        for i, ch in enumerate(source):
            if ch == "\n":
                self.starts.append(i + 1)

    def position(self, offset: int) -> tuple[int, int]:
        """0-based (line, UTF-16 column) of a character offset."""
        offset = max(0, min(offset, len(self.source)))
        line = bisect_right(self.starts, offset) - 1
        head = self.source[self.starts[line]:offset]
        return line, _utf16_len(head)

    def offset(self, line: int, character: int) -> int:
        """The character offset of an LSP position (clamped to the text)."""
        if line >= len(self.starts):
            return len(self.source)
        start = self.starts[max(0, line)]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.source)
        units = 0
        for i in range(start, end):
            if units >= character:
                return i
            units += 2 if ord(self.source[i]) > 0xFFFF else 1
        return end


def _utf16_len(text: str) -> int:
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def word_at(source: str, offset: int) -> tuple[str, int, int] | None:
    """The identifier or keyword part (`at:`) under `offset`: (word, start, end)."""
    start = offset
    while start > 0 and _word_char(source[start - 1]):
        start -= 1
    end = offset
    while end < len(source) and _word_char(source[end]):
        end += 1
    if start == end or source[start].isdigit():
        return None
    if end < len(source) and source[end] == ":" and source[end + 1:end + 2] != "=":
        end += 1
    return source[start:end], start, end
