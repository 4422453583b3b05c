%% @doc What the REPL asks the node while a line is being typed or for
%% `:help`: completion candidates and class documentation.  Reached only
%% through the workspace server's `{complete, Session, Req}` and
%% `{docs, Class}` requests (DESIGN D3); the text analysis (which word is
%% being typed, what its receiver is) stays in Python
%% (beamtalk_ws/repl/completer.py), this module answers what needs the
%% node: the classes of binding values, method tables including inherited
%% selectors, Erlang modules and their exports.
%%
%% Requests (`complete/2`), each answered `{ok, [atom() | binary()]}`:
%%   classes                       - class names and workspace globals
%%   {selectors, {binding, Name}}  - what the value bound to Name understands
%%   {selectors, {instance, Class}} - instance side of Class (inherited too)
%%   {selectors, {class, Name}}    - class side of Class (metaclass chain too),
%%                                   or what the workspace global Name
%%                                   (`Transcript`) understands
%%   {selectors, {metaclass, Name}} - what `Name class` understands (a
%%                                   metaclass: Metaclass's protocol)
%%   {selectors, {chain, Base, [Sel]}} - what `Base sel1 sel2 ...` answers
%%                                   understands (Base one of the above, the
%%                                   sends unary), when that is known without
%%                                   running anything (see step/2)
%%   {selectors, {erlang, Module}} - Module's exports as Beamtalk selectors
%%   {modules, Prefix}             - Erlang modules (loaded or on the code
%%                                   path) whose name starts with Prefix
-module(beamtalk_complete).

-export([complete/2, docs/1, erlang_selector/2, erlang_selectors/1, class_names/0,
         actor_count/0]).

-define(CK, '$beamtalk_class').
-define(TAB, beamtalk_class_registry).
-define(MAX_MODULES, 500).
-define(ACTOR_PROTOCOL, [isAlive, stop, kill, monitor]).

complete(_Bindings, classes) ->
    Globals = [N || N <- maps:keys(beamtalk_class:globals()), is_atom(N)],
    {ok, lists:usort(class_names() ++ Globals)};
complete(_Bindings, {selectors, {erlang, Module}}) ->
    {ok, erlang_selectors(Module)};
complete(Bindings, {selectors, {chain, Base, Sels}}) when is_list(Sels) ->
    {ok, understood(lists:foldl(fun step/2, receiver(Base, Bindings), Sels))};
complete(Bindings, {selectors, Base}) ->
    {ok, understood(receiver(Base, Bindings))};
complete(_Bindings, {modules, Prefix}) when is_binary(Prefix) ->
    {ok, modules(Prefix)};
complete(_Bindings, _Other) ->
    {error, unknown_request}.

%%% ---------------------------------------------------------------------
%%% Receivers: what a send to the text before the cursor would reach,
%%% without running it.  `{value, V}` a known value (a binding, a global),
%%% `{instance, C}` some instance of C, `{class, C}` the class object C,
%%% `{meta, C}` the metaclass `C class`, `unknown` anything else.
%%% ---------------------------------------------------------------------

receiver({binding, Name}, Bindings) ->
    case Bindings of
        #{Name := V} -> {value, V};
        _ -> unknown
    end;
receiver({instance, C}, _) when is_atom(C) ->
    {instance, C};
receiver({class, Name}, _) when is_atom(Name) ->
    case beamtalk_class:exists(Name) of
        true -> {class, Name};
        false ->
            case beamtalk_class:globals() of
                #{Name := V} -> {value, V};
                _ -> unknown
            end
    end;
receiver({metaclass, Name}, Bindings) ->
    step(class, receiver({class, Name}, Bindings));
receiver(_, _) ->
    unknown.

%% @doc The receiver of the next send after `R Sel`.  `class` and `yourself`
%% are answered by compiled code without a send (codegen `specialised`), so
%% they are always known; any other selector only when the method a send
%% would run is the stdlib's (a protected class: nothing the user wrote) and
%% result/4 knows what it answers.  Nothing is ever sent.
step(_Sel, unknown) ->
    unknown;
step(yourself, R) ->
    R;
step(class, {value, V}) ->
    {value, beamtalk_send:class_of(V)};
step(class, {instance, C}) ->
    {class, C};
step(class, {class, C}) ->
    {meta, C};
step(class, {meta, _}) ->
    {class, 'Metaclass'};
step(Sel, {value, V}) ->
    step(Sel, type_of(V));
step(Sel, R) ->
    case definer(R, Sel) of
        {D, Side} ->
            case beamtalk_class:entry(D) of
                #{protected := true} -> result(D, Side, Sel, R);
                _ -> unknown
            end;
        none -> unknown
    end.

type_of({beamtalk_object, 'Metaclass', beamtalk_class, _} = M) ->
    {meta, beamtalk_class:name_of(M)};
type_of({beamtalk_object, _, beamtalk_class, _} = C) ->
    {class, beamtalk_class:name_of(C)};
type_of(V) ->
    {instance, beamtalk_send:class_name(V)}.

%% The class (and its side: methods or class_methods) whose own method a
%% send of Sel to R runs: the nearest on R's lookup chain (for a class
%% object, its class chain's class methods, then the instance protocol of
%% Class and its superclasses) if that is the very method of R's table;
%% none when not understood or synthesised (value accessors).
definer(R, Sel) ->
    case maps:find(Sel, table(R)) of
        {ok, M} -> first_own(lookup_chain(R), Sel, M);
        error -> none
    end.

