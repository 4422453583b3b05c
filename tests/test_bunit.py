"""BUnit against a real workspace (issue 4 item 3; spec stdlib §11): the test life
cycle, assertion texts, discovery, inherited tests, failures vs errors, the
runAll/run: strings, TestRunner and TestResult, and the REPL's `:test`."""

from __future__ import annotations

import re
import uuid

import pytest

from helpers import ok

SEMANTICS = """\
TestCase subclass: LifeCycleTest
  state: log = #()
  class timeout => 300
  setUp =>
    self.log := #(#setUp)
  tearDown =>
    Transcript show: "tearDown:"; show: self.log size printString; cr
  testSetUpValue => self assert: self.log equals: #(#setUp)
  testFails => self assert: false
  testErrors => 3 foo
  testTimesOut => [true] whileTrue: [nil]
  testB => self assert: true
  testA => self assert: true
  helper => 1
  test: x => x
"""

ASSERTIONS = """\
TestCase subclass: AssertionTextsTest
  testAssert => self assert: nil
  testDeny => self deny: 3
  testEquals => self assert: #(1, "a") equals: #(1, "b")
  testEqualsIsStrict => self assert: 1 equals: 1.0
  testShouldRaiseNothing => self should: [3 + 4] raise: #badarith
  testShouldRaiseOther => self should: [1 / 0] raise: #does_not_understand
  testFail => self fail: "unconditional"
  testShouldntRaise => self shouldnt: [3 foo] raise: #does_not_understand
  testPassingShoulds =>
    self should: [1 / 0] raise: #badarith.
    self should: [3 foo] raise: #does_not_understand.
    self should: [self error: "x"] raise: #user_error.
    self should: [self assert: false] raise: #assertion_failed.
    self shouldnt: [3 + 4] raise: #badarith.
    self assert: 3 equals: 3.
    self deny: false
"""


async def load(repl, tmp_path, name, source):
    path = tmp_path / name
    path.write_text(source)
    out = await repl.evaluate(f":load {path}")
    assert out.ok, out.text


async def run(repl, *classes):
    chunks = []
    reply = await repl.client.run_tests(list(classes), on_output=chunks.append)
    assert reply.ok, reply.text
    return reply.results, "".join(chunks)


async def test_life_cycle_discovery_and_outcomes(repl, tmp_path):
    await load(repl, tmp_path, "life_cycle_test.bt", SEMANTICS)
    results, output = await run(repl, "LifeCycleTest")
    # Discovery: unary test* selectors, alphabetically; helper and test: are not tests.
    assert [r.test for r in results] == ["testA", "testB", "testErrors", "testFails", "testSetUpValue",
                                         "testTimesOut"]
    by = {r.test: r for r in results}
    assert by["testSetUpValue"].status == "pass"          # setUp's answer is the instance
    assert (by["testFails"].status, by["testFails"].message) == ("fail", "Assertion failed: expected true, got false")
    assert (by["testErrors"].status, by["testErrors"].message) == ("error", "RuntimeError: Integer does not understand 'foo'")
    assert (by["testTimesOut"].status, by["testTimesOut"].message) == ("error", "Test timed out after 300 ms")
    # tearDown ran after every test (passes, the failure, the error, the timeout), on the set-up instance.
    assert output.count("tearDown:1\n") == 6


async def test_assertion_failure_texts(repl, tmp_path):
    await load(repl, tmp_path, "assertion_texts_test.bt", ASSERTIONS)
    results, _ = await run(repl, "AssertionTextsTest")
    got = {r.test: (r.status, r.message) for r in results}
    assert got == {
        "testAssert": ("fail", "Assertion failed: expected true, got nil"),
        "testDeny": ("fail", "Denial failed: expected false, got 3"),
        "testEquals": ("fail", "Expected #(1, \"b\"), got #(1, \"a\")"),
        "testEqualsIsStrict": ("fail", "Expected 1.0, got 1"),
        "testShouldRaiseNothing": ("fail", "Expected block to raise badarith but it completed normally"),
        "testShouldRaiseOther": ("fail", "Expected error kind does_not_understand but got badarith"),
        "testFail": ("fail", "unconditional"),
        "testShouldntRaise": ("fail", "Expected block not to raise does_not_understand but it raised: "
                                      "Integer does not understand 'foo'"),
        "testPassingShoulds": ("pass", None),
    }


