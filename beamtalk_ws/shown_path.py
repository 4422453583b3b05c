"""How a file is named in messages: as the user would type it from the
current directory (`src/main.bt`), the way they named it on the command
line, and by its absolute path when it is not below the current directory
(`../../tmp/x/src/main.bt` reads worse than `/tmp/x/src/main.bt`)."""

from __future__ import annotations

import os


def as_typed(path: str) -> str:
    if not os.path.isabs(path):
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:                  # another drive (Windows)
        return path
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel
