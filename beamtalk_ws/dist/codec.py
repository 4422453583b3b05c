"""The Erlang external term format (ETF): ``term_to_binary`` / ``binary_to_term``.

Both directions are written as explicit loops over a work stack instead of
recursion, because the terms this project ships are compiler forms and those
nest as deep as the user's code does; a 100 000-deep list must not hit
Python's recursion limit.  Every REPL input and every result goes through
here, so the hot paths avoid per-byte Python work: ``struct`` objects are
precompiled, binaries and strings are sliced, and atoms are interned in a
small cache so repeated atoms cost one dict lookup.

Choices worth knowing:

* Encoding always produces what an OTP 25 node itself sends over distribution:
  UTF-8 atoms, NEW_FLOAT_EXT, NEW_PID_EXT, NEWER_REFERENCE_EXT, NEW_PORT_EXT (or
  V4_PORT_EXT for ids beyond 28 bits).  Lists of 1..65535 ints in 0..255 use
  STRING_EXT, as the BEAM does.  The atom cache is never used.
* ``str`` encodes as a UTF-8 *binary* (Beamtalk strings are binaries);
  decoding never produces ``str``.
* Map keys that are lists or maps decode as :class:`FrozenList` /
  :class:`FrozenMap` (recursively inside keys) so they can be dict keys.
* A map whose distinct Erlang keys are equal in Python (``1`` and ``1.0``)
  cannot be a dict; decoding it raises :class:`DecodeError` instead of losing
  an entry.
"""

from __future__ import annotations

import math
import struct
import zlib
from typing import Any

from .errors import DecodeError
from .terms import (
    Atom,
    BitBinary,
    ExportFun,
    FrozenList,
    FrozenMap,
    ImproperList,
    LocalFun,
    Pid,
    Port,
    Reference,
)

__all__ = [
    "VERSION",
    "encode",
    "encode_body",
    "decode",
    "decode_body",
    "decode_from",
]

VERSION = 131

# Tags (erl_ext_dist).
NEW_FLOAT_EXT = 70
BIT_BINARY_EXT = 77
COMPRESSED = 80
ATOM_CACHE_REF = 82
NEW_PID_EXT = 88
NEW_PORT_EXT = 89
NEWER_REFERENCE_EXT = 90
SMALL_INTEGER_EXT = 97
INTEGER_EXT = 98
FLOAT_EXT = 99
ATOM_EXT = 100
REFERENCE_EXT = 101
PORT_EXT = 102
PID_EXT = 103
SMALL_TUPLE_EXT = 104
LARGE_TUPLE_EXT = 105
NIL_EXT = 106
STRING_EXT = 107
LIST_EXT = 108
BINARY_EXT = 109
SMALL_BIG_EXT = 110
LARGE_BIG_EXT = 111
NEW_FUN_EXT = 112
EXPORT_EXT = 113
NEW_REFERENCE_EXT = 114
SMALL_ATOM_EXT = 115
MAP_EXT = 116
FUN_EXT = 117
ATOM_UTF8_EXT = 118
SMALL_ATOM_UTF8_EXT = 119
V4_PORT_EXT = 120

_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_I32 = struct.Struct(">i")
_U64 = struct.Struct(">Q")
_F64 = struct.Struct(">d")
_U32U32 = struct.Struct(">II")
_U32U32U32 = struct.Struct(">III")
_TAG_U32 = struct.Struct(">BI")
_TAG_I32 = struct.Struct(">Bi")
_TAG_U16 = struct.Struct(">BH")
_TAG_F64 = struct.Struct(">Bd")
_TAG_U32_B = struct.Struct(">BIB")
_FUN_HEAD = struct.Struct(">BIB16sII")  # tag, size, arity, uniq, index, numfree

_u16 = _U16.unpack_from
_u32 = _U32.unpack_from
_i32 = _I32.unpack_from
_u64 = _U64.unpack_from
_f64 = _F64.unpack_from

_MAX_ATOM_CACHE = 1 << 16


# ===========================================================================
# Encoding
# ===========================================================================


class _NilMark:
    """Stack marker: write the NIL that ends a proper list."""

    __slots__ = ()


class _FunEnd:
    """Stack marker: the free variables of a fun are written; patch its Size field."""

    __slots__ = ("start",)

    def __init__(self, start: int) -> None:
        self.start = start


