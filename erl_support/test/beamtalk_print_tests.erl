%% printString / displayString of every kind of value (DESIGN D9, spec
%% semantics §11.1), and user overrides honoured without loops or hangs.
-module(beamtalk_print_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ps/1]).

ds(V) -> beamtalk_print:display_string(V).

print_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun primitives/0,
      fun collections/0,
      fun tagged_values/0,
      fun objects_classes_and_metaclasses/0,
      fun exceptions/0,
      fun interop_values/0,
      fun display_strings/0,
      fun value_object_overrides/0,
      fun override_calling_super/0,
      fun bad_overrides_fall_back/0,
      fun recursive_override_is_cut_off/0,
      fun actor_overrides/0,
      fun nested_overrides_in_collections/0,
      fun print_messages_agree/0]}.

primitives() ->
    Cases = [{42, <<"42">>}, {-7, <<"-7">>}, {3.14, <<"3.14">>}, {5.0, <<"5.0">>},
             {-2.5, <<"-2.5">>}, {0.1 + 0.2, <<"0.30000000000000004">>}, {1.0e10, <<"1.0e10">>},
             {1.0e-5, <<"1.0e-5">>}, {123456789.0, <<"123456789.0">>},
             {<<"hi">>, <<"\"hi\"">>}, {<<"a\"b">>, <<"\"a\"\"b\"">>}, {<<>>, <<"\"\"">>},
             {<<"héllo 🌍"/utf8>>, <<"\"héllo 🌍\""/utf8>>},
             {foo, <<"#foo">>}, {'at:put:', <<"#at:put:">>}, {'+', <<"#+">>},
             {'hello world', <<"#'hello world'">>}, {nil, <<"nil">>}, {true, <<"true">>},
             {false, <<"false">>}, {$A, <<"65">>},
             {100 * 100 * 100 * 100 * 100 * 100 * 100 * 100 * 100 * 100 * 100, <<"10000000000000000000000">>}],
    [?assertEqual({V, Expect}, {V, ps(V)}) || {V, Expect} <- Cases].

