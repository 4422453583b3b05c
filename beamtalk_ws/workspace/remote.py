"""Attaching to a BEAM node beamtalk did not start (`beamtalk repl --node`).

The node may be any Erlang or Elixir system with no Beamtalk on it.  Over
Erlang distribution (and its `rex` server, for bootstrapping only) we load
the runtime and the compiled stdlib as binaries, start them under a
supervisor of their own (`beamtalk_attach`, erl_support/beamtalk_attach.erl)
and then talk to the workspace server there as with any workspace.

Why binaries and not a code path: nothing is written to the target's disk,
and the target need not share a file system with us (another host).  Why a
version stamp: a second attach reuses what is loaded only when it is exactly
this beamtalk's runtime and stdlib; another one is refused (or replaced with
`--upgrade`), never silently mixed.
"""

from __future__ import annotations

import socket
import stat
from dataclasses import dataclass, field
from pathlib import Path

from beamtalk_ws import __version__
from beamtalk_ws.dist import errors as dist_errors
from beamtalk_ws.dist import rpc
from beamtalk_ws.dist.node import Node
from beamtalk_ws.dist.terms import Atom, ExportFun

from . import erlbuild, stdlibbuild
from .client import WorkspaceClient
from .errors import CookieError, WorkspaceError
from .paths import beamtalk_home, private_dir

LOAD_TIMEOUT = 60.0
#: The cookie file `--node` uses when none is given (Erlang's own default).
DEFAULT_COOKIE = "~/.erlang.cookie"


@dataclass(frozen=True)
class Target:
    """Where to attach: the node's name, its cookie file, how to reach its host."""

    node: str
    cookie_file: Path
    address: str | None = None          # None: resolved from the node name's host part
    tls: object | None = None           # dist.tls.ClientTLS, for a node that runs TLS distribution
    port: int | None = None             # the node's distribution port, skipping epmd
    cookie: bytes | None = None         # from a credentials file (else read from cookie_file)


@dataclass
class RemoteWorkspace:
    """What a client needs of a workspace (its id, node name, history file),
    for a node that is not a workspace of ours."""

    node_name: str
    id: str = ""
    project: None = None
    dir: Path = field(default_factory=Path)

    def __post_init__(self) -> None:
        self.id = self.id or self.node_name
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.node_name)
        self.dir = beamtalk_home() / "attached" / safe

    @property
    def history(self) -> Path:
        private_dir(self.dir)       # 0700 and ours, like every directory under the home
        return self.dir / "history"

    def server_gone_text(self, bindings: list[str]) -> str:
        """The node is there but Beamtalk's server is not (`--unload` from elsewhere)."""
        held = f"this session's bindings ({', '.join(bindings)}), " if bindings else ""
        return (f"Beamtalk no longer runs on {self.node_name} (it was removed with `--unload`, or its "
                f"workspace server stopped): {held}the actors and the classes it had there are gone. "
                f"Attach again to load it anew.")

    def lost_text(self, bindings: list[str]) -> str:
        held = f"this session's bindings ({', '.join(bindings)}), " if bindings else ""
        return (f"Node {self.node_name} went away: {held}the actors and the classes Beamtalk had "
                f"there are gone with it. Attach again once the node is back.")


def version() -> str:
    """This beamtalk's runtime-and-stdlib stamp (what a node must run to be reused)."""
    ebin = erlbuild.ensure_built()
    stdlib = stdlibbuild.ensure_built(ebin)
    return f"{__version__}+{ebin.name}.{stdlib.name if stdlib else 'nostdlib'}"


def read_cookie(path: Path) -> bytes:
    """The cookie of a foreign node: a private file (mode 0600 or stricter)."""
    path = Path(path).expanduser()
    try:
        st = path.stat()
    except FileNotFoundError:
        raise CookieError(f"No cookie file at {path}.") from None
    except OSError as e:
        raise CookieError(f"Cannot read cookie file {path}: {e.strerror}.") from None
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CookieError(
            f"Refusing to use cookie file {path}: it is accessible by other users "
            f"(mode {stat.S_IMODE(st.st_mode):04o}). Run `chmod 600 {path}`."
        )
    try:
        value = path.read_bytes().strip()
    except OSError as e:
        raise CookieError(f"Cannot read cookie file {path}: {e.strerror}.") from None
    if not value:
        raise CookieError(f"Cookie file {path} is empty.")
    return value


