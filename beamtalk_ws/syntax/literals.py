"""Literal forms with an inside (spec/syntax.md §2.3, §4, §6): string
interpolation, list / array / map literals, and ``match:`` with its
patterns."""

from __future__ import annotations

from .cursor import (
    K_ASSIGN,
    K_CARET,
    _CLOSERS,
    _OPENERS,
    _ArrayLit,
    _FloatLit,
    _IntegerLit,
    _InterpolatedString,
    _ListLit,
    _LITERAL_KINDS,
    _LiteralPattern,
    _MapLit,
    _MapPair,
    _Match,
    _MatchArm,
    _SymbolLit,
    _tnew,
    _TuplePattern,
    _VariablePattern,
    _WildcardPattern,
    K_BINOP,
    K_CHAR,
    K_EOF,
    K_ERROR,
    K_FATARROW,
    K_FLOAT,
    K_IDENT,
    K_INT,
    K_KEYWORD,
    K_LBRACE,
    K_PERIOD,
    K_LBRACKET,
    K_PIPE,
    K_RBRACE,
    K_RBRACKET,
    K_RPAREN,
    K_SEMI,
    K_STR_END,
    K_STR_SEG,
    K_STRING,
    K_SYMBOL,
)
from .expressions import ExpressionParser

#: tokens that can start an element written after another without a comma
_ELEMENT_STARTS = frozenset((K_INT, K_FLOAT, K_STRING, K_SYMBOL, K_CHAR, K_IDENT))


#: `"{""a"": 1}"`: a quote right after the brace is JSON (or a dict) typed as
#: text, not an expression; `\{` keeps its backslash (spec syntax §2.3)
_JSON_BRACE_HINT = ('a { in a string starts an interpolation; for a literal brace (JSON text) write \\{, '
                    'which keeps its backslash: ("\\{" drop: 1) is "{", so '
                    'JSON parse: ("\\{" drop: 1) ++ """a"": 1}"')


