%% @doc Primitive methods of String: UTF-8 binaries, measured and indexed
%% in grapheme clusters, 1-based (stdlib §4, spec semantics §7).
-module(beamtalk_prim_string).

-compile({no_auto_import, [length/1]}).
-export(['size'/1, 'length'/1, '++'/2, 'asSymbol'/1, 'asAtom'/1, 'asString'/1, 'asCharlist'/1,
         'isEmpty'/1, 'notEmpty'/1, 'isNotEmpty'/1, 'isBlank'/1, 'reversed'/1,
         'reverse'/1, 'asUppercase'/1, 'asLowercase'/1, 'uppercase'/1,
         'lowercase'/1, 'capitalize'/1, 'includesSubstring:'/2, 'startsWith:'/2,
         'endsWith:'/2, 'at:'/2, 'first'/1, 'last'/1, 'do:'/2, 'collect:'/2,
         'select:'/2, 'detect:'/2, 'inject:into:'/3, 'asList'/1, 'trim'/1,
         'trimLeft'/1, 'trimRight'/1, 'split:'/2, 'lines'/1, 'words'/1,
         'asInteger'/1, 'asFloat'/1, 'asNumber'/1, 'indexOf:'/2, 'take:'/2,
         'drop:'/2, 'repeat:'/2, 'replaceAll:with:'/3, 'copyReplaceAll:with:'/3,
         'includes:'/2, '<'/2, '>'/2, '<='/2, '>='/2, 'join:'/2]).
-export(['class withAll:'/2, 'matchesRegex:'/2, 'matchesRegex:options:'/3,
         'firstMatch:'/2, 'allMatches:'/2, 'replaceRegex:with:'/3,
         'replaceAllRegex:with:'/3, 'splitRegex:'/2, 'replaceFirst:with:'/3,
         'splitOn:'/2, 'padLeft:'/2, 'padRight:'/2, 'padLeft:with:'/3,
         'padRight:with:'/3]).

graphemes(S) -> [unicode:characters_to_binary([G]) || G <- string:to_graphemes(S)].

'size'(S) -> graphemes_counted(S, 'size').
'length'(S) -> graphemes_counted(S, 'length').

%% A binary that is not UTF-8 has no graphemes to count: say so, instead
%% of string:length/1's raw {badarg, Bin}.
graphemes_counted(S, Sel) ->
    case plain(S) of
        true -> byte_size(S);          % one grapheme per byte (see plain/1)
        false -> graphemes_counted_slowly(S, Sel)
    end.

graphemes_counted_slowly(S, Sel) ->
    try string:length(S)
    catch error:{badarg, _} ->
            beamtalk_exception:raise(
              type_error, 'String', Sel,
              iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8),
                                "' on String: these ", integer_to_binary(byte_size(S)),
                                " bytes are not UTF-8 text"]),
              <<"Erlang erlang byte_size: aBinary counts its bytes">>)
    end.
'++'(A, B) when is_binary(B) ->
    beamtalk_mem_guard:check_new_binary(byte_size(A) + byte_size(B)),
    <<A/binary, B/binary>>;
'++'(A, B) -> <<A/binary, (beamtalk_print:display_string(B))/binary>>.
'asSymbol'(S) -> 'asAtom'(S).
'asAtom'(S) ->
    case string:length(S) > 255 of
        true ->
            %% the BEAM's atom limit; its system_limit said nothing of it
            beamtalk_exception:raise(runtime_error, 'String', 'asAtom',
                                     iolist_to_binary(["A Symbol has at most 255 characters; this String has ",
                                                       integer_to_binary(string:length(S))]), nil);
        false -> binary_to_atom(S, utf8)
    end.
