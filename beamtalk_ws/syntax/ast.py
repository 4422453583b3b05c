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

from bisect import bisect_right as _bisect_right
from itertools import accumulate as _accumulate, repeat as _repeat
from operator import add as _add, itemgetter as _itemgetter
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


class LineTable:
    """Line starts of one source text, computed on first use: turns offsets
    into ``Span``s.  The parser stores this table (shared) plus start and
    end offsets in every node instead of a ``Span`` (the node's ``span`` is
    derived on access)."""

    __slots__ = ("source", "_starts")

    def __init__(self, source: str):
        self.source = source
        self._starts = None

    def starts(self) -> list:
        """Offsets where the lines start (``starts()[k]`` is line k+1)."""
        st = self._starts
        if st is None:
            st = [0]
            st += _accumulate(map(_add, map(len, self.source.split("\n")), _repeat(1)))
            st.pop()
            self._starts = st
        return st

    def line_col(self, offset: int):
        """1-based (line, column) of ``offset``."""
        st = self.starts()
        line = _bisect_right(st, offset)
        return line, offset - st[line - 1] + 1

    def span(self, start: int, end: int) -> Span:
        st = self.starts()
        line = _bisect_right(st, start)
        return _tnew(Span, (start, end, line, start - st[line - 1] + 1))

    def __reduce__(self):
        return (LineTable, (self.source,))


class _NoCompare:
    """Default value marker of a field that is not part of equality."""

    __slots__ = ("default",)

    def __init__(self, default):
        self.default = default


_REQUIRED = object()


try:  # the C accessor namedtuple uses (CPython); a property otherwise
    from _collections import _tuplegetter
except ImportError:  # pragma: no cover
    def _tuplegetter(index, doc):
        return property(_itemgetter(index), doc=doc)

_tnew = tuple.__new__


#: the walks of the nodes walked last: id(node) -> (node, pre-order tuple)
_WALKS: dict = {}
_WALK_LIMIT = 256


class Node(tuple):
    """Base class of the AST nodes.

    A node is a tuple subclass (construction is one ``tuple.__new__`` call,
    the parser's hot path) laid out as: the fields that take part in
    equality in declaration order, then those that do not (``source``), then
    three items giving the span: start offset, end offset, and either a
    ``Span`` (nodes built with ``span=``) or the ``LineTable`` of the parsed
    source, from which ``span`` is derived on access (the parser never
    builds ``Span`` objects for nodes).  Fields are read-only attributes; equality, hashing and
    ``repr`` behave as for a frozen dataclass whose ``span`` (and
    ``source``) fields are ``compare=False`` (and ``span`` ``repr=False``):
    nodes of different classes are never equal, ordering is not supported,
    and the node is not usable as a sequence by contract (it is one only as
    an implementation detail).

    The public constructor is ``Cls(*fields, span=NO_SPAN)`` (fields by
    position or by keyword, with their defaults).  ``_fields`` lists the
    field names in declaration order (without ``span``); ``_layout`` the
    tuple layout (``_start``, ``_end``, ``_where`` last).
    """

    __slots__ = ()
    _fields: tuple = ()
    _layout: tuple = ("_start", "_end", "_where")
    _ncompare = 0

    def __new__(cls, *, span=NO_SPAN):
        return _tnew(cls, (span[0], span[1], span))

    @property
    def span(self) -> Span:
        """Source range of the node."""
        w = self[-1]
        if w.__class__ is LineTable:
            return w.span(self[-3], self[-2])
        return w

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        ann = cls.__dict__.get("__annotations__", {})
        own = []
        for name in ann:
            default = cls.__dict__.get(name, _REQUIRED)
            own.append((name, default))
        specs = own
        fields_ = tuple(n for n, _d in specs)
        compared = [n for n, d in specs if not isinstance(d, _NoCompare)]
        uncompared = [n for n, d in specs if isinstance(d, _NoCompare)]
        layout = tuple(compared + uncompared + ["_start", "_end", "_where"])
        cls._fields = fields_
        cls._layout = layout
        cls._ncompare = len(compared)
        cls.__match_args__ = fields_
        for k, name in enumerate(layout[:-3]):
            setattr(cls, name, _tuplegetter(k, None))
        # constructor
        params = []
        defaults = {}
        seen_default = False
        for name, d in specs:
            if isinstance(d, _NoCompare):
                d = d.default
            if d is _REQUIRED:
                if seen_default:
                    raise TypeError(f"non-default field {name} follows a default field in {cls.__name__}")
                params.append(name)
            else:
                seen_default = True
                defaults["_d_" + name] = d
                params.append(f"{name}=_d_{name}")
        args = ", ".join(params + ["*", "span=_NO_SPAN"])
        items = "".join(f"{n}, " for n in layout[:-3]) + "span[0], span[1], span"
        ns = {"_tnew": _tnew, "_NO_SPAN": NO_SPAN, **defaults}
        exec(f"def __new__(cls, {args}):\n    return _tnew(cls, ({items}))\n", ns)
        new = ns["__new__"]
        new.__qualname__ = f"{cls.__qualname__}.__new__"
        cls.__new__ = new

    # -- dataclass-like protocol ------------------------------------------
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            n = self._ncompare
            return self[:n] == other[:n]
        if isinstance(other, tuple):
            return False  # never equal to a plain tuple or another node class
        return NotImplemented

    def __ne__(self, other):
        if other.__class__ is self.__class__:
            n = self._ncompare
            return self[:n] != other[:n]
        if isinstance(other, tuple):
            return True
        return NotImplemented

    def __hash__(self):
        return hash(self[: self._ncompare])

    def __lt__(self, other):
        return NotImplemented

    __le__ = __gt__ = __ge__ = __lt__

    def __repr__(self):
        args = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{self.__class__.__qualname__}({args})"

    def __reduce__(self):
        return (_tnew, (self.__class__, tuple(self)))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def _replace(self, **changes):
        """A copy with some fields (or ``span``) changed."""
        values = {n: getattr(self, n) for n in self._layout[:-3]}
        tail = tuple(self[-3:])
        for k, v in changes.items():
            if k == "span":
                tail = (v[0], v[1], v)
            elif k not in values:
                raise TypeError(f"{self.__class__.__name__} has no field {k!r}")
            else:
                values[k] = v
        return _tnew(self.__class__, tuple(values[n] for n in self._layout[:-3]) + tail)

    # -- traversal ----------------------------------------------------------
    def children(self) -> list:
        """The direct child nodes, in source order.  Every lint walks the
        tree, and every input is linted, so this reads the compared fields
        by position (the uncompared ones, ``source``, hold text only) and
        answers a list rather than a generator."""
        out = []
        for v in self[: self._ncompare]:
            if isinstance(v, Node):
                out.append(v)
            elif v.__class__ is tuple:
                for x in v:
                    if isinstance(x, Node):
                        out.append(x)
        return out

    def walk(self) -> tuple:
        """This node and every node below it, in pre-order.

        Every lint walks each input (a class is walked about seven times per
        compile), and a node never changes, so the answer is kept for the
        nodes walked last (keyed by identity, holding the node, so the key
        cannot be reused while kept)."""
        hit = _WALKS.get(id(self))
        if hit is not None and hit[0] is self:
            return hit[1]
        out = []
        stack = [self]
        pop = stack.pop
        push = stack.extend
        add = out.append
        while stack:
            n = pop()
            add(n)
            kids = n.children()
            if kids:
                kids.reverse()
                push(kids)
        found = tuple(out)
        if len(found) > 8:
            if len(_WALKS) >= _WALK_LIMIT:
                _WALKS.clear()
            _WALKS[id(self)] = (self, found)
        return found


