"""Doc-test files for `beamtalk test` (spec/stdlib.md §11): code followed by
`// => expected`.

A doc-test file reads like a REPL transcript kept in source form:

    x := 3 + 4
    x * 2            // => 14
    #(3, 1, 2) asSortedList
    // => #(1, 2, 3)
    42 frobnicate    // => does not understand

Every line up to an expectation is one REPL input (classes may be defined
inline), evaluated in order in one session of the test workspace, so later
inputs see earlier bindings.  The expectation is compared with what the REPL
prints (spec/repl.md §6): the printString, or the display form (a String
without its quotes, a Symbol without `#`); a `_` standing alone matches
anything (`2 tests, 2 passed (_)`); for an input that fails, the expectation
must occur in the error text.  Consecutive `// =>` lines form one
multi-line expectation.  Input after the last expectation is evaluated too,
and only its failure counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from beamtalk_ws.syntax.doctest_marks import is_doctest, marker as _marker
from beamtalk_ws.workspace.client import TestOutcome

__all__ = ["DocCase", "cases", "is_doctest", "matches", "run_file"]


@dataclass
class DocCase:
    code: str
    expected: str | None    # None: evaluated for its effect only
    line: int               # of the (first) expectation, or of the last code line
    #: the file line the code starts on: its errors name lines of the file
    first: int = field(default=1, compare=False)


def cases(text: str) -> list[DocCase]:
    out: list[DocCase] = []
    chunk: list[str] = []
    first = 0
    last_code_line = 0
    previous_was_mark = False
    for n, line in enumerate(text.split("\n"), 1):
        found = _marker(line) if "=>" in line else None
        if found is None:
            if line.strip():
                first = first if chunk else n
                chunk.append(line)
                last_code_line = n
                previous_was_mark = False
            elif chunk:
                chunk.append(line)   # a blank line inside an input (a multi-line string)
            continue
        code, expected = found
        if code.strip():
            first = first if chunk else n
            chunk.append(code.rstrip())
            last_code_line = n
        elif previous_was_mark and not chunk and out:
            prev = out[-1]
            out[-1] = DocCase(prev.code, prev.expected + "\n" + expected, prev.line)
            continue
        source = "\n".join(chunk).strip("\n")
        if source.strip():
            out.append(DocCase(source, expected, n, first))
        chunk = []
        previous_was_mark = True
    if "\n".join(chunk).strip():
        out.append(DocCase("\n".join(chunk).strip("\n"), None, last_code_line, first))
    return out


def _pattern(expected: str) -> re.Pattern:
    parts = re.split(r"(?<![A-Za-z0-9_])_(?![A-Za-z0-9_])", expected)
    return re.compile(r"[\s\S]*?".join(re.escape(p) for p in parts) + r"\Z")


def _display(text: str) -> str:
    """The display form of a printString: a String unquoted, a Symbol without `#`."""
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        return text[1:-1].replace('""', '"')
    if text.startswith("#") and len(text) > 1 and text[1] not in "([{":
        body = text[1:]
        return body[1:-1].replace("''", "'") if body.startswith("'") and body.endswith("'") else body
    return text


#: the location a compile error starts with (`/path/doc.bt:6:3: `)
_LOCATION = re.compile(r"^\S.*?:\d+:\d+: ")


def matches(expected: str, ok: bool, text: str, code: str = "") -> bool:
    if ok:
        pat = _pattern(expected)
        return any(pat.match(candidate) for candidate in (text, _display(text)))
    # A compile error quotes the input with a caret under it: those lines are
    # not the error text, or `{1, 2} // => {1, 2}` would pass on a parse error.
    quoted = {line.strip() for line in code.split("\n") if line.strip()}
    # Nor is the `file:line:col: ` in front of a compile error: the file's path
    # is wherever the file lies (`// => 7` matched a path holding a 7).
    text = "\n".join(_LOCATION.sub("", line) for line in text.split("\n")
                     if line.strip() not in quoted and not (line.strip() and set(line.strip()) <= {"^"}))
    # nor is the `file:line:col: ` in front of a compile error: `1 + // => 2`
    # on line 2 passed on the 2 of `x.bt:2:3:`
    text = _LOCATION.sub("", text)
    parts = [p for p in re.split(r"(?<![A-Za-z0-9_])_(?![A-Za-z0-9_])", expected) if p]
    if not parts:
        return False
    # whole words at the ends: `// => 2` does not match the 12 of "Index 12"
    pattern = r"[\s\S]*?".join(re.escape(p) for p in parts)
    if re.match(r"\w", parts[0]) and expected[0] != "_":
        pattern = r"(?<!\w)" + pattern
    if re.search(r"\w$", parts[-1]) and expected[-1] != "_":
        pattern += r"(?!\w)"
    return re.search(pattern, text) is not None


#: `path:line:col: ` at the start of a line of a rendered compile error
_LOCATION = re.compile(r"^[^\n:]*:\d+:\d+: ", re.M)


async def run_file(repl, path: Path, on_output=None) -> list[TestOutcome]:
    """Evaluate the cases of one doc-test file in `repl`'s session (cleared first)."""
    text = path.read_text(encoding="utf-8")
    await repl.client.clear()
    results = []
    name = path.name
    for case in cases(text):
        # blank lines in front: the input's lines are the file's, in errors and stack frames
        outcome = await repl.evaluate("\n" * (case.first - 1) + case.code, on_output=on_output)
        test = f"line {case.line}"
        if case.expected is None:
            if not outcome.ok:
                results.append(TestOutcome(name, test, "error", outcome.text))
            continue
        if matches(case.expected, outcome.ok, outcome.text, case.code):
            results.append(TestOutcome(name, test, "pass"))
        else:
            got = outcome.text if outcome.ok else outcome.text.replace("\n", "\n  ")
            results.append(TestOutcome(name, test, "fail", f"{case.code.strip()}\nExpected {case.expected}, got {got}"))
    return results
