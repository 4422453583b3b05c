%% @doc Primitive methods of Character (stdlib §3): a character is its code
%% point, an Integer, so the class side only checks that one is given.
-module(beamtalk_prim_character).
-export(['class value:'/2]).

'class value:'(_Cls, N) when is_integer(N), N >= 0, N =< 16#10FFFF -> N;
'class value:'(_Cls, V) ->
    beamtalk_exception:raise(type_error, 'Character', 'value:',
                             iolist_to_binary(["Character value: expects a code point (an Integer in 0..1114111), not ",
                                               beamtalk_print:print_string(V)]), nil).
