"""Compiler warnings (compiler/lint.py): shown, never blocking (DESIGN §3 `"warnings"`)."""

from __future__ import annotations

import json

from conftest import run_beamtalk

from beamtalk_ws.compiler import compile_input


def test_unreachable_code_after_a_top_level_return_is_a_located_warning():
    c = compile_input("x := 1.\n^x.\n3 + 4")
    assert len(c.warnings) == 1
    assert c.warnings[0].startswith("<input>:3:1: warning: Unreachable code after `^`")


def test_unreachable_code_in_methods_and_blocks():
    c = compile_input("Object subclass: Unr\n  foo => ^1. 2\n  bar => [:x | ^x. 3]")
    assert [w.split(":")[1:3] for w in c.warnings] == [["2", "14"], ["3", "20"]]


def test_code_without_dead_statements_has_no_warnings():
    assert compile_input("x := 1. ^x").warnings == []


async def test_a_warning_does_not_stop_the_input(repl):
    out = await repl.evaluate("y := 5.\n^y.\ny + 1")
    assert out.ok and out.text == "5"
    assert out.warnings and "Unreachable code" in out.warnings[0]


async def test_load_reports_warnings_of_the_file(repl, tmp_path):
    path = tmp_path / "unreachable_load.bt"
    path.write_text("Object subclass: UnreachableLoad\n  foo => ^1. 2\n")
    out = await repl.evaluate(f":load {path}")
    assert out.ok and out.text == "Loaded: UnreachableLoad"
    assert len(out.warnings) == 1 and "unreachable_load.bt:2:14" in out.warnings[0]


def test_json_reply_carries_warnings(workspace):
    reqs = [{"id": 1, "op": "eval", "code": "^1. 2"}, {"id": 2, "op": "eval", "code": "1 + 1"}]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id],
                        input="".join(json.dumps(r) + "\n" for r in reqs))
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert replies[0]["value"] == "1" and "Unreachable code" in replies[0]["warnings"][0]
    assert replies[1] == {"id": 2, "value": "2"}


def test_check_prints_warnings_and_succeeds(tmp_path):
    path = tmp_path / "warn.bt"
    path.write_text("Object subclass: Warn\n  foo => ^1. 2\n")
    proc = run_beamtalk(["check", str(path)])
    assert proc.returncode == 0
    assert "warn.bt:2:14: warning: Unreachable code after `^`" in proc.stdout
    assert "1 warning" in proc.stderr


def test_a_block_kept_in_a_session_variable_that_assigns_one_is_warned():
    """Run by a later input, such a block cannot update the session's
    variable (README: escaped blocks); say so where the block is made."""
    c = compile_input("b := [n := n + 1]", bound=frozenset({"n"}))
    assert len(c.warnings) == 1
    assert c.warnings[0].startswith("<input>:1:6: warning: This block assigns the session variable `n`")
    # a variable made by the same input is a session variable too
    assert len(compile_input("m := 0. e := [m := m + 1]. e value").warnings) == 1
    # its own parameters and temporaries, and blocks not kept, are fine
    assert compile_input("c := [:n | n := n + 1]", bound=frozenset({"n"})).warnings == []
    assert compile_input("d := [:x | t := x. t]").warnings == []
    assert compile_input("n := 0. #(1, 2) do: [:x | n := n + x]. n").warnings == []


async def test_the_session_variable_warning_reaches_the_repl_and_the_value_is_right(repl):
    out = await repl.evaluate("k := 0. inc := [k := k + 1]. inc value. inc value. k")
    assert out.ok and out.text == "2"
    assert out.warnings and "session variable `k`" in out.warnings[0]


def test_a_method_named_like_an_erlang_operator_is_a_located_warning():
    """`a + b` compiles to Erlang's `+` (spec semantics §4.4, §6): a class's
    own `+` would silently never run."""
    c = compile_input("Value subclass: Pt\n  state: x = 0\n  + other => self.x + other x\n  plus: o => 1")
    assert len(c.warnings) == 1
    w = c.warnings[0]
    assert w.startswith("<input>:3:3: warning: `a + b` compiles to Erlang's + and never sends this method")
    assert "perform: #+ withArguments:" in w


