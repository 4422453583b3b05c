"""The node's file watches: OS change notifications (watchfiles: inotify on
Linux), not polling.

Why these numbers: watchfiles hands over a batch once no further change
arrived for STEP_MS, and at the latest after DEBOUNCE_MS of continuous
changes.  An editor's save (write, rename) or a `git checkout` of many files
lands within a millisecond or two, so a 5 ms quiet gap coalesces it into one
batch while a single save reaches the compiler 5-10 ms after the write
(scripts/bench_reload.py).  Only the
changed `.bt` files are compiled (their superclasses come from the node), and
the node's `beamtalk_watch` loads what compiled and reports what did not.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
import traceback
from pathlib import Path

from beamtalk_ws.dist.terms import Atom

STEP_MS = 5
DEBOUNCE_MS = 1600
REGISTRY = Atom("beamtalk_watch")


def _is_source(path: str) -> bool:
    return path.endswith(".bt") and not any(part.startswith(".") for part in Path(path).parts[1:])


class Watches:
    """One watchfiles task over every watched root; replaced when the set changes."""

    def __init__(self, compiler, mailbox):
        self.compiler = compiler
        self.mailbox = mailbox
        self.roots: list[Path] = []
        self._task: asyncio.Task | None = None
        self._ready = asyncio.Event()
        #: file → SHA-256 of the content a flush wrote (already live): a
        #: change event for a file that still has it is not reloaded.
        self.live_hashes: dict[Path, str] = {}

    def set(self, roots: list[str]) -> None:
        wanted = sorted(Path(r) for r in roots)
        if wanted == self.roots and self._task is not None and not self._task.done():
            return
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self.roots = wanted
        self._ready = asyncio.Event()
        if wanted:
            self._task = asyncio.ensure_future(self._run(wanted, self._ready))
        else:
            self._ready.set()

    async def ensure(self, roots: list[str]) -> None:
        """`set`, and return once the OS watches are in place: a save right
        after `Workspace watch:` answers is seen."""
        self.set(roots)
        await asyncio.wait_for(self._ready.wait(), 10)

    def owner(self, f: Path) -> Path | None:
        """The watched root a file belongs to (the innermost one)."""
        best = None
        for r in self.roots:
            if f == r or r in f.parents:
                if best is None or len(r.parts) > len(best.parts):
                    best = r
        return best

    async def _run(self, roots: list[Path], ready: asyncio.Event) -> None:
        from watchfiles import awatch

        # A file is watched through its directory: editors that save by
        # renaming a new file over the old one would end a watch on the file.
        dirs = sorted({r if r.is_dir() else r.parent for r in roots if r.exists()})
        if not dirs:
            ready.set()
            return
        batches = awatch(*dirs, watch_filter=lambda _c, p: _is_source(p),
                         step=STEP_MS, debounce=DEBOUNCE_MS, recursive=True)
        try:
            # awatch sets up its OS watches (and starts collecting changes)
            # when first stepped, before it waits in a thread: run that step,
            # then say the watch is ready.
            first = asyncio.ensure_future(batches.__anext__())
            for _ in range(3):
                await asyncio.sleep(0)
            ready.set()
            changes = await first
            while True:
                await self.reload({Path(p) for _, p in changes})
                changes = await batches.__anext__()
        except asyncio.CancelledError:
            first.cancel()
            raise
        except Exception:  # noqa: BLE001 - reported in the node's log; the watch is retried by a re-watch
            traceback.print_exc(file=sys.stderr)

    def _is_live(self, f: Path) -> bool:
        want = self.live_hashes.get(f.resolve())
        if want is None:
            return False
        try:
            return hashlib.sha256(f.read_bytes()).hexdigest() == want
        except OSError:
            return False

    async def reload(self, changed: set[Path]) -> None:
        """Compile the changed files that still exist, per root, and hand the
        result to the node."""
        by_root: dict[Path, list[Path]] = {}
        for f in sorted(changed):
            root = self.owner(f)
            if root is not None and f.is_file() and not self._is_live(f):
                by_root.setdefault(root, []).append(f)
        for root, files in by_root.items():
            try:
                p = await self.compiler.plan(files)
            except Exception as e:  # noqa: BLE001 - one bad batch, not a dead watch
                traceback.print_exc(file=sys.stderr)
                errors = [(str(f).encode(), f"{f}: internal compiler error: {e}".encode()) for f in files]
                self.mailbox.send(REGISTRY, (Atom("watch_reload"), str(root).encode(), [], errors, []))
                continue
            from .compiling import module_terms

            errors = [(str(f).encode("utf-8"), text.encode("utf-8")) for f, text in p.errors]
            self.mailbox.send(REGISTRY, (Atom("watch_reload"), str(root).encode("utf-8"), module_terms(p),
                                         errors, [w.encode("utf-8") for w in p.warnings]))
