"""Unit tests of the external term format codec (no node needed).

Expected byte strings were produced by ``term_to_binary(T, [{minor_version, 2}])``
on OTP 25 (the encoding a node uses over distribution) and pasted here.
"""

from __future__ import annotations

import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beamtalk_ws.dist import (
    Atom,
    BitBinary,
    DecodeError,
    ExportFun,
    FrozenList,
    FrozenMap,
    ImproperList,
    LocalFun,
    Pid,
    Port,
    Reference,
    decode,
    decode_body,
    decode_from,
    encode,
    encode_body,
    erl_repr,
)
from beamtalk_ws.dist.codec import MAX_KEY_DEPTH
from dist_helpers import erl_terms, same_term

B = bytes

# (Python term, exact bytes from term_to_binary on OTP 25)
EXACT = [
    (Atom("foo"), B([131, 119, 3, 102, 111, 111])),
    (True, B([131, 119, 4, 116, 114, 117, 101])),
    (False, B([131, 119, 5, 102, 97, 108, 115, 101])),
    (Atom("héllo"), B([131, 119, 6, 104, 195, 169, 108, 108, 111])),
    (Atom("\U0001F600"), B([131, 119, 4, 240, 159, 152, 128])),
    (Atom(""), B([131, 119, 0])),
    (42, B([131, 97, 42])),
    (0, B([131, 97, 0])),
    (256, B([131, 98, 0, 0, 1, 0])),
    (-1, B([131, 98, 255, 255, 255, 255])),
    (2147483647, B([131, 98, 127, 255, 255, 255])),
    (-2147483648, B([131, 98, 128, 0, 0, 0])),
    (2147483648, B([131, 110, 4, 0, 0, 0, 0, 128])),
    (-2147483649, B([131, 110, 4, 1, 1, 0, 0, 128])),
    (1 << 100, B([131, 110, 13, 0] + [0] * 12 + [16])),
    (-(1 << 100), B([131, 110, 13, 1] + [0] * 12 + [16])),
    (1.5, B([131, 70, 63, 248, 0, 0, 0, 0, 0, 0])),
    (-0.1, B([131, 70, 191, 185, 153, 153, 153, 153, 153, 154])),
    (1.0e300, B([131, 70, 126, 55, 228, 60, 136, 0, 117, 156])),
    (b"\x01\x02\x03", B([131, 109, 0, 0, 0, 3, 1, 2, 3])),
    (b"", B([131, 109, 0, 0, 0, 0])),
    (BitBinary(b"\x20", 3), B([131, 77, 0, 0, 0, 1, 3, 32])),
    (BitBinary(b"\xff\x28", 5), B([131, 77, 0, 0, 0, 2, 5, 255, 40])),
    ([], B([131, 106])),
    ([97, 98, 99], B([131, 107, 0, 3, 97, 98, 99])),
    ([256], B([131, 108, 0, 0, 0, 1, 98, 0, 0, 1, 0, 106])),
    ([Atom("a"), 1], B([131, 108, 0, 0, 0, 2, 119, 1, 97, 97, 1, 106])),
    (ImproperList((1, 2), Atom("c")), B([131, 108, 0, 0, 0, 2, 97, 1, 97, 2, 119, 1, 99])),
    ((), B([131, 104, 0])),
    ((Atom("a"), 1), B([131, 104, 2, 119, 1, 97, 97, 1])),
    ({}, B([131, 116, 0, 0, 0, 0])),
    ({Atom("a"): 1, Atom("b"): b"x"},
     B([131, 116, 0, 0, 0, 2, 119, 1, 97, 97, 1, 119, 1, 98, 109, 0, 0, 0, 1, 120])),
    ({FrozenList([1, 2]): Atom("a")}, B([131, 116, 0, 0, 0, 1, 107, 0, 2, 1, 2, 119, 1, 97])),
    (([(Atom("a"), [b"b"])], {Atom("k"): ()}),
     B([131, 104, 2, 108, 0, 0, 0, 1, 104, 2, 119, 1, 97, 108, 0, 0, 0, 1, 109, 0, 0, 0, 1, 98,
        106, 106, 116, 0, 0, 0, 1, 119, 1, 107, 104, 0])),
    (ExportFun(Atom("lists"), Atom("reverse"), 1),
     B([131, 113, 119, 5, 108, 105, 115, 116, 115, 119, 7, 114, 101, 118, 101, 114, 115, 101, 97, 1])),
    (Pid(Atom("nonode@nohost"), 85, 3, 0),
     B([131, 88, 119, 13, 110, 111, 110, 111, 100, 101, 64, 110, 111, 104, 111, 115, 116,
        0, 0, 0, 85, 0, 0, 0, 3, 0, 0, 0, 0])),
    (Port(Atom("probe_x@vm"), 8, 0x6B0759D6),
     B([131, 89, 119, 10, 112, 114, 111, 98, 101, 95, 120, 64, 118, 109, 0, 0, 0, 8, 107, 7, 89, 214])),
    (Reference(Atom("probe_x@vm"), 0x6B0759D6, (2962, 657981442, 1991937566)),
     B([131, 90, 0, 3, 119, 10, 112, 114, 111, 98, 101, 95, 120, 64, 118, 109, 107, 7, 89, 214,
        0, 0, 11, 146, 39, 56, 0, 2, 118, 186, 142, 30])),
]

