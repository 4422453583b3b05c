%% Hand-written Erlang doing the same work as the Beamtalk side of
%% scripts/bench_runtime.py, measured in the same run on the same node.
-module(bench_baseline).
-behaviour(gen_server).
-export([get_x/1, direct_loop/2, call_loop/2, sum_loop/1, start_counter/0,
         compile_and_load/1, tc/1]).
-export([init/1, handle_call/3, handle_cast/2]).

%% A "value object" read through a remote call, as a direct-call anchor.
get_x(#{x := X}) -> X.

direct_loop(0, _P) -> ok;
direct_loop(N, P) -> _ = ?MODULE:get_x(P), direct_loop(N - 1, P).

call_loop(0, _Pid) -> ok;
call_loop(N, Pid) -> _ = gen_server:call(Pid, get_value), call_loop(N - 1, Pid).

sum_loop(N) -> sum_loop(1, N, 0).
sum_loop(I, N, Acc) when I =< N -> sum_loop(I + 1, N, Acc + I);
sum_loop(_, _, Acc) -> Acc.

start_counter() -> {ok, Pid} = gen_server:start(?MODULE, 0, []), Pid.
init(N) -> {ok, N}.
handle_call(get_value, _From, N) -> {reply, N, N}.
handle_cast(_, N) -> {noreply, N}.

compile_and_load(Path) ->
    {ok, Mod, Bin} = compile:file(binary_to_list(Path), [binary]),
    _ = code:purge(Mod),
    {module, Mod} = code:load_binary(Mod, binary_to_list(Path), Bin),
    Mod.

%% Microseconds taken by Fun(), best of a few runs.
tc(Fun) ->
    lists:min([element(1, timer:tc(Fun)) || _ <- lists:seq(1, 5)]).