'asString'(S) -> S.
'isEmpty'(S) -> S =:= <<>>.
'notEmpty'(S) -> S =/= <<>>.
'isNotEmpty'(S) -> S =/= <<>>.
'isBlank'(S) -> 'trim'(S) =:= <<>>.
'reversed'(S) -> unicode:characters_to_binary(string:reverse(S)).
'reverse'(S) -> 'reversed'(S).
'asUppercase'(S) -> string:uppercase(S).
'asLowercase'(S) -> string:lowercase(S).
'uppercase'(S) -> string:uppercase(S).
'lowercase'(S) -> string:lowercase(S).
'capitalize'(<<>>) -> <<>>;
'capitalize'(S) ->
    %% Title case, as Python's capitalize: "ßa" is "Ssa", "ǆ" is "ǅ".
    [H | T] = graphemes(S),
    iolist_to_binary([string:titlecase(H) | T]).

'includesSubstring:'(_S, <<>>) -> true;
'includesSubstring:'(S, Sub) when is_binary(Sub) -> binary:match(S, Sub) =/= nomatch;
'includesSubstring:'(S, Sub) -> type(S, 'includesSubstring:', Sub).
'includes:'(S, Sub) -> 'includesSubstring:'(S, Sub).
'startsWith:'(S, P) when is_binary(P) -> string:prefix(S, P) =/= nomatch;
'startsWith:'(S, P) -> type(S, 'startsWith:', P).
'endsWith:'(S, P) when is_binary(P) ->
    Sz = byte_size(P),
    byte_size(S) >= Sz andalso binary:part(S, byte_size(S) - Sz, Sz) =:= P;
'endsWith:'(S, P) -> type(S, 'endsWith:', P).

%% `at:` looks only as far as the I-th grapheme, without a List of them
%% all (that made each `at:` on a 10 MB String cost seconds and hundreds
%% of MB).  Where the first I+1 bytes are ASCII without CR (CR LF is one
%% grapheme; any other combining mark is not ASCII) the I-th grapheme is
%% the I-th byte; a scan of the prefix for CR or a UTF-8 lead byte
%% (binary:match, about 2 ms per MB) tells.
'at:'(S, I) when is_integer(I), I >= 1, I =< byte_size(S) ->
    Prefix = binary:part(S, 0, min(I + 1, byte_size(S))),
    case binary:match(Prefix, not_plain_ascii()) of
        nomatch -> binary:copy(binary:part(S, I - 1, 1));
        _ -> nth_grapheme(S, I, I, S)
    end;
'at:'(S, I) when is_integer(I) ->
    beamtalk_rt:out_of_bounds('String', 'at:', I, graphemes_counted(S, 'at:'));
