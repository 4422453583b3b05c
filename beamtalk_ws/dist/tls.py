"""The Python peer's side of TLS distribution (`-proto_dist inet_tls`).

A node started with `inet_tls` speaks TLS on its distribution port and runs
the ordinary handshake inside it; so do we.  Both sides prove who they are
with certificates from the workspace's own CA (mutual authentication): a
client without a certificate of that CA is turned away by TLS before the
distribution handshake, i.e. before the cookie is even looked at.
"""

from __future__ import annotations

import os
import shutil
import ssl
import tempfile
from dataclasses import dataclass

__all__ = ["ClientTLS"]


@dataclass(frozen=True)
class ClientTLS:
    """A client certificate and the CA that signed the node's certificate (PEM text)."""

    ca_pem: str
    cert_pem: str
    key_pem: str

    def context(self) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_verify_locations(cadata=self.ca_pem)
        ctx.check_hostname = True
        # load_cert_chain reads files only: a private directory that lives for
        # the call (the key never lands anywhere others can read).
        tmp = tempfile.mkdtemp(prefix="bt-tls-")
        try:
            os.chmod(tmp, 0o700)
            cert, key = os.path.join(tmp, "c.pem"), os.path.join(tmp, "k.pem")
            for path, text in ((cert, self.cert_pem), (key, self.key_pem)):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as f:
                    f.write(text)
            ctx.load_cert_chain(cert, key)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return ctx

    @staticmethod
    def server_hostname(node: str) -> str:
        """The name the node's certificate must carry: its node name's host part."""
        return node.split("@", 1)[1] if "@" in node else node
