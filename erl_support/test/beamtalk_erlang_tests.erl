%% Erlang interop (seed ADR 0028): the Erlang class, ErlangModule proxies,
%% export checks and the error mapping with the seed's texts.
-module(beamtalk_erlang_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex/1, ex_message/1, ex_kind/1, ex_class/1, ex_hint/1, ps/1]).

erlang_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun proxies/0,
      fun keyword_sends_call_functions/0,
      fun proxy_protocol/0,
      fun missing_function/0,
      fun wrong_arity/0,
      fun missing_module/0,
      fun error_mapping/0,
      fun beamtalk_errors_pass_through/0,
      fun erlang_class_itself/0]}.

proxies() ->
    P = s(g('Erlang'), lists),
    ?assertEqual(#{'$beamtalk_class' => 'ErlangModule', module => lists}, P),
    ?assertEqual(<<"#ErlangModule<lists>">>, ps(P)),
    ?assertEqual(g('ErlangModule'), s(P, class)),
    ?assertEqual(true, s(P, '==', [s(g('Erlang'), lists)])).

keyword_sends_call_functions() ->
    ?assertEqual([3, 2, 1], s(s(g('Erlang'), lists), 'reverse:', [[1, 2, 3]])),
    ?assertEqual(lists:seq(1, 10), s(s(g('Erlang'), lists), 'seq:with:', [1, 10])),
    ?assertEqual(#{a => 1, b => 2}, s(s(g('Erlang'), maps), 'merge:with:', [#{a => 1}, #{b => 2}])),
    ?assertEqual(node(), s(s(g('Erlang'), erlang), node)),
    ?assertEqual(<<"HELLO">>, s(s(g('Erlang'), string), 'uppercase:', [<<"hello">>])),
    ?assertEqual([1, 2], beamtalk_erlang:call(lists, sort, [[2, 1]])),
    %% values cross unchanged; blocks are funs
    ?assertEqual([2, 4], s(s(g('Erlang'), lists), 'map:with:', [fun(X) -> X * 2 end, [1, 2]])).

proxy_protocol() ->
    P = s(g('Erlang'), lists),
    Ms = s(P, methods),
    ?assert(lists:member(<<"reverse/1">>, Ms)),
    ?assertEqual(lists:sort(Ms), Ms),
    ?assertEqual([b, a], s(P, 'call:args:', [reverse, {[a, b]}])),
    ?assertEqual(true, s(P, 'respondsTo:', ['reverse:'])),
    ?assertEqual(false, s(P, 'respondsTo:', ['frobnicate:'])).

missing_function() ->
    F = fun() -> s(s(g('Erlang'), lists), 'nonexistent:', [42]) end,
    E = ex(F),
    ?assertEqual('RuntimeError', maps:get('$beamtalk_class', E)),
    ?assertEqual(does_not_understand, ex_kind(F)),
    ?assertEqual(<<"ERROR: #RuntimeError\n  Module: lists\n  Function: nonexistent/1\n"
                   "  Hint: This Erlang function does not exist. Check spelling and arity.">>,
                 beamtalk_errors:format(E)).

wrong_arity() ->
    F = fun() -> s(s(g('Erlang'), lists), 'last:extra:', [[1], 2]) end,
    ?assertEqual(<<"ERROR: #RuntimeError\n  Module: lists\n  Function: last/2\n"
                   "  Hint: lists:last/1 exists but was called with 2 arguments.">>,
                 beamtalk_errors:format(ex(F))),
    ?assertMatch(<<"lists:seq/2, lists:seq/3 exist", _/binary>>,
                 ex_hint(fun() -> s(s(g('Erlang'), lists), 'seq:', [1]) end)).

missing_module() ->
    F = fun() -> s(s(g('Erlang'), bogus_module), 'reverse:', [[1, 2, 3]]) end,
    ?assertEqual(<<"ERROR: #RuntimeError\n  Module: bogus_module\n  Function: reverse/1\n"
                   "  Hint: Erlang module 'bogus_module' is not loaded. Is it on the code path?">>,
                 beamtalk_errors:format(ex(F))).

error_mapping() ->
    Clause = fun() -> s(s(g('Erlang'), lists), 'nth:from:', [0, [1, 2]]) end,
    ?assertEqual(<<"ERROR: #RuntimeError\n  Module: lists\n  Function: nth/2\n  Reason: function_clause\n"
                   "  Hint: Erlang function raised 'function_clause'. Check argument types and values.">>,
                 beamtalk_errors:format(ex(Clause))),
    ?assertEqual(arity_mismatch, ex_kind(Clause)),
    Badarg = fun() -> beamtalk_erlang:call(erlang, atom_to_list, [42]) end,
    ?assertEqual('TypeError', ex_class(Badarg)),
    ?assertEqual(type_error, ex_kind(Badarg)),
    ?assertEqual(<<"Erlang error in erlang:atom_to_list: badarg. Argument 1 (42): not an atom.">>, ex_hint(Badarg)),
    ?assertEqual('TypeError', ex_class(fun() -> beamtalk_erlang:call(erlang, '+', [a, 1]) end)),
    ?assertEqual('ExitError', ex_class(fun() -> beamtalk_erlang:call(erlang, exit, [bye]) end)),
    ?assertEqual('ThrowError', ex_class(fun() -> beamtalk_erlang:call(erlang, throw, [ball]) end)),
    ?assertEqual(runtime_error, ex_kind(fun() -> beamtalk_erlang:call(erlang, error, [{badmatch, 1}]) end)),
    %% the original reason is kept in the details
    ?assertEqual(badarg, maps:get(reason, maps:get(details, maps:get(error, ex(Badarg))))),
    %% caught by on:do: like any other error
    ?assertEqual(caught, beamtalk_exception:on_do(Badarg, g('TypeError'), fun(_) -> caught end)).

beamtalk_errors_pass_through() ->
    %% a Beamtalk block called back from Erlang raises a Beamtalk exception
    F = fun() -> beamtalk_erlang:call(lists, map, [fun(X) -> s(X, frobnicate) end, [1]]) end,
    ?assertEqual(<<"Integer does not understand 'frobnicate'">>, ex_message(F)),
    Token = make_ref(),
    ?assertEqual(early, try beamtalk_erlang:call(lists, foreach, [fun(_) -> throw({'$bt_nlr', Token, early}) end, [1]])
                        catch throw:{'$bt_nlr', Token, V} -> V end).

erlang_class_itself() ->
    ?assertEqual(<<"Erlang">>, ps(g('Erlang'))),
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(g('Erlang'), 'foo:', [1]) end)),
    ?assertEqual(instantiation_error, ex_kind(fun() -> s(g('Erlang'), new) end)).
