"""Python values for the Erlang terms that have no natural Python type.

The mapping is chosen so that a decoded term re-encodes to the term the node
sent, byte for byte where the node's own encoding is canonical:

=====================  ==========================================
Erlang                 Python
=====================  ==========================================
atom                   :class:`Atom` (``true``/``false`` -> bool)
integer                int
float                  float
binary                 bytes (never str; a ``str`` is *encoded* as a
                       UTF-8 binary, but nothing decodes to str)
bitstring              :class:`BitBinary`
proper list            list  (:class:`FrozenList` inside map keys)
improper list          :class:`ImproperList`
tuple                  tuple
map                    dict  (:class:`FrozenMap` inside map keys)
pid / ref / port       :class:`Pid` / :class:`Reference` / :class:`Port`
fun M:F/A              :class:`ExportFun`
fun (...) -> ... end   :class:`LocalFun`
=====================  ==========================================

The atoms ``true`` and ``false`` decode as Python ``True``/``False``;
``Atom('true')`` still encodes as the atom (it is the same Erlang term as
``True``), but prefer the bools.

``None`` has no Erlang meaning (``undefined``? ``nil``? ``null``?), so it is
rejected rather than guessed.

Atoms, FrozenLists and the like compare *strictly*: ``Atom('ok') != 'ok'`` and
``FrozenList((1,)) != (1,)``.  In Erlang an atom is never equal to a binary and a
list never equal to a tuple; Python equality must agree, otherwise two distinct
map keys would collapse into one dict entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = [
    "Atom",
    "BitBinary",
    "ImproperList",
    "FrozenList",
    "FrozenMap",
    "Pid",
    "Reference",
    "Port",
    "ExportFun",
    "LocalFun",
    "erl_repr",
]


_interned: dict[str, "Atom"] = {}
_MAX_INTERNED = 1 << 20  # the BEAM's default atom table limit


class Atom(str):
    """An Erlang atom.  A ``str`` so it can be used as a name, but never equal to a plain str.

    Atoms are interned (``Atom('ok') is Atom('ok')``) because the codec keys
    dicts by atom on every term; with interning those lookups hit on identity
    instead of calling ``__eq__``.  Interning is only an optimisation: equality
    is by value, so clearing the table (when it exceeds the BEAM's own atom
    limit) is harmless.
    """

    __slots__ = ()

    def __new__(cls, name: str = "") -> "Atom":
        if name.__class__ is Atom:
            return name  # type: ignore[return-value]
        if not isinstance(name, str):
            raise TypeError(f"an atom name must be a str, not {type(name).__name__}")
        a = _interned.get(name)
        if a is None:
            a = str.__new__(cls, name)
            if len(_interned) >= _MAX_INTERNED:
                _interned.clear()
            _interned[str(name)] = a
        return a

    def __repr__(self) -> str:
        return f"Atom({str.__repr__(self)})"

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Atom) and str.__eq__(self, other))

    def __ne__(self, other: object) -> bool:
        return not (self is other or (isinstance(other, Atom) and str.__eq__(self, other)))

    __hash__ = str.__hash__

    def __reduce__(self):  # keep the subclass through pickle/copy
        return (Atom, (str(self),))


class FrozenList(tuple):
    """A list that appears inside a map key, where a Python list cannot live.

    Encodes back as an Erlang list.  Strictly unequal to tuples of the same
    elements because ``#{[1] => a, {1} => b}`` has two keys.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"FrozenList({list(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FrozenList) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = tuple.__hash__


class FrozenMap(Mapping):
    """An immutable, hashable map: what a map inside a map key decodes to.

    Encodes back as an Erlang map.  Compares equal to a dict with the same
    items (both are maps in Erlang).
    """

    __slots__ = ("_d", "_hash")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._d = dict(*args, **kwargs)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._d[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._d.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._d == other._d
        if isinstance(other, dict):
            return self._d == other
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._d!r})"


