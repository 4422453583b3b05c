"""The seeds' class examples (design documents in /work/shared/seeds) parse
as written; where a seed's sample is not Beamtalk on purpose, the parser's
error teaches the accepted form (issue 11 items 1 and 6).

The samples are copied here verbatim as test data (the seeds live outside the
repository)."""

from beamtalk_ws.syntax import parse, parse_with_diagnostics
from beamtalk_ws.syntax import ast as A
from syntax_cases.sexpr import sx

# ADR 0038 (seed 003), "ClassBuilder.bt"
CLASS_BUILDER = r"""// stdlib/src/ClassBuilder.bt
/// Fluent builder for creating and registering Beamtalk classes.
///
/// Used by the compiler for all compiled class definitions (Path 1)
/// and directly for dynamic class creation at runtime (Path 2).
///
/// ## Compiled use (conceptual — codegen emits Core Erlang, not Beamtalk):
/// ```
/// Object classBuilder
///   name: #Counter;
///   fields: #{ count => 0 };
///   methods: #{ increment => [...], value => [...] };
///   register
/// ```
///
/// ## Dynamic use (REPL, frameworks, metaprogramming):
/// ```beamtalk
/// cls := Object classBuilder
///   name: #Greeter;
///   addMethod: #greet body: [ 'Hello!' printNl ];
///   register.
/// Greeter new greet   // => Hello!
/// ```
Actor subclass: ClassBuilder
  state: className     = nil
  state: superclassRef = nil
  state: fieldSpecs    = #{}
  state: methodSpecs   = #{}
  state: modifiers     = #()

  /// Set the class name.
  name: aSymbol =>
    className := aSymbol

  /// Set the superclass.
  superclass: aClass =>
    superclassRef := aClass

  /// Set all fields at once (used by codegen).
  fields: aDict =>
    fieldSpecs := aDict

  /// Set all methods at once (used by codegen).
  methods: aDict =>
    methodSpecs := aDict

  /// Add a single field with a default value (fluent API for dynamic use).
  addField: aName default: aValue =>
    fieldSpecs := fieldSpecs at: aName put: aValue

  /// Add a single method as a block (fluent API for dynamic use).
  /// The block receives self as first argument.
  addMethod: aSelector body: aBlock =>
    methodSpecs := methodSpecs at: aSelector put: aBlock

  /// Apply a class modifier (:abstract, :sealed, :typed).
  modifier: aSymbol =>
    modifiers := modifiers add: aSymbol

  /// Register the class with the runtime and return the new class object.
  /// Stops the builder process after registration — the builder is
  /// single-use and should not be retained.
  ///
  /// For compiled classes (Path 1): called from module init, wires the
  /// BEAM module's pre-compiled methods into the class gen_server.
  /// If the class already exists (hot reload), updates the existing
  /// gen_server state via `update_class/2` rather than failing.
  ///
  /// For dynamic classes (Path 2): creates a class gen_server with
  /// closure-based methods, no BEAM module required.
  register =>
    @intrinsic classBuilderRegister
"""

# ADR 0034 (seed 002), "New Metaclass.bt Stdlib Class"
METACLASS = r"""// Copyright 2026 James Casey
// SPDX-License-Identifier: Apache-2.0

sealed Class subclass: Metaclass

  // Identity
  sealed isMeta => true
  sealed isClass => false
  sealed isMetaclass => true

  // thisClass: the class this metaclass describes
  sealed thisClass => @primitive "metaclassThisClass"

  // name: derived from thisClass (e.g., 'Counter class')
  sealed name => (self thisClass name asString) ++ " class"

  // printString: same as name
  sealed printString => self name asString

  // Parallel hierarchy: superclass of Counter class == superclass of Counter's metaclass
  // i.e. Counter class superclass == Actor class (not Actor)
  sealed superclass => @primitive "metaclassSuperclass"

  // Class-side method queries: introspect the described class's class methods
  sealed classMethods => @primitive "metaclassClassMethods"
  sealed localClassMethods => @primitive "metaclassLocalClassMethods"
  sealed classIncludesSelector: selector => @primitive "metaclassIncludesSelector"
"""

