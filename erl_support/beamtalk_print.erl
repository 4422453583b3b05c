%% @doc printString and displayString of Beamtalk values (DESIGN D9,
%% spec/semantics.md section 11.1).
%%
%% Why here and not in Python: the REPL shows what the *node* says a value
%% looks like, so a user class that overrides printString is honoured, and
%% any other tool attached to the workspace sees the same text.
-module(beamtalk_print).
-export([print_string/1, display_string/1, symbol_string/1]).

-define(CLASS_KEY, '$beamtalk_class').

%% @doc The developer form: reads back as source where possible.
-spec print_string(term()) -> binary().
print_string(V) when is_integer(V) -> integer_to_binary(V);
print_string(V) when is_float(V) -> float_to_binary(V, [short]);
print_string(V) when is_binary(V) -> quote_string(V);
print_string(V) when is_bitstring(V) -> iolist_to_binary(io_lib:format("~p", [V]));
print_string(nil) -> <<"nil">>;
print_string(true) -> <<"true">>;
print_string(false) -> <<"false">>;
print_string(V) when is_atom(V) -> symbol_string(V);
print_string(V) when is_list(V) -> print_list(V);
print_string(V) when is_function(V) -> <<"a Block">>;
print_string(#{?CLASS_KEY := Class} = V) -> print_tagged(Class, V);
print_string(V) when is_map(V) -> print_dictionary(V);
print_string({beamtalk_object, Tag, _Mod, _Pid} = V) -> print_object(Tag, V);
print_string(V) when is_tuple(V) ->
    Elems = [print_string(E) || E <- tuple_to_list(V)],
    iolist_to_binary([${, join(Elems, <<", ">>), $}]);
print_string(V) when is_pid(V) ->
    iolist_to_binary(["#Pid", erlang:pid_to_list(V)]);
print_string(V) when is_port(V) ->
    "#Port" ++ Rest = erlang:port_to_list(V),
    iolist_to_binary(["#Port", Rest]);
print_string(V) when is_reference(V) ->
    "#Ref" ++ Rest = erlang:ref_to_list(V),
    iolist_to_binary(["#Ref", Rest]);
print_string(V) ->
    iolist_to_binary(io_lib:format("~p", [V])).

%% @doc The user form: strings raw, symbols without '#', the rest as printString.
-spec display_string(term()) -> binary().
display_string(V) when is_binary(V) -> V;
display_string(V) when is_atom(V), V =/= nil, V =/= true, V =/= false ->
    atom_to_binary(V, utf8);
display_string(V) -> print_string(V).

%% @doc `#foo`, `#at:put:`, `#+`, or `#'hello world'` when the name is not a
%% bare symbol.
-spec symbol_string(atom()) -> binary().
symbol_string(A) ->
    Name = atom_to_binary(A, utf8),
    case bare_symbol(Name) of
        true -> <<"#", Name/binary>>;
        false -> iolist_to_binary(["#'", binary:replace(Name, <<"'">>, <<"''">>, [global]), "'"])
    end.

bare_symbol(<<>>) -> false;
bare_symbol(<<C, _/binary>> = Name) when (C >= $a andalso C =< $z);
                                         (C >= $A andalso C =< $Z); C =:= $_ ->
    keyword_or_ident(Name);
bare_symbol(Name) ->
    lists:all(fun(C) -> lists:member(C, "+-*/<>=~%&?,\\") end, binary_to_list(Name)).

%% ident, or a run of `ident:` parts (optionally ending in an ident).
keyword_or_ident(Name) ->
    case re:run(Name, "^(?:[A-Za-z_][A-Za-z0-9_]*:)*[A-Za-z_][A-Za-z0-9_]*:?$", [{capture, none}]) of
        match -> true;
        nomatch -> false
    end.

quote_string(Bin) ->
    <<$", (binary:replace(Bin, <<"\"">>, <<"\"\"">>, [global]))/binary, $">>.

print_list(L) ->
    {Elems, Tail} = split_list(L, []),
    Body = join([print_string(E) || E <- Elems], <<", ">>),
    case Tail of
        [] -> iolist_to_binary(["#(", Body, ")"]);
        _ -> iolist_to_binary(["#(", Body, " | ", print_string(Tail), ")"])
    end.

split_list([H | T], Acc) -> split_list(T, [H | Acc]);
split_list(Tail, Acc) -> {lists:reverse(Acc), Tail}.

print_dictionary(M) ->
    Pairs = [iolist_to_binary([print_string(K), " => ", print_string(V)])
             || {K, V} <- maps:to_list(M)],
    iolist_to_binary(["#{", join(lists:sort(Pairs), <<", ">>), "}"]).

print_tagged('Association', #{key := K, value := V}) ->
    iolist_to_binary([print_string(K), " -> ", print_string(V)]);
print_tagged('ErlangModule', #{module := M}) ->
    iolist_to_binary(["#ErlangModule<", atom_to_binary(M, utf8), ">"]);
print_tagged('Array', #{elements := Arr}) ->
    Elems = [print_string(E) || E <- array:to_list(Arr)],
    iolist_to_binary(["#[", join(Elems, <<", ">>), "]"]);
print_tagged(_Class, #{error := #{message := Message}}) ->
    %% An exception prints as its message text.
    field_text(Message);
print_tagged(Class, _V) ->
    iolist_to_binary(["a ", atom_to_binary(Class, utf8)]).

print_object(Tag, _V) ->
    TagBin = atom_to_binary(Tag, utf8),
    case binary:split(TagBin, <<" class">>) of
        [Name, <<>>] -> Name;                 % a class object: its name
        _ when Tag =:= 'Metaclass' -> <<"Metaclass">>;
        _ -> <<"a ", TagBin/binary>>
    end.

field_text(B) when is_binary(B) -> B;
field_text(A) when is_atom(A) -> atom_to_binary(A, utf8);
field_text(T) -> print_string(T).

join([], _Sep) -> [];
join([H | T], Sep) -> [H | [[Sep, E] || E <- T]].
