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
%%   {selectors, {class, Class}}   - class side of Class (metaclass chain too)
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
complete(Bindings, {selectors, {binding, Name}}) ->
    case Bindings of
        #{Name := V} -> {ok, value_selectors(V)};
        _ -> {ok, []}
    end;
complete(_Bindings, {selectors, {instance, Class}}) ->
    Extra = case beamtalk_class:class_info(Class) of
                #{kind := actor} -> ?ACTOR_PROTOCOL;
                _ -> []
            end,
    {ok, selectors(beamtalk_class:instance_methods(Class)) ++ Extra};
complete(_Bindings, {selectors, {class, Class}}) ->
    {ok, selectors(beamtalk_class:class_side_methods(Class))};
complete(_Bindings, {selectors, {erlang, Module}}) ->
    {ok, erlang_selectors(Module)};
complete(_Bindings, {modules, Prefix}) when is_binary(Prefix) ->
    {ok, modules(Prefix)};
complete(_Bindings, _Other) ->
    {error, unknown_request}.

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

%% Only functions whose name reads as a Beamtalk selector part.
sendable(F) ->
    case atom_to_list(F) of
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
                  not is_beamtalk_module(M)],
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