# fun(Y) -> {X + Y, Z} end with X = 42, Z = [a, <<"b">>], made by r:mk/2 on a non-distributed node.
LOCAL_FUN_BYTES = B([
    131, 112, 0, 0, 0, 84, 1, 198, 10, 82, 20, 216, 88, 154, 1, 62, 165, 187, 17, 8, 199, 5, 77,
    0, 0, 0, 0, 0, 0, 0, 2, 119, 1, 114, 97, 0, 98, 6, 48, 82, 144, 88, 119, 13, 110, 111, 110,
    111, 100, 101, 64, 110, 111, 104, 111, 115, 116, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 97, 42,
    108, 0, 0, 0, 2, 119, 1, 97, 109, 0, 0, 0, 1, 98, 106,
])


def _ids(x):
    return erl_repr(x)[:40]


@pytest.mark.parametrize("term,expected", EXACT, ids=[_ids(t) for t, _ in EXACT])
def test_encoding_matches_the_beam_byte_for_byte(term, expected):
    assert encode(term) == expected
    assert same_term(decode(expected), term)


def test_long_utf8_atom_uses_two_byte_length():
    # list_to_atom(lists:duplicate(255, $é)): 255 characters, 510 bytes.
    expected = B([131, 118, 1, 254]) + "é".encode() * 255
    assert encode(Atom("é" * 255)) == expected
    assert decode(expected) == Atom("é" * 255)
    with pytest.raises(ValueError, match="255"):
        encode(Atom("x" * 256))


def test_large_big_and_large_tuple():
    big = 1 << 2048  # 257 digit bytes: LARGE_BIG_EXT
    big_bytes = B([131, 111, 0, 0, 1, 1, 0]) + bytes(256) + b"\x01"
    assert encode(big) == big_bytes
    assert decode(big_bytes) == big
    assert decode(encode(-big)) == -big
    tup = tuple(range(1, 301))
    tb = B([131, 105, 0, 0, 1, 44]) + b"".join(
        bytes((97, i)) if i < 256 else struct.pack(">Bi", 98, i) for i in tup
    )
    assert encode(tup) == tb
    assert decode(tb) == tup


