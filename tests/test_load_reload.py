"""Loading files and hot reload against a real workspace (issue 3 §4)."""

from __future__ import annotations

import textwrap

import pytest

from helpers import ok

COUNTER_V1 = """\
Actor subclass: HotCounter
  state: value = 0
  increment => self.value := self.value + 1
  getValue => ^self.value
  legacy => #old
"""

COUNTER_V2 = """\
Actor subclass: HotCounter
  state: value = 0
  state: step = 5
  increment => self.value := self.value + self.step
  getValue => ^self.value
  getStep => self.step
"""


async def test_load_then_hot_reload_keeps_1000_actors(repl, tmp_path):
    path = tmp_path / "hot_counter.bt"
    path.write_text(COUNTER_V1)
    assert (await repl.evaluate(f":load {path}")).text == "Loaded: HotCounter"
    await ok(repl, "actors := (1 to: 1000) collect: [:i | HotCounter spawn]")
    await ok(repl, "actors do: [:a | a increment]")
    await ok(repl, "first := actors first")
    assert await ok(repl, "first legacy") == "#old"
    path.write_text(COUNTER_V2)
    assert (await repl.evaluate(":reload")).text == "Loaded: HotCounter"
    # State kept, the new field has its default, the new code runs, the removed method is gone.
    assert await ok(repl, "first getValue") == "1"
    assert await ok(repl, "first getStep") == "5"
    assert await ok(repl, "(actors collect: [:a | a getValue]) inject: 0 into: [:s :v | s + v]") == "1000"
    await ok(repl, "actors do: [:a | a increment]")
    assert await ok(repl, "(actors collect: [:a | a getValue]) inject: 0 into: [:s :v | s + v]") == "6000"
    out = await repl.evaluate("first legacy")
    assert not out.ok and "does not understand 'legacy'" in out.text


async def test_a_file_that_fails_to_compile_changes_nothing(repl, tmp_path):
    path = tmp_path / "stable.bt"
    path.write_text("Object subclass: Stable\n  answer => 42\n")
    await repl.evaluate(f":load {path}")
    path.write_text("Object subclass: Stable\n  answer => 43 +\n")
    out = await repl.evaluate(":reload")
    assert not out.ok and "stable.bt:2" in out.text
    assert await ok(repl, "Stable new answer") == "42"


async def test_load_directory_orders_superclasses_first(repl, tmp_path):
    (tmp_path / "a_sub.bt").write_text("Base subclass: Derived\n  who => #derived\n")
    (tmp_path / "b_base.bt").write_text("Object subclass: Base\n  who => #base\n  hello => #hi\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "skip.bt").write_text("this is not beamtalk ]")
    out = await repl.evaluate(f":load {tmp_path}")
    assert out.ok and out.text == f"Loaded 2 files from {tmp_path}"
    assert await ok(repl, "Derived new who") == "#derived"
    assert await ok(repl, "Derived new hello") == "#hi"


async def test_load_errors_are_located(repl, tmp_path):
    path = tmp_path / "bad.bt"
    path.write_text("Object subclass: Bad\n  m => zork\n")
    out = await repl.evaluate(f":load {path}")
    assert not out.ok
    assert f"{path}:2:8: Undefined variable: zork" in out.text
    missing = await repl.evaluate(f":load {tmp_path / 'nope.bt'}")
    assert not missing.ok and "File not found" in missing.text


async def test_load_of_a_file_that_is_not_utf8_is_located(repl, tmp_path):
    # a Latin-1 file: ":load" said "<path>: not UTF-8 text" with no line or column
    path = tmp_path / "latin.bt"
    path.write_bytes(b'Object subclass: Latin\n  m => "caf\xe9"\n')
    out = await repl.evaluate(f":load {path}")
    assert not out.ok
    assert f"{path}:2:12: the file is not UTF-8 text: byte 0xe9" in out.text
    assert "hint: Beamtalk source is UTF-8" in out.text


