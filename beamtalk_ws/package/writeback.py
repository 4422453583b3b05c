"""Writing REPL changes back to a package's `src/` files (issue 14 item 3).

Why edit lines rather than print the class again: the file is the user's
text.  Its comments, doc comments, blank lines and the order of its methods
must survive a flush, so only the lines of a method that changed are
replaced (found by the parser's spans), a new method is added after the
class's last one, and a removed method's lines (with its doc comment) go.
Everything else is copied byte for byte.

Why a hash: the node keeps the SHA-256 of each file as it was loaded; a file
whose bytes are no longer that was edited on disk since, and a flush over
it would lose that edit, so it is refused.

The write is atomic: a temporary file in the same directory, fsync, rename
over the old one, fsync of the directory.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

from beamtalk_ws.syntax import SyntaxErrors, ast, parse

DEFAULT_INDENT = "  "


class WritebackError(Exception):
    """A file that cannot be written; the message says why and what to do."""


@dataclass
class Change:
    id: int
    cls: str
    kind: str  # "class" | "method" | "remove"
    selector: str | None
    class_side: bool
    source: str | None
    doc: str | None
    file: Path
    base_hash: str | None  # None: a new file


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- text edits

def _doc_lines(doc: str | None, indent: str) -> list[str]:
    if not doc:
        return []
    return [f"{indent}/// {line}".rstrip() + "\n" for line in doc.split("\n")]


def _method_lines(source: str, class_side: bool, indent: str, doc: str | None) -> list[str]:
    """A method as lines of the file: the first line at `indent`, the rest
    keeping their shape one level deeper."""
    first, _, rest = source.strip("\n").partition("\n")
    lines = [f"{indent}{'class ' if class_side else ''}{first.strip()}\n"]
    if rest:
        body = textwrap.dedent(rest)
        lines += [(indent + DEFAULT_INDENT + line).rstrip() + "\n" if line.strip() else "\n"
                  for line in body.split("\n")]
    return _doc_lines(doc, indent) + lines


def _line_of(text: str, offset: int) -> int:
    """0-based line index of an offset."""
    return text.count("\n", 0, offset)


class _ClassText:
    """One class of a file as lines, with each method's line range."""

    def __init__(self, text: str, name: str, filename: str):
        try:
            module = parse(text, filename)
        except SyntaxErrors as e:
            raise WritebackError(f"{filename} does not parse any more, so it cannot be edited:\n{e.render()}") from None
        found = [i for i in module.items if isinstance(i, ast.ClassDef) and i.name == name]
        if not found:
            raise WritebackError(f"{filename} does not define class {name}")
        self.text = text
        self.lines = text.splitlines(keepends=True)
        if self.lines and not self.lines[-1].endswith("\n"):
            self.lines[-1] += "\n"
        self.cdef = found[0]

    def _doc_start(self, line: int) -> int:
        """The first line of the `///` comment directly above `line`."""
        while line > 0 and self.lines[line - 1].lstrip().startswith("///"):
            line -= 1
        return line

    def methods(self) -> dict:
        """(selector, class_side) → (first line incl. doc, first line of the method, end line exclusive)."""
        out = {}
        for m in self.cdef.methods:
            start = _line_of(self.text, m.span.start)
            end = _line_of(self.text, max(m.span.start, m.span.end - 1)) + 1
            out[(m.selector, m.class_side)] = (self._doc_start(start), start, end)
        return out

    def indent(self) -> str:
        for m in self.cdef.methods:
            line = self.lines[_line_of(self.text, m.span.start)]
            return line[: len(line) - len(line.lstrip())]
        return DEFAULT_INDENT

    def class_end(self) -> int:
        return _line_of(self.text, max(self.cdef.span.start, self.cdef.span.end - 1)) + 1

    def result(self) -> str:
        return "".join(self.lines)