# ADR 0038, "REPL Self-Hosting Design" (a class typed at the REPL, then a statement)
POINT = """// User types in REPL — live, no compiler round-trip:
Object subclass: Point
  state: x = 0
  state: y = 0
  distanceTo: other => ((self.x - other.x) squared + (self.y - other.y) squared) sqrt

p := Point new
// => a Point (x: 0, y: 0)
"""

# ADR 0038, "stdlib/src/Class.bt — added": a method of Class, shown alone
CLASS_FACTORY = """/// Return a new ClassBuilder for creating a subclass of the receiver.
classBuilder => ClassBuilder new superclass: self
"""

# ADR 0038, "Cascade Pattern and Builder Lifecycle"
CASCADE = """Object classBuilder
  name: #Counter;
  fields: #{ count => 0 };
  methods: #{ increment => [...], value => [...] };
  register
"""

# ADR 0028 (seed 000), "Supervising Foreign Erlang Gen_Servers (Future Work)"
SUPERVISOR = """Supervisor subclass: MyApp
  children: [
    Counter spawn,
    Erlang childSpec: #{
      #id => #pg_pool,
      #start => {#pgpool, #start_link, #(connectionArgs)},
      #restart => #permanent
    }
  ]
  strategy: #oneForOne
"""


def only_errors(src, filename="<input>"):
    _m, diags = parse_with_diagnostics(src, filename)
    return [(d.message, d.span.line, d.span.col) for d in diags]


def test_class_builder_class_parses():
    (cls,) = parse(CLASS_BUILDER).items
    assert (cls.name, cls.superclass) == ("ClassBuilder", "Actor")
    assert cls.doc.startswith("Fluent builder for creating and registering Beamtalk classes.")
    assert [s.name for s in cls.state] == ["className", "superclassRef", "fieldSpecs", "methodSpecs", "modifiers"]
    assert [m.selector for m in cls.methods] == [
        "name:", "superclass:", "fields:", "methods:", "addField:default:", "addMethod:body:", "modifier:", "register",
    ]
    assert all(len(m.body) == 1 for m in cls.methods)
    by_name = {m.selector: m for m in cls.methods}
    # the body before a doc comment and the next header stays whole
    assert sx(by_name["addField:default:"].body[0]) == "(:= fieldSpecs (at:put: fieldSpecs aName aValue))"
    assert by_name["addMethod:body:"].doc == (
        "Add a single method as a block (fluent API for dynamic use).\nThe block receives self as first argument."
    )
    assert isinstance(by_name["register"].body[0], A.Primitive)


def test_metaclass_class_parses():
    (cls,) = parse(METACLASS).items
    assert (cls.name, cls.superclass, cls.modifiers) == ("Metaclass", "Class", ("sealed",))
    assert [m.selector for m in cls.methods] == [
        "isMeta", "isClass", "isMetaclass", "thisClass", "name", "printString", "superclass",
        "classMethods", "localClassMethods", "classIncludesSelector:",
    ]
    assert all(m.sealed for m in cls.methods)


def test_point_class_and_the_statement_after_it_parse():
    cls, stmt = parse(POINT).items
    assert [m.selector for m in cls.methods] == ["distanceTo:"]
    assert sx(stmt) == "(:= p (new Point))"


def test_class_factory_method_teaches_where_methods_go_and_parses_in_a_class():
    assert only_errors(CLASS_FACTORY) == [("a method definition must be inside a class", 2, 1)]
    (cls,) = parse("Behaviour subclass: Class\n" + "".join("  " + line + "\n" for line in CLASS_FACTORY.splitlines())).items
    assert [(m.selector, m.doc) for m in cls.methods] == [
        ("classBuilder", "Return a new ClassBuilder for creating a subclass of the receiver."),
    ]


def test_builder_cascade_written_across_lines_teaches_the_joined_form():
    errs = only_errors(CASCADE)
    assert errs[0] == ("a keyword message cannot start a line: join it to the line above", 2, 3)


def test_supervisor_sample_is_future_syntax_and_says_what_a_class_body_holds():
    """The sample uses class-body keywords that do not exist and a tuple
    literal (spec §6: there is none); the first error names what a class
    body may hold."""
    errs = only_errors(SUPERVISOR)
    assert errs[0] == (
        "Expected a method definition (pattern => body), state: or classState: in the class body", 2, 3,
    )
