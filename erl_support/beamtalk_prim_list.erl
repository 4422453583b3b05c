%% @doc Primitive methods of List: immutable Erlang lists, 1-based
%% (stdlib §4, spec semantics §8).  "Mutators" answer a new list.
-module(beamtalk_prim_list).

-export(['size'/1, 'isEmpty'/1, 'notEmpty'/1, 'isNotEmpty'/1, 'do:'/2,
         'collect:'/2, 'select:'/2, 'reject:'/2, 'inject:into:'/3, 'detect:'/2,
         'detect:ifNone:'/3, 'first'/1, 'last'/1, 'rest'/1, 'at:'/2, 'at:put:'/3,
         'add:'/2, 'addFirst:'/2, 'addAll:'/2, '++'/2, 'includes:'/2,
         'reversed'/1, 'reverse'/1, 'sort'/1, 'sort:'/2, 'anySatisfy:'/2,
         'allSatisfy:'/2, 'count:'/2, 'indexOf:'/2, 'take:'/2, 'drop:'/2,
         'from:to:'/3, 'asList'/1, 'asString'/1, 'join'/1, 'join:'/2, 'sum'/1, 'max'/1, 'min'/1,
         'flatten'/1, 'unique'/1, 'doWithIndex:'/2, 'eachWithIndex:'/2,
         'keysAndValuesDo:'/2, 'do:separatedBy:'/3, 'isList'/1,
         'class new'/1, 'class withAll:'/2, 'takeWhile:'/2, 'dropWhile:'/2]).

'class new'(_Cls) -> [].
'class withAll:'(_Cls, L) when is_list(L) -> L.

'size'(L) -> length(L).
'isEmpty'(L) -> L =:= [].
'notEmpty'(L) -> L =/= [].
'isNotEmpty'(L) -> L =/= [].
'isList'(_) -> true.

'do:'(L, B) -> lists:foreach(fun(X) -> beamtalk_block:value(B, [X]) end, L), nil.
'collect:'(L, B) -> [beamtalk_block:value(B, [X]) || X <- L].
'select:'(L, B) -> [X || X <- L, test(B, X, 'select:')].
'reject:'(L, B) -> [X || X <- L, not test(B, X, 'reject:')].
'inject:into:'(L, Acc0, B) -> lists:foldl(fun(X, Acc) -> beamtalk_block:value(B, [Acc, X]) end, Acc0, L).
'detect:'(L, B) -> detect(L, B, fun() -> nil end, 'detect:').
'detect:ifNone:'(L, B, None) -> detect(L, B, None, 'detect:ifNone:').

detect([], _B, None, _Sel) -> beamtalk_block:value(None, []);
detect([X | T], B, None, Sel) ->
    case test(B, X, Sel) of
        true -> X;
        false -> detect(T, B, None, Sel)
    end.

%% A filter block's answer: a Boolean, or a type error naming the message.
test(B, X, Sel) -> beamtalk_block:test(B, [X], 'List', Sel).
'anySatisfy:'(L, B) -> lists:any(fun(X) -> test(B, X, 'anySatisfy:') end, L).
'allSatisfy:'(L, B) -> lists:all(fun(X) -> test(B, X, 'allSatisfy:') end, L).
'count:'(L, B) -> length([X || X <- L, test(B, X, 'count:')]).
'takeWhile:'(L, B) -> lists:takewhile(fun(X) -> test(B, X, 'takeWhile:') end, L).
'dropWhile:'(L, B) -> lists:dropwhile(fun(X) -> test(B, X, 'dropWhile:') end, L).

'first'([]) -> empty('first');
'first'([H | _]) -> H.
'last'([]) -> empty('last');
'last'(L) -> lists:last(L).
'rest'([]) -> [];
'rest'([_ | T]) -> T.

'at:'(L, I) when is_integer(I) ->
    case I >= 1 andalso I =< length(L) of
        true -> lists:nth(I, L);
        false -> out_of_bounds('List', 'at:', I, length(L))
    end;
'at:'(_L, I) -> type('at:', I, "an Integer").

'at:put:'(L, I, V) when is_integer(I) ->
    case I >= 1 andalso I =< length(L) of
        true -> {A, [_ | B]} = lists:split(I - 1, L), A ++ [V | B];
        false -> out_of_bounds('List', 'at:put:', I, length(L))
    end;
'at:put:'(_L, I, _V) -> type('at:put:', I, "an Integer").

