"""Several clients on one workspace at once (outsider check): what one does
must not hang, break or leak into what another does at the same moment."""

from __future__ import annotations

import asyncio
import uuid

from helpers import ok, session


async def _two(workspace):
    tag = uuid.uuid4().hex[:8]
    (ca, a), (cb, b) = await session(workspace, "la" + tag), await session(workspace, "lb" + tag)
    return ca, cb, a, b


async def test_two_clients_loading_the_same_file_at_once_both_load_it(workspace, tmp_path):
    # Both used to load the module at the same moment: the first race hung one
    # of them for the 30 s request timeout ("Request timed out"), later ones
    # failed with "Cannot load bt@…: not_purged".
    ca, cb, a, b = await _two(workspace)
    name = "Twice" + uuid.uuid4().hex[:6]
    path = tmp_path / "twice.bt"
    try:
        for i in range(6):
            path.write_text(f"Object subclass: {name}\n  state: x = {i}\n  m{i} => {i}\n")
            ra, rb = await asyncio.wait_for(
                asyncio.gather(a.evaluate(f":load {path}"), b.evaluate(f":load {path}")), 25)
            assert (ra.ok, ra.text) == (True, f"Loaded: {name}"), i
            assert (rb.ok, rb.text) == (True, f"Loaded: {name}"), i
            assert await ok(a, f"{name} new m{i}") == str(i)
    finally:
        await ca.close()
        await cb.close()


async def test_two_clients_reloading_one_package_at_once_both_answer(workspace, tmp_path):
    # Two REPLs opened in a package at the same moment each build it and load
    # its classes: one of them waited 30 s and then said "Request timed out".
    from beamtalk_ws.package import manifest, scaffold

    ca, cb, a, b = await _two(workspace)
    app = "race_" + uuid.uuid4().hex[:6]
    root = scaffold.new(app, tmp_path)
    src = root / "src" / "race_tally.bt"
    cls = "RaceTally" + uuid.uuid4().hex[:6]
    try:
        a.package = b.package = manifest.load(root)
        for i in range(3):
            src.write_text(f"Actor subclass: {cls}\n  state: n = {i}\n  n => self.n\n")
            ra, rb = await asyncio.wait_for(asyncio.gather(a.evaluate(":reload"), b.evaluate(":reload")), 25)
            assert ra.ok and rb.ok, (i, ra.text, rb.text)
            assert await ok(b, f"{cls} spawn n") == str(i)
    finally:
        await ca.close()
        await cb.close()