def test_local_fun_round_trips_byte_exactly():
    f = decode(LOCAL_FUN_BYTES)
    assert isinstance(f, LocalFun)
    assert f.module == Atom("r") and f.arity == 1 and f.index == 0
    assert f.old_index == 0 and f.old_uniq == 0x06305290
    assert f.pid == Pid(Atom("nonode@nohost"), 9, 0, 0)
    assert same_term(f.free_vars, (42, [Atom("a"), b"b"]))
    assert encode(f) == LOCAL_FUN_BYTES
    # no free variables: fun() -> ok end
    g = B([131, 112, 0, 0, 0, 67, 0, 198, 10, 82, 20, 216, 88, 154, 1, 62, 165, 187, 17, 8, 199, 5,
           77, 0, 0, 0, 1, 0, 0, 0, 0, 119, 1, 114, 97, 1, 98, 6, 48, 82, 144, 88, 119, 13, 110,
           111, 110, 111, 100, 101, 64, 110, 111, 104, 111, 115, 116, 0, 0, 0, 9, 0, 0, 0, 0, 0,
           0, 0, 0])
    fg = decode(g)
    assert fg.free_vars == () and fg.arity == 0
    assert encode(fg) == g


def test_old_formats_decode():
    # term_to_binary/1 without minor_version 2 uses Latin-1 ATOM_EXT.
    assert decode(B([131, 100, 0, 3, 102, 111, 111])) == Atom("foo")
    assert decode(B([131, 100, 0, 1, 233])) == Atom("é")
    assert decode(B([131, 115, 1, 233])) == Atom("é")  # SMALL_ATOM_EXT
    assert decode(B([131, 118, 0, 2, 195, 169])) == Atom("é")  # ATOM_UTF8_EXT
    assert decode(B([131, 100, 0, 4]) + b"true") is True
    # FLOAT_EXT: term_to_binary(1.5, [{minor_version, 0}])
    old_float = B([131, 99]) + b"1.50000000000000000000e+00" + bytes(5)
    assert decode(old_float) == 1.5
    # PID_EXT / REFERENCE_EXT / NEW_REFERENCE_EXT / PORT_EXT (what OTP < 23 sent)
    assert decode(B([131, 103, 100, 0, 1, 97, 0, 0, 0, 1, 0, 0, 0, 2, 3])) == Pid(Atom("a"), 1, 2, 3)
    assert decode(B([131, 101, 100, 0, 1, 97, 0, 0, 0, 1, 3])) == Reference(Atom("a"), 3, (1,))
    assert decode(B([131, 114, 0, 3, 100, 0, 1, 97, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3])) == \
        Reference(Atom("a"), 2, (1, 2, 3))
    assert decode(B([131, 102, 100, 0, 1, 97, 0, 0, 0, 7, 1])) == Port(Atom("a"), 7, 1)
    # ...and are re-encoded in the OTP 23+ forms (as the BEAM re-encodes them).
    assert encode(decode(B([131, 102, 100, 0, 1, 97, 0, 0, 0, 7, 1]))) == \
        B([131, 89, 119, 1, 97, 0, 0, 0, 7, 0, 0, 0, 1])
    assert encode(Reference(Atom("a"), 3, (1,))) == \
        B([131, 90, 0, 1, 119, 1, 97, 0, 0, 0, 3, 0, 0, 0, 1])


def test_v4_port_for_large_ids():
    p = Port(Atom("n@h"), 1 << 40, 5)
    b = encode(p)
    assert b[1] == 120  # V4_PORT_EXT
    assert decode(b) == p
    assert encode(Port(Atom("n@h"), (1 << 28) - 1, 5))[1] == 89  # NEW_PORT_EXT


def test_python_specific_mappings():
    # bool is checked before int; None is refused; str is a UTF-8 binary.
    assert encode(True) != encode(1)
    assert decode(encode([True, 1, False, 0])) == [True, 1, False, 0]
    assert [type(x) for x in decode(encode([True, 1]))] == [bool, int]
    with pytest.raises(TypeError, match="None"):
        encode(None)
    with pytest.raises(TypeError, match="None"):
        encode([1, {Atom("a"): None}])
    assert encode("héllo") == encode("héllo".encode())
    assert decode(encode("héllo")) == "héllo".encode()
    # bytes never become a list, lists of bytes never become binaries
    assert decode(encode(b"abc")) == b"abc"
    assert decode(encode([97, 98, 99])) == [97, 98, 99]
    with pytest.raises(TypeError, match="object"):
        encode(object())
    with pytest.raises(ValueError, match="finite"):
        encode(float("nan"))
    with pytest.raises(ValueError, match="finite"):
        encode([float("inf")])
    # other containers are accepted by value
    assert decode(encode(bytearray(b"xy"))) == b"xy"
    assert encode(FrozenList([1, 2])) == encode([1, 2])
    assert encode(FrozenMap({1: 2})) == encode({1: 2})


