"""A Pharo programmer's first day: idioms whose answer here is not Pharo's
get a located warning (compiler/lint_pharo.py), and the answer stays the
spec's."""

from __future__ import annotations

from beamtalk_ws.compiler import compile_input
from beamtalk_ws.compiler.classes import ClassInfo, ClassTable

ACCOUNT = "Object subclass: Acct\n  state: balance\n  initialize => self.balance := 0\n  balance => ^self.balance"


def test_initialize_that_new_never_sends_is_warned_where_it_is_defined():
    """Pharo's `new` sends `initialize`; here (spec semantics §3.3) `new`
    answers the state: defaults, so `Acct new balance` is nil."""
    w = compile_input(ACCOUNT).warnings
    assert len(w) == 1
    assert w[0].startswith("<input>:3:3: warning: `Acct new` does not send initialize")
    assert "state: count = 0" in w[0] and "class new => ^super new initialize" in w[0]


def test_initialize_sent_by_the_class_side_or_by_spawn_is_not_warned():
    sent = ACCOUNT.replace("Acct", "Acct2") + "\n  class new => ^super new initialize"
    assert compile_input(sent).warnings == []
    actor = "Actor subclass: Acct3\n  state: balance\n  initialize => self.balance := 0"
    assert compile_input(actor).warnings == []
    # a subclass of a user actor (known to the compiler's table) is spawned too
    table = ClassTable({"Counter": ClassInfo("Counter", "actor", ("n",), "Actor")})
    sub = "Counter subclass: Acct4\n  initialize => self.n := 1"
    assert compile_input(sub, table=table).warnings == []
    # a superclass the compiler does not know is not guessed
    assert not any("initialize" in x for x in compile_input("Unknown subclass: Acct5\n  initialize => 1").warnings)


def test_initialize_in_a_subclass_of_a_user_value_class_is_warned():
    table = ClassTable({"Shape": ClassInfo("Shape", "object", (), "Object")})
    w = compile_input("Shape subclass: Sq\n  state: side\n  initialize => self.side := 1", table=table).warnings
    assert any("`Sq new` does not send initialize" in x for x in w)


def test_a_test_case_initialize_points_to_set_up():
    w = compile_input("TestCase subclass: AcctTest\n  initialize => 1\n  testA => self assert: true").warnings
    assert len(w) == 1 and "name the method setUp" in w[0]


def test_comparing_a_letter_with_a_character_literal_is_warned():
    """`("hello" at: 1) = $h` is false: `$h` is the Integer 104 (§1), a
    String's letters are one-letter Strings (§7)."""
    w = compile_input('("hello" at: 1) = $h').warnings
    assert len(w) == 1
    assert w[0].startswith("<input>:1:19: warning: $h is the Integer 104")
    assert 'compare a letter of a String with the String "h"' in w[0]
    w = compile_input('"hello" select: [:c | c == $l]').warnings
    assert len(w) == 1 and '"l"' in w[0]


def test_character_literals_compared_with_numbers_are_not_warned():
    assert compile_input("$a = 97").warnings == []
    assert compile_input("(Character value: 97) = $a").warnings == []
    assert compile_input("x := 97. x asInteger = $a").warnings == []
    assert compile_input("x := 3. x + 1 = 4").warnings == []
    # code points computed from a character literal (stdlib/test's own doc test)
    assert compile_input("$é uppercase = $É").warnings == []
    assert compile_input("$a + 1 = $b").warnings == []


def test_code_points_from_a_strings_charlist_compared_with_character_literals_are_not_warned():
    """`asCharlist` answers the String's code points (Integers), which a
    character literal matches: an outsider's vowel count was warned as if
    its letters were one-letter Strings."""
    for code in ('"hello" asCharlist select: [:c | c = $l]',
                 'v := 0. "banana" asCharlist do: [:c | (c = $a) ifTrue: [v := v + 1]]. v',
                 'cs := "hello" asCharlist. (cs at: 1) = $h',
                 'c := "hello" asCharlist first. c = $h',
                 'cs := "abc" asCharlist. cs reverse select: [:c | c = $b]',
                 'n := 0. $a to: $e do: [:c | c = $c ifTrue: [n := c]]. n',
                 '#($a, $e, $i) detect: [:c | c = $e]',
                 "Object subclass: Lex\n  vowels: s => s asCharlist select: [:c | c = $a or: [c = $e]]\n"):
        assert compile_input(code).warnings == [], code
    # the letters of a String still are (also beside a charlist elsewhere)
    w = compile_input('cs := "ab" asCharlist. s := "hey". (s at: 1) = $h').warnings
    assert len(w) == 1 and "$h is the Integer 104" in w[0]
    # a name also assigned a letter stays suspect (an Advent of Code grid's `c := $a`)
    w = compile_input('row := "aSb". c := row at: 2. c = $S ifTrue: [c := $a]. c').warnings
    assert len(w) == 1 and "$S is the Integer 83" in w[0]
    w = compile_input('"hello" do: [:c | c = $l ifTrue: [Transcript show: c]]').warnings
    assert len(w) == 1 and "$l is the Integer 108" in w[0]


