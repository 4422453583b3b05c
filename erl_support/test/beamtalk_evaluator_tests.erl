%% The session evaluator (what it keeps, what its death notice says) and
%% the readable reasons of beamtalk_errors.
-module(beamtalk_evaluator_tests).
-include("bt_eunit.hrl").

evaluator_test_() ->
    {setup, fun bt_test:boot/0, fun(_) -> ok end,
     [fun jobs_run_in_one_process/0,
      fun summary_names_what_the_process_holds/0,
      fun death_texts/0,
      fun memory_limit_kills/0,
      fun exit_reasons_cross_unchanged/0,
      fun reasons_are_one_readable_line/0]}.

jobs_run_in_one_process() ->
    {Pid, Mon} = beamtalk_evaluator:start(group_leader(), 0),
    Ref1 = make_ref(),
    beamtalk_evaluator:run(Pid, Ref1, fun() -> put(mine, 1), self() end),
    ?assertEqual(Pid, receive {eval_done, Pid, Ref1, R1} -> R1 after 5000 -> timeout end),
    Ref2 = make_ref(),
    beamtalk_evaluator:run(Pid, Ref2, fun() -> {self(), get(mine)} end),
    ?assertEqual({Pid, 1}, receive {eval_done, Pid, Ref2, R2} -> R2 after 5000 -> timeout end),
    %% a job that raises answers an error result; the process stays
    Ref3 = make_ref(),
    beamtalk_evaluator:run(Pid, Ref3, fun() -> erlang:error(badarith) end),
    receive {eval_done, Pid, Ref3, {runtime_error, _, _}} -> ok after 5000 -> error(timeout) end,
    ?assert(is_process_alive(Pid)),
    exit(Pid, kill),
    receive {'DOWN', Mon, process, Pid, killed} -> ok after 5000 -> error(timeout) end.

summary_names_what_the_process_holds() ->
    {Pid, Mon} = beamtalk_evaluator:start(group_leader(), 0),
    Ref = make_ref(),
    beamtalk_evaluator:run(Pid, Ref, fun() ->
                                             ets:new(named_one, [named_table, public]),
                                             ets:new(anon, [public]),
                                             process_flag(trap_exit, true),
                                             put(k, v),
                                             spawn_link(fun() -> receive stop -> ok end end),
                                             ok
                                     end),
    receive {eval_done, Pid, Ref, ok} -> ok after 5000 -> error(timeout) end,
    Summary = beamtalk_evaluator:summary(Pid),
    ?assertEqual(<<"lost 2 ETS tables (named_one), 1 link, 1 process dictionary entry, trap_exit">>,
                 beamtalk_evaluator:lost_text(Summary)),
    exit(Pid, kill),
    receive {'DOWN', Mon, process, Pid, _} -> ok after 5000 -> error(timeout) end,
    ?assertEqual(#{}, beamtalk_evaluator:summary(Pid)).

death_texts() ->
    ?assertEqual(<<"The session's evaluator process was stopped by the interrupt; a new one runs "
                   "the next input (nothing was lost; bindings are kept).">>,
                 beamtalk_evaluator:death_text(<<"was stopped by the interrupt">>, {seen, #{}})),
    ?assertEqual(<<"The session's evaluator process exited: boom; a new one runs the next input "
                   "(after the last input it held 1 port; bindings are kept).">>,
                 beamtalk_evaluator:death_text(<<"exited: boom">>, {last, #{ports => 1}})).

memory_limit_kills() ->
    Words = beamtalk_evaluator:max_heap_words(8),
    ?assertEqual(8 * 1024 * 1024 div erlang:system_info(wordsize), Words),
    ?assert(beamtalk_evaluator:max_heap_words(default) >= 0),
    {Pid, Mon} = beamtalk_evaluator:start(group_leader(), Words),
    beamtalk_evaluator:run(Pid, make_ref(), fun() -> length(lists:seq(1, 5000000)) end),
    receive {'DOWN', Mon, process, Pid, Reason} -> ?assertEqual(killed, Reason)
    after 10000 -> error(timeout)
    end.

exit_reasons_cross_unchanged() ->
    Self = self(),
    {P, M} = spawn_monitor(fun() -> beamtalk_erlang:invoke(erlang, exit, [normal]) end),
    receive {'DOWN', M, process, P, R1} -> ?assertEqual(normal, R1) after 5000 -> error(timeout) end,
    {P2, M2} = spawn_monitor(fun() -> beamtalk_erlang:call(erlang, throw, [ball]) end),
    receive {'DOWN', M2, process, P2, R2} -> ?assertMatch({{nocatch, ball}, _}, R2)
    after 5000 -> error(timeout)
    end,
    %% caught by Beamtalk, the seed's mapping applies
    ?assertEqual('ExitError', bt_test:ex_class(fun() -> beamtalk_erlang:invoke(erlang, exit, [bye]) end)),
    Self = self().

reasons_are_one_readable_line() ->
    Stack = [{m, f, 1, [{file, "/some/where/m.erl"}, {line, 3}]}],
    ?assertEqual(<<"badarith">>, beamtalk_errors:reason_text({badarith, Stack})),
    ?assertEqual(<<"{#function_clause, {#gen_server, #call, #(1)}}">>,
                 beamtalk_errors:reason_text({{function_clause, Stack}, {gen_server, call, [1]}})),
    Long = beamtalk_errors:reason_text(lists:seq(1, 400)),
    ?assertEqual(160, string:length(Long)),
    ?assertEqual([16#2026], string:to_graphemes(string:slice(Long, 159))).
