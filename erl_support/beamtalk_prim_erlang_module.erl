%% @doc ErlangModule proxies (seed ADR 0028): every message not listed here
%% (the proxy is a ProtoObject) calls `module:firstKeyword(args...)`.
-module(beamtalk_prim_erlang_module).

-export(['doesNotUnderstand:args:'/3, 'printString'/1, 'displayString'/1,
         'methods'/1, 'call:args:'/3, 'respondsTo:'/2, 'module'/1]).

'doesNotUnderstand:args:'(#{module := M}, Sel, Args) ->
    beamtalk_erlang:proxy_send(M, Sel, Args).

'printString'(P) -> beamtalk_print:base_print_string(P).
'displayString'(P) -> beamtalk_print:base_print_string(P).
'module'(#{module := M}) -> M.

%% @doc Exported functions as sorted "f/N" strings.
'methods'(#{module := M}) ->
    lists:sort([iolist_to_binary(io_lib:format("~ts/~b", [F, A]))
                || {F, A} <- beamtalk_erlang:exports(M), F =/= module_info]).

%% @doc `proxy call: #f args: aTupleOrList` - the escape hatch for function
%% names that are Beamtalk selectors (class, ==, ...).
'call:args:'(#{module := M}, F, Args) when is_tuple(Args) ->
    beamtalk_erlang:call(M, F, tuple_to_list(Args));
'call:args:'(#{module := M}, F, Args) ->
    beamtalk_erlang:call(M, F, Args).      % a bad F or Args gets call/3's TypeError

'respondsTo:'(#{module := M}, Sel) ->
    F = beamtalk_erlang:function_name(Sel),
    lists:member({F, beamtalk_send:selector_arity(Sel)}, beamtalk_erlang:exports(M)).
