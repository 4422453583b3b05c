"""Builders for Erlang abstract forms, as Python terms ready for the wire.

Why builders: the code generator composes forms from small functions named
after the abstract format (`call`, `op`, `match`, ...), so generated code reads
like the Erlang it stands for, and the terms go to the node unchanged for
`compile:forms`.  `Anno` is a line number (the node reports positions in the
Beamtalk source by line).
"""

from __future__ import annotations

from beamtalk_ws.dist.terms import Atom, _interned

A = Atom
#: the interned atom of a name, or None (then `Atom(name)` interns it): a
#: form names an atom for every variable and selector of every input
_atom_of = _interned.get

# The tags of the abstract format, made once: a form builder runs for every
# node of every input, and building an atom costs a dictionary lookup and
# two type checks each time.
_ATOM = A("atom")
_ATTRIBUTE = A("attribute")
_BIN = A("bin")
_BIN_ELEMENT = A("bin_element")
_BLOCK = A("block")
_CALL = A("call")
_CASE = A("case")
_CLAUSE = A("clause")
_CLAUSES = A("clauses")
_CONS = A("cons")
_DEFAULT = A("default")
_EOF = A("eof")
_FLOAT = A("float")
_FUN = A("fun")
_FUNCTION = A("function")
_INTEGER = A("integer")
_MAP = A("map")
_MAP_FIELD_ASSOC = A("map_field_assoc")
_MATCH = A("match")
_NAMED_FUN = A("named_fun")
_NIL = A("nil")
_OP = A("op")
_REMOTE = A("remote")
_STRING = A("string")
_TRY = A("try")
_TUPLE = A("tuple")
_VAR = A("var")


def atom(name: str, line: int = 1) -> tuple:
    a = _atom_of(name)
    return (_ATOM, line, a if a is not None else A(name))


def integer(value: int, line: int = 1) -> tuple:
    return (_INTEGER, line, value)


def float_(value: float, line: int = 1) -> tuple:
    return (_FLOAT, line, value)


def var(name: str, line: int = 1) -> tuple:
    a = _atom_of(name)
    return (_VAR, line, a if a is not None else A(name))


def nil(line: int = 1) -> tuple:
    return (_NIL, line)


def cons(head, tail, line: int = 1) -> tuple:
    return (_CONS, line, head, tail)


def list_(elements, tail=None, line: int = 1) -> tuple:
    result = tail if tail is not None else nil(line)
    for e in reversed(list(elements)):
        result = cons(e, result, line)
    return result


def tuple_(elements, line: int = 1) -> tuple:
    return (_TUPLE, line, list(elements))


def binary_string(text: str, line: int = 1) -> tuple:
    """A UTF-8 binary literal, `<<"text"/utf8>>`."""
    if not text:
        return (_BIN, line, [])
    chars = [ord(c) for c in text]
    elem = (_BIN_ELEMENT, line, (_STRING, line, chars), _DEFAULT, [A("utf8")])
    return (_BIN, line, [elem])


def map_(pairs, line: int = 1) -> tuple:
    return (_MAP, line, [(_MAP_FIELD_ASSOC, line, k, v) for k, v in pairs])


def map_update(base, pairs, line: int = 1) -> tuple:
    return (_MAP, line, base, [(_MAP_FIELD_ASSOC, line, k, v) for k, v in pairs])


def op(operator: str, left, right=None, line: int = 1) -> tuple:
    if right is None:
        return (_OP, line, A(operator), left)
    return (_OP, line, A(operator), left, right)


def call(module: str, function: str, args, line: int = 1) -> tuple:
    return (_CALL, line, (_REMOTE, line, atom(module, line), atom(function, line)), list(args))


def call_dynamic(module_form, function_form, args, line: int = 1) -> tuple:
    return (_CALL, line, (_REMOTE, line, module_form, function_form), list(args))


def local_call(function: str, args, line: int = 1) -> tuple:
    return (_CALL, line, atom(function, line), list(args))


