"""Issue 15, item 6: every directory under $BEAMTALK_HOME is created 0700
whatever the umask, and a directory that another user owns or can write to is
refused before use (it could hold a planted `ebin` the node would load)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import uuid
from pathlib import Path

import pytest

from beamtalk_ws.workspace import erlbuild, launcher, paths
from beamtalk_ws.workspace.errors import WorkspaceError


@pytest.fixture
def umask0():
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def fresh_home(tmp_path, monkeypatch):
    home = tmp_path / "bthome"
    monkeypatch.setenv("BEAMTALK_HOME", str(home))
    return home


def modes_under(root: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for d in root.rglob("*"):
        if d.is_dir():
            found[str(d.relative_to(root))] = stat.S_IMODE(d.stat().st_mode)
    return found


def test_cache_directories_are_0700_under_umask_000(fresh_home, umask0):
    built = erlbuild.cached_dir(fresh_home / "cache" / "erl" / "abc123",
                                lambda out: (out / "x.beam").write_bytes(b"beam"))
    assert built.is_dir()
    modes = modes_under(fresh_home)
    assert set(modes) == {".", "cache", "cache/erl", "cache/erl/abc123"}
    assert all(m == 0o700 for m in modes.values()), modes


def test_workspace_start_under_umask_000_makes_only_private_directories(workspace, bt_home, fresh_home, umask0):
    # The compiled runtime and stdlib are copied from the session's home (compiling
    # them again would take a minute); the test makes them private as a start would.
    shutil.copytree(bt_home / "cache", fresh_home / "cache")
    for d in [fresh_home, *(p for p in fresh_home.rglob("*") if p.is_dir())]:
        os.chmod(d, 0o700)
    ws = paths.resolve("u" + uuid.uuid4().hex[:8])
    try:
        launcher.start(ws, idle_timeout=None)
        modes = modes_under(fresh_home)
        assert "workspaces" in modes and f"workspaces/{ws.id}/home" in modes
        assert {k: m for k, m in modes.items() if m != 0o700} == {}
    finally:
        launcher.kill(ws)


def test_a_group_or_world_writable_cache_is_refused(fresh_home):
    (fresh_home / "cache").mkdir(parents=True)
    os.chmod(fresh_home, 0o700)
    os.chmod(fresh_home / "cache", 0o777)
    with pytest.raises(WorkspaceError) as e:
        erlbuild.cached_dir(fresh_home / "cache" / "erl" / "abc", lambda out: None)
    msg = str(e.value)
    assert f"Refusing to use directory {fresh_home / 'cache'}: it is writable by group or others (mode 0777)" in msg
    assert f"chmod 700 {fresh_home / 'cache'}" in msg
    assert not (fresh_home / "cache" / "erl").exists()


def test_a_planted_cache_entry_is_refused_not_loaded(fresh_home):
    # A complete-looking cache entry that others may write to: not put on the code path.
    target = fresh_home / "cache" / "erl" / "abc"
    paths.private_dir(target.parent)
    target.mkdir()
    (target / ".complete").write_text("ok\n")
    os.chmod(target, 0o773)
    with pytest.raises(WorkspaceError, match="writable by group or others"):
        erlbuild.cached_dir(target, lambda out: None)


def test_a_directory_of_another_user_is_refused(tmp_path, fresh_home):
    if os.getuid() == 0:
        foreign = fresh_home
        foreign.mkdir(mode=0o700)
        os.chown(foreign, 12345, 12345)
        with pytest.raises(WorkspaceError, match=r"belongs to another user \(uid 12345\)"):
            paths.private_dir(fresh_home / "workspaces")
    else:
        with pytest.raises(WorkspaceError, match="belongs to another user"):
            paths.check_private(Path("/"))


def test_the_cli_reports_a_refused_home_in_words(fresh_home):
    from conftest import run_beamtalk

    fresh_home.mkdir()
    os.chmod(fresh_home, 0o777)
    proc = run_beamtalk(["workspace", "start", "x" + uuid.uuid4().hex[:6]],
                        env={**os.environ, "BEAMTALK_HOME": str(fresh_home)})
    assert proc.returncode != 0
    assert "it is writable by group or others (mode 0777)" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (fresh_home / "workspaces").exists()


def files_open_to_others(root: Path, skip: tuple[str, ...] = ()) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode)
            for p in root.rglob("*") if p.is_file() and not str(p.relative_to(root)).startswith(skip)
            and stat.S_IMODE(p.stat().st_mode) & 0o077}


def test_cache_files_are_private_under_umask_000(fresh_home, umask0):
    """The directories were 0700, but the files in them came out 0666."""
    erlbuild.cached_dir(fresh_home / "cache" / "erl" / "abc123",
                        lambda out: (out / "x.beam").write_bytes(b"beam"))
    assert files_open_to_others(fresh_home) == {}


def test_workspace_files_are_private_under_umask_000(workspace, bt_home, fresh_home, umask0):
    """node.log, node.info, start.lock and metadata.json came out 0666 (and the
    store's Mnesia files: see the test of the store below)."""
    shutil.copytree(bt_home / "cache", fresh_home / "cache")
    for d in [fresh_home, *(p for p in fresh_home.rglob("*") if p.is_dir())]:
        os.chmod(d, 0o700)
    for f in (p for p in fresh_home.rglob("*") if p.is_file()):
        os.chmod(f, 0o600)
    ws = paths.resolve("u" + uuid.uuid4().hex[:8])
    try:
        launcher.start(ws, idle_timeout=None)
        wsdir = fresh_home / "workspaces" / ws.id
        assert {"node.log", "node.info", "start.lock"} <= {p.name for p in wsdir.iterdir()}
        assert files_open_to_others(wsdir) == {}
    finally:
        launcher.kill(ws)


def test_the_history_directory_of_an_attached_node_is_0700_under_umask_000(fresh_home, umask0):
    """`repl --node` keeps its history in $BEAMTALK_HOME/attached/<node>/, made
    with a plain mkdir: 0777 under umask 000, where another user could plant a
    symlink for the history file."""
    from beamtalk_ws.workspace.remote import RemoteWorkspace

    history = RemoteWorkspace("shop@app1").history
    assert history.parent.is_dir()
    assert modes_under(fresh_home) == {".": 0o700, "attached": 0o700, "attached/shop_app1": 0o700}


def test_a_tls_start_under_umask_000_makes_only_private_directories(fresh_home, umask0):
    """`workspace start --tls` on a fresh home made `workspaces/` and the
    workspace's directory with a plain mkdir (0777 under umask 000), and the
    start then refused its own directory as writable by others."""
    from beamtalk_ws.workspace import cookie, tlsfiles

    ws = paths.resolve("t" + uuid.uuid4().hex[:8])
    tlsfiles.configure(ws, tls=True, listen=None, port=None, running=False)
    cookie.create(ws.cookie_file)     # what the start does next: it checks every directory
    assert {k: m for k, m in modes_under(fresh_home).items() if m != 0o700} == {}
    assert files_open_to_others(fresh_home) == {}


def test_exported_credentials_are_private_over_a_stale_temporary_file(fresh_home, tmp_path, umask0):
    """The export wrote `FILE.tmp` with O_TRUNC and renamed it: a `FILE.tmp`
    left readable by others kept its mode, and the cookie and client key
    landed in a world-readable file."""
    from beamtalk_ws.workspace import cookie, tlsfiles

    ws = paths.resolve("t" + uuid.uuid4().hex[:8])
    tlsfiles.configure(ws, tls=True, listen=None, port=None, running=False)
    cookie.create(ws.cookie_file)
    out = tmp_path / "creds.json"
    stale = tmp_path / "creds.json.tmp"
    stale.write_text("old")
    os.chmod(stale, 0o644)
    tlsfiles.export(ws, out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert b"BEGIN" in out.read_bytes()
    assert stale.read_text() == "old"      # somebody else's file: left alone


async def test_store_rotated_log_and_dispatch_cache_are_private_under_umask_000(
        workspace, bt_home, fresh_home, umask0, monkeypatch):
    """Under umask 000 the store's Mnesia files (the bindings, so any secret
    bound at the REPL), the rotated `node.log.1` and the stdlib's cached
    dispatch module came out 0666 (inside 0700 directories)."""
    import asyncio

    from helpers import ok, session

    shutil.copytree(bt_home / "cache", fresh_home / "cache")
    for d in [fresh_home, *(p for p in fresh_home.rglob("*") if p.is_dir())]:
        os.chmod(d, 0o700)
    for f in (p for p in fresh_home.rglob("*") if p.is_file()):
        os.chmod(f, 0o600)
    for f in fresh_home.glob("cache/stdlib/*/beamtalk_dispatch-*.cached"):
        f.unlink()                          # so that this node writes it again
    monkeypatch.setenv("BEAMTALK_LOG_MAX_BYTES", "1")
    monkeypatch.setenv("BEAMTALK_LOG_CHECK_MS", "100")
    ws = paths.resolve("u" + uuid.uuid4().hex[:8])
    paths.private_dir(ws.dir)
    (ws.dir / "history").write_text('+pw := "hunter2"\n')    # as an older version left it: 0666
    try:
        launcher.start(ws, idle_timeout=None)
        c, repl = await session(ws)
        try:
            for i in range(30):
                await ok(repl, f'secret{i} := "hunter2-{i}"')
            await ok(repl, 'Erlang logger warning: "a line for node.log"')
        finally:
            await c.close()
        wsdir = fresh_home / "workspaces" / ws.id
        for _ in range(100):                # until the log has been rotated once
            if (wsdir / "node.log.1").exists() and list(fresh_home.glob("cache/stdlib/*/*.cached")):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)            # a housekeeping tick after the writes
        assert (wsdir / "node.log.1").exists() and (wsdir / "history").exists()
        assert any(b"hunter2" in p.read_bytes() for p in (wsdir / "store").iterdir() if p.is_file())
        assert files_open_to_others(fresh_home) == {}
    finally:
        launcher.kill(ws)


def test_a_history_file_left_readable_by_others_is_made_private(tmp_path):
    """The history holds what was typed (a password bound at the prompt): a
    history file an older version or a copy left 0644 stayed 0644; only a new
    one was made 0600."""
    from beamtalk_ws.repl.interactive import make_session

    history = tmp_path / "history"
    history.write_text("\n# 2026-01-01\n+secret := \"hunter2\"\n")
    os.chmod(history, 0o644)
    make_session(None, history)
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    assert "hunter2" in history.read_text()


@pytest.mark.parametrize("where", ["missing/dir/creds", "."])
def test_exporting_credentials_where_they_cannot_go_says_so_in_words(fresh_home, tmp_path, where):
    """`export-credentials -o /nonexistent/dir/f` printed `internal error:
    FileNotFoundError: ... '/nonexistent/dir/.f.x1y2.tmp'` (a temporary name of
    ours); `-o DIR` an IsADirectoryError."""
    from conftest import run_beamtalk

    from beamtalk_ws.workspace import cookie, tlsfiles

    ws = paths.resolve("t" + uuid.uuid4().hex[:8])
    tlsfiles.configure(ws, tls=True, listen=None, port=None, running=False)
    cookie.create(ws.cookie_file)
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / where
    r = run_beamtalk(["workspace", "export-credentials", ws.id, "-o", str(out)],
                     env={**os.environ, "BEAMTALK_HOME": str(fresh_home)})
    assert r.returncode == 1, r.stderr
    assert f"Cannot write the credentials to {out}" in r.stderr, r.stderr
    assert "internal error" not in r.stderr and ".tmp" not in r.stderr and "Errno" not in r.stderr
    assert list((tmp_path / "out").iterdir()) == []
