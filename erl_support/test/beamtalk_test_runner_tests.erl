%% BUnit on the node (spec stdlib §11): discovery, the per-test life cycle
%% (fresh instance, setUp's answer, tearDown always, timeout), assertion
%% texts, failures vs errors, runAll/run: strings, TestRunner, TestResult.
-module(beamtalk_test_runner_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex_message/1, ex_kind/1, ps/1]).

runner_test_() ->
    {setup, fun setup/0, fun(_) -> ok end,
     [fun discovery_is_sorted_unary_and_inherited/0,
      fun setup_answer_becomes_the_instance/0,
      fun other_setup_answers_keep_the_fresh_instance/0,
      fun each_test_gets_a_fresh_instance/0,
      fun teardown_runs_after_pass_failure_and_error/0,
      fun failing_setup/0,
      fun teardown_errors_are_ignored/0,
      {timeout, 30, fun timeout_kills_the_test_and_tears_down/0},
      fun assertion_texts/0,
      fun should_raise/0,
      fun shouldnt_raise/0,
      fun failures_and_errors_are_told_apart/0,
      fun run_all_strings/0,
      fun run_one_string/0,
      fun test_runner_and_result/0,
      fun run_named/0,
      fun output_goes_to_the_runners_group_leader/0]}.

setup() ->
    bt_test:boot(),
    beamtalk_class:define(
      #{name => 'LifeTest', superclass => 'TestCase',
        fields => [{x, fun() -> 0 end}],
        methods => #{setUp => {v, fun(S) -> S#{x => 5} end},
                     tearDown => {v, fun(S) -> note({teardown, maps:get(x, S)}), nil end},
                     testSeesSetUp => {v, fun(S) -> s(S, 'assert:equals:', [maps:get(x, S), 5]) end},
                     testFails => {v, fun(S) -> s(S, 'assert:', [false]) end},
                     testErrs => {v, fun(_S) -> s(3, foo) end},
                     helper => {v, fun(_) -> 1 end},
                     'testWith:' => {v, fun(_, _) -> 1 end}}}),
    beamtalk_class:define(
      #{name => 'LifeSubTest', superclass => 'LifeTest',
        methods => #{testAOwn => {v, fun(S) -> s(S, 'assert:', [true]) end}}}),
    ok.

note(Msg) ->
    case whereis(bunit_tests_parent) of
        undefined -> ok;
        P -> P ! Msg
    end.

%% tearDown methods report to the registered test process.
listen() ->
    catch unregister(bunit_tests_parent),
    register(bunit_tests_parent, self()),
    notes().

notes() ->
    receive {teardown, _} = M -> [M | notes()] after 0 -> [] end.

run(Class, Sel) ->
    beamtalk_test_runner:run_test(Class, Sel).

status(Class, Sel) ->
    #{status := St, message := M} = run(Class, Sel),
    {St, M}.

discovery_is_sorted_unary_and_inherited() ->
    ?assertEqual([testErrs, testFails, testSeesSetUp],
                 beamtalk_test_runner:test_selectors('LifeTest')),
    ?assertEqual([testAOwn, testErrs, testFails, testSeesSetUp],
                 beamtalk_test_runner:test_selectors('LifeSubTest')),
    ?assertEqual([testAOwn, testErrs, testFails, testSeesSetUp],
                 s(g('LifeSubTest'), testSelectors)),
    %% inherited tests run for the subclass
    Results = beamtalk_test_runner:run_class('LifeSubTest'),
    ?assertEqual([{'LifeSubTest', testAOwn, pass}, {'LifeSubTest', testErrs, error},
                  {'LifeSubTest', testFails, fail}, {'LifeSubTest', testSeesSetUp, pass}],
                 [{C, T, St} || #{class := C, test := T, status := St} <- Results]),
    notes().

setup_answer_becomes_the_instance() ->
    listen(),
    ?assertEqual({pass, nil}, status('LifeTest', testSeesSetUp)),
    ?assertEqual([{teardown, 5}], notes()).

other_setup_answers_keep_the_fresh_instance() ->
    beamtalk_class:define(
      #{name => 'NilSetUpTest', superclass => 'TestCase',
        fields => [{x, fun() -> 1 end}],
        methods => #{setUp => {v, fun(_S) -> 42 end},
                     testX => {v, fun(S) -> s(S, 'assert:equals:', [maps:get(x, S), 1]) end}}}),
    ?assertEqual({pass, nil}, status('NilSetUpTest', testX)),
    %% the default setUp answers nil
    beamtalk_class:define(
      #{name => 'DefaultSetUpTest', superclass => 'TestCase',
        fields => [{x, fun() -> 1 end}],
        methods => #{testX => {v, fun(S) -> s(S, 'assert:equals:', [maps:get(x, S), 1]) end}}}),
    ?assertEqual(nil, s(beamtalk_object:new('DefaultSetUpTest'), setUp)),
    ?assertEqual(nil, s(beamtalk_object:new('DefaultSetUpTest'), tearDown)),
    ?assertEqual({pass, nil}, status('DefaultSetUpTest', testX)).

each_test_gets_a_fresh_instance() ->
    Self = self(),
    beamtalk_class:define(
      #{name => 'FreshTest', superclass => 'TestCase',
        fields => [{n, fun() -> Self ! fresh, 0 end}],
        methods => #{testA => {v, fun(_) -> nil end}, testB => {v, fun(_) -> nil end}}}),
    flush(fresh),
    beamtalk_test_runner:run_class('FreshTest'),
    ?assertEqual(2, count(fresh)).

flush(M) -> receive M -> flush(M) after 0 -> ok end.
count(M) -> receive M -> 1 + count(M) after 0 -> 0 end.

teardown_runs_after_pass_failure_and_error() ->
    listen(),
    beamtalk_test_runner:run_class('LifeTest'),
    ?assertEqual([{teardown, 5}, {teardown, 5}, {teardown, 5}], notes()).

failing_setup() ->
    listen(),
    beamtalk_class:define(
      #{name => 'BadSetUpTest', superclass => 'TestCase',
        methods => #{setUp => {v, fun(S) -> beamtalk_exception:user_error(S, <<"no db">>) end},
                     tearDown => {v, fun(_) -> note({teardown, bad}), nil end},
                     testX => {v, fun(_) -> nil end}}}),
    notes(),
    ?assertEqual({error, <<"setUp failed: no db">>}, status('BadSetUpTest', testX)),
    ?assertEqual([{teardown, bad}], notes()).

teardown_errors_are_ignored() ->
    beamtalk_class:define(
      #{name => 'BadTearDownTest', superclass => 'TestCase',
        methods => #{tearDown => {v, fun(_) -> 1 / zero() end},
                     testX => {v, fun(_) -> nil end}}}),
    ?assertEqual({pass, nil}, status('BadTearDownTest', testX)).

