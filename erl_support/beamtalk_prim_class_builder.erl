%% @doc ClassBuilder (seed ADR 0038): an actor that collects a class
%% description through cascaded messages and registers it with `register`,
%% which answers the class object and stops the builder (also when the
%% registration fails).
%%
%%   Object classBuilder name: #Dog; addField: #name default: "Rex";
%%       addMethod: #speak body: [:self | "Woof"]; register
%%
%% Method bodies are blocks taking the receiver first (`[:self :arg | ...]`);
%% a block without that extra argument ignores the receiver.  They become
%% value-style methods (`{v, Fun}`) of the new class.
%%
%% The compiler holds the same conversation for every class definition
%% (runtime_abi.py): `fields:` [{Name, DefaultFun}], `methods:`
%% #{Sel => {v | a, Fun}}, `classMethods:` #{Sel => Fun}, `classVars:`
%% [{Name, DefaultFun}], `modifiers:` [..], `info:` #{doc, source, methods =>
%% #{{Sel, ClassSide} => #{source, doc, sealed}}}.  `nil classBuilder` builds
%% a root class (no superclass).
-module(beamtalk_prim_class_builder).

-define(SPENT, <<"this builder has stopped (a ClassBuilder is single use): "
                 "start again with a new one, e.g. Object classBuilder name: #Foo; ...; register">>).

-export(['name:'/3, 'superclass:'/3, 'fields:'/3, 'methods:'/3,
         'classMethods:'/3, 'classVars:'/3, 'modifiers:'/3, 'info:'/3,
         'addField:default:'/4, 'addMethod:body:'/4,
         'addClassMethod:body:'/4, 'addClassVariable:default:'/4, 'modifier:'/3,
         'doc:'/3, 'register'/2, 'class new'/1]).

