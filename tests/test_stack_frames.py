"""A loaded method's StackFrame names the method and its `.bt` file
(stdlib §6 StackFrame): the fast send path compiles a value class's
instance methods into one dispatch function, and a frame of that function
used to read `Calc>>$d/3 (bt@calc.erl:4)`."""

from __future__ import annotations

from helpers import err, ok

CALC = """\
Object subclass: FrameCalc
  state: total = 0
  divBy: n =>
    ^100 / n
  run: n =>
    ^(self divBy: n) + 1
  class make =>
    ^1 / 0
"""

ACTOR = """\
Actor subclass: FrameActor
  state: n = 0
  boom =>
    ^self.n / 0
"""


async def test_a_frame_of_a_loaded_value_method_names_the_selector_and_the_file(repl, tmp_path):
    path = tmp_path / "frame_calc.bt"
    path.write_text(CALC)
    assert (await repl.evaluate(f":load {path}")).text == "Loaded: FrameCalc"
    await ok(repl, "e := [FrameCalc new run: 0] on: Error do: [:ex | ex]")
    await ok(repl, "f := e stackTrace first")
    assert await ok(repl, "f method") == "#divBy:"
    assert await ok(repl, "f receiverClass") == "#FrameCalc"
    assert await ok(repl, "f arguments") == "2"
    assert await ok(repl, "f file") == '"frame_calc.bt"'
    assert await ok(repl, "f line") == "4"
    assert await ok(repl, "f sourceLocation") == '"frame_calc.bt:4"'
    assert await ok(repl, "f printString") == '"FrameCalc>>divBy:/2 (frame_calc.bt:4)"'
    # the caller's frame (not a tail call): the same dispatch function, another method
    assert await ok(repl, "(e stackTrace at: 2) printString") == '"FrameCalc>>run:/2 (frame_calc.bt:6)"'


async def test_a_frame_of_a_class_side_method_reads_as_the_metaclass(repl, tmp_path):
    path = tmp_path / "frame_calc2.bt"
    path.write_text(CALC.replace("FrameCalc", "FrameCalc2"))
    await repl.evaluate(f":load {path}")
    await ok(repl, "e := [FrameCalc2 make] on: Error do: [:ex | ex]")
    assert await ok(repl, "e stackTrace first printString") == '"FrameCalc2 class>>make/1 (frame_calc2.bt:8)"'
    assert await ok(repl, "e stackTrace first method") == "#make"


async def test_a_frame_of_an_actor_method_names_the_file(repl, tmp_path):
    path = tmp_path / "frame_actor.bt"
    path.write_text(ACTOR)
    await repl.evaluate(f":load {path}")
    await ok(repl, "a := FrameActor spawn")
    out = await ok(repl, "[a boom] on: Error do: [:ex | (ex stackTrace detect: [:f | f receiverClass = #FrameActor]) printString]")
    assert out.startswith('"FrameActor>>boom/') and out.endswith('(frame_actor.bt:4)"'), out


async def test_a_frame_of_a_method_of_a_class_typed_at_the_repl_names_the_method(repl):
    await ok(repl, "Object subclass: TypedCalc\n  go: n => ^(10 / n) + 1\n  class mk: n => ^(10 / n) + 1")
    await ok(repl, "e := [TypedCalc new go: 0] on: Error do: [:ex | ex]")
    assert await ok(repl, "e stackTrace first printString") == '"TypedCalc>>go:/2 (<input>:2)"'
    await ok(repl, "e := [TypedCalc mk: 0] on: Error do: [:ex | ex]")
    assert await ok(repl, "e stackTrace first printString") == '"TypedCalc class>>mk:/2 (<input>:3)"'
    assert await ok(repl, "e stackTrace first method") == "#mk:"


DEEP = """\
Object subclass: DeepCalc
  class level1 => ^self level2
  class level2 => ^self level3: 0
  class level3: d => ^10 / d
"""


async def test_an_uncaught_error_from_a_loaded_file_says_where_it_was_raised(repl, tmp_path):
    """Three calls deep in a loaded class, the REPL's error block names the
    method and the line (a traceback's last line); it said only `badarith`."""
    path = tmp_path / "deep_calc.bt"
    path.write_text(DEEP)
    await repl.evaluate(f":load {path}")
    text = await err(repl, "DeepCalc level1")
    assert text == ("ERROR: #RuntimeError\n  Message: badarith\n"
                    "  Location: DeepCalc class>>level3: (deep_calc.bt:4)"), text
    # an actor's error keeps the frame of the actor's method
    path2 = tmp_path / "frame_actor2.bt"
    path2.write_text(ACTOR.replace("FrameActor", "FrameActor2"))
    await repl.evaluate(f":load {path2}")
    await ok(repl, "a2 := FrameActor2 spawn")
    text = await err(repl, "a2 boom")
    assert text.endswith("  Location: FrameActor2>>boom (frame_actor2.bt:4)"), text


BLOCKY = """\
Object subclass: BlockyCalc
  run => ^[1 / 0] ensure: [nil]
  class run => ^#(0) collect: [:x | 1 / x]
"""


