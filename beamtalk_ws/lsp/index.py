"""The classes an editor can know without a node: read from source files.

The stdlib's files, the project's `.bt` files and the documents open in the
editor are parsed with the project's parser; each class keeps its
superclass, fields, doc comment, methods (with doc comments) and where they
are written.  An open document replaces what its file said on disk, so
hover and definition follow unsaved edits.

`docs(name)` answers the same shape as the node's `docs` request
(beamtalk_complete:docs/1), so `:help`'s formatting (repl/commands.py) is
reused as is for hover.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from beamtalk_ws.dist.terms import Atom

#: Directories never searched for a project's sources.
_SKIP_DIRS = {"_build", "build", "node_modules", "__pycache__"}
_MAX_FILES = 2000
#: Seconds between two looks at the project's files on disk.
RESCAN = 2.0


@dataclass(frozen=True)
class MethodEntry:
    selector: str
    class_side: bool
    doc: str | None
    path: str
    start: int                     # offsets of the method in its source text
    end: int
    source: str = field(default="", compare=False, repr=False)


@dataclass
class ClassEntry:
    name: str
    superclass: str | None
    doc: str | None
    path: str
    start: int
    end: int
    fields: tuple = ()
    methods: list = field(default_factory=list)
    source: str = ""               # the text the offsets refer to


def entries_of(module, source: str, path: str) -> list[ClassEntry]:
    """The classes (and `Class >> sel` methods) a parsed module defines."""
    from beamtalk_ws.syntax import ast

    found: dict[str, ClassEntry] = {}
    for item in module.items:
        if isinstance(item, ast.ClassDef):
            c = ClassEntry(item.name, item.superclass, item.doc, path, item.span.start, item.span.end,
                           tuple(s.name for s in item.state), source=source)
            c.methods = [MethodEntry(m.selector, m.class_side, m.doc, path, m.span.start, m.span.end, source)
                         for m in item.methods]
            found[item.name] = c
        elif isinstance(item, ast.StandaloneMethod):
            m = item.method
            entry = MethodEntry(m.selector, item.class_side, m.doc, path, item.span.start, item.span.end, source)
            holder = found.get(item.class_name)
            if holder is None:
                holder = found[item.class_name] = ClassEntry(item.class_name, None, None, path, item.span.start,
                                                             item.span.start, source=source)
                holder.superclass = "?"          # an extension: the class itself is elsewhere
            holder.methods.append(entry)
    return list(found.values())


class ClassIndex:
    def __init__(self, root: Path | None = None):
        self.root = root
        self._files: dict[str, list[ClassEntry]] = {}     # path -> what it defines (stdlib, project)
        self._open: dict[str, list[ClassEntry]] = {}      # open documents, by path
        self._loaded = False
        self._merged: dict[str, ClassEntry] | None = None
        self._mtimes: dict[str, int] = {}                  # project files as last read
        self._scanned = 0.0

    # ------------------------------------------------------------ filling

    def _load(self) -> None:
        """The stdlib and the project's files, parsed once, on first use."""
        if self._loaded:
            return
        self._loaded = True
        from beamtalk_ws.compiler.stdlib import stdlib_dir

        for p in sorted(stdlib_dir().glob("*.bt")):
            self._read(p)
        self._rescan()

    def _rescan(self) -> None:
        """Re-read the project's files that changed on disk (a `git checkout`, another editor),
        at most every RESCAN seconds; files that went away are forgotten."""
        from beamtalk_ws.compiler.stdlib import stdlib_dir

        now = time.monotonic()
        if self.root is None or now - self._scanned < RESCAN or self.root.resolve() == stdlib_dir().parent:
            return
        self._scanned = now
        seen = {}
        for p in _project_files(self.root):
            try:
                seen[str(p)] = p.stat().st_mtime_ns
            except OSError:
                continue
        for path in set(self._mtimes) - set(seen):
            self._files.pop(path, None)
            self._merged = None
        for path, mtime in seen.items():
            if self._mtimes.get(path) != mtime:
                self._read(Path(path))
                self._merged = None
        self._mtimes = seen

    def _read(self, p: Path) -> None:
        from beamtalk_ws.syntax import parse_with_diagnostics

        try:
            source = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        module, _ = parse_with_diagnostics(source, str(p))
        if module is not None:
            self._files[str(p)] = entries_of(module, source, str(p))

    def update(self, path: str, module, source: str) -> None:
        """What an open document defines now (None: it no longer parses at all)."""
        self._open[path] = entries_of(module, source, path) if module is not None else []
        self._merged = None

    def close(self, path: str) -> None:
        """A closed document counts as its file on disk again (as last saved)."""
        self._open.pop(path, None)
        self._files.pop(path, None)
        if self._loaded and path.endswith(".bt") and Path(path).is_file():
            self._read(Path(path))
        self._merged = None

    # ------------------------------------------------------------ asking

    def classes(self) -> dict[str, ClassEntry]:
        if self._loaded:
            self._rescan()
        if self._merged is None:
            self._load()
            merged: dict[str, ClassEntry] = {}
            files = {p: e for p, e in self._files.items() if p not in self._open}
            for source in (files, self._open):
                for entries in source.values():
                    for c in entries:
                        if c.superclass == "?" and c.name in merged:      # `Counter >> sel` extends
                            merged[c.name].methods = merged[c.name].methods + c.methods
                        elif c.superclass != "?" or c.name not in merged:
                            merged[c.name] = c
            self._merged = merged
        return self._merged

    def chain(self, name: str) -> list[ClassEntry]:
        """The class and its superclasses, nearest first."""
        classes = self.classes()
        out, seen = [], set()
        c = classes.get(name)
        while c is not None and c.name not in seen:
            out.append(c)
            seen.add(c.name)
            c = classes.get(c.superclass) if c.superclass else None
        return out

    def methods(self, name: str, class_side: bool) -> list[tuple[ClassEntry, MethodEntry]]:
        """Every method an instance (or the class side) understands, nearest definition first.
        The class side of a class also understands what its metaclass inherits: `Class`'s protocol."""
        out, seen = [], set()
        chains = [(self.chain(name), class_side)]
        if class_side:
            chains.append((self.chain("Class"), False))
        for chain, side in chains:
            for c in chain:
                for m in c.methods:
                    if m.class_side == side and m.selector not in seen:
                        seen.add(m.selector)
                        out.append((c, m))
        return out

    def implementors(self, selector: str) -> list[tuple[ClassEntry, MethodEntry]]:
        return [(c, m) for c in self.classes().values() for m in c.methods if m.selector == selector]

    def kind(self, name: str) -> str:
        names = [c.name for c in self.chain(name)]
        return "actor" if "Actor" in names else "value" if "Value" in names else "object"

    def docs(self, name: str) -> dict | None:
        """`:help`'s data for a class, in the node's shape (see the module docstring)."""
        c = self.classes().get(name)
        if c is None:
            return None

        def side(class_side):
            return [(Atom(m.selector), Atom(d.name), m.doc.encode() if m.doc else Atom("nil"))
                    for d, m in self.methods(name, class_side)]

        supers = [s.name for s in self.chain(name)[1:]]
        return {"name": Atom(c.name), "superclass": Atom(c.superclass) if c.superclass else Atom("nil"),
                "superclasses": [Atom(s) for s in supers], "kind": Atom(self.kind(name)),
                "doc": c.doc.encode() if c.doc else Atom("nil"),
                "instance": side(False), "class": side(True)}


def _project_files(root: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for n in sorted(names):
            if n.endswith(".bt"):
                out.append(Path(dirpath) / n)
                if len(out) >= _MAX_FILES:
                    return out
    return out
