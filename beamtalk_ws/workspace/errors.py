"""Errors of workspace management, each a message a user can act on."""


class WorkspaceError(Exception):
    """A workspace could not be found, started, reached or stopped."""


class ErlangMissing(WorkspaceError):
    def __init__(self) -> None:
        super().__init__(
            "Erlang/OTP is not installed (no `erl` on PATH). Install it with "
            "`apt-get install erlang-base` (Debian/Ubuntu), or run scripts/beamtalk, "
            "which installs it on first use."
        )


class CookieError(WorkspaceError):
    """The cookie file is missing, unreadable or readable by others."""


class WorkspaceNotRunning(WorkspaceError):
    pass
