"""A built package is an OTP application a plain `erl` starts (issue 12 item 4):
`_build/dev/lib/{beamtalk_runtime,beamtalk_stdlib}/ebin` beside the package's
`_build/dev/ebin`, a `{mod, ...}` that runs the start class under the
application's supervisor and starts the manifest's top supervisor; and a build
whose sources define one class twice fails naming both files."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import run_beamtalk

MAIN = """\
/// Writes a file and a Transcript line when the application starts.
Object subclass: Main
  class start =>
    File writeAll: "{marker}" contents: "started {name}".
    Transcript showCr: "Hello from {name}!"
"""


def new_package(tmp_path: Path, name: str) -> Path:
    r = run_beamtalk(["new", name], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return tmp_path / name


def build(root: Path):
    return run_beamtalk(["build"], cwd=root, timeout=300)


def plain_erl(root: Path, expr: str) -> subprocess.CompletedProcess:
    """`erl -noshell -pa _build/dev/ebin -pa _build/dev/lib/*/ebin -eval EXPR` in the package."""
    libs = sorted(str(p) for p in (root / "_build" / "dev" / "lib").glob("*/ebin"))
    args = ["erl", "-noshell", "-pa", "_build/dev/ebin"]
    for lib in libs:
        args += ["-pa", lib]
    return subprocess.run(args + ["-eval", expr], cwd=root, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


# Flush the Transcript echo before halting: the start's showCr: has been
# handled by the Transcript when start returned; the console then writes it.
FLUSH = "sys:get_state(beamtalk_transcript), sys:get_state(beamtalk_console), "


def test_a_new_package_starts_with_ensure_all_started_on_a_plain_node(bt_home, tmp_path):
    root = new_package(tmp_path, "hello_otp")
    marker = tmp_path / "started.txt"
    (root / "src" / "main.bt").write_text(MAIN.format(marker=marker, name="hello_otp"))
    r = build(root)
    assert r.returncode == 0, r.stderr
    lib = root / "_build" / "dev" / "lib"
    assert sorted(p.name for p in lib.iterdir()) == ["beamtalk_runtime", "beamtalk_stdlib"]
    assert (lib / "beamtalk_runtime" / "ebin" / "beamtalk_runtime.app").is_file()
    assert (lib / "beamtalk_runtime" / "ebin" / "beamtalk_app.beam").is_file()
    assert (lib / "beamtalk_stdlib" / "ebin" / "beamtalk_stdlib.app").is_file()
    assert (lib / "beamtalk_stdlib" / "ebin" / "bt@stdlib@supervisor.beam").is_file()

    out = plain_erl(root, "{ok, Started} = application:ensure_all_started(hello_otp), " + FLUSH +
                    'io:format("started ~w~n", [Started]), halt().')
    assert out.returncode == 0, out.stdout + out.stderr
    assert marker.read_text() == "started hello_otp"
    lines = out.stdout.splitlines()
    assert "Hello from hello_otp!" in lines
    assert lines[-1] == "started [compiler,beamtalk_runtime,beamtalk_stdlib,hello_otp]"


def test_the_app_file_names_its_callback_and_the_runtime_apps(bt_home, tmp_path):
    root = new_package(tmp_path, "app_file")
    assert build(root).returncode == 0
    expr = ('{ok, [{application, A, P}]} = file:consult("_build/dev/ebin/app_file.app"), '
            'io:format("~w~n~w~n~w~n", [proplists:get_value(mod, P), proplists:get_value(applications, P), '
            'proplists:get_value(start_class, proplists:get_value(env, P))]), '
            '{ok, [{application, R, RP}]} = file:consult("_build/dev/lib/beamtalk_runtime/ebin/beamtalk_runtime.app"), '
            'io:format("~w ~w~n", [R, proplists:get_value(mod, RP)]), halt().')
    out = plain_erl(root, expr)
    assert out.stdout.splitlines() == [
        "{beamtalk_app,{package,app_file}}",
        "[kernel,stdlib,beamtalk_runtime,beamtalk_stdlib]",
        "'Main'",
        "beamtalk_runtime {beamtalk_app,runtime}",
    ], out.stderr


COUNTER = """\
Actor subclass: Counter
  state: count = 0
  bump => self.count := self.count + 1
  count => self.count
