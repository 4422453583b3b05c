%% Primitive method tables of the stdlib classes (stdlib §1-§5), reached
%% through ordinary sends - what non-inlined sends and perform: see.
-module(beamtalk_prim_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ex_kind/1, ex_class/1, ps/1]).

prim_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun every_primitive_table_is_well_formed/0,
      fun object_protocol/0,
      fun booleans/0,
      fun undefined_object/0,
      fun numbers/0,
      fun strings/0,
      fun symbols/0,
      fun lists/0,
      fun dictionaries/0,
      fun tuples_sets_arrays/0]}.

every_primitive_table_is_well_formed() ->
    %% bootstrap checks arities; here: every stdlib class answers class,
    %% printString and respondsTo: through its table
    [begin
         T = beamtalk_class:instance_methods(N),
         ?assert(maps:is_key(class, T)),
         ?assert(maps:is_key('doesNotUnderstand:args:', T))
     end || N <- beamtalk_class:all_names()].

object_protocol() ->
    ?assertEqual(7, s(7, yourself)),
    ?assertEqual(erlang:phash2(7), s(7, hash)),
    ?assertEqual(true, s(7, '==', [7.0])),
    ?assertEqual(false, s(7, '=:=', [7.0])),
    ?assertEqual(true, s(7, '/=', [8])),
    ?assertEqual(<<"7">>, s(7, printString)),
    ?assertEqual(<<"7">>, s(7, displayString)),
    ?assertEqual(beamtalk_rt:association(a, 1), s(a, '->', [1])),
    ?assertEqual(5, s(7, 'ifNil:', [fun() -> 0 end]) - 2),
    ?assertEqual(8, s(7, 'ifNotNil:', [fun(X) -> X + 1 end])),
    ?assertEqual(1, s(7, 'ifNotNil:', [fun() -> 1 end])),
    ?assertEqual(8, s(7, 'ifNil:ifNotNil:', [fun() -> 0 end, fun(X) -> X + 1 end])),
    ?assertEqual(true, s(7, notNil)),
    ?assertEqual(true, s(<<"s">>, isString)),
    ?assertEqual(false, s(7, isString)),
    ?assertEqual(<<"7">>, s(7, inspect)).

booleans() ->
    ?assertEqual(yes, s(true, 'ifTrue:', [fun() -> yes end])),
    ?assertEqual(false, s(false, 'ifTrue:', [fun() -> yes end])),
    ?assertEqual(true, s(true, 'ifFalse:', [fun() -> yes end])),
    ?assertEqual(no, s(false, 'ifTrue:ifFalse:', [fun() -> yes end, fun() -> no end])),
    ?assertEqual(false, s(true, 'and:', [fun() -> false end])),
    ?assertEqual(false, s(false, 'and:', [fun() -> erlang:error(not_evaluated) end])),
    ?assertEqual(true, s(true, 'or:', [fun() -> erlang:error(not_evaluated) end])),
    ?assertEqual(true, s(true, 'xor:', [false])),
    ?assertEqual(false, s(true, 'not')),
    ?assertEqual(g('True'), s(true, class)),
    ?assertEqual(g('Boolean'), s(s(true, class), superclass)),
    ?assertEqual(type_error, ex_kind(fun() -> s(true, 'xor:', [1]) end)).

undefined_object() ->
    ?assertEqual(true, s(nil, isNil)),
    ?assertEqual(false, s(nil, notNil)),
    ?assertEqual(3, s(nil, 'ifNil:', [fun() -> 3 end])),
    ?assertEqual(nil, s(nil, 'ifNotNil:', [fun(_) -> 3 end])),
    ?assertEqual(3, s(nil, 'ifNil:ifNotNil:', [fun() -> 3 end, fun(_) -> 4 end])),
    ?assertEqual(<<"nil">>, s(nil, printString)).

