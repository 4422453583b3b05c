%% ClassBuilder (seed ADR 0038): dynamic classes built from closures.
-module(beamtalk_class_builder_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ex_kind/1, ps/1]).

builder_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun class_builder_is_an_actor/0,
      fun builds_a_class/0,
      fun builds_an_actor_class/0,
      fun fields_and_methods_dictionaries/0,
      fun class_methods_and_variables/0,
      fun modifiers/0,
      fun register_stops_the_builder/0,
      fun redefinition_through_a_builder/0,
      fun the_compiler_conversation/0,
      fun root_classes/0,
      fun errors/0]}.

class_builder_is_an_actor() ->
    B = s(g('Object'), classBuilder),
    ?assertMatch({beamtalk_object, 'ClassBuilder', _, _}, B),
    ?assertEqual(g('ClassBuilder'), s(B, class)),
    ?assertEqual(true, s(g('Class'), 'respondsTo:', [classBuilder])),
    ?assert(lists:member(register, s(g('ClassBuilder'), methods))),
    s(B, stop).

builds_a_class() ->
    B = s(g('Object'), classBuilder),
    s(B, 'name:', ['Dog']),
    s(B, 'addField:default:', [name, <<"Rex">>]),
    s(B, 'addMethod:body:', [speak, fun(Self) -> <<(maps:get(name, Self))/binary, " says Woof!">> end]),
    s(B, 'addMethod:body:', ['greet:', fun(_Self, Other) -> <<"Hi ", Other/binary>> end]),
    s(B, 'addMethod:body:', [answer, fun() -> 42 end]),      % a block without the receiver
    Dog = s(B, register),
    ?assertEqual(Dog, g('Dog')),
    ?assertEqual(<<"Dog">>, ps(Dog)),
    D = s(Dog, new),
    ?assertEqual(<<"Rex says Woof!">>, s(D, speak)),
    ?assertEqual(<<"Hi Ann">>, s(D, 'greet:', [<<"Ann">>])),
    ?assertEqual(42, s(D, answer)),
    ?assertEqual(g('Object'), s(Dog, superclass)),
    ?assertEqual(true, s(Dog, 'canUnderstand:', [speak])),
    ?assertEqual([name], s(Dog, fieldNames)).

builds_an_actor_class() ->
    B = s(g('Actor'), classBuilder),
    s(B, 'name:', ['Pinger']),
    s(B, 'addMethod:body:', [ping, fun(_Self) -> pong end]),
    P = s(s(B, register), spawn),
    ?assertEqual(pong, s(P, ping)),
    s(P, stop).

