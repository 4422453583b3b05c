"""Warnings: things that compile and run, but are very likely mistakes.

Warnings never stop an input from running; the REPL shows them as `⚠` lines
and `--json` replies carry them as `"warnings"` (DESIGN §3).  Today there are
eleven here, and in `lint_scope.py` the ones about names in method bodies
(unused locals, shadowed parameters, fields that are no class variables), and in `lint_numbers.py` numbers
spelled as other languages write them (`16#FF`, `0x1F`, `1_000`), in
`lint_newcomers.py` code that runs but cannot mean what a newcomer meant (a
collection update whose answer is dropped, `x[0]`), and in
`lint_literals.py` literals that read differently from other languages, in
`lint_pharo.py` Pharo idioms with another answer here (`initialize` that
`new` never sends, `c = $a` against a String's letters):
- statements after a `^`, which can never run (spec semantics §4.6);
- a comparison of a variable or field whose value is dropped (`x = 2.`),
  where `:=` was meant;
- a method named like an operator that compiles to Erlang's own (`+`, `<`,
  `=`, ...), which `a + b` never sends (§4.4, §6);
- a field change that an `Object subclass:` method loses by answering
  something else (§3.3);
- `3-2`, which spec syntax §2 reads as two expressions;
- a `doesNotUnderstand:` of one argument (Pharo's spelling), which a failed
  lookup never calls (it calls `doesNotUnderstand:args:`, §4.2);
- a `printOn:` method (Pharo's spelling), which `printString` never sends
  (classes override `printString`, §11.1);
- `n // 2` (a comment by spec syntax §1) at the REPL and in method bodies;
- a lone integer in braces inside a string (`"\\d{4}"`), which interpolates
  the number instead of keeping the braces (§2.3);
- a block assigned to a variable it calls itself through (`fib := [:k |
  ... fib value: ...]`), which sees the variable's earlier value (§4.5);
- at the REPL, a block kept in a session variable that assigns a session
  variable: a later input that runs it will not see the assignment, because
  the block is an escaped block (README "Blocks that assign outer
  variables").
"""

from __future__ import annotations

import re

from beamtalk_ws.syntax import ast, unparse
from beamtalk_ws.syntax.ast import Span
from beamtalk_ws.syntax.diagnostics import Diagnostic

from . import lint_literals, lint_newcomers, lint_numbers, lint_pharo, lint_scope

#: binary operators compiled straight to Erlang (spec semantics §6): `a + b`
#: is Erlang's `+` whatever `a` is, so a method of that name is reached
#: only by `perform:`; each with the keyword name the warning suggests
OPERATOR_KEYWORDS = {"+": "plus:", "-": "minus:", "*": "times:", "/": "dividedBy:", "%": "rem:",
                     "**": "raisedTo:", "++": "concat:", "->": "pairWith:", "==": "equals:",
                     "/=": "differsFrom:", "=:=": "equals:", "=/=": "differsFrom:", "=": "equals:",
                     "<": "lessThan:", ">": "greaterThan:", "<=": "atMost:", ">=": "atLeast:"}
ERLANG_OPERATORS = frozenset(OPERATOR_KEYWORDS)
#: what each operator is in Erlang, where the spelling differs (`=` is `=:=`)
_ERLANG_SPELLING = {"=": "=:=", "<=": "=<", "%": "rem", "**": "math:pow"}


