"""Packages against real nodes: `beamtalk new|build|run|test`, `beamtalk repl` in a
package, and `:reload` hot-reloading a package's classes while their actors run
(seed ADR 0026 §6, Phase 4 and 5; spec/repl.md §2)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import run_beamtalk

COUNTER = """\
/// A tally kept by an actor.
Actor subclass: {name}
  state: count = 0
  bump => self.count := self.count + 1
  count => self.count
"""


def new_package(tmp_path: Path, name: str) -> Path:
    r = run_beamtalk(["new", name], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == f"Created package '{name}'"
    return tmp_path / name


def consult(app: Path):
    """The .app file as Erlang reads it (file:consult), printed back by erl."""
    expr = (f'{{ok, [{{application, A, P}}]}} = file:consult("{app}"), '
            'io:format("~w~n", [{A, proplists:get_value(modules, P), '
            'proplists:get_value(classes, proplists:get_value(env, P))}]), halt().')
    r = subprocess.run(["erl", "-noshell", "-eval", expr], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def stop_project_workspace(root: Path) -> None:
    from beamtalk_ws.workspace import launcher, paths

    launcher.kill(paths.resolve(None, root))


def test_new_then_build_makes_an_otp_application(bt_home, tmp_path):
    root = new_package(tmp_path, "tally_app")
    (root / "src" / "util").mkdir()
    (root / "src" / "util" / "tally.bt").write_text(COUNTER.format(name="Tally"))
    (root / "src" / "sub_tally.bt").write_text("Tally subclass: SubTally\n  twice => self bump. self bump\n")
    r = run_beamtalk(["build"], cwd=root / "src")   # anywhere inside the package
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "Building tally_app v0.1.0",
        "  Compiling main.bt \u2192 bt@tally_app@main",
        "  Compiling util/tally.bt \u2192 bt@tally_app@util@tally",
        "  Compiling sub_tally.bt \u2192 bt@tally_app@sub_tally",
        "  Generating tally_app.app",
        "Build complete: 3 modules in _build/dev/ebin/",
    ]
    ebin = root / "_build" / "dev" / "ebin"
    assert sorted(p.name for p in ebin.glob("*.beam")) == [
        "bt@tally_app@main.beam", "bt@tally_app@sub_tally.beam", "bt@tally_app@util@tally.beam"]
    # parents first, as a node registers them
    assert consult(ebin / "tally_app.app") == (
        "{tally_app,[bt@tally_app@main,bt@tally_app@util@tally,bt@tally_app@sub_tally],"
        "[{bt@tally_app@main,'Main','Object'},{bt@tally_app@util@tally,'Tally','Actor'},"
        "{bt@tally_app@sub_tally,'SubTally','Tally'}]}")
    again = run_beamtalk(["build"], cwd=root)
    assert again.stdout.splitlines() == ["Building tally_app v0.1.0", "Up to date: 3 modules in _build/dev/ebin/"]
    forced = run_beamtalk(["build", "--force"], cwd=root)
    assert forced.stdout.splitlines()[-1] == "Build complete: 3 modules in _build/dev/ebin/"
    # a removed source file takes its module with it
    (root / "src" / "sub_tally.bt").unlink()
    r = run_beamtalk(["build"], cwd=root)
    assert r.returncode == 0 and "Build complete: 2 modules" in r.stdout
    assert not (ebin / "bt@tally_app@sub_tally.beam").exists()


def test_build_errors_are_located_and_fail(bt_home, tmp_path):
    root = new_package(tmp_path, "broken_app")
    (root / "src" / "bad.bt").write_text("Object subclass: Bad\n  oops => (3 + ) * 2\n")
    r = run_beamtalk(["build"], cwd=root)
    assert r.returncode == 1
    # the file is named as typed from where the build runs (it was absolute)
    assert r.stderr.startswith("src/bad.bt:2:"), r.stderr
    assert r.stderr.rstrip().endswith("Build failed: 1 file did not compile")
    assert "Traceback" not in r.stderr
    r = run_beamtalk(["build"], cwd=root / "src")
    assert r.stderr.startswith("bad.bt:2:"), r.stderr


def test_bad_manifest_is_reported_with_its_location(bt_home, tmp_path):
    root = new_package(tmp_path, "odd_app")
    (root / "beamtalk.toml").write_text('[package]\nname = "odd_app"\nversion = "one"\n')
    r = run_beamtalk(["build"], cwd=root)
    assert r.returncode == 1
    # named as typed from the current directory, as src/ files are
    assert r.stderr.startswith("Error: beamtalk.toml:3:11: version 'one' is not a semantic version")


def test_outside_a_package(bt_home, tmp_path):
    r = run_beamtalk(["build"], cwd=tmp_path)
    assert r.returncode == 1 and "no beamtalk.toml in" in r.stderr and "beamtalk new NAME" in r.stderr
    (tmp_path / "script.bt").write_text("Object subclass: LooseScript\n  hi => 1\n")
    r = run_beamtalk(["build", "script.bt"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["  Compiling script.bt \u2192 bt@loose_script", "Build complete: 1 module in build/"]
    assert (tmp_path / "build" / "bt@loose_script.beam").is_file()
    r = run_beamtalk(["new", "Bad-Name"], cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.strip() == ("Error: Package name 'Bad-Name' is invalid — must contain only lowercase "
                                "letters, digits and underscores (try 'bad_name')")
    # seed §8 lists `-dashes-` among the invalid names: it gets the name's
    # error, not argparse's "the following arguments are required: name"
    r = run_beamtalk(["new", "-dashes-"], cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.strip() == ("Error: Package name '-dashes-' is invalid — must start with a lowercase "
                                "letter (try 'dashes')")


def test_build_warns_of_a_superclass_outside_the_package_and_the_stdlib(bt_home, tmp_path):
    """Dependencies are not supported: a class of src/ subclassing another
    package's class built in silence, and its .app could not start."""
    root = new_package(tmp_path, "orphans")
    (root / "src" / "kid.bt").write_text("/// doc\nLib subclass: Kid\n  x => 1\n")
    r = run_beamtalk(["build"], cwd=root)
    assert r.returncode == 0, r.stderr
    assert ("kid.bt:2:1: warning: The superclass of Kid, Lib, is neither in src/ nor in the standard library"
            in r.stderr), r.stderr
    assert "hint: the application will not start until a class Lib is registered" in r.stderr
    (root / "src" / "kid.bt").write_text("Object subclass: Kid\n  x => 1\n")
    r = run_beamtalk(["build"], cwd=root)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr


def test_run_starts_the_application_and_leaves_it_running(bt_home, tmp_path):
    root = new_package(tmp_path, "hello_app")
    try:
        r = run_beamtalk(["run"], cwd=root, timeout=120)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0] == "Hello from hello_app!"
        assert lines[1].startswith("Started hello_app v0.1.0 in workspace '")
        # the workspace keeps the package: a REPL attached later finds its class
        r = run_beamtalk(["repl"], cwd=root, input="Main class\n")
        assert r.stdout.splitlines() == ["Compiled hello_app v0.1.0 (1 class)", "Main class"]
        # a second run finds the start class in the recorded (up to date) build
        again = run_beamtalk(["run"], cwd=root, timeout=120)
        assert again.returncode == 0, again.stderr
        assert again.stdout.splitlines()[0] == "Hello from hello_app!"
    finally:
        stop_project_workspace(root)


def test_run_a_library_says_what_is_missing(bt_home, tmp_path):
    root = new_package(tmp_path, "lib_only")
    (root / "beamtalk.toml").write_text('[package]\nname = "lib_only"\nversion = "0.1.0"\n')
    r = run_beamtalk(["run"], cwd=root)
    assert r.returncode == 1
    assert r.stderr.startswith("Error: lib_only is a library: beamtalk.toml has no start module")


def test_repl_in_a_broken_package_still_starts(bt_home, tmp_path):
    root = new_package(tmp_path, "half_app")
    (root / "src" / "bad.bt").write_text("Object subclass: HalfBad\n  oops => ]\n")
    r = run_beamtalk(["repl", "--ephemeral"], cwd=root, input="3 + 4\n")
    assert r.returncode == 0
    out = r.stdout.splitlines()
    assert out[0] == "half_app: 1 file did not compile:"
    assert "The REPL starts without the package's classes: fix the errors, then :reload." in out
    assert out[-1] == "7"


