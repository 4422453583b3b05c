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
    {Cls, State#{superclassRef => Cls}};
'superclass:'(_Self, State, Name) when is_atom(Name), Name =/= nil ->
    Cls = beamtalk_class:class_object(Name),
    {Cls, State#{superclassRef => Cls}};
'superclass:'(_Self, _State, _) ->
    err(<<"ClassBuilder superclass: requires a class">>).

'fields:'(_Self, State, Fields) ->
    Specs = field_specs(Fields),
    {Fields, State#{fieldSpecs => Specs}}.

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

'methods:'(_Self, State, Methods) when is_map(Methods) ->
    {Methods, State#{methodSpecs => maps:map(fun instance_method/2, Methods)}};
'methods:'(_, _, _) -> err(<<"ClassBuilder methods: expects a Dictionary of selector to block">>).

'classMethods:'(_Self, State, Methods) when is_map(Methods) ->
    {Methods, State#{classMethodSpecs => maps:map(fun method/2, Methods)}};
'classMethods:'(_, _, _) -> err(<<"ClassBuilder classMethods: expects a Dictionary of selector to block">>).

'addField:default:'(_Self, #{fieldSpecs := Fs} = State, Name, Default) ->
    check_name(Name),
    Fs1 = [{N, F} || {N, F} <- Fs, N =/= Name] ++ [{Name, constant(Default)}],
    {Name, State#{fieldSpecs => Fs1}}.

'addMethod:body:'(_Self, #{methodSpecs := Ms} = State, Sel, Block) ->
    {Sel, State#{methodSpecs => Ms#{Sel => instance_method(Sel, Block)}}}.

'classVars:'(_Self, State, Vars) ->
    {Vars, State#{classVarSpecs => field_specs(Vars)}}.

'modifiers:'(Self, State, Ms) when is_list(Ms) ->
    lists:foldl(fun(M, {_, S}) -> 'modifier:'(Self, S, M) end, {Ms, State}, Ms);
'modifiers:'(_, _, _) -> err(<<"ClassBuilder modifiers: expects a List of Symbols">>).

%% @doc Documentation and source of the class and its methods.
'info:'(_Self, State, Info) when is_map(Info) ->
    {Info, State#{infoSpec => Info}};
'info:'(_, _, _) -> err(<<"ClassBuilder info: expects a Dictionary">>).

'addClassMethod:body:'(_Self, #{classMethodSpecs := Ms} = State, Sel, Block) ->
    {Sel, State#{classMethodSpecs => Ms#{Sel => method(Sel, Block)}}}.

'addClassVariable:default:'(_Self, #{classVarSpecs := Vs} = State, Name, Default) ->
    check_name(Name),
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
'register'(_Self, State) ->
    beamtalk_actor:stop_self(),
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
    Sealed = [Sel || {{Sel, false}, #{sealed := true}} <- maps:to_list(MethodInfo)],
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

err(Msg) ->
    beamtalk_exception:raise(runtime_error, 'ClassBuilder', undefined, Msg, nil).