fields_and_methods_dictionaries() ->
    B = s(g('Value'), classBuilder),
    s(B, 'name:', ['Pair']),
    s(B, 'fields:', [#{left => 1, right => 2}]),
    s(B, 'methods:', [#{sum => fun(Self) -> maps:get(left, Self) + maps:get(right, Self) end}]),
    Pair = s(B, register),
    ?assertEqual(3, s(s(Pair, new), sum)),
    %% a Value subclass: synthesised accessors and constructor
    P = s(Pair, 'left:right:', [10, 20]),
    ?assertEqual(30, s(P, sum)),
    ?assertEqual(10, s(P, left)).

class_methods_and_variables() ->
    B = s(g('Object'), classBuilder),
    s(B, 'name:', ['Tally']),
    s(B, 'addClassVariable:default:', [count, 0]),
    s(B, 'addClassMethod:body:', [bump, fun(Cls) ->
                                                 beamtalk_class:set_class_var(Cls, count,
                                                                              beamtalk_class:class_var(Cls, count) + 1)
                                         end]),
    T = s(B, register),
    ?assertEqual(1, s(T, bump)),
    ?assertEqual(2, s(T, bump)).

modifiers() ->
    B = s(g('Object'), classBuilder),
    s(B, 'name:', ['AbstractThing']),
    s(B, 'modifier:', [abstract]),
    A = s(B, register),
    ?assertEqual(instantiation_error, ex_kind(fun() -> s(A, new) end)),
    B2 = s(g('Object'), classBuilder),
    s(B2, 'name:', ['SealedThing']),
    s(B2, 'modifier:', [sealed]),
    s(B2, register),
    ?assertMatch(<<"Cannot subclass sealed class", _/binary>>,
                 ex_message(fun() ->
                                    B3 = s(g('SealedThing'), classBuilder),
                                    s(B3, 'name:', ['Leaf']),
                                    s(B3, register)
                            end)).

register_stops_the_builder() ->
    B = s(g('Object'), classBuilder),
    s(B, 'name:', ['Ephemeral']),
    s(B, register),
    timer:sleep(20),
    ?assertEqual(false, s(B, isAlive)).

redefinition_through_a_builder() ->
    Build = fun(Sel, Val) ->
                    B = s(g('Object'), classBuilder),
                    s(B, 'name:', ['Versioned']),
                    s(B, 'addMethod:body:', [Sel, fun(_) -> Val end]),
                    s(B, register)
            end,
    V1 = Build(version, 1),
    O = s(V1, new),
    ?assertEqual(1, s(O, version)),
    V2 = Build(version, 2),
    ?assertEqual(V1, V2),
    ?assertEqual(2, s(O, version)).

%% What the code generator emits for a class definition (runtime_abi.py).
the_compiler_conversation() ->
    B = s(g('Actor'), classBuilder),
    s(B, 'name:', ['Gen']),
    s(B, 'fields:', [[{count, fun() -> 0 end}]]),
    s(B, 'methods:', [#{inc => {a, fun(_S, St) -> V = maps:get(count, St) + 1, {V, St#{count => V}} end},
                        describe => {v, fun(Self) -> {gen, element(1, Self)} end}}]),
    s(B, 'classMethods:', [#{make => fun(Cls) ->
                                              beamtalk_class:set_class_var(Cls, made, beamtalk_class:class_var(Cls, made) + 1),
                                              s(Cls, spawn)
                                      end,
                             made => fun(Cls) -> beamtalk_class:class_var(Cls, made) end}]),
    s(B, 'classVars:', [[{made, fun() -> 0 end}]]),
    s(B, 'modifiers:', [[]]),
    s(B, 'info:', [#{doc => <<"A generator.">>, source => <<"Actor subclass: Gen">>,
                     methods => #{{inc, false} => #{source => <<"inc => self.count := self.count + 1">>,
                                                    doc => nil, sealed => true},
                                  {make, true} => #{source => <<"class make => self spawn">>,
                                                    doc => <<"Make one.">>, sealed => false}}}]),
    C = s(B, register),
    A = s(C, make),
    ?assertEqual(1, s(A, inc)),
    ?assertEqual(2, s(A, inc)),
    ?assertEqual({gen, beamtalk_object}, s(A, describe)),
    ?assertEqual(1, s(C, made)),
    ?assertEqual(<<"A generator.">>, s(C, doc)),
    ?assertEqual(<<"inc => self.count := self.count + 1">>, s(s(C, '>>', [inc]), source)),
    ?assertEqual(<<"Make one.">>, s(s(s(C, class), '>>', [make]), doc)),
    ?assertMatch(<<"Cannot override sealed method `Gen>>inc`", _/binary>>,
                 ex_message(fun() ->
                                    B2 = s(C, classBuilder),
                                    s(B2, 'name:', ['SubGen']),
                                    s(B2, 'methods:', [#{inc => {a, fun(_S, St) -> {0, St} end}}]),
                                    s(B2, register)
                            end)),
    s(A, stop).

root_classes() ->
    B = s(nil, classBuilder),
    s(B, 'name:', ['Root']),
    s(B, 'methods:', [#{hello => {v, fun(_) -> hi end}}]),
    R = s(B, register),
    ?assertEqual(nil, s(R, superclass)),
    ?assertEqual(hi, s(s(R, new), hello)),
    ?assertEqual(g('Class'), s(s(R, class), superclass)).

errors() ->
    ?assertEqual(<<"ClassBuilder name: requires a Symbol argument">>,
                 ex_message(fun() -> s(s(g('Object'), classBuilder), 'name:', [nil]) end)),
    ?assertEqual(<<"ClassBuilder register requires superclass to be set">>,
                 ex_message(fun() ->
                                    B = s(g('ClassBuilder'), new),
                                    s(B, 'name:', ['Dog2']),
                                    s(B, register)
                            end)),
    ?assertMatch(<<"ClassBuilder register requires a name", _/binary>>,
                 ex_message(fun() -> s(s(g('Object'), classBuilder), register) end)),
    ?assertMatch(<<"ClassBuilder: the block for greet: takes 3 arguments", _/binary>>,
                 ex_message(fun() -> s(s(g('Object'), classBuilder), 'addMethod:body:',
                                       ['greet:', fun(_, _, _) -> x end]) end)),
    ?assertEqual(<<"Cannot redefine stdlib class 'Integer'">>,
                 ex_message(fun() ->
                                    B = s(g('Object'), classBuilder),
                                    s(B, 'name:', ['Integer']),
                                    s(B, register)
                            end)),
    ?assertEqual(<<"Metaclass is sealed and cannot be subclassed">>,
                 ex_message(fun() -> s(s(g('Integer'), class), classBuilder) end)).
