%% @doc BeamtalkInterface, bound as `Beamtalk` (stdlib §10): the system as a
%% whole — its version, its classes, their documentation.  Actor-style
%% primitives (`{Result, State}`).
-module(beamtalk_prim_beamtalk_interface).
-export(['version'/2, 'allClasses'/2, 'classNamed:'/3, 'globals'/2, 'help:'/3,
         'help:selector:'/4, 'class current'/1, 'class current:'/2]).

'class current'(_Cls) -> beamtalk_singletons:current('BeamtalkInterface').
'class current:'(_Cls, Actor) -> beamtalk_singletons:set_current('BeamtalkInterface', Actor).

'version'(_Self, S) -> {<<"0.1.0">>, S}.

'allClasses'(_Self, S) -> {lists:sort(beamtalk_class:all_names()), S}.

'classNamed:'(_Self, S, Name) when is_atom(Name) ->
    {case beamtalk_class:exists(Name) of
         true -> beamtalk_class:class_object(Name);
         false -> nil
     end, S};
'classNamed:'(Self, S, Name) when is_binary(Name) ->
    %% a String names a class as well as a Symbol does; an unknown name is
    %% not made an atom (a class has one already)
    try binary_to_existing_atom(Name, utf8) of
        Atom -> 'classNamed:'(Self, S, Atom)
    catch error:badarg -> {nil, S}
    end;
'classNamed:'(_Self, S, _) -> {nil, S}.

'globals'(_Self, S) ->
    {maps:from_list([{N, beamtalk_class:class_object(N)} || N <- beamtalk_class:all_names()]), S}.

%% @doc `== Integer < Number ==`, the class comment, then its own selectors.
'help:'(_Self, S, Cls) ->
    Name = name(Cls),
    Super = case beamtalk_class:superclass(Name) of nil -> <<"nil">>; Sup -> atom_to_binary(Sup) end,
    Doc = case maps:get(doc, beamtalk_class:entry(Name), nil) of
              D when is_binary(D) -> [D, "\n"];
              _ -> []
          end,
    Own = lists:sort(maps:keys(maps:get(methods, beamtalk_class:entry(Name), #{}))),
    {iolist_to_binary(["== ", atom_to_binary(Name), " < ", Super, " ==\n", Doc,
                       "Instance methods:\n", [["  ", atom_to_binary(Sel), "\n"] || Sel <- Own]]), S}.

%% @doc `Integer >> sel` and the method's doc; inherited ones say where from.
'help:selector:'(_Self, _S, _Cls, Sel) when not is_atom(Sel) ->
    beamtalk_send:symbol_expected('BeamtalkInterface', 'help:selector:', "a selector (a Symbol)", Sel);
'help:selector:'(_Self, S, Cls, Sel) ->
    Name = name(Cls),
    case beamtalk_class:is_kind_of_class(Name, Name) andalso
         maps:is_key(Sel, beamtalk_class:instance_methods(Name)) of
        false ->
            beamtalk_exception:raise(does_not_understand, Name, Sel,
                                     iolist_to_binary([atom_to_binary(Name), " does not understand ",
                                                       atom_to_binary(Sel)]), nil);
        true ->
            Owner = owner(Name, Sel),
            From = case Owner of
                       Name -> [];
                       _ -> [" (inherited from ", atom_to_binary(Owner), ")"]
                   end,
            Info = maps:get(method_info, beamtalk_class:entry(Owner), #{}),
            Doc = case maps:get({Sel, false}, Info, #{}) of
                      #{doc := D} when is_binary(D) -> ["\n", D];
                      _ -> []
                  end,
            {iolist_to_binary([atom_to_binary(Name), " >> ", atom_to_binary(Sel), From, Doc]), S}
    end.

owner(nil, _Sel) -> nil;
owner(Name, Sel) ->
    case maps:is_key(Sel, maps:get(methods, beamtalk_class:entry(Name), #{})) of
        true -> Name;
        false -> owner(beamtalk_class:superclass(Name), Sel)
    end.

name({beamtalk_object, _, beamtalk_class, _} = C) -> beamtalk_class:name_of(C);
name(Name) when is_atom(Name) ->
    case beamtalk_class:exists(Name) of
        true -> Name;
        false -> not_found(Name)
    end;
name(Other) -> not_found(Other).

not_found(X) ->
    beamtalk_exception:raise(class_not_found, undefined, undefined,
                             iolist_to_binary(["Class '", beamtalk_print:display_string(X), "' not found."]),
                             nil).
