%% Actors (spec semantics §3.4, §4.1, §9, §10).
-module(beamtalk_actor_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ex_kind/1, ex_class/1, ex_hint/1, ps/1]).

actor_test_() ->
    {setup, fun() -> bt_test:boot(), beamtalk_class:define(bt_test:counter_desc('Counter')) end,
     fun(_) -> ok end,
     [fun spawn_answers_record/0,
      fun state_is_kept_between_messages/0,
      fun spawn_with_overrides/0,
      fun self_sends_thread_state/0,
      fun errors_are_raised_in_the_caller_and_the_actor_lives/0,
      fun raw_errors_cross_too/0,
      fun state_changes_before_an_error_are_dropped/0,
      fun dnu_inside_actor/0,
      fun timeout/0,
      fun dead_actor/0,
      fun lifecycle/0,
      fun cast/0,
      fun initialize_runs_before_spawn_returns/0,
      fun failing_initialize/0,
      fun actors_outlive_their_spawner/0,
      fun sync_send_to_self_is_an_error_not_a_deadlock/0,
      fun field_reflection/0,
      fun spawn_errors/0,
      fun actors_are_supervised/0,
      {timeout, 120, fun hot_reload_of_1000_live_actors/0},
      fun redefinition_removes_methods/0,
      fun bad_method_result_does_not_kill_actor/0]}.

spawn_answers_record() ->
    C = s(g('Counter'), spawn),
    ?assertMatch({beamtalk_object, 'Counter', _, Pid} when is_pid(Pid), C),
    ?assertEqual(<<"a Counter">>, ps(C)),
    ?assertEqual(g('Counter'), s(C, class)),
    s(C, stop).

state_is_kept_between_messages() ->
    C = s(g('Counter'), spawn),
    ?assertEqual(0, s(C, value)),
    ?assertEqual(1, s(C, increment)),
    ?assertEqual(2, s(C, increment)),
    ?assertEqual(12, s(C, 'add:', [10])),
    ?assertEqual(12, s(C, value)),
    s(C, stop).

