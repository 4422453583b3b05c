"""`:load path` — compile `.bt` files with the compiled path and load them.

A directory means every `.bt` file below it (sorted, dot-entries skipped).
Files are compiled in Python first; a file that does not compile is reported
and nothing of it is loaded.  Classes are loaded superclass first, so a
subclass in the same batch finds its superclass registered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from beamtalk_ws.compiler import CompileError
from beamtalk_ws.compiler.classes import ClassInfo, ClassTable
from beamtalk_ws.compiler import lint
from beamtalk_ws.compiler.modules import compile_file
from beamtalk_ws.syntax import SyntaxErrors, ast, parse


def bt_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*.bt")
                      if not any(part.startswith(".") for part in p.relative_to(path).parts))
    return [path]


@dataclass
class LoadPlan:
    modules: list = field(default_factory=list)      # [(module, forms, class_name, file)]
    errors: list = field(default_factory=list)       # [(file, rendered error)]
    warnings: list = field(default_factory=list)     # rendered warnings (compiler.lint)


async def plan(paths: list[Path], client) -> LoadPlan:
    result = LoadPlan()
    parsed = []
    for f in paths:
        try:
            source = f.read_text(encoding="utf-8")
        except OSError as e:
            result.errors.append((f, f"File not found: {f}" if isinstance(e, FileNotFoundError) else
                                  f"Cannot read {f}: {e.strerror}"))
            continue
        try:
            module = parse(source, str(f))
        except SyntaxErrors as e:
            result.errors.append((f, e.render()))
            continue
        parsed.append((f, source, module))
    local = {}
    for f, source, module in parsed:
        for item in module.items:
            if isinstance(item, ast.ClassDef):
                local[item.name] = item
    supers = {i.superclass for _, _, m in parsed for i in m.items
              if isinstance(i, ast.ClassDef) and i.superclass and i.superclass not in local}
    table = await client.class_table(supers) if supers else ClassTable()
    # Batch classes: kinds follow the chain through already known classes.
    for name in _superclass_order(local):
        c = local[name]
        table.known[name] = ClassInfo(name, table.kind_of(c.superclass) if c.superclass else "object",
                                      tuple(s.name for s in c.state), c.superclass)
    compiled = {}
    for f, source, module in parsed:
        try:
            cc = compile_file(module, source, str(f), table)
        except CompileError as e:
            result.errors.append((f, e.render()))
            continue
        result.warnings += lint.render(lint.warnings(module.items), source, str(f))
        compiled[cc.name] = (cc, f)
    for name in _superclass_order({n: local[n] for n in compiled if n in local}):
        cc, f = compiled[name]
        result.modules.append((cc.module, cc.forms, cc.name, f))
    return result


def _superclass_order(classes: dict) -> list[str]:
    order, seen = [], set()

    def visit(name):
        if name in seen or name not in classes:
            return
        seen.add(name)
        visit(classes[name].superclass)
        order.append(name)

    for n in sorted(classes):
        visit(n)
    return order
