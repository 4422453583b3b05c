"""Plain Erlang nodes (no Beamtalk on them) for the attach tests.

Each has its own cookie in a mode-0600 file, and reads it the way the design
asks (DESIGN D4): `erl` runs with HOME pointing at a private directory that
holds `.erlang.cookie`, so the secret is on no command line.  The node runs
a process of its own, `plain_app_counter`, that answers `{From, bump}` with
its new count: the node's "application" that attaching must not disturb.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

APP = (
    "register(plain_app_counter, spawn(fun() -> "
    "(fun Loop(N) -> receive {From, bump} -> From ! {plain_app_counter, N + 1}, Loop(N + 1) end end)(0) "
    "end))."
)


@dataclass
class PlainNode:
    name: str
    cookie_file: Path
    proc: subprocess.Popen
    home: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def log(self) -> str:
        try:
            return (self.home / "node.log").read_text(errors="replace")
        except OSError:
            return ""


def short_host() -> str:
    return socket.gethostname().split(".")[0]


def start_plain_node(tmp: Path, prefix: str = "plain", cookie: bytes | None = None,
                     extra_args: list[str] | None = None, eval_code: str = APP) -> PlainNode:
    home = tmp / f"{prefix}-home-{uuid.uuid4().hex[:6]}"
    home.mkdir(parents=True)
    os.chmod(home, 0o700)
    cookie = cookie or secrets.token_hex(20).encode()
    cookie_in_home = home / ".erlang.cookie"
    cookie_in_home.write_bytes(cookie)
    os.chmod(cookie_in_home, 0o400)
    cookie_file = tmp / f"{prefix}-{uuid.uuid4().hex[:6]}.cookie"
    fd = os.open(cookie_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, cookie)
    os.close(fd)
    alive = f"{prefix}_{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, HOME=str(home), ERL_EPMD_ADDRESS="127.0.0.1")
    log = open(home / "node.log", "wb")
    proc = subprocess.Popen(
        [shutil.which("erl"), "-noinput", "-sname", alive,
         "-kernel", "inet_dist_use_interface", "{127,0,0,1}", *(extra_args or []),
         "-eval", eval_code],
        env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    log.close()
    node = PlainNode(f"{alive}@{short_host()}", cookie_file, proc, home)
    asyncio.run(_wait_up(node))
    return node


async def _wait_up(node: PlainNode, timeout: float = 30.0) -> None:
    from beamtalk_ws.dist import rpc
    from beamtalk_ws.dist.errors import DistError
    from beamtalk_ws.dist.node import Node
    from beamtalk_ws.dist.terms import Atom

    deadline = time.monotonic() + timeout
    while True:
        try:
            n = await Node.connect(node.name, node.cookie_file.read_bytes())
            try:
                if await rpc.call(n, "erlang", "whereis", [Atom("plain_app_counter")]) != Atom("undefined"):
                    return
            finally:
                await n.close()
        except (DistError, OSError):
            pass
        if node.proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("plain node did not start:\n" + node.log())
        await asyncio.sleep(0.1)


async def probe(node: PlainNode) -> dict:
    """What a check of the node's health looks at (asked over distribution)."""
    from beamtalk_ws.dist import rpc
    from beamtalk_ws.dist.node import Node
    from beamtalk_ws.dist.terms import Atom

    n = await Node.connect(node.name, node.cookie_file.read_bytes())
    try:
        call = lambda m, f, *a: rpc.call(n, m, f, list(a))  # noqa: E731
        mb = n.mailbox()
        mb.send(Atom("plain_app_counter"), (mb.pid, Atom("bump")))
        bumped = await mb.receive(10)
        loaded = [str(m) for m, _ in await call("code", "all_loaded")]
        return {
            "node": str(await call("erlang", "node")),
            "app_pid": await call("erlang", "whereis", Atom("plain_app_counter")),
            "app_count": bumped[1],
            "registered": sorted(str(r) for r in await call("erlang", "registered")),
            "applications": sorted(str(a[0]) for a in await call("application", "which_applications")),
            "kernel_children": sorted(str(c[0]) for c in await call("supervisor", "which_children",
                                                                      Atom("kernel_sup"))),
            "beamtalk_modules": sorted(m for m in loaded if m.startswith(("beamtalk_", "bt@")) or m == "beamtalk"),
            "persistent_terms": (await call("persistent_term", "info"))[Atom("count")],
            "logger_filters": [str(f[0]) for f in (await call("logger", "get_primary_config"))[Atom("filters")]],
        }
    finally:
        await n.close()
