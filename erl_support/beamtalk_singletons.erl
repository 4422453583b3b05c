%% @doc The workspace singletons `Beamtalk` (BeamtalkInterface) and
%% `Workspace` (WorkspaceInterface): one actor each, bound as globals when the
%% runtime boots, answered by `BeamtalkInterface current` and
%% `WorkspaceInterface current` (spec stdlib §10, repl.md §5).  Their methods
%% are in beamtalk_prim_beamtalk_interface / beamtalk_prim_workspace_interface.
-module(beamtalk_singletons).
-export([start/0, current/1, names/0]).

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
