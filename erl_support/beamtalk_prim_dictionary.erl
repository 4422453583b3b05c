%% @doc Primitive methods of Dictionary: untagged Erlang maps (stdlib §4).
%% "Mutators" answer a new dictionary.  Keys and values are listed in
%% Erlang term order of the keys.
-module(beamtalk_prim_dictionary).

-export(['at:'/2, 'at:put:'/3, 'at:ifAbsent:'/3, 'at:ifAbsentPut:'/3,
         'at:ifPresent:'/3, 'keys'/1, 'values'/1, 'size'/1, 'isEmpty'/1,
         'notEmpty'/1, 'isNotEmpty'/1, 'keysAndValuesDo:'/2, 'keysDo:'/2,
         'do:'/2, 'collect:'/2, 'select:'/2, 'reject:'/2, 'includesKey:'/2,
         'includes:'/2, 'removeKey:'/2, 'merge:'/2, 'associations'/1,
         'keyAtValue:'/2, 'class new'/1, 'class new:'/2]).

'class new'(_Cls) -> #{}.
'class new:'(_Cls, M) when is_map(M) -> M;
'class new:'(_Cls, _) ->
    beamtalk_exception:raise(type_error, 'Dictionary', 'new:',
                             <<"new: expects a Dictionary argument">>, nil).

'at:'(M, K) ->
    case maps:find(K, M) of
        {ok, V} -> V;
        error ->
            beamtalk_exception:raise(runtime_error, 'Dictionary', 'at:',
                                     iolist_to_binary(["Key not found: ",
                                                       beamtalk_print:print_string(K)]),
                                     missing_hint(M, K))
    end.

%% `(JSON parse: text) at: #name`: the key is there as a String (JSON keys
%% are never Symbols); say which spelling the Dictionary has.
missing_hint(M, K) when is_atom(K), K =/= nil, K =/= true, K =/= false ->
    Name = atom_to_binary(K, utf8),
    case maps:is_key(Name, M) of
        true -> iolist_to_binary(["this Dictionary has the String key ", beamtalk_print:print_string(Name),
                                  " (JSON parse: makes String keys): at: ", beamtalk_print:print_string(Name)]);
        false -> optional_hint()
    end;
missing_hint(M, K) when is_binary(K) ->
    case [A || A <- maps:keys(M), is_atom(A), atom_to_binary(A, utf8) =:= K] of
        [A | _] -> iolist_to_binary(["this Dictionary has the Symbol key ", beamtalk_print:print_string(A),
                                     ": at: ", beamtalk_print:print_string(A)]);
        [] -> optional_hint()
    end;
missing_hint(_M, _K) ->
    optional_hint().

optional_hint() -> <<"Use at:ifAbsent: or includesKey: for optional keys">>.
'at:put:'(M, K, V) -> M#{K => V}.
'at:ifAbsent:'(M, K, B) ->
    case maps:find(K, M) of
        {ok, V} -> V;
        error -> beamtalk_block:value(B, [])
    end.
'at:ifAbsentPut:'(M, K, B) ->
    case maps:is_key(K, M) of
        true -> M;
        false -> M#{K => beamtalk_block:value(B, [])}
    end.
'at:ifPresent:'(M, K, B) ->
    case maps:find(K, M) of
        {ok, V} -> beamtalk_block:cull(B, V);
        error -> nil
    end.
'keys'(M) -> lists:sort(maps:keys(M)).
'values'(M) -> [V || {_, V} <- lists:sort(maps:to_list(M))].
'size'(M) -> maps:size(M).
'isEmpty'(M) -> maps:size(M) =:= 0.
'notEmpty'(M) -> maps:size(M) > 0.
'isNotEmpty'(M) -> maps:size(M) > 0.
'keysAndValuesDo:'(M, B) ->
    [beamtalk_block:value(B, [K, V]) || {K, V} <- lists:sort(maps:to_list(M))],
    nil.
'keysDo:'(M, B) -> [beamtalk_block:value(B, [K]) || K <- 'keys'(M)], nil.
'do:'(M, B) -> [beamtalk_block:value(B, [V]) || V <- 'values'(M)], nil.
'collect:'(M, B) -> maps:map(fun(_K, V) -> beamtalk_block:value(B, [V]) end, M).
'select:'(M, B) -> maps:filter(fun(_K, V) -> beamtalk_block:test(B, [V], 'Dictionary', 'select:') end, M).
'reject:'(M, B) -> maps:filter(fun(_K, V) -> not beamtalk_block:test(B, [V], 'Dictionary', 'reject:') end, M).
'includesKey:'(M, K) -> maps:is_key(K, M).
'includes:'(M, V) -> lists:any(fun(X) -> X == V end, maps:values(M)).
'removeKey:'(M, K) -> maps:remove(K, M).
'merge:'(M, O) when is_map(O) -> maps:merge(M, O).
'associations'(M) -> [beamtalk_rt:association(K, V) || {K, V} <- lists:sort(maps:to_list(M))].
'keyAtValue:'(M, V) ->
    case [K || {K, X} <- lists:sort(maps:to_list(M)), X == V] of
        [K | _] -> K;
        [] -> nil
    end.
