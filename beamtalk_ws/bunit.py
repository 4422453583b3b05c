"""`beamtalk test` and the REPL's `:test`: run BUnit tests on a node and report.

The tests run on the node (`erl_support/beamtalk_test_runner.erl`); Python
only decides which files to load, asks the workspace server to run the tests
of some classes (DESIGN D3: the `tests` request) and prints the results.

`beamtalk test [PATH ...] [--format json]` (DESIGN §3): a directory means every
`.bt` file below it; files under a `fixtures/` directory (found below a given
directory, or beside a given test file) are loaded first; everything is
loaded into a fresh workspace of its own, stopped at the end whatever
happens; every test method of every TestCase subclass defined in the test
files runs.  Exit status 0 only when every test passed and every file
compiled.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from beamtalk_ws.dist.errors import DistError
from beamtalk_ws.workspace.client import TestOutcome
from beamtalk_ws.workspace.errors import WorkspaceError
from beamtalk_ws.shown_path import as_typed

FIXTURES = "fixtures"


# ---------------------------------------------------------------------------
# Reporting (shared by `beamtalk test` and `:test`)

@dataclass
class FileError:
    path: str
    message: str
    missing: bool = False       # the path named on the command line is not there

    def as_json(self) -> dict:
        return {"file": self.path, "status": "error", "message": self.message}


def summary_line(results: list[TestOutcome]) -> str:
    passed = sum(1 for r in results if r.status == "pass")
    return f"{passed} passed, {len(results) - passed} failed"


def human_report(results: list[TestOutcome], file_errors: list[FileError] = ()) -> str:
    """Failures (class, test, message), then the summary line `N passed, M failed`."""
    blocks = []
    for e in file_errors:
        what = "not found" if e.missing else "does not compile"
        blocks.append(f"ERROR: {e.path} {what}\n" + _indent(e.message))
    for r in results:
        if r.status == "pass":
            continue
        label = "FAIL" if r.status == "fail" else "ERROR"
        where = f"{r.location}: " if r.location else ""
        blocks.append(f"{label}: {r.cls} >> {r.test}\n" + _indent(where + (r.message or "")))
    lines = []
    if blocks:
        lines.append("\n".join(blocks))
        lines.append("")
    n = sum(1 for e in file_errors if not e.missing)
    if n:
        lines.append(f"{n} file{'s' if n != 1 else ''} did not compile")
    n = sum(1 for e in file_errors if e.missing)
    if n:
        lines.append(f"{n} path{'s' if n != 1 else ''} not found")
    lines.append(summary_line(results))
    return "\n".join(lines)


def all_passed(results: list[TestOutcome]) -> bool:
    return all(r.status == "pass" for r in results)


def _indent(text: str) -> str:
    return "\n".join("  " + line if line else line for line in text.splitlines()) or "  "


# ---------------------------------------------------------------------------
# Which files

@dataclass
class TestFiles:
    fixtures: list[Path] = field(default_factory=list)
    tests: list[Path] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def _below(d: Path) -> list[Path]:
    from beamtalk_ws.repl.loader import bt_files

    return [p for p in bt_files(d) if p.is_file()]


def collect(args: list[str]) -> TestFiles:
    """Test files and fixture files for the given paths, each once, in order."""
    found = TestFiles()
    fixtures: dict[Path, Path] = {}
    tests: dict[Path, Path] = {}
    for arg in args:
        path = Path(arg)
        if path.is_dir():
            for f in _below(path):
                rel_dirs = f.relative_to(path).parts[:-1]
                (fixtures if FIXTURES in rel_dirs else tests).setdefault(f.resolve(), f)
        elif path.is_file():
            tests.setdefault(path.resolve(), path)
        else:
            found.missing.append(arg)
    for real, f in list(tests.items()):
        beside = f.parent / FIXTURES
        if beside.is_dir():
            for fx in _below(beside):
                if fx.resolve() not in tests:
                    fixtures.setdefault(fx.resolve(), fx)
    found.fixtures = sorted(fixtures.values(), key=lambda p: str(p))
    found.tests = list(tests.values())
    return found


# ---------------------------------------------------------------------------
# Loading and running on a client

async def load_files(client, files: list[Path], errors: list[FileError], on_output,
                     warnings: list[str] | None = None) -> list[tuple[str, Path]]:
    """Compile and load files; answer [(class name, file)] of what loaded, in file order.
    Files that do not compile or load are added to `errors`, the compiler's
    warnings (rendered, located) to `warnings`."""
    from beamtalk_ws.repl.loader import plan

    if not files:
        return []
    p = await plan(files, client)
    if warnings is not None:
        warnings += p.warnings
    for f, text in p.errors:
        errors.append(FileError(str(f), text))
    loaded: dict[Path, str] = {}
    for module, forms, name, f in p.modules:      # superclasses first
        reply = await client.load_modules([(module, forms)], on_output=on_output)
        if reply.ok:
            loaded[f] = name
        else:
            errors.append(FileError(str(f), reply.text))
    order = {f: i for i, f in enumerate(files)}
    return sorted(((n, f) for f, n in loaded.items()), key=lambda nf: order.get(nf[1], 0))


async def run_files(client, files: TestFiles, on_output,
                    warnings: list[str] | None = None) -> tuple[list[TestOutcome], list[FileError]]:
    from beamtalk_ws import doctest
    from beamtalk_ws.repl.core import Repl

    errors = [FileError(m, missing_message(m), missing=True) for m in files.missing]
    await load_files(client, files.fixtures, errors, on_output, warnings)
    docs, class_files = [], []
    for f in files.tests:
        try:
            (docs if doctest.is_doctest(f.read_text(encoding="utf-8")) else class_files).append(f)
        except (OSError, UnicodeDecodeError):
            class_files.append(f)     # reported by the loader
    classes = await load_files(client, class_files, errors, on_output, warnings)
    results: list[TestOutcome] = []
    # One request per class: when a test stops the node (`Erlang erlang halt`,
    # out of memory), the classes run before it keep their results and the
    # rest are reported as errors, instead of the run ending with no report.
    for i, (name, f) in enumerate(classes):
        try:
            reply = await client.run_tests([name], strict=False, on_output=on_output)
        except (WorkspaceError, DistError):
            results += _unrun(name, f, f"the test node stopped while {name}'s tests ran (one of them, "
                                       "or code it called, halted or crashed it)")
            for later, lf in classes[i + 1:]:
                results += _unrun(later, lf, f"not run: the test node stopped during {name}'s tests")
            for d in docs:
                results.append(TestOutcome(d.name, "(doc-test file)", "error",
                                           f"not run: the test node stopped during {name}'s tests"))
            return results, errors
        if not reply.ok:
            errors.append(FileError(str(f), reply.text))
        else:
            results += reply.results or []
    for f in docs:
        results += await doctest.run_file(Repl(client, filename=str(f)), f, on_output)
    return results, errors


def missing_message(path: str) -> str:
    """Why a path given to (or chosen by) `beamtalk test` found nothing."""
    from beamtalk_ws.workspace.paths import project_root

    where = os.path.abspath(path)
    if Path(path).parts[-1:] == ("test",) and Path(where).parent == project_root():
        return (f"No such file or directory: {where}\n"
                f"Hint: with no path, beamtalk test runs the test/ directory of the project root "
                f"({project_root()}); create it, or name the test files or directories to run")
    return f"No such file or directory: {where}\nHint: give .bt files or directories of them"


def _unrun(name: str, f: Path, message: str) -> list[TestOutcome]:
    """An error outcome for each test method of class `name` as its file
    declares them (in run order), for a class whose run the node did not survive."""
    from beamtalk_ws.syntax import SyntaxErrors, parse
    from beamtalk_ws.syntax.ast import ClassDef

    try:
        module = parse(f.read_text(encoding="utf-8"), str(f))
        tests = sorted({m.selector for c in module.items if isinstance(c, ClassDef) and c.name == name
                        for m in c.methods
                        if not m.class_side and m.selector.startswith("test") and ":" not in m.selector
                        and m.selector.isidentifier()})
    except (OSError, UnicodeDecodeError, SyntaxErrors):
        tests = []
    return [TestOutcome(name, t, "error", message) for t in tests or ["(all tests)"]]


# ---------------------------------------------------------------------------
# `beamtalk test`

def package_sources(paths_: list[str] | None = None) -> list[Path]:
    """In a package, its `src/` classes: loaded before the tests (seed ADR 0026 Phase 4).

    The packages are those around the given test paths (`beamtalk test
    pkgs/app/test` from a repository root tests `app`), else the one around
    the current directory."""
    from beamtalk_ws.package.build import source_files
    from beamtalk_ws.package.manifest import find, find_root

    roots = []
    for p in paths_ or []:
        root = find_root(Path(p)) if Path(p).exists() else None
        if root is not None and root not in roots:
            roots.append(root)
    if not roots:
        m = find()
        return _relative(source_files(m.src)) if m is not None else []
    files: list[Path] = []
    for root in roots:
        files += source_files(find(root).src)
    return _relative(files)


def _relative(files: list[Path]) -> list[Path]:
    """Paths as the user would type them (`src/lexer.bt`), so that a source
    that does not compile is named like the test files are, not by its
    absolute path."""
    return [Path(as_typed(str(f))) for f in files]


def default_paths() -> list[str]:
    from beamtalk_ws.workspace.paths import project_root

    root = project_root()
    test_dir = root / "test"
    try:
        return [os.path.relpath(test_dir)]
    except ValueError:
        return [str(test_dir)]


def cmd_test(paths_: list[str], fmt: str = "text", out: TextIO | None = None,
             err: TextIO | None = None) -> int:
    """Run the command; the exit status."""
    from beamtalk_ws.workspace import launcher, paths

    out = out or sys.stdout
    err = err or sys.stderr
    files = collect(paths_ or default_paths())
    src = package_sources(paths_)
    files.fixtures = src + [f for f in files.fixtures if f.resolve() not in {p.resolve() for p in src}]
    ws = paths.resolve("test-" + uuid.uuid4().hex[:12])
    previous = signal.getsignal(signal.SIGTERM)

    def terminate(signum, frame):
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGTERM, terminate)
    except ValueError:            # not the main thread
        previous = None
    try:
        # The idle timeout is only a backstop: the node also stops when this
        # process's connection goes (stop_with), and at the end of the run.
        launcher.start(ws, idle_timeout=60)
        return asyncio.run(_run(ws, files, fmt, out, err, paths_ or default_paths()))
    finally:
        _discard(ws)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def none_found(paths_: list[str]) -> str:
    """A run that found no test says where it looked, so that a wrong path or a
    misnamed method is not taken for a passing suite (a JSON run would
    otherwise write nothing at all)."""
    return (f"No tests found in {', '.join(paths_)}: a test is a unary method named test... of a "
            f"TestCase subclass, or a `// =>` line of a doc-test file")


async def _run(ws, files: TestFiles, fmt: str, out: TextIO, err: TextIO, paths_: list[str]) -> int:
    from beamtalk_ws.workspace.client import WorkspaceClient

    client = await WorkspaceClient.connect(ws, session="test")
    try:
        await client.stop_with_client()
        stream = out if fmt == "text" else err
        ended = [True]         # did the tests' output end a line? (the report starts one)

        def on_output(text: str) -> None:
            if text:
                stream.write(text)
                stream.flush()
                ended[0] = text.endswith("\n")

        warnings: list[str] = []
        results, errors = await run_files(client, files, on_output, warnings)
        # the compiler's warnings, as `beamtalk build` prints them: a setUp
        # that loses its field is otherwise only a DNU on nil in every test
        for w in warnings:
            err.write(f"\u26a0 {w}\n")
        err.flush()
        empty = none_found(paths_) if not results and not errors else None
        if fmt == "json":
            for e in errors:
                out.write(json.dumps(e.as_json(), ensure_ascii=False) + "\n")
            for r in results:
                out.write(json.dumps(r.as_json(), ensure_ascii=False) + "\n")
            if empty:
                out.write(json.dumps({"status": "empty", "message": empty}, ensure_ascii=False) + "\n")
        else:
            out.write(("" if ended[0] else "\n") + (empty + "\n" if empty else "")
                      + human_report(results, errors) + "\n")
        out.flush()
        return 0 if all_passed(results) and not errors else 1
    finally:
        try:
            await asyncio.wait_for(client.stop_workspace(), 5)
        except Exception:  # noqa: BLE001 - _discard kills the node if this did not work
            pass
        await client.close()


def _discard(ws) -> None:
    """Stop the ephemeral node (killing it if it does not stop) and remove its files."""
    from beamtalk_ws.workspace import launcher

    if not launcher.wait_stopped(ws, timeout=5.0):
        launcher.kill(ws)
    # Interrupted while the node was starting: it has no node.info yet, but
    # its (unique) node name is on its command line.
    pids = _pids_of(ws.node_name)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + 10
    while pids and time.monotonic() < deadline:
        time.sleep(0.02)
        pids = _pids_of(ws.node_name)
    shutil.rmtree(ws.dir, ignore_errors=True)


def _pids_of(node_name: str) -> list[int]:
    name = node_name.encode()
    pids = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            if name in (d / "cmdline").read_bytes().split(b"\0"):
                pids.append(int(d.name))
        except (OSError, ValueError):
            continue
    return pids


def repl_output(results: list[TestOutcome]) -> tuple[bool, str]:
    """What `:test` prints, and whether everything passed."""
    return all_passed(results), human_report(results)