async def test_a_superclass_nobody_defines_is_located_and_the_other_files_load(repl, tmp_path):
    """A file whose superclass is neither in the load nor in the workspace
    said only "Class 'Nope' not found", with no file or line."""
    (tmp_path / "orphan.bt").write_text("/// doc\nNoSuchBase subclass: Orphan\n  x => 1\n")
    (tmp_path / "orphan_kid.bt").write_text("Orphan subclass: OrphanKid\n  y => 1\n")
    (tmp_path / "fine.bt").write_text("Object subclass: FineOne\n  x => 2\n")
    out = await repl.evaluate(f":load {tmp_path}")
    assert not out.ok
    orphan = tmp_path / "orphan.bt"
    assert (f"{orphan}:2:1: The superclass of Orphan, NoSuchBase, is not defined in the workspace"
            in out.text), out.text
    assert "hint: load the file that defines NoSuchBase first" in out.text
    kid = tmp_path / "orphan_kid.bt"
    assert f"{kid}:1:1: The superclass of OrphanKid, Orphan, did not load" in out.text
    assert await ok(repl, "FineOne new x") == "2"
    single = await repl.evaluate(f":load {orphan}")
    assert not single.ok and f"{orphan}:2:1: The superclass of Orphan" in single.text


async def test_two_classes_in_one_file_is_an_error(repl, tmp_path):
    path = tmp_path / "two.bt"
    path.write_text("Object subclass: One\n  a => 1\nObject subclass: Two\n  b => 2\n")
    out = await repl.evaluate(f":load {path}")
    assert not out.ok and "Multiple classes in one file is not supported. Found classes: One, Two" in out.text


async def test_one_class_in_two_files_of_a_load_names_both_and_loads_neither(repl, tmp_path):
    (tmp_path / "a.bt").write_text("Object subclass: Twice\n  who => #a\n")
    (tmp_path / "b.bt").write_text("Object subclass: Twice\n  who => #b\n")
    (tmp_path / "c.bt").write_text("Object subclass: OnceOnly\n  who => #c\n")
    out = await repl.evaluate(f":load {tmp_path}")
    assert not out.ok
    lines = out.text.splitlines()
    assert lines[:2] == ["  \u2713 1 files loaded", "  \u2717 2 files failed (a.bt, b.bt)"]
    both = f"{tmp_path / 'a.bt'}, {tmp_path / 'b.bt'}"
    assert f"Class Twice is defined in 2 files of this load: {both}; {tmp_path / 'a.bt'} was not loaded" in out.text
    assert "Hint: a class has one file" in out.text
    assert await ok(repl, "OnceOnly new who") == "#c"
    missing = await repl.evaluate("Twice new who")
    assert not missing.ok and "Twice" in missing.text


async def test_repl_redefinition_updates_live_actors(repl):
    await ok(repl, "Actor subclass: Live\n  state: n = 1\n  get => self.n")
    await ok(repl, "l := Live spawn")
    await ok(repl, "Actor subclass: Live\n  state: n = 1\n  state: m = 10\n  get => self.n + self.m")
    assert await ok(repl, "l get") == "11"


async def test_load_over_json(workspace, tmp_path):
    import json

    from conftest import run_beamtalk

    path = tmp_path / "json_loaded.bt"
    path.write_text("Object subclass: JsonLoaded\n  hi => #hi\n")
    reqs = [{"id": 1, "op": "load", "path": str(path)}, {"id": 2, "op": "eval", "code": "JsonLoaded new hi"}]
    proc = run_beamtalk(["repl", "--json", "--workspace", workspace.id],
                        input="".join(json.dumps(r) + "\n" for r in reqs))
    assert [json.loads(l) for l in proc.stdout.splitlines()] == [
        {"id": 1, "value": "Loaded: JsonLoaded"}, {"id": 2, "value": "#hi"}]


async def test_reload_one_class_from_its_source_file(repl, tmp_path):
    path = tmp_path / "greeter.bt"
    path.write_text("Object subclass: Greeter\n  hi => #hello\n")
    await ok(repl, f":load {path}")
    assert await ok(repl, "Greeter sourceFile") == f'"{path}"'
    path.write_text("Object subclass: Greeter\n  hi => #bonjour\n")
    assert (await repl.evaluate(":reload Greeter")).text == "Greeter"   # `Greeter reload` answers the class
    assert await ok(repl, "Greeter new hi") == "#bonjour"
    out = await repl.evaluate(":reload Integer")
    assert not out.ok and "Integer has no source file" in out.text
    out = await repl.evaluate(":reload Nonesuch")
    assert not out.ok and "Nonesuch" in out.text


