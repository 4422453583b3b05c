%% @doc JSON (stdlib §9), class side only: `parse:`, `generate:`,
%% `prettyPrint:`.  OTP 25 has no json module, so the codec is here.
%%
%% Mapping: null <-> nil, true/false <-> Booleans, a number without fraction
%% or exponent -> Integer, any other number -> Float, strings <-> Strings
%% (UTF-8 binaries; \uXXXX escapes and surrogate pairs decoded), arrays ->
%% Lists, objects -> Dictionaries with String keys (never atoms: the input may
%% be untrusted and atoms are not collected).  `generate:` also accepts
%% Symbols (as strings), Arrays, Tuples and Sets (as arrays) and Dictionary
%% keys that are Strings, Symbols or Integers; object members are written in
%% the order of their key text, so the output is deterministic.
-module(beamtalk_prim_json).
-export(['class parse:'/2, 'class generate:'/2, 'class prettyPrint:'/2]).
%% Erlang API (used by the eunit suite and anyone who wants the codec).
-export([decode/1, encode/1, encode_pretty/1]).

-define(CK, '$beamtalk_class').

%%% ---------------------------------------------------------------------
%%% Beamtalk entry points

'class parse:'(_Cls, Text) when is_binary(Text) ->
    not_utf8(Text),
    %% A leading byte order mark (an editor's UTF-8 signature) is not part
    %% of the value; RFC 8259 §8.1 lets a parser ignore it.
    Skip = case Text of <<16#EF, 16#BB, 16#BF, _/binary>> -> 3; _ -> 0 end,
    case decode(binary:part(Text, Skip, byte_size(Text) - Skip)) of
        {ok, V} -> V;
        {error, Pos, What} ->
            beamtalk_exception:raise(parse_error, 'JSON', 'parse:',
                                     iolist_to_binary(["JSON parse error at offset ",
                                                       integer_to_binary(char_offset(Text, Skip + Pos)),
                                                       line_column(Text, Skip + Pos),
                                                       ": ", What]),
                                     parse_hint(Text, Skip + Pos))
    end;
'class parse:'(_Cls, Text) ->
    beamtalk_exception:raise(type_error, 'JSON', 'parse:',
                             iolist_to_binary(["JSON parse: expects a String, not ",
                                               article(Text)]), nil).

'class generate:'(_Cls, V) -> checked(fun encode/1, V, 'generate:').

'class prettyPrint:'(_Cls, V) -> checked(fun encode_pretty/1, V, 'prettyPrint:').

checked(F, V, Sel) ->
    case F(V) of
        {ok, Bin} -> Bin;
        {error, {unencodable, X}} ->
            beamtalk_exception:raise(type_error, 'JSON', Sel,
                                     iolist_to_binary(["JSON ", atom_to_binary(Sel),
                                                       " cannot encode ", article(X)]),
                                     <<"JSON encodes nil, Booleans, Numbers, Strings, Symbols, "
                                       "Lists, Arrays, Tuples, Sets and Dictionaries">>);
        {error, {not_utf8, B}} ->
            beamtalk_exception:raise(type_error, 'JSON', Sel,
                                     iolist_to_binary(["JSON ", atom_to_binary(Sel),
                                                       " cannot encode bytes that are not UTF-8 text (",
                                                       integer_to_binary(byte_size(B)), " bytes)"]),
                                     <<"JSON text is UTF-8: decode the bytes first (Erlang unicode characters_to_binary: b with: #latin1)">>);
        {error, {same_key, K, Keys}} ->
            beamtalk_exception:raise(type_error, 'JSON', Sel,
                                     iolist_to_binary(["JSON ", atom_to_binary(Sel),
                                                       " would write the key \"", K, "\" twice (from ",
                                                       lists:join(" and ", [beamtalk_print:print_string(X)
                                                                            || X <- lists:sort(Keys)]),
                                                       ")"]),
                                     <<"Use one spelling per key: all Strings or all Symbols">>);
        {error, {bad_key, K}} ->
            beamtalk_exception:raise(type_error, 'JSON', Sel,
                                     iolist_to_binary(["JSON ", atom_to_binary(Sel),
                                                       " cannot use ", article(K),
                                                       " as an object key"]),
                                     <<"Object keys must be Strings, Symbols or Integers">>)
    end.

article(X) ->
    Name = atom_to_binary(class_name(X)),
    case Name of
        <<C, _/binary>> when C =:= $A; C =:= $E; C =:= $I; C =:= $O; C =:= $U ->
            <<"an ", Name/binary>>;
        _ -> <<"a ", Name/binary>>
    end.

class_name(X) ->
    try beamtalk_send:class_name(X) catch _:_ -> 'Object' end.

%% Bytes that are not UTF-8 (a Latin-1 file read as bytes, a binary from
%% Erlang) are not text: say so rather than report a character that is not
%% there.
not_utf8(Text) ->
    case unicode:characters_to_binary(Text) of
        B when is_binary(B) -> ok;
        {_, Good, _} ->
            N = byte_size(Good),
            <<_:N/binary, Byte, _/binary>> = Text,
            beamtalk_exception:raise(parse_error, 'JSON', 'parse:',
                                     iolist_to_binary(io_lib:format(
                                         "JSON parse: the text is not UTF-8 (byte 0x~2.16.0B "
                                         "at offset ~b)", [Byte, N])),
                                     <<"JSON text is UTF-8: convert the source first "
                                       "(iconv -f latin1 -t utf-8)">>)
    end.

%% A text of several lines (a file) is located by line and column as well,
%% both from 1 and in characters; a one-line text by its offset alone.
line_column(Text, Pos) ->
    Before = binary:part(Text, 0, min(Pos, byte_size(Text))),
    case binary:match(Text, <<"\n">>) of
        nomatch -> [];
        _ ->
            Lines = binary:split(Before, <<"\n">>, [global]),
            Col = char_offset(lists:last(Lines), byte_size(lists:last(Lines))) + 1,
            io_lib:format(" (line ~b, column ~b)", [length(Lines), Col])
    end.

%% `\{` in a Beamtalk string literal keeps its backslash (spec syntax
%% §2.3), so JSON typed at the prompt often starts with one.
parse_hint(Text, Pos) ->
    case Text of
        <<_:Pos/binary, "\\", C, _/binary>> when C =:= ${; C =:= $} ->
            <<"In a Beamtalk string \\{ keeps its backslash: write the brace as "
              "(\"\\{\" drop: 1), e.g. JSON parse: (\"\\{\" drop: 1) ++ \"\"\"a\"\": 1}\"">>;
        _ -> <<"The offset counts characters from 0">>
    end.

char_offset(Text, Pos) ->
    case unicode:characters_to_list(binary:part(Text, 0, Pos)) of
        L when is_list(L) -> length(L);
        _ -> Pos
    end.

%%% ---------------------------------------------------------------------
%%% Decoding: {ok, Value} | {error, BytePos, WhatText}

decode(Bin) when is_binary(Bin) ->
    try
        {V, P1} = value(Bin, ws(Bin, 0)),
        P2 = ws(Bin, P1),
        case P2 < byte_size(Bin) of
            true -> throw({json_error, P2, ["unexpected ", found(Bin, P2),
                                            " after the JSON value"]});
            false -> {ok, V}
        end
    catch throw:{json_error, Pos, What} ->
        {error, Pos, iolist_to_binary(What)}
    end.

err(Bin, P, Expected) ->
    throw({json_error, P, ["expected ", Expected, ", found ", found(Bin, P)]}).

found(Bin, P) when P >= byte_size(Bin) -> "end of input";
found(Bin, P) ->
    case binary:part(Bin, P, byte_size(Bin) - P) of
        <<C/utf8, _/binary>> when C >= 16#20 -> [$', <<C/utf8>>, $'];
        <<C, _/binary>> -> io_lib:format("byte ~b", [C])
    end.

ws(Bin, P) ->
    case Bin of
        <<_:P/binary, C, _/binary>> when C =:= $\s; C =:= $\t; C =:= $\n; C =:= $\r ->
            ws(Bin, P + 1);
        _ -> P
    end.

value(Bin, P) ->
    case Bin of
        <<_:P/binary, ${, _/binary>> -> object(Bin, ws(Bin, P + 1));
        <<_:P/binary, $[, _/binary>> -> array(Bin, ws(Bin, P + 1));
        <<_:P/binary, $", _/binary>> -> string(Bin, P + 1, []);
        <<_:P/binary, "true", _/binary>> -> {true, P + 4};
        <<_:P/binary, "false", _/binary>> -> {false, P + 5};
        <<_:P/binary, "null", _/binary>> -> {nil, P + 4};
        <<_:P/binary, C, _/binary>> when C =:= $-; C >= $0, C =< $9 -> number(Bin, P);
        _ -> err(Bin, P, "a JSON value")
    end.

object(Bin, P) ->
    case Bin of
        <<_:P/binary, $}, _/binary>> -> {#{}, P + 1};
        _ -> members(Bin, P, #{})
    end.

members(Bin, P, Acc) ->
    case Bin of
        <<_:P/binary, $", _/binary>> ->
            {K, P1} = string(Bin, P + 1, []),
            P2 = ws(Bin, P1),
            case Bin of
                <<_:P2/binary, $:, _/binary>> ->
                    {V, P3} = value(Bin, ws(Bin, P2 + 1)),
                    P4 = ws(Bin, P3),
                    Acc1 = Acc#{K => V},
                    case Bin of
                        <<_:P4/binary, $,, _/binary>> -> members(Bin, ws(Bin, P4 + 1), Acc1);
                        <<_:P4/binary, $}, _/binary>> -> {Acc1, P4 + 1};
                        _ -> err(Bin, P4, "',' or '}'")
                    end;
                _ -> err(Bin, P2, "':'")
            end;
        _ when map_size(Acc) =:= 0 -> err(Bin, P, "a string key or '}'");
        _ -> err(Bin, P, "a string key")
    end.

array(Bin, P) ->
    case Bin of
        <<_:P/binary, $], _/binary>> -> {[], P + 1};
        _ -> elements(Bin, P, [])
    end.

elements(Bin, P, Acc) ->
    {V, P1} = value(Bin, P),
    P2 = ws(Bin, P1),
    case Bin of
        <<_:P2/binary, $,, _/binary>> -> elements(Bin, ws(Bin, P2 + 1), [V | Acc]);
        <<_:P2/binary, $], _/binary>> -> {lists:reverse([V | Acc]), P2 + 1};
        _ -> err(Bin, P2, "',' or ']'")
    end.

%% Acc is a reversed list of binaries / code points.
string(Bin, P, Acc) ->
    Run = run_length(Bin, P, 0),
    Acc1 = case Run of 0 -> Acc; _ -> [binary:part(Bin, P, Run) | Acc] end,
    Q = P + Run,
    case Bin of
        <<_:Q/binary, $", _/binary>> ->
            {iolist_to_binary(lists:reverse(Acc1)), Q + 1};
        <<_:Q/binary, $\\, E, _/binary>> ->
            case E of
                $" -> string(Bin, Q + 2, [<<$">> | Acc1]);
                $\\ -> string(Bin, Q + 2, [<<$\\>> | Acc1]);
                $/ -> string(Bin, Q + 2, [<<$/>> | Acc1]);
                $b -> string(Bin, Q + 2, [<<8>> | Acc1]);
                $f -> string(Bin, Q + 2, [<<12>> | Acc1]);
                $n -> string(Bin, Q + 2, [<<10>> | Acc1]);
                $r -> string(Bin, Q + 2, [<<13>> | Acc1]);
                $t -> string(Bin, Q + 2, [<<9>> | Acc1]);
                $u -> unicode_escape(Bin, Q, Acc1);
                _ -> throw({json_error, Q, ["invalid escape ", found(Bin, Q + 1),
                                            " in a string"]})
            end;
        <<_:Q/binary, $\\>> -> err(Bin, Q + 1, "an escape character");
        <<_:Q/binary, C, _/binary>> when C < 16#20 ->
            throw({json_error, Q, ["control character ", integer_to_list(C),
                                   " must be escaped in a string"]});
        <<_:Q/binary>> -> err(Bin, Q, "'\"' to close the string")
    end.

