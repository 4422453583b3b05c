%% @doc Small runtime helpers that generated code calls where no single
%% Erlang operation expresses the Beamtalk meaning.
-module(beamtalk_rt).
-export([concat/2, array_from_list/1, association/2, out_of_bounds/4, elements/1, cell/2]).

%% @doc `a ++ b`: list append for lists, binary concatenation for strings.
concat(A, B) when is_list(A) -> A ++ B;
concat(A, B) when is_binary(A), is_binary(B) -> <<A/binary, B/binary>>;
concat(A, B) -> erlang:error(badarg, [A, B]).

%% @doc `#[a, b]`: an Array value wrapping an Erlang array.
array_from_list(L) ->
    #{'$beamtalk_class' => 'Array', elements => array:from_list(L)}.

%% @doc `key -> value`: an Association value.
association(K, V) ->
    #{'$beamtalk_class' => 'Association', key => K, value => V}.

%% @doc Raise the index_out_of_bounds error of a 1-based collection.
out_of_bounds(Class, Sel, I, Size) ->
    beamtalk_exception:raise(index_out_of_bounds, Class, Sel,
                             iolist_to_binary(io_lib:format("Index ~tp out of bounds for ~ts of size ~b",
                                                            [I, Class, Size])), nil).

%% @doc The elements `aCollection do:` visits, as a list: inlined `do:` loops
%% run over this list, so assignments in their block are threaded for every
%% kind of collection (lists directly, anything else through its own `do:`).
elements(L) when is_list(L) -> L;
elements(C) ->
    Key = {beamtalk_elements, make_ref()},
    put(Key, []),
    try
        _ = beamtalk_send:send(C, 'do:', [fun(E) -> put(Key, [E | get(Key)]), nil end]),
        lists:reverse(get(Key))
    after
        erase(Key)
    end.

%% @doc The variables a cell block threads (compiler/cells.py): what the last
%% run of a block of the same send left in the caller's process dictionary,
%% or the values captured when the block was made (first run, or a run in
%% another process, whose assignments then stay there).
cell(Key, Default) ->
    case erlang:get(Key) of
        undefined -> Default;
        W -> W
    end.
