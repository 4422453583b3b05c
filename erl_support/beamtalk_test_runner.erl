%% @doc BUnit: discovering and running the tests of `TestCase` subclasses
%% (spec stdlib §11).  The primitives of TestCase, TestResult and TestRunner
%% and the workspace's `tests` request all run tests through here.
%%
%% **Discovery.** The tests of a class are the unary selectors starting with
%% `test` in its flattened instance-method table (own and inherited), sorted
%% alphabetically.  Abstract classes are skipped when running "all" test
%% classes (their tests run in their concrete subclasses).
%%
%% **One test** runs in a process of its own, linked to the runner:
%%   1. a fresh instance: `TheClass new`;
%%   2. `setUp`; when it answers an instance of the test's class, that object
%%      is the instance the test uses (an `Object subclass:` method whose last
%%      statement assigns a field answers the updated self); any other answer
%%      (nil from the default, a value the method happened to end with) keeps
%%      the fresh instance.  A failing setUp records
%%      `setUp failed: <message>`;
%%   3. the test method;
%%   4. `tearDown`, always (also after a failure, an error or a failing
%%      setUp), its errors ignored.
%% The runner waits at most the class's `timeout` (a class-side method
%% answering milliseconds; TestCase answers 5000).  When it runs out, the test
%% process is killed, tearDown runs on the set-up instance in a process of
%% its own, and the test records the error `Test timed out after N ms`.
%% Output of the test (Transcript, io) goes where the runner's goes: the
%% test process inherits the runner's group leader.
%%
%% **Outcomes.** An exception of kind `assertion_failed` (the assertions,
%% `fail:`) is a failure (`fail`); any other exception, an exit of the test
%% process or a timeout is an error (`error`, message prefixed with the
%% exception class).  A result is
%%     #{class => atom(), test => atom(), status => pass | fail | error,
%%       message => binary() | nil, location => binary() | nil,
%%       time_us => integer()}.
%% where location is `File:Line` of the failing line of the test (see
%% beamtalk_test_location).
-module(beamtalk_test_runner).

-export([test_selectors/1, is_test_class/1, test_classes/0, run_class/1,
         run_test/2, run_tests/1, run_named/2, test_class_name/1, timeout_of/1, default_timeout/0,
         result/2, report/2, assertion_failure/3]).

-define(DEFAULT_TIMEOUT, 5000).
-define(CK, '$beamtalk_class').

default_timeout() -> ?DEFAULT_TIMEOUT.

%%% ---------------------------------------------------------------------
%%% Discovery
%%% ---------------------------------------------------------------------

%% @doc The test selectors of a class, sorted.
-spec test_selectors(atom()) -> [atom()].
test_selectors(Class) ->
    lists:sort([S || S <- maps:keys(beamtalk_class:instance_methods(Class)),
                     is_test_selector(S)]).

is_test_selector(S) when is_atom(S) ->
    case atom_to_binary(S, utf8) of
        <<"test", Rest/binary>> -> binary:match(Rest, <<":">>) =:= nomatch;
        _ -> false
    end;
is_test_selector(_) ->
    false.

%% @doc Is Name a registered subclass of TestCase?
is_test_class(Name) when is_atom(Name) ->
    beamtalk_class:exists(Name) andalso beamtalk_class:inherits_from(Name, 'TestCase');
is_test_class(_) ->
    false.

%% @doc Every concrete TestCase subclass, sorted by name.
test_classes() ->
    lists:sort([C || C <- beamtalk_class:all_subclasses('TestCase'), not is_abstract(C)]).

is_abstract(C) ->
    case beamtalk_class:class_info(C) of
        #{abstract := A} -> A;
        _ -> false
    end.

%%% ---------------------------------------------------------------------
%%% Running
%%% ---------------------------------------------------------------------

%% @doc Run every test of one class.
run_class(Class) ->
    Timeout = timeout_of(Class),
    [run_one(Class, Sel, Timeout) || Sel <- test_selectors(Class)].

%% @doc Run one test of a class.
run_test(Class, Sel) ->
    run_one(Class, Sel, timeout_of(Class)).

%% @doc Run the tests of several classes, in order.
run_tests(Classes) ->
    lists:append([run_class(C) || C <- Classes]).

%% @doc The workspace's `tests` request: `all` TestCase subclasses, or the
%% named classes.  Strict: a name that is not a TestCase subclass is an
%% error; otherwise such names (and abstract classes) are skipped.
run_named(all, _Strict) ->
    run_tests(test_classes());
run_named(Names, Strict) when is_list(Names) ->
    Classes = [C || N <- Names, C <- [check_class(N, Strict)], C =/= skip],
    run_tests(Classes).

%% @doc The class name of a TestCase subclass (a class object, a Symbol or
%% a String); raises when it is not one.
test_class_name(N) ->
    check_class(N, true).

