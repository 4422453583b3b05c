"""What a name stands for at the cursor of a file, read from the text alone:
`self` (an instance of the enclosing class, or the class itself in a
`class` method) and locals assigned `Foo new` / `Foo spawn` / `Foo new: …`
earlier in the same method.

A file has no session, so the completion engine knows no bindings; these
names are handed to it as bindings whose receivers are known, which lets
`self ` and `c := Cart new. c ` complete the class's selectors.  The text is
read line by line rather than parsed because the document is usually
half-typed (`size => self `) when completion is asked for.
"""

from __future__ import annotations

import re

_CLASS_DEF = re.compile(r"^(?:(?:abstract|sealed|typed)\s+)*[A-Za-z_]\w*\s+subclass:\s*([A-Z]\w*)")
_STANDALONE = re.compile(r"^([A-Z]\w*)(\s+class)?\s*>>")
_CLASS_METHOD = re.compile(r"^\s+(?:sealed\s+)?class\s+(?!=>)\S")
_LOCAL_NEW = re.compile(r"\b([a-z_]\w*)\s*:=\s*([A-Z]\w*)\s+(?:new|spawn)\b")


def receivers_at(source: str, offset: int) -> dict[str, tuple[str, str]]:
    """{name: (how, class)} for the names whose class the text tells at `offset`
    (how: `instance` or `class`, as the completion engine's receivers)."""
    lines = source[:offset].split("\n")
    cls, side, body_at = None, "instance", None
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        m = _STANDALONE.match(line)
        if m:
            cls, side, body_at = m.group(1), "class" if m.group(2) else "instance", i
            break
        m = _CLASS_DEF.match(line)
        if m:
            cls, body_at = m.group(1), i
            side = _side_in_body(lines[i + 1:])
            break
    if cls is None:
        return {}
    names = {"self": (side, cls)}
    method = lines[_method_start(lines, body_at):]
    for name, klass in _LOCAL_NEW.findall("\n".join(method)):
        names[name] = ("instance", klass)
    return names


def _body_indent(body: list[str]) -> int | None:
    for line in body:
        if line.strip() and not line.lstrip().startswith("//"):
            return len(line) - len(line.lstrip())
    return None


def _method_headers(body: list[str]) -> list[int]:
    """Indices of the lines of a class body that start a method (at the body's indentation)."""
    indent = _body_indent(body)
    if not indent:
        return []
    out = []
    for i, line in enumerate(body):
        stripped = line.lstrip()
        if (len(line) - len(stripped) == indent and stripped and not stripped.startswith(("///", "//"))
                and not stripped.startswith(("state:", "classState:"))):
            out.append(i)
    return out


def _side_in_body(body: list[str]) -> str:
    """`class` when the method the body ends in is a class-side one."""
    headers = _method_headers(body)
    if headers and _CLASS_METHOD.match(body[headers[-1]]):
        return "class"
    return "instance"


def _method_start(lines: list[str], body_at: int) -> int:
    headers = _method_headers(lines[body_at + 1:])
    return body_at + 1 + headers[-1] if headers else body_at
