"""TLS distribution for a workspace: its CA, certificates and listener.

`beamtalk workspace start --tls` makes, in the workspace's private directory
(`tls/`, mode 0700, every file 0600), a CA of its own, a certificate for the
node (server and client use), one for clients, and the node's
`-ssl_dist_optfile`.  From then on the node runs `-proto_dist inet_tls` and
asks every peer for a certificate of that CA (`verify_peer`,
`fail_if_no_peer_cert`): the cookie alone no longer gets anyone in.

Why a listener off loopback needs TLS: plain distribution sends everything
after the handshake in clear, and a cookie (a shared password, checked by a
challenge that can be attacked offline once seen) is all that stands between
a network and full code execution on the node.

Off loopback the node listens on one fixed port (`--port`, else one picked
at creation), and epmd stays on loopback: exported credentials carry the
address and port, so a client on another host never needs epmd.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import os
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

from beamtalk_ws.dist.tls import ClientTLS

from . import cookie as cookies
from .errors import WorkspaceError
from .paths import WorkspacePaths, private_dir

FORMAT = "beamtalk-credentials/1"
VALID_DAYS = 825


@dataclass(frozen=True)
class Listener:
    address: str                 # the interface the node listens on
    port: int | None             # fixed distribution port (None: any, found through epmd)

    @property
    def loopback(self) -> bool:
        return ipaddress.ip_address(self.address).is_loopback


def tls_dir(ws: WorkspacePaths) -> Path:
    return ws.dir / "tls"


def enabled(ws: WorkspacePaths) -> bool:
    return (tls_dir(ws) / "ssl_dist.conf").exists()


def listener(ws: WorkspacePaths) -> Listener:
    try:
        data = json.loads((tls_dir(ws) / "listen.json").read_text())
        return Listener(data["address"], data.get("port"))
    except (OSError, ValueError, KeyError):
        return Listener("127.0.0.1", None)


def check_listen(address: str | None, tls: bool) -> Listener | None:
    """The listener asked for on the command line; off loopback only with TLS."""
    if address is None:
        return None
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise WorkspaceError(f"--listen takes an IP address of this host (like 10.0.0.5 or 0.0.0.0), "
                             f"not '{address}'.") from None
    if not ip.is_loopback and not tls:
        raise WorkspaceError(
            f"Refusing to listen on {address} without TLS: plain Erlang distribution sends everything "
            f"in clear after a cookie check, and a valid cookie means full code execution on the node. "
            f"Add --tls (mutual certificates from the workspace's own CA).")
    if ip.version != 4:
        raise WorkspaceError("--listen takes an IPv4 address (the workspace node's distribution is IPv4).")
    return Listener(address, None)


def _free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address if address != "0.0.0.0" else "", 0))
        return s.getsockname()[1]


def _write_private(path: Path, data: bytes | str) -> None:
    """Write `path` whole, mode 0600.  The temporary file is a new one of a
    fresh name (`mkstemp`: O_EXCL, 0600): a fixed `FILE.tmp` that already
    existed (readable by others, or somebody else's) kept its mode, and the
    cookie and key landed in it."""
    if isinstance(data, str):
        data = data.encode()
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _names(extra: str | None) -> tuple[list[str], list[str]]:
    host = socket.gethostname()
    dns = sorted({"localhost", host, host.split(".")[0], socket.getfqdn()})
    ips = ["127.0.0.1"] + ([extra] if extra and extra not in ("127.0.0.1", "0.0.0.0") else [])
    return dns, ips


def create(ws: WorkspacePaths, listen: Listener | None, port: int | None = None) -> Listener:
    """Make the CA, the certificates and the node's TLS options (once per workspace);
    a new `listen` or `port` replaces the listener."""
    d = private_dir(tls_dir(ws))     # and every directory above it, 0700 whatever the umask
    current = listener(ws)
    if listen is not None or port is not None or not (d / "listen.json").exists():
        address = listen.address if listen is not None else current.address
        fixed = port if port is not None else (None if Listener(address, None).loopback
                                               else (current.port or _free_port(address)))
        current = Listener(address, fixed)
        _write_private(d / "listen.json", json.dumps({"address": current.address, "port": current.port}))
    if not (d / "ca.pem").exists():
        _make_certificates(d, ws.id, current.address)
    _write_private(d / "ssl_dist.conf", _optfile(d))
    return current


def _make_certificates(d: Path, ws_id: str, address: str) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def key():
        return ec.generate_private_key(ec.SECP256R1())

    def name(cn: str):
        return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "beamtalk workspace " + ws_id),
                          x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def cert(subject, subject_key, issuer, issuer_key, *, ca: bool, usages=(), sans=None):
        b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
             .public_key(subject_key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(minutes=5))
             .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
             .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False))
        if ca:
            b = b.add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                              content_commitment=False, key_encipherment=False,
                                              data_encipherment=False, key_agreement=False,
                                              encipher_only=False, decipher_only=False), critical=True)
        else:
            b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                                critical=False)
            b = b.add_extension(x509.ExtendedKeyUsage(list(usages)), critical=False)
        if sans:
            b = b.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        return b.sign(issuer_key, hashes.SHA256())

    def pem_key(k) -> bytes:
        return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                               serialization.NoEncryption())

    def pem_cert(c) -> bytes:
        return c.public_bytes(serialization.Encoding.PEM)

    ca_key = key()
    ca_name = name(f"beamtalk CA {ws_id}")
    ca = cert(ca_name, ca_key, ca_name, ca_key, ca=True)
    dns, ips = _names(address)
    sans = [x509.DNSName(n) for n in dns] + [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    node_key = key()
    node = cert(name(f"beamtalk node {ws_id}"), node_key, ca_name, ca_key, ca=False,
                usages=(ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH), sans=sans)
    client_key = key()
    # inet_tls_dist admits a peer only when the host part of the node name it
    # gives in the handshake is a name in its certificate: the client's carries
    # the same names as the node's (our node name borrows the node's host part).
    client = cert(name(f"beamtalk client {ws_id}"), client_key, ca_name, ca_key, ca=False,
                  usages=(ExtendedKeyUsageOID.CLIENT_AUTH,), sans=sans)
    for fname, data in (("ca.key", pem_key(ca_key)), ("ca.pem", pem_cert(ca)),
                        ("node.key", pem_key(node_key)), ("node.pem", pem_cert(node)),
                        ("client.key", pem_key(client_key)), ("client.pem", pem_cert(client))):
        _write_private(d / fname, data)


def _optfile(d: Path) -> str:
    """The node's `-ssl_dist_optfile`: mutual verification against the workspace CA."""
    def s(p: str) -> str:
        return json.dumps(str(d / p))     # a JSON string is a valid Erlang string here (ASCII paths)

    common = (f"{{cacertfile, {s('ca.pem')}}}, {{certfile, {s('node.pem')}}}, {{keyfile, {s('node.key')}}}, "
              "{verify, verify_peer}, {versions, ['tlsv1.3', 'tlsv1.2']}, {secure_renegotiate, true}")
    return (f"[{{server, [{common}, {{fail_if_no_peer_cert, true}}]}},\n"
            f" {{client, [{common}]}}].\n")


def node_args(ws: WorkspacePaths) -> list[str]:
    """Extra `erl` arguments of a TLS workspace node (none for a plain one)."""
    if not enabled(ws):
        return []
    lst = listener(ws)
    args = ["-proto_dist", "inet_tls", "-ssl_dist_optfile", str(tls_dir(ws) / "ssl_dist.conf")]
    if lst.port is not None:
        args += ["-kernel", "inet_dist_listen_min", str(lst.port), "-kernel", "inet_dist_listen_max", str(lst.port)]
    return args


def dist_interface(ws: WorkspacePaths) -> str:
    """The `inet_dist_use_interface` tuple: loopback unless a TLS workspace listens elsewhere."""
    address = listener(ws).address if enabled(ws) else "127.0.0.1"
    return "{" + address.replace(".", ",") + "}"


def client(ws: WorkspacePaths) -> ClientTLS:
    d = tls_dir(ws)
    return ClientTLS((d / "ca.pem").read_text(), (d / "client.pem").read_text(), (d / "client.key").read_text())


def connect_kwargs(ws: WorkspacePaths) -> dict:
    """What Node.connect needs to reach this workspace's node (TLS or not)."""
    if not enabled(ws):
        return {}
    tls = client(ws)
    return {"ssl": tls.context(), "server_hostname": tls.server_hostname(ws.node_name)}


def export(ws: WorkspacePaths, out: Path, address: str | None = None) -> Path:
    """Write what another host needs to attach (node, address, port, cookie, CA,
    client certificate and key) into `out`, mode 0600."""
    if not enabled(ws):
        raise WorkspaceError(f"Workspace '{ws.id}' does not use TLS; export-credentials is for TLS "
                             f"workspaces (`beamtalk workspace start --tls`).")
    lst = listener(ws)
    where = address or (lst.address if lst.address != "0.0.0.0" else socket.gethostname())
    tls = client(ws)
    data = {"format": FORMAT, "node": ws.node_name, "address": where, "port": lst.port,
            "cookie": cookies.read(ws.cookie_file).decode(), "ca": tls.ca_pem, "cert": tls.cert_pem,
            "key": tls.key_pem}
    out = Path(out)
    if out.is_dir():
        raise WorkspaceError(f"Cannot write the credentials to {out}: it is a directory; "
                             f"give a file name (-o {out / ('beamtalk-' + ws.id + '.credentials')}).")
    try:
        _write_private(out, json.dumps(data, indent=1) + "\n")
    except OSError as e:
        raise WorkspaceError(f"Cannot write the credentials to {out}: "
                             f"{e.strerror or e} (for {out.parent}).") from None
    return out


def configure(ws: WorkspacePaths, *, tls: bool, listen: str | None, port: int | None, running: bool) -> None:
    """`workspace start [--tls] [--listen ADDR] [--port N]` before the node starts."""
    if not (tls or listen or port):
        return
    wanted = check_listen(listen, tls or enabled(ws))
    if port is not None and not (tls or enabled(ws)):
        raise WorkspaceError("--port is for TLS workspaces (add --tls).")
    if running:
        if (tls or wanted is not None or port is not None) and not enabled(ws):
            raise WorkspaceError(f"Workspace '{ws.id}' is running without TLS; stop it first "
                                 f"(`beamtalk workspace stop {ws.id}`), then start it with --tls.")
        if (wanted is not None and wanted.address != listener(ws).address) or (
                port is not None and port != listener(ws).port):
            raise WorkspaceError(f"Workspace '{ws.id}' is running; stop it first to change where it listens.")
        return
    create(ws, wanted, port)
