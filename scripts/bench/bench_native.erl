%% The native floor of scripts/bench_workspace.py: a plain Erlang node that
%% does what the Python client asks the workspace to do, with nothing of
%% Beamtalk's request path in between.
%%
%% `eval` ships the forms the Beamtalk compiler made for `3 + 4` to the
%% workspace node with erpc, and has them compiled (the evaluator's options),
%% loaded and run there: compile-per-input done by a native peer.  `fetch`
%% has the workspace node build a big term (a 10 MB binary, a 1 000 000
%% element list) and receives it with erpc: the floor of a big result.
%%
%% Run by the benchmark as
%%   erl -sname P -noshell -pa DIR -run bench_native main NODE MODE ARG COUNT
%% It prints one line: the microseconds of every call, space separated.
-module(bench_native).
-export([main/1, remote_eval/2, big/2]).

main([NodeS, Mode, Arg, CountS]) ->
    Node = list_to_atom(NodeS),
    Count = list_to_integer(CountS),
    true = net_kernel:connect_node(Node),
    %% This module on the workspace node, as the client ships its code there.
    {?MODULE, Bin, File} = code:get_object_code(?MODULE),
    {module, ?MODULE} = erpc:call(Node, code, load_binary, [?MODULE, File, Bin]),
    Times = case Mode of
                "eval" ->
                    {ok, FormsBin} = file:read_file(Arg),
                    Forms = binary_to_term(FormsBin),
                    [erpc:call(Node, ?MODULE, remote_eval, [Forms, #{}]) || _ <- lists:seq(1, 10)],
                    [timed(fun() -> 7 = erpc:call(Node, ?MODULE, remote_eval, [Forms, #{}]) end)
                     || _ <- lists:seq(1, Count)];
                "fetch" ->
                    What = list_to_atom(Arg),
                    [timed(fun() -> _ = erpc:call(Node, ?MODULE, big, [What, 10000000]) end)
                     || _ <- lists:seq(1, Count)]
            end,
    io:put_chars([lists:join(" ", [integer_to_list(T) || T <- Times]), "\n"]),
    halt(0).

timed(F) ->
    T0 = erlang:monotonic_time(microsecond),
    F(),
    erlang:monotonic_time(microsecond) - T0.

%% On the workspace node: compile, load and run one input's forms.
remote_eval([{attribute, A, module, _} | Rest], Bindings) ->
    Mod = bench_native_input,
    Opts = beamtalk_eval_jobs:compile_options(),
    {ok, Mod, Bin} = compile:forms([{attribute, A, module, Mod} | Rest], Opts),
    _ = code:purge(Mod),
    {module, Mod} = code:load_binary(Mod, "bench_native", Bin),
    {Value, _} = Mod:eval(Bindings),
    Value.

%% On the workspace node: the big terms of the `10 MB result` line.
%% Built once and kept (the Beamtalk side reads a bound variable).
big(What, Bytes) ->
    Key = {?MODULE, What},
    case persistent_term:get(Key, undefined) of
        undefined ->
            T = case What of
                    string -> binary:copy(<<"x">>, Bytes);
                    list -> lists:seq(1, 1000000)
                end,
            persistent_term:put(Key, T),
            T;
        T -> T
    end.
