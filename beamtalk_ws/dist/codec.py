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

Limits, because the bytes come from a node that runs user code and decoding
must neither crash the client nor let one message eat its memory:

* A map key may nest containers at most :data:`MAX_KEY_DEPTH` (100) deep.
  Keys must be hashed and compared by Python, which recurses (on the C stack
  for tuples: a 150 000-deep tuple key overflowed it and killed the process);
  a deeper key raises :class:`DecodeError`.  Values may nest without limit.
* A term may be at most ``max_size`` bytes of external format once
  decompressed: :data:`DEFAULT_MAX_TERM_BYTES` (64 MiB), or
  ``$BEAMTALK_MAX_TERM_BYTES``, or :func:`set_max_size`.  A compressed term's
  declared size is checked *before* inflating, and inflation stops at the
  declared size, so a small message cannot expand to gigabytes.  Python
  objects take more memory than their bytes (a list of empty lists about 50
  times more), so the cap bounds the work, not the exact memory.
* Every malformed input raises :class:`DecodeError`, never another exception.
"""

from __future__ import annotations

import math
import os
import struct
import zlib
from typing import Any

from .encoder import encode, encode_body
from .errors import DecodeError
from .etf import *  # noqa: F401,F403 - the tag numbers, re-exported as before
from .etf import _FUN_HEAD, _MAX_ATOM_CACHE, _U32U32, _U32U32U32, _f64, _i32, _u16, _u32, _u64
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
    "MAX_KEY_DEPTH",
    "DEFAULT_MAX_TERM_BYTES",
    "max_size",
    "set_max_size",
    "encode",
    "encode_body",
    "decode",
    "decode_body",
    "decode_from",
]



#: How deep containers may nest inside one map key (see the module docstring).
MAX_KEY_DEPTH = 100
_KEY_TOO_DEEP = f"map key nests deeper than {MAX_KEY_DEPTH} levels (the decoder's limit for keys)"

#: The default cap on one decoded term, in bytes of external format.
DEFAULT_MAX_TERM_BYTES = 64 << 20
_INFLATE_CHUNK = 1 << 20


def _env_max_size() -> int:
    raw = os.environ.get("BEAMTALK_MAX_TERM_BYTES", "")
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_TERM_BYTES
    return value if value > 0 else DEFAULT_MAX_TERM_BYTES


_max_size = _env_max_size()


def max_size() -> int:
    """The current cap on a decoded term, in bytes (after decompression)."""
    return _max_size


def set_max_size(n: int | None) -> None:
    """Set the cap on decoded terms (None: back to the environment's or the default)."""
    global _max_size
    if n is not None and (type(n) is not int or n <= 0):
        raise ValueError("the term size cap must be a positive number of bytes")
    _max_size = _env_max_size() if n is None else n


def _check_size(n: int, limit: int | None, what: str, pos: int) -> None:
    cap = _max_size if limit is None else limit
    if n > cap:
        raise DecodeError(
            f"{what} of {n} bytes exceeds the limit of {cap} bytes "
            "(set BEAMTALK_MAX_TERM_BYTES to allow more)",
            pos,
        )


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
    frozen = 0  # 0 outside map keys, else how deep inside one we are
    extra: Any = None
    key_depth = MAX_KEY_DEPTH
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
                    if frozen:
                        frozen += 1
                        if frozen > key_depth:
                            raise DecodeError(_KEY_TOO_DEEP, pos)
                    elif kind == 3 and not (len(items) & 1):
                        frozen = 1
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
                if kind == 2 and len(items) == need - 1:
                    # A list in the tail slot of a list is the rest of that
                    # list ([1 | [2 | ...]]): grow the open list instead of
                    # nesting, so a long chain costs neither depth nor copies.
                    need += n
                    continue
                push((kind, need, items, frozen, extra))
                if frozen:
                    frozen += 1
                    if frozen > key_depth:
                        raise DecodeError(_KEY_TOO_DEEP, pos)
                elif kind == 3 and not (len(items) & 1):
                    frozen = 1
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
                    if frozen:
                        frozen += 1
                        if frozen > key_depth:
                            raise DecodeError(_KEY_TOO_DEEP, pos)
                    elif kind == 3 and not (len(items) & 1):
                        frozen = 1
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
                    if frozen:
                        frozen += 1
                        if frozen > key_depth:
                            raise DecodeError(_KEY_TOO_DEEP, pos)
                    elif kind == 3 and not (len(items) & 1):
                        frozen = 1
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


def decode_from(data: bytes, offset: int = 0, max_size: int | None = None) -> tuple[Any, int]:
    """Decode one versioned term (131 ...) at ``offset``; return ``(term, next_offset)``.

    Distribution frames carry the control message and the payload as two such
    terms back to back, hence the offset in and out.  Compressed terms are
    accepted.  ``max_size`` overrides the size cap (:func:`max_size`) for
    this call; here it bounds what a compressed term may inflate to (the
    caller bounds the buffer itself, as the connection does for frames).
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
        _check_size(size, max_size, "compressed term declares an uncompressed size", pos)
        body, end = _inflate(data, pos, size)
        term, used = _decode_term(body, 0)
        if used != size:
            raise DecodeError("compressed term has trailing bytes", pos + 5)
        return term, end
    # Uncompressed: the bytes are already here; whoever filled the buffer bounds
    # it (decode() checks its whole input, the connection the frame length).
    return _decode_term(data, pos)


def _inflate(data: bytes, pos: int, size: int) -> tuple[bytes, int]:
    """The ``size`` bytes a COMPRESSED term at ``pos`` declares, and the offset after it.

    Inflated a chunk at a time with a bound on each step, so a stream that
    would expand beyond its declared size is stopped there, not allocated.
    """
    d = zlib.decompressobj()
    out = bytearray()
    pending = memoryview(data)[pos + 5 :]
    try:
        while not d.eof and len(out) <= size:
            step = min(_INFLATE_CHUNK, size + 1 - len(out))
            chunk = d.decompress(pending, step)
            out += chunk
            pending = d.unconsumed_tail
            if not chunk and not pending:
                break  # input exhausted before the end of the stream
    except zlib.error as e:
        raise DecodeError(f"compressed term is corrupt ({e})", pos) from None
    if len(out) != size or not d.eof:
        raise DecodeError("compressed term does not match its declared size", pos)
    return bytes(out), len(data) - len(d.unused_data)


def decode(data: bytes, max_size: int | None = None) -> Any:
    """``binary_to_term``: decode a complete external term; trailing bytes are an error."""
    data = _as_bytes(data)
    _check_size(len(data) - 1, max_size, "term", 1)
    term, end = decode_from(data, 0, max_size)
    if end != len(data):
        raise DecodeError(f"{len(data) - end} unexpected bytes after the term", end)
    return term


def decode_body(data: bytes, offset: int = 0, max_size: int | None = None) -> Any:
    """Decode a term without version byte that fills ``data`` from ``offset`` to the end."""
    data = _as_bytes(data)
    _check_size(len(data) - offset, max_size, "term", offset)
    term, end = _decode_term(data, offset)
    if end != len(data):
        raise DecodeError(f"{len(data) - end} unexpected bytes after the term", end)
    return term
