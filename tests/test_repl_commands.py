"""REPL commands (spec/repl.md §4) against a real workspace, through
`Repl.evaluate`, the door every front end uses (interactive and --json)."""

from __future__ import annotations

import re

from beamtalk_ws.repl.core import HELP

DOC_CLASS = """\
/// A point on a line.
Value subclass: DocLine
  state: x = 0

  /// Twice x.
  /// Computed each time.
  double => self.x * 2

  plain => 1

  /// The point at zero.
  class origin => self new
"""


async def run(repl, code):
    return await repl.evaluate(code)


async def test_help_lists_every_command(repl):
    for cmd in (":help", ":h", ":?"):
        out = await run(repl, cmd)
        assert out.ok and out.text == HELP
    for name in (":help Class", ":help Class sel", ":bindings, :b", ":clear", ":sessions", ":workspace",
                 ":emit forms EXPR", ":load, :l PATH", ":reload, :r", ":quit, :q, :exit"):
        assert name in HELP


async def test_help_class_shows_header_docs_and_methods(repl):
    assert (await run(repl, DOC_CLASS)).text == "DocLine"
    out = await run(repl, ":help DocLine")
    assert out.ok
    lines = out.text.splitlines()
    assert lines[0] == "== DocLine < Value =="
    assert "A point on a line." in out.text
    assert "  double — Twice x." in lines
    assert re.search(r"^  .*\bplain\b", out.text, re.M)
    assert "Class methods:" in out.text and "origin — The point at zero." in out.text
    assert "Inherited: " in out.text and "from Object" in out.text
    integer = await run(repl, ":h Integer")
    assert integer.ok and integer.text.startswith("== Integer < Number ==")
    assert "factorial" in integer.text


async def test_help_class_selector(repl):
    await run(repl, DOC_CLASS)
    out = await run(repl, ":help DocLine double")
    assert (out.ok, out.text) == (True, "DocLine >> double\n  Twice x.\n  Computed each time.")
    out = await run(repl, ":help DocLine plain")
    assert out.text == "DocLine >> plain\n  No documentation."
    out = await run(repl, ":help DocLine printString")
    assert out.text.startswith("DocLine >> printString (inherited from Object)")
    out = await run(repl, ":help DocLine origin")
    assert out.text == "DocLine class >> origin\n  The point at zero."
    out = await run(repl, ":help Integer +")
    assert out.text.startswith("Integer >> + (inherited from Number)")


async def test_help_class_side_as_pharo_writes_it(repl):
    # `DocLine class` is the metaclass: its help lists the class side
    # (it showed the instance method `class` inherited from ProtoObject), and
    # `:help DocLine class origin` is the class-side method (it was a usage error).
    await run(repl, DOC_CLASS)
    out = await run(repl, ":help DocLine class origin")
    assert (out.ok, out.text) == (True, "DocLine class >> origin\n  The point at zero.")
    out = await run(repl, ":help DocLine class new")
    assert out.ok and out.text.startswith("DocLine class >> new (inherited from ")
    out = await run(repl, ":help DocLine class double")
    assert (out.ok, out.text) == (
        False, "DocLine class does not understand double. Use :help DocLine class to see available methods.")
    out = await run(repl, ":help DocLine class")
    assert out.ok, out.text
    lines = out.text.splitlines()
    assert lines[0] == "== DocLine class < Value class =="
    assert "Class methods:" in lines and "  origin — The point at zero." in lines
    assert "double" not in out.text
    assert lines[-1] == "Use :help DocLine class <selector> for one method."
    # the instance method `class` is still reachable by its selector
    out = await run(repl, ":help DocLine yourself")
    assert out.ok and out.text.startswith("DocLine >> yourself (inherited from Object)")


async def test_help_unknown_class_and_selector_texts(repl):
    out = await run(repl, ":help NoSuchClassQq")
    assert (out.ok, out.text) == (
        False, "Unknown class: NoSuchClassQq. Use Workspace classes or :modules to see loaded classes.")
    out = await run(repl, ":help Integer frobnicate")
    assert (out.ok, out.text) == (
        False, "Integer does not understand frobnicate. Use :help Integer to see available methods.")
    out = await run(repl, ":help lowercase")
    assert not out.ok and out.text.startswith("Usage: :help")


async def test_bindings_and_clear(repl):
    assert (await run(repl, ":bindings")).text == "No bindings."
    await run(repl, "x := 3 + 4")
    await run(repl, "s := \"hi\"")
    out = await run(repl, ":b")
    assert out.text == '  s = "hi"\n  x = 7'
    assert (await run(repl, ":clear")).text == "Bindings cleared."
    assert (await run(repl, ":bindings")).text == "No bindings."
    out = await run(repl, "x")
    assert not out.ok and "Undefined variable: x" in out.text


