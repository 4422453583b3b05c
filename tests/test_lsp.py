"""`beamtalk lsp` driven over stdio as an editor drives it: a subprocess and a
small JSON-RPC client (Content-Length framing) written here."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import uuid
from pathlib import Path
from queue import Empty, Queue

import pytest

from conftest import beamtalk_cmd, run_beamtalk

ROOT = Path(__file__).resolve().parents[1]

COUNTER = '''\
/// A counter that counts up.
Object subclass: Counter
  state: n = 0

  /// Adds one to the count.
  increment => self.n := self.n + 1

  value => self.n

  twice => self increment; increment
'''

USER = '''\
c := Counter new.
c increment.
x := 3 printString
'''


class LspClient:
    """Just enough of an editor: requests, notifications, and what the server sends."""

    def __init__(self, cwd: Path, env: dict, args=()):
        self.proc = subprocess.Popen(beamtalk_cmd() + ["lsp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.next_id = 0
        self.replies: dict = {}
        self.notes: Queue = Queue()
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            msg = json.loads(out.read(int(headers["content-length"])))
            if "id" in msg and "method" not in msg:
                with self.lock:
                    self.replies[msg["id"]] = msg
                    self.lock.notify_all()
            elif "method" in msg and "id" in msg:        # a request from the server: accept it
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            else:
                self.notes.put(msg)

    def _send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params, timeout: float = 30):
        self.next_id += 1
        rid = self.next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self.lock:
            if not self.lock.wait_for(lambda: rid in self.replies, timeout):
                raise AssertionError(f"no answer to {method}; stderr: {self.stderr_so_far()}")
            reply = self.replies.pop(rid)
        assert "error" not in reply, reply
        return reply["result"]

    def notify(self, method: str, params) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def notification(self, method: str, timeout: float = 30, where=lambda p: True):
        deadline = time.monotonic() + timeout
        while True:
            try:
                msg = self.notes.get(timeout=max(0.01, deadline - time.monotonic()))
            except Empty:
                raise AssertionError(f"no {method} notification") from None
            if msg.get("method") == method and where(msg["params"]):
                return msg["params"]

    def stderr_so_far(self) -> str:
        return ""

    def initialize(self, root: Path):
        result = self.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                             "capabilities": {}})
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.resolve().as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "beamtalk",
                                                              "version": version, "text": text}})
        return uri

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:                                  # noqa: BLE001
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def project(tmp_path):
    (tmp_path / "counter.bt").write_text(COUNTER)
    return tmp_path


@pytest.fixture
def lsp(project, bt_home):
    env = dict(os.environ, BEAMTALK_HOME=str(bt_home))
    client = LspClient(project, env)
    yield client
    client.close()


def diagnostics_for(lsp, uri):
    return lsp.notification("textDocument/publishDiagnostics", where=lambda p: p["uri"] == uri)


def test_initialize_answers_capabilities(lsp, project):
    result = lsp.initialize(project)
    caps = result["capabilities"]
    assert result["serverInfo"]["name"] == "beamtalk"
    for cap in ("completionProvider", "hoverProvider", "definitionProvider", "documentSymbolProvider"):
        assert caps.get(cap), cap
    assert set(caps["executeCommandProvider"]["commands"]) == {"beamtalk.evaluate", "beamtalk.reloadFile"}


def test_broken_file_gets_a_diagnostic_at_its_line_and_column(lsp, project):
    lsp.initialize(project)
    text = "x := 3 + 4.\ny := (x * 2.\nz := 1\n"
    uri = lsp.open(project / "broken.bt", text)
    diags = diagnostics_for(lsp, uri)["diagnostics"]
    assert diags, "a broken file must publish a diagnostic"
    d = diags[0]
    # `beamtalk check` says broken.bt:2:12 (the `.` that leaves `(` open); LSP counts from 0.
    assert d["range"]["start"] == {"line": 1, "character": 11}, d
    assert d["severity"] == 1 and "expected" in d["message"].lower()


def test_fixing_the_file_clears_the_diagnostic_and_semantic_errors_show(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "scratch.bt", "x := (1 + .\n")
    assert diagnostics_for(lsp, uri)["diagnostics"]
    lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                          "contentChanges": [{"text": "x := 1 + 2\n"}]})
    assert diagnostics_for(lsp, uri)["diagnostics"] == []
    # the compiler's checks run too: an undefined variable inside a method
    lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                          "contentChanges": [{"text": "Object subclass: Foo\n  bar => zork + 1\n"}]})
    diags = diagnostics_for(lsp, uri)["diagnostics"]
    assert diags and diags[0]["range"]["start"]["line"] == 1 and "zork" in diags[0]["message"]


def test_completion_offers_selectors_of_a_literal_and_class_names(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "user.bt", "3 pri")
    diagnostics_for(lsp, uri)
    items = lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                    "position": {"line": 0, "character": 5}})["items"]
    labels = [i["label"] for i in items]
    assert "printString" in labels
    lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                          "contentChanges": [{"text": "x := Cou"}]})
    items = lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                    "position": {"line": 0, "character": 8}})["items"]
    assert "Counter" in [i["label"] for i in items]        # the project's own class, from its file
    lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                          "contentChanges": [{"text": "Counter new incr"}]})
    items = lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                    "position": {"line": 0, "character": 16}})["items"]
    assert [i["label"] for i in items] == ["increment"]     # `new` answers an instance


def test_hover_shows_the_help_text_with_doc_comments(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "user.bt", "n := Integer new.\nc := Counter new.\nc increment\n")
    diagnostics_for(lsp, uri)
    hover = lsp.request("textDocument/hover", {"textDocument": {"uri": uri},
                                               "position": {"line": 0, "character": 8}})
    text = hover["contents"]["value"]
    assert "== Integer < Number ==" in text
    # Integer's documented method, as `:help Integer` shows it
    assert "Character predicates on the receiver" in text
    hover = lsp.request("textDocument/hover", {"textDocument": {"uri": uri},
                                               "position": {"line": 1, "character": 7}})
    assert "A counter that counts up." in hover["contents"]["value"]        # the class doc comment
    hover = lsp.request("textDocument/hover", {"textDocument": {"uri": uri},
                                               "position": {"line": 2, "character": 4}})
    assert "Counter >> increment" in hover["contents"]["value"]
    assert "Adds one to the count." in hover["contents"]["value"]


def test_document_symbols_list_classes_fields_and_methods(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "counter.bt", COUNTER)
    diagnostics_for(lsp, uri)
    symbols = lsp.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [s["name"] for s in symbols] == ["Counter"]
    cls = symbols[0]
    assert cls["kind"] == 5 and cls["selectionRange"]["start"] == {"line": 1, "character": 17}
    children = {c["name"]: c for c in cls["children"]}
    assert set(children) == {"n", "increment", "value", "twice"}
    assert children["increment"]["kind"] == 6 and children["increment"]["range"]["start"]["line"] == 5
    assert children["n"]["kind"] == 8


def test_go_to_definition_of_a_class_and_a_method(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "user.bt", USER)
    diagnostics_for(lsp, uri)
    counter_uri = (project / "counter.bt").resolve().as_uri()
    found = lsp.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                    "position": {"line": 0, "character": 7}})
    assert [(f["uri"], f["range"]["start"]["line"]) for f in found] == [(counter_uri, 1)]   # the class header
    found = lsp.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                    "position": {"line": 1, "character": 5}})
    assert [(f["uri"], f["range"]["start"]["line"]) for f in found] == [(counter_uri, 5)]
    # a stdlib method: `3 printString` goes to the stdlib's file
    found = lsp.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                    "position": {"line": 2, "character": 9}})
    assert found and all(f["uri"].startswith((ROOT / "stdlib").as_uri()) for f in found)


def test_a_word_that_is_nothing_answers_nothing(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "user.bt", "zork frobnicate\n")
    diagnostics_for(lsp, uri)
    assert lsp.request("textDocument/hover", {"textDocument": {"uri": uri},
                                              "position": {"line": 0, "character": 7}}) is None
    assert lsp.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                   "position": {"line": 0, "character": 7}}) == []


@pytest.fixture
def live_lsp(project, bt_home, workspace):
    """The language server attached to the session's running workspace."""
    env = dict(os.environ, BEAMTALK_HOME=str(bt_home))
    client = LspClient(project, env, ["--workspace", workspace.id])
    yield client
    client.close()