'add:'(L, X) -> L ++ [X].
'addFirst:'(L, X) -> [X | L].
'addAll:'(L, M) when is_list(M) -> L ++ M.
'++'(L, M) when is_list(M) -> L ++ M;
'++'(_L, M) -> type('++', M, "a List").
'includes:'(L, X) -> lists:any(fun(Y) -> Y == X end, L).
'reversed'(L) -> lists:reverse(L).
'reverse'(L) -> lists:reverse(L).
'sort'(L) -> lists:sort(L).
%% lists:sort/2 is stable only for an ordering that answers true on ties;
%% Pharo's and Python's hands write `a < b`, which reversed equal elements
%% (sorting records by a key put the last of each key first).  X goes
%% before Y unless the block says Y strictly precedes it: stable for `<`
%% and `<=` alike.
%% A two-argument block is called directly (no argument list per
%% comparison: a 100 000-element sort makes some two million calls).
'sort:'(L, B) when is_function(B, 2) ->
    Before = fun(X, Y) ->
                     case B(X, Y) of
                         true -> true;
                         false -> false;
                         Other -> beamtalk_block:not_boolean(Other, [X, Y], 'List', 'sort:')
                     end
             end,
    lists:sort(fun(X, Y) -> Before(X, Y) orelse not Before(Y, X) end, L);
'sort:'(L, B) ->
    Before = fun(X, Y) -> beamtalk_block:test(B, [X, Y], 'List', 'sort:') end,
    lists:sort(fun(X, Y) -> Before(X, Y) orelse not Before(Y, X) end, L).
'indexOf:'(L, X) -> index_of(L, X, 1).
index_of([], _, _) -> nil;
index_of([Y | T], X, I) -> case Y == X of true -> I; false -> index_of(T, X, I + 1) end.
'take:'(L, N) when is_integer(N) -> lists:sublist(L, max(N, 0)).
'drop:'(L, N) when is_integer(N) -> lists:nthtail(min(max(N, 0), length(L)), L).
'from:to:'(L, A, B) when is_integer(A), is_integer(B) ->
    A1 = max(A, 1), B1 = min(B, length(L)),
    case B1 < A1 of
        true -> [];
        false -> lists:sublist(L, A1, B1 - A1 + 1)
    end.
'asList'(L) -> L.
%% Its printString, as every Collection answers (stdlib spec: asString =
%% printString), whatever its elements: `#(90, 85, 100) asString` is
%% "#(90, 85, 100)", not the text those code points spell.  A charlist
%% Erlang answered becomes its String with `String withAll: aList`.
'asString'(L) -> beamtalk_print:print_string(L).
'join'(L) -> iolist_to_binary([beamtalk_print:display_string(X) || X <- L]).
'join:'(_L, Sep) when not is_binary(Sep) -> type('join:', Sep, "a String");
'join:'(L, Sep) -> iolist_to_binary(lists:join(Sep, [beamtalk_print:display_string(X) || X <- L])).
'sum'(L) -> lists:sum(L).
'max'([]) -> nil;
'max'(L) -> lists:max(L).
'min'([]) -> nil;
'min'(L) -> lists:min(L).
'flatten'(L) -> lists:append([case X of Y when is_list(Y) -> Y; _ -> [X] end || X <- L]).
'unique'(L) -> lists:usort(L).
'doWithIndex:'(L, B) -> 'keysAndValuesDo:'(L, fun(I, X) -> beamtalk_block:value(B, [X, I]) end).
'eachWithIndex:'(L, B) -> 'doWithIndex:'(L, B).
'keysAndValuesDo:'(L, B) ->
    lists:foldl(fun(X, I) -> beamtalk_block:value(B, [I, X]), I + 1 end, 1, L),
    nil.
'do:separatedBy:'(L, B, Sep) ->
    lists:foldl(fun(X, First) ->
                        First orelse beamtalk_block:value(Sep, []),
                        beamtalk_block:value(B, [X]),
                        false
                end, true, L),
    nil.

out_of_bounds(Class, Sel, I, Size) ->
    beamtalk_rt:out_of_bounds(Class, Sel, I, Size).

empty(Sel) ->
    beamtalk_exception:raise(index_out_of_bounds, 'List', Sel,
                             iolist_to_binary(["Cannot take '", atom_to_binary(Sel, utf8),
                                               "' of an empty List"]), nil).

type(Sel, Arg, Expected) ->
    beamtalk_rt:type_error('List', Sel, Arg, Expected,
                           iolist_to_binary(["Type error in '", atom_to_binary(Sel, utf8),
                                             "' on List"])).
