%% @doc Primitive methods of Behaviour: the protocol of class objects and
%% (inherited by Metaclass) of metaclass objects (stdlib §7, spec §12).
%%
%% Self is a class object or a metaclass object; `beamtalk_class:behaviour/1`
%% turns it into `{class, Name}` (describes instances of Name) or
%% `{meta, Name}` (describes the class object Name), so the same code
%% answers `Counter methods` and `Counter class methods`.
-module(beamtalk_prim_behaviour).

-export(['superclass'/1, 'allSuperclasses'/1, 'subclasses'/1, 'allSubclasses'/1,
         'inheritsFrom:'/2, 'includesBehaviour:'/2, 'methods'/1, 'selectors'/1,
         'localMethods'/1, 'allMethods'/1, 'canUnderstand:'/2,
         'includesSelector:'/2, 'whichClassIncludesSelector:'/2, 'fieldNames'/1,
         'allFieldNames'/1, 'instanceVariableNames'/1, 'isBehaviour'/1,
         'isMeta'/1, 'isMetaclass'/1, 'isClass'/1, 'thisClass'/1, 'new'/1,
         'new:'/2, 'doc'/1, 'doc:'/2, 'sourceFile'/1, '>>'/2,
         'removeFromSystem'/1, 'isAbstract'/1, 'isSealed'/1, 'kind'/1,
         'classVariableNames'/1, 'reload'/1, 'setDocForMethod:to:'/3,
         'compile:'/2, 'removeSelector:'/2]).

b(Self) -> beamtalk_class:behaviour(Self).

'superclass'(Self) ->
    case beamtalk_class:behaviour_super(b(Self)) of
        nil -> nil;
        S -> beamtalk_class:behaviour_object(S)
    end.

supers(B) -> supers(beamtalk_class:behaviour_super(B), 0).
supers(nil, _) -> [];
supers(_, N) when N > 100 -> [];
supers(B, N) -> [B | supers(beamtalk_class:behaviour_super(B), N + 1)].

'allSuperclasses'(Self) -> [beamtalk_class:behaviour_object(B) || B <- supers(b(Self))].

'subclasses'(Self) -> [beamtalk_class:behaviour_object(B) || B <- subs(b(Self))].
'allSubclasses'(Self) -> [beamtalk_class:behaviour_object(B) || B <- all_subs(b(Self))].

subs({class, N}) -> [{class, S} || S <- beamtalk_class:subclasses(N)];
subs({meta, N}) -> [{meta, S} || S <- beamtalk_class:subclasses(N)].
all_subs(B) -> lists:append([[S | all_subs(S)] || S <- subs(B)]).

'inheritsFrom:'(Self, Other) -> is_behaviour(Other) andalso lists:member(b(Other), supers(b(Self))).
'includesBehaviour:'(Self, Other) ->
    is_behaviour(Other) andalso (b(Self) =:= b(Other) orelse 'inheritsFrom:'(Self, Other)).

is_behaviour({beamtalk_object, _, beamtalk_class, _}) -> true;
is_behaviour(_) -> false.

'methods'(Self) -> lists:sort(maps:keys(beamtalk_class:behaviour_own(b(Self)))).
'selectors'(Self) -> 'methods'(Self).
'localMethods'(Self) -> 'methods'(Self).
'allMethods'(Self) -> lists:sort(maps:keys(beamtalk_class:behaviour_table(b(Self)))).
'canUnderstand:'(Self, Sel) -> maps:is_key(Sel, beamtalk_class:behaviour_table(b(Self))).
'includesSelector:'(Self, Sel) -> maps:is_key(Sel, beamtalk_class:behaviour_own(b(Self))).
'whichClassIncludesSelector:'(Self, Sel) ->
    case [B || B <- [b(Self) | supers(b(Self))],
               maps:is_key(Sel, beamtalk_class:behaviour_own(B))] of
        [B | _] -> beamtalk_class:behaviour_object(B);
        [] -> nil
    end.

'fieldNames'(Self) ->
    case b(Self) of
        {class, N} -> [F || {F, _} <- field_specs(N)];
        {meta, _} -> []
    end.
