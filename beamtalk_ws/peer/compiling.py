"""What the peer compiles for the node, as the replies the node expects.

The same compiler and the same loader steps as the REPL client
(`repl/loader.py`, `compiler.compile_module`), so a source compiles to the
same forms whichever side asked (tests/test_compiler_peer.py compares
them).  Every failure becomes `{error, Text}` with the REPL's rendering
(file, line, caret); nothing here may bring the peer down.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from beamtalk_ws.compiler import CompileError, classes_needed, compile_module
from beamtalk_ws.dist.terms import Atom
from beamtalk_ws.repl import loader
from beamtalk_ws.syntax import SyntaxErrors, ast, parse

OK = Atom("ok")
ERROR = Atom("error")


def _text(b) -> str:
    return bytes(b).decode("utf-8") if isinstance(b, (bytes, bytearray)) else str(b)


def _error(text: str):
    return (ERROR, text.encode("utf-8"))


def _warnings(ws) -> list:
    return [w.encode("utf-8") for w in ws]


class Compiler:
    """Answers `{eval, Source}`, `{load, [Path]}` and
    `{method, Class, ClassSide, Source}` (see beamtalk_compiler_peer.erl)."""

    def __init__(self, tables):
        #: something with `async class_table(names)` (a WorkspaceClient)
        self.tables = tables

    async def handle(self, op):
        try:
            if isinstance(op, tuple) and op and op[0] == Atom("eval"):
                return await self.eval(_text(op[1]))
            if isinstance(op, tuple) and op and op[0] == Atom("load"):
                return await self.load([Path(_text(p)) for p in op[1]])
            if isinstance(op, tuple) and op and op[0] == Atom("method"):
                return await self.method(str(op[1]), op[2] is True, _text(op[3]))
            return _error(f"Internal error: the compiler peer does not know the request {op!r}")
        except Exception as e:  # noqa: BLE001 - one failed request, not a dead peer
            traceback.print_exc(file=sys.stderr)
            return _error(f"Internal compiler error: {type(e).__name__}: {e}")

    async def compile_source(self, source: str, filename: str):
        """The CompiledInput of `source` in a fresh scope (no bindings)."""
        module = parse(source, filename)
        needed = classes_needed(module)
        table = await self.tables.class_table(needed) if needed else None
        return module, compile_module(module, source, frozenset(), filename, table)

    async def eval(self, source: str):
        try:
            _, compiled = await self.compile_source(source, "<eval>")
        except (SyntaxErrors, CompileError) as e:
            return _error(e.render())
        return (OK, compiled.forms, compiled.unique, _warnings(compiled.warnings))

    async def method(self, class_name: str, class_side: bool, source: str):
        """`Counter compile: "double => self.n * 2"`: the method as the
        REPL's `Counter >> double => …`, so the class changes in place."""
        header = f"{class_name}{' class' if class_side else ''} >> "
        filename = f"<{class_name}{' class' if class_side else ''} compile:>"
        try:
            module, compiled = await self.compile_source(header + source.lstrip(), filename)
        except (SyntaxErrors, CompileError) as e:
            return _error(e.render())
        methods = [i for i in module.items if isinstance(i, ast.StandaloneMethod)]
        if len(methods) != 1 or len(module.items) != 1:
            return _error(f"compile: expects one method definition, like \"double => self.n * 2\" "
                          f"(got {source.strip()[:40]!r})")
        return (OK, compiled.forms, compiled.unique, _warnings(compiled.warnings),
                Atom(methods[0].method.selector))

    async def plan(self, files: list[Path]) -> loader.LoadPlan:
        """Compile class files as `:load` does (superclasses from the node)."""
        result = loader.LoadPlan()
        parsed = loader.parse_files(files, result)
        supers = loader.outside_superclasses(parsed)
        table = await self.tables.class_table(supers) if supers else loader.ClassTable()
        result = loader.compile_parsed(parsed, table, result)
        await loader.note_redefinitions(result, self.tables)
        return result

    async def load(self, paths: list[Path]):
        """All of the files or none: any file that does not compile is the error."""
        files = [f for p in paths for f in loader.bt_files(p)]
        if not files:
            return _error(f"No .bt files in {', '.join(map(str, paths))}")
        p = await self.plan(files)
        if p.errors:
            return _error("\n".join(text for _, text in p.errors))
        return (OK, module_terms(p), _warnings(p.warnings))


def module_terms(p: loader.LoadPlan) -> list:
    """[{Module, Forms, ClassName, File}] as the node loads them."""
    return [(Atom(m), forms, Atom(name), str(f).encode("utf-8")) for m, forms, name, f in p.modules]