run_length(Bin, P, N) ->
    case Bin of
        <<_:P/binary, C, _/binary>> when C =/= $", C =/= $\\, C >= 16#20 ->
            run_length(Bin, P + 1, N + 1);
        _ -> N
    end.

unicode_escape(Bin, Q, Acc) ->
    H = hex4(Bin, Q + 2),
    if
        H >= 16#D800, H =< 16#DBFF ->
            case Bin of
                <<_:(Q + 6)/binary, "\\u", _/binary>> ->
                    L = hex4(Bin, Q + 8),
                    case L >= 16#DC00 andalso L =< 16#DFFF of
                        true ->
                            C = 16#10000 + ((H - 16#D800) bsl 10) + (L - 16#DC00),
                            string(Bin, Q + 12, [<<C/utf8>> | Acc]);
                        false -> lone(Q)
                    end;
                _ -> lone(Q)
            end;
        H >= 16#DC00, H =< 16#DFFF -> lone(Q);
        true -> string(Bin, Q + 6, [<<H/utf8>> | Acc])
    end.

lone(Q) -> throw({json_error, Q, "unpaired surrogate in a \\u escape"}).

hex4(Bin, P) ->
    case Bin of
        <<_:P/binary, A, B, C, D, _/binary>> ->
            try binary_to_integer(<<A, B, C, D>>, 16) of
                N when A =/= $+, A =/= $- -> N;
                _ -> err(Bin, P, "4 hex digits after \\u")
            catch _:_ -> err(Bin, P, "4 hex digits after \\u")
            end;
        _ -> err(Bin, P, "4 hex digits after \\u")
    end.