def test_the_operator_warning_names_erlangs_operator_and_a_fitting_keyword():
    """`=` is Erlang's `=:=` (spec semantics §6), and the suggested keyword
    fits the operator (it used to suggest `plus:` for `=` and `<`)."""
    c = compile_input("Value subclass: Pq\n  state: x = 0\n  = other => true\n  < other => false")
    assert len(c.warnings) == 2
    eq, lt = c.warnings
    assert "`a = b` compiles to Erlang's =:= and never sends this method" in eq
    assert "`equals:`" in eq and "plus:" not in eq
    assert "`lessThan:`" in lt and "plus:" not in lt


def test_pharos_print_on_is_a_located_warning():
    """printString, the REPL and interpolation never send `printOn:` (spec
    semantics §11.1: classes override printString): without a warning the
    class silently keeps printing as `a Pt`."""
    c = compile_input("Object subclass: Pp\n  state: x = 0\n  printOn: aStream => aStream nextPutAll: \"P\"")
    assert len(c.warnings) == 1
    w = c.warnings[0]
    assert w.startswith("<input>:3:3: warning: printString never sends printOn:")
    assert "override printString" in w
    assert compile_input("Object subclass: Pp2\n  printString => ^\"P\"").warnings == []


def test_operator_methods_with_a_primitive_body_and_sent_operators_are_not_warned():
    """The stdlib's `+`, `<`, ... are primitives that exist for `perform:`;
    `>>` is sent as a message."""
    from beamtalk_ws.compiler import lint
    from beamtalk_ws.syntax import parse

    module = parse("Object subclass: Q\n  < other => @primitive \"<\"\n  >> s => 2")
    assert lint.warnings(module.items) == []


async def test_the_operator_method_is_still_reachable_by_perform(repl):
    out = await repl.evaluate("Value subclass: Pw\n  state: x = 1\n  + other => self.x + other")
    assert out.ok and out.warnings and "never sends this method" in out.warnings[0]
    out = await repl.evaluate("Pw new perform: #+ withArguments: #(2)")
    assert out.ok and out.text == "3"


def test_pharos_one_argument_does_not_understand_is_a_located_warning():
    """A failed lookup calls `doesNotUnderstand:args:` (spec semantics §4.2);
    `doesNotUnderstand: aMessage` would silently never run."""
    c = compile_input("Object subclass: G\n  doesNotUnderstand: m => 1\n  doesNotUnderstand: s args: a => 2")
    assert len(c.warnings) == 1
    assert c.warnings[0].startswith("<input>:2:3: warning: A failed lookup calls doesNotUnderstand: selector args:")


def test_a_minus_glued_to_a_number_is_a_located_warning():
    """Spec syntax §2: `3-2` and `x-1` are two expressions (the `-` starts the
    literal), and the input's value is silently the second."""
    c = compile_input("x := 5. x-1")
    assert len(c.warnings) == 1
    assert c.warnings[0].startswith("<input>:1:10: warning: This is two expressions: the `-` belongs to the number -1")
    for spaced in ("3 - 2", "x := 5. x - 1", "#(1, -2)", "x := 1. x. -3"):
        assert compile_input(spaced).warnings == [], spaced


async def test_the_glued_minus_still_answers_what_the_spec_says(repl):
    out = await repl.evaluate("3-2")
    assert out.ok and out.text == "-2" and "two expressions" in out.warnings[0]


def test_a_field_change_an_object_method_cannot_hand_back_is_a_located_warning():
    """Spec semantics §3.3: in an `Object subclass:` method `self.x := v`
    rebinds self for the rest of the method only; answering anything but
    the changed self loses the change."""
    src = ("Object subclass: Inv\n"
           "  state: items = #()\n"
           "  add: x =>\n"
           "    self.items := self.items add: x\n"
           "    ^self.items size\n"
           "  keep: x =>\n"
           "    self.items := self.items add: x\n"
           "  keepToo: x =>\n"
           "    self.items := self.items add: x\n"
           "    ^self\n"
           "  early: x =>\n"
           "    x isNil ifTrue: [^self error: \"none\"]\n"
           "    self.items := self.items add: x\n"
           "    ^x")
    c = compile_input(src)
    lost = [w for w in c.warnings if "is lost when" in w]
    assert [w.split(": warning")[0] for w in lost] == ["<input>:4:5", "<input>:13:5"]
    assert "`add:`" in lost[0] and "make the class an Actor" in lost[0]