class LiteralParser(ExpressionParser):
    """Interpolated strings, collection literals, ``match:``."""

    __slots__ = ()

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
            if K[self.i] is K_CARET:
                self.error("Unexpected token: expected expression, found ^",
                           hint="an interpolation holds one expression without cascade, assignment or '^'")
            parts.append(self.parse_keyword())
            k = K[self.i]
            if k is K_STR_SEG:
                if V[self.i]:
                    parts.append(V[self.i])
                self.i += 1
                continue
            if k is K_STR_END:
                if V[self.i]:
                    parts.append(V[self.i])
                self.i += 1
                break
            if k is K_ERROR:
                self.lex_error(self.i)
            self.teach_comma(self.i)
            self.error(
                f"Unexpected token in string interpolation: expected '}}', found {self.describe(self.i)}",
                hint=_JSON_BRACE_HINT if K[start + 1] is K_STRING
                else "an interpolation holds one expression without cascade, assignment or '^'",
            )
        self.depth -= 1
        return _tnew(_InterpolatedString, (tuple(parts), self.S[start], self.E[self.i - 1], self.T))

    def _comma(self, i: int) -> bool:
        return self.K[i] is K_BINOP and self.V[i] == ","

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
            self.missing_comma(closer, message, start)
            self.keyword_element(message, start)
            self.close_error(message, start)
        self.i += 1
        self.depth -= 1

    def keyword_element(self, message: str, start: int) -> None:
        """``#(d respondsTo: #x, 2)``: elements are binary-level expressions
        (spec syntax §4), so the keyword ends the element.  Keep the spec's
        message and show the element in parentheses."""
        K = self.K
        i = self.i
        if K[i] is not K_KEYWORD or self.NL[i]:
            return
        depth = 0
        a = i - 1
        while a > start:
            k = K[a]
            if k in _CLOSERS:
                depth += 1
            elif k in _OPENERS:
                depth -= 1
            elif depth == 0 and (self._comma(a) or k is K_FATARROW):
                break
            a -= 1
        depth = 0
        b = i
        while K[b] is not K_EOF:
            k = K[b]
            if k in _OPENERS:
                depth += 1
            elif k in _CLOSERS:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (self._comma(b) or k is K_FATARROW):
                break
            b += 1
        if b <= a + 1:
            return
        element = self.source[self.S[a + 1] : self.E[b - 1]]
        if "\n" in element or len(element) > 60:
            hint = "an element of a literal is a binary expression: put a keyword message in parentheses"
        else:
            hint = f"an element of a literal is a binary expression: write `({element})`"
        self.error(message, i, hint)

    def missing_comma(self, closer, message: str, start: int) -> None:
        """Elements written without commas, as in Pharo's ``#(1 2 3)``:
        keep the spec's message, and show the literal with commas."""
        K = self.K
        i = self.i
        if self.NL[i] or K[i] not in _ELEMENT_STARTS:
            return
        if K[i - 1] is K_SYMBOL and len(self.V[i - 1]) > 1 and self.V[i - 1].endswith(","):
            # ``#(#+, 1)``: spec syntax §2.5 reads `#+,` as one symbol
            text = self.tok_text(i - 1)
            self.error(message, i, f"`{text}` is one symbol: after `#` a run of operator characters, "
                                   f"`,` among them, makes one symbol; write a space before the comma "
                                   f"(`{text[:-1]} ,`)")
        # the literal's tokens up to its closer on this line, one per element
        j = start + 1
        parts = []
        while K[j] is not closer:
            if K[j] not in _ELEMENT_STARTS or (j > start + 1 and self.NL[j]) or len(parts) > 8:
                parts = None
                break
            parts.append(self.tok_text(j))
            j += 1
        opener = self.tok_text(start)
        if parts:
            hint = "elements are separated by commas: " + opener + ", ".join(parts) + self.tok_text(j)
        else:
            example = {"#(": "#(1, 2, 3)", "#[": "#[1, 2, 3]"}.get(opener, "#{#a => 1, #b => 2}")
            hint = "elements are separated by commas, as in " + example
        self.error(message, i, hint)

    def parse_list(self):
        K = self.K
        start = self.i
        self.enter()
        self.i += 1
        elements = self.comma_items(K_RPAREN, lambda: self.parse_binary(0))
        tail = None
        if K[self.i] is K_PIPE:
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
        if K[i] is K_IDENT and K[i + 1] is K_FATARROW and not self.is_upper(V[i]):
            key = _tnew(_SymbolLit, (V[i], self.S[i], self.E[i], self.T))
            self.i += 1
        else:
            key = self.parse_unary()
        if K[self.i] is not K_FATARROW:
            if K[self.i] is K_ERROR:
                self.lex_error(self.i)
            hint = None
            if K[self.i] is K_KEYWORD or (K[self.i] is K_BINOP and not self._comma(self.i)):
                hint = "a map key is a unary expression: put a longer key in parentheses, as in #{(1 + 1) => #two}"
            self.error(f"Expected '=>' after map key, found {self.describe(self.i)}", hint=hint)
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
            if K[self.i] is K_RBRACKET:
                if not arms:
                    self.error("Expected a match arm (pattern -> expression)")
                break
            a = self.i
            pattern = self.parse_pattern()
            guard = None
            if K[self.i] is K_KEYWORD and V[self.i] == "when:":
                self.i += 1
                if K[self.i] is not K_LBRACKET:
                    self.error("Expected '[' after when:")
                self.i += 1
                self.enter()
                guard = self.parse_statement()
                if K[self.i] is not K_RBRACKET:
                    self.close_error("Expected ']' to close guard", self.i)
                self.i += 1
                self.depth -= 1
            if not (K[self.i] is K_BINOP and V[self.i] == "->"):
                if K[self.i] is K_ERROR:
                    self.lex_error(self.i)
                self.error(f"Expected '->' after match pattern, found {self.describe(self.i)}")
            self.i += 1
            body = self.parse_keyword()
            arms.append(_tnew(_MatchArm, (pattern, guard, body, self.S[a], self.E[self.i - 1], self.T)))
            k = K[self.i]
            if k is K_SEMI:
                self.i += 1
                continue
            if k is K_RBRACKET:
                break
            if self.NL[self.i] and k is not K_EOF:
                continue
            if k is K_PERIOD:
                # Pharo's statement separator: arms are separated by `;` or a new line (spec syntax §3.2)
                self.error("Expected ']' to close match", hint="match: arms are separated by `;` or a new "
                           "line, not `.`: `[#red -> 1; _ -> 2]`")
            if k is K_ASSIGN:
                # spec syntax §4: an arm body is keyword-level
                self.error("Expected ']' to close match", hint="an arm's body is one expression without "
                           "assignment or cascade: assign the whole match instead (`x := v match: [...]`)")
            self.close_error("Expected ']' to close match", open_i)
        self.i += 1
        self.depth -= 1
        return _tnew(_Match, (subject, tuple(arms), subject[-3], self.E[self.i - 1], self.T))

    def parse_pattern(self):
        K = self.K
        V = self.V
        i = self.i
        k = K[i]
        if k is K_IDENT:
            self.i += 1
            if V[i] == "_":
                return _tnew(_WildcardPattern, (self.S[i], self.E[i], self.T))
            return _tnew(_VariablePattern, (V[i], self.S[i], self.E[i], self.T))
        f = _LITERAL_KINDS.get(k)
        if f is not None:
            self.i += 1
            lit = _tnew(f, (V[i], self.S[i], self.E[i], self.T))
            return _tnew(_LiteralPattern, (lit, lit[-3], lit[-2], lit[-1]))
        if k is K_BINOP and V[i] == "-" and K[i + 1] in (K_INT, K_FLOAT):
            self.i += 2
            v = -V[i + 1]
            lit = _tnew(_IntegerLit if K[i + 1] is K_INT else _FloatLit, (v, self.S[i], self.E[i + 1], self.T))
            return _tnew(_LiteralPattern, (lit, lit[-3], lit[-2], lit[-1]))
        if k is K_LBRACE:
            self.enter()
            self.i += 1
            elements = []
            if K[self.i] is not K_RBRACE:
                while True:
                    elements.append(self.parse_pattern())
                    if self._comma(self.i):
                        self.i += 1
                        continue
                    break
            if K[self.i] is not K_RBRACE:
                self.close_error("Expected '}' to close tuple pattern", i)
            self.i += 1
            self.depth -= 1
            return _tnew(_TuplePattern, (tuple(elements), self.S[i], self.E[self.i - 1], self.T))
        if k is K_ERROR:
            self.lex_error(i)
        self.error(f"Expected a pattern, found {self.describe(i)}")

