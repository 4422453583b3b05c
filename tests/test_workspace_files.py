"""Workspace discovery, cookie handling and the runtime build cache (no node)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat

import pytest

from beamtalk_ws.workspace import cookie, erlbuild, paths
from beamtalk_ws.workspace.errors import CookieError, WorkspaceError


def test_project_root_prefers_nearest_marker(tmp_path):
    (tmp_path / ".git").mkdir()
    pkg = tmp_path / "pkg"
    (pkg / "src" / "deep").mkdir(parents=True)
    (pkg / "beamtalk.toml").write_text('[package]\nname = "pkg"\n')
    assert paths.project_root(pkg / "src" / "deep") == pkg
    assert paths.project_root(tmp_path / "pkg") == pkg
    other = tmp_path / "other"
    other.mkdir()
    assert paths.project_root(other) == tmp_path


def test_project_root_without_markers_is_cwd(tmp_path):
    d = tmp_path / "plain"
    d.mkdir()
    # tmp dirs live under /tmp, which has no marker above it
    assert paths.project_root(d) == d.resolve()


def test_workspace_id_is_sha256_prefix(tmp_path, bt_home):
    ws = paths.resolve(cwd=tmp_path)
    expected = hashlib.sha256(str(tmp_path.resolve()).encode()).hexdigest()[:12]
    assert ws.id == expected
    assert ws.dir == bt_home / "workspaces" / expected
    assert ws.node_name == f"beamtalk_{expected}@localhost"


def test_named_workspace_and_bad_names(bt_home):
    assert paths.resolve("my-ws_1").node_name == "beamtalk_my_ws_1@localhost"
    for bad in ("a b", "../x", "", "x" * 65):
        with pytest.raises(WorkspaceError, match="Invalid workspace name"):
            paths.resolve(bad) if bad else paths.check_name(bad)


def test_cookie_created_private_and_stable(tmp_path):
    path = tmp_path / "home" / ".erlang.cookie"
    value = cookie.create(path)
    assert len(value) >= 32  # 24 random bytes, base64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert cookie.create(path) == value
    assert cookie.read(path) == value


def test_missing_cookie_is_a_clear_error(tmp_path):
    with pytest.raises(CookieError, match="never started"):
        cookie.read(tmp_path / "nope")


def test_runtime_build_is_cached_and_follows_sources(bt_home, tmp_path):
    src = tmp_path / "erl"
    shutil.copytree(erlbuild.erl_support_dir(), src)
    first = erlbuild.ensure_built(src)
    assert (first / "beamtalk_workspace.beam").exists()
    mtime = (first / "beamtalk_workspace.beam").stat().st_mtime_ns
    assert erlbuild.ensure_built(src) == first
    assert (first / "beamtalk_workspace.beam").stat().st_mtime_ns == mtime
    with open(src / "beamtalk_rt.erl", "a") as f:
        f.write("\n%% changed\n")
    second = erlbuild.ensure_built(src)
    assert second != first and (second / "beamtalk_rt.beam").exists()


def test_runtime_build_error_is_reported(bt_home, tmp_path):
    src = tmp_path / "broken"
    src.mkdir()
    (src / "bad.erl").write_text("-module(bad).\nf( -> ok.\n")
    with pytest.raises(WorkspaceError, match="Compiling the Erlang runtime failed"):
        erlbuild.ensure_built(src)