'instanceVariableNames'(Self) -> 'fieldNames'(Self).
'allFieldNames'(Self) ->
    case b(Self) of
        {class, N} ->
            case beamtalk_class:class_info(N) of
                #{fields := Fs} -> [F || {F, _} <- Fs];
                _ -> []
            end;
        {meta, _} -> []
    end.
'classVariableNames'(Self) ->
    beamtalk_class:declared_class_vars(beamtalk_class:name_of(Self)).

field_specs(N) ->
    case beamtalk_class:entry(N) of
        #{fields := Fs} -> Fs;
        _ -> []
    end.

'isBehaviour'(_) -> true.
'isMeta'(Self) -> element(1, b(Self)) =:= meta.
'isMetaclass'(Self) -> 'isMeta'(Self).
'isClass'(Self) -> not 'isMeta'(Self).
'thisClass'(Self) -> beamtalk_class:class_object(beamtalk_class:name_of(Self)).

'new'(Self) ->
    case b(Self) of
        {class, N} -> beamtalk_object:new(N);
        {meta, N} -> metaclass_new(N)
    end.

'new:'(Self, Map) ->
    case b(Self) of
        {class, N} ->
            %% `new:` builds on the class's own `new` (an override is honoured),
            %% except when reached by `super new:` (beamtalk_send:super_send/4),
            %% which an override of `new` itself uses: honouring it there
            %% would call that override again, forever.
            beamtalk_object:check_instantiable(N, 'new:'),
            ViaSuper = case get(beamtalk_super_new) of
                           Self -> erase(beamtalk_super_new), true;
                           _ -> false
                       end,
            case is_map(Map) of
                true when ViaSuper -> beamtalk_object:new(N, Map);
                true -> maps:merge(new_instance(N, Self), maps:remove('$beamtalk_class', Map));
                false -> beamtalk_object:new(N, Map)
            end;
        {meta, N} -> metaclass_new(N)
    end.

%% What `Self new` answers: a class whose `new` is Behaviour's own (the
%% stdlib method over this module's primitive; no override anywhere on its
%% chain) is instantiated here, without a second send and a second
%% instantiability check (`new:` already made it).
%% The class-side table is read under the tag the class object carries, as
%% the send does (beamtalk_class:class_side_methods/1 would build the tag
%% atom from the name first, which costs more than the send it saves).
new_instance(N, {beamtalk_object, Tag, beamtalk_class, _} = Self) ->
    Own = fun 'bt@stdlib@behaviour':new/1,
    case persistent_term:get(Tag, undefined) of
        #{new := {v, Own}} -> beamtalk_object:instantiate(N);
        _ -> beamtalk_send:send(Self, new, [])
    end;
new_instance(_N, Self) ->
    beamtalk_send:send(Self, new, []).

metaclass_new(N) ->
    beamtalk_exception:raise(user_error, 'Metaclass', new,
                             iolist_to_binary(["Cannot create instances of ",
                                               atom_to_binary(N, utf8), " class"]),
                             <<"A metaclass has exactly one instance, its class: use x class to obtain the metaclass of x">>).

'doc'(Self) ->
    case beamtalk_class:entry(beamtalk_class:name_of(Self)) of
        #{doc := D} -> D;
        _ -> nil
    end.
'doc:'(Self, Text) when is_binary(Text); Text =:= nil ->
    beamtalk_class:set_doc(beamtalk_class:name_of(Self), Text),
    Self;
'doc:'(Self, Text) ->
    %% a doc is shown as text (:help, Beamtalk help:); a number kept here
    %% would surface later, far from the mistake
    Name = beamtalk_class:name_of(Self),
    beamtalk_rt:type_error(Name, 'doc:', Text, "a String",
                           iolist_to_binary(["Type error in 'doc:' on ", atom_to_binary(Name, utf8)])).
'sourceFile'(Self) ->
    case beamtalk_class:entry(beamtalk_class:name_of(Self)) of
        #{source_file := F} when is_binary(F) -> F;
        _ -> nil
    end.