def _local_names() -> set[str]:
    names = {"localhost", "127.0.0.1"}
    try:
        host = socket.gethostname()
        names |= {host, host.split(".")[0], socket.getfqdn()}
    except OSError:
        pass
    return names


def resolve_address(node: str) -> str:
    """The address of a node's host: loopback for this machine's own names (a
    node of this host listens there when told to, DESIGN D4), else DNS."""
    if "@" not in node:
        raise WorkspaceError(f"A node name looks like name@host, not '{node}'.")
    host = node.split("@", 1)[1]
    if host in _local_names():
        return "127.0.0.1"
    try:
        return socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][4][0]
    except OSError:
        raise WorkspaceError(f"Cannot resolve the host '{host}' of node {node}. "
                             f"Hint: give its address with --address.") from None


async def connect_node(target: Target, timeout: float = 10.0) -> Node:
    """Connect to the target as a hidden node; every failure is one clear sentence."""
    cookie = target.cookie or read_cookie(target.cookie_file)
    address = target.address or resolve_address(target.node)
    try:
        return await Node.connect(target.node, cookie, host=address, timeout=timeout,
                                  **_transport(target))
    except dist_errors.EpmdUnreachable:
        raise WorkspaceError(f"Cannot reach node {target.node}: nothing answers on epmd's port at "
                             f"{address} (no Erlang node runs there, or a firewall is in the way).") from None
    except dist_errors.NodeNotRegistered:
        alive = target.node.split("@", 1)[0]
        raise WorkspaceError(f"No node named '{alive}' is running on {address} "
                             f"(epmd there does not know it).") from None
    except dist_errors.AuthenticationFailed:
        raise WorkspaceError(f"Node {target.node} refused the cookie in {target.cookie_file}: "
                             f"it is not that node's cookie.") from None
    except dist_errors.TLSRefused as e:
        if "CERTIFICATE_VERIFY_FAILED" in str(e):     # our side refused the node's certificate
            raise WorkspaceError(
                f"The certificate of node {target.node} is not signed by the CA in {target.cookie_file} "
                f"(or does not name {target.node.split('@', 1)[-1]}), so we did not connect: the file was "
                f"exported for another workspace, or the workspace has made new certificates since. "
                f"Export the credentials again (`beamtalk workspace export-credentials`).") from None
        raise WorkspaceError(f"Node {target.node} refused the TLS connection: {e}. Its certificates "
                             f"are not the ones in {target.cookie_file}.") from None
    except dist_errors.DistError as e:
        hint = ("" if target.tls is not None else
                " Hint: a node that runs TLS distribution needs --credentials FILE "
                "(from `beamtalk workspace export-credentials`).")
        raise WorkspaceError(f"Cannot attach to node {target.node}: {e}.{hint}") from None
    except OSError as e:     # TLS alerts after the TLS handshake, resets
        raise WorkspaceError(f"Cannot attach to node {target.node}: the connection failed ({e}).") from None


def _transport(target: Target) -> dict:
    kw: dict = {}
    if target.tls is not None:
        kw["ssl"] = target.tls.context()
        kw["server_hostname"] = target.tls.server_hostname(target.node)
    if target.port is not None:
        kw["port"] = target.port
    return kw


# ---------------------------------------------------------------------------
# what is on the node

async def node_state(node: Node) -> tuple[str, dict | None]:
    """("none" | "attached" | "workspace" | "stale", info) of Beamtalk on the node."""
    try:
        info = await rpc.call(node, "beamtalk_attach", "info", [])
    except rpc.RpcError as e:
        if not e.undefined:
            raise
        info = None
    if isinstance(info, dict):
        return "attached", {str(k): v for k, v in info.items()}
    registered = await rpc.call(node, "erlang", "whereis", [Atom("beamtalk_workspace")])
    if registered != Atom("undefined"):
        return "workspace", None        # a workspace node beamtalk started: just use it
    loaded = await rpc.call(node, "code", "is_loaded", [Atom("beamtalk_bootstrap")])
    return ("stale" if loaded != False else "none"), None  # noqa: E712 - an atom 'false'