lookup_chain({instance, C}) ->
    [{X, methods} || X <- [C | beamtalk_class:superclasses(C)]];
lookup_chain({class, C}) ->
    [{X, class_methods} || X <- [C | beamtalk_class:superclasses(C)]]
        ++ lookup_chain({instance, 'Class'});
lookup_chain({meta, _}) ->
    lookup_chain({instance, 'Metaclass'}).

first_own([{C, Side} | Rest], Sel, M) ->
    case beamtalk_class:entry(C) of
        #{Side := #{Sel := M}} -> {C, Side};
        #{Side := #{Sel := _}} -> none;
        _ -> first_own(Rest, Sel, M)
    end;
first_own([], _, _) ->
    none.

%% @doc What a stdlib method answers, where that is fixed: Defining class,
%% side, selector, receiver -> receiver of the next send, or unknown.
result(_, _, S, _) when S =:= printString; S =:= displayString; S =:= asString ->
    {instance, 'String'};
result(_, _, asSymbol, _) ->
    {instance, 'Symbol'};
result(D, methods, classBuilder, _) when D =:= 'Class'; D =:= 'UndefinedObject' ->
    {instance, 'ClassBuilder'};
result('Class', methods, name, _) ->
    {instance, 'Symbol'};
result('Metaclass', methods, name, _) ->
    {instance, 'String'};
result(_, methods, thisClass, {Side, C}) when Side =:= class; Side =:= meta ->
    {class, C};
result('Behaviour', methods, superclass, {class, C}) ->
    case beamtalk_class:superclass(C) of
        nil -> {instance, 'UndefinedObject'};
        S -> {class, S}
    end;
result('Behaviour', methods, superclass, {meta, C}) ->
    case beamtalk_class:superclass(C) of
        nil -> {class, 'Class'};
        S -> {meta, S}
    end;
result('Behaviour', methods, new, {class, C}) ->
    {instance, C};
result('Actor', class_methods, spawn, {class, C}) ->
    {instance, C};
result(_, _, _, _) ->
    unknown.

%% The method table a send to R consults.
table({value, V}) -> beamtalk_send:table_of(V);
table({instance, C}) -> beamtalk_class:instance_methods(C);
table({class, C}) -> beamtalk_class:class_side_methods(C);
table({meta, C}) -> beamtalk_send:table_of(beamtalk_class:metaclass_object(C));
table(unknown) -> #{}.

%% What R understands: its table, and for actors the actor protocol.
understood({value, V}) ->
    value_selectors(V);
understood({instance, C} = R) ->
    Extra = case beamtalk_class:class_info(C) of
                #{kind := actor} -> ?ACTOR_PROTOCOL;
                _ -> []
            end,
    lists:usort(selectors(table(R)) ++ Extra);
understood(R) ->
    selectors(table(R)).

