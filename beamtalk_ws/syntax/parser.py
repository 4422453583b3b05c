"""Recursive-descent parser for Beamtalk (spec/syntax.md §3–§8).

Binary operators use precedence climbing (table in spec §2.6).  The newline
rules of spec §3 are implemented by consulting the token's "NL-before" flag:

* unary selectors are taken only on the same line;
* binary operators continue across newlines, except (in class bodies) when
  the operator starts a binary method definition (``- other =>``);
* the first keyword of a message must be on the receiver's line, further
  keyword parts may follow on later lines unless they start a keyword method
  definition (``at: i put: v =>``);
* in method bodies a token at column 0 ends the method (and, unless it starts
  a method or ``state:``, the class body) – spec §7.4.

Errors are collected as ``Diagnostic``s; after an error the parser skips to a
recovery point (a ``.``/``!`` at the same nesting, a token at column 0, the
next method definition) and goes on, so one run reports several independent
errors.
"""

from __future__ import annotations

import gc
from typing import Optional

from . import ast as A
from .ast import Span
from .diagnostics import Diagnostic
from .lexer import (
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

TEMPORARIES_HINT = (
    "Beamtalk has no temporaries declaration (| a b |): local variables are introduced by assignment"
)


class ParseError(Exception):
    """Internal: aborts the current statement; caught at a recovery point."""

    def __init__(self, diag: Diagnostic, depth: int = 0):
        self.diag = diag
        self.depth = depth


class Parser:
    __slots__ = (
        "source", "filename", "toks", "K", "V", "S", "E", "NL", "T",
        "i", "diags", "seen", "depth", "in_class", "base", "in_method", "stmt_start",
        "defs",
    )

    def __init__(self, source: str, filename: str = "<input>"):
        self.source = source
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
        if self.K[i] == K_EOF:
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
        if K[i] == K_ERROR:
            self.lex_error(i)
        if K[i] == K_EOF:
            # at end of input the previous token is reported (spec §11)
            j = i - 1 if i > 0 else i
            if K[j] == K_EOF:
                self.error("Unexpected end of input: expected expression", j)
            self.error(f"Unexpected token: expected expression, found {self.tok_text(j)}", j)
        hint = TEMPORARIES_HINT if K[i] == K_PIPE else None
        text = "}" if K[i] in (K_STR_SEG, K_STR_END) else self.tok_text(i)
        self.error(f"Unexpected token: expected expression, found {text}", i, hint)

    def lex_error(self, i: int):
        err: LexError = self.V[i]
        self.i = i + 1
        raise ParseError(Diagnostic(err.message, self.span(i, i), "error", err.hint), self.depth)

    def enter(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.nesting_error()

    def nesting_error(self):
        self.error("Expression nesting is too deep", hint=f"expressions may nest at most {MAX_NESTING} levels")

    def is_upper(self, name: str) -> bool:
        c = name[0]
        return "A" <= c <= "Z"

    # ------------------------------------------------------------ module
    def parse_module(self) -> A.Module:
        K = self.K
        items = []
        while K[self.i] != K_EOF:
            start = self.i
            try:
                if K[start] == K_IDENT and self.maybe_declaration(start):
                    j = self.class_header_at(start)
                    if j >= 0:
                        items.append(self.parse_class(j))
                        continue
                    if self.standalone_at(start):
                        items.append(self.parse_standalone())
                        continue
                st = self.parse_statement()
                k = K[self.i]
                if k == K_PERIOD:
                    self.i += 1
                elif k == K_BANG:
                    st = self.make_cast(st)
                    self.i += 1
                items.append(st)
            except ParseError as e:
                self.add(e.diag)
                self.depth = 0
                self.in_class = self.in_method = False
                self.recover(start, e.depth)
        return _tnew(A.Module, (tuple(items), 0, len(self.source), self.T))

    def maybe_declaration(self, i: int) -> bool:
        """Cheap pre-check (token i is an identifier): could a class header,
        a standalone method or a method definition start here?"""
        k1 = self.K[i + 1]
        if k1 == K_FATARROW or k1 == K_IDENT:
            return True
        v = self.V[i]
        if v == "sealed" or v == "class":
            return True  # sealed/class before a binary or keyword pattern
        if k1 == K_KEYWORD:
            return self.V[i + 1] == "subclass:"
        if k1 == K_BINOP:
            v = self.V[i + 1]
            return v == ">>" or v == "->"
        return False

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
        if i == start and K[i] != K_EOF:
            i += 1
        rel = depth - self.depth  # brackets open at the error point
        item_col = self.col(start)
        while True:
            k = K[i]
            if k == K_EOF:
                break
            if NL[i] and src[S[i] - 1] == "\n":
                break
            if stop_at_methods and NL[i] and (rel <= 0 or self.col(i) <= item_col) and (
                self.method_def_at(i) >= 0 or (k == K_KEYWORD and self.V[i] == "state:")
            ):
                break
            if k in _OPENERS:
                rel += 1
            elif k in _CLOSERS:
                rel -= 1
            elif (k == K_PERIOD or k == K_BANG) and rel <= 0:
                i += 1
                break
            i += 1
        self.i = i

    # ------------------------------------------------------------ statements
    def make_cast(self, st):
        if isinstance(st, (A.UnarySend, A.BinarySend, A.KeywordSend, A.Cascade)):
            return _tnew(_Cast, (st, st[-3], self.E[self.i], self.T))
        self.report(
            "Cast '!' can only follow a message send",
            self.i,
            hint="'!' sends the statement's message asynchronously; the statement must be a message send",
        )
        return st

    def parse_statement(self):
        """``^ value``, ``@expect cat`` or an assignment/expression."""
        i = self.i
        k = self.K[i]
        if k == K_CARET:
            self.i = i + 1
            value = self.parse_assignment()
            return _tnew(_Return, (value, self.S[i], self.E[self.i - 1], self.T))
        if k == K_EXPECT:
            return self.parse_expect()
        return self.parse_assignment()

    def parse_expect(self):
        i = self.i
        self.i += 1
        j = self.i
        if self.K[j] == K_IDENT and not self.NL[j]:
            cat = self.V[j]
            self.i += 1
            if cat not in EXPECT_CATEGORIES:
                self.report(
                    f"Unknown @expect category '{cat}'",
                    j,
                    hint="categories are " + ", ".join(EXPECT_CATEGORIES),
                )
            return _tnew(_Expect, (cat, self.S[i], self.E[j], self.T))
        self.error("Expected a category after @expect (dnu, type, unused or all)", j if self.K[j] != K_EOF else i)

    def parse_assignment(self):
        K = self.K
        i = self.i
        if K[i] == K_IDENT and K[i + 1] == K_ASSIGN:
            # fast path for ``name := value``
            name = self.V[i]
            c = name[0]
            if "A" <= c <= "Z" or name == "super":
                self.error(_bad_target(name), i)
            lhs = _tnew(_Variable, (name, self.S[i], self.E[i], self.T))
            self.i = i + 2
            j = self.i
            if K[j] == K_IDENT and K[j + 1] == K_ASSIGN:  # a := b := …
                self.depth += 1
                if self.depth > MAX_NESTING:
                    self.nesting_error()
                value = self.parse_assignment()
                self.depth -= 1
            else:
                value = self.parse_assignment()
            return _tnew(_Assignment, (lhs, value, lhs[-3], self.E[self.i - 1], self.T))
        lhs = self.parse_keyword()
        k = K[self.i]
        if k == K_SEMI:
            lhs = self.parse_cascade(lhs)
            k = K[self.i]
        if k == K_ASSIGN:
            if not isinstance(lhs, (A.Variable, A.FieldAccess)):
                self.error("Assignment target must be an identifier or field access", span=lhs.span)
            self.i += 1
            self.depth += 1
            if self.depth > MAX_NESTING:
                self.nesting_error()
            value = self.parse_assignment()
            self.depth -= 1
            return _tnew(_Assignment, (lhs, value, lhs[-3], self.E[self.i - 1], self.T))
        return lhs

    def parse_cascade(self, first):
        """``first ; part ; part…`` — called with the current token at ';'."""
        K = self.K
        if self.in_class and self.NL[self.i] and self.stop_here(self.i):
            return first
        messages = []
        if isinstance(first, A.UnarySend):
            receiver = first.receiver
            messages.append(_tnew(_CascadeMessage, (first.selector, (), first.receiver[-2], first[-2], self._msg_span(first))))
        elif isinstance(first, A.BinarySend):
            receiver = first.receiver
            messages.append(_tnew(_CascadeMessage, (first.operator, (first.argument,), first.receiver[-2], first[-2], self._msg_span(first))))
        elif isinstance(first, A.KeywordSend):
            receiver = first.receiver
            messages.append(_tnew(_CascadeMessage, (first.selector, first.arguments, first.receiver[-2], first[-2], self._msg_span(first))))
        else:
            receiver = None
        V = self.V
        while K[self.i] == K_SEMI:
            if self.in_class and self.NL[self.i] and self.stop_here(self.i):
                break
            self.i += 1
            i = self.i
            k = K[i]
            if k == K_IDENT:
                self.i += 1
                messages.append(_tnew(_CascadeMessage, (V[i], (), self.S[i], self.E[i], self.T)))
            elif k == K_KEYWORD:
                parts = []
                args = []
                while K[self.i] == K_KEYWORD:
                    j = self.i
                    if j != i and self.NL[j] and self.in_class and self.depth == self.base and (
                        self.source[self.S[j] - 1] == "\n" or V[j] in _DECL_KEYWORDS or self.method_def_at(j) >= 0
                    ):
                        break
                    parts.append(V[j])
                    self.i += 1
                    args.append(self.parse_binary(0))
                messages.append(_tnew(_CascadeMessage, ("".join(parts), tuple(args), self.S[i], self.E[self.i - 1], self.T)))
            elif k == K_BINOP and V[i] in _PREC:
                self.i += 1
                arg = self.parse_unary()
                messages.append(_tnew(_CascadeMessage, (V[i], (arg,), self.S[i], self.E[self.i - 1], self.T)))
            else:
                if k == K_ERROR:
                    self.lex_error(i)
                self.error("Expected message selector in cascade", i if k != K_EOF else i - 1)
        if receiver is None:
            self.error(
                "Cascade ';' must follow a message send",
                span=first.span,
                hint="a cascade sends several messages to the receiver of the first message",
            )
        return _tnew(_Cascade, (receiver, tuple(messages), first[-3], self.E[self.i - 1], self.T))

    def _msg_span(self, send) -> Span:
        """Span of the first cascade message: from after the receiver (with
        the receiver's line and column)."""
        r = send.receiver.span
        return _tnew(Span, (r[1], send[-2], r[2], r[3]))

    def stop_here(self, i: int) -> bool:
        """In a method body (at its own nesting level), does the NL-before
        token i end the current expression? (column-0 rule, spec §7.4)"""
        return self.depth == self.base and self.source[self.S[i] - 1] == "\n"

    def parse_keyword(self):
        # keywordExpr: binaryExpr [keyword binaryExpr ...] (first binaryExpr
        # inlined: this is the hottest path of the parser)
        K = self.K
        NL = self.NL
        i = self.i
        k = K[i]
        # a plain variable / literal receiver on the current line is built
        # here (what parse_primary would do); anything else goes there
        # (a token after a newline is first checked by parse_primary, unless
        # it starts the statement: see there)
        if k == K_IDENT and (not NL[i] or i == self.stmt_start or not self.in_class):
            name = self.V[i]
            c = name[0]
            S = self.S
            E = self.E
            if K[i + 1] == K_PERIOD and S[i + 1] == E[i] and K[i + 2] == K_IDENT and S[i + 2] == E[i + 1] and name != "super":
                # field access ``a.b.c`` (tight dots), as in parse_primary
                T = self.T
                V = self.V
                s = S[i]
                recv = _tnew(_GlobalRef if "A" <= c <= "Z" else _Variable, (name, s, E[i], T))
                i += 2
                recv = _tnew(_FieldAccess, (recv, V[i], s, E[i], T))
                while K[i + 1] == K_PERIOD and S[i + 1] == E[i] and K[i + 2] == K_IDENT and S[i + 2] == E[i + 1]:
                    i += 2
                    recv = _tnew(_FieldAccess, (recv, V[i], s, E[i], T))
            elif "A" <= c <= "Z":
                recv = _tnew(_GlobalRef, (name, self.S[i], self.E[i], self.T))
            elif name == "super":
                recv = _tnew(_Super, (self.S[i], self.E[i], self.T))
            else:
                recv = _tnew(_Variable, (name, self.S[i], self.E[i], self.T))
            i += 1
        elif k in _LITERAL_KINDS and (not NL[i] or i == self.stmt_start or not self.in_class):
            recv = _tnew(_LITERAL_KINDS[k], (self.V[i], self.S[i], self.E[i], self.T))
            i += 1
        else:
            recv = self.parse_primary()
            i = self.i
        k = K[i]
        if k == K_IDENT and not NL[i]:
            # unary selectors on the same line
            V = self.V
            E = self.E
            T = self.T
            ns = recv[-3]
            while True:
                recv = _tnew(_UnarySend, (recv, V[i], ns, E[i], T))
                i += 1
                k = K[i]
                if k != K_IDENT or NL[i]:
                    break
        self.i = i
        if k == K_BINOP:
            recv = self.binary_tail(recv, 0)
            i = self.i
            k = K[i]
        if k != K_KEYWORD or NL[i]:
            return recv
        V = self.V
        if V[i] == "match:" and K[i + 1] == K_LBRACKET:
            return self.parse_match(recv)
        parts = []
        args = []
        while True:
            parts.append(V[i])
            i += 1
            k = K[i]
            if NL[i] or not (k == K_LBRACKET or k in _LITERAL_KINDS):
                self.i = i
                arg = self.parse_binary(0)
                i = self.i
            else:
                # a block or a literal: parse_binary's work without its frame
                if k == K_LBRACKET:
                    self.i = i
                    arg = self.parse_block()
                    i = self.i
                else:
                    arg = _tnew(_LITERAL_KINDS[k], (V[i], self.S[i], self.E[i], self.T))
                    i += 1
                k = K[i]
                if k == K_BINOP or (k == K_IDENT and not NL[i]):
                    self.i = i
                    arg = self.unary_tail(arg)
                    if K[self.i] == K_BINOP:
                        arg = self.binary_tail(arg, 0)
                    i = self.i
            args.append(arg)
            if K[i] != K_KEYWORD:
                break
            if NL[i] and self.in_class and self.depth == self.base and (
                self.source[self.S[i] - 1] == "\n" or V[i] in _DECL_KEYWORDS or self.method_def_at(i) >= 0
            ):
                break
        self.i = i
        return _tnew(_KeywordSend, (recv, "".join(parts), tuple(args), recv[-3], self.E[i - 1], self.T))

    def unary_tail(self, node):
        """Unary selectors on the same line after ``node``."""
        K = self.K
        V = self.V
        NL = self.NL
        E = self.E
        i = self.i
        ns = node[-3]
        T = self.T
        while K[i] == K_IDENT and not NL[i]:
            node = _tnew(_UnarySend, (node, V[i], ns, E[i], T))
            i += 1
        self.i = i
        return node

    def parse_binary(self, min_prec: int):
        # the same inlined primary and unary tail as in parse_keyword
        K = self.K
        NL = self.NL
        i = self.i
        k = K[i]
        if k == K_IDENT and (not NL[i] or i == self.stmt_start or not self.in_class):
            name = self.V[i]
            c = name[0]
            S = self.S
            E = self.E
            if K[i + 1] == K_PERIOD and S[i + 1] == E[i] and K[i + 2] == K_IDENT and S[i + 2] == E[i + 1] and name != "super":
                # field access ``a.b.c`` (tight dots), as in parse_primary
                T = self.T
                V = self.V
                s = S[i]
                left = _tnew(_GlobalRef if "A" <= c <= "Z" else _Variable, (name, s, E[i], T))
                i += 2
                left = _tnew(_FieldAccess, (left, V[i], s, E[i], T))
                while K[i + 1] == K_PERIOD and S[i + 1] == E[i] and K[i + 2] == K_IDENT and S[i + 2] == E[i + 1]:
                    i += 2
                    left = _tnew(_FieldAccess, (left, V[i], s, E[i], T))
            elif "A" <= c <= "Z":
                left = _tnew(_GlobalRef, (name, self.S[i], self.E[i], self.T))
            elif name == "super":
                left = _tnew(_Super, (self.S[i], self.E[i], self.T))
            else:
                left = _tnew(_Variable, (name, self.S[i], self.E[i], self.T))
            i += 1
        elif k in _LITERAL_KINDS and not NL[i]:
            left = _tnew(_LITERAL_KINDS[k], (self.V[i], self.S[i], self.E[i], self.T))
            i += 1
        else:
            left = self.parse_primary()
            i = self.i
        k = K[i]
        if k == K_IDENT and not NL[i]:
            V = self.V
            E = self.E
            T = self.T
            ns = left[-3]
            while True:
                left = _tnew(_UnarySend, (left, V[i], ns, E[i], T))
                i += 1
                k = K[i]
                if k != K_IDENT or NL[i]:
                    break
        self.i = i
        if k == K_BINOP:
            return self.binary_tail(left, min_prec)
        return left

    def binary_tail(self, left, min_prec: int):
        """Precedence climbing over the binary operators after ``left``."""
        K = self.K
        V = self.V
        while True:
            i = self.i
            if K[i] != K_BINOP:
                return left
            op = V[i]
            prec = _PREC.get(op)
            if prec is None or prec < min_prec:
                return left
            if self.NL[i] and self.in_class and self.depth == self.base:
                if self.source[self.S[i] - 1] == "\n" or self.binary_method_at(i):
                    return left
            self.i = i + 1
            if op == "**":
                self.enter()
                right = self.parse_binary(prec)
                self.depth -= 1
            else:
                right = self.parse_binary(prec + 1)
            left = _tnew(_BinarySend, (left, op, right, left[-3], self.E[self.i - 1], self.T))

    def parse_unary(self):
        node = self.parse_primary()
        K = self.K
        i = self.i
        if K[i] != K_IDENT or self.NL[i]:
            return node
        V = self.V
        NL = self.NL
        E = self.E
        ns = node[-3]
        T = self.T
        while K[i] == K_IDENT and not NL[i]:
            node = _tnew(_UnarySend, (node, V[i], ns, E[i], T))
            i += 1
        self.i = i
        return node

    # ------------------------------------------------------------ primaries
    def parse_primary(self):
        i = self.i
        K = self.K
        k = K[i]
        if self.in_class and self.NL[i] and i != self.stmt_start and self.depth == self.base and self.body_ends_at(i):
            # the method body (or state default) ends here: like end of input
            self.error(f"Unexpected token: expected expression, found {self.tok_text(i - 1)}", i - 1)
        if k == K_IDENT:
            V = self.V
            name = V[i]
            S = self.S
            E = self.E
            c = name[0]
            if K[i + 1] == K_PERIOD and S[i + 1] == E[i] and K[i + 2] == K_IDENT and S[i + 2] == E[i + 1] and name != "super":
                # field access ``a.b.c`` (tight dots), inlined
                T = self.T
                s = S[i]
                node = _tnew(_GlobalRef if "A" <= c <= "Z" else _Variable, (name, s, E[i], T))
                j = i + 2
                node = _tnew(_FieldAccess, (node, V[j], s, E[j], T))
                while K[j + 1] == K_PERIOD and S[j + 1] == E[j] and K[j + 2] == K_IDENT and S[j + 2] == E[j + 1]:
                    j += 2
                    node = _tnew(_FieldAccess, (node, V[j], s, E[j], T))
                self.i = j + 1
                return node
            self.i = i + 1
            if "A" <= c <= "Z":
                return _tnew(_GlobalRef, (name, S[i], E[i], self.T))
            if name == "super":
                return _tnew(_Super, (S[i], E[i], self.T))
            return _tnew(_Variable, (name, S[i], E[i], self.T))
        f = _LITERAL_KINDS.get(k)
        if f is not None:
            self.i = i + 1
            return _tnew(f, (self.V[i], self.S[i], self.E[i], self.T))
        if k == K_LBRACKET:
            return self.parse_block()
        if k == K_LPAREN:
            self.enter()
            self.i = i + 1
            node = self.parse_statement()
            if K[self.i] != K_RPAREN:
                self.close_error("Expected ')' to close parentheses", i)
            self.i += 1
            self.depth -= 1
            return node
        if k == K_STR_START:
            return self.parse_interpolation()
        if k == K_HASH_PAREN:
            return self.parse_list()
        if k == K_HASH_BRACKET:
            return self.parse_array()
        if k == K_HASH_BRACE:
            return self.parse_map()
        if k == K_PRIMITIVE or k == K_INTRINSIC:
            return self.parse_primitive()
        self.expected_expression()

    def close_error(self, message: str, opener: int):
        """A missing closing bracket: report at the offending token (or the
        end of input)."""
        i = self.i
        if self.K[i] == K_ERROR:
            self.lex_error(i)
        self.error(message, i)

    def parse_primitive(self):
        i = self.i
        kind = "primitive" if self.K[i] == K_PRIMITIVE else "intrinsic"
        j = i + 1
        k = self.K[j]
        if k == K_STRING or (k == K_IDENT and not self.NL[j]):
            name = self.V[j]
            self.i = j + 1
        elif k == K_ERROR:
            self.lex_error(j)
        else:
            self.error(f"Expected a name after @{kind} (a string or identifier)", j if k != K_EOF else i)
        node = _tnew(_Primitive, (name, kind, self.S[i], self.E[j], self.T))
        if not self.in_method:
            self.report(f"@{kind} can only appear inside a method body (after =>)", span=node.span)
        return node

    def parse_block(self):
        K = self.K
        V = self.V
        start = self.i
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.nesting_error()
        i = start + 1
        params = []
        while K[i] == K_COLON:
            i += 1
            if K[i] != K_IDENT:
                self.i = i
                if K[i] == K_KEYWORD:
                    self.error(
                        "Expected parameter name after ':'",
                        hint="write block parameters with spaces: [:a :b | ...]",
                    )
                self.error("Expected parameter name after ':'")
            params.append(V[i])
            i += 1
        if params:
            if K[i] != K_PIPE:
                self.i = i
                self.error("Expected '|' after block parameters")
            i += 1
        # the statements up to and including the closing ']'
        body = []
        if K[i] == K_RBRACKET:
            i += 1
        else:
            NL = self.NL
            while True:
                self.i = i
                if K[i] == K_EOF or (self.in_class and NL[i] and self.body_ends_at(i)):
                    # end of input, or (in a class body) a line that starts the
                    # next method/declaration: the block was never closed
                    self.close_error("Expected ']' to close block", i)
                st = self.parse_statement()
                i = self.i
                k = K[i]
                sep = False
                if k == K_PERIOD:
                    i += 1
                    sep = True
                elif k == K_BANG:
                    st = self.make_cast(st)
                    i += 1
                    sep = True
                body.append(st)
                k = K[i]
                if k == K_RBRACKET:
                    i += 1
                    break
                if not sep and not NL[i] and not isinstance(st, A.Expect) or k == K_EOF:
                    self.i = i
                    self.close_error("Expected ']' to close block", i)
        self.i = i
        self.depth -= 1
        return _tnew(_Block, (tuple(params), tuple(body), self.S[start], self.E[i - 1], self.T))

    def parse_interpolation(self):
        K = self.K
        V = self.V
        start = self.i
        self.enter()
        parts = []
        if V[start]:
            parts.append(V[start])
        self.i += 1
        while True:
            if K[self.i] in (K_STR_SEG, K_STR_END):
                self.error("empty interpolation {} is not allowed, use \\{ for literal brace")
            parts.append(self.parse_keyword())
            k = K[self.i]
            if k == K_STR_SEG:
                if V[self.i]:
                    parts.append(V[self.i])
                self.i += 1
                continue
            if k == K_STR_END:
                if V[self.i]:
                    parts.append(V[self.i])
                self.i += 1
                break
            if k == K_ERROR:
                self.lex_error(self.i)
            self.error(
                f"Unexpected token in string interpolation: expected '}}', found {self.describe(self.i)}",
                hint="an interpolation holds one expression without cascade, assignment or '^'",
            )
        self.depth -= 1
        return _tnew(_InterpolatedString, (tuple(parts), self.S[start], self.E[self.i - 1], self.T))

    def _comma(self, i: int) -> bool:
        return self.K[i] == K_BINOP and self.V[i] == ","

    def comma_items(self, closer, parse_item) -> list:
        """Comma-separated items up to `closer` (not consumed); a trailing
        comma is allowed.  Shared by the list, array and map literals."""
        K = self.K
        items = []
        if K[self.i] != closer:
            while True:
                items.append(parse_item())
                if not self._comma(self.i):
                    break
                self.i += 1
                if K[self.i] == closer:
                    break
        return items

    def close_literal(self, closer, message: str, start: int) -> None:
        if self.K[self.i] != closer:
            self.close_error(message, start)
        self.i += 1
        self.depth -= 1

    def parse_list(self):
        K = self.K
        start = self.i
        self.enter()
        self.i += 1
        elements = self.comma_items(K_RPAREN, lambda: self.parse_binary(0))
        tail = None
        if K[self.i] == K_PIPE:
            self.i += 1
            tail = self.parse_unary()
        self.close_literal(K_RPAREN, "Expected ')' to close list literal", start)
        return _tnew(_ListLit, (tuple(elements), tail, self.S[start], self.E[self.i - 1], self.T))

    def parse_array(self):
        start = self.i
        self.enter()
        self.i += 1
        elements = self.comma_items(K_RBRACKET, lambda: self.parse_binary(0))
        self.close_literal(K_RBRACKET, "Expected ']' to close array literal", start)
        return _tnew(_ArrayLit, (tuple(elements), self.S[start], self.E[self.i - 1], self.T))

    def parse_map(self):
        start = self.i
        self.enter()
        self.i += 1
        pairs = self.comma_items(K_RBRACE, self.parse_map_pair)
        self.close_literal(K_RBRACE, "Expected '}' to close map literal", start)
        return _tnew(_MapLit, (tuple(pairs), self.S[start], self.E[self.i - 1], self.T))

    def parse_map_pair(self):
        K = self.K
        V = self.V
        i = self.i
        if K[i] == K_IDENT and K[i + 1] == K_FATARROW and not self.is_upper(V[i]):
            key = _tnew(_SymbolLit, (V[i], self.S[i], self.E[i], self.T))
            self.i += 1
        else:
            key = self.parse_unary()
        if K[self.i] != K_FATARROW:
            if K[self.i] == K_ERROR:
                self.lex_error(self.i)
            self.error(f"Expected '=>' after map key, found {self.describe(self.i)}")
        self.i += 1
        value = self.parse_binary(0)
        return _tnew(_MapPair, (key, value, key[-3], self.E[self.i - 1], self.T))

    # ------------------------------------------------------------ match
    def parse_match(self, subject):
        K = self.K
        V = self.V
        self.i += 2  # match: [
        open_i = self.i - 1
        self.enter()
        arms = []
        while True:
            if K[self.i] == K_RBRACKET:
                if not arms:
                    self.error("Expected a match arm (pattern -> expression)")
                break
            a = self.i
            pattern = self.parse_pattern()
            guard = None
            if K[self.i] == K_KEYWORD and V[self.i] == "when:":
                self.i += 1
                if K[self.i] != K_LBRACKET:
                    self.error("Expected '[' after when:")
                self.i += 1
                self.enter()
                guard = self.parse_statement()
                if K[self.i] != K_RBRACKET:
                    self.close_error("Expected ']' to close guard", self.i)
                self.i += 1
                self.depth -= 1
            if not (K[self.i] == K_BINOP and V[self.i] == "->"):
                if K[self.i] == K_ERROR:
                    self.lex_error(self.i)
                self.error(f"Expected '->' after match pattern, found {self.describe(self.i)}")
            self.i += 1
            body = self.parse_keyword()
            arms.append(_tnew(_MatchArm, (pattern, guard, body, self.S[a], self.E[self.i - 1], self.T)))
            k = K[self.i]
            if k == K_SEMI:
                self.i += 1
                continue
            if k == K_RBRACKET:
                break
            if self.NL[self.i] and k != K_EOF:
                continue
            self.close_error("Expected ']' to close match", open_i)
        self.i += 1
        self.depth -= 1
        return _tnew(_Match, (subject, tuple(arms), subject[-3], self.E[self.i - 1], self.T))

    def parse_pattern(self):
        K = self.K
        V = self.V
        i = self.i
        k = K[i]
        if k == K_IDENT:
            self.i += 1
            if V[i] == "_":
                return _tnew(_WildcardPattern, (self.S[i], self.E[i], self.T))
            return _tnew(_VariablePattern, (V[i], self.S[i], self.E[i], self.T))
        f = _LITERAL_KINDS.get(k)
        if f is not None:
            self.i += 1
            lit = _tnew(f, (V[i], self.S[i], self.E[i], self.T))
            return _tnew(_LiteralPattern, (lit, lit[-3], lit[-2], lit[-1]))
        if k == K_BINOP and V[i] == "-" and K[i + 1] in (K_INT, K_FLOAT):
            self.i += 2
            v = -V[i + 1]
            lit = _tnew(_IntegerLit if K[i + 1] == K_INT else _FloatLit, (v, self.S[i], self.E[i + 1], self.T))
            return _tnew(_LiteralPattern, (lit, lit[-3], lit[-2], lit[-1]))
        if k == K_LBRACE:
            self.enter()
            self.i += 1
            elements = []
            if K[self.i] != K_RBRACE:
                while True:
                    elements.append(self.parse_pattern())
                    if self._comma(self.i):
                        self.i += 1
                        continue
                    break
            if K[self.i] != K_RBRACE:
                self.close_error("Expected '}' to close tuple pattern", i)
            self.i += 1
            self.depth -= 1
            return _tnew(_TuplePattern, (tuple(elements), self.S[i], self.E[self.i - 1], self.T))
        if k == K_ERROR:
            self.lex_error(i)
        self.error(f"Expected a pattern, found {self.describe(i)}")

    # ------------------------------------------------------------ classes
    def class_header_at(self, i: int) -> int:
        """If a class definition starts at token i, return the index of its
        superclass name token, else -1.  ``[modifiers] Ident subclass:``."""
        K = self.K
        V = self.V
        j = i
        while True:
            if K[j] == K_IDENT and K[j + 1] == K_KEYWORD and V[j + 1] == "subclass:":
                return j
            if K[j] == K_IDENT and V[j] in CLASS_MODIFIERS:
                j += 1
                continue
            return -1

    def standalone_at(self, i: int) -> bool:
        """``ClassName [class] >> pattern =>`` at token i?"""
        K = self.K
        V = self.V
        if K[i] != K_IDENT or not self.is_upper(V[i]):
            return False
        j = i + 1
        if K[j] == K_IDENT and V[j] == "class":
            j += 1
        if not (K[j] == K_BINOP and V[j] == ">>"):
            return False
        return self.pattern_end(j + 1) >= 0

    def skip_type(self, j: int) -> int:
        K = self.K
        if K[j] != K_IDENT:
            return -1
        j += 1
        while K[j] == K_PIPE and K[j + 1] == K_IDENT:
            j += 2
        return j

    def skip_param(self, j: int) -> int:
        """A method parameter with an optional type (`x`, `x : T`, `x: T`)
        starting at token j: the index after it, or -1."""
        K = self.K
        if K[j] == K_IDENT:
            j += 1
            if K[j] == K_COLON:
                return self.skip_type(j + 1)
            return j
        if K[j] == K_KEYWORD:
            return self.skip_type(j + 1)
        return -1

    def pattern_end(self, j: int) -> int:
        """If a method pattern (plus optional ``-> Type``) followed by ``=>``
        starts at token j, return the index of the ``=>``; else -1."""
        K = self.K
        k = K[j]
        if k == K_IDENT:
            j += 1
        elif k == K_BINOP:
            j = self.skip_param(j + 1)
            if j < 0:
                return -1
        elif k == K_KEYWORD:
            while K[j] == K_KEYWORD:
                j = self.skip_param(j + 1)
                if j < 0:
                    return -1
        else:
            return -1
        if K[j] == K_BINOP and self.V[j] == "->":
            j = self.skip_type(j + 1)
            if j < 0:
                return -1
        return j if K[j] == K_FATARROW else -1

    def method_def_at(self, i: int) -> int:
        """If a method definition (``{sealed|class} pattern [-> T] =>``)
        starts at token i, return the index where its pattern starts (after
        the modifier words), else -1.  Memoised: the end of a method body
        and the class-body loop ask about the same token."""
        p = self.defs.get(i)
        if p is not None:
            return p
        K = self.K
        V = self.V
        j = i
        mods = []
        while K[j] == K_IDENT and (V[j] == "sealed" or V[j] == "class"):
            mods.append(j)
            j += 1
        # try with all modifier words, then fewer (``class => …`` is a
        # method named class)
        while self.pattern_end(j) < 0:
            if not mods:
                j = -1
                break
            j = mods.pop()
        self.defs[i] = j
        return j

    def binary_method_at(self, i: int) -> bool:
        """``binop param [: T] =>`` at token i (used to stop binary
        continuation lines in class bodies)."""
        return self.method_def_at(i) >= 0  # = pattern_end(i) >= 0 at a binop

    def doc_before(self, i: int) -> Optional[str]:
        """The doc comment (consecutive ``///`` lines) in the leading trivia of
        token i, or None.  A blank line, a ``//`` comment or a block comment
        between doc lines restarts the collection (spec §1)."""
        src = self.source
        a = self.toks.trivia_start(i)
        b = self.S[i]
        if src.find("///", a, b) < 0:
            return None
        lines = src[a:b].split("\n")
        last = len(lines) - 1
        if last == 0:
            return None  # same line as the previous token
        run: list = []
        # lines[0] is the rest of the previous token's line (its trailing
        # trivia) unless the trivia starts a line; lines[last] is the
        # indentation of the token's own line
        start = 0 if (a == 0 or src[a - 1] == "\n") else 1
        for k in range(start, last):
            line = lines[k].lstrip(" \t")
            if line.startswith("///") and not line.startswith("////"):
                body = line[3:].rstrip("\r")
                run.append(body[1:] if body.startswith(" ") else body)
            else:
                run = []  # blank line, // comment, block comment
        if lines[last].strip(" \t\r"):
            return None  # a block comment between the docs and the token
        return "\n".join(run) if run else None

    def parse_class(self, j: int):
        K = self.K
        V = self.V
        start = self.i
        doc = self.doc_before(start)
        modifiers = tuple(V[k] for k in range(start, j))
        superclass = V[j]
        if superclass == "nil":
            superclass = None
        self.i = j + 2
        if K[self.i] != K_IDENT:
            if K[self.i] == K_ERROR:
                self.lex_error(self.i)
            self.error(
                "Expected class name",
                self.i if K[self.i] != K_EOF else self.i - 1,
                hint=f"after subclass: comes the class name as a bare identifier "
                f"(Object subclass: Foo), found {self.describe(self.i)}",
            )
        name = V[self.i]
        self.i += 1
        state = []
        class_state = []
        methods = []
        after_col0_method = False
        saved = (self.in_class, self.base, self.in_method)
        try:
            while True:
                i = self.i
                k = K[i]
                if k == K_EOF:
                    break
                if after_col0_method:
                    if not (self.NL[i] and self.at_col1(i)):
                        after_col0_method = False
                if k == K_PERIOD:
                    self.i += 1
                    continue
                expect = None
                if k == K_EXPECT and self.expect_before_item(i):
                    # ``@expect cat`` before a declaration applies to it
                    expect = self.parse_expect()
                    i = self.i
                    k = K[i]
                if k == K_KEYWORD and V[i] == "state:":
                    st = self.guarded_item(self.parse_state_decl)
                    if st is not None:
                        state.append(self.with_expect(st, expect))
                    continue
                if k == K_KEYWORD and V[i] == "classState:" and not after_col0_method:
                    st = self.guarded_item(self.parse_state_decl)
                    if st is not None:
                        class_state.append(self.with_expect(st, expect))
                    continue
                p = self.method_def_at(i)
                if p >= 0:
                    try:
                        m = self.parse_method(pattern_start=p)
                        methods.append(m if expect is None else self.with_expect(m, expect))
                    except ParseError as err:
                        self.add(err.diag)
                        self.depth = 0
                        self.recover(i, err.depth, stop_at_methods=True)
                    e = self.i
                    after_col0_method = K[e] != K_EOF and self.NL[e] and self.at_col1(e)
                    continue
                break
        finally:
            self.in_class, self.base, self.in_method = saved
        end = self.E[self.i - 1]
        return _tnew(_ClassDef, (
            name,
            superclass,
            modifiers,
            tuple(state),
            tuple(class_state),
            tuple(methods),
            doc,
            self.source[self.S[start] : end],
            self.S[start],
            self.E[self.i - 1],
            self.T,
        ))

    def expect_before_item(self, i: int) -> bool:
        """``@expect cat`` at token i followed by a class-body declaration?"""
        K = self.K
        if K[i + 1] != K_IDENT:
            return False
        j = i + 2
        k = K[j]
        if k == K_KEYWORD and self.V[j] in ("state:", "classState:"):
            return True
        return self.method_def_at(j) >= 0

    def with_expect(self, item, expect):
        """Attach an ``@expect`` (an Expect node or None) to a declaration;
        the doc comment may stand before the ``@expect``."""
        if expect is None:
            return item
        doc = item.doc
        if doc is None:
            doc = self.doc_before(self.S.index(expect.span.start))
        return _replace(item, expect=expect.category, doc=doc)

    def guarded_item(self, fn):
        """Parse one class-body item; on error record it and skip to the next
        item (method definition / state: / column-0 token)."""
        start = self.i
        try:
            return fn()
        except ParseError as e:
            self.add(e.diag)
            self.depth = 0
            self.recover(start, e.depth, stop_at_methods=True)
            return None

    def parse_state_decl(self):
        K = self.K
        V = self.V
        start = self.i
        doc = self.doc_before(start)
        which = V[start]
        self.i += 1
        i = self.i
        typ = None
        if K[i] == K_IDENT:
            name = V[i]
            self.i += 1
            if K[self.i] == K_COLON:
                self.i += 1
                typ = self.parse_type()
        elif K[i] == K_KEYWORD:
            name = V[i][:-1]
            self.i += 1
            typ = self.parse_type()
        else:
            if K[i] == K_ERROR:
                self.lex_error(i)
            self.error(f"Expected slot name after {which}", i if K[i] != K_EOF else start)
        default = None
        if K[self.i] == K_BINOP and V[self.i] == "=":
            self.i += 1
            self.in_class = True
            self.in_method = False
            self.base = self.depth
            default = self.parse_statement()
        return _tnew(_StateDecl, (name, typ, default, doc, None, self.S[start], self.E[self.i - 1], self.T))

    def parse_type(self) -> str:
        K = self.K
        V = self.V
        if K[self.i] != K_IDENT:
            self.error(f"Expected a type name, found {self.describe(self.i)}")
        names = [V[self.i]]
        self.i += 1
        while K[self.i] == K_PIPE and K[self.i + 1] == K_IDENT:
            names.append(V[self.i + 1])
            self.i += 2
        return " | ".join(names)

    def parse_method(
        self,
        class_side_default: bool = False,
        doc: Optional[str] = None,
        standalone: bool = False,
        pattern_start: int = -1,
    ):
        """Parse ``{sealed|class} pattern [-> T] => body`` at the current
        token (``pattern_start``: index of the pattern after the modifier
        words, if already known)."""
        K = self.K
        V = self.V
        start = self.i
        if standalone:
            p = start  # no sealed/class words after '>>'
        else:
            doc = self.doc_before(start)
            p = pattern_start if pattern_start >= 0 else self.method_def_at(start)
        sealed = False
        class_side = class_side_default
        for k in range(start, p):
            if V[k] == "sealed":
                sealed = True
            else:
                class_side = True
        self.i = p
        selector, params, ptypes = self.parse_pattern_def()
        rtype = None
        if K[self.i] == K_BINOP and V[self.i] == "->":
            self.i += 1
            rtype = self.parse_type()
        # K[self.i] is '=>' (guaranteed by method_def_at)
        arrow = self.i
        self.i += 1
        body, body_end = self.parse_method_body(selector, arrow)
        source = self.source[self.S[p] : body_end]
        return _tnew(_MethodDef, (
            selector,
            tuple(params),
            body,
            class_side,
            sealed,
            rtype,
            tuple(ptypes) if ptypes and ptypes.count(None) != len(ptypes) else (),
            doc,
            None,  # expect
            source,
            self.S[start],
            body_end,
            self.T,
        ))

    def parse_pattern_def(self):
        K = self.K
        V = self.V
        i = self.i
        k = K[i]
        if k == K_IDENT:
            self.i += 1
            return V[i], [], []
        if k == K_BINOP:
            self.i += 1
            name, typ = self.parse_param()
            return V[i], [name], [typ]
        parts = []
        params = []
        types = []
        while K[self.i] == K_KEYWORD:
            parts.append(V[self.i])
            self.i += 1
            name, typ = self.parse_param()
            params.append(name)
            types.append(typ)
        return "".join(parts), params, types

    def parse_param(self):
        K = self.K
        V = self.V
        i = self.i
        if K[i] == K_IDENT:
            self.i += 1
            if K[self.i] == K_COLON:
                self.i += 1
                return V[i], self.parse_type()
            return V[i], None
        # keyword param: ``amount: Integer``
        self.i += 1
        return V[i][:-1], self.parse_type()

    def body_ends_at(self, i: int) -> bool:
        """Method-body terminators of spec §7.4 at token i."""
        K = self.K
        k = K[i]
        if k == K_EOF:
            return True
        if self.NL[i] and self.source[self.S[i] - 1] == "\n":
            return True
        if k == K_IDENT:
            if not self.maybe_declaration(i):
                return False
            return self.method_def_at(i) >= 0 or self.class_header_at(i) >= 0 or self.standalone_at(i)
        if k == K_KEYWORD:
            return self.V[i] == "state:" or self.method_def_at(i) >= 0
        if k == K_BINOP:
            return self.method_def_at(i) >= 0  # = pattern_end(i) >= 0 here
        if k == K_EXPECT:
            return self.expect_before_item(i)
        return False

    def parse_method_body(self, selector: str, arrow: int):
        """Statements of a method body (spec §7.4).  Returns (body, end
        offset of the last body token)."""
        K = self.K
        saved = (self.in_class, self.base, self.in_method)
        self.in_class = True
        self.in_method = True
        self.base = self.depth
        body = []
        body_end = self.E[arrow]
        try:
            if self.body_ends_at(self.i):
                self.report(
                    f"Method `{selector}` has an empty body",
                    arrow,
                    hint="use `self subclassResponsibility` or `self notImplemented`",
                )
                return (), body_end
            while True:
                self.stmt_start = self.i
                st = self.parse_statement()
                k = K[self.i]
                sep = False
                if k == K_BANG:
                    st = self.make_cast(st)
                    self.i += 1
                    sep = True
                    body_end = self.E[self.i - 1]
                else:
                    body_end = self.E[self.i - 1]
                    if k == K_PERIOD:
                        self.i += 1
                        sep = True
                body.append(st)
                i = self.i
                if self.body_ends_at(i):
                    break
                if not sep and not self.NL[i] and not isinstance(st, A.Expect):
                    break  # two statements on one line: the body ends
        finally:
            self.in_class, self.base, self.in_method = saved
        return tuple(body), body_end

    def parse_standalone(self):
        K = self.K
        V = self.V
        start = self.i
        doc = self.doc_before(start)
        class_name = V[start]
        j = start + 1
        class_side = False
        if K[j] == K_IDENT and V[j] == "class":
            class_side = True
            j += 1
        self.i = j + 1  # skip '>>'
        m = self.parse_method(class_side_default=class_side, doc=doc, standalone=True)
        return _tnew(_StandaloneMethod, (class_name, class_side, m, self.S[start], self.E[self.i - 1], self.T))


def _replace(node, **changes):
    return node._replace(**changes)


#: Workspace singletons (repl.md §5): always bound, never assignable.
SYSTEM_NAMES = ("Transcript", "Beamtalk", "Workspace")


def _bad_target(name: str) -> str:
    if name in SYSTEM_NAMES:
        return f"{name} is a system name and cannot be shadowed"
    return "Assignment target must be an identifier or field access"


def parse_source(source: str, filename: str = "<input>"):
    """Parse; return (Module, diagnostics).  Never raises for bad input.

    The cyclic garbage collector is paused while parsing: the parser creates
    many small objects but no reference cycles, and the collector's
    generation-0 passes would otherwise cost 10-15 % of the parse time."""
    gc_was_enabled = gc.isenabled()
    if gc_was_enabled:
        gc.disable()
    try:
        p = Parser(source, filename)
        try:
            module = p.parse_module()
        except RecursionError:
            p.diags.append(
                Diagnostic("Expression nesting is too deep", Span(0, min(1, len(source)), 1, 1))
            )
            module = None
        return module, p.diags
    finally:
        if gc_was_enabled:
            gc.enable()
