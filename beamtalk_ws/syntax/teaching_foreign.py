"""Hints for the syntax newcomers bring from Python, JavaScript, Ruby and Erlang.

``teaching`` covers what other Smalltalks write differently; this module
covers the words and tokens of the *other* languages: ``print(x)``,
``x += 1``, ``[1, 2, 3]``, ``lists:map(F, L)``, ``|>``, ``return x``.  Without
these the parser can only say "expected expression, found +=" or "Undefined
variable: print", which is true but names no way forward.  Every function
returns a hint (or None) and is called only on an error path.

Imports nothing from the lexer or parser (both use it, through cursor).
"""

from __future__ import annotations

import re
from typing import Optional

#: words of other languages that reach the scope check as undefined
#: variables, and the Beamtalk way to say the same thing
_WORDS = {
    "print": "send printNl to the value (x printNl), or write text with Transcript show: \"text\"; cr",
    "println": "send printNl to the value (x printNl), or write text with Transcript show: \"text\"; cr",
    "puts": "send printNl to the value (x printNl), or write text with Transcript show: \"text\"; cr",
    "printf": "send printNl to the value (x printNl); Erlang's formatting is Erlang io format: \"~p~n\" with: #(x)",
    "echo": "send printNl to the value (x printNl), or write text with Transcript show: \"text\"; cr",
    "console": "send printNl to the value (x printNl), or write text with Transcript show: \"text\"; cr",
    "len": "the length is a message to the collection: x size",
    "length": "the length is a message to the collection: x size",
    "null": "the missing value is nil",
    "undefined": "the missing value is nil (an Erlang atom is a Symbol: #undefined)",
    "None": "the missing value is nil",
    "return": "^ returns a value from a method: ^x",
    "let": "variables need no declaration: x := 3",
    "var": "variables need no declaration: x := 3",
    "const": "variables need no declaration: x := 3",
    "local": "variables need no declaration: x := 3",
    "import": "there is no import: every loaded class is known by name; load a file with Workspace load: \"path.bt\"",
    "require": "there is no import: every loaded class is known by name; load a file with Workspace load: \"path.bt\"",
    "from": "there is no import: every loaded class is known by name; load a file with Workspace load: \"path.bt\"",
    "lambda": "a block is the function: [:x | x * 2], called with value: (b value: 3)",
    "fun": "a block is the function: [:x | x * 2], called with value: (b value: 3)",
    "fn": "a block is the function: [:x | x * 2], called with value: (b value: 3)",
    "function": "a block is the function: [:x | x * 2], called with value: (b value: 3)",
    "def": "a method is written `name => body`, indented under a class (Object subclass: Foo)",
    "func": "a method is written `name => body`, indented under a class (Object subclass: Foo)",
    "class": "a class is made by a message: Object subclass: Foo, its methods indented below",
    "receive": "an actor receives messages as method calls: define methods on an Actor subclass, spawn it and send to it",
    "if": "a condition is a message to a Boolean: (x > 1) ifTrue: [...] ifFalse: [...]",
    "elif": "a condition is a message to a Boolean: (x > 1) ifTrue: [...] ifFalse: [...]",
    "else": "a condition is a message to a Boolean: (x > 1) ifTrue: [...] ifFalse: [...]",
    "unless": "a condition is a message to a Boolean: (x > 1) ifFalse: [...]",
    "for": "loops are messages: coll do: [:x | ...], 1 to: 10 do: [:i | ...]",
    "foreach": "loops are messages: coll do: [:x | ...], 1 to: 10 do: [:i | ...]",
    "while": "loops are messages: [x < 10] whileTrue: [...]",
    "switch": "x match: [1 -> \"one\"; _ -> \"other\"] chooses by pattern",
    "case": "x match: [1 -> \"one\"; _ -> \"other\"] chooses by pattern",
    "this": "the receiver of a method is self",
    "ok": "an Erlang atom is a Symbol: #ok",
    "error": "an Erlang atom is a Symbol: #error; to raise an error send self error: \"text\" in a method",
    "thisContext": "Beamtalk has no thisContext: an error carries its own stack (e stackTrace in an on:do: handler)",
}


def undefined_name(name: str, source: Optional[str], end: int) -> Optional[str]:
    """The hint for ``Undefined variable: name`` whose token ends at ``end``:
    a word of another language, or a function call ``name(...)``."""
    hint = _WORDS.get(name)
    if hint is not None:
        return hint
    if source is not None and name in ("f", "s", "r", "b") and source[end : end + 1] in ('"', "'"):
        return 'a String interpolates by itself: "hello {x}" (no f prefix)'
    if source is not None and source[end : end + 1] == "(":
        return (f"Beamtalk has no function calls `{name}(...)`: send a message to a receiver "
                f"(x {name}, x {name}: y), or call Erlang as Erlang lists reverse: #(1, 2)")
    return None


