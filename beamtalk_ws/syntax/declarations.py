"""Declarations (spec/syntax.md §7): class definitions and their bodies,
``state:`` / ``classState:``, methods, standalone ``Class >> sel =>``
methods, and the look-ahead that recognises a method header (§7.3) and the
end of a method body (§7.4)."""

from __future__ import annotations

from typing import Optional

from .cursor import (
    _ClassDef,
    _MethodDef,
    _Return,
    _StandaloneMethod,
    _StateDecl,
    _tnew,
    A,
    CLASS_MODIFIERS,
    K_ASSIGN,
    K_BANG,
    K_BINOP,
    K_CARET,
    K_COLON,
    K_EOF,
    K_ERROR,
    K_EXPECT,
    K_FATARROW,
    K_IDENT,
    K_KEYWORD,
    K_LBRACKET,
    K_PERIOD,
    K_PIPE,
    K_STRING,
    K_SYMBOL,
    K_RBRACE,
    K_RBRACKET,
    K_RPAREN,
    Optional,
    ParseError,
)
from .literals import LiteralParser
from .teaching import pharo_class_message


class DeclarationParser(LiteralParser):
    """Classes, methods and their boundaries."""

    __slots__ = ()

    # ------------------------------------------------------------ classes
    def class_header_at(self, i: int) -> int:
        """If a class definition starts at token i, return the index of its
        superclass name token, else -1.  ``[modifiers] Ident subclass:``."""
        K = self.K
        V = self.V
        j = i
        while True:
            if K[j] is K_IDENT and K[j + 1] is K_KEYWORD and V[j + 1] == "subclass:":
                return j
            if K[j] is K_IDENT and V[j] in CLASS_MODIFIERS:
                j += 1
                continue
            return -1

    def standalone_at(self, i: int) -> bool:
        """``ClassName [class] >> pattern =>`` at token i?"""
        K = self.K
        V = self.V
        if K[i] is not K_IDENT or not self.is_upper(V[i]):
            return False
        j = i + 1
        if K[j] is K_IDENT and V[j] == "class":
            j += 1
        if not (K[j] is K_BINOP and V[j] == ">>"):
            return False
        return self.pattern_end(j + 1) >= 0

    def skip_type(self, j: int) -> int:
        K = self.K
        if K[j] is not K_IDENT:
            return -1
        j += 1
        while K[j] is K_PIPE and K[j + 1] is K_IDENT:
            j += 2
        return j

    def skip_param(self, j: int) -> int:
        """A method parameter with an optional type (`x`, `x : T`, `x: T`)
        starting at token j: the index after it, or -1."""
        K = self.K
        if K[j] is K_IDENT:
            j += 1
            if K[j] is K_COLON:
                return self.skip_type(j + 1)
            return j
        if K[j] is K_KEYWORD:
            return self.skip_type(j + 1)
        return -1

    def pattern_end(self, j: int) -> int:
        """If a method pattern (plus optional ``-> Type``) followed by ``=>``
        starts at token j, return the index of the ``=>``; else -1.

        A method header is one line: ``at: k`` ⏎ ``put: v =>`` is the end of
        a keyword message followed by the header ``put: v =>``, never the
        header ``at:put:``."""
        K = self.K
        start = j
        k = K[j]
        if k is K_IDENT:
            j += 1
        elif k is K_BINOP:
            j = self.skip_param(j + 1)
            if j < 0:
                return -1
        elif k is K_KEYWORD:
            while K[j] is K_KEYWORD:
                j = self.skip_param(j + 1)
                if j < 0:
                    return -1
        else:
            return -1
        if K[j] is K_BINOP and self.V[j] == "->":
            j = self.skip_type(j + 1)
            if j < 0:
                return -1
        if K[j] is not K_FATARROW or True in self.NL[start + 1 : j + 1]:
            return -1
        return j

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
        while K[j] is K_IDENT and (V[j] == "sealed" or V[j] == "class") and not self.NL[j + 1]:
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
        b = self.S[i]
        a = self.E[i - 1] if i > 0 else 0  # where the leading trivia starts
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
        doc = self.doc_before(start) if self.source.find("///", self.E[start - 1] if start else 0, self.S[start]) >= 0 else None
        modifiers = tuple(V[k] for k in range(start, j))
        superclass = V[j]
        if superclass == "nil":
            superclass = None
        self.i = j + 2
        if K[self.i] is not K_IDENT:
            if K[self.i] is K_ERROR:
                self.lex_error(self.i)
            hint = (f"after subclass: comes the class name as a bare identifier "
                    f"(Object subclass: Foo), found {self.describe(self.i)}")
            if K[self.i] is K_SYMBOL:
                # Pharo's ``Object subclass: #Foo instanceVariableNames: 'a b' ...``
                line_end = self.source.find("\n", self.S[self.i])
                rest = self.source[self.S[self.i]:line_end if line_end >= 0 else len(self.source)]
                hint = pharo_class_message(V[j], V[self.i], rest)
            self.error(
                "Expected class name",
                self.i if K[self.i] is not K_EOF else self.i - 1,
                hint=hint,
            )
        name = V[self.i]
        self.i += 1
        if K[self.i] is K_LBRACKET and not self.NL[self.i]:
            # Pharo/GNU Smalltalk's ``Object subclass: Foo [ … ]``
            self.error(
                f"Unexpected '[' after the class name {name}",
                self.i,
                hint=f"a class body has no brackets: the declarations and methods follow on the "
                f"next lines, indented (`Object subclass: {name}` ⏎ `  speak => …`)",
            )
        state = []
        class_state = []
        methods = []
        after_col0_method = False
        saved = (self.in_class, self.base, self.in_method)
        try:
            while True:
                i = self.i
                k = K[i]
                if k is K_EOF:
                    break
                if after_col0_method:
                    if not (self.NL[i] and self.source[self.S[i] - 1] == "\n"):
                        after_col0_method = False
                if k is K_PERIOD:
                    self.i += 1
                    continue
                expect = None
                if k is K_EXPECT and self.expect_before_item(i):
                    # ``@expect cat`` before a declaration applies to it
                    expect = self.parse_expect()
                    i = self.i
                    k = K[i]
                if k is K_KEYWORD and V[i] == "state:":
                    # guarded_item(parse_state_decl), inlined
                    try:
                        st = self.parse_state_decl()
                    except ParseError as err:
                        self.add(err.diag)
                        self.depth = 0
                        self.recover(i, err.depth, stop_at_methods=True)
                        continue
                    state.append(st if expect is None else self.with_expect(st, expect))
                    continue
                if k is K_KEYWORD and V[i] == "classState:" and not after_col0_method:
                    st = self.guarded_item(self.parse_state_decl)
                    if st is not None:
                        class_state.append(self.with_expect(st, expect))
                    continue
                p = self.defs.get(i)
                if p is None:
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
                    after_col0_method = K[e] is not K_EOF and self.NL[e] and self.source[self.S[e] - 1] == "\n"
                    continue
                if k is K_IDENT and self.NL[i] and not self.at_col1(i) and (
                        self.NL[i + 1] or K[i + 1] is K_EOF or (K[i + 1] is K_CARET and not self.NL[i + 1])):
                    self.missing_arrow(i)
                if k is K_STRING and self.NL[i] and not self.at_col1(i) and self.NL[i + 1] \
                        and not self.at_col1(i + 1) and (self.method_def_at(i + 1) >= 0
                                                         or (K[i + 1] is K_KEYWORD and V[i + 1] == "state:")):
                    # ``"A comment"`` on its own line, as Pharo writes one: by
                    # spec §7.4 it ends the class and the method below it
                    # would stand outside; say what the line is instead
                    self.report("A String is not a comment: a class body holds state:, classState: and methods",
                                i, hint="comments start with // (/// above a method documents it)")
                    self.i = i + 1
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

    def missing_arrow(self, i: int):
        """An indented line of one identifier in a class body: a unary
        method header without its ``=>`` (``speak`` ⏎ ``^1``, as Pharo's
        browser shows methods).  Without this it ends the class and becomes
        a top-level statement,
        reported later as an undefined variable.  Reported, not raised: the
        class keeps the items before it."""
        line_end = self.source.find("\n", self.S[i])
        header = self.source[self.S[i] : line_end if line_end >= 0 else len(self.source)].rstrip()
        if self.K[i + 1] is K_CARET and not self.NL[i + 1]:
            # ``testY ^1``: the body on the header's line, the ``=>`` left out
            header, body = self.V[i], header[self.S[i + 1] - self.S[i]:].strip()
            shown = f"{header} => {body if len(body) <= 40 else body[:39] + '…'}"
        else:
            shown = f"{header} => …"
        self.report(
            "Expected a method definition (pattern => body), state: or classState: in the class body",
            i,
            hint=f"a method header ends with `=>`: `{shown}`",
        )

    def expect_before_item(self, i: int) -> bool:
        """``@expect cat`` at token i followed by a class-body declaration?"""
        K = self.K
        if K[i + 1] is not K_IDENT:
            return False
        j = i + 2
        k = K[j]
        if k is K_KEYWORD and self.V[j] in ("state:", "classState:"):
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
        doc = self.doc_before(start) if self.source.find("///", self.E[start - 1] if start else 0, self.S[start]) >= 0 else None
        which = V[start]
        self.i += 1
        i = self.i
        typ = None
        if K[i] is K_IDENT:
            name = V[i]
            self.i += 1
            if K[self.i] is K_COLON:
                self.i += 1
                typ = self.parse_type()
        elif K[i] is K_KEYWORD:
            name = V[i][:-1]
            self.i += 1
            typ = self.parse_type()
        else:
            if K[i] is K_ERROR:
                self.lex_error(i)
            self.error(f"Expected slot name after {which}", i if K[i] is not K_EOF else start)
        default = None
        if K[self.i] is K_ASSIGN:
            self.error(
                "Unexpected token: expected expression, found :=",
                self.i,
                hint=f"a {which[:-1]} default is written with `=`: {which} {name} = value",
            )
        if K[self.i] is K_BINOP and V[self.i] == "=":
            self.i += 1
            self.in_class = True
            self.in_method = False
            self.base = self.depth
            default = self.parse_statement()
        return _tnew(_StateDecl, (name, typ, default, doc, None, self.S[start], self.E[self.i - 1], self.T))

    def parse_type(self) -> str:
        K = self.K
        V = self.V
        if K[self.i] is not K_IDENT:
            self.error(f"Expected a type name, found {self.describe(self.i)}")
        names = [V[self.i]]
        self.i += 1
        while K[self.i] is K_PIPE and K[self.i + 1] is K_IDENT:
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
            doc = self.doc_before(start) if self.source.find("///", self.E[start - 1] if start else 0, self.S[start]) >= 0 else None
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
        if K[self.i] is K_BINOP and V[self.i] == "->":
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
        if k is K_IDENT:
            self.i += 1
            return V[i], [], []
        if k is K_BINOP:
            self.i += 1
            name, typ = self.parse_param()
            return V[i], [name], [typ]
        parts = []
        params = []
        types = []
        while K[self.i] is K_KEYWORD:
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
        if K[i] is K_IDENT:
            self.i += 1
            if K[self.i] is K_COLON:
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
        if k is K_EOF:
            return True
        if self.NL[i] and self.source[self.S[i] - 1] == "\n":
            return True
        if k is K_IDENT:
            # maybe_declaration, inlined
            k1 = K[i + 1]
            if k1 is not K_FATARROW and k1 is not K_IDENT:
                v = self.V[i]
                if v != "sealed" and v != "class":
                    if k1 is K_KEYWORD:
                        if self.V[i + 1] != "subclass:":
                            return False
                    elif k1 is K_BINOP:
                        v = self.V[i + 1]
                        if v != ">>" and v != "->":
                            return False
                    else:
                        return False
            return self.method_def_at(i) >= 0 or self.class_header_at(i) >= 0 or self.standalone_at(i)
        if k is K_KEYWORD:
            return self.V[i] == "state:" or self.method_def_at(i) >= 0
        if k is K_BINOP:
            return self.method_def_at(i) >= 0  # = pattern_end(i) >= 0 here
        if k is K_EXPECT:
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
                hint = "use `self subclassResponsibility` or `self notImplemented`"
                if K[self.i] is not K_EOF and self.NL[self.i] and self.at_col1(self.i):
                    # the body was written at column 0, which ends the class (spec §7.4)
                    hint = "indent the body under the method: a line at column 0 ends the method and the class"
                self.report(f"Method `{selector}` has an empty body", arrow, hint=hint)
                return (), body_end
            while True:
                i = self.i
                self.stmt_start = i
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
                k = K[self.i]
                sep = False
                if k is K_BANG:
                    st = self.make_cast(st)
                    self.i += 1
                    sep = True
                    body_end = self.E[self.i - 1]
                else:
                    body_end = self.E[self.i - 1]
                    if k is K_PERIOD:
                        self.i += 1
                        sep = True
                body.append(st)
                i = self.i
                if self.body_ends_at(i):
                    break
                if not sep and not self.NL[i] and not isinstance(st, A.Expect):
                    self.teach_comma(i)  # ``a , b`` is no second statement
                    self.stray_after_statement(i, arrow)
                    break  # two statements on one line: the body ends
        finally:
            self.in_class, self.base, self.in_method = saved
        return tuple(body), body_end

    def stray_after_statement(self, i: int, arrow: int) -> None:
        """Token i follows a statement on its line and cannot start one (an
        operator such as Pharo's `&`, or a closing bracket): raise the error
        here, inside the method, so that the class body recovers at the next
        method.  Ending the body let the token end the class too, and every
        later method was reported as outside a class.  A `]` whose opening
        bracket a `//` comment swallowed says so."""
        K = self.K
        if not (K[i] is K_BINOP or K[i] in (K_RPAREN, K_RBRACKET, K_RBRACE)):
            return
        if K[i] is not K_BINOP:
            for line in self.source[self.E[arrow] : self.S[i]].split("\n"):
                c = line.find("//")
                if c < 0 or line.startswith("///", c):
                    continue
                eaten = line[c + 2 :].strip()
                if any(ch in eaten for ch in "[(") and eaten[:1].isalnum():
                    self.error(f"Unexpected token: expected expression, found {self.V[i]}", i,
                               f"`//` starts a comment, so `{eaten}` was not read; integer division "
                               f"is `div:` (7 div: 2)")
        self.i = i
        self.parse_assignment()  # raises the error of a statement starting here

    def parse_standalone(self):
        K = self.K
        V = self.V
        start = self.i
        doc = self.doc_before(start)
        class_name = V[start]
        j = start + 1
        class_side = False
        if K[j] is K_IDENT and V[j] == "class":
            class_side = True
            j += 1
        self.i = j + 1  # skip '>>'
        m = self.parse_method(class_side_default=class_side, doc=doc, standalone=True)
        return _tnew(_StandaloneMethod, (class_name, class_side, m, self.S[start], self.E[self.i - 1], self.T))




def _replace(node, **changes):
    return node._replace(**changes)