%% The selectors a send to V consults (beamtalk_send:table_of/1), plus the
%% actor protocol every actor answers; an Erlang module proxy answers its
%% module's exports.
value_selectors(#{?CK := 'ErlangModule', module := M}) ->
    erlang_selectors(M) ++ selectors(beamtalk_class:instance_methods('ErlangModule'));
value_selectors({beamtalk_object, _, Mod, _} = V) when Mod =/= beamtalk_class ->
    lists:usort(selectors(beamtalk_send:table_of(V)) ++ ?ACTOR_PROTOCOL);
value_selectors(V) ->
    selectors(beamtalk_send:table_of(V)).

selectors(Table) when is_map(Table) ->
    lists:sort([S || S <- maps:keys(Table), is_atom(S), S =/= '$info']);
selectors(_) ->
    [].

%% @doc `lists:seq/2` is sent as `seq:with:`, `lists:reverse/1` as
%% `reverse:`, `erlang:now/0` as `now` (the first keyword names the
%% function, see beamtalk_erlang:function_name/1).
erlang_selector(F, 0) ->
    F;
erlang_selector(F, N) when N > 0 ->
    binary_to_atom(iolist_to_binary([atom_to_binary(F, utf8), ":"
                                     | lists:duplicate(N - 1, "with:")]), utf8).

erlang_selectors(Module) when is_atom(Module) ->
    lists:usort([erlang_selector(F, A) || {F, A} <- beamtalk_erlang:exports(Module),
                                          F =/= module_info, sendable(F)]);
erlang_selectors(_) ->
    [].

%% Only functions (and modules: `Erlang OTP-PUB-KEY` does not parse) whose
%% name reads as a Beamtalk selector part.
sendable(F) when is_atom(F) ->
    sendable(atom_to_list(F));
sendable(F) ->
    case F of
        [C | Rest] when C >= $a, C =< $z; C =:= $_ ->
            lists:all(fun(X) -> (X >= $a andalso X =< $z) orelse (X >= $A andalso X =< $Z)
                                    orelse (X >= $0 andalso X =< $9) orelse X =:= $_ end, Rest);
        _ -> false
    end.

modules(Prefix) ->
    Loaded = [atom_to_binary(M, utf8) || {M, _} <- code:all_loaded()],
    Available = try [unicode:characters_to_binary(N) || {N, _, _} <- code:all_available()]
                catch _:_ -> []
                end,
    Size = byte_size(Prefix),
    Found = [M || M <- lists:usort(Loaded ++ Available),
                  binary:longest_common_prefix([M, Prefix]) =:= Size,
                  not is_beamtalk_module(M),
                  sendable(binary_to_list(M))],
    lists:sublist(Found, ?MAX_MODULES).

%% The runtime's own modules and compiled classes are not what a user
%% reaches through `Erlang`.
is_beamtalk_module(<<"bt@", _/binary>>) -> true;
is_beamtalk_module(_) -> false.

%% @doc Registered class names, without copying the class entries.
class_names() ->
    try lists:sort(ets:select(?TAB, [{{'$1', '_'}, [{is_atom, '$1'}], ['$1']}]))
    catch _:_ -> []
    end.

actor_count() ->
    try proplists:get_value(active, supervisor:count_children(beamtalk_actor_sup), 0)
    catch _:_ -> 0
    end.

%% @doc What `:help Class` and `:help Class selector` show:
%% `{ok, #{name, superclass, superclasses, kind, doc, instance, class}}` where
%% instance and class list `{Selector, DefiningClass, Doc}` for every
%% selector of that side (inherited ones too), or `{error, not_found}`.
docs(Name) when is_atom(Name) ->
    case beamtalk_class:entry(Name) of
        E when is_map(E) ->
            Chain = [Name | beamtalk_class:superclasses(Name)],
            Entries = [{C, beamtalk_class:entry(C)} || C <- Chain],
            MetaChain = [{C, beamtalk_class:entry(C)}
                         || C <- ['Class' | beamtalk_class:superclasses('Class')]],
            {ok, #{name => Name,
                   superclass => maps:get(superclass, E, nil),
                   superclasses => tl(Chain),
                   kind => kind(Name, E),
                   doc => maps:get(doc, E, nil),
                   instance => side(beamtalk_class:instance_methods(Name), Entries, [],
                                    methods, false, Name),
                   class => side(beamtalk_class:class_side_methods(Name), Entries, MetaChain,
                                 class_methods, true, Name)}};
        _ ->
            {error, not_found}
    end;
docs(_) ->
    {error, not_found}.

kind(Name, E) ->
    case beamtalk_class:class_info(Name) of
        #{kind := K} -> K;
        _ -> maps:get(kind, E, object)
    end.

%% For each selector of a side's flattened table: the class that defines it
%% (the nearest on the chain whose own table has it; for the class side,
%% after the class chain, the instance protocol of Class, Behaviour, Object)
%% and its doc comment.
side(Table, Entries, MetaChain, Key, ClassSide, Name) ->
    [begin
         {Definer, Doc} = definer(Sel, Entries, Key, ClassSide, MetaChain, Name),
         {Sel, Definer, Doc}
     end || Sel <- selectors(Table)].

definer(Sel, [{C, E} | Rest], Key, ClassSide, MetaChain, Name) when is_map(E) ->
    case maps:is_key(Sel, maps:get(Key, E, #{})) of
        true -> {C, method_doc(E, Sel, ClassSide)};
        false -> definer(Sel, Rest, Key, ClassSide, MetaChain, Name)
    end;
definer(Sel, [_ | Rest], Key, ClassSide, MetaChain, Name) ->
    definer(Sel, Rest, Key, ClassSide, MetaChain, Name);
definer(Sel, [], _Key, true, [_ | _] = MetaChain, Name) ->
    definer(Sel, MetaChain, methods, false, [], Name);
definer(_Sel, [], _Key, _ClassSide, _MetaChain, Name) ->
    %% Synthesised (accessors of value classes): the class itself.
    {Name, nil}.

method_doc(E, Sel, ClassSide) ->
    case maps:get(method_info, E, #{}) of
        #{{Sel, ClassSide} := #{doc := Doc}} when is_binary(Doc) -> Doc;
        _ -> nil
    end.
