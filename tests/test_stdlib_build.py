"""The standard library: `stdlib/*.bt` compiled by this project's compiler,
cached by hash, loaded by every workspace boot (issue 4 §2)."""

from __future__ import annotations

import os

import pytest

from beamtalk_ws.compiler import stdlib
from beamtalk_ws.compiler.modules import compile_file
from beamtalk_ws.syntax import parse
from beamtalk_ws.workspace import erlbuild, stdlibbuild


def test_every_stdlib_file_compiles_to_a_stdlib_module():
    compiled = stdlib.compile_stdlib()
    assert len(compiled) == len(stdlib.sources()) > 40
    names = {c.name for c in compiled}
    assert {"ProtoObject", "Object", "Integer", "String", "List", "Dictionary", "Exception"} <= names
    assert all(c.module.startswith("bt@stdlib@") for c in compiled)


def test_primitives_are_refused_outside_the_stdlib():
    src = "Object subclass: Sneaky\n  foo => @primitive \"foo\"\n"
    with pytest.raises(Exception) as e:
        compile_file(parse(src, "sneaky.bt"), src, "sneaky.bt")
    assert "Primitives can only be declared in the standard library" in str(e.value.render())


def test_a_primitive_body_calls_the_class_primitive_module():
    src = "Value subclass: Association\n  key => @primitive \"key\"\n  class k => @primitive \"k\"\n"
    cc = compile_file(parse(src, "a.bt"), src, "a.bt", None, stdlib.module_for, stdlib=True)
    text = repr(cc.forms)
    assert "beamtalk_prim_association" in text and "'class k'" in text


def test_the_build_is_cached_by_hash(bt_home):
    ebin = erlbuild.ensure_built()
    first = stdlibbuild.ensure_built(ebin)
    assert (first / ".complete").exists()
    assert (first / "bt@stdlib@integer.beam").exists()
    stamp = os.stat(first / "bt@stdlib@integer.beam").st_mtime_ns
    again = stdlibbuild.ensure_built(ebin)
    assert again == first and os.stat(again / "bt@stdlib@integer.beam").st_mtime_ns == stamp


def test_a_changed_stdlib_builds_a_new_cache_entry(bt_home, tmp_path):
    for f in stdlib.sources():
        (tmp_path / f.name).write_text(f.read_text())
    ebin = erlbuild.ensure_built()
    a = stdlibbuild.ensure_built(ebin, tmp_path)
    (tmp_path / "association.bt").write_text((tmp_path / "association.bt").read_text()
                                             + "  isPair => true\n")
    b = stdlibbuild.ensure_built(ebin, tmp_path)
    assert a != b and (b / ".complete").exists()


async def test_the_workspace_runs_the_compiled_stdlib(repl):
    out = await repl.evaluate("Integer sourceFile")
    assert out.ok and out.text.endswith('stdlib/integer.bt"')
    out = await repl.evaluate("(Erlang code is_loaded: #'bt@stdlib@integer') == false")
    assert out.ok and out.text == "false"
    out = await repl.evaluate("Value subclass: Integer\n  foo => 1")
    assert not out.ok and "Cannot redefine stdlib class 'Integer'" in out.text
