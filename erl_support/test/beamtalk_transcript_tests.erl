%% The Transcript (spec stdlib §10): the singleton actor, display text,
%% the ring buffer, subscribers, and routing of text written by an
%% evaluation (or an actor serving one) to that session's I/O server.
-module(beamtalk_transcript_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ps/1]).

transcript_test_() ->
    {setup, fun setup/0, fun(_) -> ok end,
     [fun singleton/0,
      fun commands_answer_the_transcript/0,
      fun display_text/0,
      fun ring_buffer_keeps_the_last_1000/0,
      fun subscribers_get_pushes/0,
      fun dead_subscribers_are_dropped/0,
      fun evaluation_text_goes_to_the_session/0,
      fun idle_session_text_goes_to_buffer_and_subscribers/0,
      fun actor_serving_an_evaluation_writes_to_it/0,
      fun restarted_transcript_rebinds_the_global/0]}.

setup() ->
    bt_test:boot(),
    beamtalk_class:define(
      #{name => 'Talker', superclass => 'Actor',
        methods => #{talk => {a, fun(_Self, St) ->
                                         s(beamtalk_class:global('Transcript'), 'show:', [<<"talk">>]),
                                         {ok, St}
                                 end}}}),
    ok.

t() -> g('Transcript').

singleton() ->
    T = t(),
    ?assertMatch({beamtalk_object, 'TranscriptStream', _, Pid} when is_pid(Pid), T),
    ?assertEqual(T, s(g('TranscriptStream'), current)),
    ?assertEqual(<<"a TranscriptStream">>, ps(T)),
    ?assertEqual(g('TranscriptStream'), s(T, class)),
    ?assertEqual(true, s(T, 'respondsTo:', ['show:'])),
    ?assertEqual(<<"Cannot call 'spawn' on TranscriptStream">>,
                 ex_message(fun() -> s(g('TranscriptStream'), spawn) end)),
    ?assertEqual(<<"Cannot call 'new' on TranscriptStream">>,
                 ex_message(fun() -> s(g('TranscriptStream'), new) end)).

commands_answer_the_transcript() ->
    T = t(),
    [?assertEqual(T, s(T, Sel, Args))
     || {Sel, Args} <- [{'show:', [<<"a">>]}, {cr, []}, {tab, []}, {space, []},
                        {'showCr:', [<<"b">>]}, {'display:', [1]}, {'print:', [<<"c">>]},
                        {clear, []}, {subscribe, []}, {unsubscribe, []}]].