def test_beamtalk_test_loads_the_package_first(bt_home, tmp_path):
    root = new_package(tmp_path, "tested_app")
    (root / "src" / "tested_tally.bt").write_text(COUNTER.format(name="TestedTally"))
    (root / "test" / "tally_test.bt").write_text(
        "TestCase subclass: TestedTallyTest\n"
        "  testBump =>\n"
        "    t := TestedTally spawn\n"
        "    t bump; bump\n"
        "    self assert: t count equals: 2\n")
    r = run_beamtalk(["test"], cwd=root, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "1 passed, 0 failed"


def test_beamtalk_test_of_a_package_path_from_outside_loads_that_package(bt_home, tmp_path):
    """A CI job at a repository root runs `beamtalk test pkgs/app/test`: the
    package is the one around the test files, not the one around the current
    directory (there used to be none, and every test erred with "Class
    'OutsideTally' not found")."""
    (tmp_path / "pkgs").mkdir()
    root = new_package(tmp_path / "pkgs", "outside_app")
    (root / "src" / "outside_tally.bt").write_text(COUNTER.format(name="OutsideTally"))
    (root / "test" / "tally_test.bt").write_text(
        "TestCase subclass: OutsideTallyTest\n"
        "  testBump =>\n"
        "    t := OutsideTally spawn\n"
        "    t bump\n"
        "    self assert: t count equals: 1\n")
    for arg in ("pkgs/outside_app/test", "pkgs/outside_app/test/tally_test.bt"):
        r = run_beamtalk(["test", arg], cwd=tmp_path, timeout=120)
        assert r.returncode == 0, (arg, r.stdout + r.stderr)
        assert r.stdout.strip().splitlines()[-1] == "1 passed, 0 failed"


async def test_reload_rebuilds_and_hot_reloads_live_actors(repl, tmp_path):
    """`:reload` in a package: the changed class gets its new method, the actor its state."""
    from beamtalk_ws.package import manifest, scaffold

    root = scaffold.new("live_app", tmp_path)
    src = root / "src" / "live_tally.bt"
    src.write_text(COUNTER.format(name="LiveTally"))
    repl.package = manifest.load(root)
    first = await repl.evaluate(":reload")
    assert first.ok, first.text
    assert first.text == "Compiled live_app v0.1.0 (2 classes); 2 reloaded"
    for code in ("t := LiveTally spawn", "t bump; bump"):
        assert (await repl.evaluate(code)).ok
    src.write_text(COUNTER.format(name="LiveTally") + "  double => self.count * 2\n")
    again = await repl.evaluate(":reload")
    assert again.text == "Compiled live_app v0.1.0 (2 classes); 1 reloaded"
    assert (await repl.evaluate("t double")).text == "4"
    same = await repl.evaluate(":r")
    assert same.text == "Compiled live_app v0.1.0 (2 classes); 0 reloaded"
    # a file of the package loaded by hand gets the package's module name
    loaded = await repl.evaluate(f":load {src}")
    assert loaded.ok and (await repl.evaluate("t count")).text == "2"
    assert (await repl.evaluate("Erlang erlang module_loaded: #'bt@live_app@live_tally'")).text == "true"
    assert (await repl.evaluate("Erlang erlang module_loaded: #'bt@live_tally'")).text == "false"


async def test_reload_reports_compile_errors_and_keeps_the_old_class(repl, tmp_path):
    from beamtalk_ws.package import manifest, scaffold
    from beamtalk_ws.shown_path import as_typed

    root = scaffold.new("keep_app", tmp_path)
    src = root / "src" / "kept.bt"
    src.write_text("Object subclass: KeptThing\n  answer => 42\n")
    repl.package = manifest.load(root)
    assert (await repl.evaluate(":reload")).ok
    src.write_text("Object subclass: KeptThing\n  answer => (42\n")
    bad = await repl.evaluate(":reload")
    assert not bad.ok
    assert bad.text.startswith("keep_app: 1 file did not compile:")
    # named as typed from the current directory (absolute when not below it)
    assert f"{as_typed(str(src))}:3:1: Expected ')' to close parentheses" in bad.text
    assert (await repl.evaluate("KeptThing new answer")).text == "42"


@pytest.fixture(autouse=True)
def _no_stray_build_dirs(tmp_path):
    yield
    assert not (Path.cwd() / "build").exists() or Path.cwd() == tmp_path


def test_run_entry_is_evaluated_when_the_repl_starts_the_workspace(bt_home, tmp_path):
    root = new_package(tmp_path, "entry_app")
    with open(root / "beamtalk.toml", "a") as f:
        f.write('\n[run]\nentry = "Main start"\n')
    try:
        r = run_beamtalk(["repl"], cwd=root, input="1 + 1\n")
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["Compiled entry_app v0.1.0 (1 class)", "> Main start",
                                         "Hello from entry_app!", "a TranscriptStream", "2"]
        # attaching again to the running workspace does not run it twice
        again = run_beamtalk(["repl"], cwd=root, input="1 + 2\n")
        assert again.stdout.splitlines() == ["Compiled entry_app v0.1.0 (1 class)", "3"]
    finally:
        stop_project_workspace(root)


def test_repl_with_a_named_workspace_loads_the_package_too(bt_home, tmp_path):
    root = new_package(tmp_path, "named_app")
    r = run_beamtalk(["repl", "--workspace", "pkg-named", "--ephemeral"], cwd=root / "src", input="Main class\n")
    assert r.stdout.splitlines() == ["Compiled named_app v0.1.0 (1 class)", "Main class"]


def test_bad_start_and_watch_paths_are_reported_before_any_workspace_starts(bt_home, tmp_path):
    from beamtalk_ws.workspace import launcher, paths

    root = new_package(tmp_path, "nostart_app")
    (root / "src" / "main.bt").unlink()
    r = run_beamtalk(["run"], cwd=root)
    assert r.returncode == 1
    assert r.stderr.strip().endswith(f"names {root.resolve() / 'src' / 'main.bt'}, which does not exist")
    assert "Starting workspace" not in r.stderr
    w = run_beamtalk(["watch", "no/such.bt"], cwd=root)
    assert w.returncode == 1 and w.stderr.strip() == "Error: no/such.bt: no such file or directory"
    assert launcher.running_info(paths.resolve(None, root)) is None


def test_run_starts_the_manifest_supervisor_before_start(bt_home, tmp_path):
    """`supervisor = "app_sup"`: `beamtalk run` starts it before `start`, as the
    OTP application does, so `start` finds its children; a second run keeps the
    running one (and its children's state) instead of failing or restarting it."""
    root = new_package(tmp_path, "sup_run_app")
    (root / "src" / "sup_tally.bt").write_text(COUNTER.format(name="SupTally"))
    (root / "src" / "app_sup.bt").write_text("Supervisor subclass: SupRunSup\n  class children => #(SupTally)\n")
    (root / "src" / "main.bt").write_text(
        "Object subclass: Main\n"
        "  class start =>\n"
        "    Transcript showCr: \"count \" ++ (SupRunSup current child: #SupTally) bump printString\n")
    manifest = root / "beamtalk.toml"
    manifest.write_text(manifest.read_text().replace('start = "main"', 'start = "main"\nsupervisor = "app_sup"'))
    try:
        r = run_beamtalk(["run"], cwd=root, timeout=120)
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines()[0] == "count 1"
        again = run_beamtalk(["run"], cwd=root, timeout=120)
        assert again.returncode == 0, again.stderr
        assert again.stdout.splitlines()[0] == "count 2"
    finally:
        stop_project_workspace(root)


def test_check_without_a_path_checks_the_package_sources_and_tests(bt_home, tmp_path):
    r = run_beamtalk(["new", "chk"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    pkg = tmp_path / "chk"
    (pkg / "test" / "bad_test.bt").write_text("TestCase subclass: BadTest\n  testIt => 1 +\n")
    r = run_beamtalk(["check"], cwd=pkg)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "test/bad_test.bt:2:15: Unexpected token: expected expression, found +" in r.stdout, r.stdout
    assert "2 files checked: 1 error" in r.stderr
    # from a directory of the package too; outside a package a PATH is needed
    assert run_beamtalk(["check"], cwd=pkg / "src").returncode == 1
    r = run_beamtalk(["check"], cwd=tmp_path)
    assert r.returncode == 2 and "no PATH given" in r.stderr


def test_colon_test_in_a_package_says_its_tests_are_not_loaded(bt_home, tmp_path):
    """`:test` in a package's REPL runs the TestCase classes loaded in the
    workspace; the package's test/ is not among them.  It answered a bare
    "0 passed, 0 failed", which read like a passing suite."""
    root = new_package(tmp_path, "quiet_app")
    (root / "test" / "quiet_test.bt").write_text("TestCase subclass: QuietTest\n  testA => self assert: true\n")
    r = run_beamtalk(["repl", "--ephemeral"], cwd=root, input=":test\n:load test\n:test\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert ("No tests in this workspace: a test is a unary method named test... of a TestCase subclass; "
            "this package's tests are in test/ and are not loaded: `:load test` loads them") in out
    assert out.rstrip().endswith("1 passed, 0 failed")


def test_run_whose_start_raises_says_which_step_failed(bt_home, tmp_path):
    """The error of a failing `start` came alone, with nothing saying it was
    `Main start` of the package that raised it."""
    from beamtalk_ws.workspace import launcher, paths

    root = new_package(tmp_path, "raising_app")
    (root / "src" / "main.bt").write_text(
        "Object subclass: Main\n  class start =>\n    Transcript showCr: \"starting\".\n    3 frobnicate\n")
    try:
        r = run_beamtalk(["run"], cwd=root, timeout=120)
        assert r.returncode == 1
        assert r.stdout == "starting\n"
        assert r.stderr.splitlines()[-4:] == [
            "raising_app: `Main start` failed:", "ERROR: #RuntimeError",
            "  Message: Integer does not understand 'frobnicate'",
            "  Hint: Check spelling or use 'respondsTo:' to verify method exists"]
    finally:
        launcher.kill(paths.resolve(None, root))


def test_build_given_a_package_directory_builds_it(bt_home, tmp_path):
    """`beamtalk build pkgs/app` from a repository root (as `beamtalk test
    pkgs/app/test` works) said "pkgs/app: no such file"."""
    (tmp_path / "pkgs").mkdir()
    root = new_package(tmp_path / "pkgs", "dir_app")
    r = run_beamtalk(["build", os.path.join("pkgs", "dir_app")], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "Build complete: 1 module in _build/dev/ebin/"
    assert (root / "_build" / "dev" / "ebin" / "dir_app.app").is_file()
    (tmp_path / "plain").mkdir()
    r = run_beamtalk(["build", "plain"], cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.strip() == ("Error: plain is a directory without a beamtalk.toml in it or above it: "
                                "beamtalk build builds the package it is given or run in, or one .bt file")


def test_beamtalk_test_names_a_broken_source_file_as_typed(bt_home, tmp_path):
    """A file of src/ that does not compile was named by its absolute path
    (the test files by their relative one)."""
    root = new_package(tmp_path, "broken_src_app")
    (root / "src" / "bad.bt").write_text("Object subclass: BadSrc\n  oops => ]\n")
    (root / "test" / "t_test.bt").write_text("TestCase subclass: TTest\n  testA => self assert: true\n")
    r = run_beamtalk(["test"], cwd=root, timeout=120)
    assert r.returncode == 1
    assert r.stdout.startswith("ERROR: src/bad.bt does not compile\n  src/bad.bt:2:"), r.stdout
    assert r.stdout.rstrip().endswith("1 file did not compile\n1 passed, 0 failed")


def test_a_file_outside_the_current_directory_is_named_by_its_absolute_path(tmp_path, monkeypatch):
    """Files are named as typed (`src/x.bt`) below the current directory; one
    outside it read `../pytest-of-root/…/src/x.bt` (seen in a CI run from a
    clone under /tmp): it keeps its absolute path."""
    from beamtalk_ws.shown_path import as_typed

    inside = tmp_path / "pkg" / "src" / "x.bt"
    inside.parent.mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "pkg")
    assert as_typed(str(inside)) == "src/x.bt"
    elsewhere = tmp_path / "other" / "y.bt"
    assert as_typed(str(elsewhere)) == str(elsewhere)
    assert as_typed("src/z.bt") == "src/z.bt"


def test_run_prints_what_actors_write_for_casts_during_start(workspace, tmp_path):
    """`start` that casts to an actor (`w work: 1!`): the actor's Transcript
    text is background text; the interactive REPL shows it, `beamtalk run`
    printed none of it."""
    root = new_package(tmp_path, "cast_app")
    (root / "src" / "main.bt").write_text(
        "Object subclass: CastMain\n  class start =>\n    w := CastWorker spawn.\n    w work: 1!\n"
        "    Transcript show: \"main {w ping}\"; cr\n")
    (root / "src" / "cast_worker.bt").write_text(
        "Actor subclass: CastWorker\n  work: n => Transcript show: \"working {n}\"; cr. ^n\n  ping => ^#pong\n")
    r = run_beamtalk(["run", "--workspace", workspace.id], cwd=root, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:2] == ["working 1", "main pong"]
