%% @doc The `Erlang` class (seed ADR 0028): `Erlang lists` answers a module
%% proxy; its class side does nothing else.
-module(beamtalk_prim_erlang).

-export(['class doesNotUnderstand:args:'/3, 'class printString'/1]).

'class doesNotUnderstand:args:'(_Cls, Module, []) ->
    beamtalk_erlang:proxy(Module);
'class doesNotUnderstand:args:'(_Cls, Sel, _Args) ->
    beamtalk_exception:dnu('Erlang class', Sel,
                           <<"Send a module name to Erlang (Erlang lists), then the function to the module">>).

'class printString'(_Cls) -> <<"Erlang">>.