async def test_with_a_running_workspace_completion_offers_its_classes_and_commands_run(live_lsp, project, repl):
    out = await repl.evaluate("Object subclass: LspLiveThing\n  frobnicate => 42\n  frobble => 1")
    assert out.ok, out.text
    live_lsp.initialize(project)
    uri = live_lsp.open(project / "user.bt", "LspLiveTh")
    diagnostics_for(live_lsp, uri)
    items = live_lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                         "position": {"line": 0, "character": 9}})["items"]
    assert "LspLiveThing" in [i["label"] for i in items]       # known only to the workspace
    live_lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                               "contentChanges": [{"text": "LspLiveThing new frob"}]})
    items = live_lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                         "position": {"line": 0, "character": 21}})["items"]
    assert {"frobnicate", "frobble"} <= {i["label"] for i in items}
    hover = live_lsp.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                    "position": {"line": 0, "character": 3}})
    assert "== LspLiveThing < Object ==" in hover["contents"]["value"]
    live_lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                               "contentChanges": [{"text": "Erlang lists reve"}]})
    items = live_lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                         "position": {"line": 0, "character": 17}})["items"]
    assert "reverse:" in [i["label"] for i in items]           # an Erlang export, from the node
    answer = live_lsp.request("workspace/executeCommand", {"command": "beamtalk.evaluate",
                                                           "arguments": ["Transcript show: \"hi\". 3 + 4"]})
    assert answer == {"ok": True, "text": "7", "output": "hi"}
    answer = live_lsp.request("workspace/executeCommand", {"command": "beamtalk.reloadFile",
                                                           "arguments": [(project / "counter.bt").as_uri()]})
    assert answer["ok"] and "Counter" in answer["text"]


