%% @doc Primitive methods of TestResult (spec stdlib §11): the answer of
%% `TestRunner runAll`, `run:` and `run:method:`, a tagged map built by
%% `beamtalk_test_runner:result/2`.  `failed` counts every test that did not
%% pass (failures and errors), `errors` the errors among them; `failures`
%% and `results` are Lists of Dictionaries
%% `#{#class => #FooTest, #test => #testBar, #status => #fail, #message => "..."}`.
-module(beamtalk_prim_test_result).

-export(['passed'/1, 'failed'/1, 'errors'/1, 'total'/1, 'duration'/1,
         'failures'/1, 'results'/1, 'hasPassed'/1, 'summary'/1, 'report'/1,
         'printString'/1, 'displayString'/1]).

'passed'(R) -> maps:get(passed, R, 0).
'failed'(R) -> maps:get(failed, R, 0).
'errors'(R) -> maps:get(errors, R, 0).
'total'(R) -> maps:get(total, R, 0).
'duration'(R) -> maps:get(duration, R, 0.0).
'failures'(R) -> maps:get(failures, R, []).
'results'(R) -> maps:get(results, R, []).
'hasPassed'(R) -> 'failed'(R) =:= 0.

%% @doc `N tests, P passed (0.1s)` / `N tests, P passed, F failed (0.1s)`.
'summary'(R) ->
    [Head | _] = binary:split('report'(R), <<"\n">>),
    Head.

%% @doc The summary followed by one block per failure (as `runAll` prints).
'report'(R) ->
    Results = [M#{time_us => 0} || M <- 'results'(R)],
    beamtalk_test_runner:report(Results, round('duration'(R) * 1.0e6)).

'printString'(R) -> beamtalk_print:print_string(R).
'displayString'(R) -> beamtalk_print:print_string(R).
