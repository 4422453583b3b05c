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


async def test_string_at_does_not_split_the_whole_string(repl):
    # `at:` made a List of every grapheme of the receiver: on a 10 MB String
    # that took 7 s and a few hundred MB of heap for each `at:`
    assert (await repl.evaluate(
        'j := ((1 to: 1000000) asList collect: [:i | "0123456789"]) join: "". j size')).text == "10000000"
    assert (await repl.evaluate("n := 0. 1 to: 200 do: [:i | (j at: 9999800 + i) = \"0\" ifTrue: [n := n + 1]]. n"
                                )).text == "20"
    assert (await repl.evaluate("j at: 10000000")).text == '"9"'
    out = await repl.evaluate("j at: 10000001")
    assert not out.ok and "10000001" in out.text
    # graphemes stay graphemes
    assert (await repl.evaluate('"ab\u00e9\u0301c" at: 3')).text == '"\u00e9\u0301"'
    assert (await repl.evaluate('"x\u00e9" at: 1')).text == '"x"'
    assert (await repl.evaluate('"e\u0301x" at: 1')).text == '"e\u0301"'
    assert (await repl.evaluate('"ab\u00e9\u0301c" at: 4')).text == '"c"'
    assert (await repl.evaluate("\"a\" ++ (Erlang binary copy: \"\r\n\" with: 1) ++ \"b\" at: 2")).text \
        == '"\r\n"'
    assert not (await repl.evaluate('"abc" at: 0')).ok
    assert not (await repl.evaluate('"ab\u00e9" at: 4')).ok
