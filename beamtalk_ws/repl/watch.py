"""Reload on save: watch `.bt` files and hot-reload what changed (`:watch`, `beamtalk watch`).

Polling, not inotify: a stat of each `.bt` file every quarter second costs
microseconds for a package's worth of files, works on every file system
(network mounts, containers, editors that replace files by renaming), and
needs no dependency.  A change is acted on once the files have stopped
changing for one interval, so an editor's save-in-several-writes, or a
`git checkout` of many files, is one reload.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable

INTERVAL = 0.25


def snapshot(roots: list[Path]) -> dict:
    """{file: (mtime_ns, size)} of the `.bt` files (and manifests) under `roots`."""
    state = {}
    for root in roots:
        if root.is_file():
            files = [root]
        elif root.is_dir():
            files = [p for p in root.rglob("*.bt")
                     if not any(part.startswith(".") for part in p.relative_to(root).parts)]
        else:
            files = []
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue
            state[f] = (st.st_mtime_ns, st.st_size)
    return state


async def changes(roots: list[Path], interval: float = INTERVAL, before: dict | None = None):
    """Yield the set of files added, changed or removed since `before` (default:
    now), once they settle."""
    if before is None:
        before = await asyncio.to_thread(snapshot, roots)
    while True:
        await asyncio.sleep(interval)
        now = await asyncio.to_thread(snapshot, roots)
        if now == before:
            continue
        while True:  # settle
            await asyncio.sleep(interval)
            later = await asyncio.to_thread(snapshot, roots)
            if later == now:
                break
            now = later
        changed = {f for f in set(now) | set(before) if now.get(f) != before.get(f)}
        before = now
        if changed:
            yield changed


class Watcher:
    """A background task that reloads on every settled change and reports the
    outcome through `report(outcome)`."""

    def __init__(self, roots: list[Path], reload: Callable, report: Callable, interval: float = INTERVAL):
        self.roots = roots
        self._reload = reload
        self._report = report
        # taken now, not when the task first runs: a save right after
        # `:watch` answers must count as a change
        before = snapshot(roots)
        self._task = asyncio.ensure_future(self._run(interval, before))

    async def _run(self, interval: float, before: dict) -> None:
        async for _changed in changes(self.roots, interval, before):
            try:
                outcome = await self._reload()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - a lost node ends the watch, reported once
                self._report(None, f"watch stopped: {e}")
                return
            self._report(outcome, None)

    async def wait(self) -> None:
        """Until the watch ends (Ctrl-C, or the node is lost)."""
        try:
            await self._task
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():
                raise  # Ctrl-C: the caller is being cancelled, not just the watch

    def stop(self) -> None:
        self._task.cancel()

    @property
    def running(self) -> bool:
        return not self._task.done()
