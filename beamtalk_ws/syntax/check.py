"""``beamtalk check PATH...`` — parse ``.bt`` files and report diagnostics.

::

    beamtalk check PATH...              # a directory means every .bt below it
    beamtalk check --emit ast FILE      # print the AST of FILE
    beamtalk check --emit source FILE   # print FILE re-printed canonically

Diagnostics are printed as ``file:line:col: message``, the source line and a
caret underline.  Exit status: 0 when there is no error, 1 when any file has
an error, 2 for usage errors (bad option, missing path).

Later passes (the compiler's semantic checks) plug in through
``extra_passes``: each is a callable ``pass_(module, source, filename) ->
iterable of Diagnostic`` that runs on every file that parsed without error.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Iterable, Optional, Sequence

from .ast import Module, dump
from .diagnostics import Diagnostic, SyntaxErrors, render_diagnostic
from .parser import parse_source
from .source_bytes import decode_source
from .unparse import unparse

ExtraPass = Callable[[Module, str, str], Iterable[Diagnostic]]


def collect_files(paths: Sequence[str]) -> tuple:
    """Expand directories to the ``.bt`` files below them (sorted, hidden
    entries skipped), each file once however many of the paths reach it
    (`beamtalk check stdlib stdlib/test` reported the tests twice).
    Returns ``(files, missing)``."""
    files = []
    missing = []
    for p in paths:
        if os.path.isdir(p):
            found = []
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for n in sorted(names):
                    if n.endswith(".bt") and not n.startswith("."):
                        found.append(os.path.join(root, n))
            files.extend(sorted(found))
        elif os.path.isfile(p):
            files.append(p)
        else:
            missing.append(p)
    seen = set()
    unique = []
    for f in files:
        key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique, missing


def check_source(
    source: str, filename: str = "<input>", extra_passes: Sequence[ExtraPass] = ()
) -> tuple:
    """Parse one source text and run the extra passes; return
    ``(module_or_None, diagnostics)``."""
    module, diags = parse_source(source, filename)
    diags = list(diags)
    if module is not None and not any(d.severity == "error" for d in diags):
        for extra in extra_passes:
            diags.extend(extra(module, source, filename) or ())
    diags.sort(key=lambda d: (d.span.start, d.span.end))
    return module, diags


def _read(path: str) -> str:
    """The file's text; SyntaxErrors when it is not UTF-8 (source_bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    return decode_source(data, path)


def check_main(
    argv: Optional[Sequence[str]] = None,
    extra_passes: Sequence[ExtraPass] = (),
    stdout=None,
    stderr=None,
    emit_forms: Optional[Callable[[str], int]] = None,
) -> int:
    """Entry point of ``beamtalk check``; returns the exit status.

    ``emit_forms`` comes from the compiler layer (this one cannot import it):
    given, ``--emit forms FILE`` is offered and handed to it."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    ap = argparse.ArgumentParser(
        prog="beamtalk check",
        description="Check Beamtalk .bt files for syntax errors"
        + (" and semantic errors and warnings" if extra_passes else "")
        + "; without a PATH inside a package, its src/ and test/.")
    ap.add_argument("paths", nargs="*", metavar="PATH", help=".bt files or directories")
    if emit_forms is None:
        ap.add_argument("--emit", choices=("ast", "source"), help="print the AST (or canonical source) of FILE")
    else:
        ap.add_argument("--emit", choices=("ast", "source", "forms"),
                        help="print the AST, the canonical source or the Erlang abstract forms of FILE")
    ap.add_argument("--spans", action="store_true", help="with --emit ast: show line:col of every node")
    try:
        args = ap.parse_args(list(argv) if argv is not None else None)
    except SystemExit as e:  # argparse already printed the usage error
        return 2 if e.code else 0
    if not args.paths:
        print("beamtalk check: no PATH given", file=err)
        return 2
    files, missing = collect_files(args.paths)
    status = 0
    for m in missing:
        print(f"beamtalk check: {m}: no such file or directory", file=err)
        status = 2
    if args.emit and len(files) != 1:
        print("beamtalk check: --emit needs exactly one FILE", file=err)
        return 2
    if args.emit == "forms":
        return emit_forms(files[0])
    n_errors = 0
    n_warnings = 0
    for path in files:
        try:
            source = _read(path)
        except OSError as e:
            print(f"beamtalk check: {path}: {e.strerror}", file=err)
            status = max(status, 1)
            continue
        except SyntaxErrors as e:
            print(e.render(), file=out)
            n_errors += len(e.diagnostics)
            continue
        module, diags = check_source(source, path, extra_passes)
        for d in diags:
            print(render_diagnostic(d, source, path), file=out)
            if d.severity == "error":
                n_errors += 1
            else:
                n_warnings += 1
        if args.emit and module is not None and not any(d.severity == "error" for d in diags):
            if args.emit == "ast":
                print(dump(module, with_spans=args.spans), file=out)
            else:
                out.write(unparse(module))
    if n_errors:
        status = max(status, 1)
    if not args.emit:
        summary = f"{len(files)} file{'s' if len(files) != 1 else ''} checked"
        if n_errors or n_warnings:
            summary += f": {n_errors} error{'s' if n_errors != 1 else ''}"
            if n_warnings:
                summary += f", {n_warnings} warning{'s' if n_warnings != 1 else ''}"
        else:
            summary += ", no errors"
        print(summary, file=err)
    return status


def main() -> None:  # pragma: no cover - convenience
    sys.exit(check_main(sys.argv[1:]))


if __name__ == "__main__":  # pragma: no cover
    main()
