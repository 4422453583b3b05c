"""Print an AST back as canonical Beamtalk source.

Guarantee (tested by property tests): for every source text ``s`` that
parses, ``parse(unparse(parse(s))) == parse(s)`` (spans are not compared).

Canonical form: one statement per line; binary operators surrounded by single
spaces; parentheses only where precedence requires them; class bodies
indented two spaces, method bodies four; doc comments as ``/// `` lines.
"""

from __future__ import annotations

import re

from . import ast as A
from .parser import BINARY_OPERATORS

# expression levels (higher binds looser)
PRIMARY = 0
UNARY = 1
BINARY = 2
KEYWORD = 3
CASCADE = 4
ASSIGN = 5
RETURN = 6

_BARE_SYMBOL = re.compile(
    r"(?:(?:[A-Za-z_][A-Za-z0-9_]*:)+(?:[A-Za-z_][A-Za-z0-9_]*)?|[A-Za-z_][A-Za-z0-9_]*)\Z", re.ASCII
)
_OP_SYMBOL = re.compile(r"(?:=:=|[+\-*/<>=~%&?,\\]+)\Z")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z", re.ASCII)
_CLASS_HEADER_TEXT = re.compile(
    r"(?:(?:abstract|sealed|typed)\s+)*[A-Za-z_][A-Za-z0-9_]*\s+subclass:"
)
_CHAR_NAMES = {10: "\\n", 9: "\\t", 13: "\\r", 92: "\\\\"}


def unparse(node) -> str:
    """Canonical source text for ``node`` (a Module, a class or method
    definition, a statement or an expression)."""
    if isinstance(node, A.Module):
        return _module(node)
    if isinstance(node, A.ClassDef):
        return "\n".join(_class(node)) + "\n"
    if isinstance(node, A.StandaloneMethod):
        return "\n".join(_standalone(node)) + "\n"
    if isinstance(node, A.MethodDef):
        return "\n".join(_method(node, "")) + "\n"
    if isinstance(node, A.StateDecl):
        return "\n".join(_state("state:", node, "")) + "\n"
    return _statement(node)


# ------------------------------------------------------------------ helpers


def _level(node) -> int:
    t = type(node)
    if t is A.UnarySend:
        return UNARY
    if t is A.BinarySend:
        return BINARY
    if t is A.KeywordSend or t is A.Match:
        return KEYWORD
    if t is A.Cascade:
        return CASCADE
    if t is A.Assignment:
        return ASSIGN
    if t is A.Return or t is A.Cast or t is A.Expect:
        return RETURN
    return PRIMARY


def _prec(op: str) -> int:
    return BINARY_OPERATORS.get(op, (0, False))[0]


def _expr(node, max_level: int) -> str:
    """Print node; parenthesise if it binds looser than max_level allows."""
    text = _raw(node)
    if _level(node) > max_level:
        return "(" + text + ")"
    return text


def _binary_operand(node, op: str, right: bool) -> str:
    """Operand of a binary send with operator ``op``."""
    if type(node) is A.BinarySend:
        p, rassoc = BINARY_OPERATORS.get(op, (0, False))
        q = _prec(node.operator)
        ok = q > p or (q == p and (rassoc if right else not rassoc))
        if ok:
            return _raw(node)
        return "(" + _raw(node) + ")"
    return _expr(node, BINARY)


def _keyword_parts(selector: str, args, first_is_match_guard: bool) -> str:
    kws = A.split_keyword_selector(selector)
    out = []
    for n, (kw, arg) in enumerate(zip(kws, args)):
        if n == 0 and first_is_match_guard and kw == "match:" and type(arg) is A.Block:
            out.append(kw + " (" + _raw(arg) + ")")
        else:
            out.append(kw + " " + _expr(arg, BINARY))
    return " ".join(out)


_OP_CHARS = frozenset("+-*/<>=~%&?,\\")


def _commas(texts) -> str:
    """Join with ", " – but an element ending in an operator character (an
    operator symbol such as ``#+``) would swallow the comma into its run."""
    out = []
    last = len(texts) - 1
    for n, t in enumerate(texts):
        out.append(t)
        if n != last:
            out.append(" , " if t and t[-1] in _OP_CHARS else ", ")
    return "".join(out)


def _string_body(value: str) -> str:
    out = []
    i = 0
    n = len(value)
    while i < n:
        c = value[i]
        if c == "\\" and i + 1 < n:
            out.append(value[i : i + 2])
            i += 2
            continue
        if c == '"':
            out.append('""')
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _string(value: str) -> str:
    return '"' + _string_body(value) + '"'


