"""Diagnostics that teach (issue 11 item 6).

Where Beamtalk differs on purpose from what a Smalltalk or Erlang user — or
the seeds' own examples — would write, the error says so and shows the
accepted form.  The builders below return ``(message, hint)``; the lexer and
the parser call them only on their error paths, so input that parses pays
nothing.  ``builder_block_self`` is the one check that needs a finished tree
(``self`` in a block given to ``addMethod:body:``); ``parse_source`` runs it
only when the source mentions such a selector.

This module imports nothing from the lexer or parser (both import it).
"""

from __future__ import annotations

import re
from typing import Optional

from . import ast as A
from .diagnostics import Diagnostic

#: longest accepted form quoted in a hint; longer ones are cut with "…"
_SHOWN = 72

#: ClassBuilder selectors whose block argument becomes a method (seed ADR 0038)
BUILDER_SELECTORS = ("addMethod:body:", "addClassMethod:body:")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1].rstrip() + " …"


def _line_of(source: str, offset: int) -> tuple:
    """(start, end) offsets of the line holding ``offset``."""
    a = source.rfind("\n", 0, offset) + 1
    b = source.find("\n", offset)
    return a, (len(source) if b < 0 else b)


def single_quoted(text: str) -> tuple:
    """``'Rex'`` → single-quoted strings are no longer supported, use double quotes: "Rex"."""
    body = text[1:-1] if len(text) > 1 and text.endswith("'") else text[1:]
    shown = '"' + body.replace("''", "'").replace('"', '""') + '"'
    return (
        f"single-quoted strings are no longer supported, use double quotes: {_cut(shown)}",
        "single quotes are not strings in Beamtalk; they only quote symbols (#'two words')",
    )


def quoted_erlang_name(source: str, start: int, end: int, after_erlang: bool) -> Optional[str]:
    """The hint for Erlang's quoted atoms where a name goes (seed ADR 0028's
    "quoted selectors for edge cases"): ``Erlang erlang '+': 1 with: 2`` or
    ``Erlang 'bt@counter' f``.  Beamtalk has no quoted selectors; a function
    whose name is no identifier is reached with ``call:args:`` and such a
    module with ``perform:``.  None where the quote is not in such a place."""
    name = source[start + 1 : end - 1] if end - start > 1 and source[end - 1 : end] == "'" else ""
    if not name:
        return None
    if after_erlang:
        return f"an Erlang module whose name is not an identifier is reached with (Erlang perform: #'{name}')"
    if source[end : end + 1] == ":":
        return (f"an Erlang function whose name is not an identifier is called with call:args:"
                f" Erlang erlang call: #'{name}' args: #(arg1, arg2)")
    return None


def keyword_starts_line(source: str, prev_end: int, kw_start: int, after_statement: bool) -> tuple:
    """A keyword with a newline before it where a statement must start: the
    first keyword of a message goes on its receiver's line (spec §3.1)."""
    keyword_line = source[kw_start : _line_of(source, kw_start)[1]].strip()
    message = "a keyword message cannot start a line: join it to the line above"
    if after_statement:
        return message, f"a keyword message needs a receiver before it: `receiver {_cut(keyword_line)}`"
    a, _b = _line_of(source, max(prev_end - 1, 0))
    above = source[a:prev_end].strip()
    return (
        message,
        f"write `{_cut(above + ' ' + keyword_line)}`; later keywords and cascade parts may go on new lines",
    )


#: operators of other Smalltalks that Beamtalk's parser does not know
#: (spec syntax §5 lists the ones it does), and what to write instead
_OTHER_OPERATORS = {
    "&": "`&` is not an operator in Beamtalk: write `a and: [b]`",
    "\\\\": "`\\\\` does not exist in Beamtalk: `%` is the remainder (rem), `div:` the truncating division",
    "~=": "write `/=` (or `=/=`, which does not equate 1 and 1.0) for not-equal",
    "~~": "Beamtalk has no identity test apart from equality: write `/=`",
}

def compound_assignment(source: str, start: int, end: int) -> Optional[str]:
    """`x += 1` (spec syntax §3: there are no compound assignments): the
    assignment it stands for, when the operator token is `+=`, `-=` or `*=`."""
    op = source[start:end]
    if op not in ("+=", "-=", "*="):
        return None
    before = source[source.rfind("\n", 0, start) + 1:start]
    target = re.search(r"([A-Za-z_][A-Za-z0-9_.]*)\s*$", before)
    value = re.match(r"\s*([^\])]*?)\s*(?:\.\s|\.$|[\])]|$)", source[end:].split("\n", 1)[0])
    lead = before[:target.start()].rstrip() if target else ""
    if not target or not value or not value.group(1) or (lead and lead[-1] not in ".[|(;" and not lead.endswith("=>")):
        return f"Beamtalk has no `{op}`: write `x := x {op[0]} value`"
    name, operand = target.group(1), _cut(value.group(1))
    if " " in operand:
        operand = f"({operand})"        # `x *= 3 + y` multiplies by the sum
    return f"Beamtalk has no `{op}`: write `{name} := {name} {op[0]} {operand}`"


