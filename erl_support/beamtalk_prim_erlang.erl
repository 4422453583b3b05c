%% @doc The `Erlang` class (seed ADR 0028): `Erlang lists` answers a module
%% proxy; its class side does nothing else.
-module(beamtalk_prim_erlang).

-export(['class doesNotUnderstand:args:'/3, 'class printString'/1, 'class childSpec:'/2]).

%% @doc `Erlang childSpec: #{...}`: a checked OTP child spec for a Beamtalk
%% supervisor (seed ADR 0028 §5; beamtalk_supervisor).
'class childSpec:'(_Cls, Spec) -> beamtalk_supervisor:check_erlang_spec(Spec).

'class doesNotUnderstand:args:'(_Cls, Module, []) ->
    beamtalk_erlang:proxy(Module);
'class doesNotUnderstand:args:'(_Cls, Sel, _Args) ->
    beamtalk_exception:dnu('Erlang class', Sel,
                           <<"Send a module name to Erlang (Erlang lists), then the function to the module">>).

'class printString'(_Cls) -> <<"Erlang">>.
