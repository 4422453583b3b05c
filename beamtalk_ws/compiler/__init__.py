"""The Beamtalk compiler: source text to Erlang abstract forms.

A sequence of passes, each a function from the previous stage's result, each
dumpable with `--emit <stage>` (LFE-style):

    parse     text  -> AST               (beamtalk_ws.syntax)
    check     AST   -> AST               scope and semantic diagnostics
    forms     AST   -> abstract forms    code generation

Nothing reaches the node unless every pass succeeded.
"""

from __future__ import annotations

from beamtalk_ws.syntax import ast, parse

from . import deep, lint
from .units import compile_repl_statements
from .errors import CompileError
from .semantic import ScopeCheck, with_slot_hints

STAGES = ("ast", "forms")


class CompiledInput:
    """The forms of one input, and its warnings (rendered texts, compiler.lint).

    The warnings are worked out on first use: the REPL sends the forms
    first and lints while the node compiles them, so the lints (about a
    third of the Python compile of a class) are off the round trip.
    `unique` is True when the input makes funs: it needs a module of its own."""

    __slots__ = ("forms", "unique", "module", "_warnings", "_lint")

    def __init__(self, forms: list, unique: bool, module: ast.Module, warnings: list | None = None,
                 lint=None):
        self.forms = forms
        self.unique = unique
        self.module = module
        self._warnings = warnings if warnings is not None or lint is not None else []
        self._lint = lint

    @property
    def warnings(self) -> list:
        if self._warnings is None:
            self._warnings = self._lint()
            self._lint = None
        return self._warnings


def compile_input(source: str, bound=frozenset(), filename: str = "<input>", table=None) -> CompiledInput:
    """Compile one REPL input against the names bound in the session.

    Raises `SyntaxErrors` or `CompileError`, both with located diagnostics.
    """
    return compile_module(parse(source, filename), source, bound, filename, table)


def classes_needed(module: ast.Module) -> set[str]:
    """Classes whose kind and fields the compiler must learn from the node."""
    names = set()
    for item in module.items:
        if isinstance(item, ast.ClassDef) and item.superclass:
            names.add(item.superclass)
        elif isinstance(item, ast.StandaloneMethod):
            names.add(item.class_name)
        for node in item.walk():
            # `X new` with a literal class name is checked against abstract classes.
            if isinstance(node, (ast.UnarySend, ast.KeywordSend)) and isinstance(node.receiver, ast.GlobalRef) \
                    and node.selector in ("new", "new:", "spawn", "spawnWith:"):
                names.add(node.receiver.name)
    return names


def compile_module(module: ast.Module, source: str, bound=frozenset(), filename: str = "<input>",
                   table=None) -> CompiledInput:
    """Compile an already parsed REPL input (see compile_input)."""
    return deep.run(_compile_module, module, source, filename, module, source, bound, filename, table)


def _compile_module(module, source, bound, filename, table) -> CompiledInput:
    statements = list(module.items)
    diagnostics = ScopeCheck(frozenset(bound)).run(statements)
    if diagnostics:
        raise CompileError(with_slot_hints(diagnostics, statements, table, source), source, filename)
    try:
        forms, unique = compile_repl_statements(statements, frozenset(bound), source, filename, table)
    except CompileError as e:
        e.diagnostics = with_slot_hints(e.diagnostics, statements, table, source)
        raise
    return CompiledInput(forms, unique, module,
                         lint=lambda: deep.run(_warnings, statements, source, filename,
                                               statements, source, bound, filename, table))


def _warnings(statements, source, bound, filename, table) -> list:
    found = (lint.warnings(statements, source, table) + lint.session_warnings(statements, bound)
             + lint.division_comment_warnings(statements, source, bound))
    return lint.render(found, source, filename)


__all__ = ["CompileError", "CompiledInput", "compile_input", "compile_module", "classes_needed", "STAGES"]