def test_a_setup_that_assigns_a_field_and_answers_something_else_is_warned():
    """BUnit hands a test the instance setUp answers (stdlib §11); a setUp
    that assigns a field and then sends something else leaves the tests
    with the field's default (nil), which showed up only as a
    does-not-understand on nil in every test."""
    src = ("TestCase subclass: WTest\n"
           "  state: w = nil\n"
           "  setUp =>\n"
           "    self.w := Array new.\n"
           "    self.w size\n"
           "  testA => self.w := 3. self assert: self.w equals: 3")
    c = compile_input(src)
    lost = [w for w in c.warnings if "setUp hands the test" in w]
    assert [w.split(": warning")[0] for w in lost] == ["<input>:4:5"]
    assert "end setUp with the assignment" in lost[0]
    for fine in ("TestCase subclass: OkTest\n  state: w = nil\n  setUp => self.w := 3\n  testA => self assert: true",
                 "TestCase subclass: OkTest\n  state: w = nil\n  setUp =>\n    self.w := 3.\n    ^self\n"
                 "  testA => self assert: true"):
        assert compile_input(fine).warnings == [], fine


def test_actors_keep_their_field_changes_and_are_not_warned():
    src = "Actor subclass: Acc\n  state: n = 0\n  bump => self.n := self.n + 1. ^self.n + 0"
    assert compile_input(src).warnings == []


def test_pharos_integer_division_is_a_comment_and_a_located_warning():
    """`7 // 2` is `7` and a comment (spec syntax §1): the value would
    silently be 7.  A comment of words after a statement is not warned."""
    c = compile_input("x := 7 // 2")
    assert len(c.warnings) == 1
    w = c.warnings[0]
    assert w.startswith("<input>:1:8: warning: `// 2` is a comment: Beamtalk has no // operator")
    assert "`7 div: 2`" in w
    assert len(compile_input("n := 4. 9 // n").warnings) == 1
    assert compile_input("x := 3 // the count").warnings == []
    assert compile_input("x := 3 // todo").warnings == []
    assert compile_input("x := 3 // 2 items left").warnings == []


async def test_integer_division_comment_keeps_the_spec_value(repl):
    out = await repl.evaluate("7 // 2")
    assert out.ok and out.text == "7"
    assert out.warnings and "`// 2` is a comment" in out.warnings[0]


def test_integer_division_comment_inside_a_method_is_warned():
    """`half := n // 2.` in a method body (a class typed at the REPL or a
    loaded file) silently made `half` equal to `n`; a merge sort written so
    recursed until the 30 s timeout.  Numbers and the method's own names
    (parameters and locals) count; a comment of words does not."""
    src = ("Object subclass: Halver\n"
           "  class half: n =>\n"
           "    h := n // 2.\n"
           "    ^h\n"
           "  third: m =>\n"
           "    k := 3.\n"
           "    ^m // k\n"
           "  note: n =>\n"
           "    ^n // the count\n")
    c = compile_input(src)
    div = [w for w in c.warnings if "is a comment" in w]
    assert [w.split(": warning")[0] for w in div] == ["<input>:3:12", "<input>:7:8"]
    assert "`n div: 2`" in div[0]


def test_integer_division_comment_in_a_loaded_file_is_warned(tmp_path):
    f = tmp_path / "halver.bt"
    f.write_text("Object subclass: Halver\n  class half: n =>\n    h := n // 2.\n    ^h\n")
    proc = run_beamtalk(["check", str(f)])
    assert proc.returncode == 0, proc.stderr
    assert "halver.bt:3:12: warning: `// 2` is a comment" in proc.stdout + proc.stderr


def test_a_number_alone_in_braces_inside_a_string_is_warned():
    """`"^\\d{4}-\\d{2}$"` is an interpolation of 4 and 2 by spec syntax §2.3,
    so the regex silently became `^\\d4-\\d2$` and matched nothing.  An
    interpolation of anything else is left alone."""
    c = compile_input('"2024-01" matchesRegex: "^\\d{4}-\\d{2}$"')
    w = [w for w in c.warnings if "interpolates" in w]
    assert [x.split(": warning")[0] for x in w] == ["<input>:1:29", "<input>:1:35"]
    assert "`{4}` interpolates the number 4" in w[0] and "hint:" in w[0]
    assert compile_input('n := 4. "n is {n}, twice {n * 2}"').warnings == []


