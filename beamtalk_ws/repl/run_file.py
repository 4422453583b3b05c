"""`beamtalk run FILE`: run one `.bt` file the way a script is run.

Outside a package a learner's first program is a single file, and the
command they try is `beamtalk run fizzbuzz.bt`.  Two shapes are common and
both run:

* a file of statements (classes may come first): it is evaluated as one
  input of a fresh session, as if pasted into the REPL, so its locations name
  the file;
* a file of classes only: the class is loaded as `:load` loads it (one class
  per file keeps its module and source file) and sent `start`, as a package's
  start class is.

Only what the program writes reaches stdout (a checker may compare it); the
value of the last statement is not printed.  Transcript text written in the
background while the program runs (an actor handling a `!` send) is
printed too, as the interactive REPL shows it.  The project's workspace keeps
running afterwards, as after `beamtalk run` in a package, and the session
`run` keeps the script's variables for `beamtalk repl --session run`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from beamtalk_ws.shown_path import as_typed
from beamtalk_ws.syntax import SyntaxErrors, ast, parse
from beamtalk_ws.syntax.source_bytes import decode_source

#: the session a run works in; cleared first, so no variable of an earlier run leaks in
SESSION = "run"


def _plan(text: str, shown: str):
    """(single class name or None, start class or None, has statements).
    A file that does not parse is evaluated as it is: the REPL reports its
    syntax errors with the file's name."""
    try:
        module = parse(text, shown)
    except SyntaxErrors:
        return None, None, True
    classes = [i for i in module.items if isinstance(i, ast.ClassDef)]
    statements = [i for i in module.items if not isinstance(i, (ast.ClassDef, ast.StandaloneMethod))]
    starters = [c.name for c in classes
                if any(m.class_side and m.selector == "start" for m in c.methods)]
    single = classes[0].name if len(classes) == 1 and len(module.items) == 1 else None
    return single, (starters[-1] if starters else None), bool(statements)


def _write(chunk: str) -> None:
    sys.stdout.write(chunk)
    sys.stdout.flush()


async def console(client):
    """Wire a program's console to this process's, for `beamtalk run` (a
    file or a package's `start`): reads come from our stdin, and what the
    program writes, also text an actor writes while handling a `!` send
    (background text, not this request's output), goes to our stdout in the
    order it arrives, as the interactive REPL shows it.  Answers the writer."""
    from .plain import stdin_line

    async def read_line(prompt: str) -> str | None:
        _write(prompt)
        return await stdin_line() or None

    client.on_input = read_line
    client.on_transcript = _write
    await client.subscribe_transcript()
    return _write


async def run_file(args, open_client, idle_timeout) -> int:
    from beamtalk_ws.workspace import paths

    from .core import Repl

    path = Path(args.file).expanduser()
    shown = as_typed(args.file)
    if path.is_dir():
        print(f"Error: {shown} is a directory: beamtalk run takes a .bt file, or runs the package "
              f"it is started in (cd {shown} && beamtalk run)", file=sys.stderr)
        return 1
    if not path.is_file():
        print(f"Error: {shown}: no such file", file=sys.stderr)
        return 1
    try:
        text = decode_source(path.read_bytes(), shown)
    except OSError as e:
        print(f"Error: cannot read {shown}: {e.strerror or e}", file=sys.stderr)
        return 1
    except SyntaxErrors as e:          # not UTF-8: located at the first bad byte
        print(e.render(), file=sys.stderr)
        return 1
    single, starter, has_statements = _plan(text, shown)
    if not has_statements and starter is None:
        names = single or "its class"
        print(f"Error: {shown} has nothing to run: no statements and no class-side start method "
              f"(add `class start => ...` to {names}, or end the file with the statements to run)",
              file=sys.stderr)
        return 1

    ws = paths.resolve(args.workspace)
    client = await open_client(ws, SESSION, start="auto", idle_timeout=idle_timeout, note_shared=False)
    try:
        output = await console(client)
        await client.clear()
        repl = Repl(client, filename=shown)
        if single is not None and not has_statements:
            outcome = await repl.load(str(path), on_output=output)
        else:
            outcome = await repl.evaluate_code(text, on_output=output)
        _warnings(outcome)
        if not outcome.ok:
            print(outcome.text, file=sys.stderr)
            return 1
        if has_statements:
            return 0
        outcome = await Repl(client).evaluate_code(f"{starter} start", on_output=output)
        if not outcome.ok:
            print(f"{shown}: `{starter} start` failed:\n{outcome.text}", file=sys.stderr)
            return 1
        return 0
    finally:
        await client.close()


def _warnings(outcome) -> None:
    for w in outcome.warnings:
        print("\u26a0 " + w, file=sys.stderr)