check_class(N, Strict) ->
    Name = case N of
               B when is_binary(B) ->
                   try binary_to_existing_atom(B, utf8)
                   catch error:badarg -> beamtalk_class:not_found(B)
                   end;
               {beamtalk_object, Tag, beamtalk_class, _} = C when Tag =/= 'Metaclass' ->
                   beamtalk_class:name_of(C);
               A when is_atom(A), A =/= nil, A =/= true, A =/= false -> A;
               Other ->
                   beamtalk_exception:raise(type_error, 'TestRunner', test,
                                            iolist_to_binary([beamtalk_print:print_string(Other),
                                                              " is not a TestCase subclass"]),
                                            <<"TestRunner run: takes a TestCase subclass (TestRunner run: FooTest)">>)
           end,
    case {is_test_class(Name), Strict} of
        {true, false} ->
            case is_abstract(Name) of true -> skip; false -> Name end;
        {true, true} -> Name;
        {false, false} -> skip;
        {false, true} ->
            beamtalk_class:exists(Name) orelse beamtalk_class:not_found(Name),
            beamtalk_exception:raise(type_error, Name, test,
                                     iolist_to_binary([atom_to_binary(Name, utf8),
                                                       " is not a TestCase subclass"]),
                                     <<"Tests are the test* methods of TestCase subclasses">>)
    end.

%% @doc The per-test timeout of a class (its class-side `timeout`, in ms).
timeout_of(Class) ->
    try beamtalk_send:send(beamtalk_class:class_object(Class), timeout, []) of
        Ms when is_integer(Ms), Ms > 0 -> Ms;
        _ -> ?DEFAULT_TIMEOUT
    catch _:_ -> ?DEFAULT_TIMEOUT
    end.

run_one(Class, Sel, Timeout) ->
    Runner = self(),
    Ref = make_ref(),
    Trap = process_flag(trap_exit, true),
    T0 = erlang:monotonic_time(microsecond),
    Pid = spawn_link(fun() -> Runner ! {Ref, done, phases(Runner, Ref, Class, Sel)} end),
    Outcome = await(Pid, Ref, Class, T0 div 1000 + Timeout, Timeout, none),
    unlink(Pid),
    receive {'EXIT', Pid, _} -> ok after 0 -> ok end,
    stop_spawned(Ref),
    process_flag(trap_exit, Trap),
    {Status, Msg, Loc} = case Outcome of
                             {St, M} -> {St, M, nil};
                             {_, _, _} -> Outcome
                         end,
    #{class => Class, test => Sel, status => Status, message => Msg, location => Loc,
      time_us => erlang:monotonic_time(microsecond) - T0}.

await(Pid, Ref, Class, Deadline, Timeout, Inst) ->
    Left = max(0, Deadline - erlang:monotonic_time(millisecond)),
    receive
        {Ref, instance, I} -> await(Pid, Ref, Class, Deadline, Timeout, {ok, I});
        {Ref, done, Outcome} -> Outcome;
        {'EXIT', Pid, Reason} ->
            {error, iolist_to_binary(io_lib:format("The test process exited: ~tp", [Reason]))}
    after Left ->
            exit(Pid, kill),
            receive {'EXIT', Pid, _} -> ok after 5000 -> ok end,
            case Inst of
                {ok, I} ->
                    Runner = self(),
                    bounded(fun() -> watch_spawns(Runner, Ref), teardown(I) end, Timeout);
                none -> ok
            end,
            {error, iolist_to_binary(io_lib:format("Test timed out after ~b ms", [Timeout]))}
    end.

%% Run F in a process of its own for at most Ms (linked, so it does not
%% outlive an interrupted runner; the runner traps exits meanwhile).
bounded(F, Ms) ->
    Pid = spawn_link(F),
    Mon = erlang:monitor(process, Pid),
    receive {'DOWN', Mon, process, Pid, _} -> ok
    after Ms -> exit(Pid, kill), receive {'DOWN', Mon, process, Pid, _} -> ok end
    end,
    unlink(Pid),
    receive {'EXIT', Pid, _} -> ok after 0 -> ok end.

%% The actors a test spawned (setUp, the test, tearDown) and left running
%% are stopped after it, as SUnit in Pharo terminates the processes a test
%% forked and ExUnit's linked processes end with the test: each test starts
%% from the workspace it found, and `:test` leaves nothing behind.  Actors
%% those actors spawn are not followed.
watch_spawns(Runner, Ref) ->
    put('$bt_on_spawn', fun(P) -> Runner ! {Ref, spawned, P} end).

stop_spawned(Ref) ->
    receive
        {Ref, spawned, P} ->
            _ = (catch supervisor:terminate_child(beamtalk_actor_sup, P)),
            stop_spawned(Ref)
    after 0 -> ok
    end.

