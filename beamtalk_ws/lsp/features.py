"""What the language server answers about one document, as LSP types.

Diagnostics are exactly `beamtalk check`'s (the parser, then the compiler's
semantic pass); symbols, hover and definition read the parsed document and
the class index.  Nothing here needs a node.
"""

from __future__ import annotations

import re

from lsprotocol import types as T

from .index import ClassEntry, ClassIndex
from .text import Lines, word_at


def _range(lines: Lines, start: int, end: int) -> T.Range:
    a, b = lines.position(start), lines.position(max(start, end))
    return T.Range(T.Position(*a), T.Position(*b))


# ---------------------------------------------------------------- diagnostics

def check(source: str, path: str):
    """(module or None, [Diagnostic]) as `beamtalk check` finds them."""
    from beamtalk_ws.compiler.check import semantic_pass
    from beamtalk_ws.syntax.check import check_source

    try:
        return check_source(source, path, (semantic_pass,))
    except RecursionError:
        from beamtalk_ws.syntax import parse_with_diagnostics

        return parse_with_diagnostics(source, path)


def diagnostics(source: str, diags) -> list[T.Diagnostic]:
    lines = Lines(source)
    out = []
    for d in diags:
        start = min(d.span.start, len(source))
        end = min(max(d.span.end, start + 1), len(source))
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        out.append(T.Diagnostic(range=_range(lines, start, end),
                                message=message, source="beamtalk",
                                severity=T.DiagnosticSeverity.Error if d.severity == "error"
                                else T.DiagnosticSeverity.Warning))
    return out


# ---------------------------------------------------------------- symbols

def _first_line(lines: Lines, start: int, end: int) -> tuple[int, int]:
    nl = lines.source.find("\n", start, end)
    return start, (end if nl < 0 else nl)


def symbols(source: str, module) -> list[T.DocumentSymbol]:
    from beamtalk_ws.syntax import ast

    if module is None:
        return []
    lines = Lines(source)

    def method_symbol(m, name: str, start: int, end: int) -> T.DocumentSymbol:
        return T.DocumentSymbol(name=name, kind=T.SymbolKind.Method, range=_range(lines, start, end),
                                selection_range=_range(lines, *_first_line(lines, start, end)),
                                detail=(m.doc or "").strip().split("\n")[0] or None)

    out = []
    for item in module.items:
        if isinstance(item, ast.ClassDef):
            sp = item.span
            children = [T.DocumentSymbol(name=s.name, kind=T.SymbolKind.Field, range=_range(lines, *_span(s)),
                                         selection_range=_range(lines, *_span(s))) for s in item.state]
            children += [method_symbol(m, ("class " if m.class_side else "") + m.selector, *_span(m))
                         for m in item.methods]
            named = re.compile(r"subclass:\s*(" + re.escape(item.name) + r")\b").search(source, sp.start, sp.end)
            sel = named.span(1) if named else _first_line(lines, sp.start, sp.end)
            out.append(T.DocumentSymbol(name=item.name, kind=T.SymbolKind.Class, range=_range(lines, sp.start, sp.end),
                                        selection_range=_range(lines, *sel), children=children,
                                        detail=f"{item.superclass} subclass" if item.superclass else None))
        elif isinstance(item, ast.StandaloneMethod):
            side = " class" if item.class_side else ""
            out.append(method_symbol(item.method, f"{item.class_name}{side} >> {item.method.selector}",
                                     *_span(item)))
    return out


def _span(node) -> tuple[int, int]:
    sp = node.span
    return sp.start, sp.end


# ---------------------------------------------------------------- what is under the cursor

def receiver_class(source: str, end: int) -> tuple[str, bool] | None:
    """The class (and side) of the receiver of the selector ending at `end`, when the text tells."""
    from beamtalk_ws.repl.analysis import analyse

    ctx = analyse(source[:end], ())
    if ctx.kind != "selector" or not ctx.receiver:
        return None
    how, name = ctx.receiver[:2]
    if how == "instance":
        return name, False
    if how == "class":
        return name, True
    return None


