"""The command-line side of attaching to foreign nodes: `beamtalk repl --node`,
`beamtalk detach`, and the REPL's `:detach`.

Kept apart from cli.py so that file only gains flags and two calls.
"""

from __future__ import annotations

import sys
from pathlib import Path

from beamtalk_ws.workspace import remote
from beamtalk_ws.workspace.errors import WorkspaceError

from .core import Outcome

DEFAULT_COOKIE = remote.DEFAULT_COOKIE


def add_target_opts(p, *, required: bool) -> None:
    """`--node`, `--cookie-file`, `--address`, `--credentials` for a parser."""
    p.add_argument("--node", metavar="NAME@HOST", required=required,
                   help="attach to this running BEAM node (Beamtalk is loaded into it over distribution)")
    p.add_argument("--cookie-file", metavar="FILE",
                   help=f"the node's cookie, a file of mode 0600 (default {DEFAULT_COOKIE})")
    p.add_argument("--address", metavar="ADDR", help="reach the node's host at ADDR (default: its name's host)")
    p.add_argument("--credentials", metavar="FILE",
                   help="TLS credentials from `beamtalk workspace export-credentials` (cookie, certificates)")


def target_from(args) -> remote.Target:
    creds = getattr(args, "credentials", None)
    if creds:
        from beamtalk_ws.workspace import credentials

        bundle = credentials.load(Path(creds).expanduser())
        return remote.Target(args.node or bundle.node, bundle.path, args.address or bundle.address,
                             bundle.tls, bundle.port, bundle.cookie)
    if not args.node:
        raise WorkspaceError("--node NAME@HOST is needed (or --credentials FILE).")
    return remote.Target(args.node, Path(args.cookie_file or DEFAULT_COOKIE).expanduser(), args.address)


async def open_remote_client(args, say=lambda s: print(s, file=sys.stderr)):
    """`beamtalk repl --node`: connect, load Beamtalk if needed, attach a session."""
    client = await remote.attach(target_from(args), args.session, upgrade=args.upgrade, say=say)
    say(client.attach_note)
    from .attach import note_shared_session

    note_shared_session(client, args.session, say)
    return client


async def cmd_detach(args) -> int:
    print(await remote.detach(target_from(args), unload_all=args.unload))
    return 0


async def detach_command(repl, arg: str) -> Outcome:
    """`:detach [--unload]`: leave an attached node (and remove Beamtalk from it)."""
    client = repl.client
    if not isinstance(client.ws, remote.RemoteWorkspace):
        return Outcome(False, ":detach is for a node attached with `beamtalk repl --node`; "
                              "a workspace is left with :quit (it keeps running).", kind="command")
    if arg not in ("", "--unload"):
        return Outcome(False, "Usage: :detach [--unload]", kind="command")
    node = client.ws.node_name
    if arg == "--unload":
        state, _ = await remote.node_state(client.node)
        if state == "workspace":
            # Its runtime is the workspace's own: unloading it would leave the
            # node running without its workspace server (`beamtalk detach` refuses too).
            return Outcome(False, f"Node {node} is a Beamtalk workspace node: `:detach --unload` would remove "
                                  f"its workspace. Leave it with :detach (it keeps running); stop it with "
                                  f"`beamtalk workspace stop`.", kind="command")
        n = await remote.unload(client.node)
        return Outcome(True, f"Removed Beamtalk from {node} ({n} modules unloaded). Detached.", quit=True)
    return Outcome(True, f"Detached from {node}; Beamtalk stays loaded there (its actors and classes run on; "
                         f"`{remote.detach_command(getattr(client, 'remote_target', None), node)}` removes it).",
                   quit=True)
