"""Python values to the Erlang external term format (``term_to_binary``).

The loop, the choices it makes and why it is iterative are described in
:mod:`beamtalk_ws.dist.codec`, which re-exports :func:`encode` and
:func:`encode_body`.
"""

from __future__ import annotations

import math
import struct
import zlib
from typing import Any

from .etf import *  # noqa: F401,F403 - the tag numbers and precompiled structs
from .etf import _FUN_HEAD, _MAX_ATOM_CACHE, _TAG_F64, _TAG_I32, _TAG_U16, _TAG_U32, _TAG_U32_B, _U32, _U32U32, _U32U32U32, _U64
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

__all__ = ["encode", "encode_body"]


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
    tuple3 = tuple_heads[3]
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
            if n == 3:
                # `{var, Line, 'X'}`, `{atom, Line, x}`, `{integer, Line, 3}`:
                # half the tuples of the abstract forms every input ships
                a, b, x = t
                if a.__class__ is Atom and b.__class__ is int and 0 <= b < 256:
                    ab = atom_cache.get(a)
                    if ab is not None:
                        xc = x.__class__
                        if xc is Atom:
                            xb = atom_cache.get(x)
                            if xb is not None:
                                buf += tuple3
                                buf += ab
                                buf += small_ints[b]
                                buf += xb
                                continue
                        elif xc is int and 0 <= x < 256:
                            buf += tuple3
                            buf += ab
                            buf += small_ints[b]
                            buf += small_ints[x]
                            continue
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
