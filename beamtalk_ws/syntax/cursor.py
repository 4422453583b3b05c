"""The parser's token cursor: the token arrays of one source text, the
position, the nesting depth and the class/method context, and what every
grammar part shares — spans, error reporting (``ParseError`` aborts a
statement, ``Diagnostic``s are collected) and error recovery.

Why a base class of its own: the grammar modules (``expressions``,
``literals``, ``declarations``) are layers of one ``Parser`` class and all
read these same slots; keeping them here keeps each grammar module about
grammar.  The node-class aliases below are module globals on purpose: the
hot paths build nodes with ``tuple.__new__`` on a global, not an attribute
lookup on ``ast``.
"""

from __future__ import annotations

from typing import Optional

from . import ast as A
from . import teaching, teaching_foreign
from .ast import Span
from .diagnostics import Diagnostic

# the token kinds are imported here once for all grammar modules
from .lexer import (  # noqa: F401
    K_ASSIGN,
    K_BANG,
    K_BINOP,
    K_CARET,
    K_CHAR,
    K_COLON,
    K_EOF,
    K_ERROR,
    K_EXPECT,
    K_FATARROW,
    K_FLOAT,
    K_HASH_BRACE,
    K_HASH_BRACKET,
    K_HASH_PAREN,
    K_IDENT,
    K_INT,
    K_INTRINSIC,
    K_KEYWORD,
    K_LBRACE,
    K_LBRACKET,
    K_LPAREN,
    K_PERIOD,
    K_PIPE,
    K_PRIMITIVE,
    K_RBRACE,
    K_RBRACKET,
    K_RPAREN,
    K_SEMI,
    K_STR_END,
    K_STR_SEG,
    K_STR_START,
    K_STRING,
    K_SYMBOL,
    LexError,
    lex,
)

#: operator → (precedence, right-associative)
BINARY_OPERATORS = {
    "**": (50, True),
    "*": (40, False),
    "/": (40, False),
    "%": (40, False),
    "+": (30, False),
    "-": (30, False),
    "++": (30, False),
    "<": (20, False),
    ">": (20, False),
    "<=": (20, False),
    ">=": (20, False),
    "==": (10, False),
    "/=": (10, False),
    "=:=": (10, False),
    "=/=": (10, False),
    "=": (10, False),
    "->": (8, False),
    ">>": (5, False),
}
_PREC = {op: p for op, (p, _r) in BINARY_OPERATORS.items()}

MAX_NESTING = 64
#: keywords that start class-body declarations: never a keyword-message
#: continuation on a new line inside a class body
_DECL_KEYWORDS = ("state:", "classState:")
EXPECT_CATEGORIES = ("dnu", "type", "unused", "all")
CLASS_MODIFIERS = ("abstract", "sealed", "typed")

_tnew = tuple.__new__

_IntegerLit = A.IntegerLit
_FloatLit = A.FloatLit
_StringLit = A.StringLit
_SymbolLit = A.SymbolLit
_CharLit = A.CharLit
_Variable = A.Variable
_GlobalRef = A.GlobalRef
_UnarySend = A.UnarySend
_BinarySend = A.BinarySend
_KeywordSend = A.KeywordSend
_Assignment = A.Assignment
_Block = A.Block
_FieldAccess = A.FieldAccess

_ArrayLit = A.ArrayLit
_CascadeMessage = A.CascadeMessage
_MapPair = A.MapPair
_MatchArm = A.MatchArm
_Cascade = A.Cascade
_Cast = A.Cast
_ClassDef = A.ClassDef
_Expect = A.Expect
_InterpolatedString = A.InterpolatedString
_ListLit = A.ListLit
_LiteralPattern = A.LiteralPattern
_MapLit = A.MapLit
_Match = A.Match
_MethodDef = A.MethodDef
_Primitive = A.Primitive
_Return = A.Return
_StandaloneMethod = A.StandaloneMethod
_StateDecl = A.StateDecl
_Super = A.Super
_TuplePattern = A.TuplePattern
_VariablePattern = A.VariablePattern
_WildcardPattern = A.WildcardPattern

_LITERAL_KINDS = {K_INT: _IntegerLit, K_FLOAT: _FloatLit, K_STRING: _StringLit, K_SYMBOL: _SymbolLit, K_CHAR: _CharLit}
_OPENERS = (K_LPAREN, K_LBRACKET, K_LBRACE, K_HASH_PAREN, K_HASH_BRACKET, K_HASH_BRACE, K_STR_START)
_CLOSERS = (K_RPAREN, K_RBRACKET, K_RBRACE, K_STR_END)