"""

APP_SUP = """\
/// The application's top supervisor.
Supervisor subclass: AppSup
  class children => #(Counter)
"""

SUP_MAIN = """\
Object subclass: Main
  class start =>
    c := AppSup current child: #Counter.
    c bump; bump.
    File writeAll: "{marker}" contents: c count printString
"""


def test_the_manifest_names_the_top_supervisor_started_under_the_application(bt_home, tmp_path):
    root = new_package(tmp_path, "sup_app")
    manifest = root / "beamtalk.toml"
    manifest.write_text(manifest.read_text().replace('start = "main"', 'start = "main"\nsupervisor = "app_sup"'))
    marker = tmp_path / "count.txt"
    (root / "src" / "counter.bt").write_text(COUNTER)
    (root / "src" / "app_sup.bt").write_text(APP_SUP)
    (root / "src" / "main.bt").write_text(SUP_MAIN.format(marker=marker))
    r = build(root)
    assert r.returncode == 0, r.stderr
    expr = ("{ok, _} = application:ensure_all_started(sup_app), "
            "[{'Counter', C, worker, _}] = supervisor:which_children('AppSup'), "
            "exit(C, kill), "
            "Wait = fun W(0) -> gave_up; W(N) -> case supervisor:which_children('AppSup') of "
            "  [{_, C2, _, _}] when is_pid(C2), C2 =/= C -> restarted; _ -> timer:sleep(20), W(N - 1) end end, "
            "io:format(\"~w~n\", [Wait(250)]), "
            "ok = application:stop(sup_app), "
            "io:format(\"~w~n\", [whereis('AppSup')]), "
            # an orderly stop, not halt(): the logger prints the supervisor's
            # report from its own process, and halt() could cut it off (seen once in CI)
            "init:stop().")
    out = plain_erl(root, expr)
    assert out.returncode == 0, out.stdout + out.stderr
    # start ran after the supervisor's children were up, and found them by id
    assert marker.read_text() == "2"
    # (OTP's own supervisor report about the kill is printed too)
    assert "errorContext: child_terminated" in out.stdout
    assert [x for x in out.stdout.splitlines() if x in ("restarted", "gave_up", "undefined")] == [
        "restarted", "undefined"]


def test_a_failing_start_fails_the_application_start_with_its_message(bt_home, tmp_path):
    root = new_package(tmp_path, "bad_start")
    (root / "src" / "main.bt").write_text('Object subclass: Main\n  class start => self error: "no database"\n')
    assert build(root).returncode == 0
    out = plain_erl(root, 'io:format("~w~n", [application:ensure_all_started(bad_start)]), halt().')
    assert out.stderr.splitlines() == ["bad_start: Main start failed: Error: no database"]
    assert "{error,{bad_start," in out.stdout


def test_two_files_defining_one_class_fail_the_build_naming_both(bt_home, tmp_path):
    root = new_package(tmp_path, "dup_class")
    (root / "src" / "util").mkdir()
    (root / "src" / "counter.bt").write_text(COUNTER)
    (root / "src" / "util" / "tally.bt").write_text(COUNTER.replace("bump", "up"))
    r = build(root)
    assert r.returncode == 1
    assert "Class Counter is defined in 2 files: src/counter.bt, src/util/tally.bt" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (root / "_build" / "dev" / "ebin" / "dup_class.app").exists()


def test_supervisor_key_errors(bt_home, tmp_path):
    root = new_package(tmp_path, "sup_errors")
    manifest = root / "beamtalk.toml"
    text = manifest.read_text()
    manifest.write_text(text.replace('start = "main"', 'start = "main"\nsupervisor = "counter"'))
    (root / "src" / "counter.bt").write_text(COUNTER)
    r = build(root)
    assert r.returncode == 1
    assert 'supervisor = "counter" names Counter, which is not a Supervisor subclass' in r.stderr
    manifest.write_text(text.replace('start = "main"', 'start = "main"\nsupervisor = "nope"'))
    r = build(root)
    assert r.returncode == 1 and 'supervisor = "nope" but src/nope.bt does not exist' in r.stderr
    manifest.write_text(text.replace('start = "main"', 'start = "main"\nsupervisor = 3'))
    r = build(root)
    assert r.returncode == 1 and "beamtalk.toml:6:14: supervisor 3 is not the name of a file in src/" in r.stderr