def test_a_block_that_calls_itself_through_its_own_variable_is_warned():
    """`fib := [:k | ... fib value: k - 1 ...]`, Pharo's recursive block: a
    block captures the value `fib` had when it was made (nil), so the call
    failed with "UndefinedObject does not understand 'value:'" and nothing
    said why.  A block that only mentions another variable is not warned."""
    src = "fib := nil.\nfib := [:k | k < 2 ifTrue: [k] ifFalse: [(fib value: k - 1) + (fib value: k - 2)]]"
    w = [w for w in compile_input(src).warnings if "refers to itself" in w]
    assert len(w) == 1 and w[0].startswith("<input>:2:8: warning:")
    assert "hint:" in w[0] and "method" in w[0]
    assert compile_input("g := 1. f := [:k | g + k]").warnings == []
    assert compile_input("f := 1. f := [:f | f + 1]").warnings == []


def test_a_block_calling_itself_through_the_name_it_is_assigned_to_in_a_method_gets_a_hint():
    from beamtalk_ws.compiler.semantic import ScopeCheck
    from beamtalk_ws.syntax import parse

    src = ("Object subclass: F\n  class fib: n =>\n"
           "    fib := [:k | k < 2 ifTrue: [k] ifFalse: [(fib value: k - 1) + 1]].\n    ^fib value: n\n")
    ds = ScopeCheck(frozenset()).run(parse(src).items)
    assert [d.message for d in ds] == ["Undefined variable: fib"]
    assert ds[0].hint.startswith("`fib` is being assigned this block: a block cannot call itself")
    # an ordinary undefined name in an assignment keeps the plain message
    ds = ScopeCheck(frozenset()).run(parse("x := x + 1").items)
    assert [(d.message, d.hint) for d in ds] == [("Undefined variable: x", None)]


def test_a_variable_written_as_a_bare_map_key_is_warned():
    """`#{goal => 0}` with `goal` a variable of the method: by spec syntax
    §3 the bare name is the Symbol #goal, so the value of `goal` is never
    the key and `dist at: goal` fails much later (a BFS seen while probing
    puzzle programs)."""
    src = ("Object subclass: Bfs\n  from: goal =>\n    dist := #{goal => 0, #other => 1, name => 2}.\n"
           "    dist")
    c = compile_input(src)
    assert len(c.warnings) == 1, c.warnings
    w = c.warnings[0]
    assert w.startswith("<input>:3:15: warning: `goal =>` is the Symbol #goal as the key, not the variable goal")
    assert "(goal) =>" in w and "at: goal put:" in w


def test_a_bare_map_key_that_names_no_variable_is_not_warned():
    assert compile_input("d := #{name => 1, #goal => 2}. d").warnings == []
    c = compile_input("goal := 3. d := #{goal => 1}. d")
    assert len(c.warnings) == 1 and "`goal =>`" in c.warnings[0]
    assert compile_input("goal := 3. d := #{(goal) => 1}. d").warnings == []
    # `qty => qty`: the record shorthand (Symbol key named after the variable
    # that holds its value) is what the literal means, as an outsider's cart wrote
    assert compile_input('name := "A". age := 2. #{name => name, age => age}').warnings == []
    src = "Object subclass: Cart\n  line: item qty: qty =>\n    ^#{item => item, qty => qty}\n"
    assert compile_input(src).warnings == []
    src = 'Object subclass: Note\n  at: a =>\n    ^#{"a" => a, 1 => a}\n'
    assert compile_input(src).warnings == []
    c = compile_input("qty := 2. n := 3. #{qty => n}")
    assert len(c.warnings) == 1 and "`qty =>`" in c.warnings[0]


async def test_a_parenthesised_variable_key_is_the_variables_value(repl):
    out = await repl.evaluate("p := #(1, 2). d := #{(p) => 0, p => 1}. d keys size")
    assert out.ok and out.text == "2", out.text
    assert out.warnings and "`p =>`" in out.warnings[0]


