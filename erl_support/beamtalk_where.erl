%% @doc Where a running process is, for the moments a user needs it most:
%% an evaluation stopped by an interrupt or the request timeout, and an
%% actor call that timed out.
%%
%% The process is looked at before it is killed (or while it still runs):
%% the method of a loaded class it is in (the same frame an error's
%% Location names), how far its stack has grown (a recursion that never
%% ends shows as a stack of hundreds of MB), and which actor it waits for.
%% A process that waits for an actor is inside beamtalk_actor:call/4 and
%% monitors the actor (gen_server:call does); the actor is known by its
%% `'$bt_self'`, and the message by the request waiting in its mailbox (or,
%% when it is the one being answered, by the actor's `'$bt_caller'`).  So a
%% chain of waiting actors can be followed to its end, a busy actor or back
%% to one already in the chain (a deadlock), with nothing recorded on the
%% path of every send.
-module(beamtalk_where).
-export([stopped/2, call_timeout_hint/2]).

%% A stack above this many bytes is told as a recursion without end:
%% ordinary programs stay far below (a recursion that never ends passes
%% it within a second).
-define(DEEP_BYTES, 8 * 1024 * 1024).
-define(MAX_CHAIN, 6).

%% @doc `Base` ("Interrupted", "Request timed out") with the place Pid was
%% at, as `Location:` and `Hint:` lines of the error block; just `Base`
%% when there is nothing to say (input typed at the REPL).
-spec stopped(binary(), pid()) -> binary().
stopped(Base, Pid) ->
    try lines(Pid) of
        [] -> Base;
        Lines -> iolist_to_binary([Base | Lines])
    catch _:_ -> Base
    end.

lines(Pid) ->
    case look(Pid) of
        undefined -> [];
        #{location := Loc, stack_bytes := Bytes, calling := Calling} ->
            Where = case Loc of
                        nil -> [];
                        _ -> ["\n  Location: ", Loc]
                    end,
            Hint = case {Calling, Bytes > ?DEEP_BYTES} of
                       {_, true} ->
                           ["\n  Hint: the stack had grown to ", mb(Bytes),
                            ": a method that calls itself without end? (each call waits for the answer "
                            "of the next, so nothing returns)"];
                       {{C, S, P}, false} ->
                           ["\n  Hint: it was waiting for ", actor(C, P), answering(S),
                            chain_text(P, [P])];
                       _ -> []
                   end,
            [Where, Hint]
    end.

%% @doc The hint of an actor call that timed out: what the callee is doing.
%% `default` when nothing more is known than that it did not answer.
-spec call_timeout_hint(atom(), pid()) -> binary() | default.
call_timeout_hint(_Class, Pid) ->
    try look(Pid) of
        undefined -> default;
        #{calling := none, location := nil} -> default;
        #{calling := none, location := Loc} ->
            iolist_to_binary(["It is busy in ", Loc, ": an actor answers one message at a time"]);
        #{calling := {C, S, P}} ->
            Text = iolist_to_binary(["It is waiting for ", actor(C, P), answering(S),
                                     chain_text(P, [Pid, P])]),
            case binary:match(Text, <<"deadlock">>) of
                nomatch -> Text;
                _ -> <<Text/binary, "; make one of the sends a cast (!), or let one actor not call back">>
            end
    catch _:_ -> default
    end.

%% ", which is waiting for …" along the chain of waiting actors, ending
%% with where the last one is busy, or the deadlock when the chain comes
%% back to a process already in it (or to the caller of the timed-out call).
chain_text(_Pid, Seen) when length(Seen) > ?MAX_CHAIN -> [];
chain_text(Pid, Seen) ->
    case look(Pid) of
        undefined -> [];
        #{calling := {C, S, P}} ->
            Step = [", which is waiting for ", actor(C, P), answering(S)],
            case lists:member(P, Seen) orelse P =:= self() of
                true -> [Step, ": a deadlock (actors that call each other synchronously "
                         "wait until the call times out)"];
                false -> [Step | chain_text(P, [P | Seen])]
            end;
        #{location := nil} -> [];
        #{location := Loc} -> [", which is busy in ", Loc]
    end.

look(Pid) when is_pid(Pid), node(Pid) =:= node() ->
    case erlang:process_info(Pid, [current_stacktrace, stack_size, monitors]) of
        [{current_stacktrace, Stack}, {stack_size, Words}, {monitors, Mons}] ->
            #{location => beamtalk_errors:stack_location(Stack),
              stack_bytes => Words * erlang:system_info(wordsize),
              calling => calling(Pid, Stack, Mons)};
        _ -> undefined
    end;
