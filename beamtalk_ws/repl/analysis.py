"""What is being typed at the cursor, read with the project's lexer (for
completion, completer.py): the kind of word, its prefix, and for a selector
its receiver when that can be told from the text alone (a binding, a
literal, a class, a metaclass (`Counter class`), `Erlang`, an Erlang module,
any of these in parentheses or followed by unary sends).

`analyse(text_before_cursor, bound_names) -> Context`; pure, no node.
"""

from __future__ import annotations

from dataclasses import dataclass

from beamtalk_ws.interop_names import ERLANG_CLASS_SELECTORS
from beamtalk_ws.syntax import lexer as L

PSEUDO = ("self", "super", "true", "false", "nil", "thisContext")
LITERAL_CLASS = {L.K_INT: "Integer", L.K_FLOAT: "Float", L.K_STRING: "String", L.K_STR_END: "String",
                 L.K_SYMBOL: "Symbol", L.K_CHAR: "Character"}
PSEUDO_CLASS = {"true": "True", "false": "False", "nil": "UndefinedObject"}
#: Tokens after which an expression (a primary) starts.
_STARTS = frozenset({L.K_LPAREN, L.K_LBRACKET, L.K_LBRACE, L.K_HASH_PAREN, L.K_HASH_BRACKET,
                     L.K_HASH_BRACE, L.K_PERIOD, L.K_ASSIGN, L.K_CARET, L.K_KEYWORD, L.K_BINOP,
                     L.K_PIPE, L.K_FATARROW, L.K_STR_START, L.K_STR_SEG, L.K_BANG})
_CLOSERS = {L.K_RBRACKET: (L.K_LBRACKET, L.K_HASH_BRACKET), L.K_RPAREN: (L.K_LPAREN, L.K_HASH_PAREN),
            L.K_RBRACE: (L.K_LBRACE, L.K_HASH_BRACE)}
_OPENER_CLASS = {L.K_LBRACKET: "Block", L.K_HASH_BRACKET: "Array", L.K_HASH_PAREN: "List",
                 L.K_HASH_BRACE: "Dictionary"}
_PATH_COMMANDS = ("load", "l", "watch", "w")
_CLASS_COMMANDS = ("help", "h", "?", "reload", "r")
_MAX_PARENS = 32                             # parentheses looked into, nested
_CODE_COMMANDS = {"emit": 1, "show-codegen": 0, "sc": 0}   # words to skip before the code


@dataclass(frozen=True)
class Context:
    """What is being completed: `kind`, the typed `prefix` starting at `start`,
    and for selectors the receiver `(how, name)` (how: binding | instance |
    class | metaclass | erlang | erlang-class), or `("chain", (how, name),
    (unary selectors…))` for unary sends whose result only the node can
    tell (`x size`, `Object classBuilder`)."""

    kind: str            # none | command | path | class | help-selector | primary | selector
    prefix: str = ""
    start: int = 0
    receiver: tuple | None = None
    #: the keyword message the word may continue: `(receiver, "between:")`
    #: for `3 between: 1 a` (Tab offers `and:` beside `1`'s unary selectors)
    keyword: tuple | None = None


# ---------------------------------------------------------------- reading the text

def analyse(text: str, bound=()) -> Context:
    """The completion context at the end of `text` (the text before the cursor)."""
    stripped = text.lstrip()
    lead = len(text) - len(stripped)
    if stripped.startswith(":") and "\n" not in stripped:
        return _command_context(stripped, lead, bound)
    return _code_context(text, 0, bound)