async def test_loading_a_class_from_another_module_warns_that_it_is_redefined(repl, tmp_path):
    """spec repl.md §5.3: a package's class, then a loose copy of its file
    (another module): the load succeeds with `Class 'X' redefined (was m1,
    now m2)`; loading the same file again is silent."""
    pkg = tmp_path / "shop"
    (pkg / "src").mkdir(parents=True)
    (pkg / "beamtalk.toml").write_text('[package]\nname = "shop"\nversion = "0.1.0"\n')
    src = "Object subclass: Collide\n  who => #pkg\n"
    (pkg / "src" / "collide.bt").write_text(src)
    loose = tmp_path / "collide.bt"
    loose.write_text(src.replace("#pkg", "#loose"))
    first = await repl.evaluate(f":load {pkg / 'src' / 'collide.bt'}")
    assert first.ok and first.warnings == [], (first.text, first.warnings)
    again = await repl.evaluate(f":load {pkg / 'src' / 'collide.bt'}")
    assert again.ok and again.warnings == [], again.warnings           # same module: silent
    moved = await repl.evaluate(f":load {loose}")
    assert moved.ok, moved.text
    assert moved.warnings == ["Class 'Collide' redefined (was bt@shop@collide, now bt@collide)"]
    assert (await repl.evaluate("Collide new who")).text == "#loose"


def test_a_directory_that_vanishes_while_a_load_walks_the_tree_is_skipped(tmp_path, monkeypatch):
    # `:load dir` / `:reload` walked with Path.rglob, which raised
    # FileNotFoundError ("Internal error ... please report this input") when
    # a directory below went away mid-walk (an editor's or a test's temp dir)
    import os

    from beamtalk_ws.repl.loader import bt_files

    (tmp_path / "a.bt").write_text("Object subclass: A\n")
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "b.bt").write_text("Object subclass: B\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "c.bt").write_text("Object subclass: C\n")
    real = os.scandir

    def scandir(path="."):
        if str(path).endswith("gone"):
            raise FileNotFoundError(2, "No such file or directory", str(path))
        if str(path).endswith(".git"):
            raise AssertionError("hidden directories are not walked")
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert bt_files(tmp_path) == [tmp_path / "a.bt"]


async def test_load_of_an_empty_quoted_path_is_a_usage_error(repl):
    # it loaded the current directory and said "Loaded 0 files from "
    for arg in ('""', "''", '"  "'):
        out = await repl.evaluate(f":load {arg}")
        assert (out.ok, out.text) == (False, "Usage: :load <file or directory>")


@pytest.mark.parametrize("base_files", [
    # one class in two files (both refused), or a base class that does not compile
    {"a.bt": "Object subclass: BaseLd\n  value => ^3\n", "b.bt": "Object subclass: BaseLd\n  value => ^4\n"},
    {"a.bt": "Object subclass: BaseLd\n  value => ^zork\n"},
])
async def test_a_subclass_of_a_class_that_did_not_load_is_refused_and_the_rest_loads(repl, tmp_path, base_files):
    # the whole load failed with "Class 'BaseLd' not found" (no file named),
    # and the unrelated class was not loaded either
    for name, text in base_files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "c.bt").write_text("BaseLd subclass: DerivedLd\n  twice => ^self value * 2\n")
    (tmp_path / "d.bt").write_text("Object subclass: FineLd\n  x => 1\n")
    out = await repl.evaluate(f":load {tmp_path}")
    assert not out.ok
    assert "Class 'BaseLd' not found" not in out.text
    assert f"{tmp_path / 'c.bt'}:1:1: The superclass of DerivedLd, BaseLd, did not load" in out.text
    assert "  \u2713 1 files loaded" in out.text
    assert await ok(repl, "FineLd new x") == "1"