look(_) ->
    undefined.

%% `{Class, Selector, ActorPid}` when Pid waits in an actor call, else none.
calling(Pid, Stack, Mons) ->
    case lists:keymember(call, 2, [{M, F} || {M, F, _, _} <- Stack, M =:= beamtalk_actor]) of
        false -> none;
        true ->
            Waited = [{C, P} || {process, P} <- Mons, is_pid(P), node(P) =:= node(),
                                C <- [actor_class(P)], C =/= none],
            Answering = [{C, S, P} || {C, P} <- Waited, {true, S} <- [selector(P, Pid)]],
            case {Answering, Waited} of
                {[Found | _], _} -> Found;
                {[], []} -> none;
                {[], _} ->
                    %% no actor holds or runs its request (a remote one, a
                    %% reply on its way): the newest monitor, the call's
                    {C, P} = lists:last(Waited),
                    {C, undefined, P}
            end
    end.

actor_class(P) ->
    case erlang:process_info(P, dictionary) of
        {dictionary, D} ->
            case lists:keyfind('$bt_self', 1, D) of
                {_, {beamtalk_object, C, _, _}} -> C;
                _ -> none
            end;
        _ -> none
    end.

%% The message Caller waits on: its request still in the actor's mailbox,
%% or (when the actor is answering Caller now) the one being run, as
%% `{true, Selector}`; `{false, undefined}` when Actor holds no request of
%% Caller's (a process may monitor an actor for its own reasons: only the
%% actor that has its request is the one it waits for).
selector(Actor, Caller) ->
    case erlang:process_info(Actor, [dictionary, message_queue_len]) of
        [{dictionary, D}, {message_queue_len, N}] ->
            Queued = case N =< 10000 andalso erlang:process_info(Actor, messages) of
                         {messages, Ms} ->
                             [S || {'$gen_call', {From, _}, {S, _}} <- Ms, From =:= Caller, is_atom(S)];
                         _ -> []
                     end,
            case {Queued, lists:keyfind('$bt_caller', 1, D)} of
                {[S | _], _} -> {true, S};
                {[], {_, Caller}} -> {true, running_selector(Actor)};
                _ -> {false, undefined}
            end;
        _ -> {false, undefined}
    end.

%% The method an actor is running, from its stack (a loaded class's frame;
%% a class typed at the REPL runs closures, whose names say nothing).
running_selector(Actor) ->
    case erlang:process_info(Actor, current_stacktrace) of
        {current_stacktrace, Stack} ->
            case beamtalk_test_location:user_frame(Stack) of
                nil -> undefined;
                Frame ->
                    case beamtalk_prim_stack_frame:frame(Frame) of
                        #{method := M} when is_atom(M) -> M;
                        _ -> undefined
                    end
            end;
        _ -> undefined
    end.

%% " to answer 'sel'", or nothing when the message is not known.
answering(undefined) -> [];
answering(S) -> [" to answer '", atom_to_binary(S, utf8), "'"].

actor(Class, Pid) ->
    ["a ", atom_to_binary(Class, utf8), " ", pid_to_list(Pid)].

mb(Bytes) ->
    [integer_to_binary(Bytes div (1024 * 1024)), " MB"].