def _symbol(name: str) -> str:
    if _BARE_SYMBOL.match(name) or _OP_SYMBOL.match(name):
        return "#" + name
    return "#'" + name.replace("'", "''") + "'"


def _char(v: int) -> str:
    s = _CHAR_NAMES.get(v)
    if s is not None:
        return "$" + s
    return "$" + chr(v)


def _float(v: float) -> str:
    return repr(v)


def _raw(node) -> str:
    t = type(node)
    if t is A.Variable or t is A.GlobalRef:
        return node.name
    if t is A.IntegerLit:
        return str(node.value)
    if t is A.FloatLit:
        return _float(node.value)
    if t is A.StringLit:
        return _string(node.value)
    if t is A.SymbolLit:
        return _symbol(node.name)
    if t is A.CharLit:
        return _char(node.value)
    if t is A.Super:
        return "super"
    if t is A.FieldAccess:
        return _raw(node.receiver) + "." + node.name
    if t is A.UnarySend:
        return _expr(node.receiver, UNARY) + " " + node.selector
    if t is A.BinarySend:
        return (
            _binary_operand(node.receiver, node.operator, False)
            + " "
            + node.operator
            + " "
            + _binary_operand(node.argument, node.operator, True)
        )
    if t is A.KeywordSend:
        return _expr(node.receiver, BINARY) + " " + _keyword_parts(node.selector, node.arguments, True)
    if t is A.Cascade:
        return _cascade(node)
    if t is A.Assignment:
        return _expr(node.target, PRIMARY) + " := " + _expr(node.value, ASSIGN)
    if t is A.Return:
        return "^" + _expr(node.value, ASSIGN)
    if t is A.Cast:
        return _expr(node.send, CASCADE) + "!"
    if t is A.Block:
        return _block(node)
    if t is A.InterpolatedString:
        parts = []
        for p in node.parts:
            if isinstance(p, str):
                parts.append(_string_body(p))
            else:
                parts.append("{" + _expr(p, KEYWORD) + "}")
        return '"' + "".join(parts) + '"'
    if t is A.ListLit:
        els = _commas([_expr(e, BINARY) for e in node.elements])
        if node.tail is not None:
            return "#(" + els + " | " + _expr(node.tail, UNARY) + ")"
        return "#(" + els + ")"
    if t is A.ArrayLit:
        return "#[" + _commas([_expr(e, BINARY) for e in node.elements]) + "]"
    if t is A.MapLit:
        return "#{" + _commas([_pair(p) for p in node.pairs]) + "}"
    if t is A.Match:
        arms = "; ".join(_arm(a) for a in node.arms)
        return _expr(node.subject, BINARY) + " match: [" + arms + "]"
    if t is A.Primitive:
        if node.kind == "intrinsic" and _IDENT.match(node.name):
            return "@intrinsic " + node.name
        return "@" + node.kind + " " + _string(node.name)
    if t is A.Expect:
        return "@expect " + node.category
    if t is A.MapPair:
        return _pair(node)
    if t is A.MatchArm:
        return _arm(node)
    if t in (A.WildcardPattern, A.VariablePattern, A.LiteralPattern, A.TuplePattern):
        return _pattern(node)
    if t is A.CascadeMessage:
        return _cascade_part(node)
    raise TypeError(f"cannot unparse {t.__name__}")


def _pair(p: A.MapPair) -> str:
    k = p.key
    if type(k) is A.Variable or type(k) is A.Super:
        # a bare lower-case name before => is read as a symbol
        key = "(" + _raw(k) + ")"
    else:
        key = _expr(k, UNARY)
    return key + " => " + _expr(p.value, BINARY)


def _arm(a: A.MatchArm) -> str:
    s = _pattern(a.pattern)
    if a.guard is not None:
        s += " when: [" + _statement(a.guard) + "]"
    return s + " -> " + _expr(a.body, KEYWORD)


def _pattern(p) -> str:
    t = type(p)
    if t is A.WildcardPattern:
        return "_"
    if t is A.VariablePattern:
        return p.name
    if t is A.LiteralPattern:
        return _raw(p.value_node)
    if t is A.TuplePattern:
        return "{" + _commas([_pattern(e) for e in p.elements]) + "}"
    raise TypeError(f"not a pattern: {t.__name__}")