collections() ->
    ?assertEqual(<<"#(1, 2, 3)">>, ps([1, 2, 3])),
    ?assertEqual(<<"#()">>, ps([])),
    ?assertEqual(<<"#(\"a\", #b, #(1))">>, ps([<<"a">>, b, [1]])),
    ?assertEqual(<<"#{#a => 1, #b => 2}">>, ps(#{b => 2, a => 1})),
    ?assertEqual(<<"#{}">>, ps(#{})),
    ?assertEqual(<<"#{\"k\" => #(1)}">>, ps(#{<<"k">> => [1]})),
    ?assertEqual(<<"{1, #ok}">>, ps({1, ok})),
    ?assertEqual(<<"{}">>, ps({})),
    ?assertEqual(<<"#[1, 2]">>, ps(beamtalk_rt:array_from_list([1, 2]))),
    ?assertEqual(<<"#[]">>, ps(beamtalk_rt:array_from_list([]))),
    ?assertEqual(<<"Set(1, 2)">>, ps(s(s(s(g('Set'), new), 'add:', [2]), 'add:', [1]))),
    ?assertEqual(<<"Set()">>, ps(s(g('Set'), new))).

tagged_values() ->
    ?assertEqual(<<"#a -> \"x\"">>, ps(beamtalk_rt:association(a, <<"x">>))),
    ?assertEqual(<<"a -> x">>, s(beamtalk_rt:association(a, <<"x">>), asString)),
    ?assertEqual(<<"a Block">>, ps(fun() -> ok end)),
    bt_test:define_point('Point'),
    ?assertEqual(<<"a Point">>, ps(s(g('Point'), new))),
    beamtalk_class:define(#{name => 'Apple', superclass => 'Object'}),
    ?assertEqual(<<"a Apple">>, ps(s(g('Apple'), new))).      % always "a", never "an"

objects_classes_and_metaclasses() ->
    beamtalk_class:define(bt_test:counter_desc('Counter')),
    C = s(g('Counter'), spawn),
    ?assertEqual(<<"a Counter">>, ps(C)),
    ?assertEqual(<<"Counter">>, ps(g('Counter'))),
    ?assertEqual(<<"Counter class">>, ps(s(g('Counter'), class))),
    ?assertEqual(<<"Metaclass">>, ps(s(s(g('Counter'), class), class))),
    ?assertEqual(<<"Integer class">>, ps(s(s(42, class), class))),
    ?assertEqual(<<"Metaclass class">>, ps(s(g('Metaclass'), class))),
    s(C, stop),
    ?assertEqual(<<"a Counter">>, ps(C)).                      % dead actors print too

exceptions() ->
    E = bt_test:ex(fun() -> s(42, foo) end),
    ?assertEqual(<<"Integer does not understand 'foo'">>, ps(E)),
    ?assertEqual(<<"badarith">>, ps(bt_test:ex(fun() -> 1 / zero() end))),
    %% no message: the hint, else the class name
    Interop = bt_test:ex(fun() -> beamtalk_erlang:call(lists, nonexistent, [1]) end),
    ?assertEqual(<<"This Erlang function does not exist. Check spelling and arity.">>, ps(Interop)),
    beamtalk_class:define(#{name => 'Oops', superclass => 'Error'}),
    ?assertEqual(<<"Oops">>, ps(s(g('Oops'), new))).

zero() -> 0.

interop_values() ->
    ?assertEqual(<<"#ErlangModule<lists>">>, ps(beamtalk_erlang:proxy(lists))),
    ?assertMatch(<<"#Pid<", _/binary>>, ps(self())),
    ?assertMatch(<<"#Ref<", _/binary>>, ps(make_ref())),
    ?assertMatch(<<"#Port<", _/binary>>, ps(hd(erlang:ports()))),
    ?assertEqual(<<"<<1:3>>">>, ps(<<1:3>>)).

display_strings() ->
    ?assertEqual(<<"hi">>, ds(<<"hi">>)),
    ?assertEqual(<<>>, ds(<<>>)),
    ?assertEqual(<<"foo">>, ds(foo)),
    ?assertEqual(<<"nil">>, ds(nil)),
    ?assertEqual(<<"42">>, ds(42)),
    ?assertEqual(<<"3.5">>, ds(3.5)),
    ?assertEqual(<<"#(\"a\")">>, ds([<<"a">>])),
    ?assertEqual(<<"#(\"a\")">>, s([<<"a">>], displayString)),
    ?assertEqual(<<"hi">>, s(<<"hi">>, displayString)),
    ?assertEqual(<<"foo">>, s(foo, displayString)),
    ?assertEqual(<<"#foo">>, s(foo, printString)).

value_object_overrides() ->
    beamtalk_class:define(#{name => 'Money', superclass => 'Value',
                            fields => [{cents, fun() -> 0 end}],
                            methods => #{printString => {v, fun(Self) ->
                                                                    iolist_to_binary(["$", integer_to_binary(maps:get(cents, Self) div 100)])
                                                            end}}}),
    M = s(g('Money'), 'cents:', [1250]),
    ?assertEqual(<<"$12">>, ps(M)),
    ?assertEqual(<<"$12">>, ds(M)),                             % displayString falls back to printString
    ?assertEqual(<<"#($12, $12)">>, ps([M, M])),
    beamtalk_class:define(#{name => 'Greeting', superclass => 'Value',
                            methods => #{displayString => {v, fun(_) -> <<"Hello!">> end}}}),
    G = s(g('Greeting'), new),
    ?assertEqual(<<"a Greeting">>, ps(G)),
    ?assertEqual(<<"Hello!">>, ds(G)),
    %% inherited overrides count
    beamtalk_class:define(#{name => 'Yen', superclass => 'Money'}),
    ?assertEqual(<<"$1">>, ps(s(g('Yen'), 'cents:', [100]))).

override_calling_super() ->
    beamtalk_class:define(#{name => 'Wrapped', superclass => 'Object',
                            methods => #{printString => {v, fun(Self) ->
                                                                    Base = beamtalk_send:super_send('Wrapped', Self, printString, []),
                                                                    <<"<", Base/binary, ">">>
                                                            end},
                                         displayString => {v, fun(Self) ->
                                                                      Base = beamtalk_send:super_send('Wrapped', Self, displayString, []),
                                                                      <<"[", Base/binary, "]">>
                                                              end}}}),
    W = s(g('Wrapped'), new),
    ?assertEqual(<<"<a Wrapped>">>, ps(W)),
    ?assertEqual(<<"[<a Wrapped>]">>, ds(W)).

bad_overrides_fall_back() ->
    beamtalk_class:define(#{name => 'Liar', superclass => 'Object',
                            methods => #{printString => {v, fun(_) -> 42 end}}}),
    ?assertEqual(<<"a Liar">>, ps(s(g('Liar'), new))),
    beamtalk_class:define(#{name => 'Crasher', superclass => 'Object',
                            methods => #{printString => {v, fun(_) -> 1 / zero() end}}}),
    ?assertEqual(<<"a Crasher">>, ps(s(g('Crasher'), new))),
    beamtalk_class:define(#{name => 'Lister', superclass => 'Object',
                            methods => #{printString => {v, fun(_) -> ["a", <<"b">>] end}}}),
    ?assertEqual(<<"ab">>, ps(s(g('Lister'), new))).

recursive_override_is_cut_off() ->
    beamtalk_class:define(#{name => 'Narcissus', superclass => 'Object',
                            methods => #{printString => {v, fun(Self) ->
                                                                    Inner = beamtalk_print:print_string(Self),
                                                                    <<"(", Inner/binary, ")">>
                                                            end}}}),
    Out = ps(s(g('Narcissus'), new)),
    ?assertMatch(<<"(((", _/binary>>, Out),
    ?assertNotEqual(nomatch, binary:match(Out, <<"a Narcissus">>)),
    ?assertEqual(undefined, get('$bt_print_depth')).

actor_overrides() ->
    beamtalk_class:define(#{name => 'Named', superclass => 'Actor',
                            fields => [{name, fun() -> <<"Ann">> end}],
                            methods => #{printString => {a, fun(_Self, S) -> {<<"Actor ", (maps:get(name, S))/binary>>, S} end},
                                         selfPrint => {a, fun(Self, S) -> {beamtalk_print:print_string(Self), S} end},
                                         'sleep:' => {a, fun(_Self, S, Ms) -> timer:sleep(Ms), {ok, S} end}}}),
    A = s(g('Named'), spawn),
    ?assertEqual(<<"Actor Ann">>, ps(A)),
    %% printing itself from inside would deadlock: the default is used
    ?assertEqual(<<"a Named">>, s(A, selfPrint)),
    %% a busy actor: the default after the print timeout, no hang forever
    Parent = self(),
    spawn(fun() -> Parent ! {slept, catch s(A, 'sleep:', [2600])} end),
    timer:sleep(50),
    T0 = erlang:monotonic_time(millisecond),
    ?assertEqual(<<"a Named">>, ps(A)),
    ?assert(erlang:monotonic_time(millisecond) - T0 < 2500),
    receive {slept, _} -> ok after 5000 -> ok end,
    s(A, stop),
    ?assertEqual(<<"a Named">>, ps(A)).

nested_overrides_in_collections() ->
    beamtalk_class:define(#{name => 'Tiny', superclass => 'Value',
                            methods => #{printString => {v, fun(_) -> <<"t">> end}}}),
    T = s(g('Tiny'), new),
    ?assertEqual(<<"#{#k => t}">>, ps(#{k => T})),
    ?assertEqual(<<"{t, t}">>, ps({T, T})),
    ?assertEqual(<<"#k -> t">>, ps(beamtalk_rt:association(k, T))).

print_messages_agree() ->
    %% x printString (a send) and the REPL rendering agree for stdlib values
    [?assertEqual({V, ps(V)}, {V, s(V, printString)})
     || V <- [42, 3.5, <<"s">>, sym, nil, true, [1, <<"a">>], #{a => 1}, {1, 2},
              g('Integer'), s(g('Integer'), class), beamtalk_erlang:proxy(maps),
              beamtalk_rt:association(1, 2)]].