async def test_emit_forms_prints_the_forms_without_running(repl):
    await run(repl, "y := 10")
    out = await run(repl, ':emit forms y := y + 1. Erlang io format: "ran"')
    assert out.ok
    assert out.text.startswith("{attribute,1,module,")
    assert "{op,1,'+'," in out.text and out.text.rstrip().endswith("{eof,1}.")
    assert (await run(repl, "y")).text == "10"              # nothing ran
    same = await run(repl, ":sc y + 1")
    assert same.ok and "{op,1,'+'," in same.text
    out = await run(repl, ":emit forms zork + 1")
    assert not out.ok and "Undefined variable: zork" in out.text
    out = await run(repl, ":emit forms ]")
    assert not out.ok and "expected expression, found ]" in out.text
    out = await run(repl, ":emit")
    assert not out.ok and out.text.startswith("Usage: :emit forms EXPR")
    out = await run(repl, ":emit ast 3 + 4")
    assert out.ok and "3" in out.text


async def test_sessions_marks_this_one(repl, workspace):
    from beamtalk_ws.workspace.client import WorkspaceClient

    other = await WorkspaceClient.connect(workspace, session="zz-other-session")
    try:
        await other.bindings()                               # the session exists on the node
        out = await run(repl, ":sessions")
    finally:
        await other.close()
    lines = out.text.splitlines()
    assert f"* {repl.client.session}" in lines
    assert "  zz-other-session" in lines


async def test_workspace_command(repl, workspace):
    await run(repl, "Actor subclass: WsCmdActor\n  ping => #pong\n")
    await run(repl, "a := WsCmdActor spawn")
    out = await run(repl, ":workspace")
    assert out.ok
    fields = dict(line.split(":", 1) for line in out.text.splitlines())
    assert fields["Workspace"].strip() == workspace.id
    assert fields["Node"].strip() == workspace.node_name
    assert re.fullmatch(r"\d+h \d+m \d+s", fields["Uptime"].strip())
    assert int(fields["Classes"]) > 40
    assert int(fields["Actors"]) >= 1
    assert repl.client.session in fields["Sessions"]


async def test_quit_aliases(repl):
    for cmd in (":quit", ":q", ":exit"):
        out = await run(repl, cmd)
        assert (out.quit, out.text) == (True, "Goodbye!")


async def test_load_and_reload_aliases(repl, tmp_path):
    path = tmp_path / "cmd_loaded.bt"
    path.write_text("Object subclass: CmdLoaded\n  v => 1\n")
    assert (await run(repl, f":l {path}")).text == "Loaded: CmdLoaded"
    path.write_text("Object subclass: CmdLoaded\n  v => 2\n")
    assert (await run(repl, ":r")).text == "Loaded: CmdLoaded"
    assert (await run(repl, "CmdLoaded new v")).text == "2"
    out = await run(repl, ":load /no/such/file.bt")
    assert (out.ok, out.text) == (False, "File not found: /no/such/file.bt")


async def test_bare_command_words_get_the_hint(repl):
    for word in ("help", "bindings", "sessions", "workspace", "emit forms 3", "load x.bt"):
        out = await run(repl, word)
        first = word.split()[0]
        assert (out.ok, out.text) == (False, f"Hint: did you mean `:{first}`? REPL commands start with `:`")
    assert (await run(repl, "workspace := 3")).text == "3"


async def test_unknown_command(repl):
    out = await run(repl, ":frobnicate")
    assert not out.ok and "Unknown command :frobnicate" in out.text


async def test_a_command_on_the_line_after_a_class_runs_after_it(repl):
    """`Object subclass: X` ... then `:bindings` at column 0 (as the
    interactive REPL submits it): the class is defined, then the command
    runs; both answers are shown."""
    out = await run(repl, "Object subclass: CmdAfter\n  one => 1\n:help CmdAfter")
    assert out.ok, out.text
    assert out.text.startswith("CmdAfter\n"), out.text
    assert "== CmdAfter < Object ==" in out.text, out.text
    assert (await run(repl, "CmdAfter new one")).text == "1"
    # a failing class does not run the command
    bad = await run(repl, "Object subclass: CmdBad\n  one => 1 +\n:bindings")
    assert not bad.ok and "bindings" not in bad.text, bad.text


async def test_a_command_line_followed_by_code_runs_the_command_then_the_code(repl, tmp_path):
    """A paste of `:load file` and the lines that use it: the command takes
    its own line only (it used to take the rest as part of the path)."""
    f = tmp_path / "pasted.bt"
    f.write_text("Object subclass: Pasted\n  one => 1\n")
    out = await run(repl, f":load {f}\nPasted new one + 1")
    assert out.ok, out.text
    assert out.text.endswith("\n2"), out.text
    # a failing command does not run the rest
    bad = await run(repl, f":load {tmp_path / 'nothere.bt'}\nzz := 1")
    assert not bad.ok and "nothere.bt" in bad.text, bad.text
    assert "zz" not in [k for k, _ in await repl.client.bindings()]
    # :emit takes code, which may span lines
    emitted = await run(repl, ":emit forms 1 +\n 2")
    assert emitted.ok and "op" in emitted.text, emitted.text