def test_atoms_true_and_false_are_the_booleans():
    assert encode(Atom("true")) == encode(True)
    assert encode(Atom("false")) == encode(False)
    assert decode(encode(Atom("true"))) is True
    # where the format demands an atom (a node name) it stays an Atom
    assert decode(encode(Pid(Atom("true"), 1, 2, 3))).node == Atom("true")


def test_string_ext_limits():
    assert encode([7] * 65535)[1] == 107  # STRING_EXT
    long = encode([7] * 65536)
    assert long[1] == 108  # LIST_EXT: STRING_EXT length is 16 bits
    assert decode(long) == [7] * 65536
    assert encode([1, True])[1] == 108  # a bool is an atom, not a byte
    assert encode([1, 256])[1] == 108
    assert encode([1, -1])[1] == 108
    assert encode([1, 2.0])[1] == 108


def test_atom_type():
    a = Atom("ok")
    assert repr(a) == "Atom('ok')"
    assert a is Atom("ok")  # interned
    assert a == Atom("ok") and a != "ok" and "ok" != a
    assert hash(a) == hash("ok")
    assert {a: 1, "ok": 2} == {Atom("ok"): 1, "ok": 2}
    assert isinstance(a, str) and a.upper() == "OK"


def test_bit_binary():
    assert BitBinary(b"\xff", 3) == BitBinary(b"\xe0", 3)  # unused bits are cleared
    assert BitBinary(b"\xff\x01", 1).bit_size == 9
    assert decode(B([131, 77, 0, 0, 0, 1, 3, 255])) == BitBinary(b"\xe0", 3)
    assert decode(B([131, 77, 0, 0, 0, 1, 8, 5])) == b"\x05"  # whole bytes are a binary
    assert decode(B([131, 77, 0, 0, 0, 0, 0])) == b""
    with pytest.raises(ValueError):
        BitBinary(b"\x01", 8)
    with pytest.raises(ValueError):
        BitBinary(b"", 3)


def test_improper_lists():
    with pytest.raises(ValueError):
        ImproperList((), Atom("t"))
    with pytest.raises(ValueError):
        ImproperList((1,), [2])
    # A list whose tail is another list on the wire is just a longer list.
    nested_tail = B([131, 108, 0, 0, 0, 1, 97, 1, 108, 0, 0, 0, 1, 97, 2, 119, 1, 116])
    assert decode(nested_tail) == ImproperList((1, 2), Atom("t"))
    assert decode(B([131, 108, 0, 0, 0, 1, 97, 1, 107, 0, 2, 2, 3])) == [1, 2, 3]
    assert decode(B([131, 108, 0, 0, 0, 0, 97, 5])) == 5  # [|5] is just 5


def test_map_keys_are_frozen_recursively():
    # #{[1] => #{a => [2]}, {[3]} => 4}
    data = B([131, 116, 0, 0, 0, 2, 104, 1, 107, 0, 1, 3, 97, 4, 107, 0, 1, 1, 116, 0, 0, 0, 1,
              119, 1, 97, 107, 0, 1, 2])
    m = decode(data)
    assert same_term(m, {(FrozenList([3]),): 4, FrozenList([1]): {Atom("a"): [2]}})
    assert encode(m) == data  # key order kept: re-encodes identically
    deep_key = {FrozenMap({FrozenList([FrozenMap({1: FrozenList([])})]): (FrozenList([2]),)}): 1}
    out = decode(encode(deep_key))
    assert same_term(out, deep_key)
    (k,) = out
    assert isinstance(k, FrozenMap)
    assert FrozenList([1]) != (1,) and hash(FrozenMap({1: 2})) == hash(FrozenMap({1: 2}))
    # values stay mutable Python containers
    v = decode(encode({Atom("k"): [[1], {2: 3}]}))[Atom("k")]
    assert type(v) is list and type(v[0]) is list and type(v[1]) is dict


