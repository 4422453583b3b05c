"""The Transcript against a real workspace (issue 4; spec stdlib §10, repl.md §6):
text written by an evaluation arrives as output of that request; text written by
background actors lands in the ring buffer and reaches subscribers."""

from __future__ import annotations

import json
import uuid

from conftest import run_beamtalk
from helpers import ok

CHATTY = """\
Actor subclass: {name}
  talk => Transcript show: "sync talk"; cr. 1
  mumble => Transcript show: "background mumble". 2
"""


def unique(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:8]


async def test_text_written_by_an_evaluation_is_its_output(repl):
    chunks: list[str] = []
    value = await ok(repl, 'Transcript show: "hello"; cr; show: #sym; tab; show: 42; space; '
                           'show: #(1, "a", #b); print: "q"; showCr: "!"; display: 3', chunks.append)
    assert value == "a TranscriptStream"          # commands answer the Transcript
    assert "".join(chunks) == 'hello\nsym\t42 #(1, a, b)"q"!\n3'
    assert await ok(repl, "TranscriptStream current == Transcript") == "true"
    assert await ok(repl, "Transcript class") == "TranscriptStream"


async def test_an_actor_serving_an_evaluation_writes_to_its_output(repl):
    name = unique("Chatty")
    await ok(repl, CHATTY.format(name=name))
    chunks: list[str] = []
    assert await ok(repl, f"c := {name} spawn. c talk", chunks.append) == "1"
    assert chunks == ["sync talk", "\n"]


async def test_background_actor_text_lands_in_recent_and_in_subscribers(repl, workspace):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    name = unique("Background")
    await ok(repl, CHATTY.format(name=name))
    await ok(repl, f"b := {name} spawn")
    # A client of another session subscribes: no REPL is waiting for this text.
    watcher = await WorkspaceClient.connect(workspace, session=unique("w"))
    try:
        await watcher.subscribe_transcript()
        chunks: list[str] = []
        await ok(repl, "b mumble!", chunks.append)            # a cast: nobody waits
        assert await watcher.next_transcript(timeout=10) == "background mumble"
        assert chunks == []
        assert "background mumble" in await ok(repl, "Transcript recent")
        # The subscriber sees what other sessions' evaluations write, too.
        await ok(repl, 'Transcript show: "from the other session"')
        assert await watcher.next_transcript(timeout=10) == "from the other session"
        # Its own evaluations' text reaches it once, as request output (no push).
        mine: list[str] = []
        await ok(Repl(watcher), 'Transcript show: "mine"', mine.append)
        assert mine == ["mine"]
        await ok(repl, "b mumble!")
        assert await watcher.next_transcript(timeout=10) == "background mumble"
        await watcher.unsubscribe_transcript()
    finally:
        await watcher.close()


async def test_subscribe_from_beamtalk_and_clear(repl):
    name = unique("Sub")
    # An actor subscribes itself; the pushes arrive in its mailbox, where
    # nothing reads them: subscribing must not disturb it.
    await ok(repl, f"Actor subclass: {name}\n  join => Transcript subscribe. 1\n  leave => Transcript unsubscribe. 2")
    await ok(repl, f"s := {name} spawn. s join")
    assert await ok(repl, "Transcript clear; recent") == "#()"
    await ok(repl, 'Transcript show: "a"; show: "b"')
    assert await ok(repl, "Transcript recent") == '#("a", "b")'
    assert await ok(repl, "s leave") == "2"


async def test_ring_buffer_keeps_the_last_1000_chunks(repl):
    await ok(repl, "Transcript clear. 1 to: 1005 do: [:i | Transcript show: i printString]")
    assert await ok(repl, "Transcript recent size") == "1000"
    assert await ok(repl, "#(Transcript recent first, Transcript recent last)") == '#("6", "1005")'
    await ok(repl, "Transcript clear")


def test_json_protocol_output_comes_before_the_reply(workspace):
    requests = [{"id": 1, "op": "eval", "code": 'Transcript show: "one"; cr; show: "two"'},
                {"id": 2, "op": "eval", "code": "3 + 4"}]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id, "--session", unique("j")],
                        input="".join(json.dumps(r) + "\n" for r in requests))
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [
        {"id": 1, "output": "one"}, {"id": 1, "output": "\n"}, {"id": 1, "output": "two"},
        {"id": 1, "value": "a TranscriptStream"}, {"id": 2, "value": "7"}]


def test_plain_repl_ends_a_line_of_output_before_the_value(workspace):
    proc = run_beamtalk(["repl", "--workspace", workspace.id, "--session", unique("p")],
                        input='Transcript show: "no newline"\n3 + 4\n')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "no newline\na TranscriptStream\n7\n"


async def test_transcript_is_a_singleton(repl):
    out = await repl.evaluate("TranscriptStream spawn")
    assert not out.ok and "Cannot call 'spawn' on TranscriptStream" in out.text
    assert "singleton" in out.text
