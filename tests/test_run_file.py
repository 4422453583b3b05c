"""`beamtalk run FILE`: a single `.bt` file run outside a package, as a
learner runs a first program (a script of statements, or one class with a
class-side `start`)."""

from __future__ import annotations

from conftest import run_beamtalk

FIZZ = """\
// FizzBuzz, a script
1 to: 15 do: [:i |
  Transcript show: ((i % 15 = 0) ifTrue: ["FizzBuzz"] ifFalse: [(i % 3 = 0) ifTrue: ["Fizz"]
    ifFalse: [(i % 5 = 0) ifTrue: ["Buzz"] ifFalse: [i printString]]]); cr]
"""


def fizzbuzz(n):
    return ["FizzBuzz" if i % 15 == 0 else "Fizz" if i % 3 == 0 else "Buzz" if i % 5 == 0 else str(i)
            for i in range(1, n + 1)]


def run_file(workspace, tmp_path, name, text, *more):
    (tmp_path / name).write_text(text)
    return run_beamtalk(["run", name, "--workspace", workspace.id, *more], cwd=tmp_path, timeout=120)


def test_a_script_of_statements_runs_and_only_its_output_is_printed(workspace, tmp_path):
    r = run_file(workspace, tmp_path, "fizz.bt", FIZZ)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == fizzbuzz(15)


def test_classes_then_statements_run_in_order(workspace, tmp_path):
    r = run_file(workspace, tmp_path, "hanoi.bt", """\
Object subclass: RunHanoi
  class move: n from: a to: b via: c =>
    n = 0 ifTrue: [^0].
    k := self move: n - 1 from: a to: c via: b.
    Transcript show: "{a}->{b} ".
    ^k + 1 + (self move: n - 1 from: c to: b via: a)

total := RunHanoi move: 2 from: #a to: #c via: #b.
Transcript cr; show: "moves: {total}"; cr
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "a->b a->c b->c \nmoves: 3\n"


def test_a_file_of_one_class_is_loaded_and_sent_start(workspace, tmp_path):
    r = run_file(workspace, tmp_path, "main.bt", """\
Object subclass: RunMain
  class start => Transcript show: (RunMain perfect: 10000) printString; cr
  class perfect: n => ^((1 to: n) select: [:k | ((1 to: k - 1) select: [:d | k % d = 0]) sum = k]) asList
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "#(6, 28, 496, 8128)\n"


def test_a_failing_script_stops_with_the_error_after_its_output(workspace, tmp_path):
    r = run_file(workspace, tmp_path, "bad.bt", 'Transcript show: "before"; cr.\nx := 3 foo.\n'
                                                'Transcript show: "after"; cr\n')
    assert r.returncode == 1
    assert r.stdout == "before\n"
    assert "Integer does not understand 'foo'" in r.stderr
    assert "Traceback" not in r.stderr


def test_syntax_errors_name_the_file_and_run_nothing(workspace, tmp_path):
    r = run_file(workspace, tmp_path, "typo.bt", 'Transcript show: "x"; cr.\ny := (1 + .\n')
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr.startswith("typo.bt:2:")


def test_each_run_starts_without_the_variables_of_the_last(workspace, tmp_path):
    assert run_file(workspace, tmp_path, "one.bt", "leftover := 42\n").returncode == 0
    r = run_file(workspace, tmp_path, "two.bt", "Transcript show: leftover printString; cr\n")
    assert r.returncode == 1
    assert "two.bt:1:18: Undefined variable: leftover" in r.stderr


def test_nothing_to_run_and_missing_files_are_explained(workspace, tmp_path):
    r = run_file(workspace, tmp_path, "lib.bt", "Object subclass: RunLib\n  start => 1\n")
    assert r.returncode == 1
    assert r.stderr.strip() == (
        "Error: lib.bt has nothing to run: no statements and no class-side start method "
        "(add `class start => ...` to RunLib, or end the file with the statements to run)")
    r = run_beamtalk(["run", "nope.bt", "--workspace", workspace.id], cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.strip() == "Error: nope.bt: no such file"


def test_what_an_actor_writes_for_a_cast_is_printed_in_order(workspace, tmp_path):
    # `w work: 1!` is a cast: the actor's Transcript text is background text,
    # which the interactive REPL shows as it comes; a run printed none of it
    r = run_file(workspace, tmp_path, "cast.bt", """\
Actor subclass: RunWorker
  work: n => Transcript show: "working {n}"; cr. ^n
  ping => ^#pong
w := RunWorker spawn.
w work: 1!
w work: 2!
Transcript show: "main {w ping}"; cr
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "working 1\nworking 2\nmain pong\n"