#: operators and tokens of other languages, by the token the parser stopped at
_TOKENS = {
    "+=": "Beamtalk has no `+=`: write x := x + 1",
    "-=": "Beamtalk has no `-=`: write x := x - 1",
    "*=": "Beamtalk has no `*=`: write x := x * 2",
    "?": "Beamtalk has no `? :` operator: (x > 1) ifTrue: [a] ifFalse: [b]",
    "!": "`!` is not negation in Beamtalk: send not (x not); `!` after a message sends it without waiting",
    "&&": "`&&` is not an operator in Beamtalk: write `a and: [b]`",
    "->": "`->` makes an Association (key -> value); a function is a block: [:x | x * 2]",
    "=>": "`=>` separates a method's header from its body, inside a class",
    "==>": "Beamtalk has no `==>`",
}


#: statement-opening words of other languages: when a line starts with one,
#: the error anywhere in it is about that word
_OPENERS = frozenset({"for", "foreach", "if", "elif", "else", "while", "def", "func", "function", "class",
                      "return", "let", "var", "const", "import", "from", "lambda", "fun", "receive",
                      "switch", "case", "print", "puts", "unless"})


def line_word(source: str, offset: int) -> Optional[str]:
    """The hint for the other language's keyword that starts the line holding
    ``offset`` (``for x in xs:``, ``def foo():``, ``if x > 1:``), or None."""
    a = source.rfind("\n", 0, offset) + 1
    m = re.match(r"[ \t]*([a-z]+)[ \t(]", source[a:])
    if m is None or m.group(1) not in _OPENERS:
        return None
    rest = source[a + m.end(1) :].lstrip()
    if rest.startswith((":=", ":", ".")):
        return None  # ``print := 3``, ``print: x``: a Beamtalk statement
    return _WORDS[m.group(1)]


def token(text: str, prev_text: str, next_text: str, source: str, start: int) -> Optional[str]:
    """The hint for "expected expression, found ``text``" where ``text`` is a
    token other languages use; None when nothing better than the parser's
    own message can be said."""
    if text == "|" and next_text == ">" and source[start + 1 : start + 2] == ">":
        return "Beamtalk has no pipe operator `|>`: send the messages in turn (#(1, 2) reverse size)"
    if text == ")" and prev_text == "(":
        return "a message takes no parentheses: write `x foo` (unary) or `x foo: 1` (keyword), not `x.foo()`"
    if text == ":" and prev_text not in ("", "[", "("):
        return ("a colon does not open a block here: conditions and loops are messages with blocks, "
                "(x > 1) ifTrue: [...], coll do: [:x | ...]")
    if text.endswith(":") and next_text and source[start + len(text) : start + len(text) + 1].isalpha():
        # ``lists:map(...)``, ``io:format(...)``: Erlang's module:function
        mod = text[:-1]
        return (f"call Erlang with the Erlang proxy and keyword arguments: Erlang {mod} {next_text}: arg1 with: arg2 "
                f"(Erlang lists seq: 1 with: 5)")
    return _TOKENS.get(text)


def increment(op: str, prev_text: str) -> Optional[str]:
    """``x++`` / ``x--`` at the end of the input: no increment operator."""
    if op in ("++", "--") and prev_text[:1].isalpha():
        sign = "+" if op == "++" else "-"
        return f"Beamtalk has no `{op}`: write {prev_text} := {prev_text} {sign} 1"
    return None


def innermost_opener(source: str, offset: int) -> tuple:
    """(opener text, its offset) of the innermost bracket still open at
    ``offset``, skipping strings, characters and comments; ("", -1) when
    none is."""
    stack = []
    i = 0
    n = min(offset, len(source))
    while i < n:
        c = source[i]
        if c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 1
            i = j + 1
            continue
        if c == "$":
            i += 2
            continue
        if c == "/" and source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "([{":
            hashed = i > 0 and source[i - 1] == "#"
            stack.append(("#" + c if hashed else c, i - 1 if hashed else i))
        elif c in ")]}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else ("", -1)


def comma(source: str, start: int) -> Optional[tuple]:
    """``(message, hint)`` for a ``,`` inside other languages' brackets:
    ``[1, 2, 3]`` (a list literal) and ``f(a, b)`` (a call); None when the
    comma is not inside such brackets.  A list is told apart from Pharo's
    concatenation in a block (``ifTrue: [a , b]``) by the comma written
    against its left element and the ``[`` not being a keyword's argument."""
    opener, at = innermost_opener(source, start)
    if opener == "[":
        inside = source[at + 1 : start]
        if inside.lstrip().startswith(":") or start == 0 or source[start - 1].isspace() \
                or source[:at].rstrip().endswith(":"):
            return None
        return ("`[ ]` is a block, not a list: a List literal is written #(1, 2, 3)",
                "write #( ) around the elements, e.g. #(1, 2, 3); a block [ ... ] is code run later")
    if opener == "(" and at > 0 and re.match(r"[A-Za-z0-9_]", source[at - 1]):
        name = re.search(r"([A-Za-z_][\w]*)$", source[:at])
        shown = name.group(1) if name else "f"
        return (f"`{shown}(a, b)` is not a call in Beamtalk: messages are sent with keywords",
                "send a keyword message: receiver at: 1 put: 2; call Erlang with Erlang lists seq: 1 with: 5")
    return None