_NIL = _NilMark()
_SMALL_INTS = [bytes((SMALL_INTEGER_EXT, i)) for i in range(256)]
_SMALL_TUPLE_HEADS = [bytes((SMALL_TUPLE_EXT, i)) for i in range(256)]
_TRUE_BYTES = bytes((SMALL_ATOM_UTF8_EXT, 4)) + b"true"
_FALSE_BYTES = bytes((SMALL_ATOM_UTF8_EXT, 5)) + b"false"
_INT_ONLY = {int}

_atom_enc_cache: dict[Atom, bytes] = {}


def _atom_bytes(name: str) -> bytes:
    """Encoded form of an atom (SMALL_ATOM_UTF8_EXT or ATOM_UTF8_EXT), cached."""
    b = _atom_enc_cache.get(name)
    if b is not None:
        return b
    if len(name) > 255:
        raise ValueError(f"atom is too long ({len(name)} characters, Erlang allows 255)")
    raw = name.encode("utf-8")
    n = len(raw)
    b = bytes((SMALL_ATOM_UTF8_EXT, n)) + raw if n < 256 else _TAG_U16.pack(ATOM_UTF8_EXT, n) + raw
    if len(_atom_enc_cache) >= _MAX_ATOM_CACHE:
        _atom_enc_cache.clear()
    # Keys must be Atoms: Atom.__eq__ refuses plain str, so a str key would never match.
    _atom_enc_cache[name if name.__class__ is Atom else Atom(name)] = b
    return b


def _int_bytes(t: int) -> bytes:
    if 0 <= t < 256:
        return _SMALL_INTS[t]
    if -0x80000000 <= t <= 0x7FFFFFFF:
        return _TAG_I32.pack(INTEGER_EXT, t)
    a = -t if t < 0 else t
    n = (a.bit_length() + 7) >> 3
    digits = a.to_bytes(n, "little")
    sign = 1 if t < 0 else 0
    if n < 256:
        return bytes((SMALL_BIG_EXT, n, sign)) + digits
    if n > 0xFFFFFFFF:
        raise ValueError("integer is too large for the external term format")
    return _TAG_U32_B.pack(LARGE_BIG_EXT, n, sign) + digits


def _small_or_int(t: int, what: str) -> bytes:
    if type(t) is not int or not (-0x80000000 <= t <= 0x7FFFFFFF):
        raise ValueError(f"{what} must be an integer that fits in 32 signed bits")
    return _int_bytes(t)


def _pid_bytes(p: Pid) -> bytes:
    return (
        bytes((NEW_PID_EXT,))
        + _atom_bytes(p.node)
        + _U32U32U32.pack(p.id & 0xFFFFFFFF, p.serial & 0xFFFFFFFF, p.creation & 0xFFFFFFFF)
    )


def _ref_bytes(r: Reference) -> bytes:
    ids = r.ids
    if not 1 <= len(ids) <= 5:
        raise ValueError("a reference has 1 to 5 id words")
    return (
        _TAG_U16.pack(NEWER_REFERENCE_EXT, len(ids))
        + _atom_bytes(r.node)
        + _U32.pack(r.creation & 0xFFFFFFFF)
        + struct.pack(f">{len(ids)}I", *ids)
    )


def _port_bytes(p: Port) -> bytes:
    if 0 <= p.id < (1 << 28):
        return bytes((NEW_PORT_EXT,)) + _atom_bytes(p.node) + _U32U32.pack(p.id, p.creation & 0xFFFFFFFF)
    return bytes((V4_PORT_EXT,)) + _atom_bytes(p.node) + _U64.pack(p.id) + _U32.pack(p.creation & 0xFFFFFFFF)


