"""Reaching a session: find the workspace, start it if needed, connect.

A dead or unreachable workspace is reported in words a user can act on, and
starting one is offered (asked interactively, done automatically for tools).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Callable

from beamtalk_ws.workspace import launcher
from beamtalk_ws.workspace.client import WorkspaceClient
from beamtalk_ws.workspace.errors import WorkspaceError, WorkspaceNotRunning
from beamtalk_ws.workspace.paths import WorkspacePaths



def idle_timeout_from(args) -> int | None:
    if getattr(args, "persistent", False):
        return None
    if getattr(args, "timeout", None) is not None:
        return int(args.timeout)
    env = os.environ.get("BEAMTALK_WORKSPACE_TIMEOUT")
    if env and env.isdigit():
        return int(env)
    return launcher.DEFAULT_IDLE_TIMEOUT


def note_shared_session(client: WorkspaceClient, session: str, say: Callable[[str], None]) -> None:
    """Tell the user when others already work in this session (on a workspace or an attached node)."""
    if client.other_clients:
        n = client.other_clients
        say(f"Note: {n} other client{'s are' if n > 1 else ' is'} attached to session '{session}'; "
            f"you share its bindings and its evaluator.")


async def open_client(
    ws: WorkspacePaths,
    session: str,
    *,
    start: str = "auto",                 # auto | ask | never
    idle_timeout: int | None = launcher.DEFAULT_IDLE_TIMEOUT,
    say: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
    ask: Callable[[str], bool] | None = None,
    note_shared: bool = True,            # False for a command whose session is not the user's
) -> WorkspaceClient:
    info = launcher.running_info(ws)
    if info is None:
        previous = launcher.read_node_info(ws)
        if previous is not None:
            why = launcher.stop_reason(ws, previous.os_pid)
            say(f"Workspace '{ws.id}' is not running: its node {previous.node} "
                f"(OS pid {previous.os_pid}) " + (f"was stopped ({why})." if why else "has exited."))
        if start == "never":
            raise WorkspaceNotRunning(
                f"Workspace '{ws.id}' is not running. Start it with `beamtalk workspace start"
                + (f" {ws.id}`." if ws.project is None else "`.")
            )
        if start == "ask" and previous is not None and ask is not None:
            if not ask("Start a new workspace node? [Y/n] "):
                raise WorkspaceNotRunning(f"Workspace '{ws.id}' is not running.")
        say(f"Starting workspace '{ws.id}' ({ws.node_name})...")
        loop = asyncio.get_running_loop()
        started, _ = await loop.run_in_executor(None, lambda: launcher.start(ws, idle_timeout=idle_timeout))
        if started.restored:
            # What the store brought back (and what it could not), as
            # `workspace start` says it: the user is not left to guess.
            say(started.restored)
    try:
        client = await WorkspaceClient.connect(ws, session)
        client.started_node = info is None
        if note_shared:
            note_shared_session(client, session, say)
        return client
    except WorkspaceNotRunning as e:
        raise WorkspaceError(
            f"Workspace '{ws.id}' is unreachable: {e} If its node is hung, stop it with "
            f"`beamtalk workspace stop {ws.id}` and start the REPL again."
        ) from None
