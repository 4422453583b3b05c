%% @doc Recognising a List method that failed on an improper list.
%%
%% Why: Erlang hands Beamtalk improper lists (`[1, 2 | 3]`, printed
%% `#(1, 2 | 3)`), and the List primitives walk their receiver with
%% `length/1`, `lists:foreach/2`, comprehensions, ...; on such a list they
%% fail with a bare `badarg`, `function_clause` or `{bad_generator, 3}`,
%% which tells the user nothing.  A raw error whose top frame is that walk
%% (a frame of `erlang`, `lists` or the List primitives, never user code:
%% Erlang functions called through a proxy are mapped before this) and
%% which holds the list's non-list tail becomes a type error that names the
%% tail.  The walking frame may be all that is left of the primitive (a
%% tail call), so the selector is named only when its frame is there.
-module(beamtalk_improper).
-export([from_error/2]).

%% @doc `{Selector | undefined, Tail}` when Reason/Stack is a List
%% primitive failing on an improper list, else `none`.
-spec from_error(term(), list()) -> {atom() | undefined, term()} | none.
from_error(Reason, [{M, _F, Args, _} | _] = Stack)
  when (M =:= erlang orelse M =:= lists orelse M =:= beamtalk_prim_list),
       (Reason =:= badarg orelse Reason =:= function_clause
        orelse element(1, Reason) =:= bad_generator) ->
    case tail(Reason, M, Args) of
        none -> helper(Reason, Stack);
        {ok, Tail} -> {selector(Stack), Tail}
    end;
from_error(function_clause, [{_M, F, [Tail | _], _} | _]) when not is_list(Tail) ->
    %% `aList do: [:x | ...]` with a literal block is a loop compiled into
    %% the caller (compiler/control.py, a named fun `LoopN` whose clauses
    %% take `[H | T]` and `[]`): only a non-list tail matches neither.
    case binary:match(atom_to_binary(F, utf8), <<"-Loop">>) of
        nomatch -> none;
        _ -> {'do:', Tail}
    end;
from_error(_Reason, _Stack) ->
    none.

helper(function_clause, [{beamtalk_prim_list, F, [Tail | _] = Args, _} | _])
  when not is_list(Tail), not is_function(Tail) ->
    %% A walk of the primitives' own (detect(List, Block, None, Selector)),
    %% which passes the selector it serves as its last argument.
    case erlang:function_exported(beamtalk_prim_list, F, length(Args)) of
        true -> none;
        false ->
            Sel = lists:last(Args),
            case is_atom(Sel) andalso binary:match(atom_to_binary(Sel, utf8), <<":">>) =/= nomatch of
                true -> {Sel, Tail};
                false -> {undefined, Tail}
            end
    end;
helper(_Reason, _Stack) ->
    none.

tail({bad_generator, T}, beamtalk_prim_list, _Args) when not is_list(T) ->
    {ok, T};
tail(_Reason, M, Args) when is_list(Args) ->
    case [improper_tail(A) || A <- Args, is_list(A), improper_tail(A) =/= proper] of
        [T | _] -> {ok, T};
        [] when M =:= lists ->
            %% lists:foreach_1(F, 3), lists:foldl_1(F, Acc, 3), lists:reverse(3, Acc):
            %% the walk reached the tail; it is the last argument that is no list.
            case [A || A <- lists:reverse(Args), not is_list(A), not is_function(A)] of
                [T | _] -> {ok, T};
                [] -> none
            end;
        [] -> none
    end;
tail(_Reason, _M, _Args) ->
    none.

improper_tail([]) -> proper;
improper_tail([_ | T]) when is_list(T) -> improper_tail(T);
improper_tail([_ | T]) -> T.

%% The List primitive in the first frames, if its frame survived:
%% `size`, or `'-collect:/2-lc$^0/1-0-'` (a comprehension of `collect:`).
selector(Stack) ->
    Names = [F || {beamtalk_prim_list, F, _, _} <- lists:sublist(Stack, 3)],
    case Names of
        [F | _] -> primitive_name(atom_to_binary(F, utf8));
        [] -> undefined
    end.

primitive_name(<<"-", Rest/binary>>) ->
    [Name | _] = binary:split(Rest, <<"/">>),
    binary_to_atom(Name, utf8);
primitive_name(Name) ->
    binary_to_atom(Name, utf8).