'at:'(S, I) -> type(S, 'at:', I).
not_plain_ascii() ->
    case persistent_term:get({?MODULE, not_plain_ascii}, undefined) of
        undefined ->
            P = binary:compile_pattern([<<"\r">> | [<<B>> || B <- lists:seq(16#C0, 16#FF)]]),
            persistent_term:put({?MODULE, not_plain_ascii}, P),
            P;
        P -> P
    end.

%% The N-th grapheme of Rest (a suffix of S, the I-th grapheme of S).
nth_grapheme(S, I, N, Rest) ->
    case string:next_grapheme(Rest) of
        [G | _] when N =:= 1 -> unicode:characters_to_binary([G]);
        [_ | More] -> nth_grapheme(S, I, N - 1, More);
        _ -> beamtalk_rt:out_of_bounds('String', 'at:', I, graphemes_counted(S, 'at:'))
    end.

'first'(<<>>) -> empty('first');
'first'(S) -> 'at:'(S, 1).
'last'(<<>>) -> empty('last');
'last'(S) -> 'at:'(S, string:length(S)).

empty(Sel) ->
    beamtalk_exception:raise(index_out_of_bounds, 'String', Sel,
                             iolist_to_binary(["Cannot take '", atom_to_binary(Sel, utf8),
                                               "' of an empty String"]), nil).

'do:'(S, B) -> lists:foreach(fun(G) -> beamtalk_block:value(B, [G]) end, graphemes(S)), nil.
'collect:'(S, B) -> [beamtalk_block:value(B, [G]) || G <- graphemes(S)].
'select:'(S, B) ->
    iolist_to_binary([G || G <- graphemes(S), beamtalk_block:test(B, [G], 'String', 'select:')]).
'detect:'(S, B) -> beamtalk_prim_list:'detect:'(graphemes(S), B).
'inject:into:'(S, Acc, B) -> beamtalk_prim_list:'inject:into:'(graphemes(S), Acc, B).
'asList'(S) -> graphemes(S).
'asCharlist'(S) -> unicode:characters_to_list(S).
%% Unicode's white space (EM SPACE, NO-BREAK SPACE, ideographic space…),
%% as Python's strip(); string:trim/1 alone knows only ASCII's and a few.
'trim'(S) -> string:trim(S, both, beamtalk_unicode:whitespace()).
'trimLeft'(S) -> string:trim(S, leading, beamtalk_unicode:whitespace()).
'trimRight'(S) -> string:trim(S, trailing, beamtalk_unicode:whitespace()).
'split:'(S, Sep) when is_binary(Sep), Sep =/= <<>> ->
    case plain(S) of
        true -> binary:split(S, Sep, [global]);
        false -> string:split(S, Sep, all)
    end;
'split:'(S, Sep) -> type(S, 'split:', Sep).
%% Lines without their line ends; a final line end ends the last line
%% rather than starting an empty one, but empty lines elsewhere are kept.
%% A CR before the LF is part of the line end (Windows text), as `File
%% lines:` has it; the byte "\n" never occurs inside another UTF-8
%% character, so the split is on bytes.
'lines'(S) ->
    case lists:reverse(binary:split(S, <<"\n">>, [global])) of
        [<<>> | Ended] -> lists:reverse([drop_cr(L) || L <- Ended]);
        [Last | Ended] -> lists:reverse([Last | [drop_cr(L) || L <- Ended]])
    end.

drop_cr(L) ->
    case byte_size(L) of
        N when N > 0, binary_part(L, N - 1, 1) =:= <<"\r">> -> binary_part(L, 0, N - 1);
        _ -> L
    end.
%% A CR LF pair is one grapheme, so it is a separator of its own: without
%% it a text with Windows line ends ran the words of two lines together.
'words'(S) ->
    case plain(S) of
        true -> binary:split(S, [<<" ">>, <<"\t">>, <<"\n">>, <<"\v">>, <<"\f">>], [global, trim_all]);
        false -> string:lexemes(S, beamtalk_unicode:whitespace())
    end.

%% A text of ASCII without CR: each grapheme is one byte, so splitting its
%% bytes (binary:split, in C) answers what the grapheme-aware string
%% functions do, 10-20x sooner on a big input (a 1 MB puzzle text).
%% Eight bytes at a time for the high bits, and CR by binary:match (in C).
plain(S) -> ascii(S) andalso binary:match(S, <<"\r">>) =:= nomatch.

ascii(<<W:64, R/binary>>) when W band 16#8080808080808080 =:= 0 -> ascii(R);
ascii(<<C, R/binary>>) when C < 128 -> ascii(R);
ascii(<<>>) -> true;
ascii(_) -> false.

'asInteger'(S) ->
    T = string:trim(S),
    try binary_to_integer(T) catch _:_ -> radix_integer(T) end.

%% `"16rFF"`: the radix form of an Integer literal (spec syntax 2.2), as
%% Pharo's asNumber reads it; the way to read text in another base
%% (`("16r" ++ hex) asInteger`).  A base outside 2..36 or a digit the
%% base lacks answers nil, as any other text that is not a number.
radix_integer(T) ->
    case re:run(T, <<"^(-?)([0-9]+)r([0-9A-Za-z]+)$">>, [{capture, all_but_first, binary}]) of
        {match, [Sign, B, Digits]} ->
            Base = binary_to_integer(B),
            try Base >= 2 andalso Base =< 36 andalso binary_to_integer(Digits, Base) of
                false -> nil;
                N when Sign =:= <<"-">> -> -N;
                N -> N
            catch _:_ -> nil
            end;
        _ -> nil
    end.
'asFloat'(S) ->
    T = string:trim(S),
    try binary_to_float(T)
    catch _:_ ->
            try float(binary_to_integer(T))
            catch _:_ -> exponent_float(T)
            end
    end.

%% `1e3`, `2E-2`, `.5`, `-.5`, `5.`: decimal texts Python's float() and C's
%% strtod read but binary_to_float/1 refuses (it wants digits on both sides
%% of a dot); the same text with the missing `0`s added.
exponent_float(T) ->
    Re = <<"^([+-]?)([0-9]*)(?:\\.([0-9]*))?([eE][+-]?[0-9]+)?$">>,
    case re:run(T, Re, [{capture, all_but_first, binary}]) of
        {match, [Sign, Int, Frac | Exp]} when Int =/= <<>>; Frac =/= <<>> ->
            Text = <<Sign/binary, (zero(Int))/binary, ".", (zero(Frac))/binary, (iolist_to_binary(Exp))/binary>>,
            try binary_to_float(Text) catch _:_ -> nil end;
        _ -> nil
    end.

zero(<<>>) -> <<"0">>;
zero(Digits) -> Digits.

'asNumber'(S) ->
    case 'asInteger'(S) of
        nil -> 'asFloat'(S);
        N -> N
    end.

'indexOf:'(S, Sub) when is_binary(Sub) ->
    case string:find(S, Sub) of
        nomatch -> nil;
        Rest -> string:length(S) - string:length(Rest) + 1
    end;
'indexOf:'(S, Sub) -> type(S, 'indexOf:', Sub).
'take:'(S, N) when is_integer(N) -> unicode:characters_to_binary(string:slice(S, 0, max(N, 0))).
'drop:'(S, N) when is_integer(N) -> unicode:characters_to_binary(string:slice(S, max(N, 0))).
'repeat:'(S, N) when is_integer(N), N >= 0 -> binary:copy(S, N).
'replaceAll:with:'(S, A, B) when is_binary(A), A =/= <<>>, is_binary(B) ->
    case plain(S) of
        true -> binary:replace(S, A, B, [global]);
        false -> iolist_to_binary(string:replace(S, A, B, all))
    end;
'replaceAll:with:'(S, <<>>, B) when is_binary(B) -> type(S, 'replaceAll:with:', <<>>);
%% Pharo's `replaceAll: $- with: $+`: name the character that was meant.
'replaceAll:with:'(S, A, _B) when is_integer(A) -> type(S, 'replaceAll:with:', A);
'replaceAll:with:'(S, A, B) when is_binary(A), is_integer(B) -> type(S, 'replaceAll:with:', B).
'copyReplaceAll:with:'(S, A, B) -> 'replaceAll:with:'(S, A, B).
'join:'(Sep, L) when is_list(L) ->
    iolist_to_binary(lists:join(Sep, [beamtalk_print:display_string(E) || E <- L])).

'<'(A, B) -> A < B.
'>'(A, B) -> A > B.
'<='(A, B) -> A =< B.
'>='(A, B) -> A >= B.

%% `"abc" indexOf: $b`: a character literal is its code point (spec §7), so
%% the hint "this one is 98 (an Integer)" left a Pharo hand puzzled; name
%% the character and the one-character String that was meant.
type(S, Sel, Arg) when is_integer(Arg), Arg >= 33, Arg =< 16#10FFFF, Sel =/= 'at:',
                       Sel =/= 'take:', Sel =/= 'drop:', Sel =/= 'repeat:' ->
    Char = unicode:characters_to_binary([Arg]),
    Quoted = beamtalk_print:print_string(Char),
    beamtalk_exception:raise(type_error, beamtalk_send:class_name(S), Sel,
                             iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8), "' on String"]),
                             iolist_to_binary(["'", atom_to_binary(Sel, utf8), "' expects a String argument; this one is ",
                                               integer_to_binary(Arg), ", the code point of $", Char,
                                               " (a character literal is an Integer): pass the String ", Quoted]));
type(S, Sel, Arg) ->
    Expected = case {Sel, Arg} of
                   {'at:', _} -> "an Integer";
                   {_, <<>>} -> "a non-empty String";   % split: "", replaceAll: "" with:
                   _ -> "a String"
               end,
    beamtalk_rt:type_error(beamtalk_send:class_name(S), Sel, Arg, Expected,
                           iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8),
                                             "' on String"])).

