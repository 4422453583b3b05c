"""Issue 11 items 1 and 6 end to end: the issue's ``Store`` example, typed as
written (a blank line, a whitespace-only line and a comment line between its
methods), loads and works on a real node through ``beamtalk repl --json``;
the seeds' examples get their teaching errors through the REPL and
``beamtalk check``, and the corrected forms run."""

import json

from conftest import run_beamtalk
from test_syntax_teaching import SEED_APP, SEED_CLASSBUILDER

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


def test_teaching_errors_through_repl_json(workspace):
    fixed = ('dog := Object classBuilder name: #Dog; addField: #name default: "Rex"; '
             'addMethod: #speak body: [:me | me.name ++ " says Woof!"]; register')
    reqs = [
        {"id": 1, "op": "eval", "code": "x := 5"},
        {"id": 2, "op": "eval", "code": SEED_CLASSBUILDER},
        {"id": 3, "op": "eval", "code": fixed.replace("[:me | me.name", "[self.name")},
        {"id": 4, "op": "eval", "code": fixed},
        {"id": 5, "op": "eval", "code": "Dog new speak"},
        {"id": 6, "op": "eval", "code": "x"},
    ]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id],
                        input="".join(json.dumps(r) + "\n" for r in reqs))
    replies = {r["id"]: r for r in map(json.loads, proc.stdout.splitlines()) if "id" in r}
    assert replies[1]["value"] == "5"
    assert replies[2]["error"].splitlines()[:3] == [
        "<input>:2:6: a keyword message cannot start a line: join it to the line above",
        "       name: #Dog;",
        "       ^^^^^",
    ]
    err = replies[3]["error"].splitlines()
    assert err[0] == ("<input>:1:97: `self` is not defined in the block of addMethod:body:: "
                      "the block gets the receiver as its first argument: [:me | me ...]")
    assert err[-1] == '  hint: write `[:me | me.name ++ " says Woof!"]`'
    assert replies[4]["value"] == "Dog"
    assert replies[5]["value"] == '"Rex says Woof!"'
    assert replies[6]["value"] == "5"  # the failed inputs lost no binding


def test_check_reports_a_top_level_start_method(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.bt").write_text(SEED_APP)
    proc = run_beamtalk(["check", "src/app.bt"], cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[:3] == ["src/app.bt:2:1: start must be a class-side method of a class", "  start =>", "  ^^^^^^^^"]
    assert "Object subclass: App" in lines[3] and "class start =>" in lines[3]
