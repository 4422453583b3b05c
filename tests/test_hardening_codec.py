"""Issue 15, item 3: the term decoder against hostile input.

Terms come from a node that runs user code, so a term built to hurt the
client must end in the codec's own DecodeError: no C stack overflow (deep map
keys are hashed by Python), no RecursionError, no multi-gigabyte inflation of
a small compressed message.  The fuzz tests have fixed budgets (example
counts) so they take a few seconds.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beamtalk_ws.dist import DecodeError, decode, decode_from, encode
from beamtalk_ws.dist.codec import DEFAULT_MAX_TERM_BYTES, MAX_KEY_DEPTH, max_size, set_max_size
from dist_helpers import erl_terms, same_term

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def _deep_tuple_key_map(depth: int) -> bytes:
    """`#{ {{{...{}...}}} => 1 }` with the key `depth` tuples deep, built as bytes."""
    key = bytes([104, 1]) * depth + bytes([104, 0])
    return bytes([131, 116, 0, 0, 0, 1]) + key + bytes([97, 1])


def test_150k_deep_tuple_key_is_an_error_not_a_crash():
    # In a child process: on the old codec this overflowed the C stack in
    # hash() and the process died of SIGSEGV with no message.
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from beamtalk_ws.dist import decode, DecodeError
        key = bytes([104, 1]) * 150_000 + bytes([104, 0])
        try:
            decode(bytes([131, 116, 0, 0, 0, 1]) + key + bytes([97, 1]))
        except DecodeError as e:
            print("DecodeError:", e)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=str(ROOT))
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert "DecodeError: map key nests deeper than 100 levels" in proc.stdout


def test_two_equal_deep_keys_are_the_codecs_error_not_recursion_error():
    key = bytes([104, 1]) * 1000 + bytes([104, 0])
    data = bytes([131, 116, 0, 0, 0, 2]) + key + bytes([97, 1]) + key + bytes([97, 2])
    with pytest.raises(DecodeError, match="deeper than"):
        decode(data)


def test_keys_up_to_the_limit_decode_and_values_nest_freely():
    ok = decode(_deep_tuple_key_map(MAX_KEY_DEPTH))
    (k,) = ok
    assert ok[k] == 1
    with pytest.raises(DecodeError):
        decode(_deep_tuple_key_map(MAX_KEY_DEPTH + 1))
    deep_value = bytes([131, 116, 0, 0, 0, 1, 97, 1]) + bytes([104, 1]) * 200_000 + bytes([104, 0])
    assert decode(deep_value)[1] is not None


def _compressed(declared: int, stream: bytes) -> bytes:
    return bytes([131, 80]) + declared.to_bytes(4, "big") + stream


def _zeros_stream(n: int) -> bytes:
    """A zlib stream of a BINARY_EXT of `n` zero bytes, compressed a chunk at a time."""
    z = zlib.compressobj(9)
    parts = [z.compress(bytes([109]) + n.to_bytes(4, "big"))]
    chunk = bytes(1 << 20)
    left = n
    while left:
        step = min(left, len(chunk))
        parts.append(z.compress(chunk[:step]))
        left -= step
    parts.append(z.flush())
    return b"".join(parts)


def test_small_compressed_message_declaring_256_mb_is_refused_before_inflating():
    size = 256 << 20
    stream = _zeros_stream(size - 5)      # ~261 KB that inflates to 256 MB
    assert len(stream) < 300_000
    with pytest.raises(DecodeError, match=r"declares an uncompressed size of 268435456 bytes exceeds "
                                          r"the limit of 67108864 bytes"):
        decode(_compressed(size, stream))


def test_4_gib_declaration_is_refused_not_a_memory_error():
    stream = zlib.compress(bytes([109, 0, 0, 0, 3]) + b"abc") + bytes(4 << 20)
    with pytest.raises(DecodeError, match="exceeds the limit"):
        decode(_compressed(0xFFFFFFFF, stream))


def test_stream_longer_than_its_declaration_stops_at_the_declaration():
    stream = _zeros_stream(8 << 20)
    with pytest.raises(DecodeError, match="does not match its declared size"):
        decode(_compressed(1000, stream))


def test_size_cap_is_configurable_and_applies_to_plain_terms_too():
    assert max_size() == DEFAULT_MAX_TERM_BYTES
    data = encode(b"x" * 5000, compressed=True)
    assert decode(data) == b"x" * 5000
    with pytest.raises(DecodeError, match="exceeds the limit of 1000 bytes"):
        decode(data, max_size=1000)
    with pytest.raises(DecodeError, match="exceeds the limit of 1000 bytes"):
        decode(encode(b"y" * 5000), max_size=1000)
    set_max_size(2000)
    try:
        with pytest.raises(DecodeError, match="BEAMTALK_MAX_TERM_BYTES"):
            decode(data)
    finally:
        set_max_size(None)
    assert decode(data) == b"x" * 5000
    with pytest.raises(ValueError):
        set_max_size(0)


def test_env_var_sets_the_default_cap():
    code = ("from beamtalk_ws.dist.codec import max_size, decode, encode\n"
            "print(max_size())\n"
            "try:\n    decode(encode(b'x' * 100))\nexcept ValueError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(ROOT),
                         env={"BEAMTALK_MAX_TERM_BYTES": "50", "PATH": "/usr/bin:/bin"}).stdout
    assert out.splitlines()[0] == "50"
    assert "exceeds the limit of 50 bytes" in out


def test_list_chained_through_tails_decodes_flat():
    # [0 | [1 | [2 | ... []]]]: each element in its own LIST_EXT.  Such a chain
    # used to copy the list built so far at every level (quadratic).
    n = 200_000
    body = b"".join(bytes([108, 0, 0, 0, 1, 97, i & 0xFF]) for i in range(n)) + bytes([106])
    out = decode(bytes([131]) + body)
    assert len(out) == n and out[:3] == [0, 1, 2] and out[-1] == (n - 1) & 0xFF
    improper = bytes([131, 108, 0, 0, 0, 1, 97, 1, 108, 0, 0, 0, 1, 97, 2, 100, 0, 1]) + b"t"
    assert str(decode(improper)) == "ImproperList(elements=(1, 2), tail=Atom('t'))"


# ---------------------------------------------------------------------------
# Fuzzing: fixed budgets.

_TAGS = [70, 77, 80, 82, 88, 89, 90, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109,
         110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120]

# Bytes that look like terms: mostly tags and small numbers, so the fuzzer
# reaches deep into the decoder instead of failing at the first byte.
_termish = st.lists(st.one_of(st.sampled_from(_TAGS), st.integers(0, 4), st.integers(0, 255)),
                    max_size=60).map(bytes)


def _must_decode_or_refuse(data: bytes) -> None:
    try:
        decode(data)
    except DecodeError:
        pass


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_termish)
def test_fuzz_termish_bytes(body):
    _must_decode_or_refuse(b"\x83" + body)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(erl_terms(max_leaves=12), st.data())
def test_fuzz_mutated_encodings(term, data):
    """A valid encoding with a few bytes flipped, cut or inserted: decoded or refused."""
    raw = bytearray(encode(term, compressed=data.draw(st.booleans())))
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert", "truncate"]))
        i = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if op == "flip" and raw:
            raw[i] = data.draw(st.integers(0, 255))
        elif op == "cut" and raw:
            del raw[i]
        elif op == "insert":
            raw.insert(i, data.draw(st.sampled_from(_TAGS + [0, 1, 255])))
        else:
            del raw[i:]
    _must_decode_or_refuse(bytes(raw))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(erl_terms(max_leaves=12))
def test_fuzz_round_trip(term):
    data = encode(term)
    out, end = decode_from(data + b"\x83\x6a", 0)
    assert same_term(out, term) and end == len(data)
    assert same_term(decode(encode(term, compressed=True)), term)



async def test_an_eval_reply_over_the_cap_is_an_error_not_a_hang(repl):
    """A reply the client cannot decode (over the size cap) ends the request
    with a message saying so, instead of leaving it waiting for ever; the
    session keeps working afterwards."""
    import asyncio

    from beamtalk_ws.workspace.errors import WorkspaceError

    old = max_size()
    set_max_size(64 * 1024)
    try:
        try:
            # Results are cut at about 100 kB of text (issue 17), after the
            # element that passes it: one 1.2 MB element makes a reply over the
            # cap plus the frame's 1 MB of room.
            out = await asyncio.wait_for(repl.evaluate('(1 to: 3) collect: [:i | "x" repeat: 1200000]'), 60)
            text = out.text
            assert not out.ok
        except WorkspaceError as e:
            text = str(e)
    finally:
        set_max_size(old)
    assert "reply could not be received" in text
    assert "BEAMTALK_MAX_TERM_BYTES" in text
    out = await asyncio.wait_for(repl.evaluate("1 + 1"), 30)
    assert out.text == "2"
