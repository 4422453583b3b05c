%% @doc Primitive methods of UndefinedObject, the class of nil (stdlib §2).
-module(beamtalk_prim_undefined_object).

-export(['isNil'/1, 'notNil'/1, 'ifNil:'/2, 'ifNotNil:'/2, 'ifNil:ifNotNil:'/3,
         'ifNotNil:ifNil:'/3, 'copy'/1, 'deepCopy'/1, 'shallowCopy'/1, 'asString'/1,
         'classBuilder'/1]).

%% @doc `nil classBuilder`: a builder for a root class (`nil subclass: X`).
'classBuilder'(nil) ->
    beamtalk_actor:spawn('ClassBuilder', #{rootClass => true}).

'isNil'(nil) -> true.
'notNil'(nil) -> false.
'ifNil:'(nil, B) -> beamtalk_block:value(B, []).
'ifNotNil:'(nil, _B) -> nil.
'ifNil:ifNotNil:'(nil, B, _) -> beamtalk_block:value(B, []).
'ifNotNil:ifNil:'(nil, _, B) -> beamtalk_block:value(B, []).
'copy'(nil) -> nil.
'deepCopy'(nil) -> nil.
'shallowCopy'(nil) -> nil.
'asString'(nil) -> <<"nil">>.
