"""Code-generation snapshots: each `tests/snapshots/*.snap` holds a Beamtalk
source, the Erlang it compiles to (pretty-printed by erl_pp, for people), and
the abstract forms (compared by the tests).

Regenerate after an intended change with:
    .venv/bin/python tests/snapshot_tool.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from beamtalk_ws.compiler import compile_input  # noqa: E402
from beamtalk_ws.compiler.forms import format_forms  # noqa: E402
from beamtalk_ws.compiler.modules import compile_file  # noqa: E402
from beamtalk_ws.syntax import ast, parse  # noqa: E402

DIR = Path(__file__).resolve().parent / "snapshots"
SEP_ERLANG = "\n=== erlang ===\n"
SEP_FORMS = "\n=== forms ===\n"


def forms_for(source: str) -> list:
    module = parse(source, "snapshot.bt")
    if any(isinstance(i, ast.ClassDef) for i in module.items) and "// file" in source:
        return compile_file(module, source, "snapshot.bt").forms
    bound = frozenset({"p", "list", "c"})
    return compile_input(source, bound, "snapshot.bt").forms


def erl_pretty(forms_text: str) -> str:
    """erl_pp's rendering of the forms (needs erl)."""
    with tempfile.NamedTemporaryFile("w", suffix=".forms", delete=False) as f:
        f.write(forms_text + "\n")
        path = f.name
    code = ("{ok, Fs} = file:consult(\"%s\"), "
            "[io:put_chars(erl_pp:form(F)) || F <- Fs], halt()." % path)
    return subprocess.run(["erl", "-noshell", "-eval", code], capture_output=True, text=True,
                          check=True).stdout


def split(path: Path):
    text = path.read_text(encoding="utf-8")
    source, rest = text.split("=== erlang ===\n", 1)
    erlang, forms = rest.split("=== forms ===\n", 1)
    return source.rstrip("\n"), erlang.rstrip("\n"), forms.strip("\n")


def update() -> None:
    for path in sorted(DIR.glob("*.snap")):
        source, _, _ = split(path)
        forms = format_forms(forms_for(source))
        path.write_text(source + SEP_ERLANG + erl_pretty(forms) + SEP_FORMS + forms + "\n", encoding="utf-8")
        print("updated", path.name)


if __name__ == "__main__":
    update()
