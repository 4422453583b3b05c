%% @doc The flattened method tables every send reads (DESIGN D7): for each
%% class the instance-side table under its name and the class-side table
%% under its class tag, in persistent_term (the layout is described in
%% beamtalk_class, which reads them).
%%
%% Why a module of its own: flattening is the one costly step of a
%% definition (a persistent_term write is a global scan), with its own
%% rules - parents before children, inherited fields first, own methods
%% win, value classes get synthesised accessors and constructor, an
%% unchanged table is not written again - and it is called only by the
%% registry process (beamtalk_class_registry), which serialises it.  It
%% reads the registry table, not the persistent terms, for the superclass
%% chain, because those terms are what it is rewriting.
-module(beamtalk_class_tables).

-export([refresh/1, recompute/1]).

-define(TAB, beamtalk_class_registry).

%% @doc Recompute the tables of Name and of every class whose tables
%% depend on it (after Name was defined or one of its methods changed).
refresh(Name) ->
    recompute(affected(Name)).

%% The classes whose flattened tables depend on Name: itself and its
%% subclasses; every class when Name is in the chain of `Class` (all
%% class-side tables sit on top of the instance protocol of Class).
affected(Name) ->
    Chain = ['Class' | entry_superclasses('Class')],
    case lists:member(Name, Chain) of
        true -> beamtalk_class:all_names();
        false -> [Name | beamtalk_class:all_subclasses(Name)]
    end.

%% @doc Recompute in two passes, parents before children: instance tables,
%% fields and info first, then class-side tables (which read the instance
%% table of Class, itself possibly recomputed in the first pass).
recompute(Names) ->
    Sorted = lists:sort([{depth(N), N} || N <- Names]),
    [recompute_instance(N) || {_, N} <- Sorted],
    [recompute_class_side(N) || {_, N} <- Sorted],
    ok.

depth(N) -> length(entry_superclasses(N)).

%% Superclass chain from the registry table (authoritative while the
%% persistent terms are being recomputed).
entry_superclasses(N) ->
    entry_superclasses(entry_super(N), 0).

entry_superclasses(nil, _) -> [];
entry_superclasses(_, D) when D > 100 -> [];
entry_superclasses(S, D) -> [S | entry_superclasses(entry_super(S), D + 1)].

entry_super(N) ->
    case ets:select(?TAB, [{{N, #{superclass => '$1'}}, [], ['$1']}]) of
        [S] -> S;
        [] -> nil
    end.

recompute_instance(Name) ->
    E = #{superclass := Super, kind := Kind, pid := Pid} = beamtalk_class:entry(Name),
    {SuperMethods, SuperFields} =
        case Super of
            nil -> {#{}, []};
            _ -> {beamtalk_class:instance_methods(Super),
                  case beamtalk_class:class_info(Super) of #{fields := F} -> F; _ -> [] end}
        end,
    Own = maps:get(fields, E),
    Fields = merge_fields(SuperFields, Own),
    Synth = case Kind of
                value -> beamtalk_object:synthesise_accessors(Own);
                _ -> #{}
            end,
    Methods = maps:merge(maps:merge(SuperMethods, Synth), maps:get(methods, E)),
    Modifiers = maps:get(modifiers, E),
    Info = #{name => Name,
             superclass => Super,
             kind => Kind,
             fields => Fields,
             version => erlang:unique_integer([positive, monotonic]),
             object => {beamtalk_object, beamtalk_class:class_tag(Name), beamtalk_class, Pid},
             module => maps:get(module, E),
             modifiers => Modifiers,
             abstract => lists:member(abstract, Modifiers),
             primitive => maps:get(primitive, E, false),
             stdlib => maps:get(stdlib, E, false)},
    put_term(Name, Methods#{'$info' => Info}).

recompute_class_side(Name) ->
    E = #{superclass := Super, kind := Kind} = beamtalk_class:entry(Name),
    Base = case Super of
               nil -> beamtalk_class:instance_methods('Class');
               _ -> beamtalk_class:class_side_methods(Super)
           end,
    Fields = case beamtalk_class:class_info(Name) of #{fields := F} -> F; _ -> [] end,
    Synth = case Kind of
                value -> beamtalk_object:synthesise_constructor(Fields);
                _ -> #{}
            end,
    Methods = maps:merge(maps:merge(Base, Synth), maps:get(class_methods, E)),
    put_term(beamtalk_class:class_tag(Name), Methods).

%% Inherited fields first, in their order; a redeclared field keeps its
%% position and takes the new default.
merge_fields(Inherited, Own) ->
    OwnMap = maps:from_list(Own),
    Kept = [case maps:find(N, OwnMap) of
                {ok, F1} -> {N, F1};
                error -> {N, F}
            end || {N, F} <- Inherited],
    InheritedNames = [N || {N, _} <- Inherited],
    Kept ++ [{N, F} || {N, F} <- Own, not lists:member(N, InheritedNames)].

put_term(Key, Value) ->
    case persistent_term:get(Key, '$bt_none') of
        Value -> ok;                          % unchanged: skip the global scan
        _ -> persistent_term:put(Key, Value)
    end.