def test_a_backslash_n_given_to_a_string_method_is_warned():
    """Strings have no escapes (spec syntax §2.3): `text split: "\\n\\n"`
    looks for a backslash and an `n`, finds none and answers the whole text,
    so a puzzle's blank-line groups were one group."""
    c = compile_input('t := "a b". t split: "\\n\\n"')
    assert len(c.warnings) == 1, c.warnings
    w = c.warnings[0]
    assert w.startswith('<input>:1:22: warning: `"\\n\\n"` holds a backslash and the letter n, not a line break')
    assert "splitRegex:" in w and "lines" in w
    for code in ('t := "x". t includesSubstring: "\\t"', 'Transcript show: "\\n"',
                 't := "x". t ++ "\\r\\n"', '#("a") join: "\\n"'):
        ws = compile_input(code).warnings
        assert len([x for x in ws if "holds a backslash" in x]) == 1, (code, ws)


def test_a_backslash_n_as_python_s_separator_or_shown_line_is_warned():
    """Python's `"\\n".join(lines)` written `"\\n" join: lines` (the separator
    is the receiver) and `Transcript showCr: "a\\tb"` wrote a backslash and a
    letter without a word (outsider check of text)."""
    for code in ('ls := #("a"). "\\n" join: ls', 'Transcript showCr: "col1\\tcol2"',
                 'Transcript display: "\\n"'):
        ws = compile_input(code).warnings
        assert len([x for x in ws if "holds a backslash" in x]) == 1, (code, ws)
    w = compile_input('Transcript showCr: "a\\tb"').warnings[0]
    assert "not a tab" in w and "put the tab itself between the quotes" in w, w


def test_a_backslash_n_in_a_regex_or_elsewhere_is_not_warned():
    for code in ('t := "a". t splitRegex: "\\n\\n"', 't := "a". t matchesRegex: "^\\d+\\n"',
                 'Regex from: "\\n"', 't := "a". t split: "\\d"', 'x := "\\n". x',
                 't := "a". t replaceAllRegex: "\\n" with: " "'):
        assert compile_input(code).warnings == [], code


def test_a_cascade_of_adds_to_a_collection_value_is_warned():
    """`Set new add: 3; add: 4; yourself` is `Set()`: every message of a
    cascade goes to the same receiver, and a collection is an immutable
    value, so each `add:` answers a new Set that the cascade drops (a
    Pharo habit; the puzzle's `seen` set stayed empty)."""
    c = compile_input("s := Set new add: 3; add: 4; yourself. s")
    assert len(c.warnings) == 1, c.warnings
    w = c.warnings[0]
    assert w.startswith("<input>:1:6: warning: every message of this cascade goes to the same Set")
    assert "(Set new add: 3) add: 4" in w
    for code in ("#(1) add: 2; add: 3", "d := #{} at: #a put: 1; at: #b put: 2; yourself. d",
                 "Dictionary new at: #a put: 1; yourself"):
        assert len(compile_input(code).warnings) == 1, code


def test_cascades_to_actors_and_other_receivers_are_not_warned():
    for code in ("Transcript show: 1; cr; show: 2", "x := #(1). x size; first",
                 "s := Set new. s add: 1; yourself"):
        assert compile_input(code).warnings == [], code


def test_a_cascade_of_messageText_and_signal_is_warned():
    """Pharo's `MyError new messageText: 'x'; signal`: the cascade signals
    `Error new`, and `messageText:` answers a copy (exceptions are values),
    so the error silently had the class name as its text."""
    c = compile_input('[Error new messageText: "low"; signal] on: Error do: [:e | e messageText]')
    assert len(c.warnings) == 1, c.warnings
    w = c.warnings[0]
    assert w.startswith("<input>:1:2: warning: every message of this cascade goes to the same exception"), w
    assert 'hint: write `Error new signal: "low"`' in w, w
    for code in ('(Error new messageText: "x") signal', 'Error new signal: "x"',
                 'e := Error new. e messageText: "x"; yourself'):
        assert compile_input(code).warnings == [], code


async def test_the_cascade_still_answers_what_the_spec_says(repl):
    out = await repl.evaluate("Set new add: 3; add: 4; yourself")
    assert out.ok and out.text == "Set()"
    assert out.warnings and "same Set" in out.warnings[0]


