"""Compact s-expression rendering of ASTs, used by the table-driven syntax
tests so that expected trees fit on one line.

    x := 3 + 4 * 2          →  (:= x (+ 3 (* 4 2)))
    a foo: 1 bar: b baz     →  (foo:bar: a 1 (baz b))
    [:x | x]                →  [:x | x]
"""

from beamtalk_ws.syntax import ast as A


def sx(n) -> str:
    t = type(n)
    if t is A.Module:
        return " ".join(sx(i) for i in n.items)
    if t in (A.Variable, A.GlobalRef):
        return n.name
    if t is A.IntegerLit:
        return str(n.value)
    if t is A.FloatLit:
        return repr(n.value)
    if t is A.StringLit:
        return '"' + n.value + '"'
    if t is A.SymbolLit:
        return "#" + n.name
    if t is A.CharLit:
        return f"${n.value}"
    if t is A.Super:
        return "super"
    if t is A.FieldAccess:
        return f"{sx(n.receiver)}.{n.name}"
    if t is A.UnarySend:
        return f"({n.selector} {sx(n.receiver)})"
    if t is A.BinarySend:
        return f"({n.operator} {sx(n.receiver)} {sx(n.argument)})"
    if t is A.KeywordSend:
        return f"({n.selector} {sx(n.receiver)} " + " ".join(sx(a) for a in n.arguments) + ")"
    if t is A.Cascade:
        return f"(cascade {sx(n.receiver)} " + " ".join(sx(m) for m in n.messages) + ")"
    if t is A.CascadeMessage:
        if n.arguments:
            return f"<{n.selector} " + " ".join(sx(a) for a in n.arguments) + ">"
        return f"<{n.selector}>"
    if t is A.Assignment:
        return f"(:= {sx(n.target)} {sx(n.value)})"
    if t is A.Return:
        return f"(^ {sx(n.value)})"
    if t is A.Cast:
        return f"(! {sx(n.send)})"
    if t is A.Block:
        ps = "".join(f":{p} " for p in n.parameters)
        body = ". ".join(sx(s) for s in n.body)
        return f"[{ps}| {body}]" if ps else f"[{body}]"
    if t is A.InterpolatedString:
        return "(interp " + " ".join(repr(p) if isinstance(p, str) else sx(p) for p in n.parts) + ")"
    if t is A.ListLit:
        s = "#(" + ", ".join(sx(e) for e in n.elements)
        if n.tail is not None:
            s += " | " + sx(n.tail)
        return s + ")"
    if t is A.ArrayLit:
        return "#[" + ", ".join(sx(e) for e in n.elements) + "]"
    if t is A.MapLit:
        return "#{" + ", ".join(f"{sx(p.key)} => {sx(p.value)}" for p in n.pairs) + "}"
    if t is A.Match:
        return f"(match {sx(n.subject)} " + " ".join(sx(a) for a in n.arms) + ")"
    if t is A.MatchArm:
        g = f" when {sx(n.guard)}" if n.guard is not None else ""
        return f"<{sx(n.pattern)}{g} -> {sx(n.body)}>"
    if t is A.WildcardPattern:
        return "_"
    if t is A.VariablePattern:
        return "?" + n.name
    if t is A.LiteralPattern:
        return sx(n.value_node)
    if t is A.TuplePattern:
        return "{" + ", ".join(sx(e) for e in n.elements) + "}"
    if t is A.Primitive:
        return f"(@{n.kind} {n.name})"
    if t is A.Expect:
        return f"(@expect {n.category})"
    raise TypeError(t.__name__)