def _command_context(line: str, offset: int, bound) -> Context:
    word, sep, rest = line[1:].partition(" ")
    if not sep:
        return Context("command", line, offset)
    arg_at = offset + 1 + len(word) + 1
    lead = len(rest) - len(rest.lstrip())
    arg_at += lead
    arg = rest.lstrip()
    if word in _PATH_COMMANDS:
        return Context("path", arg, arg_at)
    if word in _CLASS_COMMANDS:
        parts = arg.split(" ")
        if len(parts) == 1:
            return Context("class", arg, arg_at)
        if len(parts) == 2 and word in ("help", "h", "?") and parts[0][:1].isupper():
            return Context("help-selector", parts[1], arg_at + len(parts[0]) + 1, ("instance", parts[0]))
        return Context("none")
    if word in _CODE_COMMANDS:
        skip = _CODE_COMMANDS[word]
        code, at = arg, arg_at
        for _ in range(skip):
            first, sp, code2 = code.partition(" ")
            if not sp:
                return Context("none") if word != "emit" else _emit_kind(first, at)
            at += len(first) + 1
            code = code2
        return _code_context(code, at, bound)
    return Context("none")


def _emit_kind(first: str, at: int) -> Context:
    return Context("word", first, at, ("forms", "ast"))


def _code_context(text: str, offset: int, bound) -> Context:
    t = L.lex(text)
    n = len(t.kinds) - 1                         # index of EOF
    if n > 0 and t.kinds[n - 1] == L.K_ERROR:
        return Context("none")                   # inside an unterminated string or comment, or bad input
    tail = text[t.ends[n - 1] if n else 0:]
    if t.unterminated_comment or ("//" in tail and "\n" not in tail.rsplit("//", 1)[1]):
        return Context("none")                   # inside a comment
    p = n
    prefix = ""
    if n > 0 and t.ends[n - 1] == len(text) and t.kinds[n - 1] in (L.K_IDENT, L.K_KEYWORD):
        p = n - 1
        prefix = t.text(p)
    elif n > 0 and t.ends[n - 1] == len(text):
        return Context("none")                   # right after a literal or punctuation
    start = offset + (t.starts[p] if p < n else len(text))
    r = p - 1
    if r < 0 or t.kinds[r] in _STARTS:
        if prefix.endswith(":"):
            return Context("none")
        return Context("primary", prefix, start)
    if t.kinds[r] == L.K_SEMI:
        return Context("none")                   # a cascade: the receiver is not at hand here
    receiver = _receiver(t, r, bound)
    keyword = _keyword_message(t, r, bound)
    if receiver is None and keyword is None:
        return Context("none")
    return Context("selector", prefix, start, receiver, keyword)


def _keyword_message(t, r: int, bound):
    """When the expression ending at token `r` is the last argument of a
    keyword message (`3 between: 1`), that message's receiver and its
    keywords so far: `(("instance", "Integer"), "between:")`; else None.
    Arguments may be binary expressions; the receiver must be an operand
    whose class the text tells (`_operand`)."""
    s = _chain_start(t, r)
    parts = []
    while s is not None and s > 1 and t.kinds[s - 1] == L.K_KEYWORD:
        parts.append(t.text(s - 1))
        end = s - 2
        s = _chain_start(t, end)
    if not parts or s is None:
        return None
    found = _operand(t, end, bound)
    if found is None or found[1] != s or (s > 0 and t.kinds[s - 1] not in _STARTS):
        return None
    return found[0], "".join(reversed(parts))


def _chain_start(t, i: int):
    """The first token of the operand, or of the binary expression of
    operands, that ends at token `i` (structure only: no classes)."""
    while True:
        while i > 0 and t.kinds[i] == L.K_IDENT and not _is_primary(t, i):
            i -= 1                               # unary sends
        k = t.kinds[i]
        if k in _CLOSERS:
            j = _opener(t, i)
            if j is None:
                return None
            i = j
        elif k in LITERAL_CLASS:
            i = _string_start(t, i)
        elif k != L.K_IDENT:
            return None
        if i > 1 and t.kinds[i - 1] == L.K_BINOP:
            i -= 2                               # `a + b`: go on with `a`
            continue
        return i


def _is_primary(t, i: int) -> bool:
    return i == 0 or t.kinds[i - 1] in _STARTS


def _receiver(t, r: int, bound):
    """What the expression ending at token `r` is, if the text tells."""
    found = _operand(t, r, bound)
    return None if found is None else found[0]


