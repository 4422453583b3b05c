"""Reads the class and selector inventory out of spec/stdlib.md.

The spec is prose, not a table, so this reader follows the conventions the
spec states in its legend: a paragraph, bullet or sentence that starts with a
class name (optionally `**[core]**` and a parenthesis) and a colon, or a
`### Class` heading, opens that class's list; every backticked selector
pattern after it belongs to that class, on the class side when written
`C `sel`` or `Class sel`.  What is not a selector pattern (example values,
results after `→`, remarks in parentheses, error kinds) is skipped, and so are
the sentences that say a selector does *not* exist.  A few spans name
something that is no selector of that class although they look like one;
they are listed in `NOT_SELECTORS` with the reason.

`extract(text)` answers sorted `(class, side, selector)` rows; side is
`instance` or `class`.  `python tests/spec_selectors.py SPEC OUT` rewrites the
committed copy that the test falls back on where the spec is absent.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPY = ROOT / "tests" / "data" / "stdlib_spec_selectors.tsv"


def spec_candidates() -> list[Path]:
    """The live spec: `../shared/spec` beside the repository (CI), or the
    shared folder beside the work trees (a developer's worktree)."""
    return [ROOT.parent / "shared" / "spec" / "stdlib.md",
            ROOT.parent.parent / "shared" / "spec" / "stdlib.md"]


BIN = re.escape("+-*/<>=~%&?,\\|@:") + "−"
BIN_RE = re.compile(rf"^[{BIN}]+$")
IDENT = r"[a-z][A-Za-z0-9]*"
KEYWORD_RE = re.compile(rf"({IDENT}):")
NOT_IDENT_ARGS = {"true", "false", "nil", "self", "ok"}

# Spans that look like selectors of the class being read but are not.
NOT_SELECTORS = {
    # "Erlang someModule" is the example of a module name, answered by DNU.
    ("Erlang", "class", "someModule"),
    # "Erlang / ErlangModule: ... proxy also answers `class`, ...": the proxy
    # is an ErlangModule; `Erlang` itself is a class like any other.
    ("Erlang", "instance", "call:args:"), ("Erlang", "instance", "class"),
    ("Erlang", "instance", "methods"), ("Erlang", "instance", "printString"),
    # "every collection also answers `stream`": a sentence about the other classes.
    ("Stream", "instance", "stream"),
    # The proxy keyword send is described with a placeholder keyword.
    ("Port", "instance", "isAlive"),
    ("Reference", "instance", "isAlive"),
    # "The `beamtalk test` runner" names the command line tool.
    ("TestResult", "instance", "beamtalk"),
    ("TestResult", "instance", "test"),
    # "`TestCase subclass: FooTest`" shows how a test class is declared;
    # "`    message`" is a line of the report `runAll` answers.
    ("TestCase", "class", "subclass:"),
    ("TestCase", "instance", "message"),
    # "strict `=:=`" describes assert:equals:; "every selector starting with
    # `test`" describes test discovery.
    ("TestCase", "instance", "=:="), ("TestCase", "instance", "test"),
}

# The spec lists these on the instance side of the class whose *instances*
# they make (Object's `new`, Actor's `spawn`), but they are sent to a class:
# the test asks the class side for them.
SENT_TO_CLASSES = {("Object", "new"), ("Object", "new:"), ("Actor", "new"), ("Actor", "new:"),
                   ("Actor", "spawn"), ("Actor", "spawnWith:"), ("Exception", "new")}

# Words that open a class's list but are not class names.
LEADS_NOT_CLASSES = {"C", "Subclasses", "Legend"}


def _class_names(text: str) -> list[str]:
    """Class names from the §0 table (first column), in the spec's order."""
    names: list[str] = []
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("| class") or line.startswith("|---"):
            continue
        first = line.split("|")[1]
        for n in re.findall(r"\b([A-Z][A-Za-z]+)\b", first):
            if n not in names:
                names.append(n)
    return names


def _strip_negatives(text: str) -> str:
    """Removes the sentences that name selectors which do not exist."""
    text = re.sub(r"\(No [^)]*\)", "", text)
    text = re.sub(r"\([^()]*does not exist\.?\)", "", text)
    text = re.sub(r"There is no [^.]*\.[^.]*?\.", ".", text)
    return text


def _normalise(span: str) -> str:
    """Drops block, string and character literals from a span."""
    span = re.sub(r"\[[^\]]*\]", "ARG", span)
    span = re.sub(r'"[^"]*"', "ARG", span)
    span = re.sub(r"'[^']*'", "ARG", span)
    return span.strip()


def _selectors(span: str) -> list[str]:
    """The selectors a span spells, or [] when it is no selector pattern."""
    span = _normalise(span)
    if not span or span[0] in "#$({0123456789":
        return []
    toks = span.split()
    if all(BIN_RE.match(t) for t in toks):
        return [t.replace("−", "-") for t in toks]
    if all(re.fullmatch(IDENT, t) for t in toks):
        if len(toks) > 1 and not all(len(t) > 1 for t in toks):
            return []
        return [t for t in toks if t not in NOT_IDENT_ARGS]
    if BIN_RE.match(toks[0]) and len(toks) == 2 and re.fullmatch(r"[A-Za-z]\w*", toks[1]):
        return [toks[0]]
    if not KEYWORD_RE.match(toks[0]) and all(re.fullmatch(rf"{IDENT}:?", t) for t in toks):
        return toks
    if KEYWORD_RE.match(toks[0]):
        keywords: list[str] = []
        for t in toks:
            parts = re.findall(rf"{IDENT}:", t)
            if parts and "".join(parts) == t:
                keywords.extend(parts)
            elif re.fullmatch(r"[A-Za-z#][\w:]*|ARG|\d+", t):
                continue
            else:
                return []
        return ["".join(keywords)] if keywords else []
    return []


def _iter_spans(line: str):
    """(prefix, span, in_parens, after_arrow) for each backticked span of a line."""
    depth = 0
    pos = 0
    for m in re.finditer(r"`([^`]*)`", line):
        before = line[pos:m.start()]
        for ch in before:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
        prefix = line[:m.start()]
        yield prefix, m.group(1), depth > 0, prefix.rstrip().endswith("→")
        pos = m.end()


def extract(text: str) -> list[tuple[str, str, str]]:
    classes = _class_names(text)
    lead_re = re.compile(
        r"(?:^|(?<=\. )|(?<=^\* ))((?:[A-Z][A-Za-z]+)(?: / [A-Z][A-Za-z]+)*)"
        r"(?: \*\*\[core\]\*\*)?(?: \([^)]*\))?:(?= |$)")
    body = text.split("## 1.", 1)[1].split("## 12.", 1)[0]
    body = _strip_negatives(body)
    rows: set[tuple[str, str, str]] = set()
    current: list[str] = []
    class_side = False
    for raw in _logical_lines(body):
        line = raw.strip()
        head = re.match(r"^#{2,3} (?:\d+\. )?([A-Z][A-Za-z]+)\b(?: \(([A-Z][A-Za-z]+)\))?", line)
        if head and head.group(1) in classes:
            current, class_side = [head.group(1)], False
            continue
        if head and head.group(2) in classes:
            current, class_side = [head.group(2)], False
            continue
        if line.startswith("#"):
            current = []
            continue
        # A class lead may stand at the start of the line or of a sentence.
        cut = 0
        for m in lead_re.finditer(line.lstrip("* ").strip()):
            names = [n.strip() for n in m.group(1).split("/")]
            if all(n in classes for n in names) and not (set(names) & LEADS_NOT_CLASSES):
                offset = len(line) - len(line.lstrip("* ").strip())
                _collect(line[cut:offset + m.start()], current, class_side, rows)
                current = names
                class_side = "class side" in m.group(0)
                cut = offset + m.end()
        _collect(line[cut:], current, class_side, rows)
    out = set()
    for cls, side, sel in rows:
        if (cls, side, sel) in NOT_SELECTORS:
            continue
        if side == "instance" and (cls, sel) in SENT_TO_CLASSES:
            side = "class"
        out.add((cls, side, sel))
    return sorted(out)


def _logical_lines(body: str) -> list[str]:
    """Joins a paragraph's or a bullet's wrapped lines into one line."""
    out: list[str] = []
    for raw in body.splitlines():
        line = raw.strip()
        starts = not line or raw.startswith(("* ", "#", "|")) or not out or not out[-1]
        if starts or out[-1].startswith("#"):
            out.append(line)
        else:
            out[-1] += " " + line
    return out


def _collect(line: str, current: list[str], class_side: bool, rows: set) -> None:
    if not current:
        return
    last_side = "instance"
    for prefix, span, in_parens, after_arrow in _iter_spans(line):
        if in_parens or after_arrow:
            continue
        if class_side or re.search(r"(?:^|[\s;,(])C\s*$", prefix):
            side = "class"
        elif re.search(r"`\s*/\s*$", prefix):
            side = last_side
        else:
            side = "instance"
        last_side = side
        first = span.split()[0] if span.split() else ""
        if first[:1].isupper():
            if first not in current or len(span.split()) < 2:
                continue
            for sel in _selectors(span[len(first):]):
                rows.add((first, "class", sel))
            continue
        for sel in _selectors(span):
            for cls in current:
                rows.add((cls, side, sel))


def load_rows() -> tuple[list[tuple[str, str, str]], str]:
    """The rows of the live spec when it is there, else of the committed copy."""
    for path in spec_candidates():
        if path.is_file():
            return extract(path.read_text(encoding="utf-8")), str(path)
    rows = [tuple(line.split("\t")) for line in COPY.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    return rows, str(COPY)


def write_copy(rows, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# class\tside\tselector — extracted from spec/stdlib.md by tests/spec_selectors.py"]
    lines += ["\t".join(r) for r in rows]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    spec = Path(sys.argv[1]) if len(sys.argv) > 1 else spec_candidates()[-1]
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else COPY
    write_copy(extract(spec.read_text(encoding="utf-8")), out)
