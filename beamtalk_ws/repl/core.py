"""What one REPL input does, independent of how it was typed.

The interactive front end and `--json` mode both call `Repl.evaluate`, so a
command or an expression behaves the same way whichever door it came in by
(DESIGN §3: REPL commands sent as `eval` code behave as they do interactively).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from beamtalk_ws.workspace.client import WorkspaceClient

# The compiler (and the parser) are imported at the first input, not at start:
# the interactive REPL shows its prompt first (scripts/bench_repl.py).

OutputCallback = Callable[[str], None]

_FIRST_WORD = re.compile(r"([a-z][a-z-]*)(?![A-Za-z0-9_:])(.*)", re.S)
COMMAND_WORDS = ("load", "reload", "help", "exit", "quit", "clear", "bindings", "test", "show-codegen",
                 "emit", "sessions", "workspace", "forget", "actors")
#: commands whose argument is code, which may span lines (``:emit forms``)
_CODE_COMMANDS = ("emit", "show-codegen", "sc")

HELP = """\
Beamtalk REPL commands:
  :help, :h          show this help
  :help Class        the class's comment and methods
  :help Class sel    one method's documentation
  :help Class class [sel]  the class side (class methods) only
  :bindings, :b      list this session's bindings
  :clear             clear this session's bindings
  :forget NAME...    forget those bindings only (`_` is the last value)
  :actors            the workspace's live actors
  :sessions          the workspace's sessions (* marks this one)
  :workspace         node, id, uptime, classes and live actors of the workspace
  :modules           the loaded classes, their source files and live actors
  :emit forms EXPR   the Erlang abstract forms EXPR compiles to, without running it
  :load, :l PATH     compile and load a .bt file or every .bt file of a directory
  :reload, :r        load the last :load path again (hot reload); in a
                     package, rebuild src/ and reload the classes that changed
  :reload Class      reload one class from its source file
  :watch [PATH|off]  the workspace reloads every save: the package's src/,
                     PATH, or the last :load path (outlives this REPL)
  :changes           in a package: classes changed here, not yet in src/
  :flush             write those changes to their src/ files
  :test, :t [Class]  run the tests of every TestCase subclass (or of one)
  :quit, :q, :exit   leave the REPL (the workspace keeps running)
