%% @doc Which argument of a failed Erlang call was wrong, and why, from
%% OTP's extended error information (EEP 54).
%%
%% Why: `badarg` names no argument, and our own guess (a String where a
%% charlist is wanted) is wrong as often as not: `atom_to_list: "abc"`
%% wants an atom, `ets lookup:` a table that exists.  Since OTP 24 a BIF's
%% stack frame carries `error_info`, and its module's format_error/2 says
%% per argument what was wrong ("not an atom", "the table identifier does
%% not refer to an existing ETS table").  That text goes into the hint,
%% with the value the user passed.
-module(beamtalk_erlang_why).
-export([explain/4]).

-define(SHOWN, 40).

%% @doc `{HintText, [{ArgumentIndex, Why}]}` for the call M:F that raised
%% Reason with Stack, or `none` when the failing frame has no error info.
-spec explain(term(), list(), atom(), atom()) -> {binary(), [{pos_integer(), binary()}]} | none.
explain(Reason, [{M2, F2, Args, Info} | _] = Stack, M, F) when is_list(Args), is_list(Info) ->
    case proplists:get_value(error_info, Info) of
        #{module := Mod} ->
            try Mod:format_error(Reason, Stack) of
                Map when is_map(Map) -> describe(Map, M2, F2, Args, M, F);
                _ -> none
            catch _:_ -> none
            end;
        _ -> none
    end;
explain(_Reason, _Stack, _M, _F) ->
    none.

describe(Map, M2, F2, Args, M, F) ->
    Why = [{N, text(T)} || {N, T} <- lists:sort(maps:to_list(Map)), is_integer(N), N >= 1, N =< length(Args)],
    General = [text(T) || T <- [maps:get(general, Map, undefined)], T =/= undefined],
    case {Why, General} of
        {[], []} -> none;
        _ ->
            Where = case {M2, F2} =:= {M, F} of
                        true -> [];
                        false -> [io_lib:format("In ~ts:~ts/~b: ", [M2, F2, length(Args)])]
                    end,
            Lines = [io_lib:format("Argument ~b (~ts): ~ts.", [N, shown(lists:nth(N, Args)), T])
                     || {N, T} <- Why] ++ [[G, "."] || G <- General],
            {unicode:characters_to_binary([Where, lists:join(" ", Lines)]), Why}
    end.

text(T) ->
    case unicode:characters_to_binary(T) of
        B when is_binary(B) -> B;
        _ -> iolist_to_binary(io_lib:format("~tp", [T]))
    end.

%% The value as Beamtalk prints it, cut short: the hint is one line.
shown(V) ->
    Text = try beamtalk_print:print_string(V) catch _:_ -> <<"?">> end,
    case string:length(Text) > ?SHOWN of
        true -> [string:slice(Text, 0, ?SHOWN - 1), 16#2026];
        false -> Text
    end.