def warnings(items, source: str | None = None, table=None) -> list[Diagnostic]:
    """The warnings of a list of top-level items (a REPL input or a file);
    with the source text, also `n // 2` comments inside method bodies; with
    the compiler's class table, the kinds of superclasses defined elsewhere."""
    out: list[Diagnostic] = []
    if source is not None:
        for item in items:
            for node in item.walk():
                if isinstance(node, ast.MethodDef):
                    out += _method_division_comments(node, source)
    _sequence(items, out, source)
    lint_numbers.foreign_numbers(items, out)
    out += lint_newcomers.warnings(items, source)
    lint_literals.literal_warnings(items, out)
    lint_pharo.warnings(items, out, table)
    for item in items:
        if isinstance(item, ast.ClassDef):
            _lost_field_change(item, out)
            lint_scope.class_variable_reads(item, out)
            lint_scope.undeclared_class_variables(item, out)
            lint_scope.undeclared_fields(item, out)
            fields = frozenset(d.name for d in item.state)
            for m in item.methods:
                lint_scope.method_warnings(m, out, fields)
        elif isinstance(item, ast.StandaloneMethod):
            lint_scope.method_warnings(item.method, out)
        for node in item.walk():
            if isinstance(node, ast.MethodDef):
                _sequence(node.body, out)
                _operator_method(node, out)
                _pharo_dnu(node, out)
                _pharo_print_on(node, out)
            elif isinstance(node, ast.Block):
                _sequence(node.body, out)
            elif (isinstance(node, ast.KeywordSend) and node.selector in _LOOPS
                  and isinstance(node.arguments[-1], ast.Block) and node.arguments[-1].body):
                _dropped_update(node.arguments[-1].body[-1], out)
            elif isinstance(node, ast.InterpolatedString):
                _number_in_braces(node, out)
            elif (isinstance(node, ast.Assignment) and isinstance(node.target, ast.Variable)
                  and isinstance(node.value, ast.Block)):
                _self_referring_block(node.target.name, node.value, out)
    return in_source_order(out)


def in_source_order(diags: list) -> list:
    """Warnings in the order of the source (each lint adds its own at the
    end, so a file's warnings came as lines 17, 10, 6, 13)."""
    return sorted(diags, key=lambda d: (d.span.start, d.span.end))


def _self_referring_block(name: str, block, out) -> None:
    """`fib := [:k | ... fib value: k - 1]`: a block captures the value its
    variables have when it is made (spec semantics §4.5), so the block sees
    `fib` as it was before this assignment (nil, or an older block)."""
    stack = [(block, frozenset())]
    while stack:
        node, params = stack.pop()
        if isinstance(node, ast.Block):
            params = params | {getattr(p, "name", p) for p in node.parameters}
        if isinstance(node, ast.Variable) and node.name == name and name not in params:
            out.append(Diagnostic(
                f"This block refers to itself through `{name}`, but it sees the value `{name}` had "
                f"before this assignment: a block captures values when it is made",
                block.span, severity="warning",
                hint=f"write the recursion as a method, or pass the block itself as an argument: "
                     f"`{name} := [:self_ :k | ... self_ value: self_ value: k - 1]`, called as "
                     f"`{name} value: {name} value: 10`"))
            return
        stack.extend((c, params) for c in node.children())


def _number_in_braces(node, out) -> None:
    """`"\\d{4}"`: by spec syntax §2.3 `{4}` interpolates the number 4, so a
    regex repetition (or any brace written for itself) silently becomes
    digits.  Nobody interpolates a lone integer literal on purpose."""
    for part in node.parts:
        if isinstance(part, ast.IntegerLit):
            sp = part.span
            out.append(Diagnostic(
                f"`{{{part.value}}}` interpolates the number {part.value}: the string holds "
                f"`{part.value}`, not the braces",
                Span(sp.start - 1, sp.end + 1, sp.line, sp.col - 1), severity="warning",
                hint="a `{` in a string starts an interpolation; for a regex repetition repeat the "
                     "item (`\\d\\d\\d\\d`) or use `+`; `\\{` keeps a brace, with its backslash"))


def _leftmost(node):
    """The first leaf of an expression (the receiver of its receivers)."""
    while isinstance(node, (ast.UnarySend, ast.BinarySend, ast.KeywordSend, ast.Cascade)):
        node = node.receiver
    return node