zero() -> 0.

timeout_kills_the_test_and_tears_down() ->
    Self = self(),
    beamtalk_class:define(
      #{name => 'SlowTest', superclass => 'TestCase',
        fields => [{x, fun() -> 0 end}],
        methods => #{setUp => {v, fun(S) -> S#{x => 7} end},
                     tearDown => {v, fun(S) -> Self ! {slow_teardown, maps:get(x, S)}, nil end},
                     testSlow => {v, fun(_) -> Self ! {slow_pid, self()}, receive never -> ok end end}},
        class_methods => #{timeout => {v, fun(_) -> 100 end}}}),
    ?assertEqual(100, beamtalk_test_runner:timeout_of('SlowTest')),
    ?assertEqual(5000, beamtalk_test_runner:timeout_of('LifeTest')),
    ?assertEqual({error, <<"Test timed out after 100 ms">>}, status('SlowTest', testSlow)),
    Pid = receive {slow_pid, P} -> P end,
    ?assertNot(is_process_alive(Pid)),
    ?assertEqual(7, receive {slow_teardown, X} -> X after 5000 -> none end),
    %% the runner's trap_exit flag is restored and no EXIT is left behind
    ?assertEqual({trap_exit, false}, process_info(self(), trap_exit)),
    ?assertEqual(false, lists:any(fun({'EXIT', _, _}) -> true; (_) -> false end,
                                  element(2, process_info(self(), messages)))).

tc() -> beamtalk_object:new('LifeTest').

assert_fail_text(F) ->
    ?assertEqual(assertion_failed, ex_kind(F)),
    ex_message(F).