def _encode_into(buf: bytearray, term: Any) -> None:
    """Append the body (no version byte) of ``term`` to ``buf``, iteratively."""
    stack = [term]
    pop = stack.pop
    push = stack.append
    extend = stack.extend
    atom_cache = _atom_enc_cache
    small_ints = _SMALL_INTS
    tuple_heads = _SMALL_TUPLE_HEADS
    pack_u32 = _TAG_U32.pack
    while stack:
        t = pop()
        c = t.__class__
        if c is Atom:
            b = atom_cache.get(t)
            buf += b if b is not None else _atom_bytes(t)
        elif c is int:
            if 0 <= t < 256:
                buf += small_ints[t]
            else:
                buf += _int_bytes(t)
        elif c is tuple:
            n = len(t)
            if n < 256:
                buf += tuple_heads[n]
            else:
                buf += pack_u32(LARGE_TUPLE_EXT, n)
            if n:
                extend(reversed(t))
        elif c is list:
            n = len(t)
            if n == 0:
                buf.append(NIL_EXT)
                continue
            if n < 65536 and t[0].__class__ is int:
                try:
                    s = bytes(t)
                except (TypeError, ValueError):
                    s = None
                if s is not None and set(map(type, t)) == _INT_ONLY:
                    buf += _TAG_U16.pack(STRING_EXT, n)
                    buf += s
                    continue
            buf += pack_u32(LIST_EXT, n)
            push(_NIL)
            extend(reversed(t))
        elif c is _NilMark:
            buf.append(NIL_EXT)
        elif c is bytes:
            buf += pack_u32(BINARY_EXT, len(t))
            buf += t
        elif c is str:
            raw = t.encode("utf-8")
            buf += pack_u32(BINARY_EXT, len(raw))
            buf += raw
        elif c is dict:
            buf += pack_u32(MAP_EXT, len(t))
            for k, v in reversed(t.items()):
                push(v)
                push(k)
        elif c is float:
            if not math.isfinite(t):
                raise ValueError(f"cannot encode {t!r}: Erlang floats are always finite")
            buf += _TAG_F64.pack(NEW_FLOAT_EXT, t)
        elif c is bool:
            buf += _TRUE_BYTES if t else _FALSE_BYTES
        elif c is Pid:
            buf += _pid_bytes(t)
        elif c is Reference:
            buf += _ref_bytes(t)
        elif c is FrozenList:
            n = len(t)
            if n == 0:
                buf.append(NIL_EXT)
            else:
                push(list(t))
        elif c is FrozenMap:
            push(dict(t.items()))
        elif c is ImproperList:
            buf += pack_u32(LIST_EXT, len(t.elements))
            push(t.tail)
            extend(reversed(t.elements))
        elif c is _FunEnd:
            buf[t.start + 1 : t.start + 5] = _U32.pack(len(buf) - t.start - 1)
        elif c is BitBinary:
            buf += _TAG_U32_B.pack(BIT_BINARY_EXT, len(t.data), t.bits)
            buf += t.data
        elif c is Port:
            buf += _port_bytes(t)
        elif c is ExportFun:
            if not 0 <= t.arity < 256:
                raise ValueError("ExportFun.arity must be 0..255")
            buf.append(EXPORT_EXT)
            buf += _atom_bytes(t.module)
            buf += _atom_bytes(t.function)
            buf += small_ints[t.arity]
        elif c is LocalFun:
            start = len(buf)
            buf += _FUN_HEAD.pack(NEW_FUN_EXT, 0, t.arity, t.uniq, t.index, len(t.free_vars))
            buf += _atom_bytes(t.module)
            buf += _small_or_int(t.old_index, "LocalFun.old_index")
            buf += _small_or_int(t.old_uniq, "LocalFun.old_uniq")
            if t.pid.__class__ is not Pid:
                raise TypeError("LocalFun.pid must be a Pid")
            buf += _pid_bytes(t.pid)
            push(_FunEnd(start))
            extend(reversed(t.free_vars))
        else:
            push(_coerce(t))


def _coerce(t: Any) -> Any:
    """Map an unusual Python value (a subclass, a bytearray...) to one the loop knows."""
    if t is None:
        raise TypeError(
            "cannot encode None: it has no single Erlang meaning; "
            "use Atom('undefined') or Atom('nil') explicitly"
        )
    if isinstance(t, bool):  # pragma: no cover - bool cannot be subclassed
        return bool(t)
    if isinstance(t, Atom):
        return Atom(str(t))
    if isinstance(t, int):
        return int(t)
    if isinstance(t, float):
        return float(t)
    if isinstance(t, str):
        return str(t)
    if isinstance(t, (bytes, bytearray, memoryview)):
        return bytes(t)
    if isinstance(t, FrozenList):
        return list(t)
    if isinstance(t, tuple):
        return tuple(t)
    if isinstance(t, list):
        return list(t)
    if isinstance(t, (dict, FrozenMap)):
        return dict(t.items())
    raise TypeError(f"cannot encode a value of type {type(t).__name__} as an Erlang term")


