"""The command line's text streams speak UTF-8 whatever the locale says.

Beamtalk text is UTF-8 (Strings are UTF-8 binaries, source files are UTF-8),
and so is every terminal a C locale is set up for today. Python follows the
locale for stdio only where it neither coerces the C locale nor enters its
UTF-8 mode (PYTHONCOERCECLOCALE=0, PYTHONUTF8=0, or a locale the system
lacks): then stdin decoded `"é"` into lone surrogates the node refused
(`badarg`) and printing a result with `Ü` ended the command with an internal
error. An ASCII stream is switched to UTF-8, as Python's own UTF-8 mode
would; another non-UTF-8 encoding (a real Latin-1 terminal) is kept, and
what it cannot show is written as `\\u` escapes rather than failing.
"""

from __future__ import annotations

import codecs
import sys


def _name(stream) -> str:
    try:
        return codecs.lookup(stream.encoding or "ascii").name
    except (LookupError, AttributeError):
        return "ascii"


def use_utf8_stdio() -> None:
    """Reconfigure sys.stdin/stdout/stderr (text streams that allow it)."""
    for name in ("stdin", "stdout", "stderr"):
        stream = getattr(sys, name, None)
        if stream is None or not hasattr(stream, "reconfigure"):
            continue
        enc = _name(stream)
        if enc == "utf-8":
            continue
        try:
            if enc == "ascii":
                stream.reconfigure(encoding="utf-8", errors="surrogateescape" if name == "stdin"
                                   else "backslashreplace")
            elif name != "stdin":
                stream.reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # a stream already read from or closed
            pass