def _beams(directory: Path | None) -> list[tuple[str, Path]]:
    if directory is None:
        return []
    return [(p.stem, p) for p in sorted(directory.glob("*.beam"))]


async def load_beamtalk(node: Node, stamp: str, say) -> dict:
    """Load the runtime and the stdlib into the node and start them."""
    ebin = erlbuild.ensure_built()
    stdlib = stdlibbuild.ensure_built(ebin)
    runtime, std = _beams(ebin), _beams(stdlib)
    say(f"Loading Beamtalk into {node.remote} ({len(runtime)} runtime and {len(std)} stdlib modules)...")
    batch = [(Atom(m), list(f"beamtalk_attach/{p.name}".encode()), p.read_bytes()) for m, p in runtime + std]
    # beamtalk_attach first; it loads the rest in one atomic step and keeps
    # the binaries for the nodes of the node's cluster (beamtalk_cluster).
    first = next(b for b in batch if b[0] == Atom("beamtalk_attach"))
    done = await rpc.call(node, "code", "load_binary", list(first), timeout=LOAD_TIMEOUT)
    if not (isinstance(done, tuple) and done[0] == Atom("module")):
        raise WorkspaceError(f"Node {node.remote} did not load the Beamtalk runtime: {_short(done)}")
    cwd = await rpc.call(node, "file", "get_cwd", [])
    opts = {Atom("version"): stamp.encode(),
            Atom("stdlib"): [Atom(m) for m, _ in std],
            Atom("workspace"): {Atom("id"): str(node.remote).encode(), Atom("dir"): _bytes(cwd, b".")}}
    started = await rpc.call(node, "beamtalk_attach", "install", [batch, opts], timeout=LOAD_TIMEOUT)
    if not (isinstance(started, tuple) and started[0] == Atom("ok")):
        why = (_text(started[1]) if isinstance(started, tuple) and len(started) == 2
               and started[0] == Atom("error") and isinstance(started[1], (bytes, bytearray)) else _short(started))
        raise WorkspaceError(f"Beamtalk did not start on node {node.remote}: {why}")
    return {str(k): v for k, v in started[1].items()}


def _bytes(cwd, default: bytes) -> bytes:
    if isinstance(cwd, tuple) and len(cwd) == 2:
        v = cwd[1]
        if isinstance(v, (bytes, bytearray)):
            return bytes(v)
        if isinstance(v, str):
            return v.encode()
        if isinstance(v, list) and all(isinstance(c, int) for c in v):
            return "".join(map(chr, v)).encode()
    return default


def _short(term) -> str:
    from beamtalk_ws.dist.terms import erl_repr

    text = erl_repr(term)
    return text if len(text) < 300 else text[:300] + "..."


async def unload(node: Node) -> int:
    """Remove everything Beamtalk added to the node; answers how many modules went."""
    result = await rpc.call(node, "beamtalk_attach", "unload", [], timeout=LOAD_TIMEOUT)
    modules = list(result[1]) if isinstance(result, tuple) and len(result) == 2 else []
    # Purged from a process that runs no Beamtalk code (the rex worker).
    purged = await rpc.call(node, "lists", "map", [ExportFun(Atom("code"), Atom("soft_purge"), 1), modules])
    stuck = [str(m) for m, ok in zip(modules, purged) if ok is not True]
    if stuck:
        raise WorkspaceError(f"Unloaded Beamtalk from {node.remote}, but {len(stuck)} modules are still "
                             f"used by processes of the node and stay as old code: {', '.join(stuck[:8])}")
    return len(modules)


def detach_command(target: Target | None, node) -> str:
    """The `beamtalk detach … --unload` command for this node, as the user can
    run it: with the cookie file (or credentials) they attached with."""
    how = ""
    if target is not None and target.cookie is not None:
        how = f" --credentials {target.cookie_file}"
    elif target is not None and Path(target.cookie_file) != Path(DEFAULT_COOKIE).expanduser():
        how = f" --cookie-file {target.cookie_file}"
    return f"beamtalk detach --node {node}{how} --unload"


