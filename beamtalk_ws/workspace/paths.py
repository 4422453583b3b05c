"""Where a workspace lives: project root, workspace id and its state directory.

A workspace belongs to a project, so the same project always reaches the same
live node from any terminal; an explicit name (`--workspace NAME`) overrides
that for throw-away or shared workspaces (DESIGN D4, spec/repl.md §2).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from .errors import WorkspaceError

_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_MARKERS = (".beamtalk", "beamtalk.toml")


def beamtalk_home() -> Path:
    """`$BEAMTALK_HOME`, default `~/.beamtalk`."""
    env = os.environ.get("BEAMTALK_HOME")
    return Path(env).expanduser() if env else Path.home() / ".beamtalk"


def private_dir(path: Path) -> Path:
    """`path` (under `$BEAMTALK_HOME`), with every directory from the home down to
    it created mode 0700 whatever the umask, and each one checked before use.

    The cache holds the code the node loads and the workspaces hold cookies, so
    a directory another user owns or can write to (where they could plant a
    cached `ebin`) is refused with a message saying how to fix it, never used.
    """
    home = beamtalk_home()
    try:
        rel = path.relative_to(home)
        chain = [home, *(home / Path(*rel.parts[: i + 1]) for i in range(len(rel.parts)))]
    except ValueError:
        chain = [path]
    for d in chain:
        try:
            os.mkdir(d, 0o700)
            os.chmod(d, 0o700)      # the umask may have removed bits from 0700 too
        except FileExistsError:
            pass
        except OSError as e:
            raise WorkspaceError(f"Cannot create directory {d}: {e.strerror}.") from None
        check_private(d)
    return path


def open_private(path: Path, mode: str):
    """`open(path, mode)` for a file under `$BEAMTALK_HOME`, mode 0600 whatever
    the umask (also a file an earlier version left open to others)."""
    f = open(path, mode, opener=lambda p, flags: os.open(p, flags, 0o600))
    os.fchmod(f.fileno(), 0o600)
    return f


def make_files_private(d: Path) -> None:
    """Mode 0600 for every file below `d` (what a tool such as `erlc` wrote
    with the umask's modes), before `d` is put in place."""
    for p in d.rglob("*"):
        if p.is_file() and not p.is_symlink():
            os.chmod(p, 0o600)


def check_private(d: Path) -> None:
    """Refuse a directory that is not ours alone to write (see `private_dir`)."""
    try:
        st = os.stat(d)
    except OSError as e:
        raise WorkspaceError(f"Cannot use directory {d}: {e.strerror}.") from None
    if not stat.S_ISDIR(st.st_mode):
        raise WorkspaceError(f"Cannot use {d}: it is not a directory.")
    if st.st_uid != os.getuid():
        raise WorkspaceError(
            f"Refusing to use directory {d}: it belongs to another user (uid {st.st_uid}), who could "
            "put code in it. Use a BEAMTALK_HOME of your own, or remove the directory."
        )
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise WorkspaceError(
            f"Refusing to use directory {d}: it is writable by group or others (mode "
            f"{stat.S_IMODE(st.st_mode):04o}), so another user could have put code in it. "
            f"Check its contents, then run `chmod 700 {d}`."
        )


def project_root(start: Path | None = None) -> Path:
    """The innermost directory with a Beamtalk marker, else with `.git`, else `start`.

    Beamtalk markers win over `.git` at the same level, and the walk is per
    directory: the nearest directory carrying any marker is the root.
    """
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if any((d / m).exists() for m in _MARKERS) or (d / ".git").exists():
            return d
    return here


def workspace_id_for(root: Path) -> str:
    """First 12 hex digits of SHA-256 of the canonical project path."""
    return hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:12]


def check_name(name: str) -> str:
    if not _NAME_RE.match(name):
        raise WorkspaceError(
            f"Invalid workspace name {name!r}: use letters, digits, '-' and '_' (at most 64)."
        )
    return name


@dataclass(frozen=True)
class WorkspacePaths:
    """The files of one workspace under `$BEAMTALK_HOME/workspaces/<id>/`."""

    id: str
    dir: Path
    project: Path | None

    @property
    def node_name(self) -> str:
        return f"beamtalk_{self.id.replace('-', '_')}@localhost"

    @property
    def cookie_home(self) -> Path:
        """The private HOME the node is started with; holds `.erlang.cookie`."""
        return self.dir / "home"

    @property
    def cookie_file(self) -> Path:
        return self.cookie_home / ".erlang.cookie"

    @property
    def node_info(self) -> Path:
        return self.dir / "node.info"

    @property
    def metadata(self) -> Path:
        return self.dir / "metadata.json"

    @property
    def log(self) -> Path:
        return self.dir / "node.log"

    @property
    def history(self) -> Path:
        return self.dir / "history"

    @property
    def lock(self) -> Path:
        return self.dir / "start.lock"


def resolve(name: str | None = None, cwd: Path | None = None) -> WorkspacePaths:
    """The workspace for an explicit name, or for the project around `cwd`."""
    home = beamtalk_home()
    if name:
        wid = check_name(name)
        return WorkspacePaths(wid, home / "workspaces" / wid, None)
    root = project_root(cwd)
    wid = workspace_id_for(root)
    return WorkspacePaths(wid, home / "workspaces" / wid, root)


def all_workspaces() -> list[WorkspacePaths]:
    base = beamtalk_home() / "workspaces"
    if not base.is_dir():
        return []
    return [WorkspacePaths(d.name, d, None) for d in sorted(base.iterdir()) if d.is_dir()]
