"""`beamtalk test` end to end (DESIGN §3, issue 4 item 4): each run starts a fresh
workspace of its own and must leave no node behind, also when interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import beamtalk_cmd, run_beamtalk

PASSING = """\
TestCase subclass: ArithmeticTest
  state: base = 0
  setUp => self.base := 40
  testAdd => self assert: self.base + 2 equals: 42
  testDeny => self deny: self.base = 0
"""

FAILING = """\
TestCase subclass: MixedTest
  testGood => self assert: true
  testWrong => self assert: 1 + 1 equals: 3
  testBroken => nil frobnicate
"""

BROKEN = """\
TestCase subclass: BrokenTest
  testOops => self assert: (3 + ) equals: 4
"""


def running_test_nodes(bt_home: Path) -> list[int]:
    """OS pids of `beamtalk test` nodes started under this BEAMTALK_HOME."""
    home = str(bt_home).encode()
    pids = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a.startswith(b"beamtalk_test-") or a.startswith(b"beamtalk_test_") for a in argv) \
                and any(home in a for a in argv):
            pids.append(int(d.name))
    return pids


def assert_nothing_left(bt_home: Path) -> None:
    assert running_test_nodes(bt_home) == []
    workspaces = bt_home / "workspaces"
    left = [d.name for d in workspaces.iterdir() if d.name.startswith("test-")] if workspaces.is_dir() else []
    assert left == []


def bt_test(args, cwd):
    return run_beamtalk(["test", *args], cwd=cwd, timeout=120)


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_passing_directory_is_the_default_path(bt_home, tmp_path):
    write(tmp_path, "test/arithmetic_test.bt", PASSING)
    (tmp_path / ".git").mkdir()          # the project root, where test/ is looked for
    proc = bt_test([], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "2 passed, 0 failed\n"
    assert_nothing_left(bt_home)


def test_failures_and_errors_are_listed_and_exit_non_zero(bt_home, tmp_path):
    write(tmp_path, "test/arithmetic_test.bt", PASSING)
    write(tmp_path, "test/mixed_test.bt", FAILING)
    proc = bt_test(["test"], tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == (
        "ERROR: MixedTest >> testBroken\n"
        "  test/mixed_test.bt:4: RuntimeError: UndefinedObject does not understand 'frobnicate'\n"
        "FAIL: MixedTest >> testWrong\n"
        "  test/mixed_test.bt:3: Expected 3, got 2\n"
        "\n"
        "3 passed, 2 failed\n")
    assert_nothing_left(bt_home)


def test_json_lines(bt_home, tmp_path):
    write(tmp_path, "t/arithmetic_test.bt", PASSING)
    write(tmp_path, "t/mixed_test.bt", FAILING)
    bad = write(tmp_path, "t/broken_test.bt", BROKEN)
    proc = bt_test(["t", "--format", "json"], tmp_path)
    assert proc.returncode == 1
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["file"] == os.path.join("t", "broken_test.bt")
    assert lines[0]["status"] == "error"
    assert "broken_test.bt:2:" in lines[0]["message"] and "expected expression" in lines[0]["message"]
    assert lines[1:] == [
        {"class": "ArithmeticTest", "test": "testAdd", "status": "pass", "message": ""},
        {"class": "ArithmeticTest", "test": "testDeny", "status": "pass", "message": ""},
        {"class": "MixedTest", "test": "testBroken", "status": "error",
         "message": "t/mixed_test.bt:4: RuntimeError: UndefinedObject does not understand 'frobnicate'"},
        {"class": "MixedTest", "test": "testGood", "status": "pass", "message": ""},
        {"class": "MixedTest", "test": "testWrong", "status": "fail", "message": "t/mixed_test.bt:3: Expected 3, got 2"},
    ]
    assert bad.exists()
    assert_nothing_left(bt_home)


def test_a_file_that_does_not_compile_fails_the_run(bt_home, tmp_path):
    write(tmp_path, "test/arithmetic_test.bt", PASSING)
    write(tmp_path, "test/broken_test.bt", BROKEN)
    proc = bt_test(["test"], tmp_path)
    assert proc.returncode == 1
    out = proc.stdout
    assert out.startswith("ERROR: test/broken_test.bt does not compile\n  test/broken_test.bt:2:")
    assert out.endswith("\n1 file did not compile\n2 passed, 0 failed\n")
    assert_nothing_left(bt_home)


def test_fixtures_are_loaded_first_and_not_run(bt_home, tmp_path):
    write(tmp_path, "test/fixtures/fixture_base.bt",
          "TestCase subclass: FixtureBase\n  answer => 41\n  testInherited => self assert: self answer > 40\n")
    write(tmp_path, "test/fixtures/only_in_fixtures.bt",
          "TestCase subclass: FixtureOnlyTest\n  testNeverRun => self fail: \"fixtures are not tests\"\n")
    write(tmp_path, "test/sub/fixtures/sub_helper.bt", "Object subclass: SubHelper\n  class one => 1\n")
    write(tmp_path, "test/sub/uses_fixtures_test.bt",
          "FixtureBase subclass: UsesFixturesTest\n"
          "  testBoth => self assert: self answer + SubHelper one equals: 42\n")
    proc = bt_test(["--format", "json", "test"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [(d["class"], d["test"], d["status"]) for d in map(json.loads, proc.stdout.splitlines())] == [
        ("UsesFixturesTest", "testBoth", "pass"), ("UsesFixturesTest", "testInherited", "pass")]
    # A test file named on its own gets the fixtures beside it.
    write(tmp_path, "solo/fixtures/solo_helper.bt", "Object subclass: SoloHelper\n  class two => 2\n")
    write(tmp_path, "solo/solo_test.bt", "TestCase subclass: SoloTest\n  testTwo => self assert: SoloHelper two equals: 2\n")
    proc = bt_test([os.path.join("solo", "solo_test.bt")], tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "1 passed, 0 failed\n"), proc.stderr
    assert_nothing_left(bt_home)


def test_collect_orders_fixtures_before_tests(tmp_path):
    from beamtalk_ws.bunit import collect

    write(tmp_path, "test/b_test.bt", "")
    write(tmp_path, "test/a_test.bt", "")
    write(tmp_path, "test/fixtures/z.bt", "")
    write(tmp_path, "test/deep/fixtures/y.bt", "")
    write(tmp_path, "test/.hidden/x.bt", "")
    write(tmp_path, "other/c_test.bt", "")
    write(tmp_path, "other/fixtures/w.bt", "")
    files = collect([str(tmp_path / "test"), str(tmp_path / "other" / "c_test.bt"), str(tmp_path / "nope")])
    rel = lambda ps: [str(p.relative_to(tmp_path)) for p in ps]   # noqa: E731
    assert rel(files.fixtures) == ["other/fixtures/w.bt", "test/deep/fixtures/y.bt", "test/fixtures/z.bt"]
    assert rel(files.tests) == ["test/a_test.bt", "test/b_test.bt", "other/c_test.bt"]
    assert files.missing == [str(tmp_path / "nope")]


def test_missing_path_and_empty_run(bt_home, tmp_path):
    proc = bt_test(["no_such_dir"], tmp_path)
    assert proc.returncode == 1
    # a path that is not there is "not found", not a file that "does not compile"
    assert proc.stdout.startswith(f"ERROR: no_such_dir not found\n  No such file or directory: "
                                  f"{tmp_path / 'no_such_dir'}\n  Hint: give .bt files")
    assert proc.stdout.endswith("\n1 path not found\n0 passed, 0 failed\n")
    # with no path, outside a package that has test/: say which directory it looked for
    proc = bt_test([], tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"ERROR: test not found\n  No such file or directory: {tmp_path / 'test'}\n"
                                  f"  Hint: with no path, beamtalk test runs the test/ directory of the "
                                  f"project root ({tmp_path})")
    (tmp_path / "empty").mkdir()
    proc = bt_test(["empty"], tmp_path)
    assert (proc.returncode, proc.stdout) == (0, NONE_FOUND.format("empty") + "\n0 passed, 0 failed\n")
    # a JSON run that finds nothing says so too, instead of writing nothing at all
    proc = bt_test(["empty", "--format", "json"], tmp_path)
    assert proc.returncode == 0
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [
        {"status": "empty", "message": NONE_FOUND.format("empty")}]
    assert_nothing_left(bt_home)


NONE_FOUND = ("No tests found in {}: a test is a unary method named test... of a TestCase subclass, "
              "or a `// =>` line of a doc-test file")


def test_test_output_goes_to_stdout_in_text_and_stderr_in_json(bt_home, tmp_path):
    write(tmp_path, "test/talk_test.bt",
          "TestCase subclass: TalkTest\n  testTalk =>\n    Transcript showCr: \"talking\".\n    self assert: true\n")
    proc = bt_test(["test"], tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "talking\n1 passed, 0 failed\n")
    proc = bt_test(["test", "--format", "json"], tmp_path)
    assert proc.returncode == 0
    assert [json.loads(line)["status"] for line in proc.stdout.splitlines()] == ["pass"]
    assert "talking" in proc.stderr
    # output without a final newline does not glue itself to the report
    write(tmp_path, "test/talk_test.bt",
          "TestCase subclass: TalkTest\n  testTalk =>\n    Transcript show: \"hi\".\n    self assert: true\n")
    proc = bt_test(["test"], tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "hi\n1 passed, 0 failed\n")
    assert_nothing_left(bt_home)


def test_a_test_that_stops_the_node_is_an_error_and_the_run_still_reports(bt_home, tmp_path):
    """`Erlang erlang halt` (or the node running out of memory) under a test:
    the run used to end with only "Lost the connection" on stderr, nothing on
    stdout (no JSON line, no summary), and the earlier classes' results lost."""
    write(tmp_path, "test/a_fine_test.bt", "TestCase subclass: AFineTest\n  testOk => self assert: true\n")
    write(tmp_path, "test/halt_test.bt",
          "TestCase subclass: HaltTest\n  testHalt => Erlang erlang halt\n  testOther => self assert: true\n")
    write(tmp_path, "test/z_later_test.bt", "TestCase subclass: ZLaterTest\n  testLater => self assert: true\n")
    proc = bt_test(["test"], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "1 passed, 3 failed", proc.stdout + proc.stderr
    assert "ERROR: HaltTest >> testHalt" in lines and "ERROR: ZLaterTest >> testLater" in lines
    assert any("node stopped while HaltTest's tests ran" in ln for ln in lines), proc.stdout
    proc = bt_test(["test", "--format", "json"], tmp_path)
    assert proc.returncode == 1
    got = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(g["class"], g["test"], g["status"]) for g in got] == [
        ("AFineTest", "testOk", "pass"), ("HaltTest", "testHalt", "error"),
        ("HaltTest", "testOther", "error"), ("ZLaterTest", "testLater", "error")]
    assert "not run" in got[3]["message"]
    assert_nothing_left(bt_home)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_run_leaves_no_node(bt_home, tmp_path, sig):
    write(tmp_path, "test/hang_test.bt",
          "TestCase subclass: HangTest\n  class timeout => 600000\n"
          "  testHang => Transcript showCr: \"started\". [true] whileTrue: [nil]\n")
    proc = subprocess.Popen(beamtalk_cmd() + ["test", "test"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        # Wait until the test is running (its output arrives), then interrupt.
        assert proc.stdout.readline() == "started\n"
        assert running_test_nodes(bt_home)
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert_nothing_left(bt_home)


def test_a_setup_that_loses_its_field_is_warned_on_stderr(bt_home, tmp_path):
    """The compiler's warnings reach `beamtalk test`'s stderr, as `beamtalk
    build` prints them: a setUp that assigns its field and then sends
    something hands the tests a nil field, which read only as a
    does-not-understand on nil in each test."""
    write(tmp_path, "test/lost_test.bt",
          "TestCase subclass: LostTest\n"
          "  state: n = nil\n"
          "  setUp =>\n"
          "    self.n := #(1, 2).\n"
          "    self.n size\n"
          "  testSize => self assert: self.n size equals: 2\n")
    proc = bt_test([], tmp_path)
    assert proc.returncode == 1
    assert "UndefinedObject does not understand 'size'" in proc.stdout
    assert proc.stderr.startswith("\u26a0 test/lost_test.bt:4:5: warning: This change to self.n is lost: "
                                  "setUp hands the test the instance it answers"), proc.stderr
    assert_nothing_left(bt_home)


def test_an_error_in_a_test_shows_its_hint(bt_home, tmp_path):
    """The hint the REPL prints under an error (here: a String's elements
    are Strings, the character tests are on code points) was dropped by
    `beamtalk test`, which showed the message alone."""
    write(tmp_path, "test/letters_test.bt",
          "TestCase subclass: LettersTest\n  testLetters => self assert: (\"a1\" select: [:c | c isLetter]) equals: \"a\"\n")
    proc = bt_test([], tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["ERROR: LettersTest >> testLetters",
                         "  test/letters_test.bt:2: RuntimeError: String does not understand 'isLetter'"]
    assert lines[2].startswith("  Hint: the elements of a String are 1-character Strings")
    proc = bt_test(["--format", "json"], tmp_path)
    (line,) = [json.loads(x) for x in proc.stdout.splitlines()]
    # the contract's four keys: the hint is part of the message
    assert set(line) == {"class", "test", "status", "message"}, line
    assert line["status"] == "error" and "\nHint: the elements of a String" in line["message"], line
    assert_nothing_left(bt_home)
