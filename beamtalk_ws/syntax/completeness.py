"""Is a REPL input complete, incomplete or invalid? (spec/syntax.md §10,
adapted to this project's indentation-preserving REPL, spec/repl.md §3.)

``completeness(text)`` answers

* ``"incomplete"`` – wait for another line:

  0. the input so far is only ``///`` doc-comment lines (they belong to
     the class or method typed next);

  1. a string, quoted symbol or block comment is unterminated;
  2. a bracket ``( [ { #( #[ #{`` (or a string interpolation) is unclosed;
  3. the last token is a keyword, a binary operator, ``:=``, ``;``, ``^``, a
     directive waiting for its argument, or ``=>`` (a method header with no
     body yet – unless the last line is empty, see 4b);
  4. *class mode*: the input contains a class definition header
     (``[modifiers] Super subclass: Name``) or a standalone method header
     (``Class [class] >> pattern =>``) that has not been closed by a
     column-0 line which is not a class-body item.  Then:

     a. the last line is the header line itself → incomplete unless a method
        (``=>``) is already on it (``Counter >> reset => self.value := 0``);
     b. the last line is empty → complete once a method (``=>``) has
        appeared; before the first method, blank lines are just appended
        (pasted class headers often have a blank line before the first
        method) and a *second* consecutive empty line submits the class
        anyway (a class without methods, e.g. ``Error subclass: MyError``);
     c. the last line starts at column 0 → complete once a method has
        appeared (also what happens when a class is typed without any
        indentation: it is submitted at its first method line, like the
        original REPL); before the first method (``state:`` lines at column
        0) → incomplete;
     d. the last line is indented (or holds only a comment) → incomplete:
        it may be followed by more lines of the same method or by more
        methods.

     So a class typed line by line gets any number of multi-line methods
     (indent the method bodies) and is submitted by an empty line or by a
     column-0 statement (``Counter spawn``), which is evaluated after the
     class.  A whole class pasted at once works the same way: a column-0
     line after it, or a trailing empty line, submits it.

* ``"invalid"`` – no continuation can make the input parse: a closing
  bracket without (or not matching) its opener, e.g. ``]`` alone, or the
  input is otherwise structurally complete but does not parse.
* ``"complete"`` – otherwise (the input parses).

``"invalid"`` and ``"complete"`` both mean "submit now"; the difference lets a
client show the error without a round trip.
"""

from __future__ import annotations

from .lexer import (
    K_ASSIGN,
    K_BINOP,
    K_CARET,
    K_EOF,
    K_ERROR,
    K_EXPECT,
    K_FATARROW,
    K_HASH_BRACE,
    K_HASH_BRACKET,
    K_HASH_PAREN,
    K_INTRINSIC,
    K_KEYWORD,
    K_LBRACE,
    K_LBRACKET,
    K_LPAREN,
    K_PRIMITIVE,
    K_RBRACE,
    K_RBRACKET,
    K_RPAREN,
    K_SEMI,
    K_STR_END,
    K_STR_START,
)
from .parser import ParseError, Parser

COMPLETE = "complete"
INCOMPLETE = "incomplete"
INVALID = "invalid"

_CLOSER_FOR = {
    K_LPAREN: K_RPAREN,
    K_HASH_PAREN: K_RPAREN,
    K_LBRACKET: K_RBRACKET,
    K_HASH_BRACKET: K_RBRACKET,
    K_LBRACE: K_RBRACE,
    K_HASH_BRACE: K_RBRACE,
    K_STR_START: K_STR_END,
}
_CLOSERS = frozenset((K_RPAREN, K_RBRACKET, K_RBRACE, K_STR_END))
_TRAILING = frozenset((K_KEYWORD, K_BINOP, K_ASSIGN, K_SEMI, K_CARET, K_PRIMITIVE, K_INTRINSIC, K_EXPECT))


def completeness(text: str) -> str:
    """``'complete'``, ``'incomplete'`` or ``'invalid'`` (see module doc)."""
    if not text.strip():
        return COMPLETE
    if all(line.lstrip().startswith("///") for line in text.splitlines() if line.strip()):
        # A doc comment documents what follows it (a class or a method): alone
        # it would be evaluated as nothing and its text lost.
        return INCOMPLETE
    p = Parser(text)
    t = p.toks
    K = p.K
    V = p.V
    if t.unterminated_comment:
        return INCOMPLETE
    # 1./2. unterminated tokens and brackets; remember bracket depth per token
    stack = []
    depth = [0] * len(K)
    for i, k in enumerate(K):
        if k == K_ERROR and V[i].unterminated:
            return INCOMPLETE
        if k in _CLOSER_FOR:
            depth[i] = len(stack)
            stack.append(k)
        elif k in _CLOSERS:
            if not stack or _CLOSER_FOR[stack[-1]] != k:
                return INVALID
            stack.pop()
            depth[i] = len(stack)
        else:
            depth[i] = len(stack)
    if stack:
        return INCOMPLETE

    n = len(K) - 1  # index of EOF
    last = n - 1
    last_line_start = text.rfind("\n") + 1
    last_line = text[last_line_start:]
    blank_last = last_line.strip() == "" and last_line_start > 0

    # 3. trailing operator / keyword / ...
    if last >= 0:
        if K[last] in _TRAILING:
            return INCOMPLETE
        if K[last] == K_FATARROW and not blank_last:
            return INCOMPLETE

    # 4. class mode
    header = -1
    standalone = False
    for i in range(n):
        if depth[i] == 0 and (i == 0 or p.NL[i]):
            if p.class_header_at(i) >= 0:
                header, standalone = i, False
            elif p.standalone_at(i):
                header, standalone = i, True
    if header >= 0:
        verdict = _class_mode(p, text, header, standalone, depth, n, last_line_start, blank_last)
        if verdict is not None:
            return verdict

    # structurally complete: does it parse?
    return _parse_verdict(p)


def _class_mode(p: Parser, text, header, standalone, depth, n, last_line_start, blank_last):
    K = p.K
    NL = p.NL
    V = p.V
    arrow_seen = standalone
    for j in range(header + 1, n):
        if depth[j] != 0:
            continue
        if K[j] == K_FATARROW:
            arrow_seen = True
        if NL[j] and p.at_col1(j):
            if standalone:
                return None  # a column-0 line ended the method
            is_item = (K[j] == K_KEYWORD and V[j] in ("state:", "classState:")) or p.method_def_at(j) >= 0
            if not is_item:
                return None  # the class has ended; normal rules
    if blank_last:
        if arrow_seen:
            return None
        prev_end = last_line_start - 1
        prev_start = text.rfind("\n", 0, prev_end) + 1
        if text[prev_start:prev_end].strip() == "" and prev_start > 0:
            return None  # two empty lines: submit a class without methods
        return INCOMPLETE
    # first token on the last line
    first_on_last = -1
    S = p.S
    for j in range(n - 1, -1, -1):
        if S[j] < last_line_start:
            break
        first_on_last = j
    if first_on_last >= 0 and S[first_on_last] == last_line_start:
        # a column-0 line (possibly the header line itself)
        return None if arrow_seen else INCOMPLETE
    return INCOMPLETE  # indented or comment-only last line


def _parse_verdict(p: Parser) -> str:
    try:
        p.parse_module()
    except (ParseError, RecursionError):
        return INVALID
    return INVALID if any(d.severity == "error" for d in p.diags) else COMPLETE
