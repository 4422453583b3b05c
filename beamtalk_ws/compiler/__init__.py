"""The Beamtalk compiler: source text to Erlang abstract forms.

A sequence of passes, each a function from the previous stage's result, each
dumpable with `--emit <stage>` (LFE-style):

    parse     text  -> AST               (beamtalk_ws.syntax)
    check     AST   -> AST               scope and semantic diagnostics
    forms     AST   -> abstract forms    code generation

Nothing reaches the node unless every pass succeeded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from beamtalk_ws.syntax import ast, parse

from . import deep, lint
from .units import compile_repl_statements
from .errors import CompileError
from .semantic import ScopeCheck, with_slot_hints

STAGES = ("ast", "forms")


@dataclass
class CompiledInput:
    forms: list
    unique: bool          # True when the input makes funs: it needs a module of its own
    module: ast.Module
    warnings: list = field(default_factory=list)   # rendered warning texts (compiler.lint)


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
    found = (lint.warnings(statements, source, table) + lint.session_warnings(statements, bound)
             + lint.division_comment_warnings(statements, source, bound))
    return CompiledInput(forms, unique, module, lint.render(found, source, filename))


__all__ = ["CompileError", "CompiledInput", "compile_input", "compile_module", "classes_needed", "STAGES"]
