%% @doc Where a running process is, for the moments a user needs it most:
%% an evaluation stopped by an interrupt or the request timeout, and an
%% actor call that timed out.
%%
%% The process is looked at before it is killed (or while it still runs):
%% the method of a loaded class it is in (the same frame an error's
%% Location names), how far its stack has grown (a recursion that never
%% ends shows as a stack of hundreds of MB), and which actor it waits for.
%% A process that waits for an actor has `'$bt_calling'` set to
%% `{Class, Selector, Pid}` in its dictionary (beamtalk_actor:call/4), so
%% a chain of waiting actors can be followed to its end: a busy actor, or
%% back to one already in the chain (a deadlock).
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
                           ["\n  Hint: it was waiting for ", actor(C, P), " to answer '",
                            atom_to_binary(S, utf8), "'", chain_text(P, [P])];
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
            Text = iolist_to_binary(["It is waiting for ", actor(C, P), " to answer '",
                                     atom_to_binary(S, utf8), "'", chain_text(P, [Pid, P])]),
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
            Step = [", which is waiting for ", actor(C, P), " to answer '", atom_to_binary(S, utf8), "'"],
            case lists:member(P, Seen) orelse P =:= self() of
                true -> [Step, ": a deadlock (actors that call each other synchronously "
                         "wait until the call times out)"];
                false -> [Step | chain_text(P, [P | Seen])]
            end;
        #{location := nil} -> [];
        #{location := Loc} -> [", which is busy in ", Loc]
    end.

look(Pid) when is_pid(Pid), node(Pid) =:= node() ->
    case erlang:process_info(Pid, [current_stacktrace, stack_size, dictionary]) of
        [{current_stacktrace, Stack}, {stack_size, Words}, {dictionary, Dict}] ->
            #{location => beamtalk_errors:stack_location(Stack),
              stack_bytes => Words * erlang:system_info(wordsize),
              calling => case lists:keyfind('$bt_calling', 1, Dict) of
                             {_, {C, S, P}} when is_pid(P) -> {C, S, P};
                             _ -> none
                         end};
        _ -> undefined
    end;
look(_) ->
    undefined.

actor(Class, Pid) ->
    ["a ", atom_to_binary(Class, utf8), " ", pid_to_list(Pid)].

mb(Bytes) ->
    [integer_to_binary(Bytes div (1024 * 1024)), " MB"].
