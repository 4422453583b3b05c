%% Dispatch: class_of (spec §2 order), sends to every kind of receiver,
%% does-not-understand and its override, super sends, perform:, respondsTo:.
-module(beamtalk_send_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ex_kind/1, ex_class/1, ex_hint/1]).

send_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun class_of_every_kind/0,
      fun sends_to_primitives/0,
      fun dnu_error/0,
      fun dnu_override_value_style/0,
      fun dnu_override_actor_style/0,
      fun super_sends_value_style/0,
      fun super_sends_actor_style/0,
      fun super_without_method/0,
      fun perform/0,
      fun responds_to/0,
      fun own_methods_win_over_inherited/0,
      fun object_methods_on_actors_run_value_style/0,
      fun cast_to_non_actor_is_ignored/0,
      fun class_side_self_sends/0,
      fun dictionary_and_tagged_maps/0]}.

class_of_every_kind() ->
    Cases = [{42, 'Integer'}, {-7, 'Integer'}, {3.5, 'Float'}, {1.0, 'Float'},
             {<<"hi">>, 'String'}, {true, 'True'}, {false, 'False'},
             {nil, 'UndefinedObject'}, {fun() -> 1 end, 'Block'}, {foo, 'Symbol'},
             {[1, 2], 'List'}, {[], 'List'}, {#{a => 1}, 'Dictionary'}, {#{}, 'Dictionary'},
             {{1, 2}, 'Tuple'}, {{}, 'Tuple'}, {self(), 'Pid'}, {make_ref(), 'Reference'},
             {hd(erlang:ports()), 'Port'}, {<<1:3>>, 'Object'},
             {beamtalk_rt:association(a, 1), 'Association'},
             {beamtalk_erlang:proxy(lists), 'ErlangModule'},
             {beamtalk_exception:fresh('Error'), 'Error'}],
    [?assertEqual({V, g(C)}, {V, beamtalk_send:class_of(V)}) || {V, C} <- Cases],
    %% $A is an Integer (characters are code points)
    ?assertEqual(g('Integer'), beamtalk_send:class_of($A)).

sends_to_primitives() ->
    ?assertEqual(6, s(3, factorial)),
    ?assertEqual(true, s(4, isEven)),
    ?assertEqual(5, s(2, 'max:', [5])),
    ?assertEqual(<<"HELLO">>, s(<<"hello">>, asUppercase)),
    ?assertEqual(<<"foo">>, s(foo, asString)),
    ?assertEqual(3, s([1, 2, 3], size)),
    ?assertEqual(1, s(#{a => 1}, 'at:', [a])),
    ?assertEqual(true, s(nil, isNil)),
    ?assertEqual(false, s(0, isNil)),
    ?assertEqual(2, s({ok, 2}, unwrap)),
    ?assertEqual(7, s(fun(X) -> X + 1 end, 'value:', [6])),
    ?assertEqual(false, s(true, 'not')).

dnu_error() ->
    F = fun() -> s(42, foo) end,
    ?assertEqual('RuntimeError', ex_class(F)),
    ?assertEqual(does_not_understand, ex_kind(F)),
    ?assertEqual(<<"Integer does not understand 'foo'">>, ex_message(F)),
    ?assertEqual(<<"Check spelling or use 'respondsTo:' to verify method exists">>, ex_hint(F)),
    ?assertEqual(foo, maps:get(selector, maps:get(error, bt_test:ex(F)))),
    ?assertEqual('Integer', maps:get(class, maps:get(error, bt_test:ex(F)))),
    ?assertEqual(<<"UndefinedObject does not understand 'bar:'">>,
                 ex_message(fun() -> s(nil, 'bar:', [1]) end)),
    ?assertEqual(<<"Integer class does not understand 'foo'">>,
                 ex_message(fun() -> s(g('Integer'), foo) end)),
    %% the error text in the REPL's format
    ?assertEqual(<<"ERROR: #RuntimeError\n  Message: Integer does not understand 'foo'\n"
                   "  Hint: Check spelling or use 'respondsTo:' to verify method exists">>,
                 beamtalk_errors:format(bt_test:ex(F))).

dnu_override_value_style() ->
    beamtalk_class:define(#{name => 'Ghost', superclass => 'Object',
                            methods => #{'doesNotUnderstand:args:' =>
                                             {v, fun(_Self, Sel, Args) -> {caught, Sel, Args} end}}}),
    G = s(g('Ghost'), new),
    ?assertEqual({caught, foo, []}, s(G, foo)),
    ?assertEqual({caught, 'at:put:', [1, 2]}, s(G, 'at:put:', [1, 2])),
    %% inherited by subclasses
    beamtalk_class:define(#{name => 'Poltergeist', superclass => 'Ghost'}),
    ?assertEqual({caught, boo, []}, s(s(g('Poltergeist'), new), boo)),
    %% class side
    beamtalk_class:define(#{name => 'Proxyish', superclass => 'Object',
                            class_methods => #{'doesNotUnderstand:args:' =>
                                                   fun(_Cls, Sel, Args) -> {class_side, Sel, Args} end}}),
    ?assertEqual({class_side, zap, [1]}, s(g('Proxyish'), zap, [1])).

