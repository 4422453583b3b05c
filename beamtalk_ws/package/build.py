"""`beamtalk build`: a package's `src/` into an OTP application in `_build/dev/ebin/`
(seed ADR 0026 §3–§6).

Python compiles every file to abstract forms with the same compiler the REPL
uses (module `bt@<package>@<path>`); a throw-away `erl` turns the forms into
`.beam` files (the node never parses Beamtalk); Python writes `<name>.app`
with the module list and, under `env`, the classes (module, class,
superclass) parents first — the order a node registers them in.

A build is skipped when nothing it depends on changed (the sources, the
manifest, the compiler and the Erlang installation), so opening a REPL in a
package costs nothing after the first time.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from beamtalk_ws.shown_path import as_typed

from . import otp
from .manifest import MANIFEST, Manifest, PackageError

PACKAGE_DIR = Path(__file__).resolve().parents[1]


@dataclass
class BuildResult:
    manifest: Manifest | None
    out: Path
    #: [(file, module, class name, superclass)] parents first
    modules: list = field(default_factory=list)
    errors: list = field(default_factory=list)       # [(file, rendered error)]
    warnings: list = field(default_factory=list)
    up_to_date: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def app_name(self) -> str | None:
        return self.manifest.name if self.manifest else None


def source_files(src: Path) -> list[Path]:
    from beamtalk_ws.repl.loader import bt_files

    return bt_files(src) if src.is_dir() else []


def _digest(m: Manifest, files: list[Path]) -> str:
    from beamtalk_ws.workspace.erlbuild import digest

    tools = sorted((PACKAGE_DIR / "compiler").glob("*.py")) + sorted((PACKAGE_DIR / "syntax").glob("*.py"))
    tools += [Path(__file__), m.root / MANIFEST]
    h = hashlib.sha256(digest(tools + files).encode())
    for f in files:  # a renamed file changes its module name
        h.update(f.relative_to(m.src).as_posix().encode())
    return h.hexdigest()[:16]


def compile_sources(files: list[Path], scope: str = "src/"):
    """Compile class files offline: superclasses outside them come from the stdlib."""
    from beamtalk_ws.compiler import stdlib
    from beamtalk_ws.repl.loader import LoadPlan, compile_parsed, outside_superclasses, parse_files
    from beamtalk_ws.syntax import parse

    result = LoadPlan()
    parsed = parse_files(files, result)
    _refuse_duplicate_classes(parsed)
    if outside_superclasses(parsed):
        std = []
        for f in stdlib.sources():
            text = f.read_text(encoding="utf-8")
            std.append((f, text, parse(text, str(f))))
        table = stdlib.class_table(std)
    else:
        from beamtalk_ws.compiler.classes import ClassTable
        table = ClassTable()
    supers = {i.name: i.superclass for _, _, m in parsed for i in m.items if hasattr(i, "superclass")}
    compile_parsed(parsed, table, result)
    result.warnings += _outside_superclass_warnings(parsed, table, scope)
    return result, supers


def _outside_superclass_warnings(parsed, table, scope: str) -> list[str]:
    """A superclass neither in src/ nor in the stdlib: the build cannot
    check it (dependencies are not supported; the workspace may hold it),
    but the package's application will not start without it."""
    from beamtalk_ws.compiler.errors import render_diagnostic
    from beamtalk_ws.syntax import ast
    from beamtalk_ws.syntax.diagnostics import Diagnostic

    local = {i.name for _, _, m in parsed for i in m.items if isinstance(i, ast.ClassDef)}
    out = []
    for f, source, m in parsed:
        for c in m.items:
            if isinstance(c, ast.ClassDef) and c.superclass and c.superclass not in local | set(table.known):
                d = Diagnostic(f"The superclass of {c.name}, {c.superclass}, is neither in {scope} nor in the "
                               "standard library", c.span, severity="warning",
                               hint=("the application will not start" if scope == "src/" else f"loading {scope} fails")
                               + f" until a class {c.superclass} is registered")
                out.append(render_diagnostic(d, source, str(f)))
    return out


def _refuse_duplicate_classes(parsed) -> None:
    """Two files defining one class would give one module per file and one
    class on the node, whichever loaded last: refuse the build instead."""
    from beamtalk_ws.repl.loader import duplicate_classes

    dups = duplicate_classes(parsed)
    if dups:
        raise PackageError("\n".join(
            f"Class {name} is defined in {len(fs)} files: {', '.join(_rel(f) for f in fs)}"
            for name, fs in sorted(dups.items()))
            + "\n  Hint: a class has one file; rename one of the classes or delete one of the files")


def _rel(f: Path) -> str:
    try:
        return f.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(f)


