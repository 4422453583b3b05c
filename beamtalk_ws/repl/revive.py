"""Telling a tool that its workspace node died, and giving it a new one.

A client that only notices a closed socket would say "connection lost" and
leave the user guessing; the node's own log usually says why it went (the
emulator writes "Cannot allocate ... bytes of memory" before an out-of-memory
exit), so the report quotes its last lines with the node's name and OS pid.
Tools (`--json`) then get a new node, as they do at start (README, "A client
whose workspace node has died...").
"""

from __future__ import annotations

import re

from beamtalk_ws.workspace import launcher
from beamtalk_ws.workspace.paths import WorkspacePaths

LOG_LINES = 8
#: the lines beamtalk_workspace.erl writes when it stops the node itself
_STOPPED = re.compile(r"^beamtalk workspace \S+: (stopped on request|idle timeout, stopping|its owner has gone, stopping)$")
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


def stopped_on_purpose(ws: WorkspacePaths) -> bool:
    """The node's log ends with its own word that it stopped (`beamtalk
    workspace stop`, its idle timeout, its owner gone): not a crash."""
    tail = log_tail(ws, 1)
    return bool(tail) and bool(_STOPPED.search(tail[-1]))


def death_report(ws: WorkspacePaths, info: launcher.NodeInfo | None, during: bool) -> str:
    """Which node died (name, OS pid), when we noticed, and what its log said last."""
    who = f"node {info.node} (OS pid {info.os_pid})" if info else f"node {ws.node_name}"
    when = "while running this request" if during else "since the previous request; this request was not run"
    tail = log_tail(ws)
    if tail and _STOPPED.search(tail[-1]):
        # The node's own last word: `beamtalk workspace stop`, its idle timeout,
        # or its owner gone; not a crash, so say so instead of "died".
        return f"The workspace '{ws.id}' {who} was stopped {when}.\nIts log says: {tail[-1]}"
    text = f"The workspace '{ws.id}' {who} has died {when}."
    if tail:
        text += f"\nLast lines of its log ({ws.log}):\n  " + "\n  ".join(tail)
    else:
        text += "\nIts log says nothing about why (killed by a signal?)."
    return text
