"""Constants of the Erlang external term format shared by the encoder and the decoder."""

from __future__ import annotations

import struct

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
