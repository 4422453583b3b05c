"""`beamtalk.toml`: finding, reading and checking a package manifest (seed ADR 0026 §2, §8).

A manifest error names the file, the line and the column of the offending
key or value, and says what would be accepted, because a newcomer's first
package usually fails on its manifest.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from beamtalk_ws.shown_path import as_typed

MANIFEST = "beamtalk.toml"

#: names a package may not take (seed §8), with the reason shown
RESERVED = {
    "beamtalk": "conflicts with Beamtalk itself",
    "stdlib": "conflicts with Beamtalk standard library",
    "kernel": "conflicts with the Erlang/OTP application kernel",
    "runtime": "conflicts with the Beamtalk runtime",
    "workspace": "conflicts with the Beamtalk workspace",
    "compiler": "conflicts with the Erlang/OTP application compiler",
}

#: the applications of an Erlang/OTP installation (an OTP application name
#: is an atom shared by the whole node)
OTP_APPLICATIONS = frozenset("""
    asn1 common_test compiler crypto debugger dialyzer diameter edoc eldap erl_docgen
    erl_interface erts et eunit ftp inets jinterface kernel megaco mnesia observer odbc
    os_mon otp_mibs parsetools public_key reltool runtime_tools sasl snmp ssh ssl stdlib
    syntax_tools tftp tools wx xmerl
""".split())

_NAME_OK = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
_SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?\Z")
_START_OK = re.compile(r"[a-z][a-z0-9_]*(?:/[a-z][a-z0-9_]*)*\Z")
_PACKAGE_KEYS = {"name", "version", "description", "licenses", "start", "supervisor",
                 "repository", "links", "target", "beamtalk"}
_TOP_KEYS = {"package", "dependencies", "dev-dependencies", "run"}


class PackageError(Exception):
    """A user-facing package problem (bad name, bad manifest, build failure)."""


def suggest_name(name: str) -> str:
    """`MyApp` → `my_app`, `-dashes-` → `dashes`: the nearest valid name."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    s = re.sub(r"[^a-z0-9_]+", "_", s).strip("_")
    s = re.sub(r"_+", "_", s)
    s = s.lstrip("0123456789_")
    return s[:64]


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a package name (seed §8), or None when it can."""
    if name in RESERVED:
        return f"'{name}' is a reserved package name ({RESERVED[name]})"
    if name in OTP_APPLICATIONS:
        return f"'{name}' is a reserved package name (conflicts with the Erlang/OTP application {name})"
    if _NAME_OK.match(name):
        return None
    if not name:
        return "Package name is empty"
    hint = suggest_name(name)
    try_ = f" (try '{hint}')" if hint and hint != name and name_problem(hint) is None else ""
    if len(name) > 64:
        return f"Package name '{name[:20]}…' is invalid — must be at most 64 characters"
    if name.lower() != name and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        return f"Package name '{name}' is invalid — must be lowercase{try_}"
    if not name[0].isalpha() or not name[0].isascii():
        return f"Package name '{name}' is invalid — must start with a lowercase letter{try_}"
    return (f"Package name '{name}' is invalid — must contain only lowercase letters, "
            f"digits and underscores{try_}")


@dataclass(frozen=True)
class Manifest:
    root: Path
    name: str
    version: str
    description: str | None = None
    licenses: tuple = ()
    start: str | None = None
    #: `[run] entry`: an expression a REPL evaluates when it starts the
    #: package's workspace (spec/repl.md §2)
    run_entry: str | None = None
    warnings: tuple = field(default=(), compare=False)
    #: `supervisor = "app_sup"`: the file of src/ whose Supervisor subclass
    #: the OTP application starts as its top supervisor
    supervisor: str | None = None

    @property
    def src(self) -> Path:
        return self.root / "src"

    @property
    def test_dir(self) -> Path:
        return self.root / "test"

    @property
    def ebin(self) -> Path:
        return self.root / "_build" / "dev" / "ebin"

    @property
    def start_file(self) -> Path | None:
        return self.src / (self.start + ".bt") if self.start else None

    @property
    def supervisor_file(self) -> Path | None:
        return self.src / (self.supervisor + ".bt") if self.supervisor else None

    @property
    def lib(self) -> Path:
        """rebar3's `_build/dev/lib`: the runtime and stdlib applications."""
        return self.root / "_build" / "dev" / "lib"


def find_root(start: Path | None = None) -> Path | None:
    """The nearest directory at or above `start` holding a `beamtalk.toml`."""
    here = (start or Path.cwd()).resolve()
    if here.is_file():
        here = here.parent
    for d in (here, *here.parents):
        if (d / MANIFEST).is_file():
            return d
    return None


def find(start: Path | None = None) -> Manifest | None:
    """The manifest of the package around `start`, or None outside any package."""
    root = find_root(start)
    return load(root) if root is not None else None