# ---------------------------------------------------------------- literals


class IntegerLit(Node):
    __slots__ = ()
    value: int


class FloatLit(Node):
    __slots__ = ()
    value: float


class StringLit(Node):
    __slots__ = ()
    value: str


class InterpolatedString(Node):
    """``"a {x} b"`` → parts ``("a ", Variable("x"), " b")``.  Parts are ``str``
    (literal text, never empty) or expression nodes (keyword-level)."""

    __slots__ = ()

    parts: tuple


class SymbolLit(Node):
    __slots__ = ()
    name: str


class CharLit(Node):
    """``$a`` → ``CharLit(97)`` (a code point)."""

    __slots__ = ()

    value: int


class ListLit(Node):
    """``#(a, b)``; ``#(h | t)`` has ``tail`` set (a cons)."""

    __slots__ = ()

    elements: tuple
    tail: Optional["Node"] = None


class ArrayLit(Node):
    """``#[a, b]``."""

    __slots__ = ()

    elements: tuple


class MapPair(Node):
    __slots__ = ()
    key: "Node"
    value: "Node"


class MapLit(Node):
    """``#{k => v}``; a bare lower-case key ``x =>`` is ``SymbolLit("x")``."""

    __slots__ = ()

    pairs: tuple


# ---------------------------------------------------------------- names


class Variable(Node):
    """A lower-case identifier (including ``self``, ``true``, ``false``, ``nil``
    and ``_``)."""

    __slots__ = ()

    name: str


class GlobalRef(Node):
    """An identifier starting with an upper-case letter: class or workspace
    global (``Counter``, ``Transcript``)."""

    __slots__ = ()

    name: str


class Super(Node):
    __slots__ = ()


class FieldAccess(Node):
    """``self.x`` / ``a.b.c`` (tight dots only, spec §3.3)."""

    __slots__ = ()

    receiver: "Node"
    name: str


# ---------------------------------------------------------------- statements


class Assignment(Node):
    """``target := value``; ``target`` is a ``Variable`` or ``FieldAccess``."""

    __slots__ = ()

    target: "Node"
    value: "Node"


class Return(Node):
    """``^value``."""

    __slots__ = ()

    value: "Node"


class Cast(Node):
    """A statement terminated by ``!`` (async cast).  ``send`` is a
    ``UnarySend``, ``BinarySend``, ``KeywordSend`` or ``Cascade``."""

    __slots__ = ()

    send: "Node"


# ---------------------------------------------------------------- messages


class UnarySend(Node):
    __slots__ = ()
    receiver: "Node"
    selector: str


