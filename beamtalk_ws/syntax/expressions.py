"""Statements and expressions (spec/syntax.md §3–§5): statements, assignment,
cascades, keyword / binary / unary sends, primaries and blocks — and the
newline rules of §3.1 that decide where an expression stops.

``parse_keyword`` and ``parse_binary`` are the parser's hottest paths: the
primary and the unary tail are deliberately inlined in them (keep it so, the
benchmark in ``scripts/bench_parse.py`` measures it).
"""

from __future__ import annotations

from .cursor import (
    _Assignment,
    _BinarySend,
    _Block,
    _Cascade,
    _CascadeMessage,
    _Cast,
    _DECL_KEYWORDS,
    _Expect,
    _FieldAccess,
    _GlobalRef,
    _KeywordSend,
    _LITERAL_KINDS,
    _PREC,
    _Primitive,
    _Return,
    _Super,
    _tnew,
    _UnarySend,
    _Variable,
    A,
    Cursor,
    EXPECT_CATEGORIES,
    K_ASSIGN,
    K_BANG,
    K_BINOP,
    K_CARET,
    K_COLON,
    K_EOF,
    K_ERROR,
    K_EXPECT,
    K_HASH_BRACE,
    K_HASH_BRACKET,
    K_HASH_PAREN,
    K_IDENT,
    K_INTRINSIC,
    K_KEYWORD,
    K_LBRACKET,
    K_LPAREN,
    K_PERIOD,
    K_PIPE,
    K_PRIMITIVE,
    K_RBRACKET,
    K_RPAREN,
    K_SEMI,
    K_STR_START,
    K_STRING,
    MAX_NESTING,
    Span,
)

#: what an assignment may assign to
_TARGETS = (A.Variable, A.FieldAccess)

#: Workspace singletons (repl.md §5): always bound, never assignable.
SYSTEM_NAMES = ("Transcript", "Beamtalk", "Workspace")

#: identifier text -> the node class of the identifier as a primary
#: (``GlobalRef`` for capitalised names, ``Super``, else ``Variable``): one
#: dict lookup instead of three string tests on the hot paths
_NAME_NODE: dict = {}


def _name_node(name: str):
    """Fill _NAME_NODE for ``name`` (cleared when it grows too big)."""
    if len(_NAME_NODE) > 100_000:
        _NAME_NODE.clear()
    c = name[0]
    cls = _GlobalRef if "A" <= c <= "Z" else _Super if name == "super" else _Variable
    _NAME_NODE[name] = cls
    return cls