def _locate(text: str, table: str, key: str | None) -> tuple[int, int]:
    """Line and column (1-based) of `key` in `[table]` (or of the table header)."""
    lines = text.split("\n")
    in_table = table == ""
    header = re.compile(r"\s*\[\s*" + re.escape(table) + r"\s*\]")
    for n, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = bool(header.match(line))
            if in_table and key is None:
                return n, line.index("[") + 1
            continue
        if in_table and key is not None:
            m = re.match(r"\s*(" + re.escape(key) + r")\s*=\s*", line)
            if m:
                return n, m.end() + 1 if m.end() < len(line) else m.start(1) + 1
    return 1, 1


def _error(path: Path | str, text: str, line: int, col: int, message: str, hint: str | None = None) -> PackageError:
    lines = text.split("\n")
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    out = f"{path}:{line}:{col}: {message}"
    if src.strip():
        out += f"\n  {src}\n  {' ' * (col - 1)}^"
    if hint:
        out += f"\n  Hint: {hint}"
    return PackageError(out)


def load(root: Path) -> Manifest:
    """Read and check `root/beamtalk.toml`; raises PackageError with a location."""
    path = root / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PackageError(f"Cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise PackageError(f"{path}: not UTF-8 text") from None
    return parse(text, path)


def parse(text: str, path: Path) -> Manifest:
    shown = as_typed(str(path))   # as `beamtalk build` names the files of src/
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)$", msg)
        line, col = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        msg = msg[: m.start()].strip() if m else msg
        raise _error(shown, text, line, col, f"invalid TOML: {msg}") from None
    pkg = data.get("package")
    if not isinstance(pkg, dict):
        where = _locate(text, "package", None) if "package" in data else (1, 1)
        raise _error(shown, text, *where, "the manifest has no [package] table",
                     hint='start it with\n    [package]\n    name = "my_app"\n    version = "0.1.0"')

    def bad(key: str, message: str, hint: str | None = None) -> PackageError:
        return _error(shown, text, *_locate(text, "package", key), message, hint)

    name = pkg.get("name")
    if name is None:
        raise _error(shown, text, *_locate(text, "package", None), "[package] has no name",
                     hint='add name = "my_app" (lowercase letters, digits and underscores)')
    if not isinstance(name, str):
        raise bad("name", "package name must be a string", hint='name = "my_app"')
    problem = name_problem(name)
    if problem:
        raise bad("name", problem)
    version = pkg.get("version")
    if version is None:
        raise _error(shown, text, *_locate(text, "package", None), "[package] has no version",
                     hint='add version = "0.1.0" (major.minor.patch)')
    if not isinstance(version, str) or not _SEMVER.match(version):
        raise bad("version", f"version {version!r} is not a semantic version",
                  hint='use major.minor.patch, for example version = "0.1.0"')
    description = pkg.get("description")
    if description is not None and not isinstance(description, str):
        raise bad("description", "description must be a string")
    licenses = pkg.get("licenses", [])
    if not isinstance(licenses, list) or not all(isinstance(x, str) for x in licenses):
        raise bad("licenses", "licenses must be a list of strings", hint='licenses = ["Apache-2.0"]')
    start = pkg.get("start")
    if start is not None and (not isinstance(start, str) or not _START_OK.match(start)):
        raise bad("start", f"start {start!r} is not the name of a file in src/",
                  hint='start = "main" names src/main.bt, whose class has a class-side start method')
    supervisor = pkg.get("supervisor")
    if supervisor is not None and (not isinstance(supervisor, str) or not _START_OK.match(supervisor)):
        raise bad("supervisor", f"supervisor {supervisor!r} is not the name of a file in src/",
                  hint='supervisor = "app_sup" names src/app_sup.bt, which defines a Supervisor subclass')
    run = data.get("run", {})
    if not isinstance(run, dict):
        raise _error(shown, text, *_locate(text, "", "run"), "run must be a table",
                     hint='[run]\n    entry = "Main start"')
    entry = run.get("entry")
    if entry is not None and (not isinstance(entry, str) or not entry.strip()):
        raise _error(shown, text, *_locate(text, "run", "entry"), "[run] entry must be a Beamtalk expression in a string",
                     hint='entry = "Main start"')
    warnings = [f"{shown}:{_locate(text, 'run', k)[0]}: unknown key run.{k} (ignored)" for k in run if k != "entry"]
    warnings += [f"{shown}:{_locate(text, 'package', k)[0]}: unknown key package.{k} (ignored)"
                for k in pkg if k not in _PACKAGE_KEYS]
    warnings += [f"{shown}: unknown table [{k}] (ignored)" for k in data if k not in _TOP_KEYS]
    for table in ("dependencies", "dev-dependencies"):  # seed §2: reserved for a future ADR
        deps = data.get(table)
        if deps:
            names = ", ".join(deps) if isinstance(deps, dict) else str(deps)
            warnings.append(f"{shown}:{_locate(text, table, None)[0]}: [{table}] are not supported yet "
                            f"(ignored: {names}); load another package's classes with :load path/to/it/src")
    return Manifest(path.parent.resolve(), name, version, description, tuple(licenses), start,
                    entry.strip() if entry else None, tuple(warnings), supervisor)
