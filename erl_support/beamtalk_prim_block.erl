%% @doc Primitive methods of Block (stdlib §5): the non-inlined forms of
%% block messages.
-module(beamtalk_prim_block).

-export(['value'/1, 'value:'/2, 'value:value:'/3, 'value:value:value:'/4,
         'value:value:value:value:'/5, 'valueWithArguments:'/2, 'numArgs'/1,
         'arity'/1, 'whileTrue:'/2, 'whileFalse:'/2, 'whileTrue'/1,
         'whileFalse'/1, 'repeat'/1, 'on:do:'/3, 'ensure:'/2, 'ifCurtailed:'/2]).

'value'(B) -> beamtalk_block:value(B, []).
'value:'(B, A) -> beamtalk_block:value(B, [A]).
'value:value:'(B, A1, A2) -> beamtalk_block:value(B, [A1, A2]).
'value:value:value:'(B, A1, A2, A3) -> beamtalk_block:value(B, [A1, A2, A3]).
'value:value:value:value:'(B, A1, A2, A3, A4) -> beamtalk_block:value(B, [A1, A2, A3, A4]).
'valueWithArguments:'(B, Args) when is_list(Args) -> beamtalk_block:value(B, Args);
'valueWithArguments:'(_B, _Args) ->
    beamtalk_exception:raise(type_error, 'Block', 'valueWithArguments:',
                             <<"valueWithArguments: expects a List">>, nil).
'numArgs'(B) -> beamtalk_block:arity(B).
'arity'(B) -> beamtalk_block:arity(B).
'whileTrue:'(C, B) -> beamtalk_block:while_true(C, B).
'whileFalse:'(C, B) -> beamtalk_block:while_false(C, B).
'whileTrue'(C) -> beamtalk_block:while_true(C, fun() -> nil end).
'whileFalse'(C) -> beamtalk_block:while_false(C, fun() -> nil end).
'repeat'(B) -> beamtalk_block:repeat(B).
'on:do:'(B, Filter, Handler) -> beamtalk_exception:on_do(B, Filter, Handler).
'ensure:'(B, Cleanup) -> beamtalk_exception:ensure(B, Cleanup).
'ifCurtailed:'(B, Cleanup) -> beamtalk_exception:if_curtailed(B, Cleanup).
