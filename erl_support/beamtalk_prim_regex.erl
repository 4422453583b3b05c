%% @doc Regex (stdlib §4): a compiled-on-use PCRE pattern as a value object
%% `#{'$beamtalk_class' => 'Regex', source => Pattern, options => [...]}`.
%% The pattern is checked when the Regex is made, so a bad one fails early.
-module(beamtalk_prim_regex).
-export(['class from:'/2, 'class from:options:'/3, 'source'/1, 'printString'/1,
         'displayString'/1]).

'class from:'(Cls, Src) when is_binary(Src) -> 'class from:options:'(Cls, Src, []).

'class from:options:'(_Cls, Src, Opts) when is_binary(Src), is_list(Opts) ->
    R = #{'$beamtalk_class' => 'Regex', source => Src,
          options => [case O of caseInsensitive -> caseless; ignoreCase -> caseless; _ -> O end
                      || O <- Opts]},
    _ = beamtalk_prim_string:'matchesRegex:'(<<>>, R),
    R.

'source'(#{source := S}) -> S.
'printString'(#{source := S}) -> iolist_to_binary(["Regex(", S, ")"]).
'displayString'(R) -> 'printString'(R).
