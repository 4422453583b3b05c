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

The grammar is split by concern; ``Parser`` is their stack::

    cursor.Cursor                  tokens, position, errors, recovery
    expressions.ExpressionParser   statements, sends, primaries, blocks
    literals.LiteralParser         interpolation, collections, match:
    declarations.DeclarationParser classes, methods, their boundaries
    parser.Parser                  a module (file or REPL input)

This module keeps the public names (``Parser``, ``ParseError``,
``parse_source``, ``BINARY_OPERATORS``, ``SYSTEM_NAMES``, …).
"""

from __future__ import annotations

import difflib
import gc
from typing import Optional

from . import teaching
from .cursor import (  # noqa: F401  (public names)
    _tnew,
    A,
    BINARY_OPERATORS,
    CLASS_MODIFIERS,
    Diagnostic,
    EXPECT_CATEGORIES,
    K_BANG,
    K_BINOP,
    K_EOF,
    K_FATARROW,
    K_IDENT,
    K_KEYWORD,
    K_PERIOD,
    MAX_NESTING,
    ParseError,
    Span,
    TEMPORARIES_HINT,
)
from .declarations import DeclarationParser
from .expressions import SYSTEM_NAMES  # noqa: F401  (public name)



#: the keyword parts of Pharo's class-definition message
_PHARO_CLASS_KEYWORDS = frozenset({"instanceVariableNames:", "classVariableNames:", "package:", "category:",
                                   "poolDictionaries:", "slots:", "instVarNames:"})

class Parser(DeclarationParser):
    """One source text: ``parse_module`` parses it all."""

    __slots__ = ()

    # ------------------------------------------------------------ module
    def parse_module(self) -> A.Module:
        K = self.K
        items = []
        while K[self.i] is not K_EOF:
            start = self.i
            try:
                if K[start] is K_IDENT and self.maybe_declaration(start):
                    j = self.class_header_at(start)
                    if j >= 0:
                        items.append(self.parse_class(j))
                        continue
                    if self.standalone_at(start):
                        items.append(self.parse_standalone())
                        continue
                    if self.method_def_at(start) >= 0:  # ``start =>`` outside a class
                        raise ParseError(self.not_a_class_header(items) or self.method_outside_class(start), 0)
                st = self.parse_statement()
                k = K[self.i]
                if k is K_PERIOD:
                    self.i += 1
                elif k is K_BANG:
                    st = self.make_cast(st)
                    self.i += 1
                items.append(st)
            except ParseError as e:
                declaration = self.method_def_at(start) >= 0 or (
                    self.K[start] is K_KEYWORD and self.V[start] in ("state:", "classState:"))
                header = (self.not_a_class_header(items) or self.class_body_ended_early(start, items)
                          if declaration else None)
                self.add(header or self.method_outside_class(start) or self.class_item_expected(start, items)
                         or e.diag)
                self.depth = 0
                self.in_class = self.in_method = False
                self.recover(start, e.depth)
        return _tnew(A.Module, (tuple(items), 0, len(self.source), self.T))

    def class_body_ended_early(self, start: int, items: list) -> Optional[Diagnostic]:
        """An indented method definition after an indented line that ended
        the class body above it (``foo ^1`` or ``foo = 1`` for ``foo =>``,
        ``x := 3`` for a ``state:``): the fault is that line, not the method
        below it, which "must be inside a class" although it is indented."""
        if not self.NL[start] or self.at_col1(start):
            return None
        k = len(items)
        while k and not isinstance(items[k - 1], A.ClassDef):
            k -= 1
        if not k or k == len(items):
            return None
        cls, stray = items[k - 1], items[k]
        a = self.source.rfind("\n", 0, stray.span.start) + 1
        if a <= 0 or self.source[a:stray.span.start].strip() or a == stray.span.start:
            return None                 # the stray statement is not an indented line of its own
        header = self.source[self.S[start]:self.E[self.pattern_end(self.method_def_at(start))]]
        b = self.source.find("\n", stray.span.start)
        message, hint = teaching.class_body_ended(cls.name, self.source[stray.span.start:b if b >= 0 else None],
                                                  header)
        return self.make_diag(message, span=stray.span, hint=hint)

    def method_outside_class(self, start: int) -> Optional[Diagnostic]:
        """A statement that failed to parse because it is a method header
        (``start =>`` as the seed writes ``src/app.bt``): say where methods
        go instead of "expected expression, found =>"."""
        p = self.method_def_at(start)
        if p < 0:
            return None
        arrow = self.pattern_end(p)
        header = self.source[self.S[start] : self.E[arrow]]
        pattern = self.source[self.S[p] : self.E[arrow]]
        selector = self.parse_pattern_at(p)
        message, hint = teaching.method_outside_class(selector, header, pattern, self.filename)
        return self.make_diag(message, span=self.span(start, arrow), hint=hint)

    def not_a_class_header(self, items: list) -> Optional[Diagnostic]:
        """``final Object subclass: Fin`` followed by its methods: the header
        parsed as a message send (``final Object`` is a unary send), so the
        method below seems to stand outside a class.  Point at the word that
        is not one of the modifiers of spec syntax §7.1."""
        if not items:
            return None
        st = items[-1]
        misspelt = self.misspelt_subclass(st)
        if misspelt is not None:
            return misspelt
        if not (isinstance(st, A.KeywordSend) and st.selector.startswith("subclass:")
                and isinstance(st.receiver, A.UnarySend) and isinstance(st.receiver.receiver, A.Variable)):
            return None
        word = st.receiver.receiver
        superclass = st.receiver.selector
        return self.make_diag(
            f"`{word.name}` is not a class modifier", span=word.span,
            hint=f"a class header is `[abstract | sealed | typed] Superclass subclass: Name`, "
                 f"as in `sealed {superclass} subclass: …`")

    def misspelt_subclass(self, st) -> Optional[Diagnostic]:
        """``Object subClass: Foo``, ``Object sublass: Foo``, ``Object
        subclass Foo`` above an indented method: a class header that did not
        parse as one, so the method seemed to stand outside a class."""
        word = None
        if (isinstance(st, A.KeywordSend) and st.selector.count(":") == 1 and isinstance(st.receiver, A.GlobalRef)
                and isinstance(st.arguments[0], A.GlobalRef)):
            word, after = st.selector, st.receiver.span.end
        elif (isinstance(st, A.UnarySend) and isinstance(st.receiver, A.UnarySend)
              and isinstance(st.receiver.receiver, A.GlobalRef) and st.selector[:1].isupper()):
            word, after = st.receiver.selector, st.receiver.receiver.span.end
        if word is None or word == "subclass:" or not (
                word.lower().rstrip(":") == "subclass"
                or difflib.SequenceMatcher(None, word.lower(), "subclass:").ratio() >= 0.8):
            return None
        start = self.source.find(word, after)
        line = self.source.count("\n", 0, start) + 1
        col = start - (self.source.rfind("\n", 0, start) + 1) + 1
        return self.make_diag(
            f"`{word}` does not make a class header", span=Span(start, start + len(word), line, col),
            hint="a class header is `Superclass subclass: Name` (`subclass:` in lower case, with its colon)")

    def class_item_expected(self, start: int, items: list) -> Optional[Diagnostic]:
        """An indented keyword line that ended a class body (``x: v [ … ]``
        as some docs write methods): it was meant as a class-body item."""
        if not (self.K[start] is K_KEYWORD and self.NL[start] and not self.at_col1(start)):
            return None
        if not items or not isinstance(items[-1], A.ClassDef) or items[-1].span.end != self.E[start - 1]:
            return None
        hint = ("a method is written `pattern => body` (there are no method brackets [ … ]); "
                "a keyword message cannot start a line")
        if self.V[start] in _PHARO_CLASS_KEYWORDS:
            # ``instanceVariableNames: 'a b'`` under a class header
            hint = ("fields are declared one per line with their default: `state: balance = 0`; "
                    "class variables with `classState: count = 0`")
        return self.make_diag(
            "Expected a method definition (pattern => body), state: or classState: in the class body",
            start, hint=hint)

    def parse_pattern_at(self, p: int) -> str:
        """The selector of the method pattern at token p."""
        saved = self.i
        self.i = p
        try:
            return self.parse_pattern_def()[0]
        finally:
            self.i = saved

    def maybe_declaration(self, i: int) -> bool:
        """Cheap pre-check (token i is an identifier): could a class header,
        a standalone method or a method definition start here?"""
        k1 = self.K[i + 1]
        if k1 is K_FATARROW or k1 is K_IDENT:
            return True
        v = self.V[i]
        if v == "sealed" or v == "class":
            return True  # sealed/class before a binary or keyword pattern
        if k1 is K_KEYWORD:
            return self.V[i + 1] == "subclass:"
        if k1 is K_BINOP:
            v = self.V[i + 1]
            return v == ">>" or v == "->"
        return False


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
        if module is not None and "Method:" in source:  # addMethod: … body: …
            p.diags.extend(teaching.builder_block_self(module, source))
        return module, p.diags
    finally:
        if gc_was_enabled:
            gc.enable()