def _operand(t, i: int, bound, depth: int = 0):
    """The receiver `(how, …)` of the operand (a primary and its unary
    sends) ending at token `i`, and the index of its first token; None when
    the text does not tell.  Steps that compiled code answers without a
    send (`class`, `yourself`: semantics §2) are taken here; any other
    unary send makes a `("chain", base, selectors)` for the node to follow
    (beamtalk_complete.erl), which never runs code to do it."""
    sels = []
    while i > 0 and t.kinds[i] == L.K_IDENT and not _is_primary(t, i):
        sels.append(t.text(i))
        i -= 1
    sels.reverse()
    found = _primary(t, i, bound, depth)
    if found is None:
        return None
    base, start = found
    for sel in sels:
        base = _step(base, sel)
        if base is None:
            return None
    return base, start


def _step(recv, sel: str):
    """The receiver of the next send after `recv sel`."""
    how = recv[0]
    if how == "erlang-class":
        if sel in ERLANG_CLASS_SELECTORS:        # `Erlang class`: a message to the class, as compiled
            return _step(("class", "Erlang"), sel)
        return ("erlang", sel)                   # `Erlang lists`: the module
    if how == "erlang":
        return None                              # what an Erlang function answers is not known
    if sel == "yourself":
        return recv
    if sel == "class" and how == "instance":
        return ("class", recv[1])
    if sel == "class" and how == "class":
        return ("metaclass", recv[1])
    if how == "chain":
        return ("chain", recv[1], recv[2] + (sel,))
    return ("chain", recv, (sel,))


def _primary(t, i: int, bound, depth: int):
    kind = t.kinds[i]
    if kind in LITERAL_CLASS:
        if kind == L.K_STR_END or _is_primary(t, i):
            return ("instance", LITERAL_CLASS[kind]), _string_start(t, i)
        return None
    if kind == L.K_IDENT:
        if not _is_primary(t, i):
            return None
        name = t.text(i)
        if name in PSEUDO_CLASS:
            return ("instance", PSEUDO_CLASS[name]), i
        if name == "Erlang":
            return ("erlang-class", name), i
        if name[:1].isupper():
            return ("class", name), i
        if name in bound:
            return ("binding", name), i
        return None
    if kind in _CLOSERS:
        j = _opener(t, i)
        if j is None or t.kinds[j] not in _CLOSERS[kind] or not _is_primary(t, j):
            return None
        if t.kinds[j] in _OPENER_CLASS:
            return ("instance", _OPENER_CLASS[t.kinds[j]]), j
        if t.kinds[j] == L.K_LPAREN and i - 1 > j and depth < _MAX_PARENS:
            # `(expr)`: what expr is, when it is an operand (`y := ` before it allowed).
            inner = _operand(t, i - 1, bound, depth + 1)
            if inner is None:
                return None
            k = inner[1]
            while k - 2 > j and t.kinds[k - 1] == L.K_ASSIGN and t.kinds[k - 2] == L.K_IDENT:
                k -= 2
            if k == j + 1:
                return inner[0], j
        return None
    return None


def _opener(t, i: int):
    """The index of the bracket that the closer at `i` closes."""
    depth = 0
    for j in range(i, -1, -1):
        k = t.kinds[j]
        if k in _CLOSERS:
            depth += 1
        elif k in _OPENERS:
            depth -= 1
            if depth == 0:
                return j
    return None


def _string_start(t, i: int) -> int:
    """The first token of the string literal ending at `i` (an interpolated
    string spans several)."""
    if t.kinds[i] != L.K_STR_END:
        return i
    depth = 0
    for j in range(i, -1, -1):
        k = t.kinds[j]
        if k == L.K_STR_END:
            depth += 1
        elif k == L.K_STR_START:
            depth -= 1
            if depth == 0:
                return j
    return 0


_OPENERS = frozenset(o for pair in _CLOSERS.values() for o in pair)
