%% @doc The workspace singletons `Beamtalk` (BeamtalkInterface) and
%% `Workspace` (WorkspaceInterface): one actor each, bound as globals when the
%% runtime boots, answered by `BeamtalkInterface current` and
%% `WorkspaceInterface current` (spec stdlib §10, repl.md §5).  Their methods
%% are in beamtalk_prim_beamtalk_interface / beamtalk_prim_workspace_interface.
-module(beamtalk_singletons).
-export([start/0, current/1, set_current/2, names/0]).

%% @doc Spawn the singletons that are not running and bind their globals.
start() ->
    [ensure(Global, Class) || {Global, Class} <- pairs()],
    ok.

names() -> ['Transcript', 'Beamtalk', 'Workspace'].

pairs() -> [{'Beamtalk', 'BeamtalkInterface'}, {'Workspace', 'WorkspaceInterface'}].

%% @doc The singleton of a class (started again if it died).
current(Class) ->
    {Global, Class} = lists:keyfind(Class, 2, pairs()),
    ensure(Global, Class).

ensure(Global, Class) ->
    case catch beamtalk_class:global(Global) of
        {beamtalk_object, Class, _, Pid} = Obj when is_pid(Pid) ->
            case is_process_alive(Pid) of
                true -> Obj;
                false -> spawn_singleton(Global, Class)
            end;
        _ -> spawn_singleton(Global, Class)
    end.

spawn_singleton(Global, Class) ->
    Obj = beamtalk_actor:spawn(Class, #{}),
    beamtalk_class:set_global(Global, Obj),
    Obj.

%% @doc `BeamtalkInterface current: anActor` (stdlib §10): the actor that
%% `current` answers and the global (`Beamtalk`, `Workspace`) names from now
%% on.  It must be a live actor of that class (one made with `spawn`); the
%% one it replaces keeps running until it is stopped.  Answers the class.
set_current(Class, {beamtalk_object, ObjClass, _, Pid} = Obj) when is_pid(Pid) ->
    {Global, Class} = lists:keyfind(Class, 2, pairs()),
    case beamtalk_class:is_kind_of_class(ObjClass, Class) andalso is_process_alive(Pid) of
        true ->
            beamtalk_class:set_global(Global, Obj),
            beamtalk_class:class_object(Class);
        false -> not_current(Class, Obj)
    end;
set_current(Class, Other) -> not_current(Class, Other).

not_current(Class, V) ->
    C = atom_to_binary(Class),
    beamtalk_exception:raise(type_error, Class, 'current:',
                             iolist_to_binary([C, " current: expects a live ", C,
                                               " actor, not ", beamtalk_print:print_string(V)]),
                             iolist_to_binary(["Make one with ", C, " spawn"])).
