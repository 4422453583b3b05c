"""Beamtalk abstract syntax tree (spec/syntax.md §4–§8).

Every node is an immutable (frozen, slotted) dataclass.  Every node has a
keyword-only ``span`` that is *excluded from equality*, so two ASTs parsed from
differently formatted sources compare equal when they mean the same program
(``parse(unparse(parse(s))) == parse(s)``).

Conventions
-----------
* Expressions are any of the expression node classes below; ``Expr`` is only a
  documentation alias.
* Sequences are tuples.
* Type annotations (``state: x : Integer``, ``deposit: amount: Integer``,
  ``foo -> Integer =>``) are kept as strings in canonical form: the type names
  joined with ``" | "`` (``"Integer | nil"``), or ``None`` when absent.
* ``Variable`` covers every lower-case identifier including ``self``, ``true``,
  ``false`` and ``nil``: giving them meaning is semantic analysis' job.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple, Optional, Union


class Span(NamedTuple):
    """Source range: ``start``/``end`` are offsets into the source text
    (``end`` exclusive); ``line``/``col`` are the 1-based line and column of
    ``start``."""

    start: int
    end: int
    line: int
    col: int


NO_SPAN = Span(0, 0, 1, 1)


def _span_field() -> Any:
    return field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Node:
    span: Span = _span_field()

    def children(self):
        """Yield the direct child nodes (in source order)."""
        for f in fields(self):
            if f.name == "span":
                continue
            v = getattr(self, f.name)
            if isinstance(v, Node):
                yield v
            elif isinstance(v, tuple):
                for x in v:
                    if isinstance(x, Node):
                        yield x

    def walk(self):
        """Pre-order traversal of this node and every node below it."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(list(n.children())))


# ---------------------------------------------------------------- literals


@dataclass(frozen=True, slots=True)
class IntegerLit(Node):
    value: int


@dataclass(frozen=True, slots=True)
class FloatLit(Node):
    value: float


@dataclass(frozen=True, slots=True)
class StringLit(Node):
    value: str


@dataclass(frozen=True, slots=True)
class InterpolatedString(Node):
    """``"a {x} b"`` → parts ``("a ", Variable("x"), " b")``.  Parts are ``str``
    (literal text, never empty) or expression nodes (keyword-level)."""

    parts: tuple


@dataclass(frozen=True, slots=True)
class SymbolLit(Node):
    name: str


@dataclass(frozen=True, slots=True)
class CharLit(Node):
    """``$a`` → ``CharLit(97)`` (a code point)."""

    value: int


@dataclass(frozen=True, slots=True)
class ListLit(Node):
    """``#(a, b)``; ``#(h | t)`` has ``tail`` set (a cons)."""

    elements: tuple
    tail: Optional["Node"] = None


@dataclass(frozen=True, slots=True)
class ArrayLit(Node):
    """``#[a, b]``."""

    elements: tuple


@dataclass(frozen=True, slots=True)
class MapPair(Node):
    key: "Node"
    value: "Node"


@dataclass(frozen=True, slots=True)
class MapLit(Node):
    """``#{k => v}``; a bare lower-case key ``x =>`` is ``SymbolLit("x")``."""

    pairs: tuple


# ---------------------------------------------------------------- names


@dataclass(frozen=True, slots=True)
class Variable(Node):
    """A lower-case identifier (including ``self``, ``true``, ``false``, ``nil``
    and ``_``)."""

    name: str


@dataclass(frozen=True, slots=True)
class GlobalRef(Node):
    """An identifier starting with an upper-case letter: class or workspace
    global (``Counter``, ``Transcript``)."""

    name: str


@dataclass(frozen=True, slots=True)
class Super(Node):
    pass


@dataclass(frozen=True, slots=True)
class FieldAccess(Node):
    """``self.x`` / ``a.b.c`` (tight dots only, spec §3.3)."""

    receiver: "Node"
    name: str


# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Assignment(Node):
    """``target := value``; ``target`` is a ``Variable`` or ``FieldAccess``."""

    target: "Node"
    value: "Node"