class BinarySend(Node):
    __slots__ = ()
    receiver: "Node"
    operator: str
    argument: "Node"

    @property
    def selector(self) -> str:
        return self.operator


class KeywordSend(Node):
    """``selector`` is the concatenation of the keyword parts (``at:put:``)."""

    __slots__ = ()

    receiver: "Node"
    selector: str
    arguments: tuple

    @property
    def keywords(self) -> tuple:
        return split_keyword_selector(self.selector)


class CascadeMessage(Node):
    """One message of a cascade: unary (no arguments), binary (one argument,
    selector is the operator) or keyword."""

    __slots__ = ()

    selector: str
    arguments: tuple = ()


class Cascade(Node):
    """``r m1; m2; m3`` – ``receiver`` is the receiver of the *last* message of
    the first part; ``messages`` includes that first message."""

    __slots__ = ()

    receiver: "Node"
    messages: tuple


# ---------------------------------------------------------------- blocks


class Block(Node):
    __slots__ = ()
    parameters: tuple
    body: tuple


# ---------------------------------------------------------------- match


class WildcardPattern(Node):
    __slots__ = ()


class VariablePattern(Node):
    __slots__ = ()
    name: str


class LiteralPattern(Node):
    """``value_node`` is an ``IntegerLit``, ``FloatLit``, ``StringLit``,
    ``SymbolLit`` or ``CharLit``."""

    __slots__ = ()

    value_node: "Node"


class TuplePattern(Node):
    __slots__ = ()
    elements: tuple


class MatchArm(Node):
    __slots__ = ()
    pattern: "Node"
    guard: Optional["Node"]
    body: "Node"


class Match(Node):
    """``subject match: [p -> e; p2 when: [g] -> e2]``."""

    __slots__ = ()

    subject: "Node"
    arms: tuple


# ---------------------------------------------------------------- pragmas


class Primitive(Node):
    """``@primitive "name"`` (kind ``'primitive'``) or ``@intrinsic name``
    (kind ``'intrinsic'``)."""

    __slots__ = ()

    name: str
    kind: str = "primitive"


class Expect(Node):
    """``@expect dnu|type|unused|all`` – a standalone statement."""

    __slots__ = ()

    category: str


# ---------------------------------------------------------------- declarations


class StateDecl(Node):
    """``state: name [: Type] [= default]`` (also used for ``classState:``)."""

    __slots__ = ()

    name: str
    type: Optional[str] = None
    default: Optional["Node"] = None
    doc: Optional[str] = None
    #: category of an ``@expect`` written just before the declaration
    expect: Optional[str] = None


class MethodDef(Node):
    """A method.  ``source`` is the exact source text from the method pattern
    (after any ``class``/``sealed`` words) to the end of its body; it is not
    part of equality."""

    __slots__ = ()

    selector: str
    parameters: tuple
    body: tuple
    class_side: bool = False
    sealed: bool = False
    return_type: Optional[str] = None
    param_types: tuple = ()
    doc: Optional[str] = None
    source: str = _NoCompare("")
    #: category of an ``@expect`` written just before the method
    expect: Optional[str] = None

    @property
    def kind(self) -> str:
        """``'unary'``, ``'binary'`` or ``'keyword'``."""
        return selector_kind(self.selector)


class ClassDef(Node):
    """``[modifiers] Super subclass: Name`` plus its body.  ``superclass`` is
    ``None`` for ``nil subclass:`` (the root class).  ``source`` is the exact
    text of the whole definition (not part of equality)."""

    __slots__ = ()

    name: str
    superclass: Optional[str]
    modifiers: tuple = ()
    state: tuple = ()
    class_state: tuple = ()
    methods: tuple = ()
    doc: Optional[str] = None
    source: str = _NoCompare("")

    @property
    def is_abstract(self) -> bool:
        return "abstract" in self.modifiers

    @property
    def is_sealed(self) -> bool:
        return "sealed" in self.modifiers

    @property
    def is_typed(self) -> bool:
        return "typed" in self.modifiers


class StandaloneMethod(Node):
    """``Class >> pattern => body`` / ``Class class >> pattern => body``."""

    __slots__ = ()

    class_name: str
    class_side: bool
    method: MethodDef


class Module(Node):
    """A whole source text: top-level statements, ``ClassDef`` and
    ``StandaloneMethod`` items in source order."""

    __slots__ = ()

    items: tuple


Expr = Node
Statement = Node

LITERAL_NODES = (IntegerLit, FloatLit, StringLit, InterpolatedString, SymbolLit, CharLit)
SEND_NODES = (UnarySend, BinarySend, KeywordSend, Cascade)


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
            fs = [f for f in v._fields if f != "source"]
            simple = all(not isinstance(getattr(v, f), (Node, tuple)) for f in fs)
            if simple:
                args = ", ".join(f"{f}={getattr(v, f)!r}" for f in fs)
                out.append(f"{pad}{prefix}{name}({args})")
                return
            out.append(f"{pad}{prefix}{name}")
            for f in fs:
                emit(getattr(v, f), level + 1, f + ": ")
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
