"""The workspace cookie: created once, private, never on a command line.

The node reads it from `$HOME/.erlang.cookie` with HOME pointing at the
workspace's private directory, so neither argv nor the environment of any
process carries the secret (DESIGN D4).
"""

from __future__ import annotations

import base64
import os
import secrets
import stat
from pathlib import Path

from .errors import CookieError
from .paths import private_dir

COOKIE_BYTES = 24


def create(path: Path) -> bytes:
    """Write a new random cookie (mode 0600) unless one exists; return it."""
    private_dir(path.parent)
    if path.exists():
        return read(path)
    value = base64.urlsafe_b64encode(secrets.token_bytes(COOKIE_BYTES)).rstrip(b"=")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, value)
    finally:
        os.close(fd)
    return value


def read(path: Path) -> bytes:
    """Read the cookie, refusing a file that group or others can read."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise CookieError(f"No cookie file at {path}: the workspace was never started.") from None
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CookieError(
            f"Refusing to use cookie file {path}: it is accessible by other users "
            f"(mode {stat.S_IMODE(st.st_mode):04o}). Run `chmod 600 {path}`."
        )
    try:
        value = path.read_bytes().strip()
    except OSError as e:
        raise CookieError(f"Cannot read cookie file {path}: {e.strerror}.") from None
    if len(value) < 16:
        raise CookieError(f"Cookie file {path} is too short to be a workspace cookie.")
    return value