@dataclass(frozen=True, slots=True)
class Return(Node):
    """``^value``."""

    value: "Node"


@dataclass(frozen=True, slots=True)
class Cast(Node):
    """A statement terminated by ``!`` (async cast).  ``send`` is a
    ``UnarySend``, ``BinarySend``, ``KeywordSend`` or ``Cascade``."""

    send: "Node"


# ---------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class UnarySend(Node):
    receiver: "Node"
    selector: str


@dataclass(frozen=True, slots=True)
class BinarySend(Node):
    receiver: "Node"
    operator: str
    argument: "Node"

    @property
    def selector(self) -> str:
        return self.operator


@dataclass(frozen=True, slots=True)
class KeywordSend(Node):
    """``selector`` is the concatenation of the keyword parts (``at:put:``)."""

    receiver: "Node"
    selector: str
    arguments: tuple

    @property
    def keywords(self) -> tuple:
        return split_keyword_selector(self.selector)


@dataclass(frozen=True, slots=True)
class CascadeMessage(Node):
    """One message of a cascade: unary (no arguments), binary (one argument,
    selector is the operator) or keyword."""

    selector: str
    arguments: tuple = ()


@dataclass(frozen=True, slots=True)
class Cascade(Node):
    """``r m1; m2; m3`` – ``receiver`` is the receiver of the *last* message of
    the first part; ``messages`` includes that first message."""

    receiver: "Node"
    messages: tuple


# ---------------------------------------------------------------- blocks


@dataclass(frozen=True, slots=True)
class Block(Node):
    parameters: tuple
    body: tuple


# ---------------------------------------------------------------- match


@dataclass(frozen=True, slots=True)
class WildcardPattern(Node):
    pass


@dataclass(frozen=True, slots=True)
class VariablePattern(Node):
    name: str


@dataclass(frozen=True, slots=True)
class LiteralPattern(Node):
    """``value_node`` is an ``IntegerLit``, ``FloatLit``, ``StringLit``,
    ``SymbolLit`` or ``CharLit``."""

    value_node: "Node"


@dataclass(frozen=True, slots=True)
class TuplePattern(Node):
    elements: tuple


@dataclass(frozen=True, slots=True)
class MatchArm(Node):
    pattern: "Node"
    guard: Optional["Node"]
    body: "Node"


@dataclass(frozen=True, slots=True)
class Match(Node):
    """``subject match: [p -> e; p2 when: [g] -> e2]``."""

    subject: "Node"
    arms: tuple


# ---------------------------------------------------------------- pragmas


@dataclass(frozen=True, slots=True)
class Primitive(Node):
    """``@primitive "name"`` (kind ``'primitive'``) or ``@intrinsic name``
    (kind ``'intrinsic'``)."""

    name: str
    kind: str = "primitive"


@dataclass(frozen=True, slots=True)
class Expect(Node):
    """``@expect dnu|type|unused|all`` – a standalone statement."""

    category: str


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class StateDecl(Node):
    """``state: name [: Type] [= default]`` (also used for ``classState:``)."""

    name: str
    type: Optional[str] = None
    default: Optional["Node"] = None
    doc: Optional[str] = None
    #: category of an ``@expect`` written just before the declaration
    expect: Optional[str] = None


@dataclass(frozen=True, slots=True)
class MethodDef(Node):
    """A method.  ``source`` is the exact source text from the method pattern
    (after any ``class``/``sealed`` words) to the end of its body; it is not
    part of equality."""

    selector: str
    parameters: tuple
    body: tuple
    class_side: bool = False
    sealed: bool = False
    return_type: Optional[str] = None
    param_types: tuple = ()
    doc: Optional[str] = None
    source: str = field(default="", compare=False)
    #: category of an ``@expect`` written just before the method
    expect: Optional[str] = None

    @property
    def kind(self) -> str:
        """``'unary'``, ``'binary'`` or ``'keyword'``."""
        return selector_kind(self.selector)