def test_commands_without_a_workspace_say_how_to_start_one(lsp, project):
    lsp.initialize(project)
    answer = lsp.request("workspace/executeCommand", {"command": "beamtalk.evaluate", "arguments": ["3 + 4"]})
    assert answer["ok"] is False and "beamtalk workspace start" in answer["text"]


def test_hover_on_any_part_of_a_keyword_message_names_the_whole_selector(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "user.bt", "3 between: 1 and: 5\n")
    diagnostics_for(lsp, uri)
    for character in (4, 14):                  # on `between:`, then on `and:`
        hover = lsp.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": {"line": 0, "character": character}})
        assert "Integer >> between:and: (inherited from Number)" in hover["contents"]["value"]


def test_files_changed_on_disk_are_read_again(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "user.bt", "w := Widg")
    diagnostics_for(lsp, uri)

    def offered() -> list:
        items = lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                        "position": {"line": 0, "character": 9}})["items"]
        return [i["label"] for i in items]

    assert "Widget" not in offered()
    (project / "widget.bt").write_text("Object subclass: Widget\n  spin => 1\n")   # as `git checkout` would
    deadline = time.monotonic() + 20
    while "Widget" not in offered():
        assert time.monotonic() < deadline, "a new file on disk was never read"
        time.sleep(0.5)


def _complete_at_end_of(lsp, uri, text, version):
    lsp.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                          "contentChanges": [{"text": text}]})
    lines = text.split("\n")
    items = lsp.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                    "position": {"line": len(lines) - 1,
                                                                 "character": len(lines[-1])}})["items"]
    return [i["label"] for i in items]


def test_completion_after_self_and_a_local_made_by_new_offers_the_class_selectors(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "cart.bt", COUNTER)
    diagnostics_for(lsp, uri)
    # `self ` in an instance method: the enclosing class's selectors, inherited ones too
    labels = _complete_at_end_of(lsp, uri, COUNTER + "  reset => self ", 2)
    assert {"increment", "value", "twice", "printString"} <= set(labels), labels
    assert _complete_at_end_of(lsp, uri, COUNTER + "  reset => self incr", 3) == ["increment"]
    # a class-side method: `self` is the class
    labels = _complete_at_end_of(lsp, uri, COUNTER + "  class make => self ", 4)
    assert "new" in labels and "increment" not in labels, labels
    # a standalone `Counter >> sel` method
    assert _complete_at_end_of(lsp, uri, COUNTER + "\nCounter >> thrice => self twi", 5) == ["twice"]
    # a local assigned `Counter new` earlier in the method
    text = COUNTER + "  copyTwice =>\n    c := Counter new.\n    c incr"
    assert _complete_at_end_of(lsp, uri, text, 6) == ["increment"]
    # outside any class, `self` is not guessed at
    assert _complete_at_end_of(lsp, uri, "self incr", 7) == []


def test_hover_on_a_field_after_a_tight_dot_is_not_taken_for_a_message(lsp, project):
    """`self.lines` names a field: hover used to show a stdlib method
    called `lines` (FileHandle >> lines)."""
    lsp.initialize(project)
    src = "Object subclass: Shelf\n  state: lines = #()\n  count => self.lines size\n"
    uri = lsp.open(project / "shelf.bt", src)
    diagnostics_for(lsp, uri)
    at_field = {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 18}}
    assert lsp.request("textDocument/hover", at_field) is None
    assert not lsp.request("textDocument/definition", at_field)
    # the message after it is still looked up
    at_size = {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 23}}
    assert "size" in lsp.request("textDocument/hover", at_size)["contents"]["value"]


def test_completion_offers_the_next_keyword_of_the_message_being_written(lsp, project):
    lsp.initialize(project)
    uri = lsp.open(project / "range.bt", "x := 3")
    diagnostics_for(lsp, uri)
    labels = _complete_at_end_of(lsp, uri, "x := 3 between: 1 a", 2)
    assert labels[0] == "and:" and "abs" in labels, labels


def test_a_command_after_the_workspace_restarted_reaches_the_new_node(project, bt_home):
    """`beamtalk workspace stop` then `start` while the editor is open: the
    next `beamtalk.evaluate` runs on the new node.  It answered "No workspace
    is running" for up to 10 s after the start (the attach was throttled)."""
    from beamtalk_ws.workspace import launcher, paths

    name = "lsp-restart-" + uuid.uuid4().hex[:6]
    ws = paths.resolve(name)
    launcher.start(ws, idle_timeout=None)
    client = LspClient(project, dict(os.environ, BEAMTALK_HOME=str(bt_home)), ["--workspace", name])
    try:
        client.initialize(project)
        run = lambda code: client.request("workspace/executeCommand",  # noqa: E731
                                          {"command": "beamtalk.evaluate", "arguments": [code]})
        assert run("k := 6 * 7")["text"] == "42"
        assert run_beamtalk(["workspace", "stop", name]).returncode == 0
        assert "No workspace is running" in run("1 + 1")["text"]
        launcher.start(ws, idle_timeout=None)
        answer = run("k + 1")
        assert answer == {"ok": True, "text": "43", "output": ""}, answer
    finally:
        client.close()
        launcher.kill(ws)