spawn_with_overrides() ->
    C = s(g('Counter'), 'spawnWith:', [#{value => 41}]),
    ?assertEqual(42, s(C, increment)),
    s(C, stop).

self_sends_thread_state() ->
    C = s(g('Counter'), spawn),
    ?assertEqual(2, s(C, incrementTwice)),
    ?assertEqual(2, s(C, value)),
    s(C, stop).

errors_are_raised_in_the_caller_and_the_actor_lives() ->
    C = s(g('Counter'), spawn),
    s(C, increment),
    F = fun() -> s(C, failAfterBump) end,
    ?assertEqual('Error', ex_class(F)),
    ?assertEqual(user_error, ex_kind(F)),
    ?assertEqual(<<"boom">>, ex_message(F)),
    ?assertEqual(true, s(C, isAlive)),
    ?assertEqual(1, s(C, value)),
    s(C, stop).

raw_errors_cross_too() ->
    C = s(g('Counter'), spawn),
    %% 1 / 0 inside the actor: the caller gets the raw badarith, wrapped as usual
    ?assertError(badarith, s(C, divideBy)),
    F = fun() -> s(C, divideBy) end,
    ?assertEqual(<<"badarith">>, ex_message(F)),
    ?assertEqual(true, s(C, isAlive)),
    s(C, stop).

state_changes_before_an_error_are_dropped() ->
    C = s(g('Counter'), 'spawnWith:', [#{value => 5}]),
    _ = bt_test:ex(fun() -> s(C, failAfterBump) end),
    ?assertEqual(5, s(C, value)),
    s(C, stop).

dnu_inside_actor() ->
    C = s(g('Counter'), spawn),
    F = fun() -> s(C, frobnicate) end,
    ?assertEqual(<<"Counter does not understand 'frobnicate'">>, ex_message(F)),
    ?assertEqual('RuntimeError', ex_class(F)),
    ?assertEqual(true, s(C, isAlive)),
    s(C, stop).

timeout() ->
    beamtalk_actor:set_call_timeout(200),
    try
        C = s(g('Counter'), spawn),
        F = fun() -> s(C, 'sleep:', [1000]) end,
        ?assertEqual(timeout, ex_kind(F)),
        ?assertMatch(<<"Actor call timed out", _/binary>>, ex_message(F)),
        %% the actor is still alive and answers once it is done
        beamtalk_actor:set_call_timeout(5000),
        ?assertEqual(0, s(C, value)),
        %% no late reply is left in our mailbox
        receive Stray -> erlang:error({stray, Stray}) after 50 -> ok end,
        s(C, stop)
    after
        beamtalk_actor:set_call_timeout(5000)
    end.

dead_actor() ->
    C = s(g('Counter'), spawn),
    ok = s(C, stop),
    F = fun() -> s(C, increment) end,
    ?assertEqual(actor_dead, ex_kind(F)),
    ?assertEqual('RuntimeError', ex_class(F)),
    ?assertEqual(<<"Cannot send 'increment' to a Counter (actor process has terminated)">>, ex_message(F)),
    %% killed
    D = s(g('Counter'), spawn),
    ok = s(D, kill),
    timer:sleep(10),
    ?assertEqual(actor_dead, ex_kind(fun() -> s(D, value) end)).

lifecycle() ->
    C = s(g('Counter'), spawn),
    ?assertEqual(true, s(C, isAlive)),
    Ref = s(C, monitor),
    ?assert(is_reference(Ref)),
    ?assertEqual(ok, s(C, stop)),
    receive {'DOWN', Ref, process, _, normal} -> ok after 1000 -> erlang:error(no_down) end,
    ?assertEqual(false, s(C, isAlive)),
    ?assertEqual(ok, s(C, stop)),                  % idempotent
    ?assertEqual(ok, s(C, kill)),                  % works on dead actors
    ?assertEqual(false, s(C, isAlive)).

cast() ->
    C = s(g('Counter'), spawn),
    ?assertEqual(ok, beamtalk_send:cast(C, increment, [])),
    ?assertEqual(ok, beamtalk_send:cast(C, 'add:', [10])),
    ?assertEqual(ok, beamtalk_send:cast(C, failAfterBump, [])),   % errors are not reported
    ?assertEqual(ok, beamtalk_send:cast(C, frobnicate, [])),
    %% a sync send after casts is a barrier
    ?assertEqual(11, s(C, value)),
    ?assertEqual(true, s(C, isAlive)),
    s(C, stop).

initialize_runs_before_spawn_returns() ->
    Desc = bt_test:counter_desc('InitCounter'),
    Methods = maps:get(methods, Desc),
    beamtalk_class:define(Desc#{methods => Methods#{initialize => {a, fun(_Self, S) -> {nil, S#{value => 100}} end}}}),
    C = s(g('InitCounter'), spawn),
    ?assertEqual(100, s(C, value)),
    %% inherited initialize runs too
    beamtalk_class:define(#{name => 'InitSub', superclass => 'InitCounter'}),
    D = s(g('InitSub'), spawn),
    ?assertEqual(101, s(D, increment)),
    s(C, stop), s(D, stop).

failing_initialize() ->
    Desc = bt_test:counter_desc('BadInit'),
    Methods = maps:get(methods, Desc),
    beamtalk_class:define(Desc#{methods => Methods#{initialize => {a, fun(Self, _S) ->
                                                                              beamtalk_exception:user_error(Self, <<"no">>)
                                                                      end}}}),
    Before = length(supervisor:which_children(beamtalk_actor_sup)),
    ?assertEqual(<<"no">>, ex_message(fun() -> s(g('BadInit'), spawn) end)),
    timer:sleep(20),
    ?assertEqual(Before, length(supervisor:which_children(beamtalk_actor_sup))).

actors_outlive_their_spawner() ->
    Parent = self(),
    Pid = spawn(fun() -> Parent ! {actor, s(g('Counter'), spawn)} end),
    C = receive {actor, A} -> A after 2000 -> erlang:error(no_actor) end,
    timer:sleep(20),
    ?assertEqual(false, is_process_alive(Pid)),
    ?assertEqual(1, s(C, increment)),
    %% also when the spawner crashes
    Pid2 = spawn(fun() -> Parent ! {actor, s(g('Counter'), spawn)}, exit(crash) end),
    C2 = receive {actor, A2} -> A2 after 2000 -> erlang:error(no_actor) end,
    timer:sleep(20),
    ?assertEqual(false, is_process_alive(Pid2)),
    ?assertEqual(true, s(C2, isAlive)),
    s(C, stop), s(C2, stop).

sync_send_to_self_is_an_error_not_a_deadlock() ->
    beamtalk_class:define(#{name => 'Narcissist', superclass => 'Actor',
                            methods => #{loop => {a, fun(Self, S) -> {s(Self, other), S} end},
                                         other => {a, fun(_Self, S) -> {1, S} end}}}),
    N = s(g('Narcissist'), spawn),
    T0 = erlang:monotonic_time(millisecond),
    ?assertMatch(<<_/binary>>, ex_message(fun() -> s(N, loop) end)),
    ?assert(erlang:monotonic_time(millisecond) - T0 < 1000),
    ?assertEqual(1, s(N, other)),
    s(N, stop).

field_reflection() ->
    C = s(g('Counter'), 'spawnWith:', [#{value => 3}]),
    ?assertEqual([value], s(C, fieldNames)),
    ?assertEqual(3, s(C, 'fieldAt:', [value])),
    ?assertEqual(9, s(C, 'fieldAt:put:', [value, 9])),
    ?assertEqual(9, s(C, value)),
    ?assertEqual(runtime_error, ex_kind(fun() -> s(C, 'fieldAt:', [nope]) end)),
    s(C, stop).

spawn_errors() ->
    beamtalk_class:define(#{name => 'AbstractActor', superclass => 'Actor', modifiers => [abstract]}),
    ?assertEqual(instantiation_error, ex_kind(fun() -> s(g('AbstractActor'), spawn) end)),
    bt_test:define_point('Point'),
    ?assertEqual(instantiation_error, ex_kind(fun() -> s(g('Point'), spawn) end)),
    ?assertEqual(type_error, ex_kind(fun() -> s(g('Counter'), 'spawnWith:', [42]) end)).

actors_are_supervised() ->
    C = s(g('Counter'), spawn),
    Pids = [P || {_, P, _, _} <- supervisor:which_children(beamtalk_actor_sup)],
    ?assert(lists:member(element(4, C), Pids)),
    s(C, stop).

hot_reload_of_1000_live_actors() ->
    Desc = bt_test:counter_desc('HotCounter'),
    beamtalk_class:define(Desc),
    Actors = [s(g('HotCounter'), 'spawnWith:', [#{value => I}]) || I <- lists:seq(1, 1000)],
    [s(A, increment) || A <- Actors],
    %% v2: a new field with a default, a new method, a changed method
    Methods = maps:get(methods, Desc),
    beamtalk_class:define(Desc#{fields => [{value, fun() -> 0 end}, {step, fun() -> 5 end}],
                                methods => Methods#{getStep => {a, fun(_Self, S) -> {maps:get(step, S), S} end},
                                                    increment => {a, fun(_Self, S) ->
                                                                             V = maps:get(value, S) + maps:get(step, S),
                                                                             {V, S#{value => V}}
                                                                     end}}}),
    Results = [{s(A, value), s(A, getStep), s(A, increment)} || A <- Actors],
    Expected = [{I + 1, 5, I + 6} || I <- lists:seq(1, 1000)],
    ?assertEqual(Expected, Results),
    %% same processes
    ?assert(lists:all(fun(A) -> s(A, isAlive) end, Actors)),
    %% new actors get the new field too
    N = s(g('HotCounter'), spawn),
    ?assertEqual(5, s(N, getStep)),
    [s(A, kill) || A <- [N | Actors]],
    ok.

redefinition_removes_methods() ->
    Desc = bt_test:counter_desc('ShrinkCounter'),
    beamtalk_class:define(Desc),
    C = s(g('ShrinkCounter'), spawn),
    ?assertEqual(1, s(C, increment)),
    beamtalk_class:define(Desc#{methods => maps:with([value], maps:get(methods, Desc))}),
    ?assertEqual(<<"ShrinkCounter does not understand 'increment'">>,
                 ex_message(fun() -> s(C, increment) end)),
    ?assertEqual(1, s(C, value)),
    s(C, stop).

bad_method_result_does_not_kill_actor() ->
    beamtalk_class:define(#{name => 'Sloppy', superclass => 'Actor',
                            methods => #{bad => {a, fun(_Self, _S) -> not_a_tuple end},
                                         good => {a, fun(_Self, S) -> {fine, S} end}}}),
    A = s(g('Sloppy'), spawn),
    ?assertEqual(internal_error, ex_kind(fun() -> s(A, bad) end)),
    ?assertEqual(fine, s(A, good)),
    s(A, stop).