def test_map_whose_keys_collide_in_python_is_an_error():
    # #{1 => a, 1.0 => b}: two keys in Erlang, one in Python.
    data = B([131, 116, 0, 0, 0, 2, 97, 1, 100, 0, 1, 97, 70, 63, 240, 0, 0, 0, 0, 0, 0, 100, 0, 1, 98])
    with pytest.raises(DecodeError, match="equal in Python"):
        decode(data)


def test_compressed():
    # term_to_binary(lists:duplicate(100, 7), [compressed])
    data = B([131, 80, 0, 0, 0, 103, 120, 156, 203, 102, 72, 97, 167, 3, 0, 0, 220, 254, 3, 140])
    assert decode(data) == [7] * 100
    term = {Atom("k"): [b"abc" * 100, (1, 2.5)] * 20}
    packed = encode(term, compressed=True)
    assert packed[1] == 80 and len(packed) < len(encode(term))
    assert same_term(decode(packed), term)
    assert encode(Atom("x"), compressed=True) == encode(Atom("x"))  # not worth compressing
    t2, off = decode_from(packed + encode(1), 0)
    assert same_term(t2, term) and decode_from(packed + encode(1), off) == (1, len(packed) + 3)
    bad = data[:-3] + b"\0\0\0"
    with pytest.raises(DecodeError):
        decode(bad)
    with pytest.raises(DecodeError, match="size"):
        decode(B([131, 80, 0, 0, 0, 50]) + zlib.compress(B([107, 0, 3, 1, 2, 3])))


def test_two_terms_back_to_back_and_bodies():
    ctrl = (2, Atom(""), Pid(Atom("n@h"), 1, 0, 1))
    msg = {Atom("x"): [1, 2]}
    frame = b"p" + encode(ctrl) + encode(msg)
    c, off = decode_from(frame, 1)
    m, end = decode_from(frame, off)
    assert c == ctrl and m == msg and end == len(frame)
    assert encode_body(msg) == encode(msg)[1:]
    assert decode_body(encode_body(msg)) == msg
    assert decode_body(b"xx" + encode_body(msg), 2) == msg


def _depth(t):
    n = 0
    while t:
        t = t[0]
        n += 1
    return n


def test_100k_deep_list_and_tuple_both_ways():
    n = 100_000
    deep_list: list = []
    for _ in range(n):
        deep_list = [deep_list]
    data = encode(deep_list)
    assert len(data) == 1 + 5 * n + 1 + n  # n LIST_EXT headers, the innermost NIL, n NIL tails
    out = decode(data)
    assert _depth(out) == n
    assert encode(out) == data

    deep_tuple: tuple = ()
    for _ in range(n):
        deep_tuple = (deep_tuple,)
    data = encode(deep_tuple)
    assert len(data) == 1 + 2 * n + 2
    out = decode(data)
    assert _depth(out) == n
    assert encode(out) == data

    deep_map: dict = {}
    for _ in range(n):
        deep_map = {Atom("k"): deep_map}
    out = decode(encode(deep_map))
    d = 0
    while out:
        out = out[Atom("k")]
        d += 1
    assert d == n

    # deep nesting inside a map key, up to the documented limit (MAX_KEY_DEPTH
    # containers): everything comes out frozen (hashable)
    levels = MAX_KEY_DEPTH // 2
    deep_key: object = FrozenList()
    for _ in range(levels):
        deep_key = (FrozenList([deep_key]),)
    data = encode({deep_key: 1})
    out = decode(data)
    assert encode(out) == data
    (k,) = out
    for _ in range(levels):
        assert type(k) is tuple and type(k[0]) is FrozenList
        k = k[0][0]
    assert k == FrozenList()
    # one level more is the codec's own error, not a crash of the hash
    with pytest.raises(DecodeError, match="map key nests deeper than"):
        decode(encode({(deep_key,): 1}))