'class new'(_Cls) -> beamtalk_actor:spawn('ClassBuilder', #{}).

'name:'(_Self, State, Name) when is_atom(Name), Name =/= nil, Name =/= true, Name =/= false ->
    {Name, State#{className => Name}};
'name:'(_Self, _State, _Name) ->
    err(<<"ClassBuilder name: requires a Symbol argument">>).

'superclass:'(_Self, State, {beamtalk_object, Tag, beamtalk_class, _} = Cls) when Tag =/= 'Metaclass' ->
    {Cls, State#{superclassRef => Cls, explicitSuperclass => true}};
'superclass:'(_Self, State, Name) when is_atom(Name), Name =/= nil ->
    Cls = stopping_on_error(fun() -> beamtalk_class:class_object(Name) end),
    {Cls, State#{superclassRef => Cls, explicitSuperclass => true}};
'superclass:'(_Self, _State, _) ->
    err(<<"ClassBuilder superclass: requires a class">>).

'fields:'(_Self, State, Fields) ->
    Specs = field_specs(Fields),
    {Fields, given(fields, State#{fieldSpecs => Specs})}.

%% The tables set whole (`fields:`, `methods:`, ...) replace the existing
%% class's; the others keep it, plus what `add...:` added (see register).
given(Part, State) ->
    State#{given => lists:usort([Part | maps:get(given, State, [])])}.

field_specs(M) when is_map(M) ->
    [{N, constant(V)} || {N, V} <- lists:sort(maps:to_list(M)), check_name(N)];
field_specs(L) when is_list(L) ->
    [case F of
         {N, D} when is_function(D, 0) -> check_name(N), {N, D};
         {N, V} when is_atom(N) -> check_name(N), {N, constant(V)};   % a value computed by a load hook
         #{'$beamtalk_class' := 'Association', key := N, value := V} -> check_name(N), {N, constant(V)};
         N when is_atom(N) -> check_name(N), {N, constant(nil)};
         _ -> err(<<"ClassBuilder fields: expects a Dictionary or a List of Symbols">>)
     end || F <- L];
field_specs(_) ->
    err(<<"ClassBuilder fields: expects a Dictionary or a List of Symbols">>).

check_name(N) when is_atom(N), N =/= nil, N =/= true, N =/= false -> true;
check_name(_) -> err(<<"ClassBuilder: field names must be Symbols">>).

constant(V) -> fun() -> V end.

%% A selector that is not a Symbol (`addMethod: "speak" body: [...]`) is
%% refused by name, with the call written the right way, before its block
%% is looked at (the block is usually fine).
check_selector(Sel, _Before, _After) when is_atom(Sel), Sel =/= nil, Sel =/= true, Sel =/= false -> ok;
check_selector(Sel, Before, After) ->
    beamtalk_actor:stop_self(),                % see err/1
    Example = case is_binary(Sel) andalso re:run(Sel, "^[a-z_][A-Za-z0-9_:]*$", [unicode]) of
                  {match, _} -> Sel;
                  _ -> <<"foo">>
              end,
    beamtalk_exception:raise(
      runtime_error, 'ClassBuilder', undefined,
      iolist_to_binary(["ClassBuilder: a method selector must be a Symbol, not ",
                        beamtalk_print:print_string(Sel)]),
      iolist_to_binary(["a selector is a Symbol: ", Before, "#", Example, After])).

'methods:'(_Self, State, Methods) when is_map(Methods) ->
    [check_selector(S, <<"methods: #{">>, <<" => [:me | ...]}">>) || S <- maps:keys(Methods)],
    {Methods, given(methods, State#{methodSpecs => maps:map(fun instance_method/2, Methods)})};
'methods:'(_, _, _) -> err(<<"ClassBuilder methods: expects a Dictionary of selector to block">>).

'classMethods:'(_Self, State, Methods) when is_map(Methods) ->
    [check_selector(S, <<"classMethods: #{">>, <<" => [:cls | ...]}">>) || S <- maps:keys(Methods)],
    {Methods, given(class_methods, State#{classMethodSpecs => maps:map(fun method/2, Methods)})};
'classMethods:'(_, _, _) -> err(<<"ClassBuilder classMethods: expects a Dictionary of selector to block">>).

'addField:default:'(_Self, #{fieldSpecs := Fs} = State, Name, Default) ->
    check_name(Name),
    Fs1 = [{N, F} || {N, F} <- Fs, N =/= Name] ++ [{Name, constant(Default)}],
    {Name, State#{fieldSpecs => Fs1}}.

'addMethod:body:'(_Self, #{methodSpecs := Ms} = State, Sel, Block) ->
    check_selector(Sel, <<"addMethod: ">>, <<" body: [:me | ...]">>),
    {Sel, State#{methodSpecs => Ms#{Sel => instance_method(Sel, Block)}}}.

'classVars:'(_Self, State, Vars) ->
    {Vars, given(class_vars, State#{classVarSpecs => field_specs(Vars)})}.

'modifiers:'(Self, State, Ms) when is_list(Ms) ->
    lists:foldl(fun(M, {_, S}) -> 'modifier:'(Self, S, M) end,
                {Ms, given(modifiers, State#{modifiers => []})}, Ms);
'modifiers:'(_, _, _) -> err(<<"ClassBuilder modifiers: expects a List of Symbols">>).

%% @doc Documentation and source of the class and its methods.
'info:'(_Self, State, Info) when is_map(Info) ->
    {Info, State#{infoSpec => Info}};
'info:'(_, _, _) -> err(<<"ClassBuilder info: expects a Dictionary">>).

'addClassMethod:body:'(_Self, #{classMethodSpecs := Ms} = State, Sel, Block) ->
    check_selector(Sel, <<"addClassMethod: ">>, <<" body: [:cls | ...]">>),
    {Sel, State#{classMethodSpecs => Ms#{Sel => method(Sel, Block)}}}.

'addClassVariable:default:'(_Self, #{classVarSpecs := Vs} = State, Name, Default) ->
    is_atom(Name) andalso Name =/= nil andalso Name =/= true andalso Name =/= false
        orelse err(iolist_to_binary(["ClassBuilder: class variable names must be Symbols, not ",
                                     beamtalk_print:print_string(Name)])),
    {Name, State#{classVarSpecs => [{N, F} || {N, F} <- Vs, N =/= Name] ++ [{Name, constant(Default)}]}}.

'modifier:'(_Self, #{modifiers := Ms} = State, M) when M =:= abstract; M =:= sealed; M =:= typed ->
    {M, State#{modifiers => lists:usort([M | Ms])}};
'modifier:'(_, _, _) -> err(<<"ClassBuilder modifier: expects #abstract, #sealed or #typed">>).

'doc:'(_Self, State, Text) -> {Text, State#{docText => Text}}.

%% An instance method: `{a, Fun}` (actor style, from the compiler) as is,
%% anything else as a value-style method.
instance_method(Sel, {a, F}) when is_atom(Sel), is_function(F) ->
    N = beamtalk_send:selector_arity(Sel),
    case erlang:fun_info(F, arity) of
        {arity, A} when A =:= N + 2 -> {a, F};
        {arity, A} ->
            err(iolist_to_binary(io_lib:format(
                                   "ClassBuilder: the actor method ~ts takes ~b arguments; it should take ~b",
                                   [Sel, A, N + 2])))
    end;
instance_method(Sel, M) ->
    method(Sel, M).

%% A block for selector Sel: [:self :a ... | body] as is; [:a ... | body]
%% (no receiver argument) wrapped to ignore the receiver.
method(Sel, {v, F}) when is_function(F) -> method(Sel, F);
method(Sel, F) when is_atom(Sel), is_function(F) ->
    N = beamtalk_send:selector_arity(Sel),
    case erlang:fun_info(F, arity) of
        {arity, A} when A =:= N + 1 -> {v, F};
        {arity, N} -> {v, beamtalk_object:make_fun(N + 1, fun([_Self | Args]) -> erlang:apply(F, Args) end)};
        {arity, A} ->
            err(iolist_to_binary(io_lib:format(
                                   "ClassBuilder: the block for ~ts takes ~b arguments; it should take ~b "
                                   "(the receiver, then one per keyword)", [Sel, A, N + 1])))
    end;
method(Sel, _) ->
    err(iolist_to_binary(["ClassBuilder: the body of ", beamtalk_print:display_string(Sel),
                          " must be a block"])).

%% @doc Register the class (beamtalk_class:define/1), answer the class
%% object, and stop this builder once the answer is sent.  `register` is
%% terminal (ADR 0038 "Cleanup"): a registration that fails stops the
%% builder too, after its error has been raised in the caller, so a cascade
%% whose builder nobody holds (`Object classBuilder name: #x; register`)
%% leaves no process behind.
'register'(_Self, State0) ->
    beamtalk_actor:stop_self(),
    State = resolve(State0),
    #{className := Name, superclassRef := Super, fieldSpecs := Fields,
      methodSpecs := Methods, classMethodSpecs := ClassMethods,
      classVarSpecs := ClassVars, modifiers := Modifiers, docText := Doc0} = State,
    Root = maps:get(rootClass, State, false),
    Super =:= nil andalso not Root andalso err(<<"ClassBuilder register requires superclass to be set">>),
    Name =:= nil andalso err(<<"ClassBuilder register requires a name (send name: first)">>),
    Info = maps:get(infoSpec, State, #{}),
    MethodInfo = case maps:get(methods, Info, #{}) of
                     MI when is_map(MI) -> MI;
                     _ -> #{}
                 end,
    Sealed = lists:usort(maps:get(keptSealed, State, []) ++
                         [Sel || {{Sel, false}, #{sealed := true}} <- maps:to_list(MethodInfo)]),
    Doc = case Doc0 of
              nil -> maps:get(doc, Info, nil);
              _ -> Doc0
          end,
    Desc = #{name => Name,
             superclass => case Super of nil -> nil; _ -> beamtalk_class:name_of(Super) end,
             fields => Fields,
             methods => Methods,
             class_methods => maps:map(fun(_, {v, F}) -> F end, ClassMethods),
             class_vars => ClassVars,
             modifiers => Modifiers,
             sealed_methods => Sealed,
             doc => Doc,
             source => case maps:get(source, Info, undefined) of
                           <<>> -> undefined;
                           Src -> Src
                       end,
             source_file => case maps:get(source_file, Info, undefined) of
                                <<>> -> undefined;
                                File -> File
                            end,
             method_info => MethodInfo,
             module => case maps:get(module, Info, undefined) of
                           M when is_atom(M), M =/= nil -> M;
                           _ -> undefined
                       end,
             dispatch => maps:get(dispatch, Info, false) =:= true},
    {beamtalk_class:define(Desc), State}.

%%% ---------------------------------------------------------------------
%%% A builder for a class that exists updates it (README "ClassBuilder").
%%%
%%% `Counter classBuilder addMethod: #x body: [...]; register` (no `name:`)
%%% and `Object classBuilder name: #Point; ...; register` for an existing
%%% Object subclass Point start from the class as it is: the tables the
%%% builder was not given whole (`fields:`, `methods:`, `classMethods:`,
%%% `classVars:`, `modifiers:`) are kept, with what `add...:` added laid
%%% over them; doc, source and method docs are kept unless given.  Live
%%% instances and actors keep their state (define/1 updates in place).
%%%
%%% The class is replaced by exactly what the builder describes when the
%%% builder was given both `fields:` and `methods:` (a whole definition: what
%%% the compiler sends for a class definition or a reload), or an explicit
%%% `superclass:` other than the class's own.  A different superclass that
%%% only comes from the receiver of `classBuilder` is refused: that is how
%%% `Object classBuilder name: #Counter; register` used to wipe an actor
%%% class silently.
%%% ---------------------------------------------------------------------

resolve(#{className := nil} = S) ->
    case maps:get(originClass, S, nil) of
        {beamtalk_object, _, beamtalk_class, _} = O ->
            %% A stdlib class cannot change: its builder makes subclasses,
            %% so it still needs a name.
            Name = beamtalk_class:name_of(O),
            case catch beamtalk_class:entry(Name) of
                #{protected := true} -> S;
                _ -> resolve(S#{className => Name})
            end;
        _ -> S
    end;
resolve(#{className := Name} = S) ->
    case catch beamtalk_class:entry(Name) of
        #{superclass := _} = E -> existing(S, Name, E);
        _ -> S
    end.

existing(S, Name, E) ->
    Given = maps:get(given, S, []),
    Whole = lists:member(fields, Given) andalso lists:member(methods, Given),
    Protected = maps:get(protected, E, false),
    Own = maps:get(superclass, E),
    Asked = case maps:get(superclassRef, S) of
                nil -> nil;
                C -> beamtalk_class:name_of(C)
            end,
    Explicit = maps:get(explicitSuperclass, S, false) =:= true,
    FromOrigin = origin_name(S) =:= Name,
    if
        Whole; Protected -> S;                      % a redefinition; define/1 refuses the stdlib
        not Explicit, FromOrigin -> merge(with_super(S, Own), E);
        Asked =:= Own -> merge(S, E);
        Explicit -> S;                              % a new superclass: replace the class
        true -> superclass_differs(Name, Own, Asked)
    end.

origin_name(S) ->
    case maps:get(originClass, S, nil) of
        {beamtalk_object, _, beamtalk_class, _} = O -> beamtalk_class:name_of(O);
        _ -> nil
    end.

with_super(S, nil) -> S#{superclassRef => nil, rootClass => true};
with_super(S, Own) -> S#{superclassRef => beamtalk_class:class_object(Own)}.

merge(S, E) ->
    Given = maps:get(given, S, []),
    Keep = fun(Part) -> not lists:member(Part, Given) end,
    #{fieldSpecs := Fs, methodSpecs := Ms, classMethodSpecs := CMs,
      classVarSpecs := CVs, modifiers := Mods, docText := Doc} = S,
    Info0 = maps:get(infoSpec, S, #{}),
    OldInfo = #{methods => maps:get(method_info, E, #{}),
                source => maps:get(source, E, undefined),
                source_file => maps:get(source_file, E, undefined),
                module => maps:get(module, E, undefined)},
    MI = maps:merge(maps:get(method_info, E, #{}), case maps:get(methods, Info0, #{}) of
                                                      M when is_map(M) -> M;
                                                      _ -> #{}
                                                  end),
    S#{fieldSpecs => case Keep(fields) of
                         true -> overlay(maps:get(fields, E, []), Fs);
                         false -> Fs
                     end,
       methodSpecs => case Keep(methods) of
                          true -> maps:merge(maps:get(methods, E, #{}), Ms);
                          false -> Ms
                      end,
       classMethodSpecs => case Keep(class_methods) of
                               true -> maps:merge(maps:get(class_methods, E, #{}), CMs);
                               false -> CMs
                           end,
       classVarSpecs => case Keep(class_vars) of
                            %% The class process keeps the values of the
                            %% variables still declared; the default is unused.
                            true -> overlay([{N, constant(nil)} || N <- maps:get(class_vars, E, [])], CVs);
                            false -> CVs
                        end,
       modifiers => case Keep(modifiers) of
                        true -> lists:usort(maps:get(modifiers, E, []) ++ Mods);
                        false -> Mods
                    end,
       docText => case Doc of
                      nil -> maps:get(doc, E, nil);
                      _ -> Doc
                  end,
       keptSealed => maps:get(sealed_methods, E, []),
       %% Methods given here are closures, not the compiled module's: the
       %% class leaves the module's fast dispatch path (dispatch => false).
       infoSpec => maps:merge(OldInfo, Info0#{methods => MI, dispatch => false})}.

%% Old specs with the added ones in place of same-named ones, added last.
overlay(Old, Added) ->
    [{N, F} || {N, F} <- Old, not lists:keymember(N, 1, Added)] ++ Added.

superclass_differs(Name, Own, Asked) ->
    N = atom_to_binary(Name),
    beamtalk_exception:raise(
      class_already_exists, 'ClassBuilder', register,
      iolist_to_binary([N, " already exists as a subclass of ", name_text(Own),
                        "; this builder would make it a subclass of ", name_text(Asked)]),
      iolist_to_binary(["Use ", N, " classBuilder to change ", N, ", or send superclass: ",
                        name_text(Asked), " to replace it with a new definition"])).

name_text(nil) -> <<"nil">>;
name_text(A) -> atom_to_binary(A).

%% A builder that refuses part of a description stops, as `register` does:
%% the cascade that sent it (`Object classBuilder name: nil; register`) ends
%% at the error, never reaches `register`, and nobody holds the builder, so
%% keeping it alive would leak one process per mistake.
err(Msg) ->
    beamtalk_actor:stop_self(),
    beamtalk_exception:raise(runtime_error, 'ClassBuilder', undefined, Msg, ?SPENT).

%% A Beamtalk error raised by something the builder called (`superclass:
%% #Nope` finding no class) stops it the same way.
stopping_on_error(Fun) ->
    try Fun()
    catch error:R:St ->
        beamtalk_actor:stop_self(),
        erlang:raise(error, R, St)
    end.
