#!/usr/bin/env escript
%%! -noshell
%% Dispatch cost of the Beamtalk runtime next to its plain-Erlang anchor,
%% measured in the same run (DESIGN §4: ratios, never pass/fail timings).
%%
%%   scripts/bench_dispatch.erl [Iterations]
%%
%% 1. value-object send: `beamtalk_send:send(P, sum, [])` on a Value subclass
%%    whose method reads two fields and adds them, versus a direct call of an
%%    Erlang function doing the same work.            target: <= 3x
%% 2. actor send: `beamtalk_send:send(Counter, value, [])` (gen_server call
%%    to an actor whose method answers a field), versus a raw gen_server:call
%%    to a minimal gen_server doing the same work.     target: <= 1.25x
%%
%% The runtime is compiled from erl_support/ into a temporary directory.
%% Anchor and runtime rounds alternate (so both see the same machine load)
%% and each side keeps its best round, to keep scheduler noise out of the
%% ratio.
-module(bench_dispatch).
-mode(compile).
-behaviour(gen_server).

-export([main/1, sum/1, init/1, handle_call/3, handle_cast/2]).

-define(ROUNDS, 21).

main(Args) ->
    N = case Args of
            [A | _] -> list_to_integer(A);
            [] -> 200000
        end,
    Out = load_runtime(),
    ok = beamtalk_bootstrap:boot(),
    value_send(N),
    actor_send(max(N div 10, 1000)),
    _ = file:del_dir_r(Out),
    halt(0).

load_runtime() ->
    Root = filename:dirname(filename:dirname(filename:absname(escript:script_name()))),
    Src = filename:join(Root, "erl_support"),
    Out = filename:join(os:getenv("TMPDIR", "/tmp"),
                        "bt-bench-" ++ os:getpid()),
    ok = filelib:ensure_dir(filename:join(Out, "x")),
    [case compile:file(F, [{outdir, Out}, return_errors]) of
         {ok, _} -> ok;
         Err -> io:format("compile ~ts: ~p~n", [F, Err]), halt(1)
     end || F <- filelib:wildcard(filename:join(Src, "*.erl"))],
    true = code:add_patha(Out),
    [{module, _} = code:ensure_loaded(list_to_atom(filename:basename(F, ".erl")))
     || F <- filelib:wildcard(filename:join(Src, "*.erl"))],
    Out.

%%% 1. value objects

sum(P) -> maps:get(x, P) + maps:get(y, P).

value_send(N) ->
    beamtalk_class:define(#{name => 'BenchPoint', superclass => 'Value',
                            fields => [{x, fun() -> 0 end}, {y, fun() -> 0 end}],
                            methods => #{sum => {v, fun(Self) -> maps:get(x, Self) + maps:get(y, Self) end}}}),
    P = beamtalk_send:send(beamtalk_class:global('BenchPoint'), 'x:y:', [3, 4]),
    7 = beamtalk_send:send(P, sum, []),
    {Direct, Send} = best(fun() -> direct_loop(N, P, 0) end, fun() -> send_loop(N, P, 0) end),
    report("value-object send vs direct call", N, Direct, Send, 3.0).

direct_loop(0, _P, Acc) -> Acc;
direct_loop(N, P, Acc) -> direct_loop(N - 1, P, Acc + ?MODULE:sum(P)).

send_loop(0, _P, Acc) -> Acc;
send_loop(N, P, Acc) -> send_loop(N - 1, P, Acc + beamtalk_send:send(P, sum, [])).

%%% 2. actors

actor_send(N) ->
    beamtalk_class:define(#{name => 'BenchCounter', superclass => 'Actor',
                            fields => [{value, fun() -> 1 end}],
                            methods => #{value => {a, fun(_Self, S) -> {maps:get(value, S), S} end}}}),
    C = beamtalk_send:send(beamtalk_class:global('BenchCounter'), spawn, []),
    {ok, Raw} = gen_server:start(?MODULE, #{value => 1}, []),
    1 = beamtalk_send:send(C, value, []),
    1 = gen_server:call(Raw, value),
    {Direct, Send} = best(fun() -> raw_loop(N, Raw, 0) end, fun() -> actor_loop(N, C, 0) end),
    report("actor send vs raw gen_server:call", N, Direct, Send, 1.25),
    beamtalk_send:send(C, stop, []),
    gen_server:stop(Raw).

raw_loop(0, _, Acc) -> Acc;
raw_loop(N, Pid, Acc) -> raw_loop(N - 1, Pid, Acc + gen_server:call(Pid, value)).

actor_loop(0, _, Acc) -> Acc;
actor_loop(N, C, Acc) -> actor_loop(N - 1, C, Acc + beamtalk_send:send(C, value, [])).

init(State) -> {ok, State}.
handle_call(value, _From, State) -> {reply, maps:get(value, State), State}.
handle_cast(_, State) -> {noreply, State}.

%%% measuring

%% Alternate rounds of the anchor A and the runtime B; best of each.
best(A, B) ->
    A(), B(),                               % warm up
    Rounds = [{time(A), time(B)} || _ <- lists:seq(1, ?ROUNDS)],
    {lists:min([TA || {TA, _} <- Rounds]), lists:min([TB || {_, TB} <- Rounds])}.

time(F) ->
    T0 = erlang:monotonic_time(nanosecond),
    F(),
    erlang:monotonic_time(nanosecond) - T0.

report(What, N, Anchor, Ours, Target) ->
    Ratio = Ours / Anchor,
    io:format("~ts (~b iterations, best of ~b):~n"
              "  anchor  ~8.1f ns/op~n"
              "  runtime ~8.1f ns/op~n"
              "  ratio   ~8.2fx   (target <= ~.2fx: ~ts)~n",
              [What, N, ?ROUNDS, Anchor / N, Ours / N, Ratio, Target,
               case Ratio =< Target of true -> "met"; false -> "NOT met" end]).
