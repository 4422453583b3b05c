%% Exceptions (spec semantics §5 and this project's Pharo-style handler
%% protocol): hierarchy matching, ensure/ifCurtailed on every exit path,
%% retry, return:, pass, resume:, signal/signal:, errors across actors,
%% non-local returns passing through.
-module(beamtalk_exception_tests).
-include("bt_eunit.hrl").

-import(bt_test, [s/2, s/3, g/1, ex/1, ex_message/1, ex_kind/1, ex_class/1, ex_hint/1, ps/1]).
-import(beamtalk_exception, [on_do/3, ensure/2, if_curtailed/2]).

exception_test_() ->
    {setup, fun() ->
                    bt_test:boot(),
                    beamtalk_class:define(#{name => 'MyError', superclass => 'Error'}),
                    beamtalk_class:define(#{name => 'MySubError', superclass => 'MyError'}),
                    beamtalk_class:define(#{name => 'Warning', superclass => 'Exception'}),
                    beamtalk_class:define(bt_test:counter_desc('Counter'))
            end,
     fun(_) -> ok end,
     [fun handler_value_is_the_value/0,
      fun body_value_when_no_error/0,
      fun handler_arity_zero_or_one/0,
      fun hierarchy_matching/0,
      fun non_matching_propagates/0,
      fun nil_and_non_class_filters_catch_everything/0,
      fun filter_lists/0,
      fun user_subclasses/0,
      fun raw_beam_errors_are_wrapped/0,
      fun exits_and_throws/0,
      fun exception_protocol/0,
      fun signal_and_signal_colon/0,
      fun resignal_in_handler/0,
      fun class_side_signal/0,
      fun retry/0,
      fun retry_of_unwound_error/0,
      fun return_colon/0,
      fun pass_to_outer_handler/0,
      fun pass_without_outer_handler_is_unhandled/0,
      fun pass_of_unwound_error/0,
      fun resume/0,
      fun resume_through_pass/0,
      fun resume_of_non_resumable/0,
      fun handler_protocol_outside_handler/0,
      fun error_inside_handler_goes_outward/0,
      fun signal_inside_handler_skips_own_handler/0,
      fun handler_stack_is_restored/0,
      fun ensure_on_every_exit_path/0,
      fun ensure_runs_before_outer_handler/0,
      fun if_curtailed_only_on_abnormal_exit/0,
      fun nonlocal_return_passes_through/0,
      fun errors_cross_actor_boundaries/0,
      fun signal_in_actor_is_caught_by_caller/0,
      fun handlers_inside_actors/0,
      fun unhandled_signal_in_repl_format/0,
      fun user_error_and_friends/0,
      fun no_match/0,
      fun raise_5/0,
      fun block_on_do_fallbacks/0]}.

%% helpers
raise_my(Text) -> s(s(g('MyError'), new), 'signal:', [Text]).
boom() -> 1 / zero().
zero() -> 0.

handler_value_is_the_value() ->
    ?assertEqual(42, on_do(fun() -> boom() end, g('Error'), fun(_E) -> 42 end)),
    ?assertEqual(<<"boom">>, on_do(fun() -> raise_my(<<"boom">>) end, g('Error'),
                                   fun(E) -> s(E, messageText) end)).

body_value_when_no_error() ->
    ?assertEqual(7, on_do(fun() -> 7 end, g('Error'), fun(_) -> 0 end)).

handler_arity_zero_or_one() ->
    ?assertEqual(42, on_do(fun() -> boom() end, g('Exception'), fun() -> 42 end)),
    ?assertEqual(arity_mismatch, ex_kind(fun() -> on_do(fun() -> boom() end, g('Exception'),
                                                         fun(_, _) -> 42 end) end)).

hierarchy_matching() ->
    Caught = fun(Body, Filter) -> on_do(Body, g(Filter), fun(_) -> caught end) end,
    DNU = fun() -> s(42, foo) end,
    Type = fun() -> beamtalk_exception:raise(type_error, 'X', undefined, <<"t">>, nil) end,
    Inst = fun() -> s(g('Integer'), new) end,
    ?assertEqual(caught, Caught(DNU, 'RuntimeError')),
    ?assertEqual(caught, Caught(DNU, 'Error')),
    ?assertEqual(caught, Caught(DNU, 'Exception')),
    ?assertEqual(caught, Caught(Type, 'TypeError')),
    ?assertEqual(caught, Caught(Type, 'Error')),
    ?assertEqual(caught, Caught(Inst, 'InstantiationError')),
    ?assertEqual(caught, Caught(Inst, 'Error')),
    ?assertEqual('TypeError', ex_class(fun() -> Caught(Type, 'RuntimeError') end)),
    ?assertEqual('RuntimeError', ex_class(fun() -> Caught(DNU, 'TypeError') end)),
    ?assertEqual('InstantiationError', ex_class(fun() -> Caught(Inst, 'RuntimeError') end)).

non_matching_propagates() ->
    R = on_do(fun() -> on_do(fun() -> s(42, foo) end, g('TypeError'), fun(_) -> inner end) end,
              g('RuntimeError'), fun(_) -> outer end),
    ?assertEqual(outer, R).

nil_and_non_class_filters_catch_everything() ->
    ?assertEqual(any, on_do(fun() -> boom() end, nil, fun(_) -> any end)),
    ?assertEqual(any, on_do(fun() -> raise_my(<<"x">>) end, nil, fun(_) -> any end)),
    ?assertEqual(any, on_do(fun() -> exit(bye) end, 42, fun(_) -> any end)).

filter_lists() ->
    ?assertEqual(c, on_do(fun() -> s(42, foo) end, [g('TypeError'), g('RuntimeError')], fun(_) -> c end)).

user_subclasses() ->
    ?assertEqual(c, on_do(fun() -> raise_my(<<"x">>) end, g('MyError'), fun(_) -> c end)),
    ?assertEqual(c, on_do(fun() -> s(s(g('MySubError'), new), signal) end, g('MyError'), fun(_) -> c end)),
    ?assertEqual(c, on_do(fun() -> raise_my(<<"x">>) end, g('Error'), fun(_) -> c end)),
    ?assertEqual('MyError', ex_class(fun() -> on_do(fun() -> raise_my(<<"x">>) end, g('MySubError'),
                                                     fun(_) -> c end) end)),
    ?assertEqual('MyError', ex_class(fun() -> on_do(fun() -> raise_my(<<"x">>) end, g('TypeError'),
                                                     fun(_) -> c end) end)),
    E = on_do(fun() -> raise_my(<<"x">>) end, g('Error'), fun(Ex) -> Ex end),
    ?assertEqual(g('MyError'), s(E, class)),
    ?assertEqual(<<"x">>, ps(E)).

raw_beam_errors_are_wrapped() ->
    E = on_do(fun() -> boom() end, g('Error'), fun(Ex) -> Ex end),
    ?assertEqual(g('RuntimeError'), s(E, class)),
    ?assertEqual(runtime_error, s(E, kind)),
    ?assertEqual(<<"badarith">>, s(E, messageText)),
    ?assertEqual(nil, s(E, hint)),
    ?assertEqual(nil, s(E, errorClass)),
    Two = fun(A, B) -> A + B end,
    ?assertEqual({arity_mismatch, <<"Wrong number of arguments: block expects 2 but was called with 1">>},
                 on_do(fun() -> Two(1) end, g('Error'), fun(Ex) -> {s(Ex, kind), s(Ex, messageText)} end)),
    ?assertEqual({arity_mismatch, <<"Wrong number of arguments: block expects 2 but was called with 1">>},
                 on_do(fun() -> beamtalk_block:value(Two, [1]) end, g('Error'),
                       fun(Ex) -> {s(Ex, kind), s(Ex, messageText)} end)).

exits_and_throws() ->
    ?assertEqual('ExitError', on_do(fun() -> exit(bye) end, g('ExitError'), fun(E) -> maps:get('$beamtalk_class', E) end)),
    ?assertEqual('ThrowError', on_do(fun() -> throw(ball) end, g('BEAMError'), fun(E) -> maps:get('$beamtalk_class', E) end)),
    ?assertEqual(<<"ball">>, on_do(fun() -> throw(ball) end, g('ThrowError'), fun(E) -> s(E, messageText) end)).

exception_protocol() ->
    E = on_do(fun() -> s(42, foo) end, g('Error'), fun(Ex) -> Ex end),
    ?assertEqual(<<"Integer does not understand 'foo'">>, s(E, message)),
    ?assertEqual(<<"Integer does not understand 'foo'">>, s(E, messageText)),
    ?assertEqual(<<"Integer does not understand 'foo'">>, s(E, description)),
    ?assertEqual(<<"Integer does not understand 'foo'">>, s(E, printString)),
    ?assertEqual(<<"Integer does not understand 'foo'">>, ps(E)),
    ?assertEqual(does_not_understand, s(E, kind)),
    ?assertEqual(<<"Check spelling or use 'respondsTo:' to verify method exists">>, s(E, hint)),
    ?assertEqual(foo, s(E, selector)),
    ?assertEqual('Integer', s(E, errorClass)),
    ?assertEqual(g('RuntimeError'), s(E, class)),
    ?assertEqual(does_not_understand, ex_kind(fun() -> s(E, frobnicate) end)),
    ?assertEqual(<<"MyError">>, ps(s(g('MyError'), new))),
    ?assertEqual(<<"MyError">>, s(s(g('MyError'), new), messageText)),
    ?assertEqual(<<"later">>, s(s(s(g('MyError'), new), 'messageText:', [<<"later">>]), messageText)).

signal_and_signal_colon() ->
    F = fun() -> s(s(g('MyError'), new), signal) end,
    ?assertEqual('MyError', ex_class(F)),
    ?assertEqual(signal, ex_kind(F)),
    ?assertEqual(<<"MyError">>, ex_message(F)),
    G = fun() -> s(s(g('Error'), new), 'signal:', [<<"custom">>]) end,
    ?assertEqual('Error', ex_class(G)),
    ?assertEqual(<<"custom">>, ex_message(G)),
    ?assertEqual('ExitError', ex_class(fun() -> s(s(g('ExitError'), new), 'signal:', [<<"x">>]) end)),
    %% errorClass is the signalling class
    ?assertEqual('MyError', maps:get(class, maps:get(error, ex(F)))),
    %% no '$bt_searched' mark escapes
    ?assertEqual(['$beamtalk_class', error], lists:sort(maps:keys(maps:remove(stacktrace, ex(F))))),
    %% the frames where it was raised are kept for stackTrace
    ?assert(is_list(maps:get(stacktrace, ex(F)))).


resignal_in_handler() ->
    %% re-raising a caught exception with signal / signal:
    Outer = on_do(fun() ->
                          on_do(fun() -> s(42, foo) end, g('Error'), fun(E) -> s(E, signal) end)
                  end, g('Error'), fun(E) -> s(E, messageText) end),
    ?assertEqual(<<"Integer does not understand 'foo'">>, Outer),
    Outer2 = on_do(fun() ->
                           on_do(fun() -> s(42, foo) end, g('Error'), fun(E) -> s(E, 'signal:', [<<"again">>]) end)
                   end, g('Error'), fun(E) -> {maps:get('$beamtalk_class', E), s(E, messageText)} end),
    ?assertEqual({'RuntimeError', <<"again">>}, Outer2).

class_side_signal() ->
    ?assertEqual(<<"cls">>, on_do(fun() -> s(g('MyError'), 'signal:', [<<"cls">>]) end, g('MyError'),
                                  fun(E) -> s(E, messageText) end)),
    ?assertEqual(<<"MyError">>, on_do(fun() -> s(g('MyError'), signal) end, g('MyError'),
                                      fun(E) -> s(E, messageText) end)).

retry() ->
    put(tries, 0),
    R = on_do(fun() ->
                      N = get(tries) + 1, put(tries, N),
                      case N < 3 of true -> raise_my(<<"again">>); false -> N end
              end, g('MyError'), fun(E) -> s(E, retry) end),
    ?assertEqual(3, R),
    ?assertEqual(3, get(tries)).

retry_of_unwound_error() ->
    put(tries2, 0),
    R = on_do(fun() ->
                      N = get(tries2) + 1, put(tries2, N),
                      case N < 4 of true -> boom(); false -> done end
              end, g('Error'), fun(E) -> s(E, retry) end),
    ?assertEqual(done, R),
    ?assertEqual(4, get(tries2)).

return_colon() ->
    ?assertEqual(5, on_do(fun() -> raise_my(<<"x">>), never end, g('MyError'),
                          fun(E) -> s(E, 'return:', [5]), not_reached end)),
    ?assertEqual(6, on_do(fun() -> boom() end, g('Error'),
                          fun(E) -> s(E, 'return:', [6]), not_reached end)),
    ?assertEqual(nil, on_do(fun() -> boom() end, g('Error'), fun(E) -> s(E, return) end)).

pass_to_outer_handler() ->
    R = on_do(fun() ->
                      on_do(fun() -> raise_my(<<"p">>) end, g('MyError'),
                            fun(E) -> put(inner_ran, true), s(E, pass), not_reached end)
              end, g('Error'), fun(E) -> {outer, s(E, messageText)} end),
    ?assertEqual({outer, <<"p">>}, R),
    ?assertEqual(true, get(inner_ran)).

pass_without_outer_handler_is_unhandled() ->
    F = fun() -> on_do(fun() -> raise_my(<<"lonely">>) end, g('MyError'), fun(E) -> s(E, pass) end) end,
    ?assertEqual('MyError', ex_class(F)),
    ?assertEqual(<<"lonely">>, ex_message(F)).

pass_of_unwound_error() ->
    R = on_do(fun() ->
                      on_do(fun() -> s(42, foo) end, g('Error'), fun(E) -> s(E, pass) end)
              end, g('RuntimeError'), fun(E) -> {outer, s(E, selector)} end),
    ?assertEqual({outer, foo}, R).

resume() ->
    %% the signal expression answers the resumption value; the body goes on
    R = on_do(fun() -> V = s(s(g('Warning'), new), 'signal:', [<<"w">>]), {continued, V} end,
              g('Warning'), fun(E) -> s(E, 'resume:', [5]) end),
    ?assertEqual({continued, 5}, R),
    R2 = on_do(fun() -> V = s(s(g('MyError'), new), signal), {continued, V} end,
               g('MyError'), fun(E) -> s(E, resume) end),
    ?assertEqual({continued, nil}, R2),
    ?assertEqual(true, on_do(fun() -> raise_my(<<"r">>) end, g('MyError'), fun(E) -> s(E, isResumable) end)),
    ?assertEqual(false, on_do(fun() -> boom() end, g('Error'), fun(E) -> s(E, isResumable) end)).

resume_through_pass() ->
    R = on_do(fun() ->
                      on_do(fun() -> {inside, raise_my(<<"x">>)} end, g('MyError'), fun(E) -> s(E, pass) end)
              end, g('Error'), fun(E) -> s(E, 'resume:', [7]) end),
    ?assertEqual({inside, 7}, R).

resume_of_non_resumable() ->
    F = fun() -> on_do(fun() -> boom() end, g('Error'), fun(E) -> s(E, 'resume:', [1]) end) end,
    ?assertEqual(<<"Cannot resume: badarith is not resumable">>, ex_message(F)),
    ?assertMatch(<<"Only exceptions raised with signal", _/binary>>, ex_hint(F)).

handler_protocol_outside_handler() ->
    E = on_do(fun() -> raise_my(<<"x">>) end, g('MyError'), fun(Ex) -> Ex end),
    ?assertMatch(<<"Cannot send 'retry' to an exception outside its handler">>,
                 ex_message(fun() -> s(E, retry) end)),
    ?assertMatch(<<"Cannot send 'resume:' to an exception outside its handler">>,
                 ex_message(fun() -> s(E, 'resume:', [1]) end)),
    ?assertMatch(<<"Cannot send 'return:' to an exception outside its handler">>,
                 ex_message(fun() -> s(E, 'return:', [1]) end)).

error_inside_handler_goes_outward() ->
    %% the failing handler's own on:do: does not catch its error; the outer one does
    R = on_do(fun() ->
                      on_do(fun() -> raise_my(<<"first">>) end, g('Error'),
                            fun(_) -> s(42, secondError) end)
              end, g('Error'), fun(E) -> {outer, s(E, selector)} end),
    ?assertEqual({outer, secondError}, R),
    %% same for an unwound error
    R2 = on_do(fun() ->
                       on_do(fun() -> boom() end, g('Error'), fun(_) -> s(42, secondError) end)
               end, g('Error'), fun(E) -> {outer, s(E, selector)} end),
    ?assertEqual({outer, secondError}, R2),
    %% and with nothing outside, the handler's error is what escapes
    ?assertEqual(<<"Integer does not understand 'secondError'">>,
                 ex_message(fun() -> on_do(fun() -> raise_my(<<"first">>) end, g('Error'),
                                           fun(_) -> s(42, secondError) end) end)).

signal_inside_handler_skips_own_handler() ->
    put(count, 0),
    R = on_do(fun() ->
                      on_do(fun() -> raise_my(<<"a">>) end, g('MyError'),
                            fun(_) -> put(count, get(count) + 1), raise_my(<<"b">>) end)
              end, g('MyError'), fun(E) -> s(E, messageText) end),
    ?assertEqual(<<"b">>, R),
    ?assertEqual(1, get(count)).

handler_stack_is_restored() ->
    ?assertEqual(undefined, get('$bt_handlers')),
    _ = on_do(fun() -> raise_my(<<"x">>) end, g('MyError'), fun(_) -> ok end),
    _ = on_do(fun() -> boom() end, g('Error'), fun(_) -> ok end),
    _ = (catch on_do(fun() -> boom() end, g('TypeError'), fun(_) -> ok end)),
    _ = (catch on_do(fun() -> raise_my(<<"x">>) end, g('TypeError'), fun(_) -> ok end)),
    _ = (catch on_do(fun() -> throw({'$bt_nlr', make_ref(), 1}) end, nil, fun(_) -> ok end)),
    ?assertEqual(undefined, get('$bt_handlers')),
    ?assertEqual(undefined, get('$bt_active_handlers')).

ensure_on_every_exit_path() ->
    Ran = fun(Tag) -> fun() -> put(Tag, true) end end,
    %% normal completion: the body's value
    ?assertEqual(1, ensure(fun() -> 1 end, Ran(e1))),
    ?assertEqual(true, get(e1)),
    %% error
    ?assertError(badarith, ensure(fun() -> boom() end, Ran(e2))),
    ?assertEqual(true, get(e2)),
    %% signal (unhandled)
    ?assertEqual(<<"s">>, ex_message(fun() -> ensure(fun() -> raise_my(<<"s">>) end, Ran(e3)) end)),
    ?assertEqual(true, get(e3)),
    %% exit and throw
    ?assertEqual(caught, catch_exit(fun() -> ensure(fun() -> exit(bye) end, Ran(e4)) end)),
    ?assertEqual(true, get(e4)),
    ?assertEqual(ball, catch ensure(fun() -> throw(ball) end, Ran(e5))),
    ?assertEqual(true, get(e5)),
    %% non-local return
    Token = make_ref(),
    ?assertEqual(home, try ensure(fun() -> throw({'$bt_nlr', Token, home}) end, Ran(e6))
                       catch throw:{'$bt_nlr', Token, V} -> V end),
    ?assertEqual(true, get(e6)),
    %% a handler's return: / retry unwinding through it
    ?assertEqual(9, on_do(fun() -> ensure(fun() -> raise_my(<<"r">>) end, Ran(e7)) end, g('MyError'),
                          fun(E) -> s(E, 'return:', [9]) end)),
    ?assertEqual(true, get(e7)),
    %% resumption does not unwind: cleanup runs once, at the end
    put(e8, 0),
    ?assertEqual({done, 3}, on_do(fun() ->
                                          ensure(fun() -> {done, raise_my(<<"r">>)} end,
                                                 fun() -> put(e8, get(e8) + 1) end)
                                  end, g('MyError'), fun(E) -> s(E, 'resume:', [3]) end)),
    ?assertEqual(1, get(e8)).

catch_exit(F) ->
    try F() catch exit:_ -> caught end.

ensure_runs_before_outer_handler() ->
    put(order, []),
    Log = fun(X) -> put(order, get(order) ++ [X]) end,
    on_do(fun() -> ensure(fun() -> boom() end, fun() -> Log(cleanup) end) end,
          g('Error'), fun(_) -> Log(handler) end),
    ?assertEqual([cleanup, handler], get(order)).

if_curtailed_only_on_abnormal_exit() ->
    put(c1, false),
    ?assertEqual(1, if_curtailed(fun() -> 1 end, fun() -> put(c1, true) end)),
    ?assertEqual(false, get(c1)),
    ?assertError(badarith, if_curtailed(fun() -> boom() end, fun() -> put(c1, true) end)),
    ?assertEqual(true, get(c1)),
    put(c2, false),
    Token = make_ref(),
    ?assertEqual(v, try if_curtailed(fun() -> throw({'$bt_nlr', Token, v}) end, fun() -> put(c2, true) end)
                    catch throw:{'$bt_nlr', Token, V} -> V end),
    ?assertEqual(true, get(c2)).

nonlocal_return_passes_through() ->
    Token = make_ref(),
    %% on:do: with a catch-all filter must not catch `^v` from a block
    R = try on_do(fun() -> throw({'$bt_nlr', Token, early}) end, nil, fun(_) -> wrong end)
        catch throw:{'$bt_nlr', Token, V} -> V end,
    ?assertEqual(early, R),
    %% nor from a handler running at a signal point
    R2 = try on_do(fun() -> raise_my(<<"x">>) end, g('MyError'),
                   fun(_) -> throw({'$bt_nlr', Token, from_handler}) end)
         catch throw:{'$bt_nlr', Token, V2} -> V2 end,
    ?assertEqual(from_handler, R2),
    ?assertEqual(undefined, get('$bt_handlers')).

errors_cross_actor_boundaries() ->
    beamtalk_class:define(#{name => 'Raiser', superclass => 'Actor',
                            methods => #{raiseMine => {a, fun(_Self, _S) -> raise_my(<<"from actor">>) end},
                                         dnu => {a, fun(_Self, _S) -> s(42, foo) end},
                                         ok => {a, fun(_Self, S) -> {fine, S} end}}}),
    A = s(g('Raiser'), spawn),
    %% the original class survives the trip and is matched by the caller's handler
    ?assertEqual({'MyError', <<"from actor">>},
                 on_do(fun() -> s(A, raiseMine) end, g('MyError'),
                       fun(E) -> {maps:get('$beamtalk_class', E), s(E, messageText)} end)),
    ?assertEqual(foo, on_do(fun() -> s(A, dnu) end, g('RuntimeError'), fun(E) -> s(E, selector) end)),
    ?assertEqual('MyError', ex_class(fun() -> s(A, raiseMine) end)),
    ?assertEqual(fine, s(A, ok)),
    %% retry across the boundary re-sends
    put(att, 0),
    ?assertEqual(fine, on_do(fun() ->
                                     put(att, get(att) + 1),
                                     case get(att) of 1 -> s(A, raiseMine); _ -> s(A, ok) end
                             end, g('MyError'), fun(E) -> s(E, retry) end)),
    s(A, stop).

signal_in_actor_is_caught_by_caller() ->
    %% a signal unhandled inside the actor cannot be resumed from the caller
    beamtalk_class:define(#{name => 'Signaller', superclass => 'Actor',
                            methods => #{go => {a, fun(_Self, S) -> {raise_my(<<"sig">>), S} end}}}),
    A = s(g('Signaller'), spawn),
    ?assertEqual(false, on_do(fun() -> s(A, go) end, g('MyError'), fun(E) -> s(E, isResumable) end)),
    ?assertMatch(<<"Cannot resume", _/binary>>,
                 ex_message(fun() -> on_do(fun() -> s(A, go) end, g('MyError'),
                                           fun(E) -> s(E, 'resume:', [1]) end) end)),
    s(A, stop).

handlers_inside_actors() ->
    beamtalk_class:define(#{name => 'Careful', superclass => 'Actor',
                            fields => [{errors, fun() -> 0 end}],
                            methods => #{attempt => {a, fun(_Self, S) ->
                                                            R = on_do(fun() -> {raise_my(<<"x">>), resumed} end,
                                                                      g('MyError'), fun(E) -> s(E, 'resume:', [ok]) end),
                                                            {R, S#{errors => maps:get(errors, S) + 1}}
                                                    end},
                                         errors => {a, fun(_Self, S) -> {maps:get(errors, S), S} end}}}),
    A = s(g('Careful'), spawn),
    ?assertEqual({ok, resumed}, s(A, attempt)),
    ?assertEqual(1, s(A, errors)),
    s(A, stop).

