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
                Map when is_map(Map) -> describe(corrected(Map, Reason, Args), M2, F2, Args, M, F);
                _ -> none
            catch _:_ -> none
            end;
        #{erl_function_arg_num := N} when is_integer(N) ->
            %% crypto's NIFs: the argument number in the frame, the reason
            %% in the reason itself, `{badarg, {"hash.c", 108}, "Bad digest type"}`.
            case Reason of
                {_Tag, {_File, _Line}, Why} when is_list(Why), Why =/= [] ->
                    case io_lib:printable_unicode_list(Why) of
                        true -> describe(#{N => Why}, M2, F2, Args, M, F);
                        false -> none
                    end;
                _ -> none
            end;
        _ -> none
    end;
explain(_Reason, _Stack, _M, _F) ->
    none.

%% OTP 25 says of maps:update(K, V, Map) with K missing "argument 3: not
%% a map" although Map is one: a claim the arguments refute is dropped, and
%% for a `{badkey, K}` the key is named instead.
corrected(Map, Reason, Args) ->
    maps:fold(fun(N, T, Acc) when is_integer(N), N >= 1, N =< length(Args) ->
                      case text(T) =:= <<"not a map">> andalso is_map(lists:nth(N, Args)) of
                          false -> Acc#{N => T};
                          true ->
                              case {Reason, index_of(Reason, Args)} of
                                  {{badkey, _}, I} when is_integer(I) -> Acc#{I => <<"not present in map">>};
                                  _ -> Acc
                              end
                      end;
                 (K, T, Acc) -> Acc#{K => T}
              end, #{}, Map).

index_of({badkey, K}, Args) ->
    case [I || {I, A} <- lists:zip(lists:seq(1, length(Args)), Args), A =:= K] of
        [I | _] -> I;
        [] -> none
    end.

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

%% One line: the hint is a `Field: value` line (re's text has a line
%% break between "could not parse regular expression" and the cause).
text(T) ->
    B = case unicode:characters_to_binary(T) of
            B0 when is_binary(B0) -> B0;
            _ -> iolist_to_binary(io_lib:format("~tp", [T]))
        end,
    Lines = [L || L <- binary:split(string:trim(B), [<<"\r\n">>, <<"\n">>], [global]), L =/= <<>>],
    iolist_to_binary(lists:join(<<": ">>, Lines)).

%% The value as Beamtalk prints it, cut short: the hint is one line.
shown(V) ->
    Text = try beamtalk_print:print_string(V) catch _:_ -> <<"?">> end,
    case string:length(Text) > ?SHOWN of
        true -> [string:slice(Text, 0, ?SHOWN - 1), 16#2026];
        false -> Text
    end.
