"""Source write-back (issue 14 items 3 and 4): in a package, classes changed
at the REPL are pending changes of their `src/` files; `Workspace flush`
writes them keeping every other byte of the file, refuses a file changed on
disk, `revert:` drops one, they survive a restart, and a watch does not
reload what a flush wrote.  Real nodes, a package made by `beamtalk new`.
"""

from __future__ import annotations

import asyncio
import difflib
import uuid
from pathlib import Path

import pytest

from beamtalk_ws.workspace import launcher, paths

from conftest import run_beamtalk
from helpers import session, shown as run, shown_without

COUNTER = """\
// The counter of this package.

/// Counts.
Actor subclass: Counter
  state: n = 0

  /// One more.
  bump => self.n := self.n + 1

  // what it holds
  count => self.n

  class zero => 0
"""


@pytest.fixture
def pkg(bt_home, tmp_path):
    r = run_beamtalk(["new", "wb_app"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    root = tmp_path / "wb_app"
    (root / "src" / "counter.bt").write_text(COUNTER)
    ws = paths.resolve("wb-" + uuid.uuid4().hex[:8])
    launcher.start(ws, idle_timeout=None, cwd=root)
    try:
        yield root, ws
    finally:
        launcher.kill(ws)


async def ok(repl, code) -> str:
    return await shown_without(repl, code, "ERROR", "rror:", "hint:")


async def load_src(repl, root: Path):
    out = await repl.load(str(root / "src"))
    assert out.ok, out.text


async def test_repl_class_with_doc_comment_is_flushed_to_src(pkg):
    root, ws = pkg
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        assert await ok(repl, ":changes") == "No pending changes."
        await ok(repl, "/// A greeter typed at the REPL.\nObject subclass: HelloWorld\n"
                       "  state: who = \"you\"\n  /// Say it.\n  greet => \"hello \" ++ self.who")
        listing = await ok(repl, ":changes")
        assert listing == "1. HelloWorld (class definition) -> src/hello_world.bt", listing
        out = await ok(repl, ":flush")
        assert out == "Wrote src/hello_world.bt (1 change)", out
        text = (root / "src" / "hello_world.bt").read_text()
        assert text == ("/// A greeter typed at the REPL.\nObject subclass: HelloWorld\n"
                        "  state: who = \"you\"\n  /// Say it.\n  greet => \"hello \" ++ self.who\n"), text
        assert await ok(repl, ":changes") == "No pending changes."
        # a method added afterwards goes to the new file
        await ok(repl, 'HelloWorld compile: "shout => self greet ++ ""!"""')
        assert "src/hello_world.bt" in await ok(repl, ":changes")
        await ok(repl, "Workspace flush")
        assert (root / "src" / "hello_world.bt").read_text().endswith(
            '  greet => "hello " ++ self.who\n\n  shout => self greet ++ "!"\n')
    finally:
        await c.close()
    # A clean copy of the package builds and behaves the same in a fresh workspace.
    clean = root.parent / "clean_copy"
    clean.mkdir()
    import shutil

    shutil.copytree(root / "src", clean / "src")
    shutil.copy(root / "beamtalk.toml", clean / "beamtalk.toml")
    r = run_beamtalk(["build"], cwd=clean)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Compiling hello_world.bt" in r.stdout, r.stdout
    fresh = paths.resolve("wb-fresh-" + uuid.uuid4().hex[:8])
    launcher.start(fresh, idle_timeout=None, cwd=clean)
    try:
        c2, repl2 = await session(fresh)
        try:
            await load_src(repl2, clean)
            assert await ok(repl2, "HelloWorld new shout") == '"hello you!"'
            assert await ok(repl2, "c := Counter spawn. c bump. c bump. c count") == "2"
        finally:
            await c2.close()
    finally:
        launcher.kill(fresh)


async def test_compile_then_flush_changes_only_the_new_method(pkg):
    root, ws = pkg
    path = root / "src" / "counter.bt"
    before = path.read_text()
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        assert await ok(repl, 'Counter compile: "double => self.n * 2"') == "#double"
        assert await ok(repl, ":changes") == "1. Counter >> double (method) -> src/counter.bt"
        await ok(repl, ":flush")
        after = path.read_text()
        diff = [d for d in difflib.ndiff(before.splitlines(), after.splitlines()) if d[:1] in "+-"]
        assert diff == ["+ ", "+   double => self.n * 2"], diff
        assert after.startswith(before)
        # a replaced method changes its own lines only, its doc comment stays
        await ok(repl, 'Counter compile: "bump => self.n := self.n + 10"')
        await ok(repl, "Counter removeSelector: #count")
        listing = await ok(repl, ":changes")
        assert listing.splitlines() == ["2. Counter >> bump (method) -> src/counter.bt",
                                        "3. Counter >> count (removed) -> src/counter.bt"], listing
        await ok(repl, ":flush")
        text = path.read_text()
        assert "  /// One more.\n  bump => self.n := self.n + 10\n" in text
        assert "count => self.n" not in text and "// what it holds" in text
        assert text.startswith("// The counter of this package.\n\n/// Counts.\nActor subclass: Counter\n")
        assert "  class zero => 0\n" in text
        assert await ok(repl, "c := Counter spawn. c bump. c bump. c double") == "40"
    finally:
        await c.close()


async def test_revert_drops_a_change(pkg):
    root, ws = pkg
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        await ok(repl, 'Counter compile: "triple => self.n * 3"')
        await ok(repl, 'Counter compile: "half => self.n / 2"')
        await ok(repl, "Workspace revert: Workspace changes first")
        assert await ok(repl, ":changes") == "2. Counter >> half (method) -> src/counter.bt"
        out = await run(repl, "Workspace revert: 99")
        assert "There is no pending change 99" in out, out
        await ok(repl, ":flush")
        text = (root / "src" / "counter.bt").read_text()
        assert "half => self.n / 2" in text and "triple" not in text
        assert await ok(repl, "(Counter spawn) triple") == "0"   # the live class keeps it
    finally:
        await c.close()


async def test_flush_refuses_a_file_changed_on_disk(pkg):
    root, ws = pkg
    path = root / "src" / "counter.bt"
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        await ok(repl, 'Counter compile: "double => self.n * 2"')
        edited = path.read_text() + "\n  // edited in an editor\n"
        path.write_text(edited)
        out = await run(repl, ":flush")
        assert "src/counter.bt changed on disk since the workspace loaded it; not written" in out, out
        assert "redo Counter >> double, or drop it: Workspace revert: 1" in out, out
        assert "Traceback" not in out
        assert path.read_text() == edited
        assert "Counter >> double" in await ok(repl, ":changes")
        assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    finally:
        await c.close()


async def test_after_a_refused_flush_reload_and_redo_writes(pkg):
    """The refusal's advice works: after `:reload` a change made against the
    new file is written; the one made before the edit stays refused (its
    message says so and names it) until it is redone or reverted."""
    root, ws = pkg
    path = root / "src" / "counter.bt"
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        await ok(repl, 'Counter compile: "double => self.n * 2"')
        path.write_text(path.read_text() + "\n  triple => self.n * 3\n")
        assert "changed on disk" in await run(repl, ":flush")
        await ok(repl, f":load {path}")
        await ok(repl, 'Counter compile: "quad => self.n * 4"')
        out = await run(repl, ":flush")
        assert "Wrote src/counter.bt (1 change)" in out, out
        assert "Counter >> double" in out and "Workspace revert: 1" in out, out
        text = path.read_text()
        assert "quad => self.n * 4" in text and "triple => self.n * 3" in text and "double" not in text
        assert await ok(repl, ":changes") == "1. Counter >> double (method) -> src/counter.bt"
        await ok(repl, 'Counter compile: "double => self.n * 2"')   # redone: replaces the stale one
        assert await ok(repl, ":flush") == "Wrote src/counter.bt (1 change)"
        assert "double => self.n * 2" in path.read_text()
        assert await ok(repl, ":changes") == "No pending changes."
    finally:
        await c.close()


async def test_pending_changes_survive_a_restart(pkg):
    root, ws = pkg
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        await ok(repl, 'Counter compile: "double => self.n * 2"')
        await ok(repl, "Object subclass: Later\n  hi => 1")
    finally:
        await c.close()
    r = run_beamtalk(["workspace", "restart", ws.id], cwd=root)
    assert r.returncode == 0, r.stdout + r.stderr
    c, repl = await session(ws)
    try:
        assert (await ok(repl, ":changes")).splitlines() == [
            "1. Counter >> double (method) -> src/counter.bt",
            "2. Later (class definition) -> src/later.bt"]
        out = await ok(repl, ":flush")
        assert out.splitlines() == ["Wrote src/counter.bt (1 change)", "Wrote src/later.bt (1 change)"], out
        assert "  double => self.n * 2\n" in (root / "src" / "counter.bt").read_text()
        assert (root / "src" / "later.bt").read_text() == "Object subclass: Later\n  hi => 1\n"
    finally:
        await c.close()


async def test_a_flush_is_not_reloaded_by_a_watch(pkg):
    root, ws = pkg
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        await ok(repl, f'Workspace watch: "{root / "src"}"')
        await ok(repl, 'Counter compile: "double => self.n * 2"')
        await ok(repl, "Workspace flush")
        await asyncio.sleep(1.5)   # a reload, if any, would have happened by now
        assert await ok(repl, "(Erlang beamtalk watches) first at: #reloads") == "0"
        # an edit by hand is still reloaded
        path = root / "src" / "counter.bt"
        path.write_text(path.read_text().replace("self.n * 2", "self.n * 4"))
        for _ in range(100):
            if await run(repl, "c := Counter spawn. c bump. c double") == "4":
                break
            await asyncio.sleep(0.1)
        assert await ok(repl, "c := Counter spawn. c bump. c double") == "4"
        assert await ok(repl, "(Erlang beamtalk watches) first at: #reloads") == "1"
    finally:
        await c.close()


async def test_a_class_typed_again_changes_only_what_differs(pkg):
    root, ws = pkg
    path = root / "src" / "counter.bt"
    before = path.read_text()
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        await ok(repl, "/// Counts.\nActor subclass: Counter\n  state: n = 0\n\n  /// One more.\n"
                       "  bump => self.n := self.n + 2\n  count => self.n\n  class zero => 0")
        assert await ok(repl, ":changes") == "1. Counter (class definition) -> src/counter.bt"
        await ok(repl, ":flush")
        after = path.read_text()
        diff = [d for d in difflib.ndiff(before.splitlines(), after.splitlines()) if d[:1] in "+-"]
        assert diff == ["-   bump => self.n := self.n + 1", "+   bump => self.n := self.n + 2"], diff
    finally:
        await c.close()


async def test_a_class_builder_class_without_source_is_listed_and_refused(pkg):
    root, ws = pkg
    c, repl = await session(ws)
    try:
        await load_src(repl, root)
        await ok(repl, "Object classBuilder name: #Dog; addMethod: #speak body: [:me | 1]; register")
        listing = await ok(repl, ":changes")
        assert listing == ("1. Dog (class definition) -> src/dog.bt "
                           "[no source: built with ClassBuilder; flush cannot write it]"), listing
        out = await run(repl, ":flush")
        assert "Dog was built with ClassBuilder and has no source to write" in out, out
        assert not (root / "src" / "dog.bt").exists()
        await ok(repl, "Workspace revert: 1")
        assert await ok(repl, ":changes") == "No pending changes."
    finally:
        await c.close()


def test_no_package_no_changes(bt_home, tmp_path):
    """Outside a package nothing is pending: the REPL is a scratchpad."""
    ws = paths.resolve("wb-nopkg-" + uuid.uuid4().hex[:8])
    launcher.start(ws, idle_timeout=None, cwd=tmp_path)
    try:
        async def go():
            c, repl = await session(ws)
            try:
                await ok(repl, "Object subclass: Loose\n  hi => 1")
                assert await ok(repl, ":changes") == "No pending changes."
                assert await ok(repl, ":flush") == "No pending changes."
            finally:
                await c.close()
        asyncio.run(go())
    finally:
        launcher.kill(ws)
