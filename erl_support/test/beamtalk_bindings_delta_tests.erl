%% What a session's processes hand each other (beamtalk_bindings_delta):
%% only the bindings that changed, so a big bound value is not copied by
%% every later input.  The work is counted as the size of the messages
%% (erts_debug:flat_size/1), never as time.
-module(beamtalk_bindings_delta_tests).
-include("bt_eunit.hrl").

diff_and_patch_test() ->
    Big = lists:seq(1, 1000),
    Old = #{xs => Big, n => 1, gone => 2},
    ?assertEqual(same, beamtalk_bindings_delta:diff(Old, Old)),
    ?assertEqual(same, beamtalk_bindings_delta:diff(Old, maps:put(n, 1, Old))),
    New = maps:remove(gone, Old#{n => 2, m => 3}),
    Delta = beamtalk_bindings_delta:diff(Old, New),
    ?assertEqual({delta, #{n => 2, m => 3}, [gone]}, Delta),
    ?assertEqual(New, beamtalk_bindings_delta:patch(Old, Delta)),
    ?assertEqual(Old, beamtalk_bindings_delta:patch(Old, same)),
    %% an equal value that is another term is no change either
    ?assertEqual(same, beamtalk_bindings_delta:diff(Old, Old#{xs => lists:seq(1, 1000)})).

server_test_() ->
    {setup, fun() -> bt_test:boot(), start_server() end, fun stop_server/1,
     [fun a_bound_value_crosses_once/0]}.

start_server() ->
    case whereis(beamtalk_workspace) of
        undefined -> {ok, Pid} = beamtalk_workspace:start(#{}), Pid;
        Pid -> Pid
    end.

stop_server(Pid) -> exit(Pid, kill).

a_bound_value_crosses_once() ->
    Server = whereis(beamtalk_workspace),
    erlang:trace(new_processes, true, ['receive', {tracer, self()}]),
    erlang:trace(Server, true, ['receive', {tracer, self()}]),
    {ok, _, _} = eval("eval(B) -> {ok, B#{xs => lists:seq(1, 100000)}}."),
    %% `_` is the last value (the REPL's), bound by every input
    {ok, <<"100000">>, ['_', xs]} = eval("eval(B) -> {length(maps:get(xs, B)), B}."),
    {ok, <<"100001">>, ['_', xs, y]} = eval("eval(B) -> {length(maps:get(xs, B)) + 1, B#{y => 1}}."),
    {ok, <<"1">>, ['_', xs, y]} = eval("eval(B) -> {maps:get(y, B), B}."),
    erlang:trace(new_processes, false, ['receive']),
    erlang:trace(Server, false, ['receive']),
    Traced = traced(),
    %% what the evaluator was handed: the whole (empty) map once, then
    %% nothing, the input's own change, nothing
    Updates = [U || {_, {'$bt_eval_job', _, {bindings, U, _}}} <- Traced],
    ?assertMatch([{full, #{}}, same, same, same], Updates),
    %% what came back: the list once, then small changes only (the last
    %% value `_` and the input's own binding)
    Results = [R || {P, {eval_done, _, _, R}} <- Traced, P =:= Server],
    ?assertMatch([{ok, _, {delta, #{xs := _}, []}}, {ok, _, {delta, #{'_' := 100000}, []}},
                  {ok, _, {delta, #{y := 1, '_' := 100001}, []}}, {ok, _, {delta, #{'_' := 1}, []}}], Results),
    [_ | Later] = [erts_debug:flat_size(R) || R <- Results],
    ?assert(lists:all(fun(Words) -> Words < 1000 end, Later)).

eval(Source) ->
    {ok, Tokens, _} = erl_scan:string(Source),
    {ok, Fun} = erl_parse:parse_form(Tokens),
    Forms = [{attribute, 1, module, '$bt_eval'}, {attribute, 1, export, [{eval, 1}]}, Fun],
    gen_server:call(beamtalk_workspace, {eval, <<"delta">>, #{forms => Forms}}, 30000).

traced() ->
    receive {trace, Pid, 'receive', Msg} -> [{Pid, Msg} | traced()]
    after 200 -> []
    end.