dnu_override_actor_style() ->
    beamtalk_class:define(#{name => 'Recorder', superclass => 'Actor',
                            fields => [{log, fun() -> [] end}],
                            methods => #{'doesNotUnderstand:args:' =>
                                             {a, fun(_Self, S, Sel, _Args) ->
                                                         L = [Sel | maps:get(log, S)],
                                                         {length(L), S#{log => L}}
                                                 end},
                                         log => {a, fun(_Self, S) -> {maps:get(log, S), S} end}}}),
    R = s(g('Recorder'), spawn),
    ?assertEqual(1, s(R, foo)),
    ?assertEqual(2, s(R, bar)),
    ?assertEqual([bar, foo], s(R, log)),
    s(R, stop).

super_sends_value_style() ->
    beamtalk_class:define(#{name => 'Greeter', superclass => 'Object',
                            methods => #{greet => {v, fun(_) -> <<"Hello">> end}}}),
    beamtalk_class:define(#{name => 'LoudGreeter', superclass => 'Greeter',
                            methods => #{greet => {v, fun(Self) ->
                                                              B = beamtalk_send:super_send('LoudGreeter', Self, greet, []),
                                                              <<B/binary, "!">>
                                                      end}}}),
    %% super is static: a subclass inheriting LoudGreeter>>greet still gets Greeter's
    beamtalk_class:define(#{name => 'LouderGreeter', superclass => 'LoudGreeter'}),
    ?assertEqual(<<"Hello!">>, s(s(g('LoudGreeter'), new), greet)),
    ?assertEqual(<<"Hello!">>, s(s(g('LouderGreeter'), new), greet)),
    %% super printString reaches Object's
    beamtalk_class:define(#{name => 'Named', superclass => 'Object',
                            methods => #{printString => {v, fun(Self) ->
                                                                    B = beamtalk_send:super_send('Named', Self, printString, []),
                                                                    <<B/binary, " (named)">>
                                                            end}}}),
    ?assertEqual(<<"a Named (named)">>, bt_test:ps(s(g('Named'), new))).

super_sends_actor_style() ->
    beamtalk_class:define(bt_test:counter_desc('BaseCounter')),
    beamtalk_class:define(#{name => 'DoubleCounter', superclass => 'BaseCounter',
                            methods => #{increment => {a, fun(Self, S) ->
                                                                  {_, S1} = beamtalk_send:super_self_send('DoubleCounter', Self, S, increment, []),
                                                                  beamtalk_send:super_self_send('DoubleCounter', Self, S1, increment, [])
                                                          end}}}),
    C = s(g('DoubleCounter'), spawn),
    ?assertEqual(2, s(C, increment)),
    ?assertEqual(4, s(C, increment)),
    ?assertEqual(8, s(C, incrementTwice)),
    s(C, stop).

super_without_method() ->
    beamtalk_class:define(#{name => 'Lonely', superclass => 'Object',
                            methods => #{solo => {v, fun(Self) ->
                                                             beamtalk_send:super_send('Lonely', Self, solo, [])
                                                     end}}}),
    F = fun() -> s(s(g('Lonely'), new), solo) end,
    ?assertEqual(does_not_understand, ex_kind(F)),
    ?assertEqual(<<"Lonely does not understand 'solo'">>, ex_message(F)).

