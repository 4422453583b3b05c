%% @doc Small runtime helpers that generated code calls where no single
%% Erlang operation expresses the Beamtalk meaning.
-module(beamtalk_rt).
-export([concat/2, array_from_list/1, association/2, out_of_bounds/4, elements/1, cell/2, cell_run/2,
         state_kept/4, type_error/5, arg_text/1, article/1]).

%% @doc `a ++ b`: list append for lists, binary concatenation for strings.
%% A List followed by anything but a List is a type error: Erlang's `++`
%% would answer an improper list, a value nothing else in Beamtalk handles.
concat(A, B) when is_list(A), is_list(B) -> A ++ B;
concat(A, B) when is_binary(A), is_binary(B) ->
    beamtalk_mem_guard:check_new_binary(byte_size(A) + byte_size(B)),
    <<A/binary, B/binary>>;
concat(A, B) when is_list(A) ->
    type_error('List', '++', B, "a List", <<"Type error in '++' on List">>);
concat(A, B) when is_binary(A), is_integer(B), B >= 33, B =< 16#10FFFF,
                  not (B >= 16#D800 andalso B =< 16#DFFF) ->
    %% `s ++ $a`: a character literal is its code point (spec §7)
    Char = unicode:characters_to_binary([B]),
    N = integer_to_binary(B),
    beamtalk_exception:raise(type_error, 'String', '++', <<"Type error in '++' on String">>,
                             iolist_to_binary(["'++' expects a String argument; this one is ", N,
                                               ", the code point of $", Char, " (a character literal is an "
                                               "Integer): write the String ", beamtalk_print:print_string(Char),
                                               ", or ", N, " asCharacter"]));
concat(A, B) when is_binary(A) ->
    type_error('String', '++', B, "a String", <<"Type error in '++' on String">>);
concat(A, _B) ->
    %% neither a String nor a List (a Symbol such as `C name`, a number):
    %% Erlang's badarg would say nothing about what to do
    Class = beamtalk_send:class_name(A),
    Hint = iolist_to_binary(["'++' joins two Strings or two Lists; this receiver is ", short_print(A),
                             " (", article(Class), "): convert it first (asString, printString)"]),
    beamtalk_exception:raise(type_error, Class, '++',
                             iolist_to_binary(["Type error in '++' on ", atom_to_binary(Class, utf8)]),
                             Hint).

%% @doc `#[a, b]`: an Array value wrapping an Erlang array.
array_from_list(L) ->
    #{'$beamtalk_class' => 'Array', elements => array:from_list(L)}.

%% @doc `key -> value`: an Association value.
association(K, V) ->
    #{'$beamtalk_class' => 'Association', key => K, value => V}.

%% @doc Raise the index_out_of_bounds error of a 1-based collection.
out_of_bounds(Class, Sel, I, Size) ->
    %% `xs at: 0`, `xs at: -1`: indexes of other languages
    Hint = case is_integer(I) andalso I =< 0 of
               true -> <<"indexes start at 1: the first element is at: 1 and the last at: size (or first and last)">>;
               false -> nil
           end,
    beamtalk_exception:raise(index_out_of_bounds, Class, Sel,
                             iolist_to_binary(io_lib:format("Index ~tp out of bounds for ~ts of size ~b",
                                                            [I, Class, Size])), Hint).

%% @doc A primitive given an argument of the wrong class: the message keeps
%% the spec's form (`Type error in 'at:' on List`), the hint says what the
%% argument should have been and what it was.
type_error(Class, Sel, Arg, Expected, Message) ->
    Got = beamtalk_send:class_name(Arg),
    Hint = iolist_to_binary(["'", atom_to_binary(Sel, utf8), "' expects ", Expected,
                             " argument; this one is ", short_print(Arg), " (", article(Got), ")"]),
    beamtalk_exception:raise(type_error, Class, Sel, Message, Hint).

%% @doc An argument as a hint shows it: `"x" (a String)`.
arg_text(V) ->
    [short_print(V), " (", article(beamtalk_send:class_name(V)), ")"].

short_print(V) ->
    Shown = beamtalk_print:print_string(V),
    case string:length(Shown) > 40 of
        true -> [string:slice(Shown, 0, 40), "..."];
        false -> Shown
    end.

article(Class) ->
    Name = atom_to_binary(Class, utf8),
    case Name of
        <<C, _/binary>> when C =:= $A; C =:= $E; C =:= $I; C =:= $O; C =:= $U -> ["an ", Name];
        _ -> ["a ", Name]
    end.

%% @doc The elements `aCollection do:` visits, as a list: inlined `do:` loops
%% run over this list, so assignments in their block are threaded for every
%% kind of collection (lists directly, anything else through its own `do:`).
elements(L) when is_list(L) -> L;
%% An Interval of integers and a Set know their elements: gathering them
%% through their `do:` cost a process-dictionary get and put per element
%% (most of the time of `(1 to: n) do: [...]`).  Same elements, same order
%% as Interval>>do: (`start to: stop by: step do:`) and Set>>do:.
elements(#{'$beamtalk_class' := 'Interval', start := S, stop := E, step := St})
  when is_integer(S), is_integer(E), is_integer(St), St =/= 0 ->
    if
        St > 0, E >= S -> lists:seq(S, E, St);
        St < 0, E =< S -> lists:seq(S, E, St);
        true -> []
    end;
elements(#{'$beamtalk_class' := 'Set', elements := L}) when is_list(L) -> L;
elements(#{'$beamtalk_class' := 'Array'} = A) -> beamtalk_prim_array:'asList'(A);
elements(#{'$beamtalk_class' := _} = C) -> elements_by_do(C);
elements(M) when is_map(M) -> beamtalk_prim_dictionary:'values'(M);
elements(S) when is_binary(S) -> beamtalk_prim_string:'asList'(S);
elements(C) -> elements_by_do(C).

%% Any other collection (a user's, a Stream...): what its own `do:` visits.
elements_by_do(C) ->
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

%% @doc Run the body of a closure that uses variables living in cells
%% (compiler/cells.py).  `Caps` pairs each cell key `{Ref, Name}` with the
%% value the variable had when the closure was made.  While the activation
%% that owns `Ref` is live in this process the closure reads and writes the
%% cell itself.  Otherwise (another process, or the activation has returned)
%% the closure starts from the captured values and its assignments last for
%% this run only: the entries are erased when the run ends, however it ends,
%% so nothing accumulates in the process dictionary.
cell_run(Caps, Fun) ->
    case [C || {{Ref, _}, _} = C <- Caps, erlang:get(Ref) =:= undefined] of
        [] ->
            Fun();
        Dead ->
            Refs = lists:usort([Ref || {{Ref, _}, _} <- Dead]),
            _ = [erlang:put(Ref, true) || Ref <- Refs],
            _ = [erlang:put(Key, Value) || {Key, Value} <- Dead],
            try
                Fun()
            after
                _ = [erlang:erase(Ref) || Ref <- Refs],
                _ = [erlang:erase(Key) || {Key, _} <- Dead]
            end
    end.

%% @doc A message to self inside a closure that cannot hand the actor's state
%% back (a block given to a message to self, a stored block, a block run by
%% another process): the state it answers must be the one the block started
%% from, or the change would be silently lost.  Raises a clear error instead.
state_kept(Self, Before, After, Selector) ->
    case After =:= Before of
        true ->
            ok;
        false ->
            Sel = atom_to_binary(Selector, utf8),
            beamtalk_exception:raise(
              runtime_error, beamtalk_send:class_name(Self), Selector,
              <<"'", Sel/binary, "' sent to self inside a block changed the actor's state, "
                "and that change would be lost: the block runs while another method "
                "(or another process) holds the actor's state">>,
              <<"assign a method temporary in the block and send '", Sel/binary,
                "' after the message that runs the block">>)
    end.