#: token kinds that can end an expression (a ``,`` after one is infix)
_VALUE_ENDS = frozenset(
    (K_IDENT, K_INT, K_FLOAT, K_STRING, K_SYMBOL, K_CHAR, K_RPAREN, K_RBRACKET, K_RBRACE, K_STR_END)
)

TEMPORARIES_HINT = (
    "Beamtalk has no temporaries declaration (| a b |): local variables are introduced by assignment"
)
#: `{#ok, 1}` typed as an expression, as in Erlang (spec syntax §5: braces
#: are only tuple patterns)
# `c increment!. c count`: spec syntax §3.2 makes `!` the cast statement's
# terminator, in place of the `.` a Pharo or Erlang hand adds after it.
CAST_PERIOD_HINT = (
    "`!` ends the statement as `.` does (it sends the message as a cast): "
    "write `c increment! c count`, without the `.`"
)
TUPLE_HINT = (
    "Beamtalk has no tuple literal; build a tuple with Tuple withAll: #(#ok, 1) "
    "(braces only match tuples, in match: patterns)"
)

#: Squeak's `x caseOf: {[1] -> [...]. ...}`: spec syntax §4 has `match:`
CASE_OF_HINT = (
    "Beamtalk has no caseOf: (and no brace arrays): match the value with its arms, "
    "x match: [1 -> \"one\"; 3 -> \"three\"; _ -> \"other\"]"
)

#: `"{{x}}"`, Python's f-string escape: spec syntax §2.3 has `\{` instead
DOUBLED_BRACE_HINT = (
    "`{{` is not an escaped brace in Beamtalk (as in Python's f-strings): `{` starts an "
    "interpolation; write `\\{` for a literal brace (the backslash stays in the String)"
)


class ParseError(Exception):
    """Internal: aborts the current statement; caught at a recovery point."""

    def __init__(self, diag: Diagnostic, depth: int = 0):
        self.diag = diag
        self.depth = depth