@dataclass(frozen=True, slots=True)
class BitBinary:
    """A bitstring whose length is not a multiple of 8 (BIT_BINARY_EXT).

    ``bits`` is the number of significant bits in the *last* byte of ``data``
    (1..7), counted from the most significant bit, exactly as on the wire.
    Unused low bits of the last byte are cleared on construction, as the BEAM
    does, so equal bitstrings compare equal.  A whole number of bytes is a
    binary, i.e. ``bytes``.
    """

    data: bytes
    bits: int

    def __post_init__(self) -> None:
        if not isinstance(self.data, (bytes, bytearray)) or not self.data:
            raise ValueError("BitBinary needs at least one byte of data")
        if not (isinstance(self.bits, int) and 1 <= self.bits <= 7):
            raise ValueError(
                "BitBinary.bits must be 1..7 (bits used in the last byte); "
                "a whole number of bytes is plain bytes"
            )
        mask = (0xFF << (8 - self.bits)) & 0xFF
        data = bytes(self.data)
        if data[-1] & ~mask:
            data = data[:-1] + bytes((data[-1] & mask,))
        object.__setattr__(self, "data", data)

    @property
    def bit_size(self) -> int:
        """Total length in bits, like ``bit_size/1``."""
        return (len(self.data) - 1) * 8 + self.bits


@dataclass(frozen=True, slots=True)
class ImproperList:
    """``[E1, E2, ... | Tail]`` where Tail is not a list.

    ``elements`` is a non-empty tuple; a list-valued tail would just be a longer
    list, so it is rejected here (the decoder merges such tails itself).
    """

    elements: tuple
    tail: Any

    def __post_init__(self) -> None:
        if not isinstance(self.elements, tuple):
            object.__setattr__(self, "elements", tuple(self.elements))
        if not self.elements:
            raise ValueError("ImproperList needs at least one element before the tail")
        if isinstance(self.tail, (list, FrozenList, ImproperList)):
            raise ValueError("ImproperList tail must not be a list; build a longer list instead")


@dataclass(frozen=True, slots=True)
class Pid:
    """A process identifier.  ``creation`` identifies the node incarnation."""

    node: Atom
    id: int
    serial: int
    creation: int

    def __post_init__(self) -> None:
        if type(self.node) is not Atom:
            object.__setattr__(self, "node", Atom(self.node))

    def __str__(self) -> str:
        return f"<{self.node}.{self.id}.{self.serial}>"


@dataclass(frozen=True, slots=True)
class Reference:
    """A reference; ``ids`` is the tuple of 32-bit words, opaque by contract."""

    node: Atom
    creation: int
    ids: tuple

    def __post_init__(self) -> None:
        if type(self.node) is not Atom:
            object.__setattr__(self, "node", Atom(self.node))
        if type(self.ids) is not tuple:
            object.__setattr__(self, "ids", tuple(self.ids))

    def __str__(self) -> str:
        return f"#Ref<{self.node}.{'.'.join(map(str, reversed(self.ids)))}>"


@dataclass(frozen=True, slots=True)
class Port:
    """A port identifier (only usable on its own node, but it travels)."""

    node: Atom
    id: int
    creation: int

    def __post_init__(self) -> None:
        if type(self.node) is not Atom:
            object.__setattr__(self, "node", Atom(self.node))

    def __str__(self) -> str:
        return f"#Port<{self.node}.{self.id}>"


@dataclass(frozen=True, slots=True)
class ExportFun:
    """``fun Module:Function/Arity``."""

    module: Atom
    function: Atom
    arity: int

    def __post_init__(self) -> None:
        if type(self.module) is not Atom:
            object.__setattr__(self, "module", Atom(self.module))
        if type(self.function) is not Atom:
            object.__setattr__(self, "function", Atom(self.function))