async def test_modules_lists_the_loaded_classes_the_help_text_points_to(repl, tmp_path):
    """`:help NoSuchClass` says "Use Workspace classes or :modules" (spec
    repl.md §4); `:modules` must then answer, not "Unknown command"."""
    path = tmp_path / "mod_listed.bt"
    path.write_text("Actor subclass: ModListed\n  v => 1\n")
    assert (await run(repl, f":load {path}")).ok
    assert (await run(repl, "m := ModListed spawn")).ok
    out = await run(repl, ":modules")
    assert out.ok, out.text
    line = next(ln for ln in out.text.splitlines() if "ModListed" in ln)
    assert str(path) in line and "1 actor" in line
    assert "Unknown command" not in out.text


async def test_unload_names_its_replacement(repl):
    """spec repl.md §4: `:unload` was removed; the answer says what to use."""
    out = await run(repl, ":unload Foo")
    assert not out.ok
    assert out.text.startswith("':unload' has been removed. Use `removeFromSystem` instead.")
    assert "Foo removeFromSystem" in out.text


async def test_a_method_for_a_class_that_does_not_exist_says_define_it_first(repl):
    """spec repl.md §5.1: `Class not found: X. Define the class first before adding methods.`"""
    out = await run(repl, "NoSuchKlassQq >> foo => 1")
    assert not out.ok
    assert "Class not found: NoSuchKlassQq. Define the class first before adding methods." in out.text, out.text
    # still a class_not_found error, bound to _error as any runtime error
    assert (await run(repl, "_error kind")).text == "#class_not_found"
    # a class that exists (the stdlib's too) still takes the method
    assert (await run(repl, "Integer >> triplePlusQq => self * 3")).ok
    assert (await run(repl, "4 triplePlusQq")).text == "12"


# ---------------------------------------------------------------- :help as a learner meets it

async def test_help_names_the_class_a_misspelt_or_lowercase_name_meant(repl):
    out = await run(repl, ":help Intger")
    assert (out.ok, out.text) == (False, "Unknown class: Intger. Use Workspace classes or :modules to "
                                         "see loaded classes.\nHint: did you mean Integer? (:help Integer)")
    out = await run(repl, ":help integer")
    assert not out.ok and out.text.endswith("Hint: did you mean Integer? (:help Integer)")


async def test_help_on_a_workspace_global_shows_its_class(repl):
    out = await run(repl, ":help Transcript")
    assert out.ok, out.text
    assert out.text.splitlines()[:2] == ["Transcript is the workspace's TranscriptStream (a global):",
                                         "== TranscriptStream < Actor =="]
    out = await run(repl, ":help Workspace load:")
    assert out.ok and "WorkspaceInterface >> load:" in out.text


async def test_help_on_an_erlang_module_lists_its_functions(repl):
    out = await run(repl, ":help Erlang lists")
    assert out.ok, out.text
    assert out.text.startswith("== Erlang lists ==")
    assert "reverse:" in out.text and "seq:with:" in out.text
    out = await run(repl, ":help Erlang lists reverse:")
    assert (out.ok, out.text.splitlines()[:2]) == (
        True, ["Erlang lists >> reverse:", "  Calls the Erlang function lists:reverse/1"])
    out = await run(repl, ":help Erlang lists frobnicate:")
    assert (out.ok, out.text) == (False, "Erlang lists has no function for frobnicate:. "
                                         "Use :help Erlang lists to see its functions.")
    out = await run(repl, ":help Erlang no_such_module_qq")
    assert not out.ok and out.text.startswith("No Erlang module no_such_module_qq is loaded")


async def test_help_text_fits_the_terminal_and_shows_first_sentences(repl):
    for cls in ("Integer", "TestCase", "JSON", "Behaviour", "BEAMError class", "Erlang", "List"):
        out = await run(repl, f":help {cls}")
        assert out.ok, out.text
        wide = [line for line in out.text.splitlines() if len(line) > 80]
        assert not wide, (cls, wide)
        assert "```" not in out.text
    # a summary is the first sentence, cut at a word with an ellipsis, never mid-word
    out = await run(repl, ":help Integer")
    line = next(l for l in out.text.splitlines() if l.startswith("  uppercase — "))
    assert line.endswith("…") and len(line) <= 80
    # nor inside a `code span`: the cut is made before its opening backtick
    out = await run(repl, ":help Behaviour")
    line = next(l for l in out.text.splitlines() if l.startswith("  >> — "))
    assert line.endswith("…") and line.count("`") % 2 == 0, line


async def test_help_object_class_does_not_list_instance_methods_as_class_methods(repl):
    out = await run(repl, ":help Object class")
    assert out.ok, out.text
    assert "Class methods:" not in out.text and "ifNil:" not in out.text
    assert "Inherited: " in out.text