async def test_setup_answer_rules_and_failing_setup(repl):
    # Typed at the REPL (the dynamic class path), not loaded from a file.
    await ok(repl, "TestCase subclass: KeepInstanceTest\n"
                   "  state: n = 1\n"
                   "  setUp => 42\n"
                   "  testN => self assert: self.n equals: 1")
    await ok(repl, "TestCase subclass: BrokenSetUpTest\n"
                   "  setUp => self error: \"no database\"\n"
                   "  tearDown => Transcript show: \"cleaned\"\n"
                   "  testX => self assert: true")
    results, output = await run(repl, "KeepInstanceTest", "BrokenSetUpTest")
    assert [(r.cls, r.test, r.status, r.message) for r in results] == [
        ("KeepInstanceTest", "testN", "pass", None),
        ("BrokenSetUpTest", "testX", "error", "setUp failed: no database"),
    ]
    assert output == "cleaned"


async def test_inherited_tests_run_for_the_subclass(repl):
    await ok(repl, "TestCase subclass: ParentCaseTest\n"
                   "  testInherited => self assert: self answer equals: 1\n"
                   "  answer => 1")
    await ok(repl, "ParentCaseTest subclass: ChildCaseTest\n"
                   "  testOwn => self assert: true\n"
                   "  answer => 2")
    results, _ = await run(repl, "ChildCaseTest")
    assert [(r.cls, r.test, r.status) for r in results] == [
        ("ChildCaseTest", "testInherited", "fail"), ("ChildCaseTest", "testOwn", "pass")]
    assert await ok(repl, "ChildCaseTest testSelectors") == "#(#testInherited, #testOwn)"


async def test_run_all_run_and_test_runner(repl):
    await ok(repl, "TestCase subclass: StringsTest\n"
                   "  testOne => self assert: 1 < 2\n"
                   "  testTwo => self assert: 2 equals: 3")
    await ok(repl, "TestCase subclass: GreenStringsTest\n"
                   "  testOne => self assert: true\n"
                   "  testTwo => self deny: false")
    await ok(repl, "TestCase subclass: NoTestsTest\n  helper => 1")
    assert re.fullmatch(r'"2 tests, 2 passed \(\d+\.\ds\)"', await ok(repl, "GreenStringsTest runAll"))
    text = await ok(repl, "StringsTest runAll")
    assert re.fullmatch(r'"2 tests, 1 passed, 1 failed \(\d+\.\ds\)\n\n  FAIL: testTwo\n    Expected 3, got 2"', text)
    assert re.fullmatch(r'"1 tests, 1 passed \(\d+\.\ds\)"', await ok(repl, "StringsTest run: #testOne"))
    assert await ok(repl, "StringsTest run: #testNope") == '"Method \'testNope\' not found in StringsTest"'
    assert await ok(repl, "NoTestsTest runAll") == '"No test methods found in NoTestsTest"'
    await ok(repl, "r := TestRunner run: StringsTest")
    assert await ok(repl, "r") == "TestResult(1/2 passed)"
    assert await ok(repl, "#(r passed, r failed, r total, r hasPassed)") == "#(1, 1, 2, false)"
    assert await ok(repl, "r duration class") == "Float"
    assert await ok(repl, "r failures") == \
        '#(#{#class => #StringsTest, #message => "Expected 3, got 2", #status => #fail, #test => #testTwo})'
    assert await ok(repl, "(TestRunner run: GreenStringsTest method: #testOne) printString") == \
        '"TestResult(1/1 passed)"'
    out = await repl.evaluate("TestRunner run: Integer")
    assert not out.ok and "Integer is not a TestCase subclass" in out.text


async def test_colon_test_with_a_class(repl):
    await ok(repl, "TestCase subclass: ColonTest\n"
                   "  testGood => self assert: true\n"
                   "  testBad => self assert: 1 equals: 2\n"
                   "  testUgly => nil foo")
    out = await repl.evaluate(":test ColonTest")
    assert not out.ok
    assert out.text == ("FAIL: ColonTest >> testBad\n"
                        "  Expected 2, got 1\n"
                        "ERROR: ColonTest >> testUgly\n"
                        "  RuntimeError: UndefinedObject does not understand 'foo'\n"
                        "\n"
                        "1 passed, 2 failed")
    await ok(repl, "TestCase subclass: ColonGreenTest\n  testGood => self assert: true")
    assert (await repl.evaluate(":t ColonGreenTest")).text == "1 passed, 0 failed"
    out = await repl.evaluate(":test Integer")
    assert not out.ok and "Integer is not a TestCase subclass" in out.text
    out = await repl.evaluate(":test NoSuchClassAnywhere")
    assert not out.ok and "Class 'NoSuchClassAnywhere' not found" in out.text
    out = await repl.evaluate(":test lower")
    assert not out.ok and out.text == "Usage: :test [ClassName]"


@pytest.fixture(scope="module")
def private_workspace(bt_home):
    """A workspace of its own: `:test` without a class runs every TestCase subclass on the node."""
    from beamtalk_ws.workspace import launcher, paths

    ws = paths.resolve("pytest-bunit-" + uuid.uuid4().hex[:8])
    launcher.start(ws, idle_timeout=None)
    try:
        yield ws
    finally:
        launcher.kill(ws)