def encode_body(term: Any) -> bytes:
    """Encode ``term`` without the leading version byte (e.g. inside a dist header)."""
    buf = bytearray()
    _encode_into(buf, term)
    return bytes(buf)


def encode(term: Any, compressed: bool | int = False) -> bytes:
    """``term_to_binary``: the version byte 131 followed by the encoded term.

    ``compressed`` may be True (zlib level 6, like ``[compressed]``) or a level
    0..9; as in Erlang, the compressed form is only used when it is smaller.
    """
    buf = bytearray((VERSION,))
    _encode_into(buf, term)
    if compressed is not False and compressed is not None:
        level = 6 if compressed is True else int(compressed)
        if level > 0:
            body = memoryview(buf)[1:]
            z = zlib.compress(body, level)
            if len(z) + 5 < len(body):
                return bytes((VERSION, COMPRESSED)) + _U32.pack(len(body)) + z
    return bytes(buf)


# ===========================================================================
# Decoding
# ===========================================================================

# Kinds of containers on the decode stack.
_ROOT = 0
_TUPLE = 1
_LIST = 2
_MAP = 3
_FUN = 4

_utf8_atoms: dict[bytes, Any] = {b"true": True, b"false": False}
_latin1_atoms: dict[bytes, Any] = {b"true": True, b"false": False}


def _new_atom(raw: bytes, utf8: bool) -> Any:
    cache = _utf8_atoms if utf8 else _latin1_atoms
    if len(cache) >= _MAX_ATOM_CACHE:
        cache.clear()
        cache[b"true"] = True
        cache[b"false"] = False
    a = Atom(raw.decode("utf-8" if utf8 else "latin-1"))
    cache[raw] = a
    return a


class _Truncated(Exception):
    pass


def _read_atom(data: bytes, pos: int, dlen: int) -> tuple[Atom, int]:
    """An atom where the format requires one (node names, fun modules).  Always an Atom."""
    tag = data[pos]
    if tag == SMALL_ATOM_UTF8_EXT or tag == SMALL_ATOM_EXT:
        n = data[pos + 1]
        start = pos + 2
    elif tag == ATOM_UTF8_EXT or tag == ATOM_EXT:
        n = _u16(data, pos + 1)[0]
        start = pos + 3
    elif tag == ATOM_CACHE_REF:
        raise DecodeError("atom cache reference found, but the atom cache is not negotiated", pos)
    else:
        raise DecodeError(f"expected an atom, found tag {tag}", pos)
    end = start + n
    if end > dlen:
        raise _Truncated
    raw = data[start:end]
    utf8 = tag == SMALL_ATOM_UTF8_EXT or tag == ATOM_UTF8_EXT
    a = (_utf8_atoms if utf8 else _latin1_atoms).get(raw)
    if a is None:
        a = _new_atom(raw, utf8)
    if a.__class__ is bool:
        a = Atom("true" if a else "false")
    return a, end


def _read_pid(data: bytes, pos: int, dlen: int) -> tuple[Pid, int]:
    tag = data[pos]
    if tag == NEW_PID_EXT:
        node, p = _read_atom(data, pos + 1, dlen)
        i, s, cr = _U32U32U32.unpack_from(data, p)
        return Pid(node, i, s, cr), p + 12
    if tag == PID_EXT:
        node, p = _read_atom(data, pos + 1, dlen)
        i, s = _U32U32.unpack_from(data, p)
        return Pid(node, i, s, data[p + 8]), p + 9
    raise DecodeError(f"expected a pid, found tag {tag}", pos)


def _read_small_or_int(data: bytes, pos: int) -> tuple[int, int]:
    tag = data[pos]
    if tag == SMALL_INTEGER_EXT:
        return data[pos + 1], pos + 2
    if tag == INTEGER_EXT:
        return _i32(data, pos + 1)[0], pos + 5
    raise DecodeError(f"expected a small integer, found tag {tag}", pos)


def _finish_map(items: list, frozen: bool, pos: int) -> Any:
    d = dict(zip(items[::2], items[1::2]))
    if len(d) * 2 != len(items):
        raise DecodeError(
            "map has keys that differ in Erlang but are equal in Python "
            "(such as 1 and 1.0); it cannot be represented as a dict",
            pos,
        )
    return FrozenMap(d) if frozen else d


