"""The issue's ``Store`` example, typed as written (a blank line, a
whitespace-only line and a comment line between its methods), loads and
works on a real node through ``beamtalk repl --json`` (issue 11 item 1)."""

import json

from conftest import run_beamtalk

STORE = "\n".join(
    [
        "Actor subclass: Store",
        "  state: items = #{}",
        "",
        "  put: k value: v =>",
        "    self.items := self.items at: k put: v",
        "    ",
        "  // read one back",
        "  get: k =>",
        "    self.items at: k ifAbsent: [nil]",
    ]
)


def test_store_example_through_repl_json(workspace):
    reqs = [
        {"id": 1, "op": "eval", "code": STORE},
        {"id": 2, "op": "eval", "code": "s := Store spawn"},
        {"id": 3, "op": "eval", "code": "s put: #apple value: 42"},
        {"id": 4, "op": "eval", "code": "s get: #apple"},
        {"id": 5, "op": "eval", "code": "s get: #pear"},
        {"id": 6, "op": "eval", "code": "Store methods"},
    ]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id],
                        input="".join(json.dumps(r) + "\n" for r in reqs))
    replies = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines()) if "id" in r}
    assert "error" not in replies[1], replies[1]
    assert replies[1]["value"] == "Store"
    assert "error" not in replies[2], replies[2]
    assert "error" not in replies[3], replies[3]
    assert replies[4]["value"] == "42"
    assert replies[5]["value"] == "nil"
    assert replies[6]["value"] == "#(#get:, #put:value:)"


def test_store_example_piped_line_by_line(workspace):
    """Piped into the line REPL, the blank/whitespace/comment lines stay
    inside the class (it looks ahead), so the class has both methods."""
    script = STORE + "\n" + "t := Store spawn\nt put: 1 value: 2\nt get: 1\n"
    proc = run_beamtalk(["repl", "--workspace", workspace.id], input=script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["Store", "a", "Store", "#{1", "=>", "2}", "2"], proc.stdout