#: `a | b` as Pharo's Boolean or (the parser reads `|` as a bar)
OR_HINT = "`|` is not an operator in Beamtalk: write `a or: [b]`"


def other_operator(op: str):
    """The hint for an operator token the parser does not know, or None."""
    return _OTHER_OPERATORS.get(op)


def comma_operator(source: str, start: int, end: int) -> tuple:
    """``a , b`` → concatenate with ``++``; ``on: A, B do:`` (Pharo's
    exception set) → a common superclass or nested handlers."""
    a, b = _line_of(source, start)
    before = re.search(r"on:\s*([A-Z]\w*)\s*$", source[a:start])
    after = re.match(r"\s*([A-Z]\w*)\s+do:", source[end:b])
    if before and after:
        first_class, second_class = before.group(1), after.group(1)
        return (
            "`,` is not an operator in Beamtalk: there are no exception sets",
            f"catch a class both inherit from (`on: Error do:`), or nest the handlers: "
            f"`[[...] on: {first_class} do: [...]] on: {second_class} do: [...]`",
        )
    fixed = source[a:start].rstrip() + " ++ " + _later_commas(source[end:b].lstrip())
    return (
        "`,` is not an operator in Beamtalk: concatenate with ++",
        f"write `{_cut(fixed)}`; `,` only separates the elements of #( ), #[ ] and #{{ }}",
    )


def _later_commas(rest: str) -> str:
    """The rest of the line after the reported `,` with its other
    concatenation commas (outside strings and #( ), #[ ], #{ } literals)
    written `++` too: `a , " then " , b` was fixed into `a ++ " then " , b`."""
    out, stack, i = [], [], 0
    while i < len(rest):
        ch = rest[i]
        if ch == '"':
            close = rest.find('"', i + 1)
            close = len(rest) - 1 if close < 0 else close
            out.append(rest[i:close + 1])
            i = close + 1
            continue
        if ch in "([{":
            stack.append(i > 0 and rest[i - 1] == "#")
        elif ch in ")]}":
            if not stack:
                out.append(rest[i:])  # the end of what held the reported comma
                break
            stack.pop()
        elif ch == "," and not any(stack):
            out.append("++")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def pharo_class_message(superclass: str, name: str, line: str) -> str:
    """Pharo's class-definition message (``Object subclass: #Foo
    instanceVariableNames: 'a b' ...``): the name without ``#``, and its
    instance and class variables as the declarations of a class body."""
    fields = re.search(r"instanceVariableNames:\s*['\"]([^'\"]*)['\"]", line)
    shared = re.search(r"classVariableNames:\s*['\"]([^'\"]*)['\"]", line)
    decls = [f"`state: {f}`" for f in (fields.group(1).split() if fields else [])]
    decls += [f"`classState: {f[:1].lower() + f[1:]}`" for f in (shared.group(1).split() if shared else [])]
    head = f"the class name is written without #: `{superclass} subclass: {name}`"
    if decls:
        return head + f", and its variables are declared on the lines below it, indented: {', '.join(decls)}"
    if "Names:" in line or "package:" in line or "category:" in line:
        return head + ", and its fields are declared on the lines below it, indented (`state: balance = 0`)"
    return head


def method_outside_class(selector: str, header: str, pattern: str, filename: str) -> tuple:
    """A method header (``header``, its pattern without ``sealed``/``class``
    is ``pattern``) where a statement must start: the top level of a file or
    an input."""
    if selector == "start":
        name = class_name_for(filename)
        return (
            "start must be a class-side method of a class",
            f"write `Object subclass: {name}` and, indented below it, `class start => …`; "
            "beamtalk run sends start to the class of the start file",
        )
    return (
        "a method definition must be inside a class",
        f"indent `{_cut(header)} …` under a class header (`Object subclass: Foo`), "
        f"or add it to an existing class with `Foo >> {_cut(pattern)} …`",
    )