async def test_the_location_of_an_error_in_a_block_of_a_method_reads_as_in_pharo(repl, tmp_path):
    path = tmp_path / "blocky_calc.bt"
    path.write_text(BLOCKY)
    await repl.evaluate(f":load {path}")
    text = await err(repl, "BlockyCalc new run")
    assert text.endswith("  Location: [] in BlockyCalc>>run (blocky_calc.bt:2)"), text
    text = await err(repl, "BlockyCalc run")
    assert text.endswith("  Location: [] in BlockyCalc class>>run (blocky_calc.bt:3)"), text


async def test_an_error_typed_at_the_repl_has_no_location_line(repl):
    text = await err(repl, "1 / 0")
    assert "Location" not in text, text
    await ok(repl, "Object subclass: TypedDeep\n  go => ^1 / 0")
    text = await err(repl, "TypedDeep new go")
    assert "Location" not in text, text


LOOPY = """\
Actor subclass: LoopyAcct
  state: n = 0
  crash =>
    #(1, 2) do: [:x |
      x / 0]
  count =>
    1 to: 3 do: [:i | self.n := self.n + (1 / (i - 2))].
    ^self.n
"""

LOOPY_CALC = """\
Object subclass: LoopyCalc
  spin =>
    k := 3.
    [k > 0] whileTrue: [k := k - 1. 1 / k].
    ^k
"""


async def test_the_location_of_an_error_in_an_inlined_loop_names_the_method(repl, tmp_path):
    """`do:`, `to:do:` and `whileTrue:` with literal blocks are compiled into
    named funs (`-crash/2-Loop14/2-0-`); the Location line printed that
    Erlang name instead of the method.  An inlined loop is the method's own
    code (as Pharo's inlined `to:do:` and `whileTrue:` are), so no `[] in`."""
    path = tmp_path / "loopy.bt"
    path.write_text(LOOPY)
    await repl.evaluate(f":load {path}")
    await ok(repl, "la := LoopyAcct spawn")
    text = await err(repl, "la crash")
    assert text.endswith("  Location: LoopyAcct>>crash (loopy.bt:5)"), text
    text = await err(repl, "la count")
    assert text.endswith("  Location: LoopyAcct>>count (loopy.bt:7)"), text
    path2 = tmp_path / "loopy_calc.bt"
    path2.write_text(LOOPY_CALC)
    await repl.evaluate(f":load {path2}")
    text = await err(repl, "LoopyCalc new spin")
    assert text.endswith("  Location: LoopyCalc>>spin (loopy_calc.bt:4)"), text


BLOCK_FRAMES = """\
Object subclass: BlockFrames
  sumAll: xs =>
    ^xs inject: 0 into: [:acc :x | acc + (self scale: x)]
  scale: x =>
    ^100 / (x - 2)
  class each: xs =>
    ^xs collect: [:x | 1 / x]
"""

ACTOR_BLOCK_FRAMES = """\
Actor subclass: ActorBlockFrames
  report =>
    ^#(1) collect: [:h | h asStrin]
"""


async def test_a_frame_of_a_block_names_the_method_that_holds_it(repl, tmp_path):
    # The frame of a block read as the Erlang fun it compiles to
    # (`BlockFrames>>-$d/3-anonymous-0-/3`, `ActorBlockFrames>>-report/2-fun-0-/3`):
    # it reads as Pharo's `[] in` the method now, as the Location line does.
    (tmp_path / "block_frames.bt").write_text(BLOCK_FRAMES)
    (tmp_path / "actor_block_frames.bt").write_text(ACTOR_BLOCK_FRAMES)
    await repl.evaluate(f":load {tmp_path / 'block_frames.bt'}")
    await repl.evaluate(f":load {tmp_path / 'actor_block_frames.bt'}")
    await ok(repl, "e := [BlockFrames new sumAll: #(2)] on: Error do: [:ex | ex]")
    assert await ok(repl, "(e stackTrace at: 2) printString") == '"[] in BlockFrames>>sumAll:/2 (block_frames.bt:3)"'
    assert await ok(repl, "(e stackTrace at: 2) method") == "#sumAll:"
    assert await ok(repl, "(e stackTrace at: 2) isBlock") == "true"
    assert await ok(repl, "e stackTrace first isBlock") == "false"
    await ok(repl, "e := [BlockFrames each: #(0)] on: Error do: [:ex | ex]")
    assert await ok(repl, "e stackTrace first printString") == '"[] in BlockFrames class>>each:/2 (block_frames.bt:7)"'
    await ok(repl, "a := ActorBlockFrames spawn")
    await ok(repl, "e := [a report] on: Error do: [:ex | ex]")
    shown = await ok(repl, "e stackTrace printString")
    assert "[] in ActorBlockFrames>>report/2 (actor_block_frames.bt:3)" in shown, shown
    assert "-fun-" not in shown and "anonymous" not in shown, shown


async def test_frames_of_input_typed_at_the_repl_name_no_workspace_internals(repl):
    """`_error stackTrace` of an error in a block typed at the REPL listed
    the input's generated module and fun names and the runtime's own frames
    (`bt@in@1>>-eval/1-fun-0-/1 (bt@in@1.erl:1)`,
    `beamtalk_eval_jobs>>run/2 (beamtalk_eval_jobs.erl:185)`)."""
    await ok(repl, "blk := [:x | x / 0]")
    await err(repl, "blk value: 3")
    shown = await ok(repl, "_error stackTrace printString")
    assert shown == '"#([] in <input> (line 1), <input> (line 1))"', shown
    assert await ok(repl, "_error stackTrace first sourceLocation") == '"<input>:1"'