assertion_texts() ->
    T = tc(),
    ?assertEqual(nil, s(T, 'assert:', [true])),
    ?assertEqual(<<"Assertion failed: expected true, got false">>,
                 assert_fail_text(fun() -> s(T, 'assert:', [false]) end)),
    ?assertEqual(<<"Assertion failed: expected true, got nil">>,
                 assert_fail_text(fun() -> s(T, 'assert:', [nil]) end)),
    ?assertEqual(nil, s(T, 'deny:', [false])),
    ?assertEqual(<<"Denial failed: expected false, got 3">>,
                 assert_fail_text(fun() -> s(T, 'deny:', [3]) end)),
    ?assertEqual(nil, s(T, 'assert:equals:', [[1, 2], [1, 2]])),
    ?assertEqual(<<"Expected 4, got 3">>,
                 assert_fail_text(fun() -> s(T, 'assert:equals:', [3, 4]) end)),
    %% strict: 1 and 1.0 differ
    ?assertEqual(<<"Expected 1.0, got 1">>,
                 assert_fail_text(fun() -> s(T, 'assert:equals:', [1, 1.0]) end)),
    %% display strings
    ?assertEqual(<<"Expected hello, got #(1, 2)">>,
                 assert_fail_text(fun() -> s(T, 'assert:equals:', [[1, 2], <<"hello">>]) end)),
    ?assertEqual(<<"boom">>, assert_fail_text(fun() -> s(T, 'fail:', [<<"boom">>]) end)).

should_raise() ->
    T = tc(),
    ?assertEqual(nil, s(T, 'should:raise:', [fun() -> 1 / zero() end, badarith])),
    ?assertEqual(nil, s(T, 'should:raise:', [fun() -> 1 / zero() end, runtime_error])),
    ?assertEqual(nil, s(T, 'should:raise:', [fun() -> s(3, foo) end, does_not_understand])),
    ?assertEqual(nil, s(T, 'should:raise:', [fun() -> s(3, 'error:', [<<"x">>]) end, user_error])),
    ?assertEqual(nil, s(T, 'should:raise:', [fun() -> s(T, 'fail:', [<<"x">>]) end, assertion_failed])),
    ?assertEqual(nil, s(T, 'should:raise:', [fun() -> s(3, foo) end, g('RuntimeError')])),
    ?assertEqual(<<"Expected block to raise badarith but it completed normally">>,
                 assert_fail_text(fun() -> s(T, 'should:raise:', [fun() -> 3 end, badarith]) end)),
    ?assertEqual(<<"Expected error kind does_not_understand but got badarith">>,
                 assert_fail_text(fun() -> s(T, 'should:raise:', [fun() -> 1 / zero() end,
                                                                   does_not_understand]) end)).

shouldnt_raise() ->
    T = tc(),
    ?assertEqual(nil, s(T, 'shouldnt:raise:', [fun() -> 3 end, badarith])),
    ?assertEqual(<<"Expected block not to raise does_not_understand but it raised: "
                   "Integer does not understand 'foo'">>,
                 assert_fail_text(fun() -> s(T, 'shouldnt:raise:', [fun() -> s(3, foo) end,
                                                                     does_not_understand]) end)),
    %% other errors propagate
    ?assertEqual(does_not_understand,
                 ex_kind(fun() -> s(T, 'shouldnt:raise:', [fun() -> s(3, foo) end, badarith]) end)).

failures_and_errors_are_told_apart() ->
    ?assertEqual({fail, <<"Assertion failed: expected true, got false">>}, status('LifeTest', testFails)),
    ?assertEqual({error, <<"RuntimeError: Integer does not understand 'foo'">>},
                 status('LifeTest', testErrs)),
    notes().