def test_a_comparison_whose_value_is_dropped_is_a_located_warning():
    # `self.n = self.n + 1.` (for :=) compiled to a comparison whose value
    # nobody used: the actor's count silently stayed 0
    c = compile_input("Actor subclass: Eq\n  state: n = 0\n  inc =>\n    self.n = self.n + 1.\n    ^self\n")
    assert len(c.warnings) == 1
    assert c.warnings[0].startswith("<input>:4:5: warning: The result of this `=` comparison is not used")
    assert "hint: assignment is `:=`: `self.n := self.n + 1`" in c.warnings[0]
    top = compile_input("x = 2.\nx", frozenset({"x"}))
    assert len(top.warnings) == 1 and top.warnings[0].startswith("<input>:1:1: warning: The result of this `=`")
    block = compile_input("#(1) do: [:e | x == e. x]", frozenset({"x"}))
    assert "hint: assignment is `:=`: `x := e`" in block.warnings[0]


def test_a_comparison_that_is_the_value_of_its_sequence_is_not_warned():
    assert compile_input("x = 2", frozenset({"x"})).warnings == []
    assert compile_input("Object subclass: Eq2\n  state: n = 0\n  isZero => self.n = 0\n").warnings == []
    assert compile_input("#(1) select: [:e | e = 1]").warnings == []


def test_a_doc_test_case_that_shows_a_comparison_is_not_warned(tmp_path):
    f = tmp_path / "eq_doctest.bt"
    f.write_text("x := 1 // => 1\nx = 2 // => false\nx = 3. x // => 1\n")
    proc = run_beamtalk(["check", str(f)])
    assert proc.returncode == 0
    assert proc.stdout.count("comparison is not used") == 1 and f"{f}:3:1: warning" in proc.stdout


def test_a_class_side_field_that_is_no_class_variable_is_a_located_warning():
    # `class foo => self.x` with `x` an instance state: answered nil; an
    # assignment to an undeclared class variable was lost
    c = compile_input("Object subclass: Cv\n  state: x = 5\n  class foo => self.x\n"
                      "  class bump => self.zz := 3\n")
    assert len(c.warnings) == 2
    assert c.warnings[0].startswith("<input>:3:16: warning: `x` is an instance field of Cv, not a class "
                                    "variable: a class-side method reads it as nil")
    assert "hint: declare it with classState: x" in c.warnings[0]
    assert c.warnings[1].startswith("<input>:4:17: warning: `zz` is not a class variable of Cv: "
                                    "a class-side method loses this assignment")


def test_declared_and_inherited_class_variables_are_not_warned():
    assert compile_input("Object subclass: Cw\n  classState: n = 0\n  class bump => self.n := self.n + 1\n"
                         ).warnings == []
    # a user superclass may declare it (class variables are inherited)
    assert compile_input("Cw subclass: Cx\n  class peek => self.n\n").warnings == []


def test_an_instance_field_no_state_declares_is_a_located_warning():
    # `self.totl := …` (a typo) added a field silently; a read failed only when run
    c = compile_input("Actor subclass: Uf\n  state: total = 0\n  add: n => self.totl := self.total + n\n"
                      "  get => self.totl\n")
    assert len(c.warnings) == 2
    assert c.warnings[0].startswith("<input>:3:13: warning: Uf declares no field `totl`")
    assert "hint: did you mean self.total? Fields are declared with state: totl = …" in c.warnings[0]
    assert c.warnings[1].startswith("<input>:4:10: warning: Uf declares no field `totl`")


def test_fields_of_a_user_superclass_are_not_warned():
    assert compile_input("Object subclass: Ug\n  state: a = 0\n  a => self.a\n").warnings == []
    assert compile_input("Ug subclass: Uh\n  b => self.a\n").warnings == []


def test_a_collection_mutator_whose_answer_is_dropped_is_a_located_warning():
    # spec semantics §8: collections are values; `d at: 1 put: 2.` left d as
    # it was (#{}), silently
    c = compile_input("d := #{}. d at: 1 put: 2. d")
    assert len(c.warnings) == 1
    assert c.warnings[0].startswith("<input>:1:11: warning: `d at:put: …` answers a new Dictionary and leaves "
                                    "d unchanged: collections are values")
    assert "hint: keep the answer: d := d at: 1 put: 2" in c.warnings[0]
    # an actor's field whose default is a collection
    a = compile_input("Actor subclass: Bag1\n  state: items = #()\n  add: x =>\n    self.items add: x.\n    ^self\n")
    assert len(a.warnings) == 1 and "`self.items add: …` answers a new List and leaves self.items unchanged" \
        in a.warnings[0]
    assert "self.items := self.items add: x" in a.warnings[0]
    s = compile_input("s := Set new. s add: 3. s")
    assert "answers a new Set" in s.warnings[0]