def match(pattern, value, line: int = 1) -> tuple:
    return (_MATCH, line, pattern, value)


def clause(patterns, guards, body, line: int = 1) -> tuple:
    return (_CLAUSE, line, list(patterns), list(guards), list(body))


def case(expr, clauses, line: int = 1) -> tuple:
    return (_CASE, line, expr, list(clauses))


def fun(clauses, line: int = 1) -> tuple:
    return (_FUN, line, (_CLAUSES, list(clauses)))


def named_fun(name: str, clauses, line: int = 1) -> tuple:
    return (_NAMED_FUN, line, A(name), list(clauses))


def apply_var(var_form, args, line: int = 1) -> tuple:
    """Call a fun held in a variable."""
    return (_CALL, line, var_form, list(args))


def try_(body, of_clauses, catch_clauses, after=(), line: int = 1) -> tuple:
    return (_TRY, line, list(body), list(of_clauses), list(catch_clauses), list(after))


def catch_clause(kind: str, pattern, body, line: int = 1, guards=()) -> tuple:
    """`Kind:Pattern -> Body` in a try's catch section."""
    exc = (_TUPLE, line, [atom(kind, line), pattern, var("_", line)])
    return (_CLAUSE, line, [exc], list(guards), list(body))


def block(body, line: int = 1) -> tuple:
    return (_BLOCK, line, list(body))


def attribute(name: str, value, line: int = 1) -> tuple:
    return (_ATTRIBUTE, line, A(name), value)


def function(name: str, clauses, line: int = 1) -> tuple:
    arity = len(clauses[0][2])
    return (_FUNCTION, line, A(name), arity, list(clauses))


def eof(line: int = 1) -> tuple:
    return (_EOF, line)


# ---------------------------------------------------------------------------
# Printing terms as Erlang text (for `--emit forms` and snapshot tests)

def format_term(term) -> str:
    """Erlang term syntax for a forms term (iterative: forms nest deeply)."""
    out: list[str] = []
    stack: list = [term]
    while stack:
        t = stack.pop()
        if isinstance(t, _Punct):
            out.append(t)
        elif isinstance(t, str) and not isinstance(t, Atom):
            out.append('<<"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"/utf8>>')
        elif isinstance(t, Atom):
            out.append(_atom_text(t))
        elif isinstance(t, bool):
            out.append("true" if t else "false")
        elif isinstance(t, int):
            out.append(str(t))
        elif isinstance(t, float):
            out.append(repr(t))
        elif isinstance(t, (bytes, bytearray)):
            out.append("<<" + ",".join(str(b) for b in t) + ">>")
        elif isinstance(t, tuple):
            _push_seq(stack, t, "{", "}")
        elif isinstance(t, list):
            if t and all(isinstance(x, int) and not isinstance(x, bool) and 32 <= x < 127 for x in t):
                s = "".join(chr(x) for x in t).replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'"{s}"')
            else:
                _push_seq(stack, t, "[", "]")
        else:
            out.append(repr(t))
    return "".join(out)


class _Punct(str):
    """Punctuation pushed on the printer's stack, told apart from term strings."""


def _push_seq(stack: list, items, open_: str, close: str) -> None:
    stack.append(_Punct(close))
    for i, item in enumerate(reversed(items)):
        stack.append(item)
        if i != len(items) - 1:
            stack.append(_Punct(","))
    stack.append(_Punct(open_))


_RESERVED = frozenset("""after and andalso band begin bnot bor bsl bsr bxor case catch cond div end fun
if let maybe else not of or orelse receive rem try when xor""".split())


def _atom_text(a: str) -> str:
    if a and a[0].islower() and a.isascii() and str.__str__(a) not in _RESERVED and all(c.isalnum() or c in "_@" for c in a):
        return a
    return "'" + a.replace("\\", "\\\\").replace("'", "\\'") + "'"


def format_forms(forms) -> str:
    return "\n".join(format_term(f) + "." for f in forms)
