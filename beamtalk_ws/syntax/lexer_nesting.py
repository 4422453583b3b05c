"""Where an interpolated string or an interpolation ends, found without
lexing (spec §2.3): the lexer needs the end before it lexes the embedded
code, and an error token for a bad string must cover the whole string.

Kept apart from ``lexer`` because it is a character-level scan of its own
(the lexer proper works on regex pieces)."""

from __future__ import annotations

import re

#: interpolation text in which the first '}' closes the interpolation
_INTERP_PLAIN = re.compile(r'[^{"$/]*')


def _scan_nested(src: str, i: int, end: int, stack: list) -> int:
    """Scan string/interpolation nesting without lexing (iteratively).

    ``stack`` holds -1 for "inside a string literal" and n >= 1 for "inside
    interpolation code with n unclosed braces".  Returns the index at which
    the stack becomes empty (the closing ``"`` or ``}``), or -1 at the end of
    the range.  Inside interpolation code nested strings (themselves possibly
    interpolated), ``$x``/``$\\x`` characters and comments are skipped
    (spec §2.3)."""
    while i < end:
        top = stack[-1]
        c = src[i]
        if top < 0:  # inside a string literal
            if c == '"':
                if i + 1 < end and src[i + 1] == '"':
                    i += 2
                    continue
                stack.pop()
                if not stack:
                    return i
            elif c == "\\":
                i += 1
            elif c == "{":
                stack.append(1)
            i += 1
            continue
        if c == "}":
            if top == 1:
                stack.pop()
                if not stack:
                    return i
            else:
                stack[-1] = top - 1
            i += 1
        elif c == "{":
            stack[-1] = top + 1
            i += 1
        elif c == '"':
            stack.append(-1)
            i += 1
        elif c == "$":
            i += 3 if i + 1 < end and src[i + 1] == "\\" else 2
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


def find_string_end(src: str, i: int, end: int) -> int:
    """Position just after the closing quote of a string whose body starts at
    i (nested interpolations skipped); -1 if unterminated."""
    j = _scan_nested(src, i, end, [-1])
    return j + 1 if j >= 0 else -1


def find_interp_end(src: str, i: int, end: int) -> int:
    """Index of the '}' closing an interpolation whose text starts at i, or -1.
    Nested {} are counted; strings, character literals and comments are
    skipped (spec §2.3)."""
    j = src.find("}", i, end)
    if j >= 0 and _INTERP_PLAIN.fullmatch(src, i, j):
        return j  # the common case: nothing to skip before the first '}'
    return _scan_nested(src, i, end, [1])
