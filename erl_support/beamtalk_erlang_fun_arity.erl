%% @doc Which arity an Erlang function wanted of the block it refused.
%%
%% Why: `Erlang lists map: [:a :b | a] with: xs` fails with a bare
%% `function_clause`, because lists:map/2 guards its fun with
%% `is_function(F, 1)` and no clause is left.  The guard is in the module's
%% debug info (OTP ships it), so on such a failure, and only then, the
%% clauses of the function that raised it are read for `is_function(F, N)`
%% on the parameter that got the block, and the hint says which N.
-module(beamtalk_erlang_fun_arity).
-export([explain/1]).

%% @doc A hint for a `function_clause` whose failing frame (the top of
%% Stack) was given a fun of an arity its guards do not accept, or `none`.
-spec explain(list()) -> binary() | none.
explain([{M, F, Args, _} | _]) when is_atom(M), is_atom(F), is_list(Args) ->
    Funs = [{I, A} || {I, A} <- lists:zip(lists:seq(1, length(Args)), Args), is_function(A)],
    case Funs of
        [] -> none;
        _ ->
            try wanted(M, F, length(Args)) of
                Clauses -> describe(M, F, length(Args), Funs, Clauses)
            catch _:_ -> none
            end
    end;
explain(_) ->
    none.

describe(_M, _F, _N, [], _Clauses) ->
    none;
describe(M, F, N, [{I, Fun} | More], Clauses) ->
    {arity, Has} = erlang:fun_info(Fun, arity),
    case lists:usort([A || Wants <- Clauses, {I1, A} <- Wants, I1 =:= I]) of
        [Want] when Want =/= Has ->
            Params = lists:join(" ", [[$:, P] || P <- lists:sublist("abcdefghij", Want)]),
            Shape = case Want of
                        0 -> "[...]";
                        _ -> ["[", Params, " | ...]"]
                    end,
            unicode:characters_to_binary(
              io_lib:format("Argument ~b is a block that takes ~b argument~ts; ~ts:~ts/~b wants one that takes ~b: ~ts.",
                            [I, Has, plural(Has), M, F, N, Want, Shape]));
        _ -> describe(M, F, N, More, Clauses)
    end.

%% Per clause of M:F/N, the `{ParameterIndex, Arity}` its guards demand.
wanted(M, F, N) ->
    {ok, {M, [{debug_info, {debug_info_v1, Backend, Data}}]}} =
        beam_lib:chunks(code:which(M), [debug_info]),
    {ok, Forms} = Backend:debug_info(erlang_v1, M, Data, []),
    [Clauses] = [Cs || {function, _, F1, N1, Cs} <- Forms, F1 =:= F, N1 =:= N],
    [clause_wants(Params, Guards) || {clause, _, Params, Guards, _} <- Clauses].

clause_wants(Params, Guards) ->
    Vars = [{V, I} || {{var, _, V}, I} <- lists:zip(Params, lists:seq(1, length(Params))), V =/= '_'],
    [{I, A} || G <- Guards, Test <- G, {V, A} <- is_function_test(Test), {V1, I} <- Vars, V1 =:= V].

is_function_test({call, _, {atom, _, is_function}, [{var, _, V}, {integer, _, A}]}) -> [{V, A}];
is_function_test({call, _, {remote, _, {atom, _, erlang}, {atom, _, is_function}}, [{var, _, V}, {integer, _, A}]}) ->
    [{V, A}];
is_function_test(_) -> [].

plural(1) -> "";
plural(_) -> "s".
