"""Telling a tool that its workspace node died, and giving it a new one.

A client that only notices a closed socket would say "connection lost" and
leave the user guessing; the node's own log usually says why it went (the
emulator writes "Cannot allocate ... bytes of memory" before an out-of-memory
exit), so the report quotes its last lines with the node's name and OS pid.
Tools (`--json`) then get a new node, as they do at start (README, "A client
whose workspace node has died...").
"""

from __future__ import annotations


from beamtalk_ws.workspace import launcher
from beamtalk_ws.workspace.paths import WorkspacePaths

LOG_LINES = 8
#: the lines beamtalk_workspace.erl writes when it stops the node itself
_TAIL_BYTES = 64 * 1024


def log_tail(ws: WorkspacePaths, lines: int = LOG_LINES) -> list[str]:
    """The last non-blank lines of the node's log (the rotated one if the current is empty)."""
    for path in (ws.log, ws.log.with_name(ws.log.name + ".1")):
        try:
            with open(path, "rb") as f:
                f.seek(0, 2)
                size = f.tell()
                f.seek(max(0, size - _TAIL_BYTES))
                text = f.read().decode("utf-8", errors="replace")
        except OSError:
            continue
        found = [line.rstrip() for line in text.splitlines() if line.strip()]
        if found:
            return found[-lines:]
    return []


def death_report(ws: WorkspacePaths, info: launcher.NodeInfo | None, during: bool) -> str:
    """Which node died (name, OS pid), when we noticed, and what its log said last."""
    who = f"node {info.node} (OS pid {info.os_pid})" if info else f"node {ws.node_name}"
    stopped = launcher.stop_reason(ws, info.os_pid) if info else None
    if stopped:
        # Asked to stop (from another terminal, its idle timeout): not a death,
        # and its log's shutdown output says nothing worth quoting.
        if during:
            return f"The workspace '{ws.id}' {who} was stopped ({stopped}) while running this request."
        return (f"The workspace '{ws.id}' {who} was stopped since the previous request ({stopped}); "
                f"this request was not run.")
    when = "while running this request" if during else "since the previous request; this request was not run"
    tail = log_tail(ws)
    text = f"The workspace '{ws.id}' {who} has died {when}."
    if tail:
        text += f"\nLast lines of its log ({ws.log}):\n  " + "\n  ".join(tail)
    else:
        text += "\nIts log says nothing about why (killed by a signal?)."
    return text


def ended_text(client, info: launcher.NodeInfo | None, during: bool, error: Exception) -> str:
    """What a REPL at a terminal (or reading a pipe) says when it ends because
    its node went: the same report `--json` gives (stopped by whom, or the
    log's last lines), and how to go on.  Such a REPL does not start a new
    node under the user (someone stopped it on purpose), unlike a tool.
    A node we attached to (not ours to start) keeps its own text."""
    if client.node.is_connected or not isinstance(client.ws, WorkspacePaths):
        return f"Error: {error}"
    return (death_report(client.ws, info, during)
            + "\nThis REPL has ended; `beamtalk repl` starts it again.")


def node_info_of(client) -> launcher.NodeInfo | None:
    """The node a REPL starts on (its OS pid tells a stop of *that* node from a later one's)."""
    return launcher.read_node_info(client.ws) if isinstance(client.ws, WorkspacePaths) else None