class ExpressionParser(Cursor):
    """Statements and expressions."""

    __slots__ = ()

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
        if k is K_CARET:
            self.i = i + 1
            value = self.parse_assignment()
            return _tnew(_Return, (value, self.S[i], self.E[self.i - 1], self.T))
        if k is K_EXPECT:
            return self.parse_expect()
        return self.parse_assignment()

    def bad_target_hint(self, name: str, i: int):
        """The hint for ``Name := …`` at token i (see _bad_target_hint)."""
        j = i + 2
        K = self.K
        defines = (
            K[j] is K_IDENT
            and K[j + 1] is K_KEYWORD
            and self.V[j + 1] == "subclass:"
            and K[j + 2] is K_IDENT
            and self.V[j + 2] == name
        )
        return _bad_target_hint(name, defines)

    def parse_expect(self):
        i = self.i
        self.i += 1
        j = self.i
        if self.K[j] is K_IDENT and not self.NL[j]:
            cat = self.V[j]
            self.i += 1
            if cat not in EXPECT_CATEGORIES:
                self.report(
                    f"Unknown @expect category '{cat}'",
                    j,
                    hint="categories are " + ", ".join(EXPECT_CATEGORIES),
                )
            return _tnew(_Expect, (cat, self.S[i], self.E[j], self.T))
        self.error("Expected a category after @expect (dnu, type, unused or all)", j if self.K[j] is not K_EOF else i)

    def parse_assignment(self):
        K = self.K
        i = self.i
        if K[i] is K_IDENT and K[i + 1] is K_ASSIGN:
            # fast path for ``name := value``
            name = self.V[i]
            try:
                cls = _NAME_NODE[name]
            except KeyError:
                cls = _name_node(name)
            if cls is not _Variable:
                self.error(_bad_target(name), i, self.bad_target_hint(name, i))
            lhs = _tnew(_Variable, (name, self.S[i], self.E[i], self.T))
            self.i = i + 2
            j = self.i
            if K[j] is K_IDENT and K[j + 1] is K_ASSIGN:  # a := b := …
                # depth counts the nesting; base moves with it because the
                # value is still at statement level for the method-boundary
                # rules (a method header on the next line ends it)
                self.depth += 1
                self.base += 1
                if self.depth > MAX_NESTING:
                    self.nesting_error()
                value = self.parse_assignment()
                self.depth -= 1
                self.base -= 1
            else:
                value = self.parse_assignment()
            return _tnew(_Assignment, (lhs, value, lhs[-3], self.E[self.i - 1], self.T))
        lhs = self.parse_keyword()
        k = K[self.i]
        if k is K_SEMI:
            lhs = self.parse_cascade(lhs)
            k = K[self.i]
        if k is K_ASSIGN:
            if not isinstance(lhs, _TARGETS):
                prev = self.i - 1
                # `x := 3 y := 4`: the `.` before `y` is missing, so `3 y` is the target
                hint = (f"`{self.V[prev]} :=` starts another statement: put a `.` before `{self.V[prev]}`"
                        if K[prev] is K_IDENT and not self.NL[prev] and _ends_in_unary(lhs) else None)
                if isinstance(lhs, A.UnarySend) and isinstance(lhs.receiver, A.Variable):
                    # `p x := 3`, as a setter of other languages
                    r, f = lhs.receiver.name, lhs.selector
                    setter = (f"send a setter, `{r} {f}: value` (a method `{f}: v => self.{f} := v`), "
                              f"or write `self.{f} := value` inside a method of the class")
                    hint = setter if hint is None else f"{hint}; or, to set `{f}` of `{r}`: {setter}"
                self.error("Assignment target must be an identifier or field access", span=lhs.span, hint=hint)
            self.i += 1
            self.depth += 1
            self.base += 1  # statement level still (see the fast path above)
            if self.depth > MAX_NESTING:
                self.nesting_error()
            value = self.parse_assignment()
            self.depth -= 1
            self.base -= 1
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
        while K[self.i] is K_SEMI:
            if self.in_class and self.NL[self.i] and self.stop_here(self.i):
                break
            self.i += 1
            i = self.i
            k = K[i]
            if k is K_IDENT:
                self.i += 1
                messages.append(_tnew(_CascadeMessage, (V[i], (), self.S[i], self.E[i], self.T)))
            elif k is K_KEYWORD:
                parts = []
                args = []
                while K[self.i] is K_KEYWORD:
                    j = self.i
                    if j != i and self.NL[j] and self.in_class and self.depth == self.base and (
                        self.source[self.S[j] - 1] == "\n" or V[j] in _DECL_KEYWORDS or self.method_def_at(j) >= 0
                    ):
                        break
                    parts.append(V[j])
                    self.i += 1
                    args.append(self.parse_binary(0))
                messages.append(_tnew(_CascadeMessage, ("".join(parts), tuple(args), self.S[i], self.E[self.i - 1], self.T)))
            elif k is K_BINOP and V[i] in _PREC:
                self.i += 1
                arg = self.parse_unary()
                messages.append(_tnew(_CascadeMessage, (V[i], (arg,), self.S[i], self.E[self.i - 1], self.T)))
            else:
                if k is K_ERROR:
                    self.lex_error(i)
                self.error("Expected message selector in cascade", i if k is not K_EOF else i - 1)
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
        recv = send.receiver
        if recv[-1] is not self.T:
            r = recv.span
            return _tnew(Span, (r[1], send[-2], r[2], r[3]))
        # line and column of the receiver counted from the last position
        # asked for (cascades come in source order): the parse never builds
        # the line table of the whole source for them
        start = recv[-3]
        src = self.source
        at, line = self.line_at
        if start < at:
            at, line = 0, 1
        line += src.count("\n", at, start)
        self.line_at = (start, line)
        return _tnew(Span, (recv[-2], send[-2], line, start - src.rfind("\n", 0, start)))

    def stop_here(self, i: int) -> bool:
        """In a method body (at its own nesting level), does the NL-before
        token i end the current expression? (column-0 rule, spec §7.4)"""
        return self.depth == self.base and self.source[self.S[i] - 1] == "\n"

    def parse_keyword(self):
        # keywordExpr: binaryExpr [keyword binaryExpr ...] (first binaryExpr
        # inlined: this is the hottest path of the parser)
        K = self.K
        NL = self.NL
        V = self.V
        S = self.S
        E = self.E
        T = self.T
        i = self.i
        k = K[i]
        # a plain variable / literal receiver on the current line is built
        # here (what parse_primary would do); anything else goes there
        # (a token after a newline is first checked by parse_primary, unless
        # it starts the statement: see there)
        if k is K_IDENT and (not NL[i] or i == self.stmt_start or not self.in_class):
            name = V[i]
            try:
                cls = _NAME_NODE[name]
            except KeyError:
                cls = _name_node(name)
            if self.text[E[i]] == "." and K[i + 2] is K_IDENT and S[i + 2] == E[i + 1] and cls is not _Super:
                # field access ``a.b.c`` (tight dots), as in parse_primary
                s = S[i]
                recv = _tnew(cls, (name, s, E[i], T))
                i += 2
                recv = _tnew(_FieldAccess, (recv, V[i], s, E[i], T))
                while self.text[E[i]] == "." and K[i + 2] is K_IDENT and S[i + 2] == E[i + 1]:
                    i += 2
                    recv = _tnew(_FieldAccess, (recv, V[i], s, E[i], T))
            elif cls is _Super:
                recv = _tnew(_Super, (S[i], E[i], T))
            else:
                recv = _tnew(cls, (name, S[i], E[i], T))
            i += 1
        elif k in _LITERAL_KINDS and (not NL[i] or i == self.stmt_start or not self.in_class):
            recv = _tnew(_LITERAL_KINDS[k], (V[i], S[i], E[i], T))
            i += 1
        else:
            recv = self.parse_primary()
            i = self.i
        k = K[i]
        if k is K_IDENT and not NL[i]:
            # unary selectors on the same line
            ns = recv[-3]
            while True:
                recv = _tnew(_UnarySend, (recv, V[i], ns, E[i], T))
                i += 1
                k = K[i]
                if k is not K_IDENT or NL[i]:
                    break
        if k is K_BINOP:
            self.i = i
            recv = self.binary_tail(recv, 0)
            i = self.i
            k = K[i]
        if k is not K_KEYWORD or NL[i]:
            self.i = i
            return recv
        if V[i] == "match:" and K[i + 1] is K_LBRACKET:
            self.i = i
            return self.parse_match(recv)
        # one keyword (the usual case) needs no lists: ``parts`` is made for
        # the second one
        sel = V[i]
        parts = None
        while True:
            i += 1
            k = K[i]
            if NL[i] or not (k is K_LBRACKET or k in _LITERAL_KINDS):
                self.i = i
                arg = self.parse_binary(0)
                i = self.i
            else:
                # a block or a literal: parse_binary's work without its frame
                if k is K_LBRACKET:
                    self.i = i
                    arg = self.parse_block()
                    i = self.i
                else:
                    arg = _tnew(_LITERAL_KINDS[k], (V[i], S[i], E[i], T))
                    i += 1
                k = K[i]
                if k is K_BINOP or (k is K_IDENT and not NL[i]):
                    self.i = i
                    arg = self.unary_tail(arg)
                    if K[self.i] is K_BINOP:
                        arg = self.binary_tail(arg, 0)
                    i = self.i
            if parts is None:
                first = arg
            else:
                args.append(arg)
            if K[i] is not K_KEYWORD:
                break
            if NL[i] and self.in_class and self.depth == self.base and (
                self.source[S[i] - 1] == "\n" or V[i] in _DECL_KEYWORDS or self.method_def_at(i) >= 0
            ):
                break
            if parts is None:
                parts = [sel]
                args = [first]
            parts.append(V[i])
        self.i = i
        if parts is None:
            return _tnew(_KeywordSend, (recv, sel, (first,), recv[-3], E[i - 1], T))
        return _tnew(_KeywordSend, (recv, "".join(parts), tuple(args), recv[-3], E[i - 1], T))

    def unary_tail(self, node):
        """Unary selectors on the same line after ``node``."""
        K = self.K
        V = self.V
        NL = self.NL
        E = self.E
        i = self.i
        ns = node[-3]
        T = self.T
        while K[i] is K_IDENT and not NL[i]:
            node = _tnew(_UnarySend, (node, V[i], ns, E[i], T))
            i += 1
        self.i = i
        return node

    def parse_binary(self, min_prec: int):
        # the same inlined primary and unary tail as in parse_keyword
        K = self.K
        NL = self.NL
        V = self.V
        S = self.S
        E = self.E
        T = self.T
        i = self.i
        k = K[i]
        if k is K_IDENT and (not NL[i] or i == self.stmt_start or not self.in_class):
            name = V[i]
            try:
                cls = _NAME_NODE[name]
            except KeyError:
                cls = _name_node(name)
            if self.text[E[i]] == "." and K[i + 2] is K_IDENT and S[i + 2] == E[i + 1] and cls is not _Super:
                # field access ``a.b.c`` (tight dots), as in parse_primary
                s = S[i]
                left = _tnew(cls, (name, s, E[i], T))
                i += 2
                left = _tnew(_FieldAccess, (left, V[i], s, E[i], T))
                while self.text[E[i]] == "." and K[i + 2] is K_IDENT and S[i + 2] == E[i + 1]:
                    i += 2
                    left = _tnew(_FieldAccess, (left, V[i], s, E[i], T))
            elif cls is _Super:
                left = _tnew(_Super, (S[i], E[i], T))
            else:
                left = _tnew(cls, (name, S[i], E[i], T))
            i += 1
        elif k in _LITERAL_KINDS and not NL[i]:
            left = _tnew(_LITERAL_KINDS[k], (V[i], S[i], E[i], T))
            i += 1
        else:
            left = self.parse_primary()
            i = self.i
        k = K[i]
        if k is K_IDENT and not NL[i]:
            ns = left[-3]
            while True:
                left = _tnew(_UnarySend, (left, V[i], ns, E[i], T))
                i += 1
                k = K[i]
                if k is not K_IDENT or NL[i]:
                    break
        self.i = i
        if k is K_BINOP:
            return self.binary_tail(left, min_prec)
        return left

    def binary_tail(self, left, min_prec: int):
        """Precedence climbing over the binary operators after ``left``."""
        K = self.K
        V = self.V
        while True:
            i = self.i
            if K[i] is not K_BINOP:
                return left
            op = V[i]
            prec = _PREC.get(op)
            if prec is None or prec < min_prec:
                return left
            if self.NL[i] and self.in_class and self.depth == self.base:
                if self.source[self.S[i] - 1] == "\n" or self.binary_method_at(i):
                    return left
            j = i + 1
            k = K[j]
            if op == "**":
                self.i = j
                self.enter()
                right = self.parse_binary(prec)
                self.depth -= 1
            elif (k is K_IDENT or k in _LITERAL_KINDS) and not self.NL[j] and (
                (k1 := K[j + 1]) is not K_BINOP and k1 is not K_PERIOD and (k1 is not K_IDENT or self.NL[j + 1])
                or k1 is K_BINOP and _PREC.get(V[j + 1], 0) <= prec
            ):
                # a lone variable or literal operand: parse_binary's result
                # without its frame
                E = self.E
                T = self.T
                if k is K_IDENT:
                    name = V[j]
                    try:
                        cls = _NAME_NODE[name]
                    except KeyError:
                        cls = _name_node(name)
                    if cls is _Super:
                        right = _tnew(_Super, (self.S[j], E[j], T))
                    else:
                        right = _tnew(cls, (name, self.S[j], E[j], T))
                else:
                    right = _tnew(_LITERAL_KINDS[k], (V[j], self.S[j], E[j], T))
                self.i = j + 1
                left = _tnew(_BinarySend, (left, op, right, left[-3], E[j], T))
                continue
            else:
                self.i = j
                right = self.parse_binary(prec + 1)
            left = _tnew(_BinarySend, (left, op, right, left[-3], self.E[self.i - 1], self.T))

    def parse_unary(self):
        node = self.parse_primary()
        K = self.K
        i = self.i
        if K[i] is not K_IDENT or self.NL[i]:
            return node
        V = self.V
        NL = self.NL
        E = self.E
        ns = node[-3]
        T = self.T
        while K[i] is K_IDENT and not NL[i]:
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
            self.ended_body(i)
        if k is K_IDENT:
            V = self.V
            name = V[i]
            S = self.S
            E = self.E
            try:
                cls = _NAME_NODE[name]
            except KeyError:
                cls = _name_node(name)
            if self.text[E[i]] == "." and K[i + 2] is K_IDENT and S[i + 2] == E[i + 1] and cls is not _Super:
                # field access ``a.b.c`` (tight dots), inlined
                T = self.T
                s = S[i]
                node = _tnew(cls, (name, s, E[i], T))
                j = i + 2
                node = _tnew(_FieldAccess, (node, V[j], s, E[j], T))
                while self.text[E[j]] == "." and K[j + 2] is K_IDENT and S[j + 2] == E[j + 1]:
                    j += 2
                    node = _tnew(_FieldAccess, (node, V[j], s, E[j], T))
                self.i = j + 1
                return node
            self.i = i + 1
            if cls is _Super:
                return _tnew(_Super, (S[i], E[i], self.T))
            return _tnew(cls, (name, S[i], E[i], self.T))
        f = _LITERAL_KINDS.get(k)
        if f is not None:
            self.i = i + 1
            return _tnew(f, (self.V[i], self.S[i], self.E[i], self.T))
        if k is K_LBRACKET:
            return self.parse_block()
        if k is K_LPAREN:
            self.enter()
            self.i = i + 1
            node = self.parse_statement()
            if K[self.i] is not K_RPAREN:
                self.close_error("Expected ')' to close parentheses", i)
            self.i += 1
            self.depth -= 1
            return node
        if k is K_STR_START:
            return self.parse_interpolation()
        if k is K_HASH_PAREN:
            return self.parse_list()
        if k is K_HASH_BRACKET:
            return self.parse_array()
        if k is K_HASH_BRACE:
            return self.parse_map()
        if k is K_PRIMITIVE or k is K_INTRINSIC:
            return self.parse_primitive()
        self.expected_expression()


    def parse_primitive(self):
        i = self.i
        kind = "primitive" if self.K[i] is K_PRIMITIVE else "intrinsic"
        j = i + 1
        k = self.K[j]
        if k is K_STRING or (k is K_IDENT and not self.NL[j]):
            name = self.V[j]
            self.i = j + 1
        elif k is K_ERROR:
            self.lex_error(j)
        else:
            self.error(f"Expected a name after @{kind} (a string or identifier)", j if k is not K_EOF else i)
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
        while K[i] is K_COLON:
            i += 1
            if K[i] is not K_IDENT:
                self.i = i
                if K[i] is K_KEYWORD:
                    self.error(
                        "Expected parameter name after ':'",
                        hint="write block parameters with spaces: [:a :b | ...]",
                    )
                self.error("Expected parameter name after ':'")
            params.append(V[i])
            i += 1
        if params:
            if K[i] is not K_PIPE:
                self.i = i
                self.error("Expected '|' after block parameters")
            i += 1
        # the statements up to and including the closing ']'
        body = []
        if K[i] is K_RBRACKET:
            i += 1
        else:
            NL = self.NL
            while True:
                self.i = i
                if K[i] is K_EOF or (self.in_class and NL[i] and self.body_ends_at(i)):
                    # end of input, or (in a class body) a line that starts the
                    # next method/declaration: the block was never closed
                    self.close_error("Expected ']' to close block", i)
                k = K[i]
                # parse_statement, inlined
                if k is K_CARET:
                    self.i = i + 1
                    value = self.parse_assignment()
                    st = _tnew(_Return, (value, self.S[i], self.E[self.i - 1], self.T))
                elif k is K_EXPECT:
                    st = self.parse_expect()
                else:
                    st = self.parse_assignment()
                i = self.i
                k = K[i]
                sep = False
                if k is K_PERIOD:
                    i += 1
                    sep = True
                elif k is K_BANG:
                    st = self.make_cast(st)
                    i += 1
                    sep = True
                body.append(st)
                k = K[i]
                if k is K_RBRACKET:
                    i += 1
                    break
                if not sep and not NL[i] and not isinstance(st, A.Expect) or k is K_EOF:
                    self.i = i
                    if k is K_PIPE and not params and all(K[j] is K_IDENT for j in range(start + 1, i)):
                        # `[e | e * 2]`: block parameters without their colons
                        names = " ".join(":" + V[j] for j in range(start + 1, i))
                        hint = f"block parameters start with a colon: [{names} | ...]"
                        if i == start + 2:  # `[a | b]` may be Pharo's or as well
                            hint += "; `|` is not an operator in Beamtalk: for or, write `a or: [b]`"
                        self.error("Expected ']' to close block", i, hint)
                    self.close_error("Expected ']' to close block", i)
        self.i = i
        self.depth -= 1
        return _tnew(_Block, (tuple(params), tuple(body), self.S[start], self.E[i - 1], self.T))



def _ends_in_unary(node) -> bool:
    """`a + 1 c`: the expression's last message is a unary one."""
    while isinstance(node, (A.BinarySend, A.KeywordSend)):
        node = node.argument if isinstance(node, A.BinarySend) else node.arguments[-1]
    return isinstance(node, A.UnarySend)


def _bad_target_hint(name: str, defines_class: bool):
    """Why an upper-case name cannot be assigned, and what to write."""
    if name in SYSTEM_NAMES or name == "super":
        return None
    if defines_class:
        return f"a class definition binds its name itself: write `Object subclass: {name}` without `{name} :=`"
    return (
        f"{name} starts with an upper-case letter, so it names a class or global; "
        f"variables start with a lower-case letter ({name[0].lower() + name[1:]} := …)"
    )


def _bad_target(name: str) -> str:
    if name in SYSTEM_NAMES:
        return f"{name} is a system name and cannot be shadowed"
    return "Assignment target must be an identifier or field access"