MALFORMED = [
    (b"", "end of the data"),
    (B([130, 97, 1]), "version byte is 130"),
    (B([131]), "truncated"),
    (B([131, 97]), "truncated"),
    (B([131, 98, 0, 0]), "truncated"),
    (B([131, 109, 0, 0, 0, 5, 1, 2]), "truncated"),
    (B([131, 119, 5, 97]), "truncated"),
    (B([131, 104, 3, 97, 1]), "truncated"),
    (B([131, 108, 255, 255, 255, 255, 97, 1]), "truncated"),
    (B([131, 116, 0, 0, 0, 9]), "truncated"),
    (B([131, 200]), "unknown term tag 200"),
    (B([131, 82, 0]), "atom cache"),
    (B([131, 97, 1, 0]), "unexpected bytes after the term"),
    (B([131, 119, 2, 0xC3, 0x28]), "UTF-8"),
    (B([131, 77, 0, 0, 0, 1, 9, 0]), "bits"),
    (B([131, 117, 0, 0, 0, 0]), "FUN_EXT"),
    (B([131, 88, 97, 1]), "expected an atom"),
    (B([131, 113, 119, 1, 109, 119, 1, 102, 98, 0, 0, 0, 1]), "arity"),
    (B([131, 99]) + b"not a float" + bytes(20), "FLOAT_EXT"),
    (B([131, 104, 1, 80]), "compressed term nested"),
]


@pytest.mark.parametrize("data,message", MALFORMED, ids=[repr(m) for _, m in MALFORMED])
def test_malformed_input_raises_decode_error_with_offset(data, message):
    with pytest.raises(DecodeError, match=message) as info:
        decode(data)
    assert isinstance(info.value, ValueError)
    assert info.value.offset is not None and "offset" in str(info.value)


def test_every_truncation_of_a_rich_term_is_a_decode_error():
    term = [LocalFun(Atom("m"), 1, bytes(16), 3, 4, 5, Pid(Atom("n@h"), 1, 2, 3), (1, b"x")),
            {FrozenList([1]): ImproperList((1,), 2.5)}, BitBinary(b"\x80", 1), 1 << 90,
            Reference(Atom("n@h"), 1, (1, 2, 3)), Port(Atom("n@h"), 1 << 40, 1),
            ExportFun(Atom("m"), Atom("f"), 2), "str", (), [], {}]
    data = encode(term)
    for i in range(len(data)):
        with pytest.raises(DecodeError):
            decode(data[:i])


# hypothesis warns that the repr of the recursive strategy is large; that is all it is.
@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(erl_terms(with_local_funs=True))
def test_property_round_trip(term):
    data = encode(term)
    assert same_term(decode(data), term)
    assert encode(decode(data)) == data
    assert same_term(decode(encode(term, compressed=True)), term)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40))
def test_property_garbage_never_escapes_as_another_exception(junk):
    for data in (b"\x83" + junk, junk):
        try:
            decode(data)
        except DecodeError:
            pass


def test_erl_repr_is_erlang_like():
    assert erl_repr((Atom("badarg"), [Atom("x"), 1.5])) == "{badarg,[x,1.5]}"
    assert erl_repr(Atom("Hello world")) == "'Hello world'"
    assert erl_repr([104, 105]) == '"hi"'
    assert erl_repr(b"hi") == '<<"hi">>'
    assert erl_repr({Atom("a"): True}) == "#{a => true}"
    assert erl_repr(ImproperList((1,), Atom("t"))) == "[1|t]"
    assert erl_repr(BitBinary(b"\xff\x20", 3)) == "<<255,1:3>>"
    assert erl_repr(ExportFun(Atom("lists"), Atom("reverse"), 1)) == "fun lists:reverse/1"
    assert erl_repr(Pid(Atom("n@h"), 85, 0, 1)) == "<n@h.85.0>"
    deep: list = []
    for _ in range(100):
        deep = [deep]
    assert "..." in erl_repr(deep)