@dataclass(frozen=True, slots=True)
class LocalFun:
    """A local fun (NEW_FUN_EXT), kept field by field.

    Python cannot run it, but it must survive the trip back to the node intact
    (a REPL binding may hold a block closure): every field, including the
    creator pid and the free variables, re-encodes to the original bytes.
    """

    module: Atom
    arity: int
    uniq: bytes  # 16-byte MD5 of the module's code
    index: int
    old_index: int
    old_uniq: int
    pid: Pid
    free_vars: tuple = field(default=())

    def __post_init__(self) -> None:
        if type(self.module) is not Atom:
            object.__setattr__(self, "module", Atom(self.module))
        if len(self.uniq) != 16:
            raise ValueError("LocalFun.uniq must be the 16-byte MD5 of the module")
        if not isinstance(self.free_vars, tuple):
            object.__setattr__(self, "free_vars", tuple(self.free_vars))


# ---------------------------------------------------------------------------
# Erlang-style printing, for error messages ("exited (reason: {badarg, ...})").


def _atom_text(a: str) -> str:
    if a and (a[0].isalpha() and a[0].islower()) and all(c.isalnum() or c in "_@" for c in a):
        return str(a)
    return "'" + str(a).replace("\\", "\\\\").replace("'", "\\'") + "'"


def erl_repr(term: Any, max_depth: int = 12, max_items: int = 40) -> str:
    """Format a decoded term the way Erlang's ``~p`` would, approximately.

    Used for human messages (exit reasons), so it is depth- and length-limited
    and never fails: anything unknown falls back to ``repr``.
    """

    def fmt(t: Any, depth: int) -> str:
        if depth > max_depth:
            return "..."
        if t is True:
            return "true"
        if t is False:
            return "false"
        if isinstance(t, Atom):
            return _atom_text(t)
        if isinstance(t, (int, float)):
            return repr(t)
        if isinstance(t, str):
            return "<<" + repr(t).replace("'", '"', 1)[:-1] + '"/utf8>>'
        if isinstance(t, (bytes, bytearray)):
            b = bytes(t)
            if b and all(32 <= c < 127 for c in b):
                return '<<"' + b.decode("ascii").replace('"', '\\"') + '">>'
            return "<<" + ",".join(map(str, b[:max_items])) + (",..." if len(b) > max_items else "") + ">>"

        def seq(items: Any) -> str:
            items = list(items)
            out = [fmt(x, depth + 1) for x in items[:max_items]]
            if len(items) > max_items:
                out.append("...")
            return ",".join(out)

        if isinstance(t, FrozenList) or isinstance(t, list):
            if t and all(isinstance(c, int) and not isinstance(c, bool) and 32 <= c < 127 for c in t):
                return '"' + "".join(map(chr, t)) + '"'
            return "[" + seq(t) + "]"
        if isinstance(t, tuple):
            return "{" + seq(t) + "}"
        if isinstance(t, ImproperList):
            return "[" + seq(t.elements) + "|" + fmt(t.tail, depth + 1) + "]"
        if isinstance(t, (dict, FrozenMap)):
            pairs = [f"{fmt(k, depth + 1)} => {fmt(v, depth + 1)}" for k, v in list(t.items())[:max_items]]
            if len(t) > max_items:
                pairs.append("...")
            return "#{" + ",".join(pairs) + "}"
        if isinstance(t, (Pid, Reference, Port)):
            return str(t)
        if isinstance(t, ExportFun):
            return f"fun {_atom_text(t.module)}:{_atom_text(t.function)}/{t.arity}"
        if isinstance(t, LocalFun):
            return f"#Fun<{t.module}.{t.index}.{t.old_uniq}>"
        if isinstance(t, BitBinary):
            whole = ",".join(map(str, t.data[:-1]))
            last = f"{t.data[-1] >> (8 - t.bits)}:{t.bits}"
            return "<<" + (whole + "," if whole else "") + last + ">>"
        return repr(t)

    return fmt(term, 0)