def _role_classes(m: Manifest, modules: list) -> tuple[str | None, str | None]:
    """The classes of the manifest's `start` and `supervisor` files (an
    application's `{mod, ...}` runs them); raises PackageError."""
    by_file = {f.resolve(): name for f, _mod, name, _sup in modules}
    supers = {name: sup for _f, _mod, name, sup in modules}
    start = by_file.get(m.start_file.resolve()) if m.start else None
    if m.start and start is None:
        raise PackageError(f"{MANIFEST}: start = \"{m.start}\" but {_rel(m.start_file)} "
                           f"{'defines no class' if m.start_file.is_file() else 'does not exist'}")
    sup = None
    if m.supervisor:
        sup = by_file.get(m.supervisor_file.resolve())
        if sup is None:
            raise PackageError(f"{MANIFEST}: supervisor = \"{m.supervisor}\" but {_rel(m.supervisor_file)} "
                               f"{'defines no class' if m.supervisor_file.is_file() else 'does not exist'}")
        chain, c = [], sup
        while c in supers and c not in chain:
            chain.append(c)
            c = supers[c]
        if c != "Supervisor":
            raise PackageError(f"{MANIFEST}: supervisor = \"{m.supervisor}\" names {sup}, which is not a "
                               f"Supervisor subclass\n  Hint: write Supervisor subclass: {sup}")
    return start, sup


def build(m: Manifest, *, force: bool = False, log=None) -> BuildResult:
    """Build the package; `log(line)` hears the progress lines of seed §6.

    One build of a package at a time (an OS lock on `_build/dev/.lock`): two
    REPLs opened in the package at once, or a `:reload` in each, build the
    same `_build/` and used to trip over each other's temporary files (a
    FileNotFoundError).  The second waits and then finds the build up to date."""
    if not m.src.is_dir():
        raise PackageError(f"{m.root / 'src'}: no such directory (a package keeps its classes in src/)")
    lock_dir = m.ebin.parent
    lock_dir.mkdir(parents=True, exist_ok=True)
    with open(lock_dir / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_locked(m, force, log)


def _build_locked(m: Manifest, force: bool, log) -> BuildResult:
    say = log or (lambda line: None)
    files = source_files(m.src)
    out = m.ebin
    result = BuildResult(m, out)
    if not m.src.is_dir():
        raise PackageError(f"{m.root / 'src'}: no such directory (a package keeps its classes in src/)")
    stamp = out / ".beamtalk-build"
    key = _digest(m, files)
    say(f"Building {m.name} v{m.version}")
    if not force and stamp.is_file():
        recorded = _read_stamp(stamp, key, m.root)
        if recorded is not None and all((out / f"{mod}.beam").is_file() for _, mod, _, _ in recorded):
            result.modules = recorded
            result.up_to_date = True
            otp.write_libs(m.lib)
            say(f"Up to date: {_n(len(recorded), 'module')} in {_shown(out, m.root)}")
            return result
    if not _compile_into(result, files, f"bt@{m.name}@", lambda f: f.relative_to(m.src).as_posix(), say):
        return result
    start, sup = _role_classes(m, result.modules)
    say(f"  Generating {m.name}.app")
    (out / f"{m.name}.app").write_text(app_text(m, result.modules, start, sup), encoding="utf-8")
    otp.write_libs(m.lib)
    stamp.write_text(key + "\n" + "".join(f"{mod} {name} {sup or ''} {f.relative_to(m.root).as_posix()}\n"
                                          for f, mod, name, sup in result.modules), encoding="utf-8")
    say(f"Build complete: {_n(len(result.modules), 'module')} in {_shown(out, m.root)}")
    return result


def build_file(path: Path, out: Path, *, log=None) -> BuildResult:
    """File mode (no manifest, seed §6): one file into `out` (`build/`), module `bt@<class>`."""
    say = log or (lambda line: None)
    result = BuildResult(None, out)
    if _compile_into(result, [path], None, lambda f: f.name, say, scope=path.name):
        say(f"Build complete: {_n(len(result.modules), 'module')} in {out}/")
    return result


def _compile_into(result: BuildResult, files: list[Path], keep: str | None, label, say,
                  scope: str = "src/") -> bool:
    """Compile `files` and write their modules to `result.out`; False (with
    `result.errors`) when a file does not compile, and then nothing is written."""
    plan, supers = compile_sources(files, scope)
    result.errors = [(f, _as_typed(text, files)) for f, text in plan.errors]
    result.warnings = [_as_typed(text, files) for text in plan.warnings]
    if plan.errors:
        return False
    for module, _forms, name, f in plan.modules:
        say(f"  Compiling {label(f)} \u2192 {module}")
    result.modules = [(f, module, name, supers.get(name)) for module, _forms, name, f in plan.modules]
    _write_beams([(module, forms) for module, forms, _, _ in plan.modules], result.out, keep=keep)
    return True


def _as_typed(text: str, files: list[Path]) -> str:
    """A rendered diagnostic with each file named as the user would type it
    from the current directory (`src/main.bt:3:5: …`), as `beamtalk test`
    names them, instead of by the absolute path the build works with."""
    for f in files:
        full = str(f)
        if full + ":" in text:
            text = text.replace(full + ":", as_typed(full) + ":")
    return text


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def _shown(out: Path, root: Path) -> str:
    return out.relative_to(root).as_posix() + "/"


def _read_stamp(stamp: Path, key: str, root: Path):
    """The modules a build recorded (as `build` returns them), when its key is `key`."""
    lines = stamp.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0] != key:
        return None
    recorded = []
    for line in lines[1:]:
        mod, name, sup, rel = line.split(" ", 3)
        recorded.append((root / rel, mod, name, sup or None))
    return recorded