def test_a_kept_or_unknown_mutator_answer_is_not_warned():
    assert compile_input("d := #{}. d := d at: 1 put: 2. d").warnings == []
    assert compile_input("d := #{}. d at: 1 put: 2").warnings == []          # the value of the input
    assert compile_input("acc add: 3. acc", frozenset({"acc"})).warnings == []  # maybe an actor


def test_tuple_patterns_matched_against_a_list_literal_are_warned():
    """`#(state, ev) match: [{#closed, #open} -> ...; _ -> state]`: `#( )` is
    a List and a `{ }` pattern matches only a Tuple (spec syntax §4), so
    every tuple arm is skipped and the wildcard answers: a state machine
    that silently never moved (probe-rosetta)."""
    code = "ev := #open.\n#(#closed, ev) match: [{#closed, #open} -> #opened; {_, _} -> #two; _ -> #same]"
    c = compile_input(code)
    assert len(c.warnings) == 1, c.warnings
    w = c.warnings[0]
    assert w.startswith("<input>:2:24: warning: `#( )` is a List, and a `{ }` pattern matches only a Tuple: "
                        "this match: never takes its tuple arms")
    assert "(Tuple withAll: #(#closed, ev)) match: [...]" in w
    for code in ("(Tuple withAll: #(1, 2)) match: [{a, b} -> a; _ -> 0]", "#(1) match: [_ -> 0]",
                 "x := 3. x match: [{a, b} -> a; _ -> 0]"):
        assert compile_input(code).warnings == [], code


async def test_a_list_against_tuple_patterns_still_answers_what_the_spec_says(repl):
    out = await repl.evaluate("#(1, 2) match: [{a, b} -> a + b; _ -> 0]")
    assert out.ok and out.text == "0"
    assert out.warnings and "matches only a Tuple" in out.warnings[0]
    out = await repl.evaluate("(Tuple withAll: #(1, 2)) match: [{a, b} -> a + b; _ -> 0]")
    assert out.ok and out.text == "3" and out.warnings == []


def test_a_dropped_update_in_a_loop_body_is_warned_at_its_line():
    # `[i < 3] whileTrue: [i + 1]` never ends: the sum is made and dropped
    # (Pharo and Python programmers both meant `i := i + 1`); no warning said so.
    src = ("Object subclass: DropLoop\n  spin =>\n    i := 0.\n    [i < 3] whileTrue: [i + 1].\n    ^i\n"
           "  grow: xs =>\n    n := 0.\n    xs do: [:x | self.total + x].\n    n - 1.\n    ^n\n")
    c = compile_input(src)
    dropped = sorted((w for w in c.warnings if "is not used" in w), key=lambda w: int(w.split(":")[1]))
    assert len(dropped) == 3, c.warnings
    assert dropped[0].startswith("<input>:4:25: warning: The result of this `+` is not used"), dropped
    assert "i := i + 1" in dropped[0], dropped
    assert "self.total := self.total + x" in dropped[1], dropped
    assert "n := n - 1" in dropped[2], dropped


def test_sums_whose_value_is_used_are_not_warned():
    for src in ("x := 1. x + 1",
                "Object subclass: UsedSum\n  a: x => ^x + 1\n  b: xs => ^xs collect: [:x | x + 1]\n"
                "  c: xs => ^xs inject: 0 into: [:acc :x | acc + x]\n"
                "  d => i := 0. [i < 3] whileTrue: [i := i + 1]. ^i\n"
                "  e => n := 0. 1 to: 3 do: [:k | n := n + k]. ^n\n"):
        c = compile_input(src)
        assert not [w for w in c.warnings if "is not used" in w], (src, c.warnings)


def test_warnings_come_in_the_order_of_the_source():
    """Each lint appended its own warnings, so a class's came as lines 17,
    10, 6, 13: they are sorted by position now."""
    src = ("Object subclass: WarnOrder\n  state: n = 0\n  a => x := 3. self.n = 2. self.n\n"
           "  b => l := #(1). l add: 2. l\n  c: v => y := v. ^1. 2\n")
    places = [w.split(": warning:")[0] for w in compile_input(src).warnings]
    assert places == ["<input>:3:8", "<input>:3:16", "<input>:4:19", "<input>:5:11", "<input>:5:23"], places
