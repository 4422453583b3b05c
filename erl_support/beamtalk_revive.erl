%% @doc Opt-in actor revival (issue 14): an actor class whose class side
%% answers `true` to `revivable` (`class revivable => true`) has its
%% instances brought back after a restart with their last state.
%%
%% Snapshot (in the actor process, beamtalk_actor's hooks): when a message
%% (call or cast) leaves the state different from before, and when the actor
%% starts, the new state is noted for the store (beamtalk_store:
%% actor_changed/2, an ETS insert, no copy to disk yet).  The store writes
%% the noted states in the same Mnesia transaction as the evaluation's
%% bindings, before the evaluation answers, so a restart after a kill -9
%% brings back the actors as they were at the end of the last evaluation
%% that answered; a change made outside an evaluation (a cast, a timer) is
%% written a moment later (the store's 100 ms poke) and is lost if the node
%% dies within that moment.  Whether a class is revivable is asked once per
%% actor and class version (a class redefinition asks again).  Only actors
%% started by `spawn`/`spawnWith:` are revived: a supervisor's children come
%% back through their supervisor's own spec, and actors of other nodes are
%% not this store's.
%%
%% Revival (at boot, beamtalk_restore, after the classes and before the
%% globals and bindings): every stored actor is started once, keyed by its
%% old pid; then each state gets the old pids of revived actors replaced by
%% the new ones (so an actor's field that held another revived actor holds
%% it again) and every other dead value by a placeholder; then the store is
%% rewritten in one transaction under the new pids.  References are mapped
%% through lookup/1 by beamtalk_restore:revive/1.
-module(beamtalk_revive).

-export([changed/1, revive_all/1, lookup/1, reason/1]).

-define(CK, '$beamtalk_class').
-define(MAP, {?MODULE, map}).
-define(WHY, {?MODULE, why}).

%%% In the actor

%% @doc The actor's state changed (or the actor started): note it when the
%% actor is revivable.  Cheap for every other actor: one process-dictionary
%% read.
changed(#{?CK := Class, '__version__' := V} = State) ->
    Key = {Class, V},
    Revivable = case get('$bt_revivable') of
                    {Key, R} -> R;
                    _ ->
                        R = decide(Class),
                        put('$bt_revivable', {Key, R}),
                        R
                end,
    case Revivable of
        true -> beamtalk_store:actor_changed(self(), State);
        false -> ok
    end;
changed(_) -> ok.

decide(Class) ->
    beamtalk_store:on() andalso spawned() andalso revivable(Class).

%% Started by beamtalk_actor_sup (spawn/spawnWith:), not by a user supervisor.
spawned() ->
    case get('$ancestors') of
        [beamtalk_actor_sup | _] -> true;
        [P | _] when is_pid(P) -> P =:= whereis(beamtalk_actor_sup);
        _ -> false
    end.

%% Class-side methods run in the calling process: asking here is safe.  The
%% class-side table is flattened (inherited methods included), so a class
%% without the method is answered without raising a doesNotUnderstand.
revivable(Class) ->
    maps:is_key(revivable, beamtalk_class:class_side_methods(Class)) andalso
        try beamtalk_send:send(beamtalk_class:class_object(Class), revivable, []) =:= true
        catch _:_ -> false
        end.

%%% At boot

%% @doc Start every stored actor again ([{OldPid, State}]) and rewrite the
%% store under the new pids.  Answers {Revived, Problems}.
revive_all([]) ->
    {0, []};
revive_all(Rows) ->
    Started = [{Old, State, start(State)} || {Old, State} <- lists:sort(Rows)],
    Map = maps:from_list(lists:append([[{Old, New}, {New, New}]
                                       || {Old, _, {ok, New}} <- Started])),
    Why = maps:from_list([{Old, Text} || {Old, _, {error, Text}} <- Started]),
    persistent_term:put(?MAP, Map),
    persistent_term:put(?WHY, Why),
    %% The references between actors, now that every new pid is known.
    Actors = [begin
                  S1 = beamtalk_restore:revive(State),
                  sys:replace_state(New, fun(_) -> S1 end),
                  {New, S1}
              end || {_, State, {ok, New}} <- Started],
    ok = ok_or_log(beamtalk_store:revived(fun beamtalk_restore:revive/1, Actors)),
    Problems = [iolist_to_binary(["a ", atom_to_binary(class_of(S)), " (was ", pid_to_list(Old),
                                  ") was not revived: ", Text])
                || {Old, S, {error, Text}} <- Started],
    {length(Actors), Problems}.

ok_or_log(ok) -> ok;
ok_or_log(Other) ->
    logger:warning("beamtalk revive: the store was not rewritten (~tp)", [Other]),
    ok.

class_of(#{?CK := C}) when is_atom(C) -> C;
class_of(_) -> 'Actor'.

%% Started with the stored state as it is (its references are mapped once
%% every actor runs); the marker tells the actor not to note it again.
start(State) ->
    Class = class_of(State),
    try
        case beamtalk_class:class_info(Class) of
            #{kind := actor, module := Mod0} ->
                Mod = case Mod0 of undefined -> beamtalk_actor; _ -> Mod0 end,
                case supervisor:start_child(beamtalk_actor_sup,
                                            [{Class, Mod}, {'$bt_revived', State#{'__class_mod__' => Mod}}]) of
                    {ok, Pid} -> {ok, Pid};
                    Other -> {error, iolist_to_binary(io_lib:format("its process did not start (~tp)",
                                                                    [Other]))}
                end;
            undefined -> {error, <<"class ", (atom_to_binary(Class))/binary, " is gone">>};
            _ -> {error, <<"class ", (atom_to_binary(Class))/binary, " is no longer an actor class">>}
        end
    catch C:R -> {error, beamtalk_errors:reason_text({C, R})}
    end.

%% @doc The new pid of a revived actor (a new pid maps to itself).
lookup(Pid) ->
    maps:find(Pid, persistent_term:get(?MAP, #{})).

%% @doc Why a stored actor was not revived, if it was a revivable one.
reason(Pid) ->
    maps:find(Pid, persistent_term:get(?WHY, #{})).
