"""Relative paths (issue 11 item 5): a workspace's node runs in the directory
it was started for, so `File readAll: "data/x.txt"` typed in a project reads
the project's file.  Each case starts a real workspace from a temp directory."""

from __future__ import annotations

import uuid
from pathlib import Path

from conftest import run_beamtalk

from beamtalk_ws.workspace import launcher, paths


def make_tree(root: Path, text: str) -> Path:
    (root / "data").mkdir(parents=True)
    (root / "data" / "x.txt").write_text(text)
    return root


def test_a_project_workspace_runs_in_the_project_root(bt_home, tmp_path):
    project = make_tree(tmp_path / "proj", "from the project")
    (project / ".beamtalk").mkdir()
    (project / "sub").mkdir()
    # Started from a subdirectory: the node still runs in the project root.
    r = run_beamtalk(["repl", "--ephemeral"], cwd=project / "sub",
                     input='File readAll: "data/x.txt"\nFile exists: "sub"\n')
    assert r.returncode == 0, r.stderr
    assert '"from the project"' in r.stdout, r.stdout + r.stderr
    assert "true" in r.stdout.split('"from the project"', 1)[1], r.stdout


def test_a_named_workspace_runs_where_beamtalk_was_started(bt_home, tmp_path):
    here = make_tree(tmp_path / "somewhere", "from the shell's directory")
    name = "cwd-" + uuid.uuid4().hex[:8]
    r = run_beamtalk(["repl", "--workspace", name, "--ephemeral"], cwd=here,
                     input='File readAll: "data/x.txt"\n(File readAll: "nope.txt") size\n')
    assert r.returncode == 0, r.stderr
    assert '"from the shell\'s directory"' in r.stdout, r.stdout + r.stderr
    # A failing relative path names the file as typed; the hint names the
    # directory (errors go to stderr: spec repl.md §6).
    assert 'Cannot read "nope.txt": No such file or directory' in r.stderr, r.stderr
    assert str(here) in r.stderr, r.stderr
    assert not (paths.resolve(name).dir / "data").exists()


def test_the_node_directory_rule(bt_home, tmp_path):
    named = paths.resolve("rule-" + uuid.uuid4().hex[:8])
    project = paths.resolve(None, tmp_path)
    assert launcher.node_cwd(project) == project.project
    assert launcher.node_cwd(named, tmp_path) == tmp_path
    assert launcher.node_cwd(named) == Path.cwd()


def test_beamtalk_test_runs_in_the_directory_it_was_invoked_from(bt_home, tmp_path):
    here = make_tree(tmp_path / "tests-here", "fixture text")
    (here / "t").mkdir()
    (here / "t" / "reads_test.bt").write_text(
        "TestCase subclass: ReadsTest\n"
        '  testRelative => self assert: (File readAll: "data/x.txt") equals: "fixture text"\n'
        '  testMissing => self should: [File readAll: "data/none.txt"] raise: #file_not_found\n')
    r = run_beamtalk(["test", "t"], cwd=here, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed, 0 failed" in r.stdout, r.stdout
