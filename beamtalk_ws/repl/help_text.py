"""How `:help` lays a doc comment out in a terminal (also the LSP hover's
and MCP `class_info`'s text): a class listing shows each method's first
sentence on one line that fits 80 columns, and a doc comment's fenced
examples show as indented code, not as Markdown fences."""

from __future__ import annotations

import re
import textwrap

WIDTH = 80

#: the end of a doc comment's first sentence: a full stop (or ; or :) then space
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def summary(doc: str, room: int) -> str:
    """The first sentence of `doc` in at most `room` characters: its first
    line alone used to be shown, cut mid-sentence ("the character the receiver")."""
    paragraph = doc.strip().split("\n\n")[0]
    text = " ".join(line.strip() for line in paragraph.splitlines())
    m = _SENTENCE_END.search(text)
    if m:
        text = text[:m.start()]
    if len(text) <= room:
        return text
    cut = text[:room - 1].rsplit(" ", 1)[0]
    if cut.count("`") % 2:      # never leave a `code span` open
        cut = cut[:cut.rindex("`")]
    return cut.rstrip(" ,;:(") + "…"


def method_line(selector: str, doc: str) -> str:
    head = f"  {selector} — "
    return head + summary(doc, max(20, WIDTH - len(head)))


def body(doc: str, indent: str = "") -> str:
    """A whole doc comment for the terminal: ```beamtalk fences dropped and
    the code between them indented two more spaces."""
    out, code = [], False
    for line in doc.strip().splitlines():
        if line.strip().startswith("```"):
            code = not code
            continue
        out.append(("  " + line) if code and line.strip() else line)
    return textwrap.indent("\n".join(out), indent) if indent else "\n".join(out)


def wrapped(words: list[str], sep: str = "  ", first: str = "  ", rest: str = "  ") -> list[str]:
    """`words` joined by `sep` in lines that fit; a word ("41 from Number")
    is never broken."""
    glued = [w.replace(" ", "\xa0") for w in words]
    lines = textwrap.wrap(sep.join(glued), width=WIDTH - 4, initial_indent=first,
                          subsequent_indent=rest, break_on_hyphens=False)
    return [line.replace("\xa0", " ") for line in lines]
