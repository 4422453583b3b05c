"""The OTP applications a built package runs on: `beamtalk_runtime` (the
Erlang runtime of `erl_support/`) and `beamtalk_stdlib` (the compiled
`stdlib/`), written in rebar3's layout under `_build/dev/lib/<app>/ebin`, so a
plain node starts a package with

    erl -pa _build/dev/ebin -pa _build/dev/lib/*/ebin \\
        -eval 'application:ensure_all_started(my_app)'

Both come from the caches a workspace boots from (`cache/erl`,
`cache/stdlib`); a lib records the cache it was copied from and is copied
again only when that changes.  Their `.app` files name `beamtalk_app` as
their callback module (erl_support/beamtalk_app.erl).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from beamtalk_ws import __version__

RUNTIME = "beamtalk_runtime"
STDLIB = "beamtalk_stdlib"
STAMP = ".beamtalk-cache"


def write_libs(lib: Path) -> None:
    """Bring `lib/beamtalk_runtime/ebin` and `lib/beamtalk_stdlib/ebin` up to date."""
    from beamtalk_ws.workspace import erlbuild, stdlibbuild

    runtime = erlbuild.ensure_built()
    _copy(runtime, lib / RUNTIME / "ebin", "*.beam", lambda mods: runtime_app(mods))
    stdlib = stdlibbuild.ensure_built(runtime)
    if stdlib is not None:
        _copy(stdlib, lib / STDLIB / "ebin", "bt@stdlib@*.beam", lambda mods: stdlib_app(mods))


def _copy(cache: Path, ebin: Path, pattern: str, app) -> None:
    stamp = ebin / STAMP
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == str(cache):
        return
    tmp = ebin.with_name(ebin.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    mods = []
    for beam in sorted(cache.glob(pattern)):
        shutil.copy2(beam, tmp / beam.name)
        mods.append(beam.stem)
    name = ebin.parent.name
    (tmp / f"{name}.app").write_text(app(mods), encoding="utf-8")
    (tmp / STAMP).write_text(str(cache) + "\n", encoding="utf-8")
    shutil.rmtree(ebin, ignore_errors=True)
    os.replace(tmp, ebin)


def runtime_app(modules: list[str]) -> str:
    return _app(RUNTIME, "The Beamtalk runtime: classes, actors, sends", modules,
                ["kernel", "stdlib", "compiler"], "runtime")


def stdlib_app(modules: list[str]) -> str:
    return _app(STDLIB, "The Beamtalk standard library", modules,
                ["kernel", "stdlib", RUNTIME], "stdlib")


def _app(name: str, description: str, modules: list[str], apps: list[str], mod_arg: str) -> str:
    from .build import atom, string

    mods = ", ".join(atom(m) for m in modules)
    return (
        f"{{application, {name}, [\n"
        f"    {{description, {string(description)}}},\n"
        f"    {{vsn, {string(__version__)}}},\n"
        f"    {{modules, [{mods}]}},\n"
        f"    {{registered, []}},\n"
        f"    {{applications, [{', '.join(apps)}]}},\n"
        f"    {{mod, {{beamtalk_app, {mod_arg}}}}}\n"
        f"]}}.\n"
    )
