"""Starting and stopping workspace nodes.

The node runs detached (its own session, stdin closed, output to
`node.log`), so closing or killing the REPL never touches it.  It listens for
distribution on 127.0.0.1 only and the epmd it starts does too (DESIGN D4).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import cookie, erlbuild, stdlibbuild, tlsfiles
from .errors import WorkspaceError
from .paths import WorkspacePaths, open_private, private_dir

DEFAULT_IDLE_TIMEOUT = 4 * 3600
START_TIMEOUT = 30.0


@dataclass(frozen=True)
class NodeInfo:
    node: str
    os_pid: int
    started: int
    restored: str = ""   # what the node brought back from its store (beamtalk_restore)


def read_node_info(ws: WorkspacePaths) -> NodeInfo | None:
    try:
        data = json.loads(ws.node_info.read_text())
        return NodeInfo(data["node"], int(data["os_pid"]), int(data["started"]),
                        str(data.get("restored", "")))
    except (OSError, ValueError, KeyError):
        return None


def stop_reason(ws: WorkspacePaths, os_pid: int) -> str | None:
    """Why the node with this OS pid stopped, if it was asked to (it writes
    `node.stopped` on its way out: `beamtalk workspace stop`, idle timeout)."""
    try:
        pid, _, why = (ws.dir / "node.stopped").read_text().strip().partition(" ")
    except OSError:
        return None
    return why if pid == str(os_pid) and why else None


def _pid_is_node(pid: int, node_name: str) -> bool:
    """True if `pid` is alive and is the BEAM of this workspace (not a reused pid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True
    return node_name.encode() in cmdline


def running_info(ws: WorkspacePaths) -> NodeInfo | None:
    """NodeInfo if this workspace's node is alive, else None."""
    info = read_node_info(ws)
    if info is None or not _pid_is_node(info.os_pid, ws.node_name):
        return None
    return info


@contextlib.contextmanager
def _start_lock(ws: WorkspacePaths):
    private_dir(ws.dir)
    with open_private(ws.lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def node_argv(ws: WorkspacePaths, ebin: Path, idle_timeout: int | None,
              stdlib_ebin: Path | None = None) -> list[str]:
    idle = "infinity" if not idle_timeout else str(int(idle_timeout))
    extra = ["-beamtalk_stdlib", str(stdlib_ebin)] if stdlib_ebin is not None else []
    heap = max_heap_mb()
    if heap is not None:
        extra += ["-beamtalk_max_heap_mb", str(heap)]
    return [
        erlbuild.find_executable("erl"),
        "-noinput",
        "-sname", ws.node_name,
        "-kernel", "inet_dist_use_interface", tlsfiles.dist_interface(ws),
        *(tlsfiles.node_args(ws) or plain_dist_args()),
        "-pa", str(ebin),
        "-beamtalk_workspace", ws.id,
        "-beamtalk_dir", str(ws.dir),
        "-beamtalk_idle", idle,
        *extra,
        *peer_args(),
        "-s", "beamtalk_boot", "start",
    ]


def plain_dist_args() -> list[str]:
    """A plain workspace's carrier (`erl_support/beamtalk_tcp_dist.erl`): TCP
    that admits only the node's own OS user, found through /proc/net/tcp, so
    other local users cannot reach the handshake (which costs an atom per
    fresh name).  Off Linux there is no /proc to ask: OTP's own TCP carrier."""
    if not Path("/proc/net/tcp").exists():
        return []
    return ["-proto_dist", "beamtalk_tcp"]


def peer_args() -> list[str]:
    """How the node runs its compiler peer (DESIGN D11): this Python, with
    this package importable."""
    import sys

    return ["-beamtalk_python", sys.executable,
            "-beamtalk_pythonpath", str(Path(__file__).resolve().parents[2])]


def max_heap_mb() -> int | None:
    """The per-evaluation memory limit asked for in `BEAMTALK_MAX_HEAP_MB`
    (0: none); None leaves the node's default, a quarter of the machine's memory."""
    text = os.environ.get("BEAMTALK_MAX_HEAP_MB", "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise WorkspaceError(f"BEAMTALK_MAX_HEAP_MB must be a whole number of megabytes (0 for no limit), "
                             f"not {text!r}.")
    return int(text)


def node_env(ws: WorkspacePaths) -> dict[str, str]:
    env = dict(os.environ)
    # The node holds the cookie as an atom: a crash dump would write it out
    # (its atom table and the auth server's state), so the node writes none.
    env["ERL_CRASH_DUMP_BYTES"] = "0"
    env["BEAMTALK_USER_HOME"] = env.get("HOME", str(Path.home()))
    env["HOME"] = str(ws.cookie_home)
    env["ERL_EPMD_ADDRESS"] = "127.0.0.1"
    env["BEAMTALK_WORKSPACE"] = ws.id
    return env


def node_cwd(ws: WorkspacePaths, cwd: Path | None = None) -> Path:
    """The directory the node runs in, where `File readAll: "data/x.txt"` starts.

    A project's workspace runs in the project root; a named one (`--workspace
    NAME`, `beamtalk test`'s throw-away one) in the directory it was started
    from, so relative paths mean what they mean in the shell that typed them.
    Its state directory is only the fallback when that directory is gone.
    """
    if ws.project is not None:
        return ws.project
    if cwd is not None:
        return cwd
    try:
        return Path.cwd()
    except OSError:  # the shell's directory was removed
        return ws.dir


def start(ws: WorkspacePaths, *, idle_timeout: int | None = DEFAULT_IDLE_TIMEOUT,
          cwd: Path | None = None) -> tuple[NodeInfo, bool]:
    """Start the workspace node unless it runs; answer (info, started_now).

    `cwd` is the directory a named workspace's node runs in (default: the
    current one); see `node_cwd`."""
    with _start_lock(ws):
        info = running_info(ws)
        if info is not None:
            return info, False
        os.chmod(ws.dir, 0o700)
        cookie.create(ws.cookie_file)
        ebin = erlbuild.ensure_built()
        stdlib_ebin = stdlibbuild.ensure_built(ebin)
        with contextlib.suppress(FileNotFoundError):
            ws.node_info.unlink()
        if ws.project is not None and not ws.metadata.exists():
            with open_private(ws.metadata, "w") as f:
                f.write(json.dumps({"project": str(ws.project), "created": int(time.time())}) + "\n")
        log = open_private(ws.log, "ab")
        try:
            proc = subprocess.Popen(
                node_argv(ws, ebin, idle_timeout, stdlib_ebin),
                env=node_env(ws),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
                cwd=str(node_cwd(ws, cwd)),
            )
        finally:
            log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            info = read_node_info(ws)
            if info is not None:
                return info, True
            if proc.poll() is not None:
                if "seems to be in use" in _log_tail(ws):
                    raise WorkspaceError(
                        f"Cannot start workspace '{ws.id}': another Erlang node already uses the name "
                        f"{ws.node_name} (a workspace of another BEAMTALK_HOME?). Stop that node, or pick "
                        f"another name with --workspace."
                    )
                raise WorkspaceError(
                    f"The workspace node exited during start-up (status {proc.returncode}).\n"
                    + _log_tail(ws)
                )
            time.sleep(0.01)
        proc.kill()
        raise WorkspaceError(f"The workspace node did not start within {START_TIMEOUT:.0f} s.\n" + _log_tail(ws))


def _log_tail(ws: WorkspacePaths, lines: int = 8) -> str:
    try:
        text = ws.log.read_text(errors="replace").strip().splitlines()[-lines:]
    except OSError:
        return ""
    return "Last lines of " + str(ws.log) + ":\n  " + "\n  ".join(text)


def kill(ws: WorkspacePaths, timeout: float = 5.0) -> bool:
    """Stop the node by signal (used when it cannot be reached). True if it was running."""
    info = running_info(ws)
    if info is None:
        return False
    os.kill(info.os_pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _pid_is_node(info.os_pid, ws.node_name):
        time.sleep(0.05)
    if _pid_is_node(info.os_pid, ws.node_name):
        os.kill(info.os_pid, signal.SIGKILL)
    return True


def wait_stopped(ws: WorkspacePaths, timeout: float = 10.0) -> bool:
    info = read_node_info(ws)
    if info is None:
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_is_node(info.os_pid, ws.node_name):
            return True
        time.sleep(0.05)
    return False


def store_dir(ws: WorkspacePaths) -> Path:
    """Where the node keeps its durable state (Mnesia, see beamtalk_store.erl)."""
    return ws.dir / "store"


def store_size(ws: WorkspacePaths) -> int:
    """Bytes the store takes on disk (0 when there is none)."""
    d = store_dir(ws)
    if not d.is_dir():
        return 0
    return sum(p.stat().st_size for p in d.rglob("*") if p.is_file())


def reset_store(ws: WorkspacePaths) -> bool:
    """Drop the durable state of a stopped workspace. True if there was one."""
    import shutil

    if running_info(ws) is not None:
        raise WorkspaceError(f"Workspace '{ws.id}' is running; stop it first (reset does so itself).")
    d = store_dir(ws)
    if not d.exists():
        return False
    shutil.rmtree(d)
    return True