perform() ->
    ?assertEqual(45, s(42, 'perform:withArguments:', ['+', [3]])),
    ?assertEqual(6, s(3, 'perform:', [factorial])),
    ?assertEqual(5, s(2, 'perform:with:', ['max:', 5])),
    ?assertEqual(arity_mismatch, ex_kind(fun() -> s(42, 'perform:withArguments:', ['+', [1, 2]]) end)),
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(42, 'perform:', [nope]) end)),
    %% perform: on an actor runs inside it
    beamtalk_class:define(bt_test:counter_desc('PerfCounter')),
    C = s(g('PerfCounter'), spawn),
    ?assertEqual(1, s(C, 'perform:', [increment])),
    ?assertEqual(11, s(C, 'perform:withArguments:', ['add:', [10]])),
    ?assertEqual(true, s(C, 'perform:', [isAlive])),
    s(C, stop).

responds_to() ->
    ?assertEqual(true, beamtalk_send:responds_to(3, factorial)),
    ?assertEqual(true, beamtalk_send:responds_to(3, printString)),
    ?assertEqual(false, beamtalk_send:responds_to(3, frobnicate)),
    ?assertEqual(true, s(3, 'respondsTo:', ['+'])),
    ?assertEqual(true, beamtalk_send:responds_to(g('Integer'), new)),
    ?assertEqual(true, beamtalk_send:responds_to(g('Integer'), name)),
    ?assertEqual(false, beamtalk_send:responds_to(g('Integer'), factorial)),
    beamtalk_class:define(bt_test:counter_desc('RespCounter')),
    C = s(g('RespCounter'), spawn),
    ?assertEqual(true, beamtalk_send:responds_to(C, increment)),
    ?assertEqual(true, beamtalk_send:responds_to(C, isAlive)),
    ?assertEqual(false, beamtalk_send:responds_to(C, frobnicate)),
    ?assertEqual(true, s(C, 'respondsTo:', [increment])),
    s(C, stop).

own_methods_win_over_inherited() ->
    beamtalk_class:define(#{name => 'P1', superclass => 'Object',
                            methods => #{who => {v, fun(_) -> p1 end}, only1 => {v, fun(_) -> one end}}}),
    beamtalk_class:define(#{name => 'P2', superclass => 'P1',
                            methods => #{who => {v, fun(_) -> p2 end}}}),
    O = s(g('P2'), new),
    ?assertEqual(p2, s(O, who)),
    ?assertEqual(one, s(O, only1)),
    ?assertEqual(p1, s(s(g('P1'), new), who)).

object_methods_on_actors_run_value_style() ->
    beamtalk_class:define(bt_test:counter_desc('ObjCounter')),
    C = s(g('ObjCounter'), spawn),
    ?assertEqual(C, s(C, yourself)),
    ?assertEqual(false, s(C, isNil)),
    ?assertEqual(g('ObjCounter'), s(C, class)),
    ?assertEqual(<<"a ObjCounter">>, s(C, printString)),
    ?assertEqual(erlang:phash2(C), s(C, hash)),
    ?assertEqual(true, s(C, '==', [C])),
    s(C, stop).

cast_to_non_actor_is_ignored() ->
    ?assertEqual(ok, beamtalk_send:cast(42, foo, [])),
    ?assertEqual(ok, beamtalk_send:cast(g('Integer'), new, [])).

class_side_self_sends() ->
    beamtalk_class:define(#{name => 'Factory', superclass => 'Value',
                            fields => [{n, fun() -> 0 end}],
                            class_methods => #{withN => fun(Cls) -> s(s(Cls, new), 'withN:', [5]) end,
                                               default => fun(Cls) -> s(Cls, withN) end}}),
    ?assertEqual(#{'$beamtalk_class' => 'Factory', n => 5}, s(g('Factory'), default)).

dictionary_and_tagged_maps() ->
    ?assertEqual(2, s(#{a => 1, b => 2}, size)),
    ?assertEqual(a, s(beamtalk_rt:association(a, 1), key)),
    %% a map whose class is not registered
    ?assertEqual(class_not_found, ex_kind(fun() -> s(#{'$beamtalk_class' => 'Unknown'}, foo) end)).