@dataclass(frozen=True, slots=True)
class ClassDef(Node):
    """``[modifiers] Super subclass: Name`` plus its body.  ``superclass`` is
    ``None`` for ``nil subclass:`` (the root class).  ``source`` is the exact
    text of the whole definition (not part of equality)."""

    name: str
    superclass: Optional[str]
    modifiers: tuple = ()
    state: tuple = ()
    class_state: tuple = ()
    methods: tuple = ()
    doc: Optional[str] = None
    source: str = field(default="", compare=False)

    @property
    def is_abstract(self) -> bool:
        return "abstract" in self.modifiers

    @property
    def is_sealed(self) -> bool:
        return "sealed" in self.modifiers

    @property
    def is_typed(self) -> bool:
        return "typed" in self.modifiers


@dataclass(frozen=True, slots=True)
class StandaloneMethod(Node):
    """``Class >> pattern => body`` / ``Class class >> pattern => body``."""

    class_name: str
    class_side: bool
    method: MethodDef


@dataclass(frozen=True, slots=True)
class Module(Node):
    """A whole source text: top-level statements, ``ClassDef`` and
    ``StandaloneMethod`` items in source order."""

    items: tuple


Expr = Node
Statement = Node

LITERAL_NODES = (IntegerLit, FloatLit, StringLit, InterpolatedString, SymbolLit, CharLit)
SEND_NODES = (UnarySend, BinarySend, KeywordSend, Cascade)


def _fast_factory(cls):
    """A positional constructor ``f(*fields, span)`` that skips the frozen
    dataclass ``__init__`` (which is ~2x slower).  Used by the parser only."""
    names = [f.name for f in fields(cls) if f.name != "span"] + ["span"]
    setters = {n: getattr(cls, n).__set__ for n in names}
    args = ", ".join(names)
    body = "".join(f"    _set_{n}(o, {n})\n" for n in names)
    defaults = ", ".join(f"_set_{n}=_setters[{n!r}]" for n in names)
    src = (f"def make({args}, *, _new=object.__new__, _cls=_cls, {defaults}):\n"
           f"    o = _new(_cls)\n{body}    return o\n")
    ns = {"_cls": cls, "_setters": setters}
    exec(src, ns)
    return ns["make"]


def split_keyword_selector(selector: str) -> tuple:
    """``"at:put:"`` → ``("at:", "put:")``."""
    parts = selector.split(":")
    return tuple(p + ":" for p in parts[:-1])


def selector_kind(selector: str) -> str:
    if selector.endswith(":"):
        return "keyword"
    c = selector[:1]
    if c.isalpha() or c == "_":
        return "unary"
    return "binary"


def selector_arity(selector: str) -> int:
    k = selector_kind(selector)
    if k == "unary":
        return 0
    if k == "binary":
        return 1
    return selector.count(":")


def dump(node: Any, indent: str = "  ", with_spans: bool = False) -> str:
    """Readable multi-line rendering of an AST (used by ``beamtalk check
    --emit ast``)."""
    out: list = []

    def emit(v, level: int, prefix: str) -> None:
        pad = indent * level
        if isinstance(v, Node):
            name = type(v).__name__
            if with_spans and v.span is not NO_SPAN:
                name += f" @{v.span.line}:{v.span.col}"
            fs = [f for f in fields(v) if f.name not in ("span", "source")]
            simple = all(not isinstance(getattr(v, f.name), (Node, tuple)) for f in fs)
            if simple:
                args = ", ".join(f"{f.name}={getattr(v, f.name)!r}" for f in fs)
                out.append(f"{pad}{prefix}{name}({args})")
                return
            out.append(f"{pad}{prefix}{name}")
            for f in fs:
                emit(getattr(v, f.name), level + 1, f.name + ": ")
        elif isinstance(v, tuple):
            if not v:
                out.append(f"{pad}{prefix}()")
                return
            if all(not isinstance(x, (Node, tuple)) for x in v):
                out.append(f"{pad}{prefix}{v!r}")
                return
            out.append(f"{pad}{prefix}[")
            for x in v:
                emit(x, level + 1, "")
            out.append(f"{pad}]")
        else:
            out.append(f"{pad}{prefix}{v!r}")

    emit(node, 0, "")
    return "\n".join(out)