%%% ---------------------------------------------------------------------
%%% Building, padding, plain replacement
%%% ---------------------------------------------------------------------

%% @doc `String withAll: #("a", "b")`: the strings joined; code points
%% (a Character is its code point) are their characters, so a charlist that
%% Erlang answered, deep ones too (`io_lib:format`), is its String:
%% `String withAll: #(104, 105)` is "hi".  Each Integer is a code point, never
%% a byte, so the answer is always text.
'class withAll:'(_Cls, L) when is_list(L) ->
    case lists:all(fun is_binary/1, L) of
        true -> iolist_to_binary(L);
        false ->
            case catch unicode:characters_to_binary(L) of
                B when is_binary(B) -> B;
                _ -> not_text(L, 1)
            end
    end.

%% The first element of a List `withAll:` cannot take, named with its index:
%% the List itself is what the method takes, so "does not accept #(104, -1)
%% (a List)" pointed at the wrong thing.
not_text([E | Rest], I) ->
    case catch unicode:characters_to_binary([E]) of
        B when is_binary(B) -> not_text(Rest, I + 1);
        _ ->
            Why = case is_integer(E) of
                      true -> ", not a code point (an Integer in 0..1114111 outside the "
                              "surrogates 55296..57343)";
                      false -> ""
                  end,
            beamtalk_exception:raise(type_error, 'String class', 'withAll:',
                                     <<"Type error in 'withAll:' on String class">>,
                                     iolist_to_binary(["'String withAll:' takes Strings and code points; element ",
                                                       integer_to_binary(I), " is ",
                                                       beamtalk_rt:arg_text(E), Why]))
    end.