display_text() ->
    T = t(),
    s(T, clear),
    s(T, 'show:', [<<"raw">>]),
    s(T, 'show:', [sym]),
    s(T, 'show:', [42]),
    s(T, 'show:', [[<<"a">>, b, 1]]),
    s(T, 'print:', [<<"q">>]),
    s(T, 'display:', [#{a => 1}]),
    s(T, 'showCr:', [x]),
    s(T, tab), s(T, space), s(T, cr),
    s(T, 'show:', [<<>>]),                   % nothing to buffer
    ?assertEqual([<<"raw">>, <<"sym">>, <<"42">>, <<"#(a, b, 1)">>, <<"\"q\"">>,
                  <<"#{#a => 1}">>, <<"x\n">>, <<"\t">>, <<" ">>, <<"\n">>],
                 s(T, recent)),
    s(T, clear),
    ?assertEqual([], s(T, recent)).

ring_buffer_keeps_the_last_1000() ->
    T = t(),
    s(T, clear),
    [s(T, 'show:', [I]) || I <- lists:seq(1, 1005)],
    R = s(T, recent),
    ?assertEqual(1000, length(R)),
    ?assertEqual(<<"6">>, hd(R)),
    ?assertEqual(<<"1005">>, lists:last(R)),
    s(T, clear).

subscribers_get_pushes() ->
    T = t(),
    Self = self(),
    Sub = spawn(fun() ->
                        s(T, subscribe),
                        Self ! subscribed,
                        collect(Self, [])
                end),
    receive subscribed -> ok end,
    ok = beamtalk_transcript:subscribe(self()),
    s(T, 'show:', [<<"one">>]),
    s(T, cr),
    ?assertEqual({transcript, <<"one">>}, receive {transcript, _} = M1 -> M1 after 5000 -> none end),
    ?assertEqual({transcript, <<"\n">>}, receive {transcript, _} = M2 -> M2 after 5000 -> none end),
    ok = beamtalk_transcript:unsubscribe(self()),
    s(T, 'show:', [<<"two">>]),
    Sub ! {report, self()},
    ?assertEqual([<<"one">>, <<"\n">>, <<"two">>], receive {collected, L} -> L after 5000 -> none end),
    %% unsubscribed: nothing more arrives here (the subscriber above got "two"
    %% after this process would have, pushes being sent in order)
    ?assertEqual(none, receive {transcript, _} = M3 -> M3 after 0 -> none end).

collect(Parent, Acc) ->
    receive
        {transcript, Text} -> collect(Parent, [Text | Acc]);
        {report, To} -> To ! {collected, lists:reverse(Acc)}
    end.

dead_subscribers_are_dropped() ->
    {Pid, Mon} = spawn_monitor(fun() -> beamtalk_transcript:subscribe(self()) end),
    receive {'DOWN', Mon, process, Pid, _} -> ok end,
    s(t(), 'show:', [<<"x">>]),
    #{subscribers := Subs} = sys:get_state(beamtalk_transcript),
    ?assertNot(maps:is_key(Pid, Subs)).

%% A session I/O server in a request for this process, tag Ref.
session(Ref) ->
    Io = beamtalk_io:start(),
    beamtalk_io:begin_request(Io, self(), Ref),
    Io.

%% Run F in a process whose group leader is Io; wait for it.
in_session(Io, F) ->
    Self = self(),
    Pid = spawn(fun() -> group_leader(Io, self()), Self ! {done, self(), F()} end),
    receive {done, Pid, V} -> V after 10000 -> timeout end.

evaluation_text_goes_to_the_session() ->
    T = t(),
    s(T, clear),
    Ref = make_ref(),
    Io = session(Ref),
    ?assert(beamtalk_io:is_session_io(Io)),
    ?assertNot(beamtalk_io:is_session_io(self())),
    %% another subscriber sees it too; the session's own client does not get
    %% it twice
    Self = self(),
    Watcher = spawn(fun() -> beamtalk_transcript:subscribe(self()), Self ! ready, collect(Self, []) end),
    receive ready -> ok end,
    ok = beamtalk_transcript:subscribe(self()),
    in_session(Io, fun() -> s(T, 'show:', [<<"in eval">>]) end),
    ?assertEqual(<<"in eval">>, receive {beamtalk_output, Ref, B} -> B after 5000 -> none end),
    s(T, 'show:', [<<"after">>]),            % from here: background
    ?assertEqual({transcript, <<"after">>}, receive {transcript, _} = M -> M after 5000 -> none end),
    Watcher ! {report, self()},
    ?assertEqual([<<"in eval">>, <<"after">>], receive {collected, L} -> L after 5000 -> none end),
    ?assertEqual([<<"in eval">>, <<"after">>], s(T, recent)),
    ok = beamtalk_transcript:unsubscribe(self()),
    Io ! stop.

idle_session_text_goes_to_buffer_and_subscribers() ->
    T = t(),
    s(T, clear),
    Ref = make_ref(),
    Io = session(Ref),
    beamtalk_io:finish_request(Io, Ref, done),
    ?assertEqual({Ref, done}, receive {Ref, _} = F -> F after 5000 -> none end),
    ok = beamtalk_transcript:subscribe(self()),
    in_session(Io, fun() -> s(T, 'show:', [<<"late">>]) end),
    ?assertEqual({transcript, <<"late">>}, receive {transcript, _} = M -> M after 5000 -> none end),
    ?assertEqual(none, receive {beamtalk_output, _, _} = O -> O after 0 -> none end),
    ?assertEqual([<<"late">>], s(T, recent)),
    ok = beamtalk_transcript:unsubscribe(self()),
    Io ! stop.

actor_serving_an_evaluation_writes_to_it() ->
    T = t(),
    s(T, clear),
    A = s(g('Talker'), spawn),
    Ref = make_ref(),
    Io = session(Ref),
    ok = beamtalk_transcript:subscribe(self()),
    %% a synchronous send: the actor's text is the evaluation's output
    in_session(Io, fun() -> s(A, talk) end),
    ?assertEqual(<<"talk">>, receive {beamtalk_output, Ref, B} -> B after 5000 -> none end),
    %% a cast: background
    in_session(Io, fun() -> beamtalk_send:cast(A, talk, []) end),
    ?assertEqual({transcript, <<"talk">>}, receive {transcript, _} = M -> M after 5000 -> none end),
    ?assertEqual([<<"talk">>, <<"talk">>], s(T, recent)),
    ok = beamtalk_transcript:unsubscribe(self()),
    s(A, stop),
    Io ! stop.

restarted_transcript_rebinds_the_global() ->
    {beamtalk_object, _, _, Old} = t(),
    Mon = erlang:monitor(process, Old),
    exit(Old, kill),
    receive {'DOWN', Mon, process, Old, _} -> ok end,
    New = wait_restart(Old, 100),
    ?assertNotEqual(Old, New),
    ?assertEqual({beamtalk_object, 'TranscriptStream', beamtalk_transcript, New}, t()),
    ?assertEqual(t(), s(t(), 'show:', [<<"back">>])).

wait_restart(_Old, 0) -> erlang:error(no_restart);
wait_restart(Old, N) ->
    case catch t() of
        {beamtalk_object, _, _, P} when P =/= Old -> P;
        _ -> timer:sleep(10), wait_restart(Old, N - 1)
    end.
