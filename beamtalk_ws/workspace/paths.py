"""Where a workspace lives: project root, workspace id and its state directory.

A workspace belongs to a project, so the same project always reaches the same
live node from any terminal; an explicit name (`--workspace NAME`) overrides
that for throw-away or shared workspaces (DESIGN D4, spec/repl.md §2).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import WorkspaceError

_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_MARKERS = (".beamtalk", "beamtalk.toml")


def beamtalk_home() -> Path:
    """`$BEAMTALK_HOME`, default `~/.beamtalk`."""
    env = os.environ.get("BEAMTALK_HOME")
    return Path(env).expanduser() if env else Path.home() / ".beamtalk"


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
