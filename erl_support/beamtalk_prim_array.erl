%% @doc Primitive methods of Array: `#{'$beamtalk_class' => 'Array',
%% elements => ErlangArray}`, 1-based, immutable (stdlib §4).
-module(beamtalk_prim_array).

-export(['class new'/1, 'class withAll:'/2, 'size'/1, 'isEmpty'/1, 'at:'/2,
         'at:put:'/3, 'includes:'/2, 'do:'/2, 'collect:'/2, 'select:'/2,
         'inject:into:'/3, 'asList'/1]).

'class new'(_Cls) -> beamtalk_rt:array_from_list([]).
'class withAll:'(_Cls, L) when is_list(L) -> beamtalk_rt:array_from_list(L).
'size'(#{elements := A}) -> array:size(A).
'isEmpty'(#{elements := A}) -> array:size(A) =:= 0.
'at:'(#{elements := A}, I) when is_integer(I), I >= 1 ->
    case I =< array:size(A) of
        true -> array:get(I - 1, A);
        false -> beamtalk_rt:out_of_bounds('Array', 'at:', I, array:size(A))
    end;
'at:'(#{elements := A}, I) when is_integer(I) -> beamtalk_rt:out_of_bounds('Array', 'at:', I, array:size(A));
'at:'(_Arr, I) -> index_type('at:', I).
'at:put:'(#{elements := A} = Arr, I, V) when is_integer(I), I >= 1 ->
    case I =< array:size(A) of
        true -> Arr#{elements => array:set(I - 1, V, A)};
        false -> beamtalk_rt:out_of_bounds('Array', 'at:put:', I, array:size(A))
    end;
'at:put:'(#{elements := A}, I, _V) when is_integer(I) ->
    beamtalk_rt:out_of_bounds('Array', 'at:put:', I, array:size(A));
'at:put:'(_Arr, I, _V) -> index_type('at:put:', I).

index_type(Sel, I) ->
    beamtalk_rt:type_error('Array', Sel, I, "an Integer",
                           iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8), "' on Array"])).
'includes:'(Arr, X) -> lists:member(X, 'asList'(Arr)).
'do:'(Arr, B) -> beamtalk_prim_list:'do:'('asList'(Arr), B).
'collect:'(Arr, B) -> beamtalk_rt:array_from_list(beamtalk_prim_list:'collect:'('asList'(Arr), B)).
'select:'(Arr, B) -> beamtalk_rt:array_from_list(beamtalk_prim_list:'select:'('asList'(Arr), B)).
'inject:into:'(Arr, Acc, B) -> beamtalk_prim_list:'inject:into:'('asList'(Arr), Acc, B).
'asList'(#{elements := A}) -> array:to_list(A).
