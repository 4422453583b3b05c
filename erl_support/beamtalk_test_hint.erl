%% @doc The hint of a "FooTest does not understand 'sel'" error for the
%% assertions SUnit, ExUnit and xUnit users reach for first: BUnit has
%% only the spec's few (stdlib §11), so the hint names the one to write
%% instead of "Check spelling".  Called by beamtalk_selector_hint for
%% receivers that are TestCase instances or classes.
-module(beamtalk_test_hint).
-export([hint/2]).

%% @doc A hint for Sel sent to an instance (or the class) of the TestCase
%% subclass Class, or nil when Sel is not a known foreign assertion.
-spec hint(atom(), atom()) -> binary() | nil.
hint(Label, Sel) when is_atom(Label), is_atom(Sel) ->
    case is_test_class(Label) of
        true -> for(Sel);
        false -> nil
    end;
hint(_, _) ->
    nil.

is_test_class(Label) ->
    Base = case binary:split(atom_to_binary(Label, utf8), <<" class">>) of
               [B, <<>>] -> B;
               [B] -> B
           end,
    try binary_to_existing_atom(Base, utf8) of
        'TestCase' -> true;
        Name -> beamtalk_class:exists(Name) andalso beamtalk_class:inherits_from(Name, 'TestCase')
    catch error:badarg -> false
    end.

for(S) when S =:= 'assert:description:'; S =:= 'assert:descriptionBlock:' ->
    <<"BUnit's assert: takes no description: write cond ifFalse: [self fail: \"why\"], or "
      "self assert: actual equals: expected (its failure shows both values)">>;
for(S) when S =:= 'deny:description:' ->
    <<"BUnit's deny: takes no description: write cond ifTrue: [self fail: \"why\"]">>;
for(S) when S =:= 'assert:equals:description:'; S =:= 'assert:equals:message:' ->
    <<"BUnit's assert:equals: takes no description: self assert: actual equals: expected "
      "already shows both values">>;
for(S) when S =:= 'deny:equals:'; S =:= 'assert:notEquals:'; S =:= 'refute:equals:';
            S =:= 'assertNotEqual:to:' ->
    <<"write self deny: actual = expected">>;
for(S) when S =:= 'refute:'; S =:= 'assertFalse:'; S =:= 'denyTrue:' ->
    <<"deny: cond fails unless cond is false">>;
for(S) when S =:= 'assertTrue:'; S =:= 'expect:'; S =:= 'should:'; S =:= 'assert_:' ->
    <<"assert: cond fails unless cond is true (for a block: self assert: [...] value); "
      "should: [...] raise: #kind expects an error">>;
for(S) when S =:= 'assertEquals:to:'; S =:= 'assertEqual:to:'; S =:= 'assert:equal:';
            S =:= 'assertEquals:'; S =:= 'assert:identicalTo:'; S =:= 'assert:is:' ->
    <<"write self assert: actual equals: expected (strict =:=)">>;
for(S) when S =:= 'assertNil:'; S =:= 'assertIsNil:' ->
    <<"write self assert: x isNil (or self assert: x equals: nil)">>;
for(S) when S =:= 'assertNotNil:'; S =:= 'denyNil:' ->
    <<"write self assert: x notNil">>;
for(S) when S =:= 'assertEmpty:'; S =:= 'denyEmpty:'; S =:= 'assertNotEmpty:' ->
    <<"write self assert: c isEmpty (or self deny: c isEmpty)">>;
for(S) when S =:= 'assert:includes:'; S =:= 'assert:contains:'; S =:= 'deny:includes:' ->
    <<"write self assert: (c includes: x) (deny: for the opposite)">>;
for(S) when S =:= 'assert:closeTo:'; S =:= 'assert:closeTo:precision:';
            S =:= 'assertFloat:equals:'; S =:= 'assertAlmostEqual:to:' ->
    <<"write self assert: (actual - expected) abs < 0.0001 (assert:equals: is strict, 1 and "
      "1.0 differ)">>;
for(S) when S =:= 'assertCollection:equals:'; S =:= 'assertCollection:hasSameElements:' ->
    <<"write self assert: actual equals: expected (Lists compare element by element; for any "
      "order compare asSet, or sort both)">>;
for(S) when S =:= 'should:raise:description:'; S =:= 'should:raise:withExceptionDo:';
            S =:= 'should:raise:whoseDescriptionIncludes:description:' ->
    <<"write self should: [...] raise: #kind (a kind Symbol such as #user_error, or an "
      "exception class); to look at the exception, catch it: [...] on: Error do: [:e | "
      "self assert: e message equals: ...]">>;
for(S) when S =:= 'shouldnt:'; S =:= 'shouldnt:raise:description:' ->
    <<"write self shouldnt: [...] raise: #kind (a kind Symbol or an exception class)">>;
for(S) when S =:= 'assertRaises:'; S =:= 'assert:raises:'; S =:= 'assertRaise:'; S =:= 'raises:' ->
    <<"write self should: [...] raise: #kind (a kind Symbol such as #badarith, or an exception "
      "class such as Error)">>;
for(S) when S =:= 'skip'; S =:= 'skip:'; S =:= 'expectedFailures'; S =:= 'pending' ->
    <<"BUnit has no skipped tests: a method whose name does not start with test is not run "
      "(rename testFoo to pendingFoo)">>;
for(S) when S =:= 'signalFailure:'; S =:= 'flunk:'; S =:= 'fail' ->
    <<"write self fail: \"message\"">>;
for(S) when S =:= 'run'; S =:= 'suite'; S =:= 'buildSuite'; S =:= 'debug' ->
    <<"run a test class with FooTest runAll (a report String), TestRunner run: FooTest "
      "(a TestResult), :test FooTest at the REPL, or beamtalk test FILE">>;
for(_) ->
    nil.