unhandled_signal_in_repl_format() ->
    E = ex(fun() -> raise_my(<<"shown">>) end),
    ?assertEqual(<<"ERROR: #MyError\n  Message: shown">>, beamtalk_errors:format(E)).

user_error_and_friends() ->
    F = fun() -> s(42, 'error:', [<<"bad">>]) end,
    ?assertEqual('Error', ex_class(F)),
    ?assertEqual(user_error, ex_kind(F)),
    ?assertEqual(<<"bad">>, ex_message(F)),
    ?assertEqual('Integer', maps:get(class, maps:get(error, ex(F)))),
    bt_test:define_point('Point'),
    ?assertEqual('Point', maps:get(class, maps:get(error, ex(fun() -> beamtalk_exception:user_error(s(g('Point'), new), <<"m">>) end)))),
    ?assertEqual(<<"This method is abstract and must be overridden by a subclass">>,
                 ex_message(fun() -> s(42, subclassResponsibility) end)),
    ?assertEqual(<<"Method not yet implemented">>, ex_message(fun() -> s(42, notImplemented) end)),
    ?assertEqual(<<"42">>, ex_message(fun() -> beamtalk_exception:user_error(x, 42) end)).

no_match() ->
    F = fun() -> beamtalk_exception:no_match(42) end,
    ?assertEqual('RuntimeError', ex_class(F)),
    ?assertEqual(<<"No match arm matched 42">>, ex_message(F)).

raise_5() ->
    F = fun() -> beamtalk_exception:raise(immutable_value, 'Point', 'x:', <<"m">>, <<"h">>) end,
    ?assertEqual('RuntimeError', ex_class(F)),
    ?assertEqual(<<"h">>, ex_hint(F)),
    ?assertEqual('TypeError', ex_class(fun() -> beamtalk_exception:raise(type_error, x, y, <<"m">>, nil) end)),
    ?assertEqual('InstantiationError',
                 ex_class(fun() -> beamtalk_exception:raise(instantiation_error, x, y, <<"m">>, nil) end)),
    ?assertEqual('Error', ex_class(fun() -> beamtalk_exception:raise(something_else, x, y, <<"m">>, nil) end)).

block_on_do_fallbacks() ->
    Body = fun() -> boom() end,
    ?assertEqual(h, s(Body, 'on:do:', [g('Error'), fun(_) -> h end])),
    put(bc, 0),
    ?assertEqual(1, s(fun() -> 1 end, 'ensure:', [fun() -> put(bc, 1) end])),
    ?assertEqual(1, get(bc)),
    ?assertEqual(2, s(fun() -> 2 end, 'ifCurtailed:', [fun() -> put(bc, 2) end])),
    ?assertEqual(1, get(bc)).