def _decode_term(data: bytes, pos: int) -> tuple[Any, int]:
    """Decode one term body starting at ``pos``; return it and the offset after it.

    Tags and container kinds are literal numbers in this loop (with their names
    in comments): module-level constants would cost a global lookup per
    comparison on the hottest path of the project.  ``kind == 3 and not
    (len(items) & 1)`` reads "we are at a key slot of a map".

    The container being filled lives in local variables (kind, need, items,
    frozen, extra); enclosing containers wait on ``stack``.  A leaf costs one
    tag dispatch and one append, a container one push and one pop.  ``frozen``
    is true inside map keys, where lists and maps must come out hashable.
    """
    dlen = len(data)
    stack: list[tuple] = []
    push = stack.append
    pop = stack.pop
    utf8_atoms = _utf8_atoms
    kind = 0  # _ROOT
    need = 1
    items: list = []
    frozen = False
    extra: Any = None
    try:
        while True:
            tag = data[pos]
            # ---- leaves (most frequent first) and container heads ---------------
            if tag == 119:  # SMALL_ATOM_UTF8_EXT
                end = pos + 2 + data[pos + 1]
                if end > dlen:
                    raise _Truncated
                raw = data[pos + 2 : end]
                value = utf8_atoms.get(raw)
                if value is None:
                    value = _new_atom(raw, True)
                pos = end
            elif tag == 97:  # SMALL_INTEGER_EXT
                value = data[pos + 1]
                pos += 2
            elif tag == 104 or tag == 105:  # SMALL_TUPLE_EXT / LARGE_TUPLE_EXT
                if tag == 104:  # SMALL_TUPLE_EXT
                    n = data[pos + 1]
                    pos += 2
                else:
                    n = _u32(data, pos + 1)[0]
                    pos += 5
                if n == 0:
                    value = ()
                else:
                    if n > dlen - pos:
                        raise _Truncated
                    push((kind, need, items, frozen, extra))
                    frozen = frozen or (kind == 3 and not (len(items) & 1))
                    kind = 1  # _TUPLE
                    need = n
                    items = []
                    continue
            elif tag == 106:  # NIL_EXT
                value = FrozenList() if frozen or (kind == 3 and not (len(items) & 1)) else []
                pos += 1
            elif tag == 107:  # STRING_EXT
                end = pos + 3 + _u16(data, pos + 1)[0]
                if end > dlen:
                    raise _Truncated
                if frozen or (kind == 3 and not (len(items) & 1)):
                    value = FrozenList(data[pos + 3 : end])
                else:
                    value = list(data[pos + 3 : end])
                pos = end
            elif tag == 108:  # LIST_EXT
                n = _u32(data, pos + 1)[0]
                pos += 5
                if n >= dlen - pos:
                    raise _Truncated
                push((kind, need, items, frozen, extra))
                frozen = frozen or (kind == 3 and not (len(items) & 1))
                kind = 2  # _LIST
                need = n + 1  # the elements and the tail
                items = []
                continue
            elif tag == 109:  # BINARY_EXT
                end = pos + 5 + _u32(data, pos + 1)[0]
                if end > dlen:
                    raise _Truncated
                value = data[pos + 5 : end]
                pos = end
            elif tag == 98:  # INTEGER_EXT
                value = _i32(data, pos + 1)[0]
                pos += 5
            elif tag == 70:  # NEW_FLOAT_EXT
                value = _f64(data, pos + 1)[0]
                pos += 9
            elif tag == 116:  # MAP_EXT
                n = _u32(data, pos + 1)[0]
                pos += 5
                if n == 0:
                    value = FrozenMap() if frozen or (kind == 3 and not (len(items) & 1)) else {}
                else:
                    if 2 * n > dlen - pos:
                        raise _Truncated
                    push((kind, need, items, frozen, extra))
                    frozen = frozen or (kind == 3 and not (len(items) & 1))
                    kind = 3  # _MAP
                    need = 2 * n
                    items = []
                    continue
            elif tag == 118 or tag == 100 or tag == 115:  # ATOM_UTF8_EXT / ATOM_EXT / SMALL_ATOM_EXT
                if tag == 115:  # SMALL_ATOM_EXT
                    start = pos + 2
                    end = start + data[pos + 1]
                else:
                    start = pos + 3
                    end = start + _u16(data, pos + 1)[0]
                if end > dlen:
                    raise _Truncated
                raw = data[start:end]
                utf8 = tag == 118
                value = (utf8_atoms if utf8 else _latin1_atoms).get(raw)
                if value is None:
                    value = _new_atom(raw, utf8)
                pos = end
            elif tag == 110 or tag == 111:  # SMALL_BIG_EXT / LARGE_BIG_EXT
                if tag == 110:  # SMALL_BIG_EXT
                    n = data[pos + 1]
                    sign = data[pos + 2]
                    start = pos + 3
                else:
                    n = _u32(data, pos + 1)[0]
                    sign = data[pos + 5]
                    start = pos + 6
                end = start + n
                if end > dlen:
                    raise _Truncated
                value = int.from_bytes(data[start:end], "little")
                if sign:
                    value = -value
                pos = end
            elif tag == 88 or tag == 103:  # NEW_PID_EXT / PID_EXT
                value, pos = _read_pid(data, pos, dlen)
            elif tag == 90 or tag == 114:  # NEWER_REFERENCE_EXT / NEW_REFERENCE_EXT
                n = _u16(data, pos + 1)[0]
                node, p = _read_atom(data, pos + 3, dlen)
                if tag == 90:  # NEWER_REFERENCE_EXT
                    creation = _u32(data, p)[0]
                    p += 4
                else:
                    creation = data[p]
                    p += 1
                if p + 4 * n > dlen:
                    raise _Truncated
                value = Reference(node, creation, struct.unpack_from(f">{n}I", data, p))
                pos = p + 4 * n
            elif tag == 101:  # REFERENCE_EXT
                node, p = _read_atom(data, pos + 1, dlen)
                value = Reference(node, data[p + 4], (_u32(data, p)[0],))
                pos = p + 5
            elif tag == 89:  # NEW_PORT_EXT
                node, p = _read_atom(data, pos + 1, dlen)
                i, cr = _U32U32.unpack_from(data, p)
                value = Port(node, i, cr)
                pos = p + 8
            elif tag == 120:  # V4_PORT_EXT
                node, p = _read_atom(data, pos + 1, dlen)
                value = Port(node, _u64(data, p)[0], _u32(data, p + 8)[0])
                pos = p + 12
            elif tag == 102:  # PORT_EXT
                node, p = _read_atom(data, pos + 1, dlen)
                value = Port(node, _u32(data, p)[0], data[p + 4])
                pos = p + 5
            elif tag == 77:  # BIT_BINARY_EXT
                n = _u32(data, pos + 1)[0]
                bits = data[pos + 5]
                end = pos + 6 + n
                if end > dlen:
                    raise _Truncated
                chunk = data[pos + 6 : end]
                if n == 0:
                    value = b""
                elif bits == 8:
                    value = chunk
                elif 1 <= bits <= 7:
                    value = BitBinary(chunk, bits)
                else:
                    raise DecodeError(f"bit binary with {bits} bits in its last byte", pos)
                pos = end
            elif tag == 113:  # EXPORT_EXT
                module, p = _read_atom(data, pos + 1, dlen)
                function, p = _read_atom(data, p, dlen)
                if data[p] != 97:
                    raise DecodeError("export fun arity is not a small integer", p)
                value = ExportFun(module, function, data[p + 1])
                pos = p + 2
            elif tag == 112:  # NEW_FUN_EXT
                _, size, arity, uniq, index, numfree = _FUN_HEAD.unpack_from(data, pos)
                fun_end = pos + 1 + size
                module, p = _read_atom(data, pos + 30, dlen)
                old_index, p = _read_small_or_int(data, p)
                old_uniq, p = _read_small_or_int(data, p)
                pid, p = _read_pid(data, p, dlen)
                head = (module, arity, uniq, index, old_index, old_uniq, pid, fun_end)
                if numfree == 0:
                    if p != fun_end:
                        raise DecodeError("fun size field does not match its contents", pos)
                    value = LocalFun(*head[:7])
                    pos = p
                else:
                    if numfree > dlen - p:
                        raise _Truncated
                    pos = p
                    push((kind, need, items, frozen, extra))
                    frozen = frozen or (kind == 3 and not (len(items) & 1))
                    kind = 4  # _FUN
                    need = numfree
                    items = []
                    extra = head
                    continue
            elif tag == 99:  # FLOAT_EXT
                if pos + 32 > dlen:
                    raise _Truncated
                text = data[pos + 1 : pos + 32].split(b"\0", 1)[0]
                try:
                    value = float(text.decode("ascii"))
                except (UnicodeDecodeError, ValueError):
                    raise DecodeError("malformed FLOAT_EXT text", pos) from None
                if not math.isfinite(value):
                    raise DecodeError("FLOAT_EXT is not a finite number", pos)
                pos += 32
            elif tag == 82:  # ATOM_CACHE_REF
                raise DecodeError(
                    "atom cache reference found, but the atom cache is not negotiated", pos
                )
            elif tag == 80:  # COMPRESSED
                raise DecodeError("compressed term nested inside a term", pos)
            elif tag == 117:  # FUN_EXT
                raise DecodeError("old FUN_EXT (removed in OTP 23) is not supported", pos)
            else:
                raise DecodeError(f"unknown term tag {tag}", pos)

            # ---- hand the value to its container; close every container it fills --
            items.append(value)
            while len(items) == need:
                if kind == 1:  # _TUPLE
                    value = tuple(items)
                elif kind == 2:  # _LIST
                    tail = items.pop()
                    tc = tail.__class__
                    if tc is list or tc is FrozenList:
                        if tail:
                            items.extend(tail)
                        value = FrozenList(items) if frozen else items
                    elif not items:
                        value = tail
                    elif tc is ImproperList:
                        value = ImproperList(tuple(items) + tail.elements, tail.tail)
                    else:
                        value = ImproperList(tuple(items), tail)
                elif kind == 3:  # _MAP
                    value = _finish_map(items, frozen, pos)
                elif kind == 4:  # _FUN
                    if pos != extra[7]:
                        raise DecodeError("fun size field does not match its contents", pos)
                    value = LocalFun(*extra[:7], tuple(items))
                else:  # _ROOT
                    return value, pos
                kind, need, items, frozen, extra = pop()
                items.append(value)
    except _Truncated:
        raise DecodeError("term is truncated", pos) from None
    except (IndexError, struct.error):
        raise DecodeError("term is truncated", pos) from None
    except UnicodeDecodeError:
        raise DecodeError("atom is not valid UTF-8", pos) from None
    except DecodeError:
        raise
    except (ValueError, TypeError) as e:  # e.g. a malformed BitBinary or LocalFun
        raise DecodeError(f"malformed term: {e}", pos) from None