def class_body_ended(class_name: str, line: str, next_header: str) -> tuple:
    """An indented line in a class body that is no class-body item ended the
    class; the method definitions below it were then outside the class."""
    line = line.split("\n", 1)[0].strip()
    assign = re.match(r"([a-z_]\w*)\s*:=\s*(.*)", line)
    header = re.match(r"([a-z_]\w*)\s*(\^|\[|=|->)\s*(.*)", line)
    if assign:
        fix = f"a state default is written `state: {assign.group(1)} = {_cut(assign.group(2))}`"
    elif header:
        word, mark, rest = header.groups()
        body = "^" + rest if mark == "^" else rest.rstrip("]").strip() if mark == "[" else rest
        fix = f"a method header ends with `=>`: `{word} => {_cut(body)}`"
    else:
        fix = "a method is written `pattern => body`"
    return (
        "Expected a method definition (pattern => body), state: or classState: in the class body",
        f"this indented line ended the class body of {class_name}, so `{_cut(next_header)}` below it "
        f"is outside the class; {fix}",
    )


def class_name_for(filename: str) -> str:
    """``src/my_app.bt`` → ``MyApp`` (``App`` when there is no file name)."""
    stem = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if not stem.endswith(".bt"):
        return "App"
    parts = [p for p in stem[:-3].replace("-", "_").split("_") if p]
    name = "".join(p[:1].upper() + p[1:] for p in parts)
    return name if name[:1].isalpha() and name.isascii() and name.replace("_", "").isalnum() else "App"


# ------------------------------------------------------------ tree check
def builder_block_self(module, source: str) -> list:
    """``self`` (or ``super``) inside a literal block given to
    ``addMethod:body:`` / ``addClassMethod:body:`` outside any method: the
    block is the method, and it gets the receiver as its first argument."""
    found: list = []
    for item in module.items:
        if not isinstance(item, (A.ClassDef, A.StandaloneMethod)):
            _scan(item, source, found)
    return found


def _scan(node, source: str, found: list) -> None:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, A.KeywordSend) and n.selector in BUILDER_SELECTORS:
            _check_block(n.selector, n.arguments[1], source, found)
        elif isinstance(n, A.CascadeMessage) and n.selector in BUILDER_SELECTORS:
            _check_block(n.selector, n.arguments[1], source, found)
        stack.extend(reversed(tuple(n.children())))


def _check_block(selector: str, block, source: str, found: list) -> None:
    if not isinstance(block, A.Block):
        return
    uses = [n for n in block.walk() if (isinstance(n, A.Variable) and n.name == "self") or isinstance(n, A.Super)]
    if not uses:
        return
    first = min(uses, key=lambda n: n.span.start)
    word = "super" if isinstance(first, A.Super) else "self"
    if block.parameters and block.parameters[0] == "self" and word == "self":
        # `[:self | self name]`: the receiver argument, but `self` cannot
        # name a parameter
        found.append(
            Diagnostic(
                f"`self` cannot name a block parameter; the block of {selector} gets the receiver "
                "as its first argument, so give that argument another name: [:me | me ...]",
                first.span,
                "error",
                _renamed_self_parameter(block, uses, source),
            )
        )
        return
    found.append(
        Diagnostic(
            f"`{word}` is not defined in the block of {selector}: "
            "the block gets the receiver as its first argument: [:me | me ...]",
            first.span,
            "error",
            _rewritten(block, uses, source),
        )
    )


def _with_me(block, uses, source: str) -> Optional[str]:
    """The block's text with `me` for each use of `self`, or None when the
    block is not one short line (a hint shows only those)."""
    a, b = block.span.start, block.span.end
    text = source[a:b]
    if "\n" in text or len(text) > _SHOWN:
        return None
    out = []
    pos = a
    for n in sorted(uses, key=lambda n: n.span.start):
        out.append(source[pos : n.span.start])
        out.append("me")
        pos = n.span.end
    out.append(source[pos:b])
    return "".join(out)


def _renamed_self_parameter(block, uses, source: str) -> Optional[str]:
    """The block with its `:self` parameter and each `self` renamed `me`."""
    text = _with_me(block, uses, source)
    return None if text is None else "write `" + text.replace(":self", ":me", 1) + "`"


def _rewritten(block, uses, source: str) -> Optional[str]:
    """The block with ``:me`` first and ``me`` for each ``self`` (shown only
    when it is one short line; ``super`` has no such spelling)."""
    if any(isinstance(n, A.Super) for n in uses):
        return "a method built from a block has no super; send to the receiver argument instead"
    text = _with_me(block, uses, source)
    if text is None:
        return None
    inner = text[1:].lstrip()
    if block.parameters:
        inner = inner[1:] if inner.startswith(":") else inner
        text = "[:me :" + inner
    else:
        text = "[:me | " + inner
    return f"write `{text}`"
