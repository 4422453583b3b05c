"""Compile errors carry the same Diagnostic type as syntax errors, so the REPL
and `beamtalk check` render both the same way (file:line:col, source line, caret)."""

from __future__ import annotations

from beamtalk_ws.syntax.diagnostics import Diagnostic, render_diagnostic


class CompileError(Exception):
    def __init__(self, diagnostics: list[Diagnostic], source: str = "", filename: str = "<input>"):
        self.diagnostics = list(diagnostics)
        self.source = source
        self.filename = filename
        super().__init__("; ".join(d.message for d in self.diagnostics))

    def render(self) -> str:
        return "\n".join(render_diagnostic(d, self.source, self.filename) for d in self.diagnostics)