def _as_bytes(data: Any) -> bytes:
    if type(data) is bytes:
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"expected bytes, got {type(data).__name__}")


def decode_from(data: bytes, offset: int = 0) -> tuple[Any, int]:
    """Decode one versioned term (131 ...) at ``offset``; return ``(term, next_offset)``.

    Distribution frames carry the control message and the payload as two such
    terms back to back, hence the offset in and out.  Compressed terms are
    accepted.
    """
    data = _as_bytes(data)
    if offset >= len(data):
        raise DecodeError("expected a term, found the end of the data", offset)
    if data[offset] != VERSION:
        raise DecodeError(
            f"not an Erlang external term: version byte is {data[offset]}, expected 131", offset
        )
    pos = offset + 1
    if pos < len(data) and data[pos] == COMPRESSED:
        if pos + 5 > len(data):
            raise DecodeError("compressed term is truncated", pos)
        size = _u32(data, pos + 1)[0]
        d = zlib.decompressobj()
        try:
            body = d.decompress(data[pos + 5 :], size + 1)
        except zlib.error as e:
            raise DecodeError(f"compressed term is corrupt ({e})", pos) from None
        if len(body) != size or not d.eof:
            raise DecodeError("compressed term does not match its declared size", pos)
        term, used = _decode_term(body, 0)
        if used != size:
            raise DecodeError("compressed term has trailing bytes", pos + 5)
        return term, len(data) - len(d.unused_data)
    return _decode_term(data, pos)


def decode(data: bytes) -> Any:
    """``binary_to_term``: decode a complete external term; trailing bytes are an error."""
    data = _as_bytes(data)
    term, end = decode_from(data, 0)
    if end != len(data):
        raise DecodeError(f"{len(data) - end} unexpected bytes after the term", end)
    return term


def decode_body(data: bytes, offset: int = 0) -> Any:
    """Decode a term without version byte that fills ``data`` from ``offset`` to the end."""
    data = _as_bytes(data)
    term, end = _decode_term(data, offset)
    if end != len(data):
        raise DecodeError(f"{len(data) - end} unexpected bytes after the term", end)
    return term