async def test_colon_test_runs_every_test_case_subclass(private_workspace):
    from beamtalk_ws.repl.core import Repl
    from beamtalk_ws.workspace.client import WorkspaceClient

    client = await WorkspaceClient.connect(private_workspace, session="s1")
    try:
        repl = Repl(client)
        # an empty run says why, rather than a bare "0 passed, 0 failed"
        assert (await repl.evaluate(":test")).text == (
            "No tests in this workspace: a test is a unary method named test... of a TestCase subclass "
            "(define one, or :load a test file)\n0 passed, 0 failed")
        await ok(repl, "TestCase subclass: OneTest\n  testA => self assert: true")
        await ok(repl, "TestCase subclass: TwoTest\n  testB => Transcript show: \"out\". self fail: \"no\"")
        await ok(repl, "abstract TestCase subclass: AbstractBaseTest\n  testC => self assert: true")
        await ok(repl, "Object subclass: NotATest\n  testD => 1")
        chunks = []
        out = await repl.evaluate(":t", on_output=chunks.append)
        assert not out.ok
        assert out.text == "FAIL: TwoTest >> testB\n  no\n\n1 passed, 1 failed"
        assert chunks == ["out"]
        # A session's `:test` sees classes defined in any session (they are global to the node).
        other = await WorkspaceClient.connect(private_workspace, session="s2")
        try:
            assert (await Repl(other).evaluate(":test OneTest")).text == "1 passed, 0 failed"
        finally:
            await other.close()
    finally:
        await client.close()


async def test_colon_test_through_the_json_protocol(workspace):
    import json

    from conftest import run_beamtalk

    requests = [
        {"id": 1, "op": "eval", "code": "TestCase subclass: JsonColonTest\n  testA => Transcript show: \"hi\". self assert: true"},
        {"id": 2, "op": "eval", "code": ":test JsonColonTest"},
    ]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id, "--session", "j" + uuid.uuid4().hex[:6]],
                        input="".join(json.dumps(r) + "\n" for r in requests))
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[1:] == [{"id": 2, "output": "hi"}, {"id": 2, "value": "1 passed, 0 failed"}]


LOCATED = """\
TestCase subclass: LocatedTest
  testOneLine => self assert: 3 equals: 4
  testEarlyLine =>
    self assert: 1 equals: 2.
    self assert: true
  testLastLine =>
    x := 1.
    self deny: x = 1
  testPasses => self assert: true
"""


async def test_failures_name_the_file_and_line(repl, tmp_path):
    # An ExUnit/pytest user looks for file:line: the line of the failing
    # statement, also when the failing assertion ends the method (a test
    # method's last statement is compiled as no tail call, so its frame stays).
    await load(repl, tmp_path, "located_test.bt", LOCATED)
    results, _ = await run(repl, "LocatedTest")
    where = {r.test: r.location for r in results}
    path = str(tmp_path / "located_test.bt")
    assert where == {"testEarlyLine": f"{path}:4", "testLastLine": f"{path}:8",
                     "testOneLine": f"{path}:2", "testPasses": None}
    by = {r.test: r for r in results}
    assert by["testOneLine"].as_json()["message"] == f"{path}:2: Expected 4, got 3"
    report = await ok(repl, "LocatedTest runAll")
    assert "  FAIL: testOneLine\n    located_test.bt:2: Expected 4, got 3" in report
    assert "located_test.bt:4" in await ok(repl, "(TestRunner run: LocatedTest) failures first")
    out = await repl.evaluate(":test LocatedTest")
    assert f"FAIL: LocatedTest >> testEarlyLine\n  {path}:4: Expected 2, got 1\n" in out.text


SUNIT = """\
TestCase subclass: SunitHabitsTest
  testDescription => self assert: false description: "should hold"
  testSkip => self skip
  testDenyEquals => self deny: 3 equals: 4
  testBlockShould => self should: [1 > 2]
  testOtherDnu => 3 frobnicate
"""


