"""Syntax highlighting of the input line with the project's own lexer.

`BeamtalkLexer` is a prompt_toolkit `Lexer`: the whole input is lexed once
per change (`beamtalk_ws.syntax.lexer.lex`, which never raises), every
token gets a style class after its kind, and the trivia between tokens is
whitespace or a comment (the lexer does not materialise trivia, so anything
in it that is not whitespace is a comment).  `fragments(text)` is the same
thing as a flat list, for tests.
"""

from __future__ import annotations

from prompt_toolkit.lexers import Lexer

PSEUDO = frozenset({"self", "super", "true", "false", "nil", "thisContext"})
_KIND_STYLE: dict = {}


def _kind_styles() -> dict:
    """Token kind -> style class (the lexer is imported at the first keystroke,
    not at start-up)."""
    if not _KIND_STYLE:
        from beamtalk_ws.syntax import lexer as L

        _KIND_STYLE.update({
            L.K_KEYWORD: "class:bt.keyword",
            L.K_INT: "class:bt.number",
            L.K_FLOAT: "class:bt.number",
            L.K_STRING: "class:bt.string",
            L.K_STR_START: "class:bt.string",
            L.K_STR_SEG: "class:bt.string",
            L.K_STR_END: "class:bt.string",
            L.K_SYMBOL: "class:bt.symbol",
            L.K_CHAR: "class:bt.string",
            L.K_BINOP: "class:bt.operator",
            L.K_ASSIGN: "class:bt.operator",
            L.K_CARET: "class:bt.return",
            L.K_FATARROW: "class:bt.operator",
            L.K_PRIMITIVE: "class:bt.directive",
            L.K_INTRINSIC: "class:bt.directive",
            L.K_EXPECT: "class:bt.directive",
        })
    return _KIND_STYLE

#: Colours for the classes above (merged into the REPL's style).
STYLE = {
    "bt.keyword": "#5f87d7",
    "bt.number": "#d78700",
    "bt.string": "#5faf5f",
    "bt.symbol": "#af87d7",
    "bt.operator": "#808080",
    "bt.return": "#d75f5f bold",
    "bt.directive": "#af5f87",
    "bt.class": "#00afaf",
    "bt.pseudo": "#d75f87",
    "bt.comment": "#808080 italic",
    "bt.error": "bg:#5f0000 #ffffff",
    "bt.command": "#af87ff bold",
}


def _token_style(t, i: int, L) -> str:
    kind = t.kinds[i]
    if kind == L.K_IDENT:
        text = t.text(i)
        if text in PSEUDO:
            return "class:bt.pseudo"
        return "class:bt.class" if text[:1].isupper() else ""
    if kind == L.K_ERROR:
        err = t.values[i]
        # Still being typed (an open string or comment): not an error yet.
        if getattr(err, "unterminated", False):
            return "class:bt.comment" if t.text(i).startswith("/") else "class:bt.string"
        return "class:bt.error"
    return _kind_styles().get(kind, "")


def _trivia(text: str, out: list) -> None:
    """Whitespace plain, comments styled (a trivia run is never a token)."""
    i = 0
    n = len(text)
    while i < n:
        j = i
        while j < n and text[j] in " \t\r\n":
            j += 1
        if j > i:
            out.append(("", text[i:j]))
        if j >= n:
            return
        if text.startswith("//", j):
            k = text.find("\n", j)
            k = n if k < 0 else k
        elif text.startswith("/*", j):
            k = text.find("*/", j + 2)
            k = n if k < 0 else k + 2
        else:
            k = j + 1
            while k < n and text[k] not in " \t\r\n":
                k += 1
        out.append(("class:bt.comment", text[j:k]))
        i = k


def fragments(text: str) -> list[tuple[str, str]]:
    """(style, text) pairs covering `text` exactly."""
    if not text.strip():
        return [("", text)] if text else []
    if text.lstrip().startswith(":") and "\n" not in text.strip():
        lead = len(text) - len(text.lstrip())
        word_end = text.find(" ", lead)
        word_end = len(text) if word_end < 0 else word_end
        return [x for x in (("", text[:lead]), ("class:bt.command", text[lead:word_end]),
                            ("", text[word_end:])) if x[1]]
    from beamtalk_ws.syntax import lexer as L

    t = L.lex(text)
    out: list[tuple[str, str]] = []
    pos = 0
    for i in range(len(t.kinds)):
        start, end = t.starts[i], t.ends[i]
        if start is None:
            continue
        if start > pos:
            _trivia(text[pos:start], out)
        if end > start:
            out.append((_token_style(t, i, L), text[start:end]))
        pos = max(pos, end)
    if pos < len(text):
        _trivia(text[pos:], out)
    return out


def split_lines(frags):
    """Fragments per line (prompt_toolkit asks for one line at a time)."""
    lines: list[list] = [[]]
    for style, text in frags:
        parts = text.split("\n")
        for k, part in enumerate(parts):
            if k:
                lines.append([])
            if part:
                lines[-1].append((style, part))
    return lines


class BeamtalkLexer(Lexer):
    def lex_document(self, document):
        lines = split_lines(fragments(document.text))

        def get_line(lineno: int):
            return lines[lineno] if 0 <= lineno < len(lines) else []

        return get_line
