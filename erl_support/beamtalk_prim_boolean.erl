%% @doc Primitive methods of Boolean, shared by True and False (stdlib §2).
%% The compiler inlines these for literal block arguments; these are the
%% fallbacks for blocks in variables and for perform:.
-module(beamtalk_prim_boolean).

-export(['ifTrue:'/2, 'ifFalse:'/2, 'ifTrue:ifFalse:'/3, 'and:'/2, 'or:'/2,
         'xor:'/2, 'not'/1, '&'/2, '|'/2, 'isTrue'/1, 'isFalse'/1, 'asString'/1]).

'ifTrue:'(true, B) -> beamtalk_block:value(B, []);
'ifTrue:'(false, _) -> false.

'ifFalse:'(false, B) -> beamtalk_block:value(B, []);
'ifFalse:'(true, _) -> true.

'ifTrue:ifFalse:'(true, T, _F) -> beamtalk_block:value(T, []);
'ifTrue:ifFalse:'(false, _T, F) -> beamtalk_block:value(F, []).

'and:'(true, B) -> beamtalk_block:value(B, []);
'and:'(false, _) -> false.

'or:'(true, _) -> true;
'or:'(false, B) -> beamtalk_block:value(B, []).

'xor:'(A, B) when is_boolean(B) -> A xor B;
'xor:'(A, B) -> type(A, 'xor:', B).

'not'(B) -> not B.

'&'(A, B) when is_boolean(B) -> A andalso B;
'&'(A, B) -> type(A, '&', B).

'|'(A, B) when is_boolean(B) -> A orelse B;
'|'(A, B) -> type(A, '|', B).

'isTrue'(B) -> B =:= true.
'isFalse'(B) -> B =:= false.
'asString'(B) -> atom_to_binary(B, utf8).

type(A, Sel, _B) ->
    beamtalk_exception:raise(type_error, beamtalk_send:class_name(A), Sel,
                             iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8),
                                               "': expected a Boolean argument"]), nil).