async def test_assertions_of_sunit_and_exunit_get_the_bunit_spelling_as_hint(repl, tmp_path):
    await load(repl, tmp_path, "sunit_habits_test.bt", SUNIT)
    results, _ = await run(repl, "SunitHabitsTest")
    got = {r.test: r.message for r in results}
    assert got["testDescription"] == (
        "RuntimeError: SunitHabitsTest does not understand 'assert:description:'\n"
        "Hint: BUnit's assert: takes no description: write cond ifFalse: [self fail: \"why\"], or "
        "self assert: actual equals: expected (its failure shows both values)")
    assert got["testSkip"].endswith("\nHint: BUnit has no skipped tests: a method whose name does not "
                                    "start with test is not run (rename testFoo to pendingFoo)")
    assert got["testDenyEquals"].endswith("\nHint: write self deny: actual = expected")
    assert "should: [...] raise: #kind" in got["testBlockShould"]
    # the generic "Check spelling" hint is not repeated in reports
    assert got["testOtherDnu"] == "RuntimeError: Integer does not understand 'frobnicate'"
    # the same hint at the prompt, for the class side too
    out = await repl.evaluate("TestCase new refute: false")
    assert "Hint: deny: cond fails unless cond is false" in out.text
    out = await repl.evaluate("SunitHabitsTest suite run")
    assert "FooTest runAll" in out.text
    # Other receivers keep their own hints
    out = await repl.evaluate("3 skip")
    assert "no skipped tests" not in out.text


async def test_actors_a_test_spawns_are_stopped_after_it(repl):
    # SUnit in Pharo terminates the processes a test forked, ExUnit's linked
    # processes end with the test: actors a test (or its setUp) left running
    # used to pile up in the workspace at every `:test`.
    await ok(repl, "Actor subclass: LeftOverProbe\n  state: n = 0\n  bump => self.n := self.n + 1\n  n => self.n")
    await ok(repl, "TestCase subclass: LeftOverTest\n"
                   "  state: a = nil\n"
                   "  class timeout => 300\n"
                   "  setUp => self.a := LeftOverProbe spawn\n"
                   "  testBump => self.a bump. self assert: self.a n equals: 1\n"
                   "  testMore => LeftOverProbe spawn; spawn. self assert: (Workspace actorsOf: LeftOverProbe) size equals: 4\n"
                   "  testHangs => LeftOverProbe spawn. [true] whileTrue: [nil]")
    await ok(repl, "keep := LeftOverProbe spawn")     # the user's own actor stays
    for _ in range(2):
        results, _ = await run(repl, "LeftOverTest")
        assert [(r.test, r.status) for r in results] == [("testBump", "pass"), ("testHangs", "error"),
                                                         ("testMore", "pass")]
        assert await ok(repl, "(Workspace actorsOf: LeftOverProbe) size") == "1"
    assert await ok(repl, "keep isAlive") == "true"


async def test_colon_test_of_a_class_without_tests_says_so(repl):
    await ok(repl, "TestCase subclass: NoTestsHereTest\n  testWith: x => x\n  helper => 1")
    out = await repl.evaluate(":test NoTestsHereTest")
    assert out.text == ("No test methods found in NoTestsHereTest: a test is a unary method named "
                        "test... of a TestCase subclass\n0 passed, 0 failed")


async def test_assert_equals_shows_print_strings_when_display_strings_hide_the_difference(repl):
    # `Expected abc, got abc` (a Symbol against a String) and `Expected x, got `
    # (an empty String) said nothing about what differed.
    await ok(repl, "TestCase subclass: LookAlikeTest\n"
                   "  testSymbolString => self assert: #abc equals: \"abc\"\n"
                   "  testEmpty => self assert: \"\" equals: \"x\"\n"
                   "  testNumbers => self assert: 1 equals: 1.0\n"
                   "  testPlain => self assert: \"abc\" equals: \"abd\"")
    results, _ = await run(repl, "LookAlikeTest")
    assert {r.test: r.message for r in results} == {
        "testSymbolString": 'Expected abc, got abc (as printString: expected "abc", got #abc)',
        "testEmpty": 'Expected x, got  (as printString: expected "x", got "")',
        "testNumbers": "Expected 1.0, got 1",
        "testPlain": "Expected abd, got abc",      # the spec's display strings otherwise
    }


async def test_runner_arguments_as_a_user_writes_them(repl):
    await ok(repl, "TestCase subclass: ArgsTest\n  testA => self assert: 1 equals: 1")
    # a String names the test as it does for `ArgsTest run: "testA"` (it read "not found")
    assert await ok(repl, 'TestRunner run: ArgsTest method: "testA"') == "TestResult(1/1 passed)"
    out = await repl.evaluate("TestRunner run: nil")
    assert not out.ok and "nil is not a TestCase subclass" in out.text and "not found" not in out.text
    out = await repl.evaluate("TestRunner run: 42")
    assert "Hint: TestRunner run: takes a TestCase subclass (TestRunner run: FooTest)" in out.text
    # should:raise: given something else than a block said "completed normally"
    out = await repl.evaluate("ArgsTest new should: 3 raise: #badarith")
    assert not out.ok and "Type error in 'should:raise:'" in out.text and "3 (an Integer)" in out.text
    out = await repl.evaluate("ArgsTest new shouldnt: (1 + 1) raise: #badarith")
    assert not out.ok and "Type error in 'shouldnt:raise:'" in out.text