numbers() ->
    ?assertEqual(45, s(42, 'perform:withArguments:', ['+', [3]])),
    ?assertEqual(5.0, s(10, '/', [2])),
    ?assertEqual(-3, s(-7, 'div:', [2])),
    ?assertEqual(-1, s(-7, '%', [2])),
    ?assertEqual(1024, s(2, '**', [10])),
    ?assertEqual(1, s(0, '**', [0])),
    ?assertEqual(5.0, s(5, asFloat)),
    ?assertEqual(<<"42">>, s(42, asString)),
    ?assertEqual(-5, s(5, negated)),
    ?assertEqual(5, s(-5, abs)),
    ?assertEqual(true, s(4, isEven)),
    ?assertEqual(true, s(3, isOdd)),
    ?assertEqual(3, s(3, 'min:', [9])),
    ?assertEqual(true, s(3, 'between:and:', [1, 3])),
    ?assertEqual(120, s(5, factorial)),
    ?assertEqual(93326215443944152681699238856266700490715968264381621468592963895217599993229915608941463976156518286253697920827223758251185210916864000000000000000000000000,
                 s(100, factorial)),
    ?assertEqual(6, s(12, 'gcd:', [18])),
    ?assertEqual(user_error, ex_kind(fun() -> s(-1, factorial) end)),
    ?assertEqual(3, s(3.7, truncated)),
    ?assertEqual(4, s(3.5, rounded)),
    ?assertEqual(4, s(3.2, ceiling)),
    ?assertEqual(3, s(3.9, floor)),
    ?assertEqual(1024, s(2, 'raisedTo:', [10])),
    ?assertEqual(1, s(5, sign)),
    ?assertEqual(badarith, try s(1, '/', [0]) catch error:R -> R end).

strings() ->
    ?assertEqual(10, s(<<"Hello 世界 🌍"/utf8>>, size)),
    ?assertEqual(<<"🌍"/utf8>>, s(<<"Hello 世界 🌍"/utf8>>, 'at:', [10])),
    ?assertEqual(<<"ab">>, s(<<"a">>, '++', [<<"b">>])),
    ?assertEqual(hello, s(<<"hello">>, asSymbol)),
    ?assertEqual(true, s(<<>>, isEmpty)),
    ?assertEqual(<<"cba">>, s(<<"abc">>, reversed)),
    ?assertEqual(<<"ÉCOLE"/utf8>>, s(<<"école"/utf8>>, asUppercase)),
    ?assertEqual(<<"abc">>, s(<<"ABC">>, asLowercase)),
    ?assertEqual(true, s(<<"hello world">>, 'includesSubstring:', [<<"lo w">>])),
    ?assertEqual(false, s(<<"hello">>, 'includesSubstring:', [<<"xyz">>])),
    ?assertEqual([<<"a">>, <<"b">>], s(<<"ab">>, asList)),
    ?assertEqual([<<"a">>, <<"b">>, <<"c">>], s(<<"a,b,c">>, 'split:', [<<",">>])),
    ?assertEqual(<<"hi">>, s(<<"  hi  ">>, trim)),
    ?assertEqual(42, s(<<"42">>, asInteger)),
    ?assertEqual(index_out_of_bounds, ex_kind(fun() -> s(<<"ab">>, 'at:', [3]) end)),
    ?assertEqual(type_error, ex_kind(fun() -> s(<<"ab">>, 'at:', [<<"x">>]) end)),
    ?assertEqual(g('String'), s(<<"x">>, class)).

symbols() ->
    ?assertEqual(<<"foo">>, s(foo, asString)),
    ?assertEqual(foo, s(foo, asSymbol)),
    ?assertEqual(<<"#foo">>, s(foo, printString)),
    ?assertEqual(<<"foo">>, s(foo, displayString)),
    ?assertEqual(g('Symbol'), s(foo, class)),
    ?assertEqual(g('True'), s(true, class)),
    ?assertEqual(2, s('at:put:', numArgs)).

lists() ->
    L = [3, 1, 2],
    ?assertEqual(3, s(L, size)),
    ?assertEqual(nil, s(L, 'do:', [fun(_) -> ok end])),
    ?assertEqual([6, 2, 4], s(L, 'collect:', [fun(X) -> X * 2 end])),
    ?assertEqual([3, 2], s(L, 'select:', [fun(X) -> X > 1 end])),
    ?assertEqual([1], s(L, 'reject:', [fun(X) -> X > 1 end])),
    ?assertEqual(6, s(L, 'inject:into:', [0, fun(A, X) -> A + X end])),
    ?assertEqual(1, s(L, 'detect:', [fun(X) -> X < 2 end])),
    ?assertEqual(nil, s(L, 'detect:', [fun(X) -> X > 5 end])),
    ?assertEqual(none, s(L, 'detect:ifNone:', [fun(X) -> X > 5 end, fun() -> none end])),
    ?assertEqual(3, s(L, first)),
    ?assertEqual(2, s(L, last)),
    ?assertEqual(1, s(L, 'at:', [2])),
    ?assertEqual([3, 1, 2, 4], s(L, 'add:', [4])),
    ?assertEqual([3, 1, 2], L),
    ?assertEqual(false, s(L, isEmpty)),
    ?assertEqual(true, s(L, 'includes:', [2])),
    ?assertEqual([2, 1, 3], s(L, reversed)),
    ?assertEqual([1, 2, 3], s(L, sort)),
    ?assertEqual([3, 2, 1], s(L, 'sort:', [fun(A, B) -> A >= B end])),
    ?assertEqual([3, 1], s(L, 'take:', [2])),
    ?assertEqual(index_out_of_bounds, ex_kind(fun() -> s(L, 'at:', [4]) end)),
    ?assertEqual(type_error, ex_kind(fun() -> s(L, 'at:', [<<"x">>]) end)),
    ?assertEqual(<<"Type error in 'at:' on List">>, ex_message(fun() -> s(L, 'at:', [<<"x">>]) end)),
    ?assertEqual(index_out_of_bounds, ex_kind(fun() -> s([], first) end)),
    ?assertEqual(<<"a, b">>, s([<<"a">>, b], 'join:', [<<", ">>])).