def _juxtaposed(statements, out) -> None:
    """`3-2` and `x-1`: by spec syntax §2 the `-` glues to the digit, making
    two expressions, and the value is silently the second one."""
    for prev, st in zip(statements, statements[1:]):
        first = _leftmost(st)
        if (isinstance(first, (ast.IntegerLit, ast.FloatLit)) and first.value < 0
                and st.span.start == prev.span.end):
            out.append(Diagnostic(
                f"This is two expressions: the `-` belongs to the number {first.value}",
                first.span, severity="warning",
                hint="write a space after a binary minus (`a - 1`); `a-1` is `a` and then `-1`"))


def _dropped_comparisons(statements, out, source: str | None = None) -> None:
    """`self.n = self.n + 1.` or `x = 2.` where `:=` was meant: a comparison
    (spec syntax §2.6) of a variable or field whose value no one uses, since
    the statement is not the last of its sequence.  At the top level of a
    doc-test file (with `source`), a statement marked `// =>` on its line is
    a case whose value is shown."""
    for st, nxt in zip(statements, statements[1:]):
        if not (isinstance(st, ast.BinarySend) and st.selector in ("=", "==")):
            continue
        if source is not None and "// =>" in source[st.span.end:nxt.span.start]:
            continue
        target = _assignable(st.receiver)
        if target is None:
            continue
        out.append(Diagnostic(
            f"The result of this `{st.selector}` comparison is not used", st.span, severity="warning",
            hint=f"assignment is `:=`: `{target} := {unparse(st.argument).strip()}`"))


def _assignable(node) -> str | None:
    """`x` or `self.x`, as the hint's assignment writes it: what a dropped
    `x = 2.` or `x + 1.` meant to change; None for anything else."""
    if isinstance(node, ast.Variable) and node.name != "self":
        return node.name
    if isinstance(node, ast.FieldAccess) and isinstance(node.receiver, ast.Variable) and node.receiver.name == "self":
        return f"self.{node.name}"
    return None


#: sends whose block argument's last value nobody uses (an inlined loop body)
_LOOPS = frozenset({"whileTrue:", "whileFalse:", "timesRepeat:", "to:do:", "to:by:do:", "do:"})
_UPDATES = frozenset({"+", "-", "*", "/", "++"})


def _dropped_update(st, out) -> None:
    """`i + 1.` (or the last statement of a loop body, `[i < 3] whileTrue:
    [i + 1]`) where `i := i + 1` was meant: a sum of a variable or field made
    and dropped; in a loop body the loop never ends."""
    if not (isinstance(st, ast.BinarySend) and st.selector in _UPDATES):
        return
    target = _assignable(st.receiver)
    if target is None:
        return
    out.append(Diagnostic(
        f"The result of this `{st.selector}` is not used", st.span, severity="warning",
        hint=f"to change {target}, assign it: `{target} := {unparse(st).strip()}`"))


def _sequence(statements, out, source: str | None = None) -> None:
    _juxtaposed(statements, out)
    _dropped_comparisons(statements, out, source)
    for st, nxt in zip(statements, statements[1:]):
        if source is None or "// =>" not in source[st.span.end:nxt.span.start]:
            _dropped_update(st, out)
    for i, st in enumerate(statements[:-1]):
        if isinstance(st, ast.Return):
            nxt = statements[i + 1]
            if isinstance(nxt, (ast.ClassDef, ast.StandaloneMethod, ast.Expect)):
                continue
            out.append(Diagnostic("Unreachable code after `^`", nxt.span, severity="warning",
                                  hint="Statements after a return never run"))
            return


def _self_field(node) -> bool:
    return (isinstance(node, ast.Assignment) and isinstance(node.target, ast.FieldAccess)
            and isinstance(node.target.receiver, ast.Variable) and node.target.receiver.name == "self")


def _hands_self(node) -> bool:
    """`self`, or a message to `self` (which may answer the changed object):
    `self.items size` reads the change but answers something else."""
    if isinstance(node, ast.Return):
        node = node.value
    first = _leftmost(node)
    return isinstance(first, ast.Variable) and first.name == "self"


