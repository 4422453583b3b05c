"""What one REPL input does, independent of how it was typed.

The interactive front end and `--json` mode both call `Repl.evaluate`, so a
command or an expression behaves the same way whichever door it came in by
(DESIGN §3: REPL commands sent as `eval` code behave as they do interactively).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from beamtalk_ws.compiler import CompileError, classes_needed, compile_module
from beamtalk_ws.syntax import SyntaxErrors, parse
from beamtalk_ws.workspace.client import WorkspaceClient

OutputCallback = Callable[[str], None]

_FIRST_WORD = re.compile(r"([a-z][a-z-]*)(?![A-Za-z0-9_:])(.*)", re.S)
COMMAND_WORDS = ("load", "reload", "help", "exit", "quit", "clear", "bindings", "test", "show-codegen")

HELP = """\
Beamtalk REPL commands:
  :help, :h          show this help
  :bindings, :b      list this session's bindings
  :clear             clear this session's bindings
  :quit, :q, :exit   leave the REPL (the workspace keeps running)
Type a Beamtalk expression to evaluate it on the workspace node, e.g. x := 3 + 4"""


@dataclass
class Outcome:
    ok: bool
    text: str
    quit: bool = False
    kind: str = "ok"


class Repl:
    def __init__(self, client: WorkspaceClient, filename: str = "<input>"):
        self.client = client
        self.filename = filename

    async def evaluate(self, code: str, on_output: OutputCallback | None = None) -> Outcome:
        stripped = code.strip()
        if stripped.startswith(":"):
            return await self.command(stripped)
        m = _FIRST_WORD.match(stripped)
        if m and m.group(1) in COMMAND_WORDS and not m.group(2).lstrip().startswith(":="):
            return Outcome(False, f"Hint: did you mean `:{m.group(1)}`? REPL commands start with `:`",
                           kind="hint")
        return await self.evaluate_code(code, on_output)

    async def evaluate_code(self, code: str, on_output: OutputCallback | None = None) -> Outcome:
        try:
            module = parse(code, self.filename)
            needed = classes_needed(module)
            table = await self.client.class_table(needed) if needed else None
            compiled = compile_module(module, code, frozenset(self.client.bound_names), self.filename, table)
        except SyntaxErrors as e:
            return Outcome(False, e.render(), kind="syntax")
        except CompileError as e:
            return Outcome(False, e.render(), kind="compile")
        reply = await self.client.eval(compiled.forms, unique=compiled.unique, on_output=on_output)
        return Outcome(reply.ok, reply.text, kind=reply.kind)

    async def command(self, line: str) -> Outcome:
        word, _, arg = line[1:].partition(" ")
        arg = arg.strip()
        if word in ("quit", "q", "exit"):
            return Outcome(True, "Goodbye!", quit=True)
        if word in ("help", "h", "?"):
            return Outcome(True, HELP)
        if word in ("bindings", "b"):
            pairs = await self.client.bindings()
            if not pairs:
                return Outcome(True, "No bindings.")
            return Outcome(True, "\n".join(f"  {k} = {v}" for k, v in pairs))
        if word == "clear":
            await self.client.clear()
            return Outcome(True, "Bindings cleared.")
        return Outcome(False, f"Unknown command :{word}. Type :help for the list of commands.", kind="command")
