"""Issue 15, item 1: `beamtalk repl --json` answers every request line with
exactly one reply, whatever the line holds, and keeps serving.

Against real nodes, through the real `beamtalk` command (tests/json_client.py).
The protocol fuzz test has a fixed budget (example count).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import time
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from json_client import JsonClient


def alive(c: JsonClient, rid=99):
    assert c.ask({"id": rid, "op": "eval", "code": "3 + 4"}) == {"id": rid, "value": "7"}


def test_bad_lines_each_get_one_error_and_the_client_keeps_serving(jc):
    cases = [
        (b"{not json", "Invalid JSON request"),
        (b"[1, 2]", "expected a JSON object"),
        (b'{"id": NaN, "op": "bindings"}', "NaN is not a JSON number"),
        (b'{"id": Infinity, "op": "bindings"}', "Infinity is not a JSON number"),
        (b'{"id": 1e400, "op": "bindings"}', "too large for a finite float"),
        (b'{"id": ' + b"7" * 5000 + b', "op": "bindings"}', "5000 digits is too long"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"id": {"a": 1}, "op": "bindings"}', "\"id\" must be"),
        (b'{"id": true, "op": "bindings"}', "\"id\" must be"),     # JSON true is no number
        (b'{"id": 3, "op": 5}', "\"op\" must be a string"),
        (b'{"id": 4, "op": "frobnicate"}', "Unknown operation: frobnicate"),
        (b'{"id": 5, "op": "eval", "code": "x := \\"\\ud800\\""}', "unpaired UTF-16 surrogate"),
        (b'{"id": 6, "op": "load", "path": "a\\u0000b"}', "load needs a \"path\""),
        (b"\xff\xfe{garbage", "Invalid JSON request"),
    ]
    for line, message in cases:
        jc.send_raw(line + b"\n")
        reply = jc.reply()
        assert "error" in reply and message in reply["error"], (line[:80], reply)
        assert set(reply) == {"id", "error"}
    alive(jc)


def test_a_request_that_is_not_utf8_says_so_with_its_id(jc):
    """Latin-1 bytes in `code` used to reach the parser as U+FFFD and come back as
    "Unexpected character '\ufffd'" with an ASCII-only hint, which named neither the
    cause nor the byte."""
    jc.send_raw(b'{"id": 7, "op": "eval", "code": "\\"caf\xe9\\" size"}\n')
    reply = jc.reply()
    assert reply["id"] == 7 and set(reply) == {"id", "error"}, reply
    assert "not valid UTF-8" in reply["error"] and "0xe9" in reply["error"], reply
    assert "column 39" in reply["error"], reply
    alive(jc)


def test_a_byte_order_mark_is_ignored_and_messages_read_well(jc):
    """Windows tools (PowerShell pipes) start the stream with a UTF-8 BOM; it
    used to cost the first request ("Unexpected UTF-8 BOM (decode using
    utf-8-sig)").  And a truncated line said "starting at at column"."""
    jc.send_raw(b'\xef\xbb\xbf{"id": 1, "op": "eval", "code": "3 + 4"}\r\n')
    assert jc.reply() == {"id": 1, "value": "7"}
    jc.send_raw(b'{"id": 2, "op": "eval", "co\n')
    reply = jc.reply()
    assert reply["id"] is None and "Unterminated string" in reply["error"], reply
    assert "at at" not in reply["error"] and "column 25" in reply["error"], reply
    alive(jc)