def _lost_field_change(cdef, out) -> None:
    """An `Object subclass:` instance is a value (spec semantics §3.3): a
    method's `self.x := v` rebinds `self` for the rest of that method only.
    The change reaches the caller when the method ends with the assignment
    or answers `self`; a method that answers something else loses it."""
    test_case = cdef.superclass == "TestCase"
    if cdef.superclass != "Object" and not test_case:
        return  # actors keep their state; value classes refuse the assignment
    for m in cdef.methods:
        if m.class_side or not m.body:
            continue
        if test_case and m.selector != "setUp":
            continue  # a test's own changes need not outlive it; setUp's must
        assigns = [n for st in m.body for n in st.walk() if _self_field(n)]
        if not assigns:
            continue
        last = m.body[-1]
        if _self_field(last) or _hands_self(last):
            continue
        if any(isinstance(st, ast.Return) and _hands_self(st) for st in m.body):
            continue
        first = assigns[0]
        if test_case:
            why = "setUp hands the test the instance it answers, and this setUp answers something else"
            hint = ("end setUp with the assignment (`self.x := ...` last) or with `^self`; the tests "
                    "otherwise see the field's default")
        else:
            why = (f"when `{m.selector}` returns: an instance of an Object subclass is a value, "
                   f"and the caller keeps its own")
            hint = ("answer the changed object (`^self`), or end the method with the assignment; for state "
                    "that changes in place, make the class an Actor")
        sep = ": " if test_case else " "
        out.append(Diagnostic(f"This change to self.{first.target.name} is lost{sep}{why}",
                              first.target.span, severity="warning", hint=hint))


def _pharo_dnu(method, out) -> None:
    """`doesNotUnderstand: aMessage` as Pharo spells it: a failed lookup calls
    `doesNotUnderstand:args:` (spec semantics §4.2), so this one never runs."""
    if method.selector == "doesNotUnderstand:":
        s = method.span
        out.append(Diagnostic(
            "A failed lookup calls doesNotUnderstand: selector args: arguments, never doesNotUnderstand:",
            Span(s.start, s.start + len(method.selector), s.line, s.col), severity="warning",
            hint="define `doesNotUnderstand: sel args: argList` (a Symbol and a List) to answer "
                 "messages the class does not have"))


def _operator_method(method, out) -> None:
    """A method named `+` (and so on) with a body of its own: `a + b` will
    not run it.  Primitive bodies are the stdlib's, which exist for
    `perform:`."""
    sel = method.selector
    if sel not in ERLANG_OPERATORS or any(isinstance(st, ast.Primitive) for st in method.body):
        return
    s = method.span
    where = s if method.class_side else Span(s.start, s.start + len(sel), s.line, s.col)
    out.append(Diagnostic(
        f"`a {sel} b` compiles to Erlang's {_ERLANG_SPELLING.get(sel, sel)} and never sends this method",
        where, severity="warning",
        hint=f"reach it with `a perform: #{sel} withArguments: #(b)`, or give it a keyword name "
             f"(such as `{OPERATOR_KEYWORDS[sel]}`) and send that"))


def _pharo_print_on(method, out) -> None:
    """`printOn: aStream` as Pharo spells it: `printString`, `displayString`,
    interpolation and the REPL never send it (spec semantics §11.1: classes
    override `printString`), so the class still prints as `a Foo`."""
    if method.selector == "printOn:" and not method.class_side:
        s = method.span
        out.append(Diagnostic(
            "printString never sends printOn: (there is no write stream to print on), "
            "so this method does not change how the object prints",
            Span(s.start, s.start + len(method.selector), s.line, s.col), severity="warning",
            hint='override printString instead, answering the text: `printString => ^"Point({self.x}, {self.y})"`'))


