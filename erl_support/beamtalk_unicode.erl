%% @doc Unicode character classes the text primitives share: which code
%% points are white space, letters or cased. OTP 25's `string` module knows
%% only Pattern_White_Space (no EM SPACE, no ideographic space) and has no
%% general categories, so a Python user's `"\u3000x".strip()` or
%% `"é".isalpha()` came out differently here.
-module(beamtalk_unicode).

-export([whitespace/0, is_whitespace/1, is_letter/1, is_upper/1, is_lower/1]).

%% @doc The separators `trim`, `isBlank` and `words` use, as `string`'s
%% grapheme list: Unicode's White_Space property (what Python's
%% `str.isspace` and Elixir's `String.trim` go by), CR LF being one
%% grapheme of its own.
whitespace() ->
    [[$\r, $\n] | white_space_code_points()].

white_space_code_points() ->
    [9, 10, 11, 12, 13, 32, 16#85, 16#A0, 16#1680 | lists:seq(16#2000, 16#200A)]
        ++ [16#2028, 16#2029, 16#202F, 16#205F, 16#3000].

is_whitespace(N) when is_integer(N) -> lists:member(N, white_space_code_points());
is_whitespace(_) -> false.

%% @doc General category L (any letter), Lu and Ll, read by PCRE with
%% Unicode properties; a number that is not a code point is none of them.
is_letter(N) when is_integer(N), N >= $a, N =< $z; is_integer(N), N >= $A, N =< $Z -> true;
is_letter(N) when is_integer(N), N >= 0, N < 128 -> false;
is_letter(N) -> has_property(N, letter, <<"^\\p{L}$">>).

is_upper(N) when is_integer(N), N >= 0, N < 128 -> N >= $A andalso N =< $Z;
is_upper(N) -> has_property(N, upper, <<"^\\p{Lu}$">>).

is_lower(N) when is_integer(N), N >= 0, N < 128 -> N >= $a andalso N =< $z;
is_lower(N) -> has_property(N, lower, <<"^\\p{Ll}$">>).

has_property(N, Name, Source) when is_integer(N), N >= 0, N =< 16#10FFFF,
                                   not (N >= 16#D800 andalso N =< 16#DFFF) ->
    re:run(<<N/utf8>>, compiled(Name, Source), [{capture, none}]) =:= match;
has_property(_, _, _) -> false.

compiled(Name, Source) ->
    Key = {?MODULE, Name},
    case persistent_term:get(Key, undefined) of
        undefined ->
            {ok, MP} = re:compile(Source, [unicode, ucp]),
            persistent_term:put(Key, MP),
            MP;
        MP -> MP
    end.