def lookup(index: ClassIndex, source: str, offset: int):
    """('class', ClassEntry) or ('methods', word, [(ClassEntry, MethodEntry)], receiver) for the word at offset."""
    found = word_at(source, offset)
    if found is None:
        return None
    word, start, end = found
    if start > 1 and source[start - 1] == "." and (source[start - 2].isalnum() or source[start - 2] == "_"):
        return None  # `self.lines`: a field, not the message `lines`
    if word[:1].isupper() and not word.endswith(":"):
        c = index.classes().get(word)
        return ("class", c) if c is not None else None
    recv_end = start
    if word.endswith(":"):
        word, recv_end = _keyword_selector(source, start, word)
    recv = receiver_class(source, recv_end) if recv_end > 0 else None
    if recv is not None:
        methods = [(c, m) for c, m in index.methods(recv[0], recv[1]) if _matches(m.selector, word)]
    else:
        methods = [(c, m) for c in index.classes().values() for m in c.methods if _matches(m.selector, word)]
    return ("methods", word, methods, recv) if methods else None


def _keyword_selector(source: str, offset: int, part: str) -> tuple[str, int]:
    """The whole selector (`at:put:`) of the keyword message or method header whose part is at
    `offset`, and where its first keyword starts (what comes before it is the receiver)."""
    from beamtalk_ws.syntax import ast, parse_with_diagnostics

    module, _ = parse_with_diagnostics(source)
    best = None
    for node in (module.walk() if module is not None else ()):
        if isinstance(node, (ast.KeywordSend, ast.MethodDef)) and part in node.selector:
            sp = node.span
            if sp.start <= offset < sp.end and (best is None or sp.end - sp.start < best[0]):
                first = offset
                if isinstance(node, ast.KeywordSend):
                    first = node.receiver.span.end
                    while first < len(source) and source[first] in " \t\r\n)":
                        first += 1
                best = (sp.end - sp.start, node.selector, first)
    return (best[1], best[2]) if best else (part, offset)


def _matches(selector: str, word: str) -> bool:
    if word.endswith(":"):
        return selector == word or selector.startswith(word) or (":" + word) in selector
    return selector == word


def hover(index: ClassIndex, source: str, offset: int) -> str | None:
    """Markdown for the word at `offset`: `:help Class` for a class, `:help Class sel` for a method."""
    from beamtalk_ws.repl.commands import class_help, method_help

    found = lookup(index, source, offset)
    if found is None:
        return None
    if found[0] == "class":
        docs = index.docs(found[1].name)
        return _code(class_help(docs)) if docs else None
    _, word, methods, recv = found
    parts = []
    for c, m in methods[:8]:
        docs = index.docs(recv[0] if recv else c.name)
        text = method_help(docs, m.selector) if docs else None
        if text and text not in parts:
            parts.append(text)
    if len(methods) > 8:
        parts.append(f"… and {len(methods) - 8} more implementors of {word}")
    return _code("\n\n".join(parts)) if parts else None


def _code(text: str) -> str:
    return f"```\n{text}\n```"


def definition(index: ClassIndex, source: str, offset: int) -> list[tuple[str, int, int, str]]:
    """Where the class or method at `offset` is written: [(path, start, end, source text)]."""
    found = lookup(index, source, offset)
    if found is None:
        return []
    if found[0] == "class":
        c: ClassEntry = found[1]
        return [(c.path, c.start, c.end, c.source)]
    return [(m.path, m.start, m.end, m.source) for _, m in found[2]]


def location(path: str, start: int, end: int, text: str) -> T.Location:
    from pathlib import Path

    lines = Lines(text)
    return T.Location(uri=Path(path).resolve().as_uri(), range=_range(lines, *_first_line(lines, start, end)))