def _edit_method(text: str, c: Change, filename: str) -> str:
    ct = _ClassText(text, c.cls, filename)
    ranges = ct.methods()
    key = (c.selector, c.class_side)
    if c.kind == "remove":
        if key not in ranges:
            return text  # already gone from the file
        first, _, end = ranges[key]
        # Take one blank separator line with it, so no double gap is left.
        if first > 0 and not ct.lines[first - 1].strip() and (end >= len(ct.lines) or not ct.lines[end].strip()):
            first -= 1
        del ct.lines[first:end]
        return ct.result()
    if c.source is None:
        raise WritebackError(f"{c.cls} >> {c.selector} has no source (built with ClassBuilder); "
                             "define it with compile: or write it in the file")
    indent = ct.indent()
    if key in ranges:
        first, start, end = ranges[key]
        keep_doc = c.doc is None
        new = _method_lines(c.source, c.class_side, indent, None if keep_doc else c.doc)
        lo = start if keep_doc else first
        ct.lines[lo:end] = new
    else:
        new = _method_lines(c.source, c.class_side, indent, c.doc)
        end = ct.class_end()
        gap = ["\n"] if ct.cdef.methods or end > _line_of(text, ct.cdef.span.start) + 1 else []
        ct.lines[end:end] = gap + new
    return ct.result()


def _edit_class(text: str, c: Change, filename: str) -> str:
    """A class typed again at the REPL: change only what differs from the
    file (the header, the class doc, each method)."""
    if c.source is None:
        raise WritebackError(f"{c.cls} was built with ClassBuilder and has no source to write")
    try:
        new_mod = parse(c.source, f"<{c.cls}>")
    except SyntaxErrors as e:
        raise WritebackError(f"the REPL source of {c.cls} does not parse:\n{e.render()}") from None
    new_defs = [i for i in new_mod.items if isinstance(i, ast.ClassDef) and i.name == c.cls]
    if not new_defs:
        raise WritebackError(f"the REPL source of {c.cls} does not define it")
    new = new_defs[0]
    old = _ClassText(text, c.cls, filename).cdef
    old_methods = {(m.selector, m.class_side): m for m in old.methods}
    new_methods = {(m.selector, m.class_side): m for m in new.methods}
    # Methods first (their lines are found again after each edit), then the header.
    for key, m in new_methods.items():
        o = old_methods.get(key)
        if o is None or o.source != m.source or o.doc != m.doc:
            text = _edit_method(text, Change(c.id, c.cls, "method", m.selector, m.class_side, m.source,
                                             m.doc or "", c.file, c.base_hash), filename)
    for key in old_methods:
        if key not in new_methods:
            text = _edit_method(text, Change(c.id, c.cls, "remove", key[0], key[1], None, None,
                                             c.file, c.base_hash), filename)
    return _edit_header(text, new, c, filename)


def _header_end(text: str, cdef) -> int:
    """Line index (exclusive) of a class's header: up to its first method
    or its doc comment."""
    ct_lines = text.splitlines(keepends=True)
    if cdef.methods:
        line = _line_of(text, cdef.methods[0].span.start)
        while line > 0 and ct_lines[line - 1].lstrip().startswith("///"):
            line -= 1
        while line > 0 and not ct_lines[line - 1].strip():
            line -= 1
        return line
    return _line_of(text, max(cdef.span.start, cdef.span.end - 1)) + 1


def _edit_header(text: str, new, c: Change, filename: str) -> str:
    ct = _ClassText(text, c.cls, filename)
    old = ct.cdef
    new_src = c.source
    new_header = new_src.splitlines(keepends=True)[: _header_end(new_src, new) - _line_of(new_src, new.span.start)]
    start = _line_of(text, old.span.start)
    end = _header_end(text, old)
    if [line.rstrip() for line in ct.lines[start:end]] != [line.rstrip() for line in new_header]:
        ct.lines[start:end] = [line if line.endswith("\n") else line + "\n" for line in new_header]
    # The REPL's class source starts at its header: the doc comment typed
    # above it comes with the change (the description's doc).
    doc = c.doc or new.doc
    if (old.doc or None) != (doc or None):
        doc_start = ct._doc_start(start)
        ct.lines[doc_start:start] = _doc_lines(doc, "")
    return ct.result()


def new_file_text(c: Change) -> str:
    if c.source is None:
        raise WritebackError(f"{c.cls} was built with ClassBuilder and has no source to write; "
                             "type its definition at the REPL or write the file")
    return "".join(_doc_lines(c.doc, "")) + c.source.rstrip("\n") + "\n"


def apply_changes(text: str | None, changes: list[Change], filename: str) -> str:
    """The new text of one file after its changes, in order."""
    for c in changes:
        if c.kind == "class" and (text is None or c.base_hash is None):
            text = new_file_text(c)
        elif text is None:
            raise WritebackError(f"{filename} does not exist and no class definition of {c.cls} is pending")
        elif c.kind == "class":
            text = _edit_class(text, c, filename)
        else:
            text = _edit_method(text, c, filename)
    return text or ""


