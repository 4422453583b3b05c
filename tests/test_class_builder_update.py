"""Issue 13: a ClassBuilder for a class that exists updates it instead of
wiping it, and live actors and instances keep their state and follow."""

from __future__ import annotations

from helpers import err, ok

COUNTER = """\
Actor subclass: CbuCounter
  state: n = 0
  increment => self.n := self.n + 1
  value => self.n
  class label => "counter"
"""


async def test_adding_a_method_keeps_methods_fields_superclass_and_the_live_actor(repl):
    await ok(repl, COUNTER)
    await ok(repl, "c := CbuCounter spawn")
    await ok(repl, "c increment; increment")
    assert await ok(repl, "CbuCounter classBuilder addMethod: #double body: [:me | (me fieldAt: #n) * 2]; register") == "CbuCounter"
    assert await ok(repl, "c double") == "4"
    assert await ok(repl, "c increment. c value") == "3"
    assert await ok(repl, "CbuCounter superclass") == "Actor"
    assert await ok(repl, "CbuCounter label") == '"counter"'
    assert await ok(repl, "CbuCounter fieldNames") == "#(#n)"
    # A field added later: the live actor keeps n and gains the field's default.
    await ok(repl, 'CbuCounter classBuilder addField: #tag default: "t"; register')
    assert await ok(repl, "c fieldNames") == "#(#n, #tag)"
    assert await ok(repl, "c value") == "3"
    assert await ok(repl, "c fieldAt: #tag") == '"t"'
    assert await ok(repl, "(CbuCounter spawn) increment; value") == "1"


async def test_a_builder_of_another_superclass_is_refused_and_changes_nothing(repl):
    await ok(repl, COUNTER.replace("CbuCounter", "CbuKeep"))
    await ok(repl, "k := CbuKeep spawn. k increment")
    text = await err(repl, "Object classBuilder name: #CbuKeep; register")
    assert "CbuKeep already exists as a subclass of Actor; this builder would make it a subclass of Object" in text
    assert "superclass: Object" in text
    assert await ok(repl, "CbuKeep superclass") == "Actor"
    assert await ok(repl, "k increment. k value") == "2"
    assert await ok(repl, "[Object classBuilder name: #CbuKeep; register] on: Error do: [:e | e kind]") == "#class_already_exists"


async def test_the_same_superclass_by_name_updates_and_an_explicit_one_replaces(repl):
    await ok(repl, "Object subclass: CbuPoint\n  state: x = 1\n  x => self.x\n  twice => self.x * 2\n")
    await ok(repl, "p := CbuPoint new")
    await ok(repl, "Object classBuilder name: #CbuPoint; addMethod: #thrice body: [:me | me x * 3]; register")
    assert await ok(repl, "p twice") == "2"
    assert await ok(repl, "p thrice") == "3"
    # An explicit, different superclass replaces the class with the new description.
    await ok(repl, "Actor subclass: CbuBase\n  hello => 1\n")
    await ok(repl, "Object classBuilder name: #CbuPoint; superclass: CbuBase; addField: #y default: 5; register")
    assert await ok(repl, "CbuPoint superclass") == "CbuBase"
    assert await ok(repl, "CbuPoint fieldNames") == "#(#y)"
    assert await ok(repl, "CbuPoint canUnderstand: #twice") == "false"


async def test_name_makes_a_subclass_and_a_class_definition_still_replaces(repl):
    await ok(repl, COUNTER.replace("CbuCounter", "CbuDef"))
    assert await ok(repl, "CbuDef classBuilder name: #CbuDefSub; register") == "CbuDefSub"
    assert await ok(repl, "CbuDefSub superclass") == "CbuDef"
    await ok(repl, "d := CbuDef spawn. d increment")
    # Typing the class again is a whole definition: removed methods go.
    await ok(repl, "Actor subclass: CbuDef\n  state: n = 0\n  value => self.n\n")
    assert await ok(repl, "CbuDef canUnderstand: #increment") == "false"
    assert await ok(repl, "d value") == "1"
    # A stdlib class's builder still needs a name.
    assert "requires a name" in await err(repl, "Object classBuilder register")
