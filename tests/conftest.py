"""Shared fixtures: a private BEAMTALK_HOME and one real workspace node.

Every test that needs the node talks to a real BEAM started here; the node is
stopped when the session ends, also when tests fail.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A suite started in the background by a non-interactive shell (`.ci/run &`)
# inherits SIGINT ignored, and so would every `beamtalk` the tests start:
# the tests that press Ctrl-C on one (a signal) would wait for nothing.  An
# ignored disposition survives exec, a handled one does not, so handling
# SIGINT here gives the children the default one.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def bt_home():
    home = Path(tempfile.mkdtemp(prefix="bt-home-"))
    old = os.environ.get("BEAMTALK_HOME")
    os.environ["BEAMTALK_HOME"] = str(home)
    os.environ.setdefault("ERL_EPMD_ADDRESS", "127.0.0.1")
    try:
        yield home
    finally:
        if old is None:
            os.environ.pop("BEAMTALK_HOME", None)
        else:
            os.environ["BEAMTALK_HOME"] = old
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def workspace(bt_home):
    """The shared test workspace (`pytest-<random>`), running for the whole session."""
    from beamtalk_ws.workspace import launcher, paths

    ws = paths.resolve("pytest-" + uuid.uuid4().hex[:8])
    launcher.start(ws, idle_timeout=None)
    try:
        yield ws
    finally:
        launcher.kill(ws)


@pytest.fixture
def own_ws(bt_home):
    """A workspace of the test's own, killed after it: for tests that stop,
    kill or restart their node (the shared one must not be restarted)."""
    from beamtalk_ws.workspace import launcher, paths

    ws = paths.resolve("own-" + uuid.uuid4().hex[:8])
    try:
        yield ws
    finally:
        launcher.kill(ws)


@pytest.fixture
async def client(workspace):
    """A client on a fresh session of the shared workspace."""
    from beamtalk_ws.workspace.client import WorkspaceClient

    c = await WorkspaceClient.connect(workspace, session="t" + uuid.uuid4().hex[:10])
    try:
        yield c
    finally:
        await c.close()


@pytest.fixture
async def repl(client):
    from beamtalk_ws.repl.core import Repl

    return Repl(client)


@pytest.fixture
def jc(workspace):
    """A `beamtalk repl --json` process on a fresh session of the shared workspace."""
    from json_client import JsonClient

    c = JsonClient(workspace.id, session="j" + uuid.uuid4().hex[:8])
    try:
        yield c
    finally:
        c.close()


def beamtalk_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("beamtalk")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-m", "beamtalk_ws.cli"]


def run_beamtalk(args, *, input=None, timeout=60, env=None, cwd=None):
    return subprocess.run(beamtalk_cmd() + list(args), input=input, capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=cwd)