# ---------------------------------------------------------------- files

def _umask() -> int:
    """This process's umask, read without changing it (`os.umask` sets it,
    for every thread): a new source file gets the mode the user's umask asks
    for, as from an editor, rather than a fixed 0644."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())    # as an editor would make it
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def flush_file(path: Path, changes: list[Change], shown: str) -> tuple[str, str]:
    """Write one file's changes.  Answers (hash written, text for the user);
    raises WritebackError when the file may not or cannot be written."""
    base = changes[0].base_hash
    if base is not None:
        if not path.exists():
            raise WritebackError(f"{shown} was deleted since the workspace loaded it; not written "
                                 "(Workspace revert: drops the change)")
        current = path.read_bytes()
        if sha256(current) != base:
            one = len(changes) == 1
            raise WritebackError(f"{shown} changed on disk since the workspace loaded it; not written. "
                                 f"Reload the class (:reload) and redo "
                                 f"{', '.join(_change_name(c) for c in changes)}, or drop "
                                 f"{'it' if one else 'them'}: "
                                 + " / ".join(f"Workspace revert: {c.id}" for c in changes))
        text = current.decode("utf-8")
    else:
        if path.exists():
            raise WritebackError(f"{shown} already exists and was not loaded by this workspace; not written "
                                 f"(load it, or move it away)")
        text = None
    new = apply_changes(text, changes, shown).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, new)
    n = len(changes)
    return sha256(new), f"Wrote {shown} ({n} change{'s' if n != 1 else ''})"


def flush(changes: list[Change], cwd: Path | None = None) -> list[tuple]:
    """Per file, in order of first change: ("ok", path, hash, ids, text) or
    ("error", path, text, ids)."""
    by_file: dict[Path, list[Change]] = {}
    for c in sorted(changes, key=lambda c: c.id):
        by_file.setdefault(c.file, []).append(c)
    out = []
    for path, cs in by_file.items():
        shown = _shown(path, cwd)
        cs, stale = _split_stale(path, cs)
        if stale:
            out.append(("error", path, _stale_text(shown, stale), [c.id for c in stale]))
        if not cs:
            continue
        ids = [c.id for c in cs]
        try:
            digest, text = flush_file(path, cs, shown)
            out.append(("ok", path, digest, ids, text))
        except WritebackError as e:
            out.append(("error", path, str(e), ids))
        except (OSError, UnicodeDecodeError) as e:
            out.append(("error", path, f"{shown} could not be written: {e.strerror if isinstance(e, OSError) else e}", ids))
    return out


def _split_stale(path: Path, cs: list[Change]) -> tuple[list[Change], list[Change]]:
    """(changes to write, changes made against an older text of the file).

    Why: each change carries the hash its file had when it was made.  After a
    refused flush the user reloads the class and redoes the change, as the
    refusal says; the redone change is based on the file as it is now and
    must be written, while the ones made before the edit on disk would undo
    or miss that edit.  Only when some change matches the file do the others
    count as stale: if none does, the whole file is refused as before."""
    if not path.exists():
        return cs, []
    try:
        current = sha256(path.read_bytes())
    except OSError:
        return cs, []
    if not any(c.base_hash == current for c in cs):
        return cs, []
    fresh = [c for c in cs if c.base_hash in (current, None)]
    return fresh, [c for c in cs if c.base_hash not in (current, None)]


def _stale_text(shown: str, stale: list[Change]) -> str:
    names = ", ".join(_change_name(c) for c in stale)
    ids = " / ".join(f"Workspace revert: {c.id}" for c in stale)
    one = len(stale) == 1
    return (f"{shown}: {names} {'was' if one else 'were'} made before the file changed on disk and "
            f"{'was' if one else 'were'} not written. Redo {'it' if one else 'them'} at the REPL if you "
            f"still want {'it' if one else 'them'}, or drop {'it' if one else 'them'}: {ids}")


def _change_name(c: Change) -> str:
    if c.kind == "class":
        return f"{c.cls} (class definition)"
    side = " class" if c.class_side else ""
    what = " (removed)" if c.kind == "remove" else ""
    return f"{c.cls}{side} >> {c.selector}{what}"


def _shown(path: Path, cwd: Path | None) -> str:
    try:
        return str(path.relative_to(cwd or Path.cwd()))
    except ValueError:
        return str(path)
