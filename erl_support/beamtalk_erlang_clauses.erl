%% @doc What the clauses of an Erlang function wanted of the arguments it
%% refused with `function_clause`.
%%
%% Why: the reason names no argument.  `Erlang lists map: [:a :b | a] with:
%% xs` fails because lists:map/2 guards its fun with `is_function(F, 1)`;
%% `Erlang calendar date_to_gregorian_days: #(2024, 2, 28)` because its
%% clause takes `{Y, M, D}` (Beamtalk has no tuple literal, so a List is
%% what one writes first).  Clause heads and guards are in the module's
%% debug info (OTP ships it), so on such a failure, and only then, the
%% clauses of the function that raised it are read.
-module(beamtalk_erlang_clauses).
-export([explain/1, tuple_wanted/1]).

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

%% @doc The argument of the failing frame (the top of Stack) that is a List
%% where every clause of the function matches a tuple of that size, or
%% `none`.
-spec tuple_wanted(list()) -> {ok, list()} | none.
tuple_wanted([{M, F, Args, _} | _]) when is_atom(M), is_atom(F), is_list(Args) ->
    try clauses(M, F, length(Args)) of
        Clauses ->
            Heads = [Params || {clause, _, Params, _, _} <- Clauses],
            Lists = [{I, A} || {I, A} <- lists:zip(lists:seq(1, length(Args)), Args), is_list(A)],
            case [A || {I, A} <- Lists, Heads =/= [],
                       lists:all(fun(Ps) -> tuple_of(lists:nth(I, Ps), A) end, Heads)] of
                [A | _] -> {ok, A};
                [] -> none
            end
    catch _:_ -> none
    end;
tuple_wanted(_) ->
    none.

tuple_of({tuple, _, Es}, A) -> length(Es) =:= length(A);
tuple_of({match, _, P1, P2}, A) -> tuple_of(P1, A) orelse tuple_of(P2, A);
tuple_of(_, _) -> false.

%% Per clause of M:F/N, the `{ParameterIndex, Arity}` its guards demand.
wanted(M, F, N) ->
    [clause_wants(Params, Guards) || {clause, _, Params, Guards, _} <- clauses(M, F, N)].

clauses(M, F, N) ->
    {ok, {M, [{debug_info, {debug_info_v1, Backend, Data}}]}} =
        beam_lib:chunks(code:which(M), [debug_info]),
    {ok, Forms} = Backend:debug_info(erlang_v1, M, Data, []),
    [Clauses] = [Cs || {function, _, F1, N1, Cs} <- Forms, F1 =:= F, N1 =:= N],
    Clauses.

clause_wants(Params, Guards) ->
    Vars = [{V, I} || {{var, _, V}, I} <- lists:zip(Params, lists:seq(1, length(Params))), V =/= '_'],
    [{I, A} || G <- Guards, Test <- G, {V, A} <- is_function_test(Test), {V1, I} <- Vars, V1 =:= V].

is_function_test({call, _, {atom, _, is_function}, [{var, _, V}, {integer, _, A}]}) -> [{V, A}];
is_function_test({call, _, {remote, _, {atom, _, erlang}, {atom, _, is_function}}, [{var, _, V}, {integer, _, A}]}) ->
    [{V, A}];
is_function_test(_) -> [].

plural(1) -> "";
plural(_) -> "s".
