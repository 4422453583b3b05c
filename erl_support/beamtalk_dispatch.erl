%% @doc The entry of every send in generated code, and the class-name switch
%% of the fast send path (boot version).
%%
%% `send/3` hands every value object to `d/4` and everything else to
%% `beamtalk_send:send/3`.  This file is
%% the version the node boots with: no class has a compiled dispatch
%% function yet, so every send takes the table path.  As soon as a class
%% compiled from a file registers, `beamtalk_dispatch_gen` replaces this
%% module with one that has a clause per such class:
%%
%%     d('Point', Sel, R, Args) -> 'bt@point':'$d'(Sel, R, Args);
%%
%% Why a generated module: on the BEAM a call through a literal module and
%% a `select_val` on an atom are the cheapest ways from a class name to its
%% code; any lookup in data (persistent_term, ETS, a map held elsewhere)
%% costs more than the call it replaces (scripts/bench_runtime.py).
-module(beamtalk_dispatch).
-export([send/3, send/4, d/4, classes/0]).

%% @doc `Receiver selector: args` (runtime_abi.SEND).
%% (the same function as beamtalk_dispatch_gen's SEND_SOURCE; beamtalk_dispatch_gen_tests holds them equal)
send(#{'$beamtalk_class' := 'ErlangModule', module := M} = R, Sel, Args) when is_atom(M) ->
    case get('$bt_proxy') of
        #{Sel := F} when F =/= '$method' ->
            try erlang:apply(M, F, Args)
            catch C:E:S -> beamtalk_erlang:invoke_failed(C, E, S, M, F, Args)
            end;
        _ -> beamtalk_erlang:proxy_dispatch(Sel, R, Args)
    end;
send(#{'$beamtalk_class' := C} = R, Sel, Args) ->
    d(C, Sel, R, Args);
%% A Dictionary (a plain map) asked for one of its hot accessors: the
%% stdlib's own methods cannot be replaced (README, extension methods), so
%% the table lookup would find exactly these primitives; call them here.
send(M, 'at:', [K]) when is_map(M) -> beamtalk_prim_dictionary:'at:'(M, K);
send(M, 'at:ifAbsent:', [K, B]) when is_map(M) -> beamtalk_prim_dictionary:'at:ifAbsent:'(M, K, B);
send(M, 'at:put:', [K, V]) when is_map(M) -> beamtalk_prim_dictionary:'at:put:'(M, K, V);
send(M, 'includesKey:', [K]) when is_map(M) -> beamtalk_prim_dictionary:'includesKey:'(M, K);
%% A block called with as many arguments as it takes: `value`, `value:`, ...
%% are intrinsics of the sealed Block class (stdlib §5), so a fun of the right
%% arity is called here without the class-table lookup (an `aBlock value: x`
%% in Interval>>do: or a user's loop paid a send per element).  Every other
%% case (a wrong arity, a non-block) takes the send and its error as before.
send(F, 'value:', [A]) when is_function(F, 1) -> F(A);
send(F, value, []) when is_function(F, 0) -> F();
send(F, 'value:value:', [A, B]) when is_function(F, 2) -> F(A, B);
send(F, 'value:value:value:', [A, B, C]) when is_function(F, 3) -> F(A, B, C);
send(R, Sel, Args) ->
    beamtalk_send:send(R, Sel, Args).

%% @doc `Receiver selector: args` where the compiler named the function an
%% Erlang module proxy would call (runtime_abi.SEND_CALLING): the selector
%% is not one of the ErlangModule class's own, so a proxy calls Function
%% with no lookup; every other receiver is sent the message as by send/3.
%% (the same function as beamtalk_dispatch_gen's SEND_SOURCE; beamtalk_dispatch_gen_tests holds them equal)
send(#{'$beamtalk_class' := 'ErlangModule', module := M}, _Sel, Args, F) when is_atom(M) ->
    try erlang:apply(M, F, Args)
    catch C:E:S -> beamtalk_erlang:invoke_failed(C, E, S, M, F, Args)
    end;
send(#{'$beamtalk_class' := C} = R, Sel, Args, _F) ->
    d(C, Sel, R, Args);
send(M, 'at:', [K], _F) when is_map(M) -> beamtalk_prim_dictionary:'at:'(M, K);
send(M, 'at:ifAbsent:', [K, B], _F) when is_map(M) -> beamtalk_prim_dictionary:'at:ifAbsent:'(M, K, B);
send(M, 'at:put:', [K, V], _F) when is_map(M) -> beamtalk_prim_dictionary:'at:put:'(M, K, V);
send(M, 'includesKey:', [K], _F) when is_map(M) -> beamtalk_prim_dictionary:'includesKey:'(M, K);
send(F, 'value:', [A], _F) when is_function(F, 1) -> F(A);
send(F, value, [], _F) when is_function(F, 0) -> F();
send(F, 'value:value:', [A, B], _F) when is_function(F, 2) -> F(A, B);
send(F, 'value:value:value:', [A, B, C], _F) when is_function(F, 3) -> F(A, B, C);
send(R, Sel, Args, _F) ->
    beamtalk_send:send(R, Sel, Args).

%% @doc Send Sel to the value object R of class C (Erlang module proxies
%% have a dispatcher of their own, beamtalk_erlang:proxy_dispatch/3).
d('ErlangModule', Sel, R, Args) ->
    beamtalk_erlang:proxy_dispatch(Sel, R, Args);
d(C, Sel, R, Args) ->
    beamtalk_send:send_value(C, R, Sel, Args).

%% @doc The classes this version has a clause for.
classes() -> [].
