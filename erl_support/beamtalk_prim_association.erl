%% @doc Primitive methods of Association (`key -> value`; stdlib §4).
-module(beamtalk_prim_association).

-export(['key'/1, 'value'/1, 'asString'/1, 'displayString'/1]).

'key'(#{key := K}) -> K.
'value'(#{value := V}) -> V.
'asString'(#{key := K, value := V}) ->
    iolist_to_binary([beamtalk_print:display_string(K), " -> ", beamtalk_print:display_string(V)]).
'displayString'(A) -> 'asString'(A).
