"""The standard library's compiled path: `stdlib/*.bt` to modules `bt@stdlib@<snake>`.

Stdlib files are ordinary class files with two privileges: their methods may
have `@primitive "name"` / `@intrinsic name` bodies (calls into the class's
runtime module `beamtalk_prim_<snake>`), and their classes are protected
(users cannot redefine them).  They are compiled together, so their
superclasses are known without a node.
"""

from __future__ import annotations

from pathlib import Path

from beamtalk_ws.syntax import ast, parse

from .classes import ClassInfo, ClassTable
from .modules import CompiledClass, compile_file, snake

ROOT_KINDS = {"Value": "value", "Actor": "actor"}


def stdlib_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "stdlib"


def module_for(class_name: str) -> str:
    return f"bt@stdlib@{snake(class_name)}"


def is_stdlib_file(path) -> bool:
    try:
        return Path(path).resolve().parent == stdlib_dir()
    except OSError:
        return False


def sources(directory: Path | None = None) -> list[Path]:
    return sorted((directory or stdlib_dir()).glob("*.bt"))


def class_table(parsed) -> ClassTable:
    """Kinds and fields of every stdlib class, following each superclass chain."""
    defs = {c.name: c for _, _, m in parsed for c in m.items if isinstance(c, ast.ClassDef)}
    table = ClassTable()

    def kind(name, seen=()):
        if name is None or name not in defs or name in seen:
            return "object"
        if name in ROOT_KINDS:
            return ROOT_KINDS[name]
        return kind(defs[name].superclass, seen + (name,))

    for name, c in defs.items():
        table.known[name] = ClassInfo(name, kind(name), tuple(s.name for s in c.state), c.superclass,
                                      "abstract" in c.modifiers)
    return table


def compile_stdlib(directory: Path | None = None) -> list[CompiledClass]:
    """Compile every stdlib file; raises SyntaxErrors / CompileError on the first bad one."""
    parsed = []
    for f in sources(directory):
        text = f.read_text(encoding="utf-8")
        parsed.append((f, text, parse(text, str(f))))
    table = class_table(parsed)
    return [compile_file(m, text, str(f), table, module_for, stdlib=True) for f, text, m in parsed]
