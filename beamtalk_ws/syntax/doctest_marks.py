"""The `// => expected` marks of doc-test files (spec/stdlib.md §11).

Here, below the compiler, because two layers need to know a doc-test file
when they see one: `beamtalk test` runs it as a REPL transcript
(`beamtalk_ws/doctest.py`), and `beamtalk check` checks it as one
(`compiler/check.py`) instead of as a class file.
"""

from __future__ import annotations

import re

from .lexer import K_ERROR, lex

_MARK = re.compile(r"//\s*=>")


def marker(line: str) -> tuple[str, str] | None:
    """(code, expected) when `line` carries a `// =>` comment (not inside a
    string, symbol or character literal), else None."""
    m = _MARK.search(line)
    if m is None:
        return None
    while m is not None:
        t = lex(line)
        inside = any(s <= m.start() < e for s, e, k in zip(t.starts, t.ends, t.kinds) if k != K_ERROR)
        if not inside:
            return line[: m.start()], line[m.end():].strip()
        m = _MARK.search(line, m.end())
    return None


def is_doctest(text: str) -> bool:
    """A file is a doc-test file when a line of its code carries a mark; the
    examples in a class's `///` documentation do not make it one."""
    return any(marker(line) is not None for line in text.split("\n")
               if "=>" in line and not line.lstrip().startswith("///"))