run_all_strings() ->
    beamtalk_class:define(
      #{name => 'GreenTest', superclass => 'TestCase',
        methods => #{testA => {v, fun(_) -> nil end}, testB => {v, fun(_) -> nil end}}}),
    ?assertMatch(<<"2 tests, 2 passed (", _:3/binary, "s)">>, s(g('GreenTest'), runAll)),
    Report = s(g('LifeTest'), runAll),
    [Head, <<>> | Blocks] = binary:split(Report, <<"\n">>, [global]),
    ?assertMatch(<<"3 tests, 1 passed, 2 failed (", _/binary>>, Head),
    ?assertEqual([<<"  ERROR: testErrs">>, <<"    RuntimeError: Integer does not understand 'foo'">>,
                  <<"  FAIL: testFails">>, <<"    Assertion failed: expected true, got false">>],
                 Blocks),
    beamtalk_class:define(#{name => 'EmptyTest', superclass => 'TestCase'}),
    ?assertEqual(<<"No test methods found in EmptyTest">>, s(g('EmptyTest'), runAll)),
    notes().

run_one_string() ->
    ?assertMatch(<<"1 tests, 1 passed (", _/binary>>, s(g('LifeTest'), 'run:', [testSeesSetUp])),
    ?assertEqual(<<"Method 'testNope' not found in LifeTest">>, s(g('LifeTest'), 'run:', [testNope])),
    notes().

test_runner_and_result() ->
    R = s(g('TestRunner'), 'run:', [g('LifeTest')]),
    ?assertEqual(<<"TestResult(1/3 passed)">>, ps(R)),
    ?assertEqual(1, s(R, passed)),
    ?assertEqual(2, s(R, failed)),
    ?assertEqual(1, s(R, errors)),
    ?assertEqual(3, s(R, total)),
    ?assertEqual(false, s(R, hasPassed)),
    ?assert(is_float(s(R, duration))),
    ?assertMatch(<<"3 tests, 1 passed, 2 failed (", _/binary>>, s(R, summary)),
    ?assertEqual([#{class => 'LifeTest', test => testErrs, status => error,
                    message => <<"RuntimeError: Integer does not understand 'foo'">>},
                  #{class => 'LifeTest', test => testFails, status => fail,
                    message => <<"Assertion failed: expected true, got false">>}],
                 s(R, failures)),
    One = s(g('TestRunner'), 'run:method:', [g('LifeTest'), testSeesSetUp]),
    ?assertEqual(<<"TestResult(1/1 passed)">>, ps(One)),
    ?assertEqual(true, s(One, hasPassed)),
    ?assertEqual(<<"Method 'testNope' not found in LifeTest">>,
                 ex_message(fun() -> s(g('TestRunner'), 'run:method:', [g('LifeTest'), testNope]) end)),
    ?assertEqual(<<"Integer is not a TestCase subclass">>,
                 ex_message(fun() -> s(g('TestRunner'), 'run:', [g('Integer')]) end)),
    All = s(g('TestRunner'), runAll),
    ?assert(s(All, total) >= 3),
    notes().

run_named() ->
    %% not strict: other classes and abstract test classes are skipped
    beamtalk_class:define(#{name => 'AbstractBaseTest', superclass => 'TestCase',
                            modifiers => [abstract],
                            methods => #{testBase => {v, fun(_) -> nil end}}}),
    ?assertEqual([], beamtalk_test_runner:run_named(['Integer', 'AbstractBaseTest'], false)),
    ?assertNot(lists:member('AbstractBaseTest', beamtalk_test_runner:test_classes())),
    ?assert(lists:member('LifeTest', beamtalk_test_runner:test_classes())),
    ?assertEqual(3, length(beamtalk_test_runner:run_named([<<"LifeTest">>], true))),
    ?assertEqual(<<"Class 'NoSuchTest' not found">>,
                 ex_message(fun() -> beamtalk_test_runner:run_named([<<"NoSuchTest">>], true) end)),
    notes().

output_goes_to_the_runners_group_leader() ->
    beamtalk_class:define(
      #{name => 'ChattyTest', superclass => 'TestCase',
        methods => #{testTalk => {v, fun(_) -> io:put_chars(<<"talking">>), nil end}}}),
    Io = beamtalk_io:start(),
    Ref = make_ref(),
    beamtalk_io:begin_request(Io, self(), Ref),
    Self = self(),
    spawn(fun() ->
                  group_leader(Io, self()),
                  Self ! {ran, beamtalk_test_runner:run_class('ChattyTest')}
          end),
    ?assertEqual(<<"talking">>, receive {beamtalk_output, Ref, T} -> T after 5000 -> none end),
    ?assertMatch([#{status := pass}], receive {ran, Rs} -> Rs after 5000 -> none end),
    Io ! stop.