def _write_beams(modules: list, out: Path, keep: str | None) -> None:
    """Compile forms to `.beam` files in `out` with a throw-away `erl`; with
    `keep` (the package's module prefix), stale modules of the package go."""
    from beamtalk_ws.dist.codec import encode
    from beamtalk_ws.dist.terms import Atom
    from beamtalk_ws.workspace import erlbuild
    from beamtalk_ws.workspace.errors import WorkspaceError

    ebin = erlbuild.ensure_built()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".forms-", dir=out))
    try:
        forms_dir = work / "forms"
        beams = work / "beams"
        forms_dir.mkdir()
        for module, forms in modules:
            (forms_dir / f"{module}.etf").write_bytes(encode((Atom(module), forms)))
        proc = subprocess.run(
            [erlbuild.find_executable("erl"), "-noshell", "-pa", str(ebin),
             "-beamtalk_stdlib_build", str(forms_dir), str(beams), "-run", "beamtalk_stdlib", "build_main"],
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            raise WorkspaceError("Internal compiler error: the generated code was rejected:\n"
                                 + (proc.stdout + proc.stderr).strip())
        wanted = {f"{module}.beam" for module, _ in modules}
        if keep:
            for old in out.glob(f"{keep}*.beam"):
                if old.name not in wanted:
                    old.unlink()
        for name in wanted:
            os.replace(beams / name, out / name)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------
# The .app file

_PLAIN_ATOM = re.compile(r"[a-z][A-Za-z0-9_@]*\Z")
_RESERVED_WORDS = frozenset("after and andalso band begin bnot bor bsl bsr bxor case catch cond div end fun "
                            "if let maybe not of or orelse receive rem try when xor".split())


def atom(name: str) -> str:
    if _PLAIN_ATOM.match(name) and name not in _RESERVED_WORDS and "@" not in name:
        return name
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def string(text: str) -> str:
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif " " <= c <= "~":
            out.append(c)
        else:
            out.append("\\x{%X}" % ord(c))
    return '"' + "".join(out) + '"'


def app_text(m: Manifest, modules: list, start_class: str | None = None, supervisor: str | None = None) -> str:
    """`{application, Name, [...]}.` for the built modules (seed §3); its
    `{mod, ...}` (beamtalk_app) registers the classes and, for an
    application, starts the top supervisor and runs the start class."""
    mods = ", ".join(atom(mod) for _, mod, _, _ in modules)
    classes = ",\n            ".join(f"{{{atom(mod)}, {atom(name)}, {atom(sup) if sup else 'nil'}}}"
                                     for _, mod, name, sup in modules)
    licenses = ", ".join(string(x) for x in m.licenses)
    return (
        f"{{application, {atom(m.name)}, [\n"
        f"    {{description, {string(m.description or m.name)}}},\n"
        f"    {{vsn, {string(m.version)}}},\n"
        f"    {{modules, [{mods}]}},\n"
        f"    {{registered, []}},\n"
        f"    {{applications, [kernel, stdlib, {otp.RUNTIME}, {otp.STDLIB}]}},\n"
        f"    {{mod, {{beamtalk_app, {{package, {atom(m.name)}}}}}}},\n"
        f"    {{licenses, [{licenses}]}},\n"
        f"    {{env, [\n"
        f"        {{classes, [\n            {classes}\n        ]}}"
        + (f",\n        {{start, {atom(m.start)}}}" if m.start else "")
        + (f",\n        {{start_class, {atom(start_class)}}}" if start_class else "")
        + (f",\n        {{supervisor, {atom(supervisor)}}}" if supervisor else "")
        + "\n    ]}\n]}.\n"
    )