number(Bin, P) ->
    P0 = case Bin of <<_:P/binary, $-, _/binary>> -> P + 1; _ -> P end,
    P1 = case Bin of
             <<_:P0/binary, $0, _/binary>> -> P0 + 1;
             <<_:P0/binary, C, _/binary>> when C >= $1, C =< $9 -> digits(Bin, P0 + 1);
             _ -> err(Bin, P0, "a digit")
         end,
    {Frac, P2} = case Bin of
                     <<_:P1/binary, $., _/binary>> ->
                         D = digits(Bin, P1 + 1),
                         D > P1 + 1 orelse err(Bin, P1 + 1, "a digit after '.'"),
                         {binary:part(Bin, P1 + 1, D - P1 - 1), D};
                     _ -> {none, P1}
                 end,
    {Exp, P3} = case Bin of
                    <<_:P2/binary, E, _/binary>> when E =:= $e; E =:= $E ->
                        S = case Bin of
                                <<_:(P2 + 1)/binary, Sg, _/binary>> when Sg =:= $+; Sg =:= $- ->
                                    P2 + 2;
                                _ -> P2 + 1
                            end,
                        D2 = digits(Bin, S),
                        D2 > S orelse err(Bin, S, "a digit in the exponent"),
                        {binary:part(Bin, P2 + 1, D2 - P2 - 1), D2};
                    _ -> {none, P2}
                end,
    IntText = binary:part(Bin, P, P1 - P),
    case {Frac, Exp} of
        {none, none} -> {binary_to_integer(IntText), P3};
        _ ->
            F = case Frac of none -> <<"0">>; _ -> Frac end,
            E1 = case Exp of none -> <<"0">>; _ -> Exp end,
            try binary_to_float(<<IntText/binary, ".", F/binary, "e", E1/binary>>) of
                V -> {V, P3}
            catch _:_ ->
                %% Underflow goes to zero; overflow has no Float.
                case binary_to_integer(strip_plus(E1)) < 0 of
                    true -> {case IntText of <<"-", _/binary>> -> -0.0; _ -> 0.0 end, P3};
                    false -> throw({json_error, P, "number out of Float range"})
                end
            end
    end.

