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
                        "  Hint: Check spelling or use 'respondsTo:' to verify method exists\n"
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
        # nothing to run is said, not shown as a passing suite
        assert (await repl.evaluate(":test")).text == (
            "No tests in this workspace: a test is a unary method named test... of a TestCase subclass\n"
            "0 passed, 0 failed")
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