def session_warnings(statements, bound) -> list[Diagnostic]:
    """Blocks stored in a session variable by a REPL input that assign a
    session variable.  Within the input they update it; run by a later input
    they cannot (the session's bindings are values, not cells), which would
    otherwise be a silent surprise."""
    session = set(bound)
    for st in statements:
        if isinstance(st, ast.Assignment) and isinstance(st.target, ast.Variable):
            session.add(st.target.name)
    out: list[Diagnostic] = []
    for st in statements:
        if not (isinstance(st, ast.Assignment) and isinstance(st.target, ast.Variable)
                and isinstance(st.value, ast.Block)):
            continue
        assigned = sorted(_assigned_outer(st.value, session))
        if assigned:
            names = ", ".join(f"`{n}`" for n in assigned)
            out.append(Diagnostic(
                f"This block assigns the session variable{'s' if len(assigned) > 1 else ''} {names}: "
                f"run by a later input, its assignment stays inside the block",
                st.value.span, severity="warning",
                hint="Within this input the assignment is seen; across inputs keep the state in an "
                     "object or an actor (or in the block's answer)"))
    return out


#: a line comment that holds just a number or a name: `7 // 2` written as
#: Pharo's integer division
#: (a period after it, `h := n // 2.`, is the statement's own)
_DIVISION_COMMENT = re.compile(
    r"[ \t]*//[ \t]*(-?[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?|[a-z_][A-Za-z0-9_]*)[ \t]*\.?[ \t]*(?:\n|$)")


def division_comment_warnings(statements, source: str, bound) -> list[Diagnostic]:
    """`7 // 2` at the REPL: by spec syntax §1 `//` starts a comment, so the
    value is silently 7.  Warned when the comment after a top-level statement
    is only a number or a name the input knows (a comment of words is left
    alone)."""
    names = set(bound)
    for st in statements:
        if isinstance(st, ast.Assignment) and isinstance(st.target, ast.Variable):
            names.add(st.target.name)
    return _division_comments(statements, source, names)


def _method_division_comments(method, source: str) -> list[Diagnostic]:
    """`half := n // 2.` in a method body: the same silent comment as at the
    REPL, where the names the method knows are its parameters, its locals
    and the parameters of its blocks."""
    names = {getattr(p, "name", p) for p in method.parameters}
    sequences = [method.body]
    for node in method.walk():
        if isinstance(node, ast.Assignment) and isinstance(node.target, ast.Variable):
            names.add(node.target.name)
        elif isinstance(node, ast.Block):
            names.update(getattr(p, "name", p) for p in node.parameters)
            sequences.append(node.body)
    return [d for body in sequences for d in _division_comments(body, source, names)]


def _division_comments(statements, source: str, names) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for st in statements:
        if isinstance(st, (ast.ClassDef, ast.StandaloneMethod)):
            continue
        m = _DIVISION_COMMENT.match(source, st.span.end)
        if not m or not (m.group(1)[0] in "-0123456789" or m.group(1) in names):
            continue
        expr = st.value if isinstance(st, ast.Assignment) else st
        left = source[expr.span.start:expr.span.end]
        left = left if len(left) <= 30 and "\n" not in left else "a"
        start = source.index("//", st.span.end)
        line = source.count("\n", 0, start) + 1
        col = start - (source.rfind("\n", 0, start) + 1) + 1
        out.append(Diagnostic(
            f"`// {m.group(1)}` is a comment: Beamtalk has no // operator, so the value is the "
            f"expression before it",
            Span(start, start + 2, line, col), severity="warning",
            hint=f"divide with `div:` (truncating: `{left} div: {m.group(1)}`), `/` (a Float) or take the "
                 f"remainder with `%`"))
    return out


def _assigned_outer(block, session) -> set:
    """Names assigned inside `block` (at any depth) that are session
    variables, not parameters of the block or of a block inside it."""
    found = set()
    stack = [(block, frozenset())]
    while stack:
        node, params = stack.pop()
        if isinstance(node, ast.Block):
            params = params | {p if isinstance(p, str) else getattr(p, "name", p) for p in node.parameters}
        if isinstance(node, ast.Assignment) and isinstance(node.target, ast.Variable):
            name = node.target.name
            if name in session and name not in params:
                found.add(name)
        stack.extend((c, params) for c in node.children())
    return found


def render(diags, source: str, filename: str) -> list[str]:
    return [d.render(source, filename) for d in in_source_order(diags)]
