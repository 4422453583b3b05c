"""The compiler's part of `beamtalk check`: semantic diagnostics, `--emit forms`.

Checking runs without a node, so classes from outside the file are known only
by the stdlib kinds; everything else (scope, slots of value classes, method
bodies, duplicate selectors, one class per file) is checked exactly as a load
would.
"""

from __future__ import annotations

import sys

from beamtalk_ws.syntax import SyntaxErrors, ast, parse
from beamtalk_ws.syntax.doctest_marks import is_doctest
from beamtalk_ws.syntax.source_bytes import decode_source

from . import deep, lint, stdlib
from .errors import CompileError
from .forms import format_forms
from .modules import compile_file
from .semantic import ScopeCheck, with_slot_hints
from .units import compile_repl_statements


def semantic_pass(module: ast.Module, source: str, filename: str):
    """Extra pass for syntax.check.check_main: scope, then a dry-run of code generation."""
    try:
        return deep.run(_semantic_pass, module, source, filename, module, source, filename)
    except CompileError as e:
        return e.diagnostics


def _semantic_pass(module: ast.Module, source: str, filename: str):
    diags = ScopeCheck(frozenset()).run(module.items)
    if diags:
        return with_slot_hints(diags, module.items, None, source)
    try:
        if is_doctest(source):
            # a REPL transcript kept in source form (`beamtalk test` runs it
            # input by input): its classes are defined inline, as at the REPL
            compile_repl_statements(module.items, frozenset(), source, filename)
        elif any(isinstance(i, ast.ClassDef) for i in module.items):
            if stdlib.is_stdlib_file(filename):
                compile_file(module, source, filename, None, stdlib.module_for, stdlib=True)
            else:
                compile_file(module, source, filename)
        else:
            compile_repl_statements(module.items, frozenset(), source, filename)
    except CompileError as e:
        return with_slot_hints(e.diagnostics, module.items, None, source)
    return lint.warnings(module.items, source)


def emit_forms(path: str, out=None) -> int:
    """`beamtalk check --emit forms FILE`: the abstract forms the file compiles to."""
    out = out or sys.stdout
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        print(f"beamtalk check: {path}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        source = decode_source(data, path)
        module = parse(source, path)
        text = deep.run(_forms_text, module, source, path, module, source, path)
    except (SyntaxErrors, CompileError) as e:
        print(e.render(), file=out)
        return 1
    print(text, file=out)
    return 0


def _forms_text(module, source, path) -> str:
    diags = _semantic_pass(module, source, path)
    if diags:
        raise CompileError(diags, source, path)
    if any(isinstance(i, ast.ClassDef) for i in module.items):
        forms = compile_file(module, source, path).forms
    else:
        forms, _ = compile_repl_statements(module.items, frozenset(), source, path)
    return format_forms(forms)
