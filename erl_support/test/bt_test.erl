%% @doc Helpers shared by the runtime's eunit suites: boot, sends written
%% the way the code generator will write them, and error inspection.
-module(bt_test).

-export([boot/0, s/3, s/2, g/1, cls/1, ex/1, ex_class/1, ex_kind/1, ex_message/1,
         ex_hint/1, ps/1, counter_desc/1, counter_desc/2, define_point/1]).

boot() ->
    ok = beamtalk_bootstrap:boot(),
    ok.

%% `R sel: args`
s(R, Sel, Args) -> beamtalk_send:send(R, Sel, Args).
s(R, Sel) -> beamtalk_send:send(R, Sel, []).

%% A class reference `Name`.
g(Name) -> beamtalk_class:global(Name).
cls(Name) -> beamtalk_class:class_object(Name).

%% The exception object raised by F (fails when F returns).
ex(F) ->
    try F() of
        V -> erlang:error({expected_exception, V})
    catch
        C:R:S -> beamtalk_errors:wrap(C, R, S)
    end.

ex_class(F) -> maps:get('$beamtalk_class', ex(F)).
ex_kind(F) -> maps:get(kind, maps:get(error, ex(F))).
ex_message(F) -> maps:get(message, maps:get(error, ex(F))).
ex_hint(F) -> maps:get(hint, maps:get(error, ex(F))).

ps(V) -> beamtalk_print:print_string(V).

%% An actor class `Name` with field `value` (default 0) in the actor
%% calling convention, as the code generator emits it.
counter_desc(Name) ->
    counter_desc(Name, #{}).

counter_desc(Name, Extra) ->
    Methods = #{increment => {a, fun(_Self, S) ->
                                         V = maps:get(value, S) + 1,
                                         {V, S#{value => V}}
                                 end},
                value => {a, fun(_Self, S) -> {maps:get(value, S), S} end},
                'value:' => {a, fun(_Self, S, V) -> {V, S#{value => V}} end},
                'add:' => {a, fun(_Self, S, N) ->
                                      V = maps:get(value, S) + N,
                                      {V, S#{value => V}}
                              end},
                %% self send: `incrementTwice => self increment. self increment`
                incrementTwice => {a, fun(Self, S) ->
                                              {_, S1} = beamtalk_send:self_send(Self, S, increment, []),
                                              beamtalk_send:self_send(Self, S1, increment, [])
                                      end},
                %% an error after a mutation: the state change is dropped
                failAfterBump => {a, fun(Self, S) ->
                                             _ = S#{value => -1},
                                             beamtalk_exception:user_error(Self, <<"boom">>)
                                     end},
                divideBy => {a, fun(_Self, S) -> {1 / maps:get(value, S), S} end},
                'sleep:' => {a, fun(_Self, S, Ms) -> timer:sleep(Ms), {ok, S} end}},
    maps:merge(#{name => Name, superclass => 'Actor',
                 fields => [{value, fun() -> 0 end}],
                 methods => Methods}, Extra).

%% `Value subclass: Name` with fields x (default 0) and y (default 0) and
%% a method `sum`.
define_point(Name) ->
    beamtalk_class:define(#{name => Name, superclass => 'Value',
                            fields => [{x, fun() -> 0 end}, {y, fun() -> 0 end}],
                            methods => #{sum => {v, fun(Self) ->
                                                            maps:get(x, Self) + maps:get(y, Self)
                                                    end}}}).