%% Inside the test process.
phases(Runner, Ref, Class, Sel) ->
    watch_spawns(Runner, Ref),
    case catching(fun() -> beamtalk_send:send(beamtalk_class:class_object(Class), new, []) end) of
        {error, _, _, Msg, _} ->
            {error, <<"Cannot create the test instance: ", Msg/binary>>};
        {ok, I0} ->
            case catching(fun() -> beamtalk_send:send(I0, setUp, []) end) of
                {error, _, _, Msg, Stack} ->
                    teardown(I0),
                    {error, <<"setUp failed: ", Msg/binary>>, beamtalk_test_location:find(Class, setUp, Stack)};
                {ok, R} ->
                    I = case R of
                            #{?CK := C} when C =:= map_get(?CK, I0) -> R;
                            _ -> I0
                        end,
                    Runner ! {Ref, instance, I},
                    Outcome = case catching(fun() -> beamtalk_send:send(I, Sel, []) end) of
                                  {ok, _} -> {pass, nil};
                                  {error, Status, Msg, _, Stack} ->
                                      {Status, Msg, beamtalk_test_location:find(Class, Sel, Stack)}
                              end,
                    teardown(I),
                    Outcome
            end
    end.

teardown(I) ->
    _ = catching(fun() -> beamtalk_send:send(I, tearDown, []) end),
    ok.

%% {ok, Value} | {error, fail | error, Message, MessageWithoutClass, Stack}.
%% Message ends with the exception's hint (`Hint: …`, as the REPL shows it):
%% a test that sends an SUnit assertion BUnit lacks is told which to use.
catching(F) ->
    try F() of
        V -> {ok, V}
    catch
        C:R:S -> classify(C, R, S)
    end.

classify(C, R, S) ->
    Ex = beamtalk_errors:wrap(C, R, S),
    Rec = beamtalk_exception:record(Ex),
    Msg = beamtalk_exception:message_text(Ex),
    Full = case maps:get(hint, Rec, nil) of
               H when is_binary(H), H =/= <<>>, H =/= Msg ->
                   case beamtalk_selector_hint:generic(H) of
                       true -> Msg;      % "Check spelling", "the receiver is nil": noise in a report
                       false -> <<Msg/binary, "\nHint: ", H/binary>>
                   end;
               _ -> Msg
           end,
    Stack = maps:get(stacktrace, Ex, S),
    case maps:get(kind, Rec, undefined) of
        assertion_failed -> {error, fail, Full, Msg, Stack};
        _ -> {error, error, <<(atom_to_binary(maps:get(?CK, Ex), utf8))/binary, ": ", Full/binary>>, Msg, Stack}
    end.

%% @doc Raise the failure of an assertion (kind assertion_failed).
-spec assertion_failure(term(), atom(), binary()) -> no_return().
assertion_failure(Self, Selector, Message) ->
    beamtalk_exception:raise(assertion_failed, beamtalk_send:class_name(Self), Selector,
                             Message, nil).

%%% ---------------------------------------------------------------------
%%% Results
%%% ---------------------------------------------------------------------

%% @doc A TestResult object from results and the wall time in microseconds.
result(Results, Micros) ->
    Passed = length([R || #{status := pass} = R <- Results]),
    Errors = length([R || #{status := error} = R <- Results]),
    Total = length(Results),
    #{?CK => 'TestResult',
      passed => Passed,
      failed => Total - Passed,
      errors => Errors,
      total => Total,
      duration => Micros / 1.0e6,
      failures => [failure_dict(R) || #{status := St} = R <- Results, St =/= pass],
      results => [failure_dict(R) || R <- Results]}.

failure_dict(#{class := C, test := T, status := St, message := M} = R) ->
    D = #{class => C, test => T, status => St, message => M},
    case maps:get(location, R, nil) of
        L when is_binary(L) -> D#{location => L};
        _ -> D
    end.

%% @doc The text `FooTest runAll` answers:
%% `N tests, P passed (0.0s)` or `N tests, P passed, F failed (0.1s)`, then
%% a blank line and per failure `  FAIL: test` (or `  ERROR: test`) and
%% the message indented by four spaces.  Tests of other classes than Only
%% are named `Class>>test`.
report(Results, Micros) ->
    Total = length(Results),
    Passed = length([R || #{status := pass} = R <- Results]),
    Secs = Micros / 1.0e6,
    Head = case Total - Passed of
               0 -> io_lib:format("~b tests, ~b passed (~.1fs)", [Total, Passed, Secs]);
               F -> io_lib:format("~b tests, ~b passed, ~b failed (~.1fs)", [Total, Passed, F, Secs])
           end,
    Classes = lists:usort([C || #{class := C} <- Results]),
    Blocks = [["\n  ", label(St), ": ", test_name(R, Classes), "\n    ", where(R), indent(M)]
              || #{status := St, message := M} = R <- Results, St =/= pass],
    case Blocks of
        [] -> iolist_to_binary(Head);
        _ -> iolist_to_binary([Head, "\n", Blocks])
    end.

where(#{location := L}) when is_binary(L) -> [filename:basename(L), ": "];
where(_) -> [].

label(fail) -> "FAIL";
label(error) -> "ERROR".

test_name(#{test := T}, [_]) -> atom_to_binary(T, utf8);
test_name(#{class := C, test := T}, _) -> [atom_to_binary(C, utf8), ">>", atom_to_binary(T, utf8)].

indent(nil) -> <<>>;
indent(M) -> binary:replace(M, <<"\n">>, <<"\n    ">>, [global]).