%% @doc `C >> #sel`: the CompiledMethod of a method the class defines.
'>>'(Self, Sel) when not is_atom(Sel) ->
    beamtalk_send:symbol_expected(beamtalk_class:name_of(Self), '>>', "a selector (a Symbol)", Sel);
'>>'(Self, Sel) ->
    B = b(Self),
    Name = beamtalk_class:name_of(Self),
    case maps:is_key(Sel, beamtalk_class:behaviour_own(B)) of
        false -> not_defined(Self, B, Sel);
        true ->
            Side = element(1, B) =:= meta,
            Info = case beamtalk_class:entry(Name) of
                       #{method_info := MI} -> maps:get({Sel, Side}, MI, #{});
                       _ -> #{}
                   end,
            #{'$beamtalk_class' => 'CompiledMethod', selector => Sel,
              class => Name,
              source => maps:get(source, Info, nil),
              doc => maps:get(doc, Info, nil)}
    end.

%% The hint names the other side of the class when it defines the selector
%% (`Foo >> #make` for a class-side `make`).
not_defined(Self, {Side, Name} = _B, Sel) ->
    S = beamtalk_print:display_string(Sel),
    N = atom_to_binary(Name, utf8),
    Other = case Side of class -> {meta, Name}; meta -> {class, Name} end,
    Hint = case is_atom(Sel) andalso maps:is_key(Sel, beamtalk_class:behaviour_own(Other)) of
               true when Side =:= class ->
                   iolist_to_binary([S, " is a class-side method of ", N, ": ", N, " class >> #", S]);
               true ->
                   iolist_to_binary([S, " is an instance method of ", N, ": ", N, " >> #", S]);
               false ->
                   <<"Use whichClassIncludesSelector: to find where it is defined">>
           end,
    beamtalk_exception:raise(does_not_understand, Name, Sel,
                             iolist_to_binary([beamtalk_print:print_string(Self), " does not define '", S, "'"]),
                             Hint).

%% @doc `C setDocForMethod: #sel to: "text"` (stdlib §7): the doc that
%% `(C >> #sel) doc` and `:help C sel` show.  Only a method C defines itself.
'setDocForMethod:to:'(Self, Sel, Text) when is_atom(Sel), (is_binary(Text) orelse Text =:= nil) ->
    B = b(Self),
    Name = beamtalk_class:name_of(Self),
    case maps:is_key(Sel, beamtalk_class:behaviour_own(B)) of
        false -> not_defined(Self, B, Sel);
        true ->
            beamtalk_class:set_method_doc(Name, Sel, element(1, B) =:= meta, Text),
            Self
    end;
'setDocForMethod:to:'(Self, Sel, Text) ->
    beamtalk_exception:raise(type_error, beamtalk_class:name_of(Self), 'setDocForMethod:to:',
                             iolist_to_binary(["setDocForMethod:to: expects a Symbol and a String, not ",
                                               beamtalk_print:print_string(Sel), " and ",
                                               beamtalk_print:print_string(Text)]), nil).

'removeFromSystem'(Self) ->
    beamtalk_class:remove(beamtalk_class:name_of(Self)).

'isAbstract'(Self) -> has_modifier(Self, abstract).
'isSealed'(Self) -> has_modifier(Self, sealed).
has_modifier(Self, M) ->
    case beamtalk_class:class_info(beamtalk_class:name_of(Self)) of
        #{modifiers := Ms} -> lists:member(M, Ms);
        _ -> false
    end.

%% @doc #actor, #value or #object (spec §3.2).
'kind'(Self) ->
    case beamtalk_class:class_info(beamtalk_class:name_of(Self)) of
        #{kind := K} -> K;
        _ -> nil
    end.

%% Live class editing through the node's compiler peer (beamtalk_live).
'reload'(Self) -> beamtalk_live:reload(Self).
'compile:'(Self, Source) -> beamtalk_live:compile(Self, Source).
'removeSelector:'(Self, Sel) -> beamtalk_live:remove_selector(Self, Sel).
