"""`:load path` — compile `.bt` files with the compiled path and load them.

A directory means every `.bt` file below it (sorted, dot-entries skipped).
Files are compiled in Python first; a file that does not compile is reported
and nothing of it is loaded.  Classes are loaded superclass first, so a
subclass in the same batch finds its superclass registered.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from beamtalk_ws.compiler import CompileError
from beamtalk_ws.compiler.classes import ClassInfo, ClassTable
from beamtalk_ws.compiler import lint
from beamtalk_ws.compiler.modules import compile_file, module_name
from beamtalk_ws.syntax import SyntaxErrors, ast, parse
from beamtalk_ws.syntax.source_bytes import decode_source


def bt_files(path: Path) -> list[Path]:
    """The `.bt` files of a directory (or the file itself).  Hidden entries
    are skipped without walking into them (`.git`, `.venv`), and a directory
    that vanishes during the walk (an editor's or a test's temporary one) is
    passed over: Path.rglob raised FileNotFoundError for it."""
    if not path.is_dir():
        return [path]
    found = []
    for root, dirs, names in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [Path(root) / n for n in names if n.endswith(".bt") and not n.startswith(".")]
    return sorted(found)


@dataclass
class LoadPlan:
    modules: list = field(default_factory=list)      # [(module, forms, class_name, file)]
    errors: list = field(default_factory=list)       # [(file, rendered error)]
    warnings: list = field(default_factory=list)     # rendered warnings (compiler.lint)


def module_namer(f: Path):
    """How the class of file `f` names its module: `bt@<package>@<path>` for a
    file of a package's `src/` (seed ADR 0026 §4, the same name `beamtalk
    build` gives it), else `bt@<class>`."""
    from beamtalk_ws.package.manifest import find_root

    root = find_root(f.parent)
    if root is None:
        return module_name
    try:
        rel = f.resolve().relative_to(root / "src").with_suffix("").as_posix()
    except ValueError:
        return module_name
    package = _package_name(root, (root / "beamtalk.toml").stat().st_mtime_ns)
    return lambda class_name: module_name(class_name, package, rel)


@functools.lru_cache(maxsize=16)
def _package_name(root: Path, _mtime_ns: int) -> str:
    """The manifest's name, read once per version of the manifest (a package
    build names every file of src/ through here)."""
    from beamtalk_ws.package.manifest import load

    return load(root).name


def parse_files(paths: list[Path], result: LoadPlan) -> list:
    """[(file, source, module AST)] of the files that read and parse; the
    others go to `result.errors`."""
    parsed = []
    for f in paths:
        try:
            data = f.read_bytes()
        except OSError as e:
            result.errors.append((f, f"File not found: {f}" if isinstance(e, FileNotFoundError) else
                                  f"Cannot read {f}: {e.strerror}"))
            continue
        try:
            source = decode_source(data, str(f))
            module = parse(source, str(f))
        except SyntaxErrors as e:
            result.errors.append((f, e.render()))
            continue
        parsed.append((f, source, module))
    return parsed


def outside_superclasses(parsed: list) -> set:
    """Superclasses the parsed files use but do not define."""
    local = {i.name for _, _, m in parsed for i in m.items if isinstance(i, ast.ClassDef)}
    return {i.superclass for _, _, m in parsed for i in m.items
            if isinstance(i, ast.ClassDef) and i.superclass and i.superclass not in local}


def compile_parsed(parsed: list, table: ClassTable, result: LoadPlan,
                   absolute_sources: bool = False) -> LoadPlan:
    """Compile parsed class files against `table` (what is known of the
    superclasses they do not define) into `result.modules`, superclasses first.

    With `absolute_sources` each class records the absolute path of its file
    (a client's relative path means nothing to the node's `reload`); a package
    build keeps the paths it was given, relative to the package root."""
    from beamtalk_ws.package.manifest import PackageError

    defined = {i.name for _, _, m in parsed for i in m.items if isinstance(i, ast.ClassDef)}
    parsed = _without_duplicate_classes(parsed, result)
    local = {}
    for f, source, module in parsed:
        for item in module.items:
            if isinstance(item, ast.ClassDef):
                local[item.name] = item
    # Batch classes: kinds follow the chain through already known classes.
    for name in _superclass_order(local):
        c = local[name]
        table.known[name] = ClassInfo(name, table.kind_of(c.superclass) if c.superclass else "object",
                                      tuple(s.name for s in c.state), c.superclass)
    compiled = {}
    for f, source, module in parsed:
        try:
            cc = compile_file(module, source, str(f), table, module_namer(f),
                              source_file=str(Path(f).resolve()) if absolute_sources else None)
        except CompileError as e:
            result.errors.append((f, e.render()))
            continue
        except PackageError as e:
            result.errors.append((f, str(e)))
            continue
        result.warnings += lint.render(lint.warnings(module.items, source, table), source, str(f))
        compiled[cc.name] = (cc, f)
    sources = {i.name: source for _, source, m in parsed for i in m.items if isinstance(i, ast.ClassDef)}
    _without_unloaded_superclasses(compiled, defined, local, sources, result)
    for name in _superclass_order({n: local[n] for n in compiled if n in local}):
        cc, f = compiled[name]
        result.modules.append((cc.module, cc.forms, cc.name, f))
    return result


def _without_unloaded_superclasses(compiled: dict, defined: set, local: dict, sources: dict,
                                   result: LoadPlan) -> None:
    """A class whose superclass is defined in this load but did not load (its
    file failed to compile, or it is one class in two files) would fail on
    the node as a bare "Class 'X' not found" that names no file and takes
    the whole load with it: refuse it at its header (and the classes below
    it) so that the other files still load."""
    from beamtalk_ws.syntax.diagnostics import Diagnostic

    changed = True
    while changed:
        changed = False
        for name in sorted(compiled):
            sup = local[name].superclass if name in local else None
            if sup in defined and sup not in compiled:
                _cc, f = compiled.pop(name)
                err = CompileError([Diagnostic(f"The superclass of {name}, {sup}, did not load", local[name].span,
                                               hint=f"see the error of {sup}")], sources[name], str(f))
                result.errors.append((f, err.render()))
                changed = True


def duplicate_classes(parsed: list) -> dict:
    """{class name: [files]} for every class more than one parsed file defines."""
    where: dict[str, list] = {}
    for f, _source, module in parsed:
        for item in module.items:
            if isinstance(item, ast.ClassDef):
                where.setdefault(item.name, []).append(f)
    return {name: fs for name, fs in where.items() if len(fs) > 1}


def _without_duplicate_classes(parsed: list, result: LoadPlan) -> list:
    """Two files of one load defining one class would leave whichever was
    loaded last, silently: report it, naming both files, and load neither
    (the other files still load)."""
    dups = duplicate_classes(parsed)
    if not dups:
        return parsed
    bad = set()
    for name, fs in sorted(dups.items()):
        names = ", ".join(str(f) for f in fs)
        for f in fs:
            if f not in bad:
                result.errors.append((f, f"Class {name} is defined in {len(fs)} files of this load: {names}; "
                                         f"{f} was not loaded\n  Hint: a class has one file; rename one of "
                                         "the classes or delete one of the files"))
        bad.update(fs)
    return [p for p in parsed if p[0] not in bad]


async def plan(paths: list[Path], client) -> LoadPlan:
    result = LoadPlan()
    parsed = parse_files(paths, result)
    supers = outside_superclasses(parsed)
    table = await client.class_table(supers) if supers else ClassTable()
    parsed = _without_unknown_superclasses(parsed, table, result)
    result = compile_parsed(parsed, table, result, absolute_sources=True)
    await note_redefinitions(result, client)
    return result


async def note_redefinitions(result: LoadPlan, client) -> None:
    """spec repl.md §5.3: loading a class that is registered from another
    module (a package's file, then a loose copy of it) warns `Class 'X'
    redefined (was m1, now m2)`; a reload from the same module is silent."""
    now = {str(name): str(module) for module, _forms, name, _f in result.modules}
    was = await client.class_modules(list(now))
    result.warnings += [f"Class '{name}' redefined (was {was[name]}, now {now[name]})"
                        for name in sorted(now) if name in was and was[name] != now[name]]


def _without_unknown_superclasses(parsed: list, table: ClassTable, result: LoadPlan) -> list:
    """A class whose superclass is neither in this load nor on the node would
    fail on the node as a bare "Class 'X' not found" that names no file and
    takes the whole load with it: report it at its header instead (and the
    classes of this load below it), and load the other files."""
    from beamtalk_ws.compiler.errors import CompileError
    from beamtalk_ws.syntax.diagnostics import Diagnostic

    defs = {i.name: (f, source, i) for f, source, m in parsed for i in m.items if isinstance(i, ast.ClassDef)}
    bad: dict = {}
    changed = True
    while changed:
        changed = False
        for name, (f, source, c) in defs.items():
            sup = c.superclass
            if name in bad or sup is None or sup in table.known or (sup in defs and sup not in bad):
                continue
            if sup in defs:
                msg, hint = f"The superclass of {name}, {sup}, did not load", f"see the error of {sup} above"
            else:
                msg = f"The superclass of {name}, {sup}, is not defined in the workspace"
                hint = f"load the file that defines {sup} first, or :load a directory holding both"
            err = CompileError([Diagnostic(msg, c.span, hint=hint)], source, str(f))
            bad[name] = f
            result.errors.append((f, err.render()))
            changed = True
    return [p for p in parsed if p[0] not in bad.values()]


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