async def ensure_beamtalk(node: Node, *, upgrade: bool, say, target: Target | None = None) -> str:
    """Make Beamtalk run on the node (load, reuse or upgrade); answers a note for the user."""
    stamp = version()
    state, info = await node_state(node)
    if state == "workspace":
        return f"Node {node.remote} is a Beamtalk workspace node; attached to its workspace."
    if state == "attached" and info is not None:
        running = _text(info.get("version"))
        if running == "cluster" and info.get("workspace") is not True and not upgrade:
            raise WorkspaceError(await _cluster_member_text(node))
        if running == stamp and info.get("workspace") is True:
            return f"Beamtalk {running} is already loaded on {node.remote}: reusing it ({info.get('classes', 0)} classes of yours)."
        if running != stamp and not upgrade:
            raise WorkspaceError(
                f"Node {node.remote} runs another Beamtalk ({running}; this beamtalk is {stamp}). "
                f"Hint: `--upgrade` replaces it (its actors, classes and bindings are lost), or detach "
                f"with `{detach_command(target, node.remote)}` first.")
        say(f"Replacing Beamtalk {running} on {node.remote}...")
        await unload(node)
    elif state == "stale":
        # Modules without a running Beamtalk (an attach that died half way): start clean.
        await unload(node)
    await load_beamtalk(node, stamp, say)
    return f"Loaded Beamtalk {stamp} into {node.remote} (under beamtalk_attach_sup; `:detach` leaves it, `:detach --unload` removes it)."


async def _cluster_member_text(node: Node) -> str:
    """A node Beamtalk reached through another node's cluster (beamtalk_cluster):
    it runs classes and actors for that node, with no workspace server."""
    home = await rpc.call(node, "persistent_term", "get",
                          [(Atom("beamtalk_cluster"), Atom("home")), Atom("none")])
    where = f"{home}'s cluster" if home != Atom("none") else "another node's cluster"
    attach_to = f"Attach to {home} instead" if home != Atom("none") else "Attach to that node instead"
    return (f"Node {node.remote} runs Beamtalk as a member of {where} (its classes and actors are served "
            f"from there; it has no workspace of its own). {attach_to} (`spawnOn: #'{node.remote}'` starts "
            f"actors here), or add --upgrade to give it a Beamtalk of its own (the actors the cluster runs "
            f"on it are lost).")


def _text(v) -> str:
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).decode("utf-8", "replace")
    return str(v)


async def attach(target: Target, session: str = "default", *, upgrade: bool = False,
                 say=lambda s: None) -> WorkspaceClient:
    """A client on `session` of the node, with Beamtalk loaded there if needed."""
    node = await connect_node(target)
    try:
        note = await ensure_beamtalk(node, upgrade=upgrade, say=say, target=target)
        ws = RemoteWorkspace(str(node.remote))
        client = await WorkspaceClient.on_node(node, ws, session)
    except rpc.RpcError as e:
        await node.close()
        raise WorkspaceError(f"Cannot attach to node {target.node}: {e}") from None
    except BaseException:
        await node.close()
        raise
    client.attach_note = note
    client.remote_target = target
    return client


async def detach(target: Target, *, unload_all: bool) -> str:
    """`beamtalk detach`: with `unload_all`, remove Beamtalk from the node."""
    node = await connect_node(target)
    try:
        state, _ = await node_state(node)
        if state == "workspace":
            raise WorkspaceError(f"Node {node.remote} is a Beamtalk workspace node; "
                                 f"stop it with `beamtalk workspace stop`.")
        if not unload_all:
            return (f"Nothing to do: a REPL detaches from {node.remote} when it quits; Beamtalk "
                    + ("stays loaded there. `--unload` removes it." if state != "none" else "is not loaded there."))
        if state == "none":
            return f"Beamtalk is not loaded on {node.remote}."
        n = await unload(node)
        return f"Removed Beamtalk from {node.remote} ({n} modules unloaded; its processes and tables are gone)."
    except rpc.RpcError as e:
        raise WorkspaceError(f"Cannot detach from node {target.node}: {e}") from None
    finally:
        await node.close()


__all__ = ["Target", "RemoteWorkspace", "attach", "detach", "unload", "version", "read_cookie",
           "resolve_address", "connect_node", "ensure_beamtalk", "node_state", "detach_command",
           "DEFAULT_COOKIE"]
