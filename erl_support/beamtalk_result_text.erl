%% @doc The text of an evaluation's result: its printString, or for a huge
%% value the beginning of it and what was left out,
%% `#(1, 2, ... (5.0 MB, 984 127 more elements))`.
%%
%% Why on the node: printing a million elements takes longer than shipping
%% the value itself, and nobody reads 8 MB at a prompt; the REPL (and an
%% editor on --json) gets about LIMIT bytes (100 kB) at most, plus the
%% element that passes it.  The value is not
%% touched: bound to a name it stays whole for the next input
%% (`xs size`, `xs copyFrom: 1 to: 10`, `File writeAll: ... contents:`).
%%
%% * a String over the limit: its first LIMIT bytes (cut at a character
%%   boundary), quoted, then `... (SIZE, N more bytes)`;
%% * a proper List: elements are printed one by one until the text passes
%%   the limit, then `... (SIZE, N more elements)`, SIZE being the size of
%%   the whole List in Erlang's external term format;
%% * anything else (or a short List with huge elements) is printed whole
%%   and, past the limit, cut: `... (SIZE of the printString, N more bytes)`.
-module(beamtalk_result_text).
-export([text/1, text/2, limit/0]).

-define(LIMIT, 100000).

limit() -> ?LIMIT.

text(V) -> text(V, ?LIMIT).

text(V, Limit) when is_binary(V), byte_size(V) > Limit ->
    Head = utf8_prefix(V, Limit),
    iolist_to_binary([beamtalk_print:print_string(Head), " ... (", size_text(byte_size(V)), ", ",
                      count_text(byte_size(V) - byte_size(Head)), " more bytes)"]);
text([_ | _] = V, Limit) ->
    case list_prefix(V, Limit, 0, []) of
        whole -> cut(beamtalk_print:print_string(V), Limit);
        {Shown, Rest} ->
            iolist_to_binary(["#(", lists:join(", ", lists:reverse(Shown)), ", ... (",
                              size_text(erlang:external_size(V)), ", ",
                              count_text(length(Rest)), " more elements))"])
    end;
text(V, Limit) ->
    cut(beamtalk_print:print_string(V), Limit).

%% The printed elements (reversed) until their text passes Limit, and the
%% elements not printed; `whole` when the list ends first or is improper.
list_prefix([], _Limit, _Size, _Acc) -> whole;
list_prefix([H | T], Limit, Size, Acc) when Size =< Limit ->
    E = beamtalk_print:print_string(H),
    list_prefix(T, Limit, Size + byte_size(E) + 2, [E | Acc]);
list_prefix([_ | _] = Rest, _Limit, _Size, Acc) ->
    case is_proper(Rest) of
        true -> {Acc, Rest};
        false -> whole
    end;
list_prefix(_Improper, _Limit, _Size, _Acc) -> whole.

is_proper(L) ->
    try length(L) of _ -> true
    catch error:badarg -> false
    end.

cut(Text, Limit) when byte_size(Text) > Limit ->
    Head = utf8_prefix(Text, Limit),
    iolist_to_binary([Head, " ... (", size_text(byte_size(Text)), ", ",
                      count_text(byte_size(Text) - byte_size(Head)), " more bytes)"]);
cut(Text, _Limit) -> Text.

%% The first N bytes of B, shortened so no UTF-8 sequence is split.
utf8_prefix(B, N) ->
    utf8_back(B, N, 0).

utf8_back(B, N, Back) when Back < 4, N - Back > 0 ->
    case binary:at(B, N - Back) of
        C when C band 16#C0 =:= 16#80 -> utf8_back(B, N, Back + 1);
        _ -> binary:part(B, 0, N - Back)
    end;
utf8_back(B, N, _) ->
    binary:part(B, 0, N).

size_text(Bytes) when Bytes >= 1000000 ->
    io_lib:format("~.1f MB", [Bytes / 1.0e6]);
size_text(Bytes) when Bytes >= 1000 ->
    io_lib:format("~.1f kB", [Bytes / 1.0e3]);
size_text(Bytes) ->
    [integer_to_list(Bytes), " bytes"].

%% 120431 -> "120 431"
count_text(N) ->
    Digits = integer_to_list(N),
    group(lists:reverse(Digits), []).

group([A, B, C, D | Rest], Acc) -> group([D | Rest], [$\s, C, B, A | Acc]);
group(Rest, Acc) -> lists:reverse(Rest) ++ Acc.
