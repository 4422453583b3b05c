%% @doc printString and displayString of Beamtalk values (DESIGN D9,
%% spec/semantics.md section 11.1).
%%
%% Why here and not in Python: the REPL shows what the *node* says a value
%% looks like, so a user class that overrides printString is honoured, and
%% any other tool attached to the workspace sees the same text.
%%
%% `print_string/1` sends `printString` to value objects and actors whose
%% class overrides it (the override must answer a String; anything else, an
%% error, a dead or busy actor, or nesting deeper than 32 levels falls back
%% to the default rendering, so printing never fails and never loops).
%% `base_print_string/1` is the default rendering of the receiver itself
%% (what `Object>>printString` answers); elements of collections inside it
%% are still printed with `print_string/1`.
-module(beamtalk_print).
-export([print_string/1, display_string/1, base_print_string/1,
         display_string_via_print/1, symbol_string/1]).

-define(CLASS_KEY, '$beamtalk_class').
-define(DEPTH_KEY, '$bt_print_depth').
-define(MAX_DEPTH, 32).
-define(ACTOR_PRINT_TIMEOUT, 2000).

%% @doc The developer form: reads back as source where possible.
-spec print_string(term()) -> binary().
print_string(#{?CLASS_KEY := Class} = V) ->
    with_override(Class, V, printString, fun() -> print_tagged(Class, V) end);
print_string({beamtalk_object, Tag, Mod, _Pid} = V) when Mod =/= beamtalk_class ->
    with_override(Tag, V, printString, fun() -> print_object(V) end);
print_string(V) ->
    base_print_string(V).

%% @doc The default rendering (never sends printString to V itself).
-spec base_print_string(term()) -> binary().
base_print_string(V) when is_integer(V) -> integer_to_binary(V);
base_print_string(V) when is_float(V) -> float_to_binary(V, [short]);
base_print_string(V) when is_binary(V) -> quote_string(V);
base_print_string(V) when is_bitstring(V) -> iolist_to_binary(io_lib:format("~p", [V]));
base_print_string(nil) -> <<"nil">>;
base_print_string(true) -> <<"true">>;
base_print_string(false) -> <<"false">>;
base_print_string(V) when is_atom(V) -> symbol_string(V);
base_print_string(V) when is_list(V) -> print_list(V);
base_print_string(V) when is_function(V) -> <<"a Block">>;
base_print_string(#{?CLASS_KEY := Class} = V) -> print_tagged(Class, V);
base_print_string(V) when is_map(V) -> print_dictionary(V);
base_print_string({beamtalk_object, _, _, _} = V) -> print_object(V);
base_print_string(V) when is_tuple(V) ->
    Elems = [print_string(E) || E <- tuple_to_list(V)],
    iolist_to_binary([${, join(Elems, <<", ">>), $}]);
base_print_string(V) when is_pid(V) ->
    iolist_to_binary(["#Pid", erlang:pid_to_list(V)]);
base_print_string(V) when is_port(V) ->
    "#Port" ++ Rest = erlang:port_to_list(V),
    iolist_to_binary(["#Port", Rest]);
base_print_string(V) when is_reference(V) ->
    "#Ref" ++ Rest = erlang:ref_to_list(V),
    iolist_to_binary(["#Ref", Rest]);
base_print_string(V) ->
    iolist_to_binary(io_lib:format("~p", [V])).

%% @doc The user form: strings raw, symbols without '#', objects whose class
%% overrides displayString by that, the rest as printString.
-spec display_string(term()) -> binary().
display_string(V) when is_binary(V) -> V;
display_string(V) when is_atom(V), V =/= nil, V =/= true, V =/= false ->
    atom_to_binary(V, utf8);
display_string(#{?CLASS_KEY := Class} = V) ->
    with_override(Class, V, displayString, fun() -> print_string(V) end);
display_string({beamtalk_object, Tag, Mod, _Pid} = V) when Mod =/= beamtalk_class ->
    with_override(Tag, V, displayString, fun() -> print_string(V) end);
display_string(V) -> print_string(V).

%% @doc What `Object>>displayString` answers: the display form, but with a
%% user printString honoured (never the receiver's own displayString).
display_string_via_print(V) when is_binary(V) -> V;
display_string_via_print(V) when is_atom(V), V =/= nil, V =/= true, V =/= false ->
    atom_to_binary(V, utf8);
display_string_via_print(V) -> print_string(V).

%% Send Sel to V when its class overrides it with a non-primitive method.
with_override(Class, V, Sel, Default) ->
    case override(Class, Sel) of
        false -> Default();
        true ->
            Depth = case get(?DEPTH_KEY) of undefined -> 0; D -> D end,
            case Depth >= ?MAX_DEPTH orelse self_actor(V) of
                true -> Default();
                false ->
                    put(?DEPTH_KEY, Depth + 1),
                    try send_print(V, Sel) of
                        B when is_binary(B) -> B;
                        L when is_list(L) ->
                            try unicode:characters_to_binary(L) of
                                B2 when is_binary(B2) -> B2;
                                _ -> Default()
                            catch _:_ -> Default()
                            end;
                        _ -> Default()
                    catch _:_ -> Default()
                    after
                        case Depth of 0 -> erase(?DEPTH_KEY); _ -> put(?DEPTH_KEY, Depth) end
                    end
            end
    end.

send_print({beamtalk_object, _, _, _} = Actor, Sel) ->
    beamtalk_actor:call(Actor, Sel, [], ?ACTOR_PRINT_TIMEOUT);
send_print(V, Sel) ->
    beamtalk_send:send(V, Sel, []).

%% An actor printing itself (its inherited `displayString` running in its own
%% process) can run its printString there only while its state is in the
%% process dictionary (a value-style method, beamtalk_send:invoke_v/4);
%% otherwise a call to itself would deadlock, so the default is used.
self_actor({beamtalk_object, _, _, Pid}) ->
    Pid =:= self() andalso not is_map(get('$bt_vstate'));
self_actor(_) -> false.

%% A class overrides Sel when the method its table holds for Sel is not one
%% of the runtime's primitives.
override(Class, Sel) ->
    case persistent_term:get(Class, undefined) of
        #{'$info' := _, Sel := {_, F}} ->
            case erlang:fun_info(F, module) of
                {module, M} -> not is_primitive_module(M);
                _ -> false
            end;
        _ -> false
    end.

is_primitive_module(M) ->
    case atom_to_binary(M, utf8) of
        <<"beamtalk_prim_", _/binary>> -> true;
        _ -> false
    end.

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

%% A binary that is not UTF-8 (`Erlang crypto hash: ...`, `term_to_binary`)
%% is shown as its bytes, the way Erlang writes a binary, rather than as a
%% string of replacement characters.
quote_string(Bin) ->
    case unicode:characters_to_binary(Bin, utf8, utf8) of
        Valid when is_binary(Valid) ->
            case binary:match(Bin, controls()) of
                nomatch ->
                    <<$", (binary:replace(Bin, <<"\"">>, <<"\"\"">>, [global]))/binary, $">>;
                _ ->
                    bytes_text(Bin)
            end;
        _ ->
            bytes_text(Bin)
    end.

%% A binary that is not text prints as its bytes, as the Erlang shell
%% prints it: invalid UTF-8, or text holding a control character other
%% than tab, newline and return.  Strings have no escapes (spec syntax
%% §2.3), so such a String could not be shown in quotes honestly, and
%% printed raw its ESC sequences would recolour or move the terminal
%% (`Erlang erlang list_to_binary: #(27, 91, 51, 49, 109)`).
bytes_text(Bin) ->
    iolist_to_binary(["<<", lists:join(", ", [integer_to_binary(B) || <<B>> <= Bin]), ">>"]).

%% C0 controls but tab, LF and CR; DEL; the C1 controls (U+0080-U+009F,
%% which some terminals obey too), compiled once per node.
controls() ->
    case persistent_term:get(beamtalk_print_controls, undefined) of
        undefined ->
            P = binary:compile_pattern([<<C>> || C <- lists:seq(0, 31) ++ [127], C =/= 9, C =/= 10, C =/= 13]
                                       ++ [<<16#C2, C>> || C <- lists:seq(16#80, 16#9F)]),
            persistent_term:put(beamtalk_print_controls, P),
            P;
        P -> P
    end.

print_list(L) -> iolist_to_binary(list_io(L)).

%% Lists and Dictionaries nested in one another are printed as iodata and
%% made a binary once, at the top: a binary per level copied every level's
%% text into the one above (200 000 levels took longer than the 30 s timeout).
list_io(L) ->
    {Elems, Tail} = split_list(L, []),
    Body = join([elem_io(E) || E <- Elems], <<", ">>),
    case Tail of
        [] -> ["#(", Body, ")"];
        _ -> ["#(", Body, " | ", elem_io(Tail), ")"]
    end.

elem_io(V) when is_list(V) -> list_io(V);
elem_io(V) when is_map(V), not is_map_key(?CLASS_KEY, V) -> dictionary_io(V);
elem_io(V) -> print_string(V).

split_list([H | T], Acc) -> split_list(T, [H | Acc]);
split_list(Tail, Acc) -> {lists:reverse(Acc), Tail}.

print_dictionary(M) -> iolist_to_binary(dictionary_io(M)).

%% Pairs are ordered by their text `K => V`, as before, comparing the
%% (short) key texts with " => " appended and the values' texts only when
%% two keys print alike, so a value is not made a binary at every level.
dictionary_io(M) ->
    Pairs = [{print_string(K), elem_io(V)} || {K, V} <- maps:to_list(M)],
    Sorted = case Pairs of
                 [_] -> Pairs;
                 _ -> lists:sort(fun pair_le/2, Pairs)
             end,
    ["#{", join([[K, " => ", V] || {K, V} <- Sorted], <<", ">>), "}"].

pair_le({K, V1}, {K, V2}) -> iolist_to_binary(V1) =< iolist_to_binary(V2);
pair_le({K1, _}, {K2, _}) -> <<K1/binary, " => ">> =< <<K2/binary, " => ">>.

print_tagged('DeadObject', #{was := Was}) ->
    Was;
print_tagged('Regex', V) ->
    beamtalk_prim_regex:'printString'(V);
print_tagged('DateTime', V) ->
    beamtalk_prim_date_time:'printString'(V);
print_tagged('StackFrame', V) ->
    beamtalk_prim_stack_frame:'printString'(V);
print_tagged('Association', #{key := K, value := V}) ->
    iolist_to_binary([print_string(K), " -> ", print_string(V)]);
print_tagged('ErlangModule', #{module := M}) ->
    iolist_to_binary(["#ErlangModule<", atom_to_binary(M, utf8), ">"]);
print_tagged('Array', #{elements := Arr}) ->
    Elems = [print_string(E) || E <- array:to_list(Arr)],
    iolist_to_binary(["#[", join(Elems, <<", ">>), "]"]);
print_tagged('Set', #{elements := Elems}) when is_list(Elems) ->
    iolist_to_binary(["Set(", join([print_string(E) || E <- Elems], <<", ">>), ")"]);
print_tagged('CompiledMethod', #{selector := Sel}) ->
    iolist_to_binary(["a CompiledMethod(", atom_to_binary(Sel, utf8), ")"]);
print_tagged('TestResult', #{passed := P, total := T}) ->
    iolist_to_binary(["TestResult(", integer_to_binary(P), "/", integer_to_binary(T), " passed)"]);
print_tagged(_Class, #{error := #{kind := _}} = Ex) ->
    %% An exception prints as its message text (DESIGN D9).
    beamtalk_exception:message_text(Ex);
print_tagged(Class, _V) ->
    iolist_to_binary(["a ", atom_to_binary(Class, utf8)]).

%% Class objects print their name, metaclass objects "Name class" (the
%% name is found from the class process), actors "a Name".
print_object({beamtalk_object, 'Metaclass', beamtalk_class, Pid}) ->
    case catch beamtalk_class:name_from_pid(Pid) of
        Name when is_atom(Name), Name =/= undefined ->
            <<(atom_to_binary(Name, utf8))/binary, " class">>;
        _ -> <<"a Metaclass">>
    end;
print_object({beamtalk_object, Tag, _Mod, Pid}) ->
    TagBin = atom_to_binary(Tag, utf8),
    case binary:split(TagBin, <<" class">>) of
        [Name, <<>>] -> Name;                 % a class object: its name
        _ -> <<"a ", TagBin/binary, (on_node(Pid))/binary>>
    end.

%% An actor on another node than the workspace's names it (`Counter
%% spawnOn:`).  The text may be made on that node (an actor prints itself),
%% so "the workspace's node" is what beamtalk_cluster told that node.
on_node(Pid) when is_pid(Pid) ->
    case node(Pid) =/= persistent_term:get({beamtalk_cluster, home}, node()) of
        true -> <<" on ", (atom_to_binary(node(Pid), utf8))/binary>>;
        false -> <<>>
    end;
on_node(_) -> <<>>.

join([], _Sep) -> [];
join([H | T], Sep) -> [H | [[Sep, E] || E <- T]].