class Cursor:
    """Token arrays, position and context; errors and recovery."""

    __slots__ = (
        "source", "filename", "toks", "K", "V", "S", "E", "NL", "T",
        "i", "diags", "seen", "depth", "in_class", "base", "in_method", "stmt_start",
        "defs", "line_at", "text",
    )

    def __init__(self, source: str, filename: str = "<input>"):
        self.source = source
        #: the source and a sentinel: ``text[E[i]] == "."`` tells whether a
        #: tight ``.`` follows token i (the ``.`` after a token's end is
        #: always a token of its own) without reading the next token
        self.text = source + "\0"
        self.filename = filename
        t = lex(source)
        self.toks = t
        self.K = t.kinds
        self.V = t.values
        self.S = t.starts
        self.E = t.ends
        self.NL = t.nls
        self.T = t.table  # shared by the nodes: spans on demand
        self.i = 0
        self.diags: list = []
        self.seen: set = set()  # (offset, message) of reported diagnostics
        self.depth = 0
        # class/method context
        self.in_class = False  # method bodies and state defaults
        self.base = 0  # nesting depth of the current method body statements
        self.in_method = False  # @primitive allowed
        self.stmt_start = -1  # first token of the current method-body statement
        self.defs: dict = {}  # memo of method_def_at: token index -> result
        self.line_at = (0, 1)  # (offset, its line): see _msg_span

    # ------------------------------------------------------------ utilities
    def span(self, a: int, b: int) -> Span:
        """Span from the start of token a to the end of token b."""
        return self.T.span(self.S[a], self.E[b])

    def at_col1(self, i: int) -> bool:
        """Is token i, which has a newline in its leading trivia, at
        column 1?"""
        return self.source[self.S[i] - 1] == "\n"

    def col(self, i: int) -> int:
        return self.T.line_col(self.S[i])[1]

    def tok_text(self, i: int) -> str:
        return self.source[self.S[i] : self.E[i]]

    def describe(self, i: int) -> str:
        if self.K[i] is K_EOF:
            return "end of input"
        return self.tok_text(i)

    def error(self, message: str, i: Optional[int] = None, hint: Optional[str] = None, span: Optional[Span] = None):
        """Raise a ParseError at token i (default: the current token)."""
        raise ParseError(self.make_diag(message, i, hint, span), self.depth)

    def make_diag(self, message, i=None, hint=None, span=None) -> Diagnostic:
        if span is None:
            if i is None:
                i = self.i
            span = self.span(i, i)
        return Diagnostic(message, span, "error", hint)

    def report(self, message, i=None, hint=None, span=None) -> None:
        """Record a diagnostic without aborting."""
        self.add(self.make_diag(message, i, hint, span))

    def add(self, d: Diagnostic) -> None:
        key = (d.span.start, d.message)
        if key in self.seen:
            return
        self.seen.add(key)
        self.diags.append(d)

    def expected_expression(self):
        i = self.i
        K = self.K
        if K[i] is K_ERROR:
            self.lex_error(i)
        if K[i] is K_EOF:
            # at end of input the previous token is reported (spec §11)
            j = i - 1 if i > 0 else i
            if K[j] is K_EOF:
                self.error("Unexpected end of input: expected expression", j)
            self.ended_body(i)
        self.teach_comma(i)
        if K[i] is K_KEYWORD and self.NL[i] and self.V[i] == "classState:" and self.in_class:
            # spec §7.2: a classState: line after a method body does not end it
            line = self.source[self.S[i] : self.source.find("\n", self.S[i]) % (len(self.source) + 1)]
            self.error("classState: must come before the methods of a class", i,
                       f"move `{line.strip()}` above the first method; a classState: line after a "
                       f"method is read as part of that method's body")
        if K[i] is K_KEYWORD and self.NL[i] and i > 0:
            # spec §3.1: the first keyword of a message must be on its
            # receiver's line; say so (the seeds write builders this way)
            message, hint = teaching.keyword_starts_line(
                self.source, self.E[i - 1], self.S[i], K[i - 1] in (K_PERIOD, K_BANG)
            )
            self.error(message, i, hint)
        k = K[i]
        if k is K_PIPE:
            # after a value on the same line it is Pharo's `|` (or)
            hint = teaching.OR_HINT if i > 0 and K[i - 1] in _VALUE_ENDS and not self.NL[i] else TEMPORARIES_HINT
        elif k is K_LBRACE and i > 0 and K[i - 1] in (K_STR_START, K_STR_SEG) and self.E[i - 1] == self.S[i]:
            hint = DOUBLED_BRACE_HINT
        elif k is K_LBRACE and i > 0 and K[i - 1] is K_KEYWORD and self.V[i - 1] == "caseOf:":
            hint = CASE_OF_HINT
        elif k is K_LBRACE:
            hint = TUPLE_HINT
        elif k is K_PERIOD and i > 0 and K[i - 1] is K_BANG:
            hint = CAST_PERIOD_HINT
        elif k is K_BINOP:
            hint = teaching.other_operator(self.V[i]) or teaching.compound_assignment(self.source, self.S[i], self.E[i])
        else:
            hint = None
        text = "}" if K[i] in (K_STR_SEG, K_STR_END) else self.tok_text(i)
        if hint is None or k is K_PIPE:
            # a token of Python, JavaScript or Erlang (`x += 1`, `|>`, `x.foo()`)
            hint = teaching_foreign.line_word(self.source, self.S[i]) or teaching_foreign.token(text, self.tok_text(i - 1) if i > 0 else "",
                                          self.tok_text(i + 1) if K[i] is not K_EOF else "",
                                          self.source, self.S[i]) or hint
        self.error(f"Unexpected token: expected expression, found {text}", i, hint)

    def ended_body(self, i: int):
        """Raise "expected expression" at token i - 1 for an expression cut
        short by token i: the end of input, or the next line that ends a
        method body (or state default).  The spec reports the previous
        token; the hint says why the expression stops there."""
        prev = self.tok_text(i - 1)
        if self.K[i] is K_EOF:
            hint = (teaching_foreign.increment(prev, self.tok_text(i - 2) if i > 1 else "")
                    or teaching_foreign.line_word(self.source, self.S[i - 1])
                    or f"the input ends after `{prev}`: an expression must follow it")
        elif self.source[self.S[i] - 1] == "\n":
            hint = f"the method body ends after `{prev}`: the next line starts at column 1, which ends the class body"
        else:
            hint = f"the method body ends after `{prev}`: the next line starts another method or declaration"
        self.error(f"Unexpected token: expected expression, found {prev}", i - 1, hint)

    def teach_comma(self, i: int) -> None:
        """Token i is a ``,`` between two expressions where no literal
        takes it as a separator: raise "concatenate with ++"."""
        K = self.K
        if K[i] is K_BINOP and self.V[i] == "," and i > 0 and K[i - 1] in _VALUE_ENDS:
            message, hint = (teaching_foreign.comma(self.source, self.S[i])
                             or teaching.comma_operator(self.source, self.S[i], self.E[i]))
            self.error(message, i, hint)

    def lex_error(self, i: int):
        err: LexError = self.V[i]
        self.i = i + 1
        hint = err.hint
        if hint is None and i > 0 and self.K[i - 1] is K_INT and self.E[i - 1] == self.S[i] \
                and self.tok_text(i) == "#":
            # ``2#1010``: Erlang's radix notation
            hint = f"radix numbers are written with r: {self.tok_text(i - 1)}r… (as in 16rFF, 2r1010)"
        elif hint is None and i > 0 and self.K[i - 1] in _VALUE_ENDS and self.tok_text(i) == "@":
            # ``3 @ 4``: Pharo's Point
            hint = ("Beamtalk has no Point and no `@` operator (`3 @ 4`): a Value subclass with x and y "
                    "fields gives `Point x: 3 y: 4`, or use a List: #(3, 4)")
        elif self.tok_text(i)[:1] == "'":
            hint = teaching.quoted_erlang_name(self.source, self.S[i], self.E[i],
                                               i > 0 and self.K[i - 1] is K_IDENT and self.V[i - 1] == "Erlang") or hint
        raise ParseError(Diagnostic(err.message, self.span(i, i), "error", hint), self.depth)

    def enter(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.nesting_error()

    def nesting_error(self):
        self.error("Expression nesting is too deep", hint=f"expressions may nest at most {MAX_NESTING} levels")

    def is_upper(self, name: str) -> bool:
        c = name[0]
        return "A" <= c <= "Z"

    def recover(self, start: int, depth: int, stop_at_methods: bool = False) -> None:
        """Skip tokens after an error: stop after a '.'/'!' at the nesting of
        the failed statement, before a token at column 0, before the next
        method definition (in class bodies) or at end of input.

        With ``stop_at_methods`` a line starting a method definition (or
        ``state:``) stops the skipping when no bracket is open — or when it is
        indented no deeper than the item that failed, so that an unclosed
        bracket in one method does not swallow the following methods."""
        K = self.K
        NL = self.NL
        S = self.S
        src = self.source
        i = max(self.i, start)
        if i == start and K[i] is not K_EOF:
            i += 1
        rel = depth - self.depth  # brackets open at the error point
        item_col = self.col(start)
        while True:
            k = K[i]
            if k is K_EOF:
                break
            if NL[i] and src[S[i] - 1] == "\n":
                break
            if stop_at_methods and NL[i] and (rel <= 0 or self.col(i) <= item_col) and (
                self.method_def_at(i) >= 0 or (k is K_KEYWORD and self.V[i] == "state:")
            ):
                break
            if k in _OPENERS:
                rel += 1
            elif k in _CLOSERS:
                rel -= 1
            elif (k is K_PERIOD or k is K_BANG) and rel <= 0 and not stop_at_methods:
                # (in a class body the failed item is skipped whole: a period
                # inside a broken method must not end the class body early)
                i += 1
                break
            i += 1
        self.i = i


    def close_error(self, message: str, opener: int):
        """A missing closing bracket: report at the offending token (or the
        end of input); when the bracket was opened on an earlier line, the
        hint says where (in a long method the caret alone does not)."""
        i = self.i
        if self.K[i] is K_ERROR:
            self.lex_error(i)
        self.teach_comma(i)
        hint = None
        gap = self.source[self.E[i - 1] if i > 0 else 0 : self.S[i]]
        c = gap.find("//")
        if c >= 0 and not gap.startswith("///", c):
            # ``(n // 2) + 1``: the comment took the closing bracket
            eaten = gap[c + 2 :].split("\n", 1)[0].strip()
            if eaten and any(ch in eaten for ch in ")]}"):
                self.error(message, i, f"`//` starts a comment, so `{eaten}` was not read; "
                                       f"integer division is `div:` (7 div: 2)")
        if 0 <= opener < i:
            table = self.T
            line, col = table.line_col(self.S[opener])
            if line != table.line_col(self.S[i])[0]:
                hint = f"the `{self.tok_text(opener)}` opened at line {line}, column {col} is not closed"
        K = self.K
        if K[i] is K_LPAREN and K[i - 1] is K_IDENT and self.E[i - 1] == self.S[i]:
            # `spawn(fun() -> ok end)`: a function call of another language
            hint = teaching_foreign.undefined_name(self.V[i - 1], self.source, self.E[i - 1]) or hint
        if i > 0 and K[i - 1] in _VALUE_ENDS and not self.NL[i]:
            # `[:x | a | b]`, `(a & b)`: an operator of another Smalltalk
            # ended the statement; teach it as at top level
            if K[i] is K_PIPE:
                hint = teaching.OR_HINT
            elif K[i] is K_BINOP:
                hint = (teaching.other_operator(self.V[i])
                        or teaching.compound_assignment(self.source, self.S[i], self.E[i]) or hint)
        self.error(message, i, hint)

