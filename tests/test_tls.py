"""TLS distribution: `workspace start --tls`, `export-credentials`, `repl --credentials`."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import uuid

import pytest

from conftest import run_beamtalk


@pytest.fixture
def tls_ws(bt_home):
    from beamtalk_ws.workspace import launcher, paths

    name = "tls" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    try:
        yield name, ws
    finally:
        launcher.kill(ws)


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_tls_workspace_with_exported_credentials_and_refusals(tls_ws, tmp_path):
    from beamtalk_ws.workspace import tlsfiles

    name, ws = tls_ws
    r = run_beamtalk(["workspace", "start", name, "--tls", "--listen", "0.0.0.0"], timeout=120)
    assert r.returncode == 0, r.stderr
    d = tlsfiles.tls_dir(ws)
    assert _mode(d) == 0o700
    assert sorted(p.name for p in d.iterdir()) == ["ca.key", "ca.pem", "client.key", "client.pem",
                                                    "listen.json", "node.key", "node.pem", "ssl_dist.conf"]
    assert all(_mode(p) == 0o600 for p in d.iterdir())
    port = tlsfiles.listener(ws).port
    assert isinstance(port, int)

    # what listens where: the node on every interface (TLS only), epmd on loopback only
    if shutil.which("ss"):
        ss = subprocess.run(["ss", "-ltn"], capture_output=True, text=True).stdout
        assert f"0.0.0.0:{port} " in ss

    # the local REPL speaks TLS to it
    r = run_beamtalk(["repl", "--workspace", name], input="3 + 4\n")
    assert (r.returncode, r.stdout) == (0, "7\n"), r.stderr

    # so does the node's own compiler peer (DESIGN D11): the node compiles
    src = tmp_path / "tls_tally.bt"
    src.write_text("Object subclass: TlsTally\n  n => 41 + 1\n")
    r = run_beamtalk(["repl", "--workspace", name],
                     input=f'Workspace load: "{src}"\nTlsTally new n\n', timeout=120)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "42", (r.stdout, r.stderr)

    creds = tmp_path / "creds"
    r = run_beamtalk(["workspace", "export-credentials", name, "-o", str(creds)])
    assert r.returncode == 0, r.stderr
    assert _mode(creds) == 0o600
    data = json.loads(creds.read_text())
    assert data["node"] == ws.node_name and data["port"] == port
    assert set(data) == {"format", "node", "address", "port", "cookie", "ca", "cert", "key"}

    r = run_beamtalk(["repl", "--credentials", str(creds), "--address", "127.0.0.1"], input="x := 6 * 7\nx\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "42\n42\n"
    assert "is a Beamtalk workspace node; attached to its workspace" in r.stderr

    # the cookie alone does not get in: refused before the distribution handshake
    r = run_beamtalk(["repl", "--node", ws.node_name, "--cookie-file", str(ws.cookie_file)], input="1\n")
    assert r.returncode == 1
    assert "closed the connection before answering our name" in r.stderr
    assert "needs --credentials FILE" in r.stderr
    assert asyncio.run(_connect_without_client_certificate(data)) == "TLSRefused"

    # credentials whose CA is not the node's: it is our side that refuses the
    # node's certificate (it said "Node ... refused the TLS connection")
    from beamtalk_ws.workspace import cookie, paths

    other = paths.resolve("other" + uuid.uuid4().hex[:6])
    tlsfiles.configure(other, tls=True, listen=None, port=None, running=False)
    cookie.create(other.cookie_file)
    stale = tmp_path / "stale-creds"
    stale.write_text(json.dumps({**data, "ca": tlsfiles.client(other).ca_pem}))
    os.chmod(stale, 0o600)
    r = run_beamtalk(["repl", "--credentials", str(stale)], input="1\n")
    assert r.returncode == 1
    assert f"The certificate of node {ws.node_name} is not signed by the CA in {stale}" in r.stderr, r.stderr
    assert "refused the TLS connection" not in r.stderr and data["cookie"] not in r.stderr

    os.chmod(creds, 0o644)
    r = run_beamtalk(["repl", "--credentials", str(creds)], input="1\n")
    assert r.returncode == 1 and "Refusing to use credentials file" in r.stderr


async def _connect_without_client_certificate(data) -> str:
    import ssl

    from beamtalk_ws.dist.errors import DistError
    from beamtalk_ws.dist.node import Node

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cadata=data["ca"])
    try:
        node = await Node.connect(data["node"], data["cookie"], host="127.0.0.1", port=data["port"],
                                  ssl=ctx, server_hostname="localhost")
    except DistError as e:
        return type(e).__name__
    await node.close()
    return "connected"


def test_listening_off_loopback_needs_tls(tls_ws):
    from beamtalk_ws.workspace import launcher

    name, ws = tls_ws
    r = run_beamtalk(["workspace", "start", name, "--listen", "0.0.0.0"])
    assert r.returncode == 1
    assert r.stderr.startswith("beamtalk: Refusing to listen on 0.0.0.0 without TLS: ")
    assert "Add --tls" in r.stderr
    assert launcher.running_info(ws) is None
    r = run_beamtalk(["workspace", "start", name, "--listen", "localhost"])
    assert "--listen takes an IP address" in r.stderr and r.returncode == 1


def test_export_credentials_of_a_plain_workspace_is_refused(workspace):
    r = run_beamtalk(["workspace", "export-credentials", workspace.id, "-o", "/tmp/never-written"])
    assert r.returncode == 1
    assert "does not use TLS" in r.stderr and "--tls" in r.stderr
    assert not os.path.exists("/tmp/never-written")