'replaceFirst:with:'(S, Old, New) when is_binary(Old), Old =/= <<>>, is_binary(New) ->
    binary:replace(S, Old, New);
'replaceFirst:with:'(S, <<>>, New) when is_binary(New) -> type(S, 'replaceFirst:with:', <<>>);
'replaceFirst:with:'(S, Old, _New) when is_integer(Old) -> type(S, 'replaceFirst:with:', Old);
'replaceFirst:with:'(S, Old, New) when is_binary(Old), is_integer(New) -> type(S, 'replaceFirst:with:', New).

%% @doc Split on every occurrence of Sep, keeping empty parts.
'splitOn:'(S, <<>>) -> graphemes(S);
'splitOn:'(S, Sep) when is_binary(Sep) -> binary:split(S, Sep, [global]).

'padLeft:'(S, W) when is_integer(W) -> 'padLeft:with:'(S, W, <<" ">>).
'padRight:'(S, W) when is_integer(W) -> 'padRight:with:'(S, W, <<" ">>).
'padLeft:with:'(S, W, P) when is_integer(W), is_binary(P) -> iolist_to_binary([padding(S, W, P), S]).
'padRight:with:'(S, W, P) when is_integer(W), is_binary(P) -> iolist_to_binary([S, padding(S, W, P)]).

padding(S, W, P) when is_integer(W) ->
    N = W - string:length(S),
    if N =< 0; P =:= <<>> -> <<>>;
       true -> string:slice(binary:copy(P, N), 0, N)
    end.

%%% ---------------------------------------------------------------------
%%% Regular expressions (PCRE through `re`); a pattern is a String or a Regex
%%% ---------------------------------------------------------------------