def test_deep_json_mentioning_interrupt_does_not_end_the_client(jc):
    # used to end the client at once: the interrupt fast path parsed it outside any handler
    jc.send_raw(b'{"op": "interrupt", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
    reply = jc.reply()
    assert reply["id"] is None and "nested too deeply" in reply["error"]
    alive(jc)


def test_a_lone_surrogate_in_the_code_is_refused_with_the_request_id(jc):
    # the reply had "id": null, so a tool could not tell which request failed
    jc.send_raw(b'{"id": 17, "op": "eval", "code": "x := \\"\\ud800\\""}\n')
    reply = jc.reply()
    assert reply["id"] == 17 and "unpaired UTF-16 surrogate" in reply["error"]
    alive(jc)


def test_an_echoed_id_with_a_lone_surrogate_is_still_valid_json(jc):
    jc.send_raw(b'{"id": "a\\udc80b", "op": "bindings"}\n')
    reply = jc.reply()
    assert reply["id"] == "a\udc80b" and "bindings" in reply


def test_a_line_over_64_mib_is_skipped_with_an_error(jc):
    # used to end the client at once (asyncio's readline limit raised in the read loop)
    line = b'{"id": 1, "op": "eval", "code": "' + b"x" * (65 << 20) + b'"}\n'
    jc.send_raw(line + json.dumps({"id": 2, "op": "eval", "code": "3 + 4"}).encode() + b"\n")
    first = jc.reply()
    assert first["id"] is None and "Request line too long" in first["error"]
    assert str(64 * 1024 * 1024) in first["error"]
    assert jc.reply() == {"id": 2, "value": "7"}


async def test_an_internal_error_is_an_error_reply_and_the_next_request_works(repl):
    """A failure inside the compiler (here: made to raise) used to kill the
    worker, and every later request went unanswered."""
    from beamtalk_ws.repl.json_mode import JsonRepl

    out = io.StringIO()
    jr = JsonRepl(repl, out=out)
    real = repl.compile

    async def broken(code, module=None):
        raise RuntimeError("compiler exploded")

    repl.compile = broken
    await jr.handle({"id": 1, "op": "eval", "code": "1 + 1"})
    repl.compile = real
    await jr.handle({"id": 2, "op": "eval", "code": "1 + 1"})
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies[0]["id"] == 1
    assert replies[0]["error"].startswith("Internal error (RuntimeError: compiler exploded)")
    assert "Traceback" not in replies[0]["error"]
    assert replies[1] == {"id": 2, "value": "2"}


@contextlib.contextmanager
def _client_holding_x_on_its_own_workspace(prefix: str):
    """A workspace of its own with a --json client on it that bound `x := 41`:
    (name, ws, client, the node's info); the node is killed afterwards."""
    from beamtalk_ws.workspace import launcher, paths

    name = prefix + uuid.uuid4().hex[:8]
    ws = paths.resolve(name)
    launcher.start(ws, idle_timeout=None)
    c = JsonClient(name)
    try:
        assert c.ask({"id": 1, "op": "eval", "code": "x := 41"}) == {"id": 1, "value": "41"}
        yield name, ws, c, launcher.read_node_info(ws)
    finally:
        c.close()
        launcher.kill(ws)


def test_node_death_is_reported_and_a_new_node_started(bt_home):
    from beamtalk_ws.workspace import launcher

    with _client_holding_x_on_its_own_workspace("d") as (name, ws, c, info):
        # What the emulator writes to its stderr (node.log) when it runs out of memory.
        with open(ws.log, "a") as f:
            f.write('eheap_alloc: Cannot allocate 8589934592 bytes of memory (of type "heap").\n')
        os.kill(info.os_pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while launcher.running_info(ws) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        reply = c.ask({"id": 2, "op": "eval", "code": "x + 1"})
        assert reply["id"] == 2
        text = reply["error"]
        assert f"node {info.node} (OS pid {info.os_pid}) has died" in text
        assert "Cannot allocate 8589934592 bytes of memory" in text
        assert "Connected to a new node" in text
        new = launcher.running_info(ws)
        assert new is not None and new.os_pid != info.os_pid
        # the new node serves, with the old node's stored bindings (durable state)
        assert "Restored 1 binding" in text
        assert c.ask({"id": 3, "op": "eval", "code": "3 + 4"}) == {"id": 3, "value": "7"}
        assert c.ask({"id": 4, "op": "eval", "code": "x"}) == {"id": 4, "value": "41"}


def test_a_workspace_stopped_from_elsewhere_is_reported_as_stopped_not_dead(bt_home):
    """`beamtalk workspace stop` from another terminal while a --json client was
    attached: the next reply said the node "has died" and quoted a fragment of
    its shutdown output (`(n`) as "the last lines of its log"."""
    from conftest import run_beamtalk

    with _client_holding_x_on_its_own_workspace("s") as (name, ws, c, info):
        assert run_beamtalk(["workspace", "stop", name]).returncode == 0
        text = c.ask({"id": 2, "op": "eval", "code": "x + 1"})["error"]
        assert text.startswith(
            f"The workspace '{name}' node {info.node} (OS pid {info.os_pid}) was stopped since the previous "
            f"request (`beamtalk workspace stop`); this request was not run.\nConnected to a new node ")
        assert "has died" not in text and "Last lines of its log" not in text
        assert c.ask({"id": 3, "op": "eval", "code": "x"}) == {"id": 3, "value": "41"}


# ---------------------------------------------------------------------------
# Protocol fuzzing.

_json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20))
_json_values = st.recursive(_json_scalars,
                            lambda c: st.one_of(st.lists(c, max_size=4),
                                                st.dictionaries(st.text(max_size=8), c, max_size=4)),
                            max_leaves=12)
_safe_code = st.text(max_size=40).filter(lambda s: not s.strip().startswith(":"))
_requests = st.fixed_dictionaries(
    {"op": st.one_of(st.sampled_from(["eval", "bindings", "complete", "interrupt", "nope"]), _json_scalars)},
    optional={"id": _json_scalars, "code": st.one_of(_safe_code, _json_values),
              "cursor": st.one_of(st.integers(-5, 50), _json_values), "extra": _json_values})


def _line_of(value) -> bytes:
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


_lines = st.one_of(
    _requests.map(_line_of),
    _json_values.map(_line_of),
    st.text(max_size=60).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.binary(max_size=60),
    st.integers(1, 3000).map(lambda n: b"{\"op\": \"interrupt\", \"d\": " + b"[" * n + b"]" * n + b"}"),
).map(lambda b: b.replace(b"\n", b" ").replace(b"\r", b" "))


@pytest.fixture(scope="module")
def fuzz_client(workspace):
    c = JsonClient(workspace.id, session="fuzz" + uuid.uuid4().hex[:6])
    yield c
    alive(c)
    assert c.close() == 0


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(_lines)
def test_fuzz_every_line_gets_exactly_one_reply(fuzz_client, line):
    if not line.strip():
        return      # blank lines are not requests
    fuzz_client.send_raw(line + b"\n")
    reply = fuzz_client.reply(wait=20)
    finals = {"value", "error", "bindings", "completions"} & set(reply)
    assert len(finals) == 1 and "id" in reply, reply
    try:
        sent = json.loads(line)
    except (ValueError, RecursionError):
        sent = None
    expected = sent.get("id") if isinstance(sent, dict) else None
    assert reply["id"] is None or reply["id"] == expected, (line[:100], reply)
