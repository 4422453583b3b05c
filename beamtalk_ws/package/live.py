"""A package in a running workspace (seed ADR 0026 Phase 4 and 5): build it,
load what changed, and start it.

The workspace *is* the running package: `beamtalk repl` in a package builds
it and loads its classes, `:reload` rebuilds and hot-reloads the classes
whose code changed (their actors keep running, with the new methods), and
`beamtalk run` sends `start` to the class of the manifest's start file.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from .build import BuildResult, build
from .manifest import Manifest, PackageError


@dataclass
class LiveOutcome:
    ok: bool
    text: str
    build: BuildResult | None = None
    reloaded: int = 0


def _errors_text(result: BuildResult) -> str:
    n = len(result.errors)
    lines = [f"{result.manifest.name}: {n} file{'s' if n != 1 else ''} did not compile:"]
    lines += [text for _, text in result.errors]
    return "\n".join(lines)


async def build_and_load(client, m: Manifest, *, force: bool = False, on_output=None) -> LiveOutcome:
    """Build the package and load its changed classes into the workspace."""
    try:
        result = await asyncio.to_thread(build, m, force=force)
    except PackageError as e:
        return LiveOutcome(False, str(e))
    except OSError as e:        # the disk, not the code: say which file, never a traceback
        where = f" ({e.filename})" if e.filename else ""
        return LiveOutcome(False, f"{m.name}: the build could not write its files: {e.strerror or e}{where}")
    if not result.ok:
        return LiveOutcome(False, _errors_text(result), result)
    reply = await client.load_package(m.ebin, m.name, on_output=on_output)
    if not reply.ok:
        return LiveOutcome(False, reply.text, result)
    n = len(result.modules)
    text = f"Compiled {m.name} v{m.version} ({n} class{'es' if n != 1 else ''})"
    reloaded = int(reply.text) if reply.text.isdigit() else 0
    return LiveOutcome(True, text, result, reloaded)


def _class_of(result: BuildResult, path) -> str | None:
    wanted = path.resolve()
    for f, _module, name, _super in result.modules:
        if f.resolve() == wanted:
            return name
    return None


def start_class(m: Manifest, result: BuildResult) -> str:
    """The class of the manifest's start file; raises PackageError."""
    if not m.start:
        raise PackageError(
            f"{m.name} is a library: beamtalk.toml has no start module "
            f"(add start = \"main\" under [package] to run src/main.bt's class)")
    name = _class_of(result, m.start_file)
    if name is None:
        raise PackageError(f"{m.start_file} defines no class to send start to")
    return name


def supervisor_start_code(m: Manifest, result: BuildResult | None) -> str | None:
    """What starts the manifest's top supervisor in a workspace, if it is not
    running yet: the OTP application starts it before `start`, and a package
    run in a workspace must find the same children (`AppSup current child:`).
    A supervisor already running (a second `beamtalk run`) is kept with its
    children's state, as the actors `start` spawned are."""
    if not m.supervisor or result is None:
        return None
    name = _class_of(result, m.supervisor_file)
    return f"{name} current ifNil: [{name} start]" if name else None