%% A pattern is a String or a Regex value; the regex primitives' guards
%% say so, and beamtalk_bad_arg turns another argument into a TypeError.
-define(IS_PATTERN(P), (is_binary(P) orelse (is_map(P) andalso map_get('$beamtalk_class', P) =:= 'Regex'))).

pattern(#{'$beamtalk_class' := 'Regex', source := Src} = R) -> {Src, maps:get(options, R, [])};
pattern(P) when is_binary(P) -> {P, []}.

%% Compiled patterns are kept in the calling process (at most ?RE_CACHE of
%% them; the lot is dropped when full): a regex sent in a loop, `w
%% replaceAllRegex: "[,.]" with: ""` over 150 000 words, compiled its
%% pattern on every send.
-define(RE_CACHE, 32).
compiled(P, Extra) ->
    {Src, Opts} = pattern(P),
    Key = {'$bt_re', Src, Opts, Extra},
    case get(Key) of
        undefined ->
            MP = compile_pattern(Src, Opts ++ Extra),
            N = case get('$bt_re_count') of undefined -> 0; C -> C end,
            case N >= ?RE_CACHE of
                true ->
                    [erase(K) || {{'$bt_re', _, _, _} = K, _} <- get()],
                    put('$bt_re_count', 1);
                false -> put('$bt_re_count', N + 1)
            end,
            put(Key, MP),
            MP;
        MP -> MP
    end.

compile_pattern(Src, Opts) ->
    case re:compile(Src, [unicode, ucp | [regex_option(O) || O <- Opts]]) of
        {ok, MP} -> MP;
        {error, {Why, At}} ->
            beamtalk_exception:raise(regex_error, 'String', undefined,
                                     iolist_to_binary(io_lib:format("Invalid regular expression at ~b: ~ts",
                                                                    [At, Why])), nil)
    end.

'matchesRegex:'(S, P) when ?IS_PATTERN(P) -> re:run(S, compiled(P, []), [{capture, none}]) =:= match.

'matchesRegex:options:'(S, P, Opts) when ?IS_PATTERN(P), is_list(Opts) ->
    re:run(S, compiled(P, Opts), [{capture, none}]) =:= match.

regex_option(caseInsensitive) -> caseless;
regex_option(ignoreCase) -> caseless;
regex_option(multiline) -> multiline;
regex_option(dotall) -> dotall;
regex_option(extended) -> extended;
regex_option(O) when O =:= caseless; O =:= ungreedy; O =:= anchored; O =:= unicode; O =:= ucp ->
    O;
regex_option(O) ->
    beamtalk_exception:raise(regex_error, 'Regex', undefined,
                             iolist_to_binary(["Unknown regex option ", beamtalk_print:print_string(O)]),
                             <<"the options are #caseless (or #caseInsensitive, #ignoreCase), #multiline, "
                               "#dotall, #extended, #ungreedy, #anchored">>).

'firstMatch:'(S, P) when ?IS_PATTERN(P) ->
    case re:run(S, compiled(P, []), [{capture, first, binary}]) of
        {match, [M]} -> M;
        nomatch -> nil
    end.

'allMatches:'(S, P) when ?IS_PATTERN(P) ->
    case re:run(S, compiled(P, []), [global, {capture, first, binary}]) of
        {match, Ms} -> [M || [M] <- Ms];
        nomatch -> []
    end.

'replaceRegex:with:'(S, P, R) when ?IS_PATTERN(P), is_binary(R) -> re:replace(S, compiled(P, []), escape(R), [{return, binary}]).
'replaceAllRegex:with:'(S, P, R) when ?IS_PATTERN(P), is_binary(R) -> re:replace(S, compiled(P, []), escape(R), [global, {return, binary}]).
'splitRegex:'(S, P) when ?IS_PATTERN(P) -> re:split(S, compiled(P, []), [{return, binary}]).

%% The replacement is literal text: `&` and `\\` mean nothing special.
escape(R) -> binary:replace(binary:replace(R, <<"\\">>, <<"\\\\">>, [global]), <<"&">>, <<"\\&">>, [global]).
