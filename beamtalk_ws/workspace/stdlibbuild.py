"""Compile the standard library (`stdlib/*.bt`) into a cache of `.beam` files.

The cache key covers the stdlib sources, the compiler and parser sources and
the Erlang installation, so any change recompiles once; every later workspace
start loads the `.beam` files directly (`-beamtalk_stdlib DIR`, read by
`beamtalk_boot`).  Python produces the abstract forms (the node never parses
Beamtalk); a throw-away `erl` turns them into `.beam` files.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from .erlbuild import cached_dir, digest, find_executable
from .errors import WorkspaceError
from .paths import beamtalk_home

PACKAGE = Path(__file__).resolve().parents[1]


def _digest(stdlib_files: list[Path]) -> str:
    """The stdlib's cache key also covers the compiler and the parser that make it."""
    compiler_files = sorted((PACKAGE / "compiler").glob("*.py")) + sorted((PACKAGE / "syntax").glob("*.py"))
    return digest(list(stdlib_files) + compiler_files)


def ensure_built(erl_ebin: Path, directory: Path | None = None) -> Path | None:
    """The cache directory of the compiled stdlib, compiling it first if needed.

    Answers None when there is no stdlib directory (a bare runtime is still usable)."""
    from beamtalk_ws.compiler import stdlib

    files = stdlib.sources(directory)
    if not files:
        return None
    return cached_dir(beamtalk_home() / "cache" / "stdlib" / _digest(files),
                      lambda out: _build(erl_ebin, directory, out))


def _build(erl_ebin: Path, directory: Path | None, out: Path) -> None:
    from beamtalk_ws.compiler import CompileError, stdlib
    from beamtalk_ws.syntax import SyntaxErrors

    try:
        compiled = stdlib.compile_stdlib(directory)
    except (SyntaxErrors, CompileError) as e:
        raise WorkspaceError("The standard library does not compile:\n" + e.render()) from None
    work = Path(tempfile.mkdtemp(prefix=".forms-", dir=out.parent))
    try:
        _compile_forms(compiled, erl_ebin, work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _compile_forms(compiled, erl_ebin: Path, work: Path, out: Path) -> None:
    from beamtalk_ws.dist.codec import encode
    from beamtalk_ws.dist.terms import Atom

    forms_dir = work / "forms"
    forms_dir.mkdir()
    for cc in compiled:
        (forms_dir / f"{cc.module}.etf").write_bytes(encode((Atom(cc.module), cc.forms)))
    proc = subprocess.run(
        [find_executable("erl"), "-noshell", "-pa", str(erl_ebin),
         "-beamtalk_stdlib_build", str(forms_dir), str(out),
         "-run", "beamtalk_stdlib", "build_main"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        raise WorkspaceError("Compiling the standard library failed:\n" + (proc.stdout + proc.stderr).strip())