Type a Beamtalk expression to evaluate it on the workspace node, e.g. x := 3 + 4"""


@dataclass
class Outcome:
    ok: bool
    text: str
    quit: bool = False
    kind: str = "ok"
    warnings: list = field(default_factory=list)   # shown as `⚠ …`; never stop the input
    #: the node replaced the session's evaluator process: one line saying what was lost
    notice: str | None = None

    def lines(self) -> list[str]:
        """What the REPL prints for it: the text, then the notice."""
        return [t for t in (self.text, self.notice and "\u21bb " + self.notice) if t]


def print_outcome(outcome: Outcome) -> None:
    import sys

    for w in outcome.warnings:
        print("\u26a0 " + w, file=sys.stderr)
    print(outcome.text, flush=True)
    if outcome.notice:
        print("\u21bb " + outcome.notice, flush=True)


#: what a node with no compiler peer answers `Class reload` (beamtalk_compiler_peer)
_NO_PEER = "has no Beamtalk compiler of its own"


class Repl:
    def __init__(self, client: WorkspaceClient, filename: str = "<input>"):
        self.client = client
        self.filename = filename
        self.last_load: str | None = None
        #: the package (manifest) this REPL was opened in: `:reload` rebuilds it
        self.package = None
        #: the `:watch` task, and how its reload outcomes are shown (each front
        #: end sets its own: above the prompt, a JSON push line, …)
        self.watcher = None
        #: the roots this REPL asked the node to watch (`:watch off` unwatches them)
        self.watched: list[str] = []
        self.notify: Callable[[Outcome], None] = print_outcome

    async def evaluate(self, code: str, on_output: OutputCallback | None = None) -> Outcome:
        stripped = code.strip()
        if stripped.startswith(":"):
            line, newline, rest = stripped.partition("\n")
            if newline and line[1:].split(" ", 1)[0] not in _CODE_COMMANDS:
                # A command line, then more lines (a paste of `:load x.bt` and
                # the code that uses it): commands are one line, so run the
                # command, then the rest, and show both answers.
                return await self._one_then_other(self.command(line, on_output),
                                                  lambda: self.evaluate(rest, on_output))
            return await self.command(stripped, on_output)
        head, newline, last = stripped.rpartition("\n")
        if newline and last.startswith(":"):
            # A command at column 0 ends a multi-line input (`Object subclass:
            # Foo` ... then `:bindings`): no Beamtalk line starts with `:`, so
            # run the input, then the command, and show both answers.
            return await self._one_then_other(self.evaluate(head, on_output),
                                              lambda: self.command(last, on_output))
        m = _FIRST_WORD.match(stripped)
        if (m and m.group(1) in COMMAND_WORDS and not m.group(2).lstrip().startswith(":=")
                and m.group(1) not in self.client.bound_names):
            # (a bound name is a variable: `actors do: [...]` runs)
            return Outcome(False, f"Hint: did you mean `:{m.group(1)}`? REPL commands start with `:`",
                           kind="hint")
        out = await self.evaluate_code(code, on_output)
        if not out.ok and out.kind in ("syntax", "compile", "runtime"):
            from .shell_habits import habit    # `b().`, `h Enum.map`, `Object browse`, ...

            found = habit(stripped, self.client.bound_names)
            if found is not None:
                # a parse error ("a message takes no parentheses") names no
                # way forward here: the hint replaces it; a runtime error
                # keeps its text (and `_error`) with the hint under it, and so
                # does an unbound command word (`h go` is also a send to `h`,
                # a variable whose assignment may have failed)
                hint, command_word = found
                keep = out.kind == "runtime" or (command_word and out.kind == "compile")
                text = out.text + "\n" + hint if keep else hint
                return Outcome(False, text, kind="hint" if out.kind != "runtime" else out.kind,
                               warnings=out.warnings, notice=out.notice)
        return out

    @staticmethod
    async def _one_then_other(first_run, second_run) -> Outcome:
        """Two parts of one input, in order: the second runs only when the
        first succeeded; one Outcome shows both answers."""
        first = await first_run
        if not first.ok or first.quit:
            return first
        second = await second_run()
        return Outcome(second.ok, "\n".join(t for t in (first.text, second.text) if t),
                       quit=second.quit, kind=second.kind,
                       warnings=first.warnings + second.warnings,
                       notice=" ".join(n for n in (first.notice, second.notice) if n) or None)

    async def compile(self, code: str, module=None):
        """Compile an input against this session's bindings (asking the node
        about the classes it needs): the CompiledInput, or the Outcome that
        reports its syntax or compile errors."""
        from beamtalk_ws.compiler import CompileError, classes_needed, compile_module
        from beamtalk_ws.syntax import SyntaxErrors, parse
        from beamtalk_ws.syntax.source_bytes import check_input_text

        try:
            if module is None:
                check_input_text(code, self.filename)
            module = module or parse(code, self.filename)
            needed = classes_needed(module)
            table = await self.client.class_table(needed) if needed else None
            known = frozenset(self.client.bound_names)
            try:
                return compile_module(module, code, known, self.filename, table)
            except CompileError:
                # The node is the only source of truth for bindings: another
                # client of this session may have bound the name since our
                # last reply.  Ask once, and compile again if it knows more.
                if frozenset(await self.client.refresh_bindings()) == known:
                    raise
                return compile_module(module, code, frozenset(self.client.bound_names), self.filename, table)
        except SyntaxErrors as e:
            return Outcome(False, e.render(), kind="syntax")
        except CompileError as e:
            return Outcome(False, e.render(), kind="compile")

    async def evaluate_code(self, code: str, on_output: OutputCallback | None = None,
                            internal: bool = False) -> Outcome:
        """`internal`: code a command runs for itself, which leaves `_` alone."""
        compiled = await self.compile(code)
        if isinstance(compiled, Outcome):
            return compiled
        # the warnings are worked out while the node compiles and runs the input
        reply = await self.client.eval(compiled.forms, unique=compiled.unique, on_output=on_output,
                                       internal=internal, while_running=lambda: _lint_now(compiled))
        if reply.kind == "undefined_variable":
            # Compiled against a name another client of the session has since
            # unbound (`:clear`); the input ran up to that name, and its
            # bindings are unchanged.  Compile again against the node's names
            # for the located error every unbound name gets.
            await self.client.refresh_bindings()
            again = await self.compile(code)
            if isinstance(again, Outcome):
                return again
        return Outcome(reply.ok, reply.text, kind=reply.kind, warnings=compiled.warnings, notice=reply.notice)

    async def load(self, arg: str, reload: bool = False, on_output: OutputCallback | None = None) -> Outcome:
        """Compile and load a file or every .bt file of a directory."""
        from pathlib import Path

        from .loader import bt_files, plan

        text = arg.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]
        if not text.strip():
            # `:load ""` loaded the current directory: "Loaded 0 files from "
            return Outcome(False, "Usage: :load <file or directory>", kind="command")
        path = Path(text).expanduser()
        if not path.exists():
            return Outcome(False, f"File not found: {text}", kind="load")
        self.last_load = text
        files = bt_files(path)
        p = await plan(files, self.client)
        loaded = []
        if p.modules:
            reply = await self.client.load_modules([(m, f) for m, f, _, _ in p.modules], on_output=on_output)
            if not reply.ok:
                return Outcome(False, reply.text, kind="load")
            loaded = [name for _, _, name, _ in p.modules]
        if not path.is_dir():
            if p.errors:
                return Outcome(False, p.errors[0][1], kind="load", warnings=p.warnings)
            return Outcome(True, f"Loaded: {', '.join(loaded)}", warnings=p.warnings)
        verb = "Reloaded" if reload else "Loaded"
        lines = [f"{verb} {len(loaded)} files from {text}"]
        if p.errors:
            lines = [f"  \u2713 {len(loaded)} files loaded",
                     f"  \u2717 {len(p.errors)} files failed ({', '.join(f.name for f, _ in p.errors)})"]
            lines += [e for _, e in p.errors]
        return Outcome(not p.errors, "\n".join(lines), kind="ok" if not p.errors else "load",
                       warnings=p.warnings)

    async def load_package(self, on_output: OutputCallback | None = None) -> Outcome:
        """Build the REPL's package and load the classes whose code changed."""
        from beamtalk_ws.package.live import build_and_load

        done = await build_and_load(self.client, self.package, on_output=on_output)
        if not done.ok:
            return Outcome(False, done.text, kind="load", warnings=done.build.warnings if done.build else [])
        return Outcome(True, f"{done.text}; {done.reloaded} reloaded", warnings=done.build.warnings)

    async def reload_class(self, name: str) -> Outcome:
        """`:reload Counter` is `Counter reload` (spec/repl.md §4): the node
        recompiles the class's source file through its compiler peer."""
        if not name.isidentifier() or not name[:1].isupper():
            return Outcome(False, f"Usage: :reload [ClassName] (not {name!r})", kind="command")
        done = await self.evaluate_code(f"{name} reload", internal=True)
        if done.ok or _NO_PEER not in done.text:
            return done
        # A node Beamtalk was attached to (`repl --node`) has no compiler:
        # compile the class's file here, as `:load` does there.
        where = await self.evaluate_code(f"{name} sourceFile", internal=True)
        text = where.text
        if not (where.ok and len(text) >= 2 and text[0] == text[-1] == '"'):
            return done
        last = self.last_load
        try:
            return await self.load(text[1:-1].replace('""', '"'), reload=True)
        finally:
            self.last_load = last

    async def test(self, arg: str, on_output: OutputCallback | None = None) -> Outcome:
        """`:test` (every TestCase subclass of the workspace) or `:test Class`."""
        from beamtalk_ws.bunit import repl_output

        names = arg.split()
        if any(not n.isidentifier() or not n[:1].isupper() for n in names):
            return Outcome(False, "Usage: :test [ClassName]", kind="command")
        reply = await self.client.run_tests(names or None, on_output=on_output)
        if not reply.ok:
            return Outcome(False, reply.text, kind=reply.kind)
        ok, text = repl_output(reply.results or [])
        if not reply.results:
            if not names:
                # nothing loaded: say so, with the package's test/ when there is one
                text = self.no_tests() + "\n" + text
            else:
                # a misnamed method is not a passing suite
                why = (f"No test methods found in {names[0]}" if len(names) == 1
                       else "No test methods found in these classes")
                text = f"{why}: a test is a unary method named test... of a TestCase subclass\n{text}"
        return Outcome(ok, text, kind="ok" if ok else "test")

    def no_tests(self) -> str:
        """`:test` found nothing to run: say so, rather than a bare "0 passed"
        that reads like a passing suite (a package's test/ is not loaded)."""
        text = "No tests in this workspace: a test is a unary method named test... of a TestCase subclass"
        if self.package is not None and (self.package.root / "test").is_dir():
            return text + ("; this package's tests are in test/ and are not loaded: `:load test` loads them, "
                           "`beamtalk test` runs them in a workspace of their own")
        return text + " (define one, or :load a test file)"

    async def command(self, line: str, on_output: OutputCallback | None = None) -> Outcome:
        word, _, arg = line[1:].partition(" ")
        arg = arg.strip()
        from .commands import extra_command      # :help Class, :emit, :sessions, :workspace

        extra = await extra_command(self, word, arg)
        if extra is not None:
            return extra
        if word in ("quit", "q", "exit"):
            return Outcome(True, "Goodbye!", quit=True)
        if word in ("help", "h", "?"):
            return Outcome(True, HELP)
        if word in ("bindings", "b"):
            pairs = await self.client.bindings()
            if not pairs:
                return Outcome(True, "No bindings.")
            return Outcome(True, "\n".join(f"  {k} = {v}" for k, v in pairs))
        if word in ("load", "l"):
            if not arg:
                return Outcome(False, "Usage: :load <file or directory>", kind="command")
            return await self.load(arg, on_output=on_output)
        if word in ("reload", "r"):
            if arg:
                return await self.reload_class(arg)
            if self.last_load is None and self.package is not None:
                return await self.load_package(on_output)
            if self.last_load is None:
                return Outcome(False, "No file or directory loaded yet. Use :load <path> first.", kind="command")
            return await self.load(self.last_load, reload=True, on_output=on_output)
        if word in ("test", "t"):
            return await self.test(arg, on_output)
        if word == "clear":
            await self.client.clear()
            return Outcome(True, "Bindings cleared.")
        return Outcome(False, f"Unknown command :{word}. Type :help for the list of commands.", kind="command")


def _lint_now(compiled) -> None:
    """Work the warnings out now (the request is on its way); a lint that
    fails is left to fail where the warnings are read, after the reply, so
    the reply of a running evaluation is never abandoned."""
    try:
        compiled.warnings
    except Exception:  # noqa: BLE001 - re-raised when the Outcome reads them
        pass
