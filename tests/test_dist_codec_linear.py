"""The term decoder does work linear in its input for every shape of list
(issue 17): nested, chained through tails, improper, mixed.  Work is counted,
not timed: the Python lines the decoder executes (a trace hook) plus the
elements it copies into improper lists, for an input and for one twice as
long; a quadratic shape would make the second count about four times the
first, a linear one about twice."""

from __future__ import annotations

import sys

import pytest

from beamtalk_ws.dist import codec
from beamtalk_ws.dist.terms import ImproperList

SMALL = 97     # SMALL_INTEGER_EXT
NIL = bytes([106])
ATOM_T = bytes([119, 1]) + b"t"


def cons(n: int) -> bytes:
    return bytes([108]) + n.to_bytes(4, "big")


def chained(n: int, tail: bytes) -> bytes:
    """[0 | [1 | [2 | ... Tail]]] with every element in its own LIST_EXT."""
    return b"".join(cons(1) + bytes([SMALL, i & 0xFF]) for i in range(n)) + tail


def nested(n: int) -> bytes:
    """[[[ ... [] ... ]]] n deep: each list holds the next as its element."""
    return cons(1) * n + NIL + NIL * n


def improper_pairs(n: int) -> bytes:
    """[[0 | t], [1 | t], ...]: a proper list of improper ones."""
    return cons(n) + b"".join(cons(1) + bytes([SMALL, i & 0xFF]) + ATOM_T for i in range(n)) + NIL


def nested_improper(n: int) -> bytes:
    """[[[ ... [x | t] ... | t] | t]: improper lists nested through their heads."""
    return (cons(1)) * n + bytes([SMALL, 1]) + ATOM_T * n


def chained_lists_of_lists(n: int) -> bytes:
    """[[0] | [[1] | ... t]]: a tail chain whose elements are lists, ending improper."""
    return b"".join(cons(1) + cons(1) + bytes([SMALL, i & 0xFF]) + NIL for i in range(n)) + ATOM_T


def string_tails(n: int) -> bytes:
    """[0 | [1 | ... "abc"]]: a chain ending in a STRING_EXT tail."""
    return chained(n, bytes([107, 0, 3]) + b"abc")


SHAPES = {
    "chained proper": lambda n: chained(n, NIL),
    "chained improper": lambda n: chained(n, ATOM_T),
    "nested": nested,
    "improper pairs": improper_pairs,
    "nested improper": nested_improper,
    "chained lists of lists": chained_lists_of_lists,
    "string tail": string_tails,
}


def work(data: bytes, monkeypatch) -> int:
    """Lines of codec.py executed while decoding `data`, plus elements copied
    into ImproperList values."""
    copied = 0

    class Counting(ImproperList):
        def __init__(self, elements, tail):
            nonlocal copied
            copied += len(elements)
            super().__init__(elements, tail)

    monkeypatch.setattr(codec, "ImproperList", Counting)
    lines = 0
    path = codec.__file__

    def tracer(frame, event, arg):
        nonlocal lines
        if frame.f_code.co_filename != path:
            return None
        if event == "line":
            lines += 1
        return tracer

    sys.settrace(tracer)
    try:
        codec.decode(bytes([131]) + data)
    finally:
        sys.settrace(None)
    return lines + copied


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_decoding_work_is_linear(shape, monkeypatch):
    make = SHAPES[shape]
    small, big = work(make(2000), monkeypatch), work(make(8000), monkeypatch)
    # linear: 4x the input, about 4x the work; quadratic would be about 16x
    assert big <= 4.5 * small, (shape, small, big)


def test_the_shapes_decode_to_what_they_say():
    assert codec.decode(bytes([131]) + chained(3, NIL)) == [0, 1, 2]
    assert codec.decode(bytes([131]) + chained(2, ATOM_T)) == ImproperList((0, 1), codec.Atom("t"))
    assert codec.decode(bytes([131]) + nested(2)) == [[[]]]
    assert codec.decode(bytes([131]) + improper_pairs(2)) == [ImproperList((0,), codec.Atom("t")),
                                                              ImproperList((1,), codec.Atom("t"))]
    inner = ImproperList((1,), codec.Atom("t"))
    assert codec.decode(bytes([131]) + nested_improper(2)) == ImproperList((inner,), codec.Atom("t"))
    assert codec.decode(bytes([131]) + chained_lists_of_lists(2)) == ImproperList(([0], [1]), codec.Atom("t"))
    assert codec.decode(bytes([131]) + string_tails(2)) == [0, 1, 97, 98, 99]