strip_plus(<<"+", R/binary>>) -> R;
strip_plus(R) -> R.

digits(Bin, P) ->
    case Bin of
        <<_:P/binary, C, _/binary>> when C >= $0, C =< $9 -> digits(Bin, P + 1);
        _ -> P
    end.

%%% ---------------------------------------------------------------------
%%% Encoding: {ok, Binary} | {error, {unencodable, Term} | {bad_key, Term}}

encode(V) ->
    try {ok, iolist_to_binary(enc(V, none))}
    catch throw:{json_enc, Why} -> {error, Why}
    end.

encode_pretty(V) ->
    try {ok, iolist_to_binary(enc(V, 0))}
    catch throw:{json_enc, Why} -> {error, Why}
    end.

%% Indent: none (compact) or the current depth.
enc(nil, _) -> <<"null">>;
enc(true, _) -> <<"true">>;
enc(false, _) -> <<"false">>;
enc(I, _) when is_integer(I) -> integer_to_binary(I);
enc(F, _) when is_float(F) -> float_to_binary(F, [short]);
enc(B, _) when is_binary(B) ->
    case unicode:characters_to_binary(B) of
        B -> str(B);
        _ -> throw({json_enc, {not_utf8, B}})
    end;
enc(A, _) when is_atom(A) -> str(atom_to_binary(A));
enc(L, Ind) when is_list(L) -> arr(L, Ind);
enc({beamtalk_object, _, _, _} = X, _) -> throw({json_enc, {unencodable, X}});
enc(T, Ind) when is_tuple(T) -> arr(tuple_to_list(T), Ind);
enc(#{?CK := 'Array', elements := A}, Ind) -> arr(array:to_list(A), Ind);
enc(#{?CK := 'Set', elements := E}, Ind) when is_list(E) -> arr(E, Ind);
enc(#{?CK := _} = X, _) -> throw({json_enc, {unencodable, X}});
enc(M, Ind) when is_map(M) -> obj(M, Ind);
enc(X, _) -> throw({json_enc, {unencodable, X}}).

arr([], _) -> <<"[]">>;
arr(L, none) -> [$[, join([enc(X, none) || X <- L], $,), $]];
arr(L, D) ->
    In = nl(D + 1),
    [$[, In, join([enc(X, D + 1) || X <- L], [$, | In]), nl(D), $]].

obj(M, _) when map_size(M) =:= 0 -> <<"{}">>;
obj(M, Ind) ->
    Pairs = unique_keys(lists:sort([{key(K), V} || {K, V} <- maps:to_list(M)]), M),
    case Ind of
        none ->
            [${, join([[str(K), $:, enc(V, none)] || {K, V} <- Pairs], $,), $}];
        D ->
            In = nl(D + 1),
            [${, In, join([[str(K), <<": ">>, enc(V, D + 1)] || {K, V} <- Pairs], [$, | In]),
             nl(D), $}]
    end.

%% `#{"a" => 1, #a => 2}` would write the member "a" twice.
unique_keys(Pairs, M) ->
    case [K || {{K, _}, {K, _}} <- lists:zip(lists:droplast(Pairs), tl(Pairs))] of
        [] -> Pairs;
        [K | _] -> throw({json_enc, {same_key, K, [X || X <- maps:keys(M), key(X) =:= K]}})
    end.

key(K) when is_binary(K) -> K;
key(nil) -> <<"null">>;                          % as Python's json writes a None key
key(K) when is_atom(K) -> atom_to_binary(K);
key(K) when is_integer(K) -> integer_to_binary(K);
key(K) -> throw({json_enc, {bad_key, K}}).

nl(D) -> [$\n, binary:copy(<<"  ">>, D)].

join([], _) -> [];
join([H | T], Sep) -> [H | [[Sep, X] || X <- T]].

str(B) -> [$", esc(B, 0, B, 0), $"].

%% Copy unescaped runs as sub-binaries.
esc(<<C, R/binary>>, N, B, S) when C >= 16#20, C =/= $", C =/= $\\ -> esc(R, N + 1, B, S);
esc(<<C, R/binary>>, N, B, S) ->
    [binary:part(B, S, N), esc_char(C) | esc(R, 0, B, S + N + 1)];
esc(<<>>, N, B, S) -> [binary:part(B, S, N)].

esc_char($") -> <<"\\\"">>;
esc_char($\\) -> <<"\\\\">>;
esc_char($\n) -> <<"\\n">>;
esc_char($\r) -> <<"\\r">>;
esc_char($\t) -> <<"\\t">>;
esc_char(8) -> <<"\\b">>;
esc_char(12) -> <<"\\f">>;
esc_char(C) -> io_lib:format("\\u~4.16.0B", [C]).
