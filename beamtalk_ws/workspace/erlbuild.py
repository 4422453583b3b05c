"""Compile the project's Erlang runtime (`erl_support/*.erl`) into a cache.

The node loads `.beam` files from `$BEAMTALK_HOME/cache/erl/<hash>/`, where the
hash covers every source file and the OTP release, so a changed source or a new
Erlang installation recompiles once and every later start loads directly.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import ErlangMissing, WorkspaceError
from .paths import beamtalk_home, check_private, make_files_private, private_dir


def erl_support_dir() -> Path:
    env = os.environ.get("BEAMTALK_ERL_SUPPORT")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "erl_support"


def find_executable(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ErlangMissing()
    return path


def _sources(src: Path) -> list[Path]:
    files = sorted(src.glob("*.erl"))
    if not files:
        raise WorkspaceError(f"No Erlang runtime sources found in {src}.")
    return files


def digest(files: list[Path]) -> str:
    """The cache key of a build from `files` by this Erlang installation."""
    h = hashlib.sha256()
    # The erlc binary's identity stands in for the OTP release: a different
    # Erlang installation produces different .beam files.
    erlc = Path(find_executable("erlc")).resolve()
    h.update(str(erlc).encode())
    h.update(str(erlc.stat().st_mtime_ns).encode())
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def ensure_built(src: Path | None = None) -> Path:
    """Return the ebin directory for the current sources, compiling if needed."""
    src = src or erl_support_dir()
    files = _sources(src)

    def build(out: Path) -> None:
        proc = subprocess.run([find_executable("erlc"), "-o", str(out), *map(str, files)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise WorkspaceError(
                "Compiling the Erlang runtime failed:\n" + (proc.stdout + proc.stderr).strip()
            )

    return cached_dir(beamtalk_home() / "cache" / "erl" / digest(files), build)


def cached_dir(target: Path, build) -> Path:
    """`target`, made by `build(tmp_dir)` into a temporary directory renamed into
    place only when complete, so a crash or a concurrent start never leaves a
    half-built cache."""
    private_dir(target.parent)
    if (target / ".complete").exists():
        check_private(target)       # it goes on the node's code path
        return target
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    try:
        build(tmp)
        (tmp / ".complete").write_text("ok\n")
        make_files_private(tmp)
        try:
            os.rename(tmp, target)
        except OSError:
            # Another process finished the same build first; use theirs.
            if not (target / ".complete").exists():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target
