"""Reading a credentials file of `beamtalk workspace export-credentials`.

One file, mode 0600, holds everything another host needs to attach to a TLS
workspace: node name, address and port, the cookie, the CA certificate and a
client certificate with its key.  Whoever holds it can run any code on that
node, so it is refused when others can read it, like a cookie file.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from pathlib import Path

from beamtalk_ws.dist.tls import ClientTLS

from .errors import CookieError, WorkspaceError
from .tlsfiles import FORMAT


@dataclass(frozen=True)
class Credentials:
    path: Path
    node: str
    address: str | None
    port: int | None
    cookie: bytes
    tls: ClientTLS


def load(path: Path) -> Credentials:
    try:
        st = path.stat()
        text = path.read_text()
    except OSError as e:
        raise WorkspaceError(f"Cannot read credentials file {path}: {e.strerror}.") from None
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CookieError(f"Refusing to use credentials file {path}: it is accessible by other users "
                          f"(mode {stat.S_IMODE(st.st_mode):04o}). Run `chmod 600 {path}`.")
    try:
        data = json.loads(text)
        if data.get("format") != FORMAT:
            raise ValueError
        return Credentials(path, data["node"], data.get("address"), data.get("port"),
                           data["cookie"].encode(), ClientTLS(data["ca"], data["cert"], data["key"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise WorkspaceError(f"{path} is not a credentials file of `beamtalk workspace export-credentials`.") from None
