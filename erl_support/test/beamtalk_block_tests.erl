%% Blocks: arity-checked evaluation and the non-inlined block messages
%% (spec semantics §4.5, stdlib §5).
-module(beamtalk_block_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ex_kind/1, ex_class/1, ps/1]).

block_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun value_with_matching_arity/0,
      fun arity_mismatch/0,
      fun value_messages/0,
      fun non_block_receivers_get_value_messages/0,
      fun loops/0,
      fun repeat_until_nonlocal_return/0,
      fun number_loops/0,
      fun printing/0]}.

value_with_matching_arity() ->
    ?assertEqual(1, beamtalk_block:value(fun() -> 1 end, [])),
    ?assertEqual(3, beamtalk_block:value(fun(A, B) -> A + B end, [1, 2])),
    ?assertEqual(15, beamtalk_block:value(fun(A, B, C, D, E) -> A + B + C + D + E end, [1, 2, 3, 4, 5])).

arity_mismatch() ->
    F = fun() -> beamtalk_block:value(fun(A, B) -> A + B end, [1]) end,
    ?assertEqual(arity_mismatch, ex_kind(F)),
    ?assertEqual('RuntimeError', ex_class(F)),
    ?assertEqual(<<"Wrong number of arguments: block expects 2 but was called with 1">>, ex_message(F)),
    ?assertEqual('Block', maps:get(class, maps:get(error, bt_test:ex(F)))),
    ?assertEqual(<<"Wrong number of arguments: block expects 0 but was called with 5">>,
                 ex_message(fun() -> beamtalk_block:value(fun() -> 1 end, [1, 2, 3, 4, 5]) end)),
    ?assertEqual(<<"Wrong number of arguments: block expects 1 but was called with 0">>,
                 ex_message(fun() -> s(fun(X) -> X end, value) end)).

value_messages() ->
    ?assertEqual(1, s(fun() -> 1 end, value)),
    ?assertEqual(2, s(fun(A) -> A end, 'value:', [2])),
    ?assertEqual(3, s(fun(A, B) -> A + B end, 'value:value:', [1, 2])),
    ?assertEqual(6, s(fun(A, B, C) -> A + B + C end, 'value:value:value:', [1, 2, 3])),
    ?assertEqual(10, s(fun(A, B, C, D) -> A + B + C + D end, 'value:value:value:value:', [1, 2, 3, 4])),
    ?assertEqual(3, s(fun(A, B) -> A + B end, 'valueWithArguments:', [[1, 2]])),
    ?assertEqual(2, s(fun(_, _) -> x end, numArgs)),
    ?assertEqual(0, s(fun() -> x end, arity)),
    ?assertEqual(arity_mismatch, ex_kind(fun() -> s(fun(A) -> A end, 'valueWithArguments:', [[1, 2]]) end)).

non_block_receivers_get_value_messages() ->
    %% a Symbol answers value: by sending itself (list collect: #size)
    ?assertEqual(3, beamtalk_block:value(size, [<<"abc">>])),
    ?assertEqual([1, 2], s([<<"a">>, <<"bb">>], 'collect:', [size])),
    %% Object>>value answers the receiver
    ?assertEqual(5, beamtalk_block:value(5, [])),
    ?assertEqual(does_not_understand, ex_kind(fun() -> beamtalk_block:value(5, [1]) end)).

loops() ->
    put(n, 0),
    ?assertEqual(nil, s(fun() -> get(n) < 5 end, 'whileTrue:', [fun() -> put(n, get(n) + 1) end])),
    ?assertEqual(5, get(n)),
    ?assertEqual(nil, s(fun() -> get(n) =:= 0 end, 'whileFalse:', [fun() -> put(n, get(n) - 1) end])),
    ?assertEqual(0, get(n)),
    put(n, 0),
    ?assertEqual(nil, s(fun() -> put(n, get(n) + 1), get(n) < 3 end, whileTrue)),
    ?assertEqual(3, get(n)),
    ?assertEqual(nil, s(fun() -> put(n, get(n) - 1), get(n) =:= 0 end, whileFalse)),
    ?assertEqual(0, get(n)).

repeat_until_nonlocal_return() ->
    Token = make_ref(),
    put(r, 0),
    R = try s(fun() ->
                      put(r, get(r) + 1),
                      case get(r) of 4 -> throw({'$bt_nlr', Token, get(r)}); _ -> ok end
              end, repeat)
        catch throw:{'$bt_nlr', Token, V} -> V end,
    ?assertEqual(4, R),
    %% or an exception
    put(r, 0),
    ?assertEqual(stopped, beamtalk_exception:on_do(
                            fun() -> s(fun() -> put(r, get(r) + 1),
                                                case get(r) > 2 of true -> 1 / zero(); false -> ok end
                                       end, repeat)
                            end, g('Error'), fun(_) -> stopped end)).

zero() -> 0.

number_loops() ->
    put(acc, []),
    ?assertEqual(nil, s(1, 'to:do:', [3, fun(I) -> put(acc, [I | get(acc)]) end])),
    ?assertEqual([3, 2, 1], get(acc)),
    put(acc, []),
    ?assertEqual(nil, s(10, 'to:by:do:', [1, -3, fun(I) -> put(acc, [I | get(acc)]) end])),
    ?assertEqual([1, 4, 7, 10], get(acc)),
    put(acc, 0),
    ?assertEqual(nil, s(4, 'timesRepeat:', [fun() -> put(acc, get(acc) + 1) end])),
    ?assertEqual(4, get(acc)),
    ?assertEqual(nil, s(1, 'to:do:', [0, fun(_) -> erlang:error(never) end])).

printing() ->
    ?assertEqual(<<"a Block">>, ps(fun() -> 1 end)),
    ?assertEqual(<<"a Block">>, s(fun(_) -> 1 end, printString)),
    ?assertEqual(g('Block'), s(fun() -> 1 end, class)).