dictionaries() ->
    D = #{a => 1, b => 2},
    ?assertEqual(1, s(D, 'at:', [a])),
    ?assertEqual(#{a => 1, b => 2, c => 3}, s(D, 'at:put:', [c, 3])),
    ?assertEqual(#{a => 1, b => 2}, D),
    ?assertEqual(0, s(D, 'at:ifAbsent:', [z, fun() -> 0 end])),
    ?assertEqual([a, b], s(D, keys)),
    ?assertEqual([1, 2], s(D, values)),
    ?assertEqual(2, s(D, size)),
    ?assertEqual(true, s(D, 'includesKey:', [a])),
    ?assertEqual(false, s(D, 'includesKey:', [z])),
    put(kv, []),
    ?assertEqual(nil, s(D, 'keysAndValuesDo:', [fun(K, V) -> put(kv, get(kv) ++ [{K, V}]) end])),
    ?assertEqual([{a, 1}, {b, 2}], get(kv)),
    ?assertEqual(#{a => 2, b => 4}, s(D, 'collect:', [fun(V) -> V * 2 end])),
    ?assertEqual(#{b => 2}, s(D, 'removeKey:', [a])),
    ?assertEqual(runtime_error, ex_kind(fun() -> s(D, 'at:', [z]) end)),
    ?assertEqual(<<"Key not found: #z">>, ex_message(fun() -> s(D, 'at:', [z]) end)).

tuples_sets_arrays() ->
    ?assertEqual(true, s({ok, 1}, isOk)),
    ?assertEqual(true, s({error, x}, isError)),
    ?assertEqual(1, s({ok, 1}, unwrap)),
    ?assertEqual(0, s({error, x}, 'unwrapOr:', [0])),
    ?assertEqual(runtime_error, ex_kind(fun() -> s({error, x}, unwrap) end)),
    ?assertEqual(2, s({a, b}, size)),
    ?assertEqual(b, s({a, b}, 'at:', [2])),
    S = s(s(s(g('Set'), new), 'add:', [1]), 'add:', [1]),
    ?assertEqual(1, s(S, size)),
    ?assertEqual(true, s(S, 'includes:', [1])),
    ?assertEqual([1, 2], s(s(g('Set'), 'withAll:', [[2, 1, 2]]), asList)),
    %% add: keeps the elements as withAll: would order them (an insert, not
    %% a sort per add); of equal terms (1 and 1.0) the one added last is kept
    Adds = [5, 3.0, a, 1, 3, "x", <<"y">>, {1}, 1.0, -2, 5, 4],
    ByAdds = lists:foldl(fun(X, Acc) -> s(Acc, 'add:', [X]) end, s(g('Set'), new), Adds),
    ?assertEqual(lists:foldl(fun(X, E) -> lists:usort([X | E]) end, [], Adds), s(ByAdds, asList)),
    ?assertEqual([-2, 1.0, 3, 4, 5, a, {1}, "x", <<"y">>], s(ByAdds, asList)),
    A = beamtalk_rt:array_from_list([1, 2, 3]),
    ?assertEqual(<<"#[1, 99, 3]">>, ps(s(A, 'at:put:', [2, 99]))),
    ?assertEqual(<<"#[1, 2, 3]">>, ps(A)),
    ?assertEqual(3, s(A, size)),
    ?assertEqual(2, s(A, 'at:', [2])).
