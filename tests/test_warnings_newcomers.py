"""Warnings for code that runs but cannot mean what a newcomer meant
(compiler/lint_newcomers.py, probe-teach): a dropped update of a collection
value, `x[0]`, a Pharo "comment", a field assigned without `self.`.  Before,
each answered silently (`l add: 2. l` → #(1), `xs[0]` → a Block)."""

from __future__ import annotations

import pytest

from beamtalk_ws.compiler import compile_input


def warned(src, bound=frozenset()):
    return compile_input(src, frozenset(bound)).warnings


@pytest.mark.parametrize(
    "src, where, text, hint",
    [
        ("l := #(1). l add: 2. l", "1:12", "`l add: …` answers a new List and leaves l unchanged",
         "keep the answer: l := l add: 2"),
        ("d := Dictionary new. d at: #a put: 1. d size", "1:22", "answers a new Dictionary",
         "d := d at: #a put: 1"),
        ("Actor subclass: NwBag\n  state: items = #()\n  add: x => self.items add: x", "3:13",
         "`self.items add: …` answers a new List and leaves self.items unchanged",
         "self.items := self.items add: x"),
        ("xs := #(1, 2). xs[0]", "1:18", "two statements: the value, then a block", "x at: 1"),
        ('"a comment" 3 + 4', "1:1", "A String on its own is not a comment", "comments start with //"),
        ("Object subclass: NwPt\n  state: x = 0\n  setX: v => x := v", "3:14", "Variable `x` is assigned but never used",
         "a method sets it with self.x := ..."),
        ("Object subclass: NwTwo\n  state: a = 1 b = 2\n  sum => self.a", "2:14",
         "This declares one field, `a`, whose default is the expression `1 b = 2`",
         "declare each field on a line of its own"),
        ("Object subclass: NwCm\n  state: x = 1\n  class make => self.x", "3:17",
         "`x` is an instance field of NwCm, not a class variable: a class-side method reads it as nil",
         "declare it with classState: x"),
    ],
)
def test_silent_newcomer_code_is_warned(src, where, text, hint):
    ws = warned(src)
    assert len(ws) == 1, ws
    assert ws[0].startswith(f"<input>:{where}: warning: ") and text in ws[0], ws[0]
    assert "hint: " + hint in ws[0] or hint in ws[0].split("hint: ", 1)[1], ws[0]


@pytest.mark.parametrize(
    "src",
    [
        "l := #(1). l := l add: 2. l",              # the answer is kept
        "l := #(1). l add: 2",                       # the last value is shown
        "a add: 3. a size",                          # an actor's add: changes it: nothing known about a
        "Actor subclass: NwOk\n  state: items = #()\n  add: x => self.items := self.items add: x",
        '"a comment". 3 + 4',
        '"text"\n3 + 4',
        "xs := #(1, 2). xs at: 1",
        "b := [1]. b value",
        "Object subclass: NwCv\n  state: x = 1\n  classState: x = 2\n  class make => self.x",
        "xs := #(1). xs add: 3   // => #(1, 3)\nxs",  # a doctest line shows the answer
    ],
)
def test_ordinary_code_is_not_warned(src):
    assert warned(src, {"a"}) == []


async def test_the_warning_does_not_change_the_answer(repl):
    out = await repl.evaluate("nwl := #(1). nwl add: 2. nwl")
    assert out.ok and out.text == "#(1)"
    assert len(out.warnings) == 1 and "leaves nwl unchanged" in out.warnings[0]