async def test_the_warnings_reach_a_loaded_file_and_the_answer_stays_the_specs(repl, tmp_path):
    path = tmp_path / "acct.bt"
    path.write_text(ACCOUNT.replace("Acct", "LoadedAcct") + "\n")
    out = await repl.evaluate(f":load {path}")
    assert out.ok and out.text == "Loaded: LoadedAcct"
    assert len(out.warnings) == 1 and "acct.bt:3:3: warning: `LoadedAcct new` does not send initialize" in out.warnings[0]
    out = await repl.evaluate("LoadedAcct new balance")
    assert out.ok and out.text == "nil"
    out = await repl.evaluate('("hello" at: 1) = $h')
    assert out.ok and out.text == "false" and "$h is the Integer 104" in out.warnings[0]


P3 = ("Object subclass: P3\n  state: x\n  state: y\n  setX: v => self.x := v\n  setY: v => self.y := v\n"
      "  x => ^self.x\n")


def test_a_building_cascade_ending_in_yourself_on_a_new_value_is_warned():
    """`P3 new setX: 1; setY: 2; yourself` answers the unchanged new
    instance (spec semantics §3.3: each setter answers a changed copy)."""
    w = compile_input(P3 + "(P3 new setX: 1; setY: 2; yourself) x").warnings
    assert len(w) == 1
    assert w[0].startswith("<input>:7:2: warning: every message of this cascade goes to the same new P3")
    assert "chain the sends instead: `(P3 new setX: 1) setY: 2`" in w[0]
    named = ("Object subclass: An\n  state: name\n  class named: n => ^self new name: n; yourself\n"
             "  name: n => self.name := n")
    w = compile_input(named).warnings
    assert len(w) == 1 and "<input>:3:22:" in w[0] and "`self new name: n`" in w[0]
    # an actor's cascade changes the actor: no warning
    assert compile_input("Actor subclass: Ac\n  state: x\n  x: v => self.x := v\n"
                         "Ac spawn x: 1; yourself").warnings == []


def test_a_setter_whose_answer_is_dropped_is_warned_with_the_class_from_the_table():
    table = ClassTable({"P4": ClassInfo("P4", "object", ("x",), "Object")})
    w = compile_input("p := P4 new. p setX: 5. p x", table=table).warnings
    assert len(w) == 1 and "`p setX: …` answers a changed copy and leaves p unchanged" in w[0]
    assert "keep the answer: `p := p setX: 5`" in w[0]
    assert compile_input("p := P4 new. p := p setX: 5. p x", table=table).warnings == []
    assert compile_input("p := P4 new. p other: 5. p x", table=table).warnings == []


def test_super_initialize_under_object_or_actor_is_warned():
    w = compile_input("Actor subclass: Ai\n  state: b\n  initialize =>\n    super initialize.\n"
                      "    self.b := 0").warnings
    assert len(w) == 1 and w[0].startswith("<input>:4:5: warning: Actor defines no initialize")


async def test_the_setter_warning_knows_classes_of_earlier_inputs_and_super_initialize_hints(repl):
    assert (await repl.evaluate(P3.replace("P3", "LiveP3"))).ok
    out = await repl.evaluate("p := LiveP3 new. p setX: 5. p x")
    assert out.ok and out.text == "nil" and "answers a changed copy" in out.warnings[0]
    src = "Object subclass: LiveAi\n  state: b\n  class new => ^super new initialize\n  initialize =>\n" \
          "    super initialize.\n    self.b := 0"
    assert (await repl.evaluate(src)).ok
    out = await repl.evaluate("LiveAi new")
    assert not out.ok
    assert "No superclass of LiveAi implements 'initialize': Object and Actor define no initialize" in out.text
