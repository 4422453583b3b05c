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
