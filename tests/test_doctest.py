"""Doc-test files (`code // => expected`, spec/stdlib.md §11): how a file splits
into inputs and expectations, how results match, and `beamtalk test` running one."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_beamtalk

from beamtalk_ws.doctest import DocCase, cases, is_doctest, matches


def test_inputs_run_up_to_each_expectation():
    text = ("// setup\nx := 3 + 4\nx * 2   // => 14\n\"hi\" size\n// => 2\n"
            "Object subclass: DocA\n  a => 1\nDocA new a\n// => 1\nx := 0\n")
    assert cases(text) == [
        DocCase("// setup\nx := 3 + 4\nx * 2", "14", 3),
        DocCase('"hi" size', "2", 5),
        DocCase("Object subclass: DocA\n  a => 1\nDocA new a", "1", 9),
        DocCase("x := 0", None, 10),
    ]


def test_markers_inside_literals_are_code():
    assert cases('"a // => b" size // => 9') == [DocCase('"a // => b" size', "9", 1)]
    assert not is_doctest('x := "// => not a marker"\n')
    assert is_doctest("3 + 4 //=> 7\n")


def test_blank_lines_inside_an_input_are_kept():
    # a multi-line string keeps its empty lines; blank lines between cases are dropped
    assert cases('x := 1 // => 1\n\n"a\n\nb" lines\n// => #("a", "", "b")\n') == [
        DocCase("x := 1", "1", 1), DocCase('"a\n\nb" lines', '#("a", "", "b")', 6)]


def test_consecutive_markers_are_one_expectation():
    assert cases("Transcript showCr: 1\n// => line one\n// => line two\n") == [
        DocCase("Transcript showCr: 1", "line one\nline two", 2)]


def test_matching():
    assert matches("14", True, "14")
    assert matches("hello", True, '"hello"')            # display form of a String
    assert matches('"hello"', True, '"hello"')
    assert matches("foo", True, "#foo")                 # display form of a Symbol
    assert matches("2 tests, 2 passed (_)", True, "2 tests, 2 passed (0.0s)")
    assert matches("#(1, _)", True, "#(1, 2, 3)")
    assert not matches("my_var", True, "myXvar")       # `_` inside a word is literal
    assert not matches("15", True, "14")
    assert matches("does not understand", False, "ERROR: #RuntimeError\n  Message: 42 does not understand 'x'")
    assert not matches("14", False, "ERROR: #RuntimeError\n  Message: badarith")
    # the source a compile error quotes is not part of the error text
    parse_error = "x.bt:1:1: Unexpected token: expected expression, found {\n    {1, 2}\n    ^"
    assert not matches("{1, 2}", False, parse_error, "{1, 2}")
    assert matches("found {", False, parse_error, "{1, 2}")
    # nor is the location in front of it: `3 + // => 7` passed when the file's
    # path held a 7 (pytest's /tmp/pytest-of-root/pytest-733/…)
    located = "/tmp/pytest-733/doc.bt:6:3: Unexpected token: expected expression, found +\n    3 +\n      ^"
    assert not matches("7", False, located, "3 +")
    assert matches("found +", False, located, "3 +")


def test_an_expected_value_does_not_match_the_location_or_part_of_a_word_of_an_error():
    # `1 + // => 2` on line 2 of a file passed: its parse error starts with
    # "f_doctest.bt:2:3:", which holds a 2; and `// => 2` passed on "Index 12"
    parse_error = ("f_doctest.bt:2:3: Unexpected token: expected expression, found +\n    1 +\n      ^\n"
                   "  hint: the input ends after `+`: an expression must follow it")
    assert not matches("2", False, parse_error, "1 +")
    assert not matches("3", False, parse_error, "1 +")
    assert not matches("2", False, "ERROR: #RuntimeError\n  Message: Index 12 out of bounds for List of size 3")
    assert matches("12 out of", False, "ERROR: #RuntimeError\n  Message: Index 12 out of bounds for List of size 3")
    assert matches("found +", False, parse_error, "1 +")
    assert matches("_ does not understand", False, "ERROR: #RuntimeError\n  Message: 42 does not understand 'x'")


def test_beamtalk_test_runs_doc_files_beside_test_cases(bt_home, tmp_path):
    (tmp_path / "math_doc.bt").write_text(
        "x := 6 * 7\nx          // => 42\nx + 1      // => 99\n42 frobnicate // => does not understand\n")
    (tmp_path / "small_test.bt").write_text("TestCase subclass: SmallTest\n  testOne => self assert: true\n")
    r = run_beamtalk(["test", str(tmp_path), "--format", "json"], timeout=120)
    got = [json.loads(line) for line in r.stdout.splitlines()]
    assert got == [
        {"class": "SmallTest", "test": "testOne", "status": "pass", "message": ""},
        {"class": "math_doc.bt", "test": "line 2", "status": "pass", "message": ""},
        {"class": "math_doc.bt", "test": "line 3", "status": "fail", "message": "x + 1\nExpected 99, got 43"},
        {"class": "math_doc.bt", "test": "line 4", "status": "pass", "message": ""},
    ]
    assert r.returncode == 1
    text = run_beamtalk(["test", str(tmp_path)], timeout=120)
    assert text.stdout.splitlines()[0] == "FAIL: math_doc.bt >> line 3"
    assert text.stdout.splitlines()[-1] == "3 passed, 1 failed"


def test_beamtalk_check_reads_a_doctest_file_as_a_repl_transcript(tmp_path):
    """`check` used to apply the class-file rule to doc-test files ("A loaded
    file may contain only a class definition"): 145 errors on the project's
    own stdlib/test.  Their inputs are checked as the REPL runs them."""
    from conftest import run_beamtalk

    root = Path(__file__).resolve().parents[1]
    proc = run_beamtalk(["check", str(root / "stdlib"), str(root / "stdlib" / "test")])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no errors" in proc.stderr
    bad = tmp_path / "bad_doctest.bt"
    bad.write_text("Object subclass: Kd\n  foo => 1\nx := Kd new foo   // => 1\nx + y   // => 2\n")
    proc = run_beamtalk(["check", str(bad)])
    assert proc.returncode == 1 and "4:5: Undefined variable: y" in proc.stdout


def test_examples_in_doc_comments_do_not_make_a_class_file_a_doctest():
    assert not is_doctest('/// ```\n/// 3 + 4   // => 7\n/// ```\nObject subclass: A\n  foo => 1\n')
    assert is_doctest("3 + 4   // => 7\n")


def test_each_input_knows_its_first_line():
    text = "x := 1\n\n// a comment\ny := 2\ny + 1 // => 3\n\n\"a\n\nb\" size // => 4\n"
    assert [(c.first, c.line) for c in cases(text)] == [(1, 5), (7, 9)]


def test_an_error_in_a_doc_test_names_the_line_of_the_file(bt_home, tmp_path):
    """The inputs of a doc-test file were compiled as if each began at line 1:
    a syntax error at line 6 of the file read `doc.bt:1:3`."""
    (tmp_path / "doc.bt").write_text("3 + 4 // => 7\n\nx := 2\n\ny := x * 3\n3 + // => 7\n")
    r = run_beamtalk(["test", str(tmp_path / "doc.bt"), "--format", "json"], timeout=120)
    got = [json.loads(line) for line in r.stdout.splitlines()]
    assert [g["status"] for g in got] == ["pass", "fail"]
    assert "doc.bt:6:3: Unexpected token" in got[1]["message"]
    assert "doc.bt:1:" not in got[1]["message"]