def _cascade(node: A.Cascade) -> str:
    msgs = node.messages
    first = msgs[0]
    kind = A.selector_kind(first.selector)
    if kind == "unary":
        head = _expr(node.receiver, UNARY) + " " + first.selector
    elif kind == "binary":
        head = (
            _binary_operand(node.receiver, first.selector, False)
            + " "
            + first.selector
            + " "
            + _binary_operand(first.arguments[0], first.selector, True)
        )
    else:
        head = _expr(node.receiver, BINARY) + " " + _keyword_parts(first.selector, first.arguments, True)
    return head + "".join("; " + _cascade_part(m) for m in msgs[1:])


def _cascade_part(m: A.CascadeMessage) -> str:
    kind = A.selector_kind(m.selector)
    if kind == "unary":
        return m.selector
    if kind == "binary":
        return m.selector + " " + _expr(m.arguments[0], UNARY)
    return _keyword_parts(m.selector, m.arguments, False)


def _block(node: A.Block) -> str:
    params = "".join(":" + p + " " for p in node.parameters)
    body = _statements_inline(node.body)
    if params:
        return "[" + params + "|" + (" " + body if body else " ") + "]"
    return "[" + body + "]"


def _statements_inline(stmts) -> str:
    out = []
    for n, st in enumerate(stmts):
        text = _statement(st)
        if n:
            prev = stmts[n - 1]
            out.append(" " if type(prev) is A.Cast else ". ")
        out.append(text)
    return "".join(out)


def _statement(node) -> str:
    text = _expr(node, RETURN)
    if _CLASS_HEADER_TEXT.match(text) and type(node) is not A.Assignment and type(node) is not A.Return:
        # would be read back as a class definition
        if type(node) is A.Cast:
            return "(" + _raw(node.send) + ")!"
        return "(" + text + ")"
    return text


# ------------------------------------------------------------------ declarations


def _doc_lines(doc, indent: str):
    if doc is None:
        return []
    return [indent + "/// " + line for line in doc.split("\n")]


def _type_suffix(typ) -> str:
    return "" if typ is None else " : " + typ


def _state(word: str, d: A.StateDecl, indent: str):
    lines = _doc_lines(d.doc, indent)
    if d.expect is not None:
        lines.append(indent + "@expect " + d.expect)
    s = indent + word + " " + d.name + _type_suffix(d.type)
    if d.default is not None:
        s += " = " + _statement(d.default)
    lines.append(s)
    return lines


def _pattern_text(m: A.MethodDef) -> str:
    sel = m.selector
    kind = A.selector_kind(sel)
    types = m.param_types or (None,) * len(m.parameters)
    if kind == "unary":
        return sel
    if kind == "binary":
        return sel + " " + m.parameters[0] + _type_suffix(types[0])
    parts = []
    for kw, p, t in zip(A.split_keyword_selector(sel), m.parameters, types):
        parts.append(kw + " " + p + _type_suffix(t))
    return " ".join(parts)


def _method_header(m: A.MethodDef, modifiers: bool = True) -> str:
    words = ""
    if modifiers:
        if m.sealed:
            words += "sealed "
        if m.class_side:
            words += "class "
    rt = "" if m.return_type is None else " -> " + m.return_type
    return words + _pattern_text(m) + rt + " =>"


def _method_body(m: A.MethodDef, indent: str):
    return [indent + _statement(st) for st in m.body]


def _method(m: A.MethodDef, indent: str):
    lines = _doc_lines(m.doc, indent)
    if m.expect is not None:
        lines.append(indent + "@expect " + m.expect)
    lines.append(indent + _method_header(m))
    lines.extend(_method_body(m, indent + "  "))
    return lines


def _class(c: A.ClassDef):
    lines = _doc_lines(c.doc, "")
    mods = "".join(m + " " for m in c.modifiers)
    sup = "nil" if c.superclass is None else c.superclass
    lines.append(f"{mods}{sup} subclass: {c.name}")
    for d in c.state:
        lines.extend(_state("state:", d, "  "))
    for d in c.class_state:
        lines.extend(_state("classState:", d, "  "))
    for m in c.methods:
        lines.extend(_method(m, "  "))
    return lines


def _standalone(s: A.StandaloneMethod):
    m = s.method
    lines = _doc_lines(m.doc, "")
    side = " class" if s.class_side else ""
    lines.append(f"{s.class_name}{side} >> " + _method_header(m, modifiers=False))
    lines.extend(_method_body(m, "    "))
    return lines


def _module(mod: A.Module) -> str:
    out = []
    for item in mod.items:
        if isinstance(item, A.ClassDef):
            out.extend(_class(item))
        elif isinstance(item, A.StandaloneMethod):
            out.extend(_standalone(item))
        else:
            out.append(_statement(item))
    return "\n".join(out) + ("\n" if out else "")
