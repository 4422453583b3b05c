%% @doc Primitive methods of Tuple: Erlang tuples from interop (stdlib §4).
-module(beamtalk_prim_tuple).

-export(['class new'/1, 'class withAll:'/2, 'size'/1, 'at:'/2, 'first'/1,
         'isOk'/1, 'isError'/1, 'unwrap'/1, 'unwrapOr:'/2, 'unwrapOrElse:'/2,
         'asList'/1, 'do:'/2]).

'class new'(_Cls) -> {}.
'class withAll:'(_Cls, L) when is_list(L) -> list_to_tuple(L).
'size'(T) -> tuple_size(T).
'at:'(T, I) when is_integer(I), I >= 1, I =< tuple_size(T) -> element(I, T);
'at:'(T, I) when is_integer(I) -> beamtalk_rt:out_of_bounds('Tuple', 'at:', I, tuple_size(T));
'at:'(_T, I) ->
    beamtalk_rt:type_error('Tuple', 'at:', I, "an Integer", <<"Type error in 'at:' on Tuple">>).
'first'(T) -> 'at:'(T, 1).
'isOk'(T) -> tuple_size(T) > 0 andalso element(1, T) =:= ok.
'isError'(T) -> tuple_size(T) > 0 andalso element(1, T) =:= error.
'unwrap'({ok, V}) -> V;
'unwrap'(T) when tuple_size(T) > 1, element(1, T) =:= ok -> element(2, T);
'unwrap'(T) ->
    beamtalk_exception:raise(runtime_error, 'Tuple', unwrap,
                             iolist_to_binary(["Cannot unwrap ", beamtalk_print:print_string(T)]),
                             <<"unwrap expects {#ok, value}; use unwrapOr: for a default">>).
'unwrapOr:'({ok, V}, _D) -> V;
'unwrapOr:'(_T, D) -> D.
'unwrapOrElse:'({ok, V}, _B) -> V;
'unwrapOrElse:'(_T, B) -> beamtalk_block:value(B, []).
'asList'(T) -> tuple_to_list(T).
'do:'(T, B) -> beamtalk_prim_list:'do:'(tuple_to_list(T), B).
