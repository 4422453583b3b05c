"""Scale and limits, as an outsider tries them: deep nesting, big values,
values that stay bound after a stress.  Each test here was a failure first
(see the README's "Scale, stress and limits" subsection)."""

from __future__ import annotations


async def test_deeply_nested_lists_print_in_one_pass(repl):
    # printString copied each level's text into the level above: 100 000
    # levels took 10 s, and showing the value at the prompt twice that
    assert (await repl.evaluate("deep := #(). 1 to: 200000 do: [:i | deep := #(deep)]. 1")).ok
    assert (await repl.evaluate("deep printString size")).text == "600003"
    shown = (await repl.evaluate("deep")).text
    assert shown.startswith("#(#(#(") and shown.endswith(" more bytes)")
    assert (await repl.evaluate("#(1, #(2, #(3, #())), #(4)) printString")).text \
        == '"#(1, #(2, #(3, #())), #(4))"'


async def test_deeply_nested_dictionaries_print_and_keep_their_order(repl):
    # the same for Dictionaries: 100 000 levels did not answer within 30 s
    assert (await repl.evaluate(
        "dd := Dictionary new. 1 to: 100000 do: [:i | dd := Dictionary new at: #k put: dd]. 1")).ok
    assert (await repl.evaluate("dd printString size")).text == str(100000 * 9 + 3)
    # pairs are ordered by their text, as before
    assert (await repl.evaluate("#{10 => #(1), 9 => 2, #b => 3, #a => #{#z => 1, #y => 2}} printString")).text \
        == '"#{#a => #{#y => 2, #z => 1}, #b => 3, 10 => #(1), 9 => 2}"'
